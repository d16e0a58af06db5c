/*
 * ibal tests: cl_waitobj.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <unistd.h>
#include <complib/cl_waitobj.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"

static int readable(cl_waitobj_handle_t h)
{
	struct pollfd pfd = { cl_waitobj_fd(h), POLLIN, 0 };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

static void test_invalid_handles(void)
{
	CU_ASSERT_EQUAL(cl_waitobj_create(FALSE, NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_waitobj_destroy(NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_waitobj_signal(NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_waitobj_reset(NULL), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(NULL, 0, FALSE), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_waitobj_fd(NULL), -1);
	CU_ASSERT_PTR_NULL(cl_waitobj_ref(NULL));
	cl_waitobj_deref(NULL);	/* ignored */
}

/* Values that are not wait objects, and objects gone, are refused: no call
 * reads or writes through them. */
static void test_not_wait_objects(void)
{
	int other = 0;
	cl_waitobj_handle_t bad[3], h;
	size_t i;

	bad[0] = (cl_waitobj_handle_t)(uintptr_t)0x1234;
	bad[1] = (cl_waitobj_handle_t)(void *)&other;
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_destroy(h), CL_SUCCESS);
	bad[2] = h;   /* destroyed: its last reference is gone */
	for (i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(cl_waitobj_destroy(bad[i]), CL_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(cl_waitobj_signal(bad[i]), CL_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(cl_waitobj_reset(bad[i]), CL_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(cl_waitobj_wait_on(bad[i], 0, FALSE), CL_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(cl_waitobj_fd(bad[i]), -1);
		CU_ASSERT_PTR_NULL(cl_waitobj_ref(bad[i]));
		cl_waitobj_deref(bad[i]);   /* ignored */
	}
	CU_ASSERT_EQUAL(other, 0);
}

/* The creator's reference is dropped once: a second destroy of an object a
 * reference keeps alive is refused and leaves it working. */
static void test_double_destroy(void)
{
	cl_waitobj_handle_t h, k;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	k = cl_waitobj_ref(h);
	CU_ASSERT_PTR_EQUAL(k, h);
	CU_ASSERT_EQUAL(cl_waitobj_destroy(h), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_destroy(h), CL_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(cl_waitobj_signal(k), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(k, 0, FALSE), CL_SUCCESS);
	cl_waitobj_deref(k);
	CU_ASSERT_EQUAL(cl_waitobj_signal(k), CL_INVALID_PARAMETER);
}

static void test_auto_reset(void)
{
	cl_waitobj_handle_t h = NULL;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	CU_ASSERT(cl_waitobj_fd(h) >= 0);
	CU_ASSERT_FALSE(readable(h));
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_TIMEOUT);
	CU_ASSERT_EQUAL(cl_waitobj_signal(h), CL_SUCCESS);
	CU_ASSERT_TRUE(readable(h));
	CU_ASSERT_TRUE(readable(h));	/* polling does not consume */
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_SUCCESS);
	CU_ASSERT_FALSE(readable(h));
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_TIMEOUT);
	/* Signals collapse into one signalled state. */
	cl_waitobj_signal(h);
	cl_waitobj_signal(h);
	cl_waitobj_signal(h);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 1000, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_TIMEOUT);
	/* Reset. */
	cl_waitobj_signal(h);
	CU_ASSERT_EQUAL(cl_waitobj_reset(h), CL_SUCCESS);
	CU_ASSERT_FALSE(readable(h));
	CU_ASSERT_EQUAL(cl_waitobj_reset(h), CL_SUCCESS);	/* already reset */
	CU_ASSERT_EQUAL(cl_waitobj_destroy(h), CL_SUCCESS);
}

static void test_manual_reset(void)
{
	cl_waitobj_handle_t h;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(TRUE, &h), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_TIMEOUT);
	cl_waitobj_signal(h);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, EVENT_NO_TIMEOUT, FALSE), CL_SUCCESS);
	CU_ASSERT_TRUE(readable(h));
	CU_ASSERT_EQUAL(cl_waitobj_reset(h), CL_SUCCESS);
	CU_ASSERT_FALSE(readable(h));
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_TIMEOUT);
	cl_waitobj_destroy(h);
}

static void test_timeout_accuracy(void)
{
	cl_waitobj_handle_t h;
	uint64_t start, took;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	start = test_now_ms();
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 60000, FALSE), CL_TIMEOUT);
	took = test_now_ms() - start;
	CU_ASSERT(took >= 59);
	CU_ASSERT(took < 60 + 5000);
	cl_waitobj_destroy(h);
}

typedef struct {
	cl_waitobj_handle_t h;
	uint32_t wait_us;
	boolean_t interruptible;
	cl_status_t status;
	volatile int done;
} waiter_t;

static void *wait_thread(void *arg)
{
	waiter_t *w = (waiter_t *)arg;

	w->status = cl_waitobj_wait_on(w->h, w->wait_us, w->interruptible);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *signal_thread(void *arg)
{
	cl_waitobj_signal((cl_waitobj_handle_t)arg);
	return NULL;
}

static void test_cross_thread(void)
{
	cl_waitobj_handle_t h;
	waiter_t w;
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	w = (waiter_t){ h, EVENT_NO_TIMEOUT, FALSE, CL_ERROR, 0 };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &w), 0);
	cl_waitobj_signal(h);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(w.status, CL_SUCCESS);
	CU_ASSERT_FALSE(readable(h));	/* the waiter consumed it */
	cl_waitobj_destroy(h);
}

