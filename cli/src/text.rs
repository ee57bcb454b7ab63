//! The text form of a message: one line per field, grouped by buffer, values named the way a
//! Lustre engineer reads them (flag and opcode names, FIDs, octal modes, errno names).

use lustre_dne_intent::Endian;
use lustre_dne_intent::errno::ErrnoName;
use lustre_dne_intent::intent::{
    MliBuf, PrepResult, ReplyView, RequestView, ResultMask, UnknownReason,
};
use lustre_dne_intent::mode;
use lustre_dne_intent::wire::layout::{
    Field, FieldAt, FieldType, Layout, md_create_prepare_rep as rep, md_create_prepare_req as req,
    ptlrpc_body as pb,
};
use lustre_dne_intent::wire::{
    LUSTRE_MSG_MAGIC_V2, LdlmLockDesc, LockHandles, LuFid, MdtBody, MsgView, PtlrpcBody, WireStruct,
};
use lustre_dne_intent::xattr::LayoutOf;
use lustre_dne_intent_capture::opcode_name;
use std::fmt::{Display, Write};

/// Column where values start.
const COL: usize = 24;

/// A text report being built.
struct Out(String);

impl Out {
    fn line(&mut self, s: impl Display) {
        let _ = writeln!(self.0, "{s}");
    }

    /// `name value`, indented by `level` steps and aligned on [`COL`].
    fn field(&mut self, level: usize, name: &str, value: impl Display) {
        let pad = 2 * level;
        let width = COL.saturating_sub(pad).max(name.len());
        let _ = writeln!(self.0, "{:pad$}{name:<width$} {value}", "");
    }

    fn buffer(&mut self, msg: &MsgView<'_>, i: usize, what: &str) {
        let len = msg.buffer_or_empty(i).len();
        if i < msg.bufcount() {
            self.line(format_args!(
                "buffer {i}: {what} ({len} bytes @ {})",
                msg.buffer_offset(i)
            ));
        } else {
            self.line(format_args!(
                "buffer {i}: {what} (not sent: past lm_bufcount)"
            ));
        }
    }
}

/// Buffers past the ones the protocol defines: shown, never interpreted.
fn extra_buffers(o: &mut Out, msg: &MsgView<'_>, defined: usize) {
    for i in defined..msg.bufcount() {
        o.buffer(msg, i, "extra buffer, not part of the protocol (ignored)");
    }
}

/// A bit set by name with its raw value: `HAS_INTENT (0x1000)`, or `0`.
fn flags(named: impl Display, raw: u64) -> String {
    if raw == 0 {
        "0".into()
    } else {
        format!("{named} ({raw:#x})")
    }
}

/// An enumeration by name with its raw value: `LCK_PW (2)`.
fn named(named: impl Display, raw: u64) -> String {
    format!("{named} ({raw})")
}

/// `-17 (EEXIST)`, or `0`.
fn status(s: i32) -> String {
    match s {
        0 => "0".into(),
        s if s < 0 => format!("{s} ({})", ErrnoName::of_status(s)),
        s => format!("{s} (positive: not an errno)"),
    }
}

/// `rwxr-xr-x` with set-id and sticky bits, after the `ls -l` type letter.
fn ls_mode(m: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(mode::type_char(m));
    let bit = |b: u32, c: char| if m & b != 0 { c } else { '-' };
    let special = |x: u32, sp: u32, on: char, off: char| match (m & x != 0, m & sp != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => 'x',
        (false, false) => '-',
    };
    s.push(bit(0o400, 'r'));
    s.push(bit(0o200, 'w'));
    s.push(special(0o100, mode::S_ISUID, 's', 'S'));
    s.push(bit(0o040, 'r'));
    s.push(bit(0o020, 'w'));
    s.push(special(0o010, mode::S_ISGID, 's', 'S'));
    s.push(bit(0o004, 'r'));
    s.push(bit(0o002, 'w'));
    s.push(special(0o001, mode::S_ISVTX, 't', 'T'));
    s
}

