//! The vector set: the golden vectors of `testdata/`, and mutants of them chosen so that every
//! decoder rule of WIRE.md is broken at least once, with boundary values, both byte orders and
//! the accepted-but-unusual forms.
//!
//! Deterministic: the same seed gives the same cases in the same order with the same `tcId`s.

use std::collections::BTreeMap;

use super::mutate::{
    limit_offsets, reply_body_fields, reply_shapes, request_body_fields, request_shapes,
    truncations, words, xattr_shapes,
};
use super::reorder::{swab_like, swab_message};
use super::{Case, Expect, Kind, Prng, broken_rules, judge};
use lustre_dne_intent::Endian;

/// The seed of the committed vector set (`testdata/vectors/`).
pub const VECTOR_SEED: u64 = 0;

/// Each flag a case may carry, with the note the JSON's `notes` gives it.
pub const FLAG_NOTES: &[(&str, &str)] = &[
    (
        "Golden",
        "A golden vector of testdata/, built by an implementation independent of the crate",
    ),
    (
        "Canonical",
        "The input is its own canonical form (WIRE.md section 11)",
    ),
    (
        "BigEndian",
        "A big-endian message. Valid: its canonical form is the little-endian one. Invalid: \
         the little-endian case its comment names (\"the twin of tcId N\") as a big-endian \
         peer writes it, breaking the same rules; swabbed, it is that case byte for byte",
    ),
    (
        "NonCanonical",
        "Obeys every rule in an unusual form whose re-encoding differs (padding, buffer count, \
         longer structures, ids, layout offsets): decoders accept it, rejecting it also passes",
    ),
    (
        "Boundary",
        "A value at a bound the spec states (name length, group count, limits)",
    ),
    (
        "FieldChanged",
        "One aligned 32-bit field of a valid input was set to another value",
    ),
    (
        "Targeted",
        "One field of a valid reply's body, or of the request it answers, set to a value a rule \
         about it turns on: the derived child's file type, permission bits, S_ISGID, project or \
         flags, the requested file type (W7.18 to W7.23), a zero mcpp_fid with only f_ver set \
         (kept, W11.10)",
    ),
    (
        "ShapeChanged",
        "A buffer of a valid input was replaced, removed or added",
    ),
    (
        "RequestChanged",
        "The reply is unchanged; the request it answers was changed (still a valid request)",
    ),
    (
        "BufferCount",
        "Acceptable: fewer buffers than the canonical count, or an empty buffer past the last",
    ),
    (
        "LongerStructure",
        "Acceptable: a fixed structure longer than its size (the tail is ignored)",
    ),
    (
        "PtlrpcBodyV2",
        "Acceptable: a ptlrpc_body shorter than v3 (at least the 152 bytes of v2)",
    ),
    (
        "FieldNormalised",
        "Acceptable: a field the canonical form fixes (padding, reserved, the id of an ACL \
         entry that names no one, layout offsets) holds another value",
    ),
    ("Truncated", "A valid input cut short"),
    (
        "RuleBroken",
        "Invalid: the input breaks every rule in `rules` (`rule`, the first, is the one the \
         crate reports); a decoder may report any of them",
    ),
];

/// A valid starting point: an input, its kind, and for a reply its request.
struct Base {
    name: &'static str,
    kind: Kind,
    bytes: &'static [u8],
    request: Option<&'static [u8]>,
}

macro_rules! td {
    ($f:literal) => {
        include_bytes!(concat!("../testdata/", $f))
    };
}

const MKDIR_REQ: &[u8] = td!("mkdir_request.bin");
const MKDIR_REQ_BE: &[u8] = td!("mkdir_request_be.bin");
const RENAME_REQ: &[u8] = td!("rename_object_request.bin");
const UNLINK_REQ: &[u8] = td!("unlink_request.bin");

