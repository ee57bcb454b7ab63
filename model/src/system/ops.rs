//! The operations a coordinator's script runs, the decisions they come to, the transactions
//! that carry those decisions out, and the standard path that defines the right decision: the
//! shared helper over a read of the parent's store.

use crate::creds::{CAP_FOWNER, Creds};
use crate::mdd::{ChildState, LocalSource, Lookup, ObjInfo, permission, prepare};
use crate::store::{Attrs, Object, Store};
use alloc::vec::Vec;
use lustre_dne_intent::errno::{EACCES, ENOENT, ENOTEMPTY, EPERM};
use lustre_dne_intent::intent::Operation;
use lustre_dne_intent::mode::{LUSTRE_APPEND_FL, LUSTRE_IMMUTABLE_FL};
use lustre_dne_intent::mode::{S_IFDIR, S_IFMT, S_ISVTX};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::acl::MAY_WRITE;

/// The names the scopes use.
pub const NAMES: [&[u8]; 2] = [b"a", b"b"];

/// The parent directory every scope works in (on the parent MDT).
pub const PARENT: LuFid = LuFid::new(0x2_0000_0400, 0x1, 0);

/// What a parent changer sets.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Change {
    /// chmod: the permission bits (type bits kept).
    Mode(u32),
    /// chown: uid and gid.
    Owner(u32, u32),
    /// setfacl: the access ACL.
    AccessAcl(Vec<u8>),
    /// setfacl -d: the default ACL.
    DefaultAcl(Vec<u8>),
    /// lfs setstripe on a directory: the default layout.
    DefaultLov(Vec<u8>),
    /// lfs setdirstripe -D: the default LMV.
    DefaultLmv(Vec<u8>),
    /// The pin xattr.
    Pin(Vec<u8>),
}

impl Change {
    /// True when the change is an xattr the lock covers with `MDS_INODELOCK_XATTR`; the
    /// others take `UPDATE|PERM` (lustre-semantics.md §2).
    pub fn is_xattr(&self) -> bool {
        !matches!(
            self,
            Change::Mode(_) | Change::Owner(..) | Change::AccessAcl(_)
        )
    }
}

/// Where a changer applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Target {
    /// The parent directory.
    Parent,
    /// The object a name of the parent refers to.
    Child(u8),
}

/// One operation of a script. Names are indices into [`NAMES`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum SysOp {
    /// create (a regular `mode`) or mkdir (`S_IFDIR` in `mode`).
    Create {
        /// The name.
        name: u8,
        /// Requested mode with type bits.
        mode: u32,
    },
    /// unlink or rmdir.
    Unlink {
        /// The name.
        name: u8,
    },
    /// The preparation of a rename of the name out of the parent.
    Rename {
        /// The name.
        name: u8,
    },
    /// A change of the parent's (or a child's) attributes or xattrs.
    Set {
        /// What is changed.
        target: Target,
        /// The change.
        change: Change,
    },
}

impl SysOp {
    /// The prepare operation of an entry operation.
    pub fn operation(&self) -> Option<Operation> {
        match self {
            SysOp::Create { .. } => Some(Operation::Create),
            SysOp::Unlink { .. } => Some(Operation::Unlink),
            SysOp::Rename { .. } => Some(Operation::Rename),
            SysOp::Set { .. } => None,
        }
    }

