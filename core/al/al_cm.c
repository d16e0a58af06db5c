/*
 * ibal access layer: the connection manager's calls (ib_cm_listen .. ib_cm_handoff).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_cm_int.h for the locks and docs/cm.md for the protocol.
 */
#include "al_cm_int.h"
#include "al_client.h"

const al_cm_kern_ops_t *al_cm_kern;

/* The kernel CM ops that run a handle's exchange (al_cm_kern.h), or NULL. */
static inline const al_cm_kern_ops_t *kern_of(const ib_cm_handle_t *h)
{
	return (cl_ntoh32(h->cid) & AL_CM_KERN_CID) ? al_cm_kern_get() : NULL;
}

static inline boolean_t is_kern(const ib_cm_handle_t *h)
{
	return (cl_ntoh32(h->cid) & AL_CM_KERN_CID) != 0;
}

/* Whether an optional buffer's length is over max, or nonzero without the buffer. */
static inline boolean_t pdata_bad(uint32_t len, uint32_t max, const void *p)
{
	return len > max || (len && !p);
}

/* ---- Listen ---- */

static void listen_destroying(al_obj_t *p_obj)
{
	al_listen_t *p_l = PARENT_STRUCT(p_obj, al_listen_t, obj);
	const al_cm_kern_ops_t *k = al_cm_kern_get();

	if (k)
		k->cancel(p_l);
	pthread_mutex_lock(&al_cm_g.lock);
	p_l->cancelled = TRUE;
	if (p_l->listed)
		al_cm_listen_index_locked(p_l, FALSE);
	p_l->listed = FALSE;
	al_cm_unlock();
}

static void listen_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_listen_t, obj));
	al_cm_put();
}

/* Validates a listen's restrictions against the local ports. */
static ib_api_status_t listen_check_port(cm_agents_t *p_ag, const ib_cm_listen_t *i)
{
	uint32_t k;
	boolean_t guid_ok = i->ca_guid == IB_ALL_CAS && i->port_guid == IB_ALL_PORTS;
	boolean_t lid_ok = i->lid == IB_ALL_LIDS, pkey_ok = i->pkey == IB_ALL_PKEYS;
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;
	uint16_t lid, base, n;

	/* A CA of the kernel CM's: its ops check it (RoCE: no LIDs). */
	if (i->ca_guid != IB_ALL_CAS && al_cm_kern_owns(i->ca_guid))
		return IB_SUCCESS;
	if (i->ca_guid == IB_ALL_CAS && i->port_guid != IB_ALL_PORTS && al_cm_kern_get())
		guid_ok = TRUE;
	if (!al_cm_n_ports(p_ag) && al_cm_kern_get())
		return IB_SUCCESS;
	if (i->ca_guid != IB_ALL_CAS || i->port_guid != IB_ALL_PORTS) {
		for (k = 0; k < al_cm_n_ports(p_ag); k++)
			if (al_cm_listen_covers(i, &p_ag->ports[k]))
				guid_ok = TRUE;
	}
	if (!guid_ok)
		return IB_INVALID_GUID;
	for (k = 0; k < al_cm_n_ports(p_ag) && (!lid_ok || !pkey_ok); k++) {
		cm_port_t *pp = &p_ag->ports[k];

		if (!al_cm_listen_covers(i, pp))
			continue;
		if (al_cm_port_attr(pp, &p_attr, &p_pa) != IB_SUCCESS)
			continue;
		lid = cl_ntoh16(i->lid);
		base = cl_ntoh16(p_pa->lid);
		n = (uint16_t)(1u << p_pa->lmc);
		if (!lid_ok && lid >= base && lid < base + n)
			lid_ok = TRUE;
		cl_free(p_attr);
		if (!pkey_ok) {
			boolean_t found;

			al_cm_pkey_index_of(pp, i->pkey, &found);
			pkey_ok = found;
		}
	}
	if (!lid_ok)
		return IB_INVALID_LID;
	if (!pkey_ok)
		return IB_INVALID_PKEY;
	return IB_SUCCESS;
}

/* Same service ID, same restrictions and same compare bytes: not unique.
 * Listens of a service ID must also compare the same bytes. al_cm_g.lock held. */
static ib_api_status_t listen_check_unique(const ib_cm_listen_t *i)
{
	cl_fmap_item_t *it;
	al_listen_t *p_l;
	uint64_t sid = cl_ntoh64(i->svc_id);

	al_cm_lists_init_locked();
	for (it = al_cm_idx_first(&al_cm_g.listens, sid, 0); it != cl_fmap_end(&al_cm_g.listens);
	     it = cl_fmap_next(it)) {
		if (((const cm_key_t *)cl_fmap_key(it))->a != sid)
			break;
		p_l = PARENT_STRUCT(PARENT_STRUCT(it, cm_index_t, item), al_listen_t, by_svc);
		if (p_l->info.svc_id != i->svc_id ||
		    (p_l->info.qp_type == IB_QPT_UNRELIABLE_DGRM) != (i->qp_type == IB_QPT_UNRELIABLE_DGRM))
			continue;
		if ((p_l->info.compare_length || i->compare_length) &&
		    (p_l->info.compare_offset != i->compare_offset ||
		     p_l->info.compare_length != i->compare_length))
			return IB_INVALID_SETTING;
		if (p_l->info.ca_guid == i->ca_guid && p_l->info.port_guid == i->port_guid &&
		    p_l->info.lid == i->lid && p_l->info.pkey == i->pkey &&
		    (!i->compare_length || !memcmp(p_l->cmp, i->p_compare_buffer, i->compare_length)))
			return IB_INVALID_SETTING;
	}
	return IB_SUCCESS;
}

/* A listen may get any number of requests at once: its ports' MAD
 * dispatchers make room before the first burst. */
static void listen_expect_bursts(cm_agents_t *p_ag, const ib_cm_listen_t *i)
{
	uint32_t k;

	for (k = 0; k < al_cm_n_ports(p_ag); k++)
		if (al_cm_listen_covers(i, &p_ag->ports[k]))
			al_cm_port_expect_burst(&p_ag->ports[k]);
}

