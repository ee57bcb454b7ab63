//! The owned layouts, for building and for serde.

use super::OstId;
use super::{LOV_MAGIC_COMP_V1, LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL, LOV_MAGIC_V1, LOV_S};
use super::{LayoutOf, LcmFlags, LmmMember, LmmUnion, LovOstData, LovPattern, LovView};
use super::{LovCompEntry, LovCompMdV1, LovUserMdV1, LovUserMdV3, lov_comp_md_v1};
use crate::error::DecodeError;
use crate::wire::WireStruct;
use crate::xattr::PoolName;
use zerocopy::byteorder::U32;
use zerocopy::{IntoBytes, LittleEndian};

/// An owned plain layout (V1, V3 or SPECIFIC).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct LovMd {
    /// [`LOV_MAGIC_V1`], [`LOV_MAGIC_V3`](super::LOV_MAGIC_V3) or [`LOV_MAGIC_SPECIFIC`](super::LOV_MAGIC_SPECIFIC).
    pub magic: u32,
    /// `lmm_pattern`.
    pub pattern: LovPattern,
    /// `lmm_oi`.
    pub oi: OstId,
    /// `lmm_stripe_size`.
    pub stripe_size: u32,
    /// `lmm_stripe_count`.
    pub stripe_count: u16,
    /// The 16-bit union at offset 30 with the member it holds: `lmm_stripe_offset` (a template,
    /// a directory default, an uninstantiated component) or `lmm_layout_gen` (a file's
    /// instantiated layout). Both encode as the value; the member names it in the serde form.
    /// The decoder names it from the caller's context ([`LovView::to_value_of`]) or its guess.
    pub stripe_offset: LmmUnion,
    /// `lmm_pool_name`: `Some` exactly for V3 and SPECIFIC.
    pub pool_name: Option<PoolName>,
    /// The stripe objects: none (a template) or one per stripe.
    pub objects: alloc::vec::Vec<LovOstData>,
}

impl LovMd {
    /// The union at offset 30 named by context: see [`LmmUnion::of`].
    pub fn union_member(&self, of: LayoutOf, instantiated: bool) -> LmmUnion {
        LmmUnion::of(self.stripe_offset.value(), of, instantiated)
    }

    /// The layout of `header`, its union at offset 30 named `member`, with the pool name of a
    /// V3 or SPECIFIC header and the stripe objects.
    pub(crate) fn from_header(
        header: &LovUserMdV1,
        member: LmmMember,
        pool_name: Option<PoolName>,
        objects: alloc::vec::Vec<LovOstData>,
    ) -> Self {
        LovMd {
            magic: header.magic,
            pattern: header.pattern,
            oi: header.oi,
            stripe_size: header.stripe_size,
            stripe_count: header.stripe_count,
            stripe_offset: LmmUnion::named(header.stripe_offset, member),
            pool_name,
            objects,
        }
    }

    /// The header the layout encodes, its first 32 bytes (`lov_user_md_v1`; V3 and SPECIFIC
    /// add the pool name).
    pub fn header(&self) -> LovUserMdV1 {
        LovUserMdV1 {
            magic: self.magic,
            pattern: self.pattern,
            oi: self.oi,
            stripe_size: self.stripe_size,
            stripe_count: self.stripe_count,
            stripe_offset: self.stripe_offset.value(),
        }
    }

    fn wire_len(&self) -> usize {
        let hdr = if self.magic == LOV_MAGIC_V1 {
            LovUserMdV1::SIZE
        } else {
            LovUserMdV3::SIZE
        };
        self.objects
            .len()
            .saturating_mul(LovOstData::SIZE)
            .saturating_add(hdr)
    }
    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        out.put_slice(self.header().to_raw::<LittleEndian>().as_bytes());
        if self.magic != LOV_MAGIC_V1 {
            out.put_slice(&self.pool_name.unwrap_or_default().0);
        }
        for o in &self.objects {
            out.put_slice(o.to_raw::<LittleEndian>().as_bytes());
        }
    }
}

/// An owned component blob.
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
    Foreign(crate::xattr::ForeignMd),
}

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

/// An owned component: its entry and its blob. `lcme_offset` and `lcme_size` are not the
/// component's but the composite's framing: the encoder packs the blobs after the entry table,
/// in order, and writes where each lies.
///
/// Its serde form is the entry's members (`lcme_id` … `lcme_compr_bits`), then `layout`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct LovComponent {
    /// The entry.
    pub entry: LovCompEntry,
    /// The blob.
    pub blob: LovBlob,
}

/// An owned composite layout.
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
            skip_serializing_if = "crate::serde_helpers::bytes::padding::is_zero",
            with = "crate::serde_helpers::bytes::padding"
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

impl LovComp {
    /// The layout of `header` (`lcm_size` and `lcm_entry_count` follow from the components),
    /// with bytes 19–31 and the components.
    pub(crate) fn from_header(
        header: &LovCompMdV1,
        padding: [u8; 13],
        components: alloc::vec::Vec<LovComponent>,
    ) -> Self {
        LovComp {
            sel: header.magic == LOV_MAGIC_SEL,
            padding,
            layout_gen: header.layout_gen,
            flags: header.flags,
            mirror_count: header.mirror_count,
            ec_count: header.ec_count,
            components,
        }
    }

    /// The header the layout encodes: its magic, `lcm_size` and `lcm_entry_count` computed.
    pub fn header(&self) -> LovCompMdV1 {
        LovCompMdV1 {
            magic: if self.sel {
                LOV_MAGIC_SEL
            } else {
                LOV_MAGIC_COMP_V1
            },
            size: u32::try_from(self.wire_len()).unwrap_or(u32::MAX),
            layout_gen: self.layout_gen,
            flags: self.flags,
            entry_count: u16::try_from(self.components.len()).unwrap_or(u16::MAX),
            mirror_count: self.mirror_count,
            ec_count: self.ec_count,
        }
    }

    /// Where the blobs start: after the header and the entry table.
    fn table_end(&self) -> usize {
        self.components
            .len()
            .saturating_mul(LovCompEntry::SIZE)
            .saturating_add(LovCompMdV1::SIZE)
    }

    fn wire_len(&self) -> usize {
        self.components.iter().fold(self.table_end(), |acc, c| {
            acc.saturating_add(c.blob.wire_len())
        })
    }
    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        let header = self.header().to_raw::<LittleEndian>();
        out.put_slice(&header.as_bytes()[..lov_comp_md_v1::lcm_padding3.offset]);
        out.put_slice(&self.padding);
        // `validate` has bounded the whole by XATTR_SIZE_MAX: every offset fits a u32.
        let mut offset = self.table_end();
        for c in &self.components {
            let size = c.blob.wire_len();
            let mut entry = c.entry.to_raw::<LittleEndian>();
            entry.lcme_offset = U32::new(offset as u32);
            entry.lcme_size = U32::new(size as u32);
            out.put_slice(entry.as_bytes());
            offset += size;
        }
        for c in &self.components {
            c.blob.put_raw(out);
        }
    }
}

/// An owned `trusted.lov`.
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
    Foreign(crate::xattr::ForeignMd),
}

impl crate::xattr::XattrEncode for Lov {
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
