/*
 * ibal tests: cl_perf (counters with and without PERF_TRACK_ON, display).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <unistd.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"

/* First without PERF_TRACK_ON: every macro is a no-op. */
#undef PERF_TRACK_ON
#include <complib/cl_perf.h>

static int side_effects;

__attribute__((unused)) static int touch(void)
{
	return ++side_effects;
}

static void test_disabled_macros(void)
{
	cl_perf_t perf;
	uint64_t total = 1, min = 2, count = 3;
	PERF_DECLARE(0);
	PERF_DECLARE_START(1);

	memset(&perf, 0x5A, sizeof(perf));
	side_effects = 0;
	cl_perf_construct((touch(), &perf));
	CU_ASSERT_EQUAL(cl_perf_init((touch(), &perf), touch()), CL_SUCCESS);
	cl_perf_start(0);
	cl_perf_clr(0);
	cl_perf_inc(0);
	cl_perf_log(&perf, touch(), touch());
	cl_perf_update(&perf, 0, touch());
	cl_perf_update_ctr(&perf, 0);
	cl_perf_stop(&perf, 1);
	cl_perf_reset((touch(), &perf));
	cl_perf_display((touch(), &perf));
	cl_get_perf_values(&perf, 0, &total, &min, &count);
	cl_get_perf_calibration(&perf, &total, &min);
	cl_perf_destroy((touch(), &perf), touch());
	/* Nothing evaluated, nothing touched. */
	CU_ASSERT_EQUAL(side_effects, 0);
	CU_ASSERT_EQUAL(total, 1);
	CU_ASSERT_EQUAL(min, 2);
	CU_ASSERT_EQUAL(count, 3);
	CU_ASSERT_EQUAL(perf.size, (uintn_t)0x5A5A5A5A5A5A5A5Aull);
}

/* Now with PERF_TRACK_ON: the header switches its macros on re-inclusion. */
#define PERF_TRACK_ON 1
#include <complib/cl_perf.h>

enum { CTR_LOG, CTR_COUNT, CTR_TIME, CTR_MT, NUM_CTRS };

static char log_path[64];
static long log_pos;

static char *log_take(void)
{
	FILE *f = fopen(log_path, "r");
	char *buf;
	long end;
	size_t n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	buf = (char *)malloc((size_t)(end - log_pos) + 1);
	fseek(f, log_pos, SEEK_SET);
	n = fread(buf, 1, (size_t)(end - log_pos), f);
	buf[n] = '\0';
	log_pos += (long)n;
	fclose(f);
	return buf;
}

static void values(cl_perf_t *p, uintn_t i, uint64_t *total, uint64_t *min, uint64_t *count)
{
	cl_get_perf_values(p, i, total, min, count);
}

static void test_construct_destroy(void)
{
	cl_perf_t perf;
	char *out;

	cl_perf_construct(&perf);
	CU_ASSERT_EQUAL(perf.state, CL_UNINITIALIZED);
	CU_ASSERT_PTR_NULL(perf.data_array);
	CU_ASSERT_EQUAL(perf.size, 0);
	/* Destroy after construct only: allowed, displays nothing. */
	cl_perf_destroy(&perf, TRUE);
	CU_ASSERT_EQUAL(perf.state, CL_UNINITIALIZED);
	out = log_take();
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
	CU_ASSERT_EQUAL(cl_perf_init(&perf, 0), CL_INVALID_PARAMETER);
	cl_perf_destroy(&perf, FALSE);
}

