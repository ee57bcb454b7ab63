//! The forms real Lustre stores in `trusted.lov`: the `ost_id`
//! union, the `lmm_layout_gen`/`lmm_stripe_offset` union, uninstantiated components,
//! `LOV_MAGIC_SEL`, and header padding kept as found. Payloads are built byte by byte here,
//! from the field tables of `lustre_user.h`, not with the crate's encoder.

use lustre_dne_intent::error::ErrorKind;
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::*;

fn le32(v: u32) -> [u8; 4] {
    v.to_le_bytes()
}

/// `lov_user_md_v1` with `objects` as (oi_id, oi_seq, idx).
fn v1(count: u16, union: u16, objects: &[(u64, u64, u32)]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(le32(LOV_MAGIC_V1));
    b.extend(le32(1)); // raid0
    b.extend(0x15u64.to_le_bytes()); // lmm_oi: FID oid in bytes 0-7
    b.extend(0x2_0000_0401u64.to_le_bytes()); // and its sequence in 8-15
    b.extend(le32(1 << 20));
    b.extend(count.to_le_bytes());
    b.extend(union.to_le_bytes());
    for &(id, seq, idx) in objects {
        b.extend(id.to_le_bytes());
        b.extend(seq.to_le_bytes());
        b.extend(le32(0));
        b.extend(le32(idx));
    }
    b
}

/// `lov_comp_md_v1` of `(flags, start, end, blob)` components.
fn comp(magic: u32, comps: &[(u32, u64, u64, Vec<u8>)]) -> Vec<u8> {
    let table = 32 + 48 * comps.len();
    let size = table + comps.iter().map(|c| c.3.len()).sum::<usize>();
    let mut b = Vec::new();
    b.extend(le32(magic));
    b.extend(le32(size as u32));
    b.extend(le32(7)); // lcm_layout_gen
    b.extend(0u16.to_le_bytes()); // lcm_flags
    b.extend((comps.len() as u16).to_le_bytes());
    b.extend(0u16.to_le_bytes()); // lcm_mirror_count
    b.resize(32, 0);
    let mut off = table;
    for (i, (flags, start, end, blob)) in comps.iter().enumerate() {
        b.extend(le32(i as u32 + 1));
        b.extend(le32(*flags));
        b.extend(start.to_le_bytes());
        b.extend(end.to_le_bytes());
        b.extend(le32(off as u32));
        b.extend(le32(blob.len() as u32));
        b.resize(b.len() + 16, 0);
        off += blob.len();
    }
    for c in comps {
        b.extend(&c.3);
    }
    b
}

#[test]
fn lmm_oi_halves_and_lmm_fid() {
    // Item 1: lmm_oi_id() is bytes 0-7, lmm_oi_seq() bytes 8-15; lfs prints the FID from them.
    let b = v1(1, 0, &[(0x2_8000_0400, 3, 0)]);
    let v = LovView::parse(&b).unwrap();
    let LovView::Md(m) = v else { panic!() };
    assert_eq!((m.oi().id, m.oi().seq), (0x15, 0x2_0000_0401));
    let text = v.getstripe().to_string();
    assert!(text.contains("lmm_seq:           0x200000401\n"), "{text}");
    assert!(text.contains("lmm_object_id:     0x15\n"), "{text}");
    assert!(
        text.contains("lmm_fid:           [0x200000401:0x15:0x0]\n"),
        "{text}"
    );
}

