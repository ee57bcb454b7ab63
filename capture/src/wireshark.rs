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
use lustre_dne_intent::intent::{IntentOpc, McppFlags, McprFlags, MliBuf};
use lustre_dne_intent::limits::{
    LDLM_REPLY_SIZE, LDLM_REQUEST_MIN, MLI_BUF_MAX, MSG_HEADER_FIXED, MSG_MAX_BUFCOUNT,
    PREPARE_REP_SIZE, PREPARE_REQ_SIZE, PTLRPC_BODY_V2_SIZE,
};
use lustre_dne_intent::wire::layout::{
    self, FieldAt, FieldType, Layout, ldlm_intent, ldlm_reply, ldlm_request, lustre_msg_v2,
    md_create_prepare_rep, md_create_prepare_req, ptlrpc_body,
};
use lustre_dne_intent::wire::{LDLM_ENQUEUE, LUSTRE_MSG_MAGIC_V2, PtlrpcMsgType};
use std::fmt::Write as _;

/// Portals the dissector registers on: `OUT_PORTAL` (24) and `OSC_REPLY_PORTAL` (4), where
/// OSP's MDT-to-MDT RPCs go, and `MDS_REQUEST_PORTAL` (12) and `MDC_REPLY_PORTAL` (10).
pub const PORTALS: [u32; 4] = [24, 4, 12, 10];

/// How a field is shown.
#[derive(Clone, Copy, Debug)]
enum Kind {
    U16,
    U32,
    I32,
    U64,
    /// `u32`, shown in hex.
    Hex32,
    /// `u32`, shown in octal (a mode).
    Oct32,
    /// `u64`, shown in hex.
    Hex64,
    /// `struct lu_fid`, shown as `[seq:oid:ver]`.
    Fid,
}

impl Kind {
    /// How member `f` is shown, as its declaration's display hint says.
    fn of(f: &layout::Field) -> Kind {
        use layout::Display as D;
        match (f.ty, f.display) {
            (FieldType::Struct(_), _) => Kind::Fid,
            (FieldType::U16, _) => Kind::U16,
            (FieldType::S32, _) => Kind::I32,
            (FieldType::U32, D::Hex | D::Flags) => Kind::Hex32,
            (FieldType::U32, D::Octal) => Kind::Oct32,
            (FieldType::U64, D::Hex | D::Flags) => Kind::Hex64,
            (FieldType::U64, _) => Kind::U64,
            _ => Kind::U32,
        }
    }

