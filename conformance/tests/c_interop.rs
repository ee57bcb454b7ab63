//! C interoperability: the committed header `include/lustre_dne_prepare.h` is what the
//! generator writes today; the system C compiler accepts it and its `dne_prepare_wirecheck()`
//! passes; a C program using only that header packs a request and a reply body that the crate
//! decodes field for field, and checks field for field a request body the crate encodes.
//!
//! Without a C compiler (`$CC`, or `cc`) the compiler tests fail under CI and print `SKIP …`
//! elsewhere (`require`).
#![forbid(unsafe_code)]

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, ResultMask,
};
use lustre_dne_intent::wire::{LuFid, WireStruct};
use std::path::{Path, PathBuf};
use std::process::Command;

mod require;
use require::c_compiler as compiler;

const HEADER: &str = "include/lustre_dne_prepare.h";

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

#[test]
fn committed_header_is_fresh() {
    let committed = std::fs::read_to_string(root().join(HEADER)).expect("read the header");
    let generated = lustre_dne_intent_conformance::cheader::c_header();
    assert!(
        committed == generated,
        "{HEADER} is stale; regenerate it with\n  \
         cargo run -p dne-intent -- c-header > {HEADER}"
    );
}

/// A fresh directory under cargo's per-target temporary directory.
fn temp_dir(tag: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("c_interop-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// Compiles `tests/c/dne_prepare_roundtrip.c` against the committed header in C `std`.
fn build(cc: &str, std: &str, dir: &Path) -> PathBuf {
    let exe = dir.join(format!("dne_prepare_roundtrip-{std}"));
    let out = Command::new(cc)
        .arg(format!("-std={std}"))
        .args(["-Wall", "-Wextra", "-Werror", "-pedantic", "-O1", "-I"])
        .arg(root().join("include"))
        .arg(root().join("tests/c/dne_prepare_roundtrip.c"))
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "{cc} -std={std} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    exe
}

fn run(exe: &Path, args: &[&Path]) -> std::process::Output {
    Command::new(exe)
        .args(args)
        .output()
        .expect("run the C program")
}

fn native() -> Endian {
    if cfg!(target_endian = "little") {
        Endian::Little
    } else {
        Endian::Big
    }
}

#[test]
fn header_compiles_and_wirecheck_passes() {
    let Some(cc) = compiler() else {
        return;
    };
    let dir = temp_dir("wirecheck");
    for std in ["c99", "c11"] {
        let exe = build(&cc, std, &dir);
        let out = Command::new(&exe)
            .arg("wirecheck")
            .output()
            .expect("run wirecheck");
        assert!(
            out.status.success(),
            "dne_prepare_wirecheck() failed ({std}):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn c_packs_and_the_crate_decodes_every_field() {
    let Some(cc) = compiler() else {
        return;
    };
    let dir = temp_dir("pack");
    let exe = build(&cc, "c99", &dir);
    let (req_path, rep_path) = (dir.join("req.bin"), dir.join("rep.bin"));
    let out = run(&exe, &[Path::new("pack"), &req_path, &rep_path]);
    assert!(
        out.status.success(),
        "pack: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let req = std::fs::read(&req_path).expect("request written");
    assert_eq!(req.len(), 80);
    let got = MdCreatePrepareReq::decode(&req, native()).expect("decodes");
    assert_eq!(
        got,
        MdCreatePrepareReq {
            fid: LuFid::new(0x2_0000_0401, 1, 0),
            flags: McprFlags::GROUPS_PARTIAL,
            fsuid: 500,
            fsgid: 501,
            umask: 0o022,
            cap: 1 | 1 << 24,
            child_mode: 0o040_755,
            buf_limit: [216, 4096, 4096, 4096, 4096, 48],
        }
    );
    assert!(req[44..48].iter().chain(&req[72..80]).all(|&b| b == 0));
    // And it is a buffer 3 the crate would put on the wire.
    let mut again = Vec::new();
    got.put(native(), &mut again);
    assert_eq!(again, req);

    let rep = std::fs::read(&rep_path).expect("reply written");
    assert_eq!(rep.len(), 80);
    let got = MdCreatePrepareRep::decode(&rep, native()).expect("decodes");
    assert_eq!(
        got,
        MdCreatePrepareRep {
            status: -17,
            flags: McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS | McppFlags::PERM_DONE,
            valid: ResultMask::PATTR | ResultMask::DEF_ACL,
            truncated: ResultMask::LOV,
            fid: LuFid::new(0x2_0000_0401, 0x2a, 3),
            child_mode: 0o040_000,
            child_gid: 600,
            child_projid: 1000,
            child_flags: 0x2000_0000,
            buf_size: [216, 44, 0, 0, 5320, 0],
        }
    );
    assert!(rep[72..80].iter().all(|&b| b == 0));
    let mut again = Vec::new();
    got.put(native(), &mut again);
    assert_eq!(again, rep);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn crate_encodes_and_c_checks_every_field() {
    let Some(cc) = compiler() else {
        return;
    };
    let dir = temp_dir("check");
    let exe = build(&cc, "c99", &dir);
    let body = MdCreatePrepareReq {
        fid: LuFid::new(0x2_0000_0402, 0x1a, 7),
        flags: McprFlags::NO_LOOKUP,
        fsuid: 1234,
        fsgid: 5678,
        umask: 0o077,
        cap: 0x100_000f,
        child_mode: 0,
        buf_limit: [216, 0, 256, 8192, 65536, 48],
    };
    let mut bytes = Vec::new();
    body.put(native(), &mut bytes);
    let path = dir.join("crate_req.bin");
    std::fs::write(&path, &bytes).expect("write");
    let out = run(&exe, &[Path::new("check-req"), &path]);
    assert!(
        out.status.success(),
        "the C program disagrees with the crate's encoding:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );

    // The check is real: one changed field makes the C program fail.
    let mut wrong = body;
    wrong.fsgid += 1;
    let mut bytes = Vec::new();
    wrong.put(native(), &mut bytes);
    std::fs::write(&path, &bytes).expect("write");
    let out = run(&exe, &[Path::new("check-req"), &path]);
    assert_eq!(out.status.code(), Some(1), "a wrong fsgid was accepted");
    assert!(String::from_utf8_lossy(&out.stderr).contains("mcpr_fsgid"));
    let _ = std::fs::remove_dir_all(&dir);
}