ib_api_status_t ib_cm_listen(const ib_al_handle_t h_al, const ib_cm_listen_t *const p_cm_listen,
			     const void *const listen_context, ib_listen_handle_t *const ph_cm_listen)
{
	al_inst_t *p_inst;
	al_listen_t *p_l;
	cm_agents_t *p_ag;
	ib_api_status_t st;

	p_inst = al_inst_enter(h_al);
	if (!p_inst)
		return IB_INVALID_AL_HANDLE;
	if (!p_cm_listen || !p_cm_listen->pfn_cm_req_cb || !ph_cm_listen) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	if ((p_cm_listen->compare_length && !p_cm_listen->p_compare_buffer) ||
	    (unsigned)p_cm_listen->compare_offset + p_cm_listen->compare_length >
		    (p_cm_listen->qp_type == IB_QPT_UNRELIABLE_DGRM ? IB_SIDR_REQ_PDATA_SIZE : IB_REQ_PDATA_SIZE) ||
	    p_cm_listen->qp_type > IB_QPT_UNRELIABLE_DGRM || p_cm_listen->qp_type == IB_QPT_RELIABLE_DGRM) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	st = al_cm_get(&p_ag);
	if (st != IB_SUCCESS)
		goto out;
	st = listen_check_port(p_ag, p_cm_listen);
	if (st != IB_SUCCESS) {
		al_cm_put();
		goto out;
	}
	p_l = (al_listen_t *)cl_zalloc(sizeof(*p_l));
	if (!p_l) {
		al_cm_put();
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_l->info = *p_cm_listen;
	if (p_cm_listen->compare_length)
		memcpy(p_l->cmp, p_cm_listen->p_compare_buffer, p_cm_listen->compare_length);
	p_l->info.p_compare_buffer = p_l->cmp;
	al_obj_construct(&p_l->obj, AL_HDL_LISTEN);
	st = al_obj_init(&p_l->obj, &p_inst->obj, listen_context, listen_destroying, NULL, listen_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_l->obj);
		cl_free(p_l);
		al_cm_put();
		st = st == IB_INVALID_STATE ? IB_INVALID_AL_HANDLE : st;
		goto out;
	}
	st = al_obj_insert_handle(&p_l->obj);
	if (st == IB_SUCCESS) {
		pthread_mutex_lock(&al_cm_g.lock);
		st = listen_check_unique(p_cm_listen);
		if (st == IB_SUCCESS) {
			al_cm_listen_index_locked(p_l, TRUE);
			p_l->listed = TRUE;
		}
		al_cm_unlock();
	}
	if (st == IB_SUCCESS && al_cm_kern_get())
		st = al_cm_kern_get()->listen(p_l);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_l->obj, NULL);
		goto out;
	}
	listen_expect_bursts(p_ag, p_cm_listen);
	*ph_cm_listen = (ib_listen_handle_t)al_obj_h(&p_l->obj);
out:
	AL_EXIT(h_al);
	return st;
}

ib_api_status_t ib_cm_cancel(const ib_listen_handle_t h_cm_listen, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_cm_listen, AL_HDL_LISTEN, pfn_destroy_cb, IB_INVALID_HANDLE);
}

/* ---- Active side ---- */

/* Checks a path against a QP's CA; finds the agent port of its source. */
static ib_api_status_t path_port(cm_agents_t *p_ag, al_qp_t *p_qp, const ib_path_rec_t *p_path,
				 cm_port_t **pp_port)
{
	ib_net64_t ca_guid = p_qp->p_pd->p_ca->p_ci->guid;
	cm_port_t *pp = al_cm_port_by_gid(p_ag, &p_path->sgid);
	uint32_t k;
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;

	if (!pp)
		for (k = 0; k < al_cm_n_ports(p_ag) && !pp; k++) {
			if (p_ag->ports[k].ca_guid != ca_guid)
				continue;
			if (al_cm_port_attr(&p_ag->ports[k], &p_attr, &p_pa) != IB_SUCCESS)
				continue;
			if (p_pa->lid == p_path->slid)
				pp = &p_ag->ports[k];
			cl_free(p_attr);
		}
	if (!pp || pp->ca_guid != ca_guid)
		return IB_INVALID_SETTING;
	*pp_port = pp;
	return IB_SUCCESS;
}

static ib_api_status_t req_check(const ib_cm_req_t *r)
{
	if (!r->p_primary_path || !r->pfn_cm_rep_cb || !r->pfn_cm_rej_cb)
		return IB_INVALID_SETTING;
	if (pdata_bad(r->req_length, IB_REQ_PDATA_SIZE, r->p_req_pdata))
		return IB_INVALID_SETTING;
	if (r->qp_type != IB_QPT_RELIABLE_CONN && r->qp_type != IB_QPT_UNRELIABLE_CONN)
		return IB_INVALID_SETTING;
	if (ib_path_rec_pkt_life(r->p_primary_path) > 31 || r->max_cm_retries > 15 ||
	    r->remote_resp_timeout > 31 || r->local_resp_timeout > 31)
		return IB_INVALID_SETTING;
	if (r->p_alt_path && ib_path_rec_mtu(r->p_alt_path) != ib_path_rec_mtu(r->p_primary_path))
		return IB_INVALID_SETTING;
	return IB_SUCCESS;
}

/* ib_cm_req for a UD service: a SIDR_REQ from the port of the path. */
static ib_api_status_t sidr_req(const ib_cm_req_t *r)
{
	al_inst_t *p_inst;
	al_cep_t *p_cep;
	cm_port_t *p_port = NULL;
	al_cm_msg_t m;
	ib_api_status_t st;
	uint32_t k;
	cm_sync_t sync;
	boolean_t do_sync = FALSE;

	p_inst = al_inst_enter(r->h_al);
	if (!p_inst)
		return IB_INVALID_AL_HANDLE;
	if (!r->p_primary_path || !r->pfn_cm_rep_cb || !r->pfn_cm_rej_cb ||
	    pdata_bad(r->req_length, IB_SIDR_REQ_PDATA_SIZE, r->p_req_pdata) ||
	    r->max_cm_retries > 15) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	st = al_cm_cep_create(&p_inst->obj, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	p_port = al_cm_port_by_gid(p_cep->p_agents, &r->p_primary_path->sgid);
	for (k = 0; !p_port && k < al_cm_n_ports(p_cep->p_agents); k++) {
		ib_ca_attr_t *p_attr;
		ib_port_attr_t *p_pa;

		if (al_cm_port_attr(&p_cep->p_agents->ports[k], &p_attr, &p_pa) != IB_SUCCESS)
			continue;
		if (p_pa->lid == r->p_primary_path->slid)
			p_port = &p_cep->p_agents->ports[k];
		cl_free(p_attr);
	}
	if (!p_port) {
		al_obj_destroy(&p_cep->obj, NULL);
		st = IB_INVALID_SETTING;
		goto out;
	}
	p_cep->active = TRUE;
	p_cep->qp_type = IB_QPT_UNRELIABLE_DGRM;
	p_cep->p_port = p_port;
	p_cep->path = *r->p_primary_path;
	p_cep->dlid = r->p_primary_path->dlid;
	p_cep->sl = ib_path_rec_sl(r->p_primary_path);
	p_cep->pkey_index = al_cm_pkey_index_of(p_port, r->pkey ? r->pkey : r->p_primary_path->pkey, NULL);
	p_cep->pktlife_ms = al_cm_time_ms(ib_path_rec_pkt_life(r->p_primary_path));
	p_cep->pfn_rep = r->pfn_cm_rep_cb;
	p_cep->pfn_rej = r->pfn_cm_rej_cb;
	p_cep->sidr_context = r->sidr_context;
	p_cep->sidr_service_id = cl_ntoh64(r->svc_id);
	memset(&m, 0, sizeof(m));
	m.sidr_req.pkey = cl_ntoh16(r->pkey ? r->pkey : r->p_primary_path->pkey);
	m.sidr_req.service_id = p_cep->sidr_service_id;
	if (r->req_length)
		memcpy(m.sidr_req.private_data, r->p_req_pdata, r->req_length);
	st = al_cm_sync_init(r->flags, 1u << EV_REP | 1u << EV_REJ, &sync, &do_sync);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_cep->obj, NULL);
		goto out;
	}
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_cep_insert_locked(p_cep);
	m.sidr_req.request_id = p_cep->local_id;
	p_cep->tid = al_cm_new_tid();
	p_cep->state = AL_CM_SIDR_REQ_SENT;
	if (do_sync)
		__atomic_store_n(&p_cep->p_sync, &sync, __ATOMIC_RELAXED);
	al_cm_cep_send(p_cep, AL_CM_MSG_SIDR_REQ, &m);
	al_cm_timer_arm(p_cep, (r->timeout_ms ? r->timeout_ms : 1000) + 2 * p_cep->pktlife_ms,
		  r->max_cm_retries);
	al_cm_unlock();
