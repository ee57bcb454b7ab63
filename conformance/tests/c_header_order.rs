//! `include/lustre_dne_prepare.h` beside Lustre's uapi headers: included before
//! `<linux/lustre/lustre_idl.h>`, after it, and alone (with and without Lustre's headers on the
//! include path), and before and after a `lustre_idl.h` that carries the lustre-release series
//! (`dne-intent lustre-patch`), each translation unit compiles under
//! `-Wall -Wextra -Werror -pedantic` as C99 and C11, uses `struct lu_fid` with Lustre's own
//! helpers, and passes `dne_prepare_wirecheck()`.
//!
//! Lustre's headers are not installed here, so the include path carries
//! `tests/c/lustre_standin/`: a minimal stand-in with Lustre's guards, include structure and
//! `struct lu_fid` (its README says what was copied from where). The C side is
//! `tests/c/header_order.c`. Without a C compiler (`$CC`, or `cc`) the test fails under CI and
//! prints `SKIP …` elsewhere (`require`).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

mod require;
use require::c_compiler as compiler;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Which Lustre headers are on the include path.
#[derive(Clone, Copy, PartialEq)]
enum Lustre {
    /// None.
    Absent,
    /// The stand-in of today's lustre-release.
    Standin,
    /// The stand-in with the series' `lustre_idl.h` lines added.
    Patched,
}

/// One way to include the header: the `-D` flags for `header_order.c` and the Lustre headers
/// on the include path.
struct Order {
    name: &'static str,
    defines: &'static [&'static str],
    lustre: Lustre,
}

const ORDERS: [Order; 6] = [
    Order {
        name: "ours before lustre_idl.h",
        defines: &["OURS_FIRST", "EXPECT_LUSTRE_FID", "EXPECT_OWN_DECLARATIONS"],
        lustre: Lustre::Standin,
    },
    Order {
        name: "ours after lustre_idl.h",
        defines: &[
            "LUSTRE_FIRST",
            "EXPECT_LUSTRE_FID",
            "EXPECT_OWN_DECLARATIONS",
        ],
        lustre: Lustre::Standin,
    },
    Order {
        name: "ours alone, Lustre's headers on the include path",
        defines: &["EXPECT_LUSTRE_FID", "EXPECT_OWN_DECLARATIONS"],
        lustre: Lustre::Standin,
    },
    Order {
        name: "ours alone, no Lustre headers",
        defines: &["EXPECT_OWN_FID", "EXPECT_OWN_DECLARATIONS"],
        lustre: Lustre::Absent,
    },
    Order {
        name: "ours before lustre_idl.h with the series",
        defines: &[
            "OURS_FIRST",
            "EXPECT_LUSTRE_FID",
            "EXPECT_LUSTRE_DECLARATIONS",
        ],
        lustre: Lustre::Patched,
    },
    Order {
        name: "ours after lustre_idl.h with the series",
        defines: &[
            "LUSTRE_FIRST",
            "EXPECT_LUSTRE_FID",
            "EXPECT_LUSTRE_DECLARATIONS",
        ],
        lustre: Lustre::Patched,
    },
];

/// The stand-in with what the series adds to `lustre_idl.h`: the connect flag (patch 1), the
/// opcodes (patch 2's first hunk, inside `enum ldlm_intent_flags`, which the stand-in lacks)
/// and the declarations (patch 2's second hunk), the lines taken from the generated series.
/// Patches 4 and 5 (the MDT's and the OSP's use of the flag) declare nothing the stand-in has;
/// `lustre_patch.rs` checks them.
fn patched_standin(dir: &Path) -> PathBuf {
    use lustre_dne_intent_conformance::lustre_patch::{Options, series};
    const IDL: &str = "include/uapi/linux/lustre/lustre_idl.h";
    let standin = root().join("tests/c/lustre_standin/linux/lustre");
    let out = dir.join("patched");
    let lustre = out.join("linux/lustre");
    std::fs::create_dir_all(&lustre).expect("create the patched stand-in");
    std::fs::copy(standin.join("lustre_user.h"), lustre.join("lustre_user.h")).expect("copy");
    let patches = series(&Options::default()).expect("the series");
    // Patches 1 and 2 declare; patch 4 only adds the flag to `MDT_CONNECT_SUPPORTED2`, a
    // server macro the stand-in does not have.
    let hunks: Vec<Vec<String>> = patches[..2]
        .iter()
        .flat_map(|p| p.added_hunks(IDL))
        .collect();
    let [flag, opcodes, decls] = <[Vec<String>; 3]>::try_from(hunks)
        .unwrap_or_else(|h| panic!("the series adds {} hunks to {IDL}, expected 3", h.len()));
    assert!(
        opcodes
            .iter()
            .all(|l| l.trim_start().starts_with("IT_DNE_"))
    );
    let mut added = flag;
    added.push("enum ldlm_intent_flags {".into());
    added.extend(opcodes);
    added.push("};".into());
    added.extend(decls);
    let idl = std::fs::read_to_string(standin.join("lustre_idl.h")).expect("read the stand-in");
    let end = "#endif /* _LUSTRE_IDL_H_ */";
    let patched = idl.replace(end, &format!("{}\n\n{end}", added.join("\n")));
    assert_ne!(patched, idl, "the stand-in's lustre_idl.h ends with {end}");
    std::fs::write(lustre.join("lustre_idl.h"), patched).expect("write the patched stand-in");
    out
}

