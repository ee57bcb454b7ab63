//! `dne-intent pcap`: packet captures of socklnd traffic, read to the prepare intents (one line
//! or one JSON object per message, or a summary), or written from message files.

use crate::CliError;
use crate::input::{Input, Output, to_hex};
use crate::jtree::{J, i, u, us};
use crate::pcap_stats::{Outcome, Stats};
use lustre_dne_intent::Endian;
use lustre_dne_intent::capture::writer::WriteError;
use lustre_dne_intent::capture::{
    CaptureReader, CaptureWriter, Event, Handshake, LnetCmd, Message, Prepare, WriterOptions,
    opcode_name,
};
use lustre_dne_intent::intent::{MessageView, WireMessage};
use lustre_dne_intent::wire::PtlrpcMsgType;
use std::fmt::Write as _;
use std::io::Read;
use std::path::Path;
use std::time::Duration;

/// Output is written in blocks of about this size (one write per line would dominate).
const OUT_BLOCK: usize = 64 * 1024;

/// How `pcap` prints what it reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// One summary line per message.
    Text,
    /// One JSON object per message and line.
    Json,
    /// Only the summary of `--stats`.
    Stats,
}

/// Reads `input` and prints every event in `mode`.
pub fn cmd_read(input: &Input, mode: Mode, out: &mut Output) -> Result<(), CliError> {
    let reader: Box<dyn Read> = match input {
        Input::Stdin => Box::new(std::io::stdin().lock()),
        Input::File(p) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(p).map_err(|e| input.error(format_args!("cannot read: {e}")))?,
        )),
    };
    let mut cap = CaptureReader::new(reader).map_err(|e| input.error(e))?;
    let mut stats = Stats::default();
    let mut text = String::new();
    let mut errors = 0u64;
    while let Some(ev) = cap.next() {
        let t0 = cap.first_time().unwrap_or_default();
        if let Event::Error(e) = &ev {
            errors += 1;
            eprintln!("dne-intent pcap: {input}: {e}");
        }
        match mode {
            Mode::Stats => stats.add(&ev),
            Mode::Text => line_text(&ev, t0, &mut text),
            Mode::Json => {
                if let Some(j) = event_json(&ev, t0) {
                    text.push_str(&j.to_compact());
                    text.push('\n');
                }
            }
        }
        if text.len() >= OUT_BLOCK {
            out.write(text.as_bytes())?;
            text.clear();
        }
    }
    if mode == Mode::Stats {
        let rs = cap.stats();
        stats.print(&rs, &mut text);
    }
    out.write(text.as_bytes())?;
    // Everything decodable was printed; the status still tells a script the capture is damaged.
    if errors > 0 {
        return Err(input.error(format_args!(
            "{errors} errors (decoding went on after each)"
        )));
    }
    Ok(())
}

fn secs(d: Duration) -> f64 {
    d.as_secs_f64()
}

pub(crate) fn rpc_kind(t: PtlrpcMsgType) -> &'static str {
    match t {
        PtlrpcMsgType::REQUEST => "request",
        PtlrpcMsgType::REPLY => "reply",
        PtlrpcMsgType::ERR => "error reply",
        _ => "message",
    }
}

