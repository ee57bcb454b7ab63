//! `dne-intent`: decode, encode and inspect DNE prepare-intent messages.
//!
//! Subcommands are rows of [`COMMANDS`]: a name, a one-line summary, a usage text and an entry
//! point taking the arguments after the subcommand. To add one, write its `run` function (in its
//! own module if it is more than a few lines) and add a row; `--help` and dispatch come for free.
//!
//! Exit status: 0 success, 1 invalid input (malformed bytes, bad JSON, a protocol rule broken,
//! an unreadable file), 2 usage error.
#![forbid(unsafe_code)]

mod args;
mod input;
mod json;
mod model_cmds;
mod text;
mod xattr;
mod xattr_json;

use args::Args;
use lustre_dne_intent::DecodeError;
use lustre_dne_intent::intent::{ReplyView, RequestView};
use lustre_dne_intent::wire::{MsgView, PtlrpcBody, PtlrpcMsgType};
use std::process::ExitCode;

/// Why a subcommand failed; decides the exit status.
#[derive(Debug)]
pub enum CliError {
    /// Bad arguments: the subcommand's usage is printed and the exit status is 2.
    Usage(String),
    /// Input that is malformed, breaks a rule, or cannot be read or written: exit status 1.
    Invalid(String),
}

impl CliError {
    /// An invalid-input error from anything printable.
    pub fn invalid(msg: impl std::fmt::Display) -> Self {
        CliError::Invalid(msg.to_string())
    }
}

/// A subcommand of the tool.
struct Command {
    /// What the user types.
    name: &'static str,
    /// One line for the command list.
    summary: &'static str,
    /// Full usage, printed by `--help` and on a usage error.
    usage: &'static str,
    /// Runs with the arguments that follow the subcommand name (`--help` is handled before).
    run: fn(&[String]) -> Result<(), CliError>,
}

