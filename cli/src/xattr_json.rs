//! The JSON form of an xattr payload: `xattr --json` writes it, `encode` reads it back.
//!
//! # Schema
//!
//! **Names and values** follow the rules of `decode --json` (see `json.rs`): every field of a
//! Lustre structure appears under its C name without the structure's own prefix (`lmv_`,
//! `lum_`, `lmm_`, `lcm_`, `lcme_`, `lfm_`, `l_ost_`, `oi_`, `e_`, `a_`): `lmv_stripe_count` is
//! `"stripe_count"`, `lum_max_inherit` is `"max_inherit"`, `lmm_pattern` is `"pattern"`,
//! `lcme_extent.e_start` is `"extent": {"start"}`. Integers are JSON numbers (magics, flags,
//! patterns and hash types included); FIDs are strings in Lustre's text form
//! `"[0x200000400:0x1:0x0]"`; opaque bytes (a pin, a foreign `lfm_value`) are lowercase hex
//! strings. Padding that is not zero is shown as `"padding": "hex"` (and written back); absent,
//! it is zero.
//!
//! A pool name is a string, or `{"hex": "32 digits"}` (the whole 16-byte field) when it is not
//! printable ASCII or holds bytes after its NUL, so that every valid payload survives a round
//! trip.
//!
//! ```text
//! PAYLOAD = { "file": path (getfattr input only; ignored by encode),
//!             "xattr": "system.posix_acl_access" | "trusted.lmv" | ... (the xattr name),
//!             "kind": "acl" | "pin" | "lmv" | "dmv" | "lov" | "opaque",
//!             ...the fields of its kind }
//! acl     (posix_acl_xattr_header): "version": 2,
//!         "entries": [ { "tag", "perm", "id" }, ... ]    (e_tag, e_perm, e_id; id 4294967295
//!                                                         for entries that name no one)
//! pin     "value": "hex" (the bytes, carried verbatim),
//!         "entries": [ { "key": "hsm", "value": 3 } | { "key": "pool" | other, "value": "..." } ],
//!         "errors": [ { "offset", "error" } ]            (where the text breaks the grammar)
//! lmv     magic LMV_MAGIC_V1 / LMV_MAGIC_STRIPE (lmv_mds_md_v1):
//!         "magic", "stripe_count", "master_mdt_index" (LMV_MAGIC_STRIPE: "stripe_index", the
//!         same field), "hash_type", "layout_version",
//!         "migrate_offset", "migrate_hash", "pool_name", "stripe_fids": [fid, ...],
//!         "form": "with_fids" | "header_only" (informational; the 56-byte on-disk form
//!         has no FIDs)
//!         magic LMV_MAGIC_FOREIGN: FOREIGN
//! dmv     (lmv_user_md_v1): "magic", "stripe_count" (signed), "stripe_offset", "hash_type",
//!         "type", "max_inherit", "max_inherit_rr", "pool_name",
//!         "objects": [ { "fid", "mds" }, ... ]           (LMV_USER_MAGIC_SPECIFIC only)
//! lov     magic LOV_MAGIC_V1 / _V3 / _SPECIFIC: PLAIN
//!         magic LOV_MAGIC_COMP_V1 or LOV_MAGIC_SEL (lov_comp_md_v1): "magic", "size", "layout_gen", "flags",
//!         "entry_count", "mirror_count", "ec_count", "entries": [ ENTRY, ... ]
//!         magic LOV_MAGIC_FOREIGN: FOREIGN
//! opaque  "value": "hex"        (an attribute this tool does not decode, from getfattr input)
//!
//! PLAIN   = { "magic", "pattern", "oi": { "id", "seq" }, "stripe_size", "stripe_count",
//!             "layout_gen" | "stripe_offset" (the union at offset 30, under the member that
//!             applies: lmm_layout_gen in a file's instantiated layout, lmm_stripe_offset in
//!             a directory default or an uninstantiated component; `--layout-of`, else
//!             guessed; encode takes either), "pool_name" (null for LOV_MAGIC_V1),
//!             "objects": [ { "oi": { "id", "seq" } (the raw words: oi_id = bytes 0-7,
//!             oi_seq = bytes 8-15), "gen", "idx",
//!             "ostid": { "form": "legacy" | "idif" | "fid" | "lov_default", "seq", "id" }
//!             (ostid_seq()/ostid_id(), informational), "fid" (ostid_to_fid(), or null) }, ... ] }
//! ENTRY   = { "id", "flags", "extent": { "start", "end" }, "offset", "size", "layout_gen",
//!             "time_and_id", "dstripe_count", "cstripe_count", "compr_type", "compr_lvl",
//!             "compr_chunk_log_bits", "layout": PLAIN | FOREIGN }
//! FOREIGN = { "magic", "length", "type", "flags", "value": "hex" }   (lfm_*)
//! ```
//!
//! **Output.** A lone payload is printed as one pretty-printed object. `getfattr -e hex` input
//! is printed as JSON Lines: one compact object per attribute, one per line, in input order
//! (with `"file"` from the preceding `# file:` line), so `head -n 1`, `grep` and `jq` work on it.
//!
//! **Reading it back** (`encode`). A JSON object is a payload when it has an `"xattr"` key or its
//! `"kind"` is one of the kinds above (a message's is `"request"` or `"reply"`). Every field
//! above is required and an unknown key is an error, except these, which are derived or
//! informational and ignored: `"file"`; a pin's `"entries"` and `"errors"`; a foreign layout's
//! `"length"`; a composite layout's `"size"` and `"entry_count"` and each entry's `"offset"` and
//! `"size"` (the encoder packs the components after the entry table, in order). `"xattr"` is
//! optional; when it names a payload this tool knows, it must agree with `"kind"`. The variant
//! is chosen by `"magic"`, whose value is otherwise checked by the payload's decoder: the
//! payload is built as the library's owned value and encoded with `XattrEncode`, which refuses
//! anything its own decoder would refuse (the error is the decoder's).

