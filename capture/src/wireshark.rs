//! `dne-intent wireshark-lua`: a Lua dissector for Wireshark and tshark, generated from the
//! codec's own layouts so it cannot drift from them.
//!
//! Every offset, size and array length comes from the codec's layout tables
//! (`lustre_dne_intent::wire::layout`), every value name from the crate's named constants (`NAMED` tables, the
//! capture reader's opcode names). The dissector registers on `lnet.ptl_index`, which the
//! built-in LNet dissector calls for the payload of each PUT; it replaces the built-in Lustre
//! dissector on the MDS portals, so it decodes `lustre_msg_v2` and `ptlrpc_body` itself. It
//! also takes the socklnd port and frames the stream itself (`wireshark/framing.rs`): the LNet
//! dissector's own framing loses messages when a segment ends inside a header.
//!
//! A reply is paired with its request by its own PUT's match bits (read by the framing) and
//! the client's address. Where the tree is not shown
//! (tshark's summary, a display filter), only the fields something references are added: each
//! field costs the Lua binding two objects, which made the dissector 16 times slower than
//! tshark alone.

mod framing;

pub use framing::SOCKLND_PORT;

use crate::opcode_name;
use lustre_dne_intent::intent::{IntentOpc, McppFlags, MliBuf};
use lustre_dne_intent::limits::{
    LDLM_REPLY_SIZE, LDLM_REQUEST_MIN, MLI_BUF_MAX, MSG_HEADER_FIXED, MSG_MAX_BUFCOUNT,
    PREPARE_REP_SIZE, PREPARE_REQ_SIZE, PTLRPC_BODY_V2_SIZE,
};
use lustre_dne_intent::structures;
use lustre_dne_intent::wire::layout::{
    self, FieldAt, FieldType, Layout, Shown, ldlm_intent, ldlm_reply, ldlm_request, lustre_msg_v2,
    md_create_prepare_rep, md_create_prepare_req, ptlrpc_body,
};
use lustre_dne_intent::wire::{LDLM_ENQUEUE, LUSTRE_MSG_MAGIC_V2, PtlrpcMsgType};
use std::fmt::Write as _;

/// Portals the dissector registers on: `OUT_PORTAL` (24) and `OSC_REPLY_PORTAL` (4), where
/// OSP's MDT-to-MDT RPCs go, and `MDS_REQUEST_PORTAL` (12) and `MDC_REPLY_PORTAL` (10).
pub const PORTALS: [u32; 4] = [24, 4, 12, 10];

/// How a field is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    U8,
    U16,
    U32,
    I32,
    U64,
    I64,
    /// `u32`, shown in hex.
    Hex32,
    /// `u32`, shown in octal (a mode).
    Oct32,
    /// `u64`, shown in hex.
    Hex64,
    /// `struct lu_fid`, shown as `[seq:oid:ver]`.
    Fid,
    /// A `__u8` array: NUL-padded text.
    Text,
    /// A `__u8` array: raw bytes.
    Bytes,
}

impl Kind {
    /// How member `f` is shown, as its declaration's C type and display hint say.
    fn of(f: &layout::Field) -> Kind {
        use layout::Display as D;
        match (f.ty, f.display) {
            (FieldType::Struct(_), _) => Kind::Fid,
            (FieldType::U8, D::Text) if f.array.is_some() => Kind::Text,
            (FieldType::U8, _) if f.array.is_some() => Kind::Bytes,
            (FieldType::U8, _) => Kind::U8,
            (FieldType::U16, _) => Kind::U16,
            (FieldType::S32, _) => Kind::I32,
            (FieldType::S64, _) => Kind::I64,
            (FieldType::U32, D::Hex | D::Flags) => Kind::Hex32,
            (FieldType::U32, D::Octal) => Kind::Oct32,
            (FieldType::U32, _) => Kind::U32,
            (FieldType::U64, D::Hex | D::Flags) => Kind::Hex64,
            (FieldType::U64, _) => Kind::U64,
        }
    }
}

