/*
 * ibal tests: cl_thread.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>
#include <complib/cl_thread.h>
#include <complib/cl_atomic.h>
#include "../common/cl_test.h"

typedef struct {
	cl_thread_t *self;
	boolean_t is_current;
	char name[32];
	int ran;
} probe_t;

static void CL_API probe_main(void *context)
{
	probe_t *p = (probe_t *)context;

	p->is_current = cl_is_current_thread(p->self);
	pthread_getname_np(pthread_self(), p->name, sizeof(p->name));
	p->ran = 1;
}

static void test_construct_destroy(void)
{
	cl_thread_t t;

	cl_thread_construct(&t);
	cl_thread_destroy(&t);
	cl_thread_destroy(&t);
	CU_ASSERT_FALSE(cl_is_current_thread(&t));
}

static void test_invalid_parameters(void)
{
	cl_thread_t t;

	memset(&t, 0xA5, sizeof(t));	/* garbage, as on the stack */
	CU_ASSERT_EQUAL(cl_thread_init(&t, NULL, NULL, "x"), CL_INVALID_PARAMETER);
	CU_ASSERT_FALSE(t.osd.started);
	cl_thread_destroy(&t);	/* init constructed it first: destroy is safe */
	CU_ASSERT_EQUAL(cl_thread_init(NULL, probe_main, NULL, "x"), CL_INVALID_PARAMETER);
}

static void test_runs_callback_with_context(void)
{
	cl_thread_t t;
	probe_t p = { &t, FALSE, "", 0 };

	CU_ASSERT_EQUAL_FATAL(cl_thread_init(&t, probe_main, &p, "probe"), CL_SUCCESS);
	CU_ASSERT_FALSE(cl_is_current_thread(&t));	/* the caller is not the thread */
	cl_thread_destroy(&t);	/* joins: p is complete afterwards */
	CU_ASSERT_EQUAL(p.ran, 1);
	CU_ASSERT_TRUE(p.is_current);
	CU_ASSERT_STRING_EQUAL(p.name, "probe");
	CU_ASSERT_STRING_EQUAL(t.name, "probe");
	CU_ASSERT_FALSE(cl_is_current_thread(&t));
	cl_thread_destroy(&t);	/* second destroy is harmless */
}

static void test_long_and_missing_names(void)
{
	cl_thread_t t;
	probe_t p = { &t, FALSE, "", 0 };

	CU_ASSERT_EQUAL_FATAL(cl_thread_init(&t, probe_main, &p, "a_very_long_thread_name"),
			      CL_SUCCESS);
	cl_thread_destroy(&t);
	CU_ASSERT_EQUAL(strlen(t.name), 15);
	CU_ASSERT_STRING_EQUAL(p.name, "a_very_long_thr");
	memset(&p, 0, sizeof(p));
	p.self = &t;
	CU_ASSERT_EQUAL_FATAL(cl_thread_init(&t, probe_main, &p, NULL), CL_SUCCESS);
	cl_thread_destroy(&t);
	CU_ASSERT_EQUAL(p.ran, 1);
	CU_ASSERT_STRING_EQUAL(t.name, "");
}

#define THREADS 8
#define ROUNDS 10000
static atomic32_t total;

static void CL_API count_main(void *context)
{
	int i;

	for (i = 0; i < ROUNDS; i++)
		cl_atomic_add(&total, (int32_t)(intptr_t)context);
}

static void test_many_threads(void)
{
	cl_thread_t t[THREADS];
	int i;

	total = 0;
	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(cl_thread_init(&t[i], count_main, (void *)(intptr_t)(i + 1),
						     "counter"), CL_SUCCESS);
	for (i = 0; i < THREADS; i++)
		cl_thread_destroy(&t[i]);
	CU_ASSERT_EQUAL(total, ROUNDS * THREADS * (THREADS + 1) / 2);
}

/* cl_thread_suspend is the function under test here: it is a sleep, so this
 * test sleeps on purpose (and only checks loose bounds). */
static void test_suspend(void)
{
	uint64_t start = test_now_ms(), took;

	cl_thread_suspend(50);
	took = test_now_ms() - start;
	CU_ASSERT(took >= 49);
	CU_ASSERT(took < 50 + 5000);
	start = test_now_ms();
	cl_thread_suspend(0);	/* yields and returns */
	CU_ASSERT(test_now_ms() - start < 5000);
}

/* cl_thread_stall is the function under test here: it spins for the given
 * microseconds, so this test waits 2 ms on purpose (a busy wait, no sleep). */
static void test_stall(void)
{
	uint64_t start = cl_get_tick_count();

	cl_thread_stall(2000);
	CU_ASSERT(cl_get_tick_count() - start >= 2000u * 1000u);
	cl_thread_stall(0);
}

static void test_proc_count_and_blockable(void)
{
	uint32_t n = cl_proc_count();

	CU_ASSERT(n >= 1);
	CU_ASSERT_EQUAL(n, (uint32_t)sysconf(_SC_NPROCESSORS_ONLN));
	CU_ASSERT_TRUE(cl_is_blockable());
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_invalid_parameters),
	TEST_ENTRY(test_runs_callback_with_context),
	TEST_ENTRY(test_long_and_missing_names),
	TEST_ENTRY(test_many_threads),
	TEST_ENTRY(test_suspend),
	TEST_ENTRY(test_stall),
	TEST_ENTRY(test_proc_count_and_blockable),
};

TEST_MAIN("cl_thread", tests)
