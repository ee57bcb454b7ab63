//! `lustre_msg_v2` framing: a header, `lm_buflens[]`, then buffers padded to 8 bytes.

mod frame;

pub(crate) use frame::{Frame, Span};

use super::out::Out;
pub(crate) use super::out::encode_into_slice;
use super::table::{WireStruct, c_struct, element_names};
use crate::endian::Endian;
use crate::error::{At, DecodeError, EncodeError, ErrorKind};
use crate::limits::round8;
use crate::limits::{
    MSG_ALIGN, MSG_HEADER_FIXED, MSG_MAX_BUFCOUNT, MSG_MAX_BUFLEN, MSG_MAX_LEN, msg_header_len,
};
use zerocopy::byteorder::U32;
use zerocopy::{ByteOrder, FromBytes, IntoBytes};

/// Where `lm_buflens[i]` lies in a message.
pub(crate) const fn buflen_offset(i: usize) -> usize {
    lustre_msg_v2::lm_buflens.offset + 4 * i
}

/// `LUSTRE_MSG_MAGIC_V2`.
pub const LUSTRE_MSG_MAGIC_V2: u32 = 0x0BD0_0BD3;
/// `LUSTRE_MSG_MAGIC_V2` as a little-endian reader sees a big-endian message.
pub const LUSTRE_MSG_MAGIC_V2_SWABBED: u32 = 0xD30B_D00B;

const S: &str = MsgHeader::NAME;
/// `lm_buflens[i]`: how errors name the length of buffer `i` (C declares the member
/// `lm_buflens[0]`, a flexible array).
pub(crate) const BUFLEN_FIELDS: &[&str; MSG_MAX_BUFCOUNT] =
    element_names!(lustre_msg_v2::lm_buflens.name, MSG_MAX_BUFCOUNT);
/// `buffer[i]`: how errors name buffer `i` itself.
pub(crate) const BUFFER_FIELDS: &[&str; MSG_MAX_BUFCOUNT] =
    element_names!("buffer", MSG_MAX_BUFCOUNT);

/// The header fields of a message that are not derived from its buffers. As a
/// [`WireStruct`], its framing members (`lm_bufcount`, `lm_magic`) are ignored on input and
/// written as zero; the message encoders set them.
#[c_struct(lustre_msg_v2, size = MSG_HEADER_FIXED,
    doc = "The framing of every RPC message (lustre_idl.h): lm_bufcount lengths follow.",
    raw_doc = "The fixed 32 bytes of `struct lustre_msg_v2`; `lm_buflens[lm_bufcount]` follows.")]
#[c_member(0, __u32 lm_bufcount, decimal, shown, "how many buffers (the framing's)")]
#[c_member(8, __u32 lm_magic, shown, "LUSTRE_MSG_MAGIC_V2, in the sender's byte order (the framing's)")]
#[c_member(28, __u32 lm_padding_3, "padding")]
#[c_member(32, __u32 lm_buflens[0], decimal, shown, "each buffer's length, lm_bufcount of them")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct MsgHeader {
    /// the security flavour: 0 for the null flavour
    #[c(4, __u32 lm_secflvr, hex)]
    pub secflvr: u32,
    /// reply space the sender preallocated
    #[c(12, __u32 lm_repsize)]
    pub repsize: u32,
    /// checksum
    #[c(16, __u32 lm_cksum, hex)]
    pub cksum: u32,
    /// MSGHDR_*
    #[c(20, __u32 lm_flags, hex)]
    pub flags: u32,
    /// the operation
    #[c(24, __u32 lm_opc)]
    pub opc: u32,
}

/// `MSGHDR_AT_SUPPORT` in `lm_flags`: the sender uses adaptive timeouts, so `pb_timeout` is the
/// time it gives the service (`lustre_idl.h`).
pub const MSGHDR_AT_SUPPORT: u32 = 0x1;
/// The part of `lm_secflvr` that names a request's flavour (`WIRE_FLVR`, `lustre_sec.h`); the
/// bits above it carry the sender's part (`null_encode_sec_part`), which the flavour ignores.
pub const WIRE_FLVR_MASK: u32 = 0x000f_ffff;
/// The policy of a flavour (`SPTLRPC_FLVR_POLICY`), the only part of a reply's `lm_secflvr` a
/// client checks (`do_cli_unwrap_reply`).
pub const FLVR_POLICY_MASK: u32 = 0xf;

