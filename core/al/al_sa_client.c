/*
 * ibal access layer: the SA client's per-port request services, requests and Report() dispatch.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_sa_client.h. Locks: g_lock (the list of port services, their
 * counts, the teardown count) is never held while calling the MAD layer;
 * a request's lock is never held while calling the MAD layer either; a
 * port's listener lock is held while listeners run (they only queue). A RoCE
 * port has no SA: its requests are answered here (al_sa_roce.c), and its
 * service has no QP1 alias or MAD service (answers_locally()).
 */
#include <stdlib.h>
#include <string.h>
#include <complib/cl_memory.h>
#include "al_sa_client.h"
#include "al_client.h"
#include "al_verbs.h"
#include "ibal_log.h"
#include "ibal_random.h"

/* A port's SA service. Fields other than ref are constant while it lives. */
struct al_sa_port {
	cl_list_item_t item;         /* on g_ports (g_lock) */
	uint32_t ref;                /* users (g_lock) */
	ib_net64_t port_guid;
	ib_net64_t ca_guid;
	uint8_t port_num;
	const al_sa_mad_ops_t *p_ops;
	ib_al_handle_t h_al;         /* internal instance owning everything below */
	ib_ca_handle_t h_ca;
	al_port_agent_t agent;       /* the QP1 alias and the SA MAD service */
	uint64_t tid;                /* atomic: last transaction ID */
	pthread_mutex_t lsn_lock;    /* listeners */
	cl_qlist_t listeners;        /* al_sa_listener_t::item */
	cl_qlist_t users;            /* al_sa_user_t::item (g_lock) */
	pthread_mutex_t nosm_lock;   /* nosm, al_sa_req_t::on_nosm */
	cl_qlist_t nosm;             /* requests waiting with no SM (al_sa_req_t::nosm_item) */
	cl_timer_t nosm_timer;       /* ends them */
};

/* An AL instance that used a port: a child object of the instance holding
 * one count of the port, so that the service lives as long as an instance
 * that used it stays open (not one request at a time). */
typedef struct al_sa_user {
	al_obj_t obj;
	cl_list_item_t item;         /* on the port's users (g_lock) */
	al_obj_t *p_inst;
	al_sa_port_t *p_port;
	boolean_t listed;            /* g_lock */
} al_sa_user_t;

#define AL_OBJ_TYPE_SA_USER (AL_OBJ_TYPE_INTERNAL + 0x5A)

static const al_sa_mad_ops_t pub_ops = {
	.agent = { .get_spl_qp = ib_get_spl_qp, .reg_mad_svc = ib_reg_mad_svc },
	.send_mad = ib_send_mad,
	.cancel_mad = ib_cancel_mad,
	.close_svc = NULL,
	.sm_lid = 0,
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static cl_qlist_t g_ports;
static boolean_t g_ports_init;
static uint32_t g_teardowns;     /* teardown threads running (g_lock) */
static const al_sa_mad_ops_t *g_ops = &pub_ops;

void al_sa_set_mad_ops(const al_sa_mad_ops_t *p_ops)
{
	pthread_mutex_lock(&g_lock);
	g_ops = p_ops ? p_ops : &pub_ops;
	pthread_mutex_unlock(&g_lock);
}

/* ---- Port attributes ---- */

/* Queries a CA into a cl_malloc'd block (freed by the caller). */
static ib_api_status_t query_ca_alloc(ib_al_handle_t h_al, ib_ca_handle_t h_ca, ib_net64_t guid,
				      ib_ca_attr_t **pp_attr)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;
	ib_api_status_t st;

	for (;;) {
		st = h_ca ? ib_query_ca(h_ca, NULL, &size) : ib_query_ca_by_guid(h_al, guid, NULL, &size);
		if (st != IB_INSUFFICIENT_MEMORY)
			return st == IB_SUCCESS ? IB_ERROR : st;
		p_attr = (ib_ca_attr_t *)cl_zalloc(size);
		if (!p_attr)
			return IB_INSUFFICIENT_MEMORY;
		st = h_ca ? ib_query_ca(h_ca, p_attr, &size) : ib_query_ca_by_guid(h_al, guid, p_attr, &size);
		if (st == IB_SUCCESS) {
			*pp_attr = p_attr;
			return IB_SUCCESS;
		}
		cl_free(p_attr);
		if (st != IB_INSUFFICIENT_MEMORY)
			return st;
	}
}

