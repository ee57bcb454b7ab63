//! A message in the other byte order, field by field: the same message as a peer of the other
//! endianness writes it (WIRE.md §1: every numeric field of buffers 0–3 and of the groups
//! buffer swapped; the header's fields and buffer lengths too; strings, handles, byte arrays
//! and the xattr results as they are). The kit makes the big-endian twins of its invalid
//! vectors with it, and the tests undo them with it.
//!
//! Which bytes form one numeric field is not listed here: it comes from the codec's layout
//! tables (`wire::layout`), every integer member of each structure; a byte, a byte array (a
//! job id) and a lock handle's cookie stay where they are.
//!
//! The swab walks the message as its receiver does, by its own framing: the header, the buffer
//! lengths when `lm_bufcount` is at most 32, then each buffer's structure, as far as the bytes
//! go (a field the end of the input cuts is left as it is). A changed field that moves the
//! framing (a buffer length) can therefore make a message whose twin is not what a receiver's
//! swab gives back; the vectors keep only twins it gives back exactly.

use std::sync::OnceLock;

use lustre_dne_intent::wire::LustreHandle;
use lustre_dne_intent::wire::layout::{
    FieldType, Layout, ldlm_intent, ldlm_reply, ldlm_request, lustre_msg_v2, md_create_prepare_rep,
    md_create_prepare_req, mdt_body, ptlrpc_body,
};

use super::Kind;

/// `PTLRPC_MAX_BUFCOUNT`: a receiver reads no buffer length past it.
const MAX_BUFCOUNT: usize = lustre_dne_intent::limits::MSG_MAX_BUFCOUNT;

/// One numeric field: its offset and width in bytes.
type Field = (usize, usize);

/// `(offset, width)` of every integer of structure `l`, from the codec's layout tables: nested
/// structures and arrays element by element, bytes left out (a byte has no order). The members
/// of a structure `opaque` says is one (a handle's cookie) are left out too.
pub(crate) fn integers(l: &Layout, opaque: &dyn Fn(&Layout) -> bool) -> Vec<Field> {
    fn walk(l: &Layout, base: usize, opaque: &dyn Fn(&Layout) -> bool, out: &mut Vec<Field>) {
        for f in l.fields {
            for i in 0..f.array.map_or(1, |a| a.len) {
                let at = base + f.offset + i * f.ty.size();
                match f.ty {
                    FieldType::Struct(inner) if opaque(inner) => {}
                    FieldType::Struct(inner) => walk(inner, at, opaque, out),
                    FieldType::U8 => {}
                    t => out.push((at, t.size())),
                }
            }
        }
    }
    let mut out = Vec::new();
    walk(l, 0, opaque, &mut out);
    out
}

/// What a buffer holds, for its swab.
#[derive(Clone, Copy)]
enum Content {
    /// A structure (its fields from [`Plans`]) at the start of the buffer; bytes past it as
    /// they are.
    Struct(usize),
    /// A `u32` array (the groups).
    U32s,
    /// Bytes never swapped: a name, an xattr result, a buffer past the defined ones.
    Bytes,
}

const HEADER: usize = 0;
const PTLRPC_BODY: usize = 1;
const LDLM_REQUEST: usize = 2;
const LDLM_INTENT: usize = 3;
const PREPARE_REQ: usize = 4;
const LDLM_REPLY: usize = 5;
const PREPARE_REP: usize = 6;
const MDT_BODY: usize = 7;

type Plans = [Vec<Field>; 8];

fn plans() -> &'static Plans {
    static PLANS: OnceLock<Plans> = OnceLock::new();
    PLANS.get_or_init(|| {
        // A lock handle is an opaque cookie: Lustre never swabs it.
        let handle = |l: &Layout| l.name == LustreHandle::LAYOUT.name;
        [
            lustre_msg_v2::LAYOUT,
            ptlrpc_body::LAYOUT,
            ldlm_request::LAYOUT,
            ldlm_intent::LAYOUT,
            md_create_prepare_req::LAYOUT,
            ldlm_reply::LAYOUT,
            md_create_prepare_rep::LAYOUT,
            mdt_body::LAYOUT,
        ]
        .map(|l| integers(l, &handle))
    })
}

/// Buffer `i` of a message of `kind` (WIRE.md §5 and §7).
fn content(kind: Kind, i: usize) -> Content {
    match (kind, i) {
        (_, 0) => Content::Struct(PTLRPC_BODY),
        (Kind::Request, 1) => Content::Struct(LDLM_REQUEST),
        (Kind::Request, 2) => Content::Struct(LDLM_INTENT),
        (Kind::Request, 3) => Content::Struct(PREPARE_REQ),
        (Kind::Request, 5) => Content::U32s,
        (Kind::Reply, 1) => Content::Struct(LDLM_REPLY),
        (Kind::Reply, 2) => Content::Struct(PREPARE_REP),
        (Kind::Reply, 3) => Content::Struct(MDT_BODY),
        _ => Content::Bytes,
    }
}