/// One line per event, like tshark's summary: frame, time, source → destination, protocol
/// and what the message is.
fn line_text(ev: &Event, t0: Duration, s: &mut String) {
    let _ = match ev {
        Event::Message(m) => message_line(m, t0, s),
        Event::Connreq {
            frame,
            flow,
            connreq,
        } => writeln!(
            s,
            "{frame:>6} {} > {} socklnd connreq v{} to {}",
            flow.src, flow.dst, connreq.acr_version, connreq.acr_nid
        ),
        Event::Hello { frame, flow, hello } => writeln!(
            s,
            "{frame:>6} {} > {} socklnd hello V{} {} > {} ({})",
            flow.src,
            flow.dst,
            hello.kshm_version,
            hello.kshm_src_nid,
            hello.kshm_dst_nid,
            match hello.order {
                Endian::Little => "little-endian",
                Endian::Big => "big-endian",
            }
        ),
        Event::Noop { frame, flow, .. } => {
            writeln!(s, "{frame:>6} {} > {} socklnd NOOP", flow.src, flow.dst)
        }
        Event::Gap {
            frame,
            flow,
            at,
            missing,
        } => writeln!(
            s,
            "{frame:>6} {} > {} [gap: {missing} bytes at stream offset {at} not captured]",
            flow.src, flow.dst
        ),
        Event::Skipped {
            frame,
            flow,
            at,
            bytes,
        } => writeln!(
            s,
            "{frame:>6} {} > {} [skipped {bytes} bytes at stream offset {at} to the next message]",
            flow.src, flow.dst
        ),
        Event::Error(e) => writeln!(s, "{:>6} [error: {e}]", e.frame),
    };
}

fn message_line(m: &Message, t0: Duration, s: &mut String) -> std::fmt::Result {
    let h = &m.hdr;
    write!(
        s,
        "{:>6} {:.6} {} > {} LNet {}",
        m.frame,
        secs(m.time.saturating_sub(t0)),
        h.src_nid,
        h.dest_nid,
        h.msg_type
            .name()
            .map_or("?", |n| n.trim_start_matches("LNET_MSG_"))
    )?;
    if let (Some(p), Some(x)) = (h.ptl_index(), h.match_bits()) {
        write!(s, " portal {p} xid {x:#x}")?;
    }
    match &m.rpc {
        None => {}
        Some(Err(e)) => write!(s, " Lustre [malformed: {e}]")?,
        Some(Ok(rpc)) => {
            let p = &rpc.ptlrpc;
            match opcode_name(p.opc) {
                Some(n) => write!(s, " {n} {}", rpc_kind(p.msg_type))?,
                None => write!(s, " opc {} {}", p.opc, rpc_kind(p.msg_type))?,
            }
            if p.status != 0 && p.msg_type != PtlrpcMsgType::REQUEST {
                write!(s, " status {}", p.status)?;
            }
            if let Some(it) = rpc.intent {
                write!(s, " [intent {it}]")?;
            }
            if let Some(r) = &m.request {
                write!(s, " (request in frame {})", r.frame)?;
            }
            match m.prepare() {
                Some(Prepare::Request(_, Err(e))) | Some(Prepare::Reply(_, Err(e))) => {
                    write!(s, " [prepare: invalid: {e}]")?
                }
                Some(Prepare::Request(_, Ok(v))) => {
                    let name = v.name().map(String::from_utf8_lossy).unwrap_or_default();
                    write!(s, " [{} \"{name}\" results {}]", v.opc(), v.requested())?
                }
                Some(Prepare::Reply(op, Ok(v))) => {
                    write!(s, " [{} reply: {}]", op.opc_name(), Outcome::of(&v).name())?
                }
                None => {}
            }
        }
    }
    writeln!(s)
}

fn flow_json(m: &Message) -> Vec<(&'static str, J)> {
    vec![
        ("src", J::S(m.flow.src.to_string())),
        ("dst", J::S(m.flow.dst.to_string())),
    ]
}

