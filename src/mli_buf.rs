//! The optional results of a prepare intent (WIRE.md §6), as values: their indices (`enum
//! md_lock_intent_buf`, `MLI_BUF_*`) and their bitmask. The wire structures carry them and
//! errors name them, so they sit below both.

use crate::limits::{MDT_BODY_SIZE, MLI_BUF_MAX, XATTR_SIZE_MAX};
use crate::xattr_names;
use core::fmt;

/// One optional result (`enum md_lock_intent_buf`). Each describes the object the intent acts
/// on: the parent directory in entry mode, the object itself in object mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[repr(u8)]
pub enum MliBuf {
    /// `MLI_BUF_PATTR`: its `mdt_body`.
    Pattr = 0,
    /// `MLI_BUF_DEF_ACL`: its `system.posix_acl_default`.
    DefAcl = 1,
    /// `MLI_BUF_PIN`: its `trusted.pin`.
    Pin = 2,
    /// `MLI_BUF_LMV`: its `trusted.lmv`.
    Lmv = 3,
    /// `MLI_BUF_LOV`: its `trusted.lov` (a directory's default file layout).
    Lov = 4,
    /// `MLI_BUF_DEF_LMV`: its `trusted.dmv`.
    DefLmv = 5,
}

/// The Lustre name of each result, in `MliBuf` order (also the serde field names of a
/// reply's results).
pub(crate) const MLI_BUF_NAMES: [&str; MLI_BUF_MAX] = [
    "MLI_BUF_PATTR",
    "MLI_BUF_DEF_ACL",
    "MLI_BUF_PIN",
    "MLI_BUF_LMV",
    "MLI_BUF_LOV",
    "MLI_BUF_DEF_LMV",
];

impl MliBuf {
    /// The Lustre name of each result (`MLI_BUF_PATTR` …), in index order: the index names of
    /// `mcpr_buf_limit` and `mcpp_buf_size`.
    pub const NAMES: [&'static str; MLI_BUF_MAX] = MLI_BUF_NAMES;

    /// Every result, in index order.
    pub const ALL: [MliBuf; MLI_BUF_MAX] = [
        MliBuf::Pattr,
        MliBuf::DefAcl,
        MliBuf::Pin,
        MliBuf::Lmv,
        MliBuf::Lov,
        MliBuf::DefLmv,
    ];

    /// The result at index `i`.
    pub const fn from_index(i: usize) -> Option<Self> {
        if i < MLI_BUF_MAX {
            Some(Self::ALL[i])
        } else {
            None
        }
    }

    /// Its index (`MLI_BUF_*` value).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Its bit in a [`ResultMask`].
    pub const fn bit(self) -> ResultMask {
        ResultMask(1 << self as u32)
    }

    /// The Lustre name, e.g. `"MLI_BUF_DEF_ACL"`.
    pub const fn name(self) -> &'static str {
        MLI_BUF_NAMES[self as usize]
    }

    /// The short lowercase name used by the tool: `pattr`, `def_acl`, …
    pub const fn short_name(self) -> &'static str {
        ["pattr", "def_acl", "pin", "lmv", "lov", "def_lmv"][self as usize]
    }

    /// The xattr the result carries, or `None` for PATTR (attributes, not an xattr).
    pub const fn xattr_name(self) -> Option<&'static str> {
        [
            None,
            Some(xattr_names::ACL_DEFAULT),
            Some(xattr_names::PIN),
            Some(xattr_names::LMV),
            Some(xattr_names::LOV),
            Some(xattr_names::DMV),
        ][self as usize]
    }

    /// The result whose payload the xattr `name` is (`trusted.lmv`: `MLI_BUF_LMV`); `None` for a
    /// name no result carries.
    ///
    /// ```
    /// use lustre_dne_intent::intent::MliBuf;
    /// assert_eq!(MliBuf::of_xattr_name("trusted.lmv"), Some(MliBuf::Lmv));
    /// assert_eq!(MliBuf::of_xattr_name("system.posix_acl_access"), None);
    /// ```
    pub fn of_xattr_name(name: &str) -> Option<MliBuf> {
        MliBuf::ALL
            .into_iter()
            .find(|b| b.xattr_name() == Some(name))
    }

    /// The largest result of this kind: an `mdt_body` for PATTR, `XATTR_SIZE_MAX` otherwise.
    pub const fn max_size(self) -> usize {
        match self {
            MliBuf::Pattr => MDT_BODY_SIZE,
            _ => XATTR_SIZE_MAX,
        }
    }
}

