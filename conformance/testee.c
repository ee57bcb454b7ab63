/* SPDX-License-Identifier: MIT */
/*
 * testee.c: the reference conformance testee of the DNE prepare intent.
 *
 * It decodes and validates IT_DNE_*_PREPARE enqueue requests, their
 * replies and the xattr payloads a reply carries, by every rule of
 * docs/spec/WIRE.md, and re-encodes what it decoded in the canonical form
 * of WIRE.md section 11.  It speaks the runner protocol of
 * docs/conformance.md on stdin/stdout, so that `dne-intent conform` can
 * hold it against the reference codec.
 *
 * It is written the way the Lustre code that adopts it would be: kernel
 * style, no allocation in proportion to a message, every length checked
 * against a named bound before it is used, and one -EPROTO return with
 * the ID of the broken rule.  Where several rules are broken, the checks
 * run in the order the reference codec runs them, so that both report the
 * same rule.  Only the protocol plumbing at the end (frames, JSON, hex)
 * is testee-specific.
 *
 * Build: cc -O2 -Wall -Werror -Iinclude -o testee conformance/testee.c
 * With -DDP_NO_MAIN it is a library of one function, dp_judge_bytes(),
 * which the differential fuzz target links (fuzz/build.rs).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
#define LDLM_IBITS			13
#define LCK_NL				32
#define LDLM_FL_HAS_INTENT		0x1000
#define MDS_INODELOCK_UPDATE		0x2ULL
#define DISP_IT_EXECD			0x1ULL
#define DISP_LOOKUP_EXECD		0x2ULL
#define DISP_LOOKUP_NEG			0x4ULL
#define DISP_LOOKUP_POS			0x8ULL
#define DISP_ALL			0xfULL
#define MCPR_KNOWN			(MCPR_NO_LOOKUP | MCPR_GROUPS_PARTIAL)
#define MLI_MASK_ALL			((1U << MLI_BUF_MAX) - 1)

#define S_IFMT_BITS			0170000
#define DP_UMASK_BITS			0777

/* Offsets inside ptlrpc_body, ldlm_lock_desc and ldlm_reply. */
#define PB_TYPE				8
#define PB_VERSION			12
#define PB_OPC				16
#define PB_STATUS			20
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

/* Xattr magics (WIRE.md section 9; always little-endian). */
#define POSIX_ACL_XATTR_VERSION		2
#define LMV_MAGIC_V1			0x0CD20CD0
#define LMV_MAGIC_USER			0x0CD30CD0
#define LMV_MAGIC_STRIPE		0x0CD40CD0
#define LMV_USER_MAGIC_SPECIFIC		0x0CD40CD0
#define LMV_MAGIC_FOREIGN		0x0CD50CD0
#define LOV_MAGIC_V1			0x0BD10BD0
#define LOV_MAGIC_V3			0x0BD30BD0
#define LOV_MAGIC_SPECIFIC		0x0BD50BD0
#define LOV_MAGIC_COMP_V1		0x0BD60BD0
#define LOV_MAGIC_FOREIGN		0x0BD70BD0
#define LOV_MAGIC_SEL			0x0BD80BD0
#define LCME_FL_INIT			0x00000010
#define LOV_OST_IDX_NONE		0xffffffffU
#define LOV_ALL_STRIPES_WIDE		0xffe0
#define LOV_POOLNAMEF			16
#define FOREIGN_HDR			16

/* Where a decode failed: the ID of the WIRE.md rule its input broke. */
struct dp_ctx {
	const char	*rule;
};

static int dp_broke(struct dp_ctx *ctx, const char *rule)
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

static __u8 *dp_put_zero(struct dp_out *o, size_t n)
{
	__u8 *p = o->buf + o->len;

	memset(p, 0, n);
	o->len += n;
	return p;
}

static void dp_put_bytes(struct dp_out *o, const void *src, size_t n)
{
	if (n)
		memcpy(dp_put_zero(o, n), src, n);
}

