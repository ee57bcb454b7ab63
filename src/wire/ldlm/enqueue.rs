//! The structures of an LDLM enqueue: `ldlm_request`, `ldlm_reply` and `ldlm_intent`.

use super::{DispFlags, LdlmFlags, LdlmLockDesc, LdlmLockDescRaw, LockDescFields, LustreHandle};
use crate::endian::Endian;
use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::{
    LDLM_LOCKREQ_HANDLES, LDLM_REPLY_SIZE, LDLM_REQUEST_FIXED, LDLM_REQUEST_MAX_HANDLES,
    LDLM_REQUEST_MIN,
};
#[cfg(feature = "alloc")]
use crate::wire::out::Out;
#[cfg(feature = "alloc")]
use crate::wire::put_struct;
use crate::wire::{WireStruct, check_layout};
use core::fmt;
use zerocopy::byteorder::{U32, U64};
use zerocopy::{ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned};

/// The fixed part of `struct ldlm_request` (88 bytes); `lock_handle[]` follows.
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct LdlmRequestRaw<O: ByteOrder> {
    pub lock_flags: U32<O>,
    pub lock_count: U32<O>,
    pub lock_desc: LdlmLockDescRaw<O>,
}
check_layout!(LdlmRequestRaw<LittleEndian>, 88; lock_flags @ 0, lock_count @ 4, lock_desc @ 8);

/// The lock handles of an `ldlm_request`: at least [`LDLM_LOCKREQ_HANDLES`] on the wire, at most
/// [`LDLM_REQUEST_MAX_HANDLES`] here. Stored inline, so a request value never allocates.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct LockHandles {
    len: u8,
    items: [LustreHandle; LDLM_REQUEST_MAX_HANDLES],
}

impl LockHandles {
    /// The two zero handles of a fresh enqueue.
    pub const fn new() -> Self {
        LockHandles {
            len: LDLM_LOCKREQ_HANDLES as u8,
            items: [LustreHandle(0); LDLM_REQUEST_MAX_HANDLES],
        }
    }

    /// Handles from a slice; `None` when there are fewer than 2 or more than the bound.
    pub fn from_slice(handles: &[LustreHandle]) -> Option<Self> {
        if !(LDLM_LOCKREQ_HANDLES..=LDLM_REQUEST_MAX_HANDLES).contains(&handles.len()) {
            return None;
        }
        let mut h = LockHandles::new();
        h.items[..handles.len()].copy_from_slice(handles);
        h.len = handles.len() as u8;
        Some(h)
    }

    /// The handles.
    pub fn as_slice(&self) -> &[LustreHandle] {
        &self.items[..self.len as usize]
    }
}

impl Default for LockHandles {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for LockHandles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for LockHandles {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.int_in_range(LDLM_LOCKREQ_HANDLES..=4)?;
        let mut h = LockHandles::new();
        for i in 0..n {
            h.items[i] = LustreHandle(u.arbitrary()?);
        }
        h.len = n as u8;
        Ok(h)
    }
}

/// `struct ldlm_request`: an enqueue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LdlmRequest {
    /// `lock_flags`.
    #[cfg_attr(feature = "serde", serde(rename = "lock_flags"))]
    pub lock_flags: LdlmFlags,
    /// `lock_count`: handles in use (the requester's own plus early cancels).
    #[cfg_attr(feature = "serde", serde(rename = "lock_count"))]
    pub lock_count: u32,
    /// `lock_desc`.
    #[cfg_attr(feature = "serde", serde(rename = "lock_desc"))]
    pub lock_desc: LdlmLockDesc,
    /// `lock_handle[]`.
    #[cfg_attr(feature = "serde", serde(rename = "lock_handle"))]
    pub handles: LockHandles,
}

impl LdlmRequest {
    /// Bytes on the wire: 88 + 8 per handle.
    pub fn wire_len(&self) -> usize {
        LDLM_REQUEST_FIXED + 8 * self.handles.as_slice().len()
    }

    /// Decodes buffer 1 of a request at offset `base` of the message.
    pub fn decode_buffer(buf: &[u8], order: Endian, base: usize) -> Result<Self, DecodeError> {
        Ok(match order {
            Endian::Little => LdlmRequestHead::<LittleEndian>::check_in(buf, base)?.to_request(buf),
            Endian::Big => {
                LdlmRequestHead::<zerocopy::BigEndian>::check_in(buf, base)?.to_request(buf)
            }
        })
    }

