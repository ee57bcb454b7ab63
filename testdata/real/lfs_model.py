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
FOREIGN_TYPES = {0: "none", 1: "posix", 2: "pccrw", 3: "pccro", 4: "S3",
                 0xda05: "symlink"}


def c_hash(v):
    """C's %#x / %#llx: no 0x prefix for zero."""
    return "%#x" % v if v else "0"


def dfid(seq, oid, ver, brace=True):
    s = "%s:0x%x:0x%x" % (c_hash(seq), oid, ver)
    return "[" + s + "]" if brace else s


def s16(v):
    return v - 0x10000 if v & 0x8000 else v


def s32(v):
    v &= 0xffffffff
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
              extension=False, detail=True, is_dir=False, dir_fid=None,
              mdt=None, end=None):
    """lov_dump_user_lmm_header() + lov_dump_user_lmm_v1v3(), verbose =
    VERBOSE_DEFAULT (| VERBOSE_DETAIL with -v).  For a directory (is_dir) the
    fields share one line; dir_fid is what llapi_path2fid() would give (its
    lmm_fid line is left out when unknown).  mdt is the MDT index the client
    writes into a DoM layout's union (left out when unknown).  Where the C
    reads objects[0] of a layout that stores none (released) the line is
    left out rather than invented."""
    (magic, pattern, oi_id, oi_seq, ssize, scount, gen, pool,
     objoff) = lmm_fields(buf, off)
    sp = "      " if indent else ""
    prefix = "" if is_dir else "lmm_"
    if is_dir and oi_seq == LUSTRE_EOF:  # FID_SEQ_LOV_DEFAULT
        oi_seq = 0
        if not indent and detail:
            out.append("%s(Default) " % sp)
    if not yaml and not indent and depth and path:
        out.append(path + "\n")
    if detail and not is_dir:
        out.append("%slmm_magic:         0x%08X\n" % (sp, magic))
        out.append("%slmm_seq:           %s\n" % (sp, c_hash(oi_seq)))
        out.append("%slmm_object_id:     %s\n" % (sp, c_hash(oi_id)))
    if detail:
        if is_dir:
            fid = dir_fid
        else:
            fid = (oi_id if oi_seq == 0 else oi_seq,
                   0 if oi_seq == 0 else oi_id & 0xffffffff, oi_id >> 32)
        if fid is not None:
            out.append("%slmm_fid:           %s\n" % (sp, dfid(*fid,
                                                             brace=not yaml)))
    nsep = " " if (not yaml and is_dir) else "\n"
    out.append("%s%sstripe_count:  %d" % (sp, prefix,
                                         0 if extension else s16(scount)))
    sep = nsep
    if extension:
        out.append("%s%s%sextension_size: %d" % (sep, sp, prefix,
                                                 ssize * 1024))
    else:
        out.append("%s%s%sstripe_size:   %d" % (sep, sp, prefix, ssize))
    out.append("%s%s%spattern:       %s" % (sep, sp, prefix,
                                           pattern_string(pattern)))
    is_dom = bool(pattern & 0x100)
    if is_dom and not is_dir:
        # llite/file.c overwrites a DoM component's lmm_stripe_offset (the
        # union with lmm_layout_gen) with the MDT index before lfs sees it.
        gen = mdt
    if not is_dir and (skip_objs or gen is not None):
        out.append("%s%s%slayout_gen:    %d" % (sep, sp, prefix,
                                               0 if skip_objs else gen))
        sep = "\n"
    label = "mdt_index:     " if is_dom else "stripe_offset: "
    nobj = ((len(buf) if end is None else end) - objoff) // 24
    if is_dom and not is_dir:
        val = None if mdt is None else "%d" % mdt
    elif is_dir or skip_objs:
        val = "-1" if gen == 0xffff else "%d" % gen
    else:
        have = nobj > 0
        val = ("%d" % s32(struct.unpack_from("<I", buf, objoff + 20)[0])
               if have else None)
    if val is not None:
        out.append("%s%s%s%s%s" % (sep, sp, prefix, label, val))
        sep = nsep
    if pool and pool != "ignore":
        out.append("%s%s%spool:          %s" % (sep, sp, prefix, pool))
        sep = nsep
    if sep:
        out.append("\n")
    released = bool(pattern & 0x80000000)
    file_objs = not is_dir and not released and not is_dom
    dir_objs = is_dir and magic == 0x0BD50BD0
    if not skip_objs and (file_objs or dir_objs):
        if indent:
            out.append("      lmm_objects:\n")
        elif yaml:
            out.append("lmm_objects:\n")
        else:
            out.append("\tobdidx\t\t objid\t\t objid\t\t group\n")
        for i in range(scount if scount < 0xffe0 else 0):
            o = objoff + 24 * i
            if o + 24 > len(buf):
                break
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
            elif is_dir:
                out.append("\t%6d\t%14s\t%13s\t%14s\n" %
                           (idx, "N/A", "N/A", "N/A"))
            else:
                grp = ("%14d" % gr if gr == 0 or 0 < gr <= 11
                       else "%14s" % c_hash(gr))
                out.append("\t%6d\t%14d\t%13s\t%s\n" %
                           (idx, oid, c_hash(oid), grp))
    if not yaml:
        out.append("\n")


