/* SPDX-License-Identifier: MIT */
/*
 * Test stand-in for Lustre's <linux/lustre/lustre_idl.h>: the same include guard, the same
 * include of lustre_user.h (where struct lu_fid lives), and the few LDLM names a translation
 * unit that uses the prepare intent touches. Written for conformance/tests/c_header_order.rs.
 */
#ifndef _LUSTRE_IDL_H_
#define _LUSTRE_IDL_H_

#include <linux/types.h>
#include <linux/lustre/lustre_user.h>

struct lustre_handle {
	__u64 cookie;
};

enum {
	LUSTRE_RES_ID_SEQ_OFF = 0,
	LUSTRE_RES_ID_VER_OID_OFF = 1,
	LUSTRE_RES_ID_HSH_OFF = 3
};

#define RES_NAME_SIZE 4
struct ldlm_res_id {
	__u64 name[RES_NAME_SIZE];
};

#endif /* _LUSTRE_IDL_H_ */
