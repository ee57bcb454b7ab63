//! Every bound of `src/limits.rs` that applies to a length or
//! count read from input, fed at its value (accepted), one above (refused, with the error kind
//! and the field named), and at the largest value its field's type can carry (refused the same
//! way, without panicking, overflowing or allocating by it). Bounds that a decoder enforces are
//! checked through the decoder; those an encoder or an owned container enforces, there too.

use crate::common::*;
use lustre_dne_intent::Endian;
use lustre_dne_intent::error::{DecodeError, EncodeError, ErrorKind};
use lustre_dne_intent::intent::*;
use lustre_dne_intent::limits::*;
use lustre_dne_intent::wire::{LockHandles, LustreHandle, MsgBuilder, MsgHeader, MsgView};
use lustre_dne_intent::xattr::*;

/// The error, checked for its kind and its structure and field.
#[track_caller]
fn refused<T: std::fmt::Debug>(
    r: Result<T, DecodeError>,
    structure: &str,
    field: &str,
    kind: ErrorKind,
) {
    let e = r.expect_err("over the bound: refused");
    assert_eq!(e.kind, kind, "{e}");
    assert_eq!(e.at.structure, structure, "{e}");
    assert_eq!(e.at.field, field, "{e}");
}

/// The largest round buffer that still fits in a request or reply beside its other buffers:
/// the whole message is bounded by `MSG_MAX_LEN` too.
const BIG: usize = MSG_MAX_BUFLEN - 4096;

fn over(value: u64, max: usize) -> ErrorKind {
    ErrorKind::OverLimit {
        value,
        max: max as u64,
    }
}

/// A message of empty buffers with `lm_bufcount` and `lm_buflens` patched.
fn framed(bufcount: u32, buflens: &[u32], tail: usize) -> Vec<u8> {
    let mut m = MsgBuilder::new(Endian::Little, MsgHeader::default());
    m.push(&[]).expect("one buffer");
    let mut out = Vec::new();
    m.put(&mut out);
    out.truncate(32);
    out[0..4].copy_from_slice(&bufcount.to_le_bytes());
    for l in buflens {
        out.extend_from_slice(&l.to_le_bytes());
    }
    out.resize(out.len().next_multiple_of(8) + tail, 0);
    out
}

// ---- Message framing ----

#[test]
fn bufcount_bound() {
    // At the bound: 32 empty buffers.
    let mut m = MsgBuilder::new(Endian::Little, MsgHeader::default());
    for _ in 0..MSG_MAX_BUFCOUNT {
        m.push(&[]).expect("up to 32 buffers");
    }
    let mut at = Vec::new();
    m.put(&mut at);
    assert_eq!(MsgView::parse(&at).expect("32 buffers").bufcount(), 32);
    // The builder refuses the 33rd.
    assert!(matches!(
        m.push(&[]),
        Err(EncodeError::Invalid(e)) if e.kind == ErrorKind::OutOfRange {
            value: 33,
            min: 1,
            max: MSG_MAX_BUFCOUNT as u64
        }
    ));
    let range = |v: u32| ErrorKind::OutOfRange {
        value: v.into(),
        min: 1,
        max: MSG_MAX_BUFCOUNT as u64,
    };
    let one_above = framed(33, &[0; 33], 0);
    refused(
        MsgView::parse(&one_above),
        "lustre_msg_v2",
        "lm_bufcount",
        range(33),
    );
    let type_max = framed(u32::MAX, &[0; 33], 0);
    refused(
        MsgView::parse(&type_max),
        "lustre_msg_v2",
        "lm_bufcount",
        range(u32::MAX),
    );
}

