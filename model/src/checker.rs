//! The checker: runs the standard path and the intent path over the same scenario and fault and
//! asserts every invariant of MODEL.md §4. Usable from tests, fuzzers and the tool.

use super::creds::Creds;
use super::handler::{IntentHandler, ReferenceHandler};
use super::operation::{
    CacheEvent, Fault, Item, Mutations, Op, Outcome, Trace, run_intent_with_order, run_standard,
};
use super::store::Store;
use alloc::collections::{BTreeMap, BTreeSet};
use alloc::format;
use alloc::string::String;
use core::fmt;
use lustre_dne_intent::Endian;
use lustre_dne_intent::errno::{EACCES, EPERM};
use lustre_dne_intent::intent::{ReplyView, RequestView};
use lustre_dne_intent::limits::GROUPS_MAX;

/// A store, a caller and an operation.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Scenario {
    /// The remote MDT's objects.
    pub store: Store,
    /// The caller, with the full group set.
    pub creds: Creds,
    /// The operation.
    pub op: Op,
}

/// The invariants of MODEL.md §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Invariant {
    /// 1: the intent path's outcome equals the standard path's.
    Equivalence = 1,
    /// 2: every granted lock is released exactly once; a failed preparation is no failed enqueue.
    NoLockLeak = 2,
    /// 3: the handler leaves the store unchanged.
    ReadOnlyHandler = 3,
    /// 4: no intent to a peer without the flag, in a replay, or from a non-MDT sender.
    Gating = 4,
    /// 5: seeding only after the post-grant invalidation; unknown never negative; seeded values
    /// equal the store's.
    Cache = 5,
    /// 6: intent reads ⊆ standard reads; an unknown result costs one read; a complete reply none.
    Cost = 6,
    /// 7: with partial groups, never allow what the standard path denies, nor deny what it allows.
    Security = 7,
    /// 8: every reply respects WIRE.md §8.
    Bounds = 8,
}

impl Invariant {
    /// Its name as MODEL.md §4 gives it.
    pub const fn name(self) -> &'static str {
        match self {
            Invariant::Equivalence => "equivalence",
            Invariant::NoLockLeak => "no lock leak",
            Invariant::ReadOnlyHandler => "read-only handler",
            Invariant::Gating => "gating",
            Invariant::Cache => "cache",
            Invariant::Cost => "cost",
            Invariant::Security => "security",
            Invariant::Bounds => "bounds",
        }
    }
}

/// An invariant that broke, and why. An error (`std::error::Error`), so `?` takes it into a
/// `Box<dyn Error>` (see [`check`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Violation {
    /// Which.
    pub invariant: Invariant,
    /// What was seen.
    pub why: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invariant {} ({}) broken: {}",
            self.invariant as u8,
            self.invariant.name(),
            self.why
        )
    }
}

impl std::error::Error for Violation {}

/// Both runs of a scenario that held every invariant.
#[derive(Debug, Clone)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Report {
    /// The standard path: the right answer.
    pub standard: (Outcome, Trace),
    /// The intent path under the fault.
    pub intent: (Outcome, Trace),
}

fn broke(invariant: Invariant, why: String) -> Result<(), Violation> {
    Err(Violation { invariant, why })
}

