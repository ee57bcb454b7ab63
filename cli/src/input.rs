//! Where bytes come from (a file or standard input; binary or one of the usual hex dumps) and
//! where they go (standard output, quietly ending on a closed pipe, never binary to a terminal
//! unless forced).

use crate::CliError;
use std::fmt::Display;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

/// The largest input read: well above the largest message (about 1 MB) as hex text.
const MAX_INPUT: u64 = 80 << 20;

/// An input argument: a file, or `-` for standard input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    /// Standard input.
    Stdin,
    /// A file.
    File(PathBuf),
}

impl From<&str> for Input {
    fn from(s: &str) -> Self {
        if s == "-" {
            Input::Stdin
        } else {
            Input::File(s.into())
        }
    }
}

impl Display for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Input::Stdin => f.write_str("standard input"),
            Input::File(p) => write!(f, "{}", p.display()),
        }
    }
}

impl Input {
    /// True for `-`.
    pub fn is_stdin(&self) -> bool {
        *self == Input::Stdin
    }

    /// An invalid-input error about this input: `FILE: message`.
    pub fn error(&self, msg: impl Display) -> CliError {
        CliError::Invalid(format!("{self}: {msg}"))
    }

    /// All of the input's bytes (at most [`MAX_INPUT`]).
    pub fn read(&self) -> Result<Vec<u8>, CliError> {
        let mut buf = Vec::new();
        let res = match self {
            Input::Stdin => std::io::stdin()
                .lock()
                .take(MAX_INPUT + 1)
                .read_to_end(&mut buf),
            Input::File(p) => {
                std::fs::File::open(p).and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut buf))
            }
        };
        res.map_err(|e| self.error(format_args!("cannot read: {e}")))?;
        if buf.len() as u64 > MAX_INPUT {
            return Err(self.error(format_args!("larger than {MAX_INPUT} bytes")));
        }
        Ok(buf)
    }

    /// The bytes the input stands for: itself, or what its hex text encodes.
    ///
    /// Text that is in none of the hex forms is refused with the place that breaks the plain
    /// form, rather than decoded as the bytes of its characters: a message always holds bytes
    /// that are not printable text (`lm_bufcount`'s high bytes are zero), so such an input is
    /// a damaged hex dump, not a message.
    pub fn message_bytes(&self) -> Result<Vec<u8>, CliError> {
        let raw = self.read()?;
        if raw.iter().all(u8::is_ascii_whitespace) {
            return Err(self.error("empty input"));
        }
        match hex_form(&raw) {
            Some(form) => decode_hex_form(&raw, form).map_err(|e| self.error(e)),
            None if is_text(&raw) => Err(self.error(not_hex(&raw))),
            None => Ok(raw),
        }
    }
}

/// Printable ASCII and white space only.
fn is_text(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .all(|&b| b.is_ascii_graphic() || b.is_ascii_whitespace())
}

/// Why `text`, printable, is none of the hex forms, by line: a dump whose first line starts as
/// `xxd` or `hexdump -C` lines do is read as one, to name its first broken line; anything else
/// is named by its first character that is neither a hex digit nor white space (after one
/// leading `0x`).
fn not_hex(text: &[u8]) -> String {
    let s = String::from_utf8_lossy(text);
    let first = s.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    for (form, sep, name) in [
        (HexForm::Xxd, ": ", "xxd"),
        (HexForm::HexdumpC, "  ", "hexdump -C"),
    ] {
        if offset_then(first, sep).is_some()
            && let Err(e) = decode_offset_lines(&s, form)
        {
            return format!("text that starts as {name} output, but {e}");
        }
    }
    let skip = plain_start(&s);
    let bad = s
        .char_indices()
        .find(|&(i, c)| i >= skip && !c.is_ascii_hexdigit() && !c.is_ascii_whitespace());
    let place = match bad {
        Some((i, c)) => {
            let line = s[..i].matches('\n').count() + 1;
            let column = i - s[..i].rfind('\n').map_or(0, |n| n + 1) + 1;
            format!("line {line}, column {column} has {c:?}, not a hex digit")
        }
        None => "no hex digit after the `0x`".into(),
    };
    format!(
        "text, but not hex in a form this tool reads (xxd -p, xxd, hexdump -C, or one leading \
         0x): {place}"
    )
}

