/*
 * ibal tests: cl_vector.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_vector.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"

typedef struct {
	uint32_t a;
	uint16_t b;
	uint8_t tag[9];
} elem_t; /* an odd-sized element (16 bytes with padding, not 1/2/4/8) */

typedef struct {
	int inits;
	int dtors;
	int fail_at; /* the initializer fails on its fail_at-th call (1-based); 0 never */
	int live;
} counters_t;

static cl_status_t count_init(void *const p_element, void *context)
{
	counters_t *c = (counters_t *)context;
	elem_t *e = (elem_t *)p_element;

	c->inits++;
	if (c->fail_at && c->inits == c->fail_at)
		return CL_INSUFFICIENT_RESOURCES;
	e->a = 0xA5A5u;
	c->live++;
	return CL_SUCCESS;
}

static void count_dtor(void *const p_element, void *context)
{
	counters_t *c = (counters_t *)context;

	(void)p_element;
	c->dtors++;
	c->live--;
}

static void test_construct_destroy(void)
{
	cl_vector_t v;

	cl_vector_construct(&v);
	CU_ASSERT_EQUAL(v.state, CL_UNINITIALIZED);
	cl_vector_destroy(&v);
	cl_vector_destroy(&v);
	CU_ASSERT_EQUAL(v.state, CL_UNINITIALIZED);
}

static void test_empty_and_bounds(void)
{
	cl_vector_t v;
	uint64_t x = 7;

	CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 4, sizeof(uint64_t), NULL, NULL, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 0);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 0);
	CU_ASSERT_EQUAL(cl_vector_at(&v, 0, &x), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(x, 7);
	CU_ASSERT_EQUAL(cl_vector_set(&v, 2, &x), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 3);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 4);
	/* New elements are zero-filled. */
	CU_ASSERT_EQUAL(cl_vector_at(&v, 0, &x), CL_SUCCESS);
	CU_ASSERT_EQUAL(x, 0);
	CU_ASSERT_EQUAL(cl_vector_at(&v, 2, &x), CL_SUCCESS);
	CU_ASSERT_EQUAL(x, 7);
	CU_ASSERT_EQUAL(cl_vector_at(&v, 3, &x), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_vector_at(&v, SIZE_MAX, &x), CL_INVALID_PARAMETER);
	cl_vector_destroy(&v);
	CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 4, 0, NULL, NULL, NULL), CL_INVALID_PARAMETER);
	cl_vector_destroy(&v);
}

static void test_set_get_sizes(void)
{
	static const size_t sizes[] = { 1, 2, 4, 8, 16, 3, sizeof(elem_t) + 5 };
	uint8_t in[64], out[64];
	size_t s, i, j;

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		cl_vector_t v;
		size_t es = sizes[s];

		CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 7, es, NULL, NULL, NULL), CL_SUCCESS);
		for (i = 0; i < 100; i++) {
			for (j = 0; j < es; j++)
				in[j] = (uint8_t)(i * 31 + j);
			CU_ASSERT_EQUAL(cl_vector_set(&v, i, in), CL_SUCCESS);
		}
		CU_ASSERT_EQUAL(cl_vector_get_size(&v), 100);
		CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 105); /* multiple of 7 */
		for (i = 0; i < 100; i++) {
			memset(out, 0xEE, sizeof(out));
			cl_vector_get(&v, i, out);
			for (j = 0; j < es; j++)
				CU_ASSERT_EQUAL(out[j], (uint8_t)(i * 31 + j));
			/* Only element_size bytes are written. */
			CU_ASSERT_EQUAL(out[es], 0xEE);
			CU_ASSERT_EQUAL(memcmp(cl_vector_get_ptr(&v, i), out, es), 0);
		}
		cl_vector_destroy(&v);
	}
}

static void test_pointers_are_stable(void)
{
	cl_vector_t v;
	elem_t e, *first, *mid = NULL;
	size_t i;

	memset(&e, 0, sizeof(e));
	CU_ASSERT_EQUAL(cl_vector_init(&v, 1, 1, sizeof(elem_t), NULL, NULL, NULL), CL_SUCCESS);
	first = (elem_t *)cl_vector_get_ptr(&v, 0);
	first->a = 11;
	for (i = 1; i < 500; i++) {
		e.a = (uint32_t)i;
		CU_ASSERT_EQUAL(cl_vector_set(&v, i, &e), CL_SUCCESS);
		if (i == 250)
			mid = (elem_t *)cl_vector_get_ptr(&v, 250);
	}
	/* Growth never moves existing elements. */
	CU_ASSERT_PTR_EQUAL(cl_vector_get_ptr(&v, 0), first);
	CU_ASSERT_PTR_EQUAL(cl_vector_get_ptr(&v, 250), mid);
	CU_ASSERT_EQUAL(first->a, 11);
	CU_ASSERT_EQUAL(mid->a, 250);
	for (i = 0; i < 500; i++)
		CU_ASSERT_EQUAL(((uintptr_t)cl_vector_get_ptr(&v, i)) % sizeof(uint32_t), 0);
	cl_vector_destroy(&v);
}

