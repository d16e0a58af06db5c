/*
 * ibal internal: a cache of objects of one size, grown in resident chunks.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A server that takes a thousand connections at once makes a thousand of
 * each per-connection object in a burst. Made one by one with malloc, each
 * new page of them costs a page fault on the thread that makes it: 10 us on
 * a host that shadows its guests' page tables, where faults are a quarter
 * of the CM's time (docs/bench-cm.md). A slab hands such objects out of
 * chunks: the first, of a few objects, from malloc; each next twice the
 * size of the last until one would pass 256 KiB, then 2 MiB ones, aligned
 * on 2 MiB and offered to the kernel for a transparent huge page (one
 * fault for 512 pages where the kernel has one to give); every chunk but
 * the first is made resident as a whole when it is made (ibal_mem_prefault).
 * Where the kernel has no room for a larger chunk, a first-sized one from
 * malloc does. Objects put back are handed out again (last in, first out);
 * the chunks are freed together by ibal_slab_release() once no object is
 * out, which the owner does when its last user goes.
 *
 * Under AddressSanitizer, and under valgrind where <valgrind/valgrind.h> is
 * there to tell, every object is its own calloc() and free(), so that their
 * checks of each object (use after free, leaks) stay whole.
 *
 * Private to the library's sources; every folder of core/ may include it.
 */
#ifndef IBAL_SLAB_H
#define IBAL_SLAB_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "ibal_mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define IBAL_SLAB_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IBAL_SLAB_ASAN 1
#endif
#endif
#if !defined(IBAL_SLAB_ASAN) && defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define IBAL_SLAB_VALGRIND 1
#endif
#endif

/** Objects in a slab's first chunk, which comes from malloc and is not made resident. */
#define IBAL_SLAB_FIRST 8u
/** The largest chunk, made once a chunk would pass an eighth of it: a
 * transparent huge page where the kernel gives one. */
#define IBAL_SLAB_HUGE ((size_t)2 << 20)
/** A chunk's header, and the alignment of its objects. */
#define IBAL_SLAB_ALIGN ((size_t)64)

/** A chunk of objects, the header at its start. */
typedef struct ibal_slab_chunk {
	struct ibal_slab_chunk *next;
	size_t map_len;               /**< its length if mmap'd (at the header), 0 if malloc'd */
} ibal_slab_chunk_t;

/** A cache of objects of one size. Initialize with IBAL_SLAB_INIT. */
typedef struct ibal_slab {
	pthread_mutex_t lock;         /**< a leaf: only the allocator and mmap are called under it */
	size_t size;                  /**< of an object, a multiple of IBAL_SLAB_ALIGN */
	void *free_list;              /**< objects put back, linked through their first word */
	ibal_slab_chunk_t *chunks;
	size_t next_objs;             /**< objects in the next chunk */
	size_t out;                   /**< objects handed out and not put back */
	int plain;                    /**< atomic: 0 not decided, 1 slab, 2 calloc/free per object */
} ibal_slab_t;

/** Static initializer of a slab of objects of @p obj_size bytes. */
#define IBAL_SLAB_INIT(obj_size)                                                         \
	{ PTHREAD_MUTEX_INITIALIZER, ((obj_size) + IBAL_SLAB_ALIGN - 1) & ~(IBAL_SLAB_ALIGN - 1), \
	  NULL, NULL, IBAL_SLAB_FIRST, 0, 0 }