fn bases() -> Vec<Base> {
    use Kind::*;
    const ACL: Kind = Xattr("system.posix_acl_default");
    const PIN: Kind = Xattr("trusted.pin");
    const LMV: Kind = Xattr("trusted.lmv");
    const LOV: Kind = Xattr("trusted.lov");
    const DMV: Kind = Xattr("trusted.dmv");
    let b = |name, kind, bytes, request| Base {
        name,
        kind,
        bytes,
        request,
    };
    vec![
        b("mkdir_request", Request, MKDIR_REQ, None),
        b("mkdir_request_be", Request, MKDIR_REQ_BE, None),
        b(
            "mkdir_request_partial",
            Request,
            td!("mkdir_request_partial.bin"),
            None,
        ),
        b("rename_object_request", Request, RENAME_REQ, None),
        b("unlink_request", Request, UNLINK_REQ, None),
        b(
            "mkdir_reply_complete",
            Reply,
            td!("mkdir_reply_complete.bin"),
            Some(MKDIR_REQ),
        ),
        b(
            "mkdir_reply_absent",
            Reply,
            td!("mkdir_reply_absent.bin"),
            Some(MKDIR_REQ),
        ),
        b(
            "mkdir_reply_advisory",
            Reply,
            td!("mkdir_reply_advisory.bin"),
            Some(MKDIR_REQ),
        ),
        b(
            "mkdir_reply_eexist",
            Reply,
            td!("mkdir_reply_eexist.bin"),
            Some(MKDIR_REQ),
        ),
        b(
            "mkdir_reply_empty",
            Reply,
            td!("mkdir_reply_empty.bin"),
            Some(MKDIR_REQ),
        ),
        b(
            "mkdir_reply_lov_truncated",
            Reply,
            td!("mkdir_reply_lov_truncated.bin"),
            Some(MKDIR_REQ),
        ),
        b(
            "mkdir_reply_be",
            Reply,
            td!("mkdir_reply_be.bin"),
            Some(MKDIR_REQ_BE),
        ),
        b(
            "rename_object_reply",
            Reply,
            td!("rename_object_reply.bin"),
            Some(RENAME_REQ),
        ),
        b(
            "unlink_reply",
            Reply,
            td!("unlink_reply.bin"),
            Some(UNLINK_REQ),
        ),
        b("xattr_acl_default", ACL, td!("xattr_acl_default.bin"), None),
        b("xattr_acl_access", ACL, td!("xattr_acl_access.bin"), None),
        b("xattr_acl_32", ACL, td!("xattr_acl_32.bin"), None),
        b("xattr_acl_large", ACL, td!("xattr_acl_large.bin"), None),
        b("xattr_pin_both", PIN, td!("xattr_pin_both.bin"), None),
        b("xattr_pin_unknown", PIN, td!("xattr_pin_unknown.bin"), None),
        b("xattr_lmv_striped", LMV, td!("xattr_lmv_striped.bin"), None),
        b("xattr_lmv_stripe", LMV, td!("xattr_lmv_stripe.bin"), None),
        b("xattr_lmv_foreign", LMV, td!("xattr_lmv_foreign.bin"), None),
        b("xattr_lov_v1", LOV, td!("xattr_lov_v1.bin"), None),
        b(
            "xattr_lov_v1_objects",
            LOV,
            td!("xattr_lov_v1_objects.bin"),
            None,
        ),
        b("xattr_lov_v3_pool", LOV, td!("xattr_lov_v3_pool.bin"), None),
        b("xattr_lov_comp3", LOV, td!("xattr_lov_comp3.bin"), None),
        b("xattr_lov_foreign", LOV, td!("xattr_lov_foreign.bin"), None),
        // A PFL layout whose second component is not instantiated: one placeholder entry.
        b(
            "synth_lov_pfl_uninit",
            LOV,
            td!("synth/lov_pfl_uninit.bin"),
            None,
        ),
        b("xattr_dmv_none", DMV, td!("xattr_dmv_none.bin"), None),
        b(
            "xattr_dmv_specific",
            DMV,
            td!("xattr_dmv_specific.bin"),
            None,
        ),
        b(
            "xattr_dmv_inherit3",
            DMV,
            td!("xattr_dmv_inherit3.bin"),
            None,
        ),
        b("xattr_dmv_max", DMV, td!("xattr_dmv_max.bin"), None),
        b("xattr_dmv_end", DMV, td!("xattr_dmv_end.bin"), None),
        b(
            "xattr_dmv_unlimited",
            DMV,
            td!("xattr_dmv_unlimited.bin"),
            None,
        ),
    ]
}

/// Inputs larger than this are not mutated field by field (the ACL of 8191 entries is kept as
/// a boundary case, its mutants would only repeat the small ACLs' at 128 KiB of hex each).
const MUTATE_MAX_LEN: usize = 4096;

