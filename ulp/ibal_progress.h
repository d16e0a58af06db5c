/*
 * ibal tools: a progress line on a terminal for long-running tools and benchmarks.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ibal_progress.h
 * @brief One line on standard error, rewritten in place ("connecting: 420/1000
 * (42%), 1.3 s"), while a tool works through something long, and erased
 * when it is done, so that what the tool prints on standard output (its
 * results, a table, JSON) is never mixed with it.
 *
 * Shown only when standard error is a terminal; `IBAL_PROGRESS=0` never
 * shows it, `IBAL_PROGRESS=1` always does, from the start (tests). Updates
 * are throttled to ten a second; on a terminal the first waits half a
 * second, so that quick runs print nothing. Call it between measurements, never inside a timed loop.
 * Not thread-safe: one thread shows progress.
 */
#ifndef IBAL_PROGRESS_H
#define IBAL_PROGRESS_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/** Progress of one tool. */
typedef struct ibal_progress {
	int on;            /**< Shown at all. */
	int shown;         /**< A line is on the terminal now. */
	uint64_t start_ns; /**< When the tool began (ibal_progress_init). */
	uint64_t next_ns;  /**< No update before then. */
} ibal_progress_t;

static inline uint64_t ibal_progress_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/** Decides whether progress is shown (terminal, IBAL_PROGRESS) and starts the clock. */
static inline void ibal_progress_init(ibal_progress_t *p)
{
	const char *env = getenv("IBAL_PROGRESS");

	memset(p, 0, sizeof(*p));
	p->start_ns = ibal_progress_now();
	p->next_ns = p->start_ns + 500000000u;
	if (env && *env) {
		p->on = strcmp(env, "0") != 0;
		p->next_ns = p->start_ns; /* forced: from the start */
	} else {
		p->on = isatty(STDERR_FILENO);
	}
}

/**
 * Shows "@p what: @p done/@p total (percent), seconds" (total 0: no total
 * known: "@p what: @p done, seconds"; both 0: "@p what, seconds"), at most
 * ten times a second.
 */
static inline void ibal_progress_show(ibal_progress_t *p, const char *what, uint64_t done,
				      uint64_t total)
{
	uint64_t now;
	double s;

	if (!p->on)
		return;
	now = ibal_progress_now();
	if (now < p->next_ns)
		return;
	p->next_ns = now + 100000000u;
	s = (double)(now - p->start_ns) / 1e9;
	if (total)
		fprintf(stderr, "\r\033[K%s: %llu/%llu (%u%%), %.1f s", what, (unsigned long long)done,
			(unsigned long long)total,
			(unsigned)(done >= total ? 100 : done * 100 / total), s);
	else if (done)
		fprintf(stderr, "\r\033[K%s: %llu, %.1f s", what, (unsigned long long)done, s);
	else
		fprintf(stderr, "\r\033[K%s, %.1f s", what, s);
	fflush(stderr);
	p->shown = 1;
}

/** Erases the line, if one is shown (before the tool prints its results). */
static inline void ibal_progress_clear(ibal_progress_t *p)
{
	if (!p->shown)
		return;
	fputs("\r\033[K", stderr);
	fflush(stderr);
	p->shown = 0;
}

#endif /* IBAL_PROGRESS_H */
