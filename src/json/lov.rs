//! Hand-written serde forms of the layouts whose JSON shows more than their fields: a plain
//! LOV layout names the union at offset 30 by the member that applies, and carries per object
//! what `lfs` shows of its `ost_id`; an LMV carries its form. The shown extras are optional on
//! input and, when given, must agree with the raw fields (they are never a second source).

use crate::serde_helpers::bytes::padding;
use crate::wire::LuFid;
use crate::xattr::{
    LOV_MAGIC_SPECIFIC, LOV_MAGIC_V1, LOV_MAGIC_V3, LmmUnion, LmvForm, LmvHashType, LmvMd, LovBlob,
    LovCompEntry, LovComponent, LovMd, LovOstData, LovPattern, OstId, OstIdForm, PoolName,
};
use alloc::vec::Vec;
use core::fmt;
use serde::de::{self, Deserialize, Deserializer};
use serde::ser::{Serialize, SerializeStruct, Serializer};

/// A u64 as the serde form's 16-digit hex string.
struct Hex64(u64);

impl Serialize for Hex64 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        crate::serde_helpers::ints::hex::serialize(&self.0, s)
    }
}

/// What `lfs` shows of an object id: which union member it holds, `ostid_seq()`, `ostid_id()`.
#[derive(Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OstIdShown {
    form: OstIdForm,
    #[serde(with = "crate::serde_helpers::ints::hex")]
    seq: u64,
    #[serde(with = "crate::serde_helpers::ints::hex")]
    id: u64,
}

impl OstIdShown {
    fn of(oi: OstId) -> Self {
        OstIdShown {
            form: oi.form(),
            seq: oi.ostid_seq(),
            id: oi.ostid_id(),
        }
    }
}

impl fmt::Display for OstIdShown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{{form: {}, seq: {:#x}, id: {:#x}}}",
            self.form.name(),
            self.seq,
            self.id
        )
    }
}

impl Serialize for OstIdShown {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("ostid", 3)?;
        st.serialize_field("form", &self.form)?;
        st.serialize_field("seq", &Hex64(self.seq))?;
        st.serialize_field("id", &Hex64(self.id))?;
        st.end()
    }
}

impl Serialize for LovOstData {
    /// `{"l_ost_oi", "l_ost_gen", "l_ost_idx", "ostid": {"form", "seq", "id"}, "fid"}`.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("LovOstData", 5)?;
        st.serialize_field("l_ost_oi", &self.oi)?;
        st.serialize_field("l_ost_gen", &self.gen_)?;
        st.serialize_field("l_ost_idx", &self.idx)?;
        st.serialize_field("ostid", &OstIdShown::of(self.oi))?;
        st.serialize_field("fid", &self.oi.to_fid(self.idx))?;
        st.end()
    }
}

/// Keeps a present `null` apart from an absent field.
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LovOstDataIn {
    l_ost_oi: OstId,
    l_ost_gen: u32,
    l_ost_idx: u32,
    #[serde(default)]
    ostid: Option<OstIdShown>,
    #[serde(default, deserialize_with = "present")]
    fid: Option<Option<LuFid>>,
}

impl<'de> Deserialize<'de> for LovOstData {
    /// The raw words are authoritative; `ostid` and `fid`, when given, must agree with them.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = LovOstDataIn::deserialize(d)?;
        let v = LovOstData {
            oi: i.l_ost_oi,
            gen_: i.l_ost_gen,
            idx: i.l_ost_idx,
        };
        let shown = OstIdShown::of(v.oi);
        if let Some(o) = i.ostid
            && o != shown
        {
            return Err(de::Error::custom(format_args!(
                "`ostid` {o} disagrees with `l_ost_oi`, which holds {shown}"
            )));
        }
        let fid = v.oi.to_fid(v.idx);
        if let Some(f) = i.fid
            && f != fid
        {
            return Err(match fid {
                Some(fid) => de::Error::custom(format_args!(
                    "`fid` disagrees with `l_ost_oi` and `l_ost_idx`, which give {fid}"
                )),
                None => de::Error::custom(
                    "`fid` disagrees with `l_ost_oi` and `l_ost_idx`, which give no FID (null)",
                ),
            });
        }
        Ok(v)
    }
}

