//! The conformance kit (docs/conformance.md): vectors in Wycheproof's shape, the C vectors
//! header, the generated cases and the runner that drives an implementation under test.
//!
//! Every expectation comes from the crate itself: [`judge`] decodes an input the way the
//! protocol defines (a reply against its request) and either names the rule it breaks or gives
//! the canonical re-encoding (WIRE.md §11).
//!
//! Also here: the C header of the new structures ([`cheader`]) and the fuzz harnesses the
//! `fuzz/` targets call (`fuzzing`). The wire-level proptest strategies (`strategies`) need the
//! `proptest` feature.

#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

extern crate alloc;

use lustre_dne_intent::intent::{MliBuf, ReplyView, RequestView};
use lustre_dne_intent::limits::MLI_BUF_MAX;
use lustre_dne_intent::rules::RuleId;
use lustre_dne_intent::xattr::{AclView, DefaultLmvView, LmvView, LovView, PinView};
use lustre_dne_intent::{DecodeError, Endian};

mod broken;
pub mod cheader;
pub mod cvectors;
pub mod generate;
pub mod json;
pub mod lustre_patch;
pub mod member_added;
mod mutate;
mod parts;
pub mod protocol;
pub mod reorder;
mod repair;
pub mod runner;
#[cfg(feature = "proptest")]
pub mod strategies;
pub mod testee;
pub mod vectors;

#[doc(hidden)]
pub mod fuzzing;

pub use generate::{GeneratedCase, generated_case, generated_cases};
pub use vectors::{VECTOR_SEED, vectors};

/// The xattr names a conformance case may carry, one per payload kind of WIRE.md §9: those of
/// the results that are xattrs ([`MliBuf::xattr_name`]), in `MLI_BUF` order.
pub const XATTR_NAMES: [&str; MLI_BUF_MAX - 1] = {
    let mut out = [""; MLI_BUF_MAX - 1];
    let mut i = 0;
    while i < out.len() {
        // Every result but PATTR (index 0) is an xattr.
        if let Some(n) = MliBuf::ALL[i + 1].xattr_name() {
            out[i] = n;
        }
        i += 1;
    }
    out
};

/// What a case's input is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    /// A prepare-intent request message.
    Request,
    /// A prepare-intent reply message, judged with its request known.
    Reply,
    /// An xattr payload with its name (one of [`XATTR_NAMES`]).
    Xattr(&'static str),
}

impl Kind {
    /// The protocol's name for the kind: `request`, `reply` or `xattr`.
    pub const fn name(self) -> &'static str {
        match self {
            Kind::Request => "request",
            Kind::Reply => "reply",
            Kind::Xattr(_) => "xattr",
        }
    }

    /// The xattr name, for an xattr case.
    pub const fn xattr_name(self) -> Option<&'static str> {
        match self {
            Kind::Xattr(n) => Some(n),
            _ => None,
        }
    }

    /// The kind of an xattr name, if it is one of [`XATTR_NAMES`].
    pub fn of_xattr_name(name: &str) -> Option<Kind> {
        XATTR_NAMES
            .iter()
            .find(|n| **n == name)
            .map(|n| Kind::Xattr(n))
    }
}

/// The expected result of a case (Wycheproof's three values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// Obeys every rule; canonical, or canonical but for its byte order.
    Valid,
    /// Obeys every rule in an unusual, non-canonical form: accepting and rejecting both pass.
    Acceptable,
    /// Breaks this rule.
    Invalid(RuleId),
}

impl Expect {
    /// `valid`, `acceptable` or `invalid`.
    pub const fn name(self) -> &'static str {
        match self {
            Expect::Valid => "valid",
            Expect::Acceptable => "acceptable",
            Expect::Invalid(_) => "invalid",
        }
    }

    /// The rule, for an invalid case.
    pub const fn rule(self) -> Option<RuleId> {
        match self {
            Expect::Invalid(r) => Some(r),
            _ => None,
        }
    }
}

