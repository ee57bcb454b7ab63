//! A coordinator MDT: runs its script one operation at a time through the phases of a
//! cross-MDT operation (pre-lock reads, whole-directory lock, name-hash lock with the intent,
//! the object lock, use of the results, transaction, release), over its OSP cache.

use super::Mutation;
use super::cache::{Origin, OspCache, Source};
use super::net::{LockSpec, Sending};
use super::ops::{Decision, PARENT, SysOp, Target, target_fid};
use super::standard::{change_checks, rename_source_checks, unlink_checks};
use crate::creds::Creds;
use crate::mdd::{Lookup, derive_child, prepare};
use crate::operation::name_hash;
use crate::store::{Attrs, Entry, Store};
use alloc::sync::Arc;
use alloc::vec::Vec;
use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::errno::ENOENT;
use lustre_dne_intent::intent::{
    EntryName, GroupList, McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf,
    PrepResult, PrepareRequest, ReplyView, RequestView,
};
use lustre_dne_intent::limits::{GROUPS_MAX, MDT_BODY_SIZE, MLI_BUF_MAX};
use lustre_dne_intent::mode::S_IFMT;
use lustre_dne_intent::wire::{InodeBits, LdlmResId, LockMode, LuFid, MdtBody, WireStruct};

/// Where a coordinator is in its current operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the locks: the pre-lock reads.
    PreLock,
    /// Ready to enqueue lock `k` of the operation.
    Lock(u8),
    /// Waiting for the reply to lock `k`.
    Wait(u8),
    /// Rename: the source object is read (instantiated) before its lock.
    Instantiate,
    /// Every lock held: use the results, decide.
    Decide,
    /// Send the transaction.
    Txn,
    /// Waiting for the transaction's reply.
    WaitTxn,
    /// Release the locks.
    Release,
    /// The script is finished.
    Done,
}

/// A lock the coordinator holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Held {
    /// The client cookie (= the enqueue's xid).
    pub cookie: u16,
    /// The server's handle.
    pub id: u16,
    /// The lock.
    pub spec: LockSpec,
}

/// An RPC waiting for its reply.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pending {
    /// An enqueue.
    Enqueue {
        /// xid and cookie.
        xid: u16,
        /// The lock.
        spec: LockSpec,
        /// The prepare request when it carries one.
        intent: Option<Bytes>,
    },
    /// A transaction.
    Update {
        /// xid.
        xid: u16,
        /// What it writes.
        update: super::txn::Update,
    },
}

impl Pending {
    /// The xid.
    pub fn xid(&self) -> u16 {
        match self {
            Pending::Enqueue { xid, .. } | Pending::Update { xid, .. } => *xid,
        }
    }
}

/// A coordinator's state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Coord {
    /// Index of the current operation.
    pub pc: u8,
    /// Its phase.
    pub phase: Phase,
    /// The current connection to the parent advertises `OBD_CONNECT2_DNE_PREPARE`.
    pub conn_flag: bool,
    /// The flag as of the first connection (what a coordinator that does not re-check sees).
    pub first_flag: bool,
    /// An intent enqueue failed: no more intents to that peer.
    pub no_intents: bool,
    /// Next xid.
    pub next_xid: u16,
    /// Locks held by the current operation.
    pub held: Vec<Held>,
    /// The outstanding RPC.
    pub pending: Option<Pending>,
    /// The OSP cache (it outlives operations), shared between states until this coordinator
    /// changes it.
    pub cache: Arc<OspCache>,
    /// The name-hash intent's reply body, when one was decoded.
    pub answer: Option<MdCreatePrepareRep>,
    /// Unlink/rename: the victim or source and the parent's attributes, after the entry step.
    pub entry: Option<(LuFid, Attrs)>,
    /// The decision (once taken).
    pub decision: Option<Decision>,
    /// The transaction is still to be sent after the release (a mutant's order).
    pub txn_after_release: bool,
    /// The first coordinator of the scope with the same caller, script and byte order: the
    /// coordinators of a class are interchangeable ([`super::symmetry`]).
    pub class: u8,
    /// Its script creates objects, so FIDs of its sequence may exist (what a renaming must
    /// rewrite; a class that allocates none is renamed without touching FIDs).
    pub allocates: bool,
}

