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
//! assert!(lustre_dne_intent::structures::ALL.contains(&rep));
//! ```
//!
//! The list of every structure, the xattr payloads' included, is
//! [`structures::ALL`](crate::structures::ALL).
//!
//! Every structure declared by a table also has a module named as the C structure, with its
//! `LAYOUT` and, for each member, a [`FieldAt`]: where the member lies, as the crate's errors
//! name it (`lustre_handle`, one opaque word, is written by hand: `LustreHandle::LAYOUT`).

pub use super::table::{ArrayLen, Display, Field, FieldAt, FieldType, Layout, Shown};

pub use super::fid::lu_fid;
pub use super::ldlm::{
    ldlm_inodebits, ldlm_intent, ldlm_lock_desc, ldlm_reply, ldlm_request, ldlm_res_id,
};
pub use super::mdt_body::mdt_body;
pub use super::msg::lustre_msg_v2;
pub use super::prepare::{md_create_prepare_rep, md_create_prepare_req};
pub use super::ptlrpc::ptlrpc_body;
#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::prepare::{MdCreatePrepareRep, MdCreatePrepareReq};
    use crate::wire::{
        LdlmInodebits, LdlmIntent, LdlmLockDesc, LdlmReply, LdlmResId, LuFid, MdtBody, MsgHeader,
        PtlrpcBody, WireStruct,
    };
    use zerocopy::{BigEndian, ByteOrder, FromBytes, IntoBytes, LittleEndian};

    /// Distinct, deterministic bytes (xorshift), so that a member read from the wrong place
    /// differs from the right one.
    fn noise(seed: u64) -> [u8; 256] {
        let mut x = seed | 1;
        core::array::from_fn(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
    }

    /// Zeroes the padding of `l`, placed at `base` of `bytes`, the embedded structures' included.
    fn zero_padding(l: &Layout, bytes: &mut [u8], base: usize) {
        for f in l.fields {
            let at = base + f.offset;
            match (f.rust, f.ty, f.array) {
                (None, _, _) => bytes[at..at + f.size].fill(0),
                (Some(_), FieldType::Struct(inner), None) => zero_padding(inner, bytes, at),
                _ => {}
            }
        }
    }

    /// Converted to its value and back, a structure's bytes come out as they went in but for
    /// its padding, which is written as zero; and each member is where its table says.
    fn round_trips<T: WireStruct, O: ByteOrder>(bytes: &[u8], layout: &Layout) {
        let raw = T::Raw::<O>::ref_from_prefix(bytes).expect("long enough").0;
        let mut want = bytes[..T::SIZE].to_vec();
        zero_padding(layout, &mut want, 0);
        let back = T::from_raw(raw).to_raw::<O>();
        assert_eq!(back.as_bytes(), &want[..], "{}", T::NAME);
        let mut in_place = T::Raw::<O>::read_from_bytes(&[0xa5; 256][..T::SIZE]).expect("size");
        T::from_raw(raw).write_raw::<O>(&mut in_place);
        assert_eq!(in_place.as_bytes(), &want[..], "{} in place", T::NAME);
    }

    fn every_structure<O: ByteOrder>(b: &[u8]) {
        round_trips::<MsgHeader, O>(b, MsgHeader::LAYOUT);
        round_trips::<LuFid, O>(b, LuFid::LAYOUT);
        round_trips::<MdtBody, O>(b, MdtBody::LAYOUT);
        round_trips::<PtlrpcBody, O>(b, PtlrpcBody::LAYOUT);
        round_trips::<LdlmResId, O>(b, LdlmResId::LAYOUT);
        round_trips::<LdlmInodebits, O>(b, LdlmInodebits::LAYOUT);
        round_trips::<LdlmLockDesc, O>(b, LdlmLockDesc::LAYOUT);
        round_trips::<LdlmReply, O>(b, LdlmReply::LAYOUT);
        round_trips::<LdlmIntent, O>(b, LdlmIntent::LAYOUT);
        round_trips::<MdCreatePrepareReq, O>(b, MdCreatePrepareReq::LAYOUT);
        round_trips::<MdCreatePrepareRep, O>(b, MdCreatePrepareRep::LAYOUT);
    }

    #[test]
    fn every_structure_round_trips_in_both_orders() {
        for seed in 1..200 {
            let bytes = noise(seed);
            every_structure::<LittleEndian>(&bytes);
            every_structure::<BigEndian>(&bytes);
        }
    }

    /// A few members at known places, read through the accessors, in either order.
    #[test]
    fn accessors_read_their_member() {
        use crate::wire::prepare::{MdCreatePrepareRepRaw, MdCreatePrepareReqRaw};
        use crate::wire::raw::LdlmReplyRaw;
        let mut b = [0u8; 112];
        b[..4].copy_from_slice(&(-17i32).to_le_bytes());
        b[48..52].copy_from_slice(&216u32.to_be_bytes());
        b[104..112].copy_from_slice(&7u64.to_be_bytes());
        let rep = MdCreatePrepareRepRaw::<LittleEndian>::ref_from_prefix(&b[..]);
        assert_eq!(rep.unwrap().0.status(), -17);
        let req = MdCreatePrepareReqRaw::<BigEndian>::ref_from_prefix(&b[..]);
        assert_eq!(req.unwrap().0.buf_limit()[0], 216);
        let ldlm = LdlmReplyRaw::<BigEndian>::ref_from_prefix(&b[..]);
        assert_eq!(ldlm.unwrap().0.policy_res2(), 7);
    }

    /// The places errors name, through embedded structures and array elements.
    #[test]
    fn members_are_placed_through_embedded_structures() {
        use crate::error::At;
        use crate::wire::table::member_at;
        const GRANTED: FieldAt = member_at!(ldlm_reply::lock_desc, ldlm_lock_desc::l_granted_mode);
        assert_eq!(
            GRANTED.at(100),
            At::new("ldlm_reply", "lock_desc.l_granted_mode", 152)
        );
        const NAME: FieldAt = member_at!(
            ldlm_request::lock_desc,
            ldlm_lock_desc::lr_name,
            ldlm_res_id::name
        );
        assert_eq!(
            (NAME.element(3).name, NAME.element(3).offset),
            ("lock_desc.l_resource.lr_name.name[3]", 8 + 8 + 24)
        );
        assert_eq!(
            md_create_prepare_rep::mcpp_buf_size.element(5).at(0),
            At::new("md_create_prepare_rep", "mcpp_buf_size[5]", 68)
        );
        assert_eq!(
            ldlm_reply::LAYOUT.padding::<3>(),
            [(4, 4), (12, 4), (80, 4)]
        );
        assert_eq!(ptlrpc_body::LAYOUT.padding::<2>(), [(34, 2), (128, 16)]);
    }
}
