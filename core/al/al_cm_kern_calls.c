/*
 * ibal access layer: the ib_cm_* calls through librdmacm (kc_ops: req, rep, rtu, rej, mra, dreq, drep, listen, cancel).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_cm_kern.c for the design and al_cm_kern_int.h for what the files share.
 */
#include "al_cm_kern_int.h"

#ifdef HAVE_AL_CM_KERN

/* ---- the calls ---- */

/* What the calls need to know of a QP's CA, from the access layer's CA
 * attributes (the provider's, as ib_query_ca gives them). */
typedef struct kc_ca_facts {
	uint8_t port;            /* the port with the GID asked for */
	uint16_t pkey_index;     /* its index of the P_Key asked for (0 if none matches) */
	int ib;                  /* that port's link is InfiniBand */
	uint32_t ifindex;        /* Ethernet: the interface with the GID as an address, or 0 */
	uint8_t max_resp_res;    /* the CA's responder resources per QP */
	uint8_t max_init_depth;  /* the CA's initiator depth per QP */
} kc_ca_facts_t;

/* The port of @p gid in @p a, or 0; fills the port's facts. */
static uint8_t port_of_gid(const ib_ca_attr_t *a, const ib_gid_t *gid, ib_net16_t pkey,
			   kc_ca_facts_t *f)
{
	uint16_t i;
	uint8_t p;

	for (p = 0; p < a->num_ports; p++) {
		const ib_port_attr_t *pa = &a->p_port_attr[p];

		for (i = 0; i < pa->num_gids; i++)
			if (!memcmp(pa->p_gid_table[i].raw, gid->raw, 16))
				break;
		if (i == pa->num_gids)
			continue;
		f->port = pa->port_num;
		f->ib = pa->transport == RDMA_TRANSPORT_IB;
		f->ifindex = f->ib ? 0 : kc_gid_ifindex(gid);
		f->pkey_index = al_cm_pkey_find(pa->p_pkey_table, pa->num_pkeys, pkey, NULL);
		return f->port;
	}
	return 0;
}

/*
 * The facts of the last ca_facts() that queried its CA, kept while no
 * port_change upcall came since (al_ca_attr_gen()): a REQ or REP queried the
 * whole CA (through the verbs provider, device, ports, GID and P_Key tables:
 * some thirty system calls) and the REQ looked up its GID's interface
 * (getifaddrs). A GID the memo does not hold is queried afresh, so a GID just
 * added is found at once. kc.lock.
 */
static struct {
	boolean_t valid, has_gid;
	ib_net64_t guid;
	uint32_t gen;
	ib_gid_t gid;
	ib_net16_t pkey;
	kc_ca_facts_t f;
} facts_memo;

