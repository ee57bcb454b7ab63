//! The Lustre side of the prepare intent, in Lustre's own style: a `git format-patch` series for
//! lustre-release that adds the wire structures, reserves the connect flag, swabs the bodies,
//! declares the request format, checks the layouts in `wirecheck`/`wiretest`, names the
//! opcodes and runs the conformance vectors inside Lustre (`docs/lustre-patch.md`).
//!
//! Every structure, member, offset, size, flag and opcode in the C text comes from the crate:
//! the layout tables (`layout` below) and the protocol's constants. The context of each hunk
//! comes from the target tree (`--tree`), or from excerpts of the default revision
//! ([`BASE_REVISION`]) that the generator itself writes from a tree ([`write_excerpts`]).

mod base;
pub(crate) mod c;
mod check;
mod connect;
mod excerpts;
mod kunit;
mod mbox;
mod mdt;
mod names;
mod osp;
mod reqfmt;
mod requester;
mod swab;
mod table;
pub(crate) mod uapi;
pub(crate) mod wirecheck;

// The crate's layouts: the same `#[c_struct]` declarations the codec's raw layouts are
// checked against at compile time.
use lustre_dne_intent::structures;
pub(crate) use lustre_dne_intent::wire::layout;

use std::path::{Path, PathBuf};

pub use base::BASE_REVISION;
use base::{FileDiff, Source};
use layout::Layout;
pub use mbox::parse_git_ident;

/// The Lustre ticket of the prepare intent, which every patch names.
pub const TICKET: &str = "LU-20808";

/// What to generate the series for.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A lustre-release work tree: hunks are made against its files, free values are read from
    /// it and conflicts refused. `None`: the revision [`BASE_REVISION`].
    pub tree: Option<PathBuf>,
    /// The author and sign-off, `Name <email>`. `None`: a placeholder (the pinned series).
    pub author: Option<String>,
    /// The date of each patch, as mail writes it (`Sat, 6 Dec 2025 07:00:00 +0100`). `None`:
    /// the epoch (the pinned series).
    pub date: Option<String>,
}

/// One patch of the series: an mbox message as `git format-patch` writes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Patch {
    /// `0001-LU-20808-...patch`.
    pub file_name: String,
    /// The message: headers, commit message, diffstat and diff.
    pub text: String,
}

impl Patch {
    /// The lines each hunk of `path` adds (without the `+`), hunk by hunk.
    pub fn added_hunks(&self, path: &str) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let mut in_file = false;
        for l in self.text.lines() {
            if let Some(rest) = l.strip_prefix("diff --git a/") {
                in_file = rest.split(" b/").next() == Some(path);
            } else if !in_file {
            } else if l.starts_with("@@ ") {
                out.push(Vec::new());
            } else if let (Some(a), Some(h), false) =
                (l.strip_prefix('+'), out.last_mut(), l.starts_with("+++ "))
            {
                h.push(a.to_string());
            }
        }
        out.retain(|h| !h.is_empty());
        out
    }

    /// The paths the patch touches.
    pub fn paths(&self) -> Vec<String> {
        self.text
            .lines()
            .filter_map(|l| l.strip_prefix("diff --git a/"))
            .filter_map(|r| r.split(" b/").next())
            .map(str::to_string)
            .collect()
    }
}

/// Why no series could be made.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// A file of the tree could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// A kept excerpt does not hold what the generator needs.
    #[error("excerpt of {path}: {why}")]
    Excerpt {
        /// The file.
        path: String,
        /// What is wrong.
        why: String,
    },
    /// A line the series is anchored on was not found, or not only once.
    #[error("{path}: cannot place the change at {what:?}: {why} (is this a lustre-release tree?)")]
    Anchor {
        /// The file.
        path: String,
        /// What was looked for.
        what: String,
        /// What was found.
        why: String,
    },
    /// A value the protocol fixes is already used by the tree.
    #[error("{path}: {what}")]
    Conflict {
        /// The file.
        path: String,
        /// The conflict and what to do about it.
        what: String,
    },
    /// The tree already holds the series (or part of it).
    #[error("{path}: already holds {what}; the series is applied already")]
    AlreadyApplied {
        /// The file.
        path: String,
        /// What was found.
        what: String,
    },
    /// The crate's layout tables lack a structure the series needs.
    #[error("the layout tables have no structure {0}")]
    NoLayout(&'static str),
    /// An excerpt could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
}

