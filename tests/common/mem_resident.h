/*
 * ibal tests: whether memory is resident (mincore) or in this process's page
 * tables (pagemap), for the tests of memory the library makes resident when
 * it makes it (core/common/ibal_mem.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef TESTS_MEM_RESIDENT_H
#define TESTS_MEM_RESIDENT_H

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/* How many of the whole pages inside [@p p, @p p + @p len) are not resident;
 * (size_t)-1 if mincore() fails. */
static inline size_t test_pages_not_resident(const void *p, size_t len)
{
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), end = ((uintptr_t)p + len) & ~(pg - 1);
	size_t n = end > a ? (end - a) / pg : 0, i, missing = 0;
	unsigned char *vec;

	if (!n)
		return 0;
	vec = calloc(n, 1);
	if (!vec || mincore((void *)a, end - a, vec) != 0) {
		free(vec);
		return (size_t)-1;
	}
	for (i = 0; i < n; i++)
		missing += !(vec[i] & 1);
	free(vec);
	return missing;
}

/* How many pages of [@p p, @p p + @p len) are present in this process's own
 * page tables (/proc/self/pagemap, bit 63), which mincore() does not tell
 * for a shared file's pages another process has made resident; -1 if the
 * file cannot be read. */
static inline long test_pages_mapped(const void *p, size_t len)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE), first = (uintptr_t)p / pg;
	uint64_t n = (len + pg - 1) / pg, e, i;
	long present = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (pread(fd, &e, sizeof(e), (off_t)((first + i) * sizeof(e))) != (ssize_t)sizeof(e)) {
			close(fd);
			return -1;
		}
		present += (long)(e >> 63);
	}
	close(fd);
	return present;
}

#endif /* TESTS_MEM_RESIDENT_H */
