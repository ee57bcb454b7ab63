//! The dissector's own framing of the socklnd stream.
//!
//! Wireshark's LNet dissector (4.0) frames socklnd with `tcp_dissect_pdus` and a fixed length
//! of 52 bytes, then reads `payload_length` at bytes 52 to 56: a segment that ends inside those
//! four bytes throws, and the rest of the segment (the message that starts there included) is
//! lost. It also frames only little-endian `ksock_msg_hdr`s with NID4 headers, and takes the
//! type of the first message of a segment for all of them.
//!
//! So the generated dissector takes the socklnd port from it: a Lua TCP dissector cuts each
//! direction into whole items (connection request, hello, NOOP, LNet message), asks TCP for
//! exactly the bytes still missing (`pinfo.desegment_len`), and hands each whole
//! little-endian NID4 message to the LNet dissector, which then has nothing left to
//! reassemble and shows what it always shows. Messages it cannot frame (big-endian socklnd,
//! large NIDs) get a summary item here, and their PUT payload goes to the portal dissector.

use crate::limits::{LNET_INTERFACES_NUM, LNET_MAX_PAYLOAD};
use crate::lnet::{
    LNET_HDR_NID4_SIZE, LNET_HDR_NID16_SIZE, LNET_NID_SIZE, LNET_PROTO_ACCEPTOR_MAGIC,
    LNET_PROTO_MAGIC, LnetMsgType,
};
use crate::socklnd::{
    CONNREQ_V1_SIZE, CONNREQ_V2_SIZE, HELLO_NID4_SIZE, HELLO_NID16_SIZE, KSOCK_MSG_HDR_SIZE,
    KSOCK_MSG_LNET, KSOCK_MSG_NOOP, KSOCK_PROTO_V2, KSOCK_PROTO_V3, KSOCK_PROTO_V4,
};

/// LNet's acceptor port (`accept_port`'s default), where socklnd connections are made and
/// where Wireshark's LNet dissector registers.
pub const SOCKLND_PORT: u16 = 988;

/// `sizeof(lnet_nid_t)`: a NID4.
const NID4_SIZE: usize = 8;

/// Offsets in `lnet_hdr` of the NID4 form (`large` false) or the large-NID form: `type`,
/// `payload_length`, and a PUT's `match_bits` and `ptl_index`. After the two NIDs come
/// `dest_pid`, `src_pid`, `type`, `payload_length`, then the union (`lnet_put`: two 8-byte
/// handle words, `match_bits`, `hdr_data`, `ptl_index`).
pub(crate) const fn lnet_hdr_offsets(large: bool) -> [usize; 4] {
    let nid = if large { LNET_NID_SIZE } else { NID4_SIZE };
    let ty = 2 * nid + 8;
    let msg = ty + 8;
    [ty, ty + 4, msg + 16, msg + 32]
}

/// The `Struct.unpack` format (without its byte-order mark) of a NID4 `KSOCK_MSG_LNET`'s
/// `ksm_type`, then its LNet header's `type`, `payload_length` and `ptl_index`.
fn lnet4_format() -> String {
    let [ty, len, _, ptl] = lnet_hdr_offsets(false);
    assert_eq!(len, ty + 4, "payload_length follows type");
    let pad = |n: usize| "x".repeat(n);
    format!(
        "I4{}I4I4{}I4",
        pad(KSOCK_MSG_HDR_SIZE + ty - 4),
        pad(ptl - len - 4)
    )
}

/// `kshm_nips` of a V2/V3 hello: after the magic, the version, two NID4s, two pids, two
/// incarnations and `kshm_ctype`.
const HELLO_NIPS_AT: usize = 8 + 2 * NID4_SIZE + 8 + 16 + 4;

/// The framing's Lua, its `@NAME@` markers filled from the capture reader's constants.
pub(super) fn lua() -> String {
    let [ty4, len4, mb4, ptl4] = lnet_hdr_offsets(false);
    let [ty16, len16, mb16, ptl16] = lnet_hdr_offsets(true);
    let marks: [(&str, String); 29] = [
        ("@NID4@", NID4_SIZE.to_string()),
        ("@NID16@", LNET_NID_SIZE.to_string()),
        ("@KSOCK_LNET@", KSOCK_MSG_LNET.to_string()),
        ("@KSOCK_NOOP@", KSOCK_MSG_NOOP.to_string()),
        ("@KSOCK_HDR@", KSOCK_MSG_HDR_SIZE.to_string()),
        ("@HDR4@", LNET_HDR_NID4_SIZE.to_string()),
        ("@HDR16@", LNET_HDR_NID16_SIZE.to_string()),
        ("@TYPE4@", ty4.to_string()),
        ("@TYPE16@", ty16.to_string()),
        ("@PLEN4@", len4.to_string()),
        ("@PLEN16@", len16.to_string()),
        ("@MB4@", mb4.to_string()),
        ("@MB16@", mb16.to_string()),
        ("@PTL4@", ptl4.to_string()),
        ("@PTL16@", ptl16.to_string()),
        ("@PUT@", LnetMsgType::PUT.0.to_string()),
        ("@TYPE_MAX@", LnetMsgType::HELLO.0.to_string()),
        ("@MAX_PAYLOAD@", LNET_MAX_PAYLOAD.to_string()),
        ("@ACCEPTOR_MAGIC@", LNET_PROTO_ACCEPTOR_MAGIC.to_string()),
        ("@PROTO_MAGIC@", LNET_PROTO_MAGIC.to_string()),
        ("@CONNREQ1@", CONNREQ_V1_SIZE.to_string()),
        ("@CONNREQ2@", CONNREQ_V2_SIZE.to_string()),
        ("@HELLO4@", HELLO_NID4_SIZE.to_string()),
        ("@HELLO16@", HELLO_NID16_SIZE.to_string()),
        ("@NIPS_AT@", HELLO_NIPS_AT.to_string()),
        ("@MAX_IPS@", LNET_INTERFACES_NUM.to_string()),
        ("@V2@", KSOCK_PROTO_V2.to_string()),
        ("@V3@", KSOCK_PROTO_V3.to_string()),
        ("@V4@", KSOCK_PROTO_V4.to_string()),
    ];
    let mut s = FRAMING
        .replace("@PORT@", &SOCKLND_PORT.to_string())
        .replace("@LNET4_FMT@", &lnet4_format());
    for (m, v) in &marks {
        s = s.replace(m, v);
    }
    s
}

