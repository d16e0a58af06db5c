/*
 * ibal internal: per-connection objects of many sizes from resident chunks.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A server that takes a thousand connections at once makes a thousand of
 * each per-connection object in a burst: the CM's endpoint, the QP and its
 * queues. Made one by one with malloc, each new page of them costs a page
 * fault on the thread that makes it: 10 us on a host that shadows its
 * guests' page tables, where the faults of the QP a server makes in its REQ
 * callback were half of what a connection cost (docs/bench-cm.md). An arena
 * hands such objects out of chunks instead: the first, of 32 KiB, from
 * cl_zalloc; each next twice the size of the last until one would pass 256 KiB,
 * then 2 MiB ones, aligned on 2 MiB and offered to the kernel for a
 * transparent huge page (one fault for 512 pages where the kernel has one to
 * give); every chunk but the first is made resident as a whole when it is
 * made (ibal_mem_prefault). Objects are carved from the current chunk one
 * after the other, whatever their size, so the memory an arena holds is what
 * its callers asked for at their peak, rounded up to 64 bytes an object,
 * plus the unused end of one chunk. A chunk's room is zero when it is made
 * (a fresh mapping, or zeroed), so only an object put back is zeroed again
 * when it is handed out.
 *
 * An object of up to IBAL_ARENA_MAX bytes belongs to the size class of its
 * size rounded up to 64 bytes; one put back is handed out again to the next
 * get of its class (last in, first out). A larger object is its own
 * cl_zalloc(), made resident. The caller gives put the size it gave get. Where the kernel
 * has no room for a larger chunk, a first-sized one from malloc does, and the
 * larger size is tried again next time. The chunks are freed together when
 * the last object out is put back: a burst's memory goes back to the kernel
 * with its last connection, and the next get starts again from a first chunk.
 *
 * Complib's fault injection counts each get as an allocation (a get that
 * __cl_mem_fail_nth() fails returns NULL), and the chunks from malloc come
 * from cl_zalloc(): an object never put back keeps the chunks, whose first
 * complib's allocation tracking then reports as a leak. Under
 * AddressSanitizer, and under valgrind where <valgrind/valgrind.h> is there
 * to tell, every object is its own cl_zalloc() and cl_free(), so that their
 * checks of each object (overflows, use after free, leaks) stay whole.
 * Written here rather than taken from a library: a malloc replacement
 * (jemalloc, tcmalloc) would replace the application's malloc too.
 * Private to the library's sources; every folder of core/ may include it.
 */
#ifndef IBAL_ARENA_H
#define IBAL_ARENA_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <complib/cl_memory.h>
#include "ibal_mem.h"

#if defined(__SANITIZE_ADDRESS__)
#define IBAL_ARENA_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IBAL_ARENA_ASAN 1
#endif
#endif
#if !defined(IBAL_ARENA_ASAN) && defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define IBAL_ARENA_VALGRIND 1
#endif
#endif

/** The alignment of every object, and the step of the size classes. */
#define IBAL_ARENA_ALIGN ((size_t)64)
/** The largest object of a size class; a larger one is its own cl_zalloc(). */
#define IBAL_ARENA_MAX ((size_t)16 << 10)
/** Size classes: 64, 128, ... IBAL_ARENA_MAX bytes. */
#define IBAL_ARENA_CLASSES (IBAL_ARENA_MAX / IBAL_ARENA_ALIGN)
/** The first chunk, from cl_zalloc() and not made resident: room for the largest object. */
#define IBAL_ARENA_FIRST ((size_t)32 << 10)
/** The largest chunk, made once a chunk would pass an eighth of it: a
 * transparent huge page where the kernel gives one. */
#define IBAL_ARENA_HUGE IBAL_MEM_HUGE

/** A chunk, its header at its start (IBAL_ARENA_ALIGN bytes), its objects after. */
typedef struct ibal_arena_chunk {
	struct ibal_arena_chunk *next;
	size_t len;                   /**< its length */
	int mapped;                   /**< mmap'd (else malloc'd) */
} ibal_arena_chunk_t;

