//! POSIX file mode bits, as carried in `mcpr_child_mode`, `mcpp_child_mode` and `mbo_mode`.

/// `LUSTRE_IMMUTABLE_FL`, an inode flag (`mbo_flags`, `mcpp_child_flags`).
pub const LUSTRE_IMMUTABLE_FL: u32 = 0x10;
/// `LUSTRE_APPEND_FL`, an inode flag.
pub const LUSTRE_APPEND_FL: u32 = 0x20;
/// `LUSTRE_PROJINHERIT_FL`, an inode flag: the one a new child inherits, and only a directory
/// (`mdd_create_sanity_check`).
pub const LUSTRE_PROJINHERIT_FL: u32 = 0x2000_0000;

/// File type mask.
pub const S_IFMT: u32 = 0o170000;
/// Socket.
pub const S_IFSOCK: u32 = 0o140000;
/// Symbolic link.
pub const S_IFLNK: u32 = 0o120000;
/// Regular file.
pub const S_IFREG: u32 = 0o100000;
/// Block device.
pub const S_IFBLK: u32 = 0o060000;
/// Directory.
pub const S_IFDIR: u32 = 0o040000;
/// Character device.
pub const S_IFCHR: u32 = 0o020000;
/// FIFO.
pub const S_IFIFO: u32 = 0o010000;
/// Set-user-ID.
pub const S_ISUID: u32 = 0o4000;
/// Set-group-ID.
pub const S_ISGID: u32 = 0o2000;
/// Sticky.
pub const S_ISVTX: u32 = 0o1000;
/// Group execute.
pub const S_IXGRP: u32 = 0o010;

/// True when `mode`'s type bits name one of the seven file types.
pub const fn is_valid_type(mode: u32) -> bool {
    matches!(
        mode & S_IFMT,
        S_IFREG | S_IFDIR | S_IFLNK | S_IFCHR | S_IFBLK | S_IFIFO | S_IFSOCK
    )
}

/// The `ls -l` letter of a file type, `?` when unknown.
pub const fn type_char(mode: u32) -> char {
    match mode & S_IFMT {
        S_IFREG => '-',
        S_IFDIR => 'd',
        S_IFLNK => 'l',
        S_IFCHR => 'c',
        S_IFBLK => 'b',
        S_IFIFO => 'p',
        S_IFSOCK => 's',
        _ => '?',
    }
}

/// The name of a file type (`"S_IFDIR"`), or `None` when unknown.
pub const fn type_name(mode: u32) -> Option<&'static str> {
    match mode & S_IFMT {
        S_IFREG => Some("S_IFREG"),
        S_IFDIR => Some("S_IFDIR"),
        S_IFLNK => Some("S_IFLNK"),
        S_IFCHR => Some("S_IFCHR"),
        S_IFBLK => Some("S_IFBLK"),
        S_IFIFO => Some("S_IFIFO"),
        S_IFSOCK => Some("S_IFSOCK"),
        _ => None,
    }
}
