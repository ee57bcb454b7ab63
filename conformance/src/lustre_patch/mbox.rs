//! A draft written as `git format-patch` writes a patch: mbox headers with a fixed author and
//! date (so that the series is the same on every run), the commit message, the diffstat and
//! the diffs.

use super::{Draft, Patch, TICKET};

/// The author and sign-off the user replaces with their own.
pub(crate) const AUTHOR: &str = "Your Name <you@example.com>";
/// A fixed date: the series does not depend on when it was made.
const DATE: &str = "Thu, 1 Jan 1970 00:00:00 +0000";
/// Lustre's commit messages are wrapped at 70 columns.
const WRAP: usize = 70;

/// `text` wrapped at [`WRAP`] columns (a line starting with a tab or "- " is kept as it is).
fn wrap(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with('\t') || line.len() <= WRAP {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let indent = if line.starts_with("- ") { "  " } else { "" };
        let mut cur = String::new();
        for word in line.split(' ') {
            if !cur.is_empty() && cur.len() + 1 + word.len() > WRAP {
                out.push_str(&cur);
                out.push('\n');
                cur = indent.to_string();
            }
            if !cur.is_empty() && cur != indent {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push_str(&cur);
        out.push('\n');
    }
    out
}

/// `0001-LU-20808-idl-...patch`, as git names it from the subject.
fn file_name(n: usize, subject: &str) -> String {
    let mut s = String::new();
    for ch in subject.chars() {
        if ch.is_ascii_alphanumeric() || ch == '_' || ch == '.' {
            s.push(ch);
        } else if !s.ends_with('-') {
            s.push('-');
        }
    }
    let mut s: String = s.trim_matches('-').chars().take(52).collect();
    while s.ends_with('-') || s.ends_with('.') {
        s.pop();
    }
    format!("{n:04}-{s}.patch")
}

/// The diffstat lines, as git writes them for a short series.
fn diffstat(d: &Draft) -> String {
    let name_w = d.diffs.iter().map(|f| f.path.len()).max().unwrap_or(0);
    let max = d
        .diffs
        .iter()
        .map(|f| f.added + f.removed)
        .max()
        .unwrap_or(0);
    let count_w = max.to_string().len();
    let graph_w = 80usize.saturating_sub(name_w + count_w + 6).max(10);
    let scale = |n: usize| {
        if max <= graph_w || n == 0 {
            n
        } else {
            (n * graph_w / max).max(1)
        }
    };
    let mut out = String::new();
    for f in &d.diffs {
        out.push_str(&format!(
            " {:<name_w$} | {:>count_w$} {}{}\n",
            f.path,
            f.added + f.removed,
            "+".repeat(scale(f.added)),
            "-".repeat(scale(f.removed)),
        ));
    }
    let added: usize = d.diffs.iter().map(|f| f.added).sum();
    let removed: usize = d.diffs.iter().map(|f| f.removed).sum();
    let plural = |n: usize, one: &str, many: &str| {
        if n == 1 {
            format!("{n} {one}")
        } else {
            format!("{n} {many}")
        }
    };
    let mut summary = format!(
        " {}",
        plural(d.diffs.len(), "file changed", "files changed")
    );
    if added > 0 {
        summary.push_str(&format!(
            ", {}",
            plural(added, "insertion(+)", "insertions(+)")
        ));
    }
    if removed > 0 {
        summary.push_str(&format!(
            ", {}",
            plural(removed, "deletion(-)", "deletions(-)")
        ));
    }
    out.push_str(&summary);
    out.push('\n');
    for f in &d.diffs {
        if f.text.contains("\nnew file mode ") {
            out.push_str(&format!(" create mode 100644 {}\n", f.path));
        }
    }
    out
}

/// Patch `n` of `total`.
pub(crate) fn format(n: usize, total: usize, d: &Draft) -> Patch {
    let subject = format!("{TICKET} {}", d.summary);
    let mut text = format!(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n\
         From: {AUTHOR}\n\
         Date: {DATE}\n\
         Subject: [PATCH {n}/{total}] {subject}\n\n"
    );
    for p in &d.body {
        text.push_str(&wrap(p));
        text.push('\n');
    }
    if let Some(t) = &d.test_parameters {
        text.push_str(&format!("Test-Parameters: {t}\n"));
    }
    text.push_str(&format!("Signed-off-by: {AUTHOR}\n---\n"));
    text.push_str(&diffstat(d));
    text.push('\n');
    for f in &d.diffs {
        text.push_str(&f.text);
    }
    text.push_str("-- \n2.39.5\n\n");
    Patch {
        file_name: file_name(n, &subject),
        text,
    }
}
