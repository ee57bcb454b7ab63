//! After the reply: seeding the cache from its known results, and finishing a create or an
//! unlink from what the coordinator then knows.

use super::{Answer, Cache, CacheEvent, Item, Mutations, Net, Outcome, Value};
use crate::creds::{CAP_FOWNER, Creds};
use crate::mdd::{Lookup, Prepared, derive_child, prepare};
use crate::store::{Attrs, Entry, Store};
use lustre_dne_intent::errno::{ENOENT, ENOTEMPTY, EPERM};
use lustre_dne_intent::intent::{McppFlags, MdCreatePrepareRep, MliBuf, Operation, PrepResult};
use lustre_dne_intent::mode::S_IFMT;
use lustre_dne_intent::mode::{LUSTRE_APPEND_FL, LUSTRE_IMMUTABLE_FL};
use lustre_dne_intent::wire::LuFid;

/// Seeds the cache with the reply's known results (present values and negative entries) and
/// its lookup; unknown results are left for a read.
pub(super) fn seed(
    net: &mut Net<'_>,
    object: LuFid,
    name: Option<&[u8]>,
    answer: &Answer,
    m: Mutations,
) {
    let Answer::Body(body, results) = answer else {
        return;
    };
    let seq = net.cache.seq;
    for b in MliBuf::ALL {
        let result = &results[b.index()];
        let value = match result {
            PrepResult::Present(v) => Some(Some(v)),
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
        let event = seed_one(net, object, b, value, result.state_name());
        net.trace.cache.push(event);
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

/// Seeds one known result of `object` (`None`: known absent) and says what was seeded.
fn seed_one(
    net: &mut Net<'_>,
    object: LuFid,
    b: MliBuf,
    value: Option<&Value>,
    state: &'static str,
) -> CacheEvent {
    match (b, value) {
        (_, Some(Value::Attrs(body))) => {
            let attrs = Attrs::from_mdt_body(body);
            net.cache.attrs_only.insert(object, attrs);
            CacheEvent::SeedAttrs {
                fid: object,
                attrs: Some(attrs),
                state,
            }
        }
        (MliBuf::Pattr, _) => CacheEvent::SeedAttrs {
            fid: object,
            attrs: None,
            state,
        },
        (_, v) => {
            let v = match v {
                Some(Value::Xattr(x)) => Some(x.clone()),
                _ => None,
            };
            net.cache.xattrs.insert((object, b), v.clone());
            CacheEvent::Seed {
                item: Item::Xattr(object, b),
                value: v,
                state,
            }
        }
    }
}

pub(super) fn usable(body: &MdCreatePrepareRep, m: Mutations) -> bool {
    !body.flags.contains(McppFlags::ADVISORY) || m.trust_advisory
}

pub(super) fn finish_create(
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

pub(super) fn outcome_of(p: Prepared) -> Outcome {
    match p.child {
        Some(c) if p.status == 0 => Outcome::Created(c),
        _ => Outcome::Error(p.status),
    }
}

/// The entry-mode step of unlink and rename: the victim or source, and the parent's attributes.
pub(super) fn entry_result(
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
pub(super) fn finish_unlink(store: &Store, creds: &Creds, victim: LuFid, p: &Attrs) -> Outcome {
    let Some(child) = store.get(victim) else {
        return Outcome::Error(-ENOENT);
    };
    if child.dead {
        return Outcome::Error(-lustre_dne_intent::errno::ENOENT);
    }
    let c = &child.attrs;
    if p.mode & lustre_dne_intent::mode::S_ISVTX != 0
        && creds.fsuid != p.uid
        && creds.fsuid != c.uid
        && !creds.capable(CAP_FOWNER)
    {
        return Outcome::Error(-EPERM);
    }
    if c.flags & (LUSTRE_APPEND_FL | LUSTRE_IMMUTABLE_FL) != 0 {
        return Outcome::Error(-EPERM);
    }
    if c.is_dir() && !child.entries.is_empty() {
        return Outcome::Error(-ENOTEMPTY);
    }
    Outcome::Removed { victim }
}
