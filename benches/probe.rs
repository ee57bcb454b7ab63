//! The instruction probe: runs one operation of the public API a given number of times, so that
//! `benches/instructions.py` can count its instructions under callgrind (exact and independent
//! of machine load, unlike times).
//!
//! `probe OP PARAM ITERS` runs OP on PARAM ITERS times. The driver runs each pair twice, with
//! ITERS = 1 and ITERS = 1 + N, and divides the difference by N: what stays (process start,
//! reading the vector, building inputs) cancels out. With any other arguments (as under
//! `cargo test --benches`) every operation runs once and its result is checked.
//!
//! Operations, each beside its baselines `*_copy` (copy_from_slice into a preallocated buffer:
//! the floor) and `*_owned` (the typical allocating decoder of `support/owned_baseline.rs`):
//! - `decode`, `decode_copy`, `decode_owned` on a message vector of `testdata/`;
//! - `encode`, `encode_copy` on a message vector (validating encoder into a preallocated buffer);
//! - `encode_validated` on a message vector (the same value validated once before the loop:
//!   `ValidatedRequest::encode_into`, `ValidatedReply::encode_into`);
//! - `reencode`, `reencode_copy` on a reply vector (`ReplyView::encode_into`: a validated view
//!   written again without a second validation);
//! - `acl`, `acl_copy`, `acl_owned` on an ACL of PARAM entries;
//! - `lov`, `lov_copy`, `lov_owned` on a composite layout of PARAM components, and `lov_value`,
//!   its owned value as `xattr --json` builds it (`LovView::parse`, then `to_value`);
//! - `whole`, `whole_copy`, `whole_owned` on `mkdir_reply_complete` or `max`: a reply and every
//!   present result decoded and validated.
#![forbid(unsafe_code)]

#[path = "support/fixtures.rs"]
mod fixtures;
#[path = "support/owned_baseline.rs"]
mod owned_baseline;

use fixtures::Kind;
use lustre_dne_intent::intent::{ReplyView, RequestView};
use lustre_dne_intent::xattr::{AclView, LovView};
use std::hint::black_box;

/// Every (operation, parameter) pair the driver measures, in report order.
fn cases() -> Vec<(&'static str, String)> {
    let mut v = Vec::new();
    for &(name, _) in fixtures::MESSAGES {
        for op in [
            "decode",
            "decode_copy",
            "decode_owned",
            "encode",
            "encode_copy",
            "encode_validated",
            "reencode",
            "reencode_copy",
        ] {
            if op.starts_with("reencode") && kind_of(name) == Kind::Request {
                continue;
            }
            v.push((op, name.to_string()));
        }
    }
    for n in ["32", "1024", "8191"] {
        for op in ["acl", "acl_copy", "acl_owned"] {
            v.push((op, n.to_string()));
        }
    }
    for n in ["1", "16", "64"] {
        for op in ["lov", "lov_value", "lov_copy", "lov_owned"] {
            v.push((op, n.to_string()));
        }
    }
    for p in ["mkdir_reply_complete", "max"] {
        for op in ["whole", "whole_copy", "whole_owned"] {
            v.push((op, p.to_string()));
        }
    }
    v
}

fn kind_of(name: &str) -> Kind {
    fixtures::MESSAGES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|&(_, k)| k)
        .unwrap_or_else(|| panic!("no message vector {name}"))
}

/// Encodes `iters` times into a preallocated buffer, after checking once that the encoding is
/// the input (every vector is canonical up to its byte order).
fn encode_loop(input: &[u8], param: &str, iters: u64, encode: impl Fn(&mut [u8]) -> usize) {
    let mut out = fixtures::Placed::zeroed(input.len() + 64, 2048);
    let n = encode(&mut out);
    assert_eq!(&out[..n], input, "{param} re-encodes");
    for _ in 0..iters {
        let n = encode(&mut out);
        black_box(&out[..n]);
    }
}

fn copy_loop(bytes: &[u8], iters: u64) {
    let mut dst = fixtures::Placed::zeroed(bytes.len(), 2048);
    for _ in 0..iters {
        dst.copy_from_slice(black_box(bytes));
        black_box(&mut dst);
    }
}

