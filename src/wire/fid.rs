//! `struct lu_fid` on the wire. The value, [`LuFid`], with its text form, is written by hand
//! (`crate::fid`): errors name FIDs, so it sits below the wire layer.

pub use crate::fid::{FidParseError, LuFid};

use super::table::c_struct;

#[c_struct(lu_fid, size = 16,
    doc = "File identifier, laid out as in Lustre's lustre_user.h (16 bytes, packed).",
    raw_doc = "`struct lu_fid` (16 bytes, packed).",
    remote = LuFid)]
struct LuFidDeclaration {
    /// sequence
    #[c(0, __u64 f_seq)]
    seq: u64,
    /// object id within the sequence
    #[c(8, __u32 f_oid)]
    oid: u32,
    /// version, 0 for normal FIDs
    #[c(12, __u32 f_ver)]
    ver: u32,
}
