//! Measures how a scope of the concurrent model grows (docs/model.md, "Scale"): the distinct
//! states and the time of a scope cut down or widened by `key=value` arguments.
//!
//! ```sh
//! cargo run --release -p lustre-dne-intent-model --features system --example system_growth -- \
//!     three ops=1 restarts=0 sym=1 threads=2 secs=600
//! ```
//!
//! Keys: `coords` (keep the first N), `ops` (keep each script's first N operations), `second`
//! (give the first N coordinators a second operation), `losses`,
//! `reconnects`, `restarts`, `sym` (1: symmetry reduction), `threads`, `secs` (stop after this
//! long; the line then says "stopped").

use lustre_dne_intent_model::system::ops::{Change, SysOp, Target};
use lustre_dne_intent_model::system::{SystemModel, scope, symmetry};
use stateright::{Checker, Model};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(mut sc) = args.next().as_deref().and_then(scope) else {
        eprintln!("usage: system_growth SCOPE [key=value...]");
        std::process::exit(2);
    };
    let (mut sym, mut threads, mut secs) = (false, 1usize, 600u64);
    for kv in args {
        let Some((k, v)) = kv.split_once('=') else {
            eprintln!("not key=value: {kv}");
            std::process::exit(2);
        };
        let Ok(n) = v.parse::<usize>() else {
            eprintln!("not a number: {kv}");
            std::process::exit(2);
        };
        let n8 = u8::try_from(n).unwrap_or(u8::MAX);
        match k {
            "coords" => sc.coords.truncate(n),
            "ops" => sc.coords.iter_mut().for_each(|c| c.script.truncate(n)),
            // A second operation for the first `n` coordinators: create b on the first,
            // chmod the parent 0770 on the others (`three-one` with two operations each: n=3).
            "second" => {
                for (i, c) in sc.coords.iter_mut().enumerate().take(n) {
                    c.script.push(if i == 0 {
                        SysOp::Create {
                            name: 1,
                            mode: lustre_dne_intent::mode::S_IFREG | 0o644,
                        }
                    } else {
                        SysOp::Set {
                            target: Target::Parent,
                            change: Change::Mode(0o770),
                        }
                    });
                }
            }
            "losses" => sc.losses = n8,
            "reconnects" => sc.reconnects = n8,
            "restarts" => sc.restarts = n8,
            "sym" => sym = n != 0,
            "threads" => threads = n.max(1),
            "secs" => secs = n as u64,
            _ => {
                eprintln!("unknown key {k}");
                std::process::exit(2);
            }
        }
    }
    let desc = format!(
        "coords={} ops={:?} losses={} reconnects={} restarts={} sym={} threads={threads}",
        sc.coords.len(),
        sc.coords.iter().map(|c| c.script.len()).collect::<Vec<_>>(),
        sc.losses,
        sc.reconnects,
        sc.restarts,
        u8::from(sym)
    );
    let model = SystemModel::new(sc, Default::default());
    let start = Instant::now();
    let mut b = model
        .checker()
        .threads(threads)
        .timeout(Duration::from_secs(secs));
    if sym {
        b = b.symmetry_fn(symmetry::representative);
    }
    let c = b.spawn_dfs().join();
    let t = start.elapsed().as_secs_f64();
    let n = c.unique_state_count();
    println!(
        "{desc}: {n} distinct states in {t:.1} s ({:.0}/s){}",
        n as f64 / t,
        if t + 1.0 >= secs as f64 {
            " STOPPED"
        } else {
            ""
        }
    );
}
