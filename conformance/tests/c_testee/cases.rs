//! The cases: the golden vectors, the real payloads, the fuzz corpora and mutations of the
//! vectors.

use super::*;

pub(crate) fn vectors() -> Vec<Case> {
    let mut cases = Vec::new();
    for name in REQUESTS {
        cases.push(Case {
            what: name.to_owned(),
            kind: Kind::Request,
            bytes: load(&format!("testdata/{name}.bin")),
        });
    }
    for (reply, request) in REPLIES {
        cases.push(Case {
            what: reply.to_owned(),
            kind: Kind::Reply(load(&format!("testdata/{request}.bin"))),
            bytes: load(&format!("testdata/{reply}.bin")),
        });
    }
    for dir in ["testdata", "testdata/real"] {
        let mut files: Vec<String> = std::fs::read_dir(Path::new(ROOT).join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|f| f.ends_with(".bin"))
            .filter(|f| dir != "testdata" || f.starts_with("xattr_"))
            .collect();
        files.sort();
        for f in files {
            let stem = f.trim_end_matches(".bin");
            cases.push(Case {
                what: format!("{dir}/{stem}"),
                kind: Kind::Xattr(xattr_name_of(stem)),
                bytes: load(&format!("{dir}/{f}")),
            });
        }
    }
    cases
}

/// Every truncation, every single-bit flip, and boundary values over each aligned word.
pub(crate) fn mutations(base: &Case) -> Vec<Case> {
    let mut out = Vec::new();
    let mut push = |what: String, bytes: Vec<u8>| {
        out.push(Case {
            what: format!("{} {what}", base.what),
            kind: base.kind.clone(),
            bytes,
        })
    };
    let b = &base.bytes;
    for len in 0..b.len() {
        push(format!("cut to {len}"), b[..len].to_vec());
    }
    for i in 0..b.len() {
        for bit in 0..8 {
            let mut m = b.clone();
            m[i] ^= 1 << bit;
            push(format!("byte {i} bit {bit} flipped"), m);
        }
    }
    for i in (0..b.len().saturating_sub(3)).step_by(4) {
        let w = u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
        for v in [
            0,
            1,
            u32::MAX,
            w.wrapping_add(1),
            w.wrapping_sub(1),
            w.swap_bytes(),
        ] {
            let mut m = b.clone();
            m[i..i + 4].copy_from_slice(&v.to_le_bytes());
            push(format!("word {i} = {v:#x}"), m);
        }
    }
    out
}

/// A reply case whose request is mutated instead (the rules that need the request).
pub(crate) fn request_mutations(reply: &Case) -> Vec<Case> {
    let Kind::Reply(req) = &reply.kind else {
        return Vec::new();
    };
    let base = Case {
        what: String::new(),
        kind: Kind::Request,
        bytes: req.clone(),
    };
    mutations(&base)
        .into_iter()
        .filter(|m| RequestView::parse(&m.bytes).is_ok())
        .map(|m| Case {
            what: format!("{} with request{}", reply.what, m.what),
            kind: Kind::Reply(m.bytes),
            bytes: reply.bytes.clone(),
        })
        .collect()
}

pub(crate) fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = Path::new(ROOT).join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files.iter().map(|f| std::fs::read(f).unwrap()).collect()
}
