//! `dne-intent xattr` (text and `--json`) over the xattr golden vectors and over getfattr-style
//! text, and `dne-intent encode` of the payload JSON.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let (code, out, err) = run_raw(args, stdin);
    (code, String::from_utf8_lossy(&out).into_owned(), err)
}

fn run_raw(args: &[&str], stdin: &[u8]) -> (i32, Vec<u8>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("the tool ends");
    (
        out.status.code().unwrap_or(-1),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

// An access ACL: user::rw-, user:1000:rw-, group::r--, group:100:r--, mask::rw-, other::r--.
const ACL: &[u8] = &[
    2, 0, 0, 0, 1, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, 2, 0, 6, 0, 0xe8, 3, 0, 0, 4, 0, 4, 0, 0xff,
    0xff, 0xff, 0xff, 8, 0, 4, 0, 100, 0, 0, 0, 0x10, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, 0x20, 0, 4,
    0, 0xff, 0xff, 0xff, 0xff,
];

#[test]
fn getfattr_text_prints_like_getfacl() {
    let input = format!(
        "# file: tmp/f1\nsystem.posix_acl_access=0x{}\ntrusted.pin=0x{}\n\n",
        hex(ACL),
        hex(b"[hsm: 3,pool: fast]")
    );
    let (code, out, err) = run(&["xattr"], input.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("# file: tmp/f1"), "{out}");
    assert!(
        out.contains("user::rw-\nuser:1000:rw-\ngroup::r--\ngroup:100:r--\nmask::rw-\nother::r--"),
        "{out}"
    );
    assert!(out.contains("trusted.pin:"), "{out}");
}

#[test]
fn lone_payloads_and_every_xattr_vector() {
    let (code, out, err) = run(&["xattr", "--name", "system.posix_acl_default"], ACL);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("default:user:1000:rw-"), "{out}");
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata");
    let mut seen = 0;
    for e in std::fs::read_dir(dir).expect("testdata") {
        let p = e.expect("entry").path();
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        if !(name.starts_with("xattr_") && name.ends_with(".bin")) {
            continue;
        }
        let bytes = std::fs::read(&p).expect("vector");
        let (code, out, err) = run(&["xattr"], &bytes);
        // Every vector decodes from its magic alone; a failure would be a one-line error.
        assert_eq!(code, 0, "{name}: {err}");
        if code == 0 {
            assert!(!out.trim().is_empty(), "{name}");
            seen += 1;
        }
    }
    assert!(seen >= 10, "decoded {seen} xattr vectors");
}

#[test]
fn malformed_payload_and_names_only() {
    let (code, _, err) = run(
        &["xattr", "--name", "system.posix_acl_access"],
        &[3, 0, 0, 0],
    );
    assert_eq!(code, 1);
    assert!(err.contains("system.posix_acl_access"), "{err}");
    let (code, out, err) = run(&["xattr"], b"# file: tmp/f1\nsystem.posix_acl_access\n");
    assert_eq!(code, 1);
    assert!(out.contains("name only"), "{out}");
    assert!(err.contains("getfattr -d"), "{err}");
}

// ---------------------------------------------------------------------------------------------
// --json and encode.

fn vector(name: &str) -> Vec<u8> {
    let p = format!("{}/../testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// `xattr --json` of a lone payload, parsed.
fn json_of(args: &[&str], stdin: &[u8]) -> serde_json::Value {
    let mut a = vec!["xattr", "--json"];
    a.extend_from_slice(args);
    let (code, out, err) = run(&a, stdin);
    assert_eq!(code, 0, "{err}");
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"))
}

/// `encode` of a JSON text: the payload bytes.
fn encode(json: &str) -> Vec<u8> {
    let (code, out, err) = run_raw(&["encode"], json.as_bytes());
    assert_eq!(code, 0, "{err}\n{json}");
    out
}

#[test]
fn json_acl() {
    let j = json_of(&["--name", "system.posix_acl_default"], ACL);
    assert_eq!(j["xattr"], "system.posix_acl_default");
    assert_eq!(j["kind"], "acl");
    assert_eq!(j["version"], 2);
    let u = u32::MAX;
    assert_eq!(
        j["entries"],
        serde_json::json!([
            {"tag": 1, "perm": 6, "id": u},
            {"tag": 2, "perm": 6, "id": 1000},
            {"tag": 4, "perm": 4, "id": u},
            {"tag": 8, "perm": 4, "id": 100},
            {"tag": 16, "perm": 6, "id": u},
            {"tag": 32, "perm": 4, "id": u},
        ])
    );
    assert_eq!(encode(&j.to_string()), ACL);
    // Without --name, the magic tells an ACL (named as an access ACL).
    assert_eq!(json_of(&[], ACL)["xattr"], "system.posix_acl_access");
}

#[test]
fn json_pin() {
    let pin = b"[hsm: 7,owner: alice,pool: ssd,hsm: x]";
    let j = json_of(&["--name", "trusted.pin"], pin);
    assert_eq!(j["kind"], "pin");
    assert_eq!(j["value"], hex(pin));
    assert_eq!(
        j["entries"],
        serde_json::json!([
            {"key": "hsm", "value": 7},
            {"key": "owner", "value": "alice"},
            {"key": "pool", "value": "ssd"},
        ])
    );
    assert_eq!(j["errors"].as_array().map(Vec::len), Some(1), "{j}");
    assert!(j["errors"][0]["offset"].is_u64(), "{j}");
    assert_eq!(encode(&j.to_string()), pin);
    // The pin is carried verbatim, even when it is not the documented form.
    let odd = b"[\x00\xff";
    let j = json_of(&["--name", "trusted.pin"], odd);
    assert_eq!(j["value"], "5b00ff");
    assert_eq!(encode(&j.to_string()), odd);
}

#[test]
fn json_lmv() {
    let bytes = vector("xattr_lmv_striped.bin");
    let j = json_of(&[], &bytes);
    assert_eq!(j["xattr"], "trusted.lmv");
    assert_eq!(j["kind"], "lmv");
    assert_eq!(j["magic"], 0x0CD2_0CD0);
    assert_eq!(j["stripe_count"], 4);
    assert_eq!(j["master_mdt_index"], 0);
    assert_eq!(j["hash_type"], 2);
    assert_eq!(j["layout_version"], 1);
    assert_eq!(j["pool_name"], "");
    assert_eq!(
        j["stripe_fids"],
        serde_json::json!([
            "[0x200000400:0x2:0x0]",
            "[0x240000400:0x2:0x0]",
            "[0x280000400:0x2:0x0]",
            "[0x2c0000400:0x2:0x0]"
        ])
    );
    for k in ["lmv_stripe_count", "padding2", "lmv_magic"] {
        assert!(j.get(k).is_none(), "{k} in {j}");
    }
    // A stripe object without its FID table, and the foreign form.
    let j = json_of(&[], &vector("xattr_lmv_stripe.bin"));
    assert_eq!(j["magic"], 0x0CD4_0CD0);
    assert_eq!(j["stripe_count"], 4);
    // On a stripe object lmv_master_mdt_index holds the stripe's index: named so.
    assert_eq!(j["stripe_index"], 2);
    assert!(j.get("master_mdt_index").is_none());
    assert_eq!(j["form"], "header_only");
    assert_eq!(j["stripe_fids"], serde_json::json!([]));
    let j = json_of(&[], &vector("xattr_lmv_foreign.bin"));
    assert_eq!(j["magic"], 0x0CD5_0CD0);
    assert_eq!(j["length"], 14);
    assert_eq!(j["type"], 0xda05);
    assert_eq!(j["flags"], 0);
    assert_eq!(j["value"], hex(b"/mnt/other/dir"));
}

#[test]
fn json_default_lmv() {
    let j = json_of(&[], &vector("xattr_dmv_inherit3.bin"));
    assert_eq!(j["xattr"], "trusted.dmv");
    assert_eq!(j["kind"], "dmv");
    assert_eq!(j["magic"], 0x0CD3_0CD0);
    assert_eq!(j["stripe_count"], 1);
    assert_eq!(j["stripe_offset"], 0xffff_ffffu32);
    assert_eq!(j["hash_type"], 2);
    assert_eq!(j["type"], 0);
    assert_eq!(j["max_inherit"], 3);
    assert_eq!(j["max_inherit_rr"], 0);
    assert_eq!(j["pool_name"], "");
    assert_eq!(j["objects"], serde_json::json!([]));
    let j = json_of(&[], &vector("xattr_dmv_end.bin"));
    assert_eq!(j["stripe_count"], -1);
    // SPECIFIC shares its magic with a stripe LMV: told apart without --name.
    let j = json_of(&[], &vector("xattr_dmv_specific.bin"));
    assert_eq!(j["xattr"], "trusted.dmv");
    assert_eq!(j["magic"], 0x0CD4_0CD0);
    assert_eq!(j["pool_name"], "fast");
    assert_eq!(j["objects"][0]["fid"], "[0x200000400:0x1:0x0]");
    assert_eq!(j["objects"][0]["mds"], 0);
    assert_eq!(j["objects"][1]["mds"], 3);
}

#[test]
fn json_composite_lov() {
    let bytes = vector("xattr_lov_comp3.bin");
    let j = json_of(&["--name", "trusted.lov"], &bytes);
    assert_eq!(j["xattr"], "trusted.lov");
    assert_eq!(j["kind"], "lov");
    assert_eq!(j["magic"], 0x0BD6_0BD0);
    assert_eq!(j["size"], 288);
    assert_eq!(j["layout_gen"], 0);
    assert_eq!(j["flags"], 0);
    assert_eq!(j["entry_count"], 3);
    assert_eq!(j["mirror_count"], 0);
    assert_eq!(j["ec_count"], 0);
    let e = &j["entries"];
    assert_eq!(e.as_array().map(Vec::len), Some(3), "{j}");
    assert_eq!(e[0]["id"], 1);
    assert_eq!(
        e[0]["extent"],
        serde_json::json!({"start": 0, "end": 1048576})
    );
    assert_eq!(e[0]["offset"], 176);
    assert_eq!(e[0]["size"], 32);
    assert_eq!(e[0]["compr_lvl"], 0);
    assert_eq!(e[0]["compr_chunk_log_bits"], 0);
    assert_eq!(e[0]["layout"]["magic"], 0x0BD1_0BD0);
    assert_eq!(e[0]["layout"]["stripe_count"], 1);
    assert_eq!(e[0]["layout"]["pool_name"], serde_json::Value::Null);
    assert_eq!(e[0]["layout"]["oi"], serde_json::json!({"id": 0, "seq": 0}));
    assert_eq!(e[1]["extent"]["start"], 1048576);
    assert_eq!(e[1]["layout"]["stripe_count"], 4);
    assert_eq!(e[2]["extent"]["end"], u64::MAX);
    assert_eq!(e[2]["layout"]["magic"], 0x0BD3_0BD0);
    assert_eq!(e[2]["layout"]["stripe_count"], 0xffff);
    assert_eq!(e[2]["layout"]["stripe_size"], 4194304);
    assert_eq!(e[2]["layout"]["pool_name"], "archive");
    assert_eq!(encode(&j.to_string()), bytes);
    // A plain V3 layout and a foreign one.
    let j = json_of(&[], &vector("xattr_lov_v3_pool.bin"));
    assert_eq!(j["pattern"], 1);
    assert_eq!(j["stripe_size"], 4194304);
    assert_eq!(j["stripe_count"], 2);
    assert_eq!(j["stripe_offset"], 1);
    assert_eq!(j["pool_name"], "flash");
    let j = json_of(&[], &vector("xattr_lov_foreign.bin"));
    assert_eq!(j["magic"], 0x0BD7_0BD0);
    assert_eq!(j["type"], 4);
    assert_eq!(j["flags"], 1);
    assert_eq!(j["value"], hex(b"bucket/obj-0001"));
}

#[test]
fn every_xattr_vector_round_trips_through_json() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata");
    let mut seen = Vec::new();
    let mut getfattr = String::from("# file: some/dir\n");
    for e in std::fs::read_dir(dir).expect("testdata") {
        let p = e.expect("entry").path();
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        if !(name.starts_with("xattr_") && name.ends_with(".bin")) {
            continue;
        }
        let bytes = std::fs::read(&p).expect("vector");
        let (code, json, err) = run(&["xattr", "--json"], &bytes);
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(encode(&json), bytes, "{name}: {json}");
        // Also as hex text, with --hex out of encode.
        let (code, hex_out, err) = run_raw(&["encode", "--hex"], json.as_bytes());
        assert_eq!(code, 0, "{name}: {err}");
        let digits: String = String::from_utf8_lossy(&hex_out)
            .split_whitespace()
            .collect();
        assert_eq!(digits, hex(&bytes), "{name}");
        let j: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        let xattr = j["xattr"].as_str().expect("xattr name").to_string();
        getfattr.push_str(&format!("{xattr}=0x{}\n", hex(&bytes)));
        seen.push((xattr, bytes));
    }
    assert!(
        seen.len() >= 20,
        "round-tripped {} xattr vectors",
        seen.len()
    );

    // getfattr input: one compact object a line, in input order, each with its file.
    getfattr.push_str("user.note=0x6869\n");
    let (code, out, err) = run(&["xattr", "--json"], getfattr.as_bytes());
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), seen.len() + 1, "{out}");
    for (line, (xattr, bytes)) in lines.iter().zip(&seen) {
        let j: serde_json::Value = serde_json::from_str(line).expect("one object a line");
        assert_eq!(j["file"], "some/dir");
        assert_eq!(j["xattr"], xattr.as_str());
        assert_eq!(encode(line), *bytes, "{line}");
    }
    let last: serde_json::Value = serde_json::from_str(lines[seen.len()]).expect("JSON");
    assert_eq!(last["kind"], "opaque");
    assert_eq!(last["value"], "6869");
    assert_eq!(encode(lines[seen.len()]), b"hi");
    // --name keeps one attribute.
    let (code, out, err) = run(
        &["xattr", "--json", "--name", "trusted.dmv"],
        getfattr.as_bytes(),
    );
    assert_eq!(code, 0, "{err}");
    assert!(!out.is_empty());
    for line in out.lines() {
        let j: serde_json::Value = serde_json::from_str(line).expect("JSON");
        assert_eq!(j["kind"], "dmv");
    }
}

