//! The properties: what always holds, what eventually happens, and the paths that must be
//! reached so that neither is vacuous.

use super::coordinator::Phase;
use super::standard::serial;
use super::state::{SysState, SystemModel};
use alloc::vec::Vec;
use stateright::Property;

/// Bits of `SysState::broken` and `SysState::reached`.
pub mod bit {
    /// A decision differed from a read under the lock, or was taken without the lock.
    pub const STALE: u16 = 1 << 0;
    /// The completed operations are not serializable.
    pub const SERIAL: u16 = 1 << 1;
    /// The handler wrote.
    pub const HANDLER: u16 = 1 << 2;
    /// An intent went without the flag or in a replay.
    pub const GATING: u16 = 1 << 3;

    /// A resend re-ran the handler on the granted lock.
    pub const RESEND: u16 = 1 << 0;
    /// An advisory reply sent the coordinator the standard way.
    pub const ADVISORY: u16 = 1 << 1;
    /// A lock waited for a conflicting one.
    pub const CONFLICT_WAIT: u16 = 1 << 2;
    /// A reconnect changed the connect flag.
    pub const RECONNECT: u16 = 1 << 3;
    /// An operation went without prepared results (no intent, or an empty answer).
    pub const FALLBACK: u16 = 1 << 4;
    /// A blocking AST reached a holder.
    pub const BLOCKING_AST: u16 = 1 << 5;
    /// The parent restarted and locks were replayed.
    pub const REPLAY: u16 = 1 << 6;
}

/// Property names, as the tool prints them.
pub mod name {
    #![allow(missing_docs)]
    pub const COMPATIBLE: &str = "no incompatible locks granted together";
    pub const ONE_LOCK: &str = "one lock per enqueue (no second grant, no leak)";
    pub const FRESH: &str = "decisions equal a read under the lock";
    pub const SERIAL: &str = "completed operations are serializable";
    pub const HANDLER: &str = "the handler never writes";
    pub const GATING: &str = "no intent without the flag or in a replay";
    pub const COMPLETE: &str = "every operation completes";
    pub const RELEASED: &str = "every lock is released";
    pub const RESEND: &str = "reached: resend re-runs the handler";
    pub const ADVISORY: &str = "reached: advisory reply";
    pub const WAIT: &str = "reached: conflict wait";
    pub const RECONNECT: &str = "reached: reconnect";
    pub const FALLBACK: &str = "reached: fallback";
    pub const BLOCKING: &str = "reached: blocking AST";
    pub const REPLAY: &str = "reached: replay";
}

