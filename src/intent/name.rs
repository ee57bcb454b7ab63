//! The variable request buffers: the entry name (buffer 4) and the caller's supplementary
//! groups (buffer 5).

use crate::endian::Endian;
use crate::error::{At, DecodeError, ErrorKind};
use crate::limits::{GROUPS_MAX, NAME_MAX};
use core::fmt;

const NAME_S: &str = "name";

/// Checks an entry name (without its NUL) against WIRE.md §5. `base` is the name's offset in
/// the input, for error positions.
pub(crate) fn check_name(name: &[u8], base: usize) -> Result<(), DecodeError> {
    let slash = name.iter().position(|&b| b == b'/');
    check_name_with(name, base, slash)?;
    if let Some(index) = name.iter().position(|&b| b == 0) {
        // Only reachable for names built by hand: in a buffer the first NUL ends the name.
        return Err(DecodeError::new(
            At::new(NAME_S, "", base + index),
            ErrorKind::NameHasNul { index },
        ));
    }
    check_dots(name, base)
}

/// The checks of [`check_name`] up to the slash, given where the name's first `/` is.
fn check_name_with(name: &[u8], base: usize, slash: Option<usize>) -> Result<(), DecodeError> {
    let at = At::new(NAME_S, "", base);
    if name.is_empty() {
        return Err(DecodeError::new(at, ErrorKind::NameEmpty));
    }
    if name.len() > NAME_MAX {
        return Err(DecodeError::new(
            at,
            ErrorKind::NameTooLong { len: name.len() },
        ));
    }
    if let Some(index) = slash {
        return Err(DecodeError::new(
            At::new(NAME_S, "", base + index),
            ErrorKind::NameHasSlash { index },
        ));
    }
    Ok(())
}

/// The last check of [`check_name`]: neither "." nor "..".
fn check_dots(name: &[u8], base: usize) -> Result<(), DecodeError> {
    match name {
        b"." => Err(DecodeError::new(
            At::new(NAME_S, "", base),
            ErrorKind::NameIsDot { dots: "." },
        )),
        b".." => Err(DecodeError::new(
            At::new(NAME_S, "", base),
            ErrorKind::NameIsDot { dots: ".." },
        )),
        _ => Ok(()),
    }
}

