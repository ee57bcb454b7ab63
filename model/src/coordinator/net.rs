//! The coordinator's cache and its view of the network: reads of the parent through the
//! cache, recorded in the trace.

use super::{CacheEvent, Enqueue, Env, Item, Trace};
use crate::handler::IntentHandler;
use crate::helper::{ObjInfo, ParentSource};
use crate::store::{Attrs, Entry, Store};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent::wire::{LdlmResId, LuFid};

/// The coordinator's OSP cache: items with a value or a negative entry, and an invalidation
/// sequence so that a read racing an invalidation is not cached.
#[derive(Debug, Clone, Default)]
pub(super) struct Cache {
    pub(super) seq: u64,
    pub(super) objs: BTreeMap<LuFid, ObjInfo>,
    pub(super) attrs_only: BTreeMap<LuFid, Attrs>,
    pub(super) lookups: BTreeMap<(LuFid, Vec<u8>), Option<Entry>>,
    pub(super) xattrs: BTreeMap<(LuFid, MliBuf), Option<Vec<u8>>>,
}

/// The coordinator's view of the world for one run.
pub(super) struct Net<'s> {
    pub(super) store: &'s Store,
    pub(super) handler: &'s dyn IntentHandler,
    pub(super) trace: Trace,
    pub(super) cache: Cache,
    pub(super) next_lock: u32,
}

impl ParentSource for Net<'_> {
    fn attrs(&mut self, fid: LuFid) -> Option<ObjInfo> {
        if let Some(o) = self.cache.objs.get(&fid) {
            return Some(o.clone());
        }
        self.trace.reads.push(Item::Attrs(fid));
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
        self.trace.reads.push(Item::Lookup(fid, name.to_vec()));
        let v = self
            .store
            .get(fid)
            .and_then(|o| o.entries.get(name).copied());
        self.cache.lookups.insert((fid, name.to_vec()), v);
        v
    }
    fn xattr(&mut self, fid: LuFid, which: MliBuf) -> Option<Vec<u8>> {
        if let Some(v) = self.cache.xattrs.get(&(fid, which)) {
            return v.clone();
        }
        self.trace.reads.push(Item::Xattr(fid, which));
        let v = crate::helper::LocalSource(self.store).xattr_of(fid, which);
        self.cache.xattrs.insert((fid, which), v.clone());
        v
    }
    fn root_lov(&mut self) -> Option<Vec<u8>> {
        self.trace.reads.push(Item::RootLov);
        self.store.root_lov().map(<[u8]>::to_vec)
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
        self.cache = Cache {
            seq: self.cache.seq + 1,
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
