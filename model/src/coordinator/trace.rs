//! The trace of a run: every enqueue, read, lock and cache event, which the checker judges.

use crate::store::Attrs;
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::{MliBuf, Operation};
use lustre_dne_intent::wire::{LdlmResId, LuFid};

/// A read item: what one synchronous remote read fetches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Item {
    /// attr_get with the permission data (attributes, access ACL).
    Attrs(LuFid),
    /// An index lookup of a name.
    Lookup(
        LuFid,
        #[cfg_attr(
            feature = "serde",
            serde(with = "lustre_dne_intent::json::bytes::name")
        )]
        Vec<u8>,
    ),
    /// One xattr, named by the result it corresponds to.
    Xattr(LuFid, MliBuf),
    /// ROOT's default layout (the filesystem default for files).
    RootLov,
}

/// One LDLM enqueue.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Enqueue {
    /// The resource.
    pub resource: LdlmResId,
    /// The prepare intent it carried.
    pub intent: Option<Operation>,
    /// The lock id when granted, or the negative errno.
    #[cfg_attr(feature = "serde", serde(with = "crate::json::lock_result"))]
    pub result: Result<u32, i32>,
    /// The peer advertised the connect flag at this enqueue.
    pub peer_flag: bool,
    /// The operation was a replay.
    pub replay: bool,
    /// The intent came from a non-MDT connection.
    pub from_non_mdt: bool,
}

/// A cache event, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "snake_case")
)]
pub enum CacheEvent {
    /// A lock was granted.
    Grant(u32),
    /// The OSP cache was invalidated (after a grant, or on a cancel).
    Invalidate,
    /// An xattr was seeded from a reply: `Some` value, or a negative entry. `state` is the
    /// reply's state of the result it came from. PATTR seeds are [`CacheEvent::SeedAttrs`].
    Seed {
        /// What was seeded.
        item: Item,
        /// The seeded value (`None` = negative entry).
        #[cfg_attr(
            feature = "serde",
            serde(with = "lustre_dne_intent::json::bytes::opt_hex")
        )]
        value: Option<Vec<u8>>,
        /// The result's state in the reply (`"present"`, `"absent"`, …).
        state: &'static str,
    },
    /// An object's attributes were seeded from a reply's PATTR (decoded in the reply's byte
    /// order): `Some` attributes, or a negative entry.
    SeedAttrs {
        /// Whose attributes.
        fid: LuFid,
        /// The seeded attributes (`None` = negative entry).
        attrs: Option<Attrs>,
        /// The result's state in the reply.
        state: &'static str,
    },
}

/// One run of the handler.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct HandlerRun {
    /// The request.
    #[cfg_attr(feature = "serde", serde(with = "lustre_dne_intent::json::bytes::hex"))]
    pub request: Bytes,
    /// The reply, or the errno with no lock.
    #[cfg_attr(feature = "serde", serde(with = "crate::json::reply_result"))]
    pub reply: Result<Bytes, i32>,
    /// The store was identical after the call.
    pub store_unchanged: bool,
    /// The call came over an MDT-to-MDT connection.
    pub from_mdt: bool,
}

/// Everything a run did, for the checker and the tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Trace {
    /// Enqueues, in order.
    pub enqueues: Vec<Enqueue>,
    /// Post-lock synchronous reads, in order.
    pub reads: Vec<Item>,
    /// Releases, by lock id, in order.
    pub releases: Vec<u32>,
    /// Cache events, in order.
    pub cache: Vec<CacheEvent>,
    /// Handler calls.
    pub handler_runs: Vec<HandlerRun>,
    /// Results the used reply left unknown, and the items they stand for.
    pub unknown_items: Vec<Item>,
    /// A decoded, non-advisory reply whose every needed result was known was used.
    pub complete_reply: bool,
    /// The reply used was advisory.
    pub advisory_reply: bool,
}
