//! A structure-aware mutator for libFuzzer's custom-mutator hook (`fuzz_mutator!`).
//!
//! Byte-level mutation rarely gets past the framing: one flipped byte of `lm_buflens` moves
//! every buffer. This mutator frames the input, changes it at the level of the protocol (one
//! field of a known structure set to a value that matters, a result's state, a buffer's
//! length, the byte order) and frames it again, so that the mutants reach the rules behind the
//! framing. Some mutations keep the message consistent (the value is re-encoded by the crate's
//! validating encoder); others break one rule on purpose.

use crate::reorder::integers;
use alloc::vec::Vec;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{MliBuf, PrepResult, ReplyView, RequestView, UnknownReason};
use lustre_dne_intent::limits::{MLI_BUF_MAX, MSG_MAX_BUFCOUNT};
use lustre_dne_intent::wire::layout::{
    ldlm_intent, ldlm_reply, ldlm_request, md_create_prepare_rep, md_create_prepare_req,
    ptlrpc_body,
};
use lustre_dne_intent::wire::{MsgBuilder, MsgView, PtlrpcBody, PtlrpcMsgType};
use std::sync::OnceLock;

/// A small deterministic generator (xorshift32) seeded by libFuzzer.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 { 0 } else { self.next() as usize % n }
    }

    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.below(from.len())]
    }
}

/// Values that decide rules: boundaries, flag bits, opcodes, magics, limits.
const INTERESTING: &[u64] = &[
    0,
    1,
    2,
    3,
    4,
    7,
    8,
    0x10,
    0x20,
    0x3f,
    0x40,
    0x80,
    101,
    216,
    255,
    256,
    4711,
    4712,
    4713,
    0x1000,
    0xffff,
    65536,
    65537,
    0x0001_0000,
    0x0002_0000,
    0x0004_0000,
    0x0004_0003,
    0x0bd0_0bd3,
    0xd30b_d00b,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
    u64::MAX,
];

/// The integers of buffer `i` of a request or a reply, worked out once.
fn fields_of(reply: bool, i: usize) -> &'static [(usize, usize)] {
    static WORDS: OnceLock<[Vec<(usize, usize)>; 6]> = OnceLock::new();
    let [ptlrpc, ldlm_req, intent, prep_req, ldlm_rep, prep_rep] = WORDS.get_or_init(|| {
        [
            ptlrpc_body::LAYOUT,
            ldlm_request::LAYOUT,
            ldlm_intent::LAYOUT,
            md_create_prepare_req::LAYOUT,
            ldlm_reply::LAYOUT,
            md_create_prepare_rep::LAYOUT,
        ]
        // Every integer, handles included (byte arrays, such as a job id, are left to
        // libFuzzer's byte-level mutations).
        .map(|l| integers(l, &|_| false))
    });
    match (reply, i) {
        (_, 0) => ptlrpc,
        (false, 1) => ldlm_req,
        (false, 2) => intent,
        (false, 3) => prep_req,
        (true, 1) => ldlm_rep,
        (true, 2) => prep_rep,
        _ => &[],
    }
}

fn put(buf: &mut [u8], off: usize, width: usize, v: u64, order: Endian) {
    let bytes = match order {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    };
    let Some(dst) = buf.get_mut(off..off + width) else {
        return;
    };
    match order {
        Endian::Little => dst.copy_from_slice(&bytes[..width]),
        Endian::Big => dst.copy_from_slice(&bytes[8 - width..]),
    }
}

fn get(buf: &[u8], off: usize, width: usize, order: Endian) -> u64 {
    let Some(src) = buf.get(off..off + width) else {
        return 0;
    };
    let mut b = [0u8; 8];
    match order {
        Endian::Little => {
            b[..width].copy_from_slice(src);
            u64::from_le_bytes(b)
        }
        Endian::Big => {
            b[8 - width..].copy_from_slice(src);
            u64::from_be_bytes(b)
        }
    }
}

/// The framed input: its buffers, copied so they can change.
struct Parts {
    order: Endian,
    header: lustre_dne_intent::wire::MsgHeader,
    bufs: Vec<Vec<u8>>,
    reply: bool,
}

