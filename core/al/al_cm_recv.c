/*
 * ibal access layer: the connection manager's received messages: the state table, one handler per message.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * al_cm_recv() takes every CM MAD of a port (al_cm_agent.c), under
 * al_cm_g.lock: REQ and SIDR_REQ find their listen; every other message
 * finds its endpoint by comm ID and is handled only if the endpoint's
 * state accepts it (the table below). See al_cm_int.h for the locks and
 * docs/cm.md for the protocol.
 */
#include <stddef.h>
#include <string.h>
#include "al_cm_int.h"
#include "ibal_log.h"

/* Which received message each state accepts (the transition table's rows;
 * the handlers below are its actions). Anything else is dropped, except the
 * duplicates the handlers answer. */
#define M(t) (1u << (t))
static const uint32_t accepts[AL_CM_STATE_COUNT] = {
	[AL_CM_REQ_SENT] = M(AL_CM_MSG_REP) | M(AL_CM_MSG_REJ) | M(AL_CM_MSG_MRA),
	[AL_CM_MRA_REQ_RCVD] = M(AL_CM_MSG_REP) | M(AL_CM_MSG_REJ) | M(AL_CM_MSG_MRA),
	[AL_CM_REQ_RCVD] = M(AL_CM_MSG_REQ) | M(AL_CM_MSG_REJ),
	[AL_CM_MRA_REQ_SENT] = M(AL_CM_MSG_REQ) | M(AL_CM_MSG_REJ),
	[AL_CM_REP_SENT] = M(AL_CM_MSG_REQ) | M(AL_CM_MSG_RTU) | M(AL_CM_MSG_REJ) |
			   M(AL_CM_MSG_MRA) | M(AL_CM_MSG_DREQ),
	[AL_CM_MRA_REP_RCVD] = M(AL_CM_MSG_REQ) | M(AL_CM_MSG_RTU) | M(AL_CM_MSG_REJ) |
			       M(AL_CM_MSG_MRA) | M(AL_CM_MSG_DREQ),
	[AL_CM_REP_RCVD] = M(AL_CM_MSG_REP) | M(AL_CM_MSG_REJ),
	[AL_CM_MRA_REP_SENT] = M(AL_CM_MSG_REP) | M(AL_CM_MSG_REJ),
	[AL_CM_ESTABLISHED] = M(AL_CM_MSG_REQ) | M(AL_CM_MSG_REP) | M(AL_CM_MSG_RTU) |
			      M(AL_CM_MSG_DREQ) | M(AL_CM_MSG_LAP),
	[AL_CM_LAP_SENT] = M(AL_CM_MSG_APR) | M(AL_CM_MSG_MRA) | M(AL_CM_MSG_DREQ),
	[AL_CM_MRA_LAP_RCVD] = M(AL_CM_MSG_APR) | M(AL_CM_MSG_MRA) | M(AL_CM_MSG_DREQ),
	[AL_CM_LAP_RCVD] = M(AL_CM_MSG_LAP) | M(AL_CM_MSG_DREQ),
	[AL_CM_MRA_LAP_SENT] = M(AL_CM_MSG_LAP) | M(AL_CM_MSG_DREQ),
	[AL_CM_DREQ_SENT] = M(AL_CM_MSG_DREQ) | M(AL_CM_MSG_DREP) | M(AL_CM_MSG_REP),
	[AL_CM_DREQ_RCVD] = M(AL_CM_MSG_DREQ),
	[AL_CM_TIMEWAIT] = M(AL_CM_MSG_DREQ) | M(AL_CM_MSG_REQ) | M(AL_CM_MSG_REP),
	[AL_CM_SIDR_REQ_SENT] = M(AL_CM_MSG_SIDR_REP),
};
#undef M

/* ---- Received messages ---- */

/* A message we answered already came again (our answer was lost or late):
 * counted, and the answer goes again. al_cm_g.lock held. */
static void dup_seen(const al_cep_t *p_cep, const char *what)
{
	al_cm_g.stats.n_dup++;
	IBAL_DBG(IBAL_SUB_CM, "comm ID 0x%x in %s: duplicate %s, our last answer goes again",
		 p_cep->local_id, al_cm_state_name(p_cep->state), what);
}

/* REJ without a CEP, back to the sender of a received MAD. */
static void reply_rej(cm_port_t *p_port, const ib_mad_element_t *p_in, uint32_t remote_id,
		      al_cm_msg_ref_t ref, ib_net16_t reason)
{
	al_cm_msg_t m;

	IBAL_DBG(IBAL_SUB_CM, "REJ (reason %u) to comm ID 0x%x at LID 0x%x: no connection of ours",
		 cl_ntoh16(reason), remote_id, cl_ntoh16(p_in->remote_lid));
	memset(&m, 0, sizeof(m));
	m.rej.local_comm_id = 0;
	m.rej.remote_comm_id = remote_id;
	m.rej.msg_rejected = (uint8_t)ref;
	m.rej.reason = cl_ntoh16(reason);
	al_cm_send_to(p_port, AL_CM_MSG_REJ, &m, p_in->p_mad_buf->trans_id, p_in->remote_lid, p_in->remote_sl,
		      p_in->pkey_index,
		      p_in->grh_valid ? p_in->p_grh : NULL);
}

/* @p pdata: the request's private data (a SIDR_REQ's 216 bytes, a REQ's 92). */
static boolean_t listen_matches(const al_listen_t *p_l, cm_port_t *p_port,
				const al_cm_req_msg_t *p_req, const uint8_t *pdata)
{
	const ib_cm_listen_t *i = &p_l->info;

	if (p_l->cancelled || cl_ntoh64(i->svc_id) != p_req->service_id)
		return FALSE;
	if ((i->qp_type == IB_QPT_UNRELIABLE_DGRM) != (p_req->transport == 0xFF))
		return FALSE;
	if (!al_cm_listen_covers(i, p_port))
		return FALSE;
	if (i->lid != IB_ALL_LIDS && cl_ntoh16(i->lid) != p_req->primary.remote_lid)
		return FALSE;
	if (i->pkey != IB_ALL_PKEYS &&
	    (cl_ntoh16(i->pkey) & 0x7FFF) != (p_req->pkey & 0x7FFF))
		return FALSE;
	if (i->compare_length &&
	    memcmp(pdata + i->compare_offset, p_l->cmp, i->compare_length))
		return FALSE;
	return TRUE;
}

/* Files a listen in al_cm_g.listens (@p on) or takes it out; al_cm_g.lock held. */
void al_cm_listen_index_locked(al_listen_t *p_l, boolean_t on)
{
	al_cm_lists_init_locked();
	if (on && !p_l->by_svc.on)
		al_cm_idx_set(&al_cm_g.listens, &p_l->by_svc, TRUE, cl_ntoh64(p_l->info.svc_id),
			      ++al_cm_g.listen_seq, 0);
	else if (!on)
		al_cm_idx_set(&al_cm_g.listens, &p_l->by_svc, FALSE, 0, 0, 0);
}

