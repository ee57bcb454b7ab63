//! The validated, borrowing view of a reply ([`ReplyView`]) and the layout it shares with the
//! `Bytes`-backed [`ReplyMessage`](super::ReplyMessage).

use super::ReplyContext;
use super::encode::{Copied, Wire};
use super::rules::{ReceivedBuffers, ReplyRuleInput, check_after_status, check_type_and_status};
#[cfg(feature = "alloc")]
use super::{PrepareOutcome, PrepareReply};
use crate::endian::{Endian, with_order};
use crate::error::{DecodeError, EncodeError};
use crate::intent::enqueue::PtlrpcHead;
use crate::intent::{MdCreatePrepareRep, MliBuf, PrepResult, ResultMask, UnknownReason};
use crate::limits::{MLI_BUF_MAX, REPLY_BUFCOUNT, REPLY_EMPTY_BUFCOUNT};
use crate::wire::msg::{Frame, Span, encode_into_slice};
use crate::wire::raw::LdlmReplyRaw;
use crate::wire::raw::MdCreatePrepareRepRaw;
use crate::wire::{LdlmReply, MsgHeader, MsgView, PtlrpcBody, WireStruct, decode_as};
#[cfg(feature = "alloc")]
use bytes::Bytes;
use zerocopy::{ByteOrder, FromBytes};

/// Everything a reply view knows besides the bytes and the xattr views (all `Copy`, about 100
/// bytes): shared by the borrowing view and the `Bytes`-backed message. The fixed structures are
/// not kept: the accessors decode them again from the validated bytes, which is cheaper than
/// carrying them (smoltcp's `Packet` style).
#[derive(Debug, Clone, Copy)]
pub(super) struct ReplyLayout {
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
pub(super) fn decode(bytes: &[u8], ctx: Option<&ReplyContext>) -> Result<ReplyLayout, DecodeError> {
    // The spans are framed straight into the layout, where the view keeps them.
    let mut layout = ReplyLayout::unfilled();
    let order = Frame::order_of(bytes)?;
    with_order!(order, |O| {
        let f = Frame::parse_spans_as::<O, _>(bytes, order, &mut layout.spans)?;
        let p0 = layout.spans[0];
        let head = PtlrpcHead::check_as::<O>(p0.in_bytes(bytes), p0.start() as usize)?;
        fill_as::<O>(bytes, &f, &mut layout, head, ctx)?;
    });
    Ok(layout)
}

/// Checks every rule after buffer 0's head, on the framing `f` whose spans are in `layout`
/// already, and fills in the rest of `layout`.
#[inline(always)]
fn fill_as<O: ByteOrder>(
    bytes: &[u8],
    f: &Frame,
    layout: &mut ReplyLayout,
    ptlrpc: PtlrpcHead,
    ctx: Option<&ReplyContext>,
) -> Result<(), DecodeError> {
    let masks = rest_as::<O>(bytes, f, &layout.spans, ptlrpc, ctx)?;
    layout.order = f.order;
    // Frame::parse bounds it by MSG_MAX_BUFCOUNT.
    layout.bufcount = f.count as u8;
    layout.header = f.header;
    layout.masks = masks;
    Ok(())
}

/// The rules after `ptlrpc_body`'s head; the result masks of the body (`None`: the empty
/// result).
#[inline(always)]
fn rest_as<O: ByteOrder>(
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
        &ReplyRuleInput {
            ptlrpc: &ptlrpc,
            ldlm,
            body,
            bufs: ReceivedBuffers { bytes, spans },
            wire_len: f.wire_len,
            past_last: f.past_last,
            secflvr: f.header.secflvr,
        },
        ctx,
    )?;
    Ok(body.map(|b| (b.valid(), b.truncated())))
}

/// A validated reply's fixed structures: `ptlrpc_body`, `ldlm_reply` and the body (`None` for
/// the empty result).
type FixedStructs = (PtlrpcBody, LdlmReply, Option<MdCreatePrepareRep>);

impl ReplyLayout {
    /// A layout for a decoder to frame into and fill in ([`fill_as`] sets every field).
    #[inline(always)]
    fn unfilled() -> Self {
        ReplyLayout {
            order: Endian::Little,
            bufcount: 0,
            header: MsgHeader::default(),
            spans: [Span::default(); REPLY_BUFCOUNT],
            masks: None,
        }
    }