/// Runs `scenario` both ways under `fault` and checks every invariant.
///
/// ```
/// use std::error::Error;
/// use lustre_dne_intent::mode::S_IFDIR;
/// use lustre_dne_intent_model::{self as model, Attrs, Creds, Fault, Object, Op, Outcome, Scenario, Store};
/// use lustre_dne_intent::wire::LuFid;
///
/// // A mkdir in a setgid directory the caller may write through its group 600.
/// fn mkdir(fault: Fault) -> Result<Outcome, Box<dyn Error>> {
///     let parent = LuFid::new(0x200000401, 1, 0);
///     let dir = |mode| Object {
///         attrs: Attrs { mode: S_IFDIR | mode, gid: 600, ..Default::default() },
///         ..Default::default()
///     };
///     let mut store = Store::default();
///     store.insert(LuFid::ROOT, dir(0o755));
///     store.insert(parent, dir(0o2775));
///     let scenario = Scenario {
///         store,
///         creds: Creds { fsuid: 500, fsgid: 500, groups: vec![600], umask: 0o022, ..Default::default() },
///         op: Op::Create { parent, name: b"new".to_vec(), mode: S_IFDIR | 0o755 },
///     };
///     // A broken invariant is a `Violation`, an error `?` passes on.
///     let report = model::check(&scenario, fault)?;
///     assert_eq!(report.intent.0, report.standard.0);
///     Ok(report.intent.0)
/// }
///
/// for fault in [Fault::None, Fault::PeerWithoutFlag, Fault::EmptyResult] {
///     let Outcome::Created(child) = mkdir(fault)? else { panic!("mkdir is allowed") };
///     assert_eq!((child.mode, child.gid), (S_IFDIR | 0o2755, 600));
/// }
/// # Ok::<(), Box<dyn Error>>(())
/// ```
pub fn check(scenario: &Scenario, fault: Fault) -> Result<Report, Violation> {
    check_with(scenario, fault, Mutations::default())
}

/// [`check`] against a deliberately broken coordinator.
pub fn check_with(
    scenario: &Scenario,
    fault: Fault,
    mutations: Mutations,
) -> Result<Report, Violation> {
    check_with_setup(
        scenario,
        fault,
        &Setup {
            mutations,
            ..Setup::default()
        },
    )
}

/// [`check`] with another handler on the parent MDT: a downstream implementation plugged in
/// through [`IntentHandler`] must keep every invariant the crate's own handler keeps.
pub fn check_with_handler(
    scenario: &Scenario,
    fault: Fault,
    handler: &dyn IntentHandler,
) -> Result<Report, Violation> {
    check_with_setup(
        scenario,
        fault,
        &Setup {
            handler,
            ..Setup::default()
        },
    )
}

/// The parts of a checked run that are not the scenario or the fault: the handler on the parent
/// MDT, the coordinator's byte order and its deliberate bugs. The default is the crate's handler
/// and a correct little-endian coordinator (what [`check`] runs).
#[derive(Clone, Copy)]
pub struct Setup<'h> {
    /// The parent MDT's handler.
    pub handler: &'h dyn IntentHandler,
    /// The byte order the coordinator writes its requests in (a handler answers in the order of
    /// the request, so `Endian::Big` also makes [`ReferenceHandler`] answer big-endian).
    pub order: Endian,
    /// Coordinator bugs, for checker self-tests.
    pub mutations: Mutations,
}

impl Default for Setup<'_> {
    fn default() -> Self {
        Setup {
            handler: &ReferenceHandler,
            order: Endian::Little,
            mutations: Mutations::default(),
        }
    }
}

impl fmt::Debug for Setup<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setup")
            .field("order", &self.order)
            .field("mutations", &self.mutations)
            .finish_non_exhaustive()
    }
}

