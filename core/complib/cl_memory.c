/*
 * ibal complib: allocation and allocation tracking.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Blocks come straight from malloc, tracked or not, so either free variant
 * works on any block. Tracking keeps a side table keyed by address: a hash of
 * singly linked records under one mutex. The table is touched only while
 * tracking is on, so the untracked fast path is one relaxed load and malloc.
 */
#include <pthread.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <complib/cl_memory.h>
#include "cl_internal.h"

#define TRK_BUCKETS 4096u

typedef struct trk_rec {
	struct trk_rec *next;
	const void *addr;
	size_t size;
	const char *file;
	const char *tag;
	int32_t line;
} trk_rec_t;

static pthread_mutex_t trk_lock = PTHREAD_MUTEX_INITIALIZER;
static trk_rec_t **trk_table;   /* TRK_BUCKETS heads while tracking is on */
static size_t trk_count;
static atomic_int trk_on;       /* 1 while tracking */
static int init_depth;

static unsigned trk_hash(const void *p)
{
	uintptr_t v = (uintptr_t)p >> 4;

	v ^= v >> 17;
	v *= 0x9E3779B1u;
	return (unsigned)(v >> 7) & (TRK_BUCKETS - 1);
}

static void trk_add(void *p, size_t size, const char *file, int32_t line, const char *tag)
{
	trk_rec_t *r;
	unsigned b;

	if (!p)
		return;
	/* A caller compiled with CL_TRACK_MEM passes its file name: that alone
	 * starts tracking, as upstream's debug builds do. */
	if (!atomic_load_explicit(&trk_on, memory_order_relaxed) &&
	    (!file || __cl_mem_track(TRUE) != CL_SUCCESS))
		return;
	r = malloc(sizeof(*r));
	if (!r)
		return;	/* tracking is best effort; the allocation itself succeeded */
	r->addr = p;
	r->size = size;
	r->file = file ? file : "(untracked call)";
	r->line = line;
	r->tag = tag;
	b = trk_hash(p);
	pthread_mutex_lock(&trk_lock);
	if (!trk_table) {
		pthread_mutex_unlock(&trk_lock);
		free(r);
		return;
	}
	r->next = trk_table[b];
	trk_table[b] = r;
	trk_count++;
	pthread_mutex_unlock(&trk_lock);
}

static void trk_remove(const void *p)
{
	trk_rec_t **pp, *r = NULL;

	if (!atomic_load_explicit(&trk_on, memory_order_relaxed))
		return;
	pthread_mutex_lock(&trk_lock);
	if (trk_table) {
		for (pp = &trk_table[trk_hash(p)]; *pp; pp = &(*pp)->next) {
			if ((*pp)->addr == p) {
				r = *pp;
				*pp = r->next;
				trk_count--;
				break;
			}
		}
	}
	pthread_mutex_unlock(&trk_lock);
	free(r);
}

static void display_locked(void)
{
	unsigned b;
	trk_rec_t *r;

	cl_out_printf("complib: %zu tracked allocation(s) live\n", trk_count);
	for (b = 0; trk_table && b < TRK_BUCKETS; b++)
		for (r = trk_table[b]; r; r = r->next)
			cl_out_printf("complib:   %p %zu bytes at %s:%d%s%s\n", r->addr, r->size,
				      r->file, (int)r->line, r->tag ? " tag " : "",
				      r->tag ? r->tag : "");
}

cl_status_t __cl_mem_track(const boolean_t start)
{
	trk_rec_t **old = NULL;
	unsigned b;

	pthread_mutex_lock(&trk_lock);
	if (start && !trk_table) {
		trk_table = calloc(TRK_BUCKETS, sizeof(*trk_table));
		if (!trk_table) {
			pthread_mutex_unlock(&trk_lock);
			return CL_INSUFFICIENT_MEMORY;
		}
		trk_count = 0;
		atomic_store(&trk_on, 1);
	} else if (!start && trk_table) {
		if (trk_count)
			display_locked();
		atomic_store(&trk_on, 0);
		old = trk_table;
		trk_table = NULL;
		trk_count = 0;
	}
	pthread_mutex_unlock(&trk_lock);
	for (b = 0; old && b < TRK_BUCKETS; b++) {
		while (old[b]) {
			trk_rec_t *r = old[b];

			old[b] = r->next;
			free(r);
		}
	}
	free(old);
	return CL_SUCCESS;
}

