/*
 * ibal tests: cl_atomic.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <complib/cl_atomic.h>
#include "../common/cl_test.h"

#define THREADS 4
#define ROUNDS 100000

static void test_return_values(void)
{
	atomic32_t v = 5;

	CU_ASSERT_EQUAL(cl_atomic_inc(&v), 6);	/* new value */
	CU_ASSERT_EQUAL(v, 6);
	CU_ASSERT_EQUAL(cl_atomic_dec(&v), 5);	/* new value */
	CU_ASSERT_EQUAL(cl_atomic_add(&v, 10), 15);	/* new value */
	CU_ASSERT_EQUAL(cl_atomic_sub(&v, 20), -5);	/* new value */
	CU_ASSERT_EQUAL(v, -5);
	CU_ASSERT_EQUAL(cl_atomic_xchg(&v, 42), -5);	/* old value */
	CU_ASSERT_EQUAL(v, 42);
}

static void test_comp_xchg(void)
{
	atomic32_t v = 7;

	/* Mismatch: unchanged, returns the current (old) value. */
	CU_ASSERT_EQUAL(cl_atomic_comp_xchg(&v, 8, 100), 7);
	CU_ASSERT_EQUAL(v, 7);
	/* Match: stored, returns the old value, which equals compare. */
	CU_ASSERT_EQUAL(cl_atomic_comp_xchg(&v, 7, 100), 7);
	CU_ASSERT_EQUAL(v, 100);
	CU_ASSERT_EQUAL(cl_atomic_comp_xchg(&v, 7, 1), 100);
	CU_ASSERT_EQUAL(v, 100);
}

static void test_negative_and_wrap(void)
{
	atomic32_t v = 0;

	CU_ASSERT_EQUAL(cl_atomic_dec(&v), -1);
	CU_ASSERT_EQUAL(cl_atomic_add(&v, -9), -10);
	CU_ASSERT_EQUAL(cl_atomic_sub(&v, -10), 0);
	v = INT32_MAX;
	CU_ASSERT_EQUAL(cl_atomic_inc(&v), INT32_MIN);	/* two's complement wrap */
	CU_ASSERT_EQUAL(cl_atomic_dec(&v), INT32_MAX);
}

static atomic32_t shared;
static atomic32_t cas_counter;

static void *hammer(void *arg)
{
	int i;
	int32_t old;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		cl_atomic_inc(&shared);
		cl_atomic_add(&shared, 3);
		cl_atomic_sub(&shared, 2);
		cl_atomic_dec(&shared);
		cl_atomic_inc(&shared);
		do
			old = __atomic_load_n(&cas_counter, __ATOMIC_RELAXED);
		while (cl_atomic_comp_xchg(&cas_counter, old, old + 1) != old);
	}
	return NULL;
}

static void test_concurrent(void)
{
	pthread_t t[THREADS];
	int i;

	shared = 0;
	cas_counter = 0;
	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, hammer, NULL), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(shared, 2 * THREADS * ROUNDS);	/* +1 +3 -2 -1 +1 per round */
	CU_ASSERT_EQUAL(cas_counter, THREADS * ROUNDS);
}

static atomic32_t token;
static atomic32_t owners;

/* Exactly one thread may win each exchange from 0 to its id. */
static void *claim(void *arg)
{
	int32_t id = (int32_t)(intptr_t)arg;
	int i;

	for (i = 0; i < ROUNDS / 10; i++) {
		if (cl_atomic_comp_xchg(&token, 0, id) == 0) {
			if (cl_atomic_inc(&owners) != 1)
				cl_atomic_add(&owners, 1000);	/* two owners at once */
			cl_atomic_dec(&owners);
			CU_ASSERT_EQUAL(cl_atomic_xchg(&token, 0), id);
		}
	}
	return NULL;
}

static void test_mutual_exclusion(void)
{
	pthread_t t[THREADS];
	int i;

	token = 0;
	owners = 0;
	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, claim, (void *)(intptr_t)(i + 1)), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	CU_ASSERT_EQUAL(owners, 0);
	CU_ASSERT_EQUAL(token, 0);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_return_values),
	TEST_ENTRY(test_comp_xchg),
	TEST_ENTRY(test_negative_and_wrap),
	TEST_ENTRY(test_concurrent),
	TEST_ENTRY(test_mutual_exclusion),
};

TEST_MAIN("cl_atomic", tests)
