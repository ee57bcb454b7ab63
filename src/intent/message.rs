//! One entry point for "a message of this protocol": a prepare request or a prepare reply, told
//! apart by `ptlrpc_body.pb_type` before any other rule is looked at (WIRE.md §2, §5, §7).
//!
//! | `pb_type` | decoded as |
//! |---|---|
//! | 4711 `PTL_RPC_MSG_REQUEST` | [`RequestView`] |
//! | 4713 `PTL_RPC_MSG_REPLY` | [`ReplyView`] |
//! | 4712 `PTL_RPC_MSG_ERR` | [`ReplyView`], which refuses it with [`ErrorKind::EnqueueFailed`](crate::ErrorKind::EnqueueFailed) and its errno |
//! | anything else | [`ErrorKind::WrongMessageType`](crate::ErrorKind::WrongMessageType) |
//!
//! The single-kind decoders read `pb_type` first too, so a reply handed to
//! [`RequestView::parse`] (or the reverse) fails with [`ErrorKind::WrongMessageType`](crate::ErrorKind::WrongMessageType), which
//! says what was found and what was expected.

use super::enqueue::{PtlrpcHead, wrong_type};
#[cfg(feature = "alloc")]
use super::{PrepareReply, PrepareRequest};
use super::{ReplyView, RequestView};
use crate::endian::{Endian, with_order};
use crate::error::DecodeError;
#[cfg(feature = "alloc")]
use crate::error::EncodeError;
use crate::limits::REPLY_BUFCOUNT;
use crate::wire::msg::{Frame, Span};
use crate::wire::{PtlrpcBody, PtlrpcMsgType};
use zerocopy::ByteOrder;

/// A received message of this protocol, validated: a request or a reply, whichever `pb_type`
/// says.
#[derive(Debug, Clone, Copy)]
pub enum MessageView<'a> {
    /// `PTL_RPC_MSG_REQUEST`: a prepare-intent enqueue.
    Request(RequestView<'a>),
    /// `PTL_RPC_MSG_REPLY`: the answer to one.
    Reply(ReplyView<'a>),
}

impl<'a> MessageView<'a> {
    /// Frames `bytes`, reads `pb_type` from buffer 0, and decodes the message with the rules of
    /// its kind (the reply rules without the request: see [`ReplyView::parse_for`] for those).
    ///
    /// ```
    /// use lustre_dne_intent::intent::{MessageView, Operation};
    /// use lustre_dne_intent::{Endian, ErrorKind};
    ///
    /// let request = MessageView::parse(include_bytes!("../../testdata/mkdir_request_be.bin"))?;
    /// assert!(request.is_request());
    /// assert_eq!(request.order(), Endian::Big);
    /// assert_eq!(request.request().map(|r| r.operation()), Some(Operation::Create));
    ///
    /// let reply = MessageView::parse(include_bytes!("../../testdata/mkdir_reply_eexist.bin"))?;
    /// let MessageView::Reply(r) = reply else { panic!("a reply") };
    /// assert_eq!(r.body().map(|b| b.status), Some(-17)); // -EEXIST
    ///
    /// // Neither a request nor a reply: pb_type 0.
    /// let mut bytes = include_bytes!("../../testdata/unlink_request.bin").to_vec();
    /// bytes[64..68].fill(0);
    /// let e = MessageView::parse(&bytes).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "ptlrpc_body.pb_type at offset 64: pb_type 0 (unknown): expected a request or a reply [W2.3]"
    /// );
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let order = Frame::order_of(bytes)?;
        with_order!(order, |O| Self::parse_as::<O>(bytes, order))
    }

    /// [`MessageView::parse`] in byte order `O`. The message is framed once, for a reply's nine
    /// buffers (a request's six are the first of them), and the view of its kind is built from
    /// that framing and the `ptlrpc_body` head just read: nothing is framed or read twice.
    #[inline(always)]
    fn parse_as<O: ByteOrder>(bytes: &'a [u8], order: Endian) -> Result<Self, DecodeError> {
        let mut spans = [Span::default(); REPLY_BUFCOUNT];
        let f = Frame::parse_spans_as::<O, REPLY_BUFCOUNT>(bytes, order, &mut spans)?;
        let p0 = spans[0];
        // The fields a request's rules read; the same size check as either kind's decode.
        let head = PtlrpcHead::check_as::<O>(p0.in_bytes(bytes), p0.start() as usize)?;
        match head.msg_type {
            PtlrpcMsgType::REQUEST => {
                RequestView::framed_as::<O>(bytes, &f, &spans, head).map(Self::Request)
            }
            PtlrpcMsgType::REPLY | PtlrpcMsgType::ERR => {
                ReplyView::framed_as::<O>(bytes, &f, &spans, head).map(Self::Reply)
            }
            t => Err(wrong_type(t, p0.start() as usize, "a request or a reply")),
        }
    }

    /// The byte order the sender used.
    pub fn order(&self) -> Endian {
        match self {
            MessageView::Request(r) => r.order(),
            MessageView::Reply(r) => r.order(),
        }
    }

    /// How many bytes of the input the message takes (its header and padded buffers): where
    /// the next one starts when messages follow each other in one buffer.
    ///
    /// ```
    /// use lustre_dne_intent::intent::MessageView;
    ///
    /// let mut stream = include_bytes!("../../testdata/mkdir_request.bin").to_vec();
    /// stream.extend_from_slice(include_bytes!("../../testdata/mkdir_reply_complete.bin"));
    /// let mut rest = &stream[..];
    /// let mut kinds = Vec::new();
    /// while !rest.is_empty() {
    ///     let m = MessageView::parse(rest)?;
    ///     kinds.push(matches!(m, MessageView::Request(_)));
    ///     rest = &rest[m.consumed_len()..];
    /// }
    /// assert_eq!(kinds, [true, false]);
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn consumed_len(&self) -> usize {
        match self {
            MessageView::Request(r) => r.consumed_len(),
            MessageView::Reply(r) => r.consumed_len(),
        }
    }

    /// True for a request.
    pub fn is_request(&self) -> bool {
        matches!(self, MessageView::Request(_))
    }

    /// True for a reply.
    pub fn is_reply(&self) -> bool {
        matches!(self, MessageView::Reply(_))
    }

    /// Buffer 0, common to both kinds.
    pub fn ptlrpc(&self) -> PtlrpcBody {
        match self {
            MessageView::Request(r) => r.ptlrpc(),
            MessageView::Reply(r) => r.ptlrpc(),
        }
    }

    /// The request, if this is one.
    pub fn request(&self) -> Option<&RequestView<'a>> {
        match self {
            MessageView::Request(r) => Some(r),
            MessageView::Reply(_) => None,
        }
    }

    /// The reply, if this is one.
    pub fn reply(&self) -> Option<&ReplyView<'a>> {
        match self {
            MessageView::Reply(r) => Some(r),
            MessageView::Request(_) => None,
        }
    }

    /// An owned copy (a reply's results are copied).
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> Message {
        match self {
            MessageView::Request(r) => Message::Request(r.to_value()),
            MessageView::Reply(r) => Message::Reply(r.to_value()),
        }
    }
}

