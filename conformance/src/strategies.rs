//! Wire-level proptest strategies (feature `proptest`) for downstream property-based suites:
//! valid request/reply pairs, valid xattr payloads, and inputs with exactly one rule broken,
//! each with what the crate decides about it.
//!
//! The values come from the crate's `Arbitrary` generators fed by a seeded stream (the same
//! ones `dne-intent conform` draws from); proptest shrinks the seed, not the message.

use proptest::prelude::*;

use super::generate::{targeted_change, valid_input, valid_reply, valid_request, valid_xattr};
use super::{Case, Expect, Kind, Prng};
use lustre_dne_intent::intent::{PrepareReply, PrepareRequest, ReplyView, RequestView};

/// A valid request, encoded (either byte order).
pub fn request_bytes() -> impl Strategy<Value = Vec<u8>> {
    any::<u64>().prop_map(|s| valid_request(&mut Prng::new(s)).0)
}

/// A valid request and a valid reply to it, as values.
pub fn request_reply_pair() -> impl Strategy<Value = (PrepareRequest, PrepareReply)> {
    any::<u64>().prop_filter_map("the pair decodes", |s| {
        let (reply, request) = valid_reply(&mut Prng::new(s));
        let req = RequestView::parse(&request).ok()?;
        let rep = ReplyView::parse_for(&reply, &req.reply_context()).ok()?;
        Some((req.to_value(), rep.to_value()))
    })
}

/// A valid xattr payload with its name (one of [`super::XATTR_NAMES`]).
pub fn xattr_payload() -> impl Strategy<Value = (&'static str, Vec<u8>)> {
    any::<u64>().prop_map(|s| {
        let (kind, bytes) = valid_xattr(&mut Prng::new(s));
        (kind.xattr_name().unwrap_or_default(), bytes)
    })
}

/// An input of any kind with exactly one targeted change that breaks a rule: the case names
/// the rule the crate reports (`expect` is always [`Expect::Invalid`]).
pub fn one_rule_broken() -> impl Strategy<Value = Case> {
    any::<u64>().prop_filter_map("the change breaks a rule", |s| {
        let mut prng = Prng::new(s);
        let (kind, bytes, request, what) = valid_input(&mut prng);
        let (w, m) = targeted_change(&mut prng, kind, &bytes)?;
        let c = Case::judged(kind, format!("{what}, {w}"), vec!["RuleBroken"], m, request);
        matches!(c.expect, Expect::Invalid(_)).then_some(c)
    })
}

/// [`one_rule_broken`] for one kind only.
pub fn one_rule_broken_of(kind: Kind) -> impl Strategy<Value = Case> {
    one_rule_broken().prop_filter("of the kind asked for", move |c| {
        core::mem::discriminant(&c.kind) == core::mem::discriminant(&kind)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use lustre_dne_intent::Endian;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn pairs_validate_together((req, rep) in request_reply_pair()) {
            let ctx = req.reply_context().expect("a valid request");
            prop_assert!(rep.validate(Some(&ctx)).is_ok());
            let bytes = rep.to_bytes(Endian::Little).expect("encodes");
            prop_assert_eq!(ReplyView::parse_for(&bytes, &ctx).expect("decodes").to_value(), rep);
        }

        #[test]
        fn payloads_are_valid((name, bytes) in xattr_payload()) {
            let j = super::super::judge_xattr(name, &bytes).expect("a known name");
            prop_assert!(j.canonical().is_some(), "{} rejected", name);
        }

        #[test]
        fn broken_inputs_name_the_rule_the_crate_reports(c in one_rule_broken()) {
            let Expect::Invalid(rule) = c.expect else { unreachable!() };
            let j = super::super::judge(c.kind, &c.bytes, c.request.as_deref());
            prop_assert_eq!(j.expect(), Expect::Invalid(rule));
            prop_assert!(lustre_dne_intent::rules::DECODER_RULES.contains(&rule));
        }

        #[test]
        fn requests_decode(bytes in request_bytes()) {
            prop_assert!(RequestView::parse(&bytes).is_ok());
        }
    }
}
