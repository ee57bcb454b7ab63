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
#[allow(clippy::large_enum_variant)]
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

/// Every vector's JSON, as `to_string_pretty` writes it: messages and xattr payloads.
fn all_json() -> Vec<(String, String)> {
    use lustre_dne_intent::xattr::*;
    let pretty = |v: serde_json::Result<String>| v.unwrap() + "\n";
    let mut out: Vec<_> = message_vectors()
        .into_iter()
        .map(|(name, bytes)| {
            (
                name,
                pretty(serde_json::to_string_pretty(&decode(&bytes).0)),
            )
        })
        .collect();
    for e in std::fs::read_dir(testdata()).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_str().unwrap().to_owned();
        if !(name.starts_with("xattr_") && p.extension().is_some_and(|e| e == "bin")) {
            continue;
        }
        let b = std::fs::read(&p).unwrap();
        let json = match name.split('_').nth(1).unwrap() {
            "acl" => serde_json::to_string_pretty(&AclView::parse(&b).unwrap().to_value()),
            "dmv" => serde_json::to_string_pretty(&DefaultLmvView::parse(&b).unwrap().to_value()),
            "lmv" => serde_json::to_string_pretty(&LmvView::parse(&b).unwrap().to_value()),
            "lov" => serde_json::to_string_pretty(&LovView::parse(&b).unwrap().to_value()),
            "pin" => serde_json::to_string_pretty(&PinView::parse(&b).unwrap().to_value()),
            other => panic!("unexpected xattr vector kind {other}"),
        };
        out.push((name, pretty(json)));
    }
    out.sort();
    out
}

#[test]
fn golden_json_snapshots_pin_the_schema() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let dir = testdata().join("json");
    let mut stale = Vec::new();
    for (name, json) in all_json() {
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
    }
    assert!(
        stale.is_empty(),
        "serialization changed for {stale:?} (UPDATE_GOLDEN=1 regenerates testdata/json)"
    );
}