/// Size of a message whose buffers have these lengths: round_up(32 + 4n, 8) + Σ round_up(len, 8).
pub fn msg_size(lens: &[usize]) -> usize {
    msg_len(lens.len(), lens.iter().copied())
}

/// [`msg_size`] of the lengths of an `lm_buflens` array.
pub(crate) fn msg_size_u32(lens: &[u32]) -> usize {
    msg_len(lens.len(), lens.iter().map(|&l| l as usize))
}

/// The size of a message of `count` buffers of these lengths, the last one padded too (WIRE.md
/// §2): every size the encoders, the views and the builder compute.
#[inline]
fn msg_len(count: usize, lens: impl IntoIterator<Item = usize>) -> usize {
    lens.into_iter()
        .fold(msg_header_len(count), |at, l| at + round8(l))
}

/// A validated view of a `lustre_msg_v2`: every buffer is known to lie inside the input and
/// within [`MSG_MAX_BUFLEN`]. It keeps only the input, its byte order and `lm_bufcount`; the
/// header and each buffer's place are read from the validated bytes when asked for (a buffer's
/// offset is the sum of the padded lengths before it: at most 32 additions). Buffers are
/// borrowed, never copied.
#[derive(Debug, Clone, Copy)]
pub struct MsgView<'a> {
    bytes: &'a [u8],
    order: Endian,
    /// `lm_bufcount`, 1..=32.
    count: u8,
}

impl<'a> MsgView<'a> {
    /// Checks the framing of `bytes` and detects the byte order from `lm_magic`.
    #[inline]
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let f = Frame::parse(bytes)?;
        Ok(MsgView::framed(bytes, f.order, f.count))
    }

    /// The view of bytes [`Frame::parse`] accepted with this order and count.
    #[inline]
    pub(crate) fn framed(bytes: &'a [u8], order: Endian, count: usize) -> Self {
        MsgView {
            bytes,
            order,
            count: count as u8,
        }
    }

    /// The byte order the sender wrote.
    pub fn order(&self) -> Endian {
        self.order
    }

    /// The header fields, read from the input.
    pub fn header(&self) -> MsgHeader {
        crate::endian::with_order!(self.order, |O| read_header::<O>(self.bytes).0)
    }

    /// `lm_bufcount`.
    pub fn bufcount(&self) -> usize {
        self.count as usize
    }

    /// `lm_buflens[i]`, or `None` past `lm_bufcount`.
    pub fn buflen(&self, i: usize) -> Option<u32> {
        if i < self.bufcount() {
            Some(self.raw_len(i))
        } else {
            None
        }
    }

    /// `lm_buflens[i]` for `i` below `lm_bufcount` (parse() proved the array is in the input).
    #[inline]
    fn raw_len(&self, i: usize) -> u32 {
        let at = buflen_offset(i);
        match self.bytes.get(at..at + 4) {
            Some(w) => self.order.u32_from([w[0], w[1], w[2], w[3]]),
            None => 0,
        }
    }

    /// Where buffers start: after the header and `lm_buflens[]`, padded.
    #[inline]
    fn first_offset(&self) -> usize {
        msg_header_len(self.bufcount())
    }

    /// Buffer `i`, or `None` past `lm_bufcount`. A buffer of length 0 is "absent".
    pub fn buffer(&self, i: usize) -> Option<&'a [u8]> {
        let len = self.buflen(i)? as usize;
        let start = self.buffer_offset(i);
        // parse() proved every buffer lies inside the input.
        Some(self.bytes.get(start..start + len).unwrap_or(&[]))
    }

    /// Buffer `i`, with a missing buffer (past `lm_bufcount`) read as empty.
    pub fn buffer_or_empty(&self, i: usize) -> &'a [u8] {
        self.buffer(i).unwrap_or(&[])
    }

    /// Offset of buffer `i` from the start of the message (0 past `lm_bufcount`).
    pub fn buffer_offset(&self, i: usize) -> usize {
        if i >= self.bufcount() {
            return 0;
        }
        // parse() bounded every length by MSG_MAX_BUFLEN and the sum by MSG_MAX_LEN.
        (0..i).fold(self.first_offset(), |at, j| {
            at + round8(self.raw_len(j) as usize)
        })
    }

    /// `lm_buflens[..bufcount]`, in order.
    pub fn buflens(&self) -> BufLens<'a> {
        BufLens {
            msg: *self,
            next: 0,
        }
    }

    /// The canonical size of this message (with the last buffer padded).
    pub fn wire_len(&self) -> usize {
        msg_len(self.bufcount(), self.buflens().map(|l| l as usize))
    }

    /// The bytes the view was parsed from.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
}

