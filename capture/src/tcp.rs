//! Reassembly of one TCP direction into a byte stream.
//!
//! Segments are placed by sequence number: in-order data goes up at once, later data waits in
//! a bounded out-of-order store, data already delivered (retransmissions, overlaps) is
//! trimmed or dropped with the first copy winning. When the store passes its bounds, or the
//! capture ends with data still waiting, the missing range is reported as a gap and delivery
//! continues after it: a capture that lost packets still decodes what it can.

use super::limits::{TCP_MAX_OOO_BYTES, TCP_MAX_OOO_SEGMENTS};
use std::collections::BTreeMap;

/// What reassembly hands up, in stream order.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Piece<'a> {
    /// Bytes at the stream offset `at`, from `frame`.
    Data {
        frame: u64,
        at: u64,
        bytes: &'a [u8],
    },
    /// `missing` bytes at stream offset `at` never arrived (noticed at `frame`).
    Gap { frame: u64, at: u64, missing: u64 },
}

/// One direction's reassembly state.
#[derive(Debug, Default)]
pub(crate) struct HalfStream {
    /// The sequence number of the next byte expected, once known.
    next: Option<u32>,
    /// Stream offset of that byte (bytes delivered or skipped so far).
    pos: u64,
    /// Out-of-order segments by stream offset, with their frame.
    ooo: BTreeMap<u64, (u64, Vec<u8>)>,
    ooo_bytes: usize,
    /// Segments or parts of segments dropped as already delivered.
    pub(crate) retransmitted: u64,
}

impl HalfStream {
    /// Takes one segment. `syn`: the segment carries SYN (its sequence number is the ISN).
    pub(crate) fn segment(
        &mut self,
        frame: u64,
        seq: u32,
        syn: bool,
        data: &[u8],
        out: &mut dyn FnMut(Piece<'_>),
    ) {
        let seq = if syn { seq.wrapping_add(1) } else { seq };
        let next = match self.next {
            Some(n) => n,
            None if syn || !data.is_empty() => {
                // A stream first seen mid-connection starts at its first byte captured.
                self.next = Some(seq);
                seq
            }
            None => return,
        };
        if data.is_empty() {
            return;
        }
        // Signed distance from the expected byte, modulo 2^32 (sequence numbers wrap).
        let diff = i64::from(seq.wrapping_sub(next) as i32);
        if diff < 0 {
            let behind = diff.unsigned_abs() as usize;
            if behind >= data.len() {
                self.retransmitted += 1;
                return;
            }
            self.retransmitted += 1;
            self.deliver(frame, &data[behind..], out);
        } else if diff == 0 {
            self.deliver(frame, data, out);
        } else {
            let at = self.pos + diff as u64;
            self.store(frame, at, data);
            if self.ooo.len() > TCP_MAX_OOO_SEGMENTS || self.ooo_bytes > TCP_MAX_OOO_BYTES {
                self.skip_to_stored(frame, out);
            }
            return;
        }
        self.drain(out);
    }

    /// Declares the capture over: what waits behind holes is delivered after gaps.
    pub(crate) fn finish(&mut self, frame: u64, out: &mut dyn FnMut(Piece<'_>)) {
        while !self.ooo.is_empty() {
            self.skip_to_stored(frame, out);
        }
    }

    fn store(&mut self, frame: u64, at: u64, data: &[u8]) {
        match self.ooo.get(&at) {
            // The first copy wins, unless the later one is longer.
            Some((_, have)) if have.len() >= data.len() => self.retransmitted += 1,
            _ => {
                let old = self.ooo.insert(at, (frame, data.to_vec()));
                self.ooo_bytes += data.len();
                if let Some((_, old)) = old {
                    self.ooo_bytes -= old.len();
                }
            }
        }
    }

    /// Reports the hole before the first stored segment and moves past it.
    fn skip_to_stored(&mut self, frame: u64, out: &mut dyn FnMut(Piece<'_>)) {
        let Some((&at, _)) = self.ooo.first_key_value() else {
            return;
        };
        if at > self.pos {
            out(Piece::Gap {
                frame,
                at: self.pos,
                missing: at - self.pos,
            });
            let skip = at - self.pos;
            self.pos = at;
            // Sequence numbers are modulo 2^32; the truncation is the wrap.
            self.next = self.next.map(|n| n.wrapping_add(skip as u32));
        }
        self.drain(out);
    }

    fn deliver(&mut self, frame: u64, bytes: &[u8], out: &mut dyn FnMut(Piece<'_>)) {
        out(Piece::Data {
            frame,
            at: self.pos,
            bytes,
        });
        self.pos += bytes.len() as u64;
        self.next = self.next.map(|n| n.wrapping_add(bytes.len() as u32));
    }

    /// Delivers stored segments that have become contiguous.
    fn drain(&mut self, out: &mut dyn FnMut(Piece<'_>)) {
        while let Some(entry) = self.ooo.first_entry() {
            let at = *entry.key();
            if at > self.pos {
                break;
            }
            let (frame, data) = entry.remove();
            self.ooo_bytes -= data.len();
            let behind = (self.pos - at) as usize;
            if behind >= data.len() {
                self.retransmitted += 1;
                continue;
            }
            self.deliver(frame, &data[behind..], out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(segs: &[(u32, &[u8])]) -> (Vec<u8>, Vec<(u64, u64)>, u64) {
        let mut h = HalfStream::default();
        let mut bytes = Vec::new();
        let mut gaps = Vec::new();
        let mut sink = |p: Piece<'_>| match p {
            Piece::Data { at, bytes: b, .. } => {
                assert_eq!(
                    at,
                    bytes.len() as u64 + gaps.iter().map(|g: &(u64, u64)| g.1).sum::<u64>()
                );
                bytes.extend_from_slice(b)
            }
            Piece::Gap { at, missing, .. } => gaps.push((at, missing)),
        };
        h.segment(0, 999, true, &[], &mut sink);
        for (i, (seq, d)) in segs.iter().enumerate() {
            h.segment(i as u64 + 1, *seq, false, d, &mut sink);
        }
        h.finish(99, &mut sink);
        (bytes, gaps, h.retransmitted)
    }

    #[test]
    fn out_of_order_and_retransmitted_segments_reassemble() {
        let (b, gaps, re) = run(&[
            (1005, b"fgh"),
            (1000, b"abcde"),
            (1000, b"abc"),
            (1003, b"defgh"),
            (1008, b"ij"),
        ]);
        assert_eq!(b, b"abcdefghij");
        assert!(gaps.is_empty());
        assert_eq!(re, 2);
    }

    #[test]
    fn a_lost_segment_is_a_gap_and_delivery_goes_on() {
        let (b, gaps, _) = run(&[(1000, b"ab"), (1005, b"fg")]);
        assert_eq!(b, b"abfg");
        assert_eq!(gaps, vec![(2, 3)]);
    }

    #[test]
    fn sequence_numbers_wrap() {
        let mut h = HalfStream::default();
        let mut got = Vec::new();
        let mut sink = |p: Piece<'_>| {
            if let Piece::Data { bytes, .. } = p {
                got.extend_from_slice(bytes)
            }
        };
        h.segment(1, u32::MAX - 1, false, b"xy", &mut sink);
        h.segment(2, 1, false, b"!", &mut sink);
        h.segment(3, 0, false, b"z", &mut sink);
        assert_eq!(got, b"xyz!");
    }
}
