//! `dne-intent`: decode, encode and inspect DNE prepare-intent messages and xattr payloads.
//!
//! A thin layer over the `lustre_dne_intent` library: [`Cli`] parses the arguments (clap),
//! each subcommand calls the library, and the result is printed as text or JSON.
//!
//! Exit status: 0 success (also when standard output is a closed pipe), 1 invalid input
//! (malformed bytes, bad JSON, a protocol rule broken, an unreadable file), 2 usage error.
#![forbid(unsafe_code)]

mod args;
mod common;
mod conform_cmds;
mod input;
mod model_cmds;
mod pcap_cmd;
mod pcap_stats;
mod system_cmds;
mod text;

mod xattr;

use args::{Cli, Command};
use clap::{CommandFactory, FromArgMatches};
use common::{CliError, from_json, note_if_reencodes_otherwise};
use input::{Input, Output};
use lustre_dne_intent::intent::{MessageView, WireMessage};
use std::process::ExitCode;

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let name = matches.subcommand_name().unwrap_or_default().to_string();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    match run(cli.command) {
        Ok(()) | Err(CliError::BrokenPipe) => ExitCode::SUCCESS,
        Err(CliError::Usage(msg)) => {
            eprintln!(
                "dne-intent {name}: {msg}\n\nFor more information, try 'dne-intent {name} --help'."
            );
            ExitCode::from(2)
        }
        Err(CliError::Invalid(msg)) => {
            eprintln!("dne-intent {name}: {msg}");
            ExitCode::from(1)
        }
    }
}

fn run(command: Command) -> Result<(), CliError> {
    let mut out = Output::stdout();
    match command {
        Command::Decode { json, input } => cmd_decode(&input, json, &mut out),
        Command::Encode { hex, force, input } => cmd_encode(&input, hex, force, &mut out),
        Command::Xattr {
            json,
            name,
            yaml,
            path,
            fid,
            layout_of,
            mdt,
            stripe_mdts,
            input,
        } => {
            let opts = xattr::TextOpts {
                path,
                fid,
                layout_of,
                mdt,
                stripe_mdts,
                yaml,
            };
            xattr::cmd_xattr(&input, json, name.as_deref(), &opts, &mut out)
        }
        Command::Simulate { json, faults } => model_cmds::cmd_simulate(&faults, json, &mut out),
        Command::Derive { json, input } => model_cmds::cmd_derive(&input, json, &mut out),
        Command::Check { request, reply } => {
            if request.is_stdin() && reply.is_stdin() {
                return Err(CliError::Usage(
                    "standard input (`-`) can be read only once: give REQUEST or REPLY as a file"
                        .into(),
                ));
            }
            model_cmds::cmd_check(&request, &reply, &mut out)
        }
        Command::Pcap {
            json,
            stats,
            write,
            force,
            segment_size,
            big_endian,
            no_handshake,
            socklnd_version,
            repeat,
            pipeline,
            reorder,
            retransmit,
            inputs,
        } => match write {
            Some(path) => pcap_cmd::cmd_write(
                &pcap_cmd::WriteArgs {
                    out: &path,
                    force,
                    messages: &inputs,
                    segment_size,
                    big_endian,
                    handshake: if no_handshake {
                        lustre_dne_intent_capture::Handshake::None
                    } else {
                        lustre_dne_intent_capture::Handshake::Socklnd(socklnd_version)
                    },
                    repeat,
                    pipeline,
                    reorder: reorder.unwrap_or_default(),
                    retransmit: retransmit.unwrap_or_default(),
                },
                &mut out,
            ),
            None => {
                let [input] = inputs.as_slice() else {
                    return Err(CliError::Usage("give one capture file (or `-`)".into()));
                };
                let mode = match (json, stats) {
                    (true, _) => pcap_cmd::Mode::Json,
                    (_, true) => pcap_cmd::Mode::Stats,
                    _ => pcap_cmd::Mode::Text,
                };
                pcap_cmd::cmd_read(input, mode, &mut out)
            }
        },
        Command::WiresharkLua => {
            out.write(lustre_dne_intent_capture::wireshark::dissector().as_bytes())
        }
        Command::Vectors { out: dir, seed } => conform_cmds::cmd_vectors(&dir, seed, &mut out),
        Command::Conform {
            seed,
            count,
            timeout_ms,
            failure_list,
            junit,
            only,
            dump,
            dump_to,
            command,
        } => conform_cmds::cmd_conform(
            conform_cmds::ConformArgs {
                seed,
                count,
                timeout_ms,
                failure_list,
                junit,
                only,
                dump,
                dump_to,
                command,
            },
            &mut out,
        ),
        Command::ConformTestee {
            lie,
            die_at,
            hang_at,
            garbage_at,
            wrong_id_at,
            print_at,
            last_rule,
        } => conform_cmds::cmd_testee(conform_cmds::TesteeArgs {
            lie,
            die_at,
            hang_at,
            garbage_at,
            wrong_id_at,
            print_at,
            last_rule,
        }),
        Command::ModelCheck {
            json,
            scope,
            threads,
            no_symmetry,
            mutation,
            list_mutations,
        } => system_cmds::cmd_model_check(
            json,
            scope.as_deref(),
            system_cmds::Walk {
                threads: threads.map(usize::from),
                symmetry: !no_symmetry,
            },
            mutation,
            list_mutations,
            &mut out,
        ),
        Command::Explore {
            port,
            scope,
            mutation,
        } => system_cmds::cmd_explore(port, scope.as_deref(), mutation),
        Command::CHeader => {
            out.write(lustre_dne_intent_conformance::cheader::c_header().as_bytes())
        }
        Command::LustrePatch {
            out: dir,
            tree,
            author,
            date,
        } => cmd_lustre_patch(&dir, tree, author, date, &mut out),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "dne-intent", &mut buf);
            out.write(&buf)
        }
    }
}