use crate::input::to_hex;
use crate::jtree::{J, Obj, bytes_of, describe, fid, hex_obj, i, int, u, us};
use lustre_dne_intent::limits::{POOL_NAME_MAX, XATTR_SIZE_MAX};
use lustre_dne_intent::wire::LuFid;
use lustre_dne_intent::xattr::acl::POSIX_ACL_XATTR_VERSION;
use lustre_dne_intent::xattr::lov::LovComponentView;
use lustre_dne_intent::xattr::{
    Acl, AclEntry, AclPerm, AclTag, AclView, DefaultLmv, DefaultLmvView, ForeignMd, ForeignType,
    ForeignView, LMV_MAGIC_FOREIGN, LOV_MAGIC_COMP_V1, LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL,
    LOV_MAGIC_SPECIFIC, LOV_MAGIC_V1, LOV_MAGIC_V3, LayoutOf, LcmFlags, LcmeFlags, LmmUnion, Lmv,
    LmvHashType, LmvMd, LmvMdView, LmvUserMdsData, LmvView, Lov, LovBlob, LovBlobView, LovComp,
    LovCompView, LovComponent, LovMd, LovMdView, LovOstData, LovPattern, LovView, OstId, Pin,
    PinValue, PinView, PoolName, XattrEncode,
};
use serde_json::Value;

/// The payload kinds, as `"kind"` spells them.
pub const KINDS: [&str; 6] = ["acl", "pin", "lmv", "dmv", "lov", "opaque"];

