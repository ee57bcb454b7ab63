//! `ReplyView::encode_into`, the re-encoder that trusts the view's validation, writes exactly
//! what the validating encoder of the owned value writes, for every golden reply in both orders.

use lustre_dne_intent::intent::ReplyView;
use lustre_dne_intent::{EncodeError, Endian};

fn replies() -> Vec<(String, Vec<u8>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .expect("testdata")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "bin")
                && p.file_name()
                    .is_some_and(|n| n.to_string_lossy().contains("_reply"))
        })
        .map(|p| (p.display().to_string(), std::fs::read(&p).expect("read")))
        .collect();
    v.sort();
    v
}

#[test]
fn the_view_reencodes_as_the_owned_value_does() {
    let all = replies();
    assert!(all.len() >= 9, "golden replies: {}", all.len());
    for (name, bytes) in &all {
        let view = ReplyView::parse(bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        for order in [Endian::Little, Endian::Big] {
            let want = view.to_value().to_bytes(order).expect("encodes");
            let mut out = vec![0xa5u8; want.len() + 16];
            let n = view.encode_into(order, &mut out).expect("fits");
            assert_eq!(&out[..n], &want[..], "{name} in {order}");
            assert!(
                out[n..].iter().all(|&b| b == 0xa5),
                "{name}: wrote past the end"
            );
            if order == view.order() && view.is_canonical() {
                assert_eq!(&out[..n], &bytes[..], "{name}: canonical input comes back");
            }
            let short = want.len() - 1;
            assert_eq!(
                view.encode_into(order, &mut out[..short]),
                Err(EncodeError::BufferTooSmall {
                    need: want.len(),
                    have: short
                }),
                "{name}"
            );
        }
    }
}
