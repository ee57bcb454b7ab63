//! The benchmarks' owned baseline (`benches/support/owned_baseline.rs`) reads every vector the
//! way the crate does: the same fields, buffers, result states and typed xattr values, for each
//! message of `testdata/`, each xattr vector, and the generated benchmark payloads. A baseline
//! that decoded something else would make the benchmark ratios meaningless.
#![forbid(unsafe_code)]

#[path = "../../benches/support/fixtures.rs"]
mod fixtures;
#[path = "../../benches/support/owned_baseline.rs"]
mod owned_baseline;

use bytes::Bytes;
use fixtures::Kind;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, PrepResult, ReplyView,
    RequestView, ResultMask,
};
use lustre_dne_intent::wire::{
    DispFlags, InodeBits, LdlmFlags, LdlmInodebits, LdlmLockDesc, LdlmReply, LdlmRequest,
    LdlmResId, LockHandles, LockMode, LockType, LuFid, LustreHandle, MdtBody, MdtValid, MsgFlags,
    MsgHeader, PtlrpcBody, PtlrpcMsgType, WireStruct,
};
use lustre_dne_intent::xattr::{
    AclView, DefaultLmv, DefaultLmvView, ForeignMd, ForeignType, LayoutOf, LcmFlags, LcmeFlags,
    Lmv, LmvHashType, LmvMd, LmvUserMdsData, LmvView, Lov, LovBlob, LovComp, LovCompEntry,
    LovComponent, LovMd, LovOstData, LovPattern, LovView, OstId, PoolName,
};
use owned_baseline::*;

fn fid(f: &OwnedFid) -> LuFid {
    LuFid::new(f.seq, f.oid, f.ver)
}

fn header(m: &OwnedMsg) -> MsgHeader {
    MsgHeader {
        secflvr: m.secflvr,
        repsize: m.repsize,
        cksum: m.cksum,
        flags: m.flags,
        opc: m.opc,
    }
}

fn order(m: &OwnedMsg) -> Endian {
    if m.order.le {
        Endian::Little
    } else {
        Endian::Big
    }
}

/// The owned body as the crate's value; `jobid` is compared separately (a `String` there).
fn ptlrpc(p: &OwnedPtlrpc, crate_jobid: Option<[u8; 32]>) -> PtlrpcBody {
    PtlrpcBody {
        handle: LustreHandle::from_bytes(p.handle),
        msg_type: PtlrpcMsgType(p.msg_type),
        version: p.version,
        opc: p.opc,
        status: p.status,
        last_xid: p.last_xid,
        tag: p.tag,
        projid: p.projid,
        last_committed: p.last_committed,
        transno: p.transno,
        flags: MsgFlags(p.flags),
        op_flags: p.op_flags,
        conn_cnt: p.conn_cnt,
        timeout: p.timeout,
        service_time: p.service_time,
        limit: p.limit,
        slv: p.slv,
        pre_versions: p.pre_versions.clone().try_into().expect("4 versions"),
        mbits: p.mbits,
        uid: p.uid,
        gid: p.gid,
        jobid: crate_jobid,
    }
}

fn check_ptlrpc(owned: &OwnedPtlrpc, view: &PtlrpcBody, what: &str) {
    assert_eq!(&ptlrpc(owned, view.jobid), view, "{what}: ptlrpc_body");
    assert_eq!(
        owned.jobid.as_deref().map(str::as_bytes),
        view.jobid.map(|_| view.jobid_bytes()),
        "{what}: pb_jobid"
    );
}

fn lock_desc(d: &OwnedLockDesc) -> LdlmLockDesc {
    LdlmLockDesc {
        lr_type: LockType(d.lr_type),
        resource: LdlmResId {
            name: d.name.clone().try_into().expect("4 words"),
        },
        req_mode: LockMode(d.req_mode),
        granted_mode: LockMode(d.granted_mode),
        policy: LdlmInodebits {
            bits: InodeBits(d.bits),
            try_bits: InodeBits(d.try_bits),
            gid: d.li_gid,
            initiator_id: d.li_initiator_id,
        },
    }
}

