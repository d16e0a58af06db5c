/*
 * ibal tests: cl_map (map of object pointers by 64-bit key).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_map.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

#define N 64
static int objs[N], others[N];

/* Stops automatic growth and leaves exactly `room` free items. */
static void limit_room(cl_map_t *m, size_t room)
{
	if (cl_qpool_count(&m->pool) < room)
		CU_ASSERT_EQUAL_FATAL(cl_qpool_grow(&m->pool, room - cl_qpool_count(&m->pool)),
				      CL_SUCCESS);
	m->pool.qcpool.max_objects = m->pool.qcpool.num_objects;
	m->pool.qcpool.grow_size = 0;
	while (cl_qpool_count(&m->pool) > room)
		(void)cl_qpool_get(&m->pool); /* held until destroy frees the block */
}

/* Checks the map holds exactly the given keys, each with &arr[key], in
 * order both ways. */
static void expect(const cl_map_t *m, const uint64_t *keys, int n, const int *arr)
{
	cl_map_iterator_t it;
	int i = 0;

	CU_ASSERT_EQUAL(cl_map_count(m), (size_t)n);
	for (it = cl_map_head(m); it != cl_map_end(m); it = cl_map_next(it)) {
		CU_ASSERT_FATAL(i < n);
		CU_ASSERT_EQUAL(cl_map_key(it), keys[i]);
		CU_ASSERT_PTR_EQUAL(cl_map_obj(it), &arr[keys[i]]);
		i++;
	}
	CU_ASSERT_EQUAL(i, n);
	for (it = cl_map_tail(m); it != cl_map_end(m); it = cl_map_prev(it))
		CU_ASSERT_EQUAL(cl_map_key(it), keys[--i]);
}

static void fill(cl_map_t *m, const uint64_t *keys, int n, const int *arr)
{
	int i;

	for (i = 0; i < n; i++)
		CU_ASSERT_PTR_EQUAL(cl_map_insert(m, keys[i], &arr[keys[i]]), &arr[keys[i]]);
}

static void test_construct_destroy(void)
{
	cl_map_t m;

	cl_map_construct(&m);
	CU_ASSERT_FALSE(cl_is_map_inited(&m));
	cl_map_destroy(&m);
}

static void test_empty(void)
{
	cl_map_t m;

	test_track_begin();
	cl_map_construct(&m);
	CU_ASSERT_EQUAL(cl_map_init(&m, 0), CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_map_inited(&m));
	CU_ASSERT_TRUE(cl_is_map_empty(&m));
	CU_ASSERT_EQUAL(cl_map_count(&m), 0);
	CU_ASSERT_PTR_EQUAL(cl_map_head(&m), cl_map_end(&m));
	CU_ASSERT_PTR_EQUAL(cl_map_tail(&m), cl_map_end(&m));
	CU_ASSERT_PTR_NULL(cl_map_get(&m, 0));
	CU_ASSERT_PTR_NULL(cl_map_get_next(&m, 0));
	CU_ASSERT_PTR_NULL(cl_map_remove(&m, 0));
	cl_map_remove_item(&m, cl_map_end(&m));
	cl_map_remove_all(&m);
	CU_ASSERT_TRUE(cl_is_map_empty(&m));
	cl_map_destroy(&m);
	test_track_end();
}

static void test_insert_get_order(void)
{
	cl_map_t m;
	uint64_t sorted[N];
	size_t pooled;
	int i, k;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m, 8), CL_SUCCESS);
	/* Insert 0..N-1 in a scrambled order (7 is coprime with N). */
	for (i = 0, k = 0; i < N; i++, k = (k + 7) % N)
		CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, (uint64_t)k, &objs[k]), &objs[k]);
	for (i = 0; i < N; i++)
		sorted[i] = (uint64_t)i;
	expect(&m, sorted, N, objs);
	for (i = 0; i < N; i++)
		CU_ASSERT_PTR_EQUAL(cl_map_get(&m, (uint64_t)i), &objs[i]);
	CU_ASSERT_PTR_NULL(cl_map_get(&m, N));
	CU_ASSERT_PTR_NULL(cl_map_get(&m, UINT64_MAX));
	/* A duplicate key keeps the first object and uses no item. */
	pooled = cl_qpool_count(&m.pool);
	CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, 5, &others[5]), &objs[5]);
	CU_ASSERT_EQUAL(cl_map_count(&m), N);
	CU_ASSERT_EQUAL(cl_qpool_count(&m.pool), pooled);
	CU_ASSERT_PTR_EQUAL(cl_map_get(&m, 5), &objs[5]);
	/* Extreme keys. */
	CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, UINT64_MAX, &others[0]), &others[0]);
	CU_ASSERT_EQUAL(cl_map_key(cl_map_tail(&m)), UINT64_MAX);
	CU_ASSERT_PTR_EQUAL(cl_map_remove(&m, UINT64_MAX), &others[0]);
	cl_map_remove_all(&m);
	CU_ASSERT_TRUE(cl_is_map_empty(&m));
	CU_ASSERT_EQUAL(cl_qpool_count(&m.pool), m.pool.qcpool.num_objects);
	cl_map_destroy(&m);
	test_track_end();
}