impl Parts {
    fn of(data: &[u8]) -> Option<Self> {
        let msg = MsgView::parse(data).ok()?;
        let bufs: Vec<Vec<u8>> = (0..msg.bufcount())
            .map(|i| msg.buffer_or_empty(i).to_vec())
            .collect();
        let reply = PtlrpcBody::decode_buffer(msg.buffer_or_empty(0), msg.order(), 0)
            .is_ok_and(|b| b.msg_type != PtlrpcMsgType::REQUEST);
        Some(Parts {
            order: msg.order(),
            header: msg.header(),
            bufs,
            reply,
        })
    }

    /// Frames the parts into `out`; the size written, or `None` when it does not fit.
    fn frame(&self, out: &mut [u8]) -> Option<usize> {
        let mut b = MsgBuilder::new(self.order, self.header);
        for buf in &self.bufs {
            b.push(buf).ok()?;
        }
        let n = b.wire_len();
        if n > out.len() {
            return None;
        }
        b.encode_into(out).ok()
    }
}

/// One field of one known structure set to an interesting value, a neighbour of its value, or
/// its value with one bit flipped.
fn mutate_field(p: &mut Parts, rng: &mut Rng) {
    let i = rng.below(p.bufs.len().min(3 + usize::from(!p.reply)));
    let fields = fields_of(p.reply, i);
    if fields.is_empty() {
        return;
    }
    let (off, width) = rng.pick(fields);
    let old = get(&p.bufs[i], off, width, p.order);
    let new = match rng.below(4) {
        0 | 1 => rng.pick(INTERESTING),
        2 => old.wrapping_add(rng.pick(&[1u64, u64::MAX])),
        _ => old ^ 1 << rng.below(8 * width),
    };
    put(&mut p.bufs[i], off, width, new, p.order);
}

/// A reply's result moved to another state, the body kept consistent with it (or, one time in
/// four, the body left as it was: a rule broken on purpose).
fn mutate_result(p: &mut Parts, rng: &mut Rng) {
    if !p.reply || p.bufs.len() < 3 || p.bufs[2].len() < 72 {
        return;
    }
    let r = rng.below(MLI_BUF_MAX);
    let bit = 1u64 << r;
    let order = p.order;
    let valid = get(&p.bufs[2], 8, 4, order);
    let truncated = get(&p.bufs[2], 12, 4, order);
    let size_off = 48 + 4 * r;
    let (valid, truncated, size, data): (u64, u64, u64, Vec<u8>) = match rng.below(4) {
        // Present: some bytes (another result's, or zeros).
        0 => {
            let donor = rng.below(p.bufs.len());
            let mut d = p.bufs[donor].clone();
            if d.is_empty() {
                d = alloc::vec![0u8; rng.pick(&[8usize, 44, 216])];
            }
            (valid | bit, truncated & !bit, d.len() as u64, d)
        }
        // Absent.
        1 => (valid | bit, truncated & !bit, 0, Vec::new()),
        // Truncated with a size.
        2 => (
            valid & !bit,
            truncated | bit,
            rng.pick(&[0u64, 1, 216, 4096, 65536, 65537]),
            Vec::new(),
        ),
        // Unknown.
        _ => (valid & !bit, truncated & !bit, 0, Vec::new()),
    };
    let keep_body = rng.below(4) == 0;
    if !keep_body {
        put(&mut p.bufs[2], 8, 4, valid, order);
        put(&mut p.bufs[2], 12, 4, truncated, order);
        put(&mut p.bufs[2], size_off, 4, size, order);
    }
    while p.bufs.len() <= 3 + r && p.bufs.len() < MSG_MAX_BUFCOUNT {
        p.bufs.push(Vec::new());
    }
    if let Some(b) = p.bufs.get_mut(3 + r) {
        *b = data;
    }
}

/// A buffer cut short, grown by some zero bytes, emptied, added or dropped.
fn mutate_length(p: &mut Parts, rng: &mut Rng) {
    let i = rng.below(p.bufs.len());
    match rng.below(5) {
        0 => {
            let b = &mut p.bufs[i];
            let n = rng.below(b.len() + 1);
            b.truncate(n);
        }
        1 => {
            let grow = rng.pick(&[1usize, 4, 8, 16]);
            let b = &mut p.bufs[i];
            b.resize(b.len() + grow, 0);
        }
        2 => p.bufs[i].clear(),
        3 if p.bufs.len() < MSG_MAX_BUFCOUNT => {
            let extra = rng.pick(&[0usize, 8]);
            p.bufs.push(alloc::vec![0u8; extra]);
        }
        _ if p.bufs.len() > 1 => {
            p.bufs.pop();
        }
        _ => {}
    }
}

