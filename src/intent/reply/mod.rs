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
mod owned;
mod rules;
#[cfg(feature = "alloc")]
mod validated;
mod view;

#[cfg(feature = "arbitrary")]
pub use arbitrary::arbitrary_payload;
#[cfg(feature = "alloc")]
pub use owned::{PrepareOutcome, PrepareReply};
#[cfg(feature = "alloc")]
pub use validated::ValidatedReply;
#[cfg(feature = "alloc")]
pub use view::ReplyMessage;
pub use view::ReplyView;

use super::{McprFlags, MdCreatePrepareReq, Operation, ResultMask};
use crate::limits::MLI_BUF_MAX;
use crate::wire::{DispFlags, LdlmLockDesc};

/// What a valid prepare reply answers, as a coordinator acts on it ([`ReplyView::kind`]). The
/// lock is granted in every case; what differs is what the coordinator still reads itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum ReplyKind {
    /// Every result known (valid: present or absent): nothing left to read.
    Complete,
    /// Some result unknown (not requested, too large, or not read): the coordinator reads
    /// those itself.
    Partial,
    /// `MCPP_ADVISORY`: the status, permission check and derived child attributes were decided
    /// with incomplete information and are redone; the valid results may still be used.
    Advisory,
    /// The empty result (no `md_create_prepare_rep`): the ordinary reads, as without the
    /// extension.
    Empty,
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
