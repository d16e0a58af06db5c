/*
 * ibal access layer: the kernel CM path's rdma_cm events (the event thread: REQ, REP, RTU, REJ, DREQ, DREP, errors).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_cm_kern.c for the design and al_cm_kern_int.h for what the files share.
 */
#include "al_cm_kern_int.h"

#ifdef HAVE_AL_CM_KERN

/* ---- events ---- */

/* What the thread keeps of an event once acknowledged. */
typedef struct kc_rx {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	struct rdma_conn_param conn;
	uint8_t pdata[IB_REP_PDATA_SIZE];
	uint32_t pdata_len;
} kc_rx_t;

static void rx_copy(const struct rdma_cm_event *ev, kc_rx_t *r)
{
	memset(r, 0, sizeof(*r));
	r->type = ev->event;
	r->status = ev->status;
	r->id = ev->id;
	r->listen_id = ev->listen_id;
	r->conn = ev->param.conn;
	if (ev->id && ev->id->ps != RDMA_PS_UDP && ev->param.conn.private_data &&
	    ev->param.conn.private_data_len) {
		r->pdata_len = ev->param.conn.private_data_len;
		if (r->pdata_len > sizeof(r->pdata))
			r->pdata_len = sizeof(r->pdata);
		memcpy(r->pdata, ev->param.conn.private_data, r->pdata_len);
	}
	r->conn.private_data = NULL;
}

/* The REQ's primary path as the kernel CM has it (the passive side's view). */
static void path_of_route(const struct rdma_cm_id *id, ib_path_rec_t *p)
{
	const struct ibv_sa_path_rec *r = id->route.num_paths ? id->route.path_rec : NULL;

	memset(p, 0, sizeof(*p));
	if (!r) {
		memcpy(p->sgid.raw, &id->route.addr.addr.ibaddr.sgid, 16);
		memcpy(p->dgid.raw, &id->route.addr.addr.ibaddr.dgid, 16);
		p->pkey = htons(id->route.addr.addr.ibaddr.pkey);
		return;
	}
	memcpy(p->sgid.raw, r->sgid.raw, 16);
	memcpy(p->dgid.raw, r->dgid.raw, 16);
	p->dlid = r->dlid;
	p->slid = r->slid;
	p->hop_flow_raw = cl_hton32(((be32toh(r->flow_label) & 0xFFFFFu) << 8) | r->hop_limit);
	p->tclass = r->traffic_class;
	p->num_path = (uint8_t)((r->reversible ? 0x80 : 0) | (r->numb_path & 0x7f));
	p->pkey = r->pkey;
	p->qos_class_sl = cl_hton16(r->sl & 0xf);
	p->mtu = (uint8_t)((r->mtu_selector & 3) << 6 | (r->mtu & 0x3f));
	p->rate = (uint8_t)((r->rate_selector & 3) << 6 | (r->rate & 0x3f));
	p->pkt_life = (uint8_t)((r->packet_life_time_selector & 3) << 6 | (r->packet_life_time & 0x3f));
	p->preference = r->preference;
}

static void reject_nosid(struct rdma_cm_id *id)
{
	rdma_reject(id, KC_NOSID_MAGIC, sizeof(KC_NOSID_MAGIC) - 1);
	rdma_destroy_id(id);
}

/* The listen (referenced) a REQ on a listening ID is for, or NULL; its
 * service ID in *p_sid and, for the IP CM's service ID header, the private
 * data after it in *pp_pdata, *p_len. kc.lock held. */
static al_listen_t *req_listen_locked(const kc_lport_t *lp, ib_net64_t ca_guid, uint64_t *p_sid,
				      const uint8_t **pp_pdata, uint32_t *p_len)
{
	al_listen_t *p_l = NULL;
	ib_net64_t hdr;

	if (lp->ib) {
		*p_sid = lp->key;
		return kc_listen_match_locked(*p_sid, ca_guid, *pp_pdata, *p_len);
	}
	if (*p_len >= KC_SID_HDR) {
		memcpy(&hdr, *pp_pdata, sizeof(hdr));
		*p_sid = cl_ntoh64(hdr);
		if (!kc_sid_is_tcp(*p_sid) && kc_sid_port(*p_sid) == lp->key)
			p_l = kc_listen_match_locked(*p_sid, ca_guid, *pp_pdata + KC_SID_HDR,
						  *p_len - KC_SID_HDR);
	}
	if (p_l) {
		*pp_pdata += KC_SID_HDR;
		*p_len -= KC_SID_HDR;
		return p_l;
	}
	*p_sid = KC_SID_TCP | lp->key;
	return kc_listen_match_locked(*p_sid, ca_guid, *pp_pdata, *p_len);
}