def utc_stamp(secs):
    """strftime('%FT%T%z') of localtime_r() with TZ=UTC."""
    import datetime
    t = datetime.datetime.fromtimestamp(secs, datetime.timezone.utc)
    return "'" + t.strftime("%Y-%m-%dT%H:%M:%S") + "+0000'"


def dump_comp(buf, path, yaml, detail=True, is_dir=False, dir_fid=None,
              mdt=None):
    """lov_dump_comp_v1_header() + lov_dump_comp_v1_entry() per entry."""
    out = []
    magic, size, gen, flags, count, mirrors = struct.unpack_from(
        "<IIIHHH", buf, 0)
    if not yaml and path:
        out.append(path + "\n")
    if detail:
        out.append("composite_header:\n")
        out.append("  lcm_magic:         0x%08X\n" % magic)
        out.append("  lcm_size:          %d\n" % size)
        if is_dir:
            fl = "mirrored" if mirrors > 0 else ""
        else:
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
                         (stamp if yaml else utc_stamp(stamp)))
        if eflags & 0x80:
            lines.append("    lcme_dstripe_count:  %d" % buf[e + 44])
            lines.append("    lcme_cstripe_count:  %d" % buf[e + 45])
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
                  extension=bool(eflags & 0x40), detail=detail,
                  is_dir=is_dir, dir_fid=dir_fid, mdt=mdt, end=eoff + esz)
    return "".join(out)


def dump_foreign(buf, yaml):
    """lov_dump_foreign_lmm() / lmv_dump_foreign_lmm(): no path line at
    depth 0; -v adds the header lines."""
    magic, length, ftype, flags = struct.unpack_from("<IIII", buf, 0)
    out = []
    if not yaml:
        out.append("lfm_magic:         0x%08X\n" % magic)
        out.append("lfm_length:          %d\n" % length)
        out.append("lfm_type:          0x%08X (%s)\n" %
                   (ftype, FOREIGN_TYPES.get(ftype, "unknown")))
        out.append("lfm_flags:          0x%08X\n" % flags)
    value = buf[16:16 + length].split(b"\0")[0].decode("latin-1")
    out.append("lfm_value:     '%s'\n\n" % value)
    return "".join(out)


def getstripe(buf, path, yaml=False, is_dir=False, dir_fid=None, mdt=None):
    magic = struct.unpack_from("<I", buf, 0)[0]
    if magic == 0x0BD80BD0:
        # the MDT rewrites SEL to COMP_V1 before it leaves (lod_xattr_get)
        buf = struct.pack("<I", 0x0BD60BD0) + buf[4:]
        magic = 0x0BD60BD0
    if magic == 0x0BD60BD0:
        return dump_comp(buf, path, yaml, detail=not yaml, is_dir=is_dir,
                         dir_fid=dir_fid, mdt=mdt)
    if magic == 0x0BD70BD0:
        return dump_foreign(buf, yaml)
    out = []
    dump_v1v3(buf, 0, out, path, 1, yaml, False, False, detail=not yaml,
              is_dir=is_dir, dir_fid=dir_fid, mdt=mdt)
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


