//! The text of every layout in `testdata/real` and `testdata/synth` against what lfs prints
//! for it. The expected text is not the crate's: for the real payloads it is the "What lfs
//! prints" section of `NAME.md`, for the synthetic ones `NAME.lfs` and `NAME.yaml`, all written
//! by `testdata/real/lfs_model.py`, a transcription of liblustreapi's printers.

use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::*;
use std::path::{Path, PathBuf};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(sub)
}

/// The fenced code blocks of a markdown file, in order.
fn code_blocks(md: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Option<String> = None;
    for line in md.split_inclusive('\n') {
        if line.trim_end() == "```" {
            match cur.take() {
                Some(b) => out.push(b),
                None => cur = Some(String::new()),
            }
        } else if let Some(b) = cur.as_mut() {
            b.push_str(line);
        }
    }
    out
}

/// The text between the first backquoted `prefix` and the closing backquote.
fn after<'a>(md: &'a str, prefix: &str) -> &'a str {
    let at = md.find(prefix).unwrap_or_else(|| panic!("no {prefix:?}")) + prefix.len();
    let rest = &md[at..];
    &rest[..rest.find('`').expect("closing backquote")]
}

fn real_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir("real"))
        .expect("testdata/real")
        .filter_map(|e| {
            let p = e.ok()?.path();
            (p.extension()? == "bin").then(|| p.file_stem()?.to_str().map(String::from))?
        })
        .collect();
    names.sort();
    names
}

#[test]
fn real_lov_text_matches_lfs() {
    let mut seen = 0;
    for name in real_names().iter().filter(|n| n.starts_with("lov_")) {
        let bytes = std::fs::read(dir("real").join(format!("{name}.bin"))).unwrap();
        let md = std::fs::read_to_string(dir("real").join(format!("{name}.md"))).unwrap();
        let path = after(&md, "`lfs getstripe -v ");
        let blocks = code_blocks(&md[md.find("## What lfs prints").expect("section")..]);
        let v = LovView::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        // Every real payload is a file's layout, and the guess says so.
        assert_eq!(v.layout_of_guess(), LayoutOf::File, "{name}");
        assert_eq!(
            v.getstripe().path(path).to_string(),
            blocks[0],
            "{name}: -v"
        );
        assert_eq!(
            v.getstripe().yaml(true).to_string(),
            blocks[1],
            "{name}: --yaml"
        );
        seen += 1;
    }
    assert_eq!(seen, 9);
}

#[test]
fn real_lmv_text_matches_lfs() {
    let mut seen = 0;
    for name in real_names().iter().filter(|n| n.starts_with("lmv_master")) {
        let bytes = std::fs::read(dir("real").join(format!("{name}.bin"))).unwrap();
        let md = std::fs::read_to_string(dir("real").join(format!("{name}.md"))).unwrap();
        let fid: LuFid = after(&md, "Object FID (from its trusted.lma): `")
            .parse()
            .unwrap();
        let blocks = code_blocks(&md[md.find("## What lfs prints").expect("section")..]);
        let v = LmvView::parse(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        let LmvView::Md(m) = v else { panic!("{name}") };
        assert_eq!(m.form(), LmvForm::HeaderOnly, "{name}");
        // The stripe rows come from the master's directory entries, not from this payload: the
        // payload determines the first line and the table's heading.
        let lines: Vec<&str> = blocks[0].split_inclusive('\n').collect();
        assert!(lines[1].starts_with("mdtidx"), "{name}");
        let expected: String = lines[..2].concat();
        assert_eq!(v.getdirstripe().fid(fid).to_string(), expected, "{name}");
        seen += 1;
    }
    assert_eq!(seen, 2);
}

#[test]
fn real_values_match_the_field_tables() {
    // The decoded values against the `.md` field tables (written from the bytes by
    // describe.py): each object's OST index, ostid_seq() and ostid_id().
    for name in real_names().iter().filter(|n| n.starts_with("lov_")) {
        let bytes = std::fs::read(dir("real").join(format!("{name}.bin"))).unwrap();
        let md = std::fs::read_to_string(dir("real").join(format!("{name}.md"))).unwrap();
        let num = |s: &str| match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).unwrap(),
            None => s.parse().unwrap(),
        };
        let token = |s: &str| {
            s.split(|c: char| !c.is_ascii_alphanumeric())
                .next()
                .unwrap()
                .to_string()
        };
        let mut want = Vec::new();
        let mut idx = md.match_indices("| OST index ");
        for line in md.lines().filter(|l| l.contains("ostid_seq() = ")) {
            let seq = token(&line[line.find("ostid_seq() = ").unwrap() + 14..]);
            let rest = &line[line.find("ostid_id() = ").unwrap() + 13..];
            let id = token(rest.strip_prefix("oi_id = ").unwrap_or(rest));
            let (i, _) = idx.next().expect("an OST index per object");
            let ost: u32 = md[i + 12..].split(' ').next().unwrap().parse().unwrap();
            // For a legacy object the table also gives ostid_to_fid().
            let fid = line.find("gives IDIF ").map(|at| {
                line[at + 11..]
                    .split(' ')
                    .next()
                    .unwrap()
                    .parse::<LuFid>()
                    .unwrap()
            });
            want.push((ost, num(&seq), num(&id), fid));
        }
        let mds: Vec<LovMdView<'_>> = match LovView::parse(&bytes).unwrap() {
            LovView::Md(m) => vec![m],
            LovView::Comp(c) => c
                .components()
                .filter_map(|c| match c.blob {
                    LovBlobView::Md(m) => Some(m),
                    LovBlobView::Foreign(_) => None,
                })
                .collect(),
            LovView::Foreign(_) => panic!("{name}"),
        };
        let got: Vec<_> = mds
            .iter()
            .flat_map(|m| m.objects())
            .zip(&want)
            .map(|(o, w)| {
                let fid = w.3.map(|_| o.oi.to_fid(o.idx).expect("an IDIF FID"));
                (o.idx, o.oi.ostid_seq(), o.oi.ostid_id(), fid)
            })
            .collect();
        assert!(!want.is_empty(), "{name}");
        assert_eq!(got, want, "{name}");
        assert_eq!(
            mds.iter().map(|m| m.objects().len()).sum::<usize>(),
            want.len(),
            "{name}"
        );
        for m in &mds {
            assert_eq!(m.objects().len(), usize::from(m.stripe_count()), "{name}");
        }
    }
}

