//! The socklnd byte stream of one TCP direction: the acceptor's connection request, the hello,
//! then `ksock_msg` frames (`lnet/klnds/socklnd/socklnd-idl.h`, `socklnd_proto.c`,
//! `lnet/lnet/acceptor.c`).
//!
//! A hand-written bounded reader: its `next_item` returns `Ok(None)` until the
//! bytes of one whole item are buffered (the `Incomplete` of a streaming parser), and checks
//! every length it reads against [`super::limits`] before waiting for that many bytes.
//!
//! Byte order: the connection request, the hello and `ksock_msg_hdr` are in the sender's order
//! (the receiver "flips" them when the magic reads swapped); `lnet_hdr` is always little-endian.

use super::limits::{LNET_INTERFACES_NUM, LNET_MAX_PAYLOAD};
use super::lnet::{
    LNET_HDR_NID4_SIZE, LNET_HDR_NID16_SIZE, LNET_NID_SIZE, LNET_PROTO_ACCEPTOR_MAGIC,
    LNET_PROTO_MAGIC, LNET_PROTO_TCP_MAGIC, LnetHdr, Nid,
};
use super::{CaptureErrorKind, FieldError};
use lustre_dne_intent::Endian;

/// `KSOCK_MSG_NOOP`: a header-only keepalive or zero-copy ACK.
pub const KSOCK_MSG_NOOP: u32 = 0xc0;
/// `KSOCK_MSG_LNET`: a header followed by an `lnet_hdr` and its payload.
pub const KSOCK_MSG_LNET: u32 = 0xc1;
/// `sizeof(struct ksock_msg_hdr)`.
pub const KSOCK_MSG_HDR_SIZE: usize = 24;
/// `KSOCK_PROTO_V2`.
pub const KSOCK_PROTO_V2: u32 = 2;
/// `KSOCK_PROTO_V3`.
pub const KSOCK_PROTO_V3: u32 = 3;
/// `KSOCK_PROTO_V4`: large NIDs in the hello and in `lnet_hdr`.
pub const KSOCK_PROTO_V4: u32 = 4;
/// `sizeof(struct ksock_hello_msg_nid4)` without `kshm_ips` (V2, V3).
pub const HELLO_NID4_SIZE: usize = 56;
/// `sizeof(struct ksock_hello_msg)` (V4; `kshm_ips` is never sent).
pub const HELLO_NID16_SIZE: usize = 80;
/// `sizeof(struct lnet_acceptor_connreq)` (`LNET_PROTO_ACCEPTOR_VERSION` 1).
pub const CONNREQ_V1_SIZE: usize = 16;
/// `sizeof(struct lnet_acceptor_connreq_v2)` (`LNET_PROTO_ACCEPTOR_VERSION_16`).
pub const CONNREQ_V2_SIZE: usize = 28;

/// `struct lnet_acceptor_connreq` or `_v2`: the first bytes an active peer sends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Connreq {
    /// `acr_version`: 1 (NID4) or 2 (large NID).
    pub acr_version: u32,
    /// `acr_nid`: the NID the peer wants to reach.
    pub acr_nid: Nid,
    /// The sender's byte order.
    pub order: Endian,
}

/// `struct ksock_hello_msg` (V4) or `ksock_hello_msg_nid4` (V2, V3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hello {
    /// `kshm_version`.
    pub kshm_version: u32,
    /// `kshm_src_nid`.
    pub kshm_src_nid: Nid,
    /// `kshm_dst_nid`.
    pub kshm_dst_nid: Nid,
    /// `kshm_src_pid`.
    pub kshm_src_pid: u32,
    /// `kshm_dst_pid`.
    pub kshm_dst_pid: u32,
    /// `kshm_src_incarnation`.
    pub kshm_src_incarnation: u64,
    /// `kshm_dst_incarnation`.
    pub kshm_dst_incarnation: u64,
    /// `kshm_ctype`: `SOCKLND_CONN_*`.
    pub kshm_ctype: u32,
    /// `kshm_nips`: deprecated IP list length (V2, V3), skipped.
    pub kshm_nips: u32,
    /// The sender's byte order.
    pub order: Endian,
}