#[test]
fn buflen_bound() {
    // A single buffer at the bound leaves no room for the header: the whole message is bounded
    // by the same PTLRPC_MAX_BUFLEN (pack_generic.c checks both).
    let hdr = 40; // round_up(32 + 4, 8)
    let at = framed(1, &[(MSG_MAX_LEN - hdr) as u32], MSG_MAX_LEN - hdr);
    let v = MsgView::parse(&at).expect("a message of exactly MSG_MAX_LEN");
    assert_eq!(v.buffer_or_empty(0).len(), MSG_MAX_LEN - hdr);
    let whole = framed(1, &[(MSG_MAX_LEN - hdr + 1) as u32], MSG_MAX_LEN - hdr + 8);
    refused(
        MsgView::parse(&whole),
        "lustre_msg_v2",
        "lm_buflens",
        ErrorKind::MsgTooLong {
            len: MSG_MAX_LEN + 8,
            max: MSG_MAX_LEN,
        },
    );
    let one_above = framed(1, &[MSG_MAX_BUFLEN as u32 + 1], MSG_MAX_BUFLEN + 8);
    refused(
        MsgView::parse(&one_above),
        "lustre_msg_v2",
        "lm_buflens[0]",
        over(MSG_MAX_BUFLEN as u64 + 1, MSG_MAX_BUFLEN),
    );
    let type_max = framed(1, &[u32::MAX], 64);
    refused(
        MsgView::parse(&type_max),
        "lustre_msg_v2",
        "lm_buflens[0]",
        over(u32::MAX.into(), MSG_MAX_BUFLEN),
    );
    // Two buffers each within the bound whose sum is not.
    let half = (MSG_MAX_LEN / 2) as u32;
    let pair = framed(2, &[half, half], MSG_MAX_LEN);
    assert!(matches!(
        MsgView::parse(&pair),
        Err(e) if matches!(e.kind, ErrorKind::MsgTooLong { len, .. } if len == MSG_MAX_LEN + 40)
    ));
    // The builder refuses a buffer over the bound, and a message over it.
    let big = vec![0u8; MSG_MAX_BUFLEN + 1];
    let mut m = MsgBuilder::new(Endian::Little, MsgHeader::default());
    assert!(matches!(
        m.push(&big),
        Err(EncodeError::Invalid(e)) if e.kind == over(big.len() as u64, MSG_MAX_BUFLEN)
    ));
    assert!(matches!(
        m.push(&big[..MSG_MAX_BUFLEN]),
        Err(EncodeError::Invalid(e)) if matches!(e.kind, ErrorKind::MsgTooLong { .. })
    ));
    assert!(m.push(&big[..MSG_MAX_LEN - hdr]).is_ok());
    assert_eq!(m.wire_len(), MSG_MAX_LEN);
}

// ---- The request ----

fn handles(n: usize) -> Vec<LustreHandle> {
    (0..n as u64).map(LustreHandle).collect()
}

#[test]
fn ldlm_handles_bound() {
    let mut req = mkdir_request();
    req.ldlm.handles = LockHandles::from_slice(&handles(LDLM_REQUEST_MAX_HANDLES)).expect("32");
    let bytes = req.to_bytes(Endian::Little).expect("32 handles encode");
    let v = RequestView::parse(&bytes).expect("32 handles decode");
    assert_eq!(v.ldlm().handles.as_slice().len(), LDLM_REQUEST_MAX_HANDLES);
    assert_eq!(v.to_value(), req);
    assert!(LockHandles::from_slice(&handles(LDLM_REQUEST_MAX_HANDLES + 1)).is_none());
    assert!(LockHandles::from_slice(&handles(LDLM_LOCKREQ_HANDLES - 1)).is_none());

    let mut parts = ReqParts::mkdir();
    let with_handles = |parts: &mut ReqParts, n: usize| {
        let mut b1 = Vec::new();
        parts.ldlm.put_buffer(Endian::Little, &mut b1);
        b1.truncate(LDLM_REQUEST_FIXED);
        b1.resize(LDLM_REQUEST_FIXED + 8 * n, 0);
        parts.raw[1] = Some(b1);
        parts.encode()
    };
    let one_above = with_handles(&mut parts, LDLM_REQUEST_MAX_HANDLES + 1);
    refused(
        RequestView::parse(&one_above),
        "ldlm_request",
        "lock_handle",
        over(33, LDLM_REQUEST_MAX_HANDLES),
    );
    // Nearly the most handles a request can frame beside its other buffers.
    let most = (BIG - LDLM_REQUEST_FIXED) / 8;
    let type_max = with_handles(&mut parts, most);
    refused(
        RequestView::parse(&type_max),
        "ldlm_request",
        "lock_handle",
        over(most as u64, LDLM_REQUEST_MAX_HANDLES),
    );
}

