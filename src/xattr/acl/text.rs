//! The `getfacl` text of an ACL (feature `text`).

use super::{AclEntry, AclEntryIter, AclPerm, AclTag, AclView};
use core::fmt;

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

impl<'a> AclView<'a> {
    /// A `getfacl`-style text renderer (numeric ids, as `getfacl -n`).
    pub fn getfacl(&self, kind: AclKind) -> Getfacl<AclEntryIter<'a>> {
        Getfacl {
            entries: self.entries(),
            kind,
        }
    }
}

// `text` implies `alloc`.
impl super::Acl {
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
