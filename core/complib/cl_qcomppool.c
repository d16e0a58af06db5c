/*
 * ibal complib: the out-of-line quick composite pool operations.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_qcomppool.h>
#include <complib/cl_memory.h>

/* Each component starts on a pointer-size boundary. Sizes too large to
 * round stay huge (never wrap to a small value): growth then fails. */
static size_t round_up_ptr(size_t n)
{
	const size_t mask = sizeof(uintptr_t) - 1;

	if (n > SIZE_MAX - mask)
		return SIZE_MAX & ~mask;
	return (n + mask) & ~mask;
}

/* Pools look at a cl_pool_obj_t through the cl_pool_item_t view. */
#ifdef _DEBUG_
_Static_assert(offsetof(cl_pool_item_t, p_pool) == offsetof(cl_pool_obj_t, p_pool),
	       "cl_pool_item_t and cl_pool_obj_t must place p_pool alike");
#endif
_Static_assert(sizeof(cl_pool_item_t) <= sizeof(cl_pool_obj_t),
	       "a cl_pool_obj_t must hold a cl_pool_item_t");

/* Bytes before the first object of a block: the block's link on alloc_list,
 * padded so that objects start 16-byte aligned like malloc's result. */
#define BLOCK_HDR ((sizeof(cl_list_item_t) + 15) & ~(size_t)15)

/* The first object of a block starts on a cache line (the header is
 * followed by up to BLOCK_SLACK bytes of padding): a 64-byte object, such as
 * a cl_map_t's item, then spans one line instead of two. */
#define BLOCK_ALIGN ((size_t)64)
#define BLOCK_SLACK (BLOCK_ALIGN - 1)

void cl_qcpool_construct(cl_qcpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_memclr(p_pool, sizeof(*p_pool));
	cl_qlist_init(&p_pool->free_list);
	cl_qlist_init(&p_pool->alloc_list);
	p_pool->state = CL_UNINITIALIZED;
}

static cl_status_t check_settings(size_t min_size, size_t max_size,
				  const size_t *component_sizes, uint32_t num_components,
				  cl_pfn_qcpool_init_t pfn_initializer)
{
	if (!num_components || !component_sizes)
		return CL_INVALID_SETTING;
	if (!pfn_initializer &&
	    (num_components > 1 || component_sizes[0] < sizeof(cl_pool_item_t)))
		return CL_INVALID_SETTING;
	if (max_size && max_size < min_size)
		return CL_INVALID_SETTING;
	return CL_SUCCESS;
}

cl_status_t cl_qcpool_init(cl_qcpool_t *const p_pool, const size_t min_size,
			   const size_t max_size, const size_t grow_size,
			   const size_t *const component_sizes, const uint32_t num_components,
			   cl_pfn_qcpool_init_t pfn_initializer,
			   cl_pfn_qcpool_dtor_t pfn_destructor, const void *const context)
{
	cl_status_t status;
	uint32_t i;

	CL_ASSERT(p_pool);
	cl_qcpool_construct(p_pool);
	status = check_settings(min_size, max_size, component_sizes, num_components,
				pfn_initializer);
	if (status != CL_SUCCESS)
		return status;

	/* Sizes and the scratch pointer array share one allocation. */
	p_pool->component_sizes =
		(size_t *)cl_zalloc((sizeof(size_t) + sizeof(void *)) * num_components);
	if (!p_pool->component_sizes)
		return CL_INSUFFICIENT_MEMORY;
	p_pool->p_components = (void **)(void *)(p_pool->component_sizes + num_components);
	for (i = 0; i < num_components; i++)
		p_pool->component_sizes[i] = round_up_ptr(component_sizes[i]);
	p_pool->num_components = num_components;
	p_pool->max_objects = max_size ? max_size : SIZE_MAX;
	p_pool->grow_size = grow_size;
	p_pool->pfn_init = pfn_initializer;
	p_pool->pfn_dtor = pfn_destructor;
	p_pool->context = context;
	p_pool->state = CL_INITIALIZED;

	if (!min_size)
		return CL_SUCCESS;
	status = cl_qcpool_grow(p_pool, min_size);
	if (status != CL_SUCCESS)
		cl_qcpool_destroy(p_pool);
	return status;
}

