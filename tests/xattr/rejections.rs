//! One rejection per payload rule of WIRE.md §9, with its error kind and offset.

use super::*;

#[test]
fn acl_rejections() {
    let ok = [(1, 7, U), (2, 5, 10), (4, 5, U), (0x10, 7, U), (0x20, 0, U)];
    assert!(AclView::parse(&acl(&ok)).is_ok());
    assert!(AclView::parse(&acl(&[])).unwrap().is_empty());
    assert!(
        AclView::parse(&acl(&[]))
            .unwrap()
            .permission(0, 0, &Credentials::default(), 4)
            .is_none()
    );

    let e = AclView::parse(&[2, 0]).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Truncated { need: 4, have: 2 });
    let mut v = acl(&ok);
    le32(&mut v, 0, 1);
    assert_eq!(
        kind_of(AclView::parse(&v)),
        ErrorKind::AclUnsupportedVersion { got: 1 }
    );
    le32(&mut v, 0, 0x0200_0000);
    assert_eq!(
        kind_of(AclView::parse(&v)),
        ErrorKind::AclUnsupportedVersion { got: 0x0200_0000 }
    );
    let mut v = acl(&ok);
    v.push(0);
    assert_eq!(
        kind_of(AclView::parse(&v)),
        ErrorKind::AclBadLength { len: 45 }
    );
    let e = AclView::parse(&acl(&[(1, 7, U), (0x40, 5, U)])).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::AclBadTag {
            index: 1,
            tag: 0x40
        }
    );
    assert_eq!((e.at.field, e.at.offset), ("e_tag", 12));
    let e = AclView::parse(&acl(&[(1, 8, U), (4, 5, U), (0x20, 0, U)])).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AclBadPerm { index: 0, perm: 8 });
    assert_eq!(e.at.offset, 6);
    assert_eq!(
        kind_of(AclView::parse(&acl(&[(4, 5, U), (1, 7, U), (0x20, 0, U)]))),
        ErrorKind::AclOrder {
            index: 0,
            tag: "GROUP_OBJ"
        }
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[
            (1, 7, U),
            (1, 7, U),
            (4, 5, U),
            (0x20, 0, U)
        ]))),
        ErrorKind::AclOrder {
            index: 1,
            tag: "USER_OBJ"
        }
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[
            (1, 7, U),
            (4, 5, U),
            (0x10, 5, U),
            (0x10, 5, U),
            (0x20, 0, U)
        ]))),
        ErrorKind::AclOrder {
            index: 3,
            tag: "MASK"
        }
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[
            (1, 7, U),
            (4, 5, U),
            (0x20, 0, U),
            (8, 1, 5)
        ]))),
        ErrorKind::AclOrder {
            index: 3,
            tag: "GROUP"
        }
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[(1, 7, U), (4, 5, U)]))),
        ErrorKind::AclMissingEntry { tag: "OTHER" }
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[(1, 7, U)]))),
        ErrorKind::AclMissingEntry { tag: "GROUP_OBJ" }
    );
    // W9.6 against W9.7, in entry order (WIRE.md §9): an entry where a missing one was due
    // first breaks the order; an ACL that ends before GROUP_OBJ or OTHER misses an entry.
    for (entries, tag) in [
        (&[(1, 7, U), (0x20, 0, U)][..], "OTHER"),
        (&[(4, 5, U), (0x20, 0, U)][..], "GROUP_OBJ"),
        (&[(0x20, 0, U)][..], "OTHER"),
    ] {
        let e = AclView::parse(&acl(entries)).unwrap_err();
        assert!(
            matches!(e.kind, ErrorKind::AclOrder { tag: t, .. } if t == tag),
            "{entries:?}: {e}"
        );
        assert_eq!(e.rule().as_str(), "W9.6", "{entries:?}");
    }
    for (entries, tag) in [
        (&[(1, 7, U)][..], "GROUP_OBJ"),
        (&[(1, 7, U), (2, 5, 3)][..], "GROUP_OBJ"),
        (&[(1, 7, U), (4, 5, U), (0x10, 7, U)][..], "OTHER"),
    ] {
        let e = AclView::parse(&acl(entries)).unwrap_err();
        assert_eq!(e.kind, ErrorKind::AclMissingEntry { tag }, "{entries:?}");
        assert_eq!(e.rule().as_str(), "W9.7", "{entries:?}");
    }
    assert_eq!(
        kind_of(AclView::parse(&acl(&[
            (1, 7, U),
            (2, 5, 10),
            (4, 5, U),
            (0x20, 0, U)
        ]))),
        ErrorKind::AclMissingMask
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[
            (1, 7, U),
            (2, 5, 10),
            (2, 5, 9),
            (4, 5, U),
            (0x10, 7, U),
            (0x20, 0, U)
        ]))),
        ErrorKind::AclIdsNotIncreasing {
            index: 2,
            prev: 10,
            id: 9
        }
    );
    assert_eq!(
        kind_of(AclView::parse(&acl(&[
            (1, 7, U),
            (4, 5, U),
            (8, 5, 10),
            (8, 5, 10),
            (0x10, 7, U),
            (0x20, 0, U)
        ]))),
        ErrorKind::AclDuplicateEntry { index: 3, id: 10 }
    );
    let big = vec![0u8; 65537];
    assert_eq!(
        kind_of(AclView::parse(&big)),
        ErrorKind::OverLimit {
            value: 65537,
            max: 65536
        }
    );
    // A too-large owned ACL is refused by the encoder.
    let mut a = Acl::from_mode(0o644);
    a.entries
        .insert(1, AclEntry::new(AclTag::USER, AclPerm(7), 1));
    assert!(a.to_bytes().is_err(), "named entry without mask");
    let mut a = Acl::from_mode(0o644);
    for i in 0..8192 {
        a.entries
            .insert(1 + i, AclEntry::new(AclTag::USER, AclPerm(7), i as u32));
    }
    a.entries
        .insert(8194, AclEntry::new(AclTag::MASK, AclPerm(7), 0));
    let e = a.to_bytes().unwrap_err();
    assert!(
        matches!(e, lustre_dne_intent::EncodeError::Invalid(d) if matches!(d.kind, ErrorKind::OverLimit { .. })),
        "{e:?}"
    );
}

