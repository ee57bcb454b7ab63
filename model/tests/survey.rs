//! The RPC accounting against the design's survey (MODEL.md §5): the labelled reads of each
//! operation are the expected values; the coordinator's runs must issue exactly them without
//! intents, and with intents exactly those each fault leaves to read, fault by fault.

use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent_model::operation::{Label, SyncRead};
use lustre_dne_intent_model::survey::{
    self, DIR, DesignOp, PARENT, SOURCE, Source, TARGET, account, counts,
};
use lustre_dne_intent_model::{Fault, Item};

/// What the intent path does with a read of the standard path.
#[derive(Debug, Clone, Copy, PartialEq)]
enum WithIntent {
    /// Still read.
    Kept,
    /// Skipped whenever the coordinator plans an intent for the remote parent.
    DroppedByIntent,
    /// Not needed once a decoded prepare reply is used (it names the source's parent).
    DroppedByReply,
    /// Replaced by an entry-mode result; PATTR also comes back under an advisory reply (the
    /// permission re-check needs the access ACL PATTR lacks).
    Result(MliBuf),
    /// Replaced by the lookup result; back under an advisory reply (not cached).
    LookupResult,
    /// A PATTR seeded from a reply (the object-mode intent's, or the parent's kept past a later
    /// grant): back only when no reply is used or PATTR is unknown.
    SeededPattr,
}
use WithIntent::*;

/// One read of an operation, in the order the coordinator issues it.
struct Read {
    /// Its number in the design's table (0: not in the design's list).
    n: u8,
    label: Label,
    item: Item,
    with_intent: WithIntent,
}

fn r(n: u8, label: Label, item: Item, with_intent: WithIntent) -> Read {
    Read {
        n,
        label,
        item,
        with_intent,
    }
}

fn lookup(name: &str) -> Item {
    Item::Lookup(PARENT, name.as_bytes().to_vec())
}

/// The labelled reads of each operation (MODEL.md §5).
fn table(op: DesignOp) -> Vec<Read> {
    use Label::*;
    let x = |b| Item::Xattr(PARENT, b);
    let file_rename = |target: bool| {
        let mut v = vec![
            r(1, BeforeLock, Item::LinkEa(PARENT), Kept),
            r(3, BeforeLock, x(MliBuf::Lmv), Kept),
            r(
                4,
                AfterLockParent,
                Item::Attrs(PARENT),
                Result(MliBuf::Pattr),
            ),
            r(6, AfterLockParent, lookup("source"), LookupResult),
            r(5, AfterLockParent, x(MliBuf::Lmv), Result(MliBuf::Lmv)),
            r(
                2,
                InvalidationDuplicate,
                Item::LinkEa(PARENT),
                DroppedByReply,
            ),
            r(7, BeforeLock, Item::Attrs(SOURCE), Kept),
        ];
        if target {
            v.push(r(0, BeforeLock, Item::Attrs(TARGET), Kept));
        }
        v.push(r(8, AfterLockObject, Item::Attrs(SOURCE), SeededPattr));
        v.push(r(9, AfterLockUncovered, Item::LinkEa(SOURCE), Kept));
        if target {
            v.push(r(0, AfterLockUncovered, Item::LinkEa(TARGET), Kept));
            v.push(r(0, AfterLockParent, Item::Attrs(PARENT), SeededPattr));
        }
        v
    };
    match op {
        DesignOp::Mkdir => vec![
            r(1, BeforeLock, Item::Attrs(PARENT), Kept),
            r(2, LocklessLookup, lookup("newdir"), DroppedByIntent),
            r(
                3,
                AfterLockParent,
                Item::Attrs(PARENT),
                Result(MliBuf::Pattr),
            ),
            r(4, AfterLockParent, lookup("newdir"), LookupResult),
            r(
                6,
                AfterLockParent,
                x(MliBuf::DefAcl),
                Result(MliBuf::DefAcl),
            ),
            r(7, AfterLockParent, x(MliBuf::Pin), Result(MliBuf::Pin)),
            r(
                0,
                AfterLockParent,
                x(MliBuf::DefLmv),
                Result(MliBuf::DefLmv),
            ),
            r(8, AfterLockParent, x(MliBuf::Lov), Result(MliBuf::Lov)),
            r(5, AfterLockParent, lookup("newdir"), LookupResult),
        ],
        DesignOp::Rmdir => vec![
            r(
                1,
                AfterLockParent,
                Item::Attrs(PARENT),
                Result(MliBuf::Pattr),
            ),
            r(2, AfterLockParent, lookup("victim"), LookupResult),
        ],
        DesignOp::FileRename => file_rename(false),
        DesignOp::FileRenameOverTarget => file_rename(true),
        DesignOp::DirRename => vec![
            r(2, BeforeLock, Item::LinkEa(DIR), Kept),
            r(3, BeforeLock, Item::Xattr(DIR, MliBuf::Lmv), Kept),
            r(1, AfterLockObject, Item::Attrs(DIR), SeededPattr),
        ],
    }
}

