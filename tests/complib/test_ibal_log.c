/*
 * ibal tests: the library's one log (core/common/ibal_log.h) and environment reader (ibal_env.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "../common/cl_test.h"
#include "../common/log_capture.h"
#include "ibal_env.h"
#include "ibal_log.h"

static void choose(const char *level, const char *subsys)
{
	if (level)
		setenv("IBAL_LOG_LEVEL", level, 1);
	else
		unsetenv("IBAL_LOG_LEVEL");
	if (subsys)
		setenv("IBAL_LOG_SUBSYS", subsys, 1);
	else
		unsetenv("IBAL_LOG_SUBSYS");
	__cl_log_reset();
}

/* Asserts the log gained exactly one line with this subsystem, level and text. */
static void expect_line(const char *sub, const char *level, int line, const char *text)
{
	char want[512];
	char *got = test_log_take();

	snprintf(want, sizeof(want), "ibal[%ld] %s %s test_ibal_log.c:%d: %s\n", (long)getpid(),
		 sub, level, line, text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, want);
	free(got);
}

static void expect_nothing(void)
{
	char *got = test_log_take();

	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	CU_ASSERT_STRING_EQUAL(got, "");
	free(got);
}

static int evaluated;

static int count(void)
{
	return ++evaluated;
}

static void test_default_warn(void)
{
	int line;

	choose(NULL, NULL);
	CU_ASSERT_TRUE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_WARN));
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_INFO));
	evaluated = 0;
	IBAL_DBG(IBAL_SUB_CM, "not written %d", count());
	CU_ASSERT_EQUAL(evaluated, 0); /* the level is checked before the arguments */
	expect_nothing();
	IBAL_WARN(IBAL_SUB_SA, "written %d", 7); line = __LINE__;
	expect_line("sa", "warn", line, "written 7");
	IBAL_ERR(IBAL_SUB_VERBS, "two\nlines"); line = __LINE__; /* one line only */
	expect_line("verbs", "error", line, "two");
}

static void test_levels_by_name_and_number(void)
{
	static const struct { const char *env; unsigned on, off; } t[] = {
		{ "trace", IBAL_LOG_TRACE, 0 },  { "debug", IBAL_LOG_DEBUG, IBAL_LOG_TRACE },
		{ "info", IBAL_LOG_INFO, IBAL_LOG_DEBUG }, { "4", IBAL_LOG_DEBUG, IBAL_LOG_TRACE },
		{ "error", IBAL_LOG_ERR, IBAL_LOG_WARN }, { "none", 0, IBAL_LOG_ERR },
		{ "0", 0, IBAL_LOG_ERR },
	};
	unsigned i, s;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		choose(t[i].env, NULL);
		for (s = 0; s < IBAL_SUB_COUNT; s++) {
			if (t[i].on)
				CU_ASSERT_TRUE(__cl_log_on(s, t[i].on));
			if (t[i].off)
				CU_ASSERT_FALSE(__cl_log_on(s, t[i].off));
		}
	}
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_COUNT, IBAL_LOG_ERR));
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_NONE));
	expect_nothing();
}

static void test_subsystems(void)
{
	int line;

	choose("debug", "cm,sa=trace");
	CU_ASSERT_TRUE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_DEBUG));
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_TRACE));
	CU_ASSERT_TRUE(__cl_log_on(IBAL_SUB_SA, IBAL_LOG_TRACE));
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_MAD, IBAL_LOG_INFO)); /* not listed: warn */
	CU_ASSERT_TRUE(__cl_log_on(IBAL_SUB_MAD, IBAL_LOG_WARN));
	IBAL_DBG(IBAL_SUB_CM, "REQ dropped: %s", "no listen"); line = __LINE__;
	expect_line("cm", "debug", line, "REQ dropped: no listen");
	CU_ASSERT_STRING_EQUAL(__cl_log_subsys_name(IBAL_SUB_FABRIC), "fabric");
	CU_ASSERT_PTR_NULL(__cl_log_subsys_name(IBAL_SUB_COUNT));
	expect_nothing();
}

static void test_bad_settings_are_reported(void)
{
	char *got;

	choose("loud", NULL);
	got = test_log_take();
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "complib warn cl_diag_log.c:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "IBAL_LOG_LEVEL=loud ignored"));
	free(got);
	CU_ASSERT_TRUE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_WARN));
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_INFO));
	choose("debug", "cm,nosuch,sa=loud");
	got = test_log_take();
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "entry \"nosuch\" ignored"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "entry \"sa=loud\" ignored"));
	free(got);
	CU_ASSERT_TRUE(__cl_log_on(IBAL_SUB_CM, IBAL_LOG_DEBUG));
	CU_ASSERT_FALSE(__cl_log_on(IBAL_SUB_SA, IBAL_LOG_INFO));
	choose(NULL, NULL);
}

