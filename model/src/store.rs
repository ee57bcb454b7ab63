//! The parent store: the remote MDT's objects, their attributes, xattrs and entries.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use lustre_dne_intent::mode::{S_IFDIR, S_IFMT};
use lustre_dne_intent::wire::{LuFid, MdtBody, MdtValid};

/// An object's attributes (the part of `lu_attr` the model uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields, default)
)]
pub struct Attrs {
    /// Type and permission bits.
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Owning group.
    pub gid: u32,
    /// Project id.
    pub projid: u32,
    /// LUSTRE_*_FL flags.
    pub flags: u32,
    /// Link count.
    pub nlink: u32,
    /// Size.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::ints::dec")
    )]
    pub size: u64,
    /// Modification time.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::ints::dec_i64")
    )]
    pub mtime: i64,
    /// Change time.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::ints::dec_i64")
    )]
    pub ctime: i64,
}

impl Attrs {
    /// True for a directory.
    pub const fn is_dir(&self) -> bool {
        self.mode & S_IFMT == S_IFDIR
    }

    /// The `mdt_body` an MDT would report for these attributes of `fid`.
    pub fn mdt_body(&self, fid: LuFid) -> MdtBody {
        MdtBody {
            fid1: fid,
            valid: MdtValid::FLID
                | MdtValid::FLMODE
                | MdtValid::FLTYPE
                | MdtValid::FLUID
                | MdtValid::FLGID
                | MdtValid::FLFLAGS
                | MdtValid::FLNLINK
                | MdtValid::FLSIZE
                | MdtValid::FLMTIME
                | MdtValid::FLCTIME
                | MdtValid::FLPROJID,
            mode: self.mode,
            uid: self.uid,
            gid: self.gid,
            projid: self.projid,
            flags: self.flags,
            nlink: self.nlink,
            size: self.size,
            mtime: self.mtime,
            ctime: self.ctime,
            ..Default::default()
        }
    }

    /// The attributes an `mdt_body` carries (the inverse of [`Attrs::mdt_body`]).
    pub fn from_mdt_body(b: &MdtBody) -> Self {
        Attrs {
            mode: b.mode,
            uid: b.uid,
            gid: b.gid,
            projid: b.projid,
            flags: b.flags,
            nlink: b.nlink,
            size: b.size,
            mtime: b.mtime,
            ctime: b.ctime,
        }
    }
}

/// The xattrs of an object that the model knows, raw (always little-endian payloads).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields, default)
)]
pub struct Xattrs {
    /// `system.posix_acl_access`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub access_acl: Option<Vec<u8>>,
    /// `system.posix_acl_default`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub default_acl: Option<Vec<u8>>,
    /// `trusted.pin`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub pin: Option<Vec<u8>>,
    /// `trusted.lmv`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub lmv: Option<Vec<u8>>,
    /// `trusted.lov` (a directory's default layout).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub lov: Option<Vec<u8>>,
    /// `trusted.dmv` (default directory striping).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub dmv: Option<Vec<u8>>,
}

/// A directory entry: the child's FID and file type (S_IFMT bits, 0 when unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Entry {
    /// The child.
    pub fid: LuFid,
    /// Its S_IFMT bits (0, unknown, when a JSON entry leaves it out).
    pub ftype: u32,
}

/// One object of the store.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields, default)
)]
pub struct Object {
    /// Attributes.
    pub attrs: Attrs,
    /// Xattrs.
    pub xattrs: Xattrs,
    /// Being removed (`mdd_is_dead_obj`).
    pub dead: bool,
    /// Entries, for a directory.
    #[cfg_attr(feature = "serde", serde(with = "crate::json::entries"))]
    pub entries: BTreeMap<Vec<u8>, Entry>,
}

/// The objects of the MDTs the model runs over. ROOT's default layout is the filesystem
/// default a regular file falls back to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Store {
    /// Objects by FID.
    pub objects: BTreeMap<LuFid, Object>,
}

impl Store {
    /// An object.
    pub fn get(&self, fid: LuFid) -> Option<&Object> {
        self.objects.get(&fid)
    }

    /// Adds or replaces an object.
    pub fn insert(&mut self, fid: LuFid, obj: Object) {
        self.objects.insert(fid, obj);
    }

    /// Adds an entry `name → child` to directory `dir` (the child's type comes from the child
    /// object when the store has it).
    pub fn link(&mut self, dir: LuFid, name: &[u8], child: LuFid) {
        let ftype = self.get(child).map_or(0, |c| c.attrs.mode & S_IFMT);
        if let Some(d) = self.objects.get_mut(&dir) {
            d.entries.insert(name.to_vec(), Entry { fid: child, ftype });
        }
    }

    /// ROOT's default layout (`trusted.lov` of `[0x200000007:0x1:0x0]`).
    pub fn root_lov(&self) -> Option<&[u8]> {
        self.get(LuFid::ROOT).and_then(|r| r.xattrs.lov.as_deref())
    }
}

// ---- Sample payloads for stores built by tests, strategies and fuzz targets ----

/// A default LMV (`lmv_user_md_v1`) with the given inherit counters.
pub fn dmv_bytes(max_inherit: u8, max_inherit_rr: u8) -> Vec<u8> {
    lustre_dne_intent::xattr::DefaultLmv {
        magic: lustre_dne_intent::xattr::LMV_USER_MAGIC,
        stripe_count: 2,
        stripe_offset: u32::MAX,
        hash_type: lustre_dne_intent::xattr::LmvHashType(2),
        lum_type: 0,
        max_inherit,
        max_inherit_rr,
        padding: [0; 10],
        pool_name: lustre_dne_intent::xattr::PoolName::EMPTY,
        objects: Vec::new(),
    }
    .to_bytes()
    .map(|b| b.to_vec())
    .unwrap_or_default()
}

/// A plain `lov_user_md_v1` default layout with `stripe_count` stripes.
pub fn lov_bytes(stripe_count: u16) -> Vec<u8> {
    let mut v = Vec::with_capacity(32);
    v.extend_from_slice(&0x0BD1_0BD0u32.to_le_bytes());
    v.extend_from_slice(&1u32.to_le_bytes());
    v.extend_from_slice(&[0; 16]);
    v.extend_from_slice(&(1u32 << 20).to_le_bytes());
    v.extend_from_slice(&stripe_count.to_le_bytes());
    v.extend_from_slice(&0xffffu16.to_le_bytes());
    v
}
