//! Running a check and turning its discoveries into readable message sequences.

use super::engine::{Action, SysState, SystemModel};
use alloc::string::String;
use alloc::vec::Vec;
use stateright::{Checker, Expectation, Model};

/// How the state space is walked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strategy {
    /// Breadth first: shortest counterexamples (single-threaded).
    Bfs,
    /// Depth first: less memory.
    Dfs,
    /// Depth first with symmetry reduction: one state of each class of states that differ
    /// only by interchangeable coordinators ([`super::symmetry`]).
    Symmetric,
}

/// One property's verdict.
#[derive(Debug, Clone)]
pub struct PropertyResult {
    /// Its name.
    pub name: &'static str,
    /// `always`, `eventually` or `sometimes`.
    pub kind: &'static str,
    /// It holds (for `sometimes`: an example was found).
    pub holds: bool,
    /// For a violation: the counterexample, one line per event.
    pub trace: Vec<String>,
    /// For a violation: what went wrong, in words.
    pub note: Option<String>,
    /// The action-index path (for the explorer's `/.states/...`).
    pub path: Option<String>,
}

/// What a check found.
#[derive(Debug, Clone)]
pub struct CheckOutcome {
    /// Scope name.
    pub scope: &'static str,
    /// Mutation name.
    pub mutation: &'static str,
    /// Distinct states explored.
    pub unique_states: usize,
    /// States generated (with repeats).
    pub states: usize,
    /// Deepest path.
    pub max_depth: usize,
    /// Wall time in seconds.
    pub seconds: f64,
    /// How the space was walked.
    pub strategy: Strategy,
    /// Checker threads.
    pub threads: usize,
    /// Every property.
    pub properties: Vec<PropertyResult>,
}

impl CheckOutcome {
    /// True when every property holds.
    pub fn all_hold(&self) -> bool {
        self.properties.iter().all(|p| p.holds)
    }

    /// Distinct states a second.
    pub fn states_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.unique_states as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The violated properties.
    pub fn violated(&self) -> impl Iterator<Item = &PropertyResult> {
        self.properties.iter().filter(|p| !p.holds)
    }
}

/// The counterexample `path` as lines: each step's messages, grants, cache events and
/// decisions.
pub fn narrate(model: &SystemModel, path: Vec<(SysState, Option<Action>)>) -> Vec<String> {
    let mut out = Vec::new();
    for (n, (state, action)) in path.into_iter().enumerate() {
        let Some(a) = action else { continue };
        let mut log = super::engine::Log::on();
        let _ = model.step(&state, a, &mut log);
        let mut log = log.into_lines();
        if log.is_empty() {
            log.push(alloc::format!("{a:?}"));
        }
        for (i, l) in log.into_iter().enumerate() {
            if i == 0 {
                out.push(alloc::format!("{:>3}. {l}", n + 1));
            } else {
                out.push(alloc::format!("     {l}"));
            }
        }
    }
    out
}

/// Checks `model` exhaustively.
pub fn check(model: SystemModel, strategy: Strategy, threads: usize) -> CheckOutcome {
    model.reset_reached();
    let narrator = model.clone();
    let start = std::time::Instant::now();
    let threads = threads.max(1);
    let b = model.checker().threads(threads);
    let mut o = match strategy {
        Strategy::Bfs => collect(&narrator, b.spawn_bfs().join(), start),
        Strategy::Dfs => collect(&narrator, b.spawn_dfs().join(), start),
        Strategy::Symmetric => collect(
            &narrator,
            b.symmetry_fn(super::symmetry::representative)
                .spawn_dfs()
                .join(),
            start,
        ),
    };
    o.strategy = strategy;
    o.threads = threads;
    o
}

