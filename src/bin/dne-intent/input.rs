//! Reading input (a file or standard input; binary or hex text) and writing output.

use crate::CliError;
use std::io::{Read, Write};

/// The largest input read: well above the largest message (32 buffers of 1 MiB) in hex.
const MAX_INPUT: u64 = 80 << 20;

/// Reads all of `path`, or standard input when `path` is `None` or `-`.
pub fn read_input(path: Option<&str>) -> Result<Vec<u8>, CliError> {
    let mut buf = Vec::new();
    let (what, res) = match path {
        None | Some("-") => (
            "standard input".to_string(),
            std::io::stdin()
                .lock()
                .take(MAX_INPUT + 1)
                .read_to_end(&mut buf),
        ),
        Some(p) => (
            p.to_string(),
            std::fs::File::open(p).and_then(|f| f.take(MAX_INPUT + 1).read_to_end(&mut buf)),
        ),
    };
    res.map_err(|e| CliError::Invalid(format!("cannot read {what}: {e}")))?;
    if buf.len() as u64 > MAX_INPUT {
        return Err(CliError::Invalid(format!(
            "{what} is larger than {MAX_INPUT} bytes"
        )));
    }
    Ok(buf)
}

/// True when `text` is hex text: only hex digits and whitespace, at least one digit.
pub fn looks_hex(text: &[u8]) -> bool {
    text.iter().any(u8::is_ascii_hexdigit)
        && text
            .iter()
            .all(|b| b.is_ascii_hexdigit() || b.is_ascii_whitespace())
}

/// The message bytes of an input: itself, or the bytes its hex text stands for.
pub fn message_bytes(raw: Vec<u8>) -> Result<Vec<u8>, CliError> {
    if raw.is_empty() {
        return Err(CliError::Invalid("empty input".into()));
    }
    if looks_hex(&raw) {
        decode_hex(&raw).map_err(CliError::Invalid)
    } else {
        Ok(raw)
    }
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

/// Writes `bytes` to standard output and flushes.
pub fn write_stdout(bytes: &[u8]) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes)
        .and_then(|()| out.flush())
        .map_err(|e| CliError::Invalid(format!("cannot write standard output: {e}")))
}
