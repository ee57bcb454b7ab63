//! Criterion benchmarks of the codec against two baselines run on the same bytes in the same run:
//!
//! - `copy`: `copy_from_slice` of the input into a preallocated buffer, the floor (every byte
//!   touched once);
//! - `owned`: the decoder of `support/owned_baseline.rs`, written the way a typical user would
//!   (`bytes::Buf` into structs with `Vec`s and `String`s).
//!
//! Groups (each parameter runs `crate`, `owned` and `copy`):
//! - `decode/<vector>`: decode and validate every request and reply of `testdata/`;
//! - `encode/<vector>`: encode (validating) the same messages into a preallocated buffer;
//!   (`crate_validated`) encode the same value validated once before the loop
//!   (`ValidatedRequest`, `ValidatedReply`); and (`crate_view`, replies) re-encode a validated
//!   `ReplyView` without validating again;
//! - `lock_intent/mkdir_reply_complete`: decode the complete mkdir reply and fill an
//!   `md_lock_intent` (`crate`), or fill it from an already decoded view (`crate_fill_only`);
//! - `acl/<entries>`: POSIX ACL payloads of 32, 1024 and 8191 entries;
//! - `lov_comp/<components>`: composite layouts of 1, 16 and 64 components;
//! - `whole_reply/<reply>`: a reply and every present result decoded and validated, for the
//!   complete mkdir reply and for the largest reply the protocol allows.
//!
//! `cargo bench --bench codec` runs everything (about 3 minutes); `python3 benches/ratios.py`
//! turns criterion's estimates into the ratio table of docs/performance.md. Under `cargo test` each
//! benchmark runs once, as a smoke test.
#![forbid(unsafe_code)]

#[path = "support/fixtures.rs"]
mod fixtures;
#[path = "support/owned_baseline.rs"]
mod owned_baseline;

use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, measurement::WallTime};
use fixtures::{Kind, Placed};
use lustre_dne_intent::intent::{
    MdCreatePrepareReq, MdLockIntent, Operation, ReplyView, RequestView,
};
use lustre_dne_intent::xattr::{AclView, LovView};
use std::hint::black_box;
use std::time::Duration;

/// The two baselines on `bytes`: `copy` (the floor) and `owned` (`decode`).
fn baselines<T>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    param: &str,
    bytes: &[u8],
    decode: impl Fn(&[u8]) -> Result<T, owned_baseline::OwnedError>,
) {
    let mut dst = Placed::zeroed(bytes.len(), 2048);
    g.bench_with_input(BenchmarkId::new("copy", param), bytes, |b, input| {
        b.iter(|| {
            dst.copy_from_slice(black_box(input));
            black_box(&mut dst);
        })
    });
    g.bench_with_input(BenchmarkId::new("owned", param), bytes, |b, input| {
        b.iter(|| decode(black_box(input)).expect("owned baseline decodes"))
    });
}

fn owned_message(kind: Kind) -> fn(&[u8]) -> Result<(), owned_baseline::OwnedError> {
    match kind {
        Kind::Request => |b| owned_baseline::decode_request(b).map(drop),
        Kind::Reply => |b| owned_baseline::decode_reply(b).map(drop),
    }
}

fn decode(c: &mut Criterion) {
    let mut g = c.benchmark_group("decode");
    for &(name, kind) in fixtures::MESSAGES {
        let bytes = Placed::new(&fixtures::vector(name), 0);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        match kind {
            Kind::Request => g.bench_with_input(BenchmarkId::new("crate", name), &bytes, |b, i| {
                b.iter(|| RequestView::parse(black_box(i)).expect("valid"))
            }),
            Kind::Reply => g.bench_with_input(BenchmarkId::new("crate", name), &bytes, |b, i| {
                b.iter(|| ReplyView::parse(black_box(i)).expect("valid"))
            }),
        };
        baselines(&mut g, name, &bytes, owned_message(kind));
    }
    g.finish();
}

