//! Every rule an invalid case is known to break, not only the one the crate reports first.
//!
//! One changed field often breaks several rules (a buffer length over its bound that also runs
//! past the input; a PATTR cut short whose size field no longer matches; lookup flags in an
//! object-mode reply that also contradict the dispositions). WIRE.md gives the crate's order
//! (§5, §7, §9), but a testee may check in any order, so an invalid case lists every rule it
//! breaks that the kit can see, and a testee passes by naming any of them
//! (docs/conformance.md §1.3).
//!
//! Two sources, each sound on its own: the reference decoder run again with each reported field
//! repaired ([`super::repair`]), and a few checks restated here on the raw bytes, independent
//! of the decoder and of each other, for what lies past a breach the walk cannot repair: the
//! framing (W0.1, W0.3, W2.1, W2.3, W7.1), a request's limits and the reply size they need
//! (W0.3, W5.13, W8.1), the reply body's consistency rules (W6.1, W6.2, W7.2, W7.3, W7.5–W7.8,
//! W7.10, W7.16) and the length rules of the payloads (W9.2, W9.3, W9.10, W9.19, the LMV
//! count's W0.3, and a composite layout's entry table and entry ranges, W9.13–W9.17), for a
//! payload on its own and for each result of a reply. Every case is one change (a field, a
//! buffer, a cut, bit flips) of a valid input, so every rule listed is one that change broke.
//! The list is not proof that no other rule is broken.

use super::Kind;
use lustre_dne_intent::limits::{
    LMV_MAX_STRIPE_COUNT, MDT_BODY_SIZE, MSG_MAX_BUFLEN, MSG_MAX_LEN, XATTR_SIZE_MAX,
};
use lustre_dne_intent::rules::{DECODER_RULES, RuleId};
use lustre_dne_intent::xattr::{
    LMV_MAGIC_FOREIGN, LMV_MAGIC_STRIPE, LMV_MAGIC_V1, LOV_MAGIC_COMP_V1, LOV_MAGIC_FOREIGN,
    LOV_MAGIC_SEL,
};

/// `lm_magic` as the sender's order writes it, read little-endian.
const LM_MAGIC: u32 = 0x0BD0_0BD3;
/// `PTL_RPC_MSG_REQUEST`, `PTL_RPC_MSG_ERR`, `PTL_RPC_MSG_REPLY`.
const PTL_RPC_MSG_REQUEST: u32 = 4711;
const PTL_RPC_MSG_ERR: u32 = 4712;
const PTL_RPC_MSG_REPLY: u32 = 4713;
/// `md_create_prepare_rep`'s size; `mcpp_*` offsets are WIRE.md §7's.
const REP_BODY: usize = 80;
/// `md_create_prepare_req`'s size; `mcpr_buf_limit[]` is at 48.
const REQ_BODY: usize = 80;
/// `lock_policy_res1` in `ldlm_reply`.
const RES1: usize = 96;
const DISP_LOOKUP_EXECD: u64 = 0x2;
const DISP_LOOKUP_NEG: u64 = 0x4;
const DISP_LOOKUP_POS: u64 = 0x8;
const MCPP_LOOKUP_DONE: u32 = 0x1;
const MCPP_LOOKUP_POS: u32 = 0x2;
const MCPR_NO_LOOKUP: u32 = 0x1;
/// The xattr kind of reply buffer 3 + i (PATTR and PIN have no payload rule here).
const RESULT_KINDS: [Option<&str>; 6] = [
    None,
    Some("system.posix_acl_default"),
    None,
    Some("trusted.lmv"),
    Some("trusted.lov"),
    Some("trusted.dmv"),
];

fn rule(id: &str) -> Option<RuleId> {
    DECODER_RULES.iter().copied().find(|r| r.as_str() == id)
}

/// The rules `bytes` (a reply: answering `request`) breaks: `first` (the crate's), then those
/// the checks here find, in WIRE.md order, each once.
pub(crate) fn broken_rules(
    kind: Kind,
    bytes: &[u8],
    request: Option<&[u8]>,
    first: RuleId,
) -> Vec<RuleId> {
    let mut found: Vec<&str> = Vec::new();
    match kind {
        Kind::Request | Kind::Reply => message(kind, bytes, request, &mut found),
        Kind::Xattr(name) => payload(name, bytes, &mut found),
    }
    let mut rest: Vec<RuleId> = found.into_iter().filter_map(rule).collect();
    rest.extend(super::repair::reference_rules(kind, bytes, request));
    rest.sort_by_key(|r| rule_order(*r));
    rest.dedup();
    let mut out = vec![first];
    out.extend(rest.into_iter().filter(|r| *r != first));
    out
}

