/*
 * ibal tests: cl_debug (levels from CL_DEBUG_LEVEL, trace macros, output).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#ifndef _DEBUG_
#define _DEBUG_ 1 /* the trace macros print only in debug builds */
#endif
#define __MODULE__ "tmod"
#include <complib/cl_debug.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include "../common/cl_test.h"
#include "../common/log_capture.h"

/* The level the test process starts with (set in main before any output). */
#define ENV_LEVEL 0x80000003u

static unsigned tid(void)
{
	return (unsigned)syscall(SYS_gettid);
}

static void test_env_level(void)
{
	CU_ASSERT_EQUAL(cl_dbg_get_level(), ENV_LEVEL);
	CU_ASSERT_EQUAL(cl_dbg_get_level(), ENV_LEVEL);
	TEST_ASSERT_LOG("");
}

static void test_msg_out(void)
{
	char big[3000];
	char *got;

	cl_msg_out("hello %s %d\n", "world", 42);
	TEST_ASSERT_LOG("hello world 42\n");
	cl_msg_out("no newline");
	TEST_ASSERT_LOG("no newline");
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	cl_msg_out("[%s]\n", big);
	got = test_log_take();
	CU_ASSERT_EQUAL(strlen(got), sizeof(big) + 2);
	CU_ASSERT_EQUAL(got[0], '[');
	CU_ASSERT_STRING_EQUAL(got + sizeof(big), "]\n");
	free(got);
	/* cl_msg_out is not subject to levels. */
	cl_dbg_set_level(CL_DBG_DISABLE);
	cl_msg_out("always\n");
	cl_dbg_set_level(ENV_LEVEL);
	TEST_ASSERT_LOG("always\n");
}

static void test_print_filtering(void)
{
	CL_PRINT(1, CL_DBG_ALL, ("a\n"));  /* bit 0: in the env mask */
	CL_PRINT(3, CL_DBG_ALL, ("b\n"));  /* bits 0,1: both in the mask */
	CL_PRINT(4, CL_DBG_ALL, ("c\n"));  /* bit 2: filtered by the env mask */
	CL_PRINT(5, CL_DBG_ALL, ("d\n"));  /* bit 2 missing from the mask */
	CL_PRINT(1, 2, ("e\n"));           /* filtered by CHK_LVL */
	CL_PRINT(3, 1, ("f\n"));           /* CHK_LVL lacks bit 1 */
	CL_PRINT(2, 0x7, ("g\n"));         /* CHK_LVL has extra bits */
	CL_PRINT(0, 0, ("h\n"));           /* no bits required */
	TEST_ASSERT_LOG("a\nb\ng\nh\n");
}

static void test_print_errors(void)
{
	/* The error bit in both levels prints regardless of the lower bits. */
	CL_PRINT(CL_DBG_ERROR | 0x40, CL_DBG_ERROR, ("e1\n"));
	/* Error message but CHK_LVL without the error bit: not printed. */
	CL_PRINT(CL_DBG_ERROR | 0x40, 0x40, ("e2\n"));
	CL_PRINT(CL_DBG_ERROR, CL_DBG_ALL, ("e3\n"));
	CL_PRINT(CL_DBG_ERROR, CL_DBG_DISABLE, ("e4\n"));
	TEST_ASSERT_LOG("e1\ne3\n");
	/* The env mask without the error bit silences errors too. */
	cl_dbg_set_level(0x3);
	CL_PRINT(CL_DBG_ERROR, CL_DBG_ALL, ("e5\n"));
	CL_PRINT(1, CL_DBG_ALL, ("i1\n"));
	cl_dbg_set_level(ENV_LEVEL);
	TEST_ASSERT_LOG("i1\n");
}