out:
	AL_EXIT(r->h_al);
	if (do_sync)
		al_cm_sync_wait(&sync);
	return st;
}

/* The QP of an ib_cm_req: of the request's type, in RESET or INIT, and not
 * bound to another connection. Its attributes in *p_qa. */
static ib_api_status_t req_qp_check(const ib_cm_req_t *r, al_qp_t *p_qp, ib_qp_attr_t *p_qa)
{
	ib_api_status_t st = ib_query_qp(r->h_qp, p_qa);

	if (st != IB_SUCCESS)
		return st;
	if (p_qa->qp_type != r->qp_type)
		return IB_INVALID_SETTING;
	if (p_qa->state != IB_QPS_RESET && p_qa->state != IB_QPS_INIT)
		return IB_INVALID_QP_STATE;
	pthread_mutex_lock(&al_cm_g.lock);
	st = al_cm_cep_by_qp(p_qp) ? IB_INVALID_STATE : IB_SUCCESS;
	al_cm_unlock();
	return st;
}

/* An active endpoint's fields from the request, its QP and the port of its primary path. */
static void cep_from_req(al_cep_t *p_cep, const ib_cm_req_t *r, al_qp_t *p_qp,
			 const ib_qp_attr_t *p_qa, cm_port_t *p_port)
{
	const ib_path_rec_t *pp = r->p_primary_path;
	uint8_t life = ib_path_rec_pkt_life(pp);

	p_cep->active = TRUE;
	p_cep->qp_type = r->qp_type;
	p_cep->h_qp = r->h_qp;
	p_cep->p_qp = p_qp;
	p_cep->qp_context = p_qp->v.obj.context;
	p_cep->p_port = p_port;
	p_cep->path = *pp;
	p_cep->dlid = pp->dlid;
	p_cep->sl = ib_path_rec_sl(pp);
	p_cep->pkey_index = al_cm_pkey_index_of(p_port, pp->pkey, NULL);
	p_cep->local_qpn = cl_ntoh32(p_qa->num);
	p_cep->local_psn = al_cm_rand24();
	p_cep->resp_res = r->resp_res;
	p_cep->init_depth = r->init_depth;
	p_cep->rnr_nak_timeout = r->rnr_nak_timeout;
	p_cep->retry_cnt = r->retry_cnt;
	p_cep->rnr_retry_cnt = r->rnr_retry_cnt;
	p_cep->pktlife_ms = al_cm_time_ms(life);
	p_cep->local_ack_timeout = (uint8_t)(life + 1 > 31 ? 31 : life + 1);
	p_cep->twait_ms = al_cm_time_ms(p_cep->local_ack_timeout) + p_cep->pktlife_ms;
	p_cep->peer_resp_ms = al_cm_time_ms(r->remote_resp_timeout) + 2 * p_cep->pktlife_ms;
	p_cep->max_cm_retries = r->max_cm_retries;
	p_cep->pfn_rep = r->pfn_cm_rep_cb;
	p_cep->pfn_rej = r->pfn_cm_rej_cb;
	p_cep->pfn_mra = r->pfn_cm_mra_cb;
	p_cep->pfn_req = r->pfn_cm_req_cb;
	if (r->p_alt_path) {
		p_cep->alt_req = TRUE;
		p_cep->alt_path = *r->p_alt_path;
	}
}

/* The REQ an active endpoint sends (all but its comm ID). */
static void req_msg(al_cm_req_msg_t *q, const ib_cm_req_t *r, const al_cep_t *p_cep,
		    const ib_qp_attr_t *p_qa)
{
	const ib_path_rec_t *pp = r->p_primary_path;

	memset(q, 0, sizeof(*q));
	q->service_id = cl_ntoh64(r->svc_id);
	q->local_ca_guid = cl_ntoh64(p_cep->p_port->ca_guid);
	q->local_qpn = p_cep->local_qpn;
	q->resp_res = r->resp_res;
	q->init_depth = r->init_depth;
	q->remote_cm_resp_timeout = r->remote_resp_timeout;
	q->transport = r->qp_type == IB_QPT_RELIABLE_CONN ? AL_CM_TRANSPORT_RC : AL_CM_TRANSPORT_UC;
	q->flow_ctrl = r->flow_ctrl ? 1 : 0;
	q->starting_psn = p_cep->local_psn;
	q->local_cm_resp_timeout = r->local_resp_timeout;
	q->retry_count = r->retry_cnt;
	q->pkey = cl_ntoh16(pp->pkey);
	q->path_mtu = ib_path_rec_mtu(pp);
	q->rnr_retry_count = r->rnr_retry_cnt;
	q->max_cm_retries = r->max_cm_retries;
	q->srq = p_qa->h_srq ? 1 : 0;
	al_cm_path_to_wire(pp, &q->primary, p_cep->local_ack_timeout);
	if (r->p_alt_path)
		al_cm_path_to_wire(r->p_alt_path, &q->alternate,
				   (uint8_t)(ib_path_rec_pkt_life(r->p_alt_path) + 1));
	if (r->req_length)
		memcpy(q->private_data, r->p_req_pdata, r->req_length);
}

/* Destroys an endpoint that never went out, after unbinding it from its QP
 * (its destruction must not touch the QP). */
static void cep_discard(al_cep_t *p_cep)
{
	p_cep->h_qp = NULL;
	p_cep->p_qp = NULL;
	al_obj_destroy(&p_cep->obj, NULL);
}

