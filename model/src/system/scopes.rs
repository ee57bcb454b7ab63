//! The named scopes: the store, the coordinators' callers and scripts, and the fault budgets.

use super::Mutation;
use super::ops::{Change, PARENT, SysOp, Target};
use crate::creds::{CAP_FOWNER, Creds};
use crate::store::{Attrs, Object, Store, lov_bytes};
use alloc::string::String;
use alloc::vec::Vec;
use lustre_dne_intent::Endian;
use lustre_dne_intent::mode::{S_IFDIR, S_IFREG};
use lustre_dne_intent::wire::LuFid;

/// One coordinator of a scope.
#[derive(Debug, Clone)]
pub struct CoordSpec {
    /// The caller of its operations.
    pub creds: Creds,
    /// At most this many of the caller's groups go into an intent (fewer than the caller has
    /// makes the intent `MCPR_GROUPS_PARTIAL`).
    pub intent_groups: usize,
    /// Its operations, in order.
    pub script: Vec<SysOp>,
    /// The byte order it sends in (the parent answers each request in the request's order).
    pub order: Endian,
}

/// What one check explores.
#[derive(Debug, Clone)]
pub struct Scope {
    /// Its name.
    pub name: &'static str,
    /// One line on what it covers.
    pub about: &'static str,
    /// The parent MDT's store at the start.
    pub store: Store,
    /// The coordinators.
    pub coords: Vec<CoordSpec>,
    /// The connect flag at the first connection.
    pub flag: bool,
    /// Messages that may be lost.
    pub losses: u8,
    /// Resends while the original is still in flight (duplicates).
    pub dups: u8,
    /// Reconnects (each flips the flag).
    pub reconnects: u8,
    /// Parent restarts (locks replayed).
    pub restarts: u8,
}

impl Scope {
    /// The class of coordinator `c`: the first coordinator with the same caller, script and
    /// byte order.
    pub fn class_of(&self, c: usize) -> u8 {
        let same = |a: &CoordSpec, b: &CoordSpec| {
            a.creds == b.creds
                && a.intent_groups == b.intent_groups
                && a.script == b.script
                && a.order == b.order
        };
        let Some(me) = self.coords.get(c) else {
            return c as u8;
        };
        self.coords
            .iter()
            .position(|o| same(o, me))
            .map_or(c as u8, |i| i as u8)
    }

    /// True when two coordinators are interchangeable (symmetry reduction applies).
    pub fn symmetric(&self) -> bool {
        (0..self.coords.len()).any(|c| usize::from(self.class_of(c)) != c)
    }
}

/// FID of the directory `b` some scopes start with.
pub const B_FID: LuFid = LuFid::new(0x2_0000_0400, 0x2, 0);

fn store(with_b: bool) -> Store {
    let mut s = Store::default();
    let mut root = Object {
        attrs: Attrs {
            mode: S_IFDIR | 0o755,
            nlink: 3,
            ..Default::default()
        },
        ..Default::default()
    };
    root.xattrs.lov = Some(lov_bytes(1));
    s.insert(LuFid::ROOT, root);
    let p = Object {
        attrs: Attrs {
            mode: S_IFDIR | 0o775,
            uid: 500,
            gid: 200,
            nlink: 2,
            ..Default::default()
        },
        ..Default::default()
    };
    s.insert(PARENT, p);
    s.link(LuFid::ROOT, b"p", PARENT);
    if with_b {
        let b = Object {
            attrs: Attrs {
                mode: S_IFDIR | 0o755,
                uid: 1000,
                gid: 1000,
                nlink: 2,
                ..Default::default()
            },
            ..Default::default()
        };
        s.insert(B_FID, b);
        s.link(PARENT, b"b", B_FID);
        if let Some(p) = s.objects.get_mut(&PARENT) {
            p.attrs.nlink += 1;
        }
    }
    s
}

/// MDT0001's caller: uid 1000 in groups 100 and 200, with CAP_FOWNER; its intents carry one
/// group, so an answer that depends on group 200 is advisory. MDT0001 is big-endian, so every
/// scope is a mixed pair: its requests and the parent's answers to them are big-endian.
fn partial(script: Vec<SysOp>) -> CoordSpec {
    CoordSpec {
        creds: Creds {
            fsuid: 1000,
            fsgid: 1000,
            groups: alloc::vec![100, 200],
            cap: 1 << CAP_FOWNER,
            umask: 0o022,
            groups_partial: false,
        },
        intent_groups: 1,
        script,
        order: Endian::Big,
    }
}

/// MDT0002's caller: uid 500 (the parent's owner) in group 200, with CAP_FOWNER, complete groups.
fn full(script: Vec<SysOp>) -> CoordSpec {
    CoordSpec {
        creds: Creds {
            fsuid: 500,
            fsgid: 500,
            groups: alloc::vec![200],
            cap: 1 << CAP_FOWNER,
            umask: 0o022,
            groups_partial: false,
        },
        intent_groups: 16,
        script,
        order: Endian::Little,
    }
}

