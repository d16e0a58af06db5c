/*
 * ibal access layer: multicast membership through the SA (ib_join_mcast, ib_join_mcast_no_qp, ib_leave_mcast).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A membership is an object (AL_HDL_MCAST), a child of its queue pair (so
 * destroying the QP leaves the group), or a root object for
 * ib_join_mcast_no_qp(). The join is a Set(MCMemberRecord); once the SA
 * has answered, the QP is attached to the group's MGID and MLID through
 * the provider, then the callback gets the group's record. Leaving detaches
 * the QP and sends Delete(MCMemberRecord) with the same join state; the
 * destroy callback comes once the SA answered or the Delete() timed out. A
 * failed join destroys itself after its callback.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_sa_client.h"
#include "al_verbs.h"

enum { MC_STARTING, MC_ACTIVE, MC_CANCELING, MC_ERROR, MC_GONE };

typedef struct al_mcast {
	al_obj_t obj;
	/* req: the join, fin: the leave; sa.lock guards state, attached */
	al_sa_reg_t sa;
	al_qp_t *p_qp;               /* the parent, or NULL */
	int state;
	boolean_t attached;
	ib_member_rec_t rec;         /* as sent, then as the SA returned it */
	uint8_t join_state;
	uint32_t timeout_ms, retry_cnt;
	ib_pfn_mcast_cb_t pfn_mcast_cb;
	al_cb_item_t item;
} al_mcast_t;

#define MC_JOIN_MASK (IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE)
#define MC_CREATE_MASK                                                                  \
	(IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_TCLASS | IB_MCR_COMPMASK_PKEY |         \
	 IB_MCR_COMPMASK_SL | IB_MCR_COMPMASK_FLOW | IB_MCR_COMPMASK_HOP)

static void fin_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	(void)p_req;
	(void)status;
	if (p_resp)
		ib_put_mad(p_resp);
}

/* Detaches the QP and sends the Delete(); state lock held. */
static void leave(al_mcast_t *p_mc)
{
	ib_user_query_t uq;

	if (p_mc->attached)
		p_mc->p_qp->v.p_ops->detach_mcast(p_mc->p_qp->v.p_prov, &p_mc->rec.mgid,
						  p_mc->rec.mlid);
	p_mc->attached = FALSE;
	p_mc->rec.scope_state = (uint8_t)((p_mc->rec.scope_state & 0xF0) | p_mc->join_state);
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_DELETE;
	uq.attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
	uq.attr_size = sizeof(ib_member_rec_t);
	uq.comp_mask = MC_JOIN_MASK;
	uq.p_attr = &p_mc->rec;
	al_sa_send(&p_mc->sa.fin, p_mc->sa.p_port, &uq, p_mc->timeout_ms, p_mc->retry_cnt);
}

static void mc_deliver(al_mcast_t *p_mc)
{
	ib_mcast_rec_t rec;
	ib_mad_element_t *p_resp = p_mc->sa.req.p_resp;
	ib_api_status_t st = p_mc->sa.req.status;
	boolean_t failed = FALSE;

	memset(&rec, 0, sizeof(rec));
	rec.mcast_context = p_mc->obj.context;
	rec.error_status = al_sa_resp_status(p_resp);
	pthread_mutex_lock(&p_mc->sa.lock);
	if (st == IB_SUCCESS) {
		if (p_resp && p_resp->size >= IB_SA_MAD_HDR_SIZE + sizeof(ib_member_rec_t))
			memcpy(&p_mc->rec, ((ib_sa_mad_t *)p_resp->p_mad_buf)->data,
			       sizeof(ib_member_rec_t));
		if (p_mc->state != MC_STARTING) {
			p_mc->state = MC_GONE;
			st = IB_CANCELED;
			leave(p_mc);
		} else {
			if (p_mc->p_qp) {
				st = p_mc->p_qp->v.p_ops->attach_mcast(p_mc->p_qp->v.p_prov,
								       &p_mc->rec.mgid, p_mc->rec.mlid);
				p_mc->attached = st == IB_SUCCESS;
			}
			if (st == IB_SUCCESS) {
				p_mc->state = MC_ACTIVE;
				rec.h_mcast = (ib_mcast_handle_t)al_obj_h(&p_mc->obj);
			} else {
				/* Joined at the SA but not attached: undo. */
				p_mc->state = MC_GONE;
				failed = TRUE;
				leave(p_mc);
			}
		}
	} else {
		if (p_mc->state == MC_STARTING)
			failed = TRUE;
		p_mc->state = MC_ERROR;
	}
	pthread_mutex_unlock(&p_mc->sa.lock);
	rec.status = st;
	rec.p_member_rec = &p_mc->rec;
	p_mc->sa.req.p_resp = NULL;
	if (p_resp)
		ib_put_mad(p_resp);
	p_mc->pfn_mcast_cb(&rec);
	/* A root membership (no QP) is no AL instance's child, so no close
	 * waits for it: after a synchronous join that failed it is gone when
	 * the call returns. */
	if (failed)
		al_obj_destroy(&p_mc->obj, !p_mc->p_qp && p_mc->sa.req.sync && !al_is_cb_thread()
						   ? ib_sync_destroy
						   : NULL);
}

