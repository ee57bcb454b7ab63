//! The C header for the new structures, generated from the crate's own layouts.
//!
//! [`c_header`] writes, in Lustre's style, `struct md_create_prepare_req`,
//! `struct md_create_prepare_rep`, the `IT_DNE_*_PREPARE` opcodes, the `MCPR_*` and `MCPP_*`
//! flags, `enum md_lock_intent_buf` (`MLI_BUF_*`) and `OBD_CONNECT2_DNE_PREPARE`, followed by
//! `dne_prepare_wirecheck()`: the `wirecheck`/`wiretest` of these structures, one assertion per
//! size, offset, field size and constant. Every number in it comes from the zerocopy raw
//! layouts (`core::mem::offset_of!`, `core::mem::size_of`) and from the crate's constants, so a
//! C compiler that runs the function proves its layouts equal the codec's.
//!
//! The header includes in either order with Lustre's uapi headers: it uses Lustre's
//! `struct lu_fid` when `lustre_user.h` was included first or can be found, and defines an
//! identical copy only when it cannot (`conformance/tests/c_header_order.rs` compiles every order).
//!
//! `dne-intent c-header` prints it; the committed copy is `include/lustre_dne_prepare.h`, and a
//! test fails when that copy is stale.

use alloc::string::String;
use core::fmt::Write;
use lustre_dne_intent::intent::body::{MdCreatePrepareRepRaw, MdCreatePrepareReqRaw};
use lustre_dne_intent::intent::{
    IntentOpc, McppFlags, McprFlags, MliBuf, OBD_CONNECT2_DNE_PREPARE,
};
use lustre_dne_intent::limits::MLI_BUF_MAX;
use lustre_dne_intent::wire::raw::LuFidRaw;
use zerocopy::LittleEndian;

/// One field of a C structure: its C declaration and where the crate's layout puts it.
struct CField {
    name: &'static str,
    /// C type of one element.
    ctype: &'static str,
    /// Array length as written in C (`None` for a scalar) and its value.
    array: Option<(&'static str, usize)>,
    offset: usize,
    size: usize,
    doc: &'static str,
}

/// One C structure.
struct CStruct {
    name: &'static str,
    doc: &'static str,
    /// Declared `DNE_PREPARE_PACKED` (alignment 1), as Lustre declares it.
    packed: bool,
    size: usize,
    fields: &'static [fn() -> CField],
}

fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    core::mem::size_of::<F>()
}

/// `CField` constructors, one per field, reading offset and size from the raw layout `$raw`.
macro_rules! c_fields {
    ($raw:ty; $( $f:ident : $ctype:literal $([$len_c:literal = $len:expr])?, $doc:literal; )*) => {
        &[ $( || CField {
            name: stringify!($f),
            ctype: $ctype,
            array: None $( .or(Some(($len_c, $len))) )?,
            offset: core::mem::offset_of!($raw, $f),
            size: field_size(|r: &$raw| &r.$f),
            doc: $doc,
        } ),* ]
    };
}

type Le = LittleEndian;

const LU_FID: CStruct = CStruct {
    name: "lu_fid",
    doc: "File identifier, laid out as in Lustre's lustre_user.h (16 bytes, packed).",
    packed: true,
    size: core::mem::size_of::<LuFidRaw<Le>>(),
    fields: c_fields!(LuFidRaw<Le>;
        f_seq: "__u64", "sequence";
        f_oid: "__u32", "object id within the sequence";
        f_ver: "__u32", "version, 0 for normal FIDs";
    ),
};

const REQ: CStruct = CStruct {
    name: "md_create_prepare_req",
    doc: "Request buffer 3 of an IT_DNE_*_PREPARE enqueue (WIRE.md section 5).\n \
          * Sent in the sender's byte order (lm_magic tells the receiver).",
    packed: false,
    size: core::mem::size_of::<MdCreatePrepareReqRaw<Le>>(),
    fields: c_fields!(MdCreatePrepareReqRaw<Le>;
        mcpr_fid: "struct lu_fid", "parent (entry mode) or object (object mode); the lock's FID";
        mcpr_flags: "__u32", "MCPR_*";
        mcpr_fsuid: "__u32", "caller's fsuid, already mapped";
        mcpr_fsgid: "__u32", "caller's fsgid";
        mcpr_umask: "__u32", "only bits 0777";
        mcpr_cap: "__u64", "effective capabilities, bit n = capability n";
        mcpr_child_mode: "__u32", "create: mode with S_IFMT before umask; else 0";
        mcpr_padding0: "__u32", "zero";
        mcpr_buf_limit: "__u32" ["MLI_BUF_MAX" = MLI_BUF_MAX], "bytes accepted per result, 0 = not requested";
        mcpr_padding1: "__u64", "zero";
    ),
};

