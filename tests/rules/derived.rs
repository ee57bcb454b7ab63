//! The derived child (WIRE.md W7.18 to W7.23): what the create rules allow is accepted and
//! anything else refused, in both byte orders, the request and the reply written in the same
//! order. Baseline: `mkdir_request()` (0o040755, umask 022, fsgid 500) and `mkdir_reply()` (a
//! parent 0o040775 of group 600 with FLMODE and FLGID, no default ACL, a child 0o040755 of
//! group 500).

use super::*;
use bytes::Bytes;

const PROJ: u32 = 0x2000_0000;

fn outcome(r: &mut PrepareReply) -> &mut PrepareOutcome {
    r.outcome.as_mut().expect("the mkdir reply has a body")
}

fn child(r: &mut PrepareReply) -> &mut MdCreatePrepareRep {
    &mut outcome(r).body
}

fn set_pattr(r: &mut PrepareReply, f: impl FnOnce(&mut MdtBody)) {
    let attrs = Bytes::from(pattr_with(f));
    outcome(r).set_result(MliBuf::Pattr, PrepResult::Present(attrs));
}

/// The reply changed by `g`, written in `order`, judged against the request changed by `f`
/// written in the same order. The reply alone must be valid.
fn judged(
    order: Endian,
    f: impl FnOnce(&mut MdCreatePrepareReq),
    g: impl FnOnce(&mut PrepareReply),
) -> Result<(), DecodeError> {
    let mut req = mkdir_request();
    f(&mut req.body);
    let req = req.to_bytes(order).expect("a valid request");
    let ctx = RequestView::parse(&req).expect("valid").reply_context();
    let mut rep = mkdir_reply();
    g(&mut rep);
    let bytes = rep.to_bytes(order).expect("valid without its request");
    assert_eq!(
        ReplyView::parse(&bytes).expect("valid alone").order(),
        order
    );
    ReplyView::parse_for(&bytes, &ctx).map(drop)
}

/// Accepted in both byte orders.
fn accepted(
    what: &str,
    f: impl Fn(&mut MdCreatePrepareReq) + Copy,
    g: impl Fn(&mut PrepareReply) + Copy,
) {
    for order in [Endian::Little, Endian::Big] {
        if let Err(e) = judged(order, f, g) {
            panic!("{what} ({order}): {e}");
        }
    }
}

/// Refused in both byte orders, naming `rule` at `field` of `md_create_prepare_rep`.
fn refused(
    what: &str,
    rule: &str,
    field: &str,
    f: impl Fn(&mut MdCreatePrepareReq) + Copy,
    g: impl Fn(&mut PrepareReply) + Copy,
) {
    for order in [Endian::Little, Endian::Big] {
        let e = judged(order, f, g).expect_err(what);
        assert_eq!(e.rule(), rule, "{what} ({order}): {e}");
        at(&e, "md_create_prepare_rep", field);
    }
}

const fn same(_: &mut MdCreatePrepareReq) {}

