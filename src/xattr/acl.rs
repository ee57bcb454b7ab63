//! POSIX ACLs (`system.posix_acl_access`, `system.posix_acl_default`): the Linux xattr format,
//! its validity rules, and the three pieces of ACL semantics the model needs (WIRE.md §9,
//! lustre-semantics.md §7, MODEL.md §2):
//! - permission evaluation for given credentials ([`AclView::permission`]);
//! - `posix_acl_create`: masking a new object's mode with a parent's default ACL
//!   ([`posix_acl_create`], [`Acl::create_masq`]);
//! - `posix_acl_equiv_mode`: whether an ACL says no more than a mode ([`AclView::equiv_mode`]).

use super::{check_xattr_size, err};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::ACL_MAX_ENTRIES;
use core::fmt;
use zerocopy::byteorder::{U16, U32, U64};
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned};

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
    /// All three.
    pub const RWX: AclPerm = AclPerm(7);
    /// None.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct AclEntry {
    /// `e_tag`.
    #[cfg_attr(feature = "serde", serde(rename = "e_tag"))]
    pub tag: AclTag,
    /// `e_perm`.
    #[cfg_attr(feature = "serde", serde(rename = "e_perm"))]
    pub perm: AclPerm,
    /// `e_id`: a uid for USER, a gid for GROUP.
    #[cfg_attr(feature = "serde", serde(rename = "e_id"))]
    pub id: u32,
}

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

/// The xattr header (`posix_acl_xattr_header`, 4 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AclHeaderRaw {
    /// `a_version`.
    pub a_version: U32<LittleEndian>,
}
crate::wire::check_layout!(AclHeaderRaw, 4; a_version @ 0);

/// One entry on the wire (`posix_acl_xattr_entry`, 8 bytes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned,
)]
#[repr(C)]
pub struct AclEntryRaw {
    /// `e_tag`.
    pub e_tag: U16<LittleEndian>,
    /// `e_perm`.
    pub e_perm: U16<LittleEndian>,
    /// `e_id`.
    pub e_id: U32<LittleEndian>,
}
crate::wire::check_layout!(AclEntryRaw, 8; e_tag @ 0, e_perm @ 2, e_id @ 4);