fn lmv_bytes(magic: u32, count: u32, fids: usize) -> Vec<u8> {
    let mut b = vec![0u8; 56 + 16 * fids];
    le32(&mut b, 0, magic);
    le32(&mut b, 4, count);
    le32(&mut b, 12, 2);
    b
}

#[test]
fn lmv_rejections() {
    assert!(LmvView::parse(&lmv_bytes(LMV_MAGIC_V1, 2, 2)).is_ok());
    // lmv_is_sane2 (lustre/include/lustre_lmv.h): no stripe, or no known hash function, is
    // refused; unknown|bad_type (a failed migration's mark) is read.
    assert_eq!(
        kind_of(LmvView::parse(&lmv_bytes(LMV_MAGIC_V1, 0, 0))),
        ErrorKind::LmvNoStripes
    );
    for hash in [0, 5, 0x12, 0x8000_0000, 0x2000_0005] {
        let mut b = lmv_bytes(LMV_MAGIC_V1, 2, 0);
        le32(&mut b, 12, hash);
        assert_eq!(
            kind_of(LmvView::parse(&b)),
            ErrorKind::LmvBadHashType { got: hash },
            "{hash:#x}"
        );
    }
    for hash in [1, 2, 3, 4, 0x8000_0002, 0x0200_0003, 0x2000_0000] {
        let mut b = lmv_bytes(LMV_MAGIC_STRIPE, 2, 0);
        le32(&mut b, 12, hash);
        assert!(LmvView::parse(&b).is_ok(), "{hash:#x}");
    }
    assert_eq!(
        kind_of(LmvView::parse(&[0xd0, 0x0c])),
        ErrorKind::Truncated { need: 4, have: 2 }
    );
    assert_eq!(
        kind_of(LmvView::parse(&lmv_bytes(LMV_MAGIC_V1.swap_bytes(), 2, 2))),
        ErrorKind::SwabbedMagic {
            got: LMV_MAGIC_V1.swap_bytes()
        }
    );
    assert_eq!(
        kind_of(LmvView::parse(&lmv_bytes(0x0CD3_0CD0, 2, 2))),
        ErrorKind::UnknownMagic { got: 0x0CD3_0CD0 }
    );
    assert_eq!(
        kind_of(LmvView::parse(&lmv_bytes(LMV_MAGIC_V1, 2, 0)[..40])),
        ErrorKind::Truncated { need: 56, have: 40 }
    );
    assert_eq!(
        kind_of(LmvView::parse(&lmv_bytes(LMV_MAGIC_V1, 2, 1))),
        ErrorKind::PayloadSizeMismatch {
            len: 72,
            expected: 88
        }
    );
    // The header-only master, as LOD stores it on disk (lod_prep_lmv_md), is accepted and says so.
    let header_only = lmv_bytes(LMV_MAGIC_V1, 2, 0);
    let LmvView::Md(m) = LmvView::parse(&header_only).unwrap() else {
        panic!("not an lmv_mds_md_v1")
    };
    assert_eq!(
        (m.form(), m.stripe_count(), m.stripe_fids().len()),
        (LmvForm::HeaderOnly, 2, 0)
    );
    let with_fids = lmv_bytes(LMV_MAGIC_V1, 2, 2);
    let LmvView::Md(m) = LmvView::parse(&with_fids).unwrap() else {
        panic!("not an lmv_mds_md_v1")
    };
    assert_eq!(m.form(), LmvForm::WithFids);
    assert_eq!(
        kind_of(LmvView::parse(&lmv_bytes(LMV_MAGIC_STRIPE, 2, 1))),
        ErrorKind::PayloadSizeMismatch {
            len: 72,
            expected: 88
        }
    );
    let e = LmvView::parse(&lmv_bytes(LMV_MAGIC_V1, 2001, 0)).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::OverLimit {
            value: 2001,
            max: 2000
        }
    );
    assert_eq!((e.at.field, e.at.offset), ("lmv_stripe_count", 4));
    let mut b = lmv_bytes(LMV_MAGIC_V1, 1, 0);
    b[40..56].fill(b'a');
    let e = LmvView::parse(&b).unwrap_err();
    assert_eq!(
        (e.kind, e.at.offset),
        (ErrorKind::PoolNameNotTerminated, 40)
    );
    // Foreign: exact length.
    let mut f = vec![0u8; 20];
    le32(&mut f, 0, LMV_MAGIC_FOREIGN);
    le32(&mut f, 4, 5);
    assert_eq!(
        kind_of(LmvView::parse(&f)),
        ErrorKind::PayloadSizeMismatch {
            len: 20,
            expected: 21
        }
    );
    le32(&mut f, 4, 0x10_0000);
    assert!(matches!(
        kind_of(LmvView::parse(&f)),
        ErrorKind::OverLimit { .. }
    ));
    assert_eq!(
        kind_of(LmvView::parse(&f[..10])),
        ErrorKind::Truncated { need: 16, have: 10 }
    );
    // Empty foreign LMV: Lustre's lod_xattr_get refuses it (-EINVAL), so does the decoder.
    le32(&mut f, 4, 0);
    let e = LmvView::parse(&f[..16]).unwrap_err();
    assert_eq!(
        (e.kind, e.at.structure, e.at.field),
        (ErrorKind::LmvForeignEmpty, "lmv_foreign_md", "lfm_length")
    );
    le32(&mut f, 4, 1);
    assert!(LmvView::parse(&f[..17]).is_ok());
}

