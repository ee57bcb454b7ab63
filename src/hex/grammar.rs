//! The grammars of the hex forms, one nom parser each, and the fold that adds a dump's lines
//! up. Every parser fails with no error value: where a parse stops is what its caller reports
//! (the parent module's docs, "How it is read").

use super::{DigitError, HexForm, LineError, MAX_DECODED, MAX_OFFSET_DIGITS};
use alloc::vec::Vec;
use nom::branch::alt;
use nom::bytes::complete::{tag, take_till, take_until, take_while, take_while_m_n};
use nom::character::complete::{anychar, char};
use nom::combinator::{all_consuming, map_opt, opt, rest, value};
use nom::multi::fold_many0;
use nom::sequence::{delimited, preceded, terminated};
use nom::{IResult, Parser};

/// A nom parser's result over text, failing with no error value.
type Parsed<'a, T> = IResult<&'a str, T, ()>;

pub(super) fn is_digit_or_blank(c: char) -> bool {
    c.is_ascii_hexdigit() || c.is_ascii_whitespace()
}

/// White space as `str::trim` sees it (Unicode), around a line or before the plain form.
fn blank(s: &str) -> Parsed<'_, &str> {
    take_while(char::is_whitespace).parse(s)
}

/// ASCII white space, which may stand anywhere among hex digits.
fn ascii_blank(s: &str) -> Parsed<'_, &str> {
    take_while(|c: char| c.is_ascii_whitespace()).parse(s)
}

/// One hex digit, either case: its value.
fn nibble(s: &str) -> Parsed<'_, u8> {
    map_opt(anychar, |c| {
        c.to_digit(16).and_then(|d| u8::try_from(d).ok())
    })
    .parse(s)
}

/// The plain form's prefix: white space, then at most one `0x` or `0X` (getfattr's value).
pub(super) fn plain_prefix(s: &str) -> Parsed<'_, ()> {
    value((), (blank, opt(alt((tag("0x"), tag("0X")))))).parse(s)
}

/// The digits of the plain form: all of `s` past its prefix.
pub(super) fn plain_body(s: &str) -> &str {
    preceded(plain_prefix, rest)
        .parse(s)
        .map_or(s, |(_, body): (&str, &str)| body)
}

/// Plain hex text: the prefix, then at least one hex digit among ASCII white space (an odd
/// count too: that is the form, and decoding says what is wrong with it).
pub(super) fn plain_text(s: &str) -> Parsed<'_, ()> {
    let digit = |s| nibble(s).map(|(left, _)| (left, ()));
    value(
        (),
        (
            plain_prefix,
            ascii_blank,
            digit,
            take_while(is_digit_or_blank),
        ),
    )
    .parse(s)
}

/// Hex digits two to a byte, ASCII white space anywhere among them, up to the first character
/// that is neither; with the last digit when it has no pair.
fn hex_run(s: &str) -> Parsed<'_, (Vec<u8>, Option<u8>)> {
    let start = || (Vec::with_capacity(s.len() / 2), None);
    let pair = |(mut out, high): (Vec<u8>, Option<u8>), n: u8| match high {
        None => (out, Some(n)),
        Some(h) => {
            out.push(h << 4 | n);
            (out, None)
        }
    };
    terminated(
        fold_many0(preceded(ascii_blank, nibble), start, pair),
        ascii_blank,
    )
    .parse(s)
}

/// Decodes a run of hex digits: the plain form's body, or a dump row's byte columns. Offsets
/// in the error count from the start of `s`.
pub(super) fn decode_digits(s: &str) -> Result<Vec<u8>, DigitError> {
    // `hex_run` stops rather than fails; were it to fail, the error is at the start.
    let (left, (out, high)) = hex_run(s).unwrap_or((s, (Vec::new(), None)));
    match (left.as_bytes().first(), high) {
        (None, None) => Ok(out),
        (None, Some(_)) => Err(DigitError::Odd),
        (Some(&byte), _) => Err(DigitError::NotADigit {
            offset: s.len() - left.len(),
            byte,
        }),
    }
}

/// One line of an `xxd` or `hexdump -C` dump.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DumpLine<'a> {
    /// Empty, or white space only.
    Blank,
    /// `*`: rows that repeat the one before it, left out.
    Repeat,
    /// An offset alone: `hexdump -C`'s closing line, the total length.
    End(&'a str),
    /// An offset, as written, and the byte columns (without the ASCII column).
    Row { offset: &'a str, columns: &'a str },
}

