/*
 * ibal ulp: ibal_cmtime's server: listens on the service ID, registers its
 * ServiceRecord, makes a QP and accepts each REQ, echoes messages, answers
 * each DREQ.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See ibal_cmtime.c for the program and cmtime.h for what it shares.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "cmtime.h"

static void AL_API srv_on_rej(ib_cm_rej_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;

	failf(c->b, "connection %u rejected by the client (reason %u)", c->idx,
	      cl_ntoh16(p->rej_status));
	conn_fail(c);
}

static void AL_API srv_on_rtu(ib_cm_rtu_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;
	bench_t *b = c->b;
	uint32_t pend, s;

	c->t[STEP_RTU].end = now_ns();
	c->t[STEP_CONNECT].end = c->t[STEP_RTU].end;
	pthread_mutex_lock(&b->lock);
	c->established = TRUE;
	pend = c->pending;
	c->pending = 0;
	b->n_est++;
	wake_if_met(b);
	pthread_mutex_unlock(&b->lock);
	for (s = 0; s < RSLOTS; s++)
		if (pend & (1u << s))
			server_echo(b, c, s);
}

static void AL_API on_lap(ib_cm_lap_rec_t *p)
{
	ib_cm_apr_t apr;

	memset(&apr, 0, sizeof(apr));
	apr.qp_type = IB_QPT_RELIABLE_CONN;
	apr.apr_status = IB_AP_REJECT;
	ib_cm_apr(p->h_cm_lap, &apr);
}

static void AL_API srv_on_dreq(ib_cm_dreq_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;
	bench_t *b = c->b;
	ib_cm_drep_t drep;
	ib_api_status_t st;

	c->t[STEP_DISCONNECT].start = now_ns();
	memset(&drep, 0, sizeof(drep));
	st = ib_cm_drep(p->h_cm_dreq, &drep);
	c->t[STEP_DISCONNECT].end = now_ns();
	if (!ok(b, st, "ib_cm_drep"))
		count(b, &b->n_dfail);
	else
		count(b, &b->n_disc);
}

/* A connection request: a QP, receives, and the REP. */
static void AL_API srv_on_req(ib_cm_req_rec_t *p)
{
	bench_t *b = (bench_t *)p->context;
	const req_pdata_t *rq = (const req_pdata_t *)p->p_req_pdata;
	uint64_t t = now_ns();
	ib_cm_rep_t rep;
	ib_cm_rej_t rej;
	ib_recv_wr_t wr[RSLOTS], *bad = NULL;
	ib_local_ds_t ds[RSLOTS];
	net32_t rep_pd[2];
	uint32_t ci, s, total;
	conn_t *c;
	ib_api_status_t st;

	memset(&rej, 0, sizeof(rej));
	if (!rq || cl_ntoh32(rq->magic) != PD_MAGIC) {
		rej.rej_status = IB_REJ_USER_DEFINED;
		ib_cm_rej(p->h_cm_req, &rej);
		return;
	}
	total = cl_ntoh32(rq->total);
	pthread_mutex_lock(&b->lock);
	ci = b->n_req < b->cap ? b->n_req++ : UINT32_MAX;
	if (!b->expect)
		b->expect = total < b->cap ? total : b->cap;
	b->msgs = cl_ntoh32(rq->msgs);
	if (ci != UINT32_MAX && ci + 1 > b->n)
		b->n = ci + 1;
	pthread_mutex_unlock(&b->lock);
	if (ci == UINT32_MAX) {
		rej.rej_status = IB_REJ_INSUF_RESOURCES;
		ib_cm_rej(p->h_cm_req, &rej);
		failf(b, "more requests than the %u connections this server holds (-c)", b->cap);
		return;
	}
	c = &b->c[ci];
	c->b = b;
	c->idx = ci;
	c->t[STEP_REQ_REP].start = c->t[STEP_CONNECT].start = t;
	c->t[STEP_CREATE].start = now_ns();
	st = create_qp(b, c);
	c->t[STEP_CREATE].end = now_ns();
	if (!ok(b, st, "ib_create_qp")) {
		rej.rej_status = IB_REJ_INSUF_RESOURCES;
		ib_cm_rej(p->h_cm_req, &rej);
		conn_fail(c);
		return;
	}
	for (s = 0; s < RSLOTS; s++) {
		ds[s].vaddr = (uintptr_t)slot(b, ci, s);
		ds[s].length = MSG_LEN;
		ds[s].lkey = b->lkey;
		memset(&wr[s], 0, sizeof(wr[s]));
		wr[s].wr_id = wr_id(ci, s);
		wr[s].num_ds = 1;
		wr[s].ds_array = &ds[s];
		wr[s].p_next = s + 1 < RSLOTS ? &wr[s + 1] : NULL;
	}
	rep_pd[0] = cl_hton32(PD_MAGIC);
	rep_pd[1] = rq->idx;
	memset(&rep, 0, sizeof(rep));
	rep.p_rep_pdata = (const uint8_t *)rep_pd;
	rep.rep_length = sizeof(rep_pd);
	rep.h_qp = c->qp;
	rep.qp_type = IB_QPT_RELIABLE_CONN;
	rep.access_ctrl = IB_AC_LOCAL_WRITE;
	rep.init_depth = 0;
	rep.target_ack_delay = 0;
	rep.failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;
	rep.flow_ctrl = TRUE;
	rep.rnr_nak_timeout = 1;
	rep.rnr_retry_cnt = 7;
	rep.pfn_cm_rej_cb = srv_on_rej;
	rep.pfn_cm_mra_cb = on_mra;
	rep.pfn_cm_rtu_cb = srv_on_rtu;
	rep.pfn_cm_lap_cb = on_lap;
	rep.pfn_cm_dreq_cb = srv_on_dreq;
	rep.p_recv_wr = wr;
	rep.pp_recv_failure = &bad;
	c->t[STEP_RTU].start = now_ns();
	st = ib_cm_rep(p->h_cm_req, &rep);
	c->t[STEP_REQ_REP].end = now_ns();
	if (!ok(b, st, "ib_cm_rep")) {
		rej.rej_status = IB_REJ_INSUF_RESOURCES;   /* tell the client, if still possible */
		ib_cm_rej(p->h_cm_req, &rej);
		conn_fail(c);
		return;
	}
	count(b, &b->n_rep);
}

