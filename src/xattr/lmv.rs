//! A directory's own striping, `trusted.lmv` (WIRE.md §9, lustre-wire.md §6): `lmv_mds_md_v1`
//! on a striped directory (LMV_MAGIC_V1, with one FID per stripe) or on one of its stripes
//! (LMV_MAGIC_STRIPE), or `lmv_foreign_md`.
//!
//! Both forms are accepted, for a master (LMV_MAGIC_V1) and a stripe object alike: with the FID
//! table (56 + 16·count bytes, what the MDT sends: `lod_xattr_get` appends the FIDs from the
//! master's `${FID}:${index}` entries) or the 56-byte header alone (what LOD stores on disk,
//! `lod_prep_lmv_md`: "Only store the LMV EA header on the disk"), `lmv_stripe_count` still the
//! directory's stripe count. [`LmvMdView::form`] says which.

use super::reader::Reader;
use super::{ForeignView, PoolName, bad_magic, check_xattr_size, err_at};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::LMV_MAX_STRIPE_COUNT;
use crate::wire::LuFid;
use crate::wire::WireStruct;
use crate::wire::raw::LuFidRaw;
use crate::wire::table::c_struct;
use core::fmt;
use zerocopy::{IntoBytes, LittleEndian};

const LMV_S: &str = lmv_mds_md_v1::LAYOUT.name;
const LMV_FOREIGN_S: &str = "lmv_foreign_md";

/// `LMV_MAGIC_V1`: a striped directory's master object.
pub const LMV_MAGIC_V1: u32 = 0x0CD2_0CD0;
/// `LMV_MAGIC_STRIPE`: one stripe of a striped directory.
pub const LMV_MAGIC_STRIPE: u32 = 0x0CD4_0CD0;
/// `LMV_MAGIC_FOREIGN`.
pub const LMV_MAGIC_FOREIGN: u32 = 0x0CD5_0CD0;

wire_enum! {
    /// The hash function in the low 16 bits of a hash type (`LMV_HASH_TYPE_*`), by `lfs` name.
    pub struct LmvHashFn(u32) {
        /// `LMV_HASH_TYPE_UNKNOWN`.
        const UNKNOWN = 0, "none";
        /// `LMV_HASH_TYPE_ALL_CHARS`.
        const ALL_CHARS = 1, "all_char";
        /// `LMV_HASH_TYPE_FNV_1A_64` (the default).
        const FNV_1A_64 = 2, "fnv_1a_64";
        /// `LMV_HASH_TYPE_CRUSH`.
        const CRUSH = 3, "crush";
        /// `LMV_HASH_TYPE_CRUSH2`.
        const CRUSH2 = 4, "crush2";
    }
}

wire_flags! {
    /// The flags in the high bits of a hash type (`LMV_HASH_FLAG_*`), by `lfs` name.
    pub struct LmvHashFlags(u32) {
        /// `LMV_HASH_FLAG_OVERSTRIPED`.
        const OVERSTRIPED = 0x0100_0000, "overstriped";
        /// `LMV_HASH_FLAG_FIXED`.
        const FIXED = 0x0200_0000, "fixed";
        /// `LMV_HASH_FLAG_MERGE`.
        const MERGE = 0x0400_0000, "merge";
        /// `LMV_HASH_FLAG_SPLIT`.
        const SPLIT = 0x0800_0000, "split";
        /// `LMV_HASH_FLAG_LOST_LMV`.
        const LOST_LMV = 0x1000_0000, "lost_lmv";
        /// `LMV_HASH_FLAG_BAD_TYPE`.
        const BAD_TYPE = 0x2000_0000, "bad_type";
        /// `LMV_HASH_FLAG_MIGRATION`.
        const MIGRATION = 0x8000_0000, "migrating";
    }
}

/// `lmv_hash_type` / `lum_hash_type`: a hash function (low 16 bits) and flags (high bits).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LmvHashType(pub u32);

