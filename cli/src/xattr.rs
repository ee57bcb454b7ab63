//! `dne-intent xattr`: decode one xattr payload, or every attribute in `getfattr -e hex` output,
//! and print it as text or (`--json`) as the library's serde form of
//! `lustre_dne_intent::xattr::XattrDoc`.

use crate::common::CliError;
use crate::input::{Input, Output};
use lustre_dne_intent::hex::{self, HexForm};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::acl::POSIX_ACL_XATTR_VERSION;
use lustre_dne_intent::xattr::{
    AclKind, AclView, DefaultLmvView, LMV_MAGIC_FOREIGN, LMV_MAGIC_STRIPE, LMV_MAGIC_V1,
    LMV_USER_MAGIC, LOV_MAGIC_V1, LayoutOf, LmvView, LovView, PinView, XattrDoc, xattr_kind,
};
use lustre_dne_intent::xattr_names;
use std::fmt::Write as _;

/// The payload kind of xattr `name`, from the codec's one table of names
/// ([`xattr_kind`]), an ACL split into the access and the default one.
fn kind_of(name: &str) -> Option<&'static str> {
    Some(match xattr_kind(name)? {
        "acl" if name == xattr_names::ACL_DEFAULT => "acl_default",
        "acl" => "acl_access",
        kind => kind,
    })
}

/// What `lfs` knows that a payload does not hold, and the output form.
#[derive(Debug, Clone, Default)]
pub struct TextOpts {
    /// The path lfs would print as its first line.
    pub path: Option<String>,
    /// The FID of the file or directory (`lmm_fid` of a directory default, `lmv_fid`).
    pub fid: Option<LuFid>,
    /// Whose layout a `trusted.lov` is; guessed from the payload when absent.
    pub layout_of: Option<LayoutOf>,
    /// The MDT holding the object (`lmv_stripe_offset`, a DoM file's `lmm_mdt_index`).
    pub mdt: Option<u32>,
    /// The MDT of each stripe of a striped directory, in stripe order.
    pub stripe_mdts: Vec<u32>,
    /// `lfs ... --yaml` instead of `-v`.
    pub yaml: bool,
}

/// Renders one result of a reply the way the Lustre and ACL tools print it. Every result
/// describes the object the intent acts on, `object` (`mcpr_fid`, the lock's resource: the
/// parent directory in entry mode, the object itself in object mode), which lfs prints as
/// `lmv_fid` and as a directory default's `lmm_fid`; `layout_of` says whose layout its LOV is
/// (`None`: guessed from the payload).
pub fn render(
    name: &str,
    bytes: &[u8],
    object: LuFid,
    layout_of: Option<LayoutOf>,
) -> Result<String, String> {
    let opts = TextOpts {
        layout_of,
        fid: Some(object),
        ..TextOpts::default()
    };
    render_with(name, bytes, &opts)
}

/// Renders one payload as `lfs getstripe -v`, `lfs getdirstripe -v` (or their `--yaml`),
/// getfacl; every rendering ends in a newline, as those tools' output does (a pin, a one-line
/// text of its own, gets one too).
pub fn render_with(name: &str, bytes: &[u8], o: &TextOpts) -> Result<String, String> {
    let mut out = String::new();
    let err = |e: lustre_dne_intent::DecodeError| format!("{name}: {e}");
    match kind_of(name) {
        Some("acl_access") => {
            let _ = write!(
                out,
                "{}",
                AclView::parse(bytes).map_err(err)?.getfacl(AclKind::Access)
            );
        }
        Some("acl_default") => {
            let _ = write!(
                out,
                "{}",
                AclView::parse(bytes)
                    .map_err(err)?
                    .getfacl(AclKind::Default)
            );
        }
        Some("pin") => {
            let _ = write!(out, "{}", PinView::parse(bytes).map_err(err)?);
        }
        Some("lmv") => {
            let v = LmvView::parse(bytes).map_err(err)?;
            // One MDT a stripe, or the mdtidx column would print `?` for the stripes left out.
            if let LmvView::Md(m) = &v {
                let (listed, stripes) = (o.stripe_mdts.len(), m.stripe_fids().len());
                if listed != 0 && !m.is_stripe() && listed != stripes {
                    return Err(format!(
                        "{name}: --stripe-mdts lists {listed} MDTs, but the LMV has {stripes} \
                         stripes: give one MDT a stripe, in stripe order"
                    ));
                }
            }
            let mut t = v.getdirstripe().yaml(o.yaml).stripe_mdts(&o.stripe_mdts);
            if let Some(fid) = o.fid {
                t = t.fid(fid);
            }
            if let Some(m) = o.mdt {
                t = t.mdt(m);
            }
            let _ = write!(out, "{t}");
        }
        Some("dmv") => {
            let v = DefaultLmvView::parse(bytes).map_err(err)?;
            let mut t = v.getdirstripe().yaml(o.yaml);
            if let Some(fid) = o.fid {
                t = t.fid(fid);
            }
            let _ = write!(out, "{t}");
        }
        Some("lov") => {
            let v = LovView::parse(bytes).map_err(err)?;
            let mut t = v.getstripe().yaml(o.yaml);
            if let Some(of) = o.layout_of {
                t = t.layout_of(of);
            }
            if let Some(p) = &o.path {
                t = t.path(p);
            }
            if let Some(fid) = o.fid {
                t = t.fid(fid);
            }
            if let Some(m) = o.mdt {
                t = t.mdt_index(m);
            }
            let _ = write!(out, "{t}");
        }
        _ => {
            let _ = write!(
                out,
                "({} bytes, not a payload this tool decodes)",
                bytes.len()
            );
        }
    }
    if !out.ends_with('\n') {
        out.push('\n');
    }
    Ok(out)
}