/// One field as the dissector shows it: its name, offset in its buffer and how it is shown.
struct Field {
    name: String,
    offset: usize,
    kind: Kind,
    /// Size of one element.
    size: usize,
    /// Array length (1 for a scalar).
    count: usize,
    /// A 32-bit flags member's bit names: the Lua table named [`Field::flag_table`] appends
    /// them to the item.
    flags: Option<&'static [(&'static str, u64)]>,
}

impl Field {
    /// The Lua table of the bit names of a flags member: its name upper-cased (`MCPR_FLAGS`).
    fn flag_table(&self) -> Option<String> {
        self.flags.map(|_| self.name.to_uppercase())
    }
}

/// The member of `l` at a dotted path (`lock_desc.l_policy_data.bits`), through the nested
/// structures, and its offset from the start of `l`. A structure of one member stands for that
/// member (`lr_name` is the array `ldlm_res_id.name`), unless shown as a FID.
///
/// # Panics
/// When the path names no member: the paths are the codec's `FieldAt`s, and a test generates
/// the dissector.
fn member(l: &'static Layout, path: &str) -> (usize, &'static layout::Field) {
    let mut at = 0;
    let mut cur = l;
    let mut segments = path.split('.').peekable();
    loop {
        let seg = segments.next().expect("a non-empty path");
        let f = cur
            .fields
            .iter()
            .find(|f| f.name == seg)
            .unwrap_or_else(|| panic!("wireshark: no member {seg} in struct {}", cur.name));
        at += f.offset;
        match (f.ty, segments.peek()) {
            (FieldType::Struct(inner), Some(_)) => cur = inner,
            (FieldType::Struct(inner), None)
                if inner.fields.len() == 1 && f.display != layout::Display::Fid =>
            {
                return (at, &inner.fields[0]);
            }
            (_, None) => return (at, f),
            (_, Some(_)) => panic!("wireshark: {seg} of struct {} is not a structure", cur.name),
        }
    }
}

/// The fields shown of structure `l`: every member its declaration says everyone shows
/// ([`Shown::Always`]), in offset order, an embedded structure flattened into its members
/// (`lock_desc_l_policy_data_bits`; a structure of one member stands for that member, a
/// `lu_fid` is one FID). A member added to a declaration is shown with nothing written here.
/// Left out: a variable-length array (declared length 0, `lm_buflens`: see [`variable`]), and
/// an array of structures, which no shown member is.
fn shown(l: &'static Layout) -> Vec<Field> {
    let mut out = Vec::new();
    flatten(l, "", 0, &mut out);
    out
}

fn flatten(l: &'static Layout, prefix: &str, base: usize, out: &mut Vec<Field>) {
    for f in l.fields.iter().filter(|f| f.shown == Shown::Always) {
        let name = format!("{prefix}{}", f.name);
        let at = base + f.offset;
        match (f.ty, f.array) {
            (_, Some(a)) if a.len == 0 => {}
            (FieldType::Struct(_), Some(_)) => {}
            (FieldType::Struct(inner), None) if f.display != layout::Display::Fid => {
                match inner.fields {
                    [only] if only.shown != Shown::Never => {
                        out.push(field(only, name, at + only.offset));
                    }
                    _ => flatten(inner, &format!("{name}_"), at, out),
                }
            }
            _ => out.push(field(f, name, at)),
        }
    }
}

/// Member `f` shown as `name`, `offset` bytes into its buffer.
fn field(f: &'static layout::Field, name: String, offset: usize) -> Field {
    let kind = Kind::of(f);
    let (size, count) = match kind {
        // A byte array is one item.
        Kind::Text | Kind::Bytes => (f.size, 1),
        _ => (f.ty.size(), f.array.map_or(1, |a| a.len)),
    };
    let named = f.display == layout::Display::Flags && f.ty == FieldType::U32;
    Field {
        name,
        offset,
        kind,
        size,
        count,
        flags: f.names.filter(|_| named),
    }
}

