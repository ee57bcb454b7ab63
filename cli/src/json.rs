//! The JSON form of a message: `decode --json` writes it, `encode` reads it back.
//!
//! # Schema
//!
//! **Names.** Every field of a Lustre structure appears under its C name without the
//! structure's own prefix, that is the abbreviation of the structure's name carried by all of
//! its fields: `lm_` (`lustre_msg_v2`), `pb_` (`ptlrpc_body`), `l_` (`ldlm_lock_desc`), `lr_`
//! (`ldlm_resource_desc`), `mcpr_` (`md_create_prepare_req`), `mcpp_` (`md_create_prepare_rep`),
//! `mbo_` (`mdt_body`). Names that carry no such prefix are kept whole: the `lock_*` fields of
//! `ldlm_request` and `ldlm_reply` (`lock_` is a word, not an abbreviation of the structure:
//! `lock_policy_res1` stays `lock_policy_res1`), the fields of `ldlm_inodebits` (`bits`,
//! `try_bits`, `li_gid`, `li_initiator_id`: no prefix common to all) and `opc` of
//! `ldlm_intent`. The one-member `ldlm_res_id` is flattened: `lr_name.name[4]` is `"name"`.
//! Padding and reserved fields are not shown; they are written as zero.
//!
//! **Values.** Integers are JSON numbers, flags, masks, modes and opcodes included; fixed
//! arrays are arrays of numbers; FIDs are strings in Lustre's text form
//! `"[0x200000401:0x1:0x0]"`; opaque handles (`pb_handle`, `lock_handle`, `mbo_open_handle`)
//! are numbers, the 8 bytes read little-endian whatever the message's order; result payloads
//! are lowercase hex strings; the byte order is `"le"` or `"be"`.
//!
//! ```text
//! REQUEST = {
//!   "kind": "request", "order": "le" | "be",
//!   "header": HEADER, "ptlrpc_body": PTLRPC_BODY,
//!   "ldlm_request": { "lock_flags", "lock_count", "lock_desc": LOCK_DESC,
//!                     "lock_handle": [u64, ...] (2 to 32) },
//!   "ldlm_intent": { "opc" },
//!   "md_create_prepare_req": { "fid", "flags", "fsuid", "fsgid", "umask", "cap",
//!                              "child_mode", "buf_limit": [6] },
//!   "name": "newdir" | { "hex": "..." } (not UTF-8) | null (object mode),
//!   "groups": [gid, ...]
//! }
//! REPLY = {
//!   "kind": "reply", "order": "le" | "be",
//!   "header": HEADER, "ptlrpc_body": PTLRPC_BODY,
//!   "ldlm_reply": { "lock_flags", "lock_desc": LOCK_DESC, "lock_handle",
//!                   "lock_policy_res1", "lock_policy_res2" },
//!   "md_create_prepare_rep": { "status", "flags", "valid", "truncated", "fid", "child_mode",
//!                              "child_gid", "child_projid", "child_flags", "buf_size": [6] }
//!                            | null (the empty result),
//!   "results": [ six RESULT, in MLI_BUF index order ]
//! }
//! HEADER = { "bufcount", "secflvr", "magic", "repsize", "cksum", "flags", "opc",
//!            "buflens": [..] }
//! PTLRPC_BODY = { "handle", "type", "version", "opc", "status", "last_xid", "tag", "projid",
//!                 "last_committed", "transno", "flags", "op_flags", "conn_cnt", "timeout",
//!                 "service_time", "limit", "slv", "pre_versions": [4], "mbits", "uid", "gid",
//!                 "jobid" }
//!   jobid: a string when printable ASCII followed by NUL padding, else { "hex": "64 digits" };
//!          null for a 152-byte ptlrpc_body_v2 (no jobid); encoded, null writes a v3 body with
//!          a zero job id (the canonical form).
//! LOCK_DESC = { "resource": { "type", "name": [4] }, "req_mode", "granted_mode",
//!               "policy_data": { "bits", "try_bits", "li_gid", "li_initiator_id" } }
//! RESULT = { "buf": "MLI_BUF_PATTR" | "MLI_BUF_DEF_ACL" | ...,
//!            "state": "present" | "absent" | "unknown" | "truncated",
//!            "size": bytes present, or the real size when truncated (omitted otherwise),
//!            "data": "hex" (present) | null,
//!            "mdt_body": MDT_BODY (a present MLI_BUF_PATTR only) }
//! MDT_BODY = { "fid1", "fid2", "open_handle", "valid", "size", "mtime", "atime", "ctime",
//!              "blocks", "version", "t_state", "fsuid", "fsgid", "capability", "mode", "uid",
//!              "gid", "flags", "rdev", "nlink", "layout_gen", "suppgid", "eadatasize",
//!              "aclsize", "max_mdsize", "uid_h", "gid_h", "projid", "dom_size", "dom_blocks",
//!              "btime", "xattr_absent" }
//! ```
//!
//! **Reading it back** (`encode`). Every field above is required, and an unknown key is an
//! error, except these, which are derived or informational and ignored: `header.magic`,
//! `header.buflens`, and each result's `buf` (checked to name its index when given), `state`,
//! `size` and `mdt_body`. A result's bytes come from its `data` (`null` or `""`: empty buffer);
//! whether it is present, absent, unknown or truncated comes from `mcpp_valid`,
//! `mcpp_truncated` and `mcpp_buf_size`, as on the wire. `header.bufcount` is optional: the
//! encoder writes 6 request or 9 reply buffers (the canonical form), a smaller `bufcount` leaves
//! out trailing buffers, which must then be empty (the 2-buffer form of the empty result), and a
//! larger one (up to 32) adds empty buffers past the last (which a decoder accepts when empty,
//! WIRE.md W2.2), so the JSON of any decoded message encodes back. The message is validated with
//! the crate's own rules before it is written.