/// WIRE.md's order: W5.2 before W5.10.
fn rule_order(r: RuleId) -> (u32, u32) {
    let s = r.as_str().get(1..).unwrap_or("");
    let (a, b) = s.split_once('.').unwrap_or(("0", "0"));
    (a.parse().unwrap_or(0), b.parse().unwrap_or(0))
}

fn round8(n: u64) -> u64 {
    n.div_ceil(8) * 8
}

/// A message read in its own byte order.
struct Msg<'a> {
    bytes: &'a [u8],
    big: bool,
}

impl Msg<'_> {
    fn u32(&self, off: usize) -> Option<u32> {
        let w: [u8; 4] = self.bytes.get(off..off.checked_add(4)?)?.try_into().ok()?;
        Some(if self.big {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        })
    }

    fn u64(&self, off: usize) -> Option<u64> {
        let w: [u8; 8] = self.bytes.get(off..off.checked_add(8)?)?.try_into().ok()?;
        Some(if self.big {
            u64::from_be_bytes(w)
        } else {
            u64::from_le_bytes(w)
        })
    }

    fn order(bytes: &[u8]) -> Option<Msg<'_>> {
        let m: [u8; 4] = bytes.get(8..12)?.try_into().ok()?;
        let big = if u32::from_le_bytes(m) == LM_MAGIC {
            false
        } else if u32::from_be_bytes(m) == LM_MAGIC {
            true
        } else {
            return None;
        };
        Some(Msg { bytes, big })
    }

    /// The framing rules; the buffers when the whole framing holds.
    fn framing(&self, kind: Kind, found: &mut Vec<&'static str>) -> Option<Vec<&[u8]>> {
        let n = self.u32(0)? as usize;
        let needed = if kind == Kind::Request { 4 } else { 2 };
        if !(1..=32).contains(&n) || n < needed {
            found.push("W2.1");
        }
        if !(1..=32).contains(&n) {
            return None;
        }
        let header = round8(32 + 4 * n as u64);
        if header > self.bytes.len() as u64 {
            found.push("W0.1");
            return None;
        }
        let mut bufs = Vec::with_capacity(n);
        let mut pos = header;
        let mut whole = true;
        for i in 0..n {
            let len = u64::from(self.u32(32 + 4 * i)?);
            if round8(len) > MSG_MAX_BUFLEN as u64 {
                found.push("W0.3");
                whole = false;
            }
            // The last buffer's padding is not required here: the crate reports a missing
            // padding itself, and content cut short is W0.1 under either reading.
            if pos + len <= self.bytes.len() as u64 {
                bufs.push(&self.bytes[pos as usize..(pos + len) as usize]);
            } else {
                found.push("W0.1");
                whole = false;
            }
            pos += round8(len);
        }
        if pos > MSG_MAX_LEN as u64 {
            found.push("W0.3");
            whole = false;
        }
        // pb_type and pb_status, when buffer 0 holds them (W2.3 is read before the rest).
        if let Some(b0) = bufs.first().map(|b| Msg {
            bytes: b,
            big: self.big,
        }) && let Some(ty) = b0.u32(8)
        {
            let ok = match kind {
                Kind::Request => ty == PTL_RPC_MSG_REQUEST,
                _ => ty == PTL_RPC_MSG_REPLY || ty == PTL_RPC_MSG_ERR,
            };
            if !ok {
                found.push("W2.3");
            }
            if kind == Kind::Reply && (ty == PTL_RPC_MSG_ERR || b0.u32(20).is_some_and(|s| s != 0))
            {
                found.push("W7.1");
            }
        }
        whole.then_some(bufs)
    }
}

