//! A directory's default file layout, `trusted.lov` (WIRE.md §9, lustre-wire.md §5):
//! `lov_user_md_v1`, `lov_user_md_v3` (also with LOV_MAGIC_SPECIFIC), the composite
//! `lov_comp_md_v1` whose components are each one of those or a foreign layout, and
//! `lov_foreign_md`.
//!
//! A `lmm_stripe_count` in 0xffe0..=0xffff means "default/all" and stands for no objects;
//! any other count is at most [`LOV_MAX_STRIPE_COUNT`]. A plain layout is accepted as a template
//! (header only) or with one `lov_user_ost_data_v1` per stripe; a component that is not
//! instantiated may also hold the one placeholder entry Lustre writes (`l_ost_idx` =
//! [`LOV_OST_IDX_NONE`]). `LOV_MAGIC_SEL`, the on-disk magic of a layout with a self-extending
//! component, is read as a composite and kept.

pub use super::lov_text::GetStripe;
pub use super::unions::{LayoutOf, LmmMember, LmmUnion, OstIdForm};
use super::{ForeignView, Le32, PoolName, bad_magic, check_xattr_size, err, truncated};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::LOV_MAX_STRIPE_COUNT;

use zerocopy::byteorder::{U16, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned};

const LOV_S: &str = "lov_user_md";
const LOV_V1_S: &str = "lov_user_md_v1";
const LOV_V3_S: &str = "lov_user_md_v3";
const COMP_S: &str = "lov_comp_md_v1";
const ENTRY_S: &str = "lov_comp_md_entry_v1";
const FOREIGN_S: &str = "lov_foreign_md";

/// `LOV_MAGIC_V1` (= `LOV_USER_MAGIC_V1`).
pub const LOV_MAGIC_V1: u32 = 0x0BD1_0BD0;
/// `LOV_MAGIC_V3`: V1 plus a pool name.
pub const LOV_MAGIC_V3: u32 = 0x0BD3_0BD0;
/// `LOV_MAGIC_SPECIFIC`: the V3 layout with an explicit OST list.
pub const LOV_MAGIC_SPECIFIC: u32 = 0x0BD5_0BD0;
/// `LOV_MAGIC_COMP_V1`: a composite layout.
pub const LOV_MAGIC_COMP_V1: u32 = 0x0BD6_0BD0;
/// `LOV_MAGIC_FOREIGN`.
pub const LOV_MAGIC_FOREIGN: u32 = 0x0BD7_0BD0;
/// `LOV_MAGIC_SEL`: the on-disk magic of a composite layout with a self-extending (SEL)
/// component; the MDT sends it as [`LOV_MAGIC_COMP_V1`] (`lod_xattr_get`).
pub const LOV_MAGIC_SEL: u32 = 0x0BD8_0BD0;
/// `LOV_ALL_STRIPES_WIDE`: the first of the "default/all" stripe counts.
pub const LOV_ALL_STRIPES_WIDE: u16 = 0xffe0;
/// `LOV_ALL_STRIPES`.
pub const LOV_ALL_STRIPES: u16 = 0xffff;

const KNOWN: [u32; 6] = [
    LOV_MAGIC_V1,
    LOV_MAGIC_V3,
    LOV_MAGIC_SPECIFIC,
    LOV_MAGIC_COMP_V1,
    LOV_MAGIC_FOREIGN,
    LOV_MAGIC_SEL,
];

/// `l_ost_idx` of the one placeholder entry Lustre writes for a component that is not
/// instantiated yet (`lod_lov.c`: the entry's index starts as `(__u32)-1`).
pub const LOV_OST_IDX_NONE: u32 = u32::MAX;

/// `FID_SEQ_LOV_DEFAULT`: the `oi_seq` of a layout the MDT made up from the file system's
/// defaults.
pub const FID_SEQ_LOV_DEFAULT: u64 = u64::MAX;

/// The number of objects a `lmm_stripe_count` stands for: 0 for the "default/all" values
/// 0xffe0..=0xffff, else the count itself.
pub const fn stripe_objects(stripe_count: u16) -> usize {
    if stripe_count >= LOV_ALL_STRIPES_WIDE {
        0
    } else {
        stripe_count as usize
    }
}

wire_flags! {
    /// `lmm_pattern` (`LOV_PATTERN_*`), by `lfs` name. `LOV_PATTERN_DEFAULT` is 0xffffffff.
    pub struct LovPattern(u32) {
        /// `LOV_PATTERN_RAID0`.
        const RAID0 = 0x1, "raid0";
        /// `LOV_PATTERN_RAID1`.
        const RAID1 = 0x2, "raid1";
        /// `LOV_PATTERN_PARITY`.
        const PARITY = 0x4, "parity";
        /// `LOV_PATTERN_MDT` (Data-on-MDT).
        const MDT = 0x100, "mdt";
        /// `LOV_PATTERN_OVERSTRIPING`.
        const OVERSTRIPING = 0x200, "overstriped";
        /// `LOV_PATTERN_FOREIGN`.
        const FOREIGN = 0x400, "foreign";
        /// `LOV_PATTERN_COMPRESS`.
        const COMPRESS = 0x800, "compress";
        /// `LOV_PATTERN_F_HOLE`.
        const F_HOLE = 0x4000_0000, "hole";
        /// `LOV_PATTERN_F_RELEASED`.
        const F_RELEASED = 0x8000_0000, "released";
    }
}

impl LovPattern {
    /// `LOV_PATTERN_DEFAULT`.
    pub const DEFAULT: LovPattern = LovPattern(0xffff_ffff);
}

