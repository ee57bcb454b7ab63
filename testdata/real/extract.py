#!/usr/bin/env python3
"""Pull real trusted.lov / trusted.lmv / ACL payloads out of Lustre's
upgrade-test images and survey their shapes.

Not used by the tests: it documents where testdata/real/*.bin came from and
lets anyone redo the extraction.

    extract.py LUSTRE_RELEASE_GIT_DIR SCRATCH_DIR [--select OUTDIR]

LUSTRE_RELEASE_GIT_DIR is a (bare) clone of lustre/lustre-release; the
images are read from its HEAD with `git show`.  SCRATCH_DIR receives the
unpacked images, a copy of every payload (raw/) and survey.json.  With
--select, the representative set listed in SELECT is copied to OUTDIR.

Needs debugfs (e2fsprogs) for the ldiskfs images.  ZFS pool images
(disk*-zfs.tar.bz2) are listed but not read: that would need a zpool import.

The decoder below is written from the field tables of lustre_idl.h and
lustre_user.h (little-endian, as every image here is x86_64).
"""

import hashlib
import json
import os
import re
import struct
import subprocess
import sys
import tarfile

WANTED = ("trusted.lov", "trusted.lmv", "trusted.dmv",
          "system.posix_acl_access", "system.posix_acl_default",
          "trusted.pin", "lustre.lov", "trusted.link", "trusted.lma")
# trusted.link and trusted.lma are read only to name the object; they are not
# surveyed as payloads.
PAYLOADS = WANTED[:7]

LOV_MAGIC = {0x0BD10BD0: "v1", 0x0BD30BD0: "v3", 0x0BD50BD0: "specific",
             0x0BD60BD0: "comp_v1", 0x0BD70BD0: "foreign",
             0x0BD80BD0: "sel"}
LMV_MAGIC = {0x0CD20CD0: "lmv_v1", 0x0CD30CD0: "lmv_user(default)",
             0x0CD40CD0: "lmv_stripe", 0x0CD50CD0: "lmv_foreign"}

FID_SEQ_IDIF = 0x100000000
FID_SEQ_IDIF_MAX = 0x1ffffffff
FID_SEQ_NORMAL = 0x200000400
FID_SEQ_LOV_DEFAULT = 0xffffffffffffffff
LCME_FLAGS = [(0x1, "stale"), (0x2, "prefrd"), (0x4, "prefwr"),
              (0x8, "offline"), (0x10, "init"), (0x20, "nosync"),
              (0x40, "extension"), (0x80, "parity"), (0x100, "compress"),
              (0x200, "partial"), (0x400, "nocompr")]


# ---------------------------------------------------------------- decoders

def ostid_fields(raw16):
    """(oi_id, oi_seq) = bytes 0-7, 8-15; the lu_fid view shares them."""
    oi_id, oi_seq = struct.unpack_from("<QQ", raw16)
    f_seq, f_oid, f_ver = struct.unpack_from("<QII", raw16)
    return oi_id, oi_seq, (f_seq, f_oid, f_ver)


def ostid_seq_id(raw16):
    """Lustre's ostid_seq()/ostid_id() (lustre_ostid.h), with the rule used."""
    oi_id, oi_seq, (f_seq, f_oid, _ver) = ostid_fields(raw16)
    if oi_seq == 0:                       # fid_seq_is_mdt0: old {id, seq=0}
        return 0, oi_id & ((1 << 48) - 1), "mdt0"
    if oi_seq == FID_SEQ_LOV_DEFAULT:     # fid_seq_is_default
        return FID_SEQ_LOV_DEFAULT, oi_id, "default"
    if FID_SEQ_IDIF <= f_seq <= FID_SEQ_IDIF_MAX:   # fid_is_idif(&oi_fid)
        # seq reads as 0; id is fid_idif_id(f_seq, f_oid, 0)
        return 0, ((f_seq & 0xffff) << 32) | f_oid, "idif"
    return f_seq, f_oid, "fid"            # fid_seq / fid_oid of oi_fid


def decode_objects(buf, off, n, limit):
    objs = []
    for i in range(n):
        o = off + 24 * i
        if o + 24 > limit:
            objs.append({"truncated_at": o})
            break
        raw = buf[o:o + 16]
        oi_id, oi_seq, fid = ostid_fields(raw)
        gen, idx = struct.unpack_from("<II", buf, o + 16)
        seq, oid, kind = ostid_seq_id(raw)
        objs.append({"i": i, "off": o, "oi_id": oi_id, "oi_seq": oi_seq,
                     "as_fid": "[%#x:%#x:%#x]" % fid, "l_ost_gen": gen,
                     "l_ost_idx": idx, "ostid_seq": seq, "ostid_id": oid,
                     "kind": kind})
    return objs


