//! The validated, lazy view of a received prepare request ([`RequestView`]).

use super::{RequestRuleInput, check_after_type};
use crate::endian::{Endian, with_order};
use crate::error::DecodeError;
use crate::intent::enqueue::{Expect, PtlrpcHead, check_type};
use crate::intent::name::{GroupsView, name_from_buffer};
use crate::intent::reply::ReplyContext;
use crate::intent::{
    EntryName, IntentOpc, McprFlags, MdCreatePrepareReq, Operation, PrepareRequest, ResultMask,
};
use crate::limits::{REPLY_BUFCOUNT, REQUEST_BUFCOUNT, REQUEST_MIN_BUFCOUNT};
use crate::wire::layout::ldlm_request;
use crate::wire::msg::{Frame, Span};
use crate::wire::raw::MdCreatePrepareReqRaw;
use crate::wire::{
    LdlmIntent, LdlmLockDesc, LdlmRequest, LdlmRequestHead, MsgView, PtlrpcBody, WireStruct,
    decode_as,
};
use zerocopy::{ByteOrder, FromBytes};

/// A received prepare request, validated against every rule of WIRE.md §5 and §8.
///
/// The view is small and lazy: [`RequestView::parse`] checks the framing and every rule once,
/// and the view keeps the input, its byte order, where the fixed structures lie, the operation,
/// the name and the groups. The fixed structures ([`RequestView::ptlrpc`],
/// [`RequestView::ldlm`], [`RequestView::body`], [`RequestView::msg`]) are decoded again from
/// the validated bytes on each call and returned by value.
#[derive(Debug, Clone, Copy)]
pub struct RequestView<'a> {
    bytes: &'a [u8],
    order: Endian,
    /// `lm_bufcount`, 4..=32.
    count: u8,
    op: Operation,
    ptlrpc: Span,
    ldlm: Span,
    /// Start of buffer 3; the body is at least `md_create_prepare_req`'s size.
    body: u32,
    name: Option<&'a [u8]>,
    groups: GroupsView<'a>,
}

