//! `dne-intent wireshark-lua`: a Lua dissector for Wireshark and tshark, generated from the
//! codec's own layouts so it cannot drift from them.
//!
//! Every offset and size comes from the zerocopy raw layouts (`core::mem::offset_of!`,
//! `size_of`), every value name from the crate's named constants (`NAMED` tables, the
//! capture reader's opcode names). The dissector registers on `lnet.ptl_index`, which the
//! built-in LNet dissector calls for the payload of each PUT; it replaces the built-in Lustre
//! dissector on the MDS portals, so it decodes `lustre_msg_v2` and `ptlrpc_body` itself.

use lustre_dne_intent::capture::opcode_name;
use lustre_dne_intent::intent::body::{MdCreatePrepareRepRaw, MdCreatePrepareReqRaw};
use lustre_dne_intent::intent::{IntentOpc, McppFlags, McprFlags, MliBuf};
use lustre_dne_intent::limits::{
    LDLM_REPLY_SIZE, LDLM_REQUEST_MIN, MLI_BUF_MAX, MSG_HEADER_FIXED, MSG_MAX_BUFCOUNT,
    PREPARE_REP_SIZE, PREPARE_REQ_SIZE, PTLRPC_BODY_V2_SIZE,
};
use lustre_dne_intent::wire::raw::{LdlmReplyRaw, LdlmRequestRaw, MsgHeaderRaw, PtlrpcBodyRaw};
use lustre_dne_intent::wire::{LDLM_ENQUEUE, LUSTRE_MSG_MAGIC_V2, PtlrpcMsgType};
use std::fmt::Write as _;
use std::mem::offset_of;
use zerocopy::LittleEndian as Le;

/// Portals the dissector registers on: `OUT_PORTAL` (24) and `OSC_REPLY_PORTAL` (4), where
/// OSP's MDT-to-MDT RPCs go, and `MDS_REQUEST_PORTAL` (12) and `MDC_REPLY_PORTAL` (10).
pub const PORTALS: [u32; 4] = [24, 4, 12, 10];

/// How a field is shown.
#[derive(Clone, Copy)]
enum Kind {
    U32,
    I32,
    U64,
    /// `u32`, shown in hex.
    Hex32,
    /// `struct lu_fid`, shown as `[seq:oid:ver]`.
    Fid,
}

/// One field: its C name, offset in its buffer and how it is shown.
struct Field {
    name: &'static str,
    offset: usize,
    kind: Kind,
    /// Array length (1 for a scalar).
    count: usize,
}

const fn fld(name: &'static str, offset: usize, kind: Kind) -> Field {
    Field {
        name,
        offset,
        kind,
        count: 1,
    }
}

macro_rules! fields {
    ($raw:ty; $( $f:ident $(. $g:ident)* : $kind:ident $([$n:expr])? ),* $(,)?) => {
        vec![ $( Field {
            name: concat!(stringify!($f) $(, "_", stringify!($g))*),
            offset: offset_of!($raw, $f $(. $g)*),
            kind: Kind::$kind,
            count: 1 $( * 0 + $n )?,
        } ),* ]
    };
}

fn header_fields() -> Vec<Field> {
    fields!(MsgHeaderRaw<Le>;
        lm_bufcount: U32, lm_secflvr: Hex32, lm_magic: Hex32, lm_repsize: U32, lm_cksum: Hex32,
        lm_flags: Hex32, lm_opc: U32)
}

fn ptlrpc_fields() -> Vec<Field> {
    fields!(PtlrpcBodyRaw<Le>;
        pb_type: U32, pb_version: Hex32, pb_opc: U32, pb_status: I32, pb_last_xid: U64,
        pb_tag: U32, pb_projid: U32, pb_last_committed: U64, pb_transno: U64, pb_flags: Hex32,
        pb_op_flags: Hex32, pb_conn_cnt: U32, pb_timeout: U32, pb_service_time: U32,
        pb_limit: U32, pb_slv: U64, pb_mbits: U64, pb_uid: U32, pb_gid: U32)
}