def decode_lov_v1v3(buf, base=0, limit=None):
    limit = len(buf) if limit is None else limit
    magic, pattern = struct.unpack_from("<II", buf, base)
    oi = buf[base + 8:base + 24]
    oi_id, oi_seq, _ = ostid_fields(oi)
    ssize, scount, gen = struct.unpack_from("<IHH", buf, base + 24)
    d = {"magic": "%#010x" % magic, "kind": LOV_MAGIC.get(magic, "?"),
         "lmm_pattern": "%#x" % pattern, "lmm_oi_id(bytes0-7)": "%#x" % oi_id,
         "lmm_oi_seq(bytes8-15)": "%#x" % oi_seq, "lmm_stripe_size": ssize,
         "lmm_stripe_count": scount, "lmm_layout_gen|stripe_offset": gen}
    hdr = 32
    if magic in (0x0BD30BD0, 0x0BD50BD0):
        pool = buf[base + 32:base + 48].split(b"\0")[0]
        d["lmm_pool_name"] = pool.decode("latin-1")
        hdr = 48
    n_room = (limit - base - hdr) // 24
    d["object_entries_present"] = n_room
    d["objects"] = decode_objects(buf, base + hdr, n_room, limit)
    d["trailing_bytes"] = (limit - base - hdr) % 24
    return d


def decode_lov(buf):
    magic = struct.unpack_from("<I", buf, 0)[0]
    if magic in (0x0BD60BD0, 0x0BD80BD0):
        (m, size, gen, flags, count, mirrors, ec) = struct.unpack_from(
            "<IIIHHHB", buf, 0)
        d = {"magic": "%#010x" % m, "kind": LOV_MAGIC[m], "lcm_size": size,
             "lcm_layout_gen": gen, "lcm_flags": flags,
             "lcm_entry_count": count, "lcm_mirror_count": mirrors,
             "lcm_ec_count": ec, "padding_nonzero": any(buf[15:32]),
             "entries": []}
        for i in range(count):
            e = 32 + 48 * i
            (eid, eflags, start, end, off, esz, egen, tid) = \
                struct.unpack_from("<IIQQIIIQ", buf, e)
            ent = {"lcme_id": eid, "lcme_flags": "%#x" % eflags,
                   "flag_names": [n for b, n in LCME_FLAGS if eflags & b],
                   "e_start": start,
                   "e_end": "EOF" if end == (1 << 64) - 1 else end,
                   "lcme_offset": off, "lcme_size": esz,
                   "lcme_layout_gen": egen, "lcme_time_and_id": tid,
                   "tail_bytes": buf[e + 44:e + 48].hex()}
            sub_magic = struct.unpack_from("<I", buf, off)[0]
            if sub_magic == 0x0BD70BD0:
                ent["sub"] = {"kind": "foreign"}
            else:
                ent["sub"] = decode_lov_v1v3(buf, off, off + esz)
            d["entries"].append(ent)
        return d
    if magic in (0x0BD10BD0, 0x0BD30BD0, 0x0BD50BD0):
        return decode_lov_v1v3(buf)
    if magic == 0x0BD70BD0:
        length, ftype, flags = struct.unpack_from("<III", buf, 4)
        return {"kind": "foreign", "lfm_length": length,
                "lfm_type": "%#x" % ftype, "lfm_flags": "%#x" % flags}
    return {"kind": "unknown", "magic": "%#x" % magic}


