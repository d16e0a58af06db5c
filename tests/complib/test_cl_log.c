/*
 * ibal tests: cl_log (cl_log_event on the complib log target and syslog).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <complib/cl_log.h>
#include <pthread.h>
#include "../common/cl_test.h"
#include "../common/log_capture.h"

/* Expected line for an event of this process. */
static const char *line(const char *name, const char *type, const char *text)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf), "%s[%d]: %s: %s\n", name, (int)getpid(), type, text);
	return buf;
}

static void test_types(void)
{
	cl_log_event("srcA", CL_LOG_INFO, "all good", NULL, 0);
	TEST_ASSERT_LOG(line("srcA", "INFO", "all good"));
	cl_log_event("srcB", CL_LOG_WARN, "careful", NULL, 0);
	TEST_ASSERT_LOG(line("srcB", "WARN", "careful"));
	cl_log_event("srcC", CL_LOG_ERROR, "broken", NULL, 0);
	TEST_ASSERT_LOG(line("srcC", "ERROR", "broken"));
	/* An unknown type is logged as information. */
	cl_log_event("srcD", (cl_log_type_t)7, "odd", NULL, 0);
	TEST_ASSERT_LOG(line("srcD", "INFO", "odd"));
}

static void test_message_edges(void)
{
	cl_log_event("src", CL_LOG_INFO, "ends with newline\n", NULL, 0);
	TEST_ASSERT_LOG(line("src", "INFO", "ends with newline"));
	cl_log_event("src", CL_LOG_INFO, "\n\n", NULL, 0);
	TEST_ASSERT_LOG(line("src", "INFO", ""));
	cl_log_event("src", CL_LOG_INFO, NULL, NULL, 0);
	TEST_ASSERT_LOG(line("src", "INFO", ""));
	cl_log_event("src", CL_LOG_INFO, "100% literal %s %d", NULL, 0);
	TEST_ASSERT_LOG(line("src", "INFO", "100% literal %s %d"));
	/* Without a name nothing is logged. */
	cl_log_event(NULL, CL_LOG_ERROR, "lost", NULL, 0);
	TEST_ASSERT_LOG("");
}

static void test_data(void)
{
	const uint8_t bytes[3] = { 0x01, 0xab, 0xff };
	uint8_t big[CL_LOG_MAX_DATA + 1];
	char expect[4 * sizeof(big) + 64], *p;
	size_t i;

	cl_log_event("src", CL_LOG_WARN, "ctx", bytes, sizeof(bytes));
	TEST_ASSERT_LOG(line("src", "WARN", "ctx [data: 01 ab ff]"));
	cl_log_event("src", CL_LOG_WARN, NULL, bytes, 1);
	TEST_ASSERT_LOG(line("src", "WARN", " [data: 01]"));
	/* Zero length, or no buffer: no data part. */
	cl_log_event("src", CL_LOG_WARN, "ctx", bytes, 0);
	TEST_ASSERT_LOG(line("src", "WARN", "ctx"));
	cl_log_event("src", CL_LOG_WARN, "ctx", NULL, 16);
	TEST_ASSERT_LOG(line("src", "WARN", "ctx"));
	/* The largest supported data is logged whole. */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)i;
	p = expect + sprintf(expect, "max [data:");
	for (i = 0; i < CL_LOG_MAX_DATA; i++)
		p += sprintf(p, " %02x", big[i]);
	sprintf(p, "]");
	cl_log_event("src", CL_LOG_INFO, "max", big, CL_LOG_MAX_DATA);
	TEST_ASSERT_LOG(line("src", "INFO", expect));
	/* Longer data: the event is logged without it. */
	cl_log_event("src", CL_LOG_INFO, "too much", big, CL_LOG_MAX_DATA + 1);
	TEST_ASSERT_LOG(line("src", "INFO", "too much"));
}

static void test_event_log_macro(void)
{
	int evaluated = 0;

	CL_PRINT_TO_EVENT_LOG(&evaluated, ++evaluated, ("x %d", ++evaluated));
	CU_ASSERT_EQUAL(evaluated, 0);
	TEST_ASSERT_LOG("");
}