    /// Buffer `i` (0..=8) of `bytes`, which this layout was validated from.
    #[inline]
    fn buffer<'b>(&self, bytes: &'b [u8], i: usize) -> &'b [u8] {
        self.spans[i].in_bytes(bytes)
    }

    /// A fixed structure of buffer `i`, in the sender's order; validation proved it is there.
    #[inline]
    fn fixed<T: WireStruct + Default>(&self, bytes: &[u8], i: usize) -> T {
        let b = self.buffer(bytes, i);
        with_order!(self.order, |O| decode_as::<T, O>(b)).unwrap_or_default()
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
    fn fixed_structs(&self, bytes: &[u8]) -> FixedStructs {
        with_order!(self.order, |O| self.fixed_structs_as::<O>(bytes))
    }

    #[inline(always)]
    fn fixed_structs_as<O: ByteOrder>(&self, bytes: &[u8]) -> FixedStructs {
        let ptlrpc = PtlrpcBody::decode_buffer_as::<O>(self.buffer(bytes, 0), 0);
        (
            ptlrpc.unwrap_or_default(),
            decode_as::<LdlmReply, O>(self.buffer(bytes, 1)).unwrap_or_default(),
            self.masks
                .and_then(|_| decode_as::<MdCreatePrepareRep, O>(self.buffer(bytes, 2))),
        )
    }

    pub(super) fn result_state(&self, bytes: &[u8], buf: MliBuf) -> PrepResult<Span> {
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
    pub(super) bytes: &'a [u8],
    pub(super) layout: ReplyLayout,
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
            layout: decode(bytes, None)?,
        })
    }

    /// The rest of a decode whose framing (the nine spans of `f`) and buffer 0's head are checked
    /// already: [`MessageView::parse`](crate::intent::MessageView::parse), which frames once for
    /// either kind.
    #[inline(always)]
    pub(crate) fn framed_as<O: ByteOrder>(
        bytes: &'a [u8],
        f: &Frame,
        spans: &[Span; REPLY_BUFCOUNT],
        head: PtlrpcHead,
    ) -> Result<Self, DecodeError> {
        let mut layout = ReplyLayout::unfilled();
        layout.spans = *spans;
        fill_as::<O>(bytes, f, &mut layout, head, None)?;
        Ok(ReplyView { bytes, layout })
    }

    /// Decodes and validates a reply against its request's limits, lock and reply space.
    pub fn parse_for(bytes: &'a [u8], ctx: &ReplyContext) -> Result<Self, DecodeError> {
        Ok(ReplyView {
            bytes,
            layout: decode(bytes, Some(ctx))?,
        })
    }

    /// The byte order the sender used.
    pub fn order(&self) -> Endian {
        self.layout.order
    }
    /// Header fields.
    pub fn header(&self) -> MsgHeader {
        self.layout.header
    }
    /// The whole message as received.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// `lm_bufcount` as received.
    pub fn bufcount(&self) -> usize {
        self.layout.bufcount.into()
    }
    /// How many bytes of the input the message takes: its header and its padded buffers.
    /// Bytes after them are not part of it (WIRE.md §2); the next message, in a stream of them,
    /// starts there. See [`MessageView::consumed_len`](crate::intent::MessageView::consumed_len).
    pub fn consumed_len(&self) -> usize {
        self.msg().wire_len()
    }
    /// The framing (header, buffers, byte order), from what the decode found: no framing again.
    pub fn msg(&self) -> MsgView<'a> {
        MsgView::framed(self.bytes, self.layout.order, self.bufcount())
    }
    /// Buffer 0, decoded from the bytes on each call (a v2 body reads as v3 with zero
    /// `pb_padding` and `pb_jobid`).
    pub fn ptlrpc(&self) -> PtlrpcBody {
        self.layout.ptlrpc(self.bytes)
    }
    /// Buffer 1: the granted lock, decoded from the bytes on each call.
    pub fn ldlm(&self) -> LdlmReply {
        self.layout.fixed(self.bytes, 1)
    }
    /// Buffer 2, decoded from the bytes on each call; `None` for the empty result.
    pub fn body(&self) -> Option<MdCreatePrepareRep> {
        self.layout.body(self.bytes)
    }
    /// True for the empty result: the lock is granted, every result is unknown.
    pub fn is_empty_result(&self) -> bool {
        self.layout.masks.is_none()
    }
    /// Result `buf`: present (a slice of the input), absent, or unknown.
    pub fn result(&self, buf: MliBuf) -> PrepResult<&'a [u8]> {
        let bytes = self.bytes;
        self.layout
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
            .map(|s| crate::wire::MdtBody::decode(s, self.layout.order).unwrap_or_default())
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
        self.layout.spans[3 + buf.index()].start() as usize
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
        if order == self.layout.order {
            // The same order: the fixed structures are copied, not converted twice.
            let c = self.copied();
            return encode_into_slice(c.wire_len(), out, |o| {
                with_order!(order, |O| c.write_as::<O>(o))
            });
        }
        self.encode_converted(order, out)
    }

    /// The raw buffers, for [`ReplyView::encode_into`] in the received order.
    fn copied(&self) -> Copied<'_> {
        let bytes = self.bytes;
        Copied {
            header: &self.layout.header,
            ptlrpc: self.layout.buffer(bytes, 0),
            ldlm: self.layout.buffer(bytes, 1),
            body: self.layout.masks.map(|_| self.layout.buffer(bytes, 2)),
            results: self.layout.results(bytes),
        }
    }

    /// [`ReplyView::encode_into`] through the decoded structures: any order (the reference the
    /// copying path is tested against).
    fn encode_converted(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        let (ptlrpc, ldlm, body) = self.layout.fixed_structs(self.bytes);
        let w = Wire {
            header: &self.layout.header,
            ptlrpc: &ptlrpc,
            ldlm: &ldlm,
            body: body.as_ref(),
            results: self.layout.results(self.bytes),
            pattr_order: self.layout.order,
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
        let (ptlrpc, ldlm, body) = self.layout.fixed_structs(self.bytes);
        PrepareReply {
            header: self.layout.header,
            ptlrpc,
            ldlm,
            outcome: body.map(|body| PrepareOutcome {
                body,
                results: MliBuf::ALL.map(|b| match self.result(b) {
                    // A value holds PATTR little-endian (PrepareOutcome::results).
                    PrepResult::Present(s) if b == MliBuf::Pattr => {
                        match crate::wire::MdtBody::reorder(s, self.layout.order, Endian::Little) {
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
