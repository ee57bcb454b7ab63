//! A message taken apart into its header and buffers, so a case can change one buffer, the
//! buffer count or the framing and be put back together with correct `lm_buflens`.

use lustre_dne_intent::Endian;
use lustre_dne_intent::wire::{MsgBuilder, MsgHeader, MsgView};

/// A `lustre_msg_v2` as header fields and raw buffers.
#[derive(Debug, Clone)]
pub(crate) struct Parts {
    pub order: Endian,
    pub header: MsgHeader,
    pub bufs: Vec<Vec<u8>>,
}

impl Parts {
    /// Takes a message apart; `None` if its framing does not decode.
    pub fn split(bytes: &[u8]) -> Option<Parts> {
        let v = MsgView::parse(bytes).ok()?;
        Some(Parts {
            order: v.order(),
            header: v.header(),
            bufs: (0..v.bufcount())
                .map(|i| v.buffer_or_empty(i).to_vec())
                .collect(),
        })
    }

    /// Puts the message back together (zero padding); `None` past 32 buffers or 1 MiB.
    pub fn join(&self) -> Option<Vec<u8>> {
        let mut mb = MsgBuilder::new(self.order, self.header);
        for b in &self.bufs {
            mb.push(b).ok()?;
        }
        let mut out = Vec::with_capacity(mb.wire_len());
        mb.put(&mut out);
        Some(out)
    }

    /// The message with buffer `i` replaced.
    pub fn with_buf(&self, i: usize, buf: Vec<u8>) -> Option<Vec<u8>> {
        let mut p = self.clone();
        *p.bufs.get_mut(i)? = buf;
        p.join()
    }

    /// The message with only its first `n` buffers.
    pub fn with_bufcount(&self, n: usize) -> Option<Vec<u8>> {
        let mut p = self.clone();
        p.bufs.resize(n, Vec::new());
        p.join()
    }
}
