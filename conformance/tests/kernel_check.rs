//! The pieces of `conformance/lustre/kernel-check` that need no Lustre tree, no root, no qemu and
//! no kernel (`conformance/lustre/kc-lib.sh`): the reading of a guest's console into verdicts
//! and one summary line, the initramfs tree and archive, the module load order, and the RPC
//! counts of a Lustre debug log.
//!
//! They run through `bash`; the archive test also needs `cpio` and `gzip` (it prints `SKIP:`
//! without them, and fails under `CI=true`).
#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

fn lib() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("lustre/kc-lib.sh")
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kernel-check-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("create a scratch dir");
    d
}

/// `script` run by bash after sourcing the library: (exit code, stdout).
fn bash(script: &str) -> (i32, String) {
    let out = Command::new("bash")
        .arg("-c")
        .arg(format!(". '{}' && {script}", lib().display()))
        .output()
        .expect("bash runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The verdicts of a console log: (exit code, output lines).
fn verdicts(tag: &str, log: &str) -> (i32, Vec<String>) {
    let d = scratch(tag);
    let f = d.join("guest.log");
    std::fs::write(&f, log).expect("write the log");
    let (rc, out) = bash(&format!("kc_verdicts '{}'", f.display()));
    (rc, out.lines().map(str::to_string).collect())
}

const P: &str = "[    7.100000] lustre_dne_prepare_test_921: ";

/// A guest's console for a run of three cases: the lines of `cases`, then the module's summary.
fn run_log(cases: &str, summary: &str, tail: &str) -> String {
    format!(
        "KC: boot\r\nKC: load libcfs rc=0 \nKC: load dne_prepare_test rc=0 \nKC: dmesg begin\n\
         {cases}{P}3 cases: {summary}, 103 skipped\n{tail}KC: dmesg end\nKC: end\n"
    )
}

#[test]
fn a_clean_run_passes_with_one_verdict_per_vector_and_a_summary_last() {
    let cases = format!(
        "{P}11: passed\n{P}12: W5.9 refused by the DNE prepare checks\n\
         {P}13: W2.1 refused by the unwrap, as W2.2\n"
    );
    let log = run_log(
        &cases,
        "1 passed, 2 invalid refused (1 by another rule), 0 failed",
        &format!("{P}DNE prepare test passed\n"),
    );
    let (rc, lines) = verdicts("clean", &log);
    assert_eq!(rc, 0, "{lines:?}");
    assert_eq!(
        lines,
        [
            "vector 11: passed",
            "vector 12: W5.9 refused by the DNE prepare checks",
            "vector 13: W2.1 refused by the unwrap, as W2.2",
            "kernel-check: 3 passed, 0 failed, 103 skipped",
        ]
    );
}

#[test]
fn a_failed_vector_fails_and_names_why() {
    let cases = format!(
        "{P}11: passed\n{P}12: refused as W5.3\n{P}12: failed: the DNE prepare checks\n\
         {P}13: failed: invalid, but accepted\n{P}13: failed: invalid, but accepted\n"
    );
    let log = run_log(
        &cases,
        "1 passed, 0 invalid refused (0 by another rule), 2 failed",
        "",
    );
    let (rc, lines) = verdicts("failed", &log);
    assert_eq!(rc, 1);
    assert_eq!(
        lines[1],
        "vector 12: FAILED the DNE prepare checks (refused as W5.3)"
    );
    assert_eq!(lines[2], "vector 13: FAILED invalid, but accepted");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("kernel-check: 1 passed, 2 failed, 103 skipped")
    );
}

#[test]
fn a_line_seen_twice_counts_once_and_a_failure_stays() {
    // loglevel lets errors reach the console before the dump repeats them
    let cases = format!(
        "{P}12: failed: the capsule\n{P}11: passed\n{P}12: failed: the capsule\n\
         {P}13: passed\n{P}11: passed\n"
    );
    let log = run_log(
        &cases,
        "2 passed, 0 invalid refused (0 by another rule), 1 failed",
        "",
    );
    let (rc, lines) = verdicts("twice", &log);
    assert_eq!(rc, 1);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert_eq!(lines[0], "vector 12: FAILED the capsule");
    assert_eq!(lines[3], "kernel-check: 2 passed, 1 failed, 103 skipped");
}

#[test]
fn a_kernel_crash_a_load_failure_or_no_end_fails_a_run_whose_vectors_passed() {
    let cases = format!("{P}11: passed\n{P}12: passed\n{P}13: passed\n");
    let ok = "3 passed, 0 invalid refused (0 by another rule), 0 failed";
    let passed = format!("{P}DNE prepare test passed\n");
    for (tag, log, problem) in [
        (
            "lbug",
            run_log(
                &cases,
                ok,
                "[ 8.0] LustreError: 77:0:(pack_generic.c:1) LBUG\n",
            ) + &passed,
            "problem: kernel: [ 8.0] LustreError: 77:0:(pack_generic.c:1) LBUG",
        ),
        (
            "oops",
            run_log(&cases, ok, &format!("{passed}[ 9.0] Oops: 0000 [#1] SMP\n")),
            "problem: kernel: [ 9.0] Oops: 0000 [#1] SMP",
        ),
        (
            "load",
            run_log(&cases, ok, &passed).replace(
                "KC: load libcfs rc=0 ",
                "KC: load ptlrpc rc=1 insmod: can't insert 'ptlrpc.ko': Unknown symbol",
            ),
            "problem: module ptlrpc failed to load: ptlrpc rc=1 insmod: can't insert 'ptlrpc.ko': Unknown symbol",
        ),
        (
            "end",
            run_log(&cases, ok, &passed).replace("KC: end\n", ""),
            "problem: the guest did not reach the end of its run",
        ),
        (
            "count",
            run_log(&cases, ok, &passed).replace("3 cases", "4 cases"),
            "problem: the module ran 4 cases, the log shows 3",
        ),
    ] {
        let (rc, lines) = verdicts(tag, &log);
        assert_eq!(rc, 1, "{tag}: {lines:?}");
        assert!(lines.iter().any(|l| l == problem), "{tag}: {lines:?}");
        let last = lines.last().expect("a summary");
        assert!(
            last.starts_with("kernel-check: 3 passed, "),
            "{tag}: {last}"
        );
        assert!(last.ends_with(": FAIL)"), "{tag}: {last}");
    }
}

#[test]
fn no_module_summary_fails() {
    let log = "KC: boot\nKC: load dne_prepare_test rc=0 \nKC: end\n";
    let (rc, lines) = verdicts("nosummary", log);
    assert_eq!(rc, 1);
    assert!(lines.contains(&"problem: the test module printed no summary".to_string()));
    assert_eq!(
        lines.last().map(String::as_str),
        Some("kernel-check: 0 passed, 0 failed, 0 skipped (1 problem: FAIL)")
    );
}

/// Fake modules and a fake busybox in `d`, and the load list naming them.
fn fake_modules(d: &Path) -> PathBuf {
    for n in [
        "busybox",
        "e1000.ko",
        "libcfs.ko",
        "lnet.ko",
        "dne_prepare_test.ko",
    ] {
        std::fs::write(d.join(n), format!("fake {n}")).expect("write a fake file");
    }
    let list = d.join("load.list");
    std::fs::write(
        &list,
        format!(
            "e1000 {0}/e1000.ko\nlibcfs {0}/libcfs.ko\nlnet {0}/lnet.ko networks=tcp(eth0)\n\
             dne_prepare_test {0}/dne_prepare_test.ko run_id=921\n",
            d.display()
        ),
    )
    .expect("write the list");
    list
}

#[test]
fn the_initramfs_tree_holds_init_busybox_and_the_modules_in_order() {
    let d = scratch("stage");
    let list = fake_modules(&d);
    let stage = d.join("ir");
    let (rc, _) = bash(&format!(
        "kc_stage '{}' '{}' '{}'",
        stage.display(),
        d.join("busybox").display(),
        list.display()
    ));
    assert_eq!(rc, 0);
    let load = std::fs::read_to_string(stage.join("m/load")).expect("m/load");
    assert_eq!(
        load,
        "e1000\nlibcfs\nlnet networks=tcp(eth0)\ndne_prepare_test run_id=921\n"
    );
    assert_eq!(
        std::fs::read_to_string(stage.join("m/lnet.ko")).expect("lnet.ko"),
        "fake lnet.ko"
    );
    assert_eq!(
        std::fs::read_to_string(stage.join("bin/busybox")).expect("busybox"),
        "fake busybox"
    );
    let init = std::fs::read_to_string(stage.join("init")).expect("init");
    assert!(init.starts_with("#!/bin/busybox sh\n"));
    // eth0 comes up before ksocklnd, each load is reported, the log is dumped, then the end
    for (a, b) in [
        (
            "ip addr add 10.0.2.15/24 dev eth0",
            "insmod \"/m/$name.ko\" $args",
        ),
        ("echo \"KC: load $name rc=$rc", "echo \"KC: dmesg begin\""),
        ("dmesg\n", "echo \"KC: end\""),
        ("echo \"KC: end\"", "poweroff -f"),
    ] {
        let (ia, ib) = (init.find(a), init.find(b));
        assert!(ia.is_some() && ib.is_some() && ia < ib, "{a} before {b}");
    }
    // a module that is missing is an error, not a silent gap
    std::fs::remove_file(d.join("lnet.ko")).expect("remove lnet.ko");
    let (rc, _) = bash(&format!(
        "kc_stage '{}' '{}' '{}' 2>/dev/null",
        stage.display(),
        d.join("busybox").display(),
        list.display()
    ));
    assert_eq!(rc, 1);
}

#[test]
fn the_initramfs_archive_lists_the_tree() {
    let have = |t: &str| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {t}"))
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("cpio") || !have("gzip") {
        assert!(
            std::env::var_os("CI").is_none_or(|v| v != "true"),
            "cpio and gzip are needed under CI=true"
        );
        println!("SKIP: no cpio or gzip");
        return;
    }
    let d = scratch("cpio");
    let list = fake_modules(&d);
    let (rc, out) = bash(&format!(
        "kc_stage '{0}/ir' '{0}/busybox' '{1}' && kc_cpio '{0}/ir' '{0}/ir.cpio.gz' && \
         gzip -dc '{0}/ir.cpio.gz' | cpio -t --quiet",
        d.display(),
        list.display()
    ));
    assert_eq!(rc, 0);
    let names: Vec<&str> = out.lines().collect();
    for n in [
        "init",
        "bin/busybox",
        "m/load",
        "m/e1000.ko",
        "m/dne_prepare_test.ko",
        "proc",
        "dev",
    ] {
        assert!(names.contains(&n), "{n} in {names:?}");
    }
}

#[test]
fn modules_load_after_what_they_depend_on_each_once() {
    // a resolver that knows four modules: ptlrpc needs obdclass and lnet, lnet libcfs
    let resolver = "r() { case $1 in \
        libcfs) printf '/m/libcfs.ko\\n\\n';; \
        lnet) printf '/m/lnet.ko\\nlibcfs\\n';; \
        obdclass) printf '/m/obdclass.ko\\nlnet,libcfs\\n';; \
        ptlrpc) printf '/m/ptlrpc.ko\\nobdclass,lnet,libcfs\\n';; \
        *) return 1;; esac; }";
    let (rc, out) = bash(&format!("{resolver}; kc_depends_order r ptlrpc lnet"));
    assert_eq!(rc, 0);
    assert_eq!(
        out,
        "libcfs /m/libcfs.ko\nlnet /m/lnet.ko\nobdclass /m/obdclass.ko\nptlrpc /m/ptlrpc.ko\n"
    );
    let (rc, _) = bash(&format!(
        "{resolver}; kc_depends_order r ptlrpc nosuch 2>/dev/null"
    ));
    assert_eq!(rc, 1);
}

/// A debug log's "Sending RPC" lines, counted by thread (numbers dropped), import and opcode;
/// pings, statfs and the other lines of the log left out.
#[test]
fn rpc_counts_group_by_thread_import_and_opcode() {
    let d = scratch("rpc");
    let f = d.join("dk.txt");
    let line = |thread: &str, uuid: &str, opc: u32| {
        format!(
            "00000100:00100000:0.0:1796559234.5:0:205:0:(client.c:1914:ptlrpc_send_new_req()) \
             Sending RPC req@0000000012345678 pname:cluuid:pid:xid:nid:opc:job \
             {thread}:{uuid}:205:1796559234:0@lo:{opc}:lfs.0\n"
        )
    };
    let mdt1 = "lfs-MDT0001-mdtlov_UUID";
    let log = [
        line("mdt00_001", mdt1, 1000),
        line("mdt00_003", mdt1, 1000),
        line("osp_up0-1", mdt1, 1000),
        line("mdt00_001", mdt1, 101),
        line("mdt00_001", "lfs-MDT0000-lwp-MDT0001_UUID", 900),
        line("ptlrpcd_00_01", mdt1, 103),
        line("ptlrpcd_00_01", mdt1, 400),
        line("mdt00_001", mdt1, 41),
        line("mdt00_001", mdt1, 4242),
        "00000100:00100000:0.0:1.0:0:205:0:(client.c:2407:ptlrpc_check_set()) Completed RPC \
         req@0000000012345678 pname:cluuid:pid:xid:nid:opc:job mdt00_001:x:1:2:0@lo:1000:j\n"
            .to_string(),
    ]
    .concat();
    std::fs::write(&f, log).expect("write the log");
    let (rc, out) = bash(&format!("kc_rpc_counts '{}'", f.display()));
    assert_eq!(rc, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "1 mdt lfs-MDT0000-lwp-MDT0001_UUID FLD_QUERY",
            "1 mdt lfs-MDT0001-mdtlov_UUID LDLM_ENQUEUE",
            "2 mdt lfs-MDT0001-mdtlov_UUID OUT_UPDATE",
            "1 mdt lfs-MDT0001-mdtlov_UUID opc=4242",
            "1 osp_up lfs-MDT0001-mdtlov_UUID OUT_UPDATE",
            "1 ptlrpcd lfs-MDT0001-mdtlov_UUID LDLM_CANCEL",
        ]
    );
}

