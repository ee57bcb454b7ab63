//! `struct md_lock_intent`: the design's internal interface between the coordinator and OSP.
//!
//! The caller supplies one destination buffer per result. Going out, each buffer's `len` is the
//! inline limit (`lb_len`) and becomes `mcpr_buf_limit[i]`; coming back, it is the length
//! actually returned, and `state` says whether the result is present, absent or unknown.

use super::name::GroupList;
use super::reply::ReplyView;
use super::{
    EntryName, IntentOpc, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq, MliBuf, Operation,
    PrepResult, PrepareRequest, UnknownReason,
};
use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::{GROUPS_MAX, MLI_BUF_MAX};
use crate::wire::LockMode;

const LB_LEN_FIELDS: [&str; MLI_BUF_MAX] = [
    "mli_reply_buf[MLI_BUF_PATTR].lb_len",
    "mli_reply_buf[MLI_BUF_DEF_ACL].lb_len",
    "mli_reply_buf[MLI_BUF_PIN].lb_len",
    "mli_reply_buf[MLI_BUF_LMV].lb_len",
    "mli_reply_buf[MLI_BUF_LOV].lb_len",
    "mli_reply_buf[MLI_BUF_DEF_LMV].lb_len",
];

/// One of `mli_reply_buf[]`: a caller-owned destination (`struct lu_buf`) and the state of its
/// result.
#[derive(Debug)]
pub struct MliReplyBuf<'b> {
    /// `lb_buf`: where a present result is copied.
    pub buf: &'b mut [u8],
    /// `lb_len`: the inline limit going out; the length returned coming back.
    pub len: usize,
    /// The result's state after [`MdLockIntent::fill`]; unknown before.
    pub state: PrepResult<()>,
}

impl<'b> MliReplyBuf<'b> {
    /// A destination whose limit is its whole length (an empty slice: not requested).
    pub fn new(buf: &'b mut [u8]) -> Self {
        let len = buf.len();
        MliReplyBuf {
            buf,
            len,
            state: PrepResult::Unknown(UnknownReason::NotProvided),
        }
    }

    /// The bytes returned (empty unless present).
    pub fn data(&self) -> &[u8] {
        match self.state {
            PrepResult::Present(()) => self.buf.get(..self.len).unwrap_or(&[]),
            _ => &[],
        }
    }
}

