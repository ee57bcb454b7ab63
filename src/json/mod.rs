//! The serde form of the crate's values (feature `serde`), shaped for JSON and for tools like
//! `jq` that round numbers above 2^53.
//!
//! Every value type implements `Serialize` and `Deserialize`: messages and their bodies, the
//! prepare results, the xattr payloads, and the model's scenarios, faults and outcomes. Borrowing
//! views (`*View`) do not; turn them into values first (`to_value()`).
//!
//! **Defaults on input.** A model scenario written by hand may leave out what has a natural
//! default: every attribute (`nlink`, `size`, `mtime` … read as 0), every xattr (absent),
//! `dead` (false), an entry's `ftype` (0, unknown), and the caller's `groups`, `cap`, `umask`
//! and `groups_partial`. Wire messages have no defaults: every field is spelled out. Unknown
//! fields are refused everywhere.
//!
//! # Schema
//!
//! **Names.** Fields carry Lustre's C field names, prefix included (`lm_repsize`, `pb_opc`,
//! `lock_flags`, `l_req_mode`, `lr_name`, `mcpr_buf_limit`, `mbo_valid`, `lmm_stripe_size`,
//! `e_tag` …). A message buffer that holds a whole structure appears under the structure's
//! name (`lustre_msg_v2`, `ptlrpc_body`, `ldlm_request`, `ldlm_intent`,
//! `md_create_prepare_req`); a structure inside a structure appears under the field that holds
//! it (`lock_desc`, `lr_name`, `l_policy_data`, `mcpp_fid`). Model types, which have no C
//! counterpart, use their Rust field names. Padding and reserved fields are not shown (they are
//! written as zero). Every struct refuses unknown fields; with `serde_path_to_error` the error
//! names the JSON path (`ldlm_request.lock_desc.l_req_mode`).
//!
//! **Integers.** Integers of 32 bits or fewer are JSON numbers. Every 64-bit value is a string:
//! - opaque ones (handles, xids, match bits, `lr_name` words, `mcpr_cap`, `mbo_valid` and the
//!   other 64-bit bit sets, `lock_policy_res2`, object ids) as 16-digit lower-case hex,
//!   `"0x0000000000001234"`;
//! - quantities (sizes, times, blocks, versions, `pb_transno`, `pb_last_committed`, `pb_slv`)
//!   as decimal, `"4096"`, `"-1"`;
//! - FIDs in Lustre's text form, `"[0x200000401:0x1:0x0]"`.
//!
//! On input every 64-bit field takes a string in `0x` hex or decimal, or a JSON number
//! (lenient input, strict output).
//!
//! **Flag sets** (`lock_flags`, `mcpr_flags`, `mcpp_valid`, `lmm_pattern` …) are objects:
//! `{"bits": "0x00000003", "names": ["MCPR_NO_LOOKUP", "MCPR_GROUPS_PARTIAL"]}`, `bits` with
//! as many hex digits as the wire integer has nibbles, plus `"unknown": "0x…"` when bits no
//! name covers are set (they stay in `bits` too). On input `bits` is authoritative and
//! `names` and `unknown`, when given, must agree with it; a plain string in the text grammar
//! `"NAME|NAME|0x80"` or a JSON number is also accepted. `lmv_hash_type` and `lum_hash_type`
//! take the same shape, the hash function's name first (`["fnv_1a_64", "fixed"]`), and the
//! `lfs` text `"crush,migrating"` on input.
//!
//! **Open enumerations** (`pb_type`, `lr_type`, `l_req_mode`, `opc`, `e_tag`, `lfm_type`) are
//! `{"value": "0x00000002", "name": "LCK_PW"}`, `name` left out for a value without one. On
//! input: that object (`value` authoritative, `name` must agree), a name, a `0x…` or decimal
//! string, or a JSON number.
//!
//! **Closed enumerations** are strings: the byte order `"le"`/`"be"`, [`Operation`]
//! `"create"`/`"rename"`/`"unlink"`, [`MliBuf`] `"MLI_BUF_PATTR"` …, the model's
//! `model::Fault` by the tool's names (`"none"`, `"peer-without-flag"`, `"unknown-pattr"`,
//! `"truncated-lov"`, `"partial-groups-3"` …). Enumerations with data are externally tagged
//! objects in snake case: `{"present": …}`, `"absent"`, `{"unknown": {"truncated": {"size": 9}}}`.
//!
//! **Bytes.** Result payloads and other opaque blobs are lower-case hex strings (`""` when
//! empty). Names — entry names, pins, the model's names — are a JSON string
//! when the bytes are UTF-8, else `{"hex": "…"}`. Fixed NUL-padded fields (`pb_jobid`, pool
//! names) are a string when printable ASCII followed by NULs, else `{"hex"}` of the whole
//! field; `pb_jobid` is `null` for a `ptlrpc_body_v2`, which has none.
//!
//! **Xattr payloads** keep their C names too (`a_entries`, `lmv_stripe_count`,
//! `lum_max_inherit`, `lmm_stripe_size`, `lcme_extent_start` …), with these additions:
//! - The 16-bit union at offset 30 of a plain LOV layout appears under the member that
//!   applies, `lmm_layout_gen` in a file's instantiated layout and `lmm_stripe_offset` in a
//!   directory's default, a template or an uninstantiated component. The owned
//!   [`LovMd`] holds the union with its member ([`LovMd::stripe_offset`], a [`LmmUnion`]):
//!   the decoder names it from the caller's context ([`LovView::to_value_of`]) or from
//!   [`LovView::layout_of_guess`] (`to_value`), and deserializing from the name found, so
//!   that a payload read back serializes under the same name and `#[derive]`d containers of
//!   it need no context. On input
//!   exactly one of the two names is required.
//! - Informational fields, derived from the raw ones: per stripe object `"ostid": {"form":
//!   "legacy" | "idif" | "fid" | "lov_default", "seq", "id"}` (`ostid_seq()`, `ostid_id()`)
//!   and `"fid"` (`ostid_to_fid()`, or null); per `lmv_mds_md_v1` `"form": "with_fids" |
//!   "header_only"`. On input they may be left out; when given they must agree with the raw
//!   fields, else the error names the structure's path and the disagreeing field.
//! - [`XattrDoc`] wraps one attribute as `{"file"?, "xattr", "kind", "payload"}`: what
//!   `dne-intent xattr --json` prints and `encode` reads.
//!
//! ```text
//! PrepareRequest = {
//!   "lustre_msg_v2": { "lm_secflvr", "lm_repsize", "lm_cksum", "lm_flags", "lm_opc" },
//!   "ptlrpc_body": PTLRPC_BODY,
//!   "ldlm_request": { "lock_flags", "lock_count", "lock_desc": LOCK_DESC,
//!                     "lock_handle": ["0x…", …] (2 to 32) },
//!   "ldlm_intent": { "opc" },
//!   "md_create_prepare_req": { "mcpr_fid", "mcpr_flags", "mcpr_fsuid", "mcpr_fsgid",
//!                              "mcpr_umask", "mcpr_cap", "mcpr_child_mode",
//!                              "mcpr_buf_limit": [6 numbers] },
//!   "name": "newdir" | { "hex": "…" } | null (object mode),
//!   "groups": [gid, …] (at most 128)
//! }
//! PrepareReply = {
//!   "lustre_msg_v2", "ptlrpc_body",
//!   "ldlm_reply": { "lock_flags", "lock_desc": LOCK_DESC, "lock_handle",
//!                   "lock_policy_res1", "lock_policy_res2" },
//!   "outcome": null (the empty result) | {
//!     "md_create_prepare_rep": { "mcpp_status", "mcpp_flags", "mcpp_valid", "mcpp_truncated",
//!                                "mcpp_fid", "mcpp_child_mode", "mcpp_child_gid",
//!                                "mcpp_child_projid", "mcpp_child_flags",
//!                                "mcpp_buf_size": [6 numbers] },
//!     "results": { "MLI_BUF_PATTR": "hex", …, "MLI_BUF_DEF_LMV": "hex" } }
//! }
//! Message = { "request": PrepareRequest } | { "reply": PrepareReply }
//! PTLRPC_BODY = { "pb_handle", "pb_type", "pb_version", "pb_opc", "pb_status",
//!                 "pb_last_xid", "pb_tag", "pb_projid", "pb_last_committed", "pb_transno",
//!                 "pb_flags", "pb_op_flags", "pb_conn_cnt", "pb_timeout", "pb_service_time",
//!                 "pb_limit", "pb_slv", "pb_pre_versions": [4], "pb_mbits", "pb_uid",
//!                 "pb_gid", "pb_jobid" }
//! LOCK_DESC = { "lr_type", "lr_name": { "name": ["0x…" ×4] }, "l_req_mode",
//!               "l_granted_mode",
//!               "l_policy_data": { "bits", "try_bits", "li_gid", "li_initiator_id" } }
//! MDT_BODY = { "mbo_fid1", "mbo_fid2", "mbo_open_handle", "mbo_valid", "mbo_size", … }
//! ```
//!
//! ## Example
//! ```
//! use lustre_dne_intent::intent::*;
//! use lustre_dne_intent::wire::{LockMode, LuFid};
//! use lustre_dne_intent::Endian;
//!
//! let body = MdCreatePrepareReq {
//!     fid: LuFid::new(0x200000401, 1, 0),
//!     child_mode: 0o040755,
//!     buf_limit: [216, 0, 0, 0, 0, 0],
//!     ..Default::default()
//! };
//! let name = EntryName::new(b"newdir")?;
//! let req = PrepareRequest::new(
//!     Operation::Create, body, Some(name), GroupList::new(), LockMode::PW, name_hash(b"newdir"),
//! );
//! let json = serde_json::to_value(&req)?;
//! assert_eq!(json["md_create_prepare_req"]["mcpr_fid"], "[0x200000401:0x1:0x0]");
//! assert_eq!(json["ldlm_request"]["lock_desc"]["lr_name"]["name"][3], "0x9379ea6c975fb7c0");
//! assert_eq!(json["ldlm_request"]["lock_desc"]["l_req_mode"]["name"], "LCK_PW");
//! assert_eq!(json["name"], "newdir");
//!
//! // Unknown fields are refused, and serde_path_to_error names where.
//! let mut bad = json.clone();
//! bad["ptlrpc_body"]["pb_colour"] = "red".into();
//! let text = bad.to_string();
//! let err = serde_path_to_error::deserialize::<_, PrepareRequest>(
//!     &mut serde_json::Deserializer::from_str(&text),
//! )
//! .unwrap_err();
//! assert_eq!(err.path().to_string(), "ptlrpc_body.pb_colour");
//!
//! let back: PrepareRequest = serde_json::from_value(json)?;
//! assert_eq!(back.to_bytes(Endian::Little)?, req.to_bytes(Endian::Little)?);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The byte order is not part of a value: a decoded big-endian message serializes like its
//! little-endian twin, and the encoder is told the order.
//!
//! [`Operation`]: crate::intent::Operation
//! [`LovMd`]: crate::xattr::LovMd
//! [`LovMd::stripe_offset`]: crate::xattr::LovMd::stripe_offset
//! [`LmmUnion`]: crate::xattr::LmmUnion
//! [`LovView::to_value_of`]: crate::xattr::LovView::to_value_of
//! [`LovView::layout_of_guess`]: crate::xattr::LovView::layout_of_guess
//! [`XattrDoc`]: crate::xattr::XattrDoc
//! [`MliBuf`]: crate::intent::MliBuf

mod lov;
#[cfg(feature = "std")]
pub(crate) mod wire;
mod xattr;