const REP: CStruct = CStruct {
    name: "md_create_prepare_rep",
    doc: "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue (WIRE.md section 7);\n \
          * an empty buffer 2 is the empty result.",
    packed: false,
    size: core::mem::size_of::<MdCreatePrepareRepRaw<Le>>(),
    fields: c_fields!(MdCreatePrepareRepRaw<Le>;
        mcpp_status: "__s32", "0 or the operation's negative errno";
        mcpp_flags: "__u32", "MCPP_*";
        mcpp_valid: "__u32", "results known: bit i = MLI_BUF index i";
        mcpp_truncated: "__u32", "results over the requester's limit";
        mcpp_fid: "struct lu_fid", "entry found by the lookup, zero otherwise";
        mcpp_child_mode: "__u32", "derived child mode, or S_IFMT of the entry found";
        mcpp_child_gid: "__u32", "derived child gid";
        mcpp_child_projid: "__u32", "derived child project id";
        mcpp_child_flags: "__u32", "derived LUSTRE_*_FL of the child";
        mcpp_buf_size: "__u32" ["MLI_BUF_MAX" = MLI_BUF_MAX], "size of each result on the parent";
        mcpp_padding: "__u64", "zero";
    ),
};

/// Tabs that take a line from column `col` to column `target` (tab stops every 8), at least one.
fn tabs_to(mut col: usize, target: usize) -> String {
    let mut t = String::from("\t");
    col = (col / 8 + 1) * 8;
    while col < target {
        t.push('\t');
        col += 8;
    }
    t
}

/// `#define NAME` followed by the tabs that align its value at column 40.
fn define(name: &str) -> String {
    alloc::format!("#define {name}{}", tabs_to(8 + name.len(), 40))
}

fn ctype_size(ctype: &str) -> usize {
    match ctype {
        "__u8" => 1,
        "__u16" => 2,
        "__u32" | "__s32" => 4,
        "__u64" => 8,
        "struct lu_fid" => 16,
        other => panic!("cheader: no size known for C type {other}"),
    }
}

const GUARD: &str = "_LUSTRE_DNE_PREPARE_H";

/// The C header (`include/lustre_dne_prepare.h`): declarations and `dne_prepare_wirecheck()`.
///
/// # Panics
/// Never for the layouts of this crate: it panics only if a field's C type disagreed with the
/// size of the Rust field it describes, which the crate's tests rule out.
pub fn c_header() -> String {
    let mut h = String::new();
    let structs = [&LU_FID, &REQ, &REP];
    prologue(&mut h);
    constants(&mut h);
    lu_fid(&mut h);
    declare(&mut h, &REQ);
    h.push('\n');
    declare(&mut h, &REP);
    h.push('\n');
    static_asserts(&mut h, &structs);
    wirecheck(&mut h, &structs);
    let _ = writeln!(h, "#endif /* {GUARD} */");
    h
}

fn prologue(h: &mut String) {
    let _ = write!(
        h,
        "\
/* SPDX-License-Identifier: MIT */
/*
 * lustre_dne_prepare.h: the DNE prepare intent (IT_DNE_*_PREPARE) wire structures.
 *
 * Generated by `dne-intent c-header` from the layouts of the lustre-dne-intent reference
 * codec; do not edit. Regenerate with
 *   cargo run -p dne-intent -- c-header > include/lustre_dne_prepare.h
 * Normative description: docs/spec/WIRE.md (sections 4 to 7) of the lustre-dne-intent
 * repository; the section numbers below refer to it.
 *
 * Call dne_prepare_wirecheck() (0 = every size, offset and constant matches the codec) the
 * way Lustre calls lustre_assert_wire_constants(). Define DNE_PREPARE_WIRECHECK_FAIL(what,
 * found, expected) before including this file to report each failure (e.g. with LASSERTF).
 */
#ifndef {GUARD}
#define {GUARD}

#if defined(__KERNEL__) || defined(__linux__)
# include <linux/types.h>
#else
# include <stdint.h>
typedef uint8_t __u8;
typedef uint16_t __u16;
typedef uint32_t __u32;
typedef int32_t __s32;
typedef uint64_t __u64;
#endif
#ifdef __KERNEL__
# include <linux/stddef.h>
#else
# include <stddef.h>
#endif

"
    );
}

