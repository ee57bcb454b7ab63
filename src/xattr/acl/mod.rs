//! POSIX ACLs (`system.posix_acl_access`, `system.posix_acl_default`): the Linux xattr format
//! and its validity rules (WIRE.md §9). With the `posix` feature, the three pieces of ACL
//! semantics the model needs (lustre-semantics.md §7, MODEL.md §2); the codec's rules use none:
#![cfg_attr(
    feature = "posix",
    doc = "- permission evaluation for given credentials ([`AclView::permission`]);"
)]
#![cfg_attr(
    not(feature = "posix"),
    doc = "- permission evaluation for given credentials (`AclView::permission`);"
)]
//! - `posix_acl_create`: masking a new object's mode with a parent's default ACL
//!   (`posix_acl_create` and `Acl::create_masq`, with the `alloc` feature too);
#![cfg_attr(
    feature = "posix",
    doc = "- `posix_acl_equiv_mode`: whether an ACL says no more than a mode ([`AclView::equiv_mode`])."
)]
#![cfg_attr(
    not(feature = "posix"),
    doc = "- `posix_acl_equiv_mode`: whether an ACL says no more than a mode (`AclView::equiv_mode`)."
)]
//!
//! With the `text` feature, `AclView::getfacl` renders an ACL as `getfacl` prints it.

#[cfg(all(feature = "posix", feature = "alloc"))]
mod create;
#[cfg(feature = "posix")]
mod perm;
#[cfg(feature = "text")]
mod text;
#[cfg(feature = "alloc")]
mod value;

#[cfg(all(feature = "posix", feature = "alloc"))]
pub use create::{AclCreated, posix_acl_create};
#[cfg(feature = "posix")]
pub use perm::{AclClass, AclPermission, Credentials, EquivMode, generic_permission};
#[cfg(feature = "text")]
pub use text::{AclKind, Getfacl};
#[cfg(feature = "alloc")]
pub use value::Acl;

use super::reader::Reader;
use super::{check_xattr_size, err, err_at};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::{ACL_MAX_ENTRIES, XATTR_SIZE_MAX};
use crate::wire::table::c_struct;
use core::fmt;
use zerocopy::byteorder::U64;
use zerocopy::{FromBytes, LittleEndian};

const ACL_S: &str = "posix_acl_xattr";

/// `POSIX_ACL_XATTR_VERSION`.
pub const POSIX_ACL_XATTR_VERSION: u32 = 2;
/// `ACL_UNDEFINED_ID`: the `e_id` written for entries that name no one.
pub const ACL_UNDEFINED_ID: u32 = u32::MAX;
/// `MAY_EXEC` (= `ACL_EXECUTE`).
pub const MAY_EXEC: u32 = 1;
/// `MAY_WRITE` (= `ACL_WRITE`).
pub const MAY_WRITE: u32 = 2;
/// `MAY_READ` (= `ACL_READ`).
pub const MAY_READ: u32 = 4;

wire_enum! {
    /// `e_tag` of an ACL entry.
    pub struct AclTag(u16) {
        /// `ACL_USER_OBJ`: the owner.
        const USER_OBJ = 0x01, "USER_OBJ";
        /// `ACL_USER`: a named user.
        const USER = 0x02, "USER";
        /// `ACL_GROUP_OBJ`: the owning group.
        const GROUP_OBJ = 0x04, "GROUP_OBJ";
        /// `ACL_GROUP`: a named group.
        const GROUP = 0x08, "GROUP";
        /// `ACL_MASK`: the cap on named users and all groups.
        const MASK = 0x10, "MASK";
        /// `ACL_OTHER`: everyone else.
        const OTHER = 0x20, "OTHER";
    }
}

impl AclTag {
    /// True for USER and GROUP, the entries whose `e_id` means something.
    pub const fn is_named(self) -> bool {
        matches!(self.0, 0x02 | 0x08)
    }
}

/// `e_perm`: read 4, write 2, execute 1. Displays as `rwx` / `r-x` / `---`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(transparent)
)]
pub struct AclPerm(pub u16);