/// What the crate decides about one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judgement {
    /// Accepted: the canonical re-encoding, and whether the input re-encodes to itself in its
    /// own byte order (`false` marks an unusual form).
    Accepted {
        /// `to_value()` then encode, little-endian.
        canonical: Vec<u8>,
        /// Re-encoding in the input's own byte order gives the input back.
        same_form: bool,
    },
    /// Rejected with this error.
    Rejected(DecodeError),
}

impl Judgement {
    /// The expected result this judgement gives a case.
    pub fn expect(&self) -> Expect {
        match self {
            Judgement::Accepted {
                same_form: true, ..
            } => Expect::Valid,
            Judgement::Accepted { .. } => Expect::Acceptable,
            Judgement::Rejected(e) => Expect::Invalid(e.rule()),
        }
    }

    /// The canonical form, when accepted.
    pub fn canonical(&self) -> Option<&[u8]> {
        match self {
            Judgement::Accepted { canonical, .. } => Some(canonical),
            Judgement::Rejected(_) => None,
        }
    }
}

fn encoded<E: core::fmt::Debug>(r: Result<lustre_dne_intent::bytes::Bytes, E>) -> Vec<u8> {
    // What decodes re-encodes (the crate's contract, held by its fuzz targets); an empty
    // canonical form would show up as a mismatch rather than a panic.
    r.map(|b| b.to_vec()).unwrap_or_default()
}

/// The judgement of a message that decoded: its canonical form (`encode` little-endian) and
/// whether `encode` in its own byte order gives `bytes` back.
fn accepted_message<E: core::fmt::Debug>(
    bytes: &[u8],
    order: Endian,
    encode: impl Fn(Endian) -> Result<lustre_dne_intent::bytes::Bytes, E>,
) -> Judgement {
    Judgement::Accepted {
        same_form: encoded(encode(order)) == bytes,
        canonical: encoded(encode(Endian::Little)),
    }
}

/// Judges a request message.
pub fn judge_request(bytes: &[u8]) -> Judgement {
    match RequestView::parse(bytes) {
        Ok(v) => {
            let value = v.to_value();
            accepted_message(bytes, v.order(), |o| value.to_bytes(o))
        }
        Err(e) => Judgement::Rejected(e),
    }
}

/// Judges a reply message against its request (which must itself be valid).
pub fn judge_reply(bytes: &[u8], request: &[u8]) -> Judgement {
    match RequestView::parse(request) {
        Ok(r) => judge_reply_as(bytes, Some(&r.reply_context())),
        Err(e) => Judgement::Rejected(e),
    }
}

/// Judges a reply message on its own: only the rules that need no request (WIRE.md §7).
pub fn judge_reply_alone(bytes: &[u8]) -> Judgement {
    judge_reply_as(bytes, None)
}

fn judge_reply_as(
    bytes: &[u8],
    ctx: Option<&lustre_dne_intent::intent::ReplyContext>,
) -> Judgement {
    let parsed = match ctx {
        Some(c) => ReplyView::parse_for(bytes, c),
        None => ReplyView::parse(bytes),
    };
    match parsed {
        Ok(v) => {
            let value = v.to_value();
            accepted_message(bytes, v.order(), |o| value.to_bytes(o))
        }
        Err(e) => Judgement::Rejected(e),
    }
}

fn accepted(canonical: Vec<u8>, bytes: &[u8]) -> Judgement {
    Judgement::Accepted {
        same_form: canonical == bytes,
        canonical,
    }
}

/// Judges an xattr payload by its name; `None` for a name not in [`XATTR_NAMES`].
pub fn judge_xattr(name: &str, bytes: &[u8]) -> Option<Judgement> {
    let r = match MliBuf::of_xattr_name(name)? {
        MliBuf::DefAcl => AclView::parse(bytes).map(|v| encoded(v.to_value().to_bytes())),
        MliBuf::Pin => PinView::parse(bytes).map(|v| encoded(v.to_value().to_bytes())),
        MliBuf::Lmv => LmvView::parse(bytes).map(|v| encoded(v.to_value().to_bytes())),
        MliBuf::Lov => LovView::parse(bytes).map(|v| encoded(v.to_value().to_bytes())),
        MliBuf::DefLmv => DefaultLmvView::parse(bytes).map(|v| encoded(v.to_value().to_bytes())),
        MliBuf::Pattr => return None,
    };
    Some(match r {
        Ok(c) => accepted(c, bytes),
        Err(e) => Judgement::Rejected(e),
    })
}

