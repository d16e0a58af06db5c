/*
 * ibal soft provider: queue pairs: create, query, modify (with flush), destroy, post.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * State rules of the post paths (IBA 10.8 and 11.4):
 * - post_recv: INIT, RTR, RTS, SQD, SQE queue the WR; ERROR completes it at
 *   once with IB_WCS_WR_FLUSHED_ERR; RESET is IB_INVALID_QP_STATE; a QP on
 *   an SRQ has no receive queue (IB_INVALID_PARAMETER).
 * - post_send: RTS executes (UD: soft_ud.c, at once, in the caller's
 *   thread); SQD queues until SQD to RTS; SQE and ERROR complete with
 *   IB_WCS_WR_FLUSHED_ERR; RESET, INIT, RTR are IB_INVALID_QP_STATE.
 * - A UD packet that finds its destination's ring full waits (soft_ud.c):
 *   its WR heads the send queue, the QP is queued with its CA
 *   (soft_ca_pend()), and later sends queue behind it until
 *   soft_qp_resume_sends() has sent it. Those posted in RTS go out in SQD
 *   too: SQD_DRAINING ends when the last of them has.
 * - To ERROR flushes the receive queue and the send queue (flush
 *   completions are generated whatever the signaling); to RESET drops them
 *   silently.
 *
 * The reliable engine (RC/UC, soft_rc*.c): RC/UC QPs are created and
 * modified fully here, which calls it directly (soft_rc.h):
 * - soft_rc_post_send for RC/UC WRs (no lock held: it takes tab_lock and
 *   rc->lock itself);
 * - soft_rc_recv, from the progress thread, for RC/UC packets (tab_lock read);
 * - soft_rc_state_changed after every successful modify (to start/stop
 *   timers, flush its send WQEs on ERROR);
 * - soft_rc_destroy to free qp->rc.
 * It may use soft_qp_hw_event() for HCA-made transitions, soft_cq_add() /
 * soft_cq_add_err() for completions, soft_mr_check() for keys, and
 * qp->attr (PSNs, path, timers) under qp->lock.
 */
#include <stdlib.h>
#include <string.h>
#include "soft_rc.h"
#include "ibal_mem.h"

void soft_cq_add_err(soft_cq_t *cq, uint64_t wr_id, ib_wc_type_t type, ib_wc_status_t status)
{
	ib_wc_t wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.wc_type = type;
	wc.status = status;
	soft_cq_add(cq, &wc, FALSE);
}

boolean_t soft_qp_hw_event(soft_qp_t *qp, prov_qp_event_t ev)
{
	ib_async_event_t ae = 0;
	boolean_t changed = prov_qp_event(qp->type, &qp->attr, ev, &ae);

	soft_qp_publish(qp);
	if (changed && ae)
		soft_ca_defer(qp->ca, qp, qp->al_qp, 0, ae, 0);
	return changed;
}

void soft_qp_flush_rq(soft_qp_t *qp)
{
	soft_rwqe_buf_t buf; /* no allocation: the flush cannot fail */

	if (qp->srq || !qp->rq.count)
		return;
	while (soft_rq_pop(&qp->rq, &buf.w))
		soft_cq_add_err(qp->rcq, buf.w.wr_id, IB_WC_RECV, IB_WCS_WR_FLUSHED_ERR);
}

/* Flushes the sends queued in SQD (lock held). */
static void flush_sq(soft_qp_t *qp)
{
	while (qp->sq_count) {
		soft_cq_add_err(qp->scq, qp->sq[qp->sq_head].wr.wr_id, IB_WC_SEND,
				IB_WCS_WR_FLUSHED_ERR);
		qp->sq_head = prov_ring_at(qp->sq_head, 1, qp->sq_depth);
		qp->sq_count--;
	}
	qp->sq_live = 0;
	qp->sq_held_ns = 0;
}

