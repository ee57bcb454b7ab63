//! The two new fixed structures: `md_create_prepare_req` (request buffer 3) and
//! `md_create_prepare_rep` (reply buffer 2), 80 bytes each (WIRE.md §5, §7).

use super::ResultMask;
use crate::limits::{MLI_BUF_MAX, PREPARE_REP_SIZE, PREPARE_REQ_SIZE};
use crate::wire::raw::LuFidRaw;
use crate::wire::table::wire_struct;
use crate::wire::{LuFid, WireStruct, check_layout};
use zerocopy::byteorder::{U32, U64};
use zerocopy::{ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned};

wire_flags! {
    /// `mcpr_flags`.
    pub struct McprFlags(u32) {
        /// `MCPR_NO_LOOKUP`: object mode; no name, no lookup (rename only).
        const NO_LOOKUP = 0x1, "MCPR_NO_LOOKUP";
        /// `MCPR_GROUPS_PARTIAL`: buffer 5 does not hold all of the caller's groups.
        const GROUPS_PARTIAL = 0x2, "MCPR_GROUPS_PARTIAL";
    }
}

wire_flags! {
    /// `mcpp_flags`.
    pub struct McppFlags(u32) {
        /// `MCPP_LOOKUP_DONE`: the handler looked the name up.
        const LOOKUP_DONE = 0x1, "MCPP_LOOKUP_DONE";
        /// `MCPP_LOOKUP_POS`: and found it (`mcpp_fid` is the entry).
        const LOOKUP_POS = 0x2, "MCPP_LOOKUP_POS";
        /// `MCPP_PERM_DONE`: the permission checks ran.
        const PERM_DONE = 0x4, "MCPP_PERM_DONE";
        /// `MCPP_ADVISORY`: status, PERM_DONE and CHILD_DERIVED rest on incomplete information.
        const ADVISORY = 0x8, "MCPP_ADVISORY";
        /// `MCPP_CHILD_DERIVED`: the new child's mode, gid, projid and flags are filled in.
        const CHILD_DERIVED = 0x10, "MCPP_CHILD_DERIVED";
    }
}

/// `struct md_create_prepare_req`.
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct MdCreatePrepareReqRaw<O: ByteOrder> {
    pub mcpr_fid: LuFidRaw<O>,
    pub mcpr_flags: U32<O>,
    pub mcpr_fsuid: U32<O>,
    pub mcpr_fsgid: U32<O>,
    pub mcpr_umask: U32<O>,
    pub mcpr_cap: U64<O>,
    pub mcpr_child_mode: U32<O>,
    pub mcpr_padding0: U32<O>,
    pub mcpr_buf_limit: [U32<O>; MLI_BUF_MAX],
    pub mcpr_padding1: U64<O>,
}
check_layout!(MdCreatePrepareReqRaw<LittleEndian>, 80;
    mcpr_fid @ 0, mcpr_flags @ 16, mcpr_fsuid @ 20, mcpr_fsgid @ 24, mcpr_umask @ 28,
    mcpr_cap @ 32, mcpr_child_mode @ 40, mcpr_padding0 @ 44, mcpr_buf_limit @ 48,
    mcpr_padding1 @ 72);

/// Offsets of `md_create_prepare_req` fields, for error positions and the C header.
pub mod req_off {
    #![allow(missing_docs)]
    pub const FID: usize = 0;
    pub const FLAGS: usize = 16;
    pub const FSUID: usize = 20;
    pub const FSGID: usize = 24;
    pub const UMASK: usize = 28;
    pub const CAP: usize = 32;
    pub const CHILD_MODE: usize = 40;
    pub const BUF_LIMIT: usize = 48;
}

/// The request body of a prepare intent: who asks, about what, and how much they accept back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct MdCreatePrepareReq {
    /// `mcpr_fid`: the parent (entry mode) or the object (object mode); the lock's FID.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_fid"))]
    pub fid: LuFid,
    /// `mcpr_flags`; unknown bits are kept.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_flags"))]
    pub flags: McprFlags,
    /// `mcpr_fsuid`, already mapped.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_fsuid"))]
    pub fsuid: u32,
    /// `mcpr_fsgid`.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_fsgid"))]
    pub fsgid: u32,
    /// `mcpr_umask` (bits 0o777 only).
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_umask"))]
    pub umask: u32,
    /// `mcpr_cap`: bit n is capability n.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mcpr_cap", with = "crate::json::ints::hex")
    )]
    pub cap: u64,
    /// `mcpr_child_mode`: create's requested mode with S_IFMT, before umask; else 0.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_child_mode"))]
    pub child_mode: u32,
    /// `mcpr_buf_limit[MLI_BUF_MAX]`: most bytes accepted per result, 0 = not requested.
    #[cfg_attr(feature = "serde", serde(rename = "mcpr_buf_limit"))]
    pub buf_limit: [u32; MLI_BUF_MAX],
}

