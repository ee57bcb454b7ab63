//! Every rule an invalid input breaks, found by running the reference decoder itself: decode,
//! take the rule it reports, repair the one field its error names, and decode again, until the
//! input decodes or the error names nothing the kit can repair (docs/conformance.md §1.3).
//!
//! A repair writes into the field the error names (its offset, in the message's own byte order;
//! an xattr field little-endian) a value that obeys that field's rule and that no other rule of
//! WIRE.md holds against it: the value the field is fixed to (W0.4, and the request's own lock
//! in a reply, W7.4), the bits cleared that the rule forbids (W0.6, W6.1, W7.8) or set that it
//! requires (W0.5), a count at its bound (`lock_count`), a limit of 0 ("not requested", which
//! can only shrink what W8.1 asks of `lm_repsize`), `lm_repsize` at the size W8.1 asks, a lock
//! mode or status any reply may hold. So a rule the decoder reports after a repair was already
//! broken in the input: the repair changed only a field that rule does not constrain, or made it
//! obey every rule that reads it. Errors whose repair would change the shape of the message (a
//! buffer's length or count), a choice between meanings (an opcode, the lookup flags, a mode
//! against its operation) or a payload's structure have no repair: the walk stops there.
//!
//! The codec is not changed for this: its decode path has no switch to skip a rule.

use lustre_dne_intent::intent::{ReplyContext, RequestView};
use lustre_dne_intent::rules::RuleId;
use lustre_dne_intent::structures;
use lustre_dne_intent::wire::layout::{
    FieldType, Layout, ldlm_request, lu_fid, md_create_prepare_rep as rep,
    md_create_prepare_req as req,
};
use lustre_dne_intent::{DecodeError, Endian, ErrorKind};

use super::{Judgement, Kind, judge, message_order};

/// At most this many repairs of one input: more than the rules one input can break in fields
/// the walk repairs, so the bound only stops a repair that would not take.
const MAX_REPAIRS: usize = 32;

/// The rules the reference decoder reports on `bytes` (a reply: answering `request`) as each one
/// found is repaired in turn, in the order it reports them; empty when the input decodes.
pub(crate) fn reference_rules(kind: Kind, bytes: &[u8], request: Option<&[u8]>) -> Vec<RuleId> {
    let ctx = request
        .and_then(|r| RequestView::parse(r).ok())
        .map(|v| v.reply_context());
    let mut out: Vec<RuleId> = Vec::new();
    let mut input = bytes.to_vec();
    for _ in 0..MAX_REPAIRS {
        let Judgement::Rejected(e) = judge(kind, &input, request) else {
            break;
        };
        if !out.contains(&e.rule()) {
            out.push(e.rule());
        }
        match repaired(kind, &input, ctx.as_ref(), &e) {
            Some(next) if next != input => input = next,
            _ => break,
        }
    }
    out
}

/// `bytes` with the field `e` names repaired, or `None` when the kit has no repair for it.
pub(crate) fn repaired(
    kind: Kind,
    bytes: &[u8],
    ctx: Option<&ReplyContext>,
    e: &DecodeError,
) -> Option<Vec<u8>> {
    let order = message_order(kind, bytes);
    let field = e.at.field;
    let at = e.at.offset;
    let w = width(e.at.structure, field);
    let old = read(bytes, at, w, order)?;
    let new = match e.kind {
        ErrorKind::WrongValue { expected, .. } => expected,
        ErrorKind::WrongMsgVersion { expected, got } => {
            (u64::from(got) & 0xffff_0000) | u64::from(expected)
        }
        ErrorKind::ForbiddenBits { forbidden, .. } => old & !forbidden,
        ErrorKind::MissingBits { required, .. } => old | required,
        ErrorKind::ZeroTimeout => 1,
        ErrorKind::ResourceNotFid { .. } => 0,
        ErrorKind::RepsizeTooSmall { need, .. } => u64::try_from(need).ok()?,
        // A limit over XATTR_SIZE_MAX or a PATTR limit below an mdt_body: not requested.
        ErrorKind::PattrLimitTooSmall { .. } => 0,
        ErrorKind::OverLimit { .. } if req::mcpr_buf_limit.elements.contains(&field) => 0,
        ErrorKind::OverLimit { max, .. } if field == ldlm_request::lock_count.name => max,
        ErrorKind::FidNotResource { resource, .. } => {
            // mcpr_fid takes the resource's FID: f_seq, f_oid, f_ver.
            let mut out = bytes.to_vec();
            let (seq, oid, ver) = (lu_fid::f_seq, lu_fid::f_oid, lu_fid::f_ver);
            write(&mut out, at + seq.offset, 8, resource.seq, order)?;
            write(&mut out, at + oid.offset, 4, resource.oid.into(), order)?;
            write(&mut out, at + ver.offset, 4, resource.ver.into(), order)?;
            return Some(out);
        }
        // A lock mode: the request's own (a reply), or PW (a request: any client mode).
        ErrorKind::BadLockMode { .. } => ctx.map_or(2, |c| c.lock.req_mode.0.into()),
        ErrorKind::LockNotAsRequested { expected, .. } => expected,
        ErrorKind::PositiveStatus { .. } => 0,
        // pb_status of a reply (a PTL_RPC_MSG_ERR type stays: the walk stops on it).
        ErrorKind::EnqueueFailed { .. } => 0,
        // A buffer past the last one the message defines, emptied: the buffers after it are
        // past the last too, and a smaller message breaks no size rule it kept.
        ErrorKind::BufferPastLast { .. } => 0,
        ErrorKind::ReservedResultBits { bits } => old & !u64::from(bits),
        ErrorKind::ValidAndTruncated { both } => {
            // The bits leave mcpp_truncated (after mcpp_valid, where the error points).
            let t_at = at + rep::mcpp_truncated.offset - rep::mcpp_valid.offset;
            let t = read(bytes, t_at, 4, order)?;
            let mut out = bytes.to_vec();
            write(&mut out, t_at, 4, t & !u64::from(both.0), order)?;
            return Some(out);
        }
        ErrorKind::AclBadPerm { perm, .. } => {
            // e_perm (u16, little-endian like every payload): its rwx bits only.
            let mut out = bytes.to_vec();
            out.get_mut(at..at + 2)?
                .copy_from_slice(&(perm & 7).to_le_bytes());
            return Some(out);
        }
        _ => return None,
    };
    let mut out = bytes.to_vec();
    write(&mut out, at, w, new, order)?;
    Some(out)
}