/// One line of `testdata/synth/cases.txt`.
struct Case {
    name: String,
    xattr: String,
    layout_of: Option<LayoutOf>,
    path: Option<String>,
    fid: Option<LuFid>,
    mdt: Option<u32>,
    stripe_mdts: Vec<u32>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(dir("synth").join("cases.txt")).unwrap();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let opt = |s: &str| (s != "-").then(|| s.to_string());
            Case {
                name: f[0].into(),
                xattr: f[1].into(),
                layout_of: match f[2] {
                    "file" => Some(LayoutOf::File),
                    "dir" => Some(LayoutOf::Dir),
                    _ => None,
                },
                path: opt(f[3]),
                fid: opt(f[4]).map(|s| s.parse().unwrap()),
                mdt: opt(f[5]).map(|s| s.parse().unwrap()),
                stripe_mdts: opt(f[6])
                    .map(|s| s.split(',').map(|n| n.parse().unwrap()).collect())
                    .unwrap_or_default(),
            }
        })
        .collect()
}

fn render(c: &Case, bytes: &[u8], yaml: bool) -> String {
    match c.xattr.as_str() {
        "trusted.lov" => {
            let v = LovView::parse(bytes).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let mut t = v.getstripe().yaml(yaml);
            // The owned copy names its unions by the guess (made in one pass over the
            // components for a composite layout). `LovMd`'s `==` leaves the union's name
            // out, and `Debug` shows it.
            assert_eq!(
                format!("{:?}", v.to_value()),
                format!("{:?}", v.to_value_of(v.layout_of_guess())),
                "{}",
                c.name
            );
            if let Some(of) = c.layout_of {
                // The guess agrees with the case's kind.
                assert_eq!(v.layout_of_guess(), of, "{}", c.name);
                t = t.layout_of(of);
            }
            if let Some(p) = &c.path {
                t = t.path(p);
            }
            if let Some(fid) = c.fid {
                t = t.fid(fid);
            }
            if let Some(m) = c.mdt {
                t = t.mdt_index(m);
            }
            t.to_string()
        }
        "trusted.lmv" => {
            let v = LmvView::parse(bytes).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let mut t = v.getdirstripe().yaml(yaml).stripe_mdts(&c.stripe_mdts);
            if let Some(fid) = c.fid {
                t = t.fid(fid);
            }
            if let Some(m) = c.mdt {
                t = t.mdt(m);
            }
            t.to_string()
        }
        "trusted.dmv" => {
            let v = DefaultLmvView::parse(bytes).unwrap_or_else(|e| panic!("{}: {e}", c.name));
            let mut t = v.getdirstripe().yaml(yaml);
            if let Some(fid) = c.fid {
                t = t.fid(fid);
            }
            t.to_string()
        }
        other => panic!("{other}"),
    }
}

