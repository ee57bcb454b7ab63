//! `MdLockIntent` against the same vectors.

use super::*;

pub(crate) fn mkdir_intent_body() -> MdCreatePrepareReq {
    MdCreatePrepareReq {
        fid: PARENT,
        fsuid: 500,
        fsgid: 500,
        umask: 0o022,
        child_mode: 0o040755,
        // Recomputed from the reply buffers by to_request().
        buf_limit: [0; 6],
        ..Default::default()
    }
}

/// A create intent for "newdir" whose six result buffers are `store`'s.
pub(crate) fn mkdir_intent(store: &mut [Vec<u8>]) -> MdLockIntent<'static, '_> {
    let [b0, b1, b2, b3, b4, b5] = store else {
        panic!("six result buffers, got {}", store.len());
    };
    MdLockIntent::new(
        Operation::Create,
        mkdir_intent_body(),
        Some(b"newdir"),
        [b0, b1, b2, b3, b4, b5],
    )
}

#[test]
pub(crate) fn lock_intent_builds_the_mkdir_request() {
    let bytes = load("mkdir_request");
    let view = RequestView::parse(&bytes).expect("mkdir_request parses");
    let mut store: Vec<Vec<u8>> = LIMITS_ALL.iter().map(|&l| vec![0u8; l as usize]).collect();
    let intent = mkdir_intent(&mut store);
    assert_eq!(intent.limits().expect("limits fit"), LIMITS_ALL);
    let built = intent
        .to_request(&GROUPS, LockMode::PW, HASH_NEWDIR)
        .expect("intent builds a valid request");
    let want = view.to_value();
    // What the intent decides equals the vector.
    assert_eq!(built.opc, want.opc, "opc");
    assert_eq!(built.body, want.body, "md_create_prepare_req");
    assert_eq!(built.name, want.name, "name");
    assert_eq!(built.groups, want.groups, "groups");
    assert_eq!(built.header.repsize, 21144, "lm_repsize");
    assert_eq!(built.header.repsize, want.header.repsize, "lm_repsize");
    assert_eq!(built.ldlm.lock_flags, want.ldlm.lock_flags, "lock_flags");
    assert_eq!(built.ldlm.lock_count, want.ldlm.lock_count, "lock_count");
    // The transport fills in the rest: the RPC header, the lock handle, the initiator index.
    let mut patched = built;
    patched.header.flags = want.header.flags;
    patched.ptlrpc = want.ptlrpc;
    patched.ldlm.handles = want.ldlm.handles;
    patched.ldlm.lock_desc.policy.initiator_id = 1;
    assert_eq!(patched, want, "patched intent request equals the vector");
    let again = patched
        .to_bytes(Endian::Little)
        .expect("patched request encodes");
    assert_eq!(&again[..], &bytes[..], "and encodes to the vector's bytes");

    // More than 128 groups: cut to 128, MCPR_GROUPS_PARTIAL.
    let many: Vec<u32> = (1000..1200).collect();
    let partial = intent
        .to_request(&many, LockMode::PW, HASH_NEWDIR)
        .expect("partial request");
    assert_eq!(partial.groups.as_slice(), &many[..128]);
    assert!(partial.body.flags.contains(McprFlags::GROUPS_PARTIAL));
}

pub(crate) fn reply_view<'a>(bytes: &'a [u8], name: &str) -> ReplyView<'a> {
    let req = load("mkdir_request");
    let ctx = RequestView::parse(&req)
        .expect("mkdir_request parses")
        .reply_context();
    ReplyView::parse_for(bytes, &ctx).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
