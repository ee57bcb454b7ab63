//! The conformance runner (docs/conformance.md §2–§4): drives a testee process case by case,
//! checks its verdicts, rules and canonical bytes, survives a testee that dies, hangs or answers
//! garbage, and reports.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::io::{self, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread;
use std::time::Duration;

use super::protocol::{Answer, FrameError, Verdict, case_message, read_frame, write_frame};
use super::{Case, Expect, Kind, from_hex, generated_case, generated_cases, vectors};

/// Faults in a row after which the testee is not started again.
pub const MAX_CONSECUTIVE_FAULTS: usize = 3;
/// Default per-case timeout.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);
/// Default number of generated cases.
pub const DEFAULT_COUNT: usize = 1000;

/// What to run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Seed of the vectors and the generated cases.
    pub seed: u64,
    /// Number of generated cases after the vectors.
    pub count: usize,
    /// Per-case timeout.
    pub timeout: Duration,
    /// Ids of known failures.
    pub failure_list: BTreeSet<u64>,
    /// The testee command and its arguments.
    pub command: Vec<OsString>,
}

/// Parses a failure list: one id per line, `#` starts a comment, blank lines ignored.
pub fn parse_failure_list(text: &str) -> Result<BTreeSet<u64>, String> {
    let mut ids = BTreeSet::new();
    for (n, line) in text.lines().enumerate() {
        let item = line.split('#').next().unwrap_or("").trim();
        if item.is_empty() {
            continue;
        }
        let id = item
            .parse()
            .map_err(|_| format!("line {}: {item:?} is not a case id", n + 1))?;
        ids.insert(id);
    }
    Ok(ids)
}

/// Every case of a session: the vectors, then `count` generated ones.
pub fn session_cases(seed: u64, count: usize) -> Vec<Case> {
    let mut cases = vectors(seed);
    let next = cases.last().map_or(1, |c| c.id + 1);
    cases.extend(generated_cases(seed, count, next));
    cases
}

/// The case `id` of the session for `seed` and `count`, made alone: the vectors when `id` is
/// one of theirs, otherwise that one generated case (not the `count` before it).
pub fn session_case(seed: u64, count: usize, id: u64) -> Result<Case, String> {
    let vectors = vectors(seed);
    let next = vectors.last().map_or(1, |c| c.id + 1);
    if let Some(c) = vectors.into_iter().find(|c| c.id == id) {
        return Ok(c);
    }
    let last = next.saturating_add(count as u64).saturating_sub(1);
    if id < next || id > last {
        return Err(format!("no case {id}: this session has cases 1..={last}"));
    }
    Ok(generated_case(seed, id - next, next))
}

/// The ids of `list` that name no case of `cases`, in order. A failure list naming a case the
/// session does not have is refused: it is a typo or a list made for another seed or count,
/// and silently accepting it would hide that the case it meant is no longer excused.
pub fn unknown_ids(list: &BTreeSet<u64>, cases: &[Case]) -> Vec<u64> {
    let ids: BTreeSet<u64> = cases.iter().map(|c| c.id).collect();
    list.iter()
        .filter(|id| !ids.contains(id))
        .copied()
        .collect()
}

/// The case of `cases` with id `id`; the error names the ids there are.
pub fn find_case(cases: &[Case], id: u64) -> Result<&Case, String> {
    cases
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(|| format!("no case {id}: this session has {}", id_range(cases)))
}

