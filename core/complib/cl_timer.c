/*
 * ibal complib: one-shot timers served by a single shared timer thread.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Pending timers sit on one list in deadline order (ties keep start order)
 * under the provider lock. The timer thread sleeps on a CLOCK_MONOTONIC
 * condition variable until the head's deadline, unlinks the head, records
 * it as `running` and calls its callback with no lock held. After the
 * callback it only compares pointers against `running`, never touches the
 * timer again, because the callback may have destroyed and freed it.
 *
 * The thread exists while at least one timer is initialized (`users`).
 * When the last timer is destroyed the thread exits; an ordinary caller
 * joins it at once, while a timer callback cannot join its own thread and
 * leaves it as a zombie that the next cl_timer_init or the library
 * destructor joins. A timer initialized while that destroy waits for the
 * thread to end keeps the thread serving, and wakes the destroy, which
 * then returns without joining.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <complib/cl_timer.h>
#include "ibal_time.h"

#define NS_PER_US 1000u
#define NS_PER_SEC 1000000000u

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;   /* timer thread sleeps here; CLOCK_MONOTONIC */
	pthread_cond_t idle;   /* broadcast after each callback and at thread exit */
	cl_timer_t *head;      /* pending timers, earliest first */
	cl_timer_t *tail;
	const cl_timer_t *running; /* timer whose callback runs now, or NULL */
	unsigned users;        /* initialized timers */
	boolean_t alive;       /* the thread serves the list */
	boolean_t zombie;      /* the thread exited and awaits pthread_join */
	pthread_t thread;
} prov = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.idle = PTHREAD_COND_INITIALIZER,
};
static pthread_once_t prov_once = PTHREAD_ONCE_INIT;
static int prov_setup_rc;

static uint64_t now_ns(void)
{
	return ibal_time_ns(CLOCK_MONOTONIC);
}

uint64_t cl_get_time_stamp(void)
{
	return now_ns() / NS_PER_US;
}

uint32_t cl_get_time_stamp_sec(void)
{
	return (uint32_t)(now_ns() / NS_PER_SEC);
}

uint64_t cl_get_tick_count(void)
{
	return now_ns();
}

uint64_t cl_get_tick_freq(void)
{
	return NS_PER_SEC;
}

/* Deadline in microseconds, rounded up so that it is never early. */
static uint64_t deadline_after_ms(uint32_t time_ms)
{
	uint64_t us = (now_ns() + (uint64_t)time_ms * 1000000u + NS_PER_US - 1) / NS_PER_US;

	return us ? us : 1;	/* 0 means "not pending" */
}

static void prov_setup(void)
{
	pthread_condattr_t attr;

	prov_setup_rc = pthread_condattr_init(&attr);
	if (prov_setup_rc)
		return;
	prov_setup_rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (!prov_setup_rc)
		prov_setup_rc = pthread_cond_init(&prov.wake, &attr);
	pthread_condattr_destroy(&attr);
}

/* List operations; the caller holds prov.lock. */
static void list_remove(cl_timer_t *t)
{
	if (t->p_prev)
		t->p_prev->p_next = t->p_next;
	else
		prov.head = t->p_next;
	if (t->p_next)
		t->p_next->p_prev = t->p_prev;
	else
		prov.tail = t->p_prev;
	t->p_next = t->p_prev = NULL;
	t->timeout_time = 0;
}

static void list_insert(cl_timer_t *t, uint64_t deadline)
{
	cl_timer_t *after = prov.tail;

	while (after && after->timeout_time > deadline)
		after = after->p_prev;
	t->timeout_time = deadline;
	t->p_prev = after;
	t->p_next = after ? after->p_next : prov.head;
	if (t->p_next)
		t->p_next->p_prev = t;
	else
		prov.tail = t;
	if (after)
		after->p_next = t;
	else
		prov.head = t;
	if (prov.head == t)
		pthread_cond_signal(&prov.wake);	/* earlier than what the thread waits for */
}

static void run_head(cl_timer_t *t)
{
	cl_pfn_timer_callback_t pfn = t->pfn_callback;
	void *context = (void *)t->context;

	list_remove(t);
	prov.running = t;
	pthread_mutex_unlock(&prov.lock);
	pfn(context);
	pthread_mutex_lock(&prov.lock);
	prov.running = NULL;
	pthread_cond_broadcast(&prov.idle);
}

static void *timer_thread(void *arg)
{
	struct timespec ts;
	cl_timer_t *t;
	uint64_t due_ns;

	(void)arg;
	pthread_setname_np(pthread_self(), "cl_timer");
	pthread_mutex_lock(&prov.lock);
	while (prov.users) {
		t = prov.head;
		if (!t) {
			pthread_cond_wait(&prov.wake, &prov.lock);
			continue;
		}
		due_ns = t->timeout_time * NS_PER_US;
		if (now_ns() < due_ns) {
			ts = ibal_time_of_us(t->timeout_time);
			pthread_cond_timedwait(&prov.wake, &prov.lock, &ts);
			continue;
		}
		run_head(t);
	}
	prov.alive = FALSE;
	prov.zombie = TRUE;
	pthread_cond_broadcast(&prov.idle);
	pthread_mutex_unlock(&prov.lock);
	return NULL;
}