ib_api_status_t ib_cm_req(const ib_cm_req_t *const p_cm_req)
{
	al_qp_t *p_qp;
	ib_qp_attr_t qa;
	al_cep_t *p_cep;
	cm_port_t *p_port;
	al_cm_msg_t m;
	ib_api_status_t st;
	cm_sync_t sync;
	boolean_t do_sync;

	if (!p_cm_req)
		return IB_INVALID_PARAMETER;
	if ((p_cm_req->flags & IB_FLAGS_SYNC) && al_is_cb_thread())
		return IB_INVALID_STATE;
	if (p_cm_req->qp_type == IB_QPT_UNRELIABLE_DGRM)
		return sidr_req(p_cm_req);
	p_qp = (al_qp_t *)AL_ENTER(p_cm_req->h_qp, AL_HDL_QP);
	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	st = req_check(p_cm_req);
	if (st != IB_SUCCESS)
		goto out;
	if (al_cm_kern_owns(p_qp->p_pd->p_ca->p_ci->guid)) {
		st = al_cm_kern_get()->req(p_cm_req, p_qp);
		goto out;
	}
	st = req_qp_check(p_cm_req, p_qp, &qa);
	if (st != IB_SUCCESS)
		goto out;
	st = al_cm_cep_create(p_qp->p_pd->p_ca->v.obj.p_parent, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	st = path_port(p_cep->p_agents, p_qp, p_cm_req->p_primary_path, &p_port);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_cep->obj, NULL);
		goto out;
	}
	cep_from_req(p_cep, p_cm_req, p_qp, &qa, p_port);
	if (al_cm_qp_init(p_cep, 0) != IB_SUCCESS) {
		st = IB_INVALID_QP_STATE;
		goto discard_cep;
	}
	memset(&m, 0, sizeof(m));
	req_msg(&m.req, p_cm_req, p_cep, &qa);
	st = al_cm_sync_init(p_cm_req->flags, 1u << EV_REP | 1u << EV_REJ | 1u << EV_REQ, &sync,
			     &do_sync);
	if (st != IB_SUCCESS)
		goto discard_cep;
	pthread_mutex_lock(&al_cm_g.lock);
	if (al_cm_cep_by_qp(p_qp)) {
		/* Another ib_cm_req on the QP won the race. */
		al_cm_unlock();
		st = IB_INVALID_STATE;
		if (do_sync)
			al_cm_sync_drop(&sync);
		goto discard_cep;
	}
	al_cm_cep_insert_locked(p_cep);
	m.req.local_comm_id = p_cep->local_id;
	p_cep->req = m.req;
	p_cep->tid = al_cm_new_tid();
	p_cep->state = AL_CM_REQ_SENT;
	if (do_sync)
		__atomic_store_n(&p_cep->p_sync, &sync, __ATOMIC_RELAXED);
	al_cm_cep_send(p_cep, AL_CM_MSG_REQ, &m);
	al_cm_timer_arm(p_cep, p_cep->peer_resp_ms, p_cep->max_cm_retries);
	al_cm_unlock();
	AL_EXIT(p_cm_req->h_qp);
	if (do_sync)
		al_cm_sync_wait(&sync);
	return IB_SUCCESS;
discard_cep:
	cep_discard(p_cep);
out:
	AL_EXIT(p_cm_req->h_qp);
	return st;
}

/* Finds the CEP of an ib_cm_handle_t; al_cm_g.lock held. */
static al_cep_t *cep_of(const ib_cm_handle_t *h)
{
	al_cep_t *p_cep = al_cm_cep_by_local_id(cl_ntoh32(h->cid));

	if (!p_cep || p_cep->h_al != h->h_al)
		return NULL;
	return p_cep;
}

/* The prologue of the calls on an ib_cm_handle_t: takes al_cm_g.lock (held on
 * return, whatever the status) and finds the handle's CEP in *pp_cep.
 * Returns IB_INVALID_HANDLE without a CEP, IB_INVALID_PARAMETER for a NULL
 * p_arg (the call's argument), else IB_SUCCESS. */
static ib_api_status_t cm_lock_cep(const ib_cm_handle_t *h, const void *p_arg, al_cep_t **pp_cep)
{
	pthread_mutex_lock(&al_cm_g.lock);
	*pp_cep = cep_of(h);
	if (!*pp_cep)
		return IB_INVALID_HANDLE;
	return p_arg ? IB_SUCCESS : IB_INVALID_PARAMETER;
}

/* The IB_FLAGS_SYNC epilogue: after a success the caller waits for the
 * callback that ends the exchange, after a failure the waiter is dropped. */
static inline void cm_sync_end(boolean_t do_sync, cm_sync_t *p_sync, ib_api_status_t st)
{
	if (!do_sync)
		return;
	if (st == IB_SUCCESS)
		al_cm_sync_wait(p_sync);
	else
		al_cm_sync_drop(p_sync);
}

/* Sets up IB_FLAGS_SYNC (kinds: the events that end the wait) and enters the
 * QP handle in *pp_qp. Returns al_cm_sync_init's status, IB_INVALID_QP_HANDLE
 * (the waiter dropped) or IB_SUCCESS (the caller exits the QP and ends the
 * waiter with cm_sync_end). */
static ib_api_status_t cm_sync_enter_qp(ib_al_flags_t flags, uint32_t kinds, const ib_qp_handle_t h_qp,
					cm_sync_t *p_sync, boolean_t *p_do_sync, al_qp_t **pp_qp)
{
	ib_api_status_t st = al_cm_sync_init(flags, kinds, p_sync, p_do_sync);

	if (st != IB_SUCCESS)
		return st;
	*pp_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	if (!*pp_qp) {
		cm_sync_end(*p_do_sync, p_sync, IB_INVALID_QP_HANDLE);
		return IB_INVALID_QP_HANDLE;
	}
	return IB_SUCCESS;
}

/* Takes al_cm_g.lock (held on return, whatever the status) and finds the
 * CEP connected on p_qp in *pp_cep. Returns IB_INVALID_STATE if there is
 * none, it is not established, or (do_sync) a synchronous call already waits
 * on it; else IB_SUCCESS. */
static ib_api_status_t cm_lock_established(al_qp_t *p_qp, boolean_t do_sync, al_cep_t **pp_cep)
{
	pthread_mutex_lock(&al_cm_g.lock);
	*pp_cep = al_cm_cep_by_qp(p_qp);
	if (!*pp_cep || (*pp_cep)->state != AL_CM_ESTABLISHED || (do_sync && (*pp_cep)->p_sync))
		return IB_INVALID_STATE;
	return IB_SUCCESS;
}

/* Takes the QP back from a CEP whose REP failed (reset, unindexed). al_cm_g.lock held. */
static void rep_qp_undo(al_cep_t *p_cep)
{
	al_cm_qp_to_state(p_cep->h_qp, IB_QPS_RESET);
	p_cep->h_qp = NULL;
	p_cep->p_qp = NULL;
	al_cm_cep_index_locked(p_cep);
}

/* ---- Passive side ---- */

/* ib_cm_rep for a SIDR request: the SIDR_REP, then the CEP ends. */
static ib_api_status_t sidr_rep(const ib_cm_handle_t *h, const ib_cm_rep_t *r)
{
	al_cep_t *p_cep;
	ib_qp_attr_t qa;
	al_cm_msg_t m;
	ib_api_status_t st = IB_SUCCESS;
	cl_qlist_t dead;

	if (pdata_bad(r->rep_length, IB_SIDR_REP_PDATA_SIZE, r->p_rep_pdata))
		return IB_INVALID_SETTING;
	memset(&m, 0, sizeof(m));
	memset(&qa, 0, sizeof(qa));
	if (r->status == IB_SIDR_SUCCESS) {
		st = ib_query_qp(r->h_qp, &qa);
		if (st != IB_SUCCESS)
			return IB_INVALID_QP_HANDLE;
		if (qa.qp_type != IB_QPT_UNRELIABLE_DGRM)
			return IB_INVALID_SETTING;
	}
	cl_qlist_init(&dead);
	pthread_mutex_lock(&al_cm_g.lock);
	p_cep = cep_of(h);
	if (!p_cep) {
		st = IB_INVALID_HANDLE;
	} else if (p_cep->state != AL_CM_SIDR_REQ_RCVD) {
		st = IB_INVALID_STATE;
	} else {
		m.sidr_rep.request_id = p_cep->remote_id;
		m.sidr_rep.status = r->status;
		m.sidr_rep.service_id = p_cep->sidr_service_id;
		if (r->status == IB_SIDR_SUCCESS) {
			m.sidr_rep.qpn = cl_ntoh32(qa.num);
			m.sidr_rep.qkey = cl_ntoh32(qa.qkey);
		} else if (r->status == IB_SIDR_REDIRECT) {
			memcpy(m.sidr_rep.class_port_info, &r->class_info,
			       sizeof(r->class_info) < sizeof(m.sidr_rep.class_port_info)
				       ? sizeof(r->class_info) : sizeof(m.sidr_rep.class_port_info));
			m.sidr_rep.add_info_length = sizeof(m.sidr_rep.class_port_info);
		}
		if (r->rep_length)
			memcpy(m.sidr_rep.private_data, r->p_rep_pdata, r->rep_length);
		al_cm_cep_send(p_cep, AL_CM_MSG_SIDR_REP, &m);
		al_cm_cep_kill_locked(p_cep, &dead);
	}
	al_cm_unlock();
	al_cm_destroy_dead(&dead);
	return st;
}