/// The fields of a request body that the rules read, from a value or straight from the
/// received bytes (see [`LockDescFields`](crate::wire::LockDescFields)).
pub(crate) trait PrepareReqFields {
    fn fid(&self) -> LuFid;
    fn flags(&self) -> McprFlags;
    fn umask(&self) -> u32;
    fn child_mode(&self) -> u32;
    fn buf_limit(&self) -> [u32; MLI_BUF_MAX];
    /// True in object mode (`MCPR_NO_LOOKUP`).
    #[inline(always)]
    fn object_mode(&self) -> bool {
        self.flags().contains(McprFlags::NO_LOOKUP)
    }
}

impl PrepareReqFields for MdCreatePrepareReq {
    #[inline(always)]
    fn fid(&self) -> LuFid {
        self.fid
    }
    #[inline(always)]
    fn flags(&self) -> McprFlags {
        self.flags
    }
    #[inline(always)]
    fn umask(&self) -> u32 {
        self.umask
    }
    #[inline(always)]
    fn child_mode(&self) -> u32 {
        self.child_mode
    }
    #[inline(always)]
    fn buf_limit(&self) -> [u32; MLI_BUF_MAX] {
        self.buf_limit
    }
}

impl<O: ByteOrder> PrepareReqFields for MdCreatePrepareReqRaw<O> {
    #[inline(always)]
    fn fid(&self) -> LuFid {
        LuFid::from_raw(&self.mcpr_fid)
    }
    #[inline(always)]
    fn flags(&self) -> McprFlags {
        McprFlags(self.mcpr_flags.get())
    }
    #[inline(always)]
    fn umask(&self) -> u32 {
        self.mcpr_umask.get()
    }
    #[inline(always)]
    fn child_mode(&self) -> u32 {
        self.mcpr_child_mode.get()
    }
    #[inline(always)]
    fn buf_limit(&self) -> [u32; MLI_BUF_MAX] {
        self.mcpr_buf_limit.map(|v| v.get())
    }
}

impl MdCreatePrepareReq {
    /// The results this request asks for.
    pub fn requested(&self) -> ResultMask {
        ResultMask::requested(&self.buf_limit)
    }

    /// True in object mode (`MCPR_NO_LOOKUP`).
    pub const fn object_mode(&self) -> bool {
        self.flags.contains(McprFlags::NO_LOOKUP)
    }
}

impl WireStruct for MdCreatePrepareReq {
    const NAME: &'static str = "md_create_prepare_req";
    const SIZE: usize = PREPARE_REQ_SIZE;
    type Raw<O: ByteOrder> = MdCreatePrepareReqRaw<O>;

    fn from_raw<O: ByteOrder>(r: &MdCreatePrepareReqRaw<O>) -> Self {
        MdCreatePrepareReq {
            fid: LuFid::from_raw(&r.mcpr_fid),
            flags: McprFlags(r.mcpr_flags.get()),
            fsuid: r.mcpr_fsuid.get(),
            fsgid: r.mcpr_fsgid.get(),
            umask: r.mcpr_umask.get(),
            cap: r.mcpr_cap.get(),
            child_mode: r.mcpr_child_mode.get(),
            buf_limit: r.mcpr_buf_limit.map(|v| v.get()),
        }
    }

    fn to_raw<O: ByteOrder>(&self) -> MdCreatePrepareReqRaw<O> {
        MdCreatePrepareReqRaw {
            mcpr_fid: self.fid.to_raw(),
            mcpr_flags: U32::new(self.flags.0),
            mcpr_fsuid: U32::new(self.fsuid),
            mcpr_fsgid: U32::new(self.fsgid),
            mcpr_umask: U32::new(self.umask),
            mcpr_cap: U64::new(self.cap),
            mcpr_child_mode: U32::new(self.child_mode),
            mcpr_padding0: U32::ZERO,
            mcpr_buf_limit: self.buf_limit.map(U32::new),
            mcpr_padding1: U64::ZERO,
        }
    }
}

