//! LDLM enqueue structures (WIRE.md §3): resource names, inodebits policy, lock descriptors,
//! `ldlm_request`, `ldlm_reply` and `ldlm_intent`. This file holds what names and describes a
//! lock; the enqueue messages' own structures are in `enqueue.rs`.

mod enqueue;

pub use enqueue::{LdlmIntent, LdlmIntentRaw, LdlmReply, LdlmReplyRaw, LdlmRequest};
pub(crate) use enqueue::{LdlmReplyFields, LdlmRequestHead};
pub use enqueue::{LdlmRequestRaw, LockHandles};

use super::table::{Field, FieldType, Layout};
use super::{LuFid, WireStruct, check_layout};
use core::fmt;
use zerocopy::byteorder::{U32, U64};
use zerocopy::{ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned};

/// `struct lustre_handle`: an opaque cookie. It is never byte-swapped, so its value here is the
/// 8 bytes read as little-endian whatever the message's order, and written back the same way.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LustreHandle(pub u64);

impl LustreHandle {
    /// The handle of raw bytes.
    pub const fn from_bytes(b: [u8; 8]) -> Self {
        LustreHandle(u64::from_le_bytes(b))
    }
    /// The raw bytes of the handle.
    pub const fn to_bytes(self) -> [u8; 8] {
        self.0.to_le_bytes()
    }
}

/// `struct lustre_handle`: its raw layout is the 8 bytes themselves, the same in either byte
/// order (Lustre never swabs a handle).
impl WireStruct for LustreHandle {
    const NAME: &'static str = Self::LAYOUT.name;
    const SIZE: usize = Self::LAYOUT.size;
    type Raw<O: ByteOrder> = [u8; 8];

    #[inline(always)]
    fn from_raw<O: ByteOrder>(raw: &[u8; 8]) -> Self {
        Self::from_bytes(*raw)
    }

    #[inline(always)]
    fn to_raw<O: ByteOrder>(&self) -> [u8; 8] {
        self.to_bytes()
    }
}

impl LustreHandle {
    /// `struct lustre_handle`: one opaque 64-bit cookie.
    pub const LAYOUT: &'static Layout = &Layout {
        name: "lustre_handle",
        size: 8,
        doc: "An opaque handle (lustre_idl.h), never byte-swapped.",
        fields: &[Field {
            name: "cookie",
            rust: Some("0"),
            offset: 0,
            size: 8,
            ty: FieldType::U64,
            array: None,
            names: None,
            doc: "the handle, read as little-endian whatever the message's order",
        }],
    };
}

impl fmt::Debug for LustreHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LustreHandle({:#x})", self.0)
    }
}

wire_enum! {
    /// `ldlm_type` (`lr_type`).
    pub struct LockType(u32) {
        /// `LDLM_PLAIN`.
        const PLAIN = 10, "LDLM_PLAIN";
        /// `LDLM_EXTENT`.
        const EXTENT = 11, "LDLM_EXTENT";
        /// `LDLM_FLOCK`.
        const FLOCK = 12, "LDLM_FLOCK";
        /// `LDLM_IBITS`: the only type a prepare intent uses.
        const IBITS = 13, "LDLM_IBITS";
    }
}

wire_enum! {
    /// `ldlm_mode`.
    pub struct LockMode(u32) {
        /// No mode (`LCK_MODE_MIN`), e.g. not yet granted.
        const NONE = 0, "LCK_MINMODE";
        /// Exclusive.
        const EX = 1, "LCK_EX";
        /// Protected write.
        const PW = 2, "LCK_PW";
        /// Protected read.
        const PR = 4, "LCK_PR";
        /// Concurrent write.
        const CW = 8, "LCK_CW";
        /// Concurrent read.
        const CR = 16, "LCK_CR";
        /// Null.
        const NL = 32, "LCK_NL";
        /// Group.
        const GROUP = 64, "LCK_GROUP";
        /// Commit-on-sharing.
        const COS = 128, "LCK_COS";
        /// Transaction.
        const TXN = 256, "LCK_TXN";
    }
}