/* The user's REQ callback for a new passive connection. */
static void req_event(kc_conn_t *c, const kc_rx_t *r, al_listen_t *p_l, const uint8_t *pdata,
		      uint32_t len)
{
	kc_ev_t *e = kc_ev_new(c, KE_REQ, (void *)p_l->info.pfn_cm_req_cb);

	if (!e) {
		al_obj_deref(&p_l->obj);
		kc_conn_end(c);
		return;
	}
	e->p_listen = p_l;
	memcpy(e->pdata, pdata, len > IB_REQ_PDATA_SIZE ? IB_REQ_PDATA_SIZE : len);
	e->rec.req.context = p_l->obj.context;
	e->rec.req.h_cm_req = kc_conn_handle(c);
	e->rec.req.h_cm_listen = (ib_listen_handle_t)al_obj_h(&p_l->obj);
	e->rec.req.p_req_pdata = e->pdata;
	e->rec.req.qp_type = IB_QPT_RELIABLE_CONN;
	e->rec.req.resp_res = c->peer_resp_res;
	e->rec.req.flow_ctrl = r->conn.flow_control != 0;
	e->rec.req.rnr_retry_cnt = r->conn.rnr_retry_count;
	path_of_route(r->id, &e->rec.req.primary_path);
	c->twait_ms = kc_twait_of(ib_path_rec_pkt_life(&e->rec.req.primary_path));
	e->rec.req.sidr_context = p_l->info.sidr_context;
	kc_ev_queue(e);
}

/* A REQ on one of our listens (the event thread, nothing held). */
static void rx_req(kc_rx_t *r)
{
	kc_lport_t *lp;
	uint64_t key, sid = 0;
	boolean_t lib;
	const uint8_t *pdata = r->pdata;
	uint32_t len = r->pdata_len;
	ib_net64_t ca_guid = (ib_net64_t)ibv_get_device_guid(r->id->verbs->device);
	al_listen_t *p_l;
	kc_conn_t *c;

	pthread_mutex_lock(&kc.lock);
	lp = kc_lport_of_id_locked(r->listen_id);  /* gone: its last listen was cancelled */
	if (!lp) {
		pthread_mutex_unlock(&kc.lock);
		reject_nosid(r->id);
		return;
	}
	key = lp->key;
	lib = lp->ib;
	p_l = req_listen_locked(lp, ca_guid, &sid, &pdata, &len);
	pthread_mutex_unlock(&kc.lock);
	if (!p_l) {
		IBAL_DBG(IBAL_SUB_CM, "REQ on %s 0x%llx: no listen", lib ? "SID" : "port", (unsigned long long)key);
		reject_nosid(r->id);
		return;
	}
	if (kc_conn_new(p_l->obj.p_parent, &c) != IB_SUCCESS) {
		al_obj_deref(&p_l->obj);
		rdma_reject(r->id, NULL, 0);
		rdma_destroy_id(r->id);
		return;
	}
	pthread_mutex_lock(&kc.lock);
	c->id = r->id;
	r->id->context = (void *)(uintptr_t)c->cid;
	c->state = KC_REQ_RCVD;
	c->qp_type = IB_QPT_RELIABLE_CONN;
	c->svc_id = sid;
	c->peer_resp_res = r->conn.initiator_depth;   /* the event has the local view */
	c->peer_init_depth = r->conn.responder_resources;
	pthread_mutex_unlock(&kc.lock);
	req_event(c, r, p_l, pdata, len);
}

