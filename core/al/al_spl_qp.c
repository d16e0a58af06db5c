/*
 * ibal access layer: special QPs (ib_get_spl_qp), MAD QPs, and ib_init_dgrm_svc.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Raw IB_QPT_QP0 / IB_QPT_QP1 are the provider's special QPs, used
 * exclusively by their creator with its own CQs: while one exists the port
 * has no dispatcher (aliases get IB_RESOURCE_BUSY), and while a dispatcher
 * holds the port, creating the raw QP is IB_RESOURCE_BUSY. Aliases
 * (IB_QPT_QP0_ALIAS, IB_QPT_QP1_ALIAS) and IB_QPT_MAD QPs are al_mad_qp_t
 * objects with no provider QP: their MADs go through a dispatcher
 * (al_mad.c). Aliases are in service at once; MAD QPs once
 * ib_init_dgrm_svc() gave them a port and a Q_Key.
 */
#include <pthread.h>
#include <string.h>
#include <complib/cl_memory.h>
#include "al_mad.h"
#include "al_client.h"

/* ---- Ops of MAD and alias QPs ---- */

static ib_api_status_t mq_query(void *p, ib_qp_attr_t *a)
{
	al_mad_qp_t *q = (al_mad_qp_t *)p;

	memset(a, 0, sizeof(*a));
	a->qp_type = q->type;
	a->state = q->state;
	a->primary_port = q->port_num;
	a->pkey_index = q->pkey_index;
	a->qkey = q->type == IB_QPT_QP1_ALIAS ? IB_QP1_WELL_KNOWN_Q_KEY : q->qkey;
	if (q->p_disp)
		a->num = q->p_disp->qpn;
	return IB_SUCCESS;
}

static ib_api_status_t mq_modify(void *p, const ib_qp_mod_t *m)
{
	(void)p;
	(void)m;
	return IB_UNSUPPORTED;
}

static void mq_destroy(void *p)
{
	(void)p;
}

static const al_prov_ops_t mad_qp_src = {
	.size = sizeof(al_prov_ops_t),
	.name = "al-mad",
	.query_qp = mq_query,
	.modify_qp = mq_modify,
	.destroy_qp = mq_destroy,
};

/* mad_qp_src with the stubs in its other slots, made before the first MAD QP. */
al_prov_ops_t al_mad_qp_ops;
static pthread_once_t mad_qp_once = PTHREAD_ONCE_INIT;

static void mad_qp_ops_fill(void)
{
	al_prov_fill(&al_mad_qp_ops, &mad_qp_src);
}

static void mq_cleanup(al_obj_t *p_obj)
{
	al_mad_qp_t *q = PARENT_STRUCT(p_obj, al_mad_qp_t, qp.v.obj);

	if (q->p_disp)
		al_mad_disp_put(q->p_disp);
	q->p_disp = NULL;
	if (q->p_key) {
		/* Already ending if its PD went first; referenced until here. */
		al_pool_key_destroy(q->p_key);
		al_obj_deref(&q->p_key->obj);
	}
	q->p_key = NULL;
}

/* Makes a MAD or alias QP (not yet in the handle table) with its pool key. */
static ib_api_status_t mq_new(al_pd_t *p_pd, ib_qp_type_t type, const void *ctx,
			      ib_pfn_event_cb_t pfn_ev, al_mad_qp_t **pp)
{
	al_mad_qp_t *q = (al_mad_qp_t *)cl_zalloc(sizeof(*q));
	al_pool_t *p_pool;
	ib_api_status_t st;

	if (!q)
		return IB_INSUFFICIENT_MEMORY;
	q->qp.kind = AL_CTX_QP;
	q->qp.p_pd = p_pd;
	pthread_once(&mad_qp_once, mad_qp_ops_fill);
	q->qp.v.p_ops = &al_mad_qp_ops;
	q->qp.v.p_prov = q;
	q->qp.pfn_event_cb = pfn_ev;
	q->type = type;
	q->state = IB_QPS_RESET;
	al_obj_construct(&q->qp.v.obj, AL_HDL_QP);
	st = al_obj_init(&q->qp.v.obj, &p_pd->v.obj, ctx, NULL, mq_cleanup, al_verbs_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&q->qp.v.obj);
		cl_free(q);
		return st == IB_INVALID_STATE ? IB_INVALID_PD_HANDLE : st;
	}
	st = al_mad_inst_pool(p_pd, &p_pool);
	if (st == IB_SUCCESS)
		st = al_pool_key_create(p_pool, p_pd, TRUE, &q->p_key, &q->h_key);
	if (st == IB_SUCCESS)
		/* The key is a sibling (a child of the PD), which may end first. */
		al_obj_ref(&q->p_key->obj);
	if (st != IB_SUCCESS) {
		q->p_key = NULL;
		al_obj_destroy(&q->qp.v.obj, NULL);
		return st == IB_INVALID_PD_HANDLE ? st : IB_INSUFFICIENT_RESOURCES;
	}
	*pp = q;
	return IB_SUCCESS;
}