impl LockMode {
    /// The six modes a client asks for, strongest first (WIRE.md W3.2).
    pub const CLIENT: [LockMode; 6] = [
        LockMode::EX,
        LockMode::PW,
        LockMode::PR,
        LockMode::CW,
        LockMode::CR,
        LockMode::NL,
    ];

    /// True for the six modes a client asks for ([`LockMode::CLIENT`]). Lustre's enqueue also
    /// takes GROUP, COS and TXN, which no inodebits intent asks for.
    pub const fn is_client_mode(self) -> bool {
        // One bit per mode: a shift and a test, no comparison chain.
        const MODES: u64 = {
            let mut bits = 0u64;
            let mut i = 0;
            while i < LockMode::CLIENT.len() {
                bits |= 1 << LockMode::CLIENT[i].0;
                i += 1;
            }
            bits
        };
        self.0 < u64::BITS && (MODES >> self.0) & 1 == 1
    }
}

#[cfg(test)]
mod mode_tests {
    use super::LockMode;

    #[test]
    fn client_modes_are_the_six() {
        let six = [1, 2, 4, 8, 16, 32];
        for m in (0..=4096).chain([63, 64, 65, u32::MAX / 2 + 1, u32::MAX]) {
            assert_eq!(LockMode(m).is_client_mode(), six.contains(&m), "{m}");
        }
    }
}

wire_flags! {
    /// The low 32 bits of the LDLM lock flags, as they go on the wire.
    pub struct LdlmFlags(u32) {
        /// `LDLM_FL_LOCK_CHANGED`.
        const LOCK_CHANGED = 0x1, "LOCK_CHANGED";
        /// `LDLM_FL_BLOCK_GRANTED`.
        const BLOCK_GRANTED = 0x2, "BLOCK_GRANTED";
        /// `LDLM_FL_BLOCK_WAIT`.
        const BLOCK_WAIT = 0x8, "BLOCK_WAIT";
        /// `LDLM_FL_SPECULATIVE`.
        const SPECULATIVE = 0x10, "SPECULATIVE";
        /// `LDLM_FL_AST_SENT`.
        const AST_SENT = 0x20, "AST_SENT";
        /// `LDLM_FL_REPLAY`.
        const REPLAY = 0x100, "REPLAY";
        /// `LDLM_FL_INTENT_ONLY`.
        const INTENT_ONLY = 0x200, "INTENT_ONLY";
        /// `LDLM_FL_HAS_INTENT`: buffer 2 holds an `ldlm_intent`.
        const HAS_INTENT = 0x1000, "HAS_INTENT";
        /// `LDLM_FL_FLOCK_DEADLOCK`.
        const FLOCK_DEADLOCK = 0x8000, "FLOCK_DEADLOCK";
        /// `LDLM_FL_DISCARD_DATA`.
        const DISCARD_DATA = 0x10000, "DISCARD_DATA";
        /// `LDLM_FL_BLOCK_NOWAIT`.
        const BLOCK_NOWAIT = 0x40000, "BLOCK_NOWAIT";
        /// `LDLM_FL_TEST_LOCK`.
        const TEST_LOCK = 0x80000, "TEST_LOCK";
        /// `LDLM_FL_CANCEL_ON_BLOCK`.
        const CANCEL_ON_BLOCK = 0x800000, "CANCEL_ON_BLOCK";
        /// `LDLM_FL_NO_EXPANSION`.
        const NO_EXPANSION = 0x20000000, "NO_EXPANSION";
        /// `LDLM_FL_DENY_ON_CONTENTION`.
        const DENY_ON_CONTENTION = 0x40000000, "DENY_ON_CONTENTION";
        /// `LDLM_FL_AST_DISCARD_DATA`.
        const AST_DISCARD_DATA = 0x80000000, "AST_DISCARD_DATA";
    }
}

