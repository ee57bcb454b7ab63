//! The bounded xattr payloads a prepare reply carries (WIRE.md §9): POSIX ACLs, the pin, the
//! directory's striping (LMV), its default striping (default LMV) and its default file layout
//! (LOV).
//!
//! Every payload has the same three faces:
//! - a validated zero-copy *view* borrowing the input ([`AclView`], [`PinView`], [`LmvView`],
//!   [`DefaultLmvView`], [`LovView`]): `parse` checks every rule, counts before use, and never
//!   allocates nor panics;
#![cfg_attr(
    feature = "alloc",
    doc = "- an owned *value*: [`Acl`], [`Pin`], [`Lmv`], [`DefaultLmv`], [`Lov`];
- an *encoder* on the value, the [`XattrEncode`] trait: `wire_len()`, `put()`,
  `encode_into()`, `to_bytes()`, which refuses anything its own decoder would refuse,
  including a payload over [`XATTR_SIZE_MAX`]."
)]
#![cfg_attr(
    not(feature = "alloc"),
    doc = "- an owned *value* and its *encoder* (`XattrEncode`), with the `alloc` feature."
)]
//!
//! Payloads are always little-endian whatever the host (WIRE.md §1); a magic that reads
//! byte-swapped is rejected with [`ErrorKind::SwabbedMagic`], apart from an unknown magic.
//!
//! Text renderers resembling `getfacl`, `lfs getdirstripe` and `lfs getstripe` (feature
//! `text`) are the `Display` implementations returned by the views' `getfacl()`,
//! `getdirstripe()` and `getstripe()` methods.
//!
//! ## Example
//! ```
//! use lustre_dne_intent::xattr::{AclKind, AclView, XattrEncode};
//!
//! // The access ACL of a file with mode 0640 and `user:1000:r-x` (as the kernel stores it).
//! let bytes = [
//!     2, 0, 0, 0, // a_version
//!     0x01, 0, 6, 0, 0xff, 0xff, 0xff, 0xff, // user::rw-
//!     0x02, 0, 5, 0, 0xe8, 0x03, 0, 0, // user:1000:r-x
//!     0x04, 0, 4, 0, 0xff, 0xff, 0xff, 0xff, // group::r--
//!     0x10, 0, 5, 0, 0xff, 0xff, 0xff, 0xff, // mask::r-x
//!     0x20, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, // other::---
//! ];
//! let acl = AclView::parse(&bytes)?;
//! assert_eq!(
//!     acl.getfacl(AclKind::Access).to_string(),
//!     "user::rw-\nuser:1000:r-x\ngroup::r--\nmask::r-x\nother::---\n"
//! );
//! assert_eq!(acl.to_value().to_bytes()?, &bytes[..]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod acl;
pub mod dmv;
#[cfg(feature = "serde")]
pub mod doc;
mod lmv;
#[cfg(feature = "text")]
mod lmv_text;
pub mod lov;
#[cfg(feature = "text")]
mod lov_text;
#[cfg(feature = "text")]
pub use lmv_text::{GetDefaultDirStripe, GetDirStripe};
#[cfg(feature = "text")]
pub use lov_text::GetStripe;
mod foreign;
#[cfg(feature = "alloc")]
pub use foreign::ForeignMd;
pub use foreign::ForeignMdRaw;
pub use foreign::ForeignView;
mod ostid;
mod reader;
pub use ostid::{OstIdWire, ost_id};
pub mod pin;
mod unions;

#[cfg(feature = "alloc")]
pub use acl::Acl;
#[cfg(feature = "posix")]
pub use acl::{AclClass, AclPermission, Credentials, EquivMode, generic_permission};
#[cfg(all(feature = "posix", feature = "alloc"))]
pub use acl::{AclCreated, posix_acl_create};
pub use acl::{AclEntry, AclEntryIter, AclPerm, AclTag, AclView};
#[cfg(feature = "text")]
pub use acl::{AclKind, Getfacl};
#[cfg(feature = "alloc")]
pub use dmv::DefaultLmv;
pub use dmv::{
    DefaultLmvView, LMV_USER_MAGIC, LMV_USER_MAGIC_SPECIFIC, LmvUserMdsData, inherits_default_lmv,
    step_max_inherit, step_max_inherit_rr,
};
pub use dmv::{
    LmvUserMdV1, LmvUserMdV1Wire, LmvUserMdsDataWire, lmv_user_md_v1, lmv_user_mds_data,
};
#[cfg(feature = "serde")]
pub use doc::{XATTR_KINDS, XattrDoc, XattrPayload, xattr_kind};
pub use lmv::{
    LMV_MAGIC_FOREIGN, LMV_MAGIC_STRIPE, LMV_MAGIC_V1, LmvForm, LmvHashFlags, LmvHashFn,
    LmvHashType, LmvMdView, LmvView,
};
#[cfg(feature = "alloc")]
pub use lmv::{Lmv, LmvMd};
pub use lmv::{LmvMdsMdV1, LmvMdsMdV1Raw, LmvMdsMdV1Wire, lmv_mds_md_v1};
pub use lov::{
    FID_SEQ_LOV_DEFAULT, LOV_MAGIC_COMP_V1, LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL, LOV_MAGIC_SPECIFIC,
    LOV_MAGIC_V1, LOV_MAGIC_V3, LOV_OST_IDX_NONE, LayoutOf, LcmFlags, LcmeFlags, LmmMember,
    LmmUnion, LovBlobView, LovCompEntry, LovCompView, LovComponentView, LovMdView, LovOstData,
    LovPattern, LovView, OstId, OstIdForm, stripe_objects,
};
#[cfg(feature = "alloc")]
pub use lov::{Lov, LovBlob, LovComp, LovComponent, LovMd};
#[cfg(feature = "alloc")]
pub use pin::Pin;
pub use pin::{PinEntry, PinEntryIter, PinSyntaxError, PinSyntaxKind, PinValue, PinView};

