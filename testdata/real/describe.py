#!/usr/bin/env python3
"""Write testdata/real/NAME.md for each NAME.bin chosen by extract.py.

    describe.py SELECT_DIR OUT_DIR
    describe.py --refresh OUT_DIR     # only the "Current crate output" sections

SELECT_DIR holds NAME.bin and NAME.json from `extract.py ... --select`; the
.md files (provenance, field table, what lfs prints) go to OUT_DIR.  Not
used by the tests.
"""

import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lfs_model  # noqa: E402

T32 = ("lustre/tests/conf-sanity.sh `test_32newtarball` (line 1309) built the image on a "
       "real %s server; `t32_test` (line 2010) mounts it on the new code and "
       "checks it.")
T108 = ("a file-level backup (tar with xattrs) of a Lustre 2.11 MDT, made "
        "for conf-sanity.sh `test_108a`/`test_108b` (lines 9470, 9534; "
        "`t_108_check`, line 9418, reads remote_dir/ and striped_dir/ "
        "through a client).")

# name -> (client path, title, context notes, extra for LMV)
CONTEXT = {
    "lov_v1_2_7_orphan": (
        "/mnt/lustre/.lustre/fid/[0x200000bd0:0x1:0x0]",
        "an open-unlinked orphan's layout (PENDING/), Lustre 2.7",
        T32 % "2.7.22.1" + " The file sat in the MDT's PENDING/ directory "
        "(open but unlinked when the image was taken), so a client reaches "
        "it only by FID.", None),
    "lov_v1_2_9_ost0": (
        "/mnt/lustre/init.d/README", "a plain 1-stripe file, Lustre 2.9",
        T32 % "2.9.0" + " test_32newtarball untars /etc into the single "
        "MDT's root with the default layout (1 stripe, 1 MiB).", None),
    "lov_v1_2_10_mdt0_ost1": (
        "/mnt/lustre/striped_dir_old/init.d/README",
        "a plain file on OST0001 with a legacy {id, seq=0} object, in "
        "stripe 1 of a striped directory, Lustre 2.10",
        T32 % "2.10.0" + " With two MDTs test_32newtarball runs `lfs mkdir -i "
        "1 -c 2 striped_dir_old` and untars /etc into it; this entry landed "
        "in stripe 1 (on MDT0).", None),
    "lov_v1_2_10_fidseq_ost0": (
        "/mnt/lustre/remote_dir/init.d/README",
        "a plain file whose object is on a FID sequence (MDT1's OST "
        "sequence 0x280000400), Lustre 2.10",
        T32 % "2.10.0" + " test_32newtarball runs `lfs mkdir -i 1 "
        "remote_dir` and untars /etc into it, so MDT1 allocated the OST "
        "objects from its own FID sequences.", None),
    "lov_v1_2_10_setstripe_c1": (
        "/mnt/lustre/remote_dir/project_quota_dir/pj_quota_file_old",
        "`lfs setstripe -c 1` on a remote directory, Lustre 2.10",
        T32 % "2.10.0" + " test_32newtarball: `lfs setstripe "
        "$pj_quota_file_old -c 1` (conf-sanity.sh:1388).", None),
    "lov_comp_2_10_pfl": (
        "/mnt/lustre/remote_dir/pfl_dir/pfl_file",
        "a PFL file with two instantiated components, Lustre 2.10",
        T32 % "2.10.0" + " test_32newtarball: `lfs setstripe -E 2M -c1 -o0 "
        "-E -1 -S2M -c1 -o1 $pfl_dir`, then `dd bs=1M count=3` into "
        "pfl_file (conf-sanity.sh:1407-1410), so both components are "
        "instantiated. t32_test checks (conf-sanity.sh:2790-2824): "
        "`--component-count` = 2, `-I1 -E` = 2097152, `-I1 -i` = 0, "
        "`-I2 -i` = 1, `-I1 -S` = 1048576. The decode agrees with all five "
        "(component 2's stripe size is 2097152 from `-S2M`; t32 re-checks "
        "comp_size there by mistake).", None),
    "lov_v1_2_11_ldiskfs_ost0": (
        "/mnt/lustre/checksum.src", "a plain file, Lustre 2.11 ldiskfs MDT0",
        T108, None),
    "lov_v1_2_11_zfs_ost1": (
        "/mnt/lustre/checksum.src",
        "a plain file on OST0001 with a legacy object id, Lustre 2.11 ZFS "
        "MDT0", T108, None),
    "lov_v1_2_11_fidseq_ost1": (
        "/mnt/lustre/striped_dir/createmany.o",
        "a plain file on OST0001 whose object is on FID sequence "
        "0x2c0000400, Lustre 2.11 ZFS MDT1",
        T108 + " The file is in stripe 1 (on MDT1) of striped_dir.", None),
    "lmv_master_2_10_mdt1": (
        "/mnt/lustre/striped_dir_old",
        "a striped directory's master LMV as stored: 56-byte header, no "
        "stripe FIDs, Lustre 2.10",
        T32 % "2.10.0" + " `lfs mkdir -i 1 -c 2 striped_dir_old` "
        "(conf-sanity.sh:1360). The master lives on MDT1; its two stripe "
        "entries in the master's own directory are "
        "`[0x240000400:0x3:0x0]:0` (MDT1) and `[0x200000401:0x3:0x0]:1` "
        "(MDT0, under MDT0's REMOTE_PARENT_DIR).",
        {"fid": (0x240000402, 0x3c, 0), "mdt": 1,
         "stripes": [(1, (0x240000400, 0x3, 0)), (0, (0x200000401, 0x3, 0))]}),
    "lmv_stripe0_2_10_mdt1": (
        None, "stripe 0 of striped_dir_old (LMV_MAGIC_STRIPE), Lustre 2.10",
        T32 % "2.10.0" + " This is the stripe object "
        "`[0x240000400:0x3:0x0]:0` inside the master on MDT1.", None),
    "lmv_stripe1_2_10_mdt0": (
        None, "stripe 1 of striped_dir_old (LMV_MAGIC_STRIPE), Lustre 2.10",
        T32 % "2.10.0" + " This is the stripe object [0x200000401:0x3:0x0] "
        "on MDT0 (REMOTE_PARENT_DIR/0x200000401:0x3:0x0).", None),
    "lmv_master_2_11_mdt0": (
        "/mnt/lustre/striped_dir",
        "a striped directory's master LMV as stored (header only), "
        "Lustre 2.11", T108 + " The tarball lists the stripes as "
        "`striped_dir/[0x200000400:0x2:0x0]:0` and "
        "`striped_dir/[0x240000401:0x2:0x0]:1`.",
        {"fid": (0x200000402, 0x2, 0), "mdt": 0,
         "stripes": [(0, (0x200000400, 0x2, 0)), (1, (0x240000401, 0x2, 0))]}),
    "lmv_stripe0_2_11_mdt0": (
        None, "stripe 0 of striped_dir (LMV_MAGIC_STRIPE), Lustre 2.11",
        T108, None),
    "lmv_stripe1_2_11_mdt1": (
        None, "stripe 1 of striped_dir (LMV_MAGIC_STRIPE), Lustre 2.11",
        T108 + " Stripe [0x240000401:0x2:0x0] on MDT1 "
        "(REMOTE_PARENT_DIR/0x240000401:0x2:0x0).", None),
}


