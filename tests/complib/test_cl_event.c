/*
 * ibal tests: cl_event.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <complib/cl_event.h>
#include <complib/cl_atomic.h>
#include "../common/cl_test.h"

#define WAITERS 4

static void test_construct_destroy(void)
{
	cl_event_t ev;

	cl_event_construct(&ev);
	cl_event_destroy(&ev);	/* allowed without init */
	cl_event_construct(&ev);
	/* Operations on an event that is not initialized fail. */
	CU_ASSERT_EQUAL(cl_event_signal(&ev), CL_ERROR);
	CU_ASSERT_EQUAL(cl_event_reset(&ev), CL_ERROR);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_ERROR);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, EVENT_NO_TIMEOUT, FALSE), CL_ERROR);
	CU_ASSERT_EQUAL(cl_event_wait_on(NULL, 0, FALSE), CL_ERROR);
	CU_ASSERT_EQUAL(cl_event_signal(NULL), CL_ERROR);
	CU_ASSERT_EQUAL(cl_event_init(&ev, TRUE), CL_SUCCESS);
	cl_event_destroy(&ev);
	CU_ASSERT_EQUAL(cl_event_signal(&ev), CL_ERROR);	/* destroyed */
}

static void test_initially_reset(void)
{
	cl_event_t ev;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	cl_event_destroy(&ev);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	cl_event_destroy(&ev);
}

static void test_auto_reset(void)
{
	cl_event_t ev;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_signal(&ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);	/* consumed */
	/* Signals do not accumulate. */
	CU_ASSERT_EQUAL(cl_event_signal(&ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_signal(&ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 1000, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	/* Reset clears a pending signal. */
	cl_event_signal(&ev);
	CU_ASSERT_EQUAL(cl_event_reset(&ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	CU_ASSERT_EQUAL(cl_event_reset(&ev), CL_SUCCESS);	/* reset twice is fine */
	cl_event_destroy(&ev);
}

static void test_manual_reset(void)
{
	cl_event_t ev;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, TRUE), CL_SUCCESS);
	cl_event_signal(&ev);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_SUCCESS);	/* stays signalled */
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, EVENT_NO_TIMEOUT, TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_reset(&ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	cl_event_destroy(&ev);
}

static void test_timeout_accuracy(void)
{
	cl_event_t ev;
	uint64_t start, took;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	start = test_now_ms();
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 60000, FALSE), CL_TIMEOUT);
	took = test_now_ms() - start;
	CU_ASSERT(took >= 59);	/* test_now_ms truncates; allow 1 ms */
	CU_ASSERT(took < 60 + 5000);
	/* A short timeout under one millisecond still waits and times out. */
	start = test_now_ms();
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 300, TRUE), CL_TIMEOUT);
	CU_ASSERT(test_now_ms() - start < 5000);
	cl_event_destroy(&ev);
}

typedef struct {
	cl_event_t *ev;
	uint32_t wait_us;
	boolean_t interruptible;
	cl_status_t status;
	uint64_t took_ms;
	cl_event_t *done;
	atomic32_t *released;
} waiter_t;

static void *wait_thread(void *arg)
{
	waiter_t *w = (waiter_t *)arg;
	uint64_t start = test_now_ms();

	w->status = cl_event_wait_on(w->ev, w->wait_us, w->interruptible);
	w->took_ms = test_now_ms() - start;
	if (w->released)
		cl_atomic_inc(w->released);
	if (w->done)
		cl_event_signal(w->done);
	return NULL;
}

static void test_wakes_blocked_waiter(void)
{
	cl_event_t ev, done;
	waiter_t w = { &ev, EVENT_NO_TIMEOUT, FALSE, CL_ERROR, 0, &done, NULL };
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&done, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &w), 0);
	/* The waiter stays blocked until the signal. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&done, 30000, FALSE), CL_TIMEOUT);
	CU_ASSERT_EQUAL(cl_event_signal(&ev), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_event_wait_on(&done, TEST_WAIT_US, FALSE), CL_SUCCESS);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(w.status, CL_SUCCESS);
	/* The waiter consumed the auto-reset signal. */
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	cl_event_destroy(&done);
	cl_event_destroy(&ev);
}

