//! The validated views of a reply: borrowing ([`ReplyView`]) and `Bytes`-backed
//! ([`ReplyMessage`]).

use super::ReplyContext;
use super::encode::{Copied, Wire};
use super::rules::{Facts, Framed, check_after_status, check_type_and_status};
#[cfg(feature = "alloc")]
use super::{PrepareOutcome, PrepareReply};
use crate::endian::Endian;
use crate::error::{DecodeError, EncodeError};
use crate::intent::body::MdCreatePrepareRepRaw;
use crate::intent::enqueue::PtlrpcHead;
use crate::intent::{MdCreatePrepareRep, MliBuf, PrepResult, ResultMask, UnknownReason};
use crate::limits::{MLI_BUF_MAX, REPLY_BUFCOUNT, REPLY_EMPTY_BUFCOUNT};
use crate::wire::msg::{Frame, Span, encode_into_slice};
use crate::wire::raw::LdlmReplyRaw;
use crate::wire::{LdlmReply, MsgHeader, MsgView, PtlrpcBody, WireStruct, decode_in};
#[cfg(feature = "alloc")]
use bytes::Bytes;
use zerocopy::{BigEndian, ByteOrder, FromBytes, LittleEndian};

/// Everything a reply view knows besides the bytes (all `Copy`, about 100 bytes): shared by the
/// borrowing view and the `Bytes`-backed message. The fixed structures are not kept: the
/// accessors decode them again from the validated bytes, which is cheaper than carrying them
/// (smoltcp's `Packet` style).
#[derive(Debug, Clone, Copy)]
pub(super) struct Parts {
    order: Endian,
    bufcount: u8,
    header: MsgHeader,
    /// Buffers 0..=8 (empty, at the end, past `lm_bufcount`).
    spans: [Span; REPLY_BUFCOUNT],
    /// `mcpp_valid` and `mcpp_truncated`; `None` for the empty result.
    masks: Option<(ResultMask, ResultMask)>,
}

/// Frames and decodes a reply, then checks every rule: the byte order is chosen once, and each
/// fixed structure is converted once, straight from its bytes.
#[inline(always)]
fn parse_parts(bytes: &[u8], ctx: Option<&ReplyContext>) -> Result<Parts, DecodeError> {
    // The frame is built here, in the chosen order, rather than returned and copied
    // (callgrind: 47 instructions a reply); its spans go straight into the parts.
    let mut parts = Parts::unfilled();
    match Frame::order_of(bytes)? {
        Endian::Little => {
            let f =
                Frame::parse_spans_in::<LittleEndian, _>(bytes, Endian::Little, &mut parts.spans)?;
            parts_in::<LittleEndian>(bytes, &f, &mut parts, ctx)?;
        }
        Endian::Big => {
            let f = Frame::parse_spans_in::<BigEndian, _>(bytes, Endian::Big, &mut parts.spans)?;
            parts_in::<BigEndian>(bytes, &f, &mut parts, ctx)?;
        }
    }
    Ok(parts)
}

/// The rest of a reply decode, once the framing is checked (the path of
/// [`MessageView::parse`](crate::intent::MessageView::parse)).
fn parts_of(msg: &MsgView<'_>, ctx: Option<&ReplyContext>) -> Result<Parts, DecodeError> {
    let mut parts = Parts::unfilled();
    let f = Frame::of_view(msg, &mut parts.spans);
    match f.order {
        Endian::Little => parts_in::<LittleEndian>(msg.as_bytes(), &f, &mut parts, ctx)?,
        Endian::Big => parts_in::<BigEndian>(msg.as_bytes(), &f, &mut parts, ctx)?,
    }
    Ok(parts)
}

/// Checks every rule after the framing `f`, whose spans are in `parts` already, and fills in
/// the rest of `parts`.
#[inline(always)]
fn parts_in<O: ByteOrder>(
    bytes: &[u8],
    f: &Frame,
    parts: &mut Parts,
    ctx: Option<&ReplyContext>,
) -> Result<(), DecodeError> {
    let spans = &parts.spans;
    let p0 = spans[0];
    let ptlrpc = PtlrpcHead::check_in::<O>(p0.in_bytes(bytes), p0.start() as usize)?;
    let masks = rest_in::<O>(bytes, f, spans, ptlrpc, ctx)?;
    parts.order = f.order;
    // Frame::parse bounds it by MSG_MAX_BUFCOUNT.
    parts.bufcount = f.count as u8;
    parts.header = f.header;
    parts.masks = masks;
    Ok(())
}

