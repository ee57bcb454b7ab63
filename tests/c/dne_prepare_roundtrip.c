/* SPDX-License-Identifier: MIT */
/*
 * C side of conformance/tests/c_interop.rs. Uses nothing but include/lustre_dne_prepare.h and libc.
 *
 *   dne_prepare_roundtrip wirecheck
 *	run dne_prepare_wirecheck(); exit 0 when every size, offset and constant matches
 *   dne_prepare_roundtrip pack REQ_FILE REP_FILE
 *	pack a md_create_prepare_req and a md_create_prepare_rep (host order) and write them
 *   dne_prepare_roundtrip check-req REQ_FILE
 *	read a md_create_prepare_req the crate encoded and check every field (exit 1 if not)
 *
 * The values are mirrored in conformance/tests/c_interop.rs.
 */
#include <stdio.h>
#include <string.h>

#define DNE_PREPARE_WIRECHECK_FAIL(what, found, expected)			\
	fprintf(stderr, "wirecheck: %s is %llu, expected %llu\n", what,	\
		found, expected)
#include "lustre_dne_prepare.h"

static int failures;

#define EXPECT(field, expected)						\
	do {								\
		if ((unsigned long long)(field) !=			\
		    (unsigned long long)(expected)) {			\
			fprintf(stderr, "%s = %#llx, expected %#llx\n",	\
				#field, (unsigned long long)(field),	\
				(unsigned long long)(expected));	\
			failures++;					\
		}							\
	} while (0)

static int write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(buf, 1, len, f) != len) {
		perror(path);
		return 1;
	}
	return fclose(f) != 0;
}

static int pack(const char *req_path, const char *rep_path)
{
	struct md_create_prepare_req req;
	struct md_create_prepare_rep rep;
	int i;

	memset(&req, 0, sizeof(req));
	req.mcpr_fid.f_seq = 0x200000401ULL;
	req.mcpr_fid.f_oid = 0x1;
	req.mcpr_fid.f_ver = 0x0;
	req.mcpr_flags = MCPR_GROUPS_PARTIAL;
	req.mcpr_fsuid = 500;
	req.mcpr_fsgid = 501;
	req.mcpr_umask = 0022;
	req.mcpr_cap = (1ULL << 0) | (1ULL << 24);
	req.mcpr_child_mode = 0040755;
	for (i = 0; i < MLI_BUF_MAX; i++)
		req.mcpr_buf_limit[i] = 4096;
	req.mcpr_buf_limit[MLI_BUF_PATTR] = 216;
	req.mcpr_buf_limit[MLI_BUF_DEF_LMV] = 48;

	memset(&rep, 0, sizeof(rep));
	rep.mcpp_status = -17; /* -EEXIST */
	rep.mcpp_flags = MCPP_LOOKUP_DONE | MCPP_LOOKUP_POS | MCPP_PERM_DONE;
	rep.mcpp_valid = (1 << MLI_BUF_PATTR) | (1 << MLI_BUF_DEF_ACL);
	rep.mcpp_truncated = 1 << MLI_BUF_LOV;
	rep.mcpp_fid.f_seq = 0x200000401ULL;
	rep.mcpp_fid.f_oid = 0x2a;
	rep.mcpp_fid.f_ver = 0x3;
	rep.mcpp_child_mode = 0040000;
	rep.mcpp_child_gid = 600;
	rep.mcpp_child_projid = 1000;
	rep.mcpp_child_flags = 0x20000000;
	rep.mcpp_buf_size[MLI_BUF_PATTR] = 216;
	rep.mcpp_buf_size[MLI_BUF_DEF_ACL] = 44;
	rep.mcpp_buf_size[MLI_BUF_LOV] = 5320;

	return write_file(req_path, &req, sizeof(req)) ||
	       write_file(rep_path, &rep, sizeof(rep));
}

static int check_req(const char *path)
{
	struct md_create_prepare_req req;
	FILE *f = fopen(path, "rb");
	size_t n;

	if (f == NULL) {
		perror(path);
		return 1;
	}
	n = fread(&req, 1, sizeof(req), f);
	fclose(f);
	if (n != sizeof(req)) {
		fprintf(stderr, "%s: %zu bytes, expected %zu\n", path, n,
			sizeof(req));
		return 1;
	}
	EXPECT(req.mcpr_fid.f_seq, 0x200000402ULL);
	EXPECT(req.mcpr_fid.f_oid, 0x1a);
	EXPECT(req.mcpr_fid.f_ver, 0x7);
	EXPECT(req.mcpr_flags, MCPR_NO_LOOKUP);
	EXPECT(req.mcpr_fsuid, 1234);
	EXPECT(req.mcpr_fsgid, 5678);
	EXPECT(req.mcpr_umask, 0077);
	EXPECT(req.mcpr_cap, 0x100000fULL);
	EXPECT(req.mcpr_child_mode, 0);
	EXPECT(req.mcpr_padding0, 0);
	EXPECT(req.mcpr_buf_limit[MLI_BUF_PATTR], 216);
	EXPECT(req.mcpr_buf_limit[MLI_BUF_DEF_ACL], 0);
	EXPECT(req.mcpr_buf_limit[MLI_BUF_PIN], 256);
	EXPECT(req.mcpr_buf_limit[MLI_BUF_LMV], 8192);
	EXPECT(req.mcpr_buf_limit[MLI_BUF_LOV], 65536);
	EXPECT(req.mcpr_buf_limit[MLI_BUF_DEF_LMV], 48);
	EXPECT(req.mcpr_padding1, 0);
	return failures != 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "wirecheck") == 0)
		return dne_prepare_wirecheck() != 0;
	if (argc == 4 && strcmp(argv[1], "pack") == 0)
		return pack(argv[2], argv[3]);
	if (argc == 3 && strcmp(argv[1], "check-req") == 0)
		return check_req(argv[2]);
	fprintf(stderr, "usage: %s wirecheck | pack REQ REP | check-req REQ\n",
		argv[0]);
	return 2;
}
