/*
 * ibal complib: events on a futex word with CLOCK_MONOTONIC timeouts.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * `signaled` is the futex word (0 or 1). A waiter first counts itself in
 * `waiters`, then rechecks the word and sleeps only while it is 0; a
 * signaller sets the word and wakes sleepers only if `waiters` is non-zero.
 * Both sides use sequentially consistent operations, so either the waiter
 * sees the new word or the signaller sees the waiter. A waiter always
 * rechecks the word before reporting a timeout or an interruption, so a
 * wake-up given to a leaving waiter is never lost: the state it announced
 * stays in the word for the next waiter.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/futex.h>
#include <complib/cl_event.h>

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
 * manual-reset. TRUE if the event was signalled. */
static boolean_t try_take(cl_event_t *ev)
{
	int32_t one = 1;

	if (ev->manual_reset)
		return __atomic_load_n(&ev->signaled, __ATOMIC_SEQ_CST) == 1;
	return __atomic_compare_exchange_n(&ev->signaled, &one, 0, 0, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

static void deadline_after_us(struct timespec *ts, uint32_t us)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += us / 1000000u;
	ts->tv_nsec += (long)(us % 1000000u) * 1000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
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
	CL_ASSERT(!p_event->waiters);
	p_event->state = CL_UNINITIALIZED;
}

cl_status_t cl_event_signal(cl_event_t *const p_event)
{
	if (!p_event || p_event->state != CL_INITIALIZED)
		return CL_ERROR;
	if (__atomic_exchange_n(&p_event->signaled, 1, __ATOMIC_SEQ_CST) == 0 &&
	    __atomic_load_n(&p_event->waiters, __ATOMIC_SEQ_CST) > 0)
		futex_wake(&p_event->signaled, p_event->manual_reset ? INT_MAX : 1);
	return CL_SUCCESS;
}

cl_status_t cl_event_reset(cl_event_t *const p_event)
{
	if (!p_event || p_event->state != CL_INITIALIZED)
		return CL_ERROR;
	__atomic_store_n(&p_event->signaled, 0, __ATOMIC_SEQ_CST);
	return CL_SUCCESS;
}

/* The sleeping part of cl_event_wait_on; the caller is counted in waiters. */
static cl_status_t wait_slow(cl_event_t *ev, const struct timespec *abs, boolean_t interruptible)
{
	for (;;) {
		if (try_take(ev))
			return CL_SUCCESS;
		if (futex_wait_until(&ev->signaled, 0, abs) == 0)
			continue;
		switch (errno) {
		case EAGAIN:
			continue;
		case EINTR:
			if (!interruptible)
				continue;
			return try_take(ev) ? CL_SUCCESS : CL_NOT_DONE;
		case ETIMEDOUT:
			return try_take(ev) ? CL_SUCCESS : CL_TIMEOUT;
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

	if (!p_event || p_event->state != CL_INITIALIZED)
		return CL_ERROR;
	if (try_take(p_event))
		return CL_SUCCESS;
	if (!wait_us)
		return CL_TIMEOUT;
	if (wait_us != EVENT_NO_TIMEOUT)
		deadline_after_us(&abs, wait_us);
	__atomic_add_fetch(&p_event->waiters, 1, __ATOMIC_SEQ_CST);
	status = wait_slow(p_event, wait_us == EVENT_NO_TIMEOUT ? NULL : &abs, interruptible);
	__atomic_sub_fetch(&p_event->waiters, 1, __ATOMIC_SEQ_CST);
	return status;
}
