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

use lustre_dne_intent_conformance::lustre_patch::{Options, Patch, series, write_excerpts};
use std::path::{Path, PathBuf};

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
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
    // Tests run in parallel: each directory is its own.
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("lustre_patch-{tag}-{}-{n}", std::process::id()));
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

// ---- the C of the series, compiled and run against the stand-ins ----

const STANDIN: &str = "tests/c/lustre_standin";

/// The C compiler, or `None` (the caller prints SKIP) when there is none.
fn compiler() -> Option<String> {
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    match std::process::Command::new(&cc).arg("--version").output() {
        Ok(o) if o.status.success() => Some(cc),
        _ => None,
    }
}

/// The lines each hunk of `path` adds, over the whole series, hunk by hunk.
fn added(patches: &[Patch], path: &str) -> Vec<Vec<String>> {
    patches.iter().flat_map(|p| p.added_hunks(path)).collect()
}

fn join(hunks: &[Vec<String>]) -> String {
    hunks.iter().flatten().map(|l| format!("{l}\n")).collect()
}

/// The hunk of `path` that contains `needle`.
fn hunk_with(patches: &[Patch], path: &str, needle: &str) -> Vec<String> {
    added(patches, path)
        .into_iter()
        .find(|h| h.iter().any(|l| l.contains(needle)))
        .unwrap_or_else(|| panic!("no hunk of {path} adds {needle:?}"))
}

/// One translation unit holding every piece of C the series adds outside the kernel module,
/// each in the smallest frame that makes it C (an enumerator inside its enum, a `case` inside
/// a switch), and a `main` that runs the wiretest rows, the wirecheck rows or the swabbers.
fn series_c(patches: &[Patch]) -> String {
    let idl = "include/uapi/linux/lustre/lustre_idl.h";
    let layout = "lustre/ptlrpc/layout.c";
    let mut c = String::from(
        "#include <stdlib.h>\n#include <string.h>\n#include \"lustre_patch/standin.h\"\n\n",
    );
    c += "/* lustre_idl.h */\n";
    c += &join(&[hunk_with(patches, idl, "#define OBD_CONNECT2_")]);
    c += "enum ldlm_intent_flags {\n\tIT_BRW = 0x00008000,\n";
    c += &join(&[hunk_with(patches, idl, "IT_DNE_")]);
    c += "};\n";
    c += &join(&[hunk_with(patches, idl, "struct md_create_prepare_req {")]);
    c += "\n/* lustre_swab.h, pack_generic.c */\n";
    c += &join(&added(patches, "lustre/include/lustre_swab.h"));
    c += &join(&added(patches, "lustre/ptlrpc/pack_generic.c"));
    c += "\n/* lustre_req_layout.h, layout.c */\n";
    c += &join(&added(patches, "lustre/include/lustre_req_layout.h"));
    c += &join(&[hunk_with(patches, layout, "DEFINE_MSGF(")]);
    c += &join(&[hunk_with(
        patches,
        layout,
        "ldlm_intent_dne_prepare_client[] = {",
    )]);
    c += &join(&[hunk_with(patches, layout, "DEFINE_REQ_FMT0(")]);
    c += "const struct req_format *test_req_formats[] = {\n";
    c += &join(&[hunk_with(patches, layout, "\t&RQF_")]);
    c += "};\n";
    c += "\n/* lprocfs_status.c */\nconst char *const test_connect_names[] = {\n";
    c += &join(&added(patches, "lustre/obdclass/lprocfs_status.c"));
    c += "\tNULL\n};\n";
    c += "\n/* ldlm_lock.c */\nconst char *test_it2str(enum ldlm_intent_flags it)\n{\n\tswitch (it) {\n";
    c += &join(&added(patches, "lustre/ldlm/ldlm_lock.c"));
    c += "\tdefault:\n\t\treturn \"UNKNOWN\";\n\t}\n}\n";
    c += "\n/* lustre/utils/wiretest.c */\nint ret;\nstatic void test_wiretest(void)\n{\n";
    c += &join(&added(patches, "lustre/utils/wiretest.c"));
    c += "}\n\n/* lustre/utils/wirecheck.c */\n#include \"lustre_patch/wirecheck_standin.h\"\n";
    let wc = added(patches, "lustre/utils/wirecheck.c");
    let (fns, rows): (Vec<_>, Vec<_>) = wc
        .into_iter()
        .partition(|h| h.iter().any(|l| l.starts_with("check_")));
    c += &join(&fns);
    c += "static void test_wirecheck(void)\n{\n";
    c += &join(&rows);
    c += "}\n";
    c += SWAB_MAIN;
    c
}

