//! The prepare intent: the new protocol of WIRE.md §4–§8.
//!
//! - [`opcodes`]: intent opcodes ([`IntentOpc`]), the connect flag, and the operation they
//!   stand for;
//! - the optional results ([`MliBuf`], `MLI_BUF_*`), their bitmask ([`ResultMask`]) and their
//!   three states ([`PrepResult`]);
//! - the fixed `md_create_prepare_req` and `md_create_prepare_rep` ([`MdCreatePrepareReq`],
//!   [`MdCreatePrepareRep`]), declared with Lustre's structures in the wire layer (their raw
//!   layouts in [`wire::raw`](crate::wire::raw), their members in
//!   [`wire::layout`](crate::wire::layout));
//! - [`name`]: entry names and supplementary groups, the variable request buffers;
//!   [`name_hash`], the name-hash lock's `name[3]`;
//! - [`request`] and [`reply`]: the whole messages, as validated views and as owned values;
//! - [`message`]: either of them, told apart by `pb_type` ([`MessageView::parse`], the entry
//!   point for bytes of unknown kind);
//! - [`lock_intent`]: `md_lock_intent`, the internal interface the design hands to OSP.

mod enqueue;
pub mod lock_intent;
mod mask;
pub mod message;
pub mod name;
mod name_hash;
pub mod opcodes;
pub mod reply;
pub mod request;
#[cfg(feature = "serde")]
mod serde_fields;
#[cfg(test)]
mod slice_tests;

pub use crate::wire::ldlm::IntentOpc;
pub use crate::wire::prepare::{McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq};
pub use lock_intent::{MdLockIntent, MdLockIntentRef, MliReplyBuf};
pub use mask::{MliBuf, PrepResult, ResultMask, UnknownReason};
#[cfg(feature = "alloc")]
pub use message::Message;
pub use message::MessageView;
#[cfg(feature = "alloc")]
pub use message::WireMessage;
pub use name::{EntryName, GroupList, GroupsView};
pub use name_hash::name_hash;
pub use opcodes::{OBD_CONNECT2_DNE_PREPARE, Operation};
#[cfg(feature = "arbitrary")]
#[doc(hidden)]
pub use reply::arbitrary_payload;
#[cfg(feature = "alloc")]
pub use reply::{PrepareOutcome, PrepareReply, ReplyMessage, ValidatedReply};
pub use reply::{ReplyContext, ReplyKind, ReplyView};
pub use request::{PrepareRequest, RequestView, ValidatedRequest, reply_size_for};
