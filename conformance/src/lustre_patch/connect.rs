//! The connect flag: `OBD_CONNECT2_DNE_PREPARE` reserved the way Lustre reserves a flag (the
//! define, its `obd_connect_names[]` entry, the `wirecheck` row and the `wiretest` assertion),
//! at the bit the protocol fixes, which must be the first free bit of the tree.

use lustre_dne_intent::intent::OBD_CONNECT2_DNE_PREPARE;

use super::PatchError;
use super::base::{Edit, FileDiff, Source};
use super::c::{col_after, pad_to};
use super::{Draft, wirecheck};

/// The define's name; its `obd_connect_names[]` entry is the rest lowercased.
pub(crate) const NAME: &str = "OBD_CONNECT2_DNE_PREPARE";
const PREFIX: &str = "OBD_CONNECT2_";
use super::uapi::IDL;
const NAMES_C: &str = "lustre/obdclass/lprocfs_status.c";
/// The column where the values of the `OBD_CONNECT2_*` defines end.
const DEFINE_END_COL: usize = 54;
/// The column where the comments of `obd_connect_names[]` end.
const NAMES_END_COL: usize = 57;

/// The literal the define is written with; `wiretest` prints it back (`CHECK_DEFINE_64X`).
pub(crate) fn literal() -> String {
    format!("0x{OBD_CONNECT2_DNE_PREPARE:x}ULL")
}

/// `(name, value)` of a `#define OBD_CONNECT2_X 0x...ULL` line.
fn parse_define(line: &str) -> Option<(String, u64)> {
    let rest = line.strip_prefix("#define ")?;
    let mut it = rest.split_whitespace();
    let name = it.next()?;
    if !name.starts_with(PREFIX) {
        return None;
    }
    let v = it.next()?.trim_end_matches("ULL");
    let v = u64::from_str_radix(v.strip_prefix("0x")?, 16).ok()?;
    Some((name.to_string(), v))
}

pub(crate) fn draft(src: &Source) -> Result<Draft, PatchError> {
    let idl = src.file(IDL)?;
    if idl.any(|l| l.contains(NAME)) {
        return Err(PatchError::AlreadyApplied {
            path: IDL.into(),
            what: NAME.into(),
        });
    }
    let last = idl.find_last("the last OBD_CONNECT2_* define", |l| {
        parse_define(l).is_some()
    })?;
    let (last_name, last_value) = parse_define(&idl.line(last)?).ok_or(PatchError::Anchor {
        path: IDL.into(),
        what: "the last OBD_CONNECT2_* define".into(),
        why: "it does not parse".into(),
    })?;
    let ours = OBD_CONNECT2_DNE_PREPARE;
    let first_free = last_value << 1;
    if ours <= last_value {
        // Taken: the protocol's flag must move, in the crate first (WIRE.md section 4).
        return Err(PatchError::Conflict {
            path: IDL.into(),
            what: format!(
                "{NAME} is 0x{ours:x} (bit {}) in the protocol, but that bit is taken in this \
                 tree (the highest flag is {last_name} 0x{last_value:x}); the first free \
                 bit is 0x{first_free:x}: reserve it for the prepare intent and change \
                 OBD_CONNECT2_DNE_PREPARE in the crate (WIRE.md section 4) before generating \
                 the series",
                ours.trailing_zeros()
            ),
        });
    }
    if ours != first_free {
        return Err(PatchError::Conflict {
            path: IDL.into(),
            what: format!(
                "{NAME} is 0x{ours:x} (bit {}), but the first free OBD_CONNECT2 bit of this \
                 tree is 0x{first_free:x}: obd_connect_names[] is indexed by bit, so the flags \
                 between (reserved on master) must be ported to this tree first",
                ours.trailing_zeros()
            ),
        });
    }
    let value = literal();
    let head = format!("#define {NAME}");
    let define = format!(
        "{head}{}{value} /* DNE prepare intents */",
        pad_to(col_after(0, &head), DEFINE_END_COL - value.len())
    );
    let mut idl_edits = vec![Edit::insert_after(last, vec![define])];
    let idl_diff = idl.diff_and_apply(&mut idl_edits)?;

    // obd_connect_names[]: one name per bit, NULL-terminated.
    let names = src.file(NAMES_C)?;
    let start = names.find_line("static const char *const obd_connect_names[] = {")?;
    let null = names.find_after(start, "the NULL ending obd_connect_names[]", |l| {
        l == "\tNULL"
    })?;
    let prev = names.line(null - 1)?;
    let want = format!("/* 0x{last_value:x} */");
    if !prev.ends_with(&want) {
        return Err(PatchError::Anchor {
            path: NAMES_C.into(),
            what: "the last obd_connect_names[] entry".into(),
            why: format!("it is {prev:?}, not the name of {last_name}"),
        });
    }
    let entry = format!("\t\"{}\",", NAME[PREFIX.len()..].to_lowercase());
    let cmt = format!("/* 0x{ours:x} */");
    let entry = format!(
        "{entry}{}{cmt}",
        pad_to(col_after(0, &entry), NAMES_END_COL - cmt.len())
    );
    let names_diff = names.diff_and_apply(&mut [Edit::insert_before(null, vec![entry])])?;

    let mut diffs = vec![idl_diff, names_diff];
    diffs.extend(connect_flag_rows(src, &last_name)?);
    Ok(Draft {
        summary: format!("idl: reserve {NAME} flag"),
        body: vec![
            format!(
                "Reserve {NAME} connect flag {value} for the DNE prepare \
                 intents (IT_DNE_CREATE_PREPARE, IT_DNE_RENAME_PREPARE, \
                 IT_DNE_UNLINK_PREPARE): an MDT that sets it understands them, \
                 and a coordinator MDT sends them only to a peer whose connection \
                 has it, since an MDT that does not know an intent opcode fails \
                 the whole enqueue with -EPROTO."
            ),
            "Add its obd_connect_names[] entry, the wirecheck row and the \
             wiretest assertions; the feature itself follows in separate \
             patches."
                .into(),
        ],
        test_parameters: Some("trivial".into()),
        diffs,
    })
}

/// The rows reserving the connect flag, after those of `last` (the patch of the flag).
fn connect_flag_rows(src: &Source, last: &str) -> Result<Vec<FileDiff>, PatchError> {
    let wc = src.file(wirecheck::WIRECHECK)?;
    let at = wc.find_line(&format!("\tCHECK_DEFINE_64X({last});"))?;
    let mut diffs = vec![wc.diff_and_apply(&mut [Edit::insert_after(
        at,
        vec![format!("\tCHECK_DEFINE_64X({});", NAME)],
    )])?];
    for path in wirecheck::WIRETESTS {
        let wt = src.file(path)?;
        let at = wt.find(last, |l| l.starts_with(&format!("\tLASSERTF({last} == ")))?;
        wt.line(at + 1)?;
        let rows = wirecheck::check_define_64x(NAME, &literal());
        diffs.push(wt.diff_and_apply(&mut [Edit::insert_after(at + 1, rows)])?);
    }
    Ok(diffs)
}
