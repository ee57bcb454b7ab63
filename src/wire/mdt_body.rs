//! `struct mdt_body` (216 bytes): an object's attributes, the MLI_BUF_PATTR result.

use super::fid::LuFid;
use super::ldlm::LustreHandle;
use super::table::{WireStruct, c_struct};
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

/// An object's attributes as an MDT reports them. A field means something only when its
/// `OBD_MD_*` bit is set in [`MdtBody::valid`]. `mbo_unused3` and `mbo_padding_10` are not
/// kept.
#[c_struct(mdt_body, size = MDT_BODY_SIZE,
    doc = "An object's attributes (lustre_idl.h); the MLI_BUF_PATTR result.",
    raw_doc = "`struct mdt_body`.")]
#[c_member(160, __u32 mbo_unused3, "unused")]
#[c_member(208, __u64 mbo_padding_10, "padding")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct MdtBody {
    /// the object
    #[c(0, struct LuFid mbo_fid1)]
    pub fid1: LuFid,
    /// a second object, as the operation defines
    #[c(16, struct LuFid mbo_fid2)]
    pub fid2: LuFid,
    /// an open's handle (opaque)
    #[c(32, struct LustreHandle mbo_open_handle)]
    pub open_handle: LustreHandle,
    /// OBD_MD_*: the fields that are meaningful
    #[c(40, __u64 mbo_valid)]
    pub valid: MdtValid,
    /// size in bytes
    #[c(48, __u64 mbo_size)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub size: u64,
    /// modification time, seconds
    #[c(56, __s64 mbo_mtime)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec_i64"))]
    pub mtime: i64,
    /// access time, seconds
    #[c(64, __s64 mbo_atime)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec_i64"))]
    pub atime: i64,
    /// change time, seconds
    #[c(72, __s64 mbo_ctime)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec_i64"))]
    pub ctime: i64,
    /// 512-byte blocks allocated
    #[c(80, __u64 mbo_blocks)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub blocks: u64,
    /// object version
    #[c(88, __u64 mbo_version)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub version: u64,
    /// transient state
    #[c(96, __u64 mbo_t_state, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub t_state: u64,
    /// caller's fsuid
    #[c(104, __u32 mbo_fsuid)]
    pub fsuid: u32,
    /// caller's fsgid
    #[c(108, __u32 mbo_fsgid)]
    pub fsgid: u32,
    /// caller's capabilities
    #[c(112, __u32 mbo_capability, hex)]
    pub capability: u32,
    /// type and permission bits
    #[c(116, __u32 mbo_mode, octal)]
    pub mode: u32,
    /// owner
    #[c(120, __u32 mbo_uid)]
    pub uid: u32,
    /// group
    #[c(124, __u32 mbo_gid)]
    pub gid: u32,
    /// LUSTRE_*_FL
    #[c(128, __u32 mbo_flags, hex)]
    pub flags: u32,
    /// device number
    #[c(132, __u32 mbo_rdev)]
    pub rdev: u32,
    /// link count
    #[c(136, __u32 mbo_nlink)]
    pub nlink: u32,
    /// layout generation
    #[c(140, __u32 mbo_layout_gen)]
    pub layout_gen: u32,
    /// a supplementary group of the caller
    #[c(144, __u32 mbo_suppgid)]
    pub suppgid: u32,
    /// size of the layout or xattr data
    #[c(148, __u32 mbo_eadatasize)]
    pub eadatasize: u32,
    /// size of the ACL
    #[c(152, __u32 mbo_aclsize)]
    pub aclsize: u32,
    /// largest layout the MDT may return
    #[c(156, __u32 mbo_max_mdsize)]
    pub max_mdsize: u32,
    /// high 32 bits of the owner
    #[c(164, __u32 mbo_uid_h)]
    pub uid_h: u32,
    /// high 32 bits of the group
    #[c(168, __u32 mbo_gid_h)]
    pub gid_h: u32,
    /// project id
    #[c(172, __u32 mbo_projid)]
    pub projid: u32,
    /// size of the Data-on-MDT component
    #[c(176, __u64 mbo_dom_size)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub dom_size: u64,
    /// blocks of the Data-on-MDT component
    #[c(184, __u64 mbo_dom_blocks)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub dom_blocks: u64,
    /// birth time, seconds
    #[c(192, __u64 mbo_btime)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::dec"))]
    pub btime: u64,
    /// xattrs known to be absent
    #[c(200, __u64 mbo_xattr_absent, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub xattr_absent: u64,
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
            (Endian::Little, Endian::Big) => reorder_as::<LittleEndian, BigEndian>(src),
            (Endian::Big, Endian::Little) => reorder_as::<BigEndian, LittleEndian>(src),
            _ => src.try_into().ok(),
        }
    }
}

fn reorder_as<A: ByteOrder, B: ByteOrder>(src: &[u8]) -> Option<[u8; MDT_BODY_SIZE]> {
    let raw = MdtBodyRaw::<A>::read_from_bytes(src).ok()?;
    let mut out = MdtBody::from_raw(&raw).to_raw::<B>();
    out.mbo_unused3 = U32::new(raw.mbo_unused3.get());
    out.mbo_padding_10 = U64::new(raw.mbo_padding_10.get());
    let mut bytes = [0; MDT_BODY_SIZE];
    bytes.copy_from_slice(out.as_bytes());
    Some(bytes)
}
