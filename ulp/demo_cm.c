/*
 * ibal ulp: ibal_demo's connection through the connection manager: the
 * server listens and accepts (ib_cm_listen, ib_cm_rep), the client finds the
 * path through the SA and connects (ib_query, ib_cm_req, ib_cm_rtu), each
 * side's RDMA buffer travels in the private data, and the client
 * disconnects (ib_cm_dreq, ib_cm_drep).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See ibal_demo.c for the program and demo.h for what it shares.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "demo.h"

#define DEMO_SVC_BASE 0x1BA1DE3000000000ull /* service ID: this + the server's pid */
#define CM_RESP_TIMEOUT 18   /* CM response timeouts: 4.096 us * 2^18, about 1 s */
#define CM_RETRIES 8         /* times the CM resends a message */

/* What the REQ (client) and the REP (server) carry in their private data. */
typedef struct conn_pdata {
	net32_t magic;
	net32_t pid;
	net32_t rkey;          /* R_Key of the RDMA buffer */
	net32_t resv;
	net64_t va;            /* its address */
	net64_t len;           /* its length */
} conn_pdata_t;

static void pdata_make(const side_t *s, conn_pdata_t *p)
{
	memset(p, 0, sizeof(*p));
	p->magic = cl_hton32(MAGIC);
	p->pid = cl_hton32(s->me.pid);
	p->rkey = s->me.rkey;
	p->va = cl_hton64(s->me.va);
	p->len = cl_hton64(s->me.len);
}

/* Takes the peer's buffer from its private data (kept by the callback). */
static boolean_t pdata_take(side_t *s)
{
	conn_pdata_t p;

	memcpy(&p, s->cm_pdata, sizeof(p));
	if (cl_ntoh32(p.magic) != MAGIC)
		return fail(s, "the %s's private data is not an ibal_demo's", s->server ? "REQ" : "REP");
	s->peer.pid = cl_ntoh32(p.pid);
	s->peer.rkey = p.rkey;
	s->peer.va = cl_ntoh64(p.va);
	s->peer.len = cl_ntoh64(p.len);
	return TRUE;
}

/* A CM callback's report to the main thread. */
static void cm_note(side_t *s, uint32_t ev, const uint8_t *pdata, size_t len)
{
	cl_spinlock_acquire(&s->lock);
	if (pdata)
		memcpy(s->cm_pdata, pdata, len);
	s->cm_ev |= ev;
	cl_spinlock_release(&s->lock);
	cl_event_signal(&s->ev);
}

/* Waits (bounded by the deadline) for one of the CM events in mask; a rejection fails. */
boolean_t cm_wait(side_t *s, uint32_t mask, const char *what)
{
	uint32_t ev;
	ib_rej_status_t rej;
	ib_api_status_t st;

	for (;;) {
		cl_spinlock_acquire(&s->lock);
		ev = s->cm_ev;
		rej = s->rej_status;
		st = s->cm_status;
		cl_spinlock_release(&s->lock);
		if (ev & CM_EV_FAIL)
			return fail(s, "%s: %s", what, ib_get_err_str(st));
		if (ev & mask)
			return TRUE;
		if (ev & CM_EV_REJ)
			return fail(s, "%s: the connection was rejected (reason %u%s)", what,
				    cl_ntoh16(rej), rej == IB_REJ_TIMEOUT ? ", timeout" : "");
		if (!cb_check(s))
			return FALSE;
		if (!left_us())
			return fail(s, "%s: nothing within the %u s limit of the run", what,
				    s->o->timeout_s);
		cl_event_wait_on(&s->ev, left_us() < SLICE_US ? (uint32_t)left_us() : SLICE_US, FALSE);
		/* After the BYEs the peer may exit as soon as its part is done. */
		if (!s->bye && !peer_check(s))
			return FALSE;
	}
}