/// Every subcommand, in the order `--help` lists them.
const COMMANDS: &[Command] = &[
    Command {
        name: "decode",
        summary: "decode and validate a request or reply (binary or hex), print it as text or JSON",
        usage: "\
usage: dne-intent decode [--json] [FILE|-]

Reads one lustre_msg_v2 message from FILE, or from standard input when FILE is `-` or absent.
The input is raw bytes, or hex text (`xxd -p` style; whitespace is ignored) when it consists
only of hex digits and whitespace. The message is framed, recognised as a prepare request
(pb_type 4711) or reply (4712/4713) and validated against every rule of docs/spec/WIRE.md.

  --json    print one JSON object (the schema `dne-intent encode` reads) instead of text",
        run: cmd_decode,
    },
    Command {
        name: "encode",
        summary: "encode the JSON form of a request, reply or xattr payload back into bytes",
        usage: "\
usage: dne-intent encode [--hex] [FILE|-]

Reads the JSON object `dne-intent decode --json` prints (from FILE, or standard input when FILE
is `-` or absent), validates it with the protocol rules and writes the message to standard
output in the byte order given by \"order\". Derived fields (bufcount, buflens, result states)
are recomputed; a \"bufcount\" smaller than the full message drops trailing empty buffers.

It also reads the JSON of one xattr payload, as `dne-intent xattr --json` prints it (an object
with an \"xattr\" key, or a \"kind\" of acl, pin, lmv, dmv, lov or opaque), validates it with
the payload's decoder rules and writes the payload bytes.

  --hex     write hex text (`xxd -p` style, 60 digits a line) instead of binary",
        run: cmd_encode,
    },
    Command {
        name: "xattr",
        summary: "decode an xattr payload (ACL, pin, LMV, default LMV, LOV) or getfattr -e hex output",
        usage: "\
usage: dne-intent xattr [--json] [--name NAME] [FILE|-]

Reads one xattr payload (raw bytes or hex text; its kind from --name, or guessed from its
magic), or the output of `getfattr -e hex [-m -] FILE...` (`# file:` lines and name=0x...
pairs, several per input), and prints each payload the way getfacl, lfs getdirstripe and
lfs getstripe do. With getfattr input, --name keeps only that attribute.

  --json        print JSON (the schema `dne-intent encode` reads): one pretty-printed object
                for a lone payload; for getfattr input, one compact object per attribute,
                one per line (JSON Lines), each with its \"file\"
  --name NAME   the xattr name, e.g. system.posix_acl_default, trusted.lov, trusted.dmv",
        run: xattr::cmd_xattr,
    },
    Command {
        name: "simulate",
        summary: "RPC accounting of mkdir, rmdir and file rename with and without prepare intents",
        usage: "\
usage: dne-intent simulate [--json] [--fault F]...

For each operation of the design's survey (docs/spec/MODEL.md section 5: mkdir, rmdir, cross-MDT
file rename), prints the sync reads, OUT_UPDATE RPCs and LDLM enqueues before (no intents) and
after (intents), each read with its label, and the design's measured figures beside them.
--fault (repeatable) runs the intent path under a fault: none, peer-without-flag,
peer-lost-flag, replay, resend, empty, advisory, malformed, non-mdt-sender, partial-groups-N,
unknown-X or truncated-X with X one of pattr, def-acl, pin, lmv, lov, def-lmv.

  --json    one JSON object per line: operation, fault, reads_before, reads_after,
            out_update_before, out_update_after, enqueues_before, enqueues_after",
        run: model_cmds::cmd_simulate,
    },
    Command {
        name: "derive",
        summary: "run the shared helper for one create and print the child's derived state",
        usage: "\
usage: dne-intent derive [--json] [SCENARIO.json|-]

Scenario keys: parent {mode (with its S_IFMT bits), uid, gid, projid, flags, default_acl and
access_acl (hex of the xattr, or null), entries (names that exist); optional pin, lov, dmv},
name, child_mode, creds {fsuid, fsgid, groups, cap (bits as in mcpr_cap), umask}.
Output: status (0 or a negative errno) and, when 0, mode, gid, projid, flags, access_acl and
default_acl (hex or null).

  --json    print the output as JSON",
        run: model_cmds::cmd_derive,
    },
    Command {
        name: "check",
        summary: "run a reply through the coordinator: reads left, cache seeding, broken rules",
        usage: "\
usage: dne-intent check REQUEST REPLY

Decodes REQUEST and REPLY (binary or hex), validates the reply against the request and prints
what the coordinator does with it: the status, what it seeds into its cache (present values,
negative entries, the lookup) and which items it still reads after the lock. A reply that
breaks a rule is reported (exit 1) and treated as the empty result.",
        run: model_cmds::cmd_check,
    },
    Command {
        name: "c-header",
        summary: "print the C header of the new structures, with its wirecheck function",
        usage: "\
usage: dne-intent c-header

Prints, in Lustre's style, the C declarations of md_create_prepare_req, md_create_prepare_rep,
the IT_DNE_*_PREPARE opcodes, the MCPR_*/MCPP_* flags, the MLI_BUF_* indices and
OBD_CONNECT2_DNE_PREPARE, followed by dne_prepare_wirecheck(): one assertion per size, offset
and constant, generated from the codec's own layouts. The committed copy is
include/lustre_dne_prepare.h.",
        run: cmd_c_header,
    },
];

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let Some((first, rest)) = argv.split_first() else {
        eprint!("{}", general_usage());
        return ExitCode::from(2);
    };
    match first.as_str() {
        "-h" | "--help" => {
            print!("{}", general_usage());
            return ExitCode::SUCCESS;
        }
        "help" => {
            return match rest.first().map(|n| find_command(n)) {
                None => {
                    print!("{}", general_usage());
                    ExitCode::SUCCESS
                }
                Some(Some(cmd)) => {
                    println!("{}", cmd.usage);
                    ExitCode::SUCCESS
                }
                Some(None) => unknown_command(rest.first().map_or("", String::as_str)),
            };
        }
        _ => {}
    }
    let Some(cmd) = find_command(first) else {
        return unknown_command(first);
    };
    if args::wants_help(rest) {
        println!("{}", cmd.usage);
        return ExitCode::SUCCESS;
    }
    match (cmd.run)(rest) {
        Ok(()) => ExitCode::SUCCESS,
        Err(CliError::Usage(msg)) => {
            eprintln!("dne-intent {}: {msg}\n\n{}", cmd.name, cmd.usage);
            ExitCode::from(2)
        }
        Err(CliError::Invalid(msg)) => {
            eprintln!("dne-intent {}: {msg}", cmd.name);
            ExitCode::from(1)
        }
    }
}

