//! POSIX ACLs against the Linux kernel: random ACLs are set with `setfacl` on a scratch file,
//! read back with `getfattr -e hex`, decoded and compared entry by entry; the crate's encoding
//! must equal the kernel's bytes and its `getfacl` renderer must equal `getfacl -n`. As root,
//! the permission evaluation is also compared with `access(2)` run under `setpriv`.
//!
//! Needs setfacl, getfacl (acl) and getfattr (attr), and a temporary directory that takes ACLs:
//! without them it fails under CI and prints `SKIP …` elsewhere (`require`). Outside CI, not as
//! root or without setpriv, the permission evaluation is left out (the closing line counts 0
//! permission checks); under CI it is required.

use lustre_dne_intent::xattr::acl::{MAY_EXEC, MAY_READ, MAY_WRITE};
use lustre_dne_intent::xattr::*;
use std::path::{Path, PathBuf};
use std::process::Command;

/// xorshift64*: a small seeded generator, so a failure names its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn scratch() -> std::io::Result<Scratch> {
    let dir = std::env::temp_dir().join(format!("xattr-acl-kernel-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)?;
    Ok(Scratch(dir))
}

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd.output().map_err(|e| format!("{cmd:?}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

fn rwx(p: u16) -> String {
    AclPerm(p).to_string()
}

/// A random valid ACL as a setfacl `--set` spec and the entries the kernel should store
/// (sorted, unnamed ids undefined).
fn random_acl(rng: &mut Rng) -> (String, Vec<AclEntry>) {
    let mut users: Vec<u32> = (0..rng.below(12))
        .map(|_| 1000 + rng.below(5000) as u32)
        .collect();
    let mut groups: Vec<u32> = (0..rng.below(12))
        .map(|_| 1000 + rng.below(5000) as u32)
        .collect();
    users.sort_unstable();
    users.dedup();
    groups.sort_unstable();
    groups.dedup();
    let mask = !users.is_empty() || !groups.is_empty() || rng.below(2) == 0;
    let mut entries = vec![AclEntry::new(
        AclTag::USER_OBJ,
        AclPerm(rng.below(8) as u16),
        0,
    )];
    entries.extend(
        users
            .iter()
            .map(|&u| AclEntry::new(AclTag::USER, AclPerm(rng.below(8) as u16), u)),
    );
    entries.push(AclEntry::new(
        AclTag::GROUP_OBJ,
        AclPerm(rng.below(8) as u16),
        0,
    ));
    entries.extend(
        groups
            .iter()
            .map(|&g| AclEntry::new(AclTag::GROUP, AclPerm(rng.below(8) as u16), g)),
    );
    if mask {
        entries.push(AclEntry::new(AclTag::MASK, AclPerm(rng.below(8) as u16), 0));
    }
    entries.push(AclEntry::new(
        AclTag::OTHER,
        AclPerm(rng.below(8) as u16),
        0,
    ));
    // Hand setfacl the entries in a shuffled order: it must sort them.
    let mut spec: Vec<String> = entries
        .iter()
        .map(|e| {
            let p = rwx(e.perm.bits());
            match e.tag {
                AclTag::USER_OBJ => format!("u::{p}"),
                AclTag::USER => format!("u:{}:{p}", e.id),
                AclTag::GROUP_OBJ => format!("g::{p}"),
                AclTag::GROUP => format!("g:{}:{p}", e.id),
                AclTag::MASK => format!("m::{p}"),
                _ => format!("o::{p}"),
            }
        })
        .collect();
    for i in (1..spec.len()).rev() {
        spec.swap(i, rng.below(i as u64 + 1) as usize);
    }
    (spec.join(","), entries)
}

fn read_hex(path: &Path, name: &str) -> Result<Vec<u8>, String> {
    let out = run(Command::new("getfattr")
        .args(["-e", "hex", "-n", name])
        .arg(path))?;
    let hex = out
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=0x")))
        .ok_or_else(|| format!("no {name} in getfattr output: {out}"))?;
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).map_err(|e| e.to_string()))
        .collect()
}

#[test]
fn random_acls_match_the_kernel() {
    let needed = [("setfacl", "acl"), ("getfacl", "acl"), ("getfattr", "attr")];
    if !crate::require::tools(&needed) {
        return;
    }
    let dir = scratch().expect("a scratch directory under the temporary directory");
    let file = dir.0.join("f");
    let sub = dir.0.join("d");
    std::fs::write(&file, b"").unwrap();
    std::fs::create_dir(&sub).unwrap();
    // Probe ACL support.
    if let Err(e) = run(Command::new("setfacl")
        .args(["-m", "u:1234:r--"])
        .arg(&file))
    {
        crate::require::unmet(&format!(
            "the filesystem under {} does not take ACLs: {e}",
            dir.0.display()
        ));
        return;
    }
    // The permission evaluation needs root and setpriv: required under CI (which runs as root),
    // left out elsewhere without them.
    let root = if crate::require::in_ci() {
        crate::require::root("to run access(2) as other users")
            && crate::require::tool("setpriv", "util-linux")
    } else {
        is_root() && crate::require::on_path("setpriv").is_some()
    };
    if root {
        // Let other uids reach the scratch file.
        run(Command::new("chmod").arg("0755").arg(&dir.0)).unwrap();
    }
    let seed = std::env::var("ACL_KERNEL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_ac1d_u64);
    let rounds: usize = std::env::var("ACL_KERNEL_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut rng = Rng(seed);
    let mut perm_checks = 0;
    let mut mask_zero_checks = 0;
    let mut create_checks = 0;
    for round in 0..rounds {
        let (spec, entries) = random_acl(&mut rng);
        let ctx = format!("seed {seed:#x} round {round}: setfacl --set {spec}");
        let (target, name, kind) = if round % 3 == 2 {
            (&sub, "system.posix_acl_default", AclKind::Default)
        } else {
            (&file, "system.posix_acl_access", AclKind::Access)
        };
        let flag = if kind == AclKind::Default {
            "-d"
        } else {
            "--set"
        };
        if kind == AclKind::Default {
            run(Command::new("setfacl").arg("-k").arg(target)).unwrap();
            run(Command::new("setfacl")
                .args([flag, "-m", &spec])
                .arg(target))
            .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        } else {
            run(Command::new("setfacl").args([flag, &spec]).arg(target))
                .unwrap_or_else(|e| panic!("{ctx}: {e}"));
        }
        if kind == AclKind::Access && entries.len() == 3 {
            // A minimal access ACL is equivalent to the mode: the kernel stores no xattr and
            // puts the permissions in the mode instead.
            assert!(read_hex(target, name).is_err(), "{ctx}: minimal ACL stored");
            let acl = Acl::new(entries.clone());
            let eq = acl.equiv_mode().unwrap();
            assert!(eq.equivalent, "{ctx}");
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(target).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, eq.mode, "{ctx}");
            continue;
        }
        let bytes = read_hex(target, name).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let view = AclView::parse(&bytes).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let got: Vec<AclEntry> = view.entries().collect();
        assert_eq!(got.len(), entries.len(), "{ctx}");
        for (i, (g, w)) in got.iter().zip(&entries).enumerate() {
            assert_eq!(g, w, "{ctx}: entry {i}");
        }
        // Our encoding is the kernel's, byte for byte.
        let ours = Acl::new(entries.clone()).to_bytes().unwrap();
        assert_eq!(&ours[..], &bytes[..], "{ctx}");
        // Our getfacl text is getfacl's.
        let text = run(Command::new("getfacl")
            .args(["-n", "--omit-header"])
            .arg(target))
        .unwrap();
        let theirs: String = text
            .lines()
            .filter(|l| !l.is_empty() && (kind == AclKind::Access) != l.starts_with("default:"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(view.getfacl(kind).to_string(), theirs, "{ctx}");

        // posix_acl_create against the kernel: a file (touch, 0666) and a directory (mkdir,
        // 0777) created under the default ACL with a umask the default ACL overrides.
        if kind == AclKind::Default {
            use std::os::unix::fs::PermissionsExt;
            for (made, req_mode, cmd) in
                [("file", 0o100666u32, "touch"), ("dir", 0o040777, "mkdir")]
            {
                let child = target.join(format!("{made}{round}"));
                run(Command::new("sh")
                    .arg("-c")
                    .arg(format!("umask 027; {cmd} \"$1\"",))
                    .arg("sh")
                    .arg(&child))
                .unwrap();
                let want = posix_acl_create(Some(&view), req_mode, 0o027);
                let mode = std::fs::metadata(&child).unwrap().permissions().mode();
                assert_eq!(mode & 0o7777, want.mode & 0o7777, "{ctx}: {made} mode");
                let access = read_hex(&child, "system.posix_acl_access").ok();
                if want.linux_keeps_access {
                    let got = AclView::parse(access.as_deref().unwrap())
                        .unwrap()
                        .to_value();
                    assert_eq!(Some(got), want.access, "{ctx}: {made} access ACL");
                } else {
                    assert_eq!(access, None, "{ctx}: {made} kept an equivalent access ACL");
                }
                let default = read_hex(&child, "system.posix_acl_default").ok();
                let default = default.map(|b| AclView::parse(&b).unwrap().to_value());
                assert_eq!(default, want.default, "{ctx}: {made} default ACL");
                create_checks += 1;
            }
        }

        // Permission evaluation against access(2), as other users.
        if root && kind == AclKind::Access {
            let owner_uid = 0;
            let owner_gid = 0;
            let named: Vec<u32> = entries
                .iter()
                .filter(|e| e.tag.is_named())
                .map(|e| e.id)
                .collect();
            for _ in 0..4 {
                let pick = |rng: &mut Rng| {
                    if !named.is_empty() && rng.below(3) != 0 {
                        named[rng.below(named.len() as u64) as usize]
                    } else {
                        1000 + rng.below(5000) as u32
                    }
                };
                let uid = pick(&mut rng);
                let gid = if rng.below(4) == 0 { 0 } else { pick(&mut rng) };
                let groups: Vec<u32> = (0..rng.below(3)).map(|_| pick(&mut rng)).collect();
                let want = [MAY_READ, MAY_WRITE, MAY_EXEC][rng.below(3) as usize];
                let test_flag = match want {
                    MAY_READ => "-r",
                    MAY_WRITE => "-w",
                    _ => "-x",
                };
                let gl = if groups.is_empty() {
                    "-".to_string()
                } else {
                    groups
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(",")
                };
                let status = Command::new("setpriv")
                    .arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={gid}"))
                    .arg(if groups.is_empty() {
                        "--clear-groups".to_string()
                    } else {
                        format!("--groups={gl}")
                    })
                    .args(["test", test_flag])
                    .arg(target)
                    .status()
                    .unwrap();
                let cred = Credentials {
                    fsuid: uid,
                    fsgid: gid,
                    groups: &groups,
                };
                use std::os::unix::fs::PermissionsExt;
                let mode = std::fs::metadata(target).unwrap().permissions().mode();
                let ours = generic_permission(mode, owner_uid, owner_gid, Some(&view), &cred, want);
                if mode & 0o070 != 0 {
                    assert_eq!(
                        ours,
                        view.permission(owner_uid, owner_gid, &cred, want).unwrap()
                    );
                } else {
                    mask_zero_checks += 1;
                }
                assert_eq!(
                    ours.allowed,
                    status.success(),
                    "{ctx}: uid {uid} gid {gid} groups {gl} want {want}: {ours:?}"
                );
                perm_checks += 1;
            }
        }
    }
    println!(
        "checked {rounds} kernel ACLs (seed {seed:#x}), {perm_checks} permission checks against \
         access(2), {mask_zero_checks} of them with zero group-class bits (ACL not consulted), \
         {create_checks} creations under a default ACL"
    );
}
