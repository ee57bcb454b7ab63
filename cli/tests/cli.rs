//! End-to-end tests of the `dne-intent` binary: `decode` (text, JSON, hex input, errors) and
//! `encode` (the exact inverse of `decode --json`), on messages built with the library in both
//! byte orders and on every golden vector in `testdata/`.

use bytes::Bytes;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    EntryName, GroupList, McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf,
    Operation, PrepResult, PrepareOutcome, PrepareReply, PrepareRequest, UnknownReason,
};
use lustre_dne_intent::wire::{
    LockHandles, LockMode, LuFid, LustreHandle, MdtBody, MdtValid, MsgBuilder, MsgView, WireStruct,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const BIN: &str = env!("CARGO_BIN_EXE_dne-intent");
const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);

/// A fresh directory under the system temp dir, unique to this process and test; removed when
/// dropped.
struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmpdir(test: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("dne-intent-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dne-intent");
    if let Some(input) = stdin {
        let mut pipe = child.stdin.take().unwrap();
        pipe.write_all(input).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs and asserts success; returns stdout.
fn ok(args: &[&str], stdin: Option<&[u8]>) -> Vec<u8> {
    let out = run(args, stdin);
    assert!(
        out.status.success(),
        "dne-intent {args:?} failed ({:?}): {}",
        out.status.code(),
        text(&out.stderr)
    );
    out.stdout
}

/// Runs and asserts exit status `code` with a one-line message and no panic; returns stderr.
fn fails(args: &[&str], stdin: Option<&[u8]>, code: i32) -> String {
    let out = run(args, stdin);
    let err = text(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(code),
        "dne-intent {args:?}: stderr {err}"
    );
    assert!(!err.contains("panicked"), "panic: {err}");
    assert!(!err.trim().is_empty(), "no message on stderr");
    if code == 1 {
        assert_eq!(err.trim_end().lines().count(), 1, "not one line: {err}");
        assert!(out.stdout.is_empty(), "output on failure");
    }
    err
}

fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p.to_str().unwrap().to_string()
}

fn mkdir_request() -> PrepareRequest {
    let body = MdCreatePrepareReq {
        fid: PARENT,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        cap: 1 << 3,
        child_mode: 0o040755,
        buf_limit: [216, 4096, 0, 512, 0, 0],
        ..Default::default()
    };
    let groups = GroupList::from_slice(&[100, 600, 700]).unwrap();
    let mut req = PrepareRequest::new(
        Operation::Create,
        body,
        Some(EntryName::new(b"newdir").unwrap()),
        groups,
        LockMode::PW,
        0x9379_ea6c_975f_b7c0,
    );
    req.ptlrpc.last_xid = 0x0005_f3c2_a1b0_0040;
    req.ptlrpc.jobid = Some(*b"mkdir.500\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
    req
}

fn rename_object_request() -> PrepareRequest {
    let body = MdCreatePrepareReq {
        fid: LuFid::new(0x2_0000_0402, 0x1a, 0),
        flags: McprFlags::NO_LOOKUP,
        fsuid: 0,
        fsgid: 0,
        buf_limit: [216, 0, 0, 0, 0, 0],
        ..Default::default()
    };
    PrepareRequest::new(
        Operation::Rename,
        body,
        None,
        GroupList::new(),
        LockMode::EX,
        0,
    )
}

/// Unusual but valid: a name that is not UTF-8, a job id with bytes after its NUL, three lock
/// handles, an unknown mcpr_flags bit.
fn odd_request() -> PrepareRequest {
    let mut req = mkdir_request();
    req.name = Some(EntryName::new(b"caf\xe9").unwrap());
    let mut jobid = [0u8; 32];
    jobid[..4].copy_from_slice(b"job\0");
    jobid[31] = 0x7f;
    req.ptlrpc.jobid = Some(jobid);
    req.ldlm.handles =
        LockHandles::from_slice(&[LustreHandle(7), LustreHandle(8), LustreHandle(u64::MAX)])
            .unwrap();
    req.ldlm.lock_count = 3;
    req.body.flags = McprFlags::GROUPS_PARTIAL | McprFlags(0x100);
    req
}

/// The mkdir request with a 152-byte `ptlrpc_body_v2` (no job id). The library writes v3 only
/// (the canonical form), so it is framed by hand.
fn v2_request(order: Endian) -> Vec<u8> {
    let v3 = mkdir_request().to_bytes(order).unwrap();
    let m = MsgView::parse(&v3).unwrap();
    let mut b = MsgBuilder::new(order, m.header());
    b.push(&m.buffer_or_empty(0)[..152]).unwrap();
    for i in 1..m.bufcount() {
        b.push(m.buffer_or_empty(i)).unwrap();
    }
    let mut out = Vec::new();
    b.put(&mut out);
    out
}

/// PATTR as a value holds it: little-endian (the encoder writes it in the message's order).
fn pattr() -> Bytes {
    let m = MdtBody {
        fid1: PARENT,
        valid: MdtValid::FLID | MdtValid::FLMODE | MdtValid::FLTYPE | MdtValid::FLUID,
        mode: 0o042775,
        uid: 100,
        gid: 600,
        nlink: 3,
        ..Default::default()
    };
    let mut v = Vec::new();
    m.put(Endian::Little, &mut v);
    Bytes::from(v)
}

/// mkdir answered with -EEXIST: PATTR present, DEF_ACL absent, LMV truncated, the rest unknown.
fn eexist_reply() -> PrepareReply {
    let ctx = mkdir_request().reply_context().unwrap();
    let mut o = PrepareOutcome::new(MdCreatePrepareRep {
        status: -17,
        flags: McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS | McppFlags::PERM_DONE,
        fid: LuFid::new(0x2_0000_0401, 0x22, 0),
        child_mode: 0o040000,
        ..Default::default()
    });
    o.set_result(MliBuf::Pattr, PrepResult::Present(pattr()));
    o.set_result(MliBuf::DefAcl, PrepResult::Absent);
    o.set_result(
        MliBuf::Lmv,
        PrepResult::Unknown(UnknownReason::Truncated { size: 9000 }),
    );
    PrepareReply::granting(&ctx, LustreHandle(0x2b4e_6f80_91a3_c5d7), Some(o))
}

fn empty_reply() -> PrepareReply {
    let ctx = mkdir_request().reply_context().unwrap();
    PrepareReply::granting(&ctx, LustreHandle(0x1234), None)
}

/// Every library-built message in both byte orders: (file name, bytes).
fn library_messages() -> Vec<(String, Vec<u8>)> {
    type Build = fn(Endian) -> Bytes;
    let builders: [(&str, Build); 5] = [
        ("mkdir_request", |o| mkdir_request().to_bytes(o).unwrap()),
        ("rename_object_request", |o| {
            rename_object_request().to_bytes(o).unwrap()
        }),
        ("odd_request", |o| odd_request().to_bytes(o).unwrap()),
        ("eexist_reply", |o| eexist_reply().to_bytes(o).unwrap()),
        ("empty_reply", |o| empty_reply().to_bytes(o).unwrap()),
    ];
    let mut v = Vec::new();
    for order in [Endian::Little, Endian::Big] {
        for (name, build) in builders {
            v.push((
                format!("{name}_{}.bin", order.name()),
                build(order).to_vec(),
            ));
        }
    }
    v
}

/// `decode --json FILE | encode` must give back `bytes`, in binary and with `--hex`.
fn assert_round_trip(path: &str, bytes: &[u8]) {
    let json = ok(&["decode", "--json", path], None);
    let again = ok(&["encode"], Some(&json));
    assert!(
        again == bytes,
        "{path}: decode --json | encode changed the bytes"
    );
    let hex = ok(&["encode", "--hex", "-"], Some(&json));
    let hex = text(&hex);
    assert!(hex.lines().all(|l| l.len() <= 60 && !l.is_empty()));
    let from_hex = ok(&["decode", "--json"], Some(hex.as_bytes()));
    assert_eq!(from_hex, json, "{path}: hex output decodes differently");
}

#[test]
fn decode_text_request_names_fields() {
    let dir = tmpdir("text_request");
    for order in [Endian::Little, Endian::Big] {
        let f = write(&dir, "req.bin", &mkdir_request().to_bytes(order).unwrap());
        let out = text(&ok(&["decode", &f], None));
        for want in [
            "prepare request: IT_DNE_CREATE_PREPARE",
            &format!("byte order: {}", order.name()),
            "lm_bufcount            6",
            "PTL_RPC_MSG_REQUEST (4711)",
            "101 (LDLM_ENQUEUE)",
            "\"mkdir.500\"",
            "HAS_INTENT (0x1000)",
            "LDLM_IBITS (13)",
            "LCK_PW (2)",
            "UPDATE (0x2)",
            "name[3]            0x9379ea6c975fb7c0",
            "mcpr_fid               [0x200000401:0x1:0x0]",
            "0 [entry mode]",
            "mcpr_umask             0022",
            "040755 (S_IFDIR, drwxr-xr-x)",
            "216 MLI_BUF_PATTR",
            "0 MLI_BUF_PIN (not requested)",
            "PATTR|DEF_ACL|LMV (0xb)",
            "\"newdir\" (6 bytes)",
            "3 [100, 600, 700]",
        ] {
            assert!(out.contains(want), "{order:?}: missing {want:?} in\n{out}");
        }
    }
    let f = write(
        &dir,
        "obj.bin",
        &rename_object_request().to_bytes(Endian::Big).unwrap(),
    );
    let out = text(&ok(&["decode", &f], None));
    assert!(out.contains("IT_DNE_RENAME_PREPARE"), "{out}");
    assert!(out.contains("MCPR_NO_LOOKUP (0x1) [object mode]"), "{out}");
    assert!(out.contains("entry name: none (object mode)"), "{out}");
    assert!(out.contains("LCK_EX (1)"), "{out}");
}

#[test]
fn decode_text_reply_shows_every_result_state() {
    let dir = tmpdir("text_reply");
    for order in [Endian::Little, Endian::Big] {
        let f = write(&dir, "rep.bin", &eexist_reply().to_bytes(order).unwrap());
        let out = text(&ok(&["decode", &f], None));
        for want in [
            "prepare reply: lock granted with a prepare result",
            &format!("byte order: {}", order.name()),
            "PTL_RPC_MSG_REPLY (4713)",
            "DISP_IT_EXECD|DISP_LOOKUP_EXECD|DISP_LOOKUP_POS (0xb)",
            "lock_handle            0x2b4e6f8091a3c5d7",
            "l_granted_mode       LCK_PW (2)",
            "mcpp_status            -17 (EEXIST)",
            "MCPP_LOOKUP_DONE|MCPP_LOOKUP_POS|MCPP_PERM_DONE (0x7)",
            "mcpp_valid             PATTR|DEF_ACL (0x3)",
            "mcpp_truncated         LMV (0x8)",
            "mcpp_fid               [0x200000401:0x22:0x0]",
            "mcpp_child_mode        040000 (S_IFDIR, d---------)",
            "buffer 3: MLI_BUF_PATTR (attributes): present, 216 bytes @",
            "mbo_fid1             [0x200000401:0x1:0x0]",
            "mbo_valid            FLID|FLMODE|FLTYPE|FLUID (0x381)",
            "mbo_mode             042775 (S_IFDIR, drwxrwsr-x)",
            "buffer 4: MLI_BUF_DEF_ACL (system.posix_acl_default): absent",
            "buffer 5: MLI_BUF_PIN (trusted.pin): unknown (not provided)",
            "buffer 6: MLI_BUF_LMV (trusted.lmv): truncated, real size 9000 bytes",
            "buffer 8: MLI_BUF_DEF_LMV (trusted.dmv): unknown",
        ] {
            assert!(out.contains(want), "{order:?}: missing {want:?} in\n{out}");
        }
    }
    let f = write(
        &dir,
        "empty.bin",
        &empty_reply().to_bytes(Endian::Little).unwrap(),
    );
    let out = text(&ok(&["decode", &f], None));
    assert!(out.contains("the empty result"), "{out}");
    assert!(out.contains("DISP_IT_EXECD (0x1)"), "{out}");
    // The results describe the directory the lock names (WIRE.md §6): lfs prints its FID as
    // the LMV's lmv_fid and the directory default layout's lmm_fid.
    let complete = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/mkdir_reply_complete.bin"
    );
    let out = text(&ok(&["decode", complete], None));
    for want in [
        "      FID                [0x200000401:0x1:0x0]\n",
        "buffer 6: MLI_BUF_LMV (trusted.lmv): present, 88 bytes @ 736\n    lmv_fid: \
         0x200000401:0x1:0x0 lmv_magic: 0xcd20cd0 lmv_stripe_count: 2 ",
        "buffer 7: MLI_BUF_LOV (trusted.lov): present, 32 bytes @ 824\n    lmm_fid:           \
         [0x200000401:0x1:0x0]\n    stripe_count:  2 ",
        "buffer 8: MLI_BUF_DEF_LMV (trusted.dmv): present, 48 bytes @ 856\n    lmv_fid: \
         0x200000401:0x1:0x0 lmv_magic: 0xcd30cd0 ",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
}

/// A rename in object mode of a regular file, answered with the file's attributes and its own
/// layout: the LOV prints as `lfs getstripe -v FILE` prints a file's (its `lmm_fid` from the
/// payload), not as a directory default, which the results of an entry-mode reply are.
#[test]
fn decode_text_prints_an_objects_lov_by_its_file_type() {
    let dir = tmpdir("text_object");
    let ctx = rename_object_request().reply_context().unwrap();
    let file = LuFid::new(0x2_0000_0402, 0x1a, 0);
    let attrs = MdtBody {
        fid1: file,
        valid: MdtValid::FLID | MdtValid::FLMODE | MdtValid::FLTYPE,
        mode: 0o100644,
        nlink: 1,
        ..Default::default()
    };
    let mut pattr = Vec::new();
    attrs.put(Endian::Little, &mut pattr);
    let lov = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/xattr_lov_v1_objects.bin"
    ))
    .unwrap();
    let mut o = PrepareOutcome::new(MdCreatePrepareRep::default());
    o.set_result(MliBuf::Pattr, PrepResult::Present(Bytes::from(pattr)));
    o.set_result(MliBuf::Lov, PrepResult::Present(Bytes::from(lov.clone())));
    let reply = PrepareReply::granting(&ctx, LustreHandle(0x77), Some(o));
    let f = write(&dir, "rep.bin", &reply.to_bytes(Endian::Little).unwrap());
    let out = text(&ok(&["decode", &f], None));
    // What `dne-intent xattr --layout-of file` prints of the same payload, indented.
    let want: String = text(&ok(
        &["xattr", "--layout-of", "file", "--name", "trusted.lov", "-"],
        Some(&lov),
    ))
    .lines()
    .map(|l| {
        if l.is_empty() {
            "\n".to_string()
        } else {
            format!("    {l}\n")
        }
    })
    .collect();
    assert!(want.contains("lmm_magic:"), "a file's layout: {want}");
    assert!(out.contains(&want), "missing\n{want}\nin\n{out}");
    // The lock's resource is the file: no directory default's lmm_fid line names it.
    assert!(
        !out.contains("lmm_fid:           [0x200000402:0x1a:0x0]"),
        "{out}"
    );
}