static al_listen_t *find_listen(cm_port_t *p_port, const al_cm_req_msg_t *p_req, const uint8_t *pdata,
				boolean_t *p_sid);

al_listen_t *al_cm_find_listen(cm_port_t *p_port, const al_cm_req_msg_t *p_req, boolean_t *p_sid)
{
	return find_listen(p_port, p_req, p_req->private_data, p_sid);
}

/* The first listen a request matches (a SIDR_REQ as a REQ with transport
 * 0xFF); *p_sid tells whether any listen has its service ID. */
static al_listen_t *find_listen(cm_port_t *p_port, const al_cm_req_msg_t *p_req, const uint8_t *pdata,
				boolean_t *p_sid)
{
	cl_fmap_item_t *it;
	al_listen_t *p_l;

	*p_sid = FALSE;
	al_cm_lists_init_locked();
	for (it = al_cm_idx_first(&al_cm_g.listens, p_req->service_id, 0); it != cl_fmap_end(&al_cm_g.listens);
	     it = cl_fmap_next(it)) {
		if (((const cm_key_t *)cl_fmap_key(it))->a != p_req->service_id)
			break;
		p_l = PARENT_STRUCT(PARENT_STRUCT(it, cm_index_t, item), al_listen_t, by_svc);
		if (!p_l->cancelled)
			*p_sid = TRUE;
		if (listen_matches(p_l, p_port, p_req, pdata))
			return p_l;
	}
	return NULL;
}

/* Fills the passive CEP's fields from a REQ. */
void al_cm_cep_from_req(al_cep_t *p_cep, cm_port_t *p_port, const al_cm_req_msg_t *p_req,
			 ib_net16_t dlid, uint16_t pkey_index)
{
	p_cep->active = FALSE;
	p_cep->req = *p_req;
	p_cep->remote_id = p_req->local_comm_id;
	p_cep->remote_ca_guid = p_req->local_ca_guid;
	p_cep->remote_qpn = p_req->local_qpn;
	p_cep->qp_type = (ib_qp_type_t)p_req->transport;
	p_cep->p_port = p_port;
	al_cm_wire_to_path(&p_req->primary, p_req, &p_cep->path);
	p_cep->dlid = dlid;
	p_cep->sl = p_req->primary.sl;
	p_cep->pkey_index = pkey_index;
	p_cep->max_cm_retries = p_req->max_cm_retries;
	p_cep->pktlife_ms = al_cm_time_ms(ib_path_rec_pkt_life(&p_cep->path));
	p_cep->peer_resp_ms = al_cm_time_ms(p_req->local_cm_resp_timeout) + 2 * p_cep->pktlife_ms;
	p_cep->local_ack_timeout = p_req->primary.local_ack_timeout;
	p_cep->twait_ms = al_cm_time_ms(p_cep->local_ack_timeout) + p_cep->pktlife_ms;
	p_cep->retry_cnt = p_req->retry_count;
	p_cep->rnr_retry_cnt = p_req->rnr_retry_count;
	p_cep->resp_res = p_req->init_depth;
	p_cep->alt_req = p_req->alternate.local_lid != 0;
	p_cep->alt_on = FALSE;
	if (p_cep->alt_req)
		al_cm_wire_to_path(&p_req->alternate, p_req, &p_cep->alt_path);
	al_cm_cep_index_locked(p_cep);
}

/* Queues the REQ callback of a passive CEP (its REQ in p_cep->req); al_cm_g.lock
 * held. A CEP whose event cannot be made is rejected. */
void al_cm_queue_req_event(al_cep_t *p_cep, void *pfn, const void *context, al_listen_t *p_l,
			    cl_qlist_t *p_dead)
{
	const al_cm_req_msg_t *p_req = &p_cep->req;
	cm_event_t *p_ev = al_cm_ev_new(p_cep, EV_REQ, pfn);

	if (!p_ev) {
		al_cm_cep_send_rej(p_cep, IB_REJ_INSUF_RESOURCES, AL_CM_REF_REQ, NULL, 0, NULL, 0);
		al_cm_cep_kill_locked(p_cep, p_dead);
		return;
	}
	p_ev->msg.req = *p_req;
	p_ev->rec.req.context = context;
	p_ev->rec.req.h_cm_req = al_cm_cep_handle(p_cep);
	p_ev->rec.req.h_cm_listen = p_l ? (ib_listen_handle_t)al_obj_h(&p_l->obj) : NULL;
	p_ev->rec.req.p_req_pdata = p_ev->msg.req.private_data;
	p_ev->rec.req.qp_type = p_cep->qp_type;
	p_ev->rec.req.resp_res = p_req->resp_res;
	p_ev->rec.req.flow_ctrl = p_req->flow_ctrl;
	p_ev->rec.req.rnr_retry_cnt = p_req->rnr_retry_count;
	p_ev->rec.req.primary_path = p_cep->path;
	if (p_req->alternate.local_lid)
		al_cm_wire_to_path(&p_req->alternate, p_req, &p_ev->rec.req.alt_path);
	p_ev->rec.req.pkey = cl_hton16(p_req->pkey);
	p_ev->rec.req.sidr_context = p_l ? p_l->info.sidr_context : NULL;
	al_cm_ev_queue(p_ev);
}

/* A peer-to-peer ib_cm_req waiting for the peer's REQ on the same service
 * between the same ports (IBA 12.9.6.2); al_cm_g.lock held. */
static al_cep_t *find_peer(cm_port_t *p_port, const al_cm_req_msg_t *p_req)
{
	cl_list_item_t *it;
	al_cep_t *p;

	for (it = cl_qlist_head(&al_cm_g.peers); it != cl_qlist_end(&al_cm_g.peers); it = cl_qlist_next(it)) {
		p = PARENT_STRUCT(it, al_cep_t, peer_item);
		if (p->pfn_req && p->active && p->state == AL_CM_REQ_SENT && p->p_port == p_port &&
		    p->req.service_id == p_req->service_id &&
		    p->req.primary.remote_lid == p_req->primary.local_lid)
			return p;
	}
	return NULL;
}

/* The peer's REQ met our peer-to-peer one: the side with the larger (CA
 * GUID, QPN) becomes passive and reports the peer's REQ; the other keeps
 * waiting for a REP and drops the peer's REQ. al_cm_g.lock held. */
static void peer_req(al_cep_t *p_cep, cm_port_t *p_port, const ib_mad_element_t *p_in,
		     const al_cm_req_msg_t *p_req, cl_qlist_t *p_dead)
{
	uint64_t mine = cl_ntoh64(p_port->ca_guid);
	boolean_t passive = mine > p_req->local_ca_guid ||
			    (mine == p_req->local_ca_guid && p_cep->local_qpn > p_req->local_qpn);

	if (!passive)
		return;
	al_cm_timer_stop(p_cep);
	al_cm_cep_from_req(p_cep, p_port, p_req, p_in->remote_lid, p_in->pkey_index);
	p_cep->tid = p_in->p_mad_buf->trans_id;
	p_cep->state = AL_CM_REQ_RCVD;
	p_cep->has_last = FALSE;
	/* The QP is given again to ib_cm_rep. */
	p_cep->h_qp = NULL;
	p_cep->p_qp = NULL;
	al_cm_cep_index_locked(p_cep);
	al_cm_queue_req_event(p_cep, (void *)p_cep->pfn_req, p_cep->qp_context, NULL, p_dead);
}

