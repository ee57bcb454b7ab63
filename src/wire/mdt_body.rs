//! `struct mdt_body` (216 bytes): an object's attributes, the MLI_BUF_PATTR result.

use super::fid::LuFid;
use super::ldlm::LustreHandle;
use super::table::{WireStruct, wire_struct};
use crate::endian::Endian;
use crate::limits::MDT_BODY_SIZE;
use zerocopy::byteorder::{U32, U64};
use zerocopy::{BigEndian, ByteOrder, FromBytes, IntoBytes, LittleEndian};

wire_flags! {
    /// `OBD_MD_*`: which fields of an `mdt_body` are meaningful (`mbo_valid`).
    pub struct MdtValid(u64) {
        /// `OBD_MD_FLID`.
        const FLID = 0x1, "FLID";
        /// `OBD_MD_FLATIME`.
        const FLATIME = 0x2, "FLATIME";
        /// `OBD_MD_FLMTIME`.
        const FLMTIME = 0x4, "FLMTIME";
        /// `OBD_MD_FLCTIME`.
        const FLCTIME = 0x8, "FLCTIME";
        /// `OBD_MD_FLSIZE`.
        const FLSIZE = 0x10, "FLSIZE";
        /// `OBD_MD_FLBLOCKS`.
        const FLBLOCKS = 0x20, "FLBLOCKS";
        /// `OBD_MD_FLBLKSZ`.
        const FLBLKSZ = 0x40, "FLBLKSZ";
        /// `OBD_MD_FLMODE`: permission bits of `mbo_mode`.
        const FLMODE = 0x80, "FLMODE";
        /// `OBD_MD_FLTYPE`: file type bits of `mbo_mode`.
        const FLTYPE = 0x100, "FLTYPE";
        /// `OBD_MD_FLUID`.
        const FLUID = 0x200, "FLUID";
        /// `OBD_MD_FLGID`.
        const FLGID = 0x400, "FLGID";
        /// `OBD_MD_FLFLAGS`: `mbo_flags` holds LUSTRE_*_FL.
        const FLFLAGS = 0x800, "FLFLAGS";
        /// `OBD_MD_DOM_SIZE`.
        const DOM_SIZE = 0x1000, "DOM_SIZE";
        /// `OBD_MD_FLNLINK`.
        const FLNLINK = 0x2000, "FLNLINK";
        /// `OBD_MD_FLPARENT`.
        const FLPARENT = 0x4000, "FLPARENT";
        /// `OBD_MD_FLRDEV`.
        const FLRDEV = 0x10000, "FLRDEV";
        /// `OBD_MD_FLEASIZE`.
        const FLEASIZE = 0x20000, "FLEASIZE";
        /// `OBD_MD_LINKNAME`.
        const LINKNAME = 0x40000, "LINKNAME";
        /// `OBD_MD_FLHANDLE`.
        const FLHANDLE = 0x80000, "FLHANDLE";
        /// `OBD_MD_FLGROUP`.
        const FLGROUP = 0x1000000, "FLGROUP";
        /// `OBD_MD_FLDIREA`.
        const FLDIREA = 0x10000000, "FLDIREA";
        /// `OBD_MD_FLMODEASIZE`.
        const FLMODEASIZE = 0x80000000, "FLMODEASIZE";
        /// `OBD_MD_MDS`.
        const MDS = 0x100000000, "MDS";
        /// `OBD_MD_MEA`.
        const MEA = 0x400000000, "MEA";
        /// `OBD_MD_FLXATTR`.
        const FLXATTR = 0x1000000000, "FLXATTR";
        /// `OBD_MD_FLXATTRLS`.
        const FLXATTRLS = 0x2000000000, "FLXATTRLS";
        /// `OBD_MD_FLACL`.
        const FLACL = 0x8000000000, "FLACL";
        /// `OBD_MD_FLCROSSREF`.
        const FLCROSSREF = 0x100000000000, "FLCROSSREF";
        /// `OBD_MD_DEFAULT_MEA`.
        const DEFAULT_MEA = 0x40000000000000, "DEFAULT_MEA";
        /// `OBD_MD_FLPROJID`.
        const FLPROJID = 0x100000000000000, "FLPROJID";
        /// `OBD_MD_FLBTIME`.
        const FLBTIME = 0x1000000000000000, "FLBTIME";
    }
}

