//! Property test of the serde form (features `serde` and `arbitrary`): any request or reply
//! value, with 64-bit values above 2^53 and unknown flag bits forced in, reads back from JSON
//! equal, and a valid one re-encodes to the same bytes.
#![cfg(all(feature = "serde", feature = "arbitrary"))]

use arbitrary::{Arbitrary, Unstructured};
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::*;
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(512)
}

fn through_json<T: serde::Serialize + serde::de::DeserializeOwned>(v: &T) -> T {
    let s = serde_json::to_string(v).unwrap();
    // What jq would do to a number above 2^53 cannot happen: no such number is written.
    let json: serde_json::Value = serde_json::from_str(&s).unwrap();
    assert!(no_big_numbers(&json), "a number above 2^53 in {s}");
    serde_json::from_str(&s).unwrap_or_else(|e| panic!("{e}\n{s}"))
}

fn no_big_numbers(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Number(n) => n.as_u64().is_none_or(|x| x < 1 << 53),
        serde_json::Value::Array(a) => a.iter().all(no_big_numbers),
        serde_json::Value::Object(m) => m.values().all(no_big_numbers),
        _ => true,
    }
}

/// Forces the values the property is about into a request: high u64s and unknown bits.
fn spice_request(r: &mut PrepareRequest, x: u64) {
    r.ptlrpc.last_xid |= 1 << 63;
    r.ptlrpc.handle = LustreHandle(r.ptlrpc.handle.0 | (x & 0xffff) << 48);
    r.ldlm.lock_desc.resource.name[3] |= 1 << 62;
    r.ldlm.lock_flags |= LdlmFlags(0x4);
    r.body.flags |= McprFlags(0x8000_0000);
    r.body.cap |= 1 << 60;
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn requests_survive_json(data in proptest::collection::vec(any::<u8>(), 600..2000), x in any::<u64>()) {
        let mut u = Unstructured::new(&data);
        let Ok(mut req) = PrepareRequest::arbitrary(&mut u) else { return Ok(()) };
        let valid_before = req.validate().is_ok();
        if x & 1 == 0 {
            spice_request(&mut req, x);
        }
        let back = through_json(&req);
        prop_assert_eq!(back, req);
        if valid_before && req.validate().is_ok() {
            for order in [Endian::Little, Endian::Big] {
                prop_assert_eq!(back.to_bytes(order).unwrap(), req.to_bytes(order).unwrap());
            }
        }
    }

    #[test]
    fn replies_survive_json(data in proptest::collection::vec(any::<u8>(), 600..4000), x in any::<u64>()) {
        let mut u = Unstructured::new(&data);
        let Ok(mut rep) = PrepareReply::arbitrary(&mut u) else { return Ok(()) };
        if x & 1 == 0 {
            rep.ptlrpc.transno |= 1 << 63;
            rep.ldlm.policy_res1 |= DispFlags(1 << 40);
            rep.ldlm.lock_handle = LustreHandle(x | 1 << 63);
        }
        let back = through_json(&rep);
        prop_assert_eq!(&back, &rep);
        if rep.validate(None).is_ok() {
            prop_assert_eq!(back.to_bytes(Endian::Big).unwrap(), rep.to_bytes(Endian::Big).unwrap());
        }
    }

    #[test]
    fn fixed_structures_survive_json(data in proptest::collection::vec(any::<u8>(), 400..800)) {
        let mut u = Unstructured::new(&data);
        if let Ok(v) = MdtBody::arbitrary(&mut u) {
            prop_assert_eq!(through_json(&v), v);
        }
        if let Ok(v) = LdlmRequest::arbitrary(&mut u) {
            prop_assert_eq!(through_json(&v), v);
        }
        if let Ok(v) = MdCreatePrepareRep::arbitrary(&mut u) {
            prop_assert_eq!(through_json(&v), v);
        }
        if let Ok(v) = lustre_dne_intent::xattr::LmvHashType::arbitrary(&mut u) {
            prop_assert_eq!(through_json(&v), v);
        }
        if let Ok(v) = lustre_dne_intent::xattr::AclEntry::arbitrary(&mut u) {
            prop_assert_eq!(through_json(&v), v);
        }
    }
}

/// The properties above skip inputs `arbitrary` cannot shape; most inputs must give a value,
/// else they would test nothing.
#[test]
fn arbitrary_inputs_mostly_give_values() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut bytes = |n: usize| -> Vec<u8> {
        (0..n)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect()
    };
    let (mut reqs, mut reps) = (0, 0);
    for _ in 0..100 {
        let d = bytes(1500);
        reqs += PrepareRequest::arbitrary(&mut Unstructured::new(&d)).is_ok() as u32;
        let d = bytes(3000);
        reps += PrepareReply::arbitrary(&mut Unstructured::new(&d)).is_ok() as u32;
    }
    assert!(
        reqs >= 80 && reps >= 80,
        "requests {reqs}, replies {reps} of 100"
    );
}
