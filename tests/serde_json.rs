//! The serde form (feature `serde`): round trips over every golden vector, golden JSON
//! snapshots that pin the schema, and the input rules (lenient numbers, strict fields, paths).
#![cfg(feature = "serde")]

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::*;
use std::path::{Path, PathBuf};

/// A message of this protocol, for the tests only: the library's own top-level type is added
/// elsewhere.
#[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
enum Message {
    Request(PrepareRequest),
    Reply(PrepareReply),
}

fn testdata() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata")
}

/// Every message vector: (name, bytes), requests and replies.
fn message_vectors() -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(testdata())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .filter(|p| {
            !p.file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("xattr_")
        })
        .map(|p| {
            let name = p.file_stem().unwrap().to_str().unwrap().to_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect();
    v.sort();
    assert!(v.len() >= 14, "message vectors missing: {}", v.len());
    v
}

fn decode(bytes: &[u8]) -> (Message, Endian) {
    if let Ok(r) = RequestView::parse(bytes) {
        (Message::Request(r.to_value()), r.order())
    } else {
        let r = ReplyView::parse(bytes).expect("a vector decodes as a request or a reply");
        (Message::Reply(r.to_value()), r.order())
    }
}

fn encode(m: &Message, order: Endian) -> Vec<u8> {
    match m {
        Message::Request(r) => r.to_bytes(order).unwrap().to_vec(),
        Message::Reply(r) => r.to_bytes(order).unwrap().to_vec(),
    }
}

#[test]
fn every_message_vector_round_trips_through_json() {
    for (name, bytes) in message_vectors() {
        let (value, order) = decode(&bytes);
        let json = serde_json::to_string_pretty(&value).unwrap();
        let back: Message = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, value, "{name}: value changed through JSON");
        assert_eq!(
            encode(&back, order),
            bytes,
            "{name}: bytes changed through JSON"
        );
    }
}

#[test]
fn golden_json_snapshots_pin_the_schema() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let dir = testdata().join("json");
    let mut stale = Vec::new();
    for (name, bytes) in message_vectors() {
        let (value, _) = decode(&bytes);
        let json = serde_json::to_string_pretty(&value).unwrap() + "\n";
        let path = dir.join(format!("{name}.json"));
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &json).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{} missing: run with UPDATE_GOLDEN=1", path.display()));
        if want != json {
            stale.push(name);
        }
        // The committed file reads back as the vector's value.
        let back: Message = serde_json::from_str(&want).unwrap();
        assert_eq!(back, value);
    }
    assert!(
        stale.is_empty(),
        "serialization changed for {stale:?} (UPDATE_GOLDEN=1 regenerates testdata/json)"
    );
}

fn xattr_round_trip<T>(name: &str, bytes: &[u8], value: T)
where
    T: serde::Serialize
        + serde::de::DeserializeOwned
        + PartialEq
        + std::fmt::Debug
        + lustre_dne_intent::xattr::XattrEncode,
{
    let json = serde_json::to_string_pretty(&value).unwrap();
    let back: T = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}\n{json}"));
    assert_eq!(back, value, "{name}: value changed through JSON");
    assert_eq!(
        back.to_bytes().unwrap(),
        bytes,
        "{name}: bytes changed through JSON"
    );
}

#[test]
fn every_xattr_vector_round_trips_through_json() {
    use lustre_dne_intent::xattr::*;
    let mut seen = 0;
    for e in std::fs::read_dir(testdata()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_str().unwrap().to_owned();
        if !(name.starts_with("xattr_") && name.ends_with(".bin")) {
            continue;
        }
        let b = std::fs::read(&p).unwrap();
        match name.split('_').nth(1).unwrap() {
            "acl" => xattr_round_trip(&name, &b, AclView::parse(&b).unwrap().to_value()),
            "dmv" => xattr_round_trip(&name, &b, DefaultLmvView::parse(&b).unwrap().to_value()),
            "lmv" => xattr_round_trip(&name, &b, LmvView::parse(&b).unwrap().to_value()),
            "lov" => xattr_round_trip(&name, &b, LovView::parse(&b).unwrap().to_value()),
            "pin" => xattr_round_trip(&name, &b, PinView::parse(&b).unwrap().to_value()),
            other => panic!("unexpected xattr vector kind {other}"),
        }
        seen += 1;
    }
    assert!(seen >= 20, "xattr vectors missing: {seen}");
}