/// Judges an input of any kind (`request` is the request a reply answers).
pub fn judge(kind: Kind, bytes: &[u8], request: Option<&[u8]>) -> Judgement {
    match kind {
        Kind::Request => judge_request(bytes),
        Kind::Reply => judge_reply(bytes, request.unwrap_or_default()),
        Kind::Xattr(name) => judge_xattr(name, bytes).unwrap_or_else(|| {
            // `Kind::Xattr` is only built from XATTR_NAMES.
            Judgement::Rejected(DecodeError::new(
                lustre_dne_intent::At::new("xattr", "name", 0),
                lustre_dne_intent::ErrorKind::UnknownMagic { got: 0 },
            ))
        }),
    }
}

/// One conformance case: an input, its kind and what the crate expects of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// Unique id (the vectors' `tcId`).
    pub id: u64,
    /// What the input is.
    pub kind: Kind,
    /// What the case is.
    pub comment: String,
    /// Labels from [`vectors::FLAG_NOTES`].
    pub flags: Vec<&'static str>,
    /// The input.
    pub bytes: Vec<u8>,
    /// For a reply, the request it answers.
    pub request: Option<Vec<u8>>,
    /// The expected result.
    pub expect: Expect,
    /// The canonical form, for valid and acceptable cases.
    pub canonical: Option<Vec<u8>>,
    /// Whether the expected rule is checked strictly (one rule broken on purpose).
    pub strict_rule: bool,
    /// For an invalid case, every rule it is known to break: the crate's first, then those the
    /// kit's own checks find (WIRE.md order). A testee may name any of them. Empty otherwise.
    pub rules: Vec<RuleId>,
}

/// Every rule an invalid input is known to break (see [`Case::rules`]); empty for the others.
pub fn broken_rules(
    kind: Kind,
    bytes: &[u8],
    request: Option<&[u8]>,
    expect: Expect,
) -> Vec<RuleId> {
    match expect {
        Expect::Invalid(first) => broken::broken_rules(kind, bytes, request, first),
        _ => Vec::new(),
    }
}

impl Case {
    /// A case whose expectation is the crate's judgement of the input.
    pub fn judged(
        kind: Kind,
        comment: String,
        flags: Vec<&'static str>,
        bytes: Vec<u8>,
        request: Option<Vec<u8>>,
    ) -> Case {
        let j = judge(kind, &bytes, request.as_deref());
        Case {
            id: 0,
            kind,
            comment,
            flags,
            expect: j.expect(),
            canonical: j.canonical().map(<[u8]>::to_vec),
            rules: broken_rules(kind, &bytes, request.as_deref(), j.expect()),
            bytes,
            request,
            strict_rule: true,
        }
    }
}

/// The byte order of a message (`lm_magic` as a big-endian writer leaves it), little-endian
/// for payloads and for anything too short to tell.
pub fn message_order(kind: Kind, bytes: &[u8]) -> Endian {
    match (kind, bytes.get(8..12)) {
        (Kind::Request | Kind::Reply, Some([0x0b, 0xd0, 0x0b, 0xd3])) => Endian::Big,
        _ => Endian::Little,
    }
}

/// Lowercase hex of `bytes` ([`lustre_dne_intent::hex::encode`]).
pub fn to_hex(bytes: &[u8]) -> String {
    lustre_dne_intent::hex::encode(bytes)
}

/// Bytes of a hex string (either case); `None` if it is not hex of whole bytes. Stricter than
/// [`lustre_dne_intent::hex::decode`]: digits only, no white space or `0x`.
pub fn from_hex(s: &str) -> Option<Vec<u8>> {
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    lustre_dne_intent::hex::decode_form(s, lustre_dne_intent::hex::HexForm::Plain).ok()
}

/// A small seeded generator (SplitMix64): the same seed gives the same cases on every host.
#[derive(Debug, Clone)]
pub struct Prng(u64);

impl Prng {
    /// A generator for `seed`.
    pub const fn new(seed: u64) -> Self {
        Prng(seed)
    }