static void test_disable_all(void)
{
	cl_dbg_set_level(CL_DBG_DISABLE);
	CU_ASSERT_EQUAL(cl_dbg_get_level(), CL_DBG_DISABLE);
	CU_ASSERT_FALSE(cl_dbg_is_enabled(0, CL_DBG_ALL));
	CL_PRINT(0, CL_DBG_ALL, ("x\n"));
	CL_PRINT(CL_DBG_ERROR, CL_DBG_ALL, ("y\n"));
	CL_TRACE(CL_DBG_ERROR, CL_DBG_ALL, ("z\n"));
	cl_dbg_set_level(CL_DBG_ALL);
	CU_ASSERT_TRUE(cl_dbg_is_enabled(4, CL_DBG_ALL));
	CL_PRINT(4, CL_DBG_ALL, ("w\n"));
	cl_dbg_set_level(ENV_LEVEL);
	CU_ASSERT_FALSE(cl_dbg_is_enabled(4, CL_DBG_ALL));
	TEST_ASSERT_LOG("w\n");
}

static void traced_function(int fail)
{
	CL_ENTER(1, CL_DBG_ALL);
	if (fail) {
		CL_TRACE_EXIT(CL_DBG_ERROR, CL_DBG_ALL, ("failed %d\n", fail));
		return;
	}
	CL_TRACE(1, CL_DBG_ALL, ("value %d\n", 7));
	CL_EXIT(1, CL_DBG_ALL);
}

static void test_trace_format(void)
{
	char expect[512];
	unsigned t = tid();

	traced_function(0);
	snprintf(expect, sizeof(expect),
		 "0x%x:tmod:traced_function() [\n"
		 "0x%x:tmod:traced_function(): value 7\n"
		 "0x%x:tmod:traced_function() ]\n", t, t, t);
	TEST_ASSERT_LOG(expect);
	traced_function(3);
	snprintf(expect, sizeof(expect),
		 "0x%x:tmod:traced_function() [\n"
		 "0x%x:tmod:traced_function() !ERROR!: failed 3\n"
		 "0x%x:tmod:traced_function() ]\n", t, t, t);
	TEST_ASSERT_LOG(expect);
	/* Filtered traces print neither prefix nor text, and leave no prefix behind. */
	CL_TRACE(4, CL_DBG_ALL, ("hidden\n"));
	CL_TRACE_EXIT(8, CL_DBG_ALL, ("hidden\n"));
	cl_msg_out("plain\n");
	TEST_ASSERT_LOG("plain\n");
}

static int evals;

static uint32_t counted(uint32_t v)
{
	evals++;
	return v;
}

static void test_single_evaluation(void)
{
	int args = 0;

	evals = 0;
	CL_PRINT(counted(1), counted(CL_DBG_ALL), ("p%d\n", ++args));
	CU_ASSERT_EQUAL(evals, 2);
	CU_ASSERT_EQUAL(args, 1);
	evals = 0;
	CL_TRACE_EXIT(counted(1), counted(CL_DBG_ALL), ("t%d\n", ++args));
	CU_ASSERT_EQUAL(evals, 2);
	CU_ASSERT_EQUAL(args, 2);
	/* Arguments of a filtered message are not evaluated. */
	CL_PRINT(4, CL_DBG_ALL, ("q%d\n", ++args));
	CL_TRACE(1, 0, ("q%d\n", ++args));
	CU_ASSERT_EQUAL(args, 2);
	free(test_log_take());
}

static void test_statement_syntax(void)
{
	int branch = 0;

	/* Each macro is one statement: if/else pairs correctly. */
	if (branch)
		CL_PRINT(1, CL_DBG_ALL, ("no\n"));
	else
		branch = 1;
	CU_ASSERT_EQUAL(branch, 1);
	if (!branch)
		CL_TRACE_EXIT(1, CL_DBG_ALL, ("no\n"));
	else
		branch = 2;
	CU_ASSERT_EQUAL(branch, 2);
	if (!branch)
		CL_ENTER(1, CL_DBG_ALL);
	else
		branch = 3;
	CU_ASSERT_EQUAL(branch, 3);
	TEST_ASSERT_LOG("");
}

#define THREADS 4
#define LINES 200

static void *trace_thread(void *arg)
{
	int id = (int)(intptr_t)arg, i;

	for (i = 0; i < LINES; i++)
		CL_TRACE(1, CL_DBG_ALL, ("thread %d line %d\n", id, i));
	return NULL;
}

