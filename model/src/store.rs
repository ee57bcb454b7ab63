//! The parent store: the remote MDT's objects, their attributes, xattrs and entries.

use alloc::collections::BTreeMap;
use alloc::vec::Vec;
use lustre_dne_intent::bytes::Bytes;
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
    pub access_acl: Option<Bytes>,
    /// `system.posix_acl_default`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub default_acl: Option<Bytes>,
    /// `trusted.pin`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub pin: Option<Bytes>,
    /// `trusted.lmv`.
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub lmv: Option<Bytes>,
    /// `trusted.lov` (a directory's default layout).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub lov: Option<Bytes>,
    /// `trusted.dmv` (default directory striping).
    #[cfg_attr(
        feature = "serde",
        serde(with = "lustre_dne_intent::serde_helpers::bytes::opt_hex")
    )]
    pub dmv: Option<Bytes>,
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
    #[cfg_attr(feature = "serde", serde(with = "entries_serde::entries"))]
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
    pub fn root_lov(&self) -> Option<&Bytes> {
        self.get(LuFid::ROOT).and_then(|r| r.xattrs.lov.as_ref())
    }
}

// ---- Sample payloads for stores built by tests, strategies and fuzz targets ----

/// A default LMV (`lmv_user_md_v1`) with the given inherit counters.
pub fn dmv_bytes(max_inherit: u8, max_inherit_rr: u8) -> Bytes {
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
    .unwrap_or_default()
}

/// A plain `lov_user_md_v1` default layout with `stripe_count` stripes.
pub fn lov_bytes(stripe_count: u16) -> Bytes {
    let mut v = Vec::with_capacity(32);
    v.extend_from_slice(&0x0BD1_0BD0u32.to_le_bytes());
    v.extend_from_slice(&1u32.to_le_bytes());
    v.extend_from_slice(&[0; 16]);
    v.extend_from_slice(&(1u32 << 20).to_le_bytes());
    v.extend_from_slice(&stripe_count.to_le_bytes());
    v.extend_from_slice(&0xffffu16.to_le_bytes());
    Bytes::from(v)
}

/// `#[serde(with)]` for `Object::entries`, beside the type it serializes.
#[cfg(feature = "serde")]
mod entries_serde {
    use super::Entry;
    use alloc::collections::BTreeMap;
    use alloc::vec::Vec;
    use core::fmt;
    use lustre_dne_intent::serde_helpers::bytes::ser_name;
    use lustre_dne_intent::wire::LuFid;
    use serde::de::{self, Deserializer, SeqAccess, Visitor};
    use serde::ser::{Serialize, SerializeSeq, SerializeStruct, Serializer};

    /// A name in its serde form.
    struct NameRef<'a>(&'a [u8]);

    impl Serialize for NameRef<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            ser_name(self.0, s)
        }
    }

    /// One directory entry in the list form.
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct EntryItem {
        #[serde(with = "lustre_dne_intent::serde_helpers::bytes::name")]
        name: Vec<u8>,
        fid: LuFid,
        /// 0 (unknown) when left out.
        #[serde(default)]
        ftype: u32,
    }

    /// `#[serde(with)]` for `Object::entries`: `[{"name", "fid", "ftype"}, …]` in name order
    /// (names are bytes, so they cannot be JSON keys); a repeated name is refused.
    pub(crate) mod entries {
        use super::*;

        struct Item<'a>(&'a [u8], &'a Entry);
        impl Serialize for Item<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut st = s.serialize_struct("EntryItem", 3)?;
                st.serialize_field("name", &NameRef(self.0))?;
                st.serialize_field("fid", &self.1.fid)?;
                st.serialize_field("ftype", &self.1.ftype)?;
                st.end()
            }
        }

        pub(crate) fn serialize<S: Serializer>(
            v: &BTreeMap<Vec<u8>, Entry>,
            s: S,
        ) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(v.len()))?;
            for (k, e) in v {
                seq.serialize_element(&Item(k, e))?;
            }
            seq.end()
        }

        pub(crate) fn deserialize<'de, D: Deserializer<'de>>(
            d: D,
        ) -> Result<BTreeMap<Vec<u8>, Entry>, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = BTreeMap<Vec<u8>, Entry>;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a list of directory entries")
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                    let mut m = BTreeMap::new();
                    while let Some(e) = seq.next_element::<EntryItem>()? {
                        let entry = Entry {
                            fid: e.fid,
                            ftype: e.ftype,
                        };
                        if m.insert(e.name, entry).is_some() {
                            return Err(de::Error::custom("directory entry listed twice"));
                        }
                    }
                    Ok(m)
                }
            }
            d.deserialize_seq(V)
        }
    }
}
