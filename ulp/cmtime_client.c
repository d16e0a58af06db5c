/*
 * ibal ulp: ibal_cmtime's client: resolves the path through the SA, connects
 * the run's QPs through the CM, exchanges messages, disconnects.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See ibal_cmtime.c for the program and cmtime.h for what it shares.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cmtime.h"

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	ib_query_rec_t rec;
} Q = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, { 0 } };

static void AL_API on_query(ib_query_rec_t *p)
{
	pthread_mutex_lock(&Q.lock);
	Q.rec = *p;
	Q.done = 1;
	pthread_cond_broadcast(&Q.cond);
	pthread_mutex_unlock(&Q.lock);
}

/* A synchronous SA query through our port; the answer MAD is the caller's (ib_put_mad). */
static ib_api_status_t sa_query(bench_t *b, ib_query_type_t type, const void *in, ib_query_rec_t *out)
{
	ib_query_req_t q;
	ib_api_status_t st;

	memset(&q, 0, sizeof(q));
	q.query_type = type;
	q.p_query_input = in;
	q.port_guid = b->port.port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 4;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	pthread_mutex_lock(&Q.lock);
	Q.done = 0;
	pthread_mutex_unlock(&Q.lock);
	st = ib_query(b->al, &q, NULL);
	if (st != IB_SUCCESS)
		return st;
	pthread_mutex_lock(&Q.lock);
	*out = Q.rec;
	pthread_mutex_unlock(&Q.lock);
	if (out->status != IB_SUCCESS && out->p_result_mad) {
		/* IB_REMOTE_ERROR: the SA answered with an error status */
		b->sa_status = cl_ntoh16(((const ib_sa_mad_t *)ib_get_mad_buf(out->p_result_mad))->status);
		ib_put_mad(out->p_result_mad);
		out->p_result_mad = NULL;
	}
	if (out->status == IB_SUCCESS && !out->result_cnt) {
		if (out->p_result_mad)
			ib_put_mad(out->p_result_mad);
		out->p_result_mad = NULL;
		return IB_NOT_FOUND;
	}
	return out->status;
}

/* ok() for an SA query: an error the SA answered is given with its MAD status. */
static boolean_t sa_ok(bench_t *b, ib_api_status_t st, const char *what)
{
	if (st != IB_REMOTE_ERROR)
		return ok(b, st, what);
	failf(b, "%s failed: the SA answered MAD status 0x%04x", what, b->sa_status);
	return FALSE;
}

/* The path to the server: DEST as a GID or a LID, else the ServiceRecord of -S. */
boolean_t resolve(bench_t *b, const ib_gid_t *dgid_in)
{
	ib_gid_pair_t gp;
	ib_lid_pair_t lp;
	ib_query_rec_t r;
	ib_api_status_t st;
	const char *d = b->o->dest;
	char *end;
	unsigned long lid;

	b->resolve.start = now_ns();
	memset(&gp, 0, sizeof(gp));
	gp.src_gid = b->gid;
	if (dgid_in) {
		gp.dest_gid = *dgid_in;
	} else if (d && strchr(d, ':')) {
		if (inet_pton(AF_INET6, d, gp.dest_gid.raw) != 1) {
			failf(b, "not a GID: %s", d);
			return FALSE;
		}
	} else if (d) {
		errno = 0;
		lid = strtoul(d, &end, 0);
		if (errno || *end || !lid || lid > IB_LID_UCAST_END_HO) {
			failf(b, "not a unicast LID: %s", d);
			return FALSE;
		}
		lp.src_lid = b->port.lid;
		lp.dest_lid = cl_hton16((uint16_t)lid);
		st = sa_query(b, IB_QUERY_PATH_REC_BY_LIDS, &lp, &r);
		goto path;
	} else {
		ib_net64_t sid = cl_hton64(b->o->svc_id);

		st = sa_query(b, IB_QUERY_SVC_REC_BY_ID, &sid, &r);
		if (!sa_ok(b, st, "finding the server's ServiceRecord (give its GID or LID)"))
			return FALSE;
		gp.dest_gid = ib_get_query_svc_rec(r.p_result_mad, 0)->service_gid;
		ib_put_mad(r.p_result_mad);
	}
	st = sa_query(b, IB_QUERY_PATH_REC_BY_GIDS, &gp, &r);
path:
	if (!sa_ok(b, st, "the PathRecord query"))
		return FALSE;
	b->path = *ib_get_query_path_rec(r.p_result_mad, 0);
	ib_put_mad(r.p_result_mad);
	b->resolve.end = now_ns();
	return TRUE;
}