impl Serialize for LovMd {
    /// The C fields, the union at offset 30 under the name of the member it holds.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("LovMd", 8)?;
        st.serialize_field("lmm_magic", &self.magic)?;
        st.serialize_field("lmm_pattern", &self.pattern)?;
        st.serialize_field("lmm_oi", &self.oi)?;
        st.serialize_field("lmm_stripe_size", &self.stripe_size)?;
        st.serialize_field("lmm_stripe_count", &self.stripe_count)?;
        st.serialize_field(self.stripe_offset.name(), &self.stripe_offset.value())?;
        st.serialize_field("lmm_pool_name", &self.pool_name)?;
        st.serialize_field("lmm_objects", &self.objects)?;
        st.end()
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LovMdIn {
    lmm_magic: u32,
    lmm_pattern: LovPattern,
    lmm_oi: OstId,
    lmm_stripe_size: u32,
    lmm_stripe_count: u16,
    #[serde(default)]
    lmm_stripe_offset: Option<u16>,
    #[serde(default)]
    lmm_layout_gen: Option<u16>,
    lmm_pool_name: Option<PoolName>,
    lmm_objects: Vec<LovOstData>,
}

impl<'de> Deserialize<'de> for LovMd {
    /// The union under either member's name, exactly one of them.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = LovMdIn::deserialize(d)?;
        let stripe_offset = match (i.lmm_stripe_offset, i.lmm_layout_gen) {
            (Some(v), None) => LmmUnion::StripeOffset(v),
            (None, Some(v)) => LmmUnion::LayoutGen(v),
            (None, None) => {
                return Err(de::Error::custom(
                    "missing field `lmm_stripe_offset` (or `lmm_layout_gen`: the same union)",
                ));
            }
            (Some(_), Some(_)) => {
                return Err(de::Error::custom(
                    "`lmm_stripe_offset` and `lmm_layout_gen` are one union at offset 30: \
                     give one",
                ));
            }
        };
        // Any other magic is left to the decoder, which names it.
        match (i.lmm_magic, i.lmm_pool_name.is_some()) {
            (LOV_MAGIC_V1, true) => {
                return Err(de::Error::custom(
                    "`lmm_pool_name`: lov_user_md_v1 (LOV_MAGIC_V1) has no pool name: give null",
                ));
            }
            (LOV_MAGIC_V3 | LOV_MAGIC_SPECIFIC, false) => {
                return Err(de::Error::custom(
                    "`lmm_pool_name`: lov_user_md_v3 has a pool name field: give a string \
                     (\"\" for none)",
                ));
            }
            _ => {}
        }
        Ok(LovMd {
            magic: i.lmm_magic,
            pattern: i.lmm_pattern,
            oi: i.lmm_oi,
            stripe_size: i.lmm_stripe_size,
            stripe_count: i.lmm_stripe_count,
            stripe_offset,
            pool_name: i.lmm_pool_name,
            objects: i.lmm_objects,
        })
    }
}

/// A component as its entry's members (the declaration's serde names) followed by `layout`
/// (flattened on output only: on input it would lose the JSON path of an error).
#[derive(serde::Serialize)]
struct LovComponentOut<'a> {
    #[serde(flatten)]
    entry: &'a LovCompEntry,
    layout: &'a LovBlob,
}

impl Serialize for LovComponent {
    /// `{"lcme_id", …, "lcme_compr_bits", "layout"}`: no `lcme_offset` or `lcme_size`, which the
    /// encoder computes.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        LovComponentOut {
            entry: &self.entry,
            layout: &self.blob,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for LovComponent {
    /// The entry's members, read by the entry's own (derived) form, and `layout`, taken out of
    /// the map on the way: any other field is refused, and an error keeps its JSON path.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut layout = None;
        let entry = LovCompEntry::deserialize(WithLayout {
            inner: d,
            layout: &mut layout,
        })?;
        let blob = layout.ok_or_else(|| de::Error::missing_field("layout"))?;
        Ok(LovComponent { entry, blob })
    }
}

