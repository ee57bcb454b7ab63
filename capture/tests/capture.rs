//! Captures made from the message vectors decode back to exactly those vectors, in every
//! segmentation, byte order and handshake; a real capture decodes with tshark's opcodes; no
//! damaged capture makes the reader panic.

use lustre_dne_intent::Endian;
use lustre_dne_intent_capture::{
    CaptureReader, CaptureWriter, Directions, Event, Handshake, LnetMsgType, Prepare, WriterOptions,
};
use std::path::Path;

/// Every message vector, each request followed by the replies that answer it.
const RPCS: &[(&str, &[&str])] = &[
    (
        "mkdir_request",
        &[
            "mkdir_reply_complete",
            "mkdir_reply_absent",
            "mkdir_reply_advisory",
            "mkdir_reply_eexist",
            "mkdir_reply_empty",
            "mkdir_reply_lov_truncated",
        ],
    ),
    ("mkdir_request_be", &["mkdir_reply_be"]),
    ("mkdir_request_partial", &[]),
    ("rename_object_request", &["rename_object_reply"]),
    ("unlink_request", &["unlink_reply"]),
];

fn vector(name: &str) -> Vec<u8> {
    let p =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata")).join(format!("{name}.bin"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn the_list_covers_every_message_vector() {
    let dir = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata"));
    let mut on_disk: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".bin") && !n.starts_with("xattr_"))
        .map(|n| n.trim_end_matches(".bin").to_string())
        .collect();
    on_disk.sort();
    let mut listed: Vec<String> = RPCS
        .iter()
        .flat_map(|(q, rs)| std::iter::once(*q).chain(rs.iter().copied()))
        .map(String::from)
        .collect();
    listed.sort();
    assert_eq!(listed, on_disk);
}

fn make(opts: WriterOptions) -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let mut w = CaptureWriter::new(Vec::new(), opts).unwrap();
    let mut sent = Vec::new();
    // One request per reply, as RPCs go; a request without a reply vector goes alone.
    for (req, replies) in RPCS {
        let q = vector(req);
        if replies.is_empty() {
            w.request(&q).unwrap();
            sent.push((req.to_string(), q.clone()));
        }
        for r in *replies {
            let xid = w.request(&q).unwrap();
            sent.push((req.to_string(), q.clone()));
            let b = vector(r);
            w.reply(xid, &b).unwrap();
            sent.push((r.to_string(), b));
        }
    }
    (w.finish().unwrap(), sent)
}

/// Reads a capture; returns the messages' payloads and whether each prepare view validated.
fn read(cap: &[u8]) -> (Vec<Vec<u8>>, Vec<bool>, Vec<String>) {
    let mut payloads = Vec::new();
    let mut valid = Vec::new();
    let mut other = Vec::new();
    for ev in CaptureReader::new(cap).unwrap() {
        match ev {
            Event::Message(m) => {
                assert_eq!(m.hdr.msg_type, LnetMsgType::PUT);
                valid.push(match m.prepare() {
                    Some(Prepare::Request(_, r)) => r.is_ok(),
                    Some(Prepare::Reply(_, r)) => r.is_ok(),
                    // Not validated against a request: these captures always hold it.
                    Some(Prepare::UnpairedReply(_)) | None => false,
                });
                payloads.push(m.payload.clone());
            }
            Event::Hello { .. } | Event::Connreq { .. } => {}
            e => other.push(format!("{e:?}")),
        }
    }
    (payloads, valid, other)
}