/* Waits until *count reaches want, polling an event as the clock. */
static int32_t wait_count(atomic32_t *count, int32_t want, cl_event_t *tick)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;

	while (cl_atomic_add(count, 0) < want && test_now_ms() < end)
		cl_event_wait_on(tick, 10000, FALSE);
	return cl_atomic_add(count, 0);
}

static void test_manual_reset_releases_all(void)
{
	cl_event_t ev, tick;
	waiter_t w[WAITERS];
	pthread_t t[WAITERS];
	atomic32_t released = 0;
	int i;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&tick, FALSE), CL_SUCCESS);
	for (i = 0; i < WAITERS; i++) {
		w[i] = (waiter_t){ &ev, TEST_WAIT_US, FALSE, CL_ERROR, 0, &tick, &released };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, wait_thread, &w[i]), 0);
	}
	cl_event_signal(&ev);
	CU_ASSERT_EQUAL(wait_count(&released, WAITERS, &tick), WAITERS);
	for (i = 0; i < WAITERS; i++) {
		pthread_join(t[i], NULL);
		CU_ASSERT_EQUAL(w[i].status, CL_SUCCESS);
	}
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_SUCCESS);	/* still signalled */
	cl_event_destroy(&tick);
	cl_event_destroy(&ev);
}

static void test_auto_reset_releases_one_per_signal(void)
{
	cl_event_t ev, tick;
	waiter_t w[WAITERS];
	pthread_t t[WAITERS];
	atomic32_t released = 0;
	int i;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&tick, FALSE), CL_SUCCESS);
	for (i = 0; i < WAITERS; i++) {
		w[i] = (waiter_t){ &ev, TEST_WAIT_US, FALSE, CL_ERROR, 0, &tick, &released };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, wait_thread, &w[i]), 0);
	}
	for (i = 1; i <= WAITERS; i++) {
		cl_event_signal(&ev);
		CU_ASSERT_EQUAL(wait_count(&released, i, &tick), i);
		/* No second waiter gets through on the same signal. */
		cl_event_wait_on(&tick, 20000, FALSE);
		CU_ASSERT_EQUAL(cl_atomic_add(&released, 0), i);
	}
	for (i = 0; i < WAITERS; i++) {
		pthread_join(t[i], NULL);
		CU_ASSERT_EQUAL(w[i].status, CL_SUCCESS);
	}
	CU_ASSERT_EQUAL(cl_event_wait_on(&ev, 0, FALSE), CL_TIMEOUT);
	cl_event_destroy(&tick);
	cl_event_destroy(&ev);
}

/* Two threads bounce a token through two auto-reset events; a lost
 * wake-up would stall the exchange. */
#define PINGS 20000
static cl_event_t ping, pong;
static long bounces;

static void *ponger(void *arg)
{
	int i;

	(void)arg;
	for (i = 0; i < PINGS; i++) {
		if (cl_event_wait_on(&ping, TEST_WAIT_US, FALSE) != CL_SUCCESS)
			break;
		bounces++;
		cl_event_signal(&pong);
	}
	return NULL;
}

static void test_ping_pong(void)
{
	pthread_t t;
	int i, ok = 1;

	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ping, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&pong, FALSE), CL_SUCCESS);
	bounces = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, ponger, NULL), 0);
	for (i = 0; i < PINGS && ok; i++) {
		cl_event_signal(&ping);
		ok = cl_event_wait_on(&pong, TEST_WAIT_US, FALSE) == CL_SUCCESS;
	}
	CU_ASSERT_TRUE(ok);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(bounces, PINGS);	/* written by ponger before each pong */
	cl_event_destroy(&ping);
	cl_event_destroy(&pong);
}

/* The common pattern "wait, then free the object holding the event": the
 * waiter frees the event as soon as its wait succeeds, possibly while the
 * signaller is still inside cl_event_signal. Under ASan this catches a
 * signal that touches the event late, when the timing window is hit. */
