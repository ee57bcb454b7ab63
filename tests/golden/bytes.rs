//! Byte-level facts read without the decoder: the big-endian copies, and every truncation of
//! every vector.

use super::*;

#[test]
pub(crate) fn big_endian_copies_swap_numbers_not_opaque_bytes() {
    for (le_name, be_name) in [
        ("mkdir_request", "mkdir_request_be"),
        ("mkdir_reply_complete", "mkdir_reply_be"),
    ] {
        let le = load(le_name);
        let be = load(be_name);
        assert_eq!(le.len(), be.len(), "{be_name}: same length");
        assert_eq!(&le[8..12], &[0xd3, 0x0b, 0xd0, 0x0b], "{le_name}: LE magic");
        assert_eq!(&be[8..12], &[0x0b, 0xd0, 0x0b, 0xd3], "{be_name}: BE magic");
        assert_eq!(
            &le[0..4],
            &be[0..4].iter().rev().copied().collect::<Vec<_>>()[..]
        );
        let hdr = if le_name.contains("request") { 56 } else { 72 };
        // pb_handle and pb_jobid are never swapped.
        assert_eq!(&le[hdr..hdr + 8], &be[hdr..hdr + 8], "{be_name}: pb_handle");
        assert_eq!(
            &le[hdr..hdr + 8],
            &CONN_HANDLE.to_le_bytes(),
            "{le_name}: pb_handle"
        );
        assert_eq!(
            &le[hdr + 152..hdr + 184],
            &be[hdr + 152..hdr + 184],
            "{be_name}: pb_jobid"
        );
        // pb_type is swapped.
        assert_eq!(
            le[hdr + 8..hdr + 12],
            be[hdr + 8..hdr + 12]
                .iter()
                .rev()
                .copied()
                .collect::<Vec<_>>()[..]
        );
    }
    // Request: lock_handle[0] (buffer 1 at 240, +88) and the name are not swapped; groups are.
    let (le, be) = (load("mkdir_request"), load("mkdir_request_be"));
    assert_eq!(
        &be[328..336],
        &OWN_LOCK_HANDLE.to_le_bytes(),
        "lock_handle[0]"
    );
    assert_eq!(&le[328..336], &be[328..336]);
    assert_eq!(&be[432..439], b"newdir\0", "name");
    assert_eq!(&be[440..444], &100u32.to_be_bytes(), "groups[0]");
    assert_eq!(&le[440..444], &100u32.to_le_bytes(), "groups[0]");
    // Reply: lock_handle (buffer 1 at 256, +88) is not swapped; mdt_body (buffer 3 at 448) is;
    // the xattr payloads (buffers 4-8, from 664) are byte-identical.
    let (le, be) = (load("mkdir_reply_complete"), load("mkdir_reply_be"));
    assert_eq!(
        &be[344..352],
        &SERVER_LOCK_HANDLE.to_le_bytes(),
        "lock_handle"
    );
    assert_eq!(&be[448..456], &PARENT.seq.to_be_bytes(), "mbo_fid1.f_seq");
    assert_eq!(&le[448..456], &PARENT.seq.to_le_bytes(), "mbo_fid1.f_seq");
    assert_eq!(&le[664..], &be[664..], "xattr payloads are never swapped");
}

// ---- truncation sweep ----

/// Where the last buffer's data ends: the file length minus its padding, which WIRE.md §2
/// requires all the same. Computed from the raw header, not by the decoder.
pub(crate) fn min_len(bytes: &[u8]) -> usize {
    let big = bytes[8..12] == [0x0b, 0xd0, 0x0b, 0xd3];
    let rd = |o: usize| {
        let b = [bytes[o], bytes[o + 1], bytes[o + 2], bytes[o + 3]];
        if big {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        }
    };
    let n = rd(0) as usize;
    let mut off = (32 + 4 * n).div_ceil(8) * 8;
    let mut end = off;
    for i in 0..n {
        let len = rd(32 + 4 * i) as usize;
        end = off + len;
        off += len.div_ceil(8) * 8;
    }
    assert_eq!(off, bytes.len(), "vectors are canonical");
    end
}

#[test]
pub(crate) fn truncation_sweep() {
    for name in ALL_VECTORS {
        let bytes = load(name);
        let is_request = name.contains("request");
        let req_name = match name {
            "mkdir_reply_advisory" => "mkdir_request_partial",
            "mkdir_reply_be" => "mkdir_request_be",
            "rename_object_reply" => "rename_object_request",
            "unlink_reply" => "unlink_request",
            _ => "mkdir_request",
        };
        let req_bytes = load(req_name);
        let ctx = RequestView::parse(&req_bytes)
            .expect("request of the sweep parses")
            .reply_context();
        let min = min_len(&bytes);
        for len in 0..bytes.len() {
            let prefix = &bytes[..len];
            let ok = if is_request {
                RequestView::parse(prefix).is_ok()
            } else {
                let a = ReplyView::parse(prefix).is_ok();
                let b = ReplyView::parse_for(prefix, &ctx).is_ok();
                assert_eq!(a, b, "{name}[..{len}]: parse and parse_for disagree");
                a
            };
            // Every proper prefix is refused, even one that lacks only the last buffer's
            // padding (from `min` on): Lustre's lustre_unpack_msg_v2 requires the padded total.
            assert!(
                !ok,
                "{name}[..{len}] decodes but is shorter than the message (data ends at {min})"
            );
        }
    }
}