/// The payload kind an xattr name holds (client-visible `lustre.*` aliases included), or
/// `None` for an attribute this tool does not decode.
pub fn kind_of(name: &str) -> Option<&'static str> {
    Some(match name {
        "system.posix_acl_access" | "system.posix_acl_default" => "acl",
        "trusted.pin" | "lustre.pin" => "pin",
        "trusted.lmv" | "lustre.lmv" => "lmv",
        "trusted.dmv" | "lustre.dmv" => "dmv",
        "trusted.lov" | "lustre.lov" => "lov",
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------------
// Payload → JSON.

/// The JSON form of the attribute `name` holding `bytes`, validated by its decoder; `file` is
/// the file it was read from (getfattr input), when known. An attribute this tool does not
/// decode is `"kind": "opaque"`.
pub fn payload_json(
    file: Option<&str>,
    name: &str,
    bytes: &[u8],
    layout_of: Option<LayoutOf>,
) -> Result<J, String> {
    let err = |e: lustre_dne_intent::DecodeError| format!("{name}: {e}");
    let kind = kind_of(name).unwrap_or("opaque");
    let mut o = Vec::new();
    if let Some(f) = file {
        o.push(("file", J::S(f.to_string())));
    }
    o.push(("xattr", J::S(name.to_string())));
    o.push(("kind", J::S(kind.to_string())));
    match kind {
        "acl" => o.extend(acl_fields(&AclView::parse(bytes).map_err(err)?)),
        "pin" => o.extend(pin_fields(&PinView::parse(bytes).map_err(err)?)),
        "lmv" => o.extend(match LmvView::parse(bytes).map_err(err)? {
            LmvView::Md(m) => lmv_fields(&m),
            LmvView::Foreign(f) => foreign_fields(&f),
        }),
        "dmv" => o.extend(dmv_fields(&DefaultLmvView::parse(bytes).map_err(err)?)),
        "lov" => {
            let v = LovView::parse(bytes).map_err(err)?;
            let of = layout_of.unwrap_or_else(|| v.layout_of_guess());
            o.extend(match v {
                LovView::Md(m) => plain_fields(&m, of, true),
                LovView::Comp(c) => comp_fields(&c, of),
                LovView::Foreign(f) => foreign_fields(&f),
            })
        }
        _ => o.push(("value", J::S(to_hex(bytes)))),
    }
    Ok(J::O(o))
}

type Fields = Vec<(&'static str, J)>;

fn acl_fields(v: &AclView<'_>) -> Fields {
    let entries = v
        .entries()
        .map(|e| {
            J::O(vec![
                ("tag", u(e.tag.0)),
                ("perm", u(e.perm.0)),
                ("id", u(e.id)),
            ])
        })
        .collect();
    vec![
        ("version", u(POSIX_ACL_XATTR_VERSION)),
        ("entries", J::A(entries)),
    ]
}

fn lossy(b: &[u8]) -> J {
    J::S(String::from_utf8_lossy(b).into_owned())
}

fn pin_fields(v: &PinView<'_>) -> Fields {
    let mut entries = Vec::new();
    let mut errors = Vec::new();
    for e in v.entries() {
        match e {
            Ok(e) => {
                let value = match e.value {
                    PinValue::Hsm(n) => u(n),
                    PinValue::Pool(b) | PinValue::Other(b) => lossy(b),
                };
                entries.push(J::O(vec![("key", lossy(e.key)), ("value", value)]));
            }
            Err(e) => errors.push(J::O(vec![
                ("offset", us(e.offset)),
                ("error", J::S(e.kind.to_string())),
            ])),
        }
    }
    vec![
        ("value", J::S(to_hex(v.as_bytes()))),
        ("entries", J::A(entries)),
        ("errors", J::A(errors)),
    ]
}

fn pool_json(p: &PoolName) -> J {
    let name = p.as_bytes();
    let clean =
        p.0.get(name.len()..)
            .is_some_and(|r| r.iter().all(|&c| c == 0));
    if clean && name.iter().all(|c| (0x20..0x7f).contains(c)) {
        lossy(name)
    } else {
        hex_obj(&p.0)
    }
}

/// `"padding": "hex"` when any byte is not zero.
fn padding_field(o: &mut Fields, bytes: &[u8]) {
    if bytes.iter().any(|&b| b != 0) {
        o.push(("padding", J::S(to_hex(bytes))));
    }
}

/// An optional `"padding"` of exactly `N` bytes (zero when absent).
fn padding_from<const N: usize>(o: &mut Obj) -> Result<[u8; N], String> {
    let path = o.path_of("padding");
    let Some(v) = o.take_opt("padding") else {
        return Ok([0; N]);
    };
    let Value::String(s) = &v else {
        return Err(format!(
            "{path}: expected a hex string, got {}",
            describe(&v)
        ));
    };
    let b = crate::input::decode_hex(s.as_bytes()).map_err(|e| format!("{path}: {e}"))?;
    b.try_into()
        .map_err(|b: Vec<u8>| format!("{path}: expected {N} bytes, got {}", b.len()))
}

fn lmv_fields(m: &LmvMdView<'_>) -> Fields {
    let mut o = vec![
        ("magic", u(m.magic())),
        ("stripe_count", u(m.stripe_count())),
        // One field, two meanings: the master's MDT, or on a stripe object its index.
        (
            if m.is_stripe() {
                "stripe_index"
            } else {
                "master_mdt_index"
            },
            u(m.master_mdt_index()),
        ),
        ("hash_type", u(m.hash_type().0)),
        ("layout_version", u(m.layout_version())),
        ("migrate_offset", u(m.migrate_offset())),
        ("migrate_hash", u(m.migrate_hash().0)),
        ("pool_name", pool_json(m.pool_name())),
        ("stripe_fids", J::A(m.stripe_fids().map(fid).collect())),
        ("form", J::S(m.form().name().into())),
    ];
    padding_field(&mut o, &m.padding());
    o
}

fn foreign_fields(f: &ForeignView<'_>) -> Fields {
    vec![
        ("magic", u(f.magic())),
        ("length", us(f.value().len())),
        ("type", u(f.foreign_type().0)),
        ("flags", u(f.flags())),
        ("value", J::S(to_hex(f.value()))),
    ]
}

fn dmv_fields(v: &DefaultLmvView<'_>) -> Fields {
    let objects = v
        .objects()
        .map(|o| {
            let mut f = vec![("fid", fid(o.fid)), ("mds", u(o.mds))];
            padding_field(&mut f, &o.padding.to_le_bytes());
            J::O(f)
        })
        .collect();
    let mut o = vec![
        ("magic", u(v.magic())),
        ("stripe_count", i(v.stripe_count())),
        ("stripe_offset", u(v.stripe_offset())),
        ("hash_type", u(v.hash_type().0)),
        ("type", u(v.lum_type())),
        ("max_inherit", u(v.max_inherit())),
        ("max_inherit_rr", u(v.max_inherit_rr())),
        ("pool_name", pool_json(v.pool_name())),
        ("objects", J::A(objects)),
    ];
    padding_field(&mut o, &v.padding());
    o
}

fn oi_json(oi: OstId) -> J {
    J::O(vec![("id", u(oi.id)), ("seq", u(oi.seq))])
}

fn plain_fields(m: &LovMdView<'_>, of: LayoutOf, instantiated: bool) -> Fields {
    let objects = m
        .objects()
        .map(|o| {
            J::O(vec![
                ("oi", oi_json(o.oi)),
                ("gen", u(o.gen_)),
                ("idx", u(o.idx)),
                (
                    "ostid",
                    J::O(vec![
                        ("form", J::S(o.oi.form().name().into())),
                        ("seq", u(o.oi.ostid_seq())),
                        ("id", u(o.oi.ostid_id())),
                    ]),
                ),
                ("fid", o.oi.to_fid(o.idx).map_or(J::Null, fid)),
            ])
        })
        .collect();
    let union = m.union_member(of, instantiated);
    let union_key = match union {
        LmmUnion::LayoutGen(_) => "layout_gen",
        LmmUnion::StripeOffset(_) => "stripe_offset",
    };
    vec![
        ("magic", u(m.magic())),
        ("pattern", u(m.pattern().0)),
        ("oi", oi_json(m.oi())),
        ("stripe_size", u(m.stripe_size())),
        ("stripe_count", u(m.stripe_count())),
        (union_key, u(union.value())),
        ("pool_name", m.pool_name().map_or(J::Null, pool_json)),
        ("objects", J::A(objects)),
    ]
}

fn entry_json(c: &LovComponentView<'_>, of: LayoutOf) -> J {
    let e = &c.entry;
    J::O(vec![
        ("id", u(e.id)),
        ("flags", u(e.flags.0)),
        (
            "extent",
            J::O(vec![("start", u(e.extent_start)), ("end", u(e.extent_end))]),
        ),
        ("offset", u(e.offset)),
        ("size", u(e.size)),
        ("layout_gen", u(e.layout_gen)),
        ("time_and_id", u(e.time_and_id)),
        ("dstripe_count", u(e.dstripe_count)),
        ("cstripe_count", u(e.cstripe_count)),
        ("compr_type", u(e.compr_type)),
        ("compr_lvl", u(e.compr_bits & 0xf)),
        ("compr_chunk_log_bits", u(e.compr_bits >> 4)),
        (
            "layout",
            J::O(match &c.blob {
                LovBlobView::Md(m) => plain_fields(m, of, e.flags.contains(LcmeFlags::INIT)),
                LovBlobView::Foreign(f) => foreign_fields(f),
            }),
        ),
    ])
}

fn comp_fields(c: &LovCompView<'_>, of: LayoutOf) -> Fields {
    let mut o = vec![
        ("magic", u(c.magic())),
        ("size", us(c.wire_len())),
        ("layout_gen", u(c.layout_gen())),
        ("flags", u(c.flags().0)),
        ("entry_count", u(c.entry_count())),
        ("mirror_count", u(c.mirror_count())),
        ("ec_count", u(c.ec_count())),
        (
            "entries",
            J::A(c.components().map(|c| entry_json(&c, of)).collect()),
        ),
    ];
    padding_field(&mut o, &c.padding());
    o
}

// ---------------------------------------------------------------------------------------------
// JSON → payload.

/// True when `v` is the JSON of a payload rather than of a message: an object with an
/// `"xattr"` key or a payload `"kind"`.
pub fn is_payload(v: &Value) -> bool {
    let Value::Object(map) = v else {
        return false;
    };
    map.contains_key("xattr")
        || map
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| KINDS.contains(&k))
}

/// The elements of the array at `key`.
fn array(o: &mut Obj, key: &str) -> Result<(String, Vec<Value>), String> {
    let path = o.path_of(key);
    match o.take(key)? {
        Value::Array(items) => Ok((path, items)),
        other => Err(format!(
            "{path}: expected an array, got {}",
            describe(&other)
        )),
    }
}

fn hex_string(o: &mut Obj, key: &str) -> Result<Vec<u8>, String> {
    let path = o.path_of(key);
    let s = o.string(key)?;
    crate::input::decode_hex(s.as_bytes()).map_err(|e| format!("{path}: {e}"))
}

fn pool_from(o: &mut Obj, key: &str) -> Result<PoolName, String> {
    let path = o.path_of(key);
    pool_of(&path, o.take(key)?)
}

fn pool_of(path: &str, v: Value) -> Result<PoolName, String> {
    match v {
        v @ Value::Object(_) => {
            let b = bytes_of(path, v)?;
            let len = b.len();
            <[u8; POOL_NAME_MAX + 1]>::try_from(b)
                .map(PoolName)
                .map_err(|_| {
                    format!(
                        "{path}.hex: {len} bytes, expected the whole {}-byte field",
                        POOL_NAME_MAX + 1
                    )
                })
        }
        Value::String(s) => PoolName::new(s.as_bytes()).ok_or_else(|| {
            format!("{path}: {s:?} is not a pool name (at most {POOL_NAME_MAX} bytes, no NUL)")
        }),
        other => Err(format!(
            "{path}: expected a string or {{\"hex\": ...}}, got {}",
            describe(&other)
        )),
    }
}

fn fid_of(path: &str, v: &Value) -> Result<LuFid, String> {
    match v {
        Value::String(s) => s.parse().map_err(|e| format!("{path}: {e}, got {s:?}")),
        other => Err(format!(
            "{path}: expected a FID string, got {}",
            describe(other)
        )),
    }
}

fn acl_from(mut o: Obj) -> Result<Acl, String> {
    let version: u32 = o.int("version")?;
    if version != POSIX_ACL_XATTR_VERSION {
        // The decoder's own words for an unsupported version.
        AclView::parse(&version.to_le_bytes()).map_err(|e| e.to_string())?;
    }
    let (path, items) = array(&mut o, "entries")?;
    let mut entries = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        let mut e = Obj::new(&format!("{path}[{k}]"), item)?;
        let entry = AclEntry::new(AclTag(e.int("tag")?), AclPerm(e.int("perm")?), e.int("id")?);
        e.finish(&[])?;
        entries.push(entry);
    }
    o.finish(&[])?;
    Ok(Acl::new(entries))
}

fn pin_from(mut o: Obj) -> Result<Pin, String> {
    let value = hex_string(&mut o, "value")?;
    o.finish(&["entries", "errors"])?;
    Ok(Pin(bytes::Bytes::from(value)))
}

fn foreign_from(mut o: Obj) -> Result<ForeignMd, String> {
    let f = ForeignMd {
        foreign_type: ForeignType(o.int("type")?),
        flags: o.int("flags")?,
        value: bytes::Bytes::from(hex_string(&mut o, "value")?),
    };
    o.finish(&["length"])?;
    Ok(f)
}

fn lmv_from(mut o: Obj) -> Result<Lmv, String> {
    let magic: u32 = o.int("magic")?;
    if magic == LMV_MAGIC_FOREIGN {
        return foreign_from(o).map(Lmv::Foreign);
    }
    let stripe_count = o.int("stripe_count")?;
    let master_mdt_index = match o.take_opt("stripe_index") {
        Some(v) => int(&o.path_of("stripe_index"), &v)?,
        None => o.int("master_mdt_index")?,
    };
    let hash_type = LmvHashType(o.int("hash_type")?);
    let layout_version = o.int("layout_version")?;
    let migrate_offset = o.int("migrate_offset")?;
    let migrate_hash = LmvHashType(o.int("migrate_hash")?);
    let pool_name = pool_from(&mut o, "pool_name")?;
    let padding = padding_from(&mut o)?;
    let (path, items) = array(&mut o, "stripe_fids")?;
    let stripe_fids = items
        .iter()
        .enumerate()
        .map(|(k, v)| fid_of(&format!("{path}[{k}]"), v))
        .collect::<Result<_, _>>()?;
    o.finish(&["form"])?;
    Ok(Lmv::Md(LmvMd {
        padding,
        magic,
        stripe_count,
        master_mdt_index,
        hash_type,
        layout_version,
        migrate_offset,
        migrate_hash,
        pool_name,
        stripe_fids,
    }))
}

fn dmv_from(mut o: Obj) -> Result<DefaultLmv, String> {
    let magic = o.int("magic")?;
    let stripe_count = o.int("stripe_count")?;
    let stripe_offset = o.int("stripe_offset")?;
    let hash_type = LmvHashType(o.int("hash_type")?);
    let lum_type = o.int("type")?;
    let max_inherit = o.int("max_inherit")?;
    let max_inherit_rr = o.int("max_inherit_rr")?;
    let pool_name = pool_from(&mut o, "pool_name")?;
    let padding = padding_from(&mut o)?;
    let (path, items) = array(&mut o, "objects")?;
    let mut objects = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        let mut m = Obj::new(&format!("{path}[{k}]"), item)?;
        objects.push(LmvUserMdsData {
            fid: m.fid("fid")?,
            mds: m.int("mds")?,
            padding: u32::from_le_bytes(padding_from(&mut m)?),
        });
        m.finish(&[])?;
    }
    o.finish(&[])?;
    Ok(DefaultLmv {
        magic,
        stripe_count,
        stripe_offset,
        hash_type,
        lum_type,
        max_inherit,
        max_inherit_rr,
        padding,
        pool_name,
        objects,
    })
}

