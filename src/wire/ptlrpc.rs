//! `ptlrpc_body_v3` (buffer 0 of every message), accepting the 152-byte v2 on input.

use super::ldlm::LustreHandle;
#[cfg(feature = "alloc")]
use super::out::Out;
#[cfg(feature = "alloc")]
use super::put_struct;
use super::{WireStruct, check_layout};
use crate::endian::Endian;
use crate::error::DecodeError;
use crate::limits::{JOBID_SIZE, PTLRPC_BODY_V2_SIZE, PTLRPC_BODY_V3_SIZE};
use zerocopy::byteorder::{I32, U16, U32, U64};
use zerocopy::{
    ByteOrder, FromBytes, FromZeros, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned,
};

wire_enum! {
    /// `pb_type`: what kind of message this is.
    pub struct PtlrpcMsgType(u32) {
        /// `PTL_RPC_MSG_REQUEST`.
        const REQUEST = 4711, "PTL_RPC_MSG_REQUEST";
        /// `PTL_RPC_MSG_ERR`: a reply that carries only an error status.
        const ERR = 4712, "PTL_RPC_MSG_ERR";
        /// `PTL_RPC_MSG_REPLY`.
        const REPLY = 4713, "PTL_RPC_MSG_REPLY";
    }
}

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

/// `struct ptlrpc_body_v3` (184 bytes).
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct PtlrpcBodyRaw<O: ByteOrder> {
    pub pb_handle: [u8; 8],
    pub pb_type: U32<O>,
    pub pb_version: U32<O>,
    pub pb_opc: U32<O>,
    pub pb_status: I32<O>,
    pub pb_last_xid: U64<O>,
    pub pb_tag: U16<O>,
    pub pb_padding0: U16<O>,
    pub pb_projid: U32<O>,
    pub pb_last_committed: U64<O>,
    pub pb_transno: U64<O>,
    pub pb_flags: U32<O>,
    pub pb_op_flags: U32<O>,
    pub pb_conn_cnt: U32<O>,
    pub pb_timeout: U32<O>,
    pub pb_service_time: U32<O>,
    pub pb_limit: U32<O>,
    pub pb_slv: U64<O>,
    pub pb_pre_versions: [U64<O>; 4],
    pub pb_mbits: U64<O>,
    pub pb_padding64_0: U64<O>,
    pub pb_padding64_1: U64<O>,
    pub pb_uid: U32<O>,
    pub pb_gid: U32<O>,
    pub pb_jobid: [u8; JOBID_SIZE],
}
check_layout!(PtlrpcBodyRaw<LittleEndian>, 184;
    pb_handle @ 0, pb_type @ 8, pb_version @ 12, pb_opc @ 16, pb_status @ 20, pb_last_xid @ 24,
    pb_tag @ 32, pb_padding0 @ 34, pb_projid @ 36, pb_last_committed @ 40, pb_transno @ 48,
    pb_flags @ 56, pb_op_flags @ 60, pb_conn_cnt @ 64, pb_timeout @ 68, pb_service_time @ 72,
    pb_limit @ 76, pb_slv @ 80, pb_pre_versions @ 88, pb_mbits @ 120, pb_padding64_0 @ 128,
    pb_padding64_1 @ 136, pb_uid @ 144, pb_gid @ 148, pb_jobid @ 152);