/*
 * A REQ came from the remote QP of this connection under another comm ID:
 * the peer lost it, so it is stale too (IBA 12.9.8.3.1; the REQ itself got
 * a REJ IB_REJ_STALE_CONN). An established one is disconnected: QP to
 * ERROR, DREQ sent (resent like any), then time-wait; a handshake after
 * the REP gets a REJ IB_REJ_STALE_CONN (rej callback) and goes to
 * time-wait; a REQ not yet answered is rejected and dropped. al_cm_g.lock held.
 */
static void stale_end(al_cep_t *p_cep, cl_qlist_t *p_dead)
{
	al_cm_msg_t m;

	switch (p_cep->state) {
	case AL_CM_ESTABLISHED:
	case AL_CM_LAP_SENT:
	case AL_CM_LAP_RCVD:
	case AL_CM_MRA_LAP_SENT:
	case AL_CM_MRA_LAP_RCVD:
		al_cm_timer_stop(p_cep);
		al_cm_qp_error(p_cep);
		memset(&m, 0, sizeof(m));
		m.dreq.local_comm_id = p_cep->local_id;
		m.dreq.remote_comm_id = p_cep->remote_id;
		m.dreq.remote_qpn = p_cep->remote_qpn;
		p_cep->state = AL_CM_DREQ_SENT;
		p_cep->tid = al_cm_new_tid();
		al_cm_cep_send(p_cep, AL_CM_MSG_DREQ, &m);
		al_cm_timer_arm(p_cep, p_cep->peer_resp_ms, p_cep->max_cm_retries);
		break;
	case AL_CM_REP_SENT:
	case AL_CM_MRA_REP_RCVD:
	case AL_CM_REP_RCVD:
	case AL_CM_MRA_REP_SENT:
		al_cm_timer_stop(p_cep);
		al_cm_cep_send_rej(p_cep, IB_REJ_STALE_CONN, AL_CM_REF_REP, NULL, 0, NULL, 0);
		al_cm_qp_error(p_cep);
		al_cm_queue_rej(p_cep, NULL, IB_REJ_STALE_CONN);
		al_cm_enter_timewait(p_cep);
		break;
	case AL_CM_REQ_RCVD:
	case AL_CM_MRA_REQ_SENT:
		al_cm_cep_send_rej(p_cep, IB_REJ_STALE_CONN, AL_CM_REF_REQ, NULL, 0, NULL, 0);
		al_cm_cep_kill_locked(p_cep, p_dead);
		break;
	default:
		break;
	}
}

static void recv_req(cm_port_t *p_port, const ib_mad_element_t *p_in, const al_cm_req_msg_t *p_req,
		     cl_qlist_t *p_dead)
{
	al_cep_t *p_cep;
	al_listen_t *p_l;
	boolean_t sid;
	al_obj_t *p_parent;
	p_cep = al_cm_cep_by_remote(p_req->local_comm_id, p_req->local_ca_guid);
	if (p_cep) {
		/* A duplicate: answer with what we last sent (MRA or REP). */
		if ((p_cep->state == AL_CM_MRA_REQ_SENT || p_cep->state == AL_CM_REP_SENT ||
		     p_cep->state == AL_CM_MRA_REP_RCVD) && p_cep->has_last) {
			dup_seen(p_cep, "REQ");
			al_cm_cep_resend_last(p_cep);
		}
		return;
	}
	if (p_req->transport != AL_CM_TRANSPORT_RC && p_req->transport != AL_CM_TRANSPORT_UC) {
		reply_rej(p_port, p_in, p_req->local_comm_id, AL_CM_REF_REQ, IB_REJ_INVALID_XPORT);
		return;
	}
	p_cep = al_cm_cep_by_remote_qpn(p_req->local_qpn, p_req->local_ca_guid);
	if (p_cep) {
		reply_rej(p_port, p_in, p_req->local_comm_id, AL_CM_REF_REQ, IB_REJ_STALE_CONN);
		stale_end(p_cep, p_dead);
		return;
	}
	p_cep = find_peer(p_port, p_req);
	if (p_cep) {
		peer_req(p_cep, p_port, p_in, p_req, p_dead);
		return;
	}
	p_l = al_cm_find_listen(p_port, p_req, &sid);
	if (!p_l) {
		/* No listen for the service, or none whose compare buffer matches. */
		reply_rej(p_port, p_in, p_req->local_comm_id, AL_CM_REF_REQ,
			  IB_REJ_INVALID_SID);
		return;
	}
	/* The CEP is made with al_cm_g.lock released (al_obj_init, the agents);
	 * the listen is held meanwhile. */
	al_obj_ref(&p_l->obj);
	p_parent = p_l->obj.p_parent;
	al_cm_unlock();
	if (al_cm_cep_create(p_parent, &p_cep) != IB_SUCCESS) {
		pthread_mutex_lock(&al_cm_g.lock);
		al_obj_deref(&p_l->obj);
		reply_rej(p_port, p_in, p_req->local_comm_id, AL_CM_REF_REQ, IB_REJ_INSUF_RESOURCES);
		return;
	}
	pthread_mutex_lock(&al_cm_g.lock);
	if (al_cm_cep_by_remote(p_req->local_comm_id, p_req->local_ca_guid) || p_l->cancelled) {
		/* Another thread took the duplicate, or the listen went. */
		al_cm_cep_kill_locked(p_cep, p_dead);
		if (p_l->cancelled)
			reply_rej(p_port, p_in, p_req->local_comm_id, AL_CM_REF_REQ, IB_REJ_INVALID_SID);
		al_obj_deref(&p_l->obj);
		return;
	}
	al_cm_cep_insert_locked(p_cep);
	al_cm_cep_from_req(p_cep, p_port, p_req, p_in->remote_lid, p_in->pkey_index);
	p_cep->tid = p_in->p_mad_buf->trans_id;    /* every answer carries the REQ's TID */
	p_cep->state = AL_CM_REQ_RCVD;
	p_cep->p_listen = p_l;      /* the reference taken above */
	al_cm_queue_req_event(p_cep, (void *)p_l->info.pfn_cm_req_cb, p_l->obj.context, p_l, p_dead);
}

/* What the rep callback says of the REQ's alternate path: IB_AP_SUCCESS
 * when both QPs loaded it; else why not (the peer's failover answer, or
 * IB_AP_UNSUPPORTED when our QP refused it or the REQ had none). */