fn dmv_bytes(magic: u32, count: i32, objects: usize) -> Vec<u8> {
    let mut b = vec![0u8; 48 + 24 * objects];
    le32(&mut b, 0, magic);
    le32(&mut b, 4, count as u32);
    b
}

#[test]
fn dmv_rejections() {
    assert!(DefaultLmvView::parse(&dmv_bytes(LMV_USER_MAGIC, -5, 0)).is_ok());
    assert!(DefaultLmvView::parse(&dmv_bytes(LMV_USER_MAGIC_SPECIFIC, 2, 2)).is_ok());
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(
            LMV_USER_MAGIC.swap_bytes(),
            1,
            0
        ))),
        ErrorKind::SwabbedMagic {
            got: LMV_USER_MAGIC.swap_bytes()
        }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(LMV_MAGIC_V1, 1, 0))),
        ErrorKind::UnknownMagic { got: LMV_MAGIC_V1 }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(LMV_USER_MAGIC, 1, 1))),
        ErrorKind::PayloadSizeMismatch {
            len: 72,
            expected: 48
        }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(
            LMV_USER_MAGIC_SPECIFIC,
            2,
            1
        ))),
        ErrorKind::PayloadSizeMismatch {
            len: 72,
            expected: 96
        }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(
            &dmv_bytes(LMV_USER_MAGIC, 1, 0)[..47]
        )),
        ErrorKind::Truncated { need: 48, have: 47 }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(LMV_USER_MAGIC, -6, 0))),
        ErrorKind::LmvBadStripeCount { got: -6, min: -5 }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(
            LMV_USER_MAGIC_SPECIFIC,
            -1,
            0
        ))),
        ErrorKind::LmvBadStripeCount { got: -1, min: 0 }
    );
    assert_eq!(
        kind_of(DefaultLmvView::parse(&dmv_bytes(LMV_USER_MAGIC, 2001, 0))),
        ErrorKind::OverLimit {
            value: 2001,
            max: 2000
        }
    );
    let mut b = dmv_bytes(LMV_USER_MAGIC, 1, 0);
    b[32..48].fill(b'p');
    assert_eq!(
        kind_of(DefaultLmvView::parse(&b)),
        ErrorKind::PoolNameNotTerminated
    );
}

