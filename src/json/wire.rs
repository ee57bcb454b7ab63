//! Hand-written serde forms of the wire values whose shape is not a plain struct: FIDs,
//! handles, bounded lists, names, closed enumerations and the result table.

use super::bytes::{HexBlob, HexStr, de_name, de_padded, ser_name, ser_padded};
use super::stack_fmt;
use crate::Endian;
use crate::intent::{EntryName, GroupList, IntentOpc, MliBuf, Operation};
use crate::limits::{
    GROUPS_MAX, LDLM_REQUEST_MAX_HANDLES, LUSTRE_JOBID_SIZE, MLI_BUF_MAX, NAME_MAX,
};
use crate::wire::{LockHandles, LuFid, LustreHandle};
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// Reads a string and parses it with `FromStr`, reporting the parse error.
struct Parsed<T>(core::marker::PhantomData<T>, &'static str);

impl<T> Visitor<'_> for Parsed<T>
where
    T: core::str::FromStr,
    T::Err: fmt::Display,
{
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.1)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(|e| E::custom(format_args!("`{v}`: {e}")))
    }
}

fn de_parsed<'de, D, T>(d: D, expecting: &'static str) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: core::str::FromStr,
    T::Err: fmt::Display,
{
    d.deserialize_str(Parsed(core::marker::PhantomData, expecting))
}

impl Serialize for LuFid {
    /// `"[0x200000401:0x1:0x0]"`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(stack_fmt::<48>(format_args!("{self}")).as_str())
    }
}

impl<'de> Deserialize<'de> for LuFid {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        de_parsed(d, "a FID, \"[0xSEQ:0xOID:0xVER]\"")
    }
}

impl Serialize for LustreHandle {
    /// `"0x…"`, 16 digits.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        super::ints::hex::serialize(&self.0, s)
    }
}

impl<'de> Deserialize<'de> for LustreHandle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::ints::hex::deserialize(d).map(LustreHandle)
    }
}

impl Serialize for LockHandles {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for LockHandles {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = LockHandles;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "2 to {LDLM_REQUEST_MAX_HANDLES} lock handles")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<LockHandles, A::Error> {
                let mut items = [LustreHandle(0); LDLM_REQUEST_MAX_HANDLES];
                let mut n = 0;
                while let Some(h) = seq.next_element::<LustreHandle>()? {
                    if n == LDLM_REQUEST_MAX_HANDLES {
                        return Err(de::Error::invalid_length(n + 1, &self));
                    }
                    items[n] = h;
                    n += 1;
                }
                LockHandles::from_slice(&items[..n])
                    .ok_or_else(|| de::Error::invalid_length(n, &self))
            }
        }
        d.deserialize_seq(V)
    }
}

impl Serialize for EntryName {
    /// The name as a string when UTF-8, else `{"hex": "…"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_name(self.as_bytes(), s)
    }
}

impl<'de> Deserialize<'de> for EntryName {
    /// Checked by [`EntryName::new`]: not empty, at most 255 bytes, no `/` or NUL, not `.`/`..`.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let b = de_name(d, NAME_MAX)?;
        EntryName::new(&b).map_err(|e| de::Error::custom(format_args!("entry name: {e}")))
    }
}

impl Serialize for GroupList {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> Deserialize<'de> for GroupList {
    /// At most [`GROUPS_MAX`] gids.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = GroupList;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "at most {GROUPS_MAX} group ids")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<GroupList, A::Error> {
                let mut l = GroupList::new();
                let mut n = 0;
                while let Some(g) = seq.next_element::<u32>()? {
                    n += 1;
                    l.push(g).map_err(|_| de::Error::invalid_length(n, &self))?;
                }
                Ok(l)
            }
        }
        d.deserialize_seq(V)
    }
}

macro_rules! by_name {
    ($T:ty, $expecting:literal) => {
        impl Serialize for $T {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> Deserialize<'de> for $T {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                de_parsed(d, $expecting)
            }
        }
    };
}

