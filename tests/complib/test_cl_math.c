/*
 * ibal tests: cl_math.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_math.h>
#include "../common/cl_test.h"

/* Usable in constant expressions. */
typedef char buf_t[ROUNDUP(10, 8)];
enum { BIG = MAX(3, 9), SMALL = MIN(3, 9) };

static void test_max_min(void)
{
	CU_ASSERT_EQUAL(MAX(1, 2), 2);
	CU_ASSERT_EQUAL(MAX(2, 1), 2);
	CU_ASSERT_EQUAL(MAX(-5, -7), -5);
	CU_ASSERT_EQUAL(MAX(4, 4), 4);
	CU_ASSERT_EQUAL(MIN(1, 2), 1);
	CU_ASSERT_EQUAL(MIN(2, 1), 1);
	CU_ASSERT_EQUAL(MIN(-5, -7), -7);
	CU_ASSERT_EQUAL(MIN(4, 4), 4);
	CU_ASSERT_DOUBLE_EQUAL(MAX(0.5, 0.25), 0.5, 1e-12);
	CU_ASSERT_EQUAL(BIG, 9);
	CU_ASSERT_EQUAL(SMALL, 3);
}

static void test_max_min_precedence(void)
{
	int a = 3, b = 5;

	/* Arguments and result are parenthesized. */
	CU_ASSERT_EQUAL(2 * MAX(a, b), 10);
	CU_ASSERT_EQUAL(MIN(a + 1, b - 2) * 2, 6);
	CU_ASSERT_EQUAL(MAX(a & 1, 0), 1);
}

static void test_roundup(void)
{
	CU_ASSERT_EQUAL(sizeof(buf_t), 16);
	CU_ASSERT_EQUAL(ROUNDUP(0u, 8u), 0);
	CU_ASSERT_EQUAL(ROUNDUP(1u, 8u), 8);
	CU_ASSERT_EQUAL(ROUNDUP(8u, 8u), 8);
	CU_ASSERT_EQUAL(ROUNDUP(9u, 8u), 16);
	CU_ASSERT_EQUAL(ROUNDUP(7u, 1u), 7);
	CU_ASSERT_EQUAL(ROUNDUP(10u, 3u), 12);	/* not a power of two */
	CU_ASSERT_EQUAL(ROUNDUP(12u, 3u), 12);
	CU_ASSERT_EQUAL(ROUNDUP((uintn_t)4097, (uintn_t)4096), 8192);
	CU_ASSERT_EQUAL(ROUNDUP(CL_CONST64(0xFFFFFFFF00000001), CL_CONST64(0x100000000)),
			CL_CONST64(0xFFFFFFFF00000000) + CL_CONST64(0x100000000));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_max_min),
	TEST_ENTRY(test_max_min_precedence),
	TEST_ENTRY(test_roundup),
};

TEST_MAIN("cl_math", tests)