static ib_api_status_t mq_publish(al_mad_qp_t *q, ib_qp_handle_t *ph_qp)
{
	ib_api_status_t st = al_verbs_insert_handle(&q->qp.v);

	if (st != IB_SUCCESS) {
		al_obj_destroy(&q->qp.v.obj, NULL);
		return st;
	}
	*ph_qp = (ib_qp_handle_t)al_obj_h(&q->qp.v.obj);
	return IB_SUCCESS;
}

/* Makes an IB_QPT_MAD queue pair (ib_create_qp(), through the clients):
 * no provider QP, its MADs go through a dispatcher. @p p_pd is entered by
 * the caller; only the type of @p p_create is used; the event callback is
 * never called. */
static ib_api_status_t mad_qp_create(al_pd_t *p_pd, const ib_qp_create_t *p_create,
				     const void *qp_context, ib_pfn_event_cb_t pfn_event_cb,
				     ib_qp_handle_t *ph_qp)
{
	al_mad_qp_t *q;
	ib_api_status_t st;

	if (p_create->qp_type != IB_QPT_MAD)
		return IB_UNSUPPORTED;
	st = mq_new(p_pd, p_create->qp_type, qp_context, pfn_event_cb, &q);
	if (st != IB_SUCCESS)
		return st;
	return mq_publish(q, ph_qp);
}

/* The MAD layer as a client of the core (al_client.h): it makes the QPs of
 * type IB_QPT_MAD that ib_create_qp() is asked for. */
const al_client_t al_mad_layer_client = {
	.name = "mad",
	.create_qp = mad_qp_create,
};

/* ---- ib_get_spl_qp ---- */

/* The port of a CA with GUID port_guid, or 0. */
static uint8_t port_of_guid(al_ci_ca_t *p_ci, ib_net64_t port_guid)
{
	ib_ca_attr_t *p_attr;
	uint8_t i, port = 0;

	if (al_ci_ca_query_alloc(p_ci, &p_attr) != IB_SUCCESS)
		return 0;
	for (i = 0; i < p_attr->num_ports; i++)
		if (p_attr->p_port_attr[i].port_guid == port_guid)
			port = p_attr->p_port_attr[i].port_num;
	cl_free(p_attr);
	return port;
}

/* A raw special QP: the provider's, with the user's CQs (al_qp.c's hooks). */
static ib_api_status_t raw_spl_qp(al_pd_t *p_pd, uint8_t port, ib_qp_create_t *c,
				  const void *ctx, ib_pfn_event_cb_t pfn_ev, ib_qp_handle_t *ph_qp)
{
	return al_qp_create_spl(p_pd, port, c, ctx, pfn_ev, ph_qp);
}

ib_api_status_t ib_get_spl_qp(const ib_pd_handle_t h_pd, const ib_net64_t port_guid,
			      ib_qp_create_t *const p_qp_create, const void *const qp_context,
			      const ib_pfn_event_cb_t pfn_qp_event_cb, ib_pool_key_t *const p_pool_key,
			      ib_qp_handle_t *const ph_qp)
{
	al_pd_t *p_pd = (al_pd_t *)AL_ENTER(h_pd, AL_HDL_PD);
	al_mad_qp_t *q = NULL;
	ib_qp_type_t t;
	uint8_t port;
	ib_api_status_t st;

	if (!p_pd)
		return IB_INVALID_PD_HANDLE;
	if (!p_qp_create || !ph_qp) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	t = p_qp_create->qp_type;
	if (t == IB_QPT_RAW_IPV6 || t == IB_QPT_RAW_ETHER) {
		st = IB_UNSUPPORTED;
		goto out;
	}
	if (t != IB_QPT_QP0 && t != IB_QPT_QP1 && t != IB_QPT_QP0_ALIAS &&
	    t != IB_QPT_QP1_ALIAS) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	port = port_of_guid(p_pd->p_ca->p_ci, port_guid);
	if (!port) {
		st = IB_INVALID_PORT;
		goto out;
	}
	if (t == IB_QPT_QP0 || t == IB_QPT_QP1) {
		st = raw_spl_qp(p_pd, port, p_qp_create, qp_context, pfn_qp_event_cb, ph_qp);
		goto out;
	}
	st = mq_new(p_pd, t, qp_context, pfn_qp_event_cb, &q);
	if (st != IB_SUCCESS)
		goto out;
	q->port_num = port;
	st = al_mad_disp_get(p_pd->p_ca->p_ci, port,
			     t == IB_QPT_QP0_ALIAS ? IB_QPT_QP0 : IB_QPT_QP1, &q->p_disp);
	if (st != IB_SUCCESS) {
		q->p_disp = NULL;
		al_obj_destroy(&q->qp.v.obj, NULL);
		goto out;
	}
	q->state = IB_QPS_RTS;
	st = mq_publish(q, ph_qp);
	if (st == IB_SUCCESS && p_pool_key)
		*p_pool_key = q->h_key;
out:
	AL_EXIT(h_pd);
	return st;
}

