//! The fixed structures on the wire: Lustre's (FIDs, the `lustre_msg_v2` framing,
//! `ptlrpc_body`, the LDLM enqueue structures, `mdt_body`; WIRE.md §2–§3) and the prepare
//! intent's two new ones (`md_create_prepare_req`, `md_create_prepare_rep`, whose values are
//! `intent::MdCreatePrepareReq` and `intent::MdCreatePrepareRep`).
//!
//! Each is declared once, by a table of its members, and has two faces:
//! - a *raw layout*, generic over the byte order, derived with zerocopy and checked at compile
//!   time against the table's offsets and size (Lustre's `wiretest`), with typed accessors;
//! - a plain *value* type with native integers and named flags, which is what callers read and
//!   build. [`WireStruct`] connects the two in both byte orders.
//!
//! The tables themselves are data too: [`layout`] describes every structure (C names, offsets,
//! types, array lengths, flag names, docs) for tools that generate C, dissectors or mutants.

mod fid;
pub mod layout;
// `pub(crate)` for the intent opcode, whose one public path is `intent::IntentOpc`.
pub(crate) mod ldlm;
mod mdt_body;
pub(crate) mod msg;
pub(crate) mod out;
pub(crate) mod prepare;
pub(crate) mod ptlrpc;
pub(crate) mod table;

pub use fid::{FidParseError, LuFid};
pub(crate) use ldlm::LdlmRequestHead;
pub use ldlm::{
    DispFlags, InodeBits, LdlmFlags, LdlmInodebits, LdlmIntent, LdlmLockDesc, LdlmReply,
    LdlmRequest, LdlmResId, LockHandles, LockMode, LockType, LustreHandle,
};
pub use mdt_body::{MdtBody, MdtValid};
pub use msg::{
    BufLens, FLVR_POLICY_MASK, LUSTRE_MSG_MAGIC_V2, LUSTRE_MSG_MAGIC_V2_SWABBED, MSGHDR_AT_SUPPORT,
    MsgBuilder, MsgHeader, MsgView, WIRE_FLVR_MASK, msg_size,
};
pub use ptlrpc::{
    LDLM_ENQUEUE, LUSTRE_DLM_MSG_VERSION, LUSTRE_DLM_VERSION, LUSTRE_VERSION_MASK, MsgFlags,
    PTLRPC_MSG_VERSION, PtlrpcBody, PtlrpcMsgType,
};

/// The declaration attribute (`lustre-dne-intent-derive`), for tests of other crates that
/// declare a structure of their own (`krate = lustre_dne_intent`).
#[doc(hidden)]
pub use lustre_dne_intent_derive::c_struct;
pub(crate) use out::copy_at;
pub use table::WireStruct;
#[cfg(feature = "alloc")]
pub(crate) use table::put_struct;
pub(crate) use table::{decode_as, write_at};

/// The raw zerocopy layouts, for callers who want to overlay them on their own buffers.
pub mod raw {
    pub use super::fid::LuFidRaw;
    pub use super::ldlm::{
        LdlmInodebitsRaw, LdlmIntentRaw, LdlmLockDescRaw, LdlmReplyRaw, LdlmRequestRaw,
        LdlmResIdRaw,
    };
    pub use super::mdt_body::MdtBodyRaw;
    pub use super::msg::MsgHeaderRaw;
    pub use super::prepare::{MdCreatePrepareRepRaw, MdCreatePrepareReqRaw};
    pub use super::ptlrpc::PtlrpcBodyRaw;
}
