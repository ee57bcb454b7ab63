//! The concurrent reference model (MODEL.md §6): a parent MDT and several coordinators running
//! short scripts of operations over a lossy, reordering network with resends, reconnects that
//! change the connect flag and restarts with lock replay, explored exhaustively with
//! [stateright](https://docs.rs/stateright).
//!
//! - [`locks`]: the LDLM IBITS lock table and Lustre's compatibility matrix;
//! - [`net`]: the network and its messages (real encoded enqueues and replies);
//! - [`ops`]: operations and decisions; [`txn`]: the transactions and their executor;
//!   [`standard`]: the standard path, which defines the right decision;
//! - [`cache`]: the OSP cache with the design's suppression;
//! - [`coordinator`] and [`parent`]: the actors;
//! - [`engine`]: the state, the actions and the transition function (the coordinators' own
//!   transitions in `steps`);
//! - [`props`]: the properties; [`scopes`]: the named scopes;
//! - [`report`]: running a check and printing a counterexample.
//!
//! The sequential model ([`crate::operation`], [`crate::checker`]) stays the
//! fast oracle of the property tests; this model reuses its handler and helper.

pub mod cache;
pub mod coordinator;
pub mod engine;
mod handles;
pub mod locks;
pub mod net;
pub mod ops;
pub mod parent;
pub mod props;
pub mod report;
pub mod scopes;
pub mod standard;
mod state;
mod steps;
pub mod symmetry;
pub mod txn;

pub use engine::{Action, Log, SysState, SystemModel};
pub use report::{CheckOutcome, PropertyResult, Strategy, check};
pub use scopes::{Scope, scope, scope_names};

/// A deliberate bug, for showing that the properties catch it. [`Mutation::None`] is the
/// design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Mutation {
    /// The design.
    #[default]
    None,
    /// The handler prepares its results when the enqueue arrives, before the lock is granted.
    SeedBeforeGrant,
    /// Results seeded under a lock stay in the cache after the lock is cancelled.
    KeepSeededAfterCancel,
    /// The coordinator releases its locks before it sends the transaction.
    ReleaseBeforeTxn,
    /// The post-grant invalidation is suppressed without marking older entries: a stale
    /// pre-lock read is used after the grant.
    NoInvalidateAfterAccess,
    /// An advisory status or derivation is taken as final.
    TrustAdvisory,
    /// A failed preparation aborts the enqueue (no lock), and its status is used.
    FailedPrepFailsEnqueue,
    /// The coordinator checks the connect flag only at its first connection.
    IntentsAfterReconnect,
    /// The parent answers a resent enqueue by granting a second lock.
    ResendSecondLock,
    /// The coordinator reads the reply's PATTR in the wrong byte order (the other one than the
    /// reply's).
    PattrWrongOrder,
}

impl Mutation {
    /// Every mutation (not [`Mutation::None`]).
    pub const ALL: [Mutation; 9] = [
        Mutation::SeedBeforeGrant,
        Mutation::KeepSeededAfterCancel,
        Mutation::ReleaseBeforeTxn,
        Mutation::NoInvalidateAfterAccess,
        Mutation::TrustAdvisory,
        Mutation::FailedPrepFailsEnqueue,
        Mutation::IntentsAfterReconnect,
        Mutation::ResendSecondLock,
        Mutation::PattrWrongOrder,
    ];

    /// The tool's name for it.
    pub const fn name(self) -> &'static str {
        match self {
            Mutation::None => "none",
            Mutation::SeedBeforeGrant => "seed-before-grant",
            Mutation::KeepSeededAfterCancel => "keep-seeded-after-cancel",
            Mutation::ReleaseBeforeTxn => "release-before-txn",
            Mutation::NoInvalidateAfterAccess => "no-invalidate-after-access",
            Mutation::TrustAdvisory => "trust-advisory",
            Mutation::FailedPrepFailsEnqueue => "failed-prep-fails-enqueue",
            Mutation::IntentsAfterReconnect => "intents-after-reconnect",
            Mutation::ResendSecondLock => "resend-second-lock",
            Mutation::PattrWrongOrder => "pattr-wrong-order",
        }
    }

    /// Parses [`Mutation::name`].
    pub fn from_name(s: &str) -> Option<Mutation> {
        Mutation::ALL.into_iter().find(|m| m.name() == s)
    }
}
