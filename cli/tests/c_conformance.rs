//! The C side of the kit: the vectors header (as generated; `conform.rs` holds the committed
//! one equal to it) compiles with `-Wall -Werror` as C99 and C11 (and with `__KERNEL__`'s
//! includes), a small C program walks its table and checks values the Rust side knows; and the reference C testee (`conformance/testee/`) passes `conform`
//! with 0 failures.
//!
//! Without a C compiler (`$CC`, or `cc`) the tests fail under CI and print `SKIP …` elsewhere
//! (`require`).

use std::path::{Path, PathBuf};
use std::process::Command;

mod require;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn workdir(what: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dne-intent-c-{what}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Walks the table: counts, the first case's fields (testdata/mkdir_request.md), the shape of
/// every entry. Exits with the number of problems.
const WALKER: &str = r#"
#include <stdio.h>
#include <string.h>
#include "lustre_dne_prepare_vectors.h"

int main(void)
{
	unsigned int i, valid = 0, invalid = 0, acceptable = 0, fields = 0;
	int bad = 0;
	const struct ldpv_case *c0 = &ldpv_cases[0];

	for (i = 0; i < LDPV_NCASES; i++) {
		const struct ldpv_case *c = &ldpv_cases[i];

		if (c->tc_id != i + 1) { printf("tc_id %u at %u\n", c->tc_id, i); bad++; }
		if (c->result == LDPV_INVALID) {
			invalid++;
			if (c->rule == NULL || c->rule[0] != 'W' || c->canonical != NULL) { printf("%s: rule\n", c->name); bad++; }
			if (c->rules == NULL || c->rules[0] == NULL || strcmp(c->rules[0], c->rule)) { printf("%s: rules\n", c->name); bad++; }
		} else {
			if (c->rule != NULL || c->rules != NULL || c->canonical == NULL) { printf("%s: canonical\n", c->name); bad++; }
			if (c->result == LDPV_VALID) valid++; else acceptable++;
		}
		if ((c->kind == LDPV_REPLY) != (c->request != NULL)) { printf("%s: request\n", c->name); bad++; }
		if ((c->kind == LDPV_XATTR) != (c->xattr_name != NULL)) { printf("%s: xattr\n", c->name); bad++; }
		fields += c->has_fields;
	}
	/* tc1 is testdata/mkdir_request.bin: fsuid 500, all six results requested. */
	if (strcmp(c0->name, "tc1") || c0->kind != LDPV_REQUEST || c0->result != LDPV_VALID ||
	    !c0->has_fields || c0->req.fsuid != 500 || c0->req.fid_seq != 0x200000401ull ||
	    c0->req.fid_oid != 1 || c0->req.buf_limit[0] != 216 || c0->req.child_mode != 040755 ||
	    c0->len != 456 || c0->data[8] != 0xd3 || memcmp(c0->data, c0->canonical, c0->len)) {
		printf("tc1 fields\n");
		bad++;
	}
	printf("%u %u %u %u %u\n", (unsigned int)LDPV_NCASES, valid, invalid, acceptable, fields);
	return bad;
}
"#;

#[test]
fn vectors_header_compiles_and_walks() {
    let Some(cc) = require::c_compiler() else {
        return;
    };
    let dir = workdir("walker");
    let src = dir.join("walk.c");
    std::fs::write(&src, WALKER).unwrap();
    // The generated header (`conform.rs` holds the committed one equal to it).
    let inc = dir.join("vectors");
    let o = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
        .args(["vectors", "--out"])
        .arg(&inc)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(inc.join("dne_intent_vectors.json")).unwrap(),
    )
    .unwrap();
    let tests: Vec<&serde_json::Value> = v["testGroups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["tests"].as_array().unwrap())
        .collect();
    let count = |r: &str| tests.iter().filter(|t| t["result"] == r).count();
    for std in ["c99", "c11"] {
        let exe = dir.join(format!("walk-{std}"));
        let o = Command::new(&cc)
            .args([
                &format!("-std={std}"),
                "-Wall",
                "-Wextra",
                "-Werror",
                "-O0",
                "-I",
            ])
            .arg(&inc)
            .arg("-o")
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{std}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let run = Command::new(&exe).output().unwrap();
        let out = String::from_utf8_lossy(&run.stdout);
        assert!(run.status.success(), "{std}: {out}");
        let nums: Vec<usize> = out.split_whitespace().map(|n| n.parse().unwrap()).collect();
        assert_eq!(
            nums[..4],
            [
                tests.len(),
                count("valid"),
                count("invalid"),
                count("acceptable")
            ],
            "{std}: the C table and the JSON disagree"
        );
        assert!(nums[4] > 10, "few cases carry fields: {out}");
    }
    // Under __KERNEL__ the header includes <linux/types.h> only.
    let o = Command::new(&cc)
        .args([
            "-std=c11",
            "-Wall",
            "-Werror",
            "-fsyntax-only",
            "-D__KERNEL__",
            "-x",
            "c",
        ])
        .arg(inc.join("lustre_dne_prepare_vectors.h"))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "__KERNEL__: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(inc.join("lustre_dne_prepare_vectors.h")).unwrap();
    let kernel_part =
        &text[text.find("#if defined(__KERNEL__)").unwrap()..text.find("#else").unwrap()];
    assert_eq!(
        kernel_part.matches("#include").count() + kernel_part.matches("# include").count(),
        1
    );
}

/// The reference C testee (`conformance/testee/`, every `.c` file there, as
/// docs/conformance.md builds it) passes 2000 generated cases and every vector with 0 failures.
#[test]
fn c_testee_passes_conform() {
    let mut srcs: Vec<PathBuf> = std::fs::read_dir(root().join("conformance/testee"))
        .expect("conformance/testee/ is in the tree")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    srcs.sort();
    assert!(srcs.iter().any(|p| p.ends_with("testee.c")), "{srcs:?}");
    let Some(cc) = require::c_compiler() else {
        return;
    };
    let dir = workdir("testee");
    let exe = dir.join("testee");
    let o = Command::new(&cc)
        .current_dir(root())
        .args(["-O2", "-Wall", "-Werror", "-Iinclude", "-o"])
        .arg(&exe)
        .args(&srcs)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "conformance/testee/: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let o = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
        .args(["conform", "--count", "2000", "--"])
        .arg(&exe)
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "the C testee fails:\n{out}");
    assert!(out.contains(" 0 failed"), "{out}");
}