use crate::input::{decode_hex, to_hex};
use lustre_dne_intent::Endian;
use lustre_dne_intent::intent::{
    EntryName, GroupList, IntentOpc, McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq,
    MliBuf, PrepResult, PrepareOutcome, PrepareReply, PrepareRequest, ReplyView, RequestView,
    ResultMask, UnknownReason,
};
use lustre_dne_intent::limits::{JOBID_SIZE, MLI_BUF_MAX, MSG_MAX_BUFCOUNT};
use lustre_dne_intent::wire::{
    DispFlags, InodeBits, LUSTRE_MSG_MAGIC_V2, LdlmFlags, LdlmInodebits, LdlmLockDesc, LdlmReply,
    LdlmRequest, LdlmResId, LockHandles, LockMode, LockType, LuFid, LustreHandle, MdtBody,
    MsgBuilder, MsgFlags, MsgHeader, MsgView, PtlrpcBody, PtlrpcMsgType, WireStruct,
};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------------
// An ordered JSON tree for output.

/// A JSON value whose objects keep their keys in the order they were built (the schema order).
#[derive(Debug, Clone)]
pub enum J {
    /// `null`.
    Null,
    /// An unsigned number.
    U(u64),
    /// A signed number.
    I(i64),
    /// A string.
    S(String),
    /// An array.
    A(Vec<J>),
    /// An object, keys in order.
    O(Vec<(&'static str, J)>),
}

impl J {
    fn is_scalar(&self) -> bool {
        !matches!(self, J::A(_) | J::O(_))
    }

    /// Pretty-printed JSON: two-space indent, arrays of scalars on one line.
    pub fn to_pretty(&self) -> String {
        let mut s = String::new();
        self.write(&mut s, 0);
        s
    }

    /// Compact JSON on one line (no newline): `{"a": 1, "b": [2, 3]}`.
    pub fn to_compact(&self) -> String {
        let mut s = String::new();
        self.write_compact(&mut s);
        s
    }

    fn write_compact(&self, s: &mut String) {
        match self {
            J::A(items) => {
                s.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    item.write_compact(s);
                }
                s.push(']');
            }
            J::O(fields) => {
                s.push('{');
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    s.push_str(&Value::from(*k).to_string());
                    s.push_str(": ");
                    v.write_compact(s);
                }
                s.push('}');
            }
            scalar => scalar.write(s, 0),
        }
    }

