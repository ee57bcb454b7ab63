//! The model's errors as a downstream program meets them: a broken invariant is a
//! `std::error::Error` that `?` takes and that prints as one message.

use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent_model::{self as model, Fault, Invariant, Mutations, Violation};
use std::error::Error;

const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);

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
    // One message and no cause behind it, so a reporter that walks `source()` prints it once.
    assert!(e.source().is_none(), "{:?}", e.source());
    let msg = e.to_string();
    assert!(
        msg.starts_with("invariant 2 (no lock leak) broken: "),
        "{msg}"
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