static void dp_put32(struct dp_out *o, __u32 v)
{
	__u8 *p = dp_put_zero(o, 4);

	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

static void dp_put_pad8(struct dp_out *o, size_t len)
{
	dp_put_zero(o, dp_round8(len) - len);
}

static void dp_set32(__u8 *p, __u32 v)
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

static const struct dp_field ptlrpc_body_fields[] = {
	{ 0, 8, DP_RAW },	/* pb_handle: opaque, never swapped */
	{ 8, 4, DP_NUM }, { 12, 4, DP_NUM }, { 16, 4, DP_NUM },
	{ 20, 4, DP_NUM }, { 24, 8, DP_NUM }, { 32, 2, DP_NUM },
	{ 36, 4, DP_NUM }, { 40, 8, DP_NUM }, { 48, 8, DP_NUM },
	{ 56, 4, DP_NUM }, { 60, 4, DP_NUM }, { 64, 4, DP_NUM },
	{ 68, 4, DP_NUM }, { 72, 4, DP_NUM }, { 76, 4, DP_NUM },
	{ 80, 8, DP_NUM }, { 88, 8, DP_NUM }, { 96, 8, DP_NUM },
	{ 104, 8, DP_NUM }, { 112, 8, DP_NUM }, { 120, 8, DP_NUM },
	{ 144, 4, DP_NUM }, { 148, 4, DP_NUM },
	{ 152, 32, DP_RAW },	/* pb_jobid: a string */
};

static const struct dp_field lock_desc_fields[] = {
	{ 0, 4, DP_NUM },	/* lr_type; lr_pad is padding */
	{ 8, 8, DP_NUM }, { 16, 8, DP_NUM }, { 24, 8, DP_NUM },
	{ 32, 8, DP_NUM },	/* lr_name.name[4] */
	{ 40, 4, DP_NUM }, { 44, 4, DP_NUM },	/* modes */
	{ 48, 8, DP_NUM }, { 56, 8, DP_NUM }, { 64, 8, DP_NUM },
	{ 76, 4, DP_NUM },	/* inodebits; li_padding is padding */
};

static const struct dp_field prepare_req_fields[] = {
	{ 0, 8, DP_NUM }, { 8, 4, DP_NUM }, { 12, 4, DP_NUM },
	{ 16, 4, DP_NUM }, { 20, 4, DP_NUM }, { 24, 4, DP_NUM },
	{ 28, 4, DP_NUM }, { 32, 8, DP_NUM }, { 40, 4, DP_NUM },
	{ 48, 4, DP_NUM }, { 52, 4, DP_NUM }, { 56, 4, DP_NUM },
	{ 60, 4, DP_NUM }, { 64, 4, DP_NUM }, { 68, 4, DP_NUM },
};

static const struct dp_field prepare_rep_fields[] = {
	{ 0, 4, DP_NUM }, { 4, 4, DP_NUM }, { 8, 4, DP_NUM },
	{ 12, 4, DP_NUM }, { 16, 8, DP_NUM }, { 24, 4, DP_NUM },
	{ 28, 4, DP_NUM }, { 32, 4, DP_NUM }, { 36, 4, DP_NUM },
	{ 40, 4, DP_NUM }, { 44, 4, DP_NUM }, { 48, 4, DP_NUM },
	{ 52, 4, DP_NUM }, { 56, 4, DP_NUM }, { 60, 4, DP_NUM },
	{ 64, 4, DP_NUM }, { 68, 4, DP_NUM },
};

/* lock_policy_res1 and _res2; lock_padding is padding */
static const struct dp_field ldlm_reply_res_fields[] = {
	{ LREP_RES1, 8, DP_NUM }, { LREP_RES2, 8, DP_NUM },
};

#define DP_NFIELDS(t)	(sizeof(t) / sizeof((t)[0]))

/* Rewrites the listed fields of @src into @dst, little-endian. */
static void dp_canon(__u8 *dst, const __u8 *src, int swab,
		     const struct dp_field *f, size_t nf)
{
	size_t i, k;

	for (i = 0; i < nf; i++) {
		const __u8 *s = src + f[i].off;
		__u8 *d = dst + f[i].off;

		if (f[i].kind == DP_NUM && swab) {
			for (k = 0; k < f[i].size; k++)
				d[k] = s[f[i].size - 1 - k];
		} else {
			memcpy(d, s, f[i].size);
		}
	}
}

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

static int dp_msg_unpack(struct dp_ctx *ctx, struct dp_msg *m,
			 const __u8 *p, size_t len)
{
	__u32 magic, i;
	size_t cursor;

	memset(m, 0, sizeof(*m));
	m->base = p;
	m->len = len;
	if (len < MSG_HEADER_FIXED)
		return dp_broke(ctx, "W0.1");
	magic = dp_le32(p + 8);
	if (magic == LUSTRE_MSG_MAGIC_V2)
		m->swab = 0;
	else if (dp_be32(p + 8) == LUSTRE_MSG_MAGIC_V2)
		m->swab = 1;
	else
		return dp_broke(ctx, "W1.1");

	m->bufcount = dp_get32(m->swab, p);
	if (m->bufcount == 0 || m->bufcount > MSG_MAX_BUFCOUNT)
		return dp_broke(ctx, "W2.1");
	m->repsize = dp_get32(m->swab, p + 12);
	if (len < MSG_HEADER_FIXED + 4 * (size_t)m->bufcount)
		return dp_broke(ctx, "W0.1");

	/* Only the last buffer's padding may be missing from the input. */
	cursor = dp_round8(MSG_HEADER_FIXED + 4 * m->bufcount);
	for (i = 0; i < m->bufcount; i++) {
		__u32 blen = dp_get32(m->swab, p + MSG_HEADER_FIXED + 4 * i);

		if (dp_round8(blen) > MSG_MAX_BUFLEN)
			return dp_broke(ctx, "W0.3");
		if (len < cursor + blen)
			return dp_broke(ctx, "W0.1");
		m->buflens[i] = blen;
		m->bufoffs[i] = cursor;
		cursor += dp_round8(blen);
	}
	if (cursor > MSG_MAX_LEN)
		return dp_broke(ctx, "W0.3");
	m->wire_len = cursor;
	return 0;
}

/* Buffer @i, or an empty one past lm_bufcount (WIRE.md section 2). */
static const __u8 *dp_msg_buf(const struct dp_msg *m, __u32 i, __u32 *len)
{
	if (i >= m->bufcount) {
		*len = 0;
		return m->base;
	}
	*len = m->buflens[i];
	return m->base + m->bufoffs[i];
}

/* W2.2: nothing past the last buffer the message defines. */
static int dp_msg_check_past(struct dp_ctx *ctx, const struct dp_msg *m,
			     __u32 last)
{
	__u32 i;

	for (i = last + 1; i < m->bufcount; i++)
		if (m->buflens[i] != 0)
			return dp_broke(ctx, "W2.2");
	return 0;
}

static void dp_msg_pack_header(struct dp_out *o, const struct dp_msg *m,
			       const __u32 *lens, __u32 count)
{
	const __u8 *h = m->base;
	__u32 i;

	dp_put32(o, count);
	dp_put32(o, dp_get32(m->swab, h + 4));		/* lm_secflvr */
	dp_put32(o, LUSTRE_MSG_MAGIC_V2);
	dp_put32(o, m->repsize);
	dp_put32(o, dp_get32(m->swab, h + 16));		/* lm_cksum */
	dp_put32(o, dp_get32(m->swab, h + 20));		/* lm_flags */
	dp_put32(o, dp_get32(m->swab, h + 24));		/* lm_opc */
	dp_put32(o, 0);					/* lm_padding_3 */
	for (i = 0; i < count; i++)
		dp_put32(o, lens[i]);
	dp_put_pad8(o, MSG_HEADER_FIXED + 4 * count);
}

/* ---- ptlrpc_body (buffer 0) ---- */

static int dp_ptlrpc_check_len(struct dp_ctx *ctx, __u32 len)
{
	/* v2 (152 bytes) is accepted; bytes past v3 are ignored. */
	if (len < PTLRPC_BODY_V2_SIZE)
		return dp_broke(ctx, "W0.2");
	return 0;
}

/* Always a v3 body: a v2 body's missing pb_jobid reads as zeros (W11.4). */
static void dp_ptlrpc_pack(struct dp_out *o, const struct dp_msg *m)
{
	__u8 v3[PTLRPC_BODY_V3_SIZE];
	__u32 len;
	const __u8 *b = dp_msg_buf(m, 0, &len);

	/* a body shorter than v3 is read as v2: its tail is not a jobid */
	memset(v3, 0, sizeof(v3));
	memcpy(v3, b, len < PTLRPC_BODY_V3_SIZE ? PTLRPC_BODY_V2_SIZE :
					       PTLRPC_BODY_V3_SIZE);
	dp_canon(dp_put_zero(o, PTLRPC_BODY_V3_SIZE), v3, m->swab,
		 ptlrpc_body_fields, DP_NFIELDS(ptlrpc_body_fields));
}

/*
 * W2.3: pb_type is read before any other rule of the message; a reply
 * decoder also takes PTL_RPC_MSG_ERR (which W7.1 then refuses).
 */
static int dp_ptlrpc_check_type(struct dp_ctx *ctx, const struct dp_msg *m,
				__u32 type)
{
	__u32 len, t;
	const __u8 *b = dp_msg_buf(m, 0, &len);

	t = dp_get32(m->swab, b + PB_TYPE);
	if (t == type || (type == PTL_RPC_MSG_REPLY && t == PTL_RPC_MSG_ERR))
		return 0;
	return dp_broke(ctx, "W2.3");
}

/* The checks of pb_type, pb_version and pb_opc common to both messages. */
static int dp_ptlrpc_check(struct dp_ctx *ctx, const struct dp_msg *m,
			   __u32 type)
{
	__u32 len;
	const __u8 *b = dp_msg_buf(m, 0, &len);

	if (dp_get32(m->swab, b + PB_TYPE) != type ||
	    dp_get32(m->swab, b + PB_VERSION) != LUSTRE_DLM_MSG_VERSION ||
	    dp_get32(m->swab, b + PB_OPC) != LDLM_ENQUEUE)
		return dp_broke(ctx, "W0.4");
	return 0;
}

/* ---- LDLM (WIRE.md section 3) ---- */

struct dp_lock_desc {
	__u32	lr_type;
	__u64	name[4];
	__u32	req_mode;
	__u32	granted_mode;
	__u64	ibits;
};

static void dp_lock_desc_unpack(int swab, const __u8 *p,
				struct dp_lock_desc *d)
{
	int k;

	d->lr_type = dp_get32(swab, p + LD_TYPE);
	for (k = 0; k < 4; k++)
		d->name[k] = dp_get64(swab, p + LD_NAME + 8 * k);
	d->req_mode = dp_get32(swab, p + LD_REQ_MODE);
	d->granted_mode = dp_get32(swab, p + LD_GRANTED_MODE);
	d->ibits = dp_get64(swab, p + LD_IBITS);
}

/* W3.2: EX, PW, PR, CW, CR or NL, the modes a client asks for. */
static int dp_is_client_mode(__u32 mode)
{
	return mode != 0 && mode <= LCK_NL && (mode & (mode - 1)) == 0;
}

/* W3.1 and W3.2, on a request's lock or (@granted_too) a reply's. */
static int dp_lock_check(struct dp_ctx *ctx, const struct dp_lock_desc *d,
			 int granted_too)
{
	if (d->name[2] != 0)
		return dp_broke(ctx, "W3.1");
	if (!dp_is_client_mode(d->req_mode))
		return dp_broke(ctx, "W3.2");
	if (granted_too && !dp_is_client_mode(d->granted_mode))
		return dp_broke(ctx, "W3.2");
	return 0;
}

static void dp_lock_desc_pack(__u8 *dst, int swab, const __u8 *src)
{
	dp_canon(dst, src, swab, lock_desc_fields,
		 DP_NFIELDS(lock_desc_fields));
}

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

/* md_create_prepare_req from the wire, in host order (cf. lustre_swab_*). */
static void dp_prepare_req_unpack(int swab, const __u8 *p,
				  struct md_create_prepare_req *b)
{
	int i;

	b->mcpr_fid.f_seq = dp_get64(swab, p);
	b->mcpr_fid.f_oid = dp_get32(swab, p + 8);
	b->mcpr_fid.f_ver = dp_get32(swab, p + 12);
	b->mcpr_flags = dp_get32(swab, p + 16);
	b->mcpr_fsuid = dp_get32(swab, p + 20);
	b->mcpr_fsgid = dp_get32(swab, p + 24);
	b->mcpr_umask = dp_get32(swab, p + 28);
	b->mcpr_cap = dp_get64(swab, p + 32);
	b->mcpr_child_mode = dp_get32(swab, p + 40);
	b->mcpr_padding0 = 0;
	for (i = 0; i < MLI_BUF_MAX; i++)
		b->mcpr_buf_limit[i] = dp_get32(swab, p + 48 + 4 * i);
	b->mcpr_padding1 = 0;
}

static int dp_valid_file_type(__u32 mode)
{
	switch (mode & S_IFMT_BITS) {
	case 0100000:	/* S_IFREG */
	case 0040000:	/* S_IFDIR */
	case 0120000:	/* S_IFLNK */
	case 0020000:	/* S_IFCHR */
	case 0060000:	/* S_IFBLK */
	case 0010000:	/* S_IFIFO */
	case 0140000:	/* S_IFSOCK */
		return 1;
	}
	return 0;
}

static int dp_opc_to_op(__u64 opc, enum dp_op *op)
{
	switch (opc) {
	case IT_DNE_CREATE_PREPARE:
		*op = DP_OP_CREATE;
		return 0;
	case IT_DNE_RENAME_PREPARE:
		*op = DP_OP_RENAME;
		return 0;
	case IT_DNE_UNLINK_PREPARE:
		*op = DP_OP_UNLINK;
		return 0;
	}
	return -EPROTO;
}

/* W8.1: the size of a 9-buffer reply with every result at its limit. */
static size_t dp_reply_size_for(const __u32 *limits)
{
	size_t need = dp_round8(MSG_HEADER_FIXED + 4 * REPLY_BUFCOUNT) +
		      dp_round8(PTLRPC_BODY_V3_SIZE) +
		      dp_round8(LDLM_REPLY_SIZE) + dp_round8(PREPARE_REP_SIZE);
	int i;

	for (i = 0; i < MLI_BUF_MAX; i++)
		need += dp_round8(limits[i]);
	return need;
}

/* The three buffers fixed in size: ldlm_request, ldlm_intent, the body. */
static int dp_req_unpack_fixed(struct dp_ctx *ctx, struct dp_req *r)
{
	const struct dp_msg *m = &r->msg;
	const __u8 *b;
	__u32 len, count;

	b = dp_msg_buf(m, 1, &len);
	if (len < LDLM_REQUEST_MIN)
		return dp_broke(ctx, "W0.2");
	if ((len - LDLM_REQUEST_FIXED) % 8 != 0)
		return dp_broke(ctx, "W0.2");
	r->nhandles = (len - LDLM_REQUEST_FIXED) / 8;
	if (r->nhandles > LDLM_REQUEST_MAX_HANDLES)
		return dp_broke(ctx, "W0.3");
	r->lock_flags = dp_get32(m->swab, b + LREQ_FLAGS);
	count = dp_get32(m->swab, b + LREQ_COUNT);
	if (count > r->nhandles)
		return dp_broke(ctx, "W0.3");
	dp_lock_desc_unpack(m->swab, b + LREQ_DESC, &r->lock);

	b = dp_msg_buf(m, 2, &len);
	if (len < LDLM_INTENT_SIZE)
		return dp_broke(ctx, "W0.2");
	r->opc = dp_get64(m->swab, b);

	b = dp_msg_buf(m, 3, &len);
	if (len < PREPARE_REQ_SIZE)
		return dp_broke(ctx, "W0.2");
	dp_prepare_req_unpack(m->swab, b, &r->body);
	return 0;
}

/* ptlrpc_body and the LDLM parts of a prepare enqueue. */
static int dp_req_check_lock(struct dp_ctx *ctx, const struct dp_req *r)
{
	int rc;

	rc = dp_msg_check_past(ctx, &r->msg, REQUEST_BUFCOUNT - 1);
	if (rc)
		return rc;
	rc = dp_ptlrpc_check(ctx, &r->msg, PTL_RPC_MSG_REQUEST);
	if (rc)
		return rc;
	if (!(r->lock_flags & LDLM_FL_HAS_INTENT))
		return dp_broke(ctx, "W0.5");
	if (r->lock.lr_type != LDLM_IBITS)
		return dp_broke(ctx, "W0.4");
	if (!(r->lock.ibits & MDS_INODELOCK_UPDATE))
		return dp_broke(ctx, "W0.5");
	return dp_lock_check(ctx, &r->lock, 0);
}

/* mcpr_fid is the lock's FID: name[0] = f_seq, name[1] = f_ver:f_oid. */
static int dp_req_fid_is_resource(const struct dp_req *r)
{
	const struct lu_fid *f = &r->body.mcpr_fid;

	return f->f_seq == r->lock.name[0] &&
	       f->f_oid == (__u32)r->lock.name[1] &&
	       f->f_ver == (__u32)(r->lock.name[1] >> 32);
}

/* Entry or object mode, the name's presence and the child mode. */
static int dp_req_check_mode(struct dp_ctx *ctx, const struct dp_req *r,
			     __u32 namebuf_len)
{
	const struct md_create_prepare_req *b = &r->body;

	if (b->mcpr_flags & MCPR_NO_LOOKUP) {
		if (r->op != DP_OP_RENAME)
			return dp_broke(ctx, "W5.3");
		if (namebuf_len != 0)
			return dp_broke(ctx, "W5.5");
	} else if (namebuf_len == 0) {
		return dp_broke(ctx, "W5.4");
	}
	if (r->op == DP_OP_CREATE && !dp_valid_file_type(b->mcpr_child_mode))
		return dp_broke(ctx, "W5.6");
	if (r->op != DP_OP_CREATE && b->mcpr_child_mode != 0)
		return dp_broke(ctx, "W5.7");
	return 0;
}

static int dp_req_check_limits(struct dp_ctx *ctx, const struct dp_req *r)
{
	const __u32 *limit = r->body.mcpr_buf_limit;
	int i;

	for (i = 0; i < MLI_BUF_MAX; i++) {
		if (limit[i] > XATTR_SIZE_MAX)
			return dp_broke(ctx, "W0.3");
		if (i == MLI_BUF_PATTR && limit[i] != 0 &&
		    limit[i] < MDT_BODY_SIZE)
			return dp_broke(ctx, "W5.13");
	}
	if ((size_t)r->msg.repsize < dp_reply_size_for(limit))
		return dp_broke(ctx, "W8.1");
	return 0;
}

static int dp_req_check(struct dp_ctx *ctx, struct dp_req *r)
{
	__u32 namebuf_len;
	int rc;

	rc = dp_req_check_lock(ctx, r);
	if (rc)
		return rc;
	if (dp_opc_to_op(r->opc, &r->op))
		return dp_broke(ctx, "W5.1");
	if (!dp_req_fid_is_resource(r))
		return dp_broke(ctx, "W5.2");
	if (r->body.mcpr_umask & ~DP_UMASK_BITS)
		return dp_broke(ctx, "W0.6");
	dp_msg_buf(&r->msg, 4, &namebuf_len);
	rc = dp_req_check_mode(ctx, r, namebuf_len);
	if (rc)
		return rc;
	return dp_req_check_limits(ctx, r);
}

/*
 * The entry name: up to the first NUL, which must be the buffer's last
 * byte, as lustre_msg_string() requires of a string with no maximum
 * length (RMF_NAME).
 */
static int dp_req_unpack_name(struct dp_ctx *ctx, struct dp_req *r)
{
	__u32 len, i;
	const __u8 *b = dp_msg_buf(&r->msg, 4, &len);
	const __u8 *nul;

	r->name = NULL;
	r->namelen = 0;
	if (len == 0)
		return 0;
	nul = memchr(b, 0, len);
	if (!nul)
		return dp_broke(ctx, "W5.8");
	if (nul != b + len - 1)
		return dp_broke(ctx, "W5.15");
	r->namelen = nul - b;
	if (r->namelen == 0)
		return dp_broke(ctx, "W5.9");
	if (r->namelen > DP_NAME_MAX)
		return dp_broke(ctx, "W5.10");
	for (i = 0; i < r->namelen; i++)
		if (b[i] == '/')
			return dp_broke(ctx, "W5.11");
	if ((r->namelen == 1 && b[0] == '.') ||
	    (r->namelen == 2 && b[0] == '.' && b[1] == '.'))
		return dp_broke(ctx, "W5.12");
	r->name = b;
	return 0;
}

static int dp_req_unpack_groups(struct dp_ctx *ctx, struct dp_req *r)
{
	__u32 len;

	r->groups = dp_msg_buf(&r->msg, 5, &len);
	if (len % 4 != 0)
		return dp_broke(ctx, "W5.14");
	if (len / 4 > GROUPS_MAX)
		return dp_broke(ctx, "W0.3");
	r->ngroups = len / 4;
	return 0;
}

static int dp_req_unpack(struct dp_ctx *ctx, struct dp_req *r,
			 const __u8 *p, size_t len)
{
	__u32 blen;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = dp_msg_unpack(ctx, &r->msg, p, len);
	if (rc)
		return rc;
	dp_msg_buf(&r->msg, 0, &blen);
	rc = dp_ptlrpc_check_len(ctx, blen);
	if (rc)
		return rc;
	rc = dp_ptlrpc_check_type(ctx, &r->msg, PTL_RPC_MSG_REQUEST);
	if (rc)
		return rc;
	if (r->msg.bufcount < 4)
		return dp_broke(ctx, "W2.1");
	rc = dp_req_unpack_fixed(ctx, r);
	if (rc)
		return rc;
	rc = dp_req_check(ctx, r);
	if (rc)
		return rc;
	rc = dp_req_unpack_name(ctx, r);
	if (rc)
		return rc;
	return dp_req_unpack_groups(ctx, r);
}

/* Canonical request: six buffers, v3 body, zero padding, name + NUL. */
static void dp_req_pack(struct dp_out *o, const struct dp_req *r)
{
	const struct dp_msg *m = &r->msg;
	__u32 lens[REQUEST_BUFCOUNT];
	const __u8 *b;
	__u32 len, i;
	__u8 *d;

	lens[0] = PTLRPC_BODY_V3_SIZE;
	lens[1] = LDLM_REQUEST_FIXED + 8 * r->nhandles;
	lens[2] = LDLM_INTENT_SIZE;
	lens[3] = PREPARE_REQ_SIZE;
	lens[4] = r->name ? r->namelen + 1 : 0;
	lens[5] = 4 * r->ngroups;
	dp_msg_pack_header(o, m, lens, REQUEST_BUFCOUNT);
	dp_ptlrpc_pack(o, m);

	b = dp_msg_buf(m, 1, &len);
	d = dp_put_zero(o, lens[1]);
	dp_set32(d + LREQ_FLAGS, r->lock_flags);
	dp_set32(d + LREQ_COUNT, dp_get32(m->swab, b + LREQ_COUNT));
	dp_lock_desc_pack(d + LREQ_DESC, m->swab, b + LREQ_DESC);
	/* lock handles are opaque: copied byte for byte */
	memcpy(d + LDLM_REQUEST_FIXED, b + LDLM_REQUEST_FIXED,
	       8 * r->nhandles);
	dp_put_pad8(o, lens[1]);

	d = dp_put_zero(o, LDLM_INTENT_SIZE);
	dp_set32(d, (__u32)r->opc);
	dp_set32(d + 4, (__u32)(r->opc >> 32));

	b = dp_msg_buf(m, 3, &len);
	dp_canon(dp_put_zero(o, PREPARE_REQ_SIZE), b, m->swab,
		 prepare_req_fields, DP_NFIELDS(prepare_req_fields));

	if (r->name) {
		dp_put_bytes(o, r->name, r->namelen);
		dp_put_zero(o, 1);
		dp_put_pad8(o, lens[4]);
	}
	for (i = 0; i < r->ngroups; i++)
		dp_put32(o, dp_get32(m->swab, r->groups + 4 * i));
	dp_put_pad8(o, lens[5]);
}

/* ---- xattr payloads (WIRE.md section 9; always little-endian) ---- */

/* W1.2 for a known magic read byte-swapped, W9.1 for any other. */
static int dp_bad_magic(struct dp_ctx *ctx, __u32 magic, const __u32 *known,
			int nknown)
{
	__u32 swabbed = (magic >> 24) | ((magic >> 8) & 0xff00) |
			((magic << 8) & 0xff0000) | (magic << 24);
	int i;

	for (i = 0; i < nknown; i++)
		if (known[i] == swabbed)
			return dp_broke(ctx, "W1.2");
	return dp_broke(ctx, "W9.1");
}

/* W9.12: a 16-byte pool name holds its NUL. */
static int dp_pool_check(struct dp_ctx *ctx, const __u8 *pool)
{
	if (!memchr(pool, 0, LOV_POOLNAMEF))
		return dp_broke(ctx, "W9.12");
	return 0;
}

/* lmv_foreign_md and lov_foreign_md: 16 + lfm_length bytes exactly. */
static int dp_foreign_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	__u32 length;

	if (len < FOREIGN_HDR)
		return dp_broke(ctx, "W0.1");
	length = dp_le32(p + 4);
	if (length > XATTR_SIZE_MAX - FOREIGN_HDR)
		return dp_broke(ctx, "W0.3");
	if (len - FOREIGN_HDR != length)
		return dp_broke(ctx, "W9.2");
	return 0;
}

