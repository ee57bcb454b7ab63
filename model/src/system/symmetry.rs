//! Symmetry reduction (MODEL.md §6.6): coordinators with the same caller, script and byte order
//! are interchangeable, so a state and the state with two of them swapped have the same futures
//! up to that swap. The checker keeps one representative of each such class of states.
//!
//! Swapping coordinators `c` and `d` renames, everywhere in the state:
//! - the coordinators' slots, the network's ends, the lock owners, the parent's enqueue and
//!   transaction records and the commit log;
//! - the FIDs they create: coordinator `n` allocates in its own sequence
//!   ([`super::ops::COORD_SEQ`] + n, as each Lustre MDT has its own), so the sequences are swapped
//!   too, in the store, the caches, the lock resources, the decisions and the encoded messages.
//!
//! An encoded message is renamed through the codec: decoded into its typed value (a prepare
//! request or reply, or a plain `ldlm_request`/`ldlm_reply`), its FID fields renamed (the lock's
//! resource, `mcpr_fid`, `mcpp_fid`, PATTR's `mbo_fid1`/`mbo_fid2`), and encoded again in its
//! own byte order. The xattr results are opaque bytes here: no scope's xattr holds a FID.

use super::cache::{Entries, OspCache};
use super::coordinator::{Coord, Held, Pending, Phase};
use super::locks::{Lock, LockTable, Owner};
use super::net::{
    Envelope, LockSpec, Msg, Node, parse_enqueue, plain_enqueue, plain_reply, with_status,
};
use super::ops::{COORD_SEQ, Decision};
use super::parent::{Parent, Queued};
use super::state::SysState;
use super::txn::Update;
use crate::store::{Entry, Store};
use alloc::collections::BTreeMap;
use alloc::sync::Arc;
use alloc::vec::Vec;
use core::hash::{Hash, Hasher};
use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::{MliBuf, ReplyView, RequestView};
use lustre_dne_intent::wire::{
    LdlmReply, LdlmResId, LuFid, MdtBody, MsgView, PtlrpcBody, PtlrpcMsgType, WireStruct,
};

/// At most this many coordinators are permuted (4! = 24 candidate renamings a state); a scope
/// with more is checked without the reduction.
pub const MAX_PERMUTED: usize = 4;

/// A renaming of the coordinators: coordinator `c` becomes `to[c]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renaming {
    to: Vec<u8>,
    /// A moved coordinator allocates FIDs: they are renamed too.
    fids: bool,
}

impl Renaming {
    /// The renaming `c → to[c]`; `None` unless `to` is a permutation of `0..to.len()`.
    pub fn new(to: Vec<u8>) -> Option<Self> {
        let mut seen = alloc::vec![false; to.len()];
        for &t in &to {
            let slot = seen.get_mut(usize::from(t))?;
            if *slot {
                return None;
            }
            *slot = true;
        }
        Some(Renaming { to, fids: true })
    }

    /// The same renaming, told whether any coordinator it moves allocates FIDs.
    fn for_state(&self, s: &SysState) -> Renaming {
        let fids =
            self.to.iter().enumerate().any(|(c, &t)| {
                usize::from(t) != c && s.coords.get(c).is_none_or(|co| co.allocates)
            });
        Renaming {
            to: self.to.clone(),
            fids,
        }
    }

    fn coord(&self, c: u8) -> u8 {
        self.to.get(usize::from(c)).copied().unwrap_or(c)
    }

    fn seq(&self, seq: u64) -> u64 {
        if !self.fids {
            return seq;
        }
        match seq.checked_sub(COORD_SEQ) {
            Some(n) if n < self.to.len() as u64 => COORD_SEQ + u64::from(self.coord(n as u8)),
            _ => seq,
        }
    }

    fn fid(&self, f: LuFid) -> LuFid {
        LuFid {
            seq: self.seq(f.seq),
            ..f
        }
    }

    fn res(&self, r: LdlmResId) -> LdlmResId {
        let mut name = r.name;
        name[0] = self.seq(name[0]);
        LdlmResId { name }
    }

    fn spec(&self, s: LockSpec) -> LockSpec {
        LockSpec {
            res: self.res(s.res),
            ..s
        }
    }