/// A file mode in octal with its type: `040755 (S_IFDIR, drwxr-xr-x)`; `0` alone.
pub fn file_mode(m: u32) -> String {
    if m == 0 {
        return "0".into();
    }
    let ty = match mode::type_name(m) {
        Some(n) => n.to_string(),
        None if m & mode::S_IFMT == 0 => "no file type".into(),
        None => format!("unknown file type {:o}", m & mode::S_IFMT),
    };
    format!("0{m:o} ({ty}, {})", ls_mode(m))
}

fn byte_order(order: Endian) -> &'static str {
    match order {
        Endian::Little => "le (little-endian)",
        Endian::Big => "be (big-endian: swabbed for a little-endian host)",
    }
}

fn quoted(bytes: &[u8]) -> String {
    format!("\"{}\"", bytes.escape_ascii())
}

fn header(o: &mut Out, msg: &MsgView<'_>) {
    let h = msg.header();
    o.line(format_args!(
        "lustre_msg_v2 header ({} bytes @ 0)",
        msg.buffer_offset(0)
    ));
    o.field(1, "lm_bufcount", msg.bufcount());
    o.field(1, "lm_secflvr", h.secflvr);
    o.field(
        1,
        "lm_magic",
        format_args!(
            "{LUSTRE_MSG_MAGIC_V2:#010x} (LUSTRE_MSG_MAGIC_V2, {} order)",
            msg.order().name()
        ),
    );
    o.field(1, "lm_repsize", h.repsize);
    o.field(1, "lm_cksum", format_args!("{:#x}", h.cksum));
    o.field(1, "lm_flags", format_args!("{:#x}", h.flags));
    o.field(1, "lm_opc", h.opc);
    let lens: Vec<String> = msg.buflens().map(|l| l.to_string()).collect();
    o.field(1, "lm_buflens", format_args!("[{}]", lens.join(", ")));
}

/// How a member's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Show {
    Dec,
    Hex,
    /// One of the member's named values: `PTL_RPC_MSG_REQUEST (4711)`.
    Enum,
    /// Named bits: `MSG_PACK_UID_GID (0x200)`.
    Flags,
    /// 0 or a negative errno: `-17 (EEXIST)`.
    Errno,
    /// A Lustre opcode: `101 (LDLM_ENQUEUE)`.
    Opcode,
    /// NUL-padded text.
    Text,
}

/// How member `f` of structure `l` is shown. This is where the declaration's display hint
/// plugs in once `Field` carries one; until then the C type and the named values decide, and
/// the members listed here (by their `FieldAt`, not by a spelling) are the exceptions.
fn display(l: &Layout, f: &Field) -> Show {
    let is = |at: FieldAt| at.structure == l.name && at.name == f.name;
    if is(pb::pb_status) {
        Show::Errno
    } else if is(pb::pb_opc) {
        Show::Opcode
    } else if is(pb::pb_type) {
        Show::Enum
    } else if [
        pb::pb_handle,
        pb::pb_version,
        pb::pb_op_flags,
        pb::pb_pre_versions,
        pb::pb_mbits,
    ]
    .into_iter()
    .any(is)
    {
        Show::Hex
    } else {
        match (f.ty, f.names) {
            (FieldType::U8, _) => Show::Text,
            (_, Some(_)) => Show::Flags,
            _ => Show::Dec,
        }
    }
}

/// An integer of `size` bytes at `at` of `bytes` in `order`.
fn read_int(bytes: &[u8], at: usize, size: usize, order: Endian) -> u64 {
    let mut word = [0u8; 8];
    let src = &bytes[at..at + size];
    match order {
        Endian::Little => {
            word[..size].copy_from_slice(src);
            u64::from_le_bytes(word)
        }
        Endian::Big => {
            word[8 - size..].copy_from_slice(src);
            u64::from_be_bytes(word)
        }
    }
}

/// The names of the bits set in `raw`, and any bit without a name in hex: `A|B|0x40`.
fn bit_names(names: &[(&str, u64)], raw: u64) -> String {
    let mut rest = raw;
    let mut out: Vec<String> = Vec::new();
    for &(n, v) in names {
        if v != 0 && raw & v == v {
            out.push(n.to_string());
            rest &= !v;
        }
    }
    if rest != 0 {
        out.push(format!("{rest:#x}"));
    }
    out.join("|")
}

