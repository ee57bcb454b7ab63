//! The field tables of docs/spec/WIRE.md, held to the crate's layouts, so that a decoder written
//! from the spec and the crate cannot drift apart. Every table headed `| off | size | field |
//! meaning |` (§5 `md_create_prepare_req`, §7 `md_create_prepare_rep`, the §9 payloads) is
//! matched, by the first backquoted name of the line above it, to the crate's zerocopy `*Raw`
//! struct, and:
//! - every name in a row's field cell (`a / b` for a union or bit-fields sharing bytes, `x[n]`
//!   for an array) is a field of that struct at the row's offset and of the row's size;
//! - the fixed rows tile the struct from 0 to its size, with no gap and no overlap, and the
//!   caption's "N bytes" is that size;
//! - a trailing-array row (`name[]`, size `N each`, or a byte count such as `lfm_length`)
//!   starts where the struct ends, with the crate's entry size;
//! - every table of that shape is one this test knows, and each struct it knows has one table.
//!
//! The second test breaks the spec text in memory (an offset, a size, a name, a row) and checks
//! that each break is caught.

use core::mem::{offset_of, size_of};

use lustre_dne_intent::wire::raw::LuFidRaw;
use lustre_dne_intent::wire::raw::{MdCreatePrepareRepRaw, MdCreatePrepareReqRaw};
use lustre_dne_intent::xattr::ForeignMdRaw;
use lustre_dne_intent::xattr::LmvMdsMdV1Raw;
use lustre_dne_intent::xattr::acl::{AclEntryRaw, AclHeaderRaw};
use lustre_dne_intent::xattr::dmv::{LmvUserMdV1Raw, LmvUserMdsDataRaw};
use lustre_dne_intent::xattr::lov::{
    LovCompMdEntryV1Raw, LovCompMdV1Raw, LovUserMdV1Raw, LovUserMdV3Raw, LovUserOstDataRaw,
};
use zerocopy::LittleEndian;

const SPEC: &str = include_str!("../../docs/spec/WIRE.md");
const HEADER: &str = "| off | size | field | meaning |";