    /// An independent generator for item `index` of this one's stream: its state mixed with
    /// `index` and passed through one splitmix step, whatever was drawn before.
    pub fn split(&self, index: u64) -> Prng {
        let mut p = Prng(self.0 ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03));
        Prng(p.next_u64())
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips() {
        assert_eq!(to_hex(&[0x00, 0xab, 0x7f]), "00ab7f");
        assert_eq!(from_hex("00AB7f"), Some(vec![0, 0xab, 0x7f]));
        assert_eq!(from_hex("abc"), None);
        assert_eq!(from_hex("zz"), None);
    }

    /// WIRE.md's scope note (§0): a bound stated beside a rule is the general rule it cites,
    /// and a payload shorter than its fixed header breaks W0.1, not W9.2; the crate names
    /// the rules so (issue 29: the docs named W5.13 and W9.2 where the crate reports W0.3 and
    /// W0.1).
    #[test]
    fn the_rule_scopes_of_wire_md_hold() {
        fn rule(j: Judgement) -> &'static str {
            j.expect().rule().map_or("accepted", RuleId::as_str)
        }
        let req: &[u8] = include_bytes!("../testdata/mkdir_request.bin");
        let p = parts::Parts::split(req).unwrap();
        let with_limit = |i: usize, v: u32| {
            let mut body = p.bufs[3].clone();
            body[48 + 4 * i..52 + 4 * i].copy_from_slice(&v.to_le_bytes());
            p.with_buf(3, body).unwrap()
        };
        assert_eq!(rule(judge_request(&with_limit(0, 100))), "W5.13");
        assert_eq!(rule(judge_request(&with_limit(0, 0x1_0001))), "W0.3");
        assert_eq!(rule(judge_request(&with_limit(3, 0x1_0001))), "W0.3");
        let lmv: &[u8] = include_bytes!("../testdata/xattr_lmv_striped.bin");
        let acl: &[u8] = include_bytes!("../testdata/xattr_acl_default.bin");
        let lov: &[u8] = include_bytes!("../testdata/xattr_lov_comp3.bin");
        let x = |name: &str, b: &[u8]| rule(judge_xattr(name, b).unwrap());
        // Shorter than the fixed header: W0.1; the header whole, the length wrong: W9.2/W9.3.
        assert_eq!(x("trusted.lmv", &lmv[..40]), "W0.1");
        assert_eq!(x("trusted.lmv", &lmv[..96]), "W9.2");
        assert_eq!(x("trusted.lov", &lov[..31]), "W0.1");
        assert_eq!(x("trusted.lov", &lov[..272]), "W9.2");
        assert_eq!(x("system.posix_acl_default", &acl[..3]), "W0.1");
        assert_eq!(x("system.posix_acl_default", &acl[..13]), "W9.3");
        // The same as a reply's result (size field and valid bit agreeing with the buffer).
        let rep: &[u8] = include_bytes!("../testdata/mkdir_reply_complete.bin");
        let cut = [("an LMV of 40 bytes".to_string(), 3, lmv[..40].to_vec())];
        let shapes = mutate::reply_shapes(rep, &cut);
        let (_, m) = shapes.iter().find(|(w, _)| w.contains("40 bytes")).unwrap();
        assert_eq!(rule(judge_reply(m, req)), "W0.1");
    }

    /// A stripe LMV with a FID table re-encodes byte for byte: the kit calls it valid, as
    /// WIRE.md §9 and docs/conformance.md §1.1 say (it was documented as acceptable).
    #[test]
    fn a_stripe_lmv_with_a_fid_table_is_valid() {
        let mut b = include_bytes!("../testdata/xattr_lmv_striped.bin").to_vec();
        b[..4].copy_from_slice(&lustre_dne_intent::xattr::LMV_MAGIC_STRIPE.to_le_bytes());
        let j = judge_xattr("trusted.lmv", &b).unwrap();
        assert!(j.expect() == Expect::Valid);
        assert_eq!(j.canonical(), Some(&b[..]));
    }

    #[test]
    fn prng_is_splitmix64() {
        // SplitMix64's published first output for seed 0.
        assert_eq!(Prng::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
    }
}
