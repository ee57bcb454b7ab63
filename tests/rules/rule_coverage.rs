//! Every decoder rule of WIRE.md, broken once: for each ID in `rules::DECODER_RULES` one input
//! that breaks that rule and no other, and the decoder's error must name it. The list is the
//! crate's own catalogue of "each rule broken at least once" (the conformance vectors build on
//! the same idea); a rule added to the spec without a case here fails `every_rule_is_covered`.

use crate::common::*;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::rules::DECODER_RULES;
use lustre_dne_intent::wire::*;
use lustre_dne_intent::xattr::*;
use lustre_dne_intent::{DecodeError, Endian};
use std::collections::BTreeMap;

type Case = (&'static str, &'static str, Result<(), DecodeError>);

fn req(f: impl FnOnce(&mut ReqParts)) -> Result<(), DecodeError> {
    let mut p = ReqParts::mkdir();
    f(&mut p);
    RequestView::parse(&p.encode()).map(drop)
}

fn req_bytes(f: impl FnOnce(&mut Vec<u8>)) -> Result<(), DecodeError> {
    let mut b = ReqParts::mkdir().encode();
    f(&mut b);
    RequestView::parse(&b).map(drop)
}

fn rep(f: impl FnOnce(&mut RepParts)) -> Result<(), DecodeError> {
    let mut p = RepParts::mkdir();
    f(&mut p);
    ReplyView::parse(&p.encode()).map(drop)
}

/// Breaks a rule that needs the request: the reply alone must stay valid.
fn rep_ctx(
    f: impl FnOnce(&mut RepParts),
    g: impl FnOnce(&mut ReplyContext),
) -> Result<(), DecodeError> {
    let mut p = RepParts::mkdir();
    f(&mut p);
    let bytes = p.encode();
    ReplyView::parse(&bytes).expect("valid without its request");
    let mut ctx = mkdir_request().reply_context().expect("valid request");
    g(&mut ctx);
    ReplyView::parse_for(&bytes, &ctx).map(drop)
}

fn body(p: &mut RepParts) -> &mut MdCreatePrepareRep {
    p.body.as_mut().expect("the mkdir reply has a body")
}

/// An ACL from (tag, perm, id) entries.
fn acl(version: u32, entries: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut v = version.to_le_bytes().to_vec();
    for &(tag, perm, id) in entries {
        v.extend_from_slice(&tag.to_le_bytes());
        v.extend_from_slice(&perm.to_le_bytes());
        v.extend_from_slice(&id.to_le_bytes());
    }
    v
}

const UO: u16 = 0x01;
const U: u16 = 0x02;
const GO: u16 = 0x04;
const MASK: u16 = 0x10;
const O: u16 = 0x20;
const NOID: u32 = u32::MAX;

fn acl_case(entries: &[(u16, u16, u32)]) -> Result<(), DecodeError> {
    AclView::parse(&acl(2, entries)).map(drop)
}

