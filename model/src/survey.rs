//! RPC accounting (MODEL.md §5): each of the design's five operations runs through the
//! coordinator model, without intents and with them, and its sync reads, OUT_UPDATE RPCs and
//! LDLM enqueues are counted from the traces of those runs. The design's own figures stand
//! beside them.

use super::checker::{Report, Scenario, Violation, check};
use super::creds::Creds;
use super::operation::{Fault, Op, Trace};
use super::store::{Attrs, Object, Store, Xattrs, dmv_bytes, lov_bytes};
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::mode::{S_IFDIR, S_IFREG};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag, LmvHashType, LmvMd, PoolName};

pub use super::operation::Label;

/// The design's operations, in the order of its tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum DesignOp {
    /// mkdir with a remote parent.
    Mkdir,
    /// rmdir with a remote parent.
    Rmdir,
    /// A cross-MDT file rename whose target name does not exist.
    FileRename,
    /// A cross-MDT file rename onto an existing target.
    FileRenameOverTarget,
    /// A cross-MDT directory rename (the directory on the remote MDT, both parents local).
    DirRename,
}

/// Where one of the design's figures comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Source {
    /// The survey of an unmodified tree (the design's summary table): counts before only.
    Survey,
    /// The prototype's before-and-after traces ("RPC counts").
    Prototype,
}

/// One of the design's figures for an operation: counts before intents and, for the
/// prototype, after.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Figure {
    /// Survey or prototype.
    pub source: Source,
    /// Sync reads without intents.
    pub reads_before: u32,
    /// Sync reads with intents (the prototype only).
    pub reads_after: Option<u32>,
    /// OUT_UPDATE RPCs without intents.
    pub out_update_before: u32,
    /// OUT_UPDATE RPCs with intents (the prototype only).
    pub out_update_after: Option<u32>,
    /// LDLM enqueues without intents.
    pub enqueues_before: u32,
    /// LDLM enqueues with intents (the prototype only: unchanged).
    pub enqueues_after: Option<u32>,
}

const fn survey(reads: u32, out_update: u32, enqueues: u32) -> Figure {
    Figure {
        source: Source::Survey,
        reads_before: reads,
        reads_after: None,
        out_update_before: out_update,
        out_update_after: None,
        enqueues_before: enqueues,
        enqueues_after: None,
    }
}

const fn prototype(out_update: (u32, u32), reads: (u32, u32), enqueues: u32) -> Figure {
    Figure {
        source: Source::Prototype,
        reads_before: reads.0,
        reads_after: Some(reads.1),
        out_update_before: out_update.0,
        out_update_after: Some(out_update.1),
        enqueues_before: enqueues,
        enqueues_after: Some(enqueues),
    }
}

/// The remote parent of the named operations.
pub const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);
/// The empty directory rmdir removes (`victim` in [`PARENT`]).
pub const VICTIM: LuFid = LuFid::new(0x2_0000_0401, 2, 0);
/// The file the renames move (`source` in [`PARENT`]).
pub const SOURCE: LuFid = LuFid::new(0x2_0000_0401, 3, 0);
/// The object the existing target name holds.
pub const TARGET: LuFid = LuFid::new(0x2_0000_0401, 4, 0);
/// The directory the directory rename moves.
pub const DIR: LuFid = LuFid::new(0x2_0000_0401, 5, 0);

impl DesignOp {
    /// All five, in the order of the design's tables.
    pub const ALL: [DesignOp; 5] = [
        DesignOp::Mkdir,
        DesignOp::Rmdir,
        DesignOp::FileRename,
        DesignOp::FileRenameOverTarget,
        DesignOp::DirRename,
    ];