/// Whether `read` still happens with intents under `fault`: the design's rules.
fn still_read(read: &Read, fault: Fault) -> bool {
    use Fault as F;
    let no_intent = matches!(fault, F::PeerWithoutFlag | F::Replay);
    // The enqueue failed (no lock, retried plain) or the reply was empty or did not decode.
    let no_reply = no_intent
        || matches!(
            fault,
            F::PeerLostFlag | F::NonMdtSender | F::EmptyResult | F::Malformed
        );
    // The caller's groups decide the parent's verdict, so partial groups come back advisory.
    let advisory = matches!(fault, F::Advisory | F::PartialGroups(_));
    let unknown = |b: MliBuf| matches!(fault, F::Unknown(x) | F::Truncated(x) if x == b);
    match read.with_intent {
        Kept => true,
        DroppedByIntent => no_intent,
        DroppedByReply => no_reply,
        Result(b) => no_reply || unknown(b) || (b == MliBuf::Pattr && advisory),
        LookupResult => no_reply || advisory,
        SeededPattr => no_reply || unknown(MliBuf::Pattr),
    }
}

/// Intent enqueues of each operation: the name-hash lock's, and a rename's object lock's.
fn intent_enqueues(op: DesignOp) -> u32 {
    match op {
        DesignOp::FileRename | DesignOp::FileRenameOverTarget => 2,
        _ => 1,
    }
}

fn labelled(reads: &[SyncRead]) -> Vec<(Label, Item)> {
    reads.iter().map(|r| (r.label, r.item.clone())).collect()
}

#[test]
fn the_standard_run_issues_the_labelled_reads_in_order() {
    for op in DesignOp::ALL {
        let a = account(op, Fault::None).expect("every invariant holds");
        let want: Vec<(Label, Item)> = table(op).into_iter().map(|r| (r.label, r.item)).collect();
        assert_eq!(labelled(&a.report.standard.1.sync_reads), want, "{op:?}");
        // Each read of the design's survey list is in the table once; the rest are the model's.
        if let Some(s) = op.figures().iter().find(|f| f.source == Source::Survey) {
            let mut n: Vec<u8> = table(op).iter().map(|r| r.n).filter(|n| *n > 0).collect();
            n.sort_unstable();
            let listed = u8::try_from(s.reads_before).expect("a short list");
            assert_eq!(n, (1..=listed).collect::<Vec<u8>>(), "{op:?}");
        }
    }
}

#[test]
fn each_fault_leaves_exactly_the_reads_the_rules_say() {
    for op in DesignOp::ALL {
        let table = table(op);
        let tx = if op == DesignOp::DirRename { 6 } else { 2 };
        let enqueues = survey::row(op, Fault::PeerWithoutFlag)
            .expect("holds")
            .enqueues_before;
        for fault in Fault::all() {
            let a = account(op, fault).unwrap_or_else(|v| panic!("{op:?} {fault:?}: {v}"));
            let (std, int) = (&a.report.standard.1, &a.report.intent.1);
            let want: Vec<bool> = table.iter().map(|r| still_read(r, fault)).collect();
            assert_eq!(survey::still_read(std, int), want, "{op:?} under {fault:?}");
            // Nothing else is read: the intent run's reads are those the rules keep.
            let kept = want.iter().filter(|k| **k).count() as u32;
            let row = a.row;
            assert_eq!(
                (row.reads_before, row.reads_after),
                (table.len() as u32, kept),
                "{op:?} under {fault:?}"
            );
            assert_eq!(
                (row.out_update_before, row.out_update_after),
                (table.len() as u32 + tx, kept + tx),
                "{op:?} under {fault:?}"
            );
            // A failed intent enqueue is one more enqueue: once for a peer that lost the flag
            // (no more intents to it), at each intent for a non-MDT sender.
            let failed = match fault {
                Fault::PeerLostFlag => 1,
                Fault::NonMdtSender => intent_enqueues(op),
                _ => 0,
            };
            assert_eq!(
                (row.enqueues_before, row.enqueues_after),
                (enqueues, enqueues + failed),
                "{op:?} under {fault:?}"
            );
        }
    }
}