fn lov_v1(count: u16, objects: usize) -> Vec<u8> {
    let mut b = vec![0u8; 32 + 24 * objects];
    le32(&mut b, 0, LOV_MAGIC_V1);
    le32(&mut b, 4, 1);
    le32(&mut b, 24, 1 << 20);
    le16(&mut b, 28, count);
    le16(&mut b, 30, 0xffff);
    b
}

/// A composite layout of `blobs`, each at the given offset (or packed when `None`).
fn comp(blobs: &[(Vec<u8>, Option<u32>)], size_fix: Option<u32>) -> Vec<u8> {
    let n = blobs.len();
    let mut off = 32 + 48 * n;
    let mut entries = Vec::new();
    let mut tail_end = off;
    for (b, o) in blobs {
        let at = o.map_or(off, |o| o as usize);
        entries.push((at, b.len()));
        off = at + b.len();
        tail_end = tail_end.max(off);
    }
    let mut out = vec![0u8; tail_end];
    le32(&mut out, 0, LOV_MAGIC_COMP_V1);
    le32(&mut out, 4, size_fix.unwrap_or(tail_end as u32));
    le16(&mut out, 14, n as u16);
    for (i, ((at, len), (b, _))) in entries.iter().zip(blobs).enumerate() {
        let e = 32 + 48 * i;
        le32(&mut out, e, i as u32 + 1);
        le32(&mut out, e + 24, *at as u32);
        le32(&mut out, e + 28, *len as u32);
        if at + len <= out.len() {
            out[*at..at + len].copy_from_slice(b);
        }
    }
    out
}

