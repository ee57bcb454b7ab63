//! The one writer of a reply's wire form (WIRE.md §7, canonical per §11), shared by the owned
//! value (after `validate`) and by a validated view (no second validation).

#[cfg(feature = "alloc")]
use super::ReplyContext;
#[cfg(feature = "alloc")]
use super::rules::{ReplyRuleInput, ValueBuffers, check};
use crate::endian::{Endian, with_order};
#[cfg(feature = "alloc")]
use crate::error::{DecodeError, EncodeError};
#[cfg(feature = "alloc")]
use crate::intent::enqueue::PtlrpcHead;
use crate::intent::{MdCreatePrepareRep, MliBuf};
use crate::limits::round8;
use crate::limits::{
    LDLM_REPLY_SIZE, MLI_BUF_MAX, PREPARE_REP_SIZE, PTLRPC_BODY_V2_SIZE, PTLRPC_BODY_V3_SIZE,
    REPLY_BUFCOUNT,
};
use crate::limits::{MDT_BODY_SIZE, MSG_ALIGN};
#[cfg(feature = "alloc")]
use crate::wire::WireStruct;
use crate::wire::layout::Layout;
use crate::wire::msg::msg_size_u32;
use crate::wire::msg::write_header;
#[cfg(feature = "alloc")]
use crate::wire::msg::{put_header, put_padding};
#[cfg(feature = "alloc")]
use crate::wire::out::Out;
#[cfg(feature = "alloc")]
use crate::wire::put_struct;
#[cfg(feature = "alloc")]
use crate::wire::raw::LdlmReplyRaw;
#[cfg(feature = "alloc")]
use crate::wire::raw::MdCreatePrepareRepRaw;
use crate::wire::{LdlmReply, MdtBody, MsgHeader, PtlrpcBody, copy_at, write_at};
use zerocopy::ByteOrder;
#[cfg(feature = "alloc")]
use zerocopy::IntoBytes;
#[cfg(feature = "alloc")]
use zerocopy::LittleEndian;

/// What an encoder writes, borrowed from wherever it lives.
#[derive(Clone, Copy)]
pub(super) struct Wire<'x> {
    pub(super) header: &'x MsgHeader,
    pub(super) ptlrpc: &'x PtlrpcBody,
    pub(super) ldlm: &'x LdlmReply,
    /// `None`: the empty result (buffers 2..=8 empty).
    pub(super) body: Option<&'x MdCreatePrepareRep>,
    /// Buffers 3..=8 (all empty for the empty result).
    pub(super) results: [&'x [u8]; MLI_BUF_MAX],
    /// The byte order PATTR's `mdt_body` is in: little-endian in a value, the sender's in a
    /// view. It is converted to the order written; the xattr results are always little-endian.
    pub(super) pattr_order: Endian,
}