fn message(kind: Kind, bytes: &[u8], request: Option<&[u8]>, found: &mut Vec<&'static str>) {
    let Some(m) = Msg::order(bytes) else {
        return;
    };
    let Some(bufs) = m.framing(kind, found) else {
        return;
    };
    if kind == Kind::Reply {
        let object_mode = request
            .and_then(request_flags)
            .map(|f| f & MCPR_NO_LOOKUP != 0);
        reply_body(&m, &bufs, object_mode == Some(true), found);
    } else {
        request_limits(&m, &bufs, found);
    }
}

/// The limits of a request's body (W0.3, W5.13) and the reply size they need (W8.1): raising
/// a limit past its bound also leaves `lm_repsize` too small for it.
fn request_limits(m: &Msg<'_>, bufs: &[&[u8]], found: &mut Vec<&'static str>) {
    let Some(body) = bufs.get(3).filter(|b| b.len() >= REQ_BODY) else {
        return;
    };
    let body = Msg {
        bytes: body,
        big: m.big,
    };
    let limits: Vec<u64> = (0..6)
        .map(|i| u64::from(body.u32(48 + 4 * i).unwrap_or(0)))
        .collect();
    if limits.iter().any(|&l| l > XATTR_SIZE_MAX as u64) {
        found.push("W0.3");
    }
    if limits[0] != 0 && limits[0] < MDT_BODY_SIZE as u64 {
        found.push("W5.13");
    }
    // A 9-buffer reply: header, ptlrpc_body_v3, ldlm_reply, md_create_prepare_rep, results.
    let need = round8(32 + 4 * 9)
        + 184
        + 112
        + REP_BODY as u64
        + limits.iter().map(|&l| round8(l)).sum::<u64>();
    if m.u32(12).is_some_and(|repsize| u64::from(repsize) < need) {
        found.push("W8.1");
    }
}

/// `mcpr_flags` of a (valid) request.
fn request_flags(request: &[u8]) -> Option<u32> {
    let m = Msg::order(request)?;
    let bufs = m.framing(Kind::Request, &mut Vec::new())?;
    Msg {
        bytes: bufs.get(3)?,
        big: m.big,
    }
    .u32(16)
}

/// The reply's consistency rules of §6 and §7 that read the body, the dispositions and the
/// result buffers' lengths, and the length rules of each present result.
fn reply_body(m: &Msg<'_>, bufs: &[&[u8]], object_mode: bool, found: &mut Vec<&'static str>) {
    let buf = |i: usize| bufs.get(i).copied().unwrap_or_default();
    let res1 = Msg {
        bytes: buf(1),
        big: m.big,
    }
    .u64(RES1);
    if let Some(d) = res1 {
        let pos = d & DISP_LOOKUP_POS != 0;
        let neg = d & DISP_LOOKUP_NEG != 0;
        if (pos && neg) || ((d & DISP_LOOKUP_EXECD != 0) != (pos || neg)) {
            found.push("W7.3");
        }
        if object_mode && d & (DISP_LOOKUP_EXECD | DISP_LOOKUP_NEG | DISP_LOOKUP_POS) != 0 {
            found.push("W7.16");
        }
    }
    if buf(2).len() < REP_BODY {
        return;
    }
    let b = Msg {
        bytes: buf(2),
        big: m.big,
    };
    let field = |off| b.u32(off).unwrap_or(0);
    let (status, flags, valid, truncated) = (field(0), field(4), field(8), field(12));
    let fid_set = b.u64(16).unwrap_or(0) != 0 || field(24) != 0;
    if (valid | truncated) & !0x3f != 0 {
        found.push("W6.1");
    }
    if valid & 1 != 0 && buf(3).len() != MDT_BODY_SIZE {
        found.push("W6.2");
    }
    if (status as i32) > 0 {
        found.push("W7.5");
    }
    if flags & MCPP_LOOKUP_POS != 0 && flags & MCPP_LOOKUP_DONE == 0 {
        found.push("W7.6");
    }
    if fid_set != (flags & MCPP_LOOKUP_POS != 0) {
        found.push("W7.7");
    }
    if valid & truncated != 0 {
        found.push("W7.8");
    }
    if let Some(d) = res1
        && ((d & DISP_LOOKUP_EXECD != 0) != (flags & MCPP_LOOKUP_DONE != 0)
            || (d & DISP_LOOKUP_POS != 0) != (flags & MCPP_LOOKUP_POS != 0))
    {
        found.push("W7.3");
    }
    if object_mode && flags & MCPP_LOOKUP_DONE != 0 {
        found.push("W7.16");
    }
    for (i, kind) in RESULT_KINDS.iter().enumerate() {
        let data = buf(3 + i);
        if valid & (1 << i) == 0 {
            if !data.is_empty() {
                found.push("W7.2");
            }
            continue;
        }
        if data.len() as u64 != u64::from(field(48 + 4 * i)) {
            found.push("W7.10");
        }
        if let Some(name) = kind
            && !data.is_empty()
        {
            payload(name, data, found);
        }
    }
}

