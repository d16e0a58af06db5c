/*
 * ibal complib: wait object, an event that a file descriptor also exposes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_waitobj.h
 * @brief Wait object: cl_waitobj_create, cl_waitobj_destroy,
 * cl_waitobj_signal, cl_waitobj_reset, cl_waitobj_wait_on, cl_waitobj_ref,
 * cl_waitobj_deref, and the ibal extension cl_waitobj_fd.
 *
 * A wait object behaves like a cl_event_t (auto-reset or manual-reset,
 * created reset) but is referred to by a handle, which the access layer
 * accepts from applications (for example as a completion queue's
 * notification object) and signals itself.
 *
 * **Linux: the wait object is an eventfd.** cl_waitobj_fd() returns it so
 * an application can wait on the object together with other descriptors
 * with poll(), select() or epoll: the descriptor is readable (POLLIN /
 * EPOLLIN) exactly while the object is signalled. Polling never changes the
 * state, so after an auto-reset object is reported readable, consume the
 * signal with `cl_waitobj_wait_on(h, 0, FALSE)` (which returns CL_SUCCESS,
 * or CL_TIMEOUT if another thread consumed it first) or call
 * cl_waitobj_reset(). Do not read, write or close the descriptor directly;
 * it stays open until the last reference is gone.
 *
 * Lifetime: cl_waitobj_create gives one reference, cl_waitobj_ref adds one,
 * and cl_waitobj_destroy and cl_waitobj_deref each drop one; the object is
 * freed (and its descriptor closed) with the last reference. In OFED for
 * Windows ref/deref exist in kernel mode only; ibal's access layer runs in
 * the process, so they are available here to keep an application's object
 * alive while the access layer may still signal it.
 *
 * Handles are checked: a value that is not a live wait object (never
 * created, or its last reference gone) gives CL_INVALID_PARAMETER (NULL
 * from cl_waitobj_ref, -1 from cl_waitobj_fd), never a crash; a second
 * cl_waitobj_destroy of one handle is refused the same way. ibal differs
 * from OFED for Windows only in that Windows checks kernel handles and
 * reports other statuses.
 *
 * Thread safety: every function may be called concurrently from any thread
 * for a handle that holds a reference; no thread may use a handle after its
 * own reference was dropped.
 */
#ifndef _CL_WAITOBJ_H_
#define _CL_WAITOBJ_H_

#include <complib/cl_waitobj_osd.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Creates a wait object, in the reset state, holding one reference.
 * @param manual_reset FALSE: a successful wait resets the object and releases
 * a single waiter; TRUE: the object stays signalled until cl_waitobj_reset.
 * @param ph_wait_obj receives the handle; set to NULL on failure.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p ph_wait_obj is NULL;
 * CL_ERROR if the eventfd or the memory could not be obtained.
 */
CL_EXPORT cl_status_t CL_API cl_waitobj_create(IN const boolean_t manual_reset,
					       OUT cl_waitobj_handle_t *const ph_wait_obj);

/**
 * Drops the reference that cl_waitobj_create gave. The object and its
 * descriptor go away when no cl_waitobj_ref reference remains.
 * @param h_wait_obj the handle.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p h_wait_obj is NULL, is no
 * live wait object, or was destroyed already.
 */
CL_EXPORT cl_status_t CL_API cl_waitobj_destroy(IN cl_waitobj_handle_t h_wait_obj);

/**
 * Takes a reference on a wait object so that it outlives its creator's
 * cl_waitobj_destroy.
 * @param h_user_wait_obj a valid wait object handle (as void *, the
 * upstream signature), or NULL.
 * @return the same object as a cl_waitobj_handle_t, or NULL if
 * @p h_user_wait_obj is NULL or no live wait object.
 */
CL_EXPORT cl_waitobj_handle_t CL_API cl_waitobj_ref(IN void *h_user_wait_obj);

/**
 * Drops a reference taken with cl_waitobj_ref.
 * @param h_kernel_wait_obj the handle cl_waitobj_ref returned.
 */
CL_EXPORT void CL_API cl_waitobj_deref(IN cl_waitobj_handle_t h_kernel_wait_obj);

/**
 * Sets a wait object to the signalled state, releasing one waiter
 * (auto-reset) or all waiters (manual-reset), and making its descriptor
 * readable. Signalling a signalled object has no effect.
 * @param h_wait_obj the handle.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p h_wait_obj is NULL or no live wait object;
 * CL_ERROR if the eventfd could not be written.
 */
CL_EXPORT cl_status_t CL_API cl_waitobj_signal(IN cl_waitobj_handle_t h_wait_obj);

/**
 * Sets a wait object to the reset state.
 * @param h_wait_obj the handle.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p h_wait_obj is NULL or no live wait object;
 * CL_ERROR if the eventfd could not be read.
 */
CL_EXPORT cl_status_t CL_API cl_waitobj_reset(IN cl_waitobj_handle_t h_wait_obj);

/**
 * Waits until a wait object is signalled, at most @p wait_us microseconds;
 * a successful wait on an auto-reset object resets it. 0 only tests (and
 * consumes) the state; EVENT_NO_TIMEOUT waits for ever.
 * @param h_wait_obj the handle.
 * @param wait_us time limit in microseconds, 0, or EVENT_NO_TIMEOUT.
 * @param interruptible TRUE to return CL_NOT_DONE when a signal handler runs
 * in this thread during the wait; FALSE to keep waiting.
 * @return CL_SUCCESS when signalled; CL_TIMEOUT when the time limit passed
 * first; CL_NOT_DONE when interrupted (only if @p interruptible);
 * CL_INVALID_PARAMETER if @p h_wait_obj is NULL or no live wait object; CL_ERROR if the wait failed.
 */
CL_EXPORT cl_status_t CL_API cl_waitobj_wait_on(IN cl_waitobj_handle_t h_wait_obj,
						IN const uint32_t wait_us,
						IN const boolean_t interruptible);

/**
 * ibal extension: the eventfd behind a wait object, for poll(), select()
 * and epoll. It is readable while the object is signalled; see the file
 * description for the rules.
 * @param h_wait_obj the handle.
 * @return the descriptor, or -1 if @p h_wait_obj is NULL or no live wait
 * object.
 */
CL_EXPORT int CL_API cl_waitobj_fd(IN cl_waitobj_handle_t h_wait_obj);

#ifdef __cplusplus
}
#endif

#endif /* _CL_WAITOBJ_H_ */