static void test_no_growth(void)
{
	cl_vector_t v;
	uint32_t x = 5;

	/* grow_size 0: the initial elements exist, nothing more fits. */
	CU_ASSERT_EQUAL(cl_vector_init(&v, 4, 0, sizeof(x), NULL, NULL, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 4);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 4);
	CU_ASSERT_EQUAL(cl_vector_set(&v, 3, &x), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_set(&v, 4, &x), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_vector_set_size(&v, 5), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 4);
	/* Explicit capacity still works. */
	CU_ASSERT_EQUAL(cl_vector_set_capacity(&v, 8), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_set(&v, 7, &x), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 8);
	CU_ASSERT_EQUAL(cl_vector_set(&v, 8, &x), CL_INSUFFICIENT_MEMORY);
	cl_vector_destroy(&v);
}

static void test_capacity_and_min_size(void)
{
	cl_vector_t v;

	CU_ASSERT_EQUAL(cl_vector_init(&v, 3, 10, 8, NULL, NULL, NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 3);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 10);
	CU_ASSERT_EQUAL(cl_vector_set_capacity(&v, 5), CL_SUCCESS); /* never shrinks */
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 10);
	CU_ASSERT_EQUAL(cl_vector_set_capacity(&v, 33), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 33);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 3);
	CU_ASSERT_EQUAL(cl_vector_set_min_size(&v, 2), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 3);
	CU_ASSERT_EQUAL(cl_vector_set_min_size(&v, 20), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 20);
	CU_ASSERT_EQUAL(cl_vector_set_size(&v, 1), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 1);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 33);
	/* Absurd capacities fail cleanly and leave the vector as it was. */
	CU_ASSERT_EQUAL(cl_vector_set_capacity(&v, SIZE_MAX / 2), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_vector_set_size(&v, SIZE_MAX - 1), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_vector_get_capacity(&v), 33);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 1);
	cl_vector_destroy(&v);
}

static void test_init_dtor_callbacks(void)
{
	cl_vector_t v;
	counters_t c = { 0, 0, 0, 0 };
	elem_t e;

	CU_ASSERT_EQUAL(cl_vector_init(&v, 5, 4, sizeof(elem_t), count_init, count_dtor, &c),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(c.inits, 5);
	CU_ASSERT_EQUAL(c.live, 5);
	CU_ASSERT_EQUAL(((elem_t *)cl_vector_get_ptr(&v, 4))->a, 0xA5A5u);
	CU_ASSERT_EQUAL(cl_vector_set_size(&v, 9), CL_SUCCESS);
	CU_ASSERT_EQUAL(c.inits, 9);
	CU_ASSERT_EQUAL(cl_vector_set_size(&v, 2), CL_SUCCESS);
	CU_ASSERT_EQUAL(c.dtors, 7);
	CU_ASSERT_EQUAL(c.live, 2);
	memset(&e, 0, sizeof(e));
	CU_ASSERT_EQUAL(cl_vector_set(&v, 6, &e), CL_SUCCESS); /* initializes 2..6 */
	CU_ASSERT_EQUAL(c.inits, 14);
	CU_ASSERT_EQUAL(c.live, 7);
	/* set() overwrites the initialized element. */
	CU_ASSERT_EQUAL(((elem_t *)cl_vector_get_ptr(&v, 6))->a, 0);
	cl_vector_destroy(&v);
	CU_ASSERT_EQUAL(c.live, 0);
	CU_ASSERT_EQUAL(c.dtors, 14);
}

static void test_init_failure(void)
{
	cl_vector_t v;
	counters_t c = { 0, 0, 3, 0 };
	elem_t e;

	/* The 3rd initializer call fails: init fails and leaves nothing behind. */
	CU_ASSERT_EQUAL(cl_vector_init(&v, 5, 4, sizeof(elem_t), count_init, count_dtor, &c),
			CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(c.inits, 3);
	CU_ASSERT_EQUAL(c.dtors, 3); /* the two good ones and the failed one */
	CU_ASSERT_EQUAL(v.state, CL_UNINITIALIZED);
	cl_vector_destroy(&v);

	/* Failure while growing through set(): the size stops before the failure. */
	c.inits = c.dtors = c.live = 0;
	c.fail_at = 4;
	CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 4, sizeof(elem_t), count_init, count_dtor, &c),
			CL_SUCCESS);
	memset(&e, 0, sizeof(e));
	CU_ASSERT_EQUAL(cl_vector_set(&v, 5, &e), CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), 3);
	CU_ASSERT_EQUAL(c.inits, 4);
	CU_ASSERT_EQUAL(c.dtors, 1); /* the failed element */
	/* An index below the failure point still gets set. */
	c.fail_at = 0;
	CU_ASSERT_EQUAL(cl_vector_set(&v, 1, &e), CL_SUCCESS);
	cl_vector_destroy(&v);
	CU_ASSERT_EQUAL(c.dtors, 4);
	CU_ASSERT_EQUAL(c.inits, 4);
}

