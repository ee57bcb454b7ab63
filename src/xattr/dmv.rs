//! A directory's default striping, `trusted.dmv` (WIRE.md §9, lustre-wire.md §6):
//! `lmv_user_md_v1`, exactly 48 bytes with LMV_USER_MAGIC, or 48 + 24·count with
//! LMV_USER_MAGIC_SPECIFIC; and the inheritance steps of `lum_max_inherit` and
//! `lum_max_inherit_rr` (MODEL.md §2).

use super::lmv::LmvHashType;
use super::reader::Reader;
use super::{PoolName, bad_magic, check_xattr_size, err_at};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::LMV_MAX_STRIPE_COUNT;
use crate::wire::table::c_struct;
use crate::wire::{LuFid, WireStruct};
use zerocopy::{IntoBytes, LittleEndian};

const DMV_S: &str = lmv_user_md_v1::LAYOUT.name;

/// `LMV_USER_MAGIC`: a default LMV.
pub const LMV_USER_MAGIC: u32 = 0x0CD3_0CD0;
/// `LMV_USER_MAGIC_SPECIFIC`: a default LMV with an explicit MDT list.
pub const LMV_USER_MAGIC_SPECIFIC: u32 = 0x0CD4_0CD0;
/// Most MDT stripes per MDT (`LMV_MAX_STRIPES_PER_MDT`): overstriping counts go down to −5.
pub const LMV_MAX_STRIPES_PER_MDT: i32 = 5;

/// `LMV_INHERIT_UNLIMITED` (also `LMV_INHERIT_DEFAULT_PLAIN`).
pub const LMV_INHERIT_UNLIMITED: u8 = 0;
/// `LMV_INHERIT_END`: the last level that inherits.
pub const LMV_INHERIT_END: u8 = 1;
/// `LMV_INHERIT_MAX`.
pub const LMV_INHERIT_MAX: u8 = 250;
/// `LMV_INHERIT_NONE`: not inherited.
pub const LMV_INHERIT_NONE: u8 = 255;
/// `LMV_INHERIT_RR_NONE` (also the default).
pub const LMV_INHERIT_RR_NONE: u8 = 0;
/// `LMV_INHERIT_RR_MAX`.
pub const LMV_INHERIT_RR_MAX: u8 = 250;
/// `LMV_INHERIT_RR_UNLIMITED`.
pub const LMV_INHERIT_RR_UNLIMITED: u8 = 255;

/// One inheritance step of `lum_max_inherit`: END (1) and NONE (255) become NONE; UNLIMITED (0)
/// and the reserved 251–254 stay; 2–250 lose one.
pub const fn step_max_inherit(v: u8) -> u8 {
    match v {
        LMV_INHERIT_END | LMV_INHERIT_NONE => LMV_INHERIT_NONE,
        LMV_INHERIT_UNLIMITED => v,
        v if v > LMV_INHERIT_MAX => v,
        v => v - 1,
    }
}

/// One inheritance step of `lum_max_inherit_rr`: NONE (0), UNLIMITED (255) and the reserved
/// 251–254 stay (Lustre's `lmv_inherit_rr_next`); 1–250 lose one.
pub const fn step_max_inherit_rr(v: u8) -> u8 {
    match v {
        LMV_INHERIT_RR_NONE | LMV_INHERIT_RR_UNLIMITED => v,
        v if v > LMV_INHERIT_RR_MAX => v,
        v => v - 1,
    }
}

/// True when a new subdirectory stores a copy of a parent default LMV with this
/// `lum_max_inherit`: not for END (1) or NONE (255).
pub const fn inherits_default_lmv(max_inherit: u8) -> bool {
    !matches!(max_inherit, LMV_INHERIT_END | LMV_INHERIT_NONE)
}

/// The header of a default directory layout, `struct lmv_user_md_v1`; with
/// LMV_USER_MAGIC_SPECIFIC, one `lmv_user_mds_data` per stripe follows.
#[c_struct(lmv_user_md_v1, size = 48,
    doc = "A default directory layout (lustre_user.h), little-endian: lum_objects follow for SPECIFIC.",
    raw = LmvUserMdV1Wire)]