/* -- POSIX ACL -- */

#define ACL_USER_OBJ	0x01
#define ACL_USER	0x02
#define ACL_GROUP_OBJ	0x04
#define ACL_GROUP	0x08
#define ACL_MASK	0x10
#define ACL_OTHER	0x20
#define ACL_UNDEFINED_ID	0xffffffffU

/* Where the entry walk is: what the next entry may be. */
enum dp_acl_state {
	DP_ACL_START,		/* USER_OBJ */
	DP_ACL_USERS,		/* USER or GROUP_OBJ */
	DP_ACL_GROUPS,		/* GROUP, MASK or OTHER */
	DP_ACL_MASKED,		/* OTHER */
	DP_ACL_DONE,		/* nothing */
};

struct dp_acl_walk {
	enum dp_acl_state	state;
	int			named;
	int			mask;
	int			have_user, have_group;
	__u32			prev_user, prev_group;
};

/* W9.9: named ids strictly increase within USER and within GROUP. */
static int dp_acl_id(struct dp_ctx *ctx, int *have, __u32 *prev, __u32 id)
{
	if (*have && id <= *prev)
		return dp_broke(ctx, "W9.9");
	*have = 1;
	*prev = id;
	return 0;
}

/* W9.6: USER_OBJ, USER*, GROUP_OBJ, GROUP*, MASK?, OTHER. */
static int dp_acl_step(struct dp_ctx *ctx, struct dp_acl_walk *w, __u16 tag,
		       __u32 id)
{
	switch (tag) {
	case ACL_USER_OBJ:
		if (w->state != DP_ACL_START)
			break;
		w->state = DP_ACL_USERS;
		return 0;
	case ACL_USER:
		if (w->state != DP_ACL_USERS)
			break;
		w->named = 1;
		return dp_acl_id(ctx, &w->have_user, &w->prev_user, id);
	case ACL_GROUP_OBJ:
		if (w->state != DP_ACL_USERS)
			break;
		w->state = DP_ACL_GROUPS;
		return 0;
	case ACL_GROUP:
		if (w->state != DP_ACL_GROUPS)
			break;
		w->named = 1;
		return dp_acl_id(ctx, &w->have_group, &w->prev_group, id);
	case ACL_MASK:
		if (w->state != DP_ACL_GROUPS)
			break;
		w->mask = 1;
		w->state = DP_ACL_MASKED;
		return 0;
	case ACL_OTHER:
		if (w->state != DP_ACL_GROUPS && w->state != DP_ACL_MASKED)
			break;
		w->state = DP_ACL_DONE;
		return 0;
	}
	return dp_broke(ctx, "W9.6");
}