#[test]
fn decode_json_uses_spec_names() {
    let dir = tmpdir("json_names");
    let f = write(
        &dir,
        "req.bin",
        &mkdir_request().to_bytes(Endian::Big).unwrap(),
    );
    let j: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &f], None)).unwrap();
    assert_eq!(j["order"], "be");
    let q = &j["request"];
    assert_eq!(q["lustre_msg_v2"]["lm_flags"], 0);
    let p = &q["ptlrpc_body"];
    assert_eq!(p["pb_type"]["name"], "PTL_RPC_MSG_REQUEST");
    assert_eq!(p["pb_type"]["value"], "0x00001267");
    // 64-bit values are strings, so jq keeps every bit.
    assert_eq!(p["pb_last_xid"], "0x0005f3c2a1b00040");
    assert_eq!(p["pb_jobid"], "mkdir.500");
    assert_eq!(
        p["pb_pre_versions"],
        serde_json::json!(["0", "0", "0", "0"])
    );
    let l = &q["ldlm_request"];
    assert_eq!(l["lock_flags"]["bits"], "0x00001000");
    assert_eq!(l["lock_flags"]["names"], serde_json::json!(["HAS_INTENT"]));
    assert_eq!(l["lock_desc"]["l_req_mode"]["name"], "LCK_PW");
    assert_eq!(l["lock_desc"]["lr_name"]["name"][3], "0x9379ea6c975fb7c0");
    assert_eq!(
        l["lock_handle"],
        serde_json::json!(["0x0000000000000000", "0x0000000000000000"])
    );
    assert_eq!(q["ldlm_intent"]["opc"]["name"], "IT_DNE_CREATE_PREPARE");
    let b = &q["md_create_prepare_req"];
    assert_eq!(b["mcpr_fid"], "[0x200000401:0x1:0x0]");
    assert_eq!(b["mcpr_fsuid"], 500);
    assert_eq!(b["mcpr_umask"], 0o022);
    assert_eq!(b["mcpr_child_mode"], 0o040755);
    assert_eq!(
        b["mcpr_buf_limit"],
        serde_json::json!([216, 4096, 0, 512, 0, 0])
    );
    assert_eq!(q["name"], "newdir");
    assert_eq!(q["groups"], serde_json::json!([100, 600, 700]));
    assert!(j.get("extra_buffers").is_none());

    let f = write(
        &dir,
        "rep.bin",
        &eexist_reply().to_bytes(Endian::Little).unwrap(),
    );
    let j: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &f], None)).unwrap();
    assert_eq!(j["order"], "le");
    let r = &j["reply"];
    assert_eq!(
        r["ldlm_reply"]["lock_policy_res1"]["names"],
        serde_json::json!(["DISP_IT_EXECD", "DISP_LOOKUP_EXECD", "DISP_LOOKUP_POS"])
    );
    assert_eq!(r["ldlm_reply"]["lock_handle"], "0x2b4e6f8091a3c5d7");
    let rep = &r["outcome"]["md_create_prepare_rep"];
    assert_eq!(rep["mcpp_status"], -17);
    assert_eq!(
        rep["mcpp_valid"]["names"],
        serde_json::json!(["PATTR", "DEF_ACL"])
    );
    assert_eq!(rep["mcpp_truncated"]["names"], serde_json::json!(["LMV"]));
    assert_eq!(rep["mcpp_fid"], "[0x200000401:0x22:0x0]");
    assert_eq!(
        rep["mcpp_buf_size"],
        serde_json::json!([216, 0, 0, 9000, 0, 0])
    );
    let results = &r["outcome"]["results"];
    assert_eq!(results["MLI_BUF_PATTR"].as_str().unwrap().len(), 2 * 216);

    let f = write(
        &dir,
        "empty.bin",
        &empty_reply().to_bytes(Endian::Little).unwrap(),
    );
    let j: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &f], None)).unwrap();
    assert!(j["reply"]["outcome"].is_null());

    let f = write(
        &dir,
        "odd.bin",
        &odd_request().to_bytes(Endian::Big).unwrap(),
    );
    let j: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &f], None)).unwrap();
    let q = &j["request"];
    assert_eq!(q["name"], serde_json::json!({"hex": "636166e9"}));
    let hex_jobid = format!("6a6f6200{}7f", "00".repeat(27));
    assert_eq!(
        q["ptlrpc_body"]["pb_jobid"],
        serde_json::json!({ "hex": hex_jobid })
    );
    assert_eq!(
        q["ldlm_request"]["lock_handle"],
        serde_json::json!([
            "0x0000000000000007",
            "0x0000000000000008",
            "0xffffffffffffffff"
        ])
    );
    assert_eq!(
        q["md_create_prepare_req"]["mcpr_flags"]["bits"],
        "0x00000102"
    );
    assert_eq!(
        q["md_create_prepare_req"]["mcpr_flags"]["unknown"],
        "0x00000100"
    );
    let out = text(&ok(&["decode", &f], None));
    assert!(out.contains("MCPR_GROUPS_PARTIAL|0x100 (0x102)"), "{out}");
    assert!(out.contains("unknown bits"), "{out}");
    assert!(out.contains("\"caf\\xe9\""), "{out}");
    assert!(
        out.contains("lock_handle[2]         0xffffffffffffffff"),
        "{out}"
    );

    let f = write(&dir, "v2.bin", &v2_request(Endian::Little));
    let j: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &f], None)).unwrap();
    // A v2 body has no job id: null, as the JSON schema says (WIRE.md W11.4).
    assert_eq!(
        j["request"]["ptlrpc_body"]["pb_jobid"],
        serde_json::Value::Null
    );
    // Encoded again, it is a v2 body still: the input, byte for byte.
    let json = ok(&["decode", "--json", &f], None);
    let again = ok(&["encode"], Some(&json));
    assert_eq!(again, v2_request(Endian::Little));
    assert_eq!(&again[32..36], &152u32.to_le_bytes());
}

