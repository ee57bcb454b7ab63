//! The conventional Rust surfaces: errors that `?` takes and that print each cause once,
//! conversions for entry names and groups, and `MdLockIntent::result`.

use crate::common::*;
use lustre_dne_intent::error::{EncodeError, ErrorKind};
use lustre_dne_intent::intent::*;
use lustre_dne_intent::limits::GROUPS_MAX;
use lustre_dne_intent::wire::{LockMode, PtlrpcMsgType};
use lustre_dne_intent::xattr::{Acl, AclEntry, AclPerm, AclTag};
use lustre_dne_intent::{DecodeError, Endian};
use std::error::Error;

/// Every message an error reporter prints for `e`: its Display, then each `source()`.
fn chain(e: &dyn Error) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut next = e.source();
    while let Some(s) = next {
        out.push(s.to_string());
        next = s.source();
    }
    out
}

/// No message of the chain is printed again by a later one, nor contains a later one.
fn assert_each_cause_once(e: &dyn Error) -> Vec<String> {
    let msgs = chain(e);
    for (i, a) in msgs.iter().enumerate() {
        for b in &msgs[i + 1..] {
            assert!(!a.contains(b.as_str()), "{b:?} is printed twice: {msgs:?}");
        }
    }
    msgs
}

#[test]
fn encode_errors_print_their_cause_once() {
    // A request the decoder would refuse: its umask has bits beyond 0o777 (mcpr_umask is at
    // offset 380 of the mkdir request, as testdata/mkdir_request.md lists).
    let mut req = mkdir_request();
    req.body.umask = 0o1022;
    let decode = req.validate().unwrap_err();
    let e = req.to_bytes(Endian::Little).unwrap_err();
    assert_eq!(e, EncodeError::Invalid(decode));
    let msgs = assert_each_cause_once(&e);
    // The whole story is in the one message, the decoder's words included once.
    assert_eq!(msgs, [format!("value would not decode: {decode}")]);
    assert_eq!(
        msgs[0],
        "value would not decode: md_create_prepare_req.mcpr_umask at offset 380: \
         0x212 has forbidden bits 0x200 [W0.6]"
    );
    assert!(e.source().is_none());

    // The same through `?` into a Box<dyn Error>, as a downstream caller sees it.
    fn encode(req: &PrepareRequest) -> Result<usize, Box<dyn Error>> {
        let mut buf = [0u8; 1024];
        Ok(req.encode_into(Endian::Little, &mut buf)?)
    }
    let boxed = encode(&req).unwrap_err();
    assert_eq!(assert_each_cause_once(boxed.as_ref()), msgs);
    assert_eq!(boxed.downcast_ref::<EncodeError>(), Some(&e));

    // An xattr payload encoder, and a buffer too small.
    let acl = Acl::new(vec![AclEntry::new(AclTag::USER_OBJ, AclPerm(7), 0)]);
    let e = acl.to_bytes().unwrap_err();
    assert!(
        matches!(e, EncodeError::Invalid(d) if d.kind == ErrorKind::AclMissingEntry { tag: "GROUP_OBJ" }),
        "{e}"
    );
    assert_eq!(assert_each_cause_once(&e).len(), 1);
    let e = mkdir_request()
        .encode_into(Endian::Little, &mut [0u8; 8])
        .unwrap_err();
    assert_eq!(
        assert_each_cause_once(&e),
        ["output buffer is 8 bytes, the encoding needs 456"]
    );
}

#[test]
fn decode_errors_are_one_message() {
    let e = RequestView::parse(&[0u8; 8]).unwrap_err();
    assert_eq!(
        assert_each_cause_once(&e),
        ["lustre_msg_v2 at offset 0: truncated: need 32 bytes, have 8 [W0.1]"]
    );
    // DecodeError converts into EncodeError for `?` in encoders.
    let conv: EncodeError = e.into();
    assert_eq!(conv, EncodeError::Invalid(e));
}