static void test_init_empty(void)
{
	cl_perf_t perf;
	uint64_t total, min, count, locked, normal;
	uintn_t i;

	cl_perf_construct(&perf);
	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, NUM_CTRS), CL_SUCCESS);
	CU_ASSERT_EQUAL(perf.state, CL_INITIALIZED);
	CU_ASSERT_EQUAL(perf.size, NUM_CTRS);
	for (i = 0; i < NUM_CTRS; i++) {
		values(&perf, i, &total, &min, &count);
		CU_ASSERT_EQUAL(total, 0);
		CU_ASSERT_EQUAL(count, 0);
		CU_ASSERT_EQUAL(min, UINT64_MAX);
	}
	/* 100000 timed pairs take some time, measured both ways. */
	cl_get_perf_calibration(&perf, &locked, &normal);
	CU_ASSERT_TRUE(locked > 0);
	CU_ASSERT_TRUE(normal > 0);
	CU_ASSERT_TRUE(locked < 60u * 1000 * 1000);
	CU_ASSERT_TRUE(normal < 60u * 1000 * 1000);
	cl_perf_destroy(&perf, FALSE);
	CU_ASSERT_PTR_NULL(perf.data_array);
	CU_ASSERT_EQUAL(perf.state, CL_UNINITIALIZED);
	/* Init without construct, and a second container, also work. */
	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, 1), CL_SUCCESS);
	cl_get_perf_calibration(&perf, &total, &min);
	CU_ASSERT_EQUAL(total, locked); /* calibrated once per process */
	CU_ASSERT_EQUAL(min, normal);
	cl_perf_destroy(&perf, FALSE);
}

static void test_log_and_counters(void)
{
	cl_perf_t perf;
	uint64_t total, min, count;
	int evals = 0;
	PERF_DECLARE(CTR_COUNT);

	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, NUM_CTRS), CL_SUCCESS);
	cl_perf_log(&perf, CTR_LOG, 5);
	cl_perf_log(&perf, CTR_LOG, 3);
	cl_perf_log(&perf, CTR_LOG, (evals++, 10));
	CU_ASSERT_EQUAL(evals, 1); /* the sample is evaluated once */
	values(&perf, CTR_LOG, &total, &min, &count);
	CU_ASSERT_EQUAL(total, 18);
	CU_ASSERT_EQUAL(min, 3);
	CU_ASSERT_EQUAL(count, 3);
	/* A plain count: clear, increment, record as one sample. */
	cl_perf_clr(CTR_COUNT);
	cl_perf_inc(CTR_COUNT);
	cl_perf_inc(CTR_COUNT);
	cl_perf_inc(CTR_COUNT);
	CU_ASSERT_EQUAL(PcCTR_COUNT, 3);
	cl_perf_update_ctr(&perf, CTR_COUNT);
	cl_perf_clr(CTR_COUNT);
	cl_perf_inc(CTR_COUNT);
	cl_perf_update_ctr(&perf, CTR_COUNT);
	values(&perf, CTR_COUNT, &total, &min, &count);
	CU_ASSERT_EQUAL(total, 4);
	CU_ASSERT_EQUAL(min, 1);
	CU_ASSERT_EQUAL(count, 2);
	/* Other counters are untouched. */
	values(&perf, CTR_TIME, &total, &min, &count);
	CU_ASSERT_EQUAL(count, 0);
	/* Reset empties everything. */
	cl_perf_reset(&perf);
	values(&perf, CTR_LOG, &total, &min, &count);
	CU_ASSERT_EQUAL(total, 0);
	CU_ASSERT_EQUAL(count, 0);
	CU_ASSERT_EQUAL(min, UINT64_MAX);
	cl_perf_destroy(&perf, FALSE);
}

static void test_timing(void)
{
	cl_perf_t perf;
	uint64_t total, min, count, before, after;
	PERF_DECLARE(CTR_TIME);

	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, NUM_CTRS), CL_SUCCESS);
	/* A sample from a start time 1000 us in the past. */
	before = cl_get_time_stamp();
	cl_perf_update(&perf, CTR_TIME, before - 1000);
	after = cl_get_time_stamp();
	values(&perf, CTR_TIME, &total, &min, &count);
	CU_ASSERT_EQUAL(count, 1);
	CU_ASSERT_TRUE(total >= 1000 && total <= after - before + 1000);
	CU_ASSERT_EQUAL(min, total);
	/* start/stop pairs. */
	cl_perf_reset(&perf);
	before = cl_get_time_stamp();
	cl_perf_start(CTR_TIME);
	CU_ASSERT_TRUE(PcCTR_TIME >= before);
	cl_perf_stop(&perf, CTR_TIME);
	{
		PERF_DECLARE_START(CTR_TIME);
		CU_ASSERT_TRUE(PcCTR_TIME >= before);
		cl_perf_stop(&perf, CTR_TIME);
	}
	after = cl_get_time_stamp();
	values(&perf, CTR_TIME, &total, &min, &count);
	CU_ASSERT_EQUAL(count, 2);
	CU_ASSERT_TRUE(total <= 2 * (after - before));
	CU_ASSERT_TRUE(min <= total / 2);
	cl_perf_destroy(&perf, FALSE);
}

