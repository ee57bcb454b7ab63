//! Readings of real Lustre data (testdata/real), built by hand, and their test.

use super::*;

pub(crate) fn le32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// A v1 plain layout of `count` stripes (RAID0, 1 MiB) with `idx` as its object entries.
pub(crate) fn lov_v1(count: u16, idx: &[u32]) -> Vec<u8> {
    let mut b = vec![0u8; 32 + 24 * idx.len()];
    le32(&mut b, 0, 0x0BD1_0BD0);
    le32(&mut b, 4, 1);
    le32(&mut b, 24, 1 << 20);
    b[28..30].copy_from_slice(&count.to_le_bytes());
    b[30..32].copy_from_slice(&0xffffu16.to_le_bytes());
    for (i, &x) in idx.iter().enumerate() {
        le32(&mut b, 32 + 24 * i + 20, x);
    }
    b
}

/// A one-component composite layout (`magic`, `lcme_flags`) around `blob`; byte 24 of the
/// header (`lcm_padding2`) is not zero, as a client's read leaves it.
pub(crate) fn lov_comp(magic: u32, flags: u32, blob: &[u8]) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    le32(&mut b, 0, magic);
    le32(&mut b, 4, (80 + blob.len()) as u32);
    b[14..16].copy_from_slice(&1u16.to_le_bytes());
    b[24] = 0xaa;
    le32(&mut b, 32, 1);
    le32(&mut b, 36, flags);
    b[48..56].copy_from_slice(&u64::MAX.to_le_bytes());
    le32(&mut b, 56, 80);
    le32(&mut b, 60, blob.len() as u32);
    b.extend_from_slice(blob);
    b
}

/// `mkdir_request` with buffers of `extra` bytes past its last one.
pub(crate) fn request_with_extra(extra: &[usize]) -> Vec<u8> {
    let (be, hdr, mut bufs) = split(&load("testdata/mkdir_request.bin"));
    for &n in extra {
        bufs.push(vec![0x5a; n]);
    }
    join(be, &hdr, &bufs)
}

/// What a case is, its xattr name (`None`: a request), its bytes, and the crate's verdict
/// (`None`: valid).
type Reading = (
    &'static str,
    Option<&'static str>,
    Vec<u8>,
    Option<&'static str>,
);

#[test]
pub(crate) fn lfs_readings_agree_with_the_crate() {
    const LMV: &str = "trusted.lmv";
    const DMV: &str = "trusted.dmv";
    const LOV: &str = "trusted.lov";
    let mut lmv = vec![0u8; 56];
    le32(&mut lmv, 0, 0x0CD2_0CD0);
    le32(&mut lmv, 4, 2);
    le32(&mut lmv, 12, 2); // fnv_1a_64: lmv_is_sane2 refuses an unknown hash function
    let mut lmv_padded = lmv.clone();
    lmv_padded[28..40].fill(0x11);
    let mut lmv_one_fid = lmv.clone();
    lmv_one_fid.resize(72, 0);
    let mut foreign = vec![0u8; 16];
    le32(&mut foreign, 0, 0x0CD5_0CD0);
    let mut foreign_one = foreign.clone();
    le32(&mut foreign_one, 4, 1);
    foreign_one.push(b'x');
    let mut dmv = vec![0u8; 48];
    le32(&mut dmv, 0, 0x0CD3_0CD0);
    dmv[22..32].fill(0x22);
    let none = u32::MAX;
    let swabbed_sel = {
        let mut b = lov_comp(0x0BD8_0BD0, 0x10, &lov_v1(1, &[0]));
        b[..4].copy_from_slice(&0x0BD8_0BD0u32.to_be_bytes());
        b
    };
    // (what, xattr name or None for a request, bytes, the crate's verdict: None = valid)
    let table: Vec<Reading> = vec![
        ("header-only master LMV", Some(LMV), lmv.clone(), None),
        ("LMV with non-zero padding", Some(LMV), lmv_padded, None),
        ("LMV with 1 of 2 FIDs", Some(LMV), lmv_one_fid, Some("W9.2")),
        ("empty foreign LMV", Some(LMV), foreign, Some("W9.19")),
        ("foreign LMV of 1 byte", Some(LMV), foreign_one, None),
        ("default LMV with non-zero padding", Some(DMV), dmv, None),
        (
            "SEL layout, padded header",
            Some(LOV),
            lov_comp(0x0BD8_0BD0, 0x10, &lov_v1(1, &[0])),
            None,
        ),
        (
            "uninstantiated component, placeholder of 4 stripes",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0, &lov_v1(4, &[none])),
            None,
        ),
        (
            "uninstantiated component, one real entry of 4 stripes",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0, &lov_v1(4, &[7])),
            Some("W9.20"),
        ),
        (
            "uninstantiated component, an OST list",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0, &lov_v1(2, &[3, 5])),
            None,
        ),
        (
            "instantiated component, placeholder of 4 stripes",
            Some(LOV),
            lov_comp(0x0BD6_0BD0, 0x10, &lov_v1(4, &[none])),
            Some("W9.2"),
        ),
        (
            "plain layout, placeholder of 4 stripes",
            Some(LOV),
            lov_v1(4, &[none]),
            Some("W9.2"),
        ),
        (
            "SEL layout as a component blob",
            Some(LOV),
            lov_comp(
                0x0BD6_0BD0,
                0x10,
                &lov_comp(0x0BD8_0BD0, 0x10, &lov_v1(1, &[0])),
            ),
            Some("W9.18"),
        ),
        (
            "byte-swapped SEL magic",
            Some(LOV),
            swabbed_sel,
            Some("W1.2"),
        ),
        // The whole-message bound: 2 · 500,000 bytes fit 1,024,000 (then W2.2 refuses them),
        // 2 · 512,000 do not; one buffer of 1,024,000 is at the bound, the message over it.
        (
            "message of 1,000,000 bytes past the last buffer",
            None,
            request_with_extra(&[500_000, 500_000]),
            Some("W2.2"),
        ),
        (
            "message over PTLRPC_MAX_BUFLEN",
            None,
            request_with_extra(&[512_000, 512_000]),
            Some("W0.3"),
        ),
        (
            "a buffer at PTLRPC_MAX_BUFLEN, the message over it",
            None,
            request_with_extra(&[1_024_000]),
            Some("W0.3"),
        ),
    ];
    let cases: Vec<Case> = table
        .iter()
        .map(|(what, name, bytes, _)| Case {
            what: (*what).to_owned(),
            kind: name.map_or(Kind::Request, Kind::Xattr),
            bytes: bytes.clone(),
        })
        .collect();
    // Every valid case here is a payload that keeps its padding: its own canonical form.
    for ((what, _, bytes, rule), case) in table.iter().zip(&cases) {
        let want = match rule {
            None => Verdict::Valid(bytes.clone()),
            Some(r) => Verdict::Invalid((*r).to_owned()),
        };
        assert_eq!(expect(case), want, "{what}: the crate");
    }
    let Some(testee) = build_testee() else {
        return;
    };
    let mut t = Testee::start(&testee);
    Tally::run(&mut t, &cases).assert_clean();
    t.finish();
}
