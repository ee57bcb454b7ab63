//! Compiles the reference C testee (`conformance/testee.c`) without its runner protocol
//! (`DP_NO_MAIN`), so that the differential target can call its decoder in-process. `cc` takes
//! the compiler and flags from `CC`/`CFLAGS`: under OSS-Fuzz and ClusterFuzzLite those carry
//! the sanitizer, so the C side is instrumented there too.
fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let testee = root.join("conformance/testee.c");
    println!("cargo:rerun-if-changed={}", testee.display());
    println!(
        "cargo:rerun-if-changed={}",
        root.join("include/lustre_dne_prepare.h").display()
    );
    cc::Build::new()
        .file(&testee)
        .include(root.join("include"))
        .define("DP_NO_MAIN", None)
        .warnings_into_errors(true)
        .compile("dne_testee");
}
