/*
 * ibal tests: cl_qpool (quick pool).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qpool.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

/* The pool item is not at the start: the initializer must locate it. */
typedef struct {
	uint64_t tag;
	cl_pool_item_t item;
	int serial;
} obj_t;

typedef struct {
	int inits, dtors, fail_at;
	cl_status_t fail_status;
	const void *last_dtor_ctx;
} ctx_t;

static cl_status_t init_cb(void *const p_object, void *context,
			   cl_pool_item_t **const pp_pool_item)
{
	ctx_t *c = (ctx_t *)context;
	obj_t *o = (obj_t *)p_object;

	c->inits++;
	if (c->fail_at && c->inits == c->fail_at)
		return c->fail_status;
	CU_ASSERT_EQUAL(o->tag, 0); /* zeroed memory */
	o->tag = 0x5eed;
	o->serial = c->inits;
	*pp_pool_item = &o->item;
	return CL_SUCCESS;
}

static void dtor_cb(const cl_pool_item_t *const p_pool_item, void *context)
{
	ctx_t *c = (ctx_t *)context;
	const obj_t *o = PARENT_STRUCT(p_pool_item, const obj_t, item);

	CU_ASSERT_EQUAL(o->tag, 0x5eed);
	c->dtors++;
	c->last_dtor_ctx = context;
}

static void test_construct_destroy(void)
{
	cl_qpool_t pool;

	cl_qpool_construct(&pool);
	CU_ASSERT_FALSE(cl_is_qpool_inited(&pool));
	cl_qpool_destroy(&pool);
}

static void test_invalid_settings(void)
{
	cl_qpool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 3, 2, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_INVALID_SETTING);
	CU_ASSERT_FALSE(cl_is_qpool_inited(&pool));
	cl_qpool_destroy(&pool);
	/* Without an initializer the object must be able to hold a pool item. */
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 1, 0, 1, sizeof(cl_pool_item_t) - 1, NULL, NULL,
				      NULL), CL_INVALID_SETTING);
	cl_qpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.inits, 0);
	test_track_end();
}

static void test_min_max_grow(void)
{
	cl_qpool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *got[7];
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 2, 7, 2, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_qpool_inited(&pool));
	CU_ASSERT_EQUAL(cl_qpool_count(&pool), 2);
	for (i = 0; i < 7; i++) {
		got[i] = cl_qpool_get(&pool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
		CU_ASSERT_EQUAL(PARENT_STRUCT(got[i], obj_t, item)->tag, 0x5eed);
	}
	CU_ASSERT_PTR_NULL(cl_qpool_get(&pool));
	CU_ASSERT_EQUAL(c.inits, 7);
	CU_ASSERT_EQUAL(cl_qpool_grow(&pool, 1), CL_INSUFFICIENT_MEMORY);
	for (i = 0; i < 7; i++)
		cl_qpool_put(&pool, got[i]);
	CU_ASSERT_EQUAL(cl_qpool_count(&pool), 7);
	/* After returning everything, objects are reused, none is added. */
	for (i = 0; i < 7; i++)
		got[i] = cl_qpool_get(&pool);
	CU_ASSERT_EQUAL(c.inits, 7);
	for (i = 0; i < 7; i++)
		cl_qpool_put(&pool, got[i]);
	cl_qpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 7);
	CU_ASSERT_PTR_EQUAL(c.last_dtor_ctx, &c);
	test_track_end();
}

static void test_no_growth(void)
{
	cl_qpool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *a;

	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 0, 0, 0, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_qpool_count(&pool), 0);
	CU_ASSERT_PTR_NULL(cl_qpool_get(&pool));
	CU_ASSERT_EQUAL(cl_qpool_grow(&pool, 1), CL_SUCCESS);
	a = cl_qpool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NULL(cl_qpool_get(&pool));
	cl_qpool_put(&pool, a);
	cl_qpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 1);
}

static void test_init_failure(void)
{
	cl_qpool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	c.fail_at = 4;
	c.fail_status = CL_NOT_DONE;
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 6, 0, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_NOT_DONE);
	CU_ASSERT_FALSE(cl_is_qpool_inited(&pool));
	CU_ASSERT_EQUAL(c.dtors, 3);
	cl_qpool_destroy(&pool);

	/* Failure during automatic growth: get returns NULL, pool stays usable. */
	c = (ctx_t){ 0 };
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 0, 0, 2, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_SUCCESS);
	c.fail_at = 1;
	c.fail_status = CL_ERROR;
	CU_ASSERT_PTR_NULL(cl_qpool_get(&pool));
	c.fail_at = 0;
	CU_ASSERT_PTR_NOT_NULL(cl_qpool_get(&pool)); /* grows again, kept out */
	cl_qpool_destroy(&pool);
	test_track_end();
}

typedef struct {
	cl_pool_item_t item;
	int v;
} head_obj_t;

static void test_no_initializer_put_list(void)
{
	cl_qpool_t pool;
	cl_qlist_t list;
	cl_list_item_t *it;
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 4, 0, 4, sizeof(head_obj_t), NULL, NULL, NULL),
			CL_SUCCESS);
	cl_qlist_init(&list);
	for (i = 0; i < 10; i++) {
		head_obj_t *o = (head_obj_t *)cl_qpool_get(&pool);

		CU_ASSERT_PTR_NOT_NULL_FATAL(o);
		CU_ASSERT_EQUAL(o->v, 0);
		o->v = i + 1;
		cl_qlist_insert_tail(&list, &o->item.list_item);
	}
	CU_ASSERT_EQUAL(cl_qpool_count(&pool), 2);
	i = 1;
	for (it = cl_qlist_head(&list); it != cl_qlist_end(&list); it = cl_qlist_next(it))
		CU_ASSERT_EQUAL(((head_obj_t *)it)->v, i++);
	cl_qpool_put_list(&pool, &list);
	CU_ASSERT_TRUE(cl_is_qlist_empty(&list));
	CU_ASSERT_EQUAL(cl_qpool_count(&pool), 12);
	/* put_list puts the list at the head in order: first out is item 1. */
	CU_ASSERT_EQUAL(((head_obj_t *)cl_qpool_get(&pool))->v, 1);
	cl_qpool_destroy(&pool);
	test_track_end();
}

static void test_many(void)
{
	cl_qpool_t pool;
	cl_qlist_t list;
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qpool_init(&pool, 0, 0, 100, sizeof(head_obj_t), NULL, NULL, NULL),
			CL_SUCCESS);
	cl_qlist_init(&list);
	for (i = 0; i < 5000; i++) {
		cl_pool_item_t *p = cl_qpool_get(&pool);

		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		cl_qlist_insert_head(&list, &p->list_item);
	}
	CU_ASSERT_EQUAL(pool.qcpool.num_objects, 5000);
	CU_ASSERT_EQUAL(cl_qlist_count(&pool.qcpool.alloc_list), 50);
	while (!cl_is_qlist_empty(&list))
		cl_qpool_put(&pool, (cl_pool_item_t *)cl_qlist_remove_head(&list));
	CU_ASSERT_EQUAL(cl_qpool_count(&pool), 5000);
	cl_qpool_destroy(&pool);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_invalid_settings),
	TEST_ENTRY(test_min_max_grow),
	TEST_ENTRY(test_no_growth),
	TEST_ENTRY(test_init_failure),
	TEST_ENTRY(test_no_initializer_put_list),
	TEST_ENTRY(test_many),
};

TEST_MAIN("cl_qpool", tests)
