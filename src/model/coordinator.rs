//! The coordinator MDT: the intent path and the standard path of one operation, over a network
//! that records every enqueue, read, lock and cache event (the trace the checker judges).

use super::creds::{CAP_FOWNER, Creds};
use super::handler::{HandlerFaults, IntentHandler, ReferenceHandler};
use super::helper::{ChildState, Lookup, ObjInfo, ParentSource, Prepared, derive_child, prepare};
use super::store::{APPEND_FL, Attrs, Entry, IMMUTABLE_FL, Store};
use crate::Endian;
use crate::errno::codes::{ENOENT, ENOTEMPTY, EPERM};
use crate::intent::{
    EntryName, GroupList, McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf,
    Operation, PrepResult, PrepareRequest, ReplyView, ResultMask,
};
use crate::limits::{GROUPS_MAX, MDT_BODY_SIZE, MLI_BUF_MAX};
use crate::mode::S_IFMT;
use crate::wire::{LdlmResId, LockMode, LuFid, LustreHandle, MdtBody, WireStruct};
use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use bytes::Bytes;

/// One cross-MDT operation, as the coordinator sees it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Op {
    /// Create or mkdir `name` with `mode` (type bits included, before umask) in `parent`.
    Create {
        /// The remote parent.
        parent: LuFid,
        /// The new name.
        #[cfg_attr(feature = "serde", serde(with = "crate::json::bytes::name"))]
        name: Vec<u8>,
        /// Requested mode.
        mode: u32,
    },
    /// Unlink or rmdir `name` in `parent`.
    Unlink {
        /// The remote parent.
        parent: LuFid,
        /// The name to remove.
        #[cfg_attr(feature = "serde", serde(with = "crate::json::bytes::name"))]
        name: Vec<u8>,
    },
    /// The preparation of a cross-MDT rename of `name` out of `parent`: the source lookup and
    /// permission step on the source parent, then the source object's attributes.
    Rename {
        /// The remote source parent.
        parent: LuFid,
        /// The source name.
        #[cfg_attr(feature = "serde", serde(with = "crate::json::bytes::name"))]
        name: Vec<u8>,
    },
}

impl Op {
    /// The prepare operation.
    pub fn operation(&self) -> Operation {
        match self {
            Op::Create { .. } => Operation::Create,
            Op::Unlink { .. } => Operation::Unlink,
            Op::Rename { .. } => Operation::Rename,
        }
    }
    fn parent(&self) -> LuFid {
        match self {
            Op::Create { parent, .. } | Op::Unlink { parent, .. } | Op::Rename { parent, .. } => {
                *parent
            }
        }
    }
    fn name(&self) -> &[u8] {
        match self {
            Op::Create { name, .. } | Op::Unlink { name, .. } | Op::Rename { name, .. } => name,
        }
    }
}

/// What an operation comes to: an errno, or the state it prepared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum Outcome {
    /// It fails with this negative errno.
    Error(i32),
    /// Create succeeds with this child.
    Created(ChildState),
    /// Unlink/rmdir removes this object.
    Removed {
        /// The victim.
        victim: LuFid,
    },
    /// Rename may proceed with this source object and its attributes.
    RenameReady {
        /// The source object.
        source: LuFid,
        /// Its attributes.
        attrs: Attrs,
    },
}

/// A fault the coordinator's run is subjected to (MODEL.md §3), as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// Nothing goes wrong.
    None,
    /// The peer's connection does not advertise `OBD_CONNECT2_DNE_PREPARE`.
    PeerWithoutFlag,
    /// The connection advertised the flag but the peer lost it: the intent enqueue fails with
    /// -EPROTO and grants no lock.
    PeerLostFlag,
    /// The operation is a replay: no intent.
    Replay,
    /// The reply was lost and the enqueue resent: the handler runs again on the granted lock.
    Resend,
    /// The handler answers the empty result.
    EmptyResult,
    /// The handler marks its answer advisory.
    Advisory,
    /// The handler leaves this result unknown.
    Unknown(MliBuf),
    /// The coordinator's limit for this result is too small: it comes back truncated (PATTR,
    /// whose limit cannot be below an mdt_body, is then simply not requested).
    Truncated(MliBuf),
    /// The prepare reply arrives damaged and fails to decode.
    Malformed,
    /// The intent reaches the handler from a non-MDT connection: refused with -EPERM, no lock.
    NonMdtSender,
    /// The intent carries only the first `n` of the caller's groups (`MCPR_GROUPS_PARTIAL`).
    PartialGroups(u8),
}