/// The offset column: 1 to [`MAX_OFFSET_DIGITS`] hex digits.
fn offset(s: &str) -> Parsed<'_, &str> {
    take_while_m_n(1, MAX_OFFSET_DIGITS, |c: char| c.is_ascii_hexdigit()).parse(s)
}

/// A line that is an offset alone, white space around it (`hexdump -C`'s closing line).
pub(super) fn end_line(s: &str) -> Parsed<'_, &str> {
    all_consuming(delimited(blank, offset, blank)).parse(s)
}

/// A row of `form` from the line's first column: the offset, the form's separator (`": "` or
/// two spaces), and the byte columns, which end where the ASCII column starts (two spaces in
/// `xxd`, `|` in `hexdump -C`) or with the line.
pub(super) fn row(form: HexForm, s: &str) -> Parsed<'_, DumpLine<'_>> {
    let columns = |s| match form {
        HexForm::Xxd => alt((take_until("  "), rest)).parse(s),
        _ => take_till(|c| c == '|').parse(s),
    };
    (
        terminated(offset, tag(form.separator().unwrap_or(""))),
        columns,
    )
        .map(|(offset, columns)| DumpLine::Row { offset, columns })
        .parse(s)
}

/// What `line` is in a dump of `form`, tried in this order: blank, `*`, an offset alone, a
/// row; `None` when it is none of them.
pub(super) fn dump_line(form: HexForm, line: &str) -> Option<DumpLine<'_>> {
    alt((
        value(DumpLine::Blank, all_consuming(blank)),
        value(
            DumpLine::Repeat,
            all_consuming(delimited(blank, char('*'), blank)),
        ),
        |s| end_line(s).map(|(left, o)| (left, DumpLine::End(o))),
        |s| row(form, s),
    ))
    .parse(line)
    .ok()
    .map(|(_, l)| l)
}

/// Decodes `xxd` or `hexdump -C` lines; an error names its line (from 1).
pub(super) fn decode_dump(s: &str, form: HexForm) -> Result<Vec<u8>, (usize, LineError)> {
    let mut dump = Dump::default();
    for (n, line) in s.lines().enumerate() {
        let line_of = |error| (n + 1, error);
        let separator = form.separator().unwrap_or("");
        let parsed = dump_line(form, line).ok_or(line_of(LineError::NoOffset { separator }))?;
        dump.add(parsed).map_err(line_of)?;
    }
    Ok(dump.out)
}

/// A dump's bytes as its lines add up: each line's offset must continue the bytes so far; a
/// `*` line repeats the previous row up to the next line's offset, and hexdump's closing line,
/// an offset alone, gives the total length.
#[derive(Default)]
struct Dump {
    out: Vec<u8>,
    last_row: Vec<u8>,
    repeat: bool,
}

impl Dump {
    fn add(&mut self, line: DumpLine<'_>) -> Result<(), LineError> {
        let (offset, columns) = match line {
            DumpLine::Blank => return Ok(()),
            DumpLine::Repeat => {
                self.repeat = true;
                return Ok(());
            }
            DumpLine::End(offset) => (offset, None),
            DumpLine::Row { offset, columns } => (offset, Some(columns)),
        };
        let at = u64::from_str_radix(offset, 16)
            .ok()
            .and_then(|o| usize::try_from(o).ok())
            .filter(|&o| o <= MAX_DECODED)
            .ok_or_else(|| LineError::OffsetOutOfRange {
                offset: offset.into(),
            })?;
        if self.repeat {
            if self.last_row.is_empty() {
                return Err(LineError::RepeatWithoutRow);
            }
            let missing = at.saturating_sub(self.out.len());
            self.out.extend(self.last_row.iter().cycle().take(missing));
            self.repeat = false;
        }
        if at != self.out.len() {
            return Err(LineError::OffsetMismatch {
                offset: at,
                held: self.out.len(),
            });
        }
        if let Some(columns) = columns {
            self.last_row = decode_digits(columns)?;
            self.out.extend_from_slice(&self.last_row);
        }
        Ok(())
    }
}