/// The buffer lengths of a message, `lm_buflens[..bufcount]`: [`MsgView::buflens`].
#[derive(Debug, Clone)]
pub struct BufLens<'a> {
    msg: MsgView<'a>,
    next: usize,
}

impl Iterator for BufLens<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let l = self.msg.buflen(self.next)?;
        self.next += 1;
        Some(l)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.msg.bufcount() - self.next.min(self.msg.bufcount());
        (n, Some(n))
    }
}

impl ExactSizeIterator for BufLens<'_> {}

/// Where each buffer of a message with these lengths starts, and the message's total size: the
/// layout every encoder writes and the rules use for error offsets.
pub(crate) fn buffer_offsets<const N: usize>(lens: &[u32; N]) -> ([usize; N], usize) {
    let mut off = [0usize; N];
    let mut cursor = msg_header_len(N);
    for (o, &l) in off.iter_mut().zip(lens) {
        *o = cursor;
        cursor += round8(l as usize);
    }
    (off, cursor)
}

fn read_header<O: ByteOrder>(bytes: &[u8]) -> (MsgHeader, u32) {
    match MsgHeaderRaw::<O>::ref_from_prefix(bytes) {
        Ok((r, _)) => (MsgHeader::from_raw(r), r.lm_bufcount.get()),
        // Unreachable after the caller's length check; 0 buffers is then rejected.
        Err(_) => (MsgHeader::default(), 0),
    }
}

/// The header of a message of `count` buffers: the value's members and the framing's.
#[inline(always)]
fn framed_header<O: ByteOrder>(header: &MsgHeader, count: usize) -> MsgHeaderRaw<O> {
    let mut raw = header.to_raw::<O>();
    raw.lm_bufcount = U32::new(count as u32);
    raw.lm_magic = U32::new(LUSTRE_MSG_MAGIC_V2);
    raw
}

/// Writes the header and `lm_buflens[]` (with the header's padding) of a message: built in one
/// array and written with one copy, not word by word.
pub(crate) fn put_header<B: Out + ?Sized>(
    order: Endian,
    header: &MsgHeader,
    lens: &[u32],
    out: &mut B,
) {
    const MAX: usize = msg_header_len(MSG_MAX_BUFCOUNT);
    let mut raw = [0u8; MAX];
    let count = lens.len().min(MSG_MAX_BUFCOUNT);
    let (head, buflens) = raw.split_at_mut(MSG_HEADER_FIXED);
    crate::endian::with_order!(order, |O| {
        head.copy_from_slice(framed_header::<O>(header, count).as_bytes())
    });
    for (dst, &l) in buflens.chunks_exact_mut(4).zip(&lens[..count]) {
        dst.copy_from_slice(&order.u32_to(l));
    }
    out.put_slice(&raw[..msg_header_len(count)]);
}

