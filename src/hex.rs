//! Hex text as people paste it: plain digits (`xxd -p`, or getfattr's `0x…` value), `xxd`
//! lines and `hexdump -C` lines. [`decode`] tells the forms apart and reads any of them;
//! [`encode`] and [`xxd_plain`] write the plain form.
//!
//! The forms, as read:
//! - [`HexForm::Plain`]: hex digits in either case and ASCII white space (ignored), after at
//!   most one leading `0x` or `0X` (`xxd -p`, `getfattr -e hex`).
//! - [`HexForm::Xxd`]: `00000010: 0bd0 0bd3 …  ascii` lines.
//! - [`HexForm::HexdumpC`]: `00000010  d0 0b d3 0b …  |ascii|` lines, `*` for rows left out
//!   because they repeat the row before, and the closing line holding only the total length.
//!
//! Each line of a dump must start at the offset where the lines before it end, so a dump with
//! a line missing, doubled or out of order is refused, with the line that breaks. No input
//! makes a function here panic; offsets are bounded by [`MAX_DECODED`].
//!
//! ```
//! use lustre_dne_intent::hex::{self, HexForm};
//!
//! let xxd = "00000000: 0900 0000 0000 0000 d30b d00b b803 0000  ................\n\
//!            00000010: 417a                                     Az\n";
//! assert_eq!(hex::form(xxd), Some(HexForm::Xxd));
//! let bytes = hex::decode(xxd)?;
//! assert_eq!(bytes.len(), 18);
//! assert_eq!(hex::decode("0x0900 0000")?, [9, 0, 0, 0]);
//! assert_eq!(hex::encode(&bytes[14..]), "0000417a");
//! # Ok::<(), hex::HexError>(())
//! ```

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;
use core::str;

/// The largest offset an `xxd` or `hexdump -C` line may give (80 MiB, the `dne-intent` tool's
/// input limit): well above the largest message (about 1 MB, [`crate::limits::MSG_MAX_LEN`])
/// as hex text. A `*` line repeats rows up to the next line's offset, so this bounds what a
/// few lines of text can make the decoder allocate.
pub const MAX_DECODED: usize = 80 << 20;

/// The longest offset column read (16 hex digits, a 64-bit offset).
const MAX_OFFSET_DIGITS: usize = 16;

/// The hex text forms [`decode`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HexForm {
    /// Hex digits and white space (`xxd -p`), optionally after one leading `0x`
    /// (`getfattr -e hex`'s value).
    Plain,
    /// `xxd`: `00000010: 0bd0 0bd3 ...  ascii` lines.
    Xxd,
    /// `hexdump -C`: `00000010  d0 0b d3 0b ...  |ascii|` lines, `*` lines and the closing
    /// offset line.
    HexdumpC,
}

impl HexForm {
    /// The name the form is known by: `"plain hex"`, `"xxd"` or `"hexdump -C"`.
    ///
    /// ```
    /// use lustre_dne_intent::hex::HexForm;
    /// assert_eq!(HexForm::HexdumpC.name(), "hexdump -C");
    /// assert_eq!(HexForm::Xxd.to_string(), "xxd");
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            HexForm::Plain => "plain hex",
            HexForm::Xxd => "xxd",
            HexForm::HexdumpC => "hexdump -C",
        }
    }

    /// What follows the offset on a line of this form (`None` for the plain form).
    const fn separator(self) -> Option<&'static str> {
        match self {
            HexForm::Plain => None,
            HexForm::Xxd => Some(": "),
            HexForm::HexdumpC => Some("  "),
        }
    }
}

