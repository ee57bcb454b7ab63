//! Open bit sets and open enumerations over wire integers.
//!
//! Peers add opcodes and flag bits over time, so every such field is a newtype over the wire
//! integer with named constants; unknown values survive a round trip unchanged and are printed in
//! hex. Whether an unknown bit is *acceptable* is a rule of the structure that carries it, not of
//! the type.

/// Defines a bit-set newtype with named single-bit (or multi-bit) constants.
macro_rules! wire_flags {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident($T:ty) {
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

        impl core::fmt::Display for $Name {
            /// `NAME|NAME|0xUNKNOWN`, or `0` when empty.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let mut rest = self.0;
                let mut first = true;
                for &(name, v) in Self::NAMED {
                    if v != 0 && rest & v == v {
                        if !first { f.write_str("|")?; }
                        f.write_str(name)?;
                        rest &= !v;
                        first = false;
                    }
                }
                if rest != 0 || first {
                    if !first { f.write_str("|")?; }
                    write!(f, "{:#x}", rest)?;
                }
                Ok(())
            }
        }

        impl core::fmt::Debug for $Name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({})", stringify!($Name), self)
            }
        }
    };
}

/// Defines an open enumeration: a newtype with named values; unknown values are kept.
macro_rules! wire_enum {
    (
        $(#[$meta:meta])*
        $vis:vis struct $Name:ident($T:ty) {
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

        impl core::fmt::Display for $Name {
            /// The Lustre name, or the value in hex when it has none.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{:#x}", self.0),
                }
            }
        }

        impl core::fmt::Debug for $Name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, "{}({})", stringify!($Name), self)
            }
        }
    };
}
