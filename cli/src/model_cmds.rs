//! The model's subcommands: `simulate` (RPC accounting against the design's survey), `derive`
//! (the shared helper for one create) and `check` (a reply through the coordinator's rules).

use crate::common::CliError;
use crate::input::{Input, Output};
use lustre_dne_intent::errno::ErrnoName;
use lustre_dne_intent::hex::encode as to_hex;
use lustre_dne_intent::intent::Operation;
use lustre_dne_intent::intent::{
    McppFlags, MliBuf, PrepResult, ReplyView, RequestView, UnknownReason,
};
use lustre_dne_intent::xattr_names;
use lustre_dne_intent_model::mdd::{LocalSource, prepare};
use lustre_dne_intent_model::survey::{self, DesignOp};
use lustre_dne_intent_model::{Fault, Op, Scenario};
use std::fmt::Write as _;

/// Parses a `--fault` value (clap reports the error as a usage error). The list of known
/// faults names `partial-groups-N` once, as `--help` does, not the two that `Fault::all` holds.
pub fn parse_fault(name: &str) -> Result<Fault, String> {
    use lustre_dne_intent::ParseErrorKind;
    name.parse::<Fault>().map_err(|e| {
        if e.kind == ParseErrorKind::BadNumber {
            return "partial-groups-N takes a group count N from 0 to 255".into();
        }
        let mut known: Vec<String> = Fault::all()
            .iter()
            .filter(|f| !matches!(f, Fault::PartialGroups(_)))
            .map(Fault::name)
            .collect();
        known.push("partial-groups-N (N from 0 to 255)".into());
        format!("unknown fault; known: {}", known.join(", "))
    })
}

/// `dne-intent simulate [--json] [--fault F]...`: each of the design's operations run through
/// the coordinator model without intents and with them under each fault, counted from the
/// runs' traces, beside the design's figures.
pub fn cmd_simulate(faults: &[Fault], json: bool, output: &mut Output) -> Result<(), CliError> {
    let faults = if faults.is_empty() {
        &[Fault::None][..]
    } else {
        faults
    };
    let mut out = String::new();
    for fault in faults {
        for op in DesignOp::ALL {
            let a = survey::account(op, *fault).map_err(|v| {
                CliError::Invalid(format!("{} under {}: {v}", op.name(), fault.name()))
            })?;
            if json {
                let line = SimulateLine {
                    fault: *fault,
                    op,
                    row: a.row,
                    design: op.figures(),
                };
                let text =
                    serde_json::to_string(&line).map_err(|e| CliError::Invalid(e.to_string()))?;
                let _ = writeln!(out, "{text}");
            } else {
                simulate_text(&mut out, &a, *fault);
            }
        }
    }
    output.write(out.as_bytes())
}

/// One count of a design's figure: before, and after where it has one.
type Pick = fn(&survey::Figure) -> (u32, Option<u32>);

/// The text form of one operation's account: the counts, the design's beside them, then each
/// read of the standard run and whether the intent run issued it.
fn simulate_text(out: &mut String, a: &survey::Account, fault: Fault) {
    let r = &a.row;
    let _ = writeln!(out, "{} (fault: {})", r.operation, fault.name());
    let figures = a.op.figures();
    let design = |pick: Pick| {
        let parts: Vec<String> = figures
            .iter()
            .map(|f| {
                let source = match f.source {
                    survey::Source::Survey => "survey",
                    survey::Source::Prototype => "prototype",
                };
                match pick(f) {
                    (b, Some(after)) => format!("{source} {b} -> {after}"),
                    (b, None) => format!("{source} {b}"),
                }
            })
            .collect();
        parts.join(", ")
    };
    let rows: [(&str, u32, u32, Pick); 3] = [
        ("sync reads", r.reads_before, r.reads_after, |f| {
            (f.reads_before, f.reads_after)
        }),
        (
            "OUT_UPDATE total",
            r.out_update_before,
            r.out_update_after,
            |f| (f.out_update_before, f.out_update_after),
        ),
        ("LDLM enqueues", r.enqueues_before, r.enqueues_after, |f| {
            (f.enqueues_before, f.enqueues_after)
        }),
    ];
    for (what, before, after, pick) in rows {
        let _ = writeln!(
            out,
            "  {what:<16} {before:>2} -> {after:>2}   design: {}",
            design(pick)
        );
    }
    let (standard, intent) = (&a.report.standard.1, &a.report.intent.1);
    let kept = survey::still_read(standard, intent);
    for (read, kept) in standard.sync_reads.iter().zip(kept) {
        let _ = writeln!(
            out,
            "    {:<36} {:<58} {}",
            read.label.describe(),
            survey::describe(&read.item),
            if kept {
                "read"
            } else {
                "from the reply / skipped"
            }
        );
    }
}

/// One line of `simulate --json`: the fault, the operation, the row counted from its runs and
/// the design's figures for it.
#[derive(serde::Serialize)]
struct SimulateLine {
    fault: Fault,
    op: DesignOp,
    row: survey::Row,
    design: &'static [survey::Figure],
}