impl Fault {
    /// Every fault over the six results, for exhaustive runs.
    pub fn all() -> Vec<Fault> {
        let mut v = alloc::vec![
            Fault::None,
            Fault::PeerWithoutFlag,
            Fault::PeerLostFlag,
            Fault::Replay,
            Fault::Resend,
            Fault::EmptyResult,
            Fault::Advisory,
            Fault::Malformed,
            Fault::NonMdtSender,
            Fault::PartialGroups(0),
            Fault::PartialGroups(1),
        ];
        for b in MliBuf::ALL {
            v.push(Fault::Unknown(b));
            v.push(Fault::Truncated(b));
        }
        v
    }

    /// The name the tool uses: `none`, `peer-without-flag`, `unknown-lov`, … (the
    /// [`Display`](core::fmt::Display) form).
    pub fn name(&self) -> alloc::string::String {
        alloc::string::ToString::to_string(self)
    }

    /// Parses [`Fault::name`] (the [`FromStr`](core::str::FromStr) form).
    pub fn from_name(s: &str) -> Option<Fault> {
        s.parse().ok()
    }
}

/// Deliberate coordinator bugs, for showing that the checker catches them (mutation testing).
/// All off in a correct coordinator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Mutations {
    /// Take an advisory status (and derivation) as final.
    pub trust_advisory: bool,
    /// Seed the cache from the reply before the post-grant invalidation.
    pub seed_before_invalidation: bool,
    /// Seed unknown results as negative entries.
    pub seed_unknown_as_absent: bool,
    /// Release the intent lock twice.
    pub double_release: bool,
    /// Send intents to peers without the connect flag (and in replays).
    pub ignore_gating: bool,
    /// Read every result again after the lock even when the reply was complete.
    pub ignore_results: bool,
}

/// A read item: what one synchronous remote read fetches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Item {
    /// attr_get with the permission data (attributes, access ACL).
    Attrs(LuFid),
    /// An index lookup of a name.
    Lookup(
        LuFid,
        #[cfg_attr(feature = "serde", serde(with = "crate::json::bytes::name"))] Vec<u8>,
    ),
    /// One xattr, named by the result it corresponds to.
    Xattr(LuFid, MliBuf),
    /// ROOT's default layout (the filesystem default for files).
    RootLov,
}

/// One LDLM enqueue.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Enqueue {
    /// The resource.
    pub resource: LdlmResId,
    /// The prepare intent it carried.
    pub intent: Option<Operation>,
    /// The lock id when granted, or the negative errno.
    #[cfg_attr(feature = "serde", serde(with = "crate::json::model::lock_result"))]
    pub result: Result<u32, i32>,
    /// The peer advertised the connect flag at this enqueue.
    pub peer_flag: bool,
    /// The operation was a replay.
    pub replay: bool,
    /// The intent came from a non-MDT connection.
    pub from_non_mdt: bool,
}

/// A cache event, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize),
    serde(rename_all = "snake_case")
)]
pub enum CacheEvent {
    /// A lock was granted.
    Grant(u32),
    /// The OSP cache was invalidated (after a grant, or on a cancel).
    Invalidate,
    /// An item was seeded from a reply: `Some` value, or a negative entry. `state` is the
    /// reply's state of the result it came from.
    Seed {
        /// What was seeded.
        item: Item,
        /// The seeded value (`None` = negative entry).
        #[cfg_attr(feature = "serde", serde(with = "crate::json::bytes::opt_hex"))]
        value: Option<Vec<u8>>,
        /// The result's state in the reply (`"present"`, `"absent"`, …).
        state: &'static str,
    },
}

/// One run of the handler.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct HandlerRun {
    /// The request.
    #[cfg_attr(feature = "serde", serde(with = "crate::json::bytes::hex"))]
    pub request: Bytes,
    /// The reply, or the errno with no lock.
    #[cfg_attr(feature = "serde", serde(with = "crate::json::model::reply_result"))]
    pub reply: Result<Bytes, i32>,
    /// The store was identical after the call.
    pub store_unchanged: bool,
    /// The call came over an MDT-to-MDT connection.
    pub from_mdt: bool,
}

