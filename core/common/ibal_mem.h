/*
 * ibal internal: memory made resident when it is made, not at its first use.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * An HCA's queues (a CQ's entries, a QP's and an SRQ's work queues, the
 * buffers posted to a receive queue) are pinned when they are made: their
 * pages are there before the first request, completion or message. The
 * library's own queues of those kinds do the same with ibal_mem_prefault(),
 * so that their first pass costs no page fault on the data path (10 us
 * each on a host that shadows its guests' page tables, docs/bench-cm.md).
 * Private to the library's sources; every folder of core/ may include it.
 */
#ifndef IBAL_MEM_H
#define IBAL_MEM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/** The page size (4 KiB should the system not say). */
static inline uintptr_t ibal_mem_page_size(void)
{
	long pg = sysconf(_SC_PAGESIZE);

	return pg > 0 ? (uintptr_t)pg : 4096u;
}

/** Reads the byte at @p x and writes it back: its page is resident after. */
static inline void ibal_mem_touch(uintptr_t x)
{
	volatile uint8_t *b = (volatile uint8_t *)x;

	*b = *b;
}

/**
 * Makes the pages of [@p p, @p p + @p len) resident and writable now, their
 * content unchanged: memory the caller owns, that nobody else writes yet.
 * Best effort: the kernel populates the whole pages (MADV_POPULATE_WRITE,
 * Linux 5.14); where it cannot (an older kernel), one byte of each page is
 * read and written back. A kernel that is short of memory leaves the rest
 * to the first use, as without this call.
 */
static inline void ibal_mem_prefault(void *p, size_t len)
{
	uintptr_t pg = ibal_mem_page_size();
	uintptr_t a = (uintptr_t)p, end = a + len, in_a, in_end, x;
	int saved = errno;

	if (!p || !len || end < a)
		return;
	in_a = (a + pg - 1) & ~(pg - 1); /* the whole pages inside */
	in_end = end & ~(pg - 1);
#ifdef MADV_POPULATE_WRITE
	if (in_a < in_end) {
		int rc = madvise((void *)in_a, in_end - in_a, MADV_POPULATE_WRITE);

		if (rc != 0 && errno != EINVAL) { /* short of memory: left to the first use */
			errno = saved;
			return;
		}
		if (rc == 0) { /* only the partial pages at the ends are left */
			if (a < in_a)
				ibal_mem_touch(a);
			if (in_end < end)
				ibal_mem_touch(in_end);
			errno = saved;
			return;
		}
	}
#endif
	for (x = a; x < end; x = (x & ~(pg - 1)) + pg)
		ibal_mem_touch(x);
	errno = saved;
}

/**
 * Makes the pages of [@p p, @p p + @p len) (page-aligned) resident and
 * writable now in this process's page tables, their content unchanged:
 * memory that other threads or processes may be writing (a shared-memory
 * ring), so, unlike ibal_mem_prefault(), nothing is ever read and written
 * back. Best effort: MADV_POPULATE_WRITE (Linux 5.14); where the kernel
 * cannot, or is short of memory, the pages are left to their first use.
 */
static inline void ibal_mem_populate_shared(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	int saved = errno;

	if (p && len)
		(void)madvise(p, len, MADV_POPULATE_WRITE);
	errno = saved;
#else
	(void)p;
	(void)len;
#endif
}

/** Size and alignment of ibal_mem_map_huge()'s mappings: a huge page of
 * x86-64 (and of arm64 with 4 KiB pages). */
#define IBAL_MEM_HUGE ((size_t)2 << 20)

/** @p len rounded up to whole IBAL_MEM_HUGE pages (0 if that overflows). */
static inline size_t ibal_mem_huge_round(size_t len)
{
	return (len + IBAL_MEM_HUGE - 1) & ~(IBAL_MEM_HUGE - 1);
}

/**
 * Maps @p len bytes of zeroed private memory, in ordinary pages.
 * @return the mapping (unmap it with munmap(p, len)), or NULL when the
 *         kernel has no room.
 */
static inline void *ibal_mem_map(size_t len)
{
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

/**
 * Maps @p len bytes of zeroed private memory (a multiple of IBAL_MEM_HUGE),
 * aligned on IBAL_MEM_HUGE and offered to the kernel for huge pages
 * (MADV_HUGEPAGE; transparent huge pages set to `madvise` or `always`), as
 * HCA drivers can put their queues in huge pages: where the kernel gives
 * them, a queue's 2 MiB take one page-table entry and one TLB entry, and
 * its first pass one trip to the host of a guest whose page tables the host
 * shadows, not 512 (4 to 5 us each here, docs/bench-cm.md). Elsewhere it is
 * ordinary memory. Nothing is made resident (ibal_mem_prefault() does).
 * @return the mapping (unmap it with munmap(p, len)), or NULL when the
 *         kernel has no room.
 */
static inline void *ibal_mem_map_huge(size_t len)
{
	size_t want = 2 * len;
	uintptr_t a, start;
	char *m;

	if (!len || len > SIZE_MAX / 2)
		return NULL;
	m = (char *)ibal_mem_map(want);
	if (!m)
		return NULL;
	/* Keep the aligned middle, give the ends back. */
	a = (uintptr_t)m;
	start = (a + IBAL_MEM_HUGE - 1) & ~(uintptr_t)(IBAL_MEM_HUGE - 1);
	if (start > a)
		munmap(m, start - a);
	if (a + want > start + len)
		munmap((void *)(start + len), a + want - (start + len));
#ifdef MADV_HUGEPAGE
	madvise((void *)start, len, MADV_HUGEPAGE);
#endif
	return (void *)start;
}

/** The smallest queue ibal_mem_queue_alloc() puts in huge pages: at most
 * half of the last one unused. */
#define IBAL_MEM_QUEUE_HUGE_MIN (IBAL_MEM_HUGE / 2)

/**
 * Zeroed room for a queue the data path writes in turn from one end to the
 * other (a CQ's entries): a large one (@p len at least
 * IBAL_MEM_QUEUE_HUGE_MIN) mapped in whole huge pages (ibal_mem_map_huge;
 * a plain mapping of the same length where the kernel has no room for
 * that), a small one from calloc(). Nothing is made resident. Freed with
 * ibal_mem_queue_free() and the same @p len.
 * @return the room, or NULL when out of memory.
 */
static inline void *ibal_mem_queue_alloc(size_t len)
{
	size_t whole = ibal_mem_huge_round(len);
	void *p;

	if (len < IBAL_MEM_QUEUE_HUGE_MIN)
		return calloc(1, len ? len : 1);
	if (whole < len)
		return NULL;
	p = ibal_mem_map_huge(whole);
	return p ? p : ibal_mem_map(whole);
}

/** Frees what ibal_mem_queue_alloc(@p len) returned (NULL: nothing). */
static inline void ibal_mem_queue_free(void *p, size_t len)
{
	if (!p)
		return;
	if (len < IBAL_MEM_QUEUE_HUGE_MIN)
		free(p);
	else
		munmap(p, ibal_mem_huge_round(len));
}

#endif /* IBAL_MEM_H */
