//! The runner's generated cases (docs/conformance.md §3): random valid requests, replies with
//! their requests and xattr payloads from the crate's `Arbitrary` generators, fed by a seeded
//! byte stream; their bit flips and truncations; and rule cases, each one targeted change.

use arbitrary::{Arbitrary, Unstructured};
use lustre_dne_intent::bytes::Bytes;

use super::mutate::{reply_shapes, request_shapes, words, xattr_shapes};
use super::{Case, Kind, Prng, XATTR_NAMES};
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    MliBuf, PrepResult, PrepareReply, PrepareRequest, ReplyContext, UnknownReason,
};

/// Bytes of randomness behind one generated value (enough for the largest `Arbitrary` draws
/// here; `Unstructured` fills with zeros past the end).
const ENTROPY: usize = 2048;

fn draw<T: for<'a> Arbitrary<'a>>(prng: &mut Prng) -> Option<T> {
    let data = prng.bytes(ENTROPY);
    T::arbitrary(&mut Unstructured::new(&data)).ok()
}

fn order(prng: &mut Prng) -> Endian {
    if prng.below(4) == 0 {
        Endian::Big
    } else {
        Endian::Little
    }
}

/// A random valid request, encoded, with its context.
pub(crate) fn valid_request(prng: &mut Prng) -> (Vec<u8>, ReplyContext) {
    loop {
        let Some(r) = draw::<PrepareRequest>(prng) else {
            continue;
        };
        if let (Ok(bytes), Ok(ctx)) = (r.to_bytes(order(prng)), r.reply_context()) {
            return (bytes.to_vec(), ctx);
        }
    }
}

/// The random reply's results made to agree with what the request asked for.
fn fit_results(reply: &mut PrepareReply, ctx: &ReplyContext) {
    let Some(o) = reply.outcome.as_mut() else {
        return;
    };
    let requested = ctx.requested();
    for b in MliBuf::ALL {
        let limit = ctx.limits[b.index()];
        let state = match o.result(b) {
            _ if !requested.has(b) => PrepResult::Unknown(UnknownReason::NotProvided),
            PrepResult::Present(d) if d.len() as u64 > u64::from(limit) => {
                PrepResult::Unknown(UnknownReason::Truncated {
                    size: d.len() as u32,
                })
            }
            PrepResult::Present(d) => PrepResult::Present(Bytes::copy_from_slice(d)),
            PrepResult::Unknown(UnknownReason::Truncated { size }) => {
                PrepResult::Unknown(UnknownReason::Truncated {
                    size: size.max(limit.saturating_add(1)),
                })
            }
            PrepResult::Absent => PrepResult::Absent,
            PrepResult::Unknown(r) => PrepResult::Unknown(r),
        };
        o.set_result(b, state);
    }
}

/// A random valid reply with its request: a random outcome fitted to the request, or the empty
/// result when it still breaks a rule.
pub(crate) fn valid_reply(prng: &mut Prng) -> (Vec<u8>, Vec<u8>) {
    let (req, ctx) = valid_request(prng);
    let order = order(prng);
    for _ in 0..4 {
        let Some(a) = draw::<PrepareReply>(prng) else {
            continue;
        };
        let mut r = PrepareReply::granting(&ctx, a.ldlm.lock_handle, a.outcome);
        r.header = a.header;
        r.ptlrpc = a.ptlrpc;
        fit_results(&mut r, &ctx);
        if r.validate(Some(&ctx)).is_ok()
            && let Ok(b) = r.to_bytes(order)
        {
            return (b.to_vec(), req);
        }
    }
    let r = PrepareReply::granting(
        &ctx,
        lustre_dne_intent::wire::LustreHandle(prng.next_u64()),
        None,
    );
    (
        r.to_bytes(order).map(|b| b.to_vec()).unwrap_or_default(),
        req,
    )
}

