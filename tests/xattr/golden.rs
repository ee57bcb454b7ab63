//! Golden vectors: kernel-made ACLs, pins, LMVs, default LMVs and LOVs, decoded field by field
//! and re-encoded byte for byte; every prefix of every vector.

use super::*;

#[test]
fn every_vector_decodes_and_reencodes_byte_for_byte() {
    let all = all_vectors();
    assert!(all.len() >= 20, "{} vectors", all.len());
    for (name, b) in &all {
        let again = decode_any(name, b).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(&again, b, "{name} does not re-encode byte for byte");
        let md = format!("{}/testdata/{name}.md", env!("CARGO_MANIFEST_DIR"));
        assert!(std::path::Path::new(&md).exists(), "{md} missing");
    }
}

#[test]
fn every_prefix_is_rejected_or_decoded_without_panic() {
    for (name, b) in all_vectors() {
        for n in 0..b.len() {
            let p = &b[..n];
            let _ = AclView::parse(p);
            let _ = PinView::parse(p).map(|v| v.entries().count());
            let _ = LmvView::parse(p);
            let _ = DefaultLmvView::parse(p);
            let _ = LovView::parse(p).map(|v| v.getstripe().to_string());
            // The only strict prefixes that are valid payloads: any prefix of a pin (opaque),
            // the 4-byte empty ACL, and the 32-byte template of a V1 layout with objects.
            // And the 56-byte header of a striped directory's LMV (its on-disk form).
            let may_decode = name.contains("pin")
                || (name.contains("acl") && n == 4)
                || (name == "xattr_lov_v1_objects" && n == 32)
                || (name == "xattr_lmv_striped" && n == 56);
            if !may_decode {
                let r = decode_any(&name, p);
                assert!(r.is_err(), "{name}: prefix of {n} bytes decoded");
            }
        }
    }
}

fn acl_entries(name: &str) -> Vec<(AclTag, u16, u32)> {
    let b = vector(name);
    AclView::parse(&b)
        .unwrap()
        .entries()
        .map(|e| (e.tag, e.perm.bits(), e.id))
        .collect()
}

#[test]
fn kernel_access_acl() {
    use AclTag as T;
    assert_eq!(
        acl_entries("xattr_acl_access"),
        vec![
            (T::USER_OBJ, 6, U),
            (T::USER, 5, 1000),
            (T::USER, 6, 1001),
            (T::GROUP_OBJ, 4, U),
            (T::GROUP, 4, 2000),
            (T::MASK, 7, U),
            (T::OTHER, 4, U),
        ]
    );
    let b = vector("xattr_acl_access");
    let v = AclView::parse(&b).unwrap();
    assert_eq!(v.wire_len(), 60);
    assert_eq!(
        v.getfacl(AclKind::Access).to_string(),
        "user::rw-\nuser:1000:r-x\nuser:1001:rw-\ngroup::r--\ngroup:2000:r--\nmask::rwx\nother::r--\n"
    );
    let eq = v.equiv_mode().unwrap();
    assert_eq!(
        eq,
        EquivMode {
            mode: 0o674,
            equivalent: false
        }
    );
}

#[test]
fn kernel_default_acl_and_create() {
    use AclTag as T;
    assert_eq!(
        acl_entries("xattr_acl_default"),
        vec![
            (T::USER_OBJ, 7, U),
            (T::USER, 7, 1000),
            (T::GROUP_OBJ, 5, U),
            (T::GROUP, 7, 100),
            (T::MASK, 5, U),
            (T::OTHER, 0, U),
        ]
    );
    let b = vector("xattr_acl_default");
    let v = AclView::parse(&b).unwrap();
    let text = v.getfacl(AclKind::Default).to_string();
    assert!(text.contains("default:user:1000:rwx\t"), "{text}");
    assert!(text.contains("#effective:r-x"), "{text}");
    // As the .md says: a file 0666 gets 0640, a directory 0777 gets 0750 (umask ignored).
    let file = posix_acl_create(Some(&v), 0o100666, 0o077);
    assert_eq!(file.mode, 0o100640);
    assert!(file.linux_keeps_access);
    assert!(file.default.is_none());
    let access = file.access.unwrap();
    assert_eq!(access.entries[0].perm, AclPerm(6)); // USER_OBJ rwx ∧ rw-
    assert_eq!(access.entries[4].perm, AclPerm(4)); // MASK r-x ∧ rw-
    assert_eq!(access.entries[5].perm, AclPerm(0)); // OTHER
    assert_eq!(access.entries[2].perm, AclPerm(5)); // GROUP_OBJ untouched (a MASK exists)
    let dir = posix_acl_create(Some(&v), 0o040777, 0o022);
    assert_eq!(dir.mode, 0o040750);
    assert_eq!(dir.default.unwrap(), v.to_value());
    // No default ACL: the umask applies.
    let plain = posix_acl_create(None, 0o100666, 0o022);
    assert_eq!((plain.mode, plain.access), (0o100644, None));
    // A symlink gets nothing.
    let l = posix_acl_create(Some(&v), 0o120777, 0o022);
    assert_eq!((l.mode, l.access, l.default), (0o120777, None, None));
}

