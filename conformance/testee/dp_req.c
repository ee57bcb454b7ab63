/* SPDX-License-Identifier: MIT */
/*
 * dp_req.c: the IT_DNE_*_PREPARE enqueue request (WIRE.md section 5):
 * its six buffers, md_create_prepare_req, the entry name and the
 * supplementary groups, and its canonical form.
 */
#include "dp.h"

/* md_create_prepare_req: what the canonical form keeps (W11.2) */
static const struct dp_field prepare_req_fields[] = {
	{ 0, 8, DP_NUM }, { 8, 4, DP_NUM }, { 12, 4, DP_NUM },
	{ 16, 4, DP_NUM }, { 20, 4, DP_NUM }, { 24, 4, DP_NUM },
	{ 28, 4, DP_NUM }, { 32, 8, DP_NUM }, { 40, 4, DP_NUM },
	{ 48, 4, DP_NUM }, { 52, 4, DP_NUM }, { 56, 4, DP_NUM },
	{ 60, 4, DP_NUM }, { 64, 4, DP_NUM }, { 68, 4, DP_NUM },
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

int dp_valid_file_type(__u32 mode)
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
		      dp_round8(LDLM_REPLY_SIZE) +
		      dp_round8(PREPARE_REP_SIZE);
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
	if (r->lock_flags & ~DP_PREPARE_REQ_FLAGS)
		return dp_broke(ctx, "W0.6");
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

int dp_req_unpack(struct dp_ctx *ctx, struct dp_req *r,
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

/*
 * Canonical request: six buffers, the body at its size, zero padding,
 * name + NUL.
 */
void dp_req_pack(struct dp_out *o, const struct dp_req *r)
{
	const struct dp_msg *m = &r->msg;
	__u32 lens[REQUEST_BUFCOUNT];
	const __u8 *b;
	__u32 len, i;
	__u8 *d;

	lens[0] = dp_ptlrpc_len(&r->msg);
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
