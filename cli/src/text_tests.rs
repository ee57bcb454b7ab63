//! The text printer follows the declarations: a member added to a copy of one is printed, at
//! its place, as its display hint says; the remarks beside a value come from the declaration.

use super::{Out, structure};
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::MdCreatePrepareReq;
use lustre_dne_intent::wire::WireStruct;
use lustre_dne_intent_conformance::member_added::RepWithNlink as Rep;
use zerocopy::{IntoBytes, LittleEndian};

fn printed(l: &lustre_dne_intent::wire::layout::Layout, bytes: &[u8]) -> String {
    let mut o = Out(String::new());
    structure(&mut o, 1, l, bytes, Endian::Little);
    o.0
}

/// Each printed line as (name, value), the alignment dropped.
fn lines(text: &str) -> Vec<(&str, &str)> {
    text.lines()
        .map(|l| l.trim().split_once(' ').unwrap_or((l.trim(), "")))
        .map(|(n, v)| (n, v.trim()))
        .collect()
}

#[test]
fn a_member_added_to_a_declaration_is_printed() {
    let v = Rep {
        child_nlink: 2,
        child_mode: 0o40755,
        child_gid: 500,
        buf_size: [216, 0, 0, 0, 0, 48],
        ..Rep::default()
    };
    let text = printed(Rep::LAYOUT, v.to_raw::<LittleEndian>().as_bytes());
    let lines = lines(&text);
    let nlink = lines
        .iter()
        .position(|&(n, _)| n == "mcpp_child_nlink")
        .expect("the new member is printed");
    // It and the members after it are read where the copy puts them, in its order.
    assert_eq!(
        lines[nlink..nlink + 3],
        [
            ("mcpp_child_nlink", "2"),
            ("mcpp_child_mode", "040755 (S_IFDIR, drwxr-xr-x)"),
            ("mcpp_child_gid", "500"),
        ]
    );
    // The index names are the declaration's; padding is not printed.
    assert!(
        lines.contains(&("mcpp_buf_size[5]", "48 MLI_BUF_DEF_LMV")),
        "{text}"
    );
    assert!(!text.contains("mcpp_padding"));
}

/// The remarks beside a value are the codec's declaration's: the result each limit is for and
/// what a limit of 0 means.
#[test]
fn remarks_come_from_the_declaration() {
    let req = MdCreatePrepareReq {
        buf_limit: [216, 0, 0, 0, 0, 48],
        ..MdCreatePrepareReq::default()
    };
    let text = printed(
        MdCreatePrepareReq::LAYOUT,
        req.to_raw::<LittleEndian>().as_bytes(),
    );
    let lines = lines(&text);
    for want in [
        ("mcpr_buf_limit[0]", "216 MLI_BUF_PATTR"),
        ("mcpr_buf_limit[1]", "0 MLI_BUF_DEF_ACL (not requested)"),
        ("mcpr_flags", "0 [entry mode]"),
    ] {
        assert!(lines.contains(&want), "{want:?} in\n{text}");
    }
}