#[test]
fn kernel_32_and_large_acls() {
    let e = acl_entries("xattr_acl_32");
    assert_eq!(e.len(), 32);
    for i in 0..14u32 {
        assert_eq!(e[1 + i as usize], (AclTag::USER, 4, 2001 + i));
        assert_eq!(e[16 + i as usize], (AclTag::GROUP, 2, 3001 + i));
    }
    assert_eq!(e[15].0, AclTag::GROUP_OBJ);
    assert_eq!(e[30], (AclTag::MASK, 6, U));
    assert_eq!(e[31], (AclTag::OTHER, 0, U));

    let e = acl_entries("xattr_acl_large");
    assert_eq!(e.len(), 404);
    for i in 1..=200u32 {
        assert_eq!(e[i as usize], (AclTag::USER, 5, 10000 + 7 * i));
        assert_eq!(e[201 + i as usize], (AclTag::GROUP, 6, 20000 + 3 * i));
    }
    assert_eq!(e[0], (AclTag::USER_OBJ, 7, U));
    assert_eq!(e[201], (AclTag::GROUP_OBJ, 5, U));
    assert_eq!(e[402], (AclTag::MASK, 7, U));
    assert_eq!(e[403], (AclTag::OTHER, 4, U));
}

#[test]
fn pin_vectors() {
    let b = vector("xattr_pin_both");
    let p = PinView::parse(&b).unwrap();
    assert_eq!(p.as_bytes(), b"[hsm: 2,pool: flash]");
    let e: Vec<_> = p.entries().map(Result::unwrap).collect();
    assert_eq!(e.len(), 2);
    assert_eq!((e[0].key, e[0].value), (&b"hsm"[..], PinValue::Hsm(2)));
    assert_eq!(
        (e[1].key, e[1].value, e[1].offset),
        (&b"pool"[..], PinValue::Pool(b"flash"), 8)
    );
    assert_eq!(
        Pin::from_entries(&[("hsm", "2"), ("pool", "flash")]).0,
        &b[..]
    );

    let b = vector("xattr_pin_unknown");
    let p = PinView::parse(&b).unwrap();
    let e: Vec<_> = p.entries().map(Result::unwrap).collect();
    assert_eq!(e.len(), 3);
    assert_eq!(e[0].value, PinValue::Hsm(7));
    assert_eq!(
        (e[1].key, e[1].value),
        (&b"owner"[..], PinValue::Other(b"alice"))
    );
    assert_eq!(e[2].value, PinValue::Pool(b"ssd"));
    assert!(p.is_well_formed());
    assert_eq!(p.get(b"owner"), Some(PinValue::Other(b"alice")));
}

#[test]
fn pin_negative_hsm_id_is_the_same_u32() {
    // llapi_pcc_pin_file writes "[%s: %d]" of a __u32 (liblustreapi_pcc.c), so this exists.
    let p = PinView::parse(b"[hsm: -91778478]").unwrap();
    let e: Vec<_> = p.entries().map(Result::unwrap).collect();
    assert_eq!(e[0].value, PinValue::Hsm(4_203_188_818));
    assert_eq!(4_203_188_818u32 as i32, -91_778_478);
    assert!(p.is_well_formed());
    let edge = PinView::parse(b"[hsm: -2147483648]").unwrap();
    assert_eq!(
        edge.entries().next().unwrap().unwrap().value,
        PinValue::Hsm(0x8000_0000)
    );
    let minus_one = PinView::parse(b"[hsm: -1]").unwrap();
    assert_eq!(
        minus_one.entries().next().unwrap().unwrap().value,
        PinValue::Hsm(u32::MAX)
    );
    // The bytes still travel verbatim.
    assert_eq!(p.to_value().to_bytes().unwrap(), &b"[hsm: -91778478]"[..]);
}