/* Joins an exited timer thread; the caller holds prov.lock, which the
 * exited thread no longer needs. */
static void reap_zombie(void)
{
	if (prov.zombie && !prov.alive) {
		pthread_join(prov.thread, NULL);
		prov.zombie = FALSE;
	}
}

/* Starts the timer thread with all signals blocked, so that the
 * application's signal handlers never run on it. */
static int start_thread(void)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&prov.thread, NULL, timer_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static boolean_t on_timer_thread(void)
{
	return prov.alive && pthread_equal(pthread_self(), prov.thread);
}

__attribute__((destructor)) static void prov_fini(void)
{
	pthread_mutex_lock(&prov.lock);
	if (!on_timer_thread())
		reap_zombie();
	pthread_mutex_unlock(&prov.lock);
}

void cl_timer_construct(cl_timer_t *const p_timer)
{
	CL_ASSERT(p_timer);
	p_timer->p_next = p_timer->p_prev = NULL;
	p_timer->pfn_callback = NULL;
	p_timer->context = NULL;
	p_timer->timeout_time = 0;
	p_timer->state = CL_UNINITIALIZED;
}

cl_status_t cl_timer_init(cl_timer_t *const p_timer, cl_pfn_timer_callback_t pfn_callback,
			  const void *const context)
{
	if (!p_timer)
		return CL_INVALID_PARAMETER;
	cl_timer_construct(p_timer);
	if (!pfn_callback)
		return CL_INVALID_PARAMETER;
	p_timer->pfn_callback = pfn_callback;
	p_timer->context = context;
	pthread_once(&prov_once, prov_setup);
	if (prov_setup_rc)
		return CL_ERROR;
	pthread_mutex_lock(&prov.lock);
	if (!prov.alive) {
		reap_zombie();
		if (start_thread()) {
			pthread_mutex_unlock(&prov.lock);
			return CL_ERROR;
		}
		prov.alive = TRUE;
	}
	/* A destroy that took the count to 0 may be waiting for the thread
	 * to end: it serves on now, and that destroy must stop waiting. */
	if (!prov.users++)
		pthread_cond_broadcast(&prov.idle);
	p_timer->state = CL_INITIALIZED;
	pthread_mutex_unlock(&prov.lock);
	return CL_SUCCESS;
}

void cl_timer_destroy(cl_timer_t *const p_timer)
{
	boolean_t in_callback;

	CL_ASSERT(p_timer);
	pthread_mutex_lock(&prov.lock);
	if (p_timer->state != CL_INITIALIZED) {
		pthread_mutex_unlock(&prov.lock);
		return;
	}
	/* Refuse restarts from a callback that is still running. */
	p_timer->state = CL_DESTROYING;
	if (p_timer->timeout_time)
		list_remove(p_timer);
	in_callback = on_timer_thread();
	while (!in_callback && prov.running == p_timer)
		pthread_cond_wait(&prov.idle, &prov.lock);
	p_timer->state = CL_UNINITIALIZED;
	if (--prov.users == 0) {
		pthread_cond_signal(&prov.wake);
		if (!in_callback) {
			while (prov.alive && !prov.users)
				pthread_cond_wait(&prov.idle, &prov.lock);
			reap_zombie();
		}
	}
	pthread_mutex_unlock(&prov.lock);
}

cl_status_t cl_timer_start(cl_timer_t *const p_timer, const uint32_t time_ms)
{
	uint64_t deadline = deadline_after_ms(time_ms);

	CL_ASSERT(p_timer);
	pthread_mutex_lock(&prov.lock);
	if (p_timer->state != CL_INITIALIZED) {
		pthread_mutex_unlock(&prov.lock);
		return CL_ERROR;
	}
	if (p_timer->timeout_time)
		list_remove(p_timer);
	list_insert(p_timer, deadline);
	pthread_mutex_unlock(&prov.lock);
	return CL_SUCCESS;
}

cl_status_t cl_timer_trim(cl_timer_t *const p_timer, const uint32_t time_ms)
{
	uint64_t deadline = deadline_after_ms(time_ms);

	CL_ASSERT(p_timer);
	pthread_mutex_lock(&prov.lock);
	if (p_timer->state != CL_INITIALIZED) {
		pthread_mutex_unlock(&prov.lock);
		return CL_ERROR;
	}
	if (!p_timer->timeout_time || deadline < p_timer->timeout_time) {
		if (p_timer->timeout_time)
			list_remove(p_timer);
		list_insert(p_timer, deadline);
	}
	pthread_mutex_unlock(&prov.lock);
	return CL_SUCCESS;
}

void cl_timer_stop(cl_timer_t *const p_timer)
{
	CL_ASSERT(p_timer);
	pthread_mutex_lock(&prov.lock);
	if (p_timer->state == CL_INITIALIZED && p_timer->timeout_time)
		list_remove(p_timer);
	pthread_mutex_unlock(&prov.lock);
}
