//! What a test needs from outside the crate: a tool on `PATH`, a C compiler, root, a filesystem
//! that takes ACLs. When it is missing, a test run under CI (`CI` set, as `.ci/run` and CI
//! services set it) fails with a message naming what is missing and the package that provides
//! it: CI installs them, so a test that did not run is never counted as passed there. Elsewhere
//! the test prints `SKIP <test>: <why>` and returns.
//!
//! Each crate keeps an identical copy in `tests/require/mod.rs` (`.ci/run` compares them): a
//! crate's package must carry its own tests, and no crate of the workspace is a dev-dependency
//! of all the others.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether the tests run under CI: `CI` set to anything but empty, `0` or `false`.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !matches!(v.trim(), "" | "0" | "false"))
}

/// The running test's name: libtest names each test's thread after the test.
fn test_name() -> String {
    match std::thread::current().name() {
        Some(name) if name != "main" => name.to_owned(),
        _ => "(test)".to_owned(),
    }
}

/// The test cannot run, because of `why`: under CI this panics; elsewhere it prints
/// `SKIP <test>: <why>`, and the caller returns.
pub fn unmet(why: &str) {
    let test = test_name();
    assert!(
        !in_ci(),
        "{test}: {why}; CI is set, so the test fails instead of skipping"
    );
    println!("SKIP {test}: {why}");
}

/// Whether every `(tool, package)` of `needed` is on `PATH`; if not, [`unmet`] names the
/// missing tools and the packages that provide them.
pub fn tools(needed: &[(&str, &str)]) -> bool {
    let missing: Vec<&(&str, &str)> = needed
        .iter()
        .filter(|(t, _)| on_path(t).is_none())
        .collect();
    if missing.is_empty() {
        return true;
    }
    let names: Vec<&str> = missing.iter().map(|m| m.0).collect();
    let mut packages: Vec<&str> = Vec::new();
    for m in &missing {
        if !packages.contains(&m.1) {
            packages.push(m.1);
        }
    }
    unmet(&format!(
        "{} not installed (apt-get install {})",
        names.join(", "),
        packages.join(" ")
    ));
    false
}

/// Whether `tool` is on `PATH`; if not, [`unmet`] names it and `package`.
pub fn tool(tool: &str, package: &str) -> bool {
    tools(&[(tool, package)])
}

/// The C compiler, `$CC` or `cc`; `None` after [`unmet`] when it does not run.
pub fn c_compiler() -> Option<String> {
    let cc = std::env::var("CC")
        .ok()
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "cc".to_owned());
    let runs = Command::new(&cc)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if runs {
        return Some(cc);
    }
    unmet(&format!(
        "no C compiler: `{cc} --version` does not run (apt-get install gcc, or set CC)"
    ));
    None
}

/// Whether the tests run as root; if not, [`unmet`] says what root is `needed_for`.
pub fn root(needed_for: &str) -> bool {
    // `id -u`, as the tests forbid the unsafe code `geteuid()` would take.
    let uid = Command::new("id").arg("-u").output();
    if uid.is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0") {
        return true;
    }
    unmet(&format!("needs root, {needed_for}"));
    false
}

/// The first executable file named `tool` in `PATH`'s directories (`tool` itself if it holds
/// a `/`).
pub fn on_path(tool: &str) -> Option<PathBuf> {
    if tool.contains('/') {
        return executable(Path::new(tool)).then(|| PathBuf::from(tool));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| executable(p))
}

#[cfg(unix)]
fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn executable(p: &Path) -> bool {
    p.is_file()
}
