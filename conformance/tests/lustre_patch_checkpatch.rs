//! The series as Lustre's review bot sees it: Lustre's `contrib/scripts/checkpatch.pl` (its copy
//! of the kernel's, with Lustre's own spelling list) run on each pinned patch.
//!
//! checkpatch.pl is not kept here: the test takes `$LUSTRE_CHECKPATCH` (the script, with
//! `spelling.txt` and `const_structs.checkpatch` beside it, as in `contrib/scripts/`) or
//! `$LUSTRE_TREE/contrib/scripts/checkpatch.pl`. CI has neither (it cannot fetch Lustre), so
//! the test is ignored by default and run by hand, where it fails without perl or the script:
//! `LUSTRE_TREE=/path/to/lustre-release cargo test -p lustre-dne-intent-conformance --test
//! lustre_patch_checkpatch -- --include-ignored`.
//!
//! Allowed, as the bot allows them:
//! - any line of `lustre/utils/wiretest.c` and `lustre/ptlrpc/wiretest.c`: they are generated
//!   by `make newwiretest` and Lustre's bot ignores them;
//! - `FILE_PATH_CHANGES` (Lustre has no MAINTAINERS entry per file);
//! - the `TYPO_SPELLING` note on a new `#define OBD_CONNECT2_*`: Lustre's spelling list sends
//!   the author to the README in `lustre_idl.h`, which asks that the bit be cleared on
//!   lustre-devel first (`docs/lustre-patch.md` says how). It is the process, not the code;
//! - the `TYPO_SPELLING` note on `MODULE_PARM_DESC` in a patch that adds the parameter's page
//!   under `Documentation/man4/`, which is what the note asks for (checkpatch-man.pl checks
//!   the page when the patch is applied).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

fn checkpatch() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LUSTRE_CHECKPATCH") {
        return Some(PathBuf::from(p));
    }
    let tree = PathBuf::from(std::env::var_os("LUSTRE_TREE")?);
    let p = tree.join("contrib/scripts/checkpatch.pl");
    p.exists().then_some(p)
}

/// The file each line of a patch belongs to (`None` before the first diff).
fn files_by_line(text: &str) -> Vec<Option<String>> {
    let mut cur = None;
    text.lines()
        .map(|l| {
            if let Some(rest) = l.strip_prefix("diff --git a/") {
                cur = rest.split(" b/").next().map(str::to_string);
            }
            cur.clone()
        })
        .collect()
}

/// Whether the bot lets a warning of `kind` on a line of `file` saying `msg` pass, in a patch
/// that adds a `Documentation/man4/` page (`man4`) or not.
fn allowed(file: Option<&str>, kind: &str, msg: &str, man4: bool) -> bool {
    let generated = file.is_some_and(|f| f.ends_with("/wiretest.c"));
    generated
        || kind == "FILE_PATH_CHANGES"
        || (kind == "TYPO_SPELLING" && msg.contains("'define OBD_CONNECT2_"))
        || (kind == "TYPO_SPELLING" && msg.starts_with("'MODULE_PARM_DESC'") && man4)
}

/// The warnings and errors of `patch` the bot would not let pass.
fn findings(script: &Path, patch: &Path) -> Vec<String> {
    let out = Command::new("perl")
        .arg(script)
        .args(["--no-tree", "--terse", "--show-types"])
        .arg(patch)
        .output()
        .expect("run checkpatch.pl");
    let text = std::fs::read_to_string(patch).expect("read the patch");
    let files = files_by_line(&text);
    let man4 = files
        .iter()
        .flatten()
        .any(|f| f.starts_with("Documentation/man4/"));
    let report = String::from_utf8_lossy(&out.stdout);
    let mut bad = Vec::new();
    for l in report.lines() {
        // FILE:LINE: LEVEL:TYPE: message
        let Some(rest) = l.strip_prefix(&format!("{}:", patch.display())) else {
            continue;
        };
        let mut parts = rest.splitn(3, ": ");
        let (Some(line), Some(level_kind), Some(msg)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let kind = level_kind.split(':').nth(1).unwrap_or(level_kind);
        let file = line
            .parse::<usize>()
            .ok()
            .and_then(|n| files.get(n.checked_sub(1)?).cloned().flatten());
        if !allowed(file.as_deref(), kind, msg, man4) {
            bad.push(format!("{l} [{}]", file.unwrap_or_default()));
        }
    }
    bad
}

#[test]
#[ignore = "needs Lustre's checkpatch.pl: LUSTRE_TREE=DIR (or LUSTRE_CHECKPATCH=FILE) cargo test -p lustre-dne-intent-conformance --test lustre_patch_checkpatch -- --ignored"]
fn the_series_is_checkpatch_clean_but_for_what_lustre_allows() {
    let perl = Command::new("perl")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(perl, "perl is needed to run checkpatch.pl");
    let script = checkpatch()
        .expect("neither LUSTRE_CHECKPATCH nor LUSTRE_TREE gives Lustre's checkpatch.pl");
    let dir = root().join("testdata/lustre-patch");
    let mut patches: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/lustre-patch")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "patch"))
        .collect();
    patches.sort();
    assert_eq!(patches.len(), 5, "{patches:?}");
    let bad: Vec<String> = patches.iter().flat_map(|p| findings(&script, p)).collect();
    assert!(bad.is_empty(), "checkpatch.pl:\n{}", bad.join("\n"));
}

/// The allowances are narrow: a long line outside wiretest is not one of them.
#[test]
fn only_the_bots_allowances_pass() {
    assert!(allowed(
        Some("lustre/utils/wiretest.c"),
        "LONG_LINE",
        "line length of 99 exceeds 80 columns",
        false
    ));
    assert!(!allowed(
        Some("lustre/ptlrpc/layout.c"),
        "LONG_LINE",
        "line length of 81 exceeds 80 columns",
        false
    ));
    assert!(!allowed(
        Some("include/uapi/linux/lustre/lustre_idl.h"),
        "TYPO_SPELLING",
        "'recieve' may be misspelled",
        false
    ));
    // A new module parameter passes only with its page in the same patch.
    let note = "'MODULE_PARM_DESC' may be misspelled - perhaps 'create Documentation/man4/ page for this parameter'?";
    assert!(allowed(
        Some("lustre/mdt/mdt_handler.c"),
        "TYPO_SPELLING",
        note,
        true
    ));
    assert!(!allowed(
        Some("lustre/mdt/mdt_handler.c"),
        "TYPO_SPELLING",
        note,
        false
    ));
    let files = files_by_line("From: x\ndiff --git a/a.c b/a.c\n+x\ndiff --git a/b.c b/b.c\n+y\n");
    assert_eq!(
        files,
        [
            None,
            Some("a.c".into()),
            Some("a.c".into()),
            Some("b.c".into()),
            Some("b.c".into())
        ]
    );
}
