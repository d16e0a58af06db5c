/*
 * ibal complib: Linux timer object behind cl_timer.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_timer_osd.h
 * @brief cl_timer_t: an entry of the deadline-ordered list that complib's
 * single timer thread serves.
 */
#ifndef _CL_TIMER_H_
/* Included directly: cl_timer.h defines the callback type, then includes
 * this file again. */
#include <complib/cl_timer.h>
#elif !defined(_CL_TIMER_OSD_H_)
#define _CL_TIMER_OSD_H_

#include <complib/cl_types.h>

/**
 * Timer. Treat as opaque; use the cl_timer functions. All fields are
 * protected by the timer provider's lock.
 */
typedef struct _cl_timer {
	struct _cl_timer *p_next;             /**< Next pending timer (later deadline). */
	struct _cl_timer *p_prev;             /**< Previous pending timer (earlier deadline). */
	cl_pfn_timer_callback_t pfn_callback; /**< Function called on expiry. */
	const void *context;                  /**< Argument of @c pfn_callback. */
	uint64_t timeout_time;                /**< Expiry in cl_get_time_stamp() microseconds; 0 when not pending. */
	cl_state_t state;                     /**< CL_INITIALIZED between init and destroy. */
} cl_timer_t;

#endif /* _CL_TIMER_H_, _CL_TIMER_OSD_H_ */
