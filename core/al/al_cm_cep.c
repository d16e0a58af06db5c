/*
 * ibal access layer: the connection manager's endpoints: states, lifetime, callbacks, the QP driven, expiries.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Received messages are al_cm_recv.c's. See al_cm_int.h for the locks and
 * docs/cm.md for the protocol.
 */
#include "al_cm_int.h"
#include "prov_conn_mem.h"
#include "ibal_arena.h"
#include "ibal_log.h"
#include "ibal_random.h"

static const char *const state_names[AL_CM_STATE_COUNT] = {
	"IDLE", "LISTEN", "REQ_SENT", "REQ_RCVD", "MRA_REQ_SENT", "MRA_REQ_RCVD",
	"REP_SENT", "REP_RCVD", "MRA_REP_SENT", "MRA_REP_RCVD", "ESTABLISHED",
	"LAP_SENT", "LAP_RCVD", "MRA_LAP_SENT", "MRA_LAP_RCVD", "DREQ_SENT", "DREQ_RCVD", "TIMEWAIT",
	"SIDR_REQ_SENT", "SIDR_REQ_RCVD", "DESTROYED",
};

const char *al_cm_state_name(al_cm_state_t state)
{
	return (unsigned)state < AL_CM_STATE_COUNT ? state_names[state] : "?";
}


/* ---- QP driving ---- */

ib_api_status_t al_cm_qp_to_state(ib_qp_handle_t h_qp, ib_qp_state_t state)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = state;
	return ib_modify_qp(h_qp, &m);
}

ib_api_status_t al_cm_qp_init(al_cep_t *p_cep, ib_access_t access)
{
	ib_qp_attr_t a;
	ib_qp_mod_t m;
	ib_api_status_t st;

	st = ib_query_qp(p_cep->h_qp, &a);
	if (st != IB_SUCCESS)
		return st;
	if (a.state != IB_QPS_RESET) {
		st = al_cm_qp_to_state(p_cep->h_qp, IB_QPS_RESET);
		if (st != IB_SUCCESS)
			return st;
	}
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = p_cep->p_port->port_num;
	m.state.init.pkey_index = p_cep->pkey_index;
	m.state.init.access_ctrl = access;
	return ib_modify_qp(p_cep->h_qp, &m);
}

/* A GRH for paths that need one (hop limit above 1: off the subnet, or RoCE). */
static void path_grh(const ib_path_rec_t *p, ib_av_attr_t *p_av)
{
	ib_grh_t g;

	p_av->grh_valid = al_cm_path_grh(p, &g) != NULL;
	if (!p_av->grh_valid)
		return;
	p_av->grh = g;
	p_av->grh.src_gid = p->sgid;  /* the AV's own orientation */
	p_av->grh.dest_gid = p->dgid;
}

static void path_to_av(const al_cep_t *p_cep, ib_av_attr_t *p_av)
{
	memset(p_av, 0, sizeof(*p_av));
	p_av->port_num = p_cep->p_port->port_num;
	p_av->sl = p_cep->sl;
	p_av->dlid = p_cep->dlid;
	path_grh(&p_cep->path, p_av);
	p_av->static_rate = ib_path_rec_rate(&p_cep->path);
	p_av->conn.path_mtu = ib_path_rec_mtu(&p_cep->path);
	p_av->conn.local_ack_timeout = p_cep->local_ack_timeout;
	p_av->conn.seq_err_retry_cnt = p_cep->retry_cnt;
	p_av->conn.rnr_retry_cnt = p_cep->rnr_retry_cnt;
}

/* The address vector of an alternate path (local view): its own port, LID,
 * SL, rate, MTU, and an ACK timeout from its packet lifetime. */
void al_cm_alt_to_av(const al_cep_t *p_cep, const ib_path_rec_t *p_alt, ib_av_attr_t *p_av)
{
	cm_port_t *p_port = al_cm_port_by_gid(p_cep->p_agents, &p_alt->sgid);

	memset(p_av, 0, sizeof(*p_av));
	p_av->port_num = p_port ? p_port->port_num : p_cep->p_port->port_num;
	p_av->sl = ib_path_rec_sl(p_alt);
	p_av->dlid = p_alt->dlid;
	path_grh(p_alt, p_av);
	p_av->static_rate = ib_path_rec_rate(p_alt);
	p_av->conn.path_mtu = ib_path_rec_mtu(p_alt);
	p_av->conn.local_ack_timeout =
		(uint8_t)(ib_path_rec_pkt_life(p_alt) + 1 > 31 ? 31 : ib_path_rec_pkt_life(p_alt) + 1);
	p_av->conn.seq_err_retry_cnt = p_cep->retry_cnt;
	p_av->conn.rnr_retry_cnt = p_cep->rnr_retry_cnt;
}

