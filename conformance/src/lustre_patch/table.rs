//! The conformance vectors as the kernel test carries them: `lustre/kunit/dne_prepare_vectors.h`,
//! a compact table made from the kit's cases (the same [`crate::vectors`] the JSON and the C
//! header are written from), so that the series holds what its test runs and Lustre's CI can
//! build the module without anything generated outside the tree.
//!
//! The messages repeat each other (a case is a mutation of another), so they are stored as one
//! LZ77 stream: a literal run or a copy of earlier output. The format, all counts LEB128:
//! - `ncases`, `total` (the bytes of all messages once decoded);
//! - per case: `id`, then the bytes `kind` (0 request, 1 reply), `result` (0 valid, 1
//!   acceptable, 2 invalid), `rule` (index in the rule names, [`NO_RULE`] for none), `flags`
//!   ([`F_CANONICAL`], [`F_CAPSULE`]); then its messages: the input, the request (a reply), the
//!   canonical form (with [`F_CANONICAL`]);
//! - a message: its length, then tokens until it is whole: `t` even, `t / 2` literal bytes
//!   follow; `t` odd, a copy of `t / 2 + MIN_MATCH` bytes from `dist` bytes back.

use std::collections::HashMap;

use crate::{Case, Expect, Kind};

/// The shortest copy.
pub(crate) const MIN_MATCH: usize = 4;
/// The rule byte of a case that names none.
pub(crate) const NO_RULE: u8 = 0xff;
/// The case carries its canonical form.
pub(crate) const F_CANONICAL: u8 = 1;
/// The case breaks a rule Lustre's capsule enforces itself (a name without its NUL at the end,
/// groups not a whole number of `__u32`): the unpack path must refuse it.
pub(crate) const F_CAPSULE: u8 = 2;
/// Candidates tried per position: enough for this corpus, bounded so encoding stays linear.
const CHAIN: usize = 48;

/// Rules whose breach `req_capsule_client_get()` refuses by itself: `RMF_NAME` is an
/// `RMF_F_STRING` read with no maximum (`lustre_msg_string()` wants the NUL as the last byte)
/// and the groups an `RMF_F_STRUCT_ARRAY` of `__u32`.
const CAPSULE_RULES: [&str; 3] = ["W5.8", "W5.15", "W5.14"];

/// The table: the rule names and the stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Table {
    pub(crate) rules: Vec<&'static str>,
    pub(crate) stream: Vec<u8>,
    pub(crate) ncases: usize,
    pub(crate) total: usize,
    /// The kit's cases left out: xattr payloads, which are not RPC messages.
    pub(crate) skipped: usize,
}

fn leb128(out: &mut Vec<u8>, mut v: usize) {
    loop {
        let b = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The encoder: all output so far, and where each 4-byte key was seen.
struct Lz {
    history: Vec<u8>,
    seen: HashMap<[u8; MIN_MATCH], Vec<usize>>,
}

impl Lz {
    fn key(&self, at: usize) -> Option<[u8; MIN_MATCH]> {
        self.history.get(at..at + MIN_MATCH)?.try_into().ok()
    }

    fn remember(&mut self, at: usize) {
        if let Some(k) = self.key(at) {
            let v = self.seen.entry(k).or_default();
            if v.len() == CHAIN {
                v.remove(0);
            }
            v.push(at);
        }
    }

    /// The longest earlier copy of what starts at `at`: `(start, len)`.
    fn best(&self, at: usize) -> Option<(usize, usize)> {
        let cands = self.seen.get(&self.key(at)?)?;
        let mut best: Option<(usize, usize)> = None;
        for &c in cands.iter().rev() {
            let len = self.history[at..]
                .iter()
                .zip(&self.history[c..])
                .take_while(|(a, b)| a == b)
                .count();
            if best.is_none_or(|(_, l)| len > l) {
                best = Some((c, len));
            }
        }
        best.filter(|&(_, l)| l >= MIN_MATCH)
    }

    fn message(&mut self, out: &mut Vec<u8>, msg: &[u8]) {
        leb128(out, msg.len());
        let start = self.history.len();
        self.history.extend_from_slice(msg);
        let end = self.history.len();
        let mut at = start;
        let mut lit = start;
        while at < end {
            // A copy may overlap its own output but not run past the message.
            let m = self.best(at).map(|(c, l)| (c, l.min(end - at)));
            match m {
                Some((c, l)) if l >= MIN_MATCH => {
                    self.literal(out, lit, at);
                    leb128(out, ((l - MIN_MATCH) << 1) | 1);
                    leb128(out, at - c);
                    for p in at..at + l {
                        self.remember(p);
                    }
                    at += l;
                    lit = at;
                }
                _ => {
                    self.remember(at);
                    at += 1;
                }
            }
        }
        self.literal(out, lit, end);
    }

    fn literal(&self, out: &mut Vec<u8>, from: usize, to: usize) {
        if to > from {
            leb128(out, (to - from) << 1);
            out.extend_from_slice(&self.history[from..to]);
        }
    }
}

/// The table of the request and reply cases (the xattr payloads are not RPC messages).
pub(crate) fn table(cases: &[Case]) -> Table {
    let mut rules: Vec<&'static str> = Vec::new();
    let mut lz = Lz {
        history: Vec::new(),
        seen: HashMap::new(),
    };
    let mut body = Vec::new();
    let mut ncases = 0;
    let mut skipped = 0;
    for c in cases {
        let kind = match c.kind {
            Kind::Request => 0,
            Kind::Reply => 1,
            Kind::Xattr(_) => {
                skipped += 1;
                continue;
            }
        };
        ncases += 1;
        let (result, rule) = match c.expect {
            Expect::Valid => (0, NO_RULE),
            Expect::Acceptable => (1, NO_RULE),
            Expect::Invalid(r) => {
                let name = r.as_str();
                let i = rules.iter().position(|n| *n == name).unwrap_or_else(|| {
                    rules.push(name);
                    rules.len() - 1
                });
                (2, u8::try_from(i).unwrap_or(NO_RULE))
            }
        };
        let mut flags = 0;
        if c.canonical.is_some() {
            flags |= F_CANONICAL;
        }
        if c.rules.iter().any(|r| CAPSULE_RULES.contains(&r.as_str())) {
            flags |= F_CAPSULE;
        }
        leb128(&mut body, usize::try_from(c.id).unwrap_or(usize::MAX));
        body.extend_from_slice(&[kind, result, rule, flags]);
        lz.message(&mut body, &c.bytes);
        if let Some(r) = &c.request {
            lz.message(&mut body, r);
        }
        if let Some(k) = &c.canonical {
            lz.message(&mut body, k);
        }
    }
    let mut stream = Vec::new();
    leb128(&mut stream, ncases);
    leb128(&mut stream, lz.history.len());
    stream.extend(body);
    Table {
        rules,
        stream,
        ncases,
        skipped,
        total: lz.history.len(),
    }
}

/// The table of the kit's vectors, made once.
pub(crate) fn kit_table() -> &'static Table {
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| table(&crate::vectors(crate::VECTOR_SEED)))
}