/// One patch before it is written: its commit message and its file diffs.
struct Draft {
    /// `component: summary`, after the ticket.
    summary: String,
    /// Paragraphs of the body, each wrapped at 70 columns.
    body: Vec<String>,
    /// `Test-Parameters:` value, if any.
    test_parameters: Option<String>,
    diffs: Vec<FileDiff>,
}

/// The structure named `name` of the crate's tables.
pub(crate) fn layout(name: &'static str) -> Result<&'static Layout, PatchError> {
    structures::ALL
        .iter()
        .copied()
        .find(|l| l.name == name)
        .ok_or(PatchError::NoLayout(name))
}

/// The two new structures, request body first.
pub(crate) fn new_layouts() -> Result<[&'static Layout; 2], PatchError> {
    Ok([
        layout("md_create_prepare_req")?,
        layout("md_create_prepare_rep")?,
    ])
}

fn drafts(src: &Source) -> Result<Vec<Draft>, PatchError> {
    // The flag first: Lustre asks for a connect flag to be reserved by a patch of its own that
    // can land (and be ported to maintenance branches) before the feature.
    let conn = connect::draft(src)?;
    // Then the protocol in one patch, as Lustre lands a structure with its swabber, its
    // request format and its wirecheck/wiretest rows together.
    let protocol = squash(
        "ptlrpc: add DNE prepare intent wire protocol",
        vec![
            uapi::draft(src)?,
            swab::draft(src)?,
            reqfmt::draft(src)?,
            check::draft(src)?,
            wirecheck::draft(src)?,
            names::draft(src)?,
        ],
    );
    let tests = kunit::draft(src)?;
    // Then the first use: negotiation and the empty result, the fallback.
    let mdt = mdt::draft(src)?;
    // Then the requester, which sends the intent where the peer granted the flag.
    let requester = requester::draft(src)?;
    Ok(vec![conn, protocol, tests, mdt, requester])
}

/// One draft of `parts`: their bodies in order, their diffs in git's order (by path), and the
/// widest test parameters any of them asks for (`trivial` only when all are trivial).
fn squash(summary: &str, parts: Vec<Draft>) -> Draft {
    let mut body = Vec::new();
    let mut diffs = Vec::new();
    let mut params: Option<String> = None;
    for p in parts {
        body.extend(p.body);
        diffs.extend(p.diffs);
        match (&params, p.test_parameters) {
            (_, None) => {}
            (None, Some(t)) => params = Some(t),
            (Some(cur), Some(t)) if cur == "trivial" => params = Some(t),
            _ => {}
        }
    }
    diffs.sort_by(|a, b| a.path.cmp(&b.path));
    Draft {
        summary: summary.into(),
        body,
        test_parameters: params,
        diffs,
    }
}

/// The patch series, in the order `git am` applies it.
pub fn series(opts: &Options) -> Result<Vec<Patch>, PatchError> {
    let src = Source::new(opts.tree.as_deref());
    let drafts = drafts(&src)?;
    let n = drafts.len();
    let author = opts.author.as_deref().unwrap_or(mbox::AUTHOR);
    let date = opts.date.as_deref().unwrap_or(mbox::DATE);
    Ok(drafts
        .into_iter()
        .enumerate()
        .map(|(i, d)| mbox::format(i + 1, n, &d, author, date))
        .collect())
}

/// Writes, under `out`, the excerpts of `tree` that the default series is made from: the lines
/// the generator reads, with `margin` more on each side. Run it on a tree at
/// [`BASE_REVISION`] to refresh `conformance/lustre/base/`.
pub fn write_excerpts(tree: &Path, out: &Path) -> Result<Vec<PathBuf>, PatchError> {
    let src = Source::new(Some(tree));
    drafts(&src)?;
    let mut written = Vec::new();
    for (rel, text) in src.excerpts(EXCERPT_MARGIN) {
        let path = out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| PatchError::Write {
                path: dir.to_path_buf(),
                source: e,
            })?;
        }
        std::fs::write(&path, text).map_err(|e| PatchError::Write {
            path: path.clone(),
            source: e,
        })?;
        written.push(path);
    }
    Ok(written)
}

