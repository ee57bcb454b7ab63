//! What an ACL grants (feature `posix`): permission for given credentials
//! (`generic_permission`) and `posix_acl_equiv_mode`. Kernel semantics that the model applies;
//! the codec's rules do not need them.

use super::{AclEntry, AclPerm, AclTag, AclView};

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

impl AclView<'_> {
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
}

#[cfg(feature = "alloc")]
impl super::Acl {
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
/// (tests/xattr/acl_kernel.rs): with `mask::---`, a member of a named group that the ACL alone would
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