/// True when the completed decisions and the store are those of some serial execution of the
/// same operations by the standard path.
pub fn serializable(m: &SystemModel, s: &SysState) -> bool {
    let ops: Vec<_> = s
        .done
        .iter()
        .filter_map(|(c, i, _)| {
            let spec = m.scope.coords.get(usize::from(*c))?;
            Some((*c, *i, spec.script.get(usize::from(*i))?, &spec.creds))
        })
        .collect();
    if ops.len() != s.done.len() {
        return false;
    }
    let mut idx: Vec<usize> = (0..ops.len()).collect();
    // Heap's algorithm over the (at most a handful of) completed operations; the commit order
    // comes first and usually matches.
    let n = idx.len();
    let mut c = alloc::vec![0usize; n];
    let matches = |idx: &[usize]| {
        let order: Vec<_> = idx.iter().map(|&k| ops[k]).collect();
        let (ds, store) = serial(&m.scope.store, &order);
        store == *s.parent.store && idx.iter().zip(&ds).all(|(&k, d)| s.done[k].2 == *d)
    };
    if matches(&idx) {
        return true;
    }
    let mut i = 0;
    while i < n {
        if c[i] < i {
            if i % 2 == 0 {
                idx.swap(0, i);
            } else {
                idx.swap(c[i], i);
            }
            if matches(&idx) {
                return true;
            }
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    false
}

fn one_lock_per_enqueue(s: &SysState) -> bool {
    let mut owners: Vec<_> = s
        .parent
        .locks
        .granted
        .iter()
        .chain(&s.parent.locks.waiting)
        .map(|l| l.owner)
        .collect();
    owners.sort_unstable();
    owners.windows(2).all(|w| w[0] != w[1])
}

/// The properties of `m` (the replay example only where the scope can restart the parent).
pub fn properties(m: &SystemModel) -> Vec<Property<SystemModel>> {
    let mut v = alloc::vec![
        Property::always(name::COMPATIBLE, |_, s: &SysState| {
            s.parent.locks.incompatible_pair().is_none()
        }),
        Property::always(name::ONE_LOCK, |_, s: &SysState| one_lock_per_enqueue(s)),
        Property::always(name::FRESH, |_, s: &SysState| s.broken & bit::STALE == 0),
        Property::always(name::SERIAL, |_, s: &SysState| s.broken & bit::SERIAL == 0),
        Property::always(name::HANDLER, |_, s: &SysState| s.broken & bit::HANDLER
            == 0),
        Property::always(name::GATING, |_, s: &SysState| s.broken & bit::GATING == 0),
        Property::eventually(name::COMPLETE, |_, s: &SysState| {
            s.coords.iter().all(|c| c.phase == Phase::Done)
        }),
        Property::eventually(name::RELEASED, |_, s: &SysState| {
            s.coords
                .iter()
                .all(|c| c.phase == Phase::Done && c.held.is_empty())
                && s.parent.locks.granted.is_empty()
                && s.parent.locks.waiting.is_empty()
        }),
        Property::sometimes(name::WAIT, |m: &SystemModel, _: &SysState| m.reached()
            & bit::CONFLICT_WAIT
            != 0),
        Property::sometimes(name::BLOCKING, |m: &SystemModel, _: &SysState| m.reached()
            & bit::BLOCKING_AST
            != 0),
    ];
    let sc = &m.scope;
    if sc
        .coords
        .iter()
        .any(|c| c.intent_groups < c.creds.groups.len())
    {
        v.push(Property::sometimes(
            name::ADVISORY,
            |m: &SystemModel, _: &SysState| m.reached() & bit::ADVISORY != 0,
        ));
    }
    if sc.losses > 0 || sc.dups > 0 {
        v.push(Property::sometimes(
            name::RESEND,
            |m: &SystemModel, _: &SysState| m.reached() & bit::RESEND != 0,
        ));
    }
    if sc.reconnects > 0 {
        v.push(Property::sometimes(
            name::RECONNECT,
            |m: &SystemModel, _: &SysState| m.reached() & bit::RECONNECT != 0,
        ));
        // A reconnect without the flag is what sends an operation down the standard path.
        v.push(Property::sometimes(
            name::FALLBACK,
            |m: &SystemModel, _: &SysState| m.reached() & bit::FALLBACK != 0,
        ));
    }
    if sc.restarts > 0 {
        v.push(Property::sometimes(
            name::REPLAY,
            |m: &SystemModel, _: &SysState| m.reached() & bit::REPLAY != 0,
        ));
    }
    v
}

/// Why property `name` fails in `s`, in words, when the state shows it directly.
pub fn explain(s: &SysState, property: &str) -> Option<alloc::string::String> {
    match property {
        name::COMPATIBLE => s.parent.locks.incompatible_pair().map(|(a, b)| {
            alloc::format!(
                "locks #{} ({:?}, MDT{:04}) and #{} ({:?}, MDT{:04}) on {} are granted together",
                a.id,
                a.mode,
                a.owner.coord + 1,
                b.id,
                b.mode,
                b.owner.coord + 1,
                super::net::res_name(&a.res)
            )
        }),
        name::ONE_LOCK => {
            let all: Vec<_> = s
                .parent
                .locks
                .granted
                .iter()
                .chain(&s.parent.locks.waiting)
                .collect();
            all.iter().enumerate().find_map(|(i, a)| {
                all[i + 1..].iter().find(|b| b.owner == a.owner).map(|b| {
                    alloc::format!(
                        "enqueue xid {} of MDT{:04} holds two server locks, #{} and #{}: one \
                         of them is never released",
                        a.owner.cookie,
                        a.owner.coord + 1,
                        a.id,
                        b.id
                    )
                })
            })
        }
        name::COMPLETE | name::RELEASED => Some(alloc::format!(
            "the run ends with operations unfinished or locks held: phases {:?}, granted {:?}, \
             waiting {:?}",
            s.coords.iter().map(|c| c.phase).collect::<Vec<_>>(),
            s.parent
                .locks
                .granted
                .iter()
                .map(|l| l.id)
                .collect::<Vec<_>>(),
            s.parent
                .locks
                .waiting
                .iter()
                .map(|l| l.id)
                .collect::<Vec<_>>()
        )),
        _ => s.note.clone(),
    }
}