fn oi_from(mut o: Obj) -> Result<OstId, String> {
    let oi = OstId {
        id: o.int("id")?,
        seq: o.int("seq")?,
    };
    o.finish(&[])?;
    Ok(oi)
}

fn plain_from(mut o: Obj, magic: u32) -> Result<LovMd, String> {
    let pattern = LovPattern(o.int("pattern")?);
    let oi = oi_from(o.obj("oi")?)?;
    let stripe_size = o.int("stripe_size")?;
    let stripe_count = o.int("stripe_count")?;
    // The union at offset 30, under either member's name.
    let stripe_offset = match (o.take_opt("layout_gen"), o.take_opt("stripe_offset")) {
        (Some(v), None) => int(&o.path_of("layout_gen"), &v)?,
        (None, Some(v)) => int(&o.path_of("stripe_offset"), &v)?,
        (None, None) => return Err(format!("{}: missing", o.path_of("stripe_offset"))),
        (Some(_), Some(_)) => {
            return Err(format!(
                "{}: layout_gen and stripe_offset are one union: give one",
                o.path_of("stripe_offset")
            ));
        }
    };
    let pool_path = o.path_of("pool_name");
    let pool_name = match o.take("pool_name")? {
        Value::Null => None,
        v => Some(pool_of(&pool_path, v)?),
    };
    // Any other magic is left to the decoder, which names it.
    match (magic, pool_name.is_some()) {
        (LOV_MAGIC_V1, true) => {
            return Err(format!(
                "{pool_path}: lov_user_md_v1 (LOV_MAGIC_V1) has no pool name: give null"
            ));
        }
        (LOV_MAGIC_V3 | LOV_MAGIC_SPECIFIC, false) => {
            return Err(format!(
                "{pool_path}: lov_user_md_v3 has a pool name field: give a string (\"\" for none)"
            ));
        }
        _ => {}
    }
    let (path, items) = array(&mut o, "objects")?;
    let mut objects = Vec::with_capacity(items.len());
    for (k, item) in items.into_iter().enumerate() {
        let mut d = Obj::new(&format!("{path}[{k}]"), item)?;
        objects.push(LovOstData {
            oi: oi_from(d.obj("oi")?)?,
            gen_: d.int("gen")?,
            idx: d.int("idx")?,
        });
        d.finish(&["ostid", "fid"])?;
    }
    o.finish(&[])?;
    Ok(LovMd {
        magic,
        pattern,
        oi,
        stripe_size,
        stripe_count,
        stripe_offset,
        pool_name,
        objects,
    })
}

