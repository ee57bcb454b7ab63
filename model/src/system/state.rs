//! The state of the concurrent model and its actions: what the engine steps through and the
//! properties read.

use super::Mutation;
use super::coordinator::{Coord, Pending};
use super::net::{Envelope, Msg, Node, parse_enqueue};
use super::ops::Decision;
use super::parent::Parent;
use super::scopes::Scope;
use alloc::format;
use alloc::string::String;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::sync::atomic::AtomicU16;

/// The model: a scope and a mutation.
#[derive(Debug, Clone)]
pub struct SystemModel {
    /// What is explored.
    pub scope: Scope,
    /// The deliberate bug, if any.
    pub mutation: Mutation,
    /// The interesting paths (`props::bit`) reached by every transition explored so far, shared
    /// by the checker's threads: a state does not carry them, so two states that differ only in
    /// how they were reached are one (MODEL.md §6.6).
    pub(super) reached: Arc<AtomicU16>,
}

/// The log of one transition, for counterexamples: off while the checker explores, so that
/// no line is formatted then.
#[derive(Debug, Default)]
pub struct Log {
    lines: Option<Vec<String>>,
}

impl Log {
    /// A log that keeps its lines.
    pub fn on() -> Self {
        Log {
            lines: Some(Vec::new()),
        }
    }

    /// A log that formats nothing.
    pub fn off() -> Self {
        Log { lines: None }
    }

    /// True when lines are kept.
    pub fn is_on(&self) -> bool {
        self.lines.is_some()
    }

    /// Keeps `line` (when on).
    pub fn push(&mut self, line: String) {
        if let Some(l) = &mut self.lines {
            l.push(line);
        }
    }

    /// The lines kept.
    pub fn into_lines(self) -> Vec<String> {
        self.lines.unwrap_or_default()
    }
}

/// Adds a line to a [`Log`], formatting it only when the log is on.
macro_rules! log_line {
    ($log:expr, $line:expr) => {
        if $log.is_on() {
            $log.push($line)
        }
    };
}
pub(super) use log_line;

/// One state of the whole system.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SysState {
    /// The parent MDT.
    pub parent: Parent,
    /// The coordinators.
    pub coords: Vec<Coord>,
    /// Messages in flight (a sorted multiset: any may be delivered next).
    pub net: Vec<Envelope>,
    /// Losses left.
    pub losses: u8,
    /// Duplicate resends left (a resend while the original is still in flight).
    pub dups: u8,
    /// Reconnects left.
    pub reconnects: u8,
    /// Parent restarts left.
    pub restarts: u8,
    /// Interesting paths reached by the transition into this state (`props::bit`); the
    /// checker moves them into [`SystemModel::reached`], so every stored state has 0 here.
    pub reached: u16,
    /// Safety properties broken (`props::bit`).
    pub broken: u16,
    /// Completed decisions in commit order: coordinator, operation index, decision.
    pub done: Vec<(u8, u8, Decision)>,
    /// The first violation, in words.
    pub note: Option<String>,
}

/// What happens next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    /// Coordinator `n` takes its next local step.
    Step(u8),
    /// The message at this index of the network arrives.
    Deliver(u16),
    /// The message at this index is lost.
    Lose(u16),
    /// Coordinator `n` times out and resends its outstanding RPC (`MSG_RESENT`).
    Resend(u8),
    /// Coordinator `n` reconnects; the peer's connect flag flips.
    Reconnect(u8),
    /// The parent MDT restarts; the coordinators replay their locks.
    Restart,
}

pub(super) fn coord_name(c: u8) -> String {
    format!("MDT{:04}", c + 1)
}

pub(super) fn node_name(n: Node) -> String {
    match n {
        Node::Parent => "MDT0000 (parent)".into(),
        Node::Coord(c) => coord_name(c),
    }
}

pub(super) fn is_replay(e: &Envelope) -> bool {
    match &e.msg {
        Msg::Enqueue { bytes, .. } => parse_enqueue(bytes).is_some_and(|i| i.sending.replay),
        _ => false,
    }
}

impl SysState {
    pub(super) fn send(&mut self, e: Envelope) {
        let i = self.net.partition_point(|x| x <= &e);
        self.net.insert(i, e);
    }

    pub(super) fn violate(&mut self, b: u16, note: String) {
        if self.broken & b == 0 {
            self.broken |= b;
            if self.note.is_none() {
                self.note = Some(note);
            }
        }
    }

    /// Forgets what no future step can read, so that states that differ only there are one
    /// (MODEL.md §6.6):
    /// - the parent's enqueue and transaction records of `(c, xid)`: a record is read only when
    ///   a request `(c, xid)` arrives, and one can arrive only while it is in flight or is `c`'s
    ///   outstanding RPC (a resend); a new request takes a fresh xid;
    pub(super) fn forget_unreadable(&mut self) {
        let coords = &self.coords;
        let net = &self.net;
        let readable = |c: u8, xid: u16, update: bool| {
            let pending = coords
                .get(usize::from(c))
                .and_then(|co| co.pending.as_ref())
                .is_some_and(|p| p.xid() == xid && matches!(p, Pending::Update { .. }) == update);
            pending
                || net.iter().any(|e| {
                    e.src == Node::Coord(c)
                        && match &e.msg {
                            Msg::Enqueue { xid: x, .. } => !update && *x == xid,
                            Msg::Update { xid: x, .. } => update && *x == xid,
                            _ => false,
                        }
                })
        };
        self.parent.seen.retain(|&(c, xid)| readable(c, xid, false));
        self.parent
            .committed
            .retain(|&(c, xid)| readable(c, xid, true));
    }

    pub(super) fn recovering(&self) -> bool {
        self.net
            .iter()
            .any(|e| e.dst == Node::Parent && is_replay(e))
    }
}
