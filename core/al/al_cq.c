/*
 * ibal access layer: completion queues and their notifications.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The provider's cq_comp upcall either signals the CQ's wait object (from
 * the provider's thread) or queues the user's completion callback on the
 * CQ's callback queue, at most once at a time (comp_item): an upcall
 * arriving while the callback is queued and not yet started adds nothing,
 * as the callback will poll what is there.
 */
#include <complib/cl_memory.h>
#include "al_verbs.h"

static void run_comp(void *context)
{
	al_cq_t *p_cq = (al_cq_t *)context;

	__atomic_store_n(&p_cq->comp_queued, 0, __ATOMIC_RELEASE);
	p_cq->pfn_comp_cb((ib_cq_handle_t)al_obj_h(&p_cq->v.obj),
			  (void *)(uintptr_t)p_cq->v.obj.context);
}

void al_cq_comp(al_cq_t *p_cq)
{
	if (p_cq->h_wait_obj) {
		cl_waitobj_signal(p_cq->h_wait_obj);
		return;
	}
	if (__atomic_exchange_n(&p_cq->comp_queued, 1, __ATOMIC_ACQ_REL))
		return;
	if (al_obj_queue_cb_item(&p_cq->v.obj, &p_cq->comp_item) != IB_SUCCESS)
		__atomic_store_n(&p_cq->comp_queued, 0, __ATOMIC_RELEASE);
}

void al_cq_event(al_cq_t *p_cq, ib_async_event_t code, uint64_t vendor)
{
	al_queue_event(&p_cq->v.obj, p_cq->pfn_event_cb, code, vendor, al_obj_h(&p_cq->v.obj));
}

/* Every QP using the CQ is gone (they hold references). */
static void cq_cleanup(al_obj_t *p_obj)
{
	al_cq_t *p_cq = PARENT_STRUCT(p_obj, al_cq_t, v.obj);

	if (p_cq->v.p_prov)
		p_cq->v.p_ops->destroy_cq(p_cq->v.p_prov);
	p_cq->v.p_prov = NULL;
	if (p_cq->h_wait_obj)
		cl_waitobj_deref(p_cq->h_wait_obj);
	p_cq->h_wait_obj = NULL;
}

ib_api_status_t ib_create_cq(const ib_ca_handle_t h_ca, ib_cq_create_t *const p_cq_create,
			     const void *const cq_context, const ib_pfn_event_cb_t pfn_cq_event_cb,
			     ib_cq_handle_t *const ph_cq)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	al_cq_t *p_cq;
	uint32_t size;
	ib_api_status_t st;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	if (!p_cq_create || !ph_cq) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	if (!p_cq_create->pfn_comp_cb == !p_cq_create->h_wait_obj) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	p_cq = (al_cq_t *)cl_zalloc(sizeof(*p_cq));
	if (!p_cq) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_cq->kind = AL_CTX_CQ;
	p_cq->p_ca = p_ca;
	p_cq->v.p_ops = p_ca->v.p_ops;
	p_cq->pfn_comp_cb = p_cq_create->pfn_comp_cb;
	p_cq->pfn_event_cb = pfn_cq_event_cb;
	p_cq->comp_item.pfn_cb = run_comp;
	p_cq->comp_item.context = p_cq;
	if (p_cq_create->h_wait_obj) {
		p_cq->h_wait_obj = cl_waitobj_ref(p_cq_create->h_wait_obj);
		if (!p_cq->h_wait_obj) {
			cl_free(p_cq);
			st = IB_INVALID_PARAMETER;
			goto out;
		}
	}
	al_obj_construct(&p_cq->v.obj, AL_HDL_CQ);
	st = al_obj_init(&p_cq->v.obj, &p_ca->v.obj, cq_context, NULL, cq_cleanup, al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_cq->v.obj);
		if (p_cq->h_wait_obj)
			cl_waitobj_deref(p_cq->h_wait_obj);
		cl_free(p_cq);
		st = st == IB_INVALID_STATE ? IB_INVALID_CA_HANDLE : st;
		goto out;
	}
	size = p_cq_create->size;
	st = p_ca->v.p_ops->create_cq(p_ca->v.p_prov, &size, &p_cq->kind, &p_cq->v.p_prov);
	if (st == IB_SUCCESS)
		st = al_verbs_insert_handle(&p_cq->v);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_cq->v.obj, NULL);
		goto out;
	}
	p_cq_create->size = size;
	*ph_cq = (ib_cq_handle_t)al_obj_h(&p_cq->v.obj);
out:
	AL_EXIT(h_ca);
	return st;
}

ib_api_status_t ib_modify_cq(const ib_cq_handle_t h_cq, uint32_t *const p_size)
{
	al_cq_t *p_cq = (al_cq_t *)AL_ENTER(h_cq, AL_HDL_CQ);
	ib_api_status_t st;

	if (!p_cq)
		return IB_INVALID_CQ_HANDLE;
	if (!p_size)
		st = IB_INVALID_PARAMETER;
	else
		st = p_cq->v.p_ops->resize_cq(p_cq->v.p_prov, p_size);
	AL_EXIT(h_cq);
	return st;
}

ib_api_status_t ib_query_cq(const ib_cq_handle_t h_cq, uint32_t *const p_size)
{
	al_cq_t *p_cq = (al_cq_t *)AL_ENTER(h_cq, AL_HDL_CQ);
	ib_api_status_t st;

	if (!p_cq)
		return IB_INVALID_CQ_HANDLE;
	if (!p_size)
		st = IB_INVALID_PARAMETER;
	else
		st = p_cq->v.p_ops->query_cq(p_cq->v.p_prov, p_size);
	AL_EXIT(h_cq);
	return st;
}

ib_api_status_t ib_destroy_cq(const ib_cq_handle_t h_cq, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	al_cq_t *p_cq = (al_cq_t *)AL_ENTER(h_cq, AL_HDL_CQ);
	uint32_t busy;

	if (!p_cq)
		return IB_INVALID_CQ_HANDLE;
	busy = __atomic_load_n(&p_cq->n_qp, __ATOMIC_ACQUIRE);
	AL_EXIT(h_cq);
	if (busy)
		return IB_RESOURCE_BUSY;
	return al_destroy_handle((void *)h_cq, AL_HDL_CQ, pfn_destroy_cb, IB_INVALID_CQ_HANDLE);
}