static void mc_cb(void *context)
{
	mc_deliver((al_mcast_t *)context);
}

static void mc_done(al_sa_req_t *p_req, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	al_mcast_t *p_mc = PARENT_STRUCT(p_req, al_mcast_t, sa.req);

	p_req->status = status;
	p_req->p_resp = p_resp;
	if (p_req->sync) {
		cl_event_signal(&p_req->sync_event);
		return;
	}
	p_mc->item.pfn_cb = mc_cb;
	p_mc->item.context = p_mc;
	al_obj_queue_cb_item(&p_mc->obj, &p_mc->item);
}

static void mc_destroying(al_obj_t *p_obj)
{
	al_mcast_t *p_mc = PARENT_STRUCT(p_obj, al_mcast_t, obj);
	boolean_t cancel = FALSE;

	pthread_mutex_lock(&p_mc->sa.lock);
	switch (p_mc->state) {
	case MC_STARTING:
		p_mc->state = MC_CANCELING;
		cancel = TRUE;
		break;
	case MC_ACTIVE:
		p_mc->state = MC_GONE;
		leave(p_mc);
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&p_mc->sa.lock);
	if (cancel)
		al_sa_cancel(&p_mc->sa.req);
}

static void mc_free(al_obj_t *p_obj)
{
	al_mcast_t *p_mc = PARENT_STRUCT(p_obj, al_mcast_t, obj);

	al_sa_reg_destroy(&p_mc->sa);
	cl_free(p_mc);
}

/* Checks a QP against a request: UD, and bound to the port and P_Key index
 * of the request once it left RESET. */
static ib_api_status_t check_qp(al_qp_t *p_qp, const ib_mcast_req_t *p_req)
{
	ib_qp_attr_t attr;
	ib_ca_attr_t *p_ca = NULL;
	ib_api_status_t st;
	uint32_t size = 0;
	uint8_t i;

	memset(&attr, 0, sizeof(attr));
	st = p_qp->v.p_ops->query_qp(p_qp->v.p_prov, &attr);
	if (st != IB_SUCCESS)
		return st;
	if (attr.qp_type != IB_QPT_UNRELIABLE_DGRM)
		return IB_INVALID_SERVICE_TYPE;
	/* The port of the request must be on the QP's adapter. */
	st = ib_query_ca((ib_ca_handle_t)al_obj_h(&p_qp->p_pd->p_ca->v.obj), NULL, &size);
	if (st == IB_INSUFFICIENT_MEMORY && (p_ca = (ib_ca_attr_t *)cl_zalloc(size)) != NULL)
		st = ib_query_ca((ib_ca_handle_t)al_obj_h(&p_qp->p_pd->p_ca->v.obj), p_ca, &size);
	if (st != IB_SUCCESS || !p_ca) {
		cl_free(p_ca);
		return st == IB_SUCCESS ? IB_INSUFFICIENT_MEMORY : st;
	}
	st = IB_INVALID_GUID;
	for (i = 0; i < p_ca->num_ports; i++)
		if (p_ca->p_port_attr[i].port_guid == p_req->port_guid) {
			st = IB_SUCCESS;
			if (attr.state != IB_QPS_RESET && attr.primary_port &&
			    attr.primary_port != p_ca->p_port_attr[i].port_num)
				st = IB_INVALID_PORT;
			break;
		}
	cl_free(p_ca);
	if (st == IB_SUCCESS && attr.state != IB_QPS_RESET && attr.pkey_index != p_req->pkey_index)
		st = IB_INVALID_PKEY;
	return st;
}

/* A new membership object (a child of the QP, or a root) holding its SA
 * port, with its lock and its two SA requests (join and the later leave);
 * NULL on failure. */
