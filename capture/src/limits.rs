//! Bounds of the capture reader: every length read from a capture is checked against one of
//! these before it sizes a buffer, and every per-flow store stops growing at one of them.

/// `LNET_MAX_PAYLOAD` (= `LNET_MTU`, 1 MiB): the largest `lnet_hdr.payload_length`.
pub const LNET_MAX_PAYLOAD: usize = 1 << 20;
/// `LNET_INTERFACES_NUM`: the most `kshm_nips` a V2/V3 hello may announce.
pub const LNET_INTERFACES_NUM: usize = 16;
/// Out-of-order bytes one TCP direction may hold before the hole is declared a gap.
pub const TCP_MAX_OOO_BYTES: usize = 4 << 20;
/// Out-of-order segments one TCP direction may hold before the hole is declared a gap.
pub const TCP_MAX_OOO_SEGMENTS: usize = 1024;
/// TCP directions followed at once; segments of further flows are reported and skipped.
pub const FLOWS_MAX: usize = 4096;
/// Requests remembered for their replies (answered ones too, for a resend's reply); the oldest
/// is forgotten first.
pub const PENDING_RPCS_MAX: usize = 65536;
/// Segment start positions one direction remembers to name the first frame of a message.
pub const FRAME_MAP_MAX: usize = 1024;
/// The largest TCP payload `CaptureWriter` puts in one segment (`WriterOptions::segment_size`,
/// `pcap --write --segment-size`): an IPv4 packet's 65 535 bytes less room for its headers.
pub const WRITER_MAX_SEGMENT: usize = 65000;
