//! The conformance runner against the crate's own testee (`dne-intent conform-testee`): clean,
//! lying on chosen cases, dying, hanging, answering garbage or the wrong id; the failure list
//! and JUnit output; and the committed vector set, which must not be stale.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_dne-intent")
}

fn conform(extra: &[&str], testee: &[&str]) -> Output {
    Command::new(bin())
        .arg("conform")
        .args(extra)
        .arg("--")
        .arg(bin())
        .arg("conform-testee")
        .args(testee)
        .output()
        .expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn summary(o: &Output) -> String {
    stdout(o)
        .lines()
        .find(|l| l.starts_with("conform: "))
        .unwrap_or_default()
        .to_owned()
}

fn fail_ids(o: &Output) -> Vec<u64> {
    stdout(o)
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL "))
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect()
}

/// The number of vectors (ids of generated cases start after them).
fn vector_count() -> u64 {
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(committed().join("dne_intent_vectors.json")).unwrap(),
    )
    .unwrap();
    v["numberOfTests"].as_u64().unwrap()
}

#[test]
fn the_crate_passes_its_own_runner() {
    let o = conform(&["--count", "300"], &[]);
    let n = vector_count() + 300;
    assert_eq!(
        summary(&o),
        format!("conform: {n} cases, {n} passed, 0 failed"),
        "{}",
        stdout(&o)
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("per rule: W0.1 "), "{}", stdout(&o));
}

#[test]
fn a_lying_testee_is_reported_with_its_cases() {
    let late = vector_count() + 7;
    let lies = format!("3,150,{late}");
    let o = conform(&["--count", "20"], &["--lie", &lies]);
    assert_eq!(fail_ids(&o), vec![3, 150, late], "{}", stdout(&o));
    let n = vector_count() + 20;
    assert_eq!(
        summary(&o),
        format!("conform: {n} cases, {} passed, 3 failed", n - 3)
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("3 unexpected failures: 3 150 {late}")),
        "{err}"
    );
}

#[test]
fn the_failure_list_turns_known_failures_into_expected_ones() {
    let dir = tempdir("failure-list");
    let list = dir.join("known.txt");
    // 3 and 150 lie and are listed; 5 is listed but passes.
    std::fs::write(&list, "# known\n3\n150 # wrong verdict\n\n5\n").unwrap();
    let junit = dir.join("junit.xml");
    let o = conform(
        &[
            "--count",
            "0",
            "--failure-list",
            list.to_str().unwrap(),
            "--junit",
            junit.to_str().unwrap(),
        ],
        &["--lie", "3,150"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.contains("XFAIL 3 "), "{text}");
    assert!(text.contains("XFAIL 150 "), "{text}");
    assert!(text.contains("UNEXPECTED PASS 5 "), "{text}");
    assert!(!text.contains("UNEXPECTED PASS 3 "), "{text}");
    assert!(fail_ids(&o).is_empty());
    let xml = std::fs::read_to_string(&junit).unwrap();
    let n = vector_count();
    assert!(
        xml.contains(&format!("tests=\"{n}\" failures=\"0\" skipped=\"2\"")),
        "{xml}"
    );
    assert!(xml.contains("<testcase name=\"3\" classname=\"request\">\n    <skipped message=\"canonical bytes differ"), "{xml}");
}

#[test]
fn a_testee_that_dies_hangs_or_answers_garbage_is_reported() {
    let cases: [(&str, &str, &str); 4] = [
        ("--die-at", "10", "the testee died"),
        ("--hang-at", "11", "no answer in 2000 ms (the testee hangs)"),
        ("--garbage-at", "12", "garbage: not JSON"),
        ("--wrong-id-at", "13", "answered id 1013 for case 13"),
    ];
    for (flag, id, what) in cases {
        let o = conform(&["--count", "0", "--timeout-ms", "2000"], &[flag, id]);
        let text = stdout(&o);
        let id: u64 = id.parse().unwrap();
        assert_eq!(fail_ids(&o), vec![id], "{flag}: {text}");
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("FAIL {id} ")))
            .unwrap();
        assert!(line.contains(what), "{flag}: {line}");
        assert_eq!(o.status.code(), Some(1));
        // The runner restarts the testee and the remaining cases pass.
        let n = vector_count();
        assert_eq!(
            summary(&o),
            format!("conform: {n} cases, {} passed, 1 failed", n - 1)
        );
    }
}

