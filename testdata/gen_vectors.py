#!/usr/bin/env python3
"""Generate the golden test vectors of lustre-dne-intent.

An independent implementation of the byte layouts of docs/spec/WIRE.md (sections 1-9),
written with the Python standard library only (struct.pack). It does not call the Rust crate.

Run it from anywhere:  python3 testdata/gen_vectors.py
It writes testdata/NAME.bin and testdata/NAME.md for every vector; running it again reproduces
identical bytes (no clock, no randomness).

Byte order (docs/spec/WIRE.md section 1): a message is written in the sender's order. In a
big-endian ("swabbed") message every numeric field of buffers 0-3 (request and reply), the
groups buffer and the header is big-endian; strings (name, pb_jobid), opaque lustre_handle cookies, padding and the
xattr payloads (reply buffers 4-8) are never swapped. Here a field marked swap=False is always
written as the little-endian image of its value (a handle cookie is 8 opaque bytes, which this
generator and the crate both show as the u64 those bytes make when read little-endian).
"""

import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------------------
# Constants (docs/spec/WIRE.md sections 2-9, docs/reference/lustre-wire.md)
# ---------------------------------------------------------------------------------------------
LUSTRE_MSG_MAGIC_V2 = 0x0BD00BD3
PTL_RPC_MSG_REQUEST, PTL_RPC_MSG_REPLY = 4711, 4713
LUSTRE_DLM_MSG_VERSION = 0x00040003
PTLRPC_MSG_VERSION = 0x00000003
LDLM_ENQUEUE = 101
MSGHDR_AT_SUPPORT = 0x1
MSG_PACK_UID_GID = 0x200
LDLM_IBITS = 13
LCK_EX, LCK_PW = 1, 2
LDLM_FL_HAS_INTENT = 0x1000
MDS_INODELOCK_UPDATE = 0x2
DISP_IT_EXECD, DISP_LOOKUP_EXECD, DISP_LOOKUP_NEG, DISP_LOOKUP_POS = 0x1, 0x2, 0x4, 0x8
IT_DNE_CREATE_PREPARE = 0x00010000
IT_DNE_RENAME_PREPARE = 0x00020000
IT_DNE_UNLINK_PREPARE = 0x00040000
MCPR_NO_LOOKUP, MCPR_GROUPS_PARTIAL = 0x1, 0x2
MCPP_LOOKUP_DONE, MCPP_LOOKUP_POS, MCPP_PERM_DONE = 0x1, 0x2, 0x4
MCPP_ADVISORY, MCPP_CHILD_DERIVED = 0x8, 0x10
S_IFDIR, S_IFREG, S_ISGID = 0o040000, 0o100000, 0o002000
LUSTRE_PROJINHERIT_FL = 0x20000000
MLI = ["MLI_BUF_PATTR", "MLI_BUF_DEF_ACL", "MLI_BUF_PIN", "MLI_BUF_LMV", "MLI_BUF_LOV",
       "MLI_BUF_DEF_LMV"]
MASK_NAMES = ["PATTR", "DEF_ACL", "PIN", "LMV", "LOV", "DEF_LMV"]

# OBD_MD_* bits used in mbo_valid
OBD_MD = dict(FLID=0x1, FLATIME=0x2, FLMTIME=0x4, FLCTIME=0x8, FLSIZE=0x10, FLBLOCKS=0x20,
              FLMODE=0x80, FLTYPE=0x100, FLUID=0x200, FLGID=0x400, FLFLAGS=0x800,
              FLNLINK=0x2000, FLPROJID=0x100000000000000, FLBTIME=0x1000000000000000)
GETATTR_VALID = 0
for _v in OBD_MD.values():
    GETATTR_VALID |= _v

# Xattr magics (always LE)
LMV_MAGIC_V1 = 0x0CD20CD0
LMV_USER_MAGIC = 0x0CD30CD0
LOV_USER_MAGIC_V1 = 0x0BD10BD0
LMV_HASH_TYPE_FNV_1A_64 = 2
LOV_PATTERN_RAID0 = 0x1

# Bytes the Linux kernel produced for this ACL (ext4, 6.x):
#   mkdir d; setfacl -d -m u::rwx,u:1000:rwx,g::r-x,m::rwx,o::r-x d
#   getfattr -e hex -n system.posix_acl_default d
KERNEL_DEFAULT_ACL_HEX = ("0200000001000700ffffffff02000700e803000004000500ffffffff"
                          "10000700ffffffff20000500ffffffff")


def fnv1a64(data):
    """The name hash put in res name[3] (docs/spec/WIRE.md section 3): FNV-1a-64 with the
    constants of docs/reference/lustre-wire.md section 6, 0 mapped to 1 as Lustre maps it."""
    h = 0xcbf29ce484222325
    for c in data:
        h ^= c
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h or 1


def round8(n):
    return (n + 7) & ~7


# ---------------------------------------------------------------------------------------------
# A structure is a list of fields; each field packs itself in the message order (or always LE
# for opaque / xattr fields) and knows how to describe itself in the .md table.
# ---------------------------------------------------------------------------------------------
class Field:
    def __init__(self, name, fmt, value, meaning="", swap=True, show=None):
        self.name, self.fmt, self.value, self.meaning = name, fmt, value, meaning
        self.swap, self.show = swap, show

    def pack(self, order):
        e = order if self.swap else "<"
        return struct.pack(e + self.fmt, self.value)

    def shown(self):
        if self.show is not None:
            return self.show
        v = self.value
        if isinstance(v, bytes):
            s = v.rstrip(b"\0")
            if not s:
                return "all zero" if len(v) > 0 else "(empty)"
            return '"%s"' % s.decode("ascii") + (" + NUL padding" if len(s) < len(v) else "")
        return str(v)


class Struct:
    def __init__(self, title):
        self.title = title
        self.fields = []

    def f(self, name, fmt, value, meaning="", swap=True, show=None):
        self.fields.append(Field(name, fmt, value, meaning, swap, show))
        return self

    def fid(self, name, fid, meaning="", swap=True):
        seq, oid, ver = fid
        self.f(name + ".f_seq", "Q", seq, meaning, swap, hex(seq))
        self.f(name + ".f_oid", "I", oid, "", swap, hex(oid))
        self.f(name + ".f_ver", "I", ver, "", swap, hex(ver))
        return self

    def pack(self, order):
        return b"".join(fl.pack(order) for fl in self.fields)

    def size(self):
        return len(self.pack("<"))


