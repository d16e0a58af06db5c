/*
 * ibal tests: cl_list (list of object pointers).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_list.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"

#define N 20
static int vals[N];

static void track_begin(void)
{
	int i;

	for (i = 0; i < N; i++)
		vals[i] = i;
	CU_ASSERT_EQUAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
}

static void track_end(void)
{
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	__cl_mem_track(FALSE);
}

/* Checks the list holds exactly vals[idx[0]], vals[idx[1]], ... in order,
 * walking both ways. */
static void expect(const cl_list_t *l, const int *idx, int n)
{
	cl_list_iterator_t it;
	int i = 0;

	CU_ASSERT_EQUAL(cl_list_count(l), (size_t)n);
	for (it = cl_list_head(l); it != cl_list_end(l); it = cl_list_next(it)) {
		CU_ASSERT_FATAL(i < n);
		CU_ASSERT_PTR_EQUAL(cl_list_obj(it), &vals[idx[i]]);
		i++;
	}
	CU_ASSERT_EQUAL(i, n);
	for (it = cl_list_tail(l); it != cl_list_end(l); it = cl_list_prev(it))
		CU_ASSERT_PTR_EQUAL(cl_list_obj(it), &vals[idx[--i]]);
	CU_ASSERT_EQUAL(i, 0);
}

/* Stops automatic growth: the pool may only hand out what it has now. */
static void freeze(cl_list_t *l)
{
	l->list_item_pool.qcpool.max_objects = l->list_item_pool.qcpool.num_objects;
}

static void test_construct_destroy(void)
{
	cl_list_t l;

	cl_list_construct(&l);
	CU_ASSERT_FALSE(cl_is_list_inited(&l));
	cl_list_destroy(&l);
	CU_ASSERT_FALSE(cl_is_list_inited(&l));
}

static void test_empty(void)
{
	cl_list_t l;

	track_begin();
	cl_list_construct(&l);
	CU_ASSERT_EQUAL(cl_list_init(&l, 0), CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_list_inited(&l));
	CU_ASSERT_TRUE(cl_is_list_empty(&l));
	CU_ASSERT_EQUAL(cl_list_count(&l), 0);
	CU_ASSERT_PTR_EQUAL(cl_list_head(&l), cl_list_end(&l));
	CU_ASSERT_PTR_EQUAL(cl_list_tail(&l), cl_list_end(&l));
	CU_ASSERT_PTR_NULL(cl_list_remove_head(&l));
	CU_ASSERT_PTR_NULL(cl_list_remove_tail(&l));
	CU_ASSERT_EQUAL(cl_list_remove_object(&l, &vals[0]), CL_NOT_FOUND);
	CU_ASSERT_FALSE(cl_is_object_in_list(&l, &vals[0]));
	cl_list_remove_item(&l, cl_list_end(&l));
	cl_list_remove_all(&l);
	CU_ASSERT_TRUE(cl_is_list_empty(&l));
	cl_list_destroy(&l);
	track_end();
}

static void test_insert_remove_ends(void)
{
	static const int e1[] = { 2, 1, 0, 3, 4 };
	static const int e2[] = { 1, 0, 3 };
	cl_list_t l;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 2), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_head(&l, &vals[0]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_head(&l, &vals[1]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_head(&l, &vals[2]), CL_SUCCESS); /* grows */
	CU_ASSERT_EQUAL(cl_list_insert_tail(&l, &vals[3]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_tail(&l, &vals[4]), CL_SUCCESS);
	expect(&l, e1, 5);
	CU_ASSERT_PTR_EQUAL(cl_list_remove_head(&l), &vals[2]);
	CU_ASSERT_PTR_EQUAL(cl_list_remove_tail(&l), &vals[4]);
	expect(&l, e2, 3);
	/* NULL objects may be stored too. */
	CU_ASSERT_EQUAL(cl_list_insert_tail(&l, NULL), CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_object_in_list(&l, NULL));
	CU_ASSERT_EQUAL(cl_list_remove_object(&l, NULL), CL_SUCCESS);
	cl_list_remove_all(&l);
	CU_ASSERT_TRUE(cl_is_list_empty(&l));
	CU_ASSERT_EQUAL(cl_qpool_count(&l.list_item_pool), l.list_item_pool.qcpool.num_objects);
	cl_list_destroy(&l);
	track_end();
}

static void test_insert_next_prev(void)
{
	static const int e[] = { 5, 0, 1, 2, 3, 6 };
	cl_list_t l;
	cl_list_iterator_t it;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 4), CL_SUCCESS);
	cl_list_insert_tail(&l, &vals[0]);
	cl_list_insert_tail(&l, &vals[2]);
	it = cl_list_head(&l);
	CU_ASSERT_EQUAL(cl_list_insert_next(&l, it, &vals[1]), CL_SUCCESS);
	it = cl_list_tail(&l);
	CU_ASSERT_EQUAL(cl_list_insert_next(&l, it, &vals[3]), CL_SUCCESS);
	/* At the end: next means head, prev means tail. */
	CU_ASSERT_EQUAL(cl_list_insert_next(&l, cl_list_end(&l), &vals[5]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_prev(&l, cl_list_end(&l), &vals[6]), CL_SUCCESS);
	expect(&l, e, 6);
	it = cl_list_next(cl_list_head(&l));
	CU_ASSERT_EQUAL(cl_list_insert_prev(&l, it, &vals[7]), CL_SUCCESS);
	CU_ASSERT_PTR_EQUAL(cl_list_obj(cl_list_next(cl_list_head(&l))), &vals[7]);
	cl_list_remove_all(&l);
	cl_list_destroy(&l);
	track_end();
}