/// The numeric fields of message `msg`, by its own framing read in its own byte order
/// (`lm_magic`), whole or not.
fn message_fields(kind: Kind, msg: &[u8]) -> Vec<Field> {
    let plans = plans();
    let mut out = plans[HEADER].clone();
    let order = super::message_order(kind, msg);
    let word = |off: usize| -> Option<usize> {
        let w: [u8; 4] = msg.get(off..off + 4)?.try_into().ok()?;
        Some(order.u32_from(w) as usize)
    };
    let Some(n) = word(0).filter(|&n| n <= MAX_BUFCOUNT) else {
        return out;
    };
    out.extend((0..n).map(|i| (32 + 4 * i, 4)));
    let mut off = (32 + 4 * n).next_multiple_of(8);
    for i in 0..n {
        let Some(len) = word(32 + 4 * i) else {
            break;
        };
        if off >= msg.len() {
            break;
        }
        match content(kind, i) {
            Content::Struct(s) => out.extend(
                plans[s]
                    .iter()
                    .filter(|(o, w)| o + w <= len)
                    .map(|&(o, w)| (off + o, w)),
            ),
            Content::U32s => out.extend((0..len / 4).map(|k| (off + 4 * k, 4))),
            Content::Bytes => {}
        }
        off = off.saturating_add(len.next_multiple_of(8));
    }
    out
}

/// `bytes` with each field of `fields` that lies wholly inside it reversed.
fn swab_fields(fields: &[Field], bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for &(o, w) in fields {
        if let Some(f) = out.get_mut(o..o + w) {
            f.reverse();
        }
    }
    out
}

/// A message of `kind` in the other byte order, by its own framing (see the module): what a
/// receiver of the other byte order has once it has swabbed it. Applied to its own result it
/// gives the message back, when the framing holds.
pub fn swab_message(kind: Kind, msg: &[u8]) -> Vec<u8> {
    swab_fields(&message_fields(kind, msg), msg)
}

/// `msg` in the other byte order with the fields of `model`, a message of the same length
/// that `msg` is one changed field of: the changed field is swapped as the field it changed,
/// whatever it now says about the framing.
pub(crate) fn swab_like(kind: Kind, model: &[u8], msg: &[u8]) -> Vec<u8> {
    swab_fields(&message_fields(kind, model), msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Expect, generated_cases, judge, vectors};
    use lustre_dne_intent::Endian;
    use lustre_dne_intent::intent::{ReplyView, RequestView};

    /// The value of a valid message re-encoded in the other byte order by the crate.
    fn other_order(kind: Kind, bytes: &[u8]) -> Vec<u8> {
        let order = crate::message_order(kind, bytes);
        let to = match order {
            Endian::Little => Endian::Big,
            Endian::Big => Endian::Little,
        };
        match kind {
            Kind::Request => RequestView::parse(bytes)
                .expect("valid")
                .to_value()
                .to_bytes(to),
            _ => ReplyView::parse(bytes)
                .expect("valid")
                .to_value()
                .to_bytes(to),
        }
        .expect("encodes")
        .to_vec()
    }

    /// The swab agrees with the crate's encoders on every valid message of the vectors and of
    /// the generated cases (random field values, both byte orders), and undoes itself.
    #[test]
    fn swab_is_the_crates_other_byte_order() {
        let cases = vectors(0).into_iter().chain(generated_cases(0, 1500, 1));
        let mut n = 0;
        for c in cases {
            if c.expect != Expect::Valid || !matches!(c.kind, Kind::Request | Kind::Reply) {
                continue;
            }
            let swabbed = swab_message(c.kind, &c.bytes);
            assert_eq!(
                swabbed,
                other_order(c.kind, &c.bytes),
                "tcId {} ({})",
                c.id,
                c.comment
            );
            assert_eq!(swab_message(c.kind, &swabbed), c.bytes, "tcId {}", c.id);
            assert_eq!(
                judge(c.kind, &swabbed, c.request.as_deref()).canonical(),
                c.canonical.as_deref()
            );
            n += 1;
        }
        assert!(n > 300, "{n} valid messages");
    }

    /// The fields found are the structures' own: sizes add up, handles and strings stay.
    #[test]
    fn fields_are_the_numeric_members() {
        let p = plans();
        // lustre_msg_v2: eight u32.
        assert_eq!(p[HEADER], (0..8).map(|i| (4 * i, 4)).collect::<Vec<_>>());
        // ptlrpc_body_v3: pb_handle (0..8) and pb_jobid (152..184) are bytes; pb_tag is a u16.
        assert_eq!(p[PTLRPC_BODY][0], (8, 4));
        assert!(p[PTLRPC_BODY].contains(&(32, 2)));
        assert_eq!(p[PTLRPC_BODY].last(), Some(&(148, 4)));
        // ldlm_reply: lock_handle (88..96) is bytes.
        assert!(p[LDLM_REPLY].iter().all(|&(o, w)| o + w <= 88 || o >= 96));
        // The new bodies: every byte is in a numeric field.
        for s in [PREPARE_REQ, PREPARE_REP] {
            assert_eq!(p[s].iter().map(|f| f.1).sum::<usize>(), 80);
        }
    }
}
