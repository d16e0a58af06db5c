/*
 * ibal tests: cl_fleximap.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_fleximap.h>
#include "../common/cl_test.h"

typedef struct {
	cl_fmap_item_t item;
	int key;
} node_t;

#define N 64
#define KEYS 2048
static node_t nodes[KEYS];
static int keyval[KEYS]; /* keyval[i] == i: stable key storage for lookups */
static unsigned cmp_calls;
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;

#define MAP_CHECK_MAP cl_fmap_t
#define MAP_CHECK_ITEM cl_fmap_item_t
#define MAP_CHECK_CMP(m, a, b) ((m)->pfn_compare((a)->p_key, (b)->p_key))
#define MAP_CHECK_COUNT cl_fmap_count
#define MAP_CHECK_LIST cl_fmap
#include "../common/map_check.h"

static uint64_t rng(void)
{
	return test_xorshift64(&rng_state);
}

static int cmp_int(const void *const a, const void *const b)
{
	int x = *(const int *)a, y = *(const int *)b;

	cmp_calls++;
	return (x > y) - (x < y);
}

/* Orders by tens only: every key of the same decade compares equal. */
static int cmp_decade(const void *const a, const void *const b)
{
	int x = *(const int *)a / 10, y = *(const int *)b / 10;

	return (x > y) - (x < y);
}

static int cmp_str(const void *const a, const void *const b)
{
	return strcmp((const char *)a, (const char *)b);
}

static void init_keys(void)
{
	int i;

	for (i = 0; i < KEYS; i++) {
		keyval[i] = i;
		nodes[i].key = i;
	}
}

static void fill(cl_fmap_t *m, int n)
{
	int i;

	init_keys();
	cl_fmap_init(m, cmp_int);
	for (i = 0; i < n; i++) {
		int k = (i * 7) % n;

		CU_ASSERT_PTR_EQUAL(cl_fmap_insert(m, &nodes[k].key, &nodes[k].item), &nodes[k].item);
	}
}

static int key_of(const cl_fmap_item_t *it)
{
	return *(const int *)cl_fmap_key(it);
}

static void test_empty(void)
{
	cl_fmap_t m;
	int k = 3;

	cl_fmap_init(&m, cmp_int);
	CU_ASSERT_TRUE(cl_is_fmap_empty(&m));
	CU_ASSERT_EQUAL(cl_fmap_count(&m), 0);
	CU_ASSERT_PTR_EQUAL(m.pfn_compare, cmp_int);
	CU_ASSERT_PTR_EQUAL(cl_fmap_head(&m), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_tail(&m), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, &k), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_get_next(&m, &k), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_match(&m, &k, cmp_decade), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_remove(&m, &k), cl_fmap_end(&m));
	cl_fmap_remove_item(&m, (cl_fmap_item_t *)cl_fmap_end(&m));
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_order_and_lookup(void)
{
	cl_fmap_t m;
	cl_fmap_item_t *it;
	int i, expect = 0;

	fill(&m, N);
	CU_ASSERT_TRUE(map_valid(&m));
	CU_ASSERT_EQUAL(cl_fmap_count(&m), N);
	for (it = cl_fmap_head(&m); it != cl_fmap_end(&m); it = cl_fmap_next(it))
		CU_ASSERT_EQUAL(key_of(it), expect++);
	CU_ASSERT_EQUAL(expect, N);
	for (it = cl_fmap_tail(&m); it != cl_fmap_end(&m); it = cl_fmap_prev(it))
		CU_ASSERT_EQUAL(key_of(it), --expect);
	for (i = 0; i < N; i++) {
		/* Lookups compare key values, not key pointers. */
		CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, &keyval[i]), &nodes[i].item);
		CU_ASSERT_PTR_EQUAL(cl_fmap_key(&nodes[i].item), &nodes[i].key);
		if (i + 1 < N)
			CU_ASSERT_PTR_EQUAL(cl_fmap_get_next(&m, &keyval[i]), &nodes[i + 1].item);
	}
	i = -5;
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, &i), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_get_next(&m, &i), &nodes[0].item);
	CU_ASSERT_PTR_EQUAL(cl_fmap_get_next(&m, &keyval[N - 1]), cl_fmap_end(&m));
}

static void test_logarithmic_compares(void)
{
	cl_fmap_t m;
	int i;

	init_keys();
	cl_fmap_init(&m, cmp_int);
	for (i = 0; i < KEYS; i++)
		cl_fmap_insert(&m, &nodes[i].key, &nodes[i].item);
	CU_ASSERT_TRUE(map_valid(&m));
	/* A lookup in a balanced tree of 2048 items costs at most ~2*11 compares. */
	for (i = 0; i < KEYS; i += 97) {
		cmp_calls = 0;
		CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, &keyval[i]), &nodes[i].item);
		CU_ASSERT_TRUE(cmp_calls <= 23);
	}
}