/// One element's value, as [`display`] says.
fn value(show: Show, f: &Field, raw: u64) -> String {
    let names = f.names.unwrap_or(&[]);
    match show {
        Show::Dec if matches!(f.ty, FieldType::S32) => (raw as u32 as i32).to_string(),
        Show::Dec | Show::Text => raw.to_string(),
        Show::Hex => format!("{raw:#x}"),
        Show::Enum => match names.iter().find(|(_, v)| *v == raw) {
            Some((n, _)) => named(n, raw),
            None => raw.to_string(),
        },
        Show::Flags => flags(bit_names(names, raw), raw),
        Show::Errno => status(raw as u32 as i32),
        Show::Opcode => match u32::try_from(raw).ok().and_then(opcode_name) {
            Some(n) => format!("{raw} ({n})"),
            None => raw.to_string(),
        },
    }
}

/// A NUL-padded text member: `"mkdir.500"`, and what follows the NUL when it is not zeros.
fn text_value(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let (text, pad) = bytes.split_at(end);
    if pad.iter().all(|&b| b == 0) {
        quoted(text)
    } else {
        format!("{} (bytes after the NUL: {})", quoted(text), quoted(pad))
    }
}

/// Every member of structure `l` that `bytes` hold (padding and reserved ones left out), one
/// line each, as [`display`] says: the layout is the list, so a new member is printed too. A
/// member past the end of `bytes` (a shorter version of the structure) is said to be absent.
fn structure(o: &mut Out, level: usize, l: &Layout, bytes: &[u8], order: Endian) {
    for f in l.fields {
        if f.rust.is_none() {
            continue;
        }
        if f.offset + f.size > bytes.len() {
            o.field(
                level,
                f.name,
                format_args!("(none: {} bytes end before it)", bytes.len()),
            );
            continue;
        }
        let show = display(l, f);
        let (at, count) = (f.offset, f.array.map_or(1, |a| a.len));
        match f.ty {
            FieldType::U8 if show == Show::Text => {
                o.field(level, f.name, text_value(&bytes[at..at + f.size]))
            }
            FieldType::Struct(inner) if inner.fields.len() == 1 && count == 1 => {
                // A structure of one word (lustre_handle's cookie) stands for that word, which
                // is opaque: never byte-swapped, read as the codec reads it (little-endian).
                let w = &inner.fields[0];
                let raw = read_int(bytes, at + w.offset, w.ty.size(), Endian::Little);
                o.field(level, f.name, value(show, w, raw));
            }
            FieldType::Struct(inner) => {
                o.line(format_args!("{:pad$}{}:", "", f.name, pad = 2 * level));
                structure(o, level + 1, inner, &bytes[at..at + f.size], order);
            }
            ty if f.array.is_some() => {
                for k in 0..count {
                    let raw = read_int(bytes, at + k * ty.size(), ty.size(), order);
                    o.field(level, &format!("{}[{k}]", f.name), value(show, f, raw));
                }
            }
            ty => {
                let raw = read_int(bytes, at, ty.size(), order);
                o.field(level, f.name, value(show, f, raw));
            }
        }
    }
}

fn lock_desc(o: &mut Out, d: &LdlmLockDesc) {
    o.line("  lock_desc:");
    o.field(2, "lr_type", named(d.lr_type, d.lr_type.0.into()));
    let n = d.resource.name;
    o.field(
        2,
        "lr_name",
        format_args!("[{:#x}, {:#x}, {:#x}, {:#x}]", n[0], n[1], n[2], n[3]),
    );
    o.field(3, "FID", d.resource.fid());
    o.field(3, "name hash", format_args!("{:#x}", n[3]));
    o.field(2, "l_req_mode", named(d.req_mode, d.req_mode.0.into()));
    o.field(
        2,
        "l_granted_mode",
        named(d.granted_mode, d.granted_mode.0.into()),
    );
    o.line("    l_policy_data (inodebits):");
    let p = &d.policy;
    o.field(3, "bits", flags(p.bits, p.bits.0));
    o.field(3, "try_bits", flags(p.try_bits, p.try_bits.0));
    o.field(3, "li_gid", p.gid);
    o.field(3, "li_initiator_id", p.initiator_id);
}

