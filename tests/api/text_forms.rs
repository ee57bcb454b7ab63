//! Display and FromStr of the flag sets, open and closed enumerations: every named value and
//! unknown bits round trip, the grammar is bitflags-compatible, and width is honoured.

use lustre_dne_intent::intent::*;
use lustre_dne_intent::wire::*;
use lustre_dne_intent::xattr::*;
use lustre_dne_intent::{Endian, ParseErrorKind};

/// Every named value, the empty set, unknown bits, and a named value plus unknown bits.
macro_rules! flags_round_trip {
    ($($T:ty),* $(,)?) => {$({
        for &(name, v) in <$T>::NAMED {
            let x = <$T>::from_name(name).unwrap();
            assert_eq!(x.bits(), v);
            assert_eq!(x.to_string().parse::<$T>().unwrap(), x, "{name}");
            assert_eq!(name.parse::<$T>().unwrap().bits(), v);
        }
        let empty = <$T>::EMPTY;
        // A set of results prints as nothing when empty; every other flag set as `0x0`.
        let empty_text = if stringify!($T) == "ResultMask" { "" } else { "0x0" };
        assert_eq!(empty.to_string(), empty_text);
        assert_eq!("0x0".parse::<$T>().unwrap(), empty);
        assert_eq!("".parse::<$T>().unwrap(), empty);
        let unknown = !<$T>::known();
        if !unknown.is_empty() {
            let s = unknown.to_string();
            assert!(s.starts_with("0x"), "{s}");
            assert_eq!(s.parse::<$T>().unwrap(), unknown);
            let (first, _) = <$T>::NAMED[0];
            let mixed = <$T>::from_name(first).unwrap() | unknown;
            assert_eq!(mixed.to_string().parse::<$T>().unwrap(), mixed);
        }
        assert_eq!(
            "NOT_A_NAME".parse::<$T>().unwrap_err().kind,
            ParseErrorKind::UnknownName
        );
    })*};
}

#[test]
fn every_flag_set_round_trips_through_text() {
    flags_round_trip!(
        LdlmFlags,
        InodeBits,
        DispFlags,
        MsgFlags,
        MdtValid,
        McprFlags,
        McppFlags,
        ResultMask,
        LmvHashFlags,
        LovPattern,
        LcmeFlags,
        LcmFlags,
    );
}

macro_rules! enum_round_trip {
    ($($T:ty),* $(,)?) => {$({
        for &(name, v) in <$T>::NAMED {
            let x = <$T>::from_name(name).unwrap();
            assert_eq!(x.to_string(), name);
            assert_eq!(name.parse::<$T>().unwrap().0, v);
            assert_eq!(format!("{v:#x}").parse::<$T>().unwrap().0, v);
            assert_eq!(v.to_string().parse::<$T>().unwrap().0, v);
        }
        assert_eq!("BOGUS".parse::<$T>().unwrap_err().kind, ParseErrorKind::UnknownName);
        assert_eq!("".parse::<$T>().unwrap_err().kind, ParseErrorKind::Empty);
    })*};
}

#[test]
fn every_open_enumeration_round_trips_through_text() {
    enum_round_trip!(
        LockType,
        LockMode,
        PtlrpcMsgType,
        IntentOpc,
        AclTag,
        LmvHashFn,
        ForeignType
    );
    // An unnamed value prints in hex and reads back.
    let odd = LockMode(0x3);
    assert_eq!(odd.to_string(), "0x3");
    assert_eq!("0x3".parse::<LockMode>().unwrap(), odd);
    // Too wide for the type.
    assert_eq!(
        "0x10000".parse::<AclTag>().unwrap_err().kind,
        ParseErrorKind::BadNumber
    );
}

#[test]
fn the_grammar_takes_bitflags_spacing_and_hex_parts() {
    let want = McprFlags::from_name("MCPR_NO_LOOKUP").unwrap().bits()
        | McprFlags::from_name("MCPR_GROUPS_PARTIAL").unwrap().bits()
        | 0x80;
    for s in [
        "MCPR_NO_LOOKUP|MCPR_GROUPS_PARTIAL|0x80",
        " MCPR_NO_LOOKUP | MCPR_GROUPS_PARTIAL | 0x80 ",
        "0x80|MCPR_GROUPS_PARTIAL|MCPR_NO_LOOKUP",
    ] {
        assert_eq!(s.parse::<McprFlags>().unwrap().bits(), want, "{s}");
    }
    let e = "MCPR_NO_LOOKUP||0x1".parse::<McprFlags>().unwrap_err();
    assert_eq!((e.kind, e.offset), (ParseErrorKind::Empty, 15));
    let e = "MCPR_NO_LOOKUP|mcpr_no_lookup"
        .parse::<McprFlags>()
        .unwrap_err();
    assert_eq!((e.kind, e.offset), (ParseErrorKind::UnknownName, 15));
    assert_eq!(
        "0x1_0000_0000".parse::<McprFlags>().unwrap_err().kind,
        ParseErrorKind::BadNumber
    );
    assert_eq!(
        "0x100000000".parse::<McprFlags>().unwrap_err().kind,
        ParseErrorKind::BadNumber
    );
    assert_eq!(e.to_string(), "McprFlags: unknown name at byte 15");
}

