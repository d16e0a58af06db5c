/*
 * ibal access layer: queue pairs (create, query, modify, destroy) and their events.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A QP holds a reference on its CQs and SRQ until its provider object is
 * gone, so closing a CA (which destroys PDs and CQs as siblings) releases
 * the provider's QPs before their CQs. The CQ's and SRQ's QP counts (for
 * IB_RESOURCE_BUSY) drop as soon as the QP's destruction starts.
 */
#include <complib/cl_memory.h>
#include "al_verbs.h"
#include "al_mad.h"
#include "al_client.h"
#include "prov_conn_mem.h"

/* A QP object's memory is a connection's (prov_conn_mem.h): a server's burst
 * of QPs, made in its REQ callbacks, is made without a page fault each. */
static void qp_free(al_obj_t *p_obj)
{
	prov_conn_mem_put(PARENT_STRUCT(p_obj, al_qp_t, v.obj), sizeof(al_qp_t));
}

void al_qp_event(al_qp_t *p_qp, ib_async_event_t code, uint64_t vendor)
{
	al_queue_event(&p_qp->v.obj, p_qp->pfn_event_cb, code, vendor, al_obj_h(&p_qp->v.obj));
}

static void qp_destroying(al_obj_t *p_obj)
{
	al_qp_t *p_qp = PARENT_STRUCT(p_obj, al_qp_t, v.obj);

	al_clients_qp_destroying(p_qp);
	__atomic_sub_fetch(&p_qp->p_sq_cq->n_qp, 1, __ATOMIC_RELEASE);
	__atomic_sub_fetch(&p_qp->p_rq_cq->n_qp, 1, __ATOMIC_RELEASE);
	if (p_qp->p_srq)
		__atomic_sub_fetch(&p_qp->p_srq->n_qp, 1, __ATOMIC_RELEASE);
}

static void qp_cleanup(al_obj_t *p_obj)
{
	al_qp_t *p_qp = PARENT_STRUCT(p_obj, al_qp_t, v.obj);

	if (p_qp->v.p_prov)
		p_qp->v.p_ops->destroy_qp(p_qp->v.p_prov);
	p_qp->v.p_prov = NULL;
	al_obj_deref(&p_qp->p_sq_cq->v.obj);
	al_obj_deref(&p_qp->p_rq_cq->v.obj);
	if (p_qp->p_srq)
		al_obj_deref(&p_qp->p_srq->v.obj);
}

/* The objects a create names, entered; the status to fail with otherwise. */
typedef struct qp_refs {
	al_cq_t *p_scq, *p_rcq;
	al_srq_t *p_srq;
} qp_refs_t;

static void refs_exit(const ib_qp_create_t *c, qp_refs_t *r)
{
	if (r->p_scq)
		AL_EXIT(c->h_sq_cq);
	if (r->p_rcq)
		AL_EXIT(c->h_rq_cq);
	if (r->p_srq)
		AL_EXIT(c->h_srq);
}

static ib_api_status_t refs_enter(al_pd_t *p_pd, const ib_qp_create_t *c, qp_refs_t *r)
{
	al_ci_ca_t *p_ci = p_pd->p_ca->p_ci;

	r->p_scq = (al_cq_t *)AL_ENTER(c->h_sq_cq, AL_HDL_CQ);
	r->p_rcq = (al_cq_t *)AL_ENTER(c->h_rq_cq, AL_HDL_CQ);
	r->p_srq = c->h_srq ? (al_srq_t *)AL_ENTER(c->h_srq, AL_HDL_SRQ) : NULL;
	if (!r->p_scq || !r->p_rcq || r->p_scq->p_ca->p_ci != p_ci ||
	    r->p_rcq->p_ca->p_ci != p_ci)
		return IB_INVALID_CQ_HANDLE;
	if (c->h_srq && (!r->p_srq || r->p_srq->p_pd->p_ca->p_ci != p_ci))
		return IB_INVALID_SRQ_HANDLE;
	return IB_SUCCESS;
}

/* Creates a provider QP under an entered PD: ordinary (port 0) or the
 * special QP of port @p port (create_spl_qp). */