#[c_member(22, __u16 lum_padding1, "padding, kept as found")]
#[c_member(24, __u32 lum_padding2, "padding, kept as found")]
#[c_member(28, __u32 lum_padding3, "padding, kept as found")]
#[c_member(48, struct LmvUserMdsData lum_objects[0], nested, "one MDT per stripe (SPECIFIC)")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LmvUserMdV1 {
    /// LMV_USER_MAGIC or LMV_USER_MAGIC_SPECIFIC
    #[c(0, __u32 lum_magic, hex)]
    pub magic: u32,
    /// stripes; −1..−5 ask for overstriping
    #[c(4, __s32 lum_stripe_count)]
    pub stripe_count: i32,
    /// the first stripe's MDT (0xffffffff: any)
    #[c(8, __u32 lum_stripe_offset)]
    pub stripe_offset: u32,
    /// LMV_HASH_TYPE_* and LMV_HASH_FLAG_*
    #[c(12, __u32 lum_hash_type)]
    pub hash_type: LmvHashType,
    /// LMV_TYPE_DEFAULT (0) or RAW (1)
    #[c(16, __u32 lum_type)]
    pub lum_type: u32,
    /// levels of subdirectories the layout is inherited by
    #[c(20, __u8 lum_max_inherit)]
    pub max_inherit: u8,
    /// levels inherited round-robin
    #[c(21, __u8 lum_max_inherit_rr)]
    pub max_inherit_rr: u8,
    /// the MDT pool, NUL-terminated
    #[c(32, __u8 lum_pool_name[16], text)]
    pub pool_name: PoolName,
}

/// [`LmvUserMdV1Wire`] as stored (little-endian).
pub type LmvUserMdV1Raw = LmvUserMdV1Wire<LittleEndian>;

/// One MDT of a SPECIFIC default LMV.
#[c_struct(lmv_user_mds_data, size = 24,
    doc = "One MDT of a SPECIFIC default directory layout (lustre_user.h), little-endian.",
    raw = LmvUserMdsDataWire)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LmvUserMdsData {
    /// the stripe's FID
    #[c(0, struct LuFid lum_fid)]
    pub fid: LuFid,
    /// the MDT index
    #[c(20, __u32 lum_mds)]
    pub mds: u32,
    /// kept as found (zero when written by Lustre); in JSON only when not zero
    #[c(16, __u32 lum_padding)]
    #[cfg_attr(feature = "serde", serde(default, skip_serializing_if = "is_zero_u32"))]
    pub padding: u32,
}

/// [`LmvUserMdsDataWire`] as stored (little-endian).
pub type LmvUserMdsDataRaw = LmvUserMdsDataWire<LittleEndian>;

const HEADER: usize = lmv_user_md_v1::LAYOUT.size;
const OBJECT_SIZE: usize = lmv_user_mds_data::LAYOUT.size;
/// Bytes 22–31, `lum_padding1..3`: kept as found.
const PADDING: core::ops::Range<usize> =
    lmv_user_md_v1::lum_padding1.offset..lmv_user_md_v1::lum_pool_name.offset;

/// A validated `trusted.dmv`, borrowing the input.
#[derive(Debug, Clone, Copy)]
pub struct DefaultLmvView<'a> {
    raw: &'a LmvUserMdV1Raw,
    objects: &'a [LmvUserMdsDataRaw],
}