void cl_qcpool_destroy(cl_qcpool_t *const p_pool)
{
	cl_list_item_t *p_item;

	CL_ASSERT(p_pool);
	CL_ASSERT(cl_is_state_valid(p_pool->state));
	if (p_pool->state == CL_INITIALIZED) {
		/* Objects still handed out get no destructor call: the caller
		 * broke the contract by not returning them. */
		if (p_pool->pfn_dtor) {
			while (!cl_is_qlist_empty(&p_pool->free_list)) {
				p_item = cl_qlist_remove_head(&p_pool->free_list);
				p_pool->pfn_dtor((cl_pool_item_t *)(void *)p_item,
						 (void *)p_pool->context);
			}
		}
		cl_qlist_remove_all(&p_pool->free_list);
		while (!cl_is_qlist_empty(&p_pool->alloc_list))
			cl_free(cl_qlist_remove_head(&p_pool->alloc_list));
		cl_free(p_pool->component_sizes);
		p_pool->component_sizes = NULL;
		p_pool->p_components = NULL;
		p_pool->num_objects = 0;
	}
	p_pool->state = CL_UNINITIALIZED;
}

/* Points p_components at the components of the object at `p`. */
static void set_components(cl_qcpool_t *p_pool, uint8_t *p)
{
	uint32_t i;

	for (i = 0; i < p_pool->num_components; i++) {
		p_pool->p_components[i] = p;
		p += p_pool->component_sizes[i];
	}
}

/* Runs the initializer on the object whose components are set, and returns
 * its pool item in *pp_item. */
static cl_status_t init_object(cl_qcpool_t *p_pool, cl_pool_item_t **pp_item)
{
	cl_status_t status;

	if (!p_pool->pfn_init) {
		*pp_item = (cl_pool_item_t *)p_pool->p_components[0];
		return CL_SUCCESS;
	}
	*pp_item = NULL;
	status = p_pool->pfn_init(p_pool->p_components, p_pool->num_components,
				  (void *)p_pool->context, pp_item);
	if (status != CL_SUCCESS) {
		/* Let the caller undo a partial initialization, if the
		 * initializer got as far as naming the object. */
		if (p_pool->pfn_dtor && *pp_item)
			p_pool->pfn_dtor(*pp_item, (void *)p_pool->context);
		return status;
	}
	CL_ASSERT(*pp_item);
	return *pp_item ? CL_SUCCESS : CL_ERROR;
}

cl_status_t cl_qcpool_grow(cl_qcpool_t *const p_pool, size_t obj_count)
{
	cl_pool_item_t *p_pool_item;
	cl_status_t status;
	size_t obj_size = 0, room;
	uint8_t *p_block, *p_obj;
	uint32_t i;

	CL_ASSERT(p_pool);
	CL_ASSERT(p_pool->state == CL_INITIALIZED);
	room = p_pool->max_objects - p_pool->num_objects;
	if (!room)
		return CL_INSUFFICIENT_MEMORY;
	if (!obj_count)
		return CL_SUCCESS;
	if (obj_count > room)
		obj_count = room;

	for (i = 0; i < p_pool->num_components; i++) {
		if (p_pool->component_sizes[i] > SIZE_MAX - obj_size)
			return CL_INSUFFICIENT_MEMORY;
		obj_size += p_pool->component_sizes[i];
	}
	if (obj_size && obj_count > (SIZE_MAX - BLOCK_HDR - BLOCK_SLACK) / obj_size)
		return CL_INSUFFICIENT_MEMORY;
	p_block = (uint8_t *)cl_zalloc(BLOCK_HDR + BLOCK_SLACK + obj_size * obj_count);
	if (!p_block)
		return CL_INSUFFICIENT_MEMORY;
	cl_qlist_insert_tail(&p_pool->alloc_list, (cl_list_item_t *)(void *)p_block);

	p_obj = p_block + BLOCK_HDR;
	p_obj += (BLOCK_ALIGN - (uintptr_t)p_obj % BLOCK_ALIGN) % BLOCK_ALIGN;
	for (; obj_count--; p_obj += obj_size) {
		set_components(p_pool, p_obj);
		status = init_object(p_pool, &p_pool_item);
		if (status != CL_SUCCESS)
			return status;
#ifdef _DEBUG_
		p_pool_item->p_pool = p_pool;
#endif
		cl_qlist_insert_head(&p_pool->free_list, &p_pool_item->list_item);
		p_pool->num_objects++;
	}
	return CL_SUCCESS;
}

cl_pool_item_t *__cl_qcpool_get_slow(cl_qcpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	CL_ASSERT(p_pool->state == CL_INITIALIZED);
	if (cl_is_qlist_empty(&p_pool->free_list)) {
		if (!p_pool->grow_size)
			return NULL;
		/* A partial growth still leaves something to hand out. */
		(void)cl_qcpool_grow(p_pool, p_pool->grow_size);
		if (cl_is_qlist_empty(&p_pool->free_list))
			return NULL;
	}
	return (cl_pool_item_t *)(void *)cl_qlist_remove_head(&p_pool->free_list);
}
