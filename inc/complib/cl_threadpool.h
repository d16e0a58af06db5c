/*
 * ibal complib: thread pool, a set of threads that run one callback on demand.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_threadpool.h
 * @brief Thread pool: threads that each invoke the same callback when signalled.
 *
 * Every thread of the pool waits on one auto-reset wakeup event. Each
 * cl_thread_pool_signal() sets that event, which releases at most one waiting
 * thread; that thread invokes the pool's callback and then waits again. A
 * signal given while no thread waits stays pending until a thread waits, and
 * signals given before any thread consumes the first one merge into one
 * wakeup. Users that queue work therefore drain their whole queue in the
 * callback (as cl_async_proc does) rather than count signals.
 *
 * cl_thread_pool_destroy() tells the threads to exit, wakes them until all
 * have exited, waits for callbacks still running to return and joins every
 * thread. Pending signals are dropped: no new callback starts once destroy
 * has begun.
 *
 * Thread safety: cl_thread_pool_signal() may be called from any thread,
 * including the pool's own callbacks. construct, init and destroy must not
 * run concurrently with any other call on the same pool, and destroy must not
 * be called from one of the pool's threads.
 */
#ifndef _CL_THREAD_POOL_H_
#define _CL_THREAD_POOL_H_

#include <complib/cl_types.h>
#include <complib/cl_thread.h>
#include <complib/cl_event.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Thread pool. Treat as opaque; use the cl_thread_pool functions.
 *
 * Upstream keeps its threads in a cl_list_t (plus a debug array of the first
 * eight); this implementation keeps them in one allocated array instead.
 */
typedef struct _cl_thread_pool {
	cl_pfn_thread_callback_t pfn_callback; /**< Callback every thread invokes. */
	const void *context;                   /**< Context passed to the callback. */
	cl_thread_t *p_threads;                /**< Array of thread_count threads. */
	uint32_t thread_count;                 /**< Number of entries of p_threads. */
	cl_event_t wakeup_event;               /**< Auto-reset event that releases one thread. */
	cl_event_t destroy_event;              /**< Signalled by each thread as it exits. */
	boolean_t exit;                        /**< Set by destroy: threads must exit. */
	cl_state_t state;                      /**< CL_INITIALIZED after a successful init. */
	atomic32_t running_count;              /**< Number of threads not yet exited. */
} cl_thread_pool_t;

/**
 * Puts a thread pool in a state where cl_thread_pool_destroy() is safe.
 * Cannot fail.
 * @param p_thread_pool the pool.
 */
CL_EXPORT void CL_API cl_thread_pool_construct(IN cl_thread_pool_t *const p_thread_pool);

/**
 * Creates and starts the threads of a pool. The pool is constructed first,
 * so a failed init leaves it destroyed and safe to destroy again.
 * @param p_thread_pool the pool.
 * @param thread_count number of threads; 0 means one per processor
 *        (cl_proc_count()).
 * @param pfn_callback function each thread invokes when woken; required.
 * @param context value passed to @p pfn_callback.
 * @param name name given to every thread (up to 15 characters are kept).
 * @return CL_SUCCESS when all threads run; CL_INSUFFICIENT_MEMORY when the
 *         thread array could not be allocated; CL_ERROR (or the failing
 *         event's status) when an event or a thread could not be created.
 */
CL_EXPORT cl_status_t CL_API cl_thread_pool_init(IN cl_thread_pool_t *const p_thread_pool,
						 IN uint32_t thread_count,
						 IN cl_pfn_thread_callback_t pfn_callback,
						 IN const void *const context,
						 IN const char *const name);

/**
 * Stops and joins every thread of a pool and releases its resources.
 * Blocks until callbacks in progress return; pending signals are dropped.
 * Allowed after cl_thread_pool_construct() alone and after a failed init.
 * Must not be called from one of the pool's threads.
 * @param p_thread_pool the pool.
 */
CL_EXPORT void CL_API cl_thread_pool_destroy(IN cl_thread_pool_t *const p_thread_pool);

/**
 * Wakes at most one waiting thread of the pool to invoke the callback.
 * When no thread waits, the wakeup stays pending until one does; several
 * pending wakeups merge into one.
 * @param p_thread_pool an initialized pool.
 * @return CL_SUCCESS when the wakeup was posted; CL_ERROR otherwise.
 */
CL_EXPORT cl_status_t CL_API cl_thread_pool_signal(IN cl_thread_pool_t *const p_thread_pool);

#ifdef __cplusplus
}
#endif

#endif /* _CL_THREAD_POOL_H_ */