/// Result payloads that break a §9 rule, placed in a reply (index = the result).
fn bad_payloads() -> Vec<(String, usize, Vec<u8>)> {
    use lustre_dne_intent::xattr::acl::{posix_acl_xattr_entry as entry, posix_acl_xattr_header};
    let acl: &[u8] = td!("xattr_acl_default.bin");
    let mut perm8 = acl.to_vec();
    perm8[posix_acl_xattr_header::LAYOUT.size + entry::e_perm.offset] = 8;
    let mut version3 = acl.to_vec();
    version3[0] = 3;
    let mut lmv = td!("xattr_lmv_striped.bin").to_vec();
    lmv[..4].copy_from_slice(&0x1234_5678u32.to_le_bytes());
    vec![
        (
            format!("an ACL entry with {} 8", entry::e_perm.name),
            1,
            perm8,
        ),
        ("ACL version 3".into(), 1, version3),
        ("an unknown LMV magic".into(), 3, lmv),
        ("a 200-byte PATTR".into(), 0, vec![0; 200]),
    ]
}

/// A candidate case before selection.
struct Candidate {
    kind: Kind,
    comment: String,
    flags: Vec<&'static str>,
    bytes: Vec<u8>,
    request: Option<Vec<u8>>,
    expect: Expect,
    canonical: Option<Vec<u8>>,
    /// The valid input this case changed.
    base: &'static [u8],
    /// For a big-endian twin: the comment of the little-endian case it twins.
    twin_of: Option<String>,
}

impl Candidate {
    fn new(
        base: &Base,
        what: &str,
        flag: &'static str,
        bytes: Vec<u8>,
        request: Option<Vec<u8>>,
    ) -> Candidate {
        let j = judge(base.kind, &bytes, request.as_deref());
        let mut flags = vec![flag];
        let expect = j.expect();
        match expect {
            Expect::Valid if is_big_endian(base.kind, &bytes) => flags.push("BigEndian"),
            Expect::Valid => flags.push("Canonical"),
            Expect::Acceptable => {
                flags.push("NonCanonical");
                flags.push(why_acceptable(flag, what));
            }
            Expect::Invalid(_) => flags.push("RuleBroken"),
        }
        Candidate {
            kind: base.kind,
            comment: format!("{}: {what}", base.name),
            flags,
            canonical: j.canonical().map(<[u8]>::to_vec),
            bytes,
            request,
            expect,
            base: base.bytes,
            twin_of: None,
        }
    }

    /// The big-endian twin of an invalid little-endian message: the same broken input as a
    /// big-endian peer writes it (the whole message, and a reply's request, in the other byte
    /// order; a changed field swapped as the field it changed, a cut made at the same length).
    /// `None` unless the twin breaks the same rules and a receiver's swab (by the twin's own
    /// framing) gives this case back byte for byte.
    fn big_endian_twin(&self) -> Option<Candidate> {
        let kind = self.kind;
        let base = self.base;
        if !matches!(self.expect, Expect::Invalid(_))
            || !matches!(kind, Kind::Request | Kind::Reply)
            || is_big_endian(kind, base)
        {
            return None;
        }
        let flag = self.flags[0];
        let bytes = match flag {
            "Truncated" => {
                let mut b = swab_message(kind, base);
                b.truncate(self.bytes.len());
                b
            }
            // A field of the base changed: swapped as that field.
            "FieldChanged" | "Boundary" | "Targeted" if self.bytes.len() == base.len() => {
                swab_like(kind, base, &self.bytes)
            }
            _ => swab_message(kind, &self.bytes),
        };
        let request = self
            .request
            .as_deref()
            .map(|r| swab_message(Kind::Request, r));
        let undone = swab_message(kind, &bytes) == self.bytes
            && request.as_deref().map(|r| swab_message(Kind::Request, r)) == self.request;
        let request_ok = request.as_deref().is_none_or(|r| {
            is_big_endian(Kind::Request, r) && super::judge_request(r).expect() == Expect::Valid
        });
        if !is_big_endian(kind, &bytes) || !undone || !request_ok {
            return None;
        }
        let expect = judge(kind, &bytes, request.as_deref()).expect();
        let same_rules = broken_rules(kind, &bytes, request.as_deref(), expect)
            == broken_rules(kind, &self.bytes, self.request.as_deref(), self.expect);
        if expect != self.expect || !same_rules {
            return None;
        }
        Some(Candidate {
            kind,
            comment: self.comment.clone(),
            flags: vec![flag, "RuleBroken", "BigEndian"],
            bytes,
            request,
            expect,
            canonical: None,
            base: self.base,
            twin_of: Some(self.comment.clone()),
        })
    }