/// A case as text for reproducing it by hand (`conform --dump ID`): what it is, what is
/// expected of it, and the exact question the runner sends, as one line of JSON.
pub fn dump_text(c: &Case) -> String {
    let mut s = format!("case {} {}: {}\n", c.id, c.kind.name(), c.comment);
    if let Some(n) = c.kind.xattr_name() {
        s.push_str(&format!("xattr_name: {n}\n"));
    }
    if !c.flags.is_empty() {
        s.push_str(&format!("flags: {}\n", c.flags.join(" ")));
    }
    s.push_str(&format!("expected: {}", c.expect.name()));
    if let Some(r) = c.expect.rule() {
        let how = if c.strict_rule {
            "checked"
        } else {
            "not checked: a bit flip or a cut"
        };
        s.push_str(&format!(
            " (rule {r}, {how}; any of: {})",
            rule_names(&c.rules)
        ));
    }
    s.push('\n');
    s.push_str(&format!("hex: {}\n", super::to_hex(&c.bytes)));
    if let Some(r) = &c.request {
        s.push_str(&format!("request_hex: {}\n", super::to_hex(r)));
    }
    if let Some(k) = &c.canonical {
        s.push_str(&format!("canonical_hex: {}\n", super::to_hex(k)));
    }
    s.push_str("question: ");
    s.push_str(&String::from_utf8_lossy(&case_message(c)));
    s.push('\n');
    s
}

/// A case's question as one frame (length and JSON), ready to be piped into a testee.
pub fn dump_frame(c: &Case) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    write_frame(&mut out, &case_message(c))?;
    Ok(out)
}

/// What the session's ids are, for an error that names an id outside them: `cases 1..=1395`.
pub fn id_range(cases: &[Case]) -> String {
    match (cases.first(), cases.last()) {
        (Some(a), Some(b)) => format!("cases {}..={}", a.id, b.id),
        _ => "no cases".to_owned(),
    }
}

/// What a testee wrote where a frame's 4-byte length was expected and which announced more
/// than the bound: shown as text when it is text (a stray print such as `debug: …`, which a
/// length of 1969382756 would hide), as hex otherwise.
pub fn garbage_header(n: u32) -> String {
    let bytes = n.to_le_bytes();
    let text = bytes
        .iter()
        .all(|b| b.is_ascii_graphic() || matches!(b, b' ' | b'\t' | b'\n' | b'\r'));
    if text {
        let s: String = bytes.iter().map(|&b| char::from(b)).collect();
        format!(
            "garbage: testee wrote \"{}...\" where a frame header was expected (text on its \
             stdout: a stray print?)",
            s.escape_debug()
        )
    } else {
        format!(
            "garbage: a frame header announcing {n} bytes (bytes {}), over the bound of {}",
            super::to_hex(&bytes),
            super::protocol::CONFORM_MAX_FRAME
        )
    }
}

/// How one case went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// The answer is right.
    Passed,
    /// The answer is wrong, or the testee faulted: what happened.
    Failed(String),
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The case id.
    pub id: u64,
    /// `request`, `reply` or `xattr`.
    pub kind: &'static str,
    /// The case's comment.
    pub comment: String,
    /// What was expected.
    pub expect: Expect,
    /// Pass or fail.
    pub status: Status,
    /// An invalid case answered with another rule where the rule is not checked strictly: the
    /// reference's rule and the testee's.
    pub rule_differs: Option<RuleDiff>,
    /// Listed in the failure list.
    pub listed: bool,
}

impl Outcome {
    /// A failure not in the failure list.
    pub fn unexpected_failure(&self) -> bool {
        !self.listed && self.status != Status::Passed
    }
}

/// An invalid case that passed with another rule than the reference's (a mutated input that
/// breaks several rules, where the first one found depends on the order of the checks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleDiff {
    /// The rule the reference decoder reports.
    pub reference: String,
    /// The rule the testee named.
    pub testee: String,
}

/// The whole session's results.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// One per case, in order.
    pub outcomes: Vec<Outcome>,
}

