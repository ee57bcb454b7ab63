//! `struct mdt_body` (216 bytes): an object's attributes, the MLI_BUF_PATTR result.

use super::{LuFid, LustreHandle, WireStruct, check_layout};
use crate::endian::Endian;
use crate::limits::MDT_BODY_SIZE;
use zerocopy::byteorder::{I64, U32, U64};
use zerocopy::{
    BigEndian, ByteOrder, FromBytes, Immutable, IntoBytes, KnownLayout, LittleEndian, Unaligned,
};

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

/// `struct mdt_body`.
#[derive(Debug, Clone, FromBytes, IntoBytes, KnownLayout, Immutable, Unaligned)]
#[repr(C)]
#[allow(missing_docs)]
pub struct MdtBodyRaw<O: ByteOrder> {
    pub mbo_fid1: super::fid::LuFidRaw<O>,
    pub mbo_fid2: super::fid::LuFidRaw<O>,
    pub mbo_open_handle: [u8; 8],
    pub mbo_valid: U64<O>,
    pub mbo_size: U64<O>,
    pub mbo_mtime: I64<O>,
    pub mbo_atime: I64<O>,
    pub mbo_ctime: I64<O>,
    pub mbo_blocks: U64<O>,
    pub mbo_version: U64<O>,
    pub mbo_t_state: U64<O>,
    pub mbo_fsuid: U32<O>,
    pub mbo_fsgid: U32<O>,
    pub mbo_capability: U32<O>,
    pub mbo_mode: U32<O>,
    pub mbo_uid: U32<O>,
    pub mbo_gid: U32<O>,
    pub mbo_flags: U32<O>,
    pub mbo_rdev: U32<O>,
    pub mbo_nlink: U32<O>,
    pub mbo_layout_gen: U32<O>,
    pub mbo_suppgid: U32<O>,
    pub mbo_eadatasize: U32<O>,
    pub mbo_aclsize: U32<O>,
    pub mbo_max_mdsize: U32<O>,
    pub mbo_unused3: U32<O>,
    pub mbo_uid_h: U32<O>,
    pub mbo_gid_h: U32<O>,
    pub mbo_projid: U32<O>,
    pub mbo_dom_size: U64<O>,
    pub mbo_dom_blocks: U64<O>,
    pub mbo_btime: U64<O>,
    pub mbo_xattr_absent: U64<O>,
    pub mbo_padding_10: U64<O>,
}
check_layout!(MdtBodyRaw<LittleEndian>, 216;
    mbo_fid1 @ 0, mbo_fid2 @ 16, mbo_open_handle @ 32, mbo_valid @ 40, mbo_size @ 48,
    mbo_mtime @ 56, mbo_atime @ 64, mbo_ctime @ 72, mbo_blocks @ 80, mbo_version @ 88,
    mbo_t_state @ 96, mbo_fsuid @ 104, mbo_fsgid @ 108, mbo_capability @ 112, mbo_mode @ 116,
    mbo_uid @ 120, mbo_gid @ 124, mbo_flags @ 128, mbo_rdev @ 132, mbo_nlink @ 136,
    mbo_layout_gen @ 140, mbo_suppgid @ 144, mbo_eadatasize @ 148, mbo_aclsize @ 152,
    mbo_max_mdsize @ 156, mbo_unused3 @ 160, mbo_uid_h @ 164, mbo_gid_h @ 168, mbo_projid @ 172,
    mbo_dom_size @ 176, mbo_dom_blocks @ 184, mbo_btime @ 192, mbo_xattr_absent @ 200,
    mbo_padding_10 @ 208);

/// An object's attributes as an MDT reports them. A field means something only when its
/// `OBD_MD_*` bit is set in [`MdtBody::valid`]. `mbo_unused3` and `mbo_padding_10` are not kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[allow(missing_docs)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct MdtBody {
    #[cfg_attr(feature = "serde", serde(rename = "mbo_fid1"))]
    pub fid1: LuFid,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_fid2"))]
    pub fid2: LuFid,
    /// `mbo_open_handle` (opaque).
    #[cfg_attr(feature = "serde", serde(rename = "mbo_open_handle"))]
    pub open_handle: LustreHandle,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_valid"))]
    pub valid: MdtValid,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_size", with = "crate::json::ints::dec")
    )]
    pub size: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_mtime", with = "crate::json::ints::dec_i64")
    )]
    pub mtime: i64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_atime", with = "crate::json::ints::dec_i64")
    )]
    pub atime: i64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_ctime", with = "crate::json::ints::dec_i64")
    )]
    pub ctime: i64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_blocks", with = "crate::json::ints::dec")
    )]
    pub blocks: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_version", with = "crate::json::ints::dec")
    )]
    pub version: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_t_state", with = "crate::json::ints::hex")
    )]
    pub t_state: u64,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_fsuid"))]
    pub fsuid: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_fsgid"))]
    pub fsgid: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_capability"))]
    pub capability: u32,
    /// `mbo_mode`: type and permission bits.
    #[cfg_attr(feature = "serde", serde(rename = "mbo_mode"))]
    pub mode: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_uid"))]
    pub uid: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_gid"))]
    pub gid: u32,
    /// `mbo_flags`: LUSTRE_*_FL.
    #[cfg_attr(feature = "serde", serde(rename = "mbo_flags"))]
    pub flags: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_rdev"))]
    pub rdev: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_nlink"))]
    pub nlink: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_layout_gen"))]
    pub layout_gen: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_suppgid"))]
    pub suppgid: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_eadatasize"))]
    pub eadatasize: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_aclsize"))]
    pub aclsize: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_max_mdsize"))]
    pub max_mdsize: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_uid_h"))]
    pub uid_h: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_gid_h"))]
    pub gid_h: u32,
    #[cfg_attr(feature = "serde", serde(rename = "mbo_projid"))]
    pub projid: u32,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_dom_size", with = "crate::json::ints::dec")
    )]
    pub dom_size: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_dom_blocks", with = "crate::json::ints::dec")
    )]
    pub dom_blocks: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_btime", with = "crate::json::ints::dec")
    )]
    pub btime: u64,
    #[cfg_attr(
        feature = "serde",
        serde(rename = "mbo_xattr_absent", with = "crate::json::ints::hex")
    )]
    pub xattr_absent: u64,
}

