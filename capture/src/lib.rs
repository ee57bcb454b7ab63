//! Packet captures of socklnd traffic, read down to the prepare intents .
//!
//! [`CaptureReader`] reads a pcap or pcapng file and yields [`Event`]s in capture order:
//! - `link`: frames, Ethernet (with VLAN tags), Linux cooked, raw IP and loopback, IPv4 and
//!   IPv6, TCP;
//! - `tcp`: each direction of each connection reassembled, out-of-order segments placed,
//!   retransmissions dropped, holes reported as [`Event::Gap`] without stopping;
//! - [`socklnd`]: the acceptor's connection request, the hello (V2, V3, V4), then `ksock_msg`
//!   frames, in either byte order;
//! - [`lnet`]: `lnet_hdr` (PUT, GET, ACK, REPLY, HELLO), NIDs;
//! - [`lustre`]: `lustre_msg_v2` in PUT and REPLY payloads, opcode names, and requests paired
//!   with their replies by xid and peer, so a prepare reply is validated against its request.
//!
//! Memory is bounded per flow ([`limits`]); no input makes the reader panic; errors name the
//! frame, the structure, the field and the byte offset. [`writer`] builds captures for tests;
//! [`wireshark`] writes the Lua dissector that shows the same in Wireshark and tshark.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

extern crate alloc;

pub mod limits;
mod link;
pub mod lnet;
pub mod lustre;
mod reader;
#[cfg(feature = "serde")]
pub mod record;
pub mod socklnd;
mod tcp;
pub mod wireshark;
pub mod writer;

pub use lnet::{LnetCmd, LnetHdr, LnetMsgType, Nid};
pub use lustre::{LustreRpc, RequestLink, opcode_name};
pub use reader::{CaptureReader, ReaderStats};
#[cfg(feature = "serde")]
pub use record::{EventRecord, MessageRecord};
pub use socklnd::{Connreq, Hello, KsockMsgHdr};
pub use writer::{CaptureWriter, Directions, Handshake, WriterOptions};

use lustre_dne_intent::error::DecodeError;
use lustre_dne_intent::intent::{Operation, ReplyView, RequestView};
use std::net::SocketAddr;
use std::time::Duration;

/// One direction of a TCP connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Flow {
    /// Sender.
    pub src: SocketAddr,
    /// Receiver.
    pub dst: SocketAddr,
}

/// What a capture holds, in capture order.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Event {
    /// An acceptor connection request (`lnet_acceptor_connreq`).
    Connreq {
        /// Frame that completed it.
        frame: u64,
        /// Its direction.
        flow: Flow,
        /// The request.
        connreq: Connreq,
    },
    /// A socklnd hello.
    Hello {
        /// Frame that completed it.
        frame: u64,
        /// Its direction.
        flow: Flow,
        /// The hello.
        hello: Hello,
    },
    /// A `KSOCK_MSG_NOOP`.
    Noop {
        /// Frame that completed it.
        frame: u64,
        /// Its direction.
        flow: Flow,
        /// The header.
        ksm: KsockMsgHdr,
    },
    /// An LNet message, with its Lustre RPC when it carries one.
    Message(Box<Message>),
    /// Bytes of a TCP direction never captured: `missing` bytes at stream offset `at`.
    Gap {
        /// Frame at which the hole was given up on.
        frame: u64,
        /// Its direction.
        flow: Flow,
        /// Stream offset of the first missing byte.
        at: u64,
        /// How many bytes are missing.
        missing: u64,
    },
    /// Bytes skipped to find the next message header (after a gap, an error, or at the start
    /// of a connection captured mid-way).
    Skipped {
        /// Frame in which the next header was found (or the last frame).
        frame: u64,
        /// Its direction.
        flow: Flow,
        /// Stream offset of the first skipped byte.
        at: u64,
        /// How many bytes were skipped.
        bytes: u64,
    },
    /// Something in the capture that breaks a rule; reading goes on after it.
    Error(CaptureError),
}

/// An LNet message.
#[derive(Debug, Clone)]
pub struct Message {
    /// Frame holding its last byte (where tshark shows it).
    pub frame: u64,
    /// Frame holding its first byte.
    pub first_frame: u64,
    /// Capture timestamp of `frame`.
    pub time: Duration,
    /// Its TCP direction.
    pub flow: Flow,
    /// Offset of its `ksock_msg_hdr` in the direction's byte stream.
    pub stream_offset: u64,
    /// The socklnd header.
    pub ksm: KsockMsgHdr,
    /// The LNet header.
    pub hdr: LnetHdr,
    /// The payload (`hdr.payload_length` bytes).
    pub payload: Vec<u8>,
    /// The Lustre RPC of a PUT or REPLY payload that starts with `lustre_msg_v2`'s magic:
    /// its framing, or why it does not frame.
    pub rpc: Option<Result<LustreRpc, DecodeError>>,
    /// For a reply: the request it answers, when that request was captured.
    pub request: Option<RequestLink>,
}