/* Whether a passive endpoint may answer with this QP: the endpoint waits
 * for the user's answer (and no synchronous one runs), the QP is of the
 * connection's type and CA, in RESET or INIT, and bound to nothing.
 * al_cm_g.lock held. */
static ib_api_status_t rep_check(const al_cep_t *p_cep, const ib_cm_rep_t *r, al_qp_t *p_qp,
				 const ib_qp_attr_t *p_qa, boolean_t do_sync)
{
	if (!p_cep)
		return IB_INVALID_HANDLE;
	if ((p_cep->state != AL_CM_REQ_RCVD && p_cep->state != AL_CM_MRA_REQ_SENT) ||
	    (do_sync && p_cep->p_sync))
		return IB_INVALID_STATE;
	if (p_qa->qp_type != r->qp_type || p_qa->qp_type != p_cep->qp_type ||
	    p_qp->p_pd->p_ca->p_ci->guid != p_cep->p_port->ca_guid)
		return IB_INVALID_SETTING;
	if (p_qa->state != IB_QPS_RESET && p_qa->state != IB_QPS_INIT)
		return IB_INVALID_QP_STATE;
	return al_cm_cep_by_qp(p_qp) ? IB_INVALID_STATE : IB_SUCCESS;
}

/* Binds the QP to the passive endpoint and takes it to RTR with the REQ's
 * parameters, then posts the user's receives; on failure the QP is unbound
 * again. al_cm_g.lock held. */
static ib_api_status_t rep_bind_qp(al_cep_t *p_cep, const ib_cm_rep_t *r, al_qp_t *p_qp,
				   const ib_qp_attr_t *p_qa)
{
	ib_api_status_t st;

	p_cep->h_qp = r->h_qp;
	p_cep->p_qp = p_qp;
	al_cm_cep_index_locked(p_cep);
	p_cep->qp_context = p_qp->v.obj.context;
	p_cep->local_qpn = cl_ntoh32(p_qa->num);
	p_cep->local_psn = al_cm_rand24();
	p_cep->init_depth = r->init_depth < p_cep->req.resp_res ? r->init_depth : p_cep->req.resp_res;
	p_cep->rnr_nak_timeout = r->rnr_nak_timeout;
	/* The REQ's alternate path is loaded (RTR) and armed (RTS) when the
	 * user accepts failover on a connected QP. */
	p_cep->alt_on = p_cep->alt_req && r->failover_accepted == IB_FAILOVER_ACCEPT_SUCCESS;
	st = al_cm_qp_init(p_cep, r->access_ctrl);
	if (st == IB_SUCCESS)
		st = al_cm_qp_rtr(p_cep, p_cep->req.starting_psn);
	if (st != IB_SUCCESS) {
		rep_qp_undo(p_cep);
		return st == IB_INVALID_QP_HANDLE ? st : IB_INVALID_SETTING;
	}
	if (r->p_recv_wr) {
		st = ib_post_recv(p_cep->h_qp, r->p_recv_wr, r->pp_recv_failure);
		if (st != IB_SUCCESS)
			rep_qp_undo(p_cep);
	}
	return st;
}

/* The REP a passive endpoint sends. */
static void rep_msg(al_cm_rep_msg_t *q, const al_cep_t *p_cep, const ib_cm_rep_t *r,
		    const ib_qp_attr_t *p_qa)
{
	memset(q, 0, sizeof(*q));
	q->local_comm_id = p_cep->local_id;
	q->remote_comm_id = p_cep->remote_id;
	q->local_qpn = p_cep->local_qpn;
	q->starting_psn = p_cep->local_psn;
	q->resp_res = p_cep->resp_res;
	q->init_depth = p_cep->init_depth;
	q->target_ack_delay = r->target_ack_delay;
	q->failover_accepted = r->failover_accepted;
	if (p_cep->alt_req && !p_cep->alt_on && r->failover_accepted == IB_FAILOVER_ACCEPT_SUCCESS)
		q->failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;  /* the QP refused the path */
	q->flow_ctrl = r->flow_ctrl ? 1 : 0;
	q->rnr_retry_count = r->rnr_retry_cnt;
	q->srq = p_qa->h_srq ? 1 : 0;
	q->local_ca_guid = cl_ntoh64(p_cep->p_port->ca_guid);
	if (r->rep_length)
		memcpy(q->private_data, r->p_rep_pdata, r->rep_length);
}

ib_api_status_t ib_cm_rep(const ib_cm_handle_t h_cm_req, const ib_cm_rep_t *const p_cm_rep)
{
	al_cep_t *p_cep;
	al_qp_t *p_qp;
	ib_qp_attr_t qa;
	al_cm_msg_t m;
	ib_api_status_t st;
	cm_sync_t sync;
	boolean_t do_sync = FALSE;

	if (is_kern(&h_cm_req))
		return kern_of(&h_cm_req) ? kern_of(&h_cm_req)->rep(&h_cm_req, p_cm_rep) : IB_INVALID_HANDLE;
	st = cm_lock_cep(&h_cm_req, p_cm_rep, &p_cep);
	al_cm_unlock();
	if (st != IB_SUCCESS)
		return st;
	if (p_cm_rep->qp_type == IB_QPT_UNRELIABLE_DGRM)
		return sidr_rep(&h_cm_req, p_cm_rep);
	if (pdata_bad(p_cm_rep->rep_length, IB_REP_PDATA_SIZE, p_cm_rep->p_rep_pdata) ||
	    (p_cm_rep->p_recv_wr && !p_cm_rep->pp_recv_failure) || !p_cm_rep->pfn_cm_rej_cb ||
	    !p_cm_rep->pfn_cm_rtu_cb)
		return IB_INVALID_SETTING;
	/* IB_FLAGS_SYNC: back after the RTU's callback, the REJ's, or the
	 * DREQ's (the RTU was lost). */
	st = cm_sync_enter_qp(p_cm_rep->flags, 1u << EV_RTU | 1u << EV_REJ | 1u << EV_DREQ, p_cm_rep->h_qp,
			      &sync, &do_sync, &p_qp);
	if (st != IB_SUCCESS)
		return st;
	st = ib_query_qp(p_cm_rep->h_qp, &qa);
	if (st != IB_SUCCESS)
		goto out;
	pthread_mutex_lock(&al_cm_g.lock);
	p_cep = cep_of(&h_cm_req);
	st = rep_check(p_cep, p_cm_rep, p_qp, &qa, do_sync);
	if (st == IB_SUCCESS)
		st = rep_bind_qp(p_cep, p_cm_rep, p_qp, &qa);
	if (st != IB_SUCCESS)
		goto unlock;
	p_cep->pfn_rej = p_cm_rep->pfn_cm_rej_cb;
	p_cep->pfn_mra = p_cm_rep->pfn_cm_mra_cb;
	p_cep->pfn_rtu = p_cm_rep->pfn_cm_rtu_cb;
	p_cep->pfn_lap = p_cm_rep->pfn_cm_lap_cb;
	p_cep->pfn_dreq = p_cm_rep->pfn_cm_dreq_cb;
	memset(&m, 0, sizeof(m));
	rep_msg(&m.rep, p_cep, p_cm_rep, &qa);
	p_cep->state = AL_CM_REP_SENT;
	if (do_sync)
		__atomic_store_n(&p_cep->p_sync, &sync, __ATOMIC_RELAXED);
	al_cm_cep_send(p_cep, AL_CM_MSG_REP, &m);
	al_cm_timer_arm(p_cep, p_cep->peer_resp_ms, p_cep->max_cm_retries);
unlock:
	al_cm_unlock();
out:
	AL_EXIT(p_cm_rep->h_qp);
	cm_sync_end(do_sync, &sync, st);
	return st;
}

