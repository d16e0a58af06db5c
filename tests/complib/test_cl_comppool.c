/*
 * ibal tests: cl_comppool (composite pool).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_comppool.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

/* Three components: a record, a buffer, and a trailer the record points to. */
typedef struct {
	char *buf;
	uint32_t *trailer;
	int serial;
} rec_t;

#define BUF_SIZE 21

typedef struct {
	int inits, dtors, fail_at, bad;
	cl_status_t fail_status;
} ctx_t;

static cl_status_t init_cb(void **const p_comp_array, const uint32_t num_components,
			   void *context)
{
	ctx_t *c = (ctx_t *)context;
	rec_t *r = (rec_t *)p_comp_array[0];

	c->inits++;
	if (num_components != 3 || r->buf || r->trailer ||
	    (uint8_t *)p_comp_array[2] - (uint8_t *)p_comp_array[1] !=
		    ((BUF_SIZE + sizeof(void *) - 1) & ~(sizeof(void *) - 1)))
		c->bad++;
	if (c->fail_at && c->inits == c->fail_at)
		return c->fail_status;
	r->buf = (char *)p_comp_array[1];
	r->trailer = (uint32_t *)p_comp_array[2];
	*r->trailer = 0xfeedu;
	memset(r->buf, 'x', BUF_SIZE);
	r->serial = c->inits;
	return CL_SUCCESS;
}

static void dtor_cb(void *const p_object, void *context)
{
	ctx_t *c = (ctx_t *)context;

	CU_ASSERT_PTR_NOT_NULL(p_object);
	c->dtors++;
}

static size_t sizes3[3] = { sizeof(rec_t), BUF_SIZE, sizeof(uint32_t) };

static void test_construct_destroy(void)
{
	cl_cpool_t pool;

	cl_cpool_construct(&pool);
	CU_ASSERT_FALSE(cl_is_cpool_inited(&pool));
	cl_cpool_destroy(&pool);
}

static void test_invalid_settings(void)
{
	cl_cpool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 4, 3, 1, sizes3, 3, init_cb, dtor_cb, &c),
			CL_INVALID_SETTING);
	CU_ASSERT_FALSE(cl_is_cpool_inited(&pool));
	cl_cpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 1, 0, 1, sizes3, 0, init_cb, dtor_cb, &c),
			CL_INVALID_SETTING);
	cl_cpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.inits, 0);
	test_track_end();
}

static void test_min_max_grow(void)
{
	cl_cpool_t pool;
	ctx_t c = { 0 };
	rec_t *got[9];
	int i;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 3, 9, 2, sizes3, 3, init_cb, dtor_cb, &c),
			CL_SUCCESS);
	/* The caller's sizes are left as they were. */
	CU_ASSERT_EQUAL(sizes3[0], sizeof(rec_t));
	CU_ASSERT_TRUE(cl_is_cpool_inited(&pool));
	CU_ASSERT_EQUAL(cl_cpool_count(&pool), 3);
	for (i = 0; i < 9; i++) {
		got[i] = (rec_t *)cl_cpool_get(&pool);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
		CU_ASSERT_EQUAL(*got[i]->trailer, 0xfeedu);
		CU_ASSERT_EQUAL(got[i]->buf[BUF_SIZE - 1], 'x');
		CU_ASSERT_EQUAL(((uintptr_t)got[i]) % sizeof(void *), 0);
	}
	CU_ASSERT_PTR_NULL(cl_cpool_get(&pool));
	CU_ASSERT_EQUAL(c.inits, 9);
	CU_ASSERT_EQUAL(cl_cpool_grow(&pool, 1), CL_INSUFFICIENT_MEMORY);
	for (i = 0; i < 9; i++)
		cl_cpool_put(&pool, got[i]);
	CU_ASSERT_EQUAL(cl_cpool_count(&pool), 9);
	/* Last in, first out. */
	CU_ASSERT_PTR_EQUAL(cl_cpool_get(&pool), got[8]);
	cl_cpool_put(&pool, got[8]);
	cl_cpool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, 9);
	CU_ASSERT_EQUAL(c.bad, 0);
	test_track_end();
}