/// Lines kept around each line read, so that a reader of an excerpt sees where it is.
const EXCERPT_MARGIN: usize = 2;

#[cfg(test)]
mod tests {
    use super::layout::{Field, Layout};
    use super::*;

    /// The C text is a function of the layout tables: a member moved in the table moves in the
    /// declaration, the swabber, the wirecheck rows and the wiretest assertions (the series
    /// reads nothing else about the structure).
    #[test]
    fn a_moved_member_moves_everywhere_in_the_series() {
        let rep = layout("md_create_prepare_rep").expect("the reply body");
        let mut fields: Vec<Field> = rep.fields.to_vec();
        // mcpp_child_gid (36) and mcpp_child_projid (40) trade places.
        let gid = fields
            .iter()
            .position(|f| f.name == "mcpp_child_gid")
            .unwrap();
        fields.swap(gid, gid + 1);
        let (a, b) = (fields[gid].offset, fields[gid + 1].offset);
        fields[gid].offset = b;
        fields[gid + 1].offset = a;
        let moved = Layout {
            fields: Box::leak(fields.into_boxed_slice()),
            ..*rep
        };
        let before = wirecheck::wiretest_block(rep, false).join("\n");
        let after = wirecheck::wiretest_block(&moved, false).join("\n");
        assert!(before.contains("offsetof(struct md_create_prepare_rep, mcpp_child_gid) == 36"));
        assert!(after.contains("offsetof(struct md_create_prepare_rep, mcpp_child_projid) == 36"));
        let decl = c::struct_decl(&moved).join("\n");
        assert!(decl.find("mcpp_child_projid;") < decl.find("mcpp_child_gid;"));
        let swab = swab::swab_fn(&moved).join("\n");
        assert!(swab.find("mcpp_child_projid") < swab.find("mcpp_child_gid"));
        assert_ne!(
            wirecheck::wirecheck_fn(rep, false),
            wirecheck::wirecheck_fn(&moved, false)
        );
    }