def hx(v):
    return hex(v)


def fidstr(fid):
    return "[%#x:%#x:%#x]" % fid


# ---------------------------------------------------------------------------------------------
# Existing Lustre structures (docs/spec/WIRE.md sections 2-3)
# ---------------------------------------------------------------------------------------------
def ptlrpc_body(*, handle, msg_type, status=0, last_xid=0, last_committed=0, flags=0,
                conn_cnt=0, timeout=0, service_time=0, limit=0, slv=0, mbits=0, uid=0, gid=0,
                jobid=b""):
    s = Struct("ptlrpc_body_v3")
    s.f("pb_handle", "8s", struct.pack("<Q", handle), "connection handle cookie (opaque, never "
        "swapped)", show=hx(handle))
    s.f("pb_type", "I", msg_type, {4711: "PTL_RPC_MSG_REQUEST", 4713: "PTL_RPC_MSG_REPLY"}
        [msg_type])
    # A request carries its service's version; a Lustre server's reply carries
    # PTLRPC_MSG_VERSION alone (lustre_pack_reply_v2, lustre/ptlrpc/pack_generic.c).
    if msg_type == PTL_RPC_MSG_REQUEST:
        s.f("pb_version", "I", LUSTRE_DLM_MSG_VERSION, "LUSTRE_DLM_VERSION | PTLRPC_MSG_VERSION",
            show="0x%08x" % LUSTRE_DLM_MSG_VERSION)
    else:
        s.f("pb_version", "I", PTLRPC_MSG_VERSION, "PTLRPC_MSG_VERSION (lustre_pack_reply_v2)",
            show="0x%08x" % PTLRPC_MSG_VERSION)
    s.f("pb_opc", "I", LDLM_ENQUEUE, "LDLM_ENQUEUE")
    s.f("pb_status", "i", status, "RPC status (0: the enqueue itself succeeded)")
    s.f("pb_last_xid", "Q", last_xid, "xid of the last request whose reply was seen",
        show=hx(last_xid))
    s.f("pb_tag", "H", 0, "")
    s.f("pb_padding0", "H", 0, "padding")
    s.f("pb_projid", "I", 0, "")
    s.f("pb_last_committed", "Q", last_committed, "last committed transno",
        show=hx(last_committed))
    s.f("pb_transno", "Q", 0, "an enqueue is not a transaction")
    s.f("pb_flags", "I", flags, "MSG_PACK_UID_GID (pb_uid/pb_gid valid)" if flags else "",
        show=hx(flags))
    s.f("pb_op_flags", "I", 0)
    s.f("pb_conn_cnt", "I", conn_cnt, "connection count")
    s.f("pb_timeout", "I", timeout, "adaptive timeout, seconds")
    s.f("pb_service_time", "I", service_time, "")
    s.f("pb_limit", "I", limit, "LDLM pool lock limit" if limit else "")
    s.f("pb_slv", "Q", slv, "LDLM pool server lock volume" if slv else "", show=hx(slv))
    for i in range(4):
        s.f("pb_pre_versions[%d]" % i, "Q", 0)
    s.f("pb_mbits", "Q", mbits, "match bits = the request's xid", show=hx(mbits))
    s.f("pb_padding64_0", "Q", 0, "padding")
    s.f("pb_padding64_1", "Q", 0, "padding")
    s.f("pb_uid", "I", uid)
    s.f("pb_gid", "I", gid)
    s.f("pb_jobid", "32s", jobid.ljust(32, b"\0"), "job id (string, never swapped)")
    assert s.size() == 184
    return s


def lock_desc(s, *, fid, name_hash, req_mode, granted_mode, initiator):
    """ldlm_lock_desc (80 bytes) appended to s with prefix lock_desc."""
    p = "lock_desc."
    n1 = (fid[2] << 32) | fid[1]
    s.f(p + "l_resource.lr_type", "I", LDLM_IBITS, "LDLM_IBITS")
    s.f(p + "l_resource.lr_pad", "I", 0, "padding")
    s.f(p + "l_resource.lr_name.name[0]", "Q", fid[0], "FID seq of " + fidstr(fid),
        show=hx(fid[0]))
    s.f(p + "l_resource.lr_name.name[1]", "Q", n1, "(f_ver << 32) | f_oid", show=hx(n1))
    s.f(p + "l_resource.lr_name.name[2]", "Q", 0, "")
    s.f(p + "l_resource.lr_name.name[3]", "Q", name_hash,
        "name hash (FNV-1a-64 of the entry name)" if name_hash else "0: whole-object lock",
        show=hx(name_hash))
    modes = {0: "none (LCK_MINMODE)", 1: "LCK_EX", 2: "LCK_PW"}
    s.f(p + "l_req_mode", "I", req_mode, modes[req_mode])
    s.f(p + "l_granted_mode", "I", granted_mode, modes[granted_mode])
    s.f(p + "l_policy_data.bits", "Q", MDS_INODELOCK_UPDATE, "MDS_INODELOCK_UPDATE",
        show=hx(MDS_INODELOCK_UPDATE))
    s.f(p + "l_policy_data.try_bits", "Q", 0)
    s.f(p + "l_policy_data.li_gid", "Q", 0)
    s.f(p + "l_policy_data.li_padding", "I", 0, "padding")
    s.f(p + "l_policy_data.li_initiator_id", "I", initiator,
        "index of the MDT that started the lock (the coordinator, MDT0001)")


def ldlm_request(*, fid, name_hash, mode, own_handle):
    s = Struct("ldlm_request")
    s.f("lock_flags", "I", LDLM_FL_HAS_INTENT, "LDLM_FL_HAS_INTENT", show=hx(LDLM_FL_HAS_INTENT))
    s.f("lock_count", "I", 1, "one handle in use: the requester's own")
    lock_desc(s, fid=fid, name_hash=name_hash, req_mode=mode, granted_mode=0, initiator=1)
    s.f("lock_handle[0]", "8s", struct.pack("<Q", own_handle),
        "requester's lock handle (opaque, never swapped)", show=hx(own_handle))
    s.f("lock_handle[1]", "8s", bytes(8), "unused (h >= 2 on the wire)", show="0x0")
    assert s.size() == 104
    return s