wire_flags! {
    /// `lcme_flags` (`LCME_FL_*`), by `lfs` name.
    pub struct LcmeFlags(u32) {
        /// `LCME_FL_STALE`.
        const STALE = 0x1, "stale";
        /// `LCME_FL_PREF_RD`.
        const PREF_RD = 0x2, "prefrd";
        /// `LCME_FL_PREF_WR`.
        const PREF_WR = 0x4, "prefwr";
        /// `LCME_FL_OFFLINE`.
        const OFFLINE = 0x8, "offline";
        /// `LCME_FL_INIT`.
        const INIT = 0x10, "init";
        /// `LCME_FL_NOSYNC`.
        const NOSYNC = 0x20, "nosync";
        /// `LCME_FL_EXTENSION`.
        const EXTENSION = 0x40, "extension";
        /// `LCME_FL_PARITY`.
        const PARITY = 0x80, "parity";
        /// `LCME_FL_COMPRESS`.
        const COMPRESS = 0x100, "compress";
        /// `LCME_FL_PARTIAL`.
        const PARTIAL = 0x200, "partial";
        /// `LCME_FL_NOCOMPR`.
        const NOCOMPR = 0x400, "nocompr";
        /// `LCME_FL_IS_LINK_ID`.
        const IS_LINK_ID = 0x4000_0000, "is_link_id";
        /// `LCME_FL_NEG` (never on disk).
        const NEG = 0x8000_0000, "neg";
    }
}

wire_flags! {
    /// `lcm_flags` (`LCM_FL_*`): the FLR state (values of `LCM_FL_FLR_MASK`) and PCC_RDONLY.
    pub struct LcmFlags(u16) {
        /// `LCM_FL_SYNC_PENDING` (state 3).
        const SYNC_PENDING = 3, "sp";
        /// `LCM_FL_RDONLY` (state 1).
        const RDONLY = 1, "ro";
        /// `LCM_FL_WRITE_PENDING` (state 2).
        const WRITE_PENDING = 2, "wp";
        /// `LCM_FL_PCC_RDONLY`.
        const PCC_RDONLY = 8, "pcc_ro";
    }
}

/// `struct ost_id` (16 bytes): `oi_id`/`oi_seq`, or a FID.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct OstIdRaw {
    /// `oi.oi_id` (the first 8 bytes; `oi_fid.f_seq` of the FID form).
    pub oi_id: U64<LittleEndian>,
    /// `oi.oi_seq` (`f_oid` and `f_ver` of the FID form).
    pub oi_seq: U64<LittleEndian>,
}
crate::wire::check_layout!(OstIdRaw, 16; oi_id @ 0, oi_seq @ 8);

/// An object id (`struct ost_id`), kept as its two 64-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct OstId {
    /// `oi_id` (bytes 0–7).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "oi_id", with = "crate::json::ints::hex")
    )]
    pub id: u64,
    /// `oi_seq` (bytes 8–15).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "oi_seq", with = "crate::json::ints::hex")
    )]
    pub seq: u64,
}

impl OstId {
    fn from_raw(r: &OstIdRaw) -> Self {
        OstId {
            id: r.oi_id.get(),
            seq: r.oi_seq.get(),
        }
    }
    /// The same 16 bytes read as a FID (`oi_fid`): `f_seq` is bytes 0–7.
    pub const fn as_fid(&self) -> crate::wire::LuFid {
        crate::wire::LuFid::new(self.id, self.seq as u32, (self.seq >> 32) as u32)
    }
}

/// `struct lov_user_md_v1` (32 bytes, packed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct LovUserMdV1Raw {
    /// `lmm_magic`.
    pub lmm_magic: Le32,
    /// `lmm_pattern`.
    pub lmm_pattern: Le32,
    /// `lmm_oi`.
    pub lmm_oi: OstIdRaw,
    /// `lmm_stripe_size`.
    pub lmm_stripe_size: Le32,
    /// `lmm_stripe_count`.
    pub lmm_stripe_count: U16<LittleEndian>,
    /// `lmm_stripe_offset` (union with `lmm_layout_gen`).
    pub lmm_stripe_offset: U16<LittleEndian>,
}
crate::wire::check_layout!(LovUserMdV1Raw, 32;
    lmm_magic @ 0, lmm_pattern @ 4, lmm_oi @ 8, lmm_stripe_size @ 24, lmm_stripe_count @ 28,
    lmm_stripe_offset @ 30);

/// `struct lov_user_md_v3` (48 bytes, packed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct LovUserMdV3Raw {
    /// The V1 fields.
    pub v1: LovUserMdV1Raw,
    /// `lmm_pool_name`.
    pub lmm_pool_name: PoolName,
}
crate::wire::check_layout!(LovUserMdV3Raw, 48; v1 @ 0, lmm_pool_name @ 32);

/// `struct lov_user_ost_data_v1` (24 bytes, packed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct LovUserOstDataRaw {
    /// `l_ost_oi`.
    pub l_ost_oi: OstIdRaw,
    /// `l_ost_gen`.
    pub l_ost_gen: Le32,
    /// `l_ost_idx`.
    pub l_ost_idx: Le32,
}
crate::wire::check_layout!(LovUserOstDataRaw, 24; l_ost_oi @ 0, l_ost_gen @ 16, l_ost_idx @ 20);

/// One stripe object of a plain layout. Its serde form adds, after the raw words, what
/// `lfs` shows of them: `"ostid"` (the [`OstIdForm`] and `ostid_seq()`/`ostid_id()`) and
/// `"fid"` (`ostid_to_fid()`, or null); on input they are optional and checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LovOstData {
    /// `l_ost_oi`.
    pub oi: OstId,
    /// `l_ost_gen`.
    pub gen_: u32,
    /// `l_ost_idx`.
    pub idx: u32,
}