/* Active: the address, then the route, then the REQ. */
static void rx_resolved(kc_conn_t *c, kc_rx_t *r)
{
	int err = 0;

	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_RESOLVING || !c->id) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	if (r->type == RDMA_CM_EVENT_ADDR_RESOLVED && c->ib) {
		/* InfiniBand: the user's path is the route (librdmacm reports
		 * ROUTE_RESOLVED for it), no SA query by the kernel. */
		struct ibv_path_data pd;

		memset(&pd, 0, sizeof(pd));
		pd.flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | IBV_PATH_FLAG_BIDIRECTIONAL;
		memcpy(&pd.path, &c->path, sizeof(pd.path));
		err = rdma_set_option(c->id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &pd, sizeof(pd)) ? errno : 0;
	} else if (r->type == RDMA_CM_EVENT_ADDR_RESOLVED) {
		err = rdma_resolve_route(c->id, 4000) ? errno : 0;
	} else {
		if (!c->h_qp)
			c->cp.qp_num = 0; /* the QP went meanwhile (kc_req read its number) */
		{
			/* The kernel's route may say a longer packet lifetime than
			 * the user's path: the time-wait takes the longer (the
			 * passive side's comes from the same route). */
			ib_path_rec_t kp;
			uint32_t tw;

			path_of_route(c->id, &kp);
			tw = kc_twait_of(ib_path_rec_pkt_life(&kp));
			if (tw > c->twait_ms)
				c->twait_ms = tw;
		}
		c->cp.private_data = c->req_pdata;
		err = rdma_connect(c->id, &c->cp) ? errno : 0;
		c->cp.private_data = NULL;
		if (!err)
			c->state = KC_REQ_SENT;
	}
	if (!err) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	IBAL_DBG(IBAL_SUB_CM, "connect step after %s: %s", rdma_event_str(r->type), strerror(err));
	kc_conn_fail_unlock(c, IB_REJ_INVALID_GID, NULL, 0);
}

/* Active: the REP came. */
static void rx_rep(kc_conn_t *c, kc_rx_t *r)
{
	kc_ev_t *e;
	ib_api_status_t st;

	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_REQ_SENT) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	st = c->h_qp ? kc_qp_to(c->id, c->h_qp, IB_QPS_RTR, 0) : IB_INVALID_QP_HANDLE;
	if (st != IB_SUCCESS) {
		IBAL_DBG(IBAL_SUB_CM, "REP: QP to RTR: %s", ib_get_err_str(st));
		rdma_reject(c->id, NULL, 0);
		kc_conn_fail_unlock(c, IB_REJ_INSUF_RESOURCES, NULL, 0);
		return;
	}
	c->state = KC_REP_RCVD;
	e = kc_ev_new(c, KE_REP, (void *)c->pfn_rep);
	if (e) {
		memcpy(e->pdata, r->pdata, r->pdata_len);
		e->rec.rep.p_rep_pdata = e->pdata;
		e->rec.rep.qp_type = c->qp_type;
		e->rec.rep.h_cm_rep = kc_conn_handle(c);
		e->rec.rep.qp_context = c->qp_context;
		e->rec.rep.resp_res = r->conn.initiator_depth;
		e->rec.rep.flow_ctrl = r->conn.flow_control != 0;
		e->rec.rep.apr_status = IB_AP_UNSUPPORTED;
	}
	pthread_mutex_unlock(&kc.lock);
	if (e)
		kc_ev_queue(e);
}

