//! Linux errno numbers by name, for statuses carried on the wire (`pb_status`, `mcpp_status`):
//! `errno::EEXIST` is 17, and [`ErrnoName`] prints a status as its name.

use core::fmt;

/// A positive Linux errno number that prints as its symbolic name (`EEXIST`), or as `errno N`
/// when it has none in this table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ErrnoName(pub i32);

/// Declares each errno once: a constant of that name, and its row in the table of names.
macro_rules! errnos {
    ($($(#[$doc:meta])* $name:ident = $value:literal;)*) => {
        $($(#[$doc])* pub const $name: i32 = $value;)*
        const NAMES: &[(i32, &str)] = &[$(($value, stringify!($name))),*];
    };
}

errnos! {
    /// Operation not permitted.
    EPERM = 1;
    /// No such file or directory.
    ENOENT = 2;
    /// I/O error.
    EIO = 5;
    /// Argument list too long.
    E2BIG = 7;
    /// Bad file number.
    EBADF = 9;
    /// Try again.
    EAGAIN = 11;
    /// Out of memory.
    ENOMEM = 12;
    /// Permission denied.
    EACCES = 13;
    /// Bad address.
    EFAULT = 14;
    /// Device or resource busy.
    EBUSY = 16;
    /// File exists.
    EEXIST = 17;
    /// Cross-device link.
    EXDEV = 18;
    /// Not a directory.
    ENOTDIR = 20;
    /// Is a directory.
    EISDIR = 21;
    /// Invalid argument.
    EINVAL = 22;
    /// Too many open files.
    EMFILE = 24;
    /// File too large.
    EFBIG = 27;
    /// No space left on device.
    ENOSPC = 28;
    /// Read-only file system.
    EROFS = 30;
    /// Too many links.
    EMLINK = 31;
    /// Math result not representable.
    ERANGE = 34;
    /// File name too long.
    ENAMETOOLONG = 36;
    /// Directory not empty.
    ENOTEMPTY = 39;
    /// No data available.
    ENODATA = 61;
    /// Protocol error: what an MDT answers an unknown intent opcode with.
    EPROTO = 71;
    /// Value too large for defined data type.
    EOVERFLOW = 75;
    /// Operation not supported.
    EOPNOTSUPP = 95;
    /// Transport endpoint is not connected.
    ENOTCONN = 107;
    /// Connection timed out.
    ETIMEDOUT = 110;
    /// Operation already in progress.
    EALREADY = 114;
    /// Stale file handle.
    ESTALE = 116;
    /// Quota exceeded.
    EDQUOT = 122;
}

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
