/*
 * ibal complib: pointer vector, a self-sizing array of pointers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_ptr_vector.h
 * @brief Pointer vector: a growable array of `const void *` with O(1) access
 * by index, append (cl_ptr_vector_insert()) and removal that shifts the
 * following entries down.
 *
 * Entries that were never set read as NULL. cl_ptr_vector_get() does not
 * check the index; cl_ptr_vector_at() does.
 *
 * Thread safety: none; callers serialize access to one pointer vector.
 */
#ifndef _CL_PTR_VECTOR_H_
#define _CL_PTR_VECTOR_H_

#include <complib/cl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Callback of cl_ptr_vector_apply_func().
 * @param index the entry's index.
 * @param element the pointer stored there.
 * @param context the caller's context.
 */
typedef void (CL_API *cl_pfn_ptr_vec_apply_t)(IN const size_t index, IN void *const element,
					      IN void *context);

/**
 * Callback of cl_ptr_vector_find_from_start() / cl_ptr_vector_find_from_end().
 * @param index the entry's index.
 * @param element the pointer stored there.
 * @param context the caller's context.
 * @return CL_SUCCESS if the entry matches (stops the search);
 *         CL_NOT_FOUND to continue.
 */
typedef cl_status_t (CL_API *cl_pfn_ptr_vec_find_t)(IN const size_t index,
						    IN const void *const element,
						    IN void *context);

/** Pointer vector. Construct or initialize before use. Fields are private. */
typedef struct _cl_ptr_vector {
	size_t size;              /**< Number of entries in the vector. */
	size_t grow_size;         /**< Growth step in entries; 0 disables growth. */
	size_t capacity;          /**< Number of entries allocated. */
	const void **p_ptr_array; /**< The entries. */
	cl_state_t state;         /**< CL_INITIALIZED after a successful init. */
} cl_ptr_vector_t;

/**
 * Constructs a pointer vector so that cl_ptr_vector_destroy() is safe.
 * Cannot fail.
 * @param p_vector the pointer vector.
 */
void CL_API cl_ptr_vector_construct(IN cl_ptr_vector_t *const p_vector);

/**
 * Initializes an empty pointer vector with room for @p min_cap entries.
 * @param p_vector the pointer vector.
 * @param min_cap initial capacity (the size starts at 0).
 * @param grow_size number of entries added per growth; 0 makes the
 *        capacity fixed after initialization.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY (the vector is then left
 *         destroyed).
 */
cl_status_t CL_API cl_ptr_vector_init(IN cl_ptr_vector_t *const p_vector, IN const size_t min_cap,
				      IN const size_t grow_size);

/**
 * Destroys a pointer vector, freeing its storage (not the pointed-to
 * objects). Allowed after construct only.
 * @param p_vector the pointer vector.
 */
void CL_API cl_ptr_vector_destroy(IN cl_ptr_vector_t *const p_vector);

/**
 * Number of entries the vector can hold without allocating.
 * @param p_vector the pointer vector.
 * @return the capacity.
 */
CL_INLINE size_t CL_API cl_ptr_vector_get_capacity(IN const cl_ptr_vector_t *const p_vector)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	return p_vector->capacity;
}

/**
 * Number of entries in the vector (0 after construct only).
 * @param p_vector the pointer vector.
 * @return the size.
 */
CL_INLINE size_t CL_API cl_ptr_vector_get_size(IN const cl_ptr_vector_t *const p_vector)
{
	CL_ASSERT(p_vector && (p_vector->state == CL_UNINITIALIZED ||
			       p_vector->state == CL_INITIALIZED));
	return p_vector->size;
}

/**
 * Entry at an index. No bounds check.
 * @param p_vector the pointer vector.
 * @param index an index below the size.
 * @return the pointer stored there.
 */
CL_INLINE void *CL_API cl_ptr_vector_get(IN const cl_ptr_vector_t *const p_vector,
					 IN const size_t index)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	CL_ASSERT(p_vector->size > index);
	return (void *)p_vector->p_ptr_array[index];
}

/**
 * Entry at an index, checking the index.
 * @param p_vector the pointer vector.
 * @param index the index.
 * @param p_element receives the pointer stored there on success.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p index is not below the size.
 */
cl_status_t CL_API cl_ptr_vector_at(IN const cl_ptr_vector_t *const p_vector,
				    IN const size_t index, OUT void **const p_element);

/* Documented below; cl_ptr_vector_set() calls it to grow. */
cl_status_t CL_API cl_ptr_vector_set_size(IN cl_ptr_vector_t *const p_vector,
					  IN const size_t size);

