//! `dne-intent pcap` (text, JSON Lines, --stats, --write) and `dne-intent wireshark-lua`
//! checked with tshark: the generated dissector must show the values the codec decodes.
//!
//! Without tshark the tshark tests fail under CI (`.ci/run` installs it) and print `SKIP …`
//! elsewhere (`require`); they print `checked N field values … against tshark` when they ran.

use lustre_dne_intent::intent::{MliBuf, PrepResult, ReplyView, RequestView};
use std::path::{Path, PathBuf};
use std::process::Command;

mod require;

const BIN: &str = env!("CARGO_BIN_EXE_dne-intent");

/// Requests and the reply answering each, in capture order (frames 7, 8, 9, … with the
/// handshake).
const PAIRS: &[(&str, &str)] = &[
    ("mkdir_request", "mkdir_reply_complete"),
    ("mkdir_request_be", "mkdir_reply_be"),
    ("mkdir_request", "mkdir_reply_empty"),
    ("mkdir_request", "mkdir_reply_advisory"),
    ("mkdir_request", "mkdir_reply_lov_truncated"),
    ("unlink_request", "unlink_reply"),
    ("rename_object_request", "rename_object_reply"),
];

struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tmpdir(test: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("dne-intent-pcap-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}

fn vector_path(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../testdata/{name}.bin"))
        .to_string_lossy()
        .into_owned()
}

fn run(args: &[&str]) -> String {
    let out = Command::new(BIN).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn write_capture(dir: &Path, extra: &[&str]) -> String {
    let cap = dir.join("dne.pcap").to_string_lossy().into_owned();
    let mut args = vec!["pcap", "--write", &cap];
    args.extend_from_slice(extra);
    let paths: Vec<String> = PAIRS
        .iter()
        .flat_map(|(q, r)| [vector_path(q), vector_path(r)])
        .collect();
    args.extend(paths.iter().map(String::as_str));
    run(&args);
    cap
}

#[test]
fn json_lines_carry_lustre_field_names_and_the_decoded_bodies() {
    let dir = tmpdir("json");
    for extra in [
        &[][..],
        &["--big-endian", "--segment-size", "100"],
        &["--socklnd-version", "4"],
    ] {
        let cap = write_capture(&dir.0, extra);
        let out = run(&["pcap", "--json", &cap]);
        let msgs: Vec<serde_json::Value> = out
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .filter(|v: &serde_json::Value| v["event"] == "message")
            .collect();
        assert_eq!(msgs.len(), 2 * PAIRS.len(), "{extra:?}");
        for (k, (q, r)) in PAIRS.iter().enumerate() {
            let (req, rep) = (&msgs[2 * k], &msgs[2 * k + 1]);
            let (qh, rh) = (&req["lnet_hdr"], &rep["lnet_hdr"]);
            let qb = &req["rpc"]["ptlrpc_body"];
            assert_eq!(qb["pb_opc"], 101);
            assert_eq!(qb["pb_type"]["name"], "PTL_RPC_MSG_REQUEST");
            assert_eq!(req["rpc"]["opc_name"], "LDLM_ENQUEUE");
            let it = req["rpc"]["it_opc"]["name"].as_str().unwrap();
            assert!(
                it.starts_with("IT_DNE_") && it.ends_with("_PREPARE"),
                "{it}"
            );
            assert_eq!(qh["ptl_index"], 24);
            assert_eq!(rh["ptl_index"], 4);
            assert_eq!(qh["src_nid"], "192.168.0.1@tcp");
            assert_eq!(rh["src_nid"], "192.168.0.2@tcp");
            assert_eq!(qh["type"], "LNET_MSG_PUT");
            // The xid a reply is matched by: a "0x…" string like every opaque 64-bit value.
            assert!(qh["match_bits"].as_str().unwrap().starts_with("0x"), "{qh}");
            assert_eq!(qh["match_bits"], rh["match_bits"]);
            assert_eq!(rep["request_frame"], req["frame"]);
            assert!(rep["outcome"].is_string(), "{rep}");
            // The bodies are what `dne-intent decode --json` prints for the vectors.
            for (m, name) in [(req, q), (rep, r)] {
                let want: serde_json::Value =
                    serde_json::from_str(&run(&["decode", "--json", &vector_path(name)])).unwrap();
                assert_eq!(m["body"], want, "{name} {extra:?}");
            }
        }
    }
}

#[test]
fn text_lines_and_stats() {
    let dir = tmpdir("text");
    let cap = write_capture(&dir.0, &["--segment-size", "333"]);
    let out = run(&["pcap", &cap]);
    let lines: Vec<&str> = out.lines().filter(|l| l.contains("LNet PUT")).collect();
    assert_eq!(lines.len(), 2 * PAIRS.len());
    assert!(
        lines[0].contains("LDLM_ENQUEUE request [intent IT_DNE_CREATE_PREPARE]"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].ends_with("[IT_DNE_CREATE_PREPARE reply: complete]"),
        "{}",
        lines[1]
    );
    assert!(
        lines[5].ends_with("[IT_DNE_CREATE_PREPARE reply: empty]"),
        "{}",
        lines[5]
    );
    assert!(
        lines[7].ends_with("[IT_DNE_CREATE_PREPARE reply: advisory]"),
        "{}",
        lines[7]
    );
    let stats = run(&["pcap", "--stats", &cap]);
    assert!(
        stats.contains("       7  LDLM_ENQUEUE request\n"),
        "{stats}"
    );
    assert!(stats.contains("       7  LDLM_ENQUEUE reply\n"), "{stats}");
    assert!(
        stats.contains("IT_DNE_CREATE_PREPARE: 5 requests (0 invalid); replies: "),
        "{stats}"
    );
    assert!(
        stats.contains("IT_DNE_UNLINK_PREPARE: 1 requests (0 invalid)"),
        "{stats}"
    );
}

/// (message index, field, value) the dissector must show, from the codec's own decoding.
fn expected() -> Vec<(usize, &'static str, String)> {
    let mut want = Vec::new();
    for (k, (q, r)) in PAIRS.iter().enumerate() {
        let fq = 2 * k;
        let qb = std::fs::read(vector_path(q)).unwrap();
        let v = RequestView::parse(&qb).unwrap();
        let b = v.body();
        want.push((fq, "dne_prepare.pb_opc", "101".to_string()));
        want.push((fq, "dne_prepare.opc", v.opc().0.to_string()));
        want.push((fq, "dne_prepare.mcpr_fsuid", b.fsuid.to_string()));
        want.push((fq, "dne_prepare.mcpr_fsgid", b.fsgid.to_string()));
        want.push((fq, "dne_prepare.mcpr_fid", b.fid.to_string()));
        want.push((fq, "dne_prepare.mcpr_child_mode", b.child_mode.to_string()));
        let limits: Vec<String> = b.buf_limit.iter().map(u32::to_string).collect();
        want.push((fq, "dne_prepare.mcpr_buf_limit", limits.join(",")));
        let name = v
            .name()
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        want.push((fq, "dne_prepare.name", name));
        let rb = std::fs::read(vector_path(r)).unwrap();
        let rv = ReplyView::parse_for(&rb, &v.reply_context()).unwrap();
        let fr = fq + 1;
        match rv.body() {
            Some(p) => {
                want.push((fr, "dne_prepare.mcpp_status", p.status.to_string()));
                want.push((fr, "dne_prepare.mcpp_valid", format!("0x{:08x}", p.valid.0)));
                want.push((
                    fr,
                    "dne_prepare.mcpp_truncated",
                    format!("0x{:08x}", p.truncated.0),
                ));
                let sizes: Vec<String> = p.buf_size.iter().map(u32::to_string).collect();
                want.push((fr, "dne_prepare.mcpp_buf_size", sizes.join(",")));
                let states: Vec<String> = MliBuf::ALL
                    .iter()
                    .map(|&m| format!("{}: {}", m.name(), rv.result(m).state_name()))
                    .collect();
                want.push((fr, "dne_prepare.result_state", states.join(",")));
                let present = MliBuf::ALL
                    .iter()
                    .filter(|&&m| matches!(rv.result(m), PrepResult::Present(_)))
                    .count();
                want.push((fr, "dne_prepare.result", format!("#{present}")));
            }
            None => want.push((fr, "dne_prepare.outcome", "empty".into())),
        }
    }
    want
}

/// A scratch directory holding the generated dissector, and tshark's `lua_script:` option for
/// it; `None` when tshark is not installed (see `require`).
fn dissector_for_tshark(name: &str) -> Option<(TempDir, String)> {
    if !require::tool("tshark", "tshark") {
        return None;
    }
    let dir = tmpdir(name);
    let lua = dir.0.join("dne_prepare.lua");
    std::fs::write(&lua, run(&["wireshark-lua"])).unwrap();
    let script = format!("lua_script:{}", lua.display());
    Some((dir, script))
}

#[test]
fn tshark_with_the_generated_dissector_shows_the_codecs_values() {
    let Some((dir, script)) = dissector_for_tshark("tshark") else {
        return;
    };
    let mut checked = 0;
    // Big-endian socklnd framing is not tried: the built-in LNet dissector does not frame it,
    // so it never calls a portal dissector (the Lustre messages inside may be either order).
    for extra in [&["--segment-size", "1448"][..], &["--segment-size", "200"]] {
        let cap = write_capture(&dir.0, extra);
        let want = expected();
        let mut fields: Vec<&str> = want.iter().map(|w| w.1).collect();
        fields.sort();
        fields.dedup();
        let mut args = vec![
            "-r",
            &cap,
            "-X",
            &script,
            "-T",
            "fields",
            "-E",
            "occurrence=a",
        ];
        args.extend(["-e", "frame.number"]);
        for f in &fields {
            args.extend(["-e", f]);
        }
        let out = Command::new("tshark").args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        // The frames the dissector claimed (those with a pb_opc), one per message in order;
        // a segmented message shows on the frame holding its last byte.
        let opc_col = 1 + fields
            .iter()
            .position(|f| *f == "dne_prepare.pb_opc")
            .unwrap();
        let rows: Vec<Vec<&str>> = text
            .lines()
            .map(|l| l.split('\t').collect::<Vec<_>>())
            .filter(|r| !r[opc_col].is_empty())
            .collect();
        assert_eq!(rows.len(), 2 * PAIRS.len(), "{extra:?}:\n{text}");
        let row = |k: usize| &rows[k];
        for (frame, field, value) in &want {
            let col = 1 + fields.iter().position(|f| f == field).unwrap();
            let got = row(*frame)[col];
            if let Some(n) = value.strip_prefix('#') {
                let count = if got.is_empty() {
                    0
                } else {
                    got.split(',').count()
                };
                assert_eq!(count.to_string(), n, "frame {frame} {field} {extra:?}");
            } else {
                assert_eq!(got, value, "frame {frame} {field} {extra:?}");
            }
            checked += 1;
        }
        // Lua errors only show in the detailed tree.
        let v = Command::new("tshark")
            .args(["-r", &cap, "-X", &script, "-V"])
            .output()
            .unwrap();
        let tree = String::from_utf8_lossy(&v.stdout);
        assert!(!tree.contains("Lua Error"), "{tree}");
        assert!(tree.contains("md_create_prepare_req"));
    }
    println!("checked {checked} field values of the generated dissector against tshark");
}

/// Captures with several requests outstanding on the connection: (what, `pcap --write` options,
/// the directions whose segments tshark must see reordered and retransmitted, whether some
/// segment carries several whole messages).
type Disordered = (&'static str, &'static [&'static str], &'static [u16], bool);

const DISORDERED: &[Disordered] = &[
    (
        "4 outstanding, replies reordered and retransmitted",
        &[
            "--pipeline",
            "4",
            "--reorder",
            "replies",
            "--retransmit",
            "replies",
        ],
        &[988],
        true,
    ),
    (
        "4 outstanding, requests reordered and retransmitted",
        &[
            "--pipeline",
            "4",
            "--reorder",
            "requests",
            "--retransmit",
            "requests",
        ],
        &[1023],
        true,
    ),
    (
        "7 outstanding, both directions reordered and retransmitted",
        &[
            "--pipeline",
            "7",
            "--reorder",
            "both",
            "--retransmit",
            "both",
        ],
        &[988, 1023],
        true,
    ),
    (
        "7 outstanding, both directions, 300-byte segments",
        &[
            "--pipeline",
            "7",
            "--reorder",
            "both",
            "--retransmit",
            "both",
            "--segment-size",
            "300",
        ],
        &[988, 1023],
        false,
    ),
];

/// Every `dne_prepare.*` value under a message of tshark's JSON, arrays flattened, in order.
fn collect_fields(v: &serde_json::Value, out: &mut Fields) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                match x {
                    serde_json::Value::String(t) if k.starts_with("dne_prepare.") => {
                        out.push((k.clone(), t.clone()))
                    }
                    serde_json::Value::Array(a) if k.starts_with("dne_prepare.") => {
                        for e in a {
                            match e {
                                serde_json::Value::String(t) => out.push((k.clone(), t.clone())),
                                other => collect_fields(other, out),
                            }
                        }
                    }
                    other => collect_fields(other, out),
                }
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|e| collect_fields(e, out)),
        _ => {}
    }
}

/// One layer of a frame in tshark's JSON (`--no-duplicate-keys`): each instance, in order.
fn instances<'a>(layers: &'a serde_json::Value, name: &str) -> Vec<&'a serde_json::Value> {
    match &layers[name] {
        serde_json::Value::Array(a) => a.iter().collect(),
        serde_json::Value::Null => Vec::new(),
        v => vec![v],
    }
}

