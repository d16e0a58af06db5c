/*
 * ibal tests: cl_rbmap.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_rbmap.h>
#include "../common/cl_test.h"

typedef struct {
	cl_rbmap_item_t item;
	int key;
} node_t;

#define KEYS 2048
static node_t nodes[KEYS];

static uint64_t rng_state = 0x2545F4914F6CDD1DULL;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static int key_of(const cl_rbmap_item_t *it)
{
	return PARENT_STRUCT(it, node_t, item)->key;
}

/* The documented caller-side insertion walk; returns the resident node on a duplicate. */
static cl_rbmap_item_t *insert(cl_rbmap_t *m, node_t *n)
{
	cl_rbmap_item_t *at = cl_rbmap_root(m), *p = at;
	boolean_t left = TRUE;

	while (p != cl_rbmap_end(m)) {
		at = p;
		if (n->key < key_of(p)) {
			p = cl_rbmap_left(p);
			left = TRUE;
		} else if (n->key > key_of(p)) {
			p = cl_rbmap_right(p);
			left = FALSE;
		} else {
			return p;
		}
	}
	cl_rbmap_insert(m, at, &n->item, left);
	return &n->item;
}

static cl_rbmap_item_t *find(const cl_rbmap_t *m, int key)
{
	cl_rbmap_item_t *p = cl_rbmap_root(m);

	while (p != cl_rbmap_end(m) && key_of(p) != key)
		p = key < key_of(p) ? cl_rbmap_left(p) : cl_rbmap_right(p);
	return p;
}

static int check_subtree(const cl_rbmap_t *m, const cl_rbmap_item_t *n,
			 const cl_rbmap_item_t *up, long lo, long hi, size_t *count)
{
	int lh, rh;

	if (n == cl_rbmap_end(m))
		return 1;
	if (n->p_up != up || key_of(n) <= lo || key_of(n) >= hi)
		return -1;
	if (n->color == CL_MAP_RED &&
	    (n->p_left->color == CL_MAP_RED || n->p_right->color == CL_MAP_RED))
		return -1;
	(*count)++;
	lh = check_subtree(m, n->p_left, n, lo, key_of(n), count);
	rh = check_subtree(m, n->p_right, n, key_of(n), hi, count);
	if (lh < 0 || lh != rh)
		return -1;
	return lh + (n->color == CL_MAP_BLACK);
}

static int map_valid(const cl_rbmap_t *m)
{
	const cl_rbmap_item_t *top = cl_rbmap_root(m);
	size_t count = 0;

	if (m->nil.color != CL_MAP_BLACK || m->root.color != CL_MAP_BLACK)
		return 0;
	if (top != cl_rbmap_end(m) && top->color != CL_MAP_BLACK)
		return 0;
	if (check_subtree(m, top, &m->root, -(1L << 40), 1L << 40, &count) < 0)
		return 0;
	return count == cl_rbmap_count(m);
}

static int height(const cl_rbmap_t *m, const cl_rbmap_item_t *n)
{
	int l, r;

	if (n == cl_rbmap_end(m))
		return 0;
	l = height(m, cl_rbmap_left(n));
	r = height(m, cl_rbmap_right(n));
	return 1 + (l > r ? l : r);
}

/* In-order walk collecting keys. */
static void collect(const cl_rbmap_t *m, const cl_rbmap_item_t *n, int *out, int *pos)
{
	if (n == cl_rbmap_end(m))
		return;
	collect(m, cl_rbmap_left(n), out, pos);
	out[(*pos)++] = key_of(n);
	collect(m, cl_rbmap_right(n), out, pos);
}