void cl_mem_display(void)
{
	pthread_mutex_lock(&trk_lock);
	if (trk_table)
		display_locked();
	else
		cl_out_printf("complib: memory tracking is off\n");
	pthread_mutex_unlock(&trk_lock);
}

size_t cl_mem_track_count(void)
{
	size_t n;

	pthread_mutex_lock(&trk_lock);
	n = trk_count;
	pthread_mutex_unlock(&trk_lock);
	return n;
}

cl_status_t _cl_init(void)
{
	const char *env = getenv("CL_MEM_TRACK");
	int first;

	pthread_mutex_lock(&trk_lock);
	first = (init_depth++ == 0);
	pthread_mutex_unlock(&trk_lock);
	if (first && env && env[0] && env[0] != '0')
		return __cl_mem_track(TRUE);
	return CL_SUCCESS;
}

void _cl_deinit(void)
{
	int last;

	pthread_mutex_lock(&trk_lock);
	last = (init_depth > 0 && --init_depth == 0);
	pthread_mutex_unlock(&trk_lock);
	if (last && atomic_load(&trk_on))
		__cl_mem_track(FALSE);	/* lists what is still allocated */
}

__attribute__((constructor)) static void cl_memory_ctor(void)
{
	_cl_init();
}

__attribute__((destructor)) static void cl_memory_dtor(void)
{
	_cl_deinit();
}

/* __cl_mem_fail_nth: allocations of this thread before the failure (0: none
 * asked), and whether the last one asked for was made. */
static __thread uint32_t fail_countdown;
static __thread boolean_t fail_made;

boolean_t __cl_mem_fail_nth(const uint32_t nth)
{
	boolean_t made = fail_made;

	fail_countdown = nth;
	fail_made = FALSE;
	return made;
}

/* Whether this allocation is the one to fail. */
static boolean_t fail_now(void)
{
	if (!fail_countdown || --fail_countdown)
		return FALSE;
	fail_made = TRUE;
	return TRUE;
}

boolean_t __cl_mem_fail_due(void)
{
	return fail_now();
}

void *__cl_malloc_trk_ex(const char *const file, const int32_t line, const size_t size,
			 const boolean_t pageable, const char *tag)
{
	void *p = fail_now() ? NULL : malloc(size ? size : 1);

	(void)pageable;
	trk_add(p, size, file, line, tag);
	return p;
}

void *__cl_zalloc_trk_ex(const char *const file, const int32_t line, const size_t size,
			 const boolean_t pageable, const char *tag)
{
	void *p = fail_now() ? NULL : calloc(1, size ? size : 1);

	(void)pageable;
	trk_add(p, size, file, line, tag);
	return p;
}

void *__cl_malloc_trk(const char *const file, const int32_t line, const size_t bytes,
		      const boolean_t pageable)
{
	return __cl_malloc_trk_ex(file, line, bytes, pageable, NULL);
}

void *__cl_zalloc_trk(const char *const file, const int32_t line, const size_t bytes,
		      const boolean_t pageable)
{
	return __cl_zalloc_trk_ex(file, line, bytes, pageable, NULL);
}

void *__cl_malloc_ntrk(const size_t size, const boolean_t pageable)
{
	return __cl_malloc_trk_ex(NULL, 0, size, pageable, NULL);
}

void *__cl_zalloc_ntrk(const size_t bytes, const boolean_t pageable)
{
	return __cl_zalloc_trk_ex(NULL, 0, bytes, pageable, NULL);
}

void __cl_free_trk(void *const p_memory)
{
	if (!p_memory)
		return;
	trk_remove(p_memory);
	free(p_memory);
}

void __cl_free_ntrk(void *const p_memory)
{
	__cl_free_trk(p_memory);
}