/// The variable-length arrays of structure `l` (declared length 0, shown): `lm_buflens`, whose
/// length the message gives; the Lua adds them itself.
fn variable(l: &'static Layout) -> impl Iterator<Item = &'static layout::Field> {
    l.fields
        .iter()
        .filter(|f| f.shown == Shown::Always && f.array.is_some_and(|a| a.len == 0))
}

fn proto_field(s: &mut String, f: &Field, strings: Option<&str>) {
    let (ctor, base) = match f.kind {
        Kind::U8 => ("uint8", "base.DEC"),
        Kind::U16 => ("uint16", "base.DEC"),
        Kind::U32 => ("uint32", "base.DEC"),
        Kind::I32 => ("int32", "base.DEC"),
        Kind::U64 => ("uint64", "base.DEC"),
        Kind::I64 => ("int64", "base.DEC"),
        Kind::Hex32 => ("uint32", "base.HEX"),
        Kind::Oct32 => ("uint32", "base.OCT"),
        Kind::Hex64 => ("uint64", "base.HEX"),
        Kind::Fid | Kind::Text => ("string", "base.NONE"),
        Kind::Bytes => ("bytes", "base.NONE"),
    };
    let vs = strings.map_or(String::new(), |t| format!(", {t}"));
    let _ = writeln!(
        s,
        "F.{n} = ProtoField.{ctor}(\"dne_prepare.{n}\", \"{n}\", {base}{vs})\nLABEL.{n} = \"{n}\"",
        n = f.name
    );
}

/// A `Struct.unpack` format, without its byte-order mark, that reads the members `at` of `l`
/// (in offset order) in one call: pad bytes up to each, then the member.
///
/// # Panics
/// When the members are not in offset order or one is not an integer: the lists are this
/// module's, and a test generates the dissector.
fn unpack_format(l: &'static Layout, at: &[FieldAt]) -> String {
    let mut fmt = String::new();
    let mut end = 0;
    for a in at {
        let (offset, f) = member(l, a.name);
        assert!(offset >= end, "wireshark: {} out of offset order", a.name);
        let code = match f.ty {
            FieldType::U16 => "I2",
            FieldType::U32 => "I4",
            FieldType::S32 => "i4",
            FieldType::U64 => "I8",
            FieldType::S64 => "i8",
            _ => panic!("wireshark: {} is not an integer", a.name),
        };
        fmt.push_str(&"x".repeat(offset - end));
        fmt.push_str(code);
        end = offset + f.ty.size();
    }
    fmt
}

/// The Lua table of a structure: `{ {name, offset, size, kind, count[, bit names]}, ... }`.
fn struct_table(s: &mut String, lua: &str, fields: &[Field]) {
    let _ = writeln!(s, "local {lua} = {{");
    for f in fields {
        let kind = match f.kind {
            Kind::U8 | Kind::U16 | Kind::U32 | Kind::Hex32 | Kind::Oct32 => "u",
            Kind::U64 | Kind::Hex64 => "u",
            Kind::I32 | Kind::I64 => "i",
            Kind::Fid => "fid",
            Kind::Text | Kind::Bytes => "b",
        };
        let names = f.flag_table().map_or(String::new(), |t| format!(", {t}"));
        let _ = writeln!(
            s,
            "  {{ \"{}\", {}, {}, \"{kind}\", {}{names} }},",
            f.name, f.offset, f.size, f.count
        );
    }
    let _ = writeln!(s, "}}");
}

fn value_table(s: &mut String, lua: &str, named: impl Iterator<Item = (String, u64)>) {
    let _ = writeln!(s, "local {lua} = {{");
    for (n, v) in named {
        let _ = writeln!(s, "  [{v}] = \"{n}\",");
    }
    let _ = writeln!(s, "}}");
}

/// The structures the dissector shows, in the order it declares their fields: the header,
/// buffer 0, buffer 1 of an enqueue and of its reply, and the prepare bodies. Each one's Lua
/// table is named as the structure, upper-cased (`PTLRPC_BODY`), as portal.lua reads it.
const DISSECTED: [&Layout; 6] = [
    lustre_msg_v2::LAYOUT,
    ptlrpc_body::LAYOUT,
    ldlm_request::LAYOUT,
    ldlm_reply::LAYOUT,
    md_create_prepare_req::LAYOUT,
    md_create_prepare_rep::LAYOUT,
];

/// The fields shown of each dissected structure, by the name of its Lua table.
fn dissected(t: &Tables) -> Vec<(String, Vec<Field>)> {
    DISSECTED
        .iter()
        .map(|l| {
            let l = t.get(l);
            (l.name.to_uppercase(), shown(l))
        })
        .collect()
}

/// One Lua table of bit names per flags member shown (`MCPR_FLAGS`), from its declared type's
/// names; a member shown in two structures (`lock_flags`) has one.
fn flag_tables(s: &mut String, tables: &[(String, Vec<Field>)]) {
    let mut seen = std::collections::BTreeSet::new();
    for f in tables.iter().flat_map(|(_, fields)| fields) {
        if let (Some(lua), Some(names)) = (f.flag_table(), f.flags)
            && seen.insert(lua.clone())
        {
            value_table(s, &lua, names.iter().map(|&(n, v)| (n.to_string(), v)));
        }
    }
}

/// Declares one `ProtoField` per distinct field name of `tables` in `s`, then the intent's
/// opcode, the variable-length arrays and the fields of no structure.
fn declare_fields(s: &mut String, t: &Tables, tables: &[(String, Vec<Field>)]) {
    let mut seen = std::collections::BTreeSet::new();
    for (_, fields) in tables {
        for f in fields {
            if seen.insert(f.name.as_str()) {
                // The two members whose value names the dissector tables (opcodes, types).
                let strings = match f.name.as_str() {
                    n if n == ptlrpc_body::pb_opc.name => Some("OPC"),
                    n if n == ptlrpc_body::pb_type.name => Some("PB_TYPE"),
                    _ => None,
                };
                proto_field(s, f, strings);
            }
        }
    }
    // The intent's opcode (buffer 2): shown with its name, outside the structure tables.
    for f in &shown(t.get(ldlm_intent::LAYOUT)) {
        proto_field(s, f, None);
    }
    // lm_buflens: a variable-length array, which the Lua adds itself.
    for l in DISSECTED {
        for f in variable(t.get(l)) {
            proto_field(s, &field(f, f.name.to_string(), f.offset), None);
        }
    }
    // Fields of no structure: (name, constructor, label, base).
    for (n, ctor, label, base) in [
        ("opc_name", "string", "intent", ""),
        ("name", "string", "name", ""),
        ("groups", "uint32", "supplementary group", ", base.DEC"),
        ("result", "bytes", "result", ""),
        ("result_state", "string", "result state", ""),
        ("outcome", "string", "outcome", ""),
    ] {
        let _ = writeln!(
            s,
            "F.{n} = ProtoField.{ctor}(\"dne_prepare.{n}\", \"{label}\"{base})\nLABEL.{n} = \"{label}\""
        );
    }
    s.push_str(
        "local flist = {}\nfor _, f in pairs(F) do flist[#flist + 1] = f end\np.fields = flist\n\n",
    );
}

/// The whole dissector.
pub fn dissector() -> String {
    dissector_with(&Tables::default())
}

/// The layouts a dissector is generated from: the codec's ([`structures::ALL`]), some of them
/// replaced by copies, to show that the dissector follows a declaration (a member added or
/// moved in a copy is shown, or moves, here).
#[derive(Debug, Clone)]
pub struct Tables {
    layouts: Vec<&'static Layout>,
}

impl Default for Tables {
    fn default() -> Self {
        Tables {
            layouts: structures::ALL.to_vec(),
        }
    }
}

impl Tables {
    /// These layouts with `l` in place of the structure of the same name (added when there is
    /// none). A structure that embeds it keeps the codec's.
    pub fn with(mut self, l: &'static Layout) -> Self {
        match self.layouts.iter_mut().find(|x| x.name == l.name) {
            Some(x) => *x = l,
            None => self.layouts.push(l),
        }
        self
    }

    /// The layout of the structure named as the codec's `codec` (the codec's when replaced by
    /// none).
    fn get(&self, codec: &'static Layout) -> &'static Layout {
        self.layouts
            .iter()
            .find(|l| l.name == codec.name)
            .copied()
            .unwrap_or(codec)
    }
}

/// The dissector generated from the tables `t`.
pub fn dissector_with(t: &Tables) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "-- Lustre DNE prepare intent: Wireshark/tshark Lua dissector.\n\
         -- Generated by `dne-intent wireshark-lua` ({} {}) from the codec's layouts; do not edit.\n\
         -- Load: tshark -X lua_script:dne_prepare.lua, or copy to ~/.local/lib/wireshark/plugins/.\n\
         -- Segments out of order: -o tcp.reassemble_out_of_order:TRUE (and tcp.desegment_tcp_streams:TRUE).\n",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    );
    // LABEL: each field's label, which begins the text of an item Wireshark really added.
    s.push_str(
        "local p = Proto(\"dne_prepare\", \"Lustre DNE prepare intent\")\nlocal F = {}\nlocal LABEL = {}\n\n",
    );
    value_table(
        &mut s,
        "OPC",
        (0..2000u32).filter_map(|o| opcode_name(o).map(|n| (n.to_string(), u64::from(o)))),
    );
    value_table(
        &mut s,
        "PB_TYPE",
        PtlrpcMsgType::NAMED
            .iter()
            .map(|(n, v)| (n.to_string(), u64::from(*v))),
    );
    value_table(
        &mut s,
        "IT_OPC",
        IntentOpc::NAMED.iter().map(|(n, v)| (n.to_string(), *v)),
    );
    let tables = dissected(t);
    flag_tables(&mut s, &tables);
    let _ = writeln!(
        s,
        "local MLI = {{ {} }}\n",
        MliBuf::ALL.map(|b| format!("\"{}\"", b.name())).join(", ")
    );
    declare_fields(&mut s, t, &tables);
    let msg = [lustre_msg_v2::lm_bufcount, lustre_msg_v2::lm_magic];
    let buflens = lustre_msg_v2::lm_buflens.name;
    let pb = [
        ptlrpc_body::pb_type,
        ptlrpc_body::pb_opc,
        ptlrpc_body::pb_status,
    ];
    let rep = [
        md_create_prepare_rep::mcpp_status,
        md_create_prepare_rep::mcpp_flags,
        md_create_prepare_rep::mcpp_valid,
        md_create_prepare_rep::mcpp_truncated,
    ];
    for (lua, fields) in &tables {
        struct_table(&mut s, lua, fields);
    }
    let _ = write!(
        s,
        "{}",
        LUA_BODY
            .replace("@MAGIC@", &LUSTRE_MSG_MAGIC_V2.to_string())
            .replace("@HDR@", &MSG_HEADER_FIXED.to_string())
            .replace("@MAXBUF@", &MSG_MAX_BUFCOUNT.to_string())
            .replace("@PB_MIN@", &PTLRPC_BODY_V2_SIZE.to_string())
            .replace("@ENQUEUE@", &LDLM_ENQUEUE.to_string())
            .replace("@REQUEST@", &PtlrpcMsgType::REQUEST.0.to_string())
            .replace("@ERR@", &PtlrpcMsgType::ERR.0.to_string())
            .replace("@LDLM_REQ_MIN@", &LDLM_REQUEST_MIN.to_string())
            .replace("@LDLM_REP@", &LDLM_REPLY_SIZE.to_string())
            .replace("@REQ_SIZE@", &PREPARE_REQ_SIZE.to_string())
            .replace("@REP_SIZE@", &PREPARE_REP_SIZE.to_string())
            .replace("@NRES@", &MLI_BUF_MAX.to_string())
            .replace("@ADVISORY@", &McppFlags::ADVISORY.bits().to_string())
            .replace("@LM_BUFLENS@", buflens)
            .replace(
                "@MSG_FMT@",
                &unpack_format(t.get(lustre_msg_v2::LAYOUT), &msg)
            )
            .replace("@PB_FMT@", &unpack_format(t.get(ptlrpc_body::LAYOUT), &pb))
            .replace(
                "@REP_FMT@",
                &unpack_format(t.get(md_create_prepare_rep::LAYOUT), &rep)
            )
            .replace(
                "@IT_FMT@",
                &unpack_format(t.get(ldlm_intent::LAYOUT), &[ldlm_intent::opc])
            )
            .replace("@PORTALS@", &PORTALS.map(|p| p.to_string()).join(", "),),
    );
    s.push_str(&framing::lua());
    s
}