/// Judges a testee's answer to a case; `Err` says what is wrong, `Ok(Some)` that it passed with
/// another rule than the reference's where the rule is not checked strictly.
pub fn check_answer(c: &Case, a: &Answer) -> Result<Option<RuleDiff>, String> {
    let canonical_ok = |a: &Answer| -> Result<(), String> {
        let want = c.canonical.as_deref().unwrap_or_default();
        match a.canonical_hex.as_deref().and_then(from_hex) {
            Some(got) if got == want => Ok(()),
            Some(got) => Err(format!(
                "canonical bytes differ at byte {} (expected {} bytes, got {})",
                want.iter().zip(&got).take_while(|(x, y)| x == y).count(),
                want.len(),
                got.len()
            )),
            None => Err("a valid verdict without canonical_hex (or not hex)".into()),
        }
    };
    match (c.expect, a.verdict) {
        (_, Verdict::Unsupported) => Err("answered unsupported".into()),
        (Expect::Valid | Expect::Acceptable, Verdict::Valid) => canonical_ok(a).map(|()| None),
        (Expect::Acceptable, Verdict::Invalid) => Ok(None),
        (Expect::Valid, Verdict::Invalid) => Err(format!(
            "expected valid, answered invalid ({})",
            a.rule.as_deref().unwrap_or("no rule")
        )),
        (Expect::Invalid(r), Verdict::Valid) => {
            Err(format!("expected invalid ({r}), answered valid"))
        }
        (Expect::Invalid(r), Verdict::Invalid) => match a.rule.as_deref() {
            None => Ok(None),
            Some(got) if got == r.as_str() || c.rules.iter().any(|x| x.as_str() == got) => Ok(None),
            Some(got) if !c.strict_rule => Ok(Some(RuleDiff {
                reference: r.as_str().to_owned(),
                testee: got.to_owned(),
            })),
            Some(got) if c.rules.len() > 1 => Err(format!(
                "expected one of the rules {}, answered {got}",
                rule_names(&c.rules)
            )),
            Some(got) => Err(format!("expected rule {r}, answered {got}")),
        },
    }
}

