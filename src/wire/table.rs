//! The runtime side of the structure declarations: [`Layout`], [`Field`], [`FieldAt`],
//! [`Shown`], [`WireStruct`] and the helpers the generated code calls.
//!
//! A structure is declared once, on its value type, with `#[c_struct]` (the
//! `lustre-dne-intent-derive` crate): the struct's arguments name the C structure, its size and
//! its C comment; each field's `#[c(OFFSET, CTYPE NAME[LEN] in GROUP, display)]` says which C
//! member holds it; `#[c_member(...)]` on the struct adds the members the value does not hold
//! (padding, reserved, set by the framing). The field's `///` line is the member's comment.
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
//!     /// results known: bit i = MLI_BUF index i
//!     #[c(8, __u32 mcpp_valid)]
//!     pub valid: ResultMask,
//! }
//! ```
//!
//! From that the attribute writes the zerocopy raw layout `XRaw<O: ByteOrder>` with a typed
//! accessor per held member, the compile-time check of every offset and of the size, the
//! [`WireStruct`] conversions in both byte orders (`convert = in_place` writes a large structure
//! field by field; `convert = none` leaves them to hand-written code), the serde names (the C
//! member names), and `mod <c name>` with the [`Layout`] (`LAYOUT`) and one [`FieldAt`] per
//! member, named as the member: `md_create_prepare_rep::mcpp_flags.at(base)` is where an error
//! about `mcpp_flags` points, given where the structure starts. An integer member converts
//! through its value type's `WireBits` (a `wire_flags!` set, an enum, or a plain integer); a
//! `__u8` array is one value (`ByteField`); `struct T` embeds a structure that implements
//! [`WireStruct`]. A value declared elsewhere is mirrored with `remote = Type`, as `lu_fid` is.

use super::out::{Out, encode_into_slice};
use crate::endian::Endian;
use crate::endian::with_order;
use crate::error::{At, DecodeError, EncodeError, ErrorKind};
pub(crate) use lustre_dne_intent_derive::c_struct;
use zerocopy::{ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// One fixed-size Lustre structure as C declares it and as the crate lays it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// C struct name without `struct `: `"md_create_prepare_rep"`.
    pub name: &'static str,
    /// `sizeof` in bytes.
    pub size: usize,
    /// One-line description (the C comment above the struct, as C writes it: where the comment
    /// runs to a second line, the text goes on after `\n * `).
    pub doc: &'static str,
    /// Every member in offset order, padding and reserved members included.
    pub fields: &'static [Field],
}

/// One member of a [`Layout`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// C member name: `"mcpp_buf_size"`. Also the serde name; errors print it, behind the
    /// C structure the crate inlines when there is one ([`FieldAt::name`]).
    pub name: &'static str,
    /// The Rust value field that holds it (`"buf_size"`); `None` for a member the value does
    /// not hold (padding, reserved, or set by the framing).
    pub rust: Option<&'static str>,
    /// Byte offset in the structure.
    pub offset: usize,
    /// Size of the whole member in bytes (all elements of an array).
    pub size: usize,
    /// Type of one element.
    pub ty: FieldType,
    /// For an array member: the C length expression and its value (`c_name` is `""` when C
    /// writes a literal).
    pub array: Option<ArrayLen>,
    /// For a flags or enum member: the (C name, value) of each known bit or value.
    pub names: Option<&'static [(&'static str, u64)]>,
    /// One-line description (C comment, Lua field description).
    pub doc: &'static str,
    /// How a reader of the member wants it shown: the dissector and the text printer choose
    /// their rendering from it.
    pub display: Display,
    /// Who shows the member at all: the dissector and the text printer list the members of a
    /// structure by it, so that a member added to a declaration is shown without a second list.
    pub shown: Shown,
    /// For an array whose indices have names (a result's `MLI_BUF_*` for each element of an
    /// `MLI_BUF_MAX` array): the name of each index; else empty.
    pub index_names: &'static [&'static str],
    /// What a value of 0 means, when the declaration says (`"not requested"`).
    pub zero: Option<&'static str>,
}

/// Who shows a member to a person (the declaration's `shown`, `detail` or `hidden`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Shown {
    /// No one: padding and reserved members.
    Never,
    /// Full listings (the text printer), not summaries (the dissector's tree): handles, version
    /// vectors, the job id.
    InDetail,
    /// Every reader.
    Always,
}

/// How a member is shown to a person (the declaration's display hint).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Display {
    /// A count, size, id or time: decimal.
    Decimal,
    /// An opaque word (handle, cookie, xid, match bits, padding): hexadecimal.
    Hex,
    /// A file mode or permission bits: octal.
    Octal,
    /// A set of named bits ([`Field::names`]).
    Flags,
    /// One of named values ([`Field::names`]).
    Enum,
    /// 0 or a negative errno.
    Errno,
    /// A `struct lu_fid`, as `[seq:oid:ver]`.
    Fid,
    /// Raw bytes.
    Bytes,
    /// NUL-padded text (a name, a job id).
    Text,
    /// An embedded structure, shown member by member.
    Struct,
}