static void AL_API cli_on_rej(ib_cm_rej_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;

	c->t[STEP_REQ_REP].end = now_ns();
	failf(c->b, "connection %u rejected (reason %u%s)", c->idx, cl_ntoh16(p->rej_status),
	      p->rej_status == IB_REJ_TIMEOUT ? ": timeout" :
	      p->rej_status == IB_REJ_INVALID_SID ? ": no server on this service ID" : "");
	conn_fail(c);
	count(c->b, &c->b->n_rej);
}

static void AL_API cli_on_dreq(ib_cm_dreq_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;
	ib_cm_drep_t drep;

	memset(&drep, 0, sizeof(drep));
	ib_cm_drep(p->h_cm_dreq, &drep);
	failf(c->b, "connection %u: the server disconnected", c->idx);
	conn_fail(c);
}

/* The REP: receives for the echoes, then the RTU; the connection is up. */
static void AL_API cli_on_rep(ib_cm_rep_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;
	bench_t *b = c->b;
	const net32_t *pd = (const net32_t *)p->p_rep_pdata;
	ib_cm_rtu_t rtu;
	ib_api_status_t st;

	c->t[STEP_REQ_REP].end = now_ns();
	if (!pd || cl_ntoh32(pd[0]) != PD_MAGIC || cl_ntoh32(pd[1]) != c->idx)
		failf(b, "connection %u: the REP's private data is not ours", c->idx);
	st = post_recvs(b, c);
	memset(&rtu, 0, sizeof(rtu));
	rtu.access_ctrl = IB_AC_LOCAL_WRITE;
	rtu.pfn_cm_dreq_cb = cli_on_dreq;
	c->t[STEP_RTU].start = now_ns();
	if (st == IB_SUCCESS)
		st = ib_cm_rtu(p->h_cm_rep, &rtu);
	c->t[STEP_RTU].end = c->t[STEP_CONNECT].end = now_ns();
	if (!ok(b, st, "posting receives or ib_cm_rtu"))
		conn_fail(c);
	count(b, &b->n_rep);
}

static void AL_API cli_on_drep(ib_cm_drep_rec_t *p)
{
	conn_t *c = (conn_t *)p->qp_context;

	c->t[STEP_DISCONNECT].end = now_ns();
	if (p->cm_status != IB_SUCCESS) {
		failf(c->b, "connection %u: no DREP: %s", c->idx, ib_get_err_str(p->cm_status));
		count(c->b, &c->b->n_dfail);
	} else {
		count(c->b, &c->b->n_disc);
	}
}

