//! Building captures for tests: messages wrapped in socklnd frames, cut into TCP segments of a
//! chosen size, in both directions, with or without the connection's handshake.
//!
//! The output is a byte-exact pcap (little-endian header, Ethernet, IPv4, microsecond
//! timestamps from a fixed start), so a capture made twice from the same input is the same.

use super::limits::WRITER_MAX_SEGMENT;
use super::lnet::{LNET_PROTO_ACCEPTOR_MAGIC, LNET_PROTO_MAGIC};
use super::lnet::{LnetCmd, LnetHdr, LnetMsgType, Nid};
use super::socklnd::{KSOCK_MSG_LNET, KSOCK_PROTO_V2, KSOCK_PROTO_V3, KSOCK_PROTO_V4};
use etherparse::PacketBuilder;
use lustre_dne_intent::Endian;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::time::Duration;

/// What opens the connection in the capture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Handshake {
    /// Nothing: the capture starts mid-connection with the first message.
    None,
    /// TCP SYN, SYN-ACK, ACK only; no connreq or hello.
    TcpOnly,
    /// TCP handshake, then the acceptor connreq and both hellos of this socklnd version
    /// (2 or 3: NID4, connreq v1; 4: large NIDs, connreq v2).
    Socklnd(u32),
}

/// Which directions of the connection something applies to: the client's requests, the
/// server's replies, or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Directions {
    /// Neither direction.
    #[default]
    Neither,
    /// Client to server (requests).
    Requests,
    /// Server to client (replies).
    Replies,
    /// Both directions.
    Both,
}

impl Directions {
    /// Whether the direction from the client (`from_client`) or from the server is included.
    pub fn includes(self, from_client: bool) -> bool {
        match self {
            Directions::Neither => false,
            Directions::Requests => from_client,
            Directions::Replies => !from_client,
            Directions::Both => true,
        }
    }
}

/// How to build a capture.
#[derive(Debug, Clone)]
pub struct WriterOptions {
    /// Most TCP payload bytes in one segment (at least 1).
    pub segment_size: usize,
    /// With a seed, each segment's size is drawn from 1 to `segment_size` (the same seed gives
    /// the same capture); without, every full segment has `segment_size` bytes.
    pub segment_seed: Option<u64>,
    /// Byte order of both peers' socklnd structures (connreq, hello, `ksock_msg_hdr`).
    pub order: Endian,
    /// What opens the connection.
    pub handshake: Handshake,
    /// Header form of the messages: large NIDs (`lnet_hdr_nid16`, socklnd V4) or NID4. A
    /// socklnd handshake sets it from its version.
    pub large_nids: bool,
    /// Send each pair of segments in swapped order (out-of-order delivery), in these
    /// directions. A pair may span messages, never a change of direction.
    pub reorder: Directions,
    /// Send every segment twice (retransmissions), in these directions.
    pub duplicate: Directions,
    /// The requester (client) address, port and NID.
    pub client: ([u8; 4], u16, Nid),
    /// The server address, port and NID.
    pub server: ([u8; 4], u16, Nid),
    /// Portal of requests (24: `OUT_PORTAL`, where OSP sends MDT-to-MDT RPCs).
    pub request_portal: u32,
    /// Portal of replies (4: `OSC_REPLY_PORTAL`, OSP's reply portal).
    pub reply_portal: u32,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            segment_size: 1448,
            segment_seed: None,
            order: Endian::Little,
            handshake: Handshake::Socklnd(KSOCK_PROTO_V3),
            large_nids: false,
            reorder: Directions::Neither,
            duplicate: Directions::Neither,
            client: ([192, 168, 0, 1], 1023, Nid::tcp([192, 168, 0, 1], 0)),
            server: ([192, 168, 0, 2], 988, Nid::tcp([192, 168, 0, 2], 0)),
            request_portal: 24,
            reply_portal: 4,
        }
    }
}

/// Why a capture could not be written.
#[derive(Debug)]
pub struct WriteError(String);

impl core::fmt::Display for WriteError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WriteError {}

/// One side of the connection: its next sequence number and unsent stream bytes.
struct Side {
    seq: u32,
    pending: Vec<u8>,
    /// With `reorder`: a segment held back to go out after the next one.
    held: Option<(u32, Vec<u8>)>,
}

