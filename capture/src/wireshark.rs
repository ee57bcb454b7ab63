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
    /// `struct lu_fid`, shown as `[seq:oid:ver]`.
    Fid,
}

impl Kind {
    /// Whether a member of C type `ty` can be shown this way.
    fn shows(self, ty: FieldType) -> bool {
        match (self, ty) {
            (Kind::U16, FieldType::U16) | (Kind::I32, FieldType::S32) => true,
            (Kind::U32 | Kind::Hex32, FieldType::U32) | (Kind::U64, FieldType::U64) => true,
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
fn member(l: &'static Layout, path: &str, kind: Kind) -> (usize, &'static layout::Field) {
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
                if inner.fields.len() == 1 && !matches!(kind, Kind::Fid) =>
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
fn shown(l: &'static Layout, list: &[(&str, Kind)]) -> Vec<Field> {
    list.iter()
        .map(|&(path, kind)| {
            let (offset, f) = member(l, path, kind);
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
    use Kind::*;
    shown(
        l,
        &[
            ("lm_bufcount", U32),
            ("lm_secflvr", Hex32),
            ("lm_magic", Hex32),
            ("lm_repsize", U32),
            ("lm_cksum", Hex32),
            ("lm_flags", Hex32),
            ("lm_opc", U32),
        ],
    )
}

fn ptlrpc_fields(l: &'static Layout) -> Vec<Field> {
    use Kind::*;
    shown(
        l,
        &[
            ("pb_type", U32),
            ("pb_version", Hex32),
            ("pb_opc", U32),
            ("pb_status", I32),
            ("pb_last_xid", U64),
            ("pb_tag", U16),
            ("pb_projid", U32),
            ("pb_last_committed", U64),
            ("pb_transno", U64),
            ("pb_flags", Hex32),
            ("pb_op_flags", Hex32),
            ("pb_conn_cnt", U32),
            ("pb_timeout", U32),
            ("pb_service_time", U32),
            ("pb_limit", U32),
            ("pb_slv", U64),
            ("pb_mbits", U64),
            ("pb_uid", U32),
            ("pb_gid", U32),
        ],
    )
}

fn ldlm_request_fields(l: &'static Layout) -> Vec<Field> {
    use Kind::*;
    shown(
        l,
        &[
            ("lock_flags", Hex32),
            ("lock_count", U32),
            ("lock_desc.lr_type", U32),
            ("lock_desc.l_req_mode", U32),
            ("lock_desc.l_granted_mode", U32),
            ("lock_desc.l_policy_data.bits", U64),
            ("lock_desc.lr_name", U64),
        ],
    )
}

fn ldlm_reply_fields(l: &'static Layout) -> Vec<Field> {
    use Kind::*;
    shown(
        l,
        &[
            ("lock_flags", Hex32),
            ("lock_desc.lr_type", U32),
            ("lock_desc.l_req_mode", U32),
            ("lock_desc.l_granted_mode", U32),
            ("lock_desc.l_policy_data.bits", U64),
            ("lock_policy_res1", U64),
            ("lock_policy_res2", U64),
        ],
    )
}

fn req_fields(l: &'static Layout) -> Vec<Field> {
    use Kind::*;
    shown(
        l,
        &[
            ("mcpr_fid", Fid),
            ("mcpr_flags", Hex32),
            ("mcpr_fsuid", U32),
            ("mcpr_fsgid", U32),
            ("mcpr_umask", U32),
            ("mcpr_cap", U64),
            ("mcpr_child_mode", U32),
            ("mcpr_buf_limit", U32),
        ],
    )
}

fn rep_fields(l: &'static Layout) -> Vec<Field> {
    use Kind::*;
    shown(
        l,
        &[
            ("mcpp_status", I32),
            ("mcpp_flags", Hex32),
            ("mcpp_valid", Hex32),
            ("mcpp_truncated", Hex32),
            ("mcpp_fid", Fid),
            ("mcpp_child_mode", U32),
            ("mcpp_child_gid", U32),
            ("mcpp_child_projid", U32),
            ("mcpp_child_flags", Hex32),
            ("mcpp_buf_size", U32),
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
        let (offset, f) = member(l, a.name, Kind::U32);
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
            Kind::U16 | Kind::U32 | Kind::Hex32 | Kind::U64 => "u",
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
                let strings = match f.name.as_str() {
                    "pb_opc" => Some("OPC"),
                    "pb_type" => Some("PB_TYPE"),
                    _ => None,
                };
                proto_field(s, f, strings);
            }
        }
    }
    // The intent's opcode (buffer 2): shown with its name, outside the structure tables.
    for f in &shown(t.ldlm_intent, &[("opc", Kind::U64)]) {
        proto_field(s, f, None);
    }
    // Fields of no structure: (name, constructor, label, base).
    for (n, ctor, label, base) in [
        ("lm_buflens", "uint32", "lm_buflens", ", base.DEC"),
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
const LUA_BODY: &str = r##"
-- Defined with the framing, below: forgets its state at each new file; and the key pairing
-- a reply with its request, from the LNet header of the PUT being dissected (the match bits
-- and the client's NID), or nil. No field extractor: one makes tshark build every tree.
local sock_init, xid_key
-- Defined below: the columns of a message where no tree is built; the framing calls it.
local summarize
-- Intent of each request not yet answered, by xid and client address, for its reply.
local pending = {}
-- Whether a field is referenced (a display filter, a tap, -e) while the tree is hidden, learnt
-- from its first add: Wireshark hands back the parent for a field nobody references. Adding
-- only those fields keeps the dissector cheap where the tree is not shown (tshark's summary).
local wanted = {}
-- Every field of this message: the tree is shown, or this is a later pass (the GUI).
local full = false

-- Per structure, the fields to add while the tree is hidden, once every one is learnt.
local wanted_of = {}

function p.init()
  sock_init()
  pending = {}
  wanted = {}
  wanted_of = {}
end

local byte = string.byte

-- Values read from the message as a Lua string (one copy, no range object per read).
local function r32(s, o, le)
  local a, b, c, d = byte(s, o + 1, o + 4)
  if le then return a + b * 256 + c * 65536 + d * 16777216 end
  return d + c * 256 + b * 65536 + a * 16777216
end
local function hex32(v) return string.format("0x%x", v) end
local function fid(s, o, le)
  local hi, lo
  if le then lo, hi = r32(s, o, true), r32(s, o + 4, true) else hi, lo = r32(s, o, false), r32(s, o + 4, false) end
  local seq = hi == 0 and string.format("0x%x", lo) or string.format("0x%x%08x", hi, lo)
  return "[" .. seq .. ":" .. hex32(r32(s, o + 8, le)) .. ":" .. hex32(r32(s, o + 12, le)) .. "]"
end

local function bit_set(v, bit) return (v % (2 * bit)) >= bit end

local function flag_names(v, names)
  local out = {}
  for bit, n in pairs(names) do
    if bit ~= 0 and bit_set(v, bit) then out[#out + 1] = n end
  end
  table.sort(out)
  return table.concat(out, "|")
end

local function want(name)
  if full then return true end
  local w = wanted[name]
  return w == nil or w
end

local function learn(name, item)
  if not full and wanted[name] == nil then
    local t = item.text
    local label = LABEL[name]
    wanted[name] = t ~= nil and t:sub(1, #label + 1) == label .. ":"
  end
end

-- Adds field `name` over `len` bytes at `off` (a value given for strings and FIDs).
local function add(tree, name, tvb, off, len, le, value)
  if not want(name) then return nil end
  local item
  if value ~= nil then item = tree:add(F[name], tvb(off, len), value)
  elseif le then item = tree:add_le(F[name], tvb(off, len))
  else item = tree:add(F[name], tvb(off, len)) end
  learn(name, item)
  return item
end

-- The fields of a structure to add: all of them, or those wanted while the tree is hidden.
local function fields_of(layout)
  if full then return layout end
  local cached = wanted_of[layout]
  if cached then return cached end
  local out, known = {}, true
  for _, f in ipairs(layout) do
    if wanted[f[1]] == nil then known = false end
    if want(f[1]) then out[#out + 1] = f end
  end
  if known then wanted_of[layout] = out end
  return out
end

-- Adds the fields of a structure laid out by `layout` at `off`, under a subtree `label`.
local function add_struct(tree, tvb, s, off, len, layout, le, label)
  local fields = fields_of(layout)
  if #fields == 0 then return end
  local sub = tree:add(p, tvb(off, len), label)
  for _, f in ipairs(fields) do
    local name, foff, size, kind, count = f[1], f[2], f[3], f[4], f[5]
    do
      for i = 0, count - 1 do
        local o = foff + i * size
        if o + size <= len then
          local item = add(sub, name, tvb, off + o, size, le, kind == "fid" and fid(s, off + o, le) or nil)
          if full and item then
            if count > 1 then item:prepend_text("[" .. i .. "] ") end
            if name == "mcpr_flags" then item:append_text(" " .. flag_names(r32(s, off + o, le), MCPR_FLAGS)) end
            if name == "mcpp_flags" then item:append_text(" " .. flag_names(r32(s, off + o, le), MCPP_FLAGS)) end
          end
        end
      end
    end
  end
end

-- The buffers of the message being dissected: offsets and lengths (reused, not reallocated).
local boff, blen = {}, {}

-- Several members read in one call into C (a call costs about as much as a dozen Lua
-- operations): each format skips to its members with pad bytes, in offset order.
local unpack = Struct.unpack
local MSG_FMT = { [true] = "<@MSG_FMT@", [false] = ">@MSG_FMT@" }
local PB_FMT = { [true] = "<@PB_FMT@", [false] = ">@PB_FMT@" }
local REP_FMT = { [true] = "<@REP_FMT@", [false] = ">@REP_FMT@" }
local IT_FMT = { [true] = "<@IT_FMT@", [false] = ">@IT_FMT@" }
local ALL_RESULTS = 2 ^ @NRES@

-- The intent of a request (buffer 3's opcode), if it is a prepare intent.
local function intent_of(s, le, count)
  if count < 3 or blen[3] < 8 then return nil end
  local it = unpack(IT_FMT[le], s, boff[3] + 1)
  if it ~= 0x10000 and it ~= 0x20000 and it ~= 0x40000 then return nil end
  return IT_OPC[it]
end


local function dissect_request(tvb, s, tree, le, count, key)
  local name = intent_of(s, le, count)
  if name == nil then return nil end
  if key then pending[key] = name end
  if blen[2] >= @LDLM_REQ_MIN@ then add_struct(tree, tvb, s, boff[2], blen[2], LDLM_REQUEST, le, "ldlm_request") end
  local it_item = add(tree, "opc", tvb, boff[3], 8, le)
  if full and it_item then it_item:append_text(" (" .. name .. ")") end
  add(tree, "opc_name", tvb, boff[3], 8, le, name)
  if count >= 4 and blen[4] >= @REQ_SIZE@ then
    add_struct(tree, tvb, s, boff[4], blen[4], MD_CREATE_PREPARE_REQ, le, "md_create_prepare_req")
  end
  if count >= 5 and blen[5] > 0 and want("name") then
    add(tree, "name", tvb, boff[5], blen[5], le, tvb(boff[5], blen[5]):stringz())
  end
  if count >= 6 and want("groups") then
    for o = 0, blen[6] - 4, 4 do add(tree, "groups", tvb, boff[6] + o, 4, le) end
  end
  return name
end

-- Adds a field with no bytes of its own (a generated value).
local function add_generated(tree, name, value)
  if not want(name) then return end
  local item = tree:add(F[name], value)
  learn(name, item)
end

-- The reply's outcome from its body: the crate's ReplyView is the authority on these rules.
-- ReplyKind's order: error, empty, then advisory, the parent's answer (a status), partial (a
-- result truncated, or not known to be present or absent).
local function outcome_of(s, le, count, status, pb_type)
  if status ~= 0 or pb_type == @ERR@ then return "error" end
  if count < 3 or blen[3] == 0 then return "empty" end
  if blen[3] < @REP_SIZE@ then return "malformed" end
  local st, flags, valid, trunc = unpack(REP_FMT[le], s, boff[3] + 1)
  if (flags % (2 * @ADVISORY@)) >= @ADVISORY@ then return "advisory" end
  if st ~= 0 then return "status" end
  if trunc % ALL_RESULTS ~= 0 or valid % ALL_RESULTS ~= ALL_RESULTS - 1 then return "partial" end
  return "complete"
end

-- The intent of the request a reply answers: on the first pass its entry is taken, so the
-- table holds only unanswered requests; dissected again (the GUI), a reply is known by its
-- shape, its operation no longer known.
local function answered(pinfo, count)
  if not pinfo.visited then
    local key = xid_key(false)
    if key == nil then return nil end
    local name = pending[key]
    pending[key] = nil
    return name
  end
  if count == 3 + @NRES@ and blen[2] >= @LDLM_REP@ and blen[3] >= @REP_SIZE@ then
    return "IT_DNE_*_PREPARE"
  end
  return nil
end

local function dissect_reply(tvb, s, tree, le, count, name, status, pb_type)
  if count >= 2 and blen[2] >= @LDLM_REP@ then add_struct(tree, tvb, s, boff[2], blen[2], LDLM_REPLY, le, "ldlm_reply") end
  add_generated(tree, "opc_name", name)
  local outcome = outcome_of(s, le, count, status, pb_type)
  if outcome == "error" or outcome == "empty" then add_generated(tree, "outcome", outcome); return outcome end
  if outcome == "malformed" then return outcome end
  local o, l = boff[3], blen[3]
  add_struct(tree, tvb, s, o, l, MD_CREATE_PREPARE_REP, le, "md_create_prepare_rep")
  if want("result") or want("result_state") then
    local _, _, valid, trunc = unpack(REP_FMT[le], s, o + 1)
    local bit = 1
    for i = 0, @NRES@ - 1 do
      local k = 4 + i
      local rlen = k <= count and blen[k] or 0
      -- A truncated result was left out; a known one is present (bytes) or absent (empty);
      -- the rest are unknown.
      local state
      if bit_set(trunc, bit) then state = "truncated"
      elseif bit_set(valid, bit) then
        if rlen > 0 then state = "present" else state = "absent" end
      else state = "unknown" end
      local label = MLI[i + 1] .. ": " .. state
      if rlen > 0 then
        local t = tree:add(F.result, tvb(boff[k], rlen))
        learn("result", t)
        if full then t:prepend_text(MLI[i + 1] .. " ") end
        if want("result_state") then
          learn("result_state", t:add(F.result_state, tvb(boff[k], rlen), label))
        end
      else
        add_generated(tree, "result_state", label)
      end
      bit = bit * 2
    end
  end
  add_generated(tree, "outcome", outcome)
  return outcome
end

-- The Info column where no tree is built (tshark's summary): no field can be shown or
-- filtered on, so only the pairing and the outcome are worked out.
local function summary(s, le, count, pinfo)
  local pb_type, opc, status = unpack(PB_FMT[le], s, boff[1] + 1)
  local info = (OPC[opc] or ("opc " .. opc)) .. (pb_type == @REQUEST@ and " request" or " reply")
  if opc ~= @ENQUEUE@ then return info end
  if pb_type == @REQUEST@ then
    local name = intent_of(s, le, count)
    if name == nil then return info end
    local key = xid_key(true)
    if key then pending[key] = name end
    return info .. " [" .. name .. "]"
  end
  local name = answered(pinfo, count)
  if name == nil then return info end
  return info .. " [" .. name .. " " .. outcome_of(s, le, count, status, pb_type) .. "]"
end

-- The formats that read `lm_buflens` in one call, by byte order and count.
local BUFLENS = { [true] = {}, [false] = {} }
for n = 1, @MAXBUF@ do
  BUFLENS[true][n] = "<" .. string.rep("I4", n)
  BUFLENS[false][n] = ">" .. string.rep("I4", n)
end
local TITLE_LE = "Lustre DNE prepare: lustre_msg_v2 (little-endian)"
local TITLE_BE = "Lustre DNE prepare: lustre_msg_v2 (big-endian)"

-- The message with its tree: every field, or those referenced (see `want`).
local function dissect_tree(tvb, s, le, count, len, pinfo, tree)
  full = tree.visible or pinfo.visited
  local tree_msg = tree:add(p, tvb(0, len), le and TITLE_LE or TITLE_BE)
  add_struct(tree_msg, tvb, s, 0, @HDR@ + 4 * count, LUSTRE_MSG_V2, le, "lustre_msg_v2")
  if want("lm_buflens") then
    for i = 1, count do
      local item = add(tree_msg, "lm_buflens", tvb, @HDR@ + 4 * (i - 1), 4, le)
      if full and item then item:prepend_text("[" .. (i - 1) .. "] ") end
    end
  end
  local pb = boff[1]
  add_struct(tree_msg, tvb, s, pb, blen[1], PTLRPC_BODY, le, "ptlrpc_body")
  local pb_type, opc, status = unpack(PB_FMT[le], s, pb + 1)
  local info = (OPC[opc] or ("opc " .. opc)) .. " " .. (pb_type == @REQUEST@ and "request" or "reply")
  if opc == @ENQUEUE@ then
    if pb_type == @REQUEST@ then
      local name = dissect_request(tvb, s, tree_msg, le, count, xid_key(true))
      if name then info = info .. " [" .. name .. "]" end
    else
      local name = answered(pinfo, count)
      if name then
        local outcome = dissect_reply(tvb, s, tree_msg, le, count, name, status, pb_type)
        info = info .. " [" .. name .. " " .. outcome .. "]"
      end
    end
  end
  return info
end

-- Reads the lustre_msg_v2 at `base` of `s` (`len` bytes): its byte order and buffer count,
-- and each buffer's offset in `s` and length (boff, blen); nil when it is not one.
local function frame_msg(s, base, len)
  if len < @HDR@ then return nil end
  local le = true
  local count, magic = unpack(MSG_FMT[true], s, base + 1)
  if magic ~= @MAGIC@ then
    le = false
    count, magic = unpack(MSG_FMT[false], s, base + 1)
    if magic ~= @MAGIC@ then return nil end
  end
  if count < 1 or count > @MAXBUF@ or @HDR@ + 4 * count > len then return nil end
  -- Offsets from the start of `s`; each buffer padded to 8 bytes, the last one to fit whole.
  local off = @HDR@ + 4 * count
  off = base + off + (-off) % 8
  local lens = { unpack(BUFLENS[le][count], s, base + @HDR@ + 1) }
  local l
  for i = 1, count do
    l = lens[i]
    boff[i] = off
    blen[i] = l
    off = off + l + (-l) % 8
  end
  if boff[count] + l > base + len then return nil end
  return le, count
end

-- Where no tree is built (tshark's summary): sets the columns for the message at `base` of
-- `s`, or returns false when it is no lustre_msg_v2 with a body.
summarize = function(s, base, len, pinfo)
  local le, count = frame_msg(s, base, len)
  if le == nil or blen[1] < @PB_MIN@ then return false end
  local cols = pinfo.cols
  cols.protocol = "DNE"
  cols.info = summary(s, le, count, pinfo)
  return true
end

function p.dissector(tvb, pinfo, tree)
  local s = tvb:raw()
  local len = #s
  -- No tree (tshark's summary): no field can be shown or filtered on.
  if tree.text == nil then return summarize(s, 0, len, pinfo) and len or 0 end
  local le, count = frame_msg(s, 0, len)
  if le == nil then return 0 end
  if blen[1] < @PB_MIN@ then
    -- Too short for the body: the header alone is shown.
    full = tree.visible or pinfo.visited
    local tree_msg = tree:add(p, tvb(0, len), le and TITLE_LE or TITLE_BE)
    add_struct(tree_msg, tvb, s, 0, @HDR@ + 4 * count, LUSTRE_MSG_V2, le, "lustre_msg_v2")
    return len
  end
  local cols = pinfo.cols
  cols.protocol = "DNE"
  cols.info = dissect_tree(tvb, s, le, count, len, pinfo, tree)
  return len
end

local ptl = DissectorTable.get("lnet.ptl_index")
local PORTAL_SET = {}
for _, portal in ipairs({ @PORTALS@ }) do
  ptl:add(portal, p)
  PORTAL_SET[portal] = true
end
"##;

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