/// One case decoded: its id, its four bytes (kind, result, rule, flags) and its messages.
#[cfg(test)]
type Decoded = (u64, [u8; 4], Vec<Vec<u8>>);

/// The messages of a stream, decoded as the kernel test decodes them; `None` when malformed.
#[cfg(test)]
pub(crate) fn decode(stream: &[u8]) -> Option<Vec<Decoded>> {
    let mut at = 0;
    let next = |at: &mut usize| -> Option<usize> {
        let mut v = 0usize;
        for shift in (0..35).step_by(7) {
            let b = *stream.get(*at)?;
            *at += 1;
            v |= usize::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    };
    let n = next(&mut at)?;
    let total = next(&mut at)?;
    let mut out: Vec<u8> = Vec::with_capacity(total);
    let mut cases = Vec::new();
    for _ in 0..n {
        let id = next(&mut at)? as u64;
        let head: [u8; 4] = stream.get(at..at + 4)?.try_into().ok()?;
        at += 4;
        let nmsg = 1 + usize::from(head[0] == 1) + usize::from(head[3] & F_CANONICAL != 0);
        let mut msgs = Vec::new();
        for _ in 0..nmsg {
            let len = next(&mut at)?;
            let start = out.len();
            while out.len() - start < len {
                let t = next(&mut at)?;
                if t & 1 == 0 {
                    let l = t >> 1;
                    out.extend_from_slice(stream.get(at..at + l)?);
                    at += l;
                } else {
                    let l = (t >> 1) + MIN_MATCH;
                    let dist = next(&mut at)?;
                    let from = out.len().checked_sub(dist)?;
                    for i in 0..l {
                        out.push(out[from + i]);
                    }
                }
            }
            msgs.push(out.get(start..start + len)?.to_vec());
        }
        cases.push((id, head, msgs));
    }
    (at == stream.len() && out.len() == total).then_some(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every request and reply of the kit decodes from the table to its bytes, its request and
    /// its canonical form, and the table is a small part of the messages it holds.
    #[test]
    fn the_table_decodes_to_every_message_of_the_kit() {
        let cases = crate::vectors(crate::VECTOR_SEED);
        let t = kit_table();
        let decoded = decode(&t.stream).expect("the stream decodes");
        let rpc: Vec<&Case> = cases
            .iter()
            .filter(|c| !matches!(c.kind, Kind::Xattr(_)))
            .collect();
        assert_eq!(decoded.len(), rpc.len());
        assert_eq!(t.ncases, rpc.len());
        for ((id, head, msgs), c) in decoded.iter().zip(&rpc) {
            assert_eq!(*id, c.id);
            let mut want = vec![c.bytes.clone()];
            want.extend(c.request.clone());
            want.extend(c.canonical.clone());
            assert_eq!(msgs, &want, "case {id}");
            match c.expect {
                Expect::Invalid(r) => assert_eq!(t.rules[usize::from(head[2])], r.as_str()),
                _ => assert_eq!(head[2], NO_RULE),
            }
        }
        assert!(
            t.stream.len() * 8 < t.total,
            "{} bytes for {}",
            t.stream.len(),
            t.total
        );
        // Some invalid cases are the capsule's own to refuse.
        assert!(decoded.iter().any(|(_, h, _)| h[3] & F_CAPSULE != 0));
    }
}
