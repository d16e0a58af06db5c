/*
 * ibal tests: cl_ptr_vector.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_ptr_vector.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"

static int objs[1000];

static void test_construct_destroy(void)
{
	cl_ptr_vector_t v;

	cl_ptr_vector_construct(&v);
	CU_ASSERT_EQUAL(v.state, CL_UNINITIALIZED);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 0);
	cl_ptr_vector_destroy(&v);
	cl_ptr_vector_destroy(&v);
}

static void test_init_capacity(void)
{
	cl_ptr_vector_t v;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 10, 0), CL_SUCCESS);
	/* min_cap reserves room; the size starts at zero. */
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 0);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 10);
	CU_ASSERT_EQUAL(cl_ptr_vector_set_capacity(&v, 3), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 10);
	CU_ASSERT_EQUAL(cl_ptr_vector_set_capacity(&v, SIZE_MAX / 2), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 10);
	cl_ptr_vector_destroy(&v);
	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 0);
	CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[0], NULL), CL_INSUFFICIENT_MEMORY);
	cl_ptr_vector_destroy(&v);
}

static void test_insert_get_at(void)
{
	cl_ptr_vector_t v;
	void *p = &objs[999];
	size_t i, idx;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 5), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_at(&v, 0, &p), CL_INVALID_PARAMETER);
	CU_ASSERT_PTR_EQUAL(p, &objs[999]);
	for (i = 0; i < 12; i++) {
		CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[i], &idx), CL_SUCCESS);
		CU_ASSERT_EQUAL(idx, i);
	}
	CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[12], NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 13);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 15);
	for (i = 0; i < 13; i++) {
		CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, i), &objs[i]);
		CU_ASSERT_EQUAL(cl_ptr_vector_at(&v, i, &p), CL_SUCCESS);
		CU_ASSERT_PTR_EQUAL(p, &objs[i]);
	}
	CU_ASSERT_EQUAL(cl_ptr_vector_at(&v, 13, &p), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_ptr_vector_at(&v, SIZE_MAX, &p), CL_INVALID_PARAMETER);
	cl_ptr_vector_destroy(&v);
}

static void test_set_grows_with_nulls(void)
{
	cl_ptr_vector_t v;
	size_t i;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 4), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_set(&v, 6, &objs[6]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 7);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 8);
	for (i = 0; i < 6; i++)
		CU_ASSERT_PTR_NULL(cl_ptr_vector_get(&v, i));
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, 6), &objs[6]);
	CU_ASSERT_EQUAL(cl_ptr_vector_set(&v, 2, &objs[2]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 7);
	/* Shrinking then growing again exposes NULL entries, not stale ones. */
	CU_ASSERT_EQUAL(cl_ptr_vector_set_size(&v, 1), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_set_size(&v, 7), CL_SUCCESS);
	CU_ASSERT_PTR_NULL(cl_ptr_vector_get(&v, 2));
	CU_ASSERT_PTR_NULL(cl_ptr_vector_get(&v, 6));
	CU_ASSERT_EQUAL(cl_ptr_vector_set_min_size(&v, 3), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 7);
	CU_ASSERT_EQUAL(cl_ptr_vector_set_min_size(&v, 9), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 9);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), 12);
	CU_ASSERT_EQUAL(cl_ptr_vector_set_size(&v, SIZE_MAX - 2), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 9);
	cl_ptr_vector_destroy(&v);
}

static void test_fixed_capacity(void)
{
	cl_ptr_vector_t v;
	size_t i;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 3, 0), CL_SUCCESS);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[i], NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[3], NULL), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_ptr_vector_set(&v, 3, &objs[3]), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 3);
	CU_ASSERT_EQUAL(cl_ptr_vector_set_capacity(&v, 4), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[3], NULL), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 4);
	cl_ptr_vector_destroy(&v);
}

/*
 * cl_ptr_vector_set() is inline in the header (CL_EXTERN_INLINE); binaries
 * built against older headers, and calls the compiler does not inline, run
 * the library's exported copy. Its address is the exported function: the
 * same results as the inline one above.
 */
static void test_set_exported_copy(void)
{
	cl_status_t (*volatile set)(cl_ptr_vector_t *, size_t, const void *) = cl_ptr_vector_set;
	cl_ptr_vector_t v;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 4), CL_SUCCESS);
	CU_ASSERT_EQUAL(set(&v, 6, &objs[6]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 7);
	CU_ASSERT_PTR_NULL(cl_ptr_vector_get(&v, 5));
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, 6), &objs[6]);
	CU_ASSERT_EQUAL(set(&v, 1, &objs[1]), CL_SUCCESS);
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, 1), &objs[1]);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 7);
	cl_ptr_vector_destroy(&v);

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 2, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(set(&v, 1, &objs[1]), CL_SUCCESS);
	CU_ASSERT_EQUAL(set(&v, 2, &objs[2]), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 2);
	cl_ptr_vector_destroy(&v);
}

