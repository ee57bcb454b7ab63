//! tshark with the generated dissector shows every prepare request and reply, wherever TCP
//! segments end: at every segment size from 1 to 130 bytes (a boundary at every offset of
//! the 96-byte socklnd and LNet header, the bytes 52 to 56 of `payload_length` included) and
//! at random sizes, in both socklnd byte orders and header forms.
//!
//! Each capture holds one connection per segmentation, each from its own client address, so
//! one tshark run checks them all. Without tshark the tests fail under CI (`.ci/run` installs
//! it) and print `SKIP …` elsewhere (`require`).

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{ReplyView, RequestView};
use lustre_dne_intent_capture::{
    CaptureWriter, Directions, Handshake, Nid, WriterOptions, wireshark,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

mod require;

/// Requests and the reply answering each: every reply outcome the dissector names, a
/// big-endian Lustre message and the three intents.
const PAIRS: &[(&str, &str)] = &[
    ("mkdir_request", "mkdir_reply_complete"),
    ("mkdir_request_be", "mkdir_reply_be"),
    ("mkdir_request", "mkdir_reply_empty"),
    ("mkdir_request", "mkdir_reply_advisory"),
    ("mkdir_request", "mkdir_reply_eexist"),
    ("mkdir_request", "mkdir_reply_lov_truncated"),
    ("unlink_request", "unlink_reply"),
    ("rename_object_request", "rename_object_reply"),
];

fn vector(name: &str) -> Vec<u8> {
    let p =
        Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../testdata")).join(format!("{name}.bin"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// What tshark must show on each connection, in order: the intent of each message (a reply
/// shows its request's, so it was paired) and the outcome of each reply.
#[derive(Debug, Default, PartialEq, Eq)]
struct Shown {
    intents: Vec<String>,
    requests: usize,
    outcomes: Vec<String>,
}

/// The dissector's name for a reply's outcome: the codec's class of the reply
/// (`ReplyKind`, in its serde spelling).
fn outcome_name(v: &ReplyView<'_>) -> String {
    format!("{:?}", v.kind()).to_lowercase()
}

/// What one connection carrying `PAIRS` must show, from the codec's decoding of the vectors.
fn expected() -> Shown {
    let mut want = Shown::default();
    for (q, r) in PAIRS {
        let qb = vector(q);
        let req = RequestView::parse(&qb).unwrap();
        let name = req.opc().name().unwrap().to_string();
        let rb = vector(r);
        let rep = ReplyView::parse_for(&rb, &req.reply_context()).unwrap();
        want.intents.push(name.clone());
        want.intents.push(name);
        want.requests += 1;
        want.outcomes.push(outcome_name(&rep));
    }
    want
}

/// Connection `k`'s client address: 10.0.k/256.k%256, so tshark keeps the connections apart.
fn client_addr(k: usize) -> [u8; 4] {
    [10, 0, (k >> 8) as u8, k as u8]
}

/// One pcap of one connection per option set, each carrying `PAIRS` once.
fn capture(conns: &[WriterOptions]) -> Vec<u8> {
    let mut out = Vec::new();
    for (k, opts) in conns.iter().enumerate() {
        let a = client_addr(k);
        let opts = WriterOptions {
            client: (a, 1023, Nid::tcp(a, 0)),
            ..opts.clone()
        };
        let mut w = CaptureWriter::new(Vec::new(), opts).unwrap();
        for (q, r) in PAIRS {
            let xid = w.request(&vector(q)).unwrap();
            w.reply(xid, &vector(r)).unwrap();
        }
        let bytes = w.finish().unwrap();
        // The 24-byte pcap file header once, then every connection's records.
        out.extend_from_slice(if k == 0 { &bytes } else { &bytes[24..] });
    }
    out
}

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A scratch directory holding the generated dissector; `None` when tshark is not installed
/// (see `require`).
fn dissector_dir(test: &str) -> Option<TempDir> {
    if !require::tool("tshark", "tshark") {
        return None;
    }
    let d = std::env::temp_dir().join(format!("dne-intent-tshark-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("dne_prepare.lua"), wireshark::dissector()).unwrap();
    Some(TempDir(d))
}

/// What tshark with the dissector shows on each connection, by its client address.
fn shown(dir: &TempDir, cap: &[u8]) -> BTreeMap<String, Shown> {
    let path = dir.0.join("segments.pcap");
    std::fs::write(&path, cap).unwrap();
    let script = format!("lua_script:{}", dir.0.join("dne_prepare.lua").display());
    let out = Command::new("tshark")
        .arg("-r")
        .arg(&path)
        .args(["-X", &script, "-o", "tcp.desegment_tcp_streams:TRUE"])
        .args(["-o", "tcp.reassemble_out_of_order:TRUE"])
        .args(["-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"])
        .args(["-e", "ip.src", "-e", "ip.dst", "-e", "dne_prepare.opc_name"])
        .args([
            "-e",
            "dne_prepare.opc",
            "-e",
            "dne_prepare.outcome",
            "-e",
            "_ws.lua",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut by_conn: BTreeMap<String, Shown> = BTreeMap::new();
    let list = |c: &str| -> Vec<String> {
        c.split(',')
            .filter(|v| !v.is_empty())
            .map(String::from)
            .collect()
    };
    for line in text.lines() {
        let cols: Vec<&str> = line.split('\t').collect();
        assert_eq!(cols.len(), 6, "{line}");
        assert!(cols[5].is_empty(), "a Lua error: {line}");
        let client = if cols[0].starts_with("10.") {
            cols[0]
        } else {
            cols[1]
        };
        let s = by_conn.entry(client.to_string()).or_default();
        s.intents.extend(list(cols[2]));
        s.requests += list(cols[3]).len();
        s.outcomes.extend(list(cols[4]));
    }
    by_conn
}

/// Runs tshark on one connection per option set and requires every message on each.
fn every_message_shows(test: &str, conns: &[(String, WriterOptions)]) {
    let Some(dir) = dissector_dir(test) else {
        return;
    };
    let opts: Vec<WriterOptions> = conns.iter().map(|c| c.1.clone()).collect();
    let got = shown(&dir, &capture(&opts));
    let want = expected();
    let mut lost = Vec::new();
    for (k, (what, _)) in conns.iter().enumerate() {
        let a = client_addr(k);
        let client = format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
        let empty = Shown::default();
        let have = got.get(&client).unwrap_or(&empty);
        if have != &want {
            lost.push(format!(
                "{what} ({client}): {} of {} requests, {} of {} replies shown{}",
                have.requests,
                want.requests,
                have.outcomes.len(),
                want.outcomes.len(),
                if have.requests == want.requests && have.outcomes.len() == want.outcomes.len() {
                    format!(", but {have:?}")
                } else {
                    String::new()
                }
            ));
        }
    }
    assert!(
        lost.is_empty(),
        "{} of {} connections lose messages:\n{}",
        lost.len(),
        conns.len(),
        lost.join("\n")
    );
    println!(
        "{} connections: {} requests and {} replies each shown",
        conns.len(),
        want.requests,
        want.outcomes.len()
    );
}

/// The option sets of the segment-size sweep, named.
fn sweep(name: &str, base: WriterOptions) -> Vec<(String, WriterOptions)> {
    (1..=130)
        .map(|segment_size| {
            let opts = WriterOptions {
                segment_size,
                ..base.clone()
            };
            (format!("{name}, {segment_size}-byte segments"), opts)
        })
        .collect()
}

#[test]
fn every_segment_size_up_to_130_bytes_loses_no_message() {
    let mut conns = sweep("socklnd V3", WriterOptions::default());
    conns.extend(sweep(
        "no handshake",
        WriterOptions {
            handshake: Handshake::None,
            ..WriterOptions::default()
        },
    ));
    every_message_shows("sweep", &conns);
}

#[test]
fn every_segment_size_in_big_endian_and_large_nid_framing_loses_no_message() {
    // Wireshark's LNet dissector frames neither: the dissector's own framing shows them.
    let mut conns = sweep(
        "big-endian socklnd",
        WriterOptions {
            order: Endian::Big,
            ..WriterOptions::default()
        },
    );
    conns.extend(sweep(
        "socklnd V4",
        WriterOptions {
            handshake: Handshake::Socklnd(4),
            ..WriterOptions::default()
        },
    ));
    every_message_shows("sweep-be-v4", &conns);
}

#[test]
fn random_segment_sizes_lose_no_message() {
    let mut conns = Vec::new();
    for seed in 1..=12 {
        for max in [60, 200, 1448] {
            let opts = WriterOptions {
                segment_size: max,
                segment_seed: Some(seed),
                ..WriterOptions::default()
            };
            conns.push((format!("seed {seed}, 1 to {max} bytes"), opts.clone()));
            // Out of order and retransmitted too (tcp.reassemble_out_of_order is on).
            let disordered = WriterOptions {
                reorder: Directions::Both,
                duplicate: Directions::Both,
                ..opts
            };
            conns.push((
                format!("seed {seed}, 1 to {max} bytes, disordered"),
                disordered,
            ));
        }
    }
    every_message_shows("random", &conns);
}

/// What tshark's one-line summary shows on each connection: the Info column of each frame that
/// completes a message. Without `filter`, tshark builds no tree (the dissector's cheapest path);
/// with one, a hidden tree.
fn summary_shown(dir: &TempDir, cap: &[u8], filter: Option<&str>) -> BTreeMap<String, Shown> {
    let path = dir.0.join("summary.pcap");
    std::fs::write(&path, cap).unwrap();
    let script = format!("lua_script:{}", dir.0.join("dne_prepare.lua").display());
    let out = Command::new("tshark")
        .arg("-r")
        .arg(&path)
        .args(["-X", &script, "-o", "tcp.desegment_tcp_streams:TRUE"])
        .args(filter.map(|f| ["-Y", f]).iter().flatten())
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        out.status.success() && !text.contains("Lua Error"),
        "{text}"
    );
    let mut by_conn: BTreeMap<String, Shown> = BTreeMap::new();
    for line in text.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        let (Some(open), Some(&"DNE")) = (line.rfind(" ["), cols.get(5)) else {
            continue;
        };
        let client = if cols[2].starts_with("10.") {
            cols[2]
        } else {
            cols[4]
        };
        let s = by_conn.entry(client.to_string()).or_default();
        let shown: Vec<&str> = line[open + 2..line.len() - 1].split(' ').collect();
        s.intents.push(shown[0].to_string());
        match shown[..] {
            [_] => s.requests += 1,
            [_, outcome] => s.outcomes.push(outcome.to_string()),
            _ => panic!("{line}"),
        }
    }
    by_conn
}

/// Connections in segments of at most 130 bytes (V3, and every seventh size in big-endian
/// socklnd and V4) and one in 1448-byte segments.
fn summary_connections() -> Vec<(String, WriterOptions)> {
    let mut conns = sweep("socklnd V3", WriterOptions::default());
    for (name, base) in [
        ("big-endian socklnd", Endian::Big, Handshake::Socklnd(3)),
        ("socklnd V4", Endian::Little, Handshake::Socklnd(4)),
    ]
    .map(|(n, order, handshake)| {
        (
            n,
            WriterOptions {
                order,
                handshake,
                ..WriterOptions::default()
            },
        )
    }) {
        conns.extend(sweep(name, base).into_iter().step_by(7));
    }
    conns.push(("1448-byte segments".into(), WriterOptions::default()));
    conns
}

/// Every message of `summary_connections` is named, in order, by the summary line of the frame
/// that completes it (no frame completes two), as `filter` (if any) selects the lines.
fn summary_names_every_message(test: &str, filter: Option<&str>) {
    let conns = summary_connections();
    let Some(dir) = dissector_dir(test) else {
        return;
    };
    let opts: Vec<WriterOptions> = conns.iter().map(|c| c.1.clone()).collect();
    let got = summary_shown(&dir, &capture(&opts), filter);
    let want = expected();
    let empty = Shown::default();
    for (k, (what, _)) in conns.iter().enumerate() {
        let a = client_addr(k);
        let client = format!("{}.{}.{}.{}", a[0], a[1], a[2], a[3]);
        assert_eq!(got.get(&client).unwrap_or(&empty), &want, "{what}");
    }
}

#[test]
fn the_summary_line_names_every_message() {
    summary_names_every_message("summary", None);
}

/// `-Y dne_prepare` references the protocol and none of its fields: the framing's direct path
/// adds the protocol's item alone, and every message's frame must still match.
#[test]
fn a_filter_on_the_protocol_alone_shows_every_message() {
    summary_names_every_message("filter", Some("dne_prepare"));
}

/// A flags member's bit names in the tree: lowest bit first, as `dne-intent decode` prints
/// them, and nothing after the value when no bit is set.
#[test]
fn flag_names_are_in_bit_order() {
    let Some(dir) = dissector_dir("flags") else {
        return;
    };
    let path = dir.0.join("flags.pcap");
    std::fs::write(&path, capture(&[WriterOptions::default()])).unwrap();
    let script = format!("lua_script:{}", dir.0.join("dne_prepare.lua").display());
    let out = Command::new("tshark")
        .arg("-r")
        .arg(&path)
        .args(["-X", &script, "-V"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // mkdir_reply_complete: every result known.
    assert!(
        lines.contains(&"mcpp_valid: 0x0000003f PATTR|DEF_ACL|PIN|LMV|LOV|DEF_LMV"),
        "{text}"
    );
    assert!(
        lines.contains(&"lock_flags: 0x00001000 HAS_INTENT"),
        "{text}"
    );
    // A reply's lock_flags of 0: the value alone.
    assert!(lines.contains(&"lock_flags: 0x00000000"), "{text}");
    assert!(
        !text.lines().any(|l| l.ends_with(' ')),
        "a trailing space:\n{text}"
    );
}