/// The harness: `wiretest`, `wirecheck`, or `swab` (lines `req|rep|groups HEX` on stdin, the
/// swabbed bytes as hex on stdout).
const SWAB_MAIN: &str = r#"
/* the functions the lustre-release code calls through its tables */
void req_capsule_set_size(struct req_capsule *pill,
			  const struct req_msg_field *field,
			  enum req_location loc, __u32 size)
{
	(void)pill; (void)field; (void)loc; (void)size;
}
void lustre_swab_mdt_body(struct mdt_body *b)
{
	(void)b;
}
struct req_msg_field RMF_PTLRPC_BODY, RMF_DLM_REQ, RMF_DLM_REP, RMF_LDLM_INTENT, RMF_NAME;

static int swab_stdin(void)
{
	static __u64 buf[1024];
	unsigned char *b = (unsigned char *)buf;
	char kind[16], hex[16384];
	size_t n, i;

	while (scanf("%15s %16383s", kind, hex) == 2) {
		n = strlen(hex) / 2;
		for (i = 0; i < n; i++) {
			unsigned int v;

			if (sscanf(hex + 2 * i, "%2x", &v) != 1)
				return 2;
			b[i] = (unsigned char)v;
		}
		if (!strcmp(kind, "req") && n >= sizeof(struct md_create_prepare_req))
			lustre_swab_md_create_prepare_req((struct md_create_prepare_req *)buf);
		else if (!strcmp(kind, "rep") && n >= sizeof(struct md_create_prepare_rep))
			lustre_swab_md_create_prepare_rep((struct md_create_prepare_rep *)buf);
		else if (!strcmp(kind, "groups"))
			for (i = 0; i + 4 <= n; i += 4)
				lustre_swab_generic_32s((__u32 *)(b + i));
		else
			return 3;
		for (i = 0; i < n; i++)
			printf("%02x", b[i]);
		printf("\n");
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "wiretest")) {
		test_wiretest();
		if (!ret)
			printf("wire constants OK\n");
		return ret;
	}
	if (argc > 1 && !strcmp(argv[1], "wirecheck")) {
		test_wirecheck();
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "swab"))
		return swab_stdin();
	if (argc > 1 && !strcmp(argv[1], "names")) {
		printf("%s %s %s %s\n", test_it2str(IT_DNE_CREATE_PREPARE),
		       test_it2str(IT_DNE_RENAME_PREPARE),
		       test_it2str(IT_DNE_UNLINK_PREPARE),
		       test_connect_names[0]);
		return test_req_formats[0] == NULL;
	}
	return 2;
}
"#;

/// Builds the series' C with `-Wall -Werror`; `None` without a compiler.
fn build_series_c() -> Option<PathBuf> {
    let cc = compiler()?;
    let dir = temp_dir("c");
    let src = dir.join("series.c");
    std::fs::write(&src, series_c(&default_series())).expect("write series.c");
    let exe = dir.join("series");
    let out = std::process::Command::new(cc)
        .args(["-std=gnu11", "-Wall", "-Werror", "-O1", "-I"])
        .arg(root().join(STANDIN))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "the series' C does not compile ({}):\n{}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(exe)
}

