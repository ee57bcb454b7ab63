//! The check orders of WIRE.md §9, read from WIRE.md and held against the payload decoders as
//! `check_order.rs` holds §5's and §7's: each step alone names its rule, each adjacent pair the
//! earlier step's rule and field.

use super::check_order::documented;
use lustre_dne_intent::DecodeError;
use lustre_dne_intent::xattr::{AclView, DefaultLmvView, LmvView, LovView};

type Change = fn(&mut Vec<u8>);

struct Step {
    rule: &'static str,
    what: &'static str,
    change: Change,
    /// No input breaks this step and the one before it together.
    alone: bool,
    /// The input breaking this step and the one before it, when the two changes do not.
    pair: Option<Change>,
}

fn s(rule: &'static str, what: &'static str, change: Change) -> Step {
    Step {
        rule,
        what,
        change,
        alone: false,
        pair: None,
    }
}

impl Step {
    fn alone(mut self) -> Self {
        self.alone = true;
        self
    }
    fn pair(mut self, change: Change) -> Self {
        self.pair = Some(change);
        self
    }
}

/// Writes `v` at `at`, where the payload (perhaps cut by another change) holds it.
fn w16(b: &mut [u8], at: usize, v: u16) {
    if let Some(w) = b.get_mut(at..at + 2) {
        w.copy_from_slice(&v.to_le_bytes());
    }
}

fn w32(b: &mut [u8], at: usize, v: u32) {
    if let Some(w) = b.get_mut(at..at + 4) {
        w.copy_from_slice(&v.to_le_bytes());
    }
}

/// Fills `r` with 'p' (a pool name without its NUL), where the payload holds it.
fn fill(b: &mut [u8], r: core::ops::Range<usize>) {
    if let Some(w) = b.get_mut(r) {
        w.fill(b'p');
    }
}

