//! The framing of `lustre_msg_v2` (WIRE.md §2) against a reference walk written here from the
//! spec's words, buffer by buffer: every decoder (the message view, the request and reply
//! decoders, which frame 6 and 9 buffers their own way) accepts exactly what the walk accepts,
//! and refuses the rest with the walk's error: the same rule, field and offset. What is
//! accepted lies where the walk put it: every buffer of the message view at the walk's offset
//! and length, and buffer 0 of the typed decoders, whose first error (the drawn buffers are
//! zeros) names its place.
//!
//! The decoders sum the lengths in one pass and look for the buffer to blame only when the sum
//! is wrong; the walk checks each buffer as it goes. Lengths are drawn near the bounds, at the
//! type's maximum and small, and inputs are cut short anywhere.

use lustre_dne_intent::error::{DecodeError, ErrorKind};
use lustre_dne_intent::intent::{ReplyView, RequestView};
use lustre_dne_intent::limits::{
    MSG_HEADER_FIXED, MSG_MAX_BUFCOUNT, MSG_MAX_BUFLEN, MSG_MAX_LEN, PTLRPC_BODY_V2_SIZE,
};
use lustre_dne_intent::wire::MsgView;
use proptest::prelude::*;

const S: &str = "lustre_msg_v2";
const MAGIC: u32 = 0x0bd0_0bd3;

fn round8(n: u64) -> u64 {
    (n + 7) & !7
}

/// A rule broken: its kind, the field named, its offset.
type Refusal = (ErrorKind, String, usize);

/// Where an accepted message's buffers lie: (start, length) of each, and the canonical size.
#[derive(Debug, PartialEq)]
struct Layout {
    buffers: Vec<(usize, usize)>,
    wire_len: usize,
}

/// What WIRE.md §2 says of a message: its [`Layout`], or the first rule it breaks. The header and
/// the magic come first, then `lm_bufcount`, `lm_buflens`, each buffer in order (its padded
/// length, then whether it lies inside the input), and last the whole message's size.
fn reference(bytes: &[u8], big_endian: bool) -> Result<Layout, Refusal> {
    let word = |at: usize| {
        let w = [bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]];
        if big_endian {
            u32::from_be_bytes(w)
        } else {
            u32::from_le_bytes(w)
        }
    };
    if bytes.len() < MSG_HEADER_FIXED {
        let kind = ErrorKind::Truncated {
            need: MSG_HEADER_FIXED,
            have: bytes.len(),
        };
        return Err((kind, String::new(), 0));
    }
    let count = word(0);
    if count == 0 || count as usize > MSG_MAX_BUFCOUNT {
        let kind = ErrorKind::OutOfRange {
            value: count.into(),
            min: 1,
            max: MSG_MAX_BUFCOUNT as u64,
        };
        return Err((kind, "lm_bufcount".into(), 0));
    }
    let count = count as usize;
    if bytes.len() < MSG_HEADER_FIXED + 4 * count {
        let kind = ErrorKind::Truncated {
            need: 4 * count,
            have: bytes.len() - MSG_HEADER_FIXED,
        };
        return Err((kind, "lm_buflens".into(), MSG_HEADER_FIXED));
    }
    let mut cursor = round8((MSG_HEADER_FIXED + 4 * count) as u64);
    let mut buffers = Vec::new();
    for i in 0..count {
        let len = u64::from(word(MSG_HEADER_FIXED + 4 * i));
        if round8(len) > MSG_MAX_BUFLEN as u64 {
            let kind = ErrorKind::OverLimit {
                value: len,
                max: MSG_MAX_BUFLEN as u64,
            };
            return Err((kind, format!("lm_buflens[{i}]"), MSG_HEADER_FIXED + 4 * i));
        }
        // The buffer with its padding, the last one's too (Lustre's lustre_unpack_msg_v2 sums
        // round_up(buflen, 8) over every buffer and fails a shorter input).
        if (bytes.len() as u64) < cursor + round8(len) {
            let kind = ErrorKind::Truncated {
                need: round8(len) as usize,
                have: bytes.len().saturating_sub(cursor as usize),
            };
            return Err((kind, format!("buffer[{i}]"), cursor as usize));
        }
        buffers.push((cursor as usize, len as usize));
        cursor += round8(len);
    }
    if cursor > MSG_MAX_LEN as u64 {
        let kind = ErrorKind::MsgTooLong {
            len: cursor as usize,
            max: MSG_MAX_LEN,
        };
        return Err((kind, "lm_buflens".into(), MSG_HEADER_FIXED));
    }
    Ok(Layout {
        buffers,
        wire_len: cursor as usize,
    })
}

/// A buffer length: small, around the bounds (one buffer at the bound, half of it, so that two
/// sum past the whole-message bound), or anywhere up to the type's maximum.
fn buflen() -> impl Strategy<Value = u32> {
    let bound = MSG_MAX_BUFLEN as u32;
    prop_oneof![
        4 => 0u32..300,
        1 => (bound - 64)..(bound + 16),
        1 => (bound / 2 - 64)..(bound / 2 + 64),
        1 => Just(u32::MAX),
        1 => any::<u32>(),
    ]
}