/// `struct lov_comp_md_v1` header (32 bytes, packed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct LovCompMdV1Raw {
    /// `lcm_magic`.
    pub lcm_magic: Le32,
    /// `lcm_size`: the whole layout, this header included.
    pub lcm_size: Le32,
    /// `lcm_layout_gen`.
    pub lcm_layout_gen: Le32,
    /// `lcm_flags`.
    pub lcm_flags: U16<LittleEndian>,
    /// `lcm_entry_count`.
    pub lcm_entry_count: U16<LittleEndian>,
    /// `lcm_mirror_count` (mirrors − 1).
    pub lcm_mirror_count: U16<LittleEndian>,
    /// `lcm_ec_count`.
    pub lcm_ec_count: u8,
    /// `lcm_padding3`.
    pub lcm_padding3: u8,
    /// `lcm_padding1`.
    pub lcm_padding1: [U16<LittleEndian>; 2],
    /// `lcm_padding2`.
    pub lcm_padding2: U64<LittleEndian>,
}
crate::wire::check_layout!(LovCompMdV1Raw, 32;
    lcm_magic @ 0, lcm_size @ 4, lcm_layout_gen @ 8, lcm_flags @ 12, lcm_entry_count @ 14,
    lcm_mirror_count @ 16, lcm_ec_count @ 18, lcm_padding3 @ 19, lcm_padding1 @ 20,
    lcm_padding2 @ 24);

/// `struct lov_comp_md_entry_v1` (48 bytes, packed).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct LovCompMdEntryV1Raw {
    /// `lcme_id`.
    pub lcme_id: Le32,
    /// `lcme_flags`.
    pub lcme_flags: Le32,
    /// `lcme_extent.e_start`.
    pub lcme_extent_start: U64<LittleEndian>,
    /// `lcme_extent.e_end`.
    pub lcme_extent_end: U64<LittleEndian>,
    /// `lcme_offset`: the blob's offset from the start of the composite layout.
    pub lcme_offset: Le32,
    /// `lcme_size`.
    pub lcme_size: Le32,
    /// `lcme_layout_gen`.
    pub lcme_layout_gen: Le32,
    /// `lcme_time_and_id`: timestamp in bits 0–47, mirror link id in bits 48–63.
    pub lcme_time_and_id: U64<LittleEndian>,
    /// `lcme_dstripe_count`.
    pub lcme_dstripe_count: u8,
    /// `lcme_cstripe_count`.
    pub lcme_cstripe_count: u8,
    /// `lcme_compr_type`.
    pub lcme_compr_type: u8,
    /// `lcme_compr_lvl:4` (low nibble) and `lcme_compr_chunk_log_bits:4` (high nibble).
    pub lcme_compr_bits: u8,
}
crate::wire::check_layout!(LovCompMdEntryV1Raw, 48;
    lcme_id @ 0, lcme_flags @ 4, lcme_extent_start @ 8, lcme_extent_end @ 16,
    lcme_offset @ 24, lcme_size @ 28, lcme_layout_gen @ 32, lcme_time_and_id @ 36,
    lcme_dstripe_count @ 44, lcme_cstripe_count @ 45, lcme_compr_type @ 46,
    lcme_compr_bits @ 47);

/// A validated plain layout (V1, V3 or SPECIFIC), borrowing the input.
#[derive(Debug, Clone, Copy)]
pub struct LovMdView<'a> {
    v1: &'a LovUserMdV1Raw,
    pool: Option<&'a PoolName>,
    objects: &'a [LovUserOstDataRaw],
}

impl<'a> LovMdView<'a> {
    /// Parses a plain layout whose magic is V1, V3 or SPECIFIC. `uninit` marks a component
    /// without `LCME_FL_INIT`, which may also hold the one placeholder entry Lustre writes.
    fn parse(bytes: &'a [u8], uninit: bool) -> Result<Self, DecodeError> {
        let Ok((v1, _)) = LovUserMdV1Raw::ref_from_prefix(bytes) else {
            return Err(truncated(LOV_V1_S, 32, bytes.len()));
        };
        let (s, hdr) = if v1.lmm_magic.get() == LOV_MAGIC_V1 {
            (LOV_V1_S, 32)
        } else {
            (LOV_V3_S, 48)
        };
        let sc = v1.lmm_stripe_count.get();
        if sc < LOV_ALL_STRIPES_WIDE && sc as usize > LOV_MAX_STRIPE_COUNT {
            return Err(err(
                s,
                "lmm_stripe_count",
                28,
                ErrorKind::OverLimit {
                    value: sc as u64,
                    max: LOV_MAX_STRIPE_COUNT as u64,
                },
            ));
        }
        let Some(rest) = bytes.get(hdr..) else {
            return Err(truncated(s, hdr, bytes.len()));
        };
        let pool = if hdr == 48 {
            let Ok((p, _)) = PoolName::ref_from_prefix(&bytes[32..]) else {
                return Err(truncated(s, 48, bytes.len()));
            };
            p.check(s, "lmm_pool_name", 32)?;
            Some(p)
        } else {
            None
        };
        let n = stripe_objects(sc);
        // An uninstantiated component: Lustre keeps the header's count but stores one entry
        // with l_ost_idx = -1 (lod_comp_shrink_stripe_count), or one per stripe when the
        // component was made with an OST list (`lfs setstripe -o`).
        if uninit && rest.len() == 24 && n != 1 {
            let Ok(one) = LovUserOstDataRaw::ref_from_bytes(rest) else {
                return Err(truncated(s, hdr + 24, bytes.len()));
            };
            if one.l_ost_idx.get() != LOV_OST_IDX_NONE {
                return Err(err(
                    s,
                    "lmm_objects",
                    hdr,
                    ErrorKind::LovUninitObjects {
                        objects: 1,
                        stripes: n,
                    },
                ));
            }
        } else if !rest.is_empty() && rest.len() != 24 * n {
            return Err(err(
                s,
                "lmm_stripe_count",
                28,
                ErrorKind::PayloadSizeMismatch {
                    len: bytes.len(),
                    expected: hdr + 24 * n,
                },
            ));
        }
        let Ok(objects) = <[LovUserOstDataRaw]>::ref_from_bytes(rest) else {
            return Err(truncated(s, hdr + 24 * n, bytes.len()));
        };
        Ok(LovMdView { v1, pool, objects })
    }