fn compile_and_run(
    cc: &str,
    std: &str,
    order: &Order,
    patched: &Path,
    exe: &Path,
) -> Result<(), String> {
    let mut cmd = Command::new(cc);
    cmd.arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-O1"])
        .args(order.defines.iter().map(|d| format!("-D{d}")))
        .arg("-I")
        .arg(root().join("include"));
    match order.lustre {
        Lustre::Absent => {}
        Lustre::Standin => {
            cmd.arg("-I").arg(root().join("tests/c/lustre_standin"));
        }
        Lustre::Patched => {
            cmd.arg("-I").arg(patched);
        }
    }
    let out = cmd
        .arg(root().join("tests/c/header_order.c"))
        .arg("-o")
        .arg(exe)
        .output()
        .expect("run the C compiler");
    if !out.status.success() {
        return Err(format!(
            "does not compile:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let run = Command::new(exe).output().expect("run the C program");
    match run.status.code() {
        Some(0) => Ok(()),
        code => Err(format!(
            "the program exited {code:?} (1: Lustre's helpers disagree, 2: FID fields, 3: wirecheck, 4: names)"
        )),
    }
}

/// True when the compiler finds a real `<linux/lustre/lustre_user.h>` without the stand-in (a
/// machine with Lustre installed): then "no Lustre headers" cannot be arranged.
fn system_has_lustre_headers(cc: &str, dir: &Path) -> bool {
    let probe = dir.join("probe.c");
    std::fs::write(&probe, "#include <linux/lustre/lustre_user.h>\n").expect("write probe");
    Command::new(cc)
        .args(["-E", "-o"])
        .arg(dir.join("probe.i"))
        .arg(&probe)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn header_compiles_before_after_and_without_lustre_headers() {
    let Some(cc) = compiler() else {
        return;
    };
    let dir: PathBuf = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("c_header_order-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create temp dir");
    let installed = system_has_lustre_headers(&cc, &dir);
    let patched = patched_standin(&dir);
    let mut failures = Vec::new();
    for std in ["c99", "c11"] {
        for (i, order) in ORDERS.iter().enumerate() {
            if installed && order.lustre == Lustre::Absent {
                println!(
                    "SKIP ({std}): {}: Lustre's headers are installed",
                    order.name
                );
                continue;
            }
            let exe = dir.join(format!("header_order-{std}-{i}"));
            if let Err(e) = compile_and_run(&cc, std, order, &patched, &exe) {
                failures.push(format!("{} ({std}): {e}", order.name));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The stand-in keeps Lustre's guards and its unguarded `struct lu_fid`; if it drifted (say, a
/// guard of its own around the structure), the order test above would prove nothing.
#[test]
fn standin_keeps_lustres_guards() {
    let read = |p: &str| {
        std::fs::read_to_string(root().join("tests/c/lustre_standin/linux/lustre").join(p))
            .expect("read the stand-in")
    };
    let user = read("lustre_user.h");
    let idl = read("lustre_idl.h");
    assert!(user.contains("#ifndef _LUSTRE_USER_H\n#define _LUSTRE_USER_H\n"));
    assert!(idl.contains("#ifndef _LUSTRE_IDL_H_\n#define _LUSTRE_IDL_H_\n"));
    assert!(idl.contains("#include <linux/lustre/lustre_user.h>"));
    // Exactly two conditionals in lustre_user.h: the file guard and the !__KERNEL__ include.
    assert_eq!(user.matches("#if").count(), 2, "{user}");
    assert!(user.contains("} __attribute__((packed));"));
}
