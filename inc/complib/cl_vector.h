/*
 * ibal complib: vector, a self-sizing array of fixed-size elements.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_vector.h
 * @brief Vector: a growable array of fixed-size elements with O(1) access by
 * index, whose elements never move once allocated.
 *
 * Storage is allocated in blocks of elements (zero-filled), so a pointer
 * obtained with cl_vector_get_ptr() stays valid until the vector is
 * destroyed. An optional initializer runs for every element that becomes
 * part of the vector's size, and an optional destructor for every element
 * that leaves it. cl_vector_get() / cl_vector_get_ptr() do not check the
 * index; cl_vector_at() does.
 *
 * Thread safety: none; callers serialize access to one vector.
 */
#ifndef _CL_VECTOR_H_
#define _CL_VECTOR_H_

#include <complib/cl_qlist.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initializer of vector elements.
 * @param p_element the new element (zero-filled the first time it is used).
 * @param context the context given to cl_vector_init().
 * @return CL_SUCCESS to accept the element; any other status stops the
 *         growth and is returned by the function that was growing the vector.
 */
typedef cl_status_t (CL_API *cl_pfn_vec_init_t)(IN void *const p_element, IN void *context);

/**
 * Destructor of vector elements.
 * @param p_element the element leaving the vector.
 * @param context the context given to cl_vector_init().
 */
typedef void (CL_API *cl_pfn_vec_dtor_t)(IN void *const p_element, IN void *context);

/**
 * Callback of cl_vector_apply_func().
 * @param index the element's index.
 * @param p_element the element.
 * @param context the caller's context.
 */
typedef void (CL_API *cl_pfn_vec_apply_t)(IN const size_t index, IN void *const p_element,
					  IN void *context);

/**
 * Callback of cl_vector_find_from_start() / cl_vector_find_from_end().
 * @param index the element's index.
 * @param p_element the element.
 * @param context the caller's context.
 * @return CL_SUCCESS if the element matches (stops the search);
 *         CL_NOT_FOUND to continue.
 */
typedef cl_status_t (CL_API *cl_pfn_vec_find_t)(IN const size_t index,
						IN const void *const p_element,
						IN void *context);

/**
 * Element copy operator kept in cl_vector_t::pfn_copy.
 * @param p_dest destination.
 * @param p_src source.
 * @param size number of bytes (the element size).
 */
typedef void (CL_API *cl_pfn_vec_copy_t)(IN void *const p_dest, IN const void *const p_src,
					 IN const size_t size);

/** Vector. Construct or initialize before use. Fields are private. */
typedef struct _cl_vector {
	size_t size;               /**< Number of elements in the vector. */
	size_t grow_size;          /**< Growth step in elements; 0 disables growth. */
	size_t capacity;           /**< Number of elements allocated. */
	size_t element_size;       /**< Size of one element in bytes. */
	cl_pfn_vec_init_t pfn_init; /**< Optional element initializer. */
	cl_pfn_vec_dtor_t pfn_dtor; /**< Optional element destructor. */
	cl_pfn_vec_copy_t pfn_copy; /**< Copy operator chosen for element_size. */
	const void *context;       /**< Context passed to pfn_init / pfn_dtor. */
	cl_qlist_t alloc_list;     /**< The element blocks allocated so far. */
	void **p_ptr_array;        /**< Address of every allocated element, by index. */
	cl_state_t state;          /**< CL_INITIALIZED after a successful init. */
} cl_vector_t;

/**
 * Constructs a vector so that cl_vector_destroy() is safe. Cannot fail.
 * @param p_vector the vector.
 */
void CL_API cl_vector_construct(IN cl_vector_t *const p_vector);

/**
 * Initializes a vector and gives it @p min_size elements.
 * @param p_vector the vector.
 * @param min_size initial number of elements.
 * @param grow_size number of elements added per growth; 0 makes the
 *        capacity fixed after initialization.
 * @param element_size size of one element in bytes (non-zero).
 * @param pfn_init optional initializer for new elements.
 * @param pfn_dtor optional destructor for removed elements.
 * @param context passed to @p pfn_init and @p pfn_dtor.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p element_size is 0;
 *         CL_INSUFFICIENT_MEMORY if storage could not be allocated; or the
 *         failing status of @p pfn_init. On failure the vector is left
 *         destroyed.
 */
cl_status_t CL_API cl_vector_init(IN cl_vector_t *const p_vector, IN const size_t min_size,
				  IN const size_t grow_size, IN const size_t element_size,
				  IN cl_pfn_vec_init_t pfn_init OPTIONAL,
				  IN cl_pfn_vec_dtor_t pfn_dtor OPTIONAL,
				  IN const void *const context);

/**
 * Destroys a vector: runs the destructor on every element and frees all
 * storage. Allowed after construct only.
 * @param p_vector the vector.
 */
void CL_API cl_vector_destroy(IN cl_vector_t *const p_vector);

/**
 * Number of elements the vector can hold without allocating.
 * @param p_vector the vector.
 * @return the capacity.
 */
CL_INLINE size_t CL_API cl_vector_get_capacity(IN const cl_vector_t *const p_vector)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	return p_vector->capacity;
}

/**
 * Number of elements in the vector.
 * @param p_vector the vector.
 * @return the size.
 */