#[test]
fn display_honours_width_fill_and_alignment() {
    assert_eq!(format!("{:>12}", LockMode::PW), "      LCK_PW");
    assert_eq!(format!("{:<8}|", LockMode(3)), "0x3     |");
    assert_eq!(format!("{:*^9}", Endian::Big), "***be****");
    assert_eq!(format!("{:>8}", Operation::Unlink), "  unlink");
    assert_eq!(format!("{:16}|", MliBuf::Pin), "MLI_BUF_PIN     |");
    let f = LdlmFlags::HAS_INTENT | LdlmFlags(0x4);
    assert_eq!(f.to_string(), "HAS_INTENT|0x4");
    assert_eq!(format!("{f:>16}"), "  HAS_INTENT|0x4");
    assert_eq!(format!("{f:-<16}"), "HAS_INTENT|0x4--");
    // Narrower than the text: no truncation.
    assert_eq!(format!("{f:3}"), "HAS_INTENT|0x4");
    assert_eq!(
        format!("{:>24}|", LuFid::new(0x2_0000_0401, 1, 0)),
        "   [0x200000401:0x1:0x0]|"
    );
    assert_eq!(
        format!("{:<8}|", EntryName::new(b"a\xff").unwrap()),
        "a\\xff   |"
    );
    assert_eq!(
        format!("{:>18}", LmvHashType(3 | 0x8000_0000)),
        "   crush,migrating"
    );
}

#[test]
fn closed_enumerations_round_trip_through_text() {
    for op in [Operation::Create, Operation::Rename, Operation::Unlink] {
        assert_eq!(op.to_string().parse::<Operation>().unwrap(), op);
    }
    assert_eq!("create".parse::<Operation>().unwrap(), Operation::Create);
    assert_eq!(
        "Create".parse::<Operation>().unwrap_err().kind,
        ParseErrorKind::UnknownName
    );
    for b in MliBuf::ALL {
        assert_eq!(b.to_string().parse::<MliBuf>().unwrap(), b);
        assert_eq!(b.short_name().parse::<MliBuf>().unwrap(), b);
    }
    assert_eq!("MLI_BUF_DEF_ACL".parse::<MliBuf>().unwrap(), MliBuf::DefAcl);
    for e in [Endian::Little, Endian::Big] {
        assert_eq!(e.to_string().parse::<Endian>().unwrap(), e);
    }
    assert_eq!("le".parse::<Endian>().unwrap(), Endian::Little);
    assert!("LE".parse::<Endian>().is_err());
}

#[test]
fn result_masks_collect_and_intersect() {
    let m: ResultMask = [MliBuf::Pattr, MliBuf::Lov].into_iter().collect();
    assert_eq!(m.bits(), 0b1_0001);
    let mut n = ResultMask::EMPTY;
    n.extend(MliBuf::ALL);
    assert_eq!(n, ResultMask::ALL);
    assert_eq!((m & ResultMask::LOV).bits(), 0b1_0000);
    let mut k = ResultMask::ALL;
    k &= !ResultMask::PATTR;
    assert_eq!(k.bits(), 0x3e);
    assert_eq!((!ResultMask::EMPTY).bits(), u32::MAX);
}

#[test]
fn lmv_hash_types_read_lfs_text() {
    for v in [2u32, 3 | 0x8000_0000, 0x0200_0002, 7, 2 | 0x0040_0000] {
        let h = LmvHashType(v);
        assert_eq!(h.to_string().parse::<LmvHashType>().unwrap(), h, "{h}");
    }
    assert_eq!(
        "crush,migrating".parse::<LmvHashType>().unwrap().0,
        3 | 0x8000_0000
    );
    assert_eq!(LmvHashType(3 | 0x8000_0000).to_string(), "crush,migrating");
}
