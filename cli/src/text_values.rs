//! How one value is written in the text form: flag and enumeration names beside the raw
//! value, errno names, modes in octal with their file type, NUL-padded text.

use lustre_dne_intent::errno::ErrnoName;
use lustre_dne_intent::mode;

/// A bit set by name with its raw value: `HAS_INTENT (0x1000)`, or `0`.
pub(super) fn flags(named: impl std::fmt::Display, raw: u64) -> String {
    if raw == 0 {
        "0".into()
    } else {
        format!("{named} ({raw:#x})")
    }
}

/// An enumeration by name with its raw value: `LCK_PW (2)`.
pub(super) fn named(named: impl std::fmt::Display, raw: u64) -> String {
    format!("{named} ({raw})")
}

/// `-17 (EEXIST)`, or `0`.
pub(super) fn status(s: i32) -> String {
    match s {
        0 => "0".into(),
        s if s < 0 => format!("{s} ({})", ErrnoName::of_status(s)),
        s => format!("{s} (positive: not an errno)"),
    }
}

/// `rwxr-xr-x` with set-id and sticky bits, after the `ls -l` type letter.
pub(super) fn ls_mode(m: u32) -> String {
    let mut s = String::with_capacity(10);
    s.push(mode::type_char(m));
    let bit = |b: u32, c: char| if m & b != 0 { c } else { '-' };
    let special = |x: u32, sp: u32, on: char, off: char| match (m & x != 0, m & sp != 0) {
        (true, true) => on,
        (false, true) => off,
        (true, false) => 'x',
        (false, false) => '-',
    };
    s.push(bit(0o400, 'r'));
    s.push(bit(0o200, 'w'));
    s.push(special(0o100, mode::S_ISUID, 's', 'S'));
    s.push(bit(0o040, 'r'));
    s.push(bit(0o020, 'w'));
    s.push(special(0o010, mode::S_ISGID, 's', 'S'));
    s.push(bit(0o004, 'r'));
    s.push(bit(0o002, 'w'));
    s.push(special(0o001, mode::S_ISVTX, 't', 'T'));
    s
}

/// A file mode in octal with its type: `040755 (S_IFDIR, drwxr-xr-x)`; `0` alone.
pub fn file_mode(m: u32) -> String {
    if m == 0 {
        return "0".into();
    }
    let ty = match mode::type_name(m) {
        Some(n) => n.to_string(),
        None if m & mode::S_IFMT == 0 => "no file type".into(),
        None => format!("unknown file type {:o}", m & mode::S_IFMT),
    };
    format!("0{m:o} ({ty}, {})", ls_mode(m))
}

pub(super) fn quoted(bytes: &[u8]) -> String {
    format!("\"{}\"", bytes.escape_ascii())
}

/// The names of the bits set in `raw`, and any bit without a name in hex: `A|B|0x40`.
pub(super) fn bit_names(names: &[(&str, u64)], raw: u64) -> String {
    let mut rest = raw;
    let mut out: Vec<String> = Vec::new();
    for &(n, v) in names {
        if v != 0 && raw & v == v {
            out.push(n.to_string());
            rest &= !v;
        }
    }
    if rest != 0 {
        out.push(format!("{rest:#x}"));
    }
    out.join("|")
}

/// A NUL-padded text member: `"mkdir.500"`, and what follows the NUL when it is not zeros.
pub(super) fn text_value(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let (text, pad) = bytes.split_at(end);
    if pad.iter().all(|&b| b == 0) {
        quoted(text)
    } else {
        format!("{} (bytes after the NUL: {})", quoted(text), quoted(pad))
    }
}

/// A mode: with its file type when it has one (`040755 (S_IFDIR, drwxr-xr-x)`), else
/// permission bits (`0022`).
pub(super) fn octal(m: u32) -> String {
    if m & mode::S_IFMT != 0 {
        file_mode(m)
    } else {
        format!("{m:04o}")
    }
}