/// A 7-buffer request and a 10-buffer reply whose extra buffer is empty decode, and their JSON
/// encodes back to the same bytes; a non-empty extra buffer is refused with its rule.
#[test]
fn json_round_trips_empty_buffers_past_the_last() {
    let dir = tmpdir("past_last");
    let extend = |bytes: &[u8], extra: &[u8]| {
        let m = MsgView::parse(bytes).unwrap();
        let mut b = MsgBuilder::new(m.order(), m.header());
        for i in 0..m.bufcount() {
            b.push(m.buffer_or_empty(i)).unwrap();
        }
        b.push(extra).unwrap();
        let mut out = Vec::new();
        b.put(&mut out);
        out
    };
    let req = mkdir_request().to_bytes(Endian::Little).unwrap();
    let rep = eexist_reply().to_bytes(Endian::Big).unwrap();
    for (name, bytes) in [("req7.bin", &req[..]), ("rep10.bin", &rep[..])] {
        let f = write(&dir, name, &extend(bytes, b""));
        assert_round_trip(&f, &extend(bytes, b""));
        let f = write(&dir, name, &extend(bytes, b"12345678"));
        let out = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
            .args(["decode", &f])
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("[W2.2]"), "{err}");
    }
}

#[test]
fn json_encode_round_trips_library_messages() {
    let dir = tmpdir("round_trip");
    for (name, bytes) in library_messages() {
        let f = write(&dir, &name, &bytes);
        assert_round_trip(&f, &bytes);
    }
}

