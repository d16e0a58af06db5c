/*
 * ibal tests: cl_mutex.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <complib/cl_mutex.h>
#include <complib/cl_event.h>
#include "../common/cl_test.h"

#define THREADS 4
#define ROUNDS 50000

static void test_construct_destroy(void)
{
	cl_mutex_t lock;

	cl_mutex_construct(&lock);
	cl_mutex_destroy(&lock);	/* allowed without init */
	cl_mutex_destroy(&lock);	/* and twice */
	CU_ASSERT_EQUAL(lock.state, CL_UNINITIALIZED);
}

static void test_init_acquire_release(void)
{
	cl_mutex_t lock;
	int i;

	cl_mutex_construct(&lock);
	CU_ASSERT_EQUAL_FATAL(cl_mutex_init(&lock), CL_SUCCESS);
	CU_ASSERT_EQUAL(lock.state, CL_INITIALIZED);
	for (i = 0; i < 3; i++) {
		cl_mutex_acquire(&lock);
		cl_mutex_release(&lock);
	}
	cl_mutex_destroy(&lock);
	CU_ASSERT_EQUAL(lock.state, CL_UNINITIALIZED);
	/* Re-initialization after destroy. */
	CU_ASSERT_EQUAL_FATAL(cl_mutex_init(&lock), CL_SUCCESS);
	cl_mutex_acquire(&lock);
	cl_mutex_release(&lock);
	cl_mutex_destroy(&lock);
}

static cl_mutex_t shared_lock;
static long counter_a, counter_b;	/* plain: only the lock protects them */
static int inside;
static int overlaps;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		cl_mutex_acquire(&shared_lock);
		if (inside++)
			overlaps++;
		counter_a++;
		counter_b += 2;
		inside--;
		cl_mutex_release(&shared_lock);
	}
	return NULL;
}

static void test_contention(void)
{
	pthread_t t[THREADS];
	int i;

	CU_ASSERT_EQUAL_FATAL(cl_mutex_init(&shared_lock), CL_SUCCESS);
	counter_a = counter_b = 0;
	inside = overlaps = 0;
	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, worker, NULL), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(counter_a, (long)THREADS * ROUNDS);
	CU_ASSERT_EQUAL(counter_b, 2L * THREADS * ROUNDS);
	CU_ASSERT_EQUAL(overlaps, 0);
	cl_mutex_destroy(&shared_lock);
}

static cl_event_t got_it;

static void *taker(void *arg)
{
	cl_mutex_acquire((cl_mutex_t *)arg);
	cl_event_signal(&got_it);
	cl_mutex_release((cl_mutex_t *)arg);
	return NULL;
}

static void test_blocks_while_held(void)
{
	cl_mutex_t lock;
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(cl_mutex_init(&lock), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&got_it, FALSE), CL_SUCCESS);
	cl_mutex_acquire(&lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, taker, &lock), 0);
	CU_ASSERT_EQUAL(cl_event_wait_on(&got_it, 50000, FALSE), CL_TIMEOUT);
	cl_mutex_release(&lock);
	CU_ASSERT_EQUAL(cl_event_wait_on(&got_it, TEST_WAIT_US, FALSE), CL_SUCCESS);
	pthread_join(t, NULL);
	cl_event_destroy(&got_it);
	cl_mutex_destroy(&lock);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_init_acquire_release),
	TEST_ENTRY(test_contention),
	TEST_ENTRY(test_blocks_while_held),
};

TEST_MAIN("cl_mutex", tests)
