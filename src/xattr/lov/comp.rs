//! A composite layout, `lov_comp_md_v1`: its entries and their blobs.

use super::LayoutOf;
use super::{COMP_S, ENTRY_S, FOREIGN_S, KNOWN, LOV_S};
use super::{LOV_MAGIC_COMP_V1, LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL, LOV_MAGIC_SPECIFIC};
use super::{LOV_MAGIC_V1, LOV_MAGIC_V3};
use super::{LcmFlags, LcmeFlags, LovMdView};
#[cfg(feature = "alloc")]
use super::{LmmMember, LovBlob, LovComp, LovComponent};
use crate::error::{DecodeError, ErrorKind};
use crate::wire::table::{WireStruct, c_struct};
use crate::xattr::reader::Reader;
use crate::xattr::{ForeignView, bad_magic, err, err_at};
use zerocopy::{IntoBytes, LittleEndian};

/// One component's attributes in a composite layout; where its blob lies (`lcme_offset`,
/// `lcme_size`) is the composite's framing, set on encoding ([`LovComponentView`] shows it).
#[c_struct(lov_comp_md_entry_v1, size = 48,
    doc = "One entry of a composite layout's table (lustre_user.h), little-endian; its \
           lu_extent lcme_extent is named by its members.",
    raw = LovCompMdEntryV1Wire)]
#[c_member(24, __u32 lcme_offset, decimal, "the blob's offset from the start of the composite layout")]
#[c_member(28, __u32 lcme_size, decimal, "the blob's size")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LovCompEntry {
    /// the component's id; bits 16–30 the mirror id
    #[c(0, __u32 lcme_id)]
    pub id: u32,
    /// LCME_FL_*
    #[c(4, __u32 lcme_flags)]
    pub flags: LcmeFlags,
    /// lcme_extent.e_start: the extent's first byte
    #[c(8, __u64 lcme_extent_start)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub extent_start: u64,
    /// lcme_extent.e_end: the byte past its last (u64::MAX: EOF)
    #[c(16, __u64 lcme_extent_end)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub extent_end: u64,
    /// the component's layout generation
    #[c(32, __u32 lcme_layout_gen)]
    pub layout_gen: u32,
    /// timestamp in bits 0–47, mirror link id in bits 48–63
    #[c(36, __u64 lcme_time_and_id, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub time_and_id: u64,
    /// data stripe count (erasure coding)
    #[c(44, __u8 lcme_dstripe_count)]
    pub dstripe_count: u8,
    /// code stripe count (erasure coding)
    #[c(45, __u8 lcme_cstripe_count)]
    pub cstripe_count: u8,
    /// compression type
    #[c(46, __u8 lcme_compr_type)]
    pub compr_type: u8,
    /// lcme_compr_lvl:4 (low nibble) and lcme_compr_chunk_lum_bits:4 (high nibble)
    #[c(47, __u8 lcme_compr_bits, hex)]
    pub compr_bits: u8,
}

/// [`LovCompMdEntryV1Wire`] as stored (little-endian).
pub type LovCompMdEntryV1Raw = LovCompMdEntryV1Wire<LittleEndian>;

/// The header of a composite layout; the entry table follows, then the blobs.
#[c_struct(lov_comp_md_v1, size = 32,
    doc = "A composite layout (lustre_user.h), little-endian: lcm_entry_count entries follow.",
    raw = LovCompMdV1Wire)]
#[c_member(19, __u8 lcm_padding3, "padding")]
#[c_member(20, __u16 lcm_padding1[2], "padding")]
#[c_member(24, __u64 lcm_padding2, "padding; a stripe count and size after a client read")]
#[c_member(32, struct LovCompEntry lcm_entries[0], nested, "the entry table")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LovCompMdV1 {
    /// LOV_MAGIC_COMP_V1, or LOV_MAGIC_SEL as stored on disk
    #[c(0, __u32 lcm_magic, hex)]
    pub magic: u32,
    /// the whole layout, this header included
    #[c(4, __u32 lcm_size)]
    pub size: u32,
    /// the layout's generation
    #[c(8, __u32 lcm_layout_gen)]
    pub layout_gen: u32,
    /// LCM_FL_*
    #[c(12, __u16 lcm_flags)]
    pub flags: LcmFlags,
    /// entries in the table
    #[c(14, __u16 lcm_entry_count)]
    pub entry_count: u16,
    /// mirrors − 1
    #[c(16, __u16 lcm_mirror_count)]
    pub mirror_count: u16,
    /// erasure-coded components
    #[c(18, __u8 lcm_ec_count)]
    pub ec_count: u8,
}

/// [`LovCompMdV1Wire`] as stored (little-endian).
pub type LovCompMdV1Raw = LovCompMdV1Wire<LittleEndian>;

