/*
 * ibal tests: cl_qlockpool (quick pool shared by threads).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <complib/cl_qlockpool.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

typedef struct {
	cl_pool_item_t item;
	int owner;  /* thread holding the object, 0 while pooled */
	int uses;
} obj_t;

typedef struct {
	int inits, dtors, fail_at;
} ctx_t;

static cl_status_t init_cb(void *const p_object, void *context,
			   cl_pool_item_t **const pp_pool_item)
{
	ctx_t *c = (ctx_t *)context;

	/* Runs under the pool's lock, so a plain counter is safe. */
	if (++c->inits == c->fail_at)
		return CL_INSUFFICIENT_RESOURCES;
	*pp_pool_item = &((obj_t *)p_object)->item;
	return CL_SUCCESS;
}

static void dtor_cb(const cl_pool_item_t *const p_pool_item, void *context)
{
	const obj_t *o = (const obj_t *)(const void *)p_pool_item;

	CU_ASSERT_EQUAL(o->owner, 0);
	((ctx_t *)context)->dtors++;
}

static void test_construct_destroy(void)
{
	cl_qlock_pool_t pool;

	cl_qlock_pool_construct(&pool);
	cl_qlock_pool_destroy(&pool);
}

static void test_single_thread(void)
{
	cl_qlock_pool_t pool;
	ctx_t c = { 0 };
	cl_pool_item_t *a, *b, *d;

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qlock_pool_init(&pool, 1, 3, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_SUCCESS);
	a = cl_qlock_pool_get(&pool);
	b = cl_qlock_pool_get(&pool);
	d = cl_qlock_pool_get(&pool);
	CU_ASSERT_PTR_NOT_NULL(a);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_PTR_NOT_NULL(d);
	CU_ASSERT_PTR_NULL(cl_qlock_pool_get(&pool)); /* max reached */
	cl_qlock_pool_put(&pool, a);
	CU_ASSERT_PTR_EQUAL(cl_qlock_pool_get(&pool), a);
	cl_qlock_pool_put(&pool, a);
	cl_qlock_pool_put(&pool, b);
	cl_qlock_pool_put(&pool, d);
	cl_qlock_pool_destroy(&pool);
	CU_ASSERT_EQUAL(c.inits, 3);
	CU_ASSERT_EQUAL(c.dtors, 3);
	test_track_end();
}

static void test_init_errors(void)
{
	cl_qlock_pool_t pool;
	ctx_t c = { 0 };

	test_track_begin();
	CU_ASSERT_EQUAL(cl_qlock_pool_init(&pool, 4, 2, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_INVALID_SETTING);
	cl_qlock_pool_destroy(&pool);
	c.fail_at = 2;
	CU_ASSERT_EQUAL(cl_qlock_pool_init(&pool, 4, 0, 1, sizeof(obj_t), init_cb, dtor_cb, &c),
			CL_INSUFFICIENT_RESOURCES);
	CU_ASSERT_EQUAL(c.dtors, 1);
	cl_qlock_pool_destroy(&pool);
	test_track_end();
}

#define THREADS 4
#define ROUNDS 3000
#define HOLD 5
#define MAX_OBJS 12 /* fewer than THREADS * HOLD: gets sometimes fail */

typedef struct {
	cl_qlock_pool_t *pool;
	int id;
	long got, refused;
	int errors;
} worker_t;

static int held_now, held_peak;
static pthread_mutex_t held_lock = PTHREAD_MUTEX_INITIALIZER;

static void held_add(int n)
{
	pthread_mutex_lock(&held_lock);
	held_now += n;
	if (held_now > held_peak)
		held_peak = held_now;
	pthread_mutex_unlock(&held_lock);
}

static void *worker(void *arg)
{
	worker_t *w = (worker_t *)arg;
	obj_t *held[HOLD];
	int r, i, n;

	for (r = 0; r < ROUNDS; r++) {
		n = 0;
		for (i = 0; i < 1 + (r + w->id) % HOLD; i++) {
			cl_pool_item_t *p = cl_qlock_pool_get(w->pool);

			if (!p) {
				w->refused++;
				break;
			}
			held[n] = (obj_t *)(void *)p;
			if (held[n]->owner)
				w->errors++; /* handed out twice */
			held[n]->owner = w->id;
			held[n]->uses++;
			n++;
			w->got++;
		}
		held_add(n);
		for (i = 0; i < n; i++)
			if (held[i]->owner != w->id)
				w->errors++;
		held_add(-n);
		while (n--) {
			held[n]->owner = 0;
			cl_qlock_pool_put(w->pool, &held[n]->item);
		}
	}
	return NULL;
}

static void test_threads(void)
{
	cl_qlock_pool_t pool;
	pthread_t tid[THREADS];
	worker_t w[THREADS];
	ctx_t c = { 0 };
	uint64_t t0;
	long got = 0;
	int i;

	test_track_begin();
	held_now = held_peak = 0;
	CU_ASSERT_EQUAL(cl_qlock_pool_init(&pool, 2, MAX_OBJS, 3, sizeof(obj_t), init_cb,
					   dtor_cb, &c), CL_SUCCESS);
	t0 = test_now_ms();
	for (i = 0; i < THREADS; i++) {
		w[i] = (worker_t){ &pool, i + 1, 0, 0, 0 };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&tid[i], NULL, worker, &w[i]), 0);
	}
	for (i = 0; i < THREADS; i++) {
		pthread_join(tid[i], NULL);
		CU_ASSERT_EQUAL(w[i].errors, 0);
		got += w[i].got;
	}
	CU_ASSERT(test_now_ms() - t0 < TEST_WAIT_US / 1000);
	CU_ASSERT(got > 0);
	CU_ASSERT(held_peak <= MAX_OBJS);
	CU_ASSERT(pool.pool.qcpool.num_objects <= MAX_OBJS);
	CU_ASSERT_EQUAL(cl_qpool_count(&pool.pool), pool.pool.qcpool.num_objects);
	CU_ASSERT_EQUAL((size_t)c.inits, pool.pool.qcpool.num_objects);
	cl_qlock_pool_destroy(&pool);
	CU_ASSERT_EQUAL(c.dtors, c.inits);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_single_thread),
	TEST_ENTRY(test_init_errors),
	TEST_ENTRY(test_threads),
};

TEST_MAIN("cl_qlockpool", tests)