/// Writes the header and `lm_buflens[]` of a message of `N` buffers in byte order `O` at the
/// start of `out`, with the header's padding; returns where buffer 0 starts.
#[inline(always)]
pub(crate) fn write_header<O: ByteOrder, const N: usize>(
    header: &MsgHeader,
    lens: &[u32; N],
    out: &mut [u8],
) -> usize {
    super::out::copy_at(out, 0, framed_header::<O>(header, N).as_bytes());
    let start = msg_header_len(N);
    // The padding first (at most 4 bytes, inside the window), then the lengths.
    super::out::copy_at(out, start - MSG_ALIGN, &[0; MSG_ALIGN]);
    for (i, &l) in lens.iter().enumerate() {
        super::out::copy_at(out, buflen_offset(i), &U32::<O>::new(l).to_bytes());
    }
    start
}

/// Pads a buffer of `len` bytes to the 8-byte boundary.
#[inline]
pub(crate) fn put_padding<B: Out + ?Sized>(len: usize, out: &mut B) {
    const ZEROS: [u8; MSG_ALIGN] = [0; MSG_ALIGN];
    out.put_slice(&ZEROS[..round8(len) - len]);
}

/// Builds a message from raw buffers: for tools and tests that frame arbitrary content.
#[derive(Debug, Clone)]
pub struct MsgBuilder<'a> {
    /// Header fields.
    pub header: MsgHeader,
    /// Byte order to write.
    pub order: Endian,
    bufs: [&'a [u8]; MSG_MAX_BUFCOUNT],
    lens: [u32; MSG_MAX_BUFCOUNT],
    count: usize,
}

impl<'a> MsgBuilder<'a> {
    /// An empty builder.
    pub fn new(order: Endian, header: MsgHeader) -> Self {
        MsgBuilder {
            header,
            order,
            bufs: [&[]; MSG_MAX_BUFCOUNT],
            lens: [0; MSG_MAX_BUFCOUNT],
            count: 0,
        }
    }

    /// Appends a buffer; fails past 32 buffers, a buffer over [`MSG_MAX_BUFLEN`], or a message
    /// over [`MSG_MAX_LEN`].
    pub fn push(&mut self, buf: &'a [u8]) -> Result<&mut Self, EncodeError> {
        if self.count == MSG_MAX_BUFCOUNT {
            return Err(DecodeError::new(
                lustre_msg_v2::lm_bufcount.at(0),
                ErrorKind::OutOfRange {
                    value: 33,
                    min: 1,
                    max: MSG_MAX_BUFCOUNT as u64,
                },
            )
            .into());
        }
        if buf.len() > MSG_MAX_BUFLEN {
            return Err(DecodeError::new(
                At::new(S, BUFLEN_FIELDS[self.count], buflen_offset(self.count)),
                ErrorKind::OverLimit {
                    value: buf.len() as u64,
                    max: MSG_MAX_BUFLEN as u64,
                },
            )
            .into());
        }
        let lens = self.lens[..self.count].iter().map(|&l| l as usize);
        let len = msg_len(self.count + 1, lens.chain([buf.len()]));
        if len > MSG_MAX_LEN {
            return Err(DecodeError::new(
                lustre_msg_v2::lm_buflens.at(0),
                ErrorKind::MsgTooLong {
                    len,
                    max: MSG_MAX_LEN,
                },
            )
            .into());
        }
        self.bufs[self.count] = buf;
        self.lens[self.count] = buf.len() as u32;
        self.count += 1;
        Ok(self)
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        msg_size_u32(&self.lens[..self.count])
    }

    /// Appends the message to `out`.
    #[cfg(feature = "alloc")]
    pub fn put<B: bytes::BufMut + ?Sized>(&self, out: &mut B) {
        self.put_to(out);
    }

    fn put_to<B: Out + ?Sized>(&self, out: &mut B) {
        put_header(self.order, &self.header, &self.lens[..self.count], out);
        for b in &self.bufs[..self.count] {
            out.put_slice(b);
            put_padding(b.len(), out);
        }
    }

    /// Writes the message at the start of `out`; returns its size.
    pub fn encode_into(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode_into_slice(self.wire_len(), out, |w| self.put_to(w))
    }
}