/* Checks and adjusts the queue sizes of a create request. */
static ib_api_status_t check_sizes(ib_qp_create_t *c, boolean_t has_srq)
{
	ib_api_status_t st = IB_SUCCESS;

	if (c->sq_max_inline > SOFT_MAX_INLINE) {
		c->sq_max_inline = SOFT_MAX_INLINE;
		st = IB_INVALID_SETTING;
	}
	if (c->sq_sge > SOFT_MAX_SGES || (!has_srq && c->rq_sge > SOFT_MAX_SGES)) {
		if (c->sq_sge > SOFT_MAX_SGES)
			c->sq_sge = SOFT_MAX_SGES;
		if (c->rq_sge > SOFT_MAX_SGES)
			c->rq_sge = SOFT_MAX_SGES;
		st = IB_INVALID_MAX_SGE;
	}
	if (c->sq_depth > SOFT_MAX_WRS || (!has_srq && c->rq_depth > SOFT_MAX_WRS)) {
		if (c->sq_depth > SOFT_MAX_WRS)
			c->sq_depth = SOFT_MAX_WRS;
		if (c->rq_depth > SOFT_MAX_WRS)
			c->rq_depth = SOFT_MAX_WRS;
		st = IB_INVALID_MAX_WRS;
	}
	if (st != IB_SUCCESS)
		return st;
	/* What is made: the inline limit is always the CA's. */
	c->sq_max_inline = SOFT_MAX_INLINE;
	if (has_srq)
		c->rq_depth = c->rq_sge = 0;
	return IB_SUCCESS;
}

static void qp_free(soft_qp_t *qp)
{
	soft_rq_free(&qp->rq);
	cl_free(qp->sq);
	cl_free(qp->pkt);
	soft_lock_destroy(&qp->lock);
	soft_lock_destroy(&qp->sq_lock);
	prov_conn_mem_put(qp, sizeof(*qp));
}

/* Allocates a QP whose sizes were checked; numbering is up to the caller. */
static ib_api_status_t qp_alloc(soft_pd_t *pd, const ib_qp_create_t *c, soft_cq_t *scq,
				soft_cq_t *rcq, soft_srq_t *srq, void *al_qp, uint8_t port,
				soft_qp_t **pp_qp)
{
	soft_qp_t *qp = prov_conn_mem_get(sizeof(*qp));

	if (!qp)
		return IB_INSUFFICIENT_MEMORY;
	soft_lock_init(&qp->lock);
	soft_lock_init(&qp->sq_lock);
	qp->ca = pd->ca;
	qp->pd = pd;
	qp->al_qp = al_qp;
	qp->type = c->qp_type;
	qp->cls = prov_qp_class(c->qp_type);
	qp->spl_port = port;
	qp->scq = scq;
	qp->rcq = rcq;
	qp->srq = srq;
	qp->sq_signaled = c->sq_signaled;
	qp->sq_depth = c->sq_depth;
	qp->sq_sge = c->sq_sge;
	qp->max_inline = c->sq_max_inline;
	prov_qp_attr_init(&qp->attr, qp->type, port);
	soft_qp_publish(qp);
	/* The datagram send path's packet buffer and SQD queue; the connected
	 * transports keep their own, smaller state (soft_rc.c). */
	if (qp->cls >= PROV_QPC_UD) {
		qp->pkt = cl_malloc(SOFT_MAX_PKT_LEN);
		qp->sq = c->sq_depth ? cl_zalloc(c->sq_depth * sizeof(*qp->sq)) : NULL;
		if (!qp->pkt || (c->sq_depth && !qp->sq)) {
			qp_free(qp);
			return IB_INSUFFICIENT_MEMORY;
		}
		/* Its send queue resident now, as an HCA's (ibal_mem.h). */
		ibal_mem_prefault(qp->sq, c->sq_depth * sizeof(*qp->sq));
	}
	if (
	    soft_rq_init(&qp->rq, srq ? 0 : c->rq_depth, srq ? 0 : c->rq_sge) != IB_SUCCESS) {
		qp_free(qp);
		return IB_INSUFFICIENT_MEMORY;
	}
	*pp_qp = qp;
	return IB_SUCCESS;
}

static void cq_ref(soft_cq_t *cq, int d)
{
	soft_lock(&cq->lock);
	cq->n_qp += (uint32_t)d;
	soft_unlock(&cq->lock);
}