#[test]
fn lock_count_bound() {
    // lock_count is bounded by the handles carried (2 here).
    for (count, ok) in [(2u32, true), (3, false), (u32::MAX, false)] {
        let mut req = mkdir_request();
        req.ldlm.lock_count = count;
        let mut parts = ReqParts::from_value(&req, Endian::Little);
        parts.ldlm.lock_count = count;
        let decoded = RequestView::parse(&parts.encode()).map(|v| v.to_value());
        if ok {
            assert_eq!(decoded.expect("decodes"), req);
            assert!(req.validate().is_ok());
        } else {
            let kind = over(count.into(), 2);
            refused(decoded, "ldlm_request", "lock_count", kind);
            refused(req.validate(), "ldlm_request", "lock_count", kind);
        }
    }
}

#[test]
fn name_length_bound() {
    let at = vec![b'n'; NAME_MAX];
    let name = EntryName::new(&at).expect("255 bytes");
    let mut req = mkdir_request();
    req.name = Some(name);
    let bytes = req.to_bytes(Endian::Big).expect("encodes");
    assert_eq!(
        RequestView::parse(&bytes).expect("decodes").name(),
        Some(&at[..])
    );

    for len in [NAME_MAX + 1, BIG - 1] {
        let long = vec![b'n'; len];
        let kind = ErrorKind::NameTooLong { len };
        refused(EntryName::new(&long), "name", "", kind);
        let mut parts = ReqParts::mkdir();
        parts.name = long;
        parts.name.push(0);
        refused(RequestView::parse(&parts.encode()), "name", "", kind);
    }
}

#[test]
fn groups_bound() {
    let ids: Vec<u32> = (0..GROUPS_MAX as u32).collect();
    let mut list = GroupList::from_slice(&ids).expect("128 groups");
    assert_eq!(list.push(1), Err(1), "the 129th is refused");
    let mut ids_over = ids.clone();
    ids_over.push(128);
    assert!(GroupList::from_slice(&ids_over).is_none());

    let mut req = mkdir_request();
    req.groups = list;
    let bytes = req.to_bytes(Endian::Little).expect("encodes");
    assert_eq!(
        RequestView::parse(&bytes).expect("decodes").groups().len(),
        GROUPS_MAX
    );

    for n in [GROUPS_MAX + 1, BIG / 4] {
        let mut parts = ReqParts::mkdir();
        parts.groups = (0..n as u32).collect();
        refused(
            RequestView::parse(&parts.encode()),
            "groups",
            "",
            over(n as u64, GROUPS_MAX),
        );
    }
    // md_lock_intent cuts to 128 and marks the list partial instead of refusing.
    let mut bufs: [[u8; 0]; MLI_BUF_MAX] = Default::default();
    let [b0, b1, b2, b3, b4, b5] = &mut bufs;
    let intent = MdLockIntent::new(
        Operation::Create,
        mkdir_body(),
        Some(b"x"),
        [&mut b0[..], b1, b2, b3, b4, b5],
    );
    let many: Vec<u32> = (0..1000).collect();
    let r = intent
        .to_request(&many, lustre_dne_intent::wire::LockMode::PW, 1)
        .expect("cut, not refused");
    assert_eq!(r.groups.as_slice().len(), GROUPS_MAX);
    assert!(r.body.flags.contains(McprFlags::GROUPS_PARTIAL));
}

#[test]
fn buf_limit_bound() {
    for i in 0..MLI_BUF_MAX {
        let field = format!("mcpr_buf_limit[{i}]");
        for (limit, ok) in [
            (XATTR_SIZE_MAX as u32, true),
            (XATTR_SIZE_MAX as u32 + 1, false),
            (u32::MAX, false),
        ] {
            let mut req = mkdir_request();
            req.body.buf_limit[i] = limit;
            req.header.repsize = u32::MAX;
            let mut parts = ReqParts::from_value(&req, Endian::Little);
            parts.header.repsize = u32::MAX;
            let bytes = parts.encode();
            let decoded = RequestView::parse(&bytes);
            if ok {
                assert_eq!(decoded.expect("decodes").body().buf_limit[i], limit);
                assert!(req.validate().is_ok());
            } else {
                let kind = over(limit.into(), XATTR_SIZE_MAX);
                refused(decoded, "md_create_prepare_req", &field, kind);
                refused(req.validate(), "md_create_prepare_req", &field, kind);
            }
        }
    }
    // The attributes limit has a lower bound too: an mdt_body or nothing.
    let mut req = mkdir_request();
    req.body.buf_limit[0] = MDT_BODY_SIZE as u32;
    assert!(req.validate().is_ok());
    req.body.buf_limit[0] = MDT_BODY_SIZE as u32 - 1;
    refused(
        req.validate(),
        "md_create_prepare_req",
        "mcpr_buf_limit[0]",
        ErrorKind::PattrLimitTooSmall { got: 215 },
    );
}

