//! The rules past ptlrpc's unpack, as C checks the MDT handler and the requester call:
//! `lustre/ptlrpc/dne_prepare_check.c`, with `lustre_dne_prepare_req_check()` and
//! `lustre_dne_prepare_rep_check()`. Its body is the kit's reference C testee
//! (`conformance/testee/`: the framing, the request, the xattr payloads and the reply), so the
//! kernel refuses exactly what the testee refuses, by the same rule. The testee's own macros are
//! renamed with a `DP_` prefix where Lustre's headers define the same names (`LDLM_ENQUEUE`,
//! `LMV_MAGIC_V1`, ...), the only change made to its text.

use std::collections::BTreeSet;

use super::base::{Edit, FileDiff, Source};
use super::c::lines;
use super::{Draft, PatchError, TICKET};

pub(crate) const CHECK_C: &str = "lustre/ptlrpc/dne_prepare_check.c";
/// The testee's `dp.h`: its bounds, structures and the prototypes across its files.
const CHECK_H: &str = "lustre/ptlrpc/dne_prepare_check.h";
const MAKEFILE: &str = "lustre/ptlrpc/Makefile";
/// The entry points, as `lustre_req_layout.h` declares them.
pub(crate) const REQ_CHECK: &str = "lustre_dne_prepare_req_check";
pub(crate) const REP_CHECK: &str = "lustre_dne_prepare_rep_check";

/// The testee's decoder, in the order its definitions need (`dp.h` first); `dp_judge.c` and
/// `testee.c` are the runner's plumbing and stay out.
const TESTEE: [(&str, &str); 5] = [
    ("dp.h", include_str!("../../testee/dp.h")),
    ("dp_msg.c", include_str!("../../testee/dp_msg.c")),
    ("dp_req.c", include_str!("../../testee/dp_req.c")),
    ("dp_xattr.c", include_str!("../../testee/dp_xattr.c")),
    ("dp_rep.c", include_str!("../../testee/dp_rep.c")),
];

/// The prototypes `lustre_req_layout.h` gets.
pub(crate) fn prototypes() -> Vec<String> {
    vec![
        format!("int {REQ_CHECK}(const void *msg, __u32 len, const char **rule);"),
        format!("int {REP_CHECK}(const void *rep, __u32 replen, const void *req,"),
        "\t\t\t\t __u32 reqlen, const char **rule);".into(),
    ]
}

/// The names the testee `#define`s without the `DP_` prefix.
fn testee_macros() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, text) in TESTEE {
        for l in text.lines() {
            let Some(rest) = l.strip_prefix("#define ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name != "DP_H" && !name.starts_with("DP_") {
                out.insert(name);
            }
        }
    }
    out
}

