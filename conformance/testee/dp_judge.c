/* SPDX-License-Identifier: MIT */
/*
 * dp_judge.c: judging one input of the runner, a request, a reply or an
 * xattr payload, into a verdict, a rule and the canonical bytes.
 *
 * With -DDP_NO_MAIN (the library form, fuzz/build.rs) no diagnostic is
 * written to stderr: the fuzz target reports its findings itself.
 */
#include <stdio.h>

#include "dp.h"

int dp_judge_request(struct dp_ctx *ctx, struct dp_out *o,
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
int dp_judge_reply(struct dp_ctx *ctx, struct dp_out *o,
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

int dp_judge_xattr(struct dp_ctx *ctx, struct dp_out *o,
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

/* The library entry of the fuzz target: its contract is in dp.h. */
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
