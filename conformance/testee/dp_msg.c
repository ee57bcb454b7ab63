/* SPDX-License-Identifier: MIT */
/*
 * dp_msg.c: the existing Lustre structures the prepare intent rides on:
 * lustre_msg_v2 framing (WIRE.md section 2), ptlrpc_body (buffer 0) and
 * the LDLM lock descriptor (section 3), and the rewrite of a fixed
 * structure into its canonical form (section 11).
 */
#include "dp.h"

/* ---- canonical output ---- */

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

/* Rewrites the listed fields of @src into @dst, little-endian. */
void dp_canon(__u8 *dst, const __u8 *src, int swab,
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

int dp_msg_unpack(struct dp_ctx *ctx, struct dp_msg *m,
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

	/* Every buffer with its padding, the last one's too. */
	cursor = dp_round8(MSG_HEADER_FIXED + 4 * m->bufcount);
	for (i = 0; i < m->bufcount; i++) {
		__u32 blen = dp_get32(m->swab, p + MSG_HEADER_FIXED + 4 * i);

		if (dp_round8(blen) > MSG_MAX_BUFLEN)
			return dp_broke(ctx, "W0.3");
		if (len < cursor + dp_round8(blen))
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
const __u8 *dp_msg_buf(const struct dp_msg *m, __u32 i, __u32 *len)
{
	if (i >= m->bufcount) {
		*len = 0;
		return m->base;
	}
	*len = m->buflens[i];
	return m->base + m->bufoffs[i];
}

/* W2.2: nothing past the last buffer the message defines. */
int dp_msg_check_past(struct dp_ctx *ctx, const struct dp_msg *m,
		      __u32 last)
{
	__u32 i;

	for (i = last + 1; i < m->bufcount; i++)
		if (m->buflens[i] != 0)
			return dp_broke(ctx, "W2.2");
	return 0;
}

void dp_msg_pack_header(struct dp_out *o, const struct dp_msg *m,
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

int dp_ptlrpc_check_len(struct dp_ctx *ctx, __u32 len)
{
	/* v2 (152 bytes) is accepted; bytes past v3 are ignored. */
	if (len < PTLRPC_BODY_V2_SIZE)
		return dp_broke(ctx, "W0.2");
	return 0;
}

/*
 * The size buffer 0 is written at (W11.4): v3, or v2 for a body shorter
 * than v3, which has no pb_jobid (its tail is not one).
 */
__u32 dp_ptlrpc_len(const struct dp_msg *m)
{
	__u32 len;

	dp_msg_buf(m, 0, &len);
	return len < PTLRPC_BODY_V3_SIZE ? PTLRPC_BODY_V2_SIZE :
					   PTLRPC_BODY_V3_SIZE;
}

void dp_ptlrpc_pack(struct dp_out *o, const struct dp_msg *m)
{
	__u8 v3[PTLRPC_BODY_V3_SIZE];
	__u32 len, n = dp_ptlrpc_len(m);
	const __u8 *b = dp_msg_buf(m, 0, &len);
	__u8 *d;

	memset(v3, 0, sizeof(v3));
	memcpy(v3, b, n);
	d = dp_put_zero(o, n);
	if (n == PTLRPC_BODY_V3_SIZE) {
		dp_canon(d, v3, m->swab, ptlrpc_body_fields,
			 DP_NFIELDS(ptlrpc_body_fields));
	} else {
		/* every field but pb_jobid, the last entry of the table */
		dp_canon(d, v3, m->swab, ptlrpc_body_fields,
			 DP_NFIELDS(ptlrpc_body_fields) - 1);
	}
}

/*
 * W2.3: pb_type is read before any other rule of the message; a reply
 * decoder also takes PTL_RPC_MSG_ERR (which W7.1 then refuses).
 */
int dp_ptlrpc_check_type(struct dp_ctx *ctx, const struct dp_msg *m,
			 __u32 type)
{
	__u32 len, t;
	const __u8 *b = dp_msg_buf(m, 0, &len);

	t = dp_get32(m->swab, b + PB_TYPE);
	if (t == type ||
	    (type == PTL_RPC_MSG_REPLY && t == PTL_RPC_MSG_ERR))
		return 0;
	return dp_broke(ctx, "W2.3");
}

/*
 * The header and ptlrpc_body as Lustre's service and client check them:
 * the null flavour (a request's WIRE_FLVR part, a reply's policy), a
 * deadline for a request that asks for adaptive timeouts, pb_version
 * (a request's exactly, a reply's low 16 bits) and pb_opc.
 */
int dp_ptlrpc_check(struct dp_ctx *ctx, const struct dp_msg *m,
		    __u32 type)
{
	__u32 len;
	const __u8 *b = dp_msg_buf(m, 0, &len);
	__u32 secflvr = dp_get32(m->swab, m->base + 4);
	__u32 flags = dp_get32(m->swab, m->base + 20);
	__u32 version = dp_get32(m->swab, b + PB_VERSION);

	if (type == PTL_RPC_MSG_REQUEST) {
		if (secflvr & WIRE_FLVR_MASK)
			return dp_broke(ctx, "W0.6");
		if ((flags & MSGHDR_AT_SUPPORT) &&
		    dp_get32(m->swab, b + PB_TIMEOUT) == 0)
			return dp_broke(ctx, "W5.16");
		if (version != LUSTRE_DLM_MSG_VERSION)
			return dp_broke(ctx, "W0.4");
	} else {
		if (secflvr & FLVR_POLICY_MASK)
			return dp_broke(ctx, "W0.6");
		if ((version & ~LUSTRE_VERSION_MASK) !=
		    PTLRPC_MSG_VERSION)
			return dp_broke(ctx, "W0.4");
	}
	if (dp_get32(m->swab, b + PB_OPC) != LDLM_ENQUEUE)
		return dp_broke(ctx, "W0.4");
	return 0;
}

/* ---- LDLM (WIRE.md section 3) ---- */

void dp_lock_desc_unpack(int swab, const __u8 *p,
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
int dp_lock_check(struct dp_ctx *ctx, const struct dp_lock_desc *d,
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

void dp_lock_desc_pack(__u8 *dst, int swab, const __u8 *src)
{
	dp_canon(dst, src, swab, lock_desc_fields,
		 DP_NFIELDS(lock_desc_fields));
}