/* ---- ib_init_dgrm_svc ---- */

ib_api_status_t al_qp_to_init(ib_qp_handle_t h_qp, uint8_t port, ib_net32_t qkey,
			      uint16_t pkey_index)
{
	ib_qp_mod_t m;
	ib_api_status_t st;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RESET;
	st = ib_modify_qp(h_qp, &m);
	if (st != IB_SUCCESS)
		return st;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = port;
	m.state.init.qkey = qkey;
	m.state.init.pkey_index = pkey_index;
	return ib_modify_qp(h_qp, &m);
}

ib_api_status_t al_qp_init_to_rts(ib_qp_handle_t h_qp)
{
	ib_qp_mod_t m;
	ib_api_status_t st;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	st = ib_modify_qp(h_qp, &m);
	if (st != IB_SUCCESS)
		return st;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = CL_HTON32(1);
	return ib_modify_qp(h_qp, &m);
}

ib_api_status_t al_qp_to_rts(ib_qp_handle_t h_qp, uint8_t port, ib_net32_t qkey,
			     uint16_t pkey_index)
{
	ib_api_status_t st = al_qp_to_init(h_qp, port, qkey, pkey_index);

	return st == IB_SUCCESS ? al_qp_init_to_rts(h_qp) : st;
}

/* IB_QPT_MAD: a dispatcher of its own on the port, once. */
static ib_api_status_t init_mad_qp(al_mad_qp_t *q, const ib_dgrm_info_t *d)
{
	al_ci_ca_t *p_ci = q->qp.p_pd->p_ca->p_ci;
	al_mad_disp_t *p_disp;
	uint8_t port;
	ib_api_status_t st;

	if (!d)
		return IB_INVALID_PARAMETER;
	if (__atomic_load_n(&q->p_disp, __ATOMIC_ACQUIRE))
		return IB_INVALID_QP_STATE;
	port = port_of_guid(p_ci, d->port_guid);
	if (!port)
		return IB_INVALID_PORT;
	st = al_mad_disp_create_ud(p_ci, port, d->qkey, d->pkey_index, &p_disp);
	if (st != IB_SUCCESS)
		return st;
	q->port_num = port;
	q->qkey = d->qkey;
	q->pkey_index = d->pkey_index;
	q->state = IB_QPS_RTS;
	p_disp = __atomic_exchange_n(&q->p_disp, p_disp, __ATOMIC_ACQ_REL);
	if (p_disp) {
		/* A concurrent init won. */
		al_mad_disp_put(p_disp);
		return IB_INVALID_QP_STATE;
	}
	return IB_SUCCESS;
}

ib_api_status_t ib_init_dgrm_svc(const ib_qp_handle_t h_qp, const ib_dgrm_info_t *const p_dgrm_info)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	ib_qp_attr_t a;
	uint8_t port;
	ib_api_status_t st;

	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	if (al_qp_is_mad(p_qp)) {
		al_mad_qp_t *q = PARENT_STRUCT(p_qp, al_mad_qp_t, qp);

		/* Aliases are in service from their creation. */
		st = q->type == IB_QPT_MAD ? init_mad_qp(q, p_dgrm_info) : IB_INVALID_PARAMETER;
		goto out;
	}
	st = ib_query_qp(h_qp, &a);
	if (st != IB_SUCCESS)
		goto out;
	switch (a.qp_type) {
	case IB_QPT_QP0:
	case IB_QPT_QP1:
		/* The provider knows the port; P_Key index 0 unless given. */
		st = al_qp_to_rts(h_qp, a.primary_port,
				  a.qp_type == IB_QPT_QP1 ? IB_QP1_WELL_KNOWN_Q_KEY : 0,
				  p_dgrm_info ? p_dgrm_info->pkey_index : 0);
		break;
	case IB_QPT_UNRELIABLE_DGRM:
		if (!p_dgrm_info) {
			st = IB_INVALID_PARAMETER;
			break;
		}
		port = port_of_guid(p_qp->p_pd->p_ca->p_ci, p_dgrm_info->port_guid);
		st = port ? al_qp_to_rts(h_qp, port, p_dgrm_info->qkey,
					 p_dgrm_info->pkey_index)
			  : IB_INVALID_PORT;
		break;
	case IB_QPT_RAW_IPV6:
	case IB_QPT_RAW_ETHER:
		st = IB_UNSUPPORTED;
		break;
	default:
		st = IB_INVALID_PARAMETER;
		break;
	}
out:
	AL_EXIT(h_qp);
	return st;
}
