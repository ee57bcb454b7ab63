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
    // Each attribute ends in a blank line, the pin (one line of text) as the ACL.
    assert!(
        out.ends_with("other::r--\n\ntrusted.pin:\n[hsm: 3,pool: fast]\n\n"),
        "{out:?}"
    );
}

#[test]
fn every_rendering_ends_in_a_newline() {
    let (code, out, err) = run(&["xattr", "--name", "trusted.pin"], b"[hsm: 3,pool: fast]");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[hsm: 3,pool: fast]\n");
    let (code, out, err) = run(&["xattr", "--name", "trusted.link"], b"\xdf\xf1\xea\x11");
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "(4 bytes, not a payload this tool decodes)\n");
    // getfattr input: an attribute this tool does not decode is followed by a blank line too.
    let input = "# file: d\ntrusted.link=0xdff1ea11\ntrusted.pin=0x5b5d\n";
    let (code, out, err) = run(&["xattr"], input.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "# file: d\ntrusted.link:\n(4 bytes, not a payload this tool decodes)\n\ntrusted.pin:\n[]\n\n"
    );
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
    let u = u32::MAX;
    let e = &j["payload"]["a_entries"];
    let got: Vec<(String, u64, u64)> = e
        .as_array()
        .expect("a_entries")
        .iter()
        .map(|x| {
            (
                x["e_tag"]["name"].as_str().expect("tag name").to_string(),
                x["e_perm"].as_u64().expect("perm"),
                x["e_id"].as_u64().expect("id"),
            )
        })
        .collect();
    let want = [
        ("USER_OBJ", 6, u),
        ("USER", 6, 1000),
        ("GROUP_OBJ", 4, u),
        ("GROUP", 4, 100),
        ("MASK", 6, u),
        ("OTHER", 4, u),
    ];
    let want: Vec<(String, u64, u64)> = want
        .iter()
        .map(|&(t, p, i)| (t.to_string(), p, u64::from(i)))
        .collect();
    assert_eq!(got, want);
    assert_eq!(e[4]["e_tag"]["value"], "0x0010");
    assert_eq!(encode(&j.to_string()), ACL);
    // Without --name, the magic tells an ACL (named as an access ACL).
    assert_eq!(json_of(&[], ACL)["xattr"], "system.posix_acl_access");
}

#[test]
fn json_pin() {
    let pin = b"[hsm: 7,owner: alice,pool: ssd,hsm: x]";
    let j = json_of(&["--name", "trusted.pin"], pin);
    assert_eq!(j["kind"], "pin");
    assert_eq!(j["payload"], "[hsm: 7,owner: alice,pool: ssd,hsm: x]");
    assert_eq!(encode(&j.to_string()), pin);
    // The pin is carried verbatim, even when it is not text.
    let odd = b"[\x00\xff";
    let j = json_of(&["--name", "trusted.pin"], odd);
    assert_eq!(j["payload"], serde_json::json!({"hex": "5b00ff"}));
    assert_eq!(encode(&j.to_string()), odd);
}

#[test]
fn json_lmv() {
    let bytes = vector("xattr_lmv_striped.bin");
    let j = json_of(&[], &bytes);
    assert_eq!(j["xattr"], "trusted.lmv");
    assert_eq!(j["kind"], "lmv");
    let m = &j["payload"]["lmv_mds_md_v1"];
    assert_eq!(m["lmv_magic"], 0x0CD2_0CD0);
    assert_eq!(m["lmv_stripe_count"], 4);
    assert_eq!(m["lmv_master_mdt_index"], 0);
    assert_eq!(
        m["lmv_hash_type"]["names"],
        serde_json::json!(["fnv_1a_64"])
    );
    assert_eq!(m["lmv_layout_version"], 1);
    assert_eq!(m["lmv_pool_name"], "");
    assert_eq!(m["form"], "with_fids");
    assert_eq!(
        m["lmv_stripe_fids"],
        serde_json::json!([
            "[0x200000400:0x2:0x0]",
            "[0x240000400:0x2:0x0]",
            "[0x280000400:0x2:0x0]",
            "[0x2c0000400:0x2:0x0]"
        ])
    );
    // The old prefix-less names are gone.
    for k in ["stripe_count", "magic", "hash_type"] {
        assert!(m.get(k).is_none(), "{k} in {m}");
    }
    // A stripe object without its FID table, and the foreign form.
    let j = json_of(&[], &vector("xattr_lmv_stripe.bin"));
    let m = &j["payload"]["lmv_mds_md_v1"];
    assert_eq!(m["lmv_magic"], 0x0CD4_0CD0);
    assert_eq!(m["lmv_stripe_count"], 4);
    assert_eq!(m["lmv_master_mdt_index"], 2);
    assert_eq!(m["form"], "header_only");
    assert_eq!(m["lmv_stripe_fids"], serde_json::json!([]));
    let j = json_of(&[], &vector("xattr_lmv_foreign.bin"));
    let f = &j["payload"]["lmv_foreign_md"];
    assert_eq!(
        f["lfm_type"],
        serde_json::json!({"value": "0x0000da05", "name": "symlink"})
    );
    assert_eq!(f["lfm_flags"], 0);
    assert_eq!(f["lfm_value"], hex(b"/mnt/other/dir"));
}