/// Everything a run did, for the checker and the tool.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Trace {
    /// Enqueues, in order.
    pub enqueues: Vec<Enqueue>,
    /// Post-lock synchronous reads, in order.
    pub reads: Vec<Item>,
    /// Releases, by lock id, in order.
    pub releases: Vec<u32>,
    /// Cache events, in order.
    pub cache: Vec<CacheEvent>,
    /// Handler calls.
    pub handler_runs: Vec<HandlerRun>,
    /// Results the used reply left unknown, and the items they stand for.
    pub unknown_items: Vec<Item>,
    /// A decoded, non-advisory reply whose every needed result was known was used.
    pub complete_reply: bool,
    /// The reply used was advisory.
    pub advisory_reply: bool,
}

/// The coordinator's OSP cache: items with a value or a negative entry, and an invalidation
/// sequence so that a read racing an invalidation is not cached.
#[derive(Debug, Clone, Default)]
struct Cache {
    seq: u64,
    objs: BTreeMap<LuFid, ObjInfo>,
    attrs_only: BTreeMap<LuFid, Attrs>,
    lookups: BTreeMap<(LuFid, Vec<u8>), Option<Entry>>,
    xattrs: BTreeMap<(LuFid, MliBuf), Option<Vec<u8>>>,
}

/// The coordinator's view of the world for one run.
struct Net<'s> {
    store: &'s Store,
    handler: &'s dyn IntentHandler,
    trace: Trace,
    cache: Cache,
    next_lock: u32,
}

impl ParentSource for Net<'_> {
    fn attrs(&mut self, fid: LuFid) -> Option<ObjInfo> {
        if let Some(o) = self.cache.objs.get(&fid) {
            return Some(o.clone());
        }
        self.trace.reads.push(Item::Attrs(fid));
        let v = self.store.get(fid).map(|o| ObjInfo {
            attrs: o.attrs,
            dead: o.dead,
            access_acl: o.xattrs.access_acl.clone(),
        });
        if let Some(v) = &v {
            self.cache.objs.insert(fid, v.clone());
        }
        v
    }
    fn lookup(&mut self, fid: LuFid, name: &[u8]) -> Option<Entry> {
        if let Some(v) = self.cache.lookups.get(&(fid, name.to_vec())) {
            return *v;
        }
        self.trace.reads.push(Item::Lookup(fid, name.to_vec()));
        let v = self
            .store
            .get(fid)
            .and_then(|o| o.entries.get(name).copied());
        self.cache.lookups.insert((fid, name.to_vec()), v);
        v
    }
    fn xattr(&mut self, fid: LuFid, which: MliBuf) -> Option<Vec<u8>> {
        if let Some(v) = self.cache.xattrs.get(&(fid, which)) {
            return v.clone();
        }
        self.trace.reads.push(Item::Xattr(fid, which));
        let v = super::helper::LocalSource(self.store).xattr_of(fid, which);
        self.cache.xattrs.insert((fid, which), v.clone());
        v
    }
    fn root_lov(&mut self) -> Option<Vec<u8>> {
        self.trace.reads.push(Item::RootLov);
        self.store.root_lov().map(<[u8]>::to_vec)
    }
}

impl<'s> Net<'s> {
    fn new(store: &'s Store, handler: &'s dyn IntentHandler) -> Self {
        Net {
            store,
            handler,
            trace: Trace::default(),
            cache: Cache::default(),
            next_lock: 1,
        }
    }

    /// Attributes of `fid` for the coordinator's own checks: from a seeded PATTR, the cache, or
    /// a read.
    fn object_attrs(&mut self, fid: LuFid) -> Option<Attrs> {
        if let Some(a) = self.cache.attrs_only.get(&fid) {
            return Some(*a);
        }
        self.attrs(fid).map(|o| o.attrs)
    }

    fn grant(&mut self) -> u32 {
        let id = self.next_lock;
        self.next_lock += 1;
        self.trace.cache.push(CacheEvent::Grant(id));
        id
    }

    fn invalidate(&mut self) {
        self.cache = Cache {
            seq: self.cache.seq + 1,
            ..Cache::default()
        };
        self.trace.cache.push(CacheEvent::Invalidate);
    }

    fn plain_enqueue(&mut self, resource: LdlmResId, env: &Env) -> u32 {
        let id = self.grant();
        self.trace.enqueues.push(Enqueue {
            resource,
            intent: None,
            result: Ok(id),
            peer_flag: env.peer_flag,
            replay: env.replay,
            from_non_mdt: false,
        });
        self.invalidate();
        id
    }
}