fn check_request(name: &str, bytes: &[u8]) {
    let view = RequestView::parse(bytes).unwrap_or_else(|e| panic!("{name}: crate: {e}"));
    let owned = decode_request(bytes).unwrap_or_else(|e| panic!("{name}: owned: {e:?}"));
    assert_eq!(order(&owned.msg), view.order(), "{name}: order");
    assert_eq!(header(&owned.msg), view.msg().header(), "{name}: header");
    assert_eq!(owned.msg.buffers.len(), view.msg().bufcount(), "{name}");
    check_ptlrpc(&owned.ptlrpc, &view.ptlrpc(), name);
    let handles: Vec<LustreHandle> = owned
        .ldlm
        .handles
        .iter()
        .map(|h| LustreHandle::from_bytes(*h))
        .collect();
    let ldlm = LdlmRequest {
        lock_flags: LdlmFlags(owned.ldlm.lock_flags),
        lock_count: owned.ldlm.lock_count,
        lock_desc: lock_desc(&owned.ldlm.desc),
        handles: LockHandles::from_slice(&handles).expect("bounded handles"),
    };
    assert_eq!(ldlm, view.ldlm(), "{name}: ldlm_request");
    assert_eq!(owned.opc, view.opc().0, "{name}: ldlm_intent.opc");
    let b = &owned.body;
    let body = MdCreatePrepareReq {
        fid: fid(&b.fid),
        flags: McprFlags(b.flags),
        fsuid: b.fsuid,
        fsgid: b.fsgid,
        umask: b.umask,
        cap: b.cap,
        child_mode: b.child_mode,
        buf_limit: b.buf_limit.clone().try_into().expect("6 limits"),
    };
    assert_eq!(body, view.body(), "{name}: md_create_prepare_req");
    assert_eq!(
        owned.name.as_deref().map(str::as_bytes),
        view.name(),
        "{name}: name"
    );
    assert_eq!(
        owned.groups,
        view.groups().iter().collect::<Vec<_>>(),
        "{name}: groups"
    );
}

fn check_reply(name: &str, bytes: &[u8]) {
    let view = ReplyView::parse(bytes).unwrap_or_else(|e| panic!("{name}: crate: {e}"));
    let (owned, typed) =
        decode_reply_whole(bytes).unwrap_or_else(|e| panic!("{name}: owned: {e:?}"));
    assert_eq!(order(&owned.msg), view.order(), "{name}: order");
    assert_eq!(header(&owned.msg), view.header(), "{name}: header");
    assert_eq!(owned.msg.buffers.len(), view.bufcount(), "{name}");
    check_ptlrpc(&owned.ptlrpc, &view.ptlrpc(), name);
    let l = &owned.ldlm;
    let ldlm = LdlmReply {
        lock_flags: LdlmFlags(l.lock_flags),
        lock_desc: lock_desc(&l.desc),
        lock_handle: LustreHandle::from_bytes(l.handle),
        policy_res1: DispFlags(l.policy_res1),
        policy_res2: l.policy_res2,
    };
    assert_eq!(ldlm, view.ldlm(), "{name}: ldlm_reply");
    let body = owned.body.as_ref().map(|b| MdCreatePrepareRep {
        status: b.status,
        flags: McppFlags(b.flags),
        valid: ResultMask(b.valid),
        truncated: ResultMask(b.truncated),
        fid: fid(&b.fid),
        child_mode: b.child_mode,
        child_gid: b.child_gid,
        child_projid: b.child_projid,
        child_flags: b.child_flags,
        buf_size: b.buf_size.clone().try_into().expect("6 sizes"),
    });
    assert_eq!(body, view.body(), "{name}: md_create_prepare_rep");
    for buf in MliBuf::ALL {
        let owned_state = owned.results[buf.index()].as_deref();
        match view.result(buf) {
            PrepResult::Present(d) => assert_eq!(owned_state, Some(d), "{name}: {buf}"),
            PrepResult::Absent => assert_eq!(owned_state, Some(&[][..]), "{name}: {buf}"),
            PrepResult::Unknown(_) => assert_eq!(owned_state, None, "{name}: {buf}"),
        }
    }
    // The typed results.
    let pattr = view
        .result(MliBuf::Pattr)
        .present()
        .map(|d| MdtBody::decode(d, view.order()).expect("valid mdt_body"));
    assert_eq!(typed.pattr.as_ref().map(mdt_body), pattr, "{name}: PATTR");
    let acl = view.def_acl().present();
    assert_eq!(typed.def_acl.is_some(), acl.is_some(), "{name}: DEF_ACL");
    if let (Some(o), Some(v)) = (&typed.def_acl, acl) {
        check_acl(o, &v, name);
    }
    let pin = view.pin().present();
    assert_eq!(
        typed.pin.as_deref().map(str::as_bytes),
        pin.map(|p| p.as_bytes()),
        "{name}: PIN"
    );
    let lmv = view.lmv().present();
    assert_eq!(typed.lmv.as_ref().map(lmv_value), lmv.map(|v| v.to_value()));
    let lov = view.lov().present();
    assert_eq!(typed.lov.as_ref().map(lov_value), lov.map(|v| v.to_value()));
    let dmv = view.def_lmv().present();
    assert_eq!(
        typed.def_lmv.as_ref().map(dmv_value),
        dmv.map(|v| v.to_value())
    );
}