#[test]
fn pin_grammar_errors_never_refuse_the_bytes() {
    use PinSyntaxKind as K;
    let cases: &[(&[u8], usize, K)] = &[
        (b"hsm: 1", 0, K::NotOpened),
        (b"[hsm: 1", 7, K::NotClosed),
        (b"[hsm: 1]x", 8, K::TrailingBytes),
        (b"[: 1]", 1, K::EmptyKey),
        (b"[hsm 1]", 6, K::MissingColon),
        (b"[a: \"b\" c]", 8, K::MissingSeparator),
        (b"[a: \"b]", 4, K::UnterminatedQuote),
        (b"[hsm: 1\0]", 7, K::NotAscii { byte: 0 }),
        (b"[hsm: x1]", 6, K::BadArchiveId),
        (b"[hsm: 4294967296]", 6, K::BadArchiveId),
        (b"[hsm: -0]", 6, K::BadArchiveId),
        (b"[hsm: -2147483649]", 6, K::BadArchiveId),
        (b"[hsm: --1]", 6, K::BadArchiveId),
        (b"[pool: 0123456789abcdef]", 7, K::BadPoolName { len: 16 }),
    ];
    for &(text, offset, kind) in cases {
        let p = PinView::parse(text).expect("a pin is never refused");
        let err = p.entries().find_map(Result::err).unwrap();
        assert_eq!(
            err,
            PinSyntaxError { offset, kind },
            "{:?}",
            String::from_utf8_lossy(text)
        );
        assert_eq!(p.to_value().to_bytes().unwrap(), text);
    }
    // A bad value is reported and the next entry is still read.
    let p = PinView::parse(b"[hsm: x,pool: a]").unwrap();
    let r: Vec<_> = p.entries().collect();
    assert_eq!(r.len(), 2);
    assert!(r[0].is_err());
    assert_eq!(r[1].unwrap().value, PinValue::Pool(b"a"));
    // Quotes, spaces and the empty list.
    let p = PinView::parse(b" [ pool: 'my pool' , hsm:3 ] ").unwrap();
    let r: Vec<_> = p.entries().map(Result::unwrap).collect();
    assert_eq!(r[0].value, PinValue::Pool(b"my pool"));
    assert_eq!(r[0].raw_value, b"'my pool'");
    assert_eq!(r[1].value, PinValue::Hsm(3));
    assert_eq!(PinView::parse(b"[]").unwrap().entries().count(), 0);
}

