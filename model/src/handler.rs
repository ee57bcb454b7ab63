//! The intent handler on the parent MDT: connection check, lock first, the shared helper under
//! the lock, and the lock handed over with the reply whatever the helper said. It only reads the
//! store (it takes `&Store`).

use super::creds::Creds;
use super::helper::{LocalSource, Lookup, prepare};
use super::store::Store;
use lustre_dne_intent::Endian;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::errno::codes::{EPERM, EPROTO};
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
/// plugged into [`run_intent_with`](super::coordinator::run_intent_with) and
/// [`check_with_handler`](super::checker::check_with_handler), whose invariants it must then
/// keep. The contract is [`handle`]'s.
pub trait IntentHandler {
    /// Answers `request` from `store` (which it must not change): the reply bytes with the lock
    /// granted, or a negative errno and no lock.
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
/// Returns the reply bytes (the lock is granted), or a negative errno with no lock: `-EPERM`
/// when the intent did not come over an MDT-to-MDT connection, `-EPROTO` when the request is
/// not a valid prepare request (what an MDT answers an intent it cannot run).
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
    let creds = Creds {
        fsuid: body.fsuid,
        fsgid: body.fsgid,
        groups: view.groups().iter().collect(),
        cap: body.cap,
        umask: body.umask,
        groups_partial: body
            .flags
            .contains(lustre_dne_intent::intent::McprFlags::GROUPS_PARTIAL),
    };
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
                    obj.attrs.mdt_body(body.fid).put(Endian::Little, &mut v);
                    Some(v)
                }
                _ => LocalSource(store).xattr_of(body.fid, b),
            };
            let state = match value {
                None => PrepResult::Absent,
                Some(v) if v.len() > limit => PrepResult::Unknown(UnknownReason::Truncated {
                    size: v.len() as u32,
                }),
                Some(v) if v.is_empty() => PrepResult::Absent,
                Some(v) => PrepResult::Present(Bytes::from(v)),
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
    pub fn xattr_of(
        &mut self,
        fid: lustre_dne_intent::wire::LuFid,
        b: MliBuf,
    ) -> Option<alloc::vec::Vec<u8>> {
        super::helper::ParentSource::xattr(self, fid, b)
    }
}