impl LdlmFlags {
    /// `LDLM_FL_WIRE_REQ_FLAGS_MASK`: the flags a request may carry; `ldlm_handle_enqueue` fails
    /// any other with -EPROTO (`lustre/include/lustre_dlm_flags.h`, `lustre/ldlm/ldlm_lockd.c`).
    pub const WIRE_REQ_FLAGS_MASK: LdlmFlags = LdlmFlags(
        Self::BLOCK_GRANTED.0
            | Self::BLOCK_WAIT.0
            | Self::SPECULATIVE.0
            | Self::REPLAY.0
            | Self::INTENT_ONLY.0
            | Self::HAS_INTENT.0
            | Self::BLOCK_NOWAIT.0
            | Self::TEST_LOCK.0
            | Self::CANCEL_ON_BLOCK.0
            | Self::NO_EXPANSION.0
            | Self::DENY_ON_CONTENTION.0
            | Self::AST_DISCARD_DATA.0,
    );
    /// The flags a prepare-intent enqueue may carry (WIRE.md §5): Lustre's request mask but
    /// `REPLAY`, with which the server skips the intent (`ldlm_lock_enqueue` runs no policy
    /// during replay), and `INTENT_ONLY`, with which it destroys the lock after the intent, where
    /// this protocol always grants it.
    pub const PREPARE_REQ_FLAGS: LdlmFlags =
        LdlmFlags(Self::WIRE_REQ_FLAGS_MASK.0 & !(Self::REPLAY.0 | Self::INTENT_ONLY.0));
}

wire_flags! {
    /// `MDS_INODELOCK_*` inode bits.
    pub struct InodeBits(u64) {
        /// `MDS_INODELOCK_LOOKUP`.
        const LOOKUP = 0x1, "LOOKUP";
        /// `MDS_INODELOCK_UPDATE`: required for a prepare intent.
        const UPDATE = 0x2, "UPDATE";
        /// `MDS_INODELOCK_OPEN`.
        const OPEN = 0x4, "OPEN";
        /// `MDS_INODELOCK_LAYOUT`.
        const LAYOUT = 0x8, "LAYOUT";
        /// `MDS_INODELOCK_PERM`.
        const PERM = 0x10, "PERM";
        /// `MDS_INODELOCK_XATTR`.
        const XATTR = 0x20, "XATTR";
        /// `MDS_INODELOCK_DOM`.
        const DOM = 0x40, "DOM";
    }
}

wire_flags! {
    /// `enum lustre_disposition`, carried in `ldlm_reply.lock_policy_res1`.
    pub struct DispFlags(u64) {
        /// `DISP_IT_EXECD`: the intent was executed.
        const IT_EXECD = 0x1, "DISP_IT_EXECD";
        /// `DISP_LOOKUP_EXECD`: a lookup ran.
        const LOOKUP_EXECD = 0x2, "DISP_LOOKUP_EXECD";
        /// `DISP_LOOKUP_NEG`: the name was not found.
        const LOOKUP_NEG = 0x4, "DISP_LOOKUP_NEG";
        /// `DISP_LOOKUP_POS`: the name was found.
        const LOOKUP_POS = 0x8, "DISP_LOOKUP_POS";
        /// `DISP_OPEN_CREATE`.
        const OPEN_CREATE = 0x10, "DISP_OPEN_CREATE";
        /// `DISP_OPEN_OPEN`.
        const OPEN_OPEN = 0x20, "DISP_OPEN_OPEN";
    }
}

/// `struct ldlm_res_id` (32 bytes).
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
pub struct LdlmResIdRaw<O: ByteOrder> {
    /// `name[4]`.
    pub name: [U64<O>; 4],
}
check_layout!(LdlmResIdRaw<LittleEndian>, 32; name @ 0);

/// An LDLM resource name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LdlmResId {
    /// `name[4]`: FID seq, (ver << 32 | oid), 0, name hash (0 for a whole-object lock).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "name", with = "crate::json::ints::hex_array")
    )]
    pub name: [u64; 4],
}

