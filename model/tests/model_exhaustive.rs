//! Exhaustive small-scope exploration: every combination of parent mode class, SGID,
//! PROJINHERIT, default ACL (none, without MASK, with MASK and a named group), caller class
//! (owner, group member, other), operation and fault — complete and partial groups among the
//! faults — and every invariant of MODEL.md §4 on each.

use lustre_dne_intent::mode::LUSTRE_PROJINHERIT_FL;
use lustre_dne_intent::mode::{S_IFDIR, S_IFREG, S_ISGID};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent_model::store::{dmv_bytes, lov_bytes};
use lustre_dne_intent_model::*;

/// The remote parent (the one the strategies of the `proptest` feature use; this test runs
/// without that feature).
const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);
use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag};

fn acl(entries: &[(AclTag, u16, u32)]) -> Vec<u8> {
    Acl::new(
        entries
            .iter()
            .map(|&(t, p, id)| AclEntry::new(t, AclPerm(p), id))
            .collect(),
    )
    .to_bytes()
    .expect("valid ACL")
    .to_vec()
}

#[test]
fn every_small_scenario_under_every_fault() {
    let default_acls: [Option<Vec<u8>>; 3] = [
        None,
        Some(acl(&[
            (AclTag::USER_OBJ, 7, 0),
            (AclTag::GROUP_OBJ, 5, 0),
            (AclTag::OTHER, 5, 0),
        ])),
        Some(acl(&[
            (AclTag::USER_OBJ, 7, 0),
            (AclTag::GROUP_OBJ, 5, 0),
            (AclTag::GROUP, 7, 600),
            (AclTag::MASK, 7, 0),
            (AclTag::OTHER, 0, 0),
        ])),
    ];
    // (uid, fsgid, groups): the owner, a member of the parent's group 600, and another user.
    let callers = [
        (100u32, 100u32, vec![]),
        (500, 500, vec![600u32]),
        (500, 500, vec![700]),
    ];
    let child = LuFid::new(0x2_0000_0401, 9, 0);
    let ops = [
        Op::Create {
            parent: PARENT,
            name: b"new".to_vec(),
            mode: S_IFDIR | 0o755,
        },
        Op::Create {
            parent: PARENT,
            name: b"new".to_vec(),
            mode: S_IFREG | 0o2755,
        },
        Op::Create {
            parent: PARENT,
            name: b"a".to_vec(),
            mode: S_IFREG | 0o644,
        },
        Op::Unlink {
            parent: PARENT,
            name: b"a".to_vec(),
        },
        Op::Rename {
            parent: PARENT,
            name: b"a".to_vec(),
        },
    ];
    let faults = Fault::all();
    let (mut runs, mut created, mut denied, mut advisory) = (0usize, 0usize, 0usize, 0usize);
    for perm in [0o755u32, 0o775, 0o707, 0o1777, 0o700] {
        for sgid in [0, S_ISGID] {
            for proj in [0, LUSTRE_PROJINHERIT_FL] {
                for def in &default_acls {
                    let mut store = Store::default();
                    store.insert(
                        LuFid::ROOT,
                        Object {
                            attrs: Attrs {
                                mode: S_IFDIR | 0o755,
                                ..Default::default()
                            },
                            xattrs: Xattrs {
                                lov: Some(lov_bytes(1)),
                                ..Default::default()
                            },
                            ..Default::default()
                        },
                    );
                    store.insert(
                        PARENT,
                        Object {
                            attrs: Attrs {
                                mode: S_IFDIR | perm | sgid,
                                uid: 100,
                                gid: 600,
                                projid: 42,
                                flags: proj,
                                nlink: 3,
                                ..Default::default()
                            },
                            xattrs: Xattrs {
                                default_acl: def.clone().map(Into::into),
                                pin: Some(b"[pool: fast]".to_vec().into()),
                                lov: Some(lov_bytes(2)),
                                dmv: Some(dmv_bytes(2, 0)),
                                ..Default::default()
                            },
                            ..Default::default()
                        },
                    );
                    store.insert(
                        child,
                        Object {
                            attrs: Attrs {
                                mode: S_IFREG | 0o644,
                                uid: 500,
                                gid: 500,
                                nlink: 1,
                                ..Default::default()
                            },
                            ..Default::default()
                        },
                    );
                    store.link(PARENT, b"a", child);
                    for (uid, gid, groups) in &callers {
                        let creds = Creds {
                            fsuid: *uid,
                            fsgid: *gid,
                            groups: groups.clone(),
                            cap: 0,
                            umask: 0o022,
                            groups_partial: false,
                        };
                        for op in &ops {
                            let sc = Scenario {
                                store: store.clone(),
                                creds: creds.clone(),
                                op: op.clone(),
                            };
                            for &f in &faults {
                                let r = check(&sc, f).unwrap_or_else(|v| panic!("{v}\nfault {f:?}\nperm {perm:#o} sgid {sgid} proj {proj} acl {def:?}\ncaller {creds:?}\nop {op:?}"));
                                runs += 1;
                                created += usize::from(matches!(r.standard.0, Outcome::Created(_)));
                                denied += usize::from(r.standard.0 == Outcome::Error(-13));
                                advisory += usize::from(r.intent.1.advisory_reply);
                            }
                        }
                    }
                }
            }
        }
    }
    // The domain is large enough to reach every branch that matters.
    assert_eq!(runs, 5 * 2 * 2 * 3 * 3 * 5 * faults.len());
    assert!(created > runs / 10, "{created} creates of {runs}");
    assert!(denied > runs / 20, "{denied} denials of {runs}");
    assert!(advisory > 0, "partial groups produced advisory answers");
}
