/*
 * ibal tests: complib log-file capture, and re-running the test program as a child.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * For tests of output that goes to the complib log target (CL_LOG_FILE):
 * test_log_setup() points CL_LOG_FILE at a fresh temporary file, and
 * test_log_take() / TEST_ASSERT_LOG() read what was appended since the last
 * look. Settings read once per process are tested in a child: the program
 * re-runs itself with test_run_self() and a mode argument its main() checks.
 * Include after cl_test.h; the including file defines _GNU_SOURCE first.
 */
#ifndef IBAL_LOG_CAPTURE_H
#define IBAL_LOG_CAPTURE_H

#include <spawn.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The file CL_LOG_FILE names, and how much of it the test has read. */
static char test_log_path[64] __attribute__((unused));
static long test_log_pos __attribute__((unused));

/* Creates an empty file /tmp/<name>.XXXXXX, its name in `path`; returns 0, or -1. */
static inline int test_temp_file(char *path, size_t size, const char *name)
{
	int fd;

	snprintf(path, size, "/tmp/%s.XXXXXX", name);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* Returns (malloc'd) the text appended to `path` since *pos and advances *pos; NULL: unreadable. */
static inline char *test_file_take(const char *path, long *pos)
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

/* Makes CL_LOG_FILE a new empty file /tmp/<name>.XXXXXX (unlink test_log_path at
 * the end). Call before any output: complib reads the variable once. Returns 0, or -1. */
static inline int test_log_setup(const char *name)
{
	if (test_temp_file(test_log_path, sizeof(test_log_path), name))
		return -1;
	test_log_pos = 0;
	return setenv("CL_LOG_FILE", test_log_path, 1) ? -1 : 0;
}

/* Returns (malloc'd) everything written to the log since the last call. */
static inline char *test_log_take(void)
{
	return test_file_take(test_log_path, &test_log_pos);
}

/* Asserts the new log text equals `expect` exactly. */
#define TEST_ASSERT_LOG(expect) \
	do { \
		char *got_ = test_log_take(); \
		CU_ASSERT_PTR_NOT_NULL_FATAL(got_); \
		CU_ASSERT_STRING_EQUAL(got_, (expect)); \
		free(got_); \
	} while (0)

/* The environment of this process without the complib variables (CL_*), plus
 * `a` and `b` (either may be NULL); free() the result. The rest is kept so
 * that a child finds its libraries as this process did (libtool, valgrind). */
static inline char **test_child_env(char *a, char *b)
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

/* Reads `fd` to its end into `out` (NUL-terminated, at most size - 1 bytes kept). */
static inline void test_read_all(int fd, char *out, size_t size)
{
	size_t len = 0;
	char spill[256];
	ssize_t n;

	for (;;) {
		if (len < size - 1)
			n = read(fd, out + len, size - 1 - len);
		else
			n = read(fd, spill, sizeof(spill)); /* drain: the child must not block */
		if (n <= 0)
			break;
		if (len < size - 1)
			len += (size_t)n;
	}
	out[len] = '\0';
}

/*
 * Runs this program as `<self> <arg>` in test_child_env(env_a, env_b) and waits
 * for it. With `out`, the child's standard output is read into it (see
 * test_read_all; `size` > 0). Returns 0 if the child ran and exited with
 * status 0, else -1.
 */
static inline int test_run_self(const char *arg, char *env_a, char *env_b, char *out,
				size_t size)
{
	char exe[512];
	char *argv[3];
	char **envp;
	posix_spawn_file_actions_t fa;
	int fds[2] = { -1, -1 }, status, rc;
	ssize_t n;
	pid_t pid;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	argv[0] = exe;
	argv[1] = (char *)arg;
	argv[2] = NULL;
	envp = test_child_env(env_a, env_b);
	if (!envp || (out && pipe(fds))) {
		free(envp);
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	if (out) {
		posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
		posix_spawn_file_actions_addclose(&fa, fds[0]);
	}
	rc = posix_spawn(&pid, exe, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	free(envp);
	if (out) {
		close(fds[1]);
		if (rc)
			out[0] = '\0';
		else
			test_read_all(fds[0], out, size);
		close(fds[0]);
	}
	if (rc || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return 0;
}

#endif