impl AclPerm {
    /// `ACL_READ`.
    pub const READ: AclPerm = AclPerm(4);
    /// `ACL_WRITE`.
    pub const WRITE: AclPerm = AclPerm(2);
    /// `ACL_EXECUTE`.
    pub const EXECUTE: AclPerm = AclPerm(1);
    /// All three (`rwx`).
    pub const RWX: AclPerm = AclPerm(7);
    /// Read and execute (`r-x`): what a directory's readers and searchers get.
    pub const RX: AclPerm = AclPerm(5);
    /// Read and write (`rw-`).
    pub const RW: AclPerm = AclPerm(6);
    /// None (`---`).
    pub const NONE: AclPerm = AclPerm(0);

    /// The raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }
    /// True when every bit of `want` (`MAY_*` bits) is granted.
    pub const fn grants(self, want: u32) -> bool {
        (self.0 as u32) & want == want
    }
}

/// `AclPerm::READ | AclPerm::EXECUTE == AclPerm::RX`.
/// `e_perm` converts to and from its bits (the declaration's accessor and conversions).
impl crate::flags::WireBits for AclPerm {
    const TYPE: &'static str = "AclPerm";
    const BITS: u32 = u16::BITS;
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
        AclPerm(v as u16)
    }
}

impl core::ops::BitOr for AclPerm {
    type Output = AclPerm;
    fn bitor(self, rhs: AclPerm) -> AclPerm {
        AclPerm(self.0 | rhs.0)
    }
}

impl core::ops::BitOrAssign for AclPerm {
    fn bitor_assign(&mut self, rhs: AclPerm) {
        self.0 |= rhs.0;
    }
}

impl fmt::Display for AclPerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        let c = |bit: u16, ch: char| if b & bit != 0 { ch } else { '-' };
        write!(f, "{}{}{}", c(4, 'r'), c(2, 'w'), c(1, 'x'))?;
        if b & !7 != 0 {
            write!(f, "+{:#x}", b & !7)?;
        }
        Ok(())
    }
}

impl fmt::Debug for AclPerm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AclPerm({self})")
    }
}

/// One ACL entry. `id` is meaningful for USER and GROUP only; decoders report
/// [`ACL_UNDEFINED_ID`] for the others (the wire value is ignored on read).
#[c_struct(posix_acl_xattr_entry, size = 8,
    doc = "One entry of a POSIX ACL xattr (linux/posix_acl_xattr.h), little-endian.",
    raw = AclEntryWire)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct AclEntry {
    /// ACL_USER_OBJ … ACL_OTHER
    #[c(0, __u16 e_tag, enum)]
    pub tag: AclTag,
    /// permission bits rwx
    #[c(2, __u16 e_perm, octal)]
    pub perm: AclPerm,
    /// a uid for USER, a gid for GROUP, else ACL_UNDEFINED_ID
    #[c(4, __u32 e_id)]
    pub id: u32,
}

/// [`AclEntryWire`] as stored: an ACL xattr is little-endian on every host.
pub type AclEntryRaw = AclEntryWire<LittleEndian>;

/// The header of an ACL xattr: its version; the entries follow.
#[c_struct(posix_acl_xattr_header, size = 4,
    doc = "The header of a POSIX ACL xattr (linux/posix_acl_xattr.h): the entries follow.",
    raw = AclHeaderWire)]
#[c_member(4, struct AclEntry a_entries[0], nested, "the entries, to the end of the xattr")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct AclHeader {
    /// POSIX_ACL_XATTR_VERSION
    #[c(0, __u32 a_version)]
    pub version: u32,
}

/// [`AclHeaderWire`] as stored (little-endian).
pub type AclHeaderRaw = AclHeaderWire<LittleEndian>;

impl AclEntry {
    /// An entry; the id of an unnamed entry becomes [`ACL_UNDEFINED_ID`].
    pub const fn new(tag: AclTag, perm: AclPerm, id: u32) -> Self {
        AclEntry {
            tag,
            perm,
            id: if tag.is_named() { id } else { ACL_UNDEFINED_ID },
        }
    }
}