/**
 * Stores a pointer at an index, growing the vector to index + 1 entries if
 * needed (entries in between read as NULL).
 *
 * Inline (CL_EXTERN_INLINE): an index below the size is one store in the
 * caller; growing calls cl_ptr_vector_set_size(). The library exports the
 * same function for calls that are not inlined.
 * @param p_vector the pointer vector.
 * @param index the index.
 * @param element the pointer to store.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if the vector could not grow
 *         (including when its grow size is 0).
 */
CL_EXTERN_INLINE cl_status_t CL_API cl_ptr_vector_set(IN cl_ptr_vector_t *const p_vector,
						      IN const size_t index,
						      IN const void *const element)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (__builtin_expect(index >= p_vector->size, 0)) {
		cl_status_t status = cl_ptr_vector_set_size(p_vector, index + 1);

		if (status != CL_SUCCESS)
			return status;
	}
	p_vector->p_ptr_array[index] = element;
	return CL_SUCCESS;
}

/**
 * Appends a pointer.
 * @param p_vector the pointer vector.
 * @param element the pointer to append.
 * @param p_index optional; receives the new entry's index on success.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if the vector could not grow.
 */
CL_INLINE cl_status_t CL_API cl_ptr_vector_insert(IN cl_ptr_vector_t *const p_vector,
						  IN const void *const element,
						  OUT size_t *const p_index OPTIONAL)
{
	cl_status_t status;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	if (p_vector->size < p_vector->capacity) {
		/* Fast path: room left, nothing to allocate. */
		p_vector->p_ptr_array[p_vector->size++] = element;
		status = CL_SUCCESS;
	} else {
		status = cl_ptr_vector_set(p_vector, p_vector->size, element);
	}
	if (status == CL_SUCCESS && p_index)
		*p_index = p_vector->size - 1;
	return status;
}

/**
 * Removes the entry at an index, shifting the following entries down.
 * No bounds check.
 * @param p_vector the pointer vector.
 * @param index an index below the size.
 * @return the pointer that was stored there.
 */
void *CL_API cl_ptr_vector_remove(IN cl_ptr_vector_t *const p_vector, IN const size_t index);

/**
 * Reserves room for at least @p new_capacity entries; never shrinks.
 * Does not change the size.
 * @param p_vector the pointer vector.
 * @param new_capacity the wanted capacity.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY (the vector is then unchanged).
 */
cl_status_t CL_API cl_ptr_vector_set_capacity(IN cl_ptr_vector_t *const p_vector,
					      IN const size_t new_capacity);

/**
 * Sets the number of entries; new entries read as NULL. Growing past the
 * capacity allocates in multiples of the grow size.
 * @param p_vector the pointer vector.
 * @param size the wanted size.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if storage could not be
 *         allocated or the grow size is 0 (the vector is then unchanged).
 */
cl_status_t CL_API cl_ptr_vector_set_size(IN cl_ptr_vector_t *const p_vector,
					  IN const size_t size);

/**
 * Grows the vector to at least @p min_size entries; never shrinks it.
 * @param p_vector the pointer vector.
 * @param min_size the minimum size.
 * @return as cl_ptr_vector_set_size(); CL_SUCCESS if already large enough.
 */
cl_status_t CL_API cl_ptr_vector_set_min_size(IN cl_ptr_vector_t *const p_vector,
					      IN const size_t min_size);

/**
 * Calls a function for every entry, from index 0 up.
 * @param p_vector the pointer vector.
 * @param pfn_callback the function.
 * @param context passed to @p pfn_callback.
 */
void CL_API cl_ptr_vector_apply_func(IN const cl_ptr_vector_t *const p_vector,
				     IN cl_pfn_ptr_vec_apply_t pfn_callback,
				     IN const void *const context);

/**
 * Searches from index 0 up.
 * @param p_vector the pointer vector.
 * @param pfn_callback returns CL_SUCCESS for a match.
 * @param context passed to @p pfn_callback.
 * @return the index of the first match, or the vector's size if none.
 */
size_t CL_API cl_ptr_vector_find_from_start(IN const cl_ptr_vector_t *const p_vector,
					    IN cl_pfn_ptr_vec_find_t pfn_callback,
					    IN const void *const context);

/**
 * Searches from the last entry down.
 * @param p_vector the pointer vector.
 * @param pfn_callback returns CL_SUCCESS for a match.
 * @param context passed to @p pfn_callback.
 * @return the index of the last match, or the vector's size if none.
 */
size_t CL_API cl_ptr_vector_find_from_end(IN const cl_ptr_vector_t *const p_vector,
					  IN cl_pfn_ptr_vec_find_t pfn_callback,
					  IN const void *const context);

#ifdef __cplusplus
}
#endif

#endif /* _CL_PTR_VECTOR_H_ */
