/* SPDX-License-Identifier: MIT */
/*
 * dp_rep.c: the reply to a prepare enqueue (WIRE.md sections 6-8):
 * ldlm_reply, md_create_prepare_rep and the result buffers, judged alone
 * or against the request it answers, and its canonical form.
 */
#include "dp.h"

/* md_create_prepare_rep: what the canonical form keeps (W11.2) */
static const struct dp_field prepare_rep_fields[] = {
	{ 0, 4, DP_NUM }, { 4, 4, DP_NUM }, { 8, 4, DP_NUM },
	{ 12, 4, DP_NUM }, { 16, 8, DP_NUM }, { 24, 4, DP_NUM },
	{ 28, 4, DP_NUM }, { 32, 4, DP_NUM }, { 36, 4, DP_NUM },
	{ 40, 4, DP_NUM }, { 44, 4, DP_NUM }, { 48, 4, DP_NUM },
	{ 52, 4, DP_NUM }, { 56, 4, DP_NUM }, { 60, 4, DP_NUM },
	{ 64, 4, DP_NUM }, { 68, 4, DP_NUM },
};

/* lock_policy_res1 and _res2; lock_padding is padding */
/*
 * mdt_body (PATTR): every field a number but the open handle, the unused
 * and padding words included, so that nothing is lost across orders.
 */
static const struct dp_field mdt_body_fields[] = {
	{ 0, 8, DP_NUM }, { 8, 4, DP_NUM }, { 12, 4, DP_NUM },	/* fid1 */
	/* fid2 */
	{ 16, 8, DP_NUM }, { 24, 4, DP_NUM }, { 28, 4, DP_NUM },
	{ 32, 8, DP_RAW },	/* mbo_open_handle: opaque */
	{ 40, 8, DP_NUM }, { 48, 8, DP_NUM }, { 56, 8, DP_NUM },
	{ 64, 8, DP_NUM }, { 72, 8, DP_NUM }, { 80, 8, DP_NUM },
	{ 88, 8, DP_NUM }, { 96, 8, DP_NUM },
	{ 104, 4, DP_NUM }, { 108, 4, DP_NUM }, { 112, 4, DP_NUM },
	{ 116, 4, DP_NUM }, { 120, 4, DP_NUM }, { 124, 4, DP_NUM },
	{ 128, 4, DP_NUM }, { 132, 4, DP_NUM }, { 136, 4, DP_NUM },
	{ 140, 4, DP_NUM }, { 144, 4, DP_NUM }, { 148, 4, DP_NUM },
	{ 152, 4, DP_NUM }, { 156, 4, DP_NUM }, { 160, 4, DP_NUM },
	{ 164, 4, DP_NUM }, { 168, 4, DP_NUM }, { 172, 4, DP_NUM },
	{ 176, 8, DP_NUM }, { 184, 8, DP_NUM }, { 192, 8, DP_NUM },
	{ 200, 8, DP_NUM }, { 208, 8, DP_NUM },
};

static const struct dp_field ldlm_reply_res_fields[] = {
	{ LREP_RES1, 8, DP_NUM }, { LREP_RES2, 8, DP_NUM },
};

void dp_reply_ctx_init(struct dp_reply_ctx *c, const struct dp_req *r)
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
	c->child_mode = r->body.mcpr_child_mode;
	c->umask = r->body.mcpr_umask;
	c->fsgid = r->body.mcpr_fsgid;
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

/*
 * The result masks and the derived child (W6.1, W7.8, W6.2,
 * W7.13/14/18/19/23).
 */
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
	if (!derived)
		return 0;
	/* W7.18: a file type with permission bits */
	if ((mode & ~(S_IFMT_BITS | 07777)) || !dp_valid_file_type(mode))
		return dp_broke(ctx, "W7.18");
	/* W7.19: the requested file type (before the flags, as the crate) */
	if (r->rctx && (mode & S_IFMT_BITS) !=
	    (r->rctx->child_mode & S_IFMT_BITS))
		return dp_broke(ctx, "W7.19");
	/* W7.23: at most PROJINHERIT, and that on a directory only */
	if ((b->mcpp_child_flags & ~DP_PROJINHERIT_FL) ||
	    (b->mcpp_child_flags && (mode & S_IFMT_BITS) != DP_S_IFDIR))
		return dp_broke(ctx, "W7.23");
	return 0;
}