impl AclEntryRaw {
    fn entry(&self) -> AclEntry {
        AclEntry::new(
            AclTag(self.e_tag.get()),
            AclPerm(self.e_perm.get()),
            self.e_id.get(),
        )
    }
}

/// Where the entries start, and the size of one.
const ENTRIES: crate::wire::layout::FieldAt = posix_acl_xattr_header::a_entries;
const ENTRY_SIZE: usize = posix_acl_xattr_entry::LAYOUT.size;

/// Checks entries against the `posix_acl_valid` rules plus strictly increasing named ids
/// (lustre-semantics.md §7). `(index, tag, perm, id)`; offsets are those of the xattr.
fn check_entries(entries: impl Iterator<Item = (u16, u16, u32)>) -> Result<(), DecodeError> {
    // 0: want USER_OBJ; 1: USERs; 2: GROUPs (after GROUP_OBJ); 3: after MASK; 4: after OTHER.
    let mut state = 0u8;
    let mut named = false;
    let mut mask = false;
    let mut prev_user: Option<u32> = None;
    let mut prev_group: Option<u32> = None;
    let mut n = 0usize;
    for (index, (tag, perm, id)) in entries.enumerate() {
        n = index + 1;
        let off = ENTRIES.element(index).offset;
        let t = AclTag(tag);
        let Some(name) = t.name() else {
            return Err(err_at(
                ACL_S,
                posix_acl_xattr_entry::e_tag,
                off,
                ErrorKind::AclBadTag { index, tag },
            ));
        };
        if perm > 7 {
            return Err(err_at(
                ACL_S,
                posix_acl_xattr_entry::e_perm,
                off,
                ErrorKind::AclBadPerm { index, perm },
            ));
        }
        let order = || {
            err_at(
                ACL_S,
                posix_acl_xattr_entry::e_tag,
                off,
                ErrorKind::AclOrder { index, tag: name },
            )
        };
        let ids = |prev: &mut Option<u32>| -> Result<(), DecodeError> {
            if let Some(p) = *prev {
                if id == p {
                    return Err(err_at(
                        ACL_S,
                        posix_acl_xattr_entry::e_id,
                        off,
                        ErrorKind::AclDuplicateEntry { index, id },
                    ));
                }
                if id < p {
                    return Err(err_at(
                        ACL_S,
                        posix_acl_xattr_entry::e_id,
                        off,
                        ErrorKind::AclIdsNotIncreasing { index, prev: p, id },
                    ));
                }
            }
            *prev = Some(id);
            Ok(())
        };
        state = match (t, state) {
            (AclTag::USER_OBJ, 0) => 1,
            (AclTag::USER, 1) => {
                named = true;
                ids(&mut prev_user)?;
                1
            }
            (AclTag::GROUP_OBJ, 1) => 2,
            (AclTag::GROUP, 2) => {
                named = true;
                ids(&mut prev_group)?;
                2
            }
            (AclTag::MASK, 2) => {
                mask = true;
                3
            }
            (AclTag::OTHER, 2 | 3) => 4,
            _ => return Err(order()),
        };
    }
    if n == 0 {
        return Ok(());
    }
    let end = ENTRIES.element(n).offset;
    let missing = match state {
        0 => Some("USER_OBJ"),
        1 => Some("GROUP_OBJ"),
        2 | 3 => Some("OTHER"),
        _ => None,
    };
    if let Some(tag) = missing {
        return Err(err(
            ACL_S,
            ENTRIES.name,
            end,
            ErrorKind::AclMissingEntry { tag },
        ));
    }
    if named && !mask {
        return Err(err(ACL_S, ENTRIES.name, end, ErrorKind::AclMissingMask));
    }
    Ok(())
}