/* The port's attributes, in a block the caller frees (*pp_attr). */
static ib_api_status_t port_attr(al_sa_port_t *p_port, ib_ca_attr_t **pp_attr, ib_port_attr_t **pp_pa)
{
	ib_api_status_t st = query_ca_alloc(NULL, p_port->h_ca, 0, pp_attr);

	if (st != IB_SUCCESS)
		return st;
	if (p_port->port_num < 1 || p_port->port_num > (*pp_attr)->num_ports) {
		cl_free(*pp_attr);
		return IB_INVALID_PORT;
	}
	*pp_pa = &(*pp_attr)->p_port_attr[p_port->port_num - 1];
	return IB_SUCCESS;
}

ib_api_status_t al_sa_port_info(al_sa_port_t *p_port, ib_net16_t *p_lid, ib_gid_t *p_gid,
				ib_net16_t *p_pkey)
{
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;
	ib_api_status_t st = port_attr(p_port, &p_attr, &p_pa);

	if (st != IB_SUCCESS)
		return st;
	if (p_lid)
		*p_lid = p_pa->lid;
	if (p_gid) {
		if (p_pa->num_gids && p_pa->p_gid_table)
			*p_gid = p_pa->p_gid_table[0];
		else
			ib_gid_set_default(p_gid, p_port->port_guid);
	}
	if (p_pkey)
		*p_pkey = (p_pa->num_pkeys && p_pa->p_pkey_table) ? p_pa->p_pkey_table[0]
								  : CL_HTON16(IB_DEFAULT_PKEY);
	cl_free(p_attr);
	return IB_SUCCESS;
}

/* Finds the CA and port number of a port GUID. */
static ib_api_status_t find_port(ib_al_handle_t h_al, ib_net64_t port_guid, ib_net64_t *p_ca_guid,
				 uint8_t *p_num)
{
	ib_net64_t *guids;
	size_t n = 0, i;
	ib_ca_attr_t *p_attr;
	ib_api_status_t st;
	uint8_t p;

	st = ib_get_ca_guids(h_al, NULL, &n);
	if (st == IB_SUCCESS || !n)
		return IB_INVALID_GUID;
	if (st != IB_INSUFFICIENT_MEMORY)
		return st;
	guids = (ib_net64_t *)cl_malloc(n * sizeof(*guids));
	if (!guids)
		return IB_INSUFFICIENT_MEMORY;
	st = ib_get_ca_guids(h_al, guids, &n);
	if (st != IB_SUCCESS) {
		cl_free(guids);
		return st;
	}
	st = IB_INVALID_GUID;
	for (i = 0; i < n && st == IB_INVALID_GUID; i++) {
		if (query_ca_alloc(h_al, NULL, guids[i], &p_attr) != IB_SUCCESS)
			continue;
		for (p = 0; p < p_attr->num_ports; p++)
			if (p_attr->p_port_attr[p].port_guid == port_guid) {
				*p_ca_guid = guids[i];
				*p_num = p_attr->p_port_attr[p].port_num;
				st = IB_SUCCESS;
				break;
			}
		cl_free(p_attr);
	}
	cl_free(guids);
	return st;
}

/* ---- Requests ---- */

static ib_api_status_t wc_to_status(ib_wc_status_t wcs)
{
	switch (wcs) {
	case IB_WCS_SUCCESS:
		return IB_SUCCESS;
	case IB_WCS_TIMEOUT_RETRY_ERR:
		return IB_TIMEOUT;
	case IB_WCS_CANCELED:
		return IB_CANCELED;
	default:
		return IB_ERROR;
	}
}

/* Drops one of the request's two holds; the last releases the owner. */
static void req_release(al_sa_req_t *p_req)
{
	al_obj_t *p_owner = p_req->p_owner;

	if (__atomic_sub_fetch(&p_req->holds, 1, __ATOMIC_ACQ_REL) == 0)
		al_obj_deref(p_owner);
}

/* Delivers the result once; later results (a response after a cancel) are dropped. */
static void req_finish(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	if (__atomic_exchange_n(&p_req->done, 1, __ATOMIC_ACQ_REL)) {
		if (p_resp)
			ib_put_mad(p_resp);
		return;
	}
	if (status != IB_SUCCESS)
		IBAL_DBG(IBAL_SUB_SA, "SA request ended without an answer: %s", ib_get_err_str(status));
	else if (p_resp && p_resp->p_mad_buf && p_resp->p_mad_buf->status)
		IBAL_DBG(IBAL_SUB_SA, "SA answered method 0x%02x attr 0x%04x from LID 0x%x with status "
			 "0x%04x", p_resp->p_mad_buf->method, cl_ntoh16(p_resp->p_mad_buf->attr_id),
			 cl_ntoh16(p_resp->remote_lid), cl_ntoh16(p_resp->p_mad_buf->status));
	p_req->pfn_done(p_req, status, p_resp);
	req_release(p_req);
}

