//! The coordinator's cache and its view of the network: reads of the parent through the
//! cache, recorded in the trace.

use super::{CacheEvent, Enqueue, Env, Item, Label, SyncRead, Trace};
use crate::handler::IntentHandler;
use crate::mdd::{ObjInfo, ParentSource};
use crate::store::{Attrs, Entry, Store};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent::wire::{LdlmResId, LuFid};

/// The coordinator's OSP cache: items with a value or a negative entry, and an invalidation
/// sequence so that a read racing an invalidation is not cached.
#[derive(Debug, Clone, Default)]
pub(super) struct Cache {
    pub(super) seq: u64,
    pub(super) objs: BTreeMap<LuFid, ObjInfo>,
    pub(super) attrs_only: BTreeMap<LuFid, Attrs>,
    /// Lookups seeded from a reply. OSP caches no index lookup it made itself: each of its
    /// own lookups is an RPC.
    pub(super) lookups: BTreeMap<(LuFid, Vec<u8>), Option<Entry>>,
    pub(super) xattrs: BTreeMap<(LuFid, MliBuf), Option<Bytes>>,
    pub(super) link_ea: alloc::collections::BTreeSet<LuFid>,
}

/// The coordinator's view of the world for one run.
pub(super) struct Net<'s> {
    pub(super) store: &'s Store,
    pub(super) handler: &'s dyn IntentHandler,
    pub(super) trace: Trace,
    pub(super) cache: Cache,
    pub(super) next_lock: u32,
    /// Where the reads issued now happen (set by the coordinator at each step).
    pub(super) label: Label,
}

impl ParentSource for Net<'_> {
    fn attrs(&mut self, fid: LuFid) -> Option<ObjInfo> {
        if let Some(o) = self.cache.objs.get(&fid) {
            return Some(o.clone());
        }
        self.note(Item::Attrs(fid));
        let v = self.store.get(fid).map(|o| ObjInfo {
            attrs: o.attrs,
            dead: o.dead,
            access_acl: o.xattrs.access_acl.clone(),
        });
        if let Some(v) = &v {
            self.cache.objs.insert(fid, v.clone());
        }
        v
    }
    fn lookup(&mut self, fid: LuFid, name: &[u8]) -> Option<Entry> {
        if let Some(v) = self.cache.lookups.get(&(fid, name.to_vec())) {
            return *v;
        }
        self.note(Item::Lookup(fid, name.to_vec()));
        self.store
            .get(fid)
            .and_then(|o| o.entries.get(name).copied())
    }
    fn xattr(&mut self, fid: LuFid, which: MliBuf) -> Option<Bytes> {
        if let Some(v) = self.cache.xattrs.get(&(fid, which)) {
            return v.clone();
        }
        self.note(Item::Xattr(fid, which));
        let v = crate::mdd::LocalSource(self.store).xattr_of(fid, which);
        self.cache.xattrs.insert((fid, which), v.clone());
        v
    }
    fn root_lov(&mut self) -> Option<Bytes> {
        self.note(Item::RootLov);
        self.store.root_lov().cloned()
    }
}

impl<'s> Net<'s> {
    pub(super) fn new(store: &'s Store, handler: &'s dyn IntentHandler) -> Self {
        Net {
            store,
            handler,
            trace: Trace::default(),
            cache: Cache::default(),
            next_lock: 1,
            label: Label::AfterLockParent,
        }
    }

    /// Records one synchronous read issued now.
    fn note(&mut self, item: Item) {
        if self.label.after_lock() {
            self.trace.reads.push(item.clone());
        }
        self.trace.sync_reads.push(SyncRead {
            item,
            label: self.label,
        });
    }

    /// Reads the linkEA of `fid` through the cache (its value is not modelled).
    pub(super) fn link_ea(&mut self, fid: LuFid) {
        if self.cache.link_ea.insert(fid) {
            self.note(Item::LinkEa(fid));
        }
    }

    /// Attributes of `fid` for the coordinator's own checks: from a seeded PATTR, the cache, or
    /// a read.
    pub(super) fn object_attrs(&mut self, fid: LuFid) -> Option<Attrs> {
        if let Some(a) = self.cache.attrs_only.get(&fid) {
            return Some(*a);
        }
        self.attrs(fid).map(|o| o.attrs)
    }

    pub(super) fn grant(&mut self) -> u32 {
        let id = self.next_lock;
        self.next_lock += 1;
        self.trace.cache.push(CacheEvent::Grant(id));
        id
    }

    pub(super) fn invalidate(&mut self) {
        // A PATTR seeded from a reply came with a lock the coordinator holds to the end of the
        // operation: a later grant on another object does not make it stale (the prototype
        // keeps it; the old code's invalidation stranded the parent's attributes it had read).
        let attrs_only = core::mem::take(&mut self.cache.attrs_only);
        self.cache = Cache {
            seq: self.cache.seq + 1,
            attrs_only,
            ..Cache::default()
        };
        self.trace.cache.push(CacheEvent::Invalidate);
    }

    pub(super) fn plain_enqueue(&mut self, resource: LdlmResId, env: &Env) -> u32 {
        let id = self.grant();
        self.trace.enqueues.push(Enqueue {
            resource,
            intent: None,
            result: Ok(id),
            peer_flag: env.peer_flag,
            replay: env.replay,
            from_non_mdt: false,
        });
        self.invalidate();
        id
    }
}
