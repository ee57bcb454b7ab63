//! ACL permission evaluation, `posix_acl_equiv_mode` and the masq of a create.

use super::*;

#[test]
fn acl_permission_rules() {
    // owner 100:200; user 300 rwx; group 200 (owning) r--; group 400 rw-; mask r-x; other --x.
    let b = acl(&[
        (1, 6, U),
        (2, 7, 300),
        (4, 4, U),
        (8, 6, 400),
        (0x10, 5, U),
        (0x20, 1, U),
    ]);
    let v = AclView::parse(&b).unwrap();
    let c = |fsuid, fsgid, groups: &'static [u32]| Credentials {
        fsuid,
        fsgid,
        groups,
    };
    let p = |cred: Credentials<'_>, want| v.permission(100, 200, &cred, want).unwrap();
    // The owner gets USER_OBJ, no mask.
    let r = p(c(100, 1, &[]), MAY_READ | MAY_WRITE);
    assert_eq!(
        (r.allowed, r.class, r.groups_consulted),
        (true, AclClass::Owner, false)
    );
    assert!(!p(c(100, 1, &[]), MAY_EXEC).allowed);
    // A named user is capped by the mask.
    let r = p(c(300, 1, &[]), MAY_READ | MAY_EXEC);
    assert_eq!((r.allowed, r.class), (true, AclClass::NamedUser));
    assert!(!p(c(300, 1, &[]), MAY_WRITE).allowed);
    // Owning group r--.
    let r = p(c(5, 200, &[]), MAY_READ);
    assert_eq!(
        (r.allowed, r.class, r.groups_consulted),
        (true, AclClass::Group, true)
    );
    // Group 400 grants rw- but the mask removes w: denied.
    assert!(!p(c(5, 1, &[400]), MAY_WRITE).allowed);
    // A member of 200 and 400 wanting read: the first granting entry wins.
    assert!(p(c(5, 200, &[400]), MAY_READ).allowed);
    // A group match that grants nothing denies, even though OTHER grants x.
    let r = p(c(5, 200, &[]), MAY_EXEC);
    assert_eq!((r.allowed, r.class), (false, AclClass::Group));
    // Nobody: OTHER.
    let r = p(c(5, 1, &[]), MAY_EXEC);
    assert_eq!((r.allowed, r.class), (true, AclClass::Other));
    assert!(!p(c(5, 1, &[]), MAY_READ).allowed);
}

#[test]
fn acl_equiv_mode_and_masq() {
    let v = acl(&[(1, 7, U), (4, 5, U), (0x20, 4, U)]);
    let v = AclView::parse(&v).unwrap();
    assert_eq!(
        v.equiv_mode(),
        Some(EquivMode {
            mode: 0o754,
            equivalent: true
        })
    );
    assert_eq!(Acl::from_mode(0o754), v.to_value());
    let m = acl(&[(1, 7, U), (4, 5, U), (0x10, 1, U), (0x20, 4, U)]);
    let m = AclView::parse(&m).unwrap();
    assert_eq!(
        m.equiv_mode(),
        Some(EquivMode {
            mode: 0o714,
            equivalent: false
        })
    );
    // Without MASK, create_masq uses GROUP_OBJ and drops the ACL on Linux.
    let mut a = v.to_value();
    let (mode, keep) = a.create_masq(0o100666);
    assert_eq!((mode, keep), (0o100644, false));
    assert_eq!(a, Acl::from_mode(0o644));
    // Under a default ACL the umask is ignored: rwx everywhere keeps the requested 0666.
    let d = acl(&[(1, 7, U), (4, 7, U), (0x10, 7, U), (0x20, 7, U)]);
    let d = AclView::parse(&d).unwrap();
    let c = posix_acl_create(Some(&d), 0o100666, 0o022);
    assert_eq!(c.mode, 0o100666);
}
