//! The bounded reader every xattr parser reads through (in the manner of rustls' `Reader`):
//! structures and arrays are taken from what is left, a composite layout's blob is a window
//! that must lie inside the payload (its table places it anywhere, so it is not the next bytes),
//! and every size is checked here, so no parser computes an offset from the input's length.
//! Errors are placed by the caller, with the [`FieldAt`](crate::wire::layout::FieldAt) of the
//! member that asked for the bytes; a truncated fixed header is reported by [`Reader::fixed`] as
//! the other decoders report one.

use crate::error::DecodeError;
use zerocopy::{FromBytes, Immutable, KnownLayout, Unaligned};

/// A cursor over one payload: the bytes already read are behind it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Reader<'a> {
    /// The whole payload; offsets count from its start.
    whole: &'a [u8],
    /// The bytes not read yet.
    rest: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader at the start of `bytes`.
    #[inline(always)]
    pub(crate) const fn new(bytes: &'a [u8]) -> Self {
        Reader {
            whole: bytes,
            rest: bytes,
        }
    }

    /// A payload a `parse` has accepted, taken apart again without a rule: its header `H` and
    /// every byte after it as whole elements `T`. The shape of every `of_validated` view but
    /// the LOV's, whose parts lie elsewhere.
    #[inline(always)]
    pub(crate) fn header_and_rest<H, T>(bytes: &'a [u8]) -> Option<(&'a H, &'a [T])>
    where
        H: FromBytes + KnownLayout + Immutable + Unaligned,
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let mut r = Reader::new(bytes);
        let header = r.take_ref()?;
        Some((header, r.rest_as()?))
    }

    /// The payload's length.
    #[inline(always)]
    pub(crate) const fn len(&self) -> usize {
        self.whole.len()
    }

    /// Where the next byte lies in the payload.
    #[inline(always)]
    pub(crate) const fn at(&self) -> usize {
        self.whole.len() - self.rest.len()
    }

    /// How many bytes are left.
    #[inline(always)]
    pub(crate) const fn left(&self) -> usize {
        self.rest.len()
    }

    /// True while bytes are left.
    #[inline(always)]
    pub(crate) const fn any_left(&self) -> bool {
        !self.rest.is_empty()
    }

    /// Every byte left.
    #[inline(always)]
    pub(crate) fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.rest)
    }

    /// The next `T`, `None` when the bytes left are fewer than its size.
    #[inline(always)]
    pub(crate) fn take_ref<T>(&mut self) -> Option<&'a T>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let (t, rest) = T::ref_from_prefix(self.rest).ok()?;
        self.rest = rest;
        Some(t)
    }

    /// The next fixed header `T` of `structure`, or its truncation: the payload needs the bytes
    /// up to the header's end.
    #[inline(always)]
    pub(crate) fn fixed<T>(&mut self, structure: &'static str) -> Result<&'a T, DecodeError>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let need = self.at() + core::mem::size_of::<T>();
        let have = self.len();
        self.take_ref()
            .ok_or_else(|| super::truncated(structure, need, have))
    }

    /// The next `count` elements `T`, `None` when they do not fit in what is left.
    #[inline(always)]
    pub(crate) fn array<T>(&mut self, count: usize) -> Option<&'a [T]>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let (a, rest) = <[T]>::ref_from_prefix_with_elems(self.rest, count).ok()?;
        self.rest = rest;
        Some(a)
    }

    /// Every byte left as whole elements `T`, `None` when they are not a whole number of them
    /// (nothing is read then).
    #[inline(always)]
    pub(crate) fn rest_as<T>(&mut self) -> Option<&'a [T]>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        let a = <[T]>::ref_from_bytes(self.rest).ok()?;
        self.rest = &[];
        Some(a)
    }

    /// Every byte left as exactly `count` elements `T`, `None` when the bytes left are more or
    /// fewer (nothing is read then).
    #[inline(always)]
    pub(crate) fn rest_of<T>(&mut self, count: usize) -> Option<&'a [T]>
    where
        T: FromBytes + KnownLayout + Immutable + Unaligned,
    {
        if count.checked_mul(core::mem::size_of::<T>())? != self.rest.len() {
            return None;
        }
        let a = <[T]>::ref_from_bytes_with_elems(self.rest, count).ok()?;
        self.rest = &[];
        Some(a)
    }

    /// Where `count` elements `T` from here would end in the payload (what a size error
    /// expects); saturates rather than wrap.
    #[inline(always)]
    pub(crate) const fn end_of<T>(&self, count: usize) -> usize {
        self.at()
            .saturating_add(count.saturating_mul(core::mem::size_of::<T>()))
    }

    /// The `size` bytes at `offset` of the payload, wherever the cursor is; `None` unless they
    /// lie inside it. (A composite layout's table places its blobs anywhere after it.)
    #[inline(always)]
    pub(crate) fn window(&self, offset: usize, size: usize) -> Option<&'a [u8]> {
        self.whole.get(offset..offset.checked_add(size)?)
    }
}

