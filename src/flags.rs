//! Open bit sets and open enumerations over wire integers.
//!
//! Peers add opcodes and flag bits over time, so every such field is a newtype over the wire
//! integer with named constants; unknown values survive a round trip unchanged and are printed in
//! hex. Whether an unknown bit is *acceptable* is a rule of the structure that carries it, not of
//! the type.
//!
//! ## Text form
//! A flag set displays as its names joined by `|`, then the bits no name covers as one hex
//! number: `MCPR_NO_LOOKUP|MCPR_GROUPS_PARTIAL|0x80`; the empty set is `0x0`. `FromStr` reads
//! that grammar and bitflags' (`A | B | 0x80`): names and `0x…` parts separated by `|`,
//! whitespace ignored, names case-sensitive; the empty string is the empty set. An open
//! enumeration displays as its name, or its value in hex; `FromStr` takes a name, `0x…` or a
//! decimal number. `Display` honours width, fill and alignment (`{:>12}`).
//!
//! ## Why not bitflags 2
//! The crate keeps this small macro rather than bitflags 2: bitflags' `Arbitrary` generates only
//! known bits (this crate's fuzzing must exercise unknown ones), its serde form is a single
//! string that drops the raw value and refuses numbers (this crate's JSON shows names *and* raw
//! bits, see the `json` module, feature `serde`), its text form differs (` | ` separators, the empty set as an
//! empty string), and Lustre's labels would need a `flag_name` attribute on every constant.

use core::fmt;

/// What the text forms and the serde impls need to know of a `wire_flags!` or `wire_enum!` type;
/// the plain integers implement it too, so that a structure's table converts any integer member
/// the same way (`wire::table`).
pub trait WireBits: Copy {
    /// The Rust type's name, for errors.
    const TYPE: &'static str;
    /// Width of the wire integer.
    const BITS: u32;
    /// Every named constant, widened (`None` for a plain integer): what a structure's layout
    /// says of a flags or enum member.
    const NAMES: Option<&'static [(&'static str, u64)]> = None;
    /// Named constant `i` of the `NAMED` table.
    fn named(i: usize) -> Option<(&'static str, u64)>;
    /// The raw value, widened.
    fn to_u64(self) -> u64;
    /// From a raw value that fits [`WireBits::BITS`].
    fn from_u64(v: u64) -> Self;
    /// The largest raw value.
    fn max() -> u64 {
        if Self::BITS >= 64 {
            u64::MAX
        } else {
            (1u64 << Self::BITS) - 1
        }
    }
    /// The value of a name.
    fn value_of(name: &str) -> Option<u64> {
        (0..)
            .map_while(Self::named)
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v)
    }
}

/// Why a text form (of a flag set, an enumeration, [`crate::Endian`], an operation, a fault …)
/// did not parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseError {
    /// The type being parsed.
    pub what: &'static str,
    /// Byte offset of the part that failed.
    pub offset: usize,
    /// What is wrong with it.
    pub kind: ParseErrorKind,
}

/// What is wrong with a part of a text form.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// Not one of the type's names.
    UnknownName,
    /// A number that is malformed or does not fit the type.
    BadNumber,
    /// An empty part (`A||B`, a trailing `|`, or an empty input where a value is needed).
    Empty,
}

impl ParseError {
    pub(crate) const fn new(what: &'static str, offset: usize, kind: ParseErrorKind) -> Self {
        ParseError { what, offset, kind }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let why = match self.kind {
            ParseErrorKind::UnknownName => "unknown name",
            ParseErrorKind::BadNumber => "bad or too wide number",
            ParseErrorKind::Empty => "empty part",
        };
        write!(f, "{}: {} at byte {}", self.what, why, self.offset)
    }
}

impl core::error::Error for ParseError {}

/// Counts the chars a `Display` writes, so that padding can be computed without a buffer.
struct Count(usize);

impl fmt::Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.chars().count();
        Ok(())
    }
}