static void test_remove(void)
{
	cl_ptr_vector_t v;
	size_t i;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 8), CL_SUCCESS);
	for (i = 0; i < 10; i++)
		cl_ptr_vector_insert(&v, &objs[i], NULL);
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_remove(&v, 3), &objs[3]);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 9);
	for (i = 0; i < 9; i++)
		CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, i), &objs[i < 3 ? i : i + 1]);
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_remove(&v, 8), &objs[9]); /* last */
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_remove(&v, 0), &objs[0]); /* first */
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), 7);
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, 0), &objs[1]);
	CU_ASSERT_PTR_EQUAL(cl_ptr_vector_get(&v, 6), &objs[8]);
	/* The vacated slot reads NULL once it is back in range. */
	CU_ASSERT_EQUAL(cl_ptr_vector_set_size(&v, 8), CL_SUCCESS);
	CU_ASSERT_PTR_NULL(cl_ptr_vector_get(&v, 7));
	/* Removing everything from the front. */
	while (cl_ptr_vector_get_size(&v))
		cl_ptr_vector_remove(&v, 0);
	CU_ASSERT_EQUAL(cl_ptr_vector_insert(&v, &objs[5], &i), CL_SUCCESS);
	CU_ASSERT_EQUAL(i, 0);
	cl_ptr_vector_destroy(&v);
}

static void sum_apply(const size_t index, void *const element, void *context)
{
	*(size_t *)context += (size_t)((int *)element - objs) * (index + 1);
}

static cl_status_t find_ptr(const size_t index, const void *const element, void *context)
{
	(void)index;
	return element == context ? CL_SUCCESS : CL_NOT_FOUND;
}

static void test_apply_and_find(void)
{
	cl_ptr_vector_t v;
	size_t sum = 0;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 4), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_start(&v, find_ptr, &objs[0]), 0);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_end(&v, find_ptr, &objs[0]), 0);
	/* objs 0 1 2 0 1 2 0 */
	cl_ptr_vector_insert(&v, &objs[0], NULL);
	cl_ptr_vector_insert(&v, &objs[1], NULL);
	cl_ptr_vector_insert(&v, &objs[2], NULL);
	cl_ptr_vector_insert(&v, &objs[0], NULL);
	cl_ptr_vector_insert(&v, &objs[1], NULL);
	cl_ptr_vector_insert(&v, &objs[2], NULL);
	cl_ptr_vector_insert(&v, &objs[0], NULL);
	cl_ptr_vector_apply_func(&v, sum_apply, &sum);
	CU_ASSERT_EQUAL(sum, 0 * 1 + 1 * 2 + 2 * 3 + 0 * 4 + 1 * 5 + 2 * 6 + 0 * 7);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_start(&v, find_ptr, &objs[2]), 2);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_end(&v, find_ptr, &objs[2]), 5);
	/* Index 0 is examined by the backward search too. */
	cl_ptr_vector_set(&v, 6, &objs[9]);
	cl_ptr_vector_set(&v, 3, &objs[9]);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_end(&v, find_ptr, &objs[0]), 0);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_end(&v, find_ptr, &objs[7]), 7);
	CU_ASSERT_EQUAL(cl_ptr_vector_find_from_start(&v, find_ptr, &objs[7]), 7);
	cl_ptr_vector_destroy(&v);
}

static void test_large(void)
{
	cl_ptr_vector_t v;
	size_t i, n = 200000;
	int ok = 1;

	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 0, 1), CL_SUCCESS);
	for (i = 0; i < n; i++)
		if (cl_ptr_vector_insert(&v, &objs[i % 1000], NULL) != CL_SUCCESS)
			ok = 0;
	CU_ASSERT_TRUE(ok);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_size(&v), n);
	CU_ASSERT_EQUAL(cl_ptr_vector_get_capacity(&v), n);
	for (i = 0; i < n; i++)
		if (cl_ptr_vector_get(&v, i) != &objs[i % 1000])
			ok = 0;
	CU_ASSERT_TRUE(ok);
	cl_ptr_vector_destroy(&v);
}

static void test_no_leaks(void)
{
	cl_ptr_vector_t v;
	size_t i;

	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	CU_ASSERT_EQUAL(cl_ptr_vector_init(&v, 2, 3), CL_SUCCESS);
	for (i = 0; i < 1000; i++)
		cl_ptr_vector_insert(&v, &objs[i], NULL);
	CU_ASSERT_TRUE(cl_mem_track_count() > 0);
	cl_ptr_vector_destroy(&v);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_init_capacity),
	TEST_ENTRY(test_insert_get_at),
	TEST_ENTRY(test_set_grows_with_nulls),
	TEST_ENTRY(test_fixed_capacity),
	TEST_ENTRY(test_set_exported_copy),
	TEST_ENTRY(test_remove),
	TEST_ENTRY(test_apply_and_find),
	TEST_ENTRY(test_large),
	TEST_ENTRY(test_no_leaks),
};

TEST_MAIN("cl_ptr_vector", tests)