    fn into_case(self) -> Case {
        Case {
            rules: super::broken_rules(
                self.kind,
                &self.bytes,
                self.request.as_deref(),
                self.expect,
            ),
            id: 0,
            kind: self.kind,
            comment: self.comment,
            flags: self.flags,
            bytes: self.bytes,
            request: self.request,
            expect: self.expect,
            canonical: self.canonical,
            strict_rule: true,
        }
    }
}

/// The label saying why an accepted input is not canonical (Wycheproof labels every
/// acceptable case).
fn why_acceptable(flag: &str, what: &str) -> &'static str {
    if flag != "ShapeChanged" {
        "FieldNormalised"
    } else if what.starts_with("bufcount") || what.starts_with("an empty buffer") {
        "BufferCount"
    } else if what.ends_with("longer") {
        "LongerStructure"
    } else if what.starts_with("buffer 0") || what.starts_with("a v2 ptlrpc_body") {
        "PtlrpcBodyV2"
    } else {
        "FieldNormalised"
    }
}

/// `lm_magic` as a big-endian writer leaves it (messages only; payloads are always LE).
fn is_big_endian(kind: Kind, bytes: &[u8]) -> bool {
    matches!(kind, Kind::Request | Kind::Reply)
        && bytes.get(8..12) == Some(&[0x0b, 0xd0, 0x0b, 0xd3])
}

/// Every mutant of one base, in a fixed order.
fn mutants(base: &Base) -> Vec<Candidate> {
    let order = match base.kind {
        Kind::Xattr(_) => Endian::Little,
        _ if is_big_endian(base.kind, base.bytes) => Endian::Big,
        _ => Endian::Little,
    };
    let req = base.request.map(<[u8]>::to_vec);
    let mut out = Vec::new();
    if base.bytes.len() > MUTATE_MAX_LEN {
        return out;
    }
    let mut add = |what: String, flag, bytes: Vec<u8>, request: Option<Vec<u8>>| {
        out.push(Candidate::new(base, &what, flag, bytes, request));
    };
    match base.kind {
        Kind::Request => request_shapes(base.bytes)
            .into_iter()
            .for_each(|(w, m)| add(w, "ShapeChanged", m, None)),
        Kind::Reply => reply_shapes(base.bytes, &bad_payloads())
            .into_iter()
            .for_each(|(w, m)| add(w, "ShapeChanged", m, req.clone())),
        Kind::Xattr(name) => xattr_shapes(name, base.bytes)
            .into_iter()
            .for_each(|(w, m)| add(w, "ShapeChanged", m, None)),
    }
    if base.kind == Kind::Reply {
        for (w, m) in reply_body_fields(base.bytes) {
            add(w, "Targeted", m, req.clone());
        }
    }
    let limits = match base.kind {
        Kind::Request => limit_offsets(base.bytes),
        _ => 0..0,
    };
    for (off, v, w, m) in words(base.bytes, order) {
        let flag = if limits.contains(&off) && at_a_bound(v) {
            "Boundary"
        } else {
            "FieldChanged"
        };
        add(w, flag, m, req.clone());
    }
    for (w, m) in truncations(base.bytes) {
        add(w, "Truncated", m, req.clone());
    }
    if let Some(r) = base.request {
        // The request changed under an unchanged reply: the rules that need the request.
        for (w, m) in request_body_fields(r) {
            if super::judge_request(&m).expect() == Expect::Valid {
                add(
                    format!("request {w}"),
                    "Targeted",
                    base.bytes.to_vec(),
                    Some(m),
                );
            }
        }
        let limits = limit_offsets(r);
        for (off, v, w, m) in words(r, order) {
            let flag = if limits.contains(&off) && at_a_bound(v) {
                "Boundary"
            } else {
                "RequestChanged"
            };
            if super::judge_request(&m).expect() == Expect::Valid {
                add(format!("request {w}"), flag, base.bytes.to_vec(), Some(m));
            }
        }
    }
    out
}

/// How many cases of one rule one group keeps.
const PER_RULE: usize = 2;
/// How many non-canonical field mutants one group keeps (the shape ones are all kept).
const ACCEPTABLE_FIELDS: usize = 6;

/// How many valid field mutants at a bound one group keeps.
const BOUNDARY_FIELDS: usize = 4;

/// A limit at a bound the spec states: one `mdt_body` (216, the smallest PATTR limit) or
/// `XATTR_SIZE_MAX` (65536, the largest limit).
fn at_a_bound(v: u32) -> bool {
    [
        lustre_dne_intent::limits::MDT_BODY_SIZE,
        lustre_dne_intent::limits::XATTR_SIZE_MAX,
    ]
    .contains(&(v as usize))
}