fn handles(o: &mut Out, h: &LockHandles) {
    for (k, v) in h.as_slice().iter().enumerate() {
        o.field(1, &format!("lock_handle[{k}]"), format_args!("{:#x}", v.0));
    }
}

fn mask(m: ResultMask) -> String {
    flags(m, m.0.into())
}

/// The text form of a validated request.
pub fn request_text(msg: &MsgView<'_>, v: &RequestView<'_>) -> String {
    let mut o = Out(String::new());
    let b = v.body();
    o.line(format_args!(
        "prepare request: {} ({} bytes)",
        v.opc(),
        msg.as_bytes().len()
    ));
    o.line(format_args!("byte order: {}", byte_order(v.order())));
    header(&mut o, msg);
    o.buffer(msg, 0, "ptlrpc_body");
    structure(
        &mut o,
        1,
        PtlrpcBody::LAYOUT,
        msg.buffer_or_empty(0),
        msg.order(),
    );
    o.buffer(msg, 1, "ldlm_request");
    let l = v.ldlm();
    o.field(1, "lock_flags", flags(l.lock_flags, l.lock_flags.0.into()));
    o.field(1, "lock_count", l.lock_count);
    lock_desc(&mut o, &l.lock_desc);
    handles(&mut o, &l.handles);
    o.buffer(msg, 2, "ldlm_intent");
    o.field(1, "opc", flags(v.opc(), v.opc().0));
    o.buffer(msg, 3, "md_create_prepare_req");
    o.field(1, req::mcpr_fid.name, b.fid);
    let mode_name = if b.object_mode() {
        "object mode"
    } else {
        "entry mode"
    };
    o.field(
        1,
        req::mcpr_flags.name,
        format_args!("{} [{mode_name}]", flags(b.flags, b.flags.0.into())),
    );
    if !v.unknown_flags().is_empty() {
        o.field(
            2,
            "unknown bits",
            format_args!(
                "{:#x} (a handler answers with the empty result)",
                v.unknown_flags().0
            ),
        );
    }
    o.field(1, req::mcpr_fsuid.name, b.fsuid);
    o.field(1, req::mcpr_fsgid.name, b.fsgid);
    o.field(1, req::mcpr_umask.name, format_args!("{:04o}", b.umask));
    o.field(1, req::mcpr_cap.name, format_args!("{:#x}", b.cap));
    o.field(1, req::mcpr_child_mode.name, file_mode(b.child_mode));
    for buf in MliBuf::ALL {
        let limit = b.buf_limit[buf.index()];
        let what = if limit == 0 { " (not requested)" } else { "" };
        o.field(
            1,
            req::mcpr_buf_limit.element(buf.index()).name,
            format_args!("{limit} {}{what}", buf.name()),
        );
    }
    o.field(1, "requested", mask(v.requested()));
    match v.name() {
        Some(n) => {
            o.buffer(msg, 4, "entry name");
            o.field(1, "name", format_args!("{} ({} bytes)", quoted(n), n.len()));
        }
        None => o.buffer(msg, 4, "entry name: none (object mode)"),
    }
    let g = v.groups();
    o.buffer(msg, 5, "supplementary groups");
    let list: Vec<String> = g.iter().map(|x| x.to_string()).collect();
    o.field(
        1,
        "groups",
        format_args!("{} [{}]", g.len(), list.join(", ")),
    );
    extra_buffers(&mut o, msg, 6);
    o.0
}