    fn node(&self, n: Node) -> Node {
        match n {
            Node::Parent => Node::Parent,
            Node::Coord(c) => Node::Coord(self.coord(c)),
        }
    }

    /// An encoded message with the coordinators' FIDs renamed: decoded by the codec into its
    /// typed value, the FID fields renamed (see the module's note), encoded again in the
    /// message's own byte order.
    pub fn bytes(&self, b: &Bytes) -> Bytes {
        if !self.fids {
            return b.clone();
        }
        // Every message the model builds decodes (a test walks `three-one` and checks that the
        // identity renaming gives back the same bytes); anything else is left as it is.
        self.message(b).unwrap_or_else(|| b.clone())
    }

    fn message(&self, b: &[u8]) -> Option<Bytes> {
        let msg = MsgView::parse(b).ok()?;
        let order = msg.order();
        let ptlrpc = PtlrpcBody::decode_buffer(msg.buffer(0)?, order, msg.buffer_offset(0)).ok()?;
        let intent = msg.bufcount() > 2;
        match (ptlrpc.msg_type == PtlrpcMsgType::REQUEST, intent) {
            (true, true) => {
                let mut r = RequestView::parse(b).ok()?.to_value();
                r.body.fid = self.fid(r.body.fid);
                r.ldlm.lock_desc.resource = self.res(r.ldlm.lock_desc.resource);
                r.to_bytes(order).ok()
            }
            (true, false) => {
                let i = parse_enqueue(b)?;
                Some(plain_enqueue(&self.spec(i.spec), &i.sending, order))
            }
            (false, true) => self.intent_reply(b, ptlrpc.status, order),
            (false, false) => {
                let rep = LdlmReply::decode(msg.buffer(1)?, order).ok()?;
                let d = rep.lock_desc;
                let spec = LockSpec {
                    res: self.res(d.resource),
                    mode: d.req_mode,
                    bits: d.policy.bits,
                };
                Some(plain_reply(
                    &spec,
                    rep.lock_handle.0 as u16,
                    ptlrpc.status,
                    order,
                ))
            }
        }
    }

    /// The handler's reply: the lock's resource, the looked-up FID and PATTR's `mdt_body` FIDs.
    /// An aborted one (a mutant's) is renamed as the granted reply it carries.
    fn intent_reply(&self, b: &[u8], status: i32, order: Endian) -> Option<Bytes> {
        let granted = if status == 0 {
            Bytes::copy_from_slice(b)
        } else {
            with_status(b, 0)
        };
        let mut r = ReplyView::parse(&granted).ok()?.to_value();
        r.ldlm.lock_desc.resource = self.res(r.ldlm.lock_desc.resource);
        if let Some(o) = &mut r.outcome {
            o.body.fid = self.fid(o.body.fid);
            let pattr = &mut o.results[MliBuf::Pattr.index()];
            // A value holds PATTR little-endian, whatever the reply's order.
            if let Ok(mut a) = MdtBody::decode(pattr, Endian::Little) {
                a.fid1 = self.fid(a.fid1);
                a.fid2 = self.fid(a.fid2);
                let mut v = Vec::with_capacity(MdtBody::SIZE);
                a.put(Endian::Little, &mut v);
                *pattr = Bytes::from(v);
            }
        }
        let out = r.to_bytes(order).ok()?;
        Some(if status == 0 {
            out
        } else {
            with_status(&out, status)
        })
    }

    fn decision(&self, d: &Decision) -> Decision {
        match d {
            Decision::Remove(f) => Decision::Remove(self.fid(*f)),
            Decision::RenameReady(f, a) => Decision::RenameReady(self.fid(*f), *a),
            Decision::Change(f) => Decision::Change(self.fid(*f)),
            other => other.clone(),
        }
    }

    fn update(&self, u: &Update) -> Update {
        let mut u = u.clone();
        match &mut u {
            Update::Create { fid, .. } | Update::Set { fid, .. } => *fid = self.fid(*fid),
            Update::Remove { victim, .. } => *victim = self.fid(*victim),
        }
        u
    }