/// The rules of [`check_entries`] without its walk: `true` exactly when `check_entries` accepts
/// (a property test holds the two together), in a few instructions per entry.
///
/// A valid ACL is USER_OBJ, USERs, GROUP_OBJ, GROUPs, at most one MASK (required after a named
/// entry), OTHER. The ends are fixed: USER_OBJ first, OTHER last, and MASK just before it when
/// there is one. What lies between is the USER run, GROUP_OBJ and the GROUP run. GROUP_OBJ is
/// at an end of that middle when a run is empty; otherwise the USER run is found by binary
/// search (its tags are consecutive in a valid ACL). Both runs are checked with straight-line
/// loops. Every entry is covered by exactly one check, so an unsorted input
/// cannot slip through a run the search misjudged.
fn entries_valid(words: &[U64<LittleEndian>]) -> bool {
    /// `e_tag` and `e_perm` bits of an entry word that must equal the tag (`e_perm` ≤ 7).
    const TAG_PERM: u64 = 0xfff8_ffff;
    let is = |w: &U64<LittleEndian>, tag: AclTag| w.get() & TAG_PERM == u64::from(tag.0);
    let tag_of = |w: &U64<LittleEndian>| w.get() & 0xffff;
    let Some((first, rest)) = words.split_first() else {
        return true;
    };
    let Some((other, rest)) = rest.split_last() else {
        return false;
    };
    // MASK, when present, is the entry before OTHER; a misplaced one fails a run's check.
    let (mask, mid) = match rest.split_last() {
        Some((m, mid)) if tag_of(m) == u64::from(AclTag::MASK.0) => (Some(m), mid),
        _ => (None, rest),
    };
    // Most ACLs name users only or groups only, and then GROUP_OBJ ends or starts `mid`: no
    // search (callgrind: 40 instructions at 28 named users). A wrong guess on a broken ACL
    // still leaves every entry to exactly one check below, which refuses it.
    let is_group_obj = |w: Option<&U64<LittleEndian>>| {
        w.is_some_and(|w| tag_of(w) == u64::from(AclTag::GROUP_OBJ.0))
    };
    let users = if is_group_obj(mid.last()) {
        mid.len() - 1
    } else if is_group_obj(mid.first()) {
        0
    } else {
        mid.partition_point(|w| tag_of(w) == u64::from(AclTag::USER.0))
    };
    let (user_run, mid) = mid.split_at(users);
    let Some((group_obj, group_run)) = mid.split_first() else {
        return false;
    };
    let named = !user_run.is_empty() || !group_run.is_empty();
    let mask_ok = match mask {
        Some(m) => is(m, AclTag::MASK),
        None => !named,
    };
    is(first, AclTag::USER_OBJ)
        && is(other, AclTag::OTHER)
        && mask_ok
        && is(group_obj, AclTag::GROUP_OBJ)
        && named_run_valid(user_run, AclTag::USER)
        && named_run_valid(group_run, AclTag::GROUP)
}

/// Every entry of `run` has tag `tag` and `e_perm` ≤ 7, and the ids strictly increase. No early
/// exit: the loops accumulate, so they stay short and branch-free.
fn named_run_valid(run: &[U64<LittleEndian>], tag: AclTag) -> bool {
    let Some(first) = run.first() else {
        return true;
    };
    let (mut any, mut all) = (first.get(), first.get());
    // Bit 63 of `a_id - b_id` (ids zero-extended) is set exactly when b_id > a_id: an AND of
    // those differences keeps it only when the ids strictly increase. Shifts, subtractions and
    // ANDs of 64-bit lanes are all SSE2, where a 64-bit compare is not (callgrind: 8.5 → 4
    // instructions an entry).
    let mut rising = u64::MAX;
    for (a, b) in run.iter().zip(&run[1..]) {
        let (a, b) = (a.get(), b.get());
        any |= b;
        all &= b;
        rising &= (a >> 32).wrapping_sub(b >> 32);
    }
    let tag = u64::from(tag.0);
    any & 0xfff8_ffff == tag && all & 0xffff == tag && rising >> 63 == 1
}

/// A validated POSIX ACL xattr, borrowing the input. Zero entries (a 4-byte xattr) means "no
/// ACL": the mode alone decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AclView<'a> {
    entries: &'a [AclEntryRaw],
}