/** An arena. Initialize with IBAL_ARENA_INIT. */
typedef struct ibal_arena {
	pthread_mutex_t lock;         /**< a leaf: only the allocator and mmap are called under it */
	void *free_list[IBAL_ARENA_CLASSES]; /**< objects put back, per class, linked through their first word */
	ibal_arena_chunk_t *chunks;   /**< the current chunk first */
	char *bump;                   /**< the current chunk's first unused byte */
	char *bump_end;               /**< its end */
	size_t next_len;              /**< the next chunk's length */
	size_t out;                   /**< objects of a class handed out and not put back */
	int plain;                    /**< atomic: 0 not decided, 1 arena, 2 cl_zalloc/cl_free per object */
} ibal_arena_t;

/** Static initializer of an arena. */
#define IBAL_ARENA_INIT { PTHREAD_MUTEX_INITIALIZER, { NULL }, NULL, NULL, NULL, IBAL_ARENA_FIRST, 0, 0 }

/** Whether a checker of each allocation watches this process (AddressSanitizer,
 * valgrind): then memory kept for reuse would hide its checks (overflows,
 * use after free, leaks), and every object should be its own allocation. */
static inline int ibal_arena_checked(void)
{
#if defined(IBAL_ARENA_ASAN)
	return 1;
#elif defined(IBAL_ARENA_VALGRIND)
	return RUNNING_ON_VALGRIND ? 1 : 0;
#else
	return 0;
#endif
}

/** Whether objects are plain cl_zalloc()/cl_free() here (a sanitizer that checks each). */
static inline int ibal_arena_is_plain(ibal_arena_t *a)
{
	int v = __atomic_load_n(&a->plain, __ATOMIC_RELAXED);

	if (!v) {
		v = ibal_arena_checked() ? 2 : 1;
		__atomic_store_n(&a->plain, v, __ATOMIC_RELAXED);
	}
	return v == 2;
}

/** The size class of an object of @p size bytes (1 to IBAL_ARENA_MAX). */
static inline size_t ibal_arena_class(size_t size)
{
	return size ? (size - 1) / IBAL_ARENA_ALIGN : 0;
}

/*
 * Maps @p len bytes (a multiple of the page size), aligned on @p len and
 * offered for a huge page when it is IBAL_ARENA_HUGE (ibal_mem_map_huge);
 * NULL when the kernel has no room.
 */
static inline void *ibal_arena_map(size_t len)
{
	return len == IBAL_ARENA_HUGE ? ibal_mem_map_huge(len) : ibal_mem_map(len);
}

/*
 * Makes a new current chunk (each has room for the largest object); a->lock
 * held. The unused end of the last one goes to the free list of the largest
 * class it holds.
 */
static inline int ibal_arena_grow(ibal_arena_t *a)
{
	size_t len = a->next_len, rest = a->bump ? (size_t)(a->bump_end - a->bump) : 0;
	char *base = NULL;
	int mapped = 0;
	ibal_arena_chunk_t *c;

	if (a->chunks) {
		size_t pg = ibal_mem_page_size();

		len = (len + pg - 1) & ~(pg - 1);
		if (len > IBAL_ARENA_HUGE / 8)
			len = IBAL_ARENA_HUGE; /* a burst: a huge page at once */
		base = (char *)ibal_arena_map(len);
		if (base) {
			ibal_mem_prefault(base, len);
			mapped = 1;
		}
	}
	if (!base) {
		/* The first chunk, as small as a few objects from malloc are; or
		 * the kernel had no room for a larger one (tried again next time).
		 * Aligned by hand: complib has no aligned allocation. */
		void *m;

		len = IBAL_ARENA_FIRST;
		m = cl_zalloc(len + IBAL_ARENA_ALIGN); /* zeroed, as a mapping is */
		if (!m)
			return 0;
		base = (char *)(((uintptr_t)m + IBAL_ARENA_ALIGN - 1) & ~(uintptr_t)(IBAL_ARENA_ALIGN - 1));
		if (base == (char *)m)
			base += IBAL_ARENA_ALIGN;
		((void **)base)[-1] = m;
	}
	if (rest >= IBAL_ARENA_ALIGN) {
		void **obj = (void **)a->bump;
		size_t k = ibal_arena_class(rest - rest % IBAL_ARENA_ALIGN);

		*obj = a->free_list[k];
		a->free_list[k] = obj;
	}
	c = (ibal_arena_chunk_t *)base;
	c->next = a->chunks;
	c->len = len;
	c->mapped = mapped;
	a->chunks = c;
	a->bump = base + IBAL_ARENA_ALIGN;
	a->bump_end = base + len;
	if ((mapped || !c->next) && len < IBAL_ARENA_HUGE)
		a->next_len = len * 2;
	return 1;
}