#[test]
fn json_default_lmv() {
    let j = json_of(&[], &vector("xattr_dmv_inherit3.bin"));
    assert_eq!(j["xattr"], "trusted.dmv");
    assert_eq!(j["kind"], "dmv");
    let m = &j["payload"];
    assert_eq!(m["lum_magic"], 0x0CD3_0CD0);
    assert_eq!(m["lum_stripe_count"], 1);
    assert_eq!(m["lum_stripe_offset"], 0xffff_ffffu32);
    assert_eq!(m["lum_type"], 0);
    assert_eq!(m["lum_max_inherit"], 3);
    assert_eq!(m["lum_max_inherit_rr"], 0);
    assert_eq!(m["lum_pool_name"], "");
    let j = json_of(&[], &vector("xattr_dmv_end.bin"));
    assert_eq!(j["payload"]["lum_stripe_count"], -1);
    // SPECIFIC shares its magic with a stripe LMV: told apart without --name.
    let j = json_of(&[], &vector("xattr_dmv_specific.bin"));
    assert_eq!(j["xattr"], "trusted.dmv");
    let m = &j["payload"];
    assert_eq!(m["lum_magic"], 0x0CD4_0CD0);
    assert_eq!(m["lum_pool_name"], "fast");
    assert_eq!(m["lum_objects"][0]["lum_fid"], "[0x200000400:0x1:0x0]");
    assert_eq!(m["lum_objects"][0]["lum_mds"], 0);
    assert_eq!(m["lum_objects"][1]["lum_mds"], 3);
}