ib_api_status_t al_sa_req_init(al_sa_req_t *p_req, al_obj_t *p_owner, al_sa_pfn_done_t pfn_done)
{
	memset(p_req, 0, sizeof(*p_req));
	p_req->p_owner = p_owner;
	p_req->pfn_done = pfn_done;
	p_req->done = 1;
	cl_event_construct(&p_req->sync_event);
	if (pthread_mutex_init(&p_req->lock, NULL))
		return IB_ERROR;
	if (cl_event_init(&p_req->sync_event, FALSE) != CL_SUCCESS) {
		pthread_mutex_destroy(&p_req->lock);
		return IB_ERROR;
	}
	return IB_SUCCESS;
}

void al_sa_req_destroy(al_sa_req_t *p_req)
{
	cl_event_destroy(&p_req->sync_event);
	pthread_mutex_destroy(&p_req->lock);
}

ib_api_status_t al_sa_reg_init(al_sa_reg_t *p_reg, al_obj_t *p_owner, al_sa_pfn_done_t req_done,
			       al_sa_pfn_done_t fin_done)
{
	if (pthread_mutex_init(&p_reg->lock, NULL))
		return IB_ERROR;
	if (al_sa_req_init(&p_reg->req, p_owner, req_done) != IB_SUCCESS)
		goto destroy_lock;
	if (al_sa_req_init(&p_reg->fin, p_owner, fin_done) != IB_SUCCESS)
		goto destroy_req;
	return IB_SUCCESS;
destroy_req:
	al_sa_req_destroy(&p_reg->req);
destroy_lock:
	pthread_mutex_destroy(&p_reg->lock);
	return IB_ERROR;
}

void al_sa_reg_destroy(al_sa_reg_t *p_reg)
{
	if (p_reg->req.p_resp)
		ib_put_mad(p_reg->req.p_resp);
	if (p_reg->p_port)
		al_sa_port_put(p_reg->p_port);
	al_sa_req_destroy(&p_reg->req);
	al_sa_req_destroy(&p_reg->fin);
	pthread_mutex_destroy(&p_reg->lock);
}

/* The no-SM timer: ends the requests whose wait is over with IB_TIMEOUT. */
static void nosm_expired(void *context)
{
	al_sa_port_t *p_port = (al_sa_port_t *)context;
	cl_qlist_t done;
	cl_list_item_t *it, *next;
	uint64_t now = cl_get_time_stamp(), first = 0;
	al_sa_req_t *p_req;

	cl_qlist_init(&done);
	pthread_mutex_lock(&p_port->nosm_lock);
	for (it = cl_qlist_head(&p_port->nosm); it != cl_qlist_end(&p_port->nosm); it = next) {
		next = cl_qlist_next(it);
		p_req = PARENT_STRUCT(it, al_sa_req_t, nosm_item);
		if (p_req->deadline_us <= now) {
			cl_qlist_remove_item(&p_port->nosm, it);
			p_req->on_nosm = FALSE;
			cl_qlist_insert_tail(&done, it);
		} else if (!first || p_req->deadline_us < first) {
			first = p_req->deadline_us;
		}
	}
	if (first)
		cl_timer_start(&p_port->nosm_timer, (uint32_t)((first - now + 999) / 1000));
	pthread_mutex_unlock(&p_port->nosm_lock);
	while ((it = cl_qlist_remove_head(&done)) != cl_qlist_end(&done)) {
		ib_mad_element_t *p_local;

		p_req = PARENT_STRUCT(it, al_sa_req_t, nosm_item);
		p_local = p_req->p_local;
		p_req->p_local = NULL;
		req_finish(p_req, p_local ? p_req->local_status : IB_TIMEOUT, p_local);
		req_release(p_req);
	}
}

/* Starts the wait of a request that cannot be sent (no SM). */
static void nosm_wait(al_sa_req_t *p_req, al_sa_port_t *p_port, uint32_t timeout_ms,
		      uint32_t retry_cnt)
{
	uint64_t ms = (uint64_t)timeout_ms * ((uint64_t)retry_cnt + 1);

	if (ms > 0xFFFFFFFFu)
		ms = 0xFFFFFFFFu;
	p_req->p_port = p_port;
	p_req->status = IB_SUCCESS;
	p_req->p_resp = NULL;
	__atomic_store_n(&p_req->holds, 2, __ATOMIC_RELAXED);
	al_obj_ref(p_req->p_owner);
	__atomic_store_n(&p_req->done, 0, __ATOMIC_RELEASE);
	pthread_mutex_lock(&p_port->nosm_lock);
	p_req->deadline_us = cl_get_time_stamp() + ms * 1000;
	p_req->on_nosm = TRUE;
	cl_qlist_insert_tail(&p_port->nosm, &p_req->nosm_item);
	cl_timer_trim(&p_port->nosm_timer, (uint32_t)ms);
	pthread_mutex_unlock(&p_port->nosm_lock);
}