/// A message by the xid and portal of the LNet PUT carrying it.
type MessageKey = (String, String);

/// (field, value) pairs, in order.
type Fields = Vec<(String, String)>;

/// Each message and the fields the dissector must show for it, from `dne-intent pcap --json`'s
/// decoding of the same capture.
fn codec_view(cap: &str) -> Vec<(MessageKey, Fields)> {
    let out = run(&["pcap", "--json", cap]);
    let msgs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|v: &serde_json::Value| v["event"] == "message")
        .collect();
    let s = |v: &serde_json::Value| match v {
        serde_json::Value::String(t) => t.clone(),
        other => other.to_string(),
    };
    let list =
        |v: &serde_json::Value| -> Vec<String> { v.as_array().unwrap().iter().map(s).collect() };
    let mut intents = std::collections::HashMap::new();
    let mut view = Vec::new();
    for m in &msgs {
        let h = &m["lnet_hdr"];
        let key = (s(&h["match_bits"]), s(&h["ptl_index"]));
        let pb = &m["rpc"]["ptlrpc_body"];
        let mut want = vec![
            ("pb_opc", s(&pb["pb_opc"])),
            ("pb_status", s(&pb["pb_status"])),
        ];
        if let Some(q) = m["body"].get("request") {
            let it = s(&q["ldlm_intent"]["opc"]["value"]);
            let it = u64::from_str_radix(it.trim_start_matches("0x"), 16).unwrap();
            let name = s(&q["ldlm_intent"]["opc"]["name"]);
            intents.insert(s(&h["match_bits"]), name.clone());
            want.push(("opc", it.to_string()));
            want.push(("opc_name", name));
            let b = &q["md_create_prepare_req"];
            for f in ["mcpr_fid", "mcpr_fsuid", "mcpr_fsgid", "mcpr_child_mode"] {
                want.push((f, s(&b[f])));
            }
            for v in list(&b["mcpr_buf_limit"]) {
                want.push(("mcpr_buf_limit", v));
            }
            // A rename's object request has neither (null): the dissector shows none.
            if !q["name"].is_null() {
                want.push(("name", s(&q["name"])));
            }
            if !q["groups"].is_null() {
                for g in list(&q["groups"]) {
                    want.push(("groups", g));
                }
            }
        } else {
            let r = &m["body"]["reply"];
            assert!(r.is_object(), "every reply pairs with its request: {m}");
            // The intent is the paired request's: the dissector must have paired them too.
            want.push(("opc_name", intents[&s(&h["match_bits"])].clone()));
            want.push(("outcome", s(&m["outcome"])));
            let b = &r["outcome"]["md_create_prepare_rep"];
            if b.is_object() {
                want.push(("mcpp_status", s(&b["mcpp_status"])));
                want.push(("mcpp_valid", s(&b["mcpp_valid"]["bits"])));
                want.push(("mcpp_truncated", s(&b["mcpp_truncated"]["bits"])));
                want.push(("mcpp_child_mode", s(&b["mcpp_child_mode"])));
                want.push(("mcpp_child_gid", s(&b["mcpp_child_gid"])));
                for v in list(&b["mcpp_buf_size"]) {
                    want.push(("mcpp_buf_size", v));
                }
            }
        }
        let want = want
            .into_iter()
            .map(|(f, v)| (format!("dne_prepare.{f}"), v))
            .collect();
        view.push((key, want));
    }
    view
}

