//! A small JSON toolkit for the payload and model commands that still build their JSON by hand
//! (`xattr_json.rs`, `model_cmds.rs`): an ordered output tree and a reader that tracks paths.
//! Messages use the library's serde form instead (`lustre_dne_intent::json`).

use crate::input::{decode_hex, to_hex};
use lustre_dne_intent::wire::LuFid;
use serde_json::{Map, Value};

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
    /// An array.
    A(Vec<J>),
    /// An object, keys in order.
    O(Vec<(&'static str, J)>),
    /// A value built by serde (the library's serialization), written as it is.
    V(Value),
}

impl J {
    fn is_scalar(&self) -> bool {
        !matches!(
            self,
            J::A(_) | J::O(_) | J::V(Value::Array(_) | Value::Object(_))
        )
    }

    /// Pretty-printed JSON: two-space indent, arrays of scalars on one line.
    pub fn to_pretty(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s
    }

    /// Compact JSON on one line (no newline): `{"a": 1, "b": [2, 3]}`.
    pub fn to_compact(&self) -> String {
        let mut s = String::new();
        self.write_compact(&mut s);
        s
    }

    fn write_compact(&self, s: &mut String) {
        match self {
            J::A(items) => {
                s.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    item.write_compact(s);
                }
                s.push(']');
            }
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
            scalar => scalar.write(s, 0),
        }
    }

    fn write(&self, s: &mut String, indent: usize) {
        match self {
            J::Null => s.push_str("null"),
            J::U(v) => s.push_str(&v.to_string()),
            J::I(v) => s.push_str(&v.to_string()),
            J::S(v) => s.push_str(&Value::from(v.as_str()).to_string()),
            J::V(v) => s.push_str(&v.to_string()),
            J::A(items) if items.iter().all(J::is_scalar) => {
                s.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    item.write(s, indent);
                }
                s.push(']');
            }
            J::A(items) => {
                s.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    push_indent(s, indent + 2);
                    item.write(s, indent + 2);
                    s.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                push_indent(s, indent);
                s.push(']');
            }
            J::O(fields) if fields.is_empty() => s.push_str("{}"),
            J::O(fields) => {
                s.push_str("{\n");
                for (i, (k, v)) in fields.iter().enumerate() {
                    push_indent(s, indent + 2);
                    s.push_str(&Value::from(*k).to_string());
                    s.push_str(": ");
                    v.write(s, indent + 2);
                    s.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                push_indent(s, indent);
                s.push('}');
            }
        }
    }
}

fn push_indent(s: &mut String, n: usize) {
    s.extend(std::iter::repeat_n(' ', n));
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

pub(crate) fn fid(f: LuFid) -> J {
    J::S(f.to_string())
}

pub(crate) fn hex_obj(bytes: &[u8]) -> J {
    J::O(vec![("hex", J::S(to_hex(bytes)))])
}

pub(crate) fn describe(v: &Value) -> String {
    let s = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "a boolean ".to_string() + &v.to_string(),
        Value::Number(_) => "the number ".to_string() + &v.to_string(),
        Value::String(_) => "the string ".to_string() + &v.to_string(),
        Value::Array(_) => return "an array".into(),
        Value::Object(_) => return "an object".into(),
    };
    if s.chars().count() > 60 {
        s.chars().take(57).chain("...".chars()).collect()
    } else {
        s
    }
}

/// An integer of type `T` (range-checked).
pub(crate) fn int<T: TryFrom<i128>>(path: &str, v: &Value) -> Result<T, String> {
    let n = match v {
        Value::Number(n) => n
            .as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from)),
        _ => None,
    };
    n.and_then(|n| T::try_from(n).ok()).ok_or_else(|| {
        format!(
            "{path}: expected an integer of type {}, got {}",
            std::any::type_name::<T>(),
            describe(v)
        )
    })
}

/// Bytes given as a string (its UTF-8) or as `{"hex": "..."}`.
pub(crate) fn bytes_of(path: &str, v: Value) -> Result<Vec<u8>, String> {
    match v {
        Value::String(s) => Ok(s.into_bytes()),
        Value::Object(map) => {
            let mut o = Obj {
                path: path.to_string(),
                map,
            };
            let hex = o.string("hex")?;
            o.finish(&[])?;
            decode_hex(hex.as_bytes()).map_err(|e| format!("{path}.hex: {e}"))
        }
        other => Err(format!(
            "{path}: expected a string or {{\"hex\": ...}}, got {}",
            describe(&other)
        )),
    }
}

/// A JSON object being read: keys are taken out as they are read, so that what is left at
/// the end is unknown.
pub(crate) struct Obj {
    path: String,
    map: Map<String, Value>,
}

impl Obj {
    pub(crate) fn new(path: &str, v: Value) -> Result<Self, String> {
        match v {
            Value::Object(map) => Ok(Obj {
                path: path.to_string(),
                map,
            }),
            other => Err(format!(
                "{}: expected an object, got {}",
                if path.is_empty() { "top level" } else { path },
                describe(&other)
            )),
        }
    }

    pub(crate) fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub(crate) fn take(&mut self, key: &str) -> Result<Value, String> {
        self.map
            .remove(key)
            .ok_or_else(|| format!("{}: missing", self.path_of(key)))
    }

    /// Takes `key` out when present.
    pub(crate) fn take_opt(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    pub(crate) fn int<T: TryFrom<i128>>(&mut self, key: &str) -> Result<T, String> {
        let v = self.take(key)?;
        int(&self.path_of(key), &v)
    }

    pub(crate) fn obj(&mut self, key: &str) -> Result<Obj, String> {
        let v = self.take(key)?;
        Obj::new(&self.path_of(key), v)
    }

    pub(crate) fn string(&mut self, key: &str) -> Result<String, String> {
        match self.take(key)? {
            Value::String(s) => Ok(s),
            other => Err(format!(
                "{}: expected a string, got {}",
                self.path_of(key),
                describe(&other)
            )),
        }
    }

    pub(crate) fn fid(&mut self, key: &str) -> Result<LuFid, String> {
        let s = self.string(key)?;
        s.parse()
            .map_err(|e| format!("{}: {e}, got {s:?}", self.path_of(key)))
    }

    /// Fails on a key that was not read and is not in `ignored`.
    pub(crate) fn finish(self, ignored: &[&str]) -> Result<(), String> {
        match self.map.keys().find(|k| !ignored.contains(&k.as_str())) {
            Some(k) => Err(format!("{}: unknown field", self.path_of(k))),
            None => Ok(()),
        }
    }
}
