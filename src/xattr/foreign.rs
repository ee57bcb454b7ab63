//! A foreign layout (`lov_foreign_md`, `lmv_foreign_md`): a header and `lfm_length` opaque
//! bytes, as a validated view and as an owned value. The headers are declared in the parent
//! module.

use super::reader::Reader;
use super::{ForeignMdHeader, ForeignMdWire, ForeignType, err_at, lov_foreign_md, write_escaped};
use crate::error::{DecodeError, ErrorKind};
use crate::limits::XATTR_SIZE_MAX;
use core::fmt;
use zerocopy::LittleEndian;

/// [`ForeignMdWire`] as stored (little-endian).
pub type ForeignMdRaw = ForeignMdWire<LittleEndian>;

/// Where the foreign bytes start: the header's size.
const FOREIGN_VALUE: usize = lov_foreign_md::lfm_value.offset;

/// A validated foreign layout (LOV or LMV): header plus `lfm_length` opaque bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ForeignView<'a> {
    raw: &'a ForeignMdRaw,
    value: &'a [u8],
}

impl<'a> ForeignView<'a> {
    /// Parses a foreign layout whose magic the caller has already matched: exactly
    /// 16 + `lfm_length` bytes. `lfm_length` is the member of the caller's structure
    /// (`lov_foreign_md` or `lmv_foreign_md`) that places the length errors.
    pub(crate) fn parse(
        structure: &'static str,
        lfm_length: crate::wire::layout::FieldAt,
        bytes: &'a [u8],
    ) -> Result<Self, DecodeError> {
        let mut r = Reader::new(bytes);
        let raw: &ForeignMdRaw = r.fixed(structure)?;
        let length = raw.lfm_length.get() as usize;
        if length > XATTR_SIZE_MAX - FOREIGN_VALUE {
            return Err(err_at(
                structure,
                lfm_length,
                0,
                ErrorKind::OverLimit {
                    value: length as u64,
                    max: (XATTR_SIZE_MAX - FOREIGN_VALUE) as u64,
                },
            ));
        }
        match r.rest_of::<u8>(length) {
            Some(value) => Ok(ForeignView { raw, value }),
            None => Err(err_at(
                structure,
                lfm_length,
                0,
                ErrorKind::PayloadSizeMismatch {
                    len: r.len(),
                    expected: r.end_of::<u8>(length),
                },
            )),
        }
    }

    /// The view of a foreign layout a `parse` has accepted already: no rule is checked.
    pub(crate) fn of_validated(bytes: &'a [u8]) -> Option<Self> {
        let (raw, value) = Reader::header_and_rest(bytes)?;
        Some(ForeignView { raw, value })
    }

    /// `lfm_magic`.
    pub fn magic(&self) -> u32 {
        self.raw.lfm_magic.get()
    }
    /// `lfm_type`.
    pub fn foreign_type(&self) -> ForeignType {
        ForeignType(self.raw.lfm_type.get())
    }
    /// `lfm_flags`.
    pub fn flags(&self) -> u32 {
        self.raw.lfm_flags.get()
    }
    /// `lfm_value`: the opaque foreign bytes.
    pub fn value(&self) -> &'a [u8] {
        self.value
    }
    /// Size on the wire.
    pub fn wire_len(&self) -> usize {
        FOREIGN_VALUE + self.value.len()
    }

    /// An owned copy.
    #[cfg(feature = "alloc")]
    pub fn to_value(&self) -> ForeignMd {
        ForeignMd::from_header(&self.header(), bytes::Bytes::copy_from_slice(self.value))
    }

    /// The header, as its declared value (`lov_foreign_md`; `lmv_foreign_md` has the same
    /// members).
    pub fn header(&self) -> ForeignMdHeader {
        crate::wire::WireStruct::from_raw(self.raw)
    }
}

impl fmt::Display for ForeignView<'_> {
    /// `lfm_magic`, `lfm_length`, `lfm_type`, `lfm_flags` and `lfm_value` lines, as `lfs` prints.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "lfm_magic:         {:#010x}", self.magic())?;
        writeln!(f, "lfm_length:        {}", self.value.len())?;
        writeln!(
            f,
            "lfm_type:          {:#010x} ({})",
            self.raw.lfm_type.get(),
            self.foreign_type()
        )?;
        writeln!(f, "lfm_flags:         {:#010x}", self.flags())?;
        f.write_str("lfm_value:         '")?;
        write_escaped(f, self.value)?;
        writeln!(f, "'")
    }
}

/// An owned foreign layout (the magic is given by where it is used).
#[cfg(feature = "alloc")]
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct ForeignMd {
    /// `lfm_type`.
    #[cfg_attr(feature = "serde", serde(rename = "lfm_type"))]
    pub foreign_type: ForeignType,
    /// `lfm_flags`.
    #[cfg_attr(feature = "serde", serde(rename = "lfm_flags"))]
    pub flags: u32,
    /// `lfm_value`.
    #[cfg_attr(
        feature = "serde",
        serde(rename = "lfm_value", with = "crate::serde_helpers::bytes::hex")
    )]
    pub value: bytes::Bytes,
}

#[cfg(feature = "alloc")]
impl ForeignMd {
    /// Size on the wire: 16 + the value.
    pub fn wire_len(&self) -> usize {
        FOREIGN_VALUE.saturating_add(self.value.len())
    }

    /// The foreign layout of `header` (its magic and `lfm_length` are the framing's) over
    /// `value`.
    pub(crate) fn from_header(header: &ForeignMdHeader, value: bytes::Bytes) -> Self {
        ForeignMd {
            foreign_type: header.foreign_type,
            flags: header.flags,
            value,
        }
    }

    /// The header the layout encodes under `magic`; `lfm_length` is the value's (bounded by the
    /// encoders' `XATTR_SIZE_MAX` check).
    pub fn header(&self, magic: u32) -> ForeignMdHeader {
        ForeignMdHeader {
            magic,
            length: u32::try_from(self.value.len()).unwrap_or(u32::MAX),
            foreign_type: self.foreign_type,
            flags: self.flags,
        }
    }

    pub(crate) fn put_unchecked<B: bytes::BufMut + ?Sized>(&self, magic: u32, out: &mut B) {
        use crate::wire::WireStruct;
        use zerocopy::IntoBytes;
        out.put_slice(self.header(magic).to_raw::<LittleEndian>().as_bytes());
        out.put_slice(&self.value);
    }
}