#[test]
fn what_the_create_rules_derive_is_accepted() {
    accepted("the baseline", same, |_| {});
    accepted("fewer permission bits", same, |r| {
        child(r).child_mode = 0o040_700
    });
    accepted(
        "S_ISVTX kept",
        |q| q.child_mode = 0o041_755,
        |r| child(r).child_mode = 0o041_755,
    );
    accepted("an SGID parent's group and S_ISGID", same, |r| {
        set_pattr(r, |a| a.mode = 0o042_775);
        child(r).child_mode = 0o042_755;
        child(r).child_gid = 600;
    });
    accepted("a PROJINHERIT parent's project", same, |r| {
        set_pattr(r, |a| {
            a.valid |= MdtValid::FLFLAGS | MdtValid::FLPROJID;
            a.flags = PROJ;
            a.projid = 9;
        });
        child(r).child_projid = 9;
        child(r).child_flags = PROJ;
    });
    accepted("without PATTR the group is not checked", same, |r| {
        outcome(r).set_result(
            MliBuf::Pattr,
            PrepResult::Unknown(UnknownReason::NotProvided),
        );
        child(r).child_gid = 600;
    });
    accepted(
        "a default ACL replaces the umask",
        |q| q.child_mode = 0o040_777,
        |r| {
            let acl = include_bytes!("../../testdata/xattr_acl_default.bin");
            outcome(r).set_result(MliBuf::DefAcl, PrepResult::Present(Bytes::from_static(acl)));
            child(r).child_mode = 0o040_777;
        },
    );
    accepted(
        "a symlink keeps what the umask would take",
        |q| q.child_mode = 0o120_777,
        |r| child(r).child_mode = 0o120_777,
    );
    refused(
        "a FIFO keeps what the umask takes",
        "W7.20",
        "mcpp_child_mode",
        |q| q.child_mode = 0o010_777,
        |r| child(r).child_mode = 0o010_777,
    );
    accepted(
        "a file keeps S_ISGID",
        |q| q.child_mode = 0o102_755,
        |r| child(r).child_mode = 0o102_755,
    );
    accepted(
        "or loses it",
        |q| q.child_mode = 0o102_755,
        |r| child(r).child_mode = 0o100_755,
    );
}

#[test]
fn a_mode_of_no_type_is_refused_without_the_request() {
    for (mode, order) in [
        (0o176_755, Endian::Little),
        (0o240_755, Endian::Big),
        (0o755, Endian::Big),
    ] {
        let mut r = mkdir_reply();
        child(&mut r).child_mode = mode;
        let e = r.to_bytes(order).expect_err("the encoder refuses it too");
        assert!(e.to_string().contains("[W7.18]"), "{mode:#o}: {e}");
        let mut p = RepParts::from_value(&mkdir_reply(), order);
        body(&mut p).child_mode = mode;
        let e = rep_err(&p);
        assert_eq!(e.kind, ErrorKind::DerivedModeNotMode { got: mode });
        at(&e, "md_create_prepare_rep", "mcpp_child_mode");
    }
}

#[test]
fn flags_other_than_a_directory_s_projinherit_are_refused_without_the_request() {
    for (mode, flags) in [(0o040_755, 0x10), (0o040_755, PROJ | 1), (0o100_644, PROJ)] {
        let mut p = RepParts::mkdir();
        body(&mut p).child_mode = mode;
        body(&mut p).child_flags = flags;
        let e = rep_err(&p);
        assert_eq!(e.rule(), "W7.23", "{mode:#o} {flags:#x}: {e}");
        at(&e, "md_create_prepare_rep", "mcpp_child_flags");
    }
}

#[test]
fn a_derived_child_the_request_does_not_allow_is_refused() {
    let mode = "mcpp_child_mode";
    refused("a mkdir deriving a file", "W7.19", mode, same, |r| {
        child(r).child_mode = 0o100_755
    });
    refused(
        "a file request deriving a FIFO",
        "W7.19",
        mode,
        |q| q.child_mode = 0o100_644,
        |r| child(r).child_mode = 0o010_644,
    );
    refused(
        "S_ISUID on a directory",
        "W7.20",
        mode,
        |q| q.child_mode = 0o044_755,
        |r| child(r).child_mode = 0o044_755,
    );
    refused("a bit the request lacks", "W7.20", mode, same, |r| {
        child(r).child_mode = 0o040_757
    });
    refused(
        "a bit the umask takes",
        "W7.20",
        mode,
        |q| q.child_mode = 0o040_777,
        |r| child(r).child_mode = 0o040_777,
    );
    refused(
        "S_ISGID added to a file",
        "W7.20",
        mode,
        |q| q.child_mode = 0o100_755,
        |r| child(r).child_mode = 0o102_755,
    );
}

