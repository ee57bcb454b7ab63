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
//! reassemble and shows what it always shows. Where nothing of the LNet dissector's would show
//! (no tree, or a hidden one with no `lnet` field referenced), a PUT to a DNE portal goes to
//! the portal dissector's one message path directly. Messages it cannot frame (big-endian
//! socklnd, large NIDs) get a summary item here, and their PUT payload goes to the portal
//! dissector.

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

/// `kshm_nips` of a V2/V3 hello: after the magic, the version, two NID4s, two pids, two
/// incarnations and `kshm_ctype`.
const HELLO_NIPS_AT: usize = 8 + 2 * NID4_SIZE + 8 + 16 + 4;

/// The framing's Lua, its `@NAME@` markers filled from the capture reader's constants.
pub(super) fn lua() -> String {
    let [ty4, len4, mb4, ptl4] = lnet_hdr_offsets(false);
    // The Lua reads `type` and `payload_length` in one "<I4I4".
    assert_eq!(len4, ty4 + 4, "payload_length follows type");
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
    let mut s = FRAMING.replace("@PORT@", &SOCKLND_PORT.to_string());
    for (m, v) in &marks {
        s = s.replace(m, v);
    }
    s
}

/// The framing. It runs after the portal dissector's code: it uses `r32`, `byte`, `unpack`,
/// `p`, `PORTAL_SET` and `dne_message` (the portal dissector's message path), and defines
/// `sock_init` and `xid_key`, which the portal dissector pairs replies by.
const FRAMING: &str = include_str!("framing.lua");

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
