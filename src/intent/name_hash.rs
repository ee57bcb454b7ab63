//! The name hash a coordinator puts in `name[3]` of its name-hash (PDO) lock resource
//! (WIRE.md §3, "The name hash in `name[3]`").

/// FNV-1a-64 of `name`, with 0 mapped to 1: the value this crate puts in `name[3]` of the
/// name-hash lock on a parent directory (WIRE.md §3). A decoder never checks it; it is the
/// coordinator's choice, and every coordinator that locks the same name must make the same one.
///
/// **Differs from Lustre:** Lustre's MDT uses the kernel's `full_name_hash(NULL, name, len)`, a
/// 32-bit dcache hash whose value depends on the kernel build (WIRE.md §3 says why the crate
/// does not reproduce it). Both map 0 to 1, so a name-hash lock never looks like a whole-object
/// lock (`name[3]` = 0).
///
/// ```
/// use lustre_dne_intent::intent::name_hash;
/// use lustre_dne_intent::wire::{LdlmResId, LuFid};
///
/// assert_eq!(name_hash(b""), 0xcbf2_9ce4_8422_2325); // the FNV offset basis
/// assert_eq!(name_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
/// let parent = LuFid::new(0x200000401, 1, 0);
/// assert_eq!(LdlmResId::of_name(parent, b"newdir").name[3], name_hash(b"newdir"));
/// ```
pub const fn name_hash(name: &[u8]) -> u64 {
    // The constants of FNV-1a-64, as lustre_hash_fnv_1a_64 (the LMV stripe hash) has them.
    const BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    let mut h = BASIS;
    let mut i = 0;
    while i < name.len() {
        h ^= name[i] as u64;
        h = h.wrapping_mul(PRIME);
        i += 1;
    }
    // Lustre maps a zero hash to 1 (LU-2856): 0 means "no name" in a resource.
    if h == 0 { 1 } else { h }
}

#[cfg(test)]
mod tests {
    use super::name_hash;

    #[test]
    fn known_values_of_fnv_1a_64() {
        // Published FNV-1a-64 test values (the FNV reference test suite).
        assert_eq!(name_hash(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(name_hash(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(name_hash(b""), 0xcbf2_9ce4_8422_2325);
    }
}
