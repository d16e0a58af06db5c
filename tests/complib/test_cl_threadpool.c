/*
 * ibal tests: cl_threadpool.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <sched.h>
#include <complib/cl_threadpool.h>
#include <complib/cl_atomic.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/mem_track.h"

/* What the pool callbacks of these tests share. */
typedef struct {
	atomic32_t calls;     /* callbacks started */
	atomic32_t returned;  /* callbacks finished */
	cl_event_t entered;   /* auto-reset: a callback started */
	cl_event_t gate;      /* manual-reset: blocked callbacks may go on */
	boolean_t use_gate;
	cl_thread_pool_t *pool; /* for callbacks that signal their own pool */
	int32_t resignal;       /* how many times callbacks signal the pool again */
} ctx_t;

static void ctx_init(ctx_t *c, boolean_t use_gate)
{
	cl_memclr(c, sizeof(*c));
	cl_event_construct(&c->entered);
	cl_event_construct(&c->gate);
	CU_ASSERT_EQUAL(cl_event_init(&c->entered, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_init(&c->gate, TRUE), CL_SUCCESS);
	c->use_gate = use_gate;
}

static void ctx_destroy(ctx_t *c)
{
	cl_event_destroy(&c->entered);
	cl_event_destroy(&c->gate);
}

static void CL_API pool_cb(void *context)
{
	ctx_t *c = (ctx_t *)context;

	cl_atomic_inc(&c->calls);
	cl_event_signal(&c->entered);
	if (c->use_gate)
		cl_event_wait_on(&c->gate, TEST_WAIT_US, FALSE);
	if (c->pool && cl_atomic_dec(&c->resignal) >= 0)
		cl_thread_pool_signal(c->pool);
	cl_atomic_inc(&c->returned);
}

static int32_t load32(atomic32_t *v)
{
	return __atomic_load_n(v, __ATOMIC_ACQUIRE);
}

static void test_construct_destroy(void)
{
	cl_thread_pool_t pool;

	test_track_begin();
	cl_thread_pool_construct(&pool);
	CU_ASSERT_EQUAL(pool.state, CL_UNINITIALIZED);
	cl_thread_pool_destroy(&pool);
	cl_thread_pool_destroy(&pool);	/* destroying again is harmless */
	test_track_end();
}

static void test_zero_count_is_one_per_processor(void)
{
	cl_thread_pool_t pool;
	ctx_t c;

	test_track_begin();
	ctx_init(&c, FALSE);
	CU_ASSERT_EQUAL(cl_thread_pool_init(&pool, 0, pool_cb, &c, "tp_zero"), CL_SUCCESS);
	CU_ASSERT_EQUAL(pool.state, CL_INITIALIZED);
	CU_ASSERT_EQUAL(pool.thread_count, cl_proc_count());
	CU_ASSERT_EQUAL(load32(&pool.running_count), (int32_t)cl_proc_count());
	cl_thread_pool_destroy(&pool);
	CU_ASSERT_EQUAL(load32(&pool.running_count), 0);
	CU_ASSERT_EQUAL(pool.state, CL_UNINITIALIZED);
	CU_ASSERT_EQUAL(load32(&c.calls), 0);	/* never signalled: never called */
	ctx_destroy(&c);
	test_track_end();
}

static void test_signal_runs_callback(void)
{
	cl_thread_pool_t pool;
	ctx_t c;
	int i;

	test_track_begin();
	ctx_init(&c, FALSE);
	CU_ASSERT_EQUAL(cl_thread_pool_init(&pool, 2, pool_cb, &c, "tp_sig"), CL_SUCCESS);
	/* One signal at a time, each waited for: every one runs a callback. */
	for (i = 1; i <= 5; i++) {
		CU_ASSERT_EQUAL(cl_thread_pool_signal(&pool), CL_SUCCESS);
		CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
		CU_ASSERT_EQUAL(load32(&c.calls), i);
	}
	cl_thread_pool_destroy(&pool);
	CU_ASSERT_EQUAL(load32(&c.calls), 5);
	CU_ASSERT_EQUAL(load32(&c.returned), 5);
	ctx_destroy(&c);
	test_track_end();
}

/* Each thread can be inside the callback at the same time: with the first
 * ones blocked, a further signal still finds a free thread. */
static void test_threads_run_concurrently(void)
{
	cl_thread_pool_t pool;
	ctx_t c;
	int i;

	test_track_begin();
	ctx_init(&c, TRUE);
	CU_ASSERT_EQUAL(cl_thread_pool_init(&pool, 3, pool_cb, &c, "tp_conc"), CL_SUCCESS);
	for (i = 1; i <= 3; i++) {
		CU_ASSERT_EQUAL(cl_thread_pool_signal(&pool), CL_SUCCESS);
		CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
		CU_ASSERT_EQUAL(load32(&c.calls), i);
	}
	CU_ASSERT_EQUAL(load32(&c.returned), 0);	/* all three still blocked */
	cl_event_signal(&c.gate);
	cl_thread_pool_destroy(&pool);
	CU_ASSERT_EQUAL(load32(&c.calls), 3);
	CU_ASSERT_EQUAL(load32(&c.returned), 3);
	ctx_destroy(&c);
	test_track_end();
}

/* Destroy, run on its own thread, while a callback is busy and more
 * wakeups are pending: destroy waits for the callback, starts no other one,
 * and every thread exits. */
typedef struct {
	cl_thread_pool_t *pool;
	cl_event_t done;
} destroyer_t;

static void CL_API destroyer(void *context)
{
	destroyer_t *d = (destroyer_t *)context;

	cl_thread_pool_destroy(d->pool);
	cl_event_signal(&d->done);
}

static void test_destroy_with_pending_work(void)
{
	cl_thread_pool_t pool;
	cl_thread_t thr;
	destroyer_t d;
	ctx_t c;
	uint64_t deadline;
	int i;

	test_track_begin();
	ctx_init(&c, TRUE);
	CU_ASSERT_EQUAL(cl_thread_pool_init(&pool, 1, pool_cb, &c, "tp_pend"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_thread_pool_signal(&pool), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	for (i = 0; i < 10; i++)
		CU_ASSERT_EQUAL(cl_thread_pool_signal(&pool), CL_SUCCESS);

	d.pool = &pool;
	cl_event_construct(&d.done);
	CU_ASSERT_EQUAL(cl_event_init(&d.done, FALSE), CL_SUCCESS);
	cl_thread_construct(&thr);
	CU_ASSERT_EQUAL(cl_thread_init(&thr, destroyer, &d, "tp_destroyer"), CL_SUCCESS);
	/* Destroy cannot finish while the callback is blocked. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&d.done, 0, FALSE), CL_TIMEOUT);
	/* Let destroy raise its exit flag before the callback may return. */
	deadline = test_now_ms() + TEST_WAIT_US / 1000u;
	while (!__atomic_load_n(&pool.exit, __ATOMIC_ACQUIRE) && test_now_ms() < deadline)
		sched_yield();
	CU_ASSERT_TRUE(__atomic_load_n(&pool.exit, __ATOMIC_ACQUIRE));
	cl_event_signal(&c.gate);
	CU_ASSERT_EQUAL(cl_event_wait_on(&d.done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_destroy(&thr);

	CU_ASSERT_EQUAL(load32(&c.calls), 1);	/* the pending wakeups were dropped */
	CU_ASSERT_EQUAL(load32(&c.returned), 1);
	CU_ASSERT_EQUAL(load32(&pool.running_count), 0);
	cl_event_destroy(&d.done);
	ctx_destroy(&c);
	test_track_end();
}

/* Destroy right after a burst of signals, with callbacks possibly running. */
static void test_destroy_right_after_signals(void)
{
	cl_thread_pool_t pool;
	ctx_t c;
	int round, i;

	test_track_begin();
	for (round = 0; round < 20; round++) {
		ctx_init(&c, FALSE);
		CU_ASSERT_EQUAL(cl_thread_pool_init(&pool, 4, pool_cb, &c, "tp_burst"), CL_SUCCESS);
		for (i = 0; i < 50; i++)
			cl_thread_pool_signal(&pool);
		cl_thread_pool_destroy(&pool);
		CU_ASSERT_EQUAL(load32(&c.calls), load32(&c.returned));
		CU_ASSERT_TRUE(load32(&c.calls) <= 50);
		CU_ASSERT_EQUAL(load32(&pool.running_count), 0);
		ctx_destroy(&c);
	}
	test_track_end();
}

/* Callbacks that signal their own pool keep it busy; destroy still ends it. */
static void test_callback_signals_own_pool(void)
{
	cl_thread_pool_t pool;
	ctx_t c;

	test_track_begin();
	ctx_init(&c, FALSE);
	c.pool = &pool;
	c.resignal = 1000;
	CU_ASSERT_EQUAL(cl_thread_pool_init(&pool, 2, pool_cb, &c, "tp_self"), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_thread_pool_signal(&pool), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&c.entered, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_thread_pool_destroy(&pool);
	CU_ASSERT_TRUE(load32(&c.calls) >= 1);
	CU_ASSERT_EQUAL(load32(&c.calls), load32(&c.returned));
	ctx_destroy(&c);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_zero_count_is_one_per_processor),
	TEST_ENTRY(test_signal_runs_callback),
	TEST_ENTRY(test_threads_run_concurrently),
	TEST_ENTRY(test_destroy_with_pending_work),
	TEST_ENTRY(test_destroy_right_after_signals),
	TEST_ENTRY(test_callback_signals_own_pool),
};

TEST_MAIN("cl_threadpool", tests)
