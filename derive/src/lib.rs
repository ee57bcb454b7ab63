//! `#[c_struct]`: the one declaration of a fixed-size Lustre structure in `lustre-dne-intent`.
//!
//! The attribute sits on the plain value struct. Its arguments name the C structure; each
//! field's `#[c(...)]` says where the field lies and what C member it is; `#[c_member(...)]`
//! on the struct adds the members the value does not hold (padding, reserved, set by the
//! framing). From that the attribute writes what the codec needs: the zerocopy raw layout in
//! either byte order with typed accessors, the compile-time check of every offset and of the
//! size, `mod <c name>` with the `Layout` and one `FieldAt` per member, the `WireStruct`
//! conversions, and the serde names (the C member names).
//!
//! ```text
//! /// The reply body of a prepare intent.
//! #[c_struct(md_create_prepare_rep, size = PREPARE_REP_SIZE,
//!     doc = "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue")]
//! #[c_member(72, __u64 mcpp_padding, "zero")]
//! #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
//! pub struct MdCreatePrepareRep {
//!     /// 0 or the operation's negative errno
//!     #[c(0, __s32 mcpp_status, errno)]
//!     pub status: i32,
//!     /// MCPP_*
//!     #[c(4, __u32 mcpp_flags)]
//!     pub flags: McppFlags,
//! }
//! ```
//!
//! Struct arguments: the C name first, then `size = EXPR` (the `sizeof`), `doc = "…"` (the C
//! comment), and optionally `raw = Ident` (default: the value's name + `Raw`), `raw_doc = "…"`,
//! `convert = none | in_place` (no `WireStruct`, or one that writes field by field),
//! `remote = Path` (the value type is declared elsewhere: this struct only mirrors its fields,
//! as serde's `remote`, and is not emitted), `serde = none` (the value's serde form is written
//! by hand) and `krate = name` (a declaration outside the codec, in another crate's tests: the
//! generated paths start at `name` instead of `crate`; array lengths must then be literals).
//!
//! A member is `OFFSET, CTYPE NAME[LEN] in GROUP` then options: `CTYPE` is `__u8`, `__u16`,
//! `__u32`, `__u64`, `__s32`, `__s64` or `struct T` (`T` implements `WireStruct`); `[LEN]` is a
//! constant or a literal; `in GROUP` names a C structure the crate inlines. Options are a
//! display hint (`decimal`, `hex`, `octal`, `flags`, `enum`, `errno`, `fid`, `bytes`, `text`,
//! `nested`), who shows the member (below), `index = EXPR` (a `[&str; LEN]` constant or
//! literal naming an array's indices: `MLI_BUF_NAMES`), `zero = "…"` (what a value of 0 means:
//! `"not requested"`) and, for `#[c_member]`, the doc string. A reader prints the last two
//! beside the value, so that no printer keeps its own remarks per member. Offsets are integer
//! literals, so that the attribute puts the members in order; the compiler checks each against
//! the raw layout.
//!
//! Who shows a member to a person (`Field::shown`) is said on the declaration, so that every
//! reader that lists members (the tool's text printer, the Wireshark dissector) follows a
//! member added, removed or hidden there, rather than keeping its own list of names:
//! - `shown`: everyone; the default of a member the value holds.
//! - `detail`: full listings (the text printer) only; a summary (the dissector's tree, where
//!   each field costs) leaves it out. For members a reader of a capture rarely needs: handles,
//!   version vectors, the job id.
//! - `hidden`: no one; the default of a `#[c_member]` (padding and reserved members say
//!   nothing), which a framing member a reader wants (`lm_bufcount`) overrides with `shown`.
//!
//! It is a level of detail rather than a per-reader switch (`dissect`): a new reader picks the
//! level it lists, and a declaration does not name the tools that read it.
//!
//! The generated code names the codec's items as `crate::…`: the attribute serves that crate
//! (and its tests) only.

#![forbid(unsafe_code)]

mod emit;
mod parse;

use proc_macro::TokenStream;

/// Declares a fixed-size structure on its value type: see the crate docs.
#[proc_macro_attribute]
pub fn c_struct(args: TokenStream, item: TokenStream) -> TokenStream {
    match parse::declaration(args.into(), item.into()) {
        Ok(decl) => emit::all(&decl).into(),
        Err(e) => e.to_compile_error().into(),
    }
}
