//! [`ValidatedReply`]: a [`PrepareReply`] checked once, encoded any number of times.

use super::encode::Wire;
use super::{PrepareReply, ReplyContext};
use crate::endian::Endian;
use crate::error::{DecodeError, EncodeError};
use crate::limits::REPLY_BUFCOUNT;
use crate::wire::msg::{encode_into_slice, msg_size_u32};
use bytes::Bytes;

/// A [`PrepareReply`] that passed every rule a decoder checks ([`PrepareReply::validated`]):
/// its encoders write without checking again.
///
/// It borrows the reply, so the reply cannot change while the proof lives; the lengths of the
/// nine buffers and the size are worked out once. A responder that sends one reply, or a test
/// rig that writes the same reply in both byte orders, validates once and pays only for the
/// writing (callgrind, the complete mkdir reply: about 1,160 instructions for
/// [`PrepareReply::encode_into`], about 480 for [`ValidatedReply::encode_into`]).
///
/// ```
/// use lustre_dne_intent::intent::ReplyView;
/// use lustre_dne_intent::Endian;
///
/// let bytes = include_bytes!("../../../testdata/mkdir_reply_complete.bin");
/// let reply = ReplyView::parse(bytes)?.to_value();
/// let checked = reply.validated(None)?;
/// let mut out = [0u8; 1024];
/// let n = checked.encode_into(Endian::Little, &mut out).expect("fits");
/// assert_eq!(&out[..n], &bytes[..]);
/// // The same proof writes the other byte order too; only the size can fail.
/// assert_eq!(checked.to_bytes(Endian::Big).len(), n);
/// assert!(checked.encode_into(Endian::Big, &mut out[..n - 1]).is_err());
/// # Ok::<(), lustre_dne_intent::DecodeError>(())
/// ```
#[derive(Clone, Copy)]
pub struct ValidatedReply<'r> {
    reply: &'r PrepareReply,
    wire: Wire<'r>,
    lens: [u32; REPLY_BUFCOUNT],
    wire_len: usize,
}

impl core::fmt::Debug for ValidatedReply<'_> {
    /// The reply and the size (the borrowed parts are the reply's own fields again).
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ValidatedReply")
            .field("reply", self.reply)
            .field("wire_len", &self.wire_len)
            .finish_non_exhaustive()
    }
}

impl PrepareReply {
    /// Checks every rule a decoder would (with `ctx`, also those that need the request, as
    /// [`PrepareReply::validate`] does) and returns the proof, which encodes without checking
    /// again.
    pub fn validated(&self, ctx: Option<&ReplyContext>) -> Result<ValidatedReply<'_>, DecodeError> {
        let wire = self.wire();
        wire.validate(ctx)?;
        let lens = wire.lens();
        Ok(ValidatedReply {
            reply: self,
            wire,
            lens,
            wire_len: msg_size_u32(&lens),
        })
    }
}

impl<'r> ValidatedReply<'r> {
    /// The reply that was validated.
    pub fn reply(&self) -> &'r PrepareReply {
        self.reply
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        self.wire_len
    }

    /// Writes the message in `order` at the start of `out`; returns its size. The one error is
    /// [`EncodeError::BufferTooSmall`].
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode_into_slice(self.wire_len, out, |o| {
            self.wire.write_lens(order, &self.lens, o)
        })
    }

    /// The message in `order`, as a new buffer.
    pub fn to_bytes(&self, order: Endian) -> Bytes {
        let mut out = bytes::BytesMut::zeroed(self.wire_len);
        self.wire.write_lens(order, &self.lens, &mut out);
        out.freeze()
    }

    /// Appends the message in `order` to `out`, as [`PrepareReply::put`] does (a `BufMut` that
    /// cannot grow must have [`ValidatedReply::wire_len`] bytes of room).
    pub fn put<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        self.wire.put(order, out);
    }
}
