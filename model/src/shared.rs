//! Handing a reply's results to the caches without a copy.

/// `part` of the message `whole` as a `Bytes` that shares `whole`'s buffer (a reference count,
/// no copy): how a result the codec's view found in a reply is handed to the cache. A `part`
/// from elsewhere is copied.
pub(crate) fn part_of(
    whole: &lustre_dne_intent::bytes::Bytes,
    part: &[u8],
) -> lustre_dne_intent::bytes::Bytes {
    let (start, end) = (
        whole.as_ptr() as usize,
        whole.as_ptr() as usize + whole.len(),
    );
    let at = part.as_ptr() as usize;
    if part.is_empty() || at < start || at + part.len() > end {
        return lustre_dne_intent::bytes::Bytes::copy_from_slice(part);
    }
    whole.slice(at - start..at - start + part.len())
}

#[cfg(test)]
mod tests {
    use super::part_of;
    use lustre_dne_intent::bytes::Bytes;

    #[test]
    fn a_part_of_the_message_shares_its_buffer_and_a_foreign_one_is_copied() {
        let whole = Bytes::from(alloc::vec![1u8, 2, 3, 4, 5]);
        let part = part_of(&whole, &whole[1..4]);
        assert_eq!(&part[..], [2, 3, 4]);
        assert_eq!(part.as_ptr(), whole[1..].as_ptr());
        let tail = part_of(&whole, &whole[3..]);
        assert_eq!(
            (&tail[..], tail.as_ptr()),
            (&[4u8, 5][..], whole[3..].as_ptr())
        );
        let elsewhere = [2u8, 3, 4];
        let copy = part_of(&whole, &elsewhere);
        assert_eq!(&copy[..], [2, 3, 4]);
        assert_ne!(copy.as_ptr(), elsewhere.as_ptr());
        assert!(part_of(&whole, &[]).is_empty());
    }
}