impl fmt::Display for HexForm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why hex text did not decode, and where.
///
/// Byte offsets count from the start of the digits read: for the plain form, past leading
/// white space and the `0x`; on a dump's line, from the start of its byte columns. Lines and
/// columns count from 1.
///
/// ```
/// use lustre_dne_intent::hex::{self, HexError, LineError, HexForm};
///
/// assert_eq!(hex::decode("0bd00bd"), Err(HexError::OddDigits));
/// let gap = "00000000: 0900 0000\n00000010: 0000 0000\n";
/// assert_eq!(
///     hex::decode(gap),
///     Err(HexError::Line {
///         form: HexForm::Xxd,
///         line: 2,
///         error: LineError::OffsetMismatch { offset: 0x10, held: 4 },
///     })
/// );
/// assert_eq!(
///     hex::decode(gap).unwrap_err().to_string(),
///     "line 2: offset 0x10, but the lines before it hold 0x4 bytes"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HexError {
    /// Plain hex text holds a byte that is neither a hex digit nor white space.
    #[error("hex text has {:?} at byte {offset}, expected a hex digit", char::from(*.byte))]
    NotADigit {
        /// Its offset from the first digit (past white space and `0x`).
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// Plain hex text has an odd number of digits: the last byte is half there.
    #[error("hex text has an odd number of digits")]
    OddDigits,
    /// A line of text read as `form` breaks it.
    #[error("line {line}: {error}")]
    Line {
        /// The form the text was read as.
        form: HexForm,
        /// The line (from 1).
        line: usize,
        /// What is wrong with it.
        error: LineError,
    },
    /// [`decode`]: text whose first line starts as a `form` line does, with a later line (or
    /// that one) that breaks the form.
    #[error("text that starts as {form} output, but line {line}: {error}")]
    BrokenDump {
        /// [`HexForm::Xxd`] or [`HexForm::HexdumpC`].
        form: HexForm,
        /// The first line that breaks it (from 1).
        line: usize,
        /// What is wrong with it.
        error: LineError,
    },
    /// [`decode`]: printable text in none of the forms, named by its first character that is
    /// neither a hex digit nor white space (after one leading `0x`).
    #[error(
        "text, but not hex in a form this tool reads (xxd -p, xxd, hexdump -C, or one leading \
         0x): line {line}, column {column} has {found:?}, not a hex digit"
    )]
    NotHex {
        /// The line (from 1).
        line: usize,
        /// The column (from 1, in bytes).
        column: usize,
        /// The character.
        found: char,
    },
    /// [`decode`]: text that holds no hex digit after its `0x`.
    #[error(
        "text, but not hex in a form this tool reads (xxd -p, xxd, hexdump -C, or one leading \
         0x): no hex digit after the `0x`"
    )]
    NoDigits,
    /// Not text: a byte that is neither printable ASCII nor white space ([`decode`]), or not
    /// UTF-8 ([`decode_form`]). Such input is binary, not a hex dump.
    #[error("not hex text: byte {offset} is {byte:#04x}")]
    NotText {
        /// The byte's offset in the input.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// [`decode`]: the text is empty or only white space.
    #[error("no hex text: the input is empty or only white space")]
    Empty,
}

/// What is wrong with one line of an `xxd` or `hexdump -C` dump ([`HexError::Line`],
/// [`HexError::BrokenDump`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LineError {
    /// The line does not start with a hex offset (at most 16 digits) and the form's separator.
    #[error("expected a hex offset and {separator:?}")]
    NoOffset {
        /// `": "` (xxd) or `"  "` (hexdump -C).
        separator: &'static str,
    },
    /// The offset is past [`MAX_DECODED`].
    #[error("offset {offset} is out of range")]
    OffsetOutOfRange {
        /// The offset as written.
        offset: String,
    },
    /// A `*` line (rows left out) before any row it could repeat.
    #[error("`*` with no row before it")]
    RepeatWithoutRow,
    /// The offset is not where the lines before it end.
    #[error("offset {offset:#x}, but the lines before it hold {held:#x} bytes")]
    OffsetMismatch {
        /// The line's offset.
        offset: usize,
        /// The bytes the lines before it hold (rows repeated by `*` counted).
        held: usize,
    },
    /// The byte columns hold a byte that is neither a hex digit nor white space.
    #[error("hex text has {:?} at byte {offset}, expected a hex digit", char::from(*.byte))]
    NotADigit {
        /// Its offset from the start of the byte columns.
        offset: usize,
        /// The byte.
        byte: u8,
    },
    /// The byte columns hold an odd number of digits.
    #[error("hex text has an odd number of digits")]
    OddDigits,
}