#[test]
fn two_buffer_empty_result_says_it_re_encodes_canonically() {
    let dir = tmpdir("two_buffer");
    for order in [Endian::Little, Endian::Big] {
        let full = empty_reply().to_bytes(order).unwrap();
        let msg = MsgView::parse(&full).unwrap();
        let mut b = MsgBuilder::new(order, msg.header());
        b.push(msg.buffer_or_empty(0)).unwrap();
        b.push(msg.buffer_or_empty(1)).unwrap();
        let mut short = Vec::new();
        b.put(&mut short);
        let f = write(&dir, "short.bin", &short);
        assert!(text(&ok(&["decode", &f], None)).contains("not sent: past lm_bufcount"));
        // The JSON holds the value; it re-encodes to the 9-buffer form, and decode says so.
        let out = run(&["decode", "--json", &f], None);
        assert_eq!(out.status.code(), Some(0));
        let note = text(&out.stderr);
        assert!(
            note.contains("re-encodes") && note.contains(&format!("{} bytes", full.len())),
            "{note}"
        );
        let again = ok(&["encode"], Some(&out.stdout));
        assert_eq!(again, full.to_vec(), "{order:?}");
    }
}

#[test]
fn buffers_past_the_protocol_round_trip() {
    // Issue 10 item 11: a request's 7th buffer and a reply's 10th must be empty (W2.2), and
    // the JSON keeps them, so decode --json | encode gives the same bytes.
    let dir = tmpdir("extra_buffers");
    let req = mkdir_request().to_bytes(Endian::Little).unwrap();
    let rep = empty_reply().to_bytes(Endian::Big).unwrap();
    for (name, full, extra) in [("req7.bin", req, &b""[..]), ("rep10.bin", rep, &b""[..])] {
        let msg = MsgView::parse(&full).unwrap();
        let mut b = MsgBuilder::new(msg.order(), msg.header());
        for k in 0..msg.bufcount() {
            b.push(msg.buffer_or_empty(k)).unwrap();
        }
        b.push(extra).unwrap();
        let mut long = Vec::new();
        b.put(&mut long);
        let f = write(&dir, name, &long);
        let json = text(&ok(&["decode", "--json", &f], None));
        let hex: String = extra.iter().map(|b| format!("{b:02x}")).collect();
        let j: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            j["extra_buffers"],
            serde_json::json!([hex]),
            "{name}: {json}"
        );
        assert_round_trip(&f, &long);
    }
}

