//! The concurrent model's subcommands: `model-check` (an exhaustive check of a scope, with or
//! without a mutation) and `explore` (stateright's explorer on 127.0.0.1).

use crate::common::CliError;
use crate::input::Output;
use lustre_dne_intent_model::system::{
    CheckOutcome, Mutation, Strategy, SystemModel, check, scope, scope_names, scopes,
};
use serde_json::json;
use stateright::Model as _;
use std::fmt::Write as _;

/// Parses a `--mutation` value.
pub fn parse_mutation(name: &str) -> Result<Mutation, String> {
    Mutation::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = Mutation::ALL.iter().map(|m| m.name()).collect();
        format!("unknown mutation; known: {}", known.join(", "))
    })
}

/// Parses a `--scope` value.
pub fn parse_scope(name: &str) -> Result<String, String> {
    match scope(name) {
        Some(_) => Ok(name.to_string()),
        None => Err(format!(
            "unknown scope; known: {}",
            scope_names().join(", ")
        )),
    }
}

fn model_for(scope_name: Option<&str>, mutation: Option<Mutation>) -> SystemModel {
    let m = mutation.unwrap_or_default();
    // Without --scope, a mutation runs in the smallest scope that exhibits it.
    let name = scope_name.unwrap_or_else(|| scopes::scope_for(m));
    SystemModel::new(
        scope(name).unwrap_or_else(|| scope("default").expect("default scope")),
        m,
    )
}

fn text(o: &CheckOutcome, model: &SystemModel) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "scope {}: {}", o.scope, model.scope.about);
    let _ = writeln!(s, "  scripts: {}", scopes::scripts(&model.scope));
    let _ = writeln!(s, "mutation: {}", o.mutation);
    let _ = writeln!(
        s,
        "{} distinct states ({} generated, depth {}) in {:.2} s ({:.0} states/s; {}, {} thread{})",
        o.unique_states,
        o.states,
        o.max_depth,
        o.seconds,
        o.states_per_second(),
        strategy_name(o.strategy),
        o.threads,
        if o.threads == 1 { "" } else { "s" }
    );
    for p in &o.properties {
        let verdict = match (p.kind, p.holds) {
            ("sometimes", true) => "reached",
            ("sometimes", false) => "NOT REACHED",
            (_, true) => "holds",
            (_, false) => "VIOLATED",
        };
        let _ = writeln!(s, "  {:<11} {:<58} {verdict}", p.kind, p.name);
    }
    for p in o.violated().filter(|p| p.kind != "sometimes") {
        let _ = writeln!(
            s,
            "\ncounterexample for \"{}\" ({} steps):",
            p.name,
            p.trace.len()
        );
        for l in &p.trace {
            let _ = writeln!(s, "  {l}");
        }
        if let Some(n) = &p.note {
            let _ = writeln!(s, "  => {n}");
        }
        if let Some(path) = &p.path {
            let _ = writeln!(s, "  explorer path: /.states/{path}");
        }
    }
    s
}

fn strategy_name(s: Strategy) -> &'static str {
    match s {
        Strategy::Bfs => "breadth first",
        Strategy::Dfs => "depth first",
        Strategy::Symmetric => "depth first, symmetry reduced",
    }
}

fn as_json(o: &CheckOutcome) -> String {
    let props: Vec<_> = o
        .properties
        .iter()
        .map(|p| {
            json!({
                "name": p.name,
                "kind": p.kind,
                "holds": p.holds,
                "counterexample": if p.holds || p.kind == "sometimes" {
                    serde_json::Value::Null
                } else {
                    json!({ "steps": p.trace, "violation": p.note, "path": p.path })
                },
            })
        })
        .collect();
    let v = json!({
        "scope": o.scope,
        "mutation": o.mutation,
        "unique_states": o.unique_states,
        "states": o.states,
        "max_depth": o.max_depth,
        "seconds": o.seconds,
        "states_per_second": o.states_per_second(),
        "strategy": match o.strategy {
            Strategy::Bfs => "bfs",
            Strategy::Dfs => "dfs",
            Strategy::Symmetric => "dfs-symmetry",
        },
        "threads": o.threads,
        "all_hold": o.all_hold(),
        "properties": props,
    });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

/// How `model-check` walks the space.
#[derive(Debug, Clone, Copy)]
pub struct Walk {
    /// Checker threads; `None`: the available cores.
    pub threads: Option<usize>,
    /// Symmetry reduction where the scope has interchangeable coordinators.
    pub symmetry: bool,
}

impl Walk {
    /// The threads and the strategy for `model`.
    fn plan(self, model: &SystemModel) -> (usize, Strategy) {
        let threads = self.threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        // Stateright reduces symmetry only depth first; one thread without it walks breadth
        // first (exact paths), more threads depth first.
        let strategy = if self.symmetry && model.scope.symmetric() {
            Strategy::Symmetric
        } else if threads > 1 {
            Strategy::Dfs
        } else {
            Strategy::Bfs
        };
        (threads, strategy)
    }
}

/// `dne-intent model-check`.
pub fn cmd_model_check(
    json: bool,
    scope_name: Option<&str>,
    walk: Walk,
    mutation: Option<Mutation>,
    list: bool,
    out: &mut Output,
) -> Result<(), CliError> {
    if list {
        let mut s = String::new();
        for m in Mutation::ALL {
            s.push_str(m.name());
            s.push('\n');
        }
        return out.write(s.as_bytes());
    }
    let model = model_for(scope_name, mutation);
    let (threads, strategy) = walk.plan(&model);
    let o = check(model.clone(), strategy, threads);
    let body = if json { as_json(&o) } else { text(&o, &model) };
    out.write(body.as_bytes())?;
    let broken = o.violated().count();
    if broken == 0 {
        Ok(())
    } else {
        Err(CliError::Invalid(format!(
            "{broken} propert{} violated",
            if broken == 1 { "y" } else { "ies" }
        )))
    }
}

/// `dne-intent explore`.
pub fn cmd_explore(
    port: u16,
    scope_name: Option<&str>,
    mutation: Option<Mutation>,
) -> Result<(), CliError> {
    let addr = ("127.0.0.1", port);
    // Bind once ourselves so that a busy port is an error, not a panic inside the server.
    drop(
        std::net::TcpListener::bind(addr)
            .map_err(|e| CliError::invalid(format!("cannot listen on 127.0.0.1:{port}: {e}")))?,
    );
    let model = model_for(scope_name, mutation);
    eprintln!(
        "dne-intent explore: scope {}, mutation {}: http://127.0.0.1:{port}/",
        model.scope.name,
        model.mutation.name()
    );
    model.checker().serve(addr);
    Ok(())
}
