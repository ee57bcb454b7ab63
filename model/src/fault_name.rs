//! The text form of [`Fault`]: the tool's names (`none`, `unknown-def-acl`,
//! `partial-groups-3`), written by `Display` and read by `FromStr`.

use super::operation::Fault;
use lustre_dne_intent::intent::MliBuf;

impl Fault {
    fn write_name(&self, w: &mut dyn core::fmt::Write) -> core::fmt::Result {
        // The tool's names are kebab case: `def_acl` becomes `def-acl`.
        let kebab = |w: &mut dyn core::fmt::Write, b: MliBuf| {
            for part in b.short_name().split('_').enumerate() {
                if part.0 > 0 {
                    w.write_str("-")?;
                }
                w.write_str(part.1)?;
            }
            Ok(())
        };
        match self {
            Fault::None => w.write_str("none"),
            Fault::PeerWithoutFlag => w.write_str("peer-without-flag"),
            Fault::PeerLostFlag => w.write_str("peer-lost-flag"),
            Fault::Replay => w.write_str("replay"),
            Fault::Resend => w.write_str("resend"),
            Fault::EmptyResult => w.write_str("empty"),
            Fault::Advisory => w.write_str("advisory"),
            Fault::Unknown(b) => {
                w.write_str("unknown-")?;
                kebab(w, *b)
            }
            Fault::Truncated(b) => {
                w.write_str("truncated-")?;
                kebab(w, *b)
            }
            Fault::Malformed => w.write_str("malformed"),
            Fault::NonMdtSender => w.write_str("non-mdt-sender"),
            Fault::PartialGroups(n) => write!(w, "partial-groups-{n}"),
        }
    }
}

impl core::fmt::Display for Fault {
    /// The tool's name: `none`, `unknown-def-acl`, `partial-groups-3`, …
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        lustre_dne_intent::flags::pad_with(f, |w| self.write_name(w))
    }
}

impl core::str::FromStr for Fault {
    type Err = lustre_dne_intent::ParseError;
    /// The tool's name, `partial-groups-N` for any N up to 255 (surrounding whitespace ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        use lustre_dne_intent::{ParseError, ParseErrorKind};
        let word = s.trim();
        let at = s.len() - s.trim_start().len();
        if let Some(n) = word.strip_prefix("partial-groups-") {
            return lustre_dne_intent::flags::parse_number(n, u8::MAX as u64)
                .filter(|_| !n.starts_with("0x"))
                .map(|n| Fault::PartialGroups(n as u8))
                .ok_or(ParseError {
                    what: "Fault",
                    offset: at + "partial-groups-".len(),
                    kind: ParseErrorKind::BadNumber,
                });
        }
        Fault::all()
            .into_iter()
            .find(|f| alloc::string::ToString::to_string(f) == word)
            .ok_or(ParseError {
                what: "Fault",
                offset: at,
                kind: if word.is_empty() {
                    ParseErrorKind::Empty
                } else {
                    ParseErrorKind::UnknownName
                },
            })
    }
}
