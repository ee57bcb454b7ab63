//! The text form of a message: one line per field, grouped by buffer, values named the way a
//! Lustre engineer reads them (flag and opcode names, FIDs, octal modes, errno names).

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, PrepResult, ReplyView, RequestView,
    ResultMask, UnknownReason,
};
use lustre_dne_intent::mode;
use lustre_dne_intent::wire::layout::{
    Display, Field, FieldAt, FieldType, Layout, Shown, ldlm_request, lustre_msg_v2 as lm,
    md_create_prepare_req as req, ptlrpc_body as pb,
};
use lustre_dne_intent::wire::{
    LUSTRE_MSG_MAGIC_V2, LdlmIntent, LdlmReply, LdlmRequest, LdlmResId, LuFid, MdtBody, MsgView,
    PtlrpcBody, WireStruct,
};
use lustre_dne_intent::xattr::LayoutOf;
use lustre_dne_intent_capture::opcode_name;
use std::fmt::Write;

#[path = "text_values.rs"]
mod values;
pub use values::file_mode;
use values::{bit_names, flags, named, octal, quoted, status, text_value};

/// Column where values start.
const COL: usize = 24;

/// A text report being built.
struct Out(String);

impl Out {
    fn line(&mut self, s: impl std::fmt::Display) {
        let _ = writeln!(self.0, "{s}");
    }

    /// `name value`, indented by `level` steps and aligned on [`COL`].
    fn field(&mut self, level: usize, name: &str, value: impl std::fmt::Display) {
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
                "buffer {i}: {what} (not sent: past {})",
                lm::lm_bufcount.name
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

fn byte_order(order: Endian) -> &'static str {
    match order {
        Endian::Little => "le (little-endian)",
        Endian::Big => "be (big-endian: swabbed for a little-endian host)",
    }
}

/// The message header: the members of `lustre_msg_v2` as [`structure`] prints them, but for
/// the magic, named with the byte order it shows, and the buffer lengths, a variable-length
/// array (declared length 0) whose `lm_bufcount` elements the message holds.
fn header(o: &mut Out, msg: &MsgView<'_>) {
    o.line(format_args!(
        "{} header ({} bytes @ 0)",
        lm::LAYOUT.name,
        msg.buffer_offset(0)
    ));
    for f in shown(lm::LAYOUT) {
        if f.array.is_some_and(|a| a.len == 0) {
            let lens: Vec<String> = msg.buflens().map(|l| l.to_string()).collect();
            o.field(1, f.name, format_args!("[{}]", lens.join(", ")));
        } else if f.name == lm::lm_magic.name {
            o.field(
                1,
                f.name,
                format_args!(
                    "{LUSTRE_MSG_MAGIC_V2:#010x} (LUSTRE_MSG_MAGIC_V2, {} order)",
                    msg.order().name()
                ),
            );
        } else {
            member(o, 1, f, msg.as_bytes(), msg.order());
        }
    }
}

/// How a member's value is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Show {
    Dec,
    Hex,
    /// A mode or permission bits: `040755 (S_IFDIR, drwxr-xr-x)`, `0022`.
    Octal,
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
    /// A `struct lu_fid`: `[0x200000401:0x1:0x0]`.
    Fid,
    /// An embedded structure, member by member (and raw bytes, which no printed structure has).
    Nested,
}