/// Why a run of hex digits did not decode (both [`HexError`] and [`LineError`] say it).
enum DigitError {
    NotADigit { offset: usize, byte: u8 },
    Odd,
}

impl From<DigitError> for HexError {
    fn from(e: DigitError) -> Self {
        match e {
            DigitError::NotADigit { offset, byte } => HexError::NotADigit { offset, byte },
            DigitError::Odd => HexError::OddDigits,
        }
    }
}

impl From<DigitError> for LineError {
    fn from(e: DigitError) -> Self {
        match e {
            DigitError::NotADigit { offset, byte } => LineError::NotADigit { offset, byte },
            DigitError::Odd => LineError::OddDigits,
        }
    }
}

/// Which hex form `text` is in, or `None` when it is in none (binary, or other text).
///
/// The plain form needs at least one hex digit; `xxd` needs every line (but blank and `*`
/// lines) to start with an offset and `": "`; `hexdump -C` with an offset and two spaces, or to
/// be an offset alone (the closing line). Only the starts of the lines are looked at:
/// [`decode_form`] reads the rest.
///
/// ```
/// use lustre_dne_intent::hex::{self, HexForm};
///
/// assert_eq!(hex::form("0x0bd00bd3"), Some(HexForm::Plain));
/// assert_eq!(hex::form("00000000  d3 0b d0 0b  |....|\n00000004\n"), Some(HexForm::HexdumpC));
/// assert_eq!(hex::form(b"\xd3\x0b\xd0\x0b"), None);
/// assert_eq!(hex::form("hello world"), None);
/// ```
pub fn form<T: AsRef<[u8]> + ?Sized>(text: &T) -> Option<HexForm> {
    form_of(text.as_ref())
}

fn form_of(text: &[u8]) -> Option<HexForm> {
    let s = str::from_utf8(text).ok()?;
    let body = s.get(plain_start(s)..)?;
    if body.bytes().any(|b| b.is_ascii_hexdigit())
        && body
            .bytes()
            .all(|b| b.is_ascii_hexdigit() || b.is_ascii_whitespace())
    {
        return Some(HexForm::Plain);
    }
    let mut lines = s
        .lines()
        .filter(|l| !l.trim().is_empty() && l.trim() != "*")
        .peekable();
    let first = *lines.peek()?;
    if offset_then(first, ": ").is_some() && lines.clone().all(|l| offset_then(l, ": ").is_some()) {
        return Some(HexForm::Xxd);
    }
    if offset_then(first, "  ").is_some()
        && lines.all(|l| offset_then(l, "  ").is_some() || is_offset(l.trim()))
    {
        return Some(HexForm::HexdumpC);
    }
    None
}

/// The bytes that hex text in any of the forms stands for.
///
/// The form is found as [`form`] finds it. Text in none of them is refused: printable text with
/// [`HexError::BrokenDump`] when its first line starts as an `xxd` or `hexdump -C` line (naming
/// the first line that breaks the dump), else with [`HexError::NotHex`] naming the first
/// character that is neither a hex digit nor white space; anything else with
/// [`HexError::NotText`] (binary), or [`HexError::Empty`].
///
/// ```
/// use lustre_dne_intent::hex::{self, HexError};
///
/// // `xxd -p`, `getfattr -e hex`, `xxd` and `hexdump -C` forms of the same four bytes.
/// let want = [0xd3, 0x0b, 0xd0, 0x0b];
/// assert_eq!(hex::decode("d30bd00b\n")?, want);
/// assert_eq!(hex::decode("0xd30bd00b")?, want);
/// assert_eq!(hex::decode("00000000: d30b d00b                                ....\n")?, want);
/// assert_eq!(
///     hex::decode("00000000  d3 0b d0 0b                                       |....|\n00000004\n")?,
///     want
/// );
///
/// let err = hex::decode("lm_magic 0x0bd00bd3").unwrap_err();
/// assert_eq!(err, HexError::NotHex { line: 1, column: 1, found: 'l' });
/// assert_eq!(
///     err.to_string(),
///     "text, but not hex in a form this tool reads (xxd -p, xxd, hexdump -C, or one leading \
///      0x): line 1, column 1 has 'l', not a hex digit"
/// );
/// # Ok::<(), HexError>(())
/// ```
pub fn decode<T: AsRef<[u8]> + ?Sized>(text: &T) -> Result<Vec<u8>, HexError> {
    let text = text.as_ref();
    if let Some(form) = form_of(text) {
        return decode_form_of(text, form);
    }
    if text.iter().all(u8::is_ascii_whitespace) {
        return Err(HexError::Empty);
    }
    if let Some((offset, &byte)) = text
        .iter()
        .enumerate()
        .find(|&(_, &b)| !(b.is_ascii_graphic() || b.is_ascii_whitespace()))
    {
        return Err(HexError::NotText { offset, byte });
    }
    // Printable ASCII only, hence UTF-8.
    match str::from_utf8(text) {
        Ok(s) => Err(not_hex(s)),
        Err(e) => Err(not_text(text, e.valid_up_to())),
    }
}

