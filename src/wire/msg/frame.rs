//! The framing pass the typed decoders share: where each buffer of a `lustre_msg_v2` lies,
//! checked once, for a decoder that knows how many buffers its message kind has.

use super::{BUFFER_FIELDS, BUFLEN_FIELDS, LUSTRE_MSG_MAGIC_V2, MsgHeader, S};
use super::{buflen_offset, lustre_msg_v2, read_header};
use crate::endian::Endian;
use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::{MSG_ALIGN, msg_header_len};
use crate::limits::{MSG_HEADER_FIXED, MSG_MAX_BUFCOUNT, MSG_MAX_BUFLEN, MSG_MAX_LEN};
use zerocopy::ByteOrder;
use zerocopy::byteorder::U32;

/// The framing of a message as a decoder of `N` buffers needs it. The spans of its first `N`
/// buffers (those past `lm_bufcount` empty, at the end) are written where the decoder keeps
/// them ([`Frame::parse_spans_as`]); the frame holds the rest: the header, the canonical size
/// and the first non-empty buffer past the `N`th (WIRE.md W2.2). Every buffer, those past `N`
/// included, is checked as [`MsgView::parse`](super::MsgView::parse) does, with the same errors.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Frame {
    pub(crate) order: Endian,
    pub(crate) header: MsgHeader,
    /// `lm_bufcount` (1..=32).
    pub(crate) count: usize,
    /// The size with the last buffer padded: where buffers past `lm_bufcount` start.
    pub(crate) wire_len: usize,
    /// The first non-empty buffer past the `N` whose spans were asked for: its index and length.
    pub(crate) past_last: Option<(usize, usize)>,
}

/// Where a buffer lies in a framed input: its start and its length. The views keep these
/// instead of the structures, and slice the input again on demand.
///
/// One `u64` (the start in the low half), not two `u32` fields, so that the framing stores each
/// span at once: a view then copies a span with one load of what one store wrote. A load of
/// what two 4-byte stores wrote cannot be forwarded from them and waits for both to reach the
/// cache. The framing also writes the spans where the view keeps them, so that nothing copies
/// them.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Span(u64);

impl core::fmt::Debug for Span {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Span")
            .field("start", &self.start())
            .field("len", &self.len())
            .finish()
    }
}

impl Span {
    /// The span of `len` bytes at `start`.
    #[inline(always)]
    pub(crate) const fn new(start: u32, len: u32) -> Self {
        Span(start as u64 | (len as u64) << 32)
    }

    /// The span of `len` bytes at `start`, from the framing's 64-bit cursor: a `start` of 2^32
    /// or more corrupts the length, which is harmless because such a message is refused before
    /// its spans are read (the total is over [`MSG_MAX_LEN`]). One OR where [`Span::new`] needs
    /// to clear the cursor's high half first.
    #[inline(always)]
    fn at_cursor(start: u64, len: u32) -> Self {
        Span(start | (len as u64) << 32)
    }

    /// Offset of the buffer in the input.
    #[inline(always)]
    pub(crate) const fn start(self) -> u32 {
        self.0 as u32
    }

    /// Length of the buffer.
    #[inline(always)]
    pub(crate) const fn len(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The buffer in `bytes`, which the framing proved holds it (empty otherwise).
    #[inline(always)]
    pub(crate) fn in_bytes(self, bytes: &[u8]) -> &[u8] {
        bytes.get(self.range()).unwrap_or(&[])
    }

    /// The byte range of the buffer.
    #[inline(always)]
    pub(crate) fn range(self) -> core::ops::Range<usize> {
        let start = self.start() as usize;
        start..start + self.len() as usize
    }
}

impl Frame {
    /// Refuses a message with fewer than `min` buffers, as a decoder of that kind of message
    /// must (`lm_bufcount` itself was checked against 1..=[`MSG_MAX_BUFCOUNT`] by the framing).
    pub(crate) fn require_count(&self, min: usize) -> Result<(), DecodeError> {
        if self.count >= min {
            return Ok(());
        }
        Err(DecodeError::new(
            lustre_msg_v2::lm_bufcount.at(0),
            ErrorKind::OutOfRange {
                value: self.count as u64,
                min: min as u64,
                max: MSG_MAX_BUFCOUNT as u64,
            },
        ))
    }

    /// Checks the framing of `bytes` (one pass over `lm_buflens`, in the detected order).
    #[inline]
    pub(crate) fn parse(bytes: &[u8]) -> Result<Self, DecodeError> {
        let order = Self::order_of(bytes)?;
        crate::endian::with_order!(order, |O| Self::parse_spans_as::<O, 0>(
            bytes,
            order,
            &mut []
        ))
    }

    /// The byte order of a message, from `lm_magic` (the first check of [`Frame::parse`]): for a
    /// decoder that calls [`Frame::parse_spans_as`] itself, so that the frame is built in its
    /// own frame of the stack rather than returned and copied.
    #[inline]
    pub(crate) fn order_of(bytes: &[u8]) -> Result<Endian, DecodeError> {
        if bytes.len() < MSG_HEADER_FIXED {
            return Err(DecodeError::new(
                At::new(S, "", 0),
                ErrorKind::Truncated {
                    need: MSG_HEADER_FIXED,
                    have: bytes.len(),
                },
            ));
        }
        const AT: usize = lustre_msg_v2::lm_magic.offset;
        let magic = [bytes[AT], bytes[AT + 1], bytes[AT + 2], bytes[AT + 3]];
        if u32::from_le_bytes(magic) == LUSTRE_MSG_MAGIC_V2 {
            Ok(Endian::Little)
        } else if u32::from_be_bytes(magic) == LUSTRE_MSG_MAGIC_V2 {
            Ok(Endian::Big)
        } else {
            Err(DecodeError::new(
                lustre_msg_v2::lm_magic.at(0),
                ErrorKind::BadMagic {
                    got: u32::from_le_bytes(magic),
                },
            ))
        }
    }

