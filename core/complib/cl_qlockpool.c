/*
 * ibal complib: set-up and tear-down of the quick locking pool.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qlockpool.h>

cl_status_t cl_qlock_pool_init(cl_qlock_pool_t *const p_pool, const size_t min_size,
			       const size_t max_size, const size_t grow_size,
			       const size_t object_size, cl_pfn_qpool_init_t pfn_initializer,
			       cl_pfn_qpool_dtor_t pfn_destructor, const void *const context)
{
	cl_status_t status;

	CL_ASSERT(p_pool);
	cl_qlock_pool_construct(p_pool);
	status = cl_spinlock_init(&p_pool->lock);
	if (status != CL_SUCCESS)
		return status;
	return cl_qpool_init(&p_pool->pool, min_size, max_size, grow_size, object_size,
			     pfn_initializer, pfn_destructor, context);
}

void cl_qlock_pool_destroy(cl_qlock_pool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	/* A pool in use: take the lock so that a thread still inside get or put
	 * finishes before the memory goes away. */
	if (cl_is_qpool_inited(&p_pool->pool)) {
		cl_spinlock_acquire(&p_pool->lock);
		cl_qpool_destroy(&p_pool->pool);
		cl_spinlock_release(&p_pool->lock);
	} else {
		cl_qpool_destroy(&p_pool->pool);
	}
	cl_spinlock_destroy(&p_pool->lock);
}
