//! Mutations of valid inputs: one 32-bit field set to a boundary value, one buffer replaced,
//! the buffer count changed, the input cut short. The crate's judgement of each mutant says
//! whether it is valid, acceptable or which rule it breaks.

use super::parts::Parts;
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{McppFlags, MliBuf};
use lustre_dne_intent::wire::MsgView;
use lustre_dne_intent::wire::layout::{
    lu_fid, md_create_prepare_rep as rep, md_create_prepare_req,
};
use lustre_dne_intent::xattr::acl::{posix_acl_xattr_entry, posix_acl_xattr_header};
use lustre_dne_intent::xattr::lmv_foreign_md;
use lustre_dne_intent::xattr::lov::{lov_comp_md_entry_v1, lov_comp_md_v1, lov_user_md_v3};

/// The values a 32-bit field `w` is tried with: boundaries, single bits, neighbours, and the
/// byte-swapped value (a swabbed magic).
fn word_values(w: u32) -> [u32; 28] {
    [
        0,
        1,
        2,
        3,
        4,
        7,
        8,
        0x40,
        0x80,
        0xff,
        0x100,
        0xd8,
        0xffff,
        0x1_0000,
        0x1_0001,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        w ^ 1,
        w ^ 2,
        w ^ 4,
        w ^ 8,
        w ^ 0x10,
        w ^ 0x100,
        w ^ 0x8000_0000,
        w.wrapping_add(1),
        w.wrapping_sub(1),
        w.swap_bytes(),
    ]
}

/// Every input that differs from `bytes` in one aligned 32-bit field, with the field's offset,
/// its new value and a comment naming both, in a fixed order.
pub(crate) fn words(bytes: &[u8], order: Endian) -> Vec<(usize, u32, String, Vec<u8>)> {
    let mut out = Vec::new();
    for off in (0..bytes.len().saturating_sub(3)).step_by(4) {
        let mut word = [0u8; 4];
        word.copy_from_slice(&bytes[off..off + 4]);
        let w = order.u32_from(word);
        let mut seen: Vec<u32> = Vec::new();
        for v in word_values(w) {
            if v == w || seen.contains(&v) {
                continue;
            }
            seen.push(v);
            let mut m = bytes.to_vec();
            m[off..off + 4].copy_from_slice(&order.u32_to(v));
            out.push((
                off,
                v,
                format!("u32 at offset {off} set to {v:#x} (was {w:#x})"),
                m,
            ));
        }
    }
    out
}

/// The offsets of `mcpr_buf_limit[]` in a request message (buffer 3).
pub(crate) fn limit_offsets(request: &[u8]) -> core::ops::Range<usize> {
    let Ok(v) = MsgView::parse(request) else {
        return 0..0;
    };
    if v.bufcount() <= 3 {
        return 0..0;
    }
    let b3 = v.buffer_offset(3);
    let limit = md_create_prepare_req::LAYOUT.field(md_create_prepare_req::mcpr_buf_limit.name);
    limit.map_or(0..0, |f| b3 + f.offset..b3 + f.offset + f.size)
}

/// Cuts of `bytes`: the empty input, each 8-byte boundary, and one byte short.
pub(crate) fn truncations(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut cuts: Vec<usize> = (0..bytes.len()).step_by(8).collect();
    cuts.push(bytes.len().saturating_sub(1));
    cuts.dedup();
    cuts.into_iter()
        .filter(|&n| n < bytes.len())
        .map(|n| {
            (
                format!("cut to {n} of {} bytes", bytes.len()),
                bytes[..n].to_vec(),
            )
        })
        .collect()
}

/// Name buffers that break the name rules (W5.8–W5.12, W5.15), and a name where none belongs.
const BAD_NAMES: [(&str, &[u8]); 8] = [
    ("no NUL", b"newdir"),
    ("only the NUL", b"\0"),
    ("a slash", b"new/dir\0"),
    ("a NUL inside", b"new\0dir\0"),
    ("\".\"", b".\0"),
    ("\"..\"", b"..\0"),
    ("the name \"x\"", b"x\0"),
    ("padding after the NUL", b"newdir\0\0"),
];

