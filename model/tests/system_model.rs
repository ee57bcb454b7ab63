//! The concurrent model (docs/spec/MODEL.md §6): the design holds in the CI scopes, with their
//! state counts pinned, and every mutation is caught with a shortest counterexample.
#![cfg(feature = "system")]

use lustre_dne_intent_model::system::props::name;
use lustre_dne_intent_model::system::report::find_violation;
use lustre_dne_intent_model::system::{
    Mutation, Strategy, SystemModel, check, scope, scopes::scope_for,
};

fn model(scope_name: &str, m: Mutation) -> SystemModel {
    SystemModel::new(scope(scope_name).expect("scope"), m)
}

fn holds_everywhere(scope_name: &str, unique: usize) {
    let o = check(model(scope_name, Mutation::None), Strategy::Bfs, 1);
    let broken: Vec<_> = o.violated().map(|p| (p.name, p.note.clone())).collect();
    assert!(broken.is_empty(), "{scope_name}: {broken:?}");
    // Every property was judged: 8 invariants and liveness properties, and each interesting
    // path was reached.
    assert!(
        o.properties
            .iter()
            .filter(|p| p.kind == "sometimes")
            .count()
            >= 5
    );
    assert_eq!(o.unique_states, unique, "{scope_name}: distinct states");
}

#[test]
fn the_design_holds_in_the_small_scope() {
    holds_everywhere("small", 3_149);
}

#[test]
fn the_design_holds_in_the_rename_scope() {
    holds_everywhere("rename", 3_018);
}

/// The default scope: since the state reductions of MODEL.md §6.6 it is small enough for a
/// debug build.
#[test]
fn the_design_holds_in_the_default_scope() {
    holds_everywhere("default", 7_367);
}

#[test]
fn every_mutation_is_caught_by_the_property_it_breaks() {
    let expected = [
        (Mutation::SeedBeforeGrant, name::FRESH),
        (Mutation::KeepSeededAfterCancel, name::FRESH),
        (Mutation::ReleaseBeforeTxn, name::FRESH),
        (Mutation::NoInvalidateAfterAccess, name::FRESH),
        (Mutation::TrustAdvisory, name::FRESH),
        (Mutation::FailedPrepFailsEnqueue, name::FRESH),
        (Mutation::IntentsAfterReconnect, name::GATING),
        (Mutation::ResendSecondLock, name::ONE_LOCK),
        (Mutation::PattrWrongOrder, name::FRESH),
    ];
    assert_eq!(expected.len(), Mutation::ALL.len());
    for (m, want) in expected {
        let found = find_violation(&model(scope_for(m), m));
        let (got, trace, note) = found.unwrap_or_else(|| panic!("{} not caught", m.name()));
        assert_eq!(got, want, "{}: {note:?}", m.name());
        assert!(!trace.is_empty() && note.is_some(), "{}", m.name());
        eprintln!(
            "{}: {} events; {}",
            m.name(),
            trace.len(),
            note.unwrap_or_default()
        );
    }
}

/// The counterexample of the handler that prepares before the grant is the shortest one: no
/// fault is needed, only the race on the name lock.
#[test]
fn seed_before_grant_counterexample_is_the_race_on_the_name_lock() {
    let (p, trace, note) =
        find_violation(&model("small", Mutation::SeedBeforeGrant)).expect("caught");
    assert_eq!(p, name::FRESH);
    let text = trace.join("\n");
    assert!(text.contains("parent queues lock"), "{text}");
    assert!(
        !text.contains("lost:") && !text.contains("reconnects"),
        "{text}"
    );
    let note = note.unwrap_or_default();
    assert!(
        note.contains("MDT0002 decides `create a` → create"),
        "{note}"
    );
    assert!(note.contains("gives error -17"), "{note}");
    // 21 steps: both coordinators' locks, MDT0001's transaction and release, the grant.
    let steps = trace.iter().filter(|l| !l.starts_with("     ")).count();
    assert_eq!(steps, 21, "{text}");
}