/// The dissector's logic; the `@NAME@` markers are filled from the crate's constants.
const LUA_BODY: &str = include_str!("wireshark/portal.lua");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_the_codecs() {
        let lua = dissector();
        // md_create_prepare_req: mcpr_fsuid after the 16-byte FID and mcpr_flags.
        assert!(
            lua.contains("{ \"mcpr_fsuid\", 20, 4, \"u\", 1 },"),
            "{lua}"
        );
        // 48 as in include/lustre_dne_prepare.h: the FID, four u32, mcpr_cap, then two u32.
        assert!(lua.contains("{ \"mcpr_buf_limit\", 48, 4, \"u\", 6 },"));
        assert!(lua.contains("{ \"mcpp_valid\", 8, 4, \"u\", 1, MCPP_VALID },"));
        assert!(lua.contains("{ \"pb_opc\", 16, 4, \"u\", 1 },"));
        assert!(lua.contains("F.mcpr_fsuid = ProtoField.uint32(\"dne_prepare.mcpr_fsuid\""));
        assert!(lua.contains("[65536] = \"IT_DNE_CREATE_PREPARE\","));
        assert!(lua.contains("for _, portal in ipairs({ 24, 4, 12, 10 })"));
        assert!(!lua.contains('@'), "a marker was left unfilled");
    }

    /// The members shown are those the declarations say everyone shows, embedded structures
    /// flattened: a `detail` member (the handles, `try_bits`) and padding are left out, and a
    /// 32-bit flags member carries the table of its type's bit names.
    #[test]
    fn the_declarations_choose_the_members() {
        let tables = dissected(&Tables::default());
        let names = |lua: &str| -> Vec<String> {
            let (_, fields) = tables.iter().find(|(n, _)| n == lua).expect("a table");
            fields.iter().map(|f| f.name.clone()).collect()
        };
        assert_eq!(
            names("LDLM_REPLY"),
            [
                "lock_flags",
                "lock_desc_lr_type",
                "lock_desc_lr_name",
                "lock_desc_l_req_mode",
                "lock_desc_l_granted_mode",
                "lock_desc_l_policy_data_bits",
                "lock_policy_res1",
                "lock_policy_res2",
            ]
        );
        let pb = names("PTLRPC_BODY");
        assert_eq!((pb.len(), pb[0].as_str()), (19, "pb_type"));
        assert!(!pb.iter().any(|n| n.contains("padding") || n == "pb_jobid"));
        assert_eq!(
            names("LUSTRE_MSG_V2"),
            [
                "lm_bufcount",
                "lm_secflvr",
                "lm_magic",
                "lm_repsize",
                "lm_cksum",
                "lm_flags",
                "lm_opc"
            ]
        );
        let lua = dissector();
        assert!(lua.contains("local MCPR_FLAGS = {\n  [1] = \"MCPR_NO_LOOKUP\",\n"));
        assert!(lua.contains("{ \"lock_desc_lr_name\", 16, 8, \"u\", 4 },"));
        assert!(lua.contains("F.lm_buflens = ProtoField.uint32(\"dne_prepare.lm_buflens\""));
        assert!(lua.contains("if want(\"lm_buflens\") then"));
    }

    /// A copy of a declaration replaces the codec's by name; the others stay.
    #[test]
    fn tables_replace_by_name() {
        let copy: &'static Layout = Box::leak(Box::new(Layout {
            doc: "a copy",
            ..*ldlm_reply::LAYOUT
        }));
        let t = Tables::default().with(copy);
        assert_eq!(t.layouts.len(), structures::ALL.len());
        assert_eq!(t.get(ldlm_reply::LAYOUT).doc, "a copy");
        assert_eq!(t.get(ptlrpc_body::LAYOUT), ptlrpc_body::LAYOUT);
    }
}
