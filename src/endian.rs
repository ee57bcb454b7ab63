//! Byte order of a message, detected from `lm_magic` (WIRE.md §1).

use core::fmt;

/// The byte order a message was written in.
///
/// Lustre sends RPCs in the sender's native order; a receiver recognises the other order by the
/// swabbed magic. Decoders report which order they saw; encoders write [`Endian::Little`] unless
/// asked otherwise (to stand in for a big-endian peer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Endian {
    /// Little-endian: every peer Lustre ships on today (x86_64, aarch64, ppc64le).
    #[default]
    Little,
    /// Big-endian: a swabbed message as seen by a little-endian receiver.
    Big,
}

impl Endian {
    /// The short name used by the tool and in JSON: `"le"` or `"be"`.
    pub const fn name(self) -> &'static str {
        match self {
            Endian::Little => "le",
            Endian::Big => "be",
        }
    }

    /// Parses `"le"` or `"be"`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "le" => Some(Endian::Little),
            "be" => Some(Endian::Big),
            _ => None,
        }
    }

    /// Reads a u32 written in this order.
    #[inline]
    pub const fn u32_from(self, b: [u8; 4]) -> u32 {
        match self {
            Endian::Little => u32::from_le_bytes(b),
            Endian::Big => u32::from_be_bytes(b),
        }
    }

    /// Writes a u32 in this order.
    #[inline]
    pub const fn u32_to(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
}

/// Binds the type `$O` to the `zerocopy` byte order of `$order` (an [`Endian`]) and evaluates
/// `$body` with it: `with_order!(order, |O| decode_as::<O>(bytes))`. The one place a message's
/// order, known at run time, becomes the type parameter of the generic readers and writers
/// (whose names end in `_as`, "in byte order O"). Each arm is its own monomorphic copy of
/// `$body`, so the dispatch costs one branch; `?` and `return` act on the enclosing function.
macro_rules! with_order {
    ($order:expr, |$O:ident| $body:expr) => {
        match $order {
            $crate::endian::Endian::Little => {
                type $O = ::zerocopy::LittleEndian;
                $body
            }
            $crate::endian::Endian::Big => {
                type $O = ::zerocopy::BigEndian;
                $body
            }
        }
    };
}
pub(crate) use with_order;

impl fmt::Display for Endian {
    /// `le` or `be`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl core::str::FromStr for Endian {
    type Err = crate::flags::ParseError;
    /// `le` or `be` (surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        crate::flags::parse_closed(s, "Endian", &[Endian::Little, Endian::Big], |e| e.name())
    }
}
