//! The Lustre RPC inside an LNet payload: `lustre_msg_v2` framing, `ptlrpc_body`, opcode
//! names, and the pairing of requests with replies by xid and peer.

use super::limits::PENDING_RPCS_MAX;
use super::lnet::Nid;
use lustre_dne_intent::Endian;
use lustre_dne_intent::error::DecodeError;
use lustre_dne_intent::intent::{
    IntentOpc, MdCreatePrepareReq, Operation, PrepareRequest, ReplyContext, RequestView,
};
use lustre_dne_intent::wire::{
    LDLM_ENQUEUE, LUSTRE_MSG_MAGIC_V2, LuFid, MsgView, PtlrpcBody, PtlrpcMsgType,
};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

/// Lustre's RPC opcodes (`lustre_idl.h`: `enum ost_cmd`, `mds_cmd`, `ldlm_cmd`, `mgs_cmd`,
/// `obd_cmd`, `llog_cmd`, `quota_cmd`, `seq_rpc_opc`, `fld_rpc_opc`, `sec_cmd`,
/// `update_cmd`, `lfsck_cmd`), for printing.
pub fn opcode_name(opc: u32) -> Option<&'static str> {
    const OST: [&str; 24] = [
        "OST_REPLY",
        "OST_GETATTR",
        "OST_SETATTR",
        "OST_READ",
        "OST_WRITE",
        "OST_CREATE",
        "OST_DESTROY",
        "OST_GET_INFO",
        "OST_CONNECT",
        "OST_DISCONNECT",
        "OST_PUNCH",
        "OST_OPEN",
        "OST_CLOSE",
        "OST_STATFS",
        "",
        "",
        "OST_SYNC",
        "OST_SET_INFO",
        "OST_QUOTACHECK",
        "OST_QUOTACTL",
        "OST_QUOTA_ADJUST_QUNIT",
        "OST_LADVISE",
        "OST_FALLOCATE",
        "OST_SEEK",
    ];
    const MDS: [&str; 32] = [
        "MDS_GETATTR",
        "MDS_GETATTR_NAME",
        "MDS_CLOSE",
        "MDS_REINT",
        "MDS_READPAGE",
        "MDS_CONNECT",
        "MDS_DISCONNECT",
        "MDS_GET_ROOT",
        "MDS_STATFS",
        "MDS_PIN",
        "MDS_UNPIN",
        "MDS_SYNC",
        "MDS_DONE_WRITING",
        "MDS_SET_INFO",
        "MDS_QUOTACHECK",
        "MDS_QUOTACTL",
        "MDS_GETXATTR",
        "MDS_SETXATTR",
        "MDS_WRITEPAGE",
        "MDS_IS_SUBDIR",
        "MDS_GET_INFO",
        "MDS_HSM_STATE_GET",
        "MDS_HSM_STATE_SET",
        "MDS_HSM_ACTION",
        "MDS_HSM_PROGRESS",
        "MDS_HSM_REQUEST",
        "MDS_HSM_CT_REGISTER",
        "MDS_HSM_CT_UNREGISTER",
        "MDS_SWAP_LAYOUTS",
        "MDS_RMFID",
        "MDS_BATCH",
        "MDS_HSM_DATA_VERSION",
    ];
    const LDLM: [&str; 7] = [
        "LDLM_ENQUEUE",
        "LDLM_CONVERT",
        "LDLM_CANCEL",
        "LDLM_BL_CALLBACK",
        "LDLM_CP_CALLBACK",
        "LDLM_GL_CALLBACK",
        "LDLM_SET_INFO",
    ];
    const MGS: [&str; 7] = [
        "MGS_CONNECT",
        "MGS_DISCONNECT",
        "MGS_EXCEPTION",
        "MGS_TARGET_REG",
        "MGS_TARGET_DEL",
        "MGS_SET_INFO",
        "MGS_CONFIG_READ",
    ];
    let pick = |t: &[&'static str], i: u32| t.get(i as usize).copied().filter(|s| !s.is_empty());
    match opc {
        0..=23 => pick(&OST, opc),
        33..=64 => pick(&MDS, opc - 33),
        101..=107 => pick(&LDLM, opc - 101),
        250..=256 => pick(&MGS, opc - 250),
        400 => Some("OBD_PING"),
        403 => Some("OBD_IDX_READ"),
        501 => Some("LLOG_ORIGIN_HANDLE_CREATE"),
        502 => Some("LLOG_ORIGIN_HANDLE_NEXT_BLOCK"),
        503 => Some("LLOG_ORIGIN_HANDLE_READ_HEADER"),
        508 => Some("LLOG_ORIGIN_HANDLE_PREV_BLOCK"),
        509 => Some("LLOG_ORIGIN_HANDLE_DESTROY"),
        601 => Some("QUOTA_DQACQ"),
        602 => Some("QUOTA_DQREL"),
        700 => Some("SEQ_QUERY"),
        801 => Some("SEC_CTX_INIT"),
        802 => Some("SEC_CTX_INIT_CONT"),
        803 => Some("SEC_CTX_FINI"),
        900 => Some("FLD_QUERY"),
        901 => Some("FLD_READ"),
        1000 => Some("OUT_UPDATE"),
        1101 => Some("LFSCK_NOTIFY"),
        1102 => Some("LFSCK_QUERY"),
        _ => None,
    }
}