/// `conformance/lustre/mdt-check` with `args`: (exit code, stderr). Every case here is refused
/// before the script installs, builds or boots anything.
fn mdt_check(args: &[&str]) -> (i32, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("lustre/mdt-check");
    let out = Command::new("bash")
        .arg(script)
        .args(args)
        .output()
        .expect("bash runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn mdt_check_refuses_missing_or_mixed_arguments_before_doing_anything() {
    let d = scratch("mdt-args");
    let tree = d.join("tree");
    std::fs::create_dir_all(tree.join("lustre/ptlrpc")).expect("mkdir");
    std::fs::write(tree.join("lustre/ptlrpc/layout.c"), "").expect("write");
    let tree = tree.to_str().expect("utf-8 path");
    let work = d.join("work");
    let work = work.to_str().expect("utf-8 path");
    let cases: [(&[&str], &str); 6] = [
        (&[], "--tree must name a lustre-release tree"),
        (
            &["--tree", tree, "--work", work],
            "--ldiskfs-patch must name",
        ),
        (
            &["--tree", tree, "--ldiskfs-patch", "/nonexistent.patch"],
            "--ldiskfs-patch must name",
        ),
        (&["--built", work], "--built must name a built server tree"),
        (
            &["--built", work, "--tree", tree],
            "--built takes no --tree",
        ),
        (&["--built", work, "--flag", "2"], "--flag 0|1|both"),
    ];
    for (args, want) in cases {
        let (rc, err) = mdt_check(args);
        assert_eq!(rc, 2, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let (rc, err) = mdt_check(&["--tree"]);
    assert_eq!((rc, err.trim()), (2, "mdt-check: --tree needs a value"));
    assert!(
        !d.join("work").exists(),
        "nothing made before the checks pass"
    );
}

#[test]
fn the_mdt_guest_init_parses_and_lists_the_design_steps_in_order() {
    let (rc, init) = bash("kc_mdt_init");
    assert_eq!(rc, 0);
    let d = scratch("mdt-init");
    let f = d.join("init");
    std::fs::write(&f, &init).expect("write init");
    let syntax = Command::new("sh")
        .arg("-n")
        .arg(&f)
        .status()
        .expect("sh runs");
    assert!(syntax.success(), "the init parses as sh");
    let steps = [
        "[ \"$name\" = mdt ] && args=\"dne_prepare=$dnep\"",
        "target /dev/vda /mnt/mdt0 --mgs --mdt --index=0",
        "target /dev/vdb /mnt/mdt1 --mdt --index=1 --mgsnode=10.0.2.15@tcp",
        "echo \"KC: flags $o",
        "target /dev/vdc /mnt/ost0 --ost --index=0 --mgsnode=10.0.2.15@tcp",
        "mount.lustre 10.0.2.15@tcp:/lfs /mnt/lfs",
        "op 1 lfs-mkdir-i1 lfs mkdir -i 1 /mnt/lfs/remote",
        "op 3 lfs-mkdir-i0-remote-parent lfs mkdir -i 0 /mnt/lfs/remote/back",
        "op 4 mkdir-in-back mkdir /mnt/lfs/remote/back/leaf",
        "echo \"KC: end\"",
    ];
    let mut at = 0;
    for s in steps {
        let i = init[at..]
            .find(s)
            .unwrap_or_else(|| panic!("{s} after byte {at}"));
        at += i + s.len();
    }
}

#[test]
fn the_mke2fs_wrapper_drops_dirdata_and_keeps_the_rest() {
    let d = scratch("mke2fs");
    let (rc, w) = bash("kc_mke2fs_wrapper");
    assert_eq!(rc, 0);
    // the real wrapper execs Debian's mke2fs; this one prints what it would pass
    let w = w.replace("exec /sbin/mke2fs \"$@\"", "printf '%s|' \"$@\"");
    assert!(!w.contains("/sbin/mke2fs"));
    let f = d.join("mke2fs");
    std::fs::write(&f, w).expect("write the wrapper");
    let out = Command::new("sh")
        .arg(&f)
        .args([
            "-q",
            "-O",
            "dirdata,uninit_bg,^resize_inode",
            "-E",
            "lazy_itable_init=0",
            "/dev/vda",
        ])
        .output()
        .expect("sh runs");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "-q|-O|uninit_bg,^resize_inode|-E|lazy_itable_init=0|/dev/vda|"
    );
}

/// A two-MDT guest's console: flags, op 1 with a sent intent and its RPCs, op 2, where
/// `remote` is, then `tail`.
fn mdt_log(flags: &str, op2_rc: u32, tail: &str) -> String {
    let rpc = |thread: &str, opc: u32| {
        format!(
            "00000100:00100000:0.0:1.5:0:205:0:(client.c:1914:ptlrpc_send_new_req()) Sending RPC \
             req@00000000abcd pname:cluuid:pid:xid:nid:opc:job \
             {thread}:lfs-MDT0001-mdtlov_UUID:205:17:0@lo:{opc}:lfs.0\n"
        )
    };
    format!(
        "KC: boot dne_prepare=1\r\nKC: load libcfs rc=0 \nKC: load mdt rc=0 \n\
         KC: flags osp.lfs-MDT0001-osp-MDT0000 [ version, second_flags{flags} ]\n\
         KC: flags osp.lfs-MDT0000-osp-MDT0001 [ version, second_flags{flags} ]\n\
         KC: client mount rc=1\nKC: op 1 lfs-mkdir-i1 begin\n{}{}{}\
         00000004:00100000:0.0:1.6:0:412:0:(osp_md_object.c:1028:osp_dne_prepare_reply()) \
         lfs-MDT0000-osp-MDT0001: DNE prepare dne_create_prepare remote: granted, the empty result\n\
         KC: op 1 end rc=0\nKC: op 2 mkdir-local begin\nKC: op 2 end rc={op2_rc}\n\
         KC: where remote mdt=1 fid=[0x240000401:0x1:0x0]\n{tail}",
        rpc("mdt00_001", 101),
        rpc("mdt00_003", 101),
        rpc("osp_up0-1", 1000),
    )
}

#[test]
fn the_mdt_report_shows_flags_verdicts_and_counts_per_operation() {
    let d = scratch("mdt-report");
    let f = d.join("guest.log");
    std::fs::write(&f, mdt_log(", dne_prepare", 0, "KC: end\n")).expect("write");
    let (rc, out) = bash(&format!("kc_mdt_report '{}'", f.display()));
    assert_eq!(rc, 0, "{out}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "dne_prepare=1",
            "osp.lfs-MDT0001-osp-MDT0000: dne_prepare negotiated",
            "osp.lfs-MDT0000-osp-MDT0001: dne_prepare negotiated",
            "op 1 lfs-mkdir-i1 rc=0",
            "  DNE prepare dne_create_prepare remote: granted, the empty result",
            "  2 mdt lfs-MDT0001-mdtlov_UUID LDLM_ENQUEUE",
            "  1 osp_up lfs-MDT0001-mdtlov_UUID OUT_UPDATE",
            "op 2 mkdir-local rc=0",
            "where remote mdt=1 fid=[0x240000401:0x1:0x0]",
        ]
    );
    std::fs::write(&f, mdt_log("", 0, "KC: end\n")).expect("write");
    let (rc, out) = bash(&format!("kc_mdt_report '{}'", f.display()));
    assert_eq!(rc, 0, "{out}");
    assert!(
        out.contains("osp.lfs-MDT0001-osp-MDT0000: dne_prepare not negotiated\n"),
        "{out}"
    );
}

#[test]
fn the_mdt_report_fails_on_a_failed_operation_a_crash_or_no_end() {
    let d = scratch("mdt-report-fail");
    let f = d.join("guest.log");
    let cases = [
        (
            mdt_log(", dne_prepare", 1, "KC: end\n"),
            "op 2 mkdir-local rc=1",
        ),
        (
            mdt_log(
                ", dne_prepare",
                0,
                "KC: kernel LustreError: LBUG\nKC: end\n",
            ),
            "KC: kernel",
        ),
        (
            mdt_log(", dne_prepare", 0, ""),
            "problem: the guest did not reach the end",
        ),
        (
            mdt_log("", 0, "KC: end\n").replace("KC: client mount rc=1", "KC: client mount rc=0"),
            "problem: no client mount",
        ),
        (
            mdt_log("", 0, "KC: end\n").replace("load mdt rc=0", "load mdt rc=1 Unknown symbol"),
            "KC: load mdt rc=1",
        ),
    ];
    for (log, want) in cases {
        std::fs::write(&f, &log).expect("write");
        let (rc, out) = bash(&format!("kc_mdt_report '{}'", f.display()));
        assert_eq!(rc, 1, "{want}: {out}");
        assert!(out.contains(want), "{want}: {out}");
    }
}

#[test]
fn two_boots_have_the_same_outcome_only_with_the_same_directories_and_fids() {
    let d = scratch("mdt-same");
    let (one, two) = (d.join("r1"), d.join("r0"));
    let report = |flag: u32, fid: &str| {
        format!("dne_prepare={flag}\nop 1 lfs-mkdir-i1 rc=0\nwhere remote mdt=1 fid={fid}\n")
    };
    let same = |a: &str, b: &str| {
        std::fs::write(&one, a).expect("write");
        std::fs::write(&two, b).expect("write");
        bash(&format!(
            "kc_mdt_same_outcome '{}' '{}'",
            one.display(),
            two.display()
        ))
        .0
    };
    let fid = "[0x240000401:0x1:0x0]";
    assert_eq!(same(&report(1, fid), &report(0, fid)), 0);
    assert_eq!(
        same(&report(1, fid), &report(0, "[0x240000401:0x2:0x0]")),
        1
    );
    assert_eq!(
        same("dne_prepare=1\n", "dne_prepare=0\n"),
        1,
        "no directories: not shown"
    );
}

/// The build tree gets a source tree's files and its symbolic links (Lustre's
/// `lustre/utils/erasurecode` links its sources from `lustre/ec`), and a second sync copies only
/// what changed, so make rebuilds only that.
#[test]
fn the_build_sync_keeps_links_and_copies_only_what_changed() {
    let d = scratch("mdt-sync");
    let (from, to) = (d.join("from"), d.join("to"));
    std::fs::create_dir_all(from.join("ec")).expect("mkdir");
    std::fs::create_dir_all(from.join("utils")).expect("mkdir");
    std::fs::write(from.join("ec/ec_base.c"), "int ec;\n").expect("write");
    std::fs::write(from.join("utils/keep.c"), "int keep;\n").expect("write");
    std::os::unix::fs::symlink("../ec/ec_base.c", from.join("utils/ec_base.c")).expect("link");
    let build = Path::new(env!("CARGO_MANIFEST_DIR")).join("lustre/mdt-build.sh");
    let sync = || {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!(
                ". '{}' && mdt_sync '{}' '{}'",
                build.display(),
                from.display(),
                to.display()
            ))
            .output()
            .expect("bash runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    sync();
    let link = std::fs::read_link(to.join("utils/ec_base.c")).expect("a link in the build tree");
    assert_eq!(link, Path::new("../ec/ec_base.c"));
    assert_eq!(
        std::fs::read_to_string(to.join("utils/ec_base.c")).expect("the link resolves"),
        "int ec;\n"
    );
    // An old mtime on the synced copy shows whether the next sync rewrote it.
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
    let keep = std::fs::File::options()
        .write(true)
        .open(to.join("utils/keep.c"))
        .expect("open");
    keep.set_modified(old).expect("set mtime");
    std::fs::write(from.join("ec/ec_base.c"), "int ec2;\n").expect("write");
    sync();
    let mtime = |p: &str| {
        std::fs::metadata(to.join(p))
            .and_then(|m| m.modified())
            .expect("mtime")
    };
    assert_eq!(
        mtime("utils/keep.c"),
        old,
        "an unchanged file was copied again"
    );
    assert_eq!(
        std::fs::read_to_string(to.join("utils/ec_base.c")).expect("the link resolves"),
        "int ec2;\n"
    );
    assert!(mtime("ec/ec_base.c") > old);
}
