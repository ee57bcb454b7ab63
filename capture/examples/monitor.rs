//! A capture monitor: reads a pcap or pcapng file of socklnd traffic and prints one line per
//! prepare intent, each reply classified and, when its request was captured, shown with what
//! that request asked: the xid, the requester, the entry name, the FID and the credentials.
//!
//! `cargo run -p lustre-dne-intent-capture --example monitor [CAPTURE]`. Without an argument it
//! monitors a capture it writes itself: a mkdir request, its reply, and a reply whose request
//! was not captured.

use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    EntryName, GroupList, McppFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation,
    PrepResult, PrepareOutcome, PrepareReply, PrepareRequest, ReplyKind, name_hash,
};
use lustre_dne_intent::wire::{LockMode, LuFid, LustreHandle};
use lustre_dne_intent_capture::writer::{CaptureWriter, WriterOptions};
use lustre_dne_intent_capture::{CaptureReader, Event, Prepare};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let capture = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => sample()?,
    };
    let mut kinds = [0usize; ReplyKind::ALL.len()];
    for event in CaptureReader::new(&capture[..])? {
        let Event::Message(m) = event else { continue };
        match m.prepare() {
            Some(Prepare::Request(op, Ok(r))) => println!(
                "frame {:>4} request {} {:?}",
                m.frame,
                op.opc_name(),
                r.name().map(String::from_utf8_lossy)
            ),
            Some(Prepare::Request(op, Err(e))) => {
                println!(
                    "frame {:>4} request {} invalid: {e}",
                    m.frame,
                    op.opc_name()
                )
            }
            Some(Prepare::Reply(op, parsed)) => {
                let kind = ReplyKind::of(&parsed);
                kinds[kind as usize] += 1;
                print!(
                    "frame {:>4} reply   {} {}",
                    m.frame,
                    op.opc_name(),
                    kind.label()
                );
                // Paired: what the request asked, as the monitor needs it.
                if let Some(q) = &m.request {
                    print!(" (xid {:#x} from {}", q.xid, q.requester);
                    if let (Some(fid), Some(b)) = (q.fid(), q.body()) {
                        print!(", {fid} uid {} gid {}", b.fsuid, b.fsgid);
                    }
                    if let Some(name) = q.name() {
                        print!(", name {:?}", String::from_utf8_lossy(name));
                    }
                    print!(")");
                }
                if let Ok(v) = &parsed
                    && let PrepResult::Present(attrs) = v.pattr()
                {
                    print!(", parent mode {:o}", attrs.mode);
                }
                println!();
            }
            Some(Prepare::UnpairedReply(v)) => {
                kinds[v.kind() as usize] += 1;
                println!(
                    "frame {:>4} reply   (request not captured) {}",
                    m.frame,
                    v.kind().label()
                );
            }
            None => {}
        }
    }
    let counts: Vec<String> = ReplyKind::ALL
        .iter()
        .zip(kinds)
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{n} {}", k.label()))
        .collect();
    println!("replies: {}", counts.join(", "));
    Ok(())
}

/// A small capture: a mkdir request and its `-EEXIST` reply, then a reply without its request.
fn sample() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let parent = LuFid::new(0x2_0000_0401, 1, 0);
    let name = EntryName::try_from("newdir")?;
    let body = MdCreatePrepareReq {
        fid: parent,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        child_mode: 0o040755,
        buf_limit: [216, 4096, 256, 4096, 4096, 48],
        ..Default::default()
    };
    let request = PrepareRequest::new(
        Operation::Create,
        body,
        Some(name),
        GroupList::try_from(&[500, 600][..])?,
        LockMode::PW,
        name_hash(name.as_bytes()),
    );
    let mut outcome = PrepareOutcome::new(MdCreatePrepareRep {
        status: -17,
        flags: McppFlags::LOOKUP_DONE | McppFlags::LOOKUP_POS | McppFlags::PERM_DONE,
        fid: LuFid::new(0x2_0000_0401, 0x22, 0),
        child_mode: 0o040000,
        ..Default::default()
    });
    outcome.set_result(MliBuf::DefAcl, PrepResult::Absent);
    let ctx = PrepareRequest::reply_context(&request)?;
    let reply = PrepareReply::granting(&ctx, LustreHandle(0x77), Some(outcome));
    let mut w = CaptureWriter::new(Vec::new(), WriterOptions::default())?;
    let xid = w.request(&request.to_bytes(Endian::Little)?)?;
    w.reply(xid, &reply.to_bytes(Endian::Little)?)?;
    // An xid nothing asked for: a reply whose request the capture missed.
    w.reply(xid + 0x40, &reply.to_bytes(Endian::Big)?)?;
    Ok(w.finish()?)
}