def lmv_dump(magic, count, offset, hash_type, objects, dir_fid, yaml=False,
             max_inherit=0, max_inherit_rr=0, pool=""):
    """lmv_dump_user_lmm(), transcribed line by line, verbose =
    VERBOSE_DEFAULT | VERBOSE_DETAIL (text) or VERBOSE_DEFAULT (yaml), depth
    0 (no path line).  objects = [(mdt or None, (seq, oid, ver))]; an unknown
    MDT (the payload alone cannot give it) prints '?'; an unknown dir_fid
    (None) leaves lmv_fid out."""
    user = magic == 0x0CD30CD0
    prefix = "(Default)" if user else ""
    out = []
    sep = ""
    detail = not yaml
    if detail and dir_fid is not None:
        out.append("lmv_fid: %s" % dfid(*dir_fid, brace=False))
        sep = " "
    if detail:
        out.append(sep + "lmv_magic: %s" % c_hash(magic))
        sep = " "
    nl = "\n" if yaml else " "
    out.append(sep + "lmv_stripe_count: %s%d" % (" " if yaml else "", s32(count)))
    sep = nl
    out.append(sep + "lmv_stripe_offset: %d" % s32(offset))
    t = hash_type & 0xffff
    name = HASH_NAMES[t] if t < len(HASH_NAMES) else c_hash(t)
    fl = hash_type & ~0xffff
    for bit, n in [(0x01000000, "overstriped"), (0x80000000, "migrating"),
                   (0x20000000, "bad_type"), (0x10000000, "lost_lmv"),
                   (0x02000000, "fixed")]:
        if fl & bit:
            name += "," + n
    if fl & ~0xbf000000 & 0xffffffff:
        name += ",unknown_%04x" % (fl & ~0xbf000000 & 0xffffffff)
    out.append(sep + "lmv_hash_type: %s%s" % ("    " if yaml else "", name))
    if user:
        mi = {0: -1, 255: 0}.get(max_inherit, max_inherit)
        rr = {255: -1, 0: 0}.get(max_inherit_rr, max_inherit_rr)
        out.append(sep + "lmv_max_inherit: %s%d" % ("  " if yaml else "", mi))
        out.append(sep + "lmv_max_inherit_rr: %d" % rr)
    if pool:
        out.append(sep + "%slmv_pool: %s%s  " % (prefix, "          " if yaml
                                                 else "", pool))
    if not user:
        out.append("\n")
        if yaml:
            out.append("lmv_objects:\n")
        elif s32(count) > 0:
            out.append("mdtidx\t\t FID[seq:oid:ver]\n")
        if yaml and s32(count) == 0 and dir_fid is not None:
            out.append("      - l_mdt_idx: %d\n        l_fid:     %s\n" %
                       (s32(offset), dfid(*dir_fid, brace=False)))
        for mdt, fid in objects:
            if yaml:
                out.append("      - l_mdt_idx: %s\n        l_fid:     %s\n" %
                           ("?" if mdt is None else "%d" % mdt,
                            dfid(*fid, brace=False)))
            else:
                out.append("%6s\t\t %s\t\t\n" %
                           ("?" if mdt is None else "%d" % mdt, dfid(*fid)))
    else:
        out.append("\n")
    return "".join(out)


def getdirstripe_payload(buf, dir_fid=None, mdt=None, stripe_mdts=(),
                         yaml=False):
    """lfs getdirstripe [-D] -v of a trusted.lmv (LMV_MAGIC_V1, as the
    client hands it over: llite/dir.c) or a trusted.dmv (lmv_user_md)."""
    magic = struct.unpack_from("<I", buf, 0)[0]
    if magic == 0x0CD50CD0:
        return dump_foreign(buf, yaml)
    if magic == 0x0CD20CD0:
        count, master, hash_type = struct.unpack_from("<III", buf, 4)
        fids = [struct.unpack_from("<QII", buf, 56 + 16 * i)
                for i in range((len(buf) - 56) // 16)]
        objs = [(stripe_mdts[i] if i < len(stripe_mdts) else None, f)
                for i, f in enumerate(fids)]
        return lmv_dump(magic, count, master if mdt is None else mdt,
                        hash_type, objs, dir_fid, yaml)
    # lmv_user_md_v1 (default LMV), LMV_USER_MAGIC or _SPECIFIC
    count, offset, hash_type, _type, mi, rr = struct.unpack_from("<iIIIBB",
                                                                  buf, 4)
    pool = buf[32:48].split(b"\0")[0].decode("latin-1")
    objs = []
    for i in range((len(buf) - 48) // 24):
        seq, oid, ver, _pad, mds = struct.unpack_from("<QIIII", buf,
                                                      48 + 24 * i)
        objs.append((mds, (seq, oid, ver)))
    return lmv_dump(magic, count, offset, hash_type, objs, dir_fid, yaml,
                    mi, rr, pool)


if __name__ == "__main__":
    if sys.argv[1] == "getstripe":
        with open(sys.argv[2], "rb") as f:
            data = f.read()
        sys.stdout.write(getstripe(data, sys.argv[3], "--yaml" in sys.argv))
