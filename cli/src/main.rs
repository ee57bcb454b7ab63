//! `dne-intent`: decode, encode and inspect DNE prepare-intent messages and xattr payloads.
//!
//! A thin layer over the `lustre_dne_intent` library: [`Cli`] parses the arguments (clap),
//! each subcommand calls the library, and the result is printed as text or JSON.
//!
//! Exit status: 0 success (also when standard output is a closed pipe), 1 invalid input
//! (malformed bytes, bad JSON, a protocol rule broken, an unreadable file), 2 usage error.
#![forbid(unsafe_code)]

mod input;
mod json;
mod model_cmds;
mod system_cmds;
mod text;
mod xattr;
mod xattr_json;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use input::{Input, Output};
use lustre_dne_intent::intent::{ReplyView, RequestView};
use lustre_dne_intent::wire::{MsgView, PtlrpcBody, PtlrpcMsgType};
use std::process::ExitCode;

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

/// Reference tool for the Lustre DNE prepare-intent protocol (spec: docs/spec/WIRE.md).
#[derive(Debug, Parser)]
#[command(
    name = "dne-intent",
    bin_name = "dne-intent",
    version,
    propagate_version = true,
    subcommand_required = true,
    arg_required_else_help = true,
    after_help = "Input files may be raw bytes or hex text (plain, 0x-prefixed, xxd or hexdump -C \
                  form); `-` is standard input.\n\
                  Exit status: 0 success, 1 invalid input, 2 usage error."
)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decode and validate a request or reply, print it as text or JSON.
    ///
    /// Reads one lustre_msg_v2 message, tells a request (pb_type 4711) from a reply (4712 or
    /// 4713) by its ptlrpc_body, and validates it against every rule of docs/spec/WIRE.md.
    /// Present xattr results are printed the way getfacl and lfs print them.
    Decode {
        /// Print one JSON object (the form `dne-intent encode` reads back) instead of text.
        #[arg(long)]
        json: bool,
        /// The message: a file, or `-` for standard input.
        #[arg(default_value = "-")]
        input: Input,
    },
    /// Encode the JSON of a message or an xattr payload back into bytes.
    ///
    /// Reads what `decode --json` (a message) or `xattr --json` (a payload) prints, validates
    /// it with the protocol's rules and writes the bytes. Binary output is not written to a
    /// terminal unless --force is given.
    Encode {
        /// Write hex text (`xxd -p` style, 60 digits a line) instead of binary.
        #[arg(long)]
        hex: bool,
        /// Write binary output even when standard output is a terminal.
        #[arg(long, conflicts_with = "hex")]
        force: bool,
        /// The JSON: a file, or `-` for standard input.
        #[arg(default_value = "-")]
        input: Input,
    },
    /// Decode an xattr payload (ACL, pin, LMV, default LMV, LOV) or `getfattr -e hex` output.
    ///
    /// Reads one payload (its kind from --name, or guessed from its magic), or the output of
    /// `getfattr -d -e hex -m - FILE...`, and prints each payload the way getfacl,
    /// lfs getdirstripe and lfs getstripe do.
    Xattr {
        /// Print JSON: one object for a lone payload; for getfattr input, one compact object
        /// per attribute and line (JSON Lines), each with its "file".
        #[arg(long)]
        json: bool,
        /// The xattr name, e.g. system.posix_acl_default, trusted.lov, trusted.dmv; with
        /// getfattr input, keeps only that attribute.
        #[arg(long, value_name = "XATTR")]
        name: Option<String>,
        /// The payload or getfattr output: a file, or `-` for standard input.
        #[arg(default_value = "-")]
        input: Input,
    },
    /// RPC accounting of mkdir, rmdir and file rename, with and without prepare intents.
    ///
    /// For each operation of the design's survey (docs/spec/MODEL.md section 5), prints the sync reads, OUT_UPDATE RPCs and
    /// LDLM enqueues before (no intents) and after (intents), each read with its label, and
    /// the design's measured figures beside them.
    Simulate {
        /// One JSON object per line: operation, fault, reads_before, reads_after,
        /// out_update_before, out_update_after, enqueues_before, enqueues_after.
        #[arg(long)]
        json: bool,
        /// Run the intent path under this fault (repeatable): none, peer-without-flag,
        /// peer-lost-flag, replay, resend, empty, advisory, malformed, non-mdt-sender,
        /// partial-groups-N, unknown-X or truncated-X with X one of pattr, def-acl, pin, lmv,
        /// lov, def-lmv.
        #[arg(long = "fault", value_name = "FAULT", value_parser = model_cmds::parse_fault)]
        faults: Vec<lustre_dne_intent::model::Fault>,
    },
    /// Run the shared helper for one create and print the child's derived state.
    ///
    /// Scenario keys: parent {mode (with its S_IFMT bits), uid, gid, projid, flags,
    /// default_acl and access_acl (hex of the xattr, or null), entries (names that exist);
    /// optional pin, lov, dmv}, name, child_mode, creds {fsuid, fsgid, groups, cap (bits as in
    /// mcpr_cap), umask}. Output: status (0 or a negative errno) and, when 0, mode, gid,
    /// projid, flags, access_acl and default_acl (hex or null).
    Derive {
        /// Print the output as JSON.
        #[arg(long)]
        json: bool,
        /// The scenario JSON: a file, or `-` for standard input.
        #[arg(default_value = "-", value_name = "SCENARIO")]
        input: Input,
    },
    /// Run a reply through the coordinator: reads left, cache seeding, broken rules.
    ///
    /// Decodes REQUEST and REPLY, validates the reply against the request and prints what the
    /// coordinator does with it. A reply that breaks a rule is reported (exit 1) and treated
    /// as the empty result.
    Check {
        /// The request message (`-`: standard input; only one of the two may be `-`).
        request: Input,
        /// The reply message.
        reply: Input,
    },
    /// Check the concurrent model exhaustively (docs/spec/MODEL.md section 6).
    ///
    /// Explores every interleaving of a scope (coordinators, their scripts, losses, resends,
    /// reconnects, restarts) and prints the distinct states, the time and each property. A
    /// violation prints its counterexample as a message sequence. Exit status 1 when a
    /// property is violated.
    ModelCheck {
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// The scope: small, default, rename, recovery, wide (default: `default`, or the
        /// mutation's own scope with --mutation).
        #[arg(long, value_name = "NAME", value_parser = system_cmds::parse_scope)]
        scope: Option<String>,
        /// Checker threads (more than 1 walks depth first; counterexamples may be longer).
        #[arg(long, value_name = "N", default_value_t = 1)]
        threads: usize,
        /// Check with this deliberate bug (see --list-mutations); it must be caught.
        #[arg(long, value_name = "NAME", value_parser = system_cmds::parse_mutation)]
        mutation: Option<lustre_dne_intent::model::system::Mutation>,
        /// Print the mutation names, one a line.
        #[arg(long)]
        list_mutations: bool,
    },
    /// Serve stateright's explorer for the concurrent model on 127.0.0.1.
    ///
    /// Step through the state space in a browser; a counterexample's "explorer path" from
    /// model-check opens at /#/steps/PATH.
    Explore {
        /// The port.
        #[arg(long, default_value_t = 3000)]
        port: u16,
        /// The scope.
        #[arg(long, value_name = "NAME", value_parser = system_cmds::parse_scope)]
        scope: Option<String>,
        /// A mutation to explore.
        #[arg(long, value_name = "NAME", value_parser = system_cmds::parse_mutation)]
        mutation: Option<lustre_dne_intent::model::system::Mutation>,
    },
    /// Print the C header of the new structures, with its wirecheck function.
    ///
    /// The committed copy is include/lustre_dne_prepare.h.
    CHeader,
    /// Print a shell completion script.
    ///
    /// For example `dne-intent completions bash > /etc/bash_completion.d/dne-intent`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

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
        Command::Xattr { json, name, input } => {
            xattr::cmd_xattr(&input, json, name.as_deref(), &mut out)
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
        Command::ModelCheck {
            json,
            scope,
            threads,
            mutation,
            list_mutations,
        } => system_cmds::cmd_model_check(
            json,
            scope.as_deref(),
            threads,
            mutation,
            list_mutations,
            &mut out,
        ),
        Command::Explore {
            port,
            scope,
            mutation,
        } => system_cmds::cmd_explore(port, scope.as_deref(), mutation),
        Command::CHeader => out.write(lustre_dne_intent::cheader::c_header().as_bytes()),
        Command::Completions { shell } => {
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "dne-intent", &mut buf);
            out.write(&buf)
        }
    }
}

