/*
 * ibal complib: vector storage management and element callbacks.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_vector.h>
#include "cl_internal.h"
#include <complib/cl_memory.h>

/*
 * Elements live in zero-filled blocks, one per growth, each starting with a
 * cl_list_item_t header (padded to 16 bytes so elements stay aligned) that
 * links the block on alloc_list. p_ptr_array maps an index to its element;
 * its allocated length is a function of the capacity (next power of two),
 * so growing by small steps re-allocates it only O(log n) times.
 */
#define BLOCK_HDR ((sizeof(cl_list_item_t) + 15u) & ~(size_t)15u)

static size_t ptr_array_len(size_t capacity)
{
	size_t len = 16;

	if (!capacity)
		return 0;
	if (capacity > SIZE_MAX / 4)
		return SIZE_MAX; /* too large for any allocation */
	while (len < capacity)
		len <<= 1;
	return len;
}

/* Copies one element; the common sizes become single moves. */
static inline void copy_elem(void *const p_dest, const void *const p_src, const size_t size)
{
	switch (size) {
	case 1:
		memcpy(p_dest, p_src, 1);
		break;
	case 2:
		memcpy(p_dest, p_src, 2);
		break;
	case 4:
		memcpy(p_dest, p_src, 4);
		break;
	case 8:
		memcpy(p_dest, p_src, 8);
		break;
	case 16:
		memcpy(p_dest, p_src, 16);
		break;
	default:
		memcpy(p_dest, p_src, size);
		break;
	}
}

static void CL_API copy_any(void *const p_dest, const void *const p_src, const size_t size)
{
	copy_elem(p_dest, p_src, size);
}

void cl_vector_construct(cl_vector_t *const p_vector)
{
	CL_ASSERT(p_vector);
	memset(p_vector, 0, sizeof(*p_vector));
	cl_qlist_init(&p_vector->alloc_list);
	p_vector->state = CL_UNINITIALIZED;
}

cl_status_t cl_vector_init(cl_vector_t *const p_vector, const size_t min_size,
			   const size_t grow_size, const size_t element_size,
			   cl_pfn_vec_init_t pfn_init, cl_pfn_vec_dtor_t pfn_dtor,
			   const void *const context)
{
	cl_status_t status = CL_SUCCESS;

	CL_ASSERT(p_vector);
	cl_vector_construct(p_vector);
	if (!element_size)
		return CL_INVALID_PARAMETER;
	p_vector->grow_size = grow_size;
	p_vector->element_size = element_size;
	p_vector->pfn_init = pfn_init;
	p_vector->pfn_dtor = pfn_dtor;
	p_vector->pfn_copy = copy_any;
	p_vector->context = context;
	p_vector->state = CL_INITIALIZED;
	if (min_size) {
		/* A vector that may not grow still gets its initial elements. */
		if (!grow_size)
			status = cl_vector_set_capacity(p_vector, min_size);
		if (status == CL_SUCCESS)
			status = cl_vector_set_size(p_vector, min_size);
		if (status != CL_SUCCESS)
			cl_vector_destroy(p_vector);
	}
	return status;
}

void cl_vector_destroy(cl_vector_t *const p_vector)
{
	size_t i;

	CL_ASSERT(p_vector && cl_is_state_valid(p_vector->state));
	if (p_vector->state == CL_INITIALIZED) {
		if (p_vector->pfn_dtor)
			for (i = 0; i < p_vector->size; i++)
				p_vector->pfn_dtor(p_vector->p_ptr_array[i], (void *)p_vector->context);
		while (!cl_is_qlist_empty(&p_vector->alloc_list))
			cl_free(cl_qlist_remove_head(&p_vector->alloc_list));
		cl_free(p_vector->p_ptr_array);
		p_vector->p_ptr_array = NULL;
		p_vector->size = 0;
		p_vector->capacity = 0;
	}
	p_vector->state = CL_UNINITIALIZED;
}

cl_status_t cl_vector_at(const cl_vector_t *const p_vector, const size_t index,
			 void *const p_element)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && p_element);
	if (index >= p_vector->size)
		return CL_INVALID_PARAMETER;
	cl_vector_get(p_vector, index, p_element);
	return CL_SUCCESS;
}