/// Structural mutants of a request: its name, its groups, its buffer count, buffers shorter
/// or longer than their structure, a buffer past the last.
pub(crate) fn request_shapes(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let Some(p) = Parts::split(bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut push = |what: String, m: Option<Vec<u8>>| {
        if let Some(m) = m {
            out.push((what, m));
        }
    };
    for (what, name) in BAD_NAMES {
        push(format!("name buffer: {what}"), p.with_buf(4, name.to_vec()));
    }
    let mut long = vec![b'a'; 256];
    long.push(0);
    push("a 256-byte name".into(), p.with_buf(4, long));
    let mut longest = vec![b'z'; 255];
    longest.push(0);
    push("a 255-byte name".into(), p.with_buf(4, longest));
    push("a 1-byte name".into(), p.with_buf(4, b"a\0".to_vec()));
    push("no name".into(), p.with_buf(4, Vec::new()));
    push("groups: 3 bytes".into(), p.with_buf(5, vec![1, 0, 0]));
    push(
        "129 groups".into(),
        p.with_buf(5, (0..129u32).flat_map(|g| p.order.u32_to(g)).collect()),
    );
    push(
        "128 groups".into(),
        p.with_buf(5, (0..128u32).flat_map(|g| p.order.u32_to(g)).collect()),
    );
    for n in [0usize, 3, 4, 5] {
        push(format!("bufcount {n}"), p.with_bufcount(n));
    }
    let mut extra = p.clone();
    extra.bufs.push(vec![0; 8]);
    push("a non-empty buffer 6".into(), extra.join());
    let mut empty_extra = p.clone();
    empty_extra.bufs.push(Vec::new());
    push("an empty buffer 6".into(), empty_extra.join());
    shorter_and_longer(&p, &mut push);
    if let Some(b0) = p.bufs.first() {
        push(
            "a v2 ptlrpc_body (152 bytes)".into(),
            p.with_buf(0, b0[..b0.len().min(152)].to_vec()),
        );
    }
    out
}

/// Each fixed buffer one 8-byte step shorter (W0.2) and one 8-byte step longer (accepted).
fn shorter_and_longer(p: &Parts, push: &mut impl FnMut(String, Option<Vec<u8>>)) {
    for (i, b) in p.bufs.iter().enumerate() {
        if b.len() >= 8 {
            push(
                format!("buffer {i} 8 bytes short"),
                p.with_buf(i, b[..b.len() - 8].to_vec()),
            );
        }
        if !b.is_empty() {
            let mut l = b.clone();
            l.extend_from_slice(&[0; 8]);
            push(format!("buffer {i} 8 bytes longer"), p.with_buf(i, l));
        }
    }
}

/// Structural mutants of a reply: its buffer count, a buffer past the last, buffers shorter or
/// longer, results replaced by bad or unrequested payloads.
pub(crate) fn reply_shapes(
    bytes: &[u8],
    bad_payloads: &[(String, usize, Vec<u8>)],
) -> Vec<(String, Vec<u8>)> {
    let Some(p) = Parts::split(bytes) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut push = |what: String, m: Option<Vec<u8>>| {
        if let Some(m) = m {
            out.push((what, m));
        }
    };
    for n in [0usize, 1, 2, 3, 8, 10] {
        push(format!("bufcount {n}"), p.with_bufcount(n));
    }
    let mut extra = p.clone();
    extra.bufs.resize(9, Vec::new());
    extra.bufs.push(vec![1; 8]);
    push("a non-empty buffer 9".into(), extra.join());
    shorter_and_longer(&p, &mut push);
    for (what, i, payload) in bad_payloads {
        // The size field and the valid bit agree with the new buffer, so only the payload's
        // own rule is broken.
        let mut q = p.clone();
        if q.bufs.len() <= 3 + i || q.bufs[2].len() < rep::LAYOUT.size {
            continue;
        }
        let body = &mut q.bufs[2];
        let size = rep::mcpp_buf_size.element(*i).offset;
        body[size..size + 4].copy_from_slice(&q.order.u32_to(payload.len() as u32));
        let at = rep::mcpp_valid.offset;
        let mut valid = [0u8; 4];
        valid.copy_from_slice(&body[at..at + 4]);
        let valid = q.order.u32_from(valid) | 1 << i;
        body[at..at + 4].copy_from_slice(&q.order.u32_to(valid));
        q.bufs[3 + i] = payload.clone();
        push(format!("result {i}: {what}"), q.join());
    }
    out
}

/// Targeted mutants of xattr payloads for the rules a single field rarely breaks: an ACL
/// without its OTHER entry (W9.7), a pool name with no NUL (W9.12), a composite layout nested
/// in a composite layout (W9.18). Places and names are the declarations'.
pub(crate) fn xattr_shapes(name: &str, bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    use lustre_dne_intent::xattr::{LMV_MAGIC_FOREIGN, LOV_MAGIC_COMP_V1, LOV_MAGIC_V3};
    let mut out = Vec::new();
    let magic = u32_le(bytes, 0);
    match MliBuf::of_xattr_name(name) {
        Some(MliBuf::Lmv) if magic == Some(LMV_MAGIC_FOREIGN) => {
            let (len, size) = (lmv_foreign_md::lfm_length, lmv_foreign_md::LAYOUT.size);
            let mut m = bytes[..bytes.len().min(size)].to_vec();
            let whole = m.len() == size;
            if let Some(w) = m.get_mut(len.offset..len.offset + 4)
                && whole
            {
                w.fill(0);
                out.push((format!("an empty foreign LMV ({} 0)", len.name), m));
            }
        }
        Some(MliBuf::DefAcl) => {
            let entry = posix_acl_xattr_entry::LAYOUT.size;
            if bytes.len() > posix_acl_xattr_header::LAYOUT.size + entry {
                out.push((
                    "the last entry (OTHER) removed".into(),
                    bytes[..bytes.len() - entry].to_vec(),
                ));
            }
        }
        Some(MliBuf::Lov) if magic == Some(LOV_MAGIC_V3) => {
            let pool = lov_user_md_v3::LAYOUT.field(lov_user_md_v3::lmm_pool_name.name);
            if let Some(f) = pool
                && bytes.len() >= f.offset + f.size
            {
                let mut m = bytes.to_vec();
                m[f.offset..f.offset + f.size].fill(b'p');
                out.push((format!("{}: {} bytes, no NUL", f.name, f.size), m));
            }
        }
        Some(MliBuf::Lov) if magic == Some(LOV_MAGIC_COMP_V1) => comp_shapes(bytes, &mut out),
        _ => {}
    }
    out
}

/// A composite layout's entry 0 made a composite layout itself, and cut shorter than the
/// header of its v1 or v3 layout.
fn comp_shapes(bytes: &[u8], out: &mut Vec<(String, Vec<u8>)>) {
    use lustre_dne_intent::xattr::LOV_MAGIC_COMP_V1;
    let entry0 = lov_comp_md_v1::lcm_entries.offset;
    let offset_at = entry0 + lov_comp_md_entry_v1::lcme_offset.offset;
    if let Some(off) = u32_le(bytes, offset_at).map(|o| o as usize)
        && off + 4 <= bytes.len()
    {
        let mut m = bytes.to_vec();
        m[off..off + 4].copy_from_slice(&LOV_MAGIC_COMP_V1.to_le_bytes());
        out.push(("component 0 is itself a composite layout".into(), m));
    }
    // A blob inside the payload but shorter than the 32-byte header of its v1 or v3 layout
    // (W0.1, WIRE.md §9).
    let size_at = entry0 + lov_comp_md_entry_v1::lcme_size.offset;
    if bytes.len() >= size_at + 4 {
        let mut m = bytes.to_vec();
        m[size_at..size_at + 4].copy_from_slice(&24u32.to_le_bytes());
        out.push((
            "component 0 cut to 24 bytes, shorter than its header".into(),
            m,
        ));
    }
}

fn u32_le(b: &[u8], off: usize) -> Option<u32> {
    let w: [u8; 4] = b.get(off..off + 4)?.try_into().ok()?;
    Some(u32::from_le_bytes(w))
}

/// Word `off` of buffer `i` of `p`, in the message's byte order.
fn word(p: &Parts, i: usize, off: usize) -> Option<u32> {
    let w: [u8; 4] = p.bufs.get(i)?.get(off..off + 4)?.try_into().ok()?;
    Some(p.order.u32_from(w))
}

/// The message `p` with word `off` of buffer `i` set to `v`, in the message's byte order.
fn with_word(p: &Parts, i: usize, off: usize, v: u32) -> Option<Vec<u8>> {
    let mut b = p.bufs.get(i)?.clone();
    b.get_mut(off..off + 4)?.copy_from_slice(&p.order.u32_to(v));
    p.with_buf(i, b)
}

/// Targeted changes of one field of a reply's body, with values the one-word mutants do not
/// reach: the derived child's file type, permission bits, S_ISGID, project and flags (WIRE.md
/// W7.18 to W7.23), and a zero `mcpp_fid` with only f_ver set (kept, W11.10). Some are valid
/// (fewer permission bits, the f_ver), the rest break one rule each.
pub(crate) fn reply_body_fields(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let Some(p) = Parts::split(bytes) else {
        return Vec::new();
    };
    if p.bufs.get(2).is_none_or(|b| b.len() < rep::LAYOUT.size) {
        return Vec::new();
    }
    let get = |off: usize| word(&p, 2, off).unwrap_or_default();
    let set = |off: usize, v: u32| with_word(&p, 2, off, v);
    let mut out = Vec::new();
    let mut push = |what: String, m: Option<Vec<u8>>| out.extend(m.map(|m| (what, m)));
    let (fid, child_mode) = (rep::mcpp_fid, rep::mcpp_child_mode);
    let (child_projid, child_flags_at) = (rep::mcpp_child_projid, rep::mcpp_child_flags);
    let flags = McppFlags(get(rep::mcpp_flags.offset));
    if !flags.contains(McppFlags::LOOKUP_POS) {
        let f_ver = fid.offset + lu_fid::f_ver.offset;
        push(format!("{} [0x0:0x0:0x1]", fid.name), set(f_ver, 1));
    }
    if !flags.contains(McppFlags::CHILD_DERIVED) {
        return out;
    }
    let mode = get(child_mode.offset);
    let perm = mode & 0o7777;
    let mut mode_to = |what: &str, v: u32| {
        push(
            format!("{} {v:#o} ({what}, was {mode:#o})", child_mode.name),
            set(child_mode.offset, v),
        );
    };
    mode_to("fewer permission bits", mode & !0o077);
    mode_to("a regular file", 0o100_000 | perm);
    mode_to("a FIFO", 0o010_000 | perm);
    mode_to("no file type", 0o170_000 | perm);
    mode_to("S_ISUID added", mode | 0o4000);
    mode_to("S_ISGID toggled", mode ^ 0o2000);
    let projid = get(child_projid.offset);
    if projid != 0 {
        push(
            format!("{} 0 (was {projid})", child_projid.name),
            set(child_projid.offset, 0),
        );
    }
    let child_flags = get(child_flags_at.offset);
    for v in [0, 0x1, child_flags | 0x10] {
        if v != child_flags {
            push(
                format!("{} {v:#x} (was {child_flags:#x})", child_flags_at.name),
                set(child_flags_at.offset, v),
            );
        }
    }
    out
}

/// Targeted changes of a create request under an unchanged reply: the requested file type
/// made another one, so that a reply deriving the first breaks W7.19.
pub(crate) fn request_body_fields(request: &[u8]) -> Vec<(String, Vec<u8>)> {
    let Some(p) = Parts::split(request) else {
        return Vec::new();
    };
    if p.bufs
        .get(3)
        .is_none_or(|b| b.len() < md_create_prepare_req::LAYOUT.size)
    {
        return Vec::new();
    }
    let at = md_create_prepare_req::mcpr_child_mode.offset;
    let mode = word(&p, 3, at).unwrap_or_default();
    if mode == 0 {
        return Vec::new();
    }
    let perm = mode & 0o7777;
    [
        ("a regular file", 0o100_000 | perm),
        ("a symlink", 0o120_000 | perm),
    ]
    .into_iter()
    .filter(|&(_, v)| v != mode)
    .filter_map(|(what, v)| {
        let m = with_word(&p, 3, at, v)?;
        let name = md_create_prepare_req::mcpr_child_mode.name;
        Some((format!("{name} {v:#o} ({what}, was {mode:#o})"), m))
    })
    .collect()
}
