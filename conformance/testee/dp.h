/* SPDX-License-Identifier: MIT */
/*
 * dp.h: what the files of the reference testee share.
 *
 * The testee is split along the seams of the protocol (WIRE.md):
 *
 *   dp.h        the bounds and constants, the structures that cross
 *               files, the byte-order and output helpers (static inline)
 *               and the prototypes below
 *   dp_msg.c    lustre_msg_v2 framing, ptlrpc_body, LDLM (sections 2-3)
 *   dp_req.c    the prepare request (section 5)
 *   dp_xattr.c  the xattr payloads (section 9)
 *   dp_rep.c    the reply (sections 6-8)
 *   dp_judge.c  judging one input; dp_judge_bytes(), the library entry
 *   testee.c    the runner protocol of docs/conformance.md and main()
 *
 * The dp_*.c files are the decoder; testee.c is only the protocol
 * plumbing around it.  Everything used by one file stays static there.
 */
#ifndef DP_H
#define DP_H

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "lustre_dne_prepare.h"

/* Bounds a decoder applies to input (WIRE.md, src/limits.rs). */
#define LUSTRE_MSG_MAGIC_V2		0x0BD00BD3
#define MSG_HEADER_FIXED		32
#define MSG_MAX_BUFCOUNT		32
/* PTLRPC_MAX_BUFLEN: each padded buffer, and the whole message (W0.3) */
#define MSG_MAX_BUFLEN			(1000U * 1024)
#define MSG_MAX_LEN			MSG_MAX_BUFLEN
#define PTLRPC_BODY_V2_SIZE		152
#define PTLRPC_BODY_V3_SIZE		184
#define LDLM_REQUEST_FIXED		88
#define LDLM_LOCKREQ_HANDLES		2
#define LDLM_REQUEST_MIN		(LDLM_REQUEST_FIXED + \
					 8 * LDLM_LOCKREQ_HANDLES)
#define LDLM_REQUEST_MAX_HANDLES	32
#define LDLM_REPLY_SIZE			112
#define LDLM_INTENT_SIZE		8
#define MDT_BODY_SIZE			216
#define PREPARE_REQ_SIZE		80
#define PREPARE_REP_SIZE		80
#define REQUEST_BUFCOUNT		6
#define REPLY_BUFCOUNT			(3 + MLI_BUF_MAX)
#define DP_NAME_MAX			255
#define GROUPS_MAX			128
#define XATTR_SIZE_MAX			65536
#define ACL_MAX_ENTRIES			8191
#define LMV_MAX_STRIPE_COUNT		2000
#define LMV_MAX_STRIPES_PER_MDT		5
#define LOV_MAX_STRIPE_COUNT		2000

/* Constants of the existing Lustre structures (WIRE.md sections 2-3). */
#define PTL_RPC_MSG_REQUEST		4711
#define PTL_RPC_MSG_ERR			4712
#define PTL_RPC_MSG_REPLY		4713
#define LDLM_ENQUEUE			101
#define LUSTRE_DLM_MSG_VERSION		0x00040003
#define PTLRPC_MSG_VERSION		0x00000003
#define LUSTRE_VERSION_MASK		0xffff0000U
#define MSGHDR_AT_SUPPORT		0x1
#define WIRE_FLVR_MASK			0x000fffffU
#define FLVR_POLICY_MASK		0xfU
#define LDLM_IBITS			13
#define LCK_NL				32
#define LDLM_FL_HAS_INTENT		0x1000
/* LDLM_FL_WIRE_REQ_FLAGS_MASK without REPLAY (0x100), INTENT_ONLY (0x200) */
#define DP_PREPARE_REQ_FLAGS		0xe08c101aU
#define MDS_INODELOCK_UPDATE		0x2ULL
#define DISP_IT_EXECD			0x1ULL
#define DISP_LOOKUP_EXECD		0x2ULL
#define DISP_LOOKUP_NEG			0x4ULL
#define DISP_LOOKUP_POS			0x8ULL
#define DISP_ALL			0xfULL
#define MCPR_KNOWN			(MCPR_NO_LOOKUP | MCPR_GROUPS_PARTIAL)
#define MLI_MASK_ALL			((1U << MLI_BUF_MAX) - 1)

#define S_IFMT_BITS			0170000
#define DP_S_IFDIR			0040000
#define DP_S_ISGID			02000
#define DP_S_ISVTX			01000
#define DP_UMASK_BITS			0777
#define DP_PROJINHERIT_FL		0x20000000U
/* OBD_MD_* of mbo_valid, and the mdt_body fields of the derived child */
#define DP_OBD_MD_FLMODE		0x80ULL
#define DP_OBD_MD_FLGID			0x400ULL
#define DP_OBD_MD_FLFLAGS		0x800ULL
#define DP_OBD_MD_FLPROJID		0x100000000000000ULL
#define MBO_VALID			40
#define MBO_MODE			116
#define MBO_GID				124
#define MBO_FLAGS			128
#define MBO_PROJID			172

