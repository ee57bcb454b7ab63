//! Caller credentials, as the coordinator holds them (the full group set) and as an intent
//! carries them (possibly a partial set).

use alloc::vec::Vec;
use lustre_dne_intent::xattr::Credentials;

/// `CAP_CHOWN`.
pub const CAP_CHOWN: u32 = 0;
/// `CAP_DAC_OVERRIDE`.
pub const CAP_DAC_OVERRIDE: u32 = 1;
/// `CAP_DAC_READ_SEARCH`.
pub const CAP_DAC_READ_SEARCH: u32 = 2;
/// `CAP_FOWNER`.
pub const CAP_FOWNER: u32 = 3;
/// `CAP_FSETID`.
pub const CAP_FSETID: u32 = 4;
/// `CAP_SYS_RESOURCE`.
pub const CAP_SYS_RESOURCE: u32 = 24;

/// A caller: filesystem ids (already mapped), supplementary groups, capabilities, umask.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields, default)
)]
pub struct Creds {
    /// Filesystem uid.
    pub fsuid: u32,
    /// Filesystem gid.
    pub fsgid: u32,
    /// Supplementary groups: all of them on the coordinator; possibly fewer in an intent.
    pub groups: Vec<u32>,
    /// Effective capabilities, bit n = capability n (as `mcpr_cap`).
    #[cfg_attr(feature = "serde", serde(with = "lustre_dne_intent::json::ints::hex"))]
    pub cap: u64,
    /// Umask (0o777 bits).
    pub umask: u32,
    /// True when `groups` is known to be incomplete (`MCPR_GROUPS_PARTIAL`).
    pub groups_partial: bool,
}

impl Creds {
    /// True when capability `n` is held.
    pub const fn capable(&self, n: u32) -> bool {
        n < 64 && self.cap & (1 << n) != 0
    }

    /// The view the permission functions take.
    pub fn view(&self) -> Credentials<'_> {
        Credentials {
            fsuid: self.fsuid,
            fsgid: self.fsgid,
            groups: &self.groups,
        }
    }

    /// `in_group_p`, and whether the answer could change with the full group set (a "no" from
    /// a partial set is not authoritative; a "yes" is).
    pub fn in_group(&self, gid: u32) -> (bool, bool) {
        let yes = self.view().in_group(gid);
        (yes, !yes && self.groups_partial)
    }
}