/// The hex text forms recognised as input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HexForm {
    /// Hex digits and white space (`xxd -p`), optionally one leading `0x` (getfattr's value).
    Plain,
    /// `xxd`: `00000010: 0bd0 0bd3 ...  ascii` lines.
    Xxd,
    /// `hexdump -C`: `00000010  d0 0b d3 0b ...  |ascii|` lines.
    HexdumpC,
}

/// Where the digits of the plain form start in `s`: past leading white space and one `0x`.
fn plain_start(s: &str) -> usize {
    let start = s.len() - s.trim_start().len();
    match s[start..].get(..2) {
        Some("0x" | "0X") => start + 2,
        _ => start,
    }
}

/// Which hex form `text` is in, or `None` when it is not hex text (raw bytes).
pub fn hex_form(text: &[u8]) -> Option<HexForm> {
    let s = std::str::from_utf8(text).ok()?;
    let body = &s[plain_start(s)..];
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
    lines.peek()?;
    let first = *lines.peek()?;
    if offset_then(first, ": ").is_some() && lines.clone().all(|l| offset_then(l, ": ").is_some()) {
        return Some(HexForm::Xxd);
    }
    // hexdump -C ends with a line holding only the total length.
    if offset_then(first, "  ").is_some()
        && lines.all(|l| offset_then(l, "  ").is_some() || is_offset(l.trim()))
    {
        return Some(HexForm::HexdumpC);
    }
    None
}

fn is_offset(s: &str) -> bool {
    !s.is_empty() && s.len() <= 16 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The rest of `line` after a hex offset and `sep`, when the line starts that way.
fn offset_then<'l>(line: &'l str, sep: &str) -> Option<&'l str> {
    let end = line.find(|c: char| !c.is_ascii_hexdigit())?;
    if end == 0 || end > 16 {
        return None;
    }
    line[end..].strip_prefix(sep)
}

/// Decodes `text`, already recognised as `form`.
pub fn decode_hex_form(text: &[u8], form: HexForm) -> Result<Vec<u8>, String> {
    let s = std::str::from_utf8(text).map_err(|e| e.to_string())?;
    match form {
        HexForm::Plain => decode_hex(&text[plain_start(s)..]),
        HexForm::Xxd | HexForm::HexdumpC => decode_offset_lines(s, form),
    }
}

/// Decodes `xxd` or `hexdump -C` lines. Each line's offset must continue the bytes so far; a
/// `*` line (repeated rows left out) repeats the previous row up to the next line's offset, and
/// hexdump's closing line, an offset alone, gives the total length.
fn decode_offset_lines(s: &str, form: HexForm) -> Result<Vec<u8>, String> {
    let sep = if form == HexForm::Xxd { ": " } else { "  " };
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
            let rest = offset_then(line, sep)
                .ok_or_else(|| format!("line {n}: expected a hex offset and {sep:?}"))?;
            // The byte columns end where the ASCII column starts: two spaces (xxd) or `|`.
            let cols = match form {
                HexForm::Xxd => rest.split("  ").next().unwrap_or(""),
                _ => rest.split('|').next().unwrap_or(""),
            };
            (&line[..line.len() - rest.len() - sep.len()], Some(cols))
        };
        let offset = usize::from_str_radix(offset, 16)
            .ok()
            .filter(|&o| o as u64 <= MAX_INPUT)
            .ok_or_else(|| format!("line {n}: offset {offset} is out of range"))?;
        if repeat {
            if last_row.is_empty() {
                return Err(format!("line {n}: `*` with no row before it"));
            }
            while out.len() < offset {
                let take = last_row.len().min(offset - out.len());
                out.extend_from_slice(&last_row[..take]);
            }
            repeat = false;
        }
        if offset != out.len() {
            return Err(format!(
                "line {n}: offset {offset:#x}, but the lines before it hold {:#x} bytes",
                out.len()
            ));
        }
        if let Some(cols) = cols {
            last_row = decode_hex(cols.as_bytes()).map_err(|e| format!("line {n}: {e}"))?;
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

/// Decodes hex text, ignoring ASCII whitespace.
pub fn decode_hex(text: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(text.len() / 2);
    let mut high: Option<u8> = None;
    for (i, &b) in text.iter().enumerate() {
        if b.is_ascii_whitespace() {
            continue;
        }
        let Some(n) = nibble(b) else {
            return Err(format!(
                "hex text has {:?} at byte {i}, expected a hex digit",
                char::from(b)
            ));
        };
        match high.take() {
            None => high = Some(n),
            Some(h) => out.push(h << 4 | n),
        }
    }
    if high.is_some() {
        return Err("hex text has an odd number of digits".into());
    }
    Ok(out)
}

/// Lowercase hex, no separators.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 * bytes.len());
    for &b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    s
}

