/*
 * ibal tests: leak checks with complib's memory tracking.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * test_track_begin() turns tracking on and asserts nothing is tracked yet;
 * test_track_end() asserts every tracked block was freed and turns it off.
 * Include after cl_test.h.
 */
#ifndef IBAL_MEM_TRACK_H
#define IBAL_MEM_TRACK_H

#include <complib/cl_memory.h>

static inline void test_track_begin(void)
{
	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
}

static inline void test_track_end(void)
{
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
}

#endif
