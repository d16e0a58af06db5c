/*
 * ibal complib: performance counters for timing code paths.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_perf.h
 * @brief Performance counters: a cl_perf_t holds numbered counters, each
 * accumulating timing samples (count, total and minimum time in
 * microseconds of cl_get_time_stamp()).
 *
 * The counters are compiled in only where `PERF_TRACK_ON` is defined when
 * this header is included; elsewhere every cl_perf macro compiles to nothing
 * (cl_perf_init to CL_SUCCESS) and its arguments are not evaluated. As with
 * `<assert.h>`, the macro part of this header is re-evaluated on each
 * inclusion, so a file may switch with `#define PERF_TRACK_ON` /
 * `#undef PERF_TRACK_ON` and include the header again (ibal).
 *
 * Typical use, with an enumeration of counter indexes:
 * @code
 * PERF_DECLARE(SEND_CTR);
 * cl_perf_start(SEND_CTR);
 * ...
 * cl_perf_stop(&perf, SEND_CTR);
 * @endcode
 * PERF_DECLARE declares the variable `Pc<index>` holding a start time (or a
 * plain count for cl_perf_clr/cl_perf_inc/cl_perf_update_ctr), so the
 * index given to these macros must be a literal or macro name, not an
 * expression.
 *
 * cl_perf_init measures, once per process, how long 100000 start/stop
 * pairs take with and without a lock held; cl_perf_display prints it so
 * that measurements can be corrected.
 *
 * Thread safety: each counter has its own lock, so samples may be added from
 * any thread; init, destroy and display must not run concurrently with other
 * calls on the same container.
 */
#ifndef _CL_PERF_H_
#define _CL_PERF_H_

#include <complib/cl_types.h>
#include <complib/cl_spinlock.h>
#include <complib/cl_timer.h>

/** Number of start/stop pairs timed by the calibration of cl_perf_init. */
#define PERF_CALIBRATION_TESTS 100000

/** One counter. */
typedef struct _cl_perf_data {
	uint64_t count;      /**< Number of samples. */
	uint64_t total_time; /**< Sum of the samples, in microseconds. */
	uint64_t min_time;   /**< Smallest sample, in microseconds; ~0 when there is none. */
	cl_spinlock_t lock;  /**< Serializes updates of this counter. */
} cl_perf_data_t;

/** A container of counters. Treat as opaque; use the cl_perf macros. */
typedef struct _cl_perf {
	cl_perf_data_t *data_array;       /**< The counters. */
	uintn_t size;                     /**< Number of counters. */
	uint64_t locked_calibration_time; /**< Microseconds for the calibration pairs under a lock. */
	uint64_t normal_calibration_time; /**< Microseconds for the calibration pairs without a lock. */
	cl_state_t state;                 /**< CL_INITIALIZED after a successful init. */
} cl_perf_t;

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Constructs a container so that __cl_perf_destroy is safe. Called through
 * cl_perf_construct.
 * @param p_perf the container.
 */
void CL_API __cl_perf_construct(IN cl_perf_t *const p_perf);

/**
 * Allocates and initializes the counters, all empty, and calibrates (once
 * per process). Called through cl_perf_init. Constructs the container
 * itself, so cl_perf_construct is optional before it.
 * @param p_perf the container.
 * @param num_counters number of counters, indexes 0 to num_counters - 1.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER when @p p_perf is NULL or
 * @p num_counters is 0 (ibal); CL_INSUFFICIENT_MEMORY; CL_ERROR when a
 * lock could not be initialized.
 */
cl_status_t CL_API __cl_perf_init(IN cl_perf_t *const p_perf, IN const uintn_t num_counters);

/**
 * Frees the counters, after displaying them if asked and initialized.
 * Called through cl_perf_destroy. Allowed after construct only.
 * @param p_perf the container.
 * @param display TRUE to display the counters first.
 */
void CL_API __cl_perf_destroy(IN cl_perf_t *const p_perf, IN const boolean_t display);

/**
 * Empties every counter. Called through cl_perf_reset.
 * @param p_perf an initialized container.
 */
void CL_API __cl_perf_reset(IN cl_perf_t *const p_perf);

/**
 * Prints the calibration and every counter (index, total time, minimum
 * time, count) with cl_msg_out. Called through cl_perf_display.
 * @param p_perf an initialized container.
 */
void CL_API __cl_perf_display(IN const cl_perf_t *const p_perf);

