//! Where bytes come from (a file or standard input; binary or one of the usual hex dumps) and
//! where they go (standard output, quietly ending on a closed pipe, never binary to a terminal
//! unless forced).

use crate::common::CliError;
use lustre_dne_intent::hex::{self, HexError};
use std::fmt::Display;
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;

/// The largest input read: well above the largest message (about 1 MB) as hex text.
const MAX_INPUT: u64 = 80 << 20;
// The library bounds a dump's offsets (hence what `*` lines may repeat) at the same size.
const _: () = assert!(MAX_INPUT == hex::MAX_DECODED as u64);

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
        match hex::decode(&raw) {
            // Neither hex nor printable text: the message's own bytes.
            Err(HexError::NotText { .. }) => Ok(raw),
            decoded => decoded.map_err(|e| self.error(e)),
        }
    }
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