/// A prepare-intent message, validated by this crate.
#[derive(Debug)]
#[allow(clippy::large_enum_variant)]
pub enum Prepare<'a> {
    /// An `IT_DNE_*_PREPARE` enqueue.
    Request(Operation, Result<RequestView<'a>, DecodeError>),
    /// The reply to one; validated against its request when that request validated.
    Reply(Operation, Result<ReplyView<'a>, DecodeError>),
    /// An `LDLM_ENQUEUE` reply whose request was not captured (the capture started after it,
    /// or the reader forgot it: [`ReaderStats::forgotten_requests`]) and which validates as a
    /// prepare reply on its own ([`ReplyView::parse`]): the checks that need the request
    /// (W7.4's resource, W7.9, W7.11, W7.12, W7.13's operation, W7.15, W7.16, W8.2) were not
    /// made, and the operation is not known. An enqueue reply that does not validate alone is
    /// not recognisably a prepare reply, so it is not reported as one.
    UnpairedReply(ReplyView<'a>),
}

impl Message {
    /// The prepare intent this message carries, or answers.
    pub fn prepare(&self) -> Option<Prepare<'_>> {
        let rpc = self.rpc.as_ref()?.as_ref().ok()?;
        if rpc.is_request() {
            let op = rpc.prepare_operation()?;
            return Some(Prepare::Request(op, RequestView::parse(&self.payload)));
        }
        let Some(link) = self.request.as_ref() else {
            if rpc.ptlrpc.opc != lustre_dne_intent::wire::LDLM_ENQUEUE {
                return None;
            }
            return ReplyView::parse(&self.payload)
                .ok()
                .map(Prepare::UnpairedReply);
        };
        let op = link.intent.and_then(Operation::of_opc)?;
        let view = match &link.reply_context {
            Some(ctx) => ReplyView::parse_for(&self.payload, ctx),
            None => ReplyView::parse(&self.payload),
        };
        Some(Prepare::Reply(op, view))
    }
}

/// What went wrong where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaptureErrorKind {
    /// The pcap or pcapng container is damaged (the reader's own message).
    Container(String),
    /// A frame's link, IP or TCP headers do not parse.
    Link(String),
    /// A field holds a value its rule forbids.
    BadValue {
        /// The value read.
        value: u64,
        /// The rule.
        rule: &'static str,
    },
    /// A length or count past its bound.
    TooLarge {
        /// The value read.
        value: u64,
        /// The bound (see [`limits`]).
        max: u64,
    },
    /// A protocol form this reader does not decode.
    Unsupported(&'static str),
    /// The capture ends inside an item: `have` of its bytes were captured.
    EndsInside {
        /// Bytes of the item captured.
        have: u64,
    },
    /// More than [`limits::FLOWS_MAX`] TCP directions at once.
    TooManyFlows,
    /// A message that does not start a recognised item; internal to resynchronisation.
    NoFrameStart,
}

/// An error in a capture: its frame, the structure and field, the offset, and the rule.
///
/// `offset` is in the TCP direction's byte stream for socklnd and LNet structures, and in the
/// frame otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureError {
    /// Frame number (1-based, as tshark counts).
    pub frame: u64,
    /// The TCP direction, when the error is in one.
    pub flow: Option<Flow>,
    /// The structure, e.g. `ksock_hello_msg`.
    pub structure: &'static str,
    /// The field, e.g. `kshm_version`.
    pub field: &'static str,
    /// Byte offset (see above).
    pub offset: u64,
    /// What rule it breaks.
    pub kind: CaptureErrorKind,
}

impl CaptureError {
    pub(crate) fn new(
        frame: u64,
        structure: &'static str,
        field: &'static str,
        offset: u64,
        kind: CaptureErrorKind,
    ) -> Self {
        CaptureError {
            frame,
            flow: None,
            structure,
            field,
            offset,
            kind,
        }
    }
}

impl core::fmt::Display for CaptureError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "frame {}: ", self.frame)?;
        if let Some(fl) = &self.flow {
            write!(f, "{} > {} stream ", fl.src, fl.dst)?;
        }
        write!(f, "offset {}: {}", self.offset, self.structure)?;
        if !self.field.is_empty() {
            write!(f, ".{}", self.field)?;
        }
        match &self.kind {
            CaptureErrorKind::Container(m) | CaptureErrorKind::Link(m) => write!(f, ": {m}"),
            CaptureErrorKind::BadValue { value, rule } => {
                write!(f, ": {value:#x} breaks the rule: {rule}")
            }
            CaptureErrorKind::TooLarge { value, max } => {
                write!(f, ": {value} is larger than the bound {max}")
            }
            CaptureErrorKind::Unsupported(what) => write!(f, ": {what} is not decoded"),
            CaptureErrorKind::EndsInside { have } => {
                write!(f, ": the capture ends inside it ({have} bytes captured)")
            }
            CaptureErrorKind::TooManyFlows => {
                write!(
                    f,
                    ": more than {} TCP directions at once",
                    limits::FLOWS_MAX
                )
            }
            CaptureErrorKind::NoFrameStart => write!(f, ": no message starts here"),
        }
    }
}

impl std::error::Error for CaptureError {}

/// A field-level error inside one stream item, before it is placed in the capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FieldError {
    pub structure: &'static str,
    pub field: &'static str,
    /// Offset from the start of the item.
    pub at: usize,
    pub kind: CaptureErrorKind,
}