cl_status_t cl_vector_set(cl_vector_t *const p_vector, const size_t index, void *const p_element)
{
	cl_status_t status;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && p_element);
	if (index >= p_vector->size) {
		status = cl_vector_set_size(p_vector, index + 1);
		if (status != CL_SUCCESS && p_vector->size <= index)
			return status;
	}
	copy_elem(p_vector->p_ptr_array[index], p_element, p_vector->element_size);
	return CL_SUCCESS;
}

cl_status_t cl_vector_set_capacity(cl_vector_t *const p_vector, const size_t new_capacity)
{
	size_t old, len, add, i;
	void **arr;
	uint8_t *block;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	old = p_vector->capacity;
	if (new_capacity <= old)
		return CL_SUCCESS;
	add = new_capacity - old;
	len = ptr_array_len(new_capacity);
	if (len > SIZE_MAX / sizeof(void *) || add > (SIZE_MAX - BLOCK_HDR) / p_vector->element_size)
		return CL_INSUFFICIENT_MEMORY;
	/* Allocate everything first so that a failure changes nothing. */
	block = (uint8_t *)cl_zalloc(BLOCK_HDR + add * p_vector->element_size);
	if (!block)
		return CL_INSUFFICIENT_MEMORY;
	arr = p_vector->p_ptr_array;
	if (len != ptr_array_len(old)) {
		arr = (void **)cl_malloc(len * sizeof(void *));
		if (!arr) {
			cl_free(block);
			return CL_INSUFFICIENT_MEMORY;
		}
		if (old)
			memcpy(arr, p_vector->p_ptr_array, old * sizeof(void *));
		cl_free(p_vector->p_ptr_array);
		p_vector->p_ptr_array = arr;
	}
	cl_qlist_insert_tail(&p_vector->alloc_list, (cl_list_item_t *)(void *)block);
	block += BLOCK_HDR;
	for (i = old; i < new_capacity; i++, block += p_vector->element_size)
		arr[i] = block;
	p_vector->capacity = new_capacity;
	return CL_SUCCESS;
}

cl_status_t cl_vector_set_size(cl_vector_t *const p_vector, const size_t size)
{
	cl_status_t status;
	size_t cap, i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (size == p_vector->size)
		return CL_SUCCESS;
	if (size > p_vector->capacity) {
		status = cl_grow_capacity(size, p_vector->grow_size, &cap);
		if (status != CL_SUCCESS)
			return status;
		status = cl_vector_set_capacity(p_vector, cap);
		if (status != CL_SUCCESS)
			return status;
	}
	if (size > p_vector->size) {
		if (p_vector->pfn_init) {
			for (i = p_vector->size; i < size; i++) {
				void *p = p_vector->p_ptr_array[i];

				status = p_vector->pfn_init(p, (void *)p_vector->context);
				if (status != CL_SUCCESS) {
					if (p_vector->pfn_dtor)
						p_vector->pfn_dtor(p, (void *)p_vector->context);
					return status;
				}
				p_vector->size = i + 1;
			}
		}
	} else if (p_vector->pfn_dtor) {
		for (i = size; i < p_vector->size; i++)
			p_vector->pfn_dtor(p_vector->p_ptr_array[i], (void *)p_vector->context);
	}
	p_vector->size = size;
	return CL_SUCCESS;
}

cl_status_t cl_vector_set_min_size(cl_vector_t *const p_vector, const size_t min_size)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (min_size > p_vector->size)
		return cl_vector_set_size(p_vector, min_size);
	return CL_SUCCESS;
}

void cl_vector_apply_func(const cl_vector_t *const p_vector, cl_pfn_vec_apply_t pfn_callback,
			  const void *const context)
{
	size_t i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && pfn_callback);
	for (i = 0; i < p_vector->size; i++)
		pfn_callback(i, p_vector->p_ptr_array[i], (void *)context);
}

size_t cl_vector_find_from_start(const cl_vector_t *const p_vector,
				 cl_pfn_vec_find_t pfn_callback, const void *const context)
{
	size_t i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && pfn_callback);
	for (i = 0; i < p_vector->size; i++)
		if (pfn_callback(i, p_vector->p_ptr_array[i], (void *)context) == CL_SUCCESS)
			break;
	return i;
}

size_t cl_vector_find_from_end(const cl_vector_t *const p_vector, cl_pfn_vec_find_t pfn_callback,
			       const void *const context)
{
	size_t i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && pfn_callback);
	for (i = p_vector->size; i--;)
		if (pfn_callback(i, p_vector->p_ptr_array[i], (void *)context) == CL_SUCCESS)
			return i;
	return p_vector->size;
}