/// [`check`] with every part of the run chosen: [`Setup`].
///
/// ```
/// use lustre_dne_intent::Endian;
/// use lustre_dne_intent_model::checker::Setup;
/// use lustre_dne_intent_model::{Fault, Mutations, check_with_setup};
/// # use lustre_dne_intent_model::{Attrs, Creds, Object, Op, Scenario, Store};
/// # use lustre_dne_intent::wire::LuFid;
/// # let parent = LuFid::new(0x200000401, 1, 0);
/// # let mut store = Store::default();
/// # store.insert(parent, Object { attrs: Attrs { mode: 0o040777, ..Default::default() }, ..Default::default() });
/// # let scenario = Scenario { store, creds: Creds::default(),
/// #     op: Op::Create { parent, name: b"new".to_vec(), mode: 0o040755 } };
/// // A big-endian coordinator, whose peer answers big-endian: every invariant holds.
/// let big = Setup { order: Endian::Big, ..Setup::default() };
/// for fault in Fault::all() {
///     check_with_setup(&scenario, fault, &big)?;
/// }
/// # Ok::<(), lustre_dne_intent_model::Violation>(())
/// ```
pub fn check_with_setup(
    scenario: &Scenario,
    fault: Fault,
    setup: &Setup<'_>,
) -> Result<Report, Violation> {
    let Scenario { store, creds, op } = scenario;
    let standard = run_standard(store, creds, op);
    let intent = run_intent_with_order(
        setup.order,
        store,
        creds,
        op,
        fault,
        setup.mutations,
        setup.handler,
    );
    for (t, _) in [(&standard.1, "standard"), (&intent.1, "intent")] {
        check_locks(t)?;
        check_handler(t)?;
        check_gating(t)?;
        check_cache(store, t)?;
        check_bounds(t)?;
    }
    let partial = matches!(fault, Fault::PartialGroups(n) if usize::from(n) < creds.groups.len())
        || creds.groups.len() > GROUPS_MAX
        || creds.groups_partial;
    if partial && denied(&intent.0) != denied(&standard.0) {
        broke(
            Invariant::Security,
            format!(
                "with partial groups the intent path gives {:?}, the standard path {:?}",
                intent.0, standard.0
            ),
        )?;
    }
    if intent.0 != standard.0 {
        broke(
            Invariant::Equivalence,
            format!(
                "intent path gives {:?}, standard path {:?}",
                intent.0, standard.0
            ),
        )?;
    }
    check_cost(&standard.1, &intent.1)?;
    Ok(Report { standard, intent })
}

fn denied(o: &Outcome) -> bool {
    matches!(o, Outcome::Error(e) if *e == -EACCES || *e == -EPERM)
}

fn check_locks(t: &Trace) -> Result<(), Violation> {
    let granted: BTreeSet<u32> = t.enqueues.iter().filter_map(|e| e.result.ok()).collect();
    let mut released: BTreeMap<u32, usize> = BTreeMap::new();
    for id in &t.releases {
        *released.entry(*id).or_default() += 1;
    }
    for (id, n) in &released {
        if !granted.contains(id) {
            return broke(
                Invariant::NoLockLeak,
                format!("lock {id} released but never granted"),
            );
        }
        if *n != 1 {
            return broke(
                Invariant::NoLockLeak,
                format!("lock {id} released {n} times"),
            );
        }
    }
    if let Some(id) = granted.iter().find(|id| !released.contains_key(id)) {
        return broke(
            Invariant::NoLockLeak,
            format!("lock {id} granted and never released"),
        );
    }
    // A preparation that ran always comes back with the lock.
    if let Some(r) = t
        .handler_runs
        .iter()
        .find(|r| r.from_mdt && r.reply.is_err())
    {
        return broke(
            Invariant::NoLockLeak,
            format!("a valid intent failed the enqueue with {:?}", r.reply),
        );
    }
    Ok(())
}

fn check_handler(t: &Trace) -> Result<(), Violation> {
    if t.handler_runs.iter().any(|r| !r.store_unchanged) {
        return broke(
            Invariant::ReadOnlyHandler,
            "the handler changed the store".into(),
        );
    }
    Ok(())
}

fn check_gating(t: &Trace) -> Result<(), Violation> {
    for e in t.enqueues.iter().filter(|e| e.intent.is_some()) {
        if !e.peer_flag {
            return broke(
                Invariant::Gating,
                "an intent went to a peer without OBD_CONNECT2_DNE_PREPARE".into(),
            );
        }
        if e.replay {
            return broke(Invariant::Gating, "an intent went out in a replay".into());
        }
    }
    if t.handler_runs
        .iter()
        .any(|r| !r.from_mdt && r.reply.is_ok())
    {
        return broke(
            Invariant::Gating,
            "the handler ran an intent from a non-MDT sender".into(),
        );
    }
    Ok(())
}

