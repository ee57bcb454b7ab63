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
    /// Every property.
    pub properties: Vec<PropertyResult>,
}

impl CheckOutcome {
    /// True when every property holds.
    pub fn all_hold(&self) -> bool {
        self.properties.iter().all(|p| p.holds)
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
        let mut log = Vec::new();
        let _ = model.step(&state, a, &mut log);
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
    let narrator = model.clone();
    let start = std::time::Instant::now();
    let b = model.checker().threads(threads.max(1));
    match strategy {
        Strategy::Bfs => collect(&narrator, b.spawn_bfs().join(), start),
        Strategy::Dfs => collect(&narrator, b.spawn_dfs().join(), start),
    }
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
        let holds = found.is_some() == is_example;
        let (trace, note, path) = match (found, holds) {
            (Some(path), false) => {
                let note = path.last_state().note.clone();
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
        properties,
    }
}
