/*
 * ibal tests: cl_qmap.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qmap.h>
#include "../common/cl_test.h"

typedef struct {
	cl_map_item_t item;
	int value;
} node_t;

#define N 64
#define KEYS 2048
static node_t nodes[KEYS];

#define MAP_CHECK_MAP cl_qmap_t
#define MAP_CHECK_ITEM cl_map_item_t
#define MAP_CHECK_CMP(m, a, b) (((a)->key > (b)->key) - ((a)->key < (b)->key))
#define MAP_CHECK_COUNT cl_qmap_count
#define MAP_CHECK_LIST cl_qmap
#include "../common/map_check.h"

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

static int value_of(const cl_map_item_t *it)
{
	return PARENT_STRUCT(it, node_t, item)->value;
}

static void fill(cl_qmap_t *m, int n, uint64_t mult)
{
	int i;

	cl_qmap_init(m);
	for (i = 0; i < n; i++) {
		nodes[i].value = i;
		CU_ASSERT_PTR_EQUAL(cl_qmap_insert(m, (uint64_t)i * mult, &nodes[i].item),
				    &nodes[i].item);
	}
}

static void test_empty(void)
{
	cl_qmap_t m;

	cl_qmap_init(&m);
	CU_ASSERT_TRUE(cl_is_qmap_empty(&m));
	CU_ASSERT_EQUAL(cl_qmap_count(&m), 0);
	CU_ASSERT_PTR_EQUAL(cl_qmap_head(&m), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_tail(&m), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, 0), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_get_next(&m, 0), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_remove(&m, 7), cl_qmap_end(&m));
	cl_qmap_remove_item(&m, (cl_map_item_t *)cl_qmap_end(&m));
	CU_ASSERT_EQUAL(cl_qmap_count(&m), 0);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_order_and_lookup(void)
{
	cl_qmap_t m;
	cl_map_item_t *it;
	int i, expect = 0;

	cl_qmap_init(&m);
	/* Insert in a scrambled order (7 is coprime with N). */
	for (i = 0; i < N; i++) {
		int k = (i * 7) % N;

		nodes[k].value = k;
		cl_qmap_insert(&m, (uint64_t)k * 10, &nodes[k].item);
		CU_ASSERT_TRUE(map_valid(&m));
	}
	CU_ASSERT_EQUAL(cl_qmap_count(&m), N);
	for (it = cl_qmap_head(&m); it != cl_qmap_end(&m); it = cl_qmap_next(it)) {
		CU_ASSERT_EQUAL(value_of(it), expect);
		CU_ASSERT_EQUAL(cl_qmap_key(it), (uint64_t)expect * 10);
		expect++;
	}
	CU_ASSERT_EQUAL(expect, N);
	for (it = cl_qmap_tail(&m); it != cl_qmap_end(&m); it = cl_qmap_prev(it))
		CU_ASSERT_EQUAL(value_of(it), --expect);
	for (i = 0; i < N; i++) {
		CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, (uint64_t)i * 10), &nodes[i].item);
		CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, (uint64_t)i * 10 + 1), cl_qmap_end(&m));
		/* get_next: strictly greater. */
		if (i + 1 < N) {
			CU_ASSERT_PTR_EQUAL(cl_qmap_get_next(&m, (uint64_t)i * 10), &nodes[i + 1].item);
			CU_ASSERT_PTR_EQUAL(cl_qmap_get_next(&m, (uint64_t)i * 10 + 9),
					    &nodes[i + 1].item);
		}
	}
	CU_ASSERT_PTR_EQUAL(cl_qmap_get_next(&m, (uint64_t)(N - 1) * 10), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_get_next(&m, UINT64_MAX), cl_qmap_end(&m));
}

static void test_extreme_keys(void)
{
	cl_qmap_t m;

	cl_qmap_init(&m);
	cl_qmap_insert(&m, UINT64_MAX, &nodes[0].item);
	cl_qmap_insert(&m, 0, &nodes[1].item);
	cl_qmap_insert(&m, UINT64_MAX / 2, &nodes[2].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_head(&m), &nodes[1].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_tail(&m), &nodes[0].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, UINT64_MAX), &nodes[0].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, 0), &nodes[1].item);
	CU_ASSERT_TRUE(map_valid(&m));
}

/*
 * cl_qmap_get() is inline in the header (CL_EXTERN_INLINE); calls that are not
 * inlined, and binaries built against older headers, run the library's
 * exported copy, reached here through its address: the same answers.
 */
