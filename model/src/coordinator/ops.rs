//! The operations the coordinator runs, their outcomes, the faults injected into a run and the
//! coordinator bugs (mutations) the checker must catch.

use crate::helper::ChildState;
use crate::store::Attrs;
use alloc::vec::Vec;
use lustre_dne_intent::intent::{MliBuf, Operation};
use lustre_dne_intent::wire::LuFid;

/// One cross-MDT operation, as the coordinator sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Op {
    /// Create or mkdir `name` with `mode` (type bits included, before umask) in `parent`.
    Create {
        /// The remote parent.
        parent: LuFid,
        /// The new name.
        #[cfg_attr(
            feature = "serde",
            serde(with = "lustre_dne_intent::serde_helpers::bytes::name")
        )]
        name: Vec<u8>,
        /// Requested mode.
        mode: u32,
    },
    /// Unlink or rmdir `name` in `parent`.
    Unlink {
        /// The remote parent.
        parent: LuFid,
        /// The name to remove.
        #[cfg_attr(
            feature = "serde",
            serde(with = "lustre_dne_intent::serde_helpers::bytes::name")
        )]
        name: Vec<u8>,
    },
    /// The preparation of a cross-MDT rename of `name` out of `parent`: the source lookup and
    /// permission step on the source parent, then the source object's attributes.
    Rename {
        /// The remote source parent.
        parent: LuFid,
        /// The source name.
        #[cfg_attr(
            feature = "serde",
            serde(with = "lustre_dne_intent::serde_helpers::bytes::name")
        )]
        name: Vec<u8>,
    },
    /// [`Op::Rename`] onto a name that exists: the coordinator also instantiates the object the
    /// target name holds, `target` (on the parent's MDT), and prepares its linkEA, and it checks
    /// the source parent again before replacing the target.
    RenameOver {
        /// The remote source parent.
        parent: LuFid,
        /// The source name.
        #[cfg_attr(
            feature = "serde",
            serde(with = "lustre_dne_intent::serde_helpers::bytes::name")
        )]
        name: Vec<u8>,
        /// The object the existing target name holds.
        target: LuFid,
    },
    /// The preparation of a cross-MDT directory rename: both parents are on the coordinator,
    /// the directory `source` is on the remote MDT, so its object lock is the one remote
    /// enqueue (object mode: the directory's attributes).
    RenameDir {
        /// The remote directory.
        source: LuFid,
    },
}

impl Op {
    /// The prepare operation.
    pub fn operation(&self) -> Operation {
        match self {
            Op::Create { .. } => Operation::Create,
            Op::Unlink { .. } => Operation::Unlink,
            Op::Rename { .. } | Op::RenameOver { .. } | Op::RenameDir { .. } => Operation::Rename,
        }
    }
    pub(super) fn parent(&self) -> LuFid {
        match self {
            Op::Create { parent, .. }
            | Op::Unlink { parent, .. }
            | Op::Rename { parent, .. }
            | Op::RenameOver { parent, .. } => *parent,
            Op::RenameDir { source } => *source,
        }
    }
    pub(super) fn name(&self) -> &[u8] {
        match self {
            Op::Create { name, .. }
            | Op::Unlink { name, .. }
            | Op::Rename { name, .. }
            | Op::RenameOver { name, .. } => name,
            Op::RenameDir { .. } => &[],
        }
    }
}

/// What an operation comes to: an errno, or the state it prepared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Outcome {
    /// It fails with this negative errno.
    Error(i32),
    /// Create succeeds with this child.
    Created(ChildState),
    /// Unlink/rmdir removes this object.
    Removed {
        /// The victim.
        victim: LuFid,
    },
    /// Rename may proceed with this source object and its attributes.
    RenameReady {
        /// The source object.
        source: LuFid,
        /// Its attributes.
        attrs: Attrs,
    },
}

/// A fault the coordinator's run is subjected to (MODEL.md §3), as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// Nothing goes wrong.
    None,
    /// The peer's connection does not advertise `OBD_CONNECT2_DNE_PREPARE`.
    PeerWithoutFlag,
    /// The connection advertised the flag but the peer lost it: the intent enqueue fails with
    /// -EPROTO and grants no lock.
    PeerLostFlag,
    /// The operation is a replay: no intent.
    Replay,
    /// The reply was lost and the enqueue resent: the handler runs again on the granted lock.
    Resend,
    /// The handler answers the empty result.
    EmptyResult,
    /// The handler marks its answer advisory.
    Advisory,
    /// The handler leaves this result unknown.
    Unknown(MliBuf),
    /// The coordinator's limit for this result is too small: it comes back truncated (PATTR,
    /// whose limit cannot be below an mdt_body, is then simply not requested).
    Truncated(MliBuf),
    /// The prepare reply arrives damaged and fails to decode.
    Malformed,
    /// The intent reaches the handler from a non-MDT connection: refused with -EPERM, no lock.
    NonMdtSender,
    /// The intent carries only the first `n` of the caller's groups (`MCPR_GROUPS_PARTIAL`).
    PartialGroups(u8),
}

impl Fault {
    /// Every fault over the six results, for exhaustive runs.
    pub fn all() -> Vec<Fault> {
        let mut v = alloc::vec![
            Fault::None,
            Fault::PeerWithoutFlag,
            Fault::PeerLostFlag,
            Fault::Replay,
            Fault::Resend,
            Fault::EmptyResult,
            Fault::Advisory,
            Fault::Malformed,
            Fault::NonMdtSender,
            Fault::PartialGroups(0),
            Fault::PartialGroups(1),
        ];
        for b in MliBuf::ALL {
            v.push(Fault::Unknown(b));
            v.push(Fault::Truncated(b));
        }
        v
    }

    /// The name the tool uses: `none`, `peer-without-flag`, `unknown-lov`, … (the
    /// [`Display`](core::fmt::Display) form).
    pub fn name(&self) -> alloc::string::String {
        alloc::string::ToString::to_string(self)
    }

    /// Parses [`Fault::name`] (the [`FromStr`](core::str::FromStr) form).
    pub fn from_name(s: &str) -> Option<Fault> {
        s.parse().ok()
    }
}

/// Deliberate coordinator bugs, for showing that the checker catches them (mutation testing).
/// All off in a correct coordinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Mutations {
    /// Take an advisory status (and derivation) as final.
    pub trust_advisory: bool,
    /// Seed the cache from the reply before the post-grant invalidation.
    pub seed_before_invalidation: bool,
    /// Seed unknown results as negative entries.
    pub seed_unknown_as_absent: bool,
    /// Release the intent lock twice.
    pub double_release: bool,
    /// Send intents to peers without the connect flag (and in replays).
    pub ignore_gating: bool,
    /// Read every result again after the lock even when the reply was complete.
    pub ignore_results: bool,
    /// Decode PATTR in the coordinator's own byte order instead of the reply's, as if every peer
    /// shared it (`pattr-wrong-order`): caught only against a peer of the other order.
    #[cfg_attr(feature = "serde", serde(default))]
    pub pattr_wrong_order: bool,
}