impl<'a> DefaultLmvView<'a> {
    /// Decodes and validates a `trusted.dmv` payload (WIRE.md §9).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        check_xattr_size(DMV_S, bytes.len())?;
        let magic = super::read_magic(DMV_S, bytes)?;
        if magic != LMV_USER_MAGIC && magic != LMV_USER_MAGIC_SPECIFIC {
            return Err(bad_magic(
                DMV_S,
                lmv_user_md_v1::lum_magic.name,
                magic,
                &[LMV_USER_MAGIC, LMV_USER_MAGIC_SPECIFIC],
            ));
        }
        let mut r = Reader::new(bytes);
        let raw: &LmvUserMdV1Raw = r.fixed(DMV_S)?;
        let count = raw.lum_stripe_count.get();
        let specific = magic == LMV_USER_MAGIC_SPECIFIC;
        let min = if specific {
            0
        } else {
            -LMV_MAX_STRIPES_PER_MDT
        };
        if count < min {
            return Err(err_at(
                DMV_S,
                lmv_user_md_v1::lum_stripe_count,
                0,
                ErrorKind::LmvBadStripeCount { got: count, min },
            ));
        }
        if count > LMV_MAX_STRIPE_COUNT as i32 {
            return Err(err_at(
                DMV_S,
                lmv_user_md_v1::lum_stripe_count,
                0,
                ErrorKind::OverLimit {
                    value: count as u64,
                    max: LMV_MAX_STRIPE_COUNT as u64,
                },
            ));
        }
        let n = if specific { count as usize } else { 0 };
        let Some(objects) = r.rest_of::<LmvUserMdsDataRaw>(n) else {
            return Err(err_at(
                DMV_S,
                if specific {
                    lmv_user_md_v1::lum_stripe_count
                } else {
                    lmv_user_md_v1::lum_magic
                },
                0,
                ErrorKind::PayloadSizeMismatch {
                    len: r.len(),
                    expected: r.end_of::<LmvUserMdsDataRaw>(n),
                },
            ));
        };
        let pool = lmv_user_md_v1::lum_pool_name;
        raw.pool_name().check(DMV_S, pool.name, pool.offset)?;
        Ok(DefaultLmvView { raw, objects })
    }

    /// The view of a payload [`DefaultLmvView::parse`] has accepted already (a result of a validated
    /// reply): its parts are found again, no rule is checked. `None` only for bytes `parse`
    /// refuses.
    pub(crate) fn of_validated(bytes: &'a [u8]) -> Option<Self> {
        let (raw, objects) = Reader::header_and_rest(bytes)?;
        Some(DefaultLmvView { raw, objects })
    }

    /// `lum_magic`.
    pub fn magic(&self) -> u32 {
        self.raw.lum_magic.get()
    }
    /// `lum_stripe_count`.
    pub fn stripe_count(&self) -> i32 {
        self.raw.lum_stripe_count.get()
    }
    /// `lum_stripe_offset`.
    pub fn stripe_offset(&self) -> u32 {
        self.raw.lum_stripe_offset.get()
    }
    /// `lum_hash_type`.
    pub fn hash_type(&self) -> LmvHashType {
        LmvHashType(self.raw.lum_hash_type.get())
    }
    /// `lum_type`.
    pub fn lum_type(&self) -> u32 {
        self.raw.lum_type.get()
    }
    /// `lum_max_inherit`.
    pub fn max_inherit(&self) -> u8 {
        self.raw.lum_max_inherit
    }
    /// `lum_max_inherit_rr`.
    pub fn max_inherit_rr(&self) -> u8 {
        self.raw.lum_max_inherit_rr
    }
    /// `lum_pool_name`.
    pub fn pool_name(&self) -> &'a PoolName {
        let raw: &'a LmvUserMdV1Raw = self.raw;
        zerocopy::transmute_ref!(&raw.lum_pool_name)
    }
    /// The MDT list of a SPECIFIC default LMV (empty otherwise).
    pub fn objects(&self) -> impl ExactSizeIterator<Item = LmvUserMdsData> + Clone + 'a {
        self.objects.iter().map(LmvUserMdsData::from_raw)
    }
    /// Bytes 22–31 (`lum_padding1..3`), kept as found.
    pub fn padding(&self) -> [u8; 10] {
        let mut p = [0u8; 10];
        p.copy_from_slice(&self.raw.as_bytes()[PADDING]);
        p
    }
    /// True when a new subdirectory stores a copy ([`inherits_default_lmv`]).
    pub fn is_inherited(&self) -> bool {
        inherits_default_lmv(self.max_inherit())
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        HEADER + OBJECT_SIZE * self.objects.len()
    }
    /// The raw header.
    pub fn raw(&self) -> &'a LmvUserMdV1Raw {
        self.raw
    }

    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> DefaultLmv {
        DefaultLmv::from_header(&self.header(), self.padding(), self.objects().collect())
    }

    /// The header, as its declared value.
    pub fn header(&self) -> LmvUserMdV1 {
        LmvUserMdV1::from_raw(self.raw)
    }
}

