/*
 * ibal complib: request manager, queueing and resuming requests for objects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <complib/cl_reqmgr.h>
#include <complib/cl_memory.h>

/* Requests the pool holds at first, and adds each time it grows. */
#define REQ_POOL_START 10
#define REQ_POOL_GROW 10

/* One queued request. */
typedef struct _cl_request_object {
	cl_pool_item_t pool_item;     /* on request_queue, or free in request_pool */
	size_t count;                 /* objects still wanted */
	boolean_t partial_ok;         /* may be met in parts */
	cl_pfn_req_cb_t pfn_callback; /* returned to the user by resume */
	const void *context1;
	const void *context2;
} cl_request_object_t;

static cl_request_object_t *request_of(cl_list_item_t *it)
{
	return PARENT_STRUCT(it, cl_request_object_t, pool_item.list_item);
}

static size_t available(cl_req_mgr_t *p)
{
	return p->pfn_get_count((void *)p->get_context);
}

void cl_req_mgr_construct(cl_req_mgr_t *const p_req_mgr)
{
	CL_ASSERT(p_req_mgr);
	cl_memclr(p_req_mgr, sizeof(*p_req_mgr));
	cl_qlist_init(&p_req_mgr->request_queue);
	cl_qpool_construct(&p_req_mgr->request_pool);
}

cl_status_t cl_req_mgr_init(cl_req_mgr_t *const p_req_mgr, cl_pfn_reqmgr_get_count_t pfn_get_count,
			    const void *const get_context)
{
	cl_status_t status;

	CL_ASSERT(p_req_mgr && pfn_get_count);
	cl_qlist_init(&p_req_mgr->request_queue);
	status = cl_qpool_init(&p_req_mgr->request_pool, REQ_POOL_START, 0, REQ_POOL_GROW,
			       sizeof(cl_request_object_t), NULL, NULL, NULL);
	if (status != CL_SUCCESS)
		return status;
	p_req_mgr->pfn_get_count = pfn_get_count;
	p_req_mgr->get_context = get_context;
	return CL_SUCCESS;
}

void cl_req_mgr_destroy(cl_req_mgr_t *const p_req_mgr)
{
	CL_ASSERT(p_req_mgr);
	if (cl_is_qpool_inited(&p_req_mgr->request_pool))
		cl_qpool_put_list(&p_req_mgr->request_pool, &p_req_mgr->request_queue);
	cl_qpool_destroy(&p_req_mgr->request_pool);
}

cl_status_t cl_req_mgr_get(cl_req_mgr_t *const p_req_mgr, size_t *const p_count,
			   const cl_req_type_t req_type, cl_pfn_req_cb_t pfn_callback,
			   const void *const context1, const void *const context2)
{
	cl_request_object_t *req;
	cl_pool_item_t *item;
	size_t avail;
	boolean_t queue_empty;

	CL_ASSERT(p_req_mgr && cl_is_qpool_inited(&p_req_mgr->request_pool));
	CL_ASSERT(p_count && *p_count);

	avail = available(p_req_mgr);
	queue_empty = cl_is_qlist_empty(&p_req_mgr->request_queue);
	/* Earlier requests go first: only an empty queue lets one through. */
	if (queue_empty && *p_count <= avail)
		return CL_SUCCESS;
	if (req_type == REQ_GET_SYNC)
		return CL_INSUFFICIENT_RESOURCES;

	item = cl_qpool_get(&p_req_mgr->request_pool);
	if (!item)
		return CL_INSUFFICIENT_MEMORY;
	req = PARENT_STRUCT(item, cl_request_object_t, pool_item);
	if (req_type == REQ_GET_PARTIAL_OK && queue_empty) {
		/* Grant what there is; queue the rest. */
		req->count = *p_count - avail;
		req->partial_ok = TRUE;
		*p_count = avail;
	} else {
		req->count = *p_count;
		req->partial_ok = FALSE;
		*p_count = 0;
	}
	req->pfn_callback = pfn_callback;
	req->context1 = context1;
	req->context2 = context2;
	cl_qlist_insert_tail(&p_req_mgr->request_queue, &req->pool_item.list_item);
	return CL_PENDING;
}

cl_status_t cl_req_mgr_resume(cl_req_mgr_t *const p_req_mgr, size_t *const p_count,
			      cl_pfn_req_cb_t *const ppfn_callback, const void **const p_context1,
			      const void **const p_context2)
{
	cl_request_object_t *req;
	size_t avail;

	CL_ASSERT(p_req_mgr && cl_is_qpool_inited(&p_req_mgr->request_pool));
	CL_ASSERT(p_count && ppfn_callback && p_context1 && p_context2);

	if (cl_is_qlist_empty(&p_req_mgr->request_queue))
		return CL_NOT_DONE;
	req = request_of(cl_qlist_head(&p_req_mgr->request_queue));
	*ppfn_callback = req->pfn_callback;
	*p_context1 = req->context1;
	*p_context2 = req->context2;

	avail = available(p_req_mgr);
	if (req->count > avail) {
		if (!req->partial_ok)
			return CL_INSUFFICIENT_RESOURCES;
		req->count -= avail;
		*p_count = avail;
		return CL_PENDING;
	}
	*p_count = req->count;
	cl_qlist_remove_head(&p_req_mgr->request_queue);
	cl_qpool_put(&p_req_mgr->request_pool, &req->pool_item);
	return CL_SUCCESS;
}
