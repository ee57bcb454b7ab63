//! The OUT_UPDATE transactions: what a decision writes, and the executor on the parent MDT
//! that applies it.

use super::ops::{Change, Decision, NAMES, PARENT, SysOp};
use crate::creds::Creds;
use crate::mdd::ChildState;
use crate::store::{Attrs, Object, Store};
use lustre_dne_intent::mode::{S_IFDIR, S_IFMT};
use lustre_dne_intent::wire::LuFid;

/// An OUT_UPDATE transaction: what the executor on the parent MDT writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Update {
    /// Insert `name → fid` and create the object (with `uid` as owner).
    Create {
        /// The name.
        name: u8,
        /// The new FID.
        fid: LuFid,
        /// The owner.
        uid: u32,
        /// The child, as decided.
        child: ChildBox,
    },
    /// Delete `name` and destroy `victim`.
    Remove {
        /// The name.
        name: u8,
        /// The victim.
        victim: LuFid,
    },
    /// Set an attribute or xattr of `fid`.
    Set {
        /// The object.
        fid: LuFid,
        /// The change.
        change: ChangeBox,
    },
}

impl Update {
    /// A short rendering: `insert a → [0x200000401:0x1:0x0]`.
    pub fn summary(&self) -> alloc::string::String {
        use alloc::format;
        let n = |i: &u8| {
            NAMES.get(usize::from(*i)).map_or("?".into(), |s| {
                alloc::string::String::from_utf8_lossy(s).into_owned()
            })
        };
        match self {
            Update::Create { name, fid, .. } => {
                format!("insert {} → {fid}, create the object", n(name))
            }
            Update::Remove { name, victim } => format!("delete {}, destroy {victim}", n(name)),
            Update::Set { fid, change } => format!("set {:?} on {fid}", change.0),
        }
    }
}

/// A [`ChildState`] with an order (for the network's sorted multiset).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChildBox(pub ChildState);
/// A [`Change`] with an order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ChangeBox(pub Change);

macro_rules! order_by_debug {
    ($t:ty) => {
        impl PartialOrd for $t {
            fn partial_cmp(&self, o: &Self) -> Option<core::cmp::Ordering> {
                Some(self.cmp(o))
            }
        }
        impl Ord for $t {
            fn cmp(&self, o: &Self) -> core::cmp::Ordering {
                alloc::format!("{self:?}").cmp(&alloc::format!("{o:?}"))
            }
        }
    };
}
order_by_debug!(ChildBox);
order_by_debug!(ChangeBox);

/// The transaction a decision needs, if any.
pub fn update_for(op: &SysOp, d: &Decision, creds: &Creds, fid: LuFid) -> Option<Update> {
    match (op, d) {
        (SysOp::Create { name, .. }, Decision::Create(c)) => Some(Update::Create {
            name: *name,
            fid,
            uid: creds.fsuid,
            child: ChildBox(c.clone()),
        }),
        (SysOp::Unlink { name }, Decision::Remove(v)) => Some(Update::Remove {
            name: *name,
            victim: *v,
        }),
        (SysOp::Set { change, .. }, Decision::Change(f)) => Some(Update::Set {
            fid: *f,
            change: ChangeBox(change.clone()),
        }),
        _ => None,
    }
}

/// The transaction executor (OUT_UPDATE on the parent MDT): applies `u` to `store`.
pub fn apply(store: &mut Store, u: &Update) {
    match u {
        Update::Create {
            name,
            fid,
            uid,
            child: ChildBox(c),
        } => {
            let dir = c.mode & S_IFMT == S_IFDIR;
            let mut obj = Object {
                attrs: Attrs {
                    mode: c.mode,
                    uid: *uid,
                    gid: c.gid,
                    projid: c.projid,
                    flags: c.flags,
                    nlink: if dir { 2 } else { 1 },
                    ..Default::default()
                },
                ..Default::default()
            };
            obj.xattrs.access_acl = c.access_acl.clone();
            obj.xattrs.default_acl = c.default_acl.clone();
            obj.xattrs.pin = c.pin.clone();
            obj.xattrs.dmv = c.dmv.clone();
            if dir {
                obj.xattrs.lov = c.layout.clone();
            }
            store.insert(*fid, obj);
            if let Some(n) = NAMES.get(usize::from(*name)) {
                store.link(PARENT, n, *fid);
            }
            if let (true, Some(p)) = (dir, store.objects.get_mut(&PARENT)) {
                p.attrs.nlink += 1;
            }
        }
        Update::Remove { name, victim } => {
            let dir = store.get(*victim).is_some_and(|o| o.attrs.is_dir());
            store.objects.remove(victim);
            if let Some(p) = store.objects.get_mut(&PARENT) {
                if let Some(n) = NAMES.get(usize::from(*name)) {
                    p.entries.remove(*n);
                }
                if dir {
                    p.attrs.nlink = p.attrs.nlink.saturating_sub(1);
                }
            }
        }
        Update::Set {
            fid,
            change: ChangeBox(c),
        } => {
            let Some(o) = store.objects.get_mut(fid) else {
                return;
            };
            match c {
                Change::Mode(m) => o.attrs.mode = (o.attrs.mode & S_IFMT) | (m & !S_IFMT),
                Change::Owner(u, g) => {
                    o.attrs.uid = *u;
                    o.attrs.gid = *g;
                }
                Change::AccessAcl(v) => o.xattrs.access_acl = Some(v.clone()),
                Change::DefaultAcl(v) => o.xattrs.default_acl = Some(v.clone()),
                Change::DefaultLov(v) => o.xattrs.lov = Some(v.clone()),
                Change::DefaultLmv(v) => o.xattrs.dmv = Some(v.clone()),
                Change::Pin(v) => o.xattrs.pin = Some(v.clone()),
            }
        }
    }
}