static void test_remove_while_iterating(void)
{
	static const int odd[] = { 1, 3, 5, 7, 9 };
	cl_list_t l;
	cl_list_iterator_t it, next;
	int i;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 10), CL_SUCCESS);
	for (i = 0; i < 10; i++)
		cl_list_insert_tail(&l, &vals[i]);
	/* The documented idiom: take the next iterator before removing. */
	for (it = cl_list_head(&l); it != cl_list_end(&l); it = next) {
		next = cl_list_next(it);
		if (*(int *)cl_list_obj(it) % 2 == 0)
			cl_list_remove_item(&l, it);
	}
	expect(&l, odd, 5);
	CU_ASSERT_EQUAL(cl_qpool_count(&l.list_item_pool), 5);
	/* Backwards too. */
	for (it = cl_list_tail(&l); it != cl_list_end(&l); it = next) {
		next = cl_list_prev(it);
		cl_list_remove_item(&l, it);
	}
	CU_ASSERT_TRUE(cl_is_list_empty(&l));
	cl_list_destroy(&l);
	track_end();
}

static void test_remove_object_duplicates(void)
{
	static const int e[] = { 1, 0, 2 };
	cl_list_t l;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 0), CL_SUCCESS);
	cl_list_insert_tail(&l, &vals[0]);
	cl_list_insert_tail(&l, &vals[1]);
	cl_list_insert_tail(&l, &vals[0]);
	cl_list_insert_tail(&l, &vals[2]);
	CU_ASSERT_TRUE(cl_is_object_in_list(&l, &vals[0]));
	CU_ASSERT_FALSE(cl_is_object_in_list(&l, &vals[3]));
	/* Only the first occurrence goes. */
	CU_ASSERT_EQUAL(cl_list_remove_object(&l, &vals[0]), CL_SUCCESS);
	expect(&l, e, 3);
	CU_ASSERT_EQUAL(cl_list_remove_object(&l, &vals[0]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_remove_object(&l, &vals[0]), CL_NOT_FOUND);
	CU_ASSERT_FALSE(cl_is_object_in_list(&l, &vals[0]));
	cl_list_destroy(&l); /* not emptied first: the links are freed anyway */
	track_end();
}

typedef struct {
	int a;
	char pad[9];
} elem_t;

static void test_insert_arrays(void)
{
	elem_t arr[4];
	cl_list_t l;
	cl_list_iterator_t it;
	int i, k;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 0), CL_SUCCESS);
	cl_list_insert_tail(&l, &vals[0]);
	CU_ASSERT_EQUAL(cl_list_insert_array_head(&l, arr, 4, sizeof(elem_t)), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_array_tail(&l, arr, 4, sizeof(elem_t)), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_array_tail(&l, NULL, 0, sizeof(elem_t)), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_array_head(&l, NULL, 0, sizeof(elem_t)), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_count(&l), 9);
	it = cl_list_head(&l);
	for (k = 0; k < 2; k++) {
		for (i = 0; i < 4; i++, it = cl_list_next(it))
			CU_ASSERT_PTR_EQUAL(cl_list_obj(it), &arr[i]);
		if (!k) {
			CU_ASSERT_PTR_EQUAL(cl_list_obj(it), &vals[0]);
			it = cl_list_next(it);
		}
	}
	CU_ASSERT_PTR_EQUAL(it, cl_list_end(&l));
	cl_list_remove_all(&l);
	cl_list_destroy(&l);
	track_end();
}