static void AL_API on_cm_req(ib_cm_req_rec_t *p)
{
	side_t *s = (side_t *)p->context;
	ib_cm_rej_t rej;
	boolean_t first;

	cl_spinlock_acquire(&s->lock);
	first = !(s->cm_ev & CM_EV_REQ);
	if (first) {
		s->h_req = p->h_cm_req;
		s->peer_resp_res = p->resp_res;
	}
	cl_spinlock_release(&s->lock);
	if (!first) {   /* one client only */
		memset(&rej, 0, sizeof(rej));
		rej.rej_status = IB_REJ_INSUF_QP;
		ib_cm_rej(p->h_cm_req, &rej);
		return;
	}
	cm_note(s, CM_EV_REQ, p->p_req_pdata, IB_REQ_PDATA_SIZE);
}

static void AL_API on_cm_rej(ib_cm_rej_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;

	cl_spinlock_acquire(&s->lock);
	s->rej_status = p->rej_status;
	cl_spinlock_release(&s->lock);
	cm_note(s, CM_EV_REJ, NULL, 0);
}

static void AL_API on_cm_mra(ib_cm_mra_rec_t *p)
{
	(void)p;   /* the peer needs more time: the CM extends its timer */
}

static void AL_API on_cm_dreq(ib_cm_dreq_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;
	ib_cm_drep_t drep;
	ib_api_status_t st;

	memset(&drep, 0, sizeof(drep));
	st = ib_cm_drep(p->h_cm_dreq, &drep);
	if (st != IB_SUCCESS) {
		cl_spinlock_acquire(&s->lock);
		s->cm_status = st;
		cl_spinlock_release(&s->lock);
	}
	cm_note(s, CM_EV_DREQ | (st != IB_SUCCESS ? CM_EV_FAIL : 0), NULL, 0);
}

static void AL_API on_cm_drep(ib_cm_drep_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;

	cl_spinlock_acquire(&s->lock);
	s->cm_status = p->cm_status;
	cl_spinlock_release(&s->lock);
	cm_note(s, CM_EV_DREP, NULL, 0);
}

static void AL_API on_cm_rtu(ib_cm_rtu_rec_t *p)
{
	cm_note((side_t *)p->qp_context, CM_EV_RTU, NULL, 0);
}

static void AL_API on_cm_lap(ib_cm_lap_rec_t *p)
{
	ib_cm_apr_t apr;

	memset(&apr, 0, sizeof(apr));   /* no alternate paths in this demo */
	apr.qp_type = IB_QPT_RELIABLE_CONN;
	apr.apr_status = IB_AP_REJECT;
	ib_cm_apr(p->h_cm_lap, &apr);
}

/* Client: the reply. Receives first (the QP is in RTR now), then the RTU. */
static void AL_API on_cm_rep(ib_cm_rep_rec_t *p)
{
	side_t *s = (side_t *)p->qp_context;
	ib_api_status_t st = IB_SUCCESS;
	ib_cm_rtu_t rtu;
	uint32_t i;

	cl_spinlock_acquire(&s->lock);
	s->peer_resp_res = p->resp_res;
	cl_spinlock_release(&s->lock);
	for (i = 0; st == IB_SUCCESS && i < s->n_recv; i++)
		st = post_recv_slot(s, i);
	memset(&rtu, 0, sizeof(rtu));
	rtu.pfn_cm_dreq_cb = on_cm_dreq;
	if (st == IB_SUCCESS)
		st = ib_cm_rtu(p->h_cm_rep, &rtu);
	if (st != IB_SUCCESS) {
		cl_spinlock_acquire(&s->lock);
		s->cm_status = st;
		cl_spinlock_release(&s->lock);
	}
	cm_note(s, CM_EV_REP | (st != IB_SUCCESS ? CM_EV_FAIL : 0), p->p_rep_pdata,
		IB_REP_PDATA_SIZE);
}

/* Server: listens on DEMO_SVC_BASE + pid, on our port, before telling the client. */
boolean_t cm_listen(side_t *s)
{
	ib_cm_listen_t l;

	s->me.svc_id = cl_hton64(DEMO_SVC_BASE + s->me.pid);
	memset(&l, 0, sizeof(l));
	l.svc_id = s->me.svc_id;
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = s->me.port_guid;
	l.lid = IB_ALL_LIDS;
	l.pkey = IB_ALL_PKEYS;
	l.pfn_cm_req_cb = on_cm_req;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	return ok(s, ib_cm_listen(s->al, &l, s, &s->listen), "ib_cm_listen");
}

