//! The owned ACL, for building and for serde.

use super::{ACL_S, ACL_UNDEFINED_ID, POSIX_ACL_XATTR_VERSION, check_entries};
use super::{AclEntry, AclPerm, AclTag, AclView};
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
