/*
 * ibal access layer: shared receive queues (create, query, modify, destroy) and their events.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * ib_post_srq_recv() is in al_dp.c.
 */
#include <complib/cl_memory.h>
#include "al_verbs.h"

void al_srq_event(al_srq_t *p_srq, ib_async_event_t code, uint64_t vendor)
{
	al_queue_event(&p_srq->v.obj, p_srq->pfn_event_cb, code, vendor,
		       al_obj_h(&p_srq->v.obj));
}

/* The QPs attached hold references: they are gone. */
static void srq_cleanup(al_obj_t *p_obj)
{
	al_srq_t *p_srq = PARENT_STRUCT(p_obj, al_srq_t, v.obj);

	if (p_srq->v.p_prov)
		p_srq->v.p_ops->destroy_srq(p_srq->v.p_prov);
	p_srq->v.p_prov = NULL;
}

ib_api_status_t ib_create_srq(const ib_pd_handle_t h_pd, const ib_srq_attr_t *const p_srq_attr,
			      const void *const srq_context, const ib_pfn_event_cb_t pfn_srq_event_cb,
			      ib_srq_handle_t *const ph_srq)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	al_srq_t *p_srq;
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_srq_attr || !ph_srq) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	p_srq = (al_srq_t *)cl_zalloc(sizeof(*p_srq));
	if (!p_srq) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_srq->kind = AL_CTX_SRQ;
	p_srq->p_pd = p_pd;
	p_srq->v.p_ops = p_pd->v.p_ops;
	p_srq->pfn_event_cb = pfn_srq_event_cb;
	al_obj_construct(&p_srq->v.obj, AL_HDL_SRQ);
	st = al_obj_init(&p_srq->v.obj, &p_pd->v.obj, srq_context, NULL, srq_cleanup,
			 al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_srq->v.obj);
		cl_free(p_srq);
		st = st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
		goto out;
	}
	st = p_pd->v.p_ops->create_srq(p_pd->v.p_prov, p_srq_attr, &p_srq->kind,
				       &p_srq->v.p_prov);
	if (st == IB_SUCCESS)
		st = al_verbs_insert_handle(&p_srq->v);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_srq->v.obj, NULL);
		goto out;
	}
	*ph_srq = (ib_srq_handle_t)al_obj_h(&p_srq->v.obj);
out:
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_query_srq(const ib_srq_handle_t h_srq, ib_srq_attr_t *const p_srq_attr)
{
	al_srq_t *p_srq = (al_srq_t *)AL_ENTER(h_srq, AL_HDL_SRQ);
	ib_api_status_t st;

	if (!p_srq)
		return IB_INVALID_SRQ_HANDLE;
	if (!p_srq_attr)
		st = IB_INVALID_PARAMETER;
	else
		st = p_srq->v.p_ops->query_srq(p_srq->v.p_prov, p_srq_attr);
	AL_EXIT(h_srq);
	return st;
}

ib_api_status_t ib_modify_srq(const ib_srq_handle_t h_srq, const ib_srq_attr_t *const p_srq_attr,
			      const ib_srq_attr_mask_t srq_attr_mask)
{
	al_srq_t *p_srq = (al_srq_t *)AL_ENTER(h_srq, AL_HDL_SRQ);
	ib_api_status_t st;

	if (!p_srq)
		return IB_INVALID_SRQ_HANDLE;
	if (!p_srq_attr)
		st = IB_INVALID_PARAMETER;
	else
		st = p_srq->v.p_ops->modify_srq(p_srq->v.p_prov, p_srq_attr, srq_attr_mask);
	AL_EXIT(h_srq);
	return st;
}

ib_api_status_t ib_destroy_srq(const ib_srq_handle_t h_srq,
			      const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	al_srq_t *p_srq = (al_srq_t *)AL_ENTER(h_srq, AL_HDL_SRQ);
	uint32_t busy;

	if (!p_srq)
		return IB_INVALID_SRQ_HANDLE;
	busy = __atomic_load_n(&p_srq->n_qp, __ATOMIC_ACQUIRE);
	AL_EXIT(h_srq);
	if (busy)
		return IB_RESOURCE_BUSY;
	return al_destroy_handle((void *)h_srq, AL_HDL_SRQ, pfn_destroy_cb, IB_INVALID_SRQ_HANDLE);
}