/// The RPC framing of one message: what every Lustre message shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LustreRpc {
    /// The sender's byte order (from `lm_magic`).
    pub order: Endian,
    /// `lm_bufcount`.
    pub bufcount: usize,
    /// Buffer 0.
    pub ptlrpc: PtlrpcBody,
    /// `ldlm_intent.opc` of an `LDLM_ENQUEUE` request that carries an intent.
    pub intent: Option<IntentOpc>,
}

impl LustreRpc {
    /// True for `PTL_RPC_MSG_REQUEST`.
    pub fn is_request(&self) -> bool {
        self.ptlrpc.msg_type == PtlrpcMsgType::REQUEST
    }

    /// The operation of a prepare-intent request.
    pub fn prepare_operation(&self) -> Option<Operation> {
        self.intent.and_then(Operation::of_opc)
    }
}

/// Whether `payload` starts like a `lustre_msg_v2` (its magic at offset 8, either order).
pub fn looks_like_lustre(payload: &[u8]) -> bool {
    payload.get(8..12).is_some_and(|m| {
        let m = [m[0], m[1], m[2], m[3]];
        u32::from_le_bytes(m) == LUSTRE_MSG_MAGIC_V2 || u32::from_be_bytes(m) == LUSTRE_MSG_MAGIC_V2
    })
}

/// Frames a payload and decodes its `ptlrpc_body` (and the intent opcode of an enqueue).
pub fn decode_rpc(payload: &[u8]) -> Result<LustreRpc, DecodeError> {
    let msg = MsgView::parse(payload)?;
    let ptlrpc =
        PtlrpcBody::decode_buffer(msg.buffer_or_empty(0), msg.order(), msg.buffer_offset(0))?;
    let mut intent = None;
    if ptlrpc.opc == LDLM_ENQUEUE
        && ptlrpc.msg_type == PtlrpcMsgType::REQUEST
        && let Some(b) = msg.buffer(2).filter(|b| b.len() >= 8)
    {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[..8]);
        intent = Some(IntentOpc(match msg.order() {
            Endian::Little => u64::from_le_bytes(w),
            Endian::Big => u64::from_be_bytes(w),
        }));
    }
    Ok(LustreRpc {
        order: msg.order(),
        bufcount: msg.bufcount(),
        ptlrpc,
        intent,
    })
}

/// What a reply learns from its request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestLink {
    /// Frame of the request.
    pub frame: u64,
    /// The request's xid (its PUT's match bits; the reply's match bits too).
    pub xid: u64,
    /// The requester (the coordinator, for a prepare intent): the request's source NID.
    pub requester: Nid,
    /// The server (the parent MDT): the request's destination NID.
    pub server: Nid,
    /// Its opcode.
    pub opc: u32,
    /// Its intent opcode, for an enqueue.
    pub intent: Option<IntentOpc>,
    /// For a prepare request that validated: what the reply is checked against.
    pub reply_context: Option<ReplyContext>,
    /// For a prepare request that validated: the request itself, owned (the entry name, the
    /// object's FID, the caller's credentials): see [`RequestLink::name`] and the others.
    pub prepare: Option<Arc<PrepareRequest>>,
    /// Replies to the same request seen before this one: a resent request's earlier answer
    /// (Lustre resends with the same xid), or an xid a capture writer reused.
    pub earlier_replies: u32,
}

impl RequestLink {
    /// The entry name of a prepare request in entry mode.
    pub fn name(&self) -> Option<&[u8]> {
        self.prepare.as_ref()?.name.as_ref().map(|n| n.as_bytes())
    }

    /// The FID the prepare intent acts on (`mcpr_fid`): the parent directory in entry mode, the
    /// object itself in object mode.
    pub fn fid(&self) -> Option<LuFid> {
        self.prepare.as_ref().map(|p| p.body.fid)
    }

    /// The prepare request's body: the caller's `mcpr_fsuid`, `mcpr_fsgid`, `mcpr_umask` and
    /// `mcpr_cap`, its flags (`MCPR_GROUPS_PARTIAL`) and limits.
    pub fn body(&self) -> Option<&MdCreatePrepareReq> {
        self.prepare.as_ref().map(|p| &p.body)
    }

