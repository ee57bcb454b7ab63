//! The check order of WIRE.md §5 (requests) and §7 (replies), read from WIRE.md and held against
//! the decoder: each step broken alone is reported as its rule, and each adjacent pair of steps
//! broken in one input is reported as the earlier step (its rule and its field), so the list
//! and the code cannot drift apart. The steps themselves are in `check_order_steps.rs`.

use super::check_order_steps::{reply_steps, request_steps};
use super::*;

/// The buffers of a message, as a change sees them.
pub type Bufs = Vec<Vec<u8>>;

/// One change of a valid message.
pub enum M<P> {
    /// Of its parts, before they are written.
    V(fn(&mut P)),
    /// Of its buffers, before they are framed.
    B(fn(&mut Bufs)),
    /// Of the framed bytes.
    R(fn(&mut Vec<u8>)),
    /// Of the request a reply answers.
    C(fn(&mut ReplyContext)),
}

/// One step of the order: its rule, and the changes of a valid message that break it alone.
pub struct Step<P> {
    pub rule: &'static str,
    pub what: &'static str,
    pub change: Vec<M<P>>,
    /// No input breaks this step and the one before it together (one field, two values).
    pub alone: bool,
    /// An input breaking this step and the one before it, where the two changes together do
    /// not break both.
    pub pair: Option<Vec<M<P>>>,
}

impl<P> Step<P> {
    pub fn new(rule: &'static str, what: &'static str, change: Vec<M<P>>) -> Self {
        Step {
            rule,
            what,
            change,
            alone: false,
            pair: None,
        }
    }
    pub fn alone(mut self) -> Self {
        self.alone = true;
        self
    }
    pub fn pair(mut self, change: Vec<M<P>>) -> Self {
        self.pair = Some(change);
        self
    }
}

/// A message kind the steps change.
pub trait Parts: Clone {
    fn buffers(&self) -> Bufs;
    fn frame(&self) -> (Endian, MsgHeader);
    fn decode(bytes: &[u8], ctx: &ReplyContext) -> Result<(), DecodeError>;
}

impl Parts for ReqParts {
    fn buffers(&self) -> Bufs {
        self.bufs()
    }
    fn frame(&self) -> (Endian, MsgHeader) {
        (self.order, self.header)
    }
    fn decode(bytes: &[u8], _: &ReplyContext) -> Result<(), DecodeError> {
        RequestView::parse(bytes).map(|_| ())
    }
}

impl Parts for RepParts {
    fn buffers(&self) -> Bufs {
        self.bufs()
    }
    fn frame(&self) -> (Endian, MsgHeader) {
        (self.order, self.header)
    }
    fn decode(bytes: &[u8], ctx: &ReplyContext) -> Result<(), DecodeError> {
        ReplyView::parse_for(bytes, ctx).map(|_| ())
    }
}

/// The message `base` with `changes` made, and the request context they leave.
fn build<P: Parts>(base: &P, ctx: &ReplyContext, changes: &[&M<P>]) -> (Vec<u8>, ReplyContext) {
    let (mut p, mut c) = (base.clone(), *ctx);
    for m in changes {
        match m {
            M::V(f) => f(&mut p),
            M::C(f) => f(&mut c),
            _ => {}
        }
    }
    let mut bufs = p.buffers();
    for m in changes {
        if let M::B(f) = m {
            f(&mut bufs);
        }
    }
    let (order, header) = p.frame();
    let mut mb = MsgBuilder::new(order, header);
    for b in &bufs {
        mb.push(b).expect("a message within the bounds");
    }
    let mut bytes = Vec::new();
    mb.put(&mut bytes);
    for m in changes {
        if let M::R(f) = m {
            f(&mut bytes);
        }
    }
    (bytes, c)
}

fn error<P: Parts>(base: &P, ctx: &ReplyContext, changes: &[&M<P>], what: &str) -> DecodeError {
    let (bytes, c) = build(base, ctx, changes);
    P::decode(&bytes, &c).expect_err(what)
}

/// The rule IDs of the list `kind` of WIRE.md, in order.
pub(super) fn documented(kind: &str) -> Vec<String> {
    let wire = include_str!("../../docs/spec/WIRE.md");
    let start = format!("<!-- check order: {kind} -->");
    let from = wire.find(&start).expect("the list is in WIRE.md") + start.len();
    let to = from
        + wire[from..]
            .find("<!-- end check order -->")
            .expect("its end");
    wire[from..to]
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once(". ")?;
            n.parse::<u32>().ok()?;
            Some(rest.split(':').next()?.to_owned())
        })
        .collect()
}