/// The rules after `ptlrpc_body`'s head; the result masks of the body (`None`: the empty
/// result).
#[inline(always)]
fn rest_in<O: ByteOrder>(
    bytes: &[u8],
    f: &Frame,
    spans: &[Span; REPLY_BUFCOUNT],
    ptlrpc: PtlrpcHead,
    ctx: Option<&ReplyContext>,
) -> Result<Option<(ResultMask, ResultMask)>, DecodeError> {
    let off = |i: usize| spans[i].start() as usize;
    check_type_and_status(&ptlrpc, off(0))?;
    f.require_count(REPLY_EMPTY_BUFCOUNT)?;
    // The fixed structures are checked where they lie, not converted into values first.
    let lbuf = spans[1].in_bytes(bytes);
    let Ok((ldlm, _)) = LdlmReplyRaw::<O>::ref_from_prefix(lbuf) else {
        let (name, size) = (LdlmReply::NAME, LdlmReply::SIZE);
        return Err(DecodeError::too_short(name, off(1), lbuf.len(), size));
    };
    let bbuf = spans[2].in_bytes(bytes);
    let body = match bbuf.len() {
        0 => None,
        n => match MdCreatePrepareRepRaw::<O>::ref_from_prefix(bbuf) {
            Ok((b, _)) => Some(b),
            Err(_) => {
                let (name, size) = (MdCreatePrepareRep::NAME, MdCreatePrepareRep::SIZE);
                return Err(DecodeError::too_short(name, off(2), n, size));
            }
        },
    };
    check_after_status(
        &Facts {
            ptlrpc: &ptlrpc,
            ldlm,
            body,
            bufs: Framed { bytes, spans },
            wire_len: f.wire_len,
            past_last: f.past_last,
            secflvr: f.header.secflvr,
        },
        ctx,
    )?;
    Ok(body.map(|b| (b.valid(), b.truncated())))
}

/// A validated reply's `ptlrpc_body`, `ldlm_reply` and body (`None` for the empty result).
type FixedParts = (PtlrpcBody, LdlmReply, Option<MdCreatePrepareRep>);

impl Parts {
    /// Parts for a decoder to frame into and fill in ([`parts_in`] sets every field).
    #[inline(always)]
    fn unfilled() -> Self {
        Parts {
            order: Endian::Little,
            bufcount: 0,
            header: MsgHeader::default(),
            spans: [Span::default(); REPLY_BUFCOUNT],
            masks: None,
        }
    }

    /// Buffer `i` (0..=8) of `bytes`, which these parts were validated from.
    #[inline]
    fn buffer<'b>(&self, bytes: &'b [u8], i: usize) -> &'b [u8] {
        self.spans[i].in_bytes(bytes)
    }

    /// A fixed structure of buffer `i`, in the sender's order; validation proved it is there.
    #[inline]
    fn fixed<T: WireStruct + Default>(&self, bytes: &[u8], i: usize) -> T {
        let b = self.buffer(bytes, i);
        match self.order {
            Endian::Little => decode_in::<T, LittleEndian>(b),
            Endian::Big => decode_in::<T, BigEndian>(b),
        }
        .unwrap_or_default()
    }

    fn ptlrpc(&self, bytes: &[u8]) -> PtlrpcBody {
        let s = self.spans[0];
        PtlrpcBody::decode_buffer(self.buffer(bytes, 0), self.order, s.start() as usize)
            .unwrap_or_default()
    }

    fn body(&self, bytes: &[u8]) -> Option<MdCreatePrepareRep> {
        self.masks.map(|_| self.fixed(bytes, 2))
    }

    /// Buffers 0, 1 and 2 at once, for the encoders: the byte order is chosen once.
    fn fixed_parts(&self, bytes: &[u8]) -> FixedParts {
        match self.order {
            Endian::Little => self.fixed_parts_in::<LittleEndian>(bytes),
            Endian::Big => self.fixed_parts_in::<BigEndian>(bytes),
        }
    }

    #[inline(always)]
    fn fixed_parts_in<O: ByteOrder>(&self, bytes: &[u8]) -> FixedParts {
        let ptlrpc = PtlrpcBody::decode_buffer_in::<O>(self.buffer(bytes, 0), 0);
        (
            ptlrpc.unwrap_or_default(),
            decode_in::<LdlmReply, O>(self.buffer(bytes, 1)).unwrap_or_default(),
            self.masks
                .and_then(|_| decode_in::<MdCreatePrepareRep, O>(self.buffer(bytes, 2))),
        )
    }

    fn result_state(&self, bytes: &[u8], buf: MliBuf) -> PrepResult<Span> {
        let Some((valid, truncated)) = self.masks else {
            return PrepResult::Unknown(UnknownReason::EmptyResult);
        };
        let i = buf.index();
        if valid.has(buf) {
            let span = self.spans[3 + i];
            if span.len() == 0 {
                PrepResult::Absent
            } else {
                PrepResult::Present(span)
            }
        } else if truncated.has(buf) {
            let size = self.body(bytes).map_or(0, |b| b.buf_size[i]);
            PrepResult::Unknown(UnknownReason::Truncated { size })
        } else {
            PrepResult::Unknown(UnknownReason::NotProvided)
        }
    }

    fn results<'b>(&self, bytes: &'b [u8]) -> [&'b [u8]; MLI_BUF_MAX] {
        core::array::from_fn(|i| self.buffer(bytes, 3 + i))
    }
}

