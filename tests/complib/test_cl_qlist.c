/*
 * ibal tests: cl_qlist.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qlist.h>
#include "../common/cl_test.h"

typedef struct {
	cl_list_item_t item;
	int value;
} node_t;

#define N 16
static node_t nodes[N];

static void fill(cl_qlist_t *l, int n)
{
	int i;

	cl_qlist_init(l);
	for (i = 0; i < n; i++) {
		nodes[i].value = i;
		cl_qlist_insert_tail(l, &nodes[i].item);
	}
}

static int value_at(cl_list_item_t *it)
{
	return PARENT_STRUCT(it, node_t, item)->value;
}

static void test_empty(void)
{
	cl_qlist_t l;

	cl_qlist_init(&l);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&l));
	CU_ASSERT_EQUAL(cl_qlist_count(&l), 0);
	CU_ASSERT_PTR_EQUAL(cl_qlist_head(&l), cl_qlist_end(&l));
	CU_ASSERT_PTR_EQUAL(cl_qlist_tail(&l), cl_qlist_end(&l));
	CU_ASSERT_PTR_EQUAL(cl_qlist_remove_head(&l), cl_qlist_end(&l));
	CU_ASSERT_PTR_EQUAL(cl_qlist_remove_tail(&l), cl_qlist_end(&l));
	cl_qlist_remove_item(&l, (cl_list_item_t *)cl_qlist_end(&l));
	CU_ASSERT_EQUAL(cl_qlist_count(&l), 0);
}

static void test_order(void)
{
	cl_qlist_t l;
	cl_list_item_t *it;
	int expect = 0;

	fill(&l, N);
	CU_ASSERT_EQUAL(cl_qlist_count(&l), N);
	for (it = cl_qlist_head(&l); it != cl_qlist_end(&l); it = cl_qlist_next(it))
		CU_ASSERT_EQUAL(value_at(it), expect++);
	CU_ASSERT_EQUAL(expect, N);
	for (it = cl_qlist_tail(&l); it != cl_qlist_end(&l); it = cl_qlist_prev(it))
		CU_ASSERT_EQUAL(value_at(it), --expect);
}

static void test_head_tail_removal(void)
{
	cl_qlist_t l;

	fill(&l, 3);
	CU_ASSERT_EQUAL(value_at(cl_qlist_remove_head(&l)), 0);
	CU_ASSERT_EQUAL(value_at(cl_qlist_remove_tail(&l)), 2);
	CU_ASSERT_EQUAL(value_at(cl_qlist_head(&l)), 1);
	CU_ASSERT_EQUAL(cl_qlist_count(&l), 1);
	cl_qlist_remove_item(&l, &nodes[1].item);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&l));
}

static void test_remove_while_iterating(void)
{
	cl_qlist_t l;
	cl_list_item_t *it, *next;
	int kept = 0;

	fill(&l, N);
	for (it = cl_qlist_head(&l); it != cl_qlist_end(&l); it = next) {
		next = cl_qlist_next(it);
		if (value_at(it) % 2 == 0)
			cl_qlist_remove_item(&l, it);
	}
	CU_ASSERT_EQUAL(cl_qlist_count(&l), N / 2);
	for (it = cl_qlist_head(&l); it != cl_qlist_end(&l); it = cl_qlist_next(it)) {
		CU_ASSERT_EQUAL(value_at(it) % 2, 1);
		kept++;
	}
	CU_ASSERT_EQUAL(kept, N / 2);
}

static void test_insert_prev_next(void)
{
	cl_qlist_t l;

	cl_qlist_init(&l);
	nodes[0].value = 0;
	nodes[1].value = 1;
	nodes[2].value = 2;
	cl_qlist_insert_tail(&l, &nodes[1].item);
	cl_qlist_insert_prev(&l, &nodes[1].item, &nodes[0].item);
	cl_qlist_insert_next(&l, &nodes[1].item, &nodes[2].item);
	CU_ASSERT_EQUAL(value_at(cl_qlist_head(&l)), 0);
	CU_ASSERT_EQUAL(value_at(cl_qlist_next(cl_qlist_head(&l))), 1);
	CU_ASSERT_EQUAL(value_at(cl_qlist_tail(&l)), 2);
	CU_ASSERT_EQUAL(cl_qlist_count(&l), 3);
}

static void test_lists_and_arrays(void)
{
	cl_qlist_t a, b;
	node_t arr[4];
	cl_list_item_t *it;
	int i, expect[] = { 10, 11, 12, 13, 0, 1, 2, 20, 21, 22, 23 };

	fill(&a, 3);
	cl_qlist_init(&b);
	for (i = 0; i < 4; i++)
		arr[i].value = 10 + i;
	cl_qlist_insert_array_head(&b, &arr[0].item, 4, sizeof(node_t));
	cl_qlist_insert_list_head(&a, &b);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&b));
	for (i = 0; i < 4; i++)
		nodes[8 + i].value = 20 + i;
	cl_qlist_insert_array_tail(&b, &nodes[8].item, 4, sizeof(node_t));
	cl_qlist_insert_list_tail(&a, &b);
	CU_ASSERT_EQUAL(cl_qlist_count(&a), 11);
	i = 0;
	for (it = cl_qlist_head(&a); it != cl_qlist_end(&a); it = cl_qlist_next(it))
		CU_ASSERT_EQUAL(value_at(it), expect[i++]);
	CU_ASSERT_EQUAL(i, 11);
	CU_ASSERT_TRUE(cl_is_item_in_qlist(&a, &arr[2].item));
	CU_ASSERT_FALSE(cl_is_item_in_qlist(&b, &arr[2].item));
	/* empty source is a no-op */
	cl_qlist_insert_list_tail(&a, &b);
	CU_ASSERT_EQUAL(cl_qlist_count(&a), 11);
}