impl<'a> AclView<'a> {
    /// Decodes and validates a POSIX ACL xattr (WIRE.md §9).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        match Self::accepted(bytes) {
            Some(entries) => Ok(AclView { entries }),
            None => Self::refused(bytes),
        }
    }

    /// Every rule of [`AclView::parse`] as one test, with nothing kept for an error report: the
    /// size bound, the version, whole entries, and [`entries_valid`]. The entry count needs no
    /// test of its own, since a payload within `XATTR_SIZE_MAX` holds at most
    /// `ACL_MAX_ENTRIES` entries.
    #[inline(always)]
    fn accepted(bytes: &'a [u8]) -> Option<&'a [AclEntryRaw]> {
        const _: () = assert!((XATTR_SIZE_MAX - 4) / 8 <= ACL_MAX_ENTRIES);
        if bytes.len() > XATTR_SIZE_MAX {
            return None;
        }
        let mut r = Reader::new(bytes);
        let hdr: &AclHeaderRaw = r.take_ref()?;
        // The entries, read as words for the test and as entries for the view.
        let rest = r.rest();
        let words = <[U64<LittleEndian>]>::ref_from_bytes(rest).ok()?;
        if hdr.a_version.get() != POSIX_ACL_XATTR_VERSION || !entries_valid(words) {
            return None;
        }
        <[AclEntryRaw]>::ref_from_bytes(rest).ok()
    }

    /// The rules one by one, in the order that names a refused ACL's first broken rule. Only a
    /// refused ACL comes here; should the walk find nothing wrong, the walk decides.
    #[cold]
    #[inline(never)]
    fn refused(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        check_xattr_size(ACL_S, bytes.len())?;
        let mut r = Reader::new(bytes);
        let hdr: &AclHeaderRaw = r.fixed(ACL_S)?;
        let version = hdr.a_version.get();
        if version != POSIX_ACL_XATTR_VERSION {
            return Err(err_at(
                ACL_S,
                posix_acl_xattr_header::a_version,
                0,
                ErrorKind::AclUnsupportedVersion { got: version },
            ));
        }
        let Some(entries) = r.rest_as::<AclEntryRaw>() else {
            return Err(err_at(
                ACL_S,
                ENTRIES,
                0,
                ErrorKind::AclBadLength { len: r.len() },
            ));
        };
        check_entries(
            entries
                .iter()
                .map(|e| (e.e_tag.get(), e.e_perm.get(), e.e_id.get())),
        )?;
        Ok(AclView { entries })
    }

    /// The view of an ACL [`AclView::parse`] has accepted already (a result of a validated
    /// reply): framed again, not validated again.
    pub(crate) fn of_validated(bytes: &'a [u8]) -> Self {
        let entries = Reader::header_and_rest::<AclHeaderRaw, _>(bytes).map_or(&[][..], |(_, e)| e);
        AclView { entries }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// True for the empty ACL (no entries: "no ACL").
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
    /// Size of the xattr.
    pub fn wire_len(&self) -> usize {
        ENTRIES.offset + ENTRY_SIZE * self.entries.len()
    }
    /// The entries, in wire order.
    pub fn entries(&self) -> AclEntryIter<'a> {
        AclEntryIter {
            inner: self.entries.iter(),
        }
    }
    /// The raw entries.
    pub fn raw_entries(&self) -> &'a [AclEntryRaw] {
        self.entries
    }

    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> Acl {
        Acl {
            entries: self.entries().collect(),
        }
    }
}

/// Iterator over the entries of an [`AclView`].
#[derive(Debug, Clone)]
pub struct AclEntryIter<'a> {
    inner: core::slice::Iter<'a, AclEntryRaw>,
}

impl Iterator for AclEntryIter<'_> {
    type Item = AclEntry;
    fn next(&mut self) -> Option<AclEntry> {
        self.inner.next().map(AclEntryRaw::entry)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for AclEntryIter<'_> {}

// These build their inputs in `Vec`s: they run whenever `alloc` is on (always, but in
// `cargo test --no-default-features --lib`).
#[cfg(all(test, feature = "alloc"))]
mod tests;
