//! Scenarios and faults from arbitrary bytes (feature `arbitrary`), for the `model_check` fuzz
//! target: the same small id pool and shapes as the proptest strategies, so that ownership,
//! group membership and ACL entries coincide often enough to matter.

use super::checker::Scenario;
use super::creds::Creds;
use super::operation::{Fault, Op};
use super::store::{Attrs, Entry, Object, Store, Xattrs, dmv_bytes, lov_bytes};
use alloc::vec::Vec;
use arbitrary::{Arbitrary, Result, Unstructured};
use lustre_dne_intent::bytes::Bytes;
use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent::mode::{LUSTRE_APPEND_FL, LUSTRE_IMMUTABLE_FL, LUSTRE_PROJINHERIT_FL};
use lustre_dne_intent::mode::{S_IFDIR, S_IFLNK, S_IFREG};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag};

const PARENT: LuFid = LuFid::new(0x2_0000_0401, 1, 0);
const IDS: [u32; 4] = [0, 100, 500, 600];

fn id(u: &mut Unstructured<'_>) -> Result<u32> {
    u.choose(&IDS).copied()
}

fn acl(u: &mut Unstructured<'_>) -> Result<Vec<u8>> {
    let mut e = Vec::new();
    e.push(AclEntry::new(
        AclTag::USER_OBJ,
        AclPerm(u.int_in_range(0..=7)?),
        0,
    ));
    let mut named = false;
    for (tag, obj) in [
        (AclTag::USER, AclTag::GROUP_OBJ),
        (AclTag::GROUP, AclTag::MASK),
    ] {
        let mut ids: Vec<u32> = (0..u.int_in_range(0..=2)?)
            .map(|_| id(u))
            .collect::<Result<_>>()?;
        ids.sort_unstable();
        ids.dedup();
        named |= !ids.is_empty();
        for i in ids {
            e.push(AclEntry::new(tag, AclPerm(u.int_in_range(0..=7)?), i));
        }
        // GROUP_OBJ always; MASK with named entries, and sometimes without.
        if obj == AclTag::GROUP_OBJ || named || u.arbitrary()? {
            e.push(AclEntry::new(obj, AclPerm(u.int_in_range(0..=7)?), 0));
        }
    }
    e.push(AclEntry::new(
        AclTag::OTHER,
        AclPerm(u.int_in_range(0..=7)?),
        0,
    ));
    Ok(Acl::new(e)
        .to_bytes()
        .map(|b| b.to_vec())
        .unwrap_or_default())
}