/// Writes a capture of one socklnd connection. See the module documentation.
pub struct CaptureWriter<W: std::io::Write> {
    opts: WriterOptions,
    pcap: PcapWriter<W>,
    client: Side,
    server: Side,
    micros: u64,
    next_xid: u64,
    frame: Vec<u8>,
    /// With `segment_seed`: the generator, and a size drawn but not yet used.
    rng: fastrand::Rng,
    drawn: Option<usize>,
}

const START_SECONDS: u64 = 1_764_547_200; // 2025-12-01 00:00:00 UTC

impl<W: std::io::Write> CaptureWriter<W> {
    /// Starts a capture on `out` and writes the handshake `opts` asks for.
    pub fn new(out: W, opts: WriterOptions) -> Result<Self, WriteError> {
        let mut opts = opts;
        if opts.segment_size == 0 || opts.segment_size > WRITER_MAX_SEGMENT {
            return Err(WriteError(format!(
                "segment size must be 1 to {WRITER_MAX_SEGMENT} bytes"
            )));
        }
        if let Handshake::Socklnd(v) = opts.handshake {
            if !(KSOCK_PROTO_V2..=KSOCK_PROTO_V4).contains(&v) {
                return Err(WriteError(format!("socklnd version {v} is not 2, 3 or 4")));
            }
            // The hello decides the header form.
            opts.large_nids = v >= KSOCK_PROTO_V4;
        }
        let header = PcapHeader {
            datalink: DataLink::ETHERNET,
            endianness: Endianness::Little,
            ts_resolution: TsResolution::MicroSecond,
            snaplen: 65535,
            ..PcapHeader::default()
        };
        let pcap = PcapWriter::with_header(out, header).map_err(|e| WriteError(e.to_string()))?;
        let seed = opts.segment_seed.unwrap_or(0);
        let mut w = CaptureWriter {
            opts,
            pcap,
            client: Side {
                seq: 0x1000_0000,
                pending: Vec::new(),
                held: None,
            },
            server: Side {
                seq: 0x8000_0000,
                pending: Vec::new(),
                held: None,
            },
            micros: 0,
            next_xid: 0x0006_6d75_e200_0040,
            frame: Vec::new(),
            rng: fastrand::Rng::with_seed(seed),
            drawn: None,
        };
        if w.opts.handshake != Handshake::None {
            w.tcp_open()?;
        }
        if let Handshake::Socklnd(v) = w.opts.handshake {
            w.socklnd_open(v)?;
        }
        Ok(w)
    }

    fn tcp_open(&mut self) -> Result<(), WriteError> {
        let (c, s) = (self.client.seq, self.server.seq);
        self.segment(true, c, Some(0), b"", true)?;
        self.segment(false, s, Some(c.wrapping_add(1)), b"", true)?;
        self.client.seq = c.wrapping_add(1);
        self.server.seq = s.wrapping_add(1);
        self.segment(true, self.client.seq, Some(self.server.seq), b"", false)
    }

    fn socklnd_open(&mut self, version: u32) -> Result<(), WriteError> {
        let o = self.opts.order;
        let (cn, sn) = (self.opts.client.2, self.opts.server.2);
        let mut req = Vec::new();
        req.extend_from_slice(&o.u32_to(LNET_PROTO_ACCEPTOR_MAGIC));
        if version >= KSOCK_PROTO_V4 {
            req.extend_from_slice(&o.u32_to(2));
            req.extend_from_slice(&sn.to_lnet_nid());
        } else {
            req.extend_from_slice(&o.u32_to(1));
            req.extend_from_slice(&u64_to(o, sn.to_nid4().unwrap_or(0)));
        }
        self.client.pending.extend_from_slice(&req);
        self.flush(true, true)?;
        let c_hello = hello(o, version, cn, sn, 12345, 0x1111);
        self.client.pending.extend_from_slice(&c_hello);
        self.flush(true, true)?;
        let s_hello = hello(o, version, sn, cn, 12345, 0x2222);
        self.server.pending.extend_from_slice(&s_hello);
        self.flush(false, true)
    }

