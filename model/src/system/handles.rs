//! Server lock handles numbered canonically (MODEL.md §6.6): the parent hands out handles in
//! arrival order, so two interleavings that grant the same locks in another order differ only
//! by the numbers. A handle is only compared for equality (a cancel, a replay, the check that a
//! decision is taken under the lock) and a new one is fresh (`next_id`, above every handle in
//! the state); so a state with its handles renamed by any bijection has the same futures, up
//! to that renaming, and the same verdicts. Every state is kept with its handles numbered
//! 1, 2, … in an order that reads no handle: each coordinator's held locks (slot, then
//! acquisition order), then the parent's granted locks sorted by owner, then the waiting queue,
//! then any handle only a message names (none in the design), in the network's order.
//!
//! The granted queue is sorted by owner too: its order is read by no transition (conflicts,
//! blockers and lookups by owner are set questions; the blocking ASTs it sends are delivered at
//! once), so the sort only merges states that differ by grant order.

use super::net::{Msg, parse_enqueue, plain_enqueue};
use super::state::SysState;
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::wire::{LdlmReply, LustreHandle, MsgView, WireStruct};

/// The renaming: `old → new` pairs, in the canonical order (`new` = position + 1).
struct Numbering(Vec<u16>);

impl Numbering {
    fn visit(&mut self, id: u16) {
        if id != 0 && !self.0.contains(&id) {
            self.0.push(id);
        }
    }

    /// The new handle of `id`; 0 (no lock) stays.
    fn of(&self, id: u16) -> u16 {
        self.0
            .iter()
            .position(|&x| x == id)
            .map_or(id, |i| i as u16 + 1)
    }

    fn identity(&self) -> bool {
        self.0
            .iter()
            .enumerate()
            .all(|(i, &x)| usize::from(x) == i + 1)
    }
}

/// Renumbers the server lock handles of `s` canonically (see the module's note).
pub(super) fn canonicalize(s: &mut SysState) {
    let granted = &mut s.parent.locks.granted;
    if !granted.is_sorted_by_key(|l| l.owner) {
        granted.sort_by_key(|l| l.owner);
    }
    let mut n = Numbering(Vec::new());
    for h in s.coords.iter().flat_map(|c| &c.held) {
        n.visit(h.id);
    }
    let locks = &s.parent.locks;
    for l in locks.granted.iter().chain(&locks.waiting) {
        n.visit(l.id);
    }
    // Handles only the network still names (none in the design: a cancel or a reply names a
    // lock of the table, a replay a held one), in the network's order.
    for e in &s.net {
        if let Some(id) = handle_in(&e.msg) {
            n.visit(id);
        }
    }
    let fresh = n.0.len() as u16 + 1;
    if n.identity() && s.parent.next_id == fresh {
        return;
    }
    s.parent.next_id = fresh;
    if !n.identity() {
        rename(s, &n);
    }
}

/// Renames every handle of `s` through `n` (the parent's next handle is left as it is).
fn rename(s: &mut SysState, n: &Numbering) {
    for c in &mut s.coords {
        for h in &mut c.held {
            h.id = n.of(h.id);
        }
    }
    let locks = &mut s.parent.locks;
    for l in locks.granted.iter_mut().chain(locks.waiting.iter_mut()) {
        l.id = n.of(l.id);
    }
    for q in &mut s.parent.queued {
        q.id = n.of(q.id);
        q.early = q.early.as_ref().map(|b| reply_with(b, n));
    }
    let mut moved = false;
    for e in &mut s.net {
        let renamed = match &e.msg {
            Msg::Cancel { lock } => Some(Msg::Cancel { lock: n.of(*lock) }),
            Msg::BlockingAst { lock } => Some(Msg::BlockingAst { lock: n.of(*lock) }),
            Msg::EnqueueReply { xid, bytes } => Some(Msg::EnqueueReply {
                xid: *xid,
                bytes: reply_with(bytes, n),
            }),
            Msg::Enqueue { xid, bytes } => {
                replay_with(bytes, n).map(|bytes| Msg::Enqueue { xid: *xid, bytes })
            }
            _ => None,
        };
        if let Some(m) = renamed
            && m != e.msg
        {
            e.msg = m;
            moved = true;
        }
    }
    if moved {
        s.net.sort();
    }
}