/// A message that decodes, re-encoded in the other byte order by the crate's own encoders, or
/// with one result's state changed through the value API (a consistent mutation).
fn mutate_value(data: &[u8], out: &mut [u8], rng: &mut Rng) -> Option<usize> {
    if let Ok(v) = RequestView::parse(data) {
        let order = match v.order() {
            Endian::Little => Endian::Big,
            Endian::Big => Endian::Little,
        };
        let mut value = v.to_value();
        if rng.below(2) == 0 {
            let r = rng.below(MLI_BUF_MAX);
            value.body.buf_limit[r] = rng.pick(&[0u32, 1, 44, 216, 4096, 65536]);
            value.header.repsize = value.required_repsize();
        }
        let bytes = value.to_bytes(order).ok()?;
        return copy_out(&bytes, out);
    }
    if let Ok(v) = ReplyView::parse(data) {
        let mut value = v.to_value();
        let order = if rng.below(2) == 0 {
            v.order()
        } else {
            match v.order() {
                Endian::Little => Endian::Big,
                Endian::Big => Endian::Little,
            }
        };
        if let Some(o) = value.outcome.as_mut() {
            let buf = MliBuf::ALL[rng.below(MLI_BUF_MAX)];
            let state = match rng.below(3) {
                0 => PrepResult::Absent,
                1 => PrepResult::Unknown(UnknownReason::Truncated {
                    size: rng.pick(&[217u32, 4097, 65536]),
                }),
                _ => PrepResult::Unknown(UnknownReason::NotProvided),
            };
            o.set_result(buf, state);
        }
        let bytes = value.to_bytes(order).ok()?;
        return copy_out(&bytes, out);
    }
    None
}

fn copy_out(bytes: &[u8], out: &mut [u8]) -> Option<usize> {
    out.get_mut(..bytes.len())?.copy_from_slice(bytes);
    Some(bytes.len())
}

/// Mutates the message in `data[..size]` in place (at most `max_size` bytes) and returns the
/// new size, or 0 when the input does not frame as a message (the target then falls back to
/// libFuzzer's own byte-level mutation).
pub fn mutate_message(data: &mut [u8], size: usize, max_size: usize, seed: u32) -> usize {
    let mut rng = Rng(seed | 1);
    let size = size.min(data.len());
    let max_size = max_size.min(data.len());
    if rng.below(4) == 0 {
        let input = data[..size].to_vec();
        if let Some(n) = mutate_value(&input, &mut data[..max_size], &mut rng) {
            return n;
        }
    }
    let Some(mut parts) = Parts::of(&data[..size]) else {
        return 0;
    };
    // One to three protocol-level changes stacked.
    for _ in 0..=rng.below(3) {
        match rng.below(3) {
            0 => mutate_field(&mut parts, &mut rng),
            1 => mutate_result(&mut parts, &mut rng),
            _ => mutate_length(&mut parts, &mut rng),
        }
    }
    parts.frame(&mut data[..max_size]).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/testdata/{name}.bin",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    /// Mutants frame, many get past the framing to the rules, and some stay valid.
    #[test]
    fn mutants_reach_the_rules() {
        for name in ["mkdir_request", "mkdir_reply_complete", "unlink_reply"] {
            let seed_bytes = vector(name);
            let (mut framed, mut rule_errors, mut valid) = (0, 0, 0);
            for seed in 0..2000u32 {
                let mut buf = seed_bytes.clone();
                buf.resize(70_000, 0);
                let n = mutate_message(&mut buf, seed_bytes.len(), 70_000, seed);
                if n == 0 {
                    continue;
                }
                let m = &buf[..n];
                if MsgView::parse(m).is_ok() {
                    framed += 1;
                }
                let ok = RequestView::parse(m).is_ok() || ReplyView::parse(m).is_ok();
                if ok {
                    valid += 1;
                } else if MsgView::parse(m).is_ok() {
                    rule_errors += 1;
                }
            }
            assert!(framed > 1500, "{name}: {framed} of 2000 mutants frame");
            assert!(rule_errors > 300, "{name}: {rule_errors} break a rule");
            assert!(valid > 100, "{name}: {valid} stay valid");
        }
    }

    #[test]
    fn garbage_falls_back() {
        let mut buf = alloc::vec![0xffu8; 64];
        assert_eq!(mutate_message(&mut buf, 64, 64, 7), 0);
    }
}
