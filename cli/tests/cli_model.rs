//! `dne-intent simulate`, `derive` and `check`.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
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
        .expect("stdin written");
    let out = child.wait_with_output().expect("the tool ends");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn simulate_prints_the_survey_rows_exactly() {
    let (code, out, err) = run(&["simulate", "--json"], b"");
    assert_eq!(code, 0, "{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    let want = [
        ("mkdir, remote parent", [8, 1, 10, 3, 2, 2]),
        ("rmdir, remote parent", [2, 0, 4, 2, 3, 3]),
        ("cross-MDT file rename", [9, 4, 11, 6, 3, 3]),
    ];
    assert_eq!(rows.len(), 3);
    for (row, (op, n)) in rows.iter().zip(want) {
        assert_eq!(row["operation"], op);
        let keys = [
            "reads_before",
            "reads_after",
            "out_update_before",
            "out_update_after",
            "enqueues_before",
            "enqueues_after",
        ];
        for (k, v) in keys.iter().zip(n) {
            assert_eq!(row[*k], v, "{op} {k}");
        }
    }
    // A fault brings back exactly the reads it leaves unknown.
    let (_, out, _) = run(
        &[
            "simulate",
            "--json",
            "--fault",
            "unknown-lov",
            "--fault",
            "empty",
        ],
        b"",
    );
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(
        rows[0]["reads_after"], 2,
        "unknown LOV brings back mkdir read 8"
    );
    assert_eq!(
        rows[3]["reads_after"], 7,
        "the empty result brings back mkdir reads 3-8"
    );
    let (code, out, _) = run(&["simulate"], b"");
    assert_eq!(code, 0);
    assert!(
        out.contains(
            "design's measurement: mkdir with a remote parent (prototype): OUT_UPDATE 7 -> 3"
        ),
        "{out}"
    );
    let (code, _, err) = run(&["simulate", "--fault", "bogus"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("unknown fault"), "{err}");
}

const DEF_ACL: &str =
    "0200000001000700ffffffff02000700e803000004000500ffffffff10000700ffffffff20000500ffffffff";

#[test]
fn derive_runs_the_shared_helper() {
    let scenario = format!(
        r#"{{"parent": {{"mode": {}, "uid": 0, "gid": 600, "projid": 7, "flags": 536870912,
            "default_acl": "{DEF_ACL}", "access_acl": null, "entries": ["old"]}},
           "name": "new", "child_mode": {}, "creds": {{"fsuid": 500, "fsgid": 500, "groups": [600], "cap": 0, "umask": 18}}}}"#,
        0o42775, 0o40755
    );
    let (code, out, err) = run(&["derive", "--json"], scenario.as_bytes());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["status"], 0);
    assert_eq!(
        v["mode"], 0o42755,
        "default ACL masks the mode, SGID directory inherits S_ISGID"
    );
    assert_eq!(v["gid"], 600);
    assert_eq!(v["projid"], 7);
    assert_eq!(v["flags"], 0x2000_0000);
    assert_eq!(v["default_acl"], DEF_ACL);
    assert_eq!(
        v["access_acl"],
        "0200000001000700ffffffff02000700e803000004000500ffffffff10000500ffffffff20000500ffffffff",
        "the masked clone: MASK r-x"
    );
    let exists = scenario.replace("\"name\": \"new\"", "\"name\": \"old\"");
    let (_, out, _) = run(&["derive", "--json"], exists.as_bytes());
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&out).expect("JSON")["status"],
        -17
    );
    let (code, _, err) = run(&["derive"], b"{\"parent\": {}}");
    assert_eq!(code, 1);
    assert!(err.contains("parent.mode: missing"), "{err}");
}

#[test]
fn check_reports_reads_and_seeds() {
    let (code, out, err) = run(
        &[
            "check",
            "testdata/mkdir_request.bin",
            "testdata/mkdir_reply_lov_truncated.bin",
        ],
        b"",
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("MLI_BUF_LOV      read after the lock (truncated: 5320 bytes)"),
        "{out}"
    );
    assert!(
        out.contains("MLI_BUF_PATTR    seed the cache (216 bytes)"),
        "{out}"
    );
    assert!(out.contains("seed lookup: negative"), "{out}");
    let (code, out, _) = run(
        &[
            "check",
            "testdata/mkdir_request.bin",
            "testdata/mkdir_reply_empty.bin",
        ],
        b"",
    );
    assert_eq!(code, 0);
    assert!(out.contains("empty result"), "{out}");
    // The unlink reply checked against the mkdir request breaks the granted-lock rule.
    let (code, out, err) = run(
        &[
            "check",
            "testdata/mkdir_request.bin",
            "testdata/unlink_reply.bin",
        ],
        b"",
    );
    assert_eq!(code, 1);
    assert!(out.contains("reply breaks a rule"), "{out}");
    assert!(err.contains("reply:"), "{err}");
}