    /// Its name in the design's words (the `operation` of a [`Row`]).
    pub const fn name(self) -> &'static str {
        match self {
            DesignOp::Mkdir => "mkdir, remote parent",
            DesignOp::Rmdir => "rmdir, remote parent",
            DesignOp::FileRename => "cross-MDT file rename, target does not exist",
            DesignOp::FileRenameOverTarget => "cross-MDT file rename, target exists",
            DesignOp::DirRename => "cross-MDT directory rename",
        }
    }

    /// The design's figures: the survey row and the prototype's measurement, where it has them.
    pub const fn figures(self) -> &'static [Figure] {
        const MKDIR: [Figure; 2] = [survey(8, 10, 2), prototype((7, 3), (5, 1), 2)];
        const RMDIR: [Figure; 1] = [survey(2, 4, 3)];
        const FILE_RENAME: [Figure; 2] = [survey(9, 11, 3), prototype((12, 7), (10, 5), 4)];
        const OVER_TARGET: [Figure; 1] = [prototype((16, 9), (14, 7), 4)];
        const DIR_RENAME: [Figure; 1] = [survey(3, 9, 1)];
        match self {
            DesignOp::Mkdir => &MKDIR,
            DesignOp::Rmdir => &RMDIR,
            DesignOp::FileRename => &FILE_RENAME,
            DesignOp::FileRenameOverTarget => &OVER_TARGET,
            DesignOp::DirRename => &DIR_RENAME,
        }
    }

    /// The operation, its store and its caller. The caller may write the parent through its
    /// group 600 only, so that partial groups make the parent's verdict advisory.
    pub fn scenario(self) -> Scenario {
        let op = match self {
            DesignOp::Mkdir => Op::Create {
                parent: PARENT,
                name: b"newdir".to_vec(),
                mode: S_IFDIR | 0o755,
            },
            DesignOp::Rmdir => Op::Unlink {
                parent: PARENT,
                name: b"victim".to_vec(),
            },
            DesignOp::FileRename => Op::Rename {
                parent: PARENT,
                name: b"source".to_vec(),
            },
            DesignOp::FileRenameOverTarget => Op::RenameOver {
                parent: PARENT,
                name: b"source".to_vec(),
                target: TARGET,
            },
            DesignOp::DirRename => Op::RenameDir { source: DIR },
        };
        Scenario {
            store: store(),
            creds: Creds {
                fsuid: 500,
                fsgid: 500,
                groups: alloc::vec![600, 700],
                umask: 0o022,
                ..Default::default()
            },
            op,
        }
    }
}

