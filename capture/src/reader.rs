//! [`CaptureReader`]: frames → TCP directions → socklnd items → events.

use super::limits::{FLOWS_MAX, FRAME_MAP_MAX};
use super::link::{Source, tcp_segment};
use super::lnet::{LNET_HDR_NID16_SIZE, LnetMsgType};
use super::lustre::{Pairing, RequestLink, decode_rpc, looks_like_lustre, prepare_request};
use super::socklnd::{Hello, Item, KSOCK_MSG_HDR_SIZE, SocklndStream};
use super::tcp::{HalfStream, Piece};
use super::{CaptureError, CaptureErrorKind, Event, Flow, Message};
use std::collections::{HashMap, VecDeque};
use std::io::{Chain, Cursor, Read};
use std::sync::Arc;
use std::time::Duration;

/// Counters of what the reader saw and skipped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ReaderStats {
    /// Frames read.
    pub frames: u64,
    /// TCP segments with payload.
    pub tcp_segments: u64,
    /// Segments (or parts) dropped as retransmissions.
    pub retransmitted: u64,
    /// Holes in TCP directions.
    pub gaps: u64,
    /// Bytes skipped while looking for a message header.
    pub skipped_bytes: u64,
    /// LNet messages.
    pub messages: u64,
    /// Replies paired with their request.
    pub paired: u64,
    /// Requests forgotten unanswered because too many were waiting.
    pub forgotten_requests: u64,
}

/// The receive side of one TCP direction: its byte stream buffered up to one whole item.
struct Rx {
    lnd: SocklndStream,
    buf: Vec<u8>,
    start: usize,
    /// Stream offset of `buf[start]`.
    base: u64,
    /// (stream offset, frame) where each buffered chunk starts.
    frames: VecDeque<(u64, u64)>,
    /// Looking for a header since this stream offset.
    syncing: Option<u64>,
}

struct Direction {
    tcp: HalfStream,
    rx: Rx,
}

/// Where events go while a direction is borrowed.
struct Sink {
    events: VecDeque<Event>,
    pairing: Pairing,
    stats: ReaderStats,
    /// A hello seen in this batch, for the reverse direction to learn from.
    hello: Option<(Flow, Hello)>,
}

/// Reads a pcap or pcapng capture and yields its [`Event`]s (an [`Iterator`]).
pub struct CaptureReader<R: Read> {
    source: Source<Chain<Cursor<[u8; 4]>, R>>,
    frame: u64,
    time: Duration,
    first_time: Option<Duration>,
    data: Vec<u8>,
    flows: HashMap<Flow, Direction>,
    sink: Sink,
    refused_flows: bool,
    finished: bool,
    broken: bool,
}

impl<R: Read> CaptureReader<R> {
    /// Opens a capture: pcap (either byte order, micro- or nanosecond) or pcapng.
    #[allow(clippy::result_large_err)]
    pub fn new(mut reader: R) -> Result<Self, CaptureError> {
        let mut magic = [0u8; 4];
        reader.read_exact(&mut magic).map_err(|e| {
            CaptureError::new(
                0,
                "capture file",
                "magic",
                0,
                CaptureErrorKind::Container(e.to_string()),
            )
        })?;
        let source = Source::open(magic, Cursor::new(magic).chain(reader))?;
        Ok(CaptureReader {
            source,
            frame: 0,
            time: Duration::ZERO,
            first_time: None,
            data: Vec::new(),
            flows: HashMap::new(),
            sink: Sink {
                events: VecDeque::new(),
                pairing: Pairing::default(),
                stats: ReaderStats::default(),
                hello: None,
            },
            refused_flows: false,
            finished: false,
            broken: false,
        })
    }

    /// What the reader has counted so far.
    pub fn stats(&self) -> ReaderStats {
        let mut s = self.sink.stats;
        s.retransmitted += self
            .flows
            .values()
            .map(|d| d.tcp.retransmitted)
            .sum::<u64>();
        s.forgotten_requests = self.sink.pairing.forgotten;
        s
    }

    /// Timestamp of the first frame (tshark's time reference), once a frame was read.
    pub fn first_time(&self) -> Option<Duration> {
        self.first_time
    }

    fn read_frame(&mut self) -> bool {
        let number = self.frame + 1;
        let (ts, link) = match self.source.next_frame(number, &mut self.data) {
            None => return false,
            Some(Err(e)) => {
                // A damaged container cannot be resynchronised: report and stop.
                self.sink.events.push_back(Event::Error(e));
                self.broken = true;
                return false;
            }
            Some(Ok(x)) => x,
        };
        self.frame = number;
        self.time = ts;
        self.first_time.get_or_insert(ts);
        self.sink.stats.frames += 1;
        let data = std::mem::take(&mut self.data);
        match tcp_segment(number, link, &data) {
            Ok(Some(seg)) => {
                let flow = Flow {
                    src: seg.src,
                    dst: seg.dst,
                };
                self.segment(flow, seg.seq, seg.syn, seg.fin || seg.rst, seg.payload);
            }
            Ok(None) => {}
            Err(e) => self.sink.events.push_back(Event::Error(e)),
        }
        self.data = data;
        true
    }

