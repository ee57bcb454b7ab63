//! The two new fixed structures: `md_create_prepare_req` (request buffer 3) and
//! `md_create_prepare_rep` (reply buffer 2), 80 bytes each (WIRE.md §5, §7). Declared beside
//! Lustre's own structures; callers find their values in `intent`.

use super::fid::LuFid;
use super::table::wire_struct;
use crate::limits::{MLI_BUF_MAX, PREPARE_REP_SIZE, PREPARE_REQ_SIZE};
use crate::mli_buf::ResultMask;

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

wire_struct! {
    /// The request body of a prepare intent: who asks, about what, and how much they accept
    /// back. Unknown `mcpr_flags` bits are kept.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
    pub struct MdCreatePrepareReq;
    /// `struct md_create_prepare_req`.
    raw MdCreatePrepareReqRaw;
    c md_create_prepare_req[PREPARE_REQ_SIZE]
        "Request buffer 3 of an IT_DNE_*_PREPARE enqueue";
    impl WireStruct;
    members {
        0 struct LuFid mcpr_fid => fid,
            "parent (entry mode) or object (object mode); the lock's FID";
        16 __u32 mcpr_flags => flags: McprFlags, "MCPR_*";
        20 __u32 mcpr_fsuid => fsuid, "caller's fsuid, already mapped";
        24 __u32 mcpr_fsgid => fsgid, "caller's fsgid";
        28 __u32 mcpr_umask => umask, "only bits 0777";
        32 __u64 mcpr_cap => cap, "effective capabilities, bit n = capability n"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::hex"))];
        40 __u32 mcpr_child_mode => child_mode, "create: mode with S_IFMT before umask; else 0";
        44 __u32 mcpr_padding0 => _, "zero";
        48 __u32 mcpr_buf_limit[MLI_BUF_MAX] => buf_limit,
            "bytes accepted per result, 0 = not requested";
        72 __u64 mcpr_padding1 => _, "zero";
    }
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

wire_struct! {
    /// The reply body of a prepare intent: what the parent decided and which results it
    /// returns. Unknown `mcpp_flags` bits are kept.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
    pub struct MdCreatePrepareRep;
    /// `struct md_create_prepare_rep`.
    raw MdCreatePrepareRepRaw;
    c md_create_prepare_rep[PREPARE_REP_SIZE]
        "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue; an empty buffer 2 is the empty result";
    impl WireStruct;
    members {
        0 __s32 mcpp_status => status, "0 or the operation's negative errno";
        4 __u32 mcpp_flags => flags: McppFlags, "MCPP_*";
        8 __u32 mcpp_valid => valid: ResultMask, "results known: bit i = MLI_BUF index i";
        12 __u32 mcpp_truncated => truncated: ResultMask, "results over the requester's limit";
        16 struct LuFid mcpp_fid => fid, "entry found by the lookup, zero otherwise";
        32 __u32 mcpp_child_mode => child_mode, "derived child mode, or S_IFMT of the entry found";
        36 __u32 mcpp_child_gid => child_gid, "derived child gid";
        40 __u32 mcpp_child_projid => child_projid, "derived child project id";
        44 __u32 mcpp_child_flags => child_flags, "derived LUSTRE_*_FL of the child";
        48 __u32 mcpp_buf_size[MLI_BUF_MAX] => buf_size, "size of each result on the parent";
        72 __u64 mcpp_padding => _, "zero";
    }
}