/* Whether the query carries its attribute (a selection, or a Set/Delete). */
static boolean_t query_sends_attr(const ib_user_query_t *q)
{
	return q->comp_mask || q->method == IB_MAD_METHOD_SET || q->method == IB_MAD_METHOD_DELETE;
}

/* RoCE has no SA: the query is answered here (al_sa_roce.c), delivered by
 * the no-SM timer as soon as it runs, like any other answer. */
static ib_api_status_t roce_answer(al_sa_req_t *p_req, al_sa_port_t *p_port,
				   const ib_port_attr_t *p_pa, const ib_user_query_t *p_query)
{
	ib_mad_element_t *p_resp = NULL;
	ib_api_status_t rst = IB_SUCCESS;
	ib_api_status_t st = al_sa_roce_answer(p_port->agent.pool_key, p_pa, p_query, &p_resp, &rst);

	if (st != IB_SUCCESS)
		return st;
	p_req->p_local = p_resp;
	p_req->local_status = rst;
	nosm_wait(p_req, p_port, 0, 0);
	return IB_SUCCESS;
}

/* The SA query MAD to the SM's LID. */
static void sa_mad_fill(ib_mad_element_t *p_mad, al_sa_port_t *p_port, al_sa_req_t *p_req,
			const ib_user_query_t *p_query, ib_net16_t sm_lid, uint8_t sm_sl,
			uint32_t timeout_ms, uint32_t retry_cnt)
{
	ib_sa_mad_t *p_sa = (ib_sa_mad_t *)p_mad->p_mad_buf;

	ib_mad_init_new((ib_mad_t *)p_sa, IB_MCLASS_SUBN_ADM, 2, p_query->method,
			cl_hton64(__atomic_add_fetch(&p_port->tid, 1, __ATOMIC_RELAXED)),
			p_query->attr_id, 0);
	p_sa->attr_offset = ib_get_attr_offset((p_query->attr_size + 7u) & ~7u);
	p_sa->comp_mask = p_query->comp_mask;
	if (p_query->attr_size && p_query->p_attr && query_sends_attr(p_query))
		memcpy(p_sa->data, p_query->p_attr, p_query->attr_size);
	p_mad->size = MAD_BLOCK_SIZE;
	p_mad->context1 = p_req;
	p_mad->context2 = NULL;
	p_mad->remote_qp = IB_QP1;
	p_mad->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	p_mad->h_av = NULL;
	p_mad->remote_lid = sm_lid;
	p_mad->remote_sl = sm_sl;
	p_mad->pkey_index = 0;
	p_mad->path_bits = 0;
	p_mad->grh_valid = FALSE;
	p_mad->send_opt = 0;
	p_mad->resp_expected = TRUE;
	p_mad->timeout_ms = timeout_ms ? timeout_ms : AL_SA_DEFAULT_TIMEOUT_MS;
	p_mad->retry_cnt = retry_cnt;
}

