//! The intent handler on the parent MDT: connection check, lock first, the shared helper under
//! the lock, and the lock handed over with the reply whatever the helper said. It only reads the
//! store (it takes `&Store`).

use super::creds::Creds;
use super::mdd::{LocalSource, Lookup, prepare};
use super::store::Store;
use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::errno::{EPERM, EPROTO};
use lustre_dne_intent::intent::{
    McppFlags, MdCreatePrepareRep, MliBuf, PrepResult, PrepareOutcome, PrepareReply, RequestView,
    ResultMask, UnknownReason,
};
use lustre_dne_intent::wire::{LustreHandle, WireStruct};

/// Faults the handler can be told to show (MODEL.md §3: what a real handler may answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct HandlerFaults {
    /// Answer the empty result (an internal failure: out of memory, an unreadable xattr).
    pub empty: bool,
    /// Mark the answer advisory even when it is not.
    pub advisory: bool,
    /// Leave these results unknown (not read).
    pub unknown: ResultMask,
}

/// The parent MDT's side of a prepare intent, as the model's coordinator calls it: the crate's
/// own [`ReferenceHandler`], or a downstream implementation (a C handler through FFI, say)
/// plugged into [`run_intent_with`](super::operation::run_intent_with) and
/// [`check_with_handler`](super::checker::check_with_handler).
///
/// # The contract
///
/// [`handle`](IntentHandler::handle) gets the request bytes exactly as the coordinator sent
/// them: one `lustre_msg_v2` enqueue with a prepare intent (WIRE.md §3 to §5), in the
/// coordinator's byte order, which may be either ([`RequestView::parse`] reads both). It answers
/// in one of three ways:
///
/// - `Err(-EPROTO)` when the request is not a valid prepare request (`RequestView::parse`
///   refuses it): what an MDT answers an intent it cannot run. No lock.
/// - `Err(-EPERM)` when `from_mdt` is false: the intent did not come over an MDT-to-MDT
///   connection, so it must not run (invariant 4, gating). No lock.
/// - Otherwise `Ok(reply)`: the lock is granted, whatever the preparation found (invariant 2: a
///   valid intent from an MDT never fails the enqueue). `reply` is a whole prepare reply
///   (WIRE.md §6 to §8) for this request: it must pass `ReplyView::parse_for(reply,
///   &view.reply_context())` (invariant 8, bounds), with `lock_handle` as `ldlm_reply`'s lock
///   handle ([`PrepareReply::granting`] fills both). It may be in either byte order; the
///   coordinator reads the order from `lm_magic`. Lustre's MDT writes its replies in its own
///   native order, whatever the request's; [`ReferenceHandler`] answers in the request's order.
///   PATTR is an `mdt_body` in the reply's order; the xattr results are little-endian in both
///   (WIRE.md §1). In an owned [`PrepareOutcome`], PATTR is held little-endian and the encoder
///   converts it.
///
/// What the reply may say:
///
/// - The empty result (`PrepareReply::granting(&ctx, lock_handle, None)`) is always correct; it
///   only costs the coordinator its reads. A request with unknown `mcpr_flags` bits must get it
///   (W7.15).
/// - Anything else must be true of `store` under the lock: a present result equals the store's
///   value (invariant 5, cache), and a status, lookup or derivation not marked advisory is taken
///   as final, so it must equal what the standard path finds (invariant 1, equivalence). A
///   result the handler did not read is left unknown, never absent.
/// - `MCPR_GROUPS_PARTIAL` (`groups_partial` in [`Creds::from_request`]): the request lists only
///   some of the caller's groups. When any verdict of the operation depended on group
///   membership (MODEL.md §2, "Limited groups": a group entry, the group bits or the other class
///   decided it, or the SGID-drop test did not find the group), the reply must carry
///   `MCPP_ADVISORY`; the coordinator then redoes permission, lookup and derivation with the
///   full groups (invariant 7, security).
/// - `store` is read, never changed (invariant 3, read-only handler; `handle` takes `&Store`,
///   the checker also compares the store before and after).
/// - The same request may come twice with the same `lock_handle` (a resend): answer it afresh.
///
/// `faults` is the checker's fault injection (MODEL.md §3): the answers a real handler may give
/// (the empty result, an advisory mark, results left unknown), so that the checker can drive the
/// coordinator's fallbacks through the handler's own encoding. A handler need not honour it:
/// every invariant must hold either way, and a handler that ignores it only leaves those fault
/// runs testing its normal answer.
///
/// The checker holds a handler to invariants 1 to 5, 7 and 8 of MODEL.md §4 (6, cost, is the
/// coordinator's), over every fault of [`Fault::all`](super::operation::Fault::all).
///
/// # Example
///
/// The smallest correct handler answers every valid intent with the empty result:
///
/// ```
/// use lustre_dne_intent::bytes::Bytes;
/// use lustre_dne_intent::errno::{EPERM, EPROTO};
/// use lustre_dne_intent::intent::{PrepareReply, RequestView};
/// use lustre_dne_intent::wire::LustreHandle;
/// use lustre_dne_intent_model::{Fault, HandlerFaults, IntentHandler, Store, check_with_handler};
/// # use lustre_dne_intent_model::{Attrs, Creds, Object, Op, Scenario};
/// # use lustre_dne_intent::wire::LuFid;
///
/// struct EmptyHandler;
///
/// impl IntentHandler for EmptyHandler {
///     fn handle(&self, _store: &Store, request: &[u8], from_mdt: bool,
///               lock_handle: LustreHandle, _faults: HandlerFaults) -> Result<Bytes, i32> {
///         let view = RequestView::parse(request).map_err(|_| -EPROTO)?;
///         if !from_mdt {
///             return Err(-EPERM);
///         }
///         let reply = PrepareReply::granting(&view.reply_context(), lock_handle, None);
///         reply.to_bytes(view.order()).map_err(|_| -EPROTO)
///     }
/// }
///
/// # let parent = LuFid::new(0x200000401, 1, 0);
/// # let mut store = Store::default();
/// # store.insert(parent, Object { attrs: Attrs { mode: 0o040777, ..Default::default() }, ..Default::default() });
/// # let scenario = Scenario { store, creds: Creds::default(),
/// #     op: Op::Create { parent, name: b"new".to_vec(), mode: 0o040755 } };
/// for fault in Fault::all() {
///     check_with_handler(&scenario, fault, &EmptyHandler)?;
/// }
/// # Ok::<(), lustre_dne_intent_model::Violation>(())
/// ```
///
/// [`PrepareReply::granting`]: lustre_dne_intent::intent::PrepareReply::granting
/// [`PrepareOutcome`]: lustre_dne_intent::intent::PrepareOutcome
pub trait IntentHandler {
    /// Answers `request` from `store`: the reply bytes with the lock granted (`lock_handle`), or
    /// a negative errno and no lock. See the trait's contract.
    fn handle(
        &self,
        store: &Store,
        request: &[u8],
        from_mdt: bool,
        lock_handle: LustreHandle,
        faults: HandlerFaults,
    ) -> Result<Bytes, i32>;
}

