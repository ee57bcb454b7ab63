//! The serde form of an xattr document (`XattrDoc`, what `dne-intent xattr --json` prints):
//! round trips over every payload in testdata, the LOV union named by context, the
//! informational fields checked against the raw words, and errors that name the JSON path.
#![cfg(feature = "serde")]

use lustre_dne_intent::xattr::{LayoutOf, XattrDoc, XattrPayload, xattr_kind};
use serde_json::{Value, json};
use std::path::Path;

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata")
            .join(rel),
    )
    .unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The attribute a payload file holds, from its name (`xattr_lov_…`, `real/lmv_…`, …).
fn xattr_of(file: &str) -> &'static str {
    let stem = file
        .rsplit('/')
        .next()
        .unwrap()
        .trim_start_matches("xattr_");
    match stem.split('_').next().unwrap() {
        "acl" => "system.posix_acl_access",
        "pin" => "trusted.pin",
        "lmv" => "trusted.lmv",
        "dmv" => "trusted.dmv",
        "lov" => "trusted.lov",
        other => panic!("{file}: unexpected payload kind {other}"),
    }
}

/// Every payload of testdata: the vectors, and the real and synthetic lfs cases.
fn every_payload() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut all = Vec::new();
    for (dir, top) in [("", true), ("real", false), ("synth", false)] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if !name.ends_with(".bin") || (top && !name.starts_with("xattr_")) {
                continue;
            }
            let rel = if dir.is_empty() {
                name
            } else {
                format!("{dir}/{name}")
            };
            all.push((rel, std::fs::read(&p).unwrap()));
        }
    }
    all.sort();
    all
}

fn from_str(s: &str) -> Result<XattrDoc, String> {
    let mut de = serde_json::Deserializer::from_str(s);
    serde_path_to_error::deserialize(&mut de).map_err(|e| e.to_string())
}

#[test]
fn every_payload_round_trips_and_keeps_its_names() {
    let all = every_payload();
    assert!(all.len() >= 50, "only {} payloads", all.len());
    for (name, bytes) in &all {
        let xattr = xattr_of(name);
        for of in [None, Some(LayoutOf::File), Some(LayoutOf::Dir)] {
            let doc = XattrDoc::decode(Some("f"), xattr, bytes, of).unwrap();
            let text = serde_json::to_string(&doc).unwrap();
            let back = from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}\n{text}"));
            assert_eq!(back.payload.to_bytes().unwrap(), &bytes[..], "{name}");
            // Read back, it serializes the same: the union keeps the name it was given.
            assert_eq!(serde_json::to_string(&back).unwrap(), text, "{name}");
        }
    }
}