ib_api_status_t al_sa_send(al_sa_req_t *p_req, al_sa_port_t *p_port,
			   const ib_user_query_t *p_query, uint32_t timeout_ms,
			   uint32_t retry_cnt)
{
	uint32_t size = (p_query->attr_size + 7u) & ~7u;
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;
	ib_mad_element_t *p_mad;
	ib_api_status_t st;
	ib_net16_t sm_lid;
	uint8_t sm_sl;

	if (size > IB_SA_DATA_SIZE ||
	    (p_query->attr_size && !p_query->p_attr && query_sends_attr(p_query)))
		return IB_INVALID_SETTING;
	st = port_attr(p_port, &p_attr, &p_pa);
	if (st != IB_SUCCESS)
		return st;
	if (p_pa->transport == RDMA_TRANSPORT_RDMAOE && !p_port->p_ops->sm_lid) {
		st = roce_answer(p_req, p_port, p_pa, p_query);
		cl_free(p_attr);
		return st;
	}
	if (!p_port->agent.h_svc) { /* opened as RoCE (answers_locally): it stays so */
		cl_free(p_attr);
		IBAL_ERR(IBAL_SUB_SA, "port 0x%016" PRIx64 " has no MAD service",
			 cl_ntoh64(p_port->port_guid));
		return IB_INVALID_PORT_STATE;
	}
	sm_lid = p_pa->sm_lid;
	sm_sl = p_pa->sm_sl;
	if (p_port->p_ops->sm_lid)
		sm_lid = p_port->p_ops->sm_lid == AL_SA_NO_SM ? 0 : p_port->p_ops->sm_lid;
	else if (p_pa->link_state != IB_LINK_ACTIVE)
		sm_lid = 0;
	cl_free(p_attr);
	if (!sm_lid) {
		nosm_wait(p_req, p_port, timeout_ms ? timeout_ms : AL_SA_DEFAULT_TIMEOUT_MS, retry_cnt);
		return IB_SUCCESS;
	}
	st = ib_get_mad(p_port->agent.pool_key, MAD_BLOCK_SIZE, &p_mad);
	if (st != IB_SUCCESS)
		return st;
	sa_mad_fill(p_mad, p_port, p_req, p_query, sm_lid, sm_sl, timeout_ms, retry_cnt);
	p_req->p_port = p_port;
	p_req->status = IB_SUCCESS;
	p_req->p_resp = NULL;
	__atomic_store_n(&p_req->holds, 2, __ATOMIC_RELAXED);
	al_obj_ref(p_req->p_owner);
	pthread_mutex_lock(&p_req->lock);
	p_req->p_send = p_mad;
	p_req->put_deferred = FALSE;
	pthread_mutex_unlock(&p_req->lock);
	__atomic_store_n(&p_req->done, 0, __ATOMIC_RELEASE);
	st = p_port->p_ops->send_mad(p_port->agent.h_svc, p_mad, NULL);
	if (st != IB_SUCCESS) {
		__atomic_store_n(&p_req->done, 1, __ATOMIC_RELEASE);
		pthread_mutex_lock(&p_req->lock);
		p_req->p_send = NULL;
		pthread_mutex_unlock(&p_req->lock);
		ib_put_mad(p_mad);
		al_obj_deref(p_req->p_owner);
	}
	return st;
}

void al_sa_cancel(al_sa_req_t *p_req)
{
	ib_mad_element_t *p_mad;
	al_sa_port_t *p_port = p_req->p_port;
	boolean_t put;

	if (p_port) {
		pthread_mutex_lock(&p_port->nosm_lock);
		put = p_req->on_nosm;
		if (put) {
			cl_qlist_remove_item(&p_port->nosm, &p_req->nosm_item);
			p_req->on_nosm = FALSE;
		}
		pthread_mutex_unlock(&p_port->nosm_lock);
		if (put) {
			if (p_req->p_local) {
				ib_put_mad(p_req->p_local);
				p_req->p_local = NULL;
			}
			req_finish(p_req, IB_CANCELED, NULL);
			req_release(p_req);
			return;
		}
	}
	pthread_mutex_lock(&p_req->lock);
	p_mad = p_req->p_send;
	if (!p_mad || p_req->cancel_busy) {
		pthread_mutex_unlock(&p_req->lock);
		return;
	}
	p_req->cancel_busy = TRUE;
	pthread_mutex_unlock(&p_req->lock);

	p_req->p_port->p_ops->cancel_mad(p_req->p_port->agent.h_svc, p_mad);

	pthread_mutex_lock(&p_req->lock);
	p_req->cancel_busy = FALSE;
	put = p_req->put_deferred;
	p_req->put_deferred = FALSE;
	pthread_mutex_unlock(&p_req->lock);
	if (put)
		ib_put_mad(p_mad);
}

void al_sa_req_wait(al_sa_req_t *p_req)
{
	cl_event_wait_on(&p_req->sync_event, EVENT_NO_TIMEOUT, FALSE);
}

/* ---- MAD service callbacks ---- */

static void AL_API on_send(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	al_sa_req_t *p_req = (al_sa_req_t *)(uintptr_t)p_mad->context1;
	boolean_t put = TRUE;

	(void)h_svc;
	(void)ctx;
	if (!p_req) {                 /* a ReportResp() */
		ib_put_mad(p_mad);
		return;
	}
	if (p_mad->status != IB_WCS_SUCCESS)
		req_finish(p_req, wc_to_status(p_mad->status), NULL);
	pthread_mutex_lock(&p_req->lock);
	p_req->p_send = NULL;
	if (p_req->cancel_busy) {
		p_req->put_deferred = TRUE;
		put = FALSE;
	}
	pthread_mutex_unlock(&p_req->lock);
	if (put)
		ib_put_mad(p_mad);
	req_release(p_req);
}