#[test]
fn ost_id_union_members() {
    // Item 2, lustre_ostid.h: the object of testdata/real/lov_v1_2_10_fidseq_ost0 (FID form).
    let fid_form = OstId {
        id: 0x2_8000_0400,
        seq: 3,
    };
    assert_eq!(fid_form.form(), OstIdForm::Fid);
    assert_eq!(
        (fid_form.ostid_seq(), fid_form.ostid_id()),
        (0x2_8000_0400, 3)
    );
    assert_eq!(fid_form.to_fid(0), Some(LuFid::new(0x2_8000_0400, 3, 0)));
    // A FID version makes ostid_to_fid fail.
    let versioned = OstId {
        id: 0x2_8000_0400,
        seq: 3 | 1 << 32,
    };
    assert_eq!(versioned.to_fid(0), None);
    // Legacy {oi_id, 0}: sequence 0, the IDIF FID on its OST.
    let legacy = OstId { id: 0x43, seq: 0 };
    assert_eq!(legacy.form(), OstIdForm::Legacy);
    assert_eq!((legacy.ostid_seq(), legacy.ostid_id()), (0, 0x43));
    assert_eq!(legacy.to_fid(1), Some(LuFid::new(0x1_0001_0000, 0x43, 0)));
    assert_eq!(legacy.to_fid(0x1_0000), None, "an OST index over 0xffff");
    // IDIF in the FID form: f_seq 0x1_0003_0002 (OST 3, id bits 32-47 = 2), f_oid 5.
    let idif = OstId {
        id: 0x1_0003_0002,
        seq: 5,
    };
    assert_eq!(idif.form(), OstIdForm::Idif);
    assert_eq!((idif.ostid_seq(), idif.ostid_id()), (0, 2 << 32 | 5));
    assert_eq!(idif.to_fid(3), Some(LuFid::new(0x1_0003_0002, 5, 0)));
    let dflt = OstId {
        id: 9,
        seq: FID_SEQ_LOV_DEFAULT,
    };
    assert_eq!(
        (dflt.form(), dflt.ostid_seq(), dflt.to_fid(0)),
        (OstIdForm::LovDefault, u64::MAX, None)
    );

    // The object table: objid = ostid_id(), group = ostid_seq() in hex for a FID sequence,
    // decimal for 0..=11.
    let b = v1(2, 0, &[(0x2_8000_0400, 3, 0), (0x1_0001_0000, 0x10, 1)]);
    let text = LovView::parse(&b).unwrap().getstripe().to_string();
    assert!(
        text.ends_with(
            "\tobdidx\t\t objid\t\t objid\t\t group\n\
             \t     0\t             3\t          0x3\t   0x280000400\n\
             \t     1\t            16\t         0x10\t             0\n\n"
        ),
        "{text}"
    );
}

#[test]
fn layout_gen_and_stripe_offset_union() {
    // Item 3: a file's layout prints lmm_layout_gen from the union and lmm_stripe_offset from
    // objects[0].l_ost_idx.
    let b = v1(1, 4, &[(0x2_8000_0400, 3, 6)]);
    let v = LovView::parse(&b).unwrap();
    let text = v.getstripe().to_string();
    assert!(
        text.contains("lmm_layout_gen:    4\nlmm_stripe_offset: 6\n"),
        "{text}"
    );
    let LovView::Md(m) = v else { panic!() };
    assert_eq!(m.union_member(LayoutOf::File, true), LmmUnion::LayoutGen(4));
    assert_eq!(
        m.union_member(LayoutOf::Dir, true),
        LmmUnion::StripeOffset(4)
    );
    assert_eq!(
        m.union_member(LayoutOf::File, false),
        LmmUnion::StripeOffset(4)
    );
    assert_eq!(
        m.to_value().union_member(LayoutOf::File, true).name(),
        "lmm_layout_gen"
    );
    // The owned value holds the member it was decoded as (a file's layout: objects), and two
    // values that differ only in the member are different values with the same bytes.
    let owned = m.to_value();
    assert_eq!(owned.stripe_offset, LmmUnion::LayoutGen(4));
    let as_dir = m.to_value_named(LmmMember::StripeOffset);
    assert_eq!(as_dir.stripe_offset, LmmUnion::StripeOffset(4));
    assert_ne!(owned, as_dir);
    assert_eq!(
        Lov::Md(owned).to_bytes().unwrap(),
        Lov::Md(as_dir).to_bytes().unwrap()
    );
    // The same payload read as a directory default: one line, the union as stripe_offset.
    let dir = v.getstripe().layout_of(LayoutOf::Dir).to_string();
    assert!(
        dir.starts_with(
            "stripe_count:  1 stripe_size:   1048576 pattern:       raid0 stripe_offset: 4\n"
        ),
        "{dir}"
    );
}

