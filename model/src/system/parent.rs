//! The parent MDT: its store, the LDLM lock table, the crate's intent handler run under the
//! granted lock, blocking ASTs, and the OUT_UPDATE transaction executor.

use super::Mutation;
use super::locks::{Lock, LockTable, Owner};
use super::net::{
    ELDLM_LOCK_ABORTED, Envelope, Incoming, LockSpec, Msg, Node, order_of, plain_reply,
};
use super::txn::{Update, apply};
use crate::handler::{HandlerFaults, handle};
use crate::store::Store;
use alloc::sync::Arc;
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::errno::EPROTO;
use lustre_dne_intent::intent::ReplyView;
use lustre_dne_intent::wire::LustreHandle;

/// A queued lock's request, kept until the grant answers it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Queued {
    /// Server lock id.
    pub id: u16,
    /// The request bytes (an intent is run at grant time).
    pub request: Bytes,
    /// It carries an intent.
    pub intent: bool,
    /// A reply computed before the grant (only a mutant handler does that).
    pub early: Option<Bytes>,
}

/// The parent MDT's state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Parent {
    /// The objects (shared between states until a transaction changes them).
    pub store: Arc<Store>,
    /// The namespace's locks.
    pub locks: LockTable,
    /// Next lock id.
    pub next_id: u16,
    /// Requests of queued locks.
    pub queued: Vec<Queued>,
    /// Enqueues processed since the last restart, by (coordinator, xid).
    pub seen: Vec<(u8, u16)>,
    /// Transactions executed (on disk: they survive a restart), by (coordinator, xid).
    pub committed: Vec<(u8, u16)>,
}

/// What a delivery to the parent did, for the checker.
#[derive(Debug, Clone, Default)]
pub struct Effects {
    /// Messages to send.
    pub out: Vec<Envelope>,
    /// The handler re-ran for a resent enqueue on the lock already granted.
    pub resend_rerun: bool,
    /// A lock had to wait.
    pub waited: bool,
    /// The handler changed the store.
    pub handler_wrote: bool,
    /// A transaction was executed (first time): coordinator, xid.
    pub executed: Option<(u8, u16)>,
    /// Log lines.
    pub log: Vec<alloc::string::String>,
}

impl Parent {
    /// A parent MDT over `store`.
    pub fn new(store: Store) -> Self {
        Parent {
            store: Arc::new(store),
            locks: LockTable::default(),
            next_id: 1,
            queued: Vec::new(),
            seen: Vec::new(),
            committed: Vec::new(),
        }
    }

    fn run_handler(&self, request: &[u8], id: u16, fx: &mut Effects) -> Result<Bytes, i32> {
        let before = self.store.clone();
        let r = handle(
            &self.store,
            request,
            true,
            LustreHandle(u64::from(id)),
            HandlerFaults::default(),
        );
        if self.store != before {
            fx.handler_wrote = true;
        }
        r
    }

    fn answer(&mut self, lock: &Lock, q: &Queued, fx: &mut Effects) {
        let spec = LockSpec {
            res: lock.res,
            mode: lock.mode,
            bits: lock.bits,
        };
        // The reply goes out in the request's byte order (the handler's too).
        let order = order_of(&q.request).unwrap_or_default();
        let bytes = if q.intent {
            match q.early.clone() {
                Some(b) => b,
                None => match self.run_handler(&q.request, lock.id, fx) {
                    Ok(b) => b,
                    Err(e) => {
                        self.locks.cancel(lock.id);
                        plain_reply(&spec, 0, e, order)
                    }
                },
            }
        } else {
            plain_reply(&spec, lock.id, 0, order)
        };
        fx.log.push(alloc::format!(
            "parent grants lock #{} {:?} to MDT{:04}{}",
            lock.id,
            lock.mode,
            lock.owner.coord + 1,
            if q.intent {
                " and runs the intent handler under it"
            } else {
                ""
            }
        ));
        fx.out.push(Envelope {
            src: Node::Parent,
            dst: Node::Coord(lock.owner.coord),
            msg: Msg::EnqueueReply {
                xid: lock.owner.cookie,
                bytes,
            },
        });
    }

    /// Sends a blocking AST to each holder of a granted lock a waiter conflicts with.
    fn blocking_asts(&mut self, fx: &mut Effects) {
        let waiting = self.locks.waiting.clone();
        for w in &waiting {
            for id in self.locks.blockers(w) {
                if let Some(g) = self.locks.granted.iter_mut().find(|g| g.id == id)
                    && !g.bl_sent
                {
                    g.bl_sent = true;
                    fx.out.push(Envelope {
                        src: Node::Parent,
                        dst: Node::Coord(g.owner.coord),
                        msg: Msg::BlockingAst { lock: id },
                    });
                }
            }
        }
    }