#[test]
fn repsize_bound() {
    let mut req = mkdir_request();
    let need = req.required_repsize();
    for (repsize, ok) in [(need, true), (need - 1, false), (u32::MAX, true)] {
        req.header.repsize = repsize;
        let parts = ReqParts::from_value(&req, Endian::Little);
        let bytes = parts.encode();
        let decoded = RequestView::parse(&bytes);
        if ok {
            assert!(decoded.is_ok() && req.validate().is_ok());
        } else {
            let kind = ErrorKind::RepsizeTooSmall {
                got: repsize,
                need: need as usize,
            };
            refused(decoded, "lustre_msg_v2", "lm_repsize", kind);
        }
    }
}

// ---- The reply ----

#[test]
fn result_size_bound() {
    let mut ctx = mkdir_request().reply_context().expect("valid");
    ctx.repsize = u32::MAX;
    // The pin is opaque, so any bytes are a valid result of that size.
    let with_pin = |len: usize| {
        let mut rep = mkdir_reply();
        let o = rep.outcome.as_mut().expect("outcome");
        o.set_result(MliBuf::Pin, PrepResult::Present(vec![7u8; len].into()));
        rep
    };
    let at = with_pin(XATTR_SIZE_MAX);
    let bytes = at.to_bytes(Endian::Little).expect("65536 bytes encode");
    let v = ReplyView::parse(&bytes).expect("decodes");
    assert_eq!(v.to_value(), at);
    // Against the request, the limit of 256 applies first.
    refused(
        ReplyView::parse_for(&bytes, &ctx),
        "md_create_prepare_rep",
        "mcpp_buf_size[2]",
        ErrorKind::ResultOverLimit {
            size: XATTR_SIZE_MAX as u32,
            limit: 256,
        },
    );
    for len in [XATTR_SIZE_MAX + 1, BIG] {
        let rep = with_pin(len);
        refused(
            rep.validate(None),
            "MLI_BUF_PIN",
            "",
            over(len as u64, XATTR_SIZE_MAX),
        );
        let parts = RepParts::from_value(&rep, Endian::Little);
        refused(
            ReplyView::parse(&parts.encode()),
            "MLI_BUF_PIN",
            "",
            over(len as u64, XATTR_SIZE_MAX),
        );
    }
    // mcpp_buf_size at its type's maximum, not matching the buffer.
    let mut parts = RepParts::mkdir();
    parts.body.as_mut().expect("body").buf_size[MliBuf::Pin.index()] = u32::MAX;
    refused(
        ReplyView::parse(&parts.encode()),
        "md_create_prepare_rep",
        "mcpp_buf_size[2]",
        ErrorKind::ResultSizeMismatch {
            len: 12,
            size: u32::MAX,
        },
    );
    // A truncated result may report any size above the limit, the type's maximum included.
    let mut rep = mkdir_reply();
    rep.outcome.as_mut().expect("outcome").set_result(
        MliBuf::Lov,
        PrepResult::Unknown(UnknownReason::Truncated { size: u32::MAX }),
    );
    let bytes = rep.to_bytes(Endian::Little).expect("encodes");
    assert!(ReplyView::parse_for(&bytes, &ctx).is_ok());
    // The attributes are exactly one mdt_body.
    let mut parts = RepParts::mkdir();
    parts.results[0].push(0);
    parts.body.as_mut().expect("body").buf_size[0] = MDT_BODY_SIZE as u32 + 1;
    refused(
        ReplyView::parse(&parts.encode()),
        "MLI_BUF_PATTR",
        "",
        ErrorKind::PattrNotMdtBody {
            len: MDT_BODY_SIZE + 1,
        },
    );
}

// ---- Xattr payloads ----