#ifdef __cplusplus
}
#endif

#endif /* _CL_PERF_H_ */

/* The macros, outside the include guard: re-evaluated on every inclusion. */
#undef cl_perf_construct
#undef cl_perf_init
#undef cl_perf_destroy
#undef cl_perf_reset
#undef cl_perf_display
#undef PERF_DECLARE
#undef PERF_DECLARE_START
#undef cl_perf_start
#undef cl_perf_clr
#undef cl_perf_inc
#undef cl_perf_log
#undef cl_perf_update
#undef cl_perf_update_ctr
#undef cl_perf_stop
#undef cl_get_perf_values
#undef cl_get_perf_calibration
#undef cl_get_perf_string

#if defined(PERF_TRACK_ON)

/**
 * Constructs a container: makes cl_perf_destroy safe.
 * @param p_perf the container.
 */
#define cl_perf_construct(p_perf) __cl_perf_construct(p_perf)
/**
 * Initializes a container with @p num_counters empty counters; see
 * __cl_perf_init for the statuses.
 * @param p_perf the container.
 * @param num_counters number of counters.
 */
#define cl_perf_init(p_perf, num_counters) __cl_perf_init(p_perf, num_counters)
/**
 * Destroys a container, displaying the counters first when @p display.
 * @param p_perf the container.
 * @param display TRUE to display.
 */
#define cl_perf_destroy(p_perf, display) __cl_perf_destroy(p_perf, display)
/**
 * Empties every counter of a container.
 * @param p_perf the container.
 */
#define cl_perf_reset(p_perf) __cl_perf_reset(p_perf)
/**
 * Displays the counters of a container on the complib log target.
 * @param p_perf the container.
 */
#define cl_perf_display(p_perf) __cl_perf_display(p_perf)

/**
 * Declares `Pc<index>`, the start time (or count) variable of a counter.
 * @param index counter index (a literal or macro name).
 */
#define PERF_DECLARE(index) uint64_t Pc##index
/**
 * Declares `Pc<index>` set to the current time stamp.
 * @param index counter index (a literal or macro name).
 */
#define PERF_DECLARE_START(index) uint64_t Pc##index = cl_get_time_stamp()
/**
 * Stores the current time stamp in `Pc<index>`.
 * @param index counter index.
 */
#define cl_perf_start(index) ((void)(Pc##index = cl_get_time_stamp()))
/**
 * Sets `Pc<index>` to 0.
 * @param index counter index.
 */
#define cl_perf_clr(index) ((void)(Pc##index = 0))
/**
 * Adds 1 to `Pc<index>`.
 * @param index counter index.
 */
#define cl_perf_inc(index) ((void)(Pc##index++))

/**
 * Adds a sample of @p pc_total_time microseconds to a counter.
 * @param p_perf the container.
 * @param index counter index, below the container's size.
 * @param pc_total_time the sample (evaluated once).
 */
#define cl_perf_log(p_perf, index, pc_total_time) \
	do { \
		cl_perf_data_t *const __cl_pd = &((cl_perf_t *)(p_perf))->data_array[index]; \
		const uint64_t __cl_pt = (uint64_t)(pc_total_time); \
		CL_ASSERT((uintn_t)(index) < ((cl_perf_t *)(p_perf))->size); \
		cl_spinlock_acquire(&__cl_pd->lock); \
		__cl_pd->total_time += __cl_pt; \
		__cl_pd->count++; \
		if (__cl_pt < __cl_pd->min_time) \
			__cl_pd->min_time = __cl_pt; \
		cl_spinlock_release(&__cl_pd->lock); \
	} while (0)

/**
 * Adds a sample: the time elapsed since @p start_time.
 * @param p_perf the container.
 * @param index counter index.
 * @param start_time a cl_get_time_stamp() value.
 */
#define cl_perf_update(p_perf, index, start_time) \
	cl_perf_log(p_perf, index, cl_get_time_stamp() - (uint64_t)(start_time))

/**
 * Adds `Pc<index>` (a count kept with cl_perf_clr/cl_perf_inc) as a sample.
 * @param p_perf the container.
 * @param index counter index (a literal or macro name).
 */
#define cl_perf_update_ctr(p_perf, index) cl_perf_log(p_perf, index, Pc##index)

/**
 * Adds a sample: the time elapsed since cl_perf_start(index).
 * @param p_perf the container.
 * @param index counter index (a literal or macro name).
 */
