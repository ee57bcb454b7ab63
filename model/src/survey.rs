//! RPC accounting against the design's survey traces (MODEL.md §5): each read of the standard
//! path is labelled; the intent path keeps, drops or replaces it; a fault brings back exactly the
//! reads it leaves unknown.

use super::coordinator::Fault;
use lustre_dne_intent::intent::MliBuf;

/// Where a read of the standard path happens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    /// A duplicate caused by the post-grant cache invalidation.
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
}

/// What the intent path does with a read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum WithIntent {
    /// Still read.
    Kept,
    /// Skipped whenever the coordinator plans an intent for a remote parent.
    DroppedByIntent,
    /// Not needed once any prepare reply is used (back with the empty result).
    DroppedByReply,
    /// Replaced by a result of the entry-mode intent.
    Result(MliBuf),
    /// Replaced by the PATTR result of the object-mode intent.
    ObjectPattr,
    /// Replaced by the lookup result.
    LookupResult,
}

/// One read of a survey trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SurveyRead {
    /// Its number in the design's table.
    pub n: u8,
    /// What it is.
    pub what: &'static str,
    /// Where it happens.
    pub label: Label,
    /// What the intent path does with it.
    pub with_intent: WithIntent,
}

/// An operation's survey trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct SurveyTrace {
    /// The operation.
    pub operation: &'static str,
    /// Its synchronous reads.
    pub reads: &'static [SurveyRead],
    /// LDLM enqueues it issues.
    pub enqueues: u32,
    /// The design's prototype measurement: (OUT_UPDATE before, after, sync reads before,
    /// after), where one was made.
    pub measured: &'static [(&'static str, u32, u32, u32, u32)],
}

/// OUT_UPDATE RPCs beside the reads: one foreground transaction and one delayed log cleanup.
pub const OUT_UPDATE_EXTRA: u32 = 2;

const fn r(n: u8, what: &'static str, label: Label, with_intent: WithIntent) -> SurveyRead {
    SurveyRead {
        n,
        what,
        label,
        with_intent,
    }
}

use Label::*;
use WithIntent::*;

/// The survey traces of MODEL.md §5.
pub const TRACES: [SurveyTrace; 3] = [
    SurveyTrace {
        operation: "mkdir, remote parent",
        reads: &[
            r(1, "attr_get, mdt_check_resource_ids", BeforeLock, Kept),
            r(
                2,
                "lockless pre-lock lookup",
                LocklessLookup,
                DroppedByIntent,
            ),
            r(
                3,
                "attr_get, permission",
                AfterLockParent,
                Result(MliBuf::Pattr),
            ),
            r(4, "authoritative lookup", AfterLockParent, LookupResult),
            r(
                5,
                "lookup, mdd_create_sanity_check",
                AfterLockParent,
                LookupResult,
            ),
            r(
                6,
                "xattr_get default ACL",
                AfterLockParent,
                Result(MliBuf::DefAcl),
            ),
            r(7, "xattr_get pin", AfterLockParent, Result(MliBuf::Pin)),
            r(
                8,
                "xattr_get default LOV",
                AfterLockParent,
                Result(MliBuf::Lov),
            ),
        ],
        enqueues: 2,
        measured: &[("mkdir with a remote parent (prototype)", 7, 3, 5, 1)],
    },
    SurveyTrace {
        operation: "rmdir, remote parent",
        reads: &[
            r(
                1,
                "attr_get, permission",
                AfterLockParent,
                Result(MliBuf::Pattr),
            ),
            r(2, "lookup", AfterLockParent, LookupResult),
        ],
        enqueues: 3,
        measured: &[],
    },
    SurveyTrace {
        operation: "cross-MDT file rename",
        reads: &[
            r(1, "linkEA, mdd_is_subdir (lock ordering)", BeforeLock, Kept),
            r(
                2,
                "linkEA again, mdt_attr_get_pfid",
                InvalidationDuplicate,
                DroppedByReply,
            ),
            r(3, "LMV, mdt_stripe_get", BeforeLock, Kept),
            r(
                4,
                "attr_get, permission",
                AfterLockParent,
                Result(MliBuf::Pattr),
            ),
            r(
                5,
                "LMV, lod_striping_load",
                AfterLockParent,
                Result(MliBuf::Lmv),
            ),
            r(6, "lookup, lod_index_try", AfterLockParent, LookupResult),
            r(7, "attr_get, lod_object_init", BeforeLock, Kept),
            r(8, "attr_get, mdd_rename", AfterLockObject, ObjectPattr),
            r(9, "linkEA, mdd_linkea_prepare", AfterLockUncovered, Kept),
        ],
        enqueues: 3,
        measured: &[
            (
                "cross-MDT file rename, target does not exist (prototype)",
                12,
                7,
                10,
                5,
            ),
            (
                "cross-MDT file rename, target exists (prototype)",
                16,
                9,
                14,
                7,
            ),
        ],
    },
];

/// Counts of one operation before (no intents) and after (intents, under a fault).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Row {
    /// The operation.
    pub operation: &'static str,
    /// Sync reads without intents.
    pub reads_before: u32,
    /// Sync reads with intents.
    pub reads_after: u32,
    /// OUT_UPDATE RPCs without intents.
    pub out_update_before: u32,
    /// OUT_UPDATE RPCs with intents.
    pub out_update_after: u32,
    /// LDLM enqueues without intents.
    pub enqueues_before: u32,
    /// LDLM enqueues with intents.
    pub enqueues_after: u32,
}

/// Whether read `read` still happens with intents under `fault`.
pub fn still_read(read: &SurveyRead, fault: Fault) -> bool {
    use Fault as F;
    let no_intent = matches!(fault, F::PeerWithoutFlag | F::Replay);
    // The intent was planned but the enqueue failed: the lockless lookup is already skipped and
    // everything after the lock is read as today.
    let failed = matches!(fault, F::PeerLostFlag | F::NonMdtSender);
    let empty = matches!(fault, F::EmptyResult | F::Malformed);
    // Partial groups are counted at their worst: a group-dependent verdict comes back advisory.
    let advisory = matches!(fault, F::Advisory | F::PartialGroups(_));
    let unknown = |b: MliBuf| matches!(fault, F::Unknown(x) | F::Truncated(x) if x == b);
    match read.with_intent {
        Kept => true,
        _ if no_intent => true,
        DroppedByIntent => false,
        _ if failed || empty => true,
        DroppedByReply => false,
        // Advisory: the permission and lookup steps are redone; the xattr results stand.
        Result(MliBuf::Pattr) | ObjectPattr | LookupResult if advisory => true,
        Result(b) => unknown(b),
        ObjectPattr => unknown(MliBuf::Pattr),
        LookupResult => false,
    }
}

/// The before/after row of `trace` under `fault`.
pub fn row(trace: &SurveyTrace, fault: Fault) -> Row {
    let before = trace.reads.len() as u32;
    let after = trace.reads.iter().filter(|r| still_read(r, fault)).count() as u32;
    let extra_enqueue = u32::from(matches!(fault, Fault::PeerLostFlag | Fault::NonMdtSender));
    Row {
        operation: trace.operation,
        reads_before: before,
        reads_after: after,
        out_update_before: before + OUT_UPDATE_EXTRA,
        out_update_after: after + OUT_UPDATE_EXTRA,
        enqueues_before: trace.enqueues,
        enqueues_after: trace.enqueues + extra_enqueue,
    }
}
