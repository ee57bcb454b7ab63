//! The lustre-release files a series edits: read whole from a tree (`--tree`), or from the
//! excerpts kept for the revision the series targets by default.
//!
//! Why excerpts: a hunk needs the exact lines around each change and their line numbers, and the
//! files touched are large (`sanity.sh` alone is 37 000 lines). The excerpts hold only the lines
//! the generator reads (anchors, scanned regions and three lines of context), with their line
//! numbers, and they are written by the generator itself from a real tree ([`write_excerpts`]),
//! so they are never edited by hand. A file read from a tree records the lines it was asked for
//! in the same way; that record is what [`write_excerpts`] keeps.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use super::PatchError;
use super::excerpts::EXCERPTS;

/// Lines of unchanged context on each side of a change, as `git diff` writes them.
pub(crate) const CONTEXT: usize = 3;

/// The revision the default series targets (`docs/reference/lustre-wire.md`).
pub const BASE_REVISION: &str = "c881f8ebcbd130cf6c2b9e8862582fc5d2da5289";

/// One line of a file being patched.
#[derive(Debug, Clone)]
struct Line {
    /// Its line number in the base revision; `None` for a line an earlier patch added.
    orig: Option<usize>,
    /// Its text; `None` for a base line the excerpt does not keep.
    text: Option<String>,
}

/// A file as the series sees it: the base revision with the earlier patches applied.
#[derive(Debug)]
pub(crate) struct SourceFile {
    pub(crate) path: String,
    lines: RefCell<Vec<Line>>,
    /// Whether the end of the file is known (always for a tree; for an excerpt, when it kept it).
    eof_known: bool,
    /// Base line numbers read, and whether the end of the file was.
    touched: RefCell<(BTreeSet<usize>, bool)>,
    /// Base lines an edit replaced, by base line number: the excerpt still keeps them.
    replaced: RefCell<BTreeMap<usize, String>>,
}

/// A change to one file: `delete` lines from `at` replaced by `insert`.
#[derive(Debug, Clone)]
pub(crate) struct Edit {
    pub(crate) at: usize,
    pub(crate) delete: usize,
    pub(crate) insert: Vec<String>,
}

impl Edit {
    /// New lines before line index `at`.
    pub(crate) fn insert_before(at: usize, lines: Vec<String>) -> Edit {
        Edit {
            at,
            delete: 0,
            insert: lines,
        }
    }

    /// New lines after line index `at`.
    pub(crate) fn insert_after(at: usize, lines: Vec<String>) -> Edit {
        Edit::insert_before(at + 1, lines)
    }
}

