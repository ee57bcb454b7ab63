//! The reference C testee, `conformance/testee/`, held against the crate's decoders.
//!
//! Builds it from every `.c` file there with `cc -O2 -Wall -Werror -Wextra -Iinclude`, drives it through the runner
//! protocol of issue 13 (frames of a 4-byte LE length and UTF-8 JSON over stdin/stdout), and
//! checks every answer against the crate: the verdict, the rule ID of an invalid case
//! (`ErrorKind::rule`), and for a valid case the canonical bytes (the decoded value encoded
//! little-endian). The cases are the golden vectors of `testdata/` (replies with the request each
//! answers), the real payloads of `testdata/real/`, the fuzz corpora, and mutations of the
//! vectors: every truncation, every single-bit flip, and boundary values written over each
//! aligned word.

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{ReplyContext, ReplyView, RequestView};
use lustre_dne_intent::xattr::{AclView, DefaultLmvView, LmvView, LovView, PinView, XattrEncode};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The request each golden reply answers (testdata/*.md, first line).
const REPLIES: [(&str, &str); 9] = [
    ("mkdir_reply_complete", "mkdir_request"),
    ("mkdir_reply_absent", "mkdir_request"),
    ("mkdir_reply_eexist", "mkdir_request"),
    ("mkdir_reply_empty", "mkdir_request"),
    ("mkdir_reply_lov_truncated", "mkdir_request"),
    ("mkdir_reply_advisory", "mkdir_request_partial"),
    ("mkdir_reply_be", "mkdir_request_be"),
    ("rename_object_reply", "rename_object_request"),
    ("unlink_reply", "unlink_request"),
];

const REQUESTS: [&str; 5] = [
    "mkdir_request",
    "mkdir_request_partial",
    "mkdir_request_be",
    "rename_object_request",
    "unlink_request",
];

/// The xattr names the spec knows (WIRE.md §9), one per payload kind.
const XATTR_NAMES: [&str; 5] = [
    "system.posix_acl_default",
    "trusted.pin",
    "trusted.lmv",
    "trusted.dmv",
    "trusted.lov",
];

fn load(rel: &str) -> Vec<u8> {
    let path = Path::new(ROOT).join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The xattr name of a payload file, from its name (`xattr_acl_*`, `lmv_*`, ...).
fn xattr_name_of(file: &str) -> &'static str {
    let stem = file.strip_prefix("xattr_").unwrap_or(file);
    match stem.split('_').next() {
        Some("acl") => "system.posix_acl_default",
        Some("pin") => "trusted.pin",
        Some("lmv") => "trusted.lmv",
        Some("dmv") => "trusted.dmv",
        Some("lov") => "trusted.lov",
        _ => panic!("{file}: no xattr kind in its name"),
    }
}

#[derive(Debug, Clone)]
enum Kind {
    Request,
    Reply(Vec<u8>),
    Xattr(&'static str),
}

#[derive(Debug, Clone)]
struct Case {
    what: String,
    kind: Kind,
    bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Verdict {
    Valid(Vec<u8>),
    Invalid(String),
    Unsupported,
}

// ---- the crate's verdicts ----

fn expect_request(bytes: &[u8]) -> Verdict {
    match RequestView::parse(bytes) {
        Ok(v) => Verdict::Valid(v.to_value().to_bytes(Endian::Little).unwrap().to_vec()),
        Err(e) => Verdict::Invalid(e.rule().to_string()),
    }
}

fn reply_context(request: &[u8]) -> Option<ReplyContext> {
    RequestView::parse(request).ok().map(|r| r.reply_context())
}

fn expect_reply(bytes: &[u8], request: &[u8]) -> Verdict {
    let Some(ctx) = reply_context(request) else {
        return Verdict::Unsupported;
    };
    match ReplyView::parse_for(bytes, &ctx) {
        Ok(v) => Verdict::Valid(v.to_value().to_bytes(Endian::Little).unwrap().to_vec()),
        Err(e) => Verdict::Invalid(e.rule().to_string()),
    }
}

fn expect_xattr(name: &str, bytes: &[u8]) -> Verdict {
    let canonical = match name {
        "system.posix_acl_access" | "system.posix_acl_default" => {
            AclView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.pin" | "lustre.pin" => {
            PinView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.lmv" | "lustre.lmv" => {
            LmvView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.dmv" | "lustre.dmv" => {
            DefaultLmvView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        "trusted.lov" | "lustre.lov" => {
            LovView::parse(bytes).map(|v| v.to_value().to_bytes().unwrap())
        }
        _ => return Verdict::Unsupported,
    };
    match canonical {
        Ok(b) => Verdict::Valid(b.to_vec()),
        Err(e) => Verdict::Invalid(e.rule().to_string()),
    }
}

fn expect(case: &Case) -> Verdict {
    match &case.kind {
        Kind::Request => expect_request(&case.bytes),
        Kind::Reply(req) => expect_reply(&case.bytes, req),
        Kind::Xattr(name) => expect_xattr(name, &case.bytes),
    }
}

// ---- the testee ----

/// The testee's sources: every `.c` file of `conformance/testee/`, in name order (what the
/// documented `cc ... conformance/testee/*.c` compiles).
fn testee_sources() -> Vec<PathBuf> {
    let dir = Path::new(ROOT).join("conformance/testee");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("conformance/testee/ is in the tree")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    files.sort();
    assert!(
        files.iter().any(|p| p.ends_with("testee.c")),
        "conformance/testee/testee.c (main) is missing"
    );
    files
}

/// Builds the testee once for all the tests of this file (they run in parallel, and a second
/// `cc` writing the binary while a test starts it would race). `DNE_C_TESTEE=PATH` runs a testee
/// built elsewhere instead (for example with `-fsanitize=address,undefined`).
fn build_testee() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("DNE_C_TESTEE") {
                return PathBuf::from(path);
            }
            let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("testee");
            let status = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
                .args(["-O2", "-Wall", "-Werror", "-Wextra", "-Iinclude", "-o"])
                .arg(&out)
                .args(testee_sources())
                .current_dir(ROOT)
                .status()
                .expect("cc runs (a C compiler is needed for this test)");
            assert!(
                status.success(),
                "conformance/testee/ does not build cleanly"
            );
            out
        })
        .clone()
}

struct Testee {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: ChildStdout,
}

/// The runner's frame for one case.
fn frame(id: usize, case: &Case) -> String {
    let extra = match &case.kind {
        Kind::Request => r#""kind": "request""#.to_owned(),
        Kind::Reply(req) => format!(r#""kind": "reply", "request_hex": "{}""#, hex(req)),
        Kind::Xattr(name) => format!(r#""kind": "xattr", "xattr_name": "{name}""#),
    };
    format!(r#"{{"id": {id}, {extra}, "hex": "{}"}}"#, hex(&case.bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd hex from the testee");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex from the testee"))
        .collect()
}

impl Testee {
    fn start(path: &Path) -> Self {
        Self::start_with_stderr(path, Stdio::inherit())
    }

    fn start_with_stderr(path: &Path, stderr: Stdio) -> Self {
        let mut child = Command::new(path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .spawn()
            .expect("the testee starts");
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        Testee {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, json: &str) {
        let len = (json.len() as u32).to_le_bytes();
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(&len).unwrap();
        stdin.write_all(json.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn receive(&mut self) -> String {
        let mut len = [0u8; 4];
        self.stdout.read_exact(&mut len).expect("an answer frame");
        let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
        self.stdout.read_exact(&mut body).expect("the whole frame");
        String::from_utf8(body).expect("UTF-8 JSON")
    }

    fn ask(&mut self, id: usize, case: &Case) -> Verdict {
        self.send(&frame(id, case));
        parse_answer(id, &self.receive())
    }

    /// Asks every case, writing from a second thread while answers are read, so that the pipe
    /// round trip is not paid once per case.
    fn ask_all(&mut self, cases: &[Case]) -> Vec<Verdict> {
        let frames: Vec<String> = cases.iter().enumerate().map(|(i, c)| frame(i, c)).collect();
        let mut stdin = self.stdin.take().expect("stdin open");
        let writer = std::thread::spawn(move || {
            for f in frames {
                stdin.write_all(&(f.len() as u32).to_le_bytes()).unwrap();
                stdin.write_all(f.as_bytes()).unwrap();
            }
            stdin.flush().unwrap();
            stdin
        });
        let answers = (0..cases.len())
            .map(|i| parse_answer(i, &self.receive()))
            .collect();
        self.stdin = Some(writer.join().expect("the writer thread"));
        answers
    }

    /// Closes stdin and expects a clean exit.
    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "the testee exits with {status}");
    }
}

/// The value of `"key": ` in the testee's answer: a string, or `None` for null.
fn field<'a>(json: &'a str, key: &str) -> Option<&'a str> {
    let at = json.find(&format!("\"{key}\": ")).unwrap_or_else(|| {
        panic!("answer {json:.200} has no {key}");
    });
    let rest = &json[at + key.len() + 4..];
    if rest.starts_with("null") {
        return None;
    }
    let rest = rest.strip_prefix('"').expect("a string or null");
    Some(&rest[..rest.find('"').expect("a closed string")])
}

fn parse_answer(id: usize, json: &str) -> Verdict {
    assert!(
        json.starts_with(&format!("{{\"id\": {id}, ")) && json.ends_with('}'),
        "answer {json:.200} is not for case {id}"
    );
    let rule = field(json, "rule");
    let canonical = field(json, "canonical_hex");
    match field(json, "verdict") {
        Some("valid") => {
            assert_eq!(rule, None, "a valid answer names no rule");
            Verdict::Valid(unhex(canonical.expect("canonical_hex of a valid case")))
        }
        Some("invalid") => {
            assert_eq!(canonical, None, "an invalid answer has no canonical_hex");
            Verdict::Invalid(rule.expect("an invalid answer names its rule").to_owned())
        }
        Some("unsupported") => Verdict::Unsupported,
        v => panic!("verdict {v:?}"),
    }
}

// ---- the cases ----

fn vectors() -> Vec<Case> {
    let mut cases = Vec::new();
    for name in REQUESTS {
        cases.push(Case {
            what: name.to_owned(),
            kind: Kind::Request,
            bytes: load(&format!("testdata/{name}.bin")),
        });
    }
    for (reply, request) in REPLIES {
        cases.push(Case {
            what: reply.to_owned(),
            kind: Kind::Reply(load(&format!("testdata/{request}.bin"))),
            bytes: load(&format!("testdata/{reply}.bin")),
        });
    }
    for dir in ["testdata", "testdata/real"] {
        let mut files: Vec<String> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f.ends_with(".bin"))
            .filter(|f| dir != "testdata" || f.starts_with("xattr_"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.trim_end_matches(".bin");
            cases.push(Case {
                what: format!("{dir}/{stem}"),
                kind: Kind::Xattr(xattr_name_of(stem)),
                bytes: load(&format!("{dir}/{f}")),
            });
        }
    }
    cases
}

/// Every truncation, every single-bit flip, and boundary values over each aligned word.
fn mutations(base: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let mut push = |what: String, bytes: Vec<u8>| {
        out.push(Case {
            what: format!("{} {what}", base.what),
            kind: base.kind.clone(),
            bytes,
        })
    };
    let b = &base.bytes;
    for len in 0..b.len() {
        push(format!("cut to {len}"), b[..len].to_vec());
    }
    for i in 0..b.len() {
        for bit in 0..8 {
            let mut m = b.clone();
            m[i] ^= 1 << bit;
            push(format!("byte {i} bit {bit} flipped"), m);
        }
    }
    for i in (0..b.len().saturating_sub(3)).step_by(4) {
        let w = u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        for v in [
            0,
            1,
            u32::MAX,
            w.wrapping_add(1),
            w.wrapping_sub(1),
            w.swap_bytes(),
        ] {
            let mut m = b.clone();
            m[i..i + 4].copy_from_slice(&v.to_le_bytes());
            push(format!("word {i} = {v:#x}"), m);
        }
    }
    out
}

/// A reply case whose request is mutated instead (the rules that need the request).
fn request_mutations(reply: &Case) -> Vec<Case> {
    let Kind::Reply(req) = &reply.kind else {
        return Vec::new();
    };
    let base = Case {
        what: String::new(),
        kind: Kind::Request,
        bytes: req.clone(),
    };
    mutations(&base)
        .into_iter()
        .filter(|m| RequestView::parse(&m.bytes).is_ok())
        .map(|m| Case {
            what: format!("{} with request{}", reply.what, m.what),
            kind: Kind::Reply(m.bytes),
            bytes: reply.bytes.clone(),
        })
        .collect()
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(ROOT).join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}

// ---- the comparison ----

#[derive(Default)]
struct Tally {
    cases: usize,
    valid: usize,
    rules: std::collections::BTreeMap<String, usize>,
    failures: Vec<String>,
}

impl Tally {
    /// Asks the testee every case and compares each answer with the crate's verdict.
    fn run(testee: &mut Testee, cases: &[Case]) -> Tally {
        let mut tally = Tally::default();
        let answers = testee.ask_all(cases);
        for (case, got) in cases.iter().zip(answers) {
            let want = expect(case);
            tally.cases += 1;
            match &want {
                Verdict::Valid(_) => tally.valid += 1,
                Verdict::Invalid(r) => *tally.rules.entry(r.clone()).or_default() += 1,
                Verdict::Unsupported => {}
            }
            if got != want && tally.failures.len() < 20 {
                tally.failures.push(format!(
                    "{}: crate {}, testee {}",
                    case.what,
                    show(&want),
                    show(&got)
                ));
            }
        }
        tally
    }

    fn assert_clean(&self) {
        assert!(
            self.failures.is_empty(),
            "{} cases; the testee disagrees with the crate on:\n{}",
            self.cases,
            self.failures.join("\n")
        );
    }
}

fn show(v: &Verdict) -> String {
    match v {
        Verdict::Valid(b) => format!("valid ({} canonical bytes, {:.64}…)", b.len(), hex(b)),
        Verdict::Invalid(r) => format!("invalid {r}"),
        Verdict::Unsupported => "unsupported".to_owned(),
    }
}

#[test]
fn golden_vectors_are_valid_and_canonical() {
    let mut t = Testee::start(&build_testee());
    let cases = vectors();
    let tally = Tally::run(&mut t, &cases);
    tally.assert_clean();
    // Everything is valid (the stored masters without their FID table too: the header-only
    // form, WIRE.md §9), and the little-endian golden requests are their own canonical form.
    assert!(tally.rules.is_empty(), "{:?}", tally.rules);
    assert_eq!(tally.valid, tally.cases);
    for case in cases.iter().filter(|c| matches!(c.kind, Kind::Request)) {
        if !case.what.ends_with("_be") {
            assert_eq!(
                expect(case),
                Verdict::Valid(case.bytes.clone()),
                "{}",
                case.what
            );
        }
    }
    t.finish();
}

/// The buffers of a message (lengths from its header, in its byte order).
fn split(msg: &[u8]) -> (bool, [u8; 32], Vec<Vec<u8>>) {
    let be = msg[8..12] == [0x0B, 0xD0, 0x0B, 0xD3];
    let word = |b: &[u8]| {
        let w: [u8; 4] = b[..4].try_into().unwrap();
        if be {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    let n = word(msg) as usize;
    let mut off = (32 + 4 * n + 7) & !7;
    let mut bufs = Vec::new();
    for i in 0..n {
        let len = word(&msg[32 + 4 * i..]) as usize;
        bufs.push(msg[off..off + len].to_vec());
        off += (len + 7) & !7;
    }
    (be, msg[..32].try_into().unwrap(), bufs)
}

/// A message with the header of `hdr` and these buffers (zero padding).
fn join(be: bool, hdr: &[u8; 32], bufs: &[Vec<u8>]) -> Vec<u8> {
    let word = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
    let mut m = hdr.to_vec();
    m[..4].copy_from_slice(&word(bufs.len() as u32));
    for b in bufs {
        m.extend_from_slice(&word(b.len() as u32));
    }
    m.resize((m.len() + 7) & !7, 0);
    for b in bufs {
        m.extend_from_slice(b);
        m.resize((m.len() + 7) & !7, 0);
    }
    m
}

/// Re-framed messages: a buffer lengthened or shortened, buffers added past the last one
/// (empty and not), trailing buffers dropped. These reach the rules of buffer counts and
/// lengths (W2.1, W2.2, W0.2, W8.2) that byte mutations rarely do.
fn reframings(base: &Case) -> Vec<Case> {
    if matches!(base.kind, Kind::Xattr(_)) {
        return Vec::new();
    }
    let (be, hdr, bufs) = split(&base.bytes);
    let mut out = Vec::new();
    let mut push = |what: String, b: Vec<Vec<u8>>| {
        out.push(Case {
            what: format!("{} {what}", base.what),
            kind: base.kind.clone(),
            bytes: join(be, &hdr, &b),
        })
    };
    for i in 0..bufs.len() {
        for grow in [1usize, 8, 64, 70000] {
            let mut b = bufs.clone();
            let len = b[i].len() + grow;
            b[i].resize(len, 0x5a);
            push(format!("buffer {i} + {grow}"), b);
        }
        for cut in [1usize, 4, 8] {
            let mut b = bufs.clone();
            let len = b[i].len().saturating_sub(cut);
            b[i].truncate(len);
            push(format!("buffer {i} - {cut}"), b);
        }
        let mut b = bufs.clone();
        b[i].clear();
        push(format!("buffer {i} emptied"), b);
        push(format!("first {i} buffers"), bufs[..i].to_vec());
    }
    if matches!(base.kind, Kind::Request) && bufs.len() > 4 && !bufs[4].is_empty() {
        let long = [&[b'n'; 256][..], b"\0"].concat();
        for name in [
            &b"a/b\0"[..],
            b".\0",
            b"..\0",
            b"\0",
            b"x",
            b"ok\0junk",
            &long,
        ] {
            let mut b = bufs.clone();
            b[4] = name.to_vec();
            push(format!("name {:?}", name.escape_ascii().to_string()), b);
        }
    }
    if matches!(base.kind, Kind::Reply(_)) && bufs.len() > 2 && bufs[2].len() >= 16 {
        // PATTR moved from valid to truncated: W6.2 before the buffer's own rules.
        let word = |v: u32| if be { v.to_be_bytes() } else { v.to_le_bytes() };
        let get = |b: &[u8]| {
            let w: [u8; 4] = b.try_into().unwrap();
            if be {
                u32::from_be_bytes(w)
            } else {
                u32::from_le_bytes(w)
            }
        };
        let mut b = bufs.clone();
        let valid = get(&b[2][8..12]);
        let truncated = get(&b[2][12..16]);
        b[2][8..12].copy_from_slice(&word(valid & !1));
        b[2][12..16].copy_from_slice(&word(truncated | 1));
        push("PATTR truncated".to_owned(), b);
    }
    for extra in [0usize, 1, 8] {
        for more in 1..=3 {
            let mut b = bufs.clone();
            b.resize(bufs.len() + more, vec![0; extra]);
            push(format!("{more} more buffers of {extra}"), b);
        }
    }
    out
}

#[test]
fn mutated_vectors_agree_with_the_crate() {
    let mut t = Testee::start(&build_testee());
    let mut cases = Vec::new();
    for base in vectors() {
        cases.extend(mutations(&base));
        cases.extend(reframings(&base));
        cases.extend(request_mutations(&base));
    }
    let tally = Tally::run(&mut t, &cases);
    tally.assert_clean();
    // The mutations reach the rules of every section, not only the framing.
    for rule in [
        "W0.1", "W0.2", "W0.3", "W0.4", "W0.5", "W0.6", "W1.1", "W1.2", "W2.1", "W2.2", "W3.1",
        "W3.2", "W5.1", "W5.2", "W5.3", "W5.4", "W5.5", "W5.6", "W5.7", "W5.8", "W5.9", "W5.10",
        "W5.11", "W5.12", "W5.13", "W5.14", "W6.1", "W6.2", "W7.1", "W7.2", "W7.3", "W7.4", "W7.5",
        "W7.6", "W7.7", "W7.8", "W7.9", "W7.10", "W7.11", "W7.12", "W7.13", "W7.14", "W7.15",
        "W7.16", "W8.1", "W8.2", "W9.1", "W9.2", "W9.3", "W9.4", "W9.5", "W9.6", "W9.7", "W9.9",
        "W9.10", "W9.11", "W9.13", "W9.14", "W9.15", "W9.16", "W9.17",
    ] {
        assert!(
            tally.rules.contains_key(rule),
            "no mutation broke {rule}: {:?}",
            tally.rules
        );
    }
    assert!(tally.valid > 1000, "{} valid mutations", tally.valid);
    t.finish();
}

#[test]
fn fuzz_corpora_agree_with_the_crate() {
    let mut t = Testee::start(&build_testee());
    let mut cases = Vec::new();
    let request = load("testdata/mkdir_request.bin");
    for (i, bytes) in corpus("decode_message").into_iter().enumerate() {
        for kind in [Kind::Request, Kind::Reply(request.clone())] {
            cases.push(Case {
                what: format!("decode_message #{i}"),
                kind,
                bytes: bytes.clone(),
            });
        }
    }
    for (i, bytes) in corpus("decode_xattr").into_iter().enumerate() {
        let aliases = ["lustre.pin", "lustre.lmv", "lustre.dmv", "lustre.lov"];
        for name in XATTR_NAMES.into_iter().chain(aliases).chain(["user.other"]) {
            cases.push(Case {
                what: format!("decode_xattr #{i} as {name}"),
                kind: Kind::Xattr(name),
                bytes: bytes.clone(),
            });
        }
    }
    let tally = Tally::run(&mut t, &cases);
    tally.assert_clean();
    assert!(tally.valid > 100, "{} valid corpus inputs", tally.valid);
    t.finish();
}

#[test]
fn unknown_xattr_names_are_unsupported() {
    let mut t = Testee::start(&build_testee());
    let acl = load("testdata/xattr_acl_access.bin");
    for (i, name) in [
        "user.foo",
        "trusted.lma",
        "lustre.lma",
        "",
        "system.posix_acl",
    ]
    .into_iter()
    .enumerate()
    {
        let case = Case {
            what: name.to_owned(),
            kind: Kind::Xattr(name),
            bytes: acl.clone(),
        };
        assert_eq!(t.ask(i, &case), Verdict::Unsupported, "{name:?}");
    }
    t.finish();
}

#[test]
fn unknown_members_are_ignored() {
    // docs/conformance.md §2.1: unknown JSON fields are ignored, whatever their value.
    let mut t = Testee::start(&build_testee());
    let acl = hex(&load("testdata/xattr_acl_access.bin"));
    t.send(&format!(
        r#"{{"tcId": 3, "comment": "a \"quoted\" ] }}", "flags": ["x", {{"y": [1, 2.5e3]}}],
            "id": 7, "kind": "xattr", "xattr_name": "system.posix_acl_access",
            "hex": "{acl}", "result": null, "ok": true}}"#
    ));
    match parse_answer(7, &t.receive()) {
        Verdict::Valid(b) => assert_eq!(hex(&b), acl),
        v => panic!("{v:?}"),
    }
    t.finish();
}

#[test]
fn protocol_errors_exit_non_zero() {
    let path = build_testee();
    for bad in [
        "not json",
        r#"{"id": 1, "kind": "request"}"#,
        r#"{"id": 1, "kind": "lock", "hex": ""}"#,
        r#"{"id": 1, "kind": "request", "hex": "abc"}"#,
        r#"{"id": 1, "kind": "request", "hex": "zz"}"#,
        r#"{"id": -1, "kind": "request", "hex": ""}"#,
        r#"{"id": 1, "kind": "xattr", "hex": ""}"#,
        r#"{"id": 1, "kind": "request", "hex": ""} trailing"#,
    ] {
        let mut t = Testee::start_with_stderr(&path, Stdio::piped());
        t.send(bad);
        drop(t.stdin.take());
        let mut rest = Vec::new();
        t.stdout.read_to_end(&mut rest).unwrap();
        let mut stderr = String::new();
        t.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = t.child.wait().unwrap();
        assert!(rest.is_empty(), "{bad}: answered {rest:?}");
        assert_eq!(status.code(), Some(2), "{bad}");
        assert!(
            stderr.starts_with("testee: protocol error: "),
            "{bad}: {stderr}"
        );
    }
}

// ---- the readings of issue 10 (real Lustre data), built by hand ----

fn le32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A v1 plain layout of `count` stripes (RAID0, 1 MiB) with `idx` as its object entries.
fn lov_v1(count: u16, idx: &[u32]) -> Vec<u8> {
    let mut b = vec![0u8; 32 + 24 * idx.len()];
    le32(&mut b, 0, 0x0BD1_0BD0);
    le32(&mut b, 4, 1);
    le32(&mut b, 24, 1 << 20);
    b[28..30].copy_from_slice(&count.to_le_bytes());
    b[30..32].copy_from_slice(&0xffffu16.to_le_bytes());
    for (i, &x) in idx.iter().enumerate() {
        le32(&mut b, 32 + 24 * i + 20, x);
    }
    b
}

/// A one-component composite layout (`magic`, `lcme_flags`) around `blob`; byte 24 of the
/// header (`lcm_padding2`) is not zero, as a client's read leaves it.
fn lov_comp(magic: u32, flags: u32, blob: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    le32(&mut b, 0, magic);
    le32(&mut b, 4, (80 + blob.len()) as u32);
    b[14..16].copy_from_slice(&1u16.to_le_bytes());
    b[24] = 0xaa;
    le32(&mut b, 32, 1);
    le32(&mut b, 36, flags);
    b[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
    le32(&mut b, 56, 80);
    le32(&mut b, 60, blob.len() as u32);
    b.extend_from_slice(blob);
    b
}

/// `mkdir_request` with buffers of `extra` bytes past its last one.
fn request_with_extra(extra: &[usize]) -> Vec<u8> {
    let (be, hdr, mut bufs) = split(&load("testdata/mkdir_request.bin"));
    for &n in extra {
        bufs.push(vec![0x5a; n]);
    }
    join(be, &hdr, &bufs)
}

/// What a case is, its xattr name (`None`: a request), its bytes, and the crate's verdict
/// (`None`: valid).
type Reading = (
    &'static str,
    Option<&'static str>,
    Vec<u8>,
    Option<&'static str>,
);

#[test]
fn lfs_readings_agree_with_the_crate() {
    const LMV: &str = "trusted.lmv";
    const DMV: &str = "trusted.dmv";
    const LOV: &str = "trusted.lov";
    let mut lmv = vec![0u8; 56];
    le32(&mut lmv, 0, 0x0CD2_0CD0);
    le32(&mut lmv, 4, 2);
    let mut lmv_padded = lmv.clone();
    lmv_padded[28..40].fill(0x11);
    let mut lmv_one_fid = lmv.clone();
    lmv_one_fid.resize(72, 0);
    let mut foreign = vec![0u8; 16];
    le32(&mut foreign, 0, 0x0CD5_0CD0);
    let mut foreign_one = foreign.clone();
    le32(&mut foreign_one, 4, 1);
    foreign_one.push(b'x');
    let mut dmv = vec![0u8; 48];
    le32(&mut dmv, 0, 0x0CD3_0CD0);
    dmv[22..32].fill(0x22);
    let none = u32::MAX;
    let swabbed_sel = {
        let mut b = lov_comp(0x0BD8_0BD0, 0x10, &lov_v1(1, &[0]));
        b[..4].copy_from_slice(&0x0BD8_0BD0u32.to_be_bytes());
        b
    };
    // (what, xattr name or None for a request, bytes, the crate's verdict: None = valid)
    let table: Vec<Reading> = vec![
        ("header-only master LMV", Some(LMV), lmv.clone(), None),
        ("LMV with non-zero padding", Some(LMV), lmv_padded, None),
        ("LMV with 1 of 2 FIDs", Some(LMV), lmv_one_fid, Some("W9.2")),
        ("empty foreign LMV", Some(LMV), foreign, Some("W9.19")),
        ("foreign LMV of 1 byte", Some(LMV), foreign_one, None),
        ("default LMV with non-zero padding", Some(DMV), dmv, None),
        (
            "SEL layout, padded header",
            Some(LOV),
            lov_comp(0x0BD8_0BD0, 0x10, &lov_v1(1, &[0])),
            None,
        ),
        (
            "uninstantiated component, placeholder of 4 stripes",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0, &lov_v1(4, &[none])),
            None,
        ),
        (
            "uninstantiated component, one real entry of 4 stripes",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0, &lov_v1(4, &[7])),
            Some("W9.20"),
        ),
        (
            "uninstantiated component, an OST list",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0, &lov_v1(2, &[3, 5])),
            None,
        ),
        (
            "instantiated component, placeholder of 4 stripes",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0x10, &lov_v1(4, &[none])),
            Some("W9.2"),
        ),
        (
            "plain layout, placeholder of 4 stripes",
            Some(LOV),
            lov_v1(4, &[none]),
            Some("W9.2"),
        ),
        (
            "SEL layout as a component blob",
            Some(LOV),
            lov_comp(
                0x0BD6_0BD0,
                0x10,
                &lov_comp(0x0BD8_0BD0, 0x10, &lov_v1(1, &[0])),
            ),
            Some("W9.18"),
        ),
        (
            "byte-swapped SEL magic",
            Some(LOV),
            swabbed_sel,
            Some("W1.2"),
        ),
        // The whole-message bound: 2 · 500,000 bytes fit 1,024,000 (then W2.2 refuses them),
        // 2 · 512,000 do not; one buffer of 1,024,000 is at the bound, the message over it.
        (
            "message of 1,000,000 bytes past the last buffer",
            None,
            request_with_extra(&[500_000, 500_000]),
            Some("W2.2"),
        ),
        (
            "message over PTLRPC_MAX_BUFLEN",
            None,
            request_with_extra(&[512_000, 512_000]),
            Some("W0.3"),
        ),
        (
            "a buffer at PTLRPC_MAX_BUFLEN, the message over it",
            None,
            request_with_extra(&[1_024_000]),
            Some("W0.3"),
        ),
    ];
    let cases: Vec<Case> = table
        .iter()
        .map(|(what, name, bytes, _)| Case {
            what: (*what).to_owned(),
            kind: name.map_or(Kind::Request, Kind::Xattr),
            bytes: bytes.clone(),
        })
        .collect();
    // Every valid case here is a payload that keeps its padding: its own canonical form.
    for ((what, _, bytes, rule), case) in table.iter().zip(&cases) {
        let want = match rule {
            None => Verdict::Valid(bytes.clone()),
            Some(r) => Verdict::Invalid((*r).to_owned()),
        };
        assert_eq!(expect(case), want, "{what}: the crate");
    }
    let mut t = Testee::start(&build_testee());
    Tally::run(&mut t, &cases).assert_clean();
    t.finish();
}