/// `text` with every identifier of `names` prefixed with `DP_`.
fn prefixed(text: &str, names: &BTreeSet<String>) -> String {
    let mut out = String::with_capacity(text.len() + 256);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if names.contains(word.as_str()) {
            out.push_str("DP_");
        }
        out.push_str(word);
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// One testee file without its license line, its includes and its include guard.
fn body(name: &str, text: &str) -> String {
    let mut out = format!("/* ---- from the testee's {name} ---- */\n");
    for l in text.lines() {
        if l.starts_with("/* SPDX-License-Identifier")
            || l.starts_with("#include ")
            || l == "#ifndef DP_H"
            || l == "#define DP_H"
            || l == "#endif /* DP_H */"
        {
            continue;
        }
        out.push_str(l);
        out.push('\n');
    }
    out
}

/// The license, the comment and the includes; `spdx` empty: a C file's.
fn header(spdx: &str) -> String {
    let spdx = if spdx.is_empty() {
        "// SPDX-License-Identifier: GPL-2.0"
    } else {
        spdx
    };
    let includes = if spdx.starts_with("//") {
        "#define DEBUG_SUBSYSTEM S_RPC\n\n#include <linux/errno.h>\n#include <linux/string.h>\n\n\
         #include <obd_support.h>\n#include <lustre_net.h>\n#include <lustre_req_layout.h>\n\n"
    } else {
        ""
    };
    format!(
        "{spdx}\n\
         \n\
         /*\n \
         * This file is part of Lustre, http://www.lustre.org/\n \
         *\n \
         * The rules of the DNE prepare intents ({TICKET}) past what\n \
         * ptlrpc_unpack_*_msg() and the capsule check: the flags, limits, names,\n \
         * groups, results and xattr payloads of WIRE.md sections 5 to 9. The MDT\n \
         * handler runs\n \
         * {REQ_CHECK}() on a request as received, the requester\n \
         * {REP_CHECK}() on a reply and the request it sent.\n \
         * Each refusal names the rule the message breaks.\n \
         *\n \
         * Generated from the reference C testee of the protocol (dne-intent\n \
         * lustre-patch), its macros prefixed with DP_; do not edit.\n \
         */\n\
         \n\
         {includes}"
    )
}

fn entries() -> String {
    format!(
        "/* ---- the entry points ---- */\n\
         \n\
         /**\n \
         * {REQ_CHECK}() - check a DNE prepare request past its layout\n \
         * @msg: the request as received (either byte order, not yet unpacked)\n \
         * @len: its length\n \
         * @rule: set to the WIRE.md rule a refused request breaks\n \
         *\n \
         * Return: 0, -EPROTO if the request breaks a rule, -ENOMEM.\n \
         */\n\
         int {REQ_CHECK}(const void *msg, __u32 len, const char **rule)\n\
         {{\n\
         \tstruct dp_ctx ctx = {{ NULL }};\n\
         \tstruct dp_req *r;\n\
         \tint rc;\n\
         \n\
         \tOBD_ALLOC_PTR(r);\n\
         \tif (!r)\n\
         \t\treturn -ENOMEM;\n\
         \trc = dp_req_unpack(&ctx, r, msg, len);\n\
         \tOBD_FREE_PTR(r);\n\
         \t*rule = ctx.rule;\n\
         \treturn rc;\n\
         }}\n\
         EXPORT_SYMBOL({REQ_CHECK});\n\
         \n\
         /**\n \
         * {REP_CHECK}() - check a DNE prepare reply past its layout\n \
         * @rep: the reply as received (either byte order, not yet unpacked)\n \
         * @replen: its length\n \
         * @req: the request it answers, as sent\n \
         * @reqlen: the request's length\n \
         * @rule: set to the WIRE.md rule a refused reply breaks\n \
         *\n \
         * Return: 0, -EPROTO if the reply breaks a rule, -EINVAL if the request\n \
         * does (@rule names it), -ENOMEM.\n \
         */\n\
         int {REP_CHECK}(const void *rep, __u32 replen, const void *req,\n\
         \t\t\t\t __u32 reqlen, const char **rule)\n\
         {{\n\
         \tstruct dp_ctx ctx = {{ NULL }};\n\
         \tstruct dp_reply_ctx *rctx;\n\
         \tstruct dp_req *r;\n\
         \tstruct dp_rep *p;\n\
         \tint rc;\n\
         \n\
         \tOBD_ALLOC_PTR(r);\n\
         \tOBD_ALLOC_PTR(p);\n\
         \tOBD_ALLOC_PTR(rctx);\n\
         \tif (!r || !p || !rctx)\n\
         \t\tGOTO(out, rc = -ENOMEM);\n\
         \trc = dp_req_unpack(&ctx, r, req, reqlen);\n\
         \tif (rc)\n\
         \t\tGOTO(out, rc = -EINVAL);\n\
         \tdp_reply_ctx_init(rctx, r);\n\
         \trc = dp_rep_unpack(&ctx, p, rep, replen, rctx);\n\
         out:\n\
         \tif (rctx)\n\
         \t\tOBD_FREE_PTR(rctx);\n\
         \tif (p)\n\
         \t\tOBD_FREE_PTR(p);\n\
         \tif (r)\n\
         \t\tOBD_FREE_PTR(r);\n\
         \t*rule = ctx.rule;\n\
         \treturn rc;\n\
         }}\n\
         EXPORT_SYMBOL({REP_CHECK});\n"
    )
}

/// The text of `dne_prepare_check.c`: the testee's C files, then the entry points.
pub(crate) fn check_c() -> Vec<String> {
    let names = testee_macros();
    let mut text = header("");
    text.push_str("#include \"dne_prepare_check.h\"\n\n");
    for (name, t) in TESTEE.iter().skip(1) {
        text.push_str(&kernel_forms(&prefixed(&body(name, t), &names)));
        text.push('\n');
    }
    text.push_str(&entries());
    lines(&text)
}

/// The text of `dne_prepare_check.h`: the testee's `dp.h`.
pub(crate) fn check_h() -> Vec<String> {
    let names = testee_macros();
    let (name, t) = TESTEE[0];
    let mut text = header("/* SPDX-License-Identifier: GPL-2.0 */");
    text.push_str("#ifndef _DNE_PREPARE_CHECK_H\n#define _DNE_PREPARE_CHECK_H\n\n");
    text.push_str(&prefixed(&body(name, t), &names));
    text.push_str("\n#endif /* _DNE_PREPARE_CHECK_H */\n");
    lines(&text)
}

/// The kernel's spelling of what the testee writes out for user space.
fn kernel_forms(text: &str) -> String {
    text.replace(
        "(sizeof(lov_known) / sizeof(lov_known[0]))",
        "ARRAY_SIZE(lov_known)",
    )
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let check = FileDiff::new_file(CHECK_C, &check_c());
    let check_h = FileDiff::new_file(CHECK_H, &check_h());
    let mk = src.file(MAKEFILE)?;
    let last = mk.find("the last ptlrpc_objs line", |l| {
        l.starts_with("ptlrpc_objs += ") && l.contains("batch.o")
    })?;
    let mk_diff = mk.diff_and_apply(&mut [Edit::insert_after(
        last,
        vec!["ptlrpc_objs += dne_prepare_check.o".into()],
    )])?;
    Ok(Draft {
        summary: "ptlrpc: check DNE prepare intent rules".into(),
        body: vec![format!(
            "Add {REQ_CHECK}() and {REP_CHECK}(), which check a DNE \
             prepare request and reply past their layout: the flags, limits, \
             name, groups, results and xattr payloads of the protocol. They are \
             generated from the protocol's reference C decoder, so that Lustre \
             refuses what the reference refuses, naming the same rule."
        )],
        test_parameters: None,
        diffs: vec![check, check_h, mk_diff],
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lustre_names_the_testee_defines_are_prefixed_and_only_those() {
        let names = testee_macros();
        assert!(names.contains("LDLM_ENQUEUE"));
        assert!(names.contains("LMV_MAGIC_V1"));
        assert!(!names.contains("DP_OUT_MAX"));
        let p = prefixed("x(LDLM_ENQUEUE, LDLM_ENQUEUE_X, MLI_BUF_MAX)", &names);
        assert_eq!(p, "x(DP_LDLM_ENQUEUE, LDLM_ENQUEUE_X, MLI_BUF_MAX)");
        let h = check_h().join("\n");
        assert!(h.contains("#define DP_LDLM_ENQUEUE\t\t\t101"));
        let c = check_c().join("\n");
        assert!(c.contains("#include \"dne_prepare_check.h\""));
        assert!(!c.contains("#include \"dp.h\""));
        assert!(c.contains("ARRAY_SIZE(lov_known)"));
        // a prefixed name must not collide with one the testee defines itself
        let own: Vec<String> = TESTEE
            .iter()
            .flat_map(|(_, t)| t.lines())
            .filter_map(|l| l.strip_prefix("#define DP_"))
            .map(|r| {
                r.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")
                    .to_string()
            })
            .collect();
        assert!(own.contains(&"OUT_MAX".to_string()));
        for n in &names {
            assert!(!own.contains(n), "DP_{n} is the testee's own");
        }
    }
}