wire_struct! {
    /// The reply body of a prepare intent: what the parent decided and which results it
    /// returns. Unknown `mcpp_flags` bits are kept.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
    pub struct MdCreatePrepareRep;
    /// `struct md_create_prepare_rep`.
    raw MdCreatePrepareRepRaw;
    c md_create_prepare_rep[PREPARE_REP_SIZE]
        "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue (WIRE.md section 7);\n * an empty buffer 2 is the empty result.";
    impl WireStruct;
    members {
        0 __s32 mcpp_status => status, "0 or the operation's negative errno";
        4 __u32 mcpp_flags => flags: McppFlags, "MCPP_*";
        8 __u32 mcpp_valid => valid: ResultMask, "results known: bit i = MLI_BUF index i";
        12 __u32 mcpp_truncated => truncated: ResultMask, "results over the requester's limit";
        16 struct LuFid mcpp_fid => fid, "entry found by the lookup, zero otherwise";
        32 __u32 mcpp_child_mode => child_mode, "derived child mode, or S_IFMT of the entry found";
        36 __u32 mcpp_child_gid => child_gid, "derived child gid";
        40 __u32 mcpp_child_projid => child_projid, "derived child project id";
        44 __u32 mcpp_child_flags => child_flags, "derived LUSTRE_*_FL of the child";
        48 __u32 mcpp_buf_size[MLI_BUF_MAX] => buf_size, "size of each result on the parent";
        72 __u64 mcpp_padding => _, "zero";
    }
}

#[cfg(test)]
mod tests {
    //! The decoder's rules read the received structs in place; the encoder's read the values.
    //! Both readings must give every field the same value, in either byte order.
    use super::*;
    use crate::wire::raw::{LdlmLockDescRaw, LdlmReplyRaw};
    use crate::wire::{LdlmLockDesc, LdlmReply, LdlmReplyFields, LockDescFields};
    use zerocopy::BigEndian;

    /// Distinct, deterministic bytes (xorshift), so that a field read from the wrong place
    /// differs from the right one.
    fn noise(seed: u64) -> [u8; 112] {
        let mut x = seed | 1;
        core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
    }

    fn desc_fields(d: &impl LockDescFields) -> (u32, [u64; 4], u32, u32, u64) {
        (
            d.lr_type().0,
            d.resource().name,
            d.req_mode().0,
            d.granted_mode().0,
            d.bits().0,
        )
    }

    fn req_fields(b: &impl PrepareReqFields) -> (LuFid, u32, u32, u32, [u32; 6], bool) {
        let f = b.flags();
        (
            b.fid(),
            f.0,
            b.umask(),
            b.child_mode(),
            b.buf_limit(),
            b.object_mode(),
        )
    }

    fn in_place_is_converted<O: ByteOrder>(bytes: &[u8; 112]) {
        let req = MdCreatePrepareReqRaw::<O>::ref_from_prefix(bytes)
            .unwrap()
            .0;
        assert_eq!(
            req_fields(req),
            req_fields(&MdCreatePrepareReq::from_raw(req))
        );
        let desc = LdlmLockDescRaw::<O>::ref_from_prefix(bytes).unwrap().0;
        assert_eq!(
            desc_fields(desc),
            desc_fields(&LdlmLockDesc::from_raw(desc))
        );
        let ldlm = LdlmReplyRaw::<O>::ref_from_prefix(bytes).unwrap().0;
        let value = LdlmReply::from_raw(ldlm);
        assert_eq!(
            (ldlm.policy_res1().0, ldlm.policy_res2()),
            (value.policy_res1.0, value.policy_res2)
        );
        assert_eq!(
            desc_fields(ldlm.lock_desc()),
            desc_fields(value.lock_desc())
        );
    }

    #[test]
    fn fields_in_place_match_the_converted_value() {
        for seed in 1..200 {
            let bytes = noise(seed);
            in_place_is_converted::<LittleEndian>(&bytes);
            in_place_is_converted::<BigEndian>(&bytes);
        }
        // A known field at a known place: mcpp_status is the first four bytes.
        let mut b = [0u8; 112];
        b[..4].copy_from_slice(&(-17i32).to_le_bytes());
        let rep = MdCreatePrepareRepRaw::<LittleEndian>::ref_from_prefix(&b[..])
            .unwrap()
            .0;
        assert_eq!(rep.status(), -17);
    }
}
