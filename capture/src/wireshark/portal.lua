-- Defined with the framing, below: forgets its state at each new file; and the key pairing
-- a reply with its request, from the LNet header of the PUT being dissected (the match bits
-- and the client's NID), or nil. No field extractor: one makes tshark build every tree.
local sock_init, xid_key
-- Defined below: a message the framing hands over without the LNet dissector.
local dne_message
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
-- Whether any field is referenced while the tree is hidden; nil until asked (see
-- `fields_referenced`).
local any_field = nil

function p.init()
  sock_init()
  pending = {}
  wanted = {}
  wanted_of = {}
  any_field = nil
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

-- The names of the bits set in v, lowest bit first (as the tool and Lustre print them).
local function flag_names(v, names)
  local bits = {}
  for bit in pairs(names) do
    if bit ~= 0 and bit_set(v, bit) then bits[#bits + 1] = bit end
  end
  table.sort(bits)
  for i, bit in ipairs(bits) do bits[i] = names[bit] end
  return table.concat(bits, "|")
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

-- TreeItem's `add` and `add_le`, fetched once: a method looked up on each item is one more
-- call into C.
local tree_add, tree_add_le

-- Adds field `name` over `len` bytes at `off` (a value given for strings and FIDs).
local function add(tree, name, tvb, off, len, le, value)
  if not full and not want(name) then return nil end
  if tree_add == nil then tree_add, tree_add_le = tree.add, tree.add_le end
  local item
  if value ~= nil then item = tree_add(tree, F[name], tvb(off, len), value)
  elseif le then item = tree_add_le(tree, F[name], tvb(off, len))
  else item = tree_add(tree, F[name], tvb(off, len)) end
  if not full then learn(name, item) end
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
            if f[6] then
              local n = flag_names(r32(s, off + o, le), f[6])
              if n ~= "" then item:append_text(" " .. n) end
            end
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


-- The items of a prepare request (intent `name`), under its message's item `tree`.
local function show_request(tvb, s, tree, le, count, name)
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

-- The items of a prepare reply (to intent `name`, of class `outcome`), under its message's
-- item `tree`.
local function show_reply(tvb, s, tree, le, count, name, outcome)
  if count >= 2 and blen[2] >= @LDLM_REP@ then add_struct(tree, tvb, s, boff[2], blen[2], LDLM_REPLY, le, "ldlm_reply") end
  add_generated(tree, "opc_name", name)
  if outcome == "error" or outcome == "empty" then add_generated(tree, "outcome", outcome); return end
  if outcome == "malformed" then return end
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
end

-- The formats that read `lm_buflens` in one call, by byte order and count.
local BUFLENS = { [true] = {}, [false] = {} }
for n = 1, @MAXBUF@ do
  BUFLENS[true][n] = "<" .. string.rep("I4", n)
  BUFLENS[false][n] = ">" .. string.rep("I4", n)
end
local TITLE_LE = "Lustre DNE prepare: lustre_msg_v2 (little-endian)"
local TITLE_BE = "Lustre DNE prepare: lustre_msg_v2 (big-endian)"

-- The message's item and those of its header and body, at 0 of `tvb` and `s`: every field, or
-- those referenced (see `want`).
local function dissect_tree(tvb, s, le, count, len, pinfo, tree)
  full = tree.visible or pinfo.visited
  local tree_msg = tree:add(p, tvb(0, len), le and TITLE_LE or TITLE_BE)
  add_struct(tree_msg, tvb, s, 0, @HDR@ + 4 * count, LUSTRE_MSG_V2, le, "lustre_msg_v2")
  if want("@LM_BUFLENS@") then
    for i = 1, count do
      local item = add(tree_msg, "@LM_BUFLENS@", tvb, @HDR@ + 4 * (i - 1), 4, le)
      if full and item then item:prepend_text("[" .. (i - 1) .. "] ") end
    end
  end
  local pb = boff[1]
  add_struct(tree_msg, tvb, s, pb, blen[1], PTLRPC_BODY, le, "ptlrpc_body")
  return tree_msg
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

-- The one path of every message, with a tree or without: the message at `base` of `s` (`len`
-- bytes) is framed, a request's intent kept for its reply, a reply paired and its outcome
-- worked out, and the columns set. With `tree` (then `base` is 0 and `tvb` holds `s`), the
-- items are added too; without (tshark's summary), nothing else could show. False, and
-- nothing done, when it is no lustre_msg_v2 with a body.
local function message(s, base, len, pinfo, tvb, tree)
  local le, count = frame_msg(s, base, len)
  if le == nil or blen[1] < @PB_MIN@ then return false end
  local tree_msg = tree and dissect_tree(tvb, s, le, count, len, pinfo, tree)
  local pb_type, opc, status = unpack(PB_FMT[le], s, boff[1] + 1)
  local info = (OPC[opc] or ("opc " .. opc)) .. (pb_type == @REQUEST@ and " request" or " reply")
  if opc == @ENQUEUE@ and pb_type == @REQUEST@ then
    local name = intent_of(s, le, count)
    if name then
      local key = xid_key(true)
      if key then pending[key] = name end
      if tree_msg then show_request(tvb, s, tree_msg, le, count, name) end
      info = info .. " [" .. name .. "]"
    end
  elseif opc == @ENQUEUE@ then
    local name = answered(pinfo, count)
    if name then
      local outcome = outcome_of(s, le, count, status, pb_type)
      if tree_msg then show_reply(tvb, s, tree_msg, le, count, name, outcome) end
      info = info .. " [" .. name .. " " .. outcome .. "]"
    end
  end
  local cols = pinfo.cols
  cols.protocol = "DNE"
  cols.info = info
  return true
end

-- Whether a field of this dissector is referenced while the tree is hidden (a display filter or
-- `-e` naming one): asked once a pass, where Wireshark has TreeItem:referenced.
local function fields_referenced(tree)
  if any_field == nil then
    local referenced = tree.referenced
    any_field = referenced == nil
    for _, f in pairs(F) do
      if any_field then break end
      any_field = referenced(tree, f)
    end
  end
  return any_field
end

-- A PUT's payload at `base` of the framing's `tvb` and its bytes `s` (`len` bytes), dissected
-- without the LNet dissector (see `message`); the framing calls it only where no tree is built
-- or the tree is hidden. A hidden tree where no field is referenced (`-Y dne_prepare`) gets
-- the protocol's item alone, over the payload.
dne_message = function(s, base, len, pinfo, tvb, tree)
  if tree ~= nil and (pinfo.visited or fields_referenced(tree)) then
    return message(s:sub(base + 1, base + len), 0, len, pinfo, tvb(base, len):tvb(), tree)
  end
  if not message(s, base, len, pinfo) then return false end
  if tree ~= nil then
    if tree_add == nil then tree_add, tree_add_le = tree.add, tree.add_le end
    tree_add(tree, p, tvb(base, len))
  end
  return true
end

function p.dissector(tvb, pinfo, tree)
  local s = tvb:raw()
  local len = #s
  -- No tree (tshark's summary): nothing but the columns can show.
  local shown = tree.text ~= nil and tree or nil
  if message(s, 0, len, pinfo, tvb, shown) then return len end
  -- Too short for the body: with a tree, the header alone is shown.
  local le, count = frame_msg(s, 0, len)
  if shown == nil or le == nil then return 0 end
  dissect_tree(tvb, s, le, count, len, pinfo, tree)
  return len
end

local ptl = DissectorTable.get("lnet.ptl_index")
local PORTAL_SET = {}
for _, portal in ipairs({ @PORTALS@ }) do
  ptl:add(portal, p)
  PORTAL_SET[portal] = true
end
