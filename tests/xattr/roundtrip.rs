//! Property round trips: owned payload values encode, decode to themselves and re-encode.

use super::*;

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
        // lmv_is_sane2: one stripe at least (W9.21).
        proptest::collection::vec(arb_fid(), 1..40),
        any::<bool>(),
        any::<[u8; 12]>(),
    )
        .prop_map(|(magic, x, pool_name, fids, bare, padding)| {
            Lmv::Md(LmvMd {
                padding,
                magic,
                stripe_count: fids.len() as u32,
                master_mdt_index: x[0],
                // A known hash function, any flags (W9.22).
                hash_type: LmvHashType((x[1] & !0xffff) | (1 + x[1] % 4)),
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
                stripe_offset: LmmUnion::StripeOffset(offset),
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
                        entry: LovCompEntry {
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
                        },
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
        // The generated unions are all `lmm_stripe_offset`, as a directory's default names them.
        prop_assert_eq!(v.to_value_of(LayoutOf::Dir), l);
        // Named as a file's layout, the union may change member but never bytes.
        prop_assert_eq!(&v.to_value_of(LayoutOf::File).to_bytes().unwrap()[..], &b[..]);
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