/// The handle a message names, if any: a cancel's or AST's lock, a reply's granted lock, a
/// replay's old handle.
fn handle_in(m: &Msg) -> Option<u16> {
    match m {
        Msg::Cancel { lock } | Msg::BlockingAst { lock } => Some(*lock),
        Msg::EnqueueReply { bytes, .. } => super::net::reply_status(bytes).map(|r| r.1),
        Msg::Enqueue { bytes, .. } => parse_enqueue(bytes)
            .filter(|i| i.sending.replay)
            .map(|i| i.sending.old_handle),
        _ => None,
    }
}

/// An enqueue reply (plain or with prepare results, any status) with its `ldlm_reply`'s
/// lock handle renamed: buffer 1 decoded and encoded again in the reply's own byte order, the
/// rest kept byte for byte.
fn reply_with(b: &Bytes, n: &Numbering) -> Bytes {
    let Ok(msg) = MsgView::parse(b) else {
        return b.clone();
    };
    let order = msg.order();
    let off = msg.buffer_offset(1);
    let Some(mut rep) = msg.buffer(1).and_then(|x| LdlmReply::decode(x, order).ok()) else {
        return b.clone();
    };
    let new = u64::from(n.of(rep.lock_handle.0 as u16));
    if new == rep.lock_handle.0 {
        return b.clone();
    }
    rep.lock_handle = LustreHandle(new);
    let mut patch = Vec::with_capacity(LdlmReply::SIZE);
    rep.put(order, &mut patch);
    let mut v = b.to_vec();
    match v.get_mut(off..off + patch.len()) {
        Some(dst) => dst.copy_from_slice(&patch),
        None => return b.clone(),
    }
    Bytes::from(v)
}

/// A lock replay with its old handle renamed (other enqueues carry no server handle).
fn replay_with(b: &Bytes, n: &Numbering) -> Option<Bytes> {
    let i = parse_enqueue(b).filter(|i| i.sending.replay)?;
    let mut sending = i.sending;
    sending.old_handle = n.of(sending.old_handle);
    (sending != i.sending).then(|| plain_enqueue(&i.spec, &sending, i.order))
}

#[cfg(test)]
mod tests {
    use super::super::{Mutation, SystemModel, scope};
    use super::*;
    use stateright::Model;

    /// Every state of `three-one` (the first 3,000 depth first, parent restarts among them)
    /// with its handles renamed by another bijection comes back to itself: the numbering reads
    /// no handle, so it is the same for a whole class.
    #[test]
    fn a_state_with_its_handles_renamed_comes_back_to_itself() {
        let m = SystemModel::new(scope("three-one").expect("three-one"), Mutation::None);
        let mut seen = std::collections::HashSet::new();
        let mut queue: std::collections::VecDeque<SysState> = m.init_states().into();
        let (mut states, mut renamed, mut restarted, mut actions) = (0, 0, 0, Vec::new());
        while let Some(s) = queue.pop_back() {
            if states >= 3_000 || !seen.insert(s.clone()) {
                continue;
            }
            states += 1;
            // `restarts` counts the restarts left: 0 once the parent has restarted.
            restarted += usize::from(s.restarts == 0);
            // The handles in reverse order: n → 1, …, 1 → n.
            let mut t = s.clone();
            rename(&mut t, &Numbering((1..s.parent.next_id).rev().collect()));
            if t != s {
                renamed += 1;
            }
            canonicalize(&mut t);
            assert_eq!(t, s);
            m.actions(&s, &mut actions);
            for a in actions.drain(..) {
                queue.extend(m.next_state(&s, a));
            }
        }
        assert_eq!(states, 3_000);
        assert!(renamed > 500, "{renamed} states renamed");
        assert!(restarted > 100, "{restarted} states after a restart");
    }
}