/// Decodes `text` as `form`, without looking for the form.
///
/// For [`HexForm::Plain`], leading white space and one `0x` are skipped and every other byte
/// must be a hex digit or white space; for the dump forms every line is read as
/// [`decode`] reads it.
///
/// ```
/// use lustre_dne_intent::hex::{self, HexError, HexForm};
///
/// // getfattr's value, after `name=`.
/// assert_eq!(hex::decode_form("0x01000000", HexForm::Plain)?, [1, 0, 0, 0]);
/// assert_eq!(
///     hex::decode_form("0x0z", HexForm::Plain),
///     Err(HexError::NotADigit { offset: 1, byte: b'z' })
/// );
/// # Ok::<(), HexError>(())
/// ```
pub fn decode_form<T: AsRef<[u8]> + ?Sized>(text: &T, form: HexForm) -> Result<Vec<u8>, HexError> {
    decode_form_of(text.as_ref(), form)
}

fn decode_form_of(text: &[u8], form: HexForm) -> Result<Vec<u8>, HexError> {
    let s = str::from_utf8(text).map_err(|e| not_text(text, e.valid_up_to()))?;
    match form.separator() {
        None => {
            let digits = text.get(plain_start(s)..).unwrap_or_default();
            Ok(decode_digits(digits)?)
        }
        Some(sep) => decode_offset_lines(s, form, sep).map_err(|(line, error)| HexError::Line {
            form,
            line,
            error,
        }),
    }
}

/// Lowercase hex of `bytes`, two digits a byte, no separators.
///
/// ```
/// assert_eq!(lustre_dne_intent::hex::encode(&[0x0b, 0xd0, 0xff]), "0bd0ff");
/// ```
pub fn encode(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// `xxd -p`'s output: lowercase hex, 30 bytes (60 digits) a line, each line ending in a newline;
/// empty for no bytes.
///
/// ```
/// use lustre_dne_intent::hex;
///
/// let text = hex::xxd_plain(&[0xab; 31]);
/// assert_eq!(text, format!("{}\nab\n", "ab".repeat(30)));
/// assert_eq!(hex::decode(&text)?, [0xab; 31]);
/// # Ok::<(), hex::HexError>(())
/// ```
pub fn xxd_plain(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + bytes.len() / 30 + 1);
    for chunk in bytes.chunks(30) {
        s.push_str(&encode(chunk));
        s.push('\n');
    }
    s
}

/// [`HexError::NotText`] for the byte at `offset`.
fn not_text(text: &[u8], offset: usize) -> HexError {
    HexError::NotText {
        offset,
        byte: text.get(offset).copied().unwrap_or_default(),
    }
}

