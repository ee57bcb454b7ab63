//! The rules of WIRE.md §7 on a derived child (`MCPP_CHILD_DERIVED`): its mode, type and flags
//! with the body (W7.18, W7.19, W7.23), then its bits against the request and the parent's PATTR
//! (W7.20 to W7.22), as the create rules of MODEL.md §2, step 6, derive them.

use super::{Buffers, Facts, err};
use crate::error::{DecodeError, ErrorKind};
use crate::intent::body::{MdCreatePrepareRepRaw, md_create_prepare_rep as rep};
use crate::intent::reply::ReplyContext;
use crate::intent::{McppFlags, MliBuf};
use crate::limits::MDT_BODY_SIZE;
use crate::mode::{self, S_IFDIR, S_IFMT, S_ISGID, S_ISVTX};
use crate::wire::MdtValid;
use crate::wire::raw::MdtBodyRaw;
use zerocopy::{ByteOrder, FromBytes};

/// `LUSTRE_PROJINHERIT_FL`: the one inode flag a child inherits (`mdd_create_sanity_check`).
pub(crate) const LUSTRE_PROJINHERIT_FL: u32 = 0x2000_0000;
/// The bits of a mode: its file type and the permission bits (07777).
const MODE_BITS: u32 = S_IFMT | 0o7777;
/// The read, write and execute bits, the only ones a umask or a default ACL takes away.
const RWX: u32 = 0o777;

/// W7.18, W7.19 when the request is known, and W7.23: a derived mode is a file type with
/// permission bits, the requested type, and the derived flags are at most PROJINHERIT, on a
/// directory. The type comes before the flags, so that a mkdir deriving a file is refused for
/// its type, not for the PROJINHERIT it may carry.
#[inline(always)]
pub(super) fn check_derived(
    b: &MdCreatePrepareRepRaw<impl ByteOrder>,
    o2: usize,
    ctx: Option<&ReplyContext>,
) -> Result<(), DecodeError> {
    let child_mode = b.child_mode();
    if child_mode & !MODE_BITS != 0 || !mode::is_valid_type(child_mode) {
        return Err(err(
            rep::mcpp_child_mode.at(o2),
            ErrorKind::DerivedModeNotMode { got: child_mode },
        ));
    }
    if let Some(requested) = ctx.map(|c| c.child_mode)
        && child_mode & S_IFMT != requested & S_IFMT
    {
        return Err(err(
            rep::mcpp_child_mode.at(o2),
            ErrorKind::DerivedTypeNotRequested {
                got: child_mode,
                requested,
            },
        ));
    }
    let flags = b.child_flags();
    if flags == 0 {
        return Ok(());
    }
    let why = if flags & !LUSTRE_PROJINHERIT_FL != 0 {
        "a child inherits no flag but LUSTRE_PROJINHERIT_FL"
    } else if child_mode & S_IFMT != S_IFDIR {
        "only a directory inherits LUSTRE_PROJINHERIT_FL"
    } else {
        return Ok(());
    };
    Err(err(
        rep::mcpp_child_flags.at(o2),
        ErrorKind::DerivedFlagsNotInherited { flags, why },
    ))
}