ib_api_status_t ib_cm_rtu(const ib_cm_handle_t h_cm_rep, const ib_cm_rtu_t *const p_cm_rtu)
{
	al_cep_t *p_cep;
	al_cm_msg_t m;
	ib_api_status_t st;

	if (is_kern(&h_cm_rep))
		return kern_of(&h_cm_rep) ? kern_of(&h_cm_rep)->rtu(&h_cm_rep, p_cm_rtu) : IB_INVALID_HANDLE;
	if (!p_cm_rtu) {
		st = cm_lock_cep(&h_cm_rep, p_cm_rtu, &p_cep);
		al_cm_unlock();
		return st;
	}
	if (pdata_bad(p_cm_rtu->rtu_length, IB_RTU_PDATA_SIZE, p_cm_rtu->p_rtu_pdata))
		return IB_INVALID_SETTING;
	pthread_mutex_lock(&al_cm_g.lock);
	p_cep = cep_of(&h_cm_rep);
	if (!p_cep) {
		st = IB_INVALID_HANDLE;
		goto out;
	}
	if (p_cep->state != AL_CM_REP_RCVD && p_cep->state != AL_CM_MRA_REP_SENT) {
		st = IB_INVALID_STATE;
		goto out;
	}
	st = al_cm_qp_rts(p_cep, p_cm_rtu->access_ctrl);
	if (st != IB_SUCCESS) {
		st = st == IB_INVALID_QP_HANDLE ? IB_INVALID_STATE : IB_INVALID_SETTING;
		goto out;
	}
	p_cep->pfn_apr = p_cm_rtu->pfn_cm_apr_cb;
	p_cep->pfn_dreq = p_cm_rtu->pfn_cm_dreq_cb;
	memset(&m, 0, sizeof(m));
	m.rtu.local_comm_id = p_cep->local_id;
	m.rtu.remote_comm_id = p_cep->remote_id;
	if (p_cm_rtu->rtu_length)
		memcpy(m.rtu.private_data, p_cm_rtu->p_rtu_pdata, p_cm_rtu->rtu_length);
	p_cep->state = AL_CM_ESTABLISHED;
	al_cm_cep_send(p_cep, AL_CM_MSG_RTU, &m);
	al_cm_timer_stop(p_cep);
out:
	al_cm_unlock();
	return st;
}

