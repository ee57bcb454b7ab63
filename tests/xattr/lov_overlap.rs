//! The composite-LOV overlap rule after the linear fast path: blobs in table order are checked
//! against the furthest end seen so far; a blob that starts before it is still compared with
//! every earlier entry, so out-of-order layouts are accepted when disjoint and rejected, naming
//! the first earlier entry hit, when not.
#![forbid(unsafe_code)]

use lustre_dne_intent::ErrorKind;
use lustre_dne_intent::xattr::{
    LOV_MAGIC_V1, Lov, LovBlob, LovComp, LovCompEntry, LovComponent, LovMd, LovPattern, LovView,
};

/// Three plain V1 components (32-byte blobs) packed after the table: 176, 208, 240.
fn three() -> Vec<u8> {
    let c = |i: u32| LovComponent {
        entry: LovCompEntry {
            id: i + 1,
            extent_start: u64::from(i) << 20,
            extent_end: (u64::from(i) + 1) << 20,
            ..Default::default()
        },
        blob: LovBlob::Md(LovMd {
            magic: LOV_MAGIC_V1,
            pattern: LovPattern::RAID0,
            stripe_size: 1 << 20,
            stripe_count: 1,
            ..Default::default()
        }),
    };
    Lov::Comp(LovComp {
        components: vec![c(0), c(1), c(2)],
        ..Default::default()
    })
    .to_bytes()
    .expect("valid")
    .to_vec()
}

fn set_offset(b: &mut [u8], entry: usize, offset: u32) {
    let at = 32 + 48 * entry + 24;
    b[at..at + 4].copy_from_slice(&offset.to_le_bytes());
}

#[test]
fn in_order_blobs_pass() {
    LovView::parse(&three()).expect("packed in order");
}

#[test]
fn out_of_order_disjoint_blobs_pass() {
    let mut b = three();
    set_offset(&mut b, 0, 240);
    set_offset(&mut b, 2, 176);
    LovView::parse(&b).expect("disjoint, in reverse order");
}

#[test]
fn overlap_with_an_earlier_non_adjacent_entry_is_found() {
    let mut b = three();
    // Entry 2 reuses entry 0's blob; entry 1 lies between them.
    set_offset(&mut b, 2, 176);
    let e = LovView::parse(&b).expect_err("overlap");
    assert_eq!(
        e.kind,
        ErrorKind::LovComponentOverlap { index: 2, other: 0 }
    );
    assert_eq!(e.at.offset, 32 + 48 * 2 + 24);
}

#[test]
fn partial_overlap_is_found() {
    let mut b = three();
    // Entry 1 starts 16 bytes into entry 0's blob.
    set_offset(&mut b, 1, 176 + 16);
    let e = LovView::parse(&b).expect_err("overlap");
    assert_eq!(
        e.kind,
        ErrorKind::LovComponentOverlap { index: 1, other: 0 }
    );
}
