//! proptest strategies for stores, credentials, operations and faults (feature `proptest`), so
//! that downstream conformance suites can generate the same scenarios the crate checks itself.
//!
//! Ids come from a small pool so that ownership, group membership and named ACL entries
//! actually coincide.
//!
//! A conformance suite drives them with its own runner (or `proptest!`), and holds its
//! implementation to what the reference model says:
//!
//! ```
//! use lustre_dne_intent_model::{self as model, Op, strategies};
//! use lustre_dne_intent::xattr::AclView;
//! use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
//!
//! let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
//! let mut runner = TestRunner::new_with_rng(Config::with_cases(32), rng);
//! runner
//!     .run(&(strategies::scenario(), strategies::fault()), |(scenario, fault)| {
//!         // Creates, unlinks and renames of a name in the parent, or of a remote directory.
//!         assert!(match scenario.op {
//!             Op::Create { parent, .. }
//!             | Op::Unlink { parent, .. }
//!             | Op::Rename { parent, .. }
//!             | Op::RenameOver { parent, .. } => parent == strategies::PARENT,
//!             Op::RenameDir { .. } => true,
//!         });
//!         // Every invariant of MODEL.md §4 holds on the reference coordinator.
//!         model::check(&scenario, fault).map_err(|v| TestCaseError::fail(v.to_string()))?;
//!         Ok(())
//!     })
//!     .expect("the reference model holds");
//! // Generated ACLs are valid `system.posix_acl_*` values with the three required entries.
//! runner
//!     .run(&strategies::acl_bytes(), |bytes| {
//!         let acl = AclView::parse(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
//!         assert!(acl.len() >= 3);
//!         Ok(())
//!     })
//!     .expect("valid ACLs");
//! ```

use super::checker::Scenario;
use super::creds::Creds;
use super::operation::{Fault, Op};
use super::store::{Attrs, Object, Store, Xattrs};
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent::mode::{LUSTRE_APPEND_FL, LUSTRE_IMMUTABLE_FL, LUSTRE_PROJINHERIT_FL};
use lustre_dne_intent::mode::{S_IFDIR, S_IFLNK, S_IFREG, S_IFSOCK};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag};
use proptest::prelude::*;

/// The remote parent every generated operation targets.
pub const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);

/// The id pool: root, and three users/groups.
pub const IDS: [u32; 4] = [0, 100, 500, 600];

fn id() -> impl Strategy<Value = u32> {
    prop::sample::select(IDS.to_vec())
}

/// A valid POSIX ACL xattr over the id pool: USER_OBJ, named users, GROUP_OBJ, named groups,
/// MASK (always with named entries, sometimes without), OTHER.
pub fn acl_bytes() -> impl Strategy<Value = Vec<u8>> {
    (
        0u16..8,
        prop::collection::btree_map(id(), 0u16..8, 0..3),
        0u16..8,
        prop::collection::btree_map(id(), 0u16..8, 0..3),
        proptest::option::of(0u16..8),
        0u16..8,
    )
        .prop_map(|(uo, users, go, groups, mask, other)| {
            let mut e = Vec::new();
            e.push(AclEntry::new(AclTag::USER_OBJ, AclPerm(uo), 0));
            e.extend(
                users
                    .iter()
                    .map(|(&id, &p)| AclEntry::new(AclTag::USER, AclPerm(p), id)),
            );
            e.push(AclEntry::new(AclTag::GROUP_OBJ, AclPerm(go), 0));
            e.extend(
                groups
                    .iter()
                    .map(|(&id, &p)| AclEntry::new(AclTag::GROUP, AclPerm(p), id)),
            );
            let named = !users.is_empty() || !groups.is_empty();
            if let Some(m) = mask.or(named.then_some(7)) {
                e.push(AclEntry::new(AclTag::MASK, AclPerm(m), 0));
            }
            e.push(AclEntry::new(AclTag::OTHER, AclPerm(other), 0));
            Acl::new(e)
                .to_bytes()
                .map(|b| b.to_vec())
                .unwrap_or_default()
        })
}

pub use super::store::{dmv_bytes, lov_bytes};

fn xattrs() -> impl Strategy<Value = Xattrs> {
    (
        proptest::option::weighted(0.3, acl_bytes()),
        proptest::option::weighted(0.5, acl_bytes()),
        proptest::option::weighted(
            0.3,
            prop::sample::select(vec![&b"[pool: fast]"[..], b"[hsm: 3,pool: flash]"]),
        ),
        proptest::option::weighted(0.3, (0u16..4).prop_map(lov_bytes)),
        proptest::option::weighted(
            0.3,
            (
                prop::sample::select(vec![0u8, 1, 2, 3, 250, 251, 255]),
                prop::sample::select(vec![0u8, 1, 3, 255]),
            ),
        ),
    )
        .prop_map(|(access, default, pin, lov, dmv)| Xattrs {
            access_acl: access.map(Bytes::from),
            default_acl: default.map(Bytes::from),
            pin: pin.map(Bytes::from_static),
            lmv: None,
            lov,
            dmv: dmv.map(|(a, b)| dmv_bytes(a, b)),
        })
}