static int dp_acl_tag_known(__u16 tag)
{
	return tag == ACL_USER_OBJ || tag == ACL_USER ||
	       tag == ACL_GROUP_OBJ || tag == ACL_GROUP ||
	       tag == ACL_MASK || tag == ACL_OTHER;
}

static int dp_acl_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	struct dp_acl_walk w;
	size_t n, i;
	int rc;

	if (len > XATTR_SIZE_MAX)
		return dp_broke(ctx, "W0.3");
	if (len < 4)
		return dp_broke(ctx, "W0.1");
	if (dp_le32(p) != POSIX_ACL_XATTR_VERSION)
		return dp_broke(ctx, "W9.10");
	if ((len - 4) % 8 != 0)
		return dp_broke(ctx, "W9.3");
	n = (len - 4) / 8;
	if (n > ACL_MAX_ENTRIES)
		return dp_broke(ctx, "W0.3");
	if (n == 0)
		return 0;	/* no ACL */

	memset(&w, 0, sizeof(w));
	for (i = 0; i < n; i++) {
		const __u8 *e = p + 4 + 8 * i;
		__u16 tag = dp_le16(e);

		if (!dp_acl_tag_known(tag))
			return dp_broke(ctx, "W9.4");
		if (dp_le16(e + 2) > 7)
			return dp_broke(ctx, "W9.5");
		rc = dp_acl_step(ctx, &w, tag, dp_le32(e + 4));
		if (rc)
			return rc;
	}
	if (w.state != DP_ACL_DONE)
		return dp_broke(ctx, "W9.7");
	if (w.named && !w.mask)
		return dp_broke(ctx, "W9.8");
	return 0;
}

/* Canonical ACL: e_id of USER_OBJ, GROUP_OBJ, MASK, OTHER is undefined. */
static void dp_acl_pack(struct dp_out *o, const __u8 *p, size_t len)
{
	__u8 *d = o->buf + o->len;
	size_t i;

	dp_put_bytes(o, p, len);
	for (i = 4; i + 8 <= len; i += 8) {
		__u16 tag = dp_le16(d + i);

		if (tag != ACL_USER && tag != ACL_GROUP)
			dp_set32(d + i + 4, ACL_UNDEFINED_ID);
	}
}

/* -- LMV (trusted.lmv) -- */

#define LMV_HDR		56

static int dp_lmv_md_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	__u32 count;

	if (len < LMV_HDR)
		return dp_broke(ctx, "W0.1");
	count = dp_le32(p + 4);
	if (count > LMV_MAX_STRIPE_COUNT)
		return dp_broke(ctx, "W0.3");
	if (dp_pool_check(ctx, p + 40))
		return -EPROTO;
	if (len == LMV_HDR + 16 * (size_t)count)
		return 0;
	/* The header alone, as LOD stores a master or a stripe on disk. */
	if (len == LMV_HDR)
		return 0;
	return dp_broke(ctx, "W9.2");
}

static int dp_lmv_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	static const __u32 known[] = {
		LMV_MAGIC_V1, LMV_MAGIC_STRIPE, LMV_MAGIC_FOREIGN
	};
	__u32 magic;

	if (len > XATTR_SIZE_MAX)
		return dp_broke(ctx, "W0.3");
	if (len < 4)
		return dp_broke(ctx, "W0.1");
	magic = dp_le32(p);
	if (magic == LMV_MAGIC_V1 || magic == LMV_MAGIC_STRIPE)
		return dp_lmv_md_check(ctx, p, len);
	if (magic == LMV_MAGIC_FOREIGN) {
		if (dp_foreign_check(ctx, p, len))
			return -EPROTO;
		/* lod_xattr_get refuses an empty foreign LMV */
		if (len == FOREIGN_HDR)
			return dp_broke(ctx, "W9.19");
		return 0;
	}
	return dp_bad_magic(ctx, magic, known, 3);
}

/* -- default LMV (trusted.dmv) -- */

#define LUM_HDR		48
#define LUM_MDS_SIZE	24

static int dp_dmv_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	static const __u32 known[] = {
		LMV_MAGIC_USER, LMV_USER_MAGIC_SPECIFIC
	};
	__u32 magic;
	__s32 count, min;
	size_t expected;

	if (len > XATTR_SIZE_MAX)
		return dp_broke(ctx, "W0.3");
	if (len < 4)
		return dp_broke(ctx, "W0.1");
	magic = dp_le32(p);
	if (magic != LMV_MAGIC_USER && magic != LMV_USER_MAGIC_SPECIFIC)
		return dp_bad_magic(ctx, magic, known, 2);
	if (len < LUM_HDR)
		return dp_broke(ctx, "W0.1");
	count = (__s32)dp_le32(p + 4);
	min = magic == LMV_USER_MAGIC_SPECIFIC ? 0 : -LMV_MAX_STRIPES_PER_MDT;
	if (count < min)
		return dp_broke(ctx, "W9.11");
	if (count > LMV_MAX_STRIPE_COUNT)
		return dp_broke(ctx, "W0.3");
	expected = LUM_HDR;
	if (magic == LMV_USER_MAGIC_SPECIFIC)
		expected += LUM_MDS_SIZE * (size_t)count;
	if (len != expected)
		return dp_broke(ctx, "W9.2");
	return dp_pool_check(ctx, p + 32);
}

/* -- LOV (trusted.lov) -- */

#define LOV_V1_HDR	32
#define LOV_V3_HDR	48
#define LOV_OST_SIZE	24
#define LCM_HDR		32
#define LCME_SIZE	48

static const __u32 lov_known[] = {
	LOV_MAGIC_V1, LOV_MAGIC_V3, LOV_MAGIC_SPECIFIC, LOV_MAGIC_COMP_V1,
	LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL
};
#define LOV_NKNOWN	(sizeof(lov_known) / sizeof(lov_known[0]))

/* LOV_MAGIC_SEL is how LOD stores a layout with a self-extending component. */
static int dp_lov_is_comp(__u32 magic)
{
	return magic == LOV_MAGIC_COMP_V1 || magic == LOV_MAGIC_SEL;
}

/*
 * lov_user_md_v1/v3: a template, or one ost_data per stripe.  A component
 * that is not instantiated (@uninit) may instead hold the one placeholder
 * entry LOD writes (l_ost_idx -1) whatever its stripe count (W9.20).
 */