impl AclEntryRaw {
    fn entry(&self) -> AclEntry {
        AclEntry::new(
            AclTag(self.e_tag.get()),
            AclPerm(self.e_perm.get()),
            self.e_id.get(),
        )
    }
}

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
        let off = 4 + 8 * index;
        let t = AclTag(tag);
        let Some(name) = t.name() else {
            return Err(err(
                ACL_S,
                "e_tag",
                off,
                ErrorKind::AclBadTag { index, tag },
            ));
        };
        if perm > 7 {
            return Err(err(
                ACL_S,
                "e_perm",
                off + 2,
                ErrorKind::AclBadPerm { index, perm },
            ));
        }
        let order = || {
            err(
                ACL_S,
                "e_tag",
                off,
                ErrorKind::AclOrder { index, tag: name },
            )
        };
        let ids = |prev: &mut Option<u32>| -> Result<(), DecodeError> {
            if let Some(p) = *prev {
                if id == p {
                    return Err(err(
                        ACL_S,
                        "e_id",
                        off + 4,
                        ErrorKind::AclDuplicateEntry { index, id },
                    ));
                }
                if id < p {
                    return Err(err(
                        ACL_S,
                        "e_id",
                        off + 4,
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
    let end = 4 + 8 * n;
    let missing = match state {
        0 => Some("USER_OBJ"),
        1 => Some("GROUP_OBJ"),
        2 | 3 => Some("OTHER"),
        _ => None,
    };
    if let Some(tag) = missing {
        return Err(err(
            ACL_S,
            "a_entries",
            end,
            ErrorKind::AclMissingEntry { tag },
        ));
    }
    if named && !mask {
        return Err(err(ACL_S, "a_entries", end, ErrorKind::AclMissingMask));
    }
    Ok(())
}

/// The rules of [`check_entries`] without its walk: `true` exactly when `check_entries` accepts
/// (a property test holds the two together), in a few instructions per entry.
///
/// A valid ACL is USER_OBJ, USERs, GROUP_OBJ, GROUPs, at most one MASK (required after a named
/// entry), OTHER. The two named runs are found by binary search (their tags are consecutive in
/// a valid ACL) and checked with straight-line loops; every entry is covered by exactly one
/// check, so an unsorted input cannot slip through a run the search misjudged.
fn entries_valid(words: &[U64<LittleEndian>]) -> bool {
    /// `e_tag` and `e_perm` bits of an entry word that must equal the tag (`e_perm` ≤ 7).
    const TAG_PERM: u64 = 0xfff8_ffff;
    let is = |w: &U64<LittleEndian>, tag: AclTag| w.get() & TAG_PERM == u64::from(tag.0);
    let Some((first, rest)) = words.split_first() else {
        return true;
    };
    if !is(first, AclTag::USER_OBJ) {
        return false;
    }
    let users = rest.partition_point(|w| w.get() & 0xffff == u64::from(AclTag::USER.0));
    let (user_run, rest) = rest.split_at(users);
    let Some((group_obj, rest)) = rest.split_first() else {
        return false;
    };
    let groups = rest.partition_point(|w| w.get() & 0xffff == u64::from(AclTag::GROUP.0));
    let (group_run, tail) = rest.split_at(groups);
    let named = !user_run.is_empty() || !group_run.is_empty();
    let tail_ok = match tail {
        [mask, other] => is(mask, AclTag::MASK) && is(other, AclTag::OTHER),
        [other] => !named && is(other, AclTag::OTHER),
        _ => false,
    };
    tail_ok
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
        check_xattr_size(ACL_S, bytes.len())?;
        let Ok((hdr, rest)) = AclHeaderRaw::ref_from_prefix(bytes) else {
            return Err(super::truncated(ACL_S, 4, bytes.len()));
        };
        let version = hdr.a_version.get();
        if version != POSIX_ACL_XATTR_VERSION {
            return Err(err(
                ACL_S,
                "a_version",
                0,
                ErrorKind::AclUnsupportedVersion { got: version },
            ));
        }
        if rest.len() % 8 != 0 {
            return Err(err(
                ACL_S,
                "a_entries",
                4,
                ErrorKind::AclBadLength { len: bytes.len() },
            ));
        }
        let n = rest.len() / 8;
        if n > ACL_MAX_ENTRIES {
            return Err(err(
                ACL_S,
                "a_entries",
                4,
                ErrorKind::OverLimit {
                    value: n as u64,
                    max: ACL_MAX_ENTRIES as u64,
                },
            ));
        }
        let Ok(entries) = <[AclEntryRaw]>::ref_from_bytes(rest) else {
            return Err(err(
                ACL_S,
                "a_entries",
                4,
                ErrorKind::AclBadLength { len: bytes.len() },
            ));
        };
        if !entries_valid(<[U64<LittleEndian>]>::ref_from_bytes(rest).unwrap_or(&[])) {
            // Only a bad ACL pays for the walk that names the rule and the entry.
            check_entries(
                entries
                    .iter()
                    .map(|e| (e.e_tag.get(), e.e_perm.get(), e.e_id.get())),
            )?;
        }
        Ok(AclView { entries })
    }

    /// The view of an ACL [`AclView::parse`] has accepted already (a result of a validated
    /// reply): framed again, not validated again.
    pub(crate) fn of_validated(bytes: &'a [u8]) -> Self {
        let entries = bytes
            .get(4..)
            .and_then(|rest| <[AclEntryRaw]>::ref_from_bytes(rest).ok())
            .unwrap_or(&[]);
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
        4 + 8 * self.entries.len()
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

    /// `posix_acl_permission`: may `cred` access, with `want` (`MAY_READ|MAY_WRITE|MAY_EXEC`
    /// bits), an object owned by `owner_uid:owner_gid` that carries this access ACL? `None` for
    /// the empty ACL (the mode decides).
    pub fn permission(
        &self,
        owner_uid: u32,
        owner_gid: u32,
        cred: &Credentials<'_>,
        want: u32,
    ) -> Option<AclPermission> {
        acl_permission(self.entries(), owner_uid, owner_gid, cred, want)
    }

    /// `posix_acl_equiv_mode`: the permission bits this ACL implies (MASK standing for the
    /// group class) and whether the ACL says nothing more. `None` for the empty ACL.
    pub fn equiv_mode(&self) -> Option<EquivMode> {
        acl_equiv_mode(self.entries())
    }

    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> Acl {
        Acl {
            entries: self.entries().collect(),
        }
    }

    /// A `getfacl`-style text renderer (numeric ids, as `getfacl -n`).
    pub fn getfacl(&self, kind: AclKind) -> Getfacl<AclEntryIter<'a>> {
        Getfacl {
            entries: self.entries(),
            kind,
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

/// The credentials a permission check uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Credentials<'g> {
    /// Filesystem uid.
    pub fsuid: u32,
    /// Filesystem gid.
    pub fsgid: u32,
    /// Supplementary groups.
    pub groups: &'g [u32],
}

impl Credentials<'_> {
    /// `in_group_p`: `gid` is the fsgid or a supplementary group.
    pub fn in_group(&self, gid: u32) -> bool {
        self.fsgid == gid || self.groups.contains(&gid)
    }
}

/// Which class of an ACL decided a permission check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum AclClass {
    /// USER_OBJ: the caller owns the object.
    Owner,
    /// A USER entry named the caller.
    NamedUser,
    /// GROUP_OBJ or a GROUP entry matched one of the caller's groups.
    Group,
    /// OTHER, after no user or group entry matched.
    Other,
}

/// The result of [`AclView::permission`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct AclPermission {
    /// True when access is granted (0), false for -EACCES.
    pub allowed: bool,
    /// The class that decided.
    pub class: AclClass,
    /// True when group membership was consulted (the caller is neither the owner nor a named
    /// user): the verdict depends on the group set (MODEL.md §2, limited groups).
    pub groups_consulted: bool,
}

fn acl_permission(
    entries: impl Iterator<Item = AclEntry> + Clone,
    owner_uid: u32,
    owner_gid: u32,
    cred: &Credentials<'_>,
    want: u32,
) -> Option<AclPermission> {
    let want = want & 7;
    let mask = entries
        .clone()
        .find(|e| e.tag == AclTag::MASK)
        .map(|e| e.perm);
    let masked = |perm: AclPerm, class: AclClass| {
        let eff = match mask {
            Some(m) => AclPerm(perm.0 & m.0),
            None => perm,
        };
        AclPermission {
            allowed: eff.grants(want),
            class,
            groups_consulted: class == AclClass::Group,
        }
    };
    let mut found = false;
    let mut any = false;
    for e in entries {
        any = true;
        match e.tag {
            AclTag::USER_OBJ if owner_uid == cred.fsuid => {
                return Some(AclPermission {
                    allowed: e.perm.grants(want),
                    class: AclClass::Owner,
                    groups_consulted: false,
                });
            }
            AclTag::USER if e.id == cred.fsuid => return Some(masked(e.perm, AclClass::NamedUser)),
            AclTag::GROUP_OBJ | AclTag::GROUP => {
                let gid = if e.tag == AclTag::GROUP_OBJ {
                    owner_gid
                } else {
                    e.id
                };
                if cred.in_group(gid) {
                    found = true;
                    if e.perm.grants(want) {
                        return Some(masked(e.perm, AclClass::Group));
                    }
                }
            }
            AclTag::OTHER => {
                return Some(if found {
                    AclPermission {
                        allowed: false,
                        class: AclClass::Group,
                        groups_consulted: true,
                    }
                } else {
                    AclPermission {
                        allowed: e.perm.grants(want),
                        class: AclClass::Other,
                        groups_consulted: true,
                    }
                });
            }
            _ => {}
        }
    }
    // A valid non-empty ACL always ends with OTHER; the kernel says -EIO otherwise.
    if any {
        Some(AclPermission {
            allowed: false,
            class: AclClass::Other,
            groups_consulted: true,
        })
    } else {
        None
    }
}

/// Linux `generic_permission` without capabilities (= Lustre `__mdd_permission_internal`): may
/// `cred` access, with `want` (`MAY_*` bits), an object of permission bits `mode` owned by
/// `owner_uid:owner_gid` whose access ACL is `acl`?
///
/// The owner gets the owner bits. Otherwise the ACL decides ([`AclView::permission`]) **only
/// when the mode's group bits are not all zero** (with an ACL they are the MASK, or GROUP_OBJ
/// without one); when they are zero, or there is no (or an empty) ACL, the caller gets the
/// group bits if it is in the owning group, else the other bits. The kernel's `access(2)` agrees
/// (tests/acl_kernel.rs): with `mask::---`, a member of a named group that the ACL alone would
/// deny gets the other bits.
pub fn generic_permission(
    mode: u32,
    owner_uid: u32,
    owner_gid: u32,
    acl: Option<&AclView<'_>>,
    cred: &Credentials<'_>,
    want: u32,
) -> AclPermission {
    let want = want & 7;
    if cred.fsuid == owner_uid {
        return AclPermission {
            allowed: (mode >> 6) & want == want,
            class: AclClass::Owner,
            groups_consulted: false,
        };
    }
    if mode & 0o070 != 0
        && let Some(p) = acl.and_then(|a| a.permission(owner_uid, owner_gid, cred, want))
    {
        return p;
    }
    let (bits, class) = if cred.in_group(owner_gid) {
        (mode >> 3, AclClass::Group)
    } else {
        (mode, AclClass::Other)
    };
    AclPermission {
        allowed: bits & want == want,
        class,
        groups_consulted: true,
    }
}

/// The result of [`AclView::equiv_mode`] (`posix_acl_equiv_mode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct EquivMode {
    /// The permission bits (0o777) the ACL implies; with a MASK, the group bits are the mask's.
    pub mode: u32,
    /// True when the ACL is equivalent to `mode` (no named entry, no MASK).
    pub equivalent: bool,
}

fn acl_equiv_mode(entries: impl Iterator<Item = AclEntry>) -> Option<EquivMode> {
    let mut mode = 0u32;
    let mut equivalent = true;
    let mut any = false;
    for e in entries {
        any = true;
        let p = (e.perm.0 & 7) as u32;
        match e.tag {
            AclTag::USER_OBJ => mode |= p << 6,
            AclTag::GROUP_OBJ => mode |= p << 3,
            AclTag::OTHER => mode |= p,
            AclTag::MASK => {
                mode = (mode & !0o070) | (p << 3);
                equivalent = false;
            }
            _ => equivalent = false,
        }
    }
    any.then_some(EquivMode { mode, equivalent })
}

/// Which ACL a renderer prints: `getfacl` prefixes default entries with `default:`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum AclKind {
    /// `system.posix_acl_access`.
    #[default]
    Access,
    /// `system.posix_acl_default`.
    Default,
}