#[test]
fn captures_of_the_vectors_decode_to_exactly_the_vectors() {
    let mut cases = 0;
    for order in [Endian::Little, Endian::Big] {
        for handshake in [
            Handshake::None,
            Handshake::TcpOnly,
            Handshake::Socklnd(2),
            Handshake::Socklnd(3),
            Handshake::Socklnd(4),
        ] {
            // Fixed sizes, and sizes drawn from 1 to the maximum with a seed.
            for (segment_size, segment_seed) in [
                (1, None),
                (7, None),
                (100, None),
                (100, Some(7)),
                (536, None),
                (1448, None),
                (1448, Some(11)),
                (9000, None),
            ] {
                for (reorder, duplicate) in
                    [(false, false), (true, false), (false, true), (true, true)]
                {
                    // Without a SYN the stream starts at the first segment captured, so bytes
                    // before it that arrive later are not recoverable (tshark does the same).
                    if reorder && handshake == Handshake::None {
                        continue;
                    }
                    let both = |on| {
                        if on {
                            Directions::Both
                        } else {
                            Directions::Neither
                        }
                    };
                    let opts = WriterOptions {
                        segment_size,
                        segment_seed,
                        order,
                        handshake,
                        reorder: both(reorder),
                        duplicate: both(duplicate),
                        ..WriterOptions::default()
                    };
                    let (cap, sent) = make(opts);
                    let (got, valid, other) = read(&cap);
                    let what = format!(
                        "{order:?} {handshake:?} seg {segment_size} seed {segment_seed:?} reorder {reorder} dup {duplicate}"
                    );
                    assert!(other.is_empty(), "{what}: {other:?}");
                    assert_eq!(got.len(), sent.len(), "{what}");
                    for ((name, want), have) in sent.iter().zip(&got) {
                        assert!(want == have, "{what}: {name} differs");
                    }
                    // Every prepare message validates, replies against their paired request.
                    assert!(valid.iter().all(|&v| v), "{what}: {valid:?}");
                    cases += 1;
                }
            }
        }
    }
    assert_eq!(cases, 2 * 5 * 8 * 4 - 2 * 8 * 2);
}

#[test]
fn large_nid_headers_carry_the_nids() {
    let opts = WriterOptions {
        handshake: Handshake::Socklnd(4),
        ..WriterOptions::default()
    };
    let (cap, _) = make(opts);
    let mut hellos = Vec::new();
    let mut nids = Vec::new();
    for ev in CaptureReader::new(&cap[..]).unwrap() {
        match ev {
            Event::Hello { hello, .. } => {
                hellos.push((hello.kshm_version, hello.kshm_src_nid.to_string()))
            }
            Event::Message(m) => nids.push((m.hdr.src_nid.to_string(), m.hdr.dest_nid.to_string())),
            _ => {}
        }
    }
    assert_eq!(
        hellos,
        [
            (4, "192.168.0.1@tcp".to_string()),
            (4, "192.168.0.2@tcp".to_string())
        ]
    );
    assert_eq!(
        nids[0],
        ("192.168.0.1@tcp".into(), "192.168.0.2@tcp".into())
    );
    assert_eq!(
        nids[1],
        ("192.168.0.2@tcp".into(), "192.168.0.1@tcp".into())
    );
}

/// What tshark 4.0.17 shows for the nDPI capture (`tshark -r ndpi_lustre.pcapng -T fields -e
/// frame.number -e lnet.msg_type -e lnet.ptl_index -e lustre.ptlrpc_body.pb_opc -e
/// lustre.ptlrpc_body.pb_type`): frame, LNet type, portal, opcode, pb_type.
/// (frame, LNet type, portal, (pb_opc, pb_type)).
type Shown = (u64, u32, Option<u32>, Option<(u32, u32)>);

const NDPI_TSHARK: &[Shown] = &[
    (9, 1, Some(26), Some((250, 4711))),
    (10, 0, None, None),
    (12, 1, Some(25), Some((250, 4713))),
    (13, 1, Some(26), Some((101, 4711))),
    (14, 1, Some(25), Some((101, 4713))),
    (15, 1, Some(26), Some((501, 4711))),
    (16, 1, Some(25), Some((501, 4713))),
    (17, 1, Some(26), Some((101, 4711))),
    (18, 1, Some(25), Some((101, 4713))),
    (19, 1, Some(26), Some((501, 4711))),
    (20, 1, Some(25), Some((501, 4713))),
    (21, 1, Some(26), Some((503, 4711))),
    (22, 1, Some(26), Some((502, 4711))),
];

