/*
 * ibal complib: quick composite pool, a growable pool of multi-part objects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_qcomppool.h
 * @brief Quick composite pool: a self-growing pool of objects built from one
 * or more components, each object described by a cl_pool_item_t.
 *
 * Memory is allocated in blocks of objects when the pool is initialized or
 * grows; it is returned to the system only by cl_qcpool_destroy(). An
 * optional initializer runs once per new object (and may fail, which stops
 * the growth); an optional destructor runs once per object on destroy.
 *
 * cl_qcpool_get() and cl_qcpool_put() are inline and take the object at / put
 * it back to the head of the free list (last returned, first reused). When
 * the free list is empty, cl_qcpool_get() grows the pool by its grow size,
 * within its maximum; it returns NULL when that is impossible.
 *
 * Thread safety: none; callers serialize access to one pool (see
 * cl_qlockpool.h for a locked quick pool).
 */
#ifndef _CL_QUICK_COMPOSITE_POOL_H_
#define _CL_QUICK_COMPOSITE_POOL_H_

#include <complib/cl_types.h>
#include <complib/cl_qlist.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Descriptor of one pooled object. Place it in the object (by default at the
 * start of the first component). It begins with a cl_list_item_t, so an item
 * taken from a pool may be kept on a cl_qlist_t while it is out of the pool.
 */
typedef struct _cl_pool_item {
	cl_list_item_t list_item; /**< Link on the pool's free list; the pool's while the item is in it. */
#ifdef _DEBUG_
	void *pad;                /**< Keeps p_pool at the offset it has in cl_pool_obj_t (debug builds only, as upstream). */
	struct _cl_qcpool *p_pool; /**< Pool that owns the item, for sanity checks (debug builds only, as upstream). */
#endif
} cl_pool_item_t;

/** Pool item that carries a pointer to an object (used by the non-quick pools). */
typedef struct _cl_pool_obj {
	cl_list_obj_t list_obj;   /**< Link and object pointer; must come first. */
#ifdef _DEBUG_
	struct _cl_qcpool *p_pool; /**< Pool that owns the item, for sanity checks (debug builds only, as upstream). */
#endif
} cl_pool_obj_t;

/**
 * Initializer of new objects of a quick composite pool.
 * @param p_comp_array array of @p num_components pointers, one per component
 * of the new object (all memory is already allocated, and zeroed).
 * @param num_components number of components.
 * @param context the context given to cl_qcpool_init().
 * @param pp_pool_item [out] set to the cl_pool_item_t that represents the
 * object; required when returning CL_SUCCESS.
 * @return CL_SUCCESS to accept the object; any other status stops the growth
 * and is returned by cl_qcpool_init() or cl_qcpool_grow().
 */
typedef cl_status_t (CL_API *cl_pfn_qcpool_init_t)(IN void **const p_comp_array,
						   IN const uint32_t num_components,
						   IN void *context,
						   OUT cl_pool_item_t **const pp_pool_item);

/**
 * Destructor of objects of a quick composite pool. It must not free the
 * object's memory, which belongs to the pool.
 * @param p_pool_item the object's pool item.
 * @param context the context given to cl_qcpool_init().
 */
typedef void (CL_API *cl_pfn_qcpool_dtor_t)(IN const cl_pool_item_t *const p_pool_item,
					    IN void *context);

/** Quick composite pool. Treat as opaque; use the cl_qcpool functions. */
typedef struct _cl_qcpool {
	uint32_t num_components;        /**< Components per object. */
	size_t *component_sizes;        /**< Size of each component, rounded up to pointer size. */
	void **p_components;            /**< Scratch array of component pointers for the initializer. */
	size_t num_objects;             /**< Objects the pool has allocated so far. */
	size_t max_objects;             /**< Limit on num_objects (SIZE_MAX when unlimited). */
	size_t grow_size;               /**< Objects added when an empty pool is asked for one; 0: never. */
	cl_pfn_qcpool_init_t pfn_init;  /**< Initializer of new objects, or NULL. */
	cl_pfn_qcpool_dtor_t pfn_dtor;  /**< Destructor called on destroy, or NULL. */
	const void *context;            /**< Context passed to the callbacks. */
	cl_qlist_t free_list;           /**< Objects available. */
	cl_qlist_t alloc_list;          /**< Memory blocks allocated by the pool. */
	cl_state_t state;               /**< CL_INITIALIZED once cl_qcpool_init() succeeded. */
} cl_qcpool_t;

/**
 * Puts a pool in a state where cl_qcpool_init(), cl_qcpool_destroy() and
 * cl_is_qcpool_inited() may be called. Cannot fail.
 * @param p_pool the pool.
 */
void CL_API cl_qcpool_construct(IN cl_qcpool_t *const p_pool);

/**
 * Tells whether a pool was initialized successfully.
 * @param p_pool a constructed pool.
 * @return TRUE if initialized, FALSE otherwise.
 */
CL_INLINE uint32_t CL_API cl_is_qcpool_inited(IN const cl_qcpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	CL_ASSERT(cl_is_state_valid(p_pool->state));
	return p_pool->state == CL_INITIALIZED;
}