static void test_match(void)
{
	cl_fmap_t m;
	cl_fmap_item_t *it;
	int k;

	fill(&m, N);
	k = 37;
	/* NULL means the map's own compare. */
	CU_ASSERT_PTR_EQUAL(cl_fmap_match(&m, &k, NULL), &nodes[37].item);
	/* A coarser compare finds some key of the same decade. */
	it = cl_fmap_match(&m, &k, cmp_decade);
	CU_ASSERT_PTR_NOT_EQUAL(it, cl_fmap_end(&m));
	CU_ASSERT_EQUAL(key_of(it) / 10, 3);
	k = 1000;
	CU_ASSERT_PTR_EQUAL(cl_fmap_match(&m, &k, cmp_decade), cl_fmap_end(&m));
}

static void test_duplicates_and_remove(void)
{
	cl_fmap_t m;
	node_t extra;
	int i;

	fill(&m, N);
	extra.key = 9;
	CU_ASSERT_PTR_EQUAL(cl_fmap_insert(&m, &extra.key, &extra.item), &nodes[9].item);
	CU_ASSERT_EQUAL(cl_fmap_count(&m), N);
	CU_ASSERT_PTR_EQUAL(cl_fmap_remove(&m, &keyval[9]), &nodes[9].item);
	CU_ASSERT_PTR_EQUAL(cl_fmap_remove(&m, &keyval[9]), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_insert(&m, &extra.key, &extra.item), &extra.item);
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, &keyval[9]), &extra.item);
	CU_ASSERT_TRUE(map_valid(&m));
	for (i = 0; i < N; i++) {
		cl_fmap_remove_item(&m, m.root.p_left);
		CU_ASSERT_TRUE(map_valid(&m));
	}
	CU_ASSERT_TRUE(cl_is_fmap_empty(&m));
	fill(&m, N);
	cl_fmap_remove_all(&m);
	CU_ASSERT_TRUE(cl_is_fmap_empty(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_head(&m), cl_fmap_end(&m));
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_remove_while_iterating(void)
{
	cl_fmap_t m;
	cl_fmap_item_t *it, *next;
	int seen = 0;

	fill(&m, N);
	for (it = cl_fmap_head(&m); it != cl_fmap_end(&m); it = next) {
		next = cl_fmap_next(it);
		if (key_of(it) % 3 == 0)
			cl_fmap_remove_item(&m, it);
		seen++;
	}
	CU_ASSERT_EQUAL(seen, N);
	CU_ASSERT_EQUAL(cl_fmap_count(&m), N - (N + 2) / 3);
	for (it = cl_fmap_head(&m); it != cl_fmap_end(&m); it = cl_fmap_next(it))
		CU_ASSERT_NOT_EQUAL(key_of(it) % 3, 0);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_random_against_reference(void)
{
	static char present[KEYS];
	cl_fmap_t m;
	size_t expect = 0;
	int round, k;

	init_keys();
	memset(present, 0, sizeof(present));
	cl_fmap_init(&m, cmp_int);
	for (round = 0; round < 40000; round++) {
		k = (int)(rng() % KEYS);
		if (rng() % 3) {
			cl_fmap_item_t *r = cl_fmap_insert(&m, &nodes[k].key, &nodes[k].item);

			CU_ASSERT_PTR_EQUAL(r, &nodes[k].item);
			if (!present[k])
				expect++;
			present[k] = 1;
		} else {
			CU_ASSERT_PTR_EQUAL(cl_fmap_remove(&m, &keyval[k]),
					    present[k] ? &nodes[k].item : cl_fmap_end(&m));
			if (present[k])
				expect--;
			present[k] = 0;
		}
		CU_ASSERT_EQUAL(cl_fmap_count(&m), expect);
		if (round % 991 == 0)
			CU_ASSERT_TRUE(map_valid(&m));
	}
	CU_ASSERT_TRUE(map_valid(&m));
	for (k = 0; k < KEYS; k++)
		CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, &keyval[k]),
				    present[k] ? &nodes[k].item : cl_fmap_end(&m));
}

