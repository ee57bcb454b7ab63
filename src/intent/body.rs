//! The two new fixed structures: `md_create_prepare_req` (request buffer 3) and
//! `md_create_prepare_rep` (reply buffer 2), 80 bytes each (WIRE.md §5, §7). They are declared
//! in the wire layer with Lustre's structures (one table each); this is where a caller finds
//! them, their raw layouts and their flags.

pub use crate::wire::prepare::{
    McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareRepRaw, MdCreatePrepareReq,
    MdCreatePrepareReqRaw, md_create_prepare_rep, md_create_prepare_req,
};