    /// Sends one LNet PUT from the client (`from_client`) or the server.
    pub fn put(
        &mut self,
        from_client: bool,
        portal: u32,
        xid: u64,
        payload: &[u8],
    ) -> Result<(), WriteError> {
        let (src, dst) = if from_client {
            (self.opts.client.2, self.opts.server.2)
        } else {
            (self.opts.server.2, self.opts.client.2)
        };
        let hdr = LnetHdr {
            dest_nid: dst,
            src_nid: src,
            dest_pid: 12345,
            src_pid: 12345,
            msg_type: LnetMsgType::PUT,
            payload_length: u32::try_from(payload.len())
                .map_err(|_| WriteError("payload over 4 GiB".into()))?,
            cmd: LnetCmd::Put {
                ack_wmd: [0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff],
                match_bits: xid,
                hdr_data: 0,
                ptl_index: portal,
                offset: 0,
            },
        };
        // The other side's bytes were sent before this message.
        self.flush(!from_client, true)?;
        let o = self.opts.order;
        let side = if from_client {
            &mut self.client
        } else {
            &mut self.server
        };
        side.pending.extend_from_slice(&o.u32_to(KSOCK_MSG_LNET));
        side.pending.extend_from_slice(&[0; 20]);
        hdr.put(self.opts.large_nids, &mut side.pending);
        side.pending.extend_from_slice(payload);
        // Whole segments go out now; the rest may share a segment with the next message.
        self.flush(from_client, false)
    }

    /// Sends raw stream bytes from the client (`from_client`) or the server, for captures of
    /// damaged or foreign streams.
    pub fn raw(&mut self, from_client: bool, bytes: &[u8]) -> Result<(), WriteError> {
        self.flush(!from_client, true)?;
        let side = if from_client {
            &mut self.client
        } else {
            &mut self.server
        };
        side.pending.extend_from_slice(bytes);
        self.flush(from_client, false)
    }

    /// Sends a request from the client on the request portal and returns its xid.
    pub fn request(&mut self, msg: &[u8]) -> Result<u64, WriteError> {
        let xid = self.next_xid;
        self.next_xid += 0x40;
        self.put(true, self.opts.request_portal, xid, msg)?;
        Ok(xid)
    }

    /// Sends a reply from the server on the reply portal, for the request with `xid`.
    pub fn reply(&mut self, xid: u64, msg: &[u8]) -> Result<(), WriteError> {
        self.put(false, self.opts.reply_portal, xid, msg)
    }

    /// Sends what is still pending and returns the output.
    pub fn finish(mut self) -> Result<W, WriteError> {
        self.flush(true, true)?;
        self.flush(false, true)?;
        Ok(self.pcap.into_writer())
    }

    /// Cuts one side's pending bytes into segments and writes them: all of them, or only
    /// whole segments (the rest stays pending).
    fn flush(&mut self, client: bool, all: bool) -> Result<(), WriteError> {
        let pending = if client {
            self.client.pending.len()
        } else {
            self.server.pending.len()
        };
        let sizes = self.cut(pending, all);
        let side = if client {
            &mut self.client
        } else {
            &mut self.server
        };
        let rest = side.pending.split_off(sizes.iter().sum());
        let bytes = std::mem::replace(&mut side.pending, rest);
        let mut held = side.held.take();
        let mut segs: Vec<(u32, &[u8])> = Vec::new();
        let mut seq = side.seq;
        let mut at = 0;
        for n in sizes {
            let chunk = &bytes[at..at + n];
            at += n;
            segs.push((seq, chunk));
            seq = seq.wrapping_add(chunk.len() as u32);
        }
        side.seq = seq;
        let ack = if client {
            self.server.seq
        } else {
            self.client.seq
        };
        let reorder = self.opts.reorder.includes(client);
        let times = if self.opts.duplicate.includes(client) {
            2
        } else {
            1
        };
        for (seq, chunk) in segs {
            // Every other segment waits for the next one, across messages, so that pipelined
            // messages are reordered too.
            if reorder && held.is_none() {
                held = Some((seq, chunk.to_vec()));
                continue;
            }
            for _ in 0..times {
                self.segment(client, seq, Some(ack), chunk, false)?;
            }
            if let Some((hseq, hchunk)) = held.take() {
                for _ in 0..times {
                    self.segment(client, hseq, Some(ack), &hchunk, false)?;
                }
            }
        }
        // The held segment goes out before the other side speaks (or the capture ends).
        if all && let Some((hseq, hchunk)) = held.take() {
            for _ in 0..times {
                self.segment(client, hseq, Some(ack), &hchunk, false)?;
            }
        }
        let side = if client {
            &mut self.client
        } else {
            &mut self.server
        };
        side.held = held;
        Ok(())
    }

