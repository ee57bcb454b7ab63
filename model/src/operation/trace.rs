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
            serde(with = "lustre_dne_intent::serde_helpers::bytes::name")
        )]
        Vec<u8>,
    ),
    /// One xattr, named by the result it corresponds to.
    Xattr(LuFid, MliBuf),
    /// ROOT's default layout (the filesystem default for files).
    RootLov,
    /// The object's link xattr (`trusted.link`, linkEA): its names and parents. No prepare
    /// result carries it; the model's store does not hold its value, only the read is counted.
    LinkEa(LuFid),
}

impl Item {
    /// True when a prepare result can stand for this item (PATTR, the lookup, one of the xattr
    /// results); ROOT's layout and the linkEA are always read.
    pub fn covered_by_results(&self) -> bool {
        matches!(self, Item::Attrs(_) | Item::Lookup(..) | Item::Xattr(..))
    }
}

/// Where a synchronous read happens, in the design's survey words (MODEL.md §5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Label {
    /// Before any lock exists (object instantiation, a pre-lock striping or linkEA read).
    BeforeLock,
    /// The lockless pre-lock lookup of create.
    LocklessLookup,
    /// After the lock, on the parent.
    AfterLockParent,
    /// After the lock, on the source object.
    AfterLockObject,
    /// A duplicate caused by a cache invalidation (a read the grant dropped, issued again).
    InvalidationDuplicate,
    /// After the lock, a read no result covers (a re-check that must follow the grant).
    AfterLockUncovered,
}

impl Label {
    /// Words for the tool.
    pub const fn describe(self) -> &'static str {
        match self {
            Label::BeforeLock => "before the lock",
            Label::LocklessLookup => "lockless pre-lock lookup",
            Label::AfterLockParent => "after the lock, parent",
            Label::AfterLockObject => "after the lock, object",
            Label::InvalidationDuplicate => "duplicate from invalidation",
            Label::AfterLockUncovered => "after the lock, no result covers it",
        }
    }

    /// True for a read issued under a lock of the operation: the reads invariant 6 judges.
    pub const fn after_lock(self) -> bool {
        !matches!(self, Label::BeforeLock | Label::LocklessLookup)
    }
}

/// One synchronous remote read (one OUT_UPDATE RPC), as the coordinator issued it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct SyncRead {
    /// What it fetched.
    pub item: Item,
    /// Where in the operation it happened.
    pub label: Label,
}

/// The distributed transaction an operation that went through issues: its foreground
/// OUT_UPDATE RPCs and the delayed update-log cleanup RPCs after commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Transaction {
    /// Foreground OUT_UPDATE RPCs (one compound RPC per remote MDT, more when update-log
    /// objects must be allocated).
    pub foreground: u32,
    /// Delayed log-cancel OUT_UPDATE RPCs (outside the client's critical path).
    pub log_cleanup: u32,
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
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_with::lock_result"))]
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
            serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
        )]
        value: Option<Bytes>,
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
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::hex")
    )]
    pub request: Bytes,
    /// The reply, or the errno with no lock.
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_with::reply_result"))]
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
    /// Post-lock synchronous reads, in order (what invariant 6 judges): the items of the
    /// reads in `sync_reads` whose label is [`Label::after_lock`].
    pub reads: Vec<Item>,
    /// Every synchronous remote read, before and after the locks, in order, with where it
    /// happened: what the RPC accounting counts (MODEL.md §5).
    #[cfg_attr(feature = "serde", serde(default))]
    pub sync_reads: Vec<SyncRead>,
    /// The transaction the operation issued, when it went through.
    #[cfg_attr(feature = "serde", serde(default))]
    pub transactions: Vec<Transaction>,
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