by_name!(Endian, "\"le\" or \"be\"");
by_name!(Operation, "\"create\", \"rename\" or \"unlink\"");
by_name!(MliBuf, "an MLI_BUF name");

/// `#[serde(with)]` for `pb_jobid`: text (NUL padding dropped), `{"hex"}`, or `null` (v2 body).
pub(crate) mod jobid {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(
        v: &Option<[u8; LUSTRE_JOBID_SIZE]>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Some(j) => s.serialize_some(&Padded(j)),
            None => s.serialize_none(),
        }
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<[u8; LUSTRE_JOBID_SIZE]>, D::Error> {
        Option::<PaddedJobid>::deserialize(d).map(|o| o.map(|p| p.0))
    }

    struct Padded<'a>(&'a [u8; LUSTRE_JOBID_SIZE]);
    impl Serialize for Padded<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            ser_padded(self.0, LUSTRE_JOBID_SIZE, s)
        }
    }
    struct PaddedJobid([u8; LUSTRE_JOBID_SIZE]);
    impl<'de> Deserialize<'de> for PaddedJobid {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            de_padded::<D, LUSTRE_JOBID_SIZE>(d, LUSTRE_JOBID_SIZE).map(PaddedJobid)
        }
    }
}

/// `#[serde(with)]` for the request's intent opcode: `{"opc": …}` (`struct ldlm_intent`).
pub(crate) mod ldlm_intent {
    use super::*;
    use crate::wire::LdlmIntent;
    pub(crate) fn serialize<S: Serializer>(v: &IntentOpc, s: S) -> Result<S::Ok, S::Error> {
        LdlmIntent { opc: *v }.serialize(s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<IntentOpc, D::Error> {
        LdlmIntent::deserialize(d).map(|i| i.opc)
    }
}

const RESULT_FIELDS: [&str; MLI_BUF_MAX] = [
    "MLI_BUF_PATTR",
    "MLI_BUF_DEF_ACL",
    "MLI_BUF_PIN",
    "MLI_BUF_LMV",
    "MLI_BUF_LOV",
    "MLI_BUF_DEF_LMV",
];

/// `#[serde(with)]` for the six result buffers: an object keyed by `MLI_BUF` name, each a hex
/// string (`""` when absent or unknown). Missing keys read as empty.
pub(crate) mod results {
    use super::*;
    use bytes::Bytes;

    pub(crate) fn serialize<S: Serializer>(
        v: &[Bytes; MLI_BUF_MAX],
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("results", MLI_BUF_MAX)?;
        for (b, name) in v.iter().zip(RESULT_FIELDS) {
            st.serialize_field(name, &HexStr(b))?;
        }
        st.end()
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<[Bytes; MLI_BUF_MAX], D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = [Bytes; MLI_BUF_MAX];
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of MLI_BUF_* hex strings")
            }
            fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out: [Option<Bytes>; MLI_BUF_MAX] = Default::default();
                while let Some(key) = map.next_key::<ResultKey>()? {
                    let slot = &mut out[key.0];
                    if slot.is_some() {
                        return Err(de::Error::custom(format_args!(
                            "duplicate field `{}`",
                            RESULT_FIELDS[key.0]
                        )));
                    }
                    *slot = Some(Bytes::from(map.next_value::<HexBlob>()?.0));
                }
                Ok(out.map(Option::unwrap_or_default))
            }
        }
        d.deserialize_struct("results", &RESULT_FIELDS, V)
    }

    struct ResultKey(usize);
    impl<'de> Deserialize<'de> for ResultKey {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct K;
            impl Visitor<'_> for K {
                type Value = ResultKey;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("an MLI_BUF_* name")
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<ResultKey, E> {
                    RESULT_FIELDS
                        .iter()
                        .position(|n| *n == v)
                        .map(ResultKey)
                        .ok_or_else(|| E::unknown_field(v, &RESULT_FIELDS))
                }
            }
            d.deserialize_identifier(K)
        }
    }
}
