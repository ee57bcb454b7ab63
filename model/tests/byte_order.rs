//! The sequential model in both byte orders: a parent MDT that answers big-endian, a
//! coordinator that writes big-endian, and the mutation that reads PATTR in the wrong order.
//! The verdicts must not depend on the order (MODEL.md §3).

use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::errno::EPROTO;
use lustre_dne_intent::intent::ReplyView;
use lustre_dne_intent::mode::{S_IFDIR, S_IFREG};
use lustre_dne_intent::wire::{LuFid, LustreHandle};
use lustre_dne_intent_model::strategies::{self, PARENT};
use lustre_dne_intent_model::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// A parent MDT of byte order `.0`: the reference handler's answer, decoded and re-encoded by
/// the codec in that order (what a peer of that order sends, whatever the request's order).
struct Peer(Endian);

impl IntentHandler for Peer {
    fn handle(
        &self,
        store: &Store,
        request: &[u8],
        from_mdt: bool,
        lock_handle: LustreHandle,
        faults: HandlerFaults,
    ) -> Result<Bytes, i32> {
        let reply = ReferenceHandler.handle(store, request, from_mdt, lock_handle, faults)?;
        let view = ReplyView::parse(&reply).map_err(|_| -EPROTO)?;
        view.to_value().to_bytes(self.0).map_err(|_| -EPROTO)
    }
}

const BIG_PEER: Peer = Peer(Endian::Big);

