//! One extended attribute as a self-describing serde document: what `dne-intent xattr --json`
//! prints and `dne-intent encode` reads back, so that another program can read the tool's
//! output with serde alone.
//!
//! ```text
//! XattrDoc = { "file": path (optional: getfattr input names it),
//!              "xattr": "trusted.lov" | "system.posix_acl_access" | … (the attribute's name),
//!              "kind": "acl" | "pin" | "lmv" | "dmv" | "lov" | "opaque",
//!              "payload": the payload's serde form (Acl, Pin, Lmv, DefaultLmv, Lov),
//!                         or for "opaque" its bytes in hex }
//! ```
//!
//! `kind` must come before `payload` (it says how to read it; the tool and serde write them in
//! this order, and jq keeps it). When `xattr` names an attribute of a known kind, `kind` must
//! be that kind; any other name is `opaque`.

use super::{
    Acl, AclView, DefaultLmv, DefaultLmvView, LayoutOf, Lmv, LmvView, Lov, LovView, Pin, PinView,
};
use crate::error::{DecodeError, EncodeError};
use crate::xattr_names::{ACL_ACCESS, ACL_DEFAULT, DMV, LMV, LOV, PIN};
use alloc::string::{String, ToString};
use core::fmt;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeStruct, Serializer};

/// The payload kinds, as `"kind"` spells them.
pub const XATTR_KINDS: [&str; 6] = ["acl", "pin", "lmv", "dmv", "lov", "opaque"];

/// The payload kind the attribute `name` holds (the client-visible `lustre.*` aliases
/// included), or `None` for one this crate does not decode (`opaque`).
pub fn xattr_kind(name: &str) -> Option<&'static str> {
    Some(match name {
        ACL_ACCESS | ACL_DEFAULT => "acl",
        PIN | "lustre.pin" => "pin",
        LMV | "lustre.lmv" => "lmv",
        DMV | "lustre.dmv" => "dmv",
        LOV | "lustre.lov" => "lov",
        _ => return None,
    })
}

/// A decoded payload of one of the kinds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum XattrPayload {
    /// `system.posix_acl_access` or `system.posix_acl_default`.
    Acl(Acl),
    /// `trusted.pin`.
    Pin(Pin),
    /// `trusted.lmv`.
    Lmv(Lmv),
    /// `trusted.dmv`.
    Dmv(DefaultLmv),
    /// `trusted.lov`, its unions named by context.
    Lov(Lov),
    /// An attribute this crate does not decode: its bytes.
    Opaque(bytes::Bytes),
}

impl XattrPayload {
    /// Its `"kind"`.
    pub fn kind(&self) -> &'static str {
        match self {
            XattrPayload::Acl(_) => "acl",
            XattrPayload::Pin(_) => "pin",
            XattrPayload::Lmv(_) => "lmv",
            XattrPayload::Dmv(_) => "dmv",
            XattrPayload::Lov(_) => "lov",
            XattrPayload::Opaque(_) => "opaque",
        }
    }

    /// Decodes `bytes` as the payload the attribute `name` holds ([`xattr_kind`]). A
    /// `trusted.lov` is named as the layout `of` a file or a directory, or as
    /// [`LovView::layout_of_guess`] says when `None`.
    pub fn decode(name: &str, bytes: &[u8], of: Option<LayoutOf>) -> Result<Self, DecodeError> {
        Ok(match xattr_kind(name) {
            Some("acl") => XattrPayload::Acl(AclView::parse(bytes)?.to_value()),
            Some("pin") => XattrPayload::Pin(PinView::parse(bytes)?.to_value()),
            Some("lmv") => XattrPayload::Lmv(LmvView::parse(bytes)?.to_value()),
            Some("dmv") => XattrPayload::Dmv(DefaultLmvView::parse(bytes)?.to_value()),
            Some(_) => {
                let v = LovView::parse(bytes)?;
                XattrPayload::Lov(v.to_value_of(of.unwrap_or_else(|| v.layout_of_guess())))
            }
            None => XattrPayload::Opaque(bytes::Bytes::copy_from_slice(bytes)),
        })
    }

    /// The payload's bytes, checked by its decoder (an opaque one against
    /// [`XATTR_SIZE_MAX`](crate::limits::XATTR_SIZE_MAX) alone).
    pub fn to_bytes(&self) -> Result<bytes::Bytes, EncodeError> {
        match self {
            XattrPayload::Acl(v) => v.to_bytes(),
            XattrPayload::Pin(v) => v.to_bytes(),
            XattrPayload::Lmv(v) => v.to_bytes(),
            XattrPayload::Dmv(v) => v.to_bytes(),
            XattrPayload::Lov(v) => v.to_bytes(),
            XattrPayload::Opaque(b) => {
                super::check_xattr_size("xattr", b.len())?;
                Ok(b.clone())
            }
        }
    }
}

