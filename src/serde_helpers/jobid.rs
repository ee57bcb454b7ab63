//! `#[serde(with)]` for `pb_jobid`: text (NUL padding dropped), `{"hex"}`, or `null` (v2 body).

use super::bytes::{de_padded, ser_padded};
use crate::limits::LUSTRE_JOBID_SIZE;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serializes a job id.
pub fn serialize<S: Serializer>(
    v: &Option<[u8; LUSTRE_JOBID_SIZE]>,
    s: S,
) -> Result<S::Ok, S::Error> {
    match v {
        Some(j) => s.serialize_some(&Padded(j)),
        None => s.serialize_none(),
    }
}
/// Deserializes a job id.
pub fn deserialize<'de, D: Deserializer<'de>>(
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