fn nibble(o: &mut Obj, key: &str) -> Result<u8, String> {
    let path = o.path_of(key);
    let v = o.take(key)?;
    int::<u8>(&path, &v)
        .ok()
        .filter(|&n| n <= 0xf)
        .ok_or_else(|| format!("{path}: expected an integer 0..=15, got {}", describe(&v)))
}

fn component_from(mut o: Obj) -> Result<LovComponent, String> {
    let id = o.int("id")?;
    let flags = LcmeFlags(o.int("flags")?);
    let mut ext = o.obj("extent")?;
    let extent_start = ext.int("start")?;
    let extent_end = ext.int("end")?;
    ext.finish(&[])?;
    let layout_gen = o.int("layout_gen")?;
    let time_and_id = o.int("time_and_id")?;
    let dstripe_count = o.int("dstripe_count")?;
    let cstripe_count = o.int("cstripe_count")?;
    let compr_type = o.int("compr_type")?;
    let compr_bits = nibble(&mut o, "compr_lvl")? | nibble(&mut o, "compr_chunk_log_bits")? << 4;
    let mut layout = o.obj("layout")?;
    let magic: u32 = layout.int("magic")?;
    let blob = if magic == LOV_MAGIC_FOREIGN {
        LovBlob::Foreign(foreign_from(layout)?)
    } else {
        LovBlob::Md(plain_from(layout, magic)?)
    };
    o.finish(&["offset", "size"])?;
    Ok(LovComponent {
        id,
        flags,
        extent_start,
        extent_end,
        layout_gen,
        time_and_id,
        dstripe_count,
        cstripe_count,
        compr_type,
        compr_bits,
        blob,
    })
}