use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::{POOL_NAME_MAX, XATTR_SIZE_MAX};
use crate::wire::table::c_struct;
use core::fmt;
use zerocopy::{FromBytes, Immutable, IntoBytes, KnownLayout, Unaligned};

/// The error at `structure.field`, offset `offset`.
pub(crate) const fn err(
    structure: &'static str,
    field: &'static str,
    offset: usize,
    kind: ErrorKind,
) -> DecodeError {
    DecodeError::new(At::new(structure, field, offset), kind)
}

/// The error at member `at` of a structure that starts `base` bytes into the payload, named
/// under the payload's `structure` (`posix_acl_xattr`, `lov_comp_md_v1`, …).
pub(crate) const fn err_at(
    structure: &'static str,
    at: crate::wire::layout::FieldAt,
    base: usize,
    kind: ErrorKind,
) -> DecodeError {
    err(structure, at.name, base + at.offset, kind)
}

/// Refuses an input over `XATTR_SIZE_MAX` (reported as "larger than the limit", not malformed).
pub(crate) fn check_xattr_size(structure: &'static str, len: usize) -> Result<(), DecodeError> {
    if len > XATTR_SIZE_MAX {
        return Err(err(
            structure,
            "",
            0,
            ErrorKind::OverLimit {
                value: len as u64,
                max: XATTR_SIZE_MAX as u64,
            },
        ));
    }
    Ok(())
}

/// Reads the little-endian u32 magic at the start of `bytes`, or reports a truncation.
pub(crate) fn read_magic(structure: &'static str, bytes: &[u8]) -> Result<u32, DecodeError> {
    match bytes.first_chunk::<4>() {
        Some(m) => Ok(u32::from_le_bytes(*m)),
        None => Err(err(
            structure,
            "",
            0,
            ErrorKind::Truncated {
                need: 4,
                have: bytes.len(),
            },
        )),
    }
}

/// The error for a magic that is none of `known`: swabbed when its byte-swapped form is one.
pub(crate) fn bad_magic(
    structure: &'static str,
    field: &'static str,
    got: u32,
    known: &[u32],
) -> DecodeError {
    let kind = if known.contains(&got.swap_bytes()) {
        ErrorKind::SwabbedMagic { got }
    } else {
        ErrorKind::UnknownMagic { got }
    };
    err(structure, field, 0, kind)
}

/// A truncation of a fixed header of `need` bytes.
pub(crate) fn truncated(structure: &'static str, need: usize, have: usize) -> DecodeError {
    err(structure, "", 0, ErrorKind::Truncated { need, have })
}

/// A pool name field (`lmm_pool_name`, `lmv_pool_name`, `lum_pool_name`): 16 bytes holding a
/// NUL-terminated name of at most [`POOL_NAME_MAX`] bytes. The whole field is kept, so bytes
/// after the NUL survive a round trip.
#[derive(
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    FromBytes,
    IntoBytes,
    KnownLayout,
    Immutable,
    Unaligned,
)]
#[repr(transparent)]
pub struct PoolName(pub [u8; POOL_NAME_MAX + 1]);

/// A pool name member is read and written whole (a declaration's `__u8 …[16]`).
impl crate::wire::table::ByteField<{ POOL_NAME_MAX + 1 }> for PoolName {
    #[inline(always)]
    fn from_bytes(b: [u8; POOL_NAME_MAX + 1]) -> Self {
        PoolName(b)
    }
    #[inline(always)]
    fn to_bytes(&self) -> [u8; POOL_NAME_MAX + 1] {
        self.0
    }
}

impl PoolName {
    /// The empty name (no pool).
    pub const EMPTY: PoolName = PoolName([0; POOL_NAME_MAX + 1]);