impl Wire<'_> {
    /// `lm_buflens` of the canonical form: always nine buffers, the body's own size.
    pub(super) fn lens(&self) -> [u32; REPLY_BUFCOUNT] {
        canonical_lens(self.ptlrpc.wire_len(), self.body.is_some(), &self.results)
    }

    /// Every rule a decoder checks, at the offsets of the canonical layout. The rules read raw
    /// layouts, as a decoder does: the values are converted first.
    #[cfg(feature = "alloc")]
    pub(super) fn validate(&self, ctx: Option<&ReplyContext>) -> Result<(), DecodeError> {
        let lens = self.lens();
        let body = self.body.map(|b| b.to_raw::<LittleEndian>());
        let ldlm = self.ldlm.to_raw::<LittleEndian>();
        self.check_raw(ctx, &lens, msg_size_u32(&lens), &ldlm, body.as_ref())
    }

    /// The rules on `ldlm_reply` and the body converted to byte order `O` already, with the
    /// lengths [`Wire::lens`] and the size they make.
    ///
    /// Always inlined, with the rules: the encoder's parts then stay where its caller has them,
    /// instead of being stored for a call (callgrind, the complete mkdir reply's validating
    /// encode: 1,223 → 1,159 instructions). The price is code: one copy of the rules in
    /// [`Wire::validate`] and one per byte order in [`Wire::encode_checked`]'s caller.
    #[cfg(feature = "alloc")]
    #[inline(always)]
    fn check_raw<O: ByteOrder>(
        &self,
        ctx: Option<&ReplyContext>,
        lens: &[u32; REPLY_BUFCOUNT],
        wire_len: usize,
        ldlm: &LdlmReplyRaw<O>,
        body: Option<&MdCreatePrepareRepRaw<O>>,
    ) -> Result<(), DecodeError> {
        check(
            &ReplyRuleInput {
                ptlrpc: &PtlrpcHead::of(self.ptlrpc),
                ldlm,
                body,
                bufs: ValueBuffers {
                    results: &self.results,
                    lens,
                },
                wire_len,
                past_last: None,
                secflvr: self.header.secflvr,
            },
            ctx,
        )
    }

    /// Validates, then writes the message in `order` at the start of `out`; returns its size.
    /// `ldlm_reply` and the body are converted to `order` once: the rules read those raw
    /// layouts, as a decoder reads the received ones, and the same bytes are copied out.
    /// Inlined into its caller with all it calls but the result loop: the complete mkdir reply
    /// 1,260 → 1,223 instructions (out of line, writing through a closure: 1,299).
    #[cfg(feature = "alloc")]
    #[inline(always)]
    pub(super) fn encode_checked(
        &self,
        order: Endian,
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        with_order!(order, |O| self.encode_checked_as::<O>(order, out))
    }

    /// [`Wire::encode_checked`] in byte order `O`, which is `order`.
    #[cfg(feature = "alloc")]
    #[inline(always)]
    fn encode_checked_as<O: ByteOrder>(
        &self,
        order: Endian,
        out: &mut [u8],
    ) -> Result<usize, EncodeError> {
        let lens = self.lens();
        let size = msg_size_u32(&lens);
        let ldlm = self.ldlm.to_raw::<O>();
        let body = self.body.map(|b| b.to_raw::<O>());
        self.check_raw(None, &lens, size, &ldlm, body.as_ref())?;
        let have = out.len();
        let Some(o) = out.get_mut(..size) else {
            return Err(EncodeError::BufferTooSmall { need: size, have });
        };
        let mut at = self.write_head::<O>(&lens, o);
        copy_at(o, at, ldlm.as_bytes());
        at += LDLM_REPLY_SIZE;
        if let Some(b) = &body {
            copy_at(o, at, b.as_bytes());
            self.write_results_at(order, o, at + PREPARE_REP_SIZE);
        }
        Ok(size)
    }

    /// Size of the encoded message.
    pub(super) fn wire_len(&self) -> usize {
        msg_size_u32(&self.lens())
    }

    /// Appends the message to any sink; the caller has checked that `out` holds [`Wire::wire_len`] bytes.
    #[cfg(feature = "alloc")]
    pub(super) fn put<W: Out + ?Sized>(&self, order: Endian, out: &mut W) {
        put_header(order, self.header, &self.lens(), out);
        // The canonical form, WIRE.md §11: a v3 body (v2 without a job id).
        self.ptlrpc.put_buffer_to(order, out);
        put_struct(self.ldlm, order, out);
        if let Some(b) = self.body {
            put_struct(b, order, out);
            for (i, r) in self.results.iter().enumerate() {
                match self.pattr_as(i, order) {
                    Some(body) => out.put_slice(&body),
                    None => out.put_slice(r),
                }
                put_padding(r.len(), out);
            }
        }
    }

    /// Result `i` rewritten in `order` when it is a PATTR in the other order.
    #[inline]
    fn pattr_as(&self, i: usize, order: Endian) -> Option<[u8; MDT_BODY_SIZE]> {
        if i != MliBuf::Pattr.index() || order == self.pattr_order || self.results[i].is_empty() {
            return None;
        }
        MdtBody::reorder(self.results[i], self.pattr_order, order)
    }
}

impl Wire<'_> {
    /// Writes the message at the start of `out`, which holds at least [`Wire::wire_len`] bytes
    /// (the caller checked): each fixed structure converted in place, the byte order chosen
    /// once.
    pub(super) fn write(&self, order: Endian, out: &mut [u8]) {
        let lens = self.lens();
        with_order!(order, |O| self.write_with::<O>(order, &lens, out))
    }

    /// [`Wire::write`] with the lengths [`Wire::lens`] computed already.
    #[cfg(feature = "alloc")]
    pub(super) fn write_lens(&self, order: Endian, lens: &[u32; REPLY_BUFCOUNT], out: &mut [u8]) {
        with_order!(order, |O| self.write_with::<O>(order, lens, out))
    }

    /// Writes in byte order `O`, which is `order`.
    fn write_with<O: ByteOrder>(
        &self,
        order: Endian,
        lens: &[u32; REPLY_BUFCOUNT],
        out: &mut [u8],
    ) {
        let mut at = self.write_head::<O>(lens, out);
        write_at::<_, O>(self.ldlm, out, at);
        at += LDLM_REPLY_SIZE;
        let Some(b) = self.body else { return };
        write_at::<_, O>(b, out, at);
        self.write_results_at(order, out, at + PREPARE_REP_SIZE);
    }

    /// Writes the header and `ptlrpc_body` in byte order `O`; returns where buffer 1 starts.
    #[inline(always)]
    fn write_head<O: ByteOrder>(&self, lens: &[u32; REPLY_BUFCOUNT], out: &mut [u8]) -> usize {
        let at = write_header::<O, REPLY_BUFCOUNT>(self.header, lens, out);
        // 184 bytes; a v2 body's tail is then written over by buffer 1.
        write_at::<_, O>(self.ptlrpc, out, at);
        at + lens[0] as usize
    }

    /// Writes the results from `at`, where buffer 3 starts, PATTR in `order`.
    #[inline(always)]
    fn write_results_at(&self, order: Endian, out: &mut [u8], at: usize) {
        write_results_apart(&self.results, out, at);
        // PATTR is the first result: its buffer starts right here.
        if let Some(body) = self.pattr_as(MliBuf::Pattr.index(), order) {
            copy_at(out, at, &body);
        }
    }
}