#[test]
fn the_ndpi_capture_decodes_with_tsharks_opcodes() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/ndpi_lustre.pcapng");
    let cap = std::fs::read(p).unwrap();
    let mut got = Vec::new();
    let mut socklnd = Vec::new();
    for ev in CaptureReader::new(&cap[..]).unwrap() {
        match ev {
            Event::Message(m) => {
                let rpc = m.rpc.as_ref().map(|r| {
                    let r = r.as_ref().unwrap();
                    (r.ptlrpc.opc, r.ptlrpc.msg_type.0)
                });
                got.push((m.frame, m.hdr.msg_type.0, m.hdr.ptl_index(), rpc));
            }
            Event::Connreq { frame, connreq, .. } => socklnd.push((
                frame,
                format!("connreq v{} {}", connreq.acr_version, connreq.acr_nid),
            )),
            Event::Hello { frame, hello, .. } => socklnd.push((
                frame,
                format!(
                    "hello V{} {} > {}",
                    hello.kshm_version, hello.kshm_src_nid, hello.kshm_dst_nid
                ),
            )),
            Event::Skipped { .. } | Event::Noop { .. } => {}
            e => panic!("unexpected {e:?}"),
        }
    }
    assert_eq!(got, NDPI_TSHARK);
    // Frames 4, 6 and 8: 16 bytes, then 56 and 56 (tshark shows them only as TCP payload).
    assert_eq!(
        socklnd,
        [
            (4, "connreq v1 192.168.88.131@tcp".to_string()),
            (
                6,
                "hello V3 192.168.88.132@tcp > 192.168.88.131@tcp".to_string()
            ),
            (
                8,
                "hello V3 192.168.88.131@tcp > 192.168.88.132@tcp".to_string()
            ),
        ]
    );
}

#[test]
fn damaged_captures_never_panic_and_name_the_frame() {
    let (cap, _) = make(WriterOptions {
        segment_size: 300,
        ..WriterOptions::default()
    });
    // Every truncation.
    for n in (0..cap.len()).step_by(7) {
        if let Ok(r) = CaptureReader::new(&cap[..n]) {
            r.count();
        }
    }
    // Byte damage at many places, including inside the socklnd and LNet headers.
    let mut errors = 0;
    for at in (24..cap.len()).step_by(13) {
        for x in [0xff, 0x80, 0x01] {
            let mut c = cap.clone();
            c[at] ^= x;
            if let Ok(r) = CaptureReader::new(&c[..]) {
                for ev in r {
                    if let Event::Error(e) = ev {
                        assert!(e.frame > 0 || e.structure == "capture file", "{e}");
                        errors += 1;
                    }
                }
            }
        }
    }
    assert!(errors > 0);
}

#[test]
fn a_lost_segment_is_a_gap_and_later_messages_still_decode() {
    let (cap, sent) = make(WriterOptions {
        segment_size: 200,
        handshake: Handshake::Socklnd(3),
        ..WriterOptions::default()
    });
    // Drop the 12th frame record of the pcap (16-byte record header + data).
    let mut out = cap[..24].to_vec();
    let mut at = 24;
    let mut n = 0;
    while at + 16 <= cap.len() {
        let len = u32::from_le_bytes(cap[at + 8..at + 12].try_into().unwrap()) as usize;
        n += 1;
        if n != 12 {
            out.extend_from_slice(&cap[at..at + 16 + len]);
        }
        at += 16 + len;
    }
    let mut gaps = 0;
    let mut decoded = Vec::new();
    for ev in CaptureReader::new(&out[..]).unwrap() {
        match ev {
            Event::Gap { missing, .. } => {
                assert_eq!(missing, 200);
                gaps += 1
            }
            Event::Message(m) => decoded.push(m.payload.clone()),
            _ => {}
        }
    }
    assert_eq!(gaps, 1);
    // One message is lost with the segment; every other arrives whole.
    assert_eq!(decoded.len(), sent.len() - 1);
    assert!(decoded.iter().all(|d| sent.iter().any(|(_, s)| s == d)));
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// Any bytes after a valid pcap file header, or a valid capture with any bytes spliced
    /// into it, are read without a panic.
    #[test]
    fn arbitrary_bytes_never_panic(
        tail in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..4000),
        at in 0usize..4000,
    ) {
        let (cap, _) = make(WriterOptions { segment_size: 500, ..WriterOptions::default() });
        let mut a = cap[..24].to_vec();
        a.extend_from_slice(&tail);
        if let Ok(r) = CaptureReader::new(&a[..]) {
            r.count();
        }
        // The same bytes as a TCP stream after the handshake, and as a Lustre payload.
        for version in [3, 4] {
            let mut w = CaptureWriter::new(Vec::new(), WriterOptions {
                segment_size: 97,
                handshake: Handshake::Socklnd(version),
                ..WriterOptions::default()
            }).unwrap();
            w.raw(true, &tail).unwrap();
            w.request(&tail).unwrap();
            w.raw(false, &tail).unwrap();
            w.reply(0x40, &tail).unwrap();
            let c = w.finish().unwrap();
            let n = CaptureReader::new(&c[..]).unwrap().count();
            proptest::prop_assert!(n >= 2);
        }
        let at = 24 + at % (cap.len() - 24);
        let mut b = cap[..at].to_vec();
        b.extend_from_slice(&tail);
        b.extend_from_slice(&cap[at..]);
        if let Ok(r) = CaptureReader::new(&b[..]) {
            r.count();
        }
    }
}

