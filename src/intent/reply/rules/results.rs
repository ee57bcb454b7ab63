//! The rules of WIRE.md §7 on the six result buffers: only what the request asked for, each
//! buffer against its valid and truncated bits, its size field and its limit, and every present
//! payload valid of its kind.

use super::{Buffers, ReplyRuleInput, err};
use crate::error::{At, DecodeError, ErrorKind};
use crate::intent::reply::ReplyContext;
use crate::intent::{MliBuf, ResultMask};
use crate::limits::{MDT_BODY_SIZE, XATTR_SIZE_MAX};
use crate::wire::layout::md_create_prepare_rep as rep;
use crate::wire::raw::MdCreatePrepareRepRaw;
use crate::xattr::{AclView, DefaultLmvView, LmvView, LovView};
use zerocopy::ByteOrder;

/// Only the results the request asked for, with sizes only where asked.
pub(super) fn check_requested(
    b: &MdCreatePrepareRepRaw<impl ByteOrder>,
    o2: usize,
    ctx: &ReplyContext,
) -> Result<(), DecodeError> {
    let valid = b.valid();
    let extra = valid.union(b.truncated()).difference(ctx.requested());
    if !extra.is_empty() {
        let field = if valid.intersects(extra) {
            rep::mcpp_valid
        } else {
            rep::mcpp_truncated
        };
        return Err(err(field.at(o2), ErrorKind::ResultNotRequested { extra }));
    }
    let requested = ctx.requested();
    let sizes = b.buf_size();
    if let Some(buf) = MliBuf::ALL
        .into_iter()
        .find(|&buf| !requested.has(buf) && sizes[buf.index()] != 0)
    {
        let i = buf.index();
        return Err(err(
            rep::mcpp_buf_size.element(i).at(o2),
            ErrorKind::ResultNotRequested { extra: buf.bit() },
        ));
    }
    Ok(())
}

/// Each result buffer against its bits, its size field and its limit.
#[inline(always)]
pub(super) fn check_results<'x, 'p, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'p>, O>,
    b: &MdCreatePrepareRepRaw<O>,
    ctx: Option<&ReplyContext>,
) -> Result<(), DecodeError> {
    let (valid, truncated, sizes) = (b.valid(), b.truncated(), b.buf_size());
    let result_at = |i: usize| At::new(MliBuf::ALL[i].name(), "", f.bufs.off(3 + i));
    for buf in MliBuf::ALL {
        let i = buf.index();
        let len = f.bufs.result_len(i);
        let size = sizes[i];
        let size_at = rep::mcpp_buf_size.element(i).at(f.bufs.off(2));
        let limit = ctx.map(|c| c.limits[i]);
        if valid.has(buf) {
            if len != size as usize {
                return Err(err(size_at, ErrorKind::ResultSizeMismatch { len, size }));
            }
            if buf == MliBuf::Pattr && len != MDT_BODY_SIZE {
                return Err(err(result_at(i), ErrorKind::PattrNotMdtBody { len }));
            }
            if len > XATTR_SIZE_MAX {
                return Err(err(
                    result_at(i),
                    ErrorKind::OverLimit {
                        value: len as u64,
                        max: XATTR_SIZE_MAX as u64,
                    },
                ));
            }
            if let Some(limit) = limit.filter(|&l| size > l) {
                return Err(err(size_at, ErrorKind::ResultOverLimit { size, limit }));
            }
        } else {
            if len != 0 {
                return Err(err(result_at(i), ErrorKind::BufferWithoutValid { len }));
            }
            if truncated.has(buf) && size <= limit.unwrap_or(0) {
                return Err(err(
                    size_at,
                    ErrorKind::TruncatedButFits {
                        size,
                        limit: limit.unwrap_or(0),
                    },
                ));
            }
        }
    }
    Ok(())
}
/// Every present result is a valid payload of its kind (WIRE.md §7, §9), reported at its offset
/// in the message. The one place a reply decode looks inside its results; the accessors
/// (`ReplyView::lmv` …) find the parts of what it accepted again without checking a rule.
#[inline(always)]
pub(super) fn check_payloads<'x, 'p, O: ByteOrder>(
    f: &ReplyRuleInput<'x, impl Buffers<'p>, O>,
    valid: ResultMask,
) -> Result<(), DecodeError> {
    // The kinds with a payload rule; a reply with none of them valid (an error, a lookup only)
    // is done at once.
    const CHECKED: ResultMask = ResultMask::EMPTY
        .with(MliBuf::DefAcl)
        .with(MliBuf::Lmv)
        .with(MliBuf::Lov)
        .with(MliBuf::DefLmv);
    if !valid.intersects(CHECKED) {
        return Ok(());
    }
    // One direct call per kind (PATTR is checked by its length, the pin is opaque), not a loop
    // over the kinds with a match inside, which cost more than the smaller validators.
    let present = |buf: MliBuf| {
        let bytes = f.bufs.result(buf.index());
        (valid.has(buf) && !bytes.is_empty()).then_some(bytes)
    };
    let at = |buf: MliBuf| move |e: DecodeError| e.shifted(f.bufs.off(3 + buf.index()));
    if let Some(b) = present(MliBuf::DefAcl) {
        AclView::parse(b).map_err(at(MliBuf::DefAcl))?;
    }
    if let Some(b) = present(MliBuf::Lmv) {
        LmvView::parse(b).map_err(at(MliBuf::Lmv))?;
    }
    if let Some(b) = present(MliBuf::Lov) {
        LovView::parse(b).map_err(at(MliBuf::Lov))?;
    }
    if let Some(b) = present(MliBuf::DefLmv) {
        DefaultLmvView::parse(b).map_err(at(MliBuf::DefLmv))?;
    }
    Ok(())
}
