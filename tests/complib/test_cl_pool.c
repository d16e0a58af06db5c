/*
 * ibal tests: cl_pool (pool of opaque objects).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_pool.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

typedef struct {
	double d;
	int serial;
	char name[11];
} obj_t;

typedef struct {
	int inits, dtors, fail_at;
	cl_status_t fail_status;
} ctx_t;

static cl_status_t init_cb(void *const p_object, void *context)
{
	ctx_t *c = (ctx_t *)context;
	obj_t *o = (obj_t *)p_object;

	c->inits++;
	CU_ASSERT_EQUAL(o->serial, 0);
	if (c->fail_at && c->inits == c->fail_at)
		return c->fail_status;
	o->serial = c->inits;
	o->d = 1.5;
	return CL_SUCCESS;
}

static void dtor_cb(void *const p_object, void *context)
{
	ctx_t *c = (ctx_t *)context;

	CU_ASSERT_PTR_NOT_NULL(p_object);
	c->dtors++;
}

static void test_construct_destroy(void)
{
	cl_pool_t pool;

	cl_pool_construct(&pool);
	CU_ASSERT_FALSE(cl_is_pool_inited(&pool));
	cl_pool_destroy(&pool);
}

static void test_invalid_settings(void)
{
	cl_pool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 2, 1, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_INVALID_SETTING);
	CU_ASSERT_FALSE(cl_is_pool_inited(&pool));
	cl_pool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 1, 0, 1, SIZE_MAX - 8, init_cb, dtor_cb, &c),
			CL_INSUFFICIENT_MEMORY);
	cl_pool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 3, 0, 1, SIZE_MAX / 2, init_cb, dtor_cb, &c),
			CL_INSUFFICIENT_MEMORY);
	cl_pool_destroy(&pool);
	CU_ASSERT_EQUAL(c.inits, 0);
	test_track_end();
}

static void test_min_max_grow(void)
{
	cl_pool_t pool;
	ctx_t c = { 0 };
	obj_t *got[8];
	int i, j;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 1, 8, 3, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_SUCCESS);
	CU_ASSERT_TRUE(cl_is_pool_inited(&pool));
	CU_ASSERT_EQUAL(cl_pool_count(&pool), 1);
	for (i = 0; i < 8; i++) {
		got[i] = (obj_t *)cl_pool_get(&pool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
		CU_ASSERT_EQUAL(got[i]->d, 1.5);
		CU_ASSERT_EQUAL(((uintptr_t)got[i]) % sizeof(double), 0);
		for (j = 0; j < i; j++)
			CU_ASSERT_PTR_NOT_EQUAL(got[i], got[j]);
		/* Writing the whole object must not disturb the pool. */
		memset(got[i]->name, 'n', sizeof(got[i]->name));
	}
	CU_ASSERT_PTR_NULL(cl_pool_get(&pool));
	CU_ASSERT_EQUAL(c.inits, 8);
	CU_ASSERT_EQUAL(cl_pool_grow(&pool, 1), CL_INSUFFICIENT_MEMORY);
	for (i = 0; i < 8; i++)
		cl_pool_put(&pool, got[i]);
	CU_ASSERT_EQUAL(cl_pool_count(&pool), 8);
	CU_ASSERT_PTR_EQUAL(cl_pool_get(&pool), got[7]);
	cl_pool_put(&pool, got[7]);
	cl_pool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 8);
	test_track_end();
}

static void test_no_growth_and_explicit_grow(void)
{
	cl_pool_t pool;
	ctx_t c = { 0 };
	void *a;

	CU_ASSERT_EQUAL(cl_pool_init(&pool, 1, 0, 0, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_SUCCESS);
	a = cl_pool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NULL(cl_pool_get(&pool));
	CU_ASSERT_EQUAL(cl_pool_grow(&pool, 2), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_pool_count(&pool), 2);
	cl_pool_put(&pool, a);
	cl_pool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 3);
}

static void test_init_failure(void)
{
	cl_pool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	c.fail_at = 3;
	c.fail_status = CL_INVALID_PERMISSION;
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 4, 0, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_INVALID_PERMISSION);
	CU_ASSERT_FALSE(cl_is_pool_inited(&pool));
	CU_ASSERT_EQUAL(c.dtors, 3); /* two good objects and the failed one */
	cl_pool_destroy(&pool);

	c = (ctx_t){ 0 };
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 0, 0, 1, sizeof(obj_t), init_cb, NULL, &c),
			CL_SUCCESS);
	c.fail_at = 1;
	c.fail_status = CL_ERROR;
	CU_ASSERT_PTR_NULL(cl_pool_get(&pool));
	CU_ASSERT_PTR_NOT_NULL(cl_pool_get(&pool)); /* the next growth succeeds */
	cl_pool_destroy(&pool);
	test_track_end();
}

static void test_no_callbacks(void)
{
	cl_pool_t pool;
	void *p[3];
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_pool_init(&pool, 0, 3, 2, 1, NULL, NULL, NULL), CL_SUCCESS);
	for (i = 0; i < 3; i++) {
		p[i] = cl_pool_get(&pool);
		CU_ASSERT_PTR_NOT_NULL(p[i]);
	}
	CU_ASSERT_PTR_NULL(cl_pool_get(&pool));
	for (i = 0; i < 3; i++)
		cl_pool_put(&pool, p[i]);
	cl_pool_destroy(&pool);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_invalid_settings),
	TEST_ENTRY(test_min_max_grow),
	TEST_ENTRY(test_no_growth_and_explicit_grow),
	TEST_ENTRY(test_init_failure),
	TEST_ENTRY(test_no_callbacks),
};

TEST_MAIN("cl_pool", tests)
