/*
 * ibal tests: cl_passivelock.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <complib/cl_passivelock.h>
#include <complib/cl_event.h>
#include "../common/cl_test.h"

#define SHORT_US 50000	/* long enough for a wrongly admitted thread to show */

/* A thread that takes the lock in one mode, reports, and releases on "go". */
typedef struct {
	cl_plock_t *lock;
	boolean_t excl;
	cl_event_t in;   /* signalled once the lock is held */
	cl_event_t go;   /* the thread releases when this is signalled */
	pthread_t tid;
} holder_t;

static void *holder_main(void *arg)
{
	holder_t *h = (holder_t *)arg;

	if (h->excl)
		cl_plock_excl_acquire(h->lock);
	else
		cl_plock_acquire(h->lock);
	cl_event_signal(&h->in);
	cl_event_wait_on(&h->go, EVENT_NO_TIMEOUT, FALSE);
	cl_plock_release(h->lock);
	return NULL;
}

static void holder_start(holder_t *h, cl_plock_t *lock, boolean_t excl)
{
	h->lock = lock;
	h->excl = excl;
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&h->in, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&h->go, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&h->tid, NULL, holder_main, h), 0);
}

static void holder_finish(holder_t *h)
{
	cl_event_signal(&h->go);
	pthread_join(h->tid, NULL);
	cl_event_destroy(&h->in);
	cl_event_destroy(&h->go);
}

static cl_status_t holder_wait_in(holder_t *h, uint32_t us)
{
	return cl_event_wait_on(&h->in, us, FALSE);
}

/* Waits (bounded) until n threads wait for exclusive access. */
static int wait_for_writers(cl_plock_t *lock, int32_t n)
{
	cl_event_t tick;
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	int32_t cur;

	cl_event_init(&tick, FALSE);
	do {
		pthread_mutex_lock(&lock->mutex);
		cur = lock->writers_waiting;
		pthread_mutex_unlock(&lock->mutex);
		if (cur >= n)
			break;
		cl_event_wait_on(&tick, 1000, FALSE);
	} while (test_now_ms() < end);
	cl_event_destroy(&tick);
	return cur >= n;
}

static void test_construct_destroy(void)
{
	cl_plock_t lock;

	cl_plock_construct(&lock);
	cl_plock_destroy(&lock);
	cl_plock_destroy(&lock);
	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&lock), CL_SUCCESS);
	cl_plock_acquire(&lock);
	cl_plock_acquire(&lock);	/* shared twice is fine without writers */
	CU_ASSERT_EQUAL(lock.reader_count, 2);
	cl_plock_release(&lock);
	cl_plock_release(&lock);
	cl_plock_excl_acquire(&lock);
	CU_ASSERT_EQUAL(lock.reader_count, 0);
	cl_plock_release(&lock);
	cl_plock_destroy(&lock);
}

static void test_readers_share(void)
{
	cl_plock_t lock;
	holder_t r;

	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&lock), CL_SUCCESS);
	cl_plock_acquire(&lock);
	holder_start(&r, &lock, FALSE);
	CU_ASSERT_EQUAL(holder_wait_in(&r, TEST_WAIT_US), CL_SUCCESS);
	cl_plock_release(&lock);
	holder_finish(&r);
	cl_plock_destroy(&lock);
}

static void test_writer_excludes_all(void)
{
	cl_plock_t lock;
	holder_t r, w;

	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&lock), CL_SUCCESS);
	cl_plock_excl_acquire(&lock);
	holder_start(&r, &lock, FALSE);
	holder_start(&w, &lock, TRUE);
	CU_ASSERT_EQUAL(holder_wait_in(&r, SHORT_US), CL_TIMEOUT);
	CU_ASSERT_EQUAL(holder_wait_in(&w, SHORT_US), CL_TIMEOUT);
	CU_ASSERT_TRUE_FATAL(wait_for_writers(&lock, 1));
	cl_plock_release(&lock);
	/* The waiting writer goes first, then the reader. */
	CU_ASSERT_EQUAL(holder_wait_in(&w, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT_EQUAL(holder_wait_in(&r, SHORT_US), CL_TIMEOUT);
	holder_finish(&w);
	CU_ASSERT_EQUAL(holder_wait_in(&r, TEST_WAIT_US), CL_SUCCESS);
	holder_finish(&r);
	cl_plock_destroy(&lock);
}

static void test_reader_excludes_writer(void)
{
	cl_plock_t lock;
	holder_t w;

	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&lock), CL_SUCCESS);
	cl_plock_acquire(&lock);
	holder_start(&w, &lock, TRUE);
	CU_ASSERT_EQUAL(holder_wait_in(&w, SHORT_US), CL_TIMEOUT);
	cl_plock_release(&lock);
	CU_ASSERT_EQUAL(holder_wait_in(&w, TEST_WAIT_US), CL_SUCCESS);
	holder_finish(&w);
	cl_plock_destroy(&lock);
}