#[test]
fn the_rows_against_the_design() {
    let none = |op| survey::row(op, Fault::None).expect("holds");
    let counts = |op: DesignOp| {
        let r = none(op);
        [
            r.reads_before,
            r.reads_after,
            r.out_update_before,
            r.out_update_after,
            r.enqueues_before,
            r.enqueues_after,
        ]
    };
    // MODEL.md §5's table.
    assert_eq!(counts(DesignOp::Mkdir), [9, 1, 11, 3, 2, 2]);
    assert_eq!(counts(DesignOp::Rmdir), [2, 0, 4, 2, 3, 3]);
    assert_eq!(counts(DesignOp::FileRename), [9, 4, 11, 6, 3, 3]);
    assert_eq!(counts(DesignOp::FileRenameOverTarget), [12, 6, 14, 8, 3, 3]);
    assert_eq!(counts(DesignOp::DirRename), [3, 2, 9, 8, 1, 1]);
    // Where the survey counted the same reads, the model agrees with it.
    for op in [DesignOp::Rmdir, DesignOp::FileRename, DesignOp::DirRename] {
        let s = op
            .figures()
            .iter()
            .find(|f| f.source == Source::Survey)
            .expect("a survey row");
        let r = none(op);
        assert_eq!(
            (s.reads_before, s.out_update_before, s.enqueues_before),
            (r.reads_before, r.out_update_before, r.enqueues_before),
            "{op:?}"
        );
    }
    // The prototype removed 5 reads from the rename without a target and 4 from mkdir's
    // post-lock parent reads; the model removes the same 5, and all 8 of mkdir's after the
    // first (its survey trace has the lockless lookup and the default LMV besides).
    let removed = |op| {
        let r = none(op);
        r.reads_before - r.reads_after
    };
    assert_eq!(removed(DesignOp::FileRename), 10 - 5);
    assert_eq!(removed(DesignOp::Mkdir), 8);
}

#[test]
fn counts_come_from_the_trace() {
    let a = account(DesignOp::FileRename, Fault::Unknown(MliBuf::Lmv)).expect("holds");
    let c = counts(&a.report.intent.1);
    assert_eq!(c.reads, 5, "{:?}", a.report.intent.1.sync_reads);
    assert_eq!(c.out_update, 7);
    assert_eq!(c.enqueues, 3);
    assert_eq!(
        a.report.intent.1.transactions.len(),
        1,
        "one transaction for a prepared rename"
    );
    // A failed operation issues no transaction: a rename of a name that does not exist.
    let mut sc = DesignOp::FileRename.scenario();
    sc.op = lustre_dne_intent_model::Op::Rename {
        parent: PARENT,
        name: b"absent".to_vec(),
    };
    let report = lustre_dne_intent_model::check(&sc, Fault::None).expect("holds");
    assert_eq!(report.intent.0, lustre_dne_intent_model::Outcome::Error(-2));
    assert!(report.intent.1.transactions.is_empty());
    assert!(report.standard.1.transactions.is_empty());
}

#[test]
fn a_big_endian_coordinator_issues_the_same_reads() {
    use lustre_dne_intent::Endian;
    use lustre_dne_intent_model::operation::run_intent_with_order;
    use lustre_dne_intent_model::{Mutations, ReferenceHandler};
    for op in DesignOp::ALL {
        let sc = op.scenario();
        for fault in Fault::all() {
            let little = account(op, fault).expect("holds").report.intent;
            let big = run_intent_with_order(
                Endian::Big,
                &sc.store,
                &sc.creds,
                &sc.op,
                fault,
                Mutations::default(),
                &ReferenceHandler,
            );
            assert_eq!(big.0, little.0, "{op:?} under {fault:?}");
            assert_eq!(
                labelled(&big.1.sync_reads),
                labelled(&little.1.sync_reads),
                "{op:?} under {fault:?}"
            );
            assert_eq!(counts(&big.1), counts(&little.1), "{op:?} under {fault:?}");
        }
    }
}
