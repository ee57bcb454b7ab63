/* SPDX-License-Identifier: MIT */
/*
 * Test stand-in for the printing macros of lustre/utils/wirecheck.c: each prints the line
 * Lustre's macro of the same name prints (the format of the wiretest.c it generates), so the
 * check_*() functions the series adds can be compiled and run against the layouts gcc gives.
 * Written for tests/lustre_patch.rs.
 */
#ifndef _WIRECHECK_STANDIN_H
#define _WIRECHECK_STANDIN_H

#include <stdio.h>

#define BLANK_LINE() printf("\n")
#define COMMENT(c) printf("\t/* " c " */\n")
#define CHECK_VALUE(a) \
	printf("\tLASSERTF(" #a " == %lld, \"found %%lld\\n\",\n\t\t (long long)" #a ");\n", \
	       (long long)(a))
#define CHECK_VALUE_X(a) \
	printf("\tLASSERTF(" #a " == 0x%.8xUL, \"found 0x%%.8xUL\\n\",\n\t\t (unsigned)" #a ");\n", \
	       (unsigned)(a))
#define CHECK_CVALUE_X(a) printf("\tBUILD_BUG_ON(" #a " != 0x%.8x);\n", (unsigned)(a))
#define WIRECHECK_STR(a) #a
#define WIRECHECK_XSTR(a) WIRECHECK_STR(a)
#define CHECK_DEFINE_64X(a) \
	printf("\tLASSERTF(" #a " == " WIRECHECK_XSTR(a) ", \"found 0x%%.16llxULL\\n\",\n\t\t " #a ");\n")
#define CHECK_STRUCT(s) do { COMMENT("Checks for struct " #s); \
	CHECK_VALUE((int)sizeof(struct s)); } while (0)
#define CHECK_MEMBER(s, m) do { CHECK_VALUE((int)offsetof(struct s, m)); \
	CHECK_VALUE((int)sizeof(((struct s *)0)->m)); } while (0)

#endif /* _WIRECHECK_STANDIN_H */