static void test_init_failure(void)
{
	cl_cpool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	c.fail_at = 2;
	c.fail_status = CL_INSUFFICIENT_RESOURCES;
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 5, 0, 1, sizes3, 3, init_cb, dtor_cb, &c),
			CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_FALSE(cl_is_cpool_inited(&pool));
	/* One good object, plus the failed one (the destructor undoes it). */
	CU_ASSERT_EQUAL(c.dtors, 2);
	cl_cpool_destroy(&pool);

	c = (ctx_t){ 0 };
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 0, 0, 3, sizes3, 3, init_cb, NULL, &c),
			CL_SUCCESS);
	c.fail_at = 1;
	c.fail_status = CL_ERROR;
	CU_ASSERT_PTR_NULL(cl_cpool_get(&pool));
	CU_ASSERT_EQUAL(cl_cpool_grow(&pool, 2), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_cpool_count(&pool), 2);
	cl_cpool_destroy(&pool);
	test_track_end();
}

static void test_no_initializer(void)
{
	cl_cpool_t pool;
	size_t one = 3; /* tiny objects are fine: the pool adds its header */
	uint8_t *a, *b;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 1, 0, 1, &one, 1, NULL, NULL, NULL), CL_SUCCESS);
	a = (uint8_t *)cl_cpool_get(&pool);
	b = (uint8_t *)cl_cpool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_PTR_NOT_EQUAL(a, b);
	a[0] = a[1] = a[2] = 7;
	b[0] = b[1] = b[2] = 9;
	cl_cpool_put(&pool, a);
	cl_cpool_put(&pool, b);
	CU_ASSERT_EQUAL(cl_cpool_count(&pool), 2);
	cl_cpool_destroy(&pool);
	test_track_end();
}

static void test_null_initializer_many_components(void)
{
	size_t sizes[12];
	cl_cpool_t pool;
	int i;

	for (i = 0; i < 12; i++)
		sizes[i] = (size_t)(i + 1);
	test_track_begin();
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 0, 0, 2, sizes, 12, NULL, NULL, NULL),
			CL_INVALID_SETTING);
	CU_ASSERT_FALSE(cl_is_cpool_inited(&pool));
	cl_cpool_destroy(&pool);
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 0, 0, 2, sizes, 2, NULL, NULL, NULL),
			CL_INVALID_SETTING);
	cl_cpool_destroy(&pool);
	test_track_end();
}

static cl_status_t count_cb(void **const p_comp_array, const uint32_t num_components,
			    void *context)
{
	uint32_t i;

	for (i = 1; i < num_components; i++)
		if ((uint8_t *)p_comp_array[i] <= (uint8_t *)p_comp_array[i - 1])
			return CL_ERROR;
	++*(int *)context;
	return CL_SUCCESS;
}

static void test_many_components_with_init(void)
{
	/* More components than the pool copies on the stack. */
	size_t sizes[12];
	cl_cpool_t pool;
	int n = 0, i;

	for (i = 0; i < 12; i++)
		sizes[i] = (size_t)(i + 1);
	test_track_begin();
	CU_ASSERT_EQUAL(cl_cpool_init(&pool, 4, 0, 2, sizes, 12, count_cb, NULL, &n),
			CL_SUCCESS);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(sizes[0], 1);
	cl_cpool_destroy(&pool);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_invalid_settings),
	TEST_ENTRY(test_min_max_grow),
	TEST_ENTRY(test_init_failure),
	TEST_ENTRY(test_no_initializer),
	TEST_ENTRY(test_null_initializer_many_components),
	TEST_ENTRY(test_many_components_with_init),
};

TEST_MAIN("cl_comppool", tests)
