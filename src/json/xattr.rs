//! Hand-written serde forms of xattr values: the pin and pool names as text or hex, and the LMV
//! hash type as a flag set whose first name is the hash function.

use crate::flags::WireBits;
use crate::limits::{POOL_NAME_MAX, XATTR_SIZE_MAX};
use crate::serde_helpers::bytes::{de_name, de_padded, ser_name, ser_padded};
use crate::xattr::{LmvHashFlags, LmvHashType, Pin, PoolName};
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

impl Serialize for Pin {
    /// The pin's text when UTF-8 (it is `[key: value,…]` text), else `{"hex"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_name(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for Pin {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_name(d, XATTR_SIZE_MAX).map(Pin::new)
    }
}

impl Serialize for PoolName {
    /// The name (at most 15 bytes, NUL padding dropped), or `{"hex"}` of all 16 bytes when the
    /// field holds anything else.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_padded(&self.0, POOL_NAME_MAX, s)
    }
}

impl<'de> Deserialize<'de> for PoolName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_padded::<D, { POOL_NAME_MAX + 1 }>(d, POOL_NAME_MAX).map(PoolName)
    }
}

/// The names of a hash type, hash function first: at most one function and every flag.
fn hash_names(v: LmvHashType) -> ([&'static str; 9], usize, u32) {
    let mut names = [""; 9];
    let mut n = 0;
    let mut unknown = 0;
    match v.hash_fn().name() {
        Some(f) => {
            names[0] = f;
            n = 1;
        }
        None => unknown |= v.hash_fn().0,
    }
    let (taken, rest) = crate::flags::decompose::<LmvHashFlags>(v.flags().0 as u64);
    for (i, (name, _)) in (0..).map_while(LmvHashFlags::named).enumerate() {
        if taken & (1 << i) != 0 && n < names.len() {
            names[n] = name;
            n += 1;
        }
    }
    (names, n, unknown | rest as u32)
}

impl Serialize for LmvHashType {
    /// `{"bits": "0x02000002", "names": ["fnv_1a_64", "fixed"]}`, plus `"unknown"` for an
    /// unnamed hash function or flag bits.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (names, n, unknown) = hash_names(*self);
        let mut st = s.serialize_struct("LmvHashType", 2 + (unknown != 0) as usize)?;
        let bits = crate::serde_helpers::stack_fmt::<10>(format_args!("0x{:08x}", self.0));
        st.serialize_field("bits", bits.as_str())?;
        st.serialize_field("names", &names[..n])?;
        if unknown != 0 {
            let u = crate::serde_helpers::stack_fmt::<10>(format_args!("0x{unknown:08x}"));
            st.serialize_field("unknown", u.as_str())?;
        }
        st.end()
    }
}

/// Checks a `names` list against the expected one, in order, without allocating.
struct Expect<'a>(&'a [&'static str]);

impl<'de> de::DeserializeSeed<'de> for Expect<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Expect<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the names {:?}", self.0)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0;
        while let Some(name) = seq.next_element::<crate::serde_helpers::bytes::BoundedStr>()? {
            if self.0.get(i) != Some(&name.as_str()) {
                return Err(de::Error::custom(format_args!(
                    "LmvHashType: `names` disagrees with `bits` (expected {:?})",
                    self.0
                )));
            }
            i += 1;
        }
        if i != self.0.len() {
            return Err(de::Error::custom(format_args!(
                "LmvHashType: `names` disagrees with `bits` (expected {:?})",
                self.0
            )));
        }
        Ok(())
    }
}

impl<'de> Deserialize<'de> for LmvHashType {
    /// The object (bits authoritative; `names` checked when given), `lfs` text, or a number.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LmvHashType;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a hash type: {\"bits\", \"names\"}, \"crush,migrating\" or a number")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<LmvHashType, E> {
                u32::try_from(v)
                    .map(LmvHashType)
                    .map_err(|_| E::invalid_value(de::Unexpected::Unsigned(v), &self))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<LmvHashType, E> {
                u32::try_from(v)
                    .map(LmvHashType)
                    .map_err(|_| E::invalid_value(de::Unexpected::Signed(v), &self))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<LmvHashType, E> {
                v.parse()
                    .map_err(|e| E::custom(format_args!("{e} in `{v}`")))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<LmvHashType, A::Error> {
                const FIELDS: &[&str] = &["bits", "names", "unknown"];
                let mut bits: Option<u32> = None;
                let mut deferred = false;
                let mut unknown: Option<u32> = None;
                while let Some(k) = map.next_key::<crate::serde_helpers::bytes::BoundedStr>()? {
                    match k.as_str() {
                        "bits" if bits.is_none() => {
                            let v = map.next_value_seed(U32Seed)?;
                            bits = Some(v);
                        }
                        "names" if !deferred => {
                            // `bits` normally comes first; when it does not, names are checked
                            // only for form.
                            match bits {
                                Some(b) => {
                                    let (names, n, _) = hash_names(LmvHashType(b));
                                    map.next_value_seed(Expect(&names[..n]))?;
                                }
                                None => {
                                    map.next_value::<de::IgnoredAny>()?;
                                }
                            }
                            deferred = true;
                        }
                        "unknown" if unknown.is_none() => {
                            unknown = Some(map.next_value_seed(U32Seed)?);
                        }
                        k if FIELDS.contains(&k) => {
                            return Err(de::Error::custom(format_args!("duplicate field `{k}`")));
                        }
                        k => return Err(de::Error::unknown_field(k, FIELDS)),
                    }
                }
                let b = bits.ok_or_else(|| de::Error::missing_field("bits"))?;
                let (_, _, rest) = hash_names(LmvHashType(b));
                if let Some(u) = unknown
                    && u != rest
                {
                    return Err(de::Error::custom(format_args!(
                        "LmvHashType: `unknown` {u:#x} disagrees with `bits` {b:#x}"
                    )));
                }
                Ok(LmvHashType(b))
            }
        }
        d.deserialize_any(V)
    }
}

struct U32Seed;

impl<'de> de::DeserializeSeed<'de> for U32Seed {
    type Value = u32;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<u32, D::Error> {
        let v = d.deserialize_any(crate::serde_helpers::ints::U64Visitor)?;
        u32::try_from(v).map_err(|_| de::Error::custom(format_args!("{v:#x} does not fit 32 bits")))
    }
}
