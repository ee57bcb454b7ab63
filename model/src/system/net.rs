//! The network between coordinators and the parent MDT, and the messages on it. Enqueues and
//! their replies are real `lustre_msg` bytes built and parsed by the crate's codec: an intent
//! enqueue is a [`PrepareRequest`], its answer the handler's [`lustre_dne_intent::intent::PrepareReply`]; a
//! plain enqueue is `ptlrpc_body` + `ldlm_request`, its reply `ptlrpc_body` + `ldlm_reply`.
//! Blocking ASTs, cancels and OUT_UPDATE transactions are carried as values.

use super::txn::Update;
use alloc::vec::Vec;
use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::{PrepareRequest, RequestView};
use lustre_dne_intent::wire::{
    InodeBits, LdlmFlags, LdlmLockDesc, LdlmReply, LdlmRequest, LdlmResId, LockHandles, LockMode,
    LockType, LustreHandle, MsgBuilder, MsgFlags, MsgHeader, MsgView, PtlrpcBody, PtlrpcMsgType,
    WireStruct,
};

/// `ELDLM_LOCK_ABORTED`: the RPC status of an intent answered without a lock.
pub const ELDLM_LOCK_ABORTED: i32 = 301;

/// An end of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Node {
    /// The parent MDT (MDT0000).
    Parent,
    /// Coordinator MDT `n` (MDT000{n+1}).
    Coord(u8),
}

/// What travels.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Msg {
    /// `LDLM_ENQUEUE` request bytes; `xid` matches the reply.
    Enqueue {
        /// Request id (the coordinator's lock cookie).
        xid: u16,
        /// The encoded request.
        bytes: Bytes,
    },
    /// The enqueue's reply bytes.
    EnqueueReply {
        /// The request's xid.
        xid: u16,
        /// The encoded reply.
        bytes: Bytes,
    },
    /// `LDLM_BL_CALLBACK` for the server lock `lock`.
    BlockingAst {
        /// Server lock id.
        lock: u16,
    },
    /// `LDLM_CANCEL` of the server lock `lock`.
    Cancel {
        /// Server lock id.
        lock: u16,
    },
    /// An OUT_UPDATE transaction.
    Update {
        /// Request id.
        xid: u16,
        /// What it writes.
        update: Update,
    },
    /// Its reply.
    UpdateReply {
        /// The request's xid.
        xid: u16,
    },
}

impl Msg {
    /// The RPC a loss can hit and a resend recovers (ASTs and cancels are not lost: a peer
    /// that stops answering them is evicted, which the model leaves out).
    pub fn losable(&self) -> bool {
        matches!(
            self,
            Msg::Enqueue { .. }
                | Msg::EnqueueReply { .. }
                | Msg::Update { .. }
                | Msg::UpdateReply { .. }
        )
    }

    /// The xid of a request or reply.
    pub fn xid(&self) -> Option<u16> {
        match self {
            Msg::Enqueue { xid, .. }
            | Msg::EnqueueReply { xid, .. }
            | Msg::Update { xid, .. }
            | Msg::UpdateReply { xid } => Some(*xid),
            _ => None,
        }
    }
}

/// A message in flight.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Envelope {
    /// Sender.
    pub src: Node,
    /// Receiver.
    pub dst: Node,
    /// The message.
    pub msg: Msg,
}

/// The lock an enqueue asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LockSpec {
    /// Resource.
    pub res: LdlmResId,
    /// Mode.
    pub mode: LockMode,
    /// Inode bits.
    pub bits: InodeBits,
}

/// Flags of one sending of an enqueue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Sending {
    /// `MSG_RESENT`.
    pub resent: bool,
    /// `MSG_REPLAY` + `LDLM_FL_REPLAY` (a lock replay after the server restarted).
    pub replay: bool,
    /// The client's cookie (`lock_handle[0]`).
    pub cookie: u16,
    /// For a replay: the server handle the lock had (`lock_handle[1]`).
    pub old_handle: u16,
}

fn handles(s: &Sending) -> LockHandles {
    LockHandles::from_slice(&[
        LustreHandle(u64::from(s.cookie)),
        LustreHandle(u64::from(s.old_handle)),
    ])
    .unwrap_or_default()
}

fn msg_flags(s: &Sending) -> MsgFlags {
    let mut f = MsgFlags::EMPTY;
    if s.resent {
        f |= MsgFlags::RESENT;
    }
    if s.replay {
        f |= MsgFlags::REPLAY;
    }
    f
}

fn build(ptlrpc: &PtlrpcBody, second: &[u8], order: Endian) -> Bytes {
    let mut p = Vec::with_capacity(ptlrpc.wire_len());
    ptlrpc.put_buffer(order, &mut p);
    let mut b = MsgBuilder::new(order, MsgHeader::default());
    // Both buffers are far below the builder's bounds; an error would be a model bug and
    // yields an empty message, which every decoder refuses.
    if b.push(&p).and_then(|b| b.push(second)).is_err() {
        return Bytes::new();
    }
    let mut out = Vec::with_capacity(b.wire_len());
    b.put(&mut out);
    Bytes::from(out)
}