    /// `lmm_magic`.
    pub fn magic(&self) -> u32 {
        self.v1.lmm_magic.get()
    }
    /// `lmm_pattern`.
    pub fn pattern(&self) -> LovPattern {
        LovPattern(self.v1.lmm_pattern.get())
    }
    /// `lmm_oi`.
    pub fn oi(&self) -> OstId {
        OstId::from_raw(&self.v1.lmm_oi)
    }
    /// `lmm_stripe_size`.
    pub fn stripe_size(&self) -> u32 {
        self.v1.lmm_stripe_size.get()
    }
    /// `lmm_stripe_count` as stored (0xffe0..=0xffff: default/all).
    pub fn stripe_count(&self) -> u16 {
        self.v1.lmm_stripe_count.get()
    }
    /// The 16-bit union at offset 30 as stored, whichever member it holds: `lmm_stripe_offset`
    /// (0xffff: any OST) or `lmm_layout_gen`; [`LovMdView::union_member`] names it.
    pub fn stripe_offset(&self) -> u16 {
        self.v1.lmm_stripe_offset.get()
    }
    /// The union at offset 30 named by context, as lfs and LOD read it.
    pub fn union_member(&self, of: LayoutOf, instantiated: bool) -> LmmUnion {
        LmmUnion::of(self.stripe_offset(), of, instantiated)
    }
    /// True when the one object entry is the placeholder of an uninstantiated component
    /// (`l_ost_idx` = [`LOV_OST_IDX_NONE`]) rather than a stripe object.
    pub fn has_placeholder(&self) -> bool {
        self.objects.len() == 1
            && self.objects[0].l_ost_idx.get() == LOV_OST_IDX_NONE
            && stripe_objects(self.stripe_count()) != 1
    }
    /// `lmm_pool_name` (V3 and SPECIFIC only).
    pub fn pool_name(&self) -> Option<&'a PoolName> {
        self.pool
    }
    /// The stripe objects (empty for a template).
    pub fn objects(&self) -> impl ExactSizeIterator<Item = LovOstData> + Clone + 'a {
        self.objects.iter().map(|o| LovOstData {
            oi: OstId::from_raw(&o.l_ost_oi),
            gen_: o.l_ost_gen.get(),
            idx: o.l_ost_idx.get(),
        })
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        (if self.pool.is_some() { 48 } else { 32 }) + 24 * self.objects.len()
    }

    /// An owned copy, naming the union at offset 30 as a top-level layout would by
    /// [`LovView::layout_of_guess`]'s rule.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> LovMd {
        let of = if self.is_file_layout() {
            LayoutOf::File
        } else {
            LayoutOf::Dir
        };
        self.to_value_named(LmmMember::of(of, true))
    }

    /// An owned copy whose union is named `member`.
    #[cfg(feature = "alloc")]
    pub fn to_value_named(&self, member: LmmMember) -> LovMd {
        LovMd {
            magic: self.magic(),
            pattern: self.pattern(),
            oi: self.oi(),
            stripe_size: self.stripe_size(),
            stripe_count: self.stripe_count(),
            stripe_offset: self.stripe_offset(),
            member,
            pool_name: self.pool.copied(),
            objects: self.objects().collect(),
        }
    }

    /// Object entries exist only in a file's layout (a SPECIFIC template lists OSTs), and so
    /// does a released pattern.
    fn is_file_layout(&self) -> bool {
        (!self.objects.is_empty() && self.magic() != LOV_MAGIC_SPECIFIC)
            || self.pattern().contains(LovPattern::F_RELEASED)
    }
}

/// One component's place and attributes in a composite layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LovCompEntry {
    /// `lcme_id`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_id"))]
    pub id: u32,
    /// `lcme_flags`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_flags"))]
    pub flags: LcmeFlags,
    /// `lcme_extent.e_start`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lcme_extent_start", with = "crate::json::ints::dec")
    )]
    pub extent_start: u64,
    /// `lcme_extent.e_end` (`u64::MAX`: EOF).
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lcme_extent_end", with = "crate::json::ints::dec")
    )]
    pub extent_end: u64,
    /// `lcme_offset`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_offset"))]
    pub offset: u32,
    /// `lcme_size`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_size"))]
    pub size: u32,
    /// `lcme_layout_gen`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_layout_gen"))]
    pub layout_gen: u32,
    /// `lcme_time_and_id`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lcme_time_and_id", with = "crate::json::ints::hex")
    )]
    pub time_and_id: u64,
    /// `lcme_dstripe_count`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_dstripe_count"))]
    pub dstripe_count: u8,
    /// `lcme_cstripe_count`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_cstripe_count"))]
    pub cstripe_count: u8,
    /// `lcme_compr_type`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_compr_type"))]
    pub compr_type: u8,
    /// Byte 47: compression level (low nibble) and chunk bits (high nibble).
    #[cfg_attr(feature = "serde", serde(rename = "lcme_compr_bits"))]
    pub compr_bits: u8,
}

impl LovCompEntry {
    fn from_raw(r: &LovCompMdEntryV1Raw) -> Self {
        LovCompEntry {
            id: r.lcme_id.get(),
            flags: LcmeFlags(r.lcme_flags.get()),
            extent_start: r.lcme_extent_start.get(),
            extent_end: r.lcme_extent_end.get(),
            offset: r.lcme_offset.get(),
            size: r.lcme_size.get(),
            layout_gen: r.lcme_layout_gen.get(),
            time_and_id: r.lcme_time_and_id.get(),
            dstripe_count: r.lcme_dstripe_count,
            cstripe_count: r.lcme_cstripe_count,
            compr_type: r.lcme_compr_type,
            compr_bits: r.lcme_compr_bits,
        }
    }
    /// The mirror id (`lcme_id` bits 16–30).
    pub const fn mirror_id(&self) -> u32 {
        (self.id & 0x7FFF_0000) >> 16
    }
    /// The timestamp (bits 0–47 of `lcme_time_and_id`).
    pub const fn timestamp(&self) -> u64 {
        self.time_and_id & 0xFFFF_FFFF_FFFF
    }
    /// The mirror link id (bits 48–63 of `lcme_time_and_id`).
    pub const fn mirror_link_id(&self) -> u16 {
        (self.time_and_id >> 48) as u16
    }
}

