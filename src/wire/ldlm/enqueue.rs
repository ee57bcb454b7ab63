//! The structures of an LDLM enqueue: `ldlm_request`, `ldlm_reply` and `ldlm_intent` with its
//! opcodes (`enum ldlm_intent_flags`).

use super::{DispFlags, LdlmFlags, LdlmLockDesc, LdlmLockDescRaw, LustreHandle};
use crate::endian::Endian;
use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::{
    LDLM_INTENT_SIZE, LDLM_LOCKREQ_HANDLES, LDLM_REPLY_SIZE, LDLM_REQUEST_FIXED,
    LDLM_REQUEST_MAX_HANDLES, LDLM_REQUEST_MIN,
};
#[cfg(feature = "alloc")]
use crate::wire::out::Out;
#[cfg(feature = "alloc")]
use crate::wire::table::put_struct;
use crate::wire::table::{WireStruct, c_struct};
use core::fmt;
use zerocopy::byteorder::U32;
use zerocopy::{ByteOrder, FromBytes};

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

/// `struct ldlm_request`: an enqueue. Its value is read and written by hand: the handles
/// past the two every request carries follow the structure.
#[c_struct(ldlm_request, size = LDLM_REQUEST_MIN,
    doc = "A lock enqueue (lustre_idl.h); more lock handles may follow.",
    raw_doc = "`struct ldlm_request` with the [`LDLM_LOCKREQ_HANDLES`] handles every request carries\n(104 bytes); more may follow.",
    convert = none)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LdlmRequest {
    /// LDLM_FL_*
    #[c(0, __u32 lock_flags)]
    pub lock_flags: LdlmFlags,
    /// handles in use: the requester's own and early cancels
    #[c(4, __u32 lock_count)]
    pub lock_count: u32,
    /// the lock asked for
    #[c(8, struct LdlmLockDesc lock_desc)]
    pub lock_desc: LdlmLockDesc,
    /// the lock handles (opaque)
    #[c(88, struct LustreHandle lock_handle[LDLM_LOCKREQ_HANDLES], detail)]
    pub handles: LockHandles,
}
const _: () = assert!(ldlm_request::lock_handle.offset == LDLM_REQUEST_FIXED);

impl LdlmRequest {
    /// Bytes on the wire: 88 + 8 per handle.
    pub fn wire_len(&self) -> usize {
        LDLM_REQUEST_FIXED + LustreHandle::SIZE * self.handles.as_slice().len()
    }

