//! The system's state, its actions and the transition function (the stateright [`Model`]).

use super::Mutation;
use super::coordinator::{
    Coord, Held, IntentKind, Pending, Phase, advisory, build_request, decide, entry_step,
    instantiate, intent_bytes, lock_plan, pre_lock, take_reply,
};
use super::net::{
    ELDLM_LOCK_ABORTED, Envelope, Msg, Node, Sending, describe, parse_enqueue, plain_enqueue,
    reply_status,
};
use super::ops::{Decision, SysOp, new_fid, standard, update_for};
use super::parent::{Effects, Parent};
use super::props::{self, bit};
use super::scopes::Scope;
use crate::intent::RequestView;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use stateright::{Model, Property};

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

fn coord_name(c: u8) -> String {
    format!("MDT{:04}", c + 1)
}

fn node_name(n: Node) -> String {
    match n {
        Node::Parent => "MDT0000 (parent)".into(),
        Node::Coord(c) => coord_name(c),
    }
}

fn is_replay(e: &Envelope) -> bool {
    match &e.msg {
        Msg::Enqueue { bytes, .. } => parse_enqueue(bytes).is_some_and(|i| i.sending.replay),
        _ => false,
    }
}

impl SysState {
    fn send(&mut self, e: Envelope) {
        let i = self.net.partition_point(|x| x <= &e);
        self.net.insert(i, e);
    }

    fn violate(&mut self, b: u16, note: String) {
        if self.broken & b == 0 {
            self.broken |= b;
            if self.note.is_none() {
                self.note = Some(note);
            }
        }
    }

    fn recovering(&self) -> bool {
        self.net
            .iter()
            .any(|e| e.dst == Node::Parent && is_replay(e))
    }
}

impl SystemModel {
    /// A model of `scope` with `mutation`.
    pub fn new(scope: Scope, mutation: Mutation) -> Self {
        SystemModel { scope, mutation }
    }

    fn op(&self, c: u8, pc: u8) -> Option<&SysOp> {
        self.scope
            .coords
            .get(usize::from(c))?
            .script
            .get(usize::from(pc))
    }

    fn expected_locks(&self, c: &Coord, op: &SysOp, store: &crate::model::store::Store) -> usize {
        (0..3)
            .filter(|k| lock_plan(op, *k, c, store).is_some())
            .count()
    }

    fn commit(&self, s: &mut SysState, c: u8, pc: u8, d: Decision, log: &mut Vec<String>) {
        s.done.push((c, pc, d));
        if !props::serializable(self, s) {
            s.violate(
                bit::SERIAL,
                format!(
                    "the completed operations {:?} and the final store match no serial \
                     execution by the standard path",
                    s.done
                        .iter()
                        .map(|(c, i, d)| format!(
                            "{}: {} → {}",
                            coord_name(*c),
                            self.op(*c, *i).map(SysOp::label).unwrap_or_default(),
                            d.summary()
                        ))
                        .collect::<Vec<_>>()
                ),
            );
        }
        log.push(format!("{} commits its decision", coord_name(c)));
    }

    fn next_op(&self, s: &mut SysState, c: u8) {
        let len = self.scope.coords[usize::from(c)].script.len() as u8;
        let co = &mut s.coords[usize::from(c)];
        co.pc += 1;
        co.answer = None;
        co.entry = None;
        co.decision = None;
        co.txn_after_release = false;
        co.phase = if co.pc >= len {
            Phase::Done
        } else {
            Phase::PreLock
        };
    }

