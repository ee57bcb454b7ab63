/* SPDX-License-Identifier: MIT */
/*
 * Test stand-in for Lustre's <linux/lustre/lustre_user.h>: the same include guard, and
 * struct lu_fid with Lustre's layout and attribute. Written for conformance/tests/c_header_order.rs;
 * see tests/c/lustre_standin/README.md.
 */
#ifndef _LUSTRE_USER_H
#define _LUSTRE_USER_H

#ifndef __KERNEL__
# include <stdbool.h>
#endif
#include <linux/types.h>

/* Lustre defines the FID here, inside the file's guard only. */
struct lu_fid {
	__u64 f_seq;
	__u32 f_oid;
	__u32 f_ver;
} __attribute__((packed));

static inline bool fid_is_zero(const struct lu_fid *fid)
{
	return (fid->f_seq | fid->f_oid) == 0;
}

#endif /* _LUSTRE_USER_H */
