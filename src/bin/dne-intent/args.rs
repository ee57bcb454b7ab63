//! A small hand-written argument parser shared by the subcommands.
//!
//! Accepts boolean flags (`--json`), flags with a value (`--order be` or `--order=be`),
//! positional arguments (`-` is positional: standard input), and `--` to end the options.

use crate::CliError;

/// True when `--help` or `-h` appears before any `--`.
pub fn wants_help(argv: &[String]) -> bool {
    argv.iter()
        .take_while(|a| a.as_str() != "--")
        .any(|a| a == "--help" || a == "-h")
}

/// The parsed arguments of one subcommand.
#[derive(Debug, Default)]
pub struct Args {
    flags: Vec<String>,
    values: Vec<(String, String)>,
    positionals: Vec<String>,
}

impl Args {
    /// Parses `argv` knowing the boolean `flags`, the flags that take a value (`valued`) and
    /// the most positional arguments allowed. Anything else is a usage error.
    pub fn parse(
        argv: &[String],
        flags: &[&str],
        valued: &[&str],
        max_positionals: usize,
    ) -> Result<Self, CliError> {
        let mut out = Args::default();
        let mut it = argv.iter();
        let mut options_done = false;
        while let Some(arg) = it.next() {
            if options_done || arg == "-" || !arg.starts_with('-') {
                out.positionals.push(arg.clone());
                continue;
            }
            if arg == "--" {
                options_done = true;
                continue;
            }
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (arg.as_str(), None),
            };
            if flags.contains(&name) {
                if inline.is_some() {
                    return Err(CliError::Usage(format!("{name} takes no value")));
                }
                if !out.flags.iter().any(|f| f == name) {
                    out.flags.push(name.to_string());
                }
            } else if valued.contains(&name) {
                let value = match inline {
                    Some(v) => v.to_string(),
                    None => it
                        .next()
                        .cloned()
                        .ok_or_else(|| CliError::Usage(format!("{name} needs a value")))?,
                };
                out.values.push((name.to_string(), value));
            } else {
                return Err(CliError::Usage(format!(
                    "unknown option `{}`",
                    arg.escape_debug()
                )));
            }
        }
        if out.positionals.len() > max_positionals {
            return Err(CliError::Usage(format!(
                "expected at most {max_positionals} argument(s), got {}",
                out.positionals.len()
            )));
        }
        Ok(out)
    }

    /// True when the boolean flag `name` was given.
    pub fn flag(&self, name: &str) -> bool {
        self.flags.iter().any(|f| f == name)
    }

    /// The value of flag `name`, when given (the last one wins).
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a repeatable flag `name`, in order.
    pub fn values_of<'s>(&'s self, name: &'s str) -> impl Iterator<Item = &'s str> + 's {
        self.values
            .iter()
            .filter(move |(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Positional argument `i`, when given.
    pub fn positional(&self, i: usize) -> Option<&str> {
        self.positionals.get(i).map(String::as_str)
    }
}
