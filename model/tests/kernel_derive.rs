//! The Linux kernel as an oracle for the shared helper's create-time derivations (MODEL.md §2):
//! random parents (mode with SGID and sticky bits, owner, group, a default ACL or none, an
//! existing entry), random callers (uid, gid, supplementary groups, umask) creating files and
//! directories through `setpriv`, and the kernel's errno, mode, gid, access ACL and default ACL
//! compared with `prepare`'s answer.
//!
//! Lustre differs from Linux in listed places, which the test goes around, not through:
//! - Lustre stores the access ACL even when it is equivalent to the mode; Linux drops it. Where
//!   the kernel kept none, the helper's ACL must be equivalent to the mode.
//! - An immutable parent (Lustre EACCES, Linux EPERM) and PROJINHERIT (needs project quota) are
//!   not generated.
//!
//! Runs as root with setpriv, setfacl, getfattr and perl, in a temporary directory that takes
//! ACLs; without them it fails under CI (which runs as root and installs them) and prints
//! `SKIP …` elsewhere (`require`).

use lustre_dne_intent::intent::Operation;
use lustre_dne_intent::mode::{S_IFDIR, S_IFREG};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::AclView;
use lustre_dne_intent_model::Creds;
use lustre_dne_intent_model::mdd::{LocalSource, prepare};
use lustre_dne_intent_model::store::{Attrs, Entry, Object, Store, Xattrs};
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::Command;

mod require;

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[(self.next() % v.len() as u64) as usize]
    }
    fn chance(&mut self, n: u64) -> bool {
        self.next().is_multiple_of(n)
    }
}