static int dp_lov_md_check(struct dp_ctx *ctx, const __u8 *p, size_t len,
			   int uninit)
{
	size_t hdr, objects;
	__u16 count;

	if (len < LOV_V1_HDR)
		return dp_broke(ctx, "W0.1");
	hdr = dp_le32(p) == LOV_MAGIC_V1 ? LOV_V1_HDR : LOV_V3_HDR;
	count = dp_le16(p + 28);
	if (count < LOV_ALL_STRIPES_WIDE && count > LOV_MAX_STRIPE_COUNT)
		return dp_broke(ctx, "W0.3");
	if (len < hdr)
		return dp_broke(ctx, "W0.1");
	if (hdr == LOV_V3_HDR && dp_pool_check(ctx, p + 32))
		return -EPROTO;
	/* 0xffe0..0xffff mean "default" or "all": no objects. */
	objects = count >= LOV_ALL_STRIPES_WIDE ? 0 : count;
	if (uninit && len - hdr == LOV_OST_SIZE && objects != 1) {
		if (dp_le32(p + hdr + 20) != LOV_OST_IDX_NONE)
			return dp_broke(ctx, "W9.20");
		return 0;
	}
	if (len != hdr && len - hdr != LOV_OST_SIZE * objects)
		return dp_broke(ctx, "W9.2");
	return 0;
}

/* One component blob: v1, v3 or foreign (W9.18). */
static int dp_lov_blob_check(struct dp_ctx *ctx, const __u8 *p, size_t len,
			     int uninit)
{
	__u32 magic;

	if (len < 4)
		return dp_broke(ctx, "W0.1");
	magic = dp_le32(p);
	if (magic == LOV_MAGIC_V1 || magic == LOV_MAGIC_V3 ||
	    magic == LOV_MAGIC_SPECIFIC)
		return dp_lov_md_check(ctx, p, len, uninit);
	if (magic == LOV_MAGIC_FOREIGN)
		return dp_foreign_check(ctx, p, len);
	if (dp_lov_is_comp(magic))
		return dp_broke(ctx, "W9.18");
	return dp_bad_magic(ctx, magic, lov_known, LOV_NKNOWN);
}

/* W9.17: does entry @i's blob overlap an earlier entry's? */
static int dp_lov_comp_overlaps(const __u8 *p, size_t i, size_t start,
				size_t end)
{
	size_t j;

	for (j = 0; j < i; j++) {
		const __u8 *e = p + LCM_HDR + LCME_SIZE * j;
		size_t ps = dp_le32(e + 24);
		size_t pe = ps + dp_le32(e + 28);

		if (start < pe && ps < end)
			return 1;
	}
	return 0;
}

static int dp_lov_comp_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	size_t table_end, max_end, i;
	__u16 count;
	int rc;

	if (len < LCM_HDR)
		return dp_broke(ctx, "W0.1");
	if (dp_le32(p + 4) != len)
		return dp_broke(ctx, "W9.2");
	count = dp_le16(p + 14);
	if (count == 0)
		return dp_broke(ctx, "W9.13");
	table_end = LCM_HDR + LCME_SIZE * (size_t)count;
	if (table_end > len)
		return dp_broke(ctx, "W9.14");

	max_end = table_end;
	for (i = 0; i < count; i++) {
		const __u8 *e = p + LCM_HDR + LCME_SIZE * i;
		size_t start = dp_le32(e + 24);
		size_t end = start + dp_le32(e + 28);

		if (end > len)
			return dp_broke(ctx, "W9.15");
		if (start < table_end)
			return dp_broke(ctx, "W9.16");
		/* blobs in table order never need the quadratic look */
		if (start < max_end && dp_lov_comp_overlaps(p, i, start, end))
			return dp_broke(ctx, "W9.17");
		if (end > max_end)
			max_end = end;
		rc = dp_lov_blob_check(ctx, p + start, end - start,
				       !(dp_le32(e + 4) & LCME_FL_INIT));
		if (rc)
			return rc;
	}
	return 0;
}

static int dp_lov_check(struct dp_ctx *ctx, const __u8 *p, size_t len)
{
	__u32 magic;

	if (len > XATTR_SIZE_MAX)
		return dp_broke(ctx, "W0.3");
	if (len < 4)
		return dp_broke(ctx, "W0.1");
	magic = dp_le32(p);
	if (magic == LOV_MAGIC_V1 || magic == LOV_MAGIC_V3 ||
	    magic == LOV_MAGIC_SPECIFIC)
		return dp_lov_md_check(ctx, p, len, 0);
	if (dp_lov_is_comp(magic))
		return dp_lov_comp_check(ctx, p, len);
	if (magic == LOV_MAGIC_FOREIGN)
		return dp_foreign_check(ctx, p, len);
	return dp_bad_magic(ctx, magic, lov_known, LOV_NKNOWN);
}

/*
 * Canonical composite layout (W11.9): the blobs in entry order, packed
 * right after the entry table, offsets and lcm_size recomputed.  The
 * magic (COMP_V1 or SEL) and the header's padding are kept as found.
 */
static void dp_lov_comp_pack(struct dp_out *o, const __u8 *p)
{
	__u16 count = dp_le16(p + 14);
	size_t start = o->len, off, i;
	__u8 *d;

	d = dp_put_zero(o, LCM_HDR);
	memcpy(d, p, LCM_HDR);		/* lcm_size is rewritten below */
	dp_put_bytes(o, p + LCM_HDR, LCME_SIZE * (size_t)count);

	off = LCM_HDR + LCME_SIZE * (size_t)count;
	for (i = 0; i < count; i++) {
		__u8 *e = o->buf + start + LCM_HDR + LCME_SIZE * i;
		__u32 bstart = dp_le32(e + 24);
		__u32 bsize = dp_le32(e + 28);

		dp_put_bytes(o, p + bstart, bsize);
		dp_set32(e + 24, off);
		off += bsize;
	}
	dp_set32(o->buf + start + 4, off);
}

static void dp_lov_pack(struct dp_out *o, const __u8 *p, size_t len)
{
	if (dp_lov_is_comp(dp_le32(p)))
		dp_lov_comp_pack(o, p);
	else
		dp_put_bytes(o, p, len);
}

/* -- the payload kinds, by xattr name -- */

enum dp_xattr_kind {
	DP_XATTR_UNKNOWN,
	DP_XATTR_ACL,
	DP_XATTR_PIN,
	DP_XATTR_LMV,
	DP_XATTR_DMV,
	DP_XATTR_LOV,
};

static enum dp_xattr_kind dp_xattr_kind_of(const char *name)
{
	if (!strcmp(name, "system.posix_acl_access") ||
	    !strcmp(name, "system.posix_acl_default"))
		return DP_XATTR_ACL;
	/* lustre.* are the client-visible aliases of the trusted.* names */
	if (!strcmp(name, "trusted.pin") || !strcmp(name, "lustre.pin"))
		return DP_XATTR_PIN;
	if (!strcmp(name, "trusted.lmv") || !strcmp(name, "lustre.lmv"))
		return DP_XATTR_LMV;
	if (!strcmp(name, "trusted.dmv") || !strcmp(name, "lustre.dmv"))
		return DP_XATTR_DMV;
	if (!strcmp(name, "trusted.lov") || !strcmp(name, "lustre.lov"))
		return DP_XATTR_LOV;
	return DP_XATTR_UNKNOWN;
}

/* Validates one payload by its kind; the pin is opaque, only its size bound. */
static int dp_xattr_check(struct dp_ctx *ctx, enum dp_xattr_kind kind,
			  const __u8 *p, size_t len)
{
	switch (kind) {
	case DP_XATTR_ACL:
		return dp_acl_check(ctx, p, len);
	case DP_XATTR_PIN:
		if (len > XATTR_SIZE_MAX)
			return dp_broke(ctx, "W0.3");
		return 0;
	case DP_XATTR_LMV:
		return dp_lmv_check(ctx, p, len);
	case DP_XATTR_DMV:
		return dp_dmv_check(ctx, p, len);
	case DP_XATTR_LOV:
		return dp_lov_check(ctx, p, len);
	default:
		return -EOPNOTSUPP;
	}
}

static void dp_xattr_pack(struct dp_out *o, enum dp_xattr_kind kind,
			  const __u8 *p, size_t len)
{
	switch (kind) {
	case DP_XATTR_ACL:
		dp_acl_pack(o, p, len);
		break;
	case DP_XATTR_LOV:
		dp_lov_pack(o, p, len);
		break;
	default:
		dp_put_bytes(o, p, len);
		break;
	}
}

/* ---- the reply (WIRE.md sections 6-8) ---- */

/* What a reply's rules need to know of the request it answers. */
struct dp_reply_ctx {
	enum dp_op		op;
	__u32			flags;		/* mcpr_flags */
	__u32			limits[MLI_BUF_MAX];
	__u32			requested;	/* bit i: limits[i] != 0 */
	struct dp_lock_desc	lock;
	__u32			repsize;
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

static void dp_reply_ctx_init(struct dp_reply_ctx *c, const struct dp_req *r)
{
	int i;

	c->op = r->op;
	c->flags = r->body.mcpr_flags;
	c->requested = 0;
	for (i = 0; i < MLI_BUF_MAX; i++) {
		c->limits[i] = r->body.mcpr_buf_limit[i];
		if (c->limits[i] != 0)
			c->requested |= 1U << i;
	}
	c->lock = r->lock;
	c->repsize = r->msg.repsize;
}

static void dp_prepare_rep_unpack(int swab, const __u8 *p,
				  struct md_create_prepare_rep *b)
{
	int i;

