//! Caller credentials, as the coordinator holds them (the full group set) and as an intent
//! carries them (possibly a partial set).

use alloc::vec::Vec;
use lustre_dne_intent::intent::{McprFlags, RequestView};
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
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::ints::hex")
    )]
    pub cap: u64,
    /// Umask (0o777 bits).
    pub umask: u32,
    /// True when `groups` is known to be incomplete (`MCPR_GROUPS_PARTIAL`).
    pub groups_partial: bool,
}

impl Creds {
    /// The caller as a prepare request carries it, for a handler: `mcpr_fsuid`, `mcpr_fsgid`,
    /// the groups of buffer 5, `mcpr_cap`, `mcpr_umask`, and `groups_partial` from
    /// `MCPR_GROUPS_PARTIAL`.
    ///
    /// What a request cannot carry, and a handler must not assume:
    /// - groups beyond the list: the coordinator sends at most 128 (`limits::GROUPS_MAX`) and may
    ///   send fewer; it then sets `MCPR_GROUPS_PARTIAL`, so `groups_partial` is true and a
    ///   verdict that depended on membership must come back advisory (MODEL.md §2, "Limited
    ///   groups"; [`Creds::in_group`] says when a "no" is not proof);
    /// - capabilities other than the effective set's bits 0 to 63 of `mcpr_cap` (no permitted
    ///   or inheritable set, no security label, no user namespace: the ids are already mapped);
    /// - anything the coordinator learns after the request (a later `setgroups`).
    ///
    /// ```
    /// use lustre_dne_intent::intent::*;
    /// use lustre_dne_intent::wire::{LockMode, LuFid};
    /// use lustre_dne_intent::Endian;
    /// use lustre_dne_intent_model::Creds;
    ///
    /// let body = MdCreatePrepareReq {
    ///     fid: LuFid::new(0x200000401, 1, 0),
    ///     flags: McprFlags::GROUPS_PARTIAL,
    ///     fsuid: 500, fsgid: 500, umask: 0o022, cap: 1 << 3,
    ///     child_mode: 0o040755,
    ///     buf_limit: [216, 0, 0, 0, 0, 0],
    ///     ..Default::default()
    /// };
    /// let req = PrepareRequest::new(Operation::Create, body, Some(EntryName::new(b"d")?),
    ///                               GroupList::try_from(&[600])?, LockMode::PW, name_hash(b"d"));
    /// let bytes = req.to_bytes(Endian::Big)?;
    /// let creds = Creds::from(&RequestView::parse(&bytes)?);
    /// assert_eq!((creds.fsuid, creds.groups.as_slice(), creds.umask), (500, &[600][..], 0o022));
    /// assert!(creds.groups_partial && creds.capable(3));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_request(view: &RequestView<'_>) -> Self {
        let body = view.body();
        Creds {
            fsuid: body.fsuid,
            fsgid: body.fsgid,
            groups: view.groups().iter().collect(),
            cap: body.cap,
            umask: body.umask,
            groups_partial: body.flags.contains(McprFlags::GROUPS_PARTIAL),
        }
    }

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

impl From<&RequestView<'_>> for Creds {
    /// [`Creds::from_request`].
    fn from(view: &RequestView<'_>) -> Self {
        Creds::from_request(view)
    }
}
