//! The state of the concurrent model and its actions: what the engine steps through and the
//! properties read.

use super::Mutation;
use super::coordinator::Coord;
use super::net::{Envelope, Msg, Node, parse_enqueue};
use super::ops::Decision;
use super::parent::Parent;
use super::scopes::Scope;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

/// The model: a scope and a mutation.
#[derive(Debug, Clone)]
pub struct SystemModel {
    /// What is explored.
    pub scope: Scope,
    /// The deliberate bug, if any.
    pub mutation: Mutation,
}

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
    /// Interesting paths reached (`props::bit`).
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

    pub(super) fn recovering(&self) -> bool {
        self.net
            .iter()
            .any(|e| e.dst == Node::Parent && is_replay(e))
    }
}
