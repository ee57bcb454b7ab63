//! `vectors`, `conform` and the hidden `conform-testee`: the conformance kit's commands
//! (docs/conformance.md). The logic lives in `lustre_dne_intent::conformance`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lustre_dne_intent::conformance::{cvectors, json, runner, testee, vectors};

use crate::CliError;
use crate::input::Output;

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    std::fs::write(path, bytes).map_err(|e| CliError::Invalid(format!("{}: {e}", path.display())))
}

/// `dne-intent vectors --out DIR [--seed N]`.
pub fn cmd_vectors(out_dir: &Path, seed: u64, out: &mut Output) -> Result<(), CliError> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| CliError::Invalid(format!("{}: {e}", out_dir.display())))?;
    let cases = vectors(seed);
    let json_path = out_dir.join(json::FILE_NAME);
    let header_path = out_dir.join(cvectors::FILE_NAME);
    write_file(&json_path, json::vectors_text(seed, &cases).as_bytes())?;
    write_file(&header_path, cvectors::c_vectors(seed, &cases).as_bytes())?;
    let msg = format!(
        "{} cases: {}, {}\n",
        cases.len(),
        json_path.display(),
        header_path.display()
    );
    out.write(msg.as_bytes())
}

/// The options of `conform`, as parsed.
pub struct ConformArgs {
    pub seed: u64,
    pub count: usize,
    pub timeout_ms: u64,
    pub failure_list: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub command: Vec<OsString>,
}

/// `dne-intent conform [...] -- CMD [ARGS...]`.
pub fn cmd_conform(a: ConformArgs, out: &mut Output) -> Result<(), CliError> {
    let failure_list = match &a.failure_list {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))?;
            runner::parse_failure_list(&text)
                .map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))?
        }
        None => Default::default(),
    };
    let opts = runner::Options {
        seed: a.seed,
        count: a.count,
        timeout: Duration::from_millis(a.timeout_ms),
        failure_list,
        command: a.command,
    };
    let report = runner::run(&opts).map_err(|e| {
        CliError::Usage(format!(
            "cannot start the testee {:?}: {e}",
            opts.command
                .first()
                .map(|c| c.to_string_lossy().into_owned())
                .unwrap_or_default()
        ))
    })?;
    if let Some(p) = &a.junit {
        write_file(p, report.junit().as_bytes())?;
    }
    let mut text = Vec::new();
    report
        .write_text(&mut text)
        .map_err(|e| CliError::Invalid(e.to_string()))?;
    out.write(&text)?;
    let bad = report.unexpected_failures();
    if bad.is_empty() {
        Ok(())
    } else {
        Err(CliError::Invalid(format!(
            "{} unexpected failures: {}",
            bad.len(),
            bad.iter().map(u64::to_string).collect::<Vec<_>>().join(" ")
        )))
    }
}

/// The testee's faults, for the runner's own tests.
pub struct TesteeArgs {
    pub lie: Vec<u64>,
    pub die_at: Option<u64>,
    pub hang_at: Option<u64>,
    pub garbage_at: Option<u64>,
    pub wrong_id_at: Option<u64>,
}

/// `dne-intent conform-testee`: answers the protocol on stdin/stdout with the crate.
pub fn cmd_testee(a: TesteeArgs) -> Result<(), CliError> {
    let faults = testee::Faults {
        lie: a.lie,
        die: a.die_at,
        hang: a.hang_at,
        garbage: a.garbage_at,
        wrong_id: a.wrong_id_at,
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    testee::serve(&mut stdin.lock(), &mut stdout.lock(), &faults)
        .map_err(|e| CliError::Invalid(e.to_string()))
}