/// The parent directory (occasionally not a directory, dead, or missing) with a few entries,
/// and ROOT with or without a filesystem default layout.
pub fn store() -> impl Strategy<Value = Store> {
    (
        prop_oneof![
            0u32..0o10000,
            prop::sample::select(vec![
                0o777u32, 0o775, 0o755, 0o1777, 0o2775, 0o2777, 0o707, 0o770, 0o3777
            ])
        ],
        id(),
        id(),
        prop::sample::select(vec![
            0u32,
            LUSTRE_PROJINHERIT_FL,
            LUSTRE_APPEND_FL,
            LUSTRE_IMMUTABLE_FL,
            LUSTRE_PROJINHERIT_FL | LUSTRE_APPEND_FL,
        ]),
        xattrs(),
        prop::sample::select(vec![0u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3]),
        prop::collection::vec(
            (
                prop::sample::select(vec![&b"a"[..], b"b", b"d"]),
                prop::bool::ANY,
                id(),
                0u32..0o10000,
                prop::bool::weighted(0.2),
                prop::bool::weighted(0.1),
            ),
            1..4,
        ),
        proptest::option::of((0u16..4).prop_map(lov_bytes)),
    )
        .prop_map(
            |(perm, uid, gid, flags, xattrs, shape, children, root_lov)| {
                let mut s = Store::default();
                let root = Object {
                    attrs: Attrs {
                        mode: S_IFDIR | 0o755,
                        nlink: 2,
                        ..Default::default()
                    },
                    xattrs: Xattrs {
                        lov: root_lov,
                        ..Default::default()
                    },
                    ..Default::default()
                };
                s.insert(LuFid::ROOT, root);
                if shape == 3 {
                    return s; // the parent does not exist
                }
                let mode = if shape == 1 {
                    S_IFREG | (perm & 0o777)
                } else {
                    S_IFDIR | perm
                };
                let parent = Object {
                    attrs: Attrs {
                        mode,
                        uid,
                        gid,
                        projid: 7,
                        flags,
                        nlink: 2,
                        ..Default::default()
                    },
                    xattrs,
                    dead: shape == 2,
                    ..Default::default()
                };
                s.insert(PARENT, parent);
                for (i, (name, dir, cuid, cperm, cflags, nonempty)) in
                    children.into_iter().enumerate()
                {
                    let fid = LuFid::new(0x2_0000_0401, 0x100 + i as u32, 0);
                    let mut child = Object {
                        attrs: Attrs {
                            mode: if dir { S_IFDIR } else { S_IFREG } | (cperm & 0o7777),
                            uid: cuid,
                            gid: cuid,
                            nlink: 1,
                            ..Default::default()
                        },
                        ..Default::default()
                    };
                    if cflags {
                        child.attrs.flags = LUSTRE_APPEND_FL;
                    }
                    if dir && nonempty {
                        child.entries.insert(
                            b"x".to_vec(),
                            super::store::Entry {
                                fid: LuFid::new(0x2_0000_0402, 1, 0),
                                ftype: S_IFREG,
                            },
                        );
                    }
                    s.insert(fid, child);
                    s.link(PARENT, name, fid);
                }
                s
            },
        )
}

/// A caller over the id pool, sometimes with capabilities, sometimes with many groups.
pub fn creds() -> impl Strategy<Value = Creds> {
    (
        id(),
        id(),
        prop::collection::vec(id(), 0..4),
        prop::sample::select(vec![
            0u64,
            0,
            0,
            1 << 1,
            1 << 2,
            1 << 3,
            1 << 4,
            (1 << 1) | (1 << 4),
        ]),
        prop::sample::select(vec![0o022u32, 0o002, 0o077, 0o000]),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(fsuid, fsgid, mut groups, cap, umask, many)| {
            groups.sort_unstable();
            groups.dedup();
            if many {
                // More than an intent can carry: the request is cut and marked partial.
                groups.extend(1000..1130);
            }
            Creds {
                fsuid,
                fsgid,
                groups,
                cap,
                umask,
                groups_partial: false,
            }
        })
}

/// An operation on [`PARENT`]: create (every file type, names that exist or not, invalid names),
/// unlink or rename.
pub fn op() -> impl Strategy<Value = Op> {
    let name = prop::sample::select(vec![&b"a"[..], b"b", b"d", b"new", b"new", b"..", b"x/y"])
        .prop_map(<[u8]>::to_vec);
    let existing = prop::sample::select(vec![&b"a"[..], b"a", b"b", b"d", b"new", b".."])
        .prop_map(<[u8]>::to_vec);
    let ftype = prop::sample::select(vec![S_IFDIR, S_IFDIR, S_IFREG, S_IFREG, S_IFLNK, S_IFSOCK]);
    // Objects `store()` may hold: its first two children, the parent, the root, and one FID
    // no store has (a target or source that is gone).
    let object = prop::sample::select(vec![
        LuFid::new(0x2_0000_0401, 0x100, 0),
        LuFid::new(0x2_0000_0401, 0x101, 0),
        PARENT,
        LuFid::ROOT,
        LuFid::new(0x2_0000_0401, 0xdead, 0),
    ]);
    prop_oneof![
        6 => (name.clone(), ftype, 0u32..0o10000).prop_map(|(name, t, perm)| Op::Create { parent: PARENT, name, mode: t | perm }),
        2 => existing.clone().prop_map(|name| Op::Unlink { parent: PARENT, name }),
        2 => existing.clone().prop_map(|name| Op::Rename { parent: PARENT, name }),
        1 => (existing, object.clone()).prop_map(|(name, target)| Op::RenameOver { parent: PARENT, name, target }),
        1 => object.prop_map(|source| Op::RenameDir { source }),
    ]
}

/// Any fault of MODEL.md §3.
pub fn fault() -> impl Strategy<Value = Fault> {
    prop::sample::select(Fault::all())
}

/// A whole scenario.
pub fn scenario() -> impl Strategy<Value = Scenario> {
    (store(), creds(), op()).prop_map(|(store, creds, op)| Scenario { store, creds, op })
}

/// Every result, for tests that want one.
pub fn mli_buf() -> impl Strategy<Value = MliBuf> {
    prop::sample::select(MliBuf::ALL.to_vec())
}
