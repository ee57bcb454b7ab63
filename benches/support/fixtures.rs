//! Inputs shared by the benchmarks and by `tests/api/baseline.rs`: the golden message vectors
//! of `testdata/`, ACL and composite-LOV payloads of a chosen size, and the largest reply the
//! protocol allows (every result at or near its limit), all built with the crate's own encoders.
#![allow(dead_code)]

use bytes::Bytes;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    EntryName, GroupList, McppFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation,
    PrepResult, PrepareOutcome, PrepareReply, PrepareRequest,
};
use lustre_dne_intent::wire::{LockMode, LuFid, LustreHandle, WireStruct};
use lustre_dne_intent::xattr::{
    Acl, AclEntry, AclPerm, AclTag, DefaultLmv, LMV_MAGIC_V1, LMV_USER_MAGIC, LOV_MAGIC_V1,
    LcmeFlags, Lmv, LmvHashType, LmvMd, Lov, LovBlob, LovComp, LovCompEntry, LovComponent, LovMd,
    LovPattern,
};

/// Whether a golden vector is a request or a reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A prepare request.
    Request,
    /// A prepare reply.
    Reply,
}

/// The message vectors of `testdata/` (requests and replies), by file stem.
pub const MESSAGES: &[(&str, Kind)] = &[
    ("mkdir_request", Kind::Request),
    ("mkdir_request_be", Kind::Request),
    ("mkdir_request_partial", Kind::Request),
    ("rename_object_request", Kind::Request),
    ("unlink_request", Kind::Request),
    ("mkdir_reply_absent", Kind::Reply),
    ("mkdir_reply_advisory", Kind::Reply),
    ("mkdir_reply_be", Kind::Reply),
    ("mkdir_reply_complete", Kind::Reply),
    ("mkdir_reply_eexist", Kind::Reply),
    ("mkdir_reply_empty", Kind::Reply),
    ("mkdir_reply_lov_truncated", Kind::Reply),
    ("rename_object_reply", Kind::Reply),
    ("unlink_reply", Kind::Reply),
];

/// The bytes of `testdata/NAME.bin`.
pub fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A valid POSIX ACL xattr of exactly `n` entries (n ≥ 4): USER_OBJ, n − 4 named users with
/// increasing ids, GROUP_OBJ, MASK, OTHER. Its size is 4 + 8n bytes.
pub fn acl_payload(n: usize) -> Vec<u8> {
    assert!(n >= 4, "an ACL with named entries needs at least 4 entries");
    let mut entries = Vec::with_capacity(n);
    entries.push(AclEntry::new(AclTag::USER_OBJ, AclPerm(7), 0));
    for i in 0..n - 4 {
        entries.push(AclEntry::new(AclTag::USER, AclPerm(5), 1000 + i as u32));
    }
    entries.push(AclEntry::new(AclTag::GROUP_OBJ, AclPerm(5), 0));
    entries.push(AclEntry::new(AclTag::MASK, AclPerm(7), 0));
    entries.push(AclEntry::new(AclTag::OTHER, AclPerm(5), 0));
    Acl::new(entries).to_bytes().expect("valid ACL").to_vec()
}

/// A valid composite layout of `n` components, each a plain V1 template of 4 stripes over a
/// contiguous extent. Its size is 32 + 48n + 32n bytes.
pub fn lov_comp_payload(n: usize) -> Vec<u8> {
    let components = (0..n)
        .map(|i| {
            let start = (i as u64) << 20;
            LovComponent {
                entry: LovCompEntry {
                    id: i as u32 + 1,
                    flags: LcmeFlags::INIT,
                    extent_start: start,
                    extent_end: if i + 1 == n {
                        u64::MAX
                    } else {
                        start + (1 << 20)
                    },
                    ..Default::default()
                },
                blob: LovBlob::Md(LovMd {
                    magic: LOV_MAGIC_V1,
                    pattern: LovPattern::RAID0,
                    stripe_size: 1 << 20,
                    stripe_count: 4,
                    stripe_offset: lustre_dne_intent::xattr::LmmUnion::StripeOffset(0xffff),
                    ..Default::default()
                }),
            }
        })
        .collect();
    Lov::Comp(LovComp {
        components,
        ..Default::default()
    })
    .to_bytes()
    .expect("valid composite layout")
    .to_vec()
}

/// A striped directory's LMV with `n` stripes (56 + 16n bytes).
pub fn lmv_payload(n: u32) -> Vec<u8> {
    Lmv::Md(LmvMd {
        magic: LMV_MAGIC_V1,
        stripe_count: n,
        hash_type: LmvHashType(2),
        stripe_fids: (0..n)
            .map(|i| LuFid::new(0x2_0000_0400 + u64::from(i), 1, 0))
            .collect(),
        ..Default::default()
    })
    .to_bytes()
    .expect("valid LMV")
    .to_vec()
}