impl LmvHashType {
    /// `LMV_HASH_TYPE_MASK`.
    pub const TYPE_MASK: u32 = 0xffff;
    /// The hash function.
    pub const fn hash_fn(self) -> LmvHashFn {
        LmvHashFn(self.0 & Self::TYPE_MASK)
    }
    /// The flags.
    pub const fn flags(self) -> LmvHashFlags {
        LmvHashFlags(self.0 & !Self::TYPE_MASK)
    }
    /// `lmv_is_sane_hash_type` (`lustre_user.h`): a known hash function (1 to 4, whatever the
    /// flags), or exactly `LMV_HASH_TYPE_UNKNOWN | LMV_HASH_FLAG_BAD_TYPE`, which a failed
    /// migration leaves behind and which Lustre still reads.
    pub const fn is_sane(self) -> bool {
        let f = self.hash_fn().0;
        (f > LmvHashFn::UNKNOWN.0 && f <= LmvHashFn::CRUSH2.0) || self.0 == LmvHashFlags::BAD_TYPE.0
    }
}

impl LmvHashType {
    /// A hash function with flags: `LmvHashType::new(LmvHashFn::CRUSH, LmvHashFlags::MIGRATION)`.
    pub const fn new(hash_fn: LmvHashFn, flags: LmvHashFlags) -> Self {
        LmvHashType((hash_fn.0 & Self::TYPE_MASK) | (flags.0 & !Self::TYPE_MASK))
    }
}

/// A hash function without flags: `LmvHashType::from(LmvHashFn::FNV_1A_64)`.
impl From<LmvHashFn> for LmvHashType {
    fn from(f: LmvHashFn) -> Self {
        LmvHashType::new(f, LmvHashFlags(0))
    }
}

impl fmt::Display for LmvHashType {
    /// As `lfs` prints it: `fnv_1a_64`, `crush,migrating`, unknown parts in hex.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::flags::pad_with(f, |w| {
            write!(w, "{}", self.hash_fn())?;
            let mut rest = self.flags().0;
            for &(name, v) in LmvHashFlags::NAMED {
                if rest & v == v {
                    write!(w, ",{name}")?;
                    rest &= !v;
                }
            }
            if rest != 0 {
                write!(w, ",{rest:#x}")?;
            }
            Ok(())
        })
    }
}

/// Parses `lfs`'s form: `fnv_1a_64`, `crush,migrating`, parts in hex when unnamed.
fn parse_hash_type(s: &str) -> Result<u32, crate::ParseError> {
    let mut parts = s.split(',');
    let first = parts.next().unwrap_or("");
    let mut v = crate::flags::parse_enum::<LmvHashFn>(first)? as u32;
    let mut offset = first.len() + 1;
    for p in parts {
        let bits = crate::flags::parse_flags::<LmvHashFlags>(p).map_err(|mut e| {
            e.offset += offset;
            e.what = "LmvHashType";
            e
        })?;
        v |= bits as u32;
        offset += p.len() + 1;
    }
    Ok(v)
}

impl core::str::FromStr for LmvHashType {
    type Err = crate::ParseError;
    /// `lfs`'s form, as `Display` writes it: `fnv_1a_64`, `crush,migrating`, `0x7,0x10000`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_hash_type(s).map(LmvHashType)
    }
}

impl fmt::Debug for LmvHashType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LmvHashType({self})")
    }
}

/// The header of a striped directory's layout, `struct lmv_mds_md_v1`; the stripe FIDs follow.
#[c_struct(lmv_mds_md_v1, size = 56,
    doc = "A striped directory's layout (lustre_idl.h), little-endian: the stripe FIDs follow.",
    raw = LmvMdsMdV1Wire)]
#[c_member(28, __u32 lmv_padding2, "padding, kept as found")]
#[c_member(32, __u64 lmv_padding3, "padding, kept as found")]
#[c_member(56, struct LuFid lmv_stripe_fids[0], fid, "one FID per stripe (not stored on disk)")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LmvMdsMdV1 {
    /// LMV_MAGIC_V1 or LMV_MAGIC_STRIPE
    #[c(0, __u32 lmv_magic, hex)]
    pub magic: u32,
    /// the directory's stripe count
    #[c(4, __u32 lmv_stripe_count)]
    pub stripe_count: u32,
    /// the master's MDT (on a stripe: that stripe's index)
    #[c(8, __u32 lmv_master_mdt_index)]
    pub master_mdt_index: u32,
    /// LMV_HASH_TYPE_* and LMV_HASH_FLAG_*
    #[c(12, __u32 lmv_hash_type)]
    pub hash_type: LmvHashType,
    /// the layout's version
    #[c(16, __u32 lmv_layout_version)]
    pub layout_version: u32,
    /// stripes already migrated
    #[c(20, __u32 lmv_migrate_offset)]
    pub migrate_offset: u32,
    /// the hash type being migrated from
    #[c(24, __u32 lmv_migrate_hash)]
    pub migrate_hash: LmvHashType,
    /// the MDT pool, NUL-terminated
    #[c(40, __u8 lmv_pool_name[16], text)]
    pub pool_name: PoolName,
}