/// A component's layout blob.
#[derive(Debug, Clone, Copy)]
pub enum LovBlobView<'a> {
    /// A plain V1/V3/SPECIFIC layout.
    Md(LovMdView<'a>),
    /// A foreign layout.
    Foreign(ForeignView<'a>),
}

impl<'a> LovBlobView<'a> {
    fn parse(index: usize, blob: &'a [u8], uninit: bool) -> Result<Self, DecodeError> {
        match super::read_magic(LOV_S, blob)? {
            LOV_MAGIC_V1 | LOV_MAGIC_V3 | LOV_MAGIC_SPECIFIC => {
                LovMdView::parse(blob, uninit).map(LovBlobView::Md)
            }
            LOV_MAGIC_FOREIGN => ForeignView::parse(FOREIGN_S, blob).map(LovBlobView::Foreign),
            LOV_MAGIC_COMP_V1 | LOV_MAGIC_SEL => Err(err(
                LOV_S,
                "lmm_magic",
                0,
                ErrorKind::LovNestedComposite { index },
            )),
            m => Err(bad_magic(LOV_S, "lmm_magic", m, &KNOWN)),
        }
    }

    /// An owned copy, a plain layout's union named as [`LovMdView::to_value`] does.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> LovBlob {
        match self {
            LovBlobView::Md(m) => LovBlob::Md(m.to_value()),
            LovBlobView::Foreign(f) => LovBlob::Foreign(f.to_value()),
        }
    }

    /// An owned copy, a plain layout's union named `member`.
    #[cfg(feature = "alloc")]
    pub fn to_value_named(&self, member: LmmMember) -> LovBlob {
        match self {
            LovBlobView::Md(m) => LovBlob::Md(m.to_value_named(member)),
            LovBlobView::Foreign(f) => LovBlob::Foreign(f.to_value()),
        }
    }
}

/// One component of a composite layout: its entry and its blob.
#[derive(Debug, Clone, Copy)]
pub struct LovComponentView<'a> {
    /// The entry.
    pub entry: LovCompEntry,
    /// The blob.
    pub blob: LovBlobView<'a>,
}

/// A validated composite layout, borrowing the input.
#[derive(Debug, Clone, Copy)]
pub struct LovCompView<'a> {
    raw: &'a LovCompMdV1Raw,
    entries: &'a [LovCompMdEntryV1Raw],
    bytes: &'a [u8],
}