/** Whether objects are plain calloc()/free() here (a sanitizer that checks each). */
static inline int ibal_slab_is_plain(ibal_slab_t *s)
{
	int v = __atomic_load_n(&s->plain, __ATOMIC_RELAXED);

	if (!v) {
		v = 1;
#if defined(IBAL_SLAB_ASAN)
		v = 2;
#elif defined(IBAL_SLAB_VALGRIND)
		if (RUNNING_ON_VALGRIND)
			v = 2;
#endif
		__atomic_store_n(&s->plain, v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

/*
 * Maps @p len bytes (a multiple of the page size), aligned on @p len when it
 * is IBAL_SLAB_HUGE and offered for a huge page; NULL when the kernel has no
 * room.
 */
static inline void *ibal_slab_map(size_t len)
{
	size_t want = len == IBAL_SLAB_HUGE ? 2 * len : len;
	uintptr_t a, start;
	char *m = (char *)mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	if (want == len)
		return m;
	/* Keep the aligned middle, give the ends back. */
	a = (uintptr_t)m;
	start = (a + len - 1) & ~(uintptr_t)(len - 1);
	if (start > a)
		munmap(m, start - a);
	if (a + want > start + len)
		munmap((void *)(start + len), a + want - (start + len));
#ifdef MADV_HUGEPAGE
	madvise((void *)start, len, MADV_HUGEPAGE);
#endif
	return (void *)start;
}

/* Adds a chunk and threads its objects on the free list; s->lock held. */
static inline int ibal_slab_grow(ibal_slab_t *s)
{
	size_t pg = ibal_mem_page_size();
	size_t n = s->next_objs, len = IBAL_SLAB_ALIGN + n * s->size, map_len = 0, i;
	char *base = NULL;
	int grown = 0;
	ibal_slab_chunk_t *c;

	if (s->chunks) {
		len = (len + pg - 1) & ~(pg - 1);
		if (len > IBAL_SLAB_HUGE / 8)
			len = IBAL_SLAB_HUGE; /* a burst: a huge page at once */
		n = (len - IBAL_SLAB_ALIGN) / s->size;
		if (n)
			base = (char *)ibal_slab_map(len);
		if (base) {
			ibal_mem_prefault(base, len);
			map_len = len;
			grown = 1;
		}
	}
	if (!base) {
		/* The first chunk, as small as a few objects from malloc are; or
		 * the kernel had no room for a larger one (tried again next time). */
		n = IBAL_SLAB_FIRST;
		len = IBAL_SLAB_ALIGN + n * s->size;
		if (posix_memalign((void **)&base, IBAL_SLAB_ALIGN, len))
			return 0;
		grown = !s->chunks;
	}
	c = (ibal_slab_chunk_t *)base;
	c->next = s->chunks;
	c->map_len = map_len;
	s->chunks = c;
	/* Lowest address first out. */
	for (i = n; i-- > 0;) {
		void **obj = (void **)(base + IBAL_SLAB_ALIGN + i * s->size);

		*obj = s->free_list;
		s->free_list = obj;
	}
	if (grown && s->next_objs < SIZE_MAX / 2)
		s->next_objs = n * 2;
	return 1;
}

/** A zeroed object, or NULL when memory is short. */
static inline void *ibal_slab_get(ibal_slab_t *s)
{
	void *p;

	if (ibal_slab_is_plain(s))
		return calloc(1, s->size);
	pthread_mutex_lock(&s->lock);
	p = s->free_list;
	if (!p && ibal_slab_grow(s))
		p = s->free_list;
	if (p) {
		s->free_list = *(void **)p;
		s->out++;
	}
	pthread_mutex_unlock(&s->lock);
	if (p)
		memset(p, 0, s->size);
	return p;
}

/** Puts back an object of ibal_slab_get(); NULL does nothing. */
static inline void ibal_slab_put(ibal_slab_t *s, void *p)
{
	if (!p)
		return;
	if (ibal_slab_is_plain(s)) {
		free(p);
		return;
	}
	pthread_mutex_lock(&s->lock);
	*(void **)p = s->free_list;
	s->free_list = p;
	s->out--;
	pthread_mutex_unlock(&s->lock);
}

/**
 * Frees every chunk if no object is out (the next get starts again from a
 * small chunk); returns whether it did.
 */
static inline int ibal_slab_release(ibal_slab_t *s)
{
	ibal_slab_chunk_t *c, *next;

	pthread_mutex_lock(&s->lock);
	if (s->out) {
		pthread_mutex_unlock(&s->lock);
		return 0;
	}
	for (c = s->chunks; c; c = next) {
		next = c->next;
		if (c->map_len)
			munmap(c, c->map_len);
		else
			free(c);
	}
	s->chunks = NULL;
	s->free_list = NULL;
	s->next_objs = IBAL_SLAB_FIRST;
	pthread_mutex_unlock(&s->lock);
	return 1;
}

/** Objects handed out and not put back (0 in the plain mode). */
static inline size_t ibal_slab_out(ibal_slab_t *s)
{
	size_t n;

	pthread_mutex_lock(&s->lock);
	n = s->out;
	pthread_mutex_unlock(&s->lock);
	return n;
}

#endif /* IBAL_SLAB_H */