fn mdt_body(o: &mut Out, m: &MdtBody) {
    let lvl = 2;
    o.field(lvl, "mbo_fid1", m.fid1);
    o.field(lvl, "mbo_fid2", m.fid2);
    o.field(
        lvl,
        "mbo_open_handle",
        format_args!("{:#x}", m.open_handle.0),
    );
    o.field(lvl, "mbo_valid", flags(m.valid, m.valid.0));
    o.field(lvl, "mbo_size", m.size);
    o.field(lvl, "mbo_mtime", m.mtime);
    o.field(lvl, "mbo_atime", m.atime);
    o.field(lvl, "mbo_ctime", m.ctime);
    o.field(lvl, "mbo_blocks", m.blocks);
    o.field(lvl, "mbo_version", format_args!("{:#x}", m.version));
    o.field(lvl, "mbo_t_state", format_args!("{:#x}", m.t_state));
    o.field(lvl, "mbo_fsuid", m.fsuid);
    o.field(lvl, "mbo_fsgid", m.fsgid);
    o.field(lvl, "mbo_capability", format_args!("{:#x}", m.capability));
    o.field(lvl, "mbo_mode", file_mode(m.mode));
    o.field(lvl, "mbo_uid", m.uid);
    o.field(lvl, "mbo_gid", m.gid);
    o.field(lvl, "mbo_flags", format_args!("{:#x}", m.flags));
    o.field(lvl, "mbo_rdev", format_args!("{:#x}", m.rdev));
    o.field(lvl, "mbo_nlink", m.nlink);
    o.field(lvl, "mbo_layout_gen", m.layout_gen);
    o.field(lvl, "mbo_suppgid", m.suppgid);
    o.field(lvl, "mbo_eadatasize", m.eadatasize);
    o.field(lvl, "mbo_aclsize", m.aclsize);
    o.field(lvl, "mbo_max_mdsize", m.max_mdsize);
    o.field(lvl, "mbo_uid_h", m.uid_h);
    o.field(lvl, "mbo_gid_h", m.gid_h);
    o.field(lvl, "mbo_projid", m.projid);
    o.field(lvl, "mbo_dom_size", m.dom_size);
    o.field(lvl, "mbo_dom_blocks", m.dom_blocks);
    o.field(lvl, "mbo_btime", m.btime);
    o.field(
        lvl,
        "mbo_xattr_absent",
        format_args!("{:#x}", m.xattr_absent),
    );
}

/// An `xxd`-style dump: offset, 16 bytes in hex, their printable characters.
fn hexdump(o: &mut Out, data: &[u8]) {
    for (k, chunk) in data.chunks(16).enumerate() {
        let mut hex = String::with_capacity(40);
        for (j, b) in chunk.iter().enumerate() {
            if j > 0 && j % 2 == 0 {
                hex.push(' ');
            }
            let _ = write!(hex, "{b:02x}");
        }
        let ascii: String = chunk
            .iter()
            .map(|&b| {
                if (0x20..0x7f).contains(&b) {
                    char::from(b)
                } else {
                    '.'
                }
            })
            .collect();
        o.line(format_args!("    {:04x}: {hex:<39}  {ascii}", 16 * k));
    }
}

/// A present xattr result, printed as `dne-intent xattr` prints it (getfacl, lfs getstripe,
/// lfs getdirstripe), indented under its buffer; a payload that does not decode is shown with
/// its error and a hex dump. `object` is what the results describe (WIRE.md §6 and W5.2: the
/// lock's resource), `layout_of` whose layout its LOV is ([`crate::xattr::render`]).
fn xattr_result(o: &mut Out, name: &str, data: &[u8], object: LuFid, layout_of: Option<LayoutOf>) {
    match crate::xattr::render(name, data, object, layout_of) {
        Ok(text) => {
            for line in text.lines() {
                if line.is_empty() {
                    o.line(format_args!(""));
                } else {
                    o.line(format_args!("    {line}"));
                }
            }
        }
        Err(e) => {
            o.line(format_args!("  does not decode: {e}"));
            hexdump(o, data);
        }
    }
}

/// Whose layout an object's LOV is, by its `mbo_mode`: a directory's default or a file's;
/// `None` when the mode holds no file type.
fn layout_of_mode(m: u32) -> Option<LayoutOf> {
    match m & mode::S_IFMT {
        0 => None,
        mode::S_IFDIR => Some(LayoutOf::Dir),
        _ => Some(LayoutOf::File),
    }
}