/**
 * A zeroed, resident object of @p size bytes (aligned on IBAL_ARENA_ALIGN
 * where it comes from a chunk, as malloc aligns where it is its own), or NULL
 * when memory is short. Put it back with ibal_arena_put() and the same size.
 */
static inline void *ibal_arena_get(ibal_arena_t *a, size_t size)
{
	size_t k, csize;
	void *p;
	int used = 0;

	if (ibal_arena_is_plain(a) || size > IBAL_ARENA_MAX) {
		/* Its own allocation, resident as the arena's objects are. */
		p = cl_zalloc(size ? size : 1);
		ibal_mem_prefault(p, size);
		return p;
	}
	if (__cl_mem_fail_due())
		return NULL;
	k = ibal_arena_class(size);
	csize = (k + 1) * IBAL_ARENA_ALIGN;
	pthread_mutex_lock(&a->lock);
	p = a->free_list[k];
	if (p) {
		a->free_list[k] = *(void **)p;
		used = 1;
	} else if ((a->bump && (size_t)(a->bump_end - a->bump) >= csize) || ibal_arena_grow(a)) {
		p = a->bump;
		a->bump += csize;
	}
	if (p)
		a->out++;
	pthread_mutex_unlock(&a->lock);
	/* A chunk's unused room is zero (a fresh mapping, or cl_zalloc's first
	 * chunk): only an object put back, or a chunk's end put on a free list,
	 * has been written. */
	if (used)
		memset(p, 0, csize);
	return p;
}

/* Frees every chunk; a->lock held, no object out. */
static inline void ibal_arena_free_chunks(ibal_arena_t *a)
{
	ibal_arena_chunk_t *c, *next;

	for (c = a->chunks; c; c = next) {
		next = c->next;
		if (c->mapped)
			munmap(c, c->len);
		else
			cl_free(((void **)c)[-1]);
	}
	a->chunks = NULL;
	memset(a->free_list, 0, sizeof(a->free_list));
	a->bump = a->bump_end = NULL;
	a->next_len = IBAL_ARENA_FIRST;
}

/**
 * Puts back an object of ibal_arena_get() of @p size bytes; NULL does
 * nothing. With the last object out the chunks go.
 */
static inline void ibal_arena_put(ibal_arena_t *a, void *p, size_t size)
{
	size_t k;

	if (!p)
		return;
	if (ibal_arena_is_plain(a) || size > IBAL_ARENA_MAX) {
		cl_free(p);
		return;
	}
	k = ibal_arena_class(size);
	pthread_mutex_lock(&a->lock);
	*(void **)p = a->free_list[k];
	a->free_list[k] = p;
	if (!--a->out)
		ibal_arena_free_chunks(a);
	pthread_mutex_unlock(&a->lock);
}

/** Objects of a class handed out and not put back (0 in the plain mode). */
static inline size_t ibal_arena_out(ibal_arena_t *a)
{
	size_t n;

	pthread_mutex_lock(&a->lock);
	n = a->out;
	pthread_mutex_unlock(&a->lock);
	return n;
}

/** Bytes of the arena's chunks (0 in the plain mode). */
static inline size_t ibal_arena_held(ibal_arena_t *a)
{
	const ibal_arena_chunk_t *c;
	size_t n = 0;

	pthread_mutex_lock(&a->lock);
	for (c = a->chunks; c; c = c->next)
		n += c->len;
	pthread_mutex_unlock(&a->lock);
	return n;
}

#endif /* IBAL_ARENA_H */