    /// Whether a member of C type `ty` can be shown this way.
    fn shows(self, ty: FieldType) -> bool {
        match (self, ty) {
            (Kind::U16, FieldType::U16) | (Kind::I32, FieldType::S32) => true,
            (Kind::U32 | Kind::Hex32 | Kind::Oct32, FieldType::U32) => true,
            (Kind::U64 | Kind::Hex64, FieldType::U64) => true,
            (Kind::Fid, FieldType::Struct(l)) => l.name == "lu_fid",
            _ => false,
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
}

/// The member of `l` at a dotted path (`lock_desc.l_policy_data.bits`), through the nested
/// structures, and its offset from the start of `l`. A structure of one member stands for that
/// member (`lr_name` is the array `ldlm_res_id.name`), unless shown as a FID.
///
/// # Panics
/// When the path names no member: the paths are this module's, the tables the codec's, and a
/// test generates the dissector.
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

/// The fields shown of structure `l`, each a path to one of its members and how it is shown;
/// offsets, sizes and counts come from the codec's layout tables.
fn shown(l: &'static Layout, list: &[&str]) -> Vec<Field> {
    list.iter()
        .map(|&path| {
            let (offset, f) = member(l, path);
            let kind = Kind::of(f);
            assert!(
                kind.shows(f.ty),
                "wireshark: {path} is a {}, not shown as {kind:?}",
                f.ty.c_type()
            );
            Field {
                name: path.replace('.', "_"),
                offset,
                kind,
                size: f.ty.size(),
                count: f.array.map_or(1, |a| a.len),
            }
        })
        .collect()
}

fn header_fields(l: &'static Layout) -> Vec<Field> {
    shown(
        l,
        &[
            "lm_bufcount",
            "lm_secflvr",
            "lm_magic",
            "lm_repsize",
            "lm_cksum",
            "lm_flags",
            "lm_opc",
        ],
    )
}

fn ptlrpc_fields(l: &'static Layout) -> Vec<Field> {
    shown(
        l,
        &[
            "pb_type",
            "pb_version",
            "pb_opc",
            "pb_status",
            "pb_last_xid",
            "pb_tag",
            "pb_projid",
            "pb_last_committed",
            "pb_transno",
            "pb_flags",
            "pb_op_flags",
            "pb_conn_cnt",
            "pb_timeout",
            "pb_service_time",
            "pb_limit",
            "pb_slv",
            "pb_mbits",
            "pb_uid",
            "pb_gid",
        ],
    )
}

fn ldlm_request_fields(l: &'static Layout) -> Vec<Field> {
    shown(
        l,
        &[
            "lock_flags",
            "lock_count",
            "lock_desc.lr_type",
            "lock_desc.l_req_mode",
            "lock_desc.l_granted_mode",
            "lock_desc.l_policy_data.bits",
            "lock_desc.lr_name",
        ],
    )
}

fn ldlm_reply_fields(l: &'static Layout) -> Vec<Field> {
    shown(
        l,
        &[
            "lock_flags",
            "lock_desc.lr_type",
            "lock_desc.l_req_mode",
            "lock_desc.l_granted_mode",
            "lock_desc.l_policy_data.bits",
            "lock_policy_res1",
            "lock_policy_res2",
        ],
    )
}

fn req_fields(l: &'static Layout) -> Vec<Field> {
    shown(
        l,
        &[
            "mcpr_fid",
            "mcpr_flags",
            "mcpr_fsuid",
            "mcpr_fsgid",
            "mcpr_umask",
            "mcpr_cap",
            "mcpr_child_mode",
            "mcpr_buf_limit",
        ],
    )
}

fn rep_fields(l: &'static Layout) -> Vec<Field> {
    shown(
        l,
        &[
            "mcpp_status",
            "mcpp_flags",
            "mcpp_valid",
            "mcpp_truncated",
            "mcpp_fid",
            "mcpp_child_mode",
            "mcpp_child_gid",
            "mcpp_child_projid",
            "mcpp_child_flags",
            "mcpp_buf_size",
        ],
    )
}

fn proto_field(s: &mut String, f: &Field, strings: Option<&str>) {
    let (ctor, base) = match f.kind {
        Kind::U16 => ("uint16", "base.DEC"),
        Kind::U32 => ("uint32", "base.DEC"),
        Kind::I32 => ("int32", "base.DEC"),
        Kind::U64 => ("uint64", "base.DEC"),
        Kind::Hex32 => ("uint32", "base.HEX"),
        Kind::Oct32 => ("uint32", "base.OCT"),
        Kind::Hex64 => ("uint64", "base.HEX"),
        Kind::Fid => ("string", "base.NONE"),
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

/// The Lua table of a structure: `{ {name, offset, size, kind, count}, ... }`.
fn struct_table(s: &mut String, lua: &str, fields: &[Field]) {
    let _ = writeln!(s, "local {lua} = {{");
    for f in fields {
        let kind = match f.kind {
            Kind::U16 | Kind::U32 | Kind::Hex32 | Kind::Oct32 | Kind::U64 | Kind::Hex64 => "u",
            Kind::I32 => "i",
            Kind::Fid => "fid",
        };
        let _ = writeln!(
            s,
            "  {{ \"{}\", {}, {}, \"{kind}\", {} }},",
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

/// The structures' layouts, after declaring one `ProtoField` per distinct field name in `s`.
fn declare_fields(s: &mut String, t: &Tables) -> [(&'static str, Vec<Field>); 6] {
    let tables: [(&str, Vec<Field>); 6] = [
        ("LUSTRE_MSG_V2", header_fields(t.lustre_msg_v2)),
        ("PTLRPC_BODY", ptlrpc_fields(t.ptlrpc_body)),
        ("LDLM_REQUEST", ldlm_request_fields(t.ldlm_request)),
        ("LDLM_REPLY", ldlm_reply_fields(t.ldlm_reply)),
        ("MD_CREATE_PREPARE_REQ", req_fields(t.md_create_prepare_req)),
        ("MD_CREATE_PREPARE_REP", rep_fields(t.md_create_prepare_rep)),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (_, fields) in &tables {
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
    for f in &shown(t.ldlm_intent, &["opc"]) {
        proto_field(s, f, None);
    }
    // Fields of no structure's table (lm_buflens is a variable-length array): (name,
    // constructor, label, base).
    let lm_buflens = lustre_msg_v2::lm_buflens;
    for (n, ctor, label, base) in [
        (lm_buflens.name, "uint32", lm_buflens.name, ", base.DEC"),
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
    tables
}

/// The whole dissector.
pub fn dissector() -> String {
    dissector_with(&Tables::default())
}

/// The layout tables a dissector is generated from: the codec's ([`Tables::default`]), or
/// others, to show that the dissector follows them (a member moved in a table moves here).
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct Tables {
    pub lustre_msg_v2: &'static Layout,
    pub ptlrpc_body: &'static Layout,
    pub ldlm_request: &'static Layout,
    pub ldlm_reply: &'static Layout,
    pub ldlm_intent: &'static Layout,
    pub md_create_prepare_req: &'static Layout,
    pub md_create_prepare_rep: &'static Layout,
}

impl Default for Tables {
    fn default() -> Self {
        Tables {
            lustre_msg_v2: lustre_msg_v2::LAYOUT,
            ptlrpc_body: ptlrpc_body::LAYOUT,
            ldlm_request: ldlm_request::LAYOUT,
            ldlm_reply: ldlm_reply::LAYOUT,
            ldlm_intent: ldlm_intent::LAYOUT,
            md_create_prepare_req: md_create_prepare_req::LAYOUT,
            md_create_prepare_rep: md_create_prepare_rep::LAYOUT,
        }
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
    value_table(
        &mut s,
        "MCPR_FLAGS",
        McprFlags::NAMED
            .iter()
            .map(|(n, v)| (n.to_string(), u64::from(*v))),
    );
    value_table(
        &mut s,
        "MCPP_FLAGS",
        McppFlags::NAMED
            .iter()
            .map(|(n, v)| (n.to_string(), u64::from(*v))),
    );
    let _ = writeln!(
        s,
        "local MLI = {{ {} }}\n",
        MliBuf::ALL.map(|b| format!("\"{}\"", b.name())).join(", ")
    );
    let tables = declare_fields(&mut s, t);
    let msg = [lustre_msg_v2::lm_bufcount, lustre_msg_v2::lm_magic];
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
            .replace("@MSG_FMT@", &unpack_format(t.lustre_msg_v2, &msg))
            .replace("@PB_FMT@", &unpack_format(t.ptlrpc_body, &pb))
            .replace("@REP_FMT@", &unpack_format(t.md_create_prepare_rep, &rep))
            .replace(
                "@IT_FMT@",
                &unpack_format(t.ldlm_intent, &[ldlm_intent::opc])
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
        assert!(lua.contains("{ \"mcpp_valid\", 8, 4, \"u\", 1 },"));
        assert!(lua.contains("{ \"pb_opc\", 16, 4, \"u\", 1 },"));
        assert!(lua.contains("F.mcpr_fsuid = ProtoField.uint32(\"dne_prepare.mcpr_fsuid\""));
        assert!(lua.contains("[65536] = \"IT_DNE_CREATE_PREPARE\","));
        assert!(lua.contains("for _, portal in ipairs({ 24, 4, 12, 10 })"));
        assert!(!lua.contains('@'), "a marker was left unfilled");
    }
}