fn lov_from(mut o: Obj) -> Result<Lov, String> {
    let magic: u32 = o.int("magic")?;
    match magic {
        LOV_MAGIC_FOREIGN => foreign_from(o).map(Lov::Foreign),
        LOV_MAGIC_COMP_V1 | LOV_MAGIC_SEL => {
            let padding = padding_from(&mut o)?;
            let layout_gen = o.int("layout_gen")?;
            let flags = LcmFlags(o.int("flags")?);
            let mirror_count = o.int("mirror_count")?;
            let ec_count = o.int("ec_count")?;
            let (path, items) = array(&mut o, "entries")?;
            let components = items
                .into_iter()
                .enumerate()
                .map(|(k, item)| component_from(Obj::new(&format!("{path}[{k}]"), item)?))
                .collect::<Result<_, _>>()?;
            o.finish(&["size", "entry_count"])?;
            Ok(Lov::Comp(LovComp {
                sel: magic == LOV_MAGIC_SEL,
                padding,
                layout_gen,
                flags,
                mirror_count,
                ec_count,
                components,
            }))
        }
        // Any other magic, known or not, is judged by the decoder.
        _ => plain_from(o, magic).map(Lov::Md),
    }
}

fn to_vec<T: XattrEncode>(value: &T) -> Result<Vec<u8>, String> {
    value
        .to_bytes()
        .map(|b| b.to_vec())
        .map_err(|e| e.to_string())
}

