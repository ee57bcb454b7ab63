//! The two new fixed structures: `md_create_prepare_req` (request buffer 3) and
//! `md_create_prepare_rep` (reply buffer 2), 80 bytes each (WIRE.md §5, §7). Declared beside
//! Lustre's own structures; callers find their values in `intent`.

use super::fid::LuFid;
use super::table::c_struct;
use crate::limits::{MLI_BUF_MAX, PREPARE_REP_SIZE, PREPARE_REQ_SIZE};
use crate::mli_buf::{MLI_BUF_NAMES, ResultMask};

wire_flags! {
    /// `mcpr_flags`.
    pub struct McprFlags(u32) {
        /// `MCPR_NO_LOOKUP`: object mode; no name, no lookup (rename only).
        const NO_LOOKUP = 0x1, "MCPR_NO_LOOKUP";
        /// `MCPR_GROUPS_PARTIAL`: buffer 5 does not hold all of the caller's groups.
        const GROUPS_PARTIAL = 0x2, "MCPR_GROUPS_PARTIAL";
    }
}

wire_flags! {
    /// `mcpp_flags`.
    pub struct McppFlags(u32) {
        /// `MCPP_LOOKUP_DONE`: the handler looked the name up.
        const LOOKUP_DONE = 0x1, "MCPP_LOOKUP_DONE";
        /// `MCPP_LOOKUP_POS`: and found it (`mcpp_fid` is the entry).
        const LOOKUP_POS = 0x2, "MCPP_LOOKUP_POS";
        /// `MCPP_PERM_DONE`: the permission checks ran.
        const PERM_DONE = 0x4, "MCPP_PERM_DONE";
        /// `MCPP_ADVISORY`: status, PERM_DONE and CHILD_DERIVED rest on incomplete information.
        const ADVISORY = 0x8, "MCPP_ADVISORY";
        /// `MCPP_CHILD_DERIVED`: the new child's mode, gid, projid and flags are filled in.
        const CHILD_DERIVED = 0x10, "MCPP_CHILD_DERIVED";
    }
}

/// The request body of a prepare intent: who asks, about what, and how much they accept back.
/// Unknown `mcpr_flags` bits are kept.
#[c_struct(md_create_prepare_req, size = PREPARE_REQ_SIZE,
    doc = "Request buffer 3 of an IT_DNE_*_PREPARE enqueue",
    raw_doc = "`struct md_create_prepare_req`.")]
#[c_member(44, __u32 mcpr_padding0, "zero")]
#[c_member(72, __u64 mcpr_padding1, "zero")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct MdCreatePrepareReq {
    /// parent (entry mode) or object (object mode); the lock's FID
    #[c(0, struct LuFid mcpr_fid)]
    pub fid: LuFid,
    /// MCPR_*
    #[c(16, __u32 mcpr_flags)]
    pub flags: McprFlags,
    /// caller's fsuid, already mapped
    #[c(20, __u32 mcpr_fsuid)]
    pub fsuid: u32,
    /// caller's fsgid
    #[c(24, __u32 mcpr_fsgid)]
    pub fsgid: u32,
    /// only bits 0777
    #[c(28, __u32 mcpr_umask, octal)]
    pub umask: u32,
    /// effective capabilities, bit n = capability n
    #[c(32, __u64 mcpr_cap, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub cap: u64,
    /// create: mode with S_IFMT before umask; else 0
    #[c(40, __u32 mcpr_child_mode, octal)]
    pub child_mode: u32,
    /// bytes accepted per result, 0 = not requested
    #[c(48, __u32 mcpr_buf_limit[MLI_BUF_MAX], index = MLI_BUF_NAMES, zero = "not requested")]
    pub buf_limit: [u32; MLI_BUF_MAX],
}

impl MdCreatePrepareReq {
    /// The results this request asks for.
    pub fn requested(&self) -> ResultMask {
        ResultMask::requested(&self.buf_limit)
    }

    /// True in object mode (`MCPR_NO_LOOKUP`).
    pub const fn object_mode(&self) -> bool {
        self.flags.contains(McprFlags::NO_LOOKUP)
    }
}

/// The reply body of a prepare intent: what the parent decided and which results it returns.
/// Unknown `mcpp_flags` bits are kept.
#[c_struct(md_create_prepare_rep, size = PREPARE_REP_SIZE,
    doc = "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue; an empty buffer 2 is the empty result",
    raw_doc = "`struct md_create_prepare_rep`.")]
#[c_member(72, __u64 mcpp_padding, "zero")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct MdCreatePrepareRep {
    /// 0 or the operation's negative errno
    #[c(0, __s32 mcpp_status, errno)]
    pub status: i32,
    /// MCPP_*
    #[c(4, __u32 mcpp_flags)]
    pub flags: McppFlags,
    /// results known: bit i = MLI_BUF index i
    #[c(8, __u32 mcpp_valid)]
    pub valid: ResultMask,
    /// results over the requester's limit
    #[c(12, __u32 mcpp_truncated)]
    pub truncated: ResultMask,
    /// entry found by the lookup, zero otherwise
    #[c(16, struct LuFid mcpp_fid)]
    pub fid: LuFid,
    /// derived child mode, or S_IFMT of the entry found
    #[c(32, __u32 mcpp_child_mode, octal)]
    pub child_mode: u32,
    /// derived child gid
    #[c(36, __u32 mcpp_child_gid)]
    pub child_gid: u32,
    /// derived child project id
    #[c(40, __u32 mcpp_child_projid)]
    pub child_projid: u32,
    /// derived LUSTRE_*_FL of the child
    #[c(44, __u32 mcpp_child_flags, hex)]
    pub child_flags: u32,
    /// size of each result on the parent
    #[c(48, __u32 mcpp_buf_size[MLI_BUF_MAX], index = MLI_BUF_NAMES)]
    pub buf_size: [u32; MLI_BUF_MAX],
}
