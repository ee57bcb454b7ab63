//! `lu_fid` as a value: the 128-bit file identifier and its text form `[0xSEQ:0xOID:0xVER]`.
//! Its wire layout is in `wire::fid`; this type sits below every layer (errors name FIDs).

use core::fmt;
use core::str::FromStr;

/// A Lustre FID.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct LuFid {
    /// Sequence.
    pub seq: u64,
    /// Object id within the sequence.
    pub oid: u32,
    /// Version (0 for normal FIDs).
    pub ver: u32,
}

impl LuFid {
    /// The all-zero FID ("no FID").
    pub const ZERO: LuFid = LuFid {
        seq: 0,
        oid: 0,
        ver: 0,
    };
    /// The filesystem root, `[0x200000007:0x1:0x0]`.
    pub const ROOT: LuFid = LuFid {
        seq: 0x2_0000_0007,
        oid: 1,
        ver: 0,
    };

    /// A FID from its parts.
    pub const fn new(seq: u64, oid: u32, ver: u32) -> Self {
        LuFid { seq, oid, ver }
    }

    /// `fid_is_zero`: seq and oid both 0.
    pub const fn is_zero(&self) -> bool {
        self.seq == 0 && self.oid == 0
    }

    /// The first two words of an LDLM resource name for this FID (`fid_build_reg_res_name`).
    pub const fn res_name(&self) -> [u64; 2] {
        [self.seq, ((self.ver as u64) << 32) | self.oid as u64]
    }

    /// The FID encoded in the first two words of a resource name.
    pub const fn from_res_name(name0: u64, name1: u64) -> Self {
        LuFid {
            seq: name0,
            oid: name1 as u32,
            ver: (name1 >> 32) as u32,
        }
    }
}

impl fmt::Display for LuFid {
    /// Lustre's `DFID` form: `[0x200000400:0x1:0x0]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::flags::pad_with(f, |w| {
            write!(w, "[{:#x}:{:#x}:{:#x}]", self.seq, self.oid, self.ver)
        })
    }
}

impl fmt::Debug for LuFid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "LuFid{self}")
    }
}

/// Why a FID's text form did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FidParseError {
    /// Not of the form `[SEQ:OID:VER]` (brackets optional).
    #[error("a FID looks like [0xSEQ:0xOID:0xVER]")]
    Shape,
    /// A part is not a number, or does not fit its field.
    #[error("FID part {part} is not a {bits}-bit number")]
    Number {
        /// `"seq"`, `"oid"` or `"ver"`.
        part: &'static str,
        /// Width of the field.
        bits: u32,
    },
}

fn parse_num(s: &str, part: &'static str, bits: u32) -> Result<u64, FidParseError> {
    let s = s.trim();
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (s, 10),
    };
    let v = u64::from_str_radix(digits, radix).map_err(|_| FidParseError::Number { part, bits })?;
    if bits < 64 && v >> bits != 0 {
        return Err(FidParseError::Number { part, bits });
    }
    Ok(v)
}

impl FromStr for LuFid {
    type Err = FidParseError;

    /// Accepts `[0x200000400:0x1:0x0]`, with or without brackets; parts in hex (`0x`) or decimal.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        let inner = match (s.strip_prefix('['), s.ends_with(']')) {
            (Some(rest), true) => rest.strip_suffix(']').ok_or(FidParseError::Shape)?,
            (None, false) => s,
            _ => return Err(FidParseError::Shape),
        };
        let mut parts = inner.split(':');
        let (Some(seq), Some(oid), Some(ver), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(FidParseError::Shape);
        };
        Ok(LuFid {
            seq: parse_num(seq, "seq", 64)?,
            oid: parse_num(oid, "oid", 32)? as u32,
            ver: parse_num(ver, "ver", 32)? as u32,
        })
    }
}