fn r32(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// The first steps of every payload: its size, its magic's bytes, the magic.
fn start() -> Vec<Step> {
    vec![
        s("W0.3", "over 65536 bytes", |b| b.resize(65_544, 0)),
        s("W0.1", "3 bytes", |b| b.truncate(3)).alone(),
        s("W9.1", "the magic", |b| b[0] ^= 0x5a),
    ]
}

fn holds(kind: &str, base: &[u8], parse: fn(&[u8]) -> Result<(), DecodeError>, steps: &[Step]) {
    parse(base).expect("the base is valid");
    let rules: Vec<&str> = steps.iter().map(|s| s.rule).collect();
    assert_eq!(
        documented(kind),
        rules,
        "WIRE.md's {kind} list and the steps"
    );
    let run = |changes: &[Change], what: &str| {
        let mut b = base.to_vec();
        for c in changes {
            c(&mut b);
        }
        parse(&b).expect_err(what)
    };
    let alone: Vec<DecodeError> = steps
        .iter()
        .enumerate()
        .map(|(i, st)| {
            let e = run(&[st.change], st.what);
            assert_eq!(
                e.rule().as_str(),
                st.rule,
                "{kind} step {} ({}): {e}",
                i + 1,
                st.what
            );
            e
        })
        .collect();
    for i in 1..steps.len() {
        let (a, b) = (&steps[i - 1], &steps[i]);
        if b.alone {
            continue;
        }
        let e = match b.pair {
            Some(p) => run(&[p], b.what),
            None => run(&[a.change, b.change], b.what),
        };
        let want = &alone[i - 1];
        assert_eq!(
            (e.rule(), e.at.structure, e.at.field),
            (want.rule(), want.at.structure, want.at.field),
            "{kind} steps {i} ({}) and {} ({}) together: {e}",
            a.what,
            i + 1,
            b.what
        );
    }
}

#[test]
fn acls_are_checked_in_the_documented_order() {
    // USER_OBJ, USER 1000, GROUP_OBJ, GROUP 100, MASK, OTHER; entry i at 4 + 8i.
    let base = include_bytes!("../../testdata/xattr_acl_default.bin");
    let steps = vec![
        s("W0.3", "over 65536 bytes", |b| b.resize(65_548, 0)),
        s("W0.1", "3 bytes", |b| b.truncate(3)).alone(),
        s("W9.10", "a_version", |b| b[0] = 3),
        s("W9.3", "a byte more", |b| b.push(0)),
        s("W9.4", "entry 1's tag", |b| w16(b, 12, 0x40)),
        s("W9.5", "entry 1's permission", |b| w16(b, 14, 8)),
        s("W9.6", "entry 1 OTHER", |b| w16(b, 12, 0x20)),
        s("W9.9", "a USER 900 after 1000", |b| {
            b.splice(20..20, [2, 0, 7, 0, 132, 3, 0, 0]);
        })
        .alone(),
        s("W9.7", "no OTHER", |b| b.truncate(b.len() - 8)),
        s("W9.8", "no MASK", |b| {
            b.drain(36..44);
        }),
    ];
    holds("acl", base, |b| AclView::parse(b).map(|_| ()), &steps);
}

#[test]
fn lmvs_are_checked_in_the_documented_order() {
    let base = include_bytes!("../../testdata/xattr_lmv_striped.bin");
    let mut steps = start();
    steps.extend([
        s("W0.1", "40 bytes", |b| b.truncate(40)),
        s("W0.3", "2001 stripes", |b| w32(b, 4, 2001)),
        s("W9.21", "no stripe", |b| w32(b, 4, 0)).alone(),
        s("W9.22", "lmv_hash_type", |b| w32(b, 12, 0x99)),
        s("W9.12", "pool name", |b| fill(b, 40..56)),
        s("W9.2", "16 bytes more", |b| b.extend([0; 16])),
    ]);
    holds("lmv", base, |b| LmvView::parse(b).map(|_| ()), &steps);
}

#[test]
fn foreign_payloads_are_checked_in_the_documented_order() {
    let base = include_bytes!("../../testdata/xattr_lmv_foreign.bin");
    let steps = vec![
        s("W0.1", "12 bytes", |b| b.truncate(12)),
        s("W0.3", "lfm_length 65521", |b| w32(b, 4, 65_521)),
        s("W9.2", "a byte more", |b| b.push(0)),
        s("W9.19", "empty", |b| {
            b.truncate(16);
            w32(b, 4, 0);
        })
        .pair(|b| {
            b.truncate(17);
            w32(b, 4, 0);
        }),
    ];
    holds("foreign", base, |b| LmvView::parse(b).map(|_| ()), &steps);
    // W9.19 is the LMV's only: an empty foreign LOV is valid.
    let mut lov = include_bytes!("../../testdata/xattr_lov_foreign.bin").to_vec();
    lov.truncate(16);
    w32(&mut lov, 4, 0);
    assert_eq!(LovView::parse(&lov).expect("valid").wire_len(), 16);
}

#[test]
fn default_lmvs_are_checked_in_the_documented_order() {
    let base = include_bytes!("../../testdata/xattr_dmv_inherit3.bin");
    let mut steps = start();
    steps.extend([
        s("W0.1", "40 bytes", |b| b.truncate(40)),
        s("W9.11", "-6 stripes", |b| w32(b, 4, -6i32 as u32)),
        s("W0.3", "2001 stripes", |b| w32(b, 4, 2001)).alone(),
        s("W9.2", "a byte more", |b| b.push(0)),
        s("W9.12", "pool name", |b| fill(b, 32..48)),
    ]);
    holds(
        "dmv",
        base,
        |b| DefaultLmvView::parse(b).map(|_| ()),
        &steps,
    );
    // W9.22 is the LMV's only: any lum_hash_type decodes.
    let mut any = base.to_vec();
    w32(&mut any, 12, 0x99);
    assert!(DefaultLmvView::parse(&any).is_ok());
}

#[test]
fn plain_lovs_are_checked_in_the_documented_order() {
    let base = include_bytes!("../../testdata/xattr_lov_v3_pool.bin");
    let mut steps = start();
    steps.extend([
        s("W0.1", "24 bytes", |b| b.truncate(24)),
        s("W0.3", "2001 stripes", |b| w16(b, 28, 2001)),
        s("W0.1", "40 bytes", |b| b.truncate(40)),
        s("W9.12", "pool name", |b| fill(b, 32..48)),
        s("W9.2", "a byte more", |b| b.push(0)),
    ]);
    holds("lov", base, |b| LovView::parse(b).map(|_| ()), &steps);
}

#[test]
fn composite_lovs_are_checked_in_the_documented_order() {
    // Three entries: blobs at 176 (32 bytes), 208 (32), 240 (48, a v3); 288 bytes.
    let base = include_bytes!("../../testdata/xattr_lov_comp3.bin");
    let entry = |i: usize| 32 + 48 * i;
    assert_eq!(
        (r32(base, entry(2) + 24), r32(base, entry(2) + 28)),
        (240, 48)
    );
    let steps = vec![
        s("W0.1", "24 bytes", |b| b.truncate(24)),
        s("W9.2", "lcm_size", |b| w32(b, 4, 296)),
        s("W9.13", "no entry", |b| w16(b, 14, 0)),
        s("W9.14", "1000 entries", |b| w16(b, 14, 1000)).alone(),
        s("W9.15", "entry 0 past the end", |b| w32(b, 32 + 28, 1000)),
        s("W9.16", "entry 0 over the table", |b| w32(b, 32 + 24, 40)),
        s("W9.17", "entry 2 over entry 1", |b| {
            w32(b, 32 + 96 + 24, 208)
        }),
        s("W9.18", "entry 2 composite", |b| w32(b, 240, 0x0BD6_0BD0)),
        s("W0.1", "entry 2 of 40 bytes", |b| w32(b, 32 + 96 + 28, 40)),
        s("W9.12", "entry 2's pool name", |b| fill(b, 272..288)),
    ];
    holds("composite", base, |b| LovView::parse(b).map(|_| ()), &steps);
}