static void test_writer_preferred(void)
{
	cl_plock_t lock;
	holder_t w, r;

	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&lock), CL_SUCCESS);
	cl_plock_acquire(&lock);
	holder_start(&w, &lock, TRUE);
	CU_ASSERT_TRUE_FATAL(wait_for_writers(&lock, 1));
	/* A new reader queues behind the waiting writer. */
	holder_start(&r, &lock, FALSE);
	CU_ASSERT_EQUAL(holder_wait_in(&r, SHORT_US), CL_TIMEOUT);
	cl_plock_release(&lock);
	CU_ASSERT_EQUAL(holder_wait_in(&w, TEST_WAIT_US), CL_SUCCESS);
	CU_ASSERT_EQUAL(holder_wait_in(&r, SHORT_US), CL_TIMEOUT);	/* writer holds */
	holder_finish(&w);
	CU_ASSERT_EQUAL(holder_wait_in(&r, TEST_WAIT_US), CL_SUCCESS);
	holder_finish(&r);
	cl_plock_destroy(&lock);
}

static void *release_it(void *arg)
{
	cl_plock_release((cl_plock_t *)arg);
	return NULL;
}

static void test_release_from_other_thread(void)
{
	cl_plock_t lock;
	holder_t w;
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&lock), CL_SUCCESS);
	cl_plock_excl_acquire(&lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, release_it, &lock), 0);
	pthread_join(t, NULL);
	holder_start(&w, &lock, TRUE);
	CU_ASSERT_EQUAL(holder_wait_in(&w, TEST_WAIT_US), CL_SUCCESS);
	holder_finish(&w);
	cl_plock_destroy(&lock);
}

#define WRITERS 2
#define READERS 3
#define ROUNDS 20000
static cl_plock_t busy;
static long pair_a, pair_b;	/* protected by busy */
static int torn_reads;
static int writers_inside;

static void *writer_main(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		cl_plock_excl_acquire(&busy);
		if (writers_inside++)
			torn_reads += 1000;
		pair_a++;
		pair_b++;
		writers_inside--;
		cl_plock_release(&busy);
	}
	return NULL;
}

static void *reader_main(void *arg)
{
	int i, bad = 0;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		cl_plock_acquire(&busy);
		if (pair_a != pair_b || writers_inside)
			bad++;
		cl_plock_release(&busy);
	}
	__atomic_add_fetch(&torn_reads, bad, __ATOMIC_RELAXED);
	return NULL;
}

static void test_contention(void)
{
	pthread_t t[WRITERS + READERS];
	int i;

	CU_ASSERT_EQUAL_FATAL(cl_plock_init(&busy), CL_SUCCESS);
	pair_a = pair_b = 0;
	torn_reads = writers_inside = 0;
	for (i = 0; i < WRITERS + READERS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL,
						     i < WRITERS ? writer_main : reader_main, NULL), 0);
	for (i = 0; i < WRITERS + READERS; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(pair_a, (long)WRITERS * ROUNDS);
	CU_ASSERT_EQUAL(pair_b, (long)WRITERS * ROUNDS);
	CU_ASSERT_EQUAL(torn_reads, 0);
	CU_ASSERT_EQUAL(busy.reader_count, 0);
	CU_ASSERT_FALSE(busy.writer);
	cl_plock_destroy(&busy);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_readers_share),
	TEST_ENTRY(test_writer_excludes_all),
	TEST_ENTRY(test_reader_excludes_writer),
	TEST_ENTRY(test_writer_preferred),
	TEST_ENTRY(test_release_from_other_thread),
	TEST_ENTRY(test_contention),
};

TEST_MAIN("cl_passivelock", tests)