static void test_get_next(void)
{
	static const uint64_t keys[] = { 10, 20, 30 };
	cl_map_t m;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m, 0), CL_SUCCESS);
	fill(&m, keys, 3, objs);
	CU_ASSERT_PTR_EQUAL(cl_map_get_next(&m, 0), &objs[10]);
	CU_ASSERT_PTR_EQUAL(cl_map_get_next(&m, 10), &objs[20]);
	CU_ASSERT_PTR_EQUAL(cl_map_get_next(&m, 25), &objs[30]);
	CU_ASSERT_PTR_NULL(cl_map_get_next(&m, 30));
	cl_map_destroy(&m);
	test_track_end();
}

static void test_remove(void)
{
	static const uint64_t odd[] = { 1, 3, 5, 7, 9 };
	static const uint64_t keys[] = { 3, 7 };
	cl_map_t m;
	cl_map_iterator_t it, next;
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m, 0), CL_SUCCESS);
	for (i = 0; i < 10; i++)
		cl_map_insert(&m, (uint64_t)i, &objs[i]);
	/* The documented idiom: take the next iterator before removing. */
	for (it = cl_map_head(&m); it != cl_map_end(&m); it = next) {
		next = cl_map_next(it);
		if (cl_map_key(it) % 2 == 0)
			cl_map_remove_item(&m, it);
	}
	expect(&m, odd, 5, objs);
	CU_ASSERT_PTR_EQUAL(cl_map_remove(&m, 1), &objs[1]);
	CU_ASSERT_PTR_NULL(cl_map_remove(&m, 1));
	CU_ASSERT_PTR_EQUAL(cl_map_remove(&m, 9), &objs[9]);
	CU_ASSERT_PTR_EQUAL(cl_map_remove(&m, 5), &objs[5]);
	expect(&m, keys, 2, objs);
	/* Removed keys can be inserted again. */
	CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, 5, &others[5]), &others[5]);
	CU_ASSERT_EQUAL(cl_map_count(&m), 3);
	cl_map_remove_all(&m);
	CU_ASSERT_EQUAL(cl_qpool_count(&m.pool), m.pool.qcpool.num_objects);
	cl_map_destroy(&m);
	test_track_end();
}

static void test_insert_failure(void)
{
	static const uint64_t keys[] = { 1, 2 };
	cl_map_t m;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m, 0), CL_SUCCESS);
	fill(&m, keys, 2, objs);
	limit_room(&m, 0);
	CU_ASSERT_PTR_NULL(cl_map_insert(&m, 3, &objs[3]));
	/* An existing key still reports its object. */
	CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, 2, &others[2]), &objs[2]);
	expect(&m, keys, 2, objs);
	/* Removing makes room again. */
	CU_ASSERT_PTR_EQUAL(cl_map_remove(&m, 1), &objs[1]);
	CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, 3, &objs[3]), &objs[3]);
	cl_map_destroy(&m);
	test_track_end();
}

static void test_merge(void)
{
	static const uint64_t d0[] = { 1, 3, 5 }, s0[] = { 2, 3, 4 };
	static const uint64_t dup[] = { 3 };
	cl_map_t dest, src;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&dest, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&src, 0), CL_SUCCESS);
	fill(&dest, d0, 3, objs);
	fill(&src, s0, 3, others);
	CU_ASSERT_EQUAL(cl_map_merge(&dest, &src), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_count(&dest), 5);
	CU_ASSERT_PTR_EQUAL(cl_map_get(&dest, 1), &objs[1]);
	CU_ASSERT_PTR_EQUAL(cl_map_get(&dest, 2), &others[2]);
	CU_ASSERT_PTR_EQUAL(cl_map_get(&dest, 3), &objs[3]); /* kept */
	CU_ASSERT_PTR_EQUAL(cl_map_get(&dest, 4), &others[4]);
	expect(&src, dup, 1, others);
	/* Merging an empty map, and into an empty map. */
	cl_map_remove_all(&src);
	CU_ASSERT_EQUAL(cl_map_merge(&dest, &src), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_merge(&src, &dest), CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_map_empty(&dest));
	CU_ASSERT_EQUAL(cl_map_count(&src), 5);
	cl_map_destroy(&dest);
	cl_map_destroy(&src);
	test_track_end();
}