/// The first u32s [`guess_name`] knows a lone payload by, with the attribute each names (the
/// LOV magics, which all end in [`LOV_MAGIC_LOW`], and a pin's `[` are tested apart).
const MAGICS: [(u32, &str); 5] = [
    (POSIX_ACL_XATTR_VERSION, xattr_names::ACL_ACCESS),
    (LMV_MAGIC_V1, xattr_names::LMV),
    (LMV_MAGIC_STRIPE, xattr_names::LMV),
    (LMV_MAGIC_FOREIGN, xattr_names::LMV),
    (LMV_USER_MAGIC, xattr_names::DMV),
];

/// The low half that every LOV magic shares (`0x0BD?0BD0`).
const LOV_MAGIC_LOW: u32 = LOV_MAGIC_V1 & 0xffff;

/// Guesses a lone payload's kind from its first bytes.
fn guess_name(bytes: &[u8]) -> Option<&'static str> {
    let magic = u32::from_le_bytes(bytes.get(..4)?.try_into().ok()?);
    if let Some(&(_, name)) = MAGICS.iter().find(|&&(m, _)| m == magic) {
        return Some(name);
    }
    if magic & 0xffff == LOV_MAGIC_LOW {
        Some(xattr_names::LOV)
    } else if bytes.first() == Some(&b'[') {
        Some(xattr_names::PIN)
    } else {
        None
    }
}

/// Why [`guess_name`] found no kind: what the first bytes hold, against what it looks for.
fn unknown_kind(bytes: &[u8]) -> String {
    let Some(b) = bytes.get(..4) else {
        return format!(
            "cannot tell the payload kind: {} bytes, too short for a magic: give --name XATTR",
            bytes.len()
        );
    };
    let known: Vec<String> = MAGICS
        .iter()
        .map(|(m, name)| format!("{m:#x} ({name})"))
        .collect();
    format!(
        "cannot tell the payload kind: the u32 at offset 0 is {:#010x}, none of {}, \
         0x????{LOV_MAGIC_LOW:04x} ({}) or a pin's `[`: give --name XATTR",
        u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
        known.join(", "),
        xattr_names::LOV
    )
}

/// `getfattr -e hex` output: `# file: PATH` lines and `name=0xHEX` pairs.
fn is_getfattr(text: &[u8]) -> bool {
    let Ok(s) = std::str::from_utf8(text) else {
        return false;
    };
    s.lines().any(|l| {
        l.starts_with("# file:") || l.split_once("=0x").is_some_and(|(n, _)| !n.contains(' '))
    })
}

/// How payloads are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Like getfacl / lfs: for getfattr input `NAME:` then the rendering; a lone payload
    /// exactly as lfs or getfacl prints it.
    Text,
    /// A lone payload's text without a heading.
    Bare,
    /// One pretty-printed JSON object (a lone payload).
    Json,
    /// One compact JSON object a line (getfattr input).
    JsonLines,
}

/// One attribute's output in `form`, ending in a newline. `input` names where it came from,
/// for the note a JSON form prints when it would not encode back to `bytes`.
fn show(
    form: Form,
    input: &Input,
    file: Option<&str>,
    name: &str,
    bytes: &[u8],
    o: &TextOpts,
) -> Result<String, String> {
    Ok(match form {
        Form::Text => format!("{name}:\n{}\n", render_with(name, bytes, o)?),
        Form::Bare => render_with(name, bytes, o)?,
        Form::Json => {
            serde_json::to_string_pretty(&doc(input, file, name, bytes, o)?)
                .map_err(|e| format!("{name}: {e}"))?
                + "\n"
        }
        Form::JsonLines => {
            serde_json::to_string(&doc(input, file, name, bytes, o)?)
                .map_err(|e| format!("{name}: {e}"))?
                + "\n"
        }
    })
}

