#!/usr/bin/env python3
"""What `lfs getstripe -v`, `lfs getstripe --yaml` and `lfs getdirstripe -v`
print for a layout, modelled on liblustreapi.c at lustre-release
c881f8ebcbd1 (see docs/reference/lfs-output.md for the line-by-line account).

Written to produce the "what lfs prints" sections of testdata/real/*.md; not
used by the tests.  Covers files' layouts (v1, v3, composite, foreign) and
LMV as the client hands it to lfs (lmv_user_md after LL_IOC_LMV_GETSTRIPE).
Directory default layouts are not modelled here (they need the fs-wide
defaults lfs reads from /sys when a field is 0).

    lfs_model.py getstripe FILE.bin PATH [--yaml]
"""

import struct
import sys

LUSTRE_EOF = (1 << 64) - 1
PATTERNS = [(0x502, "bad"), (0x1, "raid0"), (0x2, "raid1"), (0x4, "parity"), (0x100, "mdt"),
            (0x200, "overstriped"), (0x400, "foreign"), (0x800, "compress"),
            (0x40000000, "hole"), (0x80000000, "released")]
COMP_FLAGS = [(0x10, "init"), (0x1, "stale"), (0x6, "prefer"),
              (0x2, "prefrd"), (0x4, "prefwr"), (0x8, "offline"),
              (0x20, "nosync"), (0x40, "extension"), (0x80, "parity"),
              (0x100, "compress"), (0x200, "partial"), (0x400, "nocompr"),
              (0x40000000, "link_id")]
HASH_NAMES = ["none", "all_char", "fnv_1a_64", "crush", "crush2"]


def c_hash(v):
    """C's %#x / %#llx: no 0x prefix for zero."""
    return "%#x" % v if v else "0"


def dfid(seq, oid, ver, brace=True):
    s = "%s:0x%x:0x%x" % (c_hash(seq), oid, ver)
    return "[" + s + "]" if brace else s


def s16(v):
    return v - 0x10000 if v & 0x8000 else v


def s32(v):
    return v - 0x100000000 if v & 0x80000000 else v


def pattern_string(p):
    if p == 0xffffffff:
        return "default"
    names = []
    for bit, name in PATTERNS:
        if p and (p & bit) == bit:
            names.append(name)
            p &= ~bit
    if p:
        # llapi_lov_pattern_string() restarts the buffer for the leftover.
        return ("," if names else "") + "unknown_%x" % p
    return ",".join(names)


def comp_flags_string(f):
    if not f:
        return "0"
    out = []
    for bit, name in COMP_FLAGS:
        if (f & bit) == bit:
            out.append(name)
            f &= ~bit
    if f:
        out.append("%#x" % f)
    return ",".join(out)


def ostid(raw):
    """ostid_seq(), ostid_id() of lustre_ostid.h."""
    oi_id, oi_seq = struct.unpack_from("<QQ", raw)
    f_seq, f_oid, f_ver = struct.unpack_from("<QII", raw)
    if oi_seq == 0:
        return 0, oi_id & ((1 << 48) - 1)
    if oi_seq == LUSTRE_EOF:
        return oi_seq, oi_id
    if 0x100000000 <= f_seq <= 0x1ffffffff:
        return 0, ((f_seq & 0xffff) << 32) | f_oid
    return f_seq, f_oid


def ostid_to_fid(raw, idx):
    """ostid_to_fid(): (seq, oid, ver), or zeros where it fails."""
    seq, oid = ostid(raw)
    if idx > 0xffff:
        return 0, 0, 0
    if seq == 0:
        if oid > (1 << 48) - 1:
            return 0, 0, 0
        return (0x100000000 | (idx << 16) | ((oid >> 32) & 0xffff),
                oid & 0xffffffff, oid >> 48)
    if seq == LUSTRE_EOF:
        return 0, 0, 0
    f_seq, f_oid, f_ver = struct.unpack_from("<QII", raw)
    if f_ver:
        return 0, 0, 0
    return f_seq, f_oid, f_ver