pub(crate) fn lock_intent_fills_from_the_complete_reply() {
    let bytes = load("mkdir_reply_complete");
    let view = reply_view(&bytes, "mkdir_reply_complete");
    let mut store: Vec<Vec<u8>> = LIMITS_ALL.iter().map(|&l| vec![0xAA; l as usize]).collect();
    let mut intent = mkdir_intent(&mut store);
    intent.fill(&view);
    assert!(intent.replied);
    assert_eq!(intent.reply, view.body());
    let lens = [216, 44, 19, 88, 32, 48];
    for b in MliBuf::ALL {
        let rb = &intent.reply_buf[b.index()];
        assert_eq!(rb.state, PrepResult::Present(()), "{b} state");
        assert_eq!(rb.len, lens[b.index()], "{b} length");
        let PrepResult::Present(src) = view.result(b) else {
            panic!("{b} present in the view");
        };
        assert_eq!(rb.data(), src, "{b} bytes copied");
        assert!(
            rb.buf[rb.len..].iter().all(|&x| x == 0xAA),
            "{b}: nothing written past the result"
        );
    }
    assert_eq!(intent.reply_buf[1].data(), &DEF_ACL[..]);
    assert_eq!(intent.reply_buf[2].data(), PIN);
    assert_eq!(intent.reply_buf[3].data(), &lmv()[..]);
    assert_eq!(intent.reply_buf[4].data(), &lov()[..]);
    assert_eq!(intent.reply_buf[5].data(), &def_lmv()[..]);
    let body = MdtBody::decode(intent.reply_buf[0].data(), Endian::Little).expect("PATTR");
    assert_eq!(body, parent_body());
}

#[test]
pub(crate) fn lock_intent_fills_from_the_truncated_and_empty_replies() {
    let bytes = load("mkdir_reply_lov_truncated");
    let view = reply_view(&bytes, "mkdir_reply_lov_truncated");
    let mut store: Vec<Vec<u8>> = LIMITS_ALL.iter().map(|&l| vec![0xAA; l as usize]).collect();
    {
        let mut intent = mkdir_intent(&mut store);
        intent.fill(&view);
        assert!(intent.replied);
        let lov = &intent.reply_buf[MliBuf::Lov.index()];
        assert_eq!(
            lov.state,
            PrepResult::Unknown(UnknownReason::Truncated { size: 5320 })
        );
        assert_eq!(lov.len, 0);
        assert_eq!(lov.data(), &[] as &[u8]);
        let lens = [216, 44, 19, 88, 0, 48];
        for b in MliBuf::ALL.into_iter().filter(|&b| b != MliBuf::Lov) {
            let rb = &intent.reply_buf[b.index()];
            assert_eq!(rb.state, PrepResult::Present(()), "{b}");
            assert_eq!(rb.len, lens[b.index()], "{b}");
        }
    }
    assert!(store[4].iter().all(|&x| x == 0xAA), "LOV buffer untouched");

    let bytes = load("mkdir_reply_empty");
    let view = reply_view(&bytes, "mkdir_reply_empty");
    let mut intent = mkdir_intent(&mut store);
    intent.fill(&view);
    assert!(!intent.replied);
    assert_eq!(intent.reply, None);
    for rb in &intent.reply_buf {
        assert_eq!(rb.state, PrepResult::Unknown(UnknownReason::EmptyResult));
        assert_eq!(rb.len, 0);
        assert_eq!(rb.data(), &[] as &[u8]);
    }
}

#[test]
pub(crate) fn lock_intent_fill_into_a_too_small_buffer() {
    let bytes = load("mkdir_reply_complete");
    let view = reply_view(&bytes, "mkdir_reply_complete");
    // DEF_ACL is 44 bytes; its destination is the first 40 bytes of a larger sentinel array.
    let mut backing = [0x5Au8; 64];
    let mut others: Vec<Vec<u8>> = vec![vec![0; 216], vec![], vec![0; 4096], vec![0; 4096]];
    others.push(vec![0; 4096]);
    {
        let (small, _rest) = backing.split_at_mut(40);
        let [b0, _, b2, b3, b4] = &mut others[..] else {
            unreachable!()
        };
        let mut last = vec![0u8; 4096];
        let mut intent = MdLockIntent::new(
            Operation::Create,
            mkdir_intent_body(),
            Some(b"newdir"),
            [b0, small, b2, b3, b4, &mut last],
        );
        intent.fill(&view);
        let acl = &intent.reply_buf[MliBuf::DefAcl.index()];
        assert_eq!(
            acl.state,
            PrepResult::Unknown(UnknownReason::Truncated { size: 44 }),
            "reports the real size"
        );
        assert_eq!(acl.len, 0);
        assert_eq!(acl.data(), &[] as &[u8]);
        assert_eq!(
            intent.reply_buf[MliBuf::Pin.index()].state,
            PrepResult::Present(())
        );
    }
    assert!(
        backing.iter().all(|&x| x == 0x5A),
        "nothing written into or past the too-small buffer"
    );
}
