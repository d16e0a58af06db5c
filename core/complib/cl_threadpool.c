/*
 * ibal complib: thread pool threads, their wakeup and their shutdown.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_threadpool.h>
#include <complib/cl_atomic.h>
#include <complib/cl_memory.h>

/* How long destroy waits for one thread to report its exit before it posts
 * another wakeup (a wakeup may have been taken by a thread that was already
 * leaving, or merged with another one). */
#define POOL_EXIT_POLL_US 100000u

static boolean_t pool_exiting(cl_thread_pool_t *p)
{
	return __atomic_load_n(&p->exit, __ATOMIC_ACQUIRE);
}

static void CL_API pool_thread(void *context)
{
	cl_thread_pool_t *p = (cl_thread_pool_t *)context;
	cl_status_t status;

	while (!pool_exiting(p)) {
		/* Not interruptible: a signal delivered to the process must not
		 * make a pool thread quit. */
		status = cl_event_wait_on(&p->wakeup_event, EVENT_NO_TIMEOUT, FALSE);
		if (pool_exiting(p))
			break;
		if (status == CL_SUCCESS)
			p->pfn_callback((void *)p->context);
		else if (status != CL_TIMEOUT && status != CL_NOT_DONE)
			break;	/* the event is broken; destroy still finds us gone */
	}
	cl_atomic_dec(&p->running_count);
	cl_event_signal(&p->destroy_event);
}

void cl_thread_pool_construct(cl_thread_pool_t *const p_thread_pool)
{
	CL_ASSERT(p_thread_pool);
	cl_memclr(p_thread_pool, sizeof(*p_thread_pool));
	cl_event_construct(&p_thread_pool->wakeup_event);
	cl_event_construct(&p_thread_pool->destroy_event);
	p_thread_pool->state = CL_UNINITIALIZED;
}

static cl_status_t pool_start(cl_thread_pool_t *p, const char *name)
{
	cl_status_t status;
	uint32_t i;

	for (i = 0; i < p->thread_count; i++) {
		/* Count the thread before it runs so that destroy always waits
		 * for it; uncount it if it could not be started. */
		cl_atomic_inc(&p->running_count);
		status = cl_thread_init(&p->p_threads[i], pool_thread, p, name);
		if (status != CL_SUCCESS) {
			cl_atomic_dec(&p->running_count);
			return status;
		}
	}
	return CL_SUCCESS;
}

cl_status_t cl_thread_pool_init(cl_thread_pool_t *const p_thread_pool, uint32_t thread_count,
				cl_pfn_thread_callback_t pfn_callback, const void *const context,
				const char *const name)
{
	cl_thread_pool_t *p = p_thread_pool;
	cl_status_t status;
	uint32_t i;

	CL_ASSERT(p && pfn_callback);
	cl_thread_pool_construct(p);
	if (!thread_count)
		thread_count = (uint32_t)cl_proc_count();
	if (!thread_count)
		thread_count = 1;
	p->pfn_callback = pfn_callback;
	p->context = context;

	status = cl_event_init(&p->wakeup_event, FALSE);
	if (status == CL_SUCCESS)
		status = cl_event_init(&p->destroy_event, FALSE);
	if (status != CL_SUCCESS) {
		cl_thread_pool_destroy(p);
		return status;
	}
	p->p_threads = (cl_thread_t *)cl_zalloc(sizeof(cl_thread_t) * thread_count);
	if (!p->p_threads) {
		cl_thread_pool_destroy(p);
		return CL_INSUFFICIENT_MEMORY;
	}
	p->thread_count = thread_count;
	for (i = 0; i < thread_count; i++)
		cl_thread_construct(&p->p_threads[i]);

	status = pool_start(p, name);
	if (status != CL_SUCCESS) {
		cl_thread_pool_destroy(p);
		return status;
	}
	p->state = CL_INITIALIZED;
	return CL_SUCCESS;
}

void cl_thread_pool_destroy(cl_thread_pool_t *const p_thread_pool)
{
	cl_thread_pool_t *p = p_thread_pool;
	uint32_t i;

	CL_ASSERT(p && cl_is_state_valid(p->state));
	__atomic_store_n(&p->exit, TRUE, __ATOMIC_RELEASE);

	/* One wakeup releases at most one thread, and wakeups merge, so keep
	 * posting until every thread has reported its exit. A thread busy in
	 * the callback sees the exit flag when the callback returns. */
	while (__atomic_load_n(&p->running_count, __ATOMIC_ACQUIRE) > 0) {
		cl_event_signal(&p->wakeup_event);
		cl_event_wait_on(&p->destroy_event, POOL_EXIT_POLL_US, FALSE);
	}

	for (i = 0; i < p->thread_count; i++)
		cl_thread_destroy(&p->p_threads[i]);
	cl_free(p->p_threads);
	p->p_threads = NULL;
	p->thread_count = 0;

	cl_event_destroy(&p->destroy_event);
	cl_event_destroy(&p->wakeup_event);
	/* Leave the pool constructed, so that destroying it again is harmless. */
	cl_event_construct(&p->wakeup_event);
	cl_event_construct(&p->destroy_event);
	p->state = CL_UNINITIALIZED;
}

cl_status_t cl_thread_pool_signal(cl_thread_pool_t *const p_thread_pool)
{
	CL_ASSERT(p_thread_pool && p_thread_pool->state == CL_INITIALIZED);
	return cl_event_signal(&p_thread_pool->wakeup_event);
}
