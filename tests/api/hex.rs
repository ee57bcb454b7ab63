//! `hex::decode` against the real dump tools: the `xxd -p`, `xxd` and `hexdump -C` output of
//! testdata files decodes to the files' bytes (`hex::xxd_plain` writes what `xxd -p` does);
//! the refusals carry their exact error values and the messages the `dne-intent` tool prints;
//! no truncation of a dump makes the decoder panic.
#![cfg(feature = "text")]

use lustre_dne_intent::hex::{self, HexError, HexForm, LineError};
use std::path::Path;
use std::process::Command;

/// A reply whose `hexdump -C` output leaves out repeated rows (`*`), and a short request.
const FILES: [&str; 3] = [
    "mkdir_reply_complete.bin",
    "mkdir_request.bin",
    "xattr_acl_default.bin",
];

fn testdata(name: &str) -> (String, Vec<u8>) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(name);
    let bytes = std::fs::read(&path).unwrap();
    (path.to_str().unwrap().to_owned(), bytes)
}

/// `tool args... path`'s standard output.
fn dump(tool: &str, args: &[&str], path: &str) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(path)
        .output()
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    assert!(out.status.success(), "{tool} {args:?} {path}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// One dump by a real tool: what made it, the file's bytes, the dump's form, its text.
type Dump = (String, Vec<u8>, HexForm, String);

/// Each file's dumps by the real tools, with their forms: `xxd -p`, `xxd`, `hexdump -C`;
/// `None` when a tool is missing (see `require`).
fn dumps() -> Option<Vec<Dump>> {
    if !crate::require::tools(&[("xxd", "xxd"), ("hexdump", "bsdextrautils")]) {
        return None;
    }
    let mut all = Vec::new();
    for name in FILES {
        let (path, bytes) = testdata(name);
        for (tool, args, form) in [
            ("xxd", &["-p"][..], HexForm::Plain),
            ("xxd", &[][..], HexForm::Xxd),
            ("hexdump", &["-C"][..], HexForm::HexdumpC),
        ] {
            let text = dump(tool, args, &path);
            let what = format!("{tool} {} {name}", args.join(" "));
            all.push((what, bytes.clone(), form, text));
        }
    }
    Some(all)
}

#[test]
fn hex_real_dumps_decode_to_the_files_bytes() {
    let Some(all) = dumps() else {
        return;
    };
    for (what, bytes, form, text) in &all {
        assert_eq!(hex::form(text), Some(*form), "{what}");
        assert_eq!(hex::decode(text).as_ref(), Ok(bytes), "{what}");
        assert_eq!(hex::decode_form(text, *form).as_ref(), Ok(bytes), "{what}");
        if *form == HexForm::Plain {
            assert_eq!(&hex::xxd_plain(bytes), text, "{what}: xxd_plain");
            // getfattr's form: one `0x`, no line breaks.
            let getfattr = format!("0x{}", hex::encode(bytes));
            assert_eq!(hex::decode(&getfattr).as_ref(), Ok(bytes), "{what}");
        }
        if *form == HexForm::HexdumpC && what.contains("reply") {
            assert!(text.lines().any(|l| l == "*"), "{what}: no `*` line");
        }
    }
}

#[test]
fn hex_truncated_dumps_never_panic() {
    let Some(all) = dumps() else {
        return;
    };
    for (what, bytes, _, text) in all {
        for cut in 0..=text.len() {
            let part = &text.as_bytes()[..cut];
            // Any result but a panic; what decodes is never longer than the file.
            if let Ok(got) = hex::decode(part) {
                assert!(got.len() <= bytes.len(), "{what}[..{cut}]");
            }
            for form in [HexForm::Plain, HexForm::Xxd, HexForm::HexdumpC] {
                let _ = hex::decode_form(part, form);
            }
        }
        // Cut at a line's end, a dump is a prefix of the file (the hex forms of a row).
        for (cut, _) in text.match_indices('\n') {
            let part = &text[..=cut];
            let got = hex::decode(part).unwrap_or_else(|e| panic!("{what}[..={cut}]: {e}"));
            assert!(bytes.starts_with(&got), "{what}[..={cut}]");
        }
    }
}

#[test]
fn hex_refusals_name_what_and_where() {
    let not_hex = "text, but not hex in a form this tool reads (xxd -p, xxd, hexdump -C, or one \
                   leading 0x): ";
    let cases: [(&[u8], HexError, String); 12] = [
        (
            b"this is not a message at all, just words",
            HexError::NotHex {
                line: 1,
                column: 1,
                found: 't',
            },
            format!("{not_hex}line 1, column 1 has 't', not a hex digit"),
        ),
        (
            b"0x0bd0\n0x0bd3\n",
            HexError::NotHex {
                line: 2,
                column: 2,
                found: 'x',
            },
            format!("{not_hex}line 2, column 2 has 'x', not a hex digit"),
        ),
        (
            b"0x\n",
            HexError::NoDigits,
            format!("{not_hex}no hex digit after the `0x`"),
        ),
        (
            b"0bd00bd",
            HexError::OddDigits,
            "hex text has an odd number of digits".into(),
        ),
        (
            b"00000000: 0bd0 0bd3  ....\n00000004:0000 0000  ....\n",
            HexError::BrokenDump {
                form: HexForm::Xxd,
                line: 2,
                error: LineError::NoOffset { separator: ": " },
            },
            "text that starts as xxd output, but line 2: expected a hex offset and \": \"".into(),
        ),
        (
            b"00000000  d0 0b d3 0b  |....|\ng0000004  00 00  |..|\n",
            HexError::BrokenDump {
                form: HexForm::HexdumpC,
                line: 2,
                error: LineError::NoOffset { separator: "  " },
            },
            "text that starts as hexdump -C output, but line 2: expected a hex offset and \"  \""
                .into(),
        ),
        (
            b"00000000: 0bd0 0bd3  ....\n00000010: 0000 0000  ....\n",
            HexError::Line {
                form: HexForm::Xxd,
                line: 2,
                error: LineError::OffsetMismatch {
                    offset: 0x10,
                    held: 4,
                },
            },
            "line 2: offset 0x10, but the lines before it hold 0x4 bytes".into(),
        ),
        (
            b"00000000: 0bz0 0bd3  ....\n",
            HexError::Line {
                form: HexForm::Xxd,
                line: 1,
                error: LineError::NotADigit {
                    offset: 2,
                    byte: b'z',
                },
            },
            "line 1: hex text has 'z' at byte 2, expected a hex digit".into(),
        ),
        (
            b"00000000  d0 0b d3 0  |....|\n",
            HexError::Line {
                form: HexForm::HexdumpC,
                line: 1,
                error: LineError::OddDigits,
            },
            "line 1: hex text has an odd number of digits".into(),
        ),
        (
            b"*\n00000010  00  |.|\n",
            HexError::Line {
                form: HexForm::HexdumpC,
                line: 2,
                error: LineError::RepeatWithoutRow,
            },
            "line 2: `*` with no row before it".into(),
        ),
        (
            b"00000000  00  |.|\n*\nffffffffffffffff\n",
            HexError::Line {
                form: HexForm::HexdumpC,
                line: 3,
                error: LineError::OffsetOutOfRange {
                    offset: "ffffffffffffffff".into(),
                },
            },
            "line 3: offset ffffffffffffffff is out of range".into(),
        ),
        (
            b"\x06\x00\x00\x00",
            HexError::NotText { offset: 0, byte: 6 },
            "not hex text: byte 0 is 0x06".into(),
        ),
    ];
    for (text, err, msg) in cases {
        let what = String::from_utf8_lossy(text);
        assert_eq!(hex::decode(text), Err(err.clone()), "{what}");
        assert_eq!(err.to_string(), msg, "{what}");
    }
    assert_eq!(hex::decode(" \n\t"), Err(HexError::Empty));
    // The plain form's digit errors count from past the `0x` (getfattr's value).
    assert_eq!(
        hex::decode_form("0x0bd0zz", HexForm::Plain),
        Err(HexError::NotADigit {
            offset: 4,
            byte: b'z'
        })
    );
    assert_eq!(
        HexError::NotADigit {
            offset: 4,
            byte: b'z'
        }
        .to_string(),
        "hex text has 'z' at byte 4, expected a hex digit"
    );
}

/// The bound on offsets: a `*` fills up to `MAX_DECODED`, not a byte past it.
#[test]
fn hex_repeats_stop_at_the_bound() {
    let at = format!("00000000  00 00  |..|\n*\n{:08x}\n", hex::MAX_DECODED);
    assert_eq!(hex::decode(&at).map(|b| b.len()), Ok(hex::MAX_DECODED));
    let past = format!("00000000  00 00  |..|\n*\n{:08x}\n", hex::MAX_DECODED + 1);
    assert!(matches!(
        hex::decode(&past),
        Err(HexError::Line {
            error: LineError::OffsetOutOfRange { .. },
            ..
        })
    ));
}