/// The width of one element of the member `field` of `structure` (a path through embedded
/// structures and the ones inlined, `lock_desc.l_resource.lr_name.name[2]`), as `wire::layout`
/// declares it; 4 for a member no layout declares (an xattr payload's).
fn width(structure: &str, field: &str) -> usize {
    let member = || {
        let mut l: &Layout = structures::ALL.iter().find(|l| l.name == structure)?;
        let mut path = field.split('.').peekable();
        loop {
            let name = path.next()?;
            let f = match l.field(name.split('[').next()?) {
                Some(f) => f,
                // A structure the layout inlines (`l_resource`): its members are `l`'s.
                None if path.peek().is_some() => continue,
                None => return None,
            };
            match (path.peek(), f.ty) {
                (None, ty) => return Some(ty.size()),
                (Some(_), FieldType::Struct(inner)) => l = inner,
                (Some(_), _) => return None,
            }
        }
    };
    member().unwrap_or(4)
}

/// The `width`-byte integer at `at` in byte order `order`.
fn read(bytes: &[u8], at: usize, width: usize, order: Endian) -> Option<u64> {
    let b = bytes.get(at..at.checked_add(width)?)?;
    let mut v = 0u64;
    for i in 0..width {
        let byte = match order {
            Endian::Little => b[width - 1 - i],
            Endian::Big => b[i],
        };
        v = v << 8 | u64::from(byte);
    }
    Some(v)
}

