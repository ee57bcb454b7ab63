//! The command line: every subcommand and option, with its help text (clap's derive).

use crate::input::Input;
use crate::{model_cmds, system_cmds};
use clap::{Parser, Subcommand};

/// A count of at least one, for `pcap --repeat`.
fn parse_repeat(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("0: expected a count of at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// A count of at least one, for `pcap --pipeline`.
fn parse_pipeline(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err("0: expected at least 1 request outstanding".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// `requests`, `replies` or `both`, for `pcap --reorder` and `--retransmit`.
fn parse_directions(s: &str) -> Result<lustre_dne_intent_capture::Directions, String> {
    use lustre_dne_intent_capture::Directions;
    match s {
        "requests" => Ok(Directions::Requests),
        "replies" => Ok(Directions::Replies),
        "both" => Ok(Directions::Both),
        _ => Err(format!("{s:?}: expected requests, replies or both")),
    }
}

/// `file` or `dir`, for `--layout-of`.
fn parse_layout_of(s: &str) -> Result<lustre_dne_intent::xattr::LayoutOf, String> {
    use lustre_dne_intent::xattr::LayoutOf;
    match s {
        "file" => Ok(LayoutOf::File),
        "dir" | "directory" => Ok(LayoutOf::Dir),
        _ => Err(format!("{s:?}: expected file or dir")),
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
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
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
        /// Print JSON, the library's xattr::XattrDoc: {"file", "xattr", "kind", "payload"}
        /// with the payload in its serde form (C field names, 64-bit values as strings; a
        /// LOV's union at offset 30 named by --layout-of). One object for a lone payload; for
        /// getfattr input, one compact object per attribute and line (JSON Lines).
        #[arg(long)]
        json: bool,
        /// The xattr name, e.g. system.posix_acl_default, trusted.lov, trusted.dmv; with
        /// getfattr input, keeps only that attribute.
        #[arg(long, value_name = "XATTR")]
        name: Option<String>,
        /// Print `lfs getstripe --yaml` / `lfs getdirstripe --yaml` instead of `-v`.
        #[arg(long, conflicts_with = "json")]
        yaml: bool,
        /// The path lfs prints as its first line (for getfattr input: its `# file:`).
        #[arg(long, value_name = "PATH")]
        path: Option<String>,
        /// The FID of the file or directory, e.g. `[0x200000401:0x1:0x0]`: lfs prints it as a
        /// directory default's lmm_fid and as lmv_fid.
        #[arg(long, value_name = "FID")]
        fid: Option<lustre_dne_intent::wire::LuFid>,
        /// Whose layout a trusted.lov is: a file's (lfs getstripe FILE) or a directory's
        /// default (lfs getstripe DIR). Without it: a file's when the payload holds object
        /// entries or a released pattern, else a directory's.
        #[arg(long, value_name = "KIND", value_parser = parse_layout_of)]
        layout_of: Option<lustre_dne_intent::xattr::LayoutOf>,
        /// The MDT holding the object: lmv_stripe_offset (default: the header's
        /// lmv_master_mdt_index) and a Data-on-MDT file's lmm_mdt_index (default: not printed).
        #[arg(long, value_name = "INDEX")]
        mdt: Option<u32>,
        /// The MDT of each stripe of a striped directory, comma-separated in stripe order
        /// (default: `?` in the mdtidx column).
        #[arg(long, value_name = "LIST", value_delimiter = ',')]
        stripe_mdts: Vec<u32>,
        /// The payload or getfattr output: a file, or `-` for standard input.
        #[arg(default_value = "-")]
        input: Input,
    },
    /// RPC accounting of the design's five operations, with and without prepare intents.
    ///
    /// mkdir and rmdir with a remote parent, the cross-MDT file rename without and with an
    /// existing target, and the cross-MDT directory rename each run through the coordinator
    /// model without intents and with them (docs/spec/MODEL.md section 5). Prints the sync
    /// reads, OUT_UPDATE RPCs and LDLM enqueues counted from the two runs, the design's survey
    /// and prototype figures beside them, and each read of the standard run with where it
    /// happens and whether the intent run still issued it.
    Simulate {
        /// One JSON object per line, per fault and operation: {"fault"; "op": mkdir, rmdir,
        /// file-rename, file-rename-over-target or dir-rename; "row": the library's
        /// survey::Row (operation, reads_before, reads_after, out_update_before,
        /// out_update_after, enqueues_before, enqueues_after); "design": the design's figures,
        /// a list of {source: survey or prototype, reads_before, reads_after,
        /// out_update_before, out_update_after, enqueues_before, enqueues_after}, the after
        /// counts null where the design has none}.
        #[arg(long)]
        json: bool,
        /// Run the intent path under this fault (repeatable): none, peer-without-flag,
        /// peer-lost-flag, replay, resend, empty, advisory, malformed, non-mdt-sender,
        /// partial-groups-N, unknown-X or truncated-X with X one of pattr, def-acl, pin, lmv,
        /// lov, def-lmv.
        #[arg(long = "fault", value_name = "FAULT", value_parser = model_cmds::parse_fault)]
        faults: Vec<lustre_dne_intent_model::Fault>,
    },
    /// Run the shared helper for one create and print the child's derived state.
    ///
    /// The scenario is the library's model::Scenario in its serde form: {"store": {"objects":
    /// {FID: {"attrs", "xattrs", "dead", "entries"}}}, "creds": {"fsuid", "fsgid", "groups",
    /// "cap" (mcpr_cap bits, "0x…"), "umask", "groups_partial"}, "op": {"create": {"parent",
    /// "name", "mode"}}} (testdata/model/derive_sgid.json is one). Output: status (0 or a
    /// negative errno) and, when 0, mode, gid, projid, flags and the ACLs; --json prints the
    /// library's helper::Prepared.
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
    /// Read a packet capture (pcap or pcapng) of socklnd traffic down to the prepare intents.
    ///
    /// Reassembles each TCP direction, frames socklnd (connreq, hello V2/V3/V4, ksock_msg in
    /// either byte order) and LNet, decodes every lustre_msg_v2 and pairs replies with their
    /// requests by xid and peer; prepare intents are validated by this crate. One line per
    /// message, like tshark's summary. Errors (each naming its frame) go to standard error,
    /// decoding goes on, and the exit status is 1. With --write, makes a capture from message
    /// files.
    Pcap {
        /// One JSON object per line (JSON Lines), with Lustre's C field names.
        #[arg(long, conflicts_with = "stats")]
        json: bool,
        /// Summarise instead: messages by opcode, prepare intents by operation and outcome,
        /// results present and their sizes against the limits.
        #[arg(long)]
        stats: bool,
        /// Write a capture to this file (`-`: standard output) instead of reading one: the
        /// inputs are messages (requests go client to server on portal 24, each reply answers
        /// the request before it, on portal 4).
        #[arg(long, value_name = "OUT", conflicts_with_all = ["json", "stats"])]
        write: Option<std::path::PathBuf>,
        /// With --write -: write the capture to standard output even when it is a terminal.
        #[arg(long, requires = "write")]
        force: bool,
        /// With --write: most TCP payload bytes per segment (1 to 65000).
        #[arg(long, default_value_t = 1448, requires = "write",
              value_parser = clap::builder::RangedU64ValueParser::<usize>::new()
                  .range(1..=lustre_dne_intent_capture::limits::WRITER_MAX_SEGMENT as u64))]
        segment_size: usize,
        /// With --write: the peers' socklnd structures in big-endian order.
        #[arg(long, requires = "write")]
        big_endian: bool,
        /// With --write: no TCP or socklnd handshake (the capture starts mid-connection).
        #[arg(long, requires = "write")]
        no_handshake: bool,
        /// With --write: socklnd version of the hello (2, 3, or 4 for large NIDs).
        #[arg(long, default_value_t = 3, requires = "write",
              value_parser = clap::value_parser!(u32).range(
                  i64::from(lustre_dne_intent_capture::socklnd::KSOCK_PROTO_V2)
                      ..=i64::from(lustre_dne_intent_capture::socklnd::KSOCK_PROTO_V4)))]
        socklnd_version: u32,
        /// With --write: write the messages this many times over (at least once).
        #[arg(long, default_value_t = 1, requires = "write",
              value_parser = parse_repeat)]
        repeat: usize,
        /// With --write: keep up to this many requests outstanding on the connection: send
        /// that many requests, then the replies answering them, in order (1: each request is
        /// answered before the next is sent). Short messages then share TCP segments.
        #[arg(long, default_value_t = 1, value_name = "N", requires = "write",
              value_parser = parse_pipeline)]
        pipeline: usize,
        /// With --write: send every other TCP segment after the one that follows it
        /// (out-of-order delivery) in these directions: requests, replies or both.
        #[arg(long, value_name = "DIRECTIONS", requires = "write",
              value_parser = parse_directions)]
        reorder: Option<lustre_dne_intent_capture::Directions>,
        /// With --write: send every TCP segment twice (retransmissions) in these directions:
        /// requests, replies or both.
        #[arg(long, value_name = "DIRECTIONS", requires = "write",
              value_parser = parse_directions)]
        retransmit: Option<lustre_dne_intent_capture::Directions>,
        /// The capture (`-`: standard input), or with --write the message files.
        #[arg(default_value = "-")]
        inputs: Vec<Input>,
    },
    /// Print a Wireshark Lua dissector for the prepare intents, generated from the codec.
    ///
    /// Install it as ~/.local/lib/wireshark/plugins/dne_prepare.lua, or load it with
    /// `tshark -X lua_script:dne_prepare.lua`. It registers on lnet.ptl_index for the
    /// MDT-to-MDT portals (24 requests, 4 replies) and the MDS portals (12, 10), decodes
    /// lustre_msg_v2 and, for an LDLM_ENQUEUE with an IT_DNE_* intent, the new bodies and their
    /// results. Fields are `dne_prepare.<C field name>`. Captures with TCP segments out of order
    /// need `-o tcp.reassemble_out_of_order:TRUE` (and the default
    /// `tcp.desegment_tcp_streams:TRUE`).
    WiresharkLua,
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
        /// The scope: small, pair, default, rename, recovery, wide, three-one, three (default:
        /// `default`, or the mutation's own scope with --mutation).
        #[arg(long, value_name = "NAME", value_parser = system_cmds::parse_scope)]
        scope: Option<String>,
        /// Checker threads (default: the available cores). One thread walks breadth first
        /// unless symmetry reduction applies; more walk depth first. Counterexamples are
        /// searched again breadth first, so they stay shortest.
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=256))]
        threads: Option<u16>,
        /// Do not merge states that differ only by interchangeable coordinators (to measure
        /// the reduction).
        #[arg(long)]
        no_symmetry: bool,
        /// Check with this deliberate bug (see --list-mutations); it must be caught.
        #[arg(long, value_name = "NAME", value_parser = system_cmds::parse_mutation)]
        mutation: Option<lustre_dne_intent_model::system::Mutation>,
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
        mutation: Option<lustre_dne_intent_model::system::Mutation>,
    },
    /// Print the C header of the new structures, with its wirecheck function.
    ///
    /// The committed copy is include/lustre_dne_prepare.h.
    CHeader,
    /// Write the lustre-release patch series of the prepare intent (docs/lustre-patch.md).
    ///
    /// Writes DIR/0001-….patch and the rest, for `git am`. With --tree, the hunks are made
    /// against that lustre-release tree and values it already uses are refused; without it,
    /// against the revision named in docs/reference/lustre-wire.md.
    LustrePatch {
        /// The directory to write the series into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// A lustre-release work tree to generate the series for.
        #[arg(long, value_name = "DIR")]
        tree: Option<std::path::PathBuf>,
        /// The author and sign-off, `Name <email>`. Default: git's author
        /// (`git var GIT_AUTHOR_IDENT`), else a placeholder.
        #[arg(long, value_name = "NAME <EMAIL>")]
        author: Option<String>,
        /// The date of the patches, as mail writes it ("Sat, 6 Dec 2025 07:00:00 +0100").
        /// Default: git's author date with the author from git, else the epoch.
        #[arg(long, value_name = "DATE")]
        date: Option<String>,
    },
    /// Write the conformance vectors: JSON (Wycheproof's shape) and a C header.
    ///
    /// Writes DIR/dne_intent_vectors.json and DIR/lustre_dne_prepare_vectors.h; the same seed
    /// gives the same files (docs/conformance.md).
    Vectors {
        /// The directory to write into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: std::path::PathBuf,
        /// Seed of the mutations chosen.
        #[arg(long, default_value_t = 0)]
        seed: u64,
    },
    /// Run an implementation under test against the vectors and generated cases.
    ///
    /// Starts CMD and talks to it over stdin/stdout with length-prefixed JSON frames
    /// (docs/conformance.md); checks verdicts, rules and canonical bytes; prints failures,
    /// counts per rule and `conform: N cases, P passed, F failed`. Exit 0 iff nothing
    /// unexpected failed.
    Conform {
        /// Seed of the vectors and the generated cases.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Number of generated cases after the vectors.
        #[arg(long, default_value_t = 1000)]
        count: usize,
        /// Per-case timeout in milliseconds.
        #[arg(long, default_value_t = 10_000, value_name = "MS")]
        timeout_ms: u64,
        /// Known failures: one case id per line, `#` comments.
        #[arg(long, value_name = "FILE")]
        failure_list: Option<std::path::PathBuf>,
        /// Write JUnit XML here.
        #[arg(long, value_name = "FILE")]
        junit: Option<std::path::PathBuf>,
        /// Run only the case with this id (a vector or a generated case of this seed and count).
        #[arg(long, value_name = "ID", conflicts_with = "dump")]
        only: Option<u64>,
        /// Print the case with this id (input, request, expected verdict, the question sent)
        /// and run no testee.
        #[arg(long, value_name = "ID")]
        dump: Option<u64>,
        /// With --dump: also write DIR/case-ID.bin (the input), DIR/case-ID.request.bin (a
        /// reply's request) and DIR/case-ID.frame (the question as a frame: `testee < FILE`).
        #[arg(long, value_name = "DIR", requires = "dump")]
        dump_to: Option<std::path::PathBuf>,
        /// The testee and its arguments (after `--`).
        #[arg(last = true, required_unless_present = "dump", value_name = "CMD")]
        command: Vec<std::ffi::OsString>,
    },
    /// The crate as a conformance testee (stdin/stdout protocol of docs/conformance.md).
    #[command(hide = true)]
    ConformTestee {
        /// Answer these case ids wrongly (comma-separated).
        #[arg(long, value_delimiter = ',')]
        lie: Vec<u64>,
        /// Exit when this case arrives.
        #[arg(long)]
        die_at: Option<u64>,
        /// Never answer this case.
        #[arg(long)]
        hang_at: Option<u64>,
        /// Answer this case with bytes that are not JSON.
        #[arg(long)]
        garbage_at: Option<u64>,
        /// Answer this case with another id.
        #[arg(long)]
        wrong_id_at: Option<u64>,
        /// Print a line of text to stdout before answering this case (a stray debug print).
        #[arg(long)]
        print_at: Option<u64>,
        /// Name the last rule an invalid input is known to break, not the crate's first.
        #[arg(long)]
        last_rule: bool,
    },
    /// Print a shell completion script.
    ///
    /// For example `dne-intent completions bash > /etc/bash_completion.d/dne-intent`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
}