#[test]
fn hex_input_is_detected() {
    let dir = tmpdir("hex");
    for (name, bytes) in library_messages() {
        let f = write(&dir, &name, &bytes);
        let from_bin = ok(&["decode", &f], None);
        // xxd -p style, plus spaces, tabs, upper case and a trailing newline.
        let mut hex = String::new();
        for (k, b) in bytes.iter().enumerate() {
            hex.push_str(&format!("{b:02X}"));
            hex.push(match k % 30 {
                29 => '\n',
                7 => ' ',
                11 => '\t',
                _ => '\u{0}',
            });
        }
        let hex = hex.replace('\u{0}', "") + "\n";
        let h = write(&dir, &format!("{name}.hex"), hex.as_bytes());
        assert_eq!(
            ok(&["decode", &h], None),
            from_bin,
            "{name} from a hex file"
        );
        assert_eq!(
            ok(&["decode", "-"], Some(hex.as_bytes())),
            from_bin,
            "{name} from hex on stdin"
        );
        assert_eq!(ok(&["decode"], Some(&bytes)), from_bin, "{name} from stdin");
    }
}

#[test]
fn truncated_and_garbage_input_fail_cleanly() {
    let dir = tmpdir("bad_input");
    for (name, bytes) in library_messages() {
        // Where the last non-empty buffer ends: past it only padding, which may be absent.
        let msg = MsgView::parse(&bytes).unwrap();
        let data_end = (0..msg.bufcount())
            .filter(|&i| !msg.buffer_or_empty(i).is_empty())
            .map(|i| msg.buffer_offset(i) + msg.buffer_or_empty(i).len())
            .max()
            .unwrap();
        // Every cut at a step of 7 bytes, and one byte short of the data.
        let cuts = (0..data_end).step_by(7).chain([data_end - 1]);
        for cut in cuts {
            let f = write(&dir, "cut.bin", &bytes[..cut]);
            let err = fails(&["decode", &f], None, 1);
            assert!(
                err.starts_with("dne-intent decode: "),
                "{name}[..{cut}]: {err}"
            );
            assert!(
                err.contains("truncated") || (cut == 0 && err.contains("empty input")),
                "{name}[..{cut}]: {err}"
            );
        }
        // Without the last buffer's padding: refused, as Lustre's lustre_unpack_msg_v2
        // (lustre/ptlrpc/pack_generic.c) refuses an input shorter than the padded buffers.
        if data_end < bytes.len() {
            let f = write(&dir, "unpadded.bin", &bytes[..data_end]);
            let err = fails(&["decode", &f], None, 1);
            assert!(
                err.contains("truncated") && err.contains("[W0.1]"),
                "{name}: {err}"
            );
        }
    }
    let err = fails(&["decode"], Some(&[]), 1);
    assert!(err.contains("empty input"), "{err}");
    let err = fails(&["decode"], Some(b"0bd00bd"), 1);
    assert!(err.contains("odd number"), "{err}");
    // Printable text is a damaged hex dump, never a message (whose lm_bufcount holds zero
    // bytes): it is named as text that is not hex, where it breaks, not decoded as its
    // characters' bytes (which failed on lm_magic).
    let not_hex = "dne-intent decode: standard input: text, but not hex in a form this tool reads \
                (xxd -p, xxd, hexdump -C, or one leading 0x): ";
    let err = fails(
        &["decode"],
        Some(b"this is not a message at all, just words"),
        1,
    );
    assert_eq!(
        err,
        format!("{not_hex}line 1, column 1 has 't', not a hex digit\n")
    );
    let (_, request) = &library_messages()[0];
    let plain: String = request.iter().map(|b| format!("{b:02x}")).collect();
    let lines: Vec<&str> = plain
        .as_bytes()
        .chunks(60)
        .map(|c| std::str::from_utf8(c).unwrap())
        .collect();
    let comment_line = format!("line {}, column 1 has '#'", lines.len() + 1);
    for (damaged, place) in [
        // A non-hex digit on line 3; a comment after the dump; `0x` on every line.
        (
            format!("{}\n{}\ng{}\n", lines[0], lines[1], &lines[2][1..]),
            "line 3, column 1 has 'g'",
        ),
        (
            format!("{}\n# comment\n", lines.join("\n")),
            comment_line.as_str(),
        ),
        (
            format!("0x{}\n0x{}\n", lines[0], lines[1]),
            "line 2, column 2 has 'x'",
        ),
    ] {
        let err = fails(&["decode", "-"], Some(damaged.as_bytes()), 1);
        assert_eq!(
            err,
            format!("{not_hex}{place}, not a hex digit\n"),
            "{damaged}"
        );
    }
    // A dump whose first line starts as xxd's or hexdump -C's is read as one, and named by its
    // first broken line, not by the colon of its first line.
    let rows: Vec<String> = request
        .chunks(16)
        .enumerate()
        .map(|(k, row)| {
            let digits: Vec<String> = row.iter().map(|b| format!("{b:02x}")).collect();
            format!("{:08x}: {}  ................", 16 * k, digits.join(" "))
        })
        .collect();
    // Undamaged, the same rows decode (xxd, and hexdump -C below before its damage).
    let plain_decode = ok(&["decode", "-"], Some(plain.as_bytes()));
    assert_eq!(
        ok(&["decode", "-"], Some(rows.join("\n").as_bytes())),
        plain_decode
    );
    let mut xxd = rows.clone();
    xxd[4] = xxd[4].replacen(": ", ":", 1);
    let err = fails(&["decode", "-"], Some(xxd.join("\n").as_bytes()), 1);
    assert_eq!(
        err,
        "dne-intent decode: standard input: text that starts as xxd output, but line 5: expected \
         a hex offset and \": \"\n"
    );
    let mut hexdump: Vec<String> = rows
        .iter()
        .map(|r| {
            r.replacen(": ", "  ", 1)
                .replace("  ................", "  |................|")
        })
        .collect();
    assert_eq!(
        ok(&["decode", "-"], Some(hexdump.join("\n").as_bytes())),
        plain_decode
    );
    hexdump[2].replace_range(..1, "g");
    let err = fails(&["decode", "-"], Some(hexdump.join("\n").as_bytes()), 1);
    assert_eq!(
        err,
        "dne-intent decode: standard input: text that starts as hexdump -C output, but line 3: \
         expected a hex offset and \"  \"\n"
    );
    let err = fails(&["decode", "-"], Some(b"0x\n"), 1);
    assert_eq!(err, format!("{not_hex}no hex digit after the `0x`\n"));
    // Only white space is empty input.
    let err = fails(&["decode"], Some(b"\n \n"), 1);
    assert_eq!(err, "dne-intent decode: standard input: empty input\n");
    let missing = dir.join("does-not-exist.bin");
    let err = fails(&["decode", missing.to_str().unwrap()], None, 1);
    assert!(err.contains("cannot read"), "{err}");
    // Pseudo-random garbage, and random bytes under a valid header.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let (_, good) = &library_messages()[4];
    for k in 0..40 {
        let mut junk: Vec<u8> = (0..(next() % 700) as usize).map(|_| next() as u8).collect();
        if k % 2 == 0 {
            let keep = good.len().min(40 + k * 17);
            junk.splice(0..0, good[..keep].iter().copied());
        }
        if junk.is_empty() {
            continue;
        }
        let f = write(&dir, "junk.bin", &junk);
        let out = run(&["decode", &f], None);
        let err = text(&out.stderr);
        assert!(!err.contains("panicked"), "panic: {err}");
        assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
    }
}