def ldlm_reply(*, fid, name_hash, mode, handle, disp):
    s = Struct("ldlm_reply")
    s.f("lock_flags", "I", 0, "")
    s.f("lock_padding", "I", 0, "padding")
    lock_desc(s, fid=fid, name_hash=name_hash, req_mode=mode, granted_mode=mode, initiator=1)
    s.f("lock_handle", "8s", struct.pack("<Q", handle),
        "server's handle of the granted lock (opaque, never swapped)", show=hx(handle))
    names = [n for b, n in [(1, "DISP_IT_EXECD"), (2, "DISP_LOOKUP_EXECD"),
                            (4, "DISP_LOOKUP_NEG"), (8, "DISP_LOOKUP_POS")] if disp & b]
    s.f("lock_policy_res1", "Q", disp, " | ".join(names), show=hx(disp))
    s.f("lock_policy_res2", "Q", 0, "intent status: always 0 for a prepare intent")
    assert s.size() == 112
    return s


def ldlm_intent(opc):
    names = {IT_DNE_CREATE_PREPARE: "IT_DNE_CREATE_PREPARE",
             IT_DNE_RENAME_PREPARE: "IT_DNE_RENAME_PREPARE",
             IT_DNE_UNLINK_PREPARE: "IT_DNE_UNLINK_PREPARE"}
    return Struct("ldlm_intent").f("opc", "Q", opc, names[opc], show=hx(opc))


def mdt_body(*, fid, mode, uid, gid, flags, nlink, size, blocks, projid, mtime, ctime, btime):
    s = Struct("mdt_body")
    s.fid("mbo_fid1", fid, "the object described: " + fidstr(fid))
    s.fid("mbo_fid2", (0, 0, 0), "")
    s.f("mbo_open_handle", "8s", bytes(8), "opaque handle, never swapped", show="0x0")
    s.f("mbo_valid", "Q", GETATTR_VALID,
        "OBD_MD_ FLID FLATIME FLMTIME FLCTIME FLSIZE FLBLOCKS FLMODE FLTYPE FLUID FLGID FLFLAGS "
        "FLNLINK FLPROJID FLBTIME", show=hx(GETATTR_VALID))
    s.f("mbo_size", "Q", size)
    s.f("mbo_mtime", "q", mtime, "seconds")
    s.f("mbo_atime", "q", mtime, "seconds")
    s.f("mbo_ctime", "q", ctime, "seconds")
    s.f("mbo_blocks", "Q", blocks, "512-byte blocks")
    s.f("mbo_version", "Q", 0)
    s.f("mbo_t_state", "Q", 0)
    s.f("mbo_fsuid", "I", 0)
    s.f("mbo_fsgid", "I", 0)
    s.f("mbo_capability", "I", 0)
    s.f("mbo_mode", "I", mode, "", show="0o%06o" % mode)
    s.f("mbo_uid", "I", uid)
    s.f("mbo_gid", "I", gid)
    s.f("mbo_flags", "I", flags, "LUSTRE_PROJINHERIT_FL" if flags else "", show=hx(flags))
    s.f("mbo_rdev", "I", 0)
    s.f("mbo_nlink", "I", nlink)
    s.f("mbo_layout_gen", "I", 0)
    s.f("mbo_suppgid", "I", 0)
    s.f("mbo_eadatasize", "I", 0)
    s.f("mbo_aclsize", "I", 0)
    s.f("mbo_max_mdsize", "I", 0)
    s.f("mbo_unused3", "I", 0, "unused")
    s.f("mbo_uid_h", "I", 0)
    s.f("mbo_gid_h", "I", 0)
    s.f("mbo_projid", "I", projid)
    s.f("mbo_dom_size", "Q", 0)
    s.f("mbo_dom_blocks", "Q", 0)
    s.f("mbo_btime", "Q", btime, "seconds")
    s.f("mbo_xattr_absent", "Q", 0)
    s.f("mbo_padding_10", "Q", 0, "padding")
    assert s.size() == 216
    return s


# ---------------------------------------------------------------------------------------------
# New structures (docs/spec/WIRE.md sections 5 and 7)
# ---------------------------------------------------------------------------------------------
def prepare_req(*, fid, flags, child_mode, limits, fsuid=500, fsgid=500, umask=0o022, cap=0):
    s = Struct("md_create_prepare_req")
    s.fid("mcpr_fid", fid, "the intent's object " + fidstr(fid) + " = the lock resource's FID")
    fnames = [n for b, n in [(1, "MCPR_NO_LOOKUP"), (2, "MCPR_GROUPS_PARTIAL")] if flags & b]
    s.f("mcpr_flags", "I", flags, " | ".join(fnames) or "entry mode, complete groups",
        show=hx(flags))
    s.f("mcpr_fsuid", "I", fsuid, "caller's fsuid")
    s.f("mcpr_fsgid", "I", fsgid, "caller's fsgid")
    s.f("mcpr_umask", "I", umask, "", show="0o%03o" % umask)
    s.f("mcpr_cap", "Q", cap, "no capabilities (unprivileged caller)", show=hx(cap))
    s.f("mcpr_child_mode", "I", child_mode,
        "requested mode, before umask" if child_mode else "0: not a create", show="0o%06o" % child_mode)
    s.f("mcpr_padding0", "I", 0, "padding")
    for i, lim in enumerate(limits):
        s.f("mcpr_buf_limit[%d]" % i, "I", lim,
            MLI[i] + (": requested, at most %d bytes" % lim if lim else ": not requested"))
    s.f("mcpr_padding1", "Q", 0, "padding")
    assert s.size() == 80
    return s


