//! `require` (each crate's `tests/require/mod.rs`, one text) does what the tests rely on: a
//! missing tool fails the test under CI, naming the tool and its package, and elsewhere the
//! test says `SKIP <test>: <why>` and passes. Checked on this test binary itself, run again as
//! a child process with `CI` set and unset.

use std::process::{Command, Output};

/// Set in the child: the test then only asks `require` for a tool no machine has.
const CHILD: &str = "DNE_INTENT_REQUIRE_CHILD";
const TOOL: &str = "dne-intent-no-such-tool";

/// This test's name as libtest lists it (the module path without the binary's name).
fn test_name() -> String {
    let module = module_path!().split_once("::").map_or("", |(_, m)| m);
    format!("{module}::a_missing_tool_fails_under_ci_and_skips_elsewhere")
}

fn child(ci: Option<&str>) -> Output {
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    cmd.args(["--exact", &test_name(), "--nocapture", "--test-threads=1"])
        .env(CHILD, "1");
    match ci {
        Some(v) => cmd.env("CI", v),
        None => cmd.env_remove("CI"),
    };
    cmd.output().expect("the test binary runs")
}

#[test]
fn a_missing_tool_fails_under_ci_and_skips_elsewhere() {
    if std::env::var_os(CHILD).is_some() {
        let found = crate::require::tool(TOOL, "no-such-package");
        assert!(!found, "{TOOL} is on PATH");
        return;
    }
    let why = format!("{TOOL} not installed (apt-get install no-such-package)");
    let test = test_name();
    for ci in ["true", "1", "yes"] {
        let out = child(Some(ci));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "CI={ci}: the child passed");
        assert!(
            err.contains(&format!(
                "{test}: {why}; CI is set, so the test fails instead of skipping"
            )),
            "CI={ci}: {err}"
        );
    }
    for ci in [None, Some(""), Some("0"), Some("false")] {
        let out = child(ci);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "CI={ci:?}: {text}");
        assert!(
            text.contains(&format!("SKIP {test}: {why}\n")),
            "CI={ci:?}: {text}"
        );
        // The child ran exactly this test, which passed.
        assert!(text.contains("1 passed; 0 failed"), "CI={ci:?}: {text}");
    }
}

#[test]
fn tools_on_path_are_found_and_others_are_not() {
    // The test binary itself is an executable file: found by its path, not by a bare name
    // that no PATH directory holds.
    let exe = std::env::current_exe().expect("the test binary");
    let exe = exe.to_str().expect("a UTF-8 path");
    assert_eq!(
        crate::require::on_path(exe).as_deref(),
        Some(std::path::Path::new(exe))
    );
    assert_eq!(crate::require::on_path(TOOL), None);
    // A directory is not a tool, even when it is searchable.
    assert_eq!(crate::require::on_path("/"), None);
}