fn rule_names(rules: &[lustre_dne_intent::rules::RuleId]) -> String {
    rules
        .iter()
        .map(|r| r.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A running testee: its stdin fed by a writer thread, its stdout read by a reader thread, so
/// neither a full pipe nor a silent testee can block the runner past the timeout.
struct Testee {
    child: Child,
    to_testee: Option<Sender<Vec<u8>>>,
    from_testee: Receiver<Result<Vec<u8>, String>>,
}

impl Testee {
    fn start(command: &[OsString]) -> io::Result<Testee> {
        let (prog, args) = command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no testee command"))?;
        let mut child = Command::new(prog)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let (stdin, stdout) = match (child.stdin.take(), child.stdout.take()) {
            (Some(i), Some(o)) => (i, o),
            _ => return Err(io::Error::other("the testee's pipes are missing")),
        };
        let (tx, rx_frames) = channel::<Vec<u8>>();
        thread::spawn(move || feed(stdin, rx_frames));
        let (tx_answers, from_testee) = channel();
        thread::spawn(move || {
            let mut stdout = stdout;
            loop {
                let r = match read_frame(&mut stdout) {
                    Ok(f) => Ok(f),
                    Err(FrameError::Eof) => Err("the testee died (its stdout closed)".to_owned()),
                    Err(FrameError::TooLong(n)) => Err(garbage_header(n)),
                    Err(FrameError::Io(e)) => Err(format!("the testee's stdout failed: {e}")),
                };
                let stop = r.is_err();
                if tx_answers.send(r).is_err() || stop {
                    return;
                }
            }
        });
        Ok(Testee {
            child,
            to_testee: Some(tx),
            from_testee,
        })
    }

    fn ask(&mut self, frame: Vec<u8>, timeout: Duration) -> Result<Vec<u8>, String> {
        let sent = self
            .to_testee
            .as_ref()
            .is_some_and(|t| t.send(frame).is_ok());
        if !sent {
            return Err("the testee's stdin is closed".into());
        }
        match self.from_testee.recv_timeout(timeout) {
            Ok(r) => r,
            Err(RecvTimeoutError::Timeout) => Err(format!(
                "no answer in {} ms (the testee hangs)",
                timeout.as_millis()
            )),
            Err(RecvTimeoutError::Disconnected) => Err("the testee died".into()),
        }
    }

    fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Closes stdin and gives the testee a moment to exit on its own.
    fn finish(mut self) {
        self.to_testee = None;
        for _ in 0..50 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        self.kill();
    }
}

fn feed(mut stdin: ChildStdin, frames: Receiver<Vec<u8>>) {
    for f in frames {
        if write_frame(&mut stdin, &f).is_err() {
            return;
        }
    }
}

/// Runs `cases` against the testee. `Err` only when the testee cannot be started at all.
pub fn run_cases(opts: &Options, cases: &[Case]) -> io::Result<Report> {
    let mut testee = Some(Testee::start(&opts.command)?);
    let mut faults_in_row = 0;
    let mut report = Report::default();
    for c in cases {
        let result = if faults_in_row >= MAX_CONSECUTIVE_FAULTS {
            Err("testee unusable (it faulted 3 times in a row)".to_owned())
        } else {
            ask_one(&mut testee, opts, c)
        };
        let (status, rule_differs) = match result {
            Ok(Ok(differs)) => {
                faults_in_row = 0;
                (Status::Passed, differs)
            }
            Ok(Err(wrong)) => {
                faults_in_row = 0;
                (Status::Failed(wrong), None)
            }
            Err(fault) => {
                faults_in_row += 1;
                if let Some(t) = testee.take() {
                    t.kill();
                }
                (Status::Failed(fault), None)
            }
        };
        report.outcomes.push(Outcome {
            id: c.id,
            kind: c.kind.name(),
            comment: c.comment.clone(),
            expect: c.expect,
            status,
            rule_differs,
            listed: opts.failure_list.contains(&c.id),
        });
    }
    if let Some(t) = testee {
        t.finish();
    }
    Ok(report)
}

/// One case: `Err` is a fault of the testee (it is then restarted), `Ok(Err)` a wrong answer.
fn ask_one(
    testee: &mut Option<Testee>,
    opts: &Options,
    c: &Case,
) -> Result<Result<Option<RuleDiff>, String>, String> {
    if testee.is_none() {
        *testee = Some(Testee::start(&opts.command).map_err(|e| format!("restart failed: {e}"))?);
    }
    let Some(t) = testee.as_mut() else {
        return Err("no testee".into());
    };
    let frame = t.ask(case_message(c), opts.timeout)?;
    let a = Answer::parse(&frame).map_err(|e| format!("garbage: {e}"))?;
    if a.id != c.id {
        return Err(format!("answered id {} for case {}", a.id, c.id));
    }
    Ok(check_answer(c, &a))
}

/// Runs a whole session: the vectors and the generated cases for the options' seed and count.
pub fn run(opts: &Options) -> io::Result<Report> {
    run_cases(opts, &session_cases(opts.seed, opts.count))
}

impl Report {
    /// Cases that passed.
    pub fn passed(&self) -> usize {
        self.outcomes
            .iter()
            .filter(|o| o.status == Status::Passed)
            .count()
    }

    /// Ids that failed and are not listed.
    pub fn unexpected_failures(&self) -> Vec<u64> {
        self.outcomes
            .iter()
            .filter(|o| o.unexpected_failure())
            .map(|o| o.id)
            .collect()
    }

    /// Listed ids that passed.
    pub fn unexpected_passes(&self) -> Vec<u64> {
        self.outcomes
            .iter()
            .filter(|o| o.listed && o.status == Status::Passed)
            .map(|o| o.id)
            .collect()
    }

    /// The exit status: 0 iff nothing unexpected failed.
    pub fn exit_code(&self) -> i32 {
        i32::from(!self.unexpected_failures().is_empty())
    }

    /// `conform: N cases, P passed, F failed`.
    pub fn summary(&self) -> String {
        let n = self.outcomes.len();
        let p = self.passed();
        format!("conform: {n} cases, {p} passed, {} failed", n - p)
    }

    /// Invalid cases by expected rule: (passed, total).
    pub fn per_rule(&self) -> BTreeMap<String, (usize, usize)> {
        let mut m: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for o in &self.outcomes {
            if let Expect::Invalid(r) = o.expect {
                let e = m.entry(r.as_str().to_owned()).or_default();
                e.1 += 1;
                e.0 += usize::from(o.status == Status::Passed);
            }
        }
        m
    }

    /// Cases by message kind (`request`, `reply`, `xattr`, in that order, the kinds the session
    /// has): (passed, total).
    pub fn per_kind(&self) -> Vec<(&'static str, (usize, usize))> {
        [Kind::Request, Kind::Reply, Kind::Xattr("")]
            .map(Kind::name)
            .into_iter()
            .filter_map(|k| {
                let (passed, total) = self
                    .outcomes
                    .iter()
                    .filter(|o| o.kind == k)
                    .fold((0, 0), |(p, t), o| {
                        (p + usize::from(o.status == Status::Passed), t + 1)
                    });
                (total > 0).then_some((k, (passed, total)))
            })
            .collect()
    }

    /// The full text report: failures, unexpected passes, counts per rule, the summary.
    pub fn write_text(&self, out: &mut impl Write) -> io::Result<()> {
        for o in &self.outcomes {
            if let Status::Failed(what) = &o.status {
                let tag = if o.listed { "XFAIL" } else { "FAIL" };
                writeln!(out, "{tag} {} {}: {what} ({})", o.id, o.kind, o.comment)?;
            }
        }
        for id in self.unexpected_passes() {
            writeln!(out, "UNEXPECTED PASS {id} (listed in the failure list)")?;
        }
        let mut differs = 0;
        for o in &self.outcomes {
            if let Some(d) = &o.rule_differs {
                differs += 1;
                writeln!(
                    out,
                    "RULE DIFFERS {} {}: reference {}, testee {} ({})",
                    o.id, o.kind, d.reference, d.testee, o.comment
                )?;
            }
        }
        if differs > 0 {
            writeln!(
                out,
                "rule differs (not a failure): {differs} mutation cases, listed above"
            )?;
        }
        let mut per_rule: Vec<(String, (usize, usize))> = self.per_rule().into_iter().collect();
        // In WIRE.md's order: W5.2 before W5.10.
        per_rule.sort_by_key(|(r, _)| {
            let (s, n) = r[1..].split_once('.').unwrap_or(("0", "0"));
            (s.parse::<u32>().unwrap_or(0), n.parse::<u32>().unwrap_or(0))
        });
        let rules: Vec<String> = per_rule
            .into_iter()
            .map(|(r, (p, t))| format!("{r} {p}/{t}"))
            .collect();
        writeln!(out, "per rule: {}", rules.join(", "))?;
        let kinds: Vec<String> = self
            .per_kind()
            .into_iter()
            .map(|(k, (p, t))| format!("{k} {p}/{t}"))
            .collect();
        writeln!(out, "per kind: {}", kinds.join(", "))?;
        writeln!(out, "{}", self.summary())
    }

    /// JUnit XML of the session.
    pub fn junit(&self) -> String {
        let failures = self
            .outcomes
            .iter()
            .filter(|o| o.unexpected_failure())
            .count();
        let skipped = self
            .outcomes
            .iter()
            .filter(|o| o.listed && o.status != Status::Passed)
            .count();
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        s.push_str(&format!(
            "<testsuite name=\"dne-intent-conform\" tests=\"{}\" failures=\"{failures}\" skipped=\"{skipped}\">\n",
            self.outcomes.len()
        ));
        for o in &self.outcomes {
            s.push_str(&format!(
                "  <testcase name=\"{}\" classname=\"{}\"",
                o.id, o.kind
            ));
            match (&o.status, &o.rule_differs) {
                (Status::Passed, None) => s.push_str("/>\n"),
                (Status::Passed, Some(d)) => s.push_str(&format!(
                    ">\n    <system-out>rule differs (not a failure): reference {}, testee {}</system-out>\n  </testcase>\n",
                    xml_escape(&d.reference),
                    xml_escape(&d.testee)
                )),
                (Status::Failed(what), _) => {
                    let el = if o.listed { "skipped" } else { "failure" };
                    s.push_str(&format!(
                        ">\n    <{el} message=\"{}\"/>\n  </testcase>\n",
                        xml_escape(&format!("{what} ({})", o.comment))
                    ));
                }
            }
        }
        s.push_str("</testsuite>\n");
        s
    }
}

fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            c if (c as u32) < 0x20 && c != '\t' && c != '\n' => o.push(' '),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Kind, protocol::Verdict};

    fn answer(verdict: Verdict, rule: Option<&str>, canonical: Option<&str>) -> Answer {
        Answer {
            id: 1,
            verdict,
            rule: rule.map(str::to_owned),
            canonical_hex: canonical.map(str::to_owned),
        }
    }

    fn case(expect: Expect, strict: bool) -> Case {
        Case {
            id: 1,
            kind: Kind::Request,
            comment: String::new(),
            flags: vec![],
            bytes: vec![0xab],
            request: None,
            canonical: (!matches!(expect, Expect::Invalid(_))).then(|| vec![0xab]),
            rules: expect.rule().into_iter().collect(),
            expect,
            strict_rule: strict,
        }
    }

    #[test]
    fn the_verdict_table_of_the_protocol() {
        let w74 = lustre_dne_intent::ErrorKind::LockNotAsRequested {
            got: 1,
            expected: 2,
        }
        .rule();
        let inv = |strict| case(Expect::Invalid(w74), strict);
        let v = case(Expect::Valid, true);
        let acc = case(Expect::Acceptable, true);
        use Verdict::*;
        assert_eq!(check_answer(&v, &answer(Valid, None, Some("AB"))), Ok(None));
        assert!(check_answer(&v, &answer(Valid, None, Some("ab00"))).is_err());
        assert!(check_answer(&v, &answer(Valid, None, None)).is_err());
        assert!(check_answer(&v, &answer(Invalid, Some("W0.1"), None)).is_err());
        assert_eq!(check_answer(&acc, &answer(Invalid, None, None)), Ok(None));
        assert_eq!(
            check_answer(&acc, &answer(Valid, None, Some("ab"))),
            Ok(None)
        );
        assert!(check_answer(&acc, &answer(Valid, None, Some("00"))).is_err());
        assert_eq!(
            check_answer(&inv(true), &answer(Invalid, Some("W7.4"), None)),
            Ok(None)
        );
        assert_eq!(
            check_answer(&inv(true), &answer(Invalid, None, None)),
            Ok(None)
        );
        assert!(check_answer(&inv(true), &answer(Invalid, Some("W7.3"), None)).is_err());
        assert_eq!(
            check_answer(&inv(false), &answer(Invalid, Some("W7.3"), None)),
            Ok(Some(RuleDiff {
                reference: "W7.4".into(),
                testee: "W7.3".into()
            }))
        );
        assert!(check_answer(&inv(true), &answer(Valid, None, Some("ab"))).is_err());
        // A case that breaks several rules: any of them passes, another fails and the
        // failure lists them.
        let w76 = lustre_dne_intent::ErrorKind::LookupPosWithoutDone.rule();
        let mut several = inv(true);
        several.rules = vec![w74, w76];
        for r in ["W7.4", "W7.6"] {
            assert_eq!(
                check_answer(&several, &answer(Invalid, Some(r), None)),
                Ok(None),
                "{r}"
            );
        }
        assert_eq!(
            check_answer(&several, &answer(Invalid, Some("W7.3"), None)),
            Err("expected one of the rules W7.4 W7.6, answered W7.3".into())
        );
        for c in [v, acc, inv(true)] {
            assert!(check_answer(&c, &answer(Unsupported, None, None)).is_err());
        }
    }

    #[test]
    fn a_garbage_header_is_shown_as_text_when_it_is_text() {
        let debu = u32::from_le_bytes(*b"debu");
        assert_eq!(debu, 1_969_382_756);
        assert_eq!(
            garbage_header(debu),
            "garbage: testee wrote \"debu...\" where a frame header was expected (text on its \
             stdout: a stray print?)"
        );
        assert_eq!(
            garbage_header(u32::from_le_bytes(*b"ok\n\t")),
            "garbage: testee wrote \"ok\\n\\t...\" where a frame header was expected (text on \
             its stdout: a stray print?)"
        );
        assert_eq!(
            garbage_header(0xff00_0001),
            "garbage: a frame header announcing 4278190081 bytes (bytes 010000ff), over the bound \
             of 4194304"
        );
    }

    #[test]
    fn failure_lists_take_ids_and_comments() {
        let ids = parse_failure_list("# known\n3\n 150 # why\n\n").unwrap();
        assert_eq!(ids.into_iter().collect::<Vec<_>>(), [3, 150]);
        assert!(
            parse_failure_list("3\nthree\n")
                .unwrap_err()
                .contains("line 2")
        );
    }

    #[test]
    fn junit_escapes_and_counts() {
        let r = Report {
            outcomes: vec![Outcome {
                id: 4,
                kind: "reply",
                comment: "a <b> & \"c\"".into(),
                expect: Expect::Valid,
                status: Status::Failed("x".into()),
                rule_differs: None,
                listed: false,
            }],
        };
        let x = r.junit();
        assert!(
            x.contains("tests=\"1\" failures=\"1\" skipped=\"0\""),
            "{x}"
        );
        assert!(
            x.contains("message=\"x (a &lt;b&gt; &amp; &quot;c&quot;)\""),
            "{x}"
        );
        assert_eq!(r.summary(), "conform: 1 cases, 0 passed, 1 failed");
        assert_eq!(r.exit_code(), 1);
    }

    #[test]
    fn a_rule_that_differs_is_named_with_both_answers() {
        let o = |id, kind, differs: Option<(&str, &str)>| Outcome {
            id,
            kind,
            comment: format!("case {id}"),
            expect: Expect::Valid,
            status: Status::Passed,
            rule_differs: differs.map(|(r, t)| RuleDiff {
                reference: r.into(),
                testee: t.into(),
            }),
            listed: false,
        };
        let r = Report {
            outcomes: vec![
                o(7, "xattr", None),
                o(2345, "reply", Some(("W0.3", "W0.6"))),
                o(9, "request", None),
            ],
        };
        let mut text = Vec::new();
        r.write_text(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("RULE DIFFERS 2345 reply: reference W0.3, testee W0.6 (case 2345)\n"),
            "{text}"
        );
        assert!(
            text.contains("rule differs (not a failure): 1 mutation cases"),
            "{text}"
        );
        assert!(
            text.contains("per kind: request 1/1, reply 1/1, xattr 1/1\n"),
            "{text}"
        );
        let x = r.junit();
        assert!(
            x.contains(
                "<testcase name=\"2345\" classname=\"reply\">\n    <system-out>rule differs \
                 (not a failure): reference W0.3, testee W0.6</system-out>"
            ),
            "{x}"
        );
        assert!(
            x.contains("<testcase name=\"7\" classname=\"xattr\"/>"),
            "{x}"
        );
    }

    #[test]
    fn one_case_is_made_alone_and_equals_the_session_s() {
        let all = session_cases(3, 40);
        // The vectors are the slow part of a session in a debug build: one generated id.
        let id = all.len() as u64 - 20;
        let one = session_case(3, 40, id).unwrap();
        let want = &all[(id - 1) as usize];
        assert_eq!(
            (one.id, &one.bytes, &one.comment),
            (want.id, &want.bytes, &want.comment)
        );
        let past = all.len() as u64 + 1;
        assert_eq!(
            session_case(3, 40, past).unwrap_err(),
            format!("no case {past}: this session has cases 1..={}", past - 1)
        );
    }
}
