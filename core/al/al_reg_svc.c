/*
 * ibal access layer: ServiceRecord registration with the SA (ib_reg_svc, ib_dereg_svc).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A registration is an object under its AL instance (AL_HDL_REG_SVC). Its
 * Set(ServiceRecord) completes through the registration callback, queued on
 * the object (or run by the caller with IB_FLAGS_SYNC). A failed
 * registration destroys itself after its callback. Deregistration (or the
 * close of the instance) sends Delete(ServiceRecord) for an active one, and
 * cancels a pending one (whose callback then says IB_CANCELED, and which is
 * deleted from the SA if the Set() succeeded anyway); the destroy callback
 * comes once the Delete() has been answered or has timed out.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_sa_client.h"
#include "al_verbs.h"

enum { REG_STARTING, REG_ACTIVE, REG_CANCELING, REG_ERROR, REG_GONE };

typedef struct al_reg_svc {
	al_obj_t obj;
	/* req: the Set(), fin: the Delete(); sa.lock guards state */
	al_sa_reg_t sa;
	int state;
	ib_service_record_t svc_rec; /* as sent, then as the SA returned it */
	uint32_t timeout_ms, retry_cnt;
	ib_pfn_reg_svc_cb_t pfn_reg_svc_cb;
	al_cb_item_t item;
} al_reg_svc_t;

/* The mask used when svc_data_mask is 0: the identifying fields. */
#define REG_DEFAULT_MASK                                                                \
	(IB_SR_COMPMASK_SID | IB_SR_COMPMASK_SGID | IB_SR_COMPMASK_SPKEY |              \
	 IB_SR_COMPMASK_SLEASE | IB_SR_COMPMASK_SKEY | IB_SR_COMPMASK_SNAME)

/* Sends Delete(ServiceRecord) for the record; state lock held. */
static void send_delete(al_reg_svc_t *p_reg)
{
	ib_user_query_t uq;

	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_DELETE;
	uq.attr_id = IB_MAD_ATTR_SERVICE_RECORD;
	uq.attr_size = sizeof(ib_service_record_t);
	uq.comp_mask = ~CL_CONST64(0);
	uq.p_attr = &p_reg->svc_rec;
	/* On failure there is nothing more to do: the lease ends it. */
	al_sa_send(&p_reg->sa.fin, p_reg->sa.p_port, &uq, p_reg->timeout_ms, p_reg->retry_cnt);
}

static void fin_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	(void)p_req;
	(void)status;
	if (p_resp)
		ib_put_mad(p_resp);
}

static void reg_deliver(al_reg_svc_t *p_reg)
{
	ib_reg_svc_rec_t rec;
	ib_mad_element_t *p_resp = p_reg->sa.req.p_resp;
	boolean_t failed = FALSE;

	memset(&rec, 0, sizeof(rec));
	rec.svc_context = p_reg->obj.context;
	rec.req_status = p_reg->sa.req.status;
	rec.resp_status = al_sa_resp_status(p_resp);
	pthread_mutex_lock(&p_reg->sa.lock);
	if (rec.req_status == IB_SUCCESS && p_resp &&
	    p_resp->size >= IB_SA_MAD_HDR_SIZE + sizeof(ib_service_record_t))
		memcpy(&p_reg->svc_rec, ((ib_sa_mad_t *)p_resp->p_mad_buf)->data,
		       sizeof(ib_service_record_t));
	if (rec.req_status == IB_SUCCESS) {
		if (p_reg->state == REG_STARTING) {
			p_reg->state = REG_ACTIVE;
			rec.h_reg_svc = (ib_reg_svc_handle_t)al_obj_h(&p_reg->obj);
		} else {
			/* Deregistered meanwhile: undo at the SA. */
			p_reg->state = REG_GONE;
			rec.req_status = IB_CANCELED;
			send_delete(p_reg);
		}
	} else {
		if (p_reg->state == REG_STARTING)
			failed = TRUE;
		p_reg->state = REG_ERROR;
	}
	rec.svc_rec = p_reg->svc_rec;
	pthread_mutex_unlock(&p_reg->sa.lock);
	p_reg->sa.req.p_resp = NULL;
	if (p_resp)
		ib_put_mad(p_resp);
	p_reg->pfn_reg_svc_cb(&rec);
	if (failed)
		al_obj_destroy(&p_reg->obj, NULL);
}

static void reg_cb(void *context)
{
	reg_deliver((al_reg_svc_t *)context);
}

static void reg_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	al_reg_svc_t *p_reg = PARENT_STRUCT(p_req, al_reg_svc_t, sa.req);

	p_req->status = status;
	p_req->p_resp = p_resp;
	if (p_req->sync) {
		cl_event_signal(&p_req->sync_event);
		return;
	}
	p_reg->item.pfn_cb = reg_cb;
	p_reg->item.context = p_reg;
	al_obj_queue_cb_item(&p_reg->obj, &p_reg->item);
}

