//! What the crate knows of each fixed structure's layout, as data: its C name, size and
//! members (name, offset, type, array length, the Rust field that holds it, the names of a
//! flags member's bits, a one-line doc). Generators of C text, dissectors and fuzzers read
//! these instead of keeping their own field lists.
//!
//! ```
//! use lustre_dne_intent::intent::MdCreatePrepareRep;
//! use lustre_dne_intent::wire::layout::{self, FieldType};
//!
//! let rep = MdCreatePrepareRep::LAYOUT;
//! assert_eq!((rep.name, rep.size), ("md_create_prepare_rep", 80));
//! let sizes = rep.field("mcpp_buf_size").expect("a member");
//! assert_eq!((sizes.offset, sizes.ty, sizes.rust), (48, FieldType::U32, Some("buf_size")));
//! assert_eq!(sizes.array.map(|a| (a.c_name, a.len)), Some(("MLI_BUF_MAX", 6)));
//! assert!(layout::ALL.contains(&rep));
//! ```
//!
//! Every structure also has a module named as the C structure, with its `LAYOUT` and, for each
//! member, a [`FieldAt`]: where the member lies, as the crate's errors name it.

pub use super::table::{ArrayLen, Field, FieldAt, FieldType, Layout};

use super::LustreHandle;

pub use super::fid::lu_fid;
pub use super::mdt_body::mdt_body;
pub use super::ptlrpc::ptlrpc_body;
pub use crate::intent::body::{md_create_prepare_rep, md_create_prepare_req};

/// Every structure the crate declares, in dependency order (a structure after those it embeds).
pub const ALL: &[&Layout] = &[
    lu_fid::LAYOUT,
    LustreHandle::LAYOUT,
    mdt_body::LAYOUT,
    ptlrpc_body::LAYOUT,
    md_create_prepare_req::LAYOUT,
    md_create_prepare_rep::LAYOUT,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// The members of each structure tile it: in offset order, no hole, no overlap, the
    /// last one ending at the size; an array's size is its length times its element's.
    #[test]
    fn members_tile_their_structure() {
        for l in ALL {
            let mut end = 0;
            for f in l.fields {
                assert_eq!(f.offset, end, "{}.{} leaves a hole", l.name, f.name);
                let elems = f.array.map_or(1, |a| a.len);
                assert_eq!(f.ty.size() * elems, f.size, "{}.{}", l.name, f.name);
                end = f.offset + f.size;
            }
            assert_eq!(end, l.size, "{} has a tail", l.name);
        }
    }

    /// A structure comes after those it embeds, and each is listed once.
    #[test]
    fn all_is_in_dependency_order() {
        for (i, l) in ALL.iter().enumerate() {
            assert!(!ALL[..i].contains(l), "{} is listed twice", l.name);
            for f in l.fields {
                if let FieldType::Struct(inner) = f.ty {
                    assert!(
                        ALL[..i].contains(&inner),
                        "{} before {}",
                        l.name,
                        inner.name
                    );
                }
            }
        }
    }
}