def row(off, size, field, buf, meaning=""):
    raw = buf[off:off + size]
    if size in (2, 4, 8):
        v = int.from_bytes(raw, "little")
        val = "%d (%#x)" % (v, v)
    else:
        val = '"%s" + NULs' % raw.split(b"\0")[0].decode("latin-1") \
            if field.endswith("pool_name") else raw.hex()
    return "| %d | %d | %s | `%s` | %s | %s |" % (off, size, field, raw.hex(),
                                                  val, meaning)


def ost_rows(buf, base, i, label):
    o = base + 24 * i
    seq, oid = lfs_model.ostid(buf[o:o + 16])
    oi_seq = struct.unpack_from("<Q", buf, o + 8)[0]
    idx = struct.unpack_from("<I", buf, o + 20)[0]
    if oi_seq == 0:
        rule = ("oi_seq = 0: legacy {oi_id, oi_seq} form; ostid_seq() = 0, "
                "ostid_id() = oi_id = %d" % oid)
        fid = lfs_model.ostid_to_fid(buf[o:o + 16], idx)
        rule += "; ostid_to_fid() gives IDIF %s" % lfs_model.dfid(*fid)
    else:
        rule = ("oi_fid form (FID sequence): f_seq = %#x, f_oid = %d; "
                "ostid_seq() = %#x, ostid_id() = %d" %
                (seq, oid, seq, oid))
    return [row(o, 8, "%s[%d].l_ost_oi bytes 0-7 (oi_id / f_seq)" % (label, i),
                buf),
            row(o + 8, 8, "%s[%d].l_ost_oi bytes 8-15 (oi_seq / f_oid+f_ver)"
                % (label, i), buf, rule),
            row(o + 16, 4, "%s[%d].l_ost_gen" % (label, i), buf),
            row(o + 20, 4, "%s[%d].l_ost_idx" % (label, i), buf,
                "OST index %d" % idx)]


