//! The `#[serde(with)]` helpers that declarations name (feature `serde`): 64-bit integers as
//! strings ([`ints`]), flag sets and open enumerations ([`flags`]), byte strings ([`bytes`]),
//! `pb_jobid` ([`jobid`]). They sit below every layer of the codec (they know only the leaf
//! modules `flags` and `limits`), so that a structure of any layer can name them; the serde
//! forms of whole values, which name every type, are in `crate::json`.
//!
//! `pub` for the sibling crates (model, capture), which write their own values in the same JSON
//! forms; not part of this crate's documented API.

pub mod bytes;
pub mod flags;
pub mod ints;
pub mod jobid;

/// A string of at most `N` bytes built on the stack (no allocation).
pub(crate) struct StackStr<const N: usize> {
    buf: [u8; N],
    len: usize,
}

impl<const N: usize> StackStr<N> {
    pub(crate) fn new() -> Self {
        StackStr {
            buf: [0; N],
            len: 0,
        }
    }
    pub(crate) fn as_str(&self) -> &str {
        // Only whole `&str`s are ever appended.
        core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> core::fmt::Write for StackStr<N> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(core::fmt::Error)?;
        if end > N {
            return Err(core::fmt::Error);
        }
        self.buf[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Formats into a stack string, for `serialize_str`.
pub(crate) fn stack_fmt<const N: usize>(args: core::fmt::Arguments<'_>) -> StackStr<N> {
    let mut s = StackStr::new();
    // Callers size N for the longest output.
    let _ = core::fmt::Write::write_fmt(&mut s, args);
    s
}
