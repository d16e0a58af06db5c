/*
 * ibal internal: unpredictable identifiers (CM comm IDs, PSNs, TIDs).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Identifiers a peer must not guess (a spoofed DREQ needs the connection's
 * comm IDs, a spoofed response its TID) come from the kernel's generator,
 * getrandom(2), without blocking. Early in boot, before the kernel's pool
 * is ready, getrandom fails with EAGAIN: the identifier then comes from
 * the clock, the process and a counter, mixed (unique, not secret), and
 * the log says so once per process. Private to the library's sources;
 * every folder of core/ may include it.
 */
#ifndef IBAL_RANDOM_H
#define IBAL_RANDOM_H

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <sys/random.h>
#include <sys/types.h>
#include <unistd.h>
#include "ibal_log.h"

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
	struct timespec ts;
	uint64_t n = __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED);

	if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
		IBAL_WARN(IBAL_SUB_AL, "getrandom: %s; identifiers (CM comm IDs, PSNs, TIDs) are "
			  "unique but predictable in this process", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ibal_random_mix(((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^
			       ((uint64_t)getpid() << 40) ^ (n * 0x9e3779b97f4a7c15ull));
}

/** 64 random bits from the kernel's generator (see the file's comment). */
static inline uint64_t ibal_random64(void)
{
	uint64_t v;
	ssize_t r;

	do
		r = getrandom(&v, sizeof(v), GRND_NONBLOCK);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)sizeof(v) ? v : ibal_random_fallback();
}

/** 32 random bits. */
static inline uint32_t ibal_random32(void)
{
	return (uint32_t)ibal_random64();
}

#endif /* IBAL_RANDOM_H */
