-- socklnd framing (see `capture/src/wireshark/framing.rs`).
local sock = Proto("dne_socklnd", "socklnd stream (framed by the DNE prepare dissector)")
-- Wireshark 4.0 registers the LNet dissector under no name: it is taken from its port.
local tcp_port = DissectorTable.get("tcp.port")
local lnet = tcp_port:get_dissector(@PORT@)
-- Directions whose messages carry large-NID headers (a V4 hello was seen), by addresses and
-- ports; looked up only once some hello was V4.
local large_of = {}
local any_large = false
-- The LNet message being handed over: the framing's bytes, where its header starts, its form.
local cur_s, cur_h, cur_large = nil, 0, false

xid_key = function(from_client)
  if cur_s == nil then return nil end
  local nid = cur_large and @NID16@ or @NID4@
  -- dest_nid, then src_nid: a request comes from the client, a reply goes to it.
  local at = cur_h + (from_client and nid or 0)
  local mb = cur_h + (cur_large and @MB16@ or @MB4@)
  return cur_s:sub(mb + 1, mb + 8) .. cur_s:sub(at + 1, at + nid)
end

sock_init = function()
  large_of = {}
  any_large = false
end

local function dir_key(pinfo, from_src)
  local a = tostring(pinfo.src) .. ":" .. pinfo.src_port
  local b = tostring(pinfo.dst) .. ":" .. pinfo.dst_port
  if from_src then return a .. ">" .. b end
  return b .. ">" .. a
end

-- Whether the word at `o` reads as `v` little-endian (true) or big-endian (false), if either.
local function order_of(s, o, v)
  if r32(s, o, true) == v then return true end
  if r32(s, o, false) == v then return false end
  return nil
end

-- The item at `o` of the `n` bytes of `s`: its kind, length and byte order; or "more" and how
-- many bytes are still needed to know its length; or nil when no item starts there.
local function item_at(s, o, n, large)
  local rem = n - o
  if rem < 4 then return "more", 4 - rem end
  local le = order_of(s, o, @KSOCK_LNET@)
  if le ~= nil then
    local hdr = @KSOCK_HDR@ + (large and @HDR16@ or @HDR4@)
    if rem < hdr then return "more", hdr - rem end
    local h = o + @KSOCK_HDR@
    local t = r32(s, h + (large and @TYPE16@ or @TYPE4@), true)
    local pl = r32(s, h + (large and @PLEN16@ or @PLEN4@), true)
    if t > @TYPE_MAX@ or pl > @MAX_PAYLOAD@ then return nil end
    return "lnet", hdr + pl, le
  end
  le = order_of(s, o, @KSOCK_NOOP@)
  if le ~= nil then return "noop", @KSOCK_HDR@, le end
  le = order_of(s, o, @ACCEPTOR_MAGIC@)
  if le ~= nil then
    if rem < 8 then return "more", 8 - rem end
    local v = r32(s, o + 4, le)
    if v == 1 then return "connreq", @CONNREQ1@, le end
    if v == 2 then return "connreq", @CONNREQ2@, le end
    return nil
  end
  le = order_of(s, o, @PROTO_MAGIC@)
  if le ~= nil then
    if rem < 8 then return "more", 8 - rem end
    local v = r32(s, o + 4, le)
    if v == @V4@ then return "hello", @HELLO16@, le end
    if v ~= @V2@ and v ~= @V3@ then return nil end
    if rem < @HELLO4@ then return "more", @HELLO4@ - rem end
    local nips = r32(s, o + @NIPS_AT@, le)
    if nips > @MAX_IPS@ then return nil end
    return "hello", @HELLO4@ + 4 * nips, le
  end
  return nil
end

local NOOP_ZEROS = string.rep("\0", @KSOCK_HDR@ - 4)

-- Where a message plausibly starts after bytes that are no item (a capture begun mid-stream):
-- a message type word followed by a believable header, or too few bytes yet to tell.
local function resync(s, o, n, large)
  for i = o, n - 4 do
    local a, d = byte(s, i + 1), byte(s, i + 4)
    if a == @KSOCK_LNET@ or a == @KSOCK_NOOP@ or d == @KSOCK_LNET@ or d == @KSOCK_NOOP@ then
      local kind = item_at(s, i, n, large)
      if kind == "lnet" or kind == "more" then return i end
      if kind == "noop" and s:sub(i + 5, i + @KSOCK_HDR@) == NOOP_ZEROS then return i end
    end
  end
  return nil
end

-- A message the LNet dissector cannot frame, at `o` of `tvb` and of its bytes `s`: a
-- summary, and a PUT's payload to its portal.
local function own_message(tvb, s, o, len, le, large, pinfo, tree)
  local h = o + @KSOCK_HDR@
  local hdr = @KSOCK_HDR@ + (large and @HDR16@ or @HDR4@)
  local t = r32(s, h + (large and @TYPE16@ or @TYPE4@), true)
  local ptl = r32(s, h + (large and @PTL16@ or @PTL4@), true)
  tree:add(sock, tvb(o, hdr), string.format("socklnd message (%s socklnd, %s): LNet type %d, portal %d",
    le and "little-endian" or "big-endian", large and "large NIDs" or "NID4", t, ptl))
  if t == @PUT@ and len > hdr and PORTAL_SET[ptl] then
    cur_s, cur_h, cur_large = s, h, large
    p.dissector(tvb(o + hdr, len - hdr):tvb(), pinfo, tree)
    cur_s = nil
  end
