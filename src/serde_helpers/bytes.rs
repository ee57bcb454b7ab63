//! Byte strings: opaque blobs as lower-case hex, names as text when UTF-8 else `{"hex": …}`.

use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};

/// Lower-case hex of bytes, written as it goes.
pub struct Hex<'a>(pub &'a [u8]);

impl fmt::Display for Hex<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

/// Decodes hex (either case) of at most `max` bytes.
pub fn unhex<E: de::Error>(s: &str, max: usize) -> Result<Vec<u8>, E> {
    let s = s.trim();
    if !s.len().is_multiple_of(2) {
        return Err(E::custom("hex: odd number of digits"));
    }
    if s.len() / 2 > max {
        return Err(E::custom(format_args!(
            "hex: {} bytes, more than the limit of {max}",
            s.len() / 2
        )));
    }
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    };
    let mut out = Vec::with_capacity(s.len() / 2);
    for (i, pair) in s.as_bytes().chunks_exact(2).enumerate() {
        match (digit(pair[0]), digit(pair[1])) {
            (Some(h), Some(l)) => out.push(h << 4 | l),
            _ => {
                return Err(E::custom(format_args!("hex: not a hex digit at {}", 2 * i)));
            }
        }
    }
    Ok(out)
}

struct HexVisitor(usize);

impl Visitor<'_> for HexVisitor {
    type Value = Vec<u8>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string of hex digits")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
        unhex(v, self.0)
    }
}

/// Reads a hex blob of at most `max` bytes.
pub fn de_hex<'de, D: Deserializer<'de>>(d: D, max: usize) -> Result<Vec<u8>, D::Error> {
    d.deserialize_str(HexVisitor(max))
}

/// `#[serde(with)]` for an opaque blob (`Bytes`, `Vec<u8>`): `"0a0b…"`, at most
/// `XATTR_SIZE_MAX` bytes (every blob of the protocol is bounded by it).
pub mod hex {
    use super::*;
    use crate::limits::XATTR_SIZE_MAX;
    pub fn serialize<S: Serializer, T: AsRef<[u8]>>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Hex(v.as_ref()))
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: From<Vec<u8>>>(d: D) -> Result<T, D::Error> {
        de_hex(d, XATTR_SIZE_MAX).map(T::from)
    }
}

/// `#[serde(with)]` for an optional blob: `null` or hex (the model's xattrs).
#[cfg(feature = "std")]
pub mod opt_hex {
    use super::*;
    pub fn serialize<S: Serializer, T: AsRef<[u8]>>(
        v: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(b) => s.serialize_some(&HexStr(b.as_ref())),
            None => s.serialize_none(),
        }
    }
    pub fn deserialize<'de, D: Deserializer<'de>, T: From<Vec<u8>>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let v: Option<HexBlob> = serde::Deserialize::deserialize(d)?;
        Ok(v.map(|b| T::from(b.0)))
    }
}

/// A blob in its hex form.
pub struct HexStr<'a>(pub &'a [u8]);

impl serde::Serialize for HexStr<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Hex(self.0))
    }
}

/// A blob read from hex.
pub struct HexBlob(pub Vec<u8>);

impl<'de> serde::Deserialize<'de> for HexBlob {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_hex(d, crate::limits::XATTR_SIZE_MAX).map(HexBlob)
    }
}

/// Writes a name: a JSON string when UTF-8, else `{"hex": "…"}`.
pub fn ser_name<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
    match core::str::from_utf8(b) {
        Ok(t) => s.serialize_str(t),
        Err(_) => {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("hex", &HexStr(b))?;
            m.end()
        }
    }
}

struct NameVisitor(usize);

impl<'de> Visitor<'de> for NameVisitor {
    type Value = Vec<u8>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string, or {\"hex\": \"…\"} for bytes that are not UTF-8")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
        if v.len() > self.0 {
            return Err(E::custom(format_args!(
                "{} bytes, more than the limit of {}",
                v.len(),
                self.0
            )));
        }
        Ok(v.as_bytes().to_vec())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Vec<u8>, A::Error> {
        let mut out = None;
        while let Some(k) = map.next_key::<HexKey>()? {
            let _ = k;
            if out.is_some() {
                return Err(de::Error::custom("duplicate field `hex`"));
            }
            out = Some(map.next_value_seed(HexSeed(self.0))?);
        }
        out.ok_or_else(|| de::Error::missing_field("hex"))
    }
}

/// The only key of the `{"hex"}` form.
struct HexKey;