def lmm_rows(buf, base, prefix="", file_layout=True):
    magic = struct.unpack_from("<I", buf, base)[0]
    oi_id, oi_seq = struct.unpack_from("<QQ", buf, base + 8)
    scount = struct.unpack_from("<H", buf, base + 28)[0]
    rows = [
        row(base, 4, prefix + "lmm_magic", buf,
            {0x0BD10BD0: "LOV_MAGIC_V1", 0x0BD30BD0: "LOV_MAGIC_V3"}.get(
                magic, "?")),
        row(base + 4, 4, prefix + "lmm_pattern", buf,
            lfs_model.pattern_string(struct.unpack_from("<I", buf,
                                                        base + 4)[0])),
        row(base + 8, 8, prefix + "lmm_oi bytes 0-7", buf,
            "lmm_oi_id(): the file's FID oid (%#x)" % oi_id),
        row(base + 16, 8, prefix + "lmm_oi bytes 8-15", buf,
            "lmm_oi_seq(): the file's FID sequence (%#x)" % oi_seq),
        row(base + 24, 4, prefix + "lmm_stripe_size", buf),
        row(base + 28, 2, prefix + "lmm_stripe_count", buf),
        row(base + 30, 2, prefix + "lmm_layout_gen / lmm_stripe_offset", buf,
            "a file's instantiated layout: lmm_layout_gen" if file_layout
            else "template: lmm_stripe_offset"),
    ]
    objbase = base + 32
    if magic == 0x0BD30BD0:
        rows.append(row(base + 32, 16, prefix + "lmm_pool_name", buf))
        objbase = base + 48
    for i in range(scount):
        rows += ost_rows(buf, objbase, i, prefix + "lmm_objects")
    return rows


def lov_table(buf):
    magic = struct.unpack_from("<I", buf, 0)[0]
    if magic != 0x0BD60BD0:
        return lmm_rows(buf, 0)
    rows = [row(0, 4, "lcm_magic", buf, "LOV_MAGIC_COMP_V1"),
            row(4, 4, "lcm_size", buf, "whole payload"),
            row(8, 4, "lcm_layout_gen", buf),
            row(12, 2, "lcm_flags", buf, "0: no FLR state"),
            row(14, 2, "lcm_entry_count", buf),
            row(16, 2, "lcm_mirror_count", buf, "mirrors - 1"),
            row(18, 1, "lcm_ec_count", buf),
            row(19, 13, "lcm_padding3/1/2", buf, "zero on disk")]
    count = struct.unpack_from("<H", buf, 14)[0]
    for i in range(count):
        e = 32 + 48 * i
        p = "lcm_entries[%d]." % i
        rows += [row(e, 4, p + "lcme_id", buf),
                 row(e + 4, 4, p + "lcme_flags", buf,
                     lfs_model.comp_flags_string(
                         struct.unpack_from("<I", buf, e + 4)[0])),
                 row(e + 8, 8, p + "lcme_extent.e_start", buf),
                 row(e + 16, 8, p + "lcme_extent.e_end", buf,
                     "EOF" if struct.unpack_from("<Q", buf, e + 16)[0]
                     == lfs_model.LUSTRE_EOF else ""),
                 row(e + 24, 4, p + "lcme_offset", buf),
                 row(e + 28, 4, p + "lcme_size", buf),
                 row(e + 32, 4, p + "lcme_layout_gen", buf),
                 row(e + 36, 8, p + "lcme_time_and_id", buf,
                     "timestamp 0, mirror link id 0"),
                 row(e + 44, 4, p + "lcme_dstripe/cstripe/compr bytes", buf)]
    for i in range(count):
        e = 32 + 48 * i
        off = struct.unpack_from("<I", buf, e + 24)[0]
        rows += lmm_rows(buf, off, "comp[%d] " % i)
    return rows