fn dir(mode: u32, gid: u32) -> Object {
    Object {
        attrs: Attrs {
            mode: S_IFDIR | mode,
            gid,
            projid: 7,
            nlink: 2,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// `default:group:600:rwx` with the mask and the owner/other entries.
fn default_acl() -> Vec<u8> {
    use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag};
    Acl::new(vec![
        AclEntry::new(AclTag::USER_OBJ, AclPerm(7), 0),
        AclEntry::new(AclTag::GROUP_OBJ, AclPerm(5), 0),
        AclEntry::new(AclTag::GROUP, AclPerm(7), 600),
        AclEntry::new(AclTag::MASK, AclPerm(7), 0),
        AclEntry::new(AclTag::OTHER, AclPerm(5), 0),
    ])
    .to_bytes()
    .expect("a valid ACL")
    .to_vec()
}

/// mkdir, create, unlink and rename over a parent with every result present.
fn fixed_scenarios() -> Vec<Scenario> {
    let mut store = Store::default();
    store.insert(LuFid::ROOT, dir(0o755, 0));
    let mut parent = dir(0o2775, 600);
    parent.xattrs = Xattrs {
        default_acl: Some(default_acl().into()),
        pin: Some(b"[pool: fast]".to_vec().into()),
        lov: Some(strategies::lov_bytes(2)),
        dmv: Some(strategies::dmv_bytes(3, 0)),
        ..Default::default()
    };
    store.insert(PARENT, parent);
    let child = LuFid::new(0x2_0000_0401, 9, 0);
    store.insert(
        child,
        Object {
            attrs: Attrs {
                mode: S_IFREG | 0o644,
                uid: 500,
                nlink: 1,
                ..Default::default()
            },
            ..Default::default()
        },
    );
    store.link(PARENT, b"victim", child);
    let creds = Creds {
        fsuid: 500,
        fsgid: 500,
        groups: vec![600],
        umask: 0o022,
        ..Default::default()
    };
    let name = |n: &[u8]| n.to_vec();
    [
        Op::Create {
            parent: PARENT,
            name: name(b"new"),
            mode: S_IFDIR | 0o755,
        },
        Op::Create {
            parent: PARENT,
            name: name(b"file"),
            mode: S_IFREG | 0o2755,
        },
        Op::Create {
            parent: PARENT,
            name: name(b"victim"),
            mode: S_IFREG | 0o644,
        },
        Op::Unlink {
            parent: PARENT,
            name: name(b"victim"),
        },
        Op::Rename {
            parent: PARENT,
            name: name(b"victim"),
        },
    ]
    .into_iter()
    .map(|op| Scenario {
        store: store.clone(),
        creds: creds.clone(),
        op,
    })
    .collect()
}

/// `n` generated scenarios, the same on every run.
fn generated_scenarios(n: u32) -> Vec<Scenario> {
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(Config::with_cases(n), rng);
    let mut out = Vec::new();
    let strategy = strategies::scenario();
    for _ in 0..n {
        let tree = strategy.new_tree(&mut runner).expect("a scenario");
        out.push(proptest::strategy::ValueTree::current(&tree));
    }
    out
}

/// The acceptance harness: a big-endian parent MDT, every fault, a spread of scenarios: no
/// violation (before the coordinator read PATTR through the reply's order, 17 of the 23 faults
/// broke invariant 5 on the mkdir scenario).
#[test]
fn a_big_endian_peer_breaks_no_invariant() {
    let mut scenarios = fixed_scenarios();
    scenarios.extend(generated_scenarios(300));
    let mut runs = 0;
    for sc in &scenarios {
        for fault in Fault::all() {
            if let Err(v) = check_with_handler(sc, fault, &BIG_PEER) {
                panic!("{fault:?}: {v}\nscenario {sc:#?}");
            }
            runs += 1;
        }
    }
    assert_eq!(runs, 305 * 23);
}

/// A big-endian coordinator (its requests big-endian, so the reference handler answers
/// big-endian) against either peer: no violation either.
#[test]
fn a_big_endian_coordinator_breaks_no_invariant() {
    let mut big_requests = 0;
    for sc in fixed_scenarios() {
        for handler in [
            &ReferenceHandler as &dyn IntentHandler,
            &Peer(Endian::Little),
        ] {
            let setup = Setup {
                handler,
                order: Endian::Big,
                ..Setup::default()
            };
            for fault in Fault::all() {
                let r = check_with_setup(&sc, fault, &setup)
                    .unwrap_or_else(|v| panic!("{fault:?}: {v}\n{:?}", sc.op));
                // The handler really read a big-endian request (`lm_magic` at offset 8).
                if let Some(run) = r.intent.1.handler_runs.first() {
                    assert_eq!(&run.request[8..12], &[0x0b, 0xd0, 0x0b, 0xd3][..]);
                    big_requests += 1;
                }
            }
        }
    }
    // 5 scenarios, 2 peers, the 20 faults that send an intent (not peer-without-flag, replay or
    // peer-lost-flag).
    assert_eq!(big_requests, 5 * 2 * 20);
}

/// The mutation `pattr-wrong-order`: the coordinator decodes PATTR in its own order. Against a
/// peer of its own order nothing shows; against the other order the seeded attributes are not
/// the store's (invariant 5) under every fault whose reply carries PATTR.
#[test]
fn reading_pattr_in_the_wrong_order_is_caught() {
    let m = Mutations {
        pattr_wrong_order: true,
        ..Mutations::default()
    };
    let sc = &fixed_scenarios()[0];
    let mut caught = Vec::new();
    for fault in Fault::all() {
        let same = Setup {
            mutations: m,
            ..Setup::default()
        };
        check_with_setup(sc, fault, &same).unwrap_or_else(|v| panic!("{fault:?}: {v}"));
        let mixed = Setup {
            handler: &BIG_PEER,
            mutations: m,
            ..Setup::default()
        };
        if let Err(v) = check_with_setup(sc, fault, &mixed) {
            assert_eq!(v.invariant, Invariant::Cache, "{fault:?}: {v}");
            assert!(
                v.why
                    .contains("seeded with a value the store does not hold"),
                "{v}"
            );
            caught.push(fault.name());
        }
    }
    // Not caught only where no PATTR reaches the cache: no intent, no decodable reply, PATTR
    // unknown or not requested.
    let missed: Vec<String> = Fault::all()
        .into_iter()
        .map(|f| f.name())
        .filter(|f| !caught.contains(f))
        .collect();
    assert_eq!(
        missed,
        [
            "peer-without-flag",
            "peer-lost-flag",
            "replay",
            "empty",
            "malformed",
            "non-mdt-sender",
            "unknown-pattr",
            "truncated-pattr",
        ],
        "caught under {caught:?}"
    );
    // A big-endian coordinator that makes the same mistake against a little-endian peer.
    let be_on_le = Setup {
        handler: &Peer(Endian::Little),
        order: Endian::Big,
        mutations: m,
    };
    let v = check_with_setup(sc, Fault::None, &be_on_le).expect_err("caught");
    assert_eq!(v.invariant, Invariant::Cache, "{v}");
}

/// What a checked run comes to, without the bytes (which differ between the orders).
fn verdict(r: Result<Report, Violation>) -> Result<(Outcome, Outcome, Trace), Violation> {
    r.map(|r| {
        let mut t = r.intent.1;
        t.handler_runs.clear();
        (r.standard.0, r.intent.0, t)
    })
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_000)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), max_shrink_iters: 2000, ..ProptestConfig::default() })]

    /// Every scenario and fault gives the same verdict, outcome, reads and cache events whatever
    /// the byte order of the coordinator and of the peer (3,000 cases by default).
    #[test]
    fn verdicts_do_not_depend_on_the_byte_order(sc in strategies::scenario(), fault in strategies::fault()) {
        let reference = verdict(check(&sc, fault));
        for order in [Endian::Little, Endian::Big] {
            for peer in [Endian::Little, Endian::Big] {
                let setup = Setup { handler: &Peer(peer), order, ..Setup::default() };
                let got = verdict(check_with_setup(&sc, fault, &setup));
                prop_assert_eq!(&got, &reference, "coordinator {:?}, peer {:?}, {:?}", order, peer, fault);
            }
        }
    }
}