/// [`LmvMdsMdV1Wire`] as stored (little-endian).
pub type LmvMdsMdV1Raw = LmvMdsMdV1Wire<LittleEndian>;

/// Where the stripe FIDs start, and the size of one.
const FIDS: crate::wire::layout::FieldAt = lmv_mds_md_v1::lmv_stripe_fids;
const FID_SIZE: usize = lmv_mds_md_v1::lmv_stripe_fids.elem_size;
/// Bytes 28–39, `lmv_padding2` and `lmv_padding3`: kept as found.
const PADDING: core::ops::Range<usize> =
    lmv_mds_md_v1::lmv_padding2.offset..lmv_mds_md_v1::lmv_pool_name.offset;

/// `lmv_hash_type` converts to and from its word (the declaration's accessor).
impl crate::flags::WireBits for LmvHashType {
    const TYPE: &'static str = "LmvHashType";
    const BITS: u32 = u32::BITS;
    #[inline(always)]
    fn named(_: usize) -> Option<(&'static str, u64)> {
        None
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        self.0 as u64
    }
    #[inline(always)]
    fn from_u64(v: u64) -> Self {
        LmvHashType(v as u32)
    }
}

/// A validated `lmv_mds_md_v1`, borrowing the input.
#[derive(Debug, Clone, Copy)]
pub struct LmvMdView<'a> {
    raw: &'a LmvMdsMdV1Raw,
    fids: &'a [LuFidRaw<LittleEndian>],
}

impl<'a> LmvMdView<'a> {
    fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let raw: &LmvMdsMdV1Raw = r.fixed(LMV_S)?;
        let count = raw.lmv_stripe_count.get() as usize;
        if count > LMV_MAX_STRIPE_COUNT {
            return Err(err_at(
                LMV_S,
                lmv_mds_md_v1::lmv_stripe_count,
                0,
                ErrorKind::OverLimit {
                    value: count as u64,
                    max: LMV_MAX_STRIPE_COUNT as u64,
                },
            ));
        }
        // lmv_is_sane2 (lustre/include/lustre_lmv.h): the MDT refuses an LMV with no stripe or
        // an unknown hash function wherever it loads one.
        if count == 0 {
            return Err(err_at(
                LMV_S,
                lmv_mds_md_v1::lmv_stripe_count,
                0,
                ErrorKind::LmvNoStripes,
            ));
        }
        let hash = LmvHashType(raw.lmv_hash_type.get());
        if !hash.is_sane() {
            return Err(err_at(
                LMV_S,
                lmv_mds_md_v1::lmv_hash_type,
                0,
                ErrorKind::LmvBadHashType { got: hash.0 },
            ));
        }
        let pool = lmv_mds_md_v1::lmv_pool_name;
        raw.pool_name().check(LMV_S, pool.name, pool.offset)?;
        // One FID per stripe, or none: the on-disk form, header only whatever the count.
        match r.rest_of::<LuFidRaw<LittleEndian>>(count) {
            Some(fids) => Ok(LmvMdView { raw, fids }),
            None if !r.any_left() => Ok(LmvMdView { raw, fids: &[] }),
            None => Err(err_at(
                LMV_S,
                lmv_mds_md_v1::lmv_stripe_count,
                0,
                ErrorKind::PayloadSizeMismatch {
                    len: r.len(),
                    expected: r.end_of::<LuFidRaw<LittleEndian>>(count),
                },
            )),
        }
    }

    /// `lmv_magic`: [`LMV_MAGIC_V1`] or [`LMV_MAGIC_STRIPE`].
    pub fn magic(&self) -> u32 {
        self.raw.lmv_magic.get()
    }
    /// True for a stripe object's LMV.
    pub fn is_stripe(&self) -> bool {
        self.magic() == LMV_MAGIC_STRIPE
    }
    /// `lmv_stripe_count`.
    pub fn stripe_count(&self) -> u32 {
        self.raw.lmv_stripe_count.get()
    }
    /// `lmv_master_mdt_index` (on a stripe: that stripe's index).
    pub fn master_mdt_index(&self) -> u32 {
        self.raw.lmv_master_mdt_index.get()
    }
    /// `lmv_hash_type`.
    pub fn hash_type(&self) -> LmvHashType {
        LmvHashType(self.raw.lmv_hash_type.get())
    }
    /// `lmv_layout_version`.
    pub fn layout_version(&self) -> u32 {
        self.raw.lmv_layout_version.get()
    }
    /// `lmv_migrate_offset`.
    pub fn migrate_offset(&self) -> u32 {
        self.raw.lmv_migrate_offset.get()
    }
    /// `lmv_migrate_hash`.
    pub fn migrate_hash(&self) -> LmvHashType {
        LmvHashType(self.raw.lmv_migrate_hash.get())
    }
    /// `lmv_pool_name`.
    pub fn pool_name(&self) -> &'a PoolName {
        let raw: &'a LmvMdsMdV1Raw = self.raw;
        zerocopy::transmute_ref!(&raw.lmv_pool_name)
    }
    /// Which form the payload has: the stored header alone, or the header with its FID table.
    pub fn form(&self) -> LmvForm {
        LmvForm::of(self.stripe_count(), self.fids.len())
    }
    /// The stripe FIDs (empty in the header-only form).
    pub fn stripe_fids(&self) -> impl ExactSizeIterator<Item = LuFid> + Clone + 'a {
        self.fids.iter().map(LuFid::from_raw)
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        FIDS.offset + FID_SIZE * self.fids.len()
    }
    /// Bytes 28–39 (`lmv_padding2`, `lmv_padding3`), kept as found.
    pub fn padding(&self) -> [u8; 12] {
        let mut p = [0u8; 12];
        p.copy_from_slice(&self.raw.as_bytes()[PADDING]);
        p
    }
    /// The raw header.
    pub fn raw(&self) -> &'a LmvMdsMdV1Raw {
        self.raw
    }

    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> LmvMd {
        LmvMd::from_header(&self.header(), self.padding(), self.stripe_fids().collect())
    }

    /// The header, as its declared value.
    pub fn header(&self) -> LmvMdsMdV1 {
        LmvMdsMdV1::from_raw(self.raw)
    }
}