def lmv_table(buf):
    magic = struct.unpack_from("<I", buf, 0)[0]
    stripe = magic == 0x0CD40CD0
    return [
        row(0, 4, "lmv_magic", buf,
            "LMV_MAGIC_STRIPE (a stripe object)" if stripe
            else "LMV_MAGIC_V1 (master object)"),
        row(4, 4, "lmv_stripe_count", buf),
        row(8, 4, "lmv_master_mdt_index", buf,
            "on a stripe: this stripe's index" if stripe
            else "on the master: the master's MDT"),
        row(12, 4, "lmv_hash_type", buf, "low 16 bits: %s; flags %#x" % (
            (lfs_model.HASH_NAMES + ["?"] * 0x10000)[
                struct.unpack_from("<I", buf, 12)[0] & 0xffff],
            struct.unpack_from("<I", buf, 12)[0] & ~0xffff)),
        row(16, 4, "lmv_layout_version", buf),
        row(20, 4, "lmv_migrate_offset", buf),
        row(24, 4, "lmv_migrate_hash", buf),
        row(28, 4, "lmv_padding2", buf),
        row(32, 8, "lmv_padding3", buf),
        row(40, 16, "lmv_pool_name", buf),
    ]


def crate_args(name, xattr, fid):
    """What the tool is told besides the payload: the path lfs was given
    (a layout), the directory's FID (a master LMV)."""
    cpath = CONTEXT[name][0]
    if xattr == "trusted.lov":
        return ["--path", cpath]
    if name.startswith("lmv_master"):
        return ["--fid", fid]
    return []


def crate_output(name, xattr, bindir, fid):
    import subprocess
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "..", "..", "target", "debug", "dne-intent")
    args = ["xattr", "--name", xattr] + crate_args(name, xattr, fid)
    r = subprocess.run([exe] + args + [os.path.join(bindir, name + ".bin")],
                       capture_output=True, text=True)
    shown = " ".join(["dne-intent"] + args + ["testdata/real/%s.bin" % name])
    return r.returncode, r.stdout + r.stderr, shown


def crate_section(name, xattr, bindir, fid):
    rc, out, shown = crate_output(name, xattr, bindir, fid)
    return ["## Current crate output", "",
            "`%s` (exit %d, branch `lfs`, issue 10 fixed; tabs are "
            "literal):" % (shown, rc),
            "", "```", out + "```", ""]


def refresh(outdir):
    """Rewrites the last section of each NAME.md from the crate as built."""
    marks = ("## Current crate output (baseline for issue 10)",
             "## Current crate output")
    for name in CONTEXT:
        path = os.path.join(outdir, name + ".md")
        with open(path) as f:
            md = f.read()
        cut = min(md.find(m) for m in marks if md.find(m) >= 0)
        xattr = md.split("- Xattr: `")[1].split("`")[0]
        fid = md.split("Object FID (from its trusted.lma): `")[1].split("`")[0]
        md = md[:cut] + "\n".join(crate_section(name, xattr, outdir, fid))
        with open(path, "w") as f:
            f.write(md)


