//! The serde form of a capture's events (features `capture` and `serde`): what
//! `dne-intent pcap --json` prints, one [`EventRecord`] per line, so that another program reads
//! it back with serde alone.
//!
//! Records are owned and self-contained. Their fields are Lustre's C names, nested as Lustre
//! nests them: a message carries its `ksock_msg_hdr`, its `lnet_hdr` and, for a Lustre RPC, its
//! `ptlrpc_body` in the library's own serde form (the one `decode --json` prints). Opaque 64-bit
//! values (match bits, `hdr_data`, cookies, incarnations) are `"0x…"` strings, as everywhere in
//! the crate's JSON, so that jq cannot round them; frame numbers, stream offsets and lengths are
//! plain numbers (a capture never gets near 2^53 of them). NIDs are their text form
//! (`192.168.0.1@tcp`), socket addresses `addr:port`.

use super::{CaptureError, Connreq, Event, Flow, Hello, KsockMsgHdr, LnetCmd, LnetHdr, Message};
use super::{Prepare, opcode_name};
use alloc::boxed::Box;
use alloc::string::{String, ToString};
use lustre_dne_intent::Endian;
use lustre_dne_intent::error::DecodeError;
use lustre_dne_intent::intent::{IntentOpc, MessageView, ReplyKind, WireMessage};
use lustre_dne_intent::wire::PtlrpcBody;
use serde::{Deserialize, Serialize};
use std::net::SocketAddr;
use std::time::Duration;

/// One event of a capture (see the module documentation), tagged by `"event"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case", deny_unknown_fields)]
pub enum EventRecord {
    /// An LNet message, with its Lustre RPC when it carries one.
    Message(Box<MessageRecord>),
    /// `lnet_acceptor_connreq`.
    Connreq {
        /// Frame that completed it.
        frame: u64,
        /// Sender.
        src: SocketAddr,
        /// Receiver.
        dst: SocketAddr,
        /// `acr_version`.
        acr_version: u32,
        /// `acr_nid`.
        acr_nid: String,
        /// The sender's byte order.
        order: Endian,
    },
    /// A socklnd hello (`ksock_hello_msg`).
    Hello {
        /// Frame that completed it.
        frame: u64,
        /// Sender.
        src: SocketAddr,
        /// Receiver.
        dst: SocketAddr,
        /// `kshm_version`.
        kshm_version: u32,
        /// `kshm_src_nid`.
        kshm_src_nid: String,
        /// `kshm_dst_nid`.
        kshm_dst_nid: String,
        /// `kshm_src_pid`.
        kshm_src_pid: u32,
        /// `kshm_dst_pid`.
        kshm_dst_pid: u32,
        /// `kshm_src_incarnation`.
        #[serde(with = "lustre_dne_intent::serde_helpers::ints::hex")]
        kshm_src_incarnation: u64,
        /// `kshm_dst_incarnation`.
        #[serde(with = "lustre_dne_intent::serde_helpers::ints::hex")]
        kshm_dst_incarnation: u64,
        /// `kshm_ctype`.
        kshm_ctype: u32,
        /// The sender's byte order.
        order: Endian,
    },
    /// A `KSOCK_MSG_NOOP`.
    Noop {
        /// Frame that completed it.
        frame: u64,
        /// Sender.
        src: SocketAddr,
        /// Receiver.
        dst: SocketAddr,
    },
    /// Bytes of a TCP direction never captured.
    Gap {
        /// Frame at which the hole was given up on.
        frame: u64,
        /// Sender.
        src: SocketAddr,
        /// Receiver.
        dst: SocketAddr,
        /// Stream offset of the first missing byte.
        at: u64,
        /// How many bytes are missing.
        missing: u64,
    },
    /// Bytes skipped to find the next message header.
    Skipped {
        /// Frame in which the next header was found.
        frame: u64,
        /// Sender.
        src: SocketAddr,
        /// Receiver.
        dst: SocketAddr,
        /// Stream offset of the first skipped byte.
        at: u64,
        /// How many bytes were skipped.
        bytes: u64,
    },
    /// Something in the capture that breaks a rule; reading went on after it.
    Error {
        /// Frame number.
        frame: u64,
        /// Sender, when the error is in a TCP direction.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        src: Option<SocketAddr>,
        /// Receiver, likewise.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dst: Option<SocketAddr>,
        /// The structure.
        structure: String,
        /// The field (empty when the whole structure is at fault).
        field: String,
        /// Byte offset (in the stream for socklnd and LNet structures, else in the frame).
        offset: u64,
        /// The whole message, as the text output prints it.
        error: String,
    },
}

