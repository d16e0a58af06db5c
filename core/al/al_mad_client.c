/*
 * ibal access layer: a small GMP request client on a port's QP1, for the SA client to build on.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Built only on the public MAD calls, through the port agent helper
 * (al_port_agent.h): an alias PD, the QP1 alias, its pool key and one
 * IB_MAD_SVC_DEFAULT service. Each request carries a cl_malloc'd record
 * in its element's context1; the send callback reports failures, and the
 * response (delivered right after the send callback, on the same service
 * queue) reports success.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_mad.h"

typedef struct gmp_req {
	al_gmp_cb_t pfn_cb;
	void *context;
} gmp_req_t;

static void AL_API gmp_send_cb(const ib_mad_svc_handle_t h_svc, void *svc_ctx,
			       ib_mad_element_t *e)
{
	gmp_req_t *r = (gmp_req_t *)(uintptr_t)e->context1;
	ib_wc_status_t ws = e->status;

	(void)h_svc;
	(void)svc_ctx;
	ib_put_mad(e);
	if (ws == IB_WCS_SUCCESS)
		return; /* the response follows */
	r->pfn_cb(r->context,
		  ws == IB_WCS_TIMEOUT_RETRY_ERR ? IB_TIMEOUT
		  : ws == IB_WCS_CANCELED	  ? IB_CANCELED
						  : IB_ERROR,
		  NULL);
	cl_free(r);
}

static void AL_API gmp_recv_cb(const ib_mad_svc_handle_t h_svc, void *svc_ctx,
			       ib_mad_element_t *e)
{
	gmp_req_t *r = (gmp_req_t *)e->send_context1;

	(void)h_svc;
	(void)svc_ctx;
	if (!r) {
		ib_put_mad(e); /* unsolicited: not registered for, never comes */
		return;
	}
	r->pfn_cb(r->context, IB_SUCCESS, e);
	cl_free(r);
}

ib_api_status_t al_gmp_client_open(ib_ca_handle_t h_ca, ib_net64_t port_guid,
				   al_gmp_client_t *p_client)
{
	ib_mad_svc_t svc;
	ib_api_status_t st;

	if (!p_client)
		return IB_INVALID_PARAMETER;
	memset(p_client, 0, sizeof(*p_client));
	memset(&svc, 0, sizeof(svc));
	svc.mad_svc_context = p_client;
	svc.pfn_mad_send_cb = gmp_send_cb;
	svc.pfn_mad_recv_cb = gmp_recv_cb;
	svc.svc_type = IB_MAD_SVC_DEFAULT;
	st = al_port_agent_open(&p_client->agent, h_ca, port_guid, 64, &svc, &al_port_agent_public);
	if (st != IB_SUCCESS)
		al_gmp_client_close(p_client);
	return st;
}

ib_api_status_t al_gmp_request(al_gmp_client_t *p_client, ib_net16_t dlid, const ib_mad_t *p_mad,
			       size_t len, uint32_t timeout_ms, uint32_t retries,
			       al_gmp_cb_t pfn_cb, void *context)
{
	ib_mad_element_t *e;
	gmp_req_t *r;
	ib_api_status_t st;

	if (!p_client || !p_mad || !pfn_cb || len < sizeof(ib_mad_t) || len > MAD_BLOCK_SIZE)
		return IB_INVALID_PARAMETER;
	r = (gmp_req_t *)cl_zalloc(sizeof(*r));
	if (!r)
		return IB_INSUFFICIENT_MEMORY;
	st = ib_get_mad(p_client->agent.pool_key, MAD_BLOCK_SIZE, &e);
	if (st != IB_SUCCESS) {
		cl_free(r);
		return st;
	}
	r->pfn_cb = pfn_cb;
	r->context = context;
	memcpy(e->p_mad_buf, p_mad, len);
	e->size = (uint32_t)len;
	e->remote_lid = dlid;
	e->remote_qp = CL_HTON32(1);
	e->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	e->resp_expected = TRUE;
	e->timeout_ms = timeout_ms;
	e->retry_cnt = retries;
	e->context1 = r;
	st = ib_send_mad(p_client->agent.h_svc, e, NULL);
	if (st != IB_SUCCESS) {
		ib_put_mad(e);
		cl_free(r);
	}
	return st;
}

void al_gmp_client_close(al_gmp_client_t *p_client)
{
	if (!p_client)
		return;
	if (p_client->agent.h_qp)
		ib_destroy_qp(p_client->agent.h_qp, al_sync_unless_cb());
	if (p_client->agent.h_pd)
		ib_dealloc_pd(p_client->agent.h_pd, al_sync_unless_cb());
	memset(p_client, 0, sizeof(*p_client));
}
