//! `lustre/utils/wirecheck.c` rows for the new structures and the `wiretest.c` blocks they
//! print, in both copies (`lustre/ptlrpc/wiretest.c` for the kernel, `lustre/utils/wiretest.c`
//! for user space), as `make -C lustre/utils newwiretest` writes them.
//!
//! The printed text is wirecheck's own: each function below writes what the macro of the same
//! name prints (`CHECK_STRUCT`, `CHECK_MEMBER`, `CHECK_VALUE`, `CHECK_VALUE_X`,
//! `CHECK_CVALUE_X`, `CHECK_DEFINE_64X`), with the values of the crate's layouts. Running the
//! real wirecheck on a patched tree prints the same lines (`docs/lustre-patch.md`).

use lustre_dne_intent::intent::{MliBuf, Operation};

use super::base::{Edit, Source};
use super::c::{c_constants, lines, mli_array};
use super::layout::Layout;
use super::{Draft, PatchError, new_layouts};

pub(crate) const WIRECHECK: &str = "lustre/utils/wirecheck.c";
/// Both copies of the generated assertions.
pub(crate) const WIRETESTS: [&str; 2] = ["lustre/ptlrpc/wiretest.c", "lustre/utils/wiretest.c"];

/// `CHECK_VALUE(expr)`.
fn check_value(expr: &str, v: u64) -> Vec<String> {
    vec![
        format!("\tLASSERTF({expr} == {v}, \"found %lld\\n\","),
        format!("\t\t (long long){expr});"),
    ]
}

/// `CHECK_VALUE_X(name)`.
fn check_value_x(name: &str, v: u64) -> Vec<String> {
    vec![
        format!("\tLASSERTF({name} == 0x{v:08x}UL, \"found 0x%.8xUL\\n\","),
        format!("\t\t (unsigned){name});"),
    ]
}

/// `CHECK_CVALUE_X(name)`.
fn check_cvalue_x(name: &str, v: u64) -> String {
    format!("\tBUILD_BUG_ON({name} != 0x{v:08x});")
}

/// `CHECK_DEFINE_64X(name)`, for a define written as `literal`.
pub(crate) fn check_define_64x(name: &str, literal: &str) -> Vec<String> {
    vec![
        format!("\tLASSERTF({name} == {literal}, \"found 0x%.16llxULL\\n\","),
        format!("\t\t {name});"),
    ]
}

/// One assertion of a structure's layout. The series' `wiretest.c` rows and the C header's
/// `dne_prepare_wirecheck()` are both written from these ([`layout_checks`], [`value_checks`]),
/// each in its own C.
pub(crate) enum Check<'a> {
    /// `sizeof(struct s)`.
    Size { s: &'a str, size: usize },
    /// `offsetof(struct s, m)`.
    Offset {
        s: &'a str,
        m: &'a str,
        offset: usize,
    },
    /// `sizeof(((struct s *)0)->m)`.
    MemberSize { s: &'a str, m: &'a str, size: usize },
}

/// One named constant a wirecheck compares, in hex (`hex`, a flag) or in decimal.
pub(crate) struct ValueCheck<'a> {
    pub(crate) name: &'a str,
    pub(crate) value: u64,
    pub(crate) hex: bool,
}

/// The layout of one structure: its size, then each member's offset and size.
pub(crate) fn layout_checks(l: &Layout) -> Vec<Check<'_>> {
    let s = l.name;
    let mut out = vec![Check::Size { s, size: l.size }];
    for f in l.fields {
        out.push(Check::Offset {
            s,
            m: f.name,
            offset: f.offset,
        });
        out.push(Check::MemberSize {
            s,
            m: f.name,
            size: f.size,
        });
    }
    out
}

/// The named values a structure's members carry: each flag of a flags member, and for an
/// array member indexed by result, the result indices and their count (once, with the
/// `first` structure that has one).
pub(crate) fn value_checks(l: &Layout, first: bool) -> Vec<ValueCheck<'_>> {
    let mut out: Vec<ValueCheck<'_>> = l
        .fields
        .iter()
        .flat_map(|f| c_constants(f).unwrap_or(&[]))
        .map(|&(name, value)| ValueCheck {
            name,
            value,
            hex: true,
        })
        .collect();
    if let Some(a) = mli_array(l).filter(|_| first) {
        out.extend(MliBuf::ALL.map(|b| ValueCheck {
            name: b.name(),
            value: b.index() as u64,
            hex: false,
        }));
        out.push(ValueCheck {
            name: a.c_name,
            value: a.len as u64,
            hex: false,
        });
    }
    out
}