    fn entry(&self, e: Entry) -> Entry {
        Entry {
            fid: self.fid(e.fid),
            ..e
        }
    }

    fn store(&self, s: &Store) -> Store {
        if !self.fids {
            return s.clone();
        }
        let objects = s
            .objects
            .iter()
            .map(|(f, o)| {
                let mut o = o.clone();
                for e in o.entries.values_mut() {
                    *e = self.entry(*e);
                }
                (self.fid(*f), o)
            })
            .collect();
        Store { objects }
    }

    fn rekey<K: Ord, V: Clone>(
        &self,
        m: &Entries<K, V>,
        key: impl Fn(&K) -> K,
        value: impl Fn(&V) -> V,
    ) -> Entries<K, V> {
        m.iter()
            .map(|(k, (v, o))| (key(k), (value(v), *o)))
            .collect::<BTreeMap<_, _>>()
    }

    fn cache(&self, c: &OspCache) -> OspCache {
        if !self.fids {
            return c.clone();
        }
        OspCache {
            objs: self.rekey(&c.objs, |f| self.fid(*f), Clone::clone),
            pattr: self.rekey(&c.pattr, |f| self.fid(*f), Clone::clone),
            lookups: self.rekey(
                &c.lookups,
                |(f, n)| (self.fid(*f), *n),
                |e| e.map(|e| self.entry(e)),
            ),
            xattrs: self.rekey(&c.xattrs, |(f, b)| (self.fid(*f), *b), Clone::clone),
        }
    }

    fn coordinator(&self, c: &Coord) -> Coord {
        let mut c = c.clone();
        if !self.fids {
            return c;
        }
        for h in &mut c.held {
            *h = Held {
                spec: self.spec(h.spec),
                ..*h
            };
        }
        c.pending = c.pending.map(|p| match p {
            Pending::Enqueue { xid, spec, intent } => Pending::Enqueue {
                xid,
                spec: self.spec(spec),
                intent: intent.map(|b| self.bytes(&b)),
            },
            Pending::Update { xid, update } => Pending::Update {
                xid,
                update: self.update(&update),
            },
        });
        c.cache = Arc::new(self.cache(&c.cache));
        if let Some(a) = &mut c.answer {
            a.fid = self.fid(a.fid);
        }
        c.entry = c.entry.map(|(f, a)| (self.fid(f), a));
        c.decision = c.decision.as_ref().map(|d| self.decision(d));
        c
    }

    fn lock(&self, l: &Lock) -> Lock {
        Lock {
            owner: Owner {
                coord: self.coord(l.owner.coord),
                ..l.owner
            },
            res: self.res(l.res),
            ..*l
        }
    }

    fn records(&self, r: &[(u8, u16)]) -> Vec<(u8, u16)> {
        let mut v: Vec<_> = r.iter().map(|(c, x)| (self.coord(*c), *x)).collect();
        v.sort_unstable();
        v
    }

    fn parent(&self, p: &Parent) -> Parent {
        Parent {
            store: if self.fids {
                Arc::new(self.store(&p.store))
            } else {
                p.store.clone()
            },
            locks: LockTable {
                granted: p.locks.granted.iter().map(|l| self.lock(l)).collect(),
                waiting: p.locks.waiting.iter().map(|l| self.lock(l)).collect(),
            },
            next_id: p.next_id,
            queued: p
                .queued
                .iter()
                .map(|q| Queued {
                    id: q.id,
                    request: self.bytes(&q.request),
                    intent: q.intent,
                    early: q.early.as_ref().map(|b| self.bytes(b)),
                })
                .collect(),
            seen: self.records(&p.seen),
            committed: self.records(&p.committed),
        }
    }

    fn msg(&self, m: &Msg) -> Msg {
        match m {
            Msg::Enqueue { xid, bytes } => Msg::Enqueue {
                xid: *xid,
                bytes: self.bytes(bytes),
            },
            Msg::EnqueueReply { xid, bytes } => Msg::EnqueueReply {
                xid: *xid,
                bytes: self.bytes(bytes),
            },
            Msg::Update { xid, update } => Msg::Update {
                xid: *xid,
                update: self.update(update),
            },
            other => other.clone(),
        }
    }

