/*
 * ibal complib: event, a binary signal threads can wait on.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_event.h
 * @brief Event: cl_event_construct, cl_event_init, cl_event_destroy,
 * cl_event_signal, cl_event_reset, cl_event_wait_on.
 *
 * An event is either signalled or reset; it starts reset. An auto-reset
 * event (manual_reset FALSE) releases exactly one waiter per signalled state
 * and resets as that wait succeeds; a manual-reset event releases every
 * waiter and stays signalled until cl_event_reset. Signalling an event that
 * is already signalled has no effect, so several signals may satisfy only
 * one wait.
 *
 * Thread safety: signal, reset and wait_on may run concurrently from any
 * threads; construct, init and destroy must not race with other use, and no
 * thread may be waiting when the event is destroyed.
 */
#ifndef _CL_EVENT_H_
#define _CL_EVENT_H_

/** wait_us value of cl_event_wait_on that waits without a time limit. */
#define EVENT_NO_TIMEOUT 0xFFFFFFFF

#include <complib/cl_event_osd.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initializes an event, in the reset state.
 * @param p_event an event, constructed or not.
 * @param manual_reset FALSE for an auto-reset event, TRUE for a manual-reset one.
 * @return CL_SUCCESS (this implementation cannot fail; CL_ERROR is reserved
 * by the API for a failure to create the event).
 */
CL_EXPORT cl_status_t CL_API cl_event_init(IN cl_event_t *const p_event,
					   IN const boolean_t manual_reset);

/**
 * Destroys an event after cl_event_construct or cl_event_init. No thread may
 * be waiting on it.
 * @param p_event the event.
 */
CL_EXPORT void CL_API cl_event_destroy(IN cl_event_t *const p_event);

/**
 * Sets an event to the signalled state and releases one waiter (auto-reset)
 * or all waiters (manual-reset).
 * @param p_event an initialized event.
 * @return CL_SUCCESS; CL_ERROR if the event is not initialized.
 */
CL_EXPORT cl_status_t CL_API cl_event_signal(IN cl_event_t *const p_event);

/**
 * Sets an event to the reset (non-signalled) state.
 * @param p_event an initialized event.
 * @return CL_SUCCESS; CL_ERROR if the event is not initialized.
 */
CL_EXPORT cl_status_t CL_API cl_event_reset(IN cl_event_t *const p_event);

/**
 * Waits until an event is signalled, at most @p wait_us microseconds. A
 * successful wait on an auto-reset event resets it.
 *
 * A @p wait_us of 0 only tests (and for auto-reset, consumes) the state;
 * EVENT_NO_TIMEOUT waits for ever. A timed wait lasts at least @p wait_us
 * (measured on CLOCK_MONOTONIC) before it reports CL_TIMEOUT.
 *
 * @param p_event an initialized event.
 * @param wait_us time limit in microseconds, 0, or EVENT_NO_TIMEOUT.
 * @param interruptible TRUE to return CL_NOT_DONE when a signal handler
 * installed without SA_RESTART runs in this thread during the wait (with
 * SA_RESTART the system resumes the wait); FALSE to keep waiting.
 * @return CL_SUCCESS when the event was signalled; CL_TIMEOUT when the time
 * limit passed first; CL_NOT_DONE when interrupted by a signal (only if
 * @p interruptible); CL_ERROR if the event is not initialized or the wait
 * failed.
 */
CL_EXPORT cl_status_t CL_API cl_event_wait_on(IN cl_event_t *const p_event,
					      IN const uint32_t wait_us,
					      IN const boolean_t interruptible);

#ifdef __cplusplus
}
#endif

#endif /* _CL_EVENT_H_ */