    /// Appends the request: the fixed part, then every handle.
    #[cfg(feature = "alloc")]
    pub fn put_buffer<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        self.put_buffer_to(order, out);
    }

    /// Writes buffer 1 of a request at `out[at..]` in byte order `O` (nothing past the end of
    /// `out`); returns its length.
    #[inline(always)]
    pub(crate) fn write_buffer_at<O: ByteOrder>(&self, out: &mut [u8], at: usize) -> usize {
        crate::wire::copy_at(out, at, &U32::<O>::new(self.lock_flags.0).to_bytes());
        crate::wire::copy_at(out, at + 4, &U32::<O>::new(self.lock_count).to_bytes());
        crate::wire::write_at::<_, O>(&self.lock_desc, out, at + 8);
        let mut end = at + LDLM_REQUEST_FIXED;
        for h in self.handles.as_slice() {
            crate::wire::copy_at(out, end, &h.to_bytes());
            end += 8;
        }
        end - at
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn put_buffer_to<B: Out + ?Sized>(&self, order: Endian, out: &mut B) {
        let raw_flags = order.u32_to(self.lock_flags.0);
        out.put_slice(&raw_flags);
        out.put_slice(&order.u32_to(self.lock_count));
        put_struct(&self.lock_desc, order, out);
        for h in self.handles.as_slice() {
            out.put_slice(&h.to_bytes());
        }
    }
}

/// The fixed part of a checked `ldlm_request` buffer and its number of handles: what the
/// request rules read, without copying the handles (a request view decodes those on demand).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LdlmRequestHead<'a, O: ByteOrder> {
    pub(crate) lock_flags: LdlmFlags,
    pub(crate) lock_count: u32,
    /// In place in the received buffer: the rules read it there.
    pub(crate) lock_desc: &'a LdlmLockDescRaw<O>,
    /// Handles in the buffer, 2..=[`LDLM_REQUEST_MAX_HANDLES`].
    pub(crate) nhandles: usize,
}

impl<'a, O: ByteOrder> LdlmRequestHead<'a, O> {
    /// Checks buffer 1 of a request at offset `base` in byte order `O`: its size (88 + 8 per
    /// handle, at least 2 and at most [`LDLM_REQUEST_MAX_HANDLES`] handles) and `lock_count`
    /// within the handles carried.
    #[inline(always)]
    pub(crate) fn check_in(buf: &'a [u8], base: usize) -> Result<Self, DecodeError> {
        const S: &str = "ldlm_request";
        if buf.len() < LDLM_REQUEST_MIN {
            return Err(DecodeError::too_short(S, base, buf.len(), LDLM_REQUEST_MIN));
        }
        let tail = buf.len() - LDLM_REQUEST_FIXED;
        if !tail.is_multiple_of(8) {
            return Err(DecodeError::new(
                At::new(S, "lock_handle", base + LDLM_REQUEST_FIXED),
                ErrorKind::BadBufferLength {
                    len: buf.len(),
                    expected: "88 + 8 per lock handle",
                },
            ));
        }
        let nhandles = tail / 8;
        if nhandles > LDLM_REQUEST_MAX_HANDLES {
            return Err(DecodeError::new(
                At::new(S, "lock_handle", base + LDLM_REQUEST_FIXED),
                ErrorKind::OverLimit {
                    value: nhandles as u64,
                    max: LDLM_REQUEST_MAX_HANDLES as u64,
                },
            ));
        }
        let Ok((r, _)) = LdlmRequestRaw::<O>::ref_from_prefix(buf) else {
            // Unreachable after the size check above; a truncation all the same.
            return Err(DecodeError::new(
                At::new(S, "", base),
                ErrorKind::Truncated {
                    need: LDLM_REQUEST_FIXED,
                    have: buf.len(),
                },
            ));
        };
        let lock_count = r.lock_count.get();
        if lock_count as usize > nhandles {
            return Err(DecodeError::new(
                At::new(S, "lock_count", base + 4),
                ErrorKind::OverLimit {
                    value: lock_count.into(),
                    max: nhandles as u64,
                },
            ));
        }
        Ok(LdlmRequestHead {
            lock_flags: LdlmFlags(r.lock_flags.get()),
            lock_count,
            lock_desc: &r.lock_desc,
            nhandles,
        })
    }

    /// The whole request as a value: the fixed fields, and the handles of `buf`, the buffer
    /// this head was checked from.
    fn to_request(self, buf: &[u8]) -> LdlmRequest {
        let mut handles = LockHandles::new();
        let carried = buf.get(LDLM_REQUEST_FIXED..).unwrap_or(&[]);
        for (slot, chunk) in handles.items.iter_mut().zip(carried.chunks_exact(8)) {
            let mut b = [0u8; 8];
            b.copy_from_slice(chunk);
            *slot = LustreHandle::from_bytes(b);
        }
        handles.len = self.nhandles as u8;
        LdlmRequest {
            lock_flags: self.lock_flags,
            lock_count: self.lock_count,
            lock_desc: LdlmLockDesc::from_raw(self.lock_desc),
            handles,
        }
    }
}

/// `struct ldlm_reply` (112 bytes).
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct LdlmReplyRaw<O: ByteOrder> {
    pub lock_flags: U32<O>,
    pub lock_padding: U32<O>,
    pub lock_desc: LdlmLockDescRaw<O>,
    pub lock_handle: [u8; 8],
    pub lock_policy_res1: U64<O>,
    pub lock_policy_res2: U64<O>,
}
check_layout!(LdlmReplyRaw<LittleEndian>, 112;
    lock_flags @ 0, lock_padding @ 4, lock_desc @ 8, lock_handle @ 88,
    lock_policy_res1 @ 96, lock_policy_res2 @ 104);