impl Coord {
    /// A coordinator of `class` before its first operation.
    pub fn new(flag: bool, class: u8, allocates: bool) -> Self {
        Coord {
            pc: 0,
            phase: Phase::PreLock,
            conn_flag: flag,
            first_flag: flag,
            no_intents: false,
            next_xid: 1,
            held: Vec::new(),
            pending: None,
            cache: Arc::default(),
            answer: None,
            entry: None,
            decision: None,
            txn_after_release: false,
            class,
            allocates,
        }
    }

    /// The cache, to change: copied first when another state shares it.
    pub fn cache_mut(&mut self) -> &mut OspCache {
        Arc::make_mut(&mut self.cache)
    }

    /// Whether the next enqueue may carry an intent (the connect flag, checked on every
    /// enqueue).
    pub fn gate(&self, m: Mutation) -> bool {
        let flag = if m == Mutation::IntentsAfterReconnect {
            self.first_flag
        } else {
            self.conn_flag
        };
        flag && !self.no_intents
    }
}

/// Which intent a lock carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntentKind {
    /// None (a plain enqueue).
    None,
    /// Entry mode, on the name-hash lock.
    Entry,
    /// Object mode, on the rename source's lock.
    Object,
}

/// Lock `k` of `op`: whole-directory CW, name-hash PW with the intent, then the victim's or
/// source's EX; a changer takes EX on its target (UPDATE|PERM, or UPDATE|XATTR for xattrs).
pub fn lock_plan(op: &SysOp, k: u8, c: &Coord, store: &Store) -> Option<(LockSpec, IntentKind)> {
    let spec = |fid: LuFid, hash: u64, mode: LockMode, bits: InodeBits| LockSpec {
        res: LdlmResId::of_fid(fid, hash),
        mode,
        bits,
    };
    match (op, k) {
        (SysOp::Set { target, change }, 0) => {
            let fid = match target {
                Target::Parent => PARENT,
                Target::Child(_) => c.entry.map_or(PARENT, |e| e.0),
            };
            let _ = store;
            let bits = if change.is_xattr() {
                InodeBits::UPDATE | InodeBits::XATTR
            } else {
                InodeBits::UPDATE | InodeBits::PERM
            };
            Some((spec(fid, 0, LockMode::EX, bits), IntentKind::None))
        }
        (SysOp::Set { .. }, _) => None,
        (_, 0) => Some((
            spec(PARENT, 0, LockMode::CW, InodeBits::UPDATE),
            IntentKind::None,
        )),
        (_, 1) => Some((
            spec(
                PARENT,
                name_hash(op.name().unwrap_or_default()),
                LockMode::PW,
                InodeBits::UPDATE,
            ),
            IntentKind::Entry,
        )),
        (SysOp::Unlink { .. }, 2) => c.entry.map(|(v, _)| {
            (
                spec(v, 0, LockMode::EX, InodeBits::UPDATE),
                IntentKind::None,
            )
        }),
        (SysOp::Rename { .. }, 2) => c.entry.map(|(v, _)| {
            (
                spec(v, 0, LockMode::EX, InodeBits::UPDATE),
                IntentKind::Object,
            )
        }),
        _ => None,
    }
}

/// The limits asked for: every result, PATTR one `mdt_body`; object mode only PATTR.
fn limits(kind: IntentKind) -> [u32; MLI_BUF_MAX] {
    match kind {
        IntentKind::Object => [MDT_BODY_SIZE as u32, 0, 0, 0, 0, 0],
        _ => [MDT_BODY_SIZE as u32, 4096, 4096, 4096, 4096, 4096],
    }
}

/// The prepare request for lock `spec` of `op`, with at most `max_groups` of the caller's
/// groups (`MCPR_GROUPS_PARTIAL` when some are left out).
pub fn build_request(
    op: &SysOp,
    kind: IntentKind,
    spec: &LockSpec,
    creds: &Creds,
    max_groups: usize,
) -> Option<PrepareRequest> {
    let operation = op.operation()?;
    let name = match kind {
        IntentKind::Entry => Some(EntryName::new(op.name()?).ok()?),
        _ => None,
    };
    let keep = creds.groups.len().min(max_groups).min(GROUPS_MAX);
    let mut flags = if name.is_none() {
        McprFlags::NO_LOOKUP
    } else {
        McprFlags::EMPTY
    };
    if keep < creds.groups.len() || creds.groups_partial {
        flags |= McprFlags::GROUPS_PARTIAL;
    }
    let body = MdCreatePrepareReq {
        fid: spec.res.fid(),
        flags,
        fsuid: creds.fsuid,
        fsgid: creds.fsgid,
        umask: creds.umask & 0o777,
        cap: creds.cap,
        child_mode: op.child_mode(),
        buf_limit: limits(kind),
    };
    let groups = GroupList::from_slice(&creds.groups[..keep])?;
    Some(PrepareRequest::new(
        operation,
        body,
        name,
        groups,
        spec.mode,
        spec.res.name[3],
    ))
}