    fn write(&self, s: &mut String, indent: usize) {
        match self {
            J::Null => s.push_str("null"),
            J::U(v) => s.push_str(&v.to_string()),
            J::I(v) => s.push_str(&v.to_string()),
            J::S(v) => s.push_str(&Value::from(v.as_str()).to_string()),
            J::A(items) if items.iter().all(J::is_scalar) => {
                s.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        s.push_str(", ");
                    }
                    item.write(s, indent);
                }
                s.push(']');
            }
            J::A(items) => {
                s.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    push_indent(s, indent + 2);
                    item.write(s, indent + 2);
                    s.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                push_indent(s, indent);
                s.push(']');
            }
            J::O(fields) if fields.is_empty() => s.push_str("{}"),
            J::O(fields) => {
                s.push_str("{\n");
                for (i, (k, v)) in fields.iter().enumerate() {
                    push_indent(s, indent + 2);
                    s.push_str(&Value::from(*k).to_string());
                    s.push_str(": ");
                    v.write(s, indent + 2);
                    s.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
                }
                push_indent(s, indent);
                s.push('}');
            }
        }
    }
}

fn push_indent(s: &mut String, n: usize) {
    s.extend(std::iter::repeat_n(' ', n));
}

pub(crate) fn u(v: impl Into<u64>) -> J {
    J::U(v.into())
}

pub(crate) fn us(v: usize) -> J {
    J::U(v as u64)
}

pub(crate) fn i(v: impl Into<i64>) -> J {
    J::I(v.into())
}

pub(crate) fn fid(f: LuFid) -> J {
    J::S(f.to_string())
}

fn arr<T: Copy>(items: &[T], f: impl Fn(T) -> J) -> J {
    J::A(items.iter().map(|&x| f(x)).collect())
}

pub(crate) fn hex_obj(bytes: &[u8]) -> J {
    J::O(vec![("hex", J::S(to_hex(bytes)))])
}

// ---------------------------------------------------------------------------------------------
// Message → JSON.

fn header_json(msg: &MsgView<'_>) -> J {
    let h = msg.header();
    J::O(vec![
        ("bufcount", us(msg.bufcount())),
        ("secflvr", u(h.secflvr)),
        ("magic", u(LUSTRE_MSG_MAGIC_V2)),
        ("repsize", u(h.repsize)),
        ("cksum", u(h.cksum)),
        ("flags", u(h.flags)),
        ("opc", u(h.opc)),
        ("buflens", arr(msg.buflens(), u)),
    ])
}

fn jobid_json(jobid: &Option<[u8; JOBID_SIZE]>) -> J {
    let Some(b) = jobid else {
        return J::Null;
    };
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    let (text, pad) = b.split_at(end);
    if text.iter().all(|c| (0x20..0x7f).contains(c)) && pad.iter().all(|&c| c == 0) {
        J::S(String::from_utf8_lossy(text).into_owned())
    } else {
        hex_obj(b)
    }
}

fn ptlrpc_json(p: &PtlrpcBody) -> J {
    J::O(vec![
        ("handle", u(p.handle.0)),
        ("type", u(p.msg_type.0)),
        ("version", u(p.version)),
        ("opc", u(p.opc)),
        ("status", i(p.status)),
        ("last_xid", u(p.last_xid)),
        ("tag", u(p.tag)),
        ("projid", u(p.projid)),
        ("last_committed", u(p.last_committed)),
        ("transno", u(p.transno)),
        ("flags", u(p.flags.0)),
        ("op_flags", u(p.op_flags)),
        ("conn_cnt", u(p.conn_cnt)),
        ("timeout", u(p.timeout)),
        ("service_time", u(p.service_time)),
        ("limit", u(p.limit)),
        ("slv", u(p.slv)),
        ("pre_versions", arr(&p.pre_versions, u)),
        ("mbits", u(p.mbits)),
        ("uid", u(p.uid)),
        ("gid", u(p.gid)),
        ("jobid", jobid_json(&p.jobid)),
    ])
}

fn lock_desc_json(d: &LdlmLockDesc) -> J {
    J::O(vec![
        (
            "resource",
            J::O(vec![
                ("type", u(d.lr_type.0)),
                ("name", arr(&d.resource.name, u)),
            ]),
        ),
        ("req_mode", u(d.req_mode.0)),
        ("granted_mode", u(d.granted_mode.0)),
        (
            "policy_data",
            J::O(vec![
                ("bits", u(d.policy.bits.0)),
                ("try_bits", u(d.policy.try_bits.0)),
                ("li_gid", u(d.policy.gid)),
                ("li_initiator_id", u(d.policy.initiator_id)),
            ]),
        ),
    ])
}