#[test]
fn entry_name_conversions() {
    let from_str = EntryName::try_from("newdir").expect("valid");
    assert_eq!(from_str.as_ref(), b"newdir");
    assert_eq!(EntryName::try_from(&b"newdir"[..]), Ok(from_str));
    assert_eq!(EntryName::try_from(b"newdir"), Ok(from_str));
    assert_eq!(EntryName::try_from(b"newdir".to_vec()), Ok(from_str));
    assert_eq!("newdir".parse::<EntryName>(), Ok(from_str));
    assert_eq!(from_str.to_string(), "newdir");
    // UTF-8 names are bytes on the wire.
    let utf8 = EntryName::try_from("répertoire").expect("valid");
    assert_eq!(utf8.as_ref(), "répertoire".as_bytes());
    assert_eq!(utf8.wire_len(), 12);

    // Each refusal is the decoder's rule for the name buffer.
    let kind = |r: Result<EntryName, DecodeError>| r.unwrap_err().kind;
    assert_eq!(kind("a/b".parse()), ErrorKind::NameHasSlash { index: 1 });
    assert_eq!(
        kind(EntryName::try_from("..")),
        ErrorKind::NameIsDot { dots: ".." }
    );
    assert_eq!(kind(EntryName::try_from("")), ErrorKind::NameEmpty);
    assert_eq!(
        kind(EntryName::try_from(b"a\0b")),
        ErrorKind::NameHasNul { index: 1 }
    );
    assert_eq!(
        kind(EntryName::try_from(vec![b'x'; 256])),
        ErrorKind::NameTooLong { len: 256 }
    );
    assert!(EntryName::try_from(vec![b'x'; 255]).is_ok());

    // `?` in a caller returning Box<dyn Error>.
    fn name(s: &str) -> Result<usize, Box<dyn Error>> {
        Ok(EntryName::try_from(s)?.wire_len())
    }
    assert_eq!(name("abc").ok(), Some(4));
    assert_eq!(
        name("a/b").unwrap_err().to_string(),
        "name at offset 1: entry name contains '/' at byte 1 [W5.11]"
    );
}

#[test]
fn group_list_conversions() {
    let ids: Vec<u32> = (0..GROUPS_MAX as u32).map(|i| 1000 + i).collect();
    let full = GroupList::try_from(&ids[..]).expect("128 groups");
    assert_eq!(full.as_ref(), &ids[..]);
    assert_eq!(full.as_slice().len(), 128);
    assert_eq!(
        GroupList::try_from(&[500, 600]).map(|g| g.wire_len()),
        Ok(8)
    );
    assert_eq!(GroupList::try_from_slice(&[]), Ok(GroupList::new()));

    let mut over = ids.clone();
    over.push(9);
    let e = GroupList::try_from(&over[..]).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::OverLimit {
            value: 129,
            max: 128
        }
    );
    assert_eq!((e.at.structure, e.at.offset), ("groups", 0));
    // The decoder says the same of a 129-group buffer.
    let mut p = ReqParts::mkdir();
    p.groups = over.clone();
    let d = RequestView::parse(&p.encode()).unwrap_err();
    assert_eq!(d.kind, e.kind);
    assert_eq!(d.at.structure, e.at.structure);
    // The Option form agrees.
    assert_eq!(GroupList::from_slice(&over), None);
    assert_eq!(GroupList::from_slice(&ids), Some(full));

    // `?`, and the groups arrive in a request.
    fn request(groups: &[u32]) -> Result<Vec<u32>, Box<dyn Error>> {
        let name = EntryName::try_from("newdir")?;
        let groups = GroupList::try_from(groups)?;
        let req = PrepareRequest::new(
            Operation::Create,
            mkdir_body(),
            Some(name),
            groups,
            LockMode::PW,
            7,
        );
        let bytes = req.to_bytes(Endian::Big)?;
        Ok(RequestView::parse(&bytes)?.groups().iter().collect())
    }
    assert_eq!(request(&[5, 6, 7]).expect("valid"), [5, 6, 7]);
    assert!(request(&over).is_err());
}