/// A plain enqueue (no intent buffer), in the sender's byte `order`.
pub fn plain_enqueue(spec: &LockSpec, s: &Sending, order: Endian) -> Bytes {
    let mut ptlrpc = PtlrpcBody::enqueue(PtlrpcMsgType::REQUEST);
    ptlrpc.flags = msg_flags(s);
    let req = LdlmRequest {
        lock_flags: if s.replay {
            LdlmFlags::REPLAY
        } else {
            LdlmFlags::EMPTY
        },
        lock_count: 1,
        lock_desc: LdlmLockDesc {
            lr_type: LockType::IBITS,
            resource: spec.res,
            req_mode: spec.mode,
            granted_mode: LockMode::NONE,
            policy: lustre_dne_intent::wire::LdlmInodebits {
                bits: spec.bits,
                ..Default::default()
            },
        },
        handles: handles(s),
    };
    let mut l = Vec::with_capacity(req.wire_len());
    req.put_buffer(order, &mut l);
    build(&ptlrpc, &l, order)
}

/// An intent enqueue: `req` with this sending's cookie and flags, in the sender's byte `order`.
pub fn intent_enqueue(req: &PrepareRequest, s: &Sending, order: Endian) -> Bytes {
    let mut r = *req;
    r.ldlm.handles = handles(s);
    r.ptlrpc.flags = msg_flags(s);
    r.to_bytes(order).unwrap_or_default()
}

/// A plain reply: the lock granted with `handle`, or an error status and no lock, in the byte
/// `order` of the request it answers.
pub fn plain_reply(spec: &LockSpec, handle: u16, status: i32, order: Endian) -> Bytes {
    let mut ptlrpc = PtlrpcBody::enqueue(PtlrpcMsgType::REPLY);
    ptlrpc.status = status;
    let rep = LdlmReply {
        lock_desc: LdlmLockDesc {
            lr_type: LockType::IBITS,
            resource: spec.res,
            req_mode: spec.mode,
            granted_mode: if status == 0 {
                spec.mode
            } else {
                LockMode::NONE
            },
            policy: lustre_dne_intent::wire::LdlmInodebits {
                bits: spec.bits,
                ..Default::default()
            },
        },
        lock_handle: LustreHandle(u64::from(handle)),
        ..Default::default()
    };
    let mut l = Vec::with_capacity(LdlmReply::SIZE);
    rep.put(order, &mut l);
    build(&ptlrpc, &l, order)
}

/// An enqueue as the parent MDT reads it.
#[derive(Debug, Clone, Copy)]
pub struct Incoming {
    /// The lock asked for.
    pub spec: LockSpec,
    /// Sending flags.
    pub sending: Sending,
    /// The message carries a prepare intent.
    pub intent: bool,
    /// The sender's byte order: the reply is written in it (as Lustre answers).
    pub order: Endian,
}

/// Parses an enqueue: an intent request through [`RequestView`], a plain one buffer by buffer.
pub fn parse_enqueue(bytes: &[u8]) -> Option<Incoming> {
    let msg = MsgView::parse(bytes).ok()?;
    let (ptlrpc, ldlm, intent) = if msg.bufcount() > 2 {
        let v = RequestView::parse(bytes).ok()?;
        (v.ptlrpc(), v.ldlm(), true)
    } else {
        let p =
            PtlrpcBody::decode_buffer(msg.buffer(0)?, msg.order(), msg.buffer_offset(0)).ok()?;
        let l =
            LdlmRequest::decode_buffer(msg.buffer(1)?, msg.order(), msg.buffer_offset(1)).ok()?;
        (p, l, false)
    };
    let h = ldlm.handles.as_slice();
    let d = &ldlm.lock_desc;
    Some(Incoming {
        spec: LockSpec {
            res: d.resource,
            mode: d.req_mode,
            bits: d.policy.bits,
        },
        sending: Sending {
            resent: ptlrpc.flags.contains(MsgFlags::RESENT),
            replay: ptlrpc.flags.contains(MsgFlags::REPLAY)
                || ldlm.lock_flags.contains(LdlmFlags::REPLAY),
            cookie: h.first().map_or(0, |x| x.0 as u16),
            old_handle: h.get(1).map_or(0, |x| x.0 as u16),
        },
        intent,
        order: msg.order(),
    })
}

/// The byte order of an encoded message (`None` when it is no `lustre_msg`).
pub fn order_of(bytes: &[u8]) -> Option<Endian> {
    MsgView::parse(bytes).ok().map(|m| m.order())
}