#[test]
fn json_composite_lov() {
    let bytes = vector("xattr_lov_comp3.bin");
    let j = json_of(&["--name", "trusted.lov"], &bytes);
    assert_eq!(j["xattr"], "trusted.lov");
    assert_eq!(j["kind"], "lov");
    let c = &j["payload"]["lov_comp_md_v1"];
    assert_eq!(c["lcm_layout_gen"], 0);
    assert_eq!(c["lcm_mirror_count"], 0);
    assert_eq!(c["lcm_ec_count"], 0);
    let e = &c["lcm_entries"];
    assert_eq!(e.as_array().map(Vec::len), Some(3), "{j}");
    assert_eq!(e[0]["lcme_id"], 1);
    assert_eq!(e[0]["lcme_extent_start"], "0");
    assert_eq!(e[0]["lcme_extent_end"], "1048576");
    let l0 = &e[0]["layout"]["lov_user_md"];
    assert_eq!(l0["lmm_magic"], 0x0BD1_0BD0);
    assert_eq!(l0["lmm_stripe_count"], 1);
    assert_eq!(l0["lmm_pool_name"], serde_json::Value::Null);
    assert_eq!(
        l0["lmm_oi"],
        serde_json::json!({"oi_id": "0x0000000000000000", "oi_seq": "0x0000000000000000"})
    );
    // A template (no objects): the union is the stripe offset.
    assert_eq!(l0["lmm_stripe_offset"], 0xffff);
    assert_eq!(e[1]["lcme_extent_start"], "1048576");
    assert_eq!(e[1]["layout"]["lov_user_md"]["lmm_stripe_count"], 4);
    // EOF is u64::MAX, a string that jq does not round.
    assert_eq!(e[2]["lcme_extent_end"], "18446744073709551615");
    let l2 = &e[2]["layout"]["lov_user_md"];
    assert_eq!(l2["lmm_magic"], 0x0BD3_0BD0);
    assert_eq!(l2["lmm_stripe_count"], 0xffff);
    assert_eq!(l2["lmm_stripe_size"], 4194304);
    assert_eq!(l2["lmm_pool_name"], "archive");
    assert_eq!(encode(&j.to_string()), bytes);
    // A plain V3 layout and a foreign one.
    let j = json_of(&[], &vector("xattr_lov_v3_pool.bin"));
    let m = &j["payload"]["lov_user_md"];
    assert_eq!(m["lmm_pattern"]["names"], serde_json::json!(["raid0"]));
    assert_eq!(m["lmm_stripe_size"], 4194304);
    assert_eq!(m["lmm_stripe_count"], 2);
    assert_eq!(m["lmm_stripe_offset"], 1);
    assert_eq!(m["lmm_pool_name"], "flash");
    let j = json_of(&[], &vector("xattr_lov_foreign.bin"));
    let f = &j["payload"]["lov_foreign_md"];
    assert_eq!(f["lfm_type"]["value"], "0x00000004");
    assert_eq!(f["lfm_flags"], 1);
    assert_eq!(f["lfm_value"], hex(b"bucket/obj-0001"));
}

/// The key the union at offset 30 of each plain layout is shown under, in order.
fn union_names(j: &serde_json::Value) -> Vec<String> {
    let key = |m: &serde_json::Value| -> String {
        let o = m.as_object().expect("lov_user_md");
        let names: Vec<&String> = o
            .keys()
            .filter(|k| *k == "lmm_layout_gen" || *k == "lmm_stripe_offset")
            .collect();
        assert_eq!(names.len(), 1, "{m}");
        names[0].clone()
    };
    let p = &j["payload"];
    if let Some(m) = p.get("lov_user_md") {
        return vec![key(m)];
    }
    p["lov_comp_md_v1"]["lcm_entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["layout"].get("lov_user_md").map(key))
        .collect()
}

#[test]
fn the_lov_union_is_named_by_context() {
    // A file's instantiated layout holds its generation; --layout-of dir, a stripe offset.
    let v1 = vector("xattr_lov_v1_objects.bin");
    let guessed = json_of(&[], &v1);
    assert_eq!(union_names(&guessed), ["lmm_layout_gen"]);
    assert_eq!(guessed["payload"]["lov_user_md"]["lmm_layout_gen"], 5);
    let dir = json_of(&["--layout-of", "dir"], &v1);
    assert_eq!(union_names(&dir), ["lmm_stripe_offset"]);
    assert_eq!(dir["payload"]["lov_user_md"]["lmm_stripe_offset"], 5);
    assert_eq!(encode(&dir.to_string()), v1);
    // A template is guessed a directory default; --layout-of file names it as a file's.
    let t = vector("xattr_lov_v1.bin");
    assert_eq!(union_names(&json_of(&[], &t)), ["lmm_stripe_offset"]);
    assert_eq!(
        union_names(&json_of(&["--layout-of", "file"], &t)),
        ["lmm_layout_gen"]
    );
    // A PFL file written only in part: instantiated components hold the generation, the
    // others the offset; as a directory default every one is an offset.
    let pfl = vector("synth/lov_pfl_uninit.bin");
    let f = json_of(&[], &pfl);
    let init: Vec<bool> = f["payload"]["lov_comp_md_v1"]["lcm_entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| {
            e["lcme_flags"]["names"]
                .as_array()
                .expect("names")
                .contains(&"init".into())
        })
        .collect();
    assert!(init.contains(&true) && init.contains(&false), "{init:?}");
    let want: Vec<&str> = init
        .iter()
        .map(|&i| {
            if i {
                "lmm_layout_gen"
            } else {
                "lmm_stripe_offset"
            }
        })
        .collect();
    assert_eq!(union_names(&f), want);
    let d = json_of(&["--layout-of", "dir"], &pfl);
    assert!(union_names(&d).iter().all(|n| n == "lmm_stripe_offset"));
    // encode takes either name, not both, not neither.
    let mut both = guessed.clone();
    both["payload"]["lov_user_md"]["lmm_stripe_offset"] = 5.into();
    fails(
        &["encode"],
        both.to_string().as_bytes(),
        "payload.lov_user_md: `lmm_stripe_offset` and `lmm_layout_gen` are one union",
    );
    let mut none = guessed;
    let m = none["payload"]["lov_user_md"]
        .as_object_mut()
        .expect("object");
    m.remove("lmm_layout_gen");
    fails(
        &["encode"],
        none.to_string().as_bytes(),
        "payload.lov_user_md: missing field `lmm_stripe_offset`",
    );
}

