/*
 * ibal access layer: event subscriptions with the SA and their reports (ib_subscribe, ib_unsubscribe).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A subscription is an object under its AL instance (AL_HDL_SUB). It sends
 * Set(InformInfo) with Subscribe 1; once the SA accepted it, the
 * subscription listens to the Report()s reaching its port's SA service
 * (which answers each with ReportResp()) and queues every Notice that
 * matches its InformInfo on itself, so reports come after the result
 * callback, one at a time, in order. Unsubscribing (or closing the
 * instance) stops the reports at once and sends Set(InformInfo) with
 * Subscribe 0; the destroy callback comes once the SA answered or the
 * request timed out. A failed subscription destroys itself after its
 * callback.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_sa_client.h"
#include "al_verbs.h"

enum { SUB_STARTING, SUB_ACTIVE, SUB_CANCELING, SUB_ERROR, SUB_GONE };

typedef struct al_sub {
	al_obj_t obj;
	/* req: the subscription, fin: the unsubscription; sa.lock guards state, listening */
	al_sa_reg_t sa;
	al_sa_listener_t listener;
	boolean_t listening;         /* sa.lock */
	int state;
	ib_inform_info_t info;
	uint32_t timeout_ms, retry_cnt;
	ib_pfn_sub_cb_t pfn_sub_cb;
	const void *report_context;
	ib_pfn_report_cb_t pfn_report_cb;
	al_cb_item_t item;
} al_sub_t;

/* A report waiting on the subscription's queue. */
typedef struct sub_report {
	al_cb_item_t item;
	al_sub_t *p_sub;
	ib_mad_notice_attr_t notice;
} sub_report_t;

static void fin_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	(void)p_req;
	(void)status;
	if (p_resp)
		ib_put_mad(p_resp);
}

/* Does a Notice match an InformInfo (13.4.8.3)? The GID of the InformInfo
 * is not compared (a Notice does not always carry one). */
static boolean_t matches(const ib_inform_info_t *p_info, const ib_mad_notice_attr_t *p_n)
{
	boolean_t generic = (p_n->generic_type & 0x80) != 0;
	uint16_t type = (uint16_t)(p_n->generic_type & 0x7F);
	uint16_t lid = cl_ntoh16(p_n->issuer_lid);
	uint32_t prod;

	if ((p_info->is_generic != 0) != generic)
		return FALSE;
	if (p_info->trap_type != CL_HTON16(0xFFFF) && cl_ntoh16(p_info->trap_type) != type)
		return FALSE;
	if (p_info->lid_range_begin != CL_HTON16(0xFFFF) &&
	    (lid < cl_ntoh16(p_info->lid_range_begin) || lid > cl_ntoh16(p_info->lid_range_end)))
		return FALSE;
	if (generic) {
		if (p_info->g_or_v.generic.trap_num != CL_HTON16(0xFFFF) &&
		    p_info->g_or_v.generic.trap_num != p_n->g_or_v.generic.trap_num)
			return FALSE;
		prod = ((uint32_t)p_info->g_or_v.generic.node_type_msb << 16) |
		       cl_ntoh16(p_info->g_or_v.generic.node_type_lsb);
		if (prod != 0xFFFFFF && prod != (((uint32_t)p_n->g_or_v.generic.prod_type_msb << 16) |
						 cl_ntoh16(p_n->g_or_v.generic.prod_type_lsb)))
			return FALSE;
	} else {
		if (p_info->g_or_v.vend.dev_id != CL_HTON16(0xFFFF) &&
		    p_info->g_or_v.vend.dev_id != p_n->g_or_v.vend.dev_id)
			return FALSE;
		prod = ((uint32_t)p_info->g_or_v.vend.vendor_id_msb << 16) |
		       cl_ntoh16(p_info->g_or_v.vend.vendor_id_lsb);
		if (prod != 0xFFFFFF && prod != (((uint32_t)p_n->g_or_v.vend.vend_id_msb << 16) |
						 cl_ntoh16(p_n->g_or_v.vend.vend_id_lsb)))
			return FALSE;
	}
	return TRUE;
}

static void report_cb(void *context)
{
	sub_report_t *p_r = (sub_report_t *)context;
	ib_report_rec_t rec;

	rec.report_context = p_r->p_sub->report_context;
	rec.p_notice = &p_r->notice;
	p_r->p_sub->pfn_report_cb(&rec);
	cl_free(p_r);
}

