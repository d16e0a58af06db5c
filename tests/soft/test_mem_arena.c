/*
 * ibal tests: the memory the providers and the access layer share: ibal_mem.h's prefault and
 * ibal_arena.h's arena (classes, reuse, growth, huge chunks, the malloc fallback).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * No fabric: the functions under test are called directly. Under ASan and
 * valgrind an arena hands out plain cl_zalloc() objects (ibal_arena_is_plain)
 * and the tests check only what holds then.
 */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ibal_mem.h"
#include "ibal_arena.h"
#include "ibal_tsan.h"
#include "../common/cl_test.h"
#include "../common/mem_resident.h"

/* ibal_mem_prefault: every page of the range resident, its content kept. */
static void test_mem_prefault(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 64 * pg;
	uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	CU_ASSERT_FATAL(m != MAP_FAILED);
	CU_ASSERT_EQUAL(test_pages_not_resident(m, len), 64);
	m[pg + 200] = 0xA5;     /* in the first partial page of the range below */
	m[40 * pg + 7] = 0x5A;  /* in a whole page of it */
	/* from inside page 1 to inside page 62: both partial pages too */
	ibal_mem_prefault(m + pg + 100, 61 * pg - 50);
	/* the page before the range and the one after it stay as they were */
	CU_ASSERT_EQUAL(test_pages_not_resident(m, pg), 1);
	CU_ASSERT_EQUAL(test_pages_not_resident(m + 63 * pg, pg), 1);
	CU_ASSERT_EQUAL(test_pages_not_resident(m + pg, 62 * pg), 0);
	CU_ASSERT_EQUAL(m[pg + 200], 0xA5);
	CU_ASSERT_EQUAL(m[40 * pg + 7], 0x5A);
	CU_ASSERT_EQUAL(m[2 * pg], 0);
	ibal_mem_prefault(NULL, pg); /* nothing to do: no fault */
	ibal_mem_prefault(m, 0);
	munmap(m, len);
}

/* Whether [p, p + len) lies in one of the arena's chunks. */
static int in_arena(ibal_arena_t *a, const void *p, size_t len)
{
	const ibal_arena_chunk_t *c;

	for (c = a->chunks; c; c = c->next)
		if ((const char *)p >= (const char *)c + IBAL_ARENA_ALIGN &&
		    (const char *)p + len <= (const char *)c + c->len)
			return 1;
	return 0;
}

/* An arena (ibal_arena.h): zeroed, aligned objects of many sizes, none
 * overlapping; one put back is handed out again to its size class (last in,
 * first out); a burst grows it into a resident chunk of 2 MiB on a 2 MiB
 * boundary; a larger object is its own; the chunks go when the last object
 * out comes back. */