/// `ptlrpc_body`: the RPC header every message starts with. Padding is not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[allow(missing_docs)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct PtlrpcBody {
    /// `pb_handle`: opaque, never byte-swapped.
    #[cfg_attr(feature = "serde", serde(rename = "pb_handle"))]
    pub handle: LustreHandle,
    #[cfg_attr(feature = "serde", serde(rename = "pb_type"))]
    pub msg_type: PtlrpcMsgType,
    #[cfg_attr(feature = "serde", serde(rename = "pb_version"))]
    pub version: u32,
    #[cfg_attr(feature = "serde", serde(rename = "pb_opc"))]
    pub opc: u32,
    /// `pb_status`: 0 or a negative errno.
    #[cfg_attr(feature = "serde", serde(rename = "pb_status"))]
    pub status: i32,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_last_xid", with = "crate::json::ints::hex")
    )]
    pub last_xid: u64,
    #[cfg_attr(feature = "serde", serde(rename = "pb_tag"))]
    pub tag: u16,
    #[cfg_attr(feature = "serde", serde(rename = "pb_projid"))]
    pub projid: u32,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_last_committed", with = "crate::json::ints::dec")
    )]
    pub last_committed: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_transno", with = "crate::json::ints::dec")
    )]
    pub transno: u64,
    #[cfg_attr(feature = "serde", serde(rename = "pb_flags"))]
    pub flags: MsgFlags,
    #[cfg_attr(feature = "serde", serde(rename = "pb_op_flags"))]
    pub op_flags: u32,
    #[cfg_attr(feature = "serde", serde(rename = "pb_conn_cnt"))]
    pub conn_cnt: u32,
    #[cfg_attr(feature = "serde", serde(rename = "pb_timeout"))]
    pub timeout: u32,
    #[cfg_attr(feature = "serde", serde(rename = "pb_service_time"))]
    pub service_time: u32,
    #[cfg_attr(feature = "serde", serde(rename = "pb_limit"))]
    pub limit: u32,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_slv", with = "crate::json::ints::dec")
    )]
    pub slv: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_pre_versions", with = "crate::json::ints::dec_array")
    )]
    pub pre_versions: [u64; 4],
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_mbits", with = "crate::json::ints::hex")
    )]
    pub mbits: u64,
    #[cfg_attr(feature = "serde", serde(rename = "pb_uid"))]
    pub uid: u32,
    #[cfg_attr(feature = "serde", serde(rename = "pb_gid"))]
    pub gid: u32,
    /// `pb_jobid` (never byte-swapped); `None` for a 152-byte `ptlrpc_body_v2`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "pb_jobid", with = "crate::json::wire::jobid")
    )]
    pub jobid: Option<[u8; JOBID_SIZE]>,
}

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
            jobid: Some([0; JOBID_SIZE]),
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
        DecodeError::too_short("ptlrpc_body", base, len, PTLRPC_BODY_V2_SIZE)
    }

    /// Decodes buffer 0 of a message: 184 bytes (v3), or at least 152 (v2, no job id).
    /// `base` is the buffer's offset in the message, for error positions.
    #[inline]
    pub fn decode_buffer(buf: &[u8], order: Endian, base: usize) -> Result<Self, DecodeError> {
        match order {
            Endian::Little => Self::decode_buffer_in::<LittleEndian>(buf, base),
            Endian::Big => Self::decode_buffer_in::<zerocopy::BigEndian>(buf, base),
        }
    }

    /// [`PtlrpcBody::decode_buffer`] in byte order `O`.
    #[inline]
    pub(crate) fn decode_buffer_in<O: ByteOrder>(
        buf: &[u8],
        base: usize,
    ) -> Result<Self, DecodeError> {
        if let Some(body) = super::decode_in::<Self, O>(buf) {
            return Ok(body);
        }
        if buf.len() < PTLRPC_BODY_V2_SIZE {
            return Err(Self::too_short(base, buf.len()));
        }
        let mut v3 = [0u8; PTLRPC_BODY_V3_SIZE];
        v3[..PTLRPC_BODY_V2_SIZE].copy_from_slice(&buf[..PTLRPC_BODY_V2_SIZE]);
        let mut body = super::decode_in::<Self, O>(&v3).unwrap_or_default();
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

impl WireStruct for PtlrpcBody {
    const NAME: &'static str = "ptlrpc_body";
    const SIZE: usize = PTLRPC_BODY_V3_SIZE;
    type Raw<O: ByteOrder> = PtlrpcBodyRaw<O>;

    fn from_raw<O: ByteOrder>(r: &PtlrpcBodyRaw<O>) -> Self {
        PtlrpcBody {
            handle: LustreHandle::from_bytes(r.pb_handle),
            msg_type: PtlrpcMsgType(r.pb_type.get()),
            version: r.pb_version.get(),
            opc: r.pb_opc.get(),
            status: r.pb_status.get(),
            last_xid: r.pb_last_xid.get(),
            tag: r.pb_tag.get(),
            projid: r.pb_projid.get(),
            last_committed: r.pb_last_committed.get(),
            transno: r.pb_transno.get(),
            flags: MsgFlags(r.pb_flags.get()),
            op_flags: r.pb_op_flags.get(),
            conn_cnt: r.pb_conn_cnt.get(),
            timeout: r.pb_timeout.get(),
            service_time: r.pb_service_time.get(),
            limit: r.pb_limit.get(),
            slv: r.pb_slv.get(),
            pre_versions: r.pb_pre_versions.map(|v| v.get()),
            mbits: r.pb_mbits.get(),
            uid: r.pb_uid.get(),
            gid: r.pb_gid.get(),
            jobid: Some(r.pb_jobid),
        }
    }

    fn to_raw<O: ByteOrder>(&self) -> PtlrpcBodyRaw<O> {
        // One list of the fields, in `write_raw`; it overwrites every byte of the zeroed copy.
        let mut raw = PtlrpcBodyRaw::new_zeroed();
        self.write_raw::<O>(&mut raw);
        raw
    }

    // Field by field, so that `write_at` builds the 184 bytes in place: built on the stack and
    // copied, they cost an encode about 30 instructions more (a call of memcpy; callgrind).
    #[inline]
    fn write_raw<O: ByteOrder>(&self, dst: &mut PtlrpcBodyRaw<O>) {
        dst.pb_handle = self.handle.to_bytes();
        dst.pb_type = U32::new(self.msg_type.0);
        dst.pb_version = U32::new(self.version);
        dst.pb_opc = U32::new(self.opc);
        dst.pb_status = I32::new(self.status);
        dst.pb_last_xid = U64::new(self.last_xid);
        dst.pb_tag = U16::new(self.tag);
        dst.pb_padding0 = U16::ZERO;
        dst.pb_projid = U32::new(self.projid);
        dst.pb_last_committed = U64::new(self.last_committed);
        dst.pb_transno = U64::new(self.transno);
        dst.pb_flags = U32::new(self.flags.0);
        dst.pb_op_flags = U32::new(self.op_flags);
        dst.pb_conn_cnt = U32::new(self.conn_cnt);
        dst.pb_timeout = U32::new(self.timeout);
        dst.pb_service_time = U32::new(self.service_time);
        dst.pb_limit = U32::new(self.limit);
        dst.pb_slv = U64::new(self.slv);
        for (d, &v) in dst.pb_pre_versions.iter_mut().zip(&self.pre_versions) {
            *d = U64::new(v);
        }
        dst.pb_mbits = U64::new(self.mbits);
        dst.pb_padding64_0 = U64::ZERO;
        dst.pb_padding64_1 = U64::ZERO;
        dst.pb_uid = U32::new(self.uid);
        dst.pb_gid = U32::new(self.gid);
        dst.pb_jobid = self.jobid.unwrap_or([0; JOBID_SIZE]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use zerocopy::{BigEndian, FromBytes, IntoBytes, LittleEndian};

    /// A body whose every field holds a value of its own, so that a field written from the
    /// wrong source or to the wrong place shows.
    fn distinct(jobid: Option<[u8; JOBID_SIZE]>) -> PtlrpcBody {
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
            jobid: Some(b.jobid.unwrap_or([0; JOBID_SIZE])),
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
        let mut job = [0u8; JOBID_SIZE];
        job[..9].copy_from_slice(b"dd.0.1234");
        for b in [distinct(Some(job)), distinct(None)] {
            check_order::<LittleEndian>(&b);
            check_order::<BigEndian>(&b);
        }
    }
}