/// `struct ksock_msg_hdr`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KsockMsgHdr {
    /// `ksh_type`: `KSOCK_MSG_NOOP` or `KSOCK_MSG_LNET`.
    pub ksh_type: u32,
    /// `ksh_csum`: 0 or a checksum.
    pub ksh_csum: u32,
    /// `ksh_zc_cookies`: zero-copy request and ACK cookies.
    pub ksh_zc_cookies: [u64; 2],
    /// The sender's byte order.
    pub order: Endian,
}

/// One item of the stream.
#[derive(Debug)]
pub(crate) enum Item {
    Connreq(Connreq),
    Hello(Hello),
    Noop(KsockMsgHdr),
    /// An LNet message: the payload is `bytes[payload]` of the buffer handed to `next_item`.
    Lnet {
        ksm: KsockMsgHdr,
        hdr: LnetHdr,
        payload: core::ops::Range<usize>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing read yet: a connection request, a hello or (mid-stream) a message may come.
    Start,
    /// After the hello (or a recognised message): `ksock_msg` frames.
    Messages { order: Endian, large: bool },
}

/// Parser state of one direction of a socklnd connection.
#[derive(Debug)]
pub(crate) struct SocklndStream {
    state: State,
    /// The framing the other direction's hello announced, for when this one's is not seen.
    learned: Option<(Endian, bool)>,
}

fn u32_at(b: &[u8], at: usize, order: Endian) -> u32 {
    let mut w = [0u8; 4];
    w.copy_from_slice(&b[at..at + 4]);
    order.u32_from(w)
}

fn u64_at(b: &[u8], at: usize, order: Endian) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(&b[at..at + 8]);
    match order {
        Endian::Little => u64::from_le_bytes(w),
        Endian::Big => u64::from_be_bytes(w),
    }
}

/// The order in which `magic` reads as `want`, if either.
fn order_of(b: &[u8], want: u32) -> Option<Endian> {
    let w = [b[0], b[1], b[2], b[3]];
    if u32::from_le_bytes(w) == want {
        Some(Endian::Little)
    } else if u32::from_be_bytes(w) == want {
        Some(Endian::Big)
    } else {
        None
    }
}

fn err(
    structure: &'static str,
    field: &'static str,
    at: usize,
    kind: CaptureErrorKind,
) -> FieldError {
    FieldError {
        structure,
        field,
        at,
        kind,
    }
}

impl SocklndStream {
    pub(crate) fn new() -> Self {
        SocklndStream {
            state: State::Start,
            learned: None,
        }
    }

    /// Forgets the framing after a gap: the next bytes are searched for a message header.
    pub(crate) fn lose_sync(&mut self) {
        if let State::Messages { .. } = self.state {
            // Keep the order and the header form: the hello that set them still holds.
        } else {
            self.state = State::Start;
        }
    }

    /// Tells this direction the header form and order the other direction's hello announced,
    /// for a stream whose own hello was not captured.
    pub(crate) fn learn(&mut self, hello: &Hello) {
        self.learned = Some((hello.order, hello.kshm_version >= KSOCK_PROTO_V4));
    }

    /// The next whole item at the start of `b`: `Ok(Some((item, length)))`, `Ok(None)` when
    /// more bytes are needed, or an error naming the field (the caller resynchronises).
    pub(crate) fn next_item(&mut self, b: &[u8]) -> Result<Option<(Item, usize)>, FieldError> {
        if b.len() < 4 {
            return Ok(None);
        }
        match self.state {
            State::Start => self.start_item(b),
            State::Messages { order, large } => message(b, order, large),
        }
    }

