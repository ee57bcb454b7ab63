//! Golden vectors: `testdata/*.bin`, written by `testdata/gen_vectors.py` (an implementation of
//! WIRE.md independent of this crate) and described field by field in `testdata/*.md`.
//!
//! For each vector: decode it, assert every field of its `.md` against values hard-coded here,
//! re-encode the decoded value and compare byte for byte, check replies against their request,
//! and sweep every truncation. `MdLockIntent` is exercised against the same vectors.
//!
//! One test binary, one module per part: `expected` (the values written out), `requests`,
//! `replies`, `bytes` (big-endian facts and truncations) and `lock_intent`.

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    IntentOpc, McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MdLockIntent, MliBuf,
    Operation, PrepResult, ReplyView, RequestView, ResultMask, UnknownReason,
};
use lustre_dne_intent::wire::{
    DispFlags, InodeBits, LdlmFlags, LdlmInodebits, LdlmLockDesc, LdlmReply, LdlmRequest,
    LdlmResId, LockHandles, LockMode, LockType, LuFid, LustreHandle, MdtBody, MdtValid, MsgFlags,
    MsgHeader, PtlrpcBody, PtlrpcMsgType, WireStruct,
};

mod bytes;
mod expected;
mod layouts;
mod lock_intent;
mod replies;
mod requests;

use expected::*;
