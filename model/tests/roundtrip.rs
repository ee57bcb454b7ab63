//! Property tests: value → bytes → value is the identity in both byte orders, and for canonical
//! input bytes → view → value → bytes is too. Every generated message obeys every rule, and
//! every reply is checked against its own request.

use bytes::Bytes;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::limits::*;
use lustre_dne_intent::mode;
use lustre_dne_intent::wire::*;
use proptest::prelude::*;

fn order() -> impl Strategy<Value = Endian> {
    prop_oneof![Just(Endian::Little), Just(Endian::Big)]
}

fn fid() -> impl Strategy<Value = LuFid> {
    (any::<u64>(), any::<u32>(), any::<u32>()).prop_map(|(s, o, v)| LuFid::new(s, o, v))
}

fn name() -> impl Strategy<Value = EntryName> {
    proptest::collection::vec(
        any::<u8>().prop_filter("no NUL or /", |b| *b != 0 && *b != b'/'),
        1..=NAME_MAX,
    )
    .prop_filter_map("not . or ..", |v| EntryName::new(&v).ok())
}

fn limit(pattr: bool) -> impl Strategy<Value = u32> {
    let lo = if pattr { MDT_BODY_SIZE as u32 } else { 1 };
    prop_oneof![
        Just(0u32),
        lo..=XATTR_SIZE_MAX as u32,
        Just(XATTR_SIZE_MAX as u32)
    ]
}

fn ptlrpc(msg_type: PtlrpcMsgType) -> impl Strategy<Value = PtlrpcBody> {
    (
        any::<[u64; 8]>(),
        any::<[u32; 10]>(),
        any::<u16>(),
        // A v3 body mostly; a v2 one, without a job id, now and then (WIRE.md W11.4).
        prop_oneof![4 => any::<[u8; 32]>().prop_map(Some), 1 => Just(None)],
    )
        .prop_map(move |(w, d, tag, jobid)| PtlrpcBody {
            handle: LustreHandle(w[0]),
            msg_type,
            version: LUSTRE_DLM_MSG_VERSION,
            opc: LDLM_ENQUEUE,
            status: 0,
            last_xid: w[1],
            tag,
            projid: d[0],
            last_committed: w[2],
            transno: w[3],
            flags: MsgFlags(d[1]),
            op_flags: d[2],
            conn_cnt: d[3],
            timeout: d[4],
            service_time: d[5],
            limit: d[6],
            slv: w[4],
            pre_versions: [w[5], w[6], w[7], w[0] ^ w[1]],
            mbits: w[2] ^ w[3],
            uid: d[7],
            gid: d[8],
            jobid,
        })
}