	b->mcpp_status = (__s32)dp_get32(swab, p);
	b->mcpp_flags = dp_get32(swab, p + 4);
	b->mcpp_valid = dp_get32(swab, p + 8);
	b->mcpp_truncated = dp_get32(swab, p + 12);
	b->mcpp_fid.f_seq = dp_get64(swab, p + 16);
	b->mcpp_fid.f_oid = dp_get32(swab, p + 24);
	b->mcpp_fid.f_ver = dp_get32(swab, p + 28);
	b->mcpp_child_mode = dp_get32(swab, p + 32);
	b->mcpp_child_gid = dp_get32(swab, p + 36);
	b->mcpp_child_projid = dp_get32(swab, p + 40);
	b->mcpp_child_flags = dp_get32(swab, p + 44);
	for (i = 0; i < MLI_BUF_MAX; i++)
		b->mcpp_buf_size[i] = dp_get32(swab, p + 48 + 4 * i);
	b->mcpp_padding = 0;
}

/* Lustre's fid_is_zero(): f_ver does not count. */
static int dp_fid_is_zero(const struct lu_fid *f)
{
	return f->f_seq == 0 && f->f_oid == 0;
}

/* W7.1: an error reply grants no lock. */
static int dp_rep_check_status(struct dp_ctx *ctx, const struct dp_msg *m)
{
	__u32 len;
	const __u8 *b = dp_msg_buf(m, 0, &len);

	if (dp_get32(m->swab, b + PB_TYPE) == PTL_RPC_MSG_ERR ||
	    dp_get32(m->swab, b + PB_STATUS) != 0)
		return dp_broke(ctx, "W7.1");
	return 0;
}

/* ldlm_reply: lock type, dispositions (W0.5, W0.6, W7.3), res2. */
static int dp_rep_check_disp(struct dp_ctx *ctx, const struct dp_rep *r)
{
	__u64 d = r->res1;
	int pos = !!(d & DISP_LOOKUP_POS), neg = !!(d & DISP_LOOKUP_NEG);
	int execd = !!(d & DISP_LOOKUP_EXECD);

	if (r->lock.lr_type != LDLM_IBITS)
		return dp_broke(ctx, "W0.4");
	if (!(d & DISP_IT_EXECD))
		return dp_broke(ctx, "W0.5");
	if (d & ~DISP_ALL)
		return dp_broke(ctx, "W0.6");
	if (r->res2 != 0)
		return dp_broke(ctx, "W0.4");
	if (pos && neg)
		return dp_broke(ctx, "W7.3");
	if ((pos || neg) != execd)
		return dp_broke(ctx, "W7.3");
	return 0;
}

/* W7.4, W8.2 and W7.16 against the request, when it is known. */
static int dp_rep_check_granted(struct dp_ctx *ctx, const struct dp_rep *r)
{
	const struct dp_reply_ctx *c = r->rctx;
	int k;

	if (r->lock.granted_mode != r->lock.req_mode)
		return dp_broke(ctx, "W7.4");
	if (!c)
		return 0;
	for (k = 0; k < 4; k++)
		if (r->lock.name[k] != c->lock.name[k])
			return dp_broke(ctx, "W7.4");
	if (r->lock.granted_mode != c->lock.req_mode)
		return dp_broke(ctx, "W7.4");
	if (r->msg.wire_len > c->repsize)
		return dp_broke(ctx, "W8.2");
	if ((c->flags & MCPR_NO_LOOKUP) && (r->res1 & DISP_LOOKUP_EXECD))
		return dp_broke(ctx, "W7.16");
	return 0;
}

/* The lookup as md_create_prepare_rep reports it (W7.5 - W7.7, W7.3). */
static int dp_rep_check_lookup(struct dp_ctx *ctx, const struct dp_rep *r)
{
	const struct md_create_prepare_rep *b = &r->body;
	int done = !!(b->mcpp_flags & MCPP_LOOKUP_DONE);
	int found = !!(b->mcpp_flags & MCPP_LOOKUP_POS);

	if (b->mcpp_status > 0)
		return dp_broke(ctx, "W7.5");
	if (found && !done)
		return dp_broke(ctx, "W7.6");
	if (dp_fid_is_zero(&b->mcpp_fid) == found)
		return dp_broke(ctx, "W7.7");
	if (done != !!(r->res1 & DISP_LOOKUP_EXECD))
		return dp_broke(ctx, "W7.3");
	if (found != !!(r->res1 & DISP_LOOKUP_POS))
		return dp_broke(ctx, "W7.3");
	return 0;
}

/* The result masks and the derived child (W6.1, W7.8, W6.2, W7.13/14). */
static int dp_rep_check_masks(struct dp_ctx *ctx, const struct dp_rep *r)
{
	const struct md_create_prepare_rep *b = &r->body;
	int derived = !!(b->mcpp_flags & MCPP_CHILD_DERIVED);
	int found = !!(b->mcpp_flags & MCPP_LOOKUP_POS);
	__u32 mode = b->mcpp_child_mode;

	if ((b->mcpp_valid | b->mcpp_truncated) & ~MLI_MASK_ALL)
		return dp_broke(ctx, "W6.1");
	if (b->mcpp_valid & b->mcpp_truncated)
		return dp_broke(ctx, "W7.8");
	if (b->mcpp_truncated & (1U << MLI_BUF_PATTR))
		return dp_broke(ctx, "W6.2");
	if (derived && b->mcpp_status != 0)
		return dp_broke(ctx, "W7.13");
	if (derived && r->rctx && r->rctx->op != DP_OP_CREATE)
		return dp_broke(ctx, "W7.13");
	if (found && !derived && mode != 0 &&
	    ((mode & ~S_IFMT_BITS) || !dp_valid_file_type(mode)))
		return dp_broke(ctx, "W7.14");
	return 0;
}

/* W7.9: nothing reported about a result the request did not ask for. */
static int dp_rep_check_requested(struct dp_ctx *ctx, const struct dp_rep *r)
{
	const struct md_create_prepare_rep *b = &r->body;
	__u32 requested = r->rctx->requested;
	int i;

	if ((b->mcpp_valid | b->mcpp_truncated) & ~requested)
		return dp_broke(ctx, "W7.9");
	for (i = 0; i < MLI_BUF_MAX; i++)
		if (!(requested & (1U << i)) && b->mcpp_buf_size[i] != 0)
			return dp_broke(ctx, "W7.9");
	return 0;
}

/* One result buffer against mcpp_valid, _truncated and _buf_size. */
static int dp_rep_check_result(struct dp_ctx *ctx, const struct dp_rep *r,
			       int i)
{
	const struct md_create_prepare_rep *b = &r->body;
	__u32 len = r->result_len[i], size = b->mcpp_buf_size[i];
	__u32 limit = r->rctx ? r->rctx->limits[i] : 0;

	if (b->mcpp_valid & (1U << i)) {
		if (len != size)
			return dp_broke(ctx, "W7.10");
		if (i == MLI_BUF_PATTR && len != MDT_BODY_SIZE)
			return dp_broke(ctx, "W6.2");
		if (len > XATTR_SIZE_MAX)
			return dp_broke(ctx, "W0.3");
		if (r->rctx && size > limit)
			return dp_broke(ctx, "W7.11");
		return 0;
	}
	if (len != 0)
		return dp_broke(ctx, "W7.2");
	if ((b->mcpp_truncated & (1U << i)) && size <= limit)
		return dp_broke(ctx, "W7.12");
	return 0;
}

/* Every present result is a valid payload of its kind (section 9). */
static int dp_rep_check_payloads(struct dp_ctx *ctx, const struct dp_rep *r)
{
	static const enum dp_xattr_kind kinds[MLI_BUF_MAX] = {
		[MLI_BUF_PATTR]		= DP_XATTR_UNKNOWN,
		[MLI_BUF_DEF_ACL]	= DP_XATTR_ACL,
		[MLI_BUF_PIN]		= DP_XATTR_UNKNOWN,
		[MLI_BUF_LMV]		= DP_XATTR_LMV,
		[MLI_BUF_LOV]		= DP_XATTR_LOV,
		[MLI_BUF_DEF_LMV]	= DP_XATTR_DMV,
	};
	int i, rc;

	for (i = 0; i < MLI_BUF_MAX; i++) {
		if (!(r->body.mcpp_valid & (1U << i)) || !r->result_len[i] ||
		    kinds[i] == DP_XATTR_UNKNOWN)
			continue;
		rc = dp_xattr_check(ctx, kinds[i], r->result[i],
				    r->result_len[i]);
		if (rc)
			return rc;
	}
	return 0;
}

static int dp_rep_check_body(struct dp_ctx *ctx, const struct dp_rep *r)
{
	const struct dp_reply_ctx *c = r->rctx;
	int i, rc;

	if (c && (c->flags & ~MCPR_KNOWN))
		return dp_broke(ctx, "W7.15");
	if (c && (c->flags & MCPR_NO_LOOKUP) &&
	    (r->body.mcpp_flags & MCPP_LOOKUP_DONE))
		return dp_broke(ctx, "W7.16");
	rc = dp_rep_check_lookup(ctx, r);
	if (rc)
		return rc;
	rc = dp_rep_check_masks(ctx, r);
	if (rc)
		return rc;
	if (c) {
		rc = dp_rep_check_requested(ctx, r);
		if (rc)
			return rc;
	}
	for (i = 0; i < MLI_BUF_MAX; i++) {
		rc = dp_rep_check_result(ctx, r, i);
		if (rc)
			return rc;
	}
	return dp_rep_check_payloads(ctx, r);
}

static int dp_rep_check(struct dp_ctx *ctx, const struct dp_rep *r)
{
	int i, rc;

	rc = dp_msg_check_past(ctx, &r->msg, REPLY_BUFCOUNT - 1);
	if (rc)
		return rc;
	rc = dp_rep_check_status(ctx, &r->msg);
	if (rc)
		return rc;
	rc = dp_ptlrpc_check(ctx, &r->msg, PTL_RPC_MSG_REPLY);
	if (rc)
		return rc;
	rc = dp_rep_check_disp(ctx, r);
	if (rc)
		return rc;
	rc = dp_lock_check(ctx, &r->lock, 1);
	if (rc)
		return rc;
	rc = dp_rep_check_granted(ctx, r);
	if (rc)
		return rc;
	if (r->has_body)
		return dp_rep_check_body(ctx, r);
	/* the empty result: every result buffer is empty (W7.2) */
	for (i = 0; i < MLI_BUF_MAX; i++)
		if (r->result_len[i] != 0)
			return dp_broke(ctx, "W7.2");
	return 0;
}

static int dp_rep_unpack(struct dp_ctx *ctx, struct dp_rep *r,
			 const __u8 *p, size_t len,
			 const struct dp_reply_ctx *rctx)
{
	const struct dp_msg *m = &r->msg;
	const __u8 *b;
	__u32 blen;
	int i, rc;

	memset(r, 0, sizeof(*r));
	r->rctx = rctx;
	rc = dp_msg_unpack(ctx, &r->msg, p, len);
	if (rc)
		return rc;
	dp_msg_buf(m, 0, &blen);
	rc = dp_ptlrpc_check_len(ctx, blen);
	if (rc)
		return rc;
	rc = dp_ptlrpc_check_type(ctx, m, PTL_RPC_MSG_REPLY);
	if (rc)
		return rc;
	rc = dp_rep_check_status(ctx, m);
	if (rc)
		return rc;
	if (m->bufcount < 2)
		return dp_broke(ctx, "W2.1");

	b = dp_msg_buf(m, 1, &blen);
	if (blen < LDLM_REPLY_SIZE)
		return dp_broke(ctx, "W0.2");
	dp_lock_desc_unpack(m->swab, b + LREP_DESC, &r->lock);
	r->res1 = dp_get64(m->swab, b + LREP_RES1);
	r->res2 = dp_get64(m->swab, b + LREP_RES2);

	b = dp_msg_buf(m, 2, &blen);
	if (blen != 0 && blen < PREPARE_REP_SIZE)
		return dp_broke(ctx, "W0.2");
	if (blen != 0) {
		r->has_body = 1;
		dp_prepare_rep_unpack(m->swab, b, &r->body);
	}
	for (i = 0; i < MLI_BUF_MAX; i++)
		r->result[i] = dp_msg_buf(m, 3 + i, &r->result_len[i]);
	return dp_rep_check(ctx, r);
}

/* Canonical reply: nine buffers, v3 body, results carried verbatim. */
static void dp_rep_pack(struct dp_out *o, const struct dp_rep *r)
{
	const struct dp_msg *m = &r->msg;
	__u32 lens[REPLY_BUFCOUNT];
	const __u8 *b;
	__u32 len;
	__u8 *d;
	int i;

	memset(lens, 0, sizeof(lens));
	lens[0] = PTLRPC_BODY_V3_SIZE;
	lens[1] = LDLM_REPLY_SIZE;
	if (r->has_body) {
		lens[2] = PREPARE_REP_SIZE;
		for (i = 0; i < MLI_BUF_MAX; i++)
			lens[3 + i] = r->result_len[i];
	}
	dp_msg_pack_header(o, m, lens, REPLY_BUFCOUNT);
	dp_ptlrpc_pack(o, m);

	b = dp_msg_buf(m, 1, &len);
	d = dp_put_zero(o, LDLM_REPLY_SIZE);
	dp_set32(d, dp_get32(m->swab, b));		/* lock_flags */
	dp_lock_desc_pack(d + LREP_DESC, m->swab, b + LREP_DESC);
	memcpy(d + 88, b + 88, 8);		/* lock_handle: opaque */
	dp_canon(d, b, m->swab, ldlm_reply_res_fields,
		 DP_NFIELDS(ldlm_reply_res_fields));

	if (!r->has_body)
		return;
	b = dp_msg_buf(m, 2, &len);
	d = dp_put_zero(o, PREPARE_REP_SIZE);
	dp_canon(d, b, m->swab, prepare_rep_fields,
		 DP_NFIELDS(prepare_rep_fields));
	if (dp_fid_is_zero(&r->body.mcpp_fid))
		memset(d + 16, 0, sizeof(struct lu_fid));	/* W11.6 */
	for (i = 0; i < MLI_BUF_MAX; i++) {
		dp_put_bytes(o, r->result[i], r->result_len[i]);
		dp_put_pad8(o, r->result_len[i]);
	}
}

/* ---- judging one input ---- */

static int dp_judge_request(struct dp_ctx *ctx, struct dp_out *o,
			    const __u8 *p, size_t len)
{
	static struct dp_req r;
	int rc;

	rc = dp_req_unpack(ctx, &r, p, len);
	if (!rc)
		dp_req_pack(o, &r);
	return rc;
}

/*
 * A reply, against its request when the runner sent one.  A reply to a
 * request that is itself invalid cannot be judged: "unsupported".
 */
static int dp_judge_reply(struct dp_ctx *ctx, struct dp_out *o,
			  const __u8 *p, size_t len, const __u8 *req,
			  size_t req_len, int have_req)
{
	static struct dp_req r;
	static struct dp_rep rep;
	struct dp_reply_ctx rctx;
	struct dp_ctx req_ctx = { NULL };
	int rc;

	if (have_req) {
		if (dp_req_unpack(&req_ctx, &r, req, req_len)) {
#ifndef DP_NO_MAIN
			fprintf(stderr, "testee: the request of a reply "
				"case breaks %s\n", req_ctx.rule);
#endif
			return -EOPNOTSUPP;
		}
		dp_reply_ctx_init(&rctx, &r);
	}
	rc = dp_rep_unpack(ctx, &rep, p, len, have_req ? &rctx : NULL);
	if (!rc)
		dp_rep_pack(o, &rep);
	return rc;
}

static int dp_judge_xattr(struct dp_ctx *ctx, struct dp_out *o,
			  const char *name, const __u8 *p, size_t len)
{
	enum dp_xattr_kind kind = DP_XATTR_UNKNOWN;
	int rc;

	if (name)
		kind = dp_xattr_kind_of(name);
	/* a name this specification has no rule for (section 9) */
	if (kind == DP_XATTR_UNKNOWN)
		return -EOPNOTSUPP;
	rc = dp_xattr_check(ctx, kind, p, len);
	if (!rc)
		dp_xattr_pack(o, kind, p, len);
	return rc;
}

/*
 * The decoder as a library, for the differential fuzz target of fuzz/
 * (built with -DDP_NO_MAIN, which leaves out the runner protocol below).
 * kind: 0 a request, 1 a reply (against req when have_req), 2 the xattr
 * payload of xattr_name.  Returns 0 (valid: the canonical form is in out,
 * *out_len bytes), 1 (invalid: *rule is the ID of the broken rule) or 2
 * (unsupported); -EINVAL when out is smaller than DP_OUT_MAX.
 */
int dp_judge_bytes(int kind, const char *xattr_name, const __u8 *in,
		   size_t len, const __u8 *req, size_t req_len, int have_req,
		   __u8 *out, size_t out_max, size_t *out_len,
		   const char **rule);

int dp_judge_bytes(int kind, const char *xattr_name, const __u8 *in,
		   size_t len, const __u8 *req, size_t req_len, int have_req,
		   __u8 *out, size_t out_max, size_t *out_len,
		   const char **rule)
{
	struct dp_ctx ctx = { NULL };
	struct dp_out o = { out, 0 };
	int rc;

	if (out_max < DP_OUT_MAX)
		return -EINVAL;
	switch (kind) {
	case 0:
		rc = dp_judge_request(&ctx, &o, in, len);
		break;
	case 1:
		rc = dp_judge_reply(&ctx, &o, in, len, req, req_len, have_req);
		break;
	default:
		rc = dp_judge_xattr(&ctx, &o, xattr_name, in, len);
		break;
	}
	*out_len = o.len;
	*rule = ctx.rule;
	if (rc == 0)
		return 0;
	return rc == -EOPNOTSUPP ? 2 : 1;
}

#ifndef DP_NO_MAIN

/* ---- the runner protocol (docs/conformance.md) ---- */

/*
 * Bounds of the protocol: a frame is at most CONFORM_MAX_FRAME bytes
 * (docs/conformance.md 2.1), an xattr name at most XATTR_NAME_MAX, and
 * an unknown member nests at most DP_JSON_DEPTH deep.
 */
#define DP_FRAME_MAX	(4U << 20)
#define DP_XNAME_MAX	255
#define DP_JSON_DEPTH	16

enum dp_case_kind { DP_CASE_NONE, DP_CASE_REQUEST, DP_CASE_REPLY,
		    DP_CASE_XATTR };

/* One case as the runner sent it; strings point into the frame. */
struct dp_case {
	unsigned long long	id;
	int			have_id;
	enum dp_case_kind	kind;
	const char		*hex;
	size_t			hex_len;
	const char		*req_hex;	/* NULL: not sent */
	size_t			req_hex_len;
	char			xname[DP_XNAME_MAX + 1];
	int			have_xname;
	int			xname_too_long;
};

static void dp_die(const char *what)
{
	fprintf(stderr, "testee: protocol error: %s\n", what);
	exit(2);
}

struct dp_json {
	const char	*p;
	const char	*end;
};

static void dp_json_ws(struct dp_json *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
				 *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void dp_json_expect(struct dp_json *j, char c)
{
	dp_json_ws(j);
	if (j->p >= j->end || *j->p != c)
		dp_die("malformed JSON");
	j->p++;
}

static int dp_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* \uXXXX, for an ASCII character other than NUL (all the protocol needs). */
static int dp_json_u_escape(struct dp_json *j)
{
	int k, v = 0;

	if (j->end - j->p < 4)
		dp_die("malformed JSON escape");
	for (k = 0; k < 4; k++) {
		int h = dp_hexval((unsigned char)j->p[k]);

		if (h < 0)
			dp_die("malformed JSON escape");
		v = v * 16 + h;
	}
	j->p += 4;
	if (v == 0 || v >= 0x80)
		dp_die("unsupported JSON escape");
	return v;
}

/*
 * A JSON string, decoded into @out (at most @cap bytes; *@too_long when
 * it did not fit).  Escapes beyond ASCII are refused: no field of the
 * protocol needs them.
 */
static size_t dp_json_string(struct dp_json *j, char *out, size_t cap,
			     int *too_long)
{
	size_t n = 0;

	dp_json_expect(j, '"');
	while (j->p < j->end && *j->p != '"') {
		int c = (unsigned char)*j->p++;

		if (c < 0x20)
			dp_die("control character in a JSON string");
		if (c == '\\') {
			if (j->p >= j->end)
				dp_die("malformed JSON escape");
			c = *j->p++;
			switch (c) {
			case '"': case '\\': case '/':
				break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				c = dp_json_u_escape(j);
				break;
			default:
				dp_die("malformed JSON escape");
			}
		}
		if (n < cap && out)
			out[n] = c;
		else if (too_long)
			*too_long = 1;
		n++;
	}
	dp_json_expect(j, '"');
	return n;
}

/* A string of hex digits, left in place (no escapes can occur in one). */
static const char *dp_json_hex(struct dp_json *j, size_t *len)
{
	const char *start;

	dp_json_expect(j, '"');
	start = j->p;
	while (j->p < j->end && *j->p != '"') {
		if (dp_hexval((unsigned char)*j->p) < 0)
			dp_die("hex field holds a non-hex character");
		j->p++;
	}
	*len = j->p - start;
	dp_json_expect(j, '"');
	if (*len % 2)
		dp_die("hex field of odd length");
	return start;
}

static int dp_json_null(struct dp_json *j)
{
	dp_json_ws(j);
	if (j->end - j->p >= 4 && !memcmp(j->p, "null", 4)) {
		j->p += 4;
		return 1;
	}
	return 0;
}

static unsigned long long dp_json_uint(struct dp_json *j)
{
	unsigned long long v = 0;
	int digits = 0;

	dp_json_ws(j);
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		if (v > (~0ULL - 9) / 10)
			dp_die("id out of range");
		v = v * 10 + (*j->p++ - '0');
		digits++;
	}
	if (!digits)
		dp_die("id is not a non-negative integer");
	return v;
}

/*
 * Skips the value of a member this testee does not know (the protocol
 * ignores unknown members): strings are read as strings, so that their
 * brackets do not count, and nesting is bounded.
 */
static void dp_json_skip(struct dp_json *j)
{
	int depth = 0;

	do {
		dp_json_ws(j);
		if (j->p >= j->end)
			dp_die("malformed JSON");
		if (*j->p == '"') {
			dp_json_string(j, NULL, 0, NULL);
			continue;
		}
		if (*j->p == '{' || *j->p == '[') {
			if (++depth > DP_JSON_DEPTH)
				dp_die("JSON nested too deep");
		} else if (*j->p == '}' || *j->p == ']') {
			if (--depth < 0)
				return;	/* the end of the case itself */
		} else if (*j->p == ',' && depth == 0) {
			return;
		}
		j->p++;
	} while (depth > 0 || (j->p < j->end && *j->p != ',' &&
			       *j->p != '}'));
}

static void dp_case_member(struct dp_json *j, struct dp_case *c,
			   const char *key)
{
	char kind[16];
	size_t n;
	int long_kind = 0;

	if (!strcmp(key, "id")) {
		c->id = dp_json_uint(j);
		c->have_id = 1;
	} else if (!strcmp(key, "kind")) {
		n = dp_json_string(j, kind, sizeof(kind) - 1, &long_kind);
		kind[long_kind ? 0 : n] = 0;
		if (!strcmp(kind, "request"))
			c->kind = DP_CASE_REQUEST;
		else if (!strcmp(kind, "reply"))
			c->kind = DP_CASE_REPLY;
		else if (!strcmp(kind, "xattr"))
			c->kind = DP_CASE_XATTR;
		else
			dp_die("unknown case kind");
	} else if (!strcmp(key, "hex")) {
		c->hex = dp_json_hex(j, &c->hex_len);
	} else if (!strcmp(key, "request_hex")) {
		if (!dp_json_null(j))
			c->req_hex = dp_json_hex(j, &c->req_hex_len);
	} else if (!strcmp(key, "xattr_name")) {
		if (dp_json_null(j))
			return;
		n = dp_json_string(j, c->xname, DP_XNAME_MAX,
				   &c->xname_too_long);
		c->xname[c->xname_too_long ? 0 : n] = 0;
		c->have_xname = 1;
	} else {
		dp_json_skip(j);
	}
}

static void dp_case_parse(const char *p, size_t len, struct dp_case *c)
{
	struct dp_json j = { p, p + len };
	char key[32];
	size_t n;
	int long_key;

	memset(c, 0, sizeof(*c));
	dp_json_expect(&j, '{');
	dp_json_ws(&j);
	if (j.p < j.end && *j.p == '}') {
		j.p++;
	} else {
		for (;;) {
			long_key = 0;
			n = dp_json_string(&j, key, sizeof(key) - 1,
					   &long_key);
			key[long_key ? 0 : n] = 0;
			dp_json_expect(&j, ':');
			dp_case_member(&j, c, key);
			dp_json_ws(&j);
			if (j.p < j.end && *j.p == ',') {
				j.p++;
				continue;
			}
			dp_json_expect(&j, '}');
			break;
		}
	}
	dp_json_ws(&j);
	if (j.p != j.end)
		dp_die("trailing bytes after the JSON object");
	if (!c->have_id || c->kind == DP_CASE_NONE || !c->hex)
		dp_die("a case needs id, kind and hex");
	if (c->kind == DP_CASE_XATTR && !c->have_xname)
		dp_die("an xattr case needs xattr_name");
}

static __u8 *dp_unhex(const char *hex, size_t hex_len)
{
	__u8 *b = malloc(hex_len / 2 + 1);
	size_t i;

	if (!b)
		dp_die("out of memory");
	for (i = 0; i < hex_len / 2; i++)
		b[i] = dp_hexval((unsigned char)hex[2 * i]) << 4 |
		       dp_hexval((unsigned char)hex[2 * i + 1]);
	return b;
}

enum dp_verdict { DP_VALID, DP_INVALID, DP_UNSUPPORTED };

struct dp_answer {
	enum dp_verdict	verdict;
	const char	*rule;
	struct dp_out	out;		/* canonical bytes when valid */
};

static void dp_judge(const struct dp_case *c, struct dp_answer *a)
{
	struct dp_ctx ctx = { NULL };
	__u8 *in = dp_unhex(c->hex, c->hex_len);
	__u8 *req = NULL;
	int rc;

	a->out.len = 0;
	switch (c->kind) {
	case DP_CASE_REQUEST:
		rc = dp_judge_request(&ctx, &a->out, in, c->hex_len / 2);
		break;
	case DP_CASE_REPLY:
		if (c->req_hex)
			req = dp_unhex(c->req_hex, c->req_hex_len);
		rc = dp_judge_reply(&ctx, &a->out, in, c->hex_len / 2, req,
				    c->req_hex_len / 2, c->req_hex != NULL);
		break;
	default:
		rc = dp_judge_xattr(&ctx, &a->out,
				    c->xname_too_long ? NULL : c->xname, in,
				    c->hex_len / 2);
		break;
	}
	free(in);
	free(req);
	a->rule = ctx.rule;
	if (rc == 0)
		a->verdict = DP_VALID;
	else if (rc == -EOPNOTSUPP)
		a->verdict = DP_UNSUPPORTED;
	else
		a->verdict = DP_INVALID;
}

/* ---- frames ---- */

static int dp_read_full(void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t n = fread((char *)buf + got, 1, len - got, stdin);

		if (n == 0)
			return got == 0 ? 0 : -EIO;
		got += n;
	}
	return 1;
}