fn mdt_body(m: &OwnedMdtBody) -> MdtBody {
    let w = &m.words;
    MdtBody {
        fid1: fid(&m.fid1),
        fid2: fid(&m.fid2),
        open_handle: LustreHandle::from_bytes(m.open_handle),
        valid: MdtValid(m.valid),
        size: m.size,
        mtime: m.mtime,
        atime: m.atime,
        ctime: m.ctime,
        blocks: m.blocks,
        version: m.version,
        t_state: m.t_state,
        fsuid: w[0],
        fsgid: w[1],
        capability: w[2],
        mode: w[3],
        uid: w[4],
        gid: w[5],
        flags: w[6],
        rdev: w[7],
        nlink: w[8],
        layout_gen: w[9],
        suppgid: w[10],
        eadatasize: w[11],
        aclsize: w[12],
        max_mdsize: w[13],
        // w[14] is mbo_unused3, not kept by the crate.
        uid_h: w[15],
        gid_h: w[16],
        projid: w[17],
        dom_size: m.dom_size,
        dom_blocks: m.dom_blocks,
        btime: m.btime,
        xattr_absent: m.xattr_absent,
    }
}

fn check_acl(owned: &OwnedAcl, view: &AclView<'_>, what: &str) {
    assert_eq!(owned.entries.len(), view.len(), "{what}: ACL entries");
    for (o, v) in owned.entries.iter().zip(view.entries()) {
        assert_eq!((o.tag, o.perm), (v.tag.0, v.perm.0), "{what}: ACL entry");
        // The crate reports ACL_UNDEFINED_ID for unnamed entries whatever the wire says; the
        // baseline keeps the raw id. Named ids must agree.
        if v.tag.is_named() {
            assert_eq!(o.id, v.id, "{what}: ACL id");
        }
    }
}

fn pool(name: &str) -> PoolName {
    PoolName::new(name.as_bytes()).expect("valid pool name")
}

fn foreign(f: &OwnedForeign) -> ForeignMd {
    ForeignMd {
        foreign_type: ForeignType(f.foreign_type),
        flags: f.flags,
        value: Bytes::copy_from_slice(&f.value),
    }
}

fn lmv_value(l: &OwnedLmv) -> Lmv {
    match l {
        OwnedLmv::Md(m) => Lmv::Md(LmvMd {
            magic: m.magic,
            stripe_count: m.stripe_count,
            master_mdt_index: m.master_mdt_index,
            hash_type: LmvHashType(m.hash_type),
            layout_version: m.layout_version,
            migrate_offset: m.migrate_offset,
            migrate_hash: LmvHashType(m.migrate_hash),
            padding: [0; 12],
            pool_name: pool(&m.pool_name),
            stripe_fids: m.stripe_fids.iter().map(fid).collect(),
        }),
        OwnedLmv::Foreign(f) => Lmv::Foreign(foreign(f)),
    }
}

fn dmv_value(d: &OwnedDmv) -> DefaultLmv {
    DefaultLmv {
        magic: d.magic,
        stripe_count: d.stripe_count,
        stripe_offset: d.stripe_offset,
        hash_type: LmvHashType(d.hash_type),
        lum_type: d.lum_type,
        max_inherit: d.max_inherit,
        max_inherit_rr: d.max_inherit_rr,
        padding: [0; 10],
        pool_name: pool(&d.pool_name),
        objects: d
            .objects
            .iter()
            .map(|(f, mds)| LmvUserMdsData {
                fid: fid(f),
                mds: *mds,
                padding: 0,
            })
            .collect(),
    }
}

fn lov_md(m: &OwnedLovMd) -> LovMd {
    LovMd {
        magic: m.magic,
        pattern: LovPattern(m.pattern),
        oi: OstId {
            id: m.oi_id,
            seq: m.oi_seq,
        },
        stripe_size: m.stripe_size,
        stripe_count: m.stripe_count,
        stripe_offset: lustre_dne_intent::xattr::LmmUnion::StripeOffset(m.stripe_offset),
        pool_name: m.pool_name.as_deref().map(pool),
        objects: m
            .objects
            .iter()
            .map(|o| LovOstData {
                oi: OstId {
                    id: o.oi_id,
                    seq: o.oi_seq,
                },
                gen_: o.ost_gen,
                idx: o.ost_idx,
            })
            .collect(),
    }
}