fn find_command(name: &str) -> Option<&'static Command> {
    COMMANDS.iter().find(|c| c.name == name)
}

fn unknown_command(name: &str) -> ExitCode {
    eprint!(
        "dne-intent: unknown subcommand `{}`\n\n{}",
        name.escape_debug(),
        general_usage()
    );
    ExitCode::from(2)
}

fn general_usage() -> String {
    let mut s = String::from(
        "usage: dne-intent <SUBCOMMAND> [OPTIONS] [ARGS]\n\n\
         Reference tool for the Lustre DNE prepare-intent protocol (spec: docs/spec/WIRE.md).\n\nsubcommands:\n",
    );
    for c in COMMANDS {
        s.push_str(&format!("  {:<10} {}\n", c.name, c.summary));
    }
    s.push_str(
        "\n`dne-intent <SUBCOMMAND> --help` or `dne-intent help <SUBCOMMAND>` describes one.\n\
         Exit status: 0 success, 1 invalid input, 2 usage error.\n",
    );
    s
}

/// Whether a framed message is a request or a reply, judged by `pb_type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `PTL_RPC_MSG_REQUEST`.
    Request,
    /// `PTL_RPC_MSG_REPLY` or `PTL_RPC_MSG_ERR`.
    Reply,
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
        .map_err(|e: DecodeError| e.to_string())?;
    let kind = match body.msg_type {
        PtlrpcMsgType::REQUEST => Kind::Request,
        PtlrpcMsgType::REPLY | PtlrpcMsgType::ERR => Kind::Reply,
        other => {
            return Err(format!(
                "ptlrpc_body.pb_type at offset {}: {} is neither a request (4711) nor a reply \
                 (4712, 4713)",
                msg.buffer_offset(0) + 8,
                other.0
            ));
        }
    };
    let decoded = match kind {
        Kind::Request => Decoded::Request(RequestView::parse(bytes).map_err(|e| e.to_string())?),
        Kind::Reply => Decoded::Reply(ReplyView::parse(bytes).map_err(|e| e.to_string())?),
    };
    Ok((msg, decoded))
}

fn cmd_decode(argv: &[String]) -> Result<(), CliError> {
    let a = Args::parse(argv, &["--json"], &[], 1)?;
    let raw = input::read_input(a.positional(0))?;
    let bytes = input::message_bytes(raw)?;
    let (msg, decoded) = decode_message(&bytes).map_err(CliError::Invalid)?;
    let out = if a.flag("--json") {
        let mut s = match &decoded {
            Decoded::Request(v) => json::request_json(&msg, v),
            Decoded::Reply(v) => json::reply_json(&msg, v),
        }
        .to_pretty();
        s.push('\n');
        s
    } else {
        match &decoded {
            Decoded::Request(v) => text::request_text(&msg, v),
            Decoded::Reply(v) => text::reply_text(&msg, v),
        }
    };
    input::write_stdout(out.as_bytes())
}

fn cmd_encode(argv: &[String]) -> Result<(), CliError> {
    let a = Args::parse(argv, &["--hex"], &[], 1)?;
    let raw = input::read_input(a.positional(0))?;
    let value: serde_json::Value =
        serde_json::from_slice(&raw).map_err(|e| CliError::Invalid(format!("bad JSON: {e}")))?;
    let bytes = if xattr_json::is_payload(&value) {
        xattr_json::encode(value)
    } else {
        json::encode(value)
    }
    .map_err(CliError::Invalid)?;
    if a.flag("--hex") {
        input::write_stdout(input::xxd_plain(&bytes).as_bytes())
    } else {
        input::write_stdout(&bytes)
    }
}

fn cmd_c_header(argv: &[String]) -> Result<(), CliError> {
    Args::parse(argv, &[], &[], 0)?;
    input::write_stdout(lustre_dne_intent::cheader::c_header().as_bytes())
}
