//! `vectors`, `conform` and the hidden `conform-testee`: the conformance kit's commands
//! (docs/conformance.md). The logic lives in `lustre_dne_intent_conformance`.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lustre_dne_intent_conformance::{Case, cvectors, json, runner, testee, vectors};

use crate::common::CliError;
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
    pub only: Option<u64>,
    pub dump: Option<u64>,
    pub dump_to: Option<PathBuf>,
    pub command: Vec<OsString>,
}

/// `conform --dump ID [--dump-to DIR]`: the case as text, and its files when asked.
fn dump_case(c: &Case, dir: Option<&Path>, out: &mut Output) -> Result<(), CliError> {
    let mut text = runner::dump_text(c);
    if let Some(dir) = dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::Invalid(format!("{}: {e}", dir.display())))?;
        let frame = runner::dump_frame(c).map_err(CliError::invalid)?;
        let mut files = vec![(format!("case-{}.bin", c.id), c.bytes.clone())];
        if let Some(r) = &c.request {
            files.push((format!("case-{}.request.bin", c.id), r.clone()));
        }
        files.push((format!("case-{}.frame", c.id), frame));
        for (name, bytes) in files {
            let p = dir.join(name);
            write_file(&p, &bytes)?;
            text.push_str(&format!("wrote {}\n", p.display()));
        }
    }
    out.write(text.as_bytes())
}

/// `dne-intent conform [...] -- CMD [ARGS...]`.
pub fn cmd_conform(a: ConformArgs, out: &mut Output) -> Result<(), CliError> {
    if let Some(id) = a.dump {
        let c = runner::session_case(a.seed, a.count, id).map_err(CliError::Usage)?;
        return dump_case(&c, a.dump_to.as_deref(), out);
    }
    let cases = runner::session_cases(a.seed, a.count);
    let failure_list = match &a.failure_list {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))?;
            let list = runner::parse_failure_list(&text)
                .map_err(|e| CliError::Usage(format!("{}: {e}", p.display())))?;
            let unknown = runner::unknown_ids(&list, &cases);
            if !unknown.is_empty() {
                return Err(CliError::Usage(format!(
                    "{}: no such case: {} (this session, seed {} and --count {}, has {})",
                    p.display(),
                    unknown
                        .iter()
                        .map(u64::to_string)
                        .collect::<Vec<_>>()
                        .join(", "),
                    a.seed,
                    a.count,
                    runner::id_range(&cases)
                )));
            }
            list
        }
        None => Default::default(),
    };
    let cases = match a.only {
        Some(id) => vec![
            runner::find_case(&cases, id)
                .map_err(CliError::Usage)?
                .clone(),
        ],
        None => cases,
    };
    let opts = runner::Options {
        seed: a.seed,
        count: a.count,
        timeout: Duration::from_millis(a.timeout_ms),
        failure_list,
        command: a.command,
    };
    let report = runner::run_cases(&opts, &cases).map_err(|e| {
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
    pub print_at: Option<u64>,
    pub last_rule: bool,
}

/// `dne-intent conform-testee`: answers the protocol on stdin/stdout with the crate.
pub fn cmd_testee(a: TesteeArgs) -> Result<(), CliError> {
    let faults = testee::Faults {
        lie: a.lie,
        die: a.die_at,
        hang: a.hang_at,
        garbage: a.garbage_at,
        wrong_id: a.wrong_id_at,
        print: a.print_at,
        last_rule: a.last_rule,
    };
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    testee::serve(&mut stdin.lock(), &mut stdout.lock(), &faults)
        .map_err(|e| CliError::Invalid(e.to_string()))
}