/* INIT to RTR; with p_cep->alt_on the REQ's alternate path is loaded too
 * (IB_MOD_QP_ALTERNATE_AV). A QP that refuses the alternate path goes to
 * RTR without it (alt_on becomes FALSE). */
ib_api_status_t al_cm_qp_rtr(al_cep_t *p_cep, uint32_t remote_psn)
{
	ib_qp_mod_t m;
	ib_api_status_t st;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(remote_psn);
	m.state.rtr.dest_qp = cl_hton32(p_cep->remote_qpn);
	path_to_av(p_cep, &m.state.rtr.primary_av);
	if (p_cep->qp_type == IB_QPT_RELIABLE_CONN) {
		m.state.rtr.resp_res = p_cep->resp_res;
		m.state.rtr.rnr_nak_timeout = p_cep->rnr_nak_timeout;
	}
	if (p_cep->alt_on) {
		m.state.rtr.opts |= IB_MOD_QP_ALTERNATE_AV;
		al_cm_alt_to_av(p_cep, &p_cep->alt_path, &m.state.rtr.alternate_av);
		st = ib_modify_qp(p_cep->h_qp, &m);
		if (st == IB_SUCCESS)
			return st;
		p_cep->alt_on = FALSE;
		m.state.rtr.opts &= ~IB_MOD_QP_ALTERNATE_AV;
		memset(&m.state.rtr.alternate_av, 0, sizeof(m.state.rtr.alternate_av));
	}
	return ib_modify_qp(p_cep->h_qp, &m);
}

ib_api_status_t al_cm_qp_rts(al_cep_t *p_cep, ib_access_t access)
{
	ib_qp_mod_t m;
	ib_api_status_t st;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(p_cep->local_psn);
	if (p_cep->qp_type == IB_QPT_RELIABLE_CONN) {
		m.state.rts.retry_cnt = p_cep->retry_cnt;
		m.state.rts.rnr_retry_cnt = p_cep->rnr_retry_cnt;
		m.state.rts.local_ack_timeout = p_cep->local_ack_timeout;
		m.state.rts.init_depth = p_cep->init_depth;
	}
	if (access) {
		m.state.rts.opts |= IB_MOD_QP_ACCESS_CTRL;
		m.state.rts.access_ctrl = access;
	}
	if (p_cep->alt_on) {
		/* The alternate path loaded at RTR: REARM, then ARMED at once
		 * (both sides have loaded it by now), so that a migration,
		 * ib_force_apm included, may happen from the first packet. */
		m.state.rts.opts |= IB_MOD_QP_APM_STATE;
		m.state.rts.apm_state = IB_APM_REARM;
	}
	st = ib_modify_qp(p_cep->h_qp, &m);
	if (st != IB_SUCCESS || !p_cep->alt_on)
		return st;
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_ARMED;
	if (ib_modify_qp(p_cep->h_qp, &m) != IB_SUCCESS)
		p_cep->alt_on = FALSE;
	return IB_SUCCESS;
}

void al_cm_qp_error(al_cep_t *p_cep)
{
	if (p_cep->h_qp)
		al_cm_qp_to_state(p_cep->h_qp, IB_QPS_ERROR);
}

/* ---- CEP lifetime ---- */

/* Takes a CEP out of the tables; its object is destroyed by the caller
 * after al_cm_g.lock is released (the CEP is put on @p p_dead). */
void al_cm_cep_kill_locked(al_cep_t *p_cep, cl_qlist_t *p_dead)
{
	if (p_cep->state == AL_CM_DESTROYED)
		return;
	al_cm_pace_end(p_cep);
	p_cep->state = AL_CM_DESTROYED;
	al_cm_timer_stop(p_cep);
	p_cep->h_qp = NULL;
	p_cep->p_qp = NULL;
	if (p_cep->listed) {
		cm_hash_set(&al_cm_g.ids, &p_cep->by_id, FALSE, 0, 0, 0);
		cm_hash_set(&al_cm_g.remotes, &p_cep->by_remote, FALSE, 0, 0, 0);
		cm_hash_set(&al_cm_g.qpns, &p_cep->by_qpn, FALSE, 0, 0, 0);
		cm_hash_set(&al_cm_g.qps, &p_cep->by_qp, FALSE, 0, 0, 0);
		if (p_cep->on_peers)
			cl_qlist_remove_item(&al_cm_g.peers, &p_cep->peer_item);
		p_cep->on_peers = FALSE;
	}
	p_cep->listed = FALSE;
	if (p_dead) {
		/* Held until al_cm_destroy_dead() is done with it. */
		al_obj_ref(&p_cep->obj);
		cl_qlist_insert_tail(p_dead, &p_cep->dead_item);
	}
}