#[test]
fn md_lock_intent_result_per_buffer() {
    let mut bufs = [[0u8; 4096]; 6];
    let [b0, b1, b2, b3, b4, b5] = &mut bufs;
    let mut intent = MdLockIntent::new(
        Operation::Create,
        mkdir_body(),
        Some(b"newdir"),
        [b0, b1, b2, b3, b4, b5],
    );
    // Before a reply, nothing is known.
    for b in MliBuf::ALL {
        assert_eq!(
            intent.result(b),
            PrepResult::Unknown(UnknownReason::NotProvided)
        );
    }

    let absent = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_reply_absent.bin"
    ))
    .expect("vector");
    let view = ReplyView::parse(&absent).expect("valid");
    intent.fill(&view);
    for b in MliBuf::ALL {
        // The intent's state is the reply's, with the bytes now in the caller's buffer.
        assert_eq!(intent.result(b), view.result(b), "{b:?}");
    }
    assert_eq!(intent.result(MliBuf::Pin), PrepResult::Absent);
    assert_eq!(
        intent.result(MliBuf::Lov).map(<[u8]>::len),
        PrepResult::Present(32)
    );
    assert_eq!(
        intent.result(MliBuf::Pattr).map(<[u8]>::len),
        PrepResult::Present(216)
    );

    let truncated = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_reply_lov_truncated.bin"
    ))
    .expect("vector");
    intent.fill(&ReplyView::parse(&truncated).expect("valid"));
    assert_eq!(
        intent.result(MliBuf::Lov),
        PrepResult::Unknown(UnknownReason::Truncated { size: 5320 })
    );
    assert_eq!(
        intent.result(MliBuf::Pin),
        PrepResult::Present(&b"[hsm: 3,pool: fast]"[..])
    );

    let empty = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/mkdir_reply_empty.bin"
    ))
    .expect("vector");
    intent.fill(&ReplyView::parse(&empty).expect("valid"));
    assert!(!intent.replied);
    for b in MliBuf::ALL {
        assert_eq!(
            intent.result(b),
            PrepResult::Unknown(UnknownReason::EmptyResult)
        );
    }
}

/// A reply's type is checked before its status, also in the owned encoder.
#[test]
fn wrong_type_is_reported_before_the_status() {
    let mut rep = mkdir_reply();
    rep.ptlrpc.msg_type = PtlrpcMsgType(4714);
    rep.ptlrpc.status = -2;
    let e = rep.to_bytes(Endian::Little).unwrap_err();
    assert_eq!(
        e.to_string(),
        "value would not decode: ptlrpc_body.pb_type at offset 80: pb_type 4714 (unknown): \
         expected a reply [W2.3]"
    );
}

/// Owned xattr values are built with their counts and magics right: the LMV of `lfs mkdir -c 4
/// -i 0 -H fnv_1a_64` (the golden file the Python generator wrote) from its four FIDs, a hash
/// type from its function, permission sets by name as getfacl prints them.
#[test]
fn xattr_values_are_built_from_what_they_mean() {
    use lustre_dne_intent::wire::LuFid;
    use lustre_dne_intent::xattr::{LmvHashFlags, LmvHashFn, LmvHashType, LmvMd};
    let fids = [
        0x2_0000_0400u64,
        0x2_4000_0400,
        0x2_8000_0400,
        0x2_c000_0400,
    ]
    .map(|seq| LuFid::new(seq, 2, 0))
    .to_vec();
    let mut lmv = LmvMd::striped(LmvHashFn::FNV_1A_64, 0, fids);
    lmv.layout_version = 1;
    let bytes = lustre_dne_intent::xattr::Lmv::Md(lmv).to_bytes().unwrap();
    let golden = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/xattr_lmv_striped.bin"
    ))
    .unwrap();
    assert_eq!(&bytes[..], &golden[..]);
    let migrating = LmvHashType::new(LmvHashFn::CRUSH, LmvHashFlags::MIGRATION);
    assert_eq!(migrating.to_string(), "crush,migrating");
    assert_eq!(LmvHashType::from(LmvHashFn::CRUSH).0, 3);
    let mut p = AclPerm::READ | AclPerm::EXECUTE;
    assert_eq!((p, p.to_string()), (AclPerm::RX, "r-x".to_string()));
    p |= AclPerm::WRITE;
    assert_eq!(
        (p, AclPerm::RW.to_string()),
        (AclPerm::RWX, "rw-".to_string())
    );
}