def prepare_rep(*, status, flags, valid, truncated, fid=(0, 0, 0), child_mode=0, child_gid=0,
                child_projid=0, child_flags=0, sizes=(0,) * 6, size_notes=None):
    s = Struct("md_create_prepare_rep")
    errnames = {0: "success", -17: "-EEXIST", -13: "-EACCES"}
    s.f("mcpp_status", "i", status, errnames[status])
    fnames = [n for b, n in [(1, "LOOKUP_DONE"), (2, "LOOKUP_POS"), (4, "PERM_DONE"),
                             (8, "ADVISORY"), (0x10, "CHILD_DERIVED")] if flags & b]
    s.f("mcpp_flags", "I", flags, "MCPP_" + " | MCPP_".join(fnames) if fnames else "none",
        show=hx(flags))

    def mask(m):
        return " | ".join(MASK_NAMES[i] for i in range(6) if m >> i & 1) or "none"

    s.f("mcpp_valid", "I", valid, "known: " + mask(valid), show=hx(valid))
    s.f("mcpp_truncated", "I", truncated, "too large: " + mask(truncated), show=hx(truncated))
    s.fid("mcpp_fid", fid, ("entry found by the lookup " + fidstr(fid)) if fid != (0, 0, 0)
          else "zero: no positive lookup")
    if flags & MCPP_CHILD_DERIVED:
        mode_note = "the new child's effective mode (derived)"
        gid_note, projid_note = "the new child's gid (derived)", "the new child's projid (derived)"
    else:
        mode_note = "S_IFMT of the entry found" if flags & MCPP_LOOKUP_POS else "0: not derived"
        gid_note = projid_note = "0: not derived"
    s.f("mcpp_child_mode", "I", child_mode, mode_note, show="0o%06o" % child_mode)
    s.f("mcpp_child_gid", "I", child_gid, gid_note)
    s.f("mcpp_child_projid", "I", child_projid, projid_note)
    s.f("mcpp_child_flags", "I", child_flags,
        "LUSTRE_PROJINHERIT_FL" if child_flags else "", show=hx(child_flags))
    for i, sz in enumerate(sizes):
        note = (size_notes or {}).get(i, "")
        s.f("mcpp_buf_size[%d]" % i, "I", sz, MLI[i] + (": " + note if note else ""))
    s.f("mcpp_padding", "Q", 0, "padding")
    assert s.size() == 80
    return s


# ---------------------------------------------------------------------------------------------
# Xattr payloads (docs/spec/WIRE.md section 9): always little-endian, never swapped
# ---------------------------------------------------------------------------------------------
def posix_acl_default():
    s = Struct("system.posix_acl_default")
    s.f("a_version", "I", 2, "POSIX_ACL_XATTR_VERSION", swap=False)
    tags = {1: "ACL_USER_OBJ", 2: "ACL_USER", 4: "ACL_GROUP_OBJ", 0x10: "ACL_MASK",
            0x20: "ACL_OTHER"}
    entries = [(1, 7, 0xFFFFFFFF), (2, 7, 1000), (4, 5, 0xFFFFFFFF), (0x10, 7, 0xFFFFFFFF),
               (0x20, 5, 0xFFFFFFFF)]
    for i, (tag, perm, eid) in enumerate(entries):
        s.f("a_entries[%d].e_tag" % i, "H", tag, tags[tag], swap=False, show=hx(tag))
        s.f("a_entries[%d].e_perm" % i, "H", perm, "".join(
            c if perm >> (2 - k) & 1 else "-" for k, c in enumerate("rwx")), swap=False)
        s.f("a_entries[%d].e_id" % i, "I", eid,
            "uid 1000" if tag == 2 else "undefined (unnamed entry)", swap=False, show=hx(eid))
    assert s.pack("<").hex() == KERNEL_DEFAULT_ACL_HEX, "ACL differs from the kernel's bytes"
    return s


def pin_xattr():
    v = b"[hsm: 3,pool: fast]"
    return Struct("trusted.pin").f("value", "%ds" % len(v), v,
                                   "ASCII, no NUL: HSM archive 3, OST pool fast", swap=False)


def lmv_md():
    s = Struct("trusted.lmv (lmv_mds_md_v1)")
    L = dict(swap=False)
    s.f("lmv_magic", "I", LMV_MAGIC_V1, "LMV_MAGIC_V1: striped directory", show="0x%08x" % LMV_MAGIC_V1,
        **L)
    s.f("lmv_stripe_count", "I", 2, "", **L)
    s.f("lmv_master_mdt_index", "I", 0, "", **L)
    s.f("lmv_hash_type", "I", LMV_HASH_TYPE_FNV_1A_64, "LMV_HASH_TYPE_FNV_1A_64", **L)
    s.f("lmv_layout_version", "I", 0, "", **L)
    s.f("lmv_migrate_offset", "I", 0, "", **L)
    s.f("lmv_migrate_hash", "I", 0, "", **L)
    s.f("lmv_padding2", "I", 0, "padding", **L)
    s.f("lmv_padding3", "Q", 0, "padding", **L)
    s.f("lmv_pool_name", "16s", bytes(16), "no pool", **L)
    s.fid("lmv_stripe_fids[0]", (0x200000401, 0x2, 0x0), "stripe 0 on MDT0000", swap=False)
    s.fid("lmv_stripe_fids[1]", (0x240000401, 0x1, 0x0), "stripe 1 on MDT0001", swap=False)
    assert s.size() == 56 + 16 * 2
    return s


def lov_user_md_v1():
    s = Struct("trusted.lov (lov_user_md_v1)")
    L = dict(swap=False)
    s.f("lmm_magic", "I", LOV_USER_MAGIC_V1, "LOV_USER_MAGIC_V1", show="0x%08x" % LOV_USER_MAGIC_V1, **L)
    s.f("lmm_pattern", "I", LOV_PATTERN_RAID0, "LOV_PATTERN_RAID0", show=hx(LOV_PATTERN_RAID0),
        **L)
    s.f("lmm_oi", "16s", bytes(16), "ost_id: zero in a default layout", **L)
    s.f("lmm_stripe_size", "I", 1 << 20, "1 MiB", **L)
    s.f("lmm_stripe_count", "H", 2, "", **L)
    s.f("lmm_stripe_offset", "H", 0xFFFF, "LOV_OFFSET_DEFAULT", show="0xffff", **L)
    assert s.size() == 32
    return s


def lmv_user_md_v1():
    s = Struct("trusted.dmv (lmv_user_md_v1)")
    L = dict(swap=False)
    s.f("lum_magic", "I", LMV_USER_MAGIC, "LMV_USER_MAGIC", show="0x%08x" % LMV_USER_MAGIC, **L)
    s.f("lum_stripe_count", "i", 2, "new subdirectories get 2 stripes", **L)
    s.f("lum_stripe_offset", "I", 0xFFFFFFFF, "LMV_OFFSET_DEFAULT", show="0xffffffff", **L)
    s.f("lum_hash_type", "I", LMV_HASH_TYPE_FNV_1A_64, "LMV_HASH_TYPE_FNV_1A_64", **L)
    s.f("lum_type", "I", 0, "LMV_TYPE_DEFAULT", **L)
    s.f("lum_max_inherit", "B", 3, "u8", **L)
    s.f("lum_max_inherit_rr", "B", 0, "u8: LMV_INHERIT_RR_NONE", **L)
    s.f("lum_padding1", "H", 0, "padding", **L)
    s.f("lum_padding2", "I", 0, "padding", **L)
    s.f("lum_padding3", "I", 0, "padding", **L)
    s.f("lum_pool_name", "16s", bytes(16), "no pool", **L)
    assert s.size() == 48
    return s


