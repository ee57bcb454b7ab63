//! Capture files (pcap, pcapng: crate `pcap-file`) and link layers down to TCP (crate
//! `etherparse`): Ethernet with VLAN tags, Linux cooked capture, raw IP and BSD loopback.

use super::{CaptureError, CaptureErrorKind};
use etherparse::{NetSlice, SlicedPacket, TransportSlice};
use pcap_file::DataLink;
use pcap_file::pcap::PcapReader;
use pcap_file::pcapng::blocks::interface_description::{
    InterfaceDescriptionBlock, InterfaceDescriptionOption,
};
use pcap_file::pcapng::{Block, PcapNgReader};
use std::io::Read;
use std::net::{IpAddr, SocketAddr};
use std::time::Duration;

/// One TCP segment of a frame.
#[derive(Debug)]
pub(crate) struct Segment<'a> {
    pub src: SocketAddr,
    pub dst: SocketAddr,
    pub seq: u32,
    pub syn: bool,
    pub fin: bool,
    pub rst: bool,
    pub payload: &'a [u8],
}

/// A pcap or pcapng reader.
pub(crate) enum Source<R: Read> {
    Pcap(PcapReader<R>),
    PcapNg(PcapNgReader<R>),
}

const PCAPNG_SHB: [u8; 4] = [0x0a, 0x0d, 0x0d, 0x0a];

impl<R: Read> Source<R> {
    /// Opens a capture; `magic` is its first four bytes, which `reader` still yields.
    // Errors are rare and become events whole; boxing them would buy nothing.
    #[allow(clippy::result_large_err)]
    pub(crate) fn open(magic: [u8; 4], reader: R) -> Result<Self, CaptureError> {
        let container = |e: pcap_file::PcapError| {
            CaptureError::new(
                0,
                "capture file",
                "header",
                0,
                CaptureErrorKind::Container(e.to_string()),
            )
        };
        if magic == PCAPNG_SHB {
            PcapNgReader::new(reader)
                .map(Source::PcapNg)
                .map_err(container)
        } else {
            PcapReader::new(reader).map(Source::Pcap).map_err(container)
        }
    }

    /// Copies the next frame's bytes into `data`; returns its timestamp and link type.
    /// `None` at the end of the file. `frame` is the number the frame will get (for errors).
    pub(crate) fn next_frame(
        &mut self,
        frame: u64,
        data: &mut Vec<u8>,
    ) -> Option<Result<(Duration, DataLink), CaptureError>> {
        let container = |e: pcap_file::PcapError| {
            CaptureError::new(
                frame,
                "capture file",
                "packet record",
                0,
                CaptureErrorKind::Container(e.to_string()),
            )
        };
        match self {
            Source::Pcap(r) => {
                let link = r.header().datalink;
                let p = match r.next_packet()? {
                    Ok(p) => p,
                    Err(e) => return Some(Err(container(e))),
                };
                data.clear();
                data.extend_from_slice(&p.data);
                Some(Ok((p.timestamp, link)))
            }
            Source::PcapNg(r) => loop {
                let block = match r.next_block()? {
                    Ok(b) => b,
                    Err(e) => return Some(Err(container(e))),
                };
                // The block borrows the reader: copy the bytes, then look the interface up.
                let (ts, interface) = match &block {
                    Block::EnhancedPacket(p) => {
                        data.clear();
                        data.extend_from_slice(&p.data);
                        (p.timestamp, p.interface_id as usize)
                    }
                    Block::SimplePacket(p) => {
                        data.clear();
                        data.extend_from_slice(&p.data);
                        (Duration::ZERO, 0)
                    }
                    Block::Packet(p) => {
                        data.clear();
                        data.extend_from_slice(&p.data);
                        // Obsolete packet block: the default microsecond units.
                        (
                            Duration::from_micros(p.timestamp),
                            usize::from(p.interface_id),
                        )
                    }
                    _ => continue,
                };
                let idb = r.interfaces().get(interface);
                let link = idb.map(|i| i.linktype);
                // pcap-file hands the raw timestamp units over as nanoseconds.
                let ts = idb.map_or(ts, |i| rescale(ts, i));
                return Some(link.map(|l| (ts, l)).ok_or_else(|| {
                    CaptureError::new(
                        frame,
                        "pcapng packet block",
                        "interface_id",
                        0,
                        CaptureErrorKind::Container("no interface description block".into()),
                    )
                }));
            },
        }
    }
}

/// A pcapng timestamp in the interface's `if_tsresol` units (default microseconds).
fn rescale(raw: Duration, idb: &InterfaceDescriptionBlock<'_>) -> Duration {
    let units = raw.as_nanos();
    let resol = idb
        .options
        .iter()
        .find_map(|o| match o {
            InterfaceDescriptionOption::IfTsResol(r) => Some(*r),
            _ => None,
        })
        .unwrap_or(6);
    let per_second: u128 = if resol & 0x80 == 0 {
        10u128.checked_pow(u32::from(resol)).unwrap_or(0)
    } else {
        1u128.checked_shl(u32::from(resol & 0x7f)).unwrap_or(0)
    };
    if per_second == 0 {
        return raw;
    }
    let secs = units / per_second;
    // A resolution finer than 2^-98 s would overflow the product: keep whole seconds then.
    let nanos = ((units % per_second).checked_mul(1_000_000_000)).map_or(0, |n| n / per_second);
    Duration::new(u64::try_from(secs).unwrap_or(u64::MAX), nanos as u32)
}

fn sliced(link: DataLink, data: &[u8]) -> Result<Option<SlicedPacket<'_>>, String> {
    let r = match link {
        DataLink::ETHERNET => SlicedPacket::from_ethernet(data),
        DataLink::LINUX_SLL => SlicedPacket::from_linux_sll(data),
        DataLink::RAW | DataLink::IPV4 | DataLink::IPV6 => SlicedPacket::from_ip(data),
        // BSD loopback: a 4-byte address family in host order, then IP.
        DataLink::NULL | DataLink::LOOP => match data.get(4..) {
            Some(ip) => SlicedPacket::from_ip(ip),
            None => return Err("shorter than the 4-byte loopback header".into()),
        },
        _ => return Ok(None),
    };
    r.map(Some).map_err(|e| e.to_string())
}

/// The TCP segment of a frame: `Ok(None)` for frames that carry none (ARP, UDP, IP
/// fragments, link types without IP), an error for a frame whose headers are malformed.
#[allow(clippy::result_large_err)]
pub(crate) fn tcp_segment(
    frame: u64,
    link: DataLink,
    data: &[u8],
) -> Result<Option<Segment<'_>>, CaptureError> {
    let bad = |what: String| {
        CaptureError::new(frame, "frame", "headers", 0, CaptureErrorKind::Link(what))
    };
    let Some(p) = sliced(link, data).map_err(bad)? else {
        return Ok(None);
    };
    let (src, dst): (IpAddr, IpAddr) = match &p.net {
        Some(NetSlice::Ipv4(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        Some(NetSlice::Ipv6(ip)) => (
            ip.header().source_addr().into(),
            ip.header().destination_addr().into(),
        ),
        _ => return Ok(None),
    };
    let Some(TransportSlice::Tcp(t)) = &p.transport else {
        return Ok(None);
    };
    Ok(Some(Segment {
        src: SocketAddr::new(src, t.source_port()),
        dst: SocketAddr::new(dst, t.destination_port()),
        seq: t.sequence_number(),
        syn: t.syn(),
        fin: t.fin(),
        rst: t.rst(),
        payload: t.payload(),
    }))
}