static ib_apr_status_t rep_apr_status(const al_cep_t *p_cep, const al_cm_rep_msg_t *p_rep)
{
	if (p_cep->alt_on)
		return IB_AP_SUCCESS;
	if (!p_cep->alt_req)
		return IB_AP_UNSUPPORTED;
	switch (p_rep->failover_accepted) {
	case IB_FAILOVER_ACCEPT_ERROR:
		return IB_AP_REJECT;
	default:
		return IB_AP_UNSUPPORTED;
	}
}

static void recv_rep(al_cep_t *p_cep, const al_cm_rep_msg_t *p_rep, cl_qlist_t *p_dead)
{
	cm_event_t *p_ev;

	if (p_cep->state == AL_CM_ESTABLISHED || p_cep->state == AL_CM_MRA_REP_SENT ||
	    p_cep->state == AL_CM_TIMEWAIT || p_cep->state == AL_CM_DREQ_SENT) {
		/* A duplicate REP: our RTU (or MRA) was lost. */
		if (p_cep->has_last && p_cep->remote_id == p_rep->local_comm_id &&
		    (p_cep->last_type == AL_CM_MSG_RTU || p_cep->last_type == AL_CM_MSG_MRA)) {
			dup_seen(p_cep, "REP");
			al_cm_cep_resend_last(p_cep);
		}
		return;
	}
	if (p_cep->state == AL_CM_REP_RCVD)
		return;                 /* the user has not answered yet */
	al_cm_timer_stop(p_cep);
	p_cep->remote_id = p_rep->local_comm_id;
	p_cep->remote_qpn = p_rep->local_qpn;
	p_cep->remote_ca_guid = p_rep->local_ca_guid;
	al_cm_cep_index_locked(p_cep);
	if (p_cep->resp_res > p_rep->init_depth)
		p_cep->resp_res = p_rep->init_depth;
	if (p_cep->init_depth > p_rep->resp_res)
		p_cep->init_depth = p_rep->resp_res;
	p_cep->rnr_retry_cnt = p_rep->rnr_retry_count;
	/* The REQ's alternate path is loaded when the peer accepted it. */
	p_cep->alt_on = p_cep->alt_req && p_rep->failover_accepted == IB_FAILOVER_ACCEPT_SUCCESS;
	if (al_cm_qp_rtr(p_cep, p_rep->starting_psn) != IB_SUCCESS) {
		al_cm_cep_send_rej(p_cep, IB_REJ_INSUF_QP, AL_CM_REF_REP, NULL, 0, NULL, 0);
		al_cm_qp_error(p_cep);
		al_cm_queue_rej(p_cep, NULL, IB_REJ_INSUF_QP);
		al_cm_enter_timewait(p_cep);
		return;
	}
	p_cep->state = AL_CM_REP_RCVD;
	p_ev = al_cm_ev_new(p_cep, EV_REP, (void *)p_cep->pfn_rep);
	if (!p_ev)
		return;
	p_ev->msg.rep = *p_rep;
	p_ev->rec.rep.p_rep_pdata = p_ev->msg.rep.private_data;
	p_ev->rec.rep.qp_type = p_cep->qp_type;
	p_ev->rec.rep.h_cm_rep = al_cm_cep_handle(p_cep);
	p_ev->rec.rep.qp_context = p_cep->qp_context;
	p_ev->rec.rep.resp_res = p_rep->resp_res;
	p_ev->rec.rep.flow_ctrl = p_rep->flow_ctrl;
	p_ev->rec.rep.apr_status = rep_apr_status(p_cep, p_rep);
	al_cm_ev_queue(p_ev);
	(void)p_dead;
}

