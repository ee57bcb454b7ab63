//! The coordinators' transitions: their local steps (reads, enqueues, the decision, the
//! transaction, the release), the replies they take, and their resends.

use super::Mutation;
use super::coordinator::{
    Held, IntentKind, Pending, Phase, advisory, build_request, decide, entry_step, instantiate,
    intent_bytes, lock_plan, pre_lock, take_reply,
};
use super::net::{
    ELDLM_LOCK_ABORTED, Envelope, Msg, Node, Sending, describe, plain_enqueue, reply_status,
};
use super::ops::{Decision, SysOp, new_fid};
use super::props::bit;
use super::standard::standard;
use super::state::{Log, SysState, SystemModel, coord_name, log_line, node_name};
use super::txn::update_for;
use alloc::format;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::RequestView;

impl SystemModel {
    pub(super) fn send_enqueue(&self, s: &mut SysState, c: u8, k: u8, log: &mut Log) {
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
                let b = intent_bytes(r, &sending, spec_c.order);
                (b.clone(), Some(b))
            }
            None => (plain_enqueue(&spec, &sending, spec_c.order), None),
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
        log_line!(
            log,
            format!(
                "{} → {}: {}",
                coord_name(c),
                node_name(Node::Parent),
                describe(&env.msg)
            )
        );
        s.send(env);
    }

    pub(super) fn local_step(&self, s: &mut SysState, c: u8, log: &mut Log) {
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
                log_line!(
                    log,
                    format!(
                        "{} starts `{}`: pre-lock reads of the parent",
                        coord_name(c),
                        op.label()
                    )
                );
            }
            Phase::Lock(k) => self.send_enqueue(s, c, k, log),
            Phase::Instantiate => {
                let store = &s.parent.store;
                instantiate(&mut s.coords[ci], store);
                s.coords[ci].phase = Phase::Lock(2);
                log_line!(
                    log,
                    format!("{} reads the source object (instantiation)", coord_name(c))
                );
            }
            Phase::Decide => self.decide_step(s, c, &op, log),
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
                log_line!(
                    log,
                    format!(
                        "{} → {}: {}",
                        coord_name(c),
                        node_name(Node::Parent),
                        describe(&msg)
                    )
                );
                s.send(Envelope {
                    src: Node::Coord(c),
                    dst: Node::Parent,
                    msg,
                });
            }
            Phase::Release => {
                let held = core::mem::take(&mut s.coords[ci].held);
                for h in &held {
                    s.coords[ci].cache_mut().cancelled(h.cookie, m);
                    let msg = Msg::Cancel { lock: h.id };
                    log_line!(
                        log,
                        format!(
                            "{} → {}: {} (cache: what it seeded is dropped)",
                            coord_name(c),
                            node_name(Node::Parent),
                            describe(&msg)
                        )
                    );
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

    /// Use of the results: the decision, checked against a read under the lock.
    fn decide_step(&self, s: &mut SysState, c: u8, op: &SysOp, log: &mut Log) {
        let ci = usize::from(c);
        let m = self.mutation;
        let creds = &self.scope.coords[ci].creds;
        let op = op.clone();
        let store = &s.parent.store;
        let d = decide(&mut s.coords[ci], store, &op, creds, m);
        let co = &s.coords[ci];
        if advisory(co) {
            s.reached |= bit::ADVISORY;
        }
        let expected = self.expected_locks(co, &op, store);
        let under_locks = co.held.len() == expected
            && co.held.iter().all(|h| {
                s.parent
                    .locks
                    .granted
                    .iter()
                    .any(|l| l.id == h.id && l.owner.coord == c && l.owner.cookie == h.cookie)
            });
        let oracle = standard(store, creds, &op);
        log_line!(
            log,
            format!(
                "{} decides `{}` → {} (a read under the lock gives {})",
                coord_name(c),
                op.label(),
                d.summary(),
                oracle.summary()
            )
        );
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

    /// The reply to lock `k` arrived.
    pub(super) fn enqueue_reply(
        &self,
        s: &mut SysState,
        c: u8,
        k: u8,
        bytes: &Bytes,
        log: &mut Log,
    ) {
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
                    log_line!(
                        log,
                        format!(
                            "{}: lock #{handle} granted; {}",
                            coord_name(c),
                            if body.is_some() {
                                "post-grant invalidation suppressed, the reply's results seeded"
                            } else {
                                "empty or undecodable results: cache invalidated"
                            }
                        )
                    );
                    if k == 1 {
                        if body.is_none() {
                            s.reached |= bit::FALLBACK;
                        }
                        s.coords[ci].answer = body;
                    }
                }
                None => {
                    s.coords[ci].cache_mut().invalidate_reads();
                    log_line!(
                        log,
                        format!(
                            "{}: lock #{handle} granted; cache invalidated",
                            coord_name(c)
                        )
                    );
                }
            }
            self.advance(s, c, k, &op);
            return;
        }
        if status == ELDLM_LOCK_ABORTED {
            // The intent's result rides in the aborted reply (`mdc_finish_enqueue`).
            let plain = super::net::with_status(bytes, 0);
            let body = lustre_dne_intent::intent::ReplyView::parse(&plain)
                .ok()
                .and_then(|v| v.body());
            if let Some(b) = body.filter(|b| b.status != 0) {
                log_line!(
                    log,
                    format!(
                        "{}: enqueue aborted, no lock; the intent's status {} is used",
                        coord_name(c),
                        b.status
                    )
                );
                s.coords[ci].decision = Some(Decision::Error(b.status));
                s.coords[ci].phase = Phase::Decide;
                return;
            }
        }
        // No lock: stop sending intents to that peer and enqueue plainly.
        log_line!(
            log,
            format!(
                "{}: enqueue failed with {status}, no lock; retried without the intent",
                coord_name(c)
            )
        );
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

    pub(super) fn resend(&self, s: &mut SysState, c: u8, log: &mut Log) {
        let ci = usize::from(c);
        let order = self.scope.coords[ci].order;
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
                    Some(r) => intent_bytes(r, &sending, order),
                    None => plain_enqueue(&spec, &sending, order),
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
        log_line!(
            log,
            format!(
                "{} times out and resends: {}",
                coord_name(c),
                describe(&msg)
            )
        );
        s.send(Envelope {
            src: Node::Coord(c),
            dst: Node::Parent,
            msg,
        });
    }

    pub(super) fn in_flight(&self, s: &SysState, c: u8) -> bool {
        let Some(xid) = s.coords[usize::from(c)].pending.as_ref().map(Pending::xid) else {
            return false;
        };
        s.net.iter().any(|e| {
            (e.src == Node::Coord(c) || e.dst == Node::Coord(c)) && e.msg.xid() == Some(xid)
        })
    }
}