/// Why `s`, printable text, is none of the forms: a dump whose first line starts as `xxd` or
/// `hexdump -C` lines do is read as one, to name its first broken line; anything else is named
/// by its first character that is neither a hex digit nor white space (after one leading `0x`).
fn not_hex(s: &str) -> HexError {
    let first = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    for form in [HexForm::Xxd, HexForm::HexdumpC] {
        if let Some(sep) = form.separator()
            && offset_then(first, sep).is_some()
            && let Err((line, error)) = decode_offset_lines(s, form, sep)
        {
            return HexError::BrokenDump { form, line, error };
        }
    }
    let skip = plain_start(s);
    let bad = s
        .char_indices()
        .find(|&(i, c)| i >= skip && !c.is_ascii_hexdigit() && !c.is_ascii_whitespace());
    match bad {
        Some((i, found)) => {
            let before = s.get(..i).unwrap_or_default();
            let line = before.matches('\n').count() + 1;
            let column = i - before.rfind('\n').map_or(0, |n| n + 1) + 1;
            HexError::NotHex {
                line,
                column,
                found,
            }
        }
        None => HexError::NoDigits,
    }
}

/// Where the digits of the plain form start in `s`: past leading white space and one `0x`.
fn plain_start(s: &str) -> usize {
    let start = s.len() - s.trim_start().len();
    match s.get(start..).and_then(|rest| rest.get(..2)) {
        Some("0x" | "0X") => start + 2,
        _ => start,
    }
}

/// An offset alone (hexdump's closing line).
fn is_offset(s: &str) -> bool {
    !s.is_empty() && s.len() <= MAX_OFFSET_DIGITS && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The hex offset that starts `line` and the rest after it and `sep`, when it starts so.
fn offset_then<'l>(line: &'l str, sep: &str) -> Option<(&'l str, &'l str)> {
    let end = line.find(|c: char| !c.is_ascii_hexdigit())?;
    if end == 0 || end > MAX_OFFSET_DIGITS {
        return None;
    }
    let (offset, rest) = line.split_at_checked(end)?;
    Some((offset, rest.strip_prefix(sep)?))
}

/// Decodes `xxd` or `hexdump -C` lines; an error names its line (from 1). Each line's offset
/// must continue the bytes so far; a `*` line (repeated rows left out) repeats the previous row
/// up to the next line's offset, and hexdump's closing line, an offset alone, gives the total
/// length.
fn decode_offset_lines(
    s: &str,
    form: HexForm,
    sep: &'static str,
) -> Result<Vec<u8>, (usize, LineError)> {
    let mut out: Vec<u8> = Vec::new();
    let mut last_row: Vec<u8> = Vec::new();
    let mut repeat = false;
    for (n, line) in s.lines().enumerate() {
        let n = n + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        if trimmed == "*" {
            repeat = true;
            continue;
        }
        let (offset, cols) = if is_offset(trimmed) {
            (trimmed, None)
        } else {
            let (offset, rest) =
                offset_then(line, sep).ok_or((n, LineError::NoOffset { separator: sep }))?;
            // The byte columns end where the ASCII column starts: two spaces (xxd) or `|`.
            let cols = match form {
                HexForm::Xxd => rest.split("  ").next().unwrap_or(""),
                _ => rest.split('|').next().unwrap_or(""),
            };
            (offset, Some(cols))
        };
        let offset = u64::from_str_radix(offset, 16)
            .ok()
            .and_then(|o| usize::try_from(o).ok())
            .filter(|&o| o <= MAX_DECODED)
            .ok_or_else(|| {
                (
                    n,
                    LineError::OffsetOutOfRange {
                        offset: offset.into(),
                    },
                )
            })?;
        if repeat {
            if last_row.is_empty() {
                return Err((n, LineError::RepeatWithoutRow));
            }
            let missing = offset.saturating_sub(out.len());
            out.extend(last_row.iter().cycle().take(missing));
            repeat = false;
        }
        if offset != out.len() {
            return Err((
                n,
                LineError::OffsetMismatch {
                    offset,
                    held: out.len(),
                },
            ));
        }
        if let Some(cols) = cols {
            last_row = decode_digits(cols.as_bytes()).map_err(|e| (n, e.into()))?;
            out.extend_from_slice(&last_row);
        }
    }
    Ok(out)
}