#define ARENA_OBJ 2600 /* about a CEP */
#define ARENA_N 1000
static void test_arena(void)
{
	static ibal_arena_t a = IBAL_ARENA_INIT;
	static uint8_t *o[ARENA_N];
	size_t sizes[] = { 1, 64, 65, 360, 496, 4000, IBAL_ARENA_MAX };
	uint8_t *v[sizeof(sizes) / sizeof(sizes[0])], *x, *big;
	size_t i, j, zero, held;
	int plain = ibal_arena_is_plain(&a);

	CU_ASSERT_EQUAL(ibal_arena_class(1), 0);
	CU_ASSERT_EQUAL(ibal_arena_class(64), 0);
	CU_ASSERT_EQUAL(ibal_arena_class(65), 1);
	CU_ASSERT_EQUAL(ibal_arena_class(IBAL_ARENA_MAX), IBAL_ARENA_CLASSES - 1);
	/* a get is an allocation to complib's fault injection */
	__cl_mem_fail_nth(1);
	CU_ASSERT_PTR_NULL(ibal_arena_get(&a, 100));
	CU_ASSERT_TRUE(__cl_mem_fail_nth(0));
	CU_ASSERT_PTR_NULL(a.chunks);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		v[i] = ibal_arena_get(&a, sizes[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v[i]);
		for (j = zero = 0; j < sizes[i]; j++)
			zero += !v[i][j];
		CU_ASSERT_EQUAL(zero, sizes[i]);
		memset(v[i], (int)(0x10 + i), sizes[i]);
	}
	for (i = 0; i < ARENA_N; i++) {
		o[i] = ibal_arena_get(&a, ARENA_OBJ);
		CU_ASSERT_PTR_NOT_NULL_FATAL(o[i]);
		for (j = zero = 0; j < ARENA_OBJ; j++)
			zero += !o[i][j];
		CU_ASSERT_EQUAL(zero, ARENA_OBJ);
		memset(o[i], 0xEE, ARENA_OBJ);
	}
	/* none overlaps another: each still holds what was written into it */
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		for (j = 0; j < sizes[i]; j++)
			if (v[i][j] != 0x10 + i) {
				CU_FAIL("an object was written through another");
				break;
			}
	/* a larger object is its own allocation, outside the chunks */
	big = ibal_arena_get(&a, IBAL_ARENA_MAX + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_EQUAL(big[IBAL_ARENA_MAX], 0);
	if (!plain) {
		uintptr_t huge = (uintptr_t)a.chunks;
		const ibal_arena_chunk_t *c;

		CU_ASSERT_EQUAL(ibal_arena_out(&a), ARENA_N + sizeof(sizes) / sizeof(sizes[0]));
		CU_ASSERT(!in_arena(&a, big, IBAL_ARENA_MAX + 1));
		for (i = 0; i < ARENA_N; i++) {
			CU_ASSERT_EQUAL((uintptr_t)o[i] % IBAL_ARENA_ALIGN, 0);
			CU_ASSERT(in_arena(&a, o[i], ARENA_OBJ));
		}
		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
			CU_ASSERT_EQUAL((uintptr_t)v[i] % IBAL_ARENA_ALIGN, 0);
		/* 32 KiB from malloc, then 64, 128 and 256 KiB mapped, then 2 MiB ones */
		CU_ASSERT_EQUAL(huge % IBAL_ARENA_HUGE, 0);
		CU_ASSERT_EQUAL(a.chunks->len, IBAL_ARENA_HUGE);
		CU_ASSERT(a.chunks->mapped);
		CU_ASSERT((uintptr_t)o[ARENA_N - 1] - huge < IBAL_ARENA_HUGE);
		CU_ASSERT_EQUAL(test_pages_not_resident((void *)huge, IBAL_ARENA_HUGE), 0);
		for (c = a.chunks, held = 0; c; c = c->next)
			held += c->len;
		CU_ASSERT_EQUAL(ibal_arena_held(&a), held);
		/* what the objects asked for, and less than a huge chunk more */
		CU_ASSERT(held < (size_t)ARENA_N * 2624 + 40000 + IBAL_ARENA_HUGE);
	}
	ibal_arena_put(&a, big, IBAL_ARENA_MAX + 1);
	/* last in, first out within a class, and zeroed again; 360 and 330
	 * bytes are one class (384) */
	ibal_arena_put(&a, o[7], ARENA_OBJ);
	x = ibal_arena_get(&a, ARENA_OBJ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	if (!plain)
		CU_ASSERT_PTR_EQUAL(x, o[7]);
	CU_ASSERT_EQUAL(x[0], 0);
	CU_ASSERT_EQUAL(x[ARENA_OBJ - 1], 0);
	o[7] = x;
	ibal_arena_put(&a, v[3], 360);
	x = ibal_arena_get(&a, 330);
	sizes[3] = 330; /* put back with the size it was got with */
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	if (!plain)
		CU_ASSERT_PTR_EQUAL(x, v[3]);
	CU_ASSERT_EQUAL(x[329], 0);
	v[3] = x;
	/* not while one is out */
	for (i = 1; i < ARENA_N; i++)
		ibal_arena_put(&a, o[i], ARENA_OBJ);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		ibal_arena_put(&a, v[i], sizes[i]);
	if (!plain) {
		CU_ASSERT_EQUAL(ibal_arena_out(&a), 1);
		CU_ASSERT_PTR_NOT_NULL(a.chunks);
		CU_ASSERT(ibal_arena_held(&a) >= IBAL_ARENA_HUGE);
	}
	ibal_arena_put(&a, NULL, ARENA_OBJ);
	ibal_arena_put(&a, o[0], ARENA_OBJ);
	CU_ASSERT_EQUAL(ibal_arena_out(&a), 0);
	CU_ASSERT_PTR_NULL(a.chunks);
	CU_ASSERT_EQUAL(ibal_arena_held(&a), 0);
	for (i = 0; i < IBAL_ARENA_CLASSES; i++)
		CU_ASSERT_PTR_NULL(a.free_list[i]);
	/* and it starts again from a small chunk */
	x = ibal_arena_get(&a, ARENA_OBJ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(x);
	if (!plain) {
		CU_ASSERT_FALSE(a.chunks->mapped);
		CU_ASSERT_EQUAL(a.chunks->len, IBAL_ARENA_FIRST);
	}
	ibal_arena_put(&a, x, ARENA_OBJ);
	CU_ASSERT_PTR_NULL(a.chunks);
}

/* The end of a chunk too short for the next object is not lost: it is
 * handed out to the largest class it holds. */
static void test_arena_chunk_end(void)
{
	static ibal_arena_t a = IBAL_ARENA_INIT;
	enum { OBJ = 1024 };
	/* the first chunk holds 31 objects of 1 KiB after its header, and
	 * 960 bytes more */
	void *o[31], *big, *tail;
	size_t i;

	if (ibal_arena_is_plain(&a))
		return;
	for (i = 0; i < 31; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(o[i] = ibal_arena_get(&a, OBJ));
	CU_ASSERT_PTR_NULL(a.chunks->next);
	CU_ASSERT_EQUAL((size_t)(a.bump_end - a.bump), IBAL_ARENA_FIRST - IBAL_ARENA_ALIGN - 31 * OBJ);
	big = ibal_arena_get(&a, IBAL_ARENA_MAX); /* a second chunk */
	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a.chunks->next);
	CU_ASSERT(a.chunks->mapped);
	CU_ASSERT_EQUAL(a.chunks->len, 2 * IBAL_ARENA_FIRST);
	tail = ibal_arena_get(&a, 900); /* the 960 bytes left in the first */
	CU_ASSERT_PTR_EQUAL(tail, (char *)o[30] + OBJ);
	ibal_arena_put(&a, tail, 900);
	ibal_arena_put(&a, big, IBAL_ARENA_MAX);
	for (i = 0; i < 31; i++)
		ibal_arena_put(&a, o[i], OBJ);
	CU_ASSERT_PTR_NULL(a.chunks);
}

/* Where the kernel maps no larger chunk, an arena grows by first-sized
 * chunks from malloc instead, and tries the larger size again next time.
 * In a child, whose address space is then limited to what it has: not
 * under a runtime that maps memory of its own as the child runs (ASan's
 * and valgrind's allocators, ThreadSanitizer's stack depot and shadow),
 * which the limit would starve instead of the arena. */
static void test_arena_fallback(void)
{
	static ibal_arena_t a = IBAL_ARENA_INIT;
	pid_t pid;
	int status = -1;

	if (ibal_arena_is_plain(&a))
		return; /* ASan and valgrind: objects are plain, no arena */
#ifdef IBAL_TSAN
	return;
#endif
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct rlimit rl;
		unsigned long vm_pages = 0;
		void *o[3], *room;
		FILE *f;
		int bad = 0;

		/* room in malloc's heap for two first chunks, then no new mapping */
		mallopt(M_TRIM_THRESHOLD, 64 << 20);
		mallopt(M_MMAP_THRESHOLD, 64 << 20);
		room = malloc(4 * IBAL_ARENA_FIRST);
		free(room);
		f = fopen("/proc/self/statm", "r");
		if (!f || fscanf(f, "%lu", &vm_pages) != 1)
			_exit(2);
		fclose(f);
		rl.rlim_cur = rl.rlim_max = vm_pages * (rlim_t)sysconf(_SC_PAGESIZE);
		if (setrlimit(RLIMIT_AS, &rl))
			_exit(3);
		o[0] = ibal_arena_get(&a, IBAL_ARENA_MAX);  /* the first chunk */
		o[1] = ibal_arena_get(&a, IBAL_ARENA_MAX);  /* no mapping: from malloc */
		o[2] = ibal_arena_get(&a, 64);              /* the rest of that one */
		bad |= !o[0] || !o[1] || !o[2];
		bad |= !a.chunks || !a.chunks->next || a.chunks->next->next;
		bad |= a.chunks && (a.chunks->mapped || a.chunks->len != IBAL_ARENA_FIRST);
		bad |= a.next_len != 2 * IBAL_ARENA_FIRST;  /* the larger one is tried again */
		bad |= ibal_arena_out(&a) != 3;
		ibal_arena_put(&a, o[2], 64);
		ibal_arena_put(&a, o[1], IBAL_ARENA_MAX);
		ibal_arena_put(&a, o[0], IBAL_ARENA_MAX);
		bad |= a.chunks != NULL;
		_exit(bad ? 1 : 0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_mem_prefault),
	TEST_ENTRY(test_arena),
	TEST_ENTRY(test_arena_chunk_end),
	TEST_ENTRY(test_arena_fallback),
};

TEST_MAIN("mem_arena", tests)
