//! `ptlrpc_body_v3` (buffer 0 of every message), accepting the 152-byte v2 on input.

use super::ldlm::LustreHandle;
#[cfg(feature = "alloc")]
use super::out::Out;
#[cfg(feature = "alloc")]
use super::table::put_struct;
use super::table::{WireStruct, c_struct};
use crate::endian::Endian;
use crate::error::DecodeError;
use crate::limits::{
    LUSTRE_JOBID_SIZE, PTLRPC_BODY_V2_SIZE, PTLRPC_BODY_V3_SIZE, PTLRPC_NUM_VERSIONS,
};
use zerocopy::ByteOrder;

pub use crate::msg_type::PtlrpcMsgType;

wire_flags! {
    /// `pb_flags`.
    pub struct MsgFlags(u32) {
        /// `MSG_RESENT`: a resend of a request whose reply was lost.
        const RESENT = 0x2, "MSG_RESENT";
        /// `MSG_REPLAY`: a replay during recovery; never carries an intent.
        const REPLAY = 0x4, "MSG_REPLAY";
        /// `MSG_REQ_REPLAY_DONE`.
        const REQ_REPLAY_DONE = 0x40, "MSG_REQ_REPLAY_DONE";
        /// `MSG_LOCK_REPLAY_DONE`.
        const LOCK_REPLAY_DONE = 0x80, "MSG_LOCK_REPLAY_DONE";
        /// `MSG_CLIENT_BANNED`.
        const CLIENT_BANNED = 0x100, "MSG_CLIENT_BANNED";
        /// `MSG_PACK_UID_GID`: pb_uid and pb_gid are valid.
        const PACK_UID_GID = 0x200, "MSG_PACK_UID_GID";
        /// `MSG_PACK_PROJID`: pb_projid is valid.
        const PACK_PROJID = 0x400, "MSG_PACK_PROJID";
    }
}

/// `LDLM_ENQUEUE`, the opcode of every prepare-intent message.
pub const LDLM_ENQUEUE: u32 = 101;
/// `PTLRPC_MSG_VERSION`: the low 16 bits of every `pb_version`, and the whole `pb_version` of
/// a reply (`lustre_pack_reply_v2` writes it alone).
pub const PTLRPC_MSG_VERSION: u32 = 0x0000_0003;
/// `LUSTRE_VERSION_MASK`: the high 16 bits of `pb_version`, the service's protocol version.
pub const LUSTRE_VERSION_MASK: u32 = 0xffff_0000;
/// `LUSTRE_DLM_VERSION`: the protocol version of the LDLM service.
pub const LUSTRE_DLM_VERSION: u32 = 0x0004_0000;
/// `LUSTRE_DLM_VERSION | PTLRPC_MSG_VERSION`, the `pb_version` of an LDLM request
/// (`ptlrpc_request_pack`).
pub const LUSTRE_DLM_MSG_VERSION: u32 = LUSTRE_DLM_VERSION | PTLRPC_MSG_VERSION;

/// `ptlrpc_body`: the RPC header every message starts with. Padding is not kept.
#[c_struct(ptlrpc_body, size = PTLRPC_BODY_V3_SIZE,
    doc = "Buffer 0 of every message (lustre_idl.h, ptlrpc_body_v3; v2 ends before pb_jobid).",
    raw_doc = "`struct ptlrpc_body_v3` (184 bytes).",
    convert = in_place)]