/// One JSON object per event (messages, and the socklnd and capture events around them).
fn event_json(ev: &Event, t0: Duration) -> Option<J> {
    let simple = |kind: &str, frame: u64, rest: Vec<(&'static str, J)>| {
        let mut o = vec![("event", J::S(kind.into())), ("frame", u(frame))];
        o.extend(rest);
        Some(J::O(o))
    };
    match ev {
        Event::Message(m) => Some(message_json(m, t0)),
        Event::Connreq { frame, connreq, .. } => simple(
            "connreq",
            *frame,
            vec![
                ("acr_version", u(connreq.acr_version)),
                ("acr_nid", J::S(connreq.acr_nid.to_string())),
                ("order", J::S(connreq.order.name().into())),
            ],
        ),
        Event::Hello {
            frame, hello: h, ..
        } => simple(
            "hello",
            *frame,
            vec![
                ("kshm_version", u(h.kshm_version)),
                ("kshm_src_nid", J::S(h.kshm_src_nid.to_string())),
                ("kshm_dst_nid", J::S(h.kshm_dst_nid.to_string())),
                ("kshm_src_pid", u(h.kshm_src_pid)),
                ("kshm_dst_pid", u(h.kshm_dst_pid)),
                ("kshm_src_incarnation", u(h.kshm_src_incarnation)),
                ("kshm_dst_incarnation", u(h.kshm_dst_incarnation)),
                ("kshm_ctype", u(h.kshm_ctype)),
                ("order", J::S(h.order.name().into())),
            ],
        ),
        Event::Noop { frame, .. } => simple("noop", *frame, vec![]),
        Event::Gap {
            frame, at, missing, ..
        } => simple(
            "gap",
            *frame,
            vec![("at", u(*at)), ("missing", u(*missing))],
        ),
        Event::Skipped {
            frame, at, bytes, ..
        } => simple(
            "skipped",
            *frame,
            vec![("at", u(*at)), ("bytes", u(*bytes))],
        ),
        Event::Error(e) => simple(
            "error",
            e.frame,
            vec![
                ("structure", J::S(e.structure.into())),
                ("field", J::S(e.field.into())),
                ("offset", u(e.offset)),
                ("error", J::S(e.to_string())),
            ],
        ),
    }
}

fn message_json(m: &Message, t0: Duration) -> J {
    let h = &m.hdr;
    let mut o = vec![
        ("event", J::S("message".into())),
        ("frame", u(m.frame)),
        ("first_frame", u(m.first_frame)),
        (
            "time",
            J::S(format!("{:.6}", secs(m.time.saturating_sub(t0)))),
        ),
    ];
    o.extend(flow_json(m));
    o.extend([
        ("ksm_type", u(m.ksm.ksh_type)),
        ("ksm_csum", u(m.ksm.ksh_csum)),
        ("src_nid", J::S(h.src_nid.to_string())),
        ("dest_nid", J::S(h.dest_nid.to_string())),
        ("src_pid", u(h.src_pid)),
        ("dest_pid", u(h.dest_pid)),
        ("type", J::S(h.msg_type.to_string())),
        ("payload_length", u(h.payload_length)),
    ]);
    match h.cmd {
        LnetCmd::Put {
            match_bits,
            hdr_data,
            ptl_index,
            offset,
            ..
        } => o.extend([
            ("ptl_index", u(ptl_index)),
            ("match_bits", J::S(format!("{match_bits:#x}"))),
            ("hdr_data", u(hdr_data)),
            ("offset", u(offset)),
        ]),
        LnetCmd::Get {
            match_bits,
            ptl_index,
            src_offset,
            sink_length,
            ..
        } => o.extend([
            ("ptl_index", u(ptl_index)),
            ("match_bits", J::S(format!("{match_bits:#x}"))),
            ("src_offset", u(src_offset)),
            ("sink_length", u(sink_length)),
        ]),
        LnetCmd::Ack {
            match_bits,
            mlength,
            ..
        } => o.extend([
            ("match_bits", J::S(format!("{match_bits:#x}"))),
            ("mlength", u(mlength)),
        ]),
        LnetCmd::Hello {
            incarnation,
            conn_type,
        } => o.extend([
            ("incarnation", u(incarnation)),
            ("hello_type", u(conn_type)),
        ]),
        LnetCmd::Reply { .. } | LnetCmd::Unknown => {}
    }
    rpc_json(m, &mut o);
    J::O(o)
}

