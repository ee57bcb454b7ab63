//! The serde form of the model (feature `serde`): scenarios, faults, outcomes and traces survive
//! JSON, and the forms a tool writes by hand read back.
#![cfg(feature = "serde")]

use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent_model::strategies;
use lustre_dne_intent_model::*;
use proptest::prelude::*;
use serde_json::json;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

fn round_trip<T>(v: &T) -> T
where
    T: serde::Serialize + serde::de::DeserializeOwned,
{
    let s = serde_json::to_string(v).unwrap();
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}\n{s}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    /// A scenario, its fault, and both runs' outcomes and traces read back equal.
    #[test]
    fn scenarios_outcomes_and_traces_round_trip(
        sc in strategies::scenario(),
        fault in strategies::fault(),
        cap in any::<u64>(),
    ) {
        let mut sc = sc;
        sc.creds.cap |= cap & (1 << 63);
        prop_assert_eq!(&round_trip(&sc), &sc);
        prop_assert_eq!(round_trip(&fault), fault);
        let (outcome, trace) = run_standard(&sc.store, &sc.creds, &sc.op);
        prop_assert_eq!(&round_trip(&outcome), &outcome);
        prop_assert_eq!(&round_trip(&trace), &trace);
        let (outcome, trace) = run_intent(&sc.store, &sc.creds, &sc.op, fault, Mutations::default());
        prop_assert_eq!(&round_trip(&outcome), &outcome);
        prop_assert_eq!(&round_trip(&trace), &trace);
    }
}

#[test]
fn faults_are_the_tools_names() {
    assert_eq!(
        serde_json::to_value(Fault::PeerWithoutFlag).unwrap(),
        "peer-without-flag"
    );
    assert_eq!(
        serde_json::to_value(Fault::Truncated(lustre_dne_intent::intent::MliBuf::DefLmv)).unwrap(),
        "truncated-def-lmv"
    );
    let f: Fault = serde_json::from_value(json!("partial-groups-77")).unwrap();
    assert_eq!(f, Fault::PartialGroups(77));
    let e = serde_json::from_value::<Fault>(json!("partial-groups-300")).unwrap_err();
    assert!(e.to_string().contains("Fault"), "{e}");
    for f in Fault::all() {
        assert_eq!(round_trip(&f), f);
    }
}

#[test]
fn a_hand_written_scenario_reads_and_refuses_unknown_fields() {
    let text = json!({
        "store": { "objects": {
            "[0x200000007:0x1:0x0]": {
                "attrs": { "mode": 16877, "uid": 0, "gid": 0, "projid": 0, "flags": 0,
                           "nlink": 3, "size": "4096", "mtime": "-1", "ctime": 0 },
                "xattrs": { "access_acl": null, "default_acl": null, "pin": null,
                            "lmv": null, "lov": "d00bd10b", "dmv": null },
                "dead": false,
                "entries": [ { "name": "sub", "fid": "[0x200000401:0x1:0x0]", "ftype": 16384 },
                             { "name": { "hex": "ff" }, "fid": "[0x200000401:0x2:0x0]", "ftype": 0 } ]
            }
        }},
        "creds": { "fsuid": 500, "fsgid": 500, "groups": [100], "cap": "0x8",
                   "umask": 18, "groups_partial": false },
        "op": { "create": { "parent": "[0x200000007:0x1:0x0]", "name": "newdir", "mode": 16877 } }
    });
    let sc: Scenario = serde_json::from_value(text.clone()).unwrap();
    let root = sc.store.get(LuFid::ROOT).unwrap();
    assert_eq!(root.attrs.size, 4096);
    assert_eq!(root.attrs.mtime, -1);
    assert_eq!(
        root.xattrs.lov.as_deref(),
        Some(&[0xd0, 0x0b, 0xd1, 0x0b][..])
    );
    assert_eq!(root.entries.len(), 2);
    assert_eq!(
        root.entries[&b"\xff"[..]].fid,
        LuFid::new(0x2_0000_0401, 2, 0)
    );
    assert_eq!(sc.creds.cap, 8);
    assert_eq!(
        sc.op,
        Op::Create {
            parent: LuFid::ROOT,
            name: b"newdir".to_vec(),
            mode: 16877
        }
    );
    // And it writes back what it read (numbers in, strings out).
    let out = serde_json::to_value(&sc).unwrap();
    assert_eq!(
        out["store"]["objects"]["[0x200000007:0x1:0x0]"]["attrs"]["ctime"],
        "0"
    );
    assert_eq!(out["creds"]["cap"], "0x0000000000000008");

    let mut bad = text.clone();
    bad["creds"]["euid"] = json!(0);
    let s = bad.to_string();
    let e = serde_path_to_error::deserialize::<_, Scenario>(
        &mut serde_json::Deserializer::from_str(&s),
    )
    .unwrap_err();
    assert_eq!(e.path().to_string(), "creds.euid");

    let mut dup = text;
    dup["store"]["objects"]["[0x200000007:0x1:0x0]"]["entries"][1]["name"] = json!("sub");
    assert!(serde_json::from_value::<Scenario>(dup).is_err());
}