    /// A pool name from its bytes; `None` when longer than 15 bytes or containing a NUL.
    pub fn new(name: &[u8]) -> Option<Self> {
        if name.len() > POOL_NAME_MAX || name.contains(&0) {
            return None;
        }
        let mut f = [0u8; POOL_NAME_MAX + 1];
        f[..name.len()].copy_from_slice(name);
        Some(PoolName(f))
    }

    /// The name: the bytes before the first NUL (the whole field when there is none, which a
    /// validated payload never has).
    pub fn as_bytes(&self) -> &[u8] {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(self.0.len());
        &self.0[..end]
    }

    /// True when the name is empty.
    pub fn is_empty(&self) -> bool {
        self.0[0] == 0
    }

    /// True when the field holds a NUL (the rule every decoder checks).
    pub fn is_terminated(&self) -> bool {
        // Two words and the "has a zero byte" identity, exact for any input: a quarter of what
        // `contains(&0)` (memchr) costs on 16 bytes.
        let has_zero = |w: u64| w.wrapping_sub(0x0101_0101_0101_0101) & !w & 0x8080_8080_8080_8080;
        let (lo, hi) = self.0.split_at(8);
        let word = |b: &[u8]| u64::from_le_bytes(b.try_into().unwrap_or([0; 8]));
        has_zero(word(lo)) | has_zero(word(hi)) != 0
    }

    pub(crate) fn check(
        &self,
        structure: &'static str,
        field: &'static str,
        offset: usize,
    ) -> Result<(), DecodeError> {
        if self.is_terminated() {
            Ok(())
        } else {
            Err(err(
                structure,
                field,
                offset,
                ErrorKind::PoolNameNotTerminated,
            ))
        }
    }
}

impl fmt::Display for PoolName {
    /// The name, non-printable bytes escaped as `\xNN`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_escaped(f, self.as_bytes())
    }
}

impl fmt::Debug for PoolName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PoolName(\"{self}\")")
    }
}

/// Writes bytes as text, escaping anything but printable ASCII.
pub(crate) fn write_escaped(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    for &b in bytes {
        if (0x20..0x7f).contains(&b) && b != b'\\' {
            write!(f, "{}", b as char)?;
        } else {
            write!(f, "\\x{b:02x}")?;
        }
    }
    Ok(())
}

wire_enum! {
    /// `lfm_type` of a foreign layout (`LU_FOREIGN_TYPE_*`).
    pub struct ForeignType(u32) {
        /// No type.
        const NONE = 0, "none";
        /// POSIX.
        const POSIX = 1, "posix";
        /// PCC read-write.
        const PCCRW = 2, "pccrw";
        /// PCC read-only.
        const PCCRO = 3, "pccro";
        /// S3.
        const S3 = 4, "s3";
        /// Symlink.
        const SYMLINK = 0xda05, "symlink";
        /// Unknown.
        const UNKNOWN = 0xffff_ffff, "unknown";
    }
}

/// The header of a foreign file layout, `struct lov_foreign_md`: `lfm_length` opaque bytes
/// follow.
#[c_struct(lov_foreign_md, size = 16,
    doc = "A foreign file layout (lustre_user.h)",
    raw = ForeignMdWire)]
#[c_member(16, __u8 lfm_value[0], bytes, "the foreign bytes, lfm_length of them")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct ForeignMdHeader {
    /// LOV_MAGIC_FOREIGN or LMV_MAGIC_FOREIGN
    #[c(0, __u32 lfm_magic, hex)]
    pub magic: u32,
    /// bytes of lfm_value
    #[c(4, __u32 lfm_length)]
    pub length: u32,
    /// LU_FOREIGN_TYPE_*
    #[c(8, __u32 lfm_type, enum)]
    pub foreign_type: ForeignType,
    /// flags of the foreign type
    #[c(12, __u32 lfm_flags, hex)]
    pub flags: u32,
}

/// The header of a foreign directory layout, `struct lmv_foreign_md`: the members of
/// [`ForeignMdHeader`] under the LMV's magic; `lfm_length` opaque bytes follow.
#[c_struct(lmv_foreign_md, size = 16,
    doc = "A foreign directory layout (lustre_user.h)",
    raw = LmvForeignMdWire)]
#[c_member(16, __u8 lfm_value[0], bytes, "the foreign bytes, lfm_length of them")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LmvForeignMdHeader {
    /// LMV_MAGIC_FOREIGN
    #[c(0, __u32 lfm_magic, hex)]
    pub magic: u32,
    /// bytes of lfm_value
    #[c(4, __u32 lfm_length)]
    pub length: u32,
    /// LU_FOREIGN_TYPE_*
    #[c(8, __u32 lfm_type, enum)]
    pub foreign_type: ForeignType,
    /// flags of the foreign type
    #[c(12, __u32 lfm_flags, hex)]
    pub flags: u32,
}

