//! The kunit module of the lustre-release series (`lustre/kunit/dne_prepare_test.c`), checked
//! without a kernel: it compiles against a stand-in of the kernel and ptlrpc interfaces it
//! calls, and its own decoder, run in user space over the table the series adds beside it,
//! gives back the kit's vectors. Without a C compiler the tests fail under CI and print `SKIP …`
//! elsewhere (`require`).
#![forbid(unsafe_code)]

mod lustre_patch_util;
mod require;

use lustre_dne_intent_conformance::lustre_patch::Patch;
use lustre_patch_util::*;
use std::path::{Path, PathBuf};

/// The kunit module and its table as the series adds them, in `dir`, with the stub headers and
/// the stand-in's declarations (`series_decls.h`, to be given with `-include`).
fn kunit_dir(patches: &[Patch], tag: &str) -> PathBuf {
    let dir = temp_dir(tag);
    // Each header the module includes: the stand-in and the series' declarations in one.
    let idl = "include/uapi/linux/lustre/lustre_idl.h";
    let decls = format!(
        "#include \"lustre_patch/kernel_standin.h\"\n{}{}",
        join(&[hunk_with(patches, idl, "struct md_create_prepare_req {")]),
        join(&added(patches, "lustre/include/lustre_req_layout.h"))
    );
    for h in [
        "obd_class.h",
        "obd_support.h",
        "lustre_net.h",
        "lustre_req_layout.h",
        "lustre_sec.h",
    ] {
        std::fs::write(dir.join(h), "").expect("write a stub header");
    }
    std::fs::create_dir_all(dir.join("linux")).expect("linux/");
    for h in ["module.h", "kernel.h", "string.h"] {
        std::fs::write(dir.join("linux").join(h), "").expect("write a stub header");
    }
    std::fs::write(dir.join("series_decls.h"), decls).expect("write the declarations");
    for f in ["dne_prepare_test.c", "dne_prepare_vectors.h"] {
        let text = join(&added(patches, &format!("lustre/kunit/{f}")));
        assert!(!text.is_empty(), "the series adds lustre/kunit/{f}");
        std::fs::write(dir.join(f), text).expect("write the module");
    }
    dir
}

fn cc_in(cc: &str, dir: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(cc)
        .args(["-std=gnu11", "-Wall", "-Werror", "-include"])
        .arg(dir.join("series_decls.h"))
        .arg("-I")
        .arg(dir)
        .arg("-I")
        .arg(root().join(STANDIN))
        .args(args)
        .output()
        .expect("run the C compiler")
}

/// The kunit module is kernel code (no kernel build here): it is checked with
/// `gcc -fsyntax-only -Wall -Werror` against a stand-in of the interfaces it uses, with the
/// declarations the series adds to `lustre_idl.h` and `lustre_req_layout.h` and the table of
/// vectors the series adds beside it.
#[test]
fn kunit_module_compiles_against_a_kernel_standin() {
    let Some(cc) = compiler() else {
        return;
    };
    let dir = kunit_dir(&default_series(), "kunit");
    let c = dir.join("dne_prepare_test.c");
    let out = cc_in(&cc, &dir, &["-fsyntax-only", &c.to_string_lossy()]);
    assert!(
        out.status.success(),
        "the kunit module does not compile against the stand-in:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The module's own decoder (its text as the series adds it), compiled and run in user space
/// over the table the series adds, gives back every request and reply of the kit: the input,
/// the request a reply answers and the canonical form, byte for byte.
#[test]
fn kunit_table_decodes_to_the_kit_vectors() {
    use lustre_dne_intent_conformance::{Kind, VECTOR_SEED, vectors};
    let Some(cc) = compiler() else {
        return;
    };
    let dir = kunit_dir(&default_series(), "kunit-table");
    let module = std::fs::read_to_string(dir.join("dne_prepare_test.c")).expect("the module");
    let part = |from: &str, to: &str| -> String {
        let a = module
            .find(from)
            .unwrap_or_else(|| panic!("{from:?} in the module"));
        let b = module[a..]
            .find(to)
            .unwrap_or_else(|| panic!("{to:?} in the module"));
        module[a..a + b].to_string()
    };
    let harness = format!(
        "#include \"dne_prepare_vectors.h\"\n{}{}\n\
         int main(void)\n{{\n\
         \tstatic struct dpt_case cases[DPT_NCASES];\n\
         \tstatic unsigned char out[DPT_TOTAL];\n\
         \tsize_t pos = 0;\n\t__u32 n, total, i, m, k;\n\n\
         \tif (dpt_number(&pos, &n) || dpt_number(&pos, &total) ||\n\
         \t    n > DPT_NCASES || total > DPT_TOTAL ||\n\
         \t    dpt_decode(pos, cases, n, out, total))\n\t\treturn 1;\n\
         \tfor (i = 0; i < n; i++) {{\n\
         \t\tprintf(\"%u\", cases[i].dc_id);\n\
         \t\tfor (m = 0; m < 3 && cases[i].dc_msg[m]; m++) {{\n\
         \t\t\tprintf(\" \");\n\
         \t\t\tfor (k = 0; k < cases[i].dc_len[m]; k++)\n\
         \t\t\t\tprintf(\"%02x\", cases[i].dc_msg[m][k]);\n\
         \t\t}}\n\t\tprintf(\"\\n\");\n\t}}\n\treturn 0;\n}}\n",
        part("/* One case of dpt_stream[]", "/* Where a message stops"),
        part("/* The LEB128 number", "/* The magic and flavour checks"),
    );
    std::fs::write(dir.join("decode.c"), harness).expect("write the harness");
    let exe = dir.join("decode");
    let out = cc_in(
        &cc,
        &dir,
        &[
            "-O1",
            &dir.join("decode.c").to_string_lossy(),
            "-o",
            &exe.to_string_lossy(),
        ],
    );
    assert!(
        out.status.success(),
        "the module's decoder does not build:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let mut want = String::new();
    for c in vectors(VECTOR_SEED) {
        if matches!(c.kind, Kind::Xattr(_)) {
            continue;
        }
        want += &c.id.to_string();
        for m in std::iter::once(&c.bytes)
            .chain(&c.request)
            .chain(&c.canonical)
        {
            want += &format!(" {}", hex(m));
        }
        want += "\n";
    }
    let got = run(&exe, "", "");
    assert!(
        got == want,
        "the decoded table differs from the kit's vectors"
    );
}