/* Hands a Report() to the port's listeners and answers it with ReportResp(). */
static void on_report(al_sa_port_t *p_port, ib_mad_element_t *p_mad)
{
	ib_sa_mad_t *p_sa = (ib_sa_mad_t *)p_mad->p_mad_buf;
	cl_list_item_t *it;

	if (p_mad->size >= IB_SA_MAD_HDR_SIZE + sizeof(ib_mad_notice_attr_t) &&
	    p_sa->attr_id == IB_MAD_ATTR_NOTICE) {
		pthread_mutex_lock(&p_port->lsn_lock);
		for (it = cl_qlist_head(&p_port->listeners); it != cl_qlist_end(&p_port->listeners);
		     it = cl_qlist_next(it)) {
			al_sa_listener_t *p_l = PARENT_STRUCT(it, al_sa_listener_t, item);

			p_l->pfn_report(p_l, (const ib_mad_notice_attr_t *)(void *)p_sa->data);
		}
		pthread_mutex_unlock(&p_port->lsn_lock);
	}
	/* The response: the same MAD with the R bit, back to its source. */
	ib_mad_init_response((ib_mad_t *)p_sa, (ib_mad_t *)p_sa, 0);
	p_mad->p_next = NULL;
	p_mad->context1 = NULL;
	p_mad->context2 = NULL;
	p_mad->h_av = NULL;
	p_mad->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	p_mad->resp_expected = FALSE;
	p_mad->retry_cnt = 0;
	p_mad->timeout_ms = 0;
	p_mad->rmpp_version = 0;
	p_mad->send_opt = 0;
	p_mad->size = MAD_BLOCK_SIZE;
	if (p_port->p_ops->send_mad(p_port->agent.h_svc, p_mad, NULL) != IB_SUCCESS)
		ib_put_mad(p_mad);
}

static void AL_API on_recv(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	al_sa_port_t *p_port = (al_sa_port_t *)ctx;
	ib_sa_mad_t *p_sa = (ib_sa_mad_t *)p_mad->p_mad_buf;
	al_sa_req_t *p_req;

	(void)h_svc;
	if (!p_sa || p_mad->size < IB_SA_MAD_HDR_SIZE) {
		ib_put_mad(p_mad);
		return;
	}
	if (!ib_mad_is_response((ib_mad_t *)p_sa)) {
		if (p_sa->method == IB_MAD_METHOD_REPORT)
			on_report(p_port, p_mad);
		else
			ib_put_mad(p_mad);
		return;
	}
	p_req = (al_sa_req_t *)p_mad->send_context1;
	if (!p_req) {
		ib_put_mad(p_mad);
		return;
	}
	req_finish(p_req, p_sa->status ? IB_REMOTE_ERROR : IB_SUCCESS, p_mad);
}

/* ---- Port services ---- */

static void port_free(al_sa_port_t *p_port)
{
	cl_timer_destroy(&p_port->nosm_timer);
	pthread_mutex_destroy(&p_port->nosm_lock);
	pthread_mutex_destroy(&p_port->lsn_lock);
	cl_free(p_port);
}

/* Ends a service: its MAD service, then its AL instance. Not on an AL
 * callback thread. */
static void port_close(al_sa_port_t *p_port)
{
	if (p_port->agent.h_svc && p_port->p_ops->close_svc)
		p_port->p_ops->close_svc(p_port->agent.h_svc);
	/* The alias QP (and its MAD service) first, on its own, then the rest. */
	if (p_port->p_ops == &pub_ops)
		al_port_agent_close(&p_port->agent);
	if (p_port->h_al)
		al_client_close_al(p_port->h_al);
	port_free(p_port);
}

static void *teardown_thread(void *arg)
{
	port_close((al_sa_port_t *)arg);
	pthread_mutex_lock(&g_lock);
	g_teardowns--;
	pthread_cond_broadcast(&g_cond);
	pthread_mutex_unlock(&g_lock);
	return NULL;
}

/* Whether every request of the port is answered here (al_sa_send's
 * roce_answer): a RoCE port, no SM given by the MAD ops. Such a port needs
 * no QP1 alias and no MAD service, only a pool key for the answers. */
static boolean_t answers_locally(al_sa_port_t *p_port)
{
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;
	boolean_t local;

	if (p_port->p_ops->sm_lid || port_attr(p_port, &p_attr, &p_pa) != IB_SUCCESS)
		return FALSE;
	local = p_pa->transport == RDMA_TRANSPORT_RDMAOE;
	cl_free(p_attr);
	return local;
}

