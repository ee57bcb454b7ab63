/* SPDX-License-Identifier: MIT */
/*
 * dne_prepare_driver.c: the conformance vectors of the DNE prepare intent
 * run through the reference testee's decoder (conformance/testee/), without
 * the runner: one process, no protocol, an exit status a shell test can read.
 * The sanity.sh test the Lustre series adds runs it as $DNE_PREPARE_DRIVER.
 *
 * A case passes when the testee's verdict is the vectors' (an acceptable
 * case may also be refused), an invalid case names one of the rules its
 * input is known to break, and an accepted case re-encodes to its canonical
 * form.  Build it from the top of the repository with the vectors header
 * (dne-intent vectors --out DIR):
 *
 *	cc -O2 -Wall -Werror -DDP_NO_MAIN -Iinclude -Iconformance/testee \
 *	   -IDIR -o dne_prepare_driver conformance/lustre/dne_prepare_driver.c \
 *	   conformance/testee/dp_*.c
 */
#include <stdio.h>
#include <stdlib.h>

#include "dp.h"
#include "lustre_dne_prepare_vectors.h"

/* Why case @c fails with the testee's answer, or NULL */
static const char *dpd_check(const struct ldpv_case *c, int rc,
			     const __u8 *out, size_t out_len, const char *rule)
{
	const char *const *r;

	if (rc == 2)
		return "unsupported";
	if (rc == 1) {
		if (c->result == LDPV_VALID)
			return "a valid case refused";
		if (c->result == LDPV_ACCEPTABLE)
			return NULL;
		for (r = c->rules; r && *r; r++)
			if (rule && !strcmp(rule, *r))
				return NULL;
		return "refused for a rule the input is not known to break";
	}
	if (c->result == LDPV_INVALID)
		return "an invalid case accepted";
	if (out_len != c->canonical_len ||
	    memcmp(out, c->canonical, out_len))
		return "its re-encoding is not the canonical form";
	return NULL;
}

int main(void)
{
	static __u8 out[DP_OUT_MAX];
	int passed = 0, failed = 0;
	unsigned int i;

	for (i = 0; i < LDPV_NCASES; i++) {
		const struct ldpv_case *c = &ldpv_cases[i];
		const char *rule = NULL;
		const char *why;
		size_t out_len = 0;
		int rc;

		rc = dp_judge_bytes(c->kind, c->xattr_name, c->data, c->len,
				    c->request, c->request_len,
				    c->kind == LDPV_REPLY, out, sizeof(out),
				    &out_len, &rule);
		why = dpd_check(c, rc, out, out_len, rule);
		if (why) {
			printf("FAIL %s (%s): %s%s%s\n", c->name, c->comment,
			       why, rule ? ": " : "", rule ? rule : "");
			failed++;
		} else {
			passed++;
		}
	}
	printf("dne_prepare_driver: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