/// The raw buffers of a validated view, written in the order they were received: each fixed
/// structure is copied as it is (at its own size, a v2 body as v2), with the bytes a native
/// round trip would not keep (padding) zeroed over the copy. A test compares it with
/// [`Wire::write`] of the decoded structures on every vector and every one-byte change of them.
pub(super) struct Copied<'x> {
    pub(super) header: &'x MsgHeader,
    /// Buffer 0: 152 bytes at least (validated).
    pub(super) ptlrpc: &'x [u8],
    /// Buffer 1: 112 bytes at least (validated).
    pub(super) ldlm: &'x [u8],
    /// Buffer 2, 80 bytes at least; `None` for the empty result.
    pub(super) body: Option<&'x [u8]>,
    pub(super) results: [&'x [u8]; MLI_BUF_MAX],
}

/// Byte ranges of the fixed structures that the canonical form writes as zeros.
const PTLRPC_ZEROS: [(usize, usize); PTLRPC.padding_count()] = PTLRPC.padding();
const PTLRPC: &Layout = PtlrpcBody::LAYOUT;
const LDLM_ZEROS: [(usize, usize); LDLM.padding_count()] = LDLM.padding();
const LDLM: &Layout = LdlmReply::LAYOUT;
const REP_ZEROS: [(usize, usize); REP_LAYOUT.padding_count()] = REP_LAYOUT.padding();
const REP_LAYOUT: &Layout = MdCreatePrepareRep::LAYOUT;

impl Copied<'_> {
    /// Size of the encoded message.
    pub(super) fn wire_len(&self) -> usize {
        msg_size_u32(&self.lens())
    }

    /// `lm_buflens`: buffer 0 at its version's size (v2 when shorter than v3).
    fn lens(&self) -> [u32; REPLY_BUFCOUNT] {
        canonical_lens(self.ptlrpc_len(), self.body.is_some(), &self.results)
    }

    fn ptlrpc_len(&self) -> usize {
        if self.ptlrpc.len() >= PTLRPC_BODY_V3_SIZE {
            PTLRPC_BODY_V3_SIZE
        } else {
            PTLRPC_BODY_V2_SIZE
        }
    }

    /// Writes the message in byte order `O`, the order the buffers are in, at the start of
    /// `out`, which holds at least [`Copied::wire_len`] bytes (the caller checked).
    pub(super) fn write_as<O: ByteOrder>(&self, out: &mut [u8]) {
        let lens = self.lens();
        let mut at = write_header::<O, REPLY_BUFCOUNT>(self.header, &lens, out);
        let n = self.ptlrpc_len();
        copy_at(out, at, self.ptlrpc.get(..n).unwrap_or(&[]));
        zero_ranges(out, at, &PTLRPC_ZEROS);
        at += n;
        copy_at(out, at, self.ldlm.get(..LDLM_REPLY_SIZE).unwrap_or(&[]));
        zero_ranges(out, at, &LDLM_ZEROS);
        at += LDLM_REPLY_SIZE;
        let Some(b) = self.body else { return };
        // mcpp_fid as it came, f_ver included, also in a FID that counts as zero (W11.10).
        copy_at(out, at, b.get(..PREPARE_REP_SIZE).unwrap_or(&[]));
        zero_ranges(out, at, &REP_ZEROS);
        at += PREPARE_REP_SIZE;
        write_results(&self.results, out, at);
    }
}

fn zero_ranges(out: &mut [u8], base: usize, ranges: &[(usize, usize)]) {
    for &(rel, len) in ranges {
        if let Some(dst) = out.get_mut(base + rel..base + rel + len) {
            dst.fill(0);
        }
    }
}

/// [`write_results`] in a call of its own, for [`Wire::write`]: inlined there, its loop saved
/// and restored three registers around each memcpy (callgrind: 25 instructions more for the
/// complete mkdir reply), where inlined in [`Copied::write_as`] it saves 28.
#[inline(never)]
fn write_results_apart(results: &[&[u8]; MLI_BUF_MAX], out: &mut [u8], at: usize) {
    write_results(results, out, at);
}