impl fmt::Display for MliBuf {
    /// The Lustre name, `MLI_BUF_DEF_ACL`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl core::str::FromStr for MliBuf {
    type Err = crate::flags::ParseError;
    /// The Lustre name (`MLI_BUF_DEF_ACL`) or the short one (`def_acl`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::flags::parse_closed(s, "MliBuf", &MliBuf::ALL, |b| b.name()).or_else(|e| {
            crate::flags::parse_closed(s, "MliBuf", &MliBuf::ALL, |b| b.short_name()).map_err(|_| e)
        })
    }
}

impl FromIterator<MliBuf> for ResultMask {
    fn from_iter<I: IntoIterator<Item = MliBuf>>(iter: I) -> Self {
        let mut m = ResultMask::EMPTY;
        m.extend(iter);
        m
    }
}

impl Extend<MliBuf> for ResultMask {
    fn extend<I: IntoIterator<Item = MliBuf>>(&mut self, iter: I) {
        for b in iter {
            *self = self.with(b);
        }
    }
}

wire_flags! {
    /// A set of results (`mcpp_valid`, `mcpp_truncated`, or the requested set): bit i stands for
    /// `MLI_BUF` index i. Bits 6–31 are reserved; they are kept and reported, never dropped.
    ///
    /// A set prints as its members, `PATTR|LOV`; the empty set prints as nothing at all, so
    /// that `format!("results: {m}")` reads naturally:
    ///
    /// ```
    /// use lustre_dne_intent::intent::ResultMask;
    /// assert_eq!(ResultMask::EMPTY.to_string(), "");
    /// assert_eq!(format!("{:?}", ResultMask::EMPTY), "ResultMask()");
    /// assert_eq!((ResultMask::PATTR | ResultMask::LOV).to_string(), "PATTR|LOV");
    /// assert_eq!("".parse::<ResultMask>(), Ok(ResultMask::EMPTY));
    /// ```
    pub struct ResultMask(u32) empty = "" {
        /// `1 << MLI_BUF_PATTR`.
        const PATTR = 1 << 0, "PATTR";
        /// `1 << MLI_BUF_DEF_ACL`.
        const DEF_ACL = 1 << 1, "DEF_ACL";
        /// `1 << MLI_BUF_PIN`.
        const PIN = 1 << 2, "PIN";
        /// `1 << MLI_BUF_LMV`.
        const LMV = 1 << 3, "LMV";
        /// `1 << MLI_BUF_LOV`.
        const LOV = 1 << 4, "LOV";
        /// `1 << MLI_BUF_DEF_LMV`.
        const DEF_LMV = 1 << 5, "DEF_LMV";
    }
}

impl ResultMask {
    /// Every defined result.
    pub const ALL: ResultMask = ResultMask(0x3f);

    /// True when result `b` is in the set.
    pub const fn has(self, b: MliBuf) -> bool {
        self.0 & (1 << b as u32) != 0
    }

    /// The set with result `b` added.
    #[must_use]
    pub const fn with(self, b: MliBuf) -> Self {
        ResultMask(self.0 | 1 << b as u32)
    }

    /// The reserved bits (6–31) that are set.
    pub const fn reserved(self) -> u32 {
        self.0 & !Self::ALL.0
    }

    /// The defined results in the set, in index order.
    pub fn iter(self) -> impl Iterator<Item = MliBuf> {
        MliBuf::ALL.into_iter().filter(move |b| self.has(*b))
    }

    /// The set of results with a non-zero limit: what a request asks for.
    pub fn requested(limits: &[u32; MLI_BUF_MAX]) -> Self {
        let mut m = ResultMask(0);
        for b in MliBuf::ALL {
            if limits[b.index()] != 0 {
                m = m.with(b);
            }
        }
        m
    }
}
