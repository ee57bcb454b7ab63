//! Xattr payloads (WIRE.md §9): golden vectors, one rejection per rule, prefixes, round trips,
//! ACL semantics and the typed reply accessors.

use bytes::Bytes;
use lustre_dne_intent::ErrorKind;
use lustre_dne_intent::intent::{
    EntryName, GroupList, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation, PrepResult,
    PrepareOutcome, PrepareReply, PrepareRequest, ReplyView, UnknownReason,
};
use lustre_dne_intent::wire::{LockMode, LuFid, LustreHandle};
use lustre_dne_intent::xattr::acl::{MAY_EXEC, MAY_READ, MAY_WRITE};
use lustre_dne_intent::xattr::dmv::{LMV_INHERIT_NONE, LMV_INHERIT_UNLIMITED};
use lustre_dne_intent::xattr::lov::LovBlob;
use lustre_dne_intent::xattr::*;
use lustre_dne_intent::{DecodeError, EncodeError, Endian};
use proptest::prelude::*;

fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn all_vectors() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/testdata", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_suffix(".bin")?.to_string();
            stem.starts_with("xattr_").then_some(stem)
        })
        .collect();
    v.sort();
    v.into_iter()
        .map(|n| {
            let b = vector(&n);
            (n, b)
        })
        .collect()
}