    /// An enqueue from coordinator `c` whose connection has (or lacks) the connect flag.
    pub fn enqueue(
        &mut self,
        c: u8,
        xid: u16,
        bytes: &Bytes,
        inc: Option<Incoming>,
        conn_flag: bool,
        m: Mutation,
    ) -> Effects {
        let mut fx = Effects::default();
        let Some(inc) = inc else {
            return fx;
        };
        let reply = |status: i32, spec: &LockSpec| Envelope {
            src: Node::Parent,
            dst: Node::Coord(c),
            msg: Msg::EnqueueReply {
                xid,
                bytes: plain_reply(spec, 0, status, inc.order),
            },
        };
        let owner = Owner {
            coord: c,
            cookie: inc.sending.cookie,
        };
        let new_lock = |id: u16| Lock {
            id,
            owner,
            res: inc.spec.res,
            mode: inc.spec.mode,
            bits: inc.spec.bits,
            bl_sent: false,
        };
        if inc.sending.replay {
            // Lock replay: re-established as it was, no policy runs.
            let id = inc.sending.old_handle;
            self.locks.granted.push(new_lock(id));
            self.next_id = self.next_id.max(id + 1);
            fx.out.push(Envelope {
                src: Node::Parent,
                dst: Node::Coord(c),
                msg: Msg::EnqueueReply {
                    xid,
                    bytes: plain_reply(&inc.spec, id, 0, inc.order),
                },
            });
            return fx;
        }
        if inc.intent && !conn_flag {
            // A peer without the feature: "unknown intent code", no lock.
            fx.out.push(reply(-EPROTO, &inc.spec));
            return fx;
        }
        if inc.sending.resent && m != Mutation::ResendSecondLock {
            if let Some(l) = self.locks.granted_of(owner).copied() {
                // The resend finds the granted lock: the handler runs again on it.
                fx.resend_rerun = inc.intent;
                let q = Queued {
                    id: l.id,
                    request: bytes.clone(),
                    intent: inc.intent,
                    early: None,
                };
                self.answer(&l, &q, &mut fx);
                return fx;
            }
            if self.locks.waiting_of(owner) || self.seen.contains(&(c, xid)) {
                // Still queued (the grant will answer), or answered and cancelled since.
                return fx;
            }
        }
        if !self.seen.contains(&(c, xid)) {
            self.seen.push((c, xid));
            self.seen.sort_unstable();
        }
        let id = self.next_id;
        self.next_id += 1;
        let lock = new_lock(id);
        let mut q = Queued {
            id,
            request: bytes.clone(),
            intent: inc.intent,
            early: None,
        };
        if inc.intent && m == Mutation::FailedPrepFailsEnqueue {
            let r = self.run_handler(bytes, id, &mut fx);
            let failed = r.as_ref().is_ok_and(|b| {
                ReplyView::parse(b)
                    .ok()
                    .and_then(|v| v.body().map(|b| b.status != 0))
                    .unwrap_or(false)
            });
            if let (true, Ok(b)) = (failed, r) {
                fx.log
                    .push("parent aborts the enqueue: the preparation failed".into());
                fx.out.push(Envelope {
                    src: Node::Parent,
                    dst: Node::Coord(c),
                    msg: Msg::EnqueueReply {
                        xid,
                        bytes: super::net::with_status(&b, ELDLM_LOCK_ABORTED),
                    },
                });
                return fx;
            }
        }
        if inc.intent && m == Mutation::SeedBeforeGrant {
            q.early = self.run_handler(bytes, id, &mut fx).ok();
        }
        if self.locks.enqueue(lock) {
            self.answer(&lock, &q, &mut fx);
        } else {
            fx.waited = true;
            fx.log.push(alloc::format!(
                "parent queues lock #{id} {:?} of MDT{:04}: it conflicts with lock(s) {:?}",
                lock.mode,
                c + 1,
                self.locks.blockers(&lock)
            ));
            self.queued.push(q);
            self.blocking_asts(&mut fx);
        }
        fx
    }

    /// A cancel: the lock goes, waiters that no longer conflict are granted and answered.
    pub fn cancel(&mut self, id: u16) -> Effects {
        let mut fx = Effects::default();
        self.locks.cancel(id);
        for l in self.locks.reprocess() {
            if let Some(i) = self.queued.iter().position(|q| q.id == l.id) {
                let q = self.queued.remove(i);
                self.answer(&l, &q, &mut fx);
            }
        }
        self.blocking_asts(&mut fx);
        fx
    }

    /// An OUT_UPDATE: executed once (a resent one finds its result recorded).
    pub fn update(&mut self, c: u8, xid: u16, u: &Update) -> Effects {
        let mut fx = Effects::default();
        if !self.committed.contains(&(c, xid)) {
            apply(Arc::make_mut(&mut self.store), u);
            self.committed.push((c, xid));
            self.committed.sort_unstable();
            fx.executed = Some((c, xid));
        }
        fx.out.push(Envelope {
            src: Node::Parent,
            dst: Node::Coord(c),
            msg: Msg::UpdateReply { xid },
        });
        fx
    }

    /// A restart: locks, queues and the enqueue record are memory and are lost.
    pub fn restart(&mut self) {
        self.locks = LockTable::default();
        self.queued.clear();
        self.seen.clear();
    }
}