/// The vector set for `seed`, `tcId`s from 1.
pub fn vectors(seed: u64) -> Vec<Case> {
    let mut prng = Prng::new(seed);
    let mut cases: Vec<Case> = Vec::new();
    let mut invalid: BTreeMap<(Kind, &'static str), Vec<Candidate>> = BTreeMap::new();
    let mut acceptable: BTreeMap<Kind, Vec<Candidate>> = BTreeMap::new();
    let mut bounds: BTreeMap<Kind, Vec<Candidate>> = BTreeMap::new();
    for base in bases() {
        let golden = Candidate::new(
            &base,
            "as written",
            "Golden",
            base.bytes.to_vec(),
            base.request.map(<[u8]>::to_vec),
        );
        cases.push(golden.into_case());
        // The invalid big-endian messages are the twins of little-endian ones (below).
        let big_endian = is_big_endian(base.kind, base.bytes);
        for c in mutants(&base) {
            match c.expect {
                Expect::Invalid(_) if big_endian => {}
                Expect::Invalid(rule) => {
                    invalid.entry((c.kind, rule.as_str())).or_default().push(c)
                }
                Expect::Acceptable if c.flags[0] == "ShapeChanged" => cases.push(c.into_case()),
                Expect::Acceptable => acceptable.entry(c.kind).or_default().push(c),
                Expect::Valid if c.flags[0] == "ShapeChanged" => {
                    let mut c = c;
                    c.flags.push("Boundary");
                    cases.push(c.into_case());
                }
                Expect::Valid if c.flags[0] == "Targeted" => cases.push(c.into_case()),
                Expect::Valid if c.flags[0] == "Boundary" => {
                    bounds.entry(c.kind).or_default().push(c)
                }
                Expect::Valid => {}
            }
        }
    }
    for (_, mut list) in bounds {
        for _ in 0..BOUNDARY_FIELDS.min(list.len()) {
            let i = prng.below(list.len());
            cases.push(list.swap_remove(i).into_case());
        }
    }
    for (_, mut list) in acceptable {
        for _ in 0..ACCEPTABLE_FIELDS.min(list.len()) {
            let i = prng.below(list.len());
            cases.push(list.swap_remove(i).into_case());
        }
    }
    let mut twins = Vec::new();
    for (_, list) in invalid {
        // The first shape change (the targeted ones come first) and the first targeted field,
        // then seeded picks.
        let mut list = list;
        let mut picks = Vec::new();
        for flag in ["ShapeChanged", "Targeted"] {
            if let Some(i) = list.iter().position(|c| c.flags[0] == flag) {
                picks.push(list.swap_remove(i));
            }
        }
        while picks.len() < PER_RULE && !list.is_empty() {
            let i = prng.below(list.len());
            picks.push(list.swap_remove(i));
        }
        // One big-endian twin per rule a message breaks: of the first pick that has one, else
        // of the first other case that has one, which joins the picks (a changed buffer length
        // moves the framing, which a swab cannot follow, but a cut or another field may break
        // the same rule).
        let twin = picks
            .iter()
            .find_map(Candidate::big_endian_twin)
            .or_else(|| {
                let (i, t) = list
                    .iter()
                    .enumerate()
                    .find_map(|(i, c)| c.big_endian_twin().map(|t| (i, t)))?;
                picks.push(list.swap_remove(i));
                Some(t)
            });
        twins.extend(twin);
        cases.extend(picks.into_iter().map(Candidate::into_case));
    }
    let mut all: Vec<(Case, Option<String>)> = cases.into_iter().map(|c| (c, None)).collect();
    all.extend(twins.into_iter().map(|t| {
        let of = t.twin_of.clone();
        (t.into_case(), of)
    }));
    // Group order: requests, replies, then each xattr name; stable within a group (so the
    // twins come after the little-endian cases of their group).
    all.sort_by_key(|(c, _)| kind_rank(c.kind));
    for (i, (c, _)) in all.iter_mut().enumerate() {
        c.id = i as u64 + 1;
    }
    let ids: BTreeMap<String, u64> = all
        .iter()
        .filter(|(_, of)| of.is_none())
        .map(|(c, _)| (c.comment.clone(), c.id))
        .collect();
    all.into_iter()
        .map(|(mut c, of)| {
            if let Some(of) = of {
                c.comment = format!("{of}, written big-endian: the twin of tcId {}", ids[&of]);
            }
            c
        })
        .collect()
}

/// The `tcId` of the little-endian case a big-endian twin twins, from its comment (`None`
/// for any other case).
pub fn twin_of(case: &Case) -> Option<u64> {
    if !case.flags.contains(&"BigEndian") || case.expect.rule().is_none() {
        return None;
    }
    case.comment
        .rsplit_once("the twin of tcId ")
        .and_then(|(_, id)| id.parse().ok())
}

fn kind_rank(k: Kind) -> usize {
    match k {
        Kind::Request => 0,
        Kind::Reply => 1,
        Kind::Xattr(n) => 2 + super::XATTR_NAMES.iter().position(|x| *x == n).unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lustre_dne_intent::rules::DECODER_RULES;
    use std::collections::BTreeSet;

    /// Every decoder rule of WIRE.md is broken by at least one vector, and the crate rejects
    /// that vector with exactly that rule.
    #[test]
    fn every_decoder_rule_is_broken() {
        let cases = vectors(VECTOR_SEED);
        let mut seen = BTreeSet::new();
        for c in &cases {
            if let Expect::Invalid(rule) = c.expect {
                let j = judge(c.kind, &c.bytes, c.request.as_deref());
                assert_eq!(j.expect(), Expect::Invalid(rule), "tcId {}", c.id);
                seen.insert(rule.as_str());
            }
        }
        let missing: Vec<&str> = DECODER_RULES
            .iter()
            .map(|r| r.as_str())
            .filter(|r| !seen.contains(r))
            .collect();
        assert!(
            missing.is_empty(),
            "no vector breaks {missing:?} ({} cases)",
            cases.len()
        );
    }

    /// Every invalid big-endian message is the twin of a little-endian case, which its comment
    /// names: the same rules, and swabbed (by its own framing) it is that case's input and
    /// request byte for byte. The twins break a rule of every family a message can break in
    /// either byte order.
    #[test]
    fn invalid_big_endian_vectors_are_twins() {
        use crate::reorder::swab_message;
        let cases = vectors(VECTOR_SEED);
        let mut le_comments = BTreeSet::new();
        for c in cases.iter().filter(|c| !c.flags.contains(&"BigEndian")) {
            assert!(
                le_comments.insert(&c.comment),
                "comment {:?} twice",
                c.comment
            );
        }
        let mut families = BTreeSet::new();
        let mut twinned = BTreeSet::new();
        for c in &cases {
            let big = crate::message_order(c.kind, &c.bytes) == Endian::Big;
            if !big || c.expect.rule().is_none() {
                assert_eq!(twin_of(c), None, "tcId {}", c.id);
                continue;
            }
            assert!(c.flags.contains(&"BigEndian"), "tcId {} unflagged", c.id);
            let id = twin_of(c).unwrap_or_else(|| panic!("tcId {}: no twin named", c.id));
            let le = &cases[id as usize - 1];
            assert_eq!(le.id, id);
            assert_eq!(crate::message_order(le.kind, &le.bytes), Endian::Little);
            assert!(c.comment.starts_with(&le.comment), "tcId {}", c.id);
            assert_eq!(
                (c.kind, c.expect, &c.rules),
                (le.kind, le.expect, &le.rules)
            );
            assert_eq!(swab_message(c.kind, &c.bytes), le.bytes, "tcId {}", c.id);
            assert_eq!(
                c.request.as_deref().map(|r| swab_message(Kind::Request, r)),
                le.request,
                "tcId {}",
                c.id
            );
            assert_eq!(
                judge(c.kind, &c.bytes, c.request.as_deref()).expect(),
                c.expect
            );
            assert!(twinned.insert(id), "tcId {id} twinned twice");
            let rule = c.expect.rule().map_or("", |r| r.as_str());
            families.insert((c.kind, rule.split('.').next().unwrap_or("").to_owned()));
        }
        use Kind::{Reply, Request};
        let want = [
            (Request, "W0"),
            (Request, "W2"),
            (Request, "W3"),
            (Request, "W5"),
            (Request, "W8"),
            (Reply, "W0"),
            (Reply, "W1"),
            (Reply, "W2"),
            (Reply, "W3"),
            (Reply, "W6"),
            (Reply, "W7"),
            (Reply, "W8"),
            (Reply, "W9"),
        ];
        for (k, f) in want {
            assert!(
                families.contains(&(k, f.to_owned())),
                "no big-endian {} breaks a {f} rule: {families:?}",
                k.name()
            );
        }
    }
}