fn cmd_decode(input: &Input, json: bool, out: &mut Output) -> Result<(), CliError> {
    let bytes = input.message_bytes()?;
    let (msg, view) = decode_message(&bytes).map_err(|e| input.error(e))?;
    let text = match (&view, json) {
        (Decoded::Request(v), true) => json::request_json(&msg, v).to_pretty() + "\n",
        (Decoded::Reply(v), true) => json::reply_json(&msg, v).to_pretty() + "\n",
        (Decoded::Request(v), false) => text::request_text(&msg, v),
        (Decoded::Reply(v), false) => text::reply_text(&msg, v),
    };
    out.write(text.as_bytes())
}

/// A decoded and validated message (one per run, so the size difference does not matter).
#[allow(clippy::large_enum_variant)]
pub enum Decoded<'a> {
    /// A prepare request.
    Request(RequestView<'a>),
    /// A prepare reply.
    Reply(ReplyView<'a>),
}

/// Frames `bytes`, tells request from reply by `pb_type` and validates the whole message.
pub fn decode_message(bytes: &[u8]) -> Result<(MsgView<'_>, Decoded<'_>), String> {
    let msg = MsgView::parse(bytes).map_err(|e| e.to_string())?;
    let body = PtlrpcBody::decode_buffer(msg.buffer_or_empty(0), msg.order(), msg.buffer_offset(0))
        .map_err(|e| e.to_string())?;
    let decoded = match body.msg_type {
        PtlrpcMsgType::REQUEST => {
            Decoded::Request(RequestView::parse(bytes).map_err(|e| e.to_string())?)
        }
        PtlrpcMsgType::REPLY | PtlrpcMsgType::ERR => {
            Decoded::Reply(ReplyView::parse(bytes).map_err(|e| e.to_string())?)
        }
        other => {
            return Err(format!(
                "ptlrpc_body.pb_type at offset {}: {} is neither a request (4711) nor a reply \
                 (4712, 4713)",
                msg.buffer_offset(0) + 8,
                other.0
            ));
        }
    };
    Ok((msg, decoded))
}

fn cmd_encode(input: &Input, hex: bool, force: bool, out: &mut Output) -> Result<(), CliError> {
    let raw = input.read()?;
    let value: serde_json::Value =
        serde_json::from_slice(&raw).map_err(|e| input.error(format_args!("bad JSON: {e}")))?;
    let bytes = if xattr_json::is_payload(&value) {
        xattr_json::encode(value)
    } else {
        json::encode(value)
    }
    .map_err(|e| input.error(e))?;
    if hex {
        out.write(input::xxd_plain(&bytes).as_bytes())
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