    fn send_enqueue(&self, s: &mut SysState, c: u8, k: u8, log: &mut Vec<String>) {
        let spec_c = &self.scope.coords[usize::from(c)];
        let Some(op) = self.op(c, s.coords[usize::from(c)].pc).cloned() else {
            return;
        };
        let co = &s.coords[usize::from(c)];
        let Some((spec, kind)) = lock_plan(&op, k, co, &s.parent.store) else {
            return;
        };
        let gated = kind != IntentKind::None && co.gate(self.mutation);
        let req = if gated {
            build_request(&op, kind, &spec, &spec_c.creds, spec_c.intent_groups)
        } else {
            None
        };
        let co = &mut s.coords[usize::from(c)];
        let xid = co.next_xid;
        co.next_xid += 1;
        let sending = Sending {
            cookie: xid,
            ..Default::default()
        };
        let (bytes, intent) = match &req {
            Some(r) => {
                let b = intent_bytes(r, &sending);
                (b.clone(), Some(b))
            }
            None => (plain_enqueue(&spec, &sending), None),
        };
        let flag = co.conn_flag;
        co.pending = Some(Pending::Enqueue { xid, spec, intent });
        co.phase = Phase::Wait(k);
        if kind != IntentKind::None && req.is_none() {
            s.reached |= bit::FALLBACK;
        }
        if req.is_some() && !flag {
            s.violate(
                bit::GATING,
                format!(
                    "{} sends a prepare intent on a connection without OBD_CONNECT2_DNE_PREPARE",
                    coord_name(c)
                ),
            );
        }
        let env = Envelope {
            src: Node::Coord(c),
            dst: Node::Parent,
            msg: Msg::Enqueue { xid, bytes },
        };
        log.push(format!(
            "{} → {}: {}",
            coord_name(c),
            node_name(Node::Parent),
            describe(&env.msg)
        ));
        s.send(env);
    }

    fn local_step(&self, s: &mut SysState, c: u8, log: &mut Vec<String>) {
        let ci = usize::from(c);
        let m = self.mutation;
        let creds = &self.scope.coords[ci].creds;
        let Some(op) = self.op(c, s.coords[ci].pc).cloned() else {
            return;
        };
        match s.coords[ci].phase {
            Phase::PreLock => {
                let store = &s.parent.store;
                pre_lock(&mut s.coords[ci], store, &op);
                s.coords[ci].phase = Phase::Lock(0);
                log.push(format!(
                    "{} starts `{}`: pre-lock reads of the parent",
                    coord_name(c),
                    op.label()
                ));
            }
            Phase::Lock(k) => self.send_enqueue(s, c, k, log),
            Phase::Instantiate => {
                let store = &s.parent.store;
                instantiate(&mut s.coords[ci], store);
                s.coords[ci].phase = Phase::Lock(2);
                log.push(format!(
                    "{} reads the source object (instantiation)",
                    coord_name(c)
                ));
            }
            Phase::Decide => {
                let store = &s.parent.store;
                let d = decide(&mut s.coords[ci], store, &op, creds, m);
                let co = &s.coords[ci];
                if advisory(co) {
                    s.reached |= bit::ADVISORY;
                }
                let expected = self.expected_locks(co, &op, store);
                let under_locks = co.held.len() == expected
                    && co.held.iter().all(|h| {
                        s.parent.locks.granted.iter().any(|l| {
                            l.id == h.id && l.owner.coord == c && l.owner.cookie == h.cookie
                        })
                    });
                let oracle = standard(store, creds, &op);
                log.push(format!(
                    "{} decides `{}` → {} (a read under the lock gives {})",
                    coord_name(c),
                    op.label(),
                    d.summary(),
                    oracle.summary()
                ));
                if !under_locks {
                    s.violate(
                        bit::STALE,
                        format!(
                            "{} decides `{}` → {} holding {} of its {expected} locks",
                            coord_name(c),
                            op.label(),
                            d.summary(),
                            co.held.len()
                        ),
                    );
                } else if d != oracle {
                    s.violate(
                        bit::STALE,
                        format!(
                            "{} decides `{}` → {}, but a read of the parent's store under \
                             the lock gives {}",
                            coord_name(c),
                            op.label(),
                            d.summary(),
                            oracle.summary()
                        ),
                    );
                }
                let pc = s.coords[ci].pc;
                let update = update_for(&op, &d, creds, new_fid(c, pc));
                s.coords[ci].decision = Some(d.clone());
                match update {
                    Some(_) if m == Mutation::ReleaseBeforeTxn => {
                        s.coords[ci].txn_after_release = true;
                        s.coords[ci].phase = Phase::Release;
                    }
                    Some(_) => s.coords[ci].phase = Phase::Txn,
                    None => {
                        self.commit(s, c, pc, d, log);
                        s.coords[ci].phase = Phase::Release;
                    }
                }
            }
            Phase::Txn => {
                let co = &mut s.coords[ci];
                let Some(u) = co
                    .decision
                    .as_ref()
                    .and_then(|d| update_for(&op, d, creds, new_fid(c, co.pc)))
                else {
                    co.phase = Phase::Release;
                    return;
                };
                let xid = co.next_xid;
                co.next_xid += 1;
                co.pending = Some(Pending::Update {
                    xid,
                    update: u.clone(),
                });
                co.phase = Phase::WaitTxn;
                let msg = Msg::Update { xid, update: u };
                log.push(format!(
                    "{} → {}: {}",
                    coord_name(c),
                    node_name(Node::Parent),
                    describe(&msg)
                ));
                s.send(Envelope {
                    src: Node::Coord(c),
                    dst: Node::Parent,
                    msg,
                });
            }
            Phase::Release => {
                let held = core::mem::take(&mut s.coords[ci].held);
                for h in &held {
                    s.coords[ci].cache.cancelled(h.cookie, m);
                    let msg = Msg::Cancel { lock: h.id };
                    log.push(format!(
                        "{} → {}: {} (cache: what it seeded is dropped)",
                        coord_name(c),
                        node_name(Node::Parent),
                        describe(&msg)
                    ));
                    s.send(Envelope {
                        src: Node::Coord(c),
                        dst: Node::Parent,
                        msg,
                    });
                }
                if s.coords[ci].txn_after_release {
                    s.coords[ci].phase = Phase::Txn;
                } else {
                    self.next_op(s, c);
                }
            }
            Phase::Wait(_) | Phase::WaitTxn | Phase::Done => {}
        }
    }

