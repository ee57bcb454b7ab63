#!/usr/bin/env python3
"""Synthetic trusted.lov / trusted.lmv / trusted.dmv payloads of the kinds Lustre's upgrade
images lack (issue 10), built from the field tables of lustre_user.h with struct packing, and
the text lfs prints for each, from testdata/real/lfs_model.py (a transcription of
liblustreapi.c at lustre-release c881f8ebcbd1, independent of the crate).

    python3 testdata/synth/gen_synth.py          # rewrites testdata/synth/*

Writes, for each case NAME: NAME.bin (the payload), NAME.lfs (`lfs getstripe -v` or
`lfs getdirstripe [-D] -v`), NAME.yaml (the `--yaml` form), NAME.md (what it is), and one
line of cases.txt: `NAME XATTR LAYOUT_OF PATH FID MDT STRIPE_MDTS` ('-' for none), the facts
lfs takes from outside the payload, which the tests pass as options.
"""

import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "real"))
import lfs_model  # noqa: E402

EOF = (1 << 64) - 1
V1, V3, SPECIFIC, COMP, FOREIGN, SEL = (0x0BD10BD0, 0x0BD30BD0, 0x0BD50BD0,
                                        0x0BD60BD0, 0x0BD70BD0, 0x0BD80BD0)
RAID0, MDT, RELEASED = 0x1, 0x100, 0x80000000
INIT, STALE, PREFER, NOSYNC, EXTENSION = 0x10, 0x1, 0x6, 0x20, 0x40


def pool16(name):
    b = name.encode()
    return b + b"\0" * (16 - len(b))


def lmm(magic, pattern, oi, size, count, union, pool=None, objects=()):
    """lov_user_md_v1/_v3: oi = (lmm_oi_id, lmm_oi_seq), objects = [(oi_id, oi_seq, idx)]."""
    b = struct.pack("<IIQQIHH", magic, pattern, oi[0], oi[1], size, count, union)
    if magic != V1:
        b += pool16(pool or "")
    for oid, seq, idx in objects:
        b += struct.pack("<QQII", oid, seq, 0, idx)
    return b


def comp(entries, magic=COMP, flags=0, mirrors=0, gen=1):
    """lov_comp_md_v1: entries = [(id, flags, start, end, time_and_id, blob)]."""
    table = 32 + 48 * len(entries)
    size = table + sum(len(e[5]) for e in entries)
    b = struct.pack("<IIIHHHB13x", magic, size, gen, flags, len(entries), mirrors, 0)
    off = table
    for eid, efl, start, end, tid, blob in entries:
        b += struct.pack("<IIQQIIIQ4x", eid, efl, start, end, off, len(blob), 0, tid)
        off += len(blob)
    for e in entries:
        b += e[5]
    assert len(b) == size
    return b


def foreign(magic, ftype, flags, value):
    return struct.pack("<IIII", magic, len(value), ftype, flags) + value


def lmv_master(count, master, hash_type, fids):
    b = struct.pack("<IIIIIII4x8x", 0x0CD20CD0, count, master, hash_type, 0, 0, 0)
    b += b"\0" * 16
    for seq, oid, ver in fids:
        b += struct.pack("<QII", seq, oid, ver)
    return b


def dmv(count, offset, hash_type, mi, rr, pool=""):
    return struct.pack("<IiIIIBB10x", 0x0CD30CD0, count, offset, hash_type, 0, mi, rr) + pool16(pool)


FILE_OI = (0x21, 0x200000401)  # lmm_oi of the file [0x200000401:0x21:0x0]
DIR_FID = (0x200000401, 0x2, 0x0)