#[test]
fn json_objects_show_their_ost_id_form_and_fid() {
    // Real layouts: a legacy id on an ldiskfs OST (its IDIF FID), and a FID-on-OST object.
    let j = json_of(&[], &vector("real/lov_v1_2_11_ldiskfs_ost0.bin"));
    let o = &j["payload"]["lov_user_md"]["lmm_objects"][0];
    assert_eq!(o["ostid"]["form"], "legacy");
    assert_eq!(o["ostid"]["id"], "0x0000000000000005");
    assert_eq!(o["fid"], "[0x100000000:0x5:0x0]");
    let j = json_of(&[], &vector("real/lov_v1_2_10_fidseq_ost0.bin"));
    let o = &j["payload"]["lov_user_md"]["lmm_objects"][0];
    assert_eq!(o["l_ost_oi"]["oi_id"], "0x0000000280000400");
    assert_eq!(o["ostid"]["form"], "fid");
    assert_eq!(o["ostid"]["seq"], "0x0000000280000400");
    assert_eq!(o["ostid"]["id"], "0x0000000000000003");
    assert_eq!(o["fid"], "[0x280000400:0x3:0x0]");
    // The shown fields are optional on input, and checked when given.
    let mut plain = j.clone();
    let obj = plain["payload"]["lov_user_md"]["lmm_objects"][0]
        .as_object_mut()
        .expect("object");
    obj.remove("ostid");
    obj.remove("fid");
    assert_eq!(
        encode(&plain.to_string()),
        vector("real/lov_v1_2_10_fidseq_ost0.bin")
    );
    let mut bad = j.clone();
    bad["payload"]["lov_user_md"]["lmm_objects"][0]["ostid"]["form"] = "idif".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "payload.lov_user_md.lmm_objects[0]: `ostid`",
    );
    let mut bad = j.clone();
    bad["payload"]["lov_user_md"]["lmm_objects"][0]["fid"] = "[0x280000400:0x4:0x0]".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "lmm_objects[0]: `fid` disagrees",
    );
    let mut bad = j.clone();
    bad["payload"]["lov_user_md"]["lmm_objects"][0]["fid"] = serde_json::Value::Null;
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "which give [0x280000400:0x3:0x0]",
    );
    // The LMV form, likewise.
    let mut bad = json_of(&[], &vector("xattr_lmv_stripe.bin"));
    bad["payload"]["lmv_mds_md_v1"]["form"] = "with_fids".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "payload.lmv_mds_md_v1: `form`",
    );
}

#[test]
fn an_object_id_above_2_pow_53_survives_jq() {
    // oi_id = 2^53 + 1 and oi_seq = u64::MAX - 1: a JSON number would come back rounded.
    let mut bytes = vector("xattr_lov_v1_objects.bin");
    bytes[32..40].copy_from_slice(&((1u64 << 53) + 1).to_le_bytes());
    bytes[40..48].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
    let (code, json, err) = run(&["xattr", "--json"], &bytes);
    assert_eq!(code, 0, "{err}");
    let through = jq(json.as_bytes());
    let j: serde_json::Value = serde_json::from_slice(&through).expect("JSON");
    assert_eq!(
        j["payload"]["lov_user_md"]["lmm_objects"][0]["l_ost_oi"]["oi_id"],
        "0x0020000000000001"
    );
    assert_eq!(encode(&String::from_utf8_lossy(&through)), bytes);
}

