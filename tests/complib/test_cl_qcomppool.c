/*
 * ibal tests: cl_qcomppool (quick composite pool).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qcomppool.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

/* An object of two components: a header holding the pool item, and a
 * payload the initializer links to it. */
typedef struct {
	cl_pool_item_t item;
	void *p_payload;
	int serial;
} head_t;

#define PAYLOAD_SIZE 13 /* deliberately not a multiple of the pointer size */

typedef struct {
	int inits;      /* initializer calls */
	int dtors;      /* destructor calls */
	int fail_at;    /* initializer call (1-based) that fails; 0: never */
	cl_status_t fail_status;
	int name_failed; /* set *pp_pool_item before failing */
	int bad_layout; /* components not laid out as expected */
} ctx_t;

static cl_status_t init_cb(void **const p_comp_array, const uint32_t num_components,
			   void *context, cl_pool_item_t **const pp_pool_item)
{
	ctx_t *c = (ctx_t *)context;
	head_t *h = (head_t *)p_comp_array[0];
	uint8_t *payload = (uint8_t *)p_comp_array[1];
	size_t i;

	c->inits++;
	if (num_components != 2 ||
	    payload != (uint8_t *)h + ((sizeof(head_t) + sizeof(void *) - 1) & ~(sizeof(void *) - 1)) ||
	    ((uintptr_t)payload % sizeof(void *)))
		c->bad_layout++;
	for (i = 0; i < PAYLOAD_SIZE; i++)
		if (payload[i])
			c->bad_layout++; /* new memory must be zeroed */
	memset(payload, 0xab, PAYLOAD_SIZE);
	if (c->fail_at && c->inits == c->fail_at) {
		if (c->name_failed)
			*pp_pool_item = &h->item;
		return c->fail_status;
	}
	h->p_payload = payload;
	h->serial = c->inits;
	*pp_pool_item = &h->item;
	return CL_SUCCESS;
}

static void dtor_cb(const cl_pool_item_t *const p_pool_item, void *context)
{
	ctx_t *c = (ctx_t *)context;

	CU_ASSERT_PTR_NOT_NULL(p_pool_item);
	c->dtors++;
}

static const size_t sizes2[2] = { sizeof(head_t), PAYLOAD_SIZE };

static void test_construct_destroy(void)
{
	cl_qcpool_t pool;

	cl_qcpool_construct(&pool);
	CU_ASSERT_FALSE(cl_is_qcpool_inited(&pool));
	cl_qcpool_destroy(&pool);
	CU_ASSERT_FALSE(cl_is_qcpool_inited(&pool));
	cl_qcpool_destroy(&pool); /* destroying twice is harmless */
}

static void test_invalid_settings(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };
	size_t tiny = sizeof(cl_pool_item_t) - 1;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 5, 4, 1, sizes2, 2, init_cb, dtor_cb, &c),
			CL_INVALID_SETTING);
	CU_ASSERT_FALSE(cl_is_qcpool_inited(&pool));
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 0, 0, 1, sizes2, 2, NULL, NULL, NULL),
			CL_INVALID_SETTING);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 0, 0, 1, &tiny, 1, NULL, NULL, NULL),
			CL_INVALID_SETTING);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 0, 0, 1, sizes2, 0, init_cb, NULL, &c),
			CL_INVALID_SETTING);
	cl_qcpool_destroy(&pool);
	/* max == min is fine; max 0 means unlimited even with a large min. */
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 3, 3, 1, sizes2, 2, init_cb, NULL, &c), CL_SUCCESS);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 100, 0, 0, sizes2, 2, init_cb, NULL, &c),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 100);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.inits, 103);
	CU_ASSERT_EQUAL(c.bad_layout, 0);
	test_track_end();
}

