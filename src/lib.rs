//! # lustre-dne-intent
//!
//! The reference codec for the Lustre DNE *prepare intent*: an operation-aware intent (create,
//! rename, unlink) carried on the remote name-hash lock enqueue, answered under that lock with
//! the lookup, the permission checks, the inheritance and up to six optional results of the
//! parent directory.
//!
//! This crate is the codec alone (`no_std` without its default `std` feature). Beside it, each
//! depending on it: `lustre-dne-intent-model` (the reference model, MODEL.md),
//! `lustre-dne-intent-capture` (pcap/pcapng of socklnd traffic, the Wireshark dissector),
//! `lustre-dne-intent-conformance` (vectors, runner, C testee, C header, fuzz harnesses) and the
//! `dne-intent` tool.
//!
//! Data flows one way: bytes → validated views ([`intent::RequestView`],
//! [`intent::ReplyView`]) → owned values ([`intent::PrepareRequest`],
//! `intent::PrepareReply`) → and back out through encoders that know their size in advance
//! and write into a `&mut [u8]` or (with `alloc`) any `bytes::BufMut`.
//!
//! **The entry point** for bytes of either kind is [`intent::MessageView::parse`]: it frames the
//! message, reads `pb_type` first and decodes a request or a reply with the rules of its kind
//! (`intent::Message` is its owned counterpart). When the kind is known,
//! [`intent::RequestView::parse`] and [`intent::ReplyView::parse`] refuse the other kind with
//! [`ErrorKind::WrongMessageType`].
//!
//! ```
//! use lustre_dne_intent::intent::{MessageView, MliBuf, PrepResult};
//!
//! let bytes = include_bytes!("../testdata/mkdir_reply_complete.bin");
//! match MessageView::parse(bytes)? {
//!     MessageView::Reply(reply) => {
//!         assert_eq!(reply.result(MliBuf::Lov).map(<[u8]>::len), PrepResult::Present(32));
//!     }
//!     MessageView::Request(_) => unreachable!("pb_type 4713 is a reply"),
//! }
//! # Ok::<(), lustre_dne_intent::DecodeError>(())
//! ```
//!
//! ## Features
//! | feature | default | what it adds | dependencies it brings |
//! |---|---|---|---|
//! | `std` | yes | `std::error::Error` for the errors; implies `alloc` | `bytes/std`, `thiserror/std` |
//! | `alloc` | with `std` | the owned values that hold bytes (`PrepareReply`, `ReplyMessage`, `Message`, the owned xattr payloads) and the `bytes::Bytes`/`BufMut` API (re-exported as `lustre_dne_intent::bytes`). Without it the crate depends on neither `alloc` nor `bytes`: views, [`intent::PrepareRequest::encode_into`] and [`intent::MdLockIntent::fill`] work on caller buffers | `bytes` |
//! | `text` | yes | text, not codec: the hex reader (module `hex`) for the dump forms the tool reads, and the `getfacl`, `lfs getstripe` and `lfs getdirstripe` renderers of the xattr views; implies `alloc` | `nom` |
//! | `posix` | yes | kernel semantics the model applies and the codec's rules do not: ACL permission checks (`xattr::generic_permission`, `AclView::permission`), `posix_acl_equiv_mode` and (with `alloc`) `posix_acl_create` | none |
//! | `serde` | no | `Serialize`/`Deserialize` for every value type, the JSON schema of `json` | `serde` |
//! | `arbitrary` | no | `Arbitrary` impls of the values, for fuzzing and the conformance kit's generators | `arbitrary` |
//!
//! Items behind a feature carry a badge in docs built with
//! `RUSTDOCFLAGS="--cfg docsrs" cargo +nightly doc --all-features`, as docs.rs builds them.
//!
//! ## Contract
//! - No input makes a decoder panic. Every length, count and offset read from input is checked
//!   against a bound in [`limits`] before use, and decoding allocates nothing.
//! - Every rule of the wire specification has a stable ID (`W7.4`, see [`rules`]) and an
//!   [`error::ErrorKind`] that names it; a [`DecodeError`] names the structure, the field, the
//!   byte offset and the rule.
//! - Encoders validate with the decoders' own rules: what encodes, decodes.
//! - Both byte orders decode (the order is detected from `lm_magic` and reported); encoders
//!   write little-endian unless told otherwise.
//!
//! ## Reading the source
//! - **Layers, one way.** Leaf types and the serde helpers (`flags`, `limits`, `endian`,
//!   `mli_buf`, `serde_helpers`) → errors and rule ids ([`error`], [`rules`]) → [`wire`] →
//!   [`xattr`] → [`intent`] → the serde forms of whole values (`json`). A module names only
//!   modules before it; `.ci/import-cycles` checks it.
//! - **Byte order as a type.** A reader or writer generic over the byte order takes it as a type
//!   parameter `O: zerocopy::ByteOrder` and its name ends in `_as` ("in byte order O":
//!   `check_as::<O>`, `write_as::<O>`). A message's order, found at run time in `lm_magic`,
//!   becomes that type in one place, the crate's `with_order!(order, |O| …)`.
//!
//! ## Specification
//! The normative description lives in the repository: `docs/spec/WIRE.md` (the bytes, every
//! rule a decoder enforces) and `docs/spec/MODEL.md` (the reference model and its invariants),
//! with the cited Lustre facts in `docs/reference/lustre-wire.md` and
//! `docs/reference/lustre-semantics.md`. In these API docs "WIRE.md §N", "MODEL.md §N",
//! "lustre-wire.md" and "lustre-semantics.md" refer to those files.
//!
//! ## Example
//! ```
//! use lustre_dne_intent::intent::*;
//! use lustre_dne_intent::wire::{LuFid, LockMode};
//! use lustre_dne_intent::Endian;
//!
//! // A mkdir of "newdir" in [0x200000401:0x1:0x0], asking for the parent's attributes.
//! let body = MdCreatePrepareReq {
//!     fid: LuFid::new(0x200000401, 1, 0),
//!     fsuid: 500, fsgid: 500, umask: 0o022,
//!     child_mode: 0o040755,
//!     buf_limit: [216, 0, 0, 0, 0, 0],
//!     ..Default::default()
//! };
//! let name = EntryName::new(b"newdir")?;
//! let req = PrepareRequest::new(Operation::Create, body, Some(name), GroupList::new(), LockMode::PW,
//!                               name_hash(b"newdir"));
//!
//! let mut buf = [0u8; 512];
//! let n = req.encode_into(Endian::Little, &mut buf)?;
//! let view = RequestView::parse(&buf[..n])?;
//! assert_eq!(view.name(), Some(&b"newdir"[..]));
//! assert_eq!(view.operation(), Operation::Create);
//! assert_eq!(view.to_value(), req);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![cfg_attr(not(feature = "std"), no_std)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;

// `pub` for the sibling crates, whose Lustre flags and enums use the same `wire_flags!` and
// `wire_enum!`; not part of the documented API.
#[macro_use]
#[doc(hidden)]
pub mod flags;

pub mod endian;
pub mod errno;
pub mod error;
mod fid;
#[cfg(feature = "text")]
pub mod hex;
pub mod intent;
#[cfg(feature = "serde")]
pub mod json;
pub mod limits;
mod mli_buf;
pub mod mode;
mod msg_type;
pub mod rules;
#[cfg(feature = "serde")]
#[doc(hidden)]
pub mod serde_helpers;
pub mod structures;
pub mod wire;
pub mod xattr;
pub mod xattr_names;

/// The `bytes` crate, whose `Bytes` and `BufMut` the owned values and encoders take.
#[cfg(feature = "alloc")]
pub use bytes;
pub use endian::Endian;
pub use error::{At, DecodeError, EncodeError, ErrorKind};
pub use flags::{ParseError, ParseErrorKind};
pub use rules::RuleId;