end

-- A connection request or hello at `o`: shown, and a V4 hello's large NIDs remembered.
local function handshake(tvb, s, o, len, kind, le, pinfo, tree)
  local what = kind
  if kind == "hello" then
    local v = r32(s, o + 4, le)
    what = "hello V" .. v
    if v == @V4@ then
      any_large = true
      large_of[dir_key(pinfo, true)] = true
      large_of[dir_key(pinfo, false)] = true
    end
  end
  tree:add(sock, tvb(o, len), "socklnd " .. what .. (le and " (little-endian)" or " (big-endian)"))
  pinfo.cols.protocol = "socklnd"
  pinfo.cols.info = "socklnd " .. what
end

-- The common message, a little-endian NID4 `KSOCK_MSG_LNET`: its `ksm_type`, then the LNet
-- header's `type` and `payload_length` (adjacent), then a PUT's `ptl_index`, each read only
-- where needed. Pad bytes in one format cost as much to skip as members to read.
local LNET4 = @KSOCK_HDR@ + @HDR4@
local TYPE4_AT = @KSOCK_HDR@ + @TYPE4@ + 1
local PTL4_AT = @KSOCK_HDR@ + @PTL4@ + 1

-- TreeItem:referenced, fetched once; false where Wireshark has none.
local ti_referenced = nil

-- Whether nothing of the LNet dissector's can show or be filtered on: no tree is built
-- (tshark's summary), or it is hidden and no `lnet` field is referenced (`-Y dne_prepare`,
-- `-T fields -e dne_prepare.*`; a shown tree counts as referencing every field). Where
-- Wireshark has no TreeItem:referenced, only the first.
local function lnet_unseen(tree, bare)
  if bare then return true end
  if ti_referenced == nil then ti_referenced = tree.referenced or false end
  return ti_referenced and not ti_referenced(tree, lnet)
end

-- Dissects the whole items of `tvb` and asks TCP for the bytes the last one still lacks.
-- Where nothing of the LNet dissector's would show (`lnet_unseen`), a PUT to a portal of the
-- DNE dissector goes to it directly, as the LNet dissector would hand it over.
function sock.dissector(tvb, pinfo, tree)
  local s = tvb:raw()
  local n = #s
  local bare = tree.text == nil
  local direct = lnet and lnet_unseen(tree, bare)
  local shown = not bare and tree or nil
  local large = any_large and large_of[dir_key(pinfo, true)] or false
  local o = 0
  while o < n do
    local k, t, pl
    if not large and n - o >= LNET4 then
      k = unpack("<I4", s, o + 1)
      if k == @KSOCK_LNET@ then t, pl = unpack("<I4I4", s, o + TYPE4_AT) end
    end
    local kind, len, le
    if k == @KSOCK_LNET@ and t <= @TYPE_MAX@ and pl <= @MAX_PAYLOAD@ then
      kind, len, le = "lnet", LNET4 + pl, true
    else
      kind, len, le = item_at(s, o, n, large)
    end
    if kind == nil then
      local nxt = resync(s, o + 1, n, large)
      tree:add(sock, tvb(o, (nxt or n) - o), "socklnd: bytes outside any message")
      if nxt == nil then return n end
      o = nxt
    elseif kind == "more" or o + len > n then
      pinfo.desegment_offset = o
      pinfo.desegment_len = kind == "more" and len or o + len - n
      return n
    else
      if kind == "lnet" then
        if le and not large and lnet then
          cur_s, cur_h, cur_large = s, o + @KSOCK_HDR@, false
          if not (direct and k == @KSOCK_LNET@ and t == @PUT@ and PORTAL_SET[unpack("<I4", s, o + PTL4_AT)]
              and dne_message(s, o + LNET4, len - LNET4, pinfo, tvb, shown)) then
            -- A whole tvb goes as it is: a subset costs two more objects.
            lnet:call(len == n and tvb or tvb(o, len):tvb(), pinfo, tree)
          end
          cur_s = nil
        else
          own_message(tvb, s, o, len, le, large, pinfo, tree)
        end
      elseif kind == "noop" and le and lnet then
        lnet:call(tvb(o, len):tvb(), pinfo, tree)
      elseif kind == "noop" then
        tree:add(sock, tvb(o, len), "socklnd NOOP (big-endian)")
      else
        handshake(tvb, s, o, len, kind, le, pinfo, tree)
        large = any_large and large_of[dir_key(pinfo, true)] or false
      end
      o = o + len
    end
  end
  return n
end

tcp_port:set(@PORT@, sock)
tcp_port:add_for_decode_as(sock)