/// The entry table: where it starts, one [`FieldAt`](crate::wire::layout::FieldAt) per entry.
const ENTRIES: crate::wire::layout::FieldAt = lov_comp_md_v1::lcm_entries;

impl LovCompEntry {
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

impl LovCompMdEntryV1Raw {
    /// `lcme_offset` and `lcme_size`: where the entry's blob lies in the composite layout.
    fn placement(&self) -> (u32, u32) {
        (self.lcme_offset.get(), self.lcme_size.get())
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
        match crate::xattr::read_magic(LOV_S, blob)? {
            LOV_MAGIC_V1 | LOV_MAGIC_V3 | LOV_MAGIC_SPECIFIC => {
                LovMdView::parse(blob, uninit).map(LovBlobView::Md)
            }
            LOV_MAGIC_FOREIGN => {
                ForeignView::parse(FOREIGN_S, crate::xattr::lov_foreign_md::lfm_length, blob)
                    .map(LovBlobView::Foreign)
            }
            LOV_MAGIC_COMP_V1 | LOV_MAGIC_SEL => Err(err(
                LOV_S,
                super::lov_user_md_v1::lmm_magic.name,
                0,
                ErrorKind::LovNestedComposite { index },
            )),
            m => Err(bad_magic(
                LOV_S,
                super::lov_user_md_v1::lmm_magic.name,
                m,
                &KNOWN,
            )),
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

/// One component of a composite layout: its entry, where its blob lies, and the blob.
#[derive(Debug, Clone, Copy)]
pub struct LovComponentView<'a> {
    /// The entry.
    pub entry: LovCompEntry,
    /// `lcme_offset`: where the blob starts in the composite layout.
    pub offset: u32,
    /// `lcme_size`: the blob's size.
    pub size: u32,
    /// The blob.
    pub blob: LovBlobView<'a>,
}

impl<'a> LovComponentView<'a> {
    /// True when the component can only be part of a file's layout.
    fn is_file_like(&self) -> bool {
        match &self.blob {
            LovBlobView::Md(m) => m.is_file_layout(),
            LovBlobView::Foreign(_) => true,
        }
    }

    /// Whose layout these components most likely make up (the composite case of
    /// [`LovView::layout_of_guess`](super::LovView::layout_of_guess)).
    pub(super) fn layout_of_guess(mut components: impl Iterator<Item = Self>) -> LayoutOf {
        if components.any(|c| c.is_file_like()) {
            LayoutOf::File
        } else {
            LayoutOf::Dir
        }
    }

    /// An owned copy, the blob's union named as lfs reads a layout `of` a file or a directory.
    #[cfg(feature = "alloc")]
    fn to_value_of(self, of: LayoutOf) -> LovComponent {
        let init = self.entry.flags.contains(LcmeFlags::INIT);
        LovComponent {
            entry: self.entry,
            blob: self.blob.to_value_named(LmmMember::of(of, init)),
        }
    }
}

/// A validated composite layout, borrowing the input.
#[derive(Debug, Clone, Copy)]
pub struct LovCompView<'a> {
    raw: &'a LovCompMdV1Raw,
    entries: &'a [LovCompMdEntryV1Raw],
    bytes: &'a [u8],
}

impl<'a> LovCompView<'a> {
    /// Parses a composite layout. Inlined, with [`LovCompView::check_blobs`], into its one
    /// caller [`LovView::parse`](super::LovView::parse), so that the view is not returned
    /// through memory.
    #[inline]
    pub(super) fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let len = r.len();
        let raw: &LovCompMdV1Raw = r.fixed(COMP_S)?;
        let size = raw.lcm_size.get() as usize;
        if size != len {
            return Err(err_at(
                COMP_S,
                lov_comp_md_v1::lcm_size,
                0,
                ErrorKind::PayloadSizeMismatch {
                    len,
                    expected: size,
                },
            ));
        }
        let count = raw.lcm_entry_count.get();
        if count == 0 {
            return Err(err_at(
                COMP_S,
                lov_comp_md_v1::lcm_entry_count,
                0,
                ErrorKind::LovCompNoEntries,
            ));
        }
        let Some(entries) = r.array::<LovCompMdEntryV1Raw>(count as usize) else {
            return Err(err_at(
                COMP_S,
                lov_comp_md_v1::lcm_entry_count,
                0,
                ErrorKind::LovEntryTableOutside {
                    count,
                    end: r.end_of::<LovCompMdEntryV1Raw>(count as usize),
                    len,
                },
            ));
        };
        Self::check_blobs(&r, entries)?;
        Ok(LovCompView {
            raw,
            entries,
            bytes,
        })
    }

