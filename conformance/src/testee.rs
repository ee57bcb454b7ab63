//! A testee that answers with the crate itself (`dne-intent conform-testee`): the reference
//! the runner is checked against, and, with [`Faults`], the faulty testees its tests need.

use std::io::{self, Read, Write};

use super::protocol::{Answer, FrameError, Question, Verdict, read_frame, write_frame};
use super::{Judgement, Kind, judge, to_hex};

/// The crate's answer to a question.
pub fn answer(q: &Question) -> Answer {
    let kind = match (q.kind.as_str(), q.xattr_name.as_deref()) {
        ("request", _) => Some(Kind::Request),
        ("reply", _) => Some(Kind::Reply),
        ("xattr", Some(n)) => Kind::of_xattr_name(n),
        _ => None,
    };
    let Some(kind) = kind else {
        return Answer {
            id: q.id,
            verdict: Verdict::Unsupported,
            rule: None,
            canonical_hex: None,
        };
    };
    match judge(kind, &q.bytes, q.request.as_deref()) {
        Judgement::Accepted { canonical, .. } => Answer {
            id: q.id,
            verdict: Verdict::Valid,
            rule: None,
            canonical_hex: Some(to_hex(&canonical)),
        },
        Judgement::Rejected(e) => Answer {
            id: q.id,
            verdict: Verdict::Invalid,
            rule: Some(e.rule().as_str().to_owned()),
            canonical_hex: None,
        },
    }
}

/// Faults a test testee commits on purpose, by case id.
#[derive(Debug, Clone, Default)]
pub struct Faults {
    /// Cases answered wrongly: a corrupted canonical form for an accepted input, `valid` for
    /// a rejected one.
    pub lie: Vec<u64>,
    /// Exit without answering at this case.
    pub die: Option<u64>,
    /// Never answer this case.
    pub hang: Option<u64>,
    /// Answer this case with bytes that are not JSON.
    pub garbage: Option<u64>,
    /// Answer this case with another id.
    pub wrong_id: Option<u64>,
    /// Print a line of text to stdout before answering this case (as a stray debug print
    /// would).
    pub print: Option<u64>,
    /// Name the last of the rules an invalid input is known to break instead of the crate's
    /// first (as a testee that checks in another order would).
    pub last_rule: bool,
}

/// The last of the rules the kit lists for an invalid input ([`super::broken_rules`]).
fn last_rule(q: &Question) -> Option<String> {
    let kind = match (q.kind.as_str(), q.xattr_name.as_deref()) {
        ("request", _) => Kind::Request,
        ("reply", _) => Kind::Reply,
        (_, n) => Kind::of_xattr_name(n?)?,
    };
    let expect = judge(kind, &q.bytes, q.request.as_deref()).expect();
    let rules = super::broken_rules(kind, &q.bytes, q.request.as_deref(), expect);
    rules.last().map(|r| r.as_str().to_owned())
}

/// A wrong answer: an accepted input gets a corrupted canonical form (wrong for valid and
/// acceptable cases alike), a rejected one is called valid.
fn lie(a: Answer) -> Answer {
    match a.verdict {
        Verdict::Valid => Answer {
            canonical_hex: a.canonical_hex.map(|h| h + "00"),
            ..a
        },
        _ => Answer {
            verdict: Verdict::Valid,
            rule: None,
            canonical_hex: Some(String::new()),
            ..a
        },
    }
}

/// Serves the protocol until `input` ends: reads questions, writes answers. A frame that does
/// not parse is answered `unsupported` with id 0 (the runner reports it).
pub fn serve(input: &mut impl Read, output: &mut impl Write, faults: &Faults) -> io::Result<()> {
    loop {
        let frame = match read_frame(input) {
            Ok(f) => f,
            Err(FrameError::Eof) => return Ok(()),
            Err(FrameError::TooLong(n)) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("a frame of {n} bytes"),
                ));
            }
            Err(FrameError::Io(e)) => return Err(e),
        };
        let a = match Question::parse(&frame) {
            Ok(q) => {
                let id = Some(q.id);
                if id == faults.die {
                    std::process::exit(3);
                }
                if id == faults.hang {
                    loop {
                        std::thread::sleep(std::time::Duration::from_secs(3600));
                    }
                }
                if id == faults.print {
                    output.write_all(b"debug: case received\n")?;
                }
                if id == faults.garbage {
                    write_frame(output, b"this is not json")?;
                    continue;
                }
                let mut a = answer(&q);
                if faults.last_rule {
                    a.rule = last_rule(&q).or(a.rule);
                }
                if faults.lie.contains(&q.id) {
                    a = lie(a);
                }
                if id == faults.wrong_id {
                    a.id += 1000;
                }
                a
            }
            Err(_) => Answer {
                id: 0,
                verdict: Verdict::Unsupported,
                rule: None,
                canonical_hex: None,
            },
        };
        write_frame(output, &a.to_json())?;
    }
}
