//! TEMPORARY stand-in for `lustre_dne_intent::wire::layout`, the crate's layout tables.
//!
//! The tables are being written meanwhile; this file gives the generator exactly their API
//! (`Layout`, `Field`, `ArrayLen`, `FieldType`, `ALL`) for the three structures the series
//! needs, built from today's code: offsets from the zerocopy raw structures through
//! `core::mem::offset_of!` (as `cheader` reads them), sizes from the offset of the next member,
//! flag names from `McprFlags::NAMED`/`McppFlags::NAMED`. The generator reaches it through a
//! single `use` in `mod.rs`; once the tables exist that line names `wire::layout` instead and
//! this file goes.
// It mirrors the whole contracted API, parts of which the generator does not use.
#![allow(dead_code)]

use lustre_dne_intent::intent::body::{MdCreatePrepareRepRaw, MdCreatePrepareReqRaw};
use lustre_dne_intent::intent::{McppFlags, McprFlags};
use lustre_dne_intent::limits::MLI_BUF_MAX;
use lustre_dne_intent::wire::raw::LuFidRaw;
use zerocopy::LittleEndian;

/// One fixed-size Lustre structure as C declares it and as the crate lays it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// C struct name without `struct `.
    pub name: &'static str,
    /// sizeof in bytes.
    pub size: usize,
    /// One-line description.
    pub doc: &'static str,
    /// Every member in offset order, padding and reserved members included.
    pub fields: &'static [Field],
}

/// One member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    /// C member name.
    pub name: &'static str,
    /// The Rust value field that holds it; `None` for padding/reserved members.
    pub rust: Option<&'static str>,
    /// Byte offset in the structure.
    pub offset: usize,
    /// Size of the whole member in bytes.
    pub size: usize,
    /// Type of one element.
    pub ty: FieldType,
    /// For an array member: its C length expression and value.
    pub array: Option<ArrayLen>,
    /// For a flags member: the (C name, value) of each known bit.
    pub names: Option<&'static [(&'static str, u64)]>,
    /// One-line description.
    pub doc: &'static str,
}

/// The length of an array member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArrayLen {
    /// The C expression of the length ("" for a literal).
    pub c_name: &'static str,
    /// Its value.
    pub len: usize,
}

/// Type of one element of a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    /// `__u8`
    U8,
    /// `__u16`
    U16,
    /// `__u32`
    U32,
    /// `__u64`
    U64,
    /// `__s32`
    S32,
    /// `__s64`
    S64,
    /// An embedded structure.
    Struct(&'static Layout),
}

impl FieldType {
    /// The C type: `__u32`, …, or the layout name for a structure.
    pub const fn c_type(&self) -> &'static str {
        match self {
            FieldType::U8 => "__u8",
            FieldType::U16 => "__u16",
            FieldType::U32 => "__u32",
            FieldType::U64 => "__u64",
            FieldType::S32 => "__s32",
            FieldType::S64 => "__s64",
            FieldType::Struct(l) => l.name,
        }
    }

    /// Size of one element.
    pub const fn size(&self) -> usize {
        match self {
            FieldType::U8 => 1,
            FieldType::U16 => 2,
            FieldType::U32 | FieldType::S32 => 4,
            FieldType::U64 | FieldType::S64 => 8,
            FieldType::Struct(l) => l.size,
        }
    }
}