    /// Every entry's blob inside the payload, after the table, apart from the others', and a
    /// valid layout. `r` stands right after the table.
    #[inline]
    fn check_blobs(r: &Reader<'a>, entries: &[LovCompMdEntryV1Raw]) -> Result<(), DecodeError> {
        let (len, table_end) = (r.len(), r.at());
        // The end of the furthest blob seen so far: a blob starting at or after it overlaps no
        // earlier one, which keeps the usual layout (blobs in table order) linear. Only a blob
        // that starts before it is compared with every earlier entry.
        let mut max_end = table_end;
        for (i, e) in entries.iter().enumerate() {
            let at = ENTRIES.element(i).offset;
            let lcme_offset = |kind| err_at(ENTRY_S, lov_comp_md_entry_v1::lcme_offset, at, kind);
            let (offset, size) = e.placement();
            let Some(blob) = r.window(offset as usize, size as usize) else {
                return Err(lcme_offset(ErrorKind::LovComponentOutside {
                    index: i,
                    offset,
                    size,
                    len,
                }));
            };
            let (start, end) = span(offset, size);
            if start < table_end {
                return Err(lcme_offset(ErrorKind::LovComponentOverlapsTable {
                    index: i,
                    offset,
                    table_end,
                }));
            }
            if start < max_end {
                let mut earlier = entries[..i].iter().map(span_of);
                if let Some(j) = earlier.position(|(ps, pe)| start < pe && ps < end) {
                    return Err(lcme_offset(ErrorKind::LovComponentOverlap {
                        index: i,
                        other: j,
                    }));
                }
            }
            max_end = max_end.max(end);
            let uninit = !LcmeFlags(e.lcme_flags.get()).contains(LcmeFlags::INIT);
            LovBlobView::parse(i, blob, uninit).map_err(|e| e.shifted(start))?;
        }
        Ok(())
    }

    /// The view of a composite layout [`LovCompView::parse`] has accepted already: its header
    /// and entry table are found again, no rule is checked.
    pub(super) fn of_validated(bytes: &'a [u8]) -> Option<Self> {
        let mut r = Reader::new(bytes);
        let raw: &LovCompMdV1Raw = r.take_ref()?;
        let entries = r.array(raw.lcm_entry_count.get() as usize)?;
        Some(LovCompView {
            raw,
            entries,
            bytes,
        })
    }

    /// The header, as its declared value.
    pub fn header(&self) -> LovCompMdV1 {
        LovCompMdV1::from_raw(self.raw)
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
        p.copy_from_slice(
            &self.raw.as_bytes()[lov_comp_md_v1::lcm_padding3.offset..ENTRIES.offset],
        );
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
        let r = Reader::new(self.bytes);
        self.entries.iter().enumerate().filter_map(move |(i, e)| {
            let entry = LovCompEntry::from_raw(e);
            let (offset, size) = e.placement();
            let blob = r.window(offset as usize, size as usize)?;
            // Validated by `parse`: never skips.
            let uninit = !entry.flags.contains(LcmeFlags::INIT);
            let blob = LovBlobView::parse(i, blob, uninit).ok()?;
            Some(LovComponentView {
                entry,
                offset,
                size,
                blob,
            })
        })
    }

    /// An owned copy, its unions named as
    /// [`LovView::layout_of_guess`](super::LovView::layout_of_guess) says. Each component's blob
    /// is framed once, for the guess and the copy both.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> LovComp {
        let components: alloc::vec::Vec<_> = self.components().collect();
        let of = LovComponentView::layout_of_guess(components.iter().copied());
        self.owned_from(components.into_iter(), of)
    }

    /// An owned copy, its unions named as lfs reads a layout `of` a file or a directory.
    #[cfg(feature = "alloc")]
    pub fn to_value_of(&self, of: LayoutOf) -> LovComp {
        self.owned_from(self.components(), of)
    }

    #[cfg(feature = "alloc")]
    fn owned_from(
        &self,
        components: impl Iterator<Item = LovComponentView<'a>>,
        of: LayoutOf,
    ) -> LovComp {
        LovComp::from_header(
            &self.header(),
            self.padding(),
            components.map(|c| c.to_value_of(of)).collect(),
        )
    }
}

/// The bytes `[start, end)` a blob of `size` at `offset` covers; called for blobs that
/// [`Reader::window`] has found inside the payload, so the sum fits.
fn span(offset: u32, size: u32) -> (usize, usize) {
    (offset as usize, offset as usize + size as usize)
}

/// [`span`] of an entry's blob.
fn span_of(e: &LovCompMdEntryV1Raw) -> (usize, usize) {
    let (offset, size) = e.placement();
    span(offset, size)
}