static void test_get_exported_copy(void)
{
	cl_map_item_t *(*volatile get)(const cl_qmap_t *, uint64_t) = cl_qmap_get;
	cl_qmap_t m;
	int i;

	fill(&m, 100, 3);
	for (i = 0; i < 100; i++)
		CU_ASSERT_PTR_EQUAL(get(&m, (uint64_t)i * 3), &nodes[i].item);
	CU_ASSERT_PTR_EQUAL(get(&m, 1), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(get(&m, 300), cl_qmap_end(&m));
	cl_qmap_init(&m);
	CU_ASSERT_PTR_EQUAL(get(&m, 0), cl_qmap_end(&m));
}

static void test_duplicates(void)
{
	cl_qmap_t m;
	node_t extra;

	fill(&m, 8, 1);
	/* A duplicate key returns the resident item and leaves the map alone. */
	CU_ASSERT_PTR_EQUAL(cl_qmap_insert(&m, 3, &extra.item), &nodes[3].item);
	CU_ASSERT_EQUAL(cl_qmap_count(&m), 8);
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, 3), &nodes[3].item);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_remove(void)
{
	cl_qmap_t m;
	int i;

	fill(&m, N, 1);
	CU_ASSERT_PTR_EQUAL(cl_qmap_remove(&m, 5), &nodes[5].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_remove(&m, 5), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, 5), cl_qmap_end(&m));
	CU_ASSERT_EQUAL(cl_qmap_count(&m), N - 1);
	CU_ASSERT_PTR_EQUAL(cl_qmap_next(&nodes[4].item), &nodes[6].item);
	/* The removed item can go back in. */
	CU_ASSERT_PTR_EQUAL(cl_qmap_insert(&m, 5, &nodes[5].item), &nodes[5].item);
	CU_ASSERT_TRUE(map_valid(&m));
	/* Removing the top node repeatedly exercises two-child removal. */
	for (i = 0; i < N; i++) {
		cl_qmap_remove_item(&m, m.root.p_left);
		CU_ASSERT_TRUE(map_valid(&m));
	}
	CU_ASSERT_TRUE(cl_is_qmap_empty(&m));
	fill(&m, N, 1);
	cl_qmap_remove_all(&m);
	CU_ASSERT_TRUE(cl_is_qmap_empty(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_head(&m), cl_qmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, 1), cl_qmap_end(&m));
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_remove_while_iterating(void)
{
	cl_qmap_t m;
	cl_map_item_t *it, *next;
	int seen = 0;

	fill(&m, N, 3);
	/* The documented idiom: fetch the next item before removing the current. */
	for (it = cl_qmap_head(&m); it != cl_qmap_end(&m); it = next) {
		next = cl_qmap_next(it);
		if (value_of(it) % 2 == 0)
			cl_qmap_remove_item(&m, it);
		seen++;
	}
	CU_ASSERT_EQUAL(seen, N);
	CU_ASSERT_EQUAL(cl_qmap_count(&m), N / 2);
	for (it = cl_qmap_head(&m); it != cl_qmap_end(&m); it = cl_qmap_next(it))
		CU_ASSERT_EQUAL(value_of(it) % 2, 1);
	CU_ASSERT_TRUE(map_valid(&m));
	for (it = cl_qmap_head(&m); it != cl_qmap_end(&m); it = next) {
		next = cl_qmap_next(it);
		cl_qmap_remove_item(&m, it);
	}
	CU_ASSERT_TRUE(cl_is_qmap_empty(&m));
}

