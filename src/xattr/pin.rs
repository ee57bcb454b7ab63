//! The pin xattr (`trusted.pin`): opaque bytes copied verbatim to a new regular file or
//! directory (WIRE.md §9, lustre-wire.md §7).
//!
//! Its documented form is ASCII flow-style YAML, `[key: value,key: value]`, with keys `hsm` (a
//! u32 archive id) and `pool` (a pool name of at most 15 bytes). [`PinView::entries`] parses that
//! form, keeping unknown keys and reporting where the text breaks the grammar; the transport
//! ([`PinView::as_bytes`], and `Pin` with the `alloc` feature) never depends on it and never refuses the bytes.

use super::check_xattr_size;
use crate::error::DecodeError;
use crate::limits::POOL_NAME_MAX;
use core::fmt;

const PIN_S: &str = "trusted.pin";

/// A pin payload, borrowing the input. Any bytes up to `XATTR_SIZE_MAX` are a valid pin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PinView<'a> {
    bytes: &'a [u8],
}

impl<'a> PinView<'a> {
    /// Accepts any payload up to `XATTR_SIZE_MAX` bytes (OverLimit beyond).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        check_xattr_size(PIN_S, bytes.len())?;
        Ok(PinView { bytes })
    }
    /// The view of a pin whose size a reply's decode has checked already (a result of a
    /// validated reply): no rule is checked again.
    pub(crate) const fn of_validated(bytes: &'a [u8]) -> Self {
        PinView { bytes }
    }
    /// The bytes, exactly as received.
    pub fn as_bytes(&self) -> &'a [u8] {
        self.bytes
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        self.bytes.len()
    }
    /// The structured entries of the documented `[key: value,...]` form.
    pub fn entries(&self) -> PinEntryIter<'a> {
        let bad = self
            .bytes
            .iter()
            .position(|&c| !(0x20..0x7f).contains(&c))
            .unwrap_or(self.bytes.len());
        PinEntryIter {
            bytes: &self.bytes[..bad],
            full: self.bytes,
            pos: 0,
            state: IterState::Start,
        }
    }
    /// True when the whole text follows the documented grammar.
    pub fn is_well_formed(&self) -> bool {
        self.entries().all(|e| e.is_ok())
    }
    /// The value of the first entry with `key`, if the text parses that far.
    pub fn get(&self, key: &[u8]) -> Option<PinValue<'a>> {
        self.entries()
            .map_while(Result::ok)
            .find(|e| e.key == key)
            .map(|e| e.value)
    }
    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> Pin {
        Pin(bytes::Bytes::copy_from_slice(self.bytes))
    }
}

impl fmt::Display for PinView<'_> {
    /// The text, non-printable bytes escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        super::write_escaped(f, self.bytes)
    }
}

/// A typed pin value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PinValue<'a> {
    /// `hsm: <archive id>`.
    Hsm(u32),
    /// `pool: <name>` (at most 15 bytes, quotes removed).
    Pool(&'a [u8]),
    /// Any other key: its value text (quotes removed).
    Other(&'a [u8]),
}

/// One `key: value` entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PinEntry<'a> {
    /// The key.
    pub key: &'a [u8],
    /// The typed value.
    pub value: PinValue<'a>,
    /// The value text as written (quotes kept, surrounding spaces removed).
    pub raw_value: &'a [u8],
    /// Offset of the key in the payload.
    pub offset: usize,
}

/// Where and how a pin's text leaves the documented grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[error("pin text at byte {offset}: {kind}")]
pub struct PinSyntaxError {
    /// Byte offset in the payload.
    pub offset: usize,
    /// What is wrong.
    pub kind: PinSyntaxKind,
}