/// The intent bytes for a sending, in the coordinator's byte order.
pub fn intent_bytes(req: &PrepareRequest, s: &Sending, order: Endian) -> Bytes {
    super::net::intent_enqueue(req, s, order)
}

/// Decodes the reply to the intent `request` and seeds the cache with its known results
/// (after the suppressed invalidation). Returns the body, or `None` for the empty result or a
/// reply that fails to decode (the lock is kept, the standard reads follow).
pub fn take_reply(
    c: &mut Coord,
    request: &[u8],
    reply: &Bytes,
    cookie: u16,
    name: Option<u8>,
    m: Mutation,
) -> Option<MdCreatePrepareRep> {
    let ctx = RequestView::parse(request).ok()?.reply_context();
    let view = match ReplyView::parse_for(reply, &ctx) {
        Ok(v) if !v.is_empty_result() => v,
        _ => {
            c.cache_mut().invalidate_reads();
            return None;
        }
    };
    let body = view.body()?;
    c.cache_mut().suppress(m);
    let object = ctx.lock.resource.fid();
    let seeded = Origin::Seeded(cookie);
    if let Some(a) = pattr(&view, m) {
        c.cache_mut()
            .pattr
            .insert(object, (Attrs::from_mdt_body(&a), seeded));
    }
    for b in MliBuf::ALL.into_iter().filter(|b| *b != MliBuf::Pattr) {
        let value = match view.result(b) {
            // Shared with the reply's buffer: handing a result over copies nothing.
            PrepResult::Present(v) => Some(crate::shared::part_of(reply, v)),
            PrepResult::Absent => None,
            PrepResult::Unknown(_) => continue,
        };
        c.cache_mut().xattrs.insert((object, b), (value, seeded));
    }
    if let (Some(i), true) = (
        name,
        body.flags.contains(McppFlags::LOOKUP_DONE) && !body.flags.contains(McppFlags::ADVISORY),
    ) {
        let e = body.flags.contains(McppFlags::LOOKUP_POS).then_some(Entry {
            fid: body.fid,
            ftype: body.child_mode & S_IFMT,
        });
        c.cache_mut().lookups.insert((object, i), (e, seeded));
    }
    Some(body)
}

/// The reply's PATTR as the codec decodes it, in the reply's byte order; the mutant reads
/// its bytes in the other order (a big-endian reply read as a little-endian host's own).
fn pattr(view: &ReplyView<'_>, m: Mutation) -> Option<MdtBody> {
    if m == Mutation::PattrWrongOrder {
        let wrong = match view.order() {
            Endian::Big => Endian::Little,
            Endian::Little => Endian::Big,
        };
        return match view.result(MliBuf::Pattr) {
            PrepResult::Present(v) => MdtBody::decode(v, wrong).ok(),
            _ => None,
        };
    }
    match view.pattr() {
        PrepResult::Present(a) => Some(a),
        _ => None,
    }
}

fn usable(body: &MdCreatePrepareRep, m: Mutation) -> bool {
    !body.flags.contains(McppFlags::ADVISORY) || m == Mutation::TrustAdvisory
}

/// True when the reply was advisory and the coordinator went the standard way for it.
pub fn advisory(c: &Coord) -> bool {
    c.answer
        .is_some_and(|b| b.flags.contains(McppFlags::ADVISORY))
}

