//! LNet addresses and `struct lnet_hdr` (`include/uapi/linux/lnet/lnet-idl.h`).
//!
//! LNet writes its header little-endian whatever the host: `lnet_hdr_to_nid4` and
//! `lnet_hdr_to_nid16` convert every integer with `cpu_to_le*`, and the large-NID address words
//! are big-endian (`__be16 nid_num`, `__be32 nid_addr[4]`). Only the socklnd layer around it
//! (hello, `ksock_msg_hdr`) travels in the sender's byte order.

use core::fmt;

/// `LNET_PROTO_TCP_MAGIC`: the V1 socklnd hello (an `lnet_hdr` with this in `dest_nid`).
pub const LNET_PROTO_TCP_MAGIC: u32 = 0xeebc_0ded;
/// `LNET_PROTO_ACCEPTOR_MAGIC`: starts an acceptor connection request.
pub const LNET_PROTO_ACCEPTOR_MAGIC: u32 = 0xacce_7100;
/// `LNET_PROTO_MAGIC`: starts a V2, V3 or V4 socklnd hello.
pub const LNET_PROTO_MAGIC: u32 = 0x4572_6963;
/// `sizeof(struct lnet_hdr_nid4)`: the header between NID4 peers (socklnd V2 and V3).
pub const LNET_HDR_NID4_SIZE: usize = 72;
/// `sizeof(struct lnet_hdr_nid16)`: the header of socklnd V4, with two `struct lnet_nid`.
pub const LNET_HDR_NID16_SIZE: usize = 96;
/// `sizeof(struct lnet_nid)` (packed: size, type, num, four address words).
pub const LNET_NID_SIZE: usize = 20;

lustre_dne_intent::wire_enum! {
    /// `enum lnet_msg_type`: `lnet_hdr.type`.
    pub struct LnetMsgType(u32) {
        /// `LNET_MSG_ACK`.
        const ACK = 0, "LNET_MSG_ACK";
        /// `LNET_MSG_PUT`: RPC requests and replies travel as PUTs.
        const PUT = 1, "LNET_MSG_PUT";
        /// `LNET_MSG_GET`.
        const GET = 2, "LNET_MSG_GET";
        /// `LNET_MSG_REPLY`: the data answering a GET.
        const REPLY = 3, "LNET_MSG_REPLY";
        /// `LNET_MSG_HELLO`.
        const HELLO = 4, "LNET_MSG_HELLO";
    }
}

/// An LNet network address: a NID4 (`lnet_nid_t`, a u64) or a large `struct lnet_nid`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Nid {
    /// `nid_size`: address bytes minus 4 (0 for an IPv4 or a NID4 address).
    pub nid_size: u8,
    /// `nid_type`: the LND (2 `tcp`, 5 `o2ib`, 9 `lo`, …).
    pub nid_type: u8,
    /// `nid_num`: the network number (`tcp1` is 1).
    pub nid_num: u16,
    /// `nid_addr`, as bytes in network order; the first `nid_size + 4` are used.
    pub nid_addr: [u8; 16],
}

impl Nid {
    /// The NID of a NID4 value: network in the high 32 bits (type << 16 | number), address low.
    pub fn from_nid4(nid: u64) -> Self {
        let mut nid_addr = [0u8; 16];
        nid_addr[..4].copy_from_slice(&((nid & 0xffff_ffff) as u32).to_be_bytes());
        Nid {
            nid_size: 0,
            // LND types fit a byte; a larger value only comes from a damaged header.
            nid_type: (nid >> 48) as u8,
            nid_num: (nid >> 32) as u16,
            nid_addr,
        }
    }

    /// The NID4 value, or `None` when the address does not fit 4 bytes.
    pub fn to_nid4(&self) -> Option<u64> {
        if self.nid_size != 0 {
            return None;
        }
        let a = u32::from_be_bytes([
            self.nid_addr[0],
            self.nid_addr[1],
            self.nid_addr[2],
            self.nid_addr[3],
        ]);
        Some((u64::from(self.nid_type) << 48) | (u64::from(self.nid_num) << 32) | u64::from(a))
    }

    /// A `struct lnet_nid` from its 20 bytes; `None` for a `nid_size` past 12.
    pub fn from_lnet_nid(b: &[u8; LNET_NID_SIZE]) -> Option<Self> {
        if b[0] > 12 {
            return None;
        }
        let mut nid_addr = [0u8; 16];
        nid_addr.copy_from_slice(&b[4..20]);
        Some(Nid {
            nid_size: b[0],
            nid_type: b[1],
            nid_num: u16::from_be_bytes([b[2], b[3]]),
            nid_addr,
        })
    }

