//! The xattr results of a prepare reply as typed views. Decoding validates every present
//! payload of the four kinds with rules (WIRE.md §9) and keeps where each lies; an accessor
//! finds the parts of an accepted payload again (`of_validated`: a few slices, no rule), so
//! nothing is parsed twice and nothing that cannot fail returns a `Result`.

use super::ReplyView;
#[cfg(feature = "arbitrary")]
use crate::error::DecodeError;
use crate::intent::{MliBuf, PrepResult, UnknownReason};
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
    /// Result `buf` as the view `of_validated` finds in the bytes the decode accepted.
    fn typed<T>(&self, buf: MliBuf, of_validated: fn(&'a [u8]) -> Option<T>) -> PrepResult<T> {
        match self.result(buf) {
            PrepResult::Present(bytes) => match of_validated(bytes) {
                Some(v) => PrepResult::Present(v),
                // Not reached: `of_validated` finds the parts of every payload the decode
                // accepted. Unknown is the answer that cannot mislead (the coordinator reads the
                // item itself).
                None => PrepResult::Unknown(UnknownReason::NotProvided),
            },
            PrepResult::Absent => PrepResult::Absent,
            PrepResult::Unknown(r) => PrepResult::Unknown(r),
        }
    }

    /// `MLI_BUF_DEF_ACL`: the object's default ACL, as the decode validated it.
    ///
    /// ```
    /// use lustre_dne_intent::intent::{PrepResult, ReplyView};
    ///
    /// let reply = ReplyView::parse(include_bytes!("../../../testdata/mkdir_reply_complete.bin"))?;
    /// let PrepResult::Present(acl) = reply.def_acl() else { panic!("a default ACL") };
    /// assert!(!acl.is_empty());
    /// assert_eq!(reply.lmv().state_name(), "present");
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn def_acl(&self) -> PrepResult<AclView<'a>> {
        self.result(MliBuf::DefAcl).map(AclView::of_validated)
    }
    /// `MLI_BUF_PIN`: the object's pin (any bytes within `XATTR_SIZE_MAX`, which the decode
    /// checked).
    pub fn pin(&self) -> PrepResult<PinView<'a>> {
        self.result(MliBuf::Pin).map(PinView::of_validated)
    }
    /// `MLI_BUF_LMV`: the object's own striping, as the decode validated it.
    pub fn lmv(&self) -> PrepResult<LmvView<'a>> {
        self.typed(MliBuf::Lmv, LmvView::of_validated)
    }
    /// `MLI_BUF_LOV`: the object's (default) file layout, as the decode validated it.
    pub fn lov(&self) -> PrepResult<LovView<'a>> {
        self.typed(MliBuf::Lov, LovView::of_validated)
    }
    /// `MLI_BUF_DEF_LMV`: the object's default striping, as the decode validated it.
    pub fn def_lmv(&self) -> PrepResult<DefaultLmvView<'a>> {
        self.typed(MliBuf::DefLmv, DefaultLmvView::of_validated)
    }
}