impl LdlmResId {
    /// The resource of a FID, with an optional name hash (`name[3]`).
    pub const fn of_fid(fid: LuFid, name_hash: u64) -> Self {
        let [a, b] = fid.res_name();
        LdlmResId {
            name: [a, b, 0, name_hash],
        }
    }
    /// The FID this resource names.
    pub const fn fid(&self) -> LuFid {
        LuFid::from_res_name(self.name[0], self.name[1])
    }
}

impl WireStruct for LdlmResId {
    const NAME: &'static str = "ldlm_res_id";
    const SIZE: usize = 32;
    type Raw<O: ByteOrder> = LdlmResIdRaw<O>;
    fn from_raw<O: ByteOrder>(r: &LdlmResIdRaw<O>) -> Self {
        LdlmResId {
            name: r.name.map(|v| v.get()),
        }
    }
    fn to_raw<O: ByteOrder>(&self) -> LdlmResIdRaw<O> {
        LdlmResIdRaw {
            name: self.name.map(U64::new),
        }
    }
}

/// `struct ldlm_inodebits` (32 bytes), the policy of an IBITS lock.
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct LdlmInodebitsRaw<O: ByteOrder> {
    pub bits: U64<O>,
    pub try_bits: U64<O>,
    pub li_gid: U64<O>,
    pub li_padding: U32<O>,
    pub li_initiator_id: U32<O>,
}
check_layout!(LdlmInodebitsRaw<LittleEndian>, 32;
    bits @ 0, try_bits @ 8, li_gid @ 16, li_padding @ 24, li_initiator_id @ 28);

/// The inodebits policy of a lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LdlmInodebits {
    /// Bits to lock.
    #[cfg_attr(feature = "serde", serde(rename = "bits"))]
    pub bits: InodeBits,
    /// Optional bits to try (`cancel_bits` in a convert).
    #[cfg_attr(feature = "serde", serde(rename = "try_bits"))]
    pub try_bits: InodeBits,
    /// `li_gid`: group lock id.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "li_gid", with = "crate::json::ints::hex")
    )]
    pub gid: u64,
    /// `li_initiator_id`: index of the MDT that started the lock.
    #[cfg_attr(feature = "serde", serde(rename = "li_initiator_id"))]
    pub initiator_id: u32,
}

impl WireStruct for LdlmInodebits {
    const NAME: &'static str = "ldlm_inodebits";
    const SIZE: usize = 32;
    type Raw<O: ByteOrder> = LdlmInodebitsRaw<O>;
    fn from_raw<O: ByteOrder>(r: &LdlmInodebitsRaw<O>) -> Self {
        LdlmInodebits {
            bits: InodeBits(r.bits.get()),
            try_bits: InodeBits(r.try_bits.get()),
            gid: r.li_gid.get(),
            initiator_id: r.li_initiator_id.get(),
        }
    }
    fn to_raw<O: ByteOrder>(&self) -> LdlmInodebitsRaw<O> {
        LdlmInodebitsRaw {
            bits: U64::new(self.bits.0),
            try_bits: U64::new(self.try_bits.0),
            li_gid: U64::new(self.gid),
            li_padding: U32::ZERO,
            li_initiator_id: U32::new(self.initiator_id),
        }
    }
}

/// `struct ldlm_lock_desc` (80 bytes), with `ldlm_resource_desc` inlined.
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct LdlmLockDescRaw<O: ByteOrder> {
    pub lr_type: U32<O>,
    pub lr_pad: U32<O>,
    pub lr_name: LdlmResIdRaw<O>,
    pub l_req_mode: U32<O>,
    pub l_granted_mode: U32<O>,
    pub l_policy_data: LdlmInodebitsRaw<O>,
}
check_layout!(LdlmLockDescRaw<LittleEndian>, 80;
    lr_type @ 0, lr_pad @ 4, lr_name @ 8, l_req_mode @ 40, l_granted_mode @ 44, l_policy_data @ 48);