    /// The rest of [`Frame::parse`] in byte order `O`, chosen once, with the spans of buffers
    /// 0..N written to `spans` (every entry), wherever the caller keeps them: a view that frames
    /// into its own field need not copy the spans just stored, which a copy would load before
    /// the stores are done with (the loads wait).
    #[inline(always)]
    pub(crate) fn parse_spans_as<O: ByteOrder, const N: usize>(
        bytes: &[u8],
        order: Endian,
        spans: &mut [Span; N],
    ) -> Result<Self, DecodeError> {
        let (header, count) = read_header::<O>(bytes);
        if count == 0 || count > MSG_MAX_BUFCOUNT as u32 {
            return Err(DecodeError::new(
                lustre_msg_v2::lm_bufcount.at(0),
                ErrorKind::OutOfRange {
                    value: count.into(),
                    min: 1,
                    max: MSG_MAX_BUFCOUNT as u64,
                },
            ));
        }
        let count = count as usize;
        let Some(lens_bytes) = bytes.get(MSG_HEADER_FIXED..buflen_offset(count)) else {
            return Err(DecodeError::new(
                lustre_msg_v2::lm_buflens.at(0),
                ErrorKind::Truncated {
                    need: 4 * count,
                    have: bytes.len() - MSG_HEADER_FIXED,
                },
            ));
        };
        let mut past_last = None;
        // One pass that only sums: u64 holds 32 lengths of up to 2^32 − 1 on any target. Only a
        // bad message pays for the walk that names its first bad buffer. No length needs its
        // own check against MSG_MAX_BUFLEN: a padded buffer ends at most where the next starts,
        // so when the padded total is within MSG_MAX_LEN (which equals MSG_MAX_BUFLEN) and
        // inside the input, every buffer is.
        let first = msg_header_len(count) as u64;
        let mut cursor = first;
        let read = |i: usize| {
            let w = &lens_bytes[4 * i..4 * i + 4];
            U32::<O>::from_bytes([w[0], w[1], w[2], w[3]]).get()
        };
        let kept = count.min(N);
        // Indexed: the iterator form (`iter_mut().enumerate().take(kept)`) compiles to more.
        let mut step = |i: usize, spans: &mut [Span; N]| {
            let l = read(i);
            // Truncated only in a message refused below.
            spans[i] = Span::at_cursor(cursor, l);
            cursor += padded(l);
        };
        if kept == N {
            // The usual case, a message of the decoder's own count: a loop of constant length
            // that the compiler unrolls.
            for i in 0..N {
                step(i, spans);
            }
        } else {
            for i in 0..kept {
                step(i, spans);
            }
        }
        for i in kept..count {
            let l = read(i);
            if l != 0 && past_last.is_none() {
                past_last = Some((i, l as usize));
            }
            cursor += padded(l);
        }
        // The input holds every buffer with its padding, the last one's included, as Lustre's
        // lustre_unpack_msg_v2 requires (it sums round_up(buflen, 8) over all buffers).
        if cursor > bytes.len() as u64 || cursor > MSG_MAX_LEN as u64 {
            return Err(frame_error::<O>(bytes, lens_bytes, count));
        }
        let cursor = cursor as usize;
        for s in spans.iter_mut().skip(count) {
            *s = Span::new(cursor as u32, 0);
        }
        Ok(Frame {
            order,
            header,
            count,
            wire_len: cursor,
            past_last,
        })
    }
}

/// A length read from input, padded to [`MSG_ALIGN`]: `round8` in 64 bits, which hold the sum
/// of 32 lengths of up to 2^32 − 1 on any target.
#[inline(always)]
const fn padded(len: u32) -> u64 {
    (len as u64 + (MSG_ALIGN as u64 - 1)) & !(MSG_ALIGN as u64 - 1)
}

/// The error of a message [`Frame::parse_spans_as`] refused (its buffers, padded, end past the
/// input, or its total is over [`MSG_MAX_LEN`]), in the order of the rules: the first buffer
/// over [`MSG_MAX_BUFLEN`] or whose padded end is past the input, else the total. In `u64`, as
/// the framing sums.
#[cold]
fn frame_error<O: ByteOrder>(bytes: &[u8], lens_bytes: &[u8], count: usize) -> DecodeError {
    let have = bytes.len() as u64;
    let mut cursor = msg_header_len(count) as u64;
    for (i, word) in lens_bytes.chunks_exact(4).enumerate() {
        let len = U32::<O>::from_bytes([word[0], word[1], word[2], word[3]]).get();
        let padded = padded(len);
        let len = u64::from(len);
        if padded > MSG_MAX_BUFLEN as u64 {
            return DecodeError::new(
                At::new(S, BUFLEN_FIELDS[i], buflen_offset(i)),
                ErrorKind::OverLimit {
                    value: len,
                    max: MSG_MAX_BUFLEN as u64,
                },
            );
        }
        // Every buffer so far is within MSG_MAX_BUFLEN: the casts below fit any usize.
        if have < cursor + padded {
            return DecodeError::new(
                At::new(S, BUFFER_FIELDS[i], cursor as usize),
                ErrorKind::Truncated {
                    need: padded as usize,
                    have: have.saturating_sub(cursor) as usize,
                },
            );
        }
        cursor += padded;
    }
    DecodeError::new(
        lustre_msg_v2::lm_buflens.at(0),
        ErrorKind::MsgTooLong {
            len: cursor as usize,
            max: MSG_MAX_LEN,
        },
    )
}
