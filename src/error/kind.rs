//! [`ErrorKind`]: one variant per rule of WIRE.md, each with the values it compared and the
//! message an error prints.

use crate::fid::LuFid;
use crate::mli_buf::ResultMask;
use crate::msg_type::PtlrpcMsgType;

/// Which rule failed, with what was expected and what was found. One variant per rule, or per
/// general rule of WIRE.md (bounds, fixed values, required and forbidden bits: the error's
/// [`At`](super::At) says which field); [`ErrorKind::rule`] gives the rule's ID.
///
/// Variants carry only `Copy` data so that an error costs nothing to build and is easy to match in
/// tests. New rules get new variants, hence `#[non_exhaustive]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    // ---- framing and sizes ----
    /// The input ends before a structure or buffer does.
    #[error("truncated: need {need} bytes, have {have}")]
    Truncated {
        /// Bytes the structure needs from `at.offset`.
        need: usize,
        /// Bytes available from `at.offset`.
        have: usize,
    },
    /// A buffer is shorter than the structure it must hold.
    #[error("buffer is {len} bytes, expected at least {min}")]
    BufferTooShort {
        /// Its length.
        len: usize,
        /// The smallest length accepted.
        min: usize,
    },
    /// A buffer has a length the structure does not allow.
    #[error("buffer is {len} bytes, expected {expected}")]
    BadBufferLength {
        /// Its length.
        len: usize,
        /// What the rule wants, in words.
        expected: &'static str,
    },
    /// A length or count is larger than its bound in [`crate::limits`].
    #[error("{value} exceeds the limit of {max}")]
    OverLimit {
        /// Its value.
        value: u64,
        /// The bound.
        max: u64,
    },
    /// A count or value outside its allowed range.
    #[error("{value} is outside {min}..={max}")]
    OutOfRange {
        /// The value.
        value: u64,
        /// Smallest allowed.
        min: u64,
        /// Largest allowed.
        max: u64,
    },
    /// `lm_magic` is neither the native nor the swabbed `LUSTRE_MSG_MAGIC_V2`.
    #[error("bad magic {got:#010x}, expected 0x0bd00bd3 (or swabbed 0xd30bd00b)")]
    BadMagic {
        /// The value read as little-endian.
        got: u32,
    },
    /// A field does not hold the one value the protocol requires.
    #[error("got {got:#x}, expected {expected:#x}")]
    WrongValue {
        /// What was found.
        got: u64,
        /// What the rule requires.
        expected: u64,
    },
    /// `pb_version` of a reply lacks `PTLRPC_MSG_VERSION` in its low 16 bits, the only part a
    /// Lustre client checks (`lustre_unpack_ptlrpc_body_v2`).
    #[error("pb_version {got:#x}: expected PTLRPC_MSG_VERSION {expected:#x} in the low 16 bits")]
    WrongMsgVersion {
        /// `pb_version` as found.
        got: u32,
        /// `PTLRPC_MSG_VERSION`.
        expected: u32,
    },
    /// A request that asks for adaptive timeouts (`MSGHDR_AT_SUPPORT`) gives the service no time:
    /// Lustre's service drops it (`ptlrpc_server_handle_req_in`, "Dropping request with 0
    /// timeout").
    #[error("pb_timeout is 0 while lm_flags has MSGHDR_AT_SUPPORT")]
    ZeroTimeout,
    /// An LMV (`lmv_mds_md_v1`) with `lmv_stripe_count` 0: Lustre's `lmv_is_sane2` refuses it.
    #[error("an LMV with no stripe (lmv_stripe_count 0)")]
    LmvNoStripes,
    /// An LMV whose `lmv_hash_type` names no hash function Lustre knows (`lmv_is_sane2`).
    #[error("lmv_hash_type {got:#x}: no known hash function (1 to 4), nor unknown|bad_type")]
    LmvBadHashType {
        /// `lmv_hash_type` as found.
        got: u32,
    },
    /// A field misses bits the protocol requires.
    #[error("{got:#x} lacks required bits {required:#x}")]
    MissingBits {
        /// What was found.
        got: u64,
        /// The bits that must be set.
        required: u64,
    },
    /// A field has bits set that the protocol forbids here.
    #[error("{got:#x} has forbidden bits {forbidden:#x}")]
    ForbiddenBits {
        /// What was found.
        got: u64,
        /// The offending bits.
        forbidden: u64,
    },
    /// `pb_type` names another kind of message than the decoder reads: a reply handed to the
    /// request decoder, a request handed to the reply decoder, or neither.
    #[error("pb_type {got} ({}): expected {expected}", PtlrpcMsgType(*.got).kind_word())]
    WrongMessageType {
        /// `pb_type` as found.
        got: u32,
        /// What the decoder reads, in words: `"a request"`, `"a reply"`, or
        /// `"a request or a reply"`.
        expected: &'static str,
    },
    /// A reply carries an error status instead of a granted lock.
    #[error("the enqueue failed with {errno} (status {status})")]
    EnqueueFailed {
        /// The status (a negative errno).
        status: i32,
        /// Its name, e.g. `"EPROTO"`.
        errno: crate::errno::ErrnoName,
    },

    /// A non-empty buffer past the last one the message defines (WIRE.md §2).
    #[error("buffer {index} holds {len} bytes, past the last buffer the message defines ({last})")]
    BufferPastLast {
        /// The buffer's index.
        index: usize,
        /// Its length.
        len: usize,
        /// The last buffer the message defines (request 5, reply 8).
        last: usize,
    },
    /// A lock resource whose `name[2]` is not 0: not a FID resource (WIRE.md §3).
    #[error("lr_name.name[2] is {got:#x}, a FID resource has 0 there")]
    ResourceNotFid {
        /// `name[2]`.
        got: u64,
    },
    /// A lock mode other than EX, PW, PR, CW, CR and NL (WIRE.md §3).
    #[error("lock mode {got:#x} is not one of EX, PW, PR, CW, CR, NL")]
    BadLockMode {
        /// The mode.
        got: u32,
    },

    // ---- the prepare request (WIRE.md §5) ----
    /// `ldlm_intent.opc` is not a prepare opcode: a real MDT fails such an enqueue with -EPROTO.
    #[error("intent opcode {got:#x} is not IT_DNE_CREATE/RENAME/UNLINK_PREPARE")]
    UnknownIntent {
        /// The opcode.
        got: u64,
    },
    /// The operation needs an entry name and buffer 4 is empty.
    #[error("{op} in entry mode needs an entry name, buffer 4 is empty")]
    MissingName {
        /// The intent.
        op: &'static str,
    },
    /// Object mode (`MCPR_NO_LOOKUP`) with a non-empty name buffer.
    #[error("object mode (MCPR_NO_LOOKUP) carries no name, buffer 4 is {len} bytes")]
    NameInObjectMode {
        /// Its length.
        len: usize,
    },
    /// Object mode asked for an operation other than rename.
    #[error("MCPR_NO_LOOKUP is only valid for IT_DNE_RENAME_PREPARE, not {op}")]
    ObjectModeNotRename {
        /// The intent.
        op: &'static str,
    },
    /// A create whose `mcpr_child_mode` has no valid file type.
    #[error(
        "child mode {got:#o} has file type {fmt:#o}, expected one of REG, DIR, LNK, CHR, BLK, FIFO, SOCK"
    )]
    BadChildType {
        /// The whole mode.
        got: u32,
        /// Its S_IFMT bits.
        fmt: u32,
    },
    /// Rename and unlink carry no child mode.
    #[error("{op} must carry child mode 0, got {got:#o}")]
    ChildModeNotZero {
        /// The intent.
        op: &'static str,
        /// The mode.
        got: u32,
    },
    /// The name buffer holds no NUL.
    #[error("entry name is not NUL-terminated within its {len}-byte buffer")]
    NameNotTerminated {
        /// Buffer length.
        len: usize,
    },
    /// The name buffer holds bytes after the name's NUL (Lustre's `lustre_msg_string` with no
    /// maximum, as the MDT unpacks `RMF_NAME`, refuses them).
    #[error("entry name's NUL is at byte {nul} of its {len}-byte buffer, expected the last byte")]
    NameTrailingBytes {
        /// Offset of the first NUL in the buffer.
        nul: usize,
        /// Buffer length.
        len: usize,
    },
    /// The name is empty.
    #[error("entry name is empty")]
    NameEmpty,
    /// The name is longer than `NAME_MAX`.
    #[error("entry name is {len} bytes, expected at most 255")]
    NameTooLong {
        /// Bytes before the NUL.
        len: usize,
    },
    /// The name contains '/'.
    #[error("entry name contains '/' at byte {index}")]
    NameHasSlash {
        /// Index of the slash within the name.
        index: usize,
    },
    /// A name built by hand holds a NUL (in a buffer, the first NUL ends the name).
    #[error("entry name holds a NUL at byte {index}")]
    NameHasNul {
        /// Index of the NUL within the name.
        index: usize,
    },
    /// The name is "." or "..".
    #[error("entry name is \"{dots}\", which no operation may name")]
    NameIsDot {
        /// `"."` or `".."`.
        dots: &'static str,
    },
    /// The PATTR limit is positive but smaller than an `mdt_body`.
    #[error("limit {got} cannot hold an mdt_body: expected 0 or at least 216")]
    PattrLimitTooSmall {
        /// The limit.
        got: u32,
    },
    /// The groups buffer is not a whole number of u32.
    #[error("groups buffer is {len} bytes, expected a multiple of 4")]
    GroupsNotAligned {
        /// Its length.
        len: usize,
    },
    /// `mcpr_fid` differs from the FID the lock is taken on.
    #[error("intent FID {fid} differs from the lock resource FID {resource}")]
    FidNotResource {
        /// The intent's FID.
        fid: LuFid,
        /// The FID in the lock resource name.
        resource: LuFid,
    },
    /// `lm_repsize` cannot hold the reply the limits ask for (WIRE.md §8).
    #[error("reply space {got} is smaller than the {need} bytes the limits need")]
    RepsizeTooSmall {
        /// `lm_repsize`.
        got: u32,
        /// Size of a 9-buffer reply with every result at its limit.
        need: usize,
    },

    // ---- the prepare reply (WIRE.md §7) ----
    /// `MCPP_LOOKUP_POS` without `MCPP_LOOKUP_DONE`.
    #[error("MCPP_LOOKUP_POS is set without MCPP_LOOKUP_DONE")]
    LookupPosWithoutDone,
    /// `mcpp_fid` is zero after a positive lookup, or non-zero without one.
    #[error("mcpp_fid is {fid} but the lookup was {state}")]
    FidLookupMismatch {
        /// The FID.
        fid: LuFid,
        /// `"positive"` or `"not positive"`.
        state: &'static str,
    },
    /// A result is both valid and truncated.
    #[error("results {both} are both valid and truncated")]
    ValidAndTruncated {
        /// The overlap.
        both: ResultMask,
    },
    /// A result mask uses the reserved bits 6–31.
    #[error("reserved result bits {bits:#x} are set")]
    ReservedResultBits {
        /// The reserved bits.
        bits: u32,
    },
    /// The reply reports results the request did not ask for.
    #[error("results {extra} were not requested")]
    ResultNotRequested {
        /// The unrequested results.
        extra: ResultMask,
    },
    /// A valid result's buffer length differs from `mcpp_buf_size[i]`.
    #[error("result buffer is {len} bytes but mcpp_buf_size says {size}")]
    ResultSizeMismatch {
        /// The buffer length.
        len: usize,
        /// `mcpp_buf_size[i]`.
        size: u32,
    },
    /// A valid result is larger than the requester's limit.
    #[error("result of {size} bytes exceeds the requester's limit of {limit}")]
    ResultOverLimit {
        /// The result's size.
        size: u32,
        /// `mcpr_buf_limit[i]`.
        limit: u32,
    },
    /// A truncated result whose size would have fitted.
    #[error("result marked truncated with size {size}, which fits the limit of {limit}")]
    TruncatedButFits {
        /// `mcpp_buf_size[i]`.
        size: u32,
        /// `mcpr_buf_limit[i]` (0 when the request is not known).
        limit: u32,
    },
    /// A result buffer is non-empty while its valid bit is clear.
    #[error("result buffer holds {len} bytes but its valid bit is clear")]
    BufferWithoutValid {
        /// Its length.
        len: usize,
    },
    /// A PATTR result marked truncated: an `mdt_body` always fits a PATTR limit.
    #[error(
        "MLI_BUF_PATTR is marked truncated (size {size}), but an mdt_body always fits its limit"
    )]
    PattrTruncated {
        /// `mcpp_buf_size[0]`.
        size: u32,
    },
    /// A full reply to a request with `mcpr_flags` bits this version does not define.
    #[error("the request has unknown mcpr_flags {flags:#x}, so its reply must be the empty result")]
    ReplyToUnknownFlags {
        /// The unknown bits.
        flags: u32,
    },
    /// A reply that reports a lookup for a request in object mode.
    #[error("the request is in object mode (MCPR_NO_LOOKUP), but the reply reports a lookup")]
    LookupInObjectMode,
    /// A valid PATTR result that is not exactly one `mdt_body`.
    #[error("a valid MLI_BUF_PATTR must be exactly 216 bytes, got {len}")]
    PattrNotMdtBody {
        /// Its length.
        len: usize,
    },
    /// `MCPP_CHILD_DERIVED` on anything but a successful create.
    #[error("MCPP_CHILD_DERIVED is only valid for a create with status 0 ({why})")]
    DerivedNotCreate {
        /// What disqualifies it.
        why: &'static str,
    },
    /// `mcpp_status` is positive.
    #[error("status {got} is positive, expected 0 or a negative errno")]
    PositiveStatus {
        /// The status.
        got: i32,
    },
    /// After a positive lookup without derivation, `mcpp_child_mode` must be a bare file type.
    #[error("child mode {got:#o} after a lookup must be 0 or a bare S_IFMT file type")]
    ChildModeNotType {
        /// The mode.
        got: u32,
    },
    /// A derived `mcpp_child_mode` that is not one of the seven file types with permission bits.
    #[error(
        "derived child mode {got:#o} is not a file type (REG, DIR, LNK, CHR, BLK, FIFO, SOCK) with permission bits"
    )]
    DerivedModeNotMode {
        /// The mode.
        got: u32,
    },
    /// A derived child of another file type than the one requested.
    #[error("derived child mode {got:#o} is not of the requested file type ({requested:#o})")]
    DerivedTypeNotRequested {
        /// `mcpp_child_mode`.
        got: u32,
        /// `mcpr_child_mode`.
        requested: u32,
    },
    /// Derived permission bits that the create rules cannot give from the request.
    #[error(
        "derived permission bits {got:#o} are not within {allowed:#o}, what the requested mode allows"
    )]
    DerivedPermsNotAllowed {
        /// `mcpp_child_mode & 07777`.
        got: u32,
        /// The bits the request and the parent allow.
        allowed: u32,
    },
    /// The derived group, not as the parent's S_ISGID decides.
    #[error("derived child gid {got}, expected {expected} ({})", if *.sgid_parent {
        "the parent has S_ISGID: its group"
    } else {
        "the parent has no S_ISGID: the caller's fsgid"
    })]
    GroupNotInherited {
        /// `mcpp_child_gid`.
        got: u32,
        /// The parent's `mbo_gid`, or the request's `mcpr_fsgid`.
        expected: u32,
        /// Whether the parent's mode has S_ISGID.
        sgid_parent: bool,
    },
    /// A derived directory whose S_ISGID is not the parent's.
    #[error("derived directory mode {mode:#o} {}", if *.sgid_parent {
        "lacks S_ISGID, which an S_ISGID parent gives"
    } else {
        "has S_ISGID, which mkdir drops and the parent does not give"
    })]
    SgidNotInherited {
        /// `mcpp_child_mode`.
        mode: u32,
        /// Whether the parent's mode has S_ISGID.
        sgid_parent: bool,
    },
    /// The derived project id, not as the parent's PROJINHERIT decides.
    #[error("derived child projid {got}, expected {expected} ({})", if *.inherit {
        "the parent has PROJINHERIT: its project"
    } else {
        "the parent has no PROJINHERIT"
    })]
    ProjectNotInherited {
        /// `mcpp_child_projid`.
        got: u32,
        /// The parent's `mbo_projid`, or 0.
        expected: u32,
        /// Whether the parent has LUSTRE_PROJINHERIT_FL.
        inherit: bool,
    },
    /// A derived directory whose PROJINHERIT is not the parent's.
    #[error("derived directory flags {flags:#x} {}", if *.inherit {
        "lack PROJINHERIT, which the parent has"
    } else {
        "have PROJINHERIT, which the parent has not"
    })]
    ProjinheritNotInherited {
        /// `mcpp_child_flags`.
        flags: u32,
        /// Whether the parent has LUSTRE_PROJINHERIT_FL.
        inherit: bool,
    },
    /// Derived child flags other than an inherited PROJINHERIT on a directory.
    #[error("derived child flags {flags:#x}: {why}")]
    DerivedFlagsNotInherited {
        /// `mcpp_child_flags`.
        flags: u32,
        /// What is wrong.
        why: &'static str,
    },
    /// The lookup dispositions in `lock_policy_res1` contradict themselves or the prepare flags.
    #[error("dispositions {disp:#x} do not match the lookup ({why})")]
    DispositionMismatch {
        /// `lock_policy_res1`.
        disp: u64,
        /// What is inconsistent.
        why: &'static str,
    },
    /// The granted lock differs from the one requested.
    #[error("granted {got:#x}, but {expected:#x} was requested")]
    LockNotAsRequested {
        /// The reply's value.
        got: u64,
        /// The request's value.
        expected: u64,
    },
    /// The reply is larger than the space the requester preallocated.
    #[error("reply of {size} bytes exceeds the requester's lm_repsize {repsize}")]
    ReplyOverRepsize {
        /// Reply size.
        size: usize,
        /// Request's `lm_repsize`.
        repsize: u32,
    },

    // ---- xattr payloads (WIRE.md §9) ----
    /// A payload magic reads byte-swapped: xattr payloads are always little-endian.
    #[error("magic {got:#010x} is a known magic byte-swapped; xattr payloads are always LE")]
    SwabbedMagic {
        /// The value read as little-endian.
        got: u32,
    },
    /// A payload magic is not one the structure allows.
    #[error("unknown magic {got:#010x}")]
    UnknownMagic {
        /// The value read as little-endian.
        got: u32,
    },
    /// The payload length differs from the size its header implies.
    #[error("payload is {len} bytes, its header implies {expected}")]
    PayloadSizeMismatch {
        /// The payload length.
        len: usize,
        /// The size the header implies (the smallest one when several are allowed).
        expected: usize,
    },
    /// A pool name fills its 16-byte field without a NUL (more than 15 bytes).
    #[error("pool name has no NUL within its 16 bytes")]
    PoolNameNotTerminated,
    /// A POSIX ACL `a_version` other than 2: unsupported (EOPNOTSUPP), not malformed.
    #[error("ACL version {got:#x} is unsupported, expected 2")]
    AclUnsupportedVersion {
        /// `a_version`.
        got: u32,
    },
    /// A POSIX ACL whose length is not 4 + 8·n.
    #[error("ACL is {len} bytes, expected 4 + 8·n")]
    AclBadLength {
        /// Its length.
        len: usize,
    },
    /// An ACL entry with an unknown `e_tag`.
    #[error("ACL entry {index} has unknown tag {tag:#x}")]
    AclBadTag {
        /// Entry index.
        index: usize,
        /// The tag.
        tag: u16,
    },
    /// An ACL entry with permission bits beyond rwx.
    #[error("ACL entry {index} has permission {perm:#o}, expected at most 7")]
    AclBadPerm {
        /// Entry index.
        index: usize,
        /// The permission bits.
        perm: u16,
    },
    /// An ACL entry out of the order USER_OBJ, USER*, GROUP_OBJ, GROUP*, MASK?, OTHER, or a second
    /// USER_OBJ, GROUP_OBJ, MASK or OTHER.
    #[error("ACL entry {index} ({tag}) is out of order")]
    AclOrder {
        /// Entry index.
        index: usize,
        /// Its tag name.
        tag: &'static str,
    },
    /// A non-empty ACL lacks one of USER_OBJ, GROUP_OBJ and OTHER.
    #[error("ACL has no {tag} entry")]
    AclMissingEntry {
        /// The missing tag's name.
        tag: &'static str,
    },
    /// An ACL with named USER or GROUP entries and no MASK.
    #[error("ACL has named entries but no MASK")]
    AclMissingMask,
    /// Named ids are not strictly increasing within USER or GROUP entries.
    #[error("ACL entry {index}: id {id} follows {prev}, ids must increase")]
    AclIdsNotIncreasing {
        /// Entry index.
        index: usize,
        /// The previous entry's id.
        prev: u32,
        /// This entry's id.
        id: u32,
    },
    /// Two USER (or two GROUP) entries with the same id.
    #[error("ACL entry {index} repeats id {id}")]
    AclDuplicateEntry {
        /// Entry index.
        index: usize,
        /// The repeated id.
        id: u32,
    },
    /// A stripe count of a default LMV under its lower bound: −5, or 0 with the SPECIFIC magic
    /// (W9.11). A count over 2000 is [`ErrorKind::OverLimit`] (W0.3).
    #[error("lum_stripe_count {got} is outside {min}..=2000")]
    LmvBadStripeCount {
        /// `lum_stripe_count`.
        got: i32,
        /// Smallest allowed for this magic.
        min: i32,
    },
    /// A composite layout with `lcm_entry_count` 0.
    #[error("composite layout has no component")]
    LovCompNoEntries,
    /// The composite entry table runs past the payload.
    #[error("entry table of {count} entries ends at {end}, past the {len}-byte payload")]
    LovEntryTableOutside {
        /// `lcm_entry_count`.
        count: u16,
        /// End of the table.
        end: usize,
        /// Payload length.
        len: usize,
    },
    /// A component's `[lcme_offset, lcme_offset + lcme_size)` runs past the payload.
    #[error("component {index} at {offset}+{size} runs past the {len}-byte payload")]
    LovComponentOutside {
        /// Component index.
        index: usize,
        /// `lcme_offset`.
        offset: u32,
        /// `lcme_size`.
        size: u32,
        /// Payload length.
        len: usize,
    },
    /// A component blob overlaps the composite header or the entry table.
    #[error(
        "component {index} at {offset} overlaps the header or entry table (ending at {table_end})"
    )]
    LovComponentOverlapsTable {
        /// Component index.
        index: usize,
        /// `lcme_offset`.
        offset: u32,
        /// End of the entry table.
        table_end: usize,
    },
    /// Two component blobs overlap.
    #[error("component {index} overlaps component {other}")]
    LovComponentOverlap {
        /// Component index.
        index: usize,
        /// The earlier component it overlaps.
        other: usize,
    },
    /// A foreign LMV whose `lfm_value` is empty, which Lustre refuses (`lod_xattr_get`).
    #[error("foreign LMV has an empty lfm_value; Lustre refuses it")]
    LmvForeignEmpty,
    /// A component with no `init` flag whose object table is neither empty, the one placeholder
    /// entry Lustre writes, nor one entry per stripe.
    #[error(
        "uninstantiated component holds {objects} object entries, expected 0, 1 (placeholder) or {stripes}"
    )]
    LovUninitObjects {
        /// Object entries present.
        objects: usize,
        /// Entries `lmm_stripe_count` implies.
        stripes: usize,
    },
    /// The whole message is longer than `PTLRPC_MAX_BUFLEN`.
    #[error("message is {len} bytes, over the {max}-byte PTLRPC_MAX_BUFLEN")]
    MsgTooLong {
        /// The message size (header plus padded buffers).
        len: usize,
        /// The bound.
        max: usize,
    },
    /// A component blob is itself a composite layout.
    #[error("component {index} is a composite layout; components must be v1, v3 or foreign")]
    LovNestedComposite {
        /// Component index.
        index: usize,
    },
}
