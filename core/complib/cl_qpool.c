/*
 * ibal complib: quick pool, a one-component quick composite pool.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qpool.h>
#include <complib/cl_memory.h>

/* Adapts the composite initializer to the caller's quick pool initializer. */
static cl_status_t qpool_init_cb(void **const p_comp_array, const uint32_t num_components,
				 void *context, cl_pool_item_t **const pp_pool_item)
{
	cl_qpool_t *p_pool = (cl_qpool_t *)context;

	CL_ASSERT(p_pool && p_pool->pfn_init && num_components == 1);
	(void)num_components;
	return p_pool->pfn_init(p_comp_array[0], (void *)p_pool->context, pp_pool_item);
}

/* Adapts the composite destructor to the caller's quick pool destructor. */
static void qpool_dtor_cb(const cl_pool_item_t *const p_pool_item, void *context)
{
	cl_qpool_t *p_pool = (cl_qpool_t *)context;

	CL_ASSERT(p_pool && p_pool->pfn_dtor);
	p_pool->pfn_dtor(p_pool_item, (void *)p_pool->context);
}

void cl_qpool_construct(cl_qpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_memclr(p_pool, sizeof(*p_pool));
	cl_qcpool_construct(&p_pool->qcpool);
}

cl_status_t cl_qpool_init(cl_qpool_t *const p_pool, const size_t min_size,
			  const size_t max_size, const size_t grow_size,
			  const size_t object_size, cl_pfn_qpool_init_t pfn_initializer,
			  cl_pfn_qpool_dtor_t pfn_destructor, const void *const context)
{
	CL_ASSERT(p_pool);
	p_pool->pfn_init = pfn_initializer;
	p_pool->pfn_dtor = pfn_destructor;
	p_pool->context = context;
	return cl_qcpool_init(&p_pool->qcpool, min_size, max_size, grow_size, &object_size, 1,
			      pfn_initializer ? qpool_init_cb : NULL,
			      pfn_destructor ? qpool_dtor_cb : NULL, p_pool);
}