def name_buf(name):
    v = name + b"\0"
    return Struct("name").f("name", "%ds" % len(v), v, "entry name + NUL (never swapped)",
                            show='"%s" + NUL' % name.decode())


def groups_buf(groups):
    s = Struct("groups")
    for i, g in enumerate(groups):
        s.f("groups[%d]" % i, "I", g, "supplementary gid")
    return s


# ---------------------------------------------------------------------------------------------
# Message framing (docs/spec/WIRE.md section 2)
# ---------------------------------------------------------------------------------------------
def message(order, buffers, *, repsize):
    """buffers: list of (label, Struct or None). Returns (bytes, rows, layout)."""
    packed = [b.pack(order) if b is not None else b"" for _, b in buffers]
    n = len(buffers)
    hdr = Struct("lustre_msg_v2")
    hdr.f("lm_bufcount", "I", n)
    hdr.f("lm_secflvr", "I", 0, "null flavour")
    hdr.f("lm_magic", "I", LUSTRE_MSG_MAGIC_V2,
          "LUSTRE_MSG_MAGIC_V2 in the sender's order" + (" (reads 0xd30bd00b as LE: swabbed)"
                                                          if order == ">" else ""),
          show="0x%08x" % LUSTRE_MSG_MAGIC_V2)
    hdr.f("lm_repsize", "I", repsize,
          "reply space = a 9-buffer reply with every result at its limit (docs/spec/WIRE.md section 8)"
          if repsize else "0: a reply preallocates no reply space")
    hdr.f("lm_cksum", "I", 0)
    hdr.f("lm_flags", "I", MSGHDR_AT_SUPPORT, "MSGHDR_AT_SUPPORT")
    hdr.f("lm_opc", "I", 0)
    hdr.f("lm_padding_3", "I", 0, "padding")
    for i, (label, _) in enumerate(buffers):
        hdr.f("lm_buflens[%d]" % i, "I", len(packed[i]), label)
    out = hdr.pack(order)
    rows = []
    off = 0
    for fl in hdr.fields:
        rows.append(("hdr", off, fl))
        off += len(fl.pack("<"))
    out += bytes(round8(len(out)) - len(out))
    layout = []
    for i, ((label, st), data) in enumerate(zip(buffers, packed)):
        start = len(out)
        layout.append((i, label, start, len(data)))
        if st is not None:
            off = start
            for fl in st.fields:
                rows.append((str(i), off, fl))
                off += len(fl.pack("<"))
        out += data + bytes(round8(len(data)) - len(data))
    return out, rows, layout


# ---------------------------------------------------------------------------------------------
# The scenario
# ---------------------------------------------------------------------------------------------
PARENT = (0x200000401, 0x1, 0x0)        # the parent directory, on MDT0000
CHILD_EXISTING = (0x200000401, 0x5, 0x0)
VICTIM = (0x200000401, 0x3, 0x0)
RENAMED_OBJ = (0x200000402, 0x1a, 0x0)
CONN_HANDLE = 0x8d6a3c2f51e70b19
OWN_LOCK_HANDLE = 0x5ad1c3e8f0a24b67
SERVER_LOCK_HANDLE = 0x2b4e6f8091a3c5d7
LAST_COMMITTED = 0x3000004d2
T0 = 1767225600                         # 2026-01-01T00:00:00Z
LIMITS_ALL = [216, 4096, 4096, 4096, 4096, 4096]
GROUPS = [100, 600, 700]
GROUPS_PARTIAL = [100, 700, 800]


def reply_size_for(limits):
    return round8(32 + 4 * 9) + 184 + 112 + 80 + sum(round8(x) for x in limits)


def parent_body():
    # setgid directory, owner 100, group 600, rwxrwsr-x, project 1000 inherited by children
    return mdt_body(fid=PARENT, mode=S_IFDIR | S_ISGID | 0o775, uid=100, gid=600,
                    flags=LUSTRE_PROJINHERIT_FL, nlink=3, size=4096, blocks=8, projid=1000,
                    mtime=T0, ctime=T0, btime=T0 - 86400)


def object_body():
    return mdt_body(fid=RENAMED_OBJ, mode=S_IFREG | 0o644, uid=500, gid=600, flags=0, nlink=1,
                    size=12345, blocks=32, projid=1000, mtime=T0 + 60, ctime=T0 + 60,
                    btime=T0 + 60)


def request(order, *, op, fid, flags, child_mode, limits, name, groups, mode, xid, jobid):
    nh = fnv1a64(name) if name else 0
    body = ptlrpc_body(handle=CONN_HANDLE, msg_type=PTL_RPC_MSG_REQUEST, last_xid=xid - 1,
                       last_committed=LAST_COMMITTED, flags=MSG_PACK_UID_GID, conn_cnt=1,
                       timeout=100, mbits=xid, uid=500, gid=500, jobid=jobid)
    bufs = [("ptlrpc_body_v3", body),
            ("ldlm_request", ldlm_request(fid=fid, name_hash=nh, mode=mode,
                                          own_handle=OWN_LOCK_HANDLE)),
            ("ldlm_intent", ldlm_intent(op)),
            ("md_create_prepare_req", prepare_req(fid=fid, flags=flags, child_mode=child_mode,
                                                  limits=limits)),
            ("name" if name else "name (empty: object mode)", name_buf(name) if name else None),
            ("groups", groups_buf(groups))]
    return message(order, bufs, repsize=reply_size_for(limits))