/// `xxd -p` style: 30 bytes (60 digits) a line, each line ending in a newline.
pub fn xxd_plain(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2 + bytes.len() / 30 + 1);
    for chunk in bytes.chunks(30) {
        s.push_str(&to_hex(chunk));
        s.push('\n');
    }
    s
}

/// Standard output.
pub struct Output {
    terminal: bool,
}

impl Output {
    /// The process's standard output.
    pub fn stdout() -> Self {
        Output {
            terminal: std::io::stdout().is_terminal(),
        }
    }

    /// Writes `bytes` and flushes; a closed pipe becomes [`CliError::BrokenPipe`].
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), CliError> {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|()| out.flush())
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::BrokenPipe => CliError::BrokenPipe,
                _ => CliError::Invalid(format!("cannot write standard output: {e}")),
            })
    }

    /// Writes binary output, refusing a terminal unless `force` (a usage error, exit 2).
    pub fn write_binary(&mut self, bytes: &[u8], force: bool) -> Result<(), CliError> {
        if self.terminal && !force {
            return Err(CliError::Usage(
                "standard output is a terminal: not writing binary to it (redirect it, or give \
                 --hex for hex text or --force to write anyway)"
                    .into(),
            ));
        }
        self.write(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BYTES: [u8; 20] = [
        0x09, 0, 0, 0, 0, 0, 0, 0, 0xd3, 0x0b, 0xd0, 0x0b, 0xb8, 0x03, 0, 0, b'A', b'z', 0xff, 0x10,
    ];

    fn decode(text: &str) -> Option<Vec<u8>> {
        let form = hex_form(text.as_bytes())?;
        decode_hex_form(text.as_bytes(), form).ok()
    }

    #[test]
    fn plain_hex_with_and_without_0x() {
        let hex = to_hex(&BYTES);
        assert_eq!(decode(&hex).unwrap(), BYTES);
        assert_eq!(decode(&format!("0x{hex}\n")).unwrap(), BYTES);
        assert_eq!(decode(&xxd_plain(&BYTES)).unwrap(), BYTES);
    }

    #[test]
    fn xxd_form() {
        // As `xxd` prints these 20 bytes.
        let text = "00000000: 0900 0000 0000 0000 d30b d00b b803 0000  ................\n\
                    00000010: 417a ff10                                Az..\n";
        assert_eq!(hex_form(text.as_bytes()), Some(HexForm::Xxd));
        assert_eq!(decode(text).unwrap(), BYTES);
    }

    #[test]
    fn hexdump_c_form() {
        // As `hexdump -C` prints these 20 bytes.
        let text = "00000000  09 00 00 00 00 00 00 00  d3 0b d0 0b b8 03 00 00  |................|\n\
                    00000010  41 7a ff 10                                       |Az..|\n\
                    00000014\n";
        assert_eq!(hex_form(text.as_bytes()), Some(HexForm::HexdumpC));
        assert_eq!(decode(text).unwrap(), BYTES);
    }

    #[test]
    fn repeated_rows_and_wrong_offsets() {
        // hexdump -C of 40 zero bytes then "AB": the second zero row is left out as `*`.
        let text = "00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n\
                    *\n\
                    00000020  00 00 00 00 00 00 00 00  41 42                    |........AB|\n\
                    0000002a\n";
        let mut want = vec![0u8; 40];
        want.extend_from_slice(b"AB");
        assert_eq!(decode(text).unwrap(), want);
        let gap = "00000000: 0900 0000\n00000010: 0000 0000\n";
        let err = decode_hex_form(gap.as_bytes(), HexForm::Xxd).unwrap_err();
        assert!(err.contains("line 2: offset 0x10"), "{err}");
    }

    #[test]
    fn binary_is_not_hex() {
        assert_eq!(hex_form(&BYTES), None);
        assert_eq!(hex_form(b"hello world"), None);
        assert_eq!(hex_form(b"0x"), None);
    }
}