static al_mcast_t *mc_new(al_qp_t *p_qp, const ib_mcast_req_t *p_req, ib_api_status_t *p_st)
{
	al_mcast_t *p_mc = (al_mcast_t *)cl_zalloc(sizeof(*p_mc));

	*p_st = IB_INSUFFICIENT_MEMORY;
	if (!p_mc)
		return NULL;
	/* The port first: it keeps the access layer initialized for a root. */
	*p_st = al_sa_port_get(p_req->port_guid, p_qp ? p_qp->p_pd->p_ca->v.obj.p_parent : NULL,
			       &p_mc->sa.p_port);
	if (*p_st != IB_SUCCESS) {
		cl_free(p_mc);
		return NULL;
	}
	al_obj_construct(&p_mc->obj, AL_HDL_MCAST);
	p_mc->p_qp = p_qp;
	p_mc->rec = p_req->member_rec;
	p_mc->join_state = p_req->member_rec.scope_state & 0x0F;
	p_mc->timeout_ms = p_req->timeout_ms;
	p_mc->retry_cnt = p_req->retry_cnt;
	p_mc->pfn_mcast_cb = p_req->pfn_mcast_cb;
	p_mc->state = MC_ERROR;
	*p_st = al_sa_reg_init(&p_mc->sa, &p_mc->obj, mc_done, fin_done);
	if (*p_st == IB_SUCCESS) {
		*p_st = al_obj_init(&p_mc->obj, p_qp ? &p_qp->v.obj : NULL, p_req->mcast_context,
				    mc_destroying, NULL, mc_free);
		if (*p_st == IB_SUCCESS)
			return p_mc;
		al_sa_reg_destroy(&p_mc->sa);   /* puts the port too */
	} else {
		al_sa_port_put(p_mc->sa.p_port);
	}
	al_obj_deinit(&p_mc->obj);
	cl_free(p_mc);
	return NULL;
}

static ib_api_status_t join(al_qp_t *p_qp, const ib_mcast_req_t *p_req, ib_mcast_handle_t *p_h)
{
	al_mcast_t *p_mc;
	ib_user_query_t uq;
	ib_api_status_t st;
	boolean_t sync;
	ib_gid_t gid;

	if (!p_req || !p_h || !p_req->pfn_mcast_cb || !(p_req->member_rec.scope_state & 0x0F))
		return IB_INVALID_PARAMETER;
	sync = (p_req->flags & IB_FLAGS_SYNC) != 0;
	if (sync && al_is_cb_thread())
		return IB_INVALID_SETTING;
	if (p_qp) {
		st = check_qp(p_qp, p_req);
		if (st != IB_SUCCESS)
			return st;
	}
	p_mc = mc_new(p_qp, p_req, &st);
	if (!p_mc)
		return st;
	st = al_obj_insert_handle(&p_mc->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_mc->obj, NULL);
		return st;
	}
	if (al_sa_port_info(p_mc->sa.p_port, NULL, &gid, NULL) == IB_SUCCESS)
		p_mc->rec.port_gid = gid;
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_SET;
	uq.attr_id = IB_MAD_ATTR_MCMEMBER_RECORD;
	uq.attr_size = sizeof(ib_member_rec_t);
	uq.comp_mask = MC_JOIN_MASK | (p_req->create ? MC_CREATE_MASK : 0);
	uq.p_attr = &p_mc->rec;
	*p_h = (ib_mcast_handle_t)al_obj_h(&p_mc->obj);
	p_mc->sa.req.sync = sync;
	pthread_mutex_lock(&p_mc->sa.lock);
	p_mc->state = MC_STARTING;
	st = al_sa_send(&p_mc->sa.req, p_mc->sa.p_port, &uq, p_mc->timeout_ms, p_mc->retry_cnt);
	if (st != IB_SUCCESS)
		p_mc->state = MC_ERROR;
	pthread_mutex_unlock(&p_mc->sa.lock);
	if (st != IB_SUCCESS) {
		*p_h = NULL;
		al_obj_destroy(&p_mc->obj, NULL);
		return st;
	}
	if (sync) {
		al_sa_req_wait(&p_mc->sa.req);
		mc_deliver(p_mc);
	}
	return IB_SUCCESS;
}

ib_api_status_t ib_join_mcast(const ib_qp_handle_t h_qp, const ib_mcast_req_t *const p_mcast_req,
			      ib_mcast_handle_t *p_h_mcast)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	ib_api_status_t st;

	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	st = join(p_qp, p_mcast_req, p_h_mcast);
	AL_EXIT(h_qp);
	return st;
}

ib_api_status_t ib_join_mcast_no_qp(const ib_mcast_req_t *const p_mcast_req,
				    ib_mcast_handle_t *p_h_mcast)
{
	return join(NULL, p_mcast_req, p_h_mcast);
}

ib_api_status_t ib_leave_mcast(const ib_mcast_handle_t h_mcast, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_mcast, AL_HDL_MCAST, pfn_destroy_cb,
				 IB_INVALID_MCAST_HANDLE);
}
