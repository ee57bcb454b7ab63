//! The differential harness: every input is judged by the crate (`lustre_dne_intent::
//! conformance`) and by the reference C testee (`conformance/testee/`, linked by `build.rs`),
//! and the two must give the same verdict, the same broken rule and the same canonical bytes.
//! A disagreement panics with both answers: that is the finding.
//!
//! It lives here and not in the crate's `fuzzing` module because calling C needs `unsafe`,
//! which the crate forbids.
//!
//! # Input
//! The first byte picks what the rest is (`sel % 4`):
//! - 0: a request;
//! - 1: a reply, judged without its request (only the rules that need none);
//! - 2: a request and the reply that answers it: a little-endian `u16` length `L`, `L` bytes
//!   of request (fewer when the input is shorter), then the reply;
//! - 3: an xattr payload: the next byte picks the name from `XATTR_NAMES`, the rest is the
//!   payload.
#![deny(unsafe_op_in_unsafe_fn)]

use lustre_dne_intent_conformance::{
    Judgement, XATTR_NAMES, judge_reply, judge_reply_alone, judge_request, judge_xattr,
};
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int};

/// `DP_OUT_MAX` of the testee's `dp.h`: the largest canonical form (a reply with six 64 KiB results).
const DP_OUT_MAX: usize = 1 << 19;

unsafe extern "C" {
    fn dp_judge_bytes(
        kind: c_int,
        xattr_name: *const c_char,
        input: *const u8,
        len: usize,
        req: *const u8,
        req_len: usize,
        have_req: c_int,
        out: *mut u8,
        out_max: usize,
        out_len: *mut usize,
        rule: *mut *const c_char,
    ) -> c_int;
}

/// What the C testee says about one input.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Accepted, with its canonical form.
    Valid(Vec<u8>),
    /// Rejected for breaking this rule (`None`: the testee named none).
    Invalid(Option<String>),
    /// The testee does not judge this input.
    Unsupported,
}

