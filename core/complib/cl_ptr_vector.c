/*
 * ibal complib: pointer vector storage management.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_ptr_vector.h>
#include "cl_internal.h"
#include <complib/cl_memory.h>

/*
 * The allocated length of p_ptr_array is a function of the capacity (next
 * power of two, at least 16), so growing by small steps re-allocates it only
 * O(log n) times. Entries at or above the size are kept NULL.
 */
static size_t array_len(size_t capacity)
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

void cl_ptr_vector_construct(cl_ptr_vector_t *const p_vector)
{
	CL_ASSERT(p_vector);
	memset(p_vector, 0, sizeof(*p_vector));
	p_vector->state = CL_UNINITIALIZED;
}

cl_status_t cl_ptr_vector_init(cl_ptr_vector_t *const p_vector, const size_t min_cap,
			       const size_t grow_size)
{
	cl_status_t status = CL_SUCCESS;

	CL_ASSERT(p_vector);
	cl_ptr_vector_construct(p_vector);
	p_vector->grow_size = grow_size;
	p_vector->state = CL_INITIALIZED;
	if (min_cap) {
		status = cl_ptr_vector_set_capacity(p_vector, min_cap);
		if (status != CL_SUCCESS)
			cl_ptr_vector_destroy(p_vector);
	}
	return status;
}

void cl_ptr_vector_destroy(cl_ptr_vector_t *const p_vector)
{
	CL_ASSERT(p_vector && cl_is_state_valid(p_vector->state));
	if (p_vector->state == CL_INITIALIZED) {
		cl_free((void *)p_vector->p_ptr_array);
		p_vector->p_ptr_array = NULL;
		p_vector->size = 0;
		p_vector->capacity = 0;
	}
	p_vector->state = CL_UNINITIALIZED;
}

cl_status_t cl_ptr_vector_at(const cl_ptr_vector_t *const p_vector, const size_t index,
			     void **const p_element)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && p_element);
	if (index >= p_vector->size)
		return CL_INVALID_PARAMETER;
	*p_element = (void *)p_vector->p_ptr_array[index];
	return CL_SUCCESS;
}

/*
 * The exported copy of the header's CL_EXTERN_INLINE cl_ptr_vector_set(), for
 * calls the compiler did not inline and for binaries built against headers
 * that only declared it. Keep the two bodies the same.
 */
cl_status_t cl_ptr_vector_set(cl_ptr_vector_t *const p_vector, const size_t index,
			      const void *const element)
{
	cl_status_t status;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (index >= p_vector->size) {
		status = cl_ptr_vector_set_size(p_vector, index + 1);
		if (status != CL_SUCCESS)
			return status;
	}
	p_vector->p_ptr_array[index] = element;
	return CL_SUCCESS;
}

void *cl_ptr_vector_remove(cl_ptr_vector_t *const p_vector, const size_t index)
{
	const void *element;
	size_t tail;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && index < p_vector->size);
	element = p_vector->p_ptr_array[index];
	tail = --p_vector->size - index;
	if (tail)
		memmove(&p_vector->p_ptr_array[index], &p_vector->p_ptr_array[index + 1],
			tail * sizeof(void *));
	p_vector->p_ptr_array[p_vector->size] = NULL;
	return (void *)element;
}

cl_status_t cl_ptr_vector_set_capacity(cl_ptr_vector_t *const p_vector, const size_t new_capacity)
{
	size_t len;
	const void **arr;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (new_capacity <= p_vector->capacity)
		return CL_SUCCESS;
	len = array_len(new_capacity);
	if (len != array_len(p_vector->capacity)) {
		if (!len || len > SIZE_MAX / sizeof(void *))
			return CL_INSUFFICIENT_MEMORY;
		arr = (const void **)cl_zalloc(len * sizeof(void *));
		if (!arr)
			return CL_INSUFFICIENT_MEMORY;
		if (p_vector->capacity)
			memcpy((void *)arr, (const void *)p_vector->p_ptr_array,
			       p_vector->capacity * sizeof(void *));
		cl_free((void *)p_vector->p_ptr_array);
		p_vector->p_ptr_array = arr;
	}
	p_vector->capacity = new_capacity;
	return CL_SUCCESS;
}

cl_status_t cl_ptr_vector_set_size(cl_ptr_vector_t *const p_vector, const size_t size)
{
	cl_status_t status;
	size_t cap;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (size == p_vector->size)
		return CL_SUCCESS;
	if (size > p_vector->capacity) {
		status = cl_grow_capacity(size, p_vector->grow_size, &cap);
		if (status != CL_SUCCESS)
			return status;
		status = cl_ptr_vector_set_capacity(p_vector, cap);
		if (status != CL_SUCCESS)
			return status;
	}
	if (size < p_vector->size)
		memset((void *)&p_vector->p_ptr_array[size], 0,
		       (p_vector->size - size) * sizeof(void *));
	p_vector->size = size;
	return CL_SUCCESS;
}

cl_status_t cl_ptr_vector_set_min_size(cl_ptr_vector_t *const p_vector, const size_t min_size)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (min_size > p_vector->size)
		return cl_ptr_vector_set_size(p_vector, min_size);
	return CL_SUCCESS;
}

void cl_ptr_vector_apply_func(const cl_ptr_vector_t *const p_vector,
			      cl_pfn_ptr_vec_apply_t pfn_callback, const void *const context)
{
	size_t i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && pfn_callback);
	for (i = 0; i < p_vector->size; i++)
		pfn_callback(i, (void *)p_vector->p_ptr_array[i], (void *)context);
}

size_t cl_ptr_vector_find_from_start(const cl_ptr_vector_t *const p_vector,
				     cl_pfn_ptr_vec_find_t pfn_callback, const void *const context)
{
	size_t i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && pfn_callback);
	for (i = 0; i < p_vector->size; i++)
		if (pfn_callback(i, p_vector->p_ptr_array[i], (void *)context) == CL_SUCCESS)
			break;
	return i;
}

size_t cl_ptr_vector_find_from_end(const cl_ptr_vector_t *const p_vector,
				   cl_pfn_ptr_vec_find_t pfn_callback, const void *const context)
{
	size_t i;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && pfn_callback);
	for (i = p_vector->size; i--;)
		if (pfn_callback(i, p_vector->p_ptr_array[i], (void *)context) == CL_SUCCESS)
			return i;
	return p_vector->size;
}