fn object(mode: u32) -> Object {
    Object {
        attrs: Attrs {
            mode,
            uid: 500,
            gid: 500,
            nlink: 1,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// ROOT, the parent with every xattr a result can carry, and the operations' objects.
fn store() -> Store {
    let default_acl = Acl::new(alloc::vec![
        AclEntry::new(AclTag::USER_OBJ, AclPerm(7), 0),
        AclEntry::new(AclTag::GROUP_OBJ, AclPerm(5), 0),
        AclEntry::new(AclTag::OTHER, AclPerm(5), 0),
    ])
    .to_bytes()
    .ok();
    let lmv = lustre_dne_intent::xattr::Lmv::Md(LmvMd {
        magic: lustre_dne_intent::xattr::LMV_MAGIC_V1,
        stripe_count: 2,
        master_mdt_index: 1,
        hash_type: LmvHashType(2),
        layout_version: 0,
        migrate_offset: 0,
        migrate_hash: LmvHashType(0),
        padding: [0; 12],
        pool_name: PoolName::EMPTY,
        stripe_fids: alloc::vec![PARENT, LuFid::new(0x2_4000_0401, 1, 0)],
    })
    .to_bytes()
    .ok();
    let mut s = Store::default();
    s.insert(LuFid::ROOT, object(S_IFDIR | 0o755));
    let mut parent = object(S_IFDIR | 0o2775);
    parent.attrs.uid = 0;
    parent.attrs.gid = 600;
    parent.xattrs = Xattrs {
        default_acl,
        pin: Some(Bytes::from_static(b"[pool: fast]")),
        lmv,
        lov: Some(lov_bytes(2)),
        dmv: Some(dmv_bytes(3, 0)),
        ..Default::default()
    };
    s.insert(PARENT, parent);
    s.insert(VICTIM, object(S_IFDIR | 0o755));
    s.insert(SOURCE, object(S_IFREG | 0o644));
    s.insert(TARGET, object(S_IFREG | 0o644));
    s.insert(DIR, object(S_IFDIR | 0o755));
    s.link(PARENT, b"victim", VICTIM);
    s.link(PARENT, b"source", SOURCE);
    s
}

/// What one run issued.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Counts {
    /// Synchronous remote reads, before and after the locks.
    pub reads: u32,
    /// OUT_UPDATE RPCs: the reads, the transaction's foreground RPCs and its log cleanup.
    pub out_update: u32,
    /// LDLM enqueue RPCs, failed ones included.
    pub enqueues: u32,
}

/// Counts the RPCs of one run from its trace.
pub fn counts(t: &Trace) -> Counts {
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    let reads = n(t.sync_reads.len());
    let tx: u32 = t
        .transactions
        .iter()
        .map(|x| x.foreground.saturating_add(x.log_cleanup))
        .fold(0, u32::saturating_add);
    Counts {
        reads,
        out_update: reads.saturating_add(tx),
        enqueues: n(t.enqueues.len()),
    }
}

/// Counts of one operation before (no intents) and after (intents, under a fault).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Row {
    /// The operation ([`DesignOp::name`]).
    pub operation: &'static str,
    /// Sync reads without intents.
    pub reads_before: u32,
    /// Sync reads with intents.
    pub reads_after: u32,
    /// OUT_UPDATE RPCs without intents.
    pub out_update_before: u32,
    /// OUT_UPDATE RPCs with intents.
    pub out_update_after: u32,
    /// LDLM enqueues without intents.
    pub enqueues_before: u32,
    /// LDLM enqueues with intents.
    pub enqueues_after: u32,
}

/// One operation's two runs under a fault: both traces (checked against every invariant)
/// and the row counted from them.
#[derive(Debug, Clone)]
pub struct Account {
    /// The operation.
    pub op: DesignOp,
    /// The row counted from the runs.
    pub row: Row,
    /// The runs.
    pub report: Report,
}

/// Runs `op` the standard way and with intents under `fault`, checks every invariant of
/// MODEL.md §4 on the pair, and counts both traces.
pub fn account(op: DesignOp, fault: Fault) -> Result<Account, Violation> {
    let report = check(&op.scenario(), fault)?;
    let (b, a) = (counts(&report.standard.1), counts(&report.intent.1));
    let row = Row {
        operation: op.name(),
        reads_before: b.reads,
        reads_after: a.reads,
        out_update_before: b.out_update,
        out_update_after: a.out_update,
        enqueues_before: b.enqueues,
        enqueues_after: a.enqueues,
    };
    Ok(Account { op, row, report })
}

/// The row of `op` under `fault` ([`account`] without the traces).
pub fn row(op: DesignOp, fault: Fault) -> Result<Row, Violation> {
    account(op, fault).map(|a| a.row)
}

/// For each read of the standard run, in order, whether the intent run issued it too (the
/// same item at the same step; a read it issued is matched once).
pub fn still_read(standard: &Trace, intent: &Trace) -> Vec<bool> {
    let mut left: Vec<Option<&super::operation::SyncRead>> =
        intent.sync_reads.iter().map(Some).collect();
    standard
        .sync_reads
        .iter()
        .map(|r| {
            let hit = left.iter_mut().find(|x| x.is_some_and(|x| x == r));
            hit.map(Option::take).is_some()
        })
        .collect()
}

/// A read in words, for the tool: `attr_get [0x200000401:0x1:0x0]`, `lookup "newdir" in …`.
pub fn describe(item: &super::operation::Item) -> alloc::string::String {
    use super::operation::Item;
    use alloc::format;
    use lustre_dne_intent::intent::MliBuf;
    match item {
        Item::Attrs(fid) => format!("attr_get {fid}"),
        Item::Lookup(fid, name) => {
            format!("lookup \"{}\" in {fid}", name.escape_ascii())
        }
        Item::Xattr(fid, b) => {
            let what = match b {
                MliBuf::Pattr => "attributes",
                MliBuf::DefAcl => "default ACL",
                MliBuf::Pin => "pin",
                MliBuf::Lmv => "LMV",
                MliBuf::Lov => "default LOV",
                MliBuf::DefLmv => "default LMV",
            };
            format!("xattr_get {what} of {fid}")
        }
        Item::RootLov => "xattr_get ROOT's default LOV".into(),
        Item::LinkEa(fid) => format!("xattr_get linkEA of {fid}"),
    }
}