/// An LNet message as a record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MessageRecord {
    /// Frame holding its last byte (where tshark shows it).
    pub frame: u64,
    /// Frame holding its first byte.
    pub first_frame: u64,
    /// Seconds since the capture's first frame, to the microsecond (`"0.000250"`).
    pub time: String,
    /// Sender.
    pub src: SocketAddr,
    /// Receiver.
    pub dst: SocketAddr,
    /// `struct ksock_msg_hdr`.
    pub ksock_msg_hdr: KsockMsgHdrRecord,
    /// `struct lnet_hdr`.
    pub lnet_hdr: LnetHdrRecord,
    /// The Lustre RPC of a PUT or REPLY payload that frames as `lustre_msg_v2`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpc: Option<RpcRecord>,
    /// Why a payload that starts like a Lustre message does not frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lustre_error: Option<String>,
    /// For a reply: the frame of the request it answers, when that was captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_frame: Option<u64>,
    /// For a prepare reply: what it answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<ReplyKind>,
    /// A prepare message that validated: exactly what `dne-intent decode --json` prints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<WireMessage>,
    /// A prepare message that did not validate: the error, and its payload in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prepare_error: Option<String>,
    /// The payload of a prepare message that did not validate, lowercase hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payload: Option<String>,
}

/// `struct ksock_msg_hdr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KsockMsgHdrRecord {
    /// `ksh_type`.
    pub ksh_type: u32,
    /// `ksh_csum`.
    pub ksh_csum: u32,
    /// `ksh_zc_cookies`.
    #[serde(with = "lustre_dne_intent::serde_helpers::ints::hex_array")]
    pub ksh_zc_cookies: [u64; 2],
}

/// `struct lnet_hdr`: the common fields, then those of its type (`union lnet_cmd_hdr`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LnetHdrRecord {
    /// `dest_nid`.
    pub dest_nid: String,
    /// `src_nid`.
    pub src_nid: String,
    /// `dest_pid`.
    pub dest_pid: u32,
    /// `src_pid`.
    pub src_pid: u32,
    /// `type`, by its Lustre name (`LNET_MSG_PUT`, …) or number.
    #[serde(rename = "type")]
    pub msg_type: String,
    /// `payload_length`.
    pub payload_length: u32,
    /// PUT and GET: `ptl_index`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ptl_index: Option<u32>,
    /// ACK, PUT and GET: `match_bits` (the RPC's xid for a PUT).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "lustre_dne_intent::serde_helpers::ints::hex_opt"
    )]
    pub match_bits: Option<u64>,
    /// PUT: `hdr_data`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "lustre_dne_intent::serde_helpers::ints::hex_opt"
    )]
    pub hdr_data: Option<u64>,
    /// PUT: `offset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// GET: `src_offset`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub src_offset: Option<u32>,
    /// GET: `sink_length`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sink_length: Option<u32>,
    /// ACK: `mlength`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mlength: Option<u32>,
    /// HELLO: `incarnation`.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "lustre_dne_intent::serde_helpers::ints::hex_opt"
    )]
    pub incarnation: Option<u64>,
    /// HELLO: `type` (`SOCKLND_CONN_*`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hello_type: Option<u32>,
}

/// The Lustre RPC of a message: its framing and `ptlrpc_body`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RpcRecord {
    /// The sender's byte order (from `lm_magic`).
    pub order: Endian,
    /// `lm_bufcount`.
    pub lm_bufcount: usize,
    /// The name of `pb_opc` (`LDLM_ENQUEUE`), when Lustre defines it.
    pub opc_name: Option<String>,
    /// `ldlm_intent.opc` of an enqueue request that carries an intent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub it_opc: Option<IntentOpc>,
    /// Buffer 0, in the library's serde form.
    pub ptlrpc_body: PtlrpcBody,
}

impl EventRecord {
    /// The record of `ev`; `t0` is the capture time of the first frame.
    pub fn of(ev: &Event, t0: Duration) -> EventRecord {
        match ev {
            Event::Message(m) => EventRecord::Message(Box::new(MessageRecord::of(m, t0))),
            Event::Connreq {
                frame,
                flow,
                connreq,
            } => connreq_record(*frame, flow, connreq),
            Event::Hello { frame, flow, hello } => hello_record(*frame, flow, hello),
            Event::Noop { frame, flow, .. } => EventRecord::Noop {
                frame: *frame,
                src: flow.src,
                dst: flow.dst,
            },
            Event::Gap {
                frame,
                flow,
                at,
                missing,
            } => EventRecord::Gap {
                frame: *frame,
                src: flow.src,
                dst: flow.dst,
                at: *at,
                missing: *missing,
            },
            Event::Skipped {
                frame,
                flow,
                at,
                bytes,
            } => EventRecord::Skipped {
                frame: *frame,
                src: flow.src,
                dst: flow.dst,
                at: *at,
                bytes: *bytes,
            },
            Event::Error(e) => error_record(e),
        }
    }
}

fn connreq_record(frame: u64, flow: &Flow, c: &Connreq) -> EventRecord {
    EventRecord::Connreq {
        frame,
        src: flow.src,
        dst: flow.dst,
        acr_version: c.acr_version,
        acr_nid: c.acr_nid.to_string(),
        order: c.order,
    }
}