fn nibble(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

/// Decodes hex digits, ignoring ASCII white space.
fn decode_digits(text: &[u8]) -> Result<Vec<u8>, DigitError> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    for (offset, &byte) in text.iter().enumerate() {
        if byte.is_ascii_whitespace() {
            continue;
        }
        let n = nibble(byte).ok_or(DigitError::NotADigit { offset, byte })?;
        match high.take() {
            None => high = Some(n),
            Some(h) => out.push(h << 4 | n),
        }
    }
    if high.is_some() {
        return Err(DigitError::Odd);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::format;
    use alloc::vec;

    const BYTES: [u8; 20] = [
        0x09, 0, 0, 0, 0, 0, 0, 0, 0xd3, 0x0b, 0xd0, 0x0b, 0xb8, 0x03, 0, 0, b'A', b'z', 0xff, 0x10,
    ];

    #[test]
    fn hex_plain_with_and_without_0x() {
        let hex = encode(&BYTES);
        assert_eq!(decode(&hex).unwrap(), BYTES);
        assert_eq!(decode(&format!("0x{hex}\n")).unwrap(), BYTES);
        assert_eq!(decode(&xxd_plain(&BYTES)).unwrap(), BYTES);
        assert_eq!(form(&hex), Some(HexForm::Plain));
    }

    #[test]
    fn hex_xxd_form() {
        // As `xxd` prints these 20 bytes.
        let text = "00000000: 0900 0000 0000 0000 d30b d00b b803 0000  ................\n\
                    00000010: 417a ff10                                Az..\n";
        assert_eq!(form(text), Some(HexForm::Xxd));
        assert_eq!(decode(text).unwrap(), BYTES);
    }

    #[test]
    fn hex_hexdump_c_form() {
        // As `hexdump -C` prints these 20 bytes.
        let text = "00000000  09 00 00 00 00 00 00 00  d3 0b d0 0b b8 03 00 00  |................|\n\
                    00000010  41 7a ff 10                                       |Az..|\n\
                    00000014\n";
        assert_eq!(form(text), Some(HexForm::HexdumpC));
        assert_eq!(decode(text).unwrap(), BYTES);
    }

    #[test]
    fn hex_repeated_rows_and_wrong_offsets() {
        // hexdump -C of 40 zero bytes then "AB": the second zero row is left out as `*`.
        let text = "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n\
                    *\n\
                    00000020  00 00 00 00 00 00 00 00  41 42                    |........AB|\n\
                    0000002a\n";
        let mut want = vec![0u8; 40];
        want.extend_from_slice(b"AB");
        assert_eq!(decode(text).unwrap(), want);
        let gap = "00000000: 0900 0000\n00000010: 0000 0000\n";
        assert_eq!(
            decode_form(gap, HexForm::Xxd),
            Err(HexError::Line {
                form: HexForm::Xxd,
                line: 2,
                error: LineError::OffsetMismatch {
                    offset: 0x10,
                    held: 4
                },
            })
        );
    }

    #[test]
    fn hex_binary_is_not_hex() {
        assert_eq!(form(&BYTES), None);
        assert_eq!(form("hello world"), None);
        assert_eq!(form("0x"), None);
        assert_eq!(
            decode(&BYTES),
            Err(HexError::NotText { offset: 1, byte: 0 })
        );
        assert_eq!(
            decode_form(&[b'0', 0xff], HexForm::Plain),
            Err(HexError::NotText {
                offset: 1,
                byte: 0xff
            })
        );
        assert_eq!(decode(" \n"), Err(HexError::Empty));
        assert_eq!(decode("0x"), Err(HexError::NoDigits));
    }

    #[test]
    fn hex_offsets_are_bounded() {
        let past = format!("{:08x}: 00\n", MAX_DECODED + 1);
        assert_eq!(
            decode_form(&past, HexForm::Xxd),
            Err(HexError::Line {
                form: HexForm::Xxd,
                line: 1,
                error: LineError::OffsetOutOfRange {
                    offset: format!("{:08x}", MAX_DECODED + 1)
                },
            })
        );
        // A `*` may fill up to the bound, not past it.
        let big = format!("00000000  00  |.|\n*\n{:08x}\n", MAX_DECODED + 1);
        assert!(matches!(
            decode(&big),
            Err(HexError::Line {
                error: LineError::OffsetOutOfRange { .. },
                ..
            })
        ));
    }
}