/// `struct md_lock_intent`.
#[derive(Debug)]
pub struct MdLockIntent<'n, 'b> {
    /// `mli_opc`.
    pub opc: IntentOpc,
    /// `mli_request`: the request body. Its `buf_limit` is recomputed from `reply_buf`.
    pub request: MdCreatePrepareReq,
    /// `mli_reply`: the reply body once replied.
    pub reply: Option<MdCreatePrepareRep>,
    /// `mli_name`: the entry name (without NUL); `None` in object mode.
    pub name: Option<&'n [u8]>,
    /// `mli_reply_buf[MLI_BUF_MAX]`.
    pub reply_buf: [MliReplyBuf<'b>; MLI_BUF_MAX],
    /// `mli_replied`: set when a prepare reply was filled in (not for the empty result).
    pub replied: bool,
}

impl<'n, 'b> MdLockIntent<'n, 'b> {
    /// An intent for `op` whose result `i` lands in `bufs[i]` (limit = its length).
    pub fn new(
        op: Operation,
        request: MdCreatePrepareReq,
        name: Option<&'n [u8]>,
        bufs: [&'b mut [u8]; MLI_BUF_MAX],
    ) -> Self {
        MdLockIntent {
            opc: op.opc(),
            request,
            reply: None,
            name,
            reply_buf: bufs.map(MliReplyBuf::new),
            replied: false,
        }
    }

    /// The limits that go on the wire: each buffer's `len`, which must fit its buffer.
    pub fn limits(&self) -> Result<[u32; MLI_BUF_MAX], DecodeError> {
        let mut out = [0u32; MLI_BUF_MAX];
        for (i, rb) in self.reply_buf.iter().enumerate() {
            if rb.len > rb.buf.len() {
                // Not a wire structure: the "offset" is the buffer's MLI_BUF index.
                return Err(DecodeError::new(
                    At::new("md_lock_intent", LB_LEN_FIELDS[i], i),
                    ErrorKind::OverLimit {
                        value: rb.len as u64,
                        max: rb.buf.len() as u64,
                    },
                ));
            }
            out[i] = u32::try_from(rb.len).unwrap_or(u32::MAX);
        }
        Ok(out)
    }

    /// Builds the enqueue request: the lock (`mode`, `name_hash` in the resource), the body with
    /// the limits of `reply_buf`, the name, and the caller's groups. More than 128 groups are cut
    /// to 128 and `MCPR_GROUPS_PARTIAL` is set, so that group-dependent verdicts come back
    /// advisory. The result passes every rule a decoder enforces.
    pub fn to_request(
        &self,
        groups: &[u32],
        mode: LockMode,
        name_hash: u64,
    ) -> Result<PrepareRequest, DecodeError> {
        let op = Operation::of_opc(self.opc).ok_or(DecodeError::new(
            At::new("md_lock_intent", "mli_opc", 0),
            ErrorKind::UnknownIntent { got: self.opc.0 },
        ))?;
        let mut body = self.request;
        body.buf_limit = self.limits()?;
        let take = groups.len().min(GROUPS_MAX);
        if take < groups.len() {
            body.flags |= McprFlags::GROUPS_PARTIAL;
        }
        let group_list = GroupList::from_slice(&groups[..take]).unwrap_or_default();
        let name = self.name.map(EntryName::new).transpose()?;
        let req = PrepareRequest::new(op, body, name, group_list, mode, name_hash);
        req.validate()?;
        Ok(req)
    }

    /// Fills the intent from a decoded reply without allocating: a present result is copied into
    /// its buffer, an absent one is known with length 0, an unknown one is marked unknown, and a
    /// truncated one reports its real size. A result larger than its destination is never
    /// written; it is reported truncated with its size.
    ///
    /// ```
    /// use lustre_dne_intent::intent::*;
    ///
    /// // Room for every result of a mkdir, but only 64 bytes for the LMV.
    /// let (mut pattr, mut acl, mut pin) = ([0u8; 216], [0u8; 4096], [0u8; 256]);
    /// let (mut lmv, mut lov, mut dmv) = ([0u8; 64], [0u8; 4096], [0u8; 4096]);
    /// let mut intent = MdLockIntent::new(
    ///     Operation::Create,
    ///     MdCreatePrepareReq::default(),
    ///     Some(b"newdir"),
    ///     [&mut pattr, &mut acl, &mut pin, &mut lmv, &mut lov, &mut dmv],
    /// );
    ///
    /// let reply = ReplyView::parse(include_bytes!("../../testdata/mkdir_reply_complete.bin"))?;
    /// intent.fill(&reply);
    /// assert!(intent.replied);
    /// assert_eq!(intent.result(MliBuf::Pin), PrepResult::Present(&b"[hsm: 3,pool: fast]"[..]));
    /// assert_eq!(intent.result(MliBuf::Lov).map(<[u8]>::len), PrepResult::Present(32));
    /// // The 88-byte LMV did not fit: not written, reported with its size.
    /// assert_eq!(
    ///     intent.result(MliBuf::Lmv),
    ///     PrepResult::Unknown(UnknownReason::Truncated { size: 88 })
    /// );
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn fill(&mut self, reply: &ReplyView<'_>) {
        self.reply = reply.body();
        self.replied = self.reply.is_some();
        for b in MliBuf::ALL {
            let rb = &mut self.reply_buf[b.index()];
            rb.len = 0;
            rb.state = match reply.result(b) {
                PrepResult::Present(data) => match rb.buf.get_mut(..data.len()) {
                    Some(dst) => {
                        dst.copy_from_slice(data);
                        rb.len = data.len();
                        PrepResult::Present(())
                    }
                    None => PrepResult::Unknown(UnknownReason::Truncated {
                        size: data.len() as u32,
                    }),
                },
                PrepResult::Absent => PrepResult::Absent,
                PrepResult::Unknown(r) => PrepResult::Unknown(r),
            };
        }
    }

    /// The state of result `buf` after [`MdLockIntent::fill`]: present with the bytes copied
    /// into its buffer, absent, or unknown (and why). Before `fill`, every result is unknown.
    pub fn result(&self, buf: MliBuf) -> PrepResult<&[u8]> {
        let rb = &self.reply_buf[buf.index()];
        rb.state.map(|()| rb.data())
    }
}

/// The borrowing alternative to [`MdLockIntent::fill`]: the reply's results as slices of the
/// reply message, no copy.
#[derive(Debug, Clone, Copy)]
pub struct MdLockIntentRef<'a> {
    /// `mli_opc`.
    pub opc: IntentOpc,
    /// `mli_reply`.
    pub reply: Option<MdCreatePrepareRep>,
    /// The six results.
    pub results: [PrepResult<&'a [u8]>; MLI_BUF_MAX],
    /// `mli_replied`.
    pub replied: bool,
}

impl<'a> MdLockIntentRef<'a> {
    /// The results of `reply` for an intent of `opc`.
    pub fn from_reply(opc: IntentOpc, reply: &ReplyView<'a>) -> Self {
        MdLockIntentRef {
            opc,
            reply: reply.body(),
            results: reply.results(),
            replied: !reply.is_empty_result(),
        }
    }
}
