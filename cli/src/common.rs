//! What the subcommands share, so that they import from here and `main.rs` only wires them:
//! the error that decides the exit status, reading JSON, and the note on a non-canonical input.

/// Why a subcommand failed; decides the exit status.
#[derive(Debug)]
pub enum CliError {
    /// Arguments that parse but do not make sense together: exit status 2.
    Usage(String),
    /// Input that is malformed, breaks a rule, or cannot be read: exit status 1.
    Invalid(String),
    /// Standard output was closed by its reader (`| head`): end quietly, exit status 0.
    BrokenPipe,
}

impl CliError {
    /// An invalid-input error from anything printable.
    pub fn invalid(msg: impl std::fmt::Display) -> Self {
        CliError::Invalid(msg.to_string())
    }
}

/// Notes on standard error when `bytes` are not the canonical form `again` that their JSON
/// encodes to; `at` names the command and the input (`decode: FILE`).
pub fn note_if_reencodes_otherwise(at: &str, bytes: &[u8], again: &[u8]) {
    if again != bytes {
        let first = again
            .iter()
            .zip(bytes)
            .position(|(a, b)| a != b)
            .unwrap_or(again.len().min(bytes.len()));
        eprintln!(
            "dne-intent {at}: note: this JSON re-encodes to the canonical form ({} bytes), not \
             to these {} bytes (they differ from offset {first}; docs/spec/WIRE.md)",
            again.len(),
            bytes.len()
        );
    }
}

/// Reads JSON in the library's serde form, naming the JSON path of what is wrong.
pub fn from_json<T: serde::de::DeserializeOwned>(raw: &[u8]) -> Result<T, String> {
    let mut de = serde_json::Deserializer::from_slice(raw);
    let msg: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            e.into_inner().to_string()
        } else {
            format!("{path}: {}", e.into_inner())
        }
    })?;
    de.end().map_err(|e| e.to_string())?;
    Ok(msg)
}
