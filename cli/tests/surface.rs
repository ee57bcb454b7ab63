//! The tool's surface as a shell user meets it: version, suggestions, completions, exit codes,
//! closed pipes, terminals, `-`, hex dumps made by the real `xxd` and `hexdump -C`, and errors
//! that name their file. Without xxd, hexdump or jq the tests that compare against them fail
//! under CI and print `SKIP …` elsewhere (`require`).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

mod require;

const BIN: &str = env!("CARGO_BIN_EXE_dne-intent");
const VECTOR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../testdata/mkdir_reply_complete.bin"
);

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn dne-intent");
    // A command that does not read its input may have exited already: ignore EPIPE here.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn version_on_the_tool_and_each_subcommand() {
    let want = format!("dne-intent {}\n", env!("CARGO_PKG_VERSION"));
    let out = run(&["--version"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), want);
    let out = run(&["decode", "--version"], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        format!("dne-intent-decode {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion_and_exit_2() {
    let out = run(&["decod", VECTOR], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(err.contains("unrecognized subcommand 'decod'"), "{err}");
    assert!(err.contains("'decode'"), "{err}");
    let out = run(&["simulate", "--fault", "advisroy"], b"");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("advisroy") && err.contains("advisory"),
        "{err}"
    );
}

#[test]
fn completions_for_every_shell() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = run(&["completions", shell], b"");
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = text(&out.stdout);
        for sub in ["decode", "encode", "xattr", "simulate", "c-header"] {
            assert!(script.contains(sub), "{shell} completion lacks {sub}");
        }
    }
    // bash itself must accept the script.
    let out = run(&["completions", "bash"], b"");
    let dir = std::env::temp_dir().join(format!("dne-intent-compl-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("dne-intent.bash");
    std::fs::write(&file, &out.stdout).unwrap();
    let check = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} && complete -p dne-intent",
            file.display()
        ))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(check.status.success(), "{}", text(&check.stderr));
    assert!(text(&check.stdout).contains("dne-intent"));
    let out = run(&["completions", "tcsh"], b"");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn a_closed_pipe_ends_the_tool_quietly() {
    let mut child = Command::new(BIN)
        .args(["decode", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Close the reading end first, then give the input: the tool's first write meets EPIPE.
    drop(child.stdout.take());
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&std::fs::read(VECTOR).unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stderr), "");
}

#[test]
fn stdin_can_be_read_only_once() {
    let out = run(&["check", "-", "-"], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("only once"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn binary_is_not_written_to_a_terminal_unless_forced() {
    let json = run(&["decode", "--json", VECTOR], b"");
    assert_eq!(json.status.code(), Some(0));
    let dir = std::env::temp_dir().join(format!("dne-intent-tty-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("reply.json");
    std::fs::write(&file, &json.stdout).unwrap();
    // Piped: the bytes are written.
    let out = run(&["encode", file.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, std::fs::read(VECTOR).unwrap());
    // On a terminal (util-linux `script` gives the command a pty): refused, exit 2.
    let on_tty = |extra: &str| {
        Command::new("script")
            .args(["-qec"])
            .arg(format!("{BIN} encode {extra} {}", file.display()))
            .arg("/dev/null")
            .stdin(Stdio::null())
            .output()
            .expect("script (util-linux) runs")
    };
    let refused = on_tty("");
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stdout));
    assert!(text(&refused.stdout).contains("terminal"));
    let forced = on_tty("--force");
    assert_eq!(forced.status.code(), Some(0));
    let hex = on_tty("--hex");
    assert_eq!(hex.status.code(), Some(0));
    assert!(text(&hex.stdout).contains("09000000"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The real `xxd`, `xxd -p` and `hexdump -C` outputs of a vector decode to the vector, and so
/// does getfattr's `0x…` form.
#[test]
fn hex_dumps_from_real_tools_are_read() {
    if !require::tools(&[("xxd", "xxd"), ("hexdump", "bsdextrautils")]) {
        return;
    }
    let bytes = std::fs::read(VECTOR).unwrap();
    let want = run(&["decode", VECTOR], b"");
    assert_eq!(want.status.code(), Some(0));
    let mut dumps: Vec<(String, Vec<u8>)> = Vec::new();
    let mut hex0x = b"0x".to_vec();
    for b in &bytes {
        hex0x.extend_from_slice(format!("{b:02x}").as_bytes());
    }
    dumps.push(("0x-prefixed".into(), hex0x));
    for (tool, args) in [
        ("xxd", &[][..]),
        ("xxd", &["-p"][..]),
        ("xxd", &["-g", "1"][..]),
        ("hexdump", &["-C"][..]),
    ] {
        let out = Command::new(tool).args(args).arg(VECTOR).output().unwrap();
        assert!(out.status.success());
        dumps.push((format!("{tool} {}", args.join(" ")), out.stdout));
    }
    for (what, dump) in dumps {
        let got = run(&["decode", "-"], &dump);
        assert_eq!(got.status.code(), Some(0), "{what}: {}", text(&got.stderr));
        assert_eq!(got.stdout, want.stdout, "{what}");
    }
}

#[test]
fn errors_name_their_file() {
    let dir = std::env::temp_dir().join(format!("dne-intent-err-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cut = dir.join("cut.bin");
    std::fs::write(&cut, &std::fs::read(VECTOR).unwrap()[..100]).unwrap();
    let cut_s = cut.to_str().unwrap();
    let out = run(&["decode", cut_s], b"");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(&format!("dne-intent decode: {cut_s}: ")),
        "{err}"
    );
    let out = run(&["check", VECTOR, cut_s], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(VECTOR), "{}", text(&out.stderr));
    let missing = Path::new(&dir).join("missing.bin");
    let out = run(&["xattr", missing.to_str().unwrap()], b"");
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("missing.bin: cannot read"));
    let out = run(&["decode"], &[0u8; 3]);
    assert!(
        text(&out.stderr).contains("standard input: "),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `dne-intent decode --json | jq . | dne-intent encode` gives back every message vector of
/// testdata/ byte for byte: 64-bit values are strings, which jq does not round.
#[test]
fn decode_json_through_jq_and_back_is_byte_exact() {
    if !require::tool("jq", "jq") {
        return;
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata");
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.ends_with(".bin") || name.starts_with("xattr_") {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let json = run(&["decode", "--json", path.to_str().unwrap()], b"");
        assert_eq!(json.status.code(), Some(0), "{name}");
        let jq = Command::new("jq")
            .arg(".")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        jq.stdin.as_ref().unwrap().write_all(&json.stdout).unwrap();
        let through = jq.wait_with_output().unwrap();
        assert!(through.status.success(), "{name}: jq failed");
        let again = run(&["encode"], &through.stdout);
        assert_eq!(
            again.status.code(),
            Some(0),
            "{name}: {}",
            text(&again.stderr)
        );
        assert!(
            again.stdout == bytes,
            "{name}: the jq round trip changed the bytes"
        );
        n += 1;
    }
    assert!(n >= 14, "only {n} message vectors");
}