/// The entry step of unlink and rename (after the name-hash lock): the victim or source and
/// the parent's attributes, or the errno.
pub fn entry_step(
    c: &mut Coord,
    store: &Store,
    op: &SysOp,
    creds: &Creds,
    m: Mutation,
) -> Result<(LuFid, Attrs), i32> {
    let operation = op.operation().ok_or(-ENOENT)?;
    match c.answer {
        Some(body) if usable(&body, m) && body.flags.contains(McppFlags::LOOKUP_DONE) => {
            if body.status != 0 {
                return Err(body.status);
            }
            let attrs = c.cache_mut().object_attrs(store, PARENT).ok_or(-ENOENT)?;
            Ok((body.fid, attrs))
        }
        Some(body) if usable(&body, m) && body.status != 0 => Err(body.status),
        _ => {
            let mut src = Source {
                cache: c.cache_mut(),
                store,
            };
            let p = prepare(&mut src, PARENT, operation, op.name(), 0, creds);
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

/// Use of the results: the decision, from the reply, the cache and reads under the locks.
pub fn decide(c: &mut Coord, store: &Store, op: &SysOp, creds: &Creds, m: Mutation) -> Decision {
    if let Some(d) = c.decision.clone() {
        // Decided earlier (the entry step failed).
        return d;
    }
    match op {
        SysOp::Create { mode, .. } => match c.answer {
            Some(b) if usable(&b, m) && b.status != 0 => Decision::Error(b.status),
            Some(b) if usable(&b, m) && b.flags.contains(McppFlags::CHILD_DERIVED) => {
                let Some(p) = c.cache_mut().object_attrs(store, PARENT) else {
                    return Decision::Error(-ENOENT);
                };
                let mut src = Source {
                    cache: c.cache_mut(),
                    store,
                };
                let (mut child, _) = derive_child(&mut src, PARENT, &p, *mode, creds);
                child.mode = b.child_mode;
                child.gid = b.child_gid;
                child.projid = b.child_projid;
                child.flags = b.child_flags;
                Decision::Create(child)
            }
            _ => {
                let mut src = Source {
                    cache: c.cache_mut(),
                    store,
                };
                let p = prepare(
                    &mut src,
                    PARENT,
                    lustre_dne_intent::intent::Operation::Create,
                    op.name(),
                    *mode,
                    creds,
                );
                match p.child {
                    Some(ch) if p.status == 0 => Decision::Create(ch),
                    _ => Decision::Error(p.status),
                }
            }
        },
        SysOp::Unlink { .. } => match c.entry {
            Some((victim, pattrs)) => match unlink_checks(creds, &pattrs, store.get(victim)) {
                Ok(()) => Decision::Remove(victim),
                Err(e) => Decision::Error(e),
            },
            None => Decision::Error(-ENOENT),
        },
        SysOp::Rename { .. } => {
            let Some((source, _)) = c.entry else {
                return Decision::Error(-ENOENT);
            };
            let attrs = c.cache_mut().object_attrs(store, source);
            let info = {
                use crate::mdd::ParentSource;
                Source {
                    cache: c.cache_mut(),
                    store,
                }
                .attrs(source)
            };
            match (attrs, info) {
                (Some(a), Some(i)) if !i.dead => match rename_source_checks(creds, &i) {
                    Ok(()) => Decision::RenameReady(source, a),
                    Err(e) => Decision::Error(e),
                },
                _ => Decision::Error(-ENOENT),
            }
        }
        SysOp::Set { .. } => {
            let fid = c.entry.map_or(PARENT, |e| e.0);
            match c.cache_mut().object_attrs(store, fid) {
                Some(a) => match change_checks(creds, &a) {
                    Ok(()) => Decision::Change(fid),
                    Err(e) => Decision::Error(e),
                },
                None => Decision::Error(-ENOENT),
            }
        }
    }
}

/// The pre-lock reads: the parent's attributes (`mdt_check_resource_ids`), and for a changer
/// on a child the name's resolution and the child's attributes.
pub fn pre_lock(c: &mut Coord, store: &Store, op: &SysOp) {
    use crate::mdd::ParentSource;
    let mut src = Source {
        cache: c.cache_mut(),
        store,
    };
    let _ = src.attrs(PARENT);
    if let SysOp::Set {
        target: t @ Target::Child(_),
        ..
    } = op
        && let Some(fid) = target_fid(store, *t)
    {
        let _ = src.attrs(fid);
        c.entry = Some((fid, Attrs::default()));
    }
}

/// Rename: the source object's instantiation read (`lod_object_init`), before its lock.
pub fn instantiate(c: &mut Coord, store: &Store) {
    use crate::mdd::ParentSource;
    if let Some((fid, _)) = c.entry {
        let _ = Source {
            cache: c.cache_mut(),
            store,
        }
        .attrs(fid);
    }
}
