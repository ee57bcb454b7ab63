#!/usr/bin/env python3
"""Generates the non-kernel xattr golden vectors (testdata/xattr_*.bin) and every vector's
field-by-field description (testdata/xattr_*.md), independently of the Rust code.

Layouts follow docs/spec/WIRE.md §9 and docs/reference/lustre-wire.md §5-§7; everything is little-endian.
The kernel ACL vectors are made by make_kernel_acls.sh; this script only describes them.
Run from testdata/:  python3 gen_xattr.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


class Rec:
    """Packs little-endian fields and remembers (offset, size, field, value, note)."""

    def __init__(self):
        self.buf = bytearray()
        self.rows = []

    def put(self, fmt, field, value, note=""):
        data = struct.pack("<" + fmt, value) if fmt[-1] != "s" else struct.pack("<" + fmt, value)
        self.rows.append((len(self.buf), len(data), field, value, note))
        self.buf += data

    def u8(self, f, v, n=""):
        self.put("B", f, v, n)

    def u16(self, f, v, n=""):
        self.put("H", f, v, n)

    def u32(self, f, v, n=""):
        self.put("I", f, v, n)

    def s32(self, f, v, n=""):
        self.put("i", f, v, n)

    def u64(self, f, v, n=""):
        self.put("Q", f, v, n)

    def raw(self, f, b, n=""):
        self.rows.append((len(self.buf), len(b), f, bytes(b), n))
        self.buf += b

    def fid(self, f, seq, oid, ver=0):
        self.u64(f + ".f_seq", seq)
        self.u32(f + ".f_oid", oid)
        self.u32(f + ".f_ver", ver, "FID [%#x:%#x:%#x]" % (seq, oid, ver))


def pool(name):
    b = name.encode()
    assert len(b) <= 15
    return b + b"\0" * (16 - len(b))


def fmt_value(v):
    if isinstance(v, bytes):
        t = v.rstrip(b"\0")
        if all(32 <= c < 127 for c in t):
            return '"%s"%s' % (t.decode(), " + NULs" if len(t) < len(v) else "")
        return v.hex()
    if isinstance(v, int):
        return "%d (%#x)" % (v, v & 0xFFFFFFFFFFFFFFFF) if v >= 0 else "%d" % v
    return str(v)


def write(name, rec_or_bytes, title, how, notes, rows=None):
    data = bytes(rec_or_bytes.buf) if isinstance(rec_or_bytes, Rec) else bytes(rec_or_bytes)
    rows = rec_or_bytes.rows if isinstance(rec_or_bytes, Rec) else rows
    if not name.startswith("xattr_acl_"):
        with open(os.path.join(HERE, name + ".bin"), "wb") as f:
            f.write(data)
    out = ["# %s: %s" % (name, title), "", "Size: %d bytes. Little-endian." % len(data), "",
           "## How it was made", "", how.strip(), "", "## What it means", "", notes.strip(), "",
           "## Fields", "", "| offset | size | field | value | meaning |",
           "|---|---|---|---|---|"]
    for off, size, field, value, note in rows:
        out.append("| %d | %d | %s | %s | %s |" % (off, size, field, fmt_value(value), note))
    out += ["", "## Hex", "", "```"]
    for i in range(0, len(data), 16):
        out.append("%04x: %s" % (i, data[i:i + 16].hex(" ")))
    out += ["```", ""]
    with open(os.path.join(HERE, name + ".md"), "w") as f:
        f.write("\n".join(out))


# ---------------------------------------------------------------- kernel ACLs (described only)

TAGS = {1: "USER_OBJ", 2: "USER", 4: "GROUP_OBJ", 8: "GROUP", 0x10: "MASK", 0x20: "OTHER"}


def rwx(p):
    return "".join(c if p & b else "-" for c, b in (("r", 4), ("w", 2), ("x", 1)))


def describe_acl(name, title, cmd, notes, max_rows=None):
    data = open(os.path.join(HERE, name + ".bin"), "rb").read()
    (ver,) = struct.unpack_from("<I", data, 0)
    rows = [(0, 4, "a_version", ver, "POSIX_ACL_XATTR_VERSION")]
    n = (len(data) - 4) // 8
    for i in range(n):
        tag, perm, eid = struct.unpack_from("<HHI", data, 4 + 8 * i)
        if max_rows is not None and max_rows <= i < n - 4:
            if i == max_rows:
                rows.append((4 + 8 * i, 8 * (n - 4 - i), "a_entries[%d..%d]" % (i, n - 5), "...",
                             "named entries continue in the same pattern (see How it was made)"))
            continue
        who = "id %d" % eid if tag in (2, 8) else "ACL_UNDEFINED_ID"
        rows.append((4 + 8 * i, 8, "a_entries[%d]" % i, "%s %s" % (TAGS.get(tag, hex(tag)), rwx(perm)),
                     "e_tag %#x, e_perm %d, e_id %#x (%s)" % (tag, perm, eid, who)))
    how = ("Produced by the Linux kernel (ext4, kernel 6.18) and setfacl 2.3.1, by "
           "`testdata/make_kernel_acls.sh`:\n\n```sh\n%s\n```\n\nThe hex printed by getfattr "
           "(`getfattr -e hex -n <name> <file>`) is converted to bytes with `xxd -r -p`."
           % cmd.strip())
    write(name, data, title, how, notes + "\n\nEntries: %d." % n, rows)


describe_acl("xattr_acl_access", "an access ACL set by the kernel",
             "touch access && chmod 0640 access\n"
             "setfacl -m u:1001:rw-,u:1000:r-x,g:2000:r--,m::rwx,o::r-- access\n"
             "getfattr -e hex -n system.posix_acl_access access",
             "setfacl sorts the entries: USER_OBJ rw- (from mode 0640), USER 1000 r-x, USER 1001 "
             "rw-, GROUP_OBJ r-- (from the mode), GROUP 2000 r--, MASK rwx, OTHER r--. "
             "getfacl: `user::rw-`, `user:1000:r-x`, `user:1001:rw-`, `group::r--`, "
             "`group:2000:r--`, `mask::rwx`, `other::r--`.")
describe_acl("xattr_acl_default", "a default ACL set by the kernel",
             "mkdir default\n"
             "setfacl -d -m u::rwx,g::r-x,o::---,u:1000:rwx,g:100:rwx,m::r-x default\n"
             "getfattr -e hex -n system.posix_acl_default default",
             "USER_OBJ rwx, USER 1000 rwx, GROUP_OBJ r-x, GROUP 100 rwx, MASK r-x, OTHER ---. "
             "The mask caps USER 1000 and GROUP 100 to r-x (getfacl prints "
             "`default:user:1000:rwx  #effective:r-x`). posix_acl_create of a file with mode "
             "0666 under it gives mode 0640 (user rw- from rwx∧rw-, group r-- from "
             "MASK r-x ∧ rw-, other ---); of a directory 0777 gives 0750.")
describe_acl("xattr_acl_32", "a 32-entry ACL set by the kernel",
             "touch e32\n"
             "spec=\"\"\n"
             "for i in $(seq 1 14); do spec=\"$spec,u:$((2000 + i)):r--,g:$((3000 + i)):-w-\"; done\n"
             "setfacl -m \"u::rw-,g::r--,o::---,m::rw-$spec\" e32\n"
             "getfattr -e hex -n system.posix_acl_access e32",
             "USER_OBJ rw-, USERs 2001..2014 r--, GROUP_OBJ r--, GROUPs 3001..3014 -w-, MASK rw-, "
             "OTHER ---.")
describe_acl("xattr_acl_large", "a large ACL (hundreds of named entries) set by the kernel",
             "touch large\n"
             "spec=\"\"\n"
             "for i in $(seq 1 200); do spec=\"$spec,u:$((10000 + 7 * i)):r-x,g:$((20000 + 3 * i)):rw-\"; done\n"
             "setfacl -m \"u::rwx,g::r-x,o::r--,m::rwx$spec\" large\n"
             "getfattr -e hex -n system.posix_acl_access large",
             "USER_OBJ rwx, USERs 10007, 10014, ... 11400 (10000 + 7i) r-x, GROUP_OBJ r-x, "
             "GROUPs 20003, ... 20600 (20000 + 3i) rw-, MASK rwx, OTHER r--.", max_rows=6)

# ---------------------------------------------------------------- pin

for name, text, title, notes in [
    ("xattr_pin_both", b"[hsm: 2,pool: flash]", "a pin with both known keys",
     "Entries: `hsm` = archive id 2 (a PCC pin), `pool` = pool name `flash`. Written as "
     "`dump_pin_object` does: `key: value` joined by `,` with no space, no trailing NUL."),
    ("xattr_pin_unknown", b"[hsm: 7,owner: alice,pool: ssd]", "a pin with an unknown key",
     "Entries: `hsm` = 7, `owner` = `alice` (unknown key, kept as text), `pool` = `ssd`."),
]:
    write(name, text, title,
          "`gen_xattr.py`: the ASCII text below, verbatim.", notes,
          [(0, len(text), "text", text, "ASCII flow-style YAML, no NUL")])


# ---------------------------------------------------------------- LMV

def lmv_md(magic, count, index, hash_type, fids, layout_version=0, pool_name=""):
    r = Rec()
    r.u32("lmv_magic", magic, {0x0CD20CD0: "LMV_MAGIC_V1", 0x0CD40CD0: "LMV_MAGIC_STRIPE"}[magic])
    r.u32("lmv_stripe_count", count)
    r.u32("lmv_master_mdt_index", index)
    r.u32("lmv_hash_type", hash_type, "low 16 bits: hash function; high bits: flags")
    r.u32("lmv_layout_version", layout_version)
    r.u32("lmv_migrate_offset", 0)
    r.u32("lmv_migrate_hash", 0)
    r.u32("lmv_padding2", 0)
    r.u64("lmv_padding3", 0)
    r.raw("lmv_pool_name", pool(pool_name))
    for i, (seq, oid) in enumerate(fids):
        r.fid("lmv_stripe_fids[%d]" % i, seq, oid)
    return r


write("xattr_lmv_striped",
      lmv_md(0x0CD20CD0, 4, 0, 2, [(0x200000400, 2), (0x240000400, 2), (0x280000400, 2),
                                   (0x2c0000400, 2)], layout_version=1),
      "a striped directory's LMV with 4 stripes",
      "`gen_xattr.py`, `lmv_md()`: what `lfs mkdir -c 4 -i 0 -H fnv_1a_64` leaves in the master "
      "object's `trusted.lmv`.",
      "LMV_MAGIC_V1, 4 stripes, master on MDT0, hash FNV_1A_64 (2), layout version 1, no pool; "
      "stripe FIDs [0x200000400:0x2:0x0], [0x240000400:0x2:0x0], [0x280000400:0x2:0x0], "
      "[0x2c0000400:0x2:0x0]. Size 56 + 16·4 = 120.")
write("xattr_lmv_stripe",
      lmv_md(0x0CD40CD0, 4, 2, 2, []),
      "the LMV of one stripe object",
      "`gen_xattr.py`, `lmv_md()`: the LMV LOD writes on each stripe (`sizeof(struct "
      "lmv_mds_md_v1)`, no FID table).",
      "LMV_MAGIC_STRIPE, lmv_stripe_count 4 (the directory's stripe count), "
      "lmv_master_mdt_index 2 (this stripe's index), FNV_1A_64, 56 bytes: no stripe FIDs.")


def foreign(magic, ftype, flags, value, magic_name):
    r = Rec()
    r.u32("lfm_magic", magic, magic_name)
    r.u32("lfm_length", len(value))
    r.u32("lfm_type", ftype)
    r.u32("lfm_flags", flags)
    r.raw("lfm_value", value, "opaque")
    return r


write("xattr_lmv_foreign", foreign(0x0CD50CD0, 0xDA05, 0, b"/mnt/other/dir", "LMV_MAGIC_FOREIGN"),
      "a foreign LMV", "`gen_xattr.py`, `foreign()`.",
      "lmv_foreign_md: LMV_MAGIC_FOREIGN, lfm_length 14, lfm_type 0xda05 (LU_FOREIGN_TYPE_SYMLINK), "
      "flags 0, value `/mnt/other/dir`. Size 16 + 14 = 30.")


# ---------------------------------------------------------------- default LMV

def dmv(magic, count, offset, hash_type, mi, mirr, pool_name="", objects=()):
    r = Rec()
    r.u32("lum_magic", magic,
          {0x0CD30CD0: "LMV_USER_MAGIC", 0x0CD40CD0: "LMV_USER_MAGIC_SPECIFIC"}[magic])
    r.s32("lum_stripe_count", count)
    r.u32("lum_stripe_offset", offset, "0xffffffff: any MDT" if offset == 0xFFFFFFFF else "")
    r.u32("lum_hash_type", hash_type)
    r.u32("lum_type", 0, "LMV_TYPE_DEFAULT")
    r.u8("lum_max_inherit", mi)
    r.u8("lum_max_inherit_rr", mirr)
    r.u16("lum_padding1", 0)
    r.u32("lum_padding2", 0)
    r.u32("lum_padding3", 0)
    r.raw("lum_pool_name", pool(pool_name))
    for i, (seq, oid, mds) in enumerate(objects):
        r.fid("lum_objects[%d].lum_fid" % i, seq, oid)
        r.u32("lum_objects[%d].lum_padding" % i, 0)
        r.u32("lum_objects[%d].lum_mds" % i, mds)
    return r


for name, args, title, notes in [
    ("xattr_dmv_inherit3", (0x0CD30CD0, 1, 0xFFFFFFFF, 2, 3, 0),
     "a default LMV inherited by 3 levels",
     "`lfs setdirstripe -D -c 1 -i -1 --max-inherit 3`: stripe count 1, any MDT, FNV_1A_64, "
     "max_inherit 3, max_inherit_rr 0. A child directory stores it with max_inherit 2, rr 0."),
    ("xattr_dmv_unlimited", (0x0CD30CD0, 2, 1, 3, 0, 255),
     "a default LMV inherited without limit",
     "stripe count 2 from MDT1, CRUSH (3), max_inherit 0 (LMV_INHERIT_UNLIMITED), "
     "max_inherit_rr 255 (LMV_INHERIT_RR_UNLIMITED). Both stay unchanged in a child."),
    ("xattr_dmv_end", (0x0CD30CD0, -1, 0xFFFFFFFF, 2, 1, 1),
     "a default LMV at its last level",
     "stripe count -1 (all MDTs), max_inherit 1 (LMV_INHERIT_END), max_inherit_rr 1: a child "
     "directory uses it but does not store a copy."),
    ("xattr_dmv_none", (0x0CD30CD0, 4, 0xFFFFFFFF, 2, 255, 0),
     "a default LMV that is not inherited",
     "stripe count 4, max_inherit 255 (LMV_INHERIT_NONE): children do not store a copy."),
    ("xattr_dmv_max", (0x0CD30CD0, 1, 0xFFFFFFFF, 2, 250, 250),
     "a default LMV at LMV_INHERIT_MAX",
     "max_inherit 250 (LMV_INHERIT_MAX) and max_inherit_rr 250: a child stores 249 and 249."),
]:
    write(name, dmv(*args), title, "`gen_xattr.py`, `dmv()`.", notes + " Size 48.")
write("xattr_dmv_specific",
      dmv(0x0CD40CD0, 2, 0, 2, 3, 0, "fast", [(0x200000400, 1, 0), (0x240000400, 1, 3)]),
      "a SPECIFIC default LMV with an MDT list", "`gen_xattr.py`, `dmv()`.",
      "LMV_USER_MAGIC_SPECIFIC, 2 stripes on MDT0 and MDT3 (lum_mds), pool `fast`, "
      "max_inherit 3. Size 48 + 24·2 = 96.")


# ---------------------------------------------------------------- LOV

def lov_md(r, prefix, magic, pattern, size, count, offset, pool_name=None, objects=()):
    names = {0x0BD10BD0: "LOV_MAGIC_V1", 0x0BD30BD0: "LOV_MAGIC_V3", 0x0BD50BD0: "LOV_MAGIC_SPECIFIC"}
    r.u32(prefix + "lmm_magic", magic, names[magic])
    r.u32(prefix + "lmm_pattern", pattern, {1: "LOV_PATTERN_RAID0"}.get(pattern, ""))
    r.u64(prefix + "lmm_oi.oi_id", 0)
    r.u64(prefix + "lmm_oi.oi_seq", 0)
    r.u32(prefix + "lmm_stripe_size", size)
    r.u16(prefix + "lmm_stripe_count", count, "default/all (0 objects)" if count >= 0xFFE0 else "")
    r.u16(prefix + "lmm_stripe_offset", offset, "any OST" if offset == 0xFFFF else "")
    if pool_name is not None:
        r.raw(prefix + "lmm_pool_name", pool(pool_name))
    for i, (oid, seq, gen, idx) in enumerate(objects):
        r.u64(prefix + "lmm_objects[%d].l_ost_oi.oi_id" % i, oid)
        r.u64(prefix + "lmm_objects[%d].l_ost_oi.oi_seq" % i, seq)
        r.u32(prefix + "lmm_objects[%d].l_ost_gen" % i, gen)
        r.u32(prefix + "lmm_objects[%d].l_ost_idx" % i, idx)
    return r


r = lov_md(Rec(), "", 0x0BD10BD0, 1, 1 << 20, 4, 0xFFFF)
write("xattr_lov_v1", r, "a V1 default layout",
      "`gen_xattr.py`, `lov_md()`: `lfs setstripe -c 4 -S 1M <dir>`.",
      "lov_user_md_v1 template: RAID0, stripe size 1048576, 4 stripes, any OST (0xffff), no "
      "objects. Size 32.")
r = lov_md(Rec(), "", 0x0BD30BD0, 1, 4 << 20, 2, 1, "flash")
write("xattr_lov_v3_pool", r, "a V3 default layout with a pool",
      "`gen_xattr.py`, `lov_md()`: `lfs setstripe -c 2 -S 4M -i 1 -p flash <dir>`.",
      "lov_user_md_v3: RAID0, stripe size 4194304, 2 stripes from OST1, pool `flash`. Size 48.")
r = lov_md(Rec(), "", 0x0BD10BD0, 1, 1 << 20, 2, 5,
           objects=[(0x1a2b, 0x100000000, 0, 5), (0x3c4d, 0x100010000, 0, 6)])
write("xattr_lov_v1_objects", r, "a V1 layout with its stripe objects",
      "`gen_xattr.py`, `lov_md()`.",
      "lov_user_md_v1 with 2 lov_user_ost_data_v1: objects 0x1a2b on OST5 and 0x3c4d on OST6. "
      "Size 32 + 24·2 = 80.")

# Composite: three PFL components packed after the entry table.
comps = [
    (1, 0, 1 << 20, ("v1", 0x0BD10BD0, 1, 1 << 20, 1, 0xFFFF, None)),
    (2, 1 << 20, 64 << 20, ("v1", 0x0BD10BD0, 1, 1 << 20, 4, 0xFFFF, None)),
    (3, 64 << 20, 0xFFFFFFFFFFFFFFFF, ("v3", 0x0BD30BD0, 1, 4 << 20, 0xFFFF, 0xFFFF, "archive")),
]
blob_sizes = [32 if c[3][0] == "v1" else 48 for c in comps]
table_end = 32 + 48 * len(comps)
total = table_end + sum(blob_sizes)
r = Rec()
r.u32("lcm_magic", 0x0BD60BD0, "LOV_MAGIC_COMP_V1")
r.u32("lcm_size", total)
r.u32("lcm_layout_gen", 0)
r.u16("lcm_flags", 0)
r.u16("lcm_entry_count", len(comps))
r.u16("lcm_mirror_count", 0, "one mirror")
r.u8("lcm_ec_count", 0)
r.u8("lcm_padding3", 0)
r.u16("lcm_padding1[0]", 0)
r.u16("lcm_padding1[1]", 0)
r.u64("lcm_padding2", 0)
off = table_end
for i, (cid, start, end, _) in enumerate(comps):
    p = "lcm_entries[%d]." % i
    r.u32(p + "lcme_id", cid)
    r.u32(p + "lcme_flags", 0)
    r.u64(p + "lcme_extent.e_start", start)
    r.u64(p + "lcme_extent.e_end", end, "EOF" if end == 0xFFFFFFFFFFFFFFFF else "")
    r.u32(p + "lcme_offset", off)
    r.u32(p + "lcme_size", blob_sizes[i])
    r.u32(p + "lcme_layout_gen", 0)
    r.u64(p + "lcme_time_and_id", 0)
    r.u8(p + "lcme_dstripe_count", 0)
    r.u8(p + "lcme_cstripe_count", 0)
    r.u8(p + "lcme_compr_type", 0)
    r.u8(p + "lcme_compr_bits", 0)
    off += blob_sizes[i]
for i, (_, _, _, (kind, magic, pat, size, count, offset, pool_name)) in enumerate(comps):
    lov_md(r, "blob[%d]." % i, magic, pat, size, count, offset, pool_name)
assert len(r.buf) == total
write("xattr_lov_comp3", r, "a composite (PFL) default layout with 3 components",
      "`gen_xattr.py`: `lfs setstripe -E 1M -c 1 -E 64M -c 4 -E -1 -c -1 -S 4M -p archive <dir>`.",
      "lov_comp_md_v1 with 3 entries (table 32..176), blobs packed after it: component 1 "
      "[0, 1M) V1 1 stripe at 176 (32 bytes); component 2 [1M, 64M) V1 4 stripes at 208 (32); "
      "component 3 [64M, EOF) V3 stripe count 0xffff (all) stripe size 4M pool `archive` at "
      "240 (48). Size 288.")
write("xattr_lov_foreign", foreign(0x0BD70BD0, 4, 0x1, b"bucket/obj-0001", "LOV_MAGIC_FOREIGN"),
      "a foreign LOV", "`gen_xattr.py`, `foreign()`.",
      "lov_foreign_md: LOV_MAGIC_FOREIGN, lfm_length 15, lfm_type 4 (LU_FOREIGN_TYPE_S3), "
      "lfm_flags 1, value `bucket/obj-0001`. Size 31.")