impl WireStruct for MdtBody {
    const NAME: &'static str = "mdt_body";
    const SIZE: usize = MDT_BODY_SIZE;
    type Raw<O: ByteOrder> = MdtBodyRaw<O>;

    fn from_raw<O: ByteOrder>(r: &MdtBodyRaw<O>) -> Self {
        MdtBody {
            fid1: LuFid::from_raw(&r.mbo_fid1),
            fid2: LuFid::from_raw(&r.mbo_fid2),
            open_handle: LustreHandle::from_bytes(r.mbo_open_handle),
            valid: MdtValid(r.mbo_valid.get()),
            size: r.mbo_size.get(),
            mtime: r.mbo_mtime.get(),
            atime: r.mbo_atime.get(),
            ctime: r.mbo_ctime.get(),
            blocks: r.mbo_blocks.get(),
            version: r.mbo_version.get(),
            t_state: r.mbo_t_state.get(),
            fsuid: r.mbo_fsuid.get(),
            fsgid: r.mbo_fsgid.get(),
            capability: r.mbo_capability.get(),
            mode: r.mbo_mode.get(),
            uid: r.mbo_uid.get(),
            gid: r.mbo_gid.get(),
            flags: r.mbo_flags.get(),
            rdev: r.mbo_rdev.get(),
            nlink: r.mbo_nlink.get(),
            layout_gen: r.mbo_layout_gen.get(),
            suppgid: r.mbo_suppgid.get(),
            eadatasize: r.mbo_eadatasize.get(),
            aclsize: r.mbo_aclsize.get(),
            max_mdsize: r.mbo_max_mdsize.get(),
            uid_h: r.mbo_uid_h.get(),
            gid_h: r.mbo_gid_h.get(),
            projid: r.mbo_projid.get(),
            dom_size: r.mbo_dom_size.get(),
            dom_blocks: r.mbo_dom_blocks.get(),
            btime: r.mbo_btime.get(),
            xattr_absent: r.mbo_xattr_absent.get(),
        }
    }

    fn to_raw<O: ByteOrder>(&self) -> MdtBodyRaw<O> {
        MdtBodyRaw {
            mbo_fid1: self.fid1.to_raw(),
            mbo_fid2: self.fid2.to_raw(),
            mbo_open_handle: self.open_handle.to_bytes(),
            mbo_valid: U64::new(self.valid.0),
            mbo_size: U64::new(self.size),
            mbo_mtime: I64::new(self.mtime),
            mbo_atime: I64::new(self.atime),
            mbo_ctime: I64::new(self.ctime),
            mbo_blocks: U64::new(self.blocks),
            mbo_version: U64::new(self.version),
            mbo_t_state: U64::new(self.t_state),
            mbo_fsuid: U32::new(self.fsuid),
            mbo_fsgid: U32::new(self.fsgid),
            mbo_capability: U32::new(self.capability),
            mbo_mode: U32::new(self.mode),
            mbo_uid: U32::new(self.uid),
            mbo_gid: U32::new(self.gid),
            mbo_flags: U32::new(self.flags),
            mbo_rdev: U32::new(self.rdev),
            mbo_nlink: U32::new(self.nlink),
            mbo_layout_gen: U32::new(self.layout_gen),
            mbo_suppgid: U32::new(self.suppgid),
            mbo_eadatasize: U32::new(self.eadatasize),
            mbo_aclsize: U32::new(self.aclsize),
            mbo_max_mdsize: U32::new(self.max_mdsize),
            mbo_unused3: U32::ZERO,
            mbo_uid_h: U32::new(self.uid_h),
            mbo_gid_h: U32::new(self.gid_h),
            mbo_projid: U32::new(self.projid),
            mbo_dom_size: U64::new(self.dom_size),
            mbo_dom_blocks: U64::new(self.dom_blocks),
            mbo_btime: U64::new(self.btime),
            mbo_xattr_absent: U64::new(self.xattr_absent),
            mbo_padding_10: U64::ZERO,
        }
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