    /// The name of an entry operation.
    pub fn name(&self) -> Option<&'static [u8]> {
        match self {
            SysOp::Create { name, .. } | SysOp::Unlink { name } | SysOp::Rename { name } => {
                NAMES.get(usize::from(*name)).copied()
            }
            SysOp::Set { .. } => None,
        }
    }

    /// The requested child mode (create only).
    pub fn child_mode(&self) -> u32 {
        match self {
            SysOp::Create { mode, .. } => *mode,
            _ => 0,
        }
    }

    /// A short label: `mkdir a`, `chmod parent 0700`, …
    pub fn label(&self) -> alloc::string::String {
        use alloc::format;
        let n = |i: &u8| {
            NAMES.get(usize::from(*i)).map_or("?".into(), |s| {
                alloc::string::String::from_utf8_lossy(s).into_owned()
            })
        };
        match self {
            SysOp::Create { name, mode } if mode & S_IFMT == S_IFDIR => {
                format!("mkdir {}", n(name))
            }
            SysOp::Create { name, .. } => format!("create {}", n(name)),
            SysOp::Unlink { name } => format!("unlink {}", n(name)),
            SysOp::Rename { name } => format!("rename-prepare {}", n(name)),
            SysOp::Set { target, change } => {
                let t = match target {
                    Target::Parent => "parent".into(),
                    Target::Child(i) => n(i),
                };
                match change {
                    Change::Mode(m) => format!("chmod {t} {m:o}"),
                    Change::Owner(u, g) => format!("chown {t} {u}:{g}"),
                    Change::AccessAcl(_) => format!("setfacl {t}"),
                    Change::DefaultAcl(_) => format!("setfacl -d {t}"),
                    Change::DefaultLov(_) => format!("setstripe {t}"),
                    Change::DefaultLmv(_) => format!("setdirstripe -D {t}"),
                    Change::Pin(_) => format!("pin {t}"),
                }
            }
        }
    }
}

/// What an operation decided (under its locks).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Decision {
    /// It fails with this negative errno.
    Error(i32),
    /// Create the child with this state.
    Create(ChildState),
    /// Remove this victim.
    Remove(LuFid),
    /// The rename may proceed with this source and its attributes.
    RenameReady(LuFid, Attrs),
    /// Apply the change to this object.
    Change(LuFid),
}

impl Decision {
    /// A short rendering for counterexamples: `create (mode 100644, gid 500, 1 stripe)`.
    pub fn summary(&self) -> alloc::string::String {
        use alloc::format;
        match self {
            Decision::Error(e) => format!("error {e}"),
            Decision::Create(c) => {
                let stripes = c
                    .layout
                    .as_deref()
                    .and_then(|l| l.get(28..30))
                    .map_or(0, |b| u16::from_le_bytes([b[0], b[1]]));
                format!(
                    "create (mode {:o}, gid {}, default ACL {}, layout {} stripe(s))",
                    c.mode,
                    c.gid,
                    if c.default_acl.is_some() { "yes" } else { "no" },
                    stripes
                )
            }
            Decision::Remove(f) => format!("remove {f}"),
            Decision::RenameReady(f, a) => format!("rename may proceed ({f}, mode {:o})", a.mode),
            Decision::Change(f) => format!("change {f}"),
        }
    }
}

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

/// The FID sequence of MDT0001; coordinator `n` allocates in `COORD_SEQ + n` (each MDT has its
/// own sequence, which is what lets [`super::symmetry`] rename coordinators).
pub const COORD_SEQ: u64 = 0x2_0000_0401;

/// The FID the `op`-th operation of coordinator `coord` gives a new child.
pub const fn new_fid(coord: u8, op: u8) -> LuFid {
    LuFid::new(COORD_SEQ + coord as u64, op as u32 + 1, 0)
}

/// The object a changer targets, in `store`.
pub fn target_fid(store: &Store, t: Target) -> Option<LuFid> {
    match t {
        Target::Parent => Some(PARENT),
        Target::Child(i) => {
            let n = NAMES.get(usize::from(i))?;
            store.get(PARENT)?.entries.get(*n).map(|e| e.fid)
        }
    }
}

