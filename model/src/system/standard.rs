//! The standard path, which defines the right decision: the MDD checks the coordinator makes
//! under its locks, the shared helper over a read of the parent's store, and a serial run of
//! completed operations (what serializability compares with).

use super::ops::{Decision, PARENT, SysOp, new_fid, target_fid};
use super::txn::{apply, update_for};
use crate::creds::{CAP_FOWNER, Creds};
use crate::mdd::{LocalSource, Lookup, ObjInfo, permission, prepare};
use crate::store::{Attrs, Object, Store};
use alloc::vec::Vec;
use lustre_dne_intent::errno::{EACCES, ENOENT, ENOTEMPTY, EPERM};
use lustre_dne_intent::mode::{LUSTRE_APPEND_FL, LUSTRE_IMMUTABLE_FL, S_ISVTX};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::acl::MAY_WRITE;

/// `mdd_unlink_sanity_check` and friends on the victim: what the coordinator checks once it
/// holds the victim's lock.
pub fn unlink_checks(creds: &Creds, parent: &Attrs, child: Option<&Object>) -> Result<(), i32> {
    let child = child.filter(|c| !c.dead).ok_or(-ENOENT)?;
    let c = &child.attrs;
    if parent.mode & S_ISVTX != 0
        && creds.fsuid != parent.uid
        && creds.fsuid != c.uid
        && !creds.capable(CAP_FOWNER)
    {
        return Err(-EPERM);
    }
    if c.flags & (LUSTRE_APPEND_FL | LUSTRE_IMMUTABLE_FL) != 0 {
        return Err(-EPERM);
    }
    if c.is_dir() && !child.entries.is_empty() {
        return Err(-ENOTEMPTY);
    }
    Ok(())
}

/// The source checks of a rename preparation: moving a directory to another parent rewrites
/// its "..", which needs write permission on it (`mdd_rename_sanity_check`).
pub fn rename_source_checks(creds: &Creds, source: &ObjInfo) -> Result<(), i32> {
    if source.attrs.is_dir() && !permission(source, creds, MAY_WRITE).allowed {
        return Err(-EACCES);
    }
    Ok(())
}

/// The owner check of a changer (`inode_owner_or_capable`).
pub fn change_checks(creds: &Creds, obj: &Attrs) -> Result<(), i32> {
    if creds.fsuid == obj.uid || creds.capable(CAP_FOWNER) {
        Ok(())
    } else {
        Err(-EPERM)
    }
}

fn info(store: &Store, fid: LuFid) -> Option<ObjInfo> {
    store.get(fid).map(|o| ObjInfo {
        attrs: o.attrs,
        dead: o.dead,
        access_acl: o.xattrs.access_acl.clone(),
    })
}

/// The standard path's decision: the shared helper over the store itself, with the caller's
/// full credentials. A decision taken under the locks must equal this.
pub fn standard(store: &Store, creds: &Creds, op: &SysOp) -> Decision {
    let err = Decision::Error;
    match op {
        SysOp::Set { target, .. } => {
            let Some(fid) = target_fid(store, *target) else {
                return err(-ENOENT);
            };
            match store.get(fid) {
                Some(o) if !o.dead => match change_checks(creds, &o.attrs) {
                    Ok(()) => Decision::Change(fid),
                    Err(e) => err(e),
                },
                _ => err(-ENOENT),
            }
        }
        _ => {
            let (Some(operation), Some(name)) = (op.operation(), op.name()) else {
                return err(-ENOENT);
            };
            let p = prepare(
                &mut LocalSource(store),
                PARENT,
                operation,
                Some(name),
                op.child_mode(),
                creds,
            );
            if p.status != 0 {
                return err(p.status);
            }
            let (victim, pattrs) = match (p.lookup, p.object, p.child) {
                (_, _, Some(child)) => return Decision::Create(child),
                (Lookup::Positive(e), Some(a), _) => (e.fid, a),
                _ => return err(-ENOENT),
            };
            match op {
                SysOp::Unlink { .. } => match unlink_checks(creds, &pattrs, store.get(victim)) {
                    Ok(()) => Decision::Remove(victim),
                    Err(e) => err(e),
                },
                _ => match info(store, victim) {
                    Some(src) if !src.dead => match rename_source_checks(creds, &src) {
                        Ok(()) => Decision::RenameReady(victim, src.attrs),
                        Err(e) => err(e),
                    },
                    _ => err(-ENOENT),
                },
            }
        }
    }
}

