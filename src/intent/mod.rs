//! The prepare intent: the new protocol of WIRE.md §4–§8.
//!
//! - [`opcodes`]: intent opcodes, the connect flag, and the operation they stand for;
//! - [`mask`]: the optional results (`MLI_BUF_*`), their bitmask and their three states;
//! - [`body`]: the fixed `md_create_prepare_req` and `md_create_prepare_rep`;
//! - [`name`]: entry names and supplementary groups, the variable request buffers;
//!   [`name_hash`], the name-hash lock's `name[3]`;
//! - [`request`] and [`reply`]: the whole messages, as validated views and as owned values;
//! - [`message`]: either of them, told apart by `pb_type` ([`MessageView::parse`], the entry
//!   point for bytes of unknown kind);
//! - [`lock_intent`]: `md_lock_intent`, the internal interface the design hands to OSP.

pub mod body;
mod enqueue;
pub mod lock_intent;
pub mod mask;
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

pub use body::{McppFlags, McprFlags, MdCreatePrepareRep, MdCreatePrepareReq};
pub use lock_intent::{MdLockIntent, MdLockIntentRef, MliReplyBuf};
pub use mask::{MliBuf, PrepResult, ResultMask, UnknownReason};
#[cfg(feature = "alloc")]
pub use message::Message;
pub use message::MessageView;
#[cfg(feature = "alloc")]
pub use message::WireMessage;
pub use name::{EntryName, GroupList, GroupsView};
pub use name_hash::name_hash;
pub use opcodes::{IntentOpc, OBD_CONNECT2_DNE_PREPARE, Operation};
#[cfg(feature = "arbitrary")]
#[doc(hidden)]
pub use reply::arbitrary_payload;
#[cfg(feature = "alloc")]
pub use reply::{PrepareOutcome, PrepareReply, ReplyMessage, ValidatedReply};
pub use reply::{ReplyContext, ReplyKind, ReplyView};
pub use request::{PrepareRequest, RequestView, ValidatedRequest, reply_size_for};