/// Writes `body` honouring the formatter's width, fill and alignment (left by default, as
/// `Formatter::pad` does for strings), without allocating.
pub fn pad_with(
    f: &mut fmt::Formatter<'_>,
    body: impl Fn(&mut dyn fmt::Write) -> fmt::Result,
) -> fmt::Result {
    let Some(width) = f.width() else {
        return body(f);
    };
    let mut n = Count(0);
    body(&mut n)?;
    let pad = width.saturating_sub(n.0);
    let (before, after) = match f.align() {
        Some(fmt::Alignment::Right) => (pad, 0),
        Some(fmt::Alignment::Center) => (pad / 2, pad - pad / 2),
        _ => (0, pad),
    };
    let fill = f.fill();
    for _ in 0..before {
        fmt::Write::write_char(f, fill)?;
    }
    body(f)?;
    for _ in 0..after {
        fmt::Write::write_char(f, fill)?;
    }
    Ok(())
}

/// The greedy decomposition of `bits` into names, in `NAMED` order: a name is taken when all of
/// its bits are still set. Returns the bit mask of the `NAMED` indices taken and the bits left.
pub fn decompose<T: WireBits>(bits: u64) -> (u128, u64) {
    let mut rest = bits;
    let mut taken = 0u128;
    for (i, (_, v)) in (0..128).map_while(T::named).enumerate() {
        if v != 0 && rest & v == v {
            taken |= 1 << i;
            rest &= !v;
        }
    }
    (taken, rest)
}

/// `NAME|NAME|0xREST`, or `0x0` for the empty set.
pub fn write_flags<T: WireBits>(w: &mut dyn fmt::Write, v: T) -> fmt::Result {
    let (taken, rest) = decompose::<T>(v.to_u64());
    let mut first = true;
    for (i, (name, _)) in (0..128).map_while(T::named).enumerate() {
        if taken & (1 << i) != 0 {
            if !first {
                w.write_str("|")?;
            }
            w.write_str(name)?;
            first = false;
        }
    }
    if rest != 0 || first {
        if !first {
            w.write_str("|")?;
        }
        write!(w, "{rest:#x}")?;
    }
    Ok(())
}

/// Reads `0x…` (hex) or decimal digits, at most `max`.
pub fn parse_number(s: &str, max: u64) -> Option<u64> {
    let v = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) if !h.is_empty() && !h.starts_with('+') => u64::from_str_radix(h, 16).ok()?,
        Some(_) => return None,
        None if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s.parse().ok()?,
        None => return None,
    };
    (v <= max).then_some(v)
}

/// Parses `NAME|NAME|0x80` (whitespace ignored; the empty string is the empty set).
pub fn parse_flags<T: WireBits>(s: &str) -> Result<u64, ParseError> {
    if s.trim().is_empty() {
        return Ok(0);
    }
    let mut bits = 0u64;
    let mut offset = 0;
    for part in s.split('|') {
        let lead = part.len() - part.trim_start().len();
        let word = part.trim();
        let at = offset + lead;
        offset += part.len() + 1;
        if word.is_empty() {
            return Err(ParseError::new(T::TYPE, at, ParseErrorKind::Empty));
        }
        if word.starts_with("0x") || word.starts_with("0X") {
            bits |= parse_number(word, T::max()).ok_or(ParseError::new(
                T::TYPE,
                at,
                ParseErrorKind::BadNumber,
            ))?;
        } else {
            bits |= T::value_of(word).ok_or(ParseError::new(
                T::TYPE,
                at,
                ParseErrorKind::UnknownName,
            ))?;
        }
    }
    Ok(bits)
}

/// Parses an enumeration: a name, `0x…` or a decimal number (surrounding whitespace ignored).
pub fn parse_enum<T: WireBits>(s: &str) -> Result<u64, ParseError> {
    let word = s.trim();
    let at = s.len() - s.trim_start().len();
    if word.is_empty() {
        return Err(ParseError::new(T::TYPE, at, ParseErrorKind::Empty));
    }
    if let Some(v) = T::value_of(word) {
        return Ok(v);
    }
    if word.as_bytes()[0].is_ascii_digit() {
        return parse_number(word, T::max()).ok_or(ParseError::new(
            T::TYPE,
            at,
            ParseErrorKind::BadNumber,
        ));
    }
    Err(ParseError::new(T::TYPE, at, ParseErrorKind::UnknownName))
}

