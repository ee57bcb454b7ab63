//! LDLM enqueue structures (WIRE.md §3): resource names, inodebits policy, lock descriptors,
//! `ldlm_request`, `ldlm_reply` and `ldlm_intent`. This file holds what names and describes a
//! lock; the enqueue messages' own structures are in `enqueue.rs`.

mod enqueue;

pub(crate) use enqueue::LdlmRequestHead;
pub use enqueue::{
    IntentOpc, LdlmIntent, LdlmIntentRaw, LdlmReply, LdlmReplyRaw, LdlmRequest, LdlmRequestRaw,
    LockHandles, ldlm_intent, ldlm_reply, ldlm_request,
};

use super::fid::LuFid;
use super::table::{Display, Field, FieldType, Layout, Shown, WireStruct, c_struct};
use crate::limits::RES_NAME_SIZE;
use core::fmt;
use zerocopy::ByteOrder;

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
    const LAYOUT: &'static Layout = LustreHandle::LAYOUT;
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
            display: Display::Hex,
            shown: Shown::Always,
            index_names: &[],
            zero: None,
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

/// An LDLM resource name.
#[c_struct(
    ldlm_res_id,
    size = 32,
    doc = "A lock's resource name (lustre_idl.h).",
    raw_doc = "`struct ldlm_res_id` (32 bytes)."
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LdlmResId {
    /// FID seq, (ver << 32 | oid), 0, name hash (0 for a whole-object lock)
    #[c(0, __u64 name[RES_NAME_SIZE], hex)]
    #[cfg_attr(
        feature = "serde",
        serde(with = "crate::serde_helpers::ints::hex_array")
    )]
    pub name: [u64; RES_NAME_SIZE],
}

impl LdlmResId {
    /// The resource of a FID, with an optional name hash (`name[3]`).
    pub const fn of_fid(fid: LuFid, name_hash: u64) -> Self {
        let [a, b] = fid.res_name();
        LdlmResId {
            name: [a, b, 0, name_hash],
        }
    }
    /// The name-hash (PDO) lock resource of entry `name` in directory `parent`:
    /// [`of_fid`](Self::of_fid) with [`name_hash`](crate::intent::name_hash) of the name.
    pub const fn of_name(parent: LuFid, name: &[u8]) -> Self {
        Self::of_fid(parent, crate::intent::name_hash(name))
    }
    /// The FID this resource names.
    pub const fn fid(&self) -> LuFid {
        LuFid::from_res_name(self.name[0], self.name[1])
    }
}

/// The inodebits policy of a lock.
#[c_struct(
    ldlm_inodebits,
    size = 32,
    doc = "The policy of an inodebits lock (lustre_idl.h).",
    raw_doc = "`struct ldlm_inodebits` (32 bytes), the policy of an IBITS lock."
)]
#[c_member(24, __u32 li_padding, "padding")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LdlmInodebits {
    /// MDS_INODELOCK_* bits to lock
    #[c(0, __u64 bits)]
    pub bits: InodeBits,
    /// optional bits to try (cancel_bits in a convert)
    #[c(8, __u64 try_bits, detail)]
    pub try_bits: InodeBits,
    /// group lock id
    #[c(16, __u64 li_gid, hex, detail)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub gid: u64,
    /// index of the MDT that started the lock
    #[c(28, __u32 li_initiator_id, detail)]
    pub initiator_id: u32,
}

/// A lock descriptor: resource, modes and (inodebits) policy.
#[c_struct(
    ldlm_lock_desc,
    size = 80,
    doc = "A lock's description (lustre_idl.h), its ldlm_resource_desc l_resource inlined.",
    raw_doc = "`struct ldlm_lock_desc` (80 bytes), with `ldlm_resource_desc` inlined."
)]
#[c_member(4, __u32 lr_pad in l_resource, "padding")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LdlmLockDesc {
    /// LDLM_*: the lock's type
    #[c(0, __u32 lr_type in l_resource, enum)]
    pub lr_type: LockType,
    /// the resource
    #[c(8, struct LdlmResId lr_name in l_resource)]
    pub resource: LdlmResId,
    /// the mode asked for
    #[c(40, __u32 l_req_mode, enum)]
    pub req_mode: LockMode,
    /// the mode granted
    #[c(44, __u32 l_granted_mode, enum)]
    pub granted_mode: LockMode,
    /// the policy, read as inodebits (the union's three members share this layout)
    #[c(48, struct LdlmInodebits l_policy_data)]
    pub policy: LdlmInodebits,
}