/// `dne-intent derive [--json] [SCENARIO.json|-]`: the library's `model::Scenario`, whose
/// `op` is a create, through the shared helper; `--json` prints its `helper::Prepared`.
pub fn cmd_derive(input: &Input, json: bool, output: &mut Output) -> Result<(), CliError> {
    let raw = input.read()?;
    let sc: Scenario = crate::common::from_json(&raw).map_err(|e| input.error(e))?;
    let Op::Create { parent, name, mode } = &sc.op else {
        return Err(input.error(
            "op: derive runs the helper for a create: give {\"create\": {\"parent\", \"name\", \"mode\"}}",
        ));
    };
    let p = prepare(
        &mut LocalSource(&sc.store),
        *parent,
        Operation::Create,
        Some(name),
        *mode,
        &sc.creds,
    );
    let out = if json {
        serde_json::to_string_pretty(&p).map_err(|e| CliError::Invalid(e.to_string()))? + "\n"
    } else {
        let mut s = String::new();
        match (&p.child, p.status) {
            (Some(c), 0) => {
                // As `decode` prints a mode and `xattr` an ACL (getfacl's text).
                let _ = writeln!(s, "status       0");
                let _ = writeln!(s, "mode         {}", crate::text::file_mode(c.mode));
                let _ = writeln!(s, "gid          {}", c.gid);
                let _ = writeln!(s, "projid       {}", c.projid);
                let _ = writeln!(s, "flags        {:#x}", c.flags);
                for (label, acl, name) in [
                    ("access_acl", &c.access_acl, xattr_names::ACL_ACCESS),
                    ("default_acl", &c.default_acl, xattr_names::ACL_DEFAULT),
                ] {
                    acl_text(&mut s, label, acl.as_deref(), name);
                }
            }
            (_, st) => {
                let _ = writeln!(s, "status       {st} ({})", ErrnoName::of_status(st));
            }
        }
        if p.advisory(&sc.creds) {
            let _ = writeln!(
                s,
                "(advisory: the verdict depended on groups the caller may not have shown)"
            );
        }
        s
    };
    output.write(out.as_bytes())
}

/// One of the child's ACLs under its label: getfacl's lines, indented, or `none`; bytes the
/// ACL decoder refuses (the helper never writes any) are shown in hex with the reason.
fn acl_text(s: &mut String, label: &str, acl: Option<&[u8]>, name: &str) {
    let Some(bytes) = acl else {
        let _ = writeln!(s, "{label:<12} none");
        return;
    };
    match crate::xattr::render_with(name, bytes, &crate::xattr::TextOpts::default()) {
        Ok(text) => {
            let _ = writeln!(s, "{label}:");
            for line in text.lines() {
                let _ = writeln!(s, "    {line}");
            }
        }
        Err(e) => {
            let _ = writeln!(s, "{label:<12} {} ({e})", to_hex(bytes));
        }
    }
}

/// `dne-intent check REQUEST REPLY`
pub fn cmd_check(request: &Input, reply: &Input, output: &mut Output) -> Result<(), CliError> {
    let req_bytes = request.message_bytes()?;
    let rep_bytes = reply.message_bytes()?;
    let req =
        RequestView::parse(&req_bytes).map_err(|e| request.error(format_args!("request: {e}")))?;
    let ctx = req.reply_context();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "request: {} on {} ({})",
        req.opc(),
        req.body().fid,
        if req.body().object_mode() {
            "object mode"
        } else {
            "entry mode"
        }
    );
    let reply = match ReplyView::parse_for(&rep_bytes, &ctx) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(out, "reply breaks a rule: {e}");
            let _ = writeln!(
                out,
                "the coordinator treats it as the empty result: the lock is kept, every requested item is read after it"
            );
            output.write(out.as_bytes())?;
            return Err(reply.error(format_args!("reply: {e}")));
        }
    };
    if reply.is_empty_result() {
        let _ = writeln!(
            out,
            "empty result: the lock is granted; the coordinator falls back to its ordinary reads"
        );
    }
    let advisory = reply
        .body()
        .is_some_and(|b| b.flags.contains(McppFlags::ADVISORY));
    if let Some(b) = reply.body() {
        let _ = writeln!(
            out,
            "status {} ({}), flags {}",
            b.status,
            if b.status == 0 {
                "ok".into()
            } else {
                ErrnoName::of_status(b.status).to_string()
            },
            b.flags
        );
        if advisory {
            let _ = writeln!(
                out,
                "advisory: status, permission and derivation are redone on the standard path with full groups"
            );
        }
        if b.flags.contains(McppFlags::LOOKUP_DONE) && !advisory {
            let _ = writeln!(
                out,
                "seed lookup: {}",
                if b.flags.contains(McppFlags::LOOKUP_POS) {
                    format!("positive {}", b.fid)
                } else {
                    "negative".into()
                }
            );
        }
    }
    let requested = req.requested();
    for m in MliBuf::ALL {
        let line = match reply.result(m) {
            _ if !requested.has(m) => "not requested".to_string(),
            PrepResult::Present(v) => format!("seed the cache ({} bytes)", v.len()),
            PrepResult::Absent => "seed a negative entry (known absent)".into(),
            PrepResult::Unknown(UnknownReason::Truncated { size }) => {
                format!("read after the lock (truncated: {size} bytes)")
            }
            PrepResult::Unknown(_) => "read after the lock (unknown)".into(),
        };
        let _ = writeln!(out, "{:<16} {line}", m.name());
    }
    output.write(out.as_bytes())
}