/// `struct lu_fid`: Lustre's when its uapi header is (or can be) included, else an identical copy.
///
/// Lustre defines `struct lu_fid` in `lustre_user.h` under that file's guard only
/// (`_LUSTRE_USER_H`), with no guard of its own. A copy defined here would therefore collide with
/// a `lustre_idl.h` included later, and defining Lustre's file guard here would hide the rest of
/// `lustre_user.h`. So the header defines the structure only when no Lustre header can follow:
/// Lustre's is used when it was included first or `__has_include` finds it (then Lustre's own
/// guard makes a later include a no-op); only when neither holds is the copy defined.
fn lu_fid(h: &mut String) {
    h.push_str(
        "/*\n \
         * struct lu_fid is Lustre's (lustre_user.h, which lustre_idl.h includes). Lustre has no\n \
         * guard around the structure itself, only around its file (_LUSTRE_USER_H), so this\n \
         * header never defines a second one beside it: it uses Lustre's when that was included\n \
         * first or can be found (__has_include), and defines an identical copy only otherwise.\n \
         * With a compiler that lacks __has_include, include Lustre's headers first. Define\n \
         * DNE_PREPARE_HAVE_LU_FID when struct lu_fid is declared elsewhere.\n \
         */\n\
         #if !defined(DNE_PREPARE_HAVE_LU_FID) && !defined(_LUSTRE_USER_H) && defined(__has_include)\n\
         # if __has_include(<linux/lustre/lustre_user.h>)\n\
         #  include <linux/lustre/lustre_user.h>\n\
         # endif\n\
         #endif\n\
         #if !defined(DNE_PREPARE_HAVE_LU_FID) && !defined(_LUSTRE_USER_H)\n\
         # if defined(__GNUC__)\n\
         #  define DNE_PREPARE_PACKED __attribute__((packed))\n\
         # else\n\
         #  define DNE_PREPARE_PACKED\n\
         # endif\n",
    );
    declare(h, &LU_FID);
    h.push_str("#endif\n\n");
}

fn constants(h: &mut String) {
    h.push_str("/* Intent opcodes (enum ldlm_intent_flags, ldlm_intent.opc) */\n");
    for (name, v) in [
        ("IT_DNE_CREATE_PREPARE", IntentOpc::DNE_CREATE_PREPARE),
        ("IT_DNE_RENAME_PREPARE", IntentOpc::DNE_RENAME_PREPARE),
        ("IT_DNE_UNLINK_PREPARE", IntentOpc::DNE_UNLINK_PREPARE),
    ] {
        debug_assert_eq!(v.name(), Some(name));
        let _ = writeln!(h, "{}0x{:08x}", define(name), v.0);
    }
    let _ = writeln!(
        h,
        "\n/* ocd_connect_flags2: the peer understands the prepare opcodes (provisional) */\n\
         {}0x{:x}ULL\n",
        define("OBD_CONNECT2_DNE_PREPARE"),
        OBD_CONNECT2_DNE_PREPARE
    );
    h.push_str("/* mcpr_flags */\n");
    for &(name, v) in McprFlags::NAMED {
        let _ = writeln!(h, "{}0x{v:08x}", define(name));
    }
    h.push_str("\n/* mcpp_flags */\n");
    for &(name, v) in McppFlags::NAMED {
        let _ = writeln!(h, "{}0x{v:08x}", define(name));
    }
    h.push_str(
        "\n/* Optional results: reply buffer 3 + i, bit (1 << i) of mcpp_valid/truncated */\n\
         enum md_lock_intent_buf {\n",
    );
    for b in MliBuf::ALL {
        let _ = writeln!(
            h,
            "\t{}{}= {},",
            b.name(),
            tabs_to(8 + b.name().len(), 32),
            b.index()
        );
    }
    let _ = writeln!(h, "\tMLI_BUF_MAX{}= {MLI_BUF_MAX}\n}};\n", tabs_to(19, 32));
}

fn declare(h: &mut String, s: &CStruct) {
    let _ = writeln!(h, "/* {} */\nstruct {} {{", s.doc, s.name);
    let mut end = 0;
    for f in s.fields.iter().map(|f| f()) {
        let elems = f.array.map_or(1, |(_, n)| n);
        assert_eq!(
            ctype_size(f.ctype) * elems,
            f.size,
            "cheader: {}.{} is {} bytes in Rust",
            s.name,
            f.name,
            f.size
        );
        assert_eq!(
            f.offset, end,
            "cheader: {}.{} leaves a hole",
            s.name, f.name
        );
        end = f.offset + f.size;
        let decl = match f.array {
            Some((len, _)) => alloc::format!("{}[{len}];", f.name),
            None => alloc::format!("{};", f.name),
        };
        let ty = alloc::format!("\t{}{}", f.ctype, tabs_to(8 + f.ctype.len(), 24));
        let _ = writeln!(
            h,
            "{ty}{decl}{}/* {} */",
            tabs_to(24 + decl.len(), 48),
            f.doc
        );
    }
    assert_eq!(end, s.size, "cheader: {} has a tail", s.name);
    h.push_str(if s.packed {
        "} DNE_PREPARE_PACKED;\n"
    } else {
        "};\n"
    });
}