/// The JSON form of a validated request.
pub fn request_json(msg: &MsgView<'_>, view: &RequestView<'_>) -> J {
    let v = view.to_value();
    let b = &v.body;
    let name = match view.name() {
        None => J::Null,
        Some(n) => match std::str::from_utf8(n) {
            Ok(s) => J::S(s.to_string()),
            Err(_) => hex_obj(n),
        },
    };
    J::O(vec![
        ("kind", J::S("request".into())),
        ("order", J::S(view.order().name().into())),
        ("header", header_json(msg)),
        ("ptlrpc_body", ptlrpc_json(view.ptlrpc())),
        (
            "ldlm_request",
            J::O(vec![
                ("lock_flags", u(v.ldlm.lock_flags.0)),
                ("lock_count", u(v.ldlm.lock_count)),
                ("lock_desc", lock_desc_json(&v.ldlm.lock_desc)),
                (
                    "lock_handle",
                    arr(v.ldlm.handles.as_slice(), |h: LustreHandle| u(h.0)),
                ),
            ]),
        ),
        ("ldlm_intent", J::O(vec![("opc", u(v.opc.0))])),
        (
            "md_create_prepare_req",
            J::O(vec![
                ("fid", fid(b.fid)),
                ("flags", u(b.flags.0)),
                ("fsuid", u(b.fsuid)),
                ("fsgid", u(b.fsgid)),
                ("umask", u(b.umask)),
                ("cap", u(b.cap)),
                ("child_mode", u(b.child_mode)),
                ("buf_limit", arr(&b.buf_limit, u)),
            ]),
        ),
        ("name", name),
        ("groups", arr(v.groups.as_slice(), u)),
    ])
}

/// The JSON form of an `mdt_body`.
pub fn mdt_body_json(m: &MdtBody) -> J {
    J::O(vec![
        ("fid1", fid(m.fid1)),
        ("fid2", fid(m.fid2)),
        ("open_handle", u(m.open_handle.0)),
        ("valid", u(m.valid.0)),
        ("size", u(m.size)),
        ("mtime", i(m.mtime)),
        ("atime", i(m.atime)),
        ("ctime", i(m.ctime)),
        ("blocks", u(m.blocks)),
        ("version", u(m.version)),
        ("t_state", u(m.t_state)),
        ("fsuid", u(m.fsuid)),
        ("fsgid", u(m.fsgid)),
        ("capability", u(m.capability)),
        ("mode", u(m.mode)),
        ("uid", u(m.uid)),
        ("gid", u(m.gid)),
        ("flags", u(m.flags)),
        ("rdev", u(m.rdev)),
        ("nlink", u(m.nlink)),
        ("layout_gen", u(m.layout_gen)),
        ("suppgid", u(m.suppgid)),
        ("eadatasize", u(m.eadatasize)),
        ("aclsize", u(m.aclsize)),
        ("max_mdsize", u(m.max_mdsize)),
        ("uid_h", u(m.uid_h)),
        ("gid_h", u(m.gid_h)),
        ("projid", u(m.projid)),
        ("dom_size", u(m.dom_size)),
        ("dom_blocks", u(m.dom_blocks)),
        ("btime", u(m.btime)),
        ("xattr_absent", u(m.xattr_absent)),
    ])
}

fn result_json(buf: MliBuf, state: PrepResult<&[u8]>, order: Endian) -> J {
    let mut o = vec![
        ("buf", J::S(buf.name().into())),
        ("state", J::S(state.state_name().into())),
    ];
    match state {
        PrepResult::Present(data) => {
            o.push(("size", us(data.len())));
            o.push(("data", J::S(to_hex(data))));
            if buf == MliBuf::Pattr
                && let Ok(m) = MdtBody::decode(data, order)
            {
                o.push(("mdt_body", mdt_body_json(&m)));
            }
        }
        PrepResult::Unknown(UnknownReason::Truncated { size }) => {
            o.push(("size", u(size)));
            o.push(("data", J::Null));
        }
        PrepResult::Absent | PrepResult::Unknown(_) => o.push(("data", J::Null)),
    }
    J::O(o)
}