/// `lustre-patch`: the series from the library, written one file per patch.
fn cmd_lustre_patch(
    dir: &std::path::Path,
    tree: Option<std::path::PathBuf>,
    author: Option<String>,
    date: Option<String>,
    out: &mut Output,
) -> Result<(), CliError> {
    use lustre_dne_intent_conformance::lustre_patch::{Options, parse_git_ident, series};
    // git's identity, as `git format-patch` would use it, when no author is given.
    let git = author
        .is_none()
        .then(|| {
            let o = std::process::Command::new("git")
                .args(["var", "GIT_AUTHOR_IDENT"])
                .output()
                .ok()?;
            o.status.success().then_some(())?;
            parse_git_ident(&String::from_utf8_lossy(&o.stdout))
        })
        .flatten();
    let (author, date) = match git {
        Some((a, d)) => (Some(a), date.or(Some(d))),
        None => (author, date),
    };
    let patches = series(&Options { tree, author, date }).map_err(CliError::invalid)?;
    std::fs::create_dir_all(dir)
        .map_err(|e| CliError::invalid(format!("{}: {e}", dir.display())))?;
    for p in &patches {
        let path = dir.join(&p.file_name);
        std::fs::write(&path, &p.text)
            .map_err(|e| CliError::invalid(format!("{}: {e}", path.display())))?;
        out.write(format!("{}\n", path.display()).as_bytes())?;
    }
    Ok(())
}

fn cmd_decode(input: &Input, json: bool, out: &mut Output) -> Result<(), CliError> {
    let bytes = input.message_bytes()?;
    let view = MessageView::parse(&bytes).map_err(|e| input.error(e))?;
    let text = match (&view, json) {
        (view, true) => {
            let value = WireMessage::of(view);
            note_if_not_canonical(input, &bytes, &value);
            let mut s = serde_json::to_string_pretty(&value).map_err(|e| input.error(e))?;
            s.push('\n');
            s
        }
        (MessageView::Request(v), false) => text::request_text(&v.msg(), v),
        (MessageView::Reply(v), false) => text::reply_text(&v.msg(), v),
    };
    out.write(text.as_bytes())
}

/// The JSON holds what the codec represents; when encoding it gives other bytes than the input
/// (a 2-buffer empty result, a `ptlrpc_body` tail, bytes after a name's NUL, non-zero padding),
/// say so on standard error, so that nobody mistakes the round trip for a copy.
fn note_if_not_canonical(input: &Input, bytes: &[u8], value: &WireMessage) {
    if let Ok(again) = value.to_bytes() {
        note_if_reencodes_otherwise(&format!("decode: {input}"), bytes, &again);
    }
}

/// True when a JSON object is an xattr document (`xattr --json`) rather than a message: it
/// has an `"xattr"` key or a payload `"kind"`.
fn is_payload(v: &serde_json::Value) -> bool {
    let Some(map) = v.as_object() else {
        return false;
    };
    map.contains_key("xattr")
        || map
            .get("kind")
            .and_then(serde_json::Value::as_str)
            .is_some_and(|k| lustre_dne_intent::xattr::XATTR_KINDS.contains(&k))
}

fn cmd_encode(input: &Input, hex: bool, force: bool, out: &mut Output) -> Result<(), CliError> {
    let raw = input.read()?;
    let value: serde_json::Value =
        serde_json::from_slice(&raw).map_err(|e| input.error(format_args!("bad JSON: {e}")))?;
    if !value.is_object() {
        return Err(input.error(
            "top level: expected a JSON object: a message (decode --json) or a payload \
             (xattr --json)",
        ));
    }
    let bytes = if is_payload(&value) {
        let doc: lustre_dne_intent::xattr::XattrDoc =
            from_json(&raw).map_err(|e| input.error(e))?;
        doc.payload.to_bytes().map_err(|e| input.error(e))?.to_vec()
    } else {
        let msg: WireMessage = from_json(&raw).map_err(|e| input.error(e))?;
        let bytes = msg.to_bytes().map_err(|e| input.error(e))?.to_vec();
        MessageView::parse(&bytes)
            .map_err(|e| input.error(format_args!("the encoded message does not decode: {e}")))?;
        bytes
    };
    if hex {
        out.write(lustre_dne_intent::hex::xxd_plain(&bytes).as_bytes())
    } else {
        out.write_binary(&bytes, force)
    }
}

#[cfg(test)]
mod tests {
    use super::Cli;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
