/*
 * ibal complib: asynchronous processor, threads that run queued callbacks.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_async_proc.h
 * @brief Asynchronous processor: a FIFO of caller-owned items whose callbacks
 * run on a cl_thread_pool_t.
 *
 * cl_async_proc_queue() appends an item and wakes the pool. A woken thread
 * takes items from the head of the queue, one at a time, and invokes each
 * item's pfn_callback without holding any lock, until the queue is empty.
 * With one thread, callbacks run one after another in queueing order; with
 * several, they start in queueing order but may run concurrently.
 *
 * The processor never allocates per item: the caller owns the item, which
 * must stay valid and must not be queued again until its callback has
 * started. A callback may queue items, including its own.
 *
 * cl_async_proc_destroy() first stops the threads (waiting for callbacks in
 * progress), then invokes, in the calling thread and in FIFO order, the
 * callback of every item still queued, including items those callbacks
 * queue. So every item queued before destroy returns has its callback called
 * exactly once; none is dropped. Destroy never waits for anything but the
 * callbacks themselves.
 *
 * Thread safety: cl_async_proc_queue() may be called from any thread,
 * including from callbacks, and concurrently with the destruction started
 * by cl_async_proc_destroy() as long as it is called from a callback (or is
 * otherwise known to happen before destroy returns). construct, init and
 * destroy must not run concurrently with each other, and destroy must not
 * be called from a callback.
 */
#ifndef _CL_ASYNC_PROC_H_
#define _CL_ASYNC_PROC_H_

#include <complib/cl_qlist.h>
#include <complib/cl_qpool.h>
#include <complib/cl_threadpool.h>
#include <complib/cl_spinlock.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Asynchronous processor. Treat as opaque; use the cl_async_proc functions. */
typedef struct _cl_async_proc {
	cl_thread_pool_t thread_pool; /**< Threads that run the callbacks. */
	cl_qlist_t item_queue;        /**< Items waiting for their callback, FIFO. */
	cl_spinlock_t lock;           /**< Protects item_queue and state. */
	cl_state_t state;             /**< CL_INITIALIZED while usable; CL_DESTROYING during destroy. */
} cl_async_proc_t;

/** Pointer to an asynchronous processor item (upstream's forward declaration). */
typedef struct _cl_async_proc_item *__p_cl_async_proc_item_t;

/**
 * Callback of a queued item, invoked by the processor.
 * @param p_item the item that was queued with cl_async_proc_queue().
 */
typedef void (CL_API *cl_pfn_async_proc_cb_t)(IN struct _cl_async_proc_item *p_item);

/**
 * Item queued to an asynchronous processor; embed it in your own structure
 * and recover that structure in the callback with PARENT_STRUCT.
 */
typedef struct _cl_async_proc_item {
	cl_pool_item_t pool_item;            /**< Links the item on the queue (or on a pool). */
	cl_pfn_async_proc_cb_t pfn_callback; /**< Function invoked when the item is dequeued. */
} cl_async_proc_item_t;

/**
 * Puts an asynchronous processor in a state where cl_async_proc_destroy()
 * is safe. Cannot fail.
 * @param p_async_proc the processor.
 */
CL_EXPORT void CL_API cl_async_proc_construct(IN cl_async_proc_t *const p_async_proc);

/**
 * Initializes an asynchronous processor and starts its threads. The
 * processor is constructed first; on failure it is left destroyed.
 * @param p_async_proc the processor.
 * @param thread_count number of threads; 0 means one per processor.
 * @param name name given to the threads (up to 15 characters are kept).
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY when memory ran out; CL_ERROR
 *         (or another status of cl_spinlock_init/cl_thread_pool_init) when
 *         the lock or the threads could not be created.
 */
CL_EXPORT cl_status_t CL_API cl_async_proc_init(IN cl_async_proc_t *const p_async_proc,
						IN const uint32_t thread_count,
						IN const char *const name);

/**
 * Destroys an asynchronous processor: stops its threads, waiting for the
 * callbacks in progress, then invokes in the calling thread the callback of
 * each item still queued (FIFO, including items queued meanwhile), and
 * releases the resources. Allowed after construct alone or a failed init.
 * Must not be called from a callback of the same processor.
 * @param p_async_proc the processor.
 */
CL_EXPORT void CL_API cl_async_proc_destroy(IN cl_async_proc_t *const p_async_proc);

/**
 * Queues an item; its pfn_callback will be invoked once by a thread of the
 * processor (or by cl_async_proc_destroy(), if that runs first).
 * @param p_async_proc an initialized processor (or one being destroyed,
 *        when called from one of its callbacks).
 * @param p_item the item, with pfn_callback set; it must not be on a queue.
 */
CL_EXPORT void CL_API cl_async_proc_queue(IN cl_async_proc_t *const p_async_proc,
					  IN cl_async_proc_item_t *const p_item);

#ifdef __cplusplus
}
#endif

#endif /* _CL_ASYNC_PROC_H_ */