#[cfg(test)]
mod tests {
    use super::Reader;
    use crate::error::ErrorKind;
    use zerocopy::byteorder::{LittleEndian, U32};

    #[test]
    fn takes_within_bounds_only() {
        let b = [1u8, 0, 0, 0, 2, 0, 0, 0, 3, 0];
        let mut r = Reader::new(&b);
        assert_eq!(r.take_ref::<U32<LittleEndian>>().map(|v| v.get()), Some(1));
        assert_eq!((r.at(), r.left(), r.any_left()), (4, 6, true));
        // Two words need 8 bytes, 6 are left: nothing is read.
        assert!(r.array::<U32<LittleEndian>>(2).is_none());
        assert!(r.rest_as::<U32<LittleEndian>>().is_none());
        assert!(r.rest_of::<U32<LittleEndian>>(1).is_none());
        assert!(r.rest_of::<U32<LittleEndian>>(usize::MAX).is_none());
        assert_eq!(r.at(), 4);
        assert_eq!(r.end_of::<U32<LittleEndian>>(2), 12);
        assert_eq!(r.end_of::<U32<LittleEndian>>(usize::MAX), usize::MAX);
        let word = r.array::<U32<LittleEndian>>(1).expect("4 of 6 bytes");
        assert_eq!(word[0].get(), 2);
        assert_eq!(r.clone().rest_of::<u8>(2), Some(&[3u8, 0][..]));
        assert_eq!(r.rest(), &[3u8, 0][..]);
        assert!(!r.any_left());
        assert_eq!(r.rest_as::<U32<LittleEndian>>(), Some(&[][..]));
        assert_eq!(r.window(8, 2), Some(&[3u8, 0][..]));
        assert_eq!(r.window(8, 3), None);
        assert_eq!(r.window(usize::MAX, 2), None);
    }

    #[test]
    fn a_validated_payload_is_its_header_and_whole_elements() {
        let b = [7u8, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8];
        let (h, words) = Reader::header_and_rest::<U32<LittleEndian>, U32<LittleEndian>>(&b)
            .expect("a header and two words");
        assert_eq!((h.get(), words.len(), words[1].get()), (7, 2, 0x0807_0605));
        let odd = Reader::header_and_rest::<U32<LittleEndian>, U32<LittleEndian>>(&b[..10]);
        assert!(odd.is_none());
        let short = Reader::header_and_rest::<U32<LittleEndian>, u8>(&b[..3]);
        assert!(short.is_none());
    }

    #[test]
    fn a_short_header_is_a_truncation_up_to_its_end() {
        let b = [0u8; 6];
        let mut r = Reader::new(&b);
        r.take_ref::<U32<LittleEndian>>().expect("4 bytes");
        let e = r.fixed::<U32<LittleEndian>>("lov_user_md_v3").unwrap_err();
        assert_eq!(e.at.structure, "lov_user_md_v3");
        assert_eq!(e.kind, ErrorKind::Truncated { need: 8, have: 6 });
        assert_eq!(r.at(), 4);
    }
}