impl SourceFile {
    fn full(path: &str, text: &str) -> SourceFile {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| Line {
                orig: Some(i + 1),
                text: Some(l.to_string()),
            })
            .collect();
        SourceFile {
            path: path.to_string(),
            lines: RefCell::new(lines),
            eof_known: true,
            touched: RefCell::new((BTreeSet::new(), false)),
            replaced: RefCell::new(BTreeMap::new()),
        }
    }

    /// An excerpt: `@@ N` starts a run of lines at base line N, each line follows with one
    /// leading space, `@@ eof` says the run before it ends the file.
    fn excerpt(path: &str, text: &str) -> Result<SourceFile, PatchError> {
        let bad = |at: usize, line: &str, why: &str| PatchError::Excerpt {
            path: path.to_string(),
            why: format!("line {} of the excerpt, {line:?}: {why}", at + 1),
        };
        let mut lines: Vec<Line> = Vec::new();
        let mut next: Option<usize> = None;
        let mut eof = false;
        for (at, l) in text.lines().enumerate() {
            if l.starts_with('#') && next.is_none() {
                continue;
            }
            if l == "@@ eof" {
                eof = true;
                next = None;
            } else if let Some(n) = l.strip_prefix("@@ ") {
                let n: usize = n
                    .parse()
                    .map_err(|_| bad(at, l, "a bad @@ line (`@@ N` or `@@ eof`)"))?;
                if n == 0 || n <= lines.len() {
                    return Err(bad(at, l, "runs out of order"));
                }
                while lines.len() + 1 < n {
                    lines.push(Line {
                        orig: Some(lines.len() + 1),
                        text: None,
                    });
                }
                next = Some(n);
            } else if let (Some(n), Some(t)) = (next, l.strip_prefix(' ')) {
                lines.push(Line {
                    orig: Some(n),
                    text: Some(t.to_string()),
                });
                next = Some(n + 1);
            } else if let (Some(n), true) = (next, l.is_empty()) {
                // An empty line of the file, its leading space trimmed by an editor.
                lines.push(Line {
                    orig: Some(n),
                    text: Some(String::new()),
                });
                next = Some(n + 1);
            } else {
                return Err(bad(at, l, "a line outside any run"));
            }
        }
        Ok(SourceFile {
            path: path.to_string(),
            lines: RefCell::new(lines),
            eof_known: eof,
            touched: RefCell::new((BTreeSet::new(), false)),
            replaced: RefCell::new(BTreeMap::new()),
        })
    }

    fn missing(&self, idx: usize) -> PatchError {
        // The base tree's line number: earlier patches may have moved the line since.
        let at = match self.lines.borrow().get(idx) {
            Some(Line { orig: Some(n), .. }) => format!("line {n}"),
            _ => format!("the line after base line {}", self.base_line_before(idx)),
        };
        PatchError::Excerpt {
            path: self.path.clone(),
            why: format!("{at} is not kept; regenerate the excerpts from a tree"),
        }
    }

    /// The base tree's number of the last original line at or before `idx` (0 for none).
    fn base_line_before(&self, idx: usize) -> usize {
        let lines = self.lines.borrow();
        lines[..idx.min(lines.len())]
            .iter()
            .rev()
            .find_map(|l| l.orig)
            .unwrap_or(0)
    }

    fn mark(&self, idx: usize) {
        if let Some(Line { orig: Some(n), .. }) = self.lines.borrow().get(idx) {
            self.touched.borrow_mut().0.insert(*n);
        }
    }

    /// The text of line index `idx` (0-based).
    pub(crate) fn line(&self, idx: usize) -> Result<String, PatchError> {
        let text = self
            .lines
            .borrow()
            .get(idx)
            .and_then(|l| l.text.clone())
            .ok_or_else(|| self.missing(idx))?;
        self.mark(idx);
        Ok(text)
    }

    /// Whether `idx` is past the last line (`None`: unknown, the excerpt stops before).
    fn is_end(&self, idx: usize) -> Option<bool> {
        let n = self.lines.borrow().len();
        if idx < n {
            Some(false)
        } else if self.eof_known {
            self.touched.borrow_mut().1 = true;
            Some(true)
        } else {
            None
        }
    }

    fn known(&self) -> Vec<(usize, String)> {
        self.lines
            .borrow()
            .iter()
            .enumerate()
            .filter_map(|(i, l)| l.text.clone().map(|t| (i, t)))
            .collect()
    }

    /// The one line that `pred` accepts (an error when none or several do).
    pub(crate) fn find(
        &self,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<usize, PatchError> {
        let hits: Vec<usize> = self
            .known()
            .into_iter()
            .filter(|(_, t)| pred(t))
            .map(|(i, _)| i)
            .collect();
        match hits.as_slice() {
            [i] => {
                self.mark(*i);
                Ok(*i)
            }
            [] => Err(self.not_found(what)),
            _ => {
                let lines = self.lines.borrow();
                let at: Vec<String> = hits
                    .iter()
                    .filter_map(|&i| lines.get(i)?.orig.map(|n| n.to_string()))
                    .collect();
                Err(PatchError::Anchor {
                    path: self.path.clone(),
                    what: what.to_string(),
                    why: format!("{} lines match (base lines {})", hits.len(), at.join(", ")),
                })
            }
        }
    }

    /// The line equal to `text`.
    pub(crate) fn find_line(&self, text: &str) -> Result<usize, PatchError> {
        self.find(text, |l| l == text)
    }

    /// Whether any known line satisfies `pred` (nothing is recorded).
    pub(crate) fn any(&self, pred: impl Fn(&str) -> bool) -> bool {
        self.known().iter().any(|(_, t)| pred(t))
    }

    /// The last line `pred` accepts.
    pub(crate) fn find_last(
        &self,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<usize, PatchError> {
        let hit = self
            .known()
            .into_iter()
            .rev()
            .find(|(_, t)| pred(t))
            .map(|(i, _)| i)
            .ok_or_else(|| self.not_found(what))?;
        self.mark(hit);
        Ok(hit)
    }

    /// The first line after `start` that `pred` accepts, reading every line on the way.
    pub(crate) fn find_after(
        &self,
        start: usize,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<usize, PatchError> {
        let mut i = start + 1;
        loop {
            match self.is_end(i) {
                Some(false) => {}
                Some(true) => return Err(self.not_found(what)),
                None => return Err(self.missing(i)),
            }
            if pred(&self.line(i)?) {
                return Ok(i);
            }
            i += 1;
        }
    }

    /// The last line before `end` that `pred` accepts, reading every line on the way.
    pub(crate) fn find_before(
        &self,
        end: usize,
        what: &str,
        pred: impl Fn(&str) -> bool,
    ) -> Result<usize, PatchError> {
        for i in (0..end).rev() {
            if pred(&self.line(i)?) {
                return Ok(i);
            }
        }
        Err(self.not_found(what))
    }

    /// Lines `from..to` (indices), read.
    pub(crate) fn lines(&self, from: usize, to: usize) -> Result<Vec<String>, PatchError> {
        (from..to).map(|i| self.line(i)).collect()
    }

    fn not_found(&self, what: &str) -> PatchError {
        PatchError::Anchor {
            path: self.path.clone(),
            what: what.to_string(),
            why: "no line matches".to_string(),
        }
    }

    /// The `diff --git` section for `edits` (sorted, not overlapping), then applies them.
    pub(crate) fn diff_and_apply(&self, edits: &mut [Edit]) -> Result<FileDiff, PatchError> {
        edits.sort_by_key(|e| e.at);
        for w in edits.windows(2) {
            if w[0].at + w[0].delete > w[1].at {
                return Err(PatchError::Anchor {
                    path: self.path.clone(),
                    what: "two changes".into(),
                    why: format!(
                        "they overlap: one at line {} replaces {} lines, the next starts at line {}",
                        w[0].at + 1,
                        w[0].delete,
                        w[1].at + 1
                    ),
                });
            }
        }
        let mut body = String::new();
        let (mut added, mut removed) = (0, 0);
        let mut delta: isize = 0;
        let mut i = 0;
        while i < edits.len() {
            // Changes whose contexts touch share a hunk, as git writes them.
            let mut j = i;
            while j + 1 < edits.len()
                && edits[j + 1].at <= edits[j].at + edits[j].delete + 2 * CONTEXT
            {
                j += 1;
            }
            let first = &edits[i];
            let last = &edits[j];
            let start = first.at.saturating_sub(CONTEXT);
            let mut end = last.at + last.delete;
            let mut k = 0;
            while k < CONTEXT {
                match self.is_end(end) {
                    Some(false) => end += 1,
                    Some(true) => break,
                    None => return Err(self.missing(end)),
                }
                k += 1;
            }
            let mut hunk = Vec::new();
            let mut pos = start;
            for e in &edits[i..=j] {
                for l in self.lines(pos, e.at)? {
                    hunk.push(format!(" {l}"));
                }
                for l in self.lines(e.at, e.at + e.delete)? {
                    hunk.push(format!("-{l}"));
                }
                for l in &e.insert {
                    hunk.push(format!("+{l}"));
                }
                pos = e.at + e.delete;
            }
            for l in self.lines(pos, end)? {
                hunk.push(format!(" {l}"));
            }
            let old_count = end - start;
            let ins: usize = edits[i..=j].iter().map(|e| e.insert.len()).sum();
            let del: usize = edits[i..=j].iter().map(|e| e.delete).sum();
            let new_count = old_count + ins - del;
            let new_start = (start as isize + 1 + delta) as usize;
            body.push_str(&format!(
                "@@ -{} +{} @@\n",
                range(start + 1, old_count),
                range(new_start, new_count)
            ));
            for l in hunk {
                body.push_str(&l);
                body.push('\n');
            }
            delta += ins as isize - del as isize;
            added += ins;
            removed += del;
            i = j + 1;
        }
        let mut lines = self.lines.borrow_mut();
        let mut replaced = self.replaced.borrow_mut();
        for e in edits.iter() {
            for l in lines.get(e.at..e.at + e.delete).unwrap_or_default() {
                if let (Some(n), Some(t)) = (l.orig, &l.text) {
                    replaced.insert(n, t.clone());
                }
            }
        }
        for e in edits.iter().rev() {
            let new = e.insert.iter().map(|t| Line {
                orig: None,
                text: Some(t.clone()),
            });
            lines.splice(e.at..e.at + e.delete, new);
        }
        Ok(FileDiff {
            path: self.path.clone(),
            text: format!(
                "diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n{body}",
                p = self.path
            ),
            added,
            removed,
        })
    }

    /// The excerpt of what was read: runs of read lines with `margin` lines around each.
    fn excerpt_text(&self, margin: usize) -> String {
        let (touched, eof) = self.touched.borrow().clone();
        let base: BTreeMap<usize, String> = self
            .lines
            .borrow()
            .iter()
            .filter_map(|l| Some((l.orig?, l.text.clone()?)))
            .chain(self.replaced.borrow().clone())
            .collect();
        let last = base.keys().next_back().copied().unwrap_or(0);
        let mut keep = BTreeSet::new();
        for &n in &touched {
            for k in n.saturating_sub(margin).max(1)..=(n + margin).min(last) {
                keep.insert(k);
            }
        }
        if eof {
            for k in last.saturating_sub(margin).max(1)..=last {
                keep.insert(k);
            }
        }
        let mut out = format!(
            "# {} at lustre-release {BASE_REVISION}: the lines the series reads.\n\
             # Written by the generator from a tree; regenerate, do not edit.\n",
            self.path
        );
        let mut prev = 0;
        for &k in &keep {
            if k != prev + 1 || prev == 0 {
                out.push_str(&format!("@@ {k}\n"));
            }
            if let Some(t) = base.get(&k) {
                out.push(' ');
                out.push_str(t);
                out.push('\n');
            }
            prev = k;
        }
        if eof && prev == last {
            out.push_str("@@ eof\n");
        }
        out
    }
}

/// `start,count` of a hunk header, as git writes it.
fn range(start: usize, count: usize) -> String {
    match count {
        1 => format!("{start}"),
        0 => format!("{},0", start - 1),
        _ => format!("{start},{count}"),
    }
}

/// One file's part of a patch.
#[derive(Debug, Clone)]
pub(crate) struct FileDiff {
    pub(crate) path: String,
    pub(crate) text: String,
    pub(crate) added: usize,
    pub(crate) removed: usize,
}

impl FileDiff {
    /// A new file.
    pub(crate) fn new_file(path: &str, lines: &[String]) -> FileDiff {
        let mut text = format!(
            "diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n@@ -0,0 +{} @@\n",
            range(1, lines.len())
        );
        for l in lines {
            text.push('+');
            text.push_str(l);
            text.push('\n');
        }
        FileDiff {
            path: path.to_string(),
            text,
            added: lines.len(),
            removed: 0,
        }
    }
}

/// Where the files come from.
#[derive(Debug)]
pub(crate) struct Source {
    tree: Option<PathBuf>,
    open: RefCell<BTreeMap<String, Rc<SourceFile>>>,
}

impl Source {
    pub(crate) fn new(tree: Option<&Path>) -> Source {
        Source {
            tree: tree.map(Path::to_path_buf),
            open: RefCell::new(BTreeMap::new()),
        }
    }

    /// The file at `path`, as the earlier patches of the series left it.
    pub(crate) fn file(&self, path: &str) -> Result<Rc<SourceFile>, PatchError> {
        if let Some(f) = self.open.borrow().get(path) {
            return Ok(Rc::clone(f));
        }
        let f = match &self.tree {
            Some(dir) => {
                let p = dir.join(path);
                let text = std::fs::read_to_string(&p).map_err(|e| PatchError::Read {
                    path: p.clone(),
                    source: e,
                })?;
                SourceFile::full(path, &text)
            }
            None => {
                let text = EXCERPTS
                    .iter()
                    .find(|(p, _)| *p == path)
                    .map(|(_, t)| *t)
                    .ok_or_else(|| PatchError::Excerpt {
                        path: path.to_string(),
                        why: "no excerpt is kept for it".into(),
                    })?;
                SourceFile::excerpt(path, text)?
            }
        };
        let f = Rc::new(f);
        self.open
            .borrow_mut()
            .insert(path.to_string(), Rc::clone(&f));
        Ok(f)
    }

    /// The excerpts of every file read: (path relative to the excerpt directory, text).
    pub(crate) fn excerpts(&self, margin: usize) -> Vec<(String, String)> {
        self.open
            .borrow()
            .values()
            .map(|f| (format!("{}.excerpt", f.path), f.excerpt_text(margin)))
            .collect()
    }
}