fn run(exe: &Path, arg: &str, stdin: &str) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new(exe)
        .arg(arg)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("run the C harness");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for the C harness");
    assert!(out.status.success(), "{arg}: exit {:?}", out.status.code());
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn series_c_compiles_and_wiretest_rows_pass() {
    let Some(exe) = build_series_c() else {
        println!("SKIP: no C compiler (cc or $CC)");
        return;
    };
    assert_eq!(run(&exe, "wiretest", ""), "wire constants OK\n");
    assert_eq!(
        run(&exe, "names", ""),
        "dne_create_prepare dne_rename_prepare dne_unlink_prepare dne_prepare\n"
    );
}

/// The wirecheck rows the series adds, compiled and run, print exactly the wiretest lines it
/// adds (both copies), in the same order: the layouts gcc gives agree with the crate's.
#[test]
fn wirecheck_rows_print_the_wiretest_blocks() {
    let Some(exe) = build_series_c() else {
        println!("SKIP: no C compiler (cc or $CC)");
        return;
    };
    let patches = default_series();
    let printed = run(&exe, "wirecheck", "");
    for copy in ["lustre/utils/wiretest.c", "lustre/ptlrpc/wiretest.c"] {
        let want = join(&added(&patches, copy));
        assert!(
            printed == want,
            "wirecheck prints:\n{printed}\nthe series adds to {copy}:\n{want}"
        );
    }
}

/// (offset, length) of each buffer of a message written in `order`.
fn buffers(msg: &[u8], big: bool) -> Option<Vec<(usize, usize)>> {
    let word = |off: usize| -> Option<usize> {
        let b: [u8; 4] = msg.get(off..off + 4)?.try_into().ok()?;
        Some(if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        } as usize)
    };
    let count = word(0)?;
    if count == 0 || count > 32 {
        return None;
    }
    let mut off = (32 + 4 * count).next_multiple_of(8);
    let mut out = Vec::new();
    for i in 0..count {
        let len = word(32 + 4 * i)?;
        if off.checked_add(len)? > msg.len() {
            return None;
        }
        out.push((off, len));
        off += len.next_multiple_of(8);
    }
    Some(out)
}

/// Every big-endian message vector that decodes, its request body (and groups) or reply body
/// swabbed by the series' own swabbers, gives the bytes of its little-endian twin, the
/// canonical form: byte for byte for a valid case, and for an acceptable one (a longer body, a
/// short count, non-zero padding) the same canonical form once put in the twin's place.
#[test]
fn swabbers_turn_big_endian_vectors_into_their_little_endian_twins() {
    use lustre_dne_intent::Endian;
    use lustre_dne_intent_conformance::{Expect, Kind, VECTOR_SEED, judge, message_order};
    let Some(exe) = build_series_c() else {
        println!("SKIP: no C compiler (cc or $CC)");
        return;
    };
    struct Job {
        case: usize,
        buf: usize,
        kind: &'static str,
    }
    let cases = lustre_dne_intent_conformance::vectors(VECTOR_SEED);
    let mut jobs = Vec::new();
    let mut stdin = String::new();
    let mut skipped = 0;
    for (ci, c) in cases.iter().enumerate() {
        if !matches!(c.kind, Kind::Request | Kind::Reply)
            || message_order(c.kind, &c.bytes) != Endian::Big
        {
            continue;
        }
        if matches!(c.expect, Expect::Invalid(_)) {
            // No twin: an invalid input has no canonical form.
            skipped += 1;
            continue;
        }
        let bufs = buffers(&c.bytes, true).expect("a decoded vector frames");
        let wanted: &[(usize, &str)] = match c.kind {
            Kind::Request => &[(3, "req"), (5, "groups")],
            _ => &[(2, "rep")],
        };
        for &(i, kind) in wanted {
            let Some(&(off, len)) = bufs.get(i) else {
                continue;
            };
            if len == 0 {
                continue;
            }
            stdin += &format!(
                "{kind} {}\n",
                lustre_dne_intent_conformance::to_hex(&c.bytes[off..off + len])
            );
            jobs.push(Job {
                case: ci,
                buf: i,
                kind,
            });
        }
    }
    let out = run(&exe, "swab", &stdin);
    let swabbed: Vec<&str> = out.lines().collect();
    assert_eq!(swabbed.len(), jobs.len());
    let mut exact = 0;
    for (job, hex) in jobs.iter().zip(swabbed) {
        let c = &cases[job.case];
        let ours = lustre_dne_intent_conformance::from_hex(hex).expect("hex");
        let canonical = c.canonical.as_deref().expect("accepted cases have one");
        let twin = buffers(canonical, false).expect("the twin frames");
        let Some(&(off, len)) = twin.get(job.buf) else {
            continue;
        };
        if c.expect == Expect::Valid {
            assert_eq!(
                ours,
                &canonical[off..off + len],
                "tcId {} ({}): swabbed buffer {} differs from its twin's",
                c.id,
                c.comment,
                job.buf
            );
            exact += 1;
        }
        // In the twin's place, the swabbed buffer decodes to the same canonical form.
        if ours.len() >= len {
            let mut placed = canonical.to_vec();
            placed[off..off + len].copy_from_slice(&ours[..len]);
            let j = judge(c.kind, &placed, c.request.as_deref());
            assert_eq!(
                j.canonical(),
                Some(canonical),
                "tcId {} ({}): the swabbed {} does not decode as its twin's",
                c.id,
                c.comment,
                job.kind
            );
        }
    }
    assert!(exact >= 10, "only {exact} buffers compared byte for byte");
    println!(
        "{} buffers swabbed ({exact} byte for byte); {skipped} invalid big-endian cases have no twin",
        jobs.len()
    );
}

