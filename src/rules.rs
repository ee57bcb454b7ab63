//! Rule IDs: the stable names of the rules of WIRE.md (its "Rule IDs" paragraph). The rule each
//! error reports is [`ErrorKind::rule`](crate::ErrorKind::rule).
//!
//! An ID is `W<section>.<n>` and never changes meaning; the conformance vectors and testees name
//! rules by it. The general rules (`W0.*`: bounds, fixed values, required and forbidden bits)
//! cover many fields, so for them the error's [`At`](crate::At) says which field broke it.

use core::fmt;

/// The ID of a rule of WIRE.md, e.g. `W7.4`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RuleId(&'static str);

impl RuleId {
    pub(crate) const fn new(id: &'static str) -> Self {
        RuleId(id)
    }

    /// The ID as written in WIRE.md, e.g. `"W7.4"`.
    pub const fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for RuleId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

impl PartialEq<str> for RuleId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for RuleId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

macro_rules! rule_ids {
    ($($id:literal),* $(,)?) => {
        &[$(RuleId::new($id)),*]
    };
}

/// Every rule a decoder enforces, by section of WIRE.md and in number order within one (W5.15
/// and W9.19 are stated earlier than their numbers): each is reported by at least one
/// [`ErrorKind`](crate::ErrorKind) (the crate's tests hold this list, the spec and the errors
/// together).
pub const DECODER_RULES: &[RuleId] = rule_ids![
    "W0.1", "W0.2", "W0.3", "W0.4", "W0.5", "W0.6", //
    "W1.1", "W1.2", //
    "W2.1", "W2.2", "W2.3", //
    "W3.1", "W3.2", //
    "W5.1", "W5.2", "W5.3", "W5.4", "W5.5", "W5.6", "W5.7", "W5.8", "W5.9", "W5.10", "W5.11",
    "W5.12", "W5.13", "W5.14", "W5.15", "W5.16", //
    "W6.1", "W6.2", //
    "W7.1", "W7.2", "W7.3", "W7.4", "W7.5", "W7.6", "W7.7", "W7.8", "W7.9", "W7.10", "W7.11",
    "W7.12", "W7.13", "W7.14", "W7.15", "W7.16", "W7.18", "W7.19", "W7.20", "W7.21", "W7.22",
    "W7.23", //
    "W8.1", "W8.2", //
    "W9.1", "W9.2", "W9.3", "W9.4", "W9.5", "W9.6", "W9.7", "W9.8", "W9.9", "W9.10", "W9.11",
    "W9.12", "W9.13", "W9.14", "W9.15", "W9.16", "W9.17", "W9.18", "W9.19", "W9.20", "W9.21",
    "W9.22",
];

/// The rules of WIRE.md that bind a sender, a responder or an encoder only: no decoder can see
/// one broken in a single message, so no [`ErrorKind`](crate::ErrorKind) reports them (the canonical form, §11,
/// and the few responder duties of §4 and §7).
pub const NOT_DECODER_RULES: &[RuleId] = rule_ids![
    "W4.1", "W7.17", "W11.1", "W11.2", "W11.3", "W11.4", "W11.5", "W11.7", "W11.8", "W11.9",
    "W11.10",
];

/// IDs that WIRE.md no longer defines and that are never given to another rule (its "Rule
/// IDs" paragraph): W11.6 wrote a FID that counts as zero as 16 zero bytes, dropping f_ver.
pub const RETIRED_RULES: &[RuleId] = rule_ids!["W11.6"];