def reply(order, *, fid, name, mode, xid, disp, rep, results):
    nh = fnv1a64(name) if name else 0
    body = ptlrpc_body(handle=CONN_HANDLE, msg_type=PTL_RPC_MSG_REPLY, last_xid=xid,
                       last_committed=LAST_COMMITTED, conn_cnt=1, timeout=100, service_time=1,
                       limit=40000, slv=0x1b2e0f, mbits=xid)
    bufs = [("ptlrpc_body_v3", body),
            ("ldlm_reply", ldlm_reply(fid=fid, name_hash=nh, mode=mode,
                                      handle=SERVER_LOCK_HANDLE, disp=disp)),
            ("md_create_prepare_rep" if rep is not None else "md_create_prepare_rep (empty: "
             "the empty result)", rep)]
    for i in range(6):
        r = results[i] if results else None
        label = "result %d %s" % (i, MLI[i])
        if r is None:
            label += " (empty)"
        bufs.append((label, r))
    return message(order, bufs, repsize=0)


XID_MKDIR = 0x0005f3c2a1b00041
XID_PARTIAL = 0x0005f3c2a1b00051
XID_RENAME = 0x0005f3c2a1b00061
XID_UNLINK = 0x0005f3c2a1b00071


def mkdir_request(order, partial=False):
    return request(order, op=IT_DNE_CREATE_PREPARE, fid=PARENT,
                   flags=MCPR_GROUPS_PARTIAL if partial else 0, child_mode=S_IFDIR | 0o755,
                   limits=LIMITS_ALL, name=b"newdir",
                   groups=GROUPS_PARTIAL if partial else GROUPS, mode=LCK_PW,
                   xid=XID_PARTIAL if partial else XID_MKDIR, jobid=b"mkdir.500")


def all_results():
    return [parent_body(), posix_acl_default(), pin_xattr(), lmv_md(), lov_user_md_v1(),
            lmv_user_md_v1()]


def sizes_of(results):
    return tuple(r.size() if r is not None else 0 for r in results)


DERIVED = dict(child_mode=S_IFDIR | S_ISGID | 0o755, child_gid=600, child_projid=1000,
               child_flags=LUSTRE_PROJINHERIT_FL)
NEG = DISP_IT_EXECD | DISP_LOOKUP_EXECD | DISP_LOOKUP_NEG
POS = DISP_IT_EXECD | DISP_LOOKUP_EXECD | DISP_LOOKUP_POS


def mkdir_reply_complete(order):
    res = all_results()
    rep = prepare_rep(status=0, flags=MCPP_LOOKUP_DONE | MCPP_PERM_DONE | MCPP_CHILD_DERIVED,
                      valid=0x3f, truncated=0, sizes=sizes_of(res), **DERIVED)
    return reply(order, fid=PARENT, name=b"newdir", mode=LCK_PW, xid=XID_MKDIR, disp=NEG,
                 rep=rep, results=res)


VECTORS = []


def vector(name, what, notes=""):
    def deco(fn):
        VECTORS.append((name, what, notes, fn))
        return fn
    return deco


COMMON_NOTES = """Scenario: a coordinator MDT (MDT0001) prepares an operation in the parent directory
[0x200000401:0x1:0x0] on MDT0000 for a caller with fsuid/fsgid 500 and supplementary groups
100, 600, 700. The parent is a setgid directory (mode 0o042775, owner 100, group 600) with
LUSTRE_PROJINHERIT_FL and project 1000. The name hash in `name[3]` of the lock resource is
FNV-1a-64 of the entry name with 0 mapped to 1, the crate's provisional choice (docs/spec/WIRE.md
section 3: any 64-bit value is valid; Lustre itself uses the kernel's `full_name_hash`)."""


@vector("mkdir_request", "IT_DNE_CREATE_PREPARE request (mkdir of \"newdir\", entry mode), all six "
        "results requested", COMMON_NOTES + """

`lm_repsize` is exactly the size docs/spec/WIRE.md section 8 asks for: a 9-buffer reply whose result i
is `mcpr_buf_limit[i]` bytes: 72 + 184 + 112 + 80 + 216 + 5 x 4096 = 21144.
`pb_mbits` carries the request's xid (Lustre puts the xid in the match bits; `pb_last_xid` is
the xid of the last reply seen). The request's lock handle 0 is the requester's own handle;
`lock_handle[1]` is the second handle every `ldlm_request` carries on the wire.""")
def _v_mkdir_request():
    return mkdir_request("<")


@vector("mkdir_request_partial", "IT_DNE_CREATE_PREPARE request like mkdir_request, but with "
        "MCPR_GROUPS_PARTIAL: buffer 5 does not hold all of the caller's groups", COMMON_NOTES + """

Here the caller is in more groups than were sent; the groups sent are 100, 700, 800 (group 600,
which owns the parent, is among those left out). A real coordinator sets MCPR_GROUPS_PARTIAL when
it cuts a list of more than 128 groups to 128; the vector sends three to stay short, which the
wire format allows (the flag, not the count, says the list is partial). Answered by
mkdir_reply_advisory.""")
def _v_mkdir_request_partial():
    return mkdir_request("<", partial=True)


@vector("mkdir_reply_complete", "reply to mkdir_request: all six results present, lookup "
        "negative, permission checked, child attributes derived", COMMON_NOTES + """

Results (each describes the parent):
- PATTR: the parent's `mdt_body` (216 bytes).
- DEF_ACL: `system.posix_acl_default` = `user::rwx, user:1000:rwx, group::r-x, mask::rwx,
  other::r-x` (44 bytes). These bytes are what the Linux kernel returned for
  `setfacl -d -m u::rwx,u:1000:rwx,g::r-x,m::rwx,o::r-x d; getfattr -e hex -n
  system.posix_acl_default d` on ext4; the generator packs them field by field and asserts
  equality with the kernel's hex.
- PIN: `[hsm: 3,pool: fast]` (19 bytes, no NUL).
- LMV: `lmv_mds_md_v1`, 2 stripes, FNV-1a-64 (88 bytes).
- LOV: `lov_user_md_v1` default layout, 2 stripes of 1 MiB (32 bytes).
- DEF_LMV: `lmv_user_md_v1`, 2 stripes, max_inherit 3 (48 bytes).

Derived child (MCPP_CHILD_DERIVED): requested mode 0o040755. Because the parent has a default
ACL, the umask is not applied; the mode is masked by the ACL (user_obj rwx, mask rwx, other r-x)
which leaves 0o755; the parent is setgid, so the new directory gets S_ISGID and the parent's gid
600: child_mode 0o042755, child_gid 600. The parent has PROJINHERIT: child_projid 1000 and
child_flags LUSTRE_PROJINHERIT_FL.""")
def _v_mkdir_reply_complete():
    return mkdir_reply_complete("<")