/* Offsets inside ptlrpc_body, ldlm_lock_desc and ldlm_reply. */
#define PB_TYPE				8
#define PB_VERSION			12
#define PB_OPC				16
#define PB_STATUS			20
#define PB_TIMEOUT			68
#define LD_TYPE				0
#define LD_NAME				8
#define LD_REQ_MODE			40
#define LD_GRANTED_MODE			44
#define LD_IBITS			48
#define LREQ_FLAGS			0
#define LREQ_COUNT			4
#define LREQ_DESC			8
#define LREP_DESC			8
#define LREP_RES1			96
#define LREP_RES2			104

/* Where a decode failed: the ID of the WIRE.md rule its input broke. */
struct dp_ctx {
	const char	*rule;
};

static inline int dp_broke(struct dp_ctx *ctx, const char *rule)
{
	ctx->rule = rule;
	return -EPROTO;
}


/* ---- byte order ---- */

static inline __u16 dp_le16(const __u8 *p)
{
	return (__u16)(p[0] | p[1] << 8);
}

static inline __u32 dp_le32(const __u8 *p)
{
	return (__u32)p[0] | (__u32)p[1] << 8 | (__u32)p[2] << 16 |
	       (__u32)p[3] << 24;
}

static inline __u64 dp_le64(const __u8 *p)
{
	return (__u64)dp_le32(p) | (__u64)dp_le32(p + 4) << 32;
}

static inline __u32 dp_be32(const __u8 *p)
{
	return (__u32)p[3] | (__u32)p[2] << 8 | (__u32)p[1] << 16 |
	       (__u32)p[0] << 24;
}

static inline __u64 dp_be64(const __u8 *p)
{
	return (__u64)dp_be32(p) << 32 | (__u64)dp_be32(p + 4);
}

/* A message field, in the sender's order: swabbed means big-endian here. */
static inline __u32 dp_get32(int swab, const __u8 *p)
{
	return swab ? dp_be32(p) : dp_le32(p);
}

static inline __u64 dp_get64(int swab, const __u8 *p)
{
	return swab ? dp_be64(p) : dp_le64(p);
}

static inline size_t dp_round8(size_t len)
{
	return (len + 7) & ~(size_t)7;
}

/* ---- canonical output ---- */

/* Largest canonical encoding: a reply with six results of XATTR_SIZE_MAX. */
#define DP_OUT_MAX	(1U << 19)

struct dp_out {
	__u8	*buf;
	size_t	 len;
};

static inline __u8 *dp_put_zero(struct dp_out *o, size_t n)
{
	__u8 *p = o->buf + o->len;

	memset(p, 0, n);
	o->len += n;
	return p;
}

static inline void dp_put_bytes(struct dp_out *o, const void *src, size_t n)
{
	if (n)
		memcpy(dp_put_zero(o, n), src, n);
}

