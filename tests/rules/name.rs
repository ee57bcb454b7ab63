//! The request's variable buffers (WIRE.md §5): the entry name and the groups.

use super::*;

fn name_err(raw: &[u8]) -> DecodeError {
    let mut p = ReqParts::mkdir();
    p.name = raw.to_vec();
    req_err(&p)
}

#[test]
fn name_not_terminated() {
    let e = name_err(b"newdir");
    assert!(
        matches!(e.kind, ErrorKind::NameNotTerminated { len: 6 }),
        "{e}"
    );
}

/// Lustre's MDT unpacks `RMF_NAME` with no maximum length: its NUL must be the last byte
/// (W5.15), checked before the name itself.
#[test]
fn name_bytes_after_the_nul() {
    let e = name_err(b"newdir\0\0");
    assert_eq!(e.kind, ErrorKind::NameTrailingBytes { nul: 6, len: 8 });
    assert_eq!(e.rule().as_str(), "W5.15");
    // A slash before the NUL does not hide it: the buffer is refused for its shape first.
    let e = name_err(b"a/b\0x");
    assert_eq!(e.kind, ErrorKind::NameTrailingBytes { nul: 3, len: 5 });
}

#[test]
fn name_empty() {
    let e = name_err(b"\0");
    assert!(matches!(e.kind, ErrorKind::NameEmpty), "{e}");
}

#[test]
fn name_too_long() {
    let mut raw = vec![b'a'; 256];
    raw.push(0);
    let e = name_err(&raw);
    assert!(matches!(e.kind, ErrorKind::NameTooLong { len: 256 }), "{e}");
    raw.drain(..1);
    let mut p = ReqParts::mkdir();
    p.name = raw;
    RequestView::parse(&p.encode()).expect("255 bytes is the longest name");
}

#[test]
fn name_with_slash() {
    let e = name_err(b"a/b\0");
    assert!(
        matches!(e.kind, ErrorKind::NameHasSlash { index: 1 }),
        "{e}"
    );
}

#[test]
fn name_dot_and_dotdot() {
    assert!(matches!(
        name_err(b".\0").kind,
        ErrorKind::NameIsDot { dots: "." }
    ));
    assert!(matches!(
        name_err(b"..\0").kind,
        ErrorKind::NameIsDot { dots: ".." }
    ));
}

#[test]
fn groups_not_aligned() {
    let mut p = ReqParts::mkdir();
    p.raw[5] = Some(vec![0; 10]);
    let e = req_err(&p);
    assert!(
        matches!(e.kind, ErrorKind::GroupsNotAligned { len: 10 }),
        "{e}"
    );
}

#[test]
fn groups_too_many() {
    let mut p = ReqParts::mkdir();
    p.groups = (0..129).collect();
    let e = req_err(&p);
    assert!(
        matches!(
            e.kind,
            ErrorKind::OverLimit {
                value: 129,
                max: 128
            }
        ),
        "{e}"
    );
    p.groups.pop();
    assert_eq!(
        RequestView::parse(&p.encode())
            .expect("128 groups")
            .groups()
            .len(),
        128
    );
}