    /// Decodes buffer 1 of a request at offset `base` of the message.
    pub fn decode_buffer(buf: &[u8], order: Endian, base: usize) -> Result<Self, DecodeError> {
        Ok(crate::endian::with_order!(order, |O| {
            LdlmRequestHead::<O>::check_as(buf, base)?.to_request(buf)
        }))
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
        let flags = U32::<O>::new(self.lock_flags.0).to_bytes();
        crate::wire::copy_at(out, at + ldlm_request::lock_flags.offset, &flags);
        let count = U32::<O>::new(self.lock_count).to_bytes();
        crate::wire::copy_at(out, at + ldlm_request::lock_count.offset, &count);
        let desc_at = at + ldlm_request::lock_desc.offset;
        crate::wire::write_at::<_, O>(&self.lock_desc, out, desc_at);
        let mut end = at + ldlm_request::lock_handle.offset;
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
    pub(crate) fn check_as(buf: &'a [u8], base: usize) -> Result<Self, DecodeError> {
        const S: &str = LdlmRequest::LAYOUT.name;
        if buf.len() < LDLM_REQUEST_MIN {
            return Err(DecodeError::too_short(S, base, buf.len(), LDLM_REQUEST_MIN));
        }
        let tail = buf.len() - LDLM_REQUEST_FIXED;
        if !tail.is_multiple_of(8) {
            return Err(DecodeError::new(
                ldlm_request::lock_handle.at(base),
                ErrorKind::BadBufferLength {
                    len: buf.len(),
                    expected: "88 + 8 per lock handle",
                },
            ));
        }
        let nhandles = tail / 8;
        if nhandles > LDLM_REQUEST_MAX_HANDLES {
            return Err(DecodeError::new(
                ldlm_request::lock_handle.at(base),
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
                    need: LDLM_REQUEST_MIN,
                    have: buf.len(),
                },
            ));
        };
        let lock_count = r.lock_count();
        if lock_count as usize > nhandles {
            return Err(DecodeError::new(
                ldlm_request::lock_count.at(base),
                ErrorKind::OverLimit {
                    value: lock_count.into(),
                    max: nhandles as u64,
                },
            ));
        }
        Ok(LdlmRequestHead {
            lock_flags: r.lock_flags(),
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

/// `struct ldlm_reply`: the granted lock and the intent's dispositions.
#[c_struct(ldlm_reply, size = LDLM_REPLY_SIZE,
    doc = "The answer to a lock enqueue (lustre_idl.h).",
    raw_doc = "`struct ldlm_reply` (112 bytes).")]
#[c_member(4, __u32 lock_padding, "padding")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LdlmReply {
    /// LDLM_FL_*
    #[c(0, __u32 lock_flags)]
    pub lock_flags: LdlmFlags,
    /// the granted lock
    #[c(8, struct LdlmLockDesc lock_desc)]
    pub lock_desc: LdlmLockDesc,
    /// the server's handle of the granted lock (opaque)
    #[c(88, struct LustreHandle lock_handle, detail)]
    pub lock_handle: LustreHandle,
    /// DISP_*: the dispositions
    #[c(96, __u64 lock_policy_res1)]
    pub policy_res1: DispFlags,
    /// the intent's status (0 for a prepare intent)
    #[c(104, __u64 lock_policy_res2, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub policy_res2: u64,
}

wire_enum! {
    /// `enum ldlm_intent_flags`: the `ldlm_intent.opc` of an enqueue. The three prepare opcodes
    /// are new; the others are Lustre's, named so that any intent prints readably.
    pub struct IntentOpc(u64) {
        /// `IT_OPEN`.
        const OPEN = 0x1, "IT_OPEN";
        /// `IT_CREAT`.
        const CREAT = 0x2, "IT_CREAT";
        /// `IT_OPEN | IT_CREAT`.
        const OPEN_CREAT = 0x3, "IT_OPEN_CREAT";
        /// `IT_READDIR` (client side only).
        const READDIR = 0x4, "IT_READDIR";
        /// `IT_GETATTR`.
        const GETATTR = 0x8, "IT_GETATTR";
        /// `IT_LOOKUP`.
        const LOOKUP = 0x10, "IT_LOOKUP";
        /// `IT_GETXATTR`.
        const GETXATTR = 0x80, "IT_GETXATTR";
        /// `IT_LAYOUT`.
        const LAYOUT = 0x400, "IT_LAYOUT";
        /// `IT_QUOTA_DQACQ`.
        const QUOTA_DQACQ = 0x800, "IT_QUOTA_DQACQ";
        /// `IT_QUOTA_CONN`.
        const QUOTA_CONN = 0x1000, "IT_QUOTA_CONN";
        /// `IT_GLIMPSE`.
        const GLIMPSE = 0x4000, "IT_GLIMPSE";
        /// `IT_BRW`.
        const BRW = 0x8000, "IT_BRW";
        /// `IT_DNE_CREATE_PREPARE`: create and mkdir, entry mode.
        const DNE_CREATE_PREPARE = 0x0001_0000, "IT_DNE_CREATE_PREPARE";
        /// `IT_DNE_RENAME_PREPARE`: rename, entry mode or object mode.
        const DNE_RENAME_PREPARE = 0x0002_0000, "IT_DNE_RENAME_PREPARE";
        /// `IT_DNE_UNLINK_PREPARE`: unlink and rmdir, entry mode.
        const DNE_UNLINK_PREPARE = 0x0004_0000, "IT_DNE_UNLINK_PREPARE";
    }
}

/// `struct ldlm_intent`: which intent buffer 3 onwards carry.
#[c_struct(ldlm_intent, size = LDLM_INTENT_SIZE,
    doc = "The intent of an enqueue (lustre_idl.h).",
    raw_doc = "`struct ldlm_intent` (8 bytes).")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LdlmIntent {
    /// IT_*: the intent (enum ldlm_intent_flags)
    #[c(0, __u64 opc, enum)]
    pub opc: IntentOpc,
}
