/*
 * ibal: the library's clock readings and the deadlines of its timed waits.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One place for the timespec arithmetic every layer needs: a clock read in
 * nanoseconds, microseconds or milliseconds, and an absolute time for
 * pthread_cond_timedwait() or clock_nanosleep() some microseconds from now.
 * The clock is the caller's: CLOCK_MONOTONIC for the library's own waits
 * (its condition variables are made with it), CLOCK_REALTIME for a condition
 * variable with the default clock, the _COARSE clocks where a precise
 * reading would be a system call (an emulated guest's clock source).
 */
#ifndef IBAL_TIME_H
#define IBAL_TIME_H

#include <stdint.h>
#include <time.h>

#define IBAL_NS_PER_S 1000000000L

/** @return @p clk now, in nanoseconds (0 for a clock the kernel lacks). */
static inline uint64_t ibal_time_ns(clockid_t clk)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** @return @p clk now, in microseconds. */
static inline uint64_t ibal_time_us(clockid_t clk)
{
	return ibal_time_ns(clk) / 1000u;
}

/** @return @p clk now, in milliseconds. */
static inline uint64_t ibal_time_ms(clockid_t clk)
{
	return ibal_time_ns(clk) / 1000000u;
}

/** @return the time @p us microseconds after @p ts, normalised. */
static inline struct timespec ibal_time_add_us(struct timespec ts, uint64_t us)
{
	ts.tv_sec += (time_t)(us / 1000000u);
	ts.tv_nsec += (long)(us % 1000000u) * 1000L;
	if (ts.tv_nsec >= IBAL_NS_PER_S) {
		ts.tv_sec++;
		ts.tv_nsec -= IBAL_NS_PER_S;
	}
	return ts;
}

/** @return the absolute time on @p clk @p us microseconds from now: the
 * deadline of a timed wait on that clock. */
static inline struct timespec ibal_time_after_us(clockid_t clk, uint64_t us)
{
	struct timespec ts = { 0, 0 };

	clock_gettime(clk, &ts);
	return ibal_time_add_us(ts, us);
}

/** @return @p us microseconds (a reading of ibal_time_us()) as a timespec. */
static inline struct timespec ibal_time_of_us(uint64_t us)
{
	struct timespec ts = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };

	return ts;
}

#endif
