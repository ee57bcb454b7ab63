//! The rules of WIRE.md §7 on a derived child (`MCPP_CHILD_DERIVED`): its mode, type and flags
//! with the body (W7.18, W7.19, W7.23), then its bits against the request and the parent's PATTR
//! (W7.20 to W7.22), as the create rules of MODEL.md §2, step 6, derive them.

use super::{Buffers, ReplyRuleInput, err};
use crate::error::{DecodeError, ErrorKind};
use crate::intent::reply::ReplyContext;
use crate::intent::{McppFlags, MliBuf};
use crate::limits::MDT_BODY_SIZE;
use crate::mode::{self, LUSTRE_PROJINHERIT_FL, S_IFDIR, S_IFLNK, S_IFMT, S_ISGID, S_ISVTX};
use crate::wire::MdtValid;
use crate::wire::layout::md_create_prepare_rep as rep;
use crate::wire::raw::MdCreatePrepareRepRaw;
use crate::wire::raw::MdtBodyRaw;
use zerocopy::{ByteOrder, FromBytes};

/// The bits of a mode: its file type and the permission bits (07777).
const MODE_BITS: u32 = S_IFMT | 0o7777;
/// Bit `t` set for each file type `t << 12` of [`mode::is_valid_type`] (a test holds them equal).
const VALID_TYPES: u32 = {
    let mut bits = 0;
    let mut t = 0;
    while t < 16 {
        if mode::is_valid_type(t << 12) {
            bits |= 1 << t;
        }
        t += 1;
    }
    bits
};
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
    let (child_mode, flags) = (b.child_mode(), b.child_flags());
    let requested = ctx.map_or(child_mode, |c| c.child_mode);
    // The type field with every bit above it: below 16 when nothing lies outside MODE_BITS,
    // then one bit test for the seven types (fewer instructions than `is_valid_type` and a
    // mask).
    let ty = child_mode >> 12;
    let typed = ty < 16 && VALID_TYPES >> ty & 1 != 0;
    let projinherit_dir = flags == LUSTRE_PROJINHERIT_FL && ty == S_IFDIR >> 12;
    if typed && (child_mode ^ requested) & S_IFMT == 0 && (flags == 0 || projinherit_dir) {
        return Ok(());
    }
    Err(derived_error(child_mode, requested, flags, o2))
}

/// The error [`check_derived`] found, built out of the decoder's way (a valid reply pays
/// only for the tests).
#[cold]
#[inline(never)]
fn derived_error(child_mode: u32, requested: u32, flags: u32, o2: usize) -> DecodeError {
    let mode_at = rep::mcpp_child_mode.at(o2);
    if child_mode & !MODE_BITS != 0 || !mode::is_valid_type(child_mode) {
        return err(mode_at, ErrorKind::DerivedModeNotMode { got: child_mode });
    }
    if (child_mode ^ requested) & S_IFMT != 0 {
        let kind = ErrorKind::DerivedTypeNotRequested {
            got: child_mode,
            requested,
        };
        return err(mode_at, kind);
    }
    let why = if flags & !LUSTRE_PROJINHERIT_FL != 0 {
        "a child inherits no flag but LUSTRE_PROJINHERIT_FL"
    } else {
        "only a directory inherits LUSTRE_PROJINHERIT_FL"
    };
    err(
        rep::mcpp_child_flags.at(o2),
        ErrorKind::DerivedFlagsNotInherited { flags, why },
    )
}

/// W7.20 to W7.22: a derived child (of the requested type, W7.19) against the request's bits,
/// and against the parent's attributes when the reply carries them (a present PATTR, which
/// `check_results` proved is one `mdt_body` in the message's byte order).
///
/// Never inlined: only a decode against the request calls it, and inlined into the decoder it
/// cost every reply decode without the request about 100 instructions (callgrind, the empty
/// result 315 → 417) in spilled registers.
#[inline(never)]
pub(super) fn check_derived_for<'x, 'p, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'p>, O>,
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
    // A parent known to have no default ACL: the umask applies (posix_acl_create), but not
    // to a symbolic link, which keeps the requested mode.
    let valid = b.valid();
    let symlink = got & S_IFMT == S_IFLNK;
    if !symlink && valid.has(MliBuf::DefAcl) && f.bufs.result_len(MliBuf::DefAcl.index()) == 0 {
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
        let sgid_parent = p.mode() & S_ISGID != 0;
        let (mode, gid) = (b.child_mode(), b.child_gid());
        if dir && (mode & S_ISGID != 0) != sgid_parent {
            let kind = ErrorKind::SgidNotInherited { mode, sgid_parent };
            return Err(err(rep::mcpp_child_mode.at(o2), kind));
        }
        let expected = inherited(
            sgid_parent,
            pv.contains(MdtValid::FLGID),
            p.gid(),
            ctx.fsgid,
        );
        if let Some(expected) = expected.filter(|&e| e != gid) {
            let kind = ErrorKind::GroupNotInherited {
                got: gid,
                expected,
                sgid_parent,
            };
            return Err(err(rep::mcpp_child_gid.at(o2), kind));
        }
    }
    if !pv.contains(MdtValid::FLFLAGS) {
        return Ok(());
    }
    let inherit = p.flags() & LUSTRE_PROJINHERIT_FL != 0;
    let flags = b.child_flags();
    if dir && (flags & LUSTRE_PROJINHERIT_FL != 0) != inherit {
        let kind = ErrorKind::ProjinheritNotInherited { flags, inherit };
        return Err(err(rep::mcpp_child_flags.at(o2), kind));
    }
    let projid = b.child_projid();
    let expected = inherited(inherit, pv.contains(MdtValid::FLPROJID), p.projid(), 0);
    if let Some(expected) = expected.filter(|&e| e != projid) {
        let kind = ErrorKind::ProjectNotInherited {
            got: projid,
            expected,
            inherit,
        };
        return Err(err(rep::mcpp_child_projid.at(o2), kind));
    }
    Ok(())
}

/// The value a child's group or project must hold: the parent's when the parent passes it on
/// (S_ISGID, PROJINHERIT), unknown (`None`) when it does but `mbo_valid` leaves its value out,
/// else the child's own (the caller's fsgid, project 0).
fn inherited(inherit: bool, parent_known: bool, parent: u32, own: u32) -> Option<u32> {
    match (inherit, parent_known) {
        (true, true) => Some(parent),
        (true, false) => None,
        (false, _) => Some(own),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table of file types is `is_valid_type`, and a mode with bits above 0o177777 is no
    /// mode.
    #[test]
    fn valid_types_table() {
        assert_eq!(VALID_TYPES, 0x1556);
        for ty in 0..1u32 << 20 {
            let mode = ty << 12 | 0o755;
            let t = mode >> 12;
            let typed = t < 16 && VALID_TYPES >> t & 1 != 0;
            let by_mask = mode & !MODE_BITS == 0 && mode::is_valid_type(mode);
            assert_eq!(typed, by_mask, "{mode:#o}");
        }
    }
}
