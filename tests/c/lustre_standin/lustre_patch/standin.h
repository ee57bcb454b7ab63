/* SPDX-License-Identifier: MIT */
/*
 * Test stand-in for what the lustre-release series (tests/lustre_patch.rs) builds on: the
 * kernel's swab helpers and BUILD_BUG_ON, lustre_swab_lu_fid() and lustre_swab_generic_32s()
 * of pack_generic.c, wiretest's LASSERTF, and the few declarations of lustre_req_layout.h and
 * layout.c that the request format refers to. Written for the test, with Lustre's names and
 * signatures; struct lu_fid comes from the lustre_user.h stand-in beside it. The series' own
 * lines are compiled as the patches add them, never copied here.
 */
#ifndef _LUSTRE_PATCH_STANDIN_H
#define _LUSTRE_PATCH_STANDIN_H

#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/lustre/lustre_user.h>

/* <linux/swab.h>: in place, for any integer lvalue (Lustre swabs __s32 members too) */
#define __swab16s(p) do { *(p) = __builtin_bswap16(*(p)); } while (0)
#define __swab32s(p) do { *(p) = __builtin_bswap32(*(p)); } while (0)
#define __swab64s(p) do { *(p) = __builtin_bswap64(*(p)); } while (0)

#define BUILD_BUG_ON(cond) ((void)sizeof(char[1 - 2 * !!(cond)]))
#define EXPORT_SYMBOL(sym) extern int lustre_patch_standin_unused_##sym

static inline void lustre_swab_lu_fid(struct lu_fid *fid)
{
	__swab64s(&fid->f_seq);
	__swab32s(&fid->f_oid);
	__swab32s(&fid->f_ver);
}

static inline void lustre_swab_generic_32s(__u32 *val)
{
	__swab32s(val);
}

/* lustre/utils/wiretest.c: a failed check is printed and counted */
extern int ret;
#define LASSERTF(cond, fmt, ...) \
	do { if (!(cond)) { printf("failed '" #cond "' " fmt, ## __VA_ARGS__); ret = 1; } } while (0)

/* the part of struct mdt_body a request field names (its size, 216 bytes) */
struct mdt_body {
	__u64 mbo_words[27];
};
void lustre_swab_mdt_body(struct mdt_body *b);

/* lustre_req_layout.h and layout.c */
enum req_location { RCL_CLIENT, RCL_SERVER, RCL_NR };
#define RMF_F_STRING		(1U << 0)
#define RMF_F_NO_SIZE_CHECK	(1U << 1)
#define RMF_F_STRUCT_ARRAY	(1U << 2)
struct req_msg_field {
	const __u32 rmf_flags;
	const char *rmf_name;
	const int rmf_size;
	void (*rmf_swabber)(void *);
	void (*rmf_dumper)(void *);
};
struct req_format {
	const char *rf_name;
	size_t rf_idx;
	struct {
		size_t nr;
		const struct req_msg_field **d;
	} rf_fields[RCL_NR];
};
struct req_capsule;
#define DEFINE_MSGF(name, flags, size, swabber, dumper) {	\
	.rmf_name    = (name),					\
	.rmf_flags   = (flags),					\
	.rmf_size    = (size),					\
	.rmf_swabber = (void (*)(void *))(swabber),		\
	.rmf_dumper  = (void (*)(void *))(dumper)		\
}
#define DEFINE_REQ_FMT(name, client, client_nr, server, server_nr) {	\
	.rf_name   = name,						\
	.rf_fields = {							\
		[RCL_CLIENT] = { .nr = client_nr, .d = client },	\
		[RCL_SERVER] = { .nr = server_nr, .d = server }		\
	}								\
}
#define DEFINE_REQ_FMT0(name, client, server)				\
	DEFINE_REQ_FMT(name, client, sizeof(client) / sizeof(client[0]),	\
		       server, sizeof(server) / sizeof(server[0]))
void req_capsule_set_size(struct req_capsule *pill,
			  const struct req_msg_field *field,
			  enum req_location loc, __u32 size);
extern struct req_msg_field RMF_PTLRPC_BODY;
extern struct req_msg_field RMF_DLM_REQ;
extern struct req_msg_field RMF_DLM_REP;
extern struct req_msg_field RMF_LDLM_INTENT;
extern struct req_msg_field RMF_NAME;
extern struct req_msg_field RMF_MDT_BODY;

#endif /* _LUSTRE_PATCH_STANDIN_H */