/// The size of a field, named through a projection (`offset_of!` gives only the offset).
fn field_size<T, F>(_: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// A lookup from a field name as the spec writes it (Lustre's name, array bounds dropped) to
/// the crate's (offset, size). Several spec names may map to one crate field: the members of a
/// union, bit-fields of one byte, a nested struct the crate flattens.
macro_rules! fields {
    ($ty:ty { $($name:literal => $($f:ident).+),* $(,)? }) => {
        |name: &str| -> Option<(usize, usize)> {
            match name {
                $($name => Some((offset_of!($ty, $($f).+), field_size(|r: &$ty| &r.$($f).+))),)*
                _ => None,
            }
        }
    };
}

/// What the crate says of one structure.
struct Layout {
    /// The first backquoted name of the table's caption.
    key: &'static str,
    /// The fixed part's size.
    size: usize,
    fields: fn(&str) -> Option<(usize, usize)>,
    /// The trailing array, if any: its name and one entry's size.
    tail: Option<(&'static str, usize)>,
}

type Req = MdCreatePrepareReqRaw<LittleEndian>;
type Rep = MdCreatePrepareRepRaw<LittleEndian>;
type Fid = LuFidRaw<LittleEndian>;

fn layouts() -> Vec<Layout> {
    vec![
        Layout {
            key: "md_create_prepare_req",
            size: size_of::<Req>(),
            fields: fields!(Req {
                "mcpr_fid" => mcpr_fid, "mcpr_flags" => mcpr_flags, "mcpr_fsuid" => mcpr_fsuid,
                "mcpr_fsgid" => mcpr_fsgid, "mcpr_umask" => mcpr_umask, "mcpr_cap" => mcpr_cap,
                "mcpr_child_mode" => mcpr_child_mode, "mcpr_padding0" => mcpr_padding0,
                "mcpr_buf_limit" => mcpr_buf_limit, "mcpr_padding1" => mcpr_padding1,
            }),
            tail: None,
        },
        Layout {
            key: "md_create_prepare_rep",
            size: size_of::<Rep>(),
            fields: fields!(Rep {
                "mcpp_status" => mcpp_status, "mcpp_flags" => mcpp_flags,
                "mcpp_valid" => mcpp_valid, "mcpp_truncated" => mcpp_truncated,
                "mcpp_fid" => mcpp_fid, "mcpp_child_mode" => mcpp_child_mode,
                "mcpp_child_gid" => mcpp_child_gid, "mcpp_child_projid" => mcpp_child_projid,
                "mcpp_child_flags" => mcpp_child_flags, "mcpp_buf_size" => mcpp_buf_size,
                "mcpp_padding" => mcpp_padding,
            }),
            tail: None,
        },
        Layout {
            key: "posix_acl_xattr_header",
            size: size_of::<AclHeaderRaw>(),
            fields: fields!(AclHeaderRaw { "a_version" => a_version }),
            tail: None,
        },
        Layout {
            key: "posix_acl_xattr_entry",
            size: size_of::<AclEntryRaw>(),
            fields: fields!(AclEntryRaw {
                "e_tag" => e_tag, "e_perm" => e_perm, "e_id" => e_id,
            }),
            tail: None,
        },
        Layout {
            key: "lmv_mds_md_v1",
            size: size_of::<LmvMdsMdV1Raw>(),
            fields: fields!(LmvMdsMdV1Raw {
                "lmv_magic" => lmv_magic, "lmv_stripe_count" => lmv_stripe_count,
                "lmv_master_mdt_index" => lmv_master_mdt_index,
                "lmv_hash_type" => lmv_hash_type, "lmv_layout_version" => lmv_layout_version,
                "lmv_migrate_offset" => lmv_migrate_offset,
                "lmv_migrate_hash" => lmv_migrate_hash, "lmv_padding2" => lmv_padding2,
                "lmv_padding3" => lmv_padding3, "lmv_pool_name" => lmv_pool_name,
            }),
            tail: Some(("lmv_stripe_fids", size_of::<Fid>())),
        },
        Layout {
            // With `lov_foreign_md`: the crate reads both with one header.
            key: "lmv_foreign_md",
            size: size_of::<ForeignMdRaw>(),
            fields: fields!(ForeignMdRaw {
                "lfm_magic" => lfm_magic, "lfm_length" => lfm_length, "lfm_type" => lfm_type,
                "lfm_flags" => lfm_flags,
            }),
            tail: Some(("lfm_value", 1)),
        },
        Layout {
            key: "lmv_user_md_v1",
            size: size_of::<LmvUserMdV1Raw>(),
            fields: fields!(LmvUserMdV1Raw {
                "lum_magic" => lum_magic, "lum_stripe_count" => lum_stripe_count,
                "lum_stripe_offset" => lum_stripe_offset, "lum_hash_type" => lum_hash_type,
                "lum_type" => lum_type, "lum_max_inherit" => lum_max_inherit,
                "lum_max_inherit_rr" => lum_max_inherit_rr, "lum_padding1" => lum_padding1,
                "lum_padding2" => lum_padding2, "lum_padding3" => lum_padding3,
                "lum_pool_name" => lum_pool_name,
            }),
            tail: Some(("lum_objects", size_of::<LmvUserMdsDataRaw>())),
        },
        Layout {
            key: "lmv_user_mds_data",
            size: size_of::<LmvUserMdsDataRaw>(),
            fields: fields!(LmvUserMdsDataRaw {
                "lum_fid" => lum_fid, "lum_padding" => lum_padding, "lum_mds" => lum_mds,
            }),
            tail: None,
        },
        Layout {
            key: "lov_user_md_v1",
            size: size_of::<LovUserMdV1Raw>(),
            fields: fields!(LovUserMdV1Raw {
                "lmm_magic" => lmm_magic, "lmm_pattern" => lmm_pattern, "lmm_oi" => lmm_oi,
                "lmm_stripe_size" => lmm_stripe_size, "lmm_stripe_count" => lmm_stripe_count,
                // One union; the crate names its writing member.
                "lmm_stripe_offset" => lmm_stripe_offset, "lmm_layout_gen" => lmm_stripe_offset,
            }),
            tail: Some(("lmm_objects", size_of::<LovUserOstDataRaw>())),
        },
        Layout {
            key: "lov_user_md_v3",
            size: size_of::<LovUserMdV3Raw>(),
            fields: fields!(LovUserMdV3Raw {
                "lmm_magic" => lmm_magic, "lmm_pattern" => lmm_pattern,
                "lmm_oi" => lmm_oi, "lmm_stripe_size" => lmm_stripe_size,
                "lmm_stripe_count" => lmm_stripe_count,
                "lmm_stripe_offset" => lmm_stripe_offset,
                "lmm_layout_gen" => lmm_stripe_offset, "lmm_pool_name" => lmm_pool_name,
            }),
            tail: Some(("lmm_objects", size_of::<LovUserOstDataRaw>())),
        },
        Layout {
            key: "lov_user_ost_data_v1",
            size: size_of::<LovUserOstDataRaw>(),
            fields: fields!(LovUserOstDataRaw {
                "l_ost_oi" => l_ost_oi, "l_ost_gen" => l_ost_gen, "l_ost_type" => l_ost_gen,
                "l_ost_idx" => l_ost_idx,
            }),
            tail: None,
        },
        Layout {
            key: "lov_comp_md_v1",
            size: size_of::<LovCompMdV1Raw>(),
            fields: fields!(LovCompMdV1Raw {
                "lcm_magic" => lcm_magic, "lcm_size" => lcm_size,
                "lcm_layout_gen" => lcm_layout_gen, "lcm_flags" => lcm_flags,
                "lcm_entry_count" => lcm_entry_count, "lcm_mirror_count" => lcm_mirror_count,
                "lcm_ec_count" => lcm_ec_count, "lcm_padding3" => lcm_padding3,
                "lcm_padding1" => lcm_padding1, "lcm_padding2" => lcm_padding2,
            }),
            tail: Some(("lcm_entries", size_of::<LovCompMdEntryV1Raw>())),
        },
        Layout {
            key: "lov_comp_md_entry_v1",
            size: size_of::<LovCompMdEntryV1Raw>(),
            fields: fields!(LovCompMdEntryV1Raw {
                "lcme_id" => lcme_id, "lcme_flags" => lcme_flags,
                // The crate flattens `lcme_extent`.
                "lcme_extent.e_start" => lcme_extent_start,
                "lcme_extent.e_end" => lcme_extent_end,
                "lcme_offset" => lcme_offset, "lcme_size" => lcme_size,
                "lcme_layout_gen" => lcme_layout_gen, "lcme_time_and_id" => lcme_time_and_id,
                "lcme_dstripe_count" => lcme_dstripe_count,
                "lcme_cstripe_count" => lcme_cstripe_count,
                "lcme_compr_type" => lcme_compr_type,
                // Two 4-bit fields of one byte, which the crate keeps whole.
                "lcme_compr_lvl" => lcme_compr_bits,
                "lcme_compr_chunk_lum_bits" => lcme_compr_bits,
            }),
            tail: None,
        },
    ]
}

/// One table of the spec: its caption's key and byte count, and its rows (line, cells).
struct Table {
    line: usize,
    key: String,
    caption_size: Option<usize>,
    rows: Vec<(usize, [String; 4])>,
}

fn tables(spec: &str) -> Vec<Table> {
    let lines: Vec<&str> = spec.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        if l.trim() != HEADER {
            continue;
        }
        let caption = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .copied()
            .unwrap_or("");
        let key = caption.split('`').nth(1).unwrap_or("").to_string();
        // The digits right before the first " bytes".
        let caption_size = caption.find(" bytes").and_then(|at| {
            let digits: String = caption[..at]
                .chars()
                .rev()
                .take_while(char::is_ascii_digit)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            digits.parse().ok()
        });
        let rows = lines[i + 2..]
            .iter()
            .enumerate()
            .take_while(|(_, l)| l.trim_start().starts_with('|'))
            .map(|(j, l)| {
                let inner = l.trim().trim_start_matches('|').trim_end_matches('|');
                let mut cells = inner.splitn(4, '|').map(|c| c.trim().to_string());
                let cells = [(); 4].map(|()| cells.next().unwrap_or_default());
                (i + 3 + j, cells)
            })
            .collect();
        out.push(Table {
            line: i + 1,
            key,
            caption_size,
            rows,
        });
    }
    out
}

/// The spec's field name without its array bound: (`name`, the bound if a number).
fn split_bound(name: &str) -> (&str, Option<usize>) {
    match name.split_once('[') {
        Some((base, rest)) => (base, rest.trim_end_matches(']').parse().ok()),
        None => (name, None),
    }
}

/// Checks every table of `spec`; returns the rows checked and every discrepancy found.
fn check(spec: &str) -> (usize, Vec<String>) {
    let layouts = layouts();
    let mut errors = Vec::new();
    let mut rows_checked = 0;
    let tables = tables(spec);
    for layout in &layouts {
        let n = tables.iter().filter(|t| t.key == layout.key).count();
        if n != 1 {
            errors.push(format!("`{}`: {n} field tables, want 1", layout.key));
        }
    }
    for t in &tables {
        let at = format!("WIRE.md:{} `{}`", t.line, t.key);
        let Some(layout) = layouts.iter().find(|l| l.key == t.key) else {
            errors.push(format!("{at}: a field table this test does not know"));
            continue;
        };
        if t.caption_size != Some(layout.size) {
            errors.push(format!(
                "{at}: caption says {:?} bytes, the crate {}",
                t.caption_size, layout.size
            ));
        }
        let mut end = 0;
        let mut tail_seen = false;
        for (line, [off, size, field, _]) in &t.rows {
            rows_checked += 1;
            let at = format!("WIRE.md:{line} `{}` {field}", t.key);
            let Ok(off) = off.parse::<usize>() else {
                errors.push(format!("{at}: offset {off:?} is not a number"));
                continue;
            };
            if tail_seen {
                errors.push(format!("{at}: a row after the trailing array"));
            }
            if let Some(base) = field.strip_suffix("[]") {
                // A trailing array: `N each`, or a byte count named by a field.
                tail_seen = true;
                let entry = match size.strip_suffix(" each") {
                    Some(n) => n.parse::<usize>().ok(),
                    None if size.parse::<usize>().is_err() => Some(1),
                    None => None,
                };
                match layout.tail {
                    Some((name, want)) if name == base => {
                        if off != layout.size || entry != Some(want) {
                            errors.push(format!(
                                "{at}: @{off} size {size:?}, the crate @{} {want} each",
                                layout.size
                            ));
                        }
                    }
                    _ => errors.push(format!("{at}: no such trailing array in the crate")),
                }
                continue;
            }
            let Ok(size) = size.parse::<usize>() else {
                errors.push(format!("{at}: size {size:?} is not a number"));
                continue;
            };
            if off != end {
                errors.push(format!("{at}: starts @{off}, the row before ends @{end}"));
            }
            end = off + size;
            for name in field.split(" / ") {
                let (base, bound) = split_bound(name);
                match (layout.fields)(base) {
                    None => errors.push(format!("{at}: `{base}` is no field of the crate's")),
                    Some(got) if got != (off, size) => errors.push(format!(
                        "{at}: `{base}` @{off} size {size}, the crate @{} size {}",
                        got.0, got.1
                    )),
                    Some(_) => {}
                }
                if bound.is_some_and(|n| n == 0 || size % n != 0) {
                    errors.push(format!(
                        "{at}: {size} bytes are not {bound:?} equal entries"
                    ));
                }
            }
        }
        if end != layout.size {
            errors.push(format!(
                "{at}: fixed rows end @{end}, the crate's struct @{}",
                layout.size
            ));
        }
        if layout.tail.is_some() && !tail_seen {
            errors.push(format!("{at}: no row for the trailing array"));
        }
    }
    (rows_checked, errors)
}

#[test]
fn spec_field_tables_match_the_crate_layouts() {
    let (rows, errors) = check(SPEC);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    eprintln!("{rows} rows checked");
}

/// Each break of a good row must be reported: the check is only worth its green run if it goes
/// red on a wrong offset, size or name, or a missing row.
#[test]
fn a_broken_table_is_caught() {
    let breaks = [
        // A wrong offset.
        ("| 12 | 4 | lmv_hash_type |", "| 16 | 4 | lmv_hash_type |"),
        // A wrong size (and so the next row's start).
        (
            "| 20 | 1 | lum_max_inherit |",
            "| 20 | 2 | lum_max_inherit |",
        ),
        // A name that is not the crate's.
        ("| 4 | 4 | lcme_flags |", "| 4 | 4 | lcme_flag |"),
        // A wrong entry size.
        (
            "| 48 | 24 each | lum_objects[] |",
            "| 48 | 16 each | lum_objects[] |",
        ),
        // A union member at the wrong place.
        (
            "| 16 | 4 | l_ost_gen / l_ost_type |",
            "| 16 | 4 | l_ost_gen / l_ost_idx |",
        ),
        // A wrong offset in §5.
        ("| 28 | 4 | mcpr_umask |", "| 24 | 4 | mcpr_umask |"),
    ];
    for (good, bad) in breaks {
        assert_eq!(
            SPEC.matches(good).count(),
            1,
            "the spec no longer holds {good:?}"
        );
        let (_, errors) = check(&SPEC.replacen(good, bad, 1));
        assert!(!errors.is_empty(), "{good:?} → {bad:?} was not caught");
    }
    // A missing row.
    let row = "| 28 | 4 | lcme_size |";
    let cut: Vec<&str> = SPEC.lines().filter(|l| !l.starts_with(row)).collect();
    assert_eq!(
        cut.len() + 1,
        SPEC.lines().count(),
        "the spec no longer holds {row:?}"
    );
    let (_, errors) = check(&cut.join("\n"));
    assert!(!errors.is_empty(), "a missing {row:?} was not caught");
}
