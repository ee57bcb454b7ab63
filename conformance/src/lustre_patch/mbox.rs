//! A draft written as `git format-patch` writes a patch: mbox headers with the author and date
//! given (`--author`, or git's `GIT_AUTHOR_IDENT`), or fixed ones when none is (so that the
//! pinned series is the same on every run), the commit message, the diffstat and the diffs.

use super::{Draft, Patch, TICKET};

/// The author and sign-off when none is given: the pinned series' placeholder.
pub(crate) const AUTHOR: &str = "Your Name <you@example.com>";
/// The date when none is given: the pinned series does not depend on when it was made.
pub(crate) const DATE: &str = "Thu, 1 Jan 1970 00:00:00 +0000";
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

/// `Name <email>` and the RFC 2822 date of a git identity, `Name <email> SECONDS +HHMM` (what
/// `git var GIT_AUTHOR_IDENT` prints); `None` when it is not one.
pub fn parse_git_ident(ident: &str) -> Option<(String, String)> {
    let ident = ident.trim();
    let close = ident.rfind('>')?;
    let who = ident[..=close].trim();
    if !who.contains('<') {
        return None;
    }
    let mut rest = ident[close + 1..].split_whitespace();
    let secs: i64 = rest.next()?.parse().ok()?;
    let tz = rest.next()?;
    let (sign, hhmm) = match tz.as_bytes().first()? {
        b'+' => (1i64, &tz[1..]),
        b'-' => (-1i64, &tz[1..]),
        _ => return None,
    };
    if hhmm.len() != 4 || !hhmm.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i64 = hhmm[..2].parse().ok()?;
    let m: i64 = hhmm[2..].parse().ok()?;
    let local = secs.checked_add(sign * (h * 3600 + m * 60))?;
    Some((who.to_string(), rfc2822(local, tz)))
}

/// `Thu, 1 Jan 1970 00:00:00 +0000` of a local time in seconds since the epoch.
fn rfc2822(local: i64, tz: &str) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    // Days to a civil date (Howard Hinnant's algorithm, in eras of 400 years).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{}, {day} {} {year} {:02}:{:02}:{:02} {tz}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// Patch `n` of `total`, by `author` on `date`.
pub(crate) fn format(n: usize, total: usize, d: &Draft, author: &str, date: &str) -> Patch {
    let subject = format!("{TICKET} {}", d.summary);
    let mut text = format!(
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n\
         From: {author}\n\
         Date: {date}\n\
         Subject: [PATCH {n}/{total}] {subject}\n\n"
    );
    for p in &d.body {
        text.push_str(&wrap(p));
        text.push('\n');
    }
    if let Some(t) = &d.test_parameters {
        text.push_str(&format!("Test-Parameters: {t}\n"));
    }
    text.push_str(&format!("Signed-off-by: {author}\n---\n"));
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

#[cfg(test)]
mod tests {
    use super::parse_git_ident;

    #[test]
    fn a_git_ident_gives_the_author_and_the_mail_date() {
        assert_eq!(
            parse_git_ident("A U Thor <a@example.com> 1765000800 +0100"),
            Some((
                "A U Thor <a@example.com>".into(),
                "Sat, 6 Dec 2025 07:00:00 +0100".into()
            ))
        );
        assert_eq!(
            parse_git_ident("X <x@y> 0 -0230"),
            Some(("X <x@y>".into(), "Wed, 31 Dec 1969 21:30:00 -0230".into()))
        );
        assert_eq!(parse_git_ident("no mail 0 +0000"), None);
        assert_eq!(parse_git_ident("X <x@y> soon +0000"), None);
    }
}
