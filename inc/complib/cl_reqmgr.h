/*
 * ibal complib: request manager, a queue of requests for pooled objects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file cl_reqmgr.h
 * @brief Request manager: decides whether requests for objects can be met
 * now and queues, in FIFO order, those that cannot.
 *
 * The manager hands out no objects: it asks a user callback how many objects
 * are available and answers whether a request may take them. It never calls
 * back by itself either: after returning objects to their source, the user
 * calls cl_req_mgr_resume() (repeatedly, while it returns CL_SUCCESS) to
 * learn which queued request can proceed, with how many objects, and with
 * the callback and contexts recorded for it.
 *
 * Request types:
 *  - REQ_GET_SYNC: succeeds only when nothing is queued and the whole count
 *    is available; never queued.
 *  - REQ_GET_ASYNC: all objects at once; queued whole when it cannot be met.
 *  - REQ_GET_PARTIAL_OK: when nothing is queued, the available objects are
 *    granted at once and the remainder is queued; each resume may then grant
 *    part of it. When other requests are queued already, it is queued whole
 *    (and behaves as REQ_GET_ASYNC).
 *
 * Thread safety: none; callers serialize all calls on one manager. The
 * count callback runs in the caller's thread, within get and resume.
 */
#ifndef _CL_REQ_MGR_H_
#define _CL_REQ_MGR_H_

#include <complib/cl_qpool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Callback recorded with a request; the manager never invokes it, it only
 * returns it from cl_req_mgr_resume(). Cast other function types to it.
 */
typedef void (CL_API *cl_pfn_req_cb_t)(void);

/** Kind of request given to cl_req_mgr_get(). */
typedef enum _cl_req_type {
	REQ_GET_SYNC,      /**< Synchronous: all now, or fail. */
	REQ_GET_ASYNC,     /**< Asynchronous: all at once, queued if needed. */
	REQ_GET_PARTIAL_OK /**< Asynchronous: may be met in several parts. */
} cl_req_type_t;

/**
 * Returns how many objects are available.
 * @param context the get_context given to cl_req_mgr_init().
 * @return the number of available objects.
 */
typedef size_t (CL_API *cl_pfn_reqmgr_get_count_t)(IN void *context);

/** Request manager. Treat as opaque; use the cl_req_mgr functions. */
typedef struct _cl_req_mgr {
	cl_pfn_reqmgr_get_count_t pfn_get_count; /**< Returns the available count. */
	const void *get_context;                 /**< Context of pfn_get_count. */
	cl_qlist_t request_queue;                /**< Queued requests, oldest first. */
	cl_qpool_t request_pool;                 /**< Storage of the queued requests. */
} cl_req_mgr_t;

/**
 * Puts a request manager in a state where cl_req_mgr_destroy() is safe.
 * Cannot fail.
 * @param p_req_mgr the manager.
 */
CL_EXPORT void CL_API cl_req_mgr_construct(IN cl_req_mgr_t *const p_req_mgr);

/**
 * Initializes a constructed request manager.
 * @param p_req_mgr the manager.
 * @param pfn_get_count returns the number of available objects; required.
 * @param get_context passed to @p pfn_get_count.
 * @return CL_SUCCESS; CL_INSUFFICIENT_MEMORY when the request storage could
 *         not be allocated.
 */
CL_EXPORT cl_status_t CL_API cl_req_mgr_init(IN cl_req_mgr_t *const p_req_mgr,
					     IN cl_pfn_reqmgr_get_count_t pfn_get_count,
					     IN const void *const get_context);

/**
 * Destroys a request manager; queued requests are discarded. Allowed after
 * construct alone or a failed init.
 * @param p_req_mgr the manager.
 */
CL_EXPORT void CL_API cl_req_mgr_destroy(IN cl_req_mgr_t *const p_req_mgr);

/**
 * Requests objects.
 * @param p_req_mgr an initialized manager.
 * @param p_count in: number of objects wanted (not 0); out: number of
 *        objects the caller may take now.
 * @param req_type the kind of request.
 * @param pfn_callback recorded with a queued request, returned by resume.
 * @param context1 recorded with a queued request, returned by resume.
 * @param context2 recorded with a queued request, returned by resume.
 * @return CL_SUCCESS when all objects may be taken now (*p_count is
 *         unchanged); CL_PENDING when the request (or its remainder) was
 *         queued, *p_count being what may be taken now;
 *         CL_INSUFFICIENT_RESOURCES when a synchronous request cannot be met;
 *         CL_INSUFFICIENT_MEMORY when the request could not be queued.
 */
CL_EXPORT cl_status_t CL_API cl_req_mgr_get(IN cl_req_mgr_t *const p_req_mgr,
					    IN OUT size_t *const p_count,
					    IN const cl_req_type_t req_type,
					    IN cl_pfn_req_cb_t pfn_callback,
					    IN const void *const context1,
					    IN const void *const context2);

/**
 * Tries to continue the oldest queued request (and only that one).
 * @param p_req_mgr an initialized manager.
 * @param p_count out: number of objects the request may take now (set on
 *        CL_SUCCESS and CL_PENDING).
 * @param ppfn_callback out: the request's callback (set unless CL_NOT_DONE).
 * @param p_context1 out: the request's first context (set unless CL_NOT_DONE).
 * @param p_context2 out: the request's second context (set unless CL_NOT_DONE).
 * @return CL_SUCCESS when the request is now met in full and was dequeued
 *         (more requests may be resumable); CL_PENDING when a partial request
 *         got part of its remainder and stays queued;
 *         CL_INSUFFICIENT_RESOURCES when the request cannot proceed yet;
 *         CL_NOT_DONE when no request is queued.
 */
CL_EXPORT cl_status_t CL_API cl_req_mgr_resume(IN cl_req_mgr_t *const p_req_mgr,
					       OUT size_t *const p_count,
					       OUT cl_pfn_req_cb_t *const ppfn_callback,
					       OUT const void **const p_context1,
					       OUT const void **const p_context2);

#ifdef __cplusplus
}
#endif

#endif /* _CL_REQ_MGR_H_ */