CL_INLINE size_t CL_API cl_vector_get_size(IN const cl_vector_t *const p_vector)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	return p_vector->size;
}

/**
 * Address of an element. No bounds check.
 * @param p_vector the vector.
 * @param index an index below the capacity.
 * @return the element's address, stable for the vector's lifetime.
 */
CL_INLINE void *CL_API cl_vector_get_ptr(IN const cl_vector_t *const p_vector,
					 IN const size_t index)
{
	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED);
	CL_ASSERT(index < p_vector->capacity);
	return p_vector->p_ptr_array[index];
}

/**
 * Copies an element out of the vector. No bounds check.
 * @param p_vector the vector.
 * @param index an index below the size.
 * @param p_element receives a copy of the element (element_size bytes).
 */
CL_INLINE void CL_API cl_vector_get(IN const cl_vector_t *const p_vector, IN const size_t index,
				    OUT void *const p_element)
{
	const void *p_src;
	void *p_dst = p_element;

	CL_ASSERT(p_vector && p_vector->state == CL_INITIALIZED && p_element);
	p_src = cl_vector_get_ptr(p_vector, index);
#if defined(__GNUC__)
	/* The compiler cannot know element_size, so it would warn about the
	 * cases below that are wider than the caller's buffer; hide the
	 * buffer's size from it (no instruction is emitted). */
	__asm__("" : "+r"(p_dst));
#endif
	/* The common small sizes are copied in place: one load and one store
	 * instead of a call to memcpy. */
	switch (p_vector->element_size) {
	case 4:
		memcpy(p_dst, p_src, 4);
		break;
	case 8:
		memcpy(p_dst, p_src, 8);
		break;
	case 16:
		memcpy(p_dst, p_src, 16);
		break;
	default:
		memcpy(p_dst, p_src, p_vector->element_size);
		break;
	}
}

/**
 * Copies an element out of the vector, checking the index.
 * @param p_vector the vector.
 * @param index the index.
 * @param p_element receives a copy of the element on success.
 * @return CL_SUCCESS; CL_INVALID_PARAMETER if @p index is not below the size.
 */
cl_status_t CL_API cl_vector_at(IN const cl_vector_t *const p_vector, IN const size_t index,
				OUT void *const p_element);

/**
 * Copies an element into the vector, growing it to index + 1 elements if
 * needed (running the initializer on the new elements).
 * @param p_vector the vector.
 * @param index the index.
 * @param p_element the element to copy in (element_size bytes).
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if the vector could not grow
 *         (including when its grow size is 0); or the failing status of the
 *         initializer.
 */
cl_status_t CL_API cl_vector_set(IN cl_vector_t *const p_vector, IN const size_t index,
				 IN void *const p_element);

/**
 * Reserves storage for at least @p new_capacity elements; never shrinks.
 * Does not change the size.
 * @param p_vector the vector.
 * @param new_capacity the wanted capacity.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY (the vector is then unchanged).
 */
cl_status_t CL_API cl_vector_set_capacity(IN cl_vector_t *const p_vector,
					  IN const size_t new_capacity);

/**
 * Sets the number of elements: new elements get the initializer, removed
 * ones the destructor. Growing past the capacity allocates in multiples of
 * the grow size.
 * @param p_vector the vector.
 * @param size the wanted size.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY if storage could not be
 *         allocated or the grow size is 0 (the vector is then unchanged); or
 *         the failing status of the initializer (the size then counts the
 *         elements initialized successfully; the failed one was given to
 *         the destructor).
 */
cl_status_t CL_API cl_vector_set_size(IN cl_vector_t *const p_vector, IN const size_t size);

/**
 * Grows the vector to at least @p min_size elements; never shrinks it.
 * @param p_vector the vector.
 * @param min_size the minimum size.
 * @return as cl_vector_set_size(); CL_SUCCESS if already large enough.
 */
cl_status_t CL_API cl_vector_set_min_size(IN cl_vector_t *const p_vector,
					  IN const size_t min_size);

/**
 * Calls a function for every element, from index 0 up.
 * @param p_vector the vector.
 * @param pfn_callback the function.
 * @param context passed to @p pfn_callback.
 */
void CL_API cl_vector_apply_func(IN const cl_vector_t *const p_vector,
				 IN cl_pfn_vec_apply_t pfn_callback, IN const void *const context);

/**
 * Searches from index 0 up.
 * @param p_vector the vector.
 * @param pfn_callback returns CL_SUCCESS for a match.
 * @param context passed to @p pfn_callback.
 * @return the index of the first match, or the vector's size if none.
 */
size_t CL_API cl_vector_find_from_start(IN const cl_vector_t *const p_vector,
					IN cl_pfn_vec_find_t pfn_callback,
					IN const void *const context);

/**
 * Searches from the last element down.
 * @param p_vector the vector.
 * @param pfn_callback returns CL_SUCCESS for a match.
 * @param context passed to @p pfn_callback.
 * @return the index of the last match, or the vector's size if none.
 */
size_t CL_API cl_vector_find_from_end(IN const cl_vector_t *const p_vector,
				      IN cl_pfn_vec_find_t pfn_callback,
				      IN const void *const context);

#ifdef __cplusplus
}
#endif

#endif /* _CL_VECTOR_H_ */