/// Facts of the run the coordinator consults at each enqueue.
struct Env {
    peer_flag: bool,
    replay: bool,
}

/// A reply as the coordinator ends up using it.
enum Answer {
    /// No intent was sent, or it failed, or the reply was the empty result / malformed.
    Nothing,
    /// A decoded prepare reply.
    Body(
        MdCreatePrepareRep,
        alloc::boxed::Box<[PrepResult<Vec<u8>>; MLI_BUF_MAX]>,
    ),
}

/// Runs `op` for `creds` over `store` the standard way: no intent, ordinary enqueues and reads
/// with the caller's full credentials. This defines the right answer.
pub fn run_standard(store: &Store, creds: &Creds, op: &Op) -> (Outcome, Trace) {
    run(
        store,
        creds,
        op,
        Fault::PeerWithoutFlag,
        Mutations::default(),
        &ReferenceHandler,
    )
}

/// Runs `op` with prepare intents under `fault` (with `mutations` for checker self-tests).
pub fn run_intent(
    store: &Store,
    creds: &Creds,
    op: &Op,
    fault: Fault,
    mutations: Mutations,
) -> (Outcome, Trace) {
    run(store, creds, op, fault, mutations, &ReferenceHandler)
}

/// [`run_intent`] with another handler on the parent MDT (see [`IntentHandler`]).
pub fn run_intent_with(
    store: &Store,
    creds: &Creds,
    op: &Op,
    fault: Fault,
    mutations: Mutations,
    handler: &dyn IntentHandler,
) -> (Outcome, Trace) {
    run(store, creds, op, fault, mutations, handler)
}

/// The limits the coordinator asks for: everything, PATTR exactly one mdt_body.
const LIMITS: [u32; MLI_BUF_MAX] = [MDT_BODY_SIZE as u32, 4096, 4096, 4096, 4096, 4096];

fn run(
    store: &Store,
    creds: &Creds,
    op: &Op,
    fault: Fault,
    m: Mutations,
    handler: &dyn IntentHandler,
) -> (Outcome, Trace) {
    let mut net = Net::new(store, handler);
    let mut env = Env {
        peer_flag: !matches!(fault, Fault::PeerWithoutFlag),
        replay: matches!(fault, Fault::Replay),
    };
    let parent = op.parent();
    let name = op.name().to_vec();
    // The whole-directory lock (no intent), then the name-hash lock that carries the intent.
    let mut locks = Vec::new();
    locks.push(net.plain_enqueue(LdlmResId::of_fid(parent, 0), &env));
    let hash = name_hash(&name);
    let (lock, answer) = intent_enqueue(
        &mut net,
        &mut env,
        fault,
        m,
        creds,
        op.operation(),
        parent,
        Some(&name),
        child_mode(op),
        hash,
    );
    locks.push(lock);
    let outcome = match op {
        Op::Create { mode, .. } => finish_create(&mut net, creds, parent, &name, *mode, answer, m),
        Op::Unlink { .. } => {
            let prepared = entry_result(&mut net, creds, op.operation(), parent, &name, answer, m);
            match prepared {
                Err(e) => Outcome::Error(e),
                Ok((victim, p_attrs)) => {
                    // The child lock (local to the coordinator), then the checks that need it.
                    locks.push(net.plain_enqueue(LdlmResId::of_fid(victim, 0), &env));
                    finish_unlink(store, creds, victim, &p_attrs)
                }
            }
        }
        Op::Rename { .. } => {
            let prepared = entry_result(&mut net, creds, op.operation(), parent, &name, answer, m);
            match prepared {
                Err(e) => Outcome::Error(e),
                Ok((source, _)) => {
                    let (lock, _) = intent_enqueue(
                        &mut net,
                        &mut env,
                        fault,
                        m,
                        creds,
                        Operation::Rename,
                        source,
                        None,
                        0,
                        0,
                    );
                    locks.push(lock);
                    // The object-mode PATTR is in the cache when the reply carried it (seeded by
                    // intent_enqueue); otherwise this is the one read it costs.
                    let attrs = net.object_attrs(source);
                    match attrs {
                        Some(attrs) => Outcome::RenameReady { source, attrs },
                        None => Outcome::Error(-ENOENT),
                    }
                }
            }
        }
    };
    for id in locks {
        net.trace.releases.push(id);
        if m.double_release {
            net.trace.releases.push(id);
        }
    }
    (outcome, net.trace)
}

