//! The reference model under property tests: random stores, callers, operations and faults,
//! every invariant of MODEL.md §4 checked on each; and deliberately broken coordinators that the
//! checker must catch, with the right invariant named.

use lustre_dne_intent::mode::{S_IFDIR, S_IFREG};
use lustre_dne_intent_model::strategies::{self, PARENT};
use lustre_dne_intent_model::*;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 2000, ..ProptestConfig::default() })]

    /// Every invariant holds for every scenario and fault (10,000 cases by default).
    #[test]
    fn every_invariant_holds(sc in strategies::scenario(), fault in strategies::fault()) {
        if let Err(v) = check(&sc, fault) {
            prop_assert!(false, "{v}\nfault {fault:?}\nscenario {sc:#?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases() / 10, max_shrink_iters: 2000, ..ProptestConfig::default() })]

    /// More of the renames onto an existing target and of a remote directory (the strategies
    /// draw them too, from a fixed list of FIDs), here with any object the store holds: every
    /// invariant holds under every fault.
    #[test]
    fn the_other_renames_hold_every_invariant(
        sc in strategies::scenario(),
        fault in strategies::fault(),
        pick in 0usize..4,
    ) {
        let mut sc = sc;
        let fids: Vec<_> = sc.store.objects.keys().copied().collect();
        let fid = fids[pick % fids.len()];
        sc.op = match sc.op.clone() {
            Op::Rename { parent, name } | Op::Unlink { parent, name } if pick % 2 == 0 => {
                Op::RenameOver { parent, name, target: fid }
            }
            _ => Op::RenameDir { source: fid },
        };
        if let Err(v) = check(&sc, fault) {
            prop_assert!(false, "{v}\nfault {fault:?}\nscenario {sc:#?}");
        }
    }
}

/// A fixed scenario in which a complete reply is used: mkdir in a parent the caller may write.
fn mkdir_scenario() -> Scenario {
    let mut store = Store::default();
    store.insert(
        lustre_dne_intent::wire::LuFid::ROOT,
        Object {
            attrs: Attrs {
                mode: S_IFDIR | 0o755,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    store.insert(
        PARENT,
        Object {
            attrs: Attrs {
                mode: S_IFDIR | 0o2775,
                uid: 0,
                gid: 600,
                projid: 7,
                ..Default::default()
            },
            xattrs: Xattrs {
                pin: Some(b"[pool: fast]".to_vec().into()),
                lov: Some(strategies::lov_bytes(2)),
                dmv: Some(strategies::dmv_bytes(3, 0)),
                ..Default::default()
            },
            ..Default::default()
        },
    );
    Scenario {
        store,
        creds: Creds {
            fsuid: 500,
            fsgid: 500,
            groups: vec![600],
            umask: 0o022,
            ..Default::default()
        },
        op: Op::Create {
            parent: PARENT,
            name: b"new".to_vec(),
            mode: S_IFDIR | 0o755,
        },
    }
}

/// A scenario whose only permission comes from a group the intent cannot see: the handler's
/// verdict is advisory and wrong (mode 0707: group members are denied, others allowed).
fn group_trap_scenario() -> Scenario {
    let mut sc = mkdir_scenario();
    if let Some(p) = sc.store.objects.get_mut(&PARENT) {
        p.attrs.mode = S_IFDIR | 0o707;
    }
    sc.creds.groups = vec![100, 600];
    sc
}

#[test]
fn the_fixed_scenarios_pass_every_fault() {
    for sc in [mkdir_scenario(), group_trap_scenario()] {
        for f in Fault::all() {
            check(&sc, f).unwrap_or_else(|v| panic!("{f:?}: {v}"));
        }
    }
    let r = check(&mkdir_scenario(), Fault::None).expect("holds");
    assert!(
        matches!(r.intent.0, Outcome::Created(ref c) if c.gid == 600 && c.mode & 0o2000 != 0),
        "{:?}",
        r.intent.0
    );
    assert!(
        r.intent.1.reads.is_empty(),
        "a complete reply costs no read: {:?}",
        r.intent.1.reads
    );
    assert!(!r.standard.1.reads.is_empty());
    // mode 0707 and the caller in group 600: denied, whatever the intent saw.
    let r = check(&group_trap_scenario(), Fault::PartialGroups(1)).expect("holds");
    assert_eq!(r.standard.0, Outcome::Error(-13));
    assert!(
        r.intent.1.advisory_reply,
        "the partial-groups verdict came back advisory"
    );
}

fn caught(sc: &Scenario, fault: Fault, m: Mutations) -> Invariant {
    match check_with(sc, fault, m) {
        Ok(_) => panic!("{m:?} under {fault:?} was not caught"),
        Err(v) => v.invariant,
    }
}

#[test]
fn broken_coordinators_are_caught_with_the_right_invariant() {
    let m = Mutations::default();
    // Trusting an advisory answer: with partial groups, a grant the full groups deny.
    let inv = caught(
        &group_trap_scenario(),
        Fault::PartialGroups(0),
        Mutations {
            trust_advisory: true,
            ..m
        },
    );
    assert_eq!(inv, Invariant::Security);
    assert_eq!(
        caught(
            &mkdir_scenario(),
            Fault::None,
            Mutations {
                seed_before_invalidation: true,
                ..m
            }
        ),
        Invariant::Cache
    );
    assert_eq!(
        caught(
            &mkdir_scenario(),
            Fault::Unknown(lustre_dne_intent::intent::MliBuf::Pin),
            Mutations {
                seed_unknown_as_absent: true,
                ..m
            }
        ),
        Invariant::Cache
    );
    assert_eq!(
        caught(
            &mkdir_scenario(),
            Fault::None,
            Mutations {
                double_release: true,
                ..m
            }
        ),
        Invariant::NoLockLeak
    );
    assert_eq!(
        caught(
            &mkdir_scenario(),
            Fault::PeerWithoutFlag,
            Mutations {
                ignore_gating: true,
                ..m
            }
        ),
        Invariant::Gating
    );
    assert_eq!(
        caught(
            &mkdir_scenario(),
            Fault::Replay,
            Mutations {
                ignore_gating: true,
                ..m
            }
        ),
        Invariant::Gating
    );
    assert_eq!(
        caught(
            &mkdir_scenario(),
            Fault::None,
            Mutations {
                ignore_results: true,
                ..m
            }
        ),
        Invariant::Cost
    );
}

#[test]
fn unlink_and_rename_use_the_reply() {
    let mut sc = mkdir_scenario();
    let child = lustre_dne_intent::wire::LuFid::new(0x2_0000_0401, 9, 0);
    sc.store.insert(
        child,
        Object {
            attrs: Attrs {
                mode: S_IFREG | 0o644,
                uid: 500,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    sc.store.link(PARENT, b"victim", child);
    sc.op = Op::Unlink {
        parent: PARENT,
        name: b"victim".to_vec(),
    };
    let r = check(&sc, Fault::None).expect("holds");
    assert_eq!(r.intent.0, Outcome::Removed { victim: child });
    assert!(r.intent.1.reads.is_empty(), "{:?}", r.intent.1.reads);
    assert_eq!(
        r.standard.1.reads.len(),
        2,
        "attr_get + lookup: {:?}",
        r.standard.1.reads
    );
    sc.op = Op::Rename {
        parent: PARENT,
        name: b"victim".to_vec(),
    };
    let r = check(&sc, Fault::None).expect("holds");
    assert!(matches!(r.intent.0, Outcome::RenameReady { source, .. } if source == child));
    // After the locks, only the source's linkEA is read: no result covers it.
    assert_eq!(
        r.intent.1.reads,
        [Item::LinkEa(child)],
        "{:?}",
        r.intent.1.reads
    );
    // The parent's attributes, lookup and LMV, its linkEA again, the source's attributes and
    // its linkEA.
    assert_eq!(r.standard.1.reads.len(), 6, "{:?}", r.standard.1.reads);
    let r = check(
        &sc,
        Fault::Unknown(lustre_dne_intent::intent::MliBuf::Pattr),
    )
    .expect("holds");
    assert_eq!(
        r.intent.1.reads,
        [Item::Attrs(PARENT), Item::Attrs(child), Item::LinkEa(child)],
        "each unknown PATTR costs one read"
    );
}

/// A downstream handler plugged in through `IntentHandler`: one that forwards to the reference
/// passes every fault and is called; one that fails valid intents is caught as a lock leak.
#[test]
fn plugged_handlers_are_checked() {
    use lustre_dne_intent::wire::LustreHandle;
    use std::cell::Cell;

    struct Counting(Cell<usize>);
    impl IntentHandler for Counting {
        fn handle(
            &self,
            store: &Store,
            request: &[u8],
            from_mdt: bool,
            lock_handle: LustreHandle,
            faults: HandlerFaults,
        ) -> Result<bytes::Bytes, i32> {
            self.0.set(self.0.get() + 1);
            ReferenceHandler.handle(store, request, from_mdt, lock_handle, faults)
        }
    }
    struct Refusing;
    impl IntentHandler for Refusing {
        fn handle(
            &self,
            _: &Store,
            _: &[u8],
            _: bool,
            _: LustreHandle,
            _: HandlerFaults,
        ) -> Result<bytes::Bytes, i32> {
            Err(-71)
        }
    }

    let sc = mkdir_scenario();
    let counting = Counting(Cell::new(0));
    for f in Fault::all() {
        check_with_handler(&sc, f, &counting).unwrap_or_else(|v| panic!("{f:?}: {v}"));
    }
    assert!(counting.0.get() > 0, "the plugged handler was never called");
    let v = check_with_handler(&sc, Fault::None, &Refusing).expect_err("caught");
    assert_eq!(v.invariant, Invariant::NoLockLeak, "{v}");
}
