//! The vector set as JSON in Wycheproof's shape (docs/conformance.md §1.1).

use serde_json::{Map, Value, json};

use super::vectors::FLAG_NOTES;
use super::{Case, Kind, to_hex};

/// The `schema` of the vector file.
pub const SCHEMA: &str = "dne_intent_vectors_v1";
/// The file name of the vector set.
pub const FILE_NAME: &str = "dne_intent_vectors.json";

fn test_json(c: &Case) -> Value {
    let mut t = Map::new();
    t.insert("tcId".into(), json!(c.id));
    t.insert("comment".into(), json!(c.comment));
    t.insert("flags".into(), json!(c.flags));
    t.insert("hex".into(), json!(to_hex(&c.bytes)));
    t.insert("result".into(), json!(c.expect.name()));
    if let Some(r) = c.expect.rule() {
        t.insert("rule".into(), json!(r.as_str()));
        let rules: Vec<&str> = c.rules.iter().map(|r| r.as_str()).collect();
        t.insert("rules".into(), json!(rules));
    }
    if let Some(r) = &c.request {
        t.insert("request_hex".into(), json!(to_hex(r)));
    }
    if let Some(k) = &c.canonical {
        t.insert("canonical_hex".into(), json!(to_hex(k)));
    }
    Value::Object(t)
}

/// The JSON document for `cases` (in group order, as [`vectors()`](super::vectors()) returns them).
pub fn vectors_json(seed: u64, cases: &[Case]) -> Value {
    let mut groups: Vec<(Kind, Vec<Value>)> = Vec::new();
    for c in cases {
        match groups.last_mut() {
            Some((k, tests)) if *k == c.kind => tests.push(test_json(c)),
            _ => groups.push((c.kind, vec![test_json(c)])),
        }
    }
    let used: std::collections::BTreeSet<&str> =
        cases.iter().flat_map(|c| c.flags.iter().copied()).collect();
    let notes: Map<String, Value> = FLAG_NOTES
        .iter()
        .filter(|(f, _)| used.contains(f))
        .map(|(f, n)| ((*f).to_owned(), json!(n)))
        .collect();
    let groups: Vec<Value> = groups
        .into_iter()
        .map(|(k, tests)| {
            let mut g = Map::new();
            g.insert("kind".into(), json!(k.name()));
            if let Some(n) = k.xattr_name() {
                g.insert("xattr_name".into(), json!(n));
            }
            g.insert("tests".into(), Value::Array(tests));
            Value::Object(g)
        })
        .collect();
    json!({
        "schema": SCHEMA,
        "generatorVersion": env!("CARGO_PKG_VERSION"),
        "seed": seed,
        "numberOfTests": cases.len(),
        "header": [
            "Conformance vectors for the Lustre DNE prepare intent (docs/spec/WIRE.md).",
            "Format and verdicts: docs/conformance.md. Rules are named by their WIRE.md IDs.",
            "A reply is judged with its request (request_hex) known."
        ],
        "notes": notes,
        "testGroups": groups,
    })
}

/// The vector file's text: pretty JSON with a final newline.
pub fn vectors_text(seed: u64, cases: &[Case]) -> String {
    let mut s = serde_json::to_string_pretty(&vectors_json(seed, cases)).unwrap_or_default();
    s.push('\n');
    s
}