/// The framing. It runs after the portal dissector's code: it uses `r32`, `byte`, `p` and
/// `PORTAL_SET`, and defines `sock_init` and `xid_key`, which the portal dissector pairs
/// replies by.
const FRAMING: &str = r##"
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

-- The common message, read in one call: a little-endian NID4 `KSOCK_MSG_LNET`'s `ksm_type`,
-- LNet `type`, `payload_length` and (for a PUT) `ptl_index`.
local LNET4_FMT = "<@LNET4_FMT@"
local LNET4 = @KSOCK_HDR@ + @HDR4@

-- Dissects the whole items of `tvb` and asks TCP for the bytes the last one still lacks.
-- Where no tree is built (tshark's summary), a PUT to a portal of the DNE dissector is
-- summarized here, without the LNet dissector: it would add nothing that shows.
function sock.dissector(tvb, pinfo, tree)
  local s = tvb:raw()
  local n = #s
  local bare = tree.text == nil
  local large = any_large and large_of[dir_key(pinfo, true)] or false
  local o = 0
  while o < n do
    local k, t, pl, ptl
    if not large and n - o >= LNET4 then k, t, pl, ptl = unpack(LNET4_FMT, s, o + 1) end
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
          if not (bare and k == @KSOCK_LNET@ and t == @PUT@ and PORTAL_SET[ptl]
              and summarize(s, o + LNET4, len - LNET4, pinfo)) then
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
"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lnet::{LnetCmd, LnetHdr, Nid};

    /// The offsets the Lua reads are where the capture writer puts `type`, `payload_length`,
    /// `match_bits` and `ptl_index`, in both header forms.
    #[test]
    fn header_offsets_are_the_writers() {
        for large in [false, true] {
            let hdr = LnetHdr {
                dest_nid: Nid::tcp([192, 168, 0, 2], 0),
                src_nid: Nid::tcp([192, 168, 0, 1], 0),
                dest_pid: 12345,
                src_pid: 12345,
                msg_type: LnetMsgType::PUT,
                payload_length: 0x0102_0304,
                cmd: LnetCmd::Put {
                    ack_wmd: [0, 0],
                    match_bits: 0x1122_3344_5566_7788,
                    hdr_data: 0,
                    ptl_index: 24,
                    offset: 0,
                },
            };
            let mut b = Vec::new();
            hdr.put(large, &mut b);
            let [ty, len, mb, ptl] = lnet_hdr_offsets(large);
            let le32 = |at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            assert_eq!(le32(ty), LnetMsgType::PUT.0, "large {large}");
            assert_eq!(le32(len), 0x0102_0304, "large {large}");
            assert_eq!(b[mb..mb + 8], 0x1122_3344_5566_7788u64.to_le_bytes());
            assert_eq!(le32(ptl), 24, "large {large}");
            // The NIDs the pairing key takes: dest_nid first, then src_nid.
            let nid = if large { LNET_NID_SIZE } else { NID4_SIZE };
            let src = &b[nid..2 * nid];
            if large {
                assert_eq!(src, Nid::tcp([192, 168, 0, 1], 0).to_lnet_nid());
            } else {
                assert_eq!(
                    src,
                    Nid::tcp([192, 168, 0, 1], 0)
                        .to_nid4()
                        .unwrap()
                        .to_le_bytes()
                );
            }
        }
        assert_eq!(HELLO_NIPS_AT, 52);
    }

    #[test]
    fn every_marker_is_filled() {
        let lua = lua();
        assert!(!lua.contains('@'), "a marker was left unfilled");
        assert!(lua.contains("tcp_port:set(988, sock)"));
        // payload_length of the NID4 form at byte 52 of the message (24 + 28).
        assert!(lua.contains("(large and 52 or 28)"), "{lua}");
    }
}