static void test_random_against_reference(void)
{
	static char present[KEYS];
	cl_qmap_t m;
	size_t expect = 0;
	int round, k;

	memset(present, 0, sizeof(present));
	cl_qmap_init(&m);
	for (round = 0; round < 60000; round++) {
		k = (int)(rng() % KEYS);
		switch (rng() % 3) {
		case 0:
		case 1:
			if (present[k]) {
				CU_ASSERT_PTR_EQUAL(cl_qmap_insert(&m, (uint64_t)k, &nodes[k ^ 1].item),
						    &nodes[k].item);
			} else {
				CU_ASSERT_PTR_EQUAL(cl_qmap_insert(&m, (uint64_t)k, &nodes[k].item),
						    &nodes[k].item);
				present[k] = 1;
				expect++;
			}
			break;
		default:
			if (rng() & 1) {
				CU_ASSERT_PTR_EQUAL(cl_qmap_remove(&m, (uint64_t)k),
						    present[k] ? &nodes[k].item : cl_qmap_end(&m));
			} else if (present[k]) {
				cl_qmap_remove_item(&m, &nodes[k].item);
			}
			if (present[k])
				expect--;
			present[k] = 0;
			break;
		}
		CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, (uint64_t)k),
				    present[k] ? &nodes[k].item : cl_qmap_end(&m));
		CU_ASSERT_EQUAL(cl_qmap_count(&m), expect);
		if (round % 997 == 0)
			CU_ASSERT_TRUE(map_valid(&m));
	}
	CU_ASSERT_TRUE(map_valid(&m));
	for (k = 0; k < KEYS; k++)
		CU_ASSERT_PTR_EQUAL(cl_qmap_get(&m, (uint64_t)k),
				    present[k] ? &nodes[k].item : cl_qmap_end(&m));
}

static void test_sequential_is_balanced(void)
{
	cl_qmap_t m;
	const cl_map_item_t *n;
	int depth = 0, i;

	cl_qmap_init(&m);
	for (i = 0; i < KEYS; i++)
		cl_qmap_insert(&m, (uint64_t)i, &nodes[i].item);
	CU_ASSERT_TRUE(map_valid(&m));
	/* A red-black tree of 2048 nodes is at most 2*log2(2049) ~ 22 deep. */
	for (n = m.root.p_left; n != cl_qmap_end(&m); n = n->p_right)
		depth++;
	CU_ASSERT_TRUE(depth <= 22);
	CU_ASSERT_TRUE(depth >= 6); /* at least the black height */
}

static void test_merge(void)
{
	cl_qmap_t dest, src;
	cl_map_item_t *it;
	int i;

	/* dest: 0,2,4,...,30; src: 0,3,6,...,45 */
	cl_qmap_init(&dest);
	cl_qmap_init(&src);
	for (i = 0; i < 16; i++)
		cl_qmap_insert(&dest, (uint64_t)i * 2, &nodes[i].item);
	for (i = 0; i < 16; i++)
		cl_qmap_insert(&src, (uint64_t)i * 3, &nodes[100 + i].item);
	cl_qmap_merge(&dest, &src);
	CU_ASSERT_TRUE(map_valid(&dest));
	CU_ASSERT_TRUE(map_valid(&src));
	/* Duplicates (multiples of 6 below 32: 0,6,...,30) stay in src. */
	CU_ASSERT_EQUAL(cl_qmap_count(&src), 6);
	for (it = cl_qmap_head(&src); it != cl_qmap_end(&src); it = cl_qmap_next(it))
		CU_ASSERT_EQUAL(cl_qmap_key(it) % 6, 0);
	CU_ASSERT_EQUAL(cl_qmap_count(&dest), 16 + 16 - 6);
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&dest, 0), &nodes[0].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&dest, 45), &nodes[115].item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_get(&dest, 9), &nodes[103].item);
	/* Merging an empty map changes nothing; merging into an empty one moves all. */
	cl_qmap_remove_all(&src);
	cl_qmap_merge(&dest, &src);
	CU_ASSERT_EQUAL(cl_qmap_count(&dest), 26);
	cl_qmap_merge(&src, &dest);
	CU_ASSERT_EQUAL(cl_qmap_count(&src), 26);
	CU_ASSERT_TRUE(cl_is_qmap_empty(&dest));
	CU_ASSERT_TRUE(map_valid(&src) && map_valid(&dest));
}

