//! Replays the committed `model_check` fuzz corpus (`fuzz/corpus/model_check/`) through the
//! harness the fuzz target calls, without cargo-fuzz: every seed and every regression input the
//! campaigns kept must hold every invariant.

use std::fs;
use std::path::Path;

#[test]
fn corpus_model_check() {
    let dir = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fuzz/corpus/model_check"
    ));
    let mut files: Vec<_> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(
        files.len() >= 16,
        "{}: {} files",
        dir.display(),
        files.len()
    );
    for path in &files {
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let r = std::panic::catch_unwind(|| lustre_dne_intent_model::fuzz_check(&bytes));
        assert!(r.is_ok(), "model_check: {} fails", path.display());
    }
}