/* Reads the connected QP's numbers for the printout: our QPN and PSN, the peer's. */
static boolean_t cm_learn(side_t *s)
{
	ib_qp_attr_t qa;

	if (!ok(s, ib_query_qp(s->qp, &qa), "ib_query_qp"))
		return FALSE;
	if (qa.state != IB_QPS_RTS)
		return fail(s, "the connected QP is not in RTS (state %d)", (int)qa.state);
	s->me.qpn = qa.num;
	s->me.psn = qa.sq_psn;
	s->peer.qpn = qa.dest_num;
	s->peer.psn = qa.rq_psn;     /* what we expect first is what the peer sends first */
	s->me.mtu = s->peer.mtu = qa.primary_av.conn.path_mtu;
	return TRUE;
}

/*
 * Server: waits for the client's REQ, accepts it with the REP (the QP, all
 * receive slots posted with it, RDMA read and write allowed on the buffer),
 * and waits for the RTU.
 */
boolean_t server_accept(side_t *s)
{
	ib_recv_wr_t *wr, *bad = NULL;
	ib_local_ds_t *ds;
	ib_cm_rep_t rep;
	conn_pdata_t pd;
	ib_api_status_t st;
	uint32_t i;

	if (!cm_wait(s, CM_EV_REQ, "waiting for the client's connection request") || !pdata_take(s))
		return FALSE;
	wr = calloc(s->n_recv, sizeof(*wr));
	ds = calloc(s->n_recv, sizeof(*ds));
	if (!wr || !ds) {
		free(wr);
		free(ds);
		return fail(s, "out of memory");
	}
	for (i = 0; i < s->n_recv; i++) {
		ds[i].vaddr = (uintptr_t)recv_slot(s, i);
		ds[i].length = SLOT;
		ds[i].lkey = s->slot_lkey;
		wr[i].wr_id = i;
		wr[i].num_ds = 1;
		wr[i].ds_array = &ds[i];
		wr[i].p_next = i + 1 < s->n_recv ? &wr[i + 1] : NULL;
	}
	pdata_make(s, &pd);
	memset(&rep, 0, sizeof(rep));
	rep.p_rep_pdata = (const uint8_t *)&pd;
	rep.rep_length = sizeof(pd);
	rep.h_qp = s->qp;
	rep.qp_type = IB_QPT_RELIABLE_CONN;
	rep.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_READ | IB_AC_RDMA_WRITE;
	rep.init_depth = 0;              /* the server reads nothing */
	rep.failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;
	rep.flow_ctrl = TRUE;
	rep.rnr_nak_timeout = 1;
	rep.rnr_retry_cnt = 7;           /* 7: retry for ever on RNR NAKs */
	rep.pfn_cm_rej_cb = on_cm_rej;
	rep.pfn_cm_mra_cb = on_cm_mra;
	rep.pfn_cm_rtu_cb = on_cm_rtu;
	rep.pfn_cm_lap_cb = on_cm_lap;
	rep.pfn_cm_dreq_cb = on_cm_dreq;
	rep.p_recv_wr = wr;
	rep.pp_recv_failure = &bad;
	st = ib_cm_rep(s->h_req, &rep);
	free(wr);
	free(ds);
	if (s->listen) {   /* one client: no more requests */
		ib_cm_cancel(s->listen, NULL);
		s->listen = NULL;
	}
	return ok(s, st, "ib_cm_rep") && cm_wait(s, CM_EV_RTU, "waiting for the client's RTU") &&
	       cm_learn(s);
}

/* Client: the PathRecord query's answer (synchronous: runs before ib_query returns). */
static void AL_API on_path(ib_query_rec_t *p)
{
	side_t *s = (side_t *)p->query_context;

	s->path_status = p->status;
	if (p->status == IB_SUCCESS && !p->result_cnt)
		s->path_status = IB_NOT_FOUND;
	if (s->path_status == IB_SUCCESS)
		s->path = *ib_get_query_path_rec(p->p_result_mad, 0);
	if (p->p_result_mad)
		ib_put_mad(p->p_result_mad);
}