#[test]
fn xattr_size_bound() {
    // Every payload kind refuses more than XATTR_SIZE_MAX bytes before looking inside.
    let mut big = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/xattr_acl_access.bin"
    ))
    .expect("vector");
    big.resize(XATTR_SIZE_MAX + 1, 0);
    let kind = over(big.len() as u64, XATTR_SIZE_MAX);
    refused(AclView::parse(&big), "posix_acl_xattr", "", kind);
    refused(LmvView::parse(&big), "lmv_mds_md_v1", "", kind);
    refused(DefaultLmvView::parse(&big), "lmv_user_md_v1", "", kind);
    refused(LovView::parse(&big), "lov_user_md", "", kind);
}

fn acl_with(entries: usize) -> Vec<u8> {
    // USER_OBJ, named users, GROUP_OBJ, MASK, OTHER.
    let named = entries - 4;
    let mut e = vec![AclEntry::new(AclTag::USER_OBJ, AclPerm(7), 0)];
    e.extend((0..named as u32).map(|id| AclEntry::new(AclTag::USER, AclPerm(5), id)));
    e.push(AclEntry::new(AclTag::GROUP_OBJ, AclPerm(5), 0));
    e.push(AclEntry::new(AclTag::MASK, AclPerm(5), 0));
    e.push(AclEntry::new(AclTag::OTHER, AclPerm(0), 0));
    let mut out = 2u32.to_le_bytes().to_vec();
    for x in &e {
        out.extend_from_slice(&x.tag.0.to_le_bytes());
        out.extend_from_slice(&x.perm.0.to_le_bytes());
        out.extend_from_slice(&x.id.to_le_bytes());
    }
    out
}

#[test]
fn acl_entries_bound() {
    let at = acl_with(ACL_MAX_ENTRIES);
    let v = AclView::parse(&at).expect("8191 entries");
    assert_eq!(v.len(), ACL_MAX_ENTRIES);
    assert_eq!(v.to_value().to_bytes().expect("re-encodes"), at);
    // One more entry is also one more than XATTR_SIZE_MAX allows: the size bound answers first.
    let one_above = acl_with(ACL_MAX_ENTRIES + 1);
    refused(
        AclView::parse(&one_above),
        "posix_acl_xattr",
        "",
        over(one_above.len() as u64, XATTR_SIZE_MAX),
    );
    // The owned value checks the count itself.
    let mut acl = v.to_value();
    acl.entries
        .insert(1, AclEntry::new(AclTag::USER, AclPerm(1), u32::MAX - 1));
    refused(
        acl.check(),
        "posix_acl_xattr",
        "a_entries",
        over(ACL_MAX_ENTRIES as u64 + 1, ACL_MAX_ENTRIES),
    );
    assert!(acl.to_bytes().is_err());
}

fn lmv_striped(count: u32, fids: usize) -> Vec<u8> {
    let base = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/xattr_lmv_striped.bin"
    ))
    .expect("vector");
    let mut out = base[..56].to_vec();
    out[4..8].copy_from_slice(&count.to_le_bytes());
    for i in 0..fids {
        let fid = lustre_dne_intent::wire::LuFid::new(0x2_0000_0400 + i as u64, 1, 0);
        out.extend_from_slice(&fid.seq.to_le_bytes());
        out.extend_from_slice(&fid.oid.to_le_bytes());
        out.extend_from_slice(&fid.ver.to_le_bytes());
    }
    out
}

#[test]
fn lmv_stripe_count_bound() {
    let at = lmv_striped(LMV_MAX_STRIPE_COUNT as u32, LMV_MAX_STRIPE_COUNT);
    let v = LmvView::parse(&at).expect("2000 stripes");
    assert_eq!(v.to_value().to_bytes().expect("re-encodes"), at);
    for count in [LMV_MAX_STRIPE_COUNT as u32 + 1, u32::MAX] {
        refused(
            LmvView::parse(&lmv_striped(count, LMV_MAX_STRIPE_COUNT + 1)),
            "lmv_mds_md_v1",
            "lmv_stripe_count",
            over(count.into(), LMV_MAX_STRIPE_COUNT),
        );
    }
}