    fn start_item(&mut self, b: &[u8]) -> Result<Option<(Item, usize)>, FieldError> {
        if let Some(order) = order_of(b, LNET_PROTO_ACCEPTOR_MAGIC) {
            return connreq(b, order);
        }
        if let Some(order) = order_of(b, LNET_PROTO_MAGIC) {
            let r = hello(b, order)?;
            if let Some((Item::Hello(h), _)) = &r {
                self.state = State::Messages {
                    order: h.order,
                    large: h.kshm_version >= KSOCK_PROTO_V4,
                };
            }
            return Ok(r);
        }
        if order_of(b, LNET_PROTO_TCP_MAGIC).is_some() {
            return Err(err(
                "lnet_magicversion",
                "magic",
                0,
                CaptureErrorKind::Unsupported("socklnd V1 (LNET_PROTO_TCP_MAGIC) hello"),
            ));
        }
        // A capture that starts mid-connection: find the order and form from the first header.
        let framing = match self.learned {
            Some((order, large)) if plausible(b, order, large) => Some((order, large)),
            _ => guess_framing(b),
        };
        match framing {
            Some((order, large)) => {
                self.state = State::Messages { order, large };
                message(b, order, large)
            }
            None if b.len() < KSOCK_MSG_HDR_SIZE + LNET_HDR_NID16_SIZE => Ok(None),
            None => Err(err(
                "ksock_msg_hdr",
                "ksh_type",
                0,
                CaptureErrorKind::NoFrameStart,
            )),
        }
    }

    /// The first offset in `b` where a message header plausibly starts.
    pub(crate) fn resync(&self, b: &[u8]) -> Option<usize> {
        let want = KSOCK_MSG_HDR_SIZE + LNET_HDR_NID16_SIZE;
        (0..=b.len().saturating_sub(want)).find(|&i| {
            let w = &b[i..];
            match self.state {
                State::Messages { order, large } => plausible(w, order, large),
                State::Start => guess_framing(w).is_some(),
            }
        })
    }
}

fn connreq(b: &[u8], order: Endian) -> Result<Option<(Item, usize)>, FieldError> {
    if b.len() < 8 {
        return Ok(None);
    }
    let version = u32_at(b, 4, order);
    let (size, nid) = match version {
        1 => {
            if b.len() < CONNREQ_V1_SIZE {
                return Ok(None);
            }
            (CONNREQ_V1_SIZE, Nid::from_nid4(u64_at(b, 8, order)))
        }
        2 => {
            if b.len() < CONNREQ_V2_SIZE {
                return Ok(None);
            }
            let raw: &[u8; LNET_NID_SIZE] = b[8..28].try_into().unwrap_or(&[0; LNET_NID_SIZE]);
            let nid = Nid::from_lnet_nid(raw).ok_or_else(|| {
                err(
                    "lnet_acceptor_connreq_v2",
                    "acr_nid.nid_size",
                    8,
                    CaptureErrorKind::BadValue {
                        value: u64::from(raw[0]),
                        rule: "nid_size is at most 12",
                    },
                )
            })?;
            (CONNREQ_V2_SIZE, nid)
        }
        v => {
            return Err(err(
                "lnet_acceptor_connreq",
                "acr_version",
                4,
                CaptureErrorKind::BadValue {
                    value: u64::from(v),
                    rule: "LNET_PROTO_ACCEPTOR_VERSION is 1 or 2",
                },
            ));
        }
    };
    let c = Connreq {
        acr_version: version,
        acr_nid: nid,
        order,
    };
    Ok(Some((Item::Connreq(c), size)))
}