/// Runs `op` on `param` `iters` times.
fn run(op: &str, param: &str, iters: u64) {
    let input = match op {
        "acl" | "acl_copy" | "acl_owned" => fixtures::acl_payload(param.parse().expect("entries")),
        "lov" | "lov_value" | "lov_copy" | "lov_owned" => {
            fixtures::lov_comp_payload(param.parse().expect("components"))
        }
        "whole" | "whole_copy" | "whole_owned" if param == "max" => fixtures::max_reply(),
        _ => fixtures::vector(param),
    };
    // At the place the criterion benches use (see `fixtures::Placed`).
    let input = fixtures::Placed::new(&input, 0);
    match op {
        "decode" => match kind_of(param) {
            Kind::Request => {
                for _ in 0..iters {
                    black_box(RequestView::parse(black_box(&input)).expect("valid"));
                }
            }
            Kind::Reply => {
                for _ in 0..iters {
                    black_box(ReplyView::parse(black_box(&input)).expect("valid"));
                }
            }
        },
        "decode_owned" => match kind_of(param) {
            Kind::Request => {
                for _ in 0..iters {
                    black_box(owned_baseline::decode_request(black_box(&input)).expect("valid"));
                }
            }
            Kind::Reply => {
                for _ in 0..iters {
                    black_box(owned_baseline::decode_reply(black_box(&input)).expect("valid"));
                }
            }
        },
        "encode" => match kind_of(param) {
            Kind::Request => {
                let view = RequestView::parse(&input).expect("valid");
                let (value, order) = (view.to_value(), view.order());
                encode_loop(&input, param, iters, |o| {
                    black_box(&value).encode_into(order, o).expect("encodes")
                });
            }
            Kind::Reply => {
                let view = ReplyView::parse(&input).expect("valid");
                let (value, order) = (view.to_value(), view.order());
                encode_loop(&input, param, iters, |o| {
                    black_box(&value).encode_into(order, o).expect("encodes")
                });
            }
        },
        "encode_validated" => match kind_of(param) {
            Kind::Request => {
                let view = RequestView::parse(&input).expect("valid");
                let (value, order) = (view.to_value(), view.order());
                let proof = value.validated().expect("valid");
                encode_loop(&input, param, iters, |o| {
                    black_box(&proof).encode_into(order, o).expect("fits")
                });
            }
            Kind::Reply => {
                let view = ReplyView::parse(&input).expect("valid");
                let (value, order) = (view.to_value(), view.order());
                let proof = value.validated(None).expect("valid");
                encode_loop(&input, param, iters, |o| {
                    black_box(&proof).encode_into(order, o).expect("fits")
                });
            }
        },
        "reencode" => {
            let view = ReplyView::parse(&input).expect("valid reply");
            let order = view.order();
            encode_loop(&input, param, iters, |o| {
                black_box(&view).encode_into(order, o).expect("fits")
            });
        }
        "acl" => {
            for _ in 0..iters {
                black_box(AclView::parse(black_box(&input)).expect("valid"));
            }
        }
        "acl_owned" => {
            for _ in 0..iters {
                black_box(owned_baseline::decode_acl(black_box(&input)).expect("valid"));
            }
        }
        "whole" => {
            for _ in 0..iters {
                black_box(fixtures::whole_crate(black_box(&input)));
            }
        }
        "whole_owned" => {
            for _ in 0..iters {
                black_box(owned_baseline::decode_reply_whole(black_box(&input)).expect("valid"));
            }
        }
        "lov" => {
            for _ in 0..iters {
                black_box(LovView::parse(black_box(&input)).expect("valid"));
            }
        }
        "lov_value" => {
            for _ in 0..iters {
                black_box(LovView::parse(black_box(&input)).expect("valid").to_value());
            }
        }
        "lov_owned" => {
            for _ in 0..iters {
                black_box(owned_baseline::decode_lov(black_box(&input)).expect("valid"));
            }
        }
        "decode_copy" | "encode_copy" | "reencode_copy" | "acl_copy" | "lov_copy"
        | "whole_copy" => copy_loop(&input, iters),
        other => panic!("unknown operation {other}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [op, param, iters] = &args[..]
        && let Ok(iters) = iters.parse::<u64>()
    {
        run(op, param, iters);
        return;
    }
    if args.iter().any(|a| a == "--list") {
        for (op, param) in cases() {
            println!("{op} {param}");
        }
        return;
    }
    // Smoke mode (cargo test --benches, or cargo bench without the driver): each case once.
    for (op, param) in cases() {
        run(op, &param, 1);
    }
    println!(
        "probe: {} cases ran once; count instructions with benches/instructions.py",
        cases().len()
    );
}