/// The Lustre RPC of a message: `ptlrpc_body` fields, the pairing, the prepare body.
fn rpc_json(m: &Message, o: &mut Vec<(&'static str, J)>) {
    match &m.rpc {
        None => {}
        Some(Err(e)) => o.push(("lustre_error", J::S(e.to_string()))),
        Some(Ok(r)) => {
            let p = &r.ptlrpc;
            o.extend([
                ("lm_bufcount", us(r.bufcount)),
                ("order", J::S(r.order.name().into())),
                ("pb_opc", u(p.opc)),
                (
                    "opc_name",
                    opcode_name(p.opc).map_or(J::Null, |n| J::S(n.into())),
                ),
                ("pb_type", u(p.msg_type.0)),
                ("pb_status", i(p.status)),
                ("pb_last_xid", u(p.last_xid)),
                ("pb_transno", u(p.transno)),
                ("pb_conn_cnt", u(p.conn_cnt)),
                ("pb_flags", u(p.flags.0)),
            ]);
            if let Some(it) = r.intent {
                o.push(("it_opc", u(it.0)));
            }
            if let Some(req) = &m.request {
                o.push(("request_frame", u(req.frame)));
            }
            prepare_json(m, o);
        }
    }
}

/// The decoded prepare body: the object `dne-intent decode --json` prints.
fn prepare_json(m: &Message, o: &mut Vec<(&'static str, J)>) {
    let body =
        |view: MessageView<'_>| serde_json::to_value(WireMessage::of(&view)).map_or(J::Null, J::V);
    match m.prepare() {
        Some(Prepare::Request(_, Ok(v))) => o.push(("body", body(MessageView::Request(v)))),
        Some(Prepare::Reply(_, Ok(v))) => {
            o.push(("outcome", J::S(Outcome::of(&v).name().into())));
            o.push(("body", body(MessageView::Reply(v))));
        }
        Some(Prepare::Request(_, Err(e))) | Some(Prepare::Reply(_, Err(e))) => {
            o.push(("prepare_error", J::S(e.to_string())));
            o.push(("payload", J::S(to_hex(&m.payload))));
        }
        None => {}
    }
}

/// Options of `pcap --write`.
pub struct WriteArgs<'a> {
    pub out: &'a Path,
    pub messages: &'a [Input],
    pub segment_size: usize,
    pub big_endian: bool,
    pub handshake: Handshake,
    pub repeat: usize,
}

/// Writes a capture of the messages: requests from the client, each reply from the server
/// answering the latest request, `repeat` times over.
pub fn cmd_write(a: &WriteArgs<'_>) -> Result<(), CliError> {
    let mut msgs = Vec::new();
    for input in a.messages {
        let bytes = input.message_bytes()?;
        let view = MessageView::parse(&bytes).map_err(|e| input.error(e))?;
        msgs.push((view.is_request(), bytes));
    }
    let file = std::fs::File::create(a.out)
        .map_err(|e| CliError::invalid(format_args!("{}: cannot create: {e}", a.out.display())))?;
    let opts = WriterOptions {
        segment_size: a.segment_size,
        order: if a.big_endian {
            Endian::Big
        } else {
            Endian::Little
        },
        handshake: a.handshake,
        ..WriterOptions::default()
    };
    let werr = |e: WriteError| CliError::invalid(format_args!("{}: {e}", a.out.display()));
    let mut w = CaptureWriter::new(std::io::BufWriter::new(file), opts).map_err(werr)?;
    let mut xid = 0;
    for _ in 0..a.repeat {
        for (is_request, bytes) in &msgs {
            if *is_request {
                xid = w.request(bytes).map_err(werr)?;
            } else {
                w.reply(xid, bytes).map_err(werr)?;
            }
        }
    }
    use std::io::Write as _;
    w.finish()
        .map_err(werr)?
        .flush()
        .map_err(|e| CliError::invalid(format_args!("{}: {e}", a.out.display())))
}
