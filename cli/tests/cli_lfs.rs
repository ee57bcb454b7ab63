//! `dne-intent xattr` as `lfs getstripe -v` / `lfs getdirstripe -v` over the real payloads
//! (`testdata/real`) and the synthetic kinds (`testdata/synth`), with the options that give it
//! what the payload does not hold; and the JSON of the real payloads against their field
//! tables' values.

use std::process::Command;

fn data(sub: &str, name: &str) -> String {
    format!("{}/../testdata/{sub}/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn tool(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
        .args(args)
        .output()
        .expect("the tool runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("text")
}

#[test]
fn synthetic_kinds_print_like_lfs() {
    let cases = std::fs::read_to_string(data("synth", "cases.txt")).unwrap();
    let mut n = 0;
    for line in cases.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split(' ').collect();
        let mut args = vec!["xattr", "--name", f[1]];
        for (flag, v) in [
            ("--layout-of", f[2]),
            ("--path", f[3]),
            ("--fid", f[4]),
            ("--mdt", f[5]),
            ("--stripe-mdts", f[6]),
        ] {
            if v != "-" {
                args.extend([flag, v]);
            }
        }
        let bin = data("synth", &format!("{}.bin", f[0]));
        args.push(&bin);
        let want = std::fs::read_to_string(data("synth", &format!("{}.lfs", f[0]))).unwrap();
        assert_eq!(tool(&args), want, "{}", f[0]);
        args.insert(1, "--yaml");
        let want = std::fs::read_to_string(data("synth", &format!("{}.yaml", f[0]))).unwrap();
        assert_eq!(tool(&args), want, "{} --yaml", f[0]);
        n += 1;
    }
    assert_eq!(n, 15);
}

#[test]
fn real_layout_prints_like_lfs() {
    // testdata/real/lov_v1_2_10_fidseq_ost0.md, "What lfs prints".
    let out = tool(&[
        "xattr",
        "--path",
        "/mnt/lustre/remote_dir/init.d/README",
        &data("real", "lov_v1_2_10_fidseq_ost0.bin"),
    ]);
    assert_eq!(
        out,
        "/mnt/lustre/remote_dir/init.d/README\n\
         lmm_magic:         0x0BD10BD0\n\
         lmm_seq:           0x240000402\n\
         lmm_object_id:     0x6\n\
         lmm_fid:           [0x240000402:0x6:0x0]\n\
         lmm_stripe_count:  1\n\
         lmm_stripe_size:   1048576\n\
         lmm_pattern:       raid0\n\
         lmm_layout_gen:    0\n\
         lmm_stripe_offset: 0\n\
         \tobdidx\t\t objid\t\t objid\t\t group\n\
         \t     0\t             3\t          0x3\t   0x280000400\n\n"
    );
    // getfattr input: the `# file:` line is lfs's path line.
    let hexed: String = std::fs::read(data("real", "lov_v1_2_10_fidseq_ost0.bin"))
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = std::env::temp_dir().join(format!("dne-intent-cli-lfs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let g = dir.join("getfattr.txt");
    std::fs::write(
        &g,
        format!("# file: /mnt/lustre/f\ntrusted.lov=0x{hexed}\n"),
    )
    .unwrap();
    let out = tool(&["xattr", g.to_str().unwrap()]);
    assert!(
        out.starts_with("# file: /mnt/lustre/f\ntrusted.lov:\n/mnt/lustre/f\nlmm_magic:"),
        "{out}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn real_json_names_what_is_on_the_wire() {
    let hex64 = |v: u64| format!("{v:#018x}");
    let j: serde_json::Value = serde_json::from_str(&tool(&[
        "xattr",
        "--json",
        &data("real", "lov_comp_2_10_pfl.bin"),
    ]))
    .unwrap();
    // The field table of lov_comp_2_10_pfl.md: two components, one stripe each, on OST 0 and
    // 1, objects 0x43 on 0x280000400 and 0x42 on 0x2c0000400.
    let e = j["payload"]["lov_comp_md_v1"]["lcm_entries"]
        .as_array()
        .unwrap();
    assert_eq!(e.len(), 2);
    for (c, (idx, seq, id)) in e
        .iter()
        .zip([(0, 0x2_8000_0400u64, 0x43u64), (1, 0x2_c000_0400, 0x42)])
    {
        let l = &c["layout"]["lov_user_md"];
        assert_eq!(l["lmm_stripe_count"], 1);
        // A file's instantiated component: the union is lmm_layout_gen.
        assert_eq!(l["lmm_layout_gen"], 0);
        assert!(l.get("lmm_stripe_offset").is_none());
        let o = &l["lmm_objects"][0];
        assert_eq!(o["l_ost_idx"], idx);
        // The raw words, and the union read as lustre_ostid.h reads it.
        assert_eq!(
            (&o["l_ost_oi"]["oi_id"], &o["l_ost_oi"]["oi_seq"]),
            (&hex64(seq).into(), &hex64(id).into())
        );
        assert_eq!(o["ostid"]["form"], "fid");
        assert_eq!(
            (&o["ostid"]["seq"], &o["ostid"]["id"]),
            (&hex64(seq).into(), &hex64(id).into())
        );
        assert_eq!(o["fid"], format!("[{seq:#x}:{id:#x}:0x0]"));
    }
    // A legacy object: sequence 0, its IDIF FID on OST 1 (lov_v1_2_10_mdt0_ost1.md).
    let j: serde_json::Value = serde_json::from_str(&tool(&[
        "xattr",
        "--json",
        &data("real", "lov_v1_2_10_mdt0_ost1.bin"),
    ]))
    .unwrap();
    let o = &j["payload"]["lov_user_md"]["lmm_objects"][0];
    assert_eq!(
        (o["l_ost_idx"].as_u64(), o["ostid"]["form"].as_str()),
        (Some(1), Some("legacy"))
    );
    assert_eq!(o["ostid"]["seq"], hex64(0));
    let id = u64::from_str_radix(
        o["ostid"]["id"].as_str().unwrap().trim_start_matches("0x"),
        16,
    )
    .unwrap();
    assert_eq!(o["fid"], format!("[0x100010000:{id:#x}:0x0]"));
    // The on-disk master LMV says it is the header-only form, and round-trips.
    let lmv = data("real", "lmv_master_2_10_mdt1.bin");
    let j: serde_json::Value = serde_json::from_str(&tool(&["xattr", "--json", &lmv])).unwrap();
    let m = &j["payload"]["lmv_mds_md_v1"];
    assert_eq!(m["form"], "header_only");
    assert_eq!(m["lmv_stripe_count"], 2);
    assert_eq!(m["lmv_stripe_fids"].as_array().unwrap().len(), 0);
    // Read as a directory default, the same union is lmm_stripe_offset.
    let j: serde_json::Value = serde_json::from_str(&tool(&[
        "xattr",
        "--json",
        "--layout-of",
        "dir",
        &data("real", "lov_v1_2_9_ost0.bin"),
    ]))
    .unwrap();
    assert_eq!(j["payload"]["lov_user_md"]["lmm_stripe_offset"], 0);
    assert!(j["payload"]["lov_user_md"].get("lmm_layout_gen").is_none());
}

#[test]
fn every_real_and_synthetic_payload_round_trips_through_json() {
    let dir = std::env::temp_dir().join(format!("dne-intent-cli-lfs-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut n = 0;
    for sub in ["real", "synth"] {
        let mut names: Vec<_> = std::fs::read_dir(data(sub, ""))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "bin"))
            .collect();
        names.sort();
        for bin in names {
            let bin = bin.to_str().unwrap();
            let json = dir.join("p.json");
            std::fs::write(&json, tool(&["xattr", "--json", bin])).unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_dne-intent"))
                .args(["encode", "--force", json.to_str().unwrap()])
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{bin}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert_eq!(out.stdout, std::fs::read(bin).unwrap(), "{bin}");
            n += 1;
        }
    }
    assert_eq!(n, 30);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn decode_prints_results_as_the_parents_layouts() {
    // A reply's MLI_BUF_LOV is the parent directory's default layout (lfs getstripe -v DIR:
    // lmm_fid, then one line), its MLI_BUF_DEF_LMV the parent's default LMV (lfs getdirstripe
    // -D -v), both with the FID of the directory the lock names (lfs-output.md §4, §7).
    let out = tool(&[
        "decode",
        &format!(
            "{}/../testdata/mkdir_reply_complete.bin",
            env!("CARGO_MANIFEST_DIR")
        ),
    ]);
    assert!(
        out.contains(
            "MLI_BUF_LOV (trusted.lov): present, 32 bytes @ 824\n    lmm_fid:           \
             [0x200000401:0x1:0x0]\n    stripe_count:  2 stripe_size:   1048576 pattern:       \
             raid0 stripe_offset: -1\n\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            "    lmv_fid: 0x200000401:0x1:0x0 lmv_magic: 0xcd30cd0 lmv_stripe_count: 2 \
             lmv_stripe_offset: -1 lmv_hash_type: fnv_1a_64 lmv_max_inherit: 3 \
             lmv_max_inherit_rr: 0\n"
        ),
        "{out}"
    );
}