#[test]
fn uninstantiated_component_placeholder() {
    // Item 4: `lfs setstripe -E 1M -c 1 -E -1 -c 4`, written below 1 MiB: the second
    // component keeps lmm_stripe_count 4 and holds one entry with l_ost_idx = -1.
    let first = v1(1, 0, &[(0x2_8000_0400, 3, 0)]);
    let second = v1(4, 0xffff, &[(0, 0, u32::MAX)]);
    let b = comp(
        LOV_MAGIC_COMP_V1,
        &[
            (0x10, 0, 1 << 20, first.clone()),
            (0, 1 << 20, u64::MAX, second.clone()),
        ],
    );
    let v = LovView::parse(&b).expect("Lustre writes this");
    let LovView::Comp(c) = v else { panic!() };
    let LovBlobView::Md(m) = c.components().nth(1).unwrap().blob else {
        panic!()
    };
    assert!(m.has_placeholder());
    assert_eq!((m.stripe_count(), m.objects().len()), (4, 1));
    assert_eq!(v.layout_of_guess(), LayoutOf::File);
    assert_eq!(
        v.to_value().to_bytes().unwrap(),
        b,
        "re-encodes byte for byte"
    );
    let text = v.getstripe().to_string();
    assert!(
        text.ends_with(
            "      lmm_stripe_count:  4\n      lmm_stripe_size:   1048576\n      lmm_pattern:       raid0\n      lmm_layout_gen:    0\n      lmm_stripe_offset: -1\n\n"
        ),
        "no objects for an uninstantiated component: {text}"
    );
    // The placeholder must carry index -1.
    let bad = comp(
        LOV_MAGIC_COMP_V1,
        &[
            (0x10, 0, 1 << 20, first.clone()),
            (0, 1 << 20, u64::MAX, v1(4, 0xffff, &[(0, 0, 2)])),
        ],
    );
    let e = LovView::parse(&bad).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::LovUninitObjects {
            objects: 1,
            stripes: 4
        }
    );
    assert_eq!((e.at.field, e.at.offset), ("lmm_objects", 128 + 56 + 32));
    // One entry is not enough once the component is instantiated.
    let init = comp(
        LOV_MAGIC_COMP_V1,
        &[
            (0x10, 0, 1 << 20, first.clone()),
            (0x10, 1 << 20, u64::MAX, second),
        ],
    );
    assert!(matches!(
        LovView::parse(&init).unwrap_err().kind,
        ErrorKind::PayloadSizeMismatch { expected, .. } if expected == 32 + 4 * 24
    ));
    // `lfs setstripe -o`: an uninstantiated component with its OST list, one entry each.
    let listed = v1(2, 0xffff, &[(0, 0, 3), (0, 0, 5)]);
    let b = comp(
        LOV_MAGIC_COMP_V1,
        &[(0x10, 0, 1 << 20, first), (0, 1 << 20, u64::MAX, listed)],
    );
    assert!(LovView::parse(&b).is_ok());
    // A plain layout has no placeholder form.
    assert!(LovView::parse(&v1(4, 0, &[(0, 0, u32::MAX)])).is_err());
}

#[test]
fn sel_magic_on_disk() {
    // Item 5: LOV_MAGIC_SEL (0x0BD80BD0), with an extension component.
    let first = v1(1, 0, &[(0x2_8000_0400, 3, 0)]);
    let mut ext = v1(0, 0xffff, &[(0, 0, u32::MAX)]);
    ext[24..28].copy_from_slice(&le32(65536)); // 64 MiB in KiB
    let b = comp(
        LOV_MAGIC_SEL,
        &[
            (0x10, 0, 64 << 20, first.clone()),
            (0x40, 64 << 20, u64::MAX, ext),
        ],
    );
    let v = LovView::parse(&b).expect("accepted");
    assert_eq!(v.magic(), LOV_MAGIC_SEL);
    let value = v.to_value();
    let Lov::Comp(c) = &value else { panic!() };
    assert!(c.sel);
    assert_eq!(value.to_bytes().unwrap(), b);
    let text = v.getstripe().to_string();
    // lfs sees it after lod_xattr_get has rewritten the magic to COMP_V1.
    assert!(text.contains("  lcm_magic:         0x0BD60BD0\n"), "{text}");
    assert!(
        text.contains("    lcme_flags:          extension\n"),
        "{text}"
    );
    assert!(
        text.contains("      lmm_stripe_count:  0\n      lmm_extension_size: 67108864\n"),
        "{text}"
    );
    // SEL inside a composite is a nested composite.
    let nested = comp(LOV_MAGIC_COMP_V1, &[(0x10, 0, u64::MAX, b[..].to_vec())]);
    assert!(matches!(
        LovView::parse(&nested).unwrap_err().kind,
        ErrorKind::LovNestedComposite { index: 0 }
    ));
}

#[test]
fn composite_padding_is_kept() {
    // Item 12: after a client read lcm_padding2 holds a stripe count and size; nothing is
    // dropped and the bytes re-encode as they were.
    let mut b = comp(
        LOV_MAGIC_COMP_V1,
        &[(0x10, 0, u64::MAX, v1(1, 0, &[(0x2_8000_0400, 3, 0)]))],
    );
    b[24..26].copy_from_slice(&1u16.to_le_bytes());
    b[26..30].copy_from_slice(&le32(1 << 20));
    let v = LovView::parse(&b).unwrap();
    let LovView::Comp(c) = v else { panic!() };
    assert_eq!(&c.padding()[5..11], &[1, 0, 0, 0, 0x10, 0]);
    assert_eq!(v.to_value().to_bytes().unwrap(), b);
}