    /// The state with every coordinator renamed.
    pub fn state(&self, s: &SysState) -> SysState {
        let mut coords: Vec<Option<Coord>> = alloc::vec![None; s.coords.len()];
        for (c, co) in s.coords.iter().enumerate() {
            if let Some(slot) = coords.get_mut(usize::from(self.coord(c as u8))) {
                *slot = Some(self.coordinator(co));
            }
        }
        // `to` is a permutation (checked by `new`): every slot is filled.
        let coords = coords.into_iter().flatten().collect();
        let mut net: Vec<_> = s
            .net
            .iter()
            .map(|e| Envelope {
                src: self.node(e.src),
                dst: self.node(e.dst),
                msg: self.msg(&e.msg),
            })
            .collect();
        net.sort();
        SysState {
            parent: self.parent(&s.parent),
            coords,
            net,
            done: s
                .done
                .iter()
                .map(|(c, i, d)| (self.coord(*c), *i, self.decision(d)))
                .collect(),
            losses: s.losses,
            dups: s.dups,
            reconnects: s.reconnects,
            restarts: s.restarts,
            reached: s.reached,
            broken: s.broken,
            note: s.note.clone(),
        }
    }
}

/// The renamings that map every coordinator to one of its own class (`class[c]`: the first
/// coordinator with the same caller, script and byte order), the identity first.
pub fn renamings(class: &[u8]) -> Vec<Renaming> {
    let n = class.len();
    let mut out = Vec::new();
    if n > MAX_PERMUTED {
        out.extend(Renaming::new((0..n as u8).collect()));
        return out;
    }
    let mut to: Vec<u8> = (0..n as u8).collect();
    permute(&mut to, 0, &mut |p| {
        if p.iter()
            .enumerate()
            .all(|(c, &t)| class.get(c) == class.get(usize::from(t)))
        {
            out.extend(Renaming::new(p.to_vec()));
        }
    });
    out
}

fn permute(to: &mut [u8], k: usize, visit: &mut impl FnMut(&[u8])) {
    if k >= to.len() {
        visit(to);
        return;
    }
    for i in k..to.len() {
        to.swap(k, i);
        permute(to, k + 1, visit);
        to.swap(k, i);
    }
}

std::thread_local! {
    /// The renamings of the last class vector seen (one scope per checker thread).
    static RENAMINGS: core::cell::RefCell<Option<(Vec<u8>, Vec<Renaming>)>> =
        const { core::cell::RefCell::new(None) };
}

fn fingerprint(s: &SysState) -> u64 {
    // SipHash with fixed keys: the same state has the same print in every run and thread.
    let mut h = std::collections::hash_map::DefaultHasher::new();
    s.hash(&mut h);
    h.finish()
}

/// What a renaming cannot change about a coordinator: where it is in its script and what it
/// holds, counted. Sorting a class by it picks most representatives without renaming anything.
fn rank(c: &Coord) -> impl Ord {
    (
        c.pc,
        phase_rank(c.phase),
        c.next_xid,
        c.held.len(),
        c.pending.is_some(),
        c.conn_flag,
        c.no_intents,
        c.decision.is_some(),
    )
}

fn phase_rank(p: Phase) -> (u8, u8) {
    match p {
        Phase::PreLock => (0, 0),
        Phase::Lock(k) => (1, k),
        Phase::Wait(k) => (2, k),
        Phase::Instantiate => (3, 0),
        Phase::Decide => (4, 0),
        Phase::Txn => (5, 0),
        Phase::WaitTxn => (6, 0),
        Phase::Release => (7, 0),
        Phase::Done => (8, 0),
    }
}