def lmm_fields(buf, off):
    magic, pattern = struct.unpack_from("<II", buf, off)
    oi_id, oi_seq = struct.unpack_from("<QQ", buf, off + 8)
    ssize, scount, gen = struct.unpack_from("<IHH", buf, off + 24)
    pool = ""
    objoff = off + 32
    if magic in (0x0BD30BD0, 0x0BD50BD0):
        pool = buf[off + 32:off + 48].split(b"\0")[0].decode("latin-1")
        objoff = off + 48
    return magic, pattern, oi_id, oi_seq, ssize, scount, gen, pool, objoff


def dump_v1v3(buf, off, out, path, depth, yaml, indent, skip_objs,
              extension=False, detail=True):
    """lov_dump_user_lmm_header() + lov_dump_user_lmm_v1v3(), file case,
    verbose = VERBOSE_DEFAULT (| VERBOSE_DETAIL with -v)."""
    (magic, pattern, oi_id, oi_seq, ssize, scount, gen, pool,
     objoff) = lmm_fields(buf, off)
    sp = "      " if indent else ""
    lines = []
    if not yaml and not indent and depth and path:
        out.append(path + "\n")
    if detail:
        lines.append("%slmm_magic:         0x%08X" % (sp, magic))
        lines.append("%slmm_seq:           %s" % (sp, c_hash(oi_seq)))
        lines.append("%slmm_object_id:     %s" % (sp, c_hash(oi_id)))
        seq = oi_id if oi_seq == 0 else oi_seq
        oid = 0 if oi_seq == 0 else oi_id & 0xffffffff
        ver = oi_id >> 32
        lines.append("%slmm_fid:           %s" % (sp, dfid(seq, oid, ver,
                                                         not yaml)))
    lines.append("%slmm_stripe_count:  %d" % (sp, 0 if extension
                                             else s16(scount)))
    if extension:
        lines.append("%slmm_extension_size: %d" % (sp, ssize * 1024))
    else:
        lines.append("%slmm_stripe_size:   %d" % (sp, ssize))
    lines.append("%slmm_pattern:       %s" % (sp, pattern_string(pattern)))
    lines.append("%slmm_layout_gen:    %d" % (sp, 0 if skip_objs else gen))
    is_dom = bool(pattern & 0x100)
    label = "mdt_index:     " if is_dom else "stripe_offset: "
    if skip_objs or is_dom:
        val = "-1" if gen == 0xffff else "%d" % gen
    else:
        val = "%d" % s32(struct.unpack_from("<I", buf, objoff + 20)[0])
    lines.append("%slmm_%s%s" % (sp, label, val))
    if pool:
        lines.append("%slmm_pool:          %s" % (sp, pool))
    out.append("\n".join(lines) + "\n")
    released = bool(pattern & 0x80000000)
    if not skip_objs and not released and not is_dom:
        if indent:
            out.append("      lmm_objects:\n")
        elif yaml:
            out.append("lmm_objects:\n")
        else:
            out.append("\tobdidx\t\t objid\t\t objid\t\t group\n")
        for i in range(scount):
            o = objoff + 24 * i
            raw = buf[o:o + 16]
            idx = struct.unpack_from("<I", buf, o + 20)[0]
            gr, oid = ostid(raw)
            if yaml:
                out.append("      - l_ost_idx: %d\n" % s32(idx))
                out.append("        l_fid:     %s\n" %
                           dfid(*ostid_to_fid(raw, idx), brace=False))
            elif indent:
                out.append("      - %3d: { l_ost_idx: %3d, l_fid: %s }\n" %
                           (i, s32(idx), dfid(*ostid_to_fid(raw, idx))))
            else:
                grp = ("%14d" % gr if gr == 0 or 0 < gr <= 11
                       else "%14s" % c_hash(gr))
                out.append("\t%6d\t%14d\t%13s\t%s\n" %
                           (idx, oid, c_hash(oid), grp))
    if not yaml:
        out.append("\n")