    /// The reply to lock `k` arrived.
    fn enqueue_reply(&self, s: &mut SysState, c: u8, k: u8, bytes: &[u8], log: &mut Vec<String>) {
        let ci = usize::from(c);
        let m = self.mutation;
        let Some(Pending::Enqueue { xid, spec, intent }) = s.coords[ci].pending.clone() else {
            return;
        };
        let Some(op) = self.op(c, s.coords[ci].pc).cloned() else {
            return;
        };
        let Some((status, handle)) = reply_status(bytes) else {
            return;
        };
        let creds = &self.scope.coords[ci].creds;
        s.coords[ci].pending = None;
        if status == 0 {
            s.coords[ci].held.push(Held {
                cookie: xid,
                id: handle,
                spec,
            });
            let name = op.name().and_then(|n| {
                super::ops::NAMES
                    .iter()
                    .position(|x| *x == n)
                    .map(|i| i as u8)
            });
            match &intent {
                Some(req) => {
                    let body = take_reply(&mut s.coords[ci], req, bytes, xid, name, m);
                    log.push(format!(
                        "{}: lock #{handle} granted; {}",
                        coord_name(c),
                        if body.is_some() {
                            "post-grant invalidation suppressed, the reply's results seeded"
                        } else {
                            "empty or undecodable results: cache invalidated"
                        }
                    ));
                    if k == 1 {
                        if body.is_none() {
                            s.reached |= bit::FALLBACK;
                        }
                        s.coords[ci].answer = body;
                    }
                }
                None => {
                    s.coords[ci].cache.invalidate_reads();
                    log.push(format!(
                        "{}: lock #{handle} granted; cache invalidated",
                        coord_name(c)
                    ));
                }
            }
            self.advance(s, c, k, &op);
            return;
        }
        if status == ELDLM_LOCK_ABORTED {
            // The intent's result rides in the aborted reply (`mdc_finish_enqueue`).
            let plain = super::net::with_status(bytes, 0);
            let body = crate::intent::ReplyView::parse(&plain)
                .ok()
                .and_then(|v| v.body().copied());
            if let Some(b) = body.filter(|b| b.status != 0) {
                log.push(format!(
                    "{}: enqueue aborted, no lock; the intent's status {} is used",
                    coord_name(c),
                    b.status
                ));
                s.coords[ci].decision = Some(Decision::Error(b.status));
                s.coords[ci].phase = Phase::Decide;
                return;
            }
        }
        // No lock: stop sending intents to that peer and enqueue plainly.
        log.push(format!(
            "{}: enqueue failed with {status}, no lock; retried without the intent",
            coord_name(c)
        ));
        s.coords[ci].no_intents = true;
        let _ = creds;
        self.send_enqueue(s, c, k, log);
    }