/// `jq .` of `input`, through the real jq binary.
fn jq(input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("jq")
        .arg(".")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("jq is not installed: .ci/run installs it (apt package jq)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write jq");
    let out = child.wait_with_output().expect("jq ends");
    assert!(out.status.success(), "jq failed");
    out.stdout
}

/// Every xattr payload of testdata: the vectors, and the real and synthetic lfs cases.
fn every_payload() -> Vec<(String, Vec<u8>)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata");
    let mut all = Vec::new();
    for (dir, top) in [("", true), ("real", false), ("synth", false)] {
        for e in std::fs::read_dir(format!("{root}/{dir}")).expect("testdata") {
            let p = e.expect("entry").path();
            let name = p.file_name().expect("name").to_string_lossy().into_owned();
            if !name.ends_with(".bin") || (top && !name.starts_with("xattr_")) {
                continue;
            }
            all.push((format!("{dir}/{name}"), std::fs::read(&p).expect("payload")));
        }
    }
    all.sort();
    all
}

#[test]
fn every_payload_survives_xattr_json_through_jq_and_encode() {
    let all = every_payload();
    assert!(all.len() >= 50, "only {} payloads", all.len());
    let mut lov = 0;
    for (name, bytes) in &all {
        let (code, json, err) = run(&["xattr", "--json"], bytes);
        assert_eq!(code, 0, "{name}: {err}");
        // Canonical payloads: no note that the JSON would encode to other bytes.
        assert_eq!(err, "", "{name}");
        let through = jq(json.as_bytes());
        let (code, out, err) = run_raw(&["encode"], &through);
        assert_eq!(code, 0, "{name}: {err}");
        assert_eq!(&out, bytes, "{name}: the jq round trip changed the bytes");
        lov += usize::from(json.contains("\"lov_user_md\""));
    }
    assert!(lov >= 20, "only {lov} LOV payloads");
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
    assert_eq!(last["payload"], "6869");
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
        j["payload"]["lov_user_md"]["lmm_pool_name"]["hex"],
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
            r#"{{"xattr": "system.posix_acl_access", "kind": "acl", "payload": {{"a_entries": [{entries}]}}}}"#
        )
    };
    let e = |t: u32, p: u32, id: u32| format!(r#"{{"e_tag": {t}, "e_perm": {p}, "e_id": {id}}}"#);
    let u = u32::MAX;
    // Valid: the minimal ACL.
    let ok = acl(&[e(1, 6, u), e(4, 4, u), e(32, 4, u)].join(","));
    assert_eq!(encode(&ok).len(), 28);
    // No GROUP_OBJ, duplicate named user: the library's errors.
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
    // Kind and name disagree; unknown and missing fields, with their paths; types and ranges.
    fails(
        &["encode"],
        ok.replace("\"kind\": \"acl\"", "\"kind\": \"lov\"")
            .as_bytes(),
        "holds an acl payload",
    );
    fails(
        &["encode"],
        ok.replace("\"e_perm\": 6", "\"e_perm\": 6, \"extra\": 1")
            .as_bytes(),
        "payload.a_entries[0].extra: unknown field `extra`",
    );
    fails(
        &["encode"],
        ok.replace("\"kind\": \"acl\", ", "\"kind\": \"acl\", \"colour\": 1, ")
            .as_bytes(),
        "unknown field `colour`",
    );
    fails(
        &["encode"],
        ok.replace(", \"e_id\": 4294967295}]", "}]").as_bytes(),
        "missing field `e_id`",
    );
    fails(
        &["encode"],
        ok.replace("\"e_perm\": 6", "\"e_perm\": 70000").as_bytes(),
        "payload.a_entries[0].e_perm",
    );
    fails(
        &["encode"],
        br#"{"xattr": "trusted.lmv", "kind": "lmv", "payload": {"lmv_mds_md_v1": {"lmv_magic": 1}}}"#,
        "missing field `lmv_stripe_count`",
    );
    fails(
        &["encode"],
        br#"{"xattr": "trusted.pin", "kind": "pin", "payload": {"hex": "zz"}}"#,
        "payload",
    );
    fails(
        &["encode"],
        br#"{"xattr": "x", "kind": "nope"}"#,
        "kind: unknown variant",
    );
    fails(
        &["encode"],
        br#"{"xattr": 7, "kind": "pin", "payload": ""}"#,
        "xattr:",
    );
    fails(
        &["encode"],
        br#"{"payload": "", "xattr": "trusted.pin", "kind": "pin"}"#,
        "give `kind` first",
    );
    fails(&["encode"], b"[1, 2]", "top level");
    fails(&["encode"], b"{\"kind\": \"acl\"", "bad JSON");

    // Each vector's JSON, broken one field at a time.
    let lmv: serde_json::Value = json_of(&[], &vector("xattr_lmv_striped.bin"));
    let mut bad = lmv.clone();
    bad["payload"]["lmv_mds_md_v1"]["lmv_stripe_count"] = 5.into();
    fails(&["encode"], bad.to_string().as_bytes(), "lmv_mds_md_v1");
    let mut bad = lmv.clone();
    bad["payload"]["lmv_mds_md_v1"]["lmv_magic"] = 0xd00c_d20cu32.into();
    fails(&["encode"], bad.to_string().as_bytes(), "magic");
    let mut bad = lmv.clone();
    bad["payload"]["lmv_mds_md_v1"]["lmv_pool_name"] = "a-pool-name-too-long".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "payload.lmv_mds_md_v1.lmv_pool_name",
    );
    let mut bad = lmv;
    bad["payload"]["lmv_mds_md_v1"]["lmv_stripe_fids"][1] = "[0x1:0x2]".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "lmv_stripe_fids[1]",
    );
    let dmv = json_of(&[], &vector("xattr_dmv_inherit3.bin"));
    let mut bad = dmv.clone();
    bad["payload"]["lum_stripe_count"] = (-6).into();
    fails(&["encode"], bad.to_string().as_bytes(), "lum_stripe_count");
    let mut bad = dmv;
    bad["payload"]["lum_max_inherit"] = 256.into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "payload.lum_max_inherit",
    );
    let lov = json_of(&[], &vector("xattr_lov_comp3.bin"));
    let mut bad = lov.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"] = serde_json::json!([]);
    fails(&["encode"], bad.to_string().as_bytes(), "lov_comp_md_v1");
    let mut bad = lov.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][1]["layout"]["lov_user_md"]["lmm_magic"] =
        0x0BD6_0BD0.into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "value would not decode",
    );
    let mut bad = lov.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][0]["lcme_compr_bits"] = 256.into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "lcm_entries[0].lcme_compr_bits",
    );
    let mut bad = lov.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][0]["layout"]["lov_user_md"]["lmm_pool_name"] =
        "p".into();
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "lcm_entries[0].layout.lov_user_md: `lmm_pool_name`",
    );
    let mut bad = lov.clone();
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][2]["layout"]["lov_user_md"]["lmm_pool_name"] =
        serde_json::Value::Null;
    fails(
        &["encode"],
        bad.to_string().as_bytes(),
        "lcm_entries[2].layout.lov_user_md: `lmm_pool_name`",
    );
    let mut bad = lov;
    bad["payload"]["lov_comp_md_v1"]["lcm_entries"][2]["layout"]["lov_user_md"]["lmm_stripe_count"] =
        2001.into();
    fails(&["encode"], bad.to_string().as_bytes(), "lmm_stripe_count");
    let big = format!(
        r#"{{"xattr": "trusted.pin", "kind": "pin", "payload": "{}"}}"#,
        " ".repeat(65537)
    );
    fails(
        &["encode"],
        big.as_bytes(),
        "payload: 65537 bytes, more than the limit of 65536",
    );

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

