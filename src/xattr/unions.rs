//! The union of a layout named by what it holds: the 16-bit `lmm_layout_gen`/
//! `lmm_stripe_offset` field (`lustre_user.h`), which the bytes alone do not tell apart.

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

impl Default for LmmUnion {
    /// `lmm_stripe_offset` 0, as a zeroed `lov_user_md` reads in a template.
    fn default() -> Self {
        LmmUnion::StripeOffset(0)
    }
}

impl LmmUnion {
    /// The union named `member`, holding `raw`.
    pub const fn named(raw: u16, member: LmmMember) -> LmmUnion {
        match member {
            LmmMember::StripeOffset => LmmUnion::StripeOffset(raw),
            LmmMember::LayoutGen => LmmUnion::LayoutGen(raw),
        }
    }
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

/// Which member of the union at offset 30 a layout holds, without the value.
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