impl Layout {
    /// The member named `name`.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// `NAMED` tables widened to u64, as the tables carry them.
const fn widen<const N: usize>(named: &[(&'static str, u32)]) -> [(&'static str, u64); N] {
    let mut out = [("", 0u64); N];
    let mut i = 0;
    while i < N {
        out[i] = (named[i].0, named[i].1 as u64);
        i += 1;
    }
    out
}

const MCPR_NAMES: [(&str, u64); McprFlags::NAMED.len()] = widen(McprFlags::NAMED);
const MCPP_NAMES: [(&str, u64); McppFlags::NAMED.len()] = widen(McppFlags::NAMED);

const MLI: Option<ArrayLen> = Some(ArrayLen {
    c_name: "MLI_BUF_MAX",
    len: MLI_BUF_MAX,
});

/// One member: its size is the distance to the next member's offset (`end`).
macro_rules! member {
    ($raw:ty, $f:ident, $end:expr, $rust:expr, $ty:expr, $array:expr, $names:expr, $doc:literal) => {
        Field {
            name: stringify!($f),
            rust: $rust,
            offset: core::mem::offset_of!($raw, $f),
            size: $end - core::mem::offset_of!($raw, $f),
            ty: $ty,
            array: $array,
            names: $names,
            doc: $doc,
        }
    };
}

type Fid = LuFidRaw<LittleEndian>;
type Req = MdCreatePrepareReqRaw<LittleEndian>;
type Rep = MdCreatePrepareRepRaw<LittleEndian>;

/// `struct lu_fid`.
pub const LU_FID: Layout = Layout {
    name: "lu_fid",
    size: size_of::<Fid>(),
    doc: "File identifier (lustre_user.h)",
    fields: &[
        member!(
            Fid,
            f_seq,
            core::mem::offset_of!(Fid, f_oid),
            Some("seq"),
            FieldType::U64,
            None,
            None,
            "sequence"
        ),
        member!(
            Fid,
            f_oid,
            core::mem::offset_of!(Fid, f_ver),
            Some("oid"),
            FieldType::U32,
            None,
            None,
            "object id within the sequence"
        ),
        member!(
            Fid,
            f_ver,
            size_of::<Fid>(),
            Some("ver"),
            FieldType::U32,
            None,
            None,
            "version, 0 for normal FIDs"
        ),
    ],
};

/// `struct md_create_prepare_req`.
pub const MD_CREATE_PREPARE_REQ: Layout = Layout {
    name: "md_create_prepare_req",
    size: size_of::<Req>(),
    doc: "Request buffer 3 of an IT_DNE_*_PREPARE enqueue",
    fields: &[
        member!(
            Req,
            mcpr_fid,
            core::mem::offset_of!(Req, mcpr_flags),
            Some("fid"),
            FieldType::Struct(&LU_FID),
            None,
            None,
            "parent (entry mode) or object (object mode); the lock's FID"
        ),
        member!(
            Req,
            mcpr_flags,
            core::mem::offset_of!(Req, mcpr_fsuid),
            Some("flags"),
            FieldType::U32,
            None,
            Some(&MCPR_NAMES),
            "MCPR_*"
        ),
        member!(
            Req,
            mcpr_fsuid,
            core::mem::offset_of!(Req, mcpr_fsgid),
            Some("fsuid"),
            FieldType::U32,
            None,
            None,
            "caller's fsuid, already mapped"
        ),
        member!(
            Req,
            mcpr_fsgid,
            core::mem::offset_of!(Req, mcpr_umask),
            Some("fsgid"),
            FieldType::U32,
            None,
            None,
            "caller's fsgid"
        ),
        member!(
            Req,
            mcpr_umask,
            core::mem::offset_of!(Req, mcpr_cap),
            Some("umask"),
            FieldType::U32,
            None,
            None,
            "only bits 0777"
        ),
        member!(
            Req,
            mcpr_cap,
            core::mem::offset_of!(Req, mcpr_child_mode),
            Some("cap"),
            FieldType::U64,
            None,
            None,
            "effective capabilities, bit n = capability n"
        ),
        member!(
            Req,
            mcpr_child_mode,
            core::mem::offset_of!(Req, mcpr_padding0),
            Some("child_mode"),
            FieldType::U32,
            None,
            None,
            "create: mode with S_IFMT before umask; else 0"
        ),
        member!(
            Req,
            mcpr_padding0,
            core::mem::offset_of!(Req, mcpr_buf_limit),
            None,
            FieldType::U32,
            None,
            None,
            "zero"
        ),
        member!(
            Req,
            mcpr_buf_limit,
            core::mem::offset_of!(Req, mcpr_padding1),
            Some("buf_limit"),
            FieldType::U32,
            MLI,
            None,
            "bytes accepted per result, 0 = not requested"
        ),
        member!(
            Req,
            mcpr_padding1,
            size_of::<Req>(),
            None,
            FieldType::U64,
            None,
            None,
            "zero"
        ),
    ],
};

/// `struct md_create_prepare_rep`.
pub const MD_CREATE_PREPARE_REP: Layout = Layout {
    name: "md_create_prepare_rep",
    size: size_of::<Rep>(),
    doc: "Reply buffer 2 of an IT_DNE_*_PREPARE enqueue; an empty buffer 2 is the empty result",
    fields: &[
        member!(
            Rep,
            mcpp_status,
            core::mem::offset_of!(Rep, mcpp_flags),
            Some("status"),
            FieldType::S32,
            None,
            None,
            "0 or the operation's negative errno"
        ),
        member!(
            Rep,
            mcpp_flags,
            core::mem::offset_of!(Rep, mcpp_valid),
            Some("flags"),
            FieldType::U32,
            None,
            Some(&MCPP_NAMES),
            "MCPP_*"
        ),
        member!(
            Rep,
            mcpp_valid,
            core::mem::offset_of!(Rep, mcpp_truncated),
            Some("valid"),
            FieldType::U32,
            None,
            None,
            "results known: bit i = MLI_BUF index i"
        ),
        member!(
            Rep,
            mcpp_truncated,
            core::mem::offset_of!(Rep, mcpp_fid),
            Some("truncated"),
            FieldType::U32,
            None,
            None,
            "results over the requester's limit"
        ),
        member!(
            Rep,
            mcpp_fid,
            core::mem::offset_of!(Rep, mcpp_child_mode),
            Some("fid"),
            FieldType::Struct(&LU_FID),
            None,
            None,
            "entry found by the lookup, zero otherwise"
        ),
        member!(
            Rep,
            mcpp_child_mode,
            core::mem::offset_of!(Rep, mcpp_child_gid),
            Some("child_mode"),
            FieldType::U32,
            None,
            None,
            "derived child mode, or S_IFMT of the entry found"
        ),
        member!(
            Rep,
            mcpp_child_gid,
            core::mem::offset_of!(Rep, mcpp_child_projid),
            Some("child_gid"),
            FieldType::U32,
            None,
            None,
            "derived child gid"
        ),
        member!(
            Rep,
            mcpp_child_projid,
            core::mem::offset_of!(Rep, mcpp_child_flags),
            Some("child_projid"),
            FieldType::U32,
            None,
            None,
            "derived child project id"
        ),
        member!(
            Rep,
            mcpp_child_flags,
            core::mem::offset_of!(Rep, mcpp_buf_size),
            Some("child_flags"),
            FieldType::U32,
            None,
            None,
            "derived LUSTRE_*_FL of the child"
        ),
        member!(
            Rep,
            mcpp_buf_size,
            core::mem::offset_of!(Rep, mcpp_padding),
            Some("buf_size"),
            FieldType::U32,
            MLI,
            None,
            "size of each result on the parent"
        ),
        member!(
            Rep,
            mcpp_padding,
            size_of::<Rep>(),
            None,
            FieldType::U64,
            None,
            None,
            "zero"
        ),
    ],
};

/// Every structure the shim declares, in dependency order.
pub const ALL: &[&Layout] = &[&LU_FID, &MD_CREATE_PREPARE_REQ, &MD_CREATE_PREPARE_REP];
