/* SPDX-License-Identifier: MIT */
/*
 * C side of conformance/tests/c_header_order.rs: include/lustre_dne_prepare.h beside Lustre's uapi
 * headers (the stand-in of tests/c/lustre_standin/ on the include path). One of:
 *   -DOURS_FIRST    ours, then <linux/lustre/lustre_idl.h>
 *   -DLUSTRE_FIRST  <linux/lustre/lustre_idl.h>, then ours
 *   (neither)       ours alone
 * and -DEXPECT_LUSTRE_FID (struct lu_fid must be Lustre's) or -DEXPECT_OWN_FID (it must be
 * the header's own copy), and -DEXPECT_LUSTRE_DECLARATIONS (the prepare intent comes from a
 * lustre_idl.h with the lustre-release series) or -DEXPECT_OWN_DECLARATIONS (from the header).
 * Exit 0 when the structures hold a FID and the wirecheck passes.
 */
#if defined(OURS_FIRST)
# include "lustre_dne_prepare.h"
# include <linux/lustre/lustre_idl.h>
# include "lustre_dne_prepare.h"	/* and the guard holds */
#elif defined(LUSTRE_FIRST)
# include <linux/lustre/lustre_idl.h>
# include "lustre_dne_prepare.h"
#else
# include "lustre_dne_prepare.h"
#endif
#include <string.h>

#if defined(EXPECT_LUSTRE_FID) && !defined(_LUSTRE_USER_H)
# error "struct lu_fid should come from Lustre's lustre_user.h"
#endif
#if defined(EXPECT_OWN_FID) && (defined(_LUSTRE_USER_H) || defined(DNE_PREPARE_HAVE_LU_FID))
# error "struct lu_fid should be the header's own copy"
#endif
#if defined(EXPECT_LUSTRE_DECLARATIONS) && !defined(DNE_PREPARE_FROM_LUSTRE_IDL)
# error "the prepare intent should come from Lustre's lustre_idl.h"
#endif
#if defined(EXPECT_OWN_DECLARATIONS) && defined(DNE_PREPARE_FROM_LUSTRE_IDL)
# error "the prepare intent should come from the header"
#endif

int main(void)
{
	struct lu_fid fid = { 0x200000401ULL, 0x2a, 0 };
	struct md_create_prepare_req req;
	struct md_create_prepare_rep rep;

	memset(&req, 0, sizeof(req));
	memset(&rep, 0, sizeof(rep));
	/* Plain assignment: the members are of the very type the caller names. */
	req.mcpr_fid = fid;
	rep.mcpp_fid = req.mcpr_fid;
#ifdef _LUSTRE_IDL_H_
	{
		/* Lustre's own helpers and structures take the header's FIDs. */
		struct ldlm_res_id res;
		struct lustre_handle lh = { 0 };

		memset(&res, 0, sizeof(res));
		res.name[LUSTRE_RES_ID_SEQ_OFF] = rep.mcpp_fid.f_seq;
		res.name[LUSTRE_RES_ID_VER_OID_OFF] =
			(__u64)rep.mcpp_fid.f_ver << 32 | rep.mcpp_fid.f_oid;
		if (fid_is_zero(&rep.mcpp_fid) || lh.cookie != 0 ||
		    res.name[LUSTRE_RES_ID_VER_OID_OFF] != 0x2a)
			return 1;
	}
#endif
	/* The names of either source, as enumerators: usable in constant expressions. */
	req.mcpr_flags = MCPR_NO_LOOKUP | MCPR_GROUPS_PARTIAL;
	rep.mcpp_valid = 1u << MLI_BUF_LOV;
	if (req.mcpr_flags != 3 || rep.mcpp_valid != 0x10 ||
	    IT_DNE_CREATE_PREPARE != 0x00010000)
		return 4;
	if (rep.mcpp_fid.f_seq != 0x200000401ULL || rep.mcpp_fid.f_oid != 0x2a ||
	    rep.mcpp_fid.f_ver != 0)
		return 2;
	return dne_prepare_wirecheck() == 0 ? 0 : 3;
}
