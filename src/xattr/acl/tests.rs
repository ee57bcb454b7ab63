use super::*;
use proptest::prelude::*;

fn words(entries: &[(u16, u16, u32)]) -> alloc::vec::Vec<u8> {
    let mut b = alloc::vec::Vec::new();
    for &(tag, perm, id) in entries {
        b.extend_from_slice(&tag.to_le_bytes());
        b.extend_from_slice(&perm.to_le_bytes());
        b.extend_from_slice(&id.to_le_bytes());
    }
    b
}

/// The fast check and the walk that names the rule agree on `entries`.
fn agree(entries: &[(u16, u16, u32)]) -> Result<(), TestCaseError> {
    let bytes = words(entries);
    let fast = entries_valid(<[U64<LittleEndian>]>::ref_from_bytes(&bytes).unwrap());
    let walk = check_entries(entries.iter().copied());
    prop_assert_eq!(fast, walk.is_ok(), "{:x?}: walk says {:?}", entries, walk);
    Ok(())
}

/// Entries near a valid ACL: a valid shape (USER_OBJ, USERs, GROUP_OBJ, GROUPs, MASK,
/// OTHER) with one or two entries changed, dropped, duplicated or swapped.
fn near_valid() -> impl Strategy<Value = alloc::vec::Vec<(u16, u16, u32)>> {
    let ids = || proptest::collection::btree_set(0u32..12, 0..5);
    (
        ids(),
        ids(),
        any::<bool>(),
        0u8..6,
        any::<usize>(),
        any::<u64>(),
    )
        .prop_map(|(users, groups, mask, edit, at, r)| {
            let mut v = alloc::vec![(1u16, 7u16, u32::MAX)];
            v.extend(users.into_iter().map(|id| (2, 5, id)));
            v.push((4, 5, u32::MAX));
            v.extend(groups.into_iter().map(|id| (8, 4, id)));
            if mask || v.len() > 2 {
                v.push((0x10, 7, u32::MAX));
            }
            v.push((0x20, (r & 7) as u16, r as u32));
            let i = at % v.len();
            let tags = [0u16, 1, 2, 3, 4, 6, 8, 0x10, 0x20, 0x40, 0x102];
            match edit {
                0 => {}
                1 => v[i].0 = tags[(r % tags.len() as u64) as usize],
                2 => v[i].1 = (r % 10) as u16,
                3 => v[i].2 = (r % 12) as u32,
                4 => {
                    let e = v[i];
                    v.insert(i, e);
                }
                _ => {
                    let j = (r as usize) % v.len();
                    v.swap(i, j);
                    if r & 1 == 1 {
                        v.remove(j);
                    }
                }
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4096))]

    #[test]
    fn fast_check_agrees_near_valid_acls(entries in near_valid()) {
        agree(&entries)?;
    }

    #[test]
    fn fast_check_agrees_on_anything(
        entries in proptest::collection::vec(
            (prop_oneof![Just(1u16), Just(2), Just(4), Just(8), Just(0x10), Just(0x20), any::<u16>()],
             0u16..9, 0u32..4),
            0..10,
        )
    ) {
        agree(&entries)?;
    }
}

#[test]
fn fast_check_on_known_shapes() {
    let ok = [
        alloc::vec![],
        // Named groups only: GROUP_OBJ first in the middle.
        alloc::vec![
            (1, 7, 0),
            (4, 5, 0),
            (8, 7, 3),
            (8, 1, 9),
            (0x10, 7, 0),
            (0x20, 5, 0)
        ],
        alloc::vec![(1, 7, 0), (4, 5, 0), (0x20, 5, 0)],
        alloc::vec![(1, 7, 0), (4, 5, 0), (0x10, 7, 0), (0x20, 5, 0)],
        alloc::vec![
            (1, 7, 0),
            (2, 7, 1),
            (2, 7, 2),
            (4, 5, 0),
            (8, 1, 9),
            (0x10, 7, 0),
            (0x20, 0, 0)
        ],
    ];
    let bad = [
        // A named user and no MASK.
        alloc::vec![(1, 7, 0), (2, 7, 1), (4, 5, 0), (0x20, 5, 0)],
        // Ids not increasing; a duplicate id; e_perm 8; two OTHERs; no GROUP_OBJ.
        alloc::vec![
            (1, 7, 0),
            (2, 7, 2),
            (2, 7, 1),
            (4, 5, 0),
            (0x10, 7, 0),
            (0x20, 5, 0)
        ],
        alloc::vec![
            (1, 7, 0),
            (2, 7, 1),
            (2, 7, 1),
            (4, 5, 0),
            (0x10, 7, 0),
            (0x20, 5, 0)
        ],
        alloc::vec![(1, 8, 0), (4, 5, 0), (0x20, 5, 0)],
        alloc::vec![(1, 7, 0), (4, 5, 0), (0x20, 5, 0), (0x20, 5, 0)],
        alloc::vec![(1, 7, 0), (0x20, 5, 0)],
        // GROUP_OBJ at an end of the middle, taken there without a search, with the wrong
        // entries before or after it: named groups before it; named users after it; a
        // GROUP_OBJ at both ends; users, then groups, then GROUP_OBJ.
        alloc::vec![(1, 7, 0), (8, 7, 1), (4, 5, 0), (0x10, 7, 0), (0x20, 5, 0)],
        alloc::vec![(1, 7, 0), (4, 5, 0), (2, 7, 1), (0x10, 7, 0), (0x20, 5, 0)],
        alloc::vec![(1, 7, 0), (4, 5, 0), (4, 5, 0), (0x10, 7, 0), (0x20, 5, 0)],
        alloc::vec![
            (1, 7, 0),
            (2, 7, 1),
            (8, 7, 2),
            (4, 5, 0),
            (0x10, 7, 0),
            (0x20, 5, 0)
        ],
    ];
    for e in ok.iter().chain(&bad) {
        agree(e).unwrap();
    }
    for e in &ok {
        assert!(check_entries(e.iter().copied()).is_ok(), "{e:?}");
    }
    for e in &bad {
        assert!(check_entries(e.iter().copied()).is_err(), "{e:?}");
    }
}
