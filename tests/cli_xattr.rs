//! `dne-intent xattr` over the xattr golden vectors and over getfattr-style text.

use std::io::Write;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
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
        String::from_utf8_lossy(&out.stdout).into_owned(),
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
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
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