# name, xattr, layout_of, path, fid, mdt, stripe_mdts, payload, what
CASES = [
    ("lov_v3_pool", "trusted.lov", "file", "/mnt/lustre/v3_file", None, None, (),
     lmm(V3, RAID0, FILE_OI, 4 << 20, 2, 2, "flash",
         [(0x280000400, 0x11, 1), (0x2c0000400, 0x12, 3)]),
     "a file's V3 layout in pool `flash`, 2 stripes on FID-sequence OST objects, layout generation 2"),
    ("lov_specific_dir", "trusted.lov", "dir", "/mnt/lustre/spec_dir", DIR_FID, None, (),
     lmm(SPECIFIC, RAID0, (0, 0), 1 << 20, 2, 1, "flash", [(0, 0, 1), (0, 0, 3)]),
     "a directory's default layout with an explicit OST list (`lfs setstripe -o 1,3 -p flash`): "
     "LOV_USER_MAGIC_SPECIFIC, printed with the N/A object table"),
    ("lov_flr", "trusted.lov", "file", "/mnt/lustre/flr_file", None, None, (),
     comp([(0x10001, INIT | PREFER, 0, EOF, 0,
            lmm(V1, RAID0, FILE_OI, 1 << 20, 1, 0, objects=[(0x280000400, 0x5, 0)])),
           (0x20002, INIT | STALE | NOSYNC, 0, EOF, 1700000000 | (1 << 48),
            lmm(V1, RAID0, FILE_OI, 1 << 20, 1, 0, objects=[(0x2c0000400, 0x6, 1)]))],
          flags=2, mirrors=1, gen=5),
     "an FLR file with two mirrors in write-pending state: mirror 1 preferred, mirror 2 stale "
     "and nosync with a timestamp (1700000000) and mirror link id 1"),
    ("lov_sel", "trusted.lov", "file", "/mnt/lustre/sel_file", None, None, (),
     comp([(1, INIT, 0, 64 << 20, 0,
            lmm(V1, RAID0, FILE_OI, 1 << 20, 1, 0, objects=[(0x280000400, 0x7, 0)])),
           (2, EXTENSION, 64 << 20, EOF, 0,
            lmm(V1, RAID0, FILE_OI, 65536, 0, 0xffff, objects=[(0, 0, 0xffffffff)]))],
          magic=SEL, gen=2),
     "a self-extending layout as stored on disk (LOV_MAGIC_SEL): an instantiated 64 MiB "
     "component and an extension component of 64 MiB (stored in KiB) with its placeholder entry"),
    ("lov_dom", "trusted.lov", "file", "/mnt/lustre/dom_file", None, 2, (),
     comp([(1, INIT, 0, 1 << 20, 0, lmm(V1, MDT, FILE_OI, 1 << 20, 0, 0)),
           (2, INIT, 1 << 20, EOF, 0,
            lmm(V1, RAID0, FILE_OI, 1 << 20, 1, 0, objects=[(0x280000400, 0x8, 2)]))], gen=3),
     "a Data-on-MDT file: a 1 MiB component on the MDT (pattern `mdt`, no objects; the client "
     "reports the MDT index, given here as 2, in the union lfs prints as both lmm_layout_gen and "
     "lmm_mdt_index) and one OST stripe after it"),
    ("lov_foreign", "trusted.lov", "file", None, None, None, (),
     foreign(FOREIGN, 4, 1, b"bucket/obj-0001"),
     "a foreign layout (type S3); lfs prints no path line for it at the top level"),
    ("lov_released", "trusted.lov", "file", "/mnt/lustre/released_file", None, None, (),
     lmm(V1, RAID0 | RELEASED, FILE_OI, 1 << 20, 1, 3),
     "an HSM-released file: pattern `raid0,released`, no object entries stored (lod_lov.c), so "
     "the `lmm_stripe_offset` line, which lfs would read from a missing objects[0], is left out"),
    ("lov_pfl_uninit", "trusted.lov", "file", "/mnt/lustre/pfl_file", None, None, (),
     comp([(1, INIT, 0, 1 << 20, 0,
            lmm(V1, RAID0, FILE_OI, 1 << 20, 1, 0, objects=[(0x280000400, 0x9, 0)])),
           (2, 0, 1 << 20, EOF, 0,
            lmm(V1, RAID0, FILE_OI, 1 << 20, 4, 0xffff, objects=[(0, 0, 0xffffffff)]))], gen=1),
     "`lfs setstripe -E 1M -c 1 -E -1 -c 4`, written only below 1 MiB: the second component is "
     "not instantiated and holds one placeholder entry (l_ost_idx -1) against a count of 4"),
    ("lov_dir_default", "trusted.lov", "dir", "/mnt/lustre/dir", DIR_FID, None, (),
     lmm(V1, RAID0, (0, 0), 4 << 20, 2, 0xffff),
     "a directory's default layout (`lfs setstripe -c 2 -S 4M DIR`): a V1 template, printed on "
     "one line"),
    ("lov_dir_default_comp", "trusted.lov", "dir", "/mnt/lustre/pfl_dir", DIR_FID, None, (),
     comp([(1, 0, 0, 1 << 20, 0, lmm(V1, RAID0, (0, 0), 1 << 20, 1, 0xffff)),
           (2, 0, 1 << 20, EOF, 0, lmm(V3, RAID0, (0, 0), 4 << 20, 0xffff, 0xffff, "archive"))],
          gen=0),
     "a directory's default PFL layout: two uninstantiated template components, the second "
     "in pool `archive` over all OSTs"),
    ("lov_root_default", "trusted.lov", "dir", "/mnt/lustre", (0x200000007, 0x1, 0x0), None, (),
     lmm(V1, RAID0, (0, (1 << 64) - 1), 1 << 20, 1, 0xffff),
     "the file system default the MDT makes up for the root (lmm_oi sequence "
     "FID_SEQ_LOV_DEFAULT): lfs prefixes `(Default) `"),
    ("dmv_default", "trusted.dmv", "-", None, DIR_FID, None, (),
     dmv(2, 0xffffffff, 2, 3, 0),
     "a default LMV (`lfs setdirstripe -D -c 2 -i -1 --max-inherit 3`)"),
    ("dmv_default_pool", "trusted.dmv", "-", None, DIR_FID, None, (),
     dmv(-1, 1, 3, 0, 255, "ssd"),
     "a default LMV over all MDTs from MDT1, crush hash, unlimited inheritance, pool `ssd`"),
    ("lmv_master_fids", "trusted.lmv", "-", None, (0x200000401, 0x9, 0x0), 1, (1, 0),
     lmv_master(2, 1, 3, [(0x240000400, 0x3, 0), (0x200000401, 0x4, 0)]),
     "a striped directory's LMV as the MDT sends it (header and stripe FIDs), crush hash; the "
     "stripes' MDTs (1, 0) come from an FLD lookup, given here"),
    ("lmv_foreign", "trusted.lmv", "-", None, None, None, (),
     foreign(0x0CD50CD0, 0xda05, 0, b"/target/dir"),
     "a foreign LMV of type symlink"),
]


