//! A small ordered JSON tree for `pcap --json`, whose event lines are the tool's own (no
//! library type): keys stay in the order they were built. Messages inside it, xattr payloads
//! and the model use the library's serde forms (`lustre_dne_intent::json`).

use serde_json::Value;

/// A JSON value whose objects keep their keys in the order they were built (the schema order).
#[derive(Debug, Clone)]
pub enum J {
    /// `null`.
    Null,
    /// An unsigned number.
    U(u64),
    /// A signed number.
    I(i64),
    /// A string.
    S(String),
    /// An object, keys in order.
    O(Vec<(&'static str, J)>),
    /// A value built by serde (the library's serialization), written as it is.
    V(Value),
}

impl J {
    /// Compact JSON on one line (no newline): `{"a": 1, "b": "c"}`.
    pub fn to_compact(&self) -> String {
        let mut s = String::new();
        self.write_compact(&mut s);
        s
    }

    fn write_compact(&self, s: &mut String) {
        match self {
            J::Null => s.push_str("null"),
            J::U(v) => s.push_str(&v.to_string()),
            J::I(v) => s.push_str(&v.to_string()),
            J::S(v) => s.push_str(&Value::from(v.as_str()).to_string()),
            J::V(v) => s.push_str(&v.to_string()),
            J::O(fields) => {
                s.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&Value::from(*k).to_string());
                    s.push_str(": ");
                    v.write_compact(s);
                }
                s.push('}');
            }
        }
    }
}

pub(crate) fn u(v: impl Into<u64>) -> J {
    J::U(v.into())
}

pub(crate) fn us(v: usize) -> J {
    J::U(v as u64)
}

pub(crate) fn i(v: impl Into<i64>) -> J {
    J::I(v.into())
}