/// Parses a closed enumeration by the names `name` gives its `values`.
pub fn parse_closed<T: Copy>(
    s: &str,
    what: &'static str,
    values: &[T],
    name: impl Fn(T) -> &'static str,
) -> Result<T, ParseError> {
    let word = s.trim();
    let at = s.len() - s.trim_start().len();
    if word.is_empty() {
        return Err(ParseError::new(what, at, ParseErrorKind::Empty));
    }
    values
        .iter()
        .copied()
        .find(|&v| name(v) == word)
        .ok_or(ParseError::new(what, at, ParseErrorKind::UnknownName))
}

/// Defines a bit-set newtype with named single-bit (or multi-bit) constants.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_flags {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident($T:ty) $(empty = $empty:literal)? {
            $( $(#[$cmeta:meta])* const $C:ident = $v:expr, $label:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        $vis struct $Name(pub $T);

        impl $Name {
            $( $(#[$cmeta])* pub const $C: Self = Self($v); )*
            /// Every named constant with its Lustre name, in declaration order.
            pub const NAMED: &'static [(&'static str, $T)] = &[ $( ($label, $v) ),* ];
            /// The empty set.
            pub const EMPTY: Self = Self(0);

            /// The raw wire value.
            #[inline]
            pub const fn bits(self) -> $T { self.0 }
            /// True when every bit of `other` is set here.
            #[inline]
            pub const fn contains(self, other: Self) -> bool { self.0 & other.0 == other.0 }
            /// True when any bit of `other` is set here.
            #[inline]
            pub const fn intersects(self, other: Self) -> bool { self.0 & other.0 != 0 }
            /// True when no bit is set.
            #[inline]
            pub const fn is_empty(self) -> bool { self.0 == 0 }
            /// This set with the bits of `other` added.
            #[inline]
            #[must_use]
            pub const fn union(self, other: Self) -> Self { Self(self.0 | other.0) }
            /// This set without the bits of `other`.
            #[inline]
            #[must_use]
            pub const fn difference(self, other: Self) -> Self { Self(self.0 & !other.0) }
            /// The union of every named constant.
            pub const fn known() -> Self {
                let mut all: $T = 0;
                let mut i = 0;
                while i < Self::NAMED.len() {
                    all |= Self::NAMED[i].1;
                    i += 1;
                }
                Self(all)
            }
            /// The bits set here that no named constant covers (kept, reported, never dropped).
            #[inline]
            pub const fn unknown(self) -> Self { Self(self.0 & !Self::known().0) }
            /// Looks a constant up by its Lustre name.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::NAMED.iter().find(|(n, _)| *n == name).map(|&(_, v)| Self(v))
            }
        }

        impl core::ops::BitOr for $Name {
            type Output = Self;
            #[inline]
            fn bitor(self, rhs: Self) -> Self { Self(self.0 | rhs.0) }
        }

        impl core::ops::BitOrAssign for $Name {
            #[inline]
            fn bitor_assign(&mut self, rhs: Self) { self.0 |= rhs.0 }
        }

        impl core::ops::BitAnd for $Name {
            type Output = Self;
            #[inline]
            fn bitand(self, rhs: Self) -> Self { Self(self.0 & rhs.0) }
        }

        impl core::ops::BitAndAssign for $Name {
            #[inline]
            fn bitand_assign(&mut self, rhs: Self) { self.0 &= rhs.0 }
        }

        impl core::ops::Not for $Name {
            type Output = Self;
            /// Every bit of the wire integer flipped, unknown ones included (the set is open).
            #[inline]
            fn not(self) -> Self { Self(!self.0) }
        }

        $crate::wire_bits_common!($Name, $T);
        $crate::wire_bits_common!(serde $Name, serialize, deserialize);

        impl core::fmt::Display for $Name {
            /// `NAME|NAME|0xUNKNOWN`; when empty, `0x0` (or the declared `empty` text).
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                $( if self.0 == 0 { return f.pad($empty); } )?
                $crate::flags::pad_with(f, |w| $crate::flags::write_flags(w, *self))
            }
        }

        impl core::str::FromStr for $Name {
            type Err = $crate::flags::ParseError;
            /// `NAME|NAME|0x80` (see the module docs of `flags`), or the declared `empty` text.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $( if s == $empty { return Ok(Self::EMPTY); } )?
                $crate::flags::parse_flags::<Self>(s)
                    .map(<Self as $crate::flags::WireBits>::from_u64)
            }
        }
    };
}