#[test]
fn pool_names_that_are_not_text_survive() {
    // A V3 layout whose pool field holds bytes after the NUL: {"hex": the whole field}.
    let mut bytes = vector("xattr_lov_v3_pool.bin");
    bytes[47] = 0x7a;
    let j = json_of(&["--name", "trusted.lov"], &bytes);
    assert_eq!(
        j["pool_name"]["hex"],
        format!("{}{}7a", hex(b"flash"), "00".repeat(10))
    );
    assert_eq!(encode(&j.to_string()), bytes);
}

/// Runs `args` on `stdin`, expecting exit status 1 and a one-line message containing `want`.
fn fails(args: &[&str], stdin: &[u8], want: &str) {
    let (code, _, err) = run(args, stdin);
    assert_eq!(
        code,
        1,
        "{args:?} {}: {err}",
        String::from_utf8_lossy(stdin)
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.contains(want), "want {want:?} in {err}");
}

#[test]
fn bad_payload_json_is_refused_with_the_decoders_words() {
    let acl = |entries: &str| {
        format!(
            r#"{{"xattr": "system.posix_acl_access", "kind": "acl", "version": 2, "entries": [{entries}]}}"#
        )
    };
    let e = |t: u32, p: u32, id: u32| format!(r#"{{"tag": {t}, "perm": {p}, "id": {id}}}"#);
    let u = u32::MAX;
    // Valid: the minimal ACL.
    let ok = acl(&[e(1, 6, u), e(4, 4, u), e(32, 4, u)].join(","));
    assert_eq!(encode(&ok).len(), 28);
    // No GROUP_OBJ, duplicate named user, bad perm, unsupported version: the library's errors.
    fails(
        &["encode"],
        acl(&[e(1, 6, u), e(32, 4, u)].join(",")).as_bytes(),
        "value would not decode",
    );
    fails(
        &["encode"],
        acl(&[
            e(1, 6, u),
            e(2, 6, 5),
            e(2, 6, 5),
            e(4, 4, u),
            e(16, 6, u),
            e(32, 4, u),
        ]
        .join(","))
        .as_bytes(),
        "posix_acl",
    );
    fails(
        &["encode"],
        ok.replace("\"version\": 2", "\"version\": 3").as_bytes(),
        "unsupported",
    );
    // Kind and name disagree; unknown and missing fields; types and ranges.
    fails(
        &["encode"],
        ok.replace("\"kind\": \"acl\"", "\"kind\": \"lov\"")
            .as_bytes(),
        "xattr:",
    );
    fails(
        &["encode"],
        ok.replace("\"version\": 2", "\"version\": 2, \"extra\": 1")
            .as_bytes(),
        "extra: unknown field",
    );
    fails(
        &["encode"],
        ok.replace("\"version\": 2, ", "").as_bytes(),
        "version: missing",
    );
    fails(
        &["encode"],
        ok.replace("\"perm\": 6", "\"perm\": 70000").as_bytes(),
        "entries[0].perm",
    );
    fails(
        &["encode"],
        br#"{"kind": "lmv", "magic": 1}"#,
        "stripe_count: missing",
    );
    fails(
        &["encode"],
        br#"{"kind": "pin", "value": "zz"}"#,
        "value: hex text",
    );
    fails(&["encode"], br#"{"kind": "nope"}"#, "kind:");
    fails(
        &["encode"],
        br#"{"xattr": 7, "kind": "pin", "value": ""}"#,
        "xattr:",
    );
    fails(&["encode"], b"[1, 2]", "top level");
    fails(&["encode"], b"{\"kind\": \"acl\"", "bad JSON");

    // Each vector's JSON, broken one field at a time.
    let lmv: serde_json::Value = json_of(&[], &vector("xattr_lmv_striped.bin"));
    let mut bad = lmv.clone();
    bad["stripe_count"] = 5.into();
    fails(&["encode"], bad.to_string().as_bytes(), "lmv_mds_md_v1");
    let mut bad = lmv.clone();
    bad["magic"] = 0xd00c_d20cu32.into();
    fails(&["encode"], bad.to_string().as_bytes(), "magic");
    let mut bad = lmv.clone();
    bad["pool_name"] = "a-pool-name-too-long".into();
    fails(&["encode"], bad.to_string().as_bytes(), "pool_name");
    let mut bad = lmv;
    bad["stripe_fids"][1] = "[0x1:0x2]".into();
    fails(&["encode"], bad.to_string().as_bytes(), "stripe_fids[1]");
    let dmv = json_of(&[], &vector("xattr_dmv_inherit3.bin"));
    let mut bad = dmv.clone();
    bad["stripe_count"] = (-6).into();
    fails(&["encode"], bad.to_string().as_bytes(), "lum_stripe_count");
    let mut bad = dmv;
    bad["max_inherit"] = 256.into();
    fails(&["encode"], bad.to_string().as_bytes(), "max_inherit");
    let lov = json_of(&[], &vector("xattr_lov_comp3.bin"));
    let mut bad = lov.clone();
    bad["entries"] = serde_json::json!([]);
    fails(&["encode"], bad.to_string().as_bytes(), "lov_comp_md_v1");
    let mut bad = lov.clone();
    bad["entries"][1]["layout"]["magic"] = 0x0BD6_0BD0.into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "value would not decode",
    );
    let mut bad = lov.clone();
    bad["entries"][0]["compr_lvl"] = 16.into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "entries[0].compr_lvl",
    );
    let mut bad = lov.clone();
    bad["entries"][0]["layout"]["pool_name"] = "p".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "entries[0].layout.pool_name",
    );
    let mut bad = lov.clone();
    bad["entries"][2]["layout"]["pool_name"] = serde_json::Value::Null;
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "entries[2].layout.pool_name",
    );
    let mut bad = lov;
    bad["entries"][2]["layout"]["stripe_count"] = 2001.into();
    fails(&["encode"], bad.to_string().as_bytes(), "lmm_stripe_count");
    let big = format!(r#"{{"kind": "pin", "value": "{}"}}"#, "20".repeat(65537));
    fails(&["encode"], big.as_bytes(), "value would not decode");

    // xattr --json on bad input: one line, exit 1.
    fails(
        &["xattr", "--json", "--name", "trusted.lov"],
        &[1, 2, 3, 4, 5],
        "trusted.lov",
    );
    fails(
        &["xattr", "--json"],
        b"# file: f\ntrusted.lmv=0x00\n",
        "trusted.lmv",
    );
    fails(
        &["xattr", "--json"],
        b"# file: f\ntrusted.pin=\"[hsm: 1]\"\n",
        "not hex",
    );
}
