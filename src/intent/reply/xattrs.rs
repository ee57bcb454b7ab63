//! Typed accessors for the xattr results of a prepare reply.

use super::ReplyView;
use crate::error::DecodeError;
use crate::intent::{MliBuf, PrepResult};
use crate::xattr::{AclView, DefaultLmvView, LmvView, LovView, PinView};

/// Checks a present result of a reply against the rules of its kind (WIRE.md §9): the views'
/// own `parse`. PATTR (checked by its length) and PIN (opaque) have no payload rules here.
#[cfg(feature = "arbitrary")]
pub(crate) fn check_result(buf: MliBuf, bytes: &[u8]) -> Result<(), DecodeError> {
    match buf {
        MliBuf::Pattr | MliBuf::Pin => Ok(()),
        MliBuf::DefAcl => AclView::parse(bytes).map(drop),
        MliBuf::Lmv => LmvView::parse(bytes).map(drop),
        MliBuf::Lov => LovView::parse(bytes).map(drop),
        MliBuf::DefLmv => DefaultLmvView::parse(bytes).map(drop),
    }
}

impl<'a> ReplyView<'a> {
    /// Decodes a present result with `parse`; errors are placed at their offset in the message.
    fn typed<T>(
        &self,
        buf: MliBuf,
        parse: impl FnOnce(&'a [u8]) -> Result<T, DecodeError>,
    ) -> Result<PrepResult<T>, DecodeError> {
        match self.result(buf) {
            PrepResult::Present(bytes) => parse(bytes)
                .map(PrepResult::Present)
                .map_err(|e| e.shifted(self.result_offset(buf))),
            PrepResult::Absent => Ok(PrepResult::Absent),
            PrepResult::Unknown(r) => Ok(PrepResult::Unknown(r)),
        }
    }

    /// `MLI_BUF_DEF_ACL`: the object's default ACL, validated.
    pub fn def_acl(&self) -> Result<PrepResult<AclView<'a>>, DecodeError> {
        // Every present result was validated by the reply's decode (WIRE.md §9): the ACL, the
        // costliest of them (an entry at a time), is only framed again.
        Ok(self.result(MliBuf::DefAcl).map(AclView::of_validated))
    }
    /// `MLI_BUF_PIN`: the object's pin.
    pub fn pin(&self) -> Result<PrepResult<PinView<'a>>, DecodeError> {
        self.typed(MliBuf::Pin, PinView::parse)
    }
    /// `MLI_BUF_LMV`: the object's own striping, validated.
    pub fn lmv(&self) -> Result<PrepResult<LmvView<'a>>, DecodeError> {
        self.typed(MliBuf::Lmv, LmvView::parse)
    }
    /// `MLI_BUF_LOV`: the object's (default) file layout, validated.
    pub fn lov(&self) -> Result<PrepResult<LovView<'a>>, DecodeError> {
        self.typed(MliBuf::Lov, LovView::parse)
    }
    /// `MLI_BUF_DEF_LMV`: the object's default striping, validated.
    pub fn def_lmv(&self) -> Result<PrepResult<DefaultLmvView<'a>>, DecodeError> {
        self.typed(MliBuf::DefLmv, DefaultLmvView::parse)
    }
}
