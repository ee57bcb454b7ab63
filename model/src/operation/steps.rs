//! The coordinator's reads that the shared helper does not make, as the design's survey lists
//! them (MODEL.md §5): the pre-lock reads, the second lookup of create, the rename's striping,
//! linkEA and instantiation reads, and the directory rename. Each goes through the cache, so a
//! result seeded from a reply is a hit and a result left unknown brings the read back.

use super::finish::entry_result;
use super::{Answer, Env, Fault, Label, Mutations, Net, Op, Outcome, Transaction, intent_enqueue};
use crate::creds::Creds;
use crate::mdd::ParentSource;
use crate::store::Attrs;
use alloc::vec::Vec;
use lustre_dne_intent::errno::ENOENT;
use lustre_dne_intent::intent::{MliBuf, Operation};
use lustre_dne_intent::wire::LuFid;

/// The reads before the parent's locks: for create, the parent's attributes
/// (`mdt_check_resource_ids`) and, unless an intent is planned for the remote parent, the
/// lockless lookup (LU-10235); for a file rename, the source parent's linkEA (`mdd_is_subdir`,
/// lock ordering) and its LMV (`mdt_stripe_get`).
pub(super) fn before_locks(net: &mut Net<'_>, env: &Env, m: Mutations, op: &Op) {
    let parent = op.parent();
    net.label = Label::BeforeLock;
    match op {
        Op::Create { name, .. } => {
            let _ = net.attrs(parent);
            if !plans_intent(env, m) {
                net.label = Label::LocklessLookup;
                let _ = net.lookup(parent, name);
            }
        }
        Op::Rename { .. } | Op::RenameOver { .. } => {
            net.link_ea(parent);
            let _ = net.xattr(parent, MliBuf::Lmv);
        }
        Op::Unlink { .. } | Op::RenameDir { .. } => {}
    }
    net.label = Label::AfterLockParent;
}

/// The gating of MODEL.md §3.1 as the coordinator sees it before its first enqueue.
fn plans_intent(env: &Env, m: Mutations) -> bool {
    (env.peer_flag && !env.replay) || m.ignore_gating
}

/// After a create is prepared: `mdd_create_sanity_check` looks the name up again (a hit when
/// the reply's lookup was seeded).
pub(super) fn after_create(net: &mut Net<'_>, parent: LuFid, name: &[u8], outcome: &Outcome) {
    if matches!(outcome, Outcome::Created(_)) {
        net.label = Label::AfterLockParent;
        let _ = net.lookup(parent, name);
    }
}

/// The transaction an operation that went through issues: one compound OUT_UPDATE and one
/// delayed log cleanup; a directory rename allocates update-log objects, five foreground RPCs
/// in the design's survey.
pub(super) fn transaction(op: &Op) -> Transaction {
    Transaction {
        foreground: if matches!(op, Op::RenameDir { .. }) {
            5
        } else {
            1
        },
        log_cleanup: 1,
    }
}

/// What a rename's intent enqueue on the source object needs from the run.
pub(super) struct Ctx<'a> {
    pub(super) env: &'a mut Env,
    pub(super) fault: Fault,
    pub(super) m: Mutations,
    pub(super) creds: &'a Creds,
}

/// The source object's steps, after its parent's lookup: instantiation (`lod_object_init`),
/// its lock with the object-mode intent, its attributes (`mdd_rename`), then its linkEA
/// (`mdd_linkea_prepare`), which no result covers.
fn source_steps(
    net: &mut Net<'_>,
    cx: &mut Ctx<'_>,
    source: LuFid,
    target: Option<LuFid>,
    locks: &mut Vec<u32>,
) -> Option<Attrs> {
    net.label = Label::BeforeLock;
    let _ = net.attrs(source);
    if let Some(t) = target {
        let _ = net.attrs(t);
    }
    let (lock, attrs) = object_lock(net, cx, source);
    locks.push(lock);
    net.label = Label::AfterLockUncovered;
    net.link_ea(source);
    if let Some(t) = target {
        net.link_ea(t);
    }
    attrs
}

/// The lock on a rename's `source` object with the object-mode intent, then its attributes
/// (`mdd_rename`): the PATTR the reply seeded, or one read.
fn object_lock(net: &mut Net<'_>, cx: &mut Ctx<'_>, source: LuFid) -> (u32, Option<Attrs>) {
    let (lock, _) = intent_enqueue(
        net,
        cx.env,
        cx.fault,
        cx.m,
        cx.creds,
        Operation::Rename,
        source,
        None,
        0,
        0,
    );
    net.label = Label::AfterLockObject;
    (lock, net.object_attrs(source))
}

/// A file rename after the source parent's locks: the entry-mode step, the parent's striping
/// (`lod_striping_load`), the source's parent FID (`mdt_attr_get_pfid`: the linkEA again, as
/// the grant dropped it, unless a reply named the parent), then the source object's steps; with
/// an existing target, the source parent's attributes once more before it is replaced.
pub(super) fn file_rename(
    net: &mut Net<'_>,
    cx: &mut Ctx<'_>,
    op: &Op,
    answer: Answer,
    locks: &mut Vec<u32>,
) -> Outcome {
    let parent = op.parent();
    let replied = matches!(answer, Answer::Body(..));
    let prepared = entry_result(
        net,
        cx.creds,
        Operation::Rename,
        parent,
        op.name(),
        answer,
        cx.m,
    );
    let source = match prepared {
        Err(e) => return Outcome::Error(e),
        Ok((source, _)) => source,
    };
    net.label = Label::AfterLockParent;
    let _ = net.xattr(parent, MliBuf::Lmv);
    if !replied {
        net.label = Label::InvalidationDuplicate;
        net.link_ea(parent);
    }
    let target = match op {
        Op::RenameOver { target, .. } => Some(*target),
        _ => None,
    };
    let attrs = source_steps(net, cx, source, target, locks);
    if target.is_some() {
        // The source parent again (`mdd_rename_sanity_check`): the object lock's grant dropped
        // what the coordinator read; a seeded PATTR stays.
        net.label = Label::AfterLockParent;
        let _ = net.object_attrs(parent);
    }
    match attrs {
        Some(attrs) => Outcome::RenameReady { source, attrs },
        None => Outcome::Error(-ENOENT),
    }
}

/// A directory rename: the directory's linkEA (`mdd_is_subdir`) and LMV (`mdt_stripe_get`)
/// before its lock, the lock with the object-mode intent, then its attributes (`mdd_rename`).
pub(super) fn dir_rename(net: &mut Net<'_>, cx: &mut Ctx<'_>, source: LuFid) -> (u32, Outcome) {
    net.label = Label::BeforeLock;
    net.link_ea(source);
    let _ = net.xattr(source, MliBuf::Lmv);
    let (lock, attrs) = object_lock(net, cx, source);
    let outcome = match attrs {
        Some(attrs) => Outcome::RenameReady { source, attrs },
        None => Outcome::Error(-ENOENT),
    };
    (lock, outcome)
}
