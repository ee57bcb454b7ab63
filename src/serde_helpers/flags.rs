//! Flag sets as `{"bits", "names", "unknown"}` and open enumerations as `{"value", "name"}`.

use super::stack_fmt;
use crate::flags::{WireBits, decompose, parse_enum, parse_flags};
use core::fmt;
use core::marker::PhantomData;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, SerializeStruct, Serializer};

/// `0x` and as many hex digits as the type has nibbles.
fn fixed_hex<T: WireBits>(v: u64) -> super::StackStr<18> {
    let digits = (T::BITS as usize).div_ceil(4);
    stack_fmt(format_args!("0x{v:0digits$x}"))
}

/// The names of the greedy decomposition, as a sequence.
struct Names<T>(u128, PhantomData<T>);

impl<T: WireBits> serde::Serialize for Names<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.count_ones() as usize))?;
        for (i, (name, _)) in (0..128).map_while(T::named).enumerate() {
            if self.0 & (1 << i) != 0 {
                seq.serialize_element(name)?;
            }
        }
        seq.end()
    }
}

pub fn serialize<T: WireBits, S: Serializer>(v: T, s: S) -> Result<S::Ok, S::Error> {
    let bits = v.to_u64();
    let (taken, rest) = decompose::<T>(bits);
    let mut st = s.serialize_struct(T::TYPE, if rest != 0 { 3 } else { 2 })?;
    st.serialize_field("bits", fixed_hex::<T>(bits).as_str())?;
    st.serialize_field("names", &Names::<T>(taken, PhantomData))?;
    if rest != 0 {
        st.serialize_field("unknown", fixed_hex::<T>(rest).as_str())?;
    }
    st.end()
}

pub fn serialize_enum<T: WireBits, S: Serializer>(v: T, s: S) -> Result<S::Ok, S::Error> {
    let value = v.to_u64();
    let name = (0..).map_while(T::named).find(|&(_, x)| x == value);
    let mut st = s.serialize_struct(T::TYPE, 1 + name.is_some() as usize)?;
    st.serialize_field("value", fixed_hex::<T>(value).as_str())?;
    if let Some((n, _)) = name {
        st.serialize_field("name", n)?;
    }
    st.end()
}

fn fits<T: WireBits, E: de::Error>(v: u64) -> Result<u64, E> {
    if v > T::max() {
        return Err(E::custom(format_args!(
            "{}: {v:#x} does not fit {} bits",
            T::TYPE,
            T::BITS
        )));
    }
    Ok(v)
}

/// A raw value inside the object form: `"0x…"`, decimal string or number, checked for width.
struct Raw<T>(PhantomData<T>);

impl<'de, T: WireBits> DeserializeSeed<'de> for Raw<T> {
    type Value = u64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u64, D::Error> {
        let v = d.deserialize_any(super::ints::U64Visitor)?;
        fits::<T, D::Error>(v)
    }
}

/// A `names` list, read into a set of `NAMED` indices without allocating.
struct NameSet<T>(PhantomData<T>);

impl<'de, T: WireBits> DeserializeSeed<'de> for NameSet<T> {
    type Value = u128;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u128, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de, T: WireBits> Visitor<'de> for NameSet<T> {
    type Value = u128;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of {} names", T::TYPE)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<u128, A::Error> {
        let mut set = 0u128;
        while let Some(name) = seq.next_element::<NameStr<T>>()? {
            if set & (1 << name.0) != 0 {
                return Err(de::Error::custom(format_args!(
                    "{}: a name is listed twice",
                    T::TYPE
                )));
            }
            set |= 1 << name.0;
        }
        Ok(set)
    }
}

/// One name, as its `NAMED` index.
struct NameStr<T>(usize, PhantomData<T>);

impl<'de, T: WireBits> serde::Deserialize<'de> for NameStr<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(PhantomData<T>);
        impl<T: WireBits> Visitor<'_> for V<T> {
            type Value = usize;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "a {} name", T::TYPE)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
                (0..128)
                    .map_while(T::named)
                    .position(|(n, _)| n == v)
                    .ok_or_else(|| E::custom(format_args!("{}: unknown name `{v}`", T::TYPE)))
            }
        }
        d.deserialize_str(V::<T>(PhantomData))
            .map(|i| NameStr(i, PhantomData))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Shape {
    Flags,
    Enum,
}

