/*
 * ibal tests: the soft HCA's lock (core/soft/hca/soft_lock.h): exclusion
 * under contention, trylock, and sleepers woken by the release.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include "soft_lock.h"
#include "../common/cl_test.h"

#define THREADS 4
#define ROUNDS 100000
#define WAIT_NS (10ull * 1000000000ull) /* bound of a wait for the other threads */

static soft_lock_t lock;
static long counter;   /* plain: only the lock protects them */
static int inside;
static int overlaps;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *hammer(void *arg)
{
	long i, rounds = (long)(intptr_t)arg;

	for (i = 0; i < rounds; i++) {
		soft_lock(&lock);
		if (inside++)
			overlaps++;
		counter++;
		inside--;
		soft_unlock(&lock);
	}
	return NULL;
}

static void run_threads(long rounds, pthread_t *t)
{
	int i;

	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, hammer, (void *)(intptr_t)rounds), 0);
}

static void join_threads(pthread_t *t)
{
	int i;

	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
}

/* Four threads each take the lock 100,000 times: no two are ever inside. */
static void test_exclusion(void)
{
	pthread_t t[THREADS];

	soft_lock_init(&lock);
	counter = 0;
	overlaps = 0;
	run_threads(ROUNDS, t);
	join_threads(t);
	CU_ASSERT_EQUAL(counter, (long)THREADS * ROUNDS);
	CU_ASSERT_EQUAL(overlaps, 0);
	CU_ASSERT_EQUAL(lock.word, 0u);
	soft_lock_destroy(&lock);
}

static void test_trylock(void)
{
	soft_lock_init(&lock);
	CU_ASSERT_TRUE(soft_trylock(&lock));
	CU_ASSERT_FALSE(soft_trylock(&lock));
	soft_unlock(&lock);
	CU_ASSERT_EQUAL(lock.word, 0u);
	CU_ASSERT_TRUE(soft_trylock(&lock));
	soft_unlock(&lock);
	soft_lock(&lock);
	CU_ASSERT_FALSE(soft_trylock(&lock));
	soft_unlock(&lock);
	soft_lock_destroy(&lock);
}

/*
 * Held while four threads try to take it: past their spins they mark it as
 * having sleepers (2) and sleep in the kernel; the release wakes them one
 * after another, and each gets it.
 */
static void test_sleepers_woken(void)
{
	pthread_t t[THREADS];
	uint64_t end;

	soft_lock_init(&lock);
	counter = 0;
	overlaps = 0;
	soft_lock(&lock);
	run_threads(1, t);
	end = now_ns() + WAIT_NS;
	while (__atomic_load_n(&lock.word, __ATOMIC_RELAXED) != 2 && now_ns() < end)
		sched_yield();
	CU_ASSERT_EQUAL(__atomic_load_n(&lock.word, __ATOMIC_RELAXED), 2u);
	CU_ASSERT_EQUAL(counter, 0);
	soft_unlock(&lock);
	join_threads(t);
	CU_ASSERT_EQUAL(counter, THREADS);
	CU_ASSERT_EQUAL(overlaps, 0);
	CU_ASSERT_EQUAL(lock.word, 0u);
	soft_lock_destroy(&lock);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_exclusion),
	TEST_ENTRY(test_trylock),
	TEST_ENTRY(test_sleepers_woken),
};

TEST_MAIN("soft_lock", tests)