static boolean_t client_connect(bench_t *b)
{
	ib_cm_req_t req;
	req_pdata_t pd;
	uint32_t i, window = b->o->window;
	uint8_t tmo = cm_timeout_exp(b->o->timeout_ms);
	const net32_t pid = cl_hton32((uint32_t)getpid());   /* once: a system call */

	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i];
		ib_api_status_t st;

		if (window && i >= window &&
		    !wait_count(b, &b->n_rep, &b->n_rej, i - window + 1, "replies"))
			return FALSE;
		pd.magic = cl_hton32(PD_MAGIC);
		pd.idx = cl_hton32(i);
		pd.total = cl_hton32(b->n);
		pd.msgs = cl_hton32(b->o->msgs);
		pd.pid = pid;
		memset(&req, 0, sizeof(req));
		req.svc_id = cl_hton64(b->o->svc_id);
		req.max_cm_retries = b->o->retries;
		req.p_primary_path = &b->path;
		req.pfn_cm_rep_cb = cli_on_rep;
		req.p_req_pdata = (const uint8_t *)&pd;
		req.req_length = sizeof(pd);
		req.qp_type = IB_QPT_RELIABLE_CONN;
		req.h_qp = c->qp;
		req.resp_res = 0;
		req.init_depth = 0;
		req.remote_resp_timeout = tmo;
		req.local_resp_timeout = tmo;
		req.flow_ctrl = TRUE;
		req.rnr_nak_timeout = 1;
		req.rnr_retry_cnt = 7;
		req.retry_cnt = 7;
		req.pfn_cm_mra_cb = on_mra;
		req.pfn_cm_rej_cb = cli_on_rej;
		c->t[STEP_REQ_REP].start = c->t[STEP_CONNECT].start = now_ns();
		st = ib_cm_req(&req);
		if (!ok(b, st, "ib_cm_req")) {
			conn_fail(c);
			count(b, &b->n_rej);
		}
	}
	return wait_count(b, &b->n_rep, &b->n_rej, b->n, "replies") && b->n_fail == 0;
}

boolean_t client_exchange(bench_t *b)
{
	uint32_t i, first = b->o->window && b->o->window < b->n ? b->o->window : b->n;
	boolean_t good;

	if (!b->o->msgs)
		return TRUE;
	pthread_mutex_lock(&b->lock);
	b->x_next = first;
	b->stop_on_fail = TRUE;
	pthread_mutex_unlock(&b->lock);
	for (i = 0; i < first; i++)
		start_exchange(b, i);
	good = wait_count(b, &b->n_xdone, NULL, b->n, "connections done exchanging") &&
	       b->n_fail == 0;
	pthread_mutex_lock(&b->lock);
	b->stop_on_fail = FALSE;
	pthread_mutex_unlock(&b->lock);
	return good;
}

static boolean_t client_disconnect(bench_t *b)
{
	ib_cm_dreq_t dreq;
	uint32_t i, want = 0, window = b->o->window;

	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i];

		if (c->failed || !c->t[STEP_CONNECT].end)
			continue;
		if (window && want >= window &&
		    !wait_count(b, &b->n_disc, &b->n_dfail, want - window + 1, "DREPs"))
			return FALSE;
		memset(&dreq, 0, sizeof(dreq));
		dreq.qp_type = IB_QPT_RELIABLE_CONN;
		dreq.h_qp = c->qp;
		dreq.pfn_cm_drep_cb = cli_on_drep;
		c->t[STEP_DISCONNECT].start = now_ns();
		if (ok(b, ib_cm_dreq(&dreq), "ib_cm_dreq"))
			want++;
	}
	return wait_count(b, &b->n_disc, &b->n_dfail, want, "DREPs") && !b->n_dfail &&
	       want == b->n;
}

boolean_t client_run(bench_t *b, const ib_gid_t *dgid)
{
	uint32_t i;
	boolean_t good;

	b->n = b->o->conns;
	if (!open_side(b) || !resolve(b, dgid) || !make_resources(b, b->n))
		return FALSE;
	for (i = 0; i < b->n; i++) {
		conn_t *c = &b->c[i];

		c->b = b;
		c->idx = i;
		c->t[STEP_CREATE].start = now_ns();
		if (!ok(b, create_qp(b, c), "ib_create_qp"))
			return FALSE;
		c->t[STEP_CREATE].end = now_ns();
	}
	good = client_connect(b) && client_exchange(b);
	/* Disconnect whatever is connected, even after a failure. */
	good = client_disconnect(b) && good;
	return good;
}