static void recv_rtu(al_cep_t *p_cep, const al_cm_rtu_msg_t *p_rtu)
{
	cm_event_t *p_ev;

	if (p_cep->state != AL_CM_REP_SENT && p_cep->state != AL_CM_MRA_REP_RCVD)
		return;
	al_cm_timer_stop(p_cep);
	if (al_cm_qp_rts(p_cep, 0) != IB_SUCCESS) {
		/* Nothing better to do than disconnect. */
		al_cm_qp_error(p_cep);
	}
	p_cep->state = AL_CM_ESTABLISHED;
	p_cep->has_last = FALSE;
	p_ev = al_cm_ev_new(p_cep, EV_RTU, (void *)p_cep->pfn_rtu);
	if (!p_ev)
		return;
	p_ev->msg.rtu = *p_rtu;
	p_ev->rec.rtu.p_rtu_pdata = p_ev->msg.rtu.private_data;
	p_ev->rec.rtu.h_qp = p_cep->h_qp;
	p_ev->rec.rtu.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

static void recv_rej(al_cep_t *p_cep, const al_cm_rej_msg_t *p_rej, cl_qlist_t *p_dead)
{
	al_cm_state_t s = p_cep->state;

	al_cm_timer_stop(p_cep);
	al_cm_qp_error(p_cep);
	if (s == AL_CM_REQ_RCVD || s == AL_CM_MRA_REQ_SENT) {
		/* The requester gave up before we answered: no callback is
		 * registered for the passive side yet. */
		al_cm_cep_kill_locked(p_cep, p_dead);
		return;
	}
	al_cm_queue_rej(p_cep, p_rej, cl_hton16(p_rej->reason));
	if (s == AL_CM_REQ_SENT || s == AL_CM_MRA_REQ_RCVD)
		al_cm_cep_kill_locked(p_cep, p_dead);
	else
		al_cm_enter_timewait(p_cep);
}

static void recv_mra(al_cep_t *p_cep, const al_cm_mra_msg_t *p_mra)
{
	cm_event_t *p_ev;
	uint32_t ms;

	if (p_cep->state == AL_CM_REQ_SENT && p_mra->msg_mraed == AL_CM_REF_REQ)
		p_cep->state = AL_CM_MRA_REQ_RCVD;
	else if (p_cep->state == AL_CM_REP_SENT && p_mra->msg_mraed == AL_CM_REF_REP)
		p_cep->state = AL_CM_MRA_REP_RCVD;
	else if (p_cep->state == AL_CM_LAP_SENT && p_mra->msg_mraed == AL_CM_REF_OTHER)
		p_cep->state = AL_CM_MRA_LAP_RCVD;     /* the peer needs time for our LAP */
	else if (p_cep->state != AL_CM_MRA_REQ_RCVD && p_cep->state != AL_CM_MRA_REP_RCVD &&
		 p_cep->state != AL_CM_MRA_LAP_RCVD)
		return;
	/* The peer needs service_timeout more: wait that long, then resend. */
	ms = al_cm_time_ms(p_mra->service_timeout) + 2 * p_cep->pktlife_ms;
	p_cep->remote_id = p_mra->local_comm_id;
	al_cm_cep_index_locked(p_cep);
	al_cm_timer_arm(p_cep, ms, p_cep->retries_left);
	p_ev = al_cm_ev_new(p_cep, EV_MRA, (void *)p_cep->pfn_mra);
	if (!p_ev)
		return;
	p_ev->msg.mra = *p_mra;
	p_ev->rec.mra.p_mra_pdata = p_ev->msg.mra.private_data;
	p_ev->rec.mra.h_qp = p_cep->h_qp;
	p_ev->rec.mra.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

void al_cm_send_drep(al_cep_t *p_cep, const uint8_t *pdata, uint8_t len)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.drep.local_comm_id = p_cep->local_id;
	m.drep.remote_comm_id = p_cep->remote_id;
	if (pdata && len)
		memcpy(m.drep.private_data, pdata, len);
	al_cm_cep_send(p_cep, AL_CM_MSG_DREP, &m);
}

void al_cm_queue_drep(al_cep_t *p_cep, ib_api_status_t status, const al_cm_drep_msg_t *p_drep)
{
	cm_event_t *p_ev = al_cm_ev_new(p_cep, EV_DREP, (void *)p_cep->pfn_drep);

	if (!p_ev)
		return;
	if (p_drep)
		p_ev->msg.drep = *p_drep;
	p_ev->rec.drep.cm_status = status;
	p_ev->rec.drep.p_drep_pdata = p_ev->msg.drep.private_data;
	p_ev->rec.drep.h_qp = p_cep->h_qp;
	p_ev->rec.drep.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

static void recv_dreq(al_cep_t *p_cep, const al_cm_dreq_msg_t *p_dreq)
{
	cm_event_t *p_ev;

	switch (p_cep->state) {
	case AL_CM_TIMEWAIT:
		/* Our DREP was lost: send it again. */
		dup_seen(p_cep, "DREQ");
		if (p_cep->has_last && p_cep->last_type == AL_CM_MSG_DREP)
			al_cm_cep_resend_last(p_cep);
		else
			al_cm_send_drep(p_cep, NULL, 0);
		return;
	case AL_CM_DREQ_RCVD:
		return;                 /* the user answers */
	case AL_CM_DREQ_SENT:
		/* Both sides disconnect: answer, and take it as our reply. */
		al_cm_timer_stop(p_cep);
		al_cm_send_drep(p_cep, NULL, 0);
		al_cm_queue_drep(p_cep, IB_SUCCESS, NULL);
		al_cm_enter_timewait(p_cep);
		return;
	default:
		break;
	}
	/* ESTABLISHED, or REP_SENT whose RTU was lost. */
	al_cm_timer_stop(p_cep);
	al_cm_qp_error(p_cep);
	p_cep->state = AL_CM_DREQ_RCVD;
	p_ev = al_cm_ev_new(p_cep, EV_DREQ, (void *)p_cep->pfn_dreq);
	if (!p_ev) {
		al_cm_send_drep(p_cep, NULL, 0);
		al_cm_enter_timewait(p_cep);
		return;
	}
	p_ev->msg.dreq = *p_dreq;
	p_ev->rec.dreq.h_cm_dreq = al_cm_cep_handle(p_cep);
	p_ev->rec.dreq.p_dreq_pdata = p_ev->msg.dreq.private_data;
	p_ev->rec.dreq.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

static void recv_drep(al_cep_t *p_cep, const al_cm_drep_msg_t *p_drep)
{
	if (p_cep->state != AL_CM_DREQ_SENT)
		return;
	al_cm_timer_stop(p_cep);
	al_cm_queue_drep(p_cep, IB_SUCCESS, p_drep);
	al_cm_enter_timewait(p_cep);
}

/* ---- SIDR ---- */

/* A SIDR_REP from no CEP (no listen, or no memory). */
static void reply_sidr(cm_port_t *p_port, const ib_mad_element_t *p_in,
		       const al_cm_sidr_req_msg_t *p_req, ib_sidr_status_t status)
{
	al_cm_msg_t m;

	memset(&m, 0, sizeof(m));
	m.sidr_rep.request_id = p_req->request_id;
	m.sidr_rep.status = status;
	m.sidr_rep.service_id = p_req->service_id;
	al_cm_send_to(p_port, AL_CM_MSG_SIDR_REP, &m, p_in->p_mad_buf->trans_id, p_in->remote_lid,
		      p_in->remote_sl, p_in->pkey_index,
		      p_in->grh_valid ? p_in->p_grh : NULL);
}

/* Whether a SIDR_REQ repeats one from the same port that waits for its user. */
static boolean_t sidr_req_dup(cm_port_t *p_port, const ib_mad_element_t *p_in,
			      const al_cm_sidr_req_msg_t *p_sreq)
{
	uint64_t key = REMOTE_SIDR | p_sreq->request_id;
	cm_hitem_t *e;

	for (e = cm_hash_find(&al_cm_g.remotes, key, p_port->port_guid, TRUE); e;
	     e = cm_hash_next(e, TRUE)) {
		const al_cep_t *p_cep = HITEM_CEP(e, by_remote);

		if (p_cep->state == AL_CM_SIDR_REQ_RCVD && p_cep->dlid == p_in->remote_lid &&
		    p_cep->p_port == p_port)
			return TRUE;
	}
	return FALSE;
}

/* The listen a SIDR_REQ is for, or NULL. Listens match on a REQ-shaped
 * copy: transport 0xFF marks SIDR; the LID is the one the SIDR_REQ was
 * sent to (the port's base LID and the path bits it came in on); compare
 * buffers see all its private data. */
static al_listen_t *sidr_listen(cm_port_t *p_port, const ib_mad_element_t *p_in,
				const al_cm_sidr_req_msg_t *p_sreq)
{
	al_cm_req_msg_t req;
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;
	boolean_t sid;

	memset(&req, 0, sizeof(req));
	req.service_id = p_sreq->service_id;
	req.transport = 0xFF;
	req.pkey = p_sreq->pkey;
	if (al_cm_port_attr(p_port, &p_attr, &p_pa) == IB_SUCCESS) {
		req.primary.remote_lid = (uint16_t)(cl_ntoh16(p_pa->lid) |
						    (p_in->path_bits & ((1u << p_pa->lmc) - 1)));
		cl_free(p_attr);
	}
	return find_listen(p_port, &req, p_sreq->private_data, &sid);
}

/* A passive SIDR endpoint's fields from its SIDR_REQ. */
static void cep_from_sidr_req(al_cep_t *p_cep, cm_port_t *p_port, const ib_mad_element_t *p_in,
			      const al_cm_sidr_req_msg_t *p_sreq)
{
	p_cep->active = FALSE;
	p_cep->qp_type = IB_QPT_UNRELIABLE_DGRM;
	p_cep->remote_id = p_sreq->request_id;
	p_cep->p_port = p_port;
	p_cep->dlid = p_in->remote_lid;
	p_cep->sl = p_in->remote_sl;
	p_cep->pkey_index = p_in->pkey_index;
	p_cep->sidr_service_id = p_sreq->service_id;
	p_cep->tid = p_in->p_mad_buf->trans_id;
	p_cep->state = AL_CM_SIDR_REQ_RCVD;
}

static void recv_sidr_req(cm_port_t *p_port, const ib_mad_element_t *p_in,
			  const al_cm_sidr_req_msg_t *p_sreq, cl_qlist_t *p_dead)
{
	al_cep_t *p_cep;
	al_listen_t *p_l;
	cm_event_t *p_ev;

	if (sidr_req_dup(p_port, p_in, p_sreq))
		return;
	p_l = sidr_listen(p_port, p_in, p_sreq);
	if (!p_l) {
		reply_sidr(p_port, p_in, p_sreq, IB_SIDR_UNSUPPORTED);
		return;
	}
	al_obj_ref(&p_l->obj);
	al_cm_unlock();
	if (al_cm_cep_create(p_l->obj.p_parent, &p_cep) != IB_SUCCESS) {
		pthread_mutex_lock(&al_cm_g.lock);
		al_obj_deref(&p_l->obj);
		reply_sidr(p_port, p_in, p_sreq, IB_SIDR_NO_QP);
		return;
	}
	pthread_mutex_lock(&al_cm_g.lock);
	if (p_l->cancelled) {
		al_cm_cep_kill_locked(p_cep, p_dead);
		reply_sidr(p_port, p_in, p_sreq, IB_SIDR_UNSUPPORTED);
		al_obj_deref(&p_l->obj);
		return;
	}
	al_cm_cep_insert_locked(p_cep);
	cep_from_sidr_req(p_cep, p_port, p_in, p_sreq);
	al_cm_cep_index_locked(p_cep);
	p_cep->p_listen = p_l;
	p_ev = al_cm_ev_new(p_cep, EV_REQ, (void *)p_l->info.pfn_cm_req_cb);
	if (!p_ev) {
		reply_sidr(p_port, p_in, p_sreq, IB_SIDR_NO_QP);
		al_cm_cep_kill_locked(p_cep, p_dead);
		return;
	}
	p_ev->msg.sidr_req = *p_sreq;
	p_ev->rec.req.context = p_l->obj.context;
	p_ev->rec.req.h_cm_req = al_cm_cep_handle(p_cep);
	p_ev->rec.req.h_cm_listen = (ib_listen_handle_t)al_obj_h(&p_l->obj);
	p_ev->rec.req.p_req_pdata = p_ev->msg.sidr_req.private_data;
	p_ev->rec.req.qp_type = IB_QPT_UNRELIABLE_DGRM;
	p_ev->rec.req.pkey = cl_hton16(p_sreq->pkey);
	p_ev->rec.req.sidr_context = p_l->info.sidr_context;
	al_cm_ev_queue(p_ev);
}

static void recv_sidr_rep(al_cep_t *p_cep, const al_cm_sidr_rep_msg_t *p_rep, cl_qlist_t *p_dead)
{
	cm_event_t *p_ev = al_cm_ev_new(p_cep, EV_REP, (void *)p_cep->pfn_rep);

	al_cm_timer_stop(p_cep);
	if (p_ev) {
		p_ev->msg.sidr_rep = *p_rep;
		p_ev->rec.rep.p_rep_pdata = p_ev->msg.sidr_rep.private_data;
		p_ev->rec.rep.qp_type = IB_QPT_UNRELIABLE_DGRM;
		p_ev->rec.rep.sidr_context = p_cep->sidr_context;
		p_ev->rec.rep.status = p_rep->status;
		p_ev->rec.rep.remote_qp = cl_hton32(p_rep->qpn);
		p_ev->rec.rep.remote_qkey = cl_hton32(p_rep->qkey);
		if (p_rep->status == IB_SIDR_REDIRECT)
			memcpy(&p_ev->rec.rep.class_info, p_rep->class_port_info,
			       sizeof(p_ev->rec.rep.class_info) < sizeof(p_rep->class_port_info)
				       ? sizeof(p_ev->rec.rep.class_info) : sizeof(p_rep->class_port_info));
		al_cm_ev_queue(p_ev);
	}
	al_cm_cep_kill_locked(p_cep, p_dead);
}

/* ---- Alternate paths (LAP/APR) ---- */

/* Loads an alternate path in the CEP's QP and arms it for migration. */
ib_api_status_t al_cm_qp_load_alt(al_cep_t *p_cep, const ib_path_rec_t *p_alt)
{
	ib_qp_mod_t m;
	ib_api_status_t st;

	if (!p_cep->h_qp)
		return IB_INVALID_QP_HANDLE;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_REARM;
	al_cm_alt_to_av(p_cep, p_alt, &m.state.rts.alternate_av);
	st = ib_modify_qp(p_cep->h_qp, &m);
	if (st != IB_SUCCESS)
		return st;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_ARMED;
	return ib_modify_qp(p_cep->h_qp, &m);
}

/* The passive side's view of a LAP's path. */
static void lap_to_path(const al_cep_t *p_cep, const al_cm_path_t *w, ib_path_rec_t *p)
{
	al_cm_wire_to_path(w, &p_cep->req, p);
}

static void recv_lap(al_cep_t *p_cep, const al_cm_lap_msg_t *p_lap, ib_net64_t tid)
{
	cm_event_t *p_ev;
	al_cm_msg_t m;

	if (p_cep->state == AL_CM_LAP_RCVD)
		return;                 /* a duplicate: the user answers */
	if (p_cep->state == AL_CM_ESTABLISHED && p_cep->has_lap && tid == p_cep->lap_tid &&
	    p_cep->has_last && p_cep->last_type == AL_CM_MSG_APR) {
		/* A resend of the LAP we answered (our APR was late or lost): the
		 * APR again, not a second request to the user. */
		dup_seen(p_cep, "LAP");
		al_cm_cep_resend_last(p_cep);
		return;
	}
	if (p_cep->state == AL_CM_MRA_LAP_SENT) {
		/* A duplicate after our MRA: the MRA again. */
		if (p_cep->has_last && p_cep->last_type == AL_CM_MSG_MRA) {
			dup_seen(p_cep, "LAP");
			al_cm_cep_resend_last(p_cep);
		}
		return;
	}
	if (p_cep->active || !p_cep->pfn_lap) {
		/* Only the passive side takes LAPs (upstream's rule), and only
		 * with a callback: refuse. */
		memset(&m, 0, sizeof(m));
		m.apr.local_comm_id = p_cep->local_id;
		m.apr.remote_comm_id = p_cep->remote_id;
		m.apr.ap_status = IB_AP_UNSUPPORTED;
		al_cm_cep_send(p_cep, AL_CM_MSG_APR, &m);
		return;
	}
	lap_to_path(p_cep, &p_lap->alternate, &p_cep->alt_path);
	p_cep->lap_tid = tid;
	p_cep->has_lap = TRUE;
	p_cep->state = AL_CM_LAP_RCVD;
	p_ev = al_cm_ev_new(p_cep, EV_LAP, (void *)p_cep->pfn_lap);
	if (!p_ev)
		return;
	p_ev->msg.lap = *p_lap;
	p_ev->rec.lap.h_cm_lap = al_cm_cep_handle(p_cep);
	p_ev->rec.lap.alt_path = p_cep->alt_path;
	p_ev->rec.lap.p_lap_pdata = p_ev->msg.lap.private_data;
	p_ev->rec.lap.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

void al_cm_queue_apr(al_cep_t *p_cep, ib_api_status_t status, const al_cm_apr_msg_t *p_apr)
{
	cm_event_t *p_ev = al_cm_ev_new(p_cep, EV_APR, (void *)p_cep->pfn_apr);

	if (!p_ev)
		return;
	if (p_apr)
		p_ev->msg.apr = *p_apr;
	p_ev->rec.apr.cm_status = status;
	p_ev->rec.apr.apr_status = p_ev->msg.apr.ap_status;
	p_ev->rec.apr.p_info = p_ev->msg.apr.info;
	p_ev->rec.apr.info_length = p_ev->msg.apr.info_length;
	p_ev->rec.apr.p_apr_pdata = p_ev->msg.apr.private_data;
	p_ev->rec.apr.h_qp = p_cep->h_qp;
	p_ev->rec.apr.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

static void recv_apr(al_cep_t *p_cep, const al_cm_apr_msg_t *p_apr)
{
	ib_api_status_t st = IB_SUCCESS;

	if (p_cep->state != AL_CM_LAP_SENT && p_cep->state != AL_CM_MRA_LAP_RCVD)
		return;
	al_cm_timer_stop(p_cep);
	if (p_apr->ap_status == IB_AP_SUCCESS)
		st = al_cm_qp_load_alt(p_cep, &p_cep->alt_path);
	p_cep->state = AL_CM_ESTABLISHED;
	al_cm_queue_apr(p_cep, st, p_apr);
}

/* Where a message carries the receiver's and the sender's comm IDs (-1:
 * not at all). */
#define CM_ID_OFF(msg, field) (int)offsetof(al_cm_msg_t, msg.field)
static const struct {
	int receiver;
	int sender;
} cm_ids[] = {
	[AL_CM_MSG_REQ] = { -1, CM_ID_OFF(req, local_comm_id) },
	[AL_CM_MSG_MRA] = { CM_ID_OFF(mra, remote_comm_id), CM_ID_OFF(mra, local_comm_id) },
	[AL_CM_MSG_REJ] = { CM_ID_OFF(rej, remote_comm_id), CM_ID_OFF(rej, local_comm_id) },
	[AL_CM_MSG_REP] = { CM_ID_OFF(rep, remote_comm_id), CM_ID_OFF(rep, local_comm_id) },
	[AL_CM_MSG_RTU] = { CM_ID_OFF(rtu, remote_comm_id), CM_ID_OFF(rtu, local_comm_id) },
	[AL_CM_MSG_DREQ] = { CM_ID_OFF(dreq, remote_comm_id), CM_ID_OFF(dreq, local_comm_id) },
	[AL_CM_MSG_DREP] = { CM_ID_OFF(drep, remote_comm_id), CM_ID_OFF(drep, local_comm_id) },
	[AL_CM_MSG_SIDR_REQ] = { -1, -1 },
	[AL_CM_MSG_SIDR_REP] = { CM_ID_OFF(sidr_rep, request_id), -1 },
	[AL_CM_MSG_LAP] = { CM_ID_OFF(lap, remote_comm_id), CM_ID_OFF(lap, local_comm_id) },
	[AL_CM_MSG_APR] = { CM_ID_OFF(apr, remote_comm_id), CM_ID_OFF(apr, local_comm_id) },
};

static uint32_t cm_id_at(const al_cm_msg_t *m, int off)
{
	uint32_t v = 0;

	if (off >= 0)
		memcpy(&v, (const uint8_t *)m + off, sizeof(v));
	return v;
}

static boolean_t known_type(al_cm_msg_type_t t)
{
	return (unsigned)t < sizeof(cm_ids) / sizeof(cm_ids[0]);
}

/* The receiver's comm ID a message names (0 for REQ). */
static uint32_t msg_target(al_cm_msg_type_t t, const al_cm_msg_t *m)
{
	return known_type(t) ? cm_id_at(m, cm_ids[t].receiver) : 0;
}

/* The sender's comm ID a message carries (0: none). */
static uint32_t msg_sender(al_cm_msg_type_t t, const al_cm_msg_t *m)
{
	return known_type(t) ? cm_id_at(m, cm_ids[t].sender) : 0;
}

static boolean_t gid_set(const ib_gid_t *p_gid)
{
	static const ib_gid_t zero;

	return memcmp(p_gid, &zero, sizeof(zero)) != 0;
}

/*
 * Why a message found by its receiver's comm ID does not come from the
 * connection's peer (NULL: it does), as the Linux CM checks: the sender's
 * comm ID once the CEP knows it; the QPN a DREQ or LAP names; and for
 * those two, which end or move a connection, the local port it came on
 * (the connection's, or the one of its alternate path) and the source: the
 * LID of the primary or the alternate path when the MAD came without a
 * GRH, else its GID.
 */
static const char *not_from_peer(const cm_port_t *p_port, const al_cep_t *p_cep,
				 const ib_mad_element_t *p_mad, al_cm_msg_type_t type,
				 const al_cm_msg_t *p_msg)
{
	uint32_t sender = msg_sender(type, p_msg), qpn;

	if (p_cep->remote_id && sender && sender != p_cep->remote_id)
		return "the sender's comm ID is not the connection's";
	if (type != AL_CM_MSG_DREQ && type != AL_CM_MSG_LAP)
		return NULL;
	qpn = type == AL_CM_MSG_DREQ ? p_msg->dreq.remote_qpn : p_msg->lap.remote_qpn;
	if (p_cep->local_qpn && (qpn & 0xFFFFFFu) != (p_cep->local_qpn & 0xFFFFFFu))
		return "the QPN is not the connection's";
	if (p_cep->p_port && p_port != p_cep->p_port &&
	    !(gid_set(&p_cep->alt_path.sgid) && al_cm_g.p_agents &&
	      al_cm_port_by_gid(al_cm_g.p_agents, &p_cep->alt_path.sgid) == p_port))
		return "it came on a port the connection does not use";
	if (!p_mad->grh_valid && p_mad->remote_lid && p_cep->dlid &&
	    p_mad->remote_lid != p_cep->dlid && p_mad->remote_lid != p_cep->path.dlid &&
	    p_mad->remote_lid != p_cep->alt_path.dlid)
		return "the source LID is not the connection's";
	if (p_mad->grh_valid && p_mad->p_grh && gid_set(&p_cep->path.dgid) &&
	    memcmp(&p_mad->p_grh->src_gid, &p_cep->path.dgid, sizeof(ib_gid_t)) &&
	    memcmp(&p_mad->p_grh->src_gid, &p_cep->alt_path.dgid, sizeof(ib_gid_t)))
		return "the source GID is not the connection's";
	return NULL;
}

/* The passive CEP a REJ with no receiver ID is for (the requester gave up
 * before it knew our ID): by the sender's ID and, for a timeout, the CA
 * GUID the ARI carries. */
static al_cep_t *cep_of_rej(const al_cm_msg_t *p_msg)
{
	cm_hitem_t *e;
	ib_net64_t guid = 0;
	uint32_t id = p_msg->rej.local_comm_id;

	if (!id)
		return NULL;
	if (p_msg->rej.reason == cl_ntoh16(IB_REJ_TIMEOUT) && p_msg->rej.ari_length >= sizeof(guid))
		memcpy(&guid, p_msg->rej.ari, sizeof(guid));
	if (guid)
		return al_cm_cep_by_remote(id, cl_ntoh64(guid));
	e = cm_hash_find(&al_cm_g.remotes, id, 0, FALSE);
	return e ? HITEM_CEP(e, by_remote) : NULL;
}

/* A message for no endpoint, or one its endpoint's state does not accept:
 * answered where the IBA says so, counted and logged. */
static void recv_unexpected(cm_port_t *p_port, const ib_mad_element_t *p_mad, al_cm_msg_type_t type,
			    const al_cm_msg_t *p_msg, const al_cep_t *p_cep)
{
	if (!p_cep && type == AL_CM_MSG_DREQ) {
		/* IBA 12.9.8.5: a DREQ for nothing still gets its DREP. */
		al_cm_msg_t m;

		memset(&m, 0, sizeof(m));
		m.drep.remote_comm_id = p_msg->dreq.local_comm_id;
		al_cm_send_to(p_port, AL_CM_MSG_DREP, &m, p_mad->p_mad_buf->trans_id, p_mad->remote_lid,
			      p_mad->remote_sl, p_mad->pkey_index, p_mad->grh_valid ? p_mad->p_grh : NULL);
	} else if (!p_cep && type == AL_CM_MSG_REP) {
		/* A REP for no REQ: tell its sender. */
		reply_rej(p_port, p_mad, p_msg->rep.local_comm_id, AL_CM_REF_REP, IB_REJ_INVALID_COMM_ID);
	}
	IBAL_DBG(IBAL_SUB_CM, "%s from LID 0x%x for comm ID 0x%x dropped: %s%s", al_cm_msg_name(type),
		 cl_ntoh16(p_mad->remote_lid), msg_target(type, p_msg),
		 p_cep ? "not expected in state " : "no such connection",
		 p_cep ? al_cm_state_name(p_cep->state) : "");
	al_cm_g.stats.n_drop++;
}

/* A message its endpoint's state accepts: to its handler. */
static void recv_for_cep(al_cep_t *p_cep, const ib_mad_element_t *p_mad, al_cm_msg_type_t type,
			 const al_cm_msg_t *p_msg, cl_qlist_t *p_dead)
{
	ib_net64_t tid = p_mad->p_mad_buf->trans_id;

	switch (type) {
	case AL_CM_MSG_REP:
		recv_rep(p_cep, &p_msg->rep, p_dead);
		break;
	case AL_CM_MSG_RTU:
		recv_rtu(p_cep, &p_msg->rtu);
		break;
	case AL_CM_MSG_REJ:
		recv_rej(p_cep, &p_msg->rej, p_dead);
		break;
	case AL_CM_MSG_MRA:
		recv_mra(p_cep, &p_msg->mra);
		break;
	case AL_CM_MSG_DREQ:
		p_cep->tid = tid;   /* the DREP answers with it */
		recv_dreq(p_cep, &p_msg->dreq);
		break;
	case AL_CM_MSG_DREP:
		recv_drep(p_cep, &p_msg->drep);
		break;
	case AL_CM_MSG_SIDR_REP:
		recv_sidr_rep(p_cep, &p_msg->sidr_rep, p_dead);
		break;
	case AL_CM_MSG_LAP:
		if (p_cep->state != AL_CM_LAP_RCVD && p_cep->state != AL_CM_MRA_LAP_SENT &&
		    !(p_cep->has_lap && p_cep->lap_tid == tid))
			p_cep->tid = tid;   /* the APR (or MRA) answers with it */
		recv_lap(p_cep, &p_msg->lap, tid);
		break;
	case AL_CM_MSG_APR:
		recv_apr(p_cep, &p_msg->apr);
		break;
	default:
		IBAL_DBG(IBAL_SUB_CM, "%s from LID 0x%x dropped: not handled here", al_cm_msg_name(type),
			 cl_ntoh16(p_mad->remote_lid));
		al_cm_g.stats.n_drop++;
		break;
	}
}

void al_cm_recv(cm_port_t *p_port, ib_mad_element_t *p_mad)
{
	al_cm_msg_t msg, *p_msg = &msg;    /* 264 bytes: no allocation per message */
	al_cm_msg_type_t type;
	al_cep_t *p_cep;
	cl_qlist_t dead;
	const char *why;

	cl_qlist_init(&dead);
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_lists_init_locked();
	if (!p_mad->p_mad_buf || al_cm_unpack(p_mad->p_mad_buf, p_mad->size, &type, p_msg) != IB_SUCCESS) {
		IBAL_DBG(IBAL_SUB_CM, "CM MAD from LID 0x%x dropped: not a well-formed CM message",
			 cl_ntoh16(p_mad->remote_lid));
		al_cm_g.stats.n_drop++;
		goto out;
	}
	IBAL_TRACE(IBAL_SUB_CM, "%s from LID 0x%x for comm ID 0x%x", al_cm_msg_name(type),
		   cl_ntoh16(p_mad->remote_lid), msg_target(type, p_msg));
	if (type == AL_CM_MSG_REQ) {
		recv_req(p_port, p_mad, &p_msg->req, &dead);
	} else if (type == AL_CM_MSG_SIDR_REQ) {
		recv_sidr_req(p_port, p_mad, &p_msg->sidr_req, &dead);
	} else {
		p_cep = al_cm_cep_by_local_id(msg_target(type, p_msg));
		if (!p_cep && type == AL_CM_MSG_REJ && !p_msg->rej.remote_comm_id)
			p_cep = cep_of_rej(p_msg);
		why = p_cep ? not_from_peer(p_port, p_cep, p_mad, type, p_msg) : NULL;
		if (why) {
			IBAL_DBG(IBAL_SUB_CM, "%s from LID 0x%x for comm ID 0x%x dropped: %s",
				 al_cm_msg_name(type), cl_ntoh16(p_mad->remote_lid),
				 msg_target(type, p_msg), why);
			al_cm_g.stats.n_drop++;
		} else {
			/* The peer has the CEP's request: whatever it says, the
			 * request's place goes to the next one (al_cm_pace.c). */
			if (p_cep)
				al_cm_pace_done(p_cep);
			if (!p_cep || !(accepts[p_cep->state] & (1u << type)))
				recv_unexpected(p_port, p_mad, type, p_msg, p_cep);
			else
				recv_for_cep(p_cep, p_mad, type, p_msg, &dead);
		}
	}
out:
	al_cm_unlock();
	al_cm_destroy_dead(&dead);
}
