/*
 * ibal complib: performance counter containers, calibration and display.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/* The library always has the counter functions; callers choose whether the
 * macros use them. */
#define PERF_TRACK_ON 1

#include <pthread.h>
#include <complib/cl_perf.h>
#include <complib/cl_debug.h>
#include <complib/cl_memory.h>

static pthread_once_t calibration_once = PTHREAD_ONCE_INIT;
static uint64_t locked_calibration;
static uint64_t normal_calibration;

/* Microseconds taken by PERF_CALIBRATION_TESTS start/stop pairs on counter 0. */
static uint64_t run_calibration(cl_perf_t *p_perf)
{
	uint64_t start = cl_get_time_stamp();
	uintn_t i;
	PERF_DECLARE(0);

	for (i = 0; i < PERF_CALIBRATION_TESTS; i++) {
		cl_perf_start(0);
		cl_perf_stop(p_perf, 0);
	}
	return cl_get_time_stamp() - start;
}

/* Measures the cost of the counters once per process, on a private container. */
static void calibrate(void)
{
	cl_perf_data_t data;
	cl_perf_t perf;
	cl_spinlock_t lock;

	cl_memclr(&data, sizeof(data));
	cl_memclr(&perf, sizeof(perf));
	data.min_time = ~(uint64_t)0;
	perf.data_array = &data;
	perf.size = 1;
	perf.state = CL_INITIALIZED;
	cl_spinlock_construct(&data.lock);
	cl_spinlock_construct(&lock);
	if (cl_spinlock_init(&data.lock) != CL_SUCCESS || cl_spinlock_init(&lock) != CL_SUCCESS)
		goto out;
	cl_spinlock_acquire(&lock);
	locked_calibration = run_calibration(&perf);
	cl_spinlock_release(&lock);
	normal_calibration = run_calibration(&perf);
out:
	cl_spinlock_destroy(&lock);
	cl_spinlock_destroy(&data.lock);
}

void __cl_perf_construct(cl_perf_t *const p_perf)
{
	CL_ASSERT(p_perf);
	cl_memclr(p_perf, sizeof(*p_perf));
	p_perf->state = CL_UNINITIALIZED;
}

static void reset_counter(cl_perf_data_t *d)
{
	d->count = 0;
	d->total_time = 0;
	d->min_time = ~(uint64_t)0;
}

cl_status_t __cl_perf_init(cl_perf_t *const p_perf, const uintn_t num_counters)
{
	cl_status_t status;
	uintn_t i;

	if (!p_perf || !num_counters)
		return CL_INVALID_PARAMETER;
	__cl_perf_construct(p_perf);
	if (num_counters > SIZE_MAX / sizeof(cl_perf_data_t))
		return CL_INSUFFICIENT_MEMORY;
	p_perf->data_array = (cl_perf_data_t *)cl_zalloc(sizeof(cl_perf_data_t) * num_counters);
	if (!p_perf->data_array)
		return CL_INSUFFICIENT_MEMORY;
	p_perf->size = num_counters;
	for (i = 0; i < num_counters; i++) {
		reset_counter(&p_perf->data_array[i]);
		cl_spinlock_construct(&p_perf->data_array[i].lock);
	}
	for (i = 0; i < num_counters; i++) {
		status = cl_spinlock_init(&p_perf->data_array[i].lock);
		if (status != CL_SUCCESS) {
			__cl_perf_destroy(p_perf, FALSE);
			return status;
		}
	}
	pthread_once(&calibration_once, calibrate);
	p_perf->locked_calibration_time = locked_calibration;
	p_perf->normal_calibration_time = normal_calibration;
	p_perf->state = CL_INITIALIZED;
	return CL_SUCCESS;
}

void __cl_perf_destroy(cl_perf_t *const p_perf, const boolean_t display)
{
	uintn_t i;

	CL_ASSERT(p_perf && cl_is_state_valid(p_perf->state));
	if (!p_perf->data_array)
		return;
	if (display && p_perf->state == CL_INITIALIZED)
		__cl_perf_display(p_perf);
	for (i = 0; i < p_perf->size; i++)
		cl_spinlock_destroy(&p_perf->data_array[i].lock);
	cl_free(p_perf->data_array);
	p_perf->data_array = NULL;
	p_perf->size = 0;
	p_perf->state = CL_UNINITIALIZED;
}

void __cl_perf_reset(cl_perf_t *const p_perf)
{
	uintn_t i;

	CL_ASSERT(p_perf && p_perf->state == CL_INITIALIZED);
	for (i = 0; i < p_perf->size; i++) {
		cl_spinlock_acquire(&p_perf->data_array[i].lock);
		reset_counter(&p_perf->data_array[i]);
		cl_spinlock_release(&p_perf->data_array[i].lock);
	}
}

void __cl_perf_display(const cl_perf_t *const p_perf)
{
	uintn_t i;

	CL_ASSERT(p_perf && p_perf->state == CL_INITIALIZED);
	cl_msg_out("\n\n\nCL Perf:\tPerformance Data\n");
	cl_msg_out("CL Perf:\tCounter Calibration Time\n");
	cl_msg_out("CL Perf:\tLocked TotalTime\tNormal TotalTime\tTest Count\n");
	cl_msg_out("CL Perf:\t%" PRIu64 "\t%" PRIu64 "\t%u\n", p_perf->locked_calibration_time,
		   p_perf->normal_calibration_time, (unsigned)PERF_CALIBRATION_TESTS);
	cl_msg_out("CL Perf:\tUser Performance Counters\n");
	cl_msg_out("CL Perf:\tIndex\tTotalTime\tMinTime\tCount\n");
	for (i = 0; i < p_perf->size; i++)
		cl_msg_out(cl_get_perf_string(p_perf, i));
	cl_msg_out("CL Perf:\tEnd of User Performance Counters\n");
}