/// What `wire_flags!` and `wire_enum!` share: the [`WireBits`] impl over `NAMED`, `Debug` as
/// `Name(Display)`, and serde through `serde_helpers::flags` (as names, or `{bits, names}`).
#[macro_export]
#[doc(hidden)]
macro_rules! wire_bits_common {
    ($Name:ident, $T:ty) => {
        impl $crate::flags::WireBits for $Name {
            const TYPE: &'static str = stringify!($Name);
            const BITS: u32 = <$T>::BITS;
            const NAMES: Option<&'static [(&'static str, u64)]> = Some(&{
                let mut wide = [("", 0u64); $Name::NAMED.len()];
                let mut i = 0;
                while i < wide.len() {
                    wide[i] = ($Name::NAMED[i].0, $Name::NAMED[i].1 as u64);
                    i += 1;
                }
                wide
            });
            #[inline]
            fn named(i: usize) -> Option<(&'static str, u64)> {
                Self::NAMED.get(i).map(|&(n, v)| (n, v as u64))
            }
            #[inline]
            fn to_u64(self) -> u64 {
                self.0 as u64
            }
            #[inline]
            fn from_u64(v: u64) -> Self {
                Self(v as $T)
            }
        }

        impl core::fmt::Debug for $Name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({})", stringify!($Name), self)
            }
        }
    };
    (serde $Name:ident, $ser:ident, $de:ident) => {
        #[cfg(feature = "serde")]
        impl serde::Serialize for $Name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                $crate::serde_helpers::flags::$ser(*self, s)
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $Name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::serde_helpers::flags::$de(d)
            }
        }
    };
}

/// A plain integer member of a structure converts to itself.
macro_rules! wire_bits_int {
    ($($T:ty),*) => {$(
        impl WireBits for $T {
            const TYPE: &'static str = stringify!($T);
            const BITS: u32 = <$T>::BITS;
            #[inline(always)]
            fn named(_: usize) -> Option<(&'static str, u64)> {
                None
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $T
            }
        }
    )*};
}
wire_bits_int!(u8, u16, u32, u64, i32, i64);

/// Defines an open enumeration: a newtype with named values; unknown values are kept.
#[macro_export]
#[doc(hidden)]
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident($T:ty) $(empty = $empty:literal)? {
            $( $(#[$cmeta:meta])* const $C:ident = $v:expr, $label:literal; )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
        #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
        $vis struct $Name(pub $T);

        impl $Name {
            $( $(#[$cmeta])* pub const $C: Self = Self($v); )*
            /// Every named value with its Lustre name.
            pub const NAMED: &'static [(&'static str, $T)] = &[ $( ($label, $v) ),* ];

            /// The Lustre name of this value, if it has one.
            pub fn name(self) -> Option<&'static str> {
                Self::NAMED.iter().find(|(_, v)| *v == self.0).map(|&(n, _)| n)
            }
            /// True when the value has a name.
            pub fn is_known(self) -> bool { self.name().is_some() }
            /// Looks a value up by its Lustre name.
            pub fn from_name(name: &str) -> Option<Self> {
                Self::NAMED.iter().find(|(n, _)| *n == name).map(|&(_, v)| Self(v))
            }
        }

        $crate::wire_bits_common!($Name, $T);
        $crate::wire_bits_common!(serde $Name, serialize_enum, deserialize_enum);

        impl core::fmt::Display for $Name {
            /// The Lustre name, or the value in hex when it has none.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self.name() {
                    Some(n) => f.pad(n),
                    None => $crate::flags::pad_with(f, |w| write!(w, "{:#x}", self.0)),
                }
            }
        }

        impl core::str::FromStr for $Name {
            type Err = $crate::flags::ParseError;
            /// A Lustre name, `0x…` or a decimal number.
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $crate::flags::parse_enum::<Self>(s).map(|v| Self(v as $T))
            }
        }
    };
}