fn ldlm_request_fields() -> Vec<Field> {
    let mut v = fields!(LdlmRequestRaw<Le>;
        lock_flags: Hex32, lock_count: U32, lock_desc.lr_type: U32,
        lock_desc.l_req_mode: U32, lock_desc.l_granted_mode: U32,
        lock_desc.l_policy_data.bits: U64);
    let name = offset_of!(LdlmRequestRaw<Le>, lock_desc.lr_name);
    v.push(Field {
        name: "lock_desc_lr_name",
        offset: name,
        kind: Kind::U64,
        count: 4,
    });
    v
}

fn ldlm_reply_fields() -> Vec<Field> {
    fields!(LdlmReplyRaw<Le>;
        lock_flags: Hex32, lock_desc.lr_type: U32, lock_desc.l_req_mode: U32,
        lock_desc.l_granted_mode: U32, lock_desc.l_policy_data.bits: U64,
        lock_policy_res1: U64, lock_policy_res2: U64)
}

fn req_fields() -> Vec<Field> {
    fields!(MdCreatePrepareReqRaw<Le>;
        mcpr_fid: Fid, mcpr_flags: Hex32, mcpr_fsuid: U32, mcpr_fsgid: U32, mcpr_umask: U32,
        mcpr_cap: U64, mcpr_child_mode: U32, mcpr_buf_limit: U32[MLI_BUF_MAX])
}

fn rep_fields() -> Vec<Field> {
    fields!(MdCreatePrepareRepRaw<Le>;
        mcpp_status: I32, mcpp_flags: Hex32, mcpp_valid: Hex32, mcpp_truncated: Hex32,
        mcpp_fid: Fid, mcpp_child_mode: U32, mcpp_child_gid: U32, mcpp_child_projid: U32,
        mcpp_child_flags: Hex32, mcpp_buf_size: U32[MLI_BUF_MAX])
}

fn proto_field(s: &mut String, f: &Field, strings: Option<&str>) {
    let (ctor, base) = match f.kind {
        Kind::U32 => ("uint32", "base.DEC"),
        Kind::I32 => ("int32", "base.DEC"),
        Kind::U64 => ("uint64", "base.DEC"),
        Kind::Hex32 => ("uint32", "base.HEX"),
        Kind::Fid => ("string", "base.NONE"),
    };
    let vs = strings.map_or(String::new(), |t| format!(", {t}"));
    let _ = writeln!(
        s,
        "F.{n} = ProtoField.{ctor}(\"dne_prepare.{n}\", \"{n}\", {base}{vs})",
        n = f.name
    );
}