static ib_api_status_t port_open(ib_net64_t port_guid, const al_sa_mad_ops_t *p_ops,
				 al_sa_port_t **pp_port)
{
	al_sa_port_t *p_port = (al_sa_port_t *)cl_zalloc(sizeof(*p_port));
	ib_mad_svc_t svc;
	ib_api_status_t st;

	if (!p_port)
		return IB_INSUFFICIENT_MEMORY;
	cl_timer_construct(&p_port->nosm_timer);
	if (pthread_mutex_init(&p_port->lsn_lock, NULL)) {
		cl_free(p_port);
		return IB_ERROR;
	}
	if (pthread_mutex_init(&p_port->nosm_lock, NULL)) {
		pthread_mutex_destroy(&p_port->lsn_lock);
		cl_free(p_port);
		return IB_ERROR;
	}
	cl_qlist_init(&p_port->nosm);
	if (cl_timer_init(&p_port->nosm_timer, nosm_expired, p_port) != CL_SUCCESS) {
		port_free(p_port);
		return IB_ERROR;
	}
	cl_qlist_init(&p_port->listeners);
	cl_qlist_init(&p_port->users);
	p_port->port_guid = port_guid;
	p_port->p_ops = p_ops;
	p_port->tid = ibal_random64() & 0xFFFFFFFFFFFF0000ull; /* random start: ibal_random.h */
	st = ib_open_al(&p_port->h_al);
	if (st != IB_SUCCESS) {
		p_port->h_al = NULL;
		goto fail;
	}
	st = find_port(p_port->h_al, port_guid, &p_port->ca_guid, &p_port->port_num);
	if (st != IB_SUCCESS)
		goto fail;
	st = ib_open_ca(p_port->h_al, p_port->ca_guid, NULL, p_port, &p_port->h_ca);
	if (st != IB_SUCCESS)
		goto fail;
	if (answers_locally(p_port)) {
		st = al_port_agent_open_local(&p_port->agent, p_port->h_al, p_port->h_ca, p_port);
		if (st != IB_SUCCESS)
			goto fail;
		IBAL_DBG(IBAL_SUB_SA, "port 0x%016" PRIx64 " is RoCE: answered here, no MAD service",
			 cl_ntoh64(port_guid));
		*pp_port = p_port;
		return IB_SUCCESS;
	}
	memset(&svc, 0, sizeof(svc));
	svc.mad_svc_context = p_port;
	svc.pfn_mad_send_cb = on_send;
	svc.pfn_mad_recv_cb = on_recv;
	svc.support_unsol = TRUE;
	svc.mgmt_class = IB_MCLASS_SUBN_ADM;
	svc.mgmt_version = 2;
	svc.method_array[IB_MAD_METHOD_REPORT] = TRUE;
	svc.svc_type = IB_MAD_SVC_DEFAULT;
	st = al_port_agent_open(&p_port->agent, p_port->h_ca, port_guid, 64, &svc, &p_ops->agent);
	if (st != IB_SUCCESS)
		goto fail;
	*pp_port = p_port;
	return IB_SUCCESS;
fail:
	port_close(p_port);
	return st;
}

/* Finds or makes the service of a port and counts a user in; g_lock held. */
static ib_api_status_t port_get_locked(ib_net64_t port_guid, al_sa_port_t **pp_port)
{
	cl_list_item_t *it;
	al_sa_port_t *p_port;
	ib_api_status_t st;

	if (!g_ports_init) {
		cl_qlist_init(&g_ports);
		g_ports_init = TRUE;
	}
again:
	for (it = cl_qlist_head(&g_ports); it != cl_qlist_end(&g_ports); it = cl_qlist_next(it)) {
		p_port = PARENT_STRUCT(it, al_sa_port_t, item);
		if (p_port->port_guid == port_guid) {
			p_port->ref++;
			*pp_port = p_port;
			return IB_SUCCESS;
		}
	}
	/* A service being torn down still holds its MAD service (the port's
	 * SubnAdm Report() registration): a new one waits until it is gone. */
	if (g_teardowns) {
		pthread_cond_wait(&g_cond, &g_lock);
		goto again;
	}
	/* Made under the lock, so that one service per port ever exists. */
	st = port_open(port_guid, g_ops, &p_port);
	if (st == IB_SUCCESS) {
		p_port->ref = 1;
		cl_qlist_insert_tail(&g_ports, &p_port->item);
		*pp_port = p_port;
	}
	return st;
}

