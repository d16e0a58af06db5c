/*
 * ibal complib: threads over pthreads, sleeping, stalling, processor count.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <complib/cl_thread.h>
#include "ibal_cpu.h"
#include "ibal_time.h"

/* The cl_thread_t the calling thread runs, if complib started it. */
static __thread const cl_thread_t *current_thread;

static void *thread_main(void *arg)
{
	cl_thread_t *p_thread = (cl_thread_t *)arg;

	current_thread = p_thread;
	if (p_thread->name[0])
		pthread_setname_np(pthread_self(), p_thread->name);
	p_thread->pfn_callback((void *)p_thread->context);
	current_thread = NULL;
	return NULL;
}

void cl_thread_construct(cl_thread_t *const p_thread)
{
	CL_ASSERT(p_thread);
	p_thread->osd.started = FALSE;
	p_thread->pfn_callback = NULL;
	p_thread->context = NULL;
	p_thread->name[0] = '\0';
}

cl_status_t cl_thread_init(cl_thread_t *const p_thread, cl_pfn_thread_callback_t pfn_callback,
			   const void *const context, const char *const name)
{
	if (!p_thread)
		return CL_INVALID_PARAMETER;
	cl_thread_construct(p_thread);
	if (!pfn_callback)
		return CL_INVALID_PARAMETER;
	p_thread->pfn_callback = pfn_callback;
	p_thread->context = context;
	if (name) {
		strncpy(p_thread->name, name, sizeof(p_thread->name) - 1);
		p_thread->name[sizeof(p_thread->name) - 1] = '\0';
	}
	if (pthread_create(&p_thread->osd.id, NULL, thread_main, p_thread))
		return CL_ERROR;
	p_thread->osd.started = TRUE;
	return CL_SUCCESS;
}

void cl_thread_destroy(cl_thread_t *const p_thread)
{
	CL_ASSERT(p_thread);
	if (!p_thread->osd.started)
		return;
	p_thread->osd.started = FALSE;
	if (pthread_equal(pthread_self(), p_thread->osd.id))
		pthread_detach(p_thread->osd.id);	/* joining itself would deadlock */
	else
		pthread_join(p_thread->osd.id, NULL);
}

void cl_thread_suspend(const uint32_t pause_ms)
{
	struct timespec until;

	if (!pause_ms) {
		sched_yield();
		return;
	}
	until = ibal_time_after_us(CLOCK_MONOTONIC, (uint64_t)pause_ms * 1000u);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
		;
}

void cl_thread_stall(const uint32_t pause_us)
{
	uint64_t end = cl_get_tick_count() + (uint64_t)pause_us * 1000u;

	while (cl_get_tick_count() < end)
		ibal_cpu_relax();
}

uint32_t cl_proc_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (uint32_t)n : 1u;
}

boolean_t cl_is_current_thread(const cl_thread_t *const p_thread)
{
	return p_thread && current_thread == p_thread;
}
