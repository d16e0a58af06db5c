/*
 * ibal complib: one-shot timers and monotonic time stamps.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_timer.h
 * @brief Timer: cl_timer_construct, cl_timer_init, cl_timer_destroy,
 * cl_timer_start, cl_timer_trim, cl_timer_stop; time stamps:
 * cl_get_time_stamp, cl_get_time_stamp_usec, cl_get_time_stamp_sec,
 * cl_get_tick_count, cl_get_tick_freq.
 *
 * A timer is one-shot: once started it calls its callback once, no sooner
 * than the requested interval after the start, unless stopped or restarted
 * first. Time is CLOCK_MONOTONIC, so changes of the wall clock do not
 * affect timers or time stamps.
 *
 * Callbacks run on one complib timer thread shared by all timers (created
 * with the first initialized timer, ended with the last destroyed one), one
 * callback at a time and without any complib lock held. A callback may
 * therefore start, trim, stop or even destroy its own timer or any other
 * timer. It should return quickly and must not wait for another timer's
 * callback, since that callback cannot run meanwhile.
 *
 * cl_timer_stop only cancels a pending expiry and does not wait for a
 * callback that is already running (as in OFED for Windows' kernel, so a
 * caller may hold a lock its callback takes). cl_timer_destroy cancels and
 * then waits for a running callback of that timer, unless it is called from
 * a timer callback.
 *
 * Thread safety: start, trim, stop and destroy may be called concurrently
 * from any thread, including timer callbacks; init must precede them.
 */
#ifndef _CL_TIMER_H_
#define _CL_TIMER_H_

#include <complib/cl_types.h>

/**
 * Function called when a timer expires, on complib's timer thread.
 * @param context the value given to cl_timer_init.
 */
typedef void (CL_API *cl_pfn_timer_callback_t)(IN void *context);

#include <complib/cl_timer_osd.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs a timer so that cl_timer_destroy is safe. Cannot fail.
 * @param p_timer the timer.
 */
CL_EXPORT void CL_API cl_timer_construct(IN cl_timer_t *const p_timer);

/**
 * Initializes a timer, not running.
 * @param p_timer the timer.
 * @param pfn_callback function called on expiry.
 * @param context its argument.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p p_timer or @p pfn_callback
 * is NULL; CL_ERROR if the timer thread could not be started. A non-NULL
 * @p p_timer is constructed first, so cl_timer_destroy is safe after any
 * result.
 */
CL_EXPORT cl_status_t CL_API cl_timer_init(IN cl_timer_t *const p_timer,
					   IN cl_pfn_timer_callback_t pfn_callback,
					   IN const void *const context);

/**
 * Cancels a pending expiry, waits for a running callback of this timer
 * (unless called from a timer callback) and releases the timer. Safe after
 * cl_timer_construct alone, and when called twice.
 * @param p_timer the timer.
 */
CL_EXPORT void CL_API cl_timer_destroy(IN cl_timer_t *const p_timer);

/**
 * Sets a timer to expire @p time_ms milliseconds from now, replacing any
 * pending expiry (earlier or later).
 * @param p_timer an initialized timer.
 * @param time_ms minimum interval in milliseconds; 0 expires at once.
 * @return CL_SUCCESS; CL_ERROR if the timer is not initialized.
 */
CL_EXPORT cl_status_t CL_API cl_timer_start(IN cl_timer_t *const p_timer,
					    IN const uint32_t time_ms);

/**
 * Pulls in a timer's expiry: if the timer is not pending, or would expire
 * later than @p time_ms milliseconds from now, it is set to expire then;
 * otherwise nothing changes.
 * @param p_timer an initialized timer.
 * @param time_ms maximum interval in milliseconds.
 * @return CL_SUCCESS; CL_ERROR if the timer is not initialized.
 */
CL_EXPORT cl_status_t CL_API cl_timer_trim(IN cl_timer_t *const p_timer,
					   IN const uint32_t time_ms);

/**
 * Cancels a timer's pending expiry, if any. A callback that is already
 * running is not waited for.
 * @param p_timer an initialized timer.
 */
CL_EXPORT void CL_API cl_timer_stop(IN cl_timer_t *const p_timer);

/**
 * Current time stamp.
 * @return microseconds of CLOCK_MONOTONIC (time since boot, excluding
 * suspend).
 */
CL_EXPORT uint64_t CL_API cl_get_time_stamp(void);

/**
 * Current time stamp in microseconds; same as cl_get_time_stamp.
 * @return microseconds of CLOCK_MONOTONIC.
 */
CL_INLINE uint64_t CL_API cl_get_time_stamp_usec(void)
{
	return cl_get_time_stamp();
}

/**
 * Current time stamp in seconds.
 * @return whole seconds of CLOCK_MONOTONIC.
 */
CL_EXPORT uint32_t CL_API cl_get_time_stamp_sec(void);

/**
 * Raw value of the high-resolution counter.
 * @return nanoseconds of CLOCK_MONOTONIC; see cl_get_tick_freq.
 */
CL_EXPORT uint64_t CL_API cl_get_tick_count(void);

/**
 * Frequency of the counter cl_get_tick_count reads.
 * @return ticks per second (1000000000).
 */
CL_EXPORT uint64_t CL_API cl_get_tick_freq(void);

#ifdef __cplusplus
}
#endif

#endif /* _CL_TIMER_H_ */