impl<'a> LovCompView<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let len = bytes.len();
        let Ok((raw, rest)) = LovCompMdV1Raw::ref_from_prefix(bytes) else {
            return Err(truncated(COMP_S, 32, len));
        };
        let size = raw.lcm_size.get() as usize;
        if size != len {
            return Err(err(
                COMP_S,
                "lcm_size",
                4,
                ErrorKind::PayloadSizeMismatch {
                    len,
                    expected: size,
                },
            ));
        }
        let count = raw.lcm_entry_count.get();
        if count == 0 {
            return Err(err(
                COMP_S,
                "lcm_entry_count",
                14,
                ErrorKind::LovCompNoEntries,
            ));
        }
        let table_end = 32 + 48 * count as usize;
        let Some(table) = rest.get(..48 * count as usize) else {
            return Err(err(
                COMP_S,
                "lcm_entry_count",
                14,
                ErrorKind::LovEntryTableOutside {
                    count,
                    end: table_end,
                    len,
                },
            ));
        };
        let Ok(entries) = <[LovCompMdEntryV1Raw]>::ref_from_bytes(table) else {
            return Err(truncated(COMP_S, table_end, len));
        };
        // The end of the furthest blob seen so far: a blob starting at or after it overlaps no
        // earlier one, which keeps the usual layout (blobs in table order) linear. Only a blob
        // that starts before it is compared with every earlier entry.
        let mut max_end = table_end;
        for (i, e) in entries.iter().enumerate() {
            let eo = 32 + 48 * i;
            let (off, sz) = (e.lcme_offset.get(), e.lcme_size.get());
            let start = off as usize;
            let end = start.saturating_add(sz as usize);
            if end > len {
                return Err(err(
                    ENTRY_S,
                    "lcme_offset",
                    eo + 24,
                    ErrorKind::LovComponentOutside {
                        index: i,
                        offset: off,
                        size: sz,
                        len,
                    },
                ));
            }
            if start < table_end {
                return Err(err(
                    ENTRY_S,
                    "lcme_offset",
                    eo + 24,
                    ErrorKind::LovComponentOverlapsTable {
                        index: i,
                        offset: off,
                        table_end,
                    },
                ));
            }
            if start < max_end {
                for (j, p) in entries[..i].iter().enumerate() {
                    let ps = p.lcme_offset.get() as usize;
                    let pe = ps + p.lcme_size.get() as usize;
                    if start < pe && ps < end {
                        return Err(err(
                            ENTRY_S,
                            "lcme_offset",
                            eo + 24,
                            ErrorKind::LovComponentOverlap { index: i, other: j },
                        ));
                    }
                }
            }
            max_end = max_end.max(end);
            let uninit = !LcmeFlags(e.lcme_flags.get()).contains(LcmeFlags::INIT);
            LovBlobView::parse(i, &bytes[start..end], uninit).map_err(|e| e.shifted(start))?;
        }
        Ok(LovCompView {
            raw,
            entries,
            bytes,
        })
    }

    /// `lcm_magic`: [`LOV_MAGIC_COMP_V1`], or [`LOV_MAGIC_SEL`] as stored on disk.
    pub fn magic(&self) -> u32 {
        self.raw.lcm_magic.get()
    }
    /// `lcm_layout_gen`.
    pub fn layout_gen(&self) -> u32 {
        self.raw.lcm_layout_gen.get()
    }
    /// Bytes 19–31 (`lcm_padding3`, `lcm_padding1`, `lcm_padding2`): zero on disk; after a
    /// client read, bytes 24–29 hold a stripe count and size (`ll_lov_getstripe`).
    pub fn padding(&self) -> [u8; 13] {
        let mut p = [0u8; 13];
        p.copy_from_slice(&self.raw.as_bytes()[19..32]);
        p
    }
    /// `lcm_flags`.
    pub fn flags(&self) -> LcmFlags {
        LcmFlags(self.raw.lcm_flags.get())
    }
    /// `lcm_entry_count`.
    pub fn entry_count(&self) -> u16 {
        self.raw.lcm_entry_count.get()
    }
    /// `lcm_mirror_count` (mirrors − 1).
    pub fn mirror_count(&self) -> u16 {
        self.raw.lcm_mirror_count.get()
    }
    /// `lcm_ec_count`.
    pub fn ec_count(&self) -> u8 {
        self.raw.lcm_ec_count
    }
    /// Size on the wire (`lcm_size`).
    pub fn wire_len(&self) -> usize {
        self.bytes.len()
    }
    /// The components, in entry-table order.
    pub fn components(&self) -> impl Iterator<Item = LovComponentView<'a>> + Clone + 'a {
        let bytes = self.bytes;
        self.entries.iter().enumerate().filter_map(move |(i, e)| {
            let entry = LovCompEntry::from_raw(e);
            let blob =
                bytes.get(entry.offset as usize..(entry.offset as usize + entry.size as usize))?;
            // Validated by `parse`: never skips.
            let uninit = !entry.flags.contains(LcmeFlags::INIT);
            let blob = LovBlobView::parse(i, blob, uninit).ok()?;
            Some(LovComponentView { entry, blob })
        })
    }

    /// An owned copy, its unions named as [`LovView::layout_of_guess`] says.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> LovComp {
        self.to_value_of(LovView::Comp(*self).layout_of_guess())
    }

    /// An owned copy, its unions named as lfs reads a layout `of` a file or a directory.
    #[cfg(feature = "alloc")]
    pub fn to_value_of(&self, of: LayoutOf) -> LovComp {
        LovComp {
            sel: self.magic() == LOV_MAGIC_SEL,
            padding: self.padding(),
            layout_gen: self.layout_gen(),
            flags: self.flags(),
            mirror_count: self.mirror_count(),
            ec_count: self.ec_count(),
            components: self
                .components()
                .map(|c| LovComponent {
                    id: c.entry.id,
                    flags: c.entry.flags,
                    extent_start: c.entry.extent_start,
                    extent_end: c.entry.extent_end,
                    layout_gen: c.entry.layout_gen,
                    time_and_id: c.entry.time_and_id,
                    dstripe_count: c.entry.dstripe_count,
                    cstripe_count: c.entry.cstripe_count,
                    compr_type: c.entry.compr_type,
                    compr_bits: c.entry.compr_bits,
                    blob: c
                        .blob
                        .to_value_named(LmmMember::of(of, c.entry.flags.contains(LcmeFlags::INIT))),
                })
                .collect(),
        }
    }
}

/// A validated `trusted.lov`, borrowing the input.
#[derive(Debug, Clone, Copy)]
pub enum LovView<'a> {
    /// `lov_user_md_v1`, `_v3` or SPECIFIC.
    Md(LovMdView<'a>),
    /// `lov_comp_md_v1`.
    Comp(LovCompView<'a>),
    /// `lov_foreign_md`.
    Foreign(ForeignView<'a>),
}

impl<'a> LovView<'a> {
    /// Decodes and validates a `trusted.lov` payload (WIRE.md §9).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        check_xattr_size(LOV_S, bytes.len())?;
        match super::read_magic(LOV_S, bytes)? {
            LOV_MAGIC_V1 | LOV_MAGIC_V3 | LOV_MAGIC_SPECIFIC => {
                LovMdView::parse(bytes, false).map(LovView::Md)
            }
            LOV_MAGIC_COMP_V1 | LOV_MAGIC_SEL => LovCompView::parse(bytes).map(LovView::Comp),
            LOV_MAGIC_FOREIGN => ForeignView::parse(FOREIGN_S, bytes).map(LovView::Foreign),
            m => Err(bad_magic(LOV_S, "lmm_magic", m, &KNOWN)),
        }
    }

    /// The magic.
    pub fn magic(&self) -> u32 {
        match self {
            LovView::Md(m) => m.magic(),
            LovView::Comp(c) => c.magic(),
            LovView::Foreign(f) => f.magic(),
        }
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        match self {
            LovView::Md(m) => m.wire_len(),
            LovView::Comp(c) => c.wire_len(),
            LovView::Foreign(f) => f.wire_len(),
        }
    }

    /// An owned copy, its unions named as [`LovView::layout_of_guess`] says
    /// ([`LovView::to_value_of`] when the caller knows).
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> Lov {
        self.to_value_of(self.layout_of_guess())
    }

    /// An owned copy of the layout `of` a file or a directory: each plain layout's union at
    /// offset 30 is named as lfs and LOD read it ([`LmmMember::of`]).
    #[cfg(feature = "alloc")]
    pub fn to_value_of(&self, of: LayoutOf) -> Lov {
        match self {
            LovView::Md(m) => Lov::Md(m.to_value_named(LmmMember::of(of, true))),
            LovView::Comp(c) => Lov::Comp(c.to_value_of(of)),
            LovView::Foreign(f) => Lov::Foreign(f.to_value()),
        }
    }

    /// An `lfs getstripe -v` text renderer (options on [`GetStripe`]).
    pub fn getstripe(&self) -> GetStripe<'a> {
        GetStripe::new(*self)
    }

    /// Whose layout this most likely is, from the payload alone: object entries (stripe
    /// objects, or the placeholder of an uninstantiated component) exist only in a file's
    /// layout, and so does a released pattern; a directory's default is a template without
    /// objects, or a SPECIFIC layout. Give the answer explicitly when it is known.
    pub fn layout_of_guess(&self) -> LayoutOf {
        let file_md = LovMdView::is_file_layout;
        match self {
            LovView::Md(m) => {
                if file_md(m) {
                    LayoutOf::File
                } else {
                    LayoutOf::Dir
                }
            }
            LovView::Comp(c) => {
                let any = c.components().any(|comp| match &comp.blob {
                    LovBlobView::Md(m) => file_md(m),
                    LovBlobView::Foreign(_) => true,
                });
                if any { LayoutOf::File } else { LayoutOf::Dir }
            }
            LovView::Foreign(_) => LayoutOf::File,
        }
    }
}

