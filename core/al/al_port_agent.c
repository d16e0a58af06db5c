/*
 * ibal access layer: a MAD agent on one port (al_port_agent.h).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <string.h>
#include "al_port_agent.h"

const al_port_agent_calls_t al_port_agent_public = {
	.get_spl_qp = ib_get_spl_qp,
	.reg_mad_svc = ib_reg_mad_svc,
};

ib_api_status_t al_port_agent_open(al_port_agent_t *p_ag, ib_ca_handle_t h_ca,
				   ib_net64_t port_guid, uint32_t depth, const ib_mad_svc_t *p_svc,
				   const al_port_agent_calls_t *p_calls)
{
	void *ctx = p_svc->mad_svc_context;
	ib_qp_create_t qc;
	ib_api_status_t st;

	st = ib_alloc_pd(h_ca, IB_PDT_ALIAS, ctx, &p_ag->h_pd);
	if (st != IB_SUCCESS) {
		p_ag->h_pd = NULL;
		return st;
	}
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	qc.sq_depth = depth;
	qc.rq_depth = depth;
	qc.sq_sge = 1;
	qc.rq_sge = 1;
	qc.sq_signaled = TRUE;
	st = p_calls->get_spl_qp(p_ag->h_pd, port_guid, &qc, ctx, NULL, &p_ag->pool_key,
				 &p_ag->h_qp);
	if (st != IB_SUCCESS) {
		p_ag->h_qp = NULL;
		return st;
	}
	st = p_calls->reg_mad_svc(p_ag->h_qp, p_svc, &p_ag->h_svc);
	if (st != IB_SUCCESS)
		p_ag->h_svc = NULL;
	return st;
}

ib_api_status_t al_port_agent_open_local(al_port_agent_t *p_ag, ib_al_handle_t h_al,
					 ib_ca_handle_t h_ca, void *context)
{
	ib_api_status_t st;

	st = ib_alloc_pd(h_ca, IB_PDT_ALIAS, context, &p_ag->h_pd);
	if (st != IB_SUCCESS) {
		p_ag->h_pd = NULL;
		return st;
	}
	st = ib_create_mad_pool(h_al, 0, 0, 4, &p_ag->h_pool);
	if (st != IB_SUCCESS) {
		p_ag->h_pool = NULL;
		return st;
	}
	st = ib_reg_mad_pool(p_ag->h_pool, p_ag->h_pd, &p_ag->pool_key);
	if (st != IB_SUCCESS)
		p_ag->pool_key = NULL;
	return st;
}

void al_port_agent_close(al_port_agent_t *p_ag)
{
	if (p_ag->h_qp)
		ib_destroy_qp(p_ag->h_qp, ib_sync_destroy);
	p_ag->h_qp = NULL;
	p_ag->h_svc = NULL;
}