    /// The 20 bytes of `struct lnet_nid`.
    pub fn to_lnet_nid(&self) -> [u8; LNET_NID_SIZE] {
        let mut b = [0u8; LNET_NID_SIZE];
        b[0] = self.nid_size;
        b[1] = self.nid_type;
        b[2..4].copy_from_slice(&self.nid_num.to_be_bytes());
        b[4..].copy_from_slice(&self.nid_addr);
        b
    }

    /// The NID of an IPv4 address on `tcp<num>`.
    pub fn tcp(addr: [u8; 4], num: u16) -> Self {
        let mut nid_addr = [0u8; 16];
        nid_addr[..4].copy_from_slice(&addr);
        Nid {
            nid_size: 0,
            nid_type: SOCKLND,
            nid_num: num,
            nid_addr,
        }
    }
}

/// `SOCKLND` in `enum lnet_nal`.
pub const SOCKLND: u8 = 2;

fn lnd_name(t: u8) -> Option<&'static str> {
    Some(match t {
        2 => "tcp",
        5 => "o2ib",
        9 => "lo",
        13 => "gni",
        14 => "gip",
        15 => "ptlf",
        16 => "kfi",
        17 => "tofu",
        18 => "efa",
        19 => "bxi3",
        _ => return None,
    })
}

impl fmt::Display for Nid {
    /// `192.168.1.5@tcp`, `10.0.0.1@o2ib2`, `0@lo`, or `[fe80::1]@tcp` for a 16-byte address.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &self.nid_addr;
        match (self.nid_type, self.nid_size) {
            (9, _) => write!(f, "0@lo")?,
            (_, 0) => write!(f, "{}.{}.{}.{}", a[0], a[1], a[2], a[3])?,
            (_, 12) => write!(f, "{}", std::net::Ipv6Addr::from(*a))?,
            (_, n) => {
                for b in &a[..usize::from(n) + 4] {
                    write!(f, "{b:02x}")?;
                }
            }
        }
        if self.nid_type == 9 {
            return Ok(());
        }
        match lnd_name(self.nid_type) {
            Some(n) => write!(f, "@{n}")?,
            None => write!(f, "@lnd{}-", self.nid_type)?,
        }
        if self.nid_num != 0 {
            write!(f, "{}", self.nid_num)?;
        }
        Ok(())
    }
}

/// The variant part of `lnet_hdr` (`union lnet_cmd_hdr`), by message type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LnetCmd {
    /// `struct lnet_ack`.
    Ack {
        /// `dst_wmd` (interface cookie, object cookie).
        dst_wmd: [u64; 2],
        /// `match_bits`.
        match_bits: u64,
        /// `mlength`.
        mlength: u32,
    },
    /// `struct lnet_put`.
    Put {
        /// `ack_wmd`.
        ack_wmd: [u64; 2],
        /// `match_bits`: the RPC's xid.
        match_bits: u64,
        /// `hdr_data`.
        hdr_data: u64,
        /// `ptl_index`: the portal.
        ptl_index: u32,
        /// `offset`.
        offset: u32,
    },
    /// `struct lnet_get`.
    Get {
        /// `return_wmd`.
        return_wmd: [u64; 2],
        /// `match_bits`.
        match_bits: u64,
        /// `ptl_index`.
        ptl_index: u32,
        /// `src_offset`.
        src_offset: u32,
        /// `sink_length`.
        sink_length: u32,
    },
    /// `struct lnet_reply`.
    Reply {
        /// `dst_wmd`.
        dst_wmd: [u64; 2],
    },
    /// `struct lnet_hello`.
    Hello {
        /// `incarnation`.
        incarnation: u64,
        /// `type`: `SOCKLND_CONN_*`.
        conn_type: u32,
    },
    /// A `type` this crate does not know; the 40 bytes are not interpreted.
    Unknown,
}

/// A decoded `struct lnet_hdr` (either form: NID4 or large NIDs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LnetHdr {
    /// `dest_nid`.
    pub dest_nid: Nid,
    /// `src_nid`.
    pub src_nid: Nid,
    /// `dest_pid`.
    pub dest_pid: u32,
    /// `src_pid`.
    pub src_pid: u32,
    /// `type`.
    pub msg_type: LnetMsgType,
    /// `payload_length`: bytes of payload after the header.
    pub payload_length: u32,
    /// The variant fields.
    pub cmd: LnetCmd,
}