/// Frames of `cap` (read with `prefs`) that match `filter`.
fn count_frames(cap: &str, prefs: &[&str], filter: &str) -> usize {
    let mut args = vec!["-r", cap, "-Y", filter];
    args.extend_from_slice(prefs);
    let out = Command::new("tshark").args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).lines().count()
}

#[test]
fn tshark_with_the_dissector_shows_every_pipelined_message_the_codec_decodes() {
    let Some((dir, script)) = dissector_for_tshark("pipelined") else {
        return;
    };
    // The preferences the README names.
    let prefs = [
        "-o",
        "tcp.desegment_tcp_streams:TRUE",
        "-o",
        "tcp.reassemble_out_of_order:TRUE",
    ];
    let mut checked = 0;
    for &(what, extra, disordered, several) in DISORDERED {
        let cap = write_capture(&dir.0, extra);
        // The capture is what it claims to be, as tshark sees it: in each disordered
        // direction a segment ahead of its predecessor and a retransmission.
        for port in disordered {
            for flag in ["tcp.analysis.lost_segment", "tcp.analysis.retransmission"] {
                let n = count_frames(&cap, &prefs, &format!("{flag} && tcp.srcport == {port}"));
                assert!(n > 0, "{what}: no {flag} from port {port}");
            }
        }
        let want = codec_view(&cap);
        assert_eq!(
            want.len(),
            2 * PAIRS.len(),
            "{what}: the codec decodes every message"
        );
        let mut args = vec!["-r", &cap, "-X", &script];
        args.extend_from_slice(&prefs);
        args.extend(["-T", "json", "--no-duplicate-keys"]);
        let out = Command::new("tshark").args(&args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let frames: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
        // Each message the dissector claimed, by the xid and portal of the LNet PUT carrying
        // it (the LNet header and the message are the frame's n-th of each).
        let mut got = std::collections::HashMap::new();
        let mut shared = 0;
        for f in &frames {
            let layers = &f["_source"]["layers"];
            let msgs = instances(layers, "dne_prepare");
            if msgs.is_empty() {
                continue;
            }
            let lnet = instances(layers, "lnet");
            assert_eq!(lnet.len(), msgs.len(), "{what}: {f}");
            shared += usize::from(msgs.len() > 1);
            for (h, m) in lnet.iter().zip(msgs) {
                let key = (
                    h["lnet.msg_dst_match_bits"].as_str().unwrap().to_string(),
                    h["lnet.ptl_index"].as_str().unwrap().to_string(),
                );
                let mut fields = Vec::new();
                collect_fields(m, &mut fields);
                assert!(
                    got.insert(key.clone(), fields).is_none(),
                    "{what}: {key:?} twice"
                );
            }
        }
        assert_eq!(
            shared > 0,
            several,
            "{what}: frames carrying several messages"
        );
        assert_eq!(
            got.len(),
            want.len(),
            "{what}: messages the dissector shows"
        );
        for (key, fields) in &want {
            let shown = got
                .get(key)
                .unwrap_or_else(|| panic!("{what}: {key:?} not shown"));
            let mut by_name: std::collections::HashMap<&str, Vec<&str>> =
                std::collections::HashMap::new();
            for (f, v) in shown {
                by_name.entry(f).or_default().push(v);
            }
            let mut expect: std::collections::HashMap<&str, Vec<&str>> =
                std::collections::HashMap::new();
            for (f, v) in fields {
                expect.entry(f).or_default().push(v);
            }
            for (f, vs) in &expect {
                assert_eq!(
                    by_name.get(f).cloned().unwrap_or_default(),
                    *vs,
                    "{what}: {key:?} {f}"
                );
                checked += vs.len();
            }
        }
        // A display filter sees the fields too, where tshark builds no tree to show: one
        // unlink request, its reply (valid PATTR|LMV) and one advisory reply.
        let mut filtered = vec!["-X", script.as_str()];
        filtered.extend_from_slice(&prefs);
        for filter in [
            "dne_prepare.opc == 262144",
            "dne_prepare.mcpp_valid == 0x9",
            "dne_prepare.outcome == \"advisory\"",
        ] {
            assert_eq!(count_frames(&cap, &filtered, filter), 1, "{what}: {filter}");
        }
    }
    println!("checked {checked} field values of pipelined, disordered messages against tshark");
}

#[test]
fn a_damaged_capture_prints_what_decodes_names_the_frame_and_exits_1() {
    let dir = tmpdir("damaged");
    let cap = write_capture(&dir.0, &[]);
    let mut bytes = std::fs::read(&cap).unwrap();
    // Frame 7's ksock_msg_hdr.ksh_type, after the pcap record header and the 54 bytes of
    // Ethernet, IPv4 and TCP headers: 0xc1 becomes 0xc2.
    let mut at = 24;
    for _ in 1..7 {
        at += 16 + u32::from_le_bytes(bytes[at + 8..at + 12].try_into().unwrap()) as usize;
    }
    at += 16 + 54;
    assert_eq!(bytes[at], 0xc1, "the offset arithmetic points at ksh_type");
    bytes[at] = 0xc2;
    let bad = dir.0.join("bad.pcap");
    std::fs::write(&bad, &bytes).unwrap();
    let out = Command::new(BIN).args(["pcap"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("frame 7: 192.168.0.1:1023 > 192.168.0.2:988 stream offset 72: ksock_msg_hdr.ksh_type: 0xc2"),
        "{err}"
    );
    assert!(err.contains("1 errors"), "{err}");
    // The other 13 messages still decode.
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.lines().filter(|l| l.contains("LNet PUT")).count(),
        2 * PAIRS.len() - 1
    );
}

#[test]
fn write_to_standard_output_and_bad_option_values() {
    let dir = tmpdir("stdout");
    // `--write -` writes the same capture to standard output that `--write FILE` writes.
    let cap = write_capture(&dir.0, &["--segment-size", "300"]);
    let mut args = vec!["pcap", "--write", "-", "--segment-size", "300"];
    let paths: Vec<String> = PAIRS
        .iter()
        .flat_map(|(q, r)| [vector_path(q), vector_path(r)])
        .collect();
    args.extend(paths.iter().map(String::as_str));
    let out = Command::new(BIN).args(&args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, std::fs::read(&cap).unwrap());
    assert!(!Path::new("-").exists(), "no file named `-`");
    // Values outside an option's range are usage errors (exit 2), named by clap before
    // anything is read or written.
    let m = vector_path("mkdir_request");
    for (opt, value, says) in [
        ("--segment-size", "0", "0 is not in 1..=65000"),
        ("--segment-size", "65001", "65001 is not in 1..=65000"),
        ("--socklnd-version", "5", "5 is not in 2..=4"),
        ("--repeat", "0", "0: expected a count of at least 1"),
        (
            "--pipeline",
            "0",
            "0: expected at least 1 request outstanding",
        ),
        (
            "--reorder",
            "sideways",
            "expected requests, replies or both",
        ),
        ("--retransmit", "", "expected requests, replies or both"),
    ] {
        let out = dir.0.join("bad.pcap");
        let res = Command::new(BIN)
            .args(["pcap", "--write", &out.to_string_lossy(), opt, value, &m])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{opt} {value}: {err}");
        assert!(err.contains(says), "{opt} {value}: {err}");
        assert!(!out.exists(), "{opt} {value}: nothing is written");
    }
}

/// The recipe that lost replies: one request answered by several replies, over and over (a
/// resend's reply shares its request's xid), and replies whose request is not in the capture.
/// Every reply is classified, paired or not.
#[test]
fn every_reply_is_counted_paired_or_not() {
    let dir = tmpdir("unpaired");
    let cap = dir.0.join("r.pcap").to_string_lossy().into_owned();
    let (q, r1, r2) = (
        vector_path("mkdir_request"),
        vector_path("mkdir_reply_complete"),
        vector_path("mkdir_reply_eexist"),
    );
    run(&["pcap", "--write", &cap, &q, &r1, &r2, "--repeat", "50"]);
    let stats = run(&["pcap", "--stats", &cap]);
    assert!(
        stats.contains("replies paired with their request: 100\n"),
        "{stats}"
    );
    assert!(
        stats.contains(
            "IT_DNE_CREATE_PREPARE: 50 requests (0 invalid); replies: complete 50, partial \
             (unknown results) 0, advisory 0, empty 0, status (the parent's answer) 50, error 0, \
             invalid (breaks a rule) 0\n"
        ),
        "{stats}"
    );
    // Replies alone: nothing asked for them in this capture.
    let alone = dir.0.join("u.pcap").to_string_lossy().into_owned();
    run(&["pcap", "--write", &alone, &r1, &r2]);
    let text = run(&["pcap", &alone]);
    let replies: Vec<&str> = text.lines().filter(|l| l.contains("LNet PUT")).collect();
    assert_eq!(replies.len(), 2, "{text}");
    assert!(
        replies[0].ends_with("[prepare reply, request not captured: complete]"),
        "{}",
        replies[0]
    );
    assert!(
        replies[1].ends_with("[prepare reply, request not captured: status (the parent's answer)]"),
        "{}",
        replies[1]
    );
    let stats = run(&["pcap", "--stats", &alone]);
    assert!(
        stats.contains(
            "  replies whose request was not captured (validated alone): complete 1, status \
             (the parent's answer) 1\n"
        ),
        "{stats}"
    );
}