static void srq_ref(soft_srq_t *srq, int d)
{
	if (!srq)
		return;
	soft_lock(&srq->lock);
	srq->n_qp += (uint32_t)d;
	soft_unlock(&srq->lock);
}

ib_api_status_t soft_create_qp(void *h_pd, ib_qp_create_t *c, void *send_cq, void *recv_cq,
			       void *h_srq, void *al_qp, void **pp_qp)
{
	soft_pd_t *pd = h_pd;
	soft_ca_t *ca = pd->ca;
	soft_qp_t *qp;
	prov_qp_class_t cls;
	ib_api_status_t st;
	uint32_t i, qpn;

	if (!c || !pp_qp)
		return IB_INVALID_PARAMETER;
	cls = prov_qp_class(c->qp_type);
	if (cls != PROV_QPC_RC && cls != PROV_QPC_UC && cls != PROV_QPC_UD)
		return IB_INVALID_SETTING;
	if (!send_cq || !recv_cq)
		return IB_INVALID_CQ_HANDLE;
	if (h_srq && c->qp_type == IB_QPT_MAD)
		return IB_INVALID_SETTING;
	st = check_sizes(c, h_srq != NULL);
	if (st != IB_SUCCESS)
		return st;
	st = qp_alloc(pd, c, send_cq, recv_cq, h_srq, al_qp, 0, &qp);
	if (st != IB_SUCCESS)
		return st;
	/* An RC or UC QP gets its transport state now, not at its first
	 * modify: a connection's allocations (and their page faults) then
	 * happen in ib_create_qp, not where the CM moves the QP to INIT under
	 * its lock. */
	if (cls != PROV_QPC_UD && soft_rc_prepare(qp) != IB_SUCCESS) {
		qp_free(qp);
		return IB_INSUFFICIENT_MEMORY;
	}
	soft_tab_write(ca);
	for (i = 0; i < SOFT_MAX_QPS - 2; i++) {
		qpn = 2 + (ca->next_qpn - 2 + i) % (SOFT_MAX_QPS - 2);
		if (!ca->qp_tab[qpn])
			break;
	}
	if (i == SOFT_MAX_QPS - 2) {
		soft_tab_write_end(ca);
		soft_rc_destroy(qp);
		qp_free(qp);
		return IB_INSUFFICIENT_RESOURCES;
	}
	qp->qpn = qpn;
	ca->qp_tab[qpn] = qp;
	ca->next_qpn = 2 + (qpn - 1) % (SOFT_MAX_QPS - 2);
	soft_tab_write_end(ca);
	cq_ref(qp->scq, 1);
	cq_ref(qp->rcq, 1);
	srq_ref(qp->srq, 1);
	*pp_qp = qp;
	return IB_SUCCESS;
}

ib_api_status_t soft_create_spl_qp(void *h_pd, uint8_t port_num, ib_qp_create_t *c,
				   void *send_cq, void *recv_cq, void *al_qp, void **pp_qp)
{
	soft_pd_t *pd = h_pd;
	soft_ca_t *ca = pd->ca;
	soft_port_t *port = soft_ca_port(ca, port_num);
	soft_qp_t *qp;
	ib_api_status_t st;
	unsigned n;

	if (!c || !pp_qp)
		return IB_INVALID_PARAMETER;
	if (c->qp_type == IB_QPT_QP0_ALIAS || c->qp_type == IB_QPT_QP1_ALIAS)
		return IB_UNSUPPORTED;
	if (c->qp_type != IB_QPT_QP0 && c->qp_type != IB_QPT_QP1)
		return IB_INVALID_SETTING;
	if (!port)
		return IB_INVALID_PORT;
	if (!send_cq || !recv_cq)
		return IB_INVALID_CQ_HANDLE;
	st = check_sizes(c, FALSE);
	if (st != IB_SUCCESS)
		return st;
	n = c->qp_type == IB_QPT_QP0 ? 0 : 1;
	st = qp_alloc(pd, c, send_cq, recv_cq, NULL, al_qp, port_num, &qp);
	if (st != IB_SUCCESS)
		return st;
	qp->qpn = n;
	soft_tab_write(ca);
	if (port->spl[n]) {
		soft_tab_write_end(ca);
		qp_free(qp);
		return IB_RESOURCE_BUSY;
	}
	port->spl[n] = qp;
	soft_tab_write_end(ca);
	cq_ref(qp->scq, 1);
	cq_ref(qp->rcq, 1);
	*pp_qp = qp;
	return IB_SUCCESS;
}