def decode_lmv(buf):
    magic = struct.unpack_from("<I", buf, 0)[0]
    if magic == 0x0CD50CD0:
        length, ftype, flags = struct.unpack_from("<III", buf, 4)
        return {"kind": "lmv_foreign", "lfm_length": length}
    if magic == 0x0CD30CD0 or magic == 0x0CD20CD0 and len(buf) == 48:
        (m, count, off, htype, ltype, inh, inh_rr) = struct.unpack_from(
            "<IiIIIBB", buf, 0)
        return {"kind": LMV_MAGIC.get(m), "lum_stripe_count": count,
                "lum_stripe_offset": off, "lum_hash_type": "%#x" % htype,
                "lum_max_inherit": inh, "lum_max_inherit_rr": inh_rr,
                "pool": buf[32:48].split(b"\0")[0].decode("latin-1")}
    (m, count, master, htype, lver, moff, mhash) = struct.unpack_from(
        "<IIIIIII", buf, 0)
    d = {"magic": "%#010x" % m, "kind": LMV_MAGIC.get(m, "?"),
         "lmv_stripe_count": count, "lmv_master_mdt_index": master,
         "lmv_hash_type": "%#x" % htype, "lmv_layout_version": lver,
         "lmv_migrate_offset": moff, "lmv_migrate_hash": "%#x" % mhash,
         "padding_nonzero": any(buf[28:40]),
         "pool": buf[40:56].split(b"\0")[0].decode("latin-1"),
         "fids_present": max(0, (len(buf) - 56) // 16)}
    d["form"] = ("header-only" if len(buf) == 56 else
                 "with-fids" if len(buf) == 56 + 16 * count else
                 "size-%d" % len(buf))
    d["fids"] = ["[%#x:%#x:%#x]" % struct.unpack_from("<QII", buf, 56 + 16 * i)
                 for i in range(d["fids_present"])]
    return d


def decode_acl(buf):
    ver = struct.unpack_from("<I", buf, 0)[0]
    ents = []
    for o in range(4, len(buf) - 7, 8):
        tag, perm, eid = struct.unpack_from("<HHI", buf, o)
        ents.append((tag, perm, eid))
    return {"kind": "posix_acl", "a_version": ver, "entries": ents}


def shape(name, buf):
    """A short label used to group payloads."""
    if name in ("trusted.lov", "lustre.lov"):
        d = decode_lov(buf)
        if d["kind"] in ("v1", "v3", "specific"):
            kinds = sorted({o["kind"] for o in d["objects"]})
            return "lov_%s_%dobj_%s%s" % (
                d["kind"], d["object_entries_present"], "+".join(kinds),
                "_pool" if d.get("lmm_pool_name") else "")
        if d["kind"] in ("comp_v1", "sel"):
            parts = []
            for e in d["entries"]:
                s = e["sub"]
                parts.append("%s/%s/%dobj" % (
                    "init" if "init" in e["flag_names"] else "uninit",
                    s.get("kind"), s.get("object_entries_present", 0)))
            return "lov_%s_%d:%s" % (d["kind"], d["lcm_mirror_count"] + 1,
                                    ",".join(parts))
        return "lov_" + d["kind"]
    if name in ("trusted.lmv", "trusted.dmv"):
        d = decode_lmv(buf)
        return "%s_%s" % (d["kind"], d.get("form", ""))
    return "acl"


def decode(name, buf):
    if name in ("trusted.lov", "lustre.lov"):
        return decode_lov(buf)
    if name in ("trusted.lmv", "trusted.dmv"):
        return decode_lmv(buf)
    if name.startswith("system.posix_acl"):
        return decode_acl(buf)
    return {}


def lma_fid(buf):
    if len(buf) >= 24:
        return "[%#x:%#x:%#x]" % struct.unpack_from("<QII", buf, 8)
    return None


# ---------------------------------------------------------------- readers

def debugfs(img, cmds):
    """Run debugfs -c with a command file; return [(cmd, output)]."""
    path = img + ".cmds"
    with open(path, "w") as f:
        f.write("\n".join(cmds) + "\n")
    out = subprocess.run(["debugfs", "-c", "-f", path, img],
                         capture_output=True, text=True,
                         errors="replace").stdout
    res, cur, buf = [], None, []
    for line in out.splitlines():
        if line.startswith("debugfs: "):
            if cur is not None:
                res.append((cur, buf))
            cur, buf = line[len("debugfs: "):], []
        else:
            buf.append(line)
    if cur is not None:
        res.append((cur, buf))
    return res


def clear_dirdata(img):
    """DIRDATA (incompat 0x1000) is Lustre-only; e2fsprogs refuses it."""
    with open(img, "r+b") as f:
        f.seek(1024 + 0x60)
        incompat = struct.unpack("<I", f.read(4))[0]
        f.seek(1024 + 0x60)
        f.write(struct.pack("<I", incompat & ~0x1000))


def walk_ldiskfs(img):
    """Yield (path, inode) for every inode reachable from /."""
    seen, todo, found = set(), [("", 2)], []
    while todo:
        batch, todo = todo[:200], todo[200:]
        res = debugfs(img, ["ls -p <%d>" % ino for _p, ino in batch])
        for (parent, _ino), (_cmd, lines) in zip(batch, res):
            for line in lines:
                m = re.match(r"^/(\d+)/(\d+)/\d+/\d+/(.*)/(\d*)/$", line)
                if not m:
                    continue
                ino, mode, name = int(m[1]), int(m[2], 8), m[3]
                if name in (".", "..") or ino in seen:
                    continue
                seen.add(ino)
                path = parent + "/" + name
                found.append((path, ino, mode))
                if mode & 0o170000 == 0o040000:
                    todo.append((path, ino))
    return found


def read_ldiskfs(img, rawdir, label):
    entries = walk_ldiskfs(img)
    res = debugfs(img, ["ea_list <%d>" % ino for _p, ino, _m in entries])
    gets = []
    for (path, ino, mode), (_c, lines) in zip(entries, res):
        for line in lines:
            m = re.match(r"^\s+(\S+) \((\d+)\)", line)
            if m and m[1] in WANTED:
                out = os.path.join(rawdir, "%s_%d_%s" % (label, ino, m[1]))
                gets.append((path, ino, mode, m[1], out))
    debugfs(img, ["ea_get -f %s <%d> %s" % (o, ino, n)
                  for _p, ino, _m, n, o in gets])
    items = {}
    for path, ino, mode, name, out in gets:
        with open(out, "rb") as f:
            items.setdefault((path, ino, mode), {})[name] = f.read()
    return items


def read_pax_tar(tarpath):
    """Xattrs from SCHILY.xattr.* PAX records (tarfile keeps them raw with
    surrogateescape, so encoding back gives the stored bytes)."""
    items = {}
    with tarfile.open(tarpath, "r:bz2") as t:
        for m in t:
            xs = {}
            for k, v in m.pax_headers.items():
                if k.startswith("SCHILY.xattr."):
                    n = k[len("SCHILY.xattr."):]
                    if n in WANTED:
                        xs[n] = v.encode("utf-8", "surrogateescape")
            if xs:
                mode = m.mode | (0o040000 if m.isdir() else 0o100000)
                items[(m.name, None, mode)] = xs
    return items


LDISKFS_IMAGES = ["disk2_7-ldiskfs", "disk2_9-ldiskfs", "disk2_10-ldiskfs",
                  "disk2_12-ldiskfs", "disk2_15-ldiskfs"]
PAX_TARS = ["ldiskfs_mdt1_2_11", "ldiskfs_mdt2_2_11", "zfs_mdt1_2_11",
            "zfs_mdt2_2_11"]


def git_show(gitdir, path, out):
    with open(out, "wb") as f:
        r = subprocess.run(["git", "-C", gitdir, "show", "HEAD:" + path],
                           stdout=f)
    return r.returncode == 0 and os.path.getsize(out) > 1000


def main():
    gitdir, scratch = sys.argv[1], sys.argv[2]
    rawdir = os.path.join(scratch, "raw")
    os.makedirs(rawdir, exist_ok=True)
    commit = subprocess.run(["git", "-C", gitdir, "rev-parse", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    survey = []
    for img in LDISKFS_IMAGES:
        tb = os.path.join(scratch, img + ".tar.bz2")
        if not git_show(gitdir, "lustre/tests/%s.tar.bz2" % img, tb):
            print("skip %s: not in this snapshot" % img, file=sys.stderr)
            continue
        d = os.path.join(scratch, img)
        os.makedirs(d, exist_ok=True)
        subprocess.run(["tar", "xjf", tb, "-C", d, "--sparse"], check=True)
        for mdt in ("mdt", "mdt2"):
            src = os.path.join(d, mdt)
            if not os.path.exists(src):
                continue
            work = src + ".work"
            subprocess.run(["cp", "--sparse=always", src, work], check=True)
            clear_dirdata(work)
            label = "%s.%s" % (img, mdt)
            items = read_ldiskfs(work, rawdir, label)
            survey += record(items, img + ".tar.bz2", mdt, label, rawdir)
    for img in PAX_TARS:
        tb = os.path.join(scratch, img + ".tar.bz2")
        if not git_show(gitdir, "lustre/tests/%s.tar.bz2" % img, tb):
            continue
        survey += record(read_pax_tar(tb), img + ".tar.bz2", "-", img, rawdir)
    with open(os.path.join(scratch, "survey.json"), "w") as f:
        json.dump({"commit": commit, "payloads": survey}, f, indent=1)
    counts = {}
    for s in survey:
        counts.setdefault((s["xattr"], s["shape"]), []).append(s)
    print("count distinct  xattr        shape")
    for (x, sh), v in sorted(counts.items()):
        print("%5d %8d  %-12s %s" % (len(v), len({s["sha1"] for s in v}),
                                     x, sh))
    print("total payloads: %d (commit %s)" % (len(survey), commit))
    if "--select" in sys.argv:
        select(survey, sys.argv[sys.argv.index("--select") + 1], commit)


def record(items, image, member, label, rawdir):
    rows = []
    for (path, ino, mode), xs in sorted(items.items(),
                                        key=lambda kv: kv[0][0]):
        fid = lma_fid(xs["trusted.lma"]) if "trusted.lma" in xs else None
        for name in PAYLOADS:
            if name not in xs:
                continue
            buf = xs[name]
            raw = os.path.join(rawdir, "%s_%s_%s" % (
                label, ino if ino is not None else
                hashlib.sha1(path.encode()).hexdigest()[:8], name))
            with open(raw, "wb") as f:
                f.write(buf)
            rows.append({"image": image, "member": member, "path": path,
                         "inode": ino, "is_dir": mode & 0o170000 == 0o040000,
                         "fid": fid, "xattr": name, "len": len(buf),
                         "sha1": hashlib.sha1(buf).hexdigest(),
                         "shape": shape(name, buf), "raw": raw,
                         "decode": decode(name, buf)})
    return rows


# name -> (image, member, path, xattr) of the representative set
D10 = "disk2_10-ldiskfs.tar.bz2"
RPD2 = "/REMOTE_PARENT_DIR/0x240000402:0x1:0x0"
SELECT = {
    "lov_v1_2_7_orphan": ("disk2_7-ldiskfs.tar.bz2", "mdt",
                          "/PENDING/0000000200000bd0:00000001:00000000: 0",
                          "trusted.lov"),
    "lov_v1_2_9_ost0": ("disk2_9-ldiskfs.tar.bz2", "mdt",
                        "/ROOT/init.d/README", "trusted.lov"),
    "lov_v1_2_10_mdt0_ost1": (D10, "mdt",
                              "/REMOTE_PARENT_DIR/0x200000401:0x3:0x0"
                              "/init.d/README", "trusted.lov"),
    "lov_v1_2_10_fidseq_ost0": (D10, "mdt2", RPD2 + "/init.d/README",
                                "trusted.lov"),
    "lov_v1_2_10_setstripe_c1": (D10, "mdt2", RPD2 +
                                 "/project_quota_dir/pj_quota_file_old",
                                 "trusted.lov"),
    "lov_comp_2_10_pfl": (D10, "mdt2", RPD2 + "/pfl_dir/pfl_file",
                          "trusted.lov"),
    "lov_v1_2_11_ldiskfs_ost0": ("ldiskfs_mdt1_2_11.tar.bz2", "-",
                                 "./ROOT/checksum.src", "trusted.lov"),
    "lov_v1_2_11_zfs_ost1": ("zfs_mdt1_2_11.tar.bz2", "-",
                             "./ROOT/checksum.src", "trusted.lov"),
    "lov_v1_2_11_fidseq_ost1": ("zfs_mdt2_2_11.tar.bz2", "-",
                                "./REMOTE_PARENT_DIR/0x240000401:0x2:0x0"
                                "/createmany.o", "trusted.lov"),
    "lmv_master_2_10_mdt1": (D10, "mdt2",
                             "/REMOTE_PARENT_DIR/0x240000402:0x3c:0x0",
                             "trusted.lmv"),
    "lmv_stripe0_2_10_mdt1": (D10, "mdt2",
                              "/REMOTE_PARENT_DIR/0x240000402:0x3c:0x0"
                              "/[0x240000400:0x3:0x0]:0", "trusted.lmv"),
    "lmv_stripe1_2_10_mdt0": (D10, "mdt",
                              "/REMOTE_PARENT_DIR/0x200000401:0x3:0x0",
                              "trusted.lmv"),
    "lmv_master_2_11_mdt0": ("ldiskfs_mdt1_2_11.tar.bz2", "-",
                             "./ROOT/striped_dir", "trusted.lmv"),
    "lmv_stripe0_2_11_mdt0": ("ldiskfs_mdt1_2_11.tar.bz2", "-",
                              "./ROOT/striped_dir/[0x200000400:0x2:0x0]:0",
                              "trusted.lmv"),
    "lmv_stripe1_2_11_mdt1": ("ldiskfs_mdt2_2_11.tar.bz2", "-",
                              "./REMOTE_PARENT_DIR/0x240000401:0x2:0x0",
                              "trusted.lmv"),
}


def select(survey, outdir, commit):
    for name, (image, member, path, xattr) in SELECT.items():
        hit = [s for s in survey if s["image"] == image and
               s["member"] == member and s["path"] == path and
               s["xattr"] == xattr]
        if not hit:
            print("not found: %s" % name, file=sys.stderr)
            continue
        with open(hit[0]["raw"], "rb") as f:
            data = f.read()
        with open(os.path.join(outdir, name + ".bin"), "wb") as f:
            f.write(data)
        with open(os.path.join(outdir, name + ".json"), "w") as f:
            json.dump(dict(hit[0], commit=commit, raw=None), f, indent=1)


if __name__ == "__main__":
    main()