def main():
    seldir, outdir = sys.argv[1], sys.argv[2]
    for name, (cpath, title, notes, lmvx) in CONTEXT.items():
        with open(os.path.join(seldir, name + ".json")) as f:
            meta = json.load(f)
        with open(os.path.join(seldir, name + ".bin"), "rb") as f:
            buf = f.read()
        md = ["# %s: %s" % (name, title), ""]
        md += ["## Source", "",
               "- Image: `lustre/tests/%s` in lustre/lustre-release at commit "
               "`%s`" % (meta["image"], meta["commit"])]
        if meta["member"] != "-":
            md.append("- Inside: the `%s` ldiskfs image; read with `debugfs -c` "
                      "after clearing the DIRDATA incompat bit" % meta["member"])
        else:
            md.append("- Inside: PAX header `SCHILY.xattr.%s` of the tar "
                      "member" % meta["xattr"])
        md += ["- Path in the MDT: `%s`" % meta["path"]]
        if meta["inode"] is not None:
            md.append("- Inode: %d" % meta["inode"])
        md += ["- Object FID (from its trusted.lma): `%s`" % meta["fid"],
               "- Xattr: `%s`, %d bytes, sha1 `%s`" % (meta["xattr"],
                                                       meta["len"],
                                                       meta["sha1"]),
               "- Extracted by `testdata/real/extract.py`", "",
               "## How it was made", "", notes, "",
               "## Fields (little-endian)", "",
               "| offset | size | field | bytes | value | meaning |",
               "|---|---|---|---|---|---|"]
        if meta["xattr"] == "trusted.lov":
            md += lov_table(buf)
        else:
            md += lmv_table(buf)
        md += [""]
        md += ["## What lfs prints", ""]
        if meta["xattr"] == "trusted.lov":
            md += ["`lfs getstripe -v %s` (liblustreapi.c `llapi_lov_dump_user_lmm` "
                   "→ %s; tabs below are literal tab characters; the last "
                   "line is empty):" % (cpath,
                                        "`lov_dump_comp_v1` → "
                                        "`lov_dump_comp_v1_header`, "
                                        "`lov_dump_comp_v1_entry`, "
                                        "`lov_dump_user_lmm_v1v3`"
                                        if buf[:4] == b"\xd0\x0b\xd6\x0b"
                                        else "`lov_dump_plain_user_lmm` → "
                                        "`lov_dump_user_lmm_v1v3` → "
                                        "`lov_dump_user_lmm_header`"),
                   "", "```", lfs_model.getstripe(buf, cpath) + "```", "",
                   "`lfs getstripe --yaml %s`:" % cpath, "", "```",
                   lfs_model.getstripe(buf, cpath, yaml=True) + "```", ""]
        elif lmvx:
            count = struct.unpack_from("<I", buf, 4)[0]
            htype = struct.unpack_from("<I", buf, 12)[0]
            text = lfs_model.getdirstripe(0x0CD20CD0, count, lmvx["mdt"],
                                          htype, lmvx["stripes"],
                                          lmvx["fid"])
            md += ["`lfs getdirstripe -v %s` (liblustreapi.c "
                   "`lmv_dump_user_lmm`; the client fills the stripe table "
                   "in llite/dir.c `LL_IOC_LMV_GETSTRIPE` from the FIDs "
                   "that `lod_xattr_get`/`lod_load_lmv_shards` append; "
                   "`lmv_fid` is the directory's own FID from "
                   "`llapi_path2fid`, and `lmv_stripe_offset` is the MDT "
                   "holding the master; tabs are literal):" % cpath, "",
                   "```", text + "```", "",
                   "The stripe FIDs and MDT indices in that table are not "
                   "in this payload (it is the header only); they come "
                   "from the stripe entries named above. A decoder of the "
                   "payload alone can print the first line from "
                   "`lmv_fid: ` on only if told the directory's FID, and "
                   "the `mdtidx` header but no rows. "
                   "`lmv_layout_version`, `lmv_migrate_offset` and "
                   "`lmv_migrate_hash` are never passed to lfs "
                   "(dir.c builds an lmv_user_md), so lfs never prints them.",
                   ""]
        else:
            md += ["Nothing: a stripe object's LMV never reaches lfs. "
                   "`lfs getdirstripe` on the striped directory shows the "
                   "master (see the lmv_master_* files). The only place "
                   "Lustre renders a stripe LMV is the MDT debug log, "
                   "`mdt_dump_lmv()` (lustre/mdt/mdt_lib.c:880), as "
                   "`magic 0x%%08X, master %%#X stripe_count %%d hash_type %%#x`"
                   " — here: `magic 0x%08X, master %s stripe_count %d "
                   "hash_type %#x` (the \"master\" field is this stripe's "
                   "index). A crate text for this form is the crate's own; "
                   "say `stripe index`, not `lmv_stripe_offset`." % (
                       struct.unpack_from("<I", buf, 0)[0],
                       "%#X" % struct.unpack_from("<I", buf, 8)[0]
                       if struct.unpack_from("<I", buf, 8)[0] else "0",
                       struct.unpack_from("<I", buf, 4)[0],
                       struct.unpack_from("<I", buf, 12)[0]), ""]
        md += crate_section(name, meta["xattr"], outdir, meta["fid"])
        with open(os.path.join(outdir, name + ".md"), "w") as f:
            f.write("\n".join(md))


if __name__ == "__main__":
    if sys.argv[1] == "--refresh":
        refresh(sys.argv[2])
    else:
        main()