/// A message header with `count` in `lm_bufcount` (up to one over the bound) and up to that many
/// lengths, its buffers filled with a byte pattern, cut at `cut` per mille of its size or a few
/// bytes from its end. Inputs are kept to [`INPUT_MAX`], so huge lengths make truncated inputs.
fn message() -> impl Strategy<Value = (Vec<u8>, bool)> {
    (
        1usize..=MSG_MAX_BUFCOUNT + 1,
        proptest::collection::vec(buflen(), 0..=MSG_MAX_BUFCOUNT + 1),
        any::<bool>(),
        prop_oneof![Just(None), (0u32..=1000).prop_map(Some)],
        0usize..16,
    )
        .prop_map(|(count, mut lens, big_endian, cut, short)| {
            lens.resize(count, 0);
            let put = |v: u32| {
                if big_endian {
                    v.to_be_bytes()
                } else {
                    v.to_le_bytes()
                }
            };
            let mut head = Vec::new();
            for v in [count as u32, 0, MAGIC, 0, 0, 0, 0, 0] {
                head.extend_from_slice(&put(v));
            }
            for &l in &lens {
                head.extend_from_slice(&put(l));
            }
            let header = (MSG_HEADER_FIXED + 4 * count).next_multiple_of(8) as u64;
            let body: u64 = lens.iter().map(|&l| round8(l.into())).sum();
            let full = (header + body).min(INPUT_MAX) as usize;
            let len = match cut {
                Some(per_mille) => full * per_mille as usize / 1000,
                None => full.saturating_sub(short),
            };
            // Zeroed in one allocation: the buffers' contents do not matter to the framing.
            let mut b = vec![0u8; len];
            let n = head.len().min(len);
            b[..n].copy_from_slice(&head[..n]);
            (b, big_endian)
        })
}

/// The largest input drawn: room for one buffer at the bound, with its header, and a little.
const INPUT_MAX: u64 = MSG_MAX_BUFLEN as u64 + 4096;

/// The layout a view reports: each buffer's start (as a place in `bytes`, and as the offset it
/// names) and length, and the canonical size.
fn layout_of(v: &MsgView<'_>, bytes: &[u8]) -> Layout {
    let buffers = (0..v.bufcount())
        .map(|i| {
            let buf = v.buffer(i).expect("a buffer below lm_bufcount");
            let start = buf.as_ptr() as usize - bytes.as_ptr() as usize;
            assert_eq!(
                v.buffer_offset(i),
                start,
                "buffer {i}: its offset and its place"
            );
            (start, buf.len())
        })
        .collect();
    Layout {
        buffers,
        wire_len: v.wire_len(),
    }
}

#[track_caller]
fn same_error(e: &DecodeError, want: &Refusal, who: &str) {
    let (kind, field, offset) = want;
    assert_eq!(&e.kind, kind, "{who}: {e}");
    assert_eq!(
        (e.at.structure, e.at.field, e.at.offset),
        (S, field.as_str(), *offset),
        "{who}: {e}"
    );
}

proptest! {
    // No failure file: a case is a message of up to a megabyte, and proptest writes the whole
    // shrunk input beside its seed (one mutation check left 6 MB). A failure prints its input.
    #![proptest_config(ProptestConfig {
        cases: 3000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_decoder_frames_as_the_reference_walk((bytes, big_endian) in message()) {
        let want = reference(&bytes, big_endian);
        match (&want, MsgView::parse(&bytes)) {
            (Ok(layout), Ok(v)) => prop_assert_eq!(&layout_of(&v, &bytes), layout),
            (Err(w), Err(e)) => same_error(&e, w, "MsgView::parse"),
            (w, got) => prop_assert!(false, "reference {:?}, MsgView::parse {:?}", w, got),
        }
        // The typed decoders frame first; a message the walk refuses fails there the same way.
        // One the walk accepts fails next, on its zeroed buffer 0, where the walk put it: too
        // short for a `ptlrpc_body` at its start, or a `pb_type` of 0 eight bytes in.
        let typed = [
            ("RequestView::parse", RequestView::parse(&bytes).map(drop)),
            ("ReplyView::parse", ReplyView::parse(&bytes).map(drop)),
        ];
        for (who, got) in typed {
            let e = got.expect_err("no message drawn here is a valid request or reply");
            match &want {
                Err(w) => same_error(&e, w, who),
                Ok(layout) => {
                    let (start, len) = layout.buffers[0];
                    let at = if len < PTLRPC_BODY_V2_SIZE { start } else { start + 8 };
                    prop_assert_eq!((e.at.structure, e.at.offset), ("ptlrpc_body", at), "{}: {}", who, e);
                }
            }
        }
    }
}