/// An owned `lmv_user_md_v1` (a default LMV).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct DefaultLmv {
    /// [`LMV_USER_MAGIC`] or [`LMV_USER_MAGIC_SPECIFIC`].
    #[cfg_attr(feature = "serde", serde(rename = "lum_magic"))]
    pub magic: u32,
    /// `lum_stripe_count`; with SPECIFIC, equals `objects.len()`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_stripe_count"))]
    pub stripe_count: i32,
    /// `lum_stripe_offset`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_stripe_offset"))]
    pub stripe_offset: u32,
    /// `lum_hash_type`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_hash_type"))]
    pub hash_type: LmvHashType,
    /// `lum_type`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_type"))]
    pub lum_type: u32,
    /// `lum_max_inherit`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_max_inherit"))]
    pub max_inherit: u8,
    /// `lum_max_inherit_rr`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_max_inherit_rr"))]
    pub max_inherit_rr: u8,
    /// `lum_padding1..3` (bytes 22–31), kept as found. In JSON: hex, and left out when zero.
    #[cfg_attr(
        feature = "serde",
        serde(
            default,
            skip_serializing_if = "crate::serde_helpers::bytes::padding::is_zero",
            with = "crate::serde_helpers::bytes::padding"
        )
    )]
    pub padding: [u8; 10],
    /// `lum_pool_name`.
    #[cfg_attr(feature = "serde", serde(rename = "lum_pool_name"))]
    pub pool_name: PoolName,
    /// `lum_objects` (SPECIFIC only).
    #[cfg_attr(feature = "serde", serde(rename = "lum_objects"))]
    pub objects: alloc::vec::Vec<LmvUserMdsData>,
}

#[cfg(feature = "alloc")]
impl DefaultLmv {
    /// The default LMV of `header`, with bytes 22–31 and the MDT list.
    pub(crate) fn from_header(
        header: &LmvUserMdV1,
        padding: [u8; 10],
        objects: alloc::vec::Vec<LmvUserMdsData>,
    ) -> Self {
        DefaultLmv {
            magic: header.magic,
            stripe_count: header.stripe_count,
            stripe_offset: header.stripe_offset,
            hash_type: header.hash_type,
            lum_type: header.lum_type,
            max_inherit: header.max_inherit,
            max_inherit_rr: header.max_inherit_rr,
            padding,
            pool_name: header.pool_name,
            objects,
        }
    }

    /// The header the default LMV encodes (its padding is [`DefaultLmv::padding`]).
    pub fn header(&self) -> LmvUserMdV1 {
        LmvUserMdV1 {
            magic: self.magic,
            stripe_count: self.stripe_count,
            stripe_offset: self.stripe_offset,
            hash_type: self.hash_type,
            lum_type: self.lum_type,
            max_inherit: self.max_inherit,
            max_inherit_rr: self.max_inherit_rr,
            pool_name: self.pool_name,
        }
    }

    /// The copy a new subdirectory stores, with both inherit counters stepped, or `None` when
    /// the parent's `max_inherit` is END or NONE (MODEL.md §2).
    pub fn inherited(&self) -> Option<DefaultLmv> {
        inherits_default_lmv(self.max_inherit).then(|| DefaultLmv {
            max_inherit: step_max_inherit(self.max_inherit),
            max_inherit_rr: step_max_inherit_rr(self.max_inherit_rr),
            ..self.clone()
        })
    }
}

#[cfg(feature = "alloc")]
impl super::XattrEncode for DefaultLmv {
    const STRUCTURE: &'static str = DMV_S;

    fn wire_len(&self) -> usize {
        self.objects
            .len()
            .saturating_mul(OBJECT_SIZE)
            .saturating_add(HEADER)
    }

    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        let mut header = self.header().to_raw::<LittleEndian>();
        header.as_mut_bytes()[PADDING].copy_from_slice(&self.padding);
        out.put_slice(header.as_bytes());
        for o in &self.objects {
            out.put_slice(o.to_raw::<LittleEndian>().as_bytes());
        }
    }

    fn check_encoded(bytes: &[u8]) -> Result<(), DecodeError> {
        DefaultLmvView::parse(bytes).map(|_| ())
    }
}

#[cfg(feature = "serde")]
fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}
