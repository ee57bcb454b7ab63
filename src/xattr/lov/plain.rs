//! A plain layout: `lov_user_md_v1`, `lov_user_md_v3` and LOV_MAGIC_SPECIFIC.

use super::lov_user_ost_data_v1;
use super::{LOV_ALL_STRIPES_WIDE, LOV_MAGIC_SPECIFIC, LOV_MAGIC_V1, LOV_OST_IDX_NONE};
use super::{LOV_V1_S, LOV_V3_S, stripe_objects};
use super::{LayoutOf, LmmUnion, LovOstData, LovPattern, OstId};
#[cfg(feature = "alloc")]
use super::{LmmMember, LovMd};
use super::{LovUserMdV1, LovUserMdV1Raw, LovUserOstDataRaw, lov_user_md_v1, lov_user_md_v3};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::LOV_MAX_STRIPE_COUNT;
use crate::wire::WireStruct;
use crate::xattr::reader::Reader;
use crate::xattr::{PoolName, err_at};

const V1_SIZE: usize = lov_user_md_v1::LAYOUT.size;
const V3_SIZE: usize = lov_user_md_v3::LAYOUT.size;
const OBJECT_SIZE: usize = lov_user_ost_data_v1::LAYOUT.size;

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
    /// Inlined into its two callers: called, it wrote the view into its `Result` with small
    /// stores, and the caller's 16-byte copy waited for them (a store-forwarding stall that
    /// doubled the time of a composite layout's decode).
    #[inline]
    pub(super) fn parse(bytes: &'a [u8], uninit: bool) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let v1: &LovUserMdV1Raw = r.fixed(LOV_V1_S)?;
        let v3 = v1.lmm_magic.get() != LOV_MAGIC_V1;
        let (s, objects_at) = if v3 {
            (LOV_V3_S, lov_user_md_v3::lmm_objects)
        } else {
            (LOV_V1_S, lov_user_md_v1::lmm_objects)
        };
        let sc = v1.lmm_stripe_count.get();
        if sc < LOV_ALL_STRIPES_WIDE && sc as usize > LOV_MAX_STRIPE_COUNT {
            return Err(err_at(
                s,
                lov_user_md_v1::lmm_stripe_count,
                0,
                ErrorKind::OverLimit {
                    value: sc as u64,
                    max: LOV_MAX_STRIPE_COUNT as u64,
                },
            ));
        }
        let pool = if v3 {
            let p: &PoolName = r.fixed(s)?;
            let at = lov_user_md_v3::lmm_pool_name;
            p.check(s, at.name, at.offset)?;
            Some(p)
        } else {
            None
        };
        let n = stripe_objects(sc);
        // An uninstantiated component: Lustre keeps the header's count but stores one entry
        // with l_ost_idx = -1 (lod_comp_shrink_stripe_count), or one per stripe when the
        // component was made with an OST list (`lfs setstripe -o`).
        let placeholder = uninit && r.left() == OBJECT_SIZE && n != 1;
        let objects = match r.rest_as::<LovUserOstDataRaw>() {
            Some([one]) if placeholder && one.l_ost_idx.get() != LOV_OST_IDX_NONE => {
                return Err(err_at(
                    s,
                    objects_at,
                    0,
                    ErrorKind::LovUninitObjects {
                        objects: 1,
                        stripes: n,
                    },
                ));
            }
            Some(objects) if placeholder || objects.is_empty() || objects.len() == n => objects,
            _ => {
                return Err(err_at(
                    s,
                    lov_user_md_v1::lmm_stripe_count,
                    0,
                    ErrorKind::PayloadSizeMismatch {
                        len: r.len(),
                        expected: objects_at.offset + OBJECT_SIZE * n,
                    },
                ));
            }
        };
        Ok(LovMdView { v1, pool, objects })
    }

    /// The view of a plain layout [`LovMdView::parse`] has accepted already: its header, its
    /// pool name (V3 and SPECIFIC) and its objects are found again, no rule is checked.
    pub(super) fn of_validated(bytes: &'a [u8]) -> Option<Self> {
        let mut r = Reader::new(bytes);
        let v1: &LovUserMdV1Raw = r.take_ref()?;
        let pool = if v1.lmm_magic.get() == LOV_MAGIC_V1 {
            None
        } else {
            Some(r.take_ref::<PoolName>()?)
        };
        let objects = r.rest_as()?;
        Some(LovMdView { v1, pool, objects })
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
        self.objects.iter().map(LovOstData::from_raw)
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        (if self.pool.is_some() {
            V3_SIZE
        } else {
            V1_SIZE
        }) + OBJECT_SIZE * self.objects.len()
    }

    /// An owned copy, naming the union at offset 30 as a top-level layout would by
    /// [`LovView::layout_of_guess`](super::LovView::layout_of_guess)'s rule.
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
        LovMd::from_header(
            &self.header(),
            member,
            self.pool.copied(),
            self.objects().collect(),
        )
    }

    /// The first 32 bytes, as their declared value (`lov_user_md_v1`, which V3 and SPECIFIC
    /// extend with the pool name).
    pub fn header(&self) -> LovUserMdV1 {
        LovUserMdV1::from_raw(self.v1)
    }

    /// Object entries exist only in a file's layout (a SPECIFIC template lists OSTs), and so
    /// does a released pattern.
    pub(super) fn is_file_layout(&self) -> bool {
        (!self.objects.is_empty() && self.magic() != LOV_MAGIC_SPECIFIC)
            || self.pattern().contains(LovPattern::F_RELEASED)
    }
}
