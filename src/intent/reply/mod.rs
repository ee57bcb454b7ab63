//! The prepare reply message (WIRE.md §7): a validated view, a `Bytes`-backed owned message, an
//! owned value that encodes, and the one rule set all of them obey.
//!
//! | buffer | content |
//! |---|---|
//! | 0 | `ptlrpc_body_v3` (`PTL_RPC_MSG_REPLY`, status 0) |
//! | 1 | `ldlm_reply`: the granted lock and the dispositions |
//! | 2 | `md_create_prepare_rep`, or empty (the empty result) |
//! | 3 + i | result i when its valid bit is set (may be empty), otherwise empty |

#[cfg(feature = "arbitrary")]
mod arbitrary;
mod encode;
#[cfg(feature = "alloc")]
mod message;
#[cfg(feature = "alloc")]
mod owned;
mod rules;
#[cfg(feature = "alloc")]
mod validated;
mod view;
mod xattrs;

#[cfg(feature = "arbitrary")]
pub use arbitrary::arbitrary_payload;
#[cfg(feature = "alloc")]
pub use message::ReplyMessage;
#[cfg(feature = "alloc")]
pub use owned::{PrepareOutcome, PrepareReply};
#[cfg(feature = "alloc")]
pub use validated::ValidatedReply;
pub use view::ReplyView;

use super::{McprFlags, MdCreatePrepareReq, Operation, ResultMask};
use crate::limits::MLI_BUF_MAX;
use crate::wire::{DispFlags, LdlmLockDesc};

/// What a prepare reply answers, as a coordinator acts on it: [`ReplyView::kind`] for a reply
/// that validates, [`ReplyKind::of`] for the result of any parse. The classes are the ones
/// `dne-intent pcap` prints and counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum ReplyKind {
    /// Every result known (valid: present or absent) and status 0: nothing left to read.
    Complete,
    /// Status 0 and some result unknown (not requested, too large, or not read): the
    /// coordinator reads those itself.
    Partial,
    /// `MCPP_ADVISORY`: the status, permission check and derived child attributes were decided
    /// with incomplete information and are redone; the valid results may still be used.
    Advisory,
    /// The empty result (no `md_create_prepare_rep`): the ordinary reads, as without the
    /// extension.
    Empty,
    /// Not advisory, and `mcpp_status` is an errno: the parent's answer to the operation (for
    /// example `-EEXIST` with the existing child's FID), which the coordinator returns without
    /// reading further. The lock is granted all the same (WIRE.md §7).
    Status,
    /// The enqueue itself failed: `PTL_RPC_MSG_ERR` or a non-zero `pb_status` (W7.1); no lock
    /// was granted.
    Error,
    /// The reply breaks another rule of the specification: the coordinator keeps the lock and
    /// treats it as the empty result (MODEL.md §3).
    Invalid,
}

impl ReplyKind {
    /// Every class, in the order `dne-intent pcap --stats` lists them.
    pub const ALL: [ReplyKind; 7] = [
        ReplyKind::Complete,
        ReplyKind::Partial,
        ReplyKind::Advisory,
        ReplyKind::Empty,
        ReplyKind::Status,
        ReplyKind::Error,
        ReplyKind::Invalid,
    ];

    /// The class of a parse's result: the view's [`kind`](ReplyView::kind), [`Error`](Self::Error)
    /// for a refusal under W7.1, [`Invalid`](Self::Invalid) for any other refusal.
    ///
    /// ```
    /// use lustre_dne_intent::intent::{ReplyKind, ReplyView};
    /// let eexist = include_bytes!("../../../testdata/mkdir_reply_eexist.bin");
    /// assert_eq!(ReplyKind::of(&ReplyView::parse(eexist)), ReplyKind::Status);
    /// assert_eq!(ReplyKind::of(&ReplyView::parse(&eexist[..40])), ReplyKind::Invalid);
    /// ```
    pub fn of(parsed: &Result<ReplyView<'_>, crate::DecodeError>) -> ReplyKind {
        match parsed {
            Ok(v) => v.kind(),
            Err(e) => ReplyKind::of_refusal(e),
        }
    }

    /// The class of a reply the decoder refused: [`Error`](Self::Error) under W7.1 (the
    /// enqueue failed), [`Invalid`](Self::Invalid) otherwise.
    pub fn of_refusal(e: &crate::DecodeError) -> ReplyKind {
        match e.kind {
            crate::ErrorKind::EnqueueFailed { .. } => ReplyKind::Error,
            _ => ReplyKind::Invalid,
        }
    }

    /// The words the tool prints for it.
    pub const fn label(self) -> &'static str {
        match self {
            ReplyKind::Complete => "complete",
            ReplyKind::Partial => "partial (unknown results)",
            ReplyKind::Advisory => "advisory",
            ReplyKind::Empty => "empty",
            ReplyKind::Status => "status (the parent's answer)",
            ReplyKind::Error => "error",
            ReplyKind::Invalid => "invalid (breaks a rule)",
        }
    }
}

/// The dispositions a prepare reply may carry in `lock_policy_res1` (WIRE.md §3, §7).
pub(crate) const DISPOSITIONS: DispFlags = DispFlags(
    DispFlags::IT_EXECD.0
        | DispFlags::LOOKUP_EXECD.0
        | DispFlags::LOOKUP_NEG.0
        | DispFlags::LOOKUP_POS.0,
);

/// What a reply must agree with when its request is known: the operation, its flags, the
/// limits, the lock asked for, the reply space, and what a derived child is checked against
/// (the requested mode, the umask and the caller's fsgid: W7.19 to W7.21).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ReplyContext {
    /// The operation requested.
    #[cfg_attr(feature = "serde", serde(rename = "operation"))]
    pub op: Operation,
    /// `mcpr_flags`: object mode gets no lookup (W7.16), unknown bits the empty result (W7.15).
    pub flags: McprFlags,
    /// `mcpr_buf_limit`.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_buf_limit"))]
    pub limits: [u32; MLI_BUF_MAX],
    /// The lock requested: the reply grants exactly this resource and mode.
    #[cfg_attr(feature = "serde", serde(rename = "lock_desc"))]
    pub lock: LdlmLockDesc,
    /// The request's `lm_repsize`.
    #[cfg_attr(feature = "serde", serde(rename = "lm_repsize"))]
    pub repsize: u32,
    /// `mcpr_child_mode`: a derived child keeps its file type (W7.19) and at most its
    /// permission bits (W7.20).
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_child_mode"))]
    pub child_mode: u32,
    /// `mcpr_umask`: what a derived mode loses when the parent has no default ACL (W7.20).
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_umask"))]
    pub umask: u32,
    /// `mcpr_fsgid`: a derived child's group under a parent without S_ISGID (W7.21).
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_fsgid"))]
    pub fsgid: u32,
}

impl ReplyContext {
    /// The context of a request.
    pub fn new(
        op: Operation,
        body: &MdCreatePrepareReq,
        lock: &LdlmLockDesc,
        repsize: u32,
    ) -> Self {
        ReplyContext {
            op,
            flags: body.flags,
            limits: body.buf_limit,
            lock: *lock,
            repsize,
            child_mode: body.child_mode,
            umask: body.umask,
            fsgid: body.fsgid,
        }
    }

    /// The results requested.
    pub fn requested(&self) -> ResultMask {
        ResultMask::requested(&self.limits)
    }
}
