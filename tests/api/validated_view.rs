//! What a validated `ReplyView` does without validating again: `encode_into` writes exactly what
//! the validating encoder of the owned value writes, for every golden reply in both orders, and
//! `def_acl` gives the view `AclView::parse` gives.

use crate::common::golden_messages;
use lustre_dne_intent::intent::{MliBuf, PrepResult, ReplyView};
use lustre_dne_intent::xattr::AclView;
use lustre_dne_intent::{EncodeError, Endian};

fn replies() -> Vec<(String, Vec<u8>)> {
    golden_messages()
        .into_iter()
        .filter(|(name, _)| name.contains("_reply"))
        .collect()
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

#[test]
fn the_default_acl_of_a_validated_reply_is_the_parsed_one() {
    let mut seen = 0;
    for (name, bytes) in &replies() {
        let view = ReplyView::parse(bytes).expect("valid");
        let got = view.def_acl();
        match view.result(MliBuf::DefAcl) {
            PrepResult::Present(acl) => {
                let want = AclView::parse(acl).expect("valid ACL");
                assert!(want.len() >= 3, "{name}: {} entries", want.len());
                assert_eq!(got, PrepResult::Present(want), "{name}");
                seen += 1;
            }
            other => assert_eq!(got.map(|_| ()), other.map(|_| ()), "{name}"),
        }
    }
    assert!(seen >= 3, "golden replies with a default ACL: {seen}");
}