/// One attribute: where it was read, its name and its payload. See the [module](self) docs
/// for the serde form.
///
/// ```
/// use lustre_dne_intent::xattr::{LayoutOf, XattrDoc, XattrPayload};
///
/// // A file's layout on a real 2.10 system: one object on a FID sequence of OST 0.
/// let bytes = std::fs::read("testdata/real/lov_v1_2_10_fidseq_ost0.bin")?;
/// let doc = XattrDoc::decode(None, "trusted.lov", &bytes, Some(LayoutOf::File))?;
/// let json = serde_json::to_value(&doc)?;
/// assert_eq!(json["kind"], "lov");
/// // A file's instantiated layout holds its generation in the union at offset 30.
/// assert_eq!(json["payload"]["lov_user_md"]["lmm_layout_gen"], 0);
/// let obj = &json["payload"]["lov_user_md"]["lmm_objects"][0];
/// assert_eq!(obj["l_ost_oi"]["oi_id"], "0x0000000280000400");
/// assert_eq!(obj["ostid"]["form"], "fid");
/// assert_eq!(obj["fid"], "[0x280000400:0x3:0x0]");
///
/// let back: XattrDoc = serde_json::from_value(json)?;
/// assert_eq!(back, doc);
/// assert_eq!(back.payload.to_bytes()?, &bytes[..]);
///
/// // As a directory's default, the same union is the stripe offset.
/// let dir = XattrDoc::decode(None, "trusted.lov", &bytes, Some(LayoutOf::Dir))?;
/// assert_eq!(serde_json::to_value(&dir)?["payload"]["lov_user_md"]["lmm_stripe_offset"], 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct XattrDoc {
    /// The file it belongs to (from `getfattr`'s `# file:` line), when known.
    pub file: Option<String>,
    /// The attribute's name.
    pub xattr: String,
    /// The payload.
    pub payload: XattrPayload,
}

impl XattrDoc {
    /// Decodes the attribute `name` holding `bytes` (see [`XattrPayload::decode`]).
    pub fn decode(
        file: Option<&str>,
        name: &str,
        bytes: &[u8],
        of: Option<LayoutOf>,
    ) -> Result<Self, DecodeError> {
        Ok(XattrDoc {
            file: file.map(ToString::to_string),
            xattr: name.to_string(),
            payload: XattrPayload::decode(name, bytes, of)?,
        })
    }
}

/// The payload as its serde form (the `"payload"` value).
struct PayloadForm<'a>(&'a XattrPayload);

impl serde::Serialize for PayloadForm<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            XattrPayload::Acl(v) => v.serialize(s),
            XattrPayload::Pin(v) => v.serialize(s),
            XattrPayload::Lmv(v) => v.serialize(s),
            XattrPayload::Dmv(v) => v.serialize(s),
            XattrPayload::Lov(v) => v.serialize(s),
            XattrPayload::Opaque(b) => crate::serde_helpers::bytes::hex::serialize(b, s),
        }
    }
}

impl serde::Serialize for XattrDoc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut st = s.serialize_struct("XattrDoc", 3 + self.file.is_some() as usize)?;
        match &self.file {
            Some(f) => st.serialize_field("file", f)?,
            None => st.skip_field("file")?,
        }
        st.serialize_field("xattr", &self.xattr)?;
        st.serialize_field("kind", self.payload.kind())?;
        st.serialize_field("payload", &PayloadForm(&self.payload))?;
        st.end()
    }
}