#define THREADS 4
#define EVENTS 100

static void *log_thread(void *arg)
{
	char msg[64];
	int id = (int)(intptr_t)arg, i;

	for (i = 0; i < EVENTS; i++) {
		uint8_t byte = (uint8_t)i;

		snprintf(msg, sizeof(msg), "thread %d event %d", id, i);
		cl_log_event("mt", CL_LOG_INFO, msg, &byte, sizeof(byte));
	}
	return NULL;
}

static void test_concurrent(void)
{
	pthread_t th[THREADS];
	int next[THREADS] = { 0 };
	char *text, *ln, *save = NULL;
	int i, total = 0;

	for (i = 0; i < THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, log_thread,
						     (void *)(intptr_t)i), 0);
	for (i = 0; i < THREADS; i++)
		pthread_join(th[i], NULL);
	text = test_log_take();
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
		int pid = 0, id = -1, n = -1, used = 0;
		unsigned byte = 0;

		CU_ASSERT_EQUAL(sscanf(ln, "mt[%d]: INFO: thread %d event %d [data: %x]%n",
				       &pid, &id, &n, &byte, &used), 4);
		CU_ASSERT_EQUAL((size_t)used, strlen(ln));
		CU_ASSERT_EQUAL(pid, (int)getpid());
		CU_ASSERT_EQUAL(byte, (unsigned)n);
		if (id >= 0 && id < THREADS) {
			CU_ASSERT_EQUAL(n, next[id]);
			next[id]++;
		}
		total++;
	}
	CU_ASSERT_EQUAL(total, THREADS * EVENTS);
	free(text);
}

/* Runs this program in --emit mode with CL_LOG_EVENT=value (NULL: unset)
 * and returns what the child wrote to its CL_LOG_FILE (malloc'd), or NULL. */
static char *child_log(const char *value)
{
	char env_target[128], env_file[128], path[64];
	char *text = NULL;
	long pos = 0;

	if (test_temp_file(path, sizeof(path), "test_cl_log_child"))
		return NULL;
	snprintf(env_file, sizeof(env_file), "CL_LOG_FILE=%s", path);
	if (value)
		snprintf(env_target, sizeof(env_target), "CL_LOG_EVENT=%s", value);
	if (!test_run_self("--emit", env_file, value ? env_target : NULL, NULL, 0))
		text = test_file_take(path, &pos);
	unlink(path);
	return text;
}

static void test_targets(void)
{
	char *t;

	/* Default: syslog only, nothing on the complib log target. */
	t = child_log(NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "");
	free(t);
	t = child_log("syslog");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "");
	free(t);
	t = child_log("none");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_STRING_EQUAL(t, "");
	free(t);
	t = child_log("both");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "]: WARN: ibal test event (ignore)\n"));
	free(t);
	t = child_log("log");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "]: WARN: ibal test event (ignore)\n"));
	free(t);
	/* An invalid value is reported and the default (syslog) is used. */
	t = child_log("console");
	CU_ASSERT_PTR_NOT_NULL_FATAL(t);
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "complib warn cl_log.c:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "CL_LOG_EVENT=console ignored"));
	CU_ASSERT_PTR_NULL(strstr(t, "ibal test event"));
	free(t);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_types),
	TEST_ENTRY(test_message_edges),
	TEST_ENTRY(test_data),
	TEST_ENTRY(test_event_log_macro),
	TEST_ENTRY(test_concurrent),
	TEST_ENTRY(test_targets),
};

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && !strcmp(argv[1], "--emit")) {
		cl_log_event("test_cl_log", CL_LOG_WARN, "ibal test event (ignore)", NULL, 0);
		return 0;
	}
	/* CL_LOG_FILE and CL_LOG_EVENT are read once: set them before any output. */
	if (test_log_setup("test_cl_log"))
		return 2;
	setenv("CL_LOG_EVENT", "log", 1);
	rc = test_run_suite("cl_log", tests, TEST_COUNT(tests));
	unlink(test_log_path);
	return rc;
}
