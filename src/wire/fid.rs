//! `struct lu_fid` on the wire. The value, [`LuFid`], with its text form, is written by hand
//! (`crate::fid`): errors name FIDs, so it sits below the wire layer.

pub use crate::fid::{FidParseError, LuFid};

use super::table::wire_struct;

wire_struct! {
    extern struct LuFid;
    /// `struct lu_fid` (16 bytes, packed).
    raw LuFidRaw;
    c lu_fid[16] "File identifier, laid out as in Lustre's lustre_user.h (16 bytes, packed).";
    impl WireStruct;
    members {
        0 __u64 f_seq => seq, "sequence";
        8 __u32 f_oid => oid, "object id within the sequence";
        12 __u32 f_ver => ver, "version, 0 for normal FIDs";
    }
}
