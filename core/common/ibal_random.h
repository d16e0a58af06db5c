/*
 * ibal internal: unpredictable identifiers (CM comm IDs, PSNs, TIDs).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Identifiers a peer must not guess (a spoofed DREQ needs the connection's
 * comm IDs, a spoofed response its TID) come from the kernel's generator,
 * getrandom(2), without blocking, drawn 32 at a time per thread. Early in boot, before the kernel's pool
 * is ready, getrandom fails with EAGAIN: the identifier then comes from
 * the clock, the process and a counter, mixed (unique, not secret), and
 * the log says so once per process. Private to the library's sources;
 * every folder of core/ may include it.
 */
#ifndef IBAL_RANDOM_H
#define IBAL_RANDOM_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>
#include "ibal_log.h"
#include "ibal_time.h"

/* A 64-bit finalizer (splitmix64's): every input bit reaches every output bit. */
static inline uint64_t ibal_random_mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The fallback when the kernel's generator is not ready. */
static inline uint64_t ibal_random_fallback(void)
{
	static uint64_t counter;  /* atomic */
	static int warned;        /* atomic */
	uint64_t n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		IBAL_WARN(IBAL_SUB_AL, "getrandom: %s; identifiers (CM comm IDs, PSNs, TIDs) are "
			  "unique but predictable in this process", strerror(errno));
	return ibal_random_mix(ibal_time_ns(CLOCK_MONOTONIC) ^
			       ((uint64_t)getpid() << 40) ^ (n * 0x9e3779b97f4a7c15ull));
}

/* Values taken from the kernel per getrandom(2) call, kept per thread: a
 * system call per 32 identifiers instead of one each (two per connection
 * in the CM). A forked child draws afresh (ibal_random_forks). */
#define IBAL_RANDOM_BATCH 32

typedef struct ibal_random_cache {
	uint64_t v[IBAL_RANDOM_BATCH];
	uint32_t left;              /* values of v not handed out yet (the last ones) */
	uint32_t forks;             /* ibal_random_forks when v was filled */
} ibal_random_cache_t;

/* Per translation unit, as everything here: forks seen in this process. */
static uint32_t ibal_random_forks;  /* atomic */
static pthread_once_t ibal_random_once = PTHREAD_ONCE_INIT;
static __thread ibal_random_cache_t ibal_random_tls;

static inline void ibal_random_child(void)
{
	__atomic_add_fetch(&ibal_random_forks, 1, __ATOMIC_RELAXED);
}

static inline void ibal_random_init(void)
{
	pthread_atfork(NULL, NULL, ibal_random_child);
}

/** 64 random bits from the kernel's generator (see the file's comment). */
static inline uint64_t ibal_random64(void)
{
	ibal_random_cache_t *c = &ibal_random_tls;
	uint32_t forks;
	ssize_t r;

	pthread_once(&ibal_random_once, ibal_random_init);
	forks = __atomic_load_n(&ibal_random_forks, __ATOMIC_RELAXED);
	if (c->left && c->forks == forks)
		return c->v[--c->left];
	do
		r = getrandom(c->v, sizeof(c->v), GRND_NONBLOCK);
	while (r < 0 && errno == EINTR);
	if (r != (ssize_t)sizeof(c->v)) {
		c->left = 0;
		return ibal_random_fallback();
	}
	c->forks = forks;
	c->left = IBAL_RANDOM_BATCH - 1;
	return c->v[IBAL_RANDOM_BATCH - 1];
}

/** 32 random bits. */
static inline uint32_t ibal_random32(void)
{
	return (uint32_t)ibal_random64();
}

#endif /* IBAL_RANDOM_H */