static void test_delta(void)
{
	cl_qmap_t m1, m2, n, o;
	cl_map_item_t *it;
	int i;

	/* m1: 0..19, m2: 10..29 */
	cl_qmap_init(&m1);
	cl_qmap_init(&m2);
	cl_qmap_init(&n);
	cl_qmap_init(&o);
	for (i = 0; i < 20; i++) {
		cl_qmap_insert(&m1, (uint64_t)i, &nodes[i].item);
		cl_qmap_insert(&m2, (uint64_t)i + 10, &nodes[100 + i].item);
	}
	cl_qmap_delta(&m1, &m2, &n, &o);
	CU_ASSERT_EQUAL(cl_qmap_count(&m1), 10);
	CU_ASSERT_EQUAL(cl_qmap_count(&m2), 10);
	CU_ASSERT_EQUAL(cl_qmap_count(&n), 10);
	CU_ASSERT_EQUAL(cl_qmap_count(&o), 10);
	for (it = cl_qmap_head(&o), i = 0; it != cl_qmap_end(&o); it = cl_qmap_next(it), i++)
		CU_ASSERT_PTR_EQUAL(it, &nodes[i].item);
	for (it = cl_qmap_head(&n), i = 20; it != cl_qmap_end(&n); it = cl_qmap_next(it), i++)
		CU_ASSERT_EQUAL(cl_qmap_key(it), (uint64_t)i);
	for (it = cl_qmap_head(&m1), i = 10; it != cl_qmap_end(&m1); it = cl_qmap_next(it), i++)
		CU_ASSERT_PTR_EQUAL(it, &nodes[i].item);
	CU_ASSERT_TRUE(map_valid(&m1) && map_valid(&m2) && map_valid(&n) && map_valid(&o));
	/* Identical maps: no difference. */
	cl_qmap_remove_all(&n);
	cl_qmap_remove_all(&o);
	cl_qmap_delta(&m1, &m1, &n, &o);
	CU_ASSERT_TRUE(cl_is_qmap_empty(&n) && cl_is_qmap_empty(&o));
	CU_ASSERT_EQUAL(cl_qmap_count(&m1), 10);
	/* One side empty: everything moves. */
	cl_qmap_remove_all(&m2);
	cl_qmap_delta(&m1, &m2, &n, &o);
	CU_ASSERT_EQUAL(cl_qmap_count(&o), 10);
	CU_ASSERT_TRUE(cl_is_qmap_empty(&m1));
	CU_ASSERT_TRUE(map_valid(&o) && map_valid(&m1));
}

static void sum_apply(cl_map_item_t *const it, void *context)
{
	*(uint64_t *)context += cl_qmap_key(it);
}

static void test_apply_and_obj(void)
{
	cl_qmap_t m;
	cl_map_obj_t o;
	uint64_t sum = 0;
	int x = 0;

	fill(&m, N, 2);
	cl_qmap_apply_func(&m, sum_apply, &sum);
	CU_ASSERT_EQUAL(sum, (uint64_t)N * (N - 1));
	cl_qmap_init(&m);
	sum = 0;
	cl_qmap_apply_func(&m, sum_apply, &sum);
	CU_ASSERT_EQUAL(sum, 0);
	cl_qmap_set_obj(&o, &x);
	CU_ASSERT_PTR_EQUAL(cl_qmap_obj(&o), &x);
	CU_ASSERT_PTR_EQUAL(cl_qmap_insert(&m, 42, &o.item), &o.item);
	CU_ASSERT_PTR_EQUAL(cl_qmap_obj((cl_map_obj_t *)cl_qmap_get(&m, 42)), &x);
	/* The item begins with a pool item, which begins with a list item. */
	CU_ASSERT_PTR_EQUAL((void *)&o.item.pool_item.list_item, (void *)&o);
}

static void test_checker_detects_damage(void)
{
	cl_qmap_t m;

	/* The invariant checker used above must be able to fail. */
	fill(&m, 16, 1);
	CU_ASSERT_TRUE(map_valid(&m));
	m.root.p_left->color = CL_MAP_RED;
	CU_ASSERT_FALSE(map_valid(&m));
	m.root.p_left->color = CL_MAP_BLACK;
	nodes[0].item.key = 100;
	CU_ASSERT_FALSE(map_valid(&m));
	nodes[0].item.key = 0;
	nodes[3].item.pool_item.list_item.p_prev = nodes[3].item.pool_item.list_item.p_next;
	CU_ASSERT_FALSE(map_valid(&m));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_empty),
	TEST_ENTRY(test_order_and_lookup),
	TEST_ENTRY(test_extreme_keys),
	TEST_ENTRY(test_get_exported_copy),
	TEST_ENTRY(test_duplicates),
	TEST_ENTRY(test_remove),
	TEST_ENTRY(test_remove_while_iterating),
	TEST_ENTRY(test_random_against_reference),
	TEST_ENTRY(test_sequential_is_balanced),
	TEST_ENTRY(test_merge),
	TEST_ENTRY(test_delta),
	TEST_ENTRY(test_apply_and_obj),
	TEST_ENTRY(test_checker_detects_damage),
};

TEST_MAIN("cl_qmap", tests)