/// A tree made of the kept excerpts (lines they do not keep left empty), with `edit` applied
/// to the text of `path`.
fn excerpt_tree(tag: &str, path: &str, edit: impl Fn(&str) -> String) -> PathBuf {
    let dir = temp_dir(tag);
    let base = root().join(EXCERPTS);
    let mut stack = vec![base.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read excerpts").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(&base).unwrap().with_extension("");
            let mut lines: Vec<String> = Vec::new();
            for l in std::fs::read_to_string(&p).unwrap().lines() {
                if let Some(n) = l.strip_prefix("@@ ").and_then(|n| n.parse::<usize>().ok()) {
                    lines.resize(n - 1, String::new());
                } else if let Some(t) = l.strip_prefix(' ') {
                    lines.push(t.to_string());
                } else if l.is_empty() {
                    lines.push(String::new());
                }
            }
            let mut text = lines.join("\n") + "\n";
            if rel == Path::new(path) {
                text = edit(&text);
            }
            let out = dir.join(&rel);
            std::fs::create_dir_all(out.parent().unwrap()).unwrap();
            std::fs::write(out, text).unwrap();
        }
    }
    dir
}

/// A tree where another feature took the protocol's connect bit, or its intent bits, is
/// refused with a message that says what to do.
#[test]
fn taken_values_are_refused() {
    let idl = "include/uapi/linux/lustre/lustre_idl.h";
    let taken = excerpt_tree("taken-flag", idl, |t| {
        t.replacen(
            "/* perf stats in statfs*/\n",
            "/* perf stats in statfs*/\n#define OBD_CONNECT2_OTHER         0x200000000000ULL /* x */\n",
            1,
        )
    });
    let err = series(&Options { tree: Some(taken) }).expect_err("bit 45 is taken");
    let msg = err.to_string();
    assert!(
        msg.contains("taken") && msg.contains("first free bit is 0x400000000000"),
        "{msg}"
    );
    let intent = excerpt_tree("taken-intent", idl, |t| {
        t.replacen(
            "\tIT_BRW\t       = 0x00008000,\n",
            "\tIT_BRW\t       = 0x00008000,\n\tIT_OTHER       = 0x00010000,\n",
            1,
        )
    });
    let err = series(&Options { tree: Some(intent) }).expect_err("0x10000 is taken");
    assert!(err.to_string().contains("collides with IT_OTHER"), "{err}");
    let fine = excerpt_tree("fine", idl, |t| t.to_string());
    assert_eq!(
        series(&Options { tree: Some(fine) }).expect("excerpts as a tree"),
        default_series()
    );
}

