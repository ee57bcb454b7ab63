//! `lustre_swab_md_create_prepare_req()` and `_rep()` in `pack_generic.c`, with their
//! prototypes in `lustre_swab.h`: every member swabbed by its type, a structure by its own
//! swabber, an array element by element, padding named by a `BUILD_BUG_ON` as Lustre does.

use super::base::{Edit, Source};
use super::c::{MLI_BUF_NR, is_padding, lines, mli_array, series_bound};
use super::layout::{FieldType, Layout};
use super::{Draft, PatchError, new_layouts};

const PACK: &str = "lustre/ptlrpc/pack_generic.c";
const SWAB_H: &str = "lustre/include/lustre_swab.h";

/// The swabber's name.
pub(crate) fn swabber(l: &Layout) -> String {
    format!("lustre_swab_{}", l.name)
}

/// Its prototype.
pub(crate) fn prototype(l: &Layout) -> String {
    format!("void {}(struct {} *{})", swabber(l), l.name, var(l))
}

/// The parameter's name: short, as in Lustre's swabbers (`r`, `b`), but telling the two
/// bodies apart where a reader meets both.
fn var(l: &Layout) -> &'static str {
    if l.name.ends_with("_rep") {
        "rep"
    } else {
        "req"
    }
}

/// The statement that swabs one element of type `ty` at `lvalue`.
fn swab_stmt(ty: FieldType, lvalue: &str) -> Option<String> {
    match ty {
        FieldType::U8 => None,
        FieldType::U16 => Some(format!("__swab16s(&{lvalue});")),
        FieldType::U32 | FieldType::S32 => Some(format!("__swab32s(&{lvalue});")),
        FieldType::U64 | FieldType::S64 => Some(format!("__swab64s(&{lvalue});")),
        FieldType::Struct(s) => Some(format!("lustre_swab_{}(&{lvalue});", s.name)),
    }
}

/// The swabber of `l`.
pub(crate) fn swab_fn(l: &Layout) -> Vec<String> {
    let v = var(l);
    let mut out = vec![prototype(l), "{".into()];
    if l.fields.iter().any(|f| f.array.is_some() && !is_padding(f)) {
        out.push("\tint i;".into());
        out.push(String::new());
    }
    // The arrays by result have a fixed wire length: a result added to the enum must not
    // build until the wire changes with it.
    if mli_array(l).is_some() {
        out.push(format!("\tBUILD_BUG_ON(MLI_BUF_MAX != {MLI_BUF_NR});"));
    }
    for f in l.fields {
        if is_padding(f) {
            out.push(format!(
                "\tBUILD_BUG_ON(offsetof(typeof(*{v}), {}) == 0);",
                f.name
            ));
            continue;
        }
        match f.array {
            Some(a) => {
                let bound = series_bound(a);
                if let Some(s) = swab_stmt(f.ty, &format!("{v}->{}[i]", f.name)) {
                    out.push(format!("\tfor (i = 0; i < {bound}; i++)"));
                    out.push(format!("\t\t{s}"));
                }
            }
            None => {
                if let Some(s) = swab_stmt(f.ty, &format!("{v}->{}", f.name)) {
                    out.push(format!("\t{s}"));
                }
            }
        }
    }
    out.push("}".into());
    out
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let layouts = new_layouts()?;
    let pack = src.file(PACK)?;
    let start = pack.find_line("void lustre_swab_ldlm_reply(struct ldlm_reply *r)")?;
    let end = pack.find_after(start, "the end of lustre_swab_ldlm_reply()", |l| l == "}")?;
    let mut fns = Vec::new();
    for l in layouts {
        fns.push(String::new());
        fns.extend(swab_fn(l));
    }
    let pack_diff = pack.diff_and_apply(&mut [Edit::insert_after(end, fns)])?;

    let h = src.file(SWAB_H)?;
    let at = h.find_line("void lustre_swab_ldlm_reply(struct ldlm_reply *r);")?;
    let protos = layouts
        .iter()
        .map(|l| format!("{};", prototype(l)))
        .collect();
    let h_diff = h.diff_and_apply(&mut [Edit::insert_after(at, protos)])?;
    Ok(Draft {
        summary: "ptlrpc: swab DNE prepare intent bodies".into(),
        body: lines(
            "Add lustre_swab_md_create_prepare_req() and \
             lustre_swab_md_create_prepare_rep() for the bodies of the DNE \
             prepare intents, so that a peer of the other byte order can send \
             them. Every numeric member is swabbed; the FIDs by \
             lustre_swab_lu_fid(), the per-result arrays element by element. \
             The MLI_BUF_NR arrays are tied to enum md_lock_intent_buf by a \
             BUILD_BUG_ON, so that a new result cannot change the wire unseen. \
             The caller's supplementary groups, an array of __u32, are swabbed \
             element by element by lustre_swab_generic_32s() through their \
             request field RMF_DNE_PREPARE_GROUPS, and the xattr results of the reply are \
             never swabbed: they are stored and sent little-endian.",
        ),
        test_parameters: Some("trivial".into()),
        diffs: vec![pack_diff, h_diff],
    })
}