/// The representative of `s`'s class: its coordinators sorted by `rank` within each class,
/// and among renamings that tie on rank, the one with the least fingerprint. The choice
/// depends only on the class, so every member of it has the same representative.
pub fn representative(s: &SysState) -> SysState {
    let class: Vec<u8> = s.coords.iter().map(|c| c.class).collect();
    let all = RENAMINGS.with(|cache| {
        let mut cache = cache.borrow_mut();
        match &*cache {
            Some((c, r)) if *c == class => r.clone(),
            _ => {
                let r = renamings(&class);
                *cache = Some((class.clone(), r.clone()));
                r
            }
        }
    });
    if all.len() <= 1 {
        return s.clone();
    }
    // Keep the renamings that put the coordinators in rank order: slot `to[c]` gets `c`.
    let ranks: Vec<_> = s.coords.iter().map(rank).collect();
    let sorted: Vec<&Renaming> = all
        .iter()
        .filter(|r| {
            let mut at: Vec<usize> = alloc::vec![0; r.to.len()];
            for (c, &t) in r.to.iter().enumerate() {
                at[usize::from(t)] = c;
            }
            (0..at.len()).all(|j| {
                (j + 1..at.len()).all(|k| class[j] != class[k] || ranks[at[j]] <= ranks[at[k]])
            })
        })
        .collect();
    let identity = |r: &Renaming| r.to.iter().enumerate().all(|(c, &t)| usize::from(t) == c);
    let apply = |r: &Renaming| {
        if identity(r) {
            let mut t = s.clone();
            super::handles::canonicalize(&mut t);
            t
        } else {
            // The held locks moved between slots: their handles are numbered again.
            let mut t = r.for_state(s).state(s);
            super::handles::canonicalize(&mut t);
            t
        }
    };
    match sorted.as_slice() {
        [] => s.clone(),
        [one] => apply(one),
        many => many
            .iter()
            .map(|r| apply(r))
            .min_by_key(fingerprint)
            .unwrap_or_else(|| s.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_permutations_of_a_class_are_renamings() {
        assert_eq!(renamings(&[0, 1, 1]).len(), 2);
        assert_eq!(renamings(&[0, 0, 0]).len(), 6);
        assert_eq!(renamings(&[0, 1, 2]).len(), 1);
        assert_eq!(renamings(&[0, 1, 1])[0].to, [0, 1, 2]);
        assert_eq!(renamings(&[0, 1, 1])[1].to, [0, 2, 1]);
        assert!(Renaming::new(alloc::vec![0, 0]).is_none());
        assert!(Renaming::new(alloc::vec![0, 2]).is_none());
    }

    #[test]
    fn a_coordinator_sequence_is_renamed_in_either_byte_order() {
        use super::super::net::{Sending, parse_enqueue, plain_enqueue, plain_reply, reply_status};
        use lustre_dne_intent::wire::{InodeBits, LdlmReply, LockMode, MsgView, WireStruct};
        let swap = Renaming::new(alloc::vec![1, 0]).expect("a permutation");
        let of = |c: u64| LuFid::new(COORD_SEQ + c, 1, 0);
        for order in [Endian::Little, Endian::Big] {
            let spec = LockSpec {
                res: LdlmResId::of_fid(of(0), 0),
                mode: LockMode::EX,
                bits: InodeBits::UPDATE,
            };
            let b = plain_enqueue(&spec, &Sending::default(), order);
            let renamed = parse_enqueue(&swap.bytes(&b)).expect("still a message");
            assert_eq!(renamed.spec.res.fid(), of(1));
            assert_eq!(renamed.order, order);
            // Twice is the identity; other FIDs stay.
            assert_eq!(swap.bytes(&swap.bytes(&b)), b);
            let parent = plain_enqueue(
                &LockSpec {
                    res: LdlmResId::of_fid(super::super::ops::PARENT, 0),
                    ..spec
                },
                &Sending::default(),
                order,
            );
            assert_eq!(swap.bytes(&parent), parent);
            // A reply that carries one (the granted lock's resource), its status and handle kept.
            let reply = plain_reply(&spec, 3, 0, order);
            let renamed = swap.bytes(&reply);
            let msg = MsgView::parse(&renamed).expect("still a message");
            assert_eq!(msg.order(), order);
            let rep = LdlmReply::decode(msg.buffer(1).expect("ldlm_reply"), order)
                .expect("an ldlm_reply");
            assert_eq!(rep.lock_desc.resource.fid(), of(1));
            assert_eq!(reply_status(&renamed), reply_status(&reply));
            assert_eq!(swap.bytes(&renamed), reply);
        }
    }
}
