/*
 * ibal tests: the small CUnit harness every test program uses.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A test file defines `static const test_entry_t tests[] = { TEST_ENTRY(fn), ... };`
 * and ends with `TEST_MAIN("suite name", tests)`. The program exits 0 only if
 * every test passed, and prints `CUNIT-TOTALS: tests=N failed=M` for the
 * aggregate report of tests/run-all.sh.
 */
#ifndef IBAL_CL_TEST_H
#define IBAL_CL_TEST_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <CUnit/Basic.h>

typedef struct {
	const char *name;
	CU_TestFunc fn;
} test_entry_t;

#define TEST_ENTRY(fn) { #fn, fn }
#define TEST_COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * 1 while the program's shared fixture is up: a program whose tests share
 * one sets it first thing in its up() and clears it last thing in its
 * down(). A test that stops at a failed FATAL assertion never reaches its
 * down(): its CAs, threads and objects stay, and the tests after it would
 * run beside them (a progress thread of the failed test racing the next
 * one's up()), their failures the failed test's. So the run ends there,
 * saying why (test_after_each).
 */
static int test_fixture_up;

/* After each test: ends the run if the test left the fixture up. */
static inline void test_after_each(void)
{
	CU_pFailureRecord f;
	CU_pTest t;

	if (!test_fixture_up)
		return;
	t = CU_get_current_test();
	printf("FAILED\n");
	for (f = CU_get_failure_list(); f; f = f->pNext)
		if (f->pTest == t)
			printf("    %s:%u  - %s\n", f->strFileName ? f->strFileName : "",
			       f->uiLineNumber, f->strCondition ? f->strCondition : "");
	printf("%s stopped with its fixture up (a failed assertion): the tests after it are not run\n",
	       t && t->pName ? t->pName : "a test");
	printf("CUNIT-TOTALS: tests=%u failed=%u\n", CU_get_number_of_tests_run() + 1,
	       CU_get_number_of_tests_failed() + 1);
	fflush(stdout);
	_Exit(1);
}

static inline int test_run_suite(const char *suite_name, const test_entry_t *t, size_t n)
{
	CU_pSuite suite;
	unsigned run, failed;
	size_t i;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	suite = CU_add_suite_with_setup_and_teardown(suite_name, NULL, NULL, NULL, test_after_each);
	if (!suite)
		return 2;
	for (i = 0; i < n; i++)
		if (!CU_add_test(suite, t[i].name, t[i].fn))
			return 2;
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	run = CU_get_number_of_tests_run();
	failed = CU_get_number_of_tests_failed();
	if (CU_get_number_of_failures() && !failed)
		failed = 1;
	printf("CUNIT-TOTALS: tests=%u failed=%u\n", run, failed);
	CU_cleanup_registry();
	return failed ? 1 : 0;
}

#define TEST_MAIN(suite_name, table) \
	int main(void) { return test_run_suite(suite_name, table, TEST_COUNT(table)); }

/* Monotonic milliseconds, for loose bounds on how long something took. */
static inline uint64_t test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* The time @p ms milliseconds from now on @p clk, for a timed wait's slice
 * (pthread_cond_timedwait). */
static inline struct timespec test_ts_in_ms(clockid_t clk, unsigned ms)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	ts.tv_sec += ms / 1000u;
	ts.tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}

/* Initializes @p c timed on CLOCK_MONOTONIC, for deadlines made with
 * test_ts_in_ms(CLOCK_MONOTONIC, ...) or clock_gettime(CLOCK_MONOTONIC). */
static inline void test_cond_init_mono(pthread_cond_t *c)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(c, &a);
	pthread_condattr_destroy(&a);
}

/* Generous upper bound for "this must happen soon" waits in tests, so that
 * slow CI machines and valgrind do not turn into false failures. */
#define TEST_WAIT_US (20u * 1000u * 1000u)

#endif