/// Reads a payload of the kind already seen.
struct PayloadSeed(&'static str);

impl<'de> DeserializeSeed<'de> for PayloadSeed {
    type Value = XattrPayload;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<XattrPayload, D::Error> {
        use serde::Deserialize;
        Ok(match self.0 {
            "acl" => XattrPayload::Acl(Acl::deserialize(d)?),
            "pin" => XattrPayload::Pin(Pin::deserialize(d)?),
            "lmv" => XattrPayload::Lmv(Lmv::deserialize(d)?),
            "dmv" => XattrPayload::Dmv(DefaultLmv::deserialize(d)?),
            "lov" => XattrPayload::Lov(Lov::deserialize(d)?),
            _ => XattrPayload::Opaque(crate::serde_helpers::bytes::hex::deserialize(d)?),
        })
    }
}

/// A kind name, checked against [`XATTR_KINDS`].
struct KindSeed;

impl<'de> DeserializeSeed<'de> for KindSeed {
    type Value = &'static str;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<&'static str, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for KindSeed {
    type Value = &'static str;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one of {XATTR_KINDS:?}")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<&'static str, E> {
        XATTR_KINDS
            .iter()
            .find(|k| **k == v)
            .copied()
            .ok_or_else(|| E::unknown_variant(v, &XATTR_KINDS))
    }
}

/// Refuses a `kind` other than the one the attribute `xattr` holds.
fn check_kind<E: de::Error>(xattr: &str, kind: Option<&str>) -> Result<(), E> {
    let holds = xattr_kind(xattr).unwrap_or("opaque");
    match kind {
        Some(kind) if kind != holds => Err(E::custom(format_args!(
            "`xattr` {xattr:?} holds {} {holds} payload, but `kind` is {kind:?}",
            if holds == "acl" || holds == "opaque" {
                "an"
            } else {
                "a"
            }
        ))),
        _ => Ok(()),
    }
}

const FIELDS: &[&str] = &["file", "xattr", "kind", "payload"];

struct DocVisitor;

impl<'de> Visitor<'de> for DocVisitor {
    type Value = XattrDoc;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an xattr document {\"xattr\", \"kind\", \"payload\"}")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<XattrDoc, A::Error> {
        let (mut file, mut xattr, mut kind, mut payload) = (None, None, None, None);
        while let Some(k) = map.next_key::<crate::serde_helpers::bytes::BoundedStr>()? {
            match k.as_str() {
                "file" if file.is_none() => file = Some(map.next_value::<String>()?),
                "xattr" if xattr.is_none() => {
                    let x = map.next_value::<String>()?;
                    check_kind(&x, kind)?;
                    xattr = Some(x);
                }
                "kind" if kind.is_none() => {
                    let k = map.next_value_seed(KindSeed)?;
                    if let Some(x) = &xattr {
                        check_kind(x, Some(k))?;
                    }
                    kind = Some(k);
                }
                "payload" if payload.is_none() => {
                    let Some(kind) = kind else {
                        return Err(de::Error::custom(
                            "`payload` before `kind`: give `kind` first (it says how to read \
                             the payload)",
                        ));
                    };
                    payload = Some(map.next_value_seed(PayloadSeed(kind))?);
                }
                k if FIELDS.contains(&k) => {
                    return Err(de::Error::custom(format_args!("duplicate field `{k}`")));
                }
                k => return Err(de::Error::unknown_field(k, FIELDS)),
            }
        }
        let xattr = xattr.ok_or_else(|| de::Error::missing_field("xattr"))?;
        kind.ok_or_else(|| de::Error::missing_field("kind"))?;
        let payload = payload.ok_or_else(|| de::Error::missing_field("payload"))?;
        Ok(XattrDoc {
            file,
            xattr,
            payload,
        })
    }
}

impl<'de> serde::Deserialize<'de> for XattrDoc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_struct("XattrDoc", FIELDS, DocVisitor)
    }
}
