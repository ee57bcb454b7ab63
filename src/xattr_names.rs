//! The names of the extended attributes the crate decodes, as Lustre and Linux spell them: the
//! one list that the results' [`MliBuf::xattr_name`](crate::intent::MliBuf::xattr_name),
//! [`xattr::xattr_kind`](crate::xattr) and the tools read. A leaf: it imports nothing, so the
//! lower modules (`mli_buf`) and `xattr` can both name it.

/// A file's access ACL (`struct posix_acl_xattr_header` and its entries).
pub const ACL_ACCESS: &str = "system.posix_acl_access";
/// A directory's default ACL, the one `MLI_BUF_DEF_ACL` carries.
pub const ACL_DEFAULT: &str = "system.posix_acl_default";
/// The pin of a directory (`MLI_BUF_PIN`).
pub const PIN: &str = "trusted.pin";
/// A directory's striping (`struct lmv_mds_md_v1` or a foreign LMV).
pub const LMV: &str = "trusted.lmv";
/// A file's layout or a directory's default one (`struct lov_user_md`, composite or foreign).
pub const LOV: &str = "trusted.lov";
/// A directory's default striping (`struct lmv_user_md_v1`).
pub const DMV: &str = "trusted.dmv";