fn le32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(w)
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(w)
}

impl LnetHdr {
    /// The matching bits of an ACK, PUT or GET (the RPC xid for PUT).
    pub fn match_bits(&self) -> Option<u64> {
        match self.cmd {
            LnetCmd::Ack { match_bits, .. }
            | LnetCmd::Put { match_bits, .. }
            | LnetCmd::Get { match_bits, .. } => Some(match_bits),
            _ => None,
        }
    }

    /// The portal of a PUT or GET.
    pub fn ptl_index(&self) -> Option<u32> {
        match self.cmd {
            LnetCmd::Put { ptl_index, .. } | LnetCmd::Get { ptl_index, .. } => Some(ptl_index),
            _ => None,
        }
    }

    /// Decodes a NID4 header (72 bytes) or, with `large`, a NID16 header (96 bytes).
    /// `None` when `b` is short or a large NID is malformed.
    pub fn decode(b: &[u8], large: bool) -> Option<Self> {
        let (dest_nid, src_nid, rest) = if large {
            let b = b.get(..LNET_HDR_NID16_SIZE)?;
            let d: &[u8; LNET_NID_SIZE] = b[..20].try_into().ok()?;
            let s: &[u8; LNET_NID_SIZE] = b[20..40].try_into().ok()?;
            (Nid::from_lnet_nid(d)?, Nid::from_lnet_nid(s)?, &b[40..])
        } else {
            let b = b.get(..LNET_HDR_NID4_SIZE)?;
            (
                Nid::from_nid4(le64(b, 0)),
                Nid::from_nid4(le64(b, 8)),
                &b[16..],
            )
        };
        // `rest`: dest_pid, src_pid, type, payload_length, then the 40-byte union.
        let msg_type = LnetMsgType(le32(rest, 8));
        let u = &rest[16..56];
        let wmd = [le64(u, 0), le64(u, 8)];
        let cmd = match msg_type {
            LnetMsgType::ACK => LnetCmd::Ack {
                dst_wmd: wmd,
                match_bits: le64(u, 16),
                mlength: le32(u, 24),
            },
            LnetMsgType::PUT => LnetCmd::Put {
                ack_wmd: wmd,
                match_bits: le64(u, 16),
                hdr_data: le64(u, 24),
                ptl_index: le32(u, 32),
                offset: le32(u, 36),
            },
            LnetMsgType::GET => LnetCmd::Get {
                return_wmd: wmd,
                match_bits: le64(u, 16),
                ptl_index: le32(u, 24),
                src_offset: le32(u, 28),
                sink_length: le32(u, 32),
            },
            LnetMsgType::REPLY => LnetCmd::Reply { dst_wmd: wmd },
            LnetMsgType::HELLO => LnetCmd::Hello {
                incarnation: le64(u, 0),
                conn_type: le32(u, 8),
            },
            _ => LnetCmd::Unknown,
        };
        Some(LnetHdr {
            dest_nid,
            src_nid,
            dest_pid: le32(rest, 0),
            src_pid: le32(rest, 4),
            msg_type,
            payload_length: le32(rest, 12),
            cmd,
        })
    }

