//! The `#[serde(with)]` forms of two fields of the intent's values: the request's intent opcode
//! as `struct ldlm_intent`, and the reply's six result buffers keyed by `MLI_BUF` name. Beside
//! the values they serve, so that the intent layer names nothing above it.

use crate::intent::IntentOpc;
use crate::limits::MLI_BUF_MAX;
use crate::serde_helpers::bytes::{HexBlob, HexStr};
use core::fmt;
use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::ser::{Serialize, SerializeStruct, Serializer};

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

use crate::mli_buf::MLI_BUF_NAMES as RESULT_FIELDS;

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
