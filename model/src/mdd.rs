//! The MDD layer's parent-side checks and derivations (MODEL.md §2), as the one shared helper:
//! the function both paths call. The remote intent handler runs it over its local store; the
//! coordinator runs it over its cache and remote reads. Both paths therefore cannot drift.

use super::creds::{CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FSETID, Creds};
use super::store::{Attrs, Entry};
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::errno::{EACCES, EEXIST, EINVAL, ENAMETOOLONG, ENOENT, ENOTDIR, EPERM};
use lustre_dne_intent::intent::{MliBuf, Operation};
use lustre_dne_intent::limits::NAME_MAX;
use lustre_dne_intent::mode::{LUSTRE_APPEND_FL, LUSTRE_IMMUTABLE_FL, LUSTRE_PROJINHERIT_FL};
use lustre_dne_intent::mode::{S_IFDIR, S_IFLNK, S_IFMT, S_IFREG, S_ISGID, S_ISVTX, S_IXGRP};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::acl::{MAY_EXEC, MAY_READ, MAY_WRITE};
use lustre_dne_intent::xattr::{AclView, DefaultLmvView, generic_permission, posix_acl_create};

/// What the helper learns about one object with one read ("attr_get, permission"): its
/// attributes, whether it is dead, and its access ACL.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ObjInfo {
    /// Attributes.
    pub attrs: Attrs,
    /// Being removed.
    pub dead: bool,
    /// `system.posix_acl_access`, when it has one.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub access_acl: Option<Bytes>,
}

/// Where the helper reads parent state from. Each method is one read of one item.
pub trait ParentSource {
    /// Attributes (and access ACL) of `fid`; `None` when it does not exist.
    fn attrs(&mut self, fid: LuFid) -> Option<ObjInfo>;
    /// Looks `name` up in directory `fid`.
    fn lookup(&mut self, fid: LuFid, name: &[u8]) -> Option<Entry>;
    /// Xattr `which` of `fid` (never [`MliBuf::Pattr`]); `None` when absent.
    fn xattr(&mut self, fid: LuFid, which: MliBuf) -> Option<Bytes>;
    /// ROOT's default layout (the filesystem default).
    fn root_lov(&mut self) -> Option<Bytes>;
}

/// What the lookup found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Lookup {
    /// No lookup ran (object mode, or the checks stopped before it).
    NotDone,
    /// The name does not exist.
    Negative,
    /// The name exists.
    Positive(Entry),
}

/// A new child's initial state: what create derives from the parent and the caller.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ChildState {
    /// Type and permission bits.
    pub mode: u32,
    /// Owning group.
    pub gid: u32,
    /// Project id.
    pub projid: u32,
    /// LUSTRE_*_FL flags it starts with.
    pub flags: u32,
    /// Its access ACL (Lustre stores the masked clone even when equivalent to the mode).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub access_acl: Option<Bytes>,
    /// Its default ACL (directories: the parent's).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub default_acl: Option<Bytes>,
    /// Its pin (regular files and directories: the parent's, byte for byte).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub pin: Option<Bytes>,
    /// The default LMV a new directory stores (the parent's, inherit counters stepped).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub dmv: Option<Bytes>,
    /// The layout policy: the default layout a directory stores, or the layout a file uses.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub layout: Option<Bytes>,
}

/// The helper's answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Prepared {
    /// 0 or a negative errno.
    pub status: i32,
    /// The lookup.
    pub lookup: Lookup,
    /// The permission checks ran (the parent existed and was a directory).
    pub perm_done: bool,
    /// A verdict or a derivation depended on group membership the credentials may not show
    /// in full: with partial groups the answer is advisory.
    pub group_dependent: bool,
    /// The object's attributes as read (object mode, or the parent in entry mode).
    pub object: Option<Attrs>,
    /// The derived child (create with status 0).
    pub child: Option<ChildState>,
}

impl Prepared {
    fn fail(status: i32) -> Self {
        Prepared {
            status: -status,
            lookup: Lookup::NotDone,
            perm_done: false,
            group_dependent: false,
            object: None,
            child: None,
        }
    }

    /// True when the answer rests on groups the credentials did not fully show.
    pub fn advisory(&self, creds: &Creds) -> bool {
        creds.groups_partial && self.group_dependent
    }
}