fn static_asserts(h: &mut String, structs: &[&CStruct]) {
    h.push_str(
        "#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)\n",
    );
    for s in structs {
        let _ = writeln!(
            h,
            "_Static_assert(sizeof(struct {0}) == {1}, \"struct {0} must be {1} bytes\");",
            s.name, s.size
        );
    }
    h.push_str("#endif\n\n");
}

fn wirecheck(h: &mut String, structs: &[&CStruct]) {
    h.push_str(
        "#ifndef DNE_PREPARE_WIRECHECK_FAIL\n\
         #define DNE_PREPARE_WIRECHECK_FAIL(what, found, expected) ((void)0)\n\
         #endif\n\
         #define DNE_PREPARE_CHECK(what, found, expected)\t\t\t\t\\\n\
         \tdo {\t\t\t\t\t\t\t\t\\\n\
         \t\tif ((unsigned long long)(found) !=\t\t\t\t\\\n\
         \t\t    (unsigned long long)(expected)) {\t\t\t\\\n\
         \t\t\tDNE_PREPARE_WIRECHECK_FAIL(what,\t\t\t\\\n\
         \t\t\t\t(unsigned long long)(found),\t\t\\\n\
         \t\t\t\t(unsigned long long)(expected));\t\\\n\
         \t\t\tfailures++;\t\t\t\t\t\\\n\
         \t\t}\t\t\t\t\t\t\t\\\n\
         \t} while (0)\n\n\
         /* Sizes, offsets and constants of this header checked against the reference codec's\n \
         * layouts; returns the number of mismatches (0 = wire compatible). */\n\
         static inline int dne_prepare_wirecheck(void)\n\
         {\n\
         \tint failures = 0;\n",
    );
    for s in structs {
        let _ = writeln!(h, "\n\t/* Checks for struct {} */", s.name);
        check(h, &alloc::format!("sizeof(struct {})", s.name), s.size);
        for f in s.fields.iter().map(|f| f()) {
            check(
                h,
                &alloc::format!("offsetof(struct {}, {})", s.name, f.name),
                f.offset,
            );
            check(
                h,
                &alloc::format!("sizeof(((struct {} *)0)->{})", s.name, f.name),
                f.size,
            );
        }
    }
    h.push_str("\n\t/* Constants */\n");
    for (name, v) in [
        ("IT_DNE_CREATE_PREPARE", IntentOpc::DNE_CREATE_PREPARE.0),
        ("IT_DNE_RENAME_PREPARE", IntentOpc::DNE_RENAME_PREPARE.0),
        ("IT_DNE_UNLINK_PREPARE", IntentOpc::DNE_UNLINK_PREPARE.0),
        ("OBD_CONNECT2_DNE_PREPARE", OBD_CONNECT2_DNE_PREPARE),
    ] {
        check_hex(h, name, v);
    }
    for &(name, v) in McprFlags::NAMED.iter().chain(McppFlags::NAMED) {
        check_hex(h, name, v.into());
    }
    for b in MliBuf::ALL {
        check(h, b.name(), b.index());
    }
    check(h, "MLI_BUF_MAX", MLI_BUF_MAX);
    h.push_str("\n\treturn failures;\n}\n\n");
}

fn check(h: &mut String, expr: &str, expected: usize) {
    let _ = writeln!(
        h,
        "\tDNE_PREPARE_CHECK(\"{expr}\",\n\t\t\t  {expr}, {expected});"
    );
}

fn check_hex(h: &mut String, expr: &str, expected: u64) {
    let _ = writeln!(
        h,
        "\tDNE_PREPARE_CHECK(\"{expr}\",\n\t\t\t  {expr}, 0x{expected:x}ULL);"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_is_described_and_the_structures_are_80_bytes() {
        let h = c_header();
        assert!(h.contains("struct md_create_prepare_req {"));
        assert!(h.contains("struct md_create_prepare_rep {"));
        assert!(h.contains("DNE_PREPARE_CHECK(\"sizeof(struct md_create_prepare_req)\""));
        assert_eq!(REQ.size, 80);
        assert_eq!(REP.size, 80);
        assert_eq!(REQ.fields.len(), 10);
        assert_eq!(REP.fields.len(), 11);
    }
}