/// Writes `value` as the `width`-byte integer at `at` in byte order `order`; `None` when it
/// does not fit the input.
fn write(bytes: &mut [u8], at: usize, width: usize, value: u64, order: Endian) -> Option<()> {
    let b = bytes.get_mut(at..at.checked_add(width)?)?;
    for (i, byte) in b.iter_mut().enumerate() {
        let shift = match order {
            Endian::Little => 8 * i,
            Endian::Big => 8 * (width - 1 - i),
        };
        *byte = (value >> shift) as u8;
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Expect, vectors};

    fn ids(r: &[RuleId]) -> Vec<&'static str> {
        r.iter().map(|r| r.as_str()).collect()
    }

    /// Three breaches in one request, in three structures: each is found, in the decoder's
    /// order, and repairing them gives a request that decodes.
    /// The widths come from the layout tables, through embedded and inlined structures; a
    /// member no table declares is a word.
    #[test]
    fn widths_are_the_layout_s() {
        for (structure, field, w) in [
            ("ldlm_request", "lock_desc.l_resource.lr_name.name[2]", 8),
            ("ldlm_request", "lock_desc.l_resource.lr_type", 4),
            ("ldlm_request", "lock_desc.l_policy_data.bits", 8),
            ("ldlm_reply", "lock_policy_res2", 8),
            ("ldlm_intent", "opc", 8),
            ("md_create_prepare_req", "mcpr_buf_limit[3]", 4),
            ("lustre_msg_v2", "lm_bufcount", 4),
            ("lmv_foreign_md", "lfm_length", 4),
        ] {
            assert_eq!(width(structure, field), w, "{structure}.{field}");
        }
    }

    #[test]
    fn each_repaired_breach_shows_the_next() {
        let req: &[u8] = include_bytes!("../testdata/mkdir_request.bin");
        let p = crate::parts::Parts::split(req).unwrap();
        let mut p2 = p.clone();
        p2.header.secflvr = 1;
        // lock_count 5 of 2 handles; pb_version 0x00020003; mcpr_umask 0o1022.
        p2.bufs[1][4..8].copy_from_slice(&5u32.to_le_bytes());
        p2.bufs[0][12..16].copy_from_slice(&0x0002_0003u32.to_le_bytes());
        p2.bufs[3][28..32].copy_from_slice(&0o1022u32.to_le_bytes());
        let m = p2.join().unwrap();
        assert_eq!(
            ids(&reference_rules(Kind::Request, &m, None)),
            ["W0.3", "W0.6", "W0.4"]
        );
        // The same in a big-endian peer's request: the repairs write its byte order.
        let be = crate::reorder::swab_message(Kind::Request, &m);
        assert_eq!(
            ids(&reference_rules(Kind::Request, &be, None)),
            ["W0.3", "W0.6", "W0.4"]
        );
        // A reply whose lock_policy_res2 and mcpp_status are both wrong.
        let rep: &[u8] = include_bytes!("../testdata/mkdir_reply_complete.bin");
        let p = crate::parts::Parts::split(rep).unwrap();
        let mut p2 = p.clone();
        p2.bufs[1][104] = 1;
        p2.bufs[2][0..4].copy_from_slice(&1i32.to_le_bytes());
        let m = p2.join().unwrap();
        assert_eq!(
            ids(&reference_rules(Kind::Reply, &m, Some(req))),
            ["W0.4", "W7.5"]
        );
        assert!(reference_rules(Kind::Reply, rep, Some(req)).is_empty());
    }

    /// A repair changes the named field only: every byte it changes lies in the 16 bytes from
    /// the error's offset (the widest repaired field is a FID), and it keeps the length; and
    /// the walk's first rule is the crate's.
    #[test]
    fn repairs_change_the_named_field_only() {
        let mut repaired_some = 0;
        for c in vectors(0) {
            let Expect::Invalid(rule) = c.expect else {
                continue;
            };
            let walk = reference_rules(c.kind, &c.bytes, c.request.as_deref());
            assert_eq!(walk.first(), Some(&rule), "tcId {}", c.id);
            let ctx = c
                .request
                .as_deref()
                .and_then(|r| RequestView::parse(r).ok())
                .map(|v| v.reply_context());
            let Judgement::Rejected(e) = judge(c.kind, &c.bytes, c.request.as_deref()) else {
                unreachable!("an invalid case")
            };
            if let Some(n) = repaired(c.kind, &c.bytes, ctx.as_ref(), &e) {
                repaired_some += 1;
                assert_eq!(n.len(), c.bytes.len(), "tcId {}", c.id);
                for (i, (a, b)) in c.bytes.iter().zip(&n).enumerate() {
                    if a != b {
                        let at = e.at.offset;
                        assert!((at..at + 16).contains(&i), "tcId {}: byte {i} ({e})", c.id);
                    }
                }
            }
        }
        assert!(repaired_some > 50, "{repaired_some}");
    }
}

#[cfg(test)]
mod shifted {
    use super::*;
    use crate::broken_rules;

    /// A shorter buffer 0 moves every later buffer 8 bytes back (issue 37's case 2345 of seed 1
    /// was such a change): the fields then read break rule after rule, and the case lists each
    /// one the walk reaches, not only the first.
    #[test]
    fn a_moved_buffer_lists_what_its_fields_break() {
        let req: &[u8] = include_bytes!("../testdata/mkdir_request.bin");
        let mut m = req.to_vec();
        m[32..36].copy_from_slice(&176u32.to_le_bytes());
        let Judgement::Rejected(e) = judge(Kind::Request, &m, None) else {
            panic!("refused")
        };
        let rules = broken_rules(Kind::Request, &m, None, crate::Expect::Invalid(e.rule()));
        let walk = reference_rules(Kind::Request, &m, None);
        // Read 8 bytes early: lock_flags from the job id (no HAS_INTENT), lr_type from
        // lock_flags, name[2] from name[1], l_req_mode from name[3], the opcode from the last
        // lock handle; each repaired in turn; an opcode has no repair, and the walk stops there.
        let ids: Vec<&str> = walk.iter().map(|r| r.as_str()).collect();
        assert_eq!(ids, ["W0.5", "W0.4", "W3.1", "W3.2", "W5.1"]);
        assert!(
            walk.iter().all(|r| rules.contains(r)),
            "{walk:?} in {rules:?}"
        );
        assert_eq!(rules.first(), Some(&e.rule()));
    }
}
