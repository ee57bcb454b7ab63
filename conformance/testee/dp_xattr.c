/* SPDX-License-Identifier: MIT */
/*
 * dp_xattr.c: the xattr payloads a reply carries, and the xattr cases of
 * the runner (WIRE.md section 9): POSIX ACL, pin, LMV, default LMV, LOV.
 * They are always little-endian, whatever the order of the message.
 */
#include "dp.h"

/* Xattr magics (WIRE.md section 9; always little-endian). */
#define POSIX_ACL_XATTR_VERSION		2
#define LMV_MAGIC_V1			0x0CD20CD0
#define LMV_MAGIC_USER			0x0CD30CD0
#define LMV_MAGIC_STRIPE		0x0CD40CD0
#define LMV_USER_MAGIC_SPECIFIC		0x0CD40CD0
#define LMV_MAGIC_FOREIGN		0x0CD50CD0
#define LMV_HASH_FLAG_BAD_TYPE		0x20000000U
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
	__u32 count, hash;

	if (len < LMV_HDR)
		return dp_broke(ctx, "W0.1");
	count = dp_le32(p + 4);
	if (count > LMV_MAX_STRIPE_COUNT)
		return dp_broke(ctx, "W0.3");
	/* lmv_is_sane2: a stripe at least, a hash function Lustre knows */
	if (count == 0)
		return dp_broke(ctx, "W9.21");
	hash = dp_le32(p + 12);
	if (!(((hash & 0xffff) >= 1 && (hash & 0xffff) <= 4) ||
	      hash == LMV_HASH_FLAG_BAD_TYPE))
		return dp_broke(ctx, "W9.22");
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
	min = magic == LMV_USER_MAGIC_SPECIFIC ? 0 :
	      -LMV_MAX_STRIPES_PER_MDT;
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
	LOV_MAGIC_V1, LOV_MAGIC_V3, LOV_MAGIC_SPECIFIC,
	LOV_MAGIC_COMP_V1,
	LOV_MAGIC_FOREIGN, LOV_MAGIC_SEL
};
#define LOV_NKNOWN	(sizeof(lov_known) / sizeof(lov_known[0]))

/* LOV_MAGIC_SEL: how LOD stores a layout with a self-extending component */
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
	/* lcm_size is rewritten below */
	memcpy(d, p, LCM_HDR);
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

enum dp_xattr_kind dp_xattr_kind_of(const char *name)
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
int dp_xattr_check(struct dp_ctx *ctx, enum dp_xattr_kind kind,
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

void dp_xattr_pack(struct dp_out *o, enum dp_xattr_kind kind,
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