/// The length of an array member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayLen {
    /// The C constant that sizes it (`"MLI_BUF_MAX"`), or `""` for a literal.
    pub c_name: &'static str,
    /// Its value.
    pub len: usize,
}

/// The C type of one element of a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// `__u8`.
    U8,
    /// `__u16`.
    U16,
    /// `__u32`.
    U32,
    /// `__u64`.
    U64,
    /// `__s32`.
    S32,
    /// `__s64`.
    S64,
    /// An embedded structure.
    Struct(&'static Layout),
}

impl FieldType {
    /// `"__u8"`, `"__u16"`, `"__u32"`, `"__u64"`, `"__s32"`, `"__s64"`, or for a structure its
    /// name (callers write `struct ` before it).
    pub const fn c_type(&self) -> &'static str {
        match self {
            FieldType::U8 => "__u8",
            FieldType::U16 => "__u16",
            FieldType::U32 => "__u32",
            FieldType::U64 => "__u64",
            FieldType::S32 => "__s32",
            FieldType::S64 => "__s64",
            FieldType::Struct(l) => l.name,
        }
    }

    /// Size of one element.
    pub const fn size(&self) -> usize {
        match self {
            FieldType::U8 => 1,
            FieldType::U16 => 2,
            FieldType::U32 | FieldType::S32 => 4,
            FieldType::U64 | FieldType::S64 => 8,
            FieldType::Struct(l) => l.size,
        }
    }
}

impl Layout {
    /// The member named `name` (its C name).
    pub const fn field(&self, name: &str) -> Option<&Field> {
        let mut i = 0;
        while i < self.fields.len() {
            if str_eq(self.fields[i].name, name) {
                return Some(&self.fields[i]);
            }
            i += 1;
        }
        None
    }

    /// How many byte ranges the padding and reserved members of this structure and of the
    /// structures it embeds make, adjacent ones merged: the length of [`Layout::padding`].
    pub const fn padding_count(&self) -> usize {
        let mut ranges = [(0, 0); 64];
        collect_padding(self, 0, &mut ranges, 0)
    }

    /// The `(offset, length)` ranges of the padding and reserved members, the embedded
    /// structures' included, adjacent ones merged: what the canonical form writes as zeros
    /// (WIRE.md §11). `N` is [`Layout::padding_count`].
    pub const fn padding<const N: usize>(&self) -> [(usize, usize); N] {
        let mut ranges = [(0, 0); 64];
        let n = collect_padding(self, 0, &mut ranges, 0);
        assert!(n == N, "padding::<N> needs N = padding_count()");
        let mut out = [(0, 0); N];
        let mut i = 0;
        while i < N {
            out[i] = ranges[i];
            i += 1;
        }
        out
    }
}

/// Appends the padding ranges of `l`, placed at `base`, to `ranges[..n]`; returns the new count.
const fn collect_padding(
    l: &Layout,
    base: usize,
    ranges: &mut [(usize, usize); 64],
    mut n: usize,
) -> usize {
    let mut i = 0;
    while i < l.fields.len() {
        let f = &l.fields[i];
        let at = base + f.offset;
        if f.rust.is_none() && f.size > 0 {
            if n > 0 && ranges[n - 1].0 + ranges[n - 1].1 == at {
                ranges[n - 1].1 += f.size;
            } else {
                ranges[n] = (at, f.size);
                n += 1;
            }
        } else if let (FieldType::Struct(inner), None) = (f.ty, f.array) {
            n = collect_padding(inner, at, ranges, n);
        }
        i += 1;
    }
    n
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Where a member lies, as an error names it: its structure, its name (the C member, or its
/// path through embedded structures, `lock_desc.l_granted_mode`) and its offset in the
/// structure. Built at compile time from the structure's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldAt {
    /// The structure the offset counts from: `"ldlm_reply"`.
    pub structure: &'static str,
    /// The member as errors print it.
    pub name: &'static str,
    /// Its offset in the structure.
    pub offset: usize,
    /// Size of one element (of the member itself when it is not an array).
    pub elem_size: usize,
    /// For an array of integers, the name of each element: `mcpp_buf_size[0]` …; else empty.
    pub elements: &'static [&'static str],
}

impl FieldAt {
    /// The member in a structure that starts `base` bytes into the decoder's input.
    #[inline(always)]
    pub const fn at(self, base: usize) -> At {
        At::new(self.structure, self.name, base + self.offset)
    }