/// `mdd_unlink_sanity_check` and friends on the victim: what the coordinator checks once it
/// holds the victim's lock.
pub fn unlink_checks(creds: &Creds, parent: &Attrs, child: Option<&Object>) -> Result<(), i32> {
    let child = child.filter(|c| !c.dead).ok_or(-ENOENT)?;
    let c = &child.attrs;
    if parent.mode & S_ISVTX != 0
        && creds.fsuid != parent.uid
        && creds.fsuid != c.uid
        && !creds.capable(CAP_FOWNER)
    {
        return Err(-EPERM);
    }
    if c.flags & (LUSTRE_APPEND_FL | LUSTRE_IMMUTABLE_FL) != 0 {
        return Err(-EPERM);
    }
    if c.is_dir() && !child.entries.is_empty() {
        return Err(-ENOTEMPTY);
    }
    Ok(())
}

/// The source checks of a rename preparation: moving a directory to another parent rewrites
/// its "..", which needs write permission on it (`mdd_rename_sanity_check`).
pub fn rename_source_checks(creds: &Creds, source: &ObjInfo) -> Result<(), i32> {
    if source.attrs.is_dir() && !permission(source, creds, MAY_WRITE).allowed {
        return Err(-EACCES);
    }
    Ok(())
}

/// The owner check of a changer (`inode_owner_or_capable`).
pub fn change_checks(creds: &Creds, obj: &Attrs) -> Result<(), i32> {
    if creds.fsuid == obj.uid || creds.capable(CAP_FOWNER) {
        Ok(())
    } else {
        Err(-EPERM)
    }
}

fn info(store: &Store, fid: LuFid) -> Option<ObjInfo> {
    store.get(fid).map(|o| ObjInfo {
        attrs: o.attrs,
        dead: o.dead,
        access_acl: o.xattrs.access_acl.clone(),
    })
}

/// The standard path's decision: the shared helper over the store itself, with the caller's
/// full credentials. A decision taken under the locks must equal this.
pub fn standard(store: &Store, creds: &Creds, op: &SysOp) -> Decision {
    let err = Decision::Error;
    match op {
        SysOp::Set { target, .. } => {
            let Some(fid) = target_fid(store, *target) else {
                return err(-ENOENT);
            };
            match store.get(fid) {
                Some(o) if !o.dead => match change_checks(creds, &o.attrs) {
                    Ok(()) => Decision::Change(fid),
                    Err(e) => err(e),
                },
                _ => err(-ENOENT),
            }
        }
        _ => {
            let (Some(operation), Some(name)) = (op.operation(), op.name()) else {
                return err(-ENOENT);
            };
            let p = prepare(
                &mut LocalSource(store),
                PARENT,
                operation,
                Some(name),
                op.child_mode(),
                creds,
            );
            if p.status != 0 {
                return err(p.status);
            }
            let (victim, pattrs) = match (p.lookup, p.object, p.child) {
                (_, _, Some(child)) => return Decision::Create(child),
                (Lookup::Positive(e), Some(a), _) => (e.fid, a),
                _ => return err(-ENOENT),
            };
            match op {
                SysOp::Unlink { .. } => match unlink_checks(creds, &pattrs, store.get(victim)) {
                    Ok(()) => Decision::Remove(victim),
                    Err(e) => err(e),
                },
                _ => match info(store, victim) {
                    Some(src) if !src.dead => match rename_source_checks(creds, &src) {
                        Ok(()) => Decision::RenameReady(victim, src.attrs),
                        Err(e) => err(e),
                    },
                    _ => err(-ENOENT),
                },
            }
        }
    }
}

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