/// A permission verdict and whether it depended on group membership.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Verdict {
    /// Access granted.
    pub allowed: bool,
    /// The verdict came from group entries or group bits, and no capability decided it.
    pub group_dependent: bool,
}

/// `__mdd_permission_internal` with capabilities: may `creds` access `obj` with `want`?
pub fn permission(obj: &ObjInfo, creds: &Creds, want: u32) -> Verdict {
    let a = &obj.attrs;
    if want & MAY_WRITE != 0 && a.flags & LUSTRE_IMMUTABLE_FL != 0 {
        // Lustre answers EACCES here (Linux says EPERM).
        return Verdict {
            allowed: false,
            group_dependent: false,
        };
    }
    let acl = obj
        .access_acl
        .as_deref()
        .and_then(|b| AclView::parse(b).ok());
    let g = generic_permission(a.mode, a.uid, a.gid, acl.as_ref(), &creds.view(), want);
    let dir = a.is_dir();
    let dac_override =
        creds.capable(CAP_DAC_OVERRIDE) && (dir || want & MAY_EXEC == 0 || a.mode & 0o111 != 0);
    let read_search = creds.capable(CAP_DAC_READ_SEARCH)
        && (want & !MAY_READ == 0 || (dir && want & MAY_WRITE == 0));
    let cap = dac_override || read_search;
    Verdict {
        allowed: g.allowed || cap,
        group_dependent: g.groups_consulted && !cap,
    }
}

/// Name rules of the helper: EINVAL for an empty name, '/', NUL, "." or ".."; ENAMETOOLONG
/// past 255 bytes.
pub fn check_name(name: &[u8]) -> Result<(), i32> {
    if name.is_empty() || name.contains(&b'/') || name.contains(&0) || name == b"." || name == b".."
    {
        return Err(EINVAL);
    }
    if name.len() > NAME_MAX {
        return Err(ENAMETOOLONG);
    }
    Ok(())
}

/// The shared helper `prepare(store, object, op, name, proposed child, credentials)`.
///
/// Entry mode (`name` is `Some`): `object` is the parent directory. Object mode (`name` is
/// `None`, rename only): `object` is the object itself and only its attributes are returned.
pub fn prepare(
    src: &mut dyn ParentSource,
    object: LuFid,
    op: Operation,
    name: Option<&[u8]>,
    child_mode: u32,
    creds: &Creds,
) -> Prepared {
    let Some(obj) = src.attrs(object) else {
        return Prepared::fail(ENOENT);
    };
    if obj.dead {
        return Prepared::fail(ENOENT);
    }
    let Some(name) = name else {
        // Object mode: the object's attributes, nothing else.
        return Prepared {
            status: 0,
            lookup: Lookup::NotDone,
            perm_done: false,
            group_dependent: false,
            object: Some(obj.attrs),
            child: None,
        };
    };
    let mut out = Prepared {
        status: 0,
        lookup: Lookup::NotDone,
        perm_done: false,
        group_dependent: false,
        object: Some(obj.attrs),
        child: None,
    };
    if !obj.attrs.is_dir() {
        out.status = -ENOTDIR;
        return out;
    }
    out.perm_done = true;
    let exec = permission(&obj, creds, MAY_EXEC);
    out.group_dependent |= exec.group_dependent;
    if !exec.allowed {
        out.status = -EACCES;
        return out;
    }
    if let Err(e) = check_name(name) {
        out.status = -e;
        return out;
    }
    let found = src.lookup(object, name);
    out.lookup = found.map_or(Lookup::Negative, Lookup::Positive);
    match (op, found) {
        (Operation::Create, Some(_)) => {
            out.status = -EEXIST;
            return out;
        }
        (Operation::Unlink | Operation::Rename, None) => {
            out.status = -ENOENT;
            return out;
        }
        _ => {}
    }
    let write = permission(&obj, creds, MAY_WRITE | MAY_EXEC);
    out.group_dependent |= write.group_dependent;
    if !write.allowed {
        out.status = -EACCES;
        return out;
    }
    match op {
        Operation::Create => {
            let (child, dep) = derive_child(src, object, &obj.attrs, child_mode, creds);
            out.group_dependent |= dep;
            out.child = Some(child);
        }
        Operation::Unlink | Operation::Rename => {
            if obj.attrs.flags & LUSTRE_APPEND_FL != 0 {
                out.status = -EPERM;
            }
        }
    }
    out
}

