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

struct _cl_waitobj {
	int fd;                 /* the eventfd */
	boolean_t manual_reset;
	atomic32_t ref_cnt;     /* create + cl_waitobj_ref - destroy - deref */
};

static void obj_put(cl_waitobj_handle_t h)
{
	if (cl_atomic_dec(&h->ref_cnt) == 0) {
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
	*ph_wait_obj = h;
	return CL_SUCCESS;
}

cl_status_t cl_waitobj_destroy(cl_waitobj_handle_t h_wait_obj)
{
	if (!h_wait_obj)
		return CL_INVALID_PARAMETER;
	obj_put(h_wait_obj);
	return CL_SUCCESS;
}

cl_waitobj_handle_t cl_waitobj_ref(void *h_user_wait_obj)
{
	cl_waitobj_handle_t h = (cl_waitobj_handle_t)h_user_wait_obj;

	if (h)
		cl_atomic_inc(&h->ref_cnt);
	return h;
}

void cl_waitobj_deref(cl_waitobj_handle_t h_kernel_wait_obj)
{
	if (h_kernel_wait_obj)
		obj_put(h_kernel_wait_obj);
}

int cl_waitobj_fd(cl_waitobj_handle_t h_wait_obj)
{
	return h_wait_obj ? h_wait_obj->fd : -1;
}

cl_status_t cl_waitobj_signal(cl_waitobj_handle_t h_wait_obj)
{
	uint64_t one = 1;

	if (!h_wait_obj)
		return CL_INVALID_PARAMETER;
	while (write(h_wait_obj->fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		if (errno == EAGAIN)
			break;	/* counter saturated: signalled already */
		if (errno != EINTR)
			return CL_ERROR;
	}
	return CL_SUCCESS;
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
	cl_status_t err;

	if (!h_wait_obj)
		return CL_INVALID_PARAMETER;
	drain(h_wait_obj, &err);
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

cl_status_t cl_waitobj_wait_on(cl_waitobj_handle_t h_wait_obj, const uint32_t wait_us,
			       const boolean_t interruptible)
{
	struct pollfd pfd;
	struct timespec rel;
	uint64_t deadline = 0, now;
	cl_status_t status;
	int rc;

	if (!h_wait_obj)
		return CL_INVALID_PARAMETER;
	status = try_take(h_wait_obj);
	if (status != CL_TIMEOUT || !wait_us)
		return status;
	if (wait_us != EVENT_NO_TIMEOUT)
		deadline = now_ns() + (uint64_t)wait_us * 1000u;
	for (;;) {
		if (deadline) {
			now = now_ns();
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