fn store_value(store: &Store, item: &Item) -> Option<lustre_dne_intent::bytes::Bytes> {
    match item {
        Item::Xattr(fid, b) => super::mdd::LocalSource(store)
            .xattr_of(*fid, *b)
            .filter(|v| !v.is_empty()),
        _ => None,
    }
}

fn check_cache(store: &Store, t: &Trace) -> Result<(), Violation> {
    let mut invalidated_since_grant = true;
    for ev in &t.cache {
        match ev {
            CacheEvent::Grant(_) => invalidated_since_grant = false,
            CacheEvent::Invalidate => invalidated_since_grant = true,
            CacheEvent::Seed { item, value, state } => {
                if !invalidated_since_grant {
                    return broke(
                        Invariant::Cache,
                        format!("{item:?} seeded before the post-grant invalidation"),
                    );
                }
                let fresh = value.as_ref() == store_value(store, item).as_ref();
                check_seed(item, value.is_none(), state, fresh)?;
            }
            CacheEvent::SeedAttrs { fid, attrs, state } => {
                if !invalidated_since_grant {
                    return broke(
                        Invariant::Cache,
                        format!(
                            "{:?} seeded before the post-grant invalidation",
                            Item::Attrs(*fid)
                        ),
                    );
                }
                let fresh = *attrs == store.get(*fid).map(|o| o.attrs);
                check_seed(&Item::Attrs(*fid), attrs.is_none(), state, fresh)?;
            }
        }
    }
    Ok(())
}

/// A seeded item's value: a negative entry only for an absent result, and the store's value.
fn check_seed(item: &Item, negative: bool, state: &str, fresh: bool) -> Result<(), Violation> {
    if negative && state != "absent" {
        return broke(
            Invariant::Cache,
            format!("{item:?} was {state} in the reply but seeded as absent"),
        );
    }
    if !fresh {
        return broke(
            Invariant::Cache,
            format!("{item:?} seeded with a value the store does not hold"),
        );
    }
    Ok(())
}

fn check_bounds(t: &Trace) -> Result<(), Violation> {
    for r in &t.handler_runs {
        let Ok(reply) = &r.reply else { continue };
        let ctx = match RequestView::parse(&r.request) {
            Ok(v) => v.reply_context(),
            Err(e) => {
                return broke(
                    Invariant::Bounds,
                    format!("the coordinator sent an invalid request: {e}"),
                );
            }
        };
        if let Err(e) = ReplyView::parse_for(reply, &ctx) {
            return broke(
                Invariant::Bounds,
                format!("reply breaks docs/spec/WIRE.md: {e}"),
            );
        }
    }
    Ok(())
}

fn check_cost(standard: &Trace, intent: &Trace) -> Result<(), Violation> {
    // Reads as multisets: the standard path itself reads some items twice (create's second
    // lookup, a rename's re-read after a grant), and the intent path may read each no more
    // often than it does.
    let std_reads = read_counts(standard);
    for (item, n) in read_counts(intent) {
        match std_reads.get(item).copied().unwrap_or(0) {
            0 => {
                return broke(
                    Invariant::Cost,
                    format!("the intent path read {item:?}, which the standard path did not"),
                );
            }
            s if n > s => {
                return broke(
                    Invariant::Cost,
                    format!("{item:?} read {n} times, by the standard path {s} times"),
                );
            }
            _ => {}
        }
    }
    if intent.complete_reply {
        let unknown: BTreeSet<&Item> = intent.unknown_items.iter().collect();
        if let Some(r) = intent
            .reads
            .iter()
            .find(|i| i.covered_by_results() && !unknown.contains(i))
        {
            return broke(
                Invariant::Cost,
                format!("a known result was read again: {r:?}"),
            );
        }
    }
    Ok(())
}

fn read_counts(t: &Trace) -> BTreeMap<&Item, usize> {
    let mut n: BTreeMap<&Item, usize> = BTreeMap::new();
    for i in &t.reads {
        *n.entry(i).or_default() += 1;
    }
    n
}
