//! Decoding allocates nothing: views, masks and results borrow from the input; nor does
//! writing into a caller's buffer (a value validated once, a view).
//!
//! The counter sees every allocation of the process, so the test must be the only thread that
//! runs while it counts. Under libtest it was not: the harness's main thread records the test
//! it has just spawned (a map entry, a timeout queue), and on a loaded machine it did so after
//! the test had started counting (4 allocations, 900 bytes, in 13 of 60 runs beside three busy
//! loops). This binary has no libtest harness (`harness = false`): libtest-mimic runs the test
//! on the main thread, with no other thread alive.

mod common;

use common::*;
use libtest_mimic::{Arguments, Trial};
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::MsgView;
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn main() -> std::process::ExitCode {
    let mut args = Arguments::from_args();
    // One thread: libtest-mimic then runs the trial on this thread and spawns none.
    args.test_threads = Some(1);
    let trial = Trial::test("decoding_allocates_nothing", || {
        decoding_allocates_nothing();
        Ok(())
    });
    libtest_mimic::run(&args, vec![trial]).exit_code()
}

fn decoding_allocates_nothing() {
    let msgs = messages();
    let ctx = mkdir_request().reply_context().expect("valid");
    let region = Region::new(GLOBAL);
    let mut decoded = 0usize;
    for (_, bytes) in &msgs {
        if let Ok(v) = RequestView::parse(bytes) {
            decoded += v.name().map_or(0, <[u8]>::len) + v.groups().iter().count();
            let _ = v.reply_context();
            // The accessors decode from the input on each call, without allocating either.
            decoded += v.ldlm().handles.as_slice().len() + v.msg().buflens().count();
            decoded += v.ptlrpc().jobid_bytes().len() + v.body().requested().iter().count();
        }
        if let Ok(v) = ReplyView::parse(bytes) {
            for b in MliBuf::ALL {
                decoded += match v.result(b) {
                    PrepResult::Present(s) => s.len(),
                    _ => 1,
                };
            }
            let _ = ReplyView::parse_for(bytes, &ctx);
        }
        let _ = MsgView::parse(bytes);
    }
    let stats = region.change();
    assert!(decoded > 0, "something was decoded");
    assert_eq!(stats.allocations, 0, "decoding allocated: {stats:?}");
    assert_eq!(stats.reallocations, 0, "decoding reallocated: {stats:?}");

    // Encoding into a caller's buffer: the values and their proofs are built first (building
    // an owned value allocates; writing it must not).
    let requests: Vec<PrepareRequest> = msgs
        .iter()
        .filter_map(|(_, b)| RequestView::parse(b).ok().map(|v| v.to_value()))
        .collect();
    let replies: Vec<PrepareReply> = msgs
        .iter()
        .filter_map(|(_, b)| ReplyView::parse(b).ok().map(|v| v.to_value()))
        .collect();
    let checked_requests: Vec<_> = requests
        .iter()
        .map(|r| r.validated().expect("valid"))
        .collect();
    let checked_replies: Vec<_> = replies
        .iter()
        .map(|r| r.validated(None).expect("valid"))
        .collect();
    let mut out = vec![0u8; 1 << 16];
    let region = Region::new(GLOBAL);
    let mut written = 0usize;
    for order in [
        lustre_dne_intent::Endian::Little,
        lustre_dne_intent::Endian::Big,
    ] {
        for p in &checked_requests {
            written += p.encode_into(order, &mut out).expect("fits");
        }
        for p in &checked_replies {
            written += p.encode_into(order, &mut out).expect("fits");
        }
        for r in &requests {
            written += r.encode_into(order, &mut out).expect("encodes");
        }
        for r in &replies {
            written += r.encode_into(order, &mut out).expect("encodes");
        }
        for (_, bytes) in &msgs {
            if let Ok(v) = ReplyView::parse(bytes) {
                written += v.encode_into(order, &mut out).expect("fits");
            }
        }
    }
    let stats = region.change();
    assert!(
        written > 0 && !checked_requests.is_empty() && !checked_replies.is_empty(),
        "something was encoded"
    );
    assert_eq!(stats.allocations, 0, "encoding allocated: {stats:?}");
    assert_eq!(stats.reallocations, 0, "encoding reallocated: {stats:?}");
}