/// The ways a pin's text can break the grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum PinSyntaxKind {
    /// The text does not start with `[`.
    #[error("expected '['")]
    NotOpened,
    /// The text ends before `]`.
    #[error("expected ']' before the end")]
    NotClosed,
    /// Bytes after the closing `]`.
    #[error("bytes after ']'")]
    TrailingBytes,
    /// An entry with an empty key.
    #[error("empty key")]
    EmptyKey,
    /// A key not followed by `:`.
    #[error("expected ':' after the key")]
    MissingColon,
    /// A value neither followed by `,` nor by `]`.
    #[error("expected ',' or ']' after the value")]
    MissingSeparator,
    /// A quoted value without its closing quote.
    #[error("unterminated quoted value")]
    UnterminatedQuote,
    /// A NUL or non-ASCII byte.
    #[error("byte {byte:#04x} is not printable ASCII")]
    NotAscii {
        /// The byte.
        byte: u8,
    },
    /// An `hsm` value that is neither a u32 nor a negative `%d` of one.
    #[error("hsm value is not a u32 archive id (or its negative %d form)")]
    BadArchiveId,
    /// A `pool` value longer than 15 bytes or empty.
    #[error("pool name is {len} bytes, expected 1..=15")]
    BadPoolName {
        /// Its length.
        len: usize,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum IterState {
    Start,
    Entries,
    Done,
}

/// Iterator over the entries of a pin. A bad value of a known key is reported and the next
/// entry is still read; a structural error ends the iteration.
#[derive(Debug, Clone)]
pub struct PinEntryIter<'a> {
    /// The text up to the first byte that is not printable ASCII.
    bytes: &'a [u8],
    full: &'a [u8],
    pos: usize,
    state: IterState,
}

impl<'a> PinEntryIter<'a> {
    fn skip_spaces(&mut self) {
        while self.bytes.get(self.pos) == Some(&b' ') {
            self.pos += 1;
        }
    }
    fn fail(
        &mut self,
        offset: usize,
        kind: PinSyntaxKind,
    ) -> Option<Result<PinEntry<'a>, PinSyntaxError>> {
        self.state = IterState::Done;
        // Running into a byte that is not printable ASCII is reported as such.
        let (offset, kind) = match self.full.get(offset) {
            Some(&byte) if offset == self.bytes.len() => (offset, PinSyntaxKind::NotAscii { byte }),
            _ => (offset, kind),
        };
        Some(Err(PinSyntaxError { offset, kind }))
    }
}

fn trim_spaces(s: &[u8]) -> &[u8] {
    let start = s.iter().position(|&b| b != b' ').unwrap_or(s.len());
    let end = s.iter().rposition(|&b| b != b' ').map_or(start, |e| e + 1);
    &s[start..end]
}

fn parse_u32(s: &[u8]) -> Option<u32> {
    if s.is_empty() || s.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &b in s {
        if !b.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (b - b'0') as u64;
    }
    u32::try_from(v).ok()
}

/// An archive id as `llapi_pcc_pin_file` writes it: `"%d"` of a `__u32`, so ids of 2^31 and up
/// appear as `-1`..`-2147483648`. Either spelling gives the same u32; `-0` is not a `%d` output.
fn parse_archive_id(s: &[u8]) -> Option<u32> {
    match s.strip_prefix(b"-") {
        Some(digits) => {
            let magnitude = parse_u32(digits)?;
            if magnitude == 0 || magnitude > 1 << 31 {
                return None;
            }
            Some(magnitude.wrapping_neg())
        }
        None => parse_u32(s),
    }
}

impl<'a> Iterator for PinEntryIter<'a> {
    type Item = Result<PinEntry<'a>, PinSyntaxError>;

