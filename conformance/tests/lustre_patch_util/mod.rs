//! What the lustre-release series' tests share: the tree's root, the default series, scratch
//! directories, the C compiler and the lines a series adds.
#![allow(dead_code)]

use lustre_dne_intent_conformance::lustre_patch::{Options, Patch, series};
use std::path::{Path, PathBuf};

pub fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

pub fn default_series() -> Vec<Patch> {
    series(&Options::default()).expect("the default series")
}

pub fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// A fresh directory under cargo's per-target temporary directory.
pub fn temp_dir(tag: &str) -> PathBuf {
    // Tests run in parallel: each directory is its own.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lustre_patch-{tag}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

pub const STANDIN: &str = "tests/c/lustre_standin";

/// The C compiler, or `None` when there is none (see `require`).
pub fn compiler() -> Option<String> {
    crate::require::c_compiler()
}

/// The lines each hunk of `path` adds, over the whole series, hunk by hunk.
pub fn added(patches: &[Patch], path: &str) -> Vec<Vec<String>> {
    patches.iter().flat_map(|p| p.added_hunks(path)).collect()
}

pub fn join(hunks: &[Vec<String>]) -> String {
    hunks.iter().flatten().map(|l| format!("{l}\n")).collect()
}

/// The hunk of `path` that contains `needle`.
pub fn hunk_with(patches: &[Patch], path: &str, needle: &str) -> Vec<String> {
    added(patches, path)
        .into_iter()
        .find(|h| h.iter().any(|l| l.contains(needle)))
        .unwrap_or_else(|| panic!("no hunk of {path} adds {needle:?}"))
}

pub fn run(exe: &Path, arg: &str, stdin: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(exe)
        .arg(arg)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run the C harness");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for the C harness");
    assert!(out.status.success(), "{arg}: exit {:?}", out.status.code());
    String::from_utf8(out.stdout).expect("utf-8")
}
