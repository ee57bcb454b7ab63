//! `lustre_idl.h`: the three intents as members of `enum ldlm_intent_flags`, and the new
//! structures with their flags and `enum md_lock_intent_buf`, in Lustre's types and style.

use lustre_dne_intent::intent::{MliBuf, Operation};

use super::base::{Edit, Source};
use super::c::{
    MLI_BUF_NR, block_comment, c_constants, enum_decl, mli_array, series_struct_decl, struct_decl,
};
use super::layout::{Layout, md_create_prepare_rep};
use super::{Draft, PatchError, new_layouts};

pub(crate) const IDL: &str = "include/uapi/linux/lustre/lustre_idl.h";

/// `IT_FOO = 0x...` of an `enum ldlm_intent_flags` line, commented out or not.
fn intent_member(line: &str) -> Option<(String, u64)> {
    let t = line.trim_start_matches("/*").trim();
    let (name, rest) = t.split_once('=')?;
    let name = name.trim();
    if !name.starts_with("IT_") {
        return None;
    }
    let v = rest.trim().split([',', ' ']).next()?;
    Some((
        name.to_string(),
        u64::from_str_radix(v.strip_prefix("0x")?, 16).ok()?,
    ))
}

pub(super) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let idl = src.file(IDL)?;
    let [req, rep] = new_layouts()?;
    if idl.any(|l| l.starts_with(&format!("struct {} {{", req.name))) {
        return Err(PatchError::AlreadyApplied {
            path: IDL.into(),
            what: format!("struct {}", req.name),
        });
    }

    // The intents: free names and bits of the enum, retired ones (commented out) included.
    let open = idl.find_line("enum ldlm_intent_flags {")?;
    let close = idl.find_after(open, "the end of enum ldlm_intent_flags", |l| l == "};")?;
    let existing: Vec<(String, u64)> = idl
        .lines(open + 1, close)?
        .iter()
        .filter_map(|l| intent_member(l))
        .collect();
    let mut members = Vec::new();
    for op in Operation::ALL {
        let (name, v) = (op.opc_name(), op.opc().0);
        if let Some((other, _)) = existing.iter().find(|(n, e)| n == name || e & v != 0) {
            return Err(PatchError::Conflict {
                path: IDL.into(),
                what: format!(
                    "{name} = 0x{v:08x} collides with {other} in enum ldlm_intent_flags: the \
                     prepare opcodes must move (WIRE.md section 4)"
                ),
            });
        }
        members.push(format!(
            "\t{name} = 0x{v:08x}, /* DNE prepare: {} */",
            op.name()
        ));
    }

    // The structures, after the LDLM ones they travel with.
    let anchor = idl.find("#define ldlm_flags_from_wire(flags)", |l| {
        l.starts_with("#define ldlm_flags_from_wire(")
    })?;
    let mut decl = vec![String::new()];
    decl.extend(block_comment(
        "",
        "DNE prepare intents (IT_DNE_*_PREPARE): an MDT coordinating a create, \
         rename or unlink in a remote parent directory enqueues the parent's \
         name-hash lock with one of them; the parent's MDT answers, under that \
         lock, with the lookup, the permission checks and the inheritance the \
         operation needs, and with the results of enum md_lock_intent_buf. Sent \
         in the sender's byte order. Gated by OBD_CONNECT2_DNE_PREPARE.",
    ));
    decl.push(String::new());
    decl.extend(declarations_of(req, rep, true));
    let diff = idl.diff_and_apply(&mut [
        Edit::insert_before(close, members),
        Edit::insert_after(anchor, decl),
    ])?;
    Ok(Draft {
        summary: "idl: add DNE prepare intent structures".into(),
        body: vec![
            "Add the opcodes IT_DNE_CREATE_PREPARE, IT_DNE_RENAME_PREPARE and \
             IT_DNE_UNLINK_PREPARE to enum ldlm_intent_flags, and the bodies \
             they carry: struct md_create_prepare_req (request buffer 3, after \
             the ldlm_intent) and struct md_create_prepare_rep (reply buffer 2, \
             after the ldlm_reply), with their MCPR_*/MCPP_* flags and enum \
             md_lock_intent_buf, the optional results of the parent that follow \
             it in reply buffers 3 to 8."
                .into(),
            "A coordinator MDT sends a prepare intent on the enqueue of the name \
             lock in a remote parent directory, so that the parent's MDT does \
             the lookup, the permission checks and the inheritance of a remote \
             create, rename or unlink under that lock and returns them in the \
             same RPC."
                .into(),
            "The layouts were designed with a reference codec that decodes and \
             checks both messages."
                .into(),
        ],
        test_parameters: Some("trivial".into()),
        diffs: vec![diff],
    })
}

/// The declarations the series adds to `lustre_idl.h` after the LDLM structures, which the C
/// header (`crate::cheader`) also carries for a tree without them: `enum md_lock_intent_buf`,
/// each flags member's enum, and the two structures. One renderer, so the two cannot differ.
pub(crate) fn declarations(req: &Layout, rep: &Layout) -> Vec<String> {
    declarations_of(req, rep, false)
}

/// [`declarations`]; in the `series`, the arrays indexed by result are `[MLI_BUF_NR]`, a
/// fixed wire length defined after the enum, so that a new result cannot change the wire.
fn declarations_of(req: &Layout, rep: &Layout, series: bool) -> Vec<String> {
    let mli: Vec<(String, u64, Option<String>)> = MliBuf::ALL
        .iter()
        .map(|b| {
            let what = b.xattr_name().unwrap_or("struct mdt_body");
            (
                b.name().to_string(),
                b.index() as u64,
                Some(what.to_string()),
            )
        })
        .chain(mli_array(req).map(|a| (a.c_name.to_string(), a.len as u64, None)))
        .collect();
    let (valid, truncated) = (
        md_create_prepare_rep::mcpp_valid,
        md_create_prepare_rep::mcpp_truncated,
    );
    let doc = format!(
        "Optional results: reply buffer 3 + i, bit (1 << i) of {} and {}",
        valid.name, truncated.name
    );
    let mut decl = enum_decl(&doc, "md_lock_intent_buf", &mli, false);
    if let (true, Some(a)) = (series, mli_array(req)) {
        decl.push(String::new());
        decl.push("/* wire length of the arrays by result, whatever MLI_BUF_MAX is */".into());
        decl.push(format!("#define {MLI_BUF_NR}\t{}", a.len));
    }
    for l in [req, rep] {
        for f in l.fields {
            if let Some(names) = c_constants(f) {
                let m: Vec<_> = names
                    .iter()
                    .map(|&(n, v)| (n.to_string(), v, None))
                    .collect();
                decl.push(String::new());
                decl.extend(enum_decl(
                    &format!("{}.{}", l.name, f.name),
                    f.name,
                    &m,
                    true,
                ));
            }
        }
        decl.push(String::new());
        decl.extend(if series {
            series_struct_decl(l)
        } else {
            struct_decl(l)
        });
    }
    decl
}
