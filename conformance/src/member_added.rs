//! A declaration with one member added, for the tests that show every generated artifact
//! follows a new member: the layout, the C header, the dissector (`cheader.rs`), the C vectors
//! (`cvectors.rs`) and the tool's text printer (`dne-intent`'s `text_tests.rs`). It is also the
//! shortest example of what adding a member takes: one line in the declaration.

use lustre_dne_intent::intent::{McppFlags, MliBuf, ResultMask};
use lustre_dne_intent::wire::{LuFid, c_struct};

/// `md_create_prepare_rep` with `mcpp_child_nlink` inserted after `mcpp_fid`: the members after
/// it move 4 bytes on, into the first half of the padding.
#[c_struct(md_create_prepare_rep, size = 80, krate = lustre_dne_intent,
    doc = "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue, with the child's link count")]
#[c_member(76, __u32 mcpp_padding, "zero")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RepWithNlink {
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
    /// derived link count of the child
    #[c(32, __u32 mcpp_child_nlink)]
    pub child_nlink: u32,
    /// derived child mode, or S_IFMT of the entry found
    #[c(36, __u32 mcpp_child_mode, octal)]
    pub child_mode: u32,
    /// derived child gid
    #[c(40, __u32 mcpp_child_gid)]
    pub child_gid: u32,
    /// derived child project id
    #[c(44, __u32 mcpp_child_projid)]
    pub child_projid: u32,
    /// derived LUSTRE_*_FL of the child
    #[c(48, __u32 mcpp_child_flags, hex)]
    pub child_flags: u32,
    /// size of each result on the parent
    #[c(52, __u32 mcpp_buf_size[6], index = MliBuf::NAMES)]
    pub buf_size: [u32; 6],
}