/// A received prepare reply, validated against WIRE.md §7 (and, with [`ReplyView::parse_for`],
/// against its request). Results are borrowed slices of the input.
#[derive(Debug, Clone, Copy)]
pub struct ReplyView<'a> {
    bytes: &'a [u8],
    parts: Parts,
}

impl<'a> ReplyView<'a> {
    /// Decodes and validates a reply without knowing its request, every present result's payload
    /// included (WIRE.md §7, §9).
    ///
    /// `pb_type` is read first: a request (or anything but a reply or `PTL_RPC_MSG_ERR`) fails
    /// with [`ErrorKind::WrongMessageType`](crate::ErrorKind::WrongMessageType); an error message fails with
    /// [`ErrorKind::EnqueueFailed`](crate::ErrorKind::EnqueueFailed). To take either kind of message, use
    /// [`MessageView::parse`](crate::intent::MessageView::parse).
    ///
    /// ```
    /// use lustre_dne_intent::intent::{MliBuf, PrepResult, ReplyView};
    /// use lustre_dne_intent::ErrorKind;
    ///
    /// let bytes = include_bytes!("../../../testdata/mkdir_reply_complete.bin");
    /// let reply = ReplyView::parse(bytes)?;
    /// let body = reply.body().expect("not the empty result");
    /// assert_eq!(body.status, 0);
    /// assert_eq!(body.valid.0, 0x3f);
    /// assert_eq!(body.child_mode, 0o042755);
    /// // The pin result, borrowed from the input.
    /// assert_eq!(reply.result(MliBuf::Pin), PrepResult::Present(&b"[hsm: 3,pool: fast]"[..]));
    /// match reply.result(MliBuf::Pattr) {
    ///     PrepResult::Present(attrs) => assert_eq!(attrs.len(), 216),
    ///     other => panic!("PATTR is {other:?}"),
    /// }
    ///
    /// // A request is refused on its pb_type.
    /// let request = include_bytes!("../../../testdata/mkdir_request.bin");
    /// let e = ReplyView::parse(request).unwrap_err();
    /// assert_eq!(e.kind, ErrorKind::WrongMessageType { got: 4711, expected: "a reply" });
    /// assert_eq!(e.at.offset, 64);
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        Ok(ReplyView {
            bytes,
            parts: parse_parts(bytes, None)?,
        })
    }

    /// The rest of [`ReplyView::parse`], once the framing is checked.
    pub(crate) fn from_msg(msg: MsgView<'a>) -> Result<Self, DecodeError> {
        Ok(ReplyView {
            bytes: msg.as_bytes(),
            parts: parts_of(&msg, None)?,
        })
    }

    /// Decodes and validates a reply against its request's limits, lock and reply space.
    pub fn parse_for(bytes: &'a [u8], ctx: &ReplyContext) -> Result<Self, DecodeError> {
        Ok(ReplyView {
            bytes,
            parts: parse_parts(bytes, Some(ctx))?,
        })
    }

    /// The byte order the sender used.
    pub fn order(&self) -> Endian {
        self.parts.order
    }
    /// Header fields.
    pub fn header(&self) -> MsgHeader {
        self.parts.header
    }
    /// The whole message as received.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// `lm_bufcount` as received.
    pub fn bufcount(&self) -> usize {
        self.parts.bufcount.into()
    }
    /// How many bytes of the input the message takes: its header and its padded buffers.
    /// Bytes after them are not part of it (WIRE.md §2); the next message, in a stream of them,
    /// starts there. See [`MessageView::consumed_len`](crate::intent::MessageView::consumed_len).
    pub fn consumed_len(&self) -> usize {
        crate::wire::MsgView::framed(self.bytes, self.parts.order, self.bufcount()).wire_len()
    }
    /// Buffer 0, decoded from the bytes on each call (a v2 body reads as v3 with zero
    /// `pb_padding` and `pb_jobid`).
    pub fn ptlrpc(&self) -> PtlrpcBody {
        self.parts.ptlrpc(self.bytes)
    }
    /// Buffer 1: the granted lock, decoded from the bytes on each call.
    pub fn ldlm(&self) -> LdlmReply {
        self.parts.fixed(self.bytes, 1)
    }
    /// Buffer 2, decoded from the bytes on each call; `None` for the empty result.
    pub fn body(&self) -> Option<MdCreatePrepareRep> {
        self.parts.body(self.bytes)
    }
    /// True for the empty result: the lock is granted, every result is unknown.
    pub fn is_empty_result(&self) -> bool {
        self.parts.masks.is_none()
    }
    /// Result `buf`: present (a slice of the input), absent, or unknown.
    pub fn result(&self, buf: MliBuf) -> PrepResult<&'a [u8]> {
        let bytes = self.bytes;
        self.parts
            .result_state(bytes, buf)
            .map(|s| bytes.get(s.range()).unwrap_or(&[]))
    }
    /// The PATTR result as attributes, decoded in the message's byte order (its bytes, from
    /// [`ReplyView::result`], are in the sender's order, unlike the xattr results).
    ///
    /// ```
    /// use lustre_dne_intent::intent::{PrepResult, ReplyView};
    ///
    /// let bytes = include_bytes!("../../../testdata/mkdir_reply_be.bin");
    /// let reply = ReplyView::parse(bytes)?;
    /// let PrepResult::Present(attrs) = reply.pattr() else { panic!("PATTR is present") };
    /// assert_eq!(attrs.mode, 0o42775);
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn pattr(&self) -> PrepResult<crate::wire::MdtBody> {
        use crate::wire::WireStruct;
        // W6.2 proved a present PATTR is one mdt_body: decoding it cannot fail.
        self.result(MliBuf::Pattr)
            .map(|s| crate::wire::MdtBody::decode(s, self.parts.order).unwrap_or_default())
    }
    /// What the reply answers: [`ReplyKind`](super::ReplyKind).
    ///
    /// ```
    /// use lustre_dne_intent::intent::{ReplyKind, ReplyView};
    ///
    /// let complete = include_bytes!("../../../testdata/mkdir_reply_complete.bin");
    /// assert_eq!(ReplyView::parse(complete)?.kind(), ReplyKind::Complete);
    /// let empty = include_bytes!("../../../testdata/mkdir_reply_empty.bin");
    /// assert_eq!(ReplyView::parse(empty)?.kind(), ReplyKind::Empty);
    /// let advisory = include_bytes!("../../../testdata/mkdir_reply_advisory.bin");
    /// assert_eq!(ReplyView::parse(advisory)?.kind(), ReplyKind::Advisory);
    /// let truncated = include_bytes!("../../../testdata/mkdir_reply_lov_truncated.bin");
    /// assert_eq!(ReplyView::parse(truncated)?.kind(), ReplyKind::Partial);
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn kind(&self) -> super::ReplyKind {
        use super::ReplyKind;
        let Some(body) = self.body() else {
            return ReplyKind::Empty;
        };
        if body.flags.contains(crate::intent::McppFlags::ADVISORY) {
            ReplyKind::Advisory
        } else if body.status != 0 {
            ReplyKind::Status
        } else if self.results().iter().any(|r| !r.is_known()) {
            ReplyKind::Partial
        } else {
            ReplyKind::Complete
        }
    }
    /// All six results, in index order.
    pub fn results(&self) -> [PrepResult<&'a [u8]>; MLI_BUF_MAX] {
        MliBuf::ALL.map(|b| self.result(b))
    }
    /// Offset of result `buf`'s buffer in the message, for tools that point at bytes.
    pub fn result_offset(&self, buf: MliBuf) -> usize {
        self.parts.spans[3 + buf.index()].start() as usize
    }
    /// Writes this message's canonical form (WIRE.md §11) in `order` at the start of `out`;
    /// returns its size. The view is validated already, so nothing is checked again: this is
    /// `PrepareReply::encode_into` of `ReplyView::to_value` (both with the `alloc` feature)
    /// without the copies and the second validation, and it needs no allocator.
    ///
    /// ```
    /// use lustre_dne_intent::intent::ReplyView;
    /// use lustre_dne_intent::Endian;
    ///
    /// let bytes = include_bytes!("../../../testdata/mkdir_reply_complete.bin");
    /// let reply = ReplyView::parse(bytes)?;
    /// let mut out = [0u8; 1024];
    /// let n = reply.encode_into(Endian::Little, &mut out).expect("fits");
    /// assert_eq!(&out[..n], &bytes[..]); // the golden vector is canonical
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        if order == self.parts.order {
            // The same order: the fixed structures are copied, not converted twice.
            let c = self.copied();
            return encode_into_slice(c.wire_len(), out, |o| match order {
                Endian::Little => c.write_in::<LittleEndian>(o),
                Endian::Big => c.write_in::<BigEndian>(o),
            });
        }
        self.encode_converted(order, out)
    }

    /// The raw buffers, for [`ReplyView::encode_into`] in the received order.
    fn copied(&self) -> Copied<'_> {
        let bytes = self.bytes;
        Copied {
            header: &self.parts.header,
            ptlrpc: self.parts.buffer(bytes, 0),
            ldlm: self.parts.buffer(bytes, 1),
            body: self.parts.masks.map(|_| self.parts.buffer(bytes, 2)),
            results: self.parts.results(bytes),
        }
    }

    /// [`ReplyView::encode_into`] through the decoded structures: any order (the reference the
    /// copying path is tested against).
    fn encode_converted(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        let (ptlrpc, ldlm, body) = self.parts.fixed_parts(self.bytes);
        let w = Wire {
            header: &self.parts.header,
            ptlrpc: &ptlrpc,
            ldlm: &ldlm,
            body: body.as_ref(),
            results: self.parts.results(self.bytes),
            pattr_order: self.parts.order,
        };
        encode_into_slice(w.wire_len(), out, |o| w.write(order, o))
    }

    /// True when the input is this message's canonical form (WIRE.md §11): little-endian, nine
    /// buffers, a v3 `ptlrpc_body`, each structure at its own size, zero padding. A
    /// non-canonical reply that obeys every rule is valid; its canonical bytes are
    /// `to_value().to_bytes(Endian::Little)`.
    #[cfg(feature = "alloc")]
    pub fn is_canonical(&self) -> bool {
        self.to_value()
            .to_bytes(Endian::Little)
            .is_ok_and(|b| b[..] == *self.bytes)
    }

    /// An owned copy (the results are copied). Its encoding is the canonical form of this
    /// message (WIRE.md §11): the same bytes exactly when the input was canonical.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> PrepareReply {
        let (ptlrpc, ldlm, body) = self.parts.fixed_parts(self.bytes);
        PrepareReply {
            header: self.parts.header,
            ptlrpc,
            ldlm,
            outcome: body.map(|body| PrepareOutcome {
                body,
                results: MliBuf::ALL.map(|b| match self.result(b) {
                    // A value holds PATTR little-endian (PrepareOutcome::results).
                    PrepResult::Present(s) if b == MliBuf::Pattr => {
                        match crate::wire::MdtBody::reorder(s, self.parts.order, Endian::Little) {
                            Some(le) => Bytes::copy_from_slice(&le),
                            None => Bytes::copy_from_slice(s),
                        }
                    }
                    PrepResult::Present(s) => Bytes::copy_from_slice(s),
                    _ => Bytes::new(),
                }),
            }),
        }
    }
}