ib_api_status_t soft_query_qp(void *h, ib_qp_attr_t *a)
{
	soft_qp_t *qp = h;

	if (!a)
		return IB_INVALID_PARAMETER;
	memset(a, 0, sizeof(*a));
	soft_lock(&qp->lock);
	prov_qp_attr_to_ib(&qp->attr, a);
	soft_unlock(&qp->lock);
	a->qp_type = qp->type;
	a->sq_max_inline = qp->max_inline;
	a->sq_depth = qp->sq_depth;
	a->rq_depth = qp->rq.depth;
	a->sq_sge = qp->sq_sge;
	a->rq_sge = qp->rq.max_sge;
	a->sq_signaled = qp->sq_signaled;
	a->num = cl_hton32(qp->qpn);
	return IB_SUCCESS;
}

/* Queues the QP with its CA until the send at the head of its queue, held
 * at a full ring, can go; without memory for that the send is dropped. */
static boolean_t pend_sends(soft_qp_t *qp)
{
	if (soft_ca_pend(qp->ca, soft_qp_pend_key(qp), TRUE))
		return TRUE;
	qp->sq_held_ns = 1; /* as if it had waited long: emit() drops it */
	return FALSE;
}

/*
 * Runs the queued sends (tab_lock read and sq_lock held): all of them in RTS, only those
 * posted in RTS (sq_live) in SQD. One whose packet must wait stays at the
 * head and the QP is queued with its CA again. One that fails takes the QP
 * to SQE, which flushes those behind it (IBA 10.8.3.3).
 */
static void run_queued(soft_qp_t *qp)
{
	soft_swqe_t *w;
	ib_qp_state_t state;

	for (;;) {
		soft_lock(&qp->lock);
		state = qp->attr.state;
		if (!qp->sq_count ||
		    !(state == IB_QPS_RTS || (qp->sq_live && (state & IB_QPS_SQD) == IB_QPS_SQD))) {
			soft_unlock(&qp->lock);
			break;
		}
		w = &qp->sq[qp->sq_head]; /* posts need sq_lock: the slot stays */
		soft_unlock(&qp->lock);
		if (!soft_ud_execute(qp, &w->wr, (w->wr.send_opt & IB_SEND_OPT_INLINE) ? w->inl : NULL,
				     w->inl_len)) {
			if (pend_sends(qp))
				return;
			continue; /* sent now, as a drop */
		}
		soft_lock(&qp->lock);
		qp->sq_head = prov_ring_at(qp->sq_head, 1, qp->sq_depth);
		qp->sq_count--;
		if (qp->sq_live)
			qp->sq_live--;
		soft_unlock(&qp->lock);
	}
	soft_lock(&qp->lock);
	if (qp->attr.state == IB_QPS_SQERR)
		flush_sq(qp);
	else if (qp->attr.state == IB_QPS_SQD_DRAINING && !qp->sq_live)
		soft_qp_hw_event(qp, PROV_QP_EV_SQ_DRAINED);
	soft_unlock(&qp->lock);
}

void soft_qp_resume_sends(soft_qp_t *qp)
{
	soft_lock(&qp->sq_lock);
	run_queued(qp);
	soft_unlock(&qp->sq_lock);
}

