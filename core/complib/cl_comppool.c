/*
 * ibal complib: composite pool, objects handed out by their first component.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_comppool.h>
#include <complib/cl_memory.h>

/* The pool's cl_pool_obj_t sits at the start of component 0; the caller's
 * first component follows it. */
static cl_status_t cpool_init_cb(void **const p_comp_array, const uint32_t num_components,
				 void *context, cl_pool_item_t **const pp_pool_item)
{
	cl_cpool_t *p_pool = (cl_cpool_t *)context;
	cl_pool_obj_t *p_pool_obj = (cl_pool_obj_t *)p_comp_array[0];

	CL_ASSERT(p_pool);
	*pp_pool_item = (cl_pool_item_t *)(void *)p_pool_obj;
	p_comp_array[0] = (uint8_t *)p_comp_array[0] + sizeof(cl_pool_obj_t);
	p_pool_obj->list_obj.p_object = p_comp_array[0];
	if (!p_pool->pfn_init)
		return CL_SUCCESS;
	return p_pool->pfn_init(p_comp_array, num_components, (void *)p_pool->context);
}

static void cpool_dtor_cb(const cl_pool_item_t *const p_pool_item, void *context)
{
	cl_cpool_t *p_pool = (cl_cpool_t *)context;
	const cl_pool_obj_t *p_pool_obj = (const cl_pool_obj_t *)(const void *)p_pool_item;

	CL_ASSERT(p_pool && p_pool->pfn_dtor && p_pool_obj->list_obj.p_object);
	p_pool->pfn_dtor((void *)p_pool_obj->list_obj.p_object, (void *)p_pool->context);
}

void cl_cpool_construct(cl_cpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_memclr(p_pool, sizeof(*p_pool));
	cl_qcpool_construct(&p_pool->qcpool);
}

/* Sizes arrays up to this many components are copied on the stack. */
#define CPOOL_STACK_COMPONENTS 8

cl_status_t cl_cpool_init(cl_cpool_t *const p_pool, const size_t min_size,
			  const size_t max_size, const size_t grow_size,
			  size_t *const component_sizes, const uint32_t num_components,
			  cl_pfn_cpool_init_t pfn_initializer,
			  cl_pfn_cpool_dtor_t pfn_destructor, const void *const context)
{
	size_t stack_sizes[CPOOL_STACK_COMPONENTS], *sizes = stack_sizes;
	cl_status_t status;

	CL_ASSERT(p_pool);
	cl_cpool_construct(p_pool);
	if (!num_components || !component_sizes)
		return CL_INVALID_SETTING;
	/* Documented: only a one-component object may go without initializer. */
	if (num_components > 1 && !pfn_initializer)
		return CL_INVALID_SETTING;
	/* Work on a copy: the caller's array may be read-only. */
	if (num_components > CPOOL_STACK_COMPONENTS) {
		sizes = (size_t *)cl_malloc(sizeof(size_t) * num_components);
		if (!sizes)
			return CL_INSUFFICIENT_MEMORY;
	}
	cl_memcpy(sizes, component_sizes, sizeof(size_t) * num_components);
	if (sizes[0] > SIZE_MAX - sizeof(cl_pool_obj_t))
		sizes[0] = SIZE_MAX;	/* growth will fail for lack of memory */
	else
		sizes[0] += sizeof(cl_pool_obj_t);

	p_pool->pfn_init = pfn_initializer;
	p_pool->pfn_dtor = pfn_destructor;
	p_pool->context = context;
	status = cl_qcpool_init(&p_pool->qcpool, min_size, max_size, grow_size, sizes,
				num_components, cpool_init_cb,
				pfn_destructor ? cpool_dtor_cb : NULL, p_pool);
	if (sizes != stack_sizes)
		cl_free(sizes);
	return status;
}