/// The cases the strategy reaches by chance, each once: the walk's verdict is what the spec
/// says for it, so the walk itself is checked too.
#[test]
fn the_reference_walk_follows_the_spec() {
    let msg = |lens: &[u32], len: usize| {
        let mut b = Vec::new();
        for v in [lens.len() as u32, 0, MAGIC, 0, 0, 0, 0, 0] {
            b.extend_from_slice(&v.to_le_bytes());
        }
        for l in lens {
            b.extend_from_slice(&l.to_le_bytes());
        }
        b.resize(len, 0);
        b
    };
    let bound = MSG_MAX_BUFLEN as u32;
    // Buffers of 8 and 5 bytes after a 40-byte header: 56 bytes, the last buffer's padding
    // included. Lustre's lustre_unpack_msg_v2 refuses the message without it ("len: 53,
    // required_len 56"), and so does this protocol (WIRE.md §2).
    let two = Layout {
        buffers: vec![(40, 8), (48, 5)],
        wire_len: 56,
    };
    assert_eq!(reference(&msg(&[8, 5], 56), false), Ok(two));
    assert_eq!(
        reference(&msg(&[8, 5], 53), false),
        Err((
            ErrorKind::Truncated { need: 8, have: 5 },
            "buffer[1]".into(),
            48
        ))
    );
    assert_eq!(
        reference(&msg(&[8, 5], 52), false),
        Err((
            ErrorKind::Truncated { need: 8, have: 4 },
            "buffer[1]".into(),
            48
        ))
    );
    // A buffer followed only by empty ones needs its padding all the same.
    assert_eq!(
        reference(&msg(&[3, 0], 47), false),
        Err((
            ErrorKind::Truncated { need: 8, have: 7 },
            "buffer[0]".into(),
            40
        ))
    );
    // Over the bound is named before the truncation it implies.
    assert_eq!(
        reference(&msg(&[bound + 1], 64), false),
        Err((
            ErrorKind::OverLimit {
                value: u64::from(bound) + 1,
                max: bound.into()
            },
            "lm_buflens[0]".into(),
            32
        ))
    );
    // Two halves that fit one by one but not together.
    let half = bound / 2;
    let whole = 40 + 2 * half as usize;
    assert_eq!(
        reference(&msg(&[half, half], whole), false),
        Err((
            ErrorKind::MsgTooLong {
                len: whole,
                max: MSG_MAX_LEN
            },
            "lm_buflens".into(),
            32
        ))
    );
    for (lens, len) in [
        (vec![8, 5], 53),
        (vec![3, 0], 47),
        (vec![bound + 1], 64),
        (vec![half, half], whole),
    ] {
        let b = msg(&lens, len);
        let (want, got) = (reference(&b, false), MsgView::parse(&b));
        match (want, got) {
            (Ok(layout), Ok(v)) => assert_eq!(layout_of(&v, &b), layout),
            (Err(w), Err(e)) => same_error(&e, &w, "MsgView::parse"),
            (w, g) => panic!("reference {w:?}, MsgView::parse {g:?}"),
        }
    }
}

/// WIRE.md §2: bytes after the message are accepted and are not part of it, as Lustre's
/// `lustre_unpack_msg_v2` only asks that the input covers the message. They change no buffer,
/// count toward no size (W8.2 compares the message's own size with `lm_repsize`) and make the
/// input non-canonical.
#[test]
fn bytes_after_the_message_are_not_part_of_it() {
    use lustre_dne_intent::intent::MliBuf;
    let testdata = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata");
    let request = std::fs::read(format!("{testdata}/mkdir_request.bin")).unwrap();
    let reply = std::fs::read(format!("{testdata}/mkdir_reply_complete.bin")).unwrap();
    let longer = |m: &[u8]| [m, &b"\x0bd\xd0trailing"[..]].concat();

    let q = longer(&request);
    let (plain, more) = (
        RequestView::parse(&request).unwrap(),
        RequestView::parse(&q).unwrap(),
    );
    assert!(plain.is_canonical() && !more.is_canonical());
    assert_eq!(more.name(), plain.name());
    assert_eq!(more.to_value(), plain.to_value());
    let request_view = plain;

    let r = longer(&reply);
    let (plain, more) = (
        ReplyView::parse(&reply).unwrap(),
        ReplyView::parse(&r).unwrap(),
    );
    assert!(plain.is_canonical() && !more.is_canonical());
    for buf in MliBuf::ALL {
        assert_eq!(more.result(buf), plain.result(buf), "{buf:?}");
    }
    let msg = MsgView::parse(&r).unwrap();
    assert_eq!(msg.bufcount(), 9);

    // The reply space the request gave: exactly the message's size is enough, the input's
    // trailing bytes notwithstanding, and one byte less is not.
    let mut ctx = request_view.reply_context();
    ctx.repsize = reply.len() as u32;
    ReplyView::parse_for(&r, &ctx).unwrap();
    ctx.repsize -= 1;
    let e = ReplyView::parse_for(&r, &ctx).unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::ReplyOverRepsize {
                size: 904,
                repsize: 903
            }
        ),
        "{e}"
    );
}