fn le32(b: &[u8], off: usize) -> Option<u32> {
    let w: [u8; 4] = b.get(off..off.checked_add(4)?)?.try_into().ok()?;
    Some(u32::from_le_bytes(w))
}

/// The length rules of a §9 payload (always little-endian), where its header is whole.
fn payload(name: &str, b: &[u8], found: &mut Vec<&'static str>) {
    let len = b.len() as u64;
    let Some(magic) = le32(b, 0) else {
        return;
    };
    match name {
        "system.posix_acl_default" => {
            if magic != 2 {
                found.push("W9.10");
            }
            if !(len - 4).is_multiple_of(8) {
                found.push("W9.3");
            }
        }
        "trusted.lmv" if magic == LMV_MAGIC_FOREIGN => foreign(b, true, found),
        "trusted.lov" if magic == LOV_MAGIC_FOREIGN => foreign(b, false, found),
        "trusted.lov" if (magic == LOV_MAGIC_COMP_V1 || magic == LOV_MAGIC_SEL) && len >= 32 => {
            composite(b, found)
        }
        "trusted.lmv" if (magic == LMV_MAGIC_V1 || magic == LMV_MAGIC_STRIPE) && len >= 56 => {
            let count = u64::from(le32(b, 4).unwrap_or(0));
            if count > LMV_MAX_STRIPE_COUNT as u64 {
                found.push("W0.3");
            }
            // 56 bytes is the header-only form, with any count (WIRE.md §9).
            if len != 56 && len != 56 + 16 * count {
                found.push("W9.2");
            }
        }
        _ => {}
    }
}

/// A composite layout's size and entry table (W9.2, W9.13, W9.14) and each entry's range
/// (W9.15, W9.16, W9.17): a decoder may check the entries in any order, and one changed offset can put one
/// entry outside the blob while another rule fails first.
fn composite(b: &[u8], found: &mut Vec<&'static str>) {
    let len = b.len() as u64;
    if le32(b, 4).is_some_and(|size| u64::from(size) != len) {
        found.push("W9.2");
    }
    let count = b
        .get(14..16)
        .map_or(0, |c| u16::from_le_bytes([c[0], c[1]]));
    if count == 0 {
        found.push("W9.13");
        return;
    }
    let table_end = 32 + 48 * u64::from(count);
    if table_end > len {
        found.push("W9.14");
        return;
    }
    let ranges: Vec<(u64, u64)> = (0..usize::from(count))
        .map(|i| {
            let e = 32 + 48 * i;
            let off = u64::from(le32(b, e + 24).unwrap_or(0));
            (off, off + u64::from(le32(b, e + 28).unwrap_or(0)))
        })
        .collect();
    for (i, &(start, end)) in ranges.iter().enumerate() {
        if end > len {
            found.push("W9.15");
        }
        if end > start && start < table_end {
            found.push("W9.16");
        }
        let overlaps = ranges[..i]
            .iter()
            .any(|&(s, e)| e > s && end > start && s < end && start < e);
        if overlaps {
            found.push("W9.17");
        }
    }
}

