//! Hand-written serde forms of model values: faults by the tool's names, directory entries as a
//! list, lock and reply results, and the static names of the trace and survey.

use crate::coordinator::CacheEvent;
use crate::store::{Attrs, Entry};
use crate::{Fault, Item, survey};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use core::fmt;
use lustre_dne_intent::serde_helpers::bytes::{HexBlob, HexStr, ser_name};
use lustre_dne_intent::wire::LuFid;
use serde::de::{self, Deserialize, Deserializer, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

impl Serialize for Fault {
    /// The tool's name: `"none"`, `"truncated-lov"`, `"partial-groups-3"`, …
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Fault {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Fault;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a fault name such as \"none\" or \"partial-groups-3\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Fault, E> {
                v.parse()
                    .map_err(|e| E::custom(format_args!("{e} in `{v}`")))
            }
        }
        d.deserialize_str(V)
    }
}

/// One directory entry in the list form.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryItem {
    #[serde(with = "lustre_dne_intent::serde_helpers::bytes::name")]
    name: Vec<u8>,
    fid: LuFid,
    /// 0 (unknown) when left out.
    #[serde(default)]
    ftype: u32,
}

/// `#[serde(with)]` for `Object::entries`: `[{"name", "fid", "ftype"}, …]` in name order
/// (names are bytes, so they cannot be JSON keys); a repeated name is refused.
pub(crate) mod entries {
    use super::*;

    struct Item<'a>(&'a [u8], &'a Entry);
    impl Serialize for Item<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut st = s.serialize_struct("EntryItem", 3)?;
            st.serialize_field("name", &NameRef(self.0))?;
            st.serialize_field("fid", &self.1.fid)?;
            st.serialize_field("ftype", &self.1.ftype)?;
            st.end()
        }
    }

    pub(crate) fn serialize<S: Serializer>(
        v: &BTreeMap<Vec<u8>, Entry>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(v.len()))?;
        for (k, e) in v {
            seq.serialize_element(&Item(k, e))?;
        }
        seq.end()
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<BTreeMap<Vec<u8>, Entry>, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BTreeMap<Vec<u8>, Entry>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of directory entries")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut m = BTreeMap::new();
                while let Some(e) = seq.next_element::<EntryItem>()? {
                    let entry = Entry {
                        fid: e.fid,
                        ftype: e.ftype,
                    };
                    if m.insert(e.name, entry).is_some() {
                        return Err(de::Error::custom("directory entry listed twice"));
                    }
                }
                Ok(m)
            }
        }
        d.deserialize_seq(V)
    }
}

/// A name in its serde form.
pub(crate) struct NameRef<'a>(pub(crate) &'a [u8]);

impl Serialize for NameRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ser_name(self.0, s)
    }
}

#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum LockResult {
    Granted(u32),
    Errno(i32),
}

/// `#[serde(with)]` for an enqueue's result: `{"granted": lock id}` or `{"errno": -71}`.
pub(crate) mod lock_result {
    use super::*;
    pub(crate) fn serialize<S: Serializer>(v: &Result<u32, i32>, s: S) -> Result<S::Ok, S::Error> {
        match *v {
            Ok(id) => LockResult::Granted(id),
            Err(e) => LockResult::Errno(e),
        }
        .serialize(s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Result<u32, i32>, D::Error> {
        Ok(match LockResult::deserialize(d)? {
            LockResult::Granted(id) => Ok(id),
            LockResult::Errno(e) => Err(e),
        })
    }
}

/// `#[serde(with)]` for a handler run's answer: `{"reply": "hex"}` or `{"errno": -1}`.
pub(crate) mod reply_result {
    use super::*;
    use lustre_dne_intent::bytes::Bytes;

    #[derive(serde::Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Out<'a> {
        Reply(HexStr<'a>),
        Errno(i32),
    }
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "snake_case", deny_unknown_fields)]
    enum In {
        Reply(HexBlob),
        Errno(i32),
    }

    pub(crate) fn serialize<S: Serializer>(
        v: &Result<Bytes, i32>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match v {
            Ok(b) => Out::Reply(HexStr(b)),
            Err(e) => Out::Errno(*e),
        }
        .serialize(s)
    }
    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Result<Bytes, i32>, D::Error> {
        Ok(match In::deserialize(d)? {
            In::Reply(b) => Ok(Bytes::from(b.0)),
            In::Errno(e) => Err(e),
        })
    }
}

/// Reads a string that must be one of `known`, returning the static copy.
fn de_static<'de, D: Deserializer<'de>>(
    d: D,
    what: &'static str,
    mut known: impl Iterator<Item = &'static str>,
) -> Result<&'static str, D::Error> {
    let s = lustre_dne_intent::serde_helpers::bytes::BoundedStr::deserialize(d)?;
    known
        .find(|k| *k == s.as_str())
        .ok_or_else(|| de::Error::custom(format_args!("unknown {what} `{}`", s.as_str())))
}

/// A seeded result's state: `"present"`, `"absent"`, `"truncated"` or `"unknown"` (the names
/// of `PrepResult::state_name`).
struct StateName(&'static str);

impl<'de> Deserialize<'de> for StateName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let known = ["present", "absent", "truncated", "unknown"].into_iter();
        de_static(d, "result state", known).map(StateName)
    }
}

/// The input side of `CacheEvent` (its `state` is a static name, so derive cannot read it).
#[derive(serde::Deserialize)]
#[serde(rename = "CacheEvent", rename_all = "snake_case", deny_unknown_fields)]
enum CacheEventIn {
    Grant(u32),
    Invalidate,
    Seed {
        item: Item,
        #[serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")]
        value: Option<Vec<u8>>,
        state: StateName,
    },
    SeedAttrs {
        fid: LuFid,
        attrs: Option<Attrs>,
        state: StateName,
    },
}

impl<'de> Deserialize<'de> for CacheEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match CacheEventIn::deserialize(d)? {
            CacheEventIn::Grant(id) => CacheEvent::Grant(id),
            CacheEventIn::Invalidate => CacheEvent::Invalidate,
            CacheEventIn::Seed { item, value, state } => CacheEvent::Seed {
                item,
                value,
                state: state.0,
            },
            CacheEventIn::SeedAttrs { fid, attrs, state } => CacheEvent::SeedAttrs {
                fid,
                attrs,
                state: state.0,
            },
        })
    }
}

/// A survey row's operation: one of the design's operations' names.
struct SurveyOperation(&'static str);

impl<'de> Deserialize<'de> for SurveyOperation {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let known = survey::DesignOp::ALL.iter().map(|o| o.name());
        de_static(d, "survey operation", known).map(SurveyOperation)
    }
}

/// The input side of `survey::Row`.
#[derive(serde::Deserialize)]
#[serde(rename = "Row", deny_unknown_fields)]
struct RowIn {
    operation: SurveyOperation,
    reads_before: u32,
    reads_after: u32,
    out_update_before: u32,
    out_update_after: u32,
    enqueues_before: u32,
    enqueues_after: u32,
}

impl<'de> Deserialize<'de> for survey::Row {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let r = RowIn::deserialize(d)?;
        Ok(survey::Row {
            operation: r.operation.0,
            reads_before: r.reads_before,
            reads_after: r.reads_after,
            out_update_before: r.out_update_before,
            out_update_after: r.out_update_after,
            enqueues_before: r.enqueues_before,
            enqueues_after: r.enqueues_after,
        })
    }
}