static void *wait_and_free(void *arg)
{
	cl_event_t *ev = (cl_event_t *)arg;

	CU_ASSERT_EQUAL(cl_event_wait_on(ev, TEST_WAIT_US, FALSE), CL_SUCCESS);
	cl_event_destroy(ev);
	free(ev);
	return NULL;
}

static void test_free_right_after_wait(void)
{
	cl_event_t *ev;
	pthread_t t;
	int i;

	for (i = 0; i < 500; i++) {
		ev = (cl_event_t *)malloc(sizeof(*ev));
		CU_ASSERT_PTR_NOT_NULL_FATAL(ev);
		CU_ASSERT_EQUAL_FATAL(cl_event_init(ev, i & 1), CL_SUCCESS);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_and_free, ev), 0);
		if (i & 2)
			sched_yield();	/* vary whether the waiter sleeps first */
		cl_event_signal(ev);
		pthread_join(t, NULL);
	}
}

static void on_usr1(int sig)
{
	(void)sig;
}

/* Installs a SIGUSR1 handler without SA_RESTART, so waits see EINTR. */
static void install_handler(struct sigaction *old)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, old);
}

static void test_interruptible_wait(void)
{
	cl_event_t ev, done;
	waiter_t w;
	pthread_t t;
	struct sigaction old;
	uint64_t end;
	int finished = 0;

	install_handler(&old);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&done, FALSE), CL_SUCCESS);
	w = (waiter_t){ &ev, TEST_WAIT_US, TRUE, CL_ERROR, 0, &done, NULL };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &w), 0);
	/* Signal until the wait is interrupted (a signal that arrives before
	 * the thread blocks interrupts nothing). */
	end = test_now_ms() + TEST_WAIT_US / 1000;
	while (!finished && test_now_ms() < end) {
		pthread_kill(t, SIGUSR1);
		finished = cl_event_wait_on(&done, 10000, FALSE) == CL_SUCCESS;
	}
	CU_ASSERT_TRUE(finished);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(w.status, CL_NOT_DONE);
	CU_ASSERT(w.took_ms < TEST_WAIT_US / 1000);
	cl_event_destroy(&done);
	cl_event_destroy(&ev);
	sigaction(SIGUSR1, &old, NULL);
}

static void test_uninterruptible_wait_ignores_signals(void)
{
	cl_event_t ev, done;
	waiter_t w;
	pthread_t t;
	struct sigaction old;
	int i, finished = 0;

	install_handler(&old);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&ev, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&done, FALSE), CL_SUCCESS);
	w = (waiter_t){ &ev, 300000, FALSE, CL_ERROR, 0, &done, NULL };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &w), 0);
	/* Keep interrupting the first 100 ms of the 300 ms wait. */
	for (i = 0; i < 10 && !finished; i++) {
		pthread_kill(t, SIGUSR1);
		finished = cl_event_wait_on(&done, 10000, FALSE) == CL_SUCCESS;
	}
	if (!finished)
		finished = cl_event_wait_on(&done, TEST_WAIT_US, FALSE) == CL_SUCCESS;
	CU_ASSERT_TRUE(finished);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(w.status, CL_TIMEOUT);
	CU_ASSERT(w.took_ms >= 299);
	cl_event_destroy(&done);
	cl_event_destroy(&ev);
	sigaction(SIGUSR1, &old, NULL);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_construct_destroy),
	TEST_ENTRY(test_initially_reset),
	TEST_ENTRY(test_auto_reset),
	TEST_ENTRY(test_manual_reset),
	TEST_ENTRY(test_timeout_accuracy),
	TEST_ENTRY(test_wakes_blocked_waiter),
	TEST_ENTRY(test_manual_reset_releases_all),
	TEST_ENTRY(test_auto_reset_releases_one_per_signal),
	TEST_ENTRY(test_ping_pong),
	TEST_ENTRY(test_free_right_after_wait),
	TEST_ENTRY(test_interruptible_wait),
	TEST_ENTRY(test_uninterruptible_wait_ignores_signals),
};

TEST_MAIN("cl_event", tests)
