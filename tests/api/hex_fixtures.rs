//! `hex` against committed output of the real tools (`testdata/hex/`, made as its README says):
//! every form `xxd`, `xxd -p`, `xxd -a`, `xxd -u -g1 -c32` and `hexdump -C` print decodes to
//! the file's bytes, getfattr's values decode to the payloads getfacl describes, and a dump
//! broken by hand is refused at the line and byte where it breaks. No tool is needed.

use lustre_dne_intent::hex::{self, HexError, HexForm, LineError};
use lustre_dne_intent::xattr::{AclKind, AclView};

const REPLY: &[u8] = include_bytes!("../../testdata/mkdir_reply_complete.bin");

/// Each committed dump of `mkdir_reply_complete.bin`, with the form it is in.
const DUMPS: [(&str, &str, HexForm); 5] = [
    (
        "xxd",
        include_str!("../../testdata/hex/mkdir_reply_complete.xxd"),
        HexForm::Xxd,
    ),
    (
        "xxd -p",
        include_str!("../../testdata/hex/mkdir_reply_complete.xxd-p"),
        HexForm::Plain,
    ),
    (
        "xxd -a",
        include_str!("../../testdata/hex/mkdir_reply_complete.xxd-a"),
        HexForm::Xxd,
    ),
    (
        "xxd -u -g1 -c32",
        include_str!("../../testdata/hex/mkdir_reply_complete.xxd-u-g1-c32"),
        HexForm::Xxd,
    ),
    (
        "hexdump -C",
        include_str!("../../testdata/hex/mkdir_reply_complete.hexdump-C"),
        HexForm::HexdumpC,
    ),
];

const GETFATTR: &str = include_str!("../../testdata/hex/acldir.getfattr");
const GETFACL: &str = include_str!("../../testdata/hex/acldir.getfacl");

#[test]
fn hex_every_committed_dump_decodes_to_the_file() {
    assert_eq!(REPLY.len(), 904);
    for (tool, text, form) in DUMPS {
        assert_eq!(hex::form(text), Some(form), "{tool}");
        assert_eq!(hex::decode(text).as_deref(), Ok(REPLY), "{tool}");
        assert_eq!(hex::decode_form(text, form).as_deref(), Ok(REPLY), "{tool}");
    }
    // `xxd -p` is what `xxd_plain` writes, byte for byte.
    assert_eq!(hex::xxd_plain(REPLY), DUMPS[1].1);
    // The two dumps that leave rows out do so (else they would test nothing more).
    assert!(DUMPS[2].1.lines().any(|l| l == "*"), "xxd -a");
    assert_eq!(DUMPS[4].1.lines().filter(|l| *l == "*").count(), 3);
}

/// getfattr's `name=0x…` pairs of `acldir`, values decoded as the plain form.
fn getfattr_values() -> Vec<(&'static str, Vec<u8>)> {
    GETFATTR
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(name, value)| {
            let bytes = hex::decode_form(value, HexForm::Plain).unwrap_or_else(|e| panic!("{e}"));
            (name, bytes)
        })
        .collect()
}

#[test]
fn hex_getfattr_values_decode_to_what_getfacl_prints() {
    let values = getfattr_values();
    let names: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "system.posix_acl_access",
            "system.posix_acl_default",
            "user.blob"
        ]
    );
    // The access and default ACLs render as getfacl printed them, after its three comment lines.
    let access = AclView::parse(&values[0].1).unwrap();
    let default = AclView::parse(&values[1].1).unwrap();
    let rendered = format!(
        "{}{}",
        access.getfacl(AclKind::Access),
        default.getfacl(AclKind::Default)
    );
    let printed: String = GETFACL
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(rendered, printed);
    assert_eq!(access.len(), 6);
    assert_eq!(values[2].1, [0x0b, 0xd0, 0x0b, 0xd3, 0xff, 0x00]);
    // The whole output is no hex form: its first line is a comment.
    assert_eq!(
        hex::decode(GETFATTR),
        Err(HexError::NotHex {
            line: 1,
            column: 1,
            found: '#'
        })
    );
}

#[test]
fn hex_real_dumps_broken_by_hand_name_the_line() {
    let (_, xxd, _) = DUMPS[0];
    // Line 3 left out: line 4 (now the third) starts past what the two before it hold.
    let gap: String = xxd
        .lines()
        .enumerate()
        .filter(|&(i, _)| i != 2)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    assert_eq!(
        hex::decode(&gap),
        Err(HexError::Line {
            form: HexForm::Xxd,
            line: 3,
            error: LineError::OffsetMismatch {
                offset: 0x30,
                held: 0x20
            },
        })
    );
    // A digit of line 2 replaced: the error counts from the start of its byte columns.
    let bad = xxd.replacen("00000010: 0000 0000 0100", "00000010: 0000 0000 01g0", 1);
    assert_eq!(
        hex::decode(&bad),
        Err(HexError::Line {
            form: HexForm::Xxd,
            line: 2,
            error: LineError::NotADigit {
                offset: 12,
                byte: b'g'
            },
        })
    );
    // hexdump -C with a `*` before any row (the form is still told by the rows).
    let (_, hexdump, _) = DUMPS[4];
    let star_first = format!("*\n{hexdump}");
    assert_eq!(
        hex::decode(&star_first),
        Err(HexError::Line {
            form: HexForm::HexdumpC,
            line: 2,
            error: LineError::RepeatWithoutRow,
        })
    );
    // `xxd -p` with one digit dropped at the end: odd.
    let (_, plain, _) = DUMPS[1];
    let odd = &plain[..plain.trim_end().len() - 1];
    assert_eq!(hex::decode(odd), Err(HexError::OddDigits));
}
