//! Existing Lustre structures the prepare intent travels in: FIDs, the `lustre_msg_v2` framing,
//! `ptlrpc_body`, the LDLM enqueue structures and `mdt_body` (WIRE.md §2–§3).
//!
//! Each fixed structure has two faces, side by side in its module:
//! - a *raw layout*, generic over the byte order, derived with zerocopy and checked at compile
//!   time against Lustre's `wiretest` sizes and offsets (the `const _` items);
//! - a plain *value* type with native integers and named flags, which is what callers read and
//!   build. [`WireStruct`] connects the two in both byte orders.

mod fid;
mod ldlm;
mod mdt_body;
pub(crate) mod msg;
pub(crate) mod out;
pub(crate) mod ptlrpc;

pub use fid::{FidParseError, LuFid};
pub use ldlm::{
    DispFlags, InodeBits, LdlmFlags, LdlmInodebits, LdlmIntent, LdlmLockDesc, LdlmReply,
    LdlmRequest, LdlmResId, LockHandles, LockMode, LockType, LustreHandle,
};
pub(crate) use ldlm::{LdlmReplyFields, LdlmRequestHead, LockDescFields};
pub use mdt_body::{MdtBody, MdtValid};
pub use msg::{
    BufLens, FLVR_POLICY_MASK, LUSTRE_MSG_MAGIC_V2, LUSTRE_MSG_MAGIC_V2_SWABBED, MSGHDR_AT_SUPPORT,
    MsgBuilder, MsgHeader, MsgView, WIRE_FLVR_MASK, msg_size,
};
pub use ptlrpc::{
    LDLM_ENQUEUE, LUSTRE_DLM_MSG_VERSION, LUSTRE_DLM_VERSION, LUSTRE_VERSION_MASK, MsgFlags,
    PTLRPC_MSG_VERSION, PtlrpcBody, PtlrpcMsgType,
};

/// The raw zerocopy layouts, for callers who want to overlay them on their own buffers.
pub mod raw {
    pub use super::fid::LuFidRaw;
    pub use super::ldlm::{
        LdlmInodebitsRaw, LdlmIntentRaw, LdlmLockDescRaw, LdlmReplyRaw, LdlmRequestRaw,
        LdlmResIdRaw,
    };
    pub use super::mdt_body::MdtBodyRaw;
    pub use super::msg::MsgHeaderRaw;
    pub use super::ptlrpc::PtlrpcBodyRaw;
}

use crate::endian::Endian;
use crate::error::{At, DecodeError, EncodeError, ErrorKind};
use out::Out;
use zerocopy::{
    BigEndian, ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned,
};

/// A fixed-size Lustre structure: its raw layout in either byte order and its value type.
pub trait WireStruct: Sized {
    /// The Lustre name of the structure.
    const NAME: &'static str;
    /// Its size on the wire.
    const SIZE: usize;
    /// The raw layout in byte order `O`.
    type Raw<O: ByteOrder>: FromBytes + IntoBytes + KnownLayout + Immutable + Unaligned;

    /// The value of a raw layout.
    fn from_raw<O: ByteOrder>(raw: &Self::Raw<O>) -> Self;
    /// The raw layout of a value.
    fn to_raw<O: ByteOrder>(&self) -> Self::Raw<O>;

    /// Writes the raw layout of the value over `dst`: [`WireStruct::to_raw`] by default; a large
    /// structure stores field by field, so that it is built in place rather than on the stack
    /// and copied.
    #[inline(always)]
    fn write_raw<O: ByteOrder>(&self, dst: &mut Self::Raw<O>) {
        *dst = self.to_raw::<O>();
    }

    /// Decodes the first [`Self::SIZE`] bytes of `bytes`, written in `order`.
    #[inline]
    fn decode(bytes: &[u8], order: Endian) -> Result<Self, DecodeError> {
        let short = || {
            DecodeError::new(
                At::new(Self::NAME, "", 0),
                ErrorKind::Truncated {
                    need: Self::SIZE,
                    have: bytes.len(),
                },
            )
        };
        match order {
            Endian::Little => Self::Raw::<LittleEndian>::ref_from_prefix(bytes)
                .map(|(r, _)| Self::from_raw(r))
                .map_err(|_| short()),
            Endian::Big => Self::Raw::<BigEndian>::ref_from_prefix(bytes)
                .map(|(r, _)| Self::from_raw(r))
                .map_err(|_| short()),
        }
    }

    /// Appends the structure in `order` ([`Self::SIZE`] bytes).
    #[cfg(feature = "alloc")]
    fn put<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        put_struct(self, order, out);
    }

    /// Writes the structure in `order` at the start of `out`; returns [`Self::SIZE`].
    fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        msg::encode_into_slice(Self::SIZE, out, |w| put_struct(self, order, w))
    }
}

/// The value of the first [`WireStruct::SIZE`] bytes of `bytes` in byte order `O` (the decoders
/// choose the order once); `None` when `bytes` is shorter.
#[inline]
pub(crate) fn decode_in<T: WireStruct, O: ByteOrder>(bytes: &[u8]) -> Option<T> {
    T::Raw::<O>::ref_from_prefix(bytes)
        .ok()
        .map(|(r, _)| T::from_raw(r))
}

/// Writes `v` in byte order `O` at `out[at..at + SIZE]`, converted in place: one fixed-size
/// store, no intermediate copy. Writes nothing when `out` is too short (the encoders size their
/// window first).
#[inline(always)]
pub(crate) fn write_at<T: WireStruct, O: ByteOrder>(v: &T, out: &mut [u8], at: usize) {
    if let Some(Ok(dst)) = out
        .get_mut(at..at + T::SIZE)
        .map(T::Raw::<O>::mut_from_bytes)
    {
        v.write_raw::<O>(dst);
    }
}

/// Copies `src` to `out[at..]` (nothing when it does not fit); a constant `src` length becomes
/// plain stores.
#[inline(always)]
pub(crate) fn copy_at(out: &mut [u8], at: usize, src: &[u8]) {
    if let Some(dst) = out.get_mut(at..at + src.len()) {
        dst.copy_from_slice(src);
    }
}

/// [`WireStruct::put`] into any sink of the crate's encoders.
pub(crate) fn put_struct<T: WireStruct, W: Out + ?Sized>(v: &T, order: Endian, out: &mut W) {
    match order {
        Endian::Little => out.put_slice(v.to_raw::<LittleEndian>().as_bytes()),
        Endian::Big => out.put_slice(v.to_raw::<BigEndian>().as_bytes()),
    }
}

/// Compile-time layout assertions: the Rust form of Lustre's `wiretest`.
///
/// `check_layout!(Raw, SIZE; field @ OFFSET, ...)` fails the build when a size or offset drifts.
macro_rules! check_layout {
    ($raw:ty, $size:expr; $($field:ident @ $off:expr),* $(,)?) => {
        const _: () = {
            assert!(core::mem::size_of::<$raw>() == $size);
            assert!(core::mem::align_of::<$raw>() == 1);
            $( assert!(core::mem::offset_of!($raw, $field) == $off); )*
        };
    };
}
pub(crate) use check_layout;