/// The little-endian magic of an xattr payload, `None` when it is shorter than one (for the
/// `of_validated` views, which find again the parts of a payload a `parse` has accepted).
pub(crate) fn le_magic(bytes: &[u8]) -> Option<u32> {
    bytes.first_chunk::<4>().map(|m| u32::from_le_bytes(*m))
}

#[cfg(feature = "alloc")]
pub use encode::XattrEncode;

/// [`XattrEncode`]'s methods as inherent ones, so that encoding a payload needs no trait
/// import: `acl.to_bytes()` works with `use lustre_dne_intent::xattr::Acl` alone.
macro_rules! inherent_encode {
    ($($t:ty),*) => {$(
        #[cfg(feature = "alloc")]
        impl $t {
            /// Size of the encoding.
            pub fn wire_len(&self) -> usize {
                XattrEncode::wire_len(self)
            }
            /// Checks every rule a decoder would, and the `XATTR_SIZE_MAX` bound.
            pub fn validate(&self) -> Result<(), crate::EncodeError> {
                XattrEncode::validate(self)
            }
            /// Writes the payload at the start of `out`, after validating it; returns its size.
            pub fn encode_into(&self, out: &mut [u8]) -> Result<usize, crate::EncodeError> {
                XattrEncode::encode_into(self, out)
            }
            /// The payload as a new buffer, after validating it.
            pub fn to_bytes(&self) -> Result<bytes::Bytes, crate::EncodeError> {
                XattrEncode::to_bytes(self)
            }
        }
    )*};
}
inherent_encode!(Acl, Lmv, DefaultLmv, Lov, Pin);

#[cfg(feature = "alloc")]
mod encode {
    use crate::error::{EncodeError, ErrorKind};
    use crate::limits::XATTR_SIZE_MAX;

    /// The encoder shared by every owned payload: a size known in advance, an unchecked writer,
    /// and validation by the payload's own decoder.
    pub trait XattrEncode {
        /// Name used in errors.
        const STRUCTURE: &'static str;

        /// Size of the encoding.
        fn wire_len(&self) -> usize;

        /// Writes the encoding without checking it.
        #[doc(hidden)]
        fn put_raw(&self, out: &mut dyn bytes::BufMut);

        /// Decodes `bytes` with the payload's own decoder (validation of an encoding).
        #[doc(hidden)]
        fn check_encoded(bytes: &[u8]) -> Result<(), crate::DecodeError>;

        /// Checks every rule a decoder would, and the `XATTR_SIZE_MAX` bound.
        fn validate(&self) -> Result<(), EncodeError> {
            let n = self.wire_len();
            if n > XATTR_SIZE_MAX {
                return Err(EncodeError::Invalid(super::err(
                    Self::STRUCTURE,
                    "",
                    0,
                    ErrorKind::OverLimit {
                        value: n as u64,
                        max: XATTR_SIZE_MAX as u64,
                    },
                )));
            }
            let mut v = alloc::vec::Vec::with_capacity(n);
            self.put_raw(&mut v);
            Self::check_encoded(&v)?;
            Ok(())
        }

        /// Appends the payload after validating it.
        fn put<B: bytes::BufMut>(&self, out: &mut B) -> Result<(), EncodeError> {
            self.validate()?;
            self.put_raw(out);
            Ok(())
        }

        /// Writes the payload at the start of `out`; returns its size.
        fn encode_into(&self, out: &mut [u8]) -> Result<usize, EncodeError> {
            self.validate()?;
            let need = self.wire_len();
            let have = out.len();
            let Some(mut window) = out.get_mut(..need) else {
                return Err(EncodeError::BufferTooSmall { need, have });
            };
            self.put_raw(&mut window);
            Ok(need)
        }

        /// The payload as a new buffer.
        fn to_bytes(&self) -> Result<bytes::Bytes, EncodeError> {
            self.validate()?;
            let mut v = alloc::vec::Vec::with_capacity(self.wire_len());
            self.put_raw(&mut v);
            Ok(bytes::Bytes::from(v))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PoolName;

    /// The word-wise NUL test against the plain one: every position of one NUL (or none) among
    /// bytes that straddle the borrow of the identity (0x01, 0x80, 0xff).
    #[test]
    fn is_terminated_is_contains_nul() {
        for fill in [0x01u8, 0x7f, 0x80, 0x81, 0xff, b'a'] {
            let mut p = PoolName([fill; 16]);
            assert!(!p.is_terminated(), "no NUL in {fill:#x}s");
            for i in 0..16 {
                p.0[i] = 0;
                assert!(p.is_terminated(), "NUL at {i} in {fill:#x}s");
                p.0[i] = fill;
            }
        }
    }
}