    /// Element `i` of an array member (the member itself when `i` has no name).
    #[inline(always)]
    pub const fn element(self, i: usize) -> FieldAt {
        let name = if i < self.elements.len() {
            self.elements[i]
        } else {
            self.name
        };
        FieldAt {
            name,
            offset: self.offset + i * self.elem_size,
            elements: &[],
            ..self
        }
    }
}

/// A fixed-size Lustre structure: its raw layout in either byte order and its value type.
pub trait WireStruct: Sized {
    /// The structure as C declares it: name, size and every member.
    const LAYOUT: &'static Layout;
    /// The Lustre name of the structure.
    const NAME: &'static str = Self::LAYOUT.name;
    /// Its size on the wire.
    const SIZE: usize = Self::LAYOUT.size;
    /// The raw layout in byte order `O`.
    type Raw<O: ByteOrder>: FromBytes + IntoBytes + KnownLayout + Immutable + Unaligned;

    /// The value of a raw layout.
    fn from_raw<O: ByteOrder>(raw: &Self::Raw<O>) -> Self;
    /// The raw layout of a value.
    fn to_raw<O: ByteOrder>(&self) -> Self::Raw<O>;

    /// Writes the raw layout of the value over `dst`: [`WireStruct::to_raw`] by default; a large
    /// structure stores field by field, so that it is built in place rather than on the stack
    /// and copied.
    #[inline(always)]
    fn write_raw<O: ByteOrder>(&self, dst: &mut Self::Raw<O>) {
        *dst = self.to_raw::<O>();
    }

    /// Decodes the first [`Self::SIZE`] bytes of `bytes`, written in `order`.
    #[inline]
    fn decode(bytes: &[u8], order: Endian) -> Result<Self, DecodeError> {
        let short = || {
            DecodeError::new(
                At::new(Self::NAME, "", 0),
                ErrorKind::Truncated {
                    need: Self::SIZE,
                    have: bytes.len(),
                },
            )
        };
        with_order!(order, |O| Self::Raw::<O>::ref_from_prefix(bytes)
            .map(|(r, _)| Self::from_raw(r))
            .map_err(|_| short()))
    }

    /// Appends the structure in `order` ([`Self::SIZE`] bytes).
    #[cfg(feature = "alloc")]
    fn put<B: bytes::BufMut + ?Sized>(&self, order: Endian, out: &mut B) {
        put_struct(self, order, out);
    }

    /// Writes the structure in `order` at the start of `out`; returns [`Self::SIZE`].
    fn encode_into(&self, order: Endian, out: &mut [u8]) -> Result<usize, EncodeError> {
        encode_into_slice(Self::SIZE, out, |w| put_struct(self, order, w))
    }
}

/// The value of the first [`WireStruct::SIZE`] bytes of `bytes` in byte order `O` (the decoders
/// choose the order once); `None` when `bytes` is shorter.
#[inline]
pub(crate) fn decode_as<T: WireStruct, O: ByteOrder>(bytes: &[u8]) -> Option<T> {
    T::Raw::<O>::ref_from_prefix(bytes)
        .ok()
        .map(|(r, _)| T::from_raw(r))
}

/// Writes `v` in byte order `O` at `out[at..at + SIZE]`, converted in place: one fixed-size
/// store, no intermediate copy. Writes nothing when `out` is too short (the encoders size their
/// window first).
#[inline(always)]
pub(crate) fn write_at<T: WireStruct, O: ByteOrder>(v: &T, out: &mut [u8], at: usize) {
    if let Some(Ok(dst)) = out
        .get_mut(at..at + T::SIZE)
        .map(T::Raw::<O>::mut_from_bytes)
    {
        v.write_raw::<O>(dst);
    }
}

/// [`WireStruct::put`] into any sink of the crate's encoders.
pub(crate) fn put_struct<T: WireStruct, W: Out + ?Sized>(v: &T, order: Endian, out: &mut W) {
    with_order!(order, |O| out.put_slice(v.to_raw::<O>().as_bytes()))
}

/// A value field that holds a `__u8` array whole: the bytes themselves, or `None` for an
/// absent one (a v2 `ptlrpc_body` has no job id; it is written as zeros).
pub(crate) trait ByteField<const N: usize>: Sized {
    fn from_bytes(b: [u8; N]) -> Self;
    fn to_bytes(&self) -> [u8; N];
}

impl<const N: usize> ByteField<N> for [u8; N] {
    #[inline(always)]
    fn from_bytes(b: [u8; N]) -> Self {
        b
    }
    #[inline(always)]
    fn to_bytes(&self) -> [u8; N] {
        *self
    }
}

impl<const N: usize> ByteField<N> for Option<[u8; N]> {
    #[inline(always)]
    fn from_bytes(b: [u8; N]) -> Self {
        Some(b)
    }
    #[inline(always)]
    fn to_bytes(&self) -> [u8; N] {
        self.unwrap_or([0; N])
    }
}