def text(xattr, payload, of, path, fid, mdt, mdts, yaml):
    if xattr == "trusted.lov":
        return lfs_model.getstripe(payload, path, yaml=yaml, is_dir=(of == "dir"),
                                   dir_fid=fid, mdt=mdt)
    return lfs_model.getdirstripe_payload(payload, dir_fid=fid, mdt=mdt,
                                          stripe_mdts=mdts, yaml=yaml)


def main():
    rows = []
    for name, xattr, of, path, fid, mdt, mdts, payload, what in CASES:
        with open(os.path.join(HERE, name + ".bin"), "wb") as f:
            f.write(payload)
        v = text(xattr, payload, of, path, fid, mdt, mdts, False)
        y = text(xattr, payload, of, path, fid, mdt, mdts, True)
        with open(os.path.join(HERE, name + ".lfs"), "w") as f:
            f.write(v)
        with open(os.path.join(HERE, name + ".yaml"), "w") as f:
            f.write(y)
        fid_s = "-" if fid is None else lfs_model.dfid(*fid)
        rows.append(" ".join([name, xattr, of, path or "-", fid_s,
                              "-" if mdt is None else str(mdt),
                              ",".join(map(str, mdts)) or "-"]))
        cmd = "lfs getstripe" if xattr == "trusted.lov" else (
            "lfs getdirstripe -D" if xattr == "trusted.dmv" else "lfs getdirstripe")
        with open(os.path.join(HERE, name + ".md"), "w") as f:
            f.write("# %s: %s\n\n" % (name, what))
            f.write("Synthetic `%s` (%d bytes), built by `gen_synth.py` from the field tables "
                    "of `lustre_user.h` (lustre-release c881f8ebcbd1); the kind does not occur "
                    "in Lustre's upgrade-test images (see `../real/README.md`).\n\n"
                    % (xattr, len(payload)))
            f.write("Outside facts (`cases.txt`, passed as options): layout of %s, path %s, "
                    "FID %s, MDT %s, stripe MDTs %s.\n\n"
                    % (of, path or "-", fid_s, "-" if mdt is None else mdt,
                       ",".join(map(str, mdts)) or "-"))
            f.write("`%s -v` (from `lfs_model.py`, a transcription of liblustreapi.c; tabs are "
                    "literal) is `%s.lfs`:\n\n```\n%s```\n\n" % (cmd, name, v))
            f.write("`%s --yaml` is `%s.yaml`:\n\n```\n%s```\n" % (cmd, name, y))
    with open(os.path.join(HERE, "cases.txt"), "w") as f:
        f.write("# NAME XATTR LAYOUT_OF PATH FID MDT STRIPE_MDTS  (written by gen_synth.py)\n")
        f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
