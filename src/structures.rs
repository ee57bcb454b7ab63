//! Every fixed structure the crate declares, Lustre's messages and the xattr payloads alike, as
//! [`Layout`] data: what generators of C text, dissectors, printers and fuzzers iterate.
//!
//! It sits above [`wire`](crate::wire) and [`xattr`](crate::xattr), which declare the
//! structures; the layout types themselves are in [`wire::layout`](crate::wire::layout).

use crate::wire::LustreHandle;
use crate::wire::layout::{
    Layout, ldlm_inodebits, ldlm_intent, ldlm_lock_desc, ldlm_reply, ldlm_request, ldlm_res_id,
    lu_fid, lustre_msg_v2, md_create_prepare_rep, md_create_prepare_req, mdt_body, ptlrpc_body,
};
use crate::xattr::acl::{posix_acl_xattr_entry, posix_acl_xattr_header};
use crate::xattr::lov::{lov_comp_md_entry_v1, lov_comp_md_v1};
use crate::xattr::lov::{lov_user_md_v1, lov_user_md_v3, lov_user_ost_data_v1};
use crate::xattr::ost_id;
use crate::xattr::{
    lmv_foreign_md, lmv_mds_md_v1, lmv_user_md_v1, lmv_user_mds_data, lov_foreign_md,
};

/// Every structure the crate declares, in dependency order (a structure after those it embeds).
pub const ALL: &[&Layout] = &[
    lustre_msg_v2::LAYOUT,
    lu_fid::LAYOUT,
    LustreHandle::LAYOUT,
    mdt_body::LAYOUT,
    ptlrpc_body::LAYOUT,
    ldlm_res_id::LAYOUT,
    ldlm_inodebits::LAYOUT,
    ldlm_lock_desc::LAYOUT,
    ldlm_request::LAYOUT,
    ldlm_reply::LAYOUT,
    ldlm_intent::LAYOUT,
    md_create_prepare_req::LAYOUT,
    md_create_prepare_rep::LAYOUT,
    // The xattr payloads, always little-endian.
    posix_acl_xattr_entry::LAYOUT,
    posix_acl_xattr_header::LAYOUT,
    ost_id::LAYOUT,
    lov_user_ost_data_v1::LAYOUT,
    lov_user_md_v1::LAYOUT,
    lov_user_md_v3::LAYOUT,
    lov_foreign_md::LAYOUT,
    lmv_foreign_md::LAYOUT,
    lmv_mds_md_v1::LAYOUT,
    lmv_user_mds_data::LAYOUT,
    lmv_user_md_v1::LAYOUT,
    lov_comp_md_entry_v1::LAYOUT,
    lov_comp_md_v1::LAYOUT,
];

#[cfg(test)]
mod tests {
    use super::ALL;
    use crate::wire::layout::FieldType;

    /// The members of each structure tile it: in offset order, no hole, no overlap, the
    /// last one ending at the size; an array's size is its length times its element's. A
    /// `#[c_struct]` declaration holds this by construction (its offsets are checked at compile
    /// time); the test guards the layouts written by hand (`lustre_handle`) and the tiling the
    /// C generators rely on when they walk `ALL`.
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