/// The JSON form of a validated reply.
pub fn reply_json(msg: &MsgView<'_>, view: &ReplyView<'_>) -> J {
    let l = view.ldlm();
    let rep = match view.body() {
        None => J::Null,
        Some(b) => J::O(vec![
            ("status", i(b.status)),
            ("flags", u(b.flags.0)),
            ("valid", u(b.valid.0)),
            ("truncated", u(b.truncated.0)),
            ("fid", fid(b.fid)),
            ("child_mode", u(b.child_mode)),
            ("child_gid", u(b.child_gid)),
            ("child_projid", u(b.child_projid)),
            ("child_flags", u(b.child_flags)),
            ("buf_size", arr(&b.buf_size, u)),
        ]),
    };
    let results = MliBuf::ALL
        .iter()
        .map(|&b| result_json(b, view.result(b), view.order()))
        .collect();
    J::O(vec![
        ("kind", J::S("reply".into())),
        ("order", J::S(view.order().name().into())),
        ("header", header_json(msg)),
        ("ptlrpc_body", ptlrpc_json(view.ptlrpc())),
        (
            "ldlm_reply",
            J::O(vec![
                ("lock_flags", u(l.lock_flags.0)),
                ("lock_desc", lock_desc_json(&l.lock_desc)),
                ("lock_handle", u(l.lock_handle.0)),
                ("lock_policy_res1", u(l.policy_res1.0)),
                ("lock_policy_res2", u(l.policy_res2)),
            ]),
        ),
        ("md_create_prepare_rep", rep),
        ("results", J::A(results)),
    ])
}

// ---------------------------------------------------------------------------------------------
// JSON → message.

pub(crate) fn describe(v: &Value) -> String {
    let s = match v {
        Value::Null => return "null".into(),
        Value::Bool(_) => "a boolean ".to_string() + &v.to_string(),
        Value::Number(_) => "the number ".to_string() + &v.to_string(),
        Value::String(_) => "the string ".to_string() + &v.to_string(),
        Value::Array(_) => return "an array".into(),
        Value::Object(_) => return "an object".into(),
    };
    if s.chars().count() > 60 {
        s.chars().take(57).chain("...".chars()).collect()
    } else {
        s
    }
}

/// An integer of type `T` (range-checked).
pub(crate) fn int<T: TryFrom<i128>>(path: &str, v: &Value) -> Result<T, String> {
    let n = match v {
        Value::Number(n) => n
            .as_u64()
            .map(i128::from)
            .or_else(|| n.as_i64().map(i128::from)),
        _ => None,
    };
    n.and_then(|n| T::try_from(n).ok()).ok_or_else(|| {
        format!(
            "{path}: expected an integer of type {}, got {}",
            std::any::type_name::<T>(),
            describe(v)
        )
    })
}

fn int_vec<T: TryFrom<i128>>(path: &str, v: &Value) -> Result<Vec<T>, String> {
    let Value::Array(items) = v else {
        return Err(format!("{path}: expected an array, got {}", describe(v)));
    };
    items
        .iter()
        .enumerate()
        .map(|(k, x)| int(&format!("{path}[{k}]"), x))
        .collect()
}

fn int_array<T: TryFrom<i128>, const N: usize>(path: &str, v: &Value) -> Result<[T; N], String> {
    let items = int_vec::<T>(path, v)?;
    let len = items.len();
    items
        .try_into()
        .map_err(|_| format!("{path}: expected an array of {N} integers, got {len}"))
}

/// Bytes given as a string (its UTF-8) or as `{"hex": "..."}`.
pub(crate) fn bytes_of(path: &str, v: Value) -> Result<Vec<u8>, String> {
    match v {
        Value::String(s) => Ok(s.into_bytes()),
        Value::Object(map) => {
            let mut o = Obj {
                path: path.to_string(),
                map,
            };
            let hex = o.string("hex")?;
            o.finish(&[])?;
            decode_hex(hex.as_bytes()).map_err(|e| format!("{path}.hex: {e}"))
        }
        other => Err(format!(
            "{path}: expected a string or {{\"hex\": ...}}, got {}",
            describe(&other)
        )),
    }
}

/// A JSON object being read: keys are taken out as they are read, so that what is left at
/// the end is unknown.
pub(crate) struct Obj {
    path: String,
    map: Map<String, Value>,
}

impl Obj {
    pub(crate) fn new(path: &str, v: Value) -> Result<Self, String> {
        match v {
            Value::Object(map) => Ok(Obj {
                path: path.to_string(),
                map,
            }),
            other => Err(format!(
                "{}: expected an object, got {}",
                if path.is_empty() { "top level" } else { path },
                describe(&other)
            )),
        }
    }

    pub(crate) fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    pub(crate) fn take(&mut self, key: &str) -> Result<Value, String> {
        self.map
            .remove(key)
            .ok_or_else(|| format!("{}: missing", self.path_of(key)))
    }