/// A random valid xattr payload of a random kind.
pub(crate) fn valid_xattr(prng: &mut Prng) -> (Kind, Vec<u8>) {
    const BUFS: [MliBuf; 5] = [
        MliBuf::DefAcl,
        MliBuf::Pin,
        MliBuf::Lmv,
        MliBuf::Lov,
        MliBuf::DefLmv,
    ];
    let i = prng.below(BUFS.len());
    let data = prng.bytes(ENTROPY);
    let payload =
        lustre_dne_intent::intent::arbitrary_payload(&mut Unstructured::new(&data), BUFS[i])
            .map(|b| b.to_vec())
            .unwrap_or_default();
    (Kind::Xattr(XATTR_NAMES[i]), payload)
}

/// A generated case: what it is and its input.
pub type GeneratedCase = Case;

fn flip_bits(prng: &mut Prng, bytes: &mut [u8]) -> String {
    let n = 1 + prng.below(3);
    let mut at = Vec::new();
    for _ in 0..n {
        if bytes.is_empty() {
            break;
        }
        let bit = prng.below(bytes.len() * 8);
        bytes[bit / 8] ^= 1 << (bit % 8);
        at.push(bit);
    }
    format!("bits {at:?} flipped")
}

/// A random valid input of a random kind: (kind, bytes, request for a reply, what it is).
pub(crate) fn valid_input(prng: &mut Prng) -> (Kind, Vec<u8>, Option<Vec<u8>>, &'static str) {
    match prng.below(3) {
        0 => {
            let (b, _) = valid_request(prng);
            (Kind::Request, b, None, "random request")
        }
        1 => {
            let (b, r) = valid_reply(prng);
            (Kind::Reply, b, Some(r), "random reply")
        }
        _ => {
            let (k, b) = valid_xattr(prng);
            (k, b, None, "random payload")
        }
    }
}

/// One targeted change of a valid input: a shape mutant or a one-field mutant.
pub(crate) fn targeted_change(
    prng: &mut Prng,
    kind: Kind,
    bytes: &[u8],
) -> Option<(String, Vec<u8>)> {
    let mut list = match kind {
        Kind::Request => request_shapes(bytes),
        Kind::Reply => reply_shapes(bytes, &[]),
        Kind::Xattr(n) => xattr_shapes(n, bytes),
    };
    list.extend(
        words(bytes, super::message_order(kind, bytes))
            .into_iter()
            .map(|(_, _, w, m)| (w, m)),
    );
    if list.is_empty() {
        return None;
    }
    let i = prng.below(list.len());
    Some(list.swap_remove(i))
}

/// One generated case (id 0), drawn from `prng`.
pub(crate) fn one(prng: &mut Prng) -> Case {
    let (kind, mut bytes, request, what) = valid_input(prng);
    let (comment, strict) = match prng.below(5) {
        0 | 1 => (what.to_owned(), true),
        2 => (format!("{what}, {}", flip_bits(prng, &mut bytes)), false),
        3 => {
            let n = prng.below(bytes.len().max(1));
            bytes.truncate(n);
            (format!("{what}, cut to {n} bytes"), false)
        }
        // The rule of a targeted change is checked strictly.
        _ => match targeted_change(prng, kind, &bytes) {
            Some((w, m)) => {
                bytes = m;
                (format!("{what}, {w}"), true)
            }
            None => (what.to_owned(), true),
        },
    };
    let mut c = Case::judged(kind, comment, vec![], bytes, request);
    c.strict_rule = strict;
    c
}

/// `count` generated cases for `seed`, with ids from `first_id`.
pub fn generated_cases(seed: u64, count: usize, first_id: u64) -> Vec<Case> {
    (0..count as u64)
        .map(|i| generated_case(seed, i, first_id))
        .collect()
}

/// The generated case number `index` (from 0) of `seed`, with id `first_id + index`. Each case
/// draws from a stream of its own, so one case is made without the ones before it: `conform
/// --dump ID` costs the same at any `--count`.
pub fn generated_case(seed: u64, index: u64, first_id: u64) -> Case {
    // Apart from the vectors' stream too, so the two do not share draws.
    let mut prng = Prng::new(seed ^ 0x636f_6e66_6f72_6d21).split(index);
    let mut c = one(&mut prng);
    c.id = first_id.saturating_add(index);
    c
}
