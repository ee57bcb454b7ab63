//! The operations a coordinator's script runs and the decisions they come to; the
//! transactions that carry them out are in [`super::txn`], the standard path that defines the
//! right decision in [`super::standard`].

use crate::mdd::ChildState;
use crate::store::{Attrs, Store};
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::Operation;
use lustre_dne_intent::mode::{S_IFDIR, S_IFMT};
use lustre_dne_intent::wire::LuFid;

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
    AccessAcl(Bytes),
    /// setfacl -d: the default ACL.
    DefaultAcl(Bytes),
    /// lfs setstripe on a directory: the default layout.
    DefaultLov(Bytes),
    /// lfs setdirstripe -D: the default LMV.
    DefaultLmv(Bytes),
    /// The pin xattr.
    Pin(Bytes),
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
