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
//! ## How it is read
//! Each grammar is one [nom](https://docs.rs/nom/8) parser: the plain form's prefix and body,
//! a dump line (blank, `*`, an offset alone, or a row of either dump form), and the run of hex
//! digits both share. What nom is not used for, and why:
//! - Splitting into lines is `str::lines`: a lone carriage return stays inside its line, as
//!   white space, where nom's `not_line_ending` fails on one.
//! - Errors: the parsers carry no error value (`()`), since a failure's place is all a caller
//!   needs, and nom has no notion of lines and columns (nom_locate adds one, for a dependency
//!   more). Each caller turns the input left at the failure into its [`HexError`] or
//!   [`LineError`], with the offset, line and column computed from it.
//! - What lines mean together (offsets that continue, `*` repeating the row before up to the
//!   next offset, the bound) is a fold over the parsed lines, not grammar.
//!
//! nom is the crate's parser for text only (feature `text`): the binary decoders are checked
//! hand loops, about ten times cheaper than nom's combinators were there (README,
//! "Dependencies").
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
use grammar::{DumpLine, decode_digits, decode_dump, dump_line, end_line, is_digit_or_blank};
use grammar::{plain_body, plain_prefix, plain_text, row};
use nom::Parser;
use nom::bytes::complete::take_while;
use nom::combinator::all_consuming;
use nom::sequence::preceded;

mod grammar;

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
    if all_consuming(plain_text).parse(s).is_ok() {
        return Some(HexForm::Plain);
    }
    let mut lines = s.lines().filter(|l| {
        !matches!(
            dump_line(HexForm::HexdumpC, l),
            Some(DumpLine::Blank | DumpLine::Repeat)
        )
    });
    let first = lines.next()?;
    let is_row = |form, l| row(form, l).is_ok();
    if is_row(HexForm::Xxd, first) && lines.clone().all(|l| is_row(HexForm::Xxd, l)) {
        return Some(HexForm::Xxd);
    }
    let row_or_end = |l| is_row(HexForm::HexdumpC, l) || end_line(l).is_ok();
    (is_row(HexForm::HexdumpC, first) && lines.all(row_or_end)).then_some(HexForm::HexdumpC)
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
    match form {
        HexForm::Plain => Ok(decode_digits(plain_body(s))?),
        HexForm::Xxd | HexForm::HexdumpC => {
            decode_dump(s, form).map_err(|(line, error)| HexError::Line { form, line, error })
        }
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
/// `hexdump -C` rows do is read as one, to name its first broken line; anything else is named
/// by its first character that is neither a hex digit nor white space (after one leading `0x`).
fn not_hex(s: &str) -> HexError {
    let first = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    for form in [HexForm::Xxd, HexForm::HexdumpC] {
        if row(form, first).is_ok()
            && let Err((line, error)) = decode_dump(s, form)
        {
            return HexError::BrokenDump { form, line, error };
        }
    }
    let left = preceded(plain_prefix, take_while(is_digit_or_blank))
        .parse(s)
        .map_or(s, |(left, _)| left);
    let Some(found) = left.chars().next() else {
        return HexError::NoDigits;
    };
    let before = s.get(..s.len() - left.len()).unwrap_or_default();
    HexError::NotHex {
        line: before.matches('\n').count() + 1,
        column: before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1,
        found,
    }
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
