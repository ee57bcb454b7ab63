//! A monitoring tool's view of prepare-intent traffic: messages back to back in one buffer,
//! each decoded in place, replies classified and their results read.
//!
//! `cargo run --example monitor [FILE...]`: each file holds one or more messages back to back
//! (binary). Without arguments it reads the bundled golden vectors, concatenated.

use lustre_dne_intent::intent::{MessageView, MliBuf, PrepResult, ReplyKind};
use lustre_dne_intent::xattr::LmvView;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stream: Vec<u8> = if args.is_empty() {
        [
            &include_bytes!("../testdata/mkdir_request.bin")[..],
            include_bytes!("../testdata/mkdir_reply_complete.bin"),
            include_bytes!("../testdata/mkdir_reply_be.bin"),
            include_bytes!("../testdata/mkdir_reply_lov_truncated.bin"),
            include_bytes!("../testdata/unlink_reply.bin"),
            include_bytes!("../testdata/mkdir_reply_empty.bin"),
        ]
        .concat()
    } else {
        let mut all = Vec::new();
        for a in &args {
            all.extend(std::fs::read(a)?);
        }
        all
    };
    let mut kinds = [0usize; ReplyKind::ALL.len()];
    let mut rest = &stream[..];
    while !rest.is_empty() {
        // A message that breaks a rule ends the walk: its length cannot be trusted.
        let msg = MessageView::parse(rest)?;
        match msg {
            MessageView::Request(r) => println!(
                "request  {:?} {} name {:?}, asks for {}",
                r.order(),
                r.operation().opc_name(),
                r.name().map(String::from_utf8_lossy),
                r.body().requested(),
            ),
            MessageView::Reply(r) => {
                let kind = r.kind();
                kinds[kind as usize] += 1;
                print!("reply    {:?} {kind:?}", r.order());
                // PATTR decoded in the sender's byte order; the other results are xattrs.
                if let PrepResult::Present(attrs) = r.pattr() {
                    print!(", parent mode {:o} uid {}", attrs.mode, attrs.uid);
                }
                if let PrepResult::Present(lmv) = r.result(MliBuf::Lmv) {
                    print!(", {} stripes", LmvView::parse(lmv)?.stripe_count());
                }
                println!();
            }
        }
        rest = &rest[msg.consumed_len()..];
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