    /// The sizes of the segments `len` pending bytes go out in: the full segments, and with
    /// `all` the rest too (otherwise it waits for more bytes).
    fn cut(&mut self, len: usize, all: bool) -> Vec<usize> {
        let mut sizes = Vec::new();
        let mut left = len;
        while left > 0 {
            let next = self.next_size();
            if left < next {
                // A short last segment leaves the drawn size for the next full one.
                if all {
                    sizes.push(left);
                }
                break;
            }
            self.drawn = None;
            sizes.push(next);
            left -= next;
        }
        sizes
    }

    /// The size of the next full segment: `segment_size`, or drawn from 1 to it.
    fn next_size(&mut self) -> usize {
        let max = self.opts.segment_size;
        if self.opts.segment_seed.is_none() {
            return max;
        }
        if let Some(n) = self.drawn {
            return n;
        }
        let n = self.rng.usize(1..=max);
        self.drawn = Some(n);
        n
    }

    fn segment(
        &mut self,
        client: bool,
        seq: u32,
        ack: Option<u32>,
        data: &[u8],
        syn: bool,
    ) -> Result<(), WriteError> {
        let (c, s) = (self.opts.client, self.opts.server);
        let (src, dst) = if client { (c, s) } else { (s, c) };
        let mac = |a: [u8; 4]| [2, 0, a[0], a[1], a[2], a[3]];
        let mut b = PacketBuilder::ethernet2(mac(src.0), mac(dst.0))
            .ipv4(src.0, dst.0, 64)
            .tcp(src.1, dst.1, seq, 65535);
        if syn {
            b = b.syn();
        }
        if let Some(a) = ack.filter(|_| !(syn && client)) {
            b = b.ack(a);
        }
        if !data.is_empty() {
            b = b.psh();
        }
        self.frame.clear();
        b.write(&mut self.frame, data)
            .map_err(|e| WriteError(e.to_string()))?;
        self.micros += 10;
        let ts = Duration::from_secs(START_SECONDS) + Duration::from_micros(self.micros);
        let len = self.frame.len() as u32;
        self.pcap
            .write_packet(&PcapPacket::new(ts, len, &self.frame))
            .map_err(|e| WriteError(e.to_string()))?;
        Ok(())
    }
}

fn u64_to(o: Endian, v: u64) -> [u8; 8] {
    match o {
        Endian::Little => v.to_le_bytes(),
        Endian::Big => v.to_be_bytes(),
    }
}

/// A hello of `version` from `src` to `dst` in order `o`.
fn hello(o: Endian, version: u32, src: Nid, dst: Nid, pid: u32, incarnation: u64) -> Vec<u8> {
    let mut h = Vec::new();
    h.extend_from_slice(&o.u32_to(LNET_PROTO_MAGIC));
    h.extend_from_slice(&o.u32_to(version));
    if version >= KSOCK_PROTO_V4 {
        h.extend_from_slice(&src.to_lnet_nid());
        h.extend_from_slice(&dst.to_lnet_nid());
    } else {
        h.extend_from_slice(&u64_to(o, src.to_nid4().unwrap_or(0)));
        h.extend_from_slice(&u64_to(o, dst.to_nid4().unwrap_or(0)));
    }
    h.extend_from_slice(&o.u32_to(pid));
    h.extend_from_slice(&o.u32_to(pid));
    h.extend_from_slice(&u64_to(o, incarnation));
    h.extend_from_slice(&u64_to(o, 0));
    // SOCKLND_CONN_ANY, then kshm_nips = 0.
    h.extend_from_slice(&o.u32_to(0));
    h.extend_from_slice(&o.u32_to(0));
    h
}