/// A deserializer of a component's map that hands `layout` to its slot and every other
/// member to the entry's visitor.
struct WithLayout<'s, D> {
    inner: D,
    layout: &'s mut Option<LovBlob>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for WithLayout<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: de::Visitor<'de>>(self, v: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(WithLayout {
            inner: v,
            layout: self.layout,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

impl<'de, V: de::Visitor<'de>> de::Visitor<'de> for WithLayout<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.inner.expecting(f)
    }

    fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.inner.visit_map(WithLayout {
            inner: map,
            layout: self.layout,
        })
    }
}

impl<'de, A: de::MapAccess<'de>> de::MapAccess<'de> for WithLayout<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        use serde::de::IntoDeserializer;
        while let Some(key) = self.inner.next_key::<alloc::string::String>()? {
            if key != "layout" {
                return seed.deserialize(key.into_deserializer()).map(Some);
            }
            if self.layout.is_some() {
                return Err(de::Error::duplicate_field("layout"));
            }
            *self.layout = Some(self.inner.next_value()?);
        }
        Ok(None)
    }

    fn next_value_seed<S: de::DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<S::Value, A::Error> {
        self.inner.next_value_seed(seed)
    }
}

/// Padding as hex, for `serialize_field`.
struct Padding<'a, const N: usize>(&'a [u8; N]);

impl<const N: usize> Serialize for Padding<'_, N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        padding::serialize(self.0, s)
    }
}

impl Serialize for LmvMd {
    /// The C fields (`padding` only when not zero), then `"form"`: `with_fids` or
    /// `header_only` ([`LmvForm`]).
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let pad = !padding::is_zero(&self.padding);
        let mut st = s.serialize_struct("LmvMd", 10 + pad as usize)?;
        st.serialize_field("lmv_magic", &self.magic)?;
        st.serialize_field("lmv_stripe_count", &self.stripe_count)?;
        st.serialize_field("lmv_master_mdt_index", &self.master_mdt_index)?;
        st.serialize_field("lmv_hash_type", &self.hash_type)?;
        st.serialize_field("lmv_layout_version", &self.layout_version)?;
        st.serialize_field("lmv_migrate_offset", &self.migrate_offset)?;
        st.serialize_field("lmv_migrate_hash", &self.migrate_hash)?;
        if pad {
            st.serialize_field("padding", &Padding(&self.padding))?;
        } else {
            st.skip_field("padding")?;
        }
        st.serialize_field("lmv_pool_name", &self.pool_name)?;
        st.serialize_field("lmv_stripe_fids", &self.stripe_fids)?;
        st.serialize_field("form", &self.form())?;
        st.end()
    }
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LmvMdIn {
    lmv_magic: u32,
    lmv_stripe_count: u32,
    lmv_master_mdt_index: u32,
    lmv_hash_type: LmvHashType,
    lmv_layout_version: u32,
    lmv_migrate_offset: u32,
    lmv_migrate_hash: LmvHashType,
    #[serde(default, with = "padding")]
    padding: [u8; 12],
    lmv_pool_name: PoolName,
    lmv_stripe_fids: Vec<LuFid>,
    #[serde(default)]
    form: Option<LmvForm>,
}

impl<'de> Deserialize<'de> for LmvMd {
    /// `form`, when given, must be the one the stripe count and the FIDs make.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let i = LmvMdIn::deserialize(d)?;
        let v = LmvMd {
            magic: i.lmv_magic,
            stripe_count: i.lmv_stripe_count,
            master_mdt_index: i.lmv_master_mdt_index,
            hash_type: i.lmv_hash_type,
            layout_version: i.lmv_layout_version,
            migrate_offset: i.lmv_migrate_offset,
            migrate_hash: i.lmv_migrate_hash,
            padding: i.padding,
            pool_name: i.lmv_pool_name,
            stripe_fids: i.lmv_stripe_fids,
        };
        if let Some(f) = i.form
            && f != v.form()
        {
            return Err(de::Error::custom(format_args!(
                "`form` {:?} disagrees with `lmv_stripe_count` {} and {} `lmv_stripe_fids`, \
                 which make {:?}",
                f.name(),
                v.stripe_count,
                v.stripe_fids.len(),
                v.form().name()
            )));
        }
        Ok(v)
    }
}