void al_cm_destroy_dead(cl_qlist_t *p_dead)
{
	cl_list_item_t *it;
	al_cep_t *p_cep;

	while ((it = cl_qlist_remove_head(p_dead)) != cl_qlist_end(p_dead)) {
		p_cep = PARENT_STRUCT(it, al_cep_t, dead_item);
		al_obj_destroy(&p_cep->obj, NULL);
		al_obj_deref(&p_cep->obj);
	}
}

void al_cm_enter_timewait(al_cep_t *p_cep)
{
	p_cep->state = AL_CM_TIMEWAIT;
	al_cm_timer_arm(p_cep, p_cep->twait_ms, 0);
}

static void cep_destroying(al_obj_t *p_obj)
{
	al_cep_t *p_cep = PARENT_STRUCT(p_obj, al_cep_t, obj);
	al_cm_msg_t m;

	pthread_mutex_lock(&al_cm_g.lock);
	switch (p_cep->state) {
	case AL_CM_REQ_SENT:
	case AL_CM_MRA_REQ_RCVD:
	case AL_CM_REQ_RCVD:
	case AL_CM_MRA_REQ_SENT:
		al_cm_cep_send_rej(p_cep, IB_REJ_TIMEOUT, AL_CM_REF_REQ, NULL, 0, NULL, 0);
		al_cm_qp_error(p_cep);
		break;
	case AL_CM_REP_SENT:
	case AL_CM_MRA_REP_RCVD:
	case AL_CM_REP_RCVD:
	case AL_CM_MRA_REP_SENT:
		al_cm_cep_send_rej(p_cep, IB_REJ_TIMEOUT, AL_CM_REF_REP, NULL, 0, NULL, 0);
		al_cm_qp_error(p_cep);
		break;
	case AL_CM_ESTABLISHED:
	case AL_CM_LAP_SENT:
	case AL_CM_LAP_RCVD:
	case AL_CM_MRA_LAP_SENT:
	case AL_CM_MRA_LAP_RCVD:
		p_cep->tid = al_cm_new_tid();
		memset(&m, 0, sizeof(m));
		m.dreq.local_comm_id = p_cep->local_id;
		m.dreq.remote_comm_id = p_cep->remote_id;
		m.dreq.remote_qpn = p_cep->remote_qpn;
		al_cm_cep_send(p_cep, AL_CM_MSG_DREQ, &m);
		al_cm_qp_error(p_cep);
		break;
	case AL_CM_DREQ_RCVD:
		memset(&m, 0, sizeof(m));
		m.drep.local_comm_id = p_cep->local_id;
		m.drep.remote_comm_id = p_cep->remote_id;
		al_cm_cep_send(p_cep, AL_CM_MSG_DREP, &m);
		break;
	default:
		break;
	}
	al_cm_cep_kill_locked(p_cep, NULL);
	al_cm_unlock();
}

static void cep_free(al_obj_t *p_obj)
{
	al_cep_t *p_cep = PARENT_STRUCT(p_obj, al_cep_t, obj);

	/* After every callback: an IB_FLAGS_SYNC caller whose REP or REJ
	 * callback never came (the CEP was destroyed) is released here. */
	pthread_mutex_lock(&al_cm_g.lock);
	if (p_cep->p_sync)
		cl_event_signal(&p_cep->p_sync->event);
	__atomic_store_n(&p_cep->p_sync, NULL, __ATOMIC_RELAXED);
	al_cm_unlock();
	if (p_cep->p_listen)
		al_obj_deref(&p_cep->p_listen->obj);
	prov_conn_mem_put(p_cep, sizeof(*p_cep));
	al_cm_put();
}

/* Makes a CEP under an AL instance's object; al_cm_g.lock not held. */
ib_api_status_t al_cm_cep_create(al_obj_t *p_parent, al_cep_t **pp_cep)
{
	al_cep_t *p_cep;
	cm_agents_t *p_ag;
	ib_api_status_t st;

	st = al_cm_get(&p_ag);
	if (st != IB_SUCCESS)
		return st;
	/* A connection's memory (prov_conn_mem.h): a burst of connections makes
	 * its CEPs without a page fault each. */
	p_cep = (al_cep_t *)prov_conn_mem_get(sizeof(*p_cep));
	if (!p_cep) {
		al_cm_put();
		return IB_INSUFFICIENT_MEMORY;
	}
	al_obj_construct(&p_cep->obj, AL_OBJ_TYPE_CEP);
	st = al_obj_init(&p_cep->obj, p_parent, NULL, cep_destroying, NULL, cep_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_cep->obj);
		prov_conn_mem_put(p_cep, sizeof(*p_cep));
		al_cm_put();
		return st == IB_INVALID_STATE ? IB_INVALID_AL_HANDLE : st;
	}
	p_cep->p_agents = p_ag;
	p_cep->state = AL_CM_IDLE;
	p_cep->h_al = (ib_al_handle_t)al_obj_h(p_parent);
	*pp_cep = p_cep;
	return IB_SUCCESS;
}