#[test]
fn synthetic_kinds_match_lfs() {
    let all = cases();
    assert_eq!(all.len(), 15);
    for c in &all {
        let d = dir("synth");
        let bytes = std::fs::read(d.join(format!("{}.bin", c.name))).unwrap();
        let v = std::fs::read_to_string(d.join(format!("{}.lfs", c.name))).unwrap();
        let y = std::fs::read_to_string(d.join(format!("{}.yaml", c.name))).unwrap();
        assert_eq!(render(c, &bytes, false), v, "{}: -v", c.name);
        assert_eq!(render(c, &bytes, true), y, "{}: --yaml", c.name);
    }
}

#[test]
fn synthetic_payloads_round_trip() {
    for c in cases() {
        let bytes = std::fs::read(dir("synth").join(format!("{}.bin", c.name))).unwrap();
        let again = match c.xattr.as_str() {
            "trusted.lov" => LovView::parse(&bytes).unwrap().to_value().to_bytes(),
            "trusted.lmv" => LmvView::parse(&bytes).unwrap().to_value().to_bytes(),
            _ => DefaultLmvView::parse(&bytes).unwrap().to_value().to_bytes(),
        }
        .unwrap();
        assert_eq!(&again[..], &bytes[..], "{}", c.name);
    }
}

#[test]
fn lines_needing_outside_facts_are_left_out() {
    // Without --mdt a DoM component's MDT index (and the layout generation lfs shows from the
    // same union) is unknown: those lines are left out, nothing is made up.
    let bytes = std::fs::read(dir("synth").join("lov_dom.bin")).unwrap();
    let t = LovView::parse(&bytes).unwrap().getstripe().to_string();
    assert!(!t.contains("lmm_mdt_index"), "{t}");
    assert!(t.contains("      lmm_pattern:       mdt\n\n"), "{t}");
    // Without --stripe-mdts the MDT column says `?`.
    let bytes = std::fs::read(dir("synth").join("lmv_master_fids.bin")).unwrap();
    let t = LmvView::parse(&bytes).unwrap().getdirstripe().to_string();
    assert!(
        t.ends_with("     ?\t\t [0x240000400:0x3:0x0]\t\t\n     ?\t\t [0x200000401:0x4:0x0]\t\t\n"),
        "{t}"
    );
    // Without a FID a directory default prints no lmm_fid line.
    let bytes = std::fs::read(dir("synth").join("lov_dir_default.bin")).unwrap();
    let t = LovView::parse(&bytes).unwrap().getstripe().to_string();
    assert_eq!(
        t,
        "stripe_count:  2 stripe_size:   4194304 pattern:       raid0 stripe_offset: -1\n\n"
    );
}

#[test]
fn mutated_payloads_never_panic_the_renderers() {
    // Every byte of every real and synthetic payload set to a few values: whatever decodes
    // renders, in every mode, without a panic.
    let mut rendered = 0usize;
    for sub in ["real", "synth"] {
        for e in std::fs::read_dir(dir(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_none_or(|x| x != "bin") {
                continue;
            }
            let orig = std::fs::read(&p).unwrap();
            for i in 0..orig.len() {
                for v in [0x00, 0x01, 0x10, 0x80, 0xff, orig[i] ^ 0x40] {
                    let mut b = orig.clone();
                    b[i] = v;
                    for yaml in [false, true] {
                        if let Ok(l) = LovView::parse(&b) {
                            for of in [LayoutOf::File, LayoutOf::Dir] {
                                let t = l.getstripe().layout_of(of).yaml(yaml);
                                let _ = t.path("/p").fid(LuFid::ROOT).mdt_index(1).to_string();
                                let _ = t.to_string();
                                rendered += 1;
                            }
                        }
                        if let Ok(l) = LmvView::parse(&b) {
                            let _ = l.getdirstripe().yaml(yaml).stripe_mdts(&[1]).to_string();
                            rendered += 1;
                        }
                        if let Ok(d) = DefaultLmvView::parse(&b) {
                            let _ = d.getdirstripe().yaml(yaml).fid(LuFid::ROOT).to_string();
                            rendered += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(rendered > 10_000, "{rendered}");
}
