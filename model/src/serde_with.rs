//! `#[serde(with)]` helpers that the model's declarations name: leaf code that knows no model
//! type, so that the declarations do not depend on the serde forms of whole values
//! ([`crate::json`] depends on them, never the reverse).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

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
    use lustre_dne_intent::serde_helpers::bytes::{HexBlob, HexStr};

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