/// The RPC status and the granted handle of any enqueue reply (`ptlrpc_body` and
/// `ldlm_reply` are its first two buffers either way).
pub fn reply_status(bytes: &[u8]) -> Option<(i32, u16)> {
    let msg = MsgView::parse(bytes).ok()?;
    let p = PtlrpcBody::decode_buffer(msg.buffer(0)?, msg.order(), msg.buffer_offset(0)).ok()?;
    let l = LdlmReply::decode(msg.buffer(1)?, msg.order()).ok()?;
    Some((p.status, l.lock_handle.0 as u16))
}

/// Offset of `pb_status` in `ptlrpc_body`.
const PB_STATUS: usize = 20;

/// Sets the RPC status of an encoded reply (the ABORTED answer of a mutant handler), in the
/// reply's own byte order.
pub fn with_status(bytes: &[u8], status: i32) -> Bytes {
    let Ok(msg) = MsgView::parse(bytes) else {
        return Bytes::new();
    };
    let off = msg.buffer_offset(0) + PB_STATUS;
    let mut v = bytes.to_vec();
    if let Some(s) = v.get_mut(off..off + 4) {
        s.copy_from_slice(&match msg.order() {
            Endian::Little => status.to_le_bytes(),
            Endian::Big => status.to_be_bytes(),
        });
    }
    Bytes::from(v)
}

/// One line describing a message, for counterexamples.
pub fn describe(msg: &Msg) -> alloc::string::String {
    use alloc::format;
    match msg {
        Msg::Enqueue { xid, bytes } => match parse_enqueue(bytes) {
            Some(i) => format!(
                "LDLM_ENQUEUE xid {xid} {:?} {:?} on {}{}{}{}",
                i.spec.mode,
                i.spec.bits,
                res_name(&i.spec.res),
                if i.intent { " +prepare intent" } else { "" },
                if i.sending.resent { " MSG_RESENT" } else { "" },
                if i.sending.replay { " REPLAY" } else { "" },
            ),
            None => format!(
                "LDLM_ENQUEUE xid {xid} (undecodable, {} bytes)",
                bytes.len()
            ),
        },
        Msg::EnqueueReply { xid, bytes } => match reply_status(bytes) {
            Some((0, h)) => format!(
                "enqueue reply xid {xid}: granted lock #{h}{}",
                if MsgView::parse(bytes).is_ok_and(|m| m.bufcount() > 2) {
                    " with prepare results"
                } else {
                    ""
                }
            ),
            Some((s, _)) => format!("enqueue reply xid {xid}: status {s}, no lock"),
            None => format!("enqueue reply xid {xid} (undecodable)"),
        },
        Msg::BlockingAst { lock } => format!("blocking AST for lock #{lock}"),
        Msg::Cancel { lock } => format!("LDLM_CANCEL lock #{lock}"),
        Msg::Update { xid, update } => format!("OUT_UPDATE xid {xid}: {}", update.summary()),
        Msg::UpdateReply { xid } => format!("OUT_UPDATE reply xid {xid}"),
    }
}

/// `[seq:oid]` or `[seq:oid hash]`.
pub fn res_name(r: &LdlmResId) -> alloc::string::String {
    let f = r.fid();
    if r.name[3] == 0 {
        alloc::format!("[{f}]")
    } else {
        alloc::format!("[{f} hash {:#x}]", r.name[3] & 0xffff)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::system::ops::PARENT;

    /// Plain enqueues and replies go through the codec in either byte order and come back as
    /// sent; the parsed request reports the order the reply must be written in.
    #[test]
    fn plain_enqueue_and_reply_round_trip_in_both_orders() {
        let spec = LockSpec {
            res: LdlmResId::of_fid(PARENT, 0x1234),
            mode: LockMode::CW,
            bits: InodeBits::UPDATE,
        };
        let s = Sending {
            resent: true,
            replay: true,
            cookie: 7,
            old_handle: 3,
        };
        for order in [Endian::Little, Endian::Big] {
            let b = plain_enqueue(&spec, &s, order);
            let i = parse_enqueue(&b).expect("parses");
            assert!(!i.intent);
            assert_eq!(i.spec, spec);
            assert_eq!(i.sending, s);
            assert_eq!(i.order, order);
            assert_eq!(order_of(&b), Some(order));
            let granted = plain_reply(&spec, 9, 0, order);
            assert_eq!(order_of(&granted), Some(order));
            assert_eq!(reply_status(&granted), Some((0, 9)));
            assert_eq!(
                reply_status(&plain_reply(&spec, 0, -71, order)).map(|r| r.0),
                Some(-71)
            );
            let aborted = with_status(&granted, ELDLM_LOCK_ABORTED);
            assert_eq!(reply_status(&aborted), Some((ELDLM_LOCK_ABORTED, 9)));
            assert!(parse_enqueue(&b[..b.len() - 1]).is_none());
        }
        // The two orders differ on the wire.
        assert_ne!(
            plain_enqueue(&spec, &s, Endian::Little),
            plain_enqueue(&spec, &s, Endian::Big)
        );
    }
}
