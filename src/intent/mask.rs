//! The optional results of a prepare reply (WIRE.md §6): their indices, their bitmask, and the
//! three states every layer keeps apart.

pub use crate::mli_buf::{MliBuf, ResultMask};

/// Why a result is unknown: the coordinator reads that one item itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case", deny_unknown_fields)
)]
pub enum UnknownReason {
    /// The reply carried no prepare result at all (the empty result).
    EmptyResult,
    /// Not requested, or not read by the handler: valid and truncated bits both clear.
    NotProvided,
    /// It exists but exceeded the requester's limit; `size` is its real size.
    Truncated {
        /// `mcpp_buf_size[i]`.
        size: u32,
    },
}

/// The state of one optional result. Never an empty slice standing for "unknown".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "arbitrary", derive(arbitrary::Arbitrary))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum PrepResult<T> {
    /// Known, present: the value, authoritative under the granted lock.
    Present(T),
    /// Known, absent: the object has no such xattr (a negative cache entry).
    Absent,
    /// Unknown: the coordinator must read it.
    Unknown(UnknownReason),
}

impl<T> PrepResult<T> {
    /// True for `Present` and `Absent`.
    pub const fn is_known(&self) -> bool {
        !matches!(self, PrepResult::Unknown(_))
    }

    /// The value, when present.
    pub fn present(self) -> Option<T> {
        match self {
            PrepResult::Present(v) => Some(v),
            _ => None,
        }
    }

    /// Maps the present value.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> PrepResult<U> {
        match self {
            PrepResult::Present(v) => PrepResult::Present(f(v)),
            PrepResult::Absent => PrepResult::Absent,
            PrepResult::Unknown(r) => PrepResult::Unknown(r),
        }
    }

    /// Short state name: `present`, `absent`, `unknown` or `truncated`.
    pub const fn state_name(&self) -> &'static str {
        match self {
            PrepResult::Present(_) => "present",
            PrepResult::Absent => "absent",
            PrepResult::Unknown(UnknownReason::Truncated { .. }) => "truncated",
            PrepResult::Unknown(_) => "unknown",
        }
    }
}
