//! One table per fixed-size structure, and everything the crate derives from it.
//!
//! A structure is declared once, with [`wire_struct!`]: one line per C member, in offset order,
//! padding included. From that table the macro writes the zerocopy raw layout, the compile-time
//! check of every offset and of the size, the value type with its serde names, the conversions
//! in both byte orders, the typed accessors of the raw layout, the [`Layout`] descriptor that
//! the C header, the Wireshark dissector and the fuzz mutator read, and a [`FieldAt`] per member
//! for the errors. Nothing else in the crate lists a structure's members or their offsets.
//!
//! ```text
//! wire_struct! {
//!     /// The value's docs and derives.
//!     #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
//!     pub struct MdCreatePrepareRep;
//!     /// The raw layout's docs.
//!     raw MdCreatePrepareRepRaw;
//!     c md_create_prepare_rep[PREPARE_REP_SIZE] "the C comment above the struct";
//!     impl WireStruct;
//!     members {
//!         0 __s32 mcpp_status => status, "0 or the operation's negative errno";
//!         4 __u32 mcpp_flags => flags: McppFlags, "MCPP_*";
//!         16 struct LuFid mcpp_fid => fid, "entry found by the lookup, zero otherwise";
//!         48 __u32 mcpp_buf_size[MLI_BUF_MAX] => buf_size, "size of each result on the parent";
//!         72 __u64 mcpp_padding => _, "zero";
//!     }
//! }
//! ```
//!
//! A member is `OFFSET CTYPE NAME[LEN] (in GROUP) => TARGET, "doc" #[attr]*;`:
//! - `OFFSET` is a literal, or the name of a constant that already says it
//!   (`PTLRPC_BODY_V2_SIZE` for `pb_jobid`);
//! - `CTYPE` is `__u8`, `__u16`, `__u32`, `__u64`, `__s32`, `__s64` or `struct T` (a type that
//!   implements [`WireStruct`]); a `__u8` array is one value (bytes), other arrays are element
//!   by element;
//! - `[LEN]` is a constant (its name becomes the C array length) or a literal;
//! - `(in GROUP)` names a C structure the crate inlines: `lr_type (in l_resource)` is the member
//!   `lr_type` of the raw layout, and `l_resource.lr_type` in errors;
//! - `TARGET` is the value's field, `name` or `name: Type` (an integer member converts through
//!   the value type's `WireBits`, e.g. a `wire_flags!` set), or `_` for a member the value does
//!   not hold (padding, reserved, or set by the framing): written as zero;
//! - the attributes go to the member's serde form (`serde(with = …)`).
//!
//! A generated value's serde form is a twin struct whose fields are named as the C members, the
//! value converting to and from it (`serde(from, into)`): serde's `rename` takes only a string
//! literal, which a macro cannot make from the member's name, and the twin keeps the value's
//! name for serde's messages, so the JSON is what a derive with renames would read and write.
//!
//! The value type is generated (`pub struct X;`), or written by hand (`extern struct X;`: its
//! fields must be the targets). `impl WireStruct;` adds the conversions (`impl
//! WireStruct(in_place);` writes a large structure field by field instead of building it on the
//! stack); without it the value is converted by hand.
//!
//! The generated `mod <c name>` holds the structure's [`Layout`] (`LAYOUT`) and one [`FieldAt`]
//! per member, named as the member: `md_create_prepare_rep::mcpp_flags.at(base)` is where an
//! error about `mcpp_flags` points, given where the structure starts.