/// Decodes with the decoder the vector's name selects; returns the re-encoding.
fn decode_any(name: &str, b: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let kind = name.trim_start_matches("xattr_");
    Ok(if kind.starts_with("acl") {
        AclView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else if kind.starts_with("pin") {
        PinView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else if kind.starts_with("lmv") {
        LmvView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else if kind.starts_with("dmv") {
        DefaultLmvView::parse(b)?
            .to_value()
            .to_bytes()
            .unwrap()
            .to_vec()
    } else if kind.starts_with("lov") {
        LovView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else {
        panic!("unknown vector kind {name}")
    })
}

fn kind_of(r: Result<impl Sized, DecodeError>) -> ErrorKind {
    match r {
        Ok(_) => panic!("decoded, expected an error"),
        Err(e) => e.kind,
    }
}

// ------------------------------------------------------------------ golden vectors

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

const U: u32 = u32::MAX;

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
            (en.id, en.extent_start, en.extent_end, en.offset, en.size),
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

// ------------------------------------------------------------------ one rejection per rule

fn le32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
fn le16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut b = 2u32.to_le_bytes().to_vec();
    for &(t, p, i) in entries {
        b.extend_from_slice(&t.to_le_bytes());
        b.extend_from_slice(&p.to_le_bytes());
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}

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
    assert!(LmvView::parse(&lmv_bytes(LMV_MAGIC_V1, 0, 0)).is_ok());
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
    let mut b = lmv_bytes(LMV_MAGIC_V1, 0, 0);
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

// ------------------------------------------------------------------ ACL semantics

#[test]
fn acl_permission_rules() {
    // owner 100:200; user 300 rwx; group 200 (owning) r--; group 400 rw-; mask r-x; other --x.
    let b = acl(&[
        (1, 6, U),
        (2, 7, 300),
        (4, 4, U),
        (8, 6, 400),
        (0x10, 5, U),
        (0x20, 1, U),
    ]);
    let v = AclView::parse(&b).unwrap();
    let c = |fsuid, fsgid, groups: &'static [u32]| Credentials {
        fsuid,
        fsgid,
        groups,
    };
    let p = |cred: Credentials<'_>, want| v.permission(100, 200, &cred, want).unwrap();
    // The owner gets USER_OBJ, no mask.
    let r = p(c(100, 1, &[]), MAY_READ | MAY_WRITE);
    assert_eq!(
        (r.allowed, r.class, r.groups_consulted),
        (true, AclClass::Owner, false)
    );
    assert!(!p(c(100, 1, &[]), MAY_EXEC).allowed);
    // A named user is capped by the mask.
    let r = p(c(300, 1, &[]), MAY_READ | MAY_EXEC);
    assert_eq!((r.allowed, r.class), (true, AclClass::NamedUser));
    assert!(!p(c(300, 1, &[]), MAY_WRITE).allowed);
    // Owning group r--.
    let r = p(c(5, 200, &[]), MAY_READ);
    assert_eq!(
        (r.allowed, r.class, r.groups_consulted),
        (true, AclClass::Group, true)
    );
    // Group 400 grants rw- but the mask removes w: denied.
    assert!(!p(c(5, 1, &[400]), MAY_WRITE).allowed);
    // A member of 200 and 400 wanting read: the first granting entry wins.
    assert!(p(c(5, 200, &[400]), MAY_READ).allowed);
    // A group match that grants nothing denies, even though OTHER grants x.
    let r = p(c(5, 200, &[]), MAY_EXEC);
    assert_eq!((r.allowed, r.class), (false, AclClass::Group));
    // Nobody: OTHER.
    let r = p(c(5, 1, &[]), MAY_EXEC);
    assert_eq!((r.allowed, r.class), (true, AclClass::Other));
    assert!(!p(c(5, 1, &[]), MAY_READ).allowed);
}

#[test]
fn acl_equiv_mode_and_masq() {
    let v = acl(&[(1, 7, U), (4, 5, U), (0x20, 4, U)]);
    let v = AclView::parse(&v).unwrap();
    assert_eq!(
        v.equiv_mode(),
        Some(EquivMode {
            mode: 0o754,
            equivalent: true
        })
    );
    assert_eq!(Acl::from_mode(0o754), v.to_value());
    let m = acl(&[(1, 7, U), (4, 5, U), (0x10, 1, U), (0x20, 4, U)]);
    let m = AclView::parse(&m).unwrap();
    assert_eq!(
        m.equiv_mode(),
        Some(EquivMode {
            mode: 0o714,
            equivalent: false
        })
    );
    // Without MASK, create_masq uses GROUP_OBJ and drops the ACL on Linux.
    let mut a = v.to_value();
    let (mode, keep) = a.create_masq(0o100666);
    assert_eq!((mode, keep), (0o100644, false));
    assert_eq!(a, Acl::from_mode(0o644));
    // Under a default ACL the umask is ignored: rwx everywhere keeps the requested 0666.
    let d = acl(&[(1, 7, U), (4, 7, U), (0x10, 7, U), (0x20, 7, U)]);
    let d = AclView::parse(&d).unwrap();
    let c = posix_acl_create(Some(&d), 0o100666, 0o022);
    assert_eq!(c.mode, 0o100666);
}

// ------------------------------------------------------------------ typed reply accessors

fn reply_with(results: &[(MliBuf, PrepResult<Bytes>)]) -> Vec<u8> {
    let body = MdCreatePrepareReq {
        fid: LuFid::new(0x200000401, 1, 0),
        child_mode: 0o040755,
        buf_limit: [216, 65536, 65536, 65536, 65536, 65536],
        ..Default::default()
    };
    let name = EntryName::new(b"newdir").unwrap();
    let req = PrepareRequest::new(
        Operation::Create,
        body,
        Some(name),
        GroupList::new(),
        LockMode::PW,
        0x1234,
    );
    let ctx = req.reply_context().unwrap();
    let mut o = PrepareOutcome::new(MdCreatePrepareRep::default());
    for (b, s) in results {
        o.set_result(*b, s.clone());
    }
    let r = PrepareReply::granting(&ctx, LustreHandle::default(), Some(o));
    r.to_bytes(Endian::Little).unwrap().to_vec()
}

#[test]
fn reply_accessors() {
    let acl_b = Bytes::from(vector("xattr_acl_default"));
    let lov_b = Bytes::from(vector("xattr_lov_comp3"));
    let msg = reply_with(&[
        (MliBuf::DefAcl, PrepResult::Present(acl_b.clone())),
        (MliBuf::Pin, PrepResult::Absent),
        (MliBuf::Lov, PrepResult::Present(lov_b)),
        (
            MliBuf::DefLmv,
            PrepResult::Unknown(UnknownReason::Truncated { size: 70000 }),
        ),
    ]);
    let view = ReplyView::parse(&msg).unwrap();
    let PrepResult::Present(a) = view.def_acl().unwrap() else {
        panic!()
    };
    assert_eq!(a.len(), 6);
    assert_eq!(view.pin().unwrap().state_name(), "absent");
    assert_eq!(view.lmv().unwrap().state_name(), "unknown");
    assert!(matches!(
        view.lov().unwrap(),
        PrepResult::Present(LovView::Comp(_))
    ));
    assert_eq!(view.def_lmv().unwrap().state_name(), "truncated");

    // A malformed known-present payload fails the reply (WIRE.md §7), reported at its offset in
    // the message with the payload's rule; the encoder refuses it too.
    let mut msg = reply_with(&[(MliBuf::DefAcl, PrepResult::Present(acl_b.clone()))]);
    let base = ReplyView::parse(&msg)
        .unwrap()
        .result_offset(MliBuf::DefAcl);
    assert_eq!(&msg[base..base + 4], &2u32.to_le_bytes());
    msg[base + 6] = 9; // USER_OBJ e_perm
    let e = ReplyView::parse(&msg).unwrap_err();
    assert_eq!(e.kind, ErrorKind::AclBadPerm { index: 0, perm: 9 });
    assert_eq!(e.at.offset, base + 6);
    assert_eq!(e.rule(), "W9.5");
    let mut bad = acl_b.to_vec();
    bad[6] = 9;
    let mut o = PrepareOutcome::new(MdCreatePrepareRep::default());
    o.set_result(MliBuf::DefAcl, PrepResult::Present(Bytes::from(bad)));
    let mut rep = ReplyView::parse(&reply_with(&[])).unwrap().to_value();
    rep.outcome = Some(o);
    let e = rep.to_bytes(Endian::Little).unwrap_err();
    assert!(
        matches!(e, EncodeError::Invalid(d) if d.kind == ErrorKind::AclBadPerm { index: 0, perm: 9 }),
        "{e}"
    );
}

// ------------------------------------------------------------------ round trips

fn arb_pool() -> impl Strategy<Value = PoolName> {
    proptest::collection::vec(b'a'..=b'z', 0..=15).prop_map(|v| PoolName::new(&v).unwrap())
}

fn arb_acl() -> impl Strategy<Value = Acl> {
    (
        any::<[u16; 4]>(),
        proptest::collection::btree_map(any::<u32>(), 0u16..8, 0..20),
        proptest::collection::btree_map(any::<u32>(), 0u16..8, 0..20),
        any::<bool>(),
    )
        .prop_map(|(p, users, groups, mask)| {
            let mut e = vec![AclEntry::new(AclTag::USER_OBJ, AclPerm(p[0] & 7), 0)];
            e.extend(
                users
                    .iter()
                    .map(|(&id, &pm)| AclEntry::new(AclTag::USER, AclPerm(pm), id)),
            );
            e.push(AclEntry::new(AclTag::GROUP_OBJ, AclPerm(p[1] & 7), 0));
            e.extend(
                groups
                    .iter()
                    .map(|(&id, &pm)| AclEntry::new(AclTag::GROUP, AclPerm(pm), id)),
            );
            if mask || !users.is_empty() || !groups.is_empty() {
                e.push(AclEntry::new(AclTag::MASK, AclPerm(p[2] & 7), 0));
            }
            e.push(AclEntry::new(AclTag::OTHER, AclPerm(p[3] & 7), 0));
            Acl::new(e)
        })
}

fn arb_fid() -> impl Strategy<Value = LuFid> {
    (any::<u64>(), any::<u32>(), any::<u32>()).prop_map(|(s, o, v)| LuFid::new(s, o, v))
}

fn arb_foreign() -> impl Strategy<Value = ForeignMd> {
    (
        any::<u32>(),
        any::<u32>(),
        proptest::collection::vec(any::<u8>(), 0..64),
    )
        .prop_map(|(t, f, v)| ForeignMd {
            foreign_type: ForeignType(t),
            flags: f,
            value: Bytes::from(v),
        })
}

fn arb_lmv() -> impl Strategy<Value = Lmv> {
    let md = (
        prop_oneof![Just(LMV_MAGIC_V1), Just(LMV_MAGIC_STRIPE)],
        any::<[u32; 5]>(),
        arb_pool(),
        proptest::collection::vec(arb_fid(), 0..40),
        any::<bool>(),
        any::<[u8; 12]>(),
    )
        .prop_map(|(magic, x, pool_name, fids, bare, padding)| {
            Lmv::Md(LmvMd {
                padding,
                magic,
                stripe_count: fids.len() as u32,
                master_mdt_index: x[0],
                hash_type: LmvHashType(x[1]),
                layout_version: x[2],
                migrate_offset: x[3],
                migrate_hash: LmvHashType(x[4]),
                pool_name,
                stripe_fids: if bare { vec![] } else { fids },
            })
        });
    let foreign = arb_foreign()
        .prop_filter("Lustre refuses an empty foreign LMV", |f| {
            !f.value.is_empty()
        })
        .prop_map(Lmv::Foreign);
    prop_oneof![md, foreign]
}

fn arb_dmv() -> impl Strategy<Value = DefaultLmv> {
    (
        any::<bool>(),
        -5i32..=2000,
        any::<[u32; 3]>(),
        any::<[u8; 2]>(),
        arb_pool(),
        proptest::collection::vec((arb_fid(), any::<u32>(), any::<u32>()), 0..20),
        any::<[u8; 10]>(),
    )
        .prop_map(
            |(specific, count, x, mi, pool_name, objs, padding)| DefaultLmv {
                padding,
                magic: if specific {
                    LMV_USER_MAGIC_SPECIFIC
                } else {
                    LMV_USER_MAGIC
                },
                stripe_count: if specific { objs.len() as i32 } else { count },
                stripe_offset: x[0],
                hash_type: LmvHashType(x[1]),
                lum_type: x[2],
                max_inherit: mi[0],
                max_inherit_rr: mi[1],
                pool_name,
                objects: if specific {
                    objs.into_iter()
                        .map(|(fid, mds, padding)| LmvUserMdsData { fid, mds, padding })
                        .collect()
                } else {
                    vec![]
                },
            },
        )
}

fn arb_lov_md() -> impl Strategy<Value = LovMd> {
    (
        prop_oneof![
            Just(LOV_MAGIC_V1),
            Just(LOV_MAGIC_V3),
            Just(LOV_MAGIC_SPECIFIC)
        ],
        any::<[u32; 2]>(),
        any::<[u64; 2]>(),
        prop_oneof![0u16..=2000, 0xffe0u16..=0xffff],
        any::<u16>(),
        arb_pool(),
        any::<bool>(),
        proptest::collection::vec(any::<(u64, u64, u32, u32)>(), 30),
    )
        .prop_map(|(magic, x, oi, count, offset, pool, with_objects, objs)| {
            let n = stripe_objects(count).min(30);
            let count = if with_objects && count < 0xffe0 {
                n as u16
            } else {
                count
            };
            LovMd {
                magic,
                pattern: LovPattern(x[0]),
                oi: OstId {
                    id: oi[0],
                    seq: oi[1],
                },
                stripe_size: x[1],
                stripe_count: count,
                stripe_offset: offset,
                member: LmmMember::default(),
                pool_name: (magic != LOV_MAGIC_V1).then_some(pool),
                objects: if with_objects && count < 0xffe0 {
                    objs[..n]
                        .iter()
                        .map(|&(id, seq, g, idx)| LovOstData {
                            oi: OstId { id, seq },
                            gen_: g,
                            idx,
                        })
                        .collect()
                } else {
                    vec![]
                },
            }
        })
}

fn arb_blob() -> impl Strategy<Value = LovBlob> {
    prop_oneof![
        3 => arb_lov_md().prop_map(LovBlob::Md),
        1 => arb_foreign().prop_map(LovBlob::Foreign)
    ]
}

fn arb_lov() -> impl Strategy<Value = Lov> {
    let comp = (
        any::<(u32, u16, u16, u8)>(),
        proptest::collection::vec(
            (any::<(u32, u32, u64, u64, u32, u64, [u8; 4])>(), arb_blob()),
            1..6,
        ),
        any::<(bool, [u8; 13])>(),
    )
        .prop_map(|((gen_, flags, mirrors, ec), comps, (sel, padding))| {
            Lov::Comp(LovComp {
                sel,
                padding,
                layout_gen: gen_,
                flags: LcmFlags(flags),
                mirror_count: mirrors,
                ec_count: ec,
                components: comps
                    .into_iter()
                    .map(|((id, fl, s, e, lg, t, b), blob)| LovComponent {
                        id,
                        flags: LcmeFlags(fl),
                        extent_start: s,
                        extent_end: e,
                        layout_gen: lg,
                        time_and_id: t,
                        dstripe_count: b[0],
                        cstripe_count: b[1],
                        compr_type: b[2],
                        compr_bits: b[3],
                        blob,
                    })
                    .collect(),
            })
        });
    prop_oneof![
        arb_lov_md().prop_map(Lov::Md),
        comp,
        arb_foreign().prop_map(Lov::Foreign)
    ]
}

proptest! {

    #[test]
    fn acl_round_trip(a in arb_acl()) {
        let b = a.to_bytes().unwrap();
        prop_assert_eq!(b.len(), a.wire_len());
        let v = AclView::parse(&b).unwrap();
        prop_assert_eq!(v.to_value(), a.clone());
        let mut buf = vec![0u8; a.wire_len()];
        prop_assert_eq!(a.encode_into(&mut buf).unwrap(), b.len());
        prop_assert_eq!(&buf[..], &b[..]);
        let mut v2 = Vec::new();
        a.put(&mut v2).unwrap();
        prop_assert_eq!(&v2[..], &b[..]);
        if a.wire_len() > 0 {
            let mut small = vec![0u8; a.wire_len() - 1];
            prop_assert!(a.encode_into(&mut small).is_err());
        }
    }

    #[test]
    fn pin_round_trip(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        let p = Pin::new(bytes.clone());
        let b = p.to_bytes().unwrap();
        prop_assert_eq!(&b[..], &bytes[..]);
        let v = PinView::parse(&b).unwrap();
        prop_assert_eq!(v.to_value(), p);
        let _ = v.entries().count();
    }

    #[test]
    fn pin_entries_round_trip(entries in proptest::collection::vec(("[a-z]{1,8}", "[a-z0-9]{1,15}"), 0..6)) {
        let pairs: Vec<(&str, &str)> = entries.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let p = Pin::from_entries(&pairs);
        let view = p.view();
        let got: Vec<_> = view.entries().map(|e| e.map(|e| (e.key.to_vec(), e.raw_value.to_vec()))).collect();
        prop_assert_eq!(got.len(), pairs.len());
        for (g, (k, v)) in got.iter().zip(&pairs) {
            match g {
                Ok((gk, gv)) => {
                    prop_assert_eq!(gk.as_slice(), k.as_bytes());
                    prop_assert_eq!(gv.as_slice(), v.as_bytes());
                }
                Err(e) => prop_assert!(*k == "hsm", "{:?}", e),
            }
        }
    }

    #[test]
    fn lmv_round_trip(l in arb_lmv()) {
        let b = l.to_bytes().unwrap();
        prop_assert_eq!(b.len(), l.wire_len());
        prop_assert_eq!(LmvView::parse(&b).unwrap().to_value(), l);
    }

    #[test]
    fn dmv_round_trip(d in arb_dmv()) {
        let b = d.to_bytes().unwrap();
        let v = DefaultLmvView::parse(&b).unwrap();
        prop_assert_eq!(v.to_value(), d.clone());
        let _ = v.getdirstripe().to_string();
        if let Some(c) = d.inherited() {
            prop_assert!(DefaultLmvView::parse(&c.to_bytes().unwrap()).is_ok());
        }
    }

    #[test]
    fn lov_round_trip(l in arb_lov()) {
        let b = l.to_bytes().unwrap();
        prop_assert_eq!(b.len(), l.wire_len());
        let v = LovView::parse(&b).unwrap();
        prop_assert_eq!(v.to_value(), l);
        let _ = v.getstripe().to_string();
    }

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..600), magic in prop_oneof![
        Just(LOV_MAGIC_COMP_V1), Just(LOV_MAGIC_V1), Just(LOV_MAGIC_V3), Just(LMV_MAGIC_V1),
        Just(LMV_USER_MAGIC), Just(2u32), any::<u32>()]) {
        let mut b = bytes;
        if b.len() >= 4 {
            b[..4].copy_from_slice(&magic.to_le_bytes());
        }
        let _ = AclView::parse(&b).map(|v| (v.getfacl(AclKind::Access).to_string(), v.equiv_mode()));
        let _ = LmvView::parse(&b).map(|v| v.getdirstripe().to_string());
        let _ = DefaultLmvView::parse(&b).map(|v| v.getdirstripe().to_string());
        let _ = LovView::parse(&b).map(|v| v.getstripe().to_string());
        let _ = PinView::parse(&b).map(|v| v.entries().count());
    }
}
