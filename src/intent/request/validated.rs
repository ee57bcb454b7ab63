//! [`ValidatedRequest`]: a [`PrepareRequest`] checked once, encoded any number of times; and
//! the request's writers, which only it calls.

use super::PrepareRequest;
use crate::endian::{Endian, with_order};
use crate::error::{DecodeError, EncodeError};
use crate::intent::Operation;
use crate::limits::REQUEST_BUFCOUNT;
use crate::limits::round8;
use crate::limits::{LDLM_INTENT_SIZE, MSG_ALIGN, PREPARE_REQ_SIZE};
use crate::wire::msg::{encode_into_slice, msg_size_u32, write_header};
#[cfg(feature = "alloc")]
use crate::wire::msg::{put_header, put_padding};
#[cfg(feature = "alloc")]
use crate::wire::out::Out;
#[cfg(feature = "alloc")]
use crate::wire::put_struct;
use crate::wire::{LdlmIntent, copy_at, write_at};
use zerocopy::ByteOrder;
use zerocopy::byteorder::U32;

/// A [`PrepareRequest`] that passed every rule a decoder checks ([`PrepareRequest::validated`]):
/// its encoders write without checking again.
///
/// It borrows the request, so the request cannot change while the proof lives; the operation,
/// the buffer lengths and the size are worked out once.
///
/// ```
/// use lustre_dne_intent::intent::{Operation, RequestView};
/// use lustre_dne_intent::Endian;
///
/// let bytes = include_bytes!("../../../testdata/mkdir_request.bin");
/// let request = RequestView::parse(bytes)?.to_value();
/// let checked = request.validated()?;
/// assert_eq!(checked.operation(), Operation::Create);
/// let mut out = [0u8; 512];
/// let n = checked.encode_into(Endian::Little, &mut out).expect("fits");
/// assert_eq!(&out[..n], &bytes[..]);
/// # Ok::<(), lustre_dne_intent::DecodeError>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct ValidatedRequest<'r> {
    request: &'r PrepareRequest,
    op: Operation,
    lens: [u32; REQUEST_BUFCOUNT],
    wire_len: usize,
}

impl PrepareRequest {
    /// Checks every rule a decoder would, as [`PrepareRequest::validate`] does, and returns the
    /// proof, which encodes without checking again.
    pub fn validated(&self) -> Result<ValidatedRequest<'_>, DecodeError> {
        let op = self.validate()?;
        let lens = self.lens();
        Ok(ValidatedRequest {
            request: self,
            op,
            lens,
            wire_len: msg_size_u32(&lens),
        })
    }
}

impl<'r> ValidatedRequest<'r> {
    /// The request that was validated.
    pub fn request(&self) -> &'r PrepareRequest {
        self.request
    }

    /// The operation its opcode names.
    pub fn operation(&self) -> Operation {
        self.op
    }

    /// Size of the encoded message.
    pub fn wire_len(&self) -> usize {
        self.wire_len
    }

    /// Writes the message in `order` at the start of `out`; returns its size. The one error is
    /// [`EncodeError::BufferTooSmall`].
    pub fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode_into_slice(self.wire_len, out, |o| self.write(order, o))
    }

    /// The message in `order`, as a new buffer.
    #[cfg(feature = "alloc")]
    pub fn to_bytes(&self, order: Endian) -> bytes::Bytes {
        let mut out = bytes::BytesMut::zeroed(self.wire_len);
        self.write(order, &mut out);
        out.freeze()
    }

    /// Appends the message in `order` to `out`, as [`PrepareRequest::put`] does (a `BufMut`
    /// that cannot grow must have [`ValidatedRequest::wire_len`] bytes of room).
    #[cfg(feature = "alloc")]
    pub fn put<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        self.put_to(order, out);
    }

    #[cfg(feature = "alloc")]
    fn put_to<B: Out + ?Sized>(&self, order: Endian, out: &mut B) {
        let (r, lens) = (self.request, &self.lens);
        put_header(order, &r.header, lens, out);
        // v3, or v2 without a job id (WIRE.md W11.4).
        r.ptlrpc.put_buffer_to(order, out);
        r.ldlm.put_buffer_to(order, out);
        put_struct(&LdlmIntent { opc: r.opc }, order, out);
        put_struct(&r.body, order, out);
        if let Some(name) = &r.name {
            out.put_slice(name.as_bytes());
            out.put_u8(0);
            put_padding(lens[4] as usize, out);
        }
        for &g in r.groups.as_slice() {
            out.put_slice(&order.u32_to(g));
        }
        put_padding(lens[5] as usize, out);
    }

    /// Writes the message at the start of `out`, which holds [`ValidatedRequest::wire_len`]
    /// bytes: each fixed structure converted in place, the byte order chosen once.
    fn write(&self, order: Endian, out: &mut [u8]) {
        with_order!(order, |O| self.write_as::<O>(out))
    }

    fn write_as<O: ByteOrder>(&self, out: &mut [u8]) {
        let (r, lens) = (self.request, &self.lens);
        let mut at = write_header::<O, REQUEST_BUFCOUNT>(&r.header, lens, out);
        // v3, or v2 without a job id (WIRE.md W11.4): the 184 bytes written, the next buffer
        // over a v2 body's tail.
        write_at::<_, O>(&r.ptlrpc, out, at);
        at += lens[0] as usize;
        at += round8(r.ldlm.write_buffer_at::<O>(out, at));
        write_at::<_, O>(&LdlmIntent { opc: r.opc }, out, at);
        at += LDLM_INTENT_SIZE;
        write_at::<_, O>(&r.body, out, at);
        at += PREPARE_REQ_SIZE;
        // Each variable buffer: its padding as one 8-byte store of zeros (which also writes the
        // name's NUL), then its bytes over its start.
        if let Some(name) = &r.name {
            let end = at + round8(lens[4] as usize);
            copy_at(out, end - MSG_ALIGN, &[0; MSG_ALIGN]);
            copy_at(out, at, name.as_bytes());
            at = end;
        }
        let groups = r.groups.as_slice();
        if !groups.is_empty() {
            copy_at(
                out,
                at + round8(lens[5] as usize) - MSG_ALIGN,
                &[0; MSG_ALIGN],
            );
            for (i, &g) in groups.iter().enumerate() {
                copy_at(out, at + 4 * i, &U32::<O>::new(g).to_bytes());
            }
        }
    }
}
