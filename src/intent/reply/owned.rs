//! The owned reply values: [`PrepareOutcome`] and [`PrepareReply`], which validate and encode.

use super::ReplyContext;
use super::encode::Wire;
use crate::endian::Endian;
use crate::error::{DecodeError, EncodeError};
use crate::intent::{McppFlags, MdCreatePrepareRep, MliBuf, PrepResult, ResultMask, UnknownReason};
use crate::limits::MLI_BUF_MAX;
use crate::wire::{DispFlags, LdlmReply, MsgHeader, PtlrpcBody, PtlrpcMsgType};
use bytes::Bytes;

/// The prepare outcome of a reply: the body and the six result buffers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct PrepareOutcome {
    /// `md_create_prepare_rep`.
    #[cfg_attr(feature = "serde", serde(rename = "md_create_prepare_rep"))]
    pub body: MdCreatePrepareRep,
    /// Buffers 3..=8: a result's bytes when present; empty when absent or unknown. PATTR's
    /// `mdt_body` is little-endian here, whatever order the reply is written in (the encoders
    /// convert it; [`ReplyView::to_value`](super::ReplyView::to_value) converts a big-endian
    /// one); the xattr results are little-endian on the wire too (WIRE.md §1).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "results", with = "crate::intent::serde_fields::results")
    )]
    pub results: [Bytes; MLI_BUF_MAX],
}

impl PrepareOutcome {
    /// An outcome with this body and every result unknown.
    pub fn new(body: MdCreatePrepareRep) -> Self {
        let mut o = PrepareOutcome {
            body,
            results: Default::default(),
        };
        o.body.valid = ResultMask::EMPTY;
        o.body.truncated = ResultMask::EMPTY;
        o.body.buf_size = [0; MLI_BUF_MAX];
        o
    }

    /// Sets result `buf`, keeping `mcpp_valid`, `mcpp_truncated` and `mcpp_buf_size` coherent.
    pub fn set_result(&mut self, buf: MliBuf, state: PrepResult<Bytes>) {
        let i = buf.index();
        let bit = buf.bit();
        self.body.valid = self.body.valid.difference(bit);
        self.body.truncated = self.body.truncated.difference(bit);
        self.body.buf_size[i] = 0;
        self.results[i] = Bytes::new();
        match state {
            PrepResult::Present(v) => {
                self.body.valid |= bit;
                self.body.buf_size[i] = v.len() as u32;
                self.results[i] = v;
            }
            PrepResult::Absent => self.body.valid |= bit,
            PrepResult::Unknown(UnknownReason::Truncated { size }) => {
                self.body.truncated |= bit;
                self.body.buf_size[i] = size;
            }
            PrepResult::Unknown(_) => {}
        }
    }

    /// The state of result `buf`.
    pub fn result(&self, buf: MliBuf) -> PrepResult<&[u8]> {
        let i = buf.index();
        if self.body.valid.has(buf) {
            if self.results[i].is_empty() {
                PrepResult::Absent
            } else {
                PrepResult::Present(&self.results[i])
            }
        } else if self.body.truncated.has(buf) {
            PrepResult::Unknown(UnknownReason::Truncated {
                size: self.body.buf_size[i],
            })
        } else {
            PrepResult::Unknown(UnknownReason::NotProvided)
        }
    }
}

/// An owned prepare reply: build it, validate it, encode it. Always encodes 9 buffers.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct PrepareReply {
    /// Header fields.
    #[cfg_attr(feature = "serde", serde(rename = "lustre_msg_v2"))]
    pub header: MsgHeader,
    /// Buffer 0.
    #[cfg_attr(feature = "serde", serde(rename = "ptlrpc_body"))]
    pub ptlrpc: PtlrpcBody,
    /// Buffer 1.
    #[cfg_attr(feature = "serde", serde(rename = "ldlm_reply"))]
    pub ldlm: LdlmReply,
    /// Buffers 2..=8; `None` is the empty result.
    #[cfg_attr(feature = "serde", serde(rename = "outcome"))]
    pub outcome: Option<PrepareOutcome>,
}

impl PrepareReply {
    /// A reply granting the lock of `ctx` (resource and mode as requested) with the
    /// dispositions of the outcome's lookup, or the empty result when `outcome` is `None`.
    pub fn granting(
        ctx: &ReplyContext,
        handle: crate::wire::LustreHandle,
        outcome: Option<PrepareOutcome>,
    ) -> Self {
        let mut disp = DispFlags::IT_EXECD;
        if let Some(o) = &outcome
            && o.body.flags.contains(McppFlags::LOOKUP_DONE)
        {
            disp |= DispFlags::LOOKUP_EXECD;
            disp |= if o.body.flags.contains(McppFlags::LOOKUP_POS) {
                DispFlags::LOOKUP_POS
            } else {
                DispFlags::LOOKUP_NEG
            };
        }
        let mut lock_desc = ctx.lock;
        lock_desc.granted_mode = ctx.lock.req_mode;
        PrepareReply {
            header: MsgHeader::default(),
            ptlrpc: PtlrpcBody::enqueue(PtlrpcMsgType::REPLY),
            ldlm: LdlmReply {
                lock_desc,
                lock_handle: handle,
                policy_res1: disp,
                ..Default::default()
            },
            outcome,
        }
    }

    /// The wire form's parts, borrowed.
    pub(super) fn wire(&self) -> Wire<'_> {
        Wire {
            header: &self.header,
            ptlrpc: &self.ptlrpc,
            ldlm: &self.ldlm,
            body: self.outcome.as_ref().map(|o| &o.body),
            results: match &self.outcome {
                Some(o) => core::array::from_fn(|i| &o.results[i][..]),
                None => [&[]; MLI_BUF_MAX],
            },
            pattr_order: Endian::Little,
        }
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        self.wire().wire_len()
    }

    /// Checks every rule a decoder would (with `ctx`, also those that need the request).
    pub fn validate(&self, ctx: Option<&ReplyContext>) -> Result<(), DecodeError> {
        self.wire().validate(ctx)
    }

    /// Appends the message in `order` after validating it.
    pub fn put<B: bytes::BufMut + ?Sized>(
        &self,
        order: Endian,
        out: &mut B,
    ) -> Result<(), EncodeError> {
        self.validated(None)?.put(order, out);
        Ok(())
    }

    /// Writes the message at the start of `out` after validating it; returns its size. To
    /// encode one reply more than once, validate it once with [`PrepareReply::validated`].
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        // Not through `validated`: building the proof costs this path about 90 instructions.
        self.wire().encode_checked(order, out)
    }

    /// The message as a new buffer, after validating it.
    pub fn to_bytes(&self, order: Endian) -> Result<Bytes, EncodeError> {
        Ok(self.validated(None)?.to_bytes(order))
    }
}