static void AL_API on_reg_svc(ib_reg_svc_rec_t *p)
{
	bench_t *b = (bench_t *)p->svc_context;

	if (p->req_status != IB_SUCCESS)
		fprintf(stderr, "ibal_cmtime server: ServiceRecord not registered (%s); clients "
			"must be given the GID or LID\n", ib_get_err_str(p->req_status));
	(void)b;
}

/* Registers our service with the SA, so that a client given only -S finds us. */
static void register_service(bench_t *b)
{
	ib_reg_svc_req_t r;

	memset(&r, 0, sizeof(r));
	r.svc_rec.service_id = cl_hton64(b->o->svc_id);
	r.svc_rec.service_gid = b->gid;
	r.svc_rec.service_pkey = IB_DEFAULT_PKEY;
	r.svc_rec.service_lease = 0xFFFFFFFFu;
	snprintf((char *)r.svc_rec.service_name, sizeof(r.svc_rec.service_name), "ibal_cmtime");
	r.port_guid = b->port.port_guid;
	r.timeout_ms = 500;
	r.retry_cnt = 3;
	r.flags = IB_FLAGS_SYNC;
	r.svc_context = b;
	r.pfn_reg_svc_cb = on_reg_svc;
	if (ib_reg_svc(b->al, &r, &b->reg) != IB_SUCCESS)
		b->reg = NULL;
}

void tell_ready(bench_t *b, int v)
{
	if (!b->ready)
		return;
	pthread_mutex_lock(b->ready_lock);
	*b->ready = v;
	if (v > 0)
		*b->ready_gid = b->gid;
	pthread_cond_broadcast(b->ready_cond);
	pthread_mutex_unlock(b->ready_lock);
}

static void print_gid(char *s, size_t len, const ib_gid_t *g)
{
	if (!inet_ntop(AF_INET6, g->raw, s, (socklen_t)len))
		snprintf(s, len, "?");
}

boolean_t server_run(bench_t *b)
{
	ib_cm_listen_t l;
	char gs[64];
	uint32_t cap = b->o->conns > SRV_MIN_CAP ? b->o->conns : SRV_MIN_CAP;

	b->expect = b->o->conns;
	if (!open_side(b) || !make_resources(b, cap))
		return FALSE;
	memset(&l, 0, sizeof(l));
	l.svc_id = cl_hton64(b->o->svc_id);
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = b->port.port_guid;
	l.lid = IB_ALL_LIDS;
	l.pkey = IB_ALL_PKEYS;
	l.pfn_cm_req_cb = srv_on_req;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	if (!ok(b, ib_cm_listen(b->al, &l, b, &b->listen), "ib_cm_listen"))
		return FALSE;
	if (!b->o->both)
		register_service(b);
	print_gid(gs, sizeof(gs), &b->gid);
	printf("ibal_cmtime server: listening: LID 0x%04x GID %s service ID 0x%016" PRIx64
	       " port GUID 0x%016" PRIx64 "\n", cl_ntoh16(b->port.lid), gs, b->o->svc_id,
	       cl_ntoh64(b->port.port_guid));
	fflush(stdout);
	tell_ready(b, 1);
	/* Wait until the run's connections were disconnected (or failed). */
	for (;;) {
		uint32_t want;

		pthread_mutex_lock(&b->lock);
		want = b->expect;
		pthread_mutex_unlock(&b->lock);
		if (want) {
			if (!wait_count(b, &b->n_disc, &b->n_fail, want, "connections served"))
				return FALSE;
			break;
		}
		if (!wait_count(b, &b->n_req, &b->n_fail, 1, "a first request"))
			return FALSE;
	}
	return b->n_fail == 0 && b->n_dfail == 0;
}