/// W7.20 to W7.22: a derived child (of the requested type, W7.19) against the request's bits,
/// and against the parent's attributes when the reply carries them (a present PATTR, which
/// `check_results` proved is one `mdt_body` in the message's byte order).
pub(super) fn check_derived_for<'x, O: ByteOrder>(
    f: &Facts<'x, impl Buffers<'x>, O>,
    b: &MdCreatePrepareRepRaw<O>,
    ctx: &ReplyContext,
) -> Result<(), DecodeError> {
    if !b.flags().contains(McppFlags::CHILD_DERIVED) {
        return Ok(());
    }
    let o2 = f.bufs.off(2);
    let (got, requested) = (b.child_mode(), ctx.child_mode);
    let mode_at = rep::mcpp_child_mode.at(o2);
    let dir = got & S_IFMT == S_IFDIR;
    // mkdir keeps only the permission bits and S_ISVTX of the request; an SGID parent adds
    // S_ISGID to a directory. A non-directory keeps the request's bits, S_ISGID perhaps dropped.
    let mut allowed = if dir {
        (requested & (RWX | S_ISVTX)) | S_ISGID
    } else {
        requested & 0o7777
    };
    // A parent known to have no default ACL: the umask applies (posix_acl_create).
    let valid = b.valid();
    if valid.has(MliBuf::DefAcl) && f.bufs.result_len(MliBuf::DefAcl.index()) == 0 {
        allowed &= !(ctx.umask & RWX);
    }
    if got & 0o7777 & !allowed != 0 {
        return Err(err(
            mode_at,
            ErrorKind::DerivedPermsNotAllowed {
                got: got & 0o7777,
                allowed,
            },
        ));
    }
    let pattr = f.bufs.result(MliBuf::Pattr.index());
    match MdtBodyRaw::<O>::ref_from_bytes(pattr) {
        Ok(p) if valid.has(MliBuf::Pattr) && pattr.len() == MDT_BODY_SIZE => {
            check_inherited(b, o2, ctx, p, dir)
        }
        _ => Ok(()),
    }
}

/// W7.21 and W7.22: the group, the project and their marks on a directory, as the parent's
/// S_ISGID and PROJINHERIT decide. Each is checked only when `mbo_valid` says the parent's
/// fields that decide it are meaningful.
fn check_inherited<O: ByteOrder>(
    b: &MdCreatePrepareRepRaw<O>,
    o2: usize,
    ctx: &ReplyContext,
    p: &MdtBodyRaw<O>,
    dir: bool,
) -> Result<(), DecodeError> {
    let pv = p.valid();
    if pv.contains(MdtValid::FLMODE) {
        let sgid = p.mode() & S_ISGID != 0;
        let (mode, gid) = (b.child_mode(), b.child_gid());
        let group = |at, what, got, expected, why| {
            err(
                at,
                ErrorKind::GroupNotInherited {
                    what,
                    got,
                    expected,
                    why,
                },
            )
        };
        if dir && (mode & S_ISGID != 0) != sgid {
            let why = if sgid {
                "a directory under an S_ISGID parent gets S_ISGID"
            } else {
                "mkdir drops S_ISGID, and the parent has none to give"
            };
            let at = rep::mcpp_child_mode.at(o2);
            return Err(group(at, "mode", mode, mode ^ S_ISGID, why));
        }
        let at = rep::mcpp_child_gid.at(o2);
        if sgid && pv.contains(MdtValid::FLGID) && gid != p.gid() {
            let why = "the parent has S_ISGID: its group";
            return Err(group(at, "gid", gid, p.gid(), why));
        }
        if !sgid && gid != ctx.fsgid {
            let why = "the parent has no S_ISGID: the caller's fsgid";
            return Err(group(at, "gid", gid, ctx.fsgid, why));
        }
    }
    if !pv.contains(MdtValid::FLFLAGS) {
        return Ok(());
    }
    let inherit = p.flags() & LUSTRE_PROJINHERIT_FL != 0;
    let project = |at, what, got, expected, why| {
        err(
            at,
            ErrorKind::ProjectNotInherited {
                what,
                got,
                expected,
                why,
            },
        )
    };
    let flags = b.child_flags();
    if dir && (flags & LUSTRE_PROJINHERIT_FL != 0) != inherit {
        let at = rep::mcpp_child_flags.at(o2);
        let why = "a directory has PROJINHERIT exactly when its parent has";
        return Err(project(
            at,
            "flags",
            flags,
            flags ^ LUSTRE_PROJINHERIT_FL,
            why,
        ));
    }
    let projid = b.child_projid();
    let at = rep::mcpp_child_projid.at(o2);
    if inherit && pv.contains(MdtValid::FLPROJID) && projid != p.projid() {
        let why = "the parent has PROJINHERIT: its project";
        return Err(project(at, "projid", projid, p.projid(), why));
    }
    if !inherit && projid != 0 {
        return Err(project(
            at,
            "projid",
            projid,
            0,
            "the parent has no PROJINHERIT",
        ));
    }
    Ok(())
}