static void dp_write_frame(const char *json, size_t len)
{
	__u8 hdr[4];

	dp_set32(hdr, (__u32)len);
	if (fwrite(hdr, 1, 4, stdout) != 4 ||
	    fwrite(json, 1, len, stdout) != len || fflush(stdout))
		dp_die("cannot write to stdout");
}

static void dp_answer_send(const struct dp_case *c, const struct dp_answer *a)
{
	static const char *const verdicts[] = {
		"valid", "invalid", "unsupported"
	};
	static const char digits[] = "0123456789abcdef";
	static char json[2 * DP_OUT_MAX + 256];
	size_t n, i;

	n = snprintf(json, 256, "{\"id\": %llu, \"verdict\": \"%s\", "
		     "\"rule\": ", c->id, verdicts[a->verdict]);
	if (a->verdict == DP_INVALID && a->rule)
		n += snprintf(json + n, 64, "\"%s\"", a->rule);
	else
		n += snprintf(json + n, 64, "null");
	n += snprintf(json + n, 64, ", \"canonical_hex\": ");
	if (a->verdict != DP_VALID) {
		n += snprintf(json + n, 64, "null}");
		dp_write_frame(json, n);
		return;
	}
	json[n++] = '"';
	for (i = 0; i < a->out.len; i++) {
		json[n++] = digits[a->out.buf[i] >> 4];
		json[n++] = digits[a->out.buf[i] & 15];
	}
	json[n++] = '"';
	json[n++] = '}';
	dp_write_frame(json, n);
}

int main(void)
{
	static __u8 outbuf[DP_OUT_MAX];
	struct dp_answer a = { DP_VALID, NULL, { outbuf, 0 } };
	struct dp_case c;
	__u8 hdr[4];
	char *frame;
	__u32 len;
	int rc;

	for (;;) {
		rc = dp_read_full(hdr, 4);
		if (rc == 0)
			return 0;	/* the runner closed: done */
		if (rc < 0)
			dp_die("stdin ends inside a frame header");
		len = dp_le32(hdr);
		if (len > DP_FRAME_MAX)
			dp_die("frame longer than the protocol allows");
		frame = malloc(len ? len : 1);
		if (!frame)
			dp_die("out of memory");
		if (len && dp_read_full(frame, len) != 1)
			dp_die("stdin ends inside a frame");
		dp_case_parse(frame, len, &c);
		dp_judge(&c, &a);
		dp_answer_send(&c, &a);
		free(frame);
	}
}

#endif /* DP_NO_MAIN */
