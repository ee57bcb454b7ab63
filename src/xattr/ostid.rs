//! `struct ost_id` (`lustre_ostid.h`): an object's id on an OST, a union of `{oi_id, oi_seq}`
//! and a FID that the bytes alone do not tell apart; [`OstIdForm`] names which member it holds.

use crate::wire::table::c_struct;
use zerocopy::LittleEndian;

/// `FID_SEQ_LOV_DEFAULT`: the `oi_seq` of a layout the MDT made up from the file system's
/// defaults.
pub const FID_SEQ_LOV_DEFAULT: u64 = u64::MAX;

/// An object id (`struct ost_id`), kept as its two 64-bit words.
#[c_struct(ost_id, size = 16,
    doc = "An object's id on an OST (lustre_ostid.h): oi_id/oi_seq, or a FID.",
    raw = OstIdWire)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
pub struct OstId {
    /// oi.oi_id (oi_fid.f_seq of the FID form)
    #[c(0, __u64 oi_id, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub id: u64,
    /// oi.oi_seq (f_oid and f_ver of the FID form)
    #[c(8, __u64 oi_seq, hex)]
    #[cfg_attr(feature = "serde", serde(with = "crate::serde_helpers::ints::hex"))]
    pub seq: u64,
}

/// [`OstIdWire`] as stored: layouts are little-endian on every host.
pub type OstIdRaw = OstIdWire<LittleEndian>;

impl OstId {
    pub(crate) fn from_raw(r: &OstIdRaw) -> Self {
        OstId {
            id: r.oi_id.get(),
            seq: r.oi_seq.get(),
        }
    }
    /// The same 16 bytes read as a FID (`oi_fid`): `f_seq` is bytes 0–7.
    pub const fn as_fid(&self) -> crate::wire::LuFid {
        crate::wire::LuFid::new(self.id, self.seq as u32, (self.seq >> 32) as u32)
    }
}

/// Which member of the `ost_id` union an object id holds (`lustre_ostid.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum OstIdForm {
    /// `{oi_id, oi_seq = 0}`: a pre-2.4 object on the OST's MDT0 sequence.
    Legacy,
    /// `oi_seq` = `FID_SEQ_LOV_DEFAULT`.
    LovDefault,
    /// The FID form with `f_seq` in the IDIF range 0x1_0000_0000..=0x1_FFFF_FFFF.
    Idif,
    /// The FID form on a FID sequence (a 2.4+ OST with FID-on-OST).
    Fid,
}

impl OstIdForm {
    /// `legacy`, `lov_default`, `idif` or `fid`.
    pub const fn name(self) -> &'static str {
        match self {
            OstIdForm::Legacy => "legacy",
            OstIdForm::LovDefault => "lov_default",
            OstIdForm::Idif => "idif",
            OstIdForm::Fid => "fid",
        }
    }
}

impl OstId {
    /// Which union member the words hold, by the rules of `ostid_seq()`/`ostid_id()`.
    pub const fn form(&self) -> OstIdForm {
        if self.seq == 0 {
            OstIdForm::Legacy
        } else if self.seq == FID_SEQ_LOV_DEFAULT {
            OstIdForm::LovDefault
        } else if self.id >= 0x1_0000_0000 && self.id <= 0x1_FFFF_FFFF {
            OstIdForm::Idif
        } else {
            OstIdForm::Fid
        }
    }
    /// `ostid_seq()`: the object's sequence. An IDIF object is on sequence 0, as a legacy one.
    pub const fn ostid_seq(&self) -> u64 {
        match self.form() {
            OstIdForm::Legacy | OstIdForm::Idif => 0,
            OstIdForm::LovDefault => FID_SEQ_LOV_DEFAULT,
            OstIdForm::Fid => self.id,
        }
    }
    /// `ostid_id()`: the object's id in its sequence.
    pub const fn ostid_id(&self) -> u64 {
        match self.form() {
            OstIdForm::Legacy => self.id & 0xFFFF_FFFF_FFFF,
            OstIdForm::LovDefault => self.id,
            // fid_idif_id(seq, oid, 0): the OST index bits are dropped.
            OstIdForm::Idif => ((self.id & 0xffff) << 32) | (self.seq & 0xFFFF_FFFF),
            OstIdForm::Fid => self.seq & 0xFFFF_FFFF,
        }
    }
    /// `ostid_to_fid()`: the object's FID on OST `ost_idx`, `None` where Lustre's conversion
    /// fails (an index over 0xFFFF, a legacy id over 48 bits, the LOV default, a FID version).
    pub const fn to_fid(&self, ost_idx: u32) -> Option<crate::wire::LuFid> {
        if ost_idx > 0xffff {
            return None;
        }
        let (seq, id) = (self.ostid_seq(), self.ostid_id());
        match self.form() {
            OstIdForm::Legacy | OstIdForm::Idif => {
                if id > 0xFFFF_FFFF_FFFF {
                    return None;
                }
                // The IDIF FID: 0x1_0000_0000 | OST index << 16 | id bits 32–47.
                Some(crate::wire::LuFid::new(
                    0x1_0000_0000 | ((ost_idx as u64) << 16) | ((id >> 32) & 0xffff),
                    id as u32,
                    (id >> 48) as u32,
                ))
            }
            OstIdForm::LovDefault => None,
            OstIdForm::Fid => {
                let fid = self.as_fid();
                if fid.ver != 0 {
                    return None;
                }
                Some(crate::wire::LuFid::new(seq, fid.oid, 0))
            }
        }
    }
}
