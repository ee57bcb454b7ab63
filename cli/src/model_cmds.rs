//! The model's subcommands: `simulate` (RPC accounting against the design's survey), `derive`
//! (the shared helper for one create) and `check` (a reply through the coordinator's rules).

use crate::CliError;
use crate::input::{Input, Output, decode_hex, to_hex};
use crate::jtree::{J, Obj, i, u};
use lustre_dne_intent::errno::ErrnoName;
use lustre_dne_intent::intent::Operation;
use lustre_dne_intent::intent::{
    McppFlags, MliBuf, PrepResult, ReplyView, RequestView, UnknownReason,
};
use lustre_dne_intent::model::helper::{LocalSource, prepare};
use lustre_dne_intent::model::store::{Attrs, Entry, Object, Store, Xattrs};
use lustre_dne_intent::model::survey::{self, TRACES};
use lustre_dne_intent::model::{Creds, Fault};
use lustre_dne_intent::wire::LuFid;
use serde_json::Value;
use std::fmt::Write as _;

/// Parses a `--fault` value (clap reports the error as a usage error).
pub fn parse_fault(name: &str) -> Result<Fault, String> {
    Fault::from_name(name).ok_or_else(|| {
        let known: Vec<String> = Fault::all().iter().map(Fault::name).collect();
        format!("unknown fault; known: {}", known.join(", "))
    })
}

/// `dne-intent simulate [--json] [--fault F]...`
pub fn cmd_simulate(faults: &[Fault], json: bool, output: &mut Output) -> Result<(), CliError> {
    let faults = if faults.is_empty() {
        &[Fault::None][..]
    } else {
        faults
    };
    let mut out = String::new();
    for fault in faults {
        for t in &TRACES {
            let r = survey::row(t, *fault);
            if json {
                let j = J::O(vec![
                    ("operation", J::S(r.operation.into())),
                    ("fault", J::S(fault.name())),
                    ("reads_before", u(r.reads_before)),
                    ("reads_after", u(r.reads_after)),
                    ("out_update_before", u(r.out_update_before)),
                    ("out_update_after", u(r.out_update_after)),
                    ("enqueues_before", u(r.enqueues_before)),
                    ("enqueues_after", u(r.enqueues_after)),
                ]);
                let _ = writeln!(out, "{}", j.to_compact());
            } else {
                let _ = writeln!(out, "{} (fault: {})", r.operation, fault.name());
                let _ = writeln!(
                    out,
                    "  sync reads       {:>2} -> {:>2}",
                    r.reads_before, r.reads_after
                );
                let _ = writeln!(
                    out,
                    "  OUT_UPDATE total {:>2} -> {:>2}",
                    r.out_update_before, r.out_update_after
                );
                let _ = writeln!(
                    out,
                    "  LDLM enqueues    {:>2} -> {:>2}",
                    r.enqueues_before, r.enqueues_after
                );
                for read in t.reads {
                    let kept = survey::still_read(read, *fault);
                    let _ = writeln!(
                        out,
                        "    {} {:<42} {:<36} {}",
                        read.n,
                        read.what,
                        read.label.describe(),
                        if kept {
                            "read"
                        } else {
                            "from the reply / skipped"
                        }
                    );
                }
                for (what, ob, oa, rb, ra) in t.measured {
                    let _ = writeln!(
                        out,
                        "  design's measurement: {what}: OUT_UPDATE {ob} -> {oa}, sync reads {rb} -> {ra}"
                    );
                }
            }
        }
    }
    output.write(out.as_bytes())
}

fn hex_or_null(path: &str, v: Option<Value>) -> Result<Option<Vec<u8>>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => {
            let s = s.strip_prefix("0x").unwrap_or(&s);
            decode_hex(s.as_bytes())
                .map(Some)
                .map_err(|e| format!("{path}: {e}"))
        }
        Some(_) => Err(format!("{path}: expected a hex string or null")),
    }
}