/// The text form of a validated reply.
pub fn reply_text(msg: &MsgView<'_>, v: &ReplyView<'_>) -> String {
    let mut o = Out(String::new());
    let summary = if v.is_empty_result() {
        "the empty result: lock granted, every result unknown"
    } else {
        "lock granted with a prepare result"
    };
    o.line(format_args!(
        "prepare reply: {summary} ({} bytes)",
        msg.as_bytes().len()
    ));
    o.line(format_args!("byte order: {}", byte_order(v.order())));
    header(&mut o, msg);
    o.buffer(msg, 0, "ptlrpc_body");
    structure(
        &mut o,
        1,
        PtlrpcBody::LAYOUT,
        msg.buffer_or_empty(0),
        msg.order(),
    );
    o.buffer(msg, 1, "ldlm_reply");
    let l = v.ldlm();
    o.field(1, "lock_flags", flags(l.lock_flags, l.lock_flags.0.into()));
    lock_desc(&mut o, &l.lock_desc);
    o.field(1, "lock_handle", format_args!("{:#x}", l.lock_handle.0));
    o.field(1, "lock_policy_res1", flags(l.policy_res1, l.policy_res1.0));
    o.field(1, "lock_policy_res2", l.policy_res2);
    let Some(b) = v.body() else {
        o.buffer(msg, 2, "md_create_prepare_rep: empty (the empty result)");
        o.line("results: all unknown (the coordinator falls back to its ordinary reads)");
        extra_buffers(&mut o, msg, 3 + MliBuf::ALL.len());
        return o.0;
    };
    o.buffer(msg, 2, "md_create_prepare_rep");
    o.field(1, rep::mcpp_status.name, status(b.status));
    o.field(1, rep::mcpp_flags.name, flags(b.flags, b.flags.0.into()));
    o.field(1, rep::mcpp_valid.name, mask(b.valid));
    o.field(1, rep::mcpp_truncated.name, mask(b.truncated));
    o.field(1, rep::mcpp_fid.name, b.fid);
    o.field(1, rep::mcpp_child_mode.name, file_mode(b.child_mode));
    o.field(1, rep::mcpp_child_gid.name, b.child_gid);
    o.field(1, rep::mcpp_child_projid.name, b.child_projid);
    o.field(
        1,
        rep::mcpp_child_flags.name,
        format_args!("{:#x}", b.child_flags),
    );
    for buf in MliBuf::ALL {
        o.field(
            1,
            rep::mcpp_buf_size.element(buf.index()).name,
            format_args!("{} {}", b.buf_size[buf.index()], buf.name()),
        );
    }
    // Whose layout the LOV result is: the object's file type, when PATTR gives it (a directory
    // in entry mode, and in object mode whatever was named), else the payload's own guess.
    let layout_of = match v.result(MliBuf::Pattr) {
        PrepResult::Present(data) => MdtBody::decode(data, v.order())
            .ok()
            .and_then(|m| layout_of_mode(m.mode)),
        _ => None,
    };
    for buf in MliBuf::ALL {
        let i = 3 + buf.index();
        let what = match buf.xattr_name() {
            Some(x) => format!("{} ({x})", buf.name()),
            None => format!("{} (attributes)", buf.name()),
        };
        match v.result(buf) {
            PrepResult::Present(data) => {
                o.line(format_args!(
                    "buffer {i}: {what}: present, {} bytes @ {}",
                    data.len(),
                    v.result_offset(buf)
                ));
                match (buf.xattr_name(), MdtBody::decode(data, v.order())) {
                    (None, Ok(m)) => {
                        o.line("  mdt_body:");
                        mdt_body(&mut o, &m);
                    }
                    (Some(name), _) => {
                        xattr_result(&mut o, name, data, l.lock_desc.resource.fid(), layout_of)
                    }
                    (None, Err(e)) => {
                        o.line(format_args!("  does not decode: {e}"));
                        hexdump(&mut o, data);
                    }
                }
            }
            PrepResult::Absent => o.line(format_args!(
                "buffer {i}: {what}: absent (known: the object has none)"
            )),
            PrepResult::Unknown(UnknownReason::Truncated { size }) => o.line(format_args!(
                "buffer {i}: {what}: truncated, real size {size} bytes (over the limit; unknown)"
            )),
            PrepResult::Unknown(_) => {
                o.line(format_args!("buffer {i}: {what}: unknown (not provided)"))
            }
        }
    }
    extra_buffers(&mut o, msg, 3 + MliBuf::ALL.len());
    o.0
}