impl<'de> serde::Deserialize<'de> for HexKey {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = HexKey;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("`hex`")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<HexKey, E> {
                if v == "hex" {
                    Ok(HexKey)
                } else {
                    Err(E::unknown_field(v, &["hex"]))
                }
            }
        }
        d.deserialize_str(V)
    }
}

struct HexSeed(usize);

impl<'de> de::DeserializeSeed<'de> for HexSeed {
    type Value = Vec<u8>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<u8>, D::Error> {
        de_hex(d, self.0)
    }
}

/// Reads a name of at most `max` bytes (text or `{"hex"}`).
pub fn de_name<'de, D: Deserializer<'de>>(d: D, max: usize) -> Result<Vec<u8>, D::Error> {
    d.deserialize_any(NameVisitor(max))
}

/// `#[serde(with)]` for a model name (`Vec<u8>`): text or `{"hex"}`.
#[cfg(feature = "std")]
pub mod name {
    use super::*;
    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        ser_name(v, s)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        de_name(d, crate::limits::XATTR_SIZE_MAX)
    }
}

/// A fixed, NUL-padded byte field (`pb_jobid`, pool names): text when it is printable ASCII of
/// at most `text_max` bytes followed by NULs only, else `{"hex"}` of the whole field.
pub fn ser_padded<S: Serializer>(field: &[u8], text_max: usize, s: S) -> Result<S::Ok, S::Error> {
    let end = field.iter().position(|&b| b == 0).unwrap_or(field.len());
    let tail_clean = field[end..].iter().all(|&b| b == 0);
    let printable = field[..end].iter().all(|b| (0x20..0x7f).contains(b));
    match core::str::from_utf8(&field[..end]) {
        Ok(t) if printable && tail_clean && end <= text_max => s.serialize_str(t),
        _ => {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry("hex", &HexStr(field))?;
            m.end()
        }
    }
}

/// Reads a fixed field of `N` bytes: text of at most `text_max` bytes (NUL-padded, no NUL
/// inside), or `{"hex"}` of exactly `N` bytes.
pub fn de_padded<'de, D: Deserializer<'de>, const N: usize>(
    d: D,
    text_max: usize,
) -> Result<[u8; N], D::Error> {
    struct V<const N: usize>(usize);
    impl<'de, const N: usize> Visitor<'de> for V<N> {
        type Value = [u8; N];
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(
                f,
                "a string of at most {} bytes, or {{\"hex\": …}} of {N} bytes",
                self.0
            )
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<[u8; N], E> {
            if v.len() > self.0 || v.as_bytes().contains(&0) {
                return Err(E::custom(format_args!(
                    "`{v}`: longer than {} bytes or holds a NUL",
                    self.0
                )));
            }
            let mut out = [0u8; N];
            out[..v.len()].copy_from_slice(v.as_bytes());
            Ok(out)
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<[u8; N], A::Error> {
            let b = NameVisitor(N).visit_map(map)?;
            <[u8; N]>::try_from(b.as_slice()).map_err(|_| {
                de::Error::custom(format_args!("hex: {} bytes, expected {N}", b.len()))
            })
        }
    }
    d.deserialize_any(V::<N>(text_max))
}

/// A short string read without allocating (map keys, names): at most 64 bytes are kept, which
/// is longer than any name it is compared with.
pub struct BoundedStr(super::StackStr<64>);

impl BoundedStr {
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl<'de> serde::Deserialize<'de> for BoundedStr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = BoundedStr;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<BoundedStr, E> {
                let mut s = super::StackStr::<64>::new();
                for c in v.chars() {
                    if core::fmt::Write::write_char(&mut s, c).is_err() {
                        break;
                    }
                }
                Ok(BoundedStr(s))
            }
        }
        d.deserialize_str(V)
    }
}

/// `#[serde(with)]` for a fixed padding field (`[u8; N]`): hex of its N bytes. Paired with
/// `skip_serializing_if = "crate::serde_helpers::bytes::padding::is_zero"` and `default`, a field that
/// is zero, as Lustre writes it, does not appear, and one that is not is shown, never dropped.
pub mod padding {
    use super::*;

    /// True when every byte is zero.
    pub fn is_zero<const N: usize>(v: &[u8; N]) -> bool {
        v.iter().all(|&b| b == 0)
    }

    pub fn serialize<S: Serializer, const N: usize>(v: &[u8; N], s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&Hex(v))
    }

    pub fn deserialize<'de, D: Deserializer<'de>, const N: usize>(
        d: D,
    ) -> Result<[u8; N], D::Error> {
        let v = de_hex(d, N)?;
        v.try_into().map_err(|v: Vec<u8>| {
            de::Error::custom(format_args!("expected {N} bytes of hex, got {}", v.len()))
        })
    }
}