    /// Takes `key` out when present.
    pub(crate) fn take_opt(&mut self, key: &str) -> Option<Value> {
        self.map.remove(key)
    }

    pub(crate) fn int<T: TryFrom<i128>>(&mut self, key: &str) -> Result<T, String> {
        let v = self.take(key)?;
        int(&self.path_of(key), &v)
    }

    fn array<T: TryFrom<i128>, const N: usize>(&mut self, key: &str) -> Result<[T; N], String> {
        let v = self.take(key)?;
        int_array(&self.path_of(key), &v)
    }

    pub(crate) fn obj(&mut self, key: &str) -> Result<Obj, String> {
        let v = self.take(key)?;
        Obj::new(&self.path_of(key), v)
    }

    pub(crate) fn string(&mut self, key: &str) -> Result<String, String> {
        match self.take(key)? {
            Value::String(s) => Ok(s),
            other => Err(format!(
                "{}: expected a string, got {}",
                self.path_of(key),
                describe(&other)
            )),
        }
    }

    pub(crate) fn fid(&mut self, key: &str) -> Result<LuFid, String> {
        let s = self.string(key)?;
        s.parse()
            .map_err(|e| format!("{}: {e}, got {s:?}", self.path_of(key)))
    }

    /// Fails on a key that was not read and is not in `ignored`.
    pub(crate) fn finish(self, ignored: &[&str]) -> Result<(), String> {
        match self.map.keys().find(|k| !ignored.contains(&k.as_str())) {
            Some(k) => Err(format!("{}: unknown field", self.path_of(k))),
            None => Ok(()),
        }
    }
}

fn jobid_from(path: &str, v: Value) -> Result<Option<[u8; JOBID_SIZE]>, String> {
    if v.is_null() {
        return Ok(None);
    }
    let bytes = bytes_of(path, v)?;
    let mut out = [0u8; JOBID_SIZE];
    out.get_mut(..bytes.len())
        .ok_or_else(|| format!("{path}: {} bytes, at most {JOBID_SIZE}", bytes.len()))?
        .copy_from_slice(&bytes);
    Ok(Some(out))
}

fn ptlrpc_from(mut o: Obj) -> Result<PtlrpcBody, String> {
    let jobid_path = o.path_of("jobid");
    let p = PtlrpcBody {
        handle: LustreHandle(o.int("handle")?),
        msg_type: PtlrpcMsgType(o.int("type")?),
        version: o.int("version")?,
        opc: o.int("opc")?,
        status: o.int("status")?,
        last_xid: o.int("last_xid")?,
        tag: o.int("tag")?,
        projid: o.int("projid")?,
        last_committed: o.int("last_committed")?,
        transno: o.int("transno")?,
        flags: MsgFlags(o.int("flags")?),
        op_flags: o.int("op_flags")?,
        conn_cnt: o.int("conn_cnt")?,
        timeout: o.int("timeout")?,
        service_time: o.int("service_time")?,
        limit: o.int("limit")?,
        slv: o.int("slv")?,
        pre_versions: o.array("pre_versions")?,
        mbits: o.int("mbits")?,
        uid: o.int("uid")?,
        gid: o.int("gid")?,
        jobid: jobid_from(&jobid_path, o.take("jobid")?)?,
    };
    o.finish(&[])?;
    Ok(p)
}

fn lock_desc_from(mut o: Obj) -> Result<LdlmLockDesc, String> {
    let mut r = o.obj("resource")?;
    let lr_type = LockType(r.int("type")?);
    let resource = LdlmResId {
        name: r.array("name")?,
    };
    r.finish(&[])?;
    let req_mode = LockMode(o.int("req_mode")?);
    let granted_mode = LockMode(o.int("granted_mode")?);
    let mut p = o.obj("policy_data")?;
    let policy = LdlmInodebits {
        bits: InodeBits(p.int("bits")?),
        try_bits: InodeBits(p.int("try_bits")?),
        gid: p.int("li_gid")?,
        initiator_id: p.int("li_initiator_id")?,
    };
    p.finish(&[])?;
    o.finish(&[])?;
    Ok(LdlmLockDesc {
        lr_type,
        resource,
        req_mode,
        granted_mode,
        policy,
    })
}

