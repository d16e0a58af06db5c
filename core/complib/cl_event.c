/*
 * ibal complib: events on a futex word with CLOCK_MONOTONIC timeouts.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The word holds the signalled bit (bit 0) and the number of waiters
 * (the rest, counted in steps of WAITER). A waiter first counts itself,
 * then sleeps only while the word it last read has bit 0 clear; the futex
 * call compares the whole word, so any change (a signal, another waiter
 * arriving or leaving) makes it return and look again. A signaller sets
 * bit 0 with one atomic OR and, if the old word had bit 0 clear and
 * waiters, wakes them by address: after that OR it never touches the
 * event's memory again, because a released waiter may already have freed
 * it (a wake-up on a stale private futex address is harmless). A waiter
 * always rechecks the word before reporting a timeout or an interruption,
 * so the signalled state is never lost with a wake-up given to a thread
 * that is leaving.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <complib/cl_event.h>
#include "ibal_time.h"

#define SIGNALED 1
#define WAITER 2

static int futex_wait_until(volatile int32_t *addr, int32_t val, const struct timespec *abs)
{
	/* FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline. */
	return (int)syscall(SYS_futex, addr, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, val,
			    abs, NULL, FUTEX_BITSET_MATCH_ANY);
}

static void futex_wake(volatile int32_t *addr, int count)
{
	syscall(SYS_futex, addr, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, NULL, 0);
}

/* Takes the signalled state: consumes it for auto-reset, observes it for
 * manual-reset. TRUE if the event was signalled. *p_word receives the last
 * word read. */
static boolean_t try_take(cl_event_t *ev, int32_t *p_word)
{
	int32_t w = __atomic_load_n(&ev->word, __ATOMIC_SEQ_CST);

	while (w & SIGNALED) {
		if (ev->manual_reset)
			return TRUE;
		if (__atomic_compare_exchange_n(&ev->word, &w, w & ~SIGNALED, 0,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return TRUE;
	}
	*p_word = w;
	return FALSE;
}

cl_status_t cl_event_init(cl_event_t *const p_event, const boolean_t manual_reset)
{
	CL_ASSERT(p_event);
	cl_event_construct(p_event);
	p_event->manual_reset = manual_reset ? TRUE : FALSE;
	p_event->state = CL_INITIALIZED;
	return CL_SUCCESS;
}

void cl_event_destroy(cl_event_t *const p_event)
{
	CL_ASSERT(p_event);
	CL_ASSERT(cl_is_state_valid(p_event->state));
	CL_ASSERT(p_event->word < WAITER);
	p_event->state = CL_UNINITIALIZED;
}

cl_status_t cl_event_signal(cl_event_t *const p_event)
{
	volatile int32_t *addr;
	int32_t old;
	int count;

	if (!p_event || p_event->state != CL_INITIALIZED)
		return CL_ERROR;
	addr = &p_event->word;
	count = p_event->manual_reset ? INT_MAX : 1;
	old = __atomic_fetch_or(addr, SIGNALED, __ATOMIC_SEQ_CST);
	/* From here on the event may be gone: use only the saved values. */
	if (!(old & SIGNALED) && old >= WAITER)
		futex_wake(addr, count);
	return CL_SUCCESS;
}

cl_status_t cl_event_reset(cl_event_t *const p_event)
{
	if (!p_event || p_event->state != CL_INITIALIZED)
		return CL_ERROR;
	__atomic_fetch_and(&p_event->word, ~SIGNALED, __ATOMIC_SEQ_CST);
	return CL_SUCCESS;
}

/* The sleeping part of cl_event_wait_on; the caller is counted as a waiter. */
static cl_status_t wait_slow(cl_event_t *ev, const struct timespec *abs, boolean_t interruptible)
{
	int32_t w;

	for (;;) {
		if (try_take(ev, &w))
			return CL_SUCCESS;
		if (futex_wait_until(&ev->word, w, abs) == 0)
			continue;
		switch (errno) {
		case EAGAIN:
			continue;
		case EINTR:
			if (!interruptible)
				continue;
			return try_take(ev, &w) ? CL_SUCCESS : CL_NOT_DONE;
		case ETIMEDOUT:
			return try_take(ev, &w) ? CL_SUCCESS : CL_TIMEOUT;
		default:
			return CL_ERROR;
		}
	}
}

cl_status_t cl_event_wait_on(cl_event_t *const p_event, const uint32_t wait_us,
			     const boolean_t interruptible)
{
	struct timespec abs;
	cl_status_t status;
	int32_t w;

	if (!p_event || p_event->state != CL_INITIALIZED)
		return CL_ERROR;
	if (try_take(p_event, &w))
		return CL_SUCCESS;
	if (!wait_us)
		return CL_TIMEOUT;
	if (wait_us != EVENT_NO_TIMEOUT)
		abs = ibal_time_after_us(CLOCK_MONOTONIC, wait_us);
	__atomic_add_fetch(&p_event->word, WAITER, __ATOMIC_SEQ_CST);
	status = wait_slow(p_event, wait_us == EVENT_NO_TIMEOUT ? NULL : &abs, interruptible);
	__atomic_sub_fetch(&p_event->word, WAITER, __ATOMIC_SEQ_CST);
	return status;
}