impl<'a> From<RequestView<'a>> for MessageView<'a> {
    fn from(r: RequestView<'a>) -> Self {
        MessageView::Request(r)
    }
}

impl<'a> From<ReplyView<'a>> for MessageView<'a> {
    fn from(r: ReplyView<'a>) -> Self {
        MessageView::Reply(r)
    }
}

/// An owned message of this protocol: build it, validate it, encode it (`alloc`: a reply holds
/// its results as `Bytes`). With `serde`, `{"request": …}` or `{"reply": …}`.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
#[allow(
    clippy::large_enum_variant,
    reason = "a request holds its name and groups inline; boxing it would only move the bytes"
)]
pub enum Message {
    /// A prepare request.
    Request(PrepareRequest),
    /// A prepare reply.
    Reply(PrepareReply),
}

#[cfg(feature = "alloc")]
impl Message {
    /// True for a request.
    pub fn is_request(&self) -> bool {
        matches!(self, Message::Request(_))
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        match self {
            Message::Request(r) => r.wire_len(),
            Message::Reply(r) => r.wire_len(),
        }
    }

    /// Checks every rule a decoder would (a reply without its request); `Ok` means the encoding
    /// decodes through [`MessageView::parse`] as the same kind.
    pub fn validate(&self) -> Result<(), DecodeError> {
        match self {
            Message::Request(r) => r.validate().map(|_| ()),
            Message::Reply(r) => r.validate(None),
        }
    }

    /// Writes the message in `order` at the start of `out` after validating it; returns its
    /// size.
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        match self {
            Message::Request(r) => r.encode_into(order, out),
            Message::Reply(r) => r.encode_into(order, out),
        }
    }

    /// Appends the message in `order` after validating it.
    pub fn put<B: bytes::BufMut + ?Sized>(
        &self,
        order: Endian,
        out: &mut B,
    ) -> Result<(), EncodeError> {
        match self {
            Message::Request(r) => r.put(order, out),
            Message::Reply(r) => r.put(order, out),
        }
    }

    /// The message as a new buffer.
    pub fn to_bytes(&self, order: Endian) -> Result<bytes::Bytes, EncodeError> {
        match self {
            Message::Request(r) => r.to_bytes(order),
            Message::Reply(r) => r.to_bytes(order),
        }
    }
}

#[cfg(feature = "alloc")]
impl From<PrepareRequest> for Message {
    fn from(r: PrepareRequest) -> Self {
        Message::Request(r)
    }
}

#[cfg(feature = "alloc")]
impl From<PrepareReply> for Message {
    fn from(r: PrepareReply) -> Self {
        Message::Reply(r)
    }
}

