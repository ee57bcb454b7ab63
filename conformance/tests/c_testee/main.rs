//! The reference C testee, `conformance/testee/`, held against the crate's decoders.
//!
//! Builds it from every `.c` file there with `cc -O2 -Wall -Werror -Wextra -Iinclude`, drives it through the runner
//! testee protocol of docs/conformance.md (frames of a 4-byte LE length and UTF-8 JSON over stdin/stdout), and
//! checks every answer against the crate: the verdict, the rule ID of an invalid case
//! (`ErrorKind::rule`), and for a valid case the canonical bytes (the decoded value encoded
//! little-endian). The cases are the golden vectors of `testdata/` (replies with the request each
//! answers), the real payloads of `testdata/real/`, the fuzz corpora, and mutations of the
//! vectors: every truncation, every single-bit flip, and boundary values written over each
//! aligned word.
//!
//! One test binary: the shared definitions here, then `verdicts` (the crate's), `testee`
//! (building and driving the C program), `cases`, `compare`, and `readings` (the hand-built
//! readings of real Lustre data, with their test).
//!
//! Without a C compiler (`$CC`, or `cc`) the tests fail under CI and print `SKIP …` elsewhere
//! (`require`).

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{ReplyContext, ReplyView, RequestView};
use lustre_dne_intent::xattr::{AclView, DefaultLmvView, LmvView, LovView, PinView};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

mod cases;
mod compare;
mod readings;
#[path = "../require/mod.rs"]
mod require;
mod testee;
mod verdicts;

use cases::*;
use compare::*;
use testee::*;
use verdicts::*;

pub(crate) const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The request each golden reply answers (testdata/*.md, first line).
pub(crate) const REPLIES: [(&str, &str); 9] = [
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

pub(crate) const REQUESTS: [&str; 5] = [
    "mkdir_request",
    "mkdir_request_partial",
    "mkdir_request_be",
    "rename_object_request",
    "unlink_request",
];

/// The xattr names the spec knows (WIRE.md §9), one per payload kind.
pub(crate) const XATTR_NAMES: [&str; 5] = [
    "system.posix_acl_default",
    "trusted.pin",
    "trusted.lmv",
    "trusted.dmv",
    "trusted.lov",
];

pub(crate) fn load(rel: &str) -> Vec<u8> {
    let path = Path::new(ROOT).join(rel);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The xattr name of a payload file, from its name (`xattr_acl_*`, `lmv_*`, ...).
pub(crate) fn xattr_name_of(file: &str) -> &'static str {
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
pub(crate) enum Kind {
    Request,
    Reply(Vec<u8>),
    Xattr(&'static str),
}

#[derive(Debug, Clone)]
pub(crate) struct Case {
    pub(crate) what: String,
    pub(crate) kind: Kind,
    pub(crate) bytes: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Verdict {
    Valid(Vec<u8>),
    Invalid(String),
    Unsupported,
}

#[test]
fn golden_vectors_are_valid_and_canonical() {
    let Some(testee) = build_testee() else {
        return;
    };
    let mut t = Testee::start(&testee);
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
    let Some(testee) = build_testee() else {
        return;
    };
    let mut t = Testee::start(&testee);
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
    let Some(testee) = build_testee() else {
        return;
    };
    let mut t = Testee::start(&testee);
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
    let Some(testee) = build_testee() else {
        return;
    };
    let mut t = Testee::start(&testee);
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
    let Some(testee) = build_testee() else {
        return;
    };
    let mut t = Testee::start(&testee);
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
    let Some(path) = build_testee() else {
        return;
    };
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
