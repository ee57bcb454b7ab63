//! Typed errors. Every decoding failure says which structure and field broke which rule, at
//! which byte offset of the input, what was expected and what was found.

use core::fmt;

pub use kind::ErrorKind;

mod kind;
mod rule;

/// Where a rule failed: a structure, one of its fields (by its Lustre name) and the byte offset
/// of that field from the start of the input handed to the decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct At {
    /// The Lustre structure, e.g. `"md_create_prepare_req"`.
    pub structure: &'static str,
    /// The field, e.g. `"mcpr_buf_limit[0]"`.
    pub field: &'static str,
    /// Byte offset of the field in the decoder's input.
    pub offset: usize,
}

impl At {
    /// A location.
    pub const fn new(structure: &'static str, field: &'static str, offset: usize) -> Self {
        At {
            structure,
            field,
            offset,
        }
    }
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{} at offset {}", self.structure, self.offset)
        } else {
            write!(
                f,
                "{}.{} at offset {}",
                self.structure, self.field, self.offset
            )
        }
    }
}

/// Why a message, a fixed structure or a payload failed to decode: where, and which rule.
///
/// Its `Display` ends with the rule's ID in brackets, e.g. `… [W7.4]` (WIRE.md "Rule IDs").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("{at}: {kind} [{rule}]", rule = .kind.rule())]
pub struct DecodeError {
    /// The structure, field and offset.
    pub at: At,
    /// The rule and the values involved.
    pub kind: ErrorKind,
}

impl DecodeError {
    /// An error at `at`.
    pub const fn new(at: At, kind: ErrorKind) -> Self {
        DecodeError { at, kind }
    }

    /// A field at `at` that holds `got` where its rule fixes `expected`.
    pub(crate) const fn wrong_value(at: At, got: u64, expected: u64) -> Self {
        DecodeError::new(at, ErrorKind::WrongValue { got, expected })
    }

    /// A buffer at offset `base` that is `len` bytes, shorter than the `min` its structure needs.
    pub const fn too_short(structure: &'static str, base: usize, len: usize, min: usize) -> Self {
        DecodeError::new(
            At::new(structure, "", base),
            ErrorKind::BufferTooShort { len, min },
        )
    }

    /// The ID of the rule that failed ([`ErrorKind::rule`]).
    pub const fn rule(&self) -> crate::rules::RuleId {
        self.kind.rule()
    }

    /// The same error with its offset moved by `base` (a structure decoded inside a larger input).
    #[must_use]
    pub const fn shifted(mut self, base: usize) -> Self {
        self.at.offset += base;
        self
    }
}

/// Why a value could not be encoded.
///
/// The message is complete on its own: [`EncodeError::Invalid`] prints the decoder's error
/// inside its own text, so `source()` is `None` and an error reporter that walks the chain does
/// not print the cause twice. Match the variant to get the [`DecodeError`] itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The caller's buffer is smaller than the encoding.
    #[error("output buffer is {have} bytes, the encoding needs {need}")]
    BufferTooSmall {
        /// Bytes the encoding needs.
        need: usize,
        /// Bytes the caller gave.
        have: usize,
    },
    /// The value breaks a rule a decoder would enforce; the decoder's error says which.
    #[error("value would not decode: {0}")]
    Invalid(DecodeError),
}

impl From<DecodeError> for EncodeError {
    fn from(e: DecodeError) -> Self {
        EncodeError::Invalid(e)
    }
}