/* Client: the path through the SA, the REQ, and (from the REP callback) the RTU. */
boolean_t client_connect(side_t *s)
{
	ib_lid_pair_t lp;
	ib_query_req_t q;
	ib_path_rec_t path;
	ib_cm_req_t req;
	conn_pdata_t pd;
	uint8_t resp_res;

	lp.src_lid = s->me.lid;
	lp.dest_lid = s->peer.lid;
	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PATH_REC_BY_LIDS;
	q.p_query_input = &lp;
	q.port_guid = s->me.port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 4;
	q.flags = IB_FLAGS_SYNC;
	q.query_context = s;
	q.pfn_query_cb = on_path;
	s->path_status = IB_ERROR;
	if (!ok(s, ib_query(s->al, &q, NULL), "ib_query (PathRecord)") ||
	    !ok(s, s->path_status, "the PathRecord query"))
		return FALSE;
	path = s->path;
	pdata_make(s, &pd);
	memset(&req, 0, sizeof(req));
	req.svc_id = s->peer.svc_id;
	req.max_cm_retries = CM_RETRIES;
	req.p_primary_path = &path;
	req.pfn_cm_rep_cb = on_cm_rep;
	req.p_req_pdata = (const uint8_t *)&pd;
	req.req_length = sizeof(pd);
	req.qp_type = IB_QPT_RELIABLE_CONN;
	req.h_qp = s->qp;
	req.resp_res = s->me.rd_atom;
	req.init_depth = s->max_init_depth;
	req.remote_resp_timeout = CM_RESP_TIMEOUT;
	req.local_resp_timeout = CM_RESP_TIMEOUT;
	req.flow_ctrl = TRUE;
	req.rnr_nak_timeout = 1;
	req.rnr_retry_cnt = 7;
	req.retry_cnt = 7;
	req.pfn_cm_mra_cb = on_cm_mra;
	req.pfn_cm_rej_cb = on_cm_rej;
	if (!ok(s, ib_cm_req(&req), "ib_cm_req") ||
	    !cm_wait(s, CM_EV_REP, "waiting for the server's reply") || !pdata_take(s) ||
	    !cm_learn(s))
		return FALSE;
	cl_spinlock_acquire(&s->lock);
	resp_res = s->peer_resp_res;
	cl_spinlock_release(&s->lock);
	s->init_depth = s->max_init_depth < resp_res ? s->max_init_depth : resp_res;
	return TRUE;
}

/* Client: disconnects (DREQ) and waits for the DREP. */
boolean_t client_disconnect(side_t *s)
{
	ib_cm_dreq_t dreq;
	ib_api_status_t st;

	memset(&dreq, 0, sizeof(dreq));
	dreq.qp_type = IB_QPT_RELIABLE_CONN;
	dreq.h_qp = s->qp;
	dreq.pfn_cm_drep_cb = on_cm_drep;
	if (!ok(s, ib_cm_dreq(&dreq), "ib_cm_dreq") ||
	    !cm_wait(s, CM_EV_DREP | CM_EV_DREQ, "waiting for the DREP"))
		return FALSE;
	cl_spinlock_acquire(&s->lock);
	st = (s->cm_ev & CM_EV_DREP) ? s->cm_status : IB_SUCCESS;
	cl_spinlock_release(&s->lock);
	return ok(s, st, "disconnecting");
}

boolean_t hello(side_t *s)
{
	if (!oob_send(s, OOB_HELLO, 0, 0) || !oob_expect(s, &s->peer, OOB_HELLO))
		return FALSE;
	if (!s->peer.lid || (!s->server && !s->peer.svc_id))
		return fail(s, "the peer sent an incomplete hello");
	s->peer.qpn = s->peer.psn = s->peer.rkey = 0;   /* the CM tells these */
	s->peer.va = s->peer.len = 0;
	return TRUE;
}

void print_end(const char *who, const oob_msg_t *m)
{
	printf("  %-6s  pid %-7u LID 0x%04x  QPN 0x%06x  PSN 0x%06x  buffer 0x%" PRIx64
	       " (%" PRIu64 " KiB) R_Key 0x%08x\n",
	       who, m->pid, cl_ntoh16(m->lid), cl_ntoh32(m->qpn), cl_ntoh32(m->psn), m->va,
	       m->len >> 10, cl_ntoh32(m->rkey));
}