ib_api_status_t ib_cm_rej(const ib_cm_handle_t h_cm, const ib_cm_rej_t *const p_cm_rej)
{
	al_cep_t *p_cep;
	ib_api_status_t st = IB_SUCCESS;
	cl_qlist_t dead;
	al_cm_state_t s;

	if (is_kern(&h_cm))
		return kern_of(&h_cm) ? kern_of(&h_cm)->rej(&h_cm, p_cm_rej) : IB_INVALID_HANDLE;
	cl_qlist_init(&dead);
	st = cm_lock_cep(&h_cm, p_cm_rej, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	if (pdata_bad(p_cm_rej->rej_length, IB_REJ_PDATA_SIZE, p_cm_rej->p_rej_pdata) ||
	    pdata_bad(p_cm_rej->ari_length, IB_ARI_SIZE, p_cm_rej->p_ari)) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	s = p_cep->state;
	switch (s) {
	case AL_CM_SIDR_REQ_RCVD: {
		al_cm_msg_t m;

		memset(&m, 0, sizeof(m));
		m.sidr_rep.request_id = p_cep->remote_id;
		m.sidr_rep.status = IB_SIDR_REJECT;
		m.sidr_rep.service_id = p_cep->sidr_service_id;
		if (p_cm_rej->rej_length)
			memcpy(m.sidr_rep.private_data, p_cm_rej->p_rej_pdata,
			       p_cm_rej->rej_length < IB_SIDR_REP_PDATA_SIZE ? p_cm_rej->rej_length
									     : IB_SIDR_REP_PDATA_SIZE);
		al_cm_cep_send(p_cep, AL_CM_MSG_SIDR_REP, &m);
		al_cm_cep_kill_locked(p_cep, &dead);
		break;
	}
	case AL_CM_REQ_RCVD:
	case AL_CM_MRA_REQ_SENT:
		al_cm_cep_send_rej(p_cep, p_cm_rej->rej_status, AL_CM_REF_REQ,
			     p_cm_rej->p_ari ? p_cm_rej->p_ari->data : NULL, p_cm_rej->ari_length,
			     p_cm_rej->p_rej_pdata, p_cm_rej->rej_length);
		al_cm_cep_kill_locked(p_cep, &dead);
		break;
	case AL_CM_REP_RCVD:
	case AL_CM_MRA_REP_SENT:
		al_cm_cep_send_rej(p_cep, p_cm_rej->rej_status, AL_CM_REF_REP,
			     p_cm_rej->p_ari ? p_cm_rej->p_ari->data : NULL, p_cm_rej->ari_length,
			     p_cm_rej->p_rej_pdata, p_cm_rej->rej_length);
		al_cm_qp_error(p_cep);
		al_cm_enter_timewait(p_cep);
		break;
	default:
		st = IB_INVALID_STATE;
		break;
	}
out:
	al_cm_unlock();
	al_cm_destroy_dead(&dead);
	return st;
}

ib_api_status_t ib_cm_mra(const ib_cm_handle_t h_cm, const ib_cm_mra_t *const p_cm_mra)
{
	al_cep_t *p_cep;
	al_cm_msg_t m;
	ib_api_status_t st = IB_SUCCESS;

	if (is_kern(&h_cm))  /* no such message through the kernel CM */
		return kern_of(&h_cm) ? IB_UNSUPPORTED : IB_INVALID_HANDLE;
	st = cm_lock_cep(&h_cm, p_cm_mra, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	if (pdata_bad(p_cm_mra->mra_length, IB_MRA_PDATA_SIZE, p_cm_mra->p_mra_pdata) ||
	    p_cm_mra->svc_timeout > 31) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.mra.local_comm_id = p_cep->local_id;
	m.mra.remote_comm_id = p_cep->remote_id;
	m.mra.service_timeout = p_cm_mra->svc_timeout;
	if (p_cm_mra->mra_length)
		memcpy(m.mra.private_data, p_cm_mra->p_mra_pdata, p_cm_mra->mra_length);
	if (p_cep->state == AL_CM_REQ_RCVD) {
		m.mra.msg_mraed = AL_CM_REF_REQ;
		p_cep->state = AL_CM_MRA_REQ_SENT;
	} else if (p_cep->state == AL_CM_REP_RCVD) {
		m.mra.msg_mraed = AL_CM_REF_REP;
		p_cep->state = AL_CM_MRA_REP_SENT;
	} else if (p_cep->state == AL_CM_LAP_RCVD) {
		/* The LAP's sender waits svc_timeout more for the APR. */
		m.mra.msg_mraed = AL_CM_REF_OTHER;
		p_cep->state = AL_CM_MRA_LAP_SENT;
	} else {
		st = IB_INVALID_STATE;
		goto out;
	}
	al_cm_cep_send(p_cep, AL_CM_MSG_MRA, &m);
out:
	al_cm_unlock();
	return st;
}

/* ---- Disconnection ---- */

ib_api_status_t ib_cm_dreq(const ib_cm_dreq_t *const p_cm_dreq)
{
	al_qp_t *p_qp;
	al_cep_t *p_cep;
	al_cm_msg_t m;
	ib_api_status_t st = IB_SUCCESS;
	cm_sync_t sync;
	boolean_t do_sync = FALSE;

	if (!p_cm_dreq)
		return IB_INVALID_PARAMETER;
	if (p_cm_dreq->qp_type != IB_QPT_RELIABLE_CONN && p_cm_dreq->qp_type != IB_QPT_UNRELIABLE_CONN)
		return IB_INVALID_SETTING;
	if (pdata_bad(p_cm_dreq->dreq_length, IB_DREQ_PDATA_SIZE, p_cm_dreq->p_dreq_pdata))
		return IB_INVALID_SETTING;
	if (al_cm_kern_get()) {
		st = al_cm_kern_get()->dreq(p_cm_dreq);
		if (st != IB_NOT_FOUND)
			return st;
	}
	/* IB_FLAGS_SYNC: back after the drep callback (DREP, the peer's DREQ, or the timeout). */
	st = cm_sync_enter_qp(p_cm_dreq->flags, 1u << EV_DREP, p_cm_dreq->h_qp, &sync, &do_sync, &p_qp);
	if (st != IB_SUCCESS)
		return st;
	st = cm_lock_established(p_qp, do_sync, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	if (!p_cm_dreq->pfn_cm_drep_cb) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	p_cep->pfn_drep = p_cm_dreq->pfn_cm_drep_cb;
	al_cm_qp_error(p_cep);
	memset(&m, 0, sizeof(m));
	m.dreq.local_comm_id = p_cep->local_id;
	m.dreq.remote_comm_id = p_cep->remote_id;
	m.dreq.remote_qpn = p_cep->remote_qpn;
	if (p_cm_dreq->dreq_length)
		memcpy(m.dreq.private_data, p_cm_dreq->p_dreq_pdata, p_cm_dreq->dreq_length);
	p_cep->state = AL_CM_DREQ_SENT;
	p_cep->tid = al_cm_new_tid();
	if (do_sync)
		__atomic_store_n(&p_cep->p_sync, &sync, __ATOMIC_RELAXED);
	al_cm_cep_send(p_cep, AL_CM_MSG_DREQ, &m);
	al_cm_timer_arm(p_cep, p_cep->peer_resp_ms, p_cep->max_cm_retries);
out:
	al_cm_unlock();
	AL_EXIT(p_cm_dreq->h_qp);
	cm_sync_end(do_sync, &sync, st);
	return st;
}

ib_api_status_t ib_cm_drep(const ib_cm_handle_t h_cm_dreq, const ib_cm_drep_t *const p_cm_drep)
{
	al_cep_t *p_cep;
	ib_api_status_t st = IB_SUCCESS;

	if (is_kern(&h_cm_dreq))
		return kern_of(&h_cm_dreq) ? kern_of(&h_cm_dreq)->drep(&h_cm_dreq, p_cm_drep) : IB_INVALID_HANDLE;
	st = cm_lock_cep(&h_cm_dreq, p_cm_drep, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	if (pdata_bad(p_cm_drep->drep_length, IB_DREP_PDATA_SIZE, p_cm_drep->p_drep_pdata)) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	if (p_cep->state != AL_CM_DREQ_RCVD) {
		st = IB_INVALID_STATE;
		goto out;
	}
	al_cm_send_drep(p_cep, p_cm_drep->p_drep_pdata, p_cm_drep->drep_length);
	al_cm_enter_timewait(p_cep);
out:
	al_cm_unlock();
	return st;
}

/* ---- Alternate paths and handoff ---- */

ib_api_status_t ib_cm_lap(const ib_cm_lap_t *const p_cm_lap)
{
	al_qp_t *p_qp;
	al_cep_t *p_cep;
	al_cm_msg_t m;
	ib_api_status_t st = IB_SUCCESS;
	const ib_path_rec_t *pa;
	cm_sync_t sync;
	boolean_t do_sync = FALSE;

	if (!p_cm_lap)
		return IB_INVALID_PARAMETER;
	pa = p_cm_lap->p_alt_path;
	if ((p_cm_lap->qp_type != IB_QPT_RELIABLE_CONN && p_cm_lap->qp_type != IB_QPT_UNRELIABLE_CONN) ||
	    !pa || !p_cm_lap->pfn_cm_apr_cb || p_cm_lap->remote_resp_timeout > 31 ||
	    pdata_bad(p_cm_lap->lap_length, IB_LAP_PDATA_SIZE, p_cm_lap->p_lap_pdata))
		return IB_INVALID_SETTING;
	if (al_cm_kern_get() && al_cm_kern_get()->has_qp(p_cm_lap->h_qp))
		return IB_UNSUPPORTED;  /* no LAP through the kernel CM */
	/* IB_FLAGS_SYNC: back after the apr callback (APR or timeout), or the
	 * dreq callback of a DREQ that came instead. */
	st = cm_sync_enter_qp(p_cm_lap->flags, 1u << EV_APR | 1u << EV_DREQ, p_cm_lap->h_qp, &sync, &do_sync,
			      &p_qp);
	if (st != IB_SUCCESS)
		return st;
	st = cm_lock_established(p_qp, do_sync, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	if (!p_cep->active) {
		st = IB_UNSUPPORTED;
		goto out;
	}
	if (ib_path_rec_mtu(pa) != ib_path_rec_mtu(&p_cep->path) ||
	    (al_cm_port_by_gid(p_cep->p_agents, &pa->sgid) &&
	     al_cm_port_by_gid(p_cep->p_agents, &pa->sgid)->ca_guid != p_cep->p_port->ca_guid)) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	p_cep->alt_path = *pa;
	p_cep->pfn_apr = p_cm_lap->pfn_cm_apr_cb;
	memset(&m, 0, sizeof(m));
	m.lap.local_comm_id = p_cep->local_id;
	m.lap.remote_comm_id = p_cep->remote_id;
	m.lap.remote_qpn = p_cep->remote_qpn;
	m.lap.remote_cm_resp_timeout = p_cm_lap->remote_resp_timeout;
	al_cm_path_to_wire(pa, &m.lap.alternate,
		     (uint8_t)(ib_path_rec_pkt_life(pa) + 1 > 31 ? 31 : ib_path_rec_pkt_life(pa) + 1));
	if (p_cm_lap->lap_length)
		memcpy(m.lap.private_data, p_cm_lap->p_lap_pdata, p_cm_lap->lap_length);
	p_cep->state = AL_CM_LAP_SENT;
	p_cep->tid = al_cm_new_tid();
	if (do_sync)
		__atomic_store_n(&p_cep->p_sync, &sync, __ATOMIC_RELAXED);
	al_cm_cep_send(p_cep, AL_CM_MSG_LAP, &m);
	al_cm_timer_arm(p_cep, al_cm_time_ms(p_cm_lap->remote_resp_timeout) + 2 * p_cep->pktlife_ms,
		  p_cep->max_cm_retries);
out:
	al_cm_unlock();
	AL_EXIT(p_cm_lap->h_qp);
	cm_sync_end(do_sync, &sync, st);
	return st;
}

ib_api_status_t ib_cm_apr(const ib_cm_handle_t h_cm_lap, const ib_cm_apr_t *const p_cm_apr)
{
	al_cep_t *p_cep;
	al_cm_msg_t m;
	ib_api_status_t st = IB_SUCCESS;

	if (is_kern(&h_cm_lap))  /* no such message through the kernel CM */
		return kern_of(&h_cm_lap) ? IB_UNSUPPORTED : IB_INVALID_HANDLE;
	st = cm_lock_cep(&h_cm_lap, p_cm_apr, &p_cep);
	if (st != IB_SUCCESS)
		goto out;
	if (pdata_bad(p_cm_apr->apr_length, IB_APR_PDATA_SIZE, p_cm_apr->p_apr_pdata) ||
	    pdata_bad(p_cm_apr->info_length, IB_APR_INFO_SIZE, p_cm_apr->p_info)) {
		st = IB_INVALID_SETTING;
		goto out;
	}
	if (p_cep->state != AL_CM_LAP_RCVD && p_cep->state != AL_CM_MRA_LAP_SENT) {
		st = IB_INVALID_STATE;
		goto out;
	}
	if (p_cm_apr->h_qp && p_cm_apr->h_qp != p_cep->h_qp) {
		st = IB_INVALID_QP_HANDLE;
		goto out;
	}
	memset(&m, 0, sizeof(m));
	m.apr.local_comm_id = p_cep->local_id;
	m.apr.remote_comm_id = p_cep->remote_id;
	m.apr.ap_status = p_cm_apr->apr_status;
	if (p_cm_apr->apr_status == IB_AP_SUCCESS) {
		st = al_cm_qp_load_alt(p_cep, &p_cep->alt_path);
		if (st != IB_SUCCESS)
			m.apr.ap_status = IB_AP_REJECT;
	}
	if (p_cm_apr->info_length) {
		m.apr.info_length = p_cm_apr->info_length;
		memcpy(m.apr.info, p_cm_apr->p_info->data, p_cm_apr->info_length);
	}
	if (p_cm_apr->apr_length)
		memcpy(m.apr.private_data, p_cm_apr->p_apr_pdata, p_cm_apr->apr_length);
	al_cm_cep_send(p_cep, AL_CM_MSG_APR, &m);
	p_cep->state = AL_CM_ESTABLISHED;
out:
	al_cm_unlock();
	return st;
}

ib_api_status_t ib_cm_handoff(const ib_cm_handle_t h_cm_req, const ib_net64_t svc_id)
{
	al_cep_t *p_cep, *p_new;
	al_listen_t *p_l;
	al_cm_req_msg_t req;
	boolean_t sid;
	ib_api_status_t st;
	cl_qlist_t dead;

	if (is_kern(&h_cm_req))
		return kern_of(&h_cm_req) ? kern_of(&h_cm_req)->handoff(&h_cm_req, svc_id) : IB_INVALID_HANDLE;
	cl_qlist_init(&dead);
	pthread_mutex_lock(&al_cm_g.lock);
	p_cep = cep_of(&h_cm_req);
	if (!p_cep) {
		al_cm_unlock();
		return IB_INVALID_HANDLE;
	}
	if (!svc_id) {
		al_cm_unlock();
		return IB_INVALID_PARAMETER;
	}
	if (p_cep->state != AL_CM_REQ_RCVD && p_cep->state != AL_CM_MRA_REQ_SENT) {
		al_cm_unlock();
		return IB_INVALID_STATE;
	}
	req = p_cep->req;
	req.service_id = cl_ntoh64(svc_id);
	p_l = al_cm_find_listen(p_cep->p_port, &req, &sid);
	if (!p_l) {
		al_cm_unlock();
		return IB_INVALID_PARAMETER;
	}
	al_obj_ref(&p_l->obj);
	al_cm_unlock();

	/* The request moves to a CEP under the new listen's instance, with
	 * the same local ID (the peer may know it from an MRA). */
	p_new = NULL;
	st = al_cm_cep_create(p_l->obj.p_parent, &p_new);
	if (st != IB_SUCCESS) {
		al_obj_deref(&p_l->obj);
		return st;
	}
	pthread_mutex_lock(&al_cm_g.lock);
	p_cep = cep_of(&h_cm_req);
	if (!p_cep || p_l->cancelled ||
	    (p_cep->state != AL_CM_REQ_RCVD && p_cep->state != AL_CM_MRA_REQ_SENT)) {
		al_cm_unlock();
		al_obj_destroy(&p_new->obj, NULL);
		al_obj_deref(&p_l->obj);
		return p_cep ? IB_INVALID_STATE : IB_INVALID_HANDLE;
	}
	al_cm_cep_from_req(p_new, p_cep->p_port, &p_cep->req, p_cep->dlid, p_cep->pkey_index);
	p_new->state = p_cep->state;
	p_new->last = p_cep->last;
	p_new->last_type = p_cep->last_type;
	p_new->has_last = p_cep->has_last;
	p_new->tid = p_cep->tid;
	al_cm_cep_kill_locked(p_cep, &dead);
	/* A new local ID, so the old handle is invalid; the peer learns it
	 * from the REP (an earlier MRA named the old one, which is fine). */
	al_cm_cep_insert_locked(p_new);
	p_new->p_listen = p_l;
	al_cm_queue_req_event(p_new, (void *)p_l->info.pfn_cm_req_cb, p_l->obj.context, p_l, &dead);
	al_cm_unlock();
	al_cm_destroy_dead(&dead);
	return IB_SUCCESS;
}

/* ---- The CM as a client of the core (al_client.h) ---- */

const al_client_t al_cm_client = {
	.name = "cm",
	.qp_destroying = al_cm_qp_destroying,
	.al_closed = al_cm_drain_sends,
	.port_added = al_cm_port_added,
};