/// Step 6 of create: the child's mode, gid, projid, flags, ACLs, pin, default LMV and layout.
/// Returns the state and whether it depended on group membership (the SGID-drop test).
pub fn derive_child(
    src: &mut dyn ParentSource,
    parent: LuFid,
    p: &Attrs,
    requested: u32,
    creds: &Creds,
) -> (ChildState, bool) {
    let ftype = requested & S_IFMT;
    let dir = ftype == S_IFDIR;
    let sgid_parent = p.mode & S_ISGID != 0;
    let mut dep = false;
    let mut mode = if dir {
        S_IFDIR | (requested & (0o777 | S_ISVTX))
    } else {
        requested
    };
    if !dir
        && sgid_parent
        && mode & S_ISGID != 0
        && mode & S_IXGRP != 0
        && !creds.capable(CAP_FSETID)
    {
        let (member, unsure) = creds.in_group(p.gid);
        dep |= unsure;
        if !member {
            mode &= !S_ISGID;
        }
    }
    let def_acl = if ftype == S_IFLNK {
        None
    } else {
        src.xattr(parent, MliBuf::DefAcl)
    };
    let def_view = def_acl.as_deref().and_then(|b| AclView::parse(b).ok());
    let created = posix_acl_create(def_view.as_ref(), mode, creds.umask);
    let mut mode = created.mode;
    let gid = if sgid_parent {
        if dir {
            mode |= S_ISGID;
        }
        p.gid
    } else {
        creds.fsgid
    };
    let (projid, flags) = if p.flags & LUSTRE_PROJINHERIT_FL != 0 {
        (p.projid, if dir { LUSTRE_PROJINHERIT_FL } else { 0 })
    } else {
        (0, 0)
    };
    let pin = if dir || ftype == S_IFREG {
        src.xattr(parent, MliBuf::Pin)
    } else {
        None
    };
    let dmv = if dir {
        src.xattr(parent, MliBuf::DefLmv)
            .and_then(|b| DefaultLmvView::parse(&b).ok().map(|v| v.to_value()))
            .and_then(|d| d.inherited())
            .and_then(|d| d.to_bytes().ok())
    } else {
        None
    };
    let layout = if dir {
        // A new directory copies its parent's default layout, but never ROOT's.
        if parent == LuFid::ROOT {
            None
        } else {
            src.xattr(parent, MliBuf::Lov)
        }
    } else if ftype == S_IFREG {
        src.xattr(parent, MliBuf::Lov).or_else(|| src.root_lov())
    } else {
        None
    };
    let child = ChildState {
        mode,
        gid,
        projid,
        flags,
        access_acl: created.access.and_then(|a| a.to_bytes().ok()),
        default_acl: created.default.and_then(|a| a.to_bytes().ok()),
        pin,
        dmv,
        layout,
    };
    (child, dep)
}

/// The local store read directly: what the parent MDT's handler (and a local parent) uses.
pub struct LocalSource<'s>(pub &'s super::store::Store);

impl ParentSource for LocalSource<'_> {
    fn attrs(&mut self, fid: LuFid) -> Option<ObjInfo> {
        self.0.get(fid).map(|o| ObjInfo {
            attrs: o.attrs,
            dead: o.dead,
            access_acl: o.xattrs.access_acl.clone(),
        })
    }
    fn lookup(&mut self, fid: LuFid, name: &[u8]) -> Option<Entry> {
        self.0.get(fid).and_then(|o| o.entries.get(name).copied())
    }
    fn xattr(&mut self, fid: LuFid, which: MliBuf) -> Option<Bytes> {
        let x = &self.0.get(fid)?.xattrs;
        match which {
            MliBuf::Pattr => None,
            MliBuf::DefAcl => x.default_acl.clone(),
            MliBuf::Pin => x.pin.clone(),
            MliBuf::Lmv => x.lmv.clone(),
            MliBuf::Lov => x.lov.clone(),
            MliBuf::DefLmv => x.dmv.clone(),
        }
    }
    fn root_lov(&mut self) -> Option<Bytes> {
        self.0.root_lov().cloned()
    }
}