/// The Lua table of a structure: `{ {name, offset, size, kind, count}, ... }`.
fn struct_table(s: &mut String, lua: &str, fields: &[Field]) {
    let _ = writeln!(s, "local {lua} = {{");
    for f in fields {
        let (size, kind) = match f.kind {
            Kind::U32 | Kind::Hex32 => (4, "u"),
            Kind::I32 => (4, "i"),
            Kind::U64 => (8, "u"),
            Kind::Fid => (16, "fid"),
        };
        let _ = writeln!(
            s,
            "  {{ \"{}\", {}, {size}, \"{kind}\", {} }},",
            f.name, f.offset, f.count
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
fn declare_fields(s: &mut String) -> [(&'static str, Vec<Field>); 6] {
    let tables: [(&str, Vec<Field>); 6] = [
        ("LUSTRE_MSG_V2", header_fields()),
        ("PTLRPC_BODY", ptlrpc_fields()),
        ("LDLM_REQUEST", ldlm_request_fields()),
        ("LDLM_REPLY", ldlm_reply_fields()),
        ("MD_CREATE_PREPARE_REQ", req_fields()),
        ("MD_CREATE_PREPARE_REP", rep_fields()),
    ];
    let mut seen = std::collections::BTreeSet::new();
    for (_, fields) in &tables {
        for f in fields {
            if seen.insert(f.name) {
                let strings = match f.name {
                    "pb_opc" => Some("OPC"),
                    "pb_type" => Some("PB_TYPE"),
                    _ => None,
                };
                proto_field(s, f, strings);
            }
        }
    }
    let extra = [fld("opc", 0, Kind::U64)];
    for f in &extra {
        proto_field(s, f, None);
    }
    s.push_str(
        "F.lm_buflens = ProtoField.uint32(\"dne_prepare.lm_buflens\", \"lm_buflens\", base.DEC)\n\
         F.opc_name = ProtoField.string(\"dne_prepare.opc_name\", \"intent\")\n\
         F.name = ProtoField.string(\"dne_prepare.name\", \"name\")\n\
         F.groups = ProtoField.uint32(\"dne_prepare.groups\", \"supplementary group\", base.DEC)\n\
         F.result = ProtoField.bytes(\"dne_prepare.result\", \"result\")\n\
         F.result_state = ProtoField.string(\"dne_prepare.result_state\", \"result state\")\n\
         F.outcome = ProtoField.string(\"dne_prepare.outcome\", \"outcome\")\n\
         local flist = {}\nfor _, f in pairs(F) do flist[#flist + 1] = f end\np.fields = flist\n\n",
    );
    tables
}

/// The whole dissector.
pub fn dissector() -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "-- Lustre DNE prepare intent: Wireshark/tshark Lua dissector.\n\
         -- Generated by `dne-intent wireshark-lua` ({} {}) from the codec's layouts; do not edit.\n\
         -- Load: tshark -X lua_script:dne_prepare.lua, or copy to ~/.local/lib/wireshark/plugins/.\n",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    );
    s.push_str("local p = Proto(\"dne_prepare\", \"Lustre DNE prepare intent\")\nlocal F = {}\n\n");
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
    let tables = declare_fields(&mut s);
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
            .replace("@PORTALS@", &PORTALS.map(|p| p.to_string()).join(", "),),
    );
    s
}

/// The dissector's logic; the `@NAME@` markers are filled from the crate's constants.
const LUA_BODY: &str = r#"
local match_bits = Field.new("lnet.msg_dst_match_bits")
-- Intent of each request not yet answered, by LNet match bits (the xid), for its reply.
local pending = {}

local function u32(tvb, off, le) if le then return tvb(off, 4):le_uint() end return tvb(off, 4):uint() end
local function i32(tvb, off, le) if le then return tvb(off, 4):le_int() end return tvb(off, 4):int() end
local function u64(tvb, off, le) if le then return tvb(off, 8):le_uint64() end return tvb(off, 8):uint64() end
local function hex64(v) local h = v:tohex():gsub("^0+", "") if h == "" then h = "0" end return "0x" .. h end
local function hex32(v) return string.format("0x%x", v) end

local function fid(tvb, off, le)
  return "[" .. hex64(u64(tvb, off, le)) .. ":" .. hex32(u32(tvb, off + 8, le)) .. ":" ..
    hex32(u32(tvb, off + 12, le)) .. "]"
end

local function flag_names(v, names)
  local out = {}
  for bit, n in pairs(names) do
    if bit ~= 0 and (v % (2 * bit)) >= bit then out[#out + 1] = n end
  end
  table.sort(out)
  return table.concat(out, "|")
end

-- Adds the fields of a structure laid out by `layout` at `off`; returns {name = value}.
local function add_struct(tree, tvb, off, len, layout, le)
  local vals = {}
  for _, f in ipairs(layout) do
    local name, foff, size, kind, count = f[1], f[2], f[3], f[4], f[5]
    for i = 0, count - 1 do
      local o = foff + i * size
      if o + size <= len then
        local r = tvb(off + o, size)
        local item
        if kind == "fid" then
          item = tree:add(F[name], r, fid(tvb, off + o, le))
        elseif le then
          item = tree:add_le(F[name], r)
        else
          item = tree:add(F[name], r)
        end
        if count > 1 then item:prepend_text("[" .. i .. "] ") end
        if count == 1 and kind == "u" and size == 4 then vals[name] = u32(tvb, off + o, le) end
        if count == 1 and kind == "i" then vals[name] = i32(tvb, off + o, le) end
        if count == 1 and kind == "u" and size == 8 then vals[name] = u64(tvb, off + o, le) end
        if name == "mcpr_flags" then item:append_text(" " .. flag_names(vals[name], MCPR_FLAGS)) end
        if name == "mcpp_flags" then item:append_text(" " .. flag_names(vals[name], MCPP_FLAGS)) end
      end
    end
  end
  return vals
end

local function dissect_request(tvb, tree, le, bufs, xid)
  if #bufs < 3 or bufs[3].len < 8 then return nil end
  local it = u64(tvb, bufs[3].off, le)
  local itn = tonumber(tostring(it))
  local name = IT_OPC[itn]
  if itn ~= 0x10000 and itn ~= 0x20000 and itn ~= 0x40000 then return nil end
  if xid then pending[xid] = name end
  local b = bufs[2]
  if b.len >= @LDLM_REQ_MIN@ then add_struct(tree:add(p, tvb(b.off, b.len), "ldlm_request"), tvb, b.off, b.len, LDLM_REQUEST, le) end
  local it_item = le and tree:add_le(F.opc, tvb(bufs[3].off, 8)) or tree:add(F.opc, tvb(bufs[3].off, 8))
  it_item:append_text(" (" .. name .. ")")
  tree:add(F.opc_name, tvb(bufs[3].off, 8), name)
  if #bufs >= 4 and bufs[4].len >= @REQ_SIZE@ then
    b = bufs[4]
    add_struct(tree:add(p, tvb(b.off, b.len), "md_create_prepare_req"), tvb, b.off, b.len, MD_CREATE_PREPARE_REQ, le)
  end
  if #bufs >= 5 and bufs[5].len > 0 then
    b = bufs[5]
    tree:add(F.name, tvb(b.off, b.len), tvb(b.off, b.len):stringz())
  end
  if #bufs >= 6 then
    b = bufs[6]
    for o = 0, b.len - 4, 4 do
      if le then tree:add_le(F.groups, tvb(b.off + o, 4)) else tree:add(F.groups, tvb(b.off + o, 4)) end
    end
  end
  return name
end

local function dissect_reply(tvb, tree, le, bufs, name, status, pb_type)
  local b = bufs[2]
  if b and b.len >= @LDLM_REP@ then add_struct(tree:add(p, tvb(b.off, b.len), "ldlm_reply"), tvb, b.off, b.len, LDLM_REPLY, le) end
  tree:add(F.opc_name, name)
  if status ~= 0 or pb_type == @ERR@ then tree:add(F.outcome, "error"); return "error" end
  b = bufs[3]
  if not b or b.len == 0 then tree:add(F.outcome, "empty"); return "empty" end
  if b.len < @REP_SIZE@ then return "malformed" end
  local v = add_struct(tree:add(p, tvb(b.off, b.len), "md_create_prepare_rep"), tvb, b.off, b.len, MD_CREATE_PREPARE_REP, le)
  local valid, trunc, flags = v.mcpp_valid or 0, v.mcpp_truncated or 0, v.mcpp_flags or 0
  local partial = false
  for i = 0, @NRES@ - 1 do
    local bit = 2 ^ i
    local r = bufs[4 + i]
    local state
    -- A truncated result was left out; a known one is present (bytes) or absent (empty);
    -- the rest are unknown. The crate's ReplyView is the authority on these rules.
    if (trunc % (2 * bit)) >= bit then state = "truncated"
    elseif (valid % (2 * bit)) >= bit then
      if r and r.len > 0 then state = "present" else state = "absent" end
    else state = "unknown"; partial = true end
    local label = MLI[i + 1] .. ": " .. state
    if r and r.len > 0 then
      local t = tree:add(F.result, tvb(r.off, r.len))
      t:prepend_text(MLI[i + 1] .. " ")
      t:add(F.result_state, tvb(r.off, r.len), label)
    else
      tree:add(F.result_state, label)
    end
  end
  local outcome = "complete"
  if (flags % (2 * @ADVISORY@)) >= @ADVISORY@ then outcome = "advisory" elseif partial then outcome = "partial" end
  tree:add(F.outcome, outcome)
  return outcome
end

function p.dissector(tvb, pinfo, tree)
  local len = tvb:len()
  if len < @HDR@ then return 0 end
  local le
  if tvb(8, 4):le_uint() == @MAGIC@ then le = true elseif tvb(8, 4):uint() == @MAGIC@ then le = false else return 0 end
  local count = u32(tvb, 0, le)
  if count < 1 or count > @MAXBUF@ or @HDR@ + 4 * count > len then return 0 end
  local off = @HDR@ + 4 * count
  off = off + (8 - off % 8) % 8
  local bufs = {}
  for i = 1, count do
    local l = u32(tvb, @HDR@ + 4 * (i - 1), le)
    if off + l > len then return 0 end
    bufs[i] = { off = off, len = l }
    off = off + l
    off = off + (8 - off % 8) % 8
  end
  local tree_msg = tree:add(p, tvb(0, len), "Lustre DNE prepare: lustre_msg_v2 (" .. (le and "little" or "big") .. "-endian)")
  local hdr = tree_msg:add(p, tvb(0, @HDR@ + 4 * count), "lustre_msg_v2")
  add_struct(hdr, tvb, 0, @HDR@, LUSTRE_MSG_V2, le)
  for i = 1, count do
    local item = le and hdr:add_le(F.lm_buflens, tvb(@HDR@ + 4 * (i - 1), 4)) or hdr:add(F.lm_buflens, tvb(@HDR@ + 4 * (i - 1), 4))
    item:prepend_text("[" .. (i - 1) .. "] ")
  end
  if bufs[1].len < @PB_MIN@ then return len end
  local pb = add_struct(tree_msg:add(p, tvb(bufs[1].off, bufs[1].len), "ptlrpc_body"), tvb, bufs[1].off, bufs[1].len, PTLRPC_BODY, le)
  local opc, pb_type, status = pb.pb_opc, pb.pb_type, pb.pb_status
  local info = (OPC[opc] or ("opc " .. opc)) .. " " .. (pb_type == @REQUEST@ and "request" or "reply")
  local mb = match_bits()
  local xid = mb and tostring(mb.value) or nil
  if opc == @ENQUEUE@ then
    if pb_type == @REQUEST@ then
      local name = dissect_request(tvb, tree_msg, le, bufs, xid)
      if name then info = info .. " [" .. name .. "]" end
    else
      local name
      if not pinfo.visited then
        -- First pass: take the request's entry, so the table holds only unanswered requests
        -- (a table that grows with the capture makes Wireshark's per-packet Lua collection
        -- quadratic: 100,000 frames took minutes).
        name = xid and pending[xid]
        if xid then pending[xid] = nil end
      elseif count == 3 + @NRES@ and bufs[2].len >= @LDLM_REP@ and bufs[3].len >= @REP_SIZE@ then
        -- Dissected again (the GUI): known by its shape, the operation no longer known.
        name = "IT_DNE_*_PREPARE"
      end
      if name then
        local outcome = dissect_reply(tvb, tree_msg, le, bufs, name, status, pb_type)
        info = info .. " [" .. name .. " " .. outcome .. "]"
      end
    end
  end
  pinfo.cols.protocol = "DNE"
  pinfo.cols.info = info
  return len
end

local ptl = DissectorTable.get("lnet.ptl_index")
for _, portal in ipairs({ @PORTALS@ }) do ptl:add(portal, p) end
"#;

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