/// The crate's handler ([`handle`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ReferenceHandler;

impl IntentHandler for ReferenceHandler {
    fn handle(
        &self,
        store: &Store,
        request: &[u8],
        from_mdt: bool,
        lock_handle: LustreHandle,
        faults: HandlerFaults,
    ) -> Result<Bytes, i32> {
        handle(store, request, from_mdt, lock_handle, faults)
    }
}

/// Runs one prepare intent against `store`.
///
/// Returns the reply bytes (the lock is granted), in the request's byte order, or a negative
/// errno with no lock: `-EPERM` when the intent did not come over an MDT-to-MDT connection,
/// `-EPROTO` when the request is not a valid prepare request (what an MDT answers an intent it
/// cannot run). [`IntentHandler`] states the whole contract.
pub fn handle(
    store: &Store,
    request: &[u8],
    from_mdt: bool,
    lock_handle: LustreHandle,
    faults: HandlerFaults,
) -> Result<Bytes, i32> {
    let view = RequestView::parse(request).map_err(|_| -EPROTO)?;
    if !from_mdt {
        return Err(-EPERM);
    }
    // The lock is taken first (granted as requested); everything below runs under it.
    let ctx = view.reply_context();
    let body = view.body();
    let order = view.order();
    if faults.empty || !view.unknown_flags().is_empty() {
        return encode(PrepareReply::granting(&ctx, lock_handle, None), order);
    }
    let creds = Creds::from_request(&view);
    let p = prepare(
        &mut LocalSource(store),
        body.fid,
        view.operation(),
        view.name(),
        body.child_mode,
        &creds,
    );
    let mut flags = McppFlags::EMPTY;
    let mut rep = MdCreatePrepareRep {
        status: p.status,
        ..Default::default()
    };
    match p.lookup {
        Lookup::NotDone => {}
        Lookup::Negative => flags |= McppFlags::LOOKUP_DONE,
        Lookup::Positive(e) => {
            flags |= McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS;
            rep.fid = e.fid;
            rep.child_mode = e.ftype;
        }
    }
    if p.perm_done {
        flags |= McppFlags::PERM_DONE;
    }
    if p.advisory(&creds) || faults.advisory {
        flags |= McppFlags::ADVISORY;
    }
    if let Some(c) = &p.child {
        flags |= McppFlags::CHILD_DERIVED;
        rep.child_mode = c.mode;
        rep.child_gid = c.gid;
        rep.child_projid = c.projid;
        rep.child_flags = c.flags;
    }
    rep.flags = flags;
    let mut outcome = PrepareOutcome::new(rep);
    if let Some(obj) = store.get(body.fid) {
        for b in MliBuf::ALL {
            let limit = body.buf_limit[b.index()] as usize;
            if limit == 0 || faults.unknown.has(b) {
                continue;
            }
            let value = match b {
                MliBuf::Pattr => {
                    let mut v =
                        alloc::vec::Vec::with_capacity(lustre_dne_intent::limits::MDT_BODY_SIZE);
                    // An owned outcome holds PATTR little-endian; `encode` writes it in `order`.
                    obj.attrs.mdt_body(body.fid).put(Endian::Little, &mut v);
                    Some(Bytes::from(v))
                }
                _ => LocalSource(store).xattr_of(body.fid, b),
            };
            let state = match value {
                None => PrepResult::Absent,
                Some(v) if v.len() > limit => PrepResult::Unknown(UnknownReason::Truncated {
                    size: v.len() as u32,
                }),
                Some(v) if v.is_empty() => PrepResult::Absent,
                Some(v) => PrepResult::Present(v),
            };
            outcome.set_result(b, state);
        }
    }
    encode(
        PrepareReply::granting(&ctx, lock_handle, Some(outcome)),
        order,
    )
}

fn encode(reply: PrepareReply, order: Endian) -> Result<Bytes, i32> {
    // The handler builds only valid replies; an encoding failure would be a model bug, reported
    // as the protocol error a peer would see.
    reply.to_bytes(order).map_err(|_| -EPROTO)
}

impl LocalSource<'_> {
    /// Xattr `b` of `fid`, read locally.
    pub fn xattr_of(&mut self, fid: lustre_dne_intent::wire::LuFid, b: MliBuf) -> Option<Bytes> {
        super::mdd::ParentSource::xattr(self, fid, b)
    }
}
