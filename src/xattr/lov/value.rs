//! The owned layouts, for building and for serde.

use super::OstId;
use super::{LOV_MAGIC_COMP_V1, LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL, LOV_MAGIC_V1, LOV_S};
use super::{LayoutOf, LcmFlags, LmmUnion, LovCompEntry, LovOstData, LovPattern, LovView};
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
        out.put_u16_le(self.stripe_offset.value());
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
            let mut entry = c.entry.to_raw::<LittleEndian>();
            entry.lcme_offset = U32::new(off as u32);
            entry.lcme_size = U32::new(size as u32);
            out.put_slice(entry.as_bytes());
            off += size;
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