@vector("mkdir_reply_absent", "reply to mkdir_request: PATTR and LOV present, DEF_ACL, PIN, LMV "
        "and DEF_LMV known absent", COMMON_NOTES + """

All six valid bits are set. DEF_ACL, PIN, LMV and DEF_LMV are *known absent*: valid bit set,
buffer empty, `mcpp_buf_size[i]` 0 (the parent has no such xattr: a negative cache entry for the
coordinator). Without a default ACL the umask applies: 0o040755 & ~0o022 = 0o040755, plus
S_ISGID from the setgid parent: child_mode 0o042755.""")
def _v_mkdir_reply_absent():
    res = [parent_body(), None, None, None, lov_user_md_v1(), None]
    rep = prepare_rep(status=0, flags=MCPP_LOOKUP_DONE | MCPP_PERM_DONE | MCPP_CHILD_DERIVED,
                      valid=0x3f, truncated=0, sizes=sizes_of(res),
                      size_notes={1: "known absent", 2: "known absent", 3: "known absent",
                                  5: "known absent"}, **DERIVED)
    return reply("<", fid=PARENT, name=b"newdir", mode=LCK_PW, xid=XID_MKDIR, disp=NEG, rep=rep,
                 results=res)


@vector("mkdir_reply_eexist", "reply to mkdir_request: the name exists (-EEXIST, not advisory)",
        COMMON_NOTES + """

The lookup found "newdir" as [0x200000401:0x5:0x0], a directory: MCPP_LOOKUP_DONE |
MCPP_LOOKUP_POS | MCPP_PERM_DONE, DISP_LOOKUP_POS, status -17 (EEXIST, Linux numbering), and
`mcpp_child_mode` is the S_IFMT of the entry only (0o040000). MCPP_ADVISORY is clear, so the
status is the operation's answer. Only PATTR is returned (valid); the other results were not
read (valid and truncated bits clear: unknown).""")
def _v_mkdir_reply_eexist():
    res = [parent_body(), None, None, None, None, None]
    rep = prepare_rep(status=-17, flags=MCPP_LOOKUP_DONE | MCPP_LOOKUP_POS | MCPP_PERM_DONE,
                      valid=0x01, truncated=0, fid=CHILD_EXISTING, child_mode=S_IFDIR,
                      sizes=sizes_of(res))
    return reply("<", fid=PARENT, name=b"newdir", mode=LCK_PW, xid=XID_MKDIR, disp=POS, rep=rep,
                 results=res)


@vector("mkdir_reply_empty", "reply to mkdir_request: the empty result (lock granted, no prepare "
        "result)", COMMON_NOTES + """

Nine buffers; buffer 2 (`md_create_prepare_rep`) and all six result buffers are empty. This is
the *empty result* of docs/spec/WIRE.md section 7: the lock is granted (DISP_IT_EXECD only: no lookup ran)
and the coordinator falls back to its ordinary reads; every result is unknown.""")
def _v_mkdir_reply_empty():
    return reply("<", fid=PARENT, name=b"newdir", mode=LCK_PW, xid=XID_MKDIR, disp=DISP_IT_EXECD,
                 rep=None, results=None)


@vector("mkdir_reply_advisory", "reply to mkdir_request_partial: -EACCES decided on incomplete "
        "groups, so MCPP_ADVISORY", COMMON_NOTES + """

The request had MCPR_GROUPS_PARTIAL and its groups (100, 700, 800) lack 600, the parent's group,
so the write permission check on the parent (0o2775, owner 100) failed with -EACCES (-13). With
incomplete groups that verdict is only advisory: MCPP_ADVISORY is set and the coordinator redoes
the permission check through its ordinary path. CHILD_DERIVED is not set (status is not 0). The
results are still authoritative: PATTR and DEF_ACL present, PIN, LMV, LOV, DEF_LMV known
absent.""")
def _v_mkdir_reply_advisory():
    res = [parent_body(), posix_acl_default(), None, None, None, None]
    rep = prepare_rep(status=-13, flags=MCPP_LOOKUP_DONE | MCPP_PERM_DONE | MCPP_ADVISORY,
                      valid=0x3f, truncated=0, sizes=sizes_of(res),
                      size_notes={2: "known absent", 3: "known absent", 4: "known absent",
                                  5: "known absent"})
    return reply("<", fid=PARENT, name=b"newdir", mode=LCK_PW, xid=XID_PARTIAL, disp=NEG,
                 rep=rep, results=res)


@vector("mkdir_reply_lov_truncated", "reply to mkdir_request: LOV too large for the 4096-byte "
        "limit (truncated), the other five present", COMMON_NOTES + """

The parent's `trusted.lov` is a 5320-byte composite layout, over the request's LOV limit of
4096: `mcpp_truncated` has the LOV bit, `mcpp_valid` does not, `mcpp_buf_size[4]` = 5320 (its
real size) and buffer 7 is empty (a partial xattr is never sent). The coordinator reads the
LOV itself.""")
def _v_mkdir_reply_lov_truncated():
    res = all_results()
    res[4] = None
    sizes = list(sizes_of(res))
    sizes[4] = 5320
    rep = prepare_rep(status=0, flags=MCPP_LOOKUP_DONE | MCPP_PERM_DONE | MCPP_CHILD_DERIVED,
                      valid=0x2f, truncated=0x10, sizes=tuple(sizes),
                      size_notes={4: "real size, over the 4096 limit: truncated"}, **DERIVED)
    return reply("<", fid=PARENT, name=b"newdir", mode=LCK_PW, xid=XID_MKDIR, disp=NEG, rep=rep,
                 results=res)


RENAME_NOTES = """Scenario: a rename in object mode. The coordinator (MDT0001) prepares the object
[0x200000402:0x1a:0x0] itself (a regular file on MDT0000): MCPR_NO_LOOKUP, no name (buffer 4
empty), `mcpr_child_mode` 0, a whole-object lock (name[3] = 0) in LCK_EX with
MDS_INODELOCK_UPDATE. Only PATTR is requested (limit 216), so `lm_repsize` = 72 + 184 + 112 +
80 + 216 = 664. In object mode the results describe the object, not a parent."""