/// `struct ldlm_reply`: the granted lock and the intent's dispositions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LdlmReply {
    /// `lock_flags`.
    #[cfg_attr(feature = "serde", serde(rename = "lock_flags"))]
    pub lock_flags: LdlmFlags,
    /// `lock_desc`: the granted lock.
    #[cfg_attr(feature = "serde", serde(rename = "lock_desc"))]
    pub lock_desc: LdlmLockDesc,
    /// `lock_handle`: the server's handle of the granted lock (opaque).
    #[cfg_attr(feature = "serde", serde(rename = "lock_handle"))]
    pub lock_handle: LustreHandle,
    /// `lock_policy_res1`: dispositions.
    #[cfg_attr(feature = "serde", serde(rename = "lock_policy_res1"))]
    pub policy_res1: DispFlags,
    /// `lock_policy_res2`: the intent status (0 for a prepare intent).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lock_policy_res2", with = "crate::json::ints::hex")
    )]
    pub policy_res2: u64,
}

/// The fields of an `ldlm_reply` that the rules read, from a value or straight from the
/// received bytes (see [`LockDescFields`]).
pub(crate) trait LdlmReplyFields {
    /// The lock description, in the same form.
    type Desc: LockDescFields;
    fn lock_desc(&self) -> &Self::Desc;
    fn policy_res1(&self) -> DispFlags;
    fn policy_res2(&self) -> u64;
}

impl LdlmReplyFields for LdlmReply {
    type Desc = LdlmLockDesc;
    #[inline(always)]
    fn lock_desc(&self) -> &LdlmLockDesc {
        &self.lock_desc
    }
    #[inline(always)]
    fn policy_res1(&self) -> DispFlags {
        self.policy_res1
    }
    #[inline(always)]
    fn policy_res2(&self) -> u64 {
        self.policy_res2
    }
}

impl<O: ByteOrder> LdlmReplyFields for LdlmReplyRaw<O> {
    type Desc = LdlmLockDescRaw<O>;
    #[inline(always)]
    fn lock_desc(&self) -> &LdlmLockDescRaw<O> {
        &self.lock_desc
    }
    #[inline(always)]
    fn policy_res1(&self) -> DispFlags {
        DispFlags(self.lock_policy_res1.get())
    }
    #[inline(always)]
    fn policy_res2(&self) -> u64 {
        self.lock_policy_res2.get()
    }
}

impl WireStruct for LdlmReply {
    const NAME: &'static str = "ldlm_reply";
    const SIZE: usize = LDLM_REPLY_SIZE;
    type Raw<O: ByteOrder> = LdlmReplyRaw<O>;
    fn from_raw<O: ByteOrder>(r: &LdlmReplyRaw<O>) -> Self {
        LdlmReply {
            lock_flags: LdlmFlags(r.lock_flags.get()),
            lock_desc: LdlmLockDesc::from_raw(&r.lock_desc),
            lock_handle: LustreHandle::from_bytes(r.lock_handle),
            policy_res1: DispFlags(r.lock_policy_res1.get()),
            policy_res2: r.lock_policy_res2.get(),
        }
    }
    fn to_raw<O: ByteOrder>(&self) -> LdlmReplyRaw<O> {
        LdlmReplyRaw {
            lock_flags: U32::new(self.lock_flags.0),
            lock_padding: U32::ZERO,
            lock_desc: self.lock_desc.to_raw(),
            lock_handle: self.lock_handle.to_bytes(),
            lock_policy_res1: U64::new(self.policy_res1.0),
            lock_policy_res2: U64::new(self.policy_res2),
        }
    }
}

/// `struct ldlm_intent` (8 bytes).
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct LdlmIntentRaw<O: ByteOrder> {
    /// `opc`.
    pub opc: U64<O>,
}
check_layout!(LdlmIntentRaw<LittleEndian>, 8; opc @ 0);

/// `struct ldlm_intent`: which intent buffer 3 onwards carry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LdlmIntent {
    /// The intent opcode (`enum ldlm_intent_flags`).
    #[cfg_attr(feature = "serde", serde(rename = "opc"))]
    pub opc: crate::intent::IntentOpc,
}

impl WireStruct for LdlmIntent {
    const NAME: &'static str = "ldlm_intent";
    const SIZE: usize = 8;
    type Raw<O: ByteOrder> = LdlmIntentRaw<O>;
    fn from_raw<O: ByteOrder>(r: &LdlmIntentRaw<O>) -> Self {
        LdlmIntent {
            opc: crate::intent::IntentOpc(r.opc.get()),
        }
    }
    fn to_raw<O: ByteOrder>(&self) -> LdlmIntentRaw<O> {
        LdlmIntentRaw {
            opc: U64::new(self.opc.0),
        }
    }
}