/// `getfacl -n --omit-header`-style text of an ACL: one line per entry, `tag:id:rwx`, with a
/// tab and the `#effective:` comment where a MASK removes permissions from a USER, GROUP_OBJ or
/// GROUP entry (byte-identical to getfacl 2.3 for one ACL, without its final blank line).
#[derive(Debug, Clone)]
pub struct Getfacl<I> {
    entries: I,
    kind: AclKind,
}

impl<I: Iterator<Item = AclEntry> + Clone> fmt::Display for Getfacl<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mask = self
            .entries
            .clone()
            .find(|e| e.tag == AclTag::MASK)
            .map(|e| e.perm);
        let prefix = match self.kind {
            AclKind::Access => "",
            AclKind::Default => "default:",
        };
        for e in self.entries.clone() {
            let tag = match e.tag {
                AclTag::USER_OBJ | AclTag::USER => "user",
                AclTag::GROUP_OBJ | AclTag::GROUP => "group",
                AclTag::MASK => "mask",
                AclTag::OTHER => "other",
                _ => "unknown",
            };
            write!(f, "{prefix}{tag}:")?;
            if e.tag.is_named() {
                write!(f, "{}", e.id)?;
            }
            write!(f, ":{}", e.perm)?;
            let capped = matches!(e.tag, AclTag::USER | AclTag::GROUP_OBJ | AclTag::GROUP);
            if let (true, Some(m)) = (capped, mask) {
                let eff = AclPerm(e.perm.0 & m.0);
                if eff != e.perm {
                    write!(f, "\t#effective:{eff}")?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// An owned POSIX ACL. Encoding writes `e_id` 0xFFFFFFFF for unnamed entries.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Acl {
    /// The entries, in wire order.
    #[cfg_attr(feature = "serde", serde(rename = "a_entries"))]
    pub entries: alloc::vec::Vec<AclEntry>,
}

#[cfg(feature = "alloc")]
impl Acl {
    /// An ACL of these entries (not validated until encoded; see [`Acl::check`]).
    pub fn new(entries: alloc::vec::Vec<AclEntry>) -> Self {
        Acl { entries }
    }

    /// The minimal ACL equivalent to the permission bits of `mode`.
    pub fn from_mode(mode: u32) -> Self {
        let p = |shift: u32| AclPerm(((mode >> shift) & 7) as u16);
        Acl {
            entries: alloc::vec![
                AclEntry::new(AclTag::USER_OBJ, p(6), 0),
                AclEntry::new(AclTag::GROUP_OBJ, p(3), 0),
                AclEntry::new(AclTag::OTHER, p(0), 0),
            ],
        }
    }

    /// Checks the entries against the decoder's rules.
    pub fn check(&self) -> Result<(), DecodeError> {
        if self.entries.len() > ACL_MAX_ENTRIES {
            return Err(err(
                ACL_S,
                "a_entries",
                4,
                ErrorKind::OverLimit {
                    value: self.entries.len() as u64,
                    max: ACL_MAX_ENTRIES as u64,
                },
            ));
        }
        check_entries(self.entries.iter().map(|e| (e.tag.0, e.perm.0, e.id)))
    }

    /// True for the empty ACL.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// See [`AclView::permission`].
    pub fn permission(
        &self,
        owner_uid: u32,
        owner_gid: u32,
        cred: &Credentials<'_>,
        want: u32,
    ) -> Option<AclPermission> {
        acl_permission(
            self.entries.iter().copied(),
            owner_uid,
            owner_gid,
            cred,
            want,
        )
    }

    /// See [`AclView::equiv_mode`].
    pub fn equiv_mode(&self) -> Option<EquivMode> {
        acl_equiv_mode(self.entries.iter().copied())
    }

    /// `posix_acl_create_masq` on this ACL (a clone of a default ACL): masks its USER_OBJ, OTHER
    /// and MASK (or GROUP_OBJ without one) with `mode`, and `mode` with them. Returns the new
    /// mode (type and special bits kept) and whether Linux would keep the ACL (a named entry or
    /// MASK exists). An ACL with neither MASK nor GROUP_OBJ (invalid) leaves the group bits.
    pub fn create_masq(&mut self, mode: u32) -> (u32, bool) {
        let mut m = mode & 0o777;
        let mut not_equiv = false;
        let mut group_obj = None;
        let mut mask_obj = None;
        for (i, e) in self.entries.iter_mut().enumerate() {
            let p = e.perm.0 as u32;
            match e.tag {
                AclTag::USER_OBJ => {
                    let np = p & ((m >> 6) & 7);
                    e.perm = AclPerm(np as u16);
                    m &= (np << 6) | !0o700;
                }
                AclTag::USER | AclTag::GROUP => not_equiv = true,
                AclTag::GROUP_OBJ => group_obj = Some(i),
                AclTag::OTHER => {
                    let np = p & (m & 7);
                    e.perm = AclPerm(np as u16);
                    m &= np | !0o007;
                }
                AclTag::MASK => {
                    mask_obj = Some(i);
                    not_equiv = true;
                }
                _ => {}
            }
        }
        if let Some(i) = mask_obj.or(group_obj) {
            let e = &mut self.entries[i];
            let np = e.perm.0 as u32 & ((m >> 3) & 7);
            e.perm = AclPerm(np as u16);
            m &= (np << 3) | !0o070;
        }
        ((mode & !0o777) | (m & 0o777), not_equiv)
    }

    /// A `getfacl`-style text renderer.
    pub fn getfacl(
        &self,
        kind: AclKind,
    ) -> Getfacl<core::iter::Copied<core::slice::Iter<'_, AclEntry>>> {
        Getfacl {
            entries: self.entries.iter().copied(),
            kind,
        }
    }
}

#[cfg(feature = "alloc")]
impl super::XattrEncode for Acl {
    const STRUCTURE: &'static str = ACL_S;

    fn wire_len(&self) -> usize {
        self.entries.len().saturating_mul(8).saturating_add(4)
    }

    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        out.put_u32_le(POSIX_ACL_XATTR_VERSION);
        for e in &self.entries {
            out.put_u16_le(e.tag.0);
            out.put_u16_le(e.perm.0);
            out.put_u32_le(if e.tag.is_named() {
                e.id
            } else {
                ACL_UNDEFINED_ID
            });
        }
    }

    fn check_encoded(bytes: &[u8]) -> Result<(), DecodeError> {
        AclView::parse(bytes).map(|_| ())
    }
}