    /// The caller's supplementary groups as the request carried them (all of them unless
    /// `MCPR_GROUPS_PARTIAL`).
    pub fn groups(&self) -> Option<&[u32]> {
        self.prepare.as_ref().map(|p| p.groups.as_slice())
    }
}

/// (requester, server, xid): a reply comes back from the server to the requester with the
/// request's xid as its match bits, possibly on another connection of the same peers.
type RpcKey = (Nid, Nid, u64);

/// Requests seen, answered or not (a resend's reply may still come), bounded by
/// [`PENDING_RPCS_MAX`]: the oldest is forgotten first, and counted in `forgotten` when no reply
/// had answered it.
#[derive(Debug, Default)]
pub(crate) struct Pairing {
    pending: HashMap<RpcKey, RequestLink>,
    order: VecDeque<(RpcKey, u64)>,
    pub(crate) forgotten: u64,
}

impl Pairing {
    pub(crate) fn request(&mut self, key: RpcKey, link: RequestLink) {
        while self.pending.len() >= PENDING_RPCS_MAX {
            let Some((k, frame)) = self.order.pop_front() else {
                break;
            };
            if self.pending.get(&k).is_some_and(|l| l.frame == frame)
                && let Some(l) = self.pending.remove(&k)
            {
                self.forgotten += u64::from(l.earlier_replies == 0);
            }
        }
        // Entries whose key a later request took over linger in `order`; drop them so it stays
        // bounded too.
        if self.order.len() >= 2 * PENDING_RPCS_MAX {
            let pending = &self.pending;
            self.order
                .retain(|(k, f)| pending.get(k).is_some_and(|l| l.frame == *f));
        }
        self.order.push_back((key, link.frame));
        self.pending.insert(key, link);
    }

    /// The request `key` answers. It stays known (bounded like the others), so that a second
    /// reply to it, a resend's, is paired too and counted in `earlier_replies`.
    pub(crate) fn reply(&mut self, key: &RpcKey) -> Option<RequestLink> {
        let link = self.pending.get_mut(key)?;
        let found = link.clone();
        link.earlier_replies = link.earlier_replies.saturating_add(1);
        Some(found)
    }
}

/// The reply context and the owned value of a prepare request, when it is one and it
/// validates.
pub(crate) fn prepare_request(payload: &[u8]) -> Option<(ReplyContext, PrepareRequest)> {
    decode_rpc(payload).ok()?.prepare_operation()?;
    let v = RequestView::parse(payload).ok()?;
    Some((v.reply_context(), v.to_value()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(frame: u64) -> RequestLink {
        RequestLink {
            frame,
            xid: frame,
            requester: Nid::default(),
            server: Nid::default(),
            opc: LDLM_ENQUEUE,
            intent: None,
            reply_context: None,
            prepare: None,
            earlier_replies: 0,
        }
    }

    /// Past the bound the oldest request goes first, and only an unanswered one counts as
    /// forgotten; an answered one is still paired with a later reply until then.
    #[test]
    fn the_oldest_request_is_forgotten_and_counted_only_unanswered() {
        let key = |x: u64| (Nid::default(), Nid::default(), x);
        let mut p = Pairing::default();
        for x in 0..PENDING_RPCS_MAX as u64 {
            p.request(key(x), link(x));
        }
        assert_eq!(p.reply(&key(0)).map(|l| l.earlier_replies), Some(0));
        assert_eq!(p.reply(&key(0)).map(|l| l.earlier_replies), Some(1));
        let n = PENDING_RPCS_MAX as u64;
        p.request(key(n), link(n));
        p.request(key(n + 1), link(n + 1));
        assert_eq!((p.reply(&key(0)), p.reply(&key(1))), (None, None));
        assert_eq!(p.forgotten, 1, "request 0 was answered, request 1 was not");
        assert_eq!(p.reply(&key(n + 1)).map(|l| l.frame), Some(n + 1));
    }

    #[test]
    fn opcode_names_follow_lustre_idl() {
        assert_eq!(opcode_name(101), Some("LDLM_ENQUEUE"));
        assert_eq!(opcode_name(250), Some("MGS_CONNECT"));
        assert_eq!(opcode_name(501), Some("LLOG_ORIGIN_HANDLE_CREATE"));
        assert_eq!(opcode_name(36), Some("MDS_REINT"));
        assert_eq!(opcode_name(64), Some("MDS_HSM_DATA_VERSION"));
        assert_eq!(opcode_name(1000), Some("OUT_UPDATE"));
        assert_eq!(opcode_name(14), None);
        assert_eq!(opcode_name(65), None);
    }
}