static void test_string_keys(void)
{
	static const char *const words[] = { "pear", "apple", "fig", "kiwi", "banana", "cherry" };
	static const char *const sorted[] = { "apple", "banana", "cherry", "fig", "kiwi", "pear" };
	cl_fmap_t m;
	cl_fmap_item_t items[6], *it;
	char probe[8];
	size_t i;

	cl_fmap_init(&m, cmp_str);
	for (i = 0; i < 6; i++)
		cl_fmap_insert(&m, words[i], &items[i]);
	i = 0;
	for (it = cl_fmap_head(&m); it != cl_fmap_end(&m); it = cl_fmap_next(it))
		CU_ASSERT_STRING_EQUAL((const char *)cl_fmap_key(it), sorted[i++]);
	strcpy(probe, "fig");
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, probe), &items[2]);
	strcpy(probe, "grape");
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&m, probe), cl_fmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_fmap_get_next(&m, probe), &items[3]);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_merge(void)
{
	cl_fmap_t dest, src;
	cl_fmap_item_t *it;
	static int k3[16];
	static node_t other[16];
	int i;

	init_keys();
	cl_fmap_init(&dest, cmp_int);
	cl_fmap_init(&src, cmp_int);
	for (i = 0; i < 16; i++) {
		cl_fmap_insert(&dest, &keyval[i * 2], &nodes[i].item);
		k3[i] = i * 3;
		cl_fmap_insert(&src, &k3[i], &other[i].item);
	}
	cl_fmap_merge(&dest, &src);
	CU_ASSERT_TRUE(map_valid(&dest) && map_valid(&src));
	CU_ASSERT_EQUAL(cl_fmap_count(&src), 6);
	for (it = cl_fmap_head(&src); it != cl_fmap_end(&src); it = cl_fmap_next(it))
		CU_ASSERT_EQUAL(key_of(it) % 6, 0);
	CU_ASSERT_EQUAL(cl_fmap_count(&dest), 26);
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&dest, &keyval[9]), &other[3].item);
	CU_ASSERT_PTR_EQUAL(cl_fmap_get(&dest, &keyval[6]), &nodes[3].item);
	cl_fmap_merge(&src, &dest);
	CU_ASSERT_EQUAL(cl_fmap_count(&dest), 6);
	CU_ASSERT_EQUAL(cl_fmap_count(&src), 26);
	CU_ASSERT_TRUE(map_valid(&dest) && map_valid(&src));
}

static void test_delta(void)
{
	cl_fmap_t m1, m2, n, o;
	cl_fmap_item_t *it;
	static node_t second[20];
	int i;

	init_keys();
	cl_fmap_init(&m1, cmp_int);
	cl_fmap_init(&m2, cmp_int);
	cl_fmap_init(&n, cmp_int);
	cl_fmap_init(&o, cmp_int);
	for (i = 0; i < 20; i++) {
		cl_fmap_insert(&m1, &keyval[i], &nodes[i].item);
		cl_fmap_insert(&m2, &keyval[i + 10], &second[i].item);
	}
	cl_fmap_delta(&m1, &m2, &n, &o);
	CU_ASSERT_EQUAL(cl_fmap_count(&m1), 10);
	CU_ASSERT_EQUAL(cl_fmap_count(&m2), 10);
	CU_ASSERT_EQUAL(cl_fmap_count(&n), 10);
	CU_ASSERT_EQUAL(cl_fmap_count(&o), 10);
	for (it = cl_fmap_head(&o), i = 0; it != cl_fmap_end(&o); it = cl_fmap_next(it), i++)
		CU_ASSERT_PTR_EQUAL(it, &nodes[i].item);
	for (it = cl_fmap_head(&n), i = 10; it != cl_fmap_end(&n); it = cl_fmap_next(it), i++)
		CU_ASSERT_PTR_EQUAL(it, &second[i].item);
	for (it = cl_fmap_head(&m2), i = 0; it != cl_fmap_end(&m2); it = cl_fmap_next(it), i++)
		CU_ASSERT_PTR_EQUAL(it, &second[i].item);
	CU_ASSERT_TRUE(map_valid(&m1) && map_valid(&m2) && map_valid(&n) && map_valid(&o));
}

static void count_apply(cl_fmap_item_t *const it, void *context)
{
	*(int *)context += key_of(it);
}

static void test_apply(void)
{
	cl_fmap_t m;
	int sum = 0;

	fill(&m, N);
	cl_fmap_apply_func(&m, count_apply, &sum);
	CU_ASSERT_EQUAL(sum, N * (N - 1) / 2);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_empty),
	TEST_ENTRY(test_order_and_lookup),
	TEST_ENTRY(test_logarithmic_compares),
	TEST_ENTRY(test_match),
	TEST_ENTRY(test_duplicates_and_remove),
	TEST_ENTRY(test_remove_while_iterating),
	TEST_ENTRY(test_random_against_reference),
	TEST_ENTRY(test_string_keys),
	TEST_ENTRY(test_merge),
	TEST_ENTRY(test_delta),
	TEST_ENTRY(test_apply),
};

TEST_MAIN("cl_fleximap", tests)
