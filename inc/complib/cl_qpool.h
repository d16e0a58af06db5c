/*
 * ibal complib: quick pool, a growable pool of same-size objects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_qpool.h
 * @brief Quick pool: a self-growing pool of fixed-size objects, each
 * described by a cl_pool_item_t embedded in it.
 *
 * A quick pool is a quick composite pool whose objects have one component.
 * Without an initializer, the cl_pool_item_t must be at the start of each
 * object; with one, the initializer says where it is. Memory goes back to
 * the system only when the pool is destroyed. Get and put are inline.
 *
 * Thread safety: none; callers serialize access to one pool (see
 * cl_qlockpool.h for a locked quick pool).
 */
#ifndef _CL_QUICK_POOL_H_
#define _CL_QUICK_POOL_H_

#include <complib/cl_qcomppool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initializer of new objects of a quick pool.
 * @param p_object the new object (its memory is allocated and zeroed).
 * @param context the context given to cl_qpool_init().
 * @param pp_pool_item [out] set to the object's cl_pool_item_t; required when
 * returning CL_SUCCESS.
 * @return CL_SUCCESS to accept the object; any other status stops the growth
 * and is returned by cl_qpool_init() or cl_qpool_grow().
 */
typedef cl_status_t (CL_API *cl_pfn_qpool_init_t)(IN void *const p_object, IN void *context,
						  OUT cl_pool_item_t **const pp_pool_item);

/**
 * Destructor of objects of a quick pool. It must not free the object.
 * @param p_pool_item the object's pool item.
 * @param context the context given to cl_qpool_init().
 */
typedef void (CL_API *cl_pfn_qpool_dtor_t)(IN const cl_pool_item_t *const p_pool_item,
					   IN void *context);

/** Quick pool. Treat as opaque; use the cl_qpool functions. */
typedef struct _cl_qpool {
	cl_qcpool_t qcpool;           /**< The quick composite pool holding the objects. */
	cl_pfn_qpool_init_t pfn_init; /**< The caller's initializer, or NULL. */
	cl_pfn_qpool_dtor_t pfn_dtor; /**< The caller's destructor, or NULL. */
	const void *context;          /**< The caller's context for the callbacks. */
} cl_qpool_t;

/**
 * Puts a pool in a state where cl_qpool_init(), cl_qpool_destroy() and
 * cl_is_qpool_inited() may be called. Cannot fail.
 * @param p_pool the pool.
 */
void CL_API cl_qpool_construct(IN cl_qpool_t *const p_pool);

/**
 * Tells whether a pool was initialized successfully.
 * @param p_pool a constructed pool.
 * @return TRUE if initialized, FALSE otherwise.
 */
CL_INLINE uint32_t CL_API cl_is_qpool_inited(IN const cl_qpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	return cl_is_qcpool_inited(&p_pool->qcpool);
}

/**
 * Initializes a pool and allocates its first @p min_size objects.
 * @param p_pool the pool.
 * @param min_size objects allocated (and initialized) now.
 * @param max_size most objects the pool may ever hold; 0 for no limit.
 * @param grow_size objects added when cl_qpool_get() finds the pool empty;
 * 0 disables automatic growth.
 * @param object_size size of one object in bytes.
 * @param pfn_initializer called for each new object; if NULL, each object
 * must start with its cl_pool_item_t.
 * @param pfn_destructor called for each object on destroy; may be NULL.
 * @param context passed to both callbacks.
 * @return CL_SUCCESS;
 * CL_INVALID_SETTING if @p max_size is non-zero and below @p min_size, or if
 * @p pfn_initializer is NULL and @p object_size is smaller than a
 * cl_pool_item_t;
 * CL_INSUFFICIENT_MEMORY if memory ran out;
 * any other status returned by @p pfn_initializer. On failure the pool is
 * left destroyed (cl_qpool_destroy() may still be called).
 */
cl_status_t CL_API cl_qpool_init(IN cl_qpool_t *const p_pool, IN const size_t min_size,
				 IN const size_t max_size, IN const size_t grow_size,
				 IN const size_t object_size,
				 IN cl_pfn_qpool_init_t pfn_initializer,
				 IN cl_pfn_qpool_dtor_t pfn_destructor,
				 IN const void *const context);

/**
 * Destroys a pool: calls the destructor for every object in the pool and
 * frees all memory. Allowed after construct only, and after a failed init.
 * @param p_pool the pool.
 */
CL_INLINE void CL_API cl_qpool_destroy(IN cl_qpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_qcpool_destroy(&p_pool->qcpool);
}

/**
 * Number of objects available in a pool.
 * @param p_pool an initialized pool.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_qpool_count(IN cl_qpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	return cl_qcpool_count(&p_pool->qcpool);
}

/**
 * Takes an object from the head of a pool, growing the pool if it is empty.
 * @param p_pool an initialized pool.
 * @return the object's pool item; NULL if the pool is empty and cannot grow.
 */
CL_INLINE cl_pool_item_t *CL_API cl_qpool_get(IN cl_qpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	return cl_qcpool_get(&p_pool->qcpool);
}

/**
 * Returns an object to the head of the pool it was taken from.
 * @param p_pool the pool.
 * @param p_pool_item an item obtained from cl_qpool_get() on @p p_pool.
 */
CL_INLINE void CL_API cl_qpool_put(IN cl_qpool_t *const p_pool,
				   IN cl_pool_item_t *const p_pool_item)
{
	CL_ASSERT(p_pool);
	cl_qcpool_put(&p_pool->qcpool, p_pool_item);
}

/**
 * Returns every object on a quick list to the head of a pool; the list ends
 * up empty.
 * @param p_pool the pool.
 * @param p_list list of items obtained from cl_qpool_get() on @p p_pool.
 */
CL_INLINE void CL_API cl_qpool_put_list(IN cl_qpool_t *const p_pool,
					IN cl_qlist_t *const p_list)
{
	CL_ASSERT(p_pool);
	cl_qcpool_put_list(&p_pool->qcpool, p_list);
}

/**
 * Adds objects to a pool (capped at its maximum).
 * @param p_pool an initialized pool.
 * @param obj_count number of objects to add.
 * @return CL_SUCCESS;
 * CL_INSUFFICIENT_MEMORY if memory ran out or the pool holds its maximum;
 * any other status returned by the initializer.
 */
CL_INLINE cl_status_t CL_API cl_qpool_grow(IN cl_qpool_t *const p_pool,
					   IN const size_t obj_count)
{
	CL_ASSERT(p_pool);
	return cl_qcpool_grow(&p_pool->qcpool, obj_count);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_QUICK_POOL_H_ */