static void test_min_max_grow(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *got[10];
	int i, j;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 4, 10, 3, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_qcpool_inited(&pool));
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 4);
	CU_ASSERT_EQUAL(c.inits, 4);
	for (i = 0; i < 10; i++) {
		got[i] = cl_qcpool_get(&pool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
		head_t *h = PARENT_STRUCT(got[i], head_t, item);
		CU_ASSERT_PTR_NOT_NULL(h->p_payload);
		CU_ASSERT_EQUAL(((uint8_t *)h->p_payload)[PAYLOAD_SIZE - 1], 0xab);
		for (j = 0; j < i; j++)
			CU_ASSERT_PTR_NOT_EQUAL(got[i], got[j]);
	}
	/* Growth happened in steps of 3 (4 + 3 + 3 = 10), then hit the limit. */
	CU_ASSERT_EQUAL(c.inits, 10);
	CU_ASSERT_EQUAL(pool.num_objects, 10);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 0);
	CU_ASSERT_PTR_NULL(cl_qcpool_get(&pool));
	CU_ASSERT_PTR_NULL(cl_qcpool_get(&pool));
	CU_ASSERT_EQUAL(cl_qcpool_grow(&pool, 1), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(c.inits, 10);
	for (i = 0; i < 10; i++)
		cl_qcpool_put(&pool, got[i]);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 10);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 10);
	CU_ASSERT_EQUAL(c.bad_layout, 0);
	test_track_end();
}

static void test_partial_last_growth(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };
	int i;

	/* max 5, grow 4: the second growth is capped at one object. */
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 0, 5, 4, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 0);
	for (i = 0; i < 5; i++)
		CU_ASSERT_PTR_NOT_NULL(cl_qcpool_get(&pool));
	CU_ASSERT_PTR_NULL(cl_qcpool_get(&pool));
	CU_ASSERT_EQUAL(c.inits, 5);
	cl_qcpool_destroy(&pool);
	/* Objects never returned get no destructor call. */
	CU_ASSERT_EQUAL(c.dtors, 0);
}

static void test_no_auto_grow(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *a, *b;

	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 2, 0, 0, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	a = cl_qcpool_get(&pool);
	b = cl_qcpool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_PTR_NULL(cl_qcpool_get(&pool));
	CU_ASSERT_EQUAL(c.inits, 2);
	/* Explicit growth still works; 0 objects is a no-op. */
	CU_ASSERT_EQUAL(cl_qcpool_grow(&pool, 0), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 0);
	CU_ASSERT_EQUAL(cl_qcpool_grow(&pool, 3), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 3);
	cl_qcpool_put(&pool, a);
	cl_qcpool_put(&pool, b);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 5);
}

static void test_lifo(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *a, *b;

	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 3, 0, 1, sizes2, 2, init_cb, NULL, &c),
			CL_SUCCESS);
	a = cl_qcpool_get(&pool);
	b = cl_qcpool_get(&pool);
	cl_qcpool_put(&pool, a);
	cl_qcpool_put(&pool, b);
	CU_ASSERT_PTR_EQUAL(cl_qcpool_get(&pool), b);
	CU_ASSERT_PTR_EQUAL(cl_qcpool_get(&pool), a);
	cl_qcpool_destroy(&pool);
}

static void test_init_failure_in_init(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	c.fail_at = 3;
	c.fail_status = CL_INSUFFICIENT_RESOURCES;
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 5, 0, 1, sizes2, 2, init_cb, dtor_cb, &c),
			CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_FALSE(cl_is_qcpool_inited(&pool));
	CU_ASSERT_EQUAL(c.inits, 3);
	/* The two good objects were destroyed; the failed one named no item. */
	CU_ASSERT_EQUAL(c.dtors, 2);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 2);

	/* An initializer that names its item before failing gets it destroyed. */
	c = (ctx_t){ 0 };
	c.fail_at = 2;
	c.fail_status = CL_ERROR;
	c.name_failed = 1;
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 4, 0, 1, sizes2, 2, init_cb, dtor_cb, &c),
			CL_ERROR);
	CU_ASSERT_EQUAL(c.dtors, 2);
	cl_qcpool_destroy(&pool);
	test_track_end();
}

