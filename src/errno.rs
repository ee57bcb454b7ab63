//! Linux errno numbers by name, for statuses carried on the wire (`pb_status`, `mcpp_status`).

use core::fmt;

/// A positive Linux errno number that prints as its symbolic name (`EEXIST`), or as `errno N`
/// when it has none in this table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrnoName(pub i32);

const NAMES: &[(i32, &str)] = &[
    (1, "EPERM"),
    (2, "ENOENT"),
    (5, "EIO"),
    (7, "E2BIG"),
    (9, "EBADF"),
    (11, "EAGAIN"),
    (12, "ENOMEM"),
    (13, "EACCES"),
    (14, "EFAULT"),
    (16, "EBUSY"),
    (17, "EEXIST"),
    (18, "EXDEV"),
    (20, "ENOTDIR"),
    (21, "EISDIR"),
    (22, "EINVAL"),
    (24, "EMFILE"),
    (27, "EFBIG"),
    (28, "ENOSPC"),
    (30, "EROFS"),
    (31, "EMLINK"),
    (34, "ERANGE"),
    (36, "ENAMETOOLONG"),
    (39, "ENOTEMPTY"),
    (61, "ENODATA"),
    (71, "EPROTO"),
    (75, "EOVERFLOW"),
    (95, "EOPNOTSUPP"),
    (107, "ENOTCONN"),
    (110, "ETIMEDOUT"),
    (114, "EALREADY"),
    (116, "ESTALE"),
    (122, "EDQUOT"),
];

impl ErrnoName {
    /// The name of a status: `-17` and `17` both give `EEXIST`.
    pub fn of_status(status: i32) -> Self {
        ErrnoName(status.checked_abs().unwrap_or(i32::MAX))
    }

    /// The symbolic name, when known.
    pub fn name(self) -> Option<&'static str> {
        NAMES.iter().find(|(n, _)| *n == self.0).map(|&(_, s)| s)
    }

    /// The number for a symbolic name.
    pub fn from_name(name: &str) -> Option<Self> {
        NAMES
            .iter()
            .find(|(_, s)| *s == name)
            .map(|&(n, _)| ErrnoName(n))
    }
}

impl fmt::Display for ErrnoName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(n) => f.write_str(n),
            None => write!(f, "errno {}", self.0),
        }
    }
}

/// Errno values the model and the tool name directly.
pub mod codes {
    /// Operation not permitted.
    pub const EPERM: i32 = 1;
    /// No such file or directory.
    pub const ENOENT: i32 = 2;
    /// Permission denied.
    pub const EACCES: i32 = 13;
    /// File exists.
    pub const EEXIST: i32 = 17;
    /// Not a directory.
    pub const ENOTDIR: i32 = 20;
    /// Invalid argument.
    pub const EINVAL: i32 = 22;
    /// File name too long.
    pub const ENAMETOOLONG: i32 = 36;
    /// Directory not empty.
    pub const ENOTEMPTY: i32 = 39;
    /// Protocol error: what an MDT answers an unknown intent opcode with.
    pub const EPROTO: i32 = 71;
}
