/* SPDX-License-Identifier: MIT */
/*
 * Test stand-in for the kernel and Lustre interfaces the series' kunit module uses, with
 * Lustre's names and signatures (lustre_net.h, lustre_req_layout.h, obd_support.h), so that
 * tests/lustre_patch.rs can check the module with gcc -fsyntax-only -Wall -Werror where no
 * kernel build is at hand. Written for the test; the module itself is not changed.
 */
#ifndef _KERNEL_STANDIN_H
#define _KERNEL_STANDIN_H

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include "standin.h"

#define __init
#define __exit
#define module_param(name, type, perm) extern int kernel_standin_param_##name
#define MODULE_PARM_DESC(name, desc) extern int kernel_standin_desc_##name
#define MODULE_AUTHOR(a) extern int kernel_standin_author
#define MODULE_DESCRIPTION(d) extern int kernel_standin_description
#define MODULE_VERSION(v) extern int kernel_standin_version
#define MODULE_LICENSE(l) extern int kernel_standin_license
#define module_init(fn) int (*kernel_standin_init)(void) = fn
#define module_exit(fn) void (*kernel_standin_exit)(void) = fn
#define LUSTRE_VERSION_STRING "2.17.0"
#define pr_info printf
#define pr_err printf
#define max_t(type, a, b) ((type)(a) > (type)(b) ? (type)(a) : (type)(b))
#define OBD_ALLOC_LARGE(ptr, size) ((ptr) = calloc(1, (size)))
#define OBD_FREE_LARGE(ptr, size) free(ptr)
#define OBD_ALLOC_PTR(ptr) ((ptr) = calloc(1, sizeof(*(ptr))))
#define OBD_FREE_PTR(ptr) free(ptr)
#define ERR_PTR(err) ((void *)(long)(err))
#define IS_ERR(ptr) ((unsigned long)(ptr) >= (unsigned long)-4095)
#define EPROTO 71
#define ENOMEM 12
#define EINVAL 22
#define MSG_PTLRPC_HEADER_OFF 31
#define MSG_PTLRPC_BODY_OFF 0
#define DLM_LOCKREQ_OFF 1
struct ptlrpc_body {
	__u8 pb_bytes[184];
};
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define GOTO(label, rc) do { (void)(rc); goto label; } while (0)
#define LUSTRE_MSG_MAGIC_V2 0x0BD00BD3
#define LUSTRE_MSG_MAGIC_V2_SWABBED 0xD30BD00B
#define XATTR_SIZE_MAX 65536
/* lustre_sec.h */
#define WIRE_FLVR(wflvr) (((__u32)(wflvr)) & 0x000FFFFF)
#define SPTLRPC_FLVR_POLICY(flavor) ((((__u32)(flavor)) >> 0) & 0xF)
#define SPTLRPC_POLICY_NULL 0
#define SPTLRPC_FLVR_NULL 0

struct lustre_msg {
	__u32 lm_bufcount;
	__u32 lm_secflvr;
	__u32 lm_magic;
	__u32 lm_repsize;
	__u32 lm_cksum;
	__u32 lm_flags;
	__u32 lm_opc;
	__u32 lm_padding_3;
	__u32 lm_buflens[];
};
struct ptlrpc_request;
#define REQ_MAX_FIELD_NR 12
struct req_capsule {
	struct ptlrpc_request *rc_req;
	const struct req_format *rc_fmt;
	enum req_location rc_loc;
	__u32 rc_req_swab_mask;
	__u32 rc_rep_swab_mask;
	__u32 rc_area[2][REQ_MAX_FIELD_NR];
};
struct ptlrpc_request {
	struct req_capsule rq_pill;
	struct lustre_msg *rq_reqmsg;
	struct lustre_msg *rq_repmsg;
	int rq_reqlen;
	int rq_replen;
};

int __lustre_unpack_msg(struct lustre_msg *m, int len);
int ptlrpc_unpack_req_msg(struct ptlrpc_request *req, int len);
int ptlrpc_unpack_rep_msg(struct ptlrpc_request *req, int len);
int lustre_unpack_req_ptlrpc_body(struct ptlrpc_request *req, int offset);
int lustre_unpack_rep_ptlrpc_body(struct ptlrpc_request *req, int offset);
void *lustre_msg_buf(struct lustre_msg *m, __u32 n, __u32 minlen);
__u32 lustre_msg_buflen(struct lustre_msg *m, __u32 n);
__u32 lustre_msg_bufcount(struct lustre_msg *m);
void req_capsule_init(struct req_capsule *pill, struct ptlrpc_request *req,
		      enum req_location location);
void req_capsule_set(struct req_capsule *pill, const struct req_format *fmt);
void *req_capsule_client_get(struct req_capsule *pill,
			     const struct req_msg_field *field);
void *req_capsule_server_get(struct req_capsule *pill,
			     const struct req_msg_field *field);
size_t req_capsule_filled_sizes(struct req_capsule *pill,
				enum req_location loc);
__u32 lustre_msg_size_v2(int count, __u32 *lengths);
void lustre_init_msg_v2(struct lustre_msg *msg, int count, __u32 *lens,
			char **bufs);
__u32 req_capsule_get_size(const struct req_capsule *pill,
			   const struct req_msg_field *field,
			   enum req_location loc);

static inline void req_capsule_set_req_swabbed(struct req_capsule *pill,
					       size_t index)
{
	pill->rc_req_swab_mask |= 1U << index;
}

static inline void req_capsule_set_rep_swabbed(struct req_capsule *pill,
					       size_t index)
{
	pill->rc_rep_swab_mask |= 1U << index;
}

#endif /* _KERNEL_STANDIN_H */