/// The index of the first NUL or `/` in `buf`: eight bytes at a time with the "has a zero byte"
/// identity, whose lowest flag is exact (a false flag only ever sits above a true one), the tail
/// padded with bytes that are neither.
#[inline]
fn first_nul_or_slash(buf: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const SLASHES: u64 = ONES * b'/' as u64;
    let zero_bytes = |x: u64| x.wrapping_sub(ONES) & !x & (ONES << 7);
    let hits = |w: u64| zero_bytes(w) | zero_bytes(w ^ SLASHES);
    let mut chunks = buf.chunks_exact(8);
    let mut at = 0;
    for c in &mut chunks {
        let m = hits(u64::from_le_bytes(c.try_into().unwrap_or([0xFF; 8])));
        if m != 0 {
            return Some(at + (m.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    let m = hits(tail_word(chunks.remainder()));
    // The padding never matches, so a match is inside the remainder.
    (m != 0).then(|| at + (m.trailing_zeros() / 8) as usize)
}

/// The last 0 to 7 bytes of a buffer as a little-endian word, padded with 0xff: read in at most
/// three fixed-size pieces (a copy of a variable length would be a call to `memcpy`).
#[inline(always)]
fn tail_word(rest: &[u8]) -> u64 {
    let mut w = 0u64;
    let mut n = 0;
    if rest.len() & 4 != 0 {
        let b = rest
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0xFF; 4]);
        w = u64::from(u32::from_le_bytes(b));
        n = 4;
    }
    if rest.len() & 2 != 0 {
        let b = rest
            .get(n..n + 2)
            .and_then(|b| b.try_into().ok())
            .unwrap_or([0xFF; 2]);
        w |= u64::from(u16::from_le_bytes(b)) << (8 * n);
        n += 2;
    }
    if rest.len() & 1 != 0 {
        w |= u64::from(rest.get(n).copied().unwrap_or(0xFF)) << (8 * n);
        n += 1;
    }
    // n < 8: the shift is in range.
    w | (!0u64 << (8 * n))
}

/// Reads the entry name out of a non-empty name buffer at offset `base`: the bytes before its
/// NUL, which must be the buffer's last byte, as Lustre's MDT requires of `RMF_NAME`
/// (`lustre_msg_string` with no maximum length; WIRE.md W5.8, W5.15). The errors are those of
/// the NUL, then those of [`check_name`]. Always inlined: called, it would save registers and
/// return its `Result` through memory.
#[inline(always)]
pub(crate) fn name_from_buffer(buf: &[u8], base: usize) -> Result<&[u8], DecodeError> {
    // The usual case in one scan: the NUL last, no NUL or '/' before it, a length in range, not
    // a dot name. Anything else is an error, which the walk below names.
    if let Some((&0, name)) = buf.split_last()
        && !name.is_empty()
        && name.len() <= NAME_MAX
        && first_nul_or_slash(name).is_none()
        && name != b"."
        && name != b".."
    {
        return Ok(name);
    }
    name_error(buf, base)
}

/// The error of a name buffer that [`name_from_buffer`] did not accept at once (`Ok` only if
/// called otherwise): the errors of the NUL, then those of [`check_name`].
#[cold]
fn name_error(buf: &[u8], base: usize) -> Result<&[u8], DecodeError> {
    // One pass finds the first NUL, and the first '/' when it comes before: the name's first
    // slash. A name has no NUL of its own, so check_name's NUL scan is not needed here.
    let first = first_nul_or_slash(buf);
    let (slash, nul) = match first {
        Some(i) if buf.get(i) == Some(&b'/') => {
            let after = buf.get(i + 1..).unwrap_or(&[]);
            (
                Some(i),
                after.iter().position(|&b| b == 0).map(|n| i + 1 + n),
            )
        }
        other => (None, other),
    };
    let Some(nul) = nul else {
        return Err(DecodeError::new(
            At::new(NAME_S, "", base),
            ErrorKind::NameNotTerminated { len: buf.len() },
        ));
    };
    if nul + 1 != buf.len() {
        return Err(DecodeError::new(
            At::new(NAME_S, "", base + nul + 1),
            ErrorKind::NameTrailingBytes {
                nul,
                len: buf.len(),
            },
        ));
    }
    let name = buf.get(..nul).unwrap_or(&[]);
    check_name_with(name, base, slash)?;
    check_dots(name, base)?;
    Ok(name)
}

/// A valid entry name, held inline (at most 255 bytes, no '/', no NUL, not "." or "..").
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct EntryName {
    len: u8,
    bytes: [u8; NAME_MAX],
}

impl EntryName {
    /// Validates and copies `name`.
    pub fn new(name: &[u8]) -> Result<Self, DecodeError> {
        check_name(name, 0)?;
        let mut bytes = [0u8; NAME_MAX];
        bytes[..name.len()].copy_from_slice(name);
        Ok(EntryName {
            len: name.len() as u8,
            bytes,
        })
    }

    /// The name's bytes (no NUL).
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Its length on the wire: the name plus its NUL.
    pub fn wire_len(&self) -> usize {
        self.len as usize + 1
    }
}

impl AsRef<[u8]> for EntryName {
    /// The name's bytes (no NUL).
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl TryFrom<&[u8]> for EntryName {
    type Error = DecodeError;
    /// [`EntryName::new`].
    fn try_from(name: &[u8]) -> Result<Self, DecodeError> {
        EntryName::new(name)
    }
}

impl<const N: usize> TryFrom<&[u8; N]> for EntryName {
    type Error = DecodeError;
    /// [`EntryName::new`], for byte-string literals.
    fn try_from(name: &[u8; N]) -> Result<Self, DecodeError> {
        EntryName::new(name)
    }
}

impl TryFrom<&str> for EntryName {
    type Error = DecodeError;
    /// [`EntryName::new`] on the string's UTF-8 bytes.
    fn try_from(name: &str) -> Result<Self, DecodeError> {
        EntryName::new(name.as_bytes())
    }
}

#[cfg(feature = "alloc")]
impl TryFrom<alloc::vec::Vec<u8>> for EntryName {
    type Error = DecodeError;
    /// [`EntryName::new`] (the name is held inline; the vector is dropped).
    fn try_from(name: alloc::vec::Vec<u8>) -> Result<Self, DecodeError> {
        EntryName::new(&name)
    }
}

impl core::str::FromStr for EntryName {
    type Err = DecodeError;
    /// [`EntryName::new`] on the string's UTF-8 bytes.
    fn from_str(name: &str) -> Result<Self, DecodeError> {
        EntryName::new(name.as_bytes())
    }
}

impl fmt::Debug for EntryName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "EntryName(\"{}\")", self.as_bytes().escape_ascii())
    }
}