/// What [`posix_acl_create`] gives a new object.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct AclCreated {
    /// The new object's mode.
    pub mode: u32,
    /// The access ACL: the masked clone of the parent's default ACL (`None` without one).
    /// Lustre stores it even when equivalent to the mode; see `linux_keeps_access`.
    pub access: Option<Acl>,
    /// True when Linux would keep the access ACL (`posix_acl_create_masq` returned 1).
    pub linux_keeps_access: bool,
    /// The new object's own default ACL: the parent's, unchanged, for a directory.
    pub default: Option<Acl>,
}

/// `posix_acl_create`: the mode and ACLs of a new object of `mode` (type bits included) created
/// under a parent whose default ACL is `parent_default`. Without a (non-empty) default ACL the
/// mode is `mode & !umask`; with one the umask is ignored and the mode is masked by it. A
/// symbolic link gets its mode unchanged and no ACL.
#[cfg(feature = "alloc")]
pub fn posix_acl_create(parent_default: Option<&AclView<'_>>, mode: u32, umask: u32) -> AclCreated {
    use crate::mode::{S_IFDIR, S_IFLNK, S_IFMT};
    if mode & S_IFMT == S_IFLNK {
        return AclCreated {
            mode,
            access: None,
            linux_keeps_access: false,
            default: None,
        };
    }
    match parent_default {
        Some(d) if !d.is_empty() => {
            let mut access = d.to_value();
            let (mode, keep) = access.create_masq(mode);
            AclCreated {
                mode,
                access: Some(access),
                linux_keeps_access: keep,
                default: (mode & S_IFMT == S_IFDIR).then(|| d.to_value()),
            }
        }
        _ => AclCreated {
            mode: mode & !(umask & 0o777),
            access: None,
            linux_keeps_access: false,
            default: None,
        },
    }
}