    /// One table per structure: the table the codec checks its raw layout against at compile
    /// time (`#[c_struct]`) is the one the C header, the series and the Wireshark dissector
    /// are made from, so a member moved in it moves in all of them together.
    #[test]
    fn one_table_feeds_the_rust_checks_the_header_the_series_and_the_dissector() {
        use lustre_dne_intent::intent::MdCreatePrepareRep;
        use lustre_dne_intent::wire::raw::MdCreatePrepareRepRaw;
        use lustre_dne_intent_capture::wireshark::{Tables, dissector_with};
        use zerocopy::LittleEndian;

        let rep = layout("md_create_prepare_rep").expect("the reply body");
        // The Rust side: the value's LAYOUT is the table, and the raw layout the compile-time
        // checks hold to it has every member where the table says.
        assert_eq!(MdCreatePrepareRep::LAYOUT, rep);
        type Raw = MdCreatePrepareRepRaw<LittleEndian>;
        let gid = rep.field("mcpp_child_gid").expect("a member");
        assert_eq!(gid.offset, core::mem::offset_of!(Raw, mcpp_child_gid));

        // The same member moved in a copy of the table (it trades places with the next one).
        let mut fields: Vec<Field> = rep.fields.to_vec();
        let i = fields
            .iter()
            .position(|f| f.name == "mcpp_child_gid")
            .unwrap();
        fields.swap(i, i + 1);
        let (a, b) = (fields[i].offset, fields[i + 1].offset);
        fields[i].offset = b;
        fields[i + 1].offset = a;
        let moved: &'static Layout = Box::leak(Box::new(Layout {
            fields: Box::leak(fields.into_boxed_slice()),
            ..*rep
        }));

        // The header: its declaration and its wirecheck.
        let [fid, req, _] = [
            layout("lu_fid").unwrap(),
            layout("md_create_prepare_req").unwrap(),
            rep,
        ];
        let header = crate::cheader::c_header_of([fid, req, moved]);
        let check = |h: &str, off: usize| {
            h.contains(&format!(
                "offsetof(struct md_create_prepare_rep, mcpp_child_gid), {off});"
            ))
        };
        assert!(check(&crate::cheader::c_header_of([fid, req, rep]), 36));
        assert!(check(&header, 40), "the header keeps the old offset");
        assert!(header.find("mcpp_child_projid;") < header.find("mcpp_child_gid;"));

        // The series: the declaration of patch 2 and the wiretest rows of patch 5.
        let decl = uapi::declarations(req, moved).join("\n");
        assert!(decl.find("mcpp_child_projid;") < decl.find("mcpp_child_gid;"));
        let wt = wirecheck::wiretest_block(moved, false).join("\n");
        assert!(wt.contains("offsetof(struct md_create_prepare_rep, mcpp_child_gid) == 40"));

        // The dissector.
        let lua = |t: &Tables| dissector_with(t);
        let before = lua(&Tables::default());
        let after = lua(&Tables::default().with(moved));
        assert!(before.contains("{ \"mcpp_child_gid\", 36, 4, \"u\", 1 },"));
        assert!(
            after.contains("{ \"mcpp_child_gid\", 40, 4, \"u\", 1 },"),
            "the dissector keeps the old offset"
        );
    }

    /// The default series is made from the kept excerpts alone: the flag alone first, then the
    /// protocol, then its test, then the MDT's use of it (negotiation and the empty answer),
    /// then the requester.
    #[test]
    fn the_default_series_has_one_patch_per_concern() {
        let s = series(&Options::default()).expect("the default series");
        let subjects: Vec<&str> = s
            .iter()
            .filter_map(|p| p.text.lines().find(|l| l.starts_with("Subject: ")))
            .collect();
        assert_eq!(subjects.len(), 5, "{subjects:?}");
        assert!(subjects[3].contains(" mdt: "), "{subjects:?}");
        assert!(subjects[4].contains(" osp: "), "{subjects:?}");
        // The structures travel with their wirecheck and wiretest rows.
        let protocol = s[1].paths();
        for p in [uapi::IDL, wirecheck::WIRECHECK, "lustre/ptlrpc/layout.c"] {
            assert!(protocol.contains(&p.to_string()), "{protocol:?}");
        }
        assert!(subjects.iter().all(|l| l.contains("] LU-20808 ")));
        // Only the flag is trivial: the protocol adds a format ptlrpc checks when it loads,
        // the test runs its own sanity test.
        let params: Vec<&str> = s
            .iter()
            .filter_map(|p| p.text.lines().find(|l| l.starts_with("Test-Parameters: ")))
            .collect();
        assert_eq!(params.len(), 5);
        assert_eq!(params[0], "Test-Parameters: trivial");
        assert!(!params[1].contains("trivial") && params[1].contains("testlist=sanity"));
        assert!(params[2].contains("env=ONLY="), "{}", params[2]);
        // The MDT changes run with several MDTs, where MDT-to-MDT connects happen.
        assert!(params[3].contains("mdscount=2"), "{}", params[3]);
        assert!(params[4].contains("mdscount=2"), "{}", params[4]);
        // The requester: the MDT names the operation, the OSP sends it, the parameter that
        // turns it off has its page.
        for p in [
            "lustre/mdt/mdt_reint.c",
            "lustre/osp/osp_md_object.c",
            "lustre/include/lustre_dlm.h",
            "Documentation/man4/dne_prepare.4",
        ] {
            assert!(s[4].paths().contains(&p.to_string()), "{:?}", s[4].paths());
        }
        assert!(
            s[3].paths()
                .contains(&"lustre/mdt/mdt_handler.c".to_string()),
            "{:?}",
            s[3].paths()
        );
        assert!(
            s[0].paths()
                .contains(&"lustre/obdclass/lprocfs_status.c".to_string())
        );
    }

    /// The author and date given are every patch's, sign-off included.
    #[test]
    fn the_author_and_date_given_are_each_patchs() {
        let s = series(&Options {
            author: Some("A U Thor <a@example.com>".into()),
            date: Some("Sat, 6 Dec 2025 07:00:00 +0100".into()),
            ..Options::default()
        })
        .expect("the series");
        for p in &s {
            assert!(p.text.contains("\nFrom: A U Thor <a@example.com>\n"));
            assert!(p.text.contains("\nDate: Sat, 6 Dec 2025 07:00:00 +0100\n"));
            assert!(
                p.text
                    .contains("\nSigned-off-by: A U Thor <a@example.com>\n")
            );
            assert!(!p.text.contains("Your Name"));
        }
    }
}