impl fmt::Display for EntryName {
    /// The name with non-printable bytes escaped.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::flags::pad_with(f, |w| write!(w, "{}", self.as_bytes().escape_ascii()))
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for EntryName {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let len = u.int_in_range(1..=NAME_MAX)?;
        let mut bytes = [0u8; NAME_MAX];
        for b in &mut bytes[..len] {
            *b = match u.arbitrary::<u8>()? {
                0 | b'/' => b'x',
                v => v,
            };
        }
        EntryName::new(&bytes[..len])
            .or_else(|_| EntryName::new(b"x"))
            .map_err(|_| arbitrary::Error::IncorrectFormat)
    }
}

/// A borrowed, validated groups buffer (u32 each, in the message's byte order).
#[derive(Debug, Clone, Copy)]
pub struct GroupsView<'a> {
    bytes: &'a [u8],
    order: Endian,
}

impl<'a> GroupsView<'a> {
    /// Checks a groups buffer at offset `base`: a multiple of 4 bytes, at most 128 entries.
    pub fn parse(bytes: &'a [u8], order: Endian, base: usize) -> Result<Self, DecodeError> {
        const S: &str = "groups";
        if !bytes.len().is_multiple_of(4) {
            return Err(DecodeError::new(
                At::new(S, "", base),
                ErrorKind::GroupsNotAligned { len: bytes.len() },
            ));
        }
        if bytes.len() / 4 > GROUPS_MAX {
            return Err(DecodeError::new(
                At::new(S, "", base),
                ErrorKind::OverLimit {
                    value: (bytes.len() / 4) as u64,
                    max: GROUPS_MAX as u64,
                },
            ));
        }
        Ok(GroupsView { bytes, order })
    }

    /// Number of groups.
    pub fn len(&self) -> usize {
        self.bytes.len() / 4
    }

    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The groups in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + 'a {
        let order = self.order;
        self.bytes
            .chunks_exact(4)
            .map(move |c| order.u32_from([c[0], c[1], c[2], c[3]]))
    }

    /// True when `gid` is among them.
    pub fn contains(&self, gid: u32) -> bool {
        self.iter().any(|g| g == gid)
    }

    /// An owned copy.
    pub fn to_list(&self) -> GroupList {
        let mut l = GroupList::new();
        for g in self.iter() {
            // Cannot fail: parse() bounded the count.
            let _ = l.push(g);
        }
        l
    }
}

/// Up to 128 supplementary groups, held inline.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct GroupList {
    len: u8,
    ids: [u32; GROUPS_MAX],
}

impl GroupList {
    /// No groups.
    pub const fn new() -> Self {
        GroupList {
            len: 0,
            ids: [0; GROUPS_MAX],
        }
    }

    /// Groups from a slice; `None` past 128. [`GroupList::try_from_slice`] says why, for `?`.
    pub fn from_slice(ids: &[u32]) -> Option<Self> {
        Self::try_from_slice(ids).ok()
    }