fn dmv_specific(count: i32, objects: usize) -> Vec<u8> {
    let base = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/xattr_dmv_specific.bin"
    ))
    .expect("vector");
    let mut out = base[..48].to_vec();
    out[4..8].copy_from_slice(&count.to_le_bytes());
    for i in 0..objects {
        out.extend_from_slice(&[0u8; 20]);
        out.extend_from_slice(&(i as u32).to_le_bytes());
    }
    out
}

#[test]
fn default_lmv_stripe_count_bound() {
    let at = dmv_specific(LMV_MAX_STRIPE_COUNT as i32, LMV_MAX_STRIPE_COUNT);
    let v = DefaultLmvView::parse(&at).expect("2000 specific stripes");
    assert_eq!(v.objects().len(), LMV_MAX_STRIPE_COUNT);
    assert_eq!(v.to_value().to_bytes().expect("re-encodes"), at);
    for count in [LMV_MAX_STRIPE_COUNT as i32 + 1, i32::MAX] {
        refused(
            DefaultLmvView::parse(&dmv_specific(count, LMV_MAX_STRIPE_COUNT + 1)),
            "lmv_user_md_v1",
            "lum_stripe_count",
            over(count as u64, LMV_MAX_STRIPE_COUNT),
        );
    }
    // The type's minimum: below any allowed negative count.
    refused(
        DefaultLmvView::parse(&dmv_specific(i32::MIN, 0)),
        "lmv_user_md_v1",
        "lum_stripe_count",
        ErrorKind::LmvBadStripeCount {
            got: i32::MIN,
            min: 0,
        },
    );
}

fn lov_v1(count: u16, objects: usize) -> Vec<u8> {
    let base = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/xattr_lov_v1_objects.bin"
    ))
    .expect("vector");
    let mut out = base[..32].to_vec();
    out[28..30].copy_from_slice(&count.to_le_bytes());
    for i in 0..objects {
        out.extend_from_slice(&(i as u64 + 1).to_le_bytes());
        out.extend_from_slice(&[0u8; 12]);
        out.extend_from_slice(&(i as u32).to_le_bytes());
    }
    out
}

#[test]
fn lov_stripe_count_bound() {
    let at = lov_v1(LOV_MAX_STRIPE_COUNT as u16, LOV_MAX_STRIPE_COUNT);
    let v = LovView::parse(&at).expect("2000 stripes");
    assert_eq!(v.to_value().to_bytes().expect("re-encodes"), at);
    refused(
        LovView::parse(&lov_v1(LOV_MAX_STRIPE_COUNT as u16 + 1, 0)),
        "lov_user_md_v1",
        "lmm_stripe_count",
        over(LOV_MAX_STRIPE_COUNT as u64 + 1, LOV_MAX_STRIPE_COUNT),
    );
    // Just below the reserved "all stripes" values: the largest ordinary count.
    let largest = lustre_dne_intent::xattr::lov::LOV_ALL_STRIPES_WIDE - 1;
    refused(
        LovView::parse(&lov_v1(largest, 0)),
        "lov_user_md_v1",
        "lmm_stripe_count",
        over(largest.into(), LOV_MAX_STRIPE_COUNT),
    );
    // The type's maximum is LOV_ALL_STRIPES (-1: "every OST"), a request, with no objects.
    let all_bytes = lov_v1(u16::MAX, 0);
    let all = LovView::parse(&all_bytes).expect("LOV_ALL_STRIPES");
    assert_eq!(all.to_value().to_bytes().expect("re-encodes"), all_bytes);
    refused(
        LovView::parse(&lov_v1(u16::MAX, 1)),
        "lov_user_md_v1",
        "lmm_stripe_count",
        ErrorKind::PayloadSizeMismatch {
            len: 56,
            expected: 32,
        },
    );
}

fn comp_with(entry_count: u16) -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/xattr_lov_comp3.bin"
    ))
    .map(|mut b| {
        b[14..16].copy_from_slice(&entry_count.to_le_bytes());
        b
    })
    .expect("vector")
}