#[test]
fn lov_rejections() {
    // Plain layouts.
    assert!(LovView::parse(&lov_v1(4, 0)).is_ok());
    assert!(LovView::parse(&lov_v1(4, 4)).is_ok());
    assert!(LovView::parse(&lov_v1(0xffff, 0)).is_ok());
    assert!(LovView::parse(&lov_v1(0xffe0, 0)).is_ok());
    assert_eq!(
        kind_of(LovView::parse(&lov_v1(0xffe0, 1))),
        ErrorKind::PayloadSizeMismatch {
            len: 56,
            expected: 32
        }
    );
    assert_eq!(
        kind_of(LovView::parse(&lov_v1(2001, 0))),
        ErrorKind::OverLimit {
            value: 2001,
            max: 2000
        }
    );
    assert!(LovView::parse(&lov_v1(2000, 0)).is_ok());
    assert_eq!(
        kind_of(LovView::parse(&lov_v1(4, 3))),
        ErrorKind::PayloadSizeMismatch {
            len: 104,
            expected: 128
        }
    );
    let mut b = lov_v1(1, 0);
    le32(&mut b, 0, LOV_MAGIC_V1.swap_bytes());
    assert_eq!(
        kind_of(LovView::parse(&b)),
        ErrorKind::SwabbedMagic {
            got: LOV_MAGIC_V1.swap_bytes()
        }
    );
    le32(&mut b, 0, 0x0BD4_0BD0);
    assert_eq!(
        kind_of(LovView::parse(&b)),
        ErrorKind::UnknownMagic { got: 0x0BD4_0BD0 }
    );
    let mut v3 = lov_v1(1, 0);
    le32(&mut v3, 0, LOV_MAGIC_V3);
    assert_eq!(
        kind_of(LovView::parse(&v3)),
        ErrorKind::Truncated { need: 48, have: 32 }
    );
    v3.extend_from_slice(&[b'x'; 16]);
    assert_eq!(
        kind_of(LovView::parse(&v3)),
        ErrorKind::PoolNameNotTerminated
    );
    assert_eq!(
        kind_of(LovView::parse(&lov_v1(1, 0)[..20])),
        ErrorKind::Truncated { need: 32, have: 20 }
    );

    // Composite.
    let a = lov_v1(1, 0);
    let ok = comp(&[(a.clone(), None), (a.clone(), None)], None);
    assert!(LovView::parse(&ok).is_ok());
    assert_eq!(
        kind_of(LovView::parse(&comp(&[(a.clone(), None)], Some(100)))),
        ErrorKind::PayloadSizeMismatch {
            len: 112,
            expected: 100
        }
    );
    let mut none = comp(&[(a.clone(), None)], None);
    le16(&mut none, 14, 0);
    assert_eq!(kind_of(LovView::parse(&none)), ErrorKind::LovCompNoEntries);
    let mut table = comp(&[(a.clone(), None)], None);
    le16(&mut table, 14, 3);
    assert_eq!(
        kind_of(LovView::parse(&table)),
        ErrorKind::LovEntryTableOutside {
            count: 3,
            end: 176,
            len: 112
        }
    );
    let mut outside = ok.clone();
    le32(&mut outside, 32 + 48 + 28, 33);
    let e = LovView::parse(&outside).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::LovComponentOutside {
            index: 1,
            offset: 160,
            size: 33,
            len: 192
        }
    );
    assert_eq!(e.at.offset, 32 + 48 + 24);
    let mut over_table = ok.clone();
    le32(&mut over_table, 32 + 24, 100);
    assert_eq!(
        kind_of(LovView::parse(&over_table)),
        ErrorKind::LovComponentOverlapsTable {
            index: 0,
            offset: 100,
            table_end: 128
        }
    );
    let mut header = ok.clone();
    le32(&mut header, 32 + 24, 0);
    assert!(matches!(
        kind_of(LovView::parse(&header)),
        ErrorKind::LovComponentOverlapsTable { .. }
    ));
    let overlap = comp(&[(a.clone(), None), (a.clone(), Some(128 + 16))], None);
    assert_eq!(
        kind_of(LovView::parse(&overlap)),
        ErrorKind::LovComponentOverlap { index: 1, other: 0 }
    );
    // A bad component blob is reported at its offset in the whole layout.
    let mut bad = a.clone();
    le16(&mut bad, 28, 3000);
    let e = LovView::parse(&comp(&[(a.clone(), None), (bad, None)], None)).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::OverLimit {
            value: 3000,
            max: 2000
        }
    );
    assert_eq!(e.at.offset, 32 + 2 * 48 + 32 + 28);
    let nested = comp(&[(a.clone(), None)], None);
    assert_eq!(
        kind_of(LovView::parse(&comp(
            &[(a.clone(), None), (nested, None)],
            None
        ))),
        ErrorKind::LovNestedComposite { index: 1 }
    );
    let mut junk = a.clone();
    le32(&mut junk, 0, 0x1234_5678);
    assert_eq!(
        kind_of(LovView::parse(&comp(&[(junk, None)], None))),
        ErrorKind::UnknownMagic { got: 0x1234_5678 }
    );
    // A foreign component is fine.
    let mut f = vec![0u8; 19];
    le32(&mut f, 0, LOV_MAGIC_FOREIGN);
    le32(&mut f, 4, 3);
    assert!(LovView::parse(&comp(&[(a, None), (f.clone(), None)], None)).is_ok());
    f.push(0);
    assert_eq!(
        kind_of(LovView::parse(&f)),
        ErrorKind::PayloadSizeMismatch {
            len: 20,
            expected: 19
        }
    );
}
