//! Xattr payloads (WIRE.md §9): golden vectors, one rejection per rule, prefixes, round trips,
//! ACL semantics and the typed reply accessors. One test binary; a module per part, the shared
//! helpers here.

use bytes::Bytes;
use lustre_dne_intent::ErrorKind;
use lustre_dne_intent::intent::{
    EntryName, GroupList, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation, PrepResult,
    PrepareOutcome, PrepareReply, PrepareRequest, ReplyView, UnknownReason,
};
use lustre_dne_intent::wire::{LockMode, LuFid, LustreHandle};
use lustre_dne_intent::xattr::acl::{MAY_EXEC, MAY_READ, MAY_WRITE};
use lustre_dne_intent::xattr::dmv::{LMV_INHERIT_NONE, LMV_INHERIT_UNLIMITED};
use lustre_dne_intent::xattr::lov::LovBlob;
use lustre_dne_intent::xattr::*;
use lustre_dne_intent::{DecodeError, EncodeError, Endian};
use proptest::prelude::*;

mod accessors;
mod acl_kernel;
mod acl_semantics;
mod golden;
mod lfs_text;
mod lov_forms;
mod lov_overlap;
mod rejections;
#[path = "../require/mod.rs"]
mod require;
mod roundtrip;

fn vector(name: &str) -> Vec<u8> {
    let path = format!("{}/testdata/{name}.bin", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn all_vectors() -> Vec<(String, Vec<u8>)> {
    let dir = format!("{}/testdata", env!("CARGO_MANIFEST_DIR"));
    let mut v: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            let stem = name.strip_suffix(".bin")?.to_string();
            stem.starts_with("xattr_").then_some(stem)
        })
        .collect();
    v.sort();
    v.into_iter()
        .map(|n| {
            let b = vector(&n);
            (n, b)
        })
        .collect()
}

/// Decodes with the decoder the vector's name selects; returns the re-encoding.
fn decode_any(name: &str, b: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let kind = name.trim_start_matches("xattr_");
    Ok(if kind.starts_with("acl") {
        AclView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else if kind.starts_with("pin") {
        PinView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else if kind.starts_with("lmv") {
        LmvView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else if kind.starts_with("dmv") {
        DefaultLmvView::parse(b)?
            .to_value()
            .to_bytes()
            .unwrap()
            .to_vec()
    } else if kind.starts_with("lov") {
        LovView::parse(b)?.to_value().to_bytes().unwrap().to_vec()
    } else {
        panic!("unknown vector kind {name}")
    })
}

fn kind_of(r: Result<impl Sized, DecodeError>) -> ErrorKind {
    match r {
        Ok(_) => panic!("decoded, expected an error"),
        Err(e) => e.kind,
    }
}

const U: u32 = u32::MAX;

fn le32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_le_bytes());
}
fn le16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_le_bytes());
}

fn acl(entries: &[(u16, u16, u32)]) -> Vec<u8> {
    let mut b = 2u32.to_le_bytes().to_vec();
    for &(t, p, i) in entries {
        b.extend_from_slice(&t.to_le_bytes());
        b.extend_from_slice(&p.to_le_bytes());
        b.extend_from_slice(&i.to_le_bytes());
    }
    b
}
