//! `posix_acl_create` (features `posix` and `alloc`): the mode and ACLs a new object gets
//! under a parent's default ACL. The model derives a created child with it; the reply rules
//! (W7.20) only bound the child's permission bits and need none of it.

use super::{Acl, AclPerm, AclTag, AclView};

impl Acl {
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