/// Rewrites every frame of an IPv4 capture as Ethernet + VLAN tag + IPv6, keeping the TCP
/// ports, sequence numbers, SYN flags and payloads.
fn as_vlan_ipv6(cap: &[u8]) -> Vec<u8> {
    use etherparse::{PacketBuilder, SlicedPacket, TransportSlice, VlanId};
    use pcap_file::pcap::{PcapPacket, PcapReader, PcapWriter};
    let mut r = PcapReader::new(cap).unwrap();
    let mut w = PcapWriter::with_header(Vec::new(), r.header()).unwrap();
    while let Some(p) = r.next_packet() {
        let p = p.unwrap();
        let s = SlicedPacket::from_ethernet(&p.data).unwrap();
        let Some(TransportSlice::Tcp(t)) = s.transport else {
            panic!("not TCP")
        };
        let ip = |last: u8| {
            let mut a = [0u8; 16];
            a[..2].copy_from_slice(&[0xfd, 0x00]);
            a[15] = last;
            a
        };
        let (a, b) = if t.source_port() == 988 {
            (ip(2), ip(1))
        } else {
            (ip(1), ip(2))
        };
        let mut bld = PacketBuilder::ethernet2([2; 6], [4; 6])
            .single_vlan(VlanId::try_new(100).unwrap())
            .ipv6(a, b, 64)
            .tcp(
                t.source_port(),
                t.destination_port(),
                t.sequence_number(),
                65535,
            );
        if t.syn() {
            bld = bld.syn();
        }
        let mut out = Vec::new();
        bld.write(&mut out, t.payload()).unwrap();
        let len = out.len() as u32;
        w.write_packet(&PcapPacket::new(p.timestamp, len, &out))
            .unwrap();
    }
    w.into_writer()
}

#[test]
fn vlan_tagged_ipv6_frames_decode_the_same() {
    let (cap, sent) = make(WriterOptions {
        segment_size: 700,
        ..WriterOptions::default()
    });
    let v6 = as_vlan_ipv6(&cap);
    let (got, valid, other) = read(&v6);
    assert!(other.is_empty(), "{other:?}");
    assert_eq!(got, sent.into_iter().map(|(_, b)| b).collect::<Vec<_>>());
    assert!(valid.iter().all(|&v| v));
    let first = CaptureReader::new(&v6[..]).unwrap().find_map(|e| match e {
        Event::Message(m) => Some(m.flow.src.to_string()),
        _ => None,
    });
    assert_eq!(first.as_deref(), Some("[fd00::1]:1023"));
}

/// The records `pcap --json` prints read back with serde to the same values, for every event
/// of the real capture and of captures of every vector in both byte orders, with the fields
/// tshark shows for the real one (frame 6's hello, whose incarnation is above 2^53).
#[cfg(feature = "serde")]
#[test]
fn event_records_round_trip_through_json() {
    use lustre_dne_intent_capture::EventRecord;
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/ndpi_lustre.pcapng");
    let mut caps = vec![std::fs::read(p).unwrap()];
    for order in [Endian::Little, Endian::Big] {
        caps.push(
            make(WriterOptions {
                order,
                ..WriterOptions::default()
            })
            .0,
        );
    }
    let mut n = 0;
    for (k, cap) in caps.iter().enumerate() {
        let mut reader = CaptureReader::new(&cap[..]).unwrap();
        while let Some(ev) = reader.next() {
            let t0 = reader.first_time().unwrap_or_default();
            let r = EventRecord::of(&ev, t0);
            let text = serde_json::to_string(&r).unwrap();
            let back: EventRecord = serde_json::from_str(&text).unwrap();
            assert_eq!(back, r, "{text}");
            n += 1;
            if k == 0 && matches!(ev, Event::Hello { frame: 6, .. }) {
                let v: serde_json::Value = serde_json::from_str(&text).unwrap();
                assert_eq!(v["event"], "hello");
                assert_eq!(v["kshm_src_nid"], "192.168.88.132@tcp");
                // 0x17f08208a059eef0 is above 2^53: as a JSON number, jq would round it.
                assert_eq!(v["kshm_src_incarnation"], "0x17f08208a059eef0");
            }
            if let EventRecord::Message(m) = &r {
                // Every prepare message's body is the value `decode --json` prints.
                if m.body.is_some() {
                    assert!(m.prepare_error.is_none() && m.rpc.is_some());
                }
            }
        }
    }
    assert!(n > 40, "{n} events");
    // An unknown field is refused, naming it.
    let e = serde_json::from_str::<EventRecord>(
        r#"{"event":"noop","frame":1,"src":"1.2.3.4:988","dst":"1.2.3.5:1022","extra":1}"#,
    );
    assert!(e.is_err());
}

