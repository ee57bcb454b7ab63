//! Hand-written serde forms of whole model values: faults by the tool's names and the static
//! names of the trace and survey. The helpers that declarations name (`Object::entries`, lock
//! and reply results) live beside their types and in [`crate::serde_with`], so that this module
//! depends on the model and not the reverse.

use crate::operation::CacheEvent;
use crate::store::Attrs;
use crate::{Fault, Item, survey};
use core::fmt;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::wire::LuFid;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, Serializer};

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
        value: Option<Bytes>,
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
