//! A directory's default file layout, `trusted.lov` (WIRE.md §9, lustre-wire.md §5):
//! `lov_user_md_v1`, `lov_user_md_v3` (also with LOV_MAGIC_SPECIFIC), the composite
//! `lov_comp_md_v1` whose components are each one of those or a foreign layout, and
//! `lov_foreign_md`.
//!
//! A `lmm_stripe_count` in 0xffe0..=0xffff means "default/all" and stands for no objects;
//! any other count is at most [`LOV_MAX_STRIPE_COUNT`](crate::limits::LOV_MAX_STRIPE_COUNT).
//! A plain layout is accepted as a template (header only) or with one `lov_user_ost_data_v1`
//! per stripe; a component that is not instantiated may also hold the one placeholder entry
//! Lustre writes (`l_ost_idx` = [`LOV_OST_IDX_NONE`]). `LOV_MAGIC_SEL`, the on-disk magic of a
//! layout with a self-extending component, is read as a composite and kept.

mod comp;
mod plain;
#[cfg(feature = "alloc")]
mod value;

pub use super::ostid::{FID_SEQ_LOV_DEFAULT, OstId, OstIdForm, OstIdRaw};
pub use super::unions::{LayoutOf, LmmMember, LmmUnion};
use super::{ForeignView, PoolName, bad_magic, check_xattr_size};
use crate::error::DecodeError;
use crate::wire::table::c_struct;
pub use comp::{LovBlobView, LovCompEntry, LovCompView, LovComponentView};
pub use comp::{
    LovCompMdEntryV1Raw, LovCompMdEntryV1Wire, LovCompMdV1, LovCompMdV1Raw, LovCompMdV1Wire,
    lov_comp_md_entry_v1, lov_comp_md_v1,
};
pub use plain::LovMdView;
#[cfg(feature = "alloc")]
pub use value::{Lov, LovBlob, LovComp, LovComponent, LovMd};

use zerocopy::LittleEndian;

const LOV_S: &str = "lov_user_md";
const LOV_V1_S: &str = lov_user_md_v1::LAYOUT.name;
const LOV_V3_S: &str = lov_user_md_v3::LAYOUT.name;
const COMP_S: &str = lov_comp_md_v1::LAYOUT.name;
const ENTRY_S: &str = lov_comp_md_entry_v1::LAYOUT.name;
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

/// The header of a plain layout, `struct lov_user_md_v1`; one object per stripe follows.
#[c_struct(lov_user_md_v1, size = 32,
    doc = "A plain layout (lustre_user.h), little-endian: the stripe objects follow.",
    raw = LovUserMdV1Wire)]
#[c_member(32, struct LovOstData lmm_objects[0], nested, "one object per stripe")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LovUserMdV1 {
    /// LOV_MAGIC_V1 (V3 and SPECIFIC share these first 32 bytes)
    #[c(0, __u32 lmm_magic, hex)]
    pub magic: u32,
    /// LOV_PATTERN_*
    #[c(4, __u32 lmm_pattern)]
    pub pattern: LovPattern,
    /// the file's object id
    #[c(8, struct OstId lmm_oi, hex)]
    pub oi: OstId,
    /// stripe size in bytes
    #[c(24, __u32 lmm_stripe_size)]
    pub stripe_size: u32,
    /// stripes; LOV_ALL_STRIPES*: as wide as the file system allows
    #[c(28, __u16 lmm_stripe_count)]
    pub stripe_count: u16,
    /// the first stripe's OST, or lmm_layout_gen (a union)
    #[c(30, __u16 lmm_stripe_offset)]
    pub stripe_offset: u16,
}

/// [`LovUserMdV1Wire`] as stored (little-endian).
pub type LovUserMdV1Raw = LovUserMdV1Wire<LittleEndian>;

/// `struct lov_user_md_v3`: the V1 members and a pool name; one object per stripe follows.
#[c_struct(lov_user_md_v3, size = 48,
    doc = "A plain layout with a pool (lustre_user.h), little-endian: the stripe objects follow.",
    raw = LovUserMdV3Wire)]
#[c_member(48, struct LovOstData lmm_objects[0], nested, "one object per stripe")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LovUserMdV3 {
    /// LOV_MAGIC_V3 or LOV_MAGIC_SPECIFIC
    #[c(0, __u32 lmm_magic, hex)]
    pub magic: u32,
    /// LOV_PATTERN_*
    #[c(4, __u32 lmm_pattern)]
    pub pattern: LovPattern,
    /// the file's object id
    #[c(8, struct OstId lmm_oi, hex)]
    pub oi: OstId,
    /// stripe size in bytes
    #[c(24, __u32 lmm_stripe_size)]
    pub stripe_size: u32,
    /// stripes; LOV_ALL_STRIPES*: as wide as the file system allows
    #[c(28, __u16 lmm_stripe_count)]
    pub stripe_count: u16,
    /// the first stripe's OST, or lmm_layout_gen (a union)
    #[c(30, __u16 lmm_stripe_offset)]
    pub stripe_offset: u16,
    /// the OST pool, NUL-terminated
    #[c(32, __u8 lmm_pool_name[16], text)]
    pub pool_name: PoolName,
}

/// [`LovUserMdV3Wire`] as stored (little-endian).
pub type LovUserMdV3Raw = LovUserMdV3Wire<LittleEndian>;

/// One stripe object of a plain layout. Its serde form adds, after the raw words, what
/// `lfs` shows of them: `"ostid"` (the [`OstIdForm`] and `ostid_seq()`/`ostid_id()`) and
/// `"fid"` (`ostid_to_fid()`, or null); on input they are optional and checked.
#[c_struct(lov_user_ost_data_v1, size = 24,
    doc = "One stripe object of a plain layout (lustre_user.h), little-endian.",
    raw = LovUserOstDataWire, serde = none)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LovOstData {
    /// the object's id
    #[c(0, struct OstId l_ost_oi, hex)]
    pub oi: OstId,
    /// generation of the OST index
    #[c(16, __u32 l_ost_gen)]
    pub gen_: u32,
    /// the OST index
    #[c(20, __u32 l_ost_idx)]
    pub idx: u32,
}

/// [`LovUserOstDataWire`] as stored (little-endian).
pub type LovUserOstDataRaw = LovUserOstDataWire<LittleEndian>;

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
            LOV_MAGIC_FOREIGN => {
                ForeignView::parse(FOREIGN_S, super::lov_foreign_md::lfm_length, bytes)
                    .map(LovView::Foreign)
            }
            m => Err(bad_magic(LOV_S, lov_user_md_v1::lmm_magic.name, m, &KNOWN)),
        }
    }

    /// The view of a payload [`LovView::parse`] has accepted already (a result of a validated
    /// reply): its parts are found again, no rule is checked. `None` only for bytes `parse`
    /// refuses.
    pub(crate) fn of_validated(bytes: &'a [u8]) -> Option<Self> {
        match super::le_magic(bytes)? {
            LOV_MAGIC_COMP_V1 | LOV_MAGIC_SEL => {
                LovCompView::of_validated(bytes).map(LovView::Comp)
            }
            LOV_MAGIC_FOREIGN => ForeignView::of_validated(bytes).map(LovView::Foreign),
            _ => LovMdView::of_validated(bytes).map(LovView::Md),
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
        match self {
            // One pass over the components, for the guess and the copy both.
            LovView::Comp(c) => Lov::Comp(c.to_value()),
            _ => self.to_value_of(self.layout_of_guess()),
        }
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
            LovView::Comp(c) => LovComponentView::layout_of_guess(c.components()),
            LovView::Foreign(_) => LayoutOf::File,
        }
    }
}
