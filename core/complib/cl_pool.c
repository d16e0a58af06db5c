/*
 * ibal complib: pool, a one-component pool of opaque objects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_pool.h>
#include <complib/cl_memory.h>

/* The pool's cl_pool_obj_t precedes each object in the same component. */
static cl_status_t pool_init_cb(void **const pp_obj, const uint32_t count, void *context,
				cl_pool_item_t **const pp_pool_item)
{
	cl_pool_t *p_pool = (cl_pool_t *)context;
	cl_pool_obj_t *p_pool_obj = (cl_pool_obj_t *)pp_obj[0];

	CL_ASSERT(p_pool && count == 1);
	(void)count;
	*pp_pool_item = (cl_pool_item_t *)(void *)p_pool_obj;
	pp_obj[0] = (uint8_t *)pp_obj[0] + sizeof(cl_pool_obj_t);
	p_pool_obj->list_obj.p_object = pp_obj[0];
	if (!p_pool->pfn_init)
		return CL_SUCCESS;
	return p_pool->pfn_init(pp_obj[0], (void *)p_pool->context);
}

static void pool_dtor_cb(const cl_pool_item_t *const p_pool_item, void *context)
{
	cl_pool_t *p_pool = (cl_pool_t *)context;
	const cl_pool_obj_t *p_pool_obj = (const cl_pool_obj_t *)(const void *)p_pool_item;

	CL_ASSERT(p_pool && p_pool->pfn_dtor && p_pool_obj->list_obj.p_object);
	p_pool->pfn_dtor((void *)p_pool_obj->list_obj.p_object, (void *)p_pool->context);
}

void cl_pool_construct(cl_pool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_memclr(p_pool, sizeof(*p_pool));
	cl_qcpool_construct(&p_pool->qcpool);
}

cl_status_t cl_pool_init(cl_pool_t *const p_pool, const size_t min_count,
			 const size_t max_count, const size_t grow_size, const size_t object_size,
			 cl_pfn_pool_init_t pfn_initializer, cl_pfn_pool_dtor_t pfn_destructor,
			 const void *const context)
{
	size_t total_size;

	CL_ASSERT(p_pool);
	cl_pool_construct(p_pool);
	if (object_size > SIZE_MAX - sizeof(cl_pool_obj_t))
		return CL_INSUFFICIENT_MEMORY;
	total_size = object_size + sizeof(cl_pool_obj_t);
	p_pool->pfn_init = pfn_initializer;
	p_pool->pfn_dtor = pfn_destructor;
	p_pool->context = context;
	return cl_qcpool_init(&p_pool->qcpool, min_count, max_count, grow_size, &total_size, 1,
			      pool_init_cb, pfn_destructor ? pool_dtor_cb : NULL, p_pool);
}