impl<'a> RequestView<'a> {
    /// Decodes and validates a request message in either byte order.
    ///
    /// `pb_type` is read first: a reply (or anything else) fails with
    /// [`ErrorKind::WrongMessageType`](crate::ErrorKind::WrongMessageType) before any other rule is looked at. To take either kind
    /// of message, use [`MessageView::parse`](crate::intent::MessageView::parse).
    ///
    /// ```
    /// use lustre_dne_intent::intent::{Operation, RequestView};
    /// use lustre_dne_intent::wire::LuFid;
    /// use lustre_dne_intent::{Endian, ErrorKind};
    ///
    /// let bytes = include_bytes!("../../../testdata/mkdir_request.bin");
    /// let req = RequestView::parse(bytes)?;
    /// assert_eq!(req.order(), Endian::Little);
    /// assert_eq!(req.operation(), Operation::Create);
    /// assert_eq!(req.name(), Some(&b"newdir"[..]));
    /// assert_eq!(req.body().fid, LuFid::new(0x200000401, 0x1, 0x0));
    /// assert_eq!(req.groups().len(), 3);
    /// assert!(req.groups().contains(600));
    /// // The fixed structures are values, decoded from the validated bytes.
    /// let lock = req.ldlm();
    /// assert_eq!(lock.lock_desc.resource.fid(), req.body().fid);
    /// assert_eq!(req.msg().buflens().collect::<Vec<_>>(), [184, 104, 8, 80, 7, 12]);
    ///
    /// // A reply is refused on its pb_type, with where and what.
    /// let reply = include_bytes!("../../../testdata/mkdir_reply_complete.bin");
    /// let e = RequestView::parse(reply).unwrap_err();
    /// assert_eq!(e.kind, ErrorKind::WrongMessageType { got: 4713, expected: "a request" });
    /// assert_eq!(
    ///     e.to_string(),
    ///     "ptlrpc_body.pb_type at offset 80: pb_type 4713 (reply): expected a request [W2.3]"
    /// );
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    #[inline]
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        // The frame is built here, in the chosen order, rather than returned and copied; the
        // spans stay where the framing wrote them.
        let mut spans = [Span::default(); REQUEST_BUFCOUNT];
        let order = Frame::order_of(bytes)?;
        with_order!(order, |O| {
            let f = Frame::parse_spans_as::<O, _>(bytes, order, &mut spans)?;
            let p0 = spans[0];
            let head = PtlrpcHead::check_as::<O>(p0.in_bytes(bytes), p0.start() as usize)?;
            Self::rest_as::<O>(bytes, &f, &spans, head)
        })
    }

    /// The rest of a decode whose framing (for a reply's nine buffers: `spans` and `f`) and
    /// buffer 0's head are checked already:
    /// [`MessageView::parse`](crate::intent::MessageView::parse), which frames once for either
    /// kind.
    pub(crate) fn framed_as<O: ByteOrder>(
        bytes: &'a [u8],
        f: &Frame,
        spans: &[Span; REPLY_BUFCOUNT],
        head: PtlrpcHead,
    ) -> Result<Self, DecodeError> {
        const _: () = assert!(REQUEST_BUFCOUNT <= REPLY_BUFCOUNT);
        let own: [Span; REQUEST_BUFCOUNT] = core::array::from_fn(|i| spans[i]);
        // A request's buffers end at its 6th: the first non-empty one after it, which the
        // framing for nine did not look for, may be among the 7th to 9th.
        let past_last = spans[REQUEST_BUFCOUNT..]
            .iter()
            .zip(REQUEST_BUFCOUNT..)
            .find(|(s, _)| s.len() != 0)
            .map(|(s, i)| (i, s.len() as usize))
            .or(f.past_last);
        Self::rest_as::<O>(bytes, &Frame { past_last, ..*f }, &own, head)
    }

    /// Every check after buffer 0, in byte order `O`, in the order the errors are reported.
    #[inline(always)]
    fn rest_as<O: ByteOrder>(
        bytes: &'a [u8],
        f: &Frame,
        spans: &[Span; REQUEST_BUFCOUNT],
        ptlrpc: PtlrpcHead,
    ) -> Result<Self, DecodeError> {
        check_type(ptlrpc.msg_type, spans[0].start() as usize, Expect::Request)?;
        f.require_count(REQUEST_MIN_BUFCOUNT)?;
        let off: [usize; REQUEST_BUFCOUNT] = spans.map(|s| s.start() as usize);
        let buf = |i: usize| spans[i].in_bytes(bytes);
        let lock = LdlmRequestHead::<O>::check_as(buf(1), off[1])?;
        let it_buf = buf(2);
        let Some(intent) = decode_as::<LdlmIntent, O>(it_buf) else {
            return Err(DecodeError::too_short(
                LdlmIntent::NAME,
                off[2],
                it_buf.len(),
                LdlmIntent::SIZE,
            ));
        };
        let body_buf = buf(3);
        let Ok((body, _)) = MdCreatePrepareReqRaw::<O>::ref_from_prefix(body_buf) else {
            return Err(DecodeError::too_short(
                MdCreatePrepareReq::NAME,
                off[3],
                body_buf.len(),
                MdCreatePrepareReq::SIZE,
            ));
        };
        let name_buf = buf(4);
        let op = check_after_type(&RequestRuleInput {
            header: &f.header,
            ptlrpc,
            lock_flags: lock.lock_flags,
            lock_desc: lock.lock_desc,
            opc: intent.opc,
            body,
            name_len: name_buf.len(),
            spans,
            past_last: f.past_last,
        })?;
        let name = if name_buf.is_empty() {
            None
        } else {
            Some(name_from_buffer(name_buf, off[4])?)
        };
        let groups = GroupsView::parse(buf(5), f.order, off[5])?;
        Ok(RequestView {
            bytes,
            order: f.order,
            count: f.count as u8,
            op,
            ptlrpc: spans[0],
            ldlm: spans[1],
            body: spans[3].start(),
            name,
            groups,
        })
    }

    /// How many bytes of the input the message takes: its header and its padded buffers.
    /// Bytes after them are not part of it (WIRE.md §2). See
    /// [`MessageView::consumed_len`](crate::intent::MessageView::consumed_len).
    pub fn consumed_len(&self) -> usize {
        self.msg().wire_len()
    }
    /// The framing (header, buffers, byte order).
    pub fn msg(&self) -> MsgView<'a> {
        MsgView::framed(self.bytes, self.order, self.count as usize)
    }
    /// The byte order the sender used.
    pub fn order(&self) -> Endian {
        self.order
    }
    /// Buffer 0, decoded from the validated bytes.
    pub fn ptlrpc(&self) -> PtlrpcBody {
        let b = self.ptlrpc;
        // parse() checked the buffer: decoding it again cannot fail.
        PtlrpcBody::decode_buffer(b.in_bytes(self.bytes), self.order, b.start() as usize)
            .unwrap_or_default()
    }
    /// Buffer 1, its handles included, decoded from the validated bytes.
    pub fn ldlm(&self) -> LdlmRequest {
        let b = self.ldlm;
        // parse() checked the buffer: decoding it again cannot fail.
        LdlmRequest::decode_buffer(b.in_bytes(self.bytes), self.order, b.start() as usize)
            .unwrap_or_default()
    }
    /// The lock asked for (`ldlm_request.lock_desc`), without the handles.
    fn lock_desc(&self) -> LdlmLockDesc {
        let at = self.ldlm.start() as usize + ldlm_request::lock_desc.offset;
        self.bytes
            .get(at..)
            .and_then(|b| LdlmLockDesc::decode(b, self.order).ok())
            .unwrap_or_default()
    }
    /// The operation (from buffer 2's opcode).
    pub fn operation(&self) -> Operation {
        self.op
    }
    /// Buffer 2's opcode.
    pub fn opc(&self) -> IntentOpc {
        self.op.opc()
    }
    /// Buffer 3, decoded from the validated bytes.
    pub fn body(&self) -> MdCreatePrepareReq {
        self.bytes
            .get(self.body as usize..)
            .and_then(|b| MdCreatePrepareReq::decode(b, self.order).ok())
            .unwrap_or_default()
    }
    /// `mcpr_flags` bits this crate does not know: kept; a handler answers them with the empty
    /// result.
    pub fn unknown_flags(&self) -> McprFlags {
        self.body().flags.unknown()
    }
    /// The entry name without its NUL; `None` in object mode.
    pub fn name(&self) -> Option<&'a [u8]> {
        self.name
    }
    /// The caller's supplementary groups (buffer 5).
    pub fn groups(&self) -> GroupsView<'a> {
        self.groups
    }
    /// The results the request asks for.
    pub fn requested(&self) -> ResultMask {
        self.body().requested()
    }
    /// What a reply to this request must agree with.
    pub fn reply_context(&self) -> ReplyContext {
        ReplyContext::new(
            self.op,
            &self.body(),
            &self.lock_desc(),
            self.msg().header().repsize,
        )
    }

    /// True when the input is this message's canonical form (WIRE.md §11): little-endian, six
    /// buffers, a v3 `ptlrpc_body`, each structure at its own size, zero padding, the name
    /// buffer exactly the name and its NUL. A non-canonical request that obeys every rule is
    /// valid; its canonical bytes are `to_value().to_bytes(Endian::Little)`.
    pub fn is_canonical(&self) -> bool {
        let value = self.to_value();
        let bytes = self.bytes;
        if value.wire_len() != bytes.len() || self.order() != Endian::Little {
            return false;
        }
        // No request is larger than REQUEST_MAX_LEN: the check needs no allocation.
        let mut out = [0u8; crate::limits::REQUEST_MAX_LEN];
        value
            .encode_into(Endian::Little, &mut out)
            .is_ok_and(|n| out[..n] == *bytes)
    }

    /// An owned copy. Its encoding is the canonical form of this message (WIRE.md §11): the
    /// same bytes exactly when the input was canonical ([`RequestView::is_canonical`]).
    pub fn to_value(&self) -> PrepareRequest {
        PrepareRequest {
            header: self.msg().header(),
            ptlrpc: self.ptlrpc(),
            ldlm: self.ldlm(),
            opc: self.op.opc(),
            body: self.body(),
            // Validated by parse().
            name: self.name.and_then(|n| EntryName::new(n).ok()),
            groups: self.groups.to_list(),
        }
    }
}