#[test]
fn a_testee_that_cannot_start_is_a_usage_error() {
    let o = Command::new(bin())
        .args(["conform", "--count", "0", "--", "/nonexistent/testee"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("cannot start the testee"));
}

fn committed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testdata/vectors")
}

/// `dne-intent vectors --out DIR`, which must succeed; its output.
fn write_vectors(dir: &Path) -> Output {
    let o = Command::new(bin())
        .args(["vectors", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

fn tempdir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dne-intent-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The committed vector set is what the generator writes for the default seed. Regenerate with
/// `DNE_INTENT_REGENERATE_VECTORS=1 cargo test -p dne-intent --test conform`.
#[test]
fn committed_vectors_are_fresh() {
    let dir = if std::env::var_os("DNE_INTENT_REGENERATE_VECTORS").is_some() {
        committed()
    } else {
        tempdir("vectors")
    };
    write_vectors(&dir);
    for f in ["dne_intent_vectors.json", "lustre_dne_prepare_vectors.h"] {
        let fresh = std::fs::read(dir.join(f)).unwrap();
        let kept = std::fs::read(committed().join(f))
            .unwrap_or_else(|e| panic!("testdata/vectors/{f}: {e}"));
        assert!(
            fresh == kept,
            "testdata/vectors/{f} is stale: regenerate with DNE_INTENT_REGENERATE_VECTORS=1 \
             cargo test -p dne-intent --test conform committed_vectors_are_fresh"
        );
    }
}

/// The generated JSON (which `committed_vectors_are_fresh` holds equal to the committed one)
/// has Wycheproof's shape: the top-level members, a note for every flag used, `tcId`s 1..=N, a
/// rule and a list of rules (that rule first) exactly on invalid cases, a request exactly on
/// replies, an xattr name exactly on xattr groups, and lowercase hex of whole bytes.
#[test]
fn generated_json_has_the_documented_shape() {
    let dir = tempdir("shape");
    write_vectors(&dir);
    let text = std::fs::read_to_string(dir.join("dne_intent_vectors.json")).unwrap();
    let mut several = 0;
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["schema"], "dne_intent_vectors_v1");
    assert!(v["generatorVersion"].is_string() && v["seed"] == 0 && v["header"].is_array());
    let notes = v["notes"].as_object().unwrap();
    let hex = |s: &serde_json::Value| {
        let s = s.as_str().unwrap();
        s.len().is_multiple_of(2)
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let mut ids = Vec::new();
    let mut kinds = std::collections::BTreeSet::new();
    for g in v["testGroups"].as_array().unwrap() {
        let kind = g["kind"].as_str().unwrap();
        assert_eq!(g.get("xattr_name").is_some(), kind == "xattr", "{kind}");
        kinds.insert(format!("{kind} {}", g["xattr_name"].as_str().unwrap_or("")));
        for t in g["tests"].as_array().unwrap() {
            ids.push(t["tcId"].as_u64().unwrap());
            assert!(t["comment"].is_string() && hex(&t["hex"]), "{t}");
            for f in t["flags"].as_array().unwrap() {
                assert!(
                    notes.contains_key(f.as_str().unwrap()),
                    "flag {f} has no note"
                );
            }
            let result = t["result"].as_str().unwrap();
            assert!(["valid", "invalid", "acceptable"].contains(&result));
            assert_eq!(t.get("rule").is_some(), result == "invalid", "{t}");
            assert_eq!(t.get("rules").is_some(), result == "invalid", "{t}");
            if let Some(rules) = t.get("rules") {
                let rules: Vec<&str> = rules
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect();
                assert_eq!(rules[0], t["rule"], "{t}");
                assert!(rules.iter().all(|r| r.starts_with('W')), "{t}");
                let unique: std::collections::BTreeSet<&&str> = rules.iter().collect();
                assert_eq!(unique.len(), rules.len(), "{t}");
                several += usize::from(rules.len() > 1);
            }
            assert_eq!(t.get("canonical_hex").is_some(), result != "invalid", "{t}");
            assert_eq!(t.get("request_hex").is_some(), kind == "reply", "{t}");
            if let Some(r) = t.get("request_hex") {
                assert!(hex(r));
            }
        }
    }
    let n = v["numberOfTests"].as_u64().unwrap();
    assert_eq!(ids, (1..=n).collect::<Vec<_>>());
    assert_eq!(kinds.len(), 7, "{kinds:?}");
    // Some vectors break more than one rule (a length over its bound and past the input, ...).
    assert!(several >= 5, "{several} vectors list several rules");
}

/// A testee that checks in another order names another of the rules a case breaks: it passes
/// (one changed field often breaks several rules, and WIRE.md fixes no order).
#[test]
fn any_rule_the_input_breaks_passes() {
    let o = conform(&["--count", "1000"], &["--last-rule"]);
    let n = vector_count() + 1000;
    assert_eq!(
        summary(&o),
        format!("conform: {n} cases, {n} passed, 0 failed"),
        "{}",
        stdout(&o)
    );
}

/// A stray print on the testee's stdout is shown as the text it is, not as the length its first
/// four bytes would make ("debu" read as a length is 1969382756).
#[test]
fn a_stray_print_is_reported_as_text() {
    let o = conform(
        &["--count", "0", "--timeout-ms", "2000"],
        &["--print-at", "12"],
    );
    let text = stdout(&o);
    assert_eq!(fail_ids(&o), vec![12], "{text}");
    let line = text.lines().find(|l| l.starts_with("FAIL 12 ")).unwrap();
    assert!(
        line.contains(r#"garbage: testee wrote "debu..." where a frame header was expected"#),
        "{line}"
    );
    assert!(!line.contains("1969382756"), "{line}");
}

/// `--only ID` runs that one case, a vector or a generated one, and nothing else.
#[test]
fn only_runs_one_case() {
    let generated = vector_count() + 5;
    for id in [7, generated] {
        let o = conform(
            &["--count", "10", "--only", &id.to_string()],
            &["--lie", &id.to_string()],
        );
        assert_eq!(fail_ids(&o), vec![id], "{}", stdout(&o));
        assert_eq!(summary(&o), "conform: 1 cases, 0 passed, 1 failed");
    }
    let o = conform(&["--count", "10", "--only", "3"], &[]);
    assert_eq!(summary(&o), "conform: 1 cases, 1 passed, 0 failed");
    assert_eq!(o.status.code(), Some(0));
    // An id past the session is a usage error that says which ids there are.
    let past = vector_count() + 11;
    let o = conform(&["--count", "10", "--only", &past.to_string()], &[]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "no case {past}: this session has cases 1..={}",
            past - 1
        )),
        "{err}"
    );
}

/// `--dump ID` prints a case (no testee is needed) and `--dump-to DIR` writes its input, its
/// request and its question as a frame; the frame fed to the crate's testee by hand gets the
/// expected answer.
#[test]
fn dump_writes_a_case_that_can_be_fed_by_hand() {
    let dir = tempdir("dump");
    let id = vector_count() + 2;
    let o = Command::new(bin())
        .args([
            "conform",
            "--count",
            "4",
            "--dump",
            &id.to_string(),
            "--dump-to",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = stdout(&o);
    assert!(text.starts_with(&format!("case {id} ")), "{text}");
    let hex = text
        .lines()
        .find_map(|l| l.strip_prefix("hex: "))
        .unwrap()
        .to_owned();
    let input = std::fs::read(dir.join(format!("case-{id}.bin"))).unwrap();
    assert_eq!(hex_of(&input), hex);
    let question = text
        .lines()
        .find_map(|l| l.strip_prefix("question: "))
        .unwrap();
    let q: serde_json::Value = serde_json::from_str(question).unwrap();
    assert_eq!(q["id"], id);
    assert_eq!(q["hex"], hex.as_str());
    let frame = std::fs::read(dir.join(format!("case-{id}.frame"))).unwrap();
    assert_eq!(frame[..4], (question.len() as u32).to_le_bytes());
    assert_eq!(&frame[4..], question.as_bytes());
    let expected = text
        .lines()
        .find_map(|l| l.strip_prefix("expected: "))
        .unwrap();
    // The crate's testee, fed the frame, answers with the expected verdict.
    let answer = Command::new(bin())
        .arg("conform-testee")
        .stdin(std::fs::File::open(dir.join(format!("case-{id}.frame"))).unwrap())
        .output()
        .unwrap();
    assert!(answer.status.success());
    let a: serde_json::Value = serde_json::from_slice(&answer.stdout[4..]).unwrap();
    assert_eq!(a["id"], id);
    let verdict = a["verdict"].as_str().unwrap();
    assert!(
        expected.starts_with(verdict) || (verdict == "valid" && expected == "acceptable"),
        "{expected} / {a}"
    );
    // A vector reply dumps its request too.
    let reply = first_reply_id();
    let o = Command::new(bin())
        .args([
            "conform",
            "--count",
            "0",
            "--dump",
            &reply.to_string(),
            "--dump-to",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    assert!(dir.join(format!("case-{reply}.request.bin")).exists());
    assert!(stdout(&o).contains("request_hex: "), "{}", stdout(&o));
    // An unknown id is a usage error.
    let o = Command::new(bin())
        .args(["conform", "--count", "0", "--dump", "999999"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
}

/// A failure list naming a case the session does not have is refused, with the names.
#[test]
fn a_failure_list_naming_unknown_cases_is_refused() {
    let dir = tempdir("unknown-list");
    let list = dir.join("known.txt");
    let n = vector_count();
    std::fs::write(&list, format!("3\n{}\n{}\n", n + 1, n + 50)).unwrap();
    let o = conform(
        &["--count", "10", "--failure-list", list.to_str().unwrap()],
        &[],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stdout(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!(
            "no such case: {} (this session, seed 0 and --count 10, has cases 1..={})",
            n + 50,
            n + 10
        )),
        "{err}"
    );
    assert!(summary(&o).is_empty(), "no case ran: {}", stdout(&o));
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The tcId of the first reply vector.
fn first_reply_id() -> u64 {
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(committed().join("dne_intent_vectors.json")).unwrap(),
    )
    .unwrap();
    v["testGroups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["kind"] == "reply")
        .unwrap()["tests"][0]["tcId"]
        .as_u64()
        .unwrap()
}

/// The counts of cases a text states, each with the number it must equal given the number of
/// vectors: every `"numberOfTests": N` (but the example's 0), `N conformance vectors` and
/// `conform: N cases` (vectors plus the `--count K` stated before it, 1000 if none).
fn stated_counts(text: &str, vectors: u64) -> Vec<(u64, u64, String)> {
    let num = |s: &str| {
        s.trim_matches(|c: char| !c.is_ascii_digit())
            .parse::<u64>()
            .ok()
    };
    let mut out = Vec::new();
    let mut count = 1000;
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        for (i, w) in words.iter().enumerate() {
            let next = |k: usize| words.get(i + k).copied().unwrap_or("");
            if *w == "--count"
                && let Some(k) = num(next(1))
            {
                count = k;
            }
            let stated = if *w == "\"numberOfTests\":" {
                num(next(1)).filter(|&n| n != 0).map(|n| (n, vectors))
            } else if *w == "conform:" {
                num(next(1)).map(|n| (n, vectors + count))
            } else if next(1) == "conformance" && next(2).starts_with("vectors") {
                num(w).map(|n| (n, vectors))
            } else {
                None
            };
            if let Some((n, want)) = stated {
                out.push((n, want, line.to_owned()));
            }
        }
    }
    out
}

/// The docs state no count of cases that has drifted: each count README.md,
/// docs/conformance.md and fuzz/README.md state is the generator's current one.
#[test]
fn the_docs_state_no_stale_count() {
    // The scanner finds the forms it looks for (docs that name a form the scanner misses go stale unnoticed).
    let old = "  \"numberOfTests\": 412,\nconform --count 2000 -- ./testee\n\
               # conform: 2400 cases, 2400 passed\nThe seeds are the 405 conformance vectors";
    let found: Vec<(u64, u64)> = stated_counts(old, 395)
        .into_iter()
        .map(|(n, want, _)| (n, want))
        .collect();
    assert_eq!(found, [(412, 395), (2400, 2395), (405, 395)]);
    let dir = tempdir("doc-counts");
    let o = write_vectors(&dir);
    let vectors: u64 = stdout(&o).split(' ').next().unwrap().parse().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for doc in ["README.md", "docs/conformance.md", "fuzz/README.md"] {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        for (n, want, line) in stated_counts(&text, vectors) {
            assert_eq!(n, want, "{doc}: {line:?} states a stale count");
        }
    }
}