#[test]
fn lmv_vectors() {
    let b = vector("xattr_lmv_striped");
    let LmvView::Md(m) = LmvView::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(m.magic(), LMV_MAGIC_V1);
    assert_eq!(m.stripe_count(), 4);
    assert_eq!(m.master_mdt_index(), 0);
    assert_eq!(m.hash_type().hash_fn(), LmvHashFn::FNV_1A_64);
    assert_eq!(m.layout_version(), 1);
    assert!(m.pool_name().is_empty());
    let fids: Vec<_> = m.stripe_fids().collect();
    assert_eq!(
        fids,
        [0x200000400, 0x240000400, 0x280000400, 0x2c0000400].map(|s| LuFid::new(s, 2, 0))
    );
    // lfs getdirstripe -v (lmv_dump_user_lmm): the MDT column comes from outside the payload.
    let v = LmvView::parse(&b).unwrap();
    assert_eq!(
        v.getdirstripe().to_string(),
        "lmv_magic: 0xcd20cd0 lmv_stripe_count: 4 lmv_stripe_offset: 0 lmv_hash_type: fnv_1a_64\n\
         mdtidx\t\t FID[seq:oid:ver]\n\
         \x20    ?\t\t [0x200000400:0x2:0x0]\t\t\n\
         \x20    ?\t\t [0x240000400:0x2:0x0]\t\t\n\
         \x20    ?\t\t [0x280000400:0x2:0x0]\t\t\n\
         \x20    ?\t\t [0x2c0000400:0x2:0x0]\t\t\n"
    );
    let text = v
        .getdirstripe()
        .fid(LuFid::new(0x200000401, 7, 0))
        .mdt(2)
        .stripe_mdts(&[2, 3, 0, 1])
        .to_string();
    assert!(
        text.starts_with(
            "lmv_fid: 0x200000401:0x7:0x0 lmv_magic: 0xcd20cd0 lmv_stripe_count: 4 \
             lmv_stripe_offset: 2 lmv_hash_type: fnv_1a_64\n"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("     1\t\t [0x2c0000400:0x2:0x0]\t\t\n"),
        "{text}"
    );

    let b = vector("xattr_lmv_stripe");
    let LmvView::Md(m) = LmvView::parse(&b).unwrap() else {
        panic!()
    };
    assert!(m.is_stripe());
    assert_eq!(
        (
            m.stripe_count(),
            m.master_mdt_index(),
            m.stripe_fids().len()
        ),
        (4, 2, 0)
    );

    let b = vector("xattr_lmv_foreign");
    let LmvView::Foreign(f) = LmvView::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(f.magic(), LMV_MAGIC_FOREIGN);
    assert_eq!(
        f.foreign_type(),
        lustre_dne_intent::xattr::ForeignType::SYMLINK
    );
    assert_eq!((f.flags(), f.value()), (0, &b"/mnt/other/dir"[..]));
}

#[test]
fn dmv_vectors_and_inheritance() {
    // (name, count, offset, hash, max_inherit, rr, child's (max_inherit, rr) or None)
    type Case = (&'static str, i32, u32, u32, u8, u8, Option<(u8, u8)>);
    let cases: &[Case] = &[
        ("xattr_dmv_inherit3", 1, u32::MAX, 2, 3, 0, Some((2, 0))),
        ("xattr_dmv_unlimited", 2, 1, 3, 0, 255, Some((0, 255))),
        ("xattr_dmv_end", -1, u32::MAX, 2, 1, 1, None),
        ("xattr_dmv_none", 4, u32::MAX, 2, 255, 0, None),
        ("xattr_dmv_max", 1, u32::MAX, 2, 250, 250, Some((249, 249))),
    ];
    for &(name, count, offset, hash, mi, rr, child) in cases {
        let b = vector(name);
        let v = DefaultLmvView::parse(&b).unwrap();
        assert_eq!(v.magic(), LMV_USER_MAGIC, "{name}");
        assert_eq!(v.stripe_count(), count, "{name}");
        assert_eq!(v.stripe_offset(), offset, "{name}");
        assert_eq!(v.hash_type().0, hash, "{name}");
        assert_eq!((v.max_inherit(), v.max_inherit_rr()), (mi, rr), "{name}");
        assert_eq!(v.objects().len(), 0);
        let got = v
            .to_value()
            .inherited()
            .map(|c| (c.max_inherit, c.max_inherit_rr));
        assert_eq!(got, child, "{name}");
        assert_eq!(v.is_inherited(), child.is_some());
    }
    let b = vector("xattr_dmv_inherit3");
    let text = DefaultLmvView::parse(&b)
        .unwrap()
        .getdirstripe()
        .to_string();
    assert_eq!(
        text,
        "lmv_magic: 0xcd30cd0 lmv_stripe_count: 1 lmv_stripe_offset: -1 lmv_hash_type: fnv_1a_64 \
         lmv_max_inherit: 3 lmv_max_inherit_rr: 0\n"
    );
    let b = vector("xattr_dmv_specific");
    let v = DefaultLmvView::parse(&b).unwrap();
    assert_eq!(v.magic(), LMV_USER_MAGIC_SPECIFIC);
    assert_eq!(v.pool_name().as_bytes(), b"fast");
    let o: Vec<_> = v.objects().collect();
    assert_eq!(
        o,
        vec![
            LmvUserMdsData {
                fid: LuFid::new(0x200000400, 1, 0),
                mds: 0,
                padding: 0,
            },
            LmvUserMdsData {
                fid: LuFid::new(0x240000400, 1, 0),
                mds: 3,
                padding: 0,
            },
        ]
    );
}

#[test]
fn inherit_steps_match_model() {
    for v in 0..=255u8 {
        let mi = step_max_inherit(v);
        let expect = match v {
            1 | 255 => 255,
            0 | 251..=254 => v,
            _ => v - 1,
        };
        assert_eq!(mi, expect, "max_inherit {v}");
        let rr = step_max_inherit_rr(v);
        let expect = match v {
            0 | 251..=255 => v,
            _ => v - 1,
        };
        assert_eq!(rr, expect, "max_inherit_rr {v}");
        assert_eq!(inherits_default_lmv(v), !matches!(v, 1 | 255));
    }
    assert_eq!(step_max_inherit(LMV_INHERIT_UNLIMITED), 0);
    assert_eq!(step_max_inherit(2), 1);
    assert_eq!(step_max_inherit(LMV_INHERIT_NONE), 255);
}

#[test]
fn lov_vectors() {
    let b = vector("xattr_lov_v1");
    let LovView::Md(m) = LovView::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(m.magic(), LOV_MAGIC_V1);
    assert_eq!(m.pattern(), LovPattern::RAID0);
    assert_eq!(
        (m.stripe_size(), m.stripe_count(), m.stripe_offset()),
        (1 << 20, 4, 0xffff)
    );
    assert!(m.pool_name().is_none());
    assert_eq!(m.objects().len(), 0);
    // A template: a directory's default, printed on one line (lov_dump_user_lmm_header).
    let v = LovView::parse(&b).unwrap();
    assert_eq!(v.layout_of_guess(), LayoutOf::Dir);
    assert_eq!(
        v.getstripe().to_string(),
        "stripe_count:  4 stripe_size:   1048576 pattern:       raid0 stripe_offset: -1\n\n"
    );
    assert_eq!(
        v.getstripe().yaml(true).to_string(),
        "stripe_count:  4\nstripe_size:   1048576\npattern:       raid0\nstripe_offset: -1\n"
    );
    assert_eq!(
        v.getstripe()
            .path("/mnt/lustre/d")
            .fid(LuFid::new(0x200000401, 2, 0))
            .to_string(),
        "/mnt/lustre/d\nlmm_fid:           [0x200000401:0x2:0x0]\n\
         stripe_count:  4 stripe_size:   1048576 pattern:       raid0 stripe_offset: -1\n\n"
    );

    let b = vector("xattr_lov_v3_pool");
    let LovView::Md(m) = LovView::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(m.magic(), LOV_MAGIC_V3);
    assert_eq!(
        (m.stripe_size(), m.stripe_count(), m.stripe_offset()),
        (4 << 20, 2, 1)
    );
    assert_eq!(m.pool_name().unwrap().as_bytes(), b"flash");
    assert!(
        LovView::parse(&b)
            .unwrap()
            .getstripe()
            .to_string()
            .contains(" stripe_offset: 1 pool:          flash\n")
    );

    let b = vector("xattr_lov_v1_objects");
    let LovView::Md(m) = LovView::parse(&b).unwrap() else {
        panic!()
    };
    let o: Vec<_> = m.objects().collect();
    assert_eq!(o.len(), 2);
    assert_eq!(
        (o[0].oi.id, o[0].oi.seq, o[0].idx),
        (0x1a2b, 0x100000000, 5)
    );
    assert_eq!(
        (o[1].oi.id, o[1].oi.seq, o[1].idx),
        (0x3c4d, 0x100010000, 6)
    );

    let b = vector("xattr_lov_comp3");
    let LovView::Comp(c) = LovView::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(
        (
            c.entry_count(),
            c.mirror_count(),
            c.layout_gen(),
            c.wire_len()
        ),
        (3, 0, 0, 288)
    );
    let comps: Vec<_> = c.components().collect();
    let exp = [
        (1, 0, 1 << 20, 176, 32, LOV_MAGIC_V1, 1, 1 << 20),
        (2, 1 << 20, 64 << 20, 208, 32, LOV_MAGIC_V1, 4, 1 << 20),
        (
            3,
            64 << 20,
            u64::MAX,
            240,
            48,
            LOV_MAGIC_V3,
            0xffff,
            4 << 20,
        ),
    ];
    for (comp, e) in comps.iter().zip(exp) {
        let en = &comp.entry;
        assert_eq!(
            (
                en.id,
                en.extent_start,
                en.extent_end,
                comp.offset,
                comp.size
            ),
            (e.0, e.1, e.2, e.3, e.4)
        );
        let LovBlobView::Md(m) = comp.blob else {
            panic!()
        };
        assert_eq!(
            (m.magic(), m.stripe_count(), m.stripe_size()),
            (e.5, e.6, e.7)
        );
    }
    let LovBlobView::Md(last) = comps[2].blob else {
        panic!()
    };
    assert_eq!(last.pool_name().unwrap().as_bytes(), b"archive");
    let text = LovView::parse(&b).unwrap().getstripe().to_string();
    assert!(text.contains("lcme_extent.e_end:   EOF"), "{text}");
    assert!(text.contains("lcm_entry_count:   3"), "{text}");

    let b = vector("xattr_lov_foreign");
    let LovView::Foreign(f) = LovView::parse(&b).unwrap() else {
        panic!()
    };
    assert_eq!(
        (f.magic(), f.foreign_type().0, f.flags()),
        (LOV_MAGIC_FOREIGN, 4, 1)
    );
    assert_eq!(f.value(), b"bucket/obj-0001");
}