static cl_status_t match_value(const cl_list_item_t *const it, void *ctx)
{
	return PARENT_STRUCT(it, node_t, item)->value == *(int *)ctx ? CL_SUCCESS : CL_NOT_FOUND;
}

static cl_status_t is_odd(const cl_list_item_t *const it, void *ctx)
{
	(void)ctx;
	return PARENT_STRUCT(it, node_t, item)->value % 2 ? CL_SUCCESS : CL_NOT_FOUND;
}

static void test_find(void)
{
	cl_qlist_t l;
	int want = 5, missing = 99;

	fill(&l, N);
	nodes[9].value = 5; /* a second match */
	CU_ASSERT_PTR_EQUAL(cl_qlist_find_from_head(&l, match_value, &want), &nodes[5].item);
	CU_ASSERT_PTR_EQUAL(cl_qlist_find_from_tail(&l, match_value, &want), &nodes[9].item);
	CU_ASSERT_PTR_EQUAL(cl_qlist_find_next(&l, &nodes[5].item, match_value, &want),
			    &nodes[9].item);
	CU_ASSERT_PTR_EQUAL(cl_qlist_find_prev(&l, &nodes[9].item, match_value, &want),
			    &nodes[5].item);
	CU_ASSERT_PTR_EQUAL(cl_qlist_find_from_head(&l, match_value, &missing), cl_qlist_end(&l));
}

static void sum_apply(cl_list_item_t *const it, void *ctx)
{
	*(int *)ctx += value_at(it);
}

static void test_apply_and_move(void)
{
	cl_qlist_t l, odd;
	int sum = 0;

	fill(&l, N);
	cl_qlist_apply_func(&l, sum_apply, &sum);
	CU_ASSERT_EQUAL(sum, N * (N - 1) / 2);
	cl_qlist_init(&odd);
	cl_qlist_move_items(&l, &odd, is_odd, NULL);
	CU_ASSERT_EQUAL(cl_qlist_count(&odd), N / 2);
	CU_ASSERT_EQUAL(cl_qlist_count(&l), N / 2);
	CU_ASSERT_EQUAL(value_at(cl_qlist_head(&odd)), 1);
	CU_ASSERT_EQUAL(value_at(cl_qlist_tail(&odd)), N - 1);
	cl_qlist_remove_all(&odd);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&odd));
}

static void test_list_obj(void)
{
	cl_list_obj_t o;
	int x = 0;

	cl_qlist_set_obj(&o, &x);
	CU_ASSERT_PTR_EQUAL(cl_qlist_obj(&o), &x);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_empty),
	TEST_ENTRY(test_order),
	TEST_ENTRY(test_head_tail_removal),
	TEST_ENTRY(test_remove_while_iterating),
	TEST_ENTRY(test_insert_prev_next),
	TEST_ENTRY(test_lists_and_arrays),
	TEST_ENTRY(test_find),
	TEST_ENTRY(test_apply_and_move),
	TEST_ENTRY(test_list_obj),
};

TEST_MAIN("cl_qlist", tests)
