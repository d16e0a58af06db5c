/*
 * ibal complib: Linux event object behind cl_event.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_event_osd.h
 * @brief cl_event_t: one futex word holding the signalled state and the
 * number of waiters, so that signalling an event nobody waits on costs one
 * atomic operation and no system call, and so that cl_event_signal touches
 * the event's memory only in that one operation (a woken waiter may free the
 * event right after it). Timeouts are measured on CLOCK_MONOTONIC. An event
 * holds no file descriptor and no memory.
 */
#ifndef _CL_EVENT_OSD_H_
#define _CL_EVENT_OSD_H_

#include <complib/cl_types.h>

/** Event. Treat as opaque; use the cl_event functions. */
typedef struct _cl_event {
	/** Futex word: bit 0 set while signalled; the other bits count the
	 * threads inside cl_event_wait_on that may sleep (in units of 2). */
	volatile int32_t word;
	boolean_t manual_reset; /**< TRUE: stays signalled until cl_event_reset. */
	cl_state_t state;       /**< CL_INITIALIZED between init and destroy. */
} cl_event_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs an event so that cl_event_destroy is safe. Cannot fail.
 * @param p_event the event.
 */
CL_INLINE void CL_API cl_event_construct(IN cl_event_t *const p_event)
{
	CL_ASSERT(p_event);
	p_event->word = 0;
	p_event->manual_reset = FALSE;
	p_event->state = CL_UNINITIALIZED;
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_EVENT_OSD_H_ */
