//! The text form of a fault (`dne-intent simulate --fault`): every fault round trips through
//! its name, the counted ones within their bounds, and width is honoured.

use lustre_dne_intent::intent::MliBuf;
use lustre_dne_intent_model::Fault;

#[test]
fn faults_round_trip_through_text() {
    for f in Fault::all() {
        assert_eq!(f.to_string().parse::<Fault>().unwrap(), f, "{f}");
        assert_eq!(Fault::from_name(&f.name()), Some(f));
    }
    for n in [0u8, 2, 3, 17, 200, 255] {
        let f = Fault::PartialGroups(n);
        assert_eq!(f.to_string(), format!("partial-groups-{n}"));
        assert_eq!(f.to_string().parse::<Fault>().unwrap(), f);
    }
    assert_eq!(
        Fault::Unknown(MliBuf::DefAcl).to_string(),
        "unknown-def-acl"
    );
    assert_eq!(Fault::Truncated(MliBuf::Lov).to_string(), "truncated-lov");
    assert_eq!(
        "peer-without-flag".parse::<Fault>().unwrap(),
        Fault::PeerWithoutFlag
    );
    assert_eq!(format!("{:>8}", Fault::Replay), "  replay");
    assert!("partial-groups-256".parse::<Fault>().is_err());
    assert!("partial-groups-".parse::<Fault>().is_err());
    assert!("nope".parse::<Fault>().is_err());
}