/// The two forms of an `lmv_mds_md_v1` Lustre produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum LmvForm {
    /// The header and one FID per stripe (56 + 16·count bytes): what the MDT returns to a reader
    /// and what a reply carries. A count of 0 is this form.
    WithFids,
    /// The 56-byte header alone, `lmv_stripe_count` > 0: how LOD stores a striped directory's
    /// master and its stripes on disk.
    HeaderOnly,
}

impl LmvForm {
    /// The form of a header with `stripe_count` whose payload holds `fids` FIDs.
    pub const fn of(stripe_count: u32, fids: usize) -> LmvForm {
        if fids == 0 && stripe_count > 0 {
            LmvForm::HeaderOnly
        } else {
            LmvForm::WithFids
        }
    }
    /// `with_fids` or `header_only`.
    pub const fn name(self) -> &'static str {
        match self {
            LmvForm::WithFids => "with_fids",
            LmvForm::HeaderOnly => "header_only",
        }
    }
}

/// A validated `trusted.lmv`, borrowing the input.
#[derive(Debug, Clone, Copy)]
pub enum LmvView<'a> {
    /// `lmv_mds_md_v1` (LMV_MAGIC_V1 or LMV_MAGIC_STRIPE).
    Md(LmvMdView<'a>),
    /// `lmv_foreign_md`.
    Foreign(ForeignView<'a>),
}

impl<'a> LmvView<'a> {
    /// Decodes and validates a `trusted.lmv` payload (WIRE.md §9).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        check_xattr_size(LMV_S, bytes.len())?;
        match super::read_magic(LMV_S, bytes)? {
            LMV_MAGIC_V1 | LMV_MAGIC_STRIPE => LmvMdView::parse(bytes).map(LmvView::Md),
            LMV_MAGIC_FOREIGN => {
                let v =
                    ForeignView::parse(LMV_FOREIGN_S, super::lmv_foreign_md::lfm_length, bytes)?;
                // lod_xattr_get: "empty foreign LMV is not allowed" (-EINVAL).
                if v.value().is_empty() {
                    return Err(err_at(
                        LMV_FOREIGN_S,
                        super::lmv_foreign_md::lfm_length,
                        0,
                        ErrorKind::LmvForeignEmpty,
                    ));
                }
                Ok(LmvView::Foreign(v))
            }
            m => Err(bad_magic(
                LMV_S,
                lmv_mds_md_v1::lmv_magic.name,
                m,
                &[LMV_MAGIC_V1, LMV_MAGIC_STRIPE, LMV_MAGIC_FOREIGN],
            )),
        }
    }
    /// The view of a payload [`LmvView::parse`] has accepted already (a result of a validated
    /// reply): its parts are found again, no rule is checked. `None` only for bytes `parse`
    /// refuses.
    pub(crate) fn of_validated(bytes: &'a [u8]) -> Option<Self> {
        if super::le_magic(bytes)? == LMV_MAGIC_FOREIGN {
            return ForeignView::of_validated(bytes).map(LmvView::Foreign);
        }
        // The header, then one FID per stripe or none (the on-disk form).
        let (raw, fids) = Reader::header_and_rest(bytes)?;
        Some(LmvView::Md(LmvMdView { raw, fids }))
    }
    /// The striped directory's layout, `None` for a foreign LMV.
    pub fn md(&self) -> Option<&LmvMdView<'a>> {
        match self {
            LmvView::Md(m) => Some(m),
            LmvView::Foreign(_) => None,
        }
    }
    /// `lmv_stripe_count`: how many stripes the directory has; 0 for a foreign LMV.
    ///
    /// ```
    /// use lustre_dne_intent::xattr::LmvView;
    ///
    /// let lmv = LmvView::parse(include_bytes!("../../testdata/xattr_lmv_striped.bin"))?;
    /// assert_eq!(lmv.stripe_count(), lmv.md().map_or(0, |m| m.stripe_fids().len() as u32));
    /// assert!(lmv.hash_type().is_some());
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn stripe_count(&self) -> u32 {
        self.md().map_or(0, LmvMdView::stripe_count)
    }
    /// `lmv_hash_type`, `None` for a foreign LMV.
    pub fn hash_type(&self) -> Option<LmvHashType> {
        self.md().map(LmvMdView::hash_type)
    }
    /// `lmv_master_mdt_index`, `None` for a foreign LMV.
    pub fn master_mdt_index(&self) -> Option<u32> {
        self.md().map(LmvMdView::master_mdt_index)
    }

    /// The magic.
    pub fn magic(&self) -> u32 {
        match self {
            LmvView::Md(m) => m.magic(),
            LmvView::Foreign(f) => f.magic(),
        }
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        match self {
            LmvView::Md(m) => m.wire_len(),
            LmvView::Foreign(f) => f.wire_len(),
        }
    }

    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> Lmv {
        match self {
            LmvView::Md(m) => Lmv::Md(m.to_value()),
            LmvView::Foreign(f) => Lmv::Foreign(f.to_value()),
        }
    }
}

