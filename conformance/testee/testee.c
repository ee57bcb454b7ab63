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
 * same rule.
 *
 * The decoder is split along the seams of the protocol, one file per
 * seam (the map is in dp.h); this file is only the testee-specific
 * plumbing: frames, JSON, hex and main().
 *
 * Build it from every .c file here; in this directory that is
 *
 *	cc -O2 -Wall -Werror -I../../include -o testee *.c
 *
 * (docs/conformance.md gives the command from the top of the crate).
 * The dp_*.c files alone, built with -DDP_NO_MAIN, are the library the
 * differential fuzz target links (fuzz/build.rs): its one entry is
 * dp_judge_bytes().
 */
#include <stdio.h>
#include <stdlib.h>

#include "dp.h"

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