/// Runs `ops` (coordinator, op index, op, creds) serially by the standard path from `store`:
/// the decisions and the final store.
pub fn serial(store: &Store, ops: &[(u8, u8, &SysOp, &Creds)]) -> (Vec<Decision>, Store) {
    let mut s = store.clone();
    let mut out = Vec::with_capacity(ops.len());
    for (c, i, op, creds) in ops {
        let d = standard(&s, creds, op);
        if let Some(u) = update_for(op, &d, creds, new_fid(*c, *i)) {
            apply(&mut s, &u);
        }
        out.push(d);
    }
    (out, s)
}

#[cfg(test)]
mod tests {
    use super::super::ops::{Change, Target};
    use super::*;
    use crate::store::{dmv_bytes, lov_bytes};
    use lustre_dne_intent::bytes::Bytes;
    use lustre_dne_intent::mode::S_IFDIR;

    fn store() -> Store {
        let mut s = Store::default();
        s.insert(
            PARENT,
            Object {
                attrs: Attrs {
                    mode: S_IFDIR | 0o775,
                    uid: 500,
                    gid: 200,
                    nlink: 2,
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        s
    }

    fn creds(uid: u32, cap: u64) -> Creds {
        Creds {
            fsuid: uid,
            fsgid: uid,
            cap,
            umask: 0o022,
            ..Default::default()
        }
    }

    /// Every changer: the owner may, a stranger gets -EPERM, CAP_FOWNER may; the executor
    /// writes exactly the attribute or xattr named.
    #[test]
    fn changers_check_ownership_and_write_what_they_name() {
        let changes = [
            Change::Mode(0o700),
            Change::Owner(7, 8),
            Change::AccessAcl(Bytes::from_static(&[1, 2])),
            Change::DefaultAcl(Bytes::from_static(&[3])),
            Change::DefaultLov(lov_bytes(4)),
            Change::DefaultLmv(dmv_bytes(1, 0)),
            Change::Pin(Bytes::from_static(&[9])),
        ];
        for ch in changes {
            let op = SysOp::Set {
                target: Target::Parent,
                change: ch.clone(),
            };
            let s = store();
            assert_eq!(standard(&s, &creds(600, 0), &op), Decision::Error(-EPERM));
            assert_eq!(
                standard(&s, &creds(600, 1 << CAP_FOWNER), &op),
                Decision::Change(PARENT)
            );
            let d = standard(&s, &creds(500, 0), &op);
            assert_eq!(d, Decision::Change(PARENT));
            let (ds, after) = serial(&s, &[(0, 0, &op, &creds(500, 0))]);
            assert_eq!(ds, [d]);
            let p = after.get(PARENT).unwrap();
            match ch {
                Change::Mode(m) => assert_eq!(p.attrs.mode, S_IFDIR | m),
                Change::Owner(u, g) => assert_eq!((p.attrs.uid, p.attrs.gid), (u, g)),
                Change::AccessAcl(v) => assert_eq!(p.xattrs.access_acl, Some(v)),
                Change::DefaultAcl(v) => assert_eq!(p.xattrs.default_acl, Some(v)),
                Change::DefaultLov(v) => assert_eq!(p.xattrs.lov, Some(v)),
                Change::DefaultLmv(v) => assert_eq!(p.xattrs.dmv, Some(v)),
                Change::Pin(v) => assert_eq!(p.xattrs.pin, Some(v)),
            }
        }
    }

    /// mkdir then rmdir by the standard path: the entry, the object and the parent's nlink.
    #[test]
    fn serial_mkdir_then_rmdir() {
        let s = store();
        let c = creds(500, 0);
        let mkdir = SysOp::Create {
            name: 0,
            mode: S_IFDIR | 0o755,
        };
        let rmdir = SysOp::Unlink { name: 0 };
        let (ds, mid) = serial(&s, &[(1, 0, &mkdir, &c)]);
        assert!(matches!(&ds[0], Decision::Create(ch) if ch.mode == S_IFDIR | 0o755));
        assert_eq!(mid.get(PARENT).unwrap().attrs.nlink, 3);
        assert_eq!(
            mid.get(PARENT)
                .unwrap()
                .entries
                .get(&b"a"[..])
                .map(|e| e.fid),
            Some(new_fid(1, 0))
        );
        let (ds, end) = serial(&s, &[(1, 0, &mkdir, &c), (1, 1, &rmdir, &c)]);
        assert_eq!(ds[1], Decision::Remove(new_fid(1, 0)));
        assert_eq!(end, s);
        // A second create of the same name fails as the helper says.
        let (ds, _) = serial(&s, &[(0, 0, &mkdir, &c), (1, 0, &mkdir, &c)]);
        assert_eq!(ds[1], Decision::Error(-lustre_dne_intent::errno::EEXIST));
    }
}