#[test]
fn rule_breaches_are_reported() {
    let dir = tmpdir("rules");
    let bytes = mkdir_request().to_bytes(Endian::Little).unwrap();
    let f = write(&dir, "req.bin", &bytes);
    // A rule the decoder checks: flip a byte of mcpr_umask.
    let view = MsgView::parse(&bytes).unwrap();
    let mut bad = bytes.to_vec();
    bad[view.buffer_offset(3) + 29] = 0x10;
    let b = write(&dir, "bad.bin", &bad);
    let err = fails(&["decode", &b], None, 1);
    assert!(
        err.contains("md_create_prepare_req.mcpr_umask at offset"),
        "{err}"
    );

    let json: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &f], None)).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = json.clone();
        f(&mut v);
        v.to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        (
            edit(&|v| v["request"]["md_create_prepare_req"]["mcpr_umask"] = 4095.into()),
            "mcpr_umask",
        ),
        (
            edit(&|v| v["request"]["md_create_prepare_req"]["mcpr_child_mode"] = 493.into()),
            "mcpr_child_mode",
        ),
        (edit(&|v| v["request"]["name"] = "a/b".into()), "'/'"),
        (
            edit(&|v| v["request"]["name"] = serde_json::Value::Null),
            "needs an entry name",
        ),
        (
            edit(&|v| v["request"]["md_create_prepare_req"]["mcpr_fsuid"] = (-1).into()),
            "request.md_create_prepare_req.mcpr_fsuid",
        ),
        (
            edit(&|v| v["request"]["md_create_prepare_req"]["mcpr_fsuid"] = "500".into()),
            "request.md_create_prepare_req.mcpr_fsuid",
        ),
        (
            edit(&|v| v["request"]["md_create_prepare_req"]["extra"] = 1.into()),
            "unknown field `extra`",
        ),
        (edit(&|v| v["order"] = "middle".into()), "order"),
        (
            edit(&|v| {
                let q = v["request"].take();
                v["ping"] = q;
            }),
            "unknown field `ping`",
        ),
        (
            edit(&|v| {
                let q = v["request"].clone();
                v["reply"] = q;
            }),
            "reply",
        ),
        (
            edit(&|v| v["request"]["md_create_prepare_req"]["mcpr_fid"] = "[0x1:0x1:0x0]".into()),
            "lock resource",
        ),
        (json.to_string().replacen('}', "", 1), "bad JSON"),
        ("[1, 2]".to_string(), "expected"),
    ];
    for (input, want) in cases {
        let err = fails(&["encode"], Some(input.as_bytes()), 1);
        assert!(err.contains(want), "want {want:?}, got {err}");
    }

    let rep = eexist_reply().to_bytes(Endian::Big).unwrap();
    let r = write(&dir, "rep.bin", &rep);
    let json: serde_json::Value =
        serde_json::from_slice(&ok(&["decode", "--json", &r], None)).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = json.clone();
        f(&mut v);
        v.to_string()
    };
    let rep_body = "/reply/outcome/md_create_prepare_rep";
    let cases: Vec<(String, &str)> = vec![
        (
            edit(&|v| *v.pointer_mut(&format!("{rep_body}/mcpp_status")).unwrap() = 17.into()),
            "positive",
        ),
        (
            edit(&|v| {
                *v.pointer_mut(&format!("{rep_body}/mcpp_valid")).unwrap() =
                    "PATTR|DEF_ACL|LMV".into()
            }),
            "both valid and truncated",
        ),
        (
            edit(&|v| v["reply"]["outcome"]["results"]["MLI_BUF_DEF_ACL"] = "00".into()),
            "mcpp_buf_size[1]",
        ),
        (
            edit(&|v| v["reply"]["outcome"]["results"]["MLI_BUF_DEF_ACL"] = "0g".into()),
            "reply.outcome.results.MLI_BUF_DEF_ACL",
        ),
        (
            edit(&|v| {
                v["reply"]["ldlm_reply"]["lock_policy_res1"] =
                    "DISP_IT_EXECD|DISP_LOOKUP_EXECD".into()
            }),
            "lock_policy_res1",
        ),
    ];
    for (input, want) in cases {
        let err = fails(&["encode"], Some(input.as_bytes()), 1);
        assert!(err.contains(want), "want {want:?}, got {err}");
    }
}

