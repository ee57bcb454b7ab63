//! The coordinator MDT: the intent path and the standard path of one operation, over a network
//! that records every enqueue, read, lock and cache event (the trace the checker judges).

use super::creds::Creds;
use super::handler::{HandlerFaults, IntentHandler, ReferenceHandler};
use super::store::Store;
use alloc::vec::Vec;
use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::{
    EntryName, GroupList, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation,
    PrepResult, PrepareRequest, ReplyView, ResultMask,
};
use lustre_dne_intent::limits::{GROUPS_MAX, MDT_BODY_SIZE, MLI_BUF_MAX};
use lustre_dne_intent::wire::{LdlmResId, LockMode, LuFid, LustreHandle, MdtBody, WireStruct};

/// The name hash of the name-hash lock resource, now in the codec (kept here for callers of the
/// model's earlier path).
pub use lustre_dne_intent::intent::name_hash;

mod finish;
mod net;
mod ops;
mod steps;
mod trace;

use finish::{entry_result, finish_create, finish_unlink, seed};
use net::{Cache, Net};
pub use ops::*;
pub use trace::*;

/// Facts of the run the coordinator consults at each enqueue.
struct Env {
    peer_flag: bool,
    replay: bool,
    /// The byte order the coordinator writes its requests in (its own).
    order: Endian,
}

/// A known result as the coordinator holds it: PATTR decoded in the reply's own byte order (an
/// `mdt_body` is in the sender's order, WIRE.md §6), an xattr payload as received (little-endian
/// whatever the message's order, WIRE.md §1). No raw PATTR bytes travel further.
#[derive(Debug, Clone)]
enum Value {
    Attrs(MdtBody),
    Xattr(Bytes),
}

/// A reply as the coordinator ends up using it.
enum Answer {
    /// No intent was sent, or it failed, or the reply was the empty result / malformed.
    Nothing,
    /// A decoded prepare reply.
    Body(
        MdCreatePrepareRep,
        alloc::boxed::Box<[PrepResult<Value>; MLI_BUF_MAX]>,
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
        Endian::Little,
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
    run(
        store,
        creds,
        op,
        fault,
        mutations,
        &ReferenceHandler,
        Endian::Little,
    )
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
    run(store, creds, op, fault, mutations, handler, Endian::Little)
}

/// [`run_intent_with`] from a coordinator that writes its requests in `order` (`Endian::Big`: a
/// big-endian coordinator; [`ReferenceHandler`] answers in the request's order).
pub fn run_intent_with_order(
    order: Endian,
    store: &Store,
    creds: &Creds,
    op: &Op,
    fault: Fault,
    mutations: Mutations,
    handler: &dyn IntentHandler,
) -> (Outcome, Trace) {
    run(store, creds, op, fault, mutations, handler, order)
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
    order: Endian,
) -> (Outcome, Trace) {
    let mut net = Net::new(store, handler);
    let mut env = Env {
        peer_flag: !matches!(fault, Fault::PeerWithoutFlag),
        replay: matches!(fault, Fault::Replay),
        order,
    };
    let mut locks = Vec::new();
    let mut cx = steps::Ctx {
        env: &mut env,
        fault,
        m,
        creds,
    };
    let outcome = if let Op::RenameDir { source } = op {
        let (lock, outcome) = steps::dir_rename(&mut net, &mut cx, *source);
        locks.push(lock);
        outcome
    } else {
        run_named(&mut net, &mut cx, store, op, &mut locks)
    };
    if !matches!(outcome, Outcome::Error(_)) {
        net.trace.transactions.push(steps::transaction(op));
    }
    for id in locks {
        net.trace.releases.push(id);
        if m.double_release {
            net.trace.releases.push(id);
        }
    }
    (outcome, net.trace)
}

/// An operation on a name in the remote parent: its pre-lock reads, the whole-directory lock,
/// the name-hash lock that carries the intent, then the operation's own steps.
fn run_named(
    net: &mut Net<'_>,
    cx: &mut steps::Ctx<'_>,
    store: &Store,
    op: &Op,
    locks: &mut Vec<u32>,
) -> Outcome {
    let (creds, fault, m) = (cx.creds, cx.fault, cx.m);
    let parent = op.parent();
    let name = op.name().to_vec();
    steps::before_locks(net, cx.env, m, op);
    // The whole-directory lock (no intent), then the name-hash lock that carries the intent.
    locks.push(net.plain_enqueue(LdlmResId::of_fid(parent, 0), cx.env));
    let hash = name_hash(&name);
    let (lock, answer) = intent_enqueue(
        net,
        cx.env,
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
    match op {
        Op::Create { mode, .. } => {
            let outcome = finish_create(net, creds, parent, &name, *mode, answer, m);
            steps::after_create(net, parent, &name, &outcome);
            outcome
        }
        Op::Unlink { .. } => {
            let prepared = entry_result(net, creds, op.operation(), parent, &name, answer, m);
            match prepared {
                Err(e) => Outcome::Error(e),
                Ok((victim, p_attrs)) => {
                    // The child lock (local to the coordinator), then the checks that need it.
                    locks.push(net.plain_enqueue(LdlmResId::of_fid(victim, 0), cx.env));
                    finish_unlink(store, creds, victim, &p_attrs)
                }
            }
        }
        Op::Rename { .. } | Op::RenameOver { .. } | Op::RenameDir { .. } => {
            steps::file_rename(net, cx, op, answer, locks)
        }
    }
}

fn child_mode(op: &Op) -> u32 {
    match op {
        Op::Create { mode, .. } => *mode,
        _ => 0,
    }
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
        build_request(creds, op, object, name, mode, hash, fault, env.order)
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
        enq.result = Err(-lustre_dne_intent::errno::EPROTO);
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
    let bytes = if matches!(fault, Fault::Malformed) {
        let mut v = reply.to_vec();
        corrupt(&mut v);
        Bytes::from(v)
    } else {
        reply.clone()
    };
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
            let results = results_of(&v, &bytes, env.order, m);
            v.body().map_or(Answer::Nothing, |b| {
                Answer::Body(b, alloc::boxed::Box::new(results))
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

/// The reply's results as the coordinator keeps them: PATTR through the view's own byte order
/// ([`ReplyView::pattr`]), xattr payloads shared with the reply's buffer (no copy). With the `pattr_wrong_order` mutation, PATTR is
/// decoded in the coordinator's own order instead, as a coordinator that assumes its peer shares
/// its byte order would.
fn results_of(
    v: &ReplyView<'_>,
    whole: &Bytes,
    own: Endian,
    m: Mutations,
) -> [PrepResult<Value>; MLI_BUF_MAX] {
    MliBuf::ALL.map(|b| match b {
        MliBuf::Pattr if m.pattr_wrong_order => v
            .result(b)
            .map(|s| Value::Attrs(MdtBody::decode(s, own).unwrap_or_default())),
        MliBuf::Pattr => v.pattr().map(Value::Attrs),
        _ => v
            .result(b)
            .map(|s| Value::Xattr(crate::shared::part_of(whole, s))),
    })
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
    if let Ok(msg) = lustre_dne_intent::wire::MsgView::parse(bytes) {
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

/// The request for an intent in `order`, or `None` when the operation cannot be expressed (a
/// name the wire does not allow: the standard path then reports the error).
#[allow(clippy::too_many_arguments)]
fn build_request(
    creds: &Creds,
    op: Operation,
    object: LuFid,
    name: Option<&[u8]>,
    mode: u32,
    hash: u64,
    fault: Fault,
    order: Endian,
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
    let bytes = req.to_bytes(order).ok()?;
    Some((bytes, req))
}