/* Adds a made CEP to the tables with a fresh local ID, random (a peer
 * cannot guess another connection's: ibal_random.h); al_cm_g.lock held. */
void al_cm_cep_insert_locked(al_cep_t *p_cep)
{
	al_cm_lists_init_locked();
	do
		p_cep->local_id = ibal_random32() & ~AL_CM_KERN_CID; /* the top bit: al_cm_kern.h */
	while (!p_cep->local_id || cm_hash_find(&al_cm_g.ids, p_cep->local_id, 0, FALSE));
	cm_hash_set(&al_cm_g.ids, &p_cep->by_id, TRUE, p_cep->local_id, 0, 0);
	p_cep->listed = TRUE;
	al_cm_cep_index_locked(p_cep);
}

/*
 * Files a listed CEP in the indexes by its current fields (remote IDs, QP,
 * side); al_cm_g.lock held. Called wherever these fields change: the
 * lookups below trust the indexes.
 */
void al_cm_cep_index_locked(al_cep_t *p_cep)
{
	boolean_t sidr = p_cep->qp_type == IB_QPT_UNRELIABLE_DGRM;
	boolean_t peer;

	if (!p_cep->listed)
		return;
	if (sidr)
		cm_hash_set(&al_cm_g.remotes, &p_cep->by_remote, !p_cep->active && p_cep->remote_id,
			    REMOTE_SIDR | p_cep->remote_id, p_cep->p_port ? p_cep->p_port->port_guid : 0,
			    (uint64_t)p_cep->dlid << 32 | p_cep->local_id);
	else
		cm_hash_set(&al_cm_g.remotes, &p_cep->by_remote, !p_cep->active && p_cep->remote_id,
			    p_cep->remote_id, p_cep->remote_ca_guid, p_cep->local_id);
	cm_hash_set(&al_cm_g.qpns, &p_cep->by_qpn, !sidr && p_cep->remote_qpn, p_cep->remote_qpn,
		    p_cep->remote_ca_guid, p_cep->local_id);
	cm_hash_set(&al_cm_g.qps, &p_cep->by_qp, p_cep->p_qp != NULL, (uintptr_t)p_cep->p_qp,
		    p_cep->local_id, 0);
	peer = p_cep->active && p_cep->pfn_req;
	if (peer && !p_cep->on_peers)
		cl_qlist_insert_tail(&al_cm_g.peers, &p_cep->peer_item);
	else if (!peer && p_cep->on_peers)
		cl_qlist_remove_item(&al_cm_g.peers, &p_cep->peer_item);
	p_cep->on_peers = peer;
}

al_cep_t *al_cm_cep_by_local_id(uint32_t id)
{
	cm_hitem_t *e;

	if (!al_cm_g.lists_init)
		return NULL;
	e = cm_hash_find(&al_cm_g.ids, id, 0, FALSE);
	return e ? HITEM_CEP(e, by_id) : NULL;
}

/* The passive CEP of a REQ (sender's comm ID and CA GUID), if any. */
al_cep_t *al_cm_cep_by_remote(uint32_t remote_id, uint64_t remote_guid)
{
	cm_hitem_t *e;

	if (!al_cm_g.lists_init || !remote_id)
		return NULL;
	e = cm_hash_find(&al_cm_g.remotes, remote_id, remote_guid, TRUE);
	return e ? HITEM_CEP(e, by_remote) : NULL;
}

al_cep_t *al_cm_cep_by_qp(const void *p_qp)
{
	cm_hitem_t *e;

	if (!al_cm_g.lists_init || !p_qp)
		return NULL;
	e = cm_hash_find(&al_cm_g.qps, (uintptr_t)p_qp, 0, FALSE);
	return e ? HITEM_CEP(e, by_qp) : NULL;
}

/* A connection that exists with the same remote QP and CA (stale check). */
al_cep_t *al_cm_cep_by_remote_qpn(uint32_t qpn, uint64_t guid)
{
	cm_hitem_t *e;
	al_cep_t *p;

	if (!al_cm_g.lists_init || !qpn)
		return NULL;
	for (e = cm_hash_find(&al_cm_g.qpns, qpn, guid, TRUE); e; e = cm_hash_next(e, TRUE)) {
		p = HITEM_CEP(e, by_qpn);
		if (p->state != AL_CM_TIMEWAIT && p->state != AL_CM_IDLE)
			return p;
	}
	return NULL;
}

/* ---- Callbacks ---- */

/*
 * IB_FLAGS_SYNC of an ib_cm_* call: IB_INVALID_STATE on an AL callback
 * thread (the answer's callback could only run after the caller's one
 * returned: the wait would never end); otherwise *p_on tells whether the
 * call waits, and the event is made.
 */