static void test_init_failure_in_grow(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *a;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 1, 0, 3, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	a = cl_qcpool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL(a);
	/* The next growth fails at its first object: get returns NULL. */
	c.fail_at = 2;
	c.fail_status = CL_INVALID_STATE;
	CU_ASSERT_PTR_NULL(cl_qcpool_get(&pool));
	CU_ASSERT_TRUE(cl_is_qcpool_inited(&pool));
	/* A growth failing at its second object keeps the first one. */
	c.fail_at = 4;
	CU_ASSERT_EQUAL(cl_qcpool_grow(&pool, 3), CL_INVALID_STATE);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 1);
	CU_ASSERT_EQUAL(pool.num_objects, 2);
	cl_qcpool_put(&pool, a);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 2);
	test_track_end();
}

static void test_put_list(void)
{
	cl_qcpool_t pool;
	cl_qlist_t list;
	ctx_t c = { 0 };
	int i;

	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 6, 0, 2, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	cl_qlist_init(&list);
	/* Items out of the pool may be kept on a quick list. */
	for (i = 0; i < 5; i++)
		cl_qlist_insert_tail(&list, &cl_qcpool_get(&pool)->list_item);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 1);
	cl_qcpool_put_list(&pool, &list);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&list));
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 6);
	/* An empty list is fine too. */
	cl_qcpool_put_list(&pool, &list);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 6);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 6);
}

typedef struct {
	cl_pool_item_t item; /* first: no initializer needed */
	char data[40];
} plain_t;

static void test_no_initializer(void)
{
	cl_qcpool_t pool;
	size_t sz = sizeof(plain_t);
	cl_pool_item_t *p;
	plain_t *o;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 2, 0, 2, &sz, 1, NULL, NULL, NULL), CL_SUCCESS);
	p = cl_qcpool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	o = PARENT_STRUCT(p, plain_t, item);
	CU_ASSERT_EQUAL(o->data[0], 0);
	CU_ASSERT_EQUAL(((uintptr_t)o) % sizeof(void *), 0);
	memset(o->data, 1, sizeof(o->data));
	cl_qcpool_put(&pool, p);
	cl_qcpool_destroy(&pool);
	test_track_end();
}

static void test_huge_objects(void)
{
	cl_qcpool_t pool;
	size_t huge[2] = { SIZE_MAX / 2, SIZE_MAX / 2 };
	ctx_t c = { 0 };

	test_track_begin();
	/* The object size cannot even be computed: growth reports no memory. */
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 0, 0, 4, huge, 2, init_cb, NULL, &c), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qcpool_grow(&pool, 1), CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_PTR_NULL(cl_qcpool_get(&pool));
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 2, 0, 4, huge, 2, init_cb, NULL, &c),
			CL_INSUFFICIENT_MEMORY);
	CU_ASSERT_FALSE(cl_is_qcpool_inited(&pool));
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.inits, 0);
	test_track_end();
}

static void test_reinit_after_destroy(void)
{
	cl_qcpool_t pool;
	ctx_t c = { 0 };

	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 2, 0, 1, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_qcpool_init(&pool, 3, 0, 1, sizes2, 2, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qcpool_count(&pool), 3);
	cl_qcpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 5);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_invalid_settings),
	TEST_ENTRY(test_min_max_grow),
	TEST_ENTRY(test_partial_last_growth),
	TEST_ENTRY(test_no_auto_grow),
	TEST_ENTRY(test_lifo),
	TEST_ENTRY(test_init_failure_in_init),
	TEST_ENTRY(test_init_failure_in_grow),
	TEST_ENTRY(test_put_list),
	TEST_ENTRY(test_no_initializer),
	TEST_ENTRY(test_huge_objects),
	TEST_ENTRY(test_reinit_after_destroy),
};

TEST_MAIN("cl_qcomppool", tests)