fn lov_value(l: &OwnedLov) -> Lov {
    match l {
        OwnedLov::Md(m) => Lov::Md(lov_md(m)),
        OwnedLov::Foreign(f) => Lov::Foreign(foreign(f)),
        OwnedLov::Comp(c) => Lov::Comp(LovComp {
            sel: false,
            padding: [0; 13],
            layout_gen: c.layout_gen,
            flags: LcmFlags(c.flags),
            mirror_count: c.mirror_count,
            ec_count: c.ec_count,
            components: c
                .components
                .iter()
                .map(|k| LovComponent {
                    entry: LovCompEntry {
                        id: k.id,
                        flags: LcmeFlags(k.flags),
                        extent_start: k.extent_start,
                        extent_end: k.extent_end,
                        layout_gen: k.layout_gen,
                        time_and_id: k.time_and_id,
                        dstripe_count: k.dstripe_count,
                        cstripe_count: k.cstripe_count,
                        compr_type: k.compr_type,
                        compr_bits: k.compr_bits,
                    },
                    blob: match &k.blob {
                        OwnedLov::Md(m) => LovBlob::Md(lov_md(m)),
                        OwnedLov::Foreign(f) => LovBlob::Foreign(foreign(f)),
                        OwnedLov::Comp(_) => panic!("nested composite layout"),
                    },
                })
                .collect(),
        }),
    }
}

#[test]
fn agrees_on_every_message_vector() {
    for &(name, kind) in fixtures::MESSAGES {
        let bytes = fixtures::vector(name);
        match kind {
            Kind::Request => check_request(name, &bytes),
            Kind::Reply => check_reply(name, &bytes),
        }
    }
}

#[test]
fn message_list_covers_testdata() {
    // Every request and reply of testdata/ is benchmarked and checked here.
    let dir = format!("{}/testdata", env!("CARGO_MANIFEST_DIR"));
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .expect("testdata")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".bin")?;
            (stem.contains("_request") || stem.contains("_reply")).then(|| stem.to_string())
        })
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = fixtures::MESSAGES
        .iter()
        .map(|(n, _)| n.to_string())
        .collect();
    listed.sort();
    assert_eq!(on_disk, listed);
}

#[test]
fn agrees_on_every_xattr_vector() {
    let dir = format!("{}/testdata", env!("CARGO_MANIFEST_DIR"));
    let mut seen = 0;
    for e in std::fs::read_dir(&dir).expect("testdata") {
        let name = e.expect("entry").file_name().into_string().expect("utf-8");
        let Some(stem) = name.strip_suffix(".bin") else {
            continue;
        };
        let bytes = fixtures::vector(stem);
        if stem.starts_with("xattr_acl_") {
            check_acl(
                &decode_acl(&bytes).expect("owned"),
                &AclView::parse(&bytes).expect("crate"),
                stem,
            );
        } else if stem.starts_with("xattr_lov_") {
            // The baseline knows no context and names every union `lmm_stripe_offset`, as a
            // directory's default does.
            let v = LovView::parse(&bytes)
                .expect("crate")
                .to_value_of(LayoutOf::Dir);
            assert_eq!(lov_value(&decode_lov(&bytes).expect("owned")), v, "{stem}");
        } else if stem.starts_with("xattr_lmv_") {
            let v = LmvView::parse(&bytes).expect("crate").to_value();
            assert_eq!(lmv_value(&decode_lmv(&bytes).expect("owned")), v, "{stem}");
        } else if stem.starts_with("xattr_dmv_") {
            let v = DefaultLmvView::parse(&bytes).expect("crate").to_value();
            assert_eq!(dmv_value(&decode_dmv(&bytes).expect("owned")), v, "{stem}");
        } else {
            continue;
        }
        seen += 1;
    }
    assert!(seen >= 15, "only {seen} xattr vectors checked");
}

#[test]
fn agrees_on_the_benchmark_payloads() {
    for n in [32, 1024, 8191] {
        let bytes = fixtures::acl_payload(n);
        assert_eq!(bytes.len(), 4 + 8 * n);
        let view = AclView::parse(&bytes).expect("crate");
        assert_eq!(view.len(), n);
        check_acl(&decode_acl(&bytes).expect("owned"), &view, "acl payload");
    }
    for n in [1, 16, 64] {
        let bytes = fixtures::lov_comp_payload(n);
        let v = LovView::parse(&bytes).expect("crate").to_value();
        let Lov::Comp(c) = &v else {
            panic!("not composite")
        };
        assert_eq!(c.components.len(), n);
        assert_eq!(lov_value(&decode_lov(&bytes).expect("owned")), v);
    }
    let max = fixtures::max_reply();
    assert!(max.len() > 100_000, "max reply is {} bytes", max.len());
    check_reply("max_reply", &max);
}

#[test]
fn both_reject_a_truncated_message() {
    for &(name, _) in fixtures::MESSAGES {
        let bytes = fixtures::vector(name);
        let cut = &bytes[..bytes.len() / 2];
        assert!(
            decode_msg(cut).is_err(),
            "{name}: owned accepted a truncation"
        );
        assert!(
            lustre_dne_intent::wire::MsgView::parse(cut).is_err(),
            "{name}"
        );
    }
}