fn hello_record(frame: u64, flow: &Flow, h: &Hello) -> EventRecord {
    EventRecord::Hello {
        frame,
        src: flow.src,
        dst: flow.dst,
        kshm_version: h.kshm_version,
        kshm_src_nid: h.kshm_src_nid.to_string(),
        kshm_dst_nid: h.kshm_dst_nid.to_string(),
        kshm_src_pid: h.kshm_src_pid,
        kshm_dst_pid: h.kshm_dst_pid,
        kshm_src_incarnation: h.kshm_src_incarnation,
        kshm_dst_incarnation: h.kshm_dst_incarnation,
        kshm_ctype: h.kshm_ctype,
        order: h.order,
    }
}

fn error_record(e: &CaptureError) -> EventRecord {
    EventRecord::Error {
        frame: e.frame,
        src: e.flow.map(|f| f.src),
        dst: e.flow.map(|f| f.dst),
        structure: e.structure.into(),
        field: e.field.into(),
        offset: e.offset,
        error: e.to_string(),
    }
}

impl MessageRecord {
    /// The record of one message; `t0` is the capture time of the first frame.
    pub fn of(m: &Message, t0: Duration) -> MessageRecord {
        let t = m.time.saturating_sub(t0);
        let mut r = MessageRecord {
            frame: m.frame,
            first_frame: m.first_frame,
            time: alloc::format!("{}.{:06}", t.as_secs(), t.subsec_micros()),
            src: m.flow.src,
            dst: m.flow.dst,
            ksock_msg_hdr: KsockMsgHdrRecord::of(&m.ksm),
            lnet_hdr: LnetHdrRecord::of(&m.hdr),
            rpc: None,
            lustre_error: None,
            request_frame: m.request.as_ref().map(|q| q.frame),
            outcome: None,
            body: None,
            prepare_error: None,
            payload: None,
        };
        match &m.rpc {
            None => {}
            Some(Err(e)) => r.lustre_error = Some(e.to_string()),
            Some(Ok(rpc)) => {
                r.rpc = Some(RpcRecord {
                    order: rpc.order,
                    lm_bufcount: rpc.bufcount,
                    opc_name: opcode_name(rpc.ptlrpc.opc).map(Into::into),
                    it_opc: rpc.intent,
                    ptlrpc_body: rpc.ptlrpc,
                });
                r.set_prepare(m);
            }
        }
        r
    }

    fn set_prepare(&mut self, m: &Message) {
        let failed = |r: &mut MessageRecord, e: DecodeError| {
            r.prepare_error = Some(e.to_string());
            r.payload = Some(lustre_dne_intent::serde_helpers::bytes::Hex(&m.payload).to_string());
        };
        match m.prepare() {
            Some(Prepare::Request(_, Ok(v))) => {
                self.body = Some(WireMessage::of(&MessageView::Request(v)));
            }
            Some(Prepare::Reply(_, Ok(v)) | Prepare::UnpairedReply(v)) => {
                self.outcome = Some(v.kind());
                self.body = Some(WireMessage::of(&MessageView::Reply(v)));
            }
            Some(Prepare::Request(_, Err(e))) => failed(self, e),
            Some(Prepare::Reply(_, Err(e))) => {
                self.outcome = Some(ReplyKind::of_refusal(&e));
                failed(self, e);
            }
            None => {}
        }
    }
}

impl KsockMsgHdrRecord {
    fn of(k: &KsockMsgHdr) -> Self {
        KsockMsgHdrRecord {
            ksh_type: k.ksh_type,
            ksh_csum: k.ksh_csum,
            ksh_zc_cookies: k.ksh_zc_cookies,
        }
    }
}

impl LnetHdrRecord {
    fn of(h: &LnetHdr) -> Self {
        let mut r = LnetHdrRecord {
            dest_nid: h.dest_nid.to_string(),
            src_nid: h.src_nid.to_string(),
            dest_pid: h.dest_pid,
            src_pid: h.src_pid,
            msg_type: h.msg_type.to_string(),
            payload_length: h.payload_length,
            ptl_index: None,
            match_bits: h.match_bits(),
            hdr_data: None,
            offset: None,
            src_offset: None,
            sink_length: None,
            mlength: None,
            incarnation: None,
            hello_type: None,
        };
        match h.cmd {
            LnetCmd::Put {
                hdr_data,
                ptl_index,
                offset,
                ..
            } => {
                r.ptl_index = Some(ptl_index);
                r.hdr_data = Some(hdr_data);
                r.offset = Some(offset);
            }
            LnetCmd::Get {
                ptl_index,
                src_offset,
                sink_length,
                ..
            } => {
                r.ptl_index = Some(ptl_index);
                r.src_offset = Some(src_offset);
                r.sink_length = Some(sink_length);
            }
            LnetCmd::Ack { mlength, .. } => r.mlength = Some(mlength),
            LnetCmd::Hello {
                incarnation,
                conn_type,
            } => {
                r.incarnation = Some(incarnation);
                r.hello_type = Some(conn_type);
            }
            LnetCmd::Reply { .. } | LnetCmd::Unknown => {}
        }
        r
    }
}
