/*
 * ibal complib: asynchronous processor, its queue, workers and final flush.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <time.h>
#include <complib/cl_async_proc.h>
#include "cl_internal.h"
#include "ibal_time.h"

/* A callback running longer than this is reported as a diagnostic. */
#define ASYNC_SLOW_CB_MS 5000u

/* The coarse clock (a few ms fine, ample for a 5 s threshold): the kernel
 * answers it from the vDSO whatever its clock source, where a precise
 * reading is a system call on some (an emulated guest's), two per item. */
static uint64_t now_ms(void)
{
	return ibal_time_ms(CLOCK_MONOTONIC_COARSE);
}

static void run_item(cl_async_proc_t *p, cl_async_proc_item_t *p_item)
{
	cl_pfn_async_proc_cb_t pfn = p_item->pfn_callback;
	uint64_t start = now_ms(), took;

	/* The item may be reused or freed by its callback: touch it no more. */
	pfn(p_item);
	took = now_ms() - start;
	if (took > ASYNC_SLOW_CB_MS)
		cl_out_printf("complib: async_proc %p: callback %p took %llu ms\n", (void *)p,
			      (void *)(uintptr_t)pfn, (unsigned long long)took);
}

/* Runs queued items until the queue is empty; the lock is never held while a
 * callback runs. Used by the pool threads and by destroy's final flush. */
static void drain_queue(cl_async_proc_t *p)
{
	cl_list_item_t *it;

	cl_spinlock_acquire(&p->lock);
	for (;;) {
		it = cl_qlist_remove_head(&p->item_queue);
		if (it == cl_qlist_end(&p->item_queue))
			break;
		cl_spinlock_release(&p->lock);
		run_item(p, PARENT_STRUCT(it, cl_async_proc_item_t, pool_item.list_item));
		cl_spinlock_acquire(&p->lock);
	}
	cl_spinlock_release(&p->lock);
}

static void CL_API async_worker(void *context)
{
	drain_queue((cl_async_proc_t *)context);
}

void cl_async_proc_construct(cl_async_proc_t *const p_async_proc)
{
	CL_ASSERT(p_async_proc);
	cl_qlist_init(&p_async_proc->item_queue);
	cl_spinlock_construct(&p_async_proc->lock);
	cl_thread_pool_construct(&p_async_proc->thread_pool);
	p_async_proc->state = CL_UNINITIALIZED;
}

cl_status_t cl_async_proc_init(cl_async_proc_t *const p_async_proc, const uint32_t thread_count,
			       const char *const name)
{
	cl_status_t status;

	CL_ASSERT(p_async_proc);
	cl_async_proc_construct(p_async_proc);
	status = cl_spinlock_init(&p_async_proc->lock);
	if (status == CL_SUCCESS)
		status = cl_thread_pool_init(&p_async_proc->thread_pool, thread_count, async_worker,
					     p_async_proc, name);
	if (status != CL_SUCCESS) {
		cl_async_proc_destroy(p_async_proc);
		return status;
	}
	p_async_proc->state = CL_INITIALIZED;
	return CL_SUCCESS;
}

void cl_async_proc_destroy(cl_async_proc_t *const p_async_proc)
{
	cl_async_proc_t *p = p_async_proc;
	boolean_t flush = FALSE;

	CL_ASSERT(p);
	if (p->state == CL_INITIALIZED) {
		/* From now on queueing no longer wakes the pool, whose event is
		 * about to go away; the flush below picks those items up. */
		cl_spinlock_acquire(&p->lock);
		p->state = CL_DESTROYING;
		cl_spinlock_release(&p->lock);
		flush = TRUE;
	}
	cl_thread_pool_destroy(&p->thread_pool);
	if (flush)
		drain_queue(p);
	cl_spinlock_destroy(&p->lock);
	p->state = CL_DESTROYED;
}

void cl_async_proc_queue(cl_async_proc_t *const p_async_proc, cl_async_proc_item_t *const p_item)
{
	cl_async_proc_t *p = p_async_proc;

	CL_ASSERT(p && p_item && p_item->pfn_callback);
	cl_spinlock_acquire(&p->lock);
	CL_ASSERT(p->state == CL_INITIALIZED || p->state == CL_DESTROYING);
	cl_qlist_insert_tail(&p->item_queue, &p_item->pool_item.list_item);
	/* Signal under the lock: destroy changes the state under this lock
	 * before it tears the pool down, so the pool is alive here. */
	if (p->state == CL_INITIALIZED)
		cl_thread_pool_signal(&p->thread_pool);
	cl_spinlock_release(&p->lock);
}