/// The first safety property a breadth-first walk finds violated, with its shortest
/// counterexample narrated; `None` when every invariant holds in the whole scope. Stops at the
/// first violation, so a mutation is caught quickly.
pub fn find_violation(model: &SystemModel) -> Option<(&'static str, Vec<String>, Option<String>)> {
    let props: Vec<_> = model
        .properties()
        .into_iter()
        .filter(|p| p.expectation == Expectation::Always)
        .collect();
    let all = |m: &SystemModel, s: &SysState| {
        m.properties()
            .iter()
            .filter(|p| p.expectation == Expectation::Always)
            .all(|p| (p.condition)(m, s))
    };
    let path = shortest(model, all)?;
    let last = path.last_state();
    let p = props.iter().find(|p| !(p.condition)(model, last))?;
    let note = super::props::explain(last, p.name);
    Some((p.name, narrate(model, path.into_vec()), note))
}

/// The shortest path to a state where `condition` fails.
fn shortest(
    model: &SystemModel,
    condition: fn(&SystemModel, &SysState) -> bool,
) -> Option<stateright::Path<SysState, Action>> {
    use core::hash::{Hash, Hasher};
    use std::collections::{HashMap, VecDeque};
    let fp = |s: &SysState| {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        s.hash(&mut h);
        h.finish()
    };
    let init = model.init_states().into_iter().next()?;
    let init_fp = fp(&init);
    let mut parent: HashMap<u64, Option<(u64, Action)>> = HashMap::new();
    parent.insert(init_fp, None);
    let mut queue = VecDeque::from([(init.clone(), init_fp)]);
    let mut actions = Vec::new();
    while let Some((s, f)) = queue.pop_front() {
        if !condition(model, &s) {
            let mut acts = Vec::new();
            let mut cur = f;
            while let Some(Some((p, a))) = parent.get(&cur) {
                acts.push(*a);
                cur = *p;
            }
            acts.reverse();
            return stateright::Path::from_actions(model, init, acts.iter());
        }
        model.actions(&s, &mut actions);
        for a in actions.drain(..) {
            if let Some(n) = model.next_state(&s, a) {
                let nf = fp(&n);
                if let std::collections::hash_map::Entry::Vacant(e) = parent.entry(nf) {
                    e.insert(Some((f, a)));
                    queue.push_back((n, nf));
                }
            }
        }
    }
    None
}

fn collect<C: Checker<SystemModel>>(
    model: &SystemModel,
    checker: C,
    start: std::time::Instant,
) -> CheckOutcome {
    let seconds = start.elapsed().as_secs_f64();
    let mut properties = Vec::new();
    for p in model.properties() {
        let found = checker.discovery(p.name);
        let kind = match p.expectation {
            Expectation::Always => "always",
            Expectation::Eventually => "eventually",
            Expectation::Sometimes => "sometimes",
        };
        let is_example = p.expectation == Expectation::Sometimes;
        // An example's condition reads what the explored transitions reached (the model
        // records it, not the states): asked once the walk is over, it sees all of them.
        let holds = match (is_example, model.init_states().first()) {
            (true, Some(s)) => (p.condition)(model, s),
            _ => found.is_some() == is_example,
        };
        // Stateright's BFS keeps the last violating state it visits, not the first; an
        // invariant's counterexample is searched again here, breadth first, to be shortest.
        let found = match (&found, p.expectation) {
            (Some(_), Expectation::Always) => shortest(model, p.condition).or(found),
            _ => found,
        };
        let (trace, note, path) = match (found, holds) {
            (Some(path), false) => {
                let note = super::props::explain(path.last_state(), p.name);
                let enc = path.encode(model);
                (narrate(model, path.into_vec()), note, Some(enc))
            }
            _ => (Vec::new(), None, None),
        };
        properties.push(PropertyResult {
            name: p.name,
            kind,
            holds,
            trace,
            note,
            path,
        });
    }
    CheckOutcome {
        scope: model.scope.name,
        mutation: model.mutation.name(),
        unique_states: checker.unique_state_count(),
        states: checker.state_count(),
        max_depth: checker.max_depth(),
        seconds,
        strategy: Strategy::Bfs,
        threads: 1,
        properties,
    }
}