#[test]
fn lov_comp_entry_count_bound() {
    // No constant of its own: the entry table must lie inside the payload, itself bounded by
    // XATTR_SIZE_MAX. The vector has 3 entries; 4 puts the table over the first component.
    let at = comp_with(3);
    let v = LovView::parse(&at).expect("3 entries");
    assert_eq!(v.to_value().to_bytes().expect("re-encodes"), at);
    let one_above = comp_with(4);
    let e = LovView::parse(&one_above).expect_err("a 4th entry overlaps a component");
    assert_eq!(e.at.structure, "lov_comp_md_entry_v1", "{e}");
    let len = at.len();
    refused(
        LovView::parse(&comp_with(u16::MAX)),
        "lov_comp_md_v1",
        "lcm_entry_count",
        ErrorKind::LovEntryTableOutside {
            count: u16::MAX,
            end: 32 + 48 * u16::MAX as usize,
            len,
        },
    );
    refused(
        LovView::parse(&comp_with(0)),
        "lov_comp_md_v1",
        "lcm_entry_count",
        ErrorKind::LovCompNoEntries,
    );
}

#[test]
fn pool_name_bound() {
    let at = [b'p'; POOL_NAME_MAX];
    assert_eq!(PoolName::new(&at).expect("15 bytes").as_bytes(), &at);
    assert!(PoolName::new(&[b'p'; POOL_NAME_MAX + 1]).is_none());
    // In a payload, the 16-byte field must hold a NUL: 16 name bytes are refused.
    let mut lmv = lmv_striped(1, 0);
    lmv[40..56].copy_from_slice(&[b'p'; POOL_NAME_MAX + 1]);
    refused(
        LmvView::parse(&lmv),
        "lmv_mds_md_v1",
        "lmv_pool_name",
        ErrorKind::PoolNameNotTerminated,
    );
    lmv[55] = 0;
    assert_eq!(
        LmvView::parse(&lmv)
            .expect("15 bytes and a NUL")
            .to_value()
            .to_bytes()
            .expect("encodes"),
        lmv
    );
    // The pin's pool value: 15 accepted, 16 a syntax error.
    for (len, ok) in [(POOL_NAME_MAX, true), (POOL_NAME_MAX + 1, false)] {
        let text = format!("[pool: {}]", "p".repeat(len));
        let pin = PinView::parse(text.as_bytes()).expect("a pin is any bytes");
        assert_eq!(pin.is_well_formed(), ok, "{text}");
    }
}

#[test]
fn foreign_length_bound() {
    // lfm_length: at most XATTR_SIZE_MAX − 16 (the header), then the type's maximum.
    let foreign = |length: u32, value: usize| {
        let mut b = LMV_MAGIC_FOREIGN.to_le_bytes().to_vec();
        b.extend_from_slice(&length.to_le_bytes());
        b.extend_from_slice(&[0u8; 8]);
        b.resize(16 + value, b'v');
        b
    };
    let max = XATTR_SIZE_MAX - 16;
    let at = foreign(max as u32, max);
    assert_eq!(
        LmvView::parse(&at)
            .expect("a 64 KiB foreign LMV")
            .to_value()
            .to_bytes()
            .expect("encodes"),
        at
    );
    for length in [max as u32 + 1, u32::MAX] {
        refused(
            LmvView::parse(&foreign(length, 0)),
            "lmv_foreign_md",
            "lfm_length",
            over(length.into(), max),
        );
    }
}