/// What `CHECK_STRUCT` and `CHECK_MEMBER` print for one structure.
fn struct_rows(l: &Layout) -> Vec<String> {
    let mut out = vec![format!("\t/* Checks for struct {} */", l.name)];
    for c in layout_checks(l) {
        out.extend(match c {
            Check::Size { s, size } => {
                check_value(&format!("(int)sizeof(struct {s})"), size as u64)
            }
            Check::Offset { s, m, offset } => {
                check_value(&format!("(int)offsetof(struct {s}, {m})"), offset as u64)
            }
            Check::MemberSize { s, m, size } => {
                check_value(&format!("(int)sizeof(((struct {s} *)0)->{m})"), size as u64)
            }
        });
    }
    out
}

/// The value rows of one structure: as `wiretest.c` prints them, and as `wirecheck.c` writes
/// them.
fn value_rows(l: &Layout, first: bool) -> (Vec<String>, Vec<String>) {
    let mut printed = Vec::new();
    let mut source = Vec::new();
    for ValueCheck { name, value, hex } in value_checks(l, first) {
        if hex {
            printed.extend(check_value_x(name, value));
            source.push(format!("\tCHECK_VALUE_X({name});"));
        } else {
            printed.extend(check_value(name, value));
            source.push(format!("\tCHECK_VALUE({name});"));
        }
    }
    (printed, source)
}

/// The `wiretest.c` block of one structure (what its `check_*()` prints), blank line first.
pub(crate) fn wiretest_block(l: &Layout, first: bool) -> Vec<String> {
    let mut out = vec![String::new()];
    out.extend(struct_rows(l));
    out.extend(value_rows(l, first).0);
    out
}

/// The `check_*()` function of one structure in `wirecheck.c`.
pub(crate) fn wirecheck_fn(l: &Layout, first: bool) -> Vec<String> {
    let mut out = lines(&format!(
        "static void\ncheck_{0}(void)\n{{\n\tBLANK_LINE();\n\tCHECK_STRUCT({0});",
        l.name
    ));
    for f in l.fields {
        out.push(format!("\tCHECK_MEMBER({}, {});", l.name, f.name));
    }
    let (_, values) = value_rows(l, first);
    if !values.is_empty() {
        out.push(String::new());
        out.extend(values);
    }
    out.push("}".into());
    out
}

/// The opcodes' `BUILD_BUG_ON` rows (in `check_ldlm_intent()`).
fn opcode_rows() -> (Vec<String>, Vec<String>) {
    let mut printed = Vec::new();
    let mut source = Vec::new();
    for op in Operation::ALL {
        printed.push(check_cvalue_x(op.opc_name(), op.opc().0));
        source.push(format!("\tCHECK_CVALUE_X({});", op.opc_name()));
    }
    (printed, source)
}

pub(super) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let layouts = new_layouts()?;
    let mut diffs = Vec::new();

    let wc = src.file(WIRECHECK)?;
    let (opc_printed, opc_source) = opcode_rows();
    let brw = wc.find_line("\tCHECK_CVALUE_X(IT_BRW);")?;
    let reply_fn = wc.find_line("check_ldlm_reply(void)")?;
    let reply_end = wc.find_after(reply_fn, "the end of check_ldlm_reply()", |l| l == "}")?;
    let mut fns = Vec::new();
    for (i, l) in layouts.iter().enumerate() {
        fns.push(String::new());
        fns.extend(wirecheck_fn(l, i == 0));
    }
    let call = wc.find_line("\tcheck_ldlm_reply();")?;
    let calls = layouts
        .iter()
        .map(|l| format!("\tcheck_{}();", l.name))
        .collect();
    diffs.push(wc.diff_and_apply(&mut [
        Edit::insert_after(brw, opc_source),
        Edit::insert_after(reply_end, fns),
        Edit::insert_after(call, calls),
    ])?);

    for path in WIRETESTS {
        let wt = src.file(path)?;
        let brw = wt.find_line("\tBUILD_BUG_ON(IT_BRW != 0x00008000);")?;
        let reply = wt.find_line("\t/* Checks for struct ldlm_reply */")?;
        let blank = wt.find_after(reply, "the end of the ldlm_reply block", str::is_empty)?;
        let mut blocks = Vec::new();
        for (i, l) in layouts.iter().enumerate() {
            blocks.extend(wiretest_block(l, i == 0));
        }
        diffs.push(wt.diff_and_apply(&mut [
            Edit::insert_after(brw, opc_printed.clone()),
            Edit::insert_before(blank, blocks),
        ])?);
    }
    Ok(Draft {
        summary: "utils: add DNE prepare intent to wirecheck".into(),
        body: vec![
            "Check the layout of struct md_create_prepare_req and struct \
             md_create_prepare_rep, their MCPR_*/MCPP_* flags, enum \
             md_lock_intent_buf and the IT_DNE_*_PREPARE opcodes in wirecheck, \
             and regenerate both copies of wiretest.c with \
             'make -C lustre/utils newwiretest'."
                .into(),
            "The values asserted are those of the reference codec the structures \
             were designed with (LU-20808), so a build that passes wiretest agrees \
             with it on every size and offset."
                .into(),
        ],
        test_parameters: Some("trivial".into()),
        diffs,
    })
}