fn header_from(mut o: Obj) -> Result<(MsgHeader, Option<usize>), String> {
    let bufcount = match o.map.remove("bufcount") {
        Some(v) => Some(int::<usize>(&o.path_of("bufcount"), &v)?),
        None => None,
    };
    let h = MsgHeader {
        secflvr: o.int("secflvr")?,
        repsize: o.int("repsize")?,
        cksum: o.int("cksum")?,
        flags: o.int("flags")?,
        opc: o.int("opc")?,
    };
    o.finish(&["magic", "buflens"])?;
    Ok((h, bufcount))
}

fn request_from(
    mut top: Obj,
    header: MsgHeader,
    ptlrpc: PtlrpcBody,
) -> Result<PrepareRequest, String> {
    let mut l = top.obj("ldlm_request")?;
    let lock_flags = LdlmFlags(l.int("lock_flags")?);
    let lock_count = l.int("lock_count")?;
    let lock_desc = lock_desc_from(l.obj("lock_desc")?)?;
    let hpath = l.path_of("lock_handle");
    let handles: Vec<LustreHandle> = int_vec::<u64>(&hpath, &l.take("lock_handle")?)?
        .into_iter()
        .map(LustreHandle)
        .collect();
    let handles = LockHandles::from_slice(&handles)
        .ok_or_else(|| format!("{hpath}: expected 2 to 32 handles, got {}", handles.len()))?;
    l.finish(&[])?;
    let mut it = top.obj("ldlm_intent")?;
    let opc = IntentOpc(it.int("opc")?);
    it.finish(&[])?;
    let mut b = top.obj("md_create_prepare_req")?;
    let body = MdCreatePrepareReq {
        fid: b.fid("fid")?,
        flags: McprFlags(b.int("flags")?),
        fsuid: b.int("fsuid")?,
        fsgid: b.int("fsgid")?,
        umask: b.int("umask")?,
        cap: b.int("cap")?,
        child_mode: b.int("child_mode")?,
        buf_limit: b.array("buf_limit")?,
    };
    b.finish(&[])?;
    let name =
        match top.take("name")? {
            Value::Null => None,
            v => {
                let bytes = bytes_of("name", v)?;
                Some(EntryName::new(&bytes).map_err(|e| {
                    format!("name {:?}: {}", bytes.escape_ascii().to_string(), e.kind)
                })?)
            }
        };
    let gids = int_vec::<u32>("groups", &top.take("groups")?)?;
    let groups = GroupList::from_slice(&gids)
        .ok_or_else(|| format!("groups: {} entries, at most 128", gids.len()))?;
    top.finish(&[])?;
    Ok(PrepareRequest {
        header,
        ptlrpc,
        ldlm: LdlmRequest {
            lock_flags,
            lock_count,
            lock_desc,
            handles,
        },
        opc,
        body,
        name,
        groups,
    })
}

fn results_from(v: Option<Value>, want_data: bool) -> Result<[bytes::Bytes; MLI_BUF_MAX], String> {
    let mut out: [bytes::Bytes; MLI_BUF_MAX] = Default::default();
    let items = match v {
        None | Some(Value::Null) if !want_data => return Ok(out),
        None => return Err("results: missing".into()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(format!(
                "results: expected an array, got {}",
                describe(&other)
            ));
        }
    };
    if items.len() != MLI_BUF_MAX {
        return Err(format!(
            "results: expected {MLI_BUF_MAX} entries (one per MLI_BUF_*), got {}",
            items.len()
        ));
    }
    for ((k, item), (slot, buf)) in items
        .into_iter()
        .enumerate()
        .zip(out.iter_mut().zip(MliBuf::ALL))
    {
        let path = format!("results[{k}]");
        let mut o = Obj::new(&path, item)?;
        if let Some(name) = o.map.get("buf")
            && name.as_str() != Some(buf.name())
        {
            return Err(format!(
                "{path}.buf: expected \"{}\" (results are in MLI_BUF index order), got {}",
                buf.name(),
                describe(name)
            ));
        }
        let data = match o.take("data")? {
            Value::Null => Vec::new(),
            Value::String(s) => {
                decode_hex(s.as_bytes()).map_err(|e| format!("{path}.data: {e}"))?
            }
            other => {
                return Err(format!(
                    "{path}.data: expected a hex string or null, got {}",
                    describe(&other)
                ));
            }
        };
        o.finish(&["buf", "state", "size", "mdt_body"])?;
        if !want_data && !data.is_empty() {
            return Err(format!(
                "{path}.data: the empty result (md_create_prepare_rep null) carries no result"
            ));
        }
        *slot = bytes::Bytes::from(data);
    }
    Ok(out)
}