fn run(cmd: &mut Command) -> String {
    let out = cmd.output().expect("command runs");
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The xattr `name` of `path` as bytes (getfattr -e hex), or None.
fn xattr(path: &Path, name: &str) -> Option<lustre_dne_intent::bytes::Bytes> {
    let out = Command::new("getfattr")
        .args(["--absolute-names", "-e", "hex", "-n", name])
        .arg(path)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let hex = text
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{name}=0x")))?;
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()
        .map(Into::into)
}

const UIDS: [u32; 3] = [41001, 41002, 41003];
const GIDS: [u32; 3] = [42001, 42002, 42003];

#[test]
fn the_kernel_agrees_with_the_shared_helper() {
    if !require::root("to create files as other users") {
        return;
    }
    let needed = [
        ("setpriv", "util-linux"),
        ("setfacl", "acl"),
        ("getfattr", "attr"),
        ("perl", "perl"),
    ];
    if !require::tools(&needed) {
        return;
    }
    let base = std::env::temp_dir().join(format!("dne-derive-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    std::fs::create_dir_all(&base).expect("scratch dir");
    run(Command::new("chmod").arg("755").arg(&base));
    // The filesystem must support ACLs (see `require`).
    if !Command::new("setfacl")
        .args(["-m", "u:41001:r"])
        .arg(&base)
        .status()
        .is_ok_and(|s| s.success())
    {
        require::unmet(&format!("{} has no POSIX ACL support", base.display()));
        return;
    }
    run(Command::new("setfacl").arg("-b").arg(&base));

    let acl_specs = [
        None,
        Some("u::rwx,g::r-x,o::r-x"),
        Some("u::rwx,g::rwx,o::---"),
        Some("u::rwx,g::r-x,g:42002:rwx,m::rwx,o::---"),
        Some("u::rwx,u:41002:rwx,g::r-x,m::r-x,o::r-x"),
        Some("u::rwx,g::rwx,g:42001:---,m::rwx,o::rwx"),
    ];
    let mut rng = Rng(0x5eed_d0e5_1234_5678);
    let (mut runs, mut created, mut failed) = (0, 0, 0);
    for case in 0..240 {
        let dir = base.join(format!("p{case}"));
        std::fs::create_dir(&dir).expect("parent");
        let p_uid = rng.pick(&UIDS);
        let p_gid = rng.pick(&GIDS);
        let mut perm = rng.pick(&[
            0o755u32, 0o775, 0o777, 0o707, 0o770, 0o700, 0o751, 0o1777, 0o733,
        ]);
        if rng.chance(2) {
            perm |= 0o2000;
        }
        run(Command::new("chown")
            .arg(format!("{p_uid}:{p_gid}"))
            .arg(&dir));
        run(Command::new("chmod").arg(format!("{perm:o}")).arg(&dir));
        let spec = rng.pick(&acl_specs);
        if let Some(spec) = spec {
            run(Command::new("setfacl")
                .arg("-d")
                .arg("-m")
                .arg(spec)
                .arg(&dir));
        }
        let exists = rng.chance(4);
        if exists {
            std::fs::create_dir(dir.join("c")).expect("existing entry");
        }
        let meta = std::fs::metadata(&dir).expect("stat parent");
        let c_uid = rng.pick(&[UIDS[0], UIDS[1], UIDS[2], p_uid]);
        let c_gid = rng.pick(&GIDS);
        let groups: Vec<u32> = GIDS.iter().copied().filter(|_| rng.chance(2)).collect();
        let umask = rng.pick(&[0o022u32, 0o002, 0o077, 0o000, 0o027]);
        let is_dir = rng.chance(2);
        let mode = rng.pick(&[0o755u32, 0o644, 0o2775, 0o2755, 0o777, 0o1777, 0o640]);

        let groups_arg = if groups.is_empty() {
            "--clear-groups".to_string()
        } else {
            format!(
                "--groups={}",
                groups
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            )
        };
        // perl (essential on Debian, readable by every user) makes the one syscall, umask set.
        let script = "use Fcntl; umask(oct($ARGV[0])); my ($p, $m, $k) = @ARGV[1..3]; \
            my $ok = $k eq 'd' ? mkdir($p, oct($m)) : sysopen(my $fh, $p, O_CREAT|O_EXCL|O_WRONLY, oct($m)); \
            print $ok ? 0 : -($! + 0), \"\\n\";";
        let out = run(Command::new("setpriv")
            .arg(format!("--reuid={c_uid}"))
            .arg(format!("--regid={c_gid}"))
            .arg(&groups_arg)
            .args(["--inh-caps=-all", "--", "perl", "-e", script])
            .arg(format!("{umask:o}"))
            .arg(dir.join("c"))
            .arg(format!("{mode:o}"))
            .arg(if is_dir { "d" } else { "f" }));
        let status: i32 = out.trim().parse().expect("status printed");

        // The same create through the shared helper.
        let parent_fid = LuFid::new(0x2_0000_0401, 1, 0);
        let mut obj = Object {
            attrs: Attrs {
                mode: meta.mode(),
                uid: meta.uid(),
                gid: meta.gid(),
                nlink: 2,
                ..Default::default()
            },
            xattrs: Xattrs {
                default_acl: xattr(&dir, "system.posix_acl_default"),
                access_acl: xattr(&dir, "system.posix_acl_access"),
                ..Default::default()
            },
            ..Default::default()
        };
        if exists {
            obj.entries.insert(
                b"c".to_vec(),
                Entry {
                    fid: LuFid::new(0x2_0000_0401, 2, 0),
                    ftype: S_IFDIR,
                },
            );
        }
        let mut store = Store::default();
        store.insert(parent_fid, obj);
        let creds = Creds {
            fsuid: c_uid,
            fsgid: c_gid,
            groups: groups.clone(),
            cap: 0,
            umask,
            groups_partial: false,
        };
        let child_mode = if is_dir { S_IFDIR } else { S_IFREG } | mode;
        let p = prepare(
            &mut LocalSource(&store),
            parent_fid,
            Operation::Create,
            Some(b"c"),
            child_mode,
            &creds,
        );
        let what = format!(
            "case {case}: parent {perm:o} {p_uid}:{p_gid} acl {spec:?} exists {exists}; caller {c_uid}:{c_gid} {groups:?} umask {umask:o}; {} {mode:o}",
            if is_dir { "mkdir" } else { "create" }
        );
        assert_eq!(p.status, status, "errno differs: {what}");
        runs += 1;
        if status != 0 {
            failed += 1;
            continue;
        }
        created += 1;
        let child = p.child.expect("a derived child");
        let c = dir.join("c");
        let cm = std::fs::metadata(&c).expect("stat child");
        assert_eq!(
            child.mode,
            cm.mode(),
            "mode differs ({:#o} vs kernel {:#o}): {what}",
            child.mode,
            cm.mode()
        );
        assert_eq!(child.gid, cm.gid(), "gid differs: {what}");
        match xattr(&c, "system.posix_acl_access") {
            Some(k) => assert_eq!(
                child.access_acl.as_deref(),
                Some(&k[..]),
                "access ACL differs: {what}"
            ),
            None => {
                // Linux dropped an ACL equivalent to the mode; Lustre stores it.
                if let Some(a) = &child.access_acl {
                    let eq = AclView::parse(a)
                        .expect("valid")
                        .equiv_mode()
                        .expect("non-empty");
                    assert!(
                        eq.equivalent,
                        "Linux dropped an access ACL the helper says is not equivalent: {what}"
                    );
                }
            }
        }
        assert_eq!(
            child.default_acl,
            xattr(&c, "system.posix_acl_default"),
            "default ACL differs: {what}"
        );
    }
    let _ = std::fs::remove_dir_all(&base);
    println!(
        "checked {runs} creates against the kernel: {created} succeeded, {failed} failed with the same errno"
    );
    assert!(
        created > 40 && failed > 20,
        "the cases reach both outcomes: {created} created, {failed} failed"
    );
}