static void reg_destroying(al_obj_t *p_obj)
{
	al_reg_svc_t *p_reg = PARENT_STRUCT(p_obj, al_reg_svc_t, obj);
	boolean_t cancel = FALSE;

	pthread_mutex_lock(&p_reg->sa.lock);
	switch (p_reg->state) {
	case REG_STARTING:
		p_reg->state = REG_CANCELING;
		cancel = TRUE;
		break;
	case REG_ACTIVE:
		p_reg->state = REG_GONE;
		send_delete(p_reg);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&p_reg->sa.lock);
	if (cancel)
		al_sa_cancel(&p_reg->sa.req);
}

static void reg_free(al_obj_t *p_obj)
{
	al_reg_svc_t *p_reg = PARENT_STRUCT(p_obj, al_reg_svc_t, obj);

	al_sa_reg_destroy(&p_reg->sa);
	cl_free(p_reg);
}

/* A new registration object, a child of the AL instance, with its lock and
 * its two SA requests (Set and the later Delete); NULL on failure. */
static al_reg_svc_t *reg_new(al_inst_t *p_al, const ib_reg_svc_req_t *r, ib_api_status_t *p_st)
{
	al_reg_svc_t *p_reg = (al_reg_svc_t *)cl_zalloc(sizeof(*p_reg));

	*p_st = IB_INSUFFICIENT_MEMORY;
	if (!p_reg)
		return NULL;
	al_obj_construct(&p_reg->obj, AL_HDL_REG_SVC);
	p_reg->svc_rec = r->svc_rec;
	p_reg->timeout_ms = r->timeout_ms;
	p_reg->retry_cnt = r->retry_cnt;
	p_reg->pfn_reg_svc_cb = r->pfn_reg_svc_cb;
	p_reg->state = REG_ERROR;
	*p_st = al_sa_reg_init(&p_reg->sa, &p_reg->obj, reg_done, fin_done);
	if (*p_st == IB_SUCCESS) {
		*p_st = al_obj_init(&p_reg->obj, &p_al->obj, r->svc_context, reg_destroying, NULL,
				    reg_free);
		if (*p_st == IB_SUCCESS)
			return p_reg;
		al_sa_reg_destroy(&p_reg->sa);
	}
	al_obj_deinit(&p_reg->obj);
	cl_free(p_reg);
	return NULL;
}

ib_api_status_t ib_reg_svc(const ib_al_handle_t h_al, const ib_reg_svc_req_t *const p_reg_svc_req,
			   ib_reg_svc_handle_t *const ph_reg_svc)
{
	al_inst_t *p_al;
	al_reg_svc_t *p_reg;
	ib_user_query_t uq;
	ib_api_status_t st;
	boolean_t sync;
	ib_gid_t gid;

	p_al = al_inst_enter(h_al);
	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	if (!p_reg_svc_req || !ph_reg_svc || !p_reg_svc_req->pfn_reg_svc_cb) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	sync = (p_reg_svc_req->flags & IB_FLAGS_SYNC) != 0;
	if (sync && al_is_cb_thread()) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	p_reg = reg_new(p_al, p_reg_svc_req, &st);
	if (!p_reg)
		goto out;
	st = al_sa_port_get(p_reg_svc_req->port_guid, &p_al->obj, &p_reg->sa.p_port);
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_reg->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_reg->obj, NULL);
		goto out;
	}
	/* A record without a GID names the port it is registered through. */
	memset(&gid, 0, sizeof(gid));
	if (!memcmp(&p_reg->svc_rec.service_gid, &gid, sizeof(gid)) &&
	    al_sa_port_info(p_reg->sa.p_port, NULL, &gid, NULL) == IB_SUCCESS)
		p_reg->svc_rec.service_gid = gid;
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_SET;
	uq.attr_id = IB_MAD_ATTR_SERVICE_RECORD;
	uq.attr_size = sizeof(ib_service_record_t);
	uq.comp_mask = p_reg_svc_req->svc_data_mask ? p_reg_svc_req->svc_data_mask : REG_DEFAULT_MASK;
	uq.p_attr = &p_reg->svc_rec;
	*ph_reg_svc = (ib_reg_svc_handle_t)al_obj_h(&p_reg->obj);
	p_reg->sa.req.sync = sync;
	pthread_mutex_lock(&p_reg->sa.lock);
	p_reg->state = REG_STARTING;
	st = al_sa_send(&p_reg->sa.req, p_reg->sa.p_port, &uq, p_reg->timeout_ms, p_reg->retry_cnt);
	if (st != IB_SUCCESS)
		p_reg->state = REG_ERROR;
	pthread_mutex_unlock(&p_reg->sa.lock);
	if (st != IB_SUCCESS) {
		*ph_reg_svc = NULL;
		al_obj_destroy(&p_reg->obj, NULL);
		goto out;
	}
	if (sync) {
		al_sa_req_wait(&p_reg->sa.req);
		reg_deliver(p_reg);
	}
out:
	al_handle_exit(AL_HANDLE_FROM_IB(h_al));
	return st;
}

ib_api_status_t ib_dereg_svc(const ib_reg_svc_handle_t h_reg_svc,
			     const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_reg_svc, AL_HDL_REG_SVC, pfn_destroy_cb, IB_INVALID_HANDLE);
}