fn encode(c: &mut Criterion) {
    let mut g = c.benchmark_group("encode");
    for &(name, kind) in fixtures::MESSAGES {
        let bytes = Placed::new(&fixtures::vector(name), 0);
        let mut out = Placed::zeroed(bytes.len() + 64, 2048);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        match kind {
            Kind::Request => {
                let view = RequestView::parse(&bytes).expect("valid");
                let (value, order) = (view.to_value(), view.order());
                g.bench_function(BenchmarkId::new("crate", name), |b| {
                    b.iter(|| {
                        black_box(&value)
                            .encode_into(order, &mut out)
                            .expect("encodes")
                    })
                });
                // The same value validated once, before the loop.
                let proof = value.validated().expect("valid");
                g.bench_function(BenchmarkId::new("crate_validated", name), |b| {
                    b.iter(|| {
                        black_box(&proof)
                            .encode_into(order, &mut out)
                            .expect("fits")
                    })
                });
            }
            Kind::Reply => {
                let view = ReplyView::parse(&bytes).expect("valid");
                let (value, order) = (view.to_value(), view.order());
                g.bench_function(BenchmarkId::new("crate", name), |b| {
                    b.iter(|| {
                        black_box(&value)
                            .encode_into(order, &mut out)
                            .expect("encodes")
                    })
                });
                // The same value validated once, before the loop.
                let proof = value.validated(None).expect("valid");
                g.bench_function(BenchmarkId::new("crate_validated", name), |b| {
                    b.iter(|| {
                        black_box(&proof)
                            .encode_into(order, &mut out)
                            .expect("fits")
                    })
                });
                // Re-encoding a validated view: no second validation.
                g.bench_function(BenchmarkId::new("crate_view", name), |b| {
                    b.iter(|| black_box(&view).encode_into(order, &mut out).expect("fits"))
                });
            }
        }
        baselines(&mut g, name, &bytes, owned_message(kind));
    }
    g.finish();
}

fn lock_intent(c: &mut Criterion) {
    const NAME: &str = "mkdir_reply_complete";
    let bytes = Placed::new(&fixtures::vector(NAME), 0);
    let request_bytes = fixtures::vector("mkdir_request");
    let request = RequestView::parse(&request_bytes).expect("valid");
    let body: MdCreatePrepareReq = request.body();
    let name = request.name();
    // Caller-owned destinations at the request's limits (216, then 4096 each).
    let mut pattr = [0u8; 216];
    let mut bufs = [[0u8; 4096]; 5];
    let mut g = c.benchmark_group("lock_intent");
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_with_input(BenchmarkId::new("crate", NAME), &bytes, |b, input| {
        b.iter(|| {
            let view = ReplyView::parse(black_box(input)).expect("valid");
            let [b1, b2, b3, b4, b5] = &mut bufs;
            let mut mli = MdLockIntent::new(
                Operation::Create,
                body,
                name,
                [&mut pattr, b1, b2, b3, b4, b5],
            );
            mli.fill(&view);
            black_box(mli.replied)
        })
    });
    let view = ReplyView::parse(&bytes).expect("valid");
    g.bench_function(BenchmarkId::new("crate_fill_only", NAME), |b| {
        b.iter(|| {
            let [b1, b2, b3, b4, b5] = &mut bufs;
            let mut mli = MdLockIntent::new(
                Operation::Create,
                body,
                name,
                [&mut pattr, b1, b2, b3, b4, b5],
            );
            mli.fill(black_box(&view));
            black_box(mli.replied)
        })
    });
    baselines(&mut g, NAME, &bytes, |b| {
        owned_baseline::decode_reply(b).map(drop)
    });
    g.finish();
}

fn acl(c: &mut Criterion) {
    let mut g = c.benchmark_group("acl");
    for n in [32usize, 1024, 8191] {
        let bytes = Placed::new(&fixtures::acl_payload(n), 0);
        let param = n.to_string();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("crate", &param), &bytes, |b, i| {
            b.iter(|| AclView::parse(black_box(i)).expect("valid"))
        });
        baselines(&mut g, &param, &bytes, owned_baseline::decode_acl);
    }
    g.finish();
}

fn lov_comp(c: &mut Criterion) {
    let mut g = c.benchmark_group("lov_comp");
    for n in [1usize, 16, 64] {
        let bytes = Placed::new(&fixtures::lov_comp_payload(n), 0);
        let param = n.to_string();
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("crate", &param), &bytes, |b, i| {
            b.iter(|| LovView::parse(black_box(i)).expect("valid"))
        });
        // The owned value, as `xattr --json` builds it: to_value() names the union at offset
        // 30 by guessing what the layout belongs to, a pass over the components.
        g.bench_with_input(BenchmarkId::new("crate_value", &param), &bytes, |b, i| {
            b.iter(|| LovView::parse(black_box(i)).expect("valid").to_value())
        });
        baselines(&mut g, &param, &bytes, owned_baseline::decode_lov);
    }
    g.finish();
}

fn whole_reply(c: &mut Criterion) {
    let mut g = c.benchmark_group("whole_reply");
    for (param, bytes) in [
        (
            "mkdir_reply_complete",
            fixtures::vector("mkdir_reply_complete"),
        ),
        ("max", fixtures::max_reply()),
    ] {
        let bytes = Placed::new(&bytes, 0);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("crate", param), &bytes, |b, i| {
            b.iter(|| fixtures::whole_crate(black_box(i)))
        });
        baselines(&mut g, param, &bytes, owned_baseline::decode_reply_whole);
    }
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1200))
        .sample_size(30)
}

criterion::criterion_group! {
    name = benches;
    config = config();
    targets = decode, encode, lock_intent, acl, lov_comp, whole_reply
}
criterion::criterion_main!(benches);