/* Takes the memo's facts for (@p guid, @p gid, @p pkey) into @p f if it has them. */
static boolean_t facts_memo_get(ib_net64_t guid, const ib_gid_t *gid, ib_net16_t pkey,
				kc_ca_facts_t *f)
{
	boolean_t hit;

	pthread_mutex_lock(&kc.lock);
	hit = facts_memo.valid && facts_memo.guid == guid && facts_memo.gen == al_ca_attr_gen() &&
	      (!gid || (facts_memo.has_gid && facts_memo.pkey == pkey &&
			!memcmp(&facts_memo.gid, gid, sizeof(*gid))));
	if (hit) {
		if (gid) {
			*f = facts_memo.f;
		} else { /* a REP's: the CA's limits only */
			f->max_resp_res = facts_memo.f.max_resp_res;
			f->max_init_depth = facts_memo.f.max_init_depth;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	return hit;
}

/* Keeps @p f, read from the CA's attributes as they were at @p gen. */
static void facts_memo_put(ib_net64_t guid, uint32_t gen, const ib_gid_t *gid, ib_net16_t pkey,
			   const kc_ca_facts_t *f)
{
	pthread_mutex_lock(&kc.lock);
	/* A REP's facts do not replace a REQ's of the same CA and time. */
	if (gid || !facts_memo.valid || facts_memo.guid != guid || facts_memo.gen != gen) {
		facts_memo.valid = TRUE;
		facts_memo.guid = guid;
		facts_memo.gen = gen;
		facts_memo.has_gid = gid != NULL;
		if (gid)
			facts_memo.gid = *gid;
		facts_memo.pkey = pkey;
		facts_memo.f = *f;
	}
	pthread_mutex_unlock(&kc.lock);
}

/* The facts of @p p_qp's CA; with @p gid, of the port that has it
 * (IB_INVALID_SETTING when none has). */
static ib_api_status_t ca_facts(al_qp_t *p_qp, const ib_gid_t *gid, ib_net16_t pkey,
				kc_ca_facts_t *f)
{
	al_ci_ca_t *p_ci = p_qp->p_pd->p_ca->p_ci;
	uint32_t gen = al_ca_attr_gen(); /* before the query: a change meanwhile voids it */
	ib_ca_attr_t *a;
	ib_api_status_t st;

	memset(f, 0, sizeof(*f));
	if (facts_memo_get(p_ci->guid, gid, pkey, f))
		return IB_SUCCESS;
	st = al_ci_ca_query_alloc(p_ci, &a);
	if (st != IB_SUCCESS)
		return st;
	f->max_resp_res = a->max_qp_resp_res;
	f->max_init_depth = a->max_qp_init_depth;
	if (gid && !port_of_gid(a, gid, pkey, f))
		st = IB_INVALID_SETTING;
	cl_free(a);
	if (st == IB_SUCCESS)
		facts_memo_put(p_ci->guid, gen, gid, pkey, f);
	return st;
}

static uint8_t clamp_rd(uint8_t v, uint8_t max)
{
	return v < max ? v : max;
}

static ib_api_status_t sync_enter(ib_al_flags_t flags, cl_event_t *p_ev, boolean_t *p_on)
{
	*p_on = (flags & IB_FLAGS_SYNC) != 0;
	if (!*p_on)
		return IB_SUCCESS;
	if (al_is_cb_thread())
		return IB_INVALID_STATE;
	cl_event_construct(p_ev);
	return cl_event_init(p_ev, FALSE) == CL_SUCCESS ? IB_SUCCESS : IB_INSUFFICIENT_RESOURCES;
}

static void sync_leave(boolean_t on, cl_event_t *p_ev, ib_api_status_t st)
{
	if (!on)
		return;
	if (st == IB_SUCCESS)
		cl_event_wait_on(p_ev, EVENT_NO_TIMEOUT, FALSE);
	cl_event_destroy(p_ev);
}

/* The active connection's fields from the request and its QP's attributes
 * @p qa; kc.lock held. off: the bytes of service ID header before the
 * private data (IP CM only). */
static void conn_from_req(kc_conn_t *c, const ib_cm_req_t *r, al_qp_t *p_qp,
			  const ib_qp_attr_t *qa, const kc_ca_facts_t *f, uint32_t off)
{
	const ib_path_rec_t *pp = r->p_primary_path;

	c->active = TRUE;
	c->state = KC_RESOLVING;
	c->h_qp = r->h_qp;
	c->p_qp = p_qp;
	c->qp_context = p_qp->v.obj.context;
	c->qp_type = r->qp_type;
	c->svc_id = cl_ntoh64(r->svc_id);
	c->ib = f->ib;
	c->path = *pp;
	c->twait_ms = kc_twait_of(ib_path_rec_pkt_life(pp));
	c->pfn_rep = r->pfn_cm_rep_cb;
	c->pfn_rej = r->pfn_cm_rej_cb;
	if (off) {
		ib_net64_t hdr = r->svc_id;

		memcpy(c->req_pdata, &hdr, sizeof(hdr));
	}
	if (r->req_length)
		memcpy(c->req_pdata + off, r->p_req_pdata, r->req_length);
	c->cp.private_data_len = (uint8_t)(off + r->req_length);
	c->cp.responder_resources = clamp_rd(r->resp_res, f->max_resp_res);
	c->cp.initiator_depth = clamp_rd(r->init_depth, f->max_init_depth);
	c->cp.flow_control = r->flow_ctrl ? 1 : 0;
	c->cp.retry_count = r->retry_cnt > 7 ? 7 : r->retry_cnt;
	c->cp.rnr_retry_count = r->rnr_retry_cnt > 7 ? 7 : r->rnr_retry_cnt;
	/* The QP's number and SRQ never change: rdma_connect takes them from
	 * here when the route is resolved. */
	c->cp.qp_num = cl_ntoh32(qa->num);
	c->cp.srq = qa->h_srq != NULL;
}

/* Starts resolving the path's destination address: a new rdma_cm ID for
 * the connection; 0 or an errno. kc.lock held. */
static int conn_resolve(kc_conn_t *c, const ib_path_rec_t *pp, int ib, uint32_t ifindex)
{
	struct sockaddr_storage src, dst;

	if (rdma_create_id(kc.ch, &c->id, (void *)(uintptr_t)c->cid, ib ? RDMA_PS_IB : RDMA_PS_TCP))
		return errno;
	kc_gid_addr(&pp->sgid, ib, ifindex, pp->pkey, 0, (struct sockaddr *)&src);
	kc_gid_addr(&pp->dgid, ib, ifindex, pp->pkey, c->svc_id, (struct sockaddr *)&dst);
	if (ib) {
		((struct sockaddr_ib *)&src)->sib_sid = 0;
		((struct sockaddr_ib *)&src)->sib_sid_mask = 0;
	} else if (src.ss_family == AF_INET) {
		((struct sockaddr_in *)&src)->sin_port = 0;   /* any local port */
	} else {
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
	}
	/* A source of another family than the destination (the port's
	 * link-local GID to an IPv4-mapped one): the kernel picks it. */
	return rdma_resolve_addr(c->id, src.ss_family == dst.ss_family ? (struct sockaddr *)&src : NULL,
				 (struct sockaddr *)&dst, 4000) ? errno : 0;
}

/* The QP of a request: RESET, then INIT on the path's port (posting receives works now). */
static ib_api_status_t kc_req_qp_init(ib_qp_handle_t h_qp, ib_qp_state_t cur, uint8_t port,
				      uint16_t pkey_index)
{
	ib_qp_mod_t m;

	if (cur != IB_QPS_RESET)
		al_cm_qp_to_state(h_qp, IB_QPS_RESET);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = port;
	m.state.init.pkey_index = pkey_index;
	m.state.init.access_ctrl = IB_AC_LOCAL_WRITE;
	return ib_modify_qp(h_qp, &m);
}

static ib_api_status_t kc_req(const ib_cm_req_t *r, al_qp_t *p_qp)
{
	const ib_path_rec_t *pp = r->p_primary_path;
	uint32_t max_pdata, off = 0;
	ib_qp_attr_t qa;
	kc_conn_t *c;
	kc_ca_facts_t f;
	int err;
	ib_api_status_t st;
	cl_event_t sync;
	boolean_t do_sync;

	if (r->qp_type != IB_QPT_RELIABLE_CONN || r->p_alt_path || r->pfn_cm_req_cb)
		return IB_UNSUPPORTED;  /* UC, failover, peer-to-peer: not through the kernel CM */
	st = ib_query_qp(r->h_qp, &qa);
	if (st != IB_SUCCESS)
		return st;
	if (qa.qp_type != r->qp_type)
		return IB_INVALID_SETTING;
	if (qa.state != IB_QPS_RESET && qa.state != IB_QPS_INIT)
		return IB_INVALID_QP_STATE;
	st = ca_facts(p_qp, &pp->sgid, pp->pkey, &f);
	if (st != IB_SUCCESS)
		return st;
	if (!f.ib && !kc_sid_is_tcp(cl_ntoh64(r->svc_id)))
		off = KC_SID_HDR;
	max_pdata = f.ib ? IB_REQ_PDATA_SIZE : KC_IP_REQ_PDATA - off;
	if (r->req_length > max_pdata)
		return IB_INVALID_SETTING;
	pthread_mutex_lock(&kc.lock);
	st = kc_conn_by_qp_locked(p_qp) ? IB_INVALID_STATE : kc_start_locked();
	pthread_mutex_unlock(&kc.lock);
	if (st != IB_SUCCESS)
		return st;
	st = sync_enter(r->flags, &sync, &do_sync);
	if (st != IB_SUCCESS)
		return st;
	st = kc_req_qp_init(r->h_qp, qa.state, f.port, f.pkey_index);
	if (st == IB_SUCCESS)
		st = kc_conn_new(p_qp->p_pd->p_ca->v.obj.p_parent, &c);
	if (st != IB_SUCCESS)
		goto fail_sync;
	pthread_mutex_lock(&kc.lock);
	conn_from_req(c, r, p_qp, &qa, &f, off);
	if (do_sync) {
		c->p_sync = &sync;
		c->sync_kinds = 1u << KE_REP | 1u << KE_REJ;
	}
	err = conn_resolve(c, pp, f.ib, f.ifindex);
	if (err) {
		IBAL_DBG(IBAL_SUB_CM, "REQ: resolve: %s", strerror(err));
		c->p_sync = NULL;
		pthread_mutex_unlock(&kc.lock);
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
		kc_conn_end(c);
		st = verbs_errno_status(err);
		goto fail_sync;
	}
	pthread_mutex_unlock(&kc.lock);
	sync_leave(do_sync, &sync, IB_SUCCESS);
	return IB_SUCCESS;
fail_sync:
	sync_leave(do_sync, &sync, st);
	return st;
}

/* The QP a REP offers: RC, in RESET or INIT, of the REQ's device. */
static ib_api_status_t kc_rep_qp_check(const ib_cm_rep_t *r, const al_qp_t *p_qp,
				       ib_net64_t dev_guid, ib_qp_attr_t *p_qa)
{
	ib_api_status_t st = ib_query_qp(r->h_qp, p_qa);

	if (st != IB_SUCCESS)
		return st;
	if (p_qa->qp_type != IB_QPT_RELIABLE_CONN)
		return IB_INVALID_SETTING;
	if (p_qa->state != IB_QPS_RESET && p_qa->state != IB_QPS_INIT)
		return IB_INVALID_QP_STATE;
	if (p_qp->p_pd->p_ca->p_ci->guid != dev_guid)
		return IB_INVALID_SETTING;  /* a QP of another CA than the REQ's */
	return IB_SUCCESS;
}

/* The REP's QP through RESET and INIT to RTR on the connection's ID, then
 * the user's receives; back to RESET on failure. kc.lock held. */
static ib_api_status_t kc_rep_qp_rtr(kc_conn_t *c, const ib_cm_rep_t *r, ib_qp_state_t cur)
{
	ib_api_status_t st;

	if (cur != IB_QPS_RESET)
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
	st = kc_qp_to(c->id, r->h_qp, IB_QPS_INIT, r->access_ctrl | IB_AC_LOCAL_WRITE);
	if (st == IB_SUCCESS)
		st = kc_qp_to(c->id, r->h_qp, IB_QPS_RTR, 0);
	if (st == IB_SUCCESS && r->p_recv_wr)
		st = ib_post_recv(r->h_qp, r->p_recv_wr, r->pp_recv_failure);
	if (st != IB_SUCCESS)
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
	return st;
}

/* What rdma_accept() sends for a REP. */
static void rep_conn_param(struct rdma_conn_param *cp, const kc_conn_t *c, const ib_cm_rep_t *r,
			   const kc_ca_facts_t *f, const ib_qp_attr_t *p_qa)
{
	memset(cp, 0, sizeof(*cp));
	cp->private_data = r->p_rep_pdata;
	cp->private_data_len = r->rep_length;
	cp->responder_resources = clamp_rd(c->peer_init_depth, f->max_resp_res);
	cp->initiator_depth =
		clamp_rd(r->init_depth < c->peer_resp_res ? r->init_depth : c->peer_resp_res,
			 f->max_init_depth);
	cp->flow_control = r->flow_ctrl ? 1 : 0;
	cp->rnr_retry_count = r->rnr_retry_cnt > 7 ? 7 : r->rnr_retry_cnt;
	cp->qp_num = cl_ntoh32(p_qa->num);
	cp->srq = p_qa->h_srq != NULL;
}

static ib_api_status_t kc_rep(const ib_cm_handle_t *h, const ib_cm_rep_t *r)
{
	kc_conn_t *c;
	al_qp_t *p_qp;
	ib_qp_attr_t qa;
	struct rdma_conn_param cp;
	ib_api_status_t st;
	cl_event_t sync;
	boolean_t do_sync = FALSE;
	ib_net64_t dev_guid = 0;
	kc_ca_facts_t f;
	int err;

	st = kc_conn_of_handle(h, r, &c);
	if (st != IB_SUCCESS)
		return st;
	st = c->state == KC_REQ_RCVD ? IB_SUCCESS : IB_INVALID_STATE;
	if (st == IB_SUCCESS)
		dev_guid = (ib_net64_t)ibv_get_device_guid(c->id->verbs->device);
	pthread_mutex_unlock(&kc.lock);
	if (st != IB_SUCCESS) {
		al_obj_deref(&c->obj);
		return st;
	}
	if (r->qp_type != IB_QPT_RELIABLE_CONN || (r->rep_length && !r->p_rep_pdata) ||
	    (r->p_recv_wr && !r->pp_recv_failure)) {
		al_obj_deref(&c->obj);
		return r->qp_type != IB_QPT_RELIABLE_CONN ? IB_INVALID_SETTING : IB_INVALID_PARAMETER;
	}
	p_qp = (al_qp_t *)AL_ENTER(r->h_qp, AL_HDL_QP);
	if (!p_qp) {
		al_obj_deref(&c->obj);
		return IB_INVALID_QP_HANDLE;
	}
	st = sync_enter(r->flags, &sync, &do_sync);
	if (st != IB_SUCCESS)
		goto out_qp;
	st = kc_rep_qp_check(r, p_qp, dev_guid, &qa);
	if (st == IB_SUCCESS)
		st = ca_facts(p_qp, NULL, 0, &f);
	if (st != IB_SUCCESS)
		goto out_sync;
	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_REQ_RCVD || kc_conn_by_qp_locked(p_qp)) {
		st = IB_INVALID_STATE;
		goto out_locked;
	}
	st = kc_rep_qp_rtr(c, r, qa.state);
	if (st != IB_SUCCESS)
		goto out_locked;
	c->h_qp = r->h_qp;
	c->p_qp = p_qp;
	c->qp_context = p_qp->v.obj.context;
	c->access = r->access_ctrl;
	c->pfn_rej = r->pfn_cm_rej_cb;
	c->pfn_rtu = r->pfn_cm_rtu_cb;
	c->pfn_dreq = r->pfn_cm_dreq_cb;
	rep_conn_param(&cp, c, r, &f, &qa);
	err = rdma_accept(c->id, &cp) ? errno : 0;
	if (err) {
		IBAL_DBG(IBAL_SUB_CM, "REP: rdma_accept: %s", strerror(err));
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
		kc_conn_unbind_locked(c);
		st = verbs_errno_status(err);
		goto out_locked;
	}
	c->state = KC_REP_SENT;
	if (do_sync) {
		c->p_sync = &sync;
		c->sync_kinds = 1u << KE_RTU | 1u << KE_REJ;
	}
out_locked:
	pthread_mutex_unlock(&kc.lock);
out_sync:
	if (st != IB_SUCCESS)
		IBAL_DBG(IBAL_SUB_CM, "ib_cm_rep: %s", ib_get_err_str(st));
	sync_leave(do_sync, &sync, st);
out_qp:
	AL_EXIT(r->h_qp);
	al_obj_deref(&c->obj);
	return st;
}

static ib_api_status_t kc_rtu(const ib_cm_handle_t *h, const ib_cm_rtu_t *r)
{
	kc_conn_t *c;
	ib_api_status_t st = kc_conn_of_handle(h, r, &c);

	if (st != IB_SUCCESS)
		return st;
	if (r->rtu_length)
		st = r->p_rtu_pdata ? IB_UNSUPPORTED : IB_INVALID_SETTING;  /* no RTU data through librdmacm */
	else if (c->state != KC_REP_RCVD || !c->h_qp)
		st = IB_INVALID_STATE;
	if (st == IB_SUCCESS)
		st = kc_qp_to(c->id, c->h_qp, IB_QPS_RTS, r->access_ctrl);
	if (st == IB_SUCCESS) {
		if (rdma_establish(c->id)) {
			st = verbs_errno_status(errno);
		} else {
			c->state = KC_EST;
			c->pfn_dreq = r->pfn_cm_dreq_cb;
		}
	}
	kc_conn_put_unlock(c);
	return st;
}

static ib_api_status_t kc_rej(const ib_cm_handle_t *h, const ib_cm_rej_t *r)
{
	kc_conn_t *c;
	ib_api_status_t st = kc_conn_of_handle(h, r, &c);
	boolean_t end = FALSE;

	if (st != IB_SUCCESS)
		return st;
	if (r->rej_length > IB_REJ_PDATA_SIZE || (r->rej_length && !r->p_rej_pdata) ||
	    r->ari_length > IB_ARI_SIZE || (r->ari_length && !r->p_ari))
		st = IB_INVALID_SETTING;
	else if (c->state != KC_REQ_RCVD && c->state != KC_REP_RCVD)
		st = IB_INVALID_STATE;
	else if (rdma_reject(c->id, r->p_rej_pdata, r->rej_length))
		st = verbs_errno_status(errno);
	if (st == IB_SUCCESS) {
		if (c->h_qp)
			al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
		c->state = KC_DEAD;
		end = TRUE;
	}
	pthread_mutex_unlock(&kc.lock);
	if (end)
		kc_conn_end(c);
	al_obj_deref(&c->obj);
	return st;
}

static ib_api_status_t kc_dreq(const ib_cm_dreq_t *r)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(r->h_qp, AL_HDL_QP);
	kc_conn_t *c;
	ib_api_status_t st = IB_SUCCESS;
	cl_event_t sync;
	boolean_t do_sync = FALSE;

	if (!p_qp)
		return IB_NOT_FOUND;  /* ibal's CM gives the status */
	pthread_mutex_lock(&kc.lock);
	c = kc_conn_by_qp_locked(p_qp);
	if (c)
		al_obj_ref(&c->obj);
	pthread_mutex_unlock(&kc.lock);
	if (!c) {
		AL_EXIT(r->h_qp);
		return IB_NOT_FOUND;
	}
	if (r->dreq_length)
		st = IB_UNSUPPORTED;  /* librdmacm sends no DREQ private data */
	else if (!r->pfn_cm_drep_cb)
		st = IB_INVALID_SETTING;
	if (st == IB_SUCCESS)
		st = sync_enter(r->flags, &sync, &do_sync);
	if (st != IB_SUCCESS)
		goto out;
	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_EST) {
		st = IB_INVALID_STATE;
	} else {
		al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
		c->pfn_drep = r->pfn_cm_drep_cb;
		c->state = KC_DREQ_SENT;
		if (do_sync) {
			c->p_sync = &sync;
			c->sync_kinds = 1u << KE_DREP;
		}
		if (rdma_disconnect(c->id)) {
			st = verbs_errno_status(errno);
			c->p_sync = NULL;
			c->state = KC_EST;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	sync_leave(do_sync, &sync, st);
out:
	al_obj_deref(&c->obj);
	AL_EXIT(r->h_qp);
	return st;
}

static ib_api_status_t kc_drep(const ib_cm_handle_t *h, const ib_cm_drep_t *r)
{
	kc_conn_t *c;
	ib_api_status_t st = kc_conn_of_handle(h, r, &c);

	if (st != IB_SUCCESS)
		return st;
	if (r->drep_length)
		st = r->p_drep_pdata ? IB_UNSUPPORTED : IB_INVALID_SETTING;  /* no DREP data either */
	else if (c->state != KC_DREQ_RCVD)
		st = IB_INVALID_STATE;
	else if (rdma_disconnect(c->id))
		st = verbs_errno_status(errno);
	if (st == IB_SUCCESS)
		kc_enter_timewait_locked(c);
	kc_conn_put_unlock(c);
	return st;
}

/* Handoff: the REQ goes to the listen of another service ID of this process. */
static ib_api_status_t kc_handoff(const ib_cm_handle_t *h, ib_net64_t svc_id)
{
	kc_conn_t *c;
	al_listen_t *p_l;
	kc_ev_t *e;
	ib_api_status_t st = kc_conn_of_handle(h, &svc_id, &c);

	if (st != IB_SUCCESS)
		return st;
	if (c->state != KC_REQ_RCVD) {
		kc_conn_put_unlock(c);
		return IB_INVALID_STATE;
	}
	p_l = kc_listen_match_locked(cl_ntoh64(svc_id), IB_ALL_CAS, NULL, 0);
	pthread_mutex_unlock(&kc.lock);
	if (!p_l) {
		al_obj_deref(&c->obj);
		return IB_INVALID_PARAMETER;
	}
	e = kc_ev_new(c, KE_REQ, (void *)p_l->info.pfn_cm_req_cb);
	if (!e) {
		al_obj_deref(&p_l->obj);
		al_obj_deref(&c->obj);
		return IB_INSUFFICIENT_MEMORY;
	}
	e->p_listen = p_l;
	e->rec.req.context = p_l->obj.context;
	e->rec.req.h_cm_req = *h;
	e->rec.req.h_cm_listen = (ib_listen_handle_t)al_obj_h(&p_l->obj);
	e->rec.req.p_req_pdata = e->pdata;
	e->rec.req.qp_type = IB_QPT_RELIABLE_CONN;
	e->rec.req.resp_res = c->peer_resp_res;
	kc_ev_queue(e);
	al_obj_deref(&c->obj);
	return IB_SUCCESS;
}

static boolean_t kc_has_qp(ib_qp_handle_t h_qp)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	boolean_t has;

	if (!p_qp)
		return FALSE;
	pthread_mutex_lock(&kc.lock);
	has = kc_conn_by_qp_locked(p_qp) != NULL;
	pthread_mutex_unlock(&kc.lock);
	AL_EXIT(h_qp);
	return has;
}

static void kc_qp_destroying(void *p_qp)
{
	kc_conn_t *c;

	pthread_mutex_lock(&kc.lock);
	c = kc_conn_by_qp_locked(p_qp);
	if (c) {
		al_obj_ref(&c->obj);
		kc_conn_unbind_locked(c);
	}
	pthread_mutex_unlock(&kc.lock);
	if (!c)
		return;
	kc_conn_end(c);  /* rdma_destroy_id: DREQ or REJ to the peer */
	al_obj_deref(&c->obj);
}

const al_cm_kern_ops_t kc_ops = {
	.owns_ca = kc_owns_ca,
	.listen = kc_listen,
	.cancel = kc_cancel,
	.req = kc_req,
	.rep = kc_rep,
	.rtu = kc_rtu,
	.rej = kc_rej,
	.dreq = kc_dreq,
	.drep = kc_drep,
	.handoff = kc_handoff,
	.has_qp = kc_has_qp,
	.qp_destroying = kc_qp_destroying,
};

#else /* !HAVE_AL_CM_KERN */
typedef int al_cm_kern_calls_unused_t;
#endif /* HAVE_AL_CM_KERN */