use super::out::{Out, encode_into_slice};
pub(crate) use lustre_dne_intent_derive::c_struct;
use crate::endian::Endian;
use crate::error::{At, DecodeError, EncodeError, ErrorKind};
use zerocopy::{
    BigEndian, ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned,
};

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
        match order {
            Endian::Little => Self::Raw::<LittleEndian>::ref_from_prefix(bytes)
                .map(|(r, _)| Self::from_raw(r))
                .map_err(|_| short()),
            Endian::Big => Self::Raw::<BigEndian>::ref_from_prefix(bytes)
                .map(|(r, _)| Self::from_raw(r))
                .map_err(|_| short()),
        }
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
pub(crate) fn decode_in<T: WireStruct, O: ByteOrder>(bytes: &[u8]) -> Option<T> {
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
    match order {
        Endian::Little => out.put_slice(v.to_raw::<LittleEndian>().as_bytes()),
        Endian::Big => out.put_slice(v.to_raw::<BigEndian>().as_bytes()),
    }
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

/// Compile-time layout assertions for a raw layout written by hand (the xattr payloads):
/// `check_layout!(Raw, SIZE; field @ OFFSET, ...)` fails the build when a size or offset drifts.
macro_rules! check_layout {
    ($raw:ty, $size:expr; $($field:ident @ $off:expr),* $(,)?) => {
        const _: () = {
            assert!(core::mem::size_of::<$raw>() == $size);
            assert!(core::mem::align_of::<$raw>() == 1);
            $( assert!(core::mem::offset_of!($raw, $field) == $off); )*
        };
    };
}
pub(crate) use check_layout;

/// Declares a fixed-size structure from one table of its members: see the module docs.
///
/// Inside, a member travels as a record `[kind (ctype) (raw type) (native) offset name (group)
/// (len) doc target]`: the types are spelled out as tokens while the table is read, because a
/// derive cannot see through a macro in a field's type.
macro_rules! wire_struct {
    // ---- Entry: a value type the table declares, or one written by hand. ----
    (
        $(#[$vmeta:meta])*
        $vis:vis struct $Value:ident;
        $(#[$rmeta:meta])*
        raw $Raw:ident;
        c $cname:ident [$size:expr] $cdoc:literal;
        $(impl $ws:ident $(($how:ident))?;)?
        members { $($members:tt)* }
    ) => {
        $crate::wire::table::wire_struct! {
            @member
            { gen ($vis) $Value [$(#[$vmeta])*] [$(#[$rmeta])*] $Raw $cname ($size) $cdoc
              [$($ws $($how)?)?] }
            [] []
            $($members)*
        }
    };
    (
        extern struct $Value:ident;
        $(#[$rmeta:meta])*
        raw $Raw:ident;
        c $cname:ident [$size:expr] $cdoc:literal;
        $(impl $ws:ident $(($how:ident))?;)?
        members { $($members:tt)* }
    ) => {
        $crate::wire::table::wire_struct! {
            @member
            { ext (pub) $Value [] [$(#[$rmeta])*] $Raw $cname ($size) $cdoc [$($ws $($how)?)?] }
            [] []
            $($members)*
        }
    };

    // ---- One member: its C type and shape, then its target. ----
    (@member $hdr:tt $recs:tt $vals:tt
        $off:tt __u8 $name:ident [$len:tt] $((in $grp:ident))? => $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @target $hdr $recs $vals
            { bytes (__u8) ([u8; $len]) (u8) $off $name ($($grp)?) ($len) ([u8; $len]) }
            $($rest)* }
    };
    (@member $hdr:tt $recs:tt $vals:tt
        $off:tt struct $S:ident $name:ident [$len:tt] $((in $grp:ident))? => $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @target $hdr $recs $vals
            { structs ($S) ([<$S as $crate::wire::table::WireStruct>::Raw<O>; $len]) ()
              $off $name ($($grp)?) ($len) ([$S; $len]) }
            $($rest)* }
    };
    (@member $hdr:tt $recs:tt $vals:tt
        $off:tt struct $S:ident $name:ident $((in $grp:ident))? => $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @target $hdr $recs $vals
            { nested ($S) (<$S as $crate::wire::table::WireStruct>::Raw<O>) ()
              $off $name ($($grp)?) () ($S) }
            $($rest)* }
    };
    (@member $hdr:tt $recs:tt $vals:tt
        $off:tt $cty:ident $name:ident [$len:tt] $((in $grp:ident))? => $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @int $cty [ints $off $name ($($grp)?) ($len)]
            $hdr $recs $vals $($rest)* }
    };
    (@member $hdr:tt $recs:tt $vals:tt
        $off:tt $cty:ident $name:ident $((in $grp:ident))? => $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @int $cty [int $off $name ($($grp)?) ()]
            $hdr $recs $vals $($rest)* }
    };

    // An integer member: its zerocopy type (in byte order `O`) and its native type.
    (@int __u16 $($k:tt)*) => {
        $crate::wire::table::wire_struct! { @int_is (__u16) (zerocopy::byteorder::U16<O>) (u16) $($k)* }
    };
    (@int __u32 $($k:tt)*) => {
        $crate::wire::table::wire_struct! { @int_is (__u32) (zerocopy::byteorder::U32<O>) (u32) $($k)* }
    };
    (@int __u64 $($k:tt)*) => {
        $crate::wire::table::wire_struct! { @int_is (__u64) (zerocopy::byteorder::U64<O>) (u64) $($k)* }
    };
    (@int __s32 $($k:tt)*) => {
        $crate::wire::table::wire_struct! { @int_is (__s32) (zerocopy::byteorder::I32<O>) (i32) $($k)* }
    };
    (@int __s64 $($k:tt)*) => {
        $crate::wire::table::wire_struct! { @int_is (__s64) (zerocopy::byteorder::I64<O>) (i64) $($k)* }
    };
    (@int_is $cty:tt ($($wire:tt)*) ($($native:tt)*) [int $off:tt $name:ident $grp:tt ()]
        $hdr:tt $recs:tt $vals:tt $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @target $hdr $recs $vals
            { int $cty ($($wire)*) ($($wire)*) $off $name $grp () ($($native)*) }
            $($rest)* }
    };
    (@int_is $cty:tt ($($wire:tt)*) ($($native:tt)*) [ints $off:tt $name:ident $grp:tt ($len:tt)]
        $hdr:tt $recs:tt $vals:tt $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @target $hdr $recs $vals
            { ints $cty ([$($wire)*; $len]) ($($wire)*) $off $name $grp ($len) ([$($native)*; $len]) }
            $($rest)* }
    };

    // The member's target: `_` (not in the value), `name: Type`, or `name` (its C type).
    (@target $hdr:tt [$($recs:tt)*] $vals:tt
        { $kind:ident $cty:tt $raw:tt $elem:tt $off:tt $name:ident $grp:tt $len:tt $def:tt }
        _ , $doc:literal $(#[$fa:meta])* ; $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @member $hdr
            [$($recs)* [$kind $cty $raw $elem $off $name $grp $len $doc (_)]]
            $vals
            $($rest)* }
    };
    (@target $hdr:tt [$($recs:tt)*] [$($vals:tt)*]
        { $kind:ident $cty:tt $raw:tt $elem:tt $off:tt $name:ident $grp:tt $len:tt $def:tt }
        $rust:ident : $vty:ty , $doc:literal $(#[$fa:meta])* ; $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @member $hdr
            [$($recs)* [$kind $cty $raw $elem $off $name $grp $len $doc ($rust ($vty))]]
            [$($vals)* [$rust ($vty) $name $grp $doc [$(#[$fa])*]]]
            $($rest)* }
    };
    (@target $hdr:tt [$($recs:tt)*] [$($vals:tt)*]
        { $kind:ident $cty:tt $raw:tt $elem:tt $off:tt $name:ident $grp:tt $len:tt ($($def:tt)*) }
        $rust:ident , $doc:literal $(#[$fa:meta])* ; $($rest:tt)*
    ) => {
        $crate::wire::table::wire_struct! { @member $hdr
            [$($recs)* [$kind $cty $raw $elem $off $name $grp $len $doc ($rust ($($def)*))]]
            [$($vals)* [$rust ($($def)*) $name $grp $doc [$(#[$fa])*]]]
            $($rest)* }
    };

    // ---- Every member read: write it all out. ----
    (@member
        { $mode:ident ($($vis:tt)*) $Value:ident [$($vmeta:tt)*] [$(#[$rmeta:meta])*] $Raw:ident
          $cname:ident ($size:expr) $cdoc:literal $impl:tt }
        [$([$kind:ident ($($cty:tt)*) ($($raw:tt)*) $elem:tt $off:tt $name:ident
            ($($grp:ident)?) ($($len:tt)?) $doc:literal $target:tt])*]
        $vals:tt
    ) => {
        $(#[$rmeta])*
        #[derive(
            Debug,
            Clone,
            Copy,
            zerocopy::FromBytes,
            zerocopy::IntoBytes,
            zerocopy::KnownLayout,
            zerocopy::Immutable,
            zerocopy::Unaligned
        )]
        #[repr(C)]
        pub struct $Raw<O: zerocopy::ByteOrder> {
            $(
                #[doc = $crate::wire::table::wire_struct!(@doc ($($grp)?) $name $doc)]
                pub $name: $($raw)*,
            )*
        }

        // The layout as declared: every offset, the size, no alignment (the Rust form of
        // Lustre's wiretest).
        const _: () = {
            type R = $Raw<zerocopy::LittleEndian>;
            assert!(core::mem::size_of::<R>() == $size);
            assert!(core::mem::align_of::<R>() == 1);
            $( assert!(core::mem::offset_of!(R, $name) == $off); )*
        };

        /// Typed reads of the members, straight from the received bytes (a rule checks a
        /// structure in place instead of converting it first).
        impl<O: zerocopy::ByteOrder> $Raw<O> {
            $( $crate::wire::table::wire_struct!(@accessor $kind $elem ($($len)?) $name $target); )*
        }

        #[doc = concat!(
            "`struct ", stringify!($cname), "`: its [`Layout`](crate::wire::layout::Layout) and \
             where each member lies ([`FieldAt`](crate::wire::layout::FieldAt)), for errors."
        )]
        #[allow(non_upper_case_globals, clippy::module_inception)]
        pub mod $cname {
            #[allow(unused_imports)]
            use super::*;
            /// The byte order the sizes below are measured in (any: they do not depend on it).
            type O = zerocopy::LittleEndian;

            /// The structure as C declares it.
            pub const LAYOUT: &$crate::wire::table::Layout = &$crate::wire::table::Layout {
                name: stringify!($cname),
                size: $size,
                doc: $cdoc,
                fields: &[$(
                    $crate::wire::table::Field {
                        name: stringify!($name),
                        rust: $crate::wire::table::wire_struct!(@rust $target),
                        offset: $off,
                        size: core::mem::size_of::<$($raw)*>(),
                        ty: $crate::wire::table::wire_struct!(@ty $kind ($($cty)*)),
                        array: $crate::wire::table::wire_struct!(@array $($len)?),
                        names: $crate::wire::table::wire_struct!(@names $kind $target),
                        doc: $doc,
                        display: $crate::wire::table::Display::Decimal,
                    },
                )*],
            };

            $(
                #[doc = $crate::wire::table::wire_struct!(@doc ($($grp)?) $name $doc)]
                pub const $name: $crate::wire::table::FieldAt = $crate::wire::table::FieldAt {
                    structure: stringify!($cname),
                    name: $crate::wire::table::wire_struct!(@path ($($grp)?) $name),
                    offset: $off,
                    elem_size: $crate::wire::table::wire_struct!(@ty $kind ($($cty)*)).size(),
                    elements: $crate::wire::table::wire_struct!(
                        @elements $kind ($crate::wire::table::wire_struct!(@path ($($grp)?) $name))
                        $($len)?
                    ),
                };
            )*

            $crate::wire::table::wire_struct! { @value $mode ($($vis)*) $Value [$($vmeta)*] $vals }
        }

        $crate::wire::table::wire_struct! { @reexport $mode ($($vis)*) $cname $Value }

        impl $Value {
            /// The structure as C declares it: name, size and every member.
            pub const LAYOUT: &'static $crate::wire::table::Layout = $cname::LAYOUT;
        }

        $crate::wire::table::wire_struct! {
            @impl $impl $Value $Raw $cname
            [$([$kind $elem $name ($($len)?) $target])*]
            $vals
        }
    };

    // ---- The value type and its serde form. ----
    (@value ext $vis:tt $Value:ident $vmeta:tt $vals:tt) => {};
    (@value gen ($($vis:tt)*) $Value:ident [$($vmeta:tt)*]
        [$([$rust:ident ($vty:ty) $name:ident ($($grp:ident)?) $doc:literal [$($fa:tt)*]])*]
    ) => {
        /// The value type (re-exported where the table is declared) and its serde form.
        pub(super) mod value {
            #[allow(unused_imports)]
            use super::super::*;

            $($vmeta)*
            #[cfg_attr(
                feature = "serde",
                derive(serde::Serialize, serde::Deserialize),
                serde(from = "Json", into = "Json")
            )]
            $($vis)* struct $Value {
                $(
                    #[doc = $crate::wire::table::wire_struct!(@doc ($($grp)?) $name $doc)]
                    pub $rust: $vty,
                )*
            }

            // The serde form is a copy of the value whose fields are named as the C members,
            // so that the JSON names come from the table; it carries the value's name for the
            // messages serde writes.
            #[cfg(feature = "serde")]
            type Json = json::$Value;

            #[cfg(feature = "serde")]
            mod json {
                #[allow(unused_imports)]
                use super::*;

                #[derive(serde::Serialize, serde::Deserialize)]
                #[serde(deny_unknown_fields)]
                pub(super) struct $Value {
                    $( $($fa)* pub(super) $name: $vty, )*
                }
            }

            #[cfg(feature = "serde")]
            impl From<Json> for $Value {
                #[inline]
                fn from(j: Json) -> Self {
                    $Value { $( $rust: j.$name, )* }
                }
            }

            #[cfg(feature = "serde")]
            impl From<$Value> for Json {
                #[inline]
                fn from(v: $Value) -> Self {
                    json::$Value { $( $name: v.$rust, )* }
                }
            }
        }
    };
    (@reexport ext $vis:tt $cname:ident $Value:ident) => {};
    (@reexport gen ($($vis:tt)*) $cname:ident $Value:ident) => {
        $($vis)* use self::$cname::value::$Value;
    };

    // ---- The conversions, when the structure is a `WireStruct`. ----
    (@impl [] $($x:tt)*) => {};
    (@impl [WireStruct $($how:ident)?] $Value:ident $Raw:ident $cname:ident $recs:tt
        [$([$rust:ident $vty:tt $vname:ident $grp:tt $doc:literal $fa:tt])*]
    ) => {
        impl $crate::wire::table::WireStruct for $Value {
            const LAYOUT: &'static $crate::wire::table::Layout = $cname::LAYOUT;
            type Raw<O: zerocopy::ByteOrder> = $Raw<O>;

            #[inline]
            fn from_raw<O: zerocopy::ByteOrder>(r: &$Raw<O>) -> Self {
                $Value { $( $rust: r.$rust(), )* }
            }

            $crate::wire::table::wire_struct! { @to_raw ($($how)?) $Raw $recs }
        }
    };
    (@to_raw () $Raw:ident [$([$kind:ident $elem:tt $name:ident $len:tt $target:tt])*]) => {
        #[inline]
        fn to_raw<O: zerocopy::ByteOrder>(&self) -> $Raw<O> {
            $Raw { $( $name: $crate::wire::table::wire_struct!(@put $kind $elem $len self $target), )* }
        }
    };
    (@to_raw (in_place) $Raw:ident [$([$kind:ident $elem:tt $name:ident $len:tt $target:tt])*]) => {
        fn to_raw<O: zerocopy::ByteOrder>(&self) -> $Raw<O> {
            // One list of the stores, in `write_raw`; it overwrites every byte of the zeroed copy.
            let mut raw: $Raw<O> = zerocopy::FromZeros::new_zeroed();
            self.write_raw::<O>(&mut raw);
            raw
        }

        // Field by field, so that `write_at` builds the structure in place: built on the stack
        // and copied, a large one costs a call of memcpy.
        #[inline]
        fn write_raw<O: zerocopy::ByteOrder>(&self, dst: &mut $Raw<O>) {
            $( $crate::wire::table::wire_struct!(@write $kind $elem $len self dst $name $target); )*
        }
    };

    // ---- Helpers: one member's names, type and conversions. ----
    (@doc () $name:ident $doc:literal) => { concat!("`", stringify!($name), "`: ", $doc) };
    (@doc ($grp:ident) $name:ident $doc:literal) => {
        concat!("`", stringify!($grp), ".", stringify!($name), "`: ", $doc)
    };
    (@path () $name:ident) => { stringify!($name) };
    (@path ($grp:ident) $name:ident) => { concat!(stringify!($grp), ".", stringify!($name)) };
    (@rust (_)) => { None };
    (@rust ($rust:ident $vty:tt)) => { Some(stringify!($rust)) };
    (@array) => { None };
    (@array $len:ident) => {
        Some($crate::wire::table::ArrayLen { c_name: stringify!($len), len: $len })
    };
    (@array $len:literal) => { Some($crate::wire::table::ArrayLen { c_name: "", len: $len }) };
    (@names int ($rust:ident ($vty:ty))) => { <$vty as $crate::flags::WireBits>::NAMES };
    (@names $kind:ident $target:tt) => { None };
    (@elements ints ($path:expr) $len:tt) => { $crate::wire::table::element_names!($path, $len) };
    (@elements $kind:ident ($path:expr) $($len:tt)?) => { &[] };
    (@ty $kind:ident (__u8)) => { $crate::wire::table::FieldType::U8 };
    (@ty $kind:ident (__u16)) => { $crate::wire::table::FieldType::U16 };
    (@ty $kind:ident (__u32)) => { $crate::wire::table::FieldType::U32 };
    (@ty $kind:ident (__u64)) => { $crate::wire::table::FieldType::U64 };
    (@ty $kind:ident (__s32)) => { $crate::wire::table::FieldType::S32 };
    (@ty $kind:ident (__s64)) => { $crate::wire::table::FieldType::S64 };
    (@ty $kind:ident ($S:ident)) => {
        $crate::wire::table::FieldType::Struct(<$S as $crate::wire::table::WireStruct>::LAYOUT)
    };

    // The accessor of a member's value, on the raw layout (`$elem` is the zerocopy type of an
    // integer or of an array's element).
    (@accessor $kind:ident $elem:tt $len:tt $name:ident (_)) => {};
    (@accessor structs $elem:tt $len:tt $name:ident $target:tt) => {};
    (@accessor int $elem:tt () $name:ident ($rust:ident ($vty:ty))) => {
        #[doc = concat!("`", stringify!($name), "` as its value.")]
        #[inline(always)]
        pub fn $rust(&self) -> $vty {
            <$vty as $crate::flags::WireBits>::from_u64(self.$name.get() as u64)
        }
    };
    (@accessor ints $elem:tt $len:tt $name:ident ($rust:ident ($vty:ty))) => {
        #[doc = concat!("`", stringify!($name), "` as its value.")]
        #[inline(always)]
        pub fn $rust(&self) -> $vty {
            self.$name.map(|x| $crate::flags::WireBits::from_u64(x.get() as u64))
        }
    };
    (@accessor bytes $elem:tt ($len:tt) $name:ident ($rust:ident ($vty:ty))) => {
        #[doc = concat!("`", stringify!($name), "` as its value.")]
        #[inline(always)]
        pub fn $rust(&self) -> $vty {
            <$vty as $crate::wire::table::ByteField<{ $len }>>::from_bytes(self.$name)
        }
    };
    (@accessor nested $elem:tt $len:tt $name:ident ($rust:ident ($vty:ty))) => {
        #[doc = concat!("`", stringify!($name), "` as its value.")]
        #[inline(always)]
        pub fn $rust(&self) -> $vty {
            <$vty as $crate::wire::table::WireStruct>::from_raw::<O>(&self.$name)
        }
    };

    // The raw form of a member's value (`$s` is the value), in byte order `O`.
    (@put $kind:ident $elem:tt $len:tt $s:ident (_)) => { zerocopy::FromZeros::new_zeroed() };
    (@put int ($($elem:tt)*) () $s:ident ($rust:ident ($vty:ty))) => {
        <$($elem)*>::new($crate::flags::WireBits::to_u64($s.$rust) as _)
    };
    (@put ints ($($elem:tt)*) $len:tt $s:ident ($rust:ident ($vty:ty))) => {
        $s.$rust.map(|x| <$($elem)*>::new($crate::flags::WireBits::to_u64(x) as _))
    };
    (@put bytes $elem:tt ($len:tt) $s:ident ($rust:ident ($vty:ty))) => {
        <$vty as $crate::wire::table::ByteField<{ $len }>>::to_bytes(&$s.$rust)
    };
    (@put nested $elem:tt $len:tt $s:ident ($rust:ident ($vty:ty))) => {
        <$vty as $crate::wire::table::WireStruct>::to_raw::<O>(&$s.$rust)
    };

    // The store of a member's value over `$d.$name`, in byte order `O`.
    (@write ints ($($elem:tt)*) $len:tt $s:ident $d:ident $name:ident ($rust:ident ($vty:ty))) => {
        for (d, &x) in $d.$name.iter_mut().zip(&$s.$rust) {
            *d = <$($elem)*>::new($crate::flags::WireBits::to_u64(x) as _);
        }
    };
    (@write nested $elem:tt $len:tt $s:ident $d:ident $name:ident ($rust:ident ($vty:ty))) => {
        <$vty as $crate::wire::table::WireStruct>::write_raw::<O>(&$s.$rust, &mut $d.$name)
    };
    (@write $kind:ident $elem:tt $len:tt $s:ident $d:ident $name:ident $target:tt) => {
        $d.$name = $crate::wire::table::wire_struct!(@put $kind $elem $len $s $target)
    };
}
pub(crate) use wire_struct;