    /// Groups from a slice, refusing more than [`GROUPS_MAX`] (128) with the rule a decoder
    /// applies to buffer 5 (`groups`, [`ErrorKind::OverLimit`]; the offset is 0).
    ///
    /// ```
    /// use lustre_dne_intent::intent::GroupList;
    /// use lustre_dne_intent::ErrorKind;
    ///
    /// let groups = GroupList::try_from_slice(&[100, 600, 700])?;
    /// assert_eq!(groups.as_slice(), [100, 600, 700]);
    /// let e = GroupList::try_from_slice(&[0; 129]).unwrap_err();
    /// assert_eq!(e.kind, ErrorKind::OverLimit { value: 129, max: 128 });
    /// # Ok::<(), lustre_dne_intent::DecodeError>(())
    /// ```
    pub fn try_from_slice(ids: &[u32]) -> Result<Self, DecodeError> {
        if ids.len() > GROUPS_MAX {
            return Err(DecodeError::new(
                At::new("groups", "", 0),
                ErrorKind::OverLimit {
                    value: ids.len() as u64,
                    max: GROUPS_MAX as u64,
                },
            ));
        }
        let mut l = GroupList::new();
        l.ids[..ids.len()].copy_from_slice(ids);
        l.len = ids.len() as u8;
        Ok(l)
    }

    /// Adds a group; `Err` when full.
    pub fn push(&mut self, gid: u32) -> Result<(), u32> {
        let i = self.len as usize;
        if i == GROUPS_MAX {
            return Err(gid);
        }
        self.ids[i] = gid;
        self.len += 1;
        Ok(())
    }

    /// The groups.
    pub fn as_slice(&self) -> &[u32] {
        &self.ids[..self.len as usize]
    }

    /// Bytes on the wire.
    pub fn wire_len(&self) -> usize {
        4 * self.len as usize
    }
}

impl Default for GroupList {
    fn default() -> Self {
        Self::new()
    }
}

impl AsRef<[u32]> for GroupList {
    /// The groups.
    fn as_ref(&self) -> &[u32] {
        self.as_slice()
    }
}

impl TryFrom<&[u32]> for GroupList {
    type Error = DecodeError;
    /// [`GroupList::try_from_slice`].
    fn try_from(ids: &[u32]) -> Result<Self, DecodeError> {
        GroupList::try_from_slice(ids)
    }
}

impl<const N: usize> TryFrom<&[u32; N]> for GroupList {
    type Error = DecodeError;
    /// [`GroupList::try_from_slice`].
    fn try_from(ids: &[u32; N]) -> Result<Self, DecodeError> {
        GroupList::try_from_slice(ids)
    }
}

impl fmt::Debug for GroupList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

#[cfg(feature = "arbitrary")]
impl<'a> arbitrary::Arbitrary<'a> for GroupList {
    fn arbitrary(u: &mut arbitrary::Unstructured<'a>) -> arbitrary::Result<Self> {
        let n = u.int_in_range(0..=GROUPS_MAX)?;
        let mut l = GroupList::new();
        for _ in 0..n {
            let _ = l.push(u.arbitrary()?);
        }
        Ok(l)
    }
}

#[cfg(test)]
mod tests {
    use super::first_nul_or_slash;

    /// Against the byte-at-a-time scan: every length to 20, every place of a NUL or a slash,
    /// on fillers that stress the identity's borrows (0x01, 0x2e, 0x30, 0x80, 0xff).
    #[test]
    fn first_nul_or_slash_is_the_bytewise_scan() {
        let naive = |b: &[u8]| b.iter().position(|&c| c == 0 || c == b'/');
        for filler in [b'a', 0x01, 0x2e, 0x30, 0x80, 0xff] {
            for len in 0..=20 {
                let plain = [filler; 20];
                assert_eq!(first_nul_or_slash(&plain[..len]), None, "{filler:#x} {len}");
                for hit in [0u8, b'/'] {
                    for at in 0..len {
                        let mut b = [filler; 20];
                        b[at] = hit;
                        // A second hit later must not move the first.
                        if at + 3 < len {
                            b[at + 3] = hit ^ b'/';
                        }
                        let b = &b[..len];
                        assert_eq!(first_nul_or_slash(b), naive(b), "{b:?}");
                        assert_eq!(first_nul_or_slash(b), Some(at));
                    }
                }
            }
        }
    }
}