ib_api_status_t al_cm_sync_init(ib_al_flags_t flags, uint32_t kinds, cm_sync_t *p_sync, boolean_t *p_on)
{
	*p_on = FALSE;
	if (!(flags & IB_FLAGS_SYNC))
		return IB_SUCCESS;
	if (al_is_cb_thread())
		return IB_INVALID_STATE;
	cl_event_construct(&p_sync->event);
	if (cl_event_init(&p_sync->event, FALSE) != CL_SUCCESS)
		return IB_INSUFFICIENT_RESOURCES;
	p_sync->kinds = kinds;
	*p_on = TRUE;
	return IB_SUCCESS;
}

/* Waits until the CEP's callback releases the waiter (after the CEP got
 * it: p_cep->p_sync = p_sync under al_cm_g.lock), then ends it. */
void al_cm_sync_wait(cm_sync_t *p_sync)
{
	cl_event_wait_on(&p_sync->event, EVENT_NO_TIMEOUT, FALSE);
	cl_event_destroy(&p_sync->event);
}

/* Ends a waiter no CEP got (the call failed). */
void al_cm_sync_drop(cm_sync_t *p_sync)
{
	cl_event_destroy(&p_sync->event);
}

/*
 * A callback's event comes from a cache of the CM's and goes back to it when
 * the callback has run, instead of each CEP holding room for one (536 bytes
 * a connection that a connection at rest never uses) or each event being a
 * malloc (the receiving thread allocating, the callback's thread freeing:
 * they contended for the allocator). Events are taken only under
 * al_cm_g.lock (al_cm_ev_new; every event is made there) and given back by
 * whichever thread ran the callback, without it, pushed by compare-and-swap.
 * With one taker at a time, the event a taker finds on top is still there,
 * with the same next, when its swap succeeds; a swap fails only because an
 * event was given back meanwhile, and the taker looks again (no ABA). At most
 * AL_CM_EV_CACHE are kept, the rest freed; under AddressSanitizer and
 * valgrind none is (ibal_arena_checked), so their checks see every event.
 */
/* The cache's top event taken off it, or NULL when it is empty; the taker
 * holds al_cm_g.lock. */
static cm_event_t *ev_pop_locked(void)
{
	cm_event_t *p_ev = __atomic_load_n(&al_cm_g.ev_cache, __ATOMIC_ACQUIRE);

	while (p_ev && !__atomic_compare_exchange_n(&al_cm_g.ev_cache, &p_ev, p_ev->p_q_next, FALSE,
						    __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE))
		;
	if (p_ev)
		__atomic_fetch_sub(&al_cm_g.ev_cached, 1, __ATOMIC_RELAXED);
	return p_ev;
}

/* A zeroed event, from the cache or new; al_cm_g.lock held. */
static cm_event_t *ev_take_locked(void)
{
	cm_event_t *p_ev = ev_pop_locked();

	if (!p_ev)
		return (cm_event_t *)cl_zalloc(sizeof(*p_ev));
	memset(p_ev, 0, sizeof(*p_ev));
	return p_ev;
}