    fn segment(&mut self, flow: Flow, seq: u32, syn: bool, end: bool, payload: &[u8]) {
        if !payload.is_empty() {
            self.sink.stats.tcp_segments += 1;
        }
        if syn {
            // A new connection on the same ports replaces the old one.
            if let Some(old) = self.flows.remove(&flow) {
                self.sink.stats.retransmitted += old.tcp.retransmitted;
            }
        }
        if !self.flows.contains_key(&flow) {
            if self.flows.len() >= FLOWS_MAX {
                if !self.refused_flows {
                    let mut e = CaptureError::new(
                        self.frame,
                        "TCP",
                        "flow",
                        0,
                        CaptureErrorKind::TooManyFlows,
                    );
                    e.flow = Some(flow);
                    self.sink.events.push_back(Event::Error(e));
                    self.refused_flows = true;
                }
                return;
            }
            self.flows.insert(flow, Direction::new());
        }
        let Some(dir) = self.flows.get_mut(&flow) else {
            return;
        };
        let (frame, time) = (self.frame, self.time);
        let Direction { tcp, rx } = dir;
        let sink = &mut self.sink;
        tcp.segment(frame, seq, syn, payload, &mut |p| {
            rx.piece(flow, time, p, sink)
        });
        if end {
            tcp.finish(frame, &mut |p| rx.piece(flow, time, p, sink));
            rx.finish(flow, frame, sink);
            if let Some(d) = self.flows.remove(&flow) {
                self.sink.stats.retransmitted += d.tcp.retransmitted;
            }
        }
        if let Some((from, hello)) = self.sink.hello.take() {
            let back = Flow {
                src: from.dst,
                dst: from.src,
            };
            if let Some(d) = self.flows.get_mut(&back) {
                d.rx.lnd.learn(&hello);
            }
        }
    }

    fn finish(&mut self) {
        let mut flows: Vec<Flow> = self.flows.keys().copied().collect();
        flows.sort();
        for flow in flows {
            let Some(mut d) = self.flows.remove(&flow) else {
                continue;
            };
            let (frame, time, sink) = (self.frame, self.time, &mut self.sink);
            let Direction { tcp, rx } = &mut d;
            tcp.finish(frame, &mut |p| rx.piece(flow, time, p, sink));
            rx.finish(flow, frame, sink);
            self.sink.stats.retransmitted += d.tcp.retransmitted;
        }
    }
}

impl<R: Read> Iterator for CaptureReader<R> {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        loop {
            if let Some(e) = self.sink.events.pop_front() {
                return Some(e);
            }
            if self.finished {
                return None;
            }
            if self.broken || !self.read_frame() {
                self.finish();
                self.finished = true;
            }
        }
    }
}

impl Direction {
    fn new() -> Self {
        Direction {
            tcp: HalfStream::default(),
            rx: Rx {
                lnd: SocklndStream::new(),
                buf: Vec::new(),
                start: 0,
                base: 0,
                frames: VecDeque::new(),
                syncing: None,
            },
        }
    }
}

/// Bytes a resynchronising reader keeps: enough for one header that straddles segments.
const SYNC_TAIL: usize = KSOCK_MSG_HDR_SIZE + LNET_HDR_NID16_SIZE;

impl Rx {
    fn piece(&mut self, flow: Flow, time: Duration, p: Piece<'_>, sink: &mut Sink) {
        match p {
            Piece::Gap { frame, at, missing } => {
                sink.stats.gaps += 1;
                sink.events.push_back(Event::Gap {
                    frame,
                    flow,
                    at,
                    missing,
                });
                // What was buffered cannot be completed: look for the next header after it.
                self.syncing.get_or_insert(self.base);
                self.buf.clear();
                self.start = 0;
                self.frames.clear();
                self.base = at + missing;
                self.lnd.lose_sync();
            }
            Piece::Data { frame, at, bytes } => {
                if self.frames.len() >= FRAME_MAP_MAX {
                    self.frames.pop_front();
                }
                self.frames.push_back((at, frame));
                self.buf.extend_from_slice(bytes);
                self.parse(flow, frame, time, sink);
            }
        }
    }

    /// The frame holding stream offset `at`.
    fn frame_of(&self, at: u64, last: u64) -> u64 {
        self.frames
            .iter()
            .rev()
            .find(|(o, _)| *o <= at)
            .map_or(last, |&(_, f)| f)
    }