#define cl_perf_stop(p_perf, index) cl_perf_update(p_perf, index, Pc##index)

/**
 * Reads a counter.
 * @param p_perf the container.
 * @param index counter index.
 * @param p_total receives the total time.
 * @param p_min receives the minimum time.
 * @param p_count receives the number of samples.
 */
#define cl_get_perf_values(p_perf, index, p_total, p_min, p_count) \
	do { \
		*(p_total) = (p_perf)->data_array[index].total_time; \
		*(p_min) = (p_perf)->data_array[index].min_time; \
		*(p_count) = (p_perf)->data_array[index].count; \
	} while (0)

/**
 * Reads the calibration times.
 * @param p_perf the container.
 * @param p_locked_time receives the time measured under a lock.
 * @param p_normal_time receives the time measured without a lock.
 */
#define cl_get_perf_calibration(p_perf, p_locked_time, p_normal_time) \
	do { \
		*(p_locked_time) = (p_perf)->locked_calibration_time; \
		*(p_normal_time) = (p_perf)->normal_calibration_time; \
	} while (0)

/**
 * printf arguments (format and values) of the line cl_perf_display prints
 * for counter @p i.
 * @param p_perf the container.
 * @param i counter index.
 */
#define cl_get_perf_string(p_perf, i) \
	"CL Perf:\t%" PRIuPTR "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", (uintn_t)(i), \
		(p_perf)->data_array[i].total_time, (p_perf)->data_array[i].min_time, \
		(p_perf)->data_array[i].count

#else /* PERF_TRACK_ON */

/**
 * Constructs a container; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 */
#define cl_perf_construct(p_perf) ((void)0)
/**
 * Initializes a container; CL_SUCCESS without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param num_counters number of counters.
 */
#define cl_perf_init(p_perf, num_counters) CL_SUCCESS
/**
 * Destroys a container; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param display TRUE to display the counters first.
 */
#define cl_perf_destroy(p_perf, display) ((void)0)
/**
 * Empties every counter; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 */
#define cl_perf_reset(p_perf) ((void)0)
/**
 * Displays the counters; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 */
#define cl_perf_display(p_perf) ((void)0)
/**
 * Declares the `Pc<index>` variable; nothing without PERF_TRACK_ON.
 * @param index counter index.
 */
#define PERF_DECLARE(index)
/**
 * Declares `Pc<index>` set to the current time; nothing without PERF_TRACK_ON.
 * @param index counter index.
 */
#define PERF_DECLARE_START(index)
/**
 * Stores the current time in `Pc<index>`; nothing without PERF_TRACK_ON.
 * @param index counter index.
 */
#define cl_perf_start(index) ((void)0)
/**
 * Sets `Pc<index>` to 0; nothing without PERF_TRACK_ON.
 * @param index counter index.
 */
#define cl_perf_clr(index) ((void)0)
/**
 * Adds 1 to `Pc<index>`; nothing without PERF_TRACK_ON.
 * @param index counter index.
 */
#define cl_perf_inc(index) ((void)0)
/**
 * Adds a sample to a counter; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param index counter index.
 * @param pc_total_time the sample.
 */
#define cl_perf_log(p_perf, index, pc_total_time) ((void)0)
/**
 * Adds the time elapsed since @p start_time; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param index counter index.
 * @param start_time a cl_get_time_stamp() value.
 */
#define cl_perf_update(p_perf, index, start_time) ((void)0)
/**
 * Adds `Pc<index>` as a sample; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param index counter index.
 */
#define cl_perf_update_ctr(p_perf, index) ((void)0)
/**
 * Adds the time elapsed since cl_perf_start; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param index counter index.
 */
#define cl_perf_stop(p_perf, index) ((void)0)
/**
 * Reads a counter; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param index counter index.
 * @param p_total receives the total time.
 * @param p_min receives the minimum time.
 * @param p_count receives the number of samples.
 */
#define cl_get_perf_values(p_perf, index, p_total, p_min, p_count) ((void)0)
/**
 * Reads the calibration times; nothing without PERF_TRACK_ON.
 * @param p_perf the container.
 * @param p_locked_time receives the time measured under a lock.
 * @param p_normal_time receives the time measured without a lock.
 */
#define cl_get_perf_calibration(p_perf, p_locked_time, p_normal_time) ((void)0)

#endif /* PERF_TRACK_ON */