/// A reply at the protocol's size bounds (103 480 bytes): every result requested at the 64 KiB
/// limit and present: PATTR, an ACL of 8191 entries (65 532 bytes, the most an ACL can hold),
/// a pin, an LMV of 2000 stripes (32 056 bytes, the most stripes), a composite LOV of 64
/// components (5 152 bytes) and a default LMV.
pub fn max_reply() -> Vec<u8> {
    let fid = LuFid::new(0x2_0000_0401, 1, 0);
    let body = MdCreatePrepareReq {
        fid,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        child_mode: 0o040_755,
        buf_limit: [216, 65536, 65536, 65536, 65536, 65536],
        ..Default::default()
    };
    let req = PrepareRequest::new(
        Operation::Create,
        body,
        Some(EntryName::new(b"newdir").expect("valid name")),
        GroupList::from_slice(&[100, 600, 700]).expect("3 groups"),
        LockMode::PW,
        0x9379_ea6c_975f_b7c0,
    );
    let ctx = req.reply_context().expect("valid request");
    // PATTR: the first present PATTR of the complete golden reply.
    let complete = vector("mkdir_reply_complete");
    let view = lustre_dne_intent::intent::ReplyView::parse(&complete).expect("golden reply");
    let pattr = view
        .result(MliBuf::Pattr)
        .present()
        .expect("PATTR present")
        .to_vec();
    let mut outcome = PrepareOutcome::new(MdCreatePrepareRep {
        flags: McppFlags::LOOKUP_DONE | McppFlags::PERM_DONE,
        ..Default::default()
    });
    let dmv = DefaultLmv {
        magic: LMV_USER_MAGIC,
        stripe_count: 2,
        stripe_offset: 0xffff_ffff,
        hash_type: LmvHashType(2),
        max_inherit: 3,
        max_inherit_rr: 0,
        ..Default::default()
    }
    .to_bytes()
    .expect("valid default LMV");
    let results: [(MliBuf, Bytes); 6] = [
        (MliBuf::Pattr, Bytes::from(pattr)),
        (MliBuf::DefAcl, Bytes::from(acl_payload(8191))),
        (MliBuf::Pin, Bytes::from_static(b"[hsm: 3,pool: fast]")),
        (MliBuf::Lmv, Bytes::from(lmv_payload(2000))),
        (MliBuf::Lov, Bytes::from(lov_comp_payload(64))),
        (MliBuf::DefLmv, dmv),
    ];
    for (b, data) in results {
        outcome.set_result(b, PrepResult::Present(data));
    }
    let reply = PrepareReply::granting(&ctx, LustreHandle(0x2b4e_6f80_91a3_c5d7), Some(outcome));
    reply.validate(Some(&ctx)).expect("valid max reply");
    reply.to_bytes(Endian::Little).expect("encodes").to_vec()
}

/// The crate's whole-message decode: the reply, then every present result typed and validated.
pub fn whole_crate(bytes: &[u8]) -> usize {
    let v = lustre_dne_intent::intent::ReplyView::parse(bytes).expect("valid");
    let mut n = 0;
    if let Some(p) = v.result(MliBuf::Pattr).present() {
        n += lustre_dne_intent::wire::MdtBody::decode(p, v.order())
            .expect("valid")
            .mode as usize;
    }
    n += v.def_acl().present().map_or(0, |a| a.len());
    n += v.pin().present().map_or(0, |p| p.wire_len());
    n += v.lmv().present().map_or(0, |l| l.wire_len());
    n += v.lov().present().map_or(0, |l| l.wire_len());
    n += v.def_lmv().present().map_or(0, |d| d.wire_len());
    n
}

/// A byte buffer at a chosen place in memory: `offset` bytes past a 4096-byte boundary.
///
/// The benchmarks put every input at offset 0 and every destination at offset 2048, so that a
/// copy and the code it is the floor of see the same alignments in every group and every run.
/// Left to the allocator, the floor of the same 904 bytes measured 8.1 ns in one group and
/// 14.2 ns in another of the same run.
pub struct Placed {
    buf: Vec<u8>,
    start: usize,
    len: usize,
}

impl Placed {
    /// A copy of `bytes` at `offset` (below 4096) past a page boundary.
    pub fn new(bytes: &[u8], offset: usize) -> Self {
        let mut p = Self::zeroed(bytes.len(), offset);
        p.copy_from_slice(bytes);
        p
    }

    /// `len` zero bytes at `offset` (below 4096) past a page boundary.
    pub fn zeroed(len: usize, offset: usize) -> Self {
        const PAGE: usize = 4096;
        assert!(offset < PAGE, "offset {offset} is not within a page");
        let buf = vec![0u8; len + 2 * PAGE];
        let addr = buf.as_ptr() as usize;
        let start = (offset + PAGE - addr % PAGE) % PAGE;
        Placed { buf, start, len }
    }
}

impl std::ops::Deref for Placed {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for Placed {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.buf[self.start..self.start + self.len]
    }
}