/// The user-space driver over the reference testee (`conformance/lustre/dne_prepare_driver.c`,
/// what the series' sanity.sh test runs as `$DNE_PREPARE_DRIVER`) passes every vector.
#[test]
fn driver_over_the_reference_testee_passes_every_vector() {
    let Some(cc) = compiler() else {
        println!("SKIP: no C compiler (cc or $CC)");
        return;
    };
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(root().join("conformance/testee"))
        .expect("conformance/testee/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("dp_"))
        })
        .collect();
    srcs.sort();
    let exe = temp_dir("driver").join("dne_prepare_driver");
    let out = std::process::Command::new(cc)
        .current_dir(root())
        .args(["-O2", "-Wall", "-Werror", "-DDP_NO_MAIN"])
        .args([
            "-Iinclude",
            "-Iconformance/testee",
            "-Itestdata/vectors",
            "-o",
        ])
        .arg(&exe)
        .arg("conformance/lustre/dne_prepare_driver.c")
        .args(&srcs)
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&exe, "", "");
    let n =
        lustre_dne_intent_conformance::vectors(lustre_dne_intent_conformance::VECTOR_SEED).len();
    assert!(
        out.ends_with(&format!("dne_prepare_driver: {n} passed, 0 failed\n")),
        "{out}"
    );
}

/// The kunit module is kernel code (no kernel build here): it is checked with
/// `gcc -fsyntax-only -Wall -Werror` against a stand-in of the interfaces it uses, with the
/// declarations the series adds to `lustre_idl.h` and `lustre_req_layout.h` and the kit's
/// committed vectors header.
#[test]
fn kunit_module_compiles_against_a_kernel_standin() {
    let Some(cc) = compiler() else {
        println!("SKIP: no C compiler (cc or $CC)");
        return;
    };
    let patches = default_series();
    let module = "lustre/kunit/dne_prepare_test.c";
    let dir = temp_dir("kunit");
    // Each header the module includes: the stand-in and the series' declarations in one.
    let idl = "include/uapi/linux/lustre/lustre_idl.h";
    let decls = format!(
        "#include \"lustre_patch/kernel_standin.h\"\n{}{}",
        join(&[hunk_with(&patches, idl, "struct md_create_prepare_req {")]),
        join(&added(&patches, "lustre/include/lustre_req_layout.h"))
    );
    for h in ["obd_class.h", "lustre_net.h", "lustre_req_layout.h"] {
        std::fs::write(dir.join(h), "").expect("write a stub header");
    }
    std::fs::create_dir_all(dir.join("linux")).expect("linux/");
    for h in ["module.h", "kernel.h", "string.h"] {
        std::fs::write(dir.join("linux").join(h), "").expect("write a stub header");
    }
    std::fs::write(dir.join("series_decls.h"), decls).expect("write the declarations");
    std::fs::write(
        dir.join("dne_prepare_test.c"),
        join(&added(&patches, module)),
    )
    .expect("write the module");
    let out = std::process::Command::new(cc)
        .args([
            "-fsyntax-only",
            "-std=gnu11",
            "-Wall",
            "-Werror",
            "-include",
        ])
        .arg(dir.join("series_decls.h"))
        .arg("-I")
        .arg(&dir)
        .arg("-I")
        .arg(root().join(STANDIN))
        .arg("-I")
        .arg(root().join("testdata/vectors"))
        .arg(dir.join("dne_prepare_test.c"))
        .output()
        .expect("run the C compiler");
    assert!(
        out.status.success(),
        "the kunit module does not compile against the stand-in:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