/// An owned plain layout (V1, V3 or SPECIFIC).
///
/// Equality and hashing compare what is encoded: [`LovMd::member`], which only names the
/// union in the serde form, is left out.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, Default)]
pub struct LovMd {
    /// [`LOV_MAGIC_V1`], [`LOV_MAGIC_V3`] or [`LOV_MAGIC_SPECIFIC`].
    pub magic: u32,
    /// `lmm_pattern`.
    pub pattern: LovPattern,
    /// `lmm_oi`.
    pub oi: OstId,
    /// `lmm_stripe_size`.
    pub stripe_size: u32,
    /// `lmm_stripe_count`.
    pub stripe_count: u16,
    /// The union at offset 30 as stored: `lmm_stripe_offset` or `lmm_layout_gen`
    /// ([`LovMd::union_member`] names it by context, [`LovMd::member`] as decoded).
    pub stripe_offset: u16,
    /// Which member the union is shown as in the serde form. The decoder sets it from the
    /// caller's context ([`LovView::to_value_of`]) or its guess; deserializing sets it from the
    /// name found. Encoding ignores it.
    pub member: LmmMember,
    /// `lmm_pool_name`: `Some` exactly for V3 and SPECIFIC.
    pub pool_name: Option<PoolName>,
    /// The stripe objects: none (a template) or one per stripe.
    pub objects: alloc::vec::Vec<LovOstData>,
}

#[cfg(feature = "alloc")]
impl PartialEq for LovMd {
    fn eq(&self, o: &Self) -> bool {
        (self.magic, self.pattern, self.oi, self.stripe_size)
            == (o.magic, o.pattern, o.oi, o.stripe_size)
            && (self.stripe_count, self.stripe_offset) == (o.stripe_count, o.stripe_offset)
            && self.pool_name == o.pool_name
            && self.objects == o.objects
    }
}

#[cfg(feature = "alloc")]
impl Eq for LovMd {}

#[cfg(feature = "alloc")]
impl core::hash::Hash for LovMd {
    fn hash<H: core::hash::Hasher>(&self, h: &mut H) {
        (self.magic, self.pattern, self.oi, self.stripe_size).hash(h);
        (self.stripe_count, self.stripe_offset, self.pool_name).hash(h);
        self.objects.hash(h);
    }
}

#[cfg(feature = "alloc")]
impl LovMd {
    /// The union as the serde form shows it: [`LovMd::member`] with the stored value.
    pub fn union(&self) -> LmmUnion {
        match self.member {
            LmmMember::StripeOffset => LmmUnion::StripeOffset(self.stripe_offset),
            LmmMember::LayoutGen => LmmUnion::LayoutGen(self.stripe_offset),
        }
    }
    /// The union at offset 30 named by context: see [`LmmUnion::of`].
    pub fn union_member(&self, of: LayoutOf, instantiated: bool) -> LmmUnion {
        LmmUnion::of(self.stripe_offset, of, instantiated)
    }
    fn wire_len(&self) -> usize {
        let hdr = if self.magic == LOV_MAGIC_V1 { 32 } else { 48 };
        self.objects.len().saturating_mul(24).saturating_add(hdr)
    }
    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        out.put_u32_le(self.magic);
        out.put_u32_le(self.pattern.0);
        out.put_u64_le(self.oi.id);
        out.put_u64_le(self.oi.seq);
        out.put_u32_le(self.stripe_size);
        out.put_u16_le(self.stripe_count);
        out.put_u16_le(self.stripe_offset);
        if self.magic != LOV_MAGIC_V1 {
            out.put_slice(&self.pool_name.unwrap_or_default().0);
        }
        for o in &self.objects {
            out.put_u64_le(o.oi.id);
            out.put_u64_le(o.oi.seq);
            out.put_u32_le(o.gen_);
            out.put_u32_le(o.idx);
        }
    }
}

/// An owned component blob.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub enum LovBlob {
    /// A plain layout.
    #[cfg_attr(feature = "serde", serde(rename = "lov_user_md"))]
    Md(LovMd),
    /// A foreign layout.
    #[cfg_attr(feature = "serde", serde(rename = "lov_foreign_md"))]
    Foreign(super::ForeignMd),
}

#[cfg(feature = "alloc")]
impl LovBlob {
    fn wire_len(&self) -> usize {
        match self {
            LovBlob::Md(m) => m.wire_len(),
            LovBlob::Foreign(f) => f.wire_len(),
        }
    }
    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        match self {
            LovBlob::Md(m) => m.put_raw(out),
            LovBlob::Foreign(f) => f.put_unchecked(LOV_MAGIC_FOREIGN, out),
        }
    }
}

