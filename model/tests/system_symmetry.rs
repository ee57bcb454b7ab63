//! Symmetry reduction of the concurrent model (docs/spec/MODEL.md §6.6): interchangeable
//! coordinators are merged soundly (the same verdicts, fewer states) and the representative is
//! the same for every member of a class.
#![cfg(feature = "system")]

use lustre_dne_intent_model::system::symmetry::{Renaming, representative};
use lustre_dne_intent_model::system::{
    Mutation, Scope, Strategy, SysState, SystemModel, check, scope,
};
use stateright::Model;

/// Two interchangeable coordinators (MDT0002's caller of `three-one`) creating the same name, with
/// one loss and one reconnect: `small` made symmetric.
fn pair() -> Scope {
    scope("pair").expect("scope pair")
}

#[test]
fn the_interchangeable_coordinators_are_found() {
    let sc = scope("three-one").expect("scope three-one");
    assert_eq!(
        (0..3).map(|c| sc.class_of(c)).collect::<Vec<_>>(),
        [0, 1, 1]
    );
    assert!(sc.symmetric());
    assert!(!scope("small").expect("small").symmetric());
}

#[test]
fn symmetry_keeps_every_verdict_with_fewer_states() {
    let full = check(SystemModel::new(pair(), Mutation::None), Strategy::Dfs, 1);
    let reduced = check(
        SystemModel::new(pair(), Mutation::None),
        Strategy::Symmetric,
        1,
    );
    let verdicts = |o: &lustre_dne_intent_model::system::CheckOutcome| {
        o.properties
            .iter()
            .map(|p| (p.name, p.holds))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&full), verdicts(&reduced));
    assert!(full.all_hold(), "{:?}", verdicts(&full));
    assert_eq!((full.unique_states, reduced.unique_states), (3_165, 1_587));
}

fn reachable(m: &SystemModel, limit: usize) -> Vec<SysState> {
    let mut seen = std::collections::HashSet::new();
    let mut queue: std::collections::VecDeque<SysState> = m.init_states().into();
    let mut out = Vec::new();
    let mut actions = Vec::new();
    while let Some(s) = queue.pop_front() {
        if out.len() >= limit || !seen.insert(s.clone()) {
            continue;
        }
        m.actions(&s, &mut actions);
        for a in actions.drain(..) {
            queue.extend(m.next_state(&s, a));
        }
        out.push(s);
    }
    out
}

/// Swapping the two interchangeable coordinators of a state (their slots, their messages,
/// their locks and the FIDs they allocate) leaves its representative unchanged.
#[test]
fn a_state_and_its_swap_have_one_representative() {
    let m = SystemModel::new(scope("three-one").expect("three-one"), Mutation::None);
    let swap = Renaming::new(vec![0, 2, 1]).expect("a permutation");
    let states = reachable(&m, 3_000);
    assert_eq!(states.len(), 3_000);
    let mut moved = 0;
    for s in &states {
        let t = swap.state(s);
        if t != *s {
            moved += 1;
        }
        assert_eq!(swap.state(&t), *s, "a swap undone");
        assert_eq!(representative(s), representative(&t));
    }
    assert!(moved > 2_000, "{moved} states changed by the swap");
}

/// The renaming reads and writes messages through the codec: with the identity permutation
/// every message of `three-one` (requests and replies of both byte orders, with and without
/// results) comes back byte for byte, so that a swap changes nothing but the FIDs it renames.
#[test]
fn every_message_survives_the_typed_renaming() {
    use lustre_dne_intent_model::system::net::Msg;
    let m = SystemModel::new(scope("three-one").expect("three-one"), Mutation::None);
    let identity = Renaming::new(vec![0, 1, 2]).expect("a permutation");
    let (mut seen, mut intents) = (0, 0);
    for s in reachable(&m, 3_000) {
        let queued = s.parent.queued.iter().map(|q| &q.request);
        let net = s.net.iter().filter_map(|e| match &e.msg {
            Msg::Enqueue { bytes, .. } | Msg::EnqueueReply { bytes, .. } => Some(bytes),
            _ => None,
        });
        for b in queued.chain(net) {
            assert_eq!(identity.bytes(b), *b);
            seen += 1;
            intents += usize::from(b.len() > 400);
        }
    }
    assert!(
        seen > 1_000 && intents > 50,
        "{seen} messages, {intents} with an intent"
    );
}
