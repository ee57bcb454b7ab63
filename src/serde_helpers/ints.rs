//! 64-bit integers as strings: opaque values in fixed-width hex, quantities in decimal. Input
//! takes either string form or a JSON number.

use super::stack_fmt;
use core::fmt;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeTuple, Serializer};

/// Accepts a u64 as a JSON number, or a string in `0x` hex or decimal.
pub struct U64Visitor;

impl Visitor<'_> for U64Visitor {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a 64-bit unsigned integer: \"0x…\", a decimal string, or a number")
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        Ok(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        crate::flags::parse_number(v.trim(), u64::MAX)
            .ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

/// Accepts an i64 as a JSON number or a decimal string (a leading `-` allowed).
struct I64Visitor;

impl Visitor<'_> for I64Visitor {
    type Value = i64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a 64-bit signed integer: a decimal string or a number")
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<i64, E> {
        Ok(v)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<i64, E> {
        i64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<i64, E> {
        let t = v.trim();
        let (neg, digits) = match t.strip_prefix('-') {
            Some(d) => (true, d),
            None => (false, t),
        };
        let bad = || E::invalid_value(de::Unexpected::Str(v), &self);
        let m = crate::flags::parse_number(digits, u64::MAX).ok_or_else(bad)?;
        if neg {
            0i64.checked_sub_unsigned(m).ok_or_else(bad)
        } else {
            i64::try_from(m).map_err(|_| bad())
        }
    }
}

fn ser_hex<S: Serializer>(v: u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(stack_fmt::<18>(format_args!("{v:#018x}")).as_str())
}

fn ser_dec<S: Serializer>(v: u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(stack_fmt::<20>(format_args!("{v}")).as_str())
}

/// `#[serde(with)]` for an opaque u64: `"0x0000000000001234"`.
pub mod hex {
    use super::*;
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        ser_hex(*v, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(U64Visitor)
    }
}

/// `#[serde(with)]` for an optional opaque u64 (with `default` and `skip_serializing_if`).
pub mod hex_opt {
    use super::*;
    pub fn serialize<S: Serializer>(v: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) => ser_hex(*v, s),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
        hex::deserialize(d).map(Some)
    }
}

/// `#[serde(with)]` for a u64 quantity: `"4096"`.
pub mod dec {
    use super::*;
    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        ser_dec(*v, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        d.deserialize_any(U64Visitor)
    }
}

/// `#[serde(with)]` for an i64 quantity: `"-1"`.
pub mod dec_i64 {
    use super::*;
    pub fn serialize<S: Serializer>(v: &i64, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(stack_fmt::<20>(format_args!("{v}")).as_str())
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        d.deserialize_any(I64Visitor)
    }
}

/// A u64 as its serde form, hex or decimal.
struct Str64(u64, bool);

impl serde::Serialize for Str64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.1 {
            ser_hex(self.0, s)
        } else {
            ser_dec(self.0, s)
        }
    }
}

fn ser_array<S: Serializer, const N: usize>(
    v: &[u64; N],
    hex: bool,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut t = s.serialize_tuple(N)?;
    for &x in v {
        t.serialize_element(&Str64(x, hex))?;
    }
    t.end()
}

struct Lenient(u64);

impl<'de> serde::Deserialize<'de> for Lenient {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(U64Visitor).map(Lenient)
    }
}

struct ArrayVisitor<const N: usize>;

impl<'de, const N: usize> Visitor<'de> for ArrayVisitor<N> {
    type Value = [u64; N];
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an array of {N} 64-bit integers")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<[u64; N], A::Error> {
        let mut out = [0u64; N];
        for (i, slot) in out.iter_mut().enumerate() {
            *slot = seq
                .next_element::<Lenient>()?
                .ok_or_else(|| de::Error::invalid_length(i, &self))?
                .0;
        }
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(N + 1, &self));
        }
        Ok(out)
    }
}

/// `#[serde(with)]` for a fixed array of opaque u64s (`lr_name.name`).
pub mod hex_array {
    use super::*;
    pub fn serialize<S: Serializer, const N: usize>(v: &[u64; N], s: S) -> Result<S::Ok, S::Error> {
        ser_array(v, true, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u64; N], D::Error> {
        d.deserialize_tuple(N, ArrayVisitor::<N>)
    }
}

/// `#[serde(with)]` for a fixed array of u64 quantities (`pb_pre_versions`).
pub mod dec_array {
    use super::*;
    pub fn serialize<S: Serializer, const N: usize>(v: &[u64; N], s: S) -> Result<S::Ok, S::Error> {
        ser_array(v, false, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u64; N], D::Error> {
        d.deserialize_tuple(N, ArrayVisitor::<N>)
    }
}