#[c_member(34, __u16 pb_padding0, "padding")]
#[c_member(128, __u64 pb_padding64_0, "padding")]
#[c_member(136, __u64 pb_padding64_1, "padding")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct PtlrpcBody {
    /// the export's handle (opaque)
    #[c(0, struct LustreHandle pb_handle, detail)]
    pub handle: LustreHandle,
    /// PTL_RPC_MSG_*
    #[c(8, __u32 pb_type, enum)]
    pub msg_type: PtlrpcMsgType,
    /// the service's version | PTLRPC_MSG_VERSION
    #[c(12, __u32 pb_version, hex)]
    pub version: u32,
    /// the operation (LDLM_ENQUEUE)
    #[c(16, __u32 pb_opc)]
    pub opc: u32,
    /// 0 or a negative errno
    #[c(20, __s32 pb_status, errno)]
    pub status: i32,
    /// the highest xid whose reply the sender has
    #[c(24, __u64 pb_last_xid, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub last_xid: u64,
    /// the request's slot (multiple modifying RPCs)
    #[c(32, __u16 pb_tag)]
    pub tag: u16,
    /// caller's project id
    #[c(36, __u32 pb_projid)]
    pub projid: u32,
    /// the last transaction committed
    #[c(40, __u64 pb_last_committed)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub last_committed: u64,
    /// this request's transaction number
    #[c(48, __u64 pb_transno)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub transno: u64,
    /// MSG_*
    #[c(56, __u32 pb_flags)]
    pub flags: MsgFlags,
    /// flags of the operation
    #[c(60, __u32 pb_op_flags, hex)]
    pub op_flags: u32,
    /// the connection's count
    #[c(64, __u32 pb_conn_cnt)]
    pub conn_cnt: u32,
    /// the request's deadline, seconds
    #[c(68, __u32 pb_timeout)]
    pub timeout: u32,
    /// seconds the service took
    #[c(72, __u32 pb_service_time)]
    pub service_time: u32,
    /// the lock count limit (LRU resize)
    #[c(76, __u32 pb_limit)]
    pub limit: u32,
    /// the server lock volume
    #[c(80, __u64 pb_slv)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub slv: u64,
    /// the objects' versions before the operation
    #[c(88, __u64 pb_pre_versions[PTLRPC_NUM_VERSIONS], detail)]
    #[cfg_attr(
        feature = "serde",
        serde(with = "crate::serde_helpers::ints::dec_array")
    )]
    pub pre_versions: [u64; PTLRPC_NUM_VERSIONS],
    /// match bits of the bulk transfer
    #[c(120, __u64 pb_mbits, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub mbits: u64,
    /// caller's uid
    #[c(144, __u32 pb_uid)]
    pub uid: u32,
    /// caller's gid
    #[c(148, __u32 pb_gid)]
    pub gid: u32,
    /// the job id, NUL-padded, never byte-swapped; None for a 152-byte ptlrpc_body_v2
    #[c(152, __u8 pb_jobid[LUSTRE_JOBID_SIZE], text, detail)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::jobid"))]
    pub jobid: Option<[u8; LUSTRE_JOBID_SIZE]>,
}
const _: () = assert!(ptlrpc_body::pb_jobid.offset == PTLRPC_BODY_V2_SIZE);

impl PtlrpcBody {
    /// A body for an `LDLM_ENQUEUE` message of the given type, every other field zero.
    pub fn enqueue(msg_type: PtlrpcMsgType) -> Self {
        PtlrpcBody {
            msg_type,
            // As Lustre writes them: a request carries its service's version, a reply
            // PTLRPC_MSG_VERSION alone (`lustre_pack_reply_v2`).
            version: if msg_type.0 == PtlrpcMsgType::REQUEST.0 {
                LUSTRE_DLM_MSG_VERSION
            } else {
                PTLRPC_MSG_VERSION
            },
            opc: LDLM_ENQUEUE,
            jobid: Some([0; LUSTRE_JOBID_SIZE]),
            ..Default::default()
        }
    }

    /// The encoded length: 184, or 152 for a v2 body.
    pub const fn wire_len(&self) -> usize {
        if self.jobid.is_some() {
            PTLRPC_BODY_V3_SIZE
        } else {
            PTLRPC_BODY_V2_SIZE
        }
    }

    /// The job id up to its first NUL.
    pub fn jobid_bytes(&self) -> &[u8] {
        match &self.jobid {
            Some(j) => {
                let end = j.iter().position(|&b| b == 0).unwrap_or(j.len());
                &j[..end]
            }
            None => &[],
        }
    }

    /// The error for a buffer 0 at offset `base` shorter than a v2 body (`len` bytes), shared
    /// by every reader of buffer 0.
    pub(crate) fn too_short(base: usize, len: usize) -> DecodeError {
        DecodeError::too_short(Self::NAME, base, len, PTLRPC_BODY_V2_SIZE)
    }

    /// Decodes buffer 0 of a message: 184 bytes (v3), or at least 152 (v2, no job id).
    /// `base` is the buffer's offset in the message, for error positions.
    #[inline]
    pub fn decode_buffer(buf: &[u8], order: Endian, base: usize) -> Result<Self, DecodeError> {
        crate::endian::with_order!(order, |O| Self::decode_buffer_as::<O>(buf, base))
    }