wire_struct! {
    /// An object's attributes as an MDT reports them. A field means something only when its
    /// `OBD_MD_*` bit is set in [`MdtBody::valid`]. `mbo_unused3` and `mbo_padding_10` are not
    /// kept.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    #[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
    pub struct MdtBody;
    /// `struct mdt_body`.
    raw MdtBodyRaw;
    c mdt_body[MDT_BODY_SIZE] "An object's attributes (lustre_idl.h); the MLI_BUF_PATTR result.";
    impl WireStruct;
    members {
        0 struct LuFid mbo_fid1 => fid1, "the object";
        16 struct LuFid mbo_fid2 => fid2, "a second object, as the operation defines";
        32 struct LustreHandle mbo_open_handle => open_handle, "an open's handle (opaque)";
        40 __u64 mbo_valid => valid: MdtValid, "OBD_MD_*: the fields that are meaningful";
        48 __u64 mbo_size => size, "size in bytes"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec"))];
        56 __s64 mbo_mtime => mtime, "modification time, seconds"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec_i64"))];
        64 __s64 mbo_atime => atime, "access time, seconds"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec_i64"))];
        72 __s64 mbo_ctime => ctime, "change time, seconds"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec_i64"))];
        80 __u64 mbo_blocks => blocks, "512-byte blocks allocated"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec"))];
        88 __u64 mbo_version => version, "object version"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec"))];
        96 __u64 mbo_t_state => t_state, "transient state"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::hex"))];
        104 __u32 mbo_fsuid => fsuid, "caller's fsuid";
        108 __u32 mbo_fsgid => fsgid, "caller's fsgid";
        112 __u32 mbo_capability => capability, "caller's capabilities";
        116 __u32 mbo_mode => mode, "type and permission bits";
        120 __u32 mbo_uid => uid, "owner";
        124 __u32 mbo_gid => gid, "group";
        128 __u32 mbo_flags => flags, "LUSTRE_*_FL";
        132 __u32 mbo_rdev => rdev, "device number";
        136 __u32 mbo_nlink => nlink, "link count";
        140 __u32 mbo_layout_gen => layout_gen, "layout generation";
        144 __u32 mbo_suppgid => suppgid, "a supplementary group of the caller";
        148 __u32 mbo_eadatasize => eadatasize, "size of the layout or xattr data";
        152 __u32 mbo_aclsize => aclsize, "size of the ACL";
        156 __u32 mbo_max_mdsize => max_mdsize, "largest layout the MDT may return";
        160 __u32 mbo_unused3 => _, "unused";
        164 __u32 mbo_uid_h => uid_h, "high 32 bits of the owner";
        168 __u32 mbo_gid_h => gid_h, "high 32 bits of the group";
        172 __u32 mbo_projid => projid, "project id";
        176 __u64 mbo_dom_size => dom_size, "size of the Data-on-MDT component"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec"))];
        184 __u64 mbo_dom_blocks => dom_blocks, "blocks of the Data-on-MDT component"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec"))];
        192 __u64 mbo_btime => btime, "birth time, seconds"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::dec"))];
        200 __u64 mbo_xattr_absent => xattr_absent, "xattrs known to be absent"
            #[cfg_attr(feature = "serde", serde(with = "crate::json::ints::hex"))];
        208 __u64 mbo_padding_10 => _, "padding";
    }
}

impl MdtBody {
    /// The bytes of an `mdt_body` written in byte order `from`, rewritten in `to`: every field
    /// converted (`mbo_unused3` and `mbo_padding_10` too, so nothing is lost), the open handle
    /// kept as its bytes. `None` unless `src` is exactly one `mdt_body`.
    ///
    /// A reply's PATTR result is an `mdt_body` in the sender's byte order (Lustre swabs it,
    /// `lustre_swab_mdt_body`), unlike the xattr results, which are always little-endian: a reply
    /// re-encoded in the other order must convert it.
    ///
    /// ```
    /// use lustre_dne_intent::wire::MdtBody;
    /// use lustre_dne_intent::Endian;
    ///
    /// let body = MdtBody { mode: 0o42775, ..Default::default() };
    /// let mut be = Vec::new();
    /// lustre_dne_intent::wire::WireStruct::put(&body, Endian::Big, &mut be);
    /// let le = MdtBody::reorder(&be, Endian::Big, Endian::Little).expect("216 bytes");
    /// assert_eq!(u32::from_le_bytes(le[116..120].try_into().unwrap()), 0o42775);
    /// ```
    pub fn reorder(src: &[u8], from: Endian, to: Endian) -> Option<[u8; MDT_BODY_SIZE]> {
        match (from, to) {
            (Endian::Little, Endian::Big) => reorder_in::<LittleEndian, BigEndian>(src),
            (Endian::Big, Endian::Little) => reorder_in::<BigEndian, LittleEndian>(src),
            _ => src.try_into().ok(),
        }
    }
}

fn reorder_in<A: ByteOrder, B: ByteOrder>(src: &[u8]) -> Option<[u8; MDT_BODY_SIZE]> {
    let raw = MdtBodyRaw::<A>::read_from_bytes(src).ok()?;
    let mut out = MdtBody::from_raw(&raw).to_raw::<B>();
    out.mbo_unused3 = U32::new(raw.mbo_unused3.get());
    out.mbo_padding_10 = U64::new(raw.mbo_padding_10.get());
    let mut bytes = [0; MDT_BODY_SIZE];
    bytes.copy_from_slice(out.as_bytes());
    Some(bytes)
}
