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
    fn put_u8(&mut self, b: u8) {
        self.put_slice(&[b]);
    }

    /// Appends `n` copies of `b` (padding).
    fn put_bytes(&mut self, b: u8, n: usize) {
        let chunk = [b; 8];
        let mut left = n;
        while left > 0 {
            let k = left.min(chunk.len());
            self.put_slice(&chunk[..k]);
            left -= k;
        }
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
    fn put_bytes(&mut self, b: u8, n: usize) {
        bytes::BufMut::put_bytes(self, b, n);
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

