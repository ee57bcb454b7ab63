//! The owned ACL, for building and for serde, and `posix_acl_create`.

use super::perm::{acl_equiv_mode, acl_permission};
use super::{ACL_S, ACL_UNDEFINED_ID, POSIX_ACL_XATTR_VERSION, check_entries};
use super::{AclEntry, AclKind, AclPerm, AclPermission, AclTag, AclView, Credentials};
use super::{EquivMode, Getfacl};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::ACL_MAX_ENTRIES;
use crate::xattr::err;

/// An owned POSIX ACL. Encoding writes `e_id` 0xFFFFFFFF for unnamed entries.
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

impl crate::xattr::XattrEncode for Acl {
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