    fn advance(&self, s: &mut SysState, c: u8, k: u8, op: &SysOp) {
        let ci = usize::from(c);
        let creds = &self.scope.coords[ci].creds;
        let next = match (op, k) {
            (SysOp::Set { .. }, _) => Phase::Decide,
            (_, 0) => Phase::Lock(1),
            (SysOp::Create { .. }, _) => Phase::Decide,
            (_, 1) => {
                let store = &s.parent.store;
                let r = entry_step(&mut s.coords[ci], store, op, creds, self.mutation);
                if advisory(&s.coords[ci]) {
                    s.reached |= bit::ADVISORY;
                }
                match r {
                    Err(e) => {
                        s.coords[ci].decision = Some(Decision::Error(e));
                        Phase::Decide
                    }
                    Ok(v) => {
                        s.coords[ci].entry = Some(v);
                        if matches!(op, SysOp::Rename { .. }) {
                            Phase::Instantiate
                        } else {
                            Phase::Lock(2)
                        }
                    }
                }
            }
            _ => Phase::Decide,
        };
        s.coords[ci].phase = next;
    }

    fn deliver(&self, s: &mut SysState, i: usize, log: &mut Vec<String>) {
        let env = s.net.remove(i);
        log.push(format!(
            "{} receives from {}: {}",
            node_name(env.dst),
            node_name(env.src),
            describe(&env.msg)
        ));
        match (env.dst, env.src) {
            (Node::Parent, Node::Coord(c)) => {
                let fx = match &env.msg {
                    Msg::Enqueue { xid, bytes } => {
                        let inc = parse_enqueue(bytes);
                        if inc.is_some_and(|i| i.intent && i.sending.replay) {
                            s.violate(bit::GATING, "a lock replay carries a prepare intent".into());
                        }
                        let flag = s.coords[usize::from(c)].conn_flag;
                        s.parent.enqueue(c, *xid, bytes, inc, flag, self.mutation)
                    }
                    Msg::Cancel { lock } => s.parent.cancel(*lock),
                    Msg::Update { xid, update } => s.parent.update(c, *xid, update),
                    _ => Effects::default(),
                };
                self.effects(s, fx, log);
            }
            (Node::Coord(c), _) => {
                let ci = usize::from(c);
                match &env.msg {
                    Msg::EnqueueReply { xid, bytes } => {
                        let co = &s.coords[ci];
                        if let (Some(p), Phase::Wait(k)) = (&co.pending, co.phase)
                            && p.xid() == *xid
                        {
                            self.enqueue_reply(s, c, k, bytes, log);
                        }
                    }
                    Msg::BlockingAst { lock }
                        if s.coords[ci].held.iter().any(|h| h.id == *lock) =>
                    {
                        s.reached |= bit::BLOCKING_AST;
                        log.push(format!(
                            "{}: lock #{lock} will be cancelled at release",
                            coord_name(c)
                        ));
                    }
                    Msg::UpdateReply { xid } => {
                        let co = &mut s.coords[ci];
                        if co.pending.as_ref().is_some_and(|p| p.xid() == *xid) {
                            co.pending = None;
                            if co.txn_after_release {
                                self.next_op(s, c);
                            } else {
                                co.phase = Phase::Release;
                            }
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn effects(&self, s: &mut SysState, fx: Effects, log: &mut Vec<String>) {
        log.extend(fx.log);
        if fx.resend_rerun {
            s.reached |= bit::RESEND;
        }
        if fx.waited {
            s.reached |= bit::CONFLICT_WAIT;
        }
        if fx.handler_wrote {
            s.violate(bit::HANDLER, "the intent handler changed the store".into());
        }
        if let Some((c, _)) = fx.executed {
            let co = &s.coords[usize::from(c)];
            if let Some(d) = co.decision.clone() {
                let pc = co.pc;
                self.commit(s, c, pc, d, log);
            }
        }
        for e in fx.out {
            s.send(e);
        }
    }

    fn resend(&self, s: &mut SysState, c: u8, log: &mut Vec<String>) {
        let ci = usize::from(c);
        let in_flight = self.in_flight(s, c);
        if in_flight {
            s.dups = s.dups.saturating_sub(1);
        }
        let gate = s.coords[ci].gate(self.mutation);
        let flag = s.coords[ci].conn_flag;
        let Some(p) = s.coords[ci].pending.clone() else {
            return;
        };
        let msg = match p {
            Pending::Enqueue { xid, spec, intent } => {
                let sending = Sending {
                    resent: true,
                    cookie: xid,
                    ..Default::default()
                };
                let req = intent
                    .as_ref()
                    .filter(|_| gate)
                    .and_then(|b| RequestView::parse(b).ok().map(|v| v.to_value()));
                let bytes = match &req {
                    Some(r) => intent_bytes(r, &sending),
                    None => plain_enqueue(&spec, &sending),
                };
                if req.is_some() && !flag {
                    s.violate(
                        bit::GATING,
                        format!(
                            "{} resends a prepare intent on a connection without the flag",
                            coord_name(c)
                        ),
                    );
                }
                if req.is_none() && intent.is_some() {
                    s.coords[ci].pending = Some(Pending::Enqueue {
                        xid,
                        spec,
                        intent: None,
                    });
                    s.reached |= bit::FALLBACK;
                }
                Msg::Enqueue { xid, bytes }
            }
            Pending::Update { xid, update } => Msg::Update { xid, update },
        };
        log.push(format!(
            "{} times out and resends: {}",
            coord_name(c),
            describe(&msg)
        ));
        s.send(Envelope {
            src: Node::Coord(c),
            dst: Node::Parent,
            msg,
        });
    }

    fn in_flight(&self, s: &SysState, c: u8) -> bool {
        let Some(xid) = s.coords[usize::from(c)].pending.as_ref().map(Pending::xid) else {
            return false;
        };
        s.net.iter().any(|e| {
            (e.src == Node::Coord(c) || e.dst == Node::Coord(c)) && e.msg.xid() == Some(xid)
        })
    }

    /// The transition, with a log of what happened (for counterexamples).
    pub fn step(&self, last: &SysState, a: Action, log: &mut Vec<String>) -> Option<SysState> {
        let mut s = last.clone();
        match a {
            Action::Step(c) => self.local_step(&mut s, c, log),
            Action::Deliver(i) => self.deliver(&mut s, usize::from(i), log),
            Action::Lose(i) => {
                let e = s.net.remove(usize::from(i));
                s.losses -= 1;
                log.push(format!(
                    "lost: {} → {}: {}",
                    node_name(e.src),
                    node_name(e.dst),
                    describe(&e.msg)
                ));
            }
            Action::Resend(c) => self.resend(&mut s, c, log),
            Action::Reconnect(c) => {
                s.reconnects -= 1;
                let co = &mut s.coords[usize::from(c)];
                co.conn_flag = !co.conn_flag;
                let flag = co.conn_flag;
                s.reached |= bit::RECONNECT;
                s.net.retain(|e| {
                    !(e.msg.losable()
                        && (e.src == Node::Coord(c) || e.dst == Node::Coord(c))
                        && !is_replay(e))
                });
                log.push(format!(
                    "{} reconnects to the parent: the connect flag is now {}",
                    coord_name(c),
                    if flag { "set" } else { "clear" }
                ));
            }
            Action::Restart => {
                s.restarts -= 1;
                s.parent.restart();
                s.net
                    .retain(|e| e.src != Node::Parent && e.dst != Node::Parent);
                s.reached |= bit::REPLAY;
                log.push("the parent MDT restarts: its locks are replayed".into());
                for c in 0..s.coords.len() {
                    let held = s.coords[c].held.clone();
                    for h in held {
                        let bytes = plain_enqueue(
                            &h.spec,
                            &Sending {
                                replay: true,
                                cookie: h.cookie,
                                old_handle: h.id,
                                ..Default::default()
                            },
                        );
                        s.send(Envelope {
                            src: Node::Coord(c as u8),
                            dst: Node::Parent,
                            msg: Msg::Enqueue {
                                xid: h.cookie,
                                bytes,
                            },
                        });
                    }
                }
            }
        }
        Some(s)
    }
}

impl Model for SystemModel {
    type State = SysState;
    type Action = Action;

    fn init_states(&self) -> Vec<SysState> {
        let sc = &self.scope;
        alloc::vec![SysState {
            parent: Parent::new(sc.store.clone()),
            coords: sc.coords.iter().map(|_| Coord::new(sc.flag)).collect(),
            net: Vec::new(),
            losses: sc.losses,
            dups: sc.dups,
            reconnects: sc.reconnects,
            restarts: sc.restarts,
            reached: 0,
            broken: 0,
            done: Vec::new(),
            note: None,
        }]
    }

    fn actions(&self, s: &SysState, actions: &mut Vec<Action>) {
        let recovering = s.recovering();
        for (c, co) in s.coords.iter().enumerate() {
            // In the recovery window the parent serves nothing but replays: reads and new
            // RPCs wait, so the coordinators do too.
            if !recovering && !matches!(co.phase, Phase::Wait(_) | Phase::WaitTxn | Phase::Done) {
                actions.push(Action::Step(c as u8));
            }
        }
        for (i, e) in s.net.iter().enumerate() {
            if i > 0 && s.net[i - 1] == *e {
                continue;
            }
            if e.dst == Node::Parent && recovering && !is_replay(e) {
                continue;
            }
            actions.push(Action::Deliver(i as u16));
        }
        if s.losses > 0 {
            for (i, e) in s.net.iter().enumerate() {
                if (i == 0 || s.net[i - 1] != *e) && e.msg.losable() && !is_replay(e) {
                    actions.push(Action::Lose(i as u16));
                }
            }
        }
        for (c, co) in s.coords.iter().enumerate() {
            let c8 = c as u8;
            if let Some(p) = &co.pending {
                let queued = matches!(p, Pending::Enqueue { .. })
                    && s.parent.locks.waiting_of(super::locks::Owner {
                        coord: c8,
                        cookie: p.xid(),
                    });
                let in_flight = self.in_flight(s, c8);
                if (!in_flight && !queued) || (in_flight && s.dups > 0) {
                    actions.push(Action::Resend(c8));
                }
            }
            if s.reconnects > 0 && co.phase != Phase::Done {
                actions.push(Action::Reconnect(c8));
            }
        }
        if s.restarts > 0 && s.coords.iter().any(|c| c.phase != Phase::Done) && !recovering {
            actions.push(Action::Restart);
        }
    }

    fn next_state(&self, last: &SysState, a: Action) -> Option<SysState> {
        self.step(last, a, &mut Vec::new())
    }

    fn properties(&self) -> Vec<Property<Self>> {
        props::properties(self)
    }

    fn format_step(&self, last: &SysState, a: Action) -> Option<String> {
        let mut log = Vec::new();
        self.step(last, a, &mut log)?;
        Some(log.join("; "))
    }
}