/// An owned `lmv_mds_md_v1`.
///
/// Its serde form ends with `"form"` ([`LmvForm`], informational: checked on input when
/// given).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LmvMd {
    /// [`LMV_MAGIC_V1`] or [`LMV_MAGIC_STRIPE`].
    pub magic: u32,
    /// `lmv_stripe_count`: equals `stripe_fids.len()`, except in the header-only form (the
    /// table empty, [`LmvForm::HeaderOnly`]).
    pub stripe_count: u32,
    /// `lmv_master_mdt_index`.
    pub master_mdt_index: u32,
    /// `lmv_hash_type`.
    pub hash_type: LmvHashType,
    /// `lmv_layout_version`.
    pub layout_version: u32,
    /// `lmv_migrate_offset`.
    pub migrate_offset: u32,
    /// `lmv_migrate_hash`.
    pub migrate_hash: LmvHashType,
    /// `lmv_padding2` and `lmv_padding3` (bytes 28–39), kept as found. In JSON: hex, and left out when zero.
    pub padding: [u8; 12],
    /// `lmv_pool_name`.
    pub pool_name: PoolName,
    /// `lmv_stripe_fids`.
    pub stripe_fids: alloc::vec::Vec<LuFid>,
}

#[cfg(feature = "alloc")]
impl LmvMd {
    /// A striped directory's master LMV (`LMV_MAGIC_V1`) over `stripe_fids`, one per stripe,
    /// the first on `master_mdt_index`: the magic and `lmv_stripe_count` follow from them, and
    /// everything else is zero (layout version 0, not migrating, no pool).
    ///
    /// ```
    /// use lustre_dne_intent::wire::LuFid;
    /// use lustre_dne_intent::xattr::{LmvHashFn, LmvMd, LMV_MAGIC_V1};
    /// let fids = vec![LuFid::new(0x200000400, 2, 0), LuFid::new(0x240000400, 2, 0)];
    /// let lmv = LmvMd::striped(LmvHashFn::FNV_1A_64, 0, fids);
    /// assert_eq!((lmv.magic, lmv.stripe_count), (LMV_MAGIC_V1, 2));
    /// assert_eq!(lmv.hash_type.to_string(), "fnv_1a_64");
    /// ```
    pub fn striped(
        hash_type: impl Into<LmvHashType>,
        master_mdt_index: u32,
        stripe_fids: alloc::vec::Vec<LuFid>,
    ) -> Self {
        LmvMd {
            magic: LMV_MAGIC_V1,
            // A count past u32 cannot be encoded either: the encoder refuses it by its bound.
            stripe_count: u32::try_from(stripe_fids.len()).unwrap_or(u32::MAX),
            master_mdt_index,
            hash_type: hash_type.into(),
            stripe_fids,
            ..Default::default()
        }
    }