static void test_one_signal_releases_one_waiter(void)
{
	cl_waitobj_handle_t h;
	waiter_t w[2];
	pthread_t t[2];
	int i, ok;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	for (i = 0; i < 2; i++) {
		w[i] = (waiter_t){ h, 300000, FALSE, CL_ERROR, 0 };
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, wait_thread, &w[i]), 0);
	}
	cl_waitobj_signal(h);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ok = (w[0].status == CL_SUCCESS) + (w[1].status == CL_SUCCESS);
	CU_ASSERT_EQUAL(ok, 1);
	CU_ASSERT_EQUAL((w[0].status == CL_TIMEOUT) + (w[1].status == CL_TIMEOUT), 1);
	cl_waitobj_destroy(h);
}

static void test_poll_and_epoll(void)
{
	cl_waitobj_handle_t h;
	struct epoll_event ev = { 0 }, got;
	struct pollfd pfd;
	pthread_t t;
	int ep;

	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	ep = epoll_create1(EPOLL_CLOEXEC);
	CU_ASSERT_FATAL(ep >= 0);
	ev.events = EPOLLIN;
	ev.data.ptr = h;
	CU_ASSERT_EQUAL(epoll_ctl(ep, EPOLL_CTL_ADD, cl_waitobj_fd(h), &ev), 0);
	CU_ASSERT_EQUAL(epoll_wait(ep, &got, 1, 0), 0);
	/* Signalled from another thread, seen by epoll_wait. */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, signal_thread, h), 0);
	CU_ASSERT_EQUAL(epoll_wait(ep, &got, 1, TEST_WAIT_US / 1000), 1);
	CU_ASSERT_PTR_EQUAL(got.data.ptr, h);
	pthread_join(t, NULL);
	/* The documented idiom: consume after readiness. */
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(h, 0, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(epoll_wait(ep, &got, 1, 0), 0);
	/* Plain poll() with a timeout. */
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, signal_thread, h), 0);
	pfd.fd = cl_waitobj_fd(h);
	pfd.events = POLLIN;
	CU_ASSERT_EQUAL(poll(&pfd, 1, TEST_WAIT_US / 1000), 1);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(cl_waitobj_reset(h), CL_SUCCESS);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);
	close(ep);
	cl_waitobj_destroy(h);
}

static void test_references(void)
{
	cl_waitobj_handle_t h, k;
	size_t base;
	int fd;

	__cl_mem_track(TRUE);
	base = cl_mem_track_count();
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(TRUE, &h), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_mem_track_count(), base + 1);
	fd = cl_waitobj_fd(h);
	k = cl_waitobj_ref(h);
	CU_ASSERT_PTR_EQUAL(k, h);
	/* The creator's destroy leaves the referenced object working. */
	CU_ASSERT_EQUAL(cl_waitobj_destroy(h), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_signal(k), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(k, 0, FALSE), CL_SUCCESS);
	CU_ASSERT(fcntl(fd, F_GETFD) >= 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), base + 1);
	cl_waitobj_deref(k);
	/* Last reference gone: memory freed, descriptor closed. */
	CU_ASSERT_EQUAL(cl_mem_track_count(), base);
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFD), -1);
	CU_ASSERT_EQUAL(errno, EBADF);
	__cl_mem_track(FALSE);
}

static void on_usr1(int sig)
{
	(void)sig;
}

static void test_interruptible(void)
{
	cl_waitobj_handle_t h;
	struct sigaction sa, old;
	waiter_t w;
	pthread_t t;
	cl_event_t tick;
	uint64_t end;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sa.sa_flags = SA_RESTART;	/* poll-based waits are interrupted anyway */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &h), CL_SUCCESS);
	w = (waiter_t){ h, TEST_WAIT_US, TRUE, CL_ERROR, 0 };
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wait_thread, &w), 0);
	CU_ASSERT_EQUAL_FATAL(cl_event_init(&tick, FALSE), CL_SUCCESS);
	/* Signal until the wait is interrupted (a signal that arrives before
	 * the thread blocks interrupts nothing). */
	end = test_now_ms() + TEST_WAIT_US / 1000;
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) && test_now_ms() < end) {
		pthread_kill(t, SIGUSR1);
		cl_event_wait_on(&tick, 10000, FALSE);	/* never signalled: a 10 ms pause */
	}
	pthread_join(t, NULL);
	cl_event_destroy(&tick);
	CU_ASSERT_EQUAL(w.status, CL_NOT_DONE);
	cl_waitobj_destroy(h);
	sigaction(SIGUSR1, &old, NULL);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_invalid_handles),
	TEST_ENTRY(test_not_wait_objects),
	TEST_ENTRY(test_double_destroy),
	TEST_ENTRY(test_auto_reset),
	TEST_ENTRY(test_manual_reset),
	TEST_ENTRY(test_timeout_accuracy),
	TEST_ENTRY(test_cross_thread),
	TEST_ENTRY(test_one_signal_releases_one_waiter),
	TEST_ENTRY(test_poll_and_epoll),
	TEST_ENTRY(test_references),
	TEST_ENTRY(test_interruptible),
};

TEST_MAIN("cl_waitobj", tests)