static void test_env_numbers(void)
{
	char *got;

	unsetenv("IBAL_TEST_N");
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 1, 10, 5), 5);
	setenv("IBAL_TEST_N", "", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 1, 10, 5), 5);
	CU_ASSERT_PTR_NULL(__cl_env_str("IBAL_TEST_N"));
	setenv("IBAL_TEST_N", " 0x8 ", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 1, 10, 5), 8);
	setenv("IBAL_TEST_N", "010", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 1, 10, 5), 8);
	setenv("IBAL_TEST_N", "0", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 0, UINT64_MAX, 5), 0);
	setenv("IBAL_TEST_N", "18446744073709551615", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 0, UINT64_MAX, 5), UINT64_MAX);
	expect_nothing();
	setenv("IBAL_TEST_N", "11", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 1, 10, 5), 5);
	got = test_log_take();
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "IBAL_TEST_N=11 ignored (want 1..10): using 5"));
	free(got);
	setenv("IBAL_TEST_N", "-1", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 0, UINT64_MAX, 5), 5);
	setenv("IBAL_TEST_N", "3x", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 0, 10, 5), 5);
	setenv("IBAL_TEST_N", "99999999999999999999", 1);
	CU_ASSERT_EQUAL(__cl_env_uint("IBAL_TEST_N", 0, UINT64_MAX, 5), 5);
	setenv("IBAL_TEST_N", "2.5", 1);
	CU_ASSERT_EQUAL(__cl_env_double("IBAL_TEST_N", 0, 100, 1), 2.5);
	setenv("IBAL_TEST_N", "101", 1);
	CU_ASSERT_EQUAL(__cl_env_double("IBAL_TEST_N", 0, 100, 1), 1);
	setenv("IBAL_TEST_N", "nan", 1);
	CU_ASSERT_EQUAL(__cl_env_double("IBAL_TEST_N", 0, 100, 1), 1);
	got = test_log_take();
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "IBAL_TEST_N=-1 ignored"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "IBAL_TEST_N=3x ignored"));
	CU_ASSERT_PTR_NOT_NULL(strstr(got, "IBAL_TEST_N=nan ignored"));
	free(got);
	unsetenv("IBAL_TEST_N");
}
/* IBAL_LOG_TIME: CLOCK_MONOTONIC after the process ID; "0" or empty: none. */
static void test_time(void)
{
	struct timespec t0, t1;
	char want[256], *got, *rest;
	double at, lo, hi;
	int line;

	setenv("IBAL_LOG_TIME", "1", 1);
	choose(NULL, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	IBAL_WARN(IBAL_SUB_CM, "timed"); line = __LINE__;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	got = test_log_take();
	CU_ASSERT_PTR_NOT_NULL_FATAL(got);
	snprintf(want, sizeof(want), "ibal[%ld] ", (long)getpid());
	CU_ASSERT_FATAL(strncmp(got, want, strlen(want)) == 0);
	at = strtod(got + strlen(want), &rest);
	lo = (double)t0.tv_sec + (double)(t0.tv_nsec / 1000) / 1e6;
	hi = (double)t1.tv_sec + (double)t1.tv_nsec / 1e9;
	CU_ASSERT(at >= lo - 1e-7 && at <= hi + 1e-7);
	CU_ASSERT(rest[-7] == '.'); /* six digits of microseconds */
	snprintf(want, sizeof(want), " cm warn test_ibal_log.c:%d: timed\n", line);
	CU_ASSERT_STRING_EQUAL(rest, want);
	free(got);
	setenv("IBAL_LOG_TIME", "0", 1);
	choose(NULL, NULL);
	IBAL_WARN(IBAL_SUB_CM, "untimed"); line = __LINE__;
	expect_line("cm", "warn", line, "untimed");
	unsetenv("IBAL_LOG_TIME");
	choose(NULL, NULL);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_default_warn),
	TEST_ENTRY(test_levels_by_name_and_number),
	TEST_ENTRY(test_subsystems),
	TEST_ENTRY(test_bad_settings_are_reported),
	TEST_ENTRY(test_env_numbers),
	TEST_ENTRY(test_time),
};

int main(void)
{
	int rc;

	unsetenv("IBAL_LOG_FILE");
	if (test_log_setup("test_ibal_log"))
		return 1;
	rc = test_run_suite("ibal_log", tests, TEST_COUNT(tests));
	unlink(test_log_path);
	return rc;
}