// ---- Names built at compile time ----
//
// An error's field is a `&'static str`; the names of array elements and of members of embedded
// structures are joined here, in constants, from the names the tables hold.

/// `a` then `sep` then `b`, as the bytes of a `&str` of length `LEN`.
#[doc(hidden)]
pub const fn join_bytes<const LEN: usize>(a: &str, sep: &str, b: &str) -> [u8; LEN] {
    let mut out = [0u8; LEN];
    let mut at = 0;
    let parts = [a.as_bytes(), sep.as_bytes(), b.as_bytes()];
    let mut p = 0;
    while p < parts.len() {
        let mut i = 0;
        while i < parts[p].len() {
            out[at] = parts[p][i];
            at += 1;
            i += 1;
        }
        p += 1;
    }
    assert!(at == LEN, "join_bytes: LEN is the sum of the lengths");
    out
}

/// `"{name}[{i}]"` for `i` in `0..n` (`n` ≤ 100), each in a slot of `name.len() + 4` bytes.
#[doc(hidden)]
pub const fn element_bytes<const CAP: usize>(name: &str, n: usize) -> [u8; CAP] {
    let stride = name.len() + 4;
    assert!(
        n <= 100 && n * stride <= CAP,
        "element_bytes: at most 100 elements"
    );
    let mut out = [0u8; CAP];
    let nb = name.as_bytes();
    let mut i = 0;
    while i < n {
        let mut at = i * stride;
        let mut k = 0;
        while k < nb.len() {
            out[at] = nb[k];
            at += 1;
            k += 1;
        }
        out[at] = b'[';
        at += 1;
        if i >= 10 {
            out[at] = b'0' + (i / 10) as u8;
            at += 1;
        }
        out[at] = b'0' + (i % 10) as u8;
        out[at + 1] = b']';
        i += 1;
    }
    out
}

/// The `N` names [`element_bytes`] wrote into `buf` for a name of `name_len` bytes.
#[doc(hidden)]
pub const fn element_strs<const N: usize>(
    buf: &'static [u8],
    name_len: usize,
) -> [&'static str; N] {
    let stride = name_len + 4;
    let mut out = [""; N];
    let mut i = 0;
    while i < N {
        let len = name_len + if i >= 10 { 4 } else { 3 };
        let (_, tail) = buf.split_at(i * stride);
        let (s, _) = tail.split_at(len);
        out[i] = match core::str::from_utf8(s) {
            Ok(s) => s,
            Err(_) => panic!("element names are ASCII"),
        };
        i += 1;
    }
    out
}

/// The names `"{name}[0]"` … `"{name}[n - 1]"` as a `&'static [&'static str]`, built at compile
/// time from a constant `name` (n ≤ 100).
macro_rules! element_names {
    ($name:expr, $n:expr) => {{
        const ARRAY: &str = $name;
        const ELEMENTS: usize = $n;
        const BUF: [u8; ELEMENTS * (ARRAY.len() + 4)] =
            $crate::wire::table::element_bytes::<{ ELEMENTS * (ARRAY.len() + 4) }>(ARRAY, ELEMENTS);
        const NAMES: [&str; ELEMENTS] =
            $crate::wire::table::element_strs::<ELEMENTS>(&BUF, ARRAY.len());
        &NAMES
    }};
}
pub(crate) use element_names;

/// The [`FieldAt`] of a member of an embedded structure, seen from the outermost one:
/// `member_at!(ldlm_reply::lock_desc, ldlm_lock_desc::l_granted_mode)` is
/// `ldlm_reply.lock_desc.l_granted_mode` at the sum of the offsets. A constant expression.
macro_rules! member_at {
    ($outer:expr, $inner:expr) => {{
        const OUTER: $crate::wire::table::FieldAt = $outer;
        const INNER: $crate::wire::table::FieldAt = $inner;
        const LEN: usize = OUTER.name.len() + 1 + INNER.name.len();
        const BYTES: [u8; LEN] = $crate::wire::table::join_bytes::<LEN>(OUTER.name, ".", INNER.name);
        const NAME: &str = match core::str::from_utf8(&BYTES) {
            Ok(s) => s,
            Err(_) => panic!("member names are ASCII"),
        };
        $crate::wire::table::FieldAt {
            structure: OUTER.structure,
            name: NAME,
            offset: OUTER.offset + INNER.offset,
            elem_size: INNER.elem_size,
            elements: $crate::wire::table::element_names!(NAME, INNER.elements.len()),
        }
    }};
    ($outer:expr, $inner:expr, $($more:expr),+) => {
        $crate::wire::table::member_at!($crate::wire::table::member_at!($outer, $inner), $($more),+)
    };
}
pub(crate) use member_at;