prop_compose! {
    fn request()(
        op in prop_oneof![Just(Operation::Create), Just(Operation::Rename), Just(Operation::Unlink)],
        object_mode in any::<bool>(),
        fid in fid(),
        extra_flags in prop_oneof![Just(0u32), Just(McprFlags::GROUPS_PARTIAL.0), any::<u32>().prop_map(|f| f & !1)],
        (fsuid, fsgid, umask, cap) in (any::<u32>(), any::<u32>(), 0u32..=0o777, any::<u64>()),
        ftype in prop::sample::select(vec![mode::S_IFREG, mode::S_IFDIR, mode::S_IFLNK, mode::S_IFCHR, mode::S_IFBLK, mode::S_IFIFO, mode::S_IFSOCK]),
        perm in 0u32..=0o7777,
        limits in (limit(true), limit(false), limit(false), limit(false), limit(false), limit(false)),
        name in name(),
        groups in proptest::collection::vec(any::<u32>(), 0..=GROUPS_MAX),
        ptlrpc in ptlrpc(PtlrpcMsgType::REQUEST),
        (lock_flags, name_hash, try_bits, li) in (any::<u32>(), any::<u64>(), any::<u64>(), any::<(u64, u32)>()),
        handles in proptest::collection::vec(any::<u64>(), LDLM_LOCKREQ_HANDLES..=LDLM_REQUEST_MAX_HANDLES),
        count_frac in 0.0f64..=1.0,
        mode in prop::sample::select(vec![LockMode::EX, LockMode::PW, LockMode::PR, LockMode::CW, LockMode::CR]),
        (secflvr, cksum, hflags, hopc, slack) in (any::<u32>(), any::<u32>(), any::<u32>(), any::<u32>(), 0u32..100_000),
    ) -> PrepareRequest {
        let object_mode = object_mode && op == Operation::Rename;
        let body = MdCreatePrepareReq {
            fid,
            flags: McprFlags(extra_flags | if object_mode { 1 } else { 0 }),
            fsuid, fsgid, umask, cap,
            child_mode: if op == Operation::Create { ftype | perm } else { 0 },
            buf_limit: [limits.0, limits.1, limits.2, limits.3, limits.4, limits.5],
        };
        let mut req = PrepareRequest::new(
            op, body, if object_mode { None } else { Some(name) },
            GroupList::from_slice(&groups).expect("bounded"), mode, name_hash);
        req.ptlrpc = ptlrpc;
        // The flags Lustre's ldlm_handle_enqueue takes, but REPLAY and INTENT_ONLY (WIRE.md §5).
        req.ldlm.lock_flags =
            LdlmFlags(lock_flags & LdlmFlags::PREPARE_REQ_FLAGS.0) | LdlmFlags::HAS_INTENT;
        req.ldlm.lock_desc.policy.try_bits = InodeBits(try_bits);
        req.ldlm.lock_desc.policy.gid = li.0;
        req.ldlm.lock_desc.policy.initiator_id = li.1;
        let hs: Vec<LustreHandle> = handles.into_iter().map(LustreHandle).collect();
        req.ldlm.handles = LockHandles::from_slice(&hs).expect("bounded");
        req.ldlm.lock_count = (hs.len() as f64 * count_frac) as u32;
        // The null flavour, any sender's part above it; a deadline when adaptive timeouts are on.
        let secflvr = secflvr & !lustre_dne_intent::wire::WIRE_FLVR_MASK;
        req.header = MsgHeader { secflvr, repsize: req.required_repsize().saturating_add(slack), cksum, flags: hflags, opc: hopc };
        if hflags & lustre_dne_intent::wire::MSGHDR_AT_SUPPORT != 0 {
            req.ptlrpc.timeout = req.ptlrpc.timeout.max(1);
        }
        req
    }
}

/// A valid payload of `b`'s kind within `limit` (WIRE.md §9), when one fits: any bytes for the
/// attributes (one `mdt_body`) and the pin, an ACL, a foreign LMV or LOV, a default LMV.
fn payload(b: MliBuf, limit: u32) -> Option<BoxedStrategy<Vec<u8>>> {
    let limit = limit as usize;
    // A foreign LMV holds at least one byte (W9.19); a foreign LOV may be empty.
    let foreign = |magic: u32| {
        let min = usize::from(magic == 0x0CD5_0CD0);
        (
            any::<(u32, u32)>(),
            proptest::collection::vec(any::<u8>(), min..=(limit - 16).min(200).max(min)),
        )
            .prop_map(move |((ty, flags), value)| {
                let mut v = Vec::new();
                for w in [magic, value.len() as u32, ty, flags] {
                    v.extend_from_slice(&w.to_le_bytes());
                }
                v.extend_from_slice(&value);
                v
            })
            .boxed()
    };
    Some(match b {
        MliBuf::Pattr => proptest::collection::vec(any::<u8>(), MDT_BODY_SIZE).boxed(),
        MliBuf::Pin => proptest::collection::vec(any::<u8>(), 1..=limit.min(300)).boxed(),
        // The largest ACL the strategy makes: 4 + 8 * 10 bytes.
        MliBuf::DefAcl if limit >= 84 => lustre_dne_intent_model::strategies::acl_bytes().boxed(),
        MliBuf::Lmv if limit >= 17 => foreign(0x0CD5_0CD0),
        MliBuf::Lov if limit >= 16 => foreign(0x0BD7_0BD0),
        MliBuf::DefLmv if limit >= 48 => (-5i32..=2000, any::<[u32; 3]>(), any::<[u8; 2]>())
            .prop_map(|(count, words, inherit)| {
                let mut v = 0x0CD3_0CD0u32.to_le_bytes().to_vec();
                v.extend_from_slice(&count.to_le_bytes());
                for w in words {
                    v.extend_from_slice(&w.to_le_bytes());
                }
                v.extend_from_slice(&inherit);
                v.resize(48, 0);
                v
            })
            .boxed(),
        _ => return None,
    })
}

