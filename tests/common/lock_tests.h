/*
 * ibal tests: the test body shared by the lock components (cl_mutex, cl_spinlock).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A test program defines, then includes this file after cl_test.h:
 *   LOCK_T                 the lock type (with a `state` member);
 *   LOCK_CONSTRUCT(l), LOCK_INIT(l), LOCK_DESTROY(l),
 *   LOCK_ACQUIRE(l), LOCK_RELEASE(l)   its functions, taking a LOCK_T *.
 * It gets static tests and LOCK_TEST_ENTRIES, the TEST_ENTRY list naming them.
 */
#ifndef IBAL_LOCK_TESTS_H
#define IBAL_LOCK_TESTS_H

#include <pthread.h>
#include <sched.h>
#include <complib/cl_event.h>

#if !defined(LOCK_T) || !defined(LOCK_CONSTRUCT) || !defined(LOCK_INIT) || \
	!defined(LOCK_DESTROY) || !defined(LOCK_ACQUIRE) || !defined(LOCK_RELEASE)
#error "define LOCK_T and the LOCK_* functions before including lock_tests.h"
#endif

#define LOCK_THREADS 4
#define LOCK_ROUNDS 50000

static void test_construct_destroy(void)
{
	LOCK_T lock;

	LOCK_CONSTRUCT(&lock);
	LOCK_DESTROY(&lock);	/* allowed without init */
	LOCK_DESTROY(&lock);	/* and twice */
	CU_ASSERT_EQUAL(lock.state, CL_UNINITIALIZED);
}

static void test_init_acquire_release(void)
{
	LOCK_T lock;
	int i;

	LOCK_CONSTRUCT(&lock);
	CU_ASSERT_EQUAL_FATAL(LOCK_INIT(&lock), CL_SUCCESS);
	CU_ASSERT_EQUAL(lock.state, CL_INITIALIZED);
	for (i = 0; i < 3; i++) {
		LOCK_ACQUIRE(&lock);
		LOCK_RELEASE(&lock);
	}
	LOCK_DESTROY(&lock);
	CU_ASSERT_EQUAL(lock.state, CL_UNINITIALIZED);
	/* Re-initialization after destroy. */
	CU_ASSERT_EQUAL_FATAL(LOCK_INIT(&lock), CL_SUCCESS);
	LOCK_ACQUIRE(&lock);
	LOCK_RELEASE(&lock);
	LOCK_DESTROY(&lock);
}

static LOCK_T shared_lock;
static long counter_a, counter_b;	/* plain: only the lock protects them */
static int inside;
static int overlaps;

static void *worker(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < LOCK_ROUNDS; i++) {
		LOCK_ACQUIRE(&shared_lock);
		if ((*(volatile int *)&inside)++)
			overlaps++;
		/* Read, give the processor away now and then, write back: without
		 * mutual exclusion another thread's increments in between are lost,
		 * so a lock that does not exclude fails this test. */
		long a = *(volatile long *)&counter_a;
		if ((i & 31) == 0)
			sched_yield();
		*(volatile long *)&counter_a = a + 1;
		*(volatile long *)&counter_b += 2;
		(*(volatile int *)&inside)--;
		LOCK_RELEASE(&shared_lock);
	}
	return NULL;
}

static void test_contention(void)
{
	pthread_t t[LOCK_THREADS];
	int i;

	CU_ASSERT_EQUAL_FATAL(LOCK_INIT(&shared_lock), CL_SUCCESS);
	counter_a = counter_b = 0;
	inside = overlaps = 0;
	for (i = 0; i < LOCK_THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, worker, NULL), 0);
	for (i = 0; i < LOCK_THREADS; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(counter_a, (long)LOCK_THREADS * LOCK_ROUNDS);
	CU_ASSERT_EQUAL(counter_b, 2L * LOCK_THREADS * LOCK_ROUNDS);
	CU_ASSERT_EQUAL(overlaps, 0);
	LOCK_DESTROY(&shared_lock);
}

static cl_event_t got_it;

static void *taker(void *arg)
{
	LOCK_ACQUIRE((LOCK_T *)arg);
	cl_event_signal(&got_it);
	LOCK_RELEASE((LOCK_T *)arg);
	return NULL;
}

static void test_blocks_while_held(void)
{
	LOCK_T lock;
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(LOCK_INIT(&lock), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&got_it, FALSE), CL_SUCCESS);
	LOCK_ACQUIRE(&lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, taker, &lock), 0);
	CU_ASSERT_EQUAL(cl_event_wait_on(&got_it, 50000, FALSE), CL_TIMEOUT);
	LOCK_RELEASE(&lock);
	CU_ASSERT_EQUAL(cl_event_wait_on(&got_it, TEST_WAIT_US, FALSE), CL_SUCCESS);
	pthread_join(t, NULL);
	cl_event_destroy(&got_it);
	LOCK_DESTROY(&lock);
}

/* The shared tests, for the program's test table. */
#define LOCK_TEST_ENTRIES \
	TEST_ENTRY(test_construct_destroy), \
	TEST_ENTRY(test_init_acquire_release), \
	TEST_ENTRY(test_contention), \
	TEST_ENTRY(test_blocks_while_held)

#endif
