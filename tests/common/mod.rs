//! Message builders that bypass validation, so tests can produce every kind of bad input.
#![allow(dead_code)]

use bytes::Bytes;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::*;

/// The parts of a request message, each serialised on its own (no rule is checked).
#[derive(Clone)]
pub struct ReqParts {
    pub order: Endian,
    pub header: MsgHeader,
    pub ptlrpc: PtlrpcBody,
    pub ldlm: LdlmRequest,
    pub opc: IntentOpc,
    pub body: MdCreatePrepareReq,
    /// Raw name buffer (with its NUL), may be empty.
    pub name: Vec<u8>,
    pub groups: Vec<u32>,
    /// Replaces buffer i's bytes when set.
    pub raw: [Option<Vec<u8>>; 6],
    /// Number of buffers to frame (default 6).
    pub bufcount: usize,
}

pub const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);

pub fn mkdir_body() -> MdCreatePrepareReq {
    MdCreatePrepareReq {
        fid: PARENT,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        cap: 0,
        child_mode: 0o040_755,
        buf_limit: [216, 4096, 256, 4096, 4096, 48],
        ..Default::default()
    }
}

/// A valid mkdir request, as a value.
pub fn mkdir_request() -> PrepareRequest {
    PrepareRequest::new(
        Operation::Create,
        mkdir_body(),
        Some(EntryName::new(b"newdir").expect("valid name")),
        GroupList::from_slice(&[500, 600, 700]).expect("3 groups"),
        LockMode::PW,
        0xabcd,
    )
}

impl ReqParts {
    pub fn from_value(v: &PrepareRequest, order: Endian) -> Self {
        let mut name = Vec::new();
        if let Some(n) = &v.name {
            name.extend_from_slice(n.as_bytes());
            name.push(0);
        }
        ReqParts {
            order,
            header: v.header,
            ptlrpc: v.ptlrpc,
            ldlm: v.ldlm,
            opc: v.opc,
            body: v.body,
            name,
            groups: v.groups.as_slice().to_vec(),
            raw: Default::default(),
            bufcount: 6,
        }
    }

    pub fn mkdir() -> Self {
        Self::from_value(&mkdir_request(), Endian::Little)
    }

    pub fn bufs(&self) -> Vec<Vec<u8>> {
        let o = self.order;
        let mut b0 = Vec::new();
        self.ptlrpc.put_buffer(o, &mut b0);
        let mut b1 = Vec::new();
        self.ldlm.put_buffer(o, &mut b1);
        let mut b2 = Vec::new();
        LdlmIntent { opc: self.opc }.put(o, &mut b2);
        let mut b3 = Vec::new();
        self.body.put(o, &mut b3);
        let b4 = self.name.clone();
        let b5: Vec<u8> = self.groups.iter().flat_map(|g| o.u32_to(*g)).collect();
        let mut bufs = vec![b0, b1, b2, b3, b4, b5];
        for (b, r) in bufs.iter_mut().zip(&self.raw) {
            if let Some(r) = r {
                *b = r.clone();
            }
        }
        bufs.truncate(self.bufcount);
        bufs
    }

    pub fn encode(&self) -> Vec<u8> {
        let bufs = self.bufs();
        let mut mb = MsgBuilder::new(self.order, self.header);
        for b in &bufs {
            mb.push(b).expect("push");
        }
        let mut out = Vec::new();
        mb.put(&mut out);
        out
    }
}

/// The parts of a reply message (no rule is checked).
#[derive(Clone)]
pub struct RepParts {
    pub order: Endian,
    pub header: MsgHeader,
    pub ptlrpc: PtlrpcBody,
    pub ldlm: LdlmReply,
    pub body: Option<MdCreatePrepareRep>,
    pub results: [Vec<u8>; 6],
    pub raw: [Option<Vec<u8>>; 9],
    pub bufcount: usize,
}

pub fn pattr_bytes() -> Vec<u8> {
    pattr_with(|_| {})
}

/// The PATTR of [`pattr_bytes`] changed by `f`, little-endian.
pub fn pattr_with(f: impl FnOnce(&mut MdtBody)) -> Vec<u8> {
    let mut attrs = MdtBody {
        fid1: PARENT,
        valid: MdtValid::FLID
            | MdtValid::FLMODE
            | MdtValid::FLTYPE
            | MdtValid::FLUID
            | MdtValid::FLGID,
        mode: 0o040_775,
        gid: 600,
        ..Default::default()
    };
    f(&mut attrs);
    let mut v = Vec::new();
    attrs.put(Endian::Little, &mut v);
    v
}