/// An owned component: its entry's attributes and its blob. `lcme_offset` and `lcme_size` are
/// computed on encoding (blobs packed after the entry table, in order).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LovComponent {
    /// `lcme_id`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_id"))]
    pub id: u32,
    /// `lcme_flags`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_flags"))]
    pub flags: LcmeFlags,
    /// `lcme_extent.e_start`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lcme_extent_start", with = "crate::json::ints::dec")
    )]
    pub extent_start: u64,
    /// `lcme_extent.e_end`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lcme_extent_end", with = "crate::json::ints::dec")
    )]
    pub extent_end: u64,
    /// `lcme_layout_gen`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_layout_gen"))]
    pub layout_gen: u32,
    /// `lcme_time_and_id`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lcme_time_and_id", with = "crate::json::ints::hex")
    )]
    pub time_and_id: u64,
    /// `lcme_dstripe_count`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_dstripe_count"))]
    pub dstripe_count: u8,
    /// `lcme_cstripe_count`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_cstripe_count"))]
    pub cstripe_count: u8,
    /// `lcme_compr_type`.
    #[cfg_attr(feature = "serde", serde(rename = "lcme_compr_type"))]
    pub compr_type: u8,
    /// Byte 47 (compression level and chunk bits).
    #[cfg_attr(feature = "serde", serde(rename = "lcme_compr_bits"))]
    pub compr_bits: u8,
    /// The blob.
    #[cfg_attr(feature = "serde", serde(rename = "layout"))]
    pub blob: LovBlob,
}

/// An owned composite layout.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct LovComp {
    /// True when `lcm_magic` is [`LOV_MAGIC_SEL`] (the on-disk form of a layout with a SEL
    /// component), false for [`LOV_MAGIC_COMP_V1`]. In JSON only when true.
    #[cfg_attr(
        feature = "serde",
        serde(
            rename = "lcm_magic_sel",
            default,
            skip_serializing_if = "core::ops::Not::not"
        )
    )]
    pub sel: bool,
    /// Bytes 19–31 of the header, kept as found (zero on disk). In JSON: hex, and left out when zero.
    #[cfg_attr(
        feature = "serde",
        serde(
            default,
            skip_serializing_if = "crate::json::bytes::padding::is_zero",
            with = "crate::json::bytes::padding"
        )
    )]
    pub padding: [u8; 13],
    /// `lcm_layout_gen`.
    #[cfg_attr(feature = "serde", serde(rename = "lcm_layout_gen"))]
    pub layout_gen: u32,
    /// `lcm_flags`.
    #[cfg_attr(feature = "serde", serde(rename = "lcm_flags"))]
    pub flags: LcmFlags,
    /// `lcm_mirror_count`.
    #[cfg_attr(feature = "serde", serde(rename = "lcm_mirror_count"))]
    pub mirror_count: u16,
    /// `lcm_ec_count`.
    #[cfg_attr(feature = "serde", serde(rename = "lcm_ec_count"))]
    pub ec_count: u8,
    /// The components (at least one).
    #[cfg_attr(feature = "serde", serde(rename = "lcm_entries"))]
    pub components: alloc::vec::Vec<LovComponent>,
}

#[cfg(feature = "alloc")]
impl LovComp {
    fn wire_len(&self) -> usize {
        self.components.iter().fold(
            self.components.len().saturating_mul(48).saturating_add(32),
            |acc, c| acc.saturating_add(c.blob.wire_len()),
        )
    }
    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        let total = self.wire_len();
        out.put_u32_le(if self.sel {
            LOV_MAGIC_SEL
        } else {
            LOV_MAGIC_COMP_V1
        });
        out.put_u32_le(total as u32);
        out.put_u32_le(self.layout_gen);
        out.put_u16_le(self.flags.0);
        out.put_u16_le(self.components.len() as u16);
        out.put_u16_le(self.mirror_count);
        out.put_u8(self.ec_count);
        out.put_slice(&self.padding);
        let mut off = 32 + 48 * self.components.len();
        for c in &self.components {
            let size = c.blob.wire_len();
            out.put_u32_le(c.id);
            out.put_u32_le(c.flags.0);
            out.put_u64_le(c.extent_start);
            out.put_u64_le(c.extent_end);
            out.put_u32_le(off as u32);
            out.put_u32_le(size as u32);
            out.put_u32_le(c.layout_gen);
            out.put_u64_le(c.time_and_id);
            out.put_slice(&[c.dstripe_count, c.cstripe_count, c.compr_type, c.compr_bits]);
            off += size;
        }
        for c in &self.components {
            c.blob.put_raw(out);
        }
    }
}

/// An owned `trusted.lov`.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub enum Lov {
    /// A plain layout.
    #[cfg_attr(feature = "serde", serde(rename = "lov_user_md"))]
    Md(LovMd),
    /// A composite layout.
    #[cfg_attr(feature = "serde", serde(rename = "lov_comp_md_v1"))]
    Comp(LovComp),
    /// A foreign layout.
    #[cfg_attr(feature = "serde", serde(rename = "lov_foreign_md"))]
    Foreign(super::ForeignMd),
}

#[cfg(feature = "alloc")]
impl super::XattrEncode for Lov {
    const STRUCTURE: &'static str = LOV_S;

    fn wire_len(&self) -> usize {
        match self {
            Lov::Md(m) => m.wire_len(),
            Lov::Comp(c) => c.wire_len(),
            Lov::Foreign(f) => f.wire_len(),
        }
    }

    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        match self {
            Lov::Md(m) => m.put_raw(out),
            Lov::Comp(c) => c.put_raw(out),
            Lov::Foreign(f) => f.put_unchecked(LOV_MAGIC_FOREIGN, out),
        }
    }

    fn check_encoded(bytes: &[u8]) -> Result<(), DecodeError> {
        LovView::parse(bytes).map(|_| ())
    }
}