fn reply_from(mut top: Obj, header: MsgHeader, ptlrpc: PtlrpcBody) -> Result<PrepareReply, String> {
    let mut l = top.obj("ldlm_reply")?;
    let ldlm = LdlmReply {
        lock_flags: LdlmFlags(l.int("lock_flags")?),
        lock_desc: lock_desc_from(l.obj("lock_desc")?)?,
        lock_handle: LustreHandle(l.int("lock_handle")?),
        policy_res1: DispFlags(l.int("lock_policy_res1")?),
        policy_res2: l.int("lock_policy_res2")?,
    };
    l.finish(&[])?;
    let outcome = match top.take("md_create_prepare_rep")? {
        Value::Null => {
            results_from(top.map.remove("results"), false)?;
            None
        }
        v => {
            let mut b = Obj::new("md_create_prepare_rep", v)?;
            let body = MdCreatePrepareRep {
                status: b.int("status")?,
                flags: McppFlags(b.int("flags")?),
                valid: ResultMask(b.int("valid")?),
                truncated: ResultMask(b.int("truncated")?),
                fid: b.fid("fid")?,
                child_mode: b.int("child_mode")?,
                child_gid: b.int("child_gid")?,
                child_projid: b.int("child_projid")?,
                child_flags: b.int("child_flags")?,
                buf_size: b.array("buf_size")?,
            };
            b.finish(&[])?;
            let results = results_from(top.map.remove("results"), true)?;
            Some(PrepareOutcome { body, results })
        }
    };
    top.finish(&[])?;
    Ok(PrepareReply {
        header,
        ptlrpc,
        ldlm,
        outcome,
    })
}

/// Leaves out the trailing buffers past `want` (which must be empty) of a valid encoding, or
/// adds empty ones up to `want`.
fn shorten(full: Vec<u8>, want: Option<usize>) -> Result<Vec<u8>, String> {
    let msg = MsgView::parse(&full).map_err(|e| e.to_string())?;
    let have = msg.bufcount();
    let Some(want) = want.filter(|&w| w != have) else {
        return Ok(full);
    };
    if want == 0 || want > MSG_MAX_BUFCOUNT {
        return Err(format!(
            "header.bufcount: {want}, expected 1..={MSG_MAX_BUFCOUNT} (the message has {have} \
             buffers; trailing empty ones can be left out or added)"
        ));
    }
    if let Some(k) = (want..have).find(|&k| !msg.buffer_or_empty(k).is_empty()) {
        return Err(format!(
            "header.bufcount: {want} would leave out buffer {k}, which holds {} bytes",
            msg.buffer_or_empty(k).len()
        ));
    }
    let mut b = MsgBuilder::new(msg.order(), *msg.header());
    for k in 0..want {
        // Past `have`, an empty buffer.
        b.push(msg.buffer_or_empty(k)).map_err(|e| e.to_string())?;
    }
    let mut out = Vec::with_capacity(b.wire_len());
    b.put(&mut out);
    Ok(out)
}

/// Builds and validates the message a JSON value describes; returns its bytes.
pub fn encode(value: Value) -> Result<Vec<u8>, String> {
    let mut top = Obj::new("", value)?;
    let kind = top.string("kind")?;
    if kind != "request" && kind != "reply" {
        return Err(format!(
            "kind: expected \"request\", \"reply\" or an xattr payload kind (acl, pin, lmv, \
             dmv, lov, opaque), got {kind:?}"
        ));
    }
    let order_name = top.string("order")?;
    let order = Endian::from_name(&order_name)
        .ok_or_else(|| format!("order: expected \"le\" or \"be\", got {order_name:?}"))?;
    let (header, bufcount) = header_from(top.obj("header")?)?;
    let ptlrpc = ptlrpc_from(top.obj("ptlrpc_body")?)?;
    let full = match kind.as_str() {
        "request" => request_from(top, header, ptlrpc)?.to_bytes(order),
        "reply" => reply_from(top, header, ptlrpc)?.to_bytes(order),
        other => {
            return Err(format!(
                "kind: expected \"request\" or \"reply\", got {other:?}"
            ));
        }
    }
    .map_err(|e| e.to_string())?;
    let bytes = shorten(full.to_vec(), bufcount)?;
    crate::decode_message(&bytes)
        .map_err(|e| format!("the encoded message does not decode: {e}"))?;
    Ok(bytes)
}