/// How member `f` is shown: as its declaration's display hint says. The one exception is
/// `pb_opc`, declared decimal, whose names (Lustre's opcodes) the capture crate keeps.
fn display(f: &Field) -> Show {
    let is = |at: FieldAt| at.name == f.name;
    match f.display {
        _ if is(pb::pb_opc) => Show::Opcode,
        Display::Decimal => Show::Dec,
        Display::Hex => Show::Hex,
        Display::Octal => Show::Octal,
        Display::Flags => Show::Flags,
        Display::Enum => Show::Enum,
        Display::Errno => Show::Errno,
        Display::Fid => Show::Fid,
        Display::Text => Show::Text,
        Display::Bytes | Display::Struct => Show::Nested,
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

/// One element's value, as [`display`] says.
fn value(show: Show, f: &Field, raw: u64) -> String {
    let names = f.names.unwrap_or(&[]);
    match show {
        Show::Dec if matches!(f.ty, FieldType::S32) => (raw as u32 as i32).to_string(),
        Show::Dec if matches!(f.ty, FieldType::S64) => (raw as i64).to_string(),
        Show::Dec | Show::Text | Show::Fid | Show::Nested => raw.to_string(),
        Show::Hex => format!("{raw:#x}"),
        Show::Octal => octal(raw as u32),
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

/// What a reader wants beside element `k` of member `f`, which holds `raw`: the name of the
/// index (the result an `MLI_BUF_MAX` array's element is for) and what a 0 means, both as the
/// declaration says; and the request's mode, told by its `FieldAt`.
fn note(f: &Field, k: usize, raw: u64) -> String {
    let mut s = String::new();
    if let Some(name) = f.index_names.get(k) {
        let _ = write!(s, " {name}");
    }
    if let (0, Some(zero)) = (raw, f.zero) {
        let _ = write!(s, " ({zero})");
    }
    if f.name == req::mcpr_flags.name {
        let object = raw & u64::from(McprFlags::NO_LOOKUP.0) != 0;
        s.push_str(if object {
            " [object mode]"
        } else {
            " [entry mode]"
        });
    }
    s
}

/// The members of `l` a full listing shows: all but those its declaration hides (padding,
/// reserved).
fn shown(l: &Layout) -> impl Iterator<Item = &Field> {
    l.fields.iter().filter(|f| f.shown != Shown::Never)
}

/// Every member of structure `l` that `bytes` hold and its declaration does not hide, one line
/// each, as [`display`] says: the layout is the list, so a new member is printed too. A member
/// past the end of `bytes` (a shorter version of the structure) is said to be absent.
fn structure(o: &mut Out, level: usize, l: &Layout, bytes: &[u8], order: Endian) {
    for f in shown(l) {
        member(o, level, f, bytes, order);
    }
}

/// Member `f` of a structure held by `bytes`: one line per element (an embedded structure's
/// members under its name).
fn member(o: &mut Out, level: usize, f: &Field, bytes: &[u8], order: Endian) {
    if f.offset + f.size > bytes.len() {
        o.field(
            level,
            f.name,
            format_args!("(none: {} bytes end before it)", bytes.len()),
        );
        return;
    }
    let show = display(f);
    let (at, count) = (f.offset, f.array.map_or(1, |a| a.len));
    let name = |k: usize| match f.array {
        Some(_) => format!("{}[{k}]", f.name),
        None => f.name.to_string(),
    };
    match f.ty {
        FieldType::U8 if show == Show::Text => {
            o.field(level, f.name, text_value(&bytes[at..at + f.size]))
        }
        FieldType::Struct(inner) => {
            for k in 0..count {
                let el = &bytes[at + k * inner.size..at + (k + 1) * inner.size];
                member_struct(o, level, &name(k), show, inner, el, order);
            }
        }
        ty => {
            for k in 0..count {
                let raw = read_int(bytes, at + k * ty.size(), ty.size(), order);
                let shown = format!("{}{}", value(show, f, raw), note(f, k, raw));
                o.field(level, &name(k), shown);
            }
        }
    }
}

/// One embedded structure `inner`, held by `el`, under the name `name`.
fn member_struct(
    o: &mut Out,
    level: usize,
    name: &str,
    show: Show,
    inner: &Layout,
    el: &[u8],
    order: Endian,
) {
    let words = |opaque: bool| {
        inner.fields.iter().map(move |w| {
            let o = if opaque { Endian::Little } else { order };
            (w, read_int(el, w.offset, w.ty.size(), o))
        })
    };
    match show {
        Show::Fid => {
            let parts: Vec<String> = words(false).map(|(_, r)| format!("{r:#x}")).collect();
            o.field(level, name, format_args!("[{}]", parts.join(":")));
        }
        // A structure of one word (lustre_handle's cookie) stands for that word, which is
        // opaque: never byte-swapped, read as the codec reads it (little-endian).
        _ if inner.fields.len() == 1 && inner.fields[0].array.is_none() => {
            if let Some((w, raw)) = words(true).next() {
                o.field(level, name, value(show, w, raw));
            }
        }
        _ => {
            o.line(format_args!("{:pad$}{name}:", "", pad = 2 * level));
            structure(o, level + 1, inner, el, order);
            // A resource name is read as the FID it encodes.
            if inner.name == LdlmResId::LAYOUT.name
                && let Ok(r) = LdlmResId::decode(el, order)
            {
                o.field(level + 1, "FID", r.fid());
            }
        }
    }
}

/// The handles a request with a longer `ldlm_request` carries past the ones its layout holds
/// (`lock_count` of them are meaningful; the layout has `LDLM_LOCKREQ_HANDLES`).
fn handles_past_layout(o: &mut Out, v: &RequestView<'_>) {
    let f = ldlm_request::lock_handle;
    let held = LdlmRequest::LAYOUT
        .field(f.name)
        .and_then(|m| m.array)
        .map_or(0, |a| a.len);
    for (k, h) in v.ldlm().handles.as_slice().iter().enumerate().skip(held) {
        o.field(1, &format!("{}[{k}]", f.name), format_args!("{:#x}", h.0));
    }
}

fn mask(m: ResultMask) -> String {
    flags(m, m.0.into())
}

/// The text form of a validated request.
pub fn request_text(msg: &MsgView<'_>, v: &RequestView<'_>) -> String {
    let mut o = Out(String::new());
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
    o.buffer(msg, 1, LdlmRequest::LAYOUT.name);
    structure(
        &mut o,
        1,
        LdlmRequest::LAYOUT,
        msg.buffer_or_empty(1),
        msg.order(),
    );
    handles_past_layout(&mut o, v);
    o.buffer(msg, 2, LdlmIntent::LAYOUT.name);
    structure(
        &mut o,
        1,
        LdlmIntent::LAYOUT,
        msg.buffer_or_empty(2),
        msg.order(),
    );
    o.buffer(msg, 3, MdCreatePrepareReq::LAYOUT.name);
    structure(
        &mut o,
        1,
        MdCreatePrepareReq::LAYOUT,
        msg.buffer_or_empty(3),
        msg.order(),
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
    o.buffer(msg, 1, LdlmReply::LAYOUT.name);
    structure(
        &mut o,
        1,
        LdlmReply::LAYOUT,
        msg.buffer_or_empty(1),
        msg.order(),
    );
    if v.body().is_none() {
        o.buffer(
            msg,
            2,
            &format!(
                "{}: empty (the empty result)",
                MdCreatePrepareRep::LAYOUT.name
            ),
        );
        o.line("results: all unknown (the coordinator falls back to its ordinary reads)");
        extra_buffers(&mut o, msg, 3 + MliBuf::ALL.len());
        return o.0;
    }
    o.buffer(msg, 2, MdCreatePrepareRep::LAYOUT.name);
    structure(
        &mut o,
        1,
        MdCreatePrepareRep::LAYOUT,
        msg.buffer_or_empty(2),
        msg.order(),
    );
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
                    (None, Ok(_)) => {
                        o.line(format_args!("  {}:", MdtBody::LAYOUT.name));
                        structure(&mut o, 2, MdtBody::LAYOUT, data, v.order());
                    }
                    (Some(name), _) => xattr_result(
                        &mut o,
                        name,
                        data,
                        v.ldlm().lock_desc.resource.fid(),
                        layout_of,
                    ),
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

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