#[test]
fn committed_message_snapshots_read_back_and_encode_to_their_vectors() {
    for (name, bytes) in message_vectors() {
        let text =
            std::fs::read_to_string(testdata().join("json").join(format!("{name}.json"))).unwrap();
        let back: Message = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (value, order) = decode(&bytes);
        assert_eq!(back, value, "{name}");
        assert_eq!(encode(&back, order), bytes, "{name}");
    }
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

use lustre_dne_intent::wire::*;
use serde_json::{Value, json};

fn request_value() -> (PrepareRequest, Value) {
    let bytes = std::fs::read(testdata().join("mkdir_request.bin")).unwrap();
    let req = RequestView::parse(&bytes).unwrap().to_value();
    let v = serde_json::to_value(req).unwrap();
    (req, v)
}

fn from_value<T: serde::de::DeserializeOwned>(v: &Value) -> Result<T, String> {
    let s = v.to_string();
    let mut de = serde_json::Deserializer::from_str(&s);
    serde_path_to_error::deserialize(&mut de).map_err(|e| e.to_string())
}

#[test]
fn u64_values_above_2_pow_53_are_strings_and_survive() {
    let (mut req, _) = request_value();
    req.ptlrpc.handle = LustreHandle(u64::MAX);
    req.ptlrpc.last_xid = (1 << 53) + 1;
    req.ptlrpc.transno = u64::MAX - 1;
    req.body.cap = 0x8000_0000_0000_0001;
    let v = serde_json::to_value(req).unwrap();
    assert_eq!(v["ptlrpc_body"]["pb_handle"], "0xffffffffffffffff");
    assert_eq!(v["ptlrpc_body"]["pb_last_xid"], "0x0020000000000001");
    assert_eq!(v["ptlrpc_body"]["pb_transno"], "18446744073709551614");
    assert_eq!(v["md_create_prepare_req"]["mcpr_cap"], "0x8000000000000001");
    // jq 1.6 turns big numbers into doubles; a string is untouched by it.
    let back: PrepareRequest = from_value(&v).unwrap();
    assert_eq!(back, req);
}

#[test]
fn u64_input_is_lenient_hex_decimal_or_number() {
    let (req, mut v) = request_value();
    for (input, want) in [
        (json!("0x10"), 16u64),
        (json!("0X10"), 16),
        (json!("16"), 16),
        (json!(16), 16),
        (json!(" 0x10 "), 16),
    ] {
        v["ptlrpc_body"]["pb_last_xid"] = input.clone();
        v["ptlrpc_body"]["pb_transno"] = input.clone();
        let r: PrepareRequest = from_value(&v).unwrap_or_else(|e| panic!("{input}: {e}"));
        assert_eq!(
            (r.ptlrpc.last_xid, r.ptlrpc.transno),
            (want, want),
            "{input}"
        );
    }
    for bad in [
        json!(-1),
        json!("0x"),
        json!("1e3"),
        json!("0x1ffffffffffffffff"),
        json!(1.5),
    ] {
        v["ptlrpc_body"]["pb_transno"] = bad.clone();
        let e = from_value::<PrepareRequest>(&v).unwrap_err();
        assert!(e.starts_with("ptlrpc_body.pb_transno: "), "{bad}: {e}");
    }
    // Output stays strict whatever the input was.
    let _ = req;
}

#[test]
fn unknown_fields_are_refused_with_their_json_path() {
    let (_, mut v) = request_value();
    v["ldlm_request"]["lock_desc"]["l_extra"] = json!(1);
    let e = from_value::<PrepareRequest>(&v).unwrap_err();
    assert!(
        e.starts_with("ldlm_request.lock_desc.l_extra: unknown field `l_extra`"),
        "{e}"
    );

    let (_, mut v) = request_value();
    v["ldlm_request"]["lock_desc"]["l_req_mode"] = json!("LCK_BOGUS");
    let e = from_value::<PrepareRequest>(&v).unwrap_err();
    assert!(e.starts_with("ldlm_request.lock_desc.l_req_mode: "), "{e}");
    assert!(e.contains("LockMode: unknown name"), "{e}");

    let (_, mut v) = request_value();
    v["ldlm_request"]["lock_handle"][1] = json!("0xzz");
    let e = from_value::<PrepareRequest>(&v).unwrap_err();
    assert!(e.starts_with("ldlm_request.lock_handle[1]: "), "{e}");

    let (_, mut v) = request_value();
    v["md_create_prepare_req"]["mcpr_flags"]["colour"] = json!("red");
    let e = from_value::<PrepareRequest>(&v).unwrap_err();
    assert!(e.contains("unknown field `colour`"), "{e}");
    assert!(e.starts_with("md_create_prepare_req.mcpr_flags"), "{e}");

    let (_, mut v) = request_value();
    v.as_object_mut().unwrap().remove("groups");
    let e = from_value::<PrepareRequest>(&v).unwrap_err();
    assert!(e.contains("missing field `groups`"), "{e}");
}

#[test]
fn flag_sets_show_bits_names_and_unknown_and_read_every_form() {
    let f = McprFlags(0x83 | 0x1_0000);
    let v = serde_json::to_value(f).unwrap();
    let names: Vec<&str> = McprFlags::NAMED.iter().map(|(n, _)| *n).collect();
    assert_eq!(v["bits"], "0x00010083");
    assert_eq!(v["names"], json!([names[0], names[1]]));
    assert_eq!(v["unknown"], "0x00010080");
    assert_eq!(serde_json::from_value::<McprFlags>(v.clone()).unwrap(), f);
    // Without an unknown bit there is no "unknown" key.
    let v0 = serde_json::to_value(McprFlags(0x1)).unwrap();
    assert_eq!(v0, json!({"bits": "0x00000001", "names": [names[0]]}));
    // 64-bit sets use 16 digits.
    assert_eq!(
        serde_json::to_value(InodeBits::UPDATE).unwrap()["bits"],
        "0x0000000000000002"
    );

    // Input: bits alone, the text grammar, a number.
    for input in [
        json!({"bits": "0x10083"}),
        json!({"bits": 65667}),
        json!(format!("{}|{}|0x10080", names[0], names[1])),
        json!(65667),
        json!({"names": [names[0], names[1]], "bits": "0x00010083", "unknown": "0x10080"}),
    ] {
        assert_eq!(
            serde_json::from_value::<McprFlags>(input.clone()).unwrap(),
            f,
            "{input}"
        );
    }
    // Names that disagree with bits, a wrong "unknown", too wide, an unknown name, no bits.
    for bad in [
        json!({"bits": "0x1", "names": []}),
        json!({"bits": "0x1", "names": [names[1]]}),
        json!({"bits": "0x1", "names": [names[0], names[0]]}),
        json!({"bits": "0x81", "unknown": "0x1"}),
        json!({"bits": "0x100000000"}),
        json!(4294967296u64),
        json!({"names": [names[0]]}),
        json!("NOPE"),
        json!({"bits": "0x1", "names": ["NOPE"]}),
    ] {
        assert!(
            serde_json::from_value::<McprFlags>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn open_enumerations_show_value_and_name_and_read_every_form() {
    assert_eq!(
        serde_json::to_value(LockMode::PW).unwrap(),
        json!({"value": "0x00000002", "name": "LCK_PW"})
    );
    assert_eq!(
        serde_json::to_value(LockMode(3)).unwrap(),
        json!({"value": "0x00000003"})
    );
    for input in [
        json!("LCK_PW"),
        json!(2),
        json!("0x2"),
        json!({"value": "0x2", "name": "LCK_PW"}),
    ] {
        assert_eq!(
            serde_json::from_value::<LockMode>(input.clone()).unwrap(),
            LockMode::PW
        );
    }
    assert_eq!(
        serde_json::from_value::<LockMode>(json!({"value": 3})).unwrap(),
        LockMode(3)
    );
    assert!(serde_json::from_value::<LockMode>(json!({"value": 2, "name": "LCK_EX"})).is_err());
    assert!(serde_json::from_value::<LockMode>(json!({"value": 3, "name": "LCK_EX"})).is_err());
    assert!(serde_json::from_value::<AclTagProbe>(json!({"t": 65536})).is_err());
}

#[derive(serde::Deserialize)]
#[allow(dead_code)]
struct AclTagProbe {
    t: lustre_dne_intent::xattr::AclTag,
}

#[test]
fn names_and_groups_keep_their_invariants() {
    let (_, mut v) = request_value();
    for bad in [
        json!("a/b"),
        json!(""),
        json!(".."),
        json!("x".repeat(256)),
        json!({"hex": "6100"}),
    ] {
        v["name"] = bad.clone();
        let e = from_value::<PrepareRequest>(&v).unwrap_err();
        assert!(e.starts_with("name: "), "{bad}: {e}");
    }
    // A name that is not UTF-8 goes as hex and comes back.
    let (mut req, _) = request_value();
    req.name = Some(EntryName::new(b"caf\xe9").unwrap());
    let v = serde_json::to_value(req).unwrap();
    assert_eq!(v["name"], json!({"hex": "636166e9"}));
    assert_eq!(from_value::<PrepareRequest>(&v).unwrap(), req);
    // Object mode: no name.
    req.name = None;
    let v = serde_json::to_value(req).unwrap();
    assert_eq!(v["name"], Value::Null);
    assert_eq!(from_value::<PrepareRequest>(&v).unwrap(), req);

    let (_, mut v) = request_value();
    v["groups"] = json!((0..129).collect::<Vec<u32>>());
    assert!(
        from_value::<PrepareRequest>(&v)
            .unwrap_err()
            .starts_with("groups: ")
    );
    v["groups"] = json!((0..128).collect::<Vec<u32>>());
    assert_eq!(
        from_value::<PrepareRequest>(&v)
            .unwrap()
            .groups
            .as_slice()
            .len(),
        128
    );
    v["ldlm_request"]["lock_handle"] = json!(["0x1"]);
    assert!(
        from_value::<PrepareRequest>(&v)
            .unwrap_err()
            .starts_with("ldlm_request.lock_handle")
    );
}

#[test]
fn jobids_are_text_or_hex_and_v2_bodies_have_none() {
    let (mut req, _) = request_value();
    let mut j = [0u8; 32];
    j[..3].copy_from_slice(b"\x01\x02\x03");
    req.ptlrpc.jobid = Some(j);
    let v = serde_json::to_value(req).unwrap();
    assert_eq!(
        v["ptlrpc_body"]["pb_jobid"]["hex"].as_str().unwrap().len(),
        64
    );
    assert_eq!(from_value::<PrepareRequest>(&v).unwrap(), req);
    req.ptlrpc.jobid = None;
    let v = serde_json::to_value(req).unwrap();
    assert_eq!(v["ptlrpc_body"]["pb_jobid"], Value::Null);
    assert_eq!(from_value::<PrepareRequest>(&v).unwrap(), req);
}

#[test]
fn closed_enumerations_and_results_are_strings_and_tagged_objects() {
    assert_eq!(serde_json::to_value(Endian::Big).unwrap(), "be");
    assert_eq!(serde_json::to_value(Operation::Rename).unwrap(), "rename");
    assert_eq!(
        serde_json::to_value(MliBuf::DefLmv).unwrap(),
        "MLI_BUF_DEF_LMV"
    );
    assert_eq!(
        serde_json::from_value::<MliBuf>(json!("MLI_BUF_LOV")).unwrap(),
        MliBuf::Lov
    );
    assert!(serde_json::from_value::<Endian>(json!("little")).is_err());
    let r: PrepResult<u32> = PrepResult::Unknown(UnknownReason::Truncated { size: 9 });
    let v = serde_json::to_value(r).unwrap();
    assert_eq!(v, json!({"unknown": {"truncated": {"size": 9}}}));
    assert_eq!(serde_json::from_value::<PrepResult<u32>>(v).unwrap(), r);
    assert_eq!(
        serde_json::to_value(PrepResult::<u32>::Absent).unwrap(),
        "absent"
    );
    assert_eq!(
        serde_json::to_value(PrepResult::<u32>::Unknown(UnknownReason::EmptyResult)).unwrap(),
        json!({"unknown": "empty_result"})
    );
}

#[test]
fn reply_results_are_keyed_by_mli_buf_name() {
    let bytes = std::fs::read(testdata().join("mkdir_reply_complete.bin")).unwrap();
    let rep = ReplyView::parse(&bytes).unwrap().to_value();
    let mut v = serde_json::to_value(&rep).unwrap();
    let results = v["outcome"]["results"].as_object().unwrap();
    let keys: Vec<&String> = results.keys().collect();
    assert_eq!(keys.len(), 6);
    assert_eq!(
        results["MLI_BUF_PIN"],
        "5b68736d3a20332c706f6f6c3a20666173745d"
    );
    v["outcome"]["results"]["MLI_BUF_PIN"] = json!("5b");
    let back: PrepareReply = from_value(&v).unwrap();
    assert_eq!(
        &back.outcome.unwrap().results[MliBuf::Pin.index()][..],
        b"["
    );
    v["outcome"]["results"]["MLI_BUF_PIN"] = json!("5");
    assert!(
        from_value::<PrepareReply>(&v)
            .unwrap_err()
            .starts_with("outcome.results.MLI_BUF_PIN")
    );
    v["outcome"]["results"]["MLI_BUF_NOPE"] = json!("");
    assert!(from_value::<PrepareReply>(&v).is_err());
    // The empty result.
    let bytes = std::fs::read(testdata().join("mkdir_reply_empty.bin")).unwrap();
    let rep = ReplyView::parse(&bytes).unwrap().to_value();
    assert_eq!(serde_json::to_value(&rep).unwrap()["outcome"], Value::Null);
}

/// `jq .` between serialize and deserialize changes nothing, for every message vector (jq 1.6
/// turns numbers above 2^53 into doubles; the schema writes none). Needs jq (see `require`).
#[test]
fn every_message_vector_survives_jq() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if !crate::require::tool("jq", "jq") {
        return;
    }
    let jq = |input: &str| -> String {
        let mut child = Command::new("jq")
            .arg(".")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("jq runs");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let probe = jq("18446744073709551615");
    // The hazard is real: jq does round a plain number this large.
    assert_ne!(probe.trim(), "18446744073709551615");
    for (name, bytes) in message_vectors() {
        let (value, order) = decode(&bytes);
        let through = jq(&serde_json::to_string(&value).unwrap());
        let back: Message =
            serde_json::from_str(&through).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            encode(&back, order),
            bytes,
            "{name}: bytes changed through jq"
        );
    }
}
