/*
 * ibal tests: a driver that runs a fuzz harness over given inputs, without libFuzzer.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Usage: run_<harness> [PATH...]  Each PATH is a file (one input) or a
 * directory (each regular file in it is one input). Every input goes through
 * LLVMFuzzerTestOneInput once; a crash or a sanitizer report is the failure.
 * Without a PATH (make check, and so under ASan, valgrind and TSan too) it
 * runs the harness's seeds, written to a temporary directory, and its
 * regression inputs, tests/fuzz/corpus/<harness> (FUZZ_CORPUS, set by the
 * build). Exit 0 when every input ran.
 */
#include <dirent.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0) {
		fclose(f);
		return -1;
	}
	buf = (uint8_t *)malloc((size_t)n + 1);   /* exactly the input: ASan sees overreads */
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t)n);
	free(buf);
	return 0;
}

static int run_path(const char *path, unsigned *p_n)
{
	struct stat st;
	struct dirent *e;
	char sub[4096];
	DIR *d;
	int rc = 0;

	if (stat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		(*p_n)++;
		return run_file(path);
	}
	d = opendir(path);
	if (!d)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name) >= sizeof(sub) ||
		    stat(sub, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		(*p_n)++;
		if (run_file(sub) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

/* Removes the seed directory and what is in it. */
static void seeds_remove(const char *dir)
{
	struct dirent *e;
	char sub[4096];
	DIR *d = opendir(dir);

	if (d) {
		while ((e = readdir(d)) != NULL)
			if (e->d_name[0] != '.' &&
			    (size_t)snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) < sizeof(sub))
				unlink(sub);
		closedir(d);
	}
	rmdir(dir);
}

int main(int argc, char **argv)
{
	char seeds[] = "/tmp/ibal-fuzz-seeds-XXXXXX";
	struct stat st;
	unsigned n = 0;
	int i, rc = 0;

	if (argc > 1) {
		LLVMFuzzerInitialize(&argc, &argv);
		for (i = 1; i < argc; i++)
			if (run_path(argv[i], &n) < 0) {
				fprintf(stderr, "%s: %s: cannot be read\n", argv[0], argv[i]);
				rc = 1;
			}
		printf("%s: %u inputs\n", argv[0], n);
		return rc;
	}
	if (!mkdtemp(seeds))
		return 1;
	setenv("FUZZ_SEED_DIR", seeds, 1);
	LLVMFuzzerInitialize(&argc, &argv);
	rc = run_path(seeds, &n) < 0 || !n;
#ifdef FUZZ_CORPUS
	if (!rc && stat(FUZZ_CORPUS, &st) == 0 && run_path(FUZZ_CORPUS, &n) < 0)
		rc = 1;
#endif
	(void)st;
	seeds_remove(seeds);
	printf("%s: %u inputs (seeds and regression inputs)\n", argv[0], n);
	printf("CUNIT-TOTALS: tests=1 failed=%d\n", rc);
	return rc;
}