#define THREADS 4
#define SAMPLES 20000

static void *log_thread(void *arg)
{
	cl_perf_t *perf = (cl_perf_t *)arg;
	int i;

	for (i = 0; i < SAMPLES; i++)
		cl_perf_log(perf, CTR_MT, (uint64_t)(i % 7) + 1);
	return NULL;
}

static void test_concurrent_samples(void)
{
	pthread_t th[THREADS];
	cl_perf_t perf;
	uint64_t total, min, count, expect = 0;
	int i;

	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, NUM_CTRS), CL_SUCCESS);
	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, log_thread, &perf), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < SAMPLES; i++)
		expect += (uint64_t)(i % 7) + 1;
	values(&perf, CTR_MT, &total, &min, &count);
	CU_ASSERT_EQUAL(count, (uint64_t)THREADS * SAMPLES);
	CU_ASSERT_EQUAL(total, THREADS * expect);
	CU_ASSERT_EQUAL(min, 1);
	cl_perf_destroy(&perf, FALSE);
}

static void test_display(void)
{
	cl_perf_t perf;
	uint64_t locked, normal;
	char line[160], *out;

	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, 3), CL_SUCCESS);
	cl_perf_log(&perf, 0, 7);
	cl_perf_log(&perf, 0, 2);
	cl_perf_log(&perf, 2, 40);
	free(log_take());
	cl_perf_display(&perf);
	out = log_take();
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "CL Perf:\tPerformance Data\n"));
	cl_get_perf_calibration(&perf, &locked, &normal);
	snprintf(line, sizeof(line), "CL Perf:\t%" PRIu64 "\t%" PRIu64 "\t%u\n", locked, normal,
		 (unsigned)PERF_CALIBRATION_TESTS);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, line));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "CL Perf:\tIndex\tTotalTime\tMinTime\tCount\n"
					   "CL Perf:\t0\t9\t2\t2\n"
					   "CL Perf:\t1\t0\t18446744073709551615\t0\n"
					   "CL Perf:\t2\t40\t40\t1\n"
					   "CL Perf:\tEnd of User Performance Counters\n"));
	free(out);
	/* cl_get_perf_string gives the same line. */
	snprintf(line, sizeof(line), cl_get_perf_string(&perf, 2));
	CU_ASSERT_STRING_EQUAL(line, "CL Perf:\t2\t40\t40\t1\n");
	/* Destroy with display prints the counters once more. */
	cl_perf_destroy(&perf, TRUE);
	out = log_take();
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "CL Perf:\t0\t9\t2\t2\n"));
	free(out);
	/* Without display: nothing. */
	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, 1), CL_SUCCESS);
	cl_perf_destroy(&perf, FALSE);
	out = log_take();
	CU_ASSERT_STRING_EQUAL(out, "");
	free(out);
}

static void test_no_leaks(void)
{
	cl_perf_t perf;
	size_t before;

	CU_ASSERT_EQUAL_FATAL(__cl_mem_track(TRUE), CL_SUCCESS);
	before = cl_mem_track_count();
	CU_ASSERT_EQUAL_FATAL(cl_perf_init(&perf, 8), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), before + 1);
	cl_perf_destroy(&perf, FALSE);
	CU_ASSERT_EQUAL(cl_mem_track_count(), before);
	__cl_mem_track(FALSE);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_disabled_macros),
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_init_empty),
	TEST_ENTRY(test_log_and_counters),
	TEST_ENTRY(test_timing),
	TEST_ENTRY(test_concurrent_samples),
	TEST_ENTRY(test_display),
	TEST_ENTRY(test_no_leaks),
};

int main(void)
{
	int fd, rc;

	/* CL_LOG_FILE is read once: set it before any output. */
	snprintf(log_path, sizeof(log_path), "/tmp/test_cl_perf.XXXXXX");
	fd = mkstemp(log_path);
	if (fd < 0)
		return 2;
	close(fd);
	setenv("CL_LOG_FILE", log_path, 1);
	rc = test_run_suite("cl_perf", tests, TEST_COUNT(tests));
	unlink(log_path);
	return rc;
}