#[test]
fn stripe_mdts_must_name_every_stripe() {
    let lmv = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/xattr_lmv_striped.bin"
    ))
    .expect("vector");
    let (code, out, err) = run(&["xattr", "--stripe-mdts", "1,2"], &lmv);
    assert_eq!(code, 1, "{out}");
    assert!(
        err.contains(
            "trusted.lmv: --stripe-mdts lists 2 MDTs, but the LMV has 4 stripes: give one MDT a \
             stripe, in stripe order"
        ),
        "{err}"
    );
    let (code, out, err) = run(&["xattr", "--stripe-mdts", "1,2,3,0"], &lmv);
    assert_eq!(code, 0, "{err}");
    assert!(!out.contains('?'), "{out}");
}

#[test]
fn a_payload_that_is_not_canonical_says_so_beside_its_json() {
    // USER_OBJ's e_id 0x00ffffff where the canonical form writes 0xffffffff (WIRE.md W11.9).
    let mut acl = ACL.to_vec();
    acl[8] = 0;
    // A composite layout whose entry count was lowered: its last component's blob is left
    // unreferenced inside lcm_size, and the JSON (which holds what the entries name) drops it.
    let mut lov = vector("xattr_lov_comp3.bin");
    assert_eq!(lov[14], 3, "lcm_entry_count");
    lov[14] = 2;
    for (what, bytes, note) in [
        (
            "acl",
            &acl,
            "system.posix_acl_access: note: this JSON re-encodes to the canonical form (52 \
             bytes), not to these 52 bytes (they differ from offset 8; docs/spec/WIRE.md)",
        ),
        (
            "lov",
            &lov,
            "trusted.lov: note: this JSON re-encodes to the canonical form (192 bytes), not to \
             these 288 bytes (they differ from offset 4; docs/spec/WIRE.md)",
        ),
    ] {
        let (code, json, err) = run(&["xattr", "--json"], bytes);
        assert_eq!(code, 0, "{what}: {err}");
        assert_eq!(
            err,
            format!("dne-intent xattr: standard input: {note}\n"),
            "{what}"
        );
        assert_ne!(&encode(&json), bytes, "{what}: the note is true");
        // The text form prints no JSON, so no note.
        let (code, _, err) = run(&["xattr"], bytes);
        assert_eq!((code, err.as_str()), (0, ""), "{what}");
    }
    // getfattr input names the file too.
    let input = format!("# file: d/f\nsystem.posix_acl_access=0x{}\n", hex(&acl));
    let (code, _, err) = run(&["xattr", "--json"], input.as_bytes());
    assert_eq!(code, 0, "{err}");
    assert!(
        err.starts_with("dne-intent xattr: standard input: d/f: system.posix_acl_access: note: "),
        "{err}"
    );
}

