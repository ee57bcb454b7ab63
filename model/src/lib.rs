//! The reference state machine (MODEL.md): an executable model of a cross-MDT operation run
//! with and without prepare intents, under every fault the design names, and a checker of the
//! fallback semantics.
//!
//! - [`store`]: the parent MDT's objects; [`creds`]: callers;
//! - [`mdd`]: the MDD layer's checks and derivations (the shared helper both the local path
//!   and the remote handler call);
//! - [`handler`]: the intent handler (speaks the wire format through the codec);
//! - [`operation`]: one cross-MDT operation as the coordinator runs it, by the intent path or
//!   the standard path, with faults as data and a trace;
//! - [`checker`]: the invariants of MODEL.md §4;
//! - [`survey`]: RPC accounting: the design's five operations run and counted (MODEL.md §5);
//! - `system` (feature `system`): the concurrent model, checked with stateright (MODEL.md §6).

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

extern crate alloc;

#[cfg(feature = "arbitrary")]
mod arbitrary;
pub mod checker;
pub mod creds;
mod fault_name;
pub mod handler;
#[cfg(feature = "serde")]
mod json;
pub mod mdd;
pub mod operation;
#[cfg(feature = "serde")]
mod serde_with;
mod shared;
pub mod store;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod survey;
#[cfg(feature = "system")]
pub mod system;

pub use checker::{
    Invariant, Report, Scenario, Setup, Violation, check, check_with, check_with_handler,
    check_with_setup,
};
pub use creds::Creds;
pub use handler::{HandlerFaults, IntentHandler, ReferenceHandler};
pub use mdd::{ChildState, Lookup, Prepared, prepare};
pub use operation::{
    Fault, Item, Mutations, Op, Outcome, Trace, run_intent, run_intent_with, run_intent_with_order,
    run_standard,
};
pub use store::{Attrs, Entry, Object, Store, Xattrs};

/// An arbitrary store, caller, operation and fault (from `arbitrary` bytes): the checker holds
/// every invariant of MODEL.md §4. A violation is the finding.
#[cfg(feature = "arbitrary")]
#[doc(hidden)]
pub fn fuzz_check(data: &[u8]) {
    let mut u = ::arbitrary::Unstructured::new(data);
    let (Ok(scenario), Ok(fault)) = (
        u.arbitrary::<crate::Scenario>(),
        u.arbitrary::<crate::Fault>(),
    ) else {
        return;
    };
    if let Err(v) = crate::check(&scenario, fault) {
        panic!("{v}\nfault {fault:?}\nscenario {scenario:#?}");
    }
}

/// This crate's README example runs as a doc test.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct CrateReadmeDoctests;