/// A message as it travels: its byte order, the message, and the buffers past those the
/// protocol defines (a request's 7th and later, a reply's 10th and later), which decoders
/// ignore (WIRE.md §2) but a faithful copy keeps. This is what `dne-intent decode --json`
/// prints and `encode` reads: with `serde`,
/// `{"order": "le", "request": {…}}` or `{"order": "be", "reply": {…}, "extra_buffers": ["hex"]}`
/// (`extra_buffers` only when there are any).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WireMessage {
    /// The byte order of the message.
    pub order: Endian,
    /// The message.
    pub message: Message,
    /// Buffers past those the protocol defines, in order.
    pub extra_buffers: alloc::vec::Vec<bytes::Bytes>,
}

#[cfg(feature = "alloc")]
impl WireMessage {
    /// The owned form of a decoded message, with its order and its extra buffers.
    pub fn of(view: &MessageView<'_>) -> Self {
        let (msg, defined) = match view {
            MessageView::Request(r) => (r.msg(), crate::limits::REQUEST_BUFCOUNT),
            MessageView::Reply(r) => (r.msg(), crate::limits::REPLY_BUFCOUNT),
        };
        let extra_buffers = (defined..msg.bufcount())
            .map(|i| bytes::Bytes::copy_from_slice(msg.buffer_or_empty(i)))
            .collect();
        WireMessage {
            order: view.order(),
            message: view.to_value(),
            extra_buffers,
        }
    }

    /// The message's bytes: the validating encoder's, then the extra buffers framed after the
    /// defined ones. Without extra buffers this is [`Message::to_bytes`].
    pub fn to_bytes(&self) -> Result<bytes::Bytes, EncodeError> {
        let base = self.message.to_bytes(self.order)?;
        if self.extra_buffers.is_empty() {
            return Ok(base);
        }
        let msg = crate::wire::MsgView::parse(&base)?;
        let mut b = crate::wire::MsgBuilder::new(self.order, msg.header());
        for i in 0..msg.bufcount() {
            b.push(msg.buffer_or_empty(i))?;
        }
        for extra in &self.extra_buffers {
            b.push(extra)?;
        }
        let mut out = alloc::vec![0u8; b.wire_len()];
        let n = b.encode_into(&mut out)?;
        out.truncate(n);
        Ok(bytes::Bytes::from(out))
    }
}

#[cfg(feature = "serde")]
mod wire_message_serde {
    use super::{Message, WireMessage};
    use crate::endian::Endian;
    use crate::intent::{PrepareReply, PrepareRequest};
    use alloc::vec::Vec;
    use serde::de::Error as _;
    use serde::ser::SerializeStruct;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// A buffer as lower-case hex.
    struct Hex<'a>(&'a [u8]);

    impl Serialize for Hex<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            crate::serde_helpers::bytes::hex::serialize(&self.0, s)
        }
    }

    /// A buffer read from hex, at most `MSG_MAX_BUFLEN` bytes.
    struct HexBuf(bytes::Bytes);

    impl<'de> Deserialize<'de> for HexBuf {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            crate::serde_helpers::bytes::de_hex(d, crate::limits::MSG_MAX_BUFLEN)
                .map(|v| HexBuf(bytes::Bytes::from(v)))
        }
    }

    impl Serialize for WireMessage {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let extra = !self.extra_buffers.is_empty();
            let mut st = s.serialize_struct("WireMessage", 2 + usize::from(extra))?;
            st.serialize_field("order", &self.order)?;
            match &self.message {
                Message::Request(r) => st.serialize_field("request", r)?,
                Message::Reply(r) => st.serialize_field("reply", r)?,
            }
            if extra {
                let hex: Vec<Hex<'_>> = self.extra_buffers.iter().map(|b| Hex(b)).collect();
                st.serialize_field("extra_buffers", &hex)?;
            }
            st.end()
        }
    }

    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Repr {
        order: Endian,
        #[serde(default)]
        request: Option<PrepareRequest>,
        #[serde(default)]
        reply: Option<PrepareReply>,
        #[serde(default)]
        extra_buffers: Vec<HexBuf>,
    }

    impl<'de> Deserialize<'de> for WireMessage {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            let r = Repr::deserialize(d)?;
            let message = match (r.request, r.reply) {
                (Some(q), None) => Message::Request(q),
                (None, Some(p)) => Message::Reply(p),
                _ => {
                    return Err(D::Error::custom(
                        "expected exactly one of `request` and `reply`",
                    ));
                }
            };
            if r.extra_buffers.len() > crate::limits::MSG_MAX_BUFCOUNT {
                return Err(D::Error::custom(
                    "more extra buffers than a message can hold",
                ));
            }
            Ok(WireMessage {
                order: r.order,
                message,
                extra_buffers: r.extra_buffers.into_iter().map(|h| h.0).collect(),
            })
        }
    }
}