    /// [`PtlrpcBody::decode_buffer`] in byte order `O`.
    #[inline]
    pub(crate) fn decode_buffer_as<O: ByteOrder>(
        buf: &[u8],
        base: usize,
    ) -> Result<Self, DecodeError> {
        if let Some(body) = super::decode_as::<Self, O>(buf) {
            return Ok(body);
        }
        if buf.len() < PTLRPC_BODY_V2_SIZE {
            return Err(Self::too_short(base, buf.len()));
        }
        let mut v3 = [0u8; PTLRPC_BODY_V3_SIZE];
        v3[..PTLRPC_BODY_V2_SIZE].copy_from_slice(&buf[..PTLRPC_BODY_V2_SIZE]);
        let mut body = super::decode_as::<Self, O>(&v3).unwrap_or_default();
        body.jobid = None;
        Ok(body)
    }

    /// Appends the body: 184 bytes, or 152 for a v2 body.
    #[cfg(feature = "alloc")]
    pub fn put_buffer<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        self.put_buffer_to(order, out);
    }

    #[cfg(feature = "alloc")]
    pub(crate) fn put_buffer_to<B: Out + ?Sized>(&self, order: Endian, out: &mut B) {
        let mut v3 = [0u8; PTLRPC_BODY_V3_SIZE];
        let mut w: &mut [u8] = &mut v3;
        put_struct(self, order, &mut w);
        out.put_slice(&v3[..self.wire_len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::{BigEndian, FromBytes, IntoBytes, LittleEndian};

    /// A body whose every field holds a value of its own, so that a field written from the
    /// wrong source or to the wrong place shows.
    fn distinct(jobid: Option<[u8; LUSTRE_JOBID_SIZE]>) -> PtlrpcBody {
        PtlrpcBody {
            handle: LustreHandle(0x0102_0304_0506_0708),
            msg_type: PtlrpcMsgType(0x1112_1314),
            version: 0x2122_2324,
            opc: 0x3132_3334,
            status: -0x4142_4344,
            last_xid: 0x5152_5354_5556_5758,
            tag: 0x6162,
            projid: 0x7172_7374,
            last_committed: 0x8182_8384_8586_8788,
            transno: 0x9192_9394_9596_9798,
            flags: MsgFlags(0xa1a2_a3a4),
            op_flags: 0xb1b2_b3b4,
            conn_cnt: 0xc1c2_c3c4,
            timeout: 0xd1d2_d3d4,
            service_time: 0xe1e2_e3e4,
            limit: 0xf1f2_f3f4,
            slv: 0x0a0b_0c0d_0e0f_1a1b,
            pre_versions: [0x1c1d, 0x1e1f, 0x2a2b, 0x2c2d],
            mbits: 0x3a3b_3c3d_3e3f_4a4b,
            uid: 0x4c4d_4e4f,
            gid: 0x5a5b_5c5d,
            jobid,
        }
    }

    fn in_place<O: ByteOrder>(b: &PtlrpcBody) -> [u8; PTLRPC_BODY_V3_SIZE] {
        let mut out = [0xa5u8; PTLRPC_BODY_V3_SIZE];
        let dst = PtlrpcBodyRaw::<O>::mut_from_bytes(&mut out).expect("184 bytes");
        b.write_raw::<O>(dst);
        out
    }

    /// Written in place over 0xa5 bytes, every field reads back through the decoder's
    /// `from_raw` (which the golden vectors check) as the value it came from (a missing job id
    /// as zeros), the padding is zero, and no byte is left as it was; `to_raw` writes the same
    /// bytes.
    fn check_order<O: ByteOrder>(b: &PtlrpcBody) {
        let out = in_place::<O>(b);
        let raw = PtlrpcBodyRaw::<O>::ref_from_bytes(&out).expect("184 bytes");
        // A v3 body always carries a job id: a missing one is written as zeros.
        let want = PtlrpcBody {
            jobid: Some(b.jobid.unwrap_or([0; LUSTRE_JOBID_SIZE])),
            ..*b
        };
        assert_eq!(PtlrpcBody::from_raw(raw), want);
        assert_eq!(raw.pb_padding0.get(), 0);
        assert_eq!((raw.pb_padding64_0.get(), raw.pb_padding64_1.get()), (0, 0));
        assert!(!out.contains(&0xa5), "a byte was not written: {out:x?}");
        assert_eq!(out, b.to_raw::<O>().as_bytes());
    }

    #[test]
    fn written_in_place_is_the_raw_layout() {
        let mut job = [0u8; LUSTRE_JOBID_SIZE];
        job[..9].copy_from_slice(b"dd.0.1234");
        for b in [distinct(Some(job)), distinct(None)] {
            check_order::<LittleEndian>(&b);
            check_order::<BigEndian>(&b);
        }
    }
}
