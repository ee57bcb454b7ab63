//! The model's errors as a downstream program meets them: a broken invariant is a
//! `std::error::Error` that `?` takes and that prints its cause once.

use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent_model::{self as model, Fault, Invariant, Mutations, Violation};
use std::error::Error;

const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);

/// Every message an error reporter prints for `e`: its Display, then each `source()`.
fn chain(e: &dyn Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut next = e.source();
    while let Some(s) = next {
        out.push(s.to_string());
        next = s.source();
    }
    out
}

/// No message of the chain is printed again by a later one, nor contains a later one.
fn assert_each_cause_once(e: &dyn Error) -> Vec<String> {
    let msgs = chain(e);
    for (i, a) in msgs.iter().enumerate() {
        for b in &msgs[i + 1..] {
            assert!(!a.contains(b.as_str()), "{b:?} is printed twice: {msgs:?}");
        }
    }
    msgs
}

/// A downstream `fn f() -> Result<(), Box<dyn Error>>` applies `?` to `model::check`.
#[test]
fn a_violation_is_an_error() {
    fn run(m: Mutations) -> Result<(), Box<dyn Error>> {
        let sc = model_mkdir();
        model::check_with(&sc, Fault::None, m)?;
        Ok(())
    }
    run(Mutations::default()).expect("the reference coordinator holds");
    let e = run(Mutations {
        double_release: true,
        ..Default::default()
    })
    .unwrap_err();
    let v = e.downcast_ref::<Violation>().expect("a Violation");
    assert_eq!(v.invariant, Invariant::NoLockLeak);
    let msgs = assert_each_cause_once(e.as_ref());
    assert_eq!(msgs.len(), 1);
    assert!(
        msgs[0].starts_with("invariant 2 (no lock leak) broken: "),
        "{msgs:?}"
    );
}

fn model_mkdir() -> model::Scenario {
    use lustre_dne_intent::mode::S_IFDIR;
    use lustre_dne_intent_model::*;
    let dir = |mode| Object {
        attrs: Attrs {
            mode: S_IFDIR | mode,
            gid: 600,
            ..Default::default()
        },
        ..Default::default()
    };
    let mut store = Store::default();
    store.insert(lustre_dne_intent::wire::LuFid::ROOT, dir(0o755));
    store.insert(PARENT, dir(0o2775));
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