/// A valid complete reply to `mkdir_request()`.
pub fn mkdir_reply() -> PrepareReply {
    let ctx = mkdir_request().reply_context().expect("valid request");
    let mut o = PrepareOutcome::new(MdCreatePrepareRep {
        flags: McppFlags::LOOKUP_DONE | McppFlags::PERM_DONE | McppFlags::CHILD_DERIVED,
        child_mode: 0o040_755,
        child_gid: 500,
        ..Default::default()
    });
    o.set_result(
        MliBuf::Pattr,
        PrepResult::Present(Bytes::from(pattr_bytes())),
    );
    o.set_result(MliBuf::DefAcl, PrepResult::Absent);
    o.set_result(
        MliBuf::Pin,
        PrepResult::Present(Bytes::from_static(b"[pool: fast]")),
    );
    o.set_result(MliBuf::Lmv, PrepResult::Absent);
    o.set_result(
        MliBuf::Lov,
        PrepResult::Unknown(UnknownReason::Truncated { size: 5000 }),
    );
    o.set_result(
        MliBuf::DefLmv,
        PrepResult::Unknown(UnknownReason::NotProvided),
    );
    PrepareReply::granting(&ctx, LustreHandle(0x1234), Some(o))
}

impl RepParts {
    pub fn from_value(v: &PrepareReply, order: Endian) -> Self {
        RepParts {
            order,
            header: v.header,
            ptlrpc: v.ptlrpc,
            ldlm: v.ldlm,
            body: v.outcome.as_ref().map(|o| o.body),
            results: match &v.outcome {
                Some(o) => o.results.clone().map(|b| b.to_vec()),
                None => Default::default(),
            },
            raw: Default::default(),
            bufcount: 9,
        }
    }

    pub fn mkdir() -> Self {
        Self::from_value(&mkdir_reply(), Endian::Little)
    }

    /// The reply's buffers: each field encoded unless `raw` replaces it, the first `bufcount`.
    pub fn bufs(&self) -> Vec<Vec<u8>> {
        let o = self.order;
        let mut b0 = Vec::new();
        self.ptlrpc.put_buffer(o, &mut b0);
        let mut b1 = Vec::new();
        self.ldlm.put(o, &mut b1);
        let mut b2 = Vec::new();
        if let Some(b) = &self.body {
            b.put(o, &mut b2);
        }
        let mut bufs = vec![b0, b1, b2];
        bufs.extend(self.results.iter().cloned());
        for (b, r) in bufs.iter_mut().zip(&self.raw) {
            if let Some(r) = r {
                *b = r.clone();
            }
        }
        bufs.truncate(self.bufcount);
        bufs
    }

    pub fn encode(&self) -> Vec<u8> {
        let bufs = self.bufs();
        let mut mb = MsgBuilder::new(self.order, self.header);
        for b in &bufs {
            mb.push(b).expect("push");
        }
        let mut out = Vec::new();
        mb.put(&mut out);
        out
    }
}

/// Built messages in both byte orders, plus every golden vector of testdata/.
pub fn messages() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for order in [Endian::Little, Endian::Big] {
        let mut req = ReqParts::mkdir();
        req.order = order;
        out.push((format!("built mkdir request {order}"), req.encode()));
        let mut rep = RepParts::mkdir();
        rep.order = order;
        out.push((format!("built mkdir reply {order}"), rep.encode()));
    }
    out.extend(golden_messages());
    out
}

/// The golden message vectors of `testdata/` (`*.bin` but the xattr payloads), written by
/// `gen_vectors.py` and not by this crate: (file name, bytes), sorted by name.
pub fn golden_messages() -> Vec<(String, Vec<u8>)> {
    // The codec's tests run at the top of the repository, the conformance crate's one level down.
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = if here.join("testdata/mkdir_request.bin").is_file() {
        here.join("testdata")
    } else {
        here.join("../testdata")
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("testdata/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_string_lossy().into_owned();
            (name.ends_with(".bin") && !name.starts_with("xattr_"))
                .then(|| (name, std::fs::read(&p).expect("readable vector")))
        })
        .collect()
}