ib_api_status_t soft_modify_qp(void *h, const ib_qp_mod_t *p_mod)
{
	soft_qp_t *qp = h;
	soft_ca_t *ca = qp->ca;
	ib_qp_state_t old, now;
	ib_apm_state_t old_apm;
	boolean_t old_alt;
	boolean_t dgrm = qp->cls >= PROV_QPC_UD;
	ib_api_status_t st;

	if (!p_mod)
		return IB_INVALID_PARAMETER;
	/* An RC or UC QP's transport state (a datagram QP has none) is made
	 * before anything changes, and before sq_lock (its writer takes
	 * rx_lock, the outermost lock): a modify that cannot have it fails
	 * whole. */
	if (p_mod->req_state != IB_QPS_RESET && !dgrm && soft_rc_prepare(qp) != IB_SUCCESS)
		return IB_INSUFFICIENT_MEMORY;
	/* A datagram QP's queued sends may go below (run_queued()): the send
	 * path's locks, tab_lock first. */
	if (dgrm)
		soft_rwlock_read(&ca->tab_lock);
	soft_lock(&qp->sq_lock);
	soft_lock(&qp->lock);
	old = qp->attr.state;
	old_apm = qp->attr.apm_state;
	old_alt = qp->attr.alt_valid;
	pthread_mutex_lock(&ca->lock);
	st = prov_qp_modify(qp->type, &qp->attr, p_mod, ca->attr, NULL);
	pthread_mutex_unlock(&ca->lock);
	if (st != IB_SUCCESS) {
		soft_unlock(&qp->lock);
		soft_unlock(&qp->sq_lock);
		if (dgrm)
			soft_rwlock_read_end(&ca->tab_lock);
		return st;
	}
	now = qp->attr.state;
	soft_qp_publish(qp);
	soft_apm_modified(qp, old_apm, old_alt);
	if (now == IB_QPS_ERROR && old != IB_QPS_ERROR) {
		soft_qp_flush_rq(qp);
		flush_sq(qp);
		if (qp->srq)
			soft_ca_defer(ca, qp, qp->al_qp, 0, IB_AE_SRQ_QP_LAST_WQE_REACHED, 0);
	} else if (now == IB_QPS_RESET) {
		qp->rq.head = qp->rq.count = 0;
		qp->sq_head = qp->sq_count = qp->sq_live = 0;
		qp->sq_held_ns = 0;
		memset(qp->sq_stuck, 0, sizeof(qp->sq_stuck));
		qp->sq_n_stuck = 0;
	} else if (now == IB_QPS_SQD_DRAINING && dgrm && !qp->sq_live) {
		/* UD sends run at their post: only those held at a full ring are
		 * outstanding (run_queued() ends the draining; RC/UC: soft_rc.c). */
		soft_qp_hw_event(qp, PROV_QP_EV_SQ_DRAINED);
	}
	soft_unlock(&qp->lock);
	if (now == IB_QPS_RTS && (old & IB_QPS_SQD) == IB_QPS_SQD)
		run_queued(qp);
	soft_unlock(&qp->sq_lock);
	if (dgrm)
		soft_rwlock_read_end(&ca->tab_lock);
	soft_rc_state_changed(qp, old, now);
	return IB_SUCCESS;
}

void soft_destroy_qp(void *h)
{
	soft_qp_t *qp = h;
	soft_ca_t *ca = qp->ca;

	soft_tab_write(ca);
	if (qp->spl_port)
		soft_ca_port(ca, qp->spl_port)->spl[qp->qpn] = NULL;
	else
		ca->qp_tab[qp->qpn] = NULL;
	soft_mcast_qp_gone(qp);
	soft_tab_write_end(ca);
	soft_ca_purge(ca, qp);
	soft_rc_destroy(qp);
	cq_ref(qp->scq, -1);
	cq_ref(qp->rcq, -1);
	srq_ref(qp->srq, -1);
	qp_free(qp);
}

ib_api_status_t soft_post_recv(void *h, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure)
{
	soft_qp_t *qp = h;
	ib_api_status_t st = IB_SUCCESS;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	soft_lock(&qp->lock);
	if (qp->srq)
		st = IB_INVALID_PARAMETER;
	else if (qp->attr.state == IB_QPS_RESET)
		st = IB_INVALID_QP_STATE;
	for (; st == IB_SUCCESS && p_wr; p_wr = p_wr->p_next) {
		st = soft_rq_push(&qp->rq, p_wr);
		if (st != IB_SUCCESS)
			break;
	}
	if (qp->attr.state == IB_QPS_ERROR)
		soft_qp_flush_rq(qp);
	soft_unlock(&qp->lock);
	if (st != IB_SUCCESS && pp_failure)
		*pp_failure = p_wr;
	return st;
}