/// The type is checked before the flags: a mkdir deriving a file that carries PROJINHERIT is
/// refused for its type when the request is known, for its flags when not.
#[test]
fn a_file_with_projinherit_is_refused_for_its_type() {
    for order in [Endian::Little, Endian::Big] {
        let mut p = RepParts::from_value(&mkdir_reply(), order);
        body(&mut p).child_mode = 0o100_755;
        body(&mut p).child_flags = PROJ;
        let bytes = p.encode();
        let req = mkdir_request().to_bytes(order).expect("valid");
        let ctx = RequestView::parse(&req).expect("valid").reply_context();
        let e = ReplyView::parse_for(&bytes, &ctx).expect_err("a file for a mkdir");
        assert_eq!(
            e.kind,
            ErrorKind::DerivedTypeNotRequested {
                got: 0o100_755,
                requested: 0o040_755
            }
        );
        let e = ReplyView::parse(&bytes).expect_err("PROJINHERIT on a file");
        assert_eq!(e.rule(), "W7.23", "{e}");
    }
}

#[test]
fn group_and_project_follow_the_parent() {
    let sgid = |a: &mut MdtBody| a.mode = 0o042_775;
    let proj = |a: &mut MdtBody| {
        a.valid |= MdtValid::FLFLAGS | MdtValid::FLPROJID;
        a.flags = PROJ;
        a.projid = 9;
    };
    let (mode, gid) = ("mcpp_child_mode", "mcpp_child_gid");
    refused("S_ISGID without an SGID parent", "W7.21", mode, same, |r| {
        child(r).child_mode = 0o042_755
    });
    refused(
        "no S_ISGID under an SGID parent",
        "W7.21",
        mode,
        same,
        |r| {
            set_pattr(r, sgid);
            child(r).child_gid = 600;
        },
    );
    refused("the fsgid under an SGID parent", "W7.21", gid, same, |r| {
        set_pattr(r, sgid);
        child(r).child_mode = 0o042_755;
    });
    refused(
        "the parent's group without S_ISGID",
        "W7.21",
        gid,
        same,
        |r| child(r).child_gid = 600,
    );
    let e = judged(Endian::Little, same, |r| {
        set_pattr(r, sgid);
        child(r).child_mode = 0o042_755;
    })
    .expect_err("the fsgid under an SGID parent");
    assert_eq!(
        e.to_string(),
        "md_create_prepare_rep.mcpp_child_gid at offset 404: derived child gid 500, expected \
         600 (the parent has S_ISGID: its group) [W7.21]"
    );
    let (projid, flags) = ("mcpp_child_projid", "mcpp_child_flags");
    refused("no project under PROJINHERIT", "W7.22", projid, same, |r| {
        set_pattr(r, proj);
        child(r).child_flags = PROJ;
    });
    refused(
        "a directory without PROJINHERIT",
        "W7.22",
        flags,
        same,
        |r| {
            set_pattr(r, proj);
            child(r).child_projid = 9;
        },
    );
    refused(
        "a project without PROJINHERIT",
        "W7.22",
        projid,
        same,
        |r| {
            set_pattr(r, |a| a.valid |= MdtValid::FLFLAGS);
            child(r).child_projid = 9;
        },
    );
    refused(
        "PROJINHERIT without a parent's",
        "W7.22",
        flags,
        same,
        |r| {
            set_pattr(r, |a| a.valid |= MdtValid::FLFLAGS);
            child(r).child_flags = PROJ;
        },
    );
}

/// The `lu_fid`s of PATTR keep their f_ver when f_seq and f_oid are 0 (W11.10), in both orders.
#[test]
fn pattr_fids_keep_f_ver() {
    for order in [Endian::Little, Endian::Big] {
        let mut r = mkdir_reply();
        set_pattr(&mut r, |a| {
            a.fid1 = LuFid::new(0, 0, 5);
            a.fid2 = LuFid::new(0, 0, 0xffff_ffff);
        });
        let bytes = r.to_bytes(order).expect("valid");
        let v = ReplyView::parse(&bytes).expect("valid");
        let PrepResult::Present(attrs) = v.pattr() else {
            panic!("PATTR is present")
        };
        assert_eq!(
            (attrs.fid1, attrs.fid2),
            (LuFid::new(0, 0, 5), LuFid::new(0, 0, 0xffff_ffff))
        );
        assert_eq!(
            &v.to_value().to_bytes(order).expect("encodes")[..],
            &bytes[..]
        );
    }
}