/* Passive: the RTU came. */
static void rx_established(kc_conn_t *c)
{
	kc_ev_t *e = NULL;

	pthread_mutex_lock(&kc.lock);
	if (c->state == KC_REP_SENT && c->h_qp) {
		ib_api_status_t st = kc_qp_to(c->id, c->h_qp, IB_QPS_RTS, 0);

		if (st != IB_SUCCESS)
			IBAL_DBG(IBAL_SUB_CM, "RTU: QP to RTS failed: %s", ib_get_err_str(st));
		c->state = KC_EST;
		e = kc_ev_new(c, KE_RTU, (void *)c->pfn_rtu);
		if (e) {
			e->rec.rtu.p_rtu_pdata = e->pdata;
			e->rec.rtu.h_qp = c->h_qp;
			e->rec.rtu.qp_context = c->qp_context;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	if (e)
		kc_ev_queue(e);
}

static ib_rej_status_t rej_reason(const kc_rx_t *r)
{
	if (r->type == RDMA_CM_EVENT_UNREACHABLE || r->type == RDMA_CM_EVENT_CONNECT_ERROR)
		return IB_REJ_TIMEOUT;
	if (r->pdata_len >= sizeof(KC_NOSID_MAGIC) - 1 &&
	    !memcmp(r->pdata, KC_NOSID_MAGIC, sizeof(KC_NOSID_MAGIC) - 1))
		return IB_REJ_INVALID_SID;
	if (r->status > 0 && r->status < 0x10000)
		return cl_hton16((uint16_t)r->status);
	return IB_REJ_TIMEOUT;
}

/* A REJ, or the REQ/REP given up. */
static void rx_rej(kc_conn_t *c, kc_rx_t *r)
{
	ib_rej_status_t reason = rej_reason(r);
	boolean_t nosid = reason == IB_REJ_INVALID_SID;

	pthread_mutex_lock(&kc.lock);
	if (c->state == KC_DEAD || c->state == KC_TIMEWAIT) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	kc_conn_fail_unlock(c, reason, nosid ? NULL : r->pdata, nosid ? 0 : (uint8_t)r->pdata_len);
}

static void rx_disconnected(kc_conn_t *c, kc_rx_t *r)
{
	kc_ev_t *e = NULL;

	pthread_mutex_lock(&kc.lock);
	switch (c->state) {
	case KC_EST:
	case KC_REP_SENT:
	case KC_REP_RCVD:
		if (c->h_qp)
			al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
		c->state = KC_DREQ_RCVD;
		e = kc_ev_new(c, KE_DREQ, (void *)c->pfn_dreq);
		if (e) {
			e->rec.dreq.h_cm_dreq = kc_conn_handle(c);
			e->rec.dreq.p_dreq_pdata = e->pdata;
			e->rec.dreq.qp_context = c->qp_context;
		} else {
			rdma_disconnect(c->id);  /* no callback: answer at once */
			kc_enter_timewait_locked(c);
		}
		break;
	case KC_DREQ_SENT:
		kc_enter_timewait_locked(c);
		e = kc_ev_new(c, KE_DREP, (void *)c->pfn_drep);
		if (e) {
			e->rec.drep.cm_status = r->status ? IB_TIMEOUT : IB_SUCCESS;
			e->rec.drep.p_drep_pdata = e->pdata;
			e->rec.drep.h_qp = c->h_qp;
			e->rec.drep.qp_context = c->qp_context;
		}
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&kc.lock);
	if (e)
		kc_ev_queue(e);
}

static void rx_conn_event(kc_rx_t *r)
{
	kc_conn_t *c = NULL;

	pthread_mutex_lock(&kc.lock);
	if (!kc_lport_of_id_locked(r->id))
		c = kc_conn_get_locked((uint32_t)(uintptr_t)r->id->context);
	pthread_mutex_unlock(&kc.lock);
	if (!c)
		return;
	switch (r->type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rx_resolved(c, r);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		pthread_mutex_lock(&kc.lock);
		kc_conn_fail_unlock(c, IB_REJ_INVALID_GID, NULL, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		rx_rep(c, r);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rx_established(c);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rx_rej(c, r);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		rx_disconnected(c, r);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pthread_mutex_lock(&kc.lock);
		kc_conn_unbind_locked(c);
		pthread_mutex_unlock(&kc.lock);
		kc_conn_end(c);
		break;
	default:
		break;
	}
	al_obj_deref(&c->obj);
}

void *kc_thread(void *arg)
{
	struct pollfd fds[2];
	struct rdma_cm_event *ev;
	kc_rx_t *r = (kc_rx_t *)cl_malloc(sizeof(*r));

	(void)arg;
	if (!r)
		return NULL;
	fds[0].fd = kc.ch->fd;
	fds[0].events = POLLIN;
	fds[1].fd = kc.stop_fd;
	fds[1].events = POLLIN;
	for (;;) {
		uint64_t v;

		if (poll(fds, 2, kc_timewait_run()) < 0 && errno != EINTR)
			break;
		if (fds[1].revents && read(kc.stop_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		if (__atomic_load_n(&kc.stop, __ATOMIC_ACQUIRE))
			break;
		while (!rdma_get_cm_event(kc.ch, &ev)) {
			rx_copy(ev, r);
			rdma_ack_cm_event(ev);
			IBAL_DBG(IBAL_SUB_CM, "event %s status %d", rdma_event_str(r->type), r->status);
			if (r->type == RDMA_CM_EVENT_CONNECT_REQUEST)
				rx_req(r);
			else if (r->id)
				rx_conn_event(r);
		}
	}
	cl_free(r);
	return NULL;
}

#else /* !HAVE_AL_CM_KERN */
typedef int al_cm_kern_events_unused_t;
#endif /* HAVE_AL_CM_KERN */