static inline void dp_put32(struct dp_out *o, __u32 v)
{
	__u8 *p = dp_put_zero(o, 4);

	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static inline void dp_put_pad8(struct dp_out *o, size_t len)
{
	dp_put_zero(o, dp_round8(len) - len);
}

static inline void dp_set32(__u8 *p, __u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/*
 * The fields of a fixed structure that the canonical form keeps: numbers
 * (rewritten little-endian) and opaque bytes (copied).  Every byte not
 * listed is padding or reserved, and is written as zero (W11.2).
 */
enum dp_kind { DP_NUM, DP_RAW };

struct dp_field {
	unsigned short	off;
	unsigned char	size;
	unsigned char	kind;
};

#define DP_NFIELDS(t)	(sizeof(t) / sizeof((t)[0]))

/* Rewrites the listed fields of @src into @dst, little-endian. */
void dp_canon(__u8 *dst, const __u8 *src, int swab,
	      const struct dp_field *f, size_t nf);

/* ---- lustre_msg_v2 framing (WIRE.md section 2) ---- */

struct dp_msg {
	const __u8	*base;
	size_t		 len;
	int		 swab;
	__u32		 bufcount;
	__u32		 repsize;
	__u32		 buflens[MSG_MAX_BUFCOUNT];
	size_t		 bufoffs[MSG_MAX_BUFCOUNT];
	size_t		 wire_len;	/* header + every buffer, padded */
};

/* ---- LDLM (WIRE.md section 3) ---- */

struct dp_lock_desc {
	__u32	lr_type;
	__u64	name[4];
	__u32	req_mode;
	__u32	granted_mode;
	__u64	ibits;
};

/* ---- the request (WIRE.md section 5) ---- */

enum dp_op { DP_OP_CREATE, DP_OP_RENAME, DP_OP_UNLINK };

struct dp_req {
	struct dp_msg			msg;
	struct dp_lock_desc		lock;
	__u32				lock_flags;
	__u64				opc;
	enum dp_op			op;
	struct md_create_prepare_req	body;
	const __u8			*name;
	__u32				namelen;	/* without the NUL */
	const __u8			*groups;
	__u32				ngroups;
	__u32				nhandles;
};

/* ---- xattr payloads (WIRE.md section 9): the kinds, by name ---- */

enum dp_xattr_kind {
	DP_XATTR_UNKNOWN,
	DP_XATTR_ACL,
	DP_XATTR_PIN,
	DP_XATTR_LMV,
	DP_XATTR_DMV,
	DP_XATTR_LOV,
};

/* ---- the reply (WIRE.md sections 6-8) ---- */

/* What a reply's rules need to know of the request it answers. */
struct dp_reply_ctx {
	enum dp_op		op;
	__u32			flags;		/* mcpr_flags */
	__u32			limits[MLI_BUF_MAX];
	__u32			requested;	/* bit i: limits[i] != 0 */
	struct dp_lock_desc	lock;
	__u32			repsize;
	__u32			child_mode;	/* mcpr_child_mode */
	__u32			umask;		/* mcpr_umask */
	__u32			fsgid;		/* mcpr_fsgid */
};

struct dp_rep {
	struct dp_msg			msg;
	const struct dp_reply_ctx	*rctx;		/* NULL: not known */
	struct dp_lock_desc		lock;
	__u64				res1, res2;
	int				has_body;	/* 0: empty result */
	struct md_create_prepare_rep	body;
	const __u8			*result[MLI_BUF_MAX];
	__u32				result_len[MLI_BUF_MAX];
};

/* ---- across the files ---- */

/* dp_msg.c: framing, ptlrpc_body, LDLM */
int dp_msg_unpack(struct dp_ctx *ctx, struct dp_msg *m,
		  const __u8 *p, size_t len);
const __u8 *dp_msg_buf(const struct dp_msg *m, __u32 i, __u32 *len);
int dp_msg_check_past(struct dp_ctx *ctx, const struct dp_msg *m,
		      __u32 last);
void dp_msg_pack_header(struct dp_out *o, const struct dp_msg *m,
			const __u32 *lens, __u32 count);
int dp_ptlrpc_check_len(struct dp_ctx *ctx, __u32 len);
__u32 dp_ptlrpc_len(const struct dp_msg *m);
void dp_ptlrpc_pack(struct dp_out *o, const struct dp_msg *m);
int dp_ptlrpc_check_type(struct dp_ctx *ctx, const struct dp_msg *m,
			 __u32 type);
int dp_ptlrpc_check(struct dp_ctx *ctx, const struct dp_msg *m,
		    __u32 type);
void dp_lock_desc_unpack(int swab, const __u8 *p,
			 struct dp_lock_desc *d);
int dp_lock_check(struct dp_ctx *ctx, const struct dp_lock_desc *d,
		  int granted_too);
void dp_lock_desc_pack(__u8 *dst, int swab, const __u8 *src);

/* dp_req.c: the request */
int dp_valid_file_type(__u32 mode);
int dp_req_unpack(struct dp_ctx *ctx, struct dp_req *r,
		  const __u8 *p, size_t len);
void dp_req_pack(struct dp_out *o, const struct dp_req *r);

/* dp_xattr.c: the payloads */
enum dp_xattr_kind dp_xattr_kind_of(const char *name);
int dp_xattr_check(struct dp_ctx *ctx, enum dp_xattr_kind kind,
		   const __u8 *p, size_t len);
void dp_xattr_pack(struct dp_out *o, enum dp_xattr_kind kind,
		   const __u8 *p, size_t len);

/* dp_rep.c: the reply */
void dp_reply_ctx_init(struct dp_reply_ctx *c, const struct dp_req *r);
int dp_rep_unpack(struct dp_ctx *ctx, struct dp_rep *r,
		  const __u8 *p, size_t len,
		  const struct dp_reply_ctx *rctx);
void dp_rep_pack(struct dp_out *o, const struct dp_rep *r);

/* dp_judge.c: one input, judged and re-encoded into @o */
int dp_judge_request(struct dp_ctx *ctx, struct dp_out *o,
		     const __u8 *p, size_t len);
int dp_judge_reply(struct dp_ctx *ctx, struct dp_out *o,
		   const __u8 *p, size_t len, const __u8 *req,
		   size_t req_len, int have_req);
int dp_judge_xattr(struct dp_ctx *ctx, struct dp_out *o,
		   const char *name, const __u8 *p, size_t len);

/*
 * The decoder as a library, for the differential fuzz target of fuzz/
 * (the dp_*.c files built with -DDP_NO_MAIN, without testee.c).
 * kind: 0 a request, 1 a reply (against req when have_req), 2 the xattr
 * payload of xattr_name.  Returns 0 (valid: the canonical form is in out,
 * *out_len bytes), 1 (invalid: *rule is the ID of the broken rule) or 2
 * (unsupported); -EINVAL when out is smaller than DP_OUT_MAX.
 */
int dp_judge_bytes(int kind, const char *xattr_name, const __u8 *in,
		   size_t len, const __u8 *req, size_t req_len, int have_req,
		   __u8 *out, size_t out_max, size_t *out_len,
		   const char **rule);

#endif /* DP_H */