/// `lmv_foreign_md` / `lov_foreign_md`: 16 + lfm_length bytes; an LMV's lfm_length ≥ 1.
fn foreign(b: &[u8], lmv: bool, found: &mut Vec<&'static str>) {
    let Some(lfm_length) = le32(b, 4) else {
        return;
    };
    if b.len() < 16 {
        return;
    }
    if lmv && lfm_length == 0 {
        found.push("W9.19");
    }
    if b.len() as u64 != 16 + u64::from(lfm_length) {
        found.push("W9.2");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Expect, judge, vectors};

    fn rules_of(kind: Kind, bytes: &[u8], request: Option<&[u8]>) -> Vec<&'static str> {
        let Expect::Invalid(first) = judge(kind, bytes, request).expect() else {
            panic!("not invalid");
        };
        broken_rules(kind, bytes, request, first)
            .into_iter()
            .map(RuleId::as_str)
            .collect()
    }

    /// Every rule the checks here name is a decoder rule of WIRE.md (an ID that is not would
    /// be dropped silently by `rule`).
    #[test]
    fn every_named_rule_is_a_decoder_rule() {
        let src = include_str!("broken.rs");
        let named: Vec<&str> = src
            .split("found.push(\"")
            .skip(1)
            .filter_map(|s| s.split('"').next())
            .collect();
        assert!(named.len() > 20, "{named:?}");
        for id in named {
            assert!(rule(id).is_some(), "{id}");
        }
    }

    /// The valid and acceptable vectors and generated cases break nothing the checks here see:
    /// no check fires on an input the crate accepts.
    #[test]
    fn valid_inputs_break_no_listed_rule() {
        let cases = vectors(0)
            .into_iter()
            .chain(crate::generated_cases(0, 1500, 1));
        for c in cases {
            if c.expect.rule().is_none() {
                let mut found = Vec::new();
                match c.kind {
                    Kind::Request | Kind::Reply => {
                        message(c.kind, &c.bytes, c.request.as_deref(), &mut found)
                    }
                    Kind::Xattr(n) => payload(n, &c.bytes, &mut found),
                }
                assert!(found.is_empty(), "tcId {} ({}): {found:?}", c.id, c.comment);
            }
        }
    }

    /// The cases of issue 29: one change, several rules, in whatever order a decoder checks.
    #[test]
    fn one_change_lists_every_rule_it_breaks() {
        let req: &[u8] = include_bytes!("../testdata/rename_object_request.bin");
        let rep: &[u8] = include_bytes!("../testdata/rename_object_reply.bin");
        assert!(judge(Kind::Reply, rep, Some(req)).expect() == Expect::Valid);
        // Object mode: MCPP_LOOKUP_DONE in the body breaks W7.16 and, against the unchanged
        // dispositions, W7.3.
        let p = super::super::parts::Parts::split(rep).unwrap();
        let mut body = p.bufs[2].clone();
        body[4] |= MCPP_LOOKUP_DONE as u8;
        let m = p.with_buf(2, body).unwrap();
        let got = rules_of(Kind::Reply, &m, Some(req));
        assert!(got.contains(&"W7.16") && got.contains(&"W7.3"), "{got:?}");
        // A buffer length over PTLRPC_MAX_BUFLEN also runs past the input: W0.3 and W0.1.
        let mut m = rep.to_vec();
        m[32..36].copy_from_slice(&0x8000_0000u32.to_le_bytes());
        assert_eq!(rules_of(Kind::Reply, &m, Some(req)), ["W0.3", "W0.1"]);
        // A PATTR limit raised past XATTR_SIZE_MAX leaves lm_repsize too small: W0.3 and W8.1.
        let req: &[u8] = include_bytes!("../testdata/mkdir_request.bin");
        let p = super::super::parts::Parts::split(req).unwrap();
        let mut body = p.bufs[3].clone();
        body[48..52].copy_from_slice(&0x1_0001u32.to_le_bytes());
        let m = p.with_buf(3, body).unwrap();
        assert_eq!(rules_of(Kind::Request, &m, None), ["W0.3", "W8.1"]);
        // Component 0 moved onto component 2 (a v3 layout, 48 bytes, read as 32): the crate
        // finds the cut blob (W0.1), another decoder the overlap (W9.17).
        let mut comp = include_bytes!("../testdata/xattr_lov_comp3.bin").to_vec();
        comp[32 + 24] ^= 0x40;
        assert_eq!(
            rules_of(Kind::Xattr("trusted.lov"), &comp, None),
            ["W0.1", "W9.17"]
        );
        // An empty foreign LMV of 30 bytes: W9.2 and W9.19.
        let mut lmv = include_bytes!("../testdata/xattr_lmv_foreign.bin").to_vec();
        lmv[4..8].fill(0);
        let got = rules_of(Kind::Xattr("trusted.lmv"), &lmv, None);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.contains(&"W9.2") && got.contains(&"W9.19"), "{got:?}");
    }
}
