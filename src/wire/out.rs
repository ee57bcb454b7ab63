//! Where the encoders write: one small trait, so the same writer code serves `&mut [u8]` without
//! `alloc` and any `bytes::BufMut` with it.
//!
//! Every encoder computes its size first and writes into a window of exactly that size
//! (`encode_into_slice`), so a slice never runs out; the slice impl still copies only what fits
//! rather than panic.

/// A sink for encoded bytes (crate-internal; the public API takes `&mut [u8]` or `BufMut`).
pub(crate) trait Out {
    /// Appends `src`.
    fn put_slice(&mut self, src: &[u8]);

    /// Appends one byte.
    #[cfg(any(feature = "alloc", test))]
    fn put_u8(&mut self, b: u8) {
        self.put_slice(&[b]);
    }
}

/// Writes a message (or a structure) of `size` bytes into `out`, checking its size first;
/// returns the bytes written.
pub(crate) fn encode_into_slice(
    size: usize,
    out: &mut [u8],
    put: impl FnOnce(&mut &mut [u8]),
) -> Result<usize, crate::error::EncodeError> {
    let have = out.len();
    let Some(mut window) = out.get_mut(..size) else {
        return Err(crate::error::EncodeError::BufferTooSmall { need: size, have });
    };
    put(&mut window);
    Ok(size)
}

/// Copies `src` to `out[at..]` (nothing when it does not fit); a constant `src` length becomes
/// plain stores.
#[inline(always)]
pub(crate) fn copy_at(out: &mut [u8], at: usize, src: &[u8]) {
    if let Some(dst) = out.get_mut(at..at + src.len()) {
        dst.copy_from_slice(src);
    }
}

/// With `alloc`, every `BufMut` is a sink (including `&mut [u8]`, `Vec<u8>` and `BytesMut`).
#[cfg(feature = "alloc")]
impl<B: bytes::BufMut + ?Sized> Out for B {
    fn put_slice(&mut self, src: &[u8]) {
        bytes::BufMut::put_slice(self, src);
    }
    fn put_u8(&mut self, b: u8) {
        bytes::BufMut::put_u8(self, b);
    }
}

/// Without `alloc`, the front of a slice, which advances as it is written (as `BufMut` does).
#[cfg(not(feature = "alloc"))]
impl Out for &mut [u8] {
    fn put_slice(&mut self, src: &[u8]) {
        let n = src.len().min(self.len());
        let (head, tail) = core::mem::take(self).split_at_mut(n);
        head.copy_from_slice(&src[..n]);
        *self = tail;
    }
}

/// These run in every configuration; without `alloc` (`cargo test --no-default-features --lib`)
/// they are the check of the slice sink the encoders then use.
#[cfg(test)]
mod tests {
    use super::Out;

    #[test]
    fn a_slice_sink_advances() {
        let mut buf = [0xaau8; 6];
        let mut w: &mut [u8] = &mut buf;
        w.put_slice(&[1, 2]);
        w.put_u8(3);
        w.put_slice(&[0, 0]);
        assert_eq!(w.len(), 1);
        w.put_slice(&[4]);
        assert_eq!(w.len(), 0);
        assert_eq!(buf, [1, 2, 3, 0, 0, 4]);
    }

    /// Without `alloc` the slice sink copies what fits and stops (`BufMut`, used with `alloc`,
    /// panics instead); the encoders' size check keeps both from being reached.
    #[cfg(not(feature = "alloc"))]
    #[test]
    fn the_no_alloc_slice_sink_never_overruns() {
        let mut buf = [0u8; 2];
        let mut w: &mut [u8] = &mut buf;
        w.put_slice(&[7, 8, 9]);
        w.put_slice(&[1; 5]);
        assert_eq!(w.len(), 0);
        assert_eq!(buf, [7, 8]);
    }
}