#[test]
fn a_payload_of_no_known_kind_is_named_by_its_first_word() {
    let (code, _, err) = run(&["xattr"], b"\x01\x02\x03\x04\x05\x06\x07\x08");
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot tell the payload kind: the u32 at offset 0 is 0x04030201, none of "),
        "{err}"
    );
    assert!(err.trim_end().ends_with(": give --name XATTR"), "{err}");
    // Every first word the message lists is one the guess knows: a payload that starts with
    // it is tried as that kind (and fails on its own rules here), never "cannot tell".
    let (_, _, listing) = run(&["xattr"], b"\x01\x02\x03\x04");
    for (word, listed, kind) in [
        (2u32, "0x2 (system.posix_acl_access)", "posix_acl_xattr"),
        (0x0cd2_0cd0, "0xcd20cd0 (trusted.lmv)", "lmv_mds_md_v1"),
        (0x0cd3_0cd0, "0xcd30cd0 (trusted.dmv)", "lmv_user_md"),
        (0x0bd1_0bd0, "0x????0bd0 (trusted.lov)", "lov_user_md"),
    ] {
        assert!(listing.contains(listed), "{listed} not listed: {listing}");
        let mut payload = word.to_le_bytes().to_vec();
        payload.extend_from_slice(&[0xee; 4]);
        let (code, _, err) = run(&["xattr"], &payload);
        assert_eq!(code, 1, "{word:#x}");
        assert!(!err.contains("cannot tell"), "{word:#x}: {err}");
        assert!(err.contains(kind), "{word:#x}: {err}");
    }
    let (code, _, err) = run(&["xattr"], b"\x01\x02");
    assert_eq!(code, 1);
    assert!(
        err.contains("cannot tell the payload kind: 2 bytes, too short for a magic"),
        "{err}"
    );
}