    fn next(&mut self) -> Option<Self::Item> {
        let b = self.bytes;
        match self.state {
            IterState::Done => return None,
            IterState::Start => {
                self.skip_spaces();
                if b.get(self.pos) != Some(&b'[') {
                    return self.fail(self.pos, PinSyntaxKind::NotOpened);
                }
                self.pos += 1;
                self.state = IterState::Entries;
                self.skip_spaces();
                if b.get(self.pos) == Some(&b']') {
                    self.pos += 1;
                    return self.finish();
                }
            }
            IterState::Entries => {}
        }
        // An entry starts at self.pos.
        self.skip_spaces();
        let key_start = self.pos;
        let Some(colon) = b[key_start..]
            .iter()
            .position(|&c| matches!(c, b':' | b',' | b']'))
            .map(|i| key_start + i)
        else {
            return self.fail(b.len(), PinSyntaxKind::NotClosed);
        };
        if b[colon] != b':' {
            return self.fail(colon, PinSyntaxKind::MissingColon);
        }
        let key = trim_spaces(&b[key_start..colon]);
        if key.is_empty() {
            return self.fail(key_start, PinSyntaxKind::EmptyKey);
        }
        self.pos = colon + 1;
        self.skip_spaces();
        let value_start = self.pos;
        let value_end;
        let inner: &[u8];
        match b.get(value_start) {
            Some(&q @ (b'"' | b'\'')) => {
                let Some(close) = b[value_start + 1..].iter().position(|&c| c == q) else {
                    return self.fail(value_start, PinSyntaxKind::UnterminatedQuote);
                };
                value_end = value_start + 1 + close + 1;
                inner = &b[value_start + 1..value_end - 1];
                self.pos = value_end;
                self.skip_spaces();
            }
            _ => {
                let end = b[value_start..]
                    .iter()
                    .position(|&c| matches!(c, b',' | b']'))
                    .map_or(b.len(), |i| value_start + i);
                value_end = end;
                inner = trim_spaces(&b[value_start..end]);
                self.pos = end;
            }
        }
        let raw_value = trim_spaces(&b[value_start..value_end]);
        // The separator.
        match b.get(self.pos) {
            Some(b',') => self.pos += 1,
            Some(b']') => {
                self.pos += 1;
                self.state = IterState::Done;
                if let Some(r) = self.trailing() {
                    return Some(Err(r));
                }
            }
            Some(_) => return self.fail(self.pos, PinSyntaxKind::MissingSeparator),
            None => return self.fail(b.len(), PinSyntaxKind::NotClosed),
        }
        let value = match key {
            b"hsm" => match parse_archive_id(inner) {
                Some(id) => PinValue::Hsm(id),
                None => {
                    return Some(Err(PinSyntaxError {
                        offset: value_start,
                        kind: PinSyntaxKind::BadArchiveId,
                    }));
                }
            },
            b"pool" => {
                if inner.is_empty() || inner.len() > POOL_NAME_MAX {
                    return Some(Err(PinSyntaxError {
                        offset: value_start,
                        kind: PinSyntaxKind::BadPoolName { len: inner.len() },
                    }));
                }
                PinValue::Pool(inner)
            }
            _ => PinValue::Other(inner),
        };
        Some(Ok(PinEntry {
            key,
            value,
            raw_value,
            offset: key_start,
        }))
    }
}

impl<'a> PinEntryIter<'a> {
    fn trailing(&mut self) -> Option<PinSyntaxError> {
        self.skip_spaces();
        (self.pos < self.full.len()).then_some(PinSyntaxError {
            offset: self.pos,
            kind: PinSyntaxKind::TrailingBytes,
        })
    }
    fn finish(&mut self) -> Option<Result<PinEntry<'a>, PinSyntaxError>> {
        self.state = IterState::Done;
        self.trailing().map(Err)
    }
}

/// An owned pin: the bytes, carried verbatim.
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Pin(pub bytes::Bytes);

#[cfg(feature = "alloc")]
impl Pin {
    /// A pin of these bytes.
    pub fn new(bytes: impl Into<bytes::Bytes>) -> Self {
        Pin(bytes.into())
    }
    /// The documented form of `entries`: `[key: value,key: value]` (as `dump_pin_object`).
    pub fn from_entries(entries: &[(&str, &str)]) -> Self {
        let mut v = alloc::vec::Vec::new();
        v.push(b'[');
        for (i, (k, val)) in entries.iter().enumerate() {
            if i > 0 {
                v.push(b',');
            }
            v.extend_from_slice(k.as_bytes());
            v.extend_from_slice(b": ");
            v.extend_from_slice(val.as_bytes());
        }
        v.push(b']');
        Pin(bytes::Bytes::from(v))
    }
    /// A view of the bytes (for the structured parse).
    pub fn view(&self) -> PinView<'_> {
        PinView { bytes: &self.0 }
    }
}

#[cfg(feature = "alloc")]
impl super::XattrEncode for Pin {
    const STRUCTURE: &'static str = PIN_S;
    fn wire_len(&self) -> usize {
        self.0.len()
    }
    fn put_raw(&self, out: &mut dyn bytes::BufMut) {
        out.put_slice(&self.0);
    }
    fn check_encoded(bytes: &[u8]) -> Result<(), DecodeError> {
        PinView::parse(bytes).map(|_| ())
    }
}