/**
 * Initializes a pool and allocates its first @p min_size objects. Constructs
 * the pool first, so cl_qcpool_construct() need not be called before.
 * @param p_pool the pool.
 * @param min_size objects allocated (and initialized) now.
 * @param max_size most objects the pool may ever hold; 0 for no limit.
 * @param grow_size objects added when cl_qcpool_get() finds the pool empty;
 * 0 disables automatic growth.
 * @param component_sizes array of @p num_components component sizes in bytes.
 * @param num_components components per object (at least 1).
 * @param pfn_initializer called for each new object; may be NULL only with a
 * single component, in which case a cl_pool_item_t must start it.
 * @param pfn_destructor called for each object on destroy; may be NULL.
 * @param context passed to both callbacks.
 * @return CL_SUCCESS;
 * CL_INVALID_SETTING if @p max_size is non-zero and below @p min_size, if
 * @p pfn_initializer is NULL with several components (or with a component
 * smaller than a cl_pool_item_t), or if there are no components;
 * CL_INSUFFICIENT_MEMORY if memory ran out (or @p max_size is reached);
 * any other status returned by @p pfn_initializer. On failure the pool is
 * left destroyed (cl_qcpool_destroy() may still be called).
 */
cl_status_t CL_API cl_qcpool_init(IN cl_qcpool_t *const p_pool, IN const size_t min_size,
				  IN const size_t max_size, IN const size_t grow_size,
				  IN const size_t *const component_sizes,
				  IN const uint32_t num_components,
				  IN cl_pfn_qcpool_init_t pfn_initializer,
				  IN cl_pfn_qcpool_dtor_t pfn_destructor,
				  IN const void *const context);

/**
 * Destroys a pool: calls the destructor for every object in the pool and
 * frees all memory. Objects not returned are freed without a destructor
 * call. Allowed after construct only, and after a failed init.
 * @param p_pool the pool.
 */
void CL_API cl_qcpool_destroy(IN cl_qcpool_t *const p_pool);

/**
 * Number of objects available in a pool (not counting those handed out).
 * @param p_pool an initialized pool.
 * @return the count.
 */
CL_INLINE size_t CL_API cl_qcpool_count(IN cl_qcpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	CL_ASSERT(p_pool->state == CL_INITIALIZED);
	return cl_qlist_count(&p_pool->free_list);
}

/**
 * Adds objects to a pool, running the initializer on each. Growth is capped
 * at the pool's maximum. If the initializer fails, the objects initialized
 * before it stay in the pool, and the destructor is called for the failed
 * object if the initializer had set its pool item.
 * @param p_pool an initialized pool.
 * @param obj_count number of objects to add (0 adds nothing).
 * @return CL_SUCCESS;
 * CL_INSUFFICIENT_MEMORY if memory ran out or the pool already holds its
 * maximum;
 * any other status returned by the initializer.
 */
cl_status_t CL_API cl_qcpool_grow(IN cl_qcpool_t *const p_pool, IN size_t obj_count);

/** @cond INTERNAL */
/* Out-of-line part of cl_qcpool_get(): grows an empty pool and takes one. */
cl_pool_item_t *CL_API __cl_qcpool_get_slow(IN cl_qcpool_t *const p_pool);
/** @endcond */

/**
 * Takes an object from the head of a pool, growing the pool by its grow
 * size if it is empty.
 * @param p_pool an initialized pool.
 * @return the object's pool item; NULL if the pool is empty and cannot grow
 * (grow size 0, maximum reached, no memory, or the initializer failed).
 */
CL_INLINE cl_pool_item_t *CL_API cl_qcpool_get(IN cl_qcpool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	CL_ASSERT(p_pool->state == CL_INITIALIZED);
	if (__builtin_expect(cl_qlist_head(&p_pool->free_list) ==
			     cl_qlist_end(&p_pool->free_list), 0))
		return __cl_qcpool_get_slow(p_pool);
	return (cl_pool_item_t *)(void *)cl_qlist_remove_head(&p_pool->free_list);
}

/**
 * Returns an object to the head of the pool it was taken from.
 * @param p_pool the pool.
 * @param p_pool_item an item obtained from cl_qcpool_get() on @p p_pool.
 */
CL_INLINE void CL_API cl_qcpool_put(IN cl_qcpool_t *const p_pool,
				    IN cl_pool_item_t *const p_pool_item)
{
	CL_ASSERT(p_pool);
	CL_ASSERT(p_pool->state == CL_INITIALIZED);
	CL_ASSERT(p_pool_item);
	CL_ASSERT(p_pool_item->p_pool == p_pool);
	cl_qlist_insert_head(&p_pool->free_list, &p_pool_item->list_item);
}

/**
 * Returns every object on a quick list to the head of a pool, in list order;
 * the list ends up empty.
 * @param p_pool the pool.
 * @param p_list list of items obtained from cl_qcpool_get() on @p p_pool.
 */
CL_INLINE void CL_API cl_qcpool_put_list(IN cl_qcpool_t *const p_pool,
					 IN cl_qlist_t *const p_list)
{
#ifdef _DEBUG_
	cl_list_item_t *p_item;
#endif
	CL_ASSERT(p_pool);
	CL_ASSERT(p_pool->state == CL_INITIALIZED);
	CL_ASSERT(p_list);
#ifdef _DEBUG_
	for (p_item = cl_qlist_head(p_list); p_item != cl_qlist_end(p_list);
	     p_item = cl_qlist_next(p_item))
		CL_ASSERT(((cl_pool_item_t *)(void *)p_item)->p_pool == p_pool);
#endif
	cl_qlist_insert_list_head(&p_pool->free_list, p_list);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_QUICK_COMPOSITE_POOL_H_ */
