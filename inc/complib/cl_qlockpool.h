/*
 * ibal complib: quick locking pool, a quick pool guarded by a spin lock.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_qlockpool.h
 * @brief Quick locking pool: a cl_qpool_t whose get and put take a
 * cl_spinlock_t, so that several threads may share one pool.
 *
 * Objects are described by a cl_pool_item_t as in a quick pool (see
 * cl_qpool.h); growth, limits and callbacks work the same way. The
 * initializer and destructor run with the lock held (initializers during an
 * automatic growth in cl_qlock_pool_get()), so they must not use the pool.
 *
 * Thread safety: cl_qlock_pool_get() and cl_qlock_pool_put() may be called
 * from any thread concurrently. Construction, initialization and destruction
 * must not overlap other calls on the same pool.
 */
#ifndef _CL_QLOCKPOOL_H_
#define _CL_QLOCKPOOL_H_

#include <complib/cl_qpool.h>
#include <complib/cl_spinlock.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Quick locking pool. Treat as opaque; use the cl_qlock_pool functions. */
typedef struct _cl_qlock_pool {
	cl_spinlock_t lock; /**< Guards the pool. */
	cl_qpool_t pool;    /**< Quick pool of the caller's objects. */
} cl_qlock_pool_t;

/**
 * Puts a pool in a state where cl_qlock_pool_init() and
 * cl_qlock_pool_destroy() may be called. Cannot fail.
 * @param p_pool the pool.
 */
CL_INLINE void CL_API cl_qlock_pool_construct(IN cl_qlock_pool_t *const p_pool)
{
	CL_ASSERT(p_pool);
	cl_qpool_construct(&p_pool->pool);
	cl_spinlock_construct(&p_pool->lock);
}

/**
 * Destroys a pool: waits for the lock, calls the destructor for every object
 * in the pool and frees all memory. Allowed after construct only, and after
 * a failed init.
 * @param p_pool the pool.
 */
void CL_API cl_qlock_pool_destroy(IN cl_qlock_pool_t *const p_pool);

/**
 * Initializes a pool (constructing it first) and allocates its first
 * @p min_size objects.
 * @param p_pool the pool.
 * @param min_size objects allocated (and initialized) now.
 * @param max_size most objects the pool may ever hold; 0 for no limit.
 * @param grow_size objects added when cl_qlock_pool_get() finds the pool
 * empty; 0 disables automatic growth.
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
 * the status of cl_spinlock_init() if the lock could not be created;
 * any other status returned by @p pfn_initializer. On failure call
 * cl_qlock_pool_destroy() to release the lock.
 */
cl_status_t CL_API cl_qlock_pool_init(IN cl_qlock_pool_t *const p_pool,
				      IN const size_t min_size, IN const size_t max_size,
				      IN const size_t grow_size, IN const size_t object_size,
				      IN cl_pfn_qpool_init_t pfn_initializer,
				      IN cl_pfn_qpool_dtor_t pfn_destructor,
				      IN const void *const context);

/**
 * Takes an object from a pool under its lock, growing the pool if it is
 * empty.
 * @param p_pool an initialized pool.
 * @return the object's pool item; NULL if the pool is empty and cannot grow.
 * Return the object with cl_qlock_pool_put().
 */
CL_INLINE cl_pool_item_t *CL_API cl_qlock_pool_get(IN cl_qlock_pool_t *const p_pool)
{
	cl_pool_item_t *p_item;

	CL_ASSERT(p_pool);
	cl_spinlock_acquire(&p_pool->lock);
	p_item = cl_qpool_get(&p_pool->pool);
	cl_spinlock_release(&p_pool->lock);
	return p_item;
}

/**
 * Returns an object to a pool under its lock.
 * @param p_pool the pool.
 * @param p_item the pool item of an object obtained from cl_qlock_pool_get()
 * on @p p_pool.
 */
CL_INLINE void CL_API cl_qlock_pool_put(IN cl_qlock_pool_t *const p_pool,
					IN cl_pool_item_t *const p_item)
{
	CL_ASSERT(p_pool);
	cl_spinlock_acquire(&p_pool->lock);
	cl_qpool_put(&p_pool->pool, p_item);
	cl_spinlock_release(&p_pool->lock);
}

#ifdef __cplusplus
}
#endif

#endif /* _CL_QLOCKPOOL_H_ */