#[test]
fn an_unknown_kind_is_opaque_and_kind_must_match_the_name() {
    assert_eq!(xattr_kind("user.note"), None);
    let doc = XattrDoc::decode(None, "user.note", b"hi", None).unwrap();
    assert_eq!(
        doc.payload,
        XattrPayload::Opaque(bytes::Bytes::from_static(b"hi"))
    );
    let j = serde_json::to_value(&doc).unwrap();
    assert_eq!(
        j,
        json!({"xattr": "user.note", "kind": "opaque", "payload": "6869"})
    );
    let e = from_str(r#"{"xattr": "trusted.lov", "kind": "opaque", "payload": ""}"#).unwrap_err();
    assert!(e.contains("holds a lov payload"), "{e}");
    let e = from_str(r#"{"kind": "pin", "xattr": "user.x", "payload": ""}"#).unwrap_err();
    assert!(e.contains("holds an opaque payload"), "{e}");
    let e = from_str(r#"{"xattr": "trusted.pin", "payload": "", "kind": "pin"}"#).unwrap_err();
    assert!(e.contains("give `kind` first"), "{e}");
    let e = from_str(r#"{"xattr": "trusted.pin", "kind": "pin"}"#).unwrap_err();
    assert!(e.contains("missing field `payload`"), "{e}");
}

fn lov_doc(rel: &str, of: Option<LayoutOf>) -> Value {
    serde_json::to_value(XattrDoc::decode(None, "trusted.lov", &read(rel), of).unwrap()).unwrap()
}

#[test]
fn the_union_at_offset_30_follows_the_context() {
    // lov_v1_2_9_ost0: a file's layout with one object; its union holds 0.
    let file = lov_doc("real/lov_v1_2_9_ost0.bin", None);
    let m = &file["payload"]["lov_user_md"];
    assert_eq!(m["lmm_layout_gen"], 0);
    assert!(m.get("lmm_stripe_offset").is_none());
    let dir = lov_doc("real/lov_v1_2_9_ost0.bin", Some(LayoutOf::Dir));
    let m = &dir["payload"]["lov_user_md"];
    assert_eq!(m["lmm_stripe_offset"], 0);
    assert!(m.get("lmm_layout_gen").is_none());
    // Both names, or neither: refused, at the layout's path.
    let mut both = file.clone();
    both["payload"]["lov_user_md"]["lmm_stripe_offset"] = 0.into();
    let e = from_str(&both.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_user_md: `lmm_stripe_offset` and `lmm_layout_gen`"),
        "{e}"
    );
    let mut neither = file;
    neither["payload"]["lov_user_md"]
        .as_object_mut()
        .unwrap()
        .remove("lmm_layout_gen");
    let e = from_str(&neither.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_user_md: missing field `lmm_stripe_offset`"),
        "{e}"
    );
}

fn obj(v: &mut Value) -> &mut Value {
    &mut v["payload"]["lov_user_md"]["lmm_objects"][0]
}

#[test]
fn shown_fields_are_checked_and_unknown_fields_refused_with_their_path() {
    let good = lov_doc("real/lov_v1_2_10_fidseq_ost0.bin", None);
    let mut bad = good.clone();
    obj(&mut bad)["ostid"]["id"] = "0x4".into();
    let e = from_str(&bad.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_user_md.lmm_objects[0]: `ostid` {form: fid, seq: 0x280000400, id: 0x4} disagrees"),
        "{e}"
    );
    let mut bad = good.clone();
    obj(&mut bad)["fid"] = Value::Null;
    let e = from_str(&bad.to_string()).unwrap_err();
    assert!(e.contains("which give [0x280000400:0x3:0x0]"), "{e}");
    let mut bad = good.clone();
    obj(&mut bad)["ostid"]["colour"] = "red".into();
    let e = from_str(&bad.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_user_md.lmm_objects[0].ostid.colour: unknown field"),
        "{e}"
    );
    let mut bad = good.clone();
    obj(&mut bad)["colour"] = "red".into();
    let e = from_str(&bad.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_user_md.lmm_objects[0].colour: unknown field"),
        "{e}"
    );
    // Left out, they are not needed.
    let mut plain = good;
    let o = obj(&mut plain).as_object_mut().unwrap();
    o.remove("ostid");
    o.remove("fid");
    let doc = from_str(&plain.to_string()).unwrap();
    assert_eq!(
        doc.payload.to_bytes().unwrap(),
        &read("real/lov_v1_2_10_fidseq_ost0.bin")[..]
    );
    // The LMV form of a header-only master.
    let lmv = XattrDoc::decode(
        None,
        "trusted.lmv",
        &read("real/lmv_master_2_10_mdt1.bin"),
        None,
    );
    let mut j = serde_json::to_value(lmv.unwrap()).unwrap();
    assert_eq!(j["payload"]["lmv_mds_md_v1"]["form"], "header_only");
    j["payload"]["lmv_mds_md_v1"]["form"] = "with_fids".into();
    let e = from_str(&j.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lmv_mds_md_v1: `form` \"with_fids\" disagrees"),
        "{e}"
    );
    j["payload"]["lmv_mds_md_v1"]["form"] = "sideways".into();
    let e = from_str(&j.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lmv_mds_md_v1.form: unknown variant"),
        "{e}"
    );
}

#[test]
fn a_64_bit_object_id_is_a_hex_string() {
    // 2^53 + 1 as a JSON number would be rounded by most JSON tools.
    let mut b = read("xattr_lov_v1_objects.bin");
    b[32..40].copy_from_slice(&((1u64 << 53) + 1).to_le_bytes());
    let j = serde_json::to_value(XattrDoc::decode(None, "trusted.lov", &b, None).unwrap()).unwrap();
    let o = &j["payload"]["lov_user_md"]["lmm_objects"][0];
    assert_eq!(o["l_ost_oi"]["oi_id"], "0x0020000000000001");
    let back: XattrDoc = serde_json::from_value(j).unwrap();
    assert_eq!(back.payload.to_bytes().unwrap(), &b[..]);
}

/// A component's JSON is its entry's members and `layout`: where the blob lies is the
/// encoder's, so `lcme_offset` is refused like any unknown field, and a bad member is named
/// with its path.
#[test]
fn a_component_is_its_entry_and_its_layout() {
    let good = lov_doc("xattr_lov_comp3.bin", None);
    let entry = |v: &mut Value| v["payload"]["lov_comp_md_v1"]["lcm_entries"][1].clone();
    let mut v = good.clone();
    // (A `Value` sorts its keys; testdata/json/xattr_lov_comp3.json pins their order.)
    let keys: Vec<String> = entry(&mut v).as_object().unwrap().keys().cloned().collect();
    assert_eq!(
        keys,
        [
            "layout",
            "lcme_compr_bits",
            "lcme_compr_type",
            "lcme_cstripe_count",
            "lcme_dstripe_count",
            "lcme_extent_end",
            "lcme_extent_start",
            "lcme_flags",
            "lcme_id",
            "lcme_layout_gen",
            "lcme_time_and_id"
        ]
    );
    let mut bad = good.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][1]["lcme_offset"] = 176.into();
    let e = from_str(&bad.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_comp_md_v1.lcm_entries[1]") && e.contains("`lcme_offset`"),
        "{e}"
    );
    let mut bad = good.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][1]["lcme_extent_end"] = "x".into();
    let e = from_str(&bad.to_string()).unwrap_err();
    assert!(
        e.starts_with("payload.lov_comp_md_v1.lcm_entries[1].lcme_extent_end"),
        "{e}"
    );
    let doc = from_str(&good.to_string()).unwrap();
    assert_eq!(
        doc.payload.to_bytes().unwrap(),
        &read("xattr_lov_comp3.bin")[..]
    );
}
