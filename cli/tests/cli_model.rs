//! `dne-intent simulate`, `derive` and `check`.

use lustre_dne_intent_model::{Fault, Op, Prepared, Scenario, survey};
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
        ("mkdir", "mkdir, remote parent", [9, 1, 11, 3, 2, 2]),
        ("rmdir", "rmdir, remote parent", [2, 0, 4, 2, 3, 3]),
        (
            "file-rename",
            "cross-MDT file rename, target does not exist",
            [9, 4, 11, 6, 3, 3],
        ),
        (
            "file-rename-over-target",
            "cross-MDT file rename, target exists",
            [12, 6, 14, 8, 3, 3],
        ),
        (
            "dir-rename",
            "cross-MDT directory rename",
            [3, 2, 9, 8, 1, 1],
        ),
    ];
    assert_eq!(rows.len(), 5);
    let keys = [
        "reads_before",
        "reads_after",
        "out_update_before",
        "out_update_after",
        "enqueues_before",
        "enqueues_after",
    ];
    for (line, (id, op, n)) in rows.iter().zip(want) {
        assert_eq!(line["fault"], "none");
        assert_eq!(line["op"], id);
        let row = &line["row"];
        assert_eq!(row["operation"], op);
        for (k, v) in keys.iter().zip(n) {
            assert_eq!(row[*k], v, "{op} {k}");
        }
    }
    // The design's figures beside the rows: the survey's mkdir, the prototype's renames.
    assert_eq!(
        rows[0]["design"][0],
        serde_json::json!({"source": "survey", "reads_before": 8, "reads_after": null,
            "out_update_before": 10, "out_update_after": null,
            "enqueues_before": 2, "enqueues_after": null})
    );
    let proto = |i: usize, k: usize| rows[i]["design"][k].clone();
    assert_eq!(proto(0, 1)["source"], "prototype");
    for (i, k, figures) in [
        (0, 1, [5, 1, 7, 3, 2, 2]),
        (2, 1, [10, 5, 12, 7, 4, 4]),
        (3, 0, [14, 7, 16, 9, 4, 4]),
    ] {
        for (key, v) in keys.iter().zip(figures) {
            assert_eq!(proto(i, k)[*key], v, "{i} {key}");
        }
    }
    assert_eq!(proto(4, 0)["out_update_before"], 9);
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
    assert_eq!(rows.len(), 10);
    assert_eq!(rows[0]["fault"], "unknown-lov");
    assert_eq!(
        rows[0]["row"]["reads_after"], 2,
        "unknown LOV brings back mkdir's default LOV read"
    );
    assert_eq!(rows[5]["fault"], "empty");
    assert_eq!(
        rows[5]["row"]["reads_after"], 8,
        "the empty result brings back every mkdir read but the lockless lookup"
    );
    let (code, out, _) = run(&["simulate"], b"");
    assert_eq!(code, 0);
    for line in [
        "mkdir, remote parent (fault: none)\n  sync reads        9 ->  1   design: survey 8, prototype 5 -> 1\n",
        "  OUT_UPDATE total 11 ->  3   design: survey 10, prototype 7 -> 3\n",
        "cross-MDT file rename, target exists (fault: none)\n  sync reads       12 ->  6   design: prototype 14 -> 7\n",
        "  LDLM enqueues     1 ->  1   design: survey 1\n",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    // Each read of the standard run, with where it happens and what intents did to it.
    assert!(
        out.contains(
            "    lockless pre-lock lookup             lookup \"newdir\" in [0x200000401:0x1:0x0]                   from the reply / skipped\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "    after the lock, no result covers it  xattr_get linkEA of [0x200000401:0x3:0x0]                  read\n"
        ),
        "{out}"
    );
    let (code, _, err) = run(&["simulate", "--fault", "bogus"], b"");
    assert_eq!(code, 2);
    assert!(err.contains("unknown fault; known: none, "), "{err}");
    // The group count is named once, with its range, not as the two counts of Fault::all.
    assert!(
        err.contains(", partial-groups-N (N from 0 to 255)\n"),
        "{err}"
    );
    assert!(!err.contains("partial-groups-0"), "{err}");
    for bad in ["partial-groups-abc", "partial-groups-256"] {
        let (code, _, err) = run(&["simulate", "--fault", bad], b"");
        assert_eq!(code, 2, "{bad}");
        assert!(
            err.contains(&format!(
                "invalid value '{bad}' for '--fault <FAULT>': partial-groups-N takes a group \
                 count N from 0 to 255"
            )),
            "{err}"
        );
    }
    let (code, out, err) = run(&["simulate", "--fault", "partial-groups-9"], b"");
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("(fault: partial-groups-9)"), "{out}");
}

/// A `simulate --json` line, read with the library's serde forms alone.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct SimulateLine {
    fault: Fault,
    op: survey::DesignOp,
    row: survey::Row,
    design: Vec<survey::Figure>,
}

#[test]
fn simulate_json_is_the_librarys_rows() {
    let faults = ["none", "partial-groups-3", "truncated-lov"];
    let mut args = vec!["simulate", "--json"];
    for f in faults {
        args.extend(["--fault", f]);
    }
    let (code, out, err) = run(&args, b"");
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    let ops = survey::DesignOp::ALL;
    assert_eq!(lines.len(), 3 * ops.len());
    for (k, line) in lines.iter().enumerate() {
        let l: SimulateLine = serde_json::from_str(line).expect("a line of the library's forms");
        let fault: Fault = faults[k / ops.len()].parse().expect("fault");
        assert_eq!(l.fault, fault);
        let op = ops[k % ops.len()];
        assert_eq!(l.op, op);
        assert_eq!(l.row, survey::row(op, fault).expect("holds"), "{line}");
        assert_eq!(l.design, op.figures(), "{line}");
        // And it writes back what it read.
        let again =
            serde_json::json!({"fault": l.fault, "op": l.op, "row": l.row, "design": l.design})
                .to_string();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&again).unwrap(),
            serde_json::from_str::<serde_json::Value>(line).unwrap()
        );
    }
}