/* Queues a send (lock held): in SQD, or behind one held at a full ring. */
static ib_api_status_t sq_queue(soft_qp_t *qp, const ib_send_wr_t *p_wr)
{
	soft_swqe_t *w;
	uint32_t i, off = 0;

	if (qp->sq_count == qp->sq_depth)
		return IB_INSUFFICIENT_RESOURCES;
	w = &qp->sq[prov_ring_at(qp->sq_head, qp->sq_count, qp->sq_depth)];
	w->wr = *p_wr;
	w->wr.p_next = NULL;
	w->wr.ds_array = w->ds;
	memcpy(w->ds, p_wr->ds_array, p_wr->num_ds * sizeof(ib_local_ds_t));
	w->inl_len = 0;
	if (p_wr->send_opt & IB_SEND_OPT_INLINE) {
		for (i = 0; i < p_wr->num_ds; i++) {
			memcpy(w->inl + off, (const void *)(uintptr_t)p_wr->ds_array[i].vaddr,
			       p_wr->ds_array[i].length);
			off += p_wr->ds_array[i].length;
		}
		w->inl_len = off;
	}
	qp->sq_count++;
	return IB_SUCCESS;
}

/* Posts one send WR (sq_lock held). */
static ib_api_status_t post_one(soft_qp_t *qp, ib_send_wr_t *p_wr)
{
	ib_qp_state_t state;
	ib_api_status_t st;

	soft_lock(&qp->lock);
	state = qp->attr.state;
	if (state == IB_QPS_ERROR || state == IB_QPS_SQERR) {
		soft_cq_add_err(qp->scq, p_wr->wr_id, IB_WC_SEND, IB_WCS_WR_FLUSHED_ERR);
		soft_unlock(&qp->lock);
		return IB_SUCCESS;
	}
	if (state != IB_QPS_RTS && (state & IB_QPS_SQD) != IB_QPS_SQD) {
		soft_unlock(&qp->lock);
		return IB_INVALID_QP_STATE;
	}
	st = soft_ud_check_wr(qp, p_wr);
	/* Behind a held send (its QP is queued with the CA already), or in SQD. */
	if (st == IB_SUCCESS && (state != IB_QPS_RTS || qp->sq_count)) {
		st = sq_queue(qp, p_wr);
		if (st == IB_SUCCESS && state == IB_QPS_RTS)
			qp->sq_live++;
		soft_unlock(&qp->lock);
		return st;
	}
	soft_unlock(&qp->lock);
	if (st == IB_SUCCESS && !soft_ud_execute(qp, p_wr, NULL, 0)) {
		/* Its packet waits: the WR heads the queue, empty until now. */
		soft_lock(&qp->lock);
		st = sq_queue(qp, p_wr);
		if (st == IB_SUCCESS)
			qp->sq_live = 1;
		soft_unlock(&qp->lock);
		if (st == IB_SUCCESS && !pend_sends(qp))
			run_queued(qp); /* not queued with the CA: sent now, as a drop */
	}
	return st;
}

ib_api_status_t soft_post_send(void *h, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure)
{
	soft_qp_t *qp = h;
	ib_api_status_t st = IB_SUCCESS;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	/* RC/UC: the transport's own locks order the posts (soft_rc.h). */
	if (qp->cls == PROV_QPC_RC || qp->cls == PROV_QPC_UC)
		return soft_rc_post_send(qp, p_wr, pp_failure);
	/* tab_lock before sq_lock, as soft_qp_resume_sends() has them: the
	 * packets are built from registered memory under it. */
	soft_rwlock_read(&qp->ca->tab_lock);
	soft_lock(&qp->sq_lock);
	for (; p_wr; p_wr = p_wr->p_next) {
		st = post_one(qp, p_wr);
		if (st != IB_SUCCESS) {
			if (pp_failure)
				*pp_failure = p_wr;
			break;
		}
	}
	soft_unlock(&qp->sq_lock);
	soft_rwlock_read_end(&qp->ca->tab_lock);
	return st;
}