#[test]
fn md_lock_intent_limit_bound() {
    // lb_len may not exceed its buffer, nor, on the wire, XATTR_SIZE_MAX.
    let mut storage = vec![0u8; XATTR_SIZE_MAX + 1];
    let mut empty: [[u8; 0]; 5] = Default::default();
    let [b1, b2, b3, b4, b5] = &mut empty;
    let (pattr, rest) = storage.split_at_mut(MDT_BODY_SIZE);
    let _ = rest;
    let mut intent = MdLockIntent::new(
        Operation::Create,
        mkdir_body(),
        Some(b"x"),
        [pattr, b1, b2, b3, b4, b5],
    );
    assert_eq!(intent.limits().expect("fits")[0], MDT_BODY_SIZE as u32);
    intent.reply_buf[0].len = MDT_BODY_SIZE + 1;
    refused(
        intent.limits(),
        "md_lock_intent",
        "mli_reply_buf[MLI_BUF_PATTR].lb_len",
        over(MDT_BODY_SIZE as u64 + 1, MDT_BODY_SIZE),
    );
    intent.reply_buf[0].len = usize::MAX;
    refused(
        intent.limits(),
        "md_lock_intent",
        "mli_reply_buf[MLI_BUF_PATTR].lb_len",
        over(u64::MAX, MDT_BODY_SIZE),
    );
    // A whole-buffer limit over XATTR_SIZE_MAX is refused when the request is built.
    let mut e2: [[u8; 0]; 5] = Default::default();
    let [c1, c2, c3, c4, c5] = &mut e2;
    let intent = MdLockIntent::new(
        Operation::Create,
        mkdir_body(),
        Some(b"x"),
        [&mut storage[..MDT_BODY_SIZE], c1, c2, c3, c4, c5],
    );
    assert!(
        intent
            .to_request(&[], lustre_dne_intent::wire::LockMode::PW, 1)
            .is_ok()
    );
    let mut big = vec![0u8; XATTR_SIZE_MAX + 1];
    let mut e3: [[u8; 0]; 5] = Default::default();
    let [d0, d2, d3, d4, d5] = &mut e3;
    let intent = MdLockIntent::new(
        Operation::Create,
        mkdir_body(),
        Some(b"x"),
        [d0, &mut big[..], d2, d3, d4, d5],
    );
    refused(
        intent.to_request(&[], lustre_dne_intent::wire::LockMode::PW, 1),
        "md_create_prepare_req",
        "mcpr_buf_limit[1]",
        over(XATTR_SIZE_MAX as u64 + 1, XATTR_SIZE_MAX),
    );
}

#[test]
fn fixed_buffer_minimums() {
    // The fixed structures' sizes are lower bounds on their buffers: at the size (accepted), one
    // below (refused as too short), and at the largest buffer the framing allows (accepted, the
    // tail ignored; the handles of an ldlm_request are counted instead, see ldlm_handles_bound).
    let short = |len: usize, min: usize| ErrorKind::BufferTooShort { len, min };
    for (i, min, structure) in [
        (0, PTLRPC_BODY_V2_SIZE, "ptlrpc_body"),
        (1, LDLM_REQUEST_MIN, "ldlm_request"),
        (2, LDLM_INTENT_SIZE, "ldlm_intent"),
        (3, PREPARE_REQ_SIZE, "md_create_prepare_req"),
    ] {
        let mut parts = ReqParts::mkdir();
        let mut buf = parts.bufs()[i].clone();
        buf.resize(min, 0);
        parts.raw[i] = Some(buf.clone());
        assert!(
            RequestView::parse(&parts.encode()).is_ok(),
            "{structure} at {min}"
        );
        buf.truncate(min - 1);
        parts.raw[i] = Some(buf.clone());
        refused(
            RequestView::parse(&parts.encode()),
            structure,
            "",
            short(min - 1, min),
        );
        if i != 1 {
            buf.resize(BIG, 0);
            buf[..min].copy_from_slice(&ReqParts::mkdir().bufs()[i][..min]);
            parts.raw[i] = Some(buf);
            assert!(
                RequestView::parse(&parts.encode()).is_ok(),
                "{structure} at {BIG}"
            );
        }
    }
    for (i, min, structure) in [
        (0, PTLRPC_BODY_V2_SIZE, "ptlrpc_body"),
        (1, LDLM_REPLY_SIZE, "ldlm_reply"),
        (2, PREPARE_REP_SIZE, "md_create_prepare_rep"),
    ] {
        let mut parts = RepParts::mkdir();
        let whole = RepParts::mkdir().encode();
        let view = MsgView::parse(&whole).expect("frames");
        let mut buf = view.buffer_or_empty(i)[..min].to_vec();
        parts.raw[i] = Some(buf.clone());
        assert!(
            ReplyView::parse(&parts.encode()).is_ok(),
            "{structure} at {min}"
        );
        buf.truncate(min - 1);
        parts.raw[i] = Some(buf.clone());
        refused(
            ReplyView::parse(&parts.encode()),
            structure,
            "",
            short(min - 1, min),
        );
        buf.resize(BIG, 0);
        buf[..min].copy_from_slice(&view.buffer_or_empty(i)[..min]);
        parts.raw[i] = Some(buf);
        assert!(
            ReplyView::parse(&parts.encode()).is_ok(),
            "{structure} at {BIG}"
        );
    }
}