static void test_merge_failure(void)
{
	static const uint64_t d0[] = { 1 }, s0[] = { 2, 3, 4 };
	static const uint64_t d1[] = { 1, 2 }, s1[] = { 3, 4 };
	cl_map_t dest, src;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&dest, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&src, 0), CL_SUCCESS);
	fill(&dest, d0, 1, objs);
	fill(&src, s0, 3, objs);
	limit_room(&dest, 1);
	CU_ASSERT_EQUAL(cl_map_merge(&dest, &src), CL_INSUFFICIENT_MEMORY);
	/* Nothing lost: what moved is in dest, the rest still in src. */
	expect(&dest, d1, 2, objs);
	expect(&src, s1, 2, objs);
	cl_map_destroy(&dest);
	cl_map_destroy(&src);
	test_track_end();
}

static void test_delta(void)
{
	static const uint64_t k1[] = { 1, 2, 3, 5 }, k2[] = { 2, 3, 4, 6 };
	static const uint64_t both[] = { 2, 3 }, added[] = { 4, 6 }, gone[] = { 1, 5 };
	cl_map_t m1, m2, mnew, mold;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m1, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&m2, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&mnew, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&mold, 0), CL_SUCCESS);
	fill(&m1, k1, 4, objs);
	fill(&m2, k2, 4, others);
	CU_ASSERT_EQUAL(cl_map_delta(&m1, &m2, &mnew, &mold), CL_SUCCESS);
	expect(&m1, both, 2, objs);
	expect(&m2, both, 2, others);
	expect(&mnew, added, 2, others);
	expect(&mold, gone, 2, objs);
	/* Identical maps: nothing moves. */
	cl_map_remove_all(&mnew);
	cl_map_remove_all(&mold);
	CU_ASSERT_EQUAL(cl_map_delta(&m1, &m2, &mnew, &mold), CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_map_empty(&mnew));
	CU_ASSERT_TRUE(cl_is_map_empty(&mold));
	/* Against an empty map: everything moves. */
	cl_map_remove_all(&m2);
	CU_ASSERT_EQUAL(cl_map_delta(&m1, &m2, &mnew, &mold), CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_map_empty(&m1));
	expect(&mold, both, 2, objs);
	cl_map_destroy(&m1);
	cl_map_destroy(&m2);
	cl_map_destroy(&mnew);
	cl_map_destroy(&mold);
	test_track_end();
}

static void test_delta_failure(void)
{
	static const uint64_t k1[] = { 1, 2, 3, 5, 7 }, k2[] = { 2, 3, 4, 6, 8 };
	cl_map_t m1, m2, mnew, mold;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m1, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&m2, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&mnew, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_map_init(&mold, 0), CL_SUCCESS);
	fill(&m1, k1, 5, objs);
	fill(&m2, k2, 5, others);
	/* Room for one new object of the three: fails after moving some. */
	limit_room(&mnew, 1);
	CU_ASSERT_EQUAL(cl_map_delta(&m1, &m2, &mnew, &mold), CL_INSUFFICIENT_MEMORY);
	expect(&m1, k1, 5, objs);
	expect(&m2, k2, 5, others);
	CU_ASSERT_TRUE(cl_is_map_empty(&mnew));
	CU_ASSERT_TRUE(cl_is_map_empty(&mold));
	cl_map_destroy(&m1);
	cl_map_destroy(&m2);
	cl_map_destroy(&mnew);
	cl_map_destroy(&mold);
	test_track_end();
}

static void test_growth(void)
{
	cl_map_t m;
	uint64_t k;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_map_init(&m, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(m.pool.qcpool.grow_size, 32);
	for (k = 0; k < 2000; k++)
		CU_ASSERT_PTR_EQUAL(cl_map_insert(&m, k * 0x9e3779b97f4a7c15ull, &objs[k % N]),
				    &objs[k % N]);
	CU_ASSERT_EQUAL(cl_map_count(&m), 2000);
	for (k = 0; k < 2000; k += 2)
		CU_ASSERT_PTR_EQUAL(cl_map_remove(&m, k * 0x9e3779b97f4a7c15ull), &objs[k % N]);
	CU_ASSERT_EQUAL(cl_map_count(&m), 1000);
	cl_map_destroy(&m);
	CU_ASSERT_EQUAL(cl_map_init(&m, 800), CL_SUCCESS);
	CU_ASSERT_EQUAL(m.pool.qcpool.grow_size, 100);
	CU_ASSERT_EQUAL(cl_qpool_count(&m.pool), 800);
	cl_map_destroy(&m);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_empty),
	TEST_ENTRY(test_insert_get_order),
	TEST_ENTRY(test_get_next),
	TEST_ENTRY(test_remove),
	TEST_ENTRY(test_insert_failure),
	TEST_ENTRY(test_merge),
	TEST_ENTRY(test_merge_failure),
	TEST_ENTRY(test_delta),
	TEST_ENTRY(test_delta_failure),
	TEST_ENTRY(test_growth),
};

TEST_MAIN("cl_map", tests)