static void sum_apply(const size_t index, void *const p_element, void *context)
{
	*(uint64_t *)context += *(uint64_t *)p_element * (index + 1);
}

static cl_status_t find_value(const size_t index, const void *const p_element, void *context)
{
	(void)index;
	return *(const uint64_t *)p_element == *(uint64_t *)context ? CL_SUCCESS : CL_NOT_FOUND;
}

static void test_apply_and_find(void)
{
	cl_vector_t v;
	uint64_t x, sum = 0;
	size_t i;

	CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 16, sizeof(uint64_t), NULL, NULL, NULL), CL_SUCCESS);
	x = 3;
	CU_ASSERT_EQUAL(cl_vector_find_from_start(&v, find_value, &x), 0);
	CU_ASSERT_EQUAL(cl_vector_find_from_end(&v, find_value, &x), 0);
	for (i = 0; i < 10; i++) {
		x = i % 4; /* 0 1 2 3 0 1 2 3 0 1 */
		cl_vector_set(&v, i, &x);
	}
	cl_vector_apply_func(&v, sum_apply, &sum);
	CU_ASSERT_EQUAL(sum, 0 * 1 + 1 * 2 + 2 * 3 + 3 * 4 + 0 * 5 + 1 * 6 + 2 * 7 + 3 * 8 + 0 * 9 +
				     1 * 10);
	x = 1;
	CU_ASSERT_EQUAL(cl_vector_find_from_start(&v, find_value, &x), 1);
	CU_ASSERT_EQUAL(cl_vector_find_from_end(&v, find_value, &x), 9);
	x = 0;
	CU_ASSERT_EQUAL(cl_vector_find_from_end(&v, find_value, &x), 8);
	CU_ASSERT_EQUAL(cl_vector_find_from_start(&v, find_value, &x), 0);
	x = 9;
	CU_ASSERT_EQUAL(cl_vector_find_from_start(&v, find_value, &x), 10);
	CU_ASSERT_EQUAL(cl_vector_find_from_end(&v, find_value, &x), 10);
	cl_vector_destroy(&v);
}

static void test_large_growth(void)
{
	cl_vector_t v;
	uint64_t x;
	size_t i, n = 100000;
	int ok = 1;

	CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 3, sizeof(uint64_t), NULL, NULL, NULL), CL_SUCCESS);
	for (i = 0; i < n; i++) {
		x = i * 2654435761u;
		if (cl_vector_set(&v, i, &x) != CL_SUCCESS)
			ok = 0;
	}
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL(cl_vector_get_size(&v), n);
	for (i = 0; i < n; i++) {
		cl_vector_get(&v, i, &x);
		if (x != i * 2654435761u)
			ok = 0;
	}
	CU_ASSERT_TRUE(ok);
	cl_vector_destroy(&v);
}

static void test_no_leaks(void)
{
	cl_vector_t v;
	counters_t c = { 0, 0, 2, 0 };
	uint64_t x = 1;
	size_t i;

	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	CU_ASSERT_EQUAL(cl_vector_init(&v, 0, 5, sizeof(x), NULL, NULL, NULL), CL_SUCCESS);
	for (i = 0; i < 1000; i++)
		cl_vector_set(&v, i, &x);
	CU_ASSERT_TRUE(cl_mem_track_count() > 0);
	cl_vector_destroy(&v);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	/* A failed init frees what it allocated. */
	CU_ASSERT_EQUAL(cl_vector_init(&v, 4, 2, sizeof(elem_t), count_init, count_dtor, &c),
			CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_empty_and_bounds),
	TEST_ENTRY(test_set_get_sizes),
	TEST_ENTRY(test_pointers_are_stable),
	TEST_ENTRY(test_no_growth),
	TEST_ENTRY(test_capacity_and_min_size),
	TEST_ENTRY(test_init_dtor_callbacks),
	TEST_ENTRY(test_init_failure),
	TEST_ENTRY(test_apply_and_find),
	TEST_ENTRY(test_large_growth),
	TEST_ENTRY(test_no_leaks),
};

TEST_MAIN("cl_vector", tests)