    /// The layout of `header`, with bytes 28–39 and the stripe FIDs.
    pub(crate) fn from_header(
        header: &LmvMdsMdV1,
        padding: [u8; 12],
        stripe_fids: alloc::vec::Vec<LuFid>,
    ) -> Self {
        LmvMd {
            magic: header.magic,
            stripe_count: header.stripe_count,
            master_mdt_index: header.master_mdt_index,
            hash_type: header.hash_type,
            layout_version: header.layout_version,
            migrate_offset: header.migrate_offset,
            migrate_hash: header.migrate_hash,
            padding,
            pool_name: header.pool_name,
            stripe_fids,
        }
    }

    /// The header the layout encodes (its padding is [`LmvMd::padding`]).
    pub fn header(&self) -> LmvMdsMdV1 {
        LmvMdsMdV1 {
            magic: self.magic,
            stripe_count: self.stripe_count,
            master_mdt_index: self.master_mdt_index,
            hash_type: self.hash_type,
            layout_version: self.layout_version,
            migrate_offset: self.migrate_offset,
            migrate_hash: self.migrate_hash,
            pool_name: self.pool_name,
        }
    }

    /// The form the stripe count and the FID table make.
    pub fn form(&self) -> LmvForm {
        LmvForm::of(self.stripe_count, self.stripe_fids.len())
    }
}

/// An owned `trusted.lmv`.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub enum Lmv {
    /// `lmv_mds_md_v1`.
    #[cfg_attr(feature = "serde", serde(rename = "lmv_mds_md_v1"))]
    Md(LmvMd),
    /// `lmv_foreign_md`.
    #[cfg_attr(feature = "serde", serde(rename = "lmv_foreign_md"))]
    Foreign(super::ForeignMd),
}

#[cfg(feature = "alloc")]
impl super::XattrEncode for Lmv {
    const STRUCTURE: &'static str = LMV_S;

    fn wire_len(&self) -> usize {
        match self {
            Lmv::Md(m) => m
                .stripe_fids
                .len()
                .saturating_mul(FID_SIZE)
                .saturating_add(FIDS.offset),
            Lmv::Foreign(f) => f.wire_len(),
        }
    }

    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        match self {
            Lmv::Md(m) => {
                let mut header = m.header().to_raw::<LittleEndian>();
                header.as_mut_bytes()[PADDING].copy_from_slice(&m.padding);
                out.put_slice(header.as_bytes());
                for fid in &m.stripe_fids {
                    out.put_slice(fid.to_raw::<LittleEndian>().as_bytes());
                }
            }
            Lmv::Foreign(f) => f.put_unchecked(LMV_MAGIC_FOREIGN, out),
        }
    }

    fn check_encoded(bytes: &[u8]) -> Result<(), DecodeError> {
        LmvView::parse(bytes).map(|_| ())
    }
}