static void user_destroying(al_obj_t *p_obj)
{
	al_sa_user_t *p_u = PARENT_STRUCT(p_obj, al_sa_user_t, obj);

	pthread_mutex_lock(&g_lock);
	if (p_u->listed)
		cl_qlist_remove_item(&p_u->p_port->users, &p_u->item);
	p_u->listed = FALSE;
	pthread_mutex_unlock(&g_lock);
}

static void user_free(al_obj_t *p_obj)
{
	al_sa_user_t *p_u = PARENT_STRUCT(p_obj, al_sa_user_t, obj);

	al_sa_port_put(p_u->p_port);
	cl_free(p_u);
}

/* Makes sure instance p_inst holds the port; g_lock held (the user object
 * is made with it held: al_obj_init takes no lock of ours). */
static void attach_inst_locked(al_sa_port_t *p_port, al_obj_t *p_inst)
{
	cl_list_item_t *it;
	al_sa_user_t *p_u;

	for (it = cl_qlist_head(&p_port->users); it != cl_qlist_end(&p_port->users);
	     it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, al_sa_user_t, item)->p_inst == p_inst)
			return;
	p_u = (al_sa_user_t *)cl_zalloc(sizeof(*p_u));
	if (!p_u)
		return;               /* only a lost optimization */
	al_obj_construct(&p_u->obj, AL_OBJ_TYPE_SA_USER);
	if (al_obj_init(&p_u->obj, p_inst, NULL, user_destroying, NULL, user_free) != IB_SUCCESS) {
		al_obj_deinit(&p_u->obj);
		cl_free(p_u);
		return;
	}
	p_u->p_inst = p_inst;
	p_u->p_port = p_port;
	p_u->listed = TRUE;
	p_port->ref++;
	cl_qlist_insert_tail(&p_port->users, &p_u->item);
}

ib_api_status_t al_sa_port_get(ib_net64_t port_guid, al_obj_t *p_inst, al_sa_port_t **pp_port)
{
	ib_api_status_t st;

	pthread_mutex_lock(&g_lock);
	st = port_get_locked(port_guid, pp_port);
	if (st == IB_SUCCESS && p_inst)
		attach_inst_locked(*pp_port, p_inst);
	pthread_mutex_unlock(&g_lock);
	return st;
}

uint32_t al_sa_port_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&g_lock);
	n = g_ports_init ? (uint32_t)cl_qlist_count(&g_ports) : 0;
	pthread_mutex_unlock(&g_lock);
	return n;
}

void al_sa_port_put(al_sa_port_t *p_port)
{
	pthread_t t;
	pthread_attr_t attr;
	boolean_t started = FALSE;

	pthread_mutex_lock(&g_lock);
	if (--p_port->ref) {
		pthread_mutex_unlock(&g_lock);
		return;
	}
	cl_qlist_remove_item(&g_ports, &p_port->item);
	g_teardowns++;
	pthread_mutex_unlock(&g_lock);

	/* ib_close_al() is refused on AL callback threads, where the last
	 * user usually goes: close on a thread of our own. */
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		started = !pthread_create(&t, &attr, teardown_thread, p_port);
		pthread_attr_destroy(&attr);
	}
	if (!started) {
		if (al_is_cb_thread()) {
			/* Cannot close here: leave the service (and its
			 * resources) until the process ends. */
			pthread_mutex_lock(&g_lock);
			g_teardowns--;
			pthread_mutex_unlock(&g_lock);
			return;
		}
		teardown_thread(p_port);
	}
}

void al_sa_quiesce(void)
{
	pthread_mutex_lock(&g_lock);
	while (g_teardowns)
		pthread_cond_wait(&g_cond, &g_lock);
	pthread_mutex_unlock(&g_lock);
}

/* The SA client as a client of the core (al_client.h): a closed instance
 * that held a port's service last started its teardown; ib_close_al returns
 * once it is over (its AL instance, QP1 alias and memory gone). */
const al_client_t al_sa_client = {
	.name = "sa",
	.al_closed = al_sa_quiesce,
};

/* ---- Listeners ---- */

void al_sa_listen(al_sa_port_t *p_port, al_sa_listener_t *p_listener)
{
	pthread_mutex_lock(&p_port->lsn_lock);
	cl_qlist_insert_tail(&p_port->listeners, &p_listener->item);
	pthread_mutex_unlock(&p_port->lsn_lock);
}

void al_sa_unlisten(al_sa_port_t *p_port, al_sa_listener_t *p_listener)
{
	pthread_mutex_lock(&p_port->lsn_lock);
	cl_qlist_remove_item(&p_port->listeners, &p_listener->item);
	pthread_mutex_unlock(&p_port->lsn_lock);
}
