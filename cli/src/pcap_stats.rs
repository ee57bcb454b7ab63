//! `dne-intent pcap --stats`: what a capture holds, by opcode, prepare operation and outcome,
//! and result.

use lustre_dne_intent::intent::{
    MliBuf, Operation, PrepResult, ReplyKind, ReplyView, UnknownReason,
};
use lustre_dne_intent::limits::XATTR_SIZE_MAX;
use lustre_dne_intent::wire::PtlrpcMsgType;
use lustre_dne_intent_capture::{Event, Message, Prepare, ReaderStats, opcode_name};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Per result: how often it was in each state, and the sizes of the present ones.
#[derive(Debug, Default, Clone, Copy)]
struct ResultStats {
    present: u64,
    absent: u64,
    unknown: u64,
    truncated: u64,
    max_size: usize,
    total_size: u64,
    max_limit: u32,
}

/// The key of replies whose request was not captured.
const UNPAIRED: &str = "unpaired";

#[derive(Debug, Default)]
pub struct Stats {
    by_opcode: BTreeMap<(u32, &'static str), u64>,
    not_lustre: u64,
    malformed: u64,
    requests: BTreeMap<&'static str, (u64, u64)>,
    replies: BTreeMap<(&'static str, ReplyKind), u64>,
    results: [ResultStats; 6],
    gaps: u64,
    errors: u64,
}

impl Stats {
    pub fn add(&mut self, ev: &Event) {
        let m = match ev {
            Event::Message(m) => m,
            Event::Gap { .. } => return self.gaps += 1,
            Event::Error(_) => return self.errors += 1,
            _ => return,
        };
        match &m.rpc {
            None => self.not_lustre += 1,
            Some(Err(_)) => self.malformed += 1,
            Some(Ok(r)) => {
                *self
                    .by_opcode
                    .entry((r.ptlrpc.opc, rpc_kind(r.ptlrpc.msg_type)))
                    .or_default() += 1
            }
        }
        match m.prepare() {
            Some(Prepare::Request(op, v)) => {
                let e = self.requests.entry(op.opc_name()).or_default();
                if v.is_ok() { e.0 += 1 } else { e.1 += 1 }
            }
            Some(Prepare::Reply(op, Err(e))) => {
                *self
                    .replies
                    .entry((op.opc_name(), ReplyKind::of_refusal(&e)))
                    .or_default() += 1
            }
            Some(Prepare::UnpairedReply(v)) => self.add_reply(UNPAIRED, &v, m),
            Some(Prepare::Reply(op, Ok(v))) => self.add_reply(op.opc_name(), &v, m),
            None => {}
        }
    }

    /// A reply that validated, under `op` (an operation's name, or [`UNPAIRED`]).
    fn add_reply(&mut self, op: &'static str, v: &ReplyView<'_>, m: &Message) {
        *self.replies.entry((op, v.kind())).or_default() += 1;
        let limits = m
            .request
            .as_ref()
            .and_then(|r| r.reply_context)
            .map(|c| c.limits)
            .unwrap_or_default();
        for b in MliBuf::ALL {
            let r = &mut self.results[b.index()];
            r.max_limit = r.max_limit.max(limits[b.index()]);
            match v.result(b) {
                PrepResult::Present(d) => {
                    r.present += 1;
                    r.max_size = r.max_size.max(d.len());
                    r.total_size += d.len() as u64;
                }
                PrepResult::Absent => r.absent += 1,
                PrepResult::Unknown(UnknownReason::Truncated { .. }) => r.truncated += 1,
                PrepResult::Unknown(_) => r.unknown += 1,
            }
        }
    }

    pub fn print(&self, rs: &ReaderStats, s: &mut String) {
        let _ = self.write(rs, s);
    }

    fn write(&self, rs: &ReaderStats, s: &mut String) -> std::fmt::Result {
        writeln!(
            s,
            "capture: {} frames, {} TCP segments, {} retransmitted, {} gaps, {} bytes skipped, \
             {} errors",
            rs.frames, rs.tcp_segments, rs.retransmitted, rs.gaps, rs.skipped_bytes, self.errors
        )?;
        writeln!(
            s,
            "LNet messages: {} ({} without a Lustre RPC, {} malformed); replies paired with \
             their request: {}",
            rs.messages, self.not_lustre, self.malformed, rs.paired
        )?;
        writeln!(s, "\nmessages by opcode:")?;
        for ((opc, kind), n) in &self.by_opcode {
            let name = opcode_name(*opc).map_or_else(|| format!("opc {opc}"), str::to_string);
            writeln!(s, "  {:>8}  {name} {kind}", n)?;
        }
        writeln!(s, "\nprepare intents:")?;
        for op in [Operation::Create, Operation::Rename, Operation::Unlink] {
            let name = op.opc_name();
            let (ok, bad) = self.requests.get(name).copied().unwrap_or_default();
            write!(s, "  {name}: {ok} requests ({bad} invalid); replies:")?;
            for o in ReplyKind::ALL {
                let n = self.replies.get(&(name, o)).copied().unwrap_or(0);
                write!(s, " {} {n},", o.label())?;
            }
            s.pop();
            writeln!(s)?;
        }
        let unpaired: Vec<String> = ReplyKind::ALL
            .into_iter()
            .filter_map(|o| {
                let n = self.replies.get(&(UNPAIRED, o)).copied()?;
                Some(format!("{} {n}", o.label()))
            })
            .collect();
        if !unpaired.is_empty() {
            writeln!(
                s,
                "  replies whose request was not captured (validated alone): {}",
                unpaired.join(", ")
            )?;
        }
        writeln!(
            s,
            "\nresults (in replies that validate; sizes in bytes, limit XATTR_SIZE_MAX = {}):",
            XATTR_SIZE_MAX
        )?;
        writeln!(
            s,
            "  {:<16} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>11}",
            "result",
            "present",
            "absent",
            "unknown",
            "truncated",
            "max size",
            "mean size",
            "max limit"
        )?;
        for b in MliBuf::ALL {
            let r = &self.results[b.index()];
            let mean = r.total_size.checked_div(r.present).unwrap_or(0);
            writeln!(
                s,
                "  {:<16} {:>8} {:>8} {:>8} {:>9} {:>9} {:>9} {:>11}",
                b.name(),
                r.present,
                r.absent,
                r.unknown,
                r.truncated,
                r.max_size,
                mean,
                r.max_limit
            )?;
        }
        Ok(())
    }
}

pub(crate) fn rpc_kind(t: PtlrpcMsgType) -> &'static str {
    // The codec's word for the type, as a capture summary reads it (tshark says "reply" of an
    // error too, so the kind is spelled out).
    match t.kind_word() {
        "error" => "error reply",
        "unknown" => "message",
        word => word,
    }
}