    /// Appends the header: NID4 form (72 bytes), or with `large` the NID16 form (96 bytes).
    /// A NID that has no NID4 form is written as 0 in the NID4 form.
    pub fn put(&self, large: bool, out: &mut Vec<u8>) {
        if large {
            out.extend_from_slice(&self.dest_nid.to_lnet_nid());
            out.extend_from_slice(&self.src_nid.to_lnet_nid());
        } else {
            out.extend_from_slice(&self.dest_nid.to_nid4().unwrap_or(0).to_le_bytes());
            out.extend_from_slice(&self.src_nid.to_nid4().unwrap_or(0).to_le_bytes());
        }
        for w in [
            self.dest_pid,
            self.src_pid,
            self.msg_type.0,
            self.payload_length,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        let mut u = [0u8; 40];
        let mut put64 = |at: usize, v: u64| u[at..at + 8].copy_from_slice(&v.to_le_bytes());
        match self.cmd {
            LnetCmd::Ack {
                dst_wmd,
                match_bits,
                mlength,
            } => {
                put64(0, dst_wmd[0]);
                put64(8, dst_wmd[1]);
                put64(16, match_bits);
                u[24..28].copy_from_slice(&mlength.to_le_bytes());
            }
            LnetCmd::Put {
                ack_wmd,
                match_bits,
                hdr_data,
                ptl_index,
                offset,
            } => {
                put64(0, ack_wmd[0]);
                put64(8, ack_wmd[1]);
                put64(16, match_bits);
                put64(24, hdr_data);
                u[32..36].copy_from_slice(&ptl_index.to_le_bytes());
                u[36..40].copy_from_slice(&offset.to_le_bytes());
            }
            LnetCmd::Get {
                return_wmd,
                match_bits,
                ptl_index,
                src_offset,
                sink_length,
            } => {
                put64(0, return_wmd[0]);
                put64(8, return_wmd[1]);
                put64(16, match_bits);
                u[24..28].copy_from_slice(&ptl_index.to_le_bytes());
                u[28..32].copy_from_slice(&src_offset.to_le_bytes());
                u[32..36].copy_from_slice(&sink_length.to_le_bytes());
            }
            LnetCmd::Reply { dst_wmd } => {
                put64(0, dst_wmd[0]);
                put64(8, dst_wmd[1]);
            }
            LnetCmd::Hello {
                incarnation,
                conn_type,
            } => {
                put64(0, incarnation);
                u[8..12].copy_from_slice(&conn_type.to_le_bytes());
            }
            LnetCmd::Unknown => {}
        }
        out.extend_from_slice(&u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nid4_formats_as_lnet_prints_it() {
        // 192.168.88.119@tcp: net (SOCKLND << 16 | 0), address 0xc0a85877.
        let n = Nid::from_nid4(0x0002_0000_c0a8_5877);
        assert_eq!(n.to_string(), "192.168.88.119@tcp");
        assert_eq!(n.to_nid4(), Some(0x0002_0000_c0a8_5877));
        assert_eq!(
            Nid::from_nid4(0x0005_0002_0a00_0001).to_string(),
            "10.0.0.1@o2ib2"
        );
        let big = Nid::from_lnet_nid(&n.to_lnet_nid()).unwrap();
        assert_eq!(big, n);
    }

    #[test]
    fn header_round_trips_in_both_forms() {
        let h = LnetHdr {
            dest_nid: Nid::tcp([10, 0, 0, 2], 0),
            src_nid: Nid::tcp([10, 0, 0, 1], 1),
            dest_pid: 12345,
            src_pid: 0x3039,
            msg_type: LnetMsgType::PUT,
            payload_length: 600,
            cmd: LnetCmd::Put {
                ack_wmd: [1, 2],
                match_bits: 0x66d75e2000040,
                hdr_data: 7,
                ptl_index: 24,
                offset: 0,
            },
        };
        for large in [false, true] {
            let mut v = Vec::new();
            h.put(large, &mut v);
            assert_eq!(v.len(), if large { 96 } else { 72 });
            assert_eq!(LnetHdr::decode(&v, large), Some(h));
        }
        // Every variant of the union keeps its fields through both forms.
        let cmds = [
            LnetCmd::Ack {
                dst_wmd: [3, 4],
                match_bits: 9,
                mlength: 77,
            },
            LnetCmd::Get {
                return_wmd: [5, 6],
                match_bits: 10,
                ptl_index: 8,
                src_offset: 11,
                sink_length: 4096,
            },
            LnetCmd::Reply { dst_wmd: [7, 8] },
            LnetCmd::Hello {
                incarnation: 0x1234_5678_9abc,
                conn_type: 2,
            },
        ];
        for (t, cmd) in [0u32, 2, 3, 4].into_iter().zip(cmds) {
            let g = LnetHdr {
                msg_type: LnetMsgType(t),
                cmd,
                ..h
            };
            for large in [false, true] {
                let mut v = Vec::new();
                g.put(large, &mut v);
                assert_eq!(LnetHdr::decode(&v, large), Some(g));
            }
        }
        let mut v = Vec::new();
        h.put(false, &mut v);
        // payload_length sits at offset 28 of the NID4 form (Wireshark frames on it).
        assert_eq!(&v[28..32], &600u32.to_le_bytes());
        assert_eq!(&v[16 + 16 + 32..16 + 16 + 36], &24u32.to_le_bytes());
    }
}