    fn parse(&mut self, flow: Flow, frame: u64, time: Duration, sink: &mut Sink) {
        loop {
            if let Some(since) = self.syncing {
                let b = &self.buf[self.start..];
                match self.lnd.resync(b) {
                    Some(k) => {
                        self.consume(k);
                        sink.stats.skipped_bytes += self.base - since;
                        sink.events.push_back(Event::Skipped {
                            frame,
                            flow,
                            at: since,
                            bytes: self.base - since,
                        });
                        self.syncing = None;
                    }
                    None => {
                        self.consume(b.len().saturating_sub(SYNC_TAIL));
                        break;
                    }
                }
            }
            match self.lnd.next_item(&self.buf[self.start..]) {
                Ok(Some((item, n))) => {
                    self.emit(item, flow, frame, time, sink);
                    self.consume(n);
                }
                Ok(None) => break,
                Err(e) => {
                    if e.kind != CaptureErrorKind::NoFrameStart {
                        let at = self.base + e.at as u64;
                        let mut err = CaptureError::new(
                            self.frame_of(at, frame),
                            e.structure,
                            e.field,
                            at,
                            e.kind,
                        );
                        err.flow = Some(flow);
                        sink.events.push_back(Event::Error(err));
                    }
                    self.syncing = Some(self.base);
                    self.consume(1);
                    self.lnd.lose_sync();
                }
            }
        }
        self.compact();
    }

    fn consume(&mut self, n: usize) {
        self.start += n;
        self.base += n as u64;
        while self.frames.len() > 1 && self.frames[1].0 <= self.base {
            self.frames.pop_front();
        }
    }

    fn compact(&mut self) {
        if self.start == self.buf.len() {
            self.buf.clear();
            self.start = 0;
        } else if self.start > 64 * 1024 && self.start * 2 > self.buf.len() {
            self.buf.drain(..self.start);
            self.start = 0;
        }
    }

    fn emit(&self, item: Item, flow: Flow, frame: u64, time: Duration, sink: &mut Sink) {
        let b = &self.buf[self.start..];
        let ev = match item {
            Item::Connreq(connreq) => Event::Connreq {
                frame,
                flow,
                connreq,
            },
            Item::Hello(hello) => {
                sink.hello = Some((flow, hello));
                Event::Hello { frame, flow, hello }
            }
            Item::Noop(ksm) => Event::Noop { frame, flow, ksm },
            Item::Lnet { ksm, hdr, payload } => {
                let payload = b.get(payload).unwrap_or_default().to_vec();
                let carries = matches!(hdr.msg_type, LnetMsgType::PUT | LnetMsgType::REPLY);
                let rpc = (carries && looks_like_lustre(&payload)).then(|| decode_rpc(&payload));
                let mut m = Message {
                    frame,
                    first_frame: self.frame_of(self.base, frame),
                    time,
                    flow,
                    stream_offset: self.base,
                    ksm,
                    hdr,
                    payload,
                    rpc,
                    request: None,
                };
                pair(&mut m, sink);
                sink.stats.messages += 1;
                Event::Message(Box::new(m))
            }
        };
        sink.events.push_back(ev);
    }

    /// At the end of a direction: what is left in the buffer was cut off.
    fn finish(&mut self, flow: Flow, frame: u64, sink: &mut Sink) {
        let left = (self.buf.len() - self.start) as u64;
        if let Some(since) = self.syncing.take() {
            let bytes = self.base + left - since;
            sink.stats.skipped_bytes += bytes;
            sink.events.push_back(Event::Skipped {
                frame,
                flow,
                at: since,
                bytes,
            });
        } else if left > 0 {
            let mut e = CaptureError::new(
                frame,
                "ksock_msg",
                "",
                self.base,
                CaptureErrorKind::EndsInside { have: left },
            );
            e.flow = Some(flow);
            sink.events.push_back(Event::Error(e));
        }
        self.buf.clear();
        self.start = 0;
    }
}

/// Remembers a request, or finds the request of a reply.
fn pair(m: &mut Message, sink: &mut Sink) {
    let (Some(Ok(rpc)), Some(xid)) = (&m.rpc, m.hdr.match_bits()) else {
        return;
    };
    if m.hdr.msg_type != LnetMsgType::PUT {
        return;
    }
    if rpc.is_request() {
        let prepare = prepare_request(&m.payload);
        let link = RequestLink {
            frame: m.frame,
            xid,
            requester: m.hdr.src_nid,
            server: m.hdr.dest_nid,
            opc: rpc.ptlrpc.opc,
            intent: rpc.intent,
            reply_context: prepare.as_ref().map(|(ctx, _)| *ctx),
            prepare: prepare.map(|(_, req)| Arc::new(req)),
            earlier_replies: 0,
        };
        let key = (m.hdr.src_nid, m.hdr.dest_nid, xid);
        sink.pairing.request(key, link);
    } else {
        let key = (m.hdr.dest_nid, m.hdr.src_nid, xid);
        m.request = sink.pairing.reply(&key);
        if m.request.is_some() {
            sink.stats.paired += 1;
        }
    }
}