// These build their inputs in `Vec`s: they run whenever `alloc` is on (always, but in
// `cargo test --no-default-features --lib`).
#[cfg(all(test, feature = "alloc"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn words(entries: &[(u16, u16, u32)]) -> alloc::vec::Vec<u8> {
        let mut b = alloc::vec::Vec::new();
        for &(tag, perm, id) in entries {
            b.extend_from_slice(&tag.to_le_bytes());
            b.extend_from_slice(&perm.to_le_bytes());
            b.extend_from_slice(&id.to_le_bytes());
        }
        b
    }

    /// The fast check and the walk that names the rule agree on `entries`.
    fn agree(entries: &[(u16, u16, u32)]) -> Result<(), TestCaseError> {
        let bytes = words(entries);
        let fast = entries_valid(<[U64<LittleEndian>]>::ref_from_bytes(&bytes).unwrap());
        let walk = check_entries(entries.iter().copied());
        prop_assert_eq!(fast, walk.is_ok(), "{:x?}: walk says {:?}", entries, walk);
        Ok(())
    }

    /// Entries near a valid ACL: a valid shape (USER_OBJ, USERs, GROUP_OBJ, GROUPs, MASK,
    /// OTHER) with one or two entries changed, dropped, duplicated or swapped.
    fn near_valid() -> impl Strategy<Value = alloc::vec::Vec<(u16, u16, u32)>> {
        let ids = || proptest::collection::btree_set(0u32..12, 0..5);
        (
            ids(),
            ids(),
            any::<bool>(),
            0u8..6,
            any::<usize>(),
            any::<u64>(),
        )
            .prop_map(|(users, groups, mask, edit, at, r)| {
                let mut v = alloc::vec![(1u16, 7u16, u32::MAX)];
                v.extend(users.into_iter().map(|id| (2, 5, id)));
                v.push((4, 5, u32::MAX));
                v.extend(groups.into_iter().map(|id| (8, 4, id)));
                if mask || v.len() > 2 {
                    v.push((0x10, 7, u32::MAX));
                }
                v.push((0x20, (r & 7) as u16, r as u32));
                let i = at % v.len();
                let tags = [0u16, 1, 2, 3, 4, 6, 8, 0x10, 0x20, 0x40, 0x102];
                match edit {
                    0 => {}
                    1 => v[i].0 = tags[(r % tags.len() as u64) as usize],
                    2 => v[i].1 = (r % 10) as u16,
                    3 => v[i].2 = (r % 12) as u32,
                    4 => {
                        let e = v[i];
                        v.insert(i, e);
                    }
                    _ => {
                        let j = (r as usize) % v.len();
                        v.swap(i, j);
                        if r & 1 == 1 {
                            v.remove(j);
                        }
                    }
                }
                v
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        #[test]
        fn fast_check_agrees_near_valid_acls(entries in near_valid()) {
            agree(&entries)?;
        }

        #[test]
        fn fast_check_agrees_on_anything(
            entries in proptest::collection::vec(
                (prop_oneof![Just(1u16), Just(2), Just(4), Just(8), Just(0x10), Just(0x20), any::<u16>()],
                 0u16..9, 0u32..4),
                0..10,
            )
        ) {
            agree(&entries)?;
        }
    }

    #[test]
    fn fast_check_on_known_shapes() {
        let ok = [
            alloc::vec![],
            alloc::vec![(1, 7, 0), (4, 5, 0), (0x20, 5, 0)],
            alloc::vec![(1, 7, 0), (4, 5, 0), (0x10, 7, 0), (0x20, 5, 0)],
            alloc::vec![
                (1, 7, 0),
                (2, 7, 1),
                (2, 7, 2),
                (4, 5, 0),
                (8, 1, 9),
                (0x10, 7, 0),
                (0x20, 0, 0)
            ],
        ];
        let bad = [
            // A named user and no MASK.
            alloc::vec![(1, 7, 0), (2, 7, 1), (4, 5, 0), (0x20, 5, 0)],
            // Ids not increasing; a duplicate id; e_perm 8; two OTHERs; no GROUP_OBJ.
            alloc::vec![
                (1, 7, 0),
                (2, 7, 2),
                (2, 7, 1),
                (4, 5, 0),
                (0x10, 7, 0),
                (0x20, 5, 0)
            ],
            alloc::vec![
                (1, 7, 0),
                (2, 7, 1),
                (2, 7, 1),
                (4, 5, 0),
                (0x10, 7, 0),
                (0x20, 5, 0)
            ],
            alloc::vec![(1, 8, 0), (4, 5, 0), (0x20, 5, 0)],
            alloc::vec![(1, 7, 0), (4, 5, 0), (0x20, 5, 0), (0x20, 5, 0)],
            alloc::vec![(1, 7, 0), (0x20, 5, 0)],
        ];
        for e in ok.iter().chain(&bad) {
            agree(e).unwrap();
        }
        for e in &ok {
            assert!(check_entries(e.iter().copied()).is_ok(), "{e:?}");
        }
        for e in &bad {
            assert!(check_entries(e.iter().copied()).is_err(), "{e:?}");
        }
    }
}