/// A lock descriptor: resource, modes and (inodebits) policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LdlmLockDesc {
    /// `l_resource.lr_type`.
    #[cfg_attr(feature = "serde", serde(rename = "lr_type"))]
    pub lr_type: LockType,
    /// `l_resource.lr_name`.
    #[cfg_attr(feature = "serde", serde(rename = "lr_name"))]
    pub resource: LdlmResId,
    /// `l_req_mode`.
    #[cfg_attr(feature = "serde", serde(rename = "l_req_mode"))]
    pub req_mode: LockMode,
    /// `l_granted_mode`.
    #[cfg_attr(feature = "serde", serde(rename = "l_granted_mode"))]
    pub granted_mode: LockMode,
    /// `l_policy_data`, read as inodebits (the union's three members share this layout).
    #[cfg_attr(feature = "serde", serde(rename = "l_policy_data"))]
    pub policy: LdlmInodebits,
}

/// The fields of a lock description that the rules read, from a value or straight from the
/// received bytes: a decoder checks the wire struct in place instead of converting it first.
pub(crate) trait LockDescFields {
    fn lr_type(&self) -> LockType;
    fn resource(&self) -> LdlmResId;
    fn req_mode(&self) -> LockMode;
    fn granted_mode(&self) -> LockMode;
    fn bits(&self) -> InodeBits;
}

impl LockDescFields for LdlmLockDesc {
    #[inline(always)]
    fn lr_type(&self) -> LockType {
        self.lr_type
    }
    #[inline(always)]
    fn resource(&self) -> LdlmResId {
        self.resource
    }
    #[inline(always)]
    fn req_mode(&self) -> LockMode {
        self.req_mode
    }
    #[inline(always)]
    fn granted_mode(&self) -> LockMode {
        self.granted_mode
    }
    #[inline(always)]
    fn bits(&self) -> InodeBits {
        self.policy.bits
    }
}

impl<O: ByteOrder> LockDescFields for LdlmLockDescRaw<O> {
    #[inline(always)]
    fn lr_type(&self) -> LockType {
        LockType(self.lr_type.get())
    }
    #[inline(always)]
    fn resource(&self) -> LdlmResId {
        LdlmResId::from_raw(&self.lr_name)
    }
    #[inline(always)]
    fn req_mode(&self) -> LockMode {
        LockMode(self.l_req_mode.get())
    }
    #[inline(always)]
    fn granted_mode(&self) -> LockMode {
        LockMode(self.l_granted_mode.get())
    }
    #[inline(always)]
    fn bits(&self) -> InodeBits {
        InodeBits(self.l_policy_data.bits.get())
    }
}

impl WireStruct for LdlmLockDesc {
    const NAME: &'static str = "ldlm_lock_desc";
    const SIZE: usize = 80;
    type Raw<O: ByteOrder> = LdlmLockDescRaw<O>;
    fn from_raw<O: ByteOrder>(r: &LdlmLockDescRaw<O>) -> Self {
        LdlmLockDesc {
            lr_type: LockType(r.lr_type.get()),
            resource: LdlmResId::from_raw(&r.lr_name),
            req_mode: LockMode(r.l_req_mode.get()),
            granted_mode: LockMode(r.l_granted_mode.get()),
            policy: LdlmInodebits::from_raw(&r.l_policy_data),
        }
    }
    fn to_raw<O: ByteOrder>(&self) -> LdlmLockDescRaw<O> {
        LdlmLockDescRaw {
            lr_type: U32::new(self.lr_type.0),
            lr_pad: U32::ZERO,
            lr_name: self.resource.to_raw(),
            l_req_mode: U32::new(self.req_mode.0),
            l_granted_mode: U32::new(self.granted_mode.0),
            l_policy_data: self.policy.to_raw(),
        }
    }
}
