/*
 * ibal complib: composite pool, a growable pool of opaque multi-part objects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_comppool.h
 * @brief Composite pool: a self-growing pool of objects made of one or more
 * components, handed out as a pointer to their first component.
 *
 * Unlike the quick composite pool, objects need no embedded cl_pool_item_t:
 * the pool keeps a cl_pool_obj_t just before each object's first component.
 * Memory goes back to the system only when the pool is destroyed. Get and
 * put are inline.
 *
 * Thread safety: none; callers serialize access to one pool.
 */
#ifndef _CL_COMP_POOL_H_
#define _CL_COMP_POOL_H_

#include <complib/cl_qcomppool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initializer of new objects of a composite pool.
 * @param p_comp_array array of @p num_components pointers, one per component
 * of the new object (memory allocated and zeroed); the first is what
 * cl_cpool_get() will return.
 * @param num_components number of components.
 * @param context the context given to cl_cpool_init().
 * @return CL_SUCCESS to accept the object; any other status stops the growth
 * and is returned by cl_cpool_init() or cl_cpool_grow().
 */
typedef cl_status_t (CL_API *cl_pfn_cpool_init_t)(IN void **const p_comp_array,
						  IN const uint32_t num_components,
						  IN void *context);

/**
 * Destructor of objects of a composite pool. It must not free the object.
 * @param p_object the object's first component.
 * @param context the context given to cl_cpool_init().
 */
typedef void (CL_API *cl_pfn_cpool_dtor_t)(IN void *const p_object, IN void *context);

/** Composite pool. Treat as opaque; use the cl_cpool functions. */
typedef struct _cl_cpool {
	cl_qcpool_t qcpool;           /**< The quick composite pool holding the objects. */
	cl_pfn_cpool_init_t pfn_init; /**< The caller's initializer, or NULL. */
	cl_pfn_cpool_dtor_t pfn_dtor; /**< The caller's destructor, or NULL. */
	const void *context;          /**< The caller's context for the callbacks. */
} cl_cpool_t;

/**
 * Puts a pool in a state where cl_cpool_init(), cl_cpool_destroy() and
 * cl_is_cpool_inited() may be called. Cannot fail.
 * @param p_pool the pool.
 */
void CL_API cl_cpool_construct(IN cl_cpool_t *const p_pool);

/**
 * Tells whether a pool was initialized successfully.
 * @param p_pool a constructed pool.
 * @return TRUE if initialized, FALSE otherwise.
 */
CL_INLINE boolean_t CL_API cl_is_cpool_inited(IN const cl_cpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	return cl_is_qcpool_inited(&p_pool->qcpool);
}

/**
 * Initializes a pool and allocates its first @p min_size objects.
 * @param p_pool the pool.
 * @param min_size objects allocated (and initialized) now.
 * @param max_size most objects the pool may ever hold; 0 for no limit.
 * @param grow_size objects added when cl_cpool_get() finds the pool empty;
 * 0 disables automatic growth.
 * @param component_sizes array of @p num_components component sizes in bytes
 * (not modified, despite the non-const type kept for compatibility).
 * @param num_components components per object (at least 1).
 * @param pfn_initializer called for each new object; may be NULL only with
 * a single component.
 * @param pfn_destructor called for each object on destroy; may be NULL.
 * @param context passed to both callbacks.
 * @return CL_SUCCESS;
 * CL_INVALID_SETTING if @p max_size is non-zero and below @p min_size, if
 * @p pfn_initializer is NULL with several components, or if there are no
 * components;
 * CL_INSUFFICIENT_MEMORY if memory ran out;
 * any other status returned by @p pfn_initializer (the destructor, if any,
 * is then also called for the object that failed). On failure the pool is
 * left destroyed (cl_cpool_destroy() may still be called).
 */
cl_status_t CL_API cl_cpool_init(IN cl_cpool_t *const p_pool, IN const size_t min_size,
				 IN const size_t max_size, IN const size_t grow_size,
				 IN size_t *const component_sizes,
				 IN const uint32_t num_components,
				 IN cl_pfn_cpool_init_t pfn_initializer,
				 IN cl_pfn_cpool_dtor_t pfn_destructor,
				 IN const void *const context);

/**
 * Destroys a pool: calls the destructor for every object in the pool and
 * frees all memory. Allowed after construct only, and after a failed init.
 * @param p_pool the pool.
 */
CL_INLINE void CL_API cl_cpool_destroy(IN cl_cpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_qcpool_destroy(&p_pool->qcpool);
}

/**
 * Number of objects available in a pool.
 * @param p_pool an initialized pool.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_cpool_count(IN cl_cpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	return cl_qcpool_count(&p_pool->qcpool);
}

/**
 * Takes an object from the head of a pool, growing the pool if it is empty.
 * @param p_pool an initialized pool.
 * @return the object's first component; NULL if the pool is empty and cannot
 * grow.
 */
CL_INLINE void *CL_API cl_cpool_get(IN cl_cpool_t *const p_pool)
{
	cl_pool_obj_t *p_pool_obj;

	CL_ASSERT(p_pool);
	p_pool_obj = (cl_pool_obj_t *)(void *)cl_qcpool_get(&p_pool->qcpool);
	if (!p_pool_obj)
		return NULL;
	CL_ASSERT(p_pool_obj->list_obj.p_object);
	return (void *)p_pool_obj->list_obj.p_object;
}

/**
 * Returns an object to the head of the pool it was taken from.
 * @param p_pool the pool.
 * @param p_object an object obtained from cl_cpool_get() on @p p_pool.
 */
CL_INLINE void CL_API cl_cpool_put(IN cl_cpool_t *const p_pool, IN void *const p_object)
{
	cl_pool_obj_t *p_pool_obj;

	CL_ASSERT(p_pool);
	CL_ASSERT(p_object);
	p_pool_obj = (cl_pool_obj_t *)(void *)((uint8_t *)p_object - sizeof(cl_pool_obj_t));
	CL_ASSERT(p_pool_obj->list_obj.p_object == p_object);
	cl_qcpool_put(&p_pool->qcpool, (cl_pool_item_t *)(void *)p_pool_obj);
}

/**
 * Adds objects to a pool (capped at its maximum).
 * @param p_pool an initialized pool.
 * @param obj_count number of objects to add.
 * @return CL_SUCCESS;
 * CL_INSUFFICIENT_MEMORY if memory ran out or the pool holds its maximum;
 * any other status returned by the initializer.
 */
CL_INLINE cl_status_t CL_API cl_cpool_grow(IN cl_cpool_t *const p_pool,
					   IN const size_t obj_count)
{
	CL_ASSERT(p_pool);
	return cl_qcpool_grow(&p_pool->qcpool, obj_count);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_COMP_POOL_H_ */