static void test_empty(void)
{
	cl_rbmap_t m;

	cl_rbmap_init(&m);
	CU_ASSERT_TRUE(cl_is_rbmap_empty(&m));
	CU_ASSERT_EQUAL(cl_rbmap_count(&m), 0);
	CU_ASSERT_PTR_EQUAL(cl_rbmap_root(&m), cl_rbmap_end(&m));
	CU_ASSERT_PTR_EQUAL(find(&m, 3), cl_rbmap_end(&m));
	cl_rbmap_remove_item(&m, (cl_rbmap_item_t *)cl_rbmap_end(&m));
	CU_ASSERT_EQUAL(cl_rbmap_count(&m), 0);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_single_and_sides(void)
{
	cl_rbmap_t m;

	cl_rbmap_init(&m);
	nodes[0].key = 50;
	nodes[1].key = 20;
	nodes[2].key = 80;
	cl_rbmap_insert(&m, cl_rbmap_root(&m), &nodes[0].item, TRUE);
	CU_ASSERT_PTR_EQUAL(cl_rbmap_root(&m), &nodes[0].item);
	CU_ASSERT_PTR_EQUAL(cl_rbmap_left(&nodes[0].item), cl_rbmap_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_rbmap_right(&nodes[0].item), cl_rbmap_end(&m));
	cl_rbmap_insert(&m, &nodes[0].item, &nodes[1].item, TRUE);
	cl_rbmap_insert(&m, &nodes[0].item, &nodes[2].item, FALSE);
	CU_ASSERT_PTR_EQUAL(cl_rbmap_left(&nodes[0].item), &nodes[1].item);
	CU_ASSERT_PTR_EQUAL(cl_rbmap_right(&nodes[0].item), &nodes[2].item);
	CU_ASSERT_EQUAL(cl_rbmap_count(&m), 3);
	CU_ASSERT_TRUE(map_valid(&m));
	cl_rbmap_remove_item(&m, &nodes[0].item);
	CU_ASSERT_EQUAL(cl_rbmap_count(&m), 2);
	CU_ASSERT_PTR_EQUAL(find(&m, 50), cl_rbmap_end(&m));
	CU_ASSERT_PTR_EQUAL(find(&m, 20), &nodes[1].item);
	CU_ASSERT_PTR_EQUAL(find(&m, 80), &nodes[2].item);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_sequential_balanced_and_ordered(void)
{
	static int out[KEYS];
	cl_rbmap_t m;
	int i, pos = 0;

	cl_rbmap_init(&m);
	for (i = 0; i < KEYS; i++) {
		nodes[i].key = i;
		CU_ASSERT_PTR_EQUAL(insert(&m, &nodes[i]), &nodes[i].item);
	}
	CU_ASSERT_TRUE(map_valid(&m));
	CU_ASSERT_TRUE(height(&m, cl_rbmap_root(&m)) <= 22);
	collect(&m, cl_rbmap_root(&m), out, &pos);
	CU_ASSERT_EQUAL(pos, KEYS);
	for (i = 0; i < KEYS; i++)
		CU_ASSERT_EQUAL(out[i], i);
	/* Descending removal keeps it balanced too. */
	for (i = KEYS - 1; i >= KEYS / 2; i--)
		cl_rbmap_remove_item(&m, &nodes[i].item);
	CU_ASSERT_EQUAL(cl_rbmap_count(&m), KEYS / 2);
	CU_ASSERT_TRUE(map_valid(&m));
	CU_ASSERT_TRUE(height(&m, cl_rbmap_root(&m)) <= 20);
}

static void test_reset(void)
{
	cl_rbmap_t m;
	int i;

	cl_rbmap_init(&m);
	for (i = 0; i < 32; i++) {
		nodes[i].key = i;
		insert(&m, &nodes[i]);
	}
	cl_rbmap_reset(&m);
	CU_ASSERT_TRUE(cl_is_rbmap_empty(&m));
	CU_ASSERT_PTR_EQUAL(cl_rbmap_root(&m), cl_rbmap_end(&m));
	/* The items may be reused right away. */
	for (i = 0; i < 32; i++)
		insert(&m, &nodes[i]);
	CU_ASSERT_EQUAL(cl_rbmap_count(&m), 32);
	CU_ASSERT_TRUE(map_valid(&m));
}

static void test_random_against_reference(void)
{
	static char present[KEYS];
	cl_rbmap_t m;
	size_t expect = 0;
	int round, k;

	memset(present, 0, sizeof(present));
	for (k = 0; k < KEYS; k++)
		nodes[k].key = k;
	cl_rbmap_init(&m);
	for (round = 0; round < 60000; round++) {
		k = (int)(rng() % KEYS);
		if (rng() % 2) {
			CU_ASSERT_PTR_EQUAL(insert(&m, &nodes[k]), &nodes[k].item);
			if (!present[k])
				expect++;
			present[k] = 1;
		} else {
			cl_rbmap_item_t *it = find(&m, k);

			CU_ASSERT_PTR_EQUAL(it, present[k] ? &nodes[k].item : cl_rbmap_end(&m));
			cl_rbmap_remove_item(&m, it);
			if (present[k])
				expect--;
			present[k] = 0;
		}
		CU_ASSERT_EQUAL(cl_rbmap_count(&m), expect);
		if (round % 1009 == 0)
			CU_ASSERT_TRUE(map_valid(&m));
	}
	CU_ASSERT_TRUE(map_valid(&m));
	for (k = 0; k < KEYS; k++)
		CU_ASSERT_PTR_EQUAL(find(&m, k), present[k] ? &nodes[k].item : cl_rbmap_end(&m));
}

static void test_checker_detects_damage(void)
{
	cl_rbmap_t m;
	int i;

	/* The invariant checker used above must be able to fail. */
	cl_rbmap_init(&m);
	for (i = 0; i < 16; i++) {
		nodes[i].key = i;
		insert(&m, &nodes[i]);
	}
	CU_ASSERT_TRUE(map_valid(&m));
	cl_rbmap_root(&m)->color = CL_MAP_RED;
	CU_ASSERT_FALSE(map_valid(&m));
	cl_rbmap_root(&m)->color = CL_MAP_BLACK;
	nodes[0].key = 100;
	CU_ASSERT_FALSE(map_valid(&m));
	nodes[0].key = 0;
	CU_ASSERT_TRUE(map_valid(&m));
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_empty),
	TEST_ENTRY(test_single_and_sides),
	TEST_ENTRY(test_sequential_balanced_and_ordered),
	TEST_ENTRY(test_reset),
	TEST_ENTRY(test_random_against_reference),
	TEST_ENTRY(test_checker_detects_damage),
};

TEST_MAIN("cl_rbmap", tests)