static ib_api_status_t qp_create(al_pd_t *p_pd, uint8_t port, ib_qp_create_t *const p_qp_create,
				 const void *const qp_context,
				 const ib_pfn_event_cb_t pfn_qp_event_cb, ib_qp_handle_t *const ph_qp)
{
	qp_refs_t r = { NULL, NULL, NULL };
	al_qp_t *p_qp;
	ib_api_status_t st;

	st = refs_enter(p_pd, p_qp_create, &r);
	if (st != IB_SUCCESS)
		goto out;
	p_qp = (al_qp_t *)prov_conn_mem_get(sizeof(*p_qp));
	if (!p_qp) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_qp->kind = AL_CTX_QP;
	p_qp->p_pd = p_pd;
	p_qp->v.p_ops = p_pd->v.p_ops;
	p_qp->pfn_event_cb = pfn_qp_event_cb;
	al_obj_construct(&p_qp->v.obj, AL_HDL_QP);
	st = al_obj_init(&p_qp->v.obj, &p_pd->v.obj, qp_context, qp_destroying, qp_cleanup,
			 qp_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_qp->v.obj);
		qp_free(&p_qp->v.obj);
		st = st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
		goto out;
	}
	/* From here the object's hooks release these. */
	p_qp->p_sq_cq = r.p_scq;
	p_qp->p_rq_cq = r.p_rcq;
	p_qp->p_srq = r.p_srq;
	al_obj_ref(&r.p_scq->v.obj);
	al_obj_ref(&r.p_rcq->v.obj);
	__atomic_add_fetch(&r.p_scq->n_qp, 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&r.p_rcq->n_qp, 1, __ATOMIC_ACQ_REL);
	if (r.p_srq) {
		al_obj_ref(&r.p_srq->v.obj);
		__atomic_add_fetch(&r.p_srq->n_qp, 1, __ATOMIC_ACQ_REL);
	}
	if (port)
		st = p_pd->v.p_ops->create_spl_qp(p_pd->v.p_prov, port, p_qp_create,
						  r.p_scq->v.p_prov, r.p_rcq->v.p_prov,
						  &p_qp->kind, &p_qp->v.p_prov);
	else
		st = p_pd->v.p_ops->create_qp(p_pd->v.p_prov, p_qp_create, r.p_scq->v.p_prov,
					      r.p_rcq->v.p_prov,
					      r.p_srq ? r.p_srq->v.p_prov : NULL, &p_qp->kind,
					      &p_qp->v.p_prov);
	if (st == IB_SUCCESS)
		st = al_verbs_insert_handle(&p_qp->v);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_qp->v.obj, NULL);
		goto out;
	}
	*ph_qp = (ib_qp_handle_t)al_obj_h(&p_qp->v.obj);
out:
	refs_exit(p_qp_create, &r);
	return st;
}

ib_api_status_t al_qp_create_spl(al_pd_t *p_pd, uint8_t port, ib_qp_create_t *p_create,
				 const void *qp_context, ib_pfn_event_cb_t pfn_event_cb,
				 ib_qp_handle_t *ph_qp)
{
	return qp_create(p_pd, port, p_create, qp_context, pfn_event_cb, ph_qp);
}

ib_api_status_t ib_create_qp(const ib_pd_handle_t h_pd, ib_qp_create_t *const p_qp_create,
			     const void *const qp_context, const ib_pfn_event_cb_t pfn_qp_event_cb,
			     ib_qp_handle_t *const ph_qp)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_qp_create || !ph_qp)
		st = IB_INVALID_PARAMETER;
	else if (p_qp_create->qp_type == IB_QPT_MAD)
		/* No provider QP: a client makes it (the MAD layer's dispatcher). */
		st = al_clients_create_qp(p_pd, p_qp_create, qp_context, pfn_qp_event_cb, ph_qp);
	else if (p_qp_create->qp_type == IB_QPT_QP0 || p_qp_create->qp_type == IB_QPT_QP1 ||
		 p_qp_create->qp_type == IB_QPT_QP0_ALIAS ||
		 p_qp_create->qp_type == IB_QPT_QP1_ALIAS)
		st = IB_INVALID_SETTING; /* ib_get_spl_qp() makes those */
	else
		st = qp_create(p_pd, 0, p_qp_create, qp_context, pfn_qp_event_cb, ph_qp);
	AL_EXIT(h_pd);
	return st;
}

ib_api_status_t ib_query_qp(const ib_qp_handle_t h_qp, ib_qp_attr_t *const p_qp_attr)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	ib_api_status_t st;

	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	if (!p_qp_attr) {
		st = IB_INVALID_PARAMETER;
	} else {
		st = p_qp->v.p_ops->query_qp(p_qp->v.p_prov, p_qp_attr);
		if (st == IB_SUCCESS) {
			p_qp_attr->h_pd = (ib_pd_handle_t)al_obj_h(&p_qp->p_pd->v.obj);
			/* MAD and alias QPs have no CQs. */
			p_qp_attr->h_sq_cq = p_qp->p_sq_cq
				? (ib_cq_handle_t)al_obj_h(&p_qp->p_sq_cq->v.obj) : NULL;
			p_qp_attr->h_rq_cq = p_qp->p_rq_cq
				? (ib_cq_handle_t)al_obj_h(&p_qp->p_rq_cq->v.obj) : NULL;
			p_qp_attr->h_srq = p_qp->p_srq
				? (ib_srq_handle_t)al_obj_h(&p_qp->p_srq->v.obj) : NULL;
		}
	}
	AL_EXIT(h_qp);
	return st;
}

ib_api_status_t ib_modify_qp(const ib_qp_handle_t h_qp, const ib_qp_mod_t *const p_qp_mod)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	ib_api_status_t st;

	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	if (!p_qp_mod)
		st = IB_INVALID_PARAMETER;
	else
		st = p_qp->v.p_ops->modify_qp(p_qp->v.p_prov, p_qp_mod);
	AL_EXIT(h_qp);
	return st;
}

ib_api_status_t ib_destroy_qp(const ib_qp_handle_t h_qp, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_qp, AL_HDL_QP, pfn_destroy_cb, IB_INVALID_QP_HANDLE);
}