@vector("rename_object_request", "IT_DNE_RENAME_PREPARE request in object mode (MCPR_NO_LOOKUP), "
        "PATTR only", RENAME_NOTES)
def _v_rename_object_request():
    return request("<", op=IT_DNE_RENAME_PREPARE, fid=RENAMED_OBJ, flags=MCPR_NO_LOOKUP,
                   child_mode=0, limits=[216, 0, 0, 0, 0, 0], name=b"", groups=GROUPS,
                   mode=LCK_EX, xid=XID_RENAME, jobid=b"mv.500")


@vector("rename_object_reply", "reply to rename_object_request: the object's PATTR",
        RENAME_NOTES + """

No lookup ran (DISP_IT_EXECD only, `mcpp_flags` 0, `mcpp_fid` zero). PATTR is the object's
`mdt_body`: a regular file, mode 0o100644, uid 500, gid 600, 12345 bytes, project 1000.""")
def _v_rename_object_reply():
    res = [object_body(), None, None, None, None, None]
    rep = prepare_rep(status=0, flags=0, valid=0x01, truncated=0, sizes=sizes_of(res))
    return reply("<", fid=RENAMED_OBJ, name=b"", mode=LCK_EX, xid=XID_RENAME, disp=DISP_IT_EXECD,
                 rep=rep, results=res)


UNLINK_NOTES = COMMON_NOTES + """

The unlink of "victim" asks for PATTR (216) and LMV (4096) only: `lm_repsize` = 72 + 184 + 112 +
80 + 216 + 4096 = 4760. `mcpr_child_mode` is 0 (not a create)."""


@vector("unlink_request", "IT_DNE_UNLINK_PREPARE request (unlink of \"victim\", entry mode), PATTR "
        "and LMV", UNLINK_NOTES)
def _v_unlink_request():
    return request("<", op=IT_DNE_UNLINK_PREPARE, fid=PARENT, flags=0, child_mode=0,
                   limits=[216, 0, 0, 4096, 0, 0], name=b"victim", groups=GROUPS, mode=LCK_PW,
                   xid=XID_UNLINK, jobid=b"rm.500")


@vector("unlink_reply", "reply to unlink_request: positive lookup of the victim, PATTR and LMV "
        "present", UNLINK_NOTES + """

The lookup found "victim" = [0x200000401:0x3:0x0], a regular file: MCPP_LOOKUP_DONE |
MCPP_LOOKUP_POS | MCPP_PERM_DONE, DISP_LOOKUP_POS, status 0, `mcpp_child_mode` = S_IFREG
(0o100000, the type only).""")
def _v_unlink_reply():
    res = [parent_body(), None, None, lmv_md(), None, None]
    rep = prepare_rep(status=0, flags=MCPP_LOOKUP_DONE | MCPP_LOOKUP_POS | MCPP_PERM_DONE,
                      valid=0x09, truncated=0, fid=VICTIM, child_mode=S_IFREG,
                      sizes=sizes_of(res))
    return reply("<", fid=PARENT, name=b"victim", mode=LCK_PW, xid=XID_UNLINK, disp=POS, rep=rep,
                 results=res)


BE_NOTES = """Big-endian copy (a big-endian peer, or a swabbed message as a little-endian
receiver sees it; docs/spec/WIRE.md section 1). Same values as the little-endian vector, but every
numeric field of the header, `lm_buflens`, buffers 0-3 and the groups buffer is big-endian.
Not swapped: `pb_handle`, `lock_handle[]` (opaque cookies: the same 8 bytes as in the LE
vector), `pb_jobid`, the entry name, padding, and the xattr payloads of reply buffers 4-8
(always little-endian). A reply's buffer 3 (PATTR, an `mdt_body`) *is* swapped, except
`mbo_open_handle`. The table shows values; bytes at each offset are that value in the order
stated above."""


@vector("mkdir_request_be", "big-endian copy of mkdir_request", BE_NOTES + "\n\n" + COMMON_NOTES)
def _v_mkdir_request_be():
    return mkdir_request(">")


@vector("mkdir_reply_be", "big-endian copy of mkdir_reply_complete (reply to mkdir_request_be)",
        BE_NOTES + "\n\n" + COMMON_NOTES)
def _v_mkdir_reply_be():
    return mkdir_reply_complete(">")


# ---------------------------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------------------------
def cell(text):
    """A markdown table cell: a literal '|' is escaped."""
    return text.replace("|", "\\|")


def write_md(name, what, notes, data, rows, layout):
    order = "big-endian" if name.endswith("_be") else "little-endian"
    lines = ["# %s" % name, "", what + ".", "", notes, "",
             "## How it was made", "",
             "Written by `testdata/gen_vectors.py` (Python 3 standard library, `struct.pack`), "
             "an implementation of the layouts of docs/spec/WIRE.md independent of the Rust crate. "
             "Regenerate with `python3 testdata/gen_vectors.py`; the output is deterministic. "
             "`tests/golden/` decodes this file with the crate, asserts the values below "
             "(hard-coded there), re-encodes it byte for byte and sweeps its truncations.", "",
             "## Layout", "",
             "%d bytes, %s, %d buffers (header %d bytes)." % (
                 len(data), order, len(layout), round8(32 + 4 * len(layout))), "",
             "| buffer | offset | length | content |", "|---|---|---|---|"]
    for i, label, start, ln in layout:
        lines.append("| %d | %d | %d | %s |" % (i, start, ln, label))
    lines += ["", "## Fields", "",
              "Offsets are from the start of the file. Buffer `hdr` is the `lustre_msg_v2` "
              "header. Padding after each buffer (to 8 bytes) is zero and not listed.", "",
              "| buffer | offset | field | value | meaning |", "|---|---|---|---|---|"]
    for buf, off, fl in rows:
        lines.append("| %s | %d | %s | %s | %s |" % (buf, off, fl.name, cell(fl.shown()),
                                                    cell(fl.meaning)))
    lines.append("")
    with open(os.path.join(HERE, name + ".md"), "w") as fh:
        fh.write("\n".join(lines))


def main():
    for name, what, notes, fn in VECTORS:
        data, rows, layout = fn()
        assert len(data) % 8 == 0
        with open(os.path.join(HERE, name + ".bin"), "wb") as fh:
            fh.write(data)
        write_md(name, what, notes, data, rows, layout)
        print("%-28s %6d bytes" % (name, len(data)))


if __name__ == "__main__":
    main()