#[test]
fn violations_invariants_and_survey_rows_are_data() {
    let v = Violation {
        invariant: Invariant::NoLockLeak,
        why: "lock 2 released twice".into(),
    };
    let j = serde_json::to_value(&v).unwrap();
    assert_eq!(
        j,
        json!({"invariant": "no-lock-leak", "why": "lock 2 released twice"})
    );
    assert_eq!(serde_json::from_value::<Violation>(j).unwrap(), v);
    for row in survey::DesignOp::ALL.iter().map(|o| survey::Row {
        operation: o.name(),
        reads_before: 1,
        reads_after: 0,
        out_update_before: 2,
        out_update_after: 2,
        enqueues_before: 1,
        enqueues_after: 1,
    }) {
        assert_eq!(round_trip(&row), row);
    }
    let bad = json!({"operation": "chmod", "reads_before": 0, "reads_after": 0,
                     "out_update_before": 0, "out_update_after": 0,
                     "enqueues_before": 0, "enqueues_after": 0});
    assert!(serde_json::from_value::<survey::Row>(bad).is_err());
    // The design's operations and figures are data both ways.
    for op in survey::DesignOp::ALL {
        assert_eq!(round_trip(&op), op);
        for f in op.figures() {
            assert_eq!(round_trip(f), *f);
        }
    }
    assert_eq!(
        serde_json::to_value(survey::DesignOp::FileRenameOverTarget).unwrap(),
        json!("file-rename-over-target")
    );
    assert_eq!(
        serde_json::to_value(survey::DesignOp::Mkdir.figures()[1]).unwrap(),
        json!({"source": "prototype", "reads_before": 5, "reads_after": 1,
               "out_update_before": 7, "out_update_after": 3,
               "enqueues_before": 2, "enqueues_after": 2})
    );
    // A run's trace, with its labelled reads and its transaction, reads back as it was.
    let a = survey::account(survey::DesignOp::FileRename, Fault::None).unwrap();
    let t = &a.report.standard.1;
    assert_eq!(round_trip(t), *t);
    let j = serde_json::to_value(&t.sync_reads[0]).unwrap();
    assert_eq!(
        j,
        json!({"item": {"link_ea": "[0x200000401:0x1:0x0]"}, "label": "before_lock"})
    );
}

/// A hand-written scenario may leave out what has a natural default: attributes other than the
/// mode, xattrs (absent), `dead`, an entry's `ftype`, the caller's groups, capabilities, umask
/// and `groups_partial`.
#[test]
fn a_scenario_leaves_out_what_defaults() {
    let text = json!({
        "store": { "objects": {
            "[0x200000007:0x1:0x0]": {
                "attrs": { "mode": 16877 },
                "xattrs": { "lov": "d00bd10b" },
                "entries": [ { "name": "sub", "fid": "[0x200000401:0x1:0x0]" } ]
            }
        }},
        "creds": { "fsuid": 500, "fsgid": 500 },
        "op": { "create": { "parent": "[0x200000007:0x1:0x0]", "name": "newdir", "mode": 16877 } }
    });
    let sc: Scenario = serde_json::from_value(text).unwrap();
    let root = sc.store.get(LuFid::ROOT).unwrap();
    assert_eq!(root.attrs.mode, 16877);
    assert_eq!(
        (root.attrs.nlink, root.attrs.size, root.attrs.mtime),
        (0, 0, 0)
    );
    assert_eq!(root.xattrs.default_acl, None);
    assert!(root.xattrs.lov.is_some());
    assert!(!root.dead);
    assert_eq!(root.entries[&b"sub"[..]].ftype, 0);
    assert_eq!(sc.creds.groups, Vec::<u32>::new());
    assert_eq!(
        (sc.creds.cap, sc.creds.umask, sc.creds.groups_partial),
        (0, 0, false)
    );
    // Unknown fields are still refused.
    let bad = json!({ "mode": 1, "nlinks": 2 });
    assert!(serde_json::from_value::<Attrs>(bad).is_err());
}
