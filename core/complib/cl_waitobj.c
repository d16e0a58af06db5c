/*
 * ibal complib: wait objects on an eventfd, pollable by applications.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The eventfd counter is non-zero exactly while the object is signalled.
 * Signal adds 1 (many signals still make one signalled state, since a read
 * clears the whole counter); reset and an auto-reset wait read the counter
 * to zero; a manual-reset wait only polls. The descriptor is non-blocking:
 * a read that finds the counter already cleared by another thread reports
 * EAGAIN and the waiter goes back to poll.
 *
 * Every handle a caller gives is checked, as the Windows access layer
 * checks a wait object's handle: live objects (a reference held) are kept
 * in a map by address, and each call first takes a reference through it
 * (get()), under the map's read lock; a value that is not there gives
 * CL_INVALID_PARAMETER (NULL from cl_waitobj_ref, -1 from cl_waitobj_fd)
 * instead of a write through a wild pointer. The last reference takes the
 * object off the map under the write lock, so a get() never revives an
 * object on its way out. The creator's reference is dropped once: a second
 * cl_waitobj_destroy is refused.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <complib/cl_waitobj.h>
#include <complib/cl_atomic.h>
#include <complib/cl_memory.h>
#include <complib/cl_qmap.h>
#include <pthread.h>
#include "ibal_time.h"

struct _cl_waitobj {
	cl_map_item_t item;     /* in live, by address */
	int fd;                 /* the eventfd */
	boolean_t manual_reset;
	atomic32_t ref_cnt;     /* create + cl_waitobj_ref + calls - destroy - deref */
	atomic32_t destroyed;   /* the creator's reference was dropped */
};

static pthread_rwlock_t live_lock = PTHREAD_RWLOCK_INITIALIZER;
static cl_qmap_t live;          /* every object with a reference (live_lock) */
static pthread_once_t live_once = PTHREAD_ONCE_INIT;

static void live_init(void)
{
	cl_qmap_init(&live);
}

static uint64_t key_of(const void *h)
{
	return (uint64_t)(uintptr_t)h;
}