fn opt<T>(
    u: &mut Unstructured<'_>,
    f: impl FnOnce(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Option<T>> {
    if u.arbitrary()? {
        f(u).map(Some)
    } else {
        Ok(None)
    }
}

impl<'a> Arbitrary<'a> for Scenario {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let mut store = Store::default();
        let root_lov = opt(u, |u| Ok(lov_bytes(u.int_in_range(0..=3)?)))?;
        store.insert(
            LuFid::ROOT,
            Object {
                attrs: Attrs {
                    mode: S_IFDIR | 0o755,
                    ..Default::default()
                },
                xattrs: Xattrs {
                    lov: root_lov,
                    ..Default::default()
                },
                ..Default::default()
            },
        );
        let shape: u8 = u.int_in_range(0..=15)?;
        if shape < 14 {
            let perm: u32 = u.int_in_range(0..=0o7777)?;
            let flags = *u.choose(&[
                0,
                0,
                LUSTRE_PROJINHERIT_FL,
                LUSTRE_APPEND_FL,
                LUSTRE_IMMUTABLE_FL,
            ])?;
            let xattrs = Xattrs {
                access_acl: opt(u, acl)?.map(Bytes::from),
                default_acl: opt(u, acl)?.map(Bytes::from),
                pin: opt(u, |u| {
                    Ok(Bytes::from_static(
                        u.choose(&[&b"[pool: fast]"[..], b"[hsm: 3]"])?,
                    ))
                })?,
                lmv: None,
                lov: opt(u, |u| Ok(lov_bytes(u.int_in_range(0..=3)?)))?,
                dmv: opt(u, |u| {
                    Ok(dmv_bytes(
                        *u.choose(&[0, 1, 2, 3, 250, 251, 255])?,
                        *u.choose(&[0, 1, 3, 255])?,
                    ))
                })?,
            };
            let mode = if shape == 12 {
                S_IFREG | (perm & 0o777)
            } else {
                S_IFDIR | perm
            };
            let attrs = Attrs {
                mode,
                uid: id(u)?,
                gid: id(u)?,
                projid: 7,
                flags,
                nlink: 2,
                ..Default::default()
            };
            store.insert(
                PARENT,
                Object {
                    attrs,
                    xattrs,
                    dead: shape == 13,
                    ..Default::default()
                },
            );
            for (i, name) in [&b"a"[..], b"b"].into_iter().enumerate() {
                if u.arbitrary()? {
                    let fid = LuFid::new(0x2_0000_0401, 0x100 + i as u32, 0);
                    let dir: bool = u.arbitrary()?;
                    let mut child = Object {
                        attrs: Attrs {
                            mode: if dir { S_IFDIR } else { S_IFREG }
                                | u.int_in_range(0..=0o7777)?,
                            uid: id(u)?,
                            nlink: 1,
                            ..Default::default()
                        },
                        ..Default::default()
                    };
                    if u.ratio(1, 5)? {
                        child.attrs.flags = LUSTRE_APPEND_FL;
                    }
                    if dir && u.ratio(1, 4)? {
                        child.entries.insert(
                            b"x".to_vec(),
                            Entry {
                                fid: LuFid::new(0x2_0000_0402, 1, 0),
                                ftype: S_IFREG,
                            },
                        );
                    }
                    store.insert(fid, child);
                    store.link(PARENT, name, fid);
                }
            }
        }
        let mut groups: Vec<u32> = (0..u.int_in_range(0..=3)?)
            .map(|_| id(u))
            .collect::<Result<_>>()?;
        groups.sort_unstable();
        groups.dedup();
        if u.ratio(1, 20)? {
            groups.extend(1000..1130);
        }
        let creds = Creds {
            fsuid: id(u)?,
            fsgid: id(u)?,
            groups,
            cap: *u.choose(&[0u64, 0, 0, 1 << 1, 1 << 2, 1 << 3, 1 << 4])?,
            umask: *u.choose(&[0o022u32, 0o002, 0o077, 0])?,
            groups_partial: false,
        };
        let name = u
            .choose(&[&b"a"[..], b"b", b"new", b"..", b"x/y"])?
            .to_vec();
        // The renames onto an existing target and of a remote directory act on an object of
        // the store (or, rarely, on one it lacks).
        let fids: Vec<LuFid> = store.objects.keys().copied().collect();
        let object = match u.choose(&fids) {
            Ok(f) if !u.ratio(1, 16)? => *f,
            _ => LuFid::new(0x2_0000_0401, 0xdead, 0),
        };
        let op = match u.int_in_range(0..=6u8)? {
            0..=2 => {
                let t = *u.choose(&[S_IFDIR, S_IFREG, S_IFLNK])?;
                Op::Create {
                    parent: PARENT,
                    name,
                    mode: t | u.int_in_range(0..=0o7777)?,
                }
            }
            3 => Op::Unlink {
                parent: PARENT,
                name,
            },
            4 => Op::Rename {
                parent: PARENT,
                name,
            },
            5 => Op::RenameOver {
                parent: PARENT,
                name,
                target: object,
            },
            _ => Op::RenameDir { source: object },
        };
        Ok(Scenario { store, creds, op })
    }
}

impl<'a> Arbitrary<'a> for Fault {
    fn arbitrary(u: &mut Unstructured<'a>) -> Result<Self> {
        let all = Fault::all();
        let f = *u.choose(&all)?;
        Ok(match f {
            Fault::PartialGroups(_) => Fault::PartialGroups(u.int_in_range(0..=3)?),
            Fault::Unknown(_) => Fault::Unknown(*u.choose(&MliBuf::ALL)?),
            other => other,
        })
    }
}
