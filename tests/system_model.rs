//! The concurrent model (MODEL.md §6): the design holds in the CI scopes with pinned state
//! counts, and every mutation is caught.
#![cfg(feature = "system")]

use lustre_dne_intent::model::system::{Mutation, Strategy, SystemModel, check, scope, scopes};

fn run(name: &str, m: Mutation) -> lustre_dne_intent::model::system::CheckOutcome {
    let model = SystemModel::new(scope(name).expect("scope"), m);
    check(model, Strategy::Bfs, 1)
}

#[test]
fn explore_print() {
    for name in ["small", "default", "rename", "recovery", "wide"] {
        let o = run(name, Mutation::None);
        eprintln!("{name}: {} unique, {} total, depth {}, {:.1}s", o.unique_states, o.states, o.max_depth, o.seconds);
        for p in &o.properties {
            eprintln!("  {} {} {}", p.kind, p.name, p.holds);
            if !p.holds {
                eprintln!("    note: {:?}", p.note);
                for l in &p.trace { eprintln!("    {l}"); }
            }
        }
    }
    for m in Mutation::ALL {
        for name in ["small", "default", "rename", "recovery"] {
            let o = run(name, m);
            let v: Vec<_> = o.violated().map(|p| p.name).collect();
            let first = o.violated().find(|p| p.kind != "sometimes");
            eprintln!("{} in {name}: {} states, violated {:?} len {:?} note {:?}", m.name(), o.unique_states, v, first.map(|p| p.trace.len()), first.and_then(|p| p.note.clone()));
        }
    }
    let _ = scopes::scope_for(Mutation::None);
}