/// `dne-intent derive [--json] [SCENARIO.json|-]`
pub fn cmd_derive(input: &Input, json: bool, output: &mut Output) -> Result<(), CliError> {
    let raw = input.read()?;
    let value: Value =
        serde_json::from_slice(&raw).map_err(|e| input.error(format_args!("bad JSON: {e}")))?;
    let (store, parent, name, child_mode, creds) = scenario(value).map_err(|e| input.error(e))?;
    let p = prepare(
        &mut LocalSource(&store),
        parent,
        Operation::Create,
        Some(&name),
        child_mode,
        &creds,
    );
    let hexo = |v: &Option<Vec<u8>>| v.as_ref().map_or(J::Null, |b| J::S(to_hex(b)));
    let out = if json {
        let mut fields = vec![("status", i(p.status))];
        if let (0, Some(c)) = (p.status, &p.child) {
            fields.extend([
                ("mode", u(c.mode)),
                ("gid", u(c.gid)),
                ("projid", u(c.projid)),
                ("flags", u(c.flags)),
                ("access_acl", hexo(&c.access_acl)),
                ("default_acl", hexo(&c.default_acl)),
            ]);
        }
        format!("{}\n", J::O(fields).to_pretty())
    } else {
        let mut s = String::new();
        match (&p.child, p.status) {
            (Some(c), 0) => {
                let _ = writeln!(s, "status       0");
                let _ = writeln!(s, "mode         {:#o}", c.mode);
                let _ = writeln!(s, "gid          {}", c.gid);
                let _ = writeln!(s, "projid       {}", c.projid);
                let _ = writeln!(s, "flags        {:#x}", c.flags);
                let _ = writeln!(
                    s,
                    "access_acl   {}",
                    c.access_acl.as_deref().map_or("none".into(), to_hex)
                );
                let _ = writeln!(
                    s,
                    "default_acl  {}",
                    c.default_acl.as_deref().map_or("none".into(), to_hex)
                );
            }
            (_, st) => {
                let _ = writeln!(s, "status       {st} ({})", ErrnoName::of_status(st));
            }
        }
        if p.advisory(&creds) {
            let _ = writeln!(
                s,
                "(advisory: the verdict depended on groups the caller may not have shown)"
            );
        }
        s
    };
    output.write(out.as_bytes())
}

type Parsed = (Store, LuFid, Vec<u8>, u32, Creds);

/// Reads a derive scenario (keys documented in the subcommand's usage).
fn scenario(value: Value) -> Result<Parsed, String> {
    let mut top = Obj::new("", value)?;
    let mut p = top.obj("parent")?;
    let attrs = Attrs {
        mode: p.int("mode")?,
        uid: p.int("uid")?,
        gid: p.int("gid")?,
        projid: p.int("projid")?,
        flags: p.int("flags")?,
        nlink: 2,
        ..Default::default()
    };
    let xattrs = Xattrs {
        default_acl: hex_or_null("parent.default_acl", p.take_opt("default_acl"))?,
        access_acl: hex_or_null("parent.access_acl", p.take_opt("access_acl"))?,
        pin: hex_or_null("parent.pin", p.take_opt("pin"))?,
        lov: hex_or_null("parent.lov", p.take_opt("lov"))?,
        dmv: hex_or_null("parent.dmv", p.take_opt("dmv"))?,
        lmv: None,
    };
    let mut entries = Vec::new();
    match p.take_opt("entries") {
        None | Some(Value::Null) => {}
        Some(Value::Array(v)) => {
            for e in v {
                match e {
                    Value::String(s) => entries.push(s.into_bytes()),
                    _ => return Err("parent.entries: expected an array of strings".into()),
                }
            }
        }
        Some(_) => return Err("parent.entries: expected an array of strings".into()),
    }
    p.finish(&[])?;
    let name = top.string("name")?.into_bytes();
    let child_mode: u32 = top.int("child_mode")?;
    let mut c = top.obj("creds")?;
    let groups = match c.take("groups")? {
        Value::Array(v) => v
            .iter()
            .map(|g| crate::jtree::int::<u32>("creds.groups[]", g))
            .collect::<Result<Vec<_>, _>>()?,
        _ => return Err("creds.groups: expected an array of numbers".into()),
    };
    let creds = Creds {
        fsuid: c.int("fsuid")?,
        fsgid: c.int("fsgid")?,
        groups,
        cap: c.int("cap")?,
        umask: c.int::<u32>("umask")? & 0o777,
        groups_partial: false,
    };
    c.finish(&[])?;
    top.finish(&[])?;
    let parent = LuFid::new(0x2_0000_0401, 1, 0);
    let mut store = Store::default();
    let mut obj = Object {
        attrs,
        xattrs,
        ..Default::default()
    };
    for (k, e) in entries.into_iter().enumerate() {
        obj.entries.insert(
            e,
            Entry {
                fid: LuFid::new(0x2_0000_0401, 0x100 + k as u32, 0),
                ftype: 0,
            },
        );
    }
    store.insert(parent, obj);
    Ok((store, parent, name, child_mode, creds))
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