/// Writes the result buffers from `at`, each padded to 8 bytes.
#[inline(always)]
fn write_results(results: &[&[u8]; MLI_BUF_MAX], out: &mut [u8], mut at: usize) {
    for r in results {
        if r.is_empty() {
            continue;
        }
        let end = at + round8(r.len());
        // The padding as one 8-byte store of zeros, then the result over its start.
        copy_at(out, end - MSG_ALIGN, &[0; MSG_ALIGN]);
        copy_at(out, at, r);
        at = end;
    }
}

/// `lm_buflens` of the canonical form: always nine buffers, `ptlrpc_body` at `ptlrpc_len`
/// (184 for v3, 152 for v2).
fn canonical_lens(
    ptlrpc_len: usize,
    has_body: bool,
    results: &[&[u8]; MLI_BUF_MAX],
) -> [u32; REPLY_BUFCOUNT] {
    let mut lens = [0u32; REPLY_BUFCOUNT];
    lens[0] = ptlrpc_len as u32;
    lens[1] = LDLM_REPLY_SIZE as u32;
    if has_body {
        lens[2] = PREPARE_REP_SIZE as u32;
        for (l, r) in lens[3..].iter_mut().zip(results) {
            *l = r.len() as u32;
        }
    }
    lens
}

#[cfg(all(test, feature = "std"))]
mod tests {
    use crate::endian::Endian;
    use crate::error::EncodeError;
    use crate::intent::{MdCreatePrepareRep, PrepareReply, ReplyView};
    use crate::wire::{LdlmReply, WireStruct};
    use zerocopy::{IntoBytes, LittleEndian};

    const VECTORS: [&[u8]; 4] = [
        include_bytes!("../../../testdata/mkdir_reply_complete.bin"),
        include_bytes!("../../../testdata/mkdir_reply_be.bin"),
        include_bytes!("../../../testdata/rename_object_reply.bin"),
        include_bytes!("../../../testdata/mkdir_reply_eexist.bin"),
    ];

    /// The validating encoder, whose rules read the structures converted to the order it
    /// writes, in both orders: the error `validate` gives (the rules on the value in
    /// little-endian), or the bytes of the proof's writer. Returns whether `value` is valid.
    fn agrees(value: &PrepareReply) -> bool {
        let checked = value.validate(None);
        for order in [Endian::Little, Endian::Big] {
            let mut out = [0xa5u8; 2048];
            let got = value.encode_into(order, &mut out);
            let Ok(()) = checked else {
                assert_eq!(got, checked.map(|()| 0).map_err(EncodeError::Invalid));
                continue;
            };
            let n = got.expect("fits");
            let mut want = [0x5au8; 2048];
            let proof = value.validated(None).expect("valid");
            let m = proof.encode_into(order, &mut want).expect("fits");
            assert_eq!(out[..n], want[..m], "{order:?}");
            assert!(
                out[n..].iter().all(|&b| b == 0xa5),
                "{order:?}: past the end"
            );
            let short = value.encode_into(order, &mut out[..n - 1]);
            let need = (n, n - 1);
            assert_eq!(
                short,
                Err(EncodeError::BufferTooSmall {
                    need: need.0,
                    have: need.1
                })
            );
        }
        checked.is_ok()
    }

    /// `ldlm_reply` and the body with one byte of their little-endian form changed: most
    /// changes break a rule (lock modes, dispositions, flags, masks), the rest do not.
    #[test]
    fn validating_encode_is_validate_then_write() {
        let (mut valid, mut invalid) = (0, 0);
        for v in VECTORS {
            let value = ReplyView::parse(v).expect("vector").to_value();
            assert!(agrees(&value));
            let ldlm = value.ldlm.to_raw::<LittleEndian>().as_bytes().to_vec();
            let body = value
                .outcome
                .as_ref()
                .map(|o| o.body.to_raw::<LittleEndian>());
            let body = body.map(|b| b.as_bytes().to_vec()).unwrap_or_default();
            for (i, x) in (0..ldlm.len() + body.len()).flat_map(|i| [(i, 0x01), (i, 0x80)]) {
                let mut m = value.clone();
                if let Some(j) = i.checked_sub(ldlm.len()) {
                    let mut b = body.clone();
                    b[j] ^= x;
                    let o = m.outcome.as_mut().expect("a body");
                    o.body = MdCreatePrepareRep::decode(&b, Endian::Little).expect("80 bytes");
                } else {
                    let mut b = ldlm.clone();
                    b[i] ^= x;
                    m.ldlm = LdlmReply::decode(&b, Endian::Little).expect("112 bytes");
                }
                if agrees(&m) {
                    valid += 1;
                } else {
                    invalid += 1;
                }
            }
        }
        assert!(
            valid > 500 && invalid > 300,
            "{valid} valid, {invalid} invalid"
        );
    }
}