/// Builds the payload a JSON value describes, validates it with its decoder's rules and
/// returns its bytes.
pub fn encode(value: Value) -> Result<Vec<u8>, String> {
    let mut top = Obj::new("", value)?;
    let kind = top.string("kind")?;
    if !KINDS.contains(&kind.as_str()) {
        return Err(format!(
            "kind: expected one of {} (an xattr payload), got {kind:?}",
            KINDS.join(", ")
        ));
    }
    if let Some(name) = top.take_opt("xattr") {
        let Value::String(name) = name else {
            return Err(format!(
                "xattr: expected the xattr name as a string, got {}",
                describe(&name)
            ));
        };
        let holds = kind_of(&name).unwrap_or("opaque");
        if holds != kind {
            return Err(format!(
                "xattr: {name:?} holds a {holds} payload, but kind is {kind:?}"
            ));
        }
    }
    top.take_opt("file");
    match kind.as_str() {
        "acl" => to_vec(&acl_from(top)?),
        "pin" => to_vec(&pin_from(top)?),
        "lmv" => to_vec(&lmv_from(top)?),
        "dmv" => to_vec(&dmv_from(top)?),
        "lov" => to_vec(&lov_from(top)?),
        _ => {
            let value = hex_string(&mut top, "value")?;
            top.finish(&[])?;
            if value.len() > XATTR_SIZE_MAX {
                return Err(format!(
                    "value: {} bytes, larger than the xattr limit of {XATTR_SIZE_MAX}",
                    value.len()
                ));
            }
            Ok(value)
        }
    }
}