/* Gives an event back (any thread, no lock needed). */
static void ev_free(cm_event_t *p_ev)
{
	if (ibal_arena_checked() ||
	    __atomic_load_n(&al_cm_g.ev_cached, __ATOMIC_RELAXED) >= AL_CM_EV_CACHE) {
		cl_free(p_ev);
		return;
	}
	__atomic_fetch_add(&al_cm_g.ev_cached, 1, __ATOMIC_RELAXED);
	p_ev->p_q_next = __atomic_load_n(&al_cm_g.ev_cache, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&al_cm_g.ev_cache, &p_ev->p_q_next, p_ev, FALSE,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
}

void al_cm_ev_cache_drain(void)
{
	cm_event_t *p_ev;

	pthread_mutex_lock(&al_cm_g.lock);
	while ((p_ev = ev_pop_locked()) != NULL)
		cl_free(p_ev);
	pthread_mutex_unlock(&al_cm_g.lock);
}

/* After a callback of @p kind: releases the CEP's waiter if it waits for it. */
static void sync_release(al_cep_t *p_cep, cm_ev_kind_t kind)
{
	/* Most callbacks have no waiter: no lock for them. A waiter is set
	 * before its request goes out, so before the answer's callback. */
	if (!__atomic_load_n(&p_cep->p_sync, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&al_cm_g.lock);
	if (p_cep->p_sync && (p_cep->p_sync->kinds & (1u << kind))) {
		cl_event_signal(&p_cep->p_sync->event);
		__atomic_store_n(&p_cep->p_sync, NULL, __ATOMIC_RELAXED);
	}
	al_cm_unlock();
}

static void AL_API cm_event_run(void *context)
{
	cm_event_t *p_ev = (cm_event_t *)context;
	al_cep_t *p_cep = p_ev->p_cep;
	cl_qlist_t dead;
	al_listen_t *p_listen = NULL;

	cl_qlist_init(&dead);
	if (p_ev->kind == EV_REQ) {
		boolean_t run = TRUE;

		pthread_mutex_lock(&al_cm_g.lock);
		p_listen = p_cep->p_listen;
		p_cep->p_listen = NULL;
		if (p_listen && p_listen->cancelled) {
			/* The listen went while the REQ waited: refuse it. */
			run = FALSE;
			if (p_cep->state == AL_CM_REQ_RCVD) {
				al_cm_cep_send_rej(p_cep, IB_REJ_INVALID_SID, AL_CM_REF_REQ, NULL, 0, NULL, 0);
				al_cm_cep_kill_locked(p_cep, &dead);
			}
		}
		al_cm_unlock();
		if (run)
			((ib_pfn_cm_req_cb_t)p_ev->pfn)(&p_ev->rec.req);
		sync_release(p_cep, EV_REQ);  /* a peer-to-peer ib_cm_req answered by the peer's REQ */
		if (p_listen)
			al_obj_deref(&p_listen->obj);
		al_cm_destroy_dead(&dead);
		ev_free(p_ev);
		return;
	}
	switch (p_ev->kind) {
	case EV_REP:
		((ib_pfn_cm_rep_cb_t)p_ev->pfn)(&p_ev->rec.rep);
		break;
	case EV_RTU:
		((ib_pfn_cm_rtu_cb_t)p_ev->pfn)(&p_ev->rec.rtu);
		break;
	case EV_REJ:
		((ib_pfn_cm_rej_cb_t)p_ev->pfn)(&p_ev->rec.rej);
		break;
	case EV_MRA:
		((ib_pfn_cm_mra_cb_t)p_ev->pfn)(&p_ev->rec.mra);
		break;
	case EV_DREQ:
		((ib_pfn_cm_dreq_cb_t)p_ev->pfn)(&p_ev->rec.dreq);
		break;
	case EV_DREP:
		((ib_pfn_cm_drep_cb_t)p_ev->pfn)(&p_ev->rec.drep);
		break;
	case EV_LAP:
		((ib_pfn_cm_lap_cb_t)p_ev->pfn)(&p_ev->rec.lap);
		break;
	case EV_APR:
		((ib_pfn_cm_apr_cb_t)p_ev->pfn)(&p_ev->rec.apr);
		break;
	default:
		break;
	}
	sync_release(p_cep, p_ev->kind);
	ev_free(p_ev);
}

cm_event_t *al_cm_ev_new(al_cep_t *p_cep, cm_ev_kind_t kind, void *pfn)
{
	cm_event_t *p_ev;

	if (!pfn)
		return NULL;
	p_ev = ev_take_locked();
	if (!p_ev)
		return NULL;
	p_ev->p_cep = p_cep;
	p_ev->kind = kind;
	p_ev->pfn = pfn;
	return p_ev;
}

/* Puts one event on its CEP's callback queue and drops its reference. */
static void ev_hand(void *entry)
{
	cm_event_t *p_ev = (cm_event_t *)entry;
	al_cep_t *p_cep = p_ev->p_cep;

	p_ev->item.pfn_cb = cm_event_run;
	p_ev->item.context = p_ev;
	/* On a MAD thread that received the message, it runs the callback
	 * itself after its batch (al_mad_lend.c, which also says whether it
	 * takes any: IBAL_AL_CM_INLINE); elsewhere, a callback thread does. */
	if (al_obj_queue_cb_item_here(&p_cep->obj, &p_ev->item) != IB_SUCCESS)
		ev_free(p_ev);
	al_obj_deref(&p_cep->obj);
}

/*
 * Events made under al_cm_g.lock wait on evq and are put on their CEPs'
 * callback queues after the lock is released (al_cm_unlock). Queueing a
 * callback may wake a callback thread, a system call; done under the lock
 * it also let the woken thread run the callback, whose ib_cm_* call waited
 * for the lock still held by the waker. evq keeps the order the events
 * were made in, so each CEP's callbacks keep theirs. A queued event holds a
 * reference of its CEP: the CEP's destruction cannot close its callback
 * queue (or free the event, when it is the CEP's own) before the event is
 * on it.
 */
static cm_outq_t evq = CM_OUTQ_INIT(cm_event_t, p_q_next, ev_hand);

/* Queues an event for its CEP; al_cm_g.lock held. */
void al_cm_ev_queue(cm_event_t *p_ev)
{
	if (!p_ev)
		return;
	al_obj_ref(&p_ev->p_cep->obj);
	al_cm_outq_put(&evq, p_ev);
}

void al_cm_ev_flush(void)
{
	al_cm_outq_run(&evq, FALSE);
}

ib_cm_handle_t al_cm_cep_handle(const al_cep_t *p_cep)
{
	ib_cm_handle_t h;

	h.h_al = p_cep->h_al;
	h.h_qp = p_cep->h_qp;
	h.cid = cl_hton32(p_cep->local_id);
	return h;
}

void al_cm_queue_rej(al_cep_t *p_cep, const al_cm_rej_msg_t *p_rej, ib_net16_t reason)
{
	cm_event_t *p_ev = al_cm_ev_new(p_cep, EV_REJ, (void *)p_cep->pfn_rej);

	if (!p_ev)
		return;
	if (p_rej)
		p_ev->msg.rej = *p_rej;
	p_ev->rec.rej.rej_status = reason;
	p_ev->rec.rej.p_ari = p_ev->msg.rej.ari;
	p_ev->rec.rej.ari_length = p_ev->msg.rej.ari_length;
	p_ev->rec.rej.p_rej_pdata = p_ev->msg.rej.private_data;
	p_ev->rec.rej.h_qp = p_cep->h_qp;
	p_ev->rec.rej.qp_context = p_cep->qp_context;
	al_cm_ev_queue(p_ev);
}

/* ---- Path conversions ---- */

void al_cm_path_to_wire(const ib_path_rec_t *p, al_cm_path_t *w, uint8_t ack_timeout)
{
	memset(w, 0, sizeof(*w));
	w->local_lid = cl_ntoh16(p->slid);
	w->remote_lid = cl_ntoh16(p->dlid);
	w->local_gid = p->sgid;
	w->remote_gid = p->dgid;
	w->flow_label = cl_ntoh32(ib_path_rec_flow_lbl(p));
	w->packet_rate = ib_path_rec_rate(p);
	w->traffic_class = p->tclass;
	w->hop_limit = ib_path_rec_hop_limit(p);
	w->sl = ib_path_rec_sl(p);
	w->subnet_local = w->hop_limit <= 1;
	w->local_ack_timeout = ack_timeout;
}

/* The passive side's view of a REQ path. */
void al_cm_wire_to_path(const al_cm_path_t *w, const al_cm_req_msg_t *p_req, ib_path_rec_t *p)
{
	memset(p, 0, sizeof(*p));
	p->service_id = cl_hton64(p_req->service_id);
	p->slid = cl_hton16(w->remote_lid);
	p->dlid = cl_hton16(w->local_lid);
	p->sgid = w->remote_gid;
	p->dgid = w->local_gid;
	ib_path_rec_set_hop_flow_raw(p, w->hop_limit, w->flow_label, FALSE);
	p->tclass = w->traffic_class;
	p->num_path = 0x80 | 1;
	p->pkey = cl_hton16(p_req->pkey);
	ib_path_rec_set_sl(p, w->sl);
	p->mtu = (uint8_t)(0x80 | (p_req->path_mtu & 0x3F));
	p->rate = (uint8_t)(0x80 | (w->packet_rate & 0x3F));
	p->pkt_life = (uint8_t)(0x80 | ((w->local_ack_timeout ? w->local_ack_timeout - 1 : 0) & 0x3F));
}

/* ---- Timer ---- */

static void cep_expired(al_cep_t *p_cep, cl_qlist_t *p_dead)
{
	if (p_cep->retries_left && p_cep->state != AL_CM_TIMEWAIT) {
		p_cep->retries_left--;
		IBAL_DBG(IBAL_SUB_CM, "comm ID 0x%x in %s: no answer in %u ms, sending again (%u more)",
			 p_cep->local_id, al_cm_state_name(p_cep->state), p_cep->timeout_ms,
			 (unsigned)p_cep->retries_left);
		al_cm_g.stats.n_resend++;
		al_cm_cep_resend_last(p_cep);
		al_cm_timer_rearm(p_cep, p_cep->timeout_ms);
		return;
	}
	al_cm_timer_stop(p_cep);
	al_cm_pace_done(p_cep);    /* its request is given up */
	if (p_cep->state != AL_CM_TIMEWAIT)
		IBAL_DBG(IBAL_SUB_CM, "comm ID 0x%x in %s: timed out, no retries left",
			 p_cep->local_id, al_cm_state_name(p_cep->state));
	switch (p_cep->state) {
	case AL_CM_REQ_SENT:
	case AL_CM_MRA_REQ_RCVD:
		al_cm_cep_send_rej(p_cep, IB_REJ_TIMEOUT, AL_CM_REF_REQ, NULL, 0, NULL, 0);
		al_cm_qp_error(p_cep);
		al_cm_queue_rej(p_cep, NULL, IB_REJ_TIMEOUT);
		al_cm_cep_kill_locked(p_cep, p_dead);
		break;
	case AL_CM_REP_SENT:
	case AL_CM_MRA_REP_RCVD:
		al_cm_cep_send_rej(p_cep, IB_REJ_TIMEOUT, AL_CM_REF_REP, NULL, 0, NULL, 0);
		al_cm_qp_error(p_cep);
		al_cm_queue_rej(p_cep, NULL, IB_REJ_TIMEOUT);
		al_cm_enter_timewait(p_cep);
		break;
	case AL_CM_DREQ_SENT:
		al_cm_queue_drep(p_cep, IB_TIMEOUT, NULL);
		al_cm_enter_timewait(p_cep);
		break;
	case AL_CM_LAP_SENT:
	case AL_CM_MRA_LAP_RCVD:
		al_cm_queue_apr(p_cep, IB_TIMEOUT, NULL);
		p_cep->state = AL_CM_ESTABLISHED;
		break;
	case AL_CM_SIDR_REQ_SENT:
		/* No status of a SIDR_REP means a timeout: the rej callback says it. */
		al_cm_queue_rej(p_cep, NULL, IB_REJ_TIMEOUT);
		al_cm_cep_kill_locked(p_cep, p_dead);
		break;
	case AL_CM_TIMEWAIT:
		al_cm_cep_kill_locked(p_cep, p_dead);
		break;
	default:
		break;
	}
}

void al_cm_timer_cb(void *context)
{
	al_cep_t *p_cep;
	uint64_t now, first = 0;
	cl_qlist_t dead;

	(void)context;
	cl_qlist_init(&dead);
	pthread_mutex_lock(&al_cm_g.lock);
	al_cm_lists_init_locked();
	__atomic_store_n(&al_cm_g.timer_at, 0, __ATOMIC_RELAXED); /* it fired */
	now = cl_get_time_stamp();
	/* The timers are kept in deadline order: the expired CEPs come first,
	 * earliest first. Each leaves (a resend re-enters later than now). */
	while ((p_cep = al_cm_timer_first()) != NULL) {
		if (p_cep->deadline_us > now) {
			first = p_cep->deadline_us;
			break;
		}
		al_cm_timer_stop(p_cep);
		cep_expired(p_cep, &dead);
	}
	if (first)
		al_cm_timer_due(first, first > now ? (uint32_t)((first - now + 999) / 1000) : 0);
	al_cm_unlock();
	al_cm_destroy_dead(&dead);
}

/* ---- QP destruction (al_cm_client) ---- */

/* A QP bound to a CEP is being destroyed: the connection ends. */
void al_cm_qp_destroying(struct al_qp *p_qp)
{
	al_cep_t *p_cep;
	cl_qlist_t dead;
	const al_cm_kern_ops_t *k = al_cm_kern_get();

	if (k)
		k->qp_destroying(p_qp);
	cl_qlist_init(&dead);
	pthread_mutex_lock(&al_cm_g.lock);
	while ((p_cep = al_cm_cep_by_qp(p_qp)) != NULL) {
		switch (p_cep->state) {
		case AL_CM_REQ_SENT:
		case AL_CM_MRA_REQ_RCVD:
			al_cm_cep_send_rej(p_cep, IB_REJ_INSUF_QP, AL_CM_REF_REQ, NULL, 0, NULL, 0);
			al_cm_cep_kill_locked(p_cep, &dead);
			break;
		case AL_CM_REP_SENT:
		case AL_CM_MRA_REP_RCVD:
		case AL_CM_REP_RCVD:
		case AL_CM_MRA_REP_SENT:
			al_cm_cep_send_rej(p_cep, IB_REJ_INSUF_QP, AL_CM_REF_REP, NULL, 0, NULL, 0);
			p_cep->h_qp = NULL;
			p_cep->p_qp = NULL;
			al_cm_enter_timewait(p_cep);
			break;
		case AL_CM_ESTABLISHED: {
			al_cm_msg_t m;

			memset(&m, 0, sizeof(m));
			m.dreq.local_comm_id = p_cep->local_id;
			m.dreq.remote_comm_id = p_cep->remote_id;
			m.dreq.remote_qpn = p_cep->remote_qpn;
			p_cep->tid = al_cm_new_tid();
			al_cm_cep_send(p_cep, AL_CM_MSG_DREQ, &m);
			p_cep->h_qp = NULL;
			p_cep->p_qp = NULL;
			al_cm_enter_timewait(p_cep);
			break;
		}
		default:
			p_cep->h_qp = NULL;
			p_cep->p_qp = NULL;
			if (p_cep->state != AL_CM_TIMEWAIT && p_cep->state != AL_CM_DREQ_SENT &&
			    p_cep->state != AL_CM_DREQ_RCVD)
				al_cm_cep_kill_locked(p_cep, &dead);
			break;
		}
		al_cm_cep_index_locked(p_cep);  /* out of al_cm_g.qps */
	}
	al_cm_unlock();
	al_cm_destroy_dead(&dead);
}

