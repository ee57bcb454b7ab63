//! The unions of a layout, named by what they hold: the `ost_id` of an object
//! (`lustre_ostid.h`) and the 16-bit `lmm_layout_gen`/`lmm_stripe_offset` field
//! (`lustre_user.h`), which the bytes alone do not tell apart.

use super::lov::{FID_SEQ_LOV_DEFAULT, OstId};

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

/// Whose layout a `trusted.lov` is. lfs prints a file's layout and a directory's default
/// differently, and the 16-bit union at offset 30 means different things in them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutOf {
    /// A file's own layout (`lfs getstripe FILE`).
    File,
    /// A directory's default layout, a template (`lfs getstripe DIR`); also what a prepare
    /// reply's MLI_BUF_LOV carries.
    Dir,
}

impl LayoutOf {
    /// `file` or `dir`.
    pub const fn name(self) -> &'static str {
        match self {
            LayoutOf::File => "file",
            LayoutOf::Dir => "dir",
        }
    }
}

/// The 16-bit union at offset 30 of `lov_user_md_v1` named by what it holds (`lod_lov.c`
/// writes the layout generation into a file's instantiated layout, the default stripe offset
/// into a template, a directory's default and an uninstantiated component).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LmmUnion {
    /// `lmm_layout_gen`.
    LayoutGen(u16),
    /// `lmm_stripe_offset` (0xffff: any OST).
    StripeOffset(u16),
}

impl LmmUnion {
    /// The member a layout `of` holds; `instantiated` is false for a component without
    /// `LCME_FL_INIT`.
    pub const fn of(raw: u16, of: LayoutOf, instantiated: bool) -> LmmUnion {
        match (of, instantiated) {
            (LayoutOf::File, true) => LmmUnion::LayoutGen(raw),
            _ => LmmUnion::StripeOffset(raw),
        }
    }
    /// `lmm_layout_gen` or `lmm_stripe_offset`.
    pub const fn name(self) -> &'static str {
        match self {
            LmmUnion::LayoutGen(_) => "lmm_layout_gen",
            LmmUnion::StripeOffset(_) => "lmm_stripe_offset",
        }
    }
    /// The stored value.
    pub const fn value(self) -> u16 {
        match self {
            LmmUnion::LayoutGen(v) | LmmUnion::StripeOffset(v) => v,
        }
    }
    /// Which member this is, without the value.
    pub const fn member(self) -> LmmMember {
        match self {
            LmmUnion::LayoutGen(_) => LmmMember::LayoutGen,
            LmmUnion::StripeOffset(_) => LmmMember::StripeOffset,
        }
    }
}

/// Which member of the union at offset 30 an owned [`LovMd`](super::LovMd) names: only how
/// the value is shown (`lmm_layout_gen` or `lmm_stripe_offset` in its serde form), never
/// what is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum LmmMember {
    /// `lmm_stripe_offset`: a directory default, a template, an uninstantiated component.
    #[default]
    StripeOffset,
    /// `lmm_layout_gen`: a file's instantiated layout.
    LayoutGen,
}

impl LmmMember {
    /// The member a layout `of` holds; `instantiated` is false for a component without
    /// `LCME_FL_INIT` (as [`LmmUnion::of`]).
    pub const fn of(of: LayoutOf, instantiated: bool) -> LmmMember {
        LmmUnion::of(0, of, instantiated).member()
    }
    /// `lmm_layout_gen` or `lmm_stripe_offset`.
    pub const fn name(self) -> &'static str {
        match self {
            LmmMember::LayoutGen => "lmm_layout_gen",
            LmmMember::StripeOffset => "lmm_stripe_offset",
        }
    }
}
