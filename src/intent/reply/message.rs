//! A validated reply that owns its bytes ([`ReplyMessage`]).

use super::ReplyContext;
use super::view::{ReplyLayout, ReplyView, decode};
use crate::error::DecodeError;
use crate::intent::{MliBuf, PrepResult};
use bytes::Bytes;

/// A validated reply that owns its bytes and hands out results as zero-copy `Bytes` slices.
#[derive(Debug, Clone)]
pub struct ReplyMessage {
    bytes: Bytes,
    layout: ReplyLayout,
}

impl ReplyMessage {
    /// Validates `bytes` as a reply (see [`ReplyView::parse`]).
    pub fn parse(bytes: Bytes) -> Result<Self, DecodeError> {
        let layout = decode(&bytes, None)?;
        Ok(ReplyMessage { bytes, layout })
    }
    /// Validates `bytes` as the reply to a known request.
    pub fn parse_for(bytes: Bytes, ctx: &ReplyContext) -> Result<Self, DecodeError> {
        let layout = decode(&bytes, Some(ctx))?;
        Ok(ReplyMessage { bytes, layout })
    }
    /// A borrowing view (no re-validation).
    pub fn view(&self) -> ReplyView<'_> {
        ReplyView {
            bytes: &self.bytes,
            layout: self.layout,
        }
    }
    /// Result `buf` as a slice sharing this message's allocation.
    pub fn result(&self, buf: MliBuf) -> PrepResult<Bytes> {
        self.layout
            .result_state(&self.bytes, buf)
            .map(|s| self.bytes.slice(s.range()))
    }
    /// The whole message.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
}