fn child_mode(op: &Op) -> u32 {
    match op {
        Op::Create { mode, .. } => *mode,
        _ => 0,
    }
}

/// FNV-1a-64 of the name (0 mapped to 1, as Lustre maps a zero name hash).
pub fn name_hash(name: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in name {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    if h == 0 { 1 } else { h }
}

/// Enqueues the lock on `object`, with a prepare intent when the gating allows, and returns the
/// lock and what the reply leaves the coordinator with (the cache already seeded).
#[allow(clippy::too_many_arguments)]
fn intent_enqueue(
    net: &mut Net<'_>,
    env: &mut Env,
    fault: Fault,
    m: Mutations,
    creds: &Creds,
    op: Operation,
    object: LuFid,
    name: Option<&[u8]>,
    mode: u32,
    hash: u64,
) -> (u32, Answer) {
    let resource = LdlmResId::of_fid(object, hash);
    let gated = (env.peer_flag && !env.replay) || m.ignore_gating;
    let request = if gated {
        build_request(creds, op, object, name, mode, hash, fault)
    } else {
        None
    };
    let Some(request) = request else {
        return (net.plain_enqueue(resource, env), Answer::Nothing);
    };
    let from_mdt = !matches!(fault, Fault::NonMdtSender);
    let mut enq = Enqueue {
        resource,
        intent: Some(op),
        result: Err(0),
        peer_flag: env.peer_flag,
        replay: env.replay,
        from_non_mdt: !from_mdt,
    };
    if matches!(fault, Fault::PeerLostFlag) {
        // An MDT without the feature fails the whole enqueue: no lock, nothing to release.
        enq.result = Err(-crate::errno::codes::EPROTO);
        net.trace.enqueues.push(enq);
        // Stop sending intents to that peer.
        env.peer_flag = false;
        return (net.plain_enqueue(resource, env), Answer::Nothing);
    }
    let faults = HandlerFaults {
        empty: matches!(fault, Fault::EmptyResult),
        advisory: matches!(fault, Fault::Advisory),
        unknown: match fault {
            Fault::Unknown(b) => b.bit(),
            _ => ResultMask::EMPTY,
        },
    };
    let lock_handle = LustreHandle(u64::from(net.next_lock));
    let mut reply = call_handler(net, &request, from_mdt, lock_handle, faults);
    if reply.is_ok() && matches!(fault, Fault::Resend) {
        // The reply was lost: the resend re-runs the handler on the lock already granted.
        reply = call_handler(net, &request, from_mdt, lock_handle, faults);
    }
    let reply = match reply {
        Err(e) => {
            enq.result = Err(e);
            net.trace.enqueues.push(enq);
            return (net.plain_enqueue(resource, env), Answer::Nothing);
        }
        Ok(r) => r,
    };
    let id = net.grant();
    enq.result = Ok(id);
    net.trace.enqueues.push(enq);
    let mut bytes = reply.to_vec();
    if matches!(fault, Fault::Malformed) {
        corrupt(&mut bytes);
    }
    let ctx = match PrepareRequest::reply_context(&request.1) {
        Ok(c) => c,
        Err(_) => {
            net.invalidate();
            return (id, Answer::Nothing);
        }
    };
    let view = ReplyView::parse_for(&bytes, &ctx);
    let answer = match view {
        Ok(v) if !v.is_empty_result() => {
            let results = MliBuf::ALL.map(|b| v.result(b).map(<[u8]>::to_vec));
            v.body().map_or(Answer::Nothing, |b| {
                Answer::Body(*b, alloc::boxed::Box::new(results))
            })
        }
        // Empty or malformed: the lock is kept, the coordinator falls back to its reads.
        _ => Answer::Nothing,
    };
    if m.seed_before_invalidation {
        seed(net, object, name, &answer, m);
        net.invalidate();
    } else {
        net.invalidate();
        seed(net, object, name, &answer, m);
    }
    (id, answer)
}

fn call_handler(
    net: &mut Net<'_>,
    request: &(Bytes, PrepareRequest),
    from_mdt: bool,
    h: LustreHandle,
    f: HandlerFaults,
) -> Result<Bytes, i32> {
    let before = net.store.clone();
    let reply = net.handler.handle(net.store, &request.0, from_mdt, h, f);
    net.trace.handler_runs.push(HandlerRun {
        request: request.0.clone(),
        reply: reply.clone(),
        store_unchanged: *net.store == before,
        from_mdt,
    });
    reply
}

/// Damages a reply so that it fails to decode: a positive `mcpp_status`.
fn corrupt(bytes: &mut [u8]) {
    if let Ok(msg) = crate::wire::MsgView::parse(bytes) {
        let off = msg.buffer_offset(2);
        if msg.bufcount() > 2 && msg.buffer(2).is_some_and(|b| b.len() >= 4) {
            let v = match msg.order() {
                Endian::Little => 5u32.to_le_bytes(),
                Endian::Big => 5u32.to_be_bytes(),
            };
            bytes[off..off + 4].copy_from_slice(&v);
        }
    }
}

/// The request for an intent, or `None` when the operation cannot be expressed (a name the wire
/// does not allow: the standard path then reports the error).
fn build_request(
    creds: &Creds,
    op: Operation,
    object: LuFid,
    name: Option<&[u8]>,
    mode: u32,
    hash: u64,
    fault: Fault,
) -> Option<(Bytes, PrepareRequest)> {
    let name = match name {
        Some(n) => Some(EntryName::new(n).ok()?),
        None => None,
    };
    let mut limits = if name.is_some() {
        LIMITS
    } else {
        [MDT_BODY_SIZE as u32, 0, 0, 0, 0, 0]
    };
    if let Fault::Truncated(b) = fault {
        limits[b.index()] = if b == MliBuf::Pattr {
            0
        } else {
            limits[b.index()].min(1)
        };
    }
    let mut flags = if name.is_none() {
        McprFlags::NO_LOOKUP
    } else {
        McprFlags::EMPTY
    };
    let keep = match fault {
        Fault::PartialGroups(n) => usize::from(n).min(creds.groups.len()),
        _ => creds.groups.len().min(GROUPS_MAX),
    };
    if keep < creds.groups.len() || creds.groups_partial {
        flags |= McprFlags::GROUPS_PARTIAL;
    }
    let body = MdCreatePrepareReq {
        fid: object,
        flags,
        fsuid: creds.fsuid,
        fsgid: creds.fsgid,
        umask: creds.umask & 0o777,
        cap: creds.cap,
        child_mode: if op == Operation::Create { mode } else { 0 },
        buf_limit: limits,
    };
    let groups = GroupList::from_slice(&creds.groups[..keep])?;
    let req = PrepareRequest::new(
        op,
        body,
        name,
        groups,
        if name.is_some() {
            LockMode::PW
        } else {
            LockMode::EX
        },
        hash,
    );
    let bytes = req.to_bytes(Endian::Little).ok()?;
    Some((bytes, req))
}

/// Seeds the cache with the reply's known results (present values and negative entries) and
/// its lookup; unknown results are left for a read.
fn seed(net: &mut Net<'_>, object: LuFid, name: Option<&[u8]>, answer: &Answer, m: Mutations) {
    let Answer::Body(body, results) = answer else {
        return;
    };
    let seq = net.cache.seq;
    for b in MliBuf::ALL {
        let state = results[b.index()].state_name();
        let value = match &results[b.index()] {
            PrepResult::Present(v) => Some(Some(v.clone())),
            PrepResult::Absent => Some(None),
            PrepResult::Unknown(_) if m.seed_unknown_as_absent && b != MliBuf::Pattr => Some(None),
            PrepResult::Unknown(_) => None,
        };
        let Some(value) = value else {
            net.trace.unknown_items.push(match b {
                MliBuf::Pattr => Item::Attrs(object),
                _ => Item::Xattr(object, b),
            });
            continue;
        };
        if net.cache.seq != seq {
            // Another invalidation happened in between: the reply is no longer fresh.
            return;
        }
        if b == MliBuf::Pattr {
            if let Some(body) = value
                .as_deref()
                .and_then(|v| MdtBody::decode(v, Endian::Little).ok())
            {
                net.cache
                    .attrs_only
                    .insert(object, Attrs::from_mdt_body(&body));
            }
            net.trace.cache.push(CacheEvent::Seed {
                item: Item::Attrs(object),
                value,
                state,
            });
        } else {
            net.cache.xattrs.insert((object, b), value.clone());
            net.trace.cache.push(CacheEvent::Seed {
                item: Item::Xattr(object, b),
                value,
                state,
            });
        }
    }
    if let (Some(name), true) = (
        name,
        body.flags.contains(McppFlags::LOOKUP_DONE) && !body.flags.contains(McppFlags::ADVISORY),
    ) {
        let entry = body.flags.contains(McppFlags::LOOKUP_POS).then_some(Entry {
            fid: body.fid,
            ftype: body.child_mode & S_IFMT,
        });
        net.cache.lookups.insert((object, name.to_vec()), entry);
    }
}

fn usable(body: &MdCreatePrepareRep, m: Mutations) -> bool {
    !body.flags.contains(McppFlags::ADVISORY) || m.trust_advisory
}

fn finish_create(
    net: &mut Net<'_>,
    creds: &Creds,
    parent: LuFid,
    name: &[u8],
    mode: u32,
    answer: Answer,
    m: Mutations,
) -> Outcome {
    if m.ignore_results {
        net.cache = Cache {
            seq: net.cache.seq,
            ..Cache::default()
        };
    }
    match answer {
        Answer::Body(body, _) if usable(&body, m) && body.status != 0 => {
            Outcome::Error(body.status)
        }
        Answer::Body(body, _)
            if usable(&body, m) && body.flags.contains(McppFlags::CHILD_DERIVED) =>
        {
            let Some(p) = net.object_attrs(parent) else {
                return Outcome::Error(-ENOENT);
            };
            let (mut child, _) = derive_child(net, parent, &p, mode, creds);
            child.mode = body.child_mode;
            child.gid = body.child_gid;
            child.projid = body.child_projid;
            child.flags = body.child_flags;
            net.trace.complete_reply = net.trace.unknown_items.is_empty();
            Outcome::Created(child)
        }
        answer => {
            net.trace.advisory_reply =
                matches!(answer, Answer::Body(b, _) if b.flags.contains(McppFlags::ADVISORY));
            outcome_of(prepare(
                net,
                parent,
                Operation::Create,
                Some(name),
                mode,
                creds,
            ))
        }
    }
}

fn outcome_of(p: Prepared) -> Outcome {
    match p.child {
        Some(c) if p.status == 0 => Outcome::Created(c),
        _ => Outcome::Error(p.status),
    }
}

/// The entry-mode step of unlink and rename: the victim or source, and the parent's attributes.
fn entry_result(
    net: &mut Net<'_>,
    creds: &Creds,
    op: Operation,
    parent: LuFid,
    name: &[u8],
    answer: Answer,
    m: Mutations,
) -> Result<(LuFid, Attrs), i32> {
    match answer {
        Answer::Body(body, _)
            if usable(&body, m) && body.flags.contains(McppFlags::LOOKUP_DONE) =>
        {
            if body.status != 0 {
                return Err(body.status);
            }
            net.trace.complete_reply = net
                .trace
                .unknown_items
                .iter()
                .all(|i| !matches!(i, Item::Attrs(_)));
            let attrs = net.object_attrs(parent).ok_or(-ENOENT)?;
            Ok((body.fid, attrs))
        }
        Answer::Body(body, _) if usable(&body, m) && body.status != 0 => Err(body.status),
        answer => {
            net.trace.advisory_reply =
                matches!(answer, Answer::Body(b, _) if b.flags.contains(McppFlags::ADVISORY));
            let p = prepare(net, parent, op, Some(name), 0, creds);
            if p.status != 0 {
                return Err(p.status);
            }
            match (p.lookup, p.object) {
                (Lookup::Positive(e), Some(a)) => Ok((e.fid, a)),
                _ => Err(-ENOENT),
            }
        }
    }
}

/// The checks the coordinator makes itself once it holds the child (MODEL.md §2, unlink).
fn finish_unlink(store: &Store, creds: &Creds, victim: LuFid, p: &Attrs) -> Outcome {
    let Some(child) = store.get(victim) else {
        return Outcome::Error(-ENOENT);
    };
    if child.dead {
        return Outcome::Error(-crate::errno::codes::ENOENT);
    }
    let c = &child.attrs;
    if p.mode & crate::mode::S_ISVTX != 0
        && creds.fsuid != p.uid
        && creds.fsuid != c.uid
        && !creds.capable(CAP_FOWNER)
    {
        return Outcome::Error(-EPERM);
    }
    if c.flags & (APPEND_FL | IMMUTABLE_FL) != 0 {
        return Outcome::Error(-EPERM);
    }
    if c.is_dir() && !child.entries.is_empty() {
        return Outcome::Error(-ENOTEMPTY);
    }
    Outcome::Removed { victim }
}