const DEF_ACL: &str =
    "0200000001000700ffffffff02000700e803000004000500ffffffff10000700ffffffff20000500ffffffff";

fn scenario() -> serde_json::Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/model/derive_sgid.json"
    ))
    .expect("scenario");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn derive_runs_the_shared_helper() {
    let sc = scenario();
    // The scenario is the library's model::Scenario.
    let parsed: Scenario = serde_json::from_value(sc.clone()).expect("a Scenario");
    assert!(matches!(parsed.op, Op::Create { .. }));
    let (code, out, err) = run(&["derive", "--json"], sc.to_string().as_bytes());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["status"], 0);
    assert_eq!(v["lookup"], "negative");
    let c = &v["child"];
    assert_eq!(
        c["mode"], 0o42755,
        "default ACL masks the mode, SGID directory inherits S_ISGID"
    );
    assert_eq!(c["gid"], 600);
    assert_eq!(c["projid"], 7);
    assert_eq!(c["flags"], 0x2000_0000);
    assert_eq!(c["default_acl"], DEF_ACL);
    assert_eq!(
        c["access_acl"],
        "0200000001000700ffffffff02000700e803000004000500ffffffff10000500ffffffff20000500ffffffff",
        "the masked clone: MASK r-x"
    );
    // The output is the library's Prepared, and round-trips.
    let p: Prepared = serde_json::from_str(&out).expect("a Prepared");
    assert_eq!(p.child.as_ref().map(|c| c.mode), Some(0o42755));
    assert_eq!(serde_json::to_string_pretty(&p).unwrap() + "\n", out);
    // The text form says the same.
    let (code, text, err) = run(&["derive"], sc.to_string().as_bytes());
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        text,
        "status       0\n\
         mode         042755 (S_IFDIR, drwxr-sr-x)\n\
         gid          600\n\
         projid       7\n\
         flags        0x20000000\n\
         access_acl:\n    user::rwx\n    user:1000:rwx\t#effective:r-x\n    group::r-x\n    \
         mask::r-x\n    other::r-x\n\
         default_acl:\n    default:user::rwx\n    default:user:1000:rwx\n    \
         default:group::r-x\n    default:mask::rwx\n    default:other::r-x\n"
    );

    let mut exists = sc.clone();
    exists["op"]["create"]["name"] = "old".into();
    let (_, out, _) = run(&["derive", "--json"], exists.to_string().as_bytes());
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(v["status"], -17);
    assert!(v["child"].is_null());
    assert_eq!(v["lookup"]["positive"]["fid"], "[0x200000401:0x100:0x0]");
    // Errors name the JSON path.
    let (code, _, err) = run(
        &["derive"],
        b"{\"store\": {\"objects\": {}}, \"creds\": {\"fsuid\": \"x\"}}",
    );
    assert_eq!(code, 1);
    assert!(err.contains("creds.fsuid: invalid type"), "{err}");
    let mut bad = sc.clone();
    bad["store"]["objects"]["[0x200000401:0x1:0x0]"]["attrs"]["colour"] = "red".into();
    let (code, _, err) = run(&["derive"], bad.to_string().as_bytes());
    assert_eq!(code, 1);
    assert!(
        err.contains("store.objects.[0x200000401:0x1:0x0].attrs.colour: unknown field"),
        "{err}"
    );
    let mut unlink = sc;
    unlink["op"] =
        serde_json::json!({"unlink": {"parent": "[0x200000401:0x1:0x0]", "name": "old"}});
    let (code, _, err) = run(&["derive"], unlink.to_string().as_bytes());
    assert_eq!(code, 1);
    assert!(
        err.contains("op: derive runs the helper for a create"),
        "{err}"
    );
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

/// A mkdir reply that derives a regular file is refused for its file type (W7.19), and one of
/// no file type even without its request (W7.18); the coordinator then reads for itself.
#[test]
fn check_refuses_a_mkdir_reply_deriving_a_file() {
    let mut reply = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../testdata/mkdir_reply_complete.bin"
    ))
    .expect("golden reply");
    // mcpp_child_mode, at 400 in this little-endian reply (testdata/mkdir_reply_complete.md).
    assert_eq!(reply[400..404], 0o042_755u32.to_le_bytes());
    reply[400..404].copy_from_slice(&0o100_755u32.to_le_bytes());
    let (code, out, err) = run(&["check", "testdata/mkdir_request.bin", "-"], &reply);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains(
            "reply breaks a rule: md_create_prepare_rep.mcpp_child_mode at offset 400: derived \
             child mode 0o100755 is not of the requested file type (0o40755) [W7.19]"
        ),
        "{out}"
    );
    assert!(out.contains("treats it as the empty result"), "{out}");
    assert!(err.contains("[W7.19]"), "{err}");
    reply[400..404].copy_from_slice(&0o176_755u32.to_le_bytes());
    let (code, out, _) = run(&["check", "testdata/mkdir_request.bin", "-"], &reply);
    assert_eq!(code, 1);
    assert!(
        out.contains("derived child mode 0o176755 is not a file type"),
        "{out}"
    );
    assert!(out.contains("[W7.18]"), "{out}");
    let (code, _, err) = run(&["decode", "-"], &reply);
    assert_eq!(code, 1);
    assert!(err.contains("[W7.18]"), "{err}");
}