/// What the C testee is asked.
enum Ask<'a> {
    Request,
    Reply(Option<&'a [u8]>),
    Xattr(&'a CStr),
}

thread_local! {
    static OUT: RefCell<Vec<u8>> = RefCell::new(vec![0; DP_OUT_MAX]);
}

/// Asks the testee about `input`.
fn testee(ask: Ask<'_>, input: &[u8]) -> Verdict {
    let (kind, name, req) = match ask {
        Ask::Request => (0, None, None),
        Ask::Reply(r) => (1, None, r),
        Ask::Xattr(n) => (2, Some(n), None),
    };
    OUT.with_borrow_mut(|out| {
        let mut out_len = 0usize;
        let mut rule: *const c_char = std::ptr::null();
        // SAFETY: every pointer is valid for the length passed with it for the whole call
        // (`input`, `req` and `out` are live slices, `name` a live NUL-terminated string or
        // null, which the testee treats as no name); the testee keeps none of them, writes at
        // most `out_max` bytes into `out`, and sets `rule` to null or to a string literal of
        // its own (static storage).
        let rc = unsafe {
            dp_judge_bytes(
                kind,
                name.map_or(std::ptr::null(), CStr::as_ptr),
                input.as_ptr(),
                input.len(),
                req.map_or(std::ptr::null(), <[u8]>::as_ptr),
                req.map_or(0, <[u8]>::len),
                req.is_some() as c_int,
                out.as_mut_ptr(),
                out.len(),
                &mut out_len,
                &mut rule,
            )
        };
        let rule = (!rule.is_null())
            // SAFETY: non-null, it points to one of the testee's NUL-terminated literals.
            .then(|| {
                unsafe { CStr::from_ptr(rule) }
                    .to_string_lossy()
                    .into_owned()
            });
        match rc {
            0 => Verdict::Valid(out[..out_len.min(out.len())].to_vec()),
            1 => Verdict::Invalid(rule),
            2 => Verdict::Unsupported,
            _ => panic!("dp_judge_bytes returned {rc}: its output buffer is too small"),
        }
    })
}

/// The crate's verdict in the testee's terms.
fn crate_verdict(j: &Judgement) -> Verdict {
    match j {
        Judgement::Accepted { canonical, .. } => Verdict::Valid(canonical.clone()),
        Judgement::Rejected(e) => Verdict::Invalid(Some(e.rule().to_string())),
    }
}

fn show(v: &Verdict) -> String {
    match v {
        Verdict::Valid(c) => format!("valid ({} canonical bytes)", c.len()),
        Verdict::Invalid(r) => format!("invalid [{}]", r.as_deref().unwrap_or("no rule")),
        Verdict::Unsupported => "unsupported".into(),
    }
}

fn agree(what: &str, ours: Verdict, theirs: Verdict) {
    if ours == theirs {
        return;
    }
    let at = match (&ours, &theirs) {
        (Verdict::Valid(a), Verdict::Valid(b)) => {
            let i = a.iter().zip(b).position(|(x, y)| x != y);
            format!(
                "; canonical forms differ at byte {}",
                i.unwrap_or(a.len().min(b.len()))
            )
        }
        _ => String::new(),
    };
    panic!(
        "{what}: the crate says {}, the C testee says {}{at}",
        show(&ours),
        show(&theirs)
    );
}

/// The differential harness (see the module documentation for the input).
pub fn differential(data: &[u8]) {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    match sel % 4 {
        0 => agree(
            "request",
            crate_verdict(&judge_request(rest)),
            testee(Ask::Request, rest),
        ),
        1 => agree(
            "reply without its request",
            crate_verdict(&judge_reply_alone(rest)),
            testee(Ask::Reply(None), rest),
        ),
        2 => {
            let (len, rest) = match rest {
                [a, b, rest @ ..] => (usize::from(u16::from_le_bytes([*a, *b])), rest),
                _ => return,
            };
            let (req, rep) = rest.split_at(len.min(rest.len()));
            let ours = judge_request(req);
            if matches!(ours, Judgement::Rejected(_)) {
                // The reply of an invalid request cannot be judged; its request can.
                return agree(
                    "request of a reply",
                    crate_verdict(&ours),
                    testee(Ask::Request, req),
                );
            }
            agree(
                "reply",
                crate_verdict(&judge_reply(rep, req)),
                testee(Ask::Reply(Some(req)), rep),
            );
        }
        _ => {
            let Some((&n, payload)) = rest.split_first() else {
                return;
            };
            let name = XATTR_NAMES[usize::from(n) % XATTR_NAMES.len()];
            let ours = judge_xattr(name, payload).expect("a name of XATTR_NAMES");
            let c_name = CString::new(name).expect("no NUL in an xattr name");
            agree(
                name,
                crate_verdict(&ours),
                testee(Ask::Xattr(&c_name), payload),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The testee, called in-process, answers every committed conformance vector as the
    /// vector says (what the runner protocol checks, without the protocol), so the harness
    /// really reaches its decoder.
    #[test]
    fn the_linked_testee_answers_every_vector() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/vectors/dne_intent_vectors.json"
        );
        let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let (mut valid, mut invalid) = (0, 0);
        for g in v["testGroups"].as_array().unwrap() {
            let name = g["xattr_name"].as_str().map(|n| CString::new(n).unwrap());
            for t in g["tests"].as_array().unwrap() {
                let input = hex(t["hex"].as_str().unwrap());
                let req = t["request_hex"].as_str().map(hex);
                let got = match g["kind"].as_str().unwrap() {
                    "request" => testee(Ask::Request, &input),
                    "reply" => testee(Ask::Reply(req.as_deref()), &input),
                    _ => testee(Ask::Xattr(name.as_deref().unwrap()), &input),
                };
                let want = match t["result"].as_str().unwrap() {
                    "invalid" => {
                        invalid += 1;
                        Verdict::Invalid(Some(t["rule"].as_str().unwrap().to_string()))
                    }
                    _ => {
                        valid += 1;
                        Verdict::Valid(hex(t["canonical_hex"].as_str().unwrap()))
                    }
                };
                assert_eq!(got, want, "tcId {}: {}", t["tcId"], t["comment"]);
            }
        }
        assert!(
            valid > 100 && invalid > 100,
            "{valid} valid, {invalid} invalid"
        );
    }

    /// The harness agrees with itself on a valid request (both sides reached, same bytes)...
    #[test]
    fn agreement_is_silent() {
        let req = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../testdata/mkdir_request.bin"
        ))
        .unwrap();
        let mut input = vec![0];
        input.extend_from_slice(&req);
        differential(&input);
        assert!(matches!(testee(Ask::Request, &req), Verdict::Valid(c) if c == req));
    }

    /// ...and panics on a disagreement of rule, of verdict or of canonical bytes.
    #[test]
    #[should_panic(expected = "the crate says invalid [W2.3], the C testee says invalid [W0.1]")]
    fn a_different_rule_is_a_finding() {
        agree(
            "request",
            Verdict::Invalid(Some("W2.3".into())),
            Verdict::Invalid(Some("W0.1".into())),
        );
    }

    #[test]
    #[should_panic(expected = "canonical forms differ at byte 2")]
    fn different_canonical_bytes_are_a_finding() {
        agree(
            "reply",
            Verdict::Valid(vec![1, 2, 3]),
            Verdict::Valid(vec![1, 2, 4]),
        );
    }
}
