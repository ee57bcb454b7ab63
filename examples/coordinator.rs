//! Embeds the crate the way a coordinator MDT (OSP) would for a cross-MDT mkdir:
//! 1. describe the intent with caller-owned result buffers (`md_lock_intent`);
//! 2. build and encode the enqueue request;
//! 3. (here: play the parent MDT and answer it);
//! 4. decode the reply against the request and fill the intent's buffers;
//! 5. decide which reads are still needed.
//!
//! Run with `cargo run --example coordinator`.

use bytes::Bytes;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::{LockMode, LuFid, LustreHandle, MdtBody, MdtValid, WireStruct};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let parent = LuFid::new(0x2_0000_0401, 0x1, 0);

    // 1. The intent: a mkdir of "newdir", with room for every result. The PATTR buffer holds
    //    exactly one mdt_body; the xattr buffers are the inline limits the coordinator accepts.
    let (mut pattr, mut def_acl, mut pin) = ([0u8; 216], [0u8; 4096], [0u8; 256]);
    let (mut lmv, mut lov, mut def_lmv) = ([0u8; 4096], [0u8; 64], [0u8; 48]);
    let body = MdCreatePrepareReq {
        fid: parent,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        child_mode: 0o040_755,
        ..Default::default()
    };
    let mut intent = MdLockIntent::new(
        Operation::Create,
        body,
        Some(b"newdir"),
        [
            &mut pattr,
            &mut def_acl,
            &mut pin,
            &mut lmv,
            &mut lov,
            &mut def_lmv,
        ],
    );

    // 2. The request, with the caller's supplementary groups, on the name-hash UPDATE lock.
    let request = intent.to_request(&[500, 600, 700], LockMode::PW, name_hash(b"newdir"))?;
    let wire = request.to_bytes(Endian::Little)?;
    println!(
        "request: {} bytes, lm_repsize {}",
        wire.len(),
        request.header.repsize
    );

    // 3. The parent MDT answers: lookup negative, permission done, child derived; a 100-byte
    //    LOV is too large for the 64-byte limit and comes back truncated.
    let received = RequestView::parse(&wire)?;
    let ctx = received.reply_context();
    let attrs = MdtBody {
        fid1: parent,
        valid: MdtValid::FLID
            | MdtValid::FLMODE
            | MdtValid::FLTYPE
            | MdtValid::FLUID
            | MdtValid::FLGID,
        mode: 0o042_775,
        uid: 0,
        gid: 600,
        ..Default::default()
    };
    let mut pattr_bytes = Vec::with_capacity(MdtBody::SIZE);
    attrs.put(Endian::Little, &mut pattr_bytes);
    let mut outcome = PrepareOutcome::new(MdCreatePrepareRep {
        flags: McppFlags::LOOKUP_DONE | McppFlags::PERM_DONE | McppFlags::CHILD_DERIVED,
        child_mode: 0o042_755,
        child_gid: 600,
        ..Default::default()
    });
    outcome.set_result(MliBuf::Pattr, PrepResult::Present(Bytes::from(pattr_bytes)));
    outcome.set_result(MliBuf::DefAcl, PrepResult::Absent);
    outcome.set_result(
        MliBuf::Pin,
        PrepResult::Present(Bytes::from_static(b"[pool: fast]")),
    );
    outcome.set_result(MliBuf::Lmv, PrepResult::Absent);
    outcome.set_result(
        MliBuf::Lov,
        PrepResult::Unknown(UnknownReason::Truncated { size: 100 }),
    );
    outcome.set_result(MliBuf::DefLmv, PrepResult::Absent);
    let reply = PrepareReply::granting(&ctx, LustreHandle(0xfeed_5eed), Some(outcome));
    let reply_wire = reply.to_bytes(Endian::Little)?;

    // 4. Decode the reply against the request and fill the intent's buffers: no allocation.
    let view = ReplyView::parse_for(&reply_wire, &request.reply_context()?)?;
    intent.fill(&view);
    let rep = intent.reply.expect("a prepare reply came back");
    println!(
        "status {}, flags {}, child mode {:#o} gid {}",
        rep.status, rep.flags, rep.child_mode, rep.child_gid
    );

    // 5. What is known is seeded into the cache; each unknown result costs one read.
    for b in MliBuf::ALL {
        let rb = &intent.reply_buf[b.index()];
        match rb.state {
            PrepResult::Present(()) => println!("{b}: present, {} bytes (seed the cache)", rb.len),
            PrepResult::Absent => println!("{b}: absent (seed a negative entry)"),
            PrepResult::Unknown(UnknownReason::Truncated { size }) => {
                println!("{b}: truncated at {size} bytes (read it after the lock)")
            }
            PrepResult::Unknown(_) => println!("{b}: unknown (read it after the lock)"),
        }
    }
    Ok(())
}
