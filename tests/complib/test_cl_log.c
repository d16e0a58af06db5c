/*
 * ibal tests: cl_log (cl_log_event on the complib log target and syslog).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <complib/cl_log.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include "../common/cl_test.h"

static char log_path[64];
static long log_pos;

/* Returns (malloc'd) the text appended to `path` since *pos. */
static char *file_take(const char *path, long *pos)
{
	FILE *f = fopen(path, "r");
	char *buf;
	long end;
	size_t n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	end = ftell(f);
	buf = (char *)malloc((size_t)(end - *pos) + 1);
	fseek(f, *pos, SEEK_SET);
	n = fread(buf, 1, (size_t)(end - *pos), f);
	buf[n] = '\0';
	*pos += (long)n;
	fclose(f);
	return buf;
}

#define ASSERT_LOG(expect) \
	do { \
		char *got_ = file_take(log_path, &log_pos); \
		CU_ASSERT_PTR_NOT_NULL_FATAL(got_); \
		CU_ASSERT_STRING_EQUAL(got_, (expect)); \
		free(got_); \
	} while (0)

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
	ASSERT_LOG(line("srcA", "INFO", "all good"));
	cl_log_event("srcB", CL_LOG_WARN, "careful", NULL, 0);
	ASSERT_LOG(line("srcB", "WARN", "careful"));
	cl_log_event("srcC", CL_LOG_ERROR, "broken", NULL, 0);
	ASSERT_LOG(line("srcC", "ERROR", "broken"));
	/* An unknown type is logged as information. */
	cl_log_event("srcD", (cl_log_type_t)7, "odd", NULL, 0);
	ASSERT_LOG(line("srcD", "INFO", "odd"));
}

static void test_message_edges(void)
{
	cl_log_event("src", CL_LOG_INFO, "ends with newline\n", NULL, 0);
	ASSERT_LOG(line("src", "INFO", "ends with newline"));
	cl_log_event("src", CL_LOG_INFO, "\n\n", NULL, 0);
	ASSERT_LOG(line("src", "INFO", ""));
	cl_log_event("src", CL_LOG_INFO, NULL, NULL, 0);
	ASSERT_LOG(line("src", "INFO", ""));
	cl_log_event("src", CL_LOG_INFO, "100% literal %s %d", NULL, 0);
	ASSERT_LOG(line("src", "INFO", "100% literal %s %d"));
	/* Without a name nothing is logged. */
	cl_log_event(NULL, CL_LOG_ERROR, "lost", NULL, 0);
	ASSERT_LOG("");
}

static void test_data(void)
{
	const uint8_t bytes[3] = { 0x01, 0xab, 0xff };
	uint8_t big[CL_LOG_MAX_DATA + 1];
	char expect[4 * sizeof(big) + 64], *p;
	size_t i;

	cl_log_event("src", CL_LOG_WARN, "ctx", bytes, sizeof(bytes));
	ASSERT_LOG(line("src", "WARN", "ctx [data: 01 ab ff]"));
	cl_log_event("src", CL_LOG_WARN, NULL, bytes, 1);
	ASSERT_LOG(line("src", "WARN", " [data: 01]"));
	/* Zero length, or no buffer: no data part. */
	cl_log_event("src", CL_LOG_WARN, "ctx", bytes, 0);
	ASSERT_LOG(line("src", "WARN", "ctx"));
	cl_log_event("src", CL_LOG_WARN, "ctx", NULL, 16);
	ASSERT_LOG(line("src", "WARN", "ctx"));
	/* The largest supported data is logged whole. */
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)i;
	p = expect + sprintf(expect, "max [data:");
	for (i = 0; i < CL_LOG_MAX_DATA; i++)
		p += sprintf(p, " %02x", big[i]);
	sprintf(p, "]");
	cl_log_event("src", CL_LOG_INFO, "max", big, CL_LOG_MAX_DATA);
	ASSERT_LOG(line("src", "INFO", expect));
	/* Longer data: the event is logged without it. */
	cl_log_event("src", CL_LOG_INFO, "too much", big, CL_LOG_MAX_DATA + 1);
	ASSERT_LOG(line("src", "INFO", "too much"));
}

static void test_event_log_macro(void)
{
	int evaluated = 0;

	CL_PRINT_TO_EVENT_LOG(&evaluated, ++evaluated, ("x %d", ++evaluated));
	CU_ASSERT_EQUAL(evaluated, 0);
	ASSERT_LOG("");
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
	text = file_take(log_path, &log_pos);
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

extern char **environ;

/* The environment of this process without the complib variables, plus
 * `a` and `b` (either may be NULL); free() the result. The rest is kept so
 * that a child finds its libraries as this process did (libtool, valgrind). */
static char **child_env(char *a, char *b)
{
	size_t n = 0, k = 0, i;
	char **env;

	while (environ[n])
		n++;
	env = (char **)calloc(n + 3, sizeof(*env));
	if (!env)
		return NULL;
	for (i = 0; i < n; i++)
		if (strncmp(environ[i], "CL_", 3))
			env[k++] = environ[i];
	if (a)
		env[k++] = a;
	if (b)
		env[k++] = b;
	return env;
}

/* Runs this program in --emit mode with CL_LOG_EVENT=value (NULL: unset)
 * and returns what the child wrote to its CL_LOG_FILE (malloc'd). */
static char *child_log(const char *value)
{
	char exe[512], env_target[128], env_file[128], path[64];
	char *argv[] = { exe, (char *)"--emit", NULL };
	char **envp;
	long pos = 0;
	char *text;
	int status, fd, rc;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	snprintf(path, sizeof(path), "/tmp/test_cl_log_child.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	close(fd);
	snprintf(env_file, sizeof(env_file), "CL_LOG_FILE=%s", path);
	if (value)
		snprintf(env_target, sizeof(env_target), "CL_LOG_EVENT=%s", value);
	envp = child_env(env_file, value ? env_target : NULL);
	rc = envp ? posix_spawn(&pid, exe, NULL, NULL, argv, envp) : -1;
	free(envp);
	if (rc || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		unlink(path);
		return NULL;
	}
	text = file_take(path, &pos);
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
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "CL_LOG_EVENT=\"console\""));
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
	int fd, rc;

	if (argc > 1 && !strcmp(argv[1], "--emit")) {
		cl_log_event("test_cl_log", CL_LOG_WARN, "ibal test event (ignore)", NULL, 0);
		return 0;
	}
	/* CL_LOG_FILE and CL_LOG_EVENT are read once: set them before any output. */
	snprintf(log_path, sizeof(log_path), "/tmp/test_cl_log.XXXXXX");
	fd = mkstemp(log_path);
	if (fd < 0)
		return 2;
	close(fd);
	setenv("CL_LOG_FILE", log_path, 1);
	setenv("CL_LOG_EVENT", "log", 1);
	rc = test_run_suite("cl_log", tests, TEST_COUNT(tests));
	unlink(log_path);
	return rc;
}