/* W7.21, W7.22: group and project as the parent's PATTR decides them. */
static int dp_rep_check_inherited(struct dp_ctx *ctx, const struct dp_rep *r,
				  int dir)
{
	const struct md_create_prepare_rep *b = &r->body;
	const __u8 *p = r->result[MLI_BUF_PATTR];
	int swab = r->msg.swab;
	__u64 valid = dp_get64(swab, p + MBO_VALID);
	__u32 pmode = dp_get32(swab, p + MBO_MODE);
	__u32 pgid = dp_get32(swab, p + MBO_GID);
	__u32 pflags = dp_get32(swab, p + MBO_FLAGS);
	__u32 pprojid = dp_get32(swab, p + MBO_PROJID);
	int sgid = !!(pmode & DP_S_ISGID);
	int inherit = !!(pflags & DP_PROJINHERIT_FL);

	if (valid & DP_OBD_MD_FLMODE) {
		if (dir && !!(b->mcpp_child_mode & DP_S_ISGID) != sgid)
			return dp_broke(ctx, "W7.21");
		if (sgid && (valid & DP_OBD_MD_FLGID) &&
		    b->mcpp_child_gid != pgid)
			return dp_broke(ctx, "W7.21");
		if (!sgid && b->mcpp_child_gid != r->rctx->fsgid)
			return dp_broke(ctx, "W7.21");
	}
	if (!(valid & DP_OBD_MD_FLFLAGS))
		return 0;
	if (dir && !!(b->mcpp_child_flags & DP_PROJINHERIT_FL) != inherit)
		return dp_broke(ctx, "W7.22");
	if (inherit && (valid & DP_OBD_MD_FLPROJID) &&
	    b->mcpp_child_projid != pprojid)
		return dp_broke(ctx, "W7.22");
	if (!inherit && b->mcpp_child_projid != 0)
		return dp_broke(ctx, "W7.22");
	return 0;
}

/* W7.20 - W7.22: the derived child's bits against the request it answers. */
static int dp_rep_check_derived(struct dp_ctx *ctx, const struct dp_rep *r)
{
	const struct md_create_prepare_rep *b = &r->body;
	__u32 got = b->mcpp_child_mode, req = r->rctx->child_mode, allowed;
	int dir = (got & S_IFMT_BITS) == DP_S_IFDIR;

	if (!(b->mcpp_flags & MCPP_CHILD_DERIVED))
		return 0;
	if (dir)
		allowed = (req & (0777 | DP_S_ISVTX)) | DP_S_ISGID;
	else
		allowed = req & 07777;
	/* no default ACL: the umask applies, to anything but a symlink */
	if ((got & S_IFMT_BITS) != 0120000 &&
	    (b->mcpp_valid & (1U << MLI_BUF_DEF_ACL)) &&
	    r->result_len[MLI_BUF_DEF_ACL] == 0)
		allowed &= ~(r->rctx->umask & 0777);
	if (got & 07777 & ~allowed)
		return dp_broke(ctx, "W7.20");
	if ((b->mcpp_valid & (1U << MLI_BUF_PATTR)) &&
	    r->result_len[MLI_BUF_PATTR] == MDT_BODY_SIZE)
		return dp_rep_check_inherited(ctx, r, dir);
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
	if (c) {
		rc = dp_rep_check_derived(ctx, r);
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

int dp_rep_unpack(struct dp_ctx *ctx, struct dp_rep *r,
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

/*
 * Canonical reply: nine buffers, the body at its size, PATTR little-endian,
 * xattrs verbatim.
 */
void dp_rep_pack(struct dp_out *o, const struct dp_rep *r)
{
	const struct dp_msg *m = &r->msg;
	__u32 lens[REPLY_BUFCOUNT];
	const __u8 *b;
	__u32 len;
	__u8 *d;
	int i;

	memset(lens, 0, sizeof(lens));
	lens[0] = dp_ptlrpc_len(m);
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
	for (i = 0; i < MLI_BUF_MAX; i++) {
		if (i == MLI_BUF_PATTR &&
		    r->result_len[i] == MDT_BODY_SIZE) {
			/* a numeric structure in the sender's order */
			dp_canon(dp_put_zero(o, MDT_BODY_SIZE), r->result[i],
				 m->swab, mdt_body_fields,
				 DP_NFIELDS(mdt_body_fields));
		} else {
			dp_put_bytes(o, r->result[i], r->result_len[i]);
		}
		dp_put_pad8(o, r->result_len[i]);
	}
}