/// One result's state, valid for its limit.
fn result_state(b: MliBuf, limit: u32) -> BoxedStrategy<PrepResult<Bytes>> {
    if limit == 0 {
        return Just(PrepResult::Unknown(UnknownReason::NotProvided)).boxed();
    }
    let mut options = vec![Just(PrepResult::Unknown(UnknownReason::NotProvided)).boxed()];
    if let Some(present) = payload(b, limit) {
        options.push(
            present
                .prop_map(|v| PrepResult::Present(Bytes::from(v)))
                .boxed(),
        );
    }
    if b != MliBuf::Pattr {
        // An mdt_body always fits a PATTR limit, so the attributes are never truncated.
        options.push(
            (limit.saturating_add(1)..=u32::MAX)
                .prop_map(|size| PrepResult::Unknown(UnknownReason::Truncated { size }))
                .boxed(),
        );
        options.push(Just(PrepResult::Absent).boxed());
    }
    proptest::strategy::Union::new(options).boxed()
}

/// A derived child the create rules allow (WIRE.md W7.18 to W7.23): the requested type with
/// its read, write and execute bits less the umask, and the group and project of `child`
/// unless the parent's PATTR decides them.
fn derive(ctx: &ReplyContext, pattr: &PrepResult<Bytes>, child: [u32; 4]) -> [u32; 4] {
    const PROJINHERIT: u32 = 0x2000_0000;
    let dir = ctx.child_mode & mode::S_IFMT == mode::S_IFDIR;
    let mut m = ctx.child_mode & (mode::S_IFMT | (0o777 & !ctx.umask));
    let [_, mut gid, mut projid, _] = child;
    let mut flags = 0;
    let parent = match pattr {
        PrepResult::Present(b) => MdtBody::decode(b, Endian::Little).ok(),
        _ => None,
    };
    if let Some(p) = parent {
        if p.valid.contains(MdtValid::FLMODE) {
            let sgid = p.mode & mode::S_ISGID != 0;
            if dir && sgid {
                m |= mode::S_ISGID;
            }
            gid = match (sgid, p.valid.contains(MdtValid::FLGID)) {
                (true, true) => p.gid,
                (true, false) => gid,
                (false, _) => ctx.fsgid,
            };
        }
        if p.valid.contains(MdtValid::FLFLAGS) {
            let inherit = p.flags & PROJINHERIT != 0;
            if dir && inherit {
                flags = PROJINHERIT;
            }
            projid = match (inherit, p.valid.contains(MdtValid::FLPROJID)) {
                (true, true) => p.projid,
                (true, false) => projid,
                (false, _) => 0,
            };
        }
    }
    [m, gid, projid, flags]
}

