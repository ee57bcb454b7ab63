//! Every bound the crate applies to a length, count or size read from input.
//!
//! A decoder checks each untrusted number against the constant named here *before* it is used
//! to index, slice or size anything; an encoder refuses to produce a value past the same bound.
//! Each constant says where the number comes from (a section of `docs/spec/WIRE.md`, or the
//! Lustre header fact in `docs/reference/lustre-wire.md`).

// ---- Message framing (WIRE.md §2) ----

/// Most buffers in one `lustre_msg_v2` (`PTLRPC_MAX_BUFCOUNT`: the bits of the u32 swab mask).
pub const MSG_MAX_BUFCOUNT: usize = 32;
/// Largest single buffer, padding included (`PTLRPC_MAX_BUFLEN` = `OUT_MAXREQSIZE` =
/// 1000 · 1024 on 4 KiB pages, the largest of the request size bounds in `lustre_net.h`).
pub const MSG_MAX_BUFLEN: usize = 1000 * 1024;
/// Largest whole message (header plus padded buffers): Lustre checks the total against the same
/// `PTLRPC_MAX_BUFLEN` (`lustre_unpack_msg_v2` callers in `pack_generic.c`).
pub const MSG_MAX_LEN: usize = MSG_MAX_BUFLEN;
/// Size of the fixed part of `lustre_msg_v2`, before `lm_buflens[]`.
pub const MSG_HEADER_FIXED: usize = 32;
/// Every buffer of a message starts on this boundary and is padded to it.
pub const MSG_ALIGN: usize = 8;

/// `len` padded to [`MSG_ALIGN`]: the room a buffer of `len` bytes takes in a message. (The
/// framing, which sums lengths read from input, pads in 64 bits instead: `wire::msg::frame`.)
pub(crate) const fn round8(len: usize) -> usize {
    (len + (MSG_ALIGN - 1)) & !(MSG_ALIGN - 1)
}

/// Where the buffers of a message of `count` buffers start: after the fixed header and
/// `lm_buflens[count]`, padded (WIRE.md §2).
pub(crate) const fn msg_header_len(count: usize) -> usize {
    round8(MSG_HEADER_FIXED + 4 * count)
}

// ---- ptlrpc_body (WIRE.md §2) ----

/// `ptlrpc_body_v3`, what encoders write.
pub const PTLRPC_BODY_V3_SIZE: usize = 184;
/// `ptlrpc_body_v2`, the smallest buffer 0 a decoder accepts.
pub const PTLRPC_BODY_V2_SIZE: usize = 152;
/// `pb_jobid` length (`LUSTRE_JOBID_SIZE`).
pub const LUSTRE_JOBID_SIZE: usize = 32;
/// Object versions a `ptlrpc_body` carries in `pb_pre_versions` (`PTLRPC_NUM_VERSIONS`).
pub const PTLRPC_NUM_VERSIONS: usize = 4;

// ---- LDLM (WIRE.md §3) ----

/// Words of an LDLM resource name (`RES_NAME_SIZE`).
pub const RES_NAME_SIZE: usize = 4;
/// `sizeof(struct ldlm_request)` without handles.
pub const LDLM_REQUEST_FIXED: usize = 88;
/// Handles an `ldlm_request` always carries on the wire (`LDLM_LOCKREQ_HANDLES`).
pub const LDLM_LOCKREQ_HANDLES: usize = 2;
/// Smallest `ldlm_request` on the wire: 88 + 8·2.
pub const LDLM_REQUEST_MIN: usize = LDLM_REQUEST_FIXED + 8 * LDLM_LOCKREQ_HANDLES;
/// Most lock handles this crate accepts in one prepare-intent enqueue (the requester's own
/// handle plus early-cancel handles). Lustre sizes ELC to a page; a DNE prepare enqueue sent by
/// OSP carries no cancels, so 32 is generous and keeps owned values allocation-free.
pub const LDLM_REQUEST_MAX_HANDLES: usize = 32;
/// `sizeof(struct ldlm_reply)`.
pub const LDLM_REPLY_SIZE: usize = 112;
/// `sizeof(struct ldlm_intent)`.
pub const LDLM_INTENT_SIZE: usize = 8;

// ---- mdt_body (WIRE.md §3, lustre-wire.md §4) ----

/// `sizeof(struct mdt_body)`; also the exact size of a present MLI_BUF_PATTR result.
pub const MDT_BODY_SIZE: usize = 216;

// ---- The prepare intent (WIRE.md §4–§8) ----

/// `sizeof(struct md_create_prepare_req)`; longer buffers are accepted, the tail ignored.
pub const PREPARE_REQ_SIZE: usize = 80;
/// `sizeof(struct md_create_prepare_rep)`; longer buffers are accepted, the tail ignored.
pub const PREPARE_REP_SIZE: usize = 80;
/// Number of optional results (`MLI_BUF_MAX`).
pub const MLI_BUF_MAX: usize = 6;
/// Longest entry name, not counting the NUL (`NAME_MAX`).
pub const NAME_MAX: usize = 255;
/// Most supplementary groups a request carries in buffer 5.
pub const GROUPS_MAX: usize = 128;
/// Largest limit a requester may set for one result, and largest result (`XATTR_SIZE_MAX`).
pub const XATTR_SIZE_MAX: usize = 65536;
/// Buffers of a request message: body, ldlm_request, ldlm_intent, prepare_req, name, groups.
pub const REQUEST_BUFCOUNT: usize = 6;
/// Fewest buffers a request may have: the last two (name, groups) may be left out, and read as
/// empty.
pub const REQUEST_MIN_BUFCOUNT: usize = 4;
/// The largest encoded prepare request: its six buffers at their largest (a 255-byte name,
/// 128 groups, 32 lock handles), each padded to 8 bytes. Bounds the stack buffer of
/// `RequestView::is_canonical`.
pub const REQUEST_MAX_LEN: usize = msg_header_len(REQUEST_BUFCOUNT)
    + round8(PTLRPC_BODY_V3_SIZE)
    + round8(LDLM_REQUEST_FIXED + 8 * LDLM_REQUEST_MAX_HANDLES)
    + round8(LDLM_INTENT_SIZE)
    + round8(PREPARE_REQ_SIZE)
    + round8(NAME_MAX + 1)
    + round8(4 * GROUPS_MAX);
/// Buffers of a full reply message: body, ldlm_reply, prepare_rep, then one per result.
pub const REPLY_BUFCOUNT: usize = 3 + MLI_BUF_MAX;
/// Buffers of an empty-result reply (body and ldlm_reply only).
pub const REPLY_EMPTY_BUFCOUNT: usize = 2;

// ---- Xattr payloads (WIRE.md §9, lustre-wire.md §5–§7) ----

/// Most entries in a POSIX ACL xattr: (65536 − 4) / 8.
pub const ACL_MAX_ENTRIES: usize = 8191;
/// Most stripes of a striped directory (`LMV_MAX_STRIPE_COUNT`).
pub const LMV_MAX_STRIPE_COUNT: usize = 2000;
/// Most stripes of a file layout component (`LOV_MAX_STRIPE_COUNT`).
pub const LOV_MAX_STRIPE_COUNT: usize = 2000;
/// Longest pool name (`LOV_MAXPOOLNAME`); the field is one byte longer.
pub const POOL_NAME_MAX: usize = 15;
