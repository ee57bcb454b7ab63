#!/bin/sh
# Regenerates the kernel-produced POSIX ACL vectors (xattr_acl_*.bin): each ACL is set with
# setfacl on a scratch file under /tmp, read back with `getfattr -e hex`, and the hex is
# converted to bytes. Run from testdata/. Needs setfacl/getfattr and a filesystem with ACLs.
set -eu
out=$(pwd)
d=$(mktemp -d /tmp/xattr-acl.XXXXXX)
trap 'rm -rf "$d"' EXIT
cd "$d"

dump() { # file xattr-name output.bin
    getfattr -e hex -n "$2" "$1" | sed -n "s/^$2=0x//p" | xxd -r -p > "$out/$3"
}

# 1. An access ACL on a regular file.
touch access && chmod 0640 access
setfacl -m u:1001:rw-,u:1000:r-x,g:2000:r--,m::rwx,o::r-- access
dump access system.posix_acl_access xattr_acl_access.bin

# 2. A default ACL on a directory.
mkdir default
setfacl -d -m u::rwx,g::r-x,o::---,u:1000:rwx,g:100:rwx,m::r-x default
dump default system.posix_acl_default xattr_acl_default.bin

# 3. 32 entries: USER_OBJ, 14 users, GROUP_OBJ, 14 groups, MASK, OTHER.
touch e32
spec=""
for i in $(seq 1 14); do spec="$spec,u:$((2000 + i)):r--,g:$((3000 + i)):-w-"; done
setfacl -m "u::rw-,g::r--,o::---,m::rw-$spec" e32
dump e32 system.posix_acl_access xattr_acl_32.bin

# 4. A large ACL: 200 named users and 200 named groups (404 entries, 3236 bytes).
touch large
spec=""
for i in $(seq 1 200); do spec="$spec,u:$((10000 + 7 * i)):r-x,g:$((20000 + 3 * i)):rw-"; done
setfacl -m "u::rwx,g::r-x,o::r--,m::rwx$spec" large
dump large system.posix_acl_access xattr_acl_large.bin