/// A second reply to one xid (a resend's) is paired and counted; a reply whose request the
/// capture missed is reported as an unpaired prepare reply, classified; the link carries what a
/// monitor needs from the request.
#[test]
fn every_reply_is_classified_paired_or_not() {
    use lustre_dne_intent::intent::ReplyKind;
    use lustre_dne_intent::wire::LuFid;
    let mut w = CaptureWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    let xid = w.request(&vector("mkdir_request")).unwrap();
    w.reply(xid, &vector("mkdir_reply_complete")).unwrap();
    w.reply(xid, &vector("mkdir_reply_eexist")).unwrap();
    // The enqueue failed: `pb_status` (buffer 0 at 72, the status 20 bytes in) is -EEXIST.
    let mut failed = vector("mkdir_reply_complete");
    failed[92..96].copy_from_slice(&(-17i32).to_le_bytes());
    w.reply(xid, &failed).unwrap();
    // Never asked in this capture.
    w.reply(xid + 0x40, &vector("unlink_reply")).unwrap();
    let cap = w.finish().unwrap();
    let mut seen = Vec::new();
    for ev in CaptureReader::new(&cap[..]).unwrap() {
        let Event::Message(m) = ev else { continue };
        match m.prepare() {
            Some(Prepare::Request(..)) => seen.push("request".to_string()),
            Some(Prepare::Reply(op, Ok(v))) => {
                let q = m.request.as_ref().unwrap();
                assert_eq!(q.xid, xid);
                assert_eq!(q.requester.to_string(), "192.168.0.1@tcp");
                assert_eq!(q.server.to_string(), "192.168.0.2@tcp");
                assert_eq!(q.name(), Some(&b"newdir"[..]));
                assert_eq!(q.fid(), Some(LuFid::new(0x2_0000_0401, 0x1, 0)));
                let body = q.body().unwrap();
                assert_eq!((body.fsuid, body.fsgid), (500, 500));
                assert_eq!(q.groups(), Some(&[100, 600, 700][..]));
                seen.push(format!(
                    "{} {:?} after {}",
                    op.opc_name(),
                    v.kind(),
                    q.earlier_replies
                ));
            }
            Some(Prepare::Reply(op, Err(e))) => {
                assert_eq!(
                    e.to_string(),
                    "ptlrpc_body.pb_status at offset 92: the enqueue failed with EEXIST (status -17) [W7.1]"
                );
                seen.push(format!(
                    "{} {:?} after {}",
                    op.opc_name(),
                    ReplyKind::of_refusal(&e),
                    m.request.as_ref().unwrap().earlier_replies
                ));
            }
            Some(Prepare::UnpairedReply(v)) => {
                assert!(m.request.is_none());
                seen.push(format!("unpaired {:?}", v.kind()));
            }
            other => panic!("frame {}: {other:?}", m.frame),
        }
    }
    assert_eq!(
        seen,
        [
            "request",
            "IT_DNE_CREATE_PREPARE Complete after 0",
            "IT_DNE_CREATE_PREPARE Status after 1",
            "IT_DNE_CREATE_PREPARE Error after 2",
            "unpaired Partial",
        ]
    );
    assert_eq!(
        ReplyKind::of(&Err(
            lustre_dne_intent::intent::ReplyView::parse(&[0u8; 8]).unwrap_err()
        )),
        ReplyKind::Invalid
    );
}
