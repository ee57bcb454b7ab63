//! Harness bodies shared by the cargo-fuzz targets in `fuzz/` and by `cargo test`, which replays
//! the corpus through them. Not a stable API.
//!
//! Each function takes arbitrary bytes, may see them rejected, and panics only when an invariant
//! of the crate breaks (that panic is the finding).

use crate::intent::{MdLockIntent, MliBuf, PrepResult, ReplyView, RequestView, UnknownReason};
use crate::limits::MLI_BUF_MAX;
use crate::wire::MsgView;

/// Any bytes as a request and as a reply: errors are fine, panics are not. What decodes must
/// re-encode, and the re-encoding must decode to the same value.
pub fn decode_message(data: &[u8]) {
    let _ = MsgView::parse(data);
    if let Ok(view) = RequestView::parse(data) {
        let value = view.to_value();
        let bytes = value
            .to_bytes(view.order())
            .expect("a decoded request re-encodes");
        let again = RequestView::parse(&bytes).expect("a re-encoded request decodes");
        assert_eq!(
            again.to_value(),
            value,
            "request value changed through the wire"
        );
        let _ = view.reply_context();
    }
    if let Ok(view) = ReplyView::parse(data) {
        let value = view.to_value();
        let bytes = value
            .to_bytes(view.order())
            .expect("a decoded reply re-encodes");
        let again = ReplyView::parse(&bytes).expect("a re-encoded reply decodes");
        assert_eq!(
            again.to_value(),
            value,
            "reply value changed through the wire"
        );
        for b in MliBuf::ALL {
            let _ = view.result(b);
        }
    }
}

/// Byte-exactness. Let R be the re-encoding of a decoded input I. Then R is canonical: decoding
/// and encoding it again gives R byte for byte. And when I and R have the same length, they
/// differ only where R holds a zero: the codec drops nothing but padding and reserved fields,
/// which it writes as zero.
pub fn roundtrip_bytes(data: &[u8]) {
    if let Ok(view) = RequestView::parse(data) {
        let r = view.to_value().to_bytes(view.order()).expect("re-encodes");
        let rr = RequestView::parse(&r)
            .expect("decodes")
            .to_value()
            .to_bytes(view.order())
            .expect("re-encodes");
        assert_eq!(r, rr, "request encoding is not canonical");
        assert_only_zeroed(data, &r);
    }
    if let Ok(view) = ReplyView::parse(data) {
        let r = view.to_value().to_bytes(view.order()).expect("re-encodes");
        let rr = ReplyView::parse(&r)
            .expect("decodes")
            .to_value()
            .to_bytes(view.order())
            .expect("re-encodes");
        assert_eq!(r, rr, "reply encoding is not canonical");
        assert_only_zeroed(data, &r);
    }
}

fn assert_only_zeroed(input: &[u8], reencoded: &[u8]) {
    if input.len() != reencoded.len() {
        return;
    }
    if let Some(k) = (0..input.len()).find(|&k| input[k] != reencoded[k] && reencoded[k] != 0) {
        panic!(
            "byte {k} changed from {:#04x} to {:#04x} through decode and encode",
            input[k], reencoded[k]
        );
    }
}

/// Arbitrary limits and an arbitrary reply into `md_lock_intent` buffers: no write past a
/// buffer, and lengths and states stay consistent with the reply.
pub fn lock_intent_fill(data: &[u8]) {
    let (sizes, reply) = data.split_at(data.len().min(MLI_BUF_MAX));
    let mut storage = [[0xa5u8; 512]; MLI_BUF_MAX];
    let mut caps = [0usize; MLI_BUF_MAX];
    for (c, s) in caps.iter_mut().zip(sizes) {
        *c = (*s as usize) * 2;
    }
    let Ok(view) = ReplyView::parse(reply) else {
        return;
    };
    let [b0, b1, b2, b3, b4, b5] = &mut storage;
    let bufs = [
        &mut b0[..caps[0]],
        &mut b1[..caps[1]],
        &mut b2[..caps[2]],
        &mut b3[..caps[3]],
        &mut b4[..caps[4]],
        &mut b5[..caps[5]],
    ];
    let mut intent = MdLockIntent::new(
        crate::intent::Operation::Create,
        Default::default(),
        None,
        bufs,
    );
    intent.fill(&view);
    assert_eq!(intent.replied, !view.is_empty_result());
    for b in MliBuf::ALL {
        let rb = &intent.reply_buf[b.index()];
        assert!(rb.len <= rb.buf.len(), "length past the buffer");
        match (view.result(b), rb.state) {
            (PrepResult::Present(src), PrepResult::Present(())) => assert_eq!(rb.data(), src),
            (PrepResult::Present(src), PrepResult::Unknown(UnknownReason::Truncated { size })) => {
                assert!(src.len() > rb.buf.len());
                assert_eq!(size as usize, src.len());
                assert_eq!(rb.len, 0);
            }
            (PrepResult::Absent, PrepResult::Absent) => assert_eq!(rb.len, 0),
            (PrepResult::Unknown(a), PrepResult::Unknown(c)) => {
                assert_eq!(a, c);
                assert_eq!(rb.len, 0);
            }
            (want, got) => panic!("{b}: reply says {want:?}, intent says {got:?}"),
        }
    }
    // Nothing past the destination slices was touched.
    for (i, s) in storage.iter().enumerate() {
        assert!(
            s[caps[i]..].iter().all(|&x| x == 0xa5),
            "write past buffer {i}"
        );
    }
}
