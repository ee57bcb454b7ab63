//! Compiles the reference C testee's decoder (`conformance/testee/dp_*.c`: every file but
//! `testee.c`, which holds the runner protocol and `main`) with `DP_NO_MAIN`, so that the
//! differential target can call `dp_judge_bytes()` in-process. `cc` takes the compiler and
//! flags from `CC`/`CFLAGS`: under OSS-Fuzz and ClusterFuzzLite those carry the sanitizer, so
//! the C side is instrumented there too.
fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let dir = root.join("conformance/testee");
    // A directory: cargo reruns when any file under it changes (a new seam included).
    println!("cargo:rerun-if-changed={}", dir.display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("include/lustre_dne_prepare.h").display()
    );
    let mut decoder: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance/testee/ is in the tree")
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "c")
                && p.file_name().is_some_and(|n| n != "testee.c")
        })
        .collect();
    decoder.sort();
    assert!(
        decoder.iter().any(|p| p.ends_with("dp_judge.c")),
        "no dp_judge.c in {}",
        dir.display()
    );
    cc::Build::new()
        .files(&decoder)
        .include(root.join("include"))
        .define("DP_NO_MAIN", None)
        .warnings_into_errors(true)
        .compile("dne_testee");
}