fn reply_for(req: PrepareRequest) -> impl Strategy<Value = (PrepareRequest, PrepareReply)> {
    let ctx = req.reply_context().expect("generated requests are valid");
    let limits = ctx.limits;
    let results: Vec<_> = MliBuf::ALL
        .iter()
        .map(|&b| result_state(b, limits[b.index()]))
        .collect();
    (
        any::<bool>(),
        0u8..3,
        prop_oneof![Just(0i32), -200i32..0],
        any::<u32>(),
        fid().prop_filter("non-zero", |f| !f.is_zero()),
        any::<[u32; 4]>(),
        prop::sample::select(vec![0u32, mode::S_IFDIR, mode::S_IFREG, mode::S_IFLNK]),
        results,
        ptlrpc(PtlrpcMsgType::REPLY),
        any::<(u32, u64)>(),
    )
        .prop_map(
            move |(
                empty,
                lookup,
                status,
                flag_bits,
                found,
                child,
                ftype,
                results,
                ptlrpc,
                (lf, handle),
            )| {
                // Unknown request flags get the empty result (W7.15); object mode, no lookup
                // (W7.16).
                let empty = empty || !ctx.flags.unknown().is_empty();
                let lookup = if ctx.flags.contains(McprFlags::NO_LOOKUP) {
                    0
                } else {
                    lookup
                };
                let outcome = (!empty).then(|| {
                    let mut flags = McppFlags(
                        flag_bits & (McppFlags::PERM_DONE.0 | McppFlags::ADVISORY.0 | 0xffff_ffe0),
                    );
                    let mut fid = LuFid::ZERO;
                    match lookup {
                        1 => flags |= McppFlags::LOOKUP_DONE,
                        2 => {
                            flags |= McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS;
                            fid = found;
                        }
                        _ => {}
                    }
                    let derived =
                        ctx.op == Operation::Create && status == 0 && flag_bits & 0x10 != 0;
                    if derived {
                        flags |= McppFlags::CHILD_DERIVED;
                    }
                    let child = if derived {
                        derive(&ctx, &results[MliBuf::Pattr.index()], child)
                    } else if lookup == 2 {
                        [ftype, child[1], child[2], child[3]]
                    } else {
                        [0, child[1], child[2], child[3]]
                    };
                    let mut o = PrepareOutcome::new(MdCreatePrepareRep {
                        status,
                        flags,
                        fid,
                        child_mode: child[0],
                        child_gid: child[1],
                        child_projid: child[2],
                        child_flags: child[3],
                        ..Default::default()
                    });
                    for (b, r) in MliBuf::ALL.into_iter().zip(results) {
                        o.set_result(b, r);
                    }
                    o
                });
                let mut rep = PrepareReply::granting(&ctx, LustreHandle(handle), outcome);
                rep.ptlrpc = ptlrpc;
                rep.ldlm.lock_flags = LdlmFlags(lf);
                (req, rep)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn request_value_roundtrip(req in request(), order in order()) {
        let bytes = req.to_bytes(order).expect("valid requests encode");
        prop_assert_eq!(bytes.len(), req.wire_len());
        let view = RequestView::parse(&bytes).expect("what encodes, decodes");
        prop_assert_eq!(view.order(), order);
        prop_assert_eq!(view.to_value(), req);
        // Canonical bytes come back byte for byte, also through encode_into and a BufMut.
        let mut slice = vec![0u8; req.wire_len()];
        req.encode_into(order, &mut slice).expect("sized");
        prop_assert_eq!(&slice[..], &bytes[..]);
        let mut v = Vec::new();
        view.to_value().put(order, &mut v).expect("valid");
        prop_assert_eq!(&v[..], &bytes[..]);
    }

    #[test]
    fn reply_value_roundtrip((req, rep) in request().prop_flat_map(reply_for), order in order()) {
        let ctx = req.reply_context().expect("valid");
        rep.validate(Some(&ctx)).expect("generated replies obey the request-dependent rules");
        let bytes = rep.to_bytes(order).expect("valid replies encode");
        let view = ReplyView::parse_for(&bytes, &ctx).expect("what encodes, decodes");
        prop_assert_eq!(view.order(), order);
        prop_assert_eq!(view.to_value(), rep.clone());
        let again = view.to_value().to_bytes(order).expect("valid");
        prop_assert_eq!(&again[..], &bytes[..]);
        // Each result keeps its state through the wire.
        for b in MliBuf::ALL {
            let want = rep.outcome.as_ref().map_or(PrepResult::Unknown(UnknownReason::EmptyResult), |o| o.result(b));
            if b == MliBuf::Pattr {
                // A value holds PATTR little-endian; the wire holds it in the message's order.
                let want = want.map(|s| MdtBody::decode(s, Endian::Little).expect("an mdt_body"));
                prop_assert_eq!(view.pattr(), want);
            } else {
                prop_assert_eq!(view.result(b), want);
            }
        }
        // The Bytes-backed message hands out the same results without copying.
        let owned = bytes.clone();
        let msg = ReplyMessage::parse_for(owned.clone(), &ctx).expect("same bytes");
        for b in MliBuf::ALL {
            if let PrepResult::Present(s) = msg.result(b) {
                let range = owned.as_ptr() as usize..owned.as_ptr() as usize + owned.len();
                prop_assert!(range.contains(&(s.as_ptr() as usize)), "result shares the message's memory");
            }
        }
    }

    #[test]
    fn any_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..600)) {
        let _ = RequestView::parse(&data);
        let _ = ReplyView::parse(&data);
        let _ = MsgView::parse(&data);
    }

    #[test]
    fn fid_text_roundtrip(f in fid()) {
        let text = f.to_string();
        prop_assert_eq!(text.parse::<LuFid>().expect("own text parses"), f);
    }

    #[test]
    fn fid_text_never_panics(s in ".{0,40}") {
        let _ = s.parse::<LuFid>();
    }
}