fn hello(b: &[u8], order: Endian) -> Result<Option<(Item, usize)>, FieldError> {
    if b.len() < 8 {
        return Ok(None);
    }
    let version = u32_at(b, 4, order);
    let large = match version {
        KSOCK_PROTO_V2 | KSOCK_PROTO_V3 => false,
        KSOCK_PROTO_V4 => true,
        v => {
            return Err(err(
                "ksock_hello_msg",
                "kshm_version",
                4,
                CaptureErrorKind::BadValue {
                    value: u64::from(v),
                    rule: "KSOCK_PROTO_V2, V3 or V4",
                },
            ));
        }
    };
    let fixed = if large {
        HELLO_NID16_SIZE
    } else {
        HELLO_NID4_SIZE
    };
    if b.len() < fixed {
        return Ok(None);
    }
    let (src, dst, rest) = if large {
        let s: &[u8; LNET_NID_SIZE] = b[8..28].try_into().unwrap_or(&[0; LNET_NID_SIZE]);
        let d: &[u8; LNET_NID_SIZE] = b[28..48].try_into().unwrap_or(&[0; LNET_NID_SIZE]);
        let bad = |field| {
            err(
                "ksock_hello_msg",
                field,
                8,
                CaptureErrorKind::BadValue {
                    value: 0,
                    rule: "nid_size is at most 12",
                },
            )
        };
        let src = Nid::from_lnet_nid(s).ok_or_else(|| bad("kshm_src_nid"))?;
        let dst = Nid::from_lnet_nid(d).ok_or_else(|| bad("kshm_dst_nid"))?;
        (src, dst, 48)
    } else {
        let src = Nid::from_nid4(u64_at(b, 8, order));
        let dst = Nid::from_nid4(u64_at(b, 16, order));
        (src, dst, 24)
    };
    let nips = u32_at(b, rest + 28, order);
    // V4 never sends kshm_ips; V2 and V3 send nips words after the fixed part.
    let ips = if large { 0 } else { nips as usize };
    if ips > LNET_INTERFACES_NUM {
        return Err(err(
            "ksock_hello_msg_nid4",
            "kshm_nips",
            rest + 28,
            CaptureErrorKind::TooLarge {
                value: u64::from(nips),
                max: LNET_INTERFACES_NUM as u64,
            },
        ));
    }
    let size = fixed + 4 * ips;
    if b.len() < size {
        return Ok(None);
    }
    let h = Hello {
        kshm_version: version,
        kshm_src_nid: src,
        kshm_dst_nid: dst,
        kshm_src_pid: u32_at(b, rest, order),
        kshm_dst_pid: u32_at(b, rest + 4, order),
        kshm_src_incarnation: u64_at(b, rest + 8, order),
        kshm_dst_incarnation: u64_at(b, rest + 16, order),
        kshm_ctype: u32_at(b, rest + 24, order),
        kshm_nips: nips,
        order,
    };
    Ok(Some((Item::Hello(h), size)))
}

fn ksock_hdr(b: &[u8], order: Endian) -> KsockMsgHdr {
    KsockMsgHdr {
        ksh_type: u32_at(b, 0, order),
        ksh_csum: u32_at(b, 4, order),
        ksh_zc_cookies: [u64_at(b, 8, order), u64_at(b, 16, order)],
        order,
    }
}

/// Offsets of `type` and `payload_length` in the two `lnet_hdr` forms.
const fn type_at(large: bool) -> usize {
    if large { 48 } else { 24 }
}

/// Whether `b` starts with a believable message header in this framing.
fn plausible(b: &[u8], order: Endian, large: bool) -> bool {
    let hdr = if large {
        LNET_HDR_NID16_SIZE
    } else {
        LNET_HDR_NID4_SIZE
    };
    if b.len() < KSOCK_MSG_HDR_SIZE + hdr {
        return false;
    }
    match u32_at(b, 0, order) {
        KSOCK_MSG_LNET => {
            let h = &b[KSOCK_MSG_HDR_SIZE..];
            let t = u32_at(h, type_at(large), Endian::Little);
            let len = u32_at(h, type_at(large) + 4, Endian::Little) as usize;
            t <= 4 && len <= LNET_MAX_PAYLOAD && (!large || (h[0] <= 12 && h[20] <= 12))
        }
        // A NOOP carries no LNet header to check; only zero checksums and cookies are believed.
        KSOCK_MSG_NOOP => b[4..KSOCK_MSG_HDR_SIZE].iter().all(|&x| x == 0),
        _ => false,
    }
}

/// The order and header form of a stream whose hello was not seen, from its first header.
fn guess_framing(b: &[u8]) -> Option<(Endian, bool)> {
    for order in [Endian::Little, Endian::Big] {
        // NID4 first: V2/V3 are far more common, and a V4 header rarely fits NID4 rules.
        for large in [false, true] {
            if plausible(b, order, large) && u32_at(b, 0, order) == KSOCK_MSG_LNET {
                return Some((order, large));
            }
        }
    }
    None
}