const FLAG_FIELDS: &[&str] = &["bits", "names", "unknown"];
const ENUM_FIELDS: &[&str] = &["value", "name"];

struct AnyForm<T>(Shape, PhantomData<T>);

impl<'de, T: WireBits> Visitor<'de> for AnyForm<T> {
    type Value = u64;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Shape::Flags => write!(
                f,
                "{} as {{\"bits\", \"names\"}}, a \"NAME|NAME|0x…\" string or a number",
                T::TYPE
            ),
            Shape::Enum => write!(
                f,
                "{} as {{\"value\", \"name\"}}, a name, a \"0x…\" string or a number",
                T::TYPE
            ),
        }
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
        fits::<T, E>(v)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
        let v = u64::try_from(v).map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))?;
        fits::<T, E>(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
        let r = match self.0 {
            Shape::Flags => parse_flags::<T>(v),
            Shape::Enum => parse_enum::<T>(v),
        };
        r.map_err(|e| E::custom(format_args!("{e} in `{v}`")))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<u64, A::Error> {
        let (raw_key, names_key, fields) = match self.0 {
            Shape::Flags => ("bits", "names", FLAG_FIELDS),
            Shape::Enum => ("value", "name", ENUM_FIELDS),
        };
        let mut raw = None;
        let mut names = None;
        let mut unknown = None;
        while let Some(key) = map.next_key::<KeyStr>()? {
            let k = key.as_str();
            if k == raw_key && raw.is_none() {
                raw = Some(map.next_value_seed(Raw::<T>(PhantomData))?);
            } else if k == names_key && names.is_none() {
                names = Some(match self.0 {
                    Shape::Flags => map.next_value_seed(NameSet::<T>(PhantomData))?,
                    Shape::Enum => 1u128 << map.next_value::<NameStr<T>>()?.0,
                });
            } else if k == "unknown" && self.0 == Shape::Flags && unknown.is_none() {
                unknown = Some(map.next_value_seed(Raw::<T>(PhantomData))?);
            } else if fields.contains(&k) {
                return Err(de::Error::custom(format_args!("duplicate field `{k}`")));
            } else {
                return Err(de::Error::unknown_field(k, fields));
            }
        }
        let bits = raw.ok_or_else(|| de::Error::missing_field(raw_key))?;
        let (expect, rest) = match self.0 {
            Shape::Flags => decompose::<T>(bits),
            Shape::Enum => {
                let i = (0..128).map_while(T::named).position(|(_, x)| x == bits);
                (i.map_or(0, |i| 1u128 << i), 0)
            }
        };
        if let Some(given) = names
            && given != expect
        {
            return Err(de::Error::custom(format_args!(
                "{}: `{names_key}` disagrees with `{raw_key}` {bits:#x}",
                T::TYPE
            )));
        }
        if let Some(u) = unknown
            && u != rest
        {
            return Err(de::Error::custom(format_args!(
                "{}: `unknown` {u:#x} disagrees with `bits` {bits:#x} (unnamed bits {rest:#x})",
                T::TYPE
            )));
        }
        Ok(bits)
    }
}

/// A map key, borrowed when the input allows, else copied into a bounded stack buffer.
enum KeyStr {
    Known(&'static str),
    Other(super::StackStr<32>),
}

impl KeyStr {
    fn as_str(&self) -> &str {
        match self {
            KeyStr::Known(s) => s,
            KeyStr::Other(s) => s.as_str(),
        }
    }
}

impl<'de> serde::Deserialize<'de> for KeyStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = KeyStr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyStr, E> {
                for k in FLAG_FIELDS.iter().chain(ENUM_FIELDS) {
                    if *k == v {
                        return Ok(KeyStr::Known(k));
                    }
                }
                // Long unknown keys are cut for the error message only.
                let mut s = super::StackStr::<32>::new();
                for c in v.chars() {
                    if core::fmt::Write::write_char(&mut s, c).is_err() {
                        break;
                    }
                }
                Ok(KeyStr::Other(s))
            }
        }
        d.deserialize_str(V)
    }
}

pub fn deserialize<'de, T: WireBits, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(AnyForm::<T>(Shape::Flags, PhantomData))
        .map(T::from_u64)
}

pub fn deserialize_enum<'de, T: WireBits, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_any(AnyForm::<T>(Shape::Enum, PhantomData))
        .map(T::from_u64)
}