/* A Report() reached the port (MAD thread, listener lock held). */
static void on_report(al_sa_listener_t *p_l, const ib_mad_notice_attr_t *p_notice)
{
	al_sub_t *p_sub = PARENT_STRUCT(p_l, al_sub_t, listener);
	sub_report_t *p_r;

	if (!matches(&p_sub->info, p_notice))
		return;
	p_r = (sub_report_t *)cl_malloc(sizeof(*p_r));
	if (!p_r)
		return;
	p_r->p_sub = p_sub;
	memcpy(&p_r->notice, p_notice, sizeof(p_r->notice));
	p_r->item.pfn_cb = report_cb;
	p_r->item.context = p_r;
	/* Refused only once the subscription's queue closed. */
	if (al_obj_queue_cb_item(&p_sub->obj, &p_r->item) != IB_SUCCESS)
		cl_free(p_r);
}

/* Stops the reports and sends the unsubscription; state lock held. */
static void unsubscribe(al_sub_t *p_sub)
{
	ib_user_query_t uq;

	if (p_sub->listening)
		al_sa_unlisten(p_sub->sa.p_port, &p_sub->listener);
	p_sub->listening = FALSE;
	p_sub->info.subscribe = 0;
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_SET;
	uq.attr_id = IB_MAD_ATTR_INFORM_INFO;
	uq.attr_size = sizeof(ib_inform_info_t);
	uq.p_attr = &p_sub->info;
	al_sa_send(&p_sub->sa.fin, p_sub->sa.p_port, &uq, p_sub->timeout_ms, p_sub->retry_cnt);
}

static void sub_deliver(al_sub_t *p_sub)
{
	ib_sub_rec_t rec;
	ib_api_status_t st = p_sub->sa.req.status;
	boolean_t failed = FALSE;

	memset(&rec, 0, sizeof(rec));
	rec.sub_context = p_sub->obj.context;
	pthread_mutex_lock(&p_sub->sa.lock);
	if (st == IB_SUCCESS) {
		if (p_sub->state == SUB_STARTING) {
			p_sub->state = SUB_ACTIVE;
			rec.h_sub = (ib_sub_handle_t)al_obj_h(&p_sub->obj);
			/* Reports queue behind this callback (see the file comment). */
			p_sub->listening = TRUE;
			al_sa_listen(p_sub->sa.p_port, &p_sub->listener);
		} else {
			p_sub->state = SUB_GONE;
			st = IB_CANCELED;
			unsubscribe(p_sub);
		}
	} else {
		if (p_sub->state == SUB_STARTING)
			failed = TRUE;
		p_sub->state = SUB_ERROR;
	}
	pthread_mutex_unlock(&p_sub->sa.lock);
	if (p_sub->sa.req.p_resp) {
		ib_put_mad(p_sub->sa.req.p_resp);
		p_sub->sa.req.p_resp = NULL;
	}
	rec.status = st;
	p_sub->pfn_sub_cb(&rec);
	if (failed)
		al_obj_destroy(&p_sub->obj, NULL);
}

static void sub_cb(void *context)
{
	sub_deliver((al_sub_t *)context);
}

static void sub_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	al_sub_t *p_sub = PARENT_STRUCT(p_req, al_sub_t, sa.req);

	p_req->status = status;
	p_req->p_resp = p_resp;
	if (p_req->sync) {
		cl_event_signal(&p_req->sync_event);
		return;
	}
	p_sub->item.pfn_cb = sub_cb;
	p_sub->item.context = p_sub;
	al_obj_queue_cb_item(&p_sub->obj, &p_sub->item);
}

static void sub_destroying(al_obj_t *p_obj)
{
	al_sub_t *p_sub = PARENT_STRUCT(p_obj, al_sub_t, obj);
	boolean_t cancel = FALSE;

	pthread_mutex_lock(&p_sub->sa.lock);
	switch (p_sub->state) {
	case SUB_STARTING:
		p_sub->state = SUB_CANCELING;
		cancel = TRUE;
		break;
	case SUB_ACTIVE:
		p_sub->state = SUB_GONE;
		unsubscribe(p_sub);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&p_sub->sa.lock);
	if (cancel)
		al_sa_cancel(&p_sub->sa.req);
}

static void sub_free(al_obj_t *p_obj)
{
	al_sub_t *p_sub = PARENT_STRUCT(p_obj, al_sub_t, obj);

	if (p_sub->listening)
		al_sa_unlisten(p_sub->sa.p_port, &p_sub->listener);
	al_sa_reg_destroy(&p_sub->sa);
	cl_free(p_sub);
}

/* A subscription's fields from the request (reports go to QP1 unless the
 * InformInfo names another QP). */