const fn create(name: u8) -> SysOp {
    SysOp::Create {
        name,
        mode: S_IFREG | 0o644,
    }
}

fn setstripe() -> SysOp {
    SysOp::Set {
        target: Target::Parent,
        change: Change::DefaultLov(lov_bytes(4)),
    }
}

fn chmod_parent() -> SysOp {
    SysOp::Set {
        target: Target::Parent,
        change: Change::Mode(0o770),
    }
}

/// The names of the scopes.
pub fn scope_names() -> [&'static str; 8] {
    [
        "small",
        "pair",
        "default",
        "rename",
        "recovery",
        "wide",
        "three-one",
        "three",
    ]
}

/// A scope by name.
pub fn scope(name: &str) -> Option<Scope> {
    let base = |name, about, store, coords| Scope {
        name,
        about,
        store,
        coords,
        flag: true,
        losses: 1,
        dups: 0,
        reconnects: 1,
        restarts: 0,
    };
    Some(match name {
        "small" => base(
            "small",
            "2 coordinators creating the same name; 1 loss, 1 reconnect (sized for debug CI)",
            store(false),
            alloc::vec![
                partial(alloc::vec![create(0)]),
                full(alloc::vec![create(0)])
            ],
        ),
        "pair" => base(
            "pair",
            "2 interchangeable coordinators (MDT0002's caller, little-endian) creating the same \
             name; 1 loss, 1 reconnect (symmetry reduced; sized for debug CI)",
            store(false),
            alloc::vec![full(alloc::vec![create(0)]), full(alloc::vec![create(0)])],
        ),
        "default" => base(
            "default",
            "2 coordinators, 1-2 operations each (create a + create b; setstripe the parent), \
             names {a, b}; 1 loss, 1 reconnect",
            store(false),
            alloc::vec![
                partial(alloc::vec![create(0), create(1)]),
                full(alloc::vec![setstripe()]),
            ],
        ),
        "rename" => base(
            "rename",
            "rename preparation of directory b racing a chmod of b; 1 loss, 1 reconnect",
            store(true),
            alloc::vec![
                partial(alloc::vec![SysOp::Rename { name: 1 }]),
                full(alloc::vec![SysOp::Set {
                    target: Target::Child(1),
                    change: Change::Mode(0o555),
                }]),
            ],
        ),
        "recovery" => Scope {
            restarts: 1,
            losses: 0,
            reconnects: 0,
            ..base(
                "recovery",
                "mkdir a racing create a, with a parent restart (lock replay)",
                store(false),
                alloc::vec![
                    partial(alloc::vec![SysOp::Create {
                        name: 0,
                        mode: S_IFDIR | 0o755,
                    }]),
                    full(alloc::vec![create(0)]),
                ],
            )
        },
        "wide" => base(
            "wide",
            "3 coordinators: create a, create a, chmod the parent; 1 loss, 1 reconnect",
            store(false),
            alloc::vec![
                partial(alloc::vec![create(0)]),
                full(alloc::vec![create(0)]),
                full(alloc::vec![SysOp::Set {
                    target: Target::Parent,
                    change: Change::Mode(0o770),
                }]),
            ],
        ),
        "three-one" => Scope {
            restarts: 1,
            ..base(
                "three-one",
                "3 coordinators (MDT0001, big-endian: create a; MDT0002 and MDT0003, \
                 interchangeable: setstripe the parent); 1 loss, 1 reconnect, 1 parent restart",
                store(false),
                alloc::vec![
                    partial(alloc::vec![create(0)]),
                    full(alloc::vec![setstripe()]),
                    full(alloc::vec![setstripe()]),
                ],
            )
        },
        "three" => Scope {
            restarts: 1,
            ..base(
                "three",
                "3 coordinators with two operations each (MDT0001, big-endian: create a, \
                 create b; MDT0002 and MDT0003, interchangeable: setstripe the parent, chmod \
                 the parent 0770); 1 loss, 1 reconnect, 1 parent restart",
                store(false),
                alloc::vec![
                    partial(alloc::vec![create(0), create(1)]),
                    full(alloc::vec![setstripe(), chmod_parent()]),
                    full(alloc::vec![setstripe(), chmod_parent()]),
                ],
            )
        },
        _ => return None,
    })
}

/// The scope a mutation is checked in by default: the smallest that exhibits it.
pub fn scope_for(m: Mutation) -> &'static str {
    match m {
        // The rename's object-mode intent is where a PATTR is used: MDT0001 is big-endian.
        Mutation::NoInvalidateAfterAccess | Mutation::PattrWrongOrder => "rename",
        Mutation::KeepSeededAfterCancel | Mutation::None => "default",
        _ => "small",
    }
}

/// A one-line summary of a scope's scripts.
pub fn scripts(s: &Scope) -> String {
    let mut out = String::new();
    for (i, c) in s.coords.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        out.push_str(&alloc::format!("MDT{:04}: ", i + 1));
        let labels: Vec<String> = c.script.iter().map(SysOp::label).collect();
        out.push_str(&labels.join(", "));
    }
    out
}
