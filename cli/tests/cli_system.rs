//! `dne-intent model-check` and `dne-intent explore`: output, exit status, the mutation list,
//! JSON, and the explorer page served over HTTP on 127.0.0.1.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::time::Duration;

const BIN: &str = env!("CARGO_BIN_EXE_dne-intent");

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let o = Command::new(BIN)
        .args(args)
        .output()
        .expect("run dne-intent");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn list_mutations_prints_one_name_a_line() {
    let (code, out, _) = run(&["model-check", "--list-mutations"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "seed-before-grant",
            "keep-seeded-after-cancel",
            "release-before-txn",
            "no-invalidate-after-access",
            "trust-advisory",
            "failed-prep-fails-enqueue",
            "intents-after-reconnect",
            "resend-second-lock",
            "pattr-wrong-order",
        ]
    );
}

#[test]
fn the_small_scope_holds_and_exits_0() {
    let (code, out, err) = run(&["model-check", "--scope", "small", "--threads", "1"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("3149 distinct states"), "{out}");
    assert!(
        out.contains("no incompatible locks granted together"),
        "{out}"
    );
    assert!(
        !out.contains("VIOLATED") && !out.contains("NOT REACHED"),
        "{out}"
    );
    assert_eq!(out.matches(" holds\n").count(), 8, "{out}");
}

#[test]
fn threads_and_symmetry_choose_the_walk() {
    // One thread and no interchangeable coordinators: breadth first.
    let (code, out, err) = run(&["model-check", "--scope", "small", "--threads", "1"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("states/s; breadth first, 1 thread)"), "{out}");
    // Two threads walk depth first and find the same distinct states.
    let (code, out, _) = run(&[
        "model-check",
        "--json",
        "--scope",
        "rename",
        "--threads",
        "2",
    ]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["strategy"], "dfs");
    assert_eq!(v["threads"], 2);
    assert_eq!(v["unique_states"], 3018);
    assert!(
        v["states_per_second"].as_f64().is_some_and(|r| r > 0.0),
        "{v}"
    );
    let (code, _, err) = run(&["model-check", "--threads", "0"]);
    assert_eq!(code, Some(2), "{err}");
}

/// A scope with interchangeable coordinators walks depth first with symmetry reduction by
/// default, and keeps every verdict with half the states of `--no-symmetry`.
#[test]
fn interchangeable_coordinators_are_checked_symmetry_reduced() {
    let check = |extra: &[&str]| {
        let mut args = vec!["model-check", "--json", "--scope", "pair", "--threads", "1"];
        args.extend_from_slice(extra);
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{out}{err}");
        serde_json::from_str::<serde_json::Value>(&out).expect("json")
    };
    let reduced = check(&[]);
    assert_eq!(reduced["strategy"], "dfs-symmetry");
    assert_eq!(reduced["unique_states"], 1587);
    let full = check(&["--no-symmetry"]);
    assert_eq!(full["strategy"], "bfs");
    assert_eq!(full["unique_states"], 3165);
    let verdicts = |v: &serde_json::Value| {
        v["properties"]
            .as_array()
            .expect("properties")
            .iter()
            .map(|p| (p["name"].clone(), p["holds"].clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&reduced), verdicts(&full));
    assert!(
        reduced["properties"]
            .as_array()
            .is_some_and(|p| p.len() >= 13)
    );
    assert_eq!(reduced["all_hold"], true);
}

#[test]
fn a_mutation_is_caught_with_a_message_sequence_and_exit_1() {
    let (code, out, err) = run(&["model-check", "--mutation", "intents-after-reconnect"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(err.contains("violated"), "{err}");
    assert!(
        out.contains("no intent without the flag or in a replay") && out.contains("VIOLATED"),
        "{out}"
    );
    assert!(
        out.contains("reconnects to the parent: the connect flag is now clear"),
        "{out}"
    );
    assert!(out.contains("+prepare intent"), "{out}");
    assert!(out.contains("explorer path: /.states/0/"), "{out}");
}

#[test]
fn json_output_names_every_property() {
    let (code, out, _) = run(&[
        "model-check",
        "--json",
        "--scope",
        "rename",
        "--threads",
        "1",
    ]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["scope"], "rename");
    assert_eq!(v["unique_states"], 3018);
    assert_eq!(v["all_hold"], true);
    let props = v["properties"].as_array().expect("properties");
    assert!(props.iter().all(|p| p["holds"] == true));
    assert!(
        props
            .iter()
            .any(|p| p["name"] == "completed operations are serializable")
    );
}

#[test]
fn unknown_scope_and_mutation_are_usage_errors() {
    let (code, _, err) = run(&["model-check", "--scope", "huge"]);
    assert_eq!(code, Some(2));
    assert!(
        err.contains("known: small, pair, default, rename, recovery, wide, three-one, three"),
        "{err}"
    );
    let (code, _, err) = run(&["model-check", "--mutation", "nope"]);
    assert_eq!(code, Some(2));
    assert!(err.contains("seed-before-grant"), "{err}");
}

fn get(port: u16, path: &str) -> Option<String> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(20))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut body = String::new();
    s.read_to_string(&mut body).ok()?;
    Some(body)
}

#[test]
fn explore_serves_the_explorer_on_localhost() {
    // An ephemeral port: bound, noted and released for the tool.
    let port = TcpListener::bind(("127.0.0.1", 0))
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("ephemeral port");
    let mut child = Command::new(BIN)
        .args(["explore", "--port", &port.to_string(), "--scope", "small"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn explore");
    let mut page = None;
    for _ in 0..200 {
        if let Some(p) = get(port, "/") {
            page = Some(p);
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let states = get(port, "/.states");
    let _ = child.kill();
    let _ = child.wait();
    let page = page.expect("the explorer answered");
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("<html") || page.contains("<!DOCTYPE"),
        "{page}"
    );
    let states = states.expect("/.states answered");
    assert!(states.starts_with("HTTP/1.1 200"), "{states}");
    assert!(
        states.contains("MDT") || states.contains("coords"),
        "{states}"
    );
}
