//! `dne-intent pcap`: packet captures of socklnd traffic, read to the prepare intents (one line
//! or one JSON object per message, or a summary), or written from message files.

use crate::common::CliError;
use crate::input::{Input, Output};
use crate::pcap_stats::{Stats, rpc_kind};
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::MessageView;
use lustre_dne_intent::wire::PtlrpcMsgType;
use lustre_dne_intent_capture::writer::WriteError;
use lustre_dne_intent_capture::{
    CaptureReader, CaptureWriter, Directions, Event, EventRecord, Handshake, Message, Prepare,
    WriterOptions, opcode_name,
};
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
                // A record always serializes (its fields are plain values and strings).
                let r = EventRecord::of(&ev, t0);
                text.push_str(&serde_json::to_string(&r).unwrap_or_default());
                text.push('\n');
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
                    write!(s, " [{} reply: {}]", op.opc_name(), v.kind().label())?
                }
                Some(Prepare::UnpairedReply(v)) => write!(
                    s,
                    " [prepare reply, request not captured: {}]",
                    v.kind().label()
                )?,
                None => {}
            }
        }
    }
    writeln!(s)
}

/// Options of `pcap --write`.
pub struct WriteArgs<'a> {
    /// The capture file; `-` is standard output.
    pub out: &'a Path,
    /// Write to standard output even when it is a terminal.
    pub force: bool,
    pub messages: &'a [Input],
    pub segment_size: usize,
    pub big_endian: bool,
    pub handshake: Handshake,
    pub repeat: usize,
    /// Requests outstanding at once (1: no pipelining).
    pub pipeline: usize,
    /// Directions whose segments go out of order.
    pub reorder: Directions,
    /// Directions whose segments are sent twice.
    pub retransmit: Directions,
}

/// Writes a capture of the messages: requests from the client, each reply from the server
/// answering the latest request before it, `repeat` times over; with `pipeline` N, N requests
/// go out before the replies answering them.
pub fn cmd_write(a: &WriteArgs<'_>, stdout: &mut Output) -> Result<(), CliError> {
    let mut msgs = Vec::new();
    for input in a.messages {
        let bytes = input.message_bytes()?;
        let view = MessageView::parse(&bytes).map_err(|e| input.error(e))?;
        msgs.push((view.is_request(), bytes));
    }
    if a.out == Path::new("-") {
        let mut buf = Vec::new();
        write_capture(a, &msgs, &mut buf)?;
        return stdout.write_binary(&buf, a.force);
    }
    let file = std::fs::File::create(a.out)
        .map_err(|e| CliError::invalid(format_args!("{}: cannot create: {e}", a.out.display())))?;
    write_capture(a, &msgs, std::io::BufWriter::new(file))
}

/// A request and the replies answering it (replies before any request answer xid 0).
struct Exchange<'a> {
    request: Option<&'a [u8]>,
    replies: Vec<&'a [u8]>,
}

/// The capture of `msgs` (each with whether it is a request), written to `sink`.
fn write_capture(
    a: &WriteArgs<'_>,
    msgs: &[(bool, Vec<u8>)],
    sink: impl std::io::Write,
) -> Result<(), CliError> {
    let opts = WriterOptions {
        segment_size: a.segment_size,
        order: if a.big_endian {
            Endian::Big
        } else {
            Endian::Little
        },
        handshake: a.handshake,
        reorder: a.reorder,
        duplicate: a.retransmit,
        ..WriterOptions::default()
    };
    let to = if a.out == Path::new("-") {
        "standard output".into()
    } else {
        a.out.display().to_string()
    };
    let werr = |e: WriteError| CliError::invalid(format_args!("{to}: {e}"));
    let mut w = CaptureWriter::new(sink, opts).map_err(werr)?;
    let mut exchanges: Vec<Exchange<'_>> = Vec::new();
    for (is_request, bytes) in msgs {
        match exchanges.last_mut() {
            Some(last) if !*is_request => last.replies.push(bytes),
            _ => exchanges.push(Exchange {
                request: is_request.then_some(bytes.as_slice()),
                replies: if *is_request {
                    Vec::new()
                } else {
                    vec![bytes.as_slice()]
                },
            }),
        }
    }
    let mut xid = 0;
    for _ in 0..a.repeat {
        for batch in exchanges.chunks(a.pipeline.max(1)) {
            let mut xids = Vec::with_capacity(batch.len());
            for ex in batch {
                if let Some(q) = ex.request {
                    xid = w.request(q).map_err(werr)?;
                }
                xids.push(xid);
            }
            for (ex, xid) in batch.iter().zip(xids) {
                for r in &ex.replies {
                    w.reply(xid, r).map_err(werr)?;
                }
            }
        }
    }
    w.finish()
        .map_err(werr)?
        .flush()
        .map_err(|e| CliError::invalid(format_args!("{to}: {e}")))
}