/// A validated reply that owns its bytes and hands out results as zero-copy `Bytes` slices.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone)]
pub struct ReplyMessage {
    bytes: Bytes,
    parts: Parts,
}

#[cfg(feature = "alloc")]
impl ReplyMessage {
    /// Validates `bytes` as a reply (see [`ReplyView::parse`]).
    pub fn parse(bytes: Bytes) -> Result<Self, DecodeError> {
        let parts = parse_parts(&bytes, None)?;
        Ok(ReplyMessage { bytes, parts })
    }
    /// Validates `bytes` as the reply to a known request.
    pub fn parse_for(bytes: Bytes, ctx: &ReplyContext) -> Result<Self, DecodeError> {
        let parts = parse_parts(&bytes, Some(ctx))?;
        Ok(ReplyMessage { bytes, parts })
    }
    /// A borrowing view (no re-validation).
    pub fn view(&self) -> ReplyView<'_> {
        ReplyView {
            bytes: &self.bytes,
            parts: self.parts,
        }
    }
    /// Result `buf` as a slice sharing this message's allocation.
    pub fn result(&self, buf: MliBuf) -> PrepResult<Bytes> {
        self.parts
            .result_state(&self.bytes, buf)
            .map(|s| self.bytes.slice(s.range()))
    }
    /// The whole message.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use super::ReplyView;
    use crate::endian::Endian;

    const VECTORS: [&[u8]; 9] = [
        include_bytes!("../../../testdata/mkdir_reply_absent.bin"),
        include_bytes!("../../../testdata/mkdir_reply_advisory.bin"),
        include_bytes!("../../../testdata/mkdir_reply_be.bin"),
        include_bytes!("../../../testdata/mkdir_reply_complete.bin"),
        include_bytes!("../../../testdata/mkdir_reply_eexist.bin"),
        include_bytes!("../../../testdata/mkdir_reply_empty.bin"),
        include_bytes!("../../../testdata/mkdir_reply_lov_truncated.bin"),
        include_bytes!("../../../testdata/rename_object_reply.bin"),
        include_bytes!("../../../testdata/unlink_reply.bin"),
    ];

    /// The same-order copy writes what the conversion through the decoded structures writes, in
    /// both orders, for `bytes` if it is a valid reply; returns whether it was.
    fn same_as_converted(bytes: &[u8]) -> bool {
        let Ok(v) = ReplyView::parse(bytes) else {
            return false;
        };
        for order in [Endian::Little, Endian::Big] {
            let (mut fast, mut slow) = ([0xa5u8; 2048], [0x5au8; 2048]);
            let n = v.encode_into(order, &mut fast).expect("fits");
            let m = v.encode_converted(order, &mut slow).expect("fits");
            assert_eq!(fast[..n], slow[..m], "{order:?} of {bytes:02x?}");
            assert!(v.encode_into(order, &mut fast[..n - 1]).is_err());
        }
        true
    }

    /// Every vector, and every one-byte change of one that still decodes: padding, reserved
    /// fields, a v2 or big-endian body, a zero FID with any `f_ver` all take this path.
    #[test]
    fn copied_encode_is_the_converted_encode() {
        let mut valid_mutants = 0;
        for v in VECTORS {
            assert!(same_as_converted(v));
            let mut m = v.to_vec();
            for i in 0..m.len() {
                for x in [0x01u8, 0x10, 0x80, 0xff] {
                    m[i] ^= x;
                    valid_mutants += usize::from(same_as_converted(&m));
                    m[i] ^= x;
                }
            }
        }
        // Many changes hit bytes no rule reads (padding, handles, job ids, result payloads).
        assert!(valid_mutants > 5000, "{valid_mutants}");
    }

    /// A v2 `ptlrpc_body` (152 bytes, no job id) in either order is written as v2 again, by the
    /// copying path as by the converting one (WIRE.md W11.4).
    #[test]
    fn copied_encode_of_a_v2_body() {
        for v in [VECTORS[2], VECTORS[3]] {
            let r = ReplyView::parse(v).expect("vector");
            let msg = crate::wire::MsgView::parse(v).expect("framed");
            let mut b = crate::wire::MsgBuilder::new(r.order(), r.header());
            for i in 0..msg.bufcount() {
                let buf = msg.buffer_or_empty(i);
                b.push(if i == 0 { &buf[..152] } else { buf })
                    .expect("fits");
            }
            let mut v2 = [0u8; 2048];
            let n = b.encode_into(&mut v2).expect("fits");
            assert!(same_as_converted(&v2[..n]));
            let mut out = [0u8; 2048];
            let m = ReplyView::parse(&v2[..n])
                .expect("a v2 body is valid")
                .encode_into(r.order(), &mut out)
                .expect("fits");
            assert_eq!(out[..m], v2[..n]);
        }
    }
}
