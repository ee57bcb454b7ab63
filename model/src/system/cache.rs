//! A coordinator's OSP cache of the parent MDT's objects, with where each entry came from.
//!
//! - A **read** entry is what a synchronous remote read returned. Every grant of an UPDATE lock
//!   invalidates it (`mo_invalidate` after the lock, lustre-semantics.md §2).
//! - With the design's **suppression**, a grant that comes with a prepare reply does not drop the
//!   cache; read entries are marked **unverified** instead, and an unverified entry is
//!   invalidated at its next access, which then reads through (the design's "invalidates stale
//!   cache entries immediately after these entries are accessed").
//! - A **seeded** entry came in the reply of lock `L`: fetched under `L`, it stays valid while `L`
//!   is held, and is dropped when `L` is cancelled.

use super::Mutation;
use crate::mdd::{ObjInfo, ParentSource};
use crate::store::{Attrs, Entry, Store};
use alloc::collections::BTreeMap;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent::wire::LuFid;

/// Where a cache entry came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A synchronous read.
    Read,
    /// A read entry a suppressed post-grant invalidation left behind: invalid at next access.
    Unverified,
    /// Seeded from the reply of the lock with this cookie.
    Seeded(u16),
}

/// Entries keyed by `K`, each with its origin.
pub type Entries<K, V> = BTreeMap<K, (V, Origin)>;

/// The cache.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct OspCache {
    /// attr_get with permission data (attributes and access ACL): reads only.
    pub objs: Entries<LuFid, Option<ObjInfo>>,
    /// Attributes from a PATTR result: seeded only.
    pub pattr: Entries<LuFid, Attrs>,
    /// Name lookups in the parent (by name index).
    pub lookups: Entries<(LuFid, u8), Option<Entry>>,
    /// Xattrs.
    pub xattrs: Entries<(LuFid, MliBuf), Option<Bytes>>,
}

/// A cache event, for the counterexample's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheNote {
    /// Read entries were dropped after a grant.
    Invalidated,
    /// Read entries were marked unverified (suppressed invalidation).
    Suppressed,
    /// Entries seeded under this lock were dropped at its cancel.
    DroppedSeeded(u16),
}

fn retain<K: Ord, V>(m: &mut BTreeMap<K, (V, Origin)>, keep: impl Fn(Origin) -> bool) {
    m.retain(|_, (_, o)| keep(*o));
}

fn mark<K: Ord, V>(m: &mut BTreeMap<K, (V, Origin)>) {
    for (_, o) in m.values_mut() {
        if *o == Origin::Read {
            *o = Origin::Unverified;
        }
    }
}

impl OspCache {
    /// The post-grant invalidation of a plain grant: read entries go.
    pub fn invalidate_reads(&mut self) {
        let keep = |o: Origin| matches!(o, Origin::Seeded(_));
        retain(&mut self.objs, keep);
        retain(&mut self.pattr, keep);
        retain(&mut self.lookups, keep);
        retain(&mut self.xattrs, keep);
    }

    /// The suppressed invalidation of a grant with a prepare reply.
    pub fn suppress(&mut self, m: Mutation) {
        if m == Mutation::NoInvalidateAfterAccess {
            return;
        }
        mark(&mut self.objs);
        mark(&mut self.pattr);
        mark(&mut self.lookups);
        mark(&mut self.xattrs);
    }

    /// The cancel of lock `cookie`: what it seeded goes.
    pub fn cancelled(&mut self, cookie: u16, m: Mutation) {
        if m == Mutation::KeepSeededAfterCancel {
            return;
        }
        let keep = move |o: Origin| o != Origin::Seeded(cookie);
        retain(&mut self.objs, keep);
        retain(&mut self.pattr, keep);
        retain(&mut self.lookups, keep);
        retain(&mut self.xattrs, keep);
    }

    /// Attributes for the coordinator's own checks: a seeded PATTR, else attr_get.
    pub fn object_attrs(&mut self, store: &Store, fid: LuFid) -> Option<Attrs> {
        match self.pattr.get(&fid) {
            Some((a, Origin::Seeded(_) | Origin::Read)) => return Some(*a),
            Some((_, Origin::Unverified)) => {
                self.pattr.remove(&fid);
            }
            None => {}
        }
        Source { cache: self, store }.attrs(fid).map(|o| o.attrs)
    }
}

/// The cache in front of remote reads: the [`ParentSource`] a coordinator runs the shared
/// helper over. A read goes to the parent's store as it is now: the read is one RPC, served
/// under whatever locks the coordinator holds.
pub struct Source<'a> {
    /// The cache.
    pub cache: &'a mut OspCache,
    /// The parent MDT's store.
    pub store: &'a Store,
}

fn cached<K: Ord + Clone, V: Clone>(
    m: &mut BTreeMap<K, (V, Origin)>,
    k: &K,
    read: impl FnOnce() -> V,
) -> V {
    match m.get(k) {
        Some((v, Origin::Read | Origin::Seeded(_))) => return v.clone(),
        // Invalidate after access: the stale entry goes, the access reads through.
        Some((_, Origin::Unverified)) | None => {}
    }
    let v = read();
    m.insert(k.clone(), (v.clone(), Origin::Read));
    v
}

impl ParentSource for Source<'_> {
    fn attrs(&mut self, fid: LuFid) -> Option<ObjInfo> {
        let store = self.store;
        cached(&mut self.cache.objs, &fid, || {
            store.get(fid).map(|o| ObjInfo {
                attrs: o.attrs,
                dead: o.dead,
                access_acl: o.xattrs.access_acl.clone(),
            })
        })
    }
    fn lookup(&mut self, fid: LuFid, name: &[u8]) -> Option<Entry> {
        let store = self.store;
        let Some(i) = super::ops::NAMES.iter().position(|n| *n == name) else {
            return store.get(fid).and_then(|o| o.entries.get(name).copied());
        };
        cached(&mut self.cache.lookups, &(fid, i as u8), || {
            store.get(fid).and_then(|o| o.entries.get(name).copied())
        })
    }
    fn xattr(&mut self, fid: LuFid, which: MliBuf) -> Option<Bytes> {
        let store = self.store;
        cached(&mut self.cache.xattrs, &(fid, which), || {
            crate::mdd::LocalSource(store).xattr_of(fid, which)
        })
    }
    fn root_lov(&mut self) -> Option<Bytes> {
        self.store.root_lov().cloned()
    }
}