static void sub_from_req(al_sub_t *p_sub, const ib_sub_req_t *r)
{
	ib_net32_t qpn;
	uint8_t rtv;

	p_sub->info = *r->p_inform_info;
	p_sub->info.subscribe = 1;
	ib_inform_info_get_qpn_resp_time(p_sub->info.g_or_v.generic.qpn_resp_time_val, &qpn, &rtv);
	if (!qpn)
		p_sub->info.g_or_v.generic.qpn_resp_time_val =
			cl_hton32((1u << 8) | (cl_ntoh32(p_sub->info.g_or_v.generic.qpn_resp_time_val) & 0x1F));
	p_sub->timeout_ms = r->timeout_ms;
	p_sub->retry_cnt = r->retry_cnt;
	p_sub->pfn_sub_cb = r->pfn_sub_cb;
	p_sub->report_context = r->report_context;
	p_sub->pfn_report_cb = r->pfn_report_cb;
	p_sub->listener.pfn_report = on_report;
	p_sub->state = SUB_ERROR;
}

/* A new subscription object, a child of the AL instance, with its lock and
 * its two SA requests (Set and the later Delete); NULL on failure. */
static al_sub_t *sub_new(al_inst_t *p_al, const ib_sub_req_t *r, ib_api_status_t *p_st)
{
	al_sub_t *p_sub = (al_sub_t *)cl_zalloc(sizeof(*p_sub));

	*p_st = IB_INSUFFICIENT_MEMORY;
	if (!p_sub)
		return NULL;
	al_obj_construct(&p_sub->obj, AL_HDL_SUB);
	sub_from_req(p_sub, r);
	*p_st = al_sa_reg_init(&p_sub->sa, &p_sub->obj, sub_done, fin_done);
	if (*p_st == IB_SUCCESS) {
		*p_st = al_obj_init(&p_sub->obj, &p_al->obj, r->sub_context, sub_destroying, NULL,
				    sub_free);
		if (*p_st == IB_SUCCESS)
			return p_sub;
		al_sa_reg_destroy(&p_sub->sa);
	}
	al_obj_deinit(&p_sub->obj);
	cl_free(p_sub);
	return NULL;
}

ib_api_status_t ib_subscribe(const ib_al_handle_t h_al, const ib_sub_req_t *const p_sub_req,
			     ib_sub_handle_t *const ph_sub)
{
	al_inst_t *p_al;
	al_sub_t *p_sub;
	ib_user_query_t uq;
	ib_api_status_t st;
	boolean_t sync;

	p_al = al_inst_enter(h_al);
	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!p_sub_req || !ph_sub || !p_sub_req->p_inform_info || !p_sub_req->pfn_sub_cb ||
	    !p_sub_req->pfn_report_cb) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	sync = (p_sub_req->flags & IB_FLAGS_SYNC) != 0;
	if (sync && al_is_cb_thread()) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	p_sub = sub_new(p_al, p_sub_req, &st);
	if (!p_sub)
		goto out;
	st = al_sa_port_get(p_sub_req->port_guid, &p_al->obj, &p_sub->sa.p_port);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_sub->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_sub->obj, NULL);
		goto out;
	}
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_SET;
	uq.attr_id = IB_MAD_ATTR_INFORM_INFO;
	uq.attr_size = sizeof(ib_inform_info_t);
	uq.p_attr = &p_sub->info;
	*ph_sub = (ib_sub_handle_t)al_obj_h(&p_sub->obj);
	p_sub->sa.req.sync = sync;
	pthread_mutex_lock(&p_sub->sa.lock);
	p_sub->state = SUB_STARTING;
	st = al_sa_send(&p_sub->sa.req, p_sub->sa.p_port, &uq, p_sub->timeout_ms, p_sub->retry_cnt);
	if (st != IB_SUCCESS)
		p_sub->state = SUB_ERROR;
	pthread_mutex_unlock(&p_sub->sa.lock);
	if (st != IB_SUCCESS) {
		*ph_sub = NULL;
		al_obj_destroy(&p_sub->obj, NULL);
		goto out;
	}
	if (sync) {
		al_sa_req_wait(&p_sub->sa.req);
		sub_deliver(p_sub);
	}
out:
	al_handle_exit(AL_HANDLE_FROM_IB(h_al));
	return st;
}

ib_api_status_t ib_unsubscribe(const ib_sub_handle_t h_sub, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_sub, AL_HDL_SUB, pfn_destroy_cb, IB_INVALID_HANDLE);
}