fn holds<P: Parts>(kind: &str, base: &P, ctx: &ReplyContext, steps: &[Step<P>]) {
    P::decode(&build(base, ctx, &[]).0, ctx).expect("the base is valid");
    let rules: Vec<&str> = steps.iter().map(|s| s.rule).collect();
    assert_eq!(
        documented(kind),
        rules,
        "WIRE.md's {kind} list and the steps"
    );
    let mut alone = Vec::new();
    for (i, s) in steps.iter().enumerate() {
        let changes: Vec<&M<P>> = s.change.iter().collect();
        let e = error(base, ctx, &changes, s.what);
        assert_eq!(
            e.rule().as_str(),
            s.rule,
            "step {} ({}) alone: {e}",
            i + 1,
            s.what
        );
        alone.push(e);
    }
    let mut pairs = 0;
    for i in 1..steps.len() {
        let (a, b) = (&steps[i - 1], &steps[i]);
        if b.alone {
            continue;
        }
        let changes: Vec<&M<P>> = match &b.pair {
            Some(p) => p.iter().collect(),
            None => a.change.iter().chain(&b.change).collect(),
        };
        let e = error(base, ctx, &changes, b.what);
        let want = &alone[i - 1];
        let seen = (e.rule(), e.at.structure, e.at.field);
        assert_eq!(
            seen,
            (want.rule(), want.at.structure, want.at.field),
            "steps {i} ({}) and {} ({}) together: {e}",
            a.what,
            i + 1,
            b.what
        );
        pairs += 1;
    }
    assert!(
        pairs * 4 > steps.len() * 3,
        "{pairs} pairs of {}",
        steps.len()
    );
}

#[test]
fn requests_are_checked_in_the_documented_order() {
    let base = ReqParts::from_value(&super::check_order_steps::rename_request(), Endian::Little);
    let ctx = mkdir_request().reply_context().expect("valid request");
    holds("request", &base, &ctx, &request_steps());
}

#[test]
fn replies_are_checked_in_the_documented_order() {
    let req: &[u8] = include_bytes!("../../testdata/mkdir_request.bin");
    let rep: &[u8] = include_bytes!("../../testdata/mkdir_reply_complete.bin");
    let ctx = RequestView::parse(req).expect("valid").reply_context();
    let value = ReplyView::parse_for(rep, &ctx).expect("valid").to_value();
    let base = RepParts::from_value(&value, Endian::Little);
    holds("reply", &base, &ctx, &reply_steps());
}

/// The situations of issue 37, where a decoder written from the earlier WIRE.md named another
/// rule than the crate: two steps far apart in the list, broken together, name the earlier.
#[test]
fn the_structure_limits_come_before_the_header_rules_and_the_name() {
    fn first<P: Parts>(
        base: &P,
        ctx: &ReplyContext,
        steps: &[Step<P>],
        whats: [&str; 2],
    ) -> String {
        let changes: Vec<&M<P>> = whats
            .iter()
            .flat_map(|w| &steps.iter().find(|s| s.what == *w).expect(w).change)
            .collect();
        error(base, ctx, &changes, "refused")
            .rule()
            .as_str()
            .to_owned()
    }
    let req = ReqParts::from_value(&super::check_order_steps::rename_request(), Endian::Little);
    let ctx = mkdir_request().reply_context().expect("valid request");
    let steps = request_steps();
    // Buffer 1's size and the ldlm_request limits, before the header's rules and the name.
    assert_eq!(
        first(&req, &ctx, &steps, ["buffer 1 short", "lm_secflvr"]),
        "W0.2"
    );
    assert_eq!(
        first(&req, &ctx, &steps, ["lock_count", "pb_version"]),
        "W0.3"
    );
    assert_eq!(first(&req, &ctx, &steps, ["33 handles", "a slash"]), "W0.3");
    assert_eq!(first(&req, &ctx, &steps, ["lock_count", "no NUL"]), "W0.3");
    // W7.3 (the dispositions alone) before W3.2 (the lock modes).
    let rep: &[u8] = include_bytes!("../../testdata/mkdir_reply_complete.bin");
    let req_bytes: &[u8] = include_bytes!("../../testdata/mkdir_request.bin");
    let ctx = RequestView::parse(req_bytes)
        .expect("valid")
        .reply_context();
    let base = RepParts::from_value(
        &ReplyView::parse_for(rep, &ctx).expect("valid").to_value(),
        Endian::Little,
    );
    let steps = reply_steps();
    assert_eq!(
        first(&base, &ctx, &steps, ["POS and NEG", "l_granted_mode"]),
        "W7.3"
    );
    assert_eq!(
        first(&base, &ctx, &steps, ["buffer 2 short", "lm_secflvr"]),
        "W0.2"
    );
}
