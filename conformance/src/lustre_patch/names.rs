//! `ldlm_it2str()` names the prepare opcodes, so that debug messages about their locks say
//! which intent they carry instead of "UNKNOWN".

use lustre_dne_intent::intent::Operation;

use super::base::{Edit, Source};
use super::{Draft, PatchError};

const LDLM_LOCK: &str = "lustre/ldlm/ldlm_lock.c";

/// The name `ldlm_it2str()` gives an opcode: its C name without `IT_`, lowercased.
pub(crate) fn it2str(op: Operation) -> String {
    op.opc_name().trim_start_matches("IT_").to_lowercase()
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let f = src.file(LDLM_LOCK)?;
    let start = f.find_line("const char *ldlm_it2str(enum ldlm_intent_flags it)")?;
    let default = f.find_after(start, "the default case of ldlm_it2str()", |l| {
        l == "\tdefault:"
    })?;
    let mut cases = Vec::new();
    for op in Operation::ALL {
        cases.push(format!("\tcase {}:", op.opc_name()));
        cases.push(format!("\t\treturn \"{}\";", it2str(op)));
    }
    let diff = f.diff_and_apply(&mut [Edit::insert_before(default, cases)])?;
    Ok(Draft {
        summary: "ldlm: name DNE prepare intents in ldlm_it2str()".into(),
        body: vec![
            "Let ldlm_it2str() name IT_DNE_CREATE_PREPARE, IT_DNE_RENAME_PREPARE \
             and IT_DNE_UNLINK_PREPARE, so that lock debug messages show the \
             intent instead of \"UNKNOWN\" and an error about it."
                .into(),
        ],
        test_parameters: Some("trivial".into()),
        diffs: vec![diff],
    })
}