def dump_comp(buf, path, yaml, detail=True):
    """lov_dump_comp_v1_header() + lov_dump_comp_v1_entry() per entry."""
    out = []
    magic, size, gen, flags, count, mirrors = struct.unpack_from(
        "<IIIHHH", buf, 0)
    if not yaml:
        out.append(path + "\n")
    if detail:
        out.append("composite_header:\n")
        out.append("  lcm_magic:         0x%08X\n" % magic)
        out.append("  lcm_size:          %d\n" % size)
        fl = {1: "ro", 2: "wp", 3: "sp", 9: "ro,pccro", 10: "wp,pccro",
              11: "sp,pccro"}.get(flags & 0xB, "0")
        out.append("  lcm_flags:         %s\n" % fl)
    ind = "" if yaml else "  "
    out.append("%slcm_layout_gen:    %d\n" % (ind, gen))
    out.append("%slcm_mirror_count:  %d\n" % (ind, mirrors + 1))
    out.append("%slcm_entry_count:   %d\n" % (ind, count))
    if detail or yaml:
        out.append("components:\n")
    for i in range(count):
        e = 32 + 48 * i
        (eid, eflags, start, end, eoff, esz, egen, tid) = struct.unpack_from(
            "<IIQQIIIQ", buf, e)
        lines = ["  - lcme_id:             %s" %
                 ("N/A" if eid == 0xffffffff else eid)]
        lines.append("    lcme_mirror_id:      %s" %
                     ("N/A" if eid == 0xffffffff else (eid & 0x7FFF0000) >> 16))
        lines.append("    lcme_flags:          %s" % comp_flags_string(eflags))
        link = tid >> 48
        stamp = tid & ((1 << 48) - 1)
        if link:
            lines.append("    lcme_mirror_link_id: %#x" % link)
        if eflags & 0x20 or stamp:
            lines.append("    lcme_timestamp:      %s" %
                         (stamp if yaml else "<localtime %d>" % stamp))
        lines.append("    lcme_extent.e_start: %d" % start)
        lines.append("    lcme_extent.e_end:   %s" %
                     ("EOF" if end == LUSTRE_EOF else end))
        out.append("\n".join(lines) + "\n")
        if yaml:
            out.append("    sub_layout:\n")
        elif detail:
            out.append("    lcme_offset:         %d\n" % eoff)
            out.append("    lcme_size:           %d\n" % esz)
            out.append("    sub_layout:\n")
        init = bool(eflags & 0x10)
        dump_v1v3(buf, eoff, out, path, 1, yaml, True, not init,
                  extension=bool(eflags & 0x40), detail=detail)
    return "".join(out)


def getstripe(buf, path, yaml=False):
    magic = struct.unpack_from("<I", buf, 0)[0]
    if magic == 0x0BD80BD0:
        # the MDT rewrites SEL to COMP_V1 before it leaves (lod_xattr_get)
        buf = struct.pack("<I", 0x0BD60BD0) + buf[4:]
        magic = 0x0BD60BD0
    if magic == 0x0BD60BD0:
        return dump_comp(buf, path, yaml, detail=not yaml)
    out = []
    dump_v1v3(buf, 0, out, path, 1, yaml, False, False, detail=not yaml)
    return "".join(out)


def getdirstripe(magic, count, offset, hash_type, objects, dir_fid,
                 yaml=False):
    """lmv_dump_user_lmm() for LMV_MAGIC_V1 as the client builds it
    (llite/dir.c LL_IOC_LMV_GETSTRIPE): objects = [(mdt, (seq,oid,ver))]."""
    parts = ["lmv_fid: %s" % dfid(*dir_fid, brace=False),
             "lmv_magic: %#x" % magic,
             "lmv_stripe_count: %d" % count,
             "lmv_stripe_offset: %d" % offset]
    t = hash_type & 0xffff
    name = HASH_NAMES[t] if t < len(HASH_NAMES) else "%#x" % t
    fl = hash_type & ~0xffff
    for bit, n in [(0x01000000, "overstriped"), (0x80000000, "migrating"),
                   (0x20000000, "bad_type"), (0x10000000, "lost_lmv"),
                   (0x02000000, "fixed")]:
        if fl & bit:
            name += "," + n
    if fl & ~0xbf000000:
        name += ",unknown_%04x" % (fl & ~0xbf000000)
    parts.append("lmv_hash_type: %s" % name)
    out = " ".join(parts) + "\n"
    if count > 0:
        out += "mdtidx\t\t FID[seq:oid:ver]\n"
    for mdt, fid in objects:
        out += "%6d\t\t %s\t\t\n" % (mdt, dfid(*fid))
    return out


if __name__ == "__main__":
    if sys.argv[1] == "getstripe":
        with open(sys.argv[2], "rb") as f:
            data = f.read()
        sys.stdout.write(getstripe(data, sys.argv[3], "--yaml" in sys.argv))