static void test_insert_failures(void)
{
	static const int e[] = { 1, 0, 2 };
	cl_list_t l;
	elem_t arr[3];
	size_t pooled;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 4), CL_SUCCESS);
	freeze(&l);
	cl_list_insert_tail(&l, &vals[0]);
	cl_list_insert_head(&l, &vals[1]);
	cl_list_insert_tail(&l, &vals[2]);
	pooled = cl_qpool_count(&l.list_item_pool);
	CU_ASSERT_EQUAL(pooled, 1);
	/* Arrays are all or nothing. */
	CU_ASSERT_EQUAL(cl_list_insert_array_head(&l, arr, 3, sizeof(elem_t)),
			CL_INSUFFICIENT_MEMORY);
	expect(&l, e, 3);
	CU_ASSERT_EQUAL(cl_list_insert_array_tail(&l, arr, 3, sizeof(elem_t)),
			CL_INSUFFICIENT_MEMORY);
	expect(&l, e, 3);
	CU_ASSERT_EQUAL(cl_qpool_count(&l.list_item_pool), pooled);
	/* One more fits, then every insertion fails and leaves the list alone. */
	CU_ASSERT_EQUAL(cl_list_insert_tail(&l, &vals[3]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_insert_tail(&l, &vals[4]), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_list_insert_head(&l, &vals[4]), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_list_insert_next(&l, cl_list_head(&l), &vals[4]),
			CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_list_insert_prev(&l, cl_list_head(&l), &vals[4]),
			CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(cl_list_count(&l), 4);
	CU_ASSERT_FALSE(cl_is_object_in_list(&l, &vals[4]));
	/* Removing frees a link for the next insertion. */
	CU_ASSERT_PTR_EQUAL(cl_list_remove_head(&l), &vals[1]);
	CU_ASSERT_EQUAL(cl_list_insert_head(&l, &vals[4]), CL_SUCCESS);
	cl_list_remove_all(&l);
	cl_list_destroy(&l);
	track_end();
}

static cl_status_t find_ge(const void *const p_object, void *context)
{
	return *(const int *)p_object >= *(int *)context ? CL_SUCCESS : CL_NOT_FOUND;
}

static cl_status_t find_none(const void *const p_object, void *context)
{
	(void)p_object;
	(void)context;
	return CL_NOT_FOUND;
}

static void sum_cb(void *const p_object, void *context)
{
	*(int *)context += *(int *)p_object;
}

static void test_find_apply(void)
{
	cl_list_t l;
	cl_list_iterator_t it;
	int i, limit = 5, sum = 0;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 0), CL_SUCCESS);
	it = cl_list_find_from_head(&l, find_ge, &limit);
	CU_ASSERT_PTR_EQUAL(it, cl_list_end(&l));
	cl_list_apply_func(&l, sum_cb, &sum);
	CU_ASSERT_EQUAL(sum, 0);
	for (i = 0; i < 10; i++)
		cl_list_insert_tail(&l, &vals[i]);
	it = cl_list_find_from_head(&l, find_ge, &limit);
	CU_ASSERT_PTR_EQUAL(cl_list_obj(it), &vals[5]);
	it = cl_list_find_from_tail(&l, find_ge, &limit);
	CU_ASSERT_PTR_EQUAL(cl_list_obj(it), &vals[9]);
	CU_ASSERT_PTR_EQUAL(cl_list_find_from_head(&l, find_none, NULL), cl_list_end(&l));
	CU_ASSERT_PTR_EQUAL(cl_list_find_from_tail(&l, find_none, NULL), cl_list_end(&l));
	cl_list_apply_func(&l, sum_cb, &sum);
	CU_ASSERT_EQUAL(sum, 45);
	cl_list_remove_all(&l);
	cl_list_destroy(&l);
	track_end();
}

static void test_growth(void)
{
	cl_list_t l;
	int i;

	track_begin();
	CU_ASSERT_EQUAL(cl_list_init(&l, 160), CL_SUCCESS);
	CU_ASSERT_EQUAL(l.list_item_pool.qcpool.grow_size, 20);
	CU_ASSERT_EQUAL(cl_qpool_count(&l.list_item_pool), 160);
	for (i = 0; i < 1000; i++)
		CU_ASSERT_EQUAL(cl_list_insert_tail(&l, &vals[i % N]), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_list_count(&l), 1000);
	cl_list_remove_all(&l);
	CU_ASSERT_EQUAL(cl_qpool_count(&l.list_item_pool), l.list_item_pool.qcpool.num_objects);
	cl_list_destroy(&l);
	CU_ASSERT_EQUAL(cl_list_init(&l, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(l.list_item_pool.qcpool.grow_size, 10);
	cl_list_destroy(&l);
	track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_empty),
	TEST_ENTRY(test_insert_remove_ends),
	TEST_ENTRY(test_insert_next_prev),
	TEST_ENTRY(test_remove_while_iterating),
	TEST_ENTRY(test_remove_object_duplicates),
	TEST_ENTRY(test_insert_arrays),
	TEST_ENTRY(test_insert_failures),
	TEST_ENTRY(test_find_apply),
	TEST_ENTRY(test_growth),
};

TEST_MAIN("cl_list", tests)