/// The attribute as the document `--json` prints, validated by its decoder. A payload the
/// decoder accepts but that is not in its canonical form (WIRE.md §11: a composite layout's
/// blobs out of order or with gaps, an ACL `e_id` other than 0xFFFFFFFF where it names no
/// one) encodes back to other bytes: a note on standard error says so, as `decode` does.
fn doc(
    input: &Input,
    file: Option<&str>,
    name: &str,
    bytes: &[u8],
    o: &TextOpts,
) -> Result<XattrDoc, String> {
    let doc =
        XattrDoc::decode(file, name, bytes, o.layout_of).map_err(|e| format!("{name}: {e}"))?;
    if let Ok(again) = doc.payload.to_bytes() {
        let at = match file {
            Some(f) => format!("xattr: {input}: {f}: {name}"),
            None => format!("xattr: {input}: {name}"),
        };
        crate::common::note_if_reencodes_otherwise(&at, bytes, &again);
    }
    Ok(doc)
}

/// `dne-intent xattr [--json] [--name XATTR] [lfs options] [FILE|-]`
pub fn cmd_xattr(
    input: &Input,
    json: bool,
    only: Option<&str>,
    opts: &TextOpts,
    out_: &mut Output,
) -> Result<(), CliError> {
    let raw = input.read()?;
    let mut out = String::new();
    let mut failures = Vec::new();
    if is_getfattr(&raw) {
        let form = if json { Form::JsonLines } else { Form::Text };
        let text = String::from_utf8_lossy(&raw);
        let mut found = 0usize;
        let mut file: Option<String> = None;
        for line in text.lines() {
            if let Some(f) = line.strip_prefix("# file:") {
                let f = f.trim();
                if !json {
                    let _ = writeln!(out, "# file: {f}");
                }
                file = Some(f.to_string());
                continue;
            }
            let Some((name, value)) = line.split_once('=') else {
                // `getfattr -m -` without `-d` lists names only.
                if !json && !line.trim().is_empty() && !line.starts_with('#') {
                    let _ = writeln!(
                        out,
                        "{}: (name only: dump values with getfattr -d -e hex)",
                        line.trim()
                    );
                }
                continue;
            };
            if only.is_some_and(|n| n != name) {
                continue;
            }
            if !value.starts_with("0x") {
                if json {
                    failures.push(format!("{name}: not hex: run getfattr with -e hex"));
                } else {
                    let _ = writeln!(out, "{name}: (not hex: run getfattr with -e hex)");
                }
                continue;
            }
            found += 1;
            // The plain form skips exactly the `0x` just checked for: errors count from after it.
            match hex::decode_form(value, HexForm::Plain)
                .map_err(|e| format!("{name}: {e}"))
                .and_then(|b| {
                    // getfattr names the file: that is lfs's path line.
                    let mut o = opts.clone();
                    if o.path.is_none() {
                        o.path.clone_from(&file);
                    }
                    show(form, input, file.as_deref(), name, &b, &o)
                }) {
                Ok(text) => out.push_str(&text),
                Err(e) => failures.push(e),
            }
        }
        if found == 0 {
            out_.write(out.as_bytes())?;
            let mut msg = String::from(
                "no name=0x… value in the getfattr output (use getfattr -d -e hex -m - FILE)",
            );
            for f in &failures {
                msg.push_str("; ");
                msg.push_str(f);
            }
            return Err(input.error(msg));
        }
    } else {
        let form = if json { Form::Json } else { Form::Bare };
        let bytes = match hex::form(&raw) {
            Some(form) => hex::decode_form(&raw, form).map_err(|e| input.error(e))?,
            None => raw,
        };
        let name = match only {
            Some(n) => n.to_string(),
            None => guess_name(&bytes)
                .ok_or_else(|| input.error(unknown_kind(&bytes)))?
                .to_string(),
        };
        // LMV_MAGIC_STRIPE and LMV_USER_MAGIC_SPECIFIC share 0x0CD40CD0: without --name, a
        // payload that is not a stripe LMV is tried as a SPECIFIC default LMV.
        let shown = match show(form, input, None, &name, &bytes, opts) {
            Err(_) if only.is_none() && bytes.get(..4) == Some(&[0xd0, 0x0c, 0xd4, 0x0c]) => {
                show(form, input, None, xattr_names::DMV, &bytes, opts)
            }
            other => other,
        };
        match shown {
            Ok(text) => out.push_str(&text),
            Err(e) => failures.push(e),
        }
    }
    out_.write(out.as_bytes())?;
    if failures.is_empty() {
        Ok(())
    } else {
        Err(input.error(failures.join("; ")))
    }
}