fn testdata(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `xattr_lov_comp3` (a composite layout) changed by `f`.
fn comp(f: impl FnOnce(&mut Vec<u8>)) -> Result<(), DecodeError> {
    let mut b = testdata("xattr_lov_comp3");
    f(&mut b);
    LovView::parse(&b).map(drop)
}

fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn get32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

/// A default LMV (48 bytes) with this stripe count and pool name field.
fn dmv(count: i32, pool: [u8; 16]) -> Vec<u8> {
    let mut v = LMV_USER_MAGIC.to_le_bytes().to_vec();
    v.extend_from_slice(&count.to_le_bytes());
    v.extend_from_slice(&u32::MAX.to_le_bytes());
    v.resize(32, 0);
    v.extend_from_slice(&pool);
    v
}

/// A message with the mkdir request's buffers plus one more.
fn seven_buffers() -> Vec<u8> {
    let six = ReqParts::mkdir().encode();
    let m = MsgView::parse(&six).expect("framed");
    let mut mb = MsgBuilder::new(Endian::Little, m.header());
    for i in 0..6 {
        mb.push(m.buffer_or_empty(i)).expect("push");
    }
    mb.push(b"extra").expect("push");
    let mut out = Vec::new();
    mb.put(&mut out);
    out
}

fn cases() -> Vec<Case> {
    let other_fid = LuFid::new(0x2_0000_0402, 9, 0);
    vec![
        // ---- general rules ----
        (
            "W0.1",
            "header cut short",
            RequestView::parse(&[0u8; 31]).map(drop),
        ),
        (
            "W0.2",
            "ptlrpc_body of 151 bytes",
            req(|p| p.raw[0] = Some(vec![0; 151])),
        ),
        ("W0.3", "129 groups", req(|p| p.groups = vec![7; 129])),
        ("W0.4", "pb_opc 102", req(|p| p.ptlrpc.opc = 102)),
        (
            "W0.5",
            "no LDLM_FL_HAS_INTENT",
            req(|p| p.ldlm.lock_flags = LdlmFlags(0)),
        ),
        ("W0.6", "umask 0o1022", req(|p| p.body.umask = 0o1022)),
        (
            "W0.6",
            "DISP_OPEN_CREATE in a reply",
            rep(|p| p.ldlm.policy_res1 |= DispFlags::OPEN_CREATE),
        ),
        // ---- byte order ----
        ("W1.1", "lm_magic garbled", req_bytes(|b| b[8] ^= 0xff)),
        ("W1.2", "LMV magic byte-swapped", {
            let mut b = testdata("xattr_lmv_striped");
            b[..4].reverse();
            LmvView::parse(&b).map(drop)
        }),
        // ---- framing ----
        ("W2.1", "request of 3 buffers", req(|p| p.bufcount = 3)),
        (
            "W2.2",
            "a non-empty seventh buffer",
            RequestView::parse(&seven_buffers()).map(drop),
        ),
        (
            "W2.3",
            "a reply given to the request decoder",
            RequestView::parse(&testdata("mkdir_reply_complete")).map(drop),
        ),
        // ---- LDLM ----
        (
            "W3.1",
            "name[2] = 1",
            req(|p| p.ldlm.lock_desc.resource.name[2] = 1),
        ),
        (
            "W3.2",
            "lock mode 3",
            req(|p| p.ldlm.lock_desc.req_mode = LockMode(3)),
        ),
        // ---- the request ----
        (
            "W5.1",
            "intent opcode 0x1000",
            req(|p| p.opc = IntentOpc(0x1000)),
        ),
        (
            "W5.2",
            "mcpr_fid not the resource",
            req(|p| p.body.fid = other_fid),
        ),
        (
            "W5.3",
            "create in object mode",
            req(|p| {
                p.body.flags = McprFlags::NO_LOOKUP;
                p.name.clear();
            }),
        ),
        ("W5.4", "create without a name", req(|p| p.name.clear())),
        (
            "W5.5",
            "object-mode rename with a name",
            req(|p| {
                p.opc = IntentOpc::DNE_RENAME_PREPARE;
                p.body.child_mode = 0;
                p.body.flags = McprFlags::NO_LOOKUP;
            }),
        ),
        (
            "W5.6",
            "create of mode 0o755 (no file type)",
            req(|p| p.body.child_mode = 0o755),
        ),
        (
            "W5.7",
            "rename with a child mode",
            req(|p| p.opc = IntentOpc::DNE_RENAME_PREPARE),
        ),
        (
            "W5.8",
            "name without its NUL",
            req(|p| p.name = b"newdir".to_vec()),
        ),
        (
            "W5.15",
            "bytes after the name's NUL",
            req(|p| p.name = b"newdir\0junk".to_vec()),
        ),
        (
            "W5.16",
            "MSGHDR_AT_SUPPORT with pb_timeout 0",
            req(|p| {
                p.header.flags = MSGHDR_AT_SUPPORT;
                p.ptlrpc.timeout = 0;
            }),
        ),
        ("W5.9", "empty name", req(|p| p.name = vec![0])),
        (
            "W5.10",
            "name of 256 bytes",
            req(|p| {
                p.name = vec![b'a'; 256];
                p.name.push(0);
            }),
        ),
        (
            "W5.11",
            "name with a slash",
            req(|p| p.name = b"a/b\0".to_vec()),
        ),
        ("W5.12", "name \"..\"", req(|p| p.name = b"..\0".to_vec())),
        (
            "W5.13",
            "PATTR limit 100",
            req(|p| p.body.buf_limit[0] = 100),
        ),
        (
            "W5.14",
            "groups buffer of 3 bytes",
            req(|p| p.raw[5] = Some(vec![0; 3])),
        ),
        // ---- results ----
        (
            "W6.1",
            "reserved result bit 6",
            rep(|p| body(p).valid.0 |= 1 << 6),
        ),
        (
            "W6.2",
            "PATTR of 200 bytes",
            rep(|p| {
                body(p).buf_size[0] = 200;
                p.results[0].truncate(200);
            }),
        ),
        // ---- the reply ----
        ("W7.1", "pb_status -17", rep(|p| p.ptlrpc.status = -17)),
        (
            "W7.2",
            "DEF_LMV buffer without its valid bit",
            rep(|p| p.results[5] = b"x".to_vec()),
        ),
        (
            "W7.3",
            "DISP_LOOKUP_POS and _NEG",
            rep(|p| {
                p.ldlm.policy_res1 |= DispFlags::LOOKUP_POS;
            }),
        ),
        (
            "W7.4",
            "granted EX for PW",
            rep(|p| p.ldlm.lock_desc.granted_mode = LockMode::EX),
        ),
        ("W7.5", "mcpp_status 1", rep(|p| body(p).status = 1)),
        (
            "W7.6",
            "LOOKUP_POS without LOOKUP_DONE",
            rep(|p| {
                body(p).flags = McppFlags::LOOKUP_POS | McppFlags::PERM_DONE;
            }),
        ),
        (
            "W7.7",
            "a FID after a negative lookup",
            rep(|p| body(p).fid = other_fid),
        ),
        (
            "W7.8",
            "DEF_ACL valid and truncated",
            rep(|p| body(p).truncated |= ResultMask::DEF_ACL),
        ),
        (
            "W7.9",
            "a size for an unrequested DEF_LMV",
            rep_ctx(|p| body(p).buf_size[5] = 48, |c| c.limits[5] = 0),
        ),
        (
            "W7.10",
            "pin size 13 for 12 bytes",
            rep(|p| body(p).buf_size[2] = 13),
        ),
        (
            "W7.11",
            "a 300-byte pin for a limit of 256",
            rep_ctx(
                |p| {
                    p.results[2] = vec![b'x'; 300];
                    body(p).buf_size[2] = 300;
                },
                |_| {},
            ),
        ),
        (
            "W7.12",
            "LOV truncated at size 0",
            rep(|p| body(p).buf_size[4] = 0),
        ),
        (
            "W7.13",
            "CHILD_DERIVED with a status",
            rep(|p| body(p).status = -17),
        ),
        (
            "W7.14",
            "child mode with permissions after a positive lookup",
            rep(|p| {
                p.ldlm.policy_res1 =
                    DispFlags::IT_EXECD | DispFlags::LOOKUP_EXECD | DispFlags::LOOKUP_POS;
                let b = body(p);
                b.flags = McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS;
                b.fid = LuFid::new(0x2_0000_0401, 7, 0);
            }),
        ),
        (
            "W7.15",
            "a full reply to unknown mcpr_flags",
            rep_ctx(|_| {}, |c| c.flags = McprFlags(0x100)),
        ),
        (
            "W7.16",
            "a lookup in object mode",
            rep_ctx(|_| {}, |c| c.flags = McprFlags::NO_LOOKUP),
        ),
        (
            "W7.18",
            "a derived mode of no file type",
            rep(|p| body(p).child_mode = 0o176_755),
        ),
        (
            "W7.19",
            "a mkdir that derives a regular file",
            rep_ctx(|p| body(p).child_mode = 0o100_755, |_| {}),
        ),
        (
            "W7.20",
            "a derived group write bit the request does not have",
            rep_ctx(|p| body(p).child_mode = 0o040_775, |_| {}),
        ),
        (
            "W7.21",
            "the parent's group under a parent without S_ISGID",
            rep_ctx(|p| body(p).child_gid = 600, |_| {}),
        ),
        (
            "W7.22",
            "a project id under a parent without PROJINHERIT",
            rep_ctx(
                |p| {
                    p.results[0] = pattr_with(|a| a.valid |= MdtValid::FLFLAGS);
                    body(p).child_projid = 7;
                },
                |_| {},
            ),
        ),
        (
            "W7.23",
            "a derived flag other than PROJINHERIT",
            rep(|p| body(p).child_flags = 0x10),
        ),
        // ---- size bounds ----
        ("W8.1", "lm_repsize 0", req(|p| p.header.repsize = 0)),
        (
            "W8.2",
            "reply over lm_repsize",
            rep_ctx(|_| {}, |c| c.repsize = 100),
        ),
        // ---- xattr payloads ----
        ("W9.1", "LMV magic 0x12345678", {
            let mut b = testdata("xattr_lmv_striped");
            put32(&mut b, 0, 0x1234_5678);
            LmvView::parse(&b).map(drop)
        }),
        ("W9.2", "LMV one FID short", {
            let b = testdata("xattr_lmv_striped");
            LmvView::parse(&b[..b.len() - 16]).map(drop)
        }),
        (
            "W9.3",
            "ACL of 5 bytes",
            AclView::parse(&[2, 0, 0, 0, 1]).map(drop),
        ),
        (
            "W9.4",
            "ACL tag 0x40",
            acl_case(&[(UO, 6, NOID), (0x40, 4, NOID), (O, 4, NOID)]),
        ),
        (
            "W9.5",
            "ACL e_perm 8",
            acl_case(&[(UO, 6, NOID), (GO, 8, NOID), (O, 4, NOID)]),
        ),
        (
            "W9.6",
            "GROUP_OBJ before USER_OBJ",
            acl_case(&[(GO, 4, NOID), (UO, 6, NOID), (O, 4, NOID)]),
        ),
        (
            "W9.7",
            "no OTHER",
            acl_case(&[(UO, 6, NOID), (GO, 4, NOID)]),
        ),
        (
            "W9.8",
            "a named user without MASK",
            acl_case(&[(UO, 6, NOID), (U, 4, 500), (GO, 4, NOID), (O, 4, NOID)]),
        ),
        (
            "W9.9",
            "user ids decreasing",
            acl_case(&[
                (UO, 6, NOID),
                (U, 4, 500),
                (U, 4, 400),
                (GO, 4, NOID),
                (MASK, 7, NOID),
                (O, 4, NOID),
            ]),
        ),
        (
            "W9.10",
            "ACL version 3",
            AclView::parse(&acl(3, &[(UO, 6, NOID), (GO, 4, NOID), (O, 4, NOID)])).map(drop),
        ),
        (
            "W9.11",
            "default LMV stripe count -6",
            DefaultLmvView::parse(&dmv(-6, [0; 16])).map(drop),
        ),
        (
            "W9.12",
            "pool name of 16 bytes",
            DefaultLmvView::parse(&dmv(1, [b'p'; 16])).map(drop),
        ),
        ("W9.13", "composite layout of 0 entries", {
            let mut b = vec![0u8; 32];
            put32(&mut b, 0, LOV_MAGIC_COMP_V1);
            put32(&mut b, 4, 32);
            LovView::parse(&b).map(drop)
        }),
        (
            "W9.14",
            "entry table past the blob",
            comp(|b| b[14..16].copy_from_slice(&100u16.to_le_bytes())),
        ),
        (
            "W9.15",
            "component past the blob",
            comp(|b| put32(b, 32 + 28, 0x10000)),
        ),
        (
            "W9.16",
            "component over the entry table",
            comp(|b| put32(b, 32 + 24, 40)),
        ),
        (
            "W9.17",
            "two components at one offset",
            comp(|b| {
                let (o0, s0) = (get32(b, 32 + 24), get32(b, 32 + 28));
                put32(b, 32 + 48 + 24, o0);
                put32(b, 32 + 48 + 28, s0);
            }),
        ),
        ("W9.21", "an LMV of no stripe", {
            let mut b = testdata("xattr_lmv_striped");
            b.truncate(56);
            put32(&mut b, 4, 0);
            LmvView::parse(&b).map(drop)
        }),
        ("W9.22", "an LMV with hash function 0", {
            let mut b = testdata("xattr_lmv_striped");
            put32(&mut b, 12, 0);
            LmvView::parse(&b).map(drop)
        }),
        ("W9.19", "an empty foreign LMV", {
            let mut b = LMV_MAGIC_FOREIGN.to_le_bytes().to_vec();
            b.extend_from_slice(&[0; 12]);
            LmvView::parse(&b).map(drop)
        }),
        (
            "W9.20",
            "an uninstantiated component's one entry on OST 0",
            {
                // testdata/synth/lov_pfl_uninit: component 1 (no init flag, stripe count 16) holds
                // the one placeholder entry at 184 + 32; its l_ost_idx 0xffffffff becomes 0.
                let mut b = testdata("synth/lov_pfl_uninit");
                assert_eq!(get32(&b, 184 + 32 + 20), u32::MAX);
                put32(&mut b, 184 + 32 + 20, 0);
                LovView::parse(&b).map(drop)
            },
        ),
        (
            "W9.18",
            "a composite component",
            comp(|b| {
                let o0 = get32(b, 32 + 24) as usize;
                put32(b, o0, LOV_MAGIC_COMP_V1);
            }),
        ),
    ]
}

#[test]
fn each_case_breaks_its_rule() {
    let mut wrong = Vec::new();
    for (rule, what, result) in cases() {
        match result {
            Ok(()) => wrong.push(format!("{rule} ({what}): accepted")),
            Err(e) if e.rule() != rule => wrong.push(format!("{rule} ({what}): {e}")),
            Err(_) => {}
        }
    }
    assert!(
        wrong.is_empty(),
        "cases that do not break their rule:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_rule_is_covered() {
    let mut covered: BTreeMap<&str, usize> = BTreeMap::new();
    for (rule, _, _) in cases() {
        *covered.entry(rule).or_default() += 1;
    }
    let missing: Vec<&str> = DECODER_RULES
        .iter()
        .map(|r| r.as_str())
        .filter(|r| !covered.contains_key(r))
        .collect();
    assert!(
        missing.is_empty(),
        "decoder rules without a case: {missing:?}"
    );
    let unknown: Vec<&&str> = covered
        .keys()
        .filter(|r| !DECODER_RULES.iter().any(|d| d.as_str() == **r))
        .collect();
    assert!(
        unknown.is_empty(),
        "cases for rules that are not decoder rules: {unknown:?}"
    );
}