/// Runs `ops` (coordinator, op index, op, creds) serially by the standard path from `store`:
/// the decisions and the final store.
pub fn serial(store: &Store, ops: &[(u8, u8, &SysOp, &Creds)]) -> (Vec<Decision>, Store) {
    let mut s = store.clone();
    let mut out = Vec::with_capacity(ops.len());
    for (c, i, op, creds) in ops {
        let d = standard(&s, creds, op);
        if let Some(u) = update_for(op, &d, creds, new_fid(*c, *i)) {
            apply(&mut s, &u);
        }
        out.push(d);
    }
    (out, s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{dmv_bytes, lov_bytes};

    fn store() -> Store {
        let mut s = Store::default();
        s.insert(
            PARENT,
            Object {
                attrs: Attrs {
                    mode: S_IFDIR | 0o775,
                    uid: 500,
                    gid: 200,
                    nlink: 2,
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        s
    }

    fn creds(uid: u32, cap: u64) -> Creds {
        Creds {
            fsuid: uid,
            fsgid: uid,
            cap,
            umask: 0o022,
            ..Default::default()
        }
    }

    /// Every changer: the owner may, a stranger gets -EPERM, CAP_FOWNER may; the executor
    /// writes exactly the attribute or xattr named.
    #[test]
    fn changers_check_ownership_and_write_what_they_name() {
        let changes = [
            Change::Mode(0o700),
            Change::Owner(7, 8),
            Change::AccessAcl(alloc::vec![1, 2]),
            Change::DefaultAcl(alloc::vec![3]),
            Change::DefaultLov(lov_bytes(4)),
            Change::DefaultLmv(dmv_bytes(1, 0)),
            Change::Pin(alloc::vec![9]),
        ];
        for ch in changes {
            let op = SysOp::Set {
                target: Target::Parent,
                change: ch.clone(),
            };
            let s = store();
            assert_eq!(standard(&s, &creds(600, 0), &op), Decision::Error(-EPERM));
            assert_eq!(
                standard(&s, &creds(600, 1 << CAP_FOWNER), &op),
                Decision::Change(PARENT)
            );
            let d = standard(&s, &creds(500, 0), &op);
            assert_eq!(d, Decision::Change(PARENT));
            let (ds, after) = serial(&s, &[(0, 0, &op, &creds(500, 0))]);
            assert_eq!(ds, [d]);
            let p = after.get(PARENT).unwrap();
            match ch {
                Change::Mode(m) => assert_eq!(p.attrs.mode, S_IFDIR | m),
                Change::Owner(u, g) => assert_eq!((p.attrs.uid, p.attrs.gid), (u, g)),
                Change::AccessAcl(v) => assert_eq!(p.xattrs.access_acl, Some(v)),
                Change::DefaultAcl(v) => assert_eq!(p.xattrs.default_acl, Some(v)),
                Change::DefaultLov(v) => assert_eq!(p.xattrs.lov, Some(v)),
                Change::DefaultLmv(v) => assert_eq!(p.xattrs.dmv, Some(v)),
                Change::Pin(v) => assert_eq!(p.xattrs.pin, Some(v)),
            }
        }
    }

    /// mkdir then rmdir by the standard path: the entry, the object and the parent's nlink.
    #[test]
    fn serial_mkdir_then_rmdir() {
        let s = store();
        let c = creds(500, 0);
        let mkdir = SysOp::Create {
            name: 0,
            mode: S_IFDIR | 0o755,
        };
        let rmdir = SysOp::Unlink { name: 0 };
        let (ds, mid) = serial(&s, &[(1, 0, &mkdir, &c)]);
        assert!(matches!(&ds[0], Decision::Create(ch) if ch.mode == S_IFDIR | 0o755));
        assert_eq!(mid.get(PARENT).unwrap().attrs.nlink, 3);
        assert_eq!(
            mid.get(PARENT)
                .unwrap()
                .entries
                .get(&b"a"[..])
                .map(|e| e.fid),
            Some(new_fid(1, 0))
        );
        let (ds, end) = serial(&s, &[(1, 0, &mkdir, &c), (1, 1, &rmdir, &c)]);
        assert_eq!(ds[1], Decision::Remove(new_fid(1, 0)));
        assert_eq!(end, s);
        // A second create of the same name fails as the helper says.
        let (ds, _) = serial(&s, &[(0, 0, &mkdir, &c), (1, 0, &mkdir, &c)]);
        assert_eq!(ds[1], Decision::Error(-lustre_dne_intent::errno::EEXIST));
    }
}