#[test]
fn usage_and_help() {
    let out = run(&["--help"], None);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    assert!(help.contains("decode") && help.contains("encode"), "{help}");
    for args in [
        &["decode", "--help"][..],
        &["help", "encode"],
        &["encode", "-h"],
    ] {
        let out = run(args, None);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        let help = text(&out.stdout);
        assert!(help.contains("Usage: dne-intent "), "{args:?}: {help}");
    }
    for args in [
        &[][..],
        &["frobnicate"],
        &["decode", "--bogus"],
        &["decode", "a", "b"],
        &["encode", "--hex=yes"],
        &["help", "nope"],
    ] {
        let err = fails(args, None, 2);
        assert!(err.contains("Usage: dne-intent"), "{args:?}: {err}");
    }
}

/// Every golden vector of `testdata/` (xattr payloads aside) decodes, and its JSON encodes back
/// to the same bytes.
#[test]
fn golden_vectors_decode_and_round_trip() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata");
    let mut entries: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    let mut seen = 0;
    for path in entries {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !name.ends_with(".bin") || name.starts_with("xattr_") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let p = path.to_str().unwrap();
        let out = text(&ok(&["decode", p], None));
        assert!(out.starts_with("prepare "), "{name}: {out}");
        assert_round_trip(p, &bytes);
        seen += 1;
    }
    assert!(seen > 0, "no message vectors found in {}", dir.display());
}