fn message(b: &[u8], order: Endian, large: bool) -> Result<Option<(Item, usize)>, FieldError> {
    if b.len() < KSOCK_MSG_HDR_SIZE {
        return Ok(None);
    }
    let ksm = ksock_hdr(b, order);
    match ksm.ksh_type {
        KSOCK_MSG_NOOP => return Ok(Some((Item::Noop(ksm), KSOCK_MSG_HDR_SIZE))),
        KSOCK_MSG_LNET => {}
        t => {
            return Err(err(
                "ksock_msg_hdr",
                "ksh_type",
                0,
                CaptureErrorKind::BadValue {
                    value: u64::from(t),
                    rule: "KSOCK_MSG_NOOP (0xc0) or KSOCK_MSG_LNET (0xc1)",
                },
            ));
        }
    }
    let hdr_len = if large {
        LNET_HDR_NID16_SIZE
    } else {
        LNET_HDR_NID4_SIZE
    };
    let start = KSOCK_MSG_HDR_SIZE + hdr_len;
    if b.len() < start {
        return Ok(None);
    }
    let Some(hdr) = LnetHdr::decode(&b[KSOCK_MSG_HDR_SIZE..], large) else {
        return Err(err(
            "lnet_hdr",
            "dest_nid.nid_size",
            KSOCK_MSG_HDR_SIZE,
            CaptureErrorKind::BadValue {
                value: u64::from(b[KSOCK_MSG_HDR_SIZE]),
                rule: "nid_size is at most 12",
            },
        ));
    };
    let len = hdr.payload_length as usize;
    if len > LNET_MAX_PAYLOAD {
        return Err(err(
            "lnet_hdr",
            "payload_length",
            KSOCK_MSG_HDR_SIZE + type_at(large) + 4,
            CaptureErrorKind::TooLarge {
                value: len as u64,
                max: LNET_MAX_PAYLOAD as u64,
            },
        ));
    }
    if b.len() < start + len {
        return Ok(None);
    }
    let item = Item::Lnet {
        ksm,
        hdr,
        payload: start..start + len,
    };
    Ok(Some((item, start + len)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndpi_connreq_and_hello_bytes_decode() {
        // Shapes of frames 4 and 6 of a real capture: connreq v1 then a V3 hello.
        let mut b = Vec::new();
        b.extend_from_slice(&LNET_PROTO_ACCEPTOR_MAGIC.to_le_bytes());
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&0x0002_0000_c0a8_5883u64.to_le_bytes());
        let mut s = SocklndStream::new();
        let (item, n) = s.next_item(&b).unwrap().unwrap();
        assert_eq!(n, 16);
        let Item::Connreq(c) = item else { panic!() };
        assert_eq!(c.acr_nid.to_string(), "192.168.88.131@tcp");
        // A hello in big-endian order.
        let mut h = Vec::new();
        h.extend_from_slice(&LNET_PROTO_MAGIC.to_be_bytes());
        h.extend_from_slice(&3u32.to_be_bytes());
        h.extend_from_slice(&0x0002_0000_c0a8_5884u64.to_be_bytes());
        h.extend_from_slice(&0x0002_0000_c0a8_5883u64.to_be_bytes());
        h.extend_from_slice(&[0; 32]);
        assert_eq!(s.next_item(&h[..40]).unwrap().map(|x| x.1), None);
        let (item, n) = s.next_item(&h).unwrap().unwrap();
        assert_eq!(n, 56);
        let Item::Hello(hl) = item else { panic!() };
        assert_eq!((hl.kshm_version, hl.order), (3, Endian::Big));
        assert_eq!(hl.kshm_src_nid.to_string(), "192.168.88.132@tcp");
    }

    #[test]
    fn oversized_payload_is_refused_before_waiting() {
        let mut s = SocklndStream::new();
        s.state = State::Messages {
            order: Endian::Little,
            large: false,
        };
        let mut b = vec![0u8; 96];
        b[..4].copy_from_slice(&KSOCK_MSG_LNET.to_le_bytes());
        b[24 + 24..24 + 28].copy_from_slice(&1u32.to_le_bytes());
        b[24 + 28..24 + 32].copy_from_slice(&u32::MAX.to_le_bytes());
        let e = s.next_item(&b).unwrap_err();
        assert_eq!(
            (e.structure, e.field, e.at),
            ("lnet_hdr", "payload_length", 52)
        );
    }
}