/* A reference on the live object at @p h, or NULL when none is there. */
static cl_waitobj_handle_t get(const void *h)
{
	cl_waitobj_handle_t obj = NULL;
	cl_map_item_t *it;
	int32_t n;

	if (!h)
		return NULL;
	pthread_once(&live_once, live_init);
	pthread_rwlock_rdlock(&live_lock);
	it = cl_qmap_get(&live, key_of(h));
	if (it != cl_qmap_end(&live)) {
		obj = PARENT_STRUCT(it, struct _cl_waitobj, item);
		/* Not from 0: that object is on its way out. */
		n = __atomic_load_n(&obj->ref_cnt, __ATOMIC_ACQUIRE);
		do {
			if (n <= 0) {
				obj = NULL;
				break;
			}
		} while (!__atomic_compare_exchange_n(&obj->ref_cnt, &n, n + 1, FALSE,
						      __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	}
	pthread_rwlock_unlock(&live_lock);
	return obj;
}

static void obj_put(cl_waitobj_handle_t h)
{
	if (cl_atomic_dec(&h->ref_cnt) == 0) {
		pthread_rwlock_wrlock(&live_lock);
		cl_qmap_remove_item(&live, &h->item);
		pthread_rwlock_unlock(&live_lock);
		close(h->fd);
		cl_free(h);
	}
}

cl_status_t cl_waitobj_create(const boolean_t manual_reset, cl_waitobj_handle_t *const ph_wait_obj)
{
	cl_waitobj_handle_t h;

	if (!ph_wait_obj)
		return CL_INVALID_PARAMETER;
	*ph_wait_obj = NULL;
	h = (cl_waitobj_handle_t)cl_malloc(sizeof(*h));
	if (!h)
		return CL_ERROR;
	h->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (h->fd < 0) {
		cl_free(h);
		return CL_ERROR;
	}
	h->manual_reset = manual_reset ? TRUE : FALSE;
	h->ref_cnt = 1;
	h->destroyed = 0;
	pthread_once(&live_once, live_init);
	pthread_rwlock_wrlock(&live_lock);
	cl_qmap_insert(&live, key_of(h), &h->item);
	pthread_rwlock_unlock(&live_lock);
	*ph_wait_obj = h;
	return CL_SUCCESS;
}

cl_status_t cl_waitobj_destroy(cl_waitobj_handle_t h_wait_obj)
{
	cl_waitobj_handle_t h = get(h_wait_obj);

	if (!h)
		return CL_INVALID_PARAMETER;
	if (__atomic_exchange_n(&h->destroyed, 1, __ATOMIC_ACQ_REL)) {
		obj_put(h);
		return CL_INVALID_PARAMETER;   /* destroyed already */
	}
	obj_put(h);
	obj_put(h);   /* the creator's */
	return CL_SUCCESS;
}

cl_waitobj_handle_t cl_waitobj_ref(void *h_user_wait_obj)
{
	return get(h_user_wait_obj);
}

void cl_waitobj_deref(cl_waitobj_handle_t h_kernel_wait_obj)
{
	cl_waitobj_handle_t h = get(h_kernel_wait_obj);

	if (!h)
		return;
	obj_put(h);
	obj_put(h);   /* the one cl_waitobj_ref took */
}

int cl_waitobj_fd(cl_waitobj_handle_t h_wait_obj)
{
	cl_waitobj_handle_t h = get(h_wait_obj);
	int fd;

	if (!h)
		return -1;
	fd = h->fd;
	obj_put(h);
	return fd;
}

static cl_status_t signal_obj(cl_waitobj_handle_t h)
{
	uint64_t one = 1;

	while (write(h->fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		if (errno == EAGAIN)
			break;	/* counter saturated: signalled already */
		if (errno != EINTR)
			return CL_ERROR;
	}
	return CL_SUCCESS;
}

cl_status_t cl_waitobj_signal(cl_waitobj_handle_t h_wait_obj)
{
	cl_waitobj_handle_t h = get(h_wait_obj);
	cl_status_t st;

	if (!h)
		return CL_INVALID_PARAMETER;
	st = signal_obj(h);
	obj_put(h);
	return st;
}

/* Clears the counter. TRUE if it was non-zero (the object was signalled). */
static boolean_t drain(cl_waitobj_handle_t h, cl_status_t *p_err)
{
	uint64_t val;

	*p_err = CL_SUCCESS;
	for (;;) {
		if (read(h->fd, &val, sizeof(val)) == (ssize_t)sizeof(val))
			return TRUE;
		if (errno == EAGAIN)
			return FALSE;
		if (errno != EINTR) {
			*p_err = CL_ERROR;
			return FALSE;
		}
	}
}

cl_status_t cl_waitobj_reset(cl_waitobj_handle_t h_wait_obj)
{
	cl_waitobj_handle_t h = get(h_wait_obj);
	cl_status_t err;

	if (!h)
		return CL_INVALID_PARAMETER;
	drain(h, &err);
	obj_put(h);
	return err;
}

/* Signalled state, taken as a successful wait takes it. */
static cl_status_t try_take(cl_waitobj_handle_t h)
{
	struct pollfd pfd = { h->fd, POLLIN, 0 };
	cl_status_t err;

	if (!h->manual_reset)
		return drain(h, &err) ? CL_SUCCESS : (err ? err : CL_TIMEOUT);
	if (poll(&pfd, 1, 0) < 0)
		return errno == EINTR ? CL_TIMEOUT : CL_ERROR;
	return (pfd.revents & POLLIN) ? CL_SUCCESS : CL_TIMEOUT;
}

static cl_status_t wait_obj(cl_waitobj_handle_t h_wait_obj, const uint32_t wait_us,
			    const boolean_t interruptible)
{
	struct pollfd pfd;
	struct timespec rel;
	uint64_t deadline = 0, now;
	cl_status_t status;
	int rc;

	status = try_take(h_wait_obj);
	if (status != CL_TIMEOUT || !wait_us)
		return status;
	if (wait_us != EVENT_NO_TIMEOUT)
		deadline = ibal_time_ns(CLOCK_MONOTONIC) + (uint64_t)wait_us * 1000u;
	for (;;) {
		if (deadline) {
			now = ibal_time_ns(CLOCK_MONOTONIC);
			if (now >= deadline)
				return try_take(h_wait_obj);
			rel.tv_sec = (time_t)((deadline - now) / 1000000000u);
			rel.tv_nsec = (long)((deadline - now) % 1000000000u);
		}
		pfd.fd = h_wait_obj->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		rc = ppoll(&pfd, 1, deadline ? &rel : NULL, NULL);
		if (rc < 0 && errno != EINTR)
			return CL_ERROR;
		status = try_take(h_wait_obj);
		if (status != CL_TIMEOUT)
			return status;
		if (rc < 0 && interruptible)
			return CL_NOT_DONE;
	}
}

cl_status_t cl_waitobj_wait_on(cl_waitobj_handle_t h_wait_obj, const uint32_t wait_us,
			       const boolean_t interruptible)
{
	cl_waitobj_handle_t h = get(h_wait_obj);
	cl_status_t st;

	if (!h)
		return CL_INVALID_PARAMETER;
	st = wait_obj(h, wait_us, interruptible);
	obj_put(h);
	return st;
}