static void test_concurrent_lines(void)
{
	pthread_t th[THREADS];
	int seen[THREADS] = { 0 };
	char *text, *line, *save = NULL;
	int i, total = 0;

	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, trace_thread,
						     (void *)(intptr_t)i), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	text = test_log_take();
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned t;
		int id = -1, n = -1, used = 0;

		/* Every line is whole: prefix and message together. */
		CU_ASSERT_EQUAL(sscanf(line, "0x%x:tmod:trace_thread(): thread %d line %d%n",
				       &t, &id, &n, &used), 3);
		CU_ASSERT_EQUAL((size_t)used, strlen(line));
		if (id >= 0 && id < THREADS) {
			CU_ASSERT_EQUAL(n, seen[id]); /* in order per thread */
			seen[id]++;
		}
		total++;
	}
	CU_ASSERT_EQUAL(total, THREADS * LINES);
	free(text);
}

/* Runs this program with CL_DEBUG_LEVEL=value (NULL: unset) in print-level
 * mode and returns the level the child reports, or -2. */
static long child_level(const char *value)
{
	char env_level[128], out[64];
	char env_file[] = "CL_LOG_FILE=/dev/null";

	if (value)
		snprintf(env_level, sizeof(env_level), "CL_DEBUG_LEVEL=%s", value);
	if (test_run_self("--print-level", env_file, value ? env_level : NULL, out, sizeof(out)))
		return -2;
	return strtol(out, NULL, 0);
}

static void test_env_parsing(void)
{
	CU_ASSERT_EQUAL(child_level(NULL), (long)CL_DBG_ALL);
	CU_ASSERT_EQUAL(child_level("0x80000001"), 0x80000001L);
	CU_ASSERT_EQUAL(child_level("255"), 255L);
	CU_ASSERT_EQUAL(child_level("010"), 8L);
	CU_ASSERT_EQUAL(child_level(" 0x3 "), 3L);
	CU_ASSERT_EQUAL(child_level("0"), 0L);
	CU_ASSERT_EQUAL(child_level("0xFFFFFFFF"), (long)CL_DBG_ALL);
	/* Invalid values fall back to CL_DBG_ALL. */
	CU_ASSERT_EQUAL(child_level(""), (long)CL_DBG_ALL);
	CU_ASSERT_EQUAL(child_level("verbose"), (long)CL_DBG_ALL);
	CU_ASSERT_EQUAL(child_level("0x1zz"), (long)CL_DBG_ALL);
	CU_ASSERT_EQUAL(child_level("-1"), (long)CL_DBG_ALL);
	CU_ASSERT_EQUAL(child_level("0x100000000"), (long)CL_DBG_ALL);
}

static volatile sig_atomic_t traps;

static void on_trap(int sig)
{
	(void)sig;
	traps++;
}

static void test_break(void)
{
	/* cl_break raises SIGTRAP in debug builds; catch it to observe it. */
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_trap;
	CU_ASSERT_EQUAL_FATAL(sigaction(SIGTRAP, &sa, &old), 0);
	traps = 0;
	cl_break();
	sigaction(SIGTRAP, &old, NULL);
	CU_ASSERT_EQUAL(traps, 1);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_env_level),
	TEST_ENTRY(test_msg_out),
	TEST_ENTRY(test_print_filtering),
	TEST_ENTRY(test_print_errors),
	TEST_ENTRY(test_disable_all),
	TEST_ENTRY(test_trace_format),
	TEST_ENTRY(test_single_evaluation),
	TEST_ENTRY(test_statement_syntax),
	TEST_ENTRY(test_concurrent_lines),
	TEST_ENTRY(test_env_parsing),
	TEST_ENTRY(test_break),
};

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--print-level")) {
		printf("0x%x\n", cl_dbg_get_level());
		return 0;
	}
	/* Both variables are read once per process: set them before any output. */
	if (test_log_setup("test_cl_debug"))
		return 2;
	setenv("CL_DEBUG_LEVEL", "0x80000003", 1);
	rc = test_run_suite("cl_debug", tests, TEST_COUNT(tests));
	unlink(test_log_path);
	return rc;
}
