//! The system's state, its actions and the transition function (the stateright [`Model`]).

use super::Mutation;
use super::coordinator::{Coord, Pending, Phase, lock_plan};
use super::net::{Envelope, Msg, Node, Sending, describe, parse_enqueue, plain_enqueue};
use super::ops::{Decision, SysOp};
use super::parent::{Effects, Parent};
use super::props::{self, bit};
use super::scopes::Scope;
pub use super::state::{Action, Log, SysState, SystemModel};
use super::state::{coord_name, is_replay, log_line, node_name};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::sync::atomic::Ordering;
use stateright::{Model, Property};

impl SystemModel {
    /// A model of `scope` with `mutation`.
    pub fn new(scope: Scope, mutation: Mutation) -> Self {
        SystemModel {
            scope,
            mutation,
            reached: Default::default(),
        }
    }

    /// The interesting paths (`props::bit`) reached by the transitions explored so far.
    pub fn reached(&self) -> u16 {
        self.reached.load(Ordering::Relaxed)
    }

    /// Forgets what [`SystemModel::reached`] has seen (a new check of the same model).
    pub fn reset_reached(&self) {
        self.reached.store(0, Ordering::Relaxed);
    }

    pub(super) fn op(&self, c: u8, pc: u8) -> Option<&SysOp> {
        self.scope
            .coords
            .get(usize::from(c))?
            .script
            .get(usize::from(pc))
    }

    pub(super) fn expected_locks(
        &self,
        c: &Coord,
        op: &SysOp,
        store: &crate::store::Store,
    ) -> usize {
        (0..3)
            .filter(|k| lock_plan(op, *k, c, store).is_some())
            .count()
    }

    pub(super) fn commit(&self, s: &mut SysState, c: u8, pc: u8, d: Decision, log: &mut Log) {
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
        log_line!(log, format!("{} commits its decision", coord_name(c)));
    }

    pub(super) fn next_op(&self, s: &mut SysState, c: u8) {
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

    fn deliver(&self, s: &mut SysState, i: usize, log: &mut Log) {
        let env = s.net.remove(i);
        log_line!(
            log,
            format!(
                "{} receives from {}: {}",
                node_name(env.dst),
                node_name(env.src),
                describe(&env.msg)
            )
        );
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

    fn effects(&self, s: &mut SysState, fx: Effects, log: &mut Log) {
        for l in fx.log {
            log.push(l);
        }
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
            match (e.dst, &e.msg) {
                // A blocking AST changes nothing but the `reached` bit (the coordinator cancels
                // at its release anyway), so it is delivered at once instead of travelling: one
                // interleaving of the network's, and no states that differ only by an AST in
                // flight (MODEL.md §6.6).
                (Node::Coord(c), Msg::BlockingAst { lock }) => {
                    log_line!(
                        log,
                        format!(
                            "{} receives from {}: {}",
                            coord_name(c),
                            node_name(Node::Parent),
                            describe(&e.msg)
                        )
                    );
                    if s.coords[usize::from(c)].held.iter().any(|h| h.id == *lock) {
                        s.reached |= bit::BLOCKING_AST;
                        log_line!(
                            log,
                            format!(
                                "{}: lock #{lock} will be cancelled at release",
                                coord_name(c)
                            )
                        );
                    }
                }
                _ => s.send(e),
            }
        }
    }

    /// The transition, with a log of what happened (for counterexamples).
    pub fn step(&self, last: &SysState, a: Action, log: &mut Log) -> Option<SysState> {
        let mut s = last.clone();
        match a {
            Action::Step(c) => self.local_step(&mut s, c, log),
            Action::Deliver(i) => self.deliver(&mut s, usize::from(i), log),
            Action::Lose(i) => {
                let e = s.net.remove(usize::from(i));
                s.losses -= 1;
                log_line!(
                    log,
                    format!(
                        "lost: {} → {}: {}",
                        node_name(e.src),
                        node_name(e.dst),
                        describe(&e.msg)
                    )
                );
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
                log_line!(
                    log,
                    format!(
                        "{} reconnects to the parent: the connect flag is now {}",
                        coord_name(c),
                        if flag { "set" } else { "clear" }
                    )
                );
            }
            Action::Restart => {
                s.restarts -= 1;
                s.parent.restart();
                s.net
                    .retain(|e| e.src != Node::Parent && e.dst != Node::Parent);
                s.reached |= bit::REPLAY;
                log_line!(
                    log,
                    "the parent MDT restarts: its locks are replayed".into()
                );
                for c in 0..s.coords.len() {
                    let order = self.scope.coords[c].order;
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
                            order,
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
        s.forget_unreadable();
        super::handles::canonicalize(&mut s);
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
            coords: (0..sc.coords.len())
                .map(|c| {
                    let allocates = sc.coords[c]
                        .script
                        .iter()
                        .any(|op| matches!(op, SysOp::Create { .. }));
                    Coord::new(sc.flag, sc.class_of(c), allocates)
                })
                .collect(),
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
        let mut next = self.step(last, a, &mut Log::off())?;
        // What a transition reached is recorded in the model, not the state: a state's futures
        // do not depend on it, so keeping it would only split states.
        if next.reached != 0 {
            self.reached.fetch_or(next.reached, Ordering::Relaxed);
            next.reached = 0;
        }
        Some(next)
    }

    fn properties(&self) -> Vec<Property<Self>> {
        props::properties(self)
    }

    fn format_step(&self, last: &SysState, a: Action) -> Option<String> {
        let mut log = Log::on();
        self.step(last, a, &mut log)?;
        Some(log.into_lines().join("; "))
    }
}
