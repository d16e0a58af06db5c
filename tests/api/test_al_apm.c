/*
 * ibal tests: automatic path migration (ib_force_apm, HCA-made migration) between two soft CAs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) with IBAL_SOFT_CAS=2 and IBAL_SOFT_PORTS=2, through the
 * public API only. Two RC QPs, one per CA, are connected by hand with
 * ib_modify_qp(): primary path port 1 to port 1, alternate path port 2 to
 * port 2. Links are taken down with the soft provider's ib_ci_call()
 * commands (iba/ibal_soft.h). Waits are bounded condition waits on the
 * callbacks' counters, never sleeps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <iba/ibal_soft.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/soft_ctl.h"

#define BUF_LEN 8192
#define MSG_LEN 3000  /* three packets at a 1024-byte MTU */
#define PSN 0x00FFFFF0u
/* Local ACK timeout code of every path: 4.096 us * 2^13, about 34 ms, long
 * enough that a slow machine sees no spurious retry, short enough that
 * exhausting three retries takes a fraction of a second. */
#define ACK_TIMEOUT 13

static char fab_dir[64];
static ib_al_handle_t h_al;

/* One side of the connection. */
typedef struct end {
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;           /* send and receive completions */
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	net32_t lkey;
	net32_t qpn;
	ib_net16_t lid[2];           /* LIDs of ports 1 and 2 */
	uint8_t buf[BUF_LEN];
	/* Callback counters, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n_comp;                  /* completion callbacks */
	int n_apm;                   /* IB_AE_QP_APM */
	int n_apm_err;               /* IB_AE_QP_APM_ERROR */
	int n_other;                 /* any other QP event */
} end_t;

static end_t *ea, *eb;

/* Connection parameters the tests vary. */
typedef struct conn {
	uint8_t timeout;             /* local ACK timeout of both paths */
	uint8_t retry_cnt;
	ib_apm_state_t apm_a, apm_b; /* APM state at RTS (MIGRATED: none set) */
	boolean_t alt_a, alt_b;      /* load an alternate path */
} conn_t;

static const conn_t armed = { ACK_TIMEOUT, 3, IB_APM_ARMED, IB_APM_ARMED, TRUE, TRUE };

/* ---- Callbacks ---- */

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *context)
{
	end_t *e = (end_t *)context;

	(void)h_cq;
	pthread_mutex_lock(&e->lock);
	e->n_comp++;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static void AL_API on_qp_event(ib_async_event_rec_t *p_rec)
{
	end_t *e = (end_t *)p_rec->context;

	pthread_mutex_lock(&e->lock);
	if (p_rec->code == IB_AE_QP_APM)
		e->n_apm++;
	else if (p_rec->code == IB_AE_QP_APM_ERROR)
		e->n_apm_err++;
	else
		e->n_other++;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

/* Waits (bounded) until *p reaches @p want; returns its value. */
static int wait_count(end_t *e, int *p, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&e->lock);
	while (*p < want && pthread_cond_timedwait(&e->cond, &e->lock, &ts) == 0)
		;
	v = *p;
	pthread_mutex_unlock(&e->lock);
	return v;
}

static int get_count(end_t *e, int *p)
{
	int v;

	pthread_mutex_lock(&e->lock);
	v = *p;
	pthread_mutex_unlock(&e->lock);
	return v;
}

/* Polls one completion, waiting (bounded) for one to come. */
static int wait_wc(end_t *e, ib_wc_t *wc)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	ib_wc_t *p_free, *p_done;
	int seen;

	/* A completion event may be for a completion already polled (one that
	 * came between the poll and the rearm): look again until the bound. */
	for (;;) {
		wc->p_next = NULL;
		p_free = wc;
		if (ib_poll_cq(e->cq, &p_free, &p_done) == IB_SUCCESS)
			return 1;
		seen = get_count(e, &e->n_comp);
		CU_ASSERT_EQUAL(ib_rearm_cq(e->cq, FALSE), IB_SUCCESS);
		wc->p_next = NULL;
		p_free = wc;
		if (ib_poll_cq(e->cq, &p_free, &p_done) == IB_SUCCESS)
			return 1;
		if (test_now_ms() >= end)
			return 0;
		wait_count(e, &e->n_comp, seen + 1);
	}
}

/* ---- Fixture ---- */

static void end_open(end_t *e, ib_net64_t guid)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	ib_qp_attr_t qa;
	ib_ca_attr_t *attr;
	uint32_t size = 0;
	net32_t rkey;

	pthread_mutex_init(&e->lock, NULL);
	pthread_cond_init(&e->cond, NULL);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guid, NULL, e, &e->ca), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_ca(e->ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	attr = (ib_ca_attr_t *)calloc(1, size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(e->ca, attr, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(attr->num_ports, 2);
	CU_ASSERT(attr->apm_support);
	e->lid[0] = attr->p_port_attr[0].lid;
	e->lid[1] = attr->p_port_attr[1].lid;
	CU_ASSERT(e->lid[0] && e->lid[1] && e->lid[0] != e->lid[1]);
	free(attr);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(e->ca, IB_PDT_NORMAL, e, &e->pd), IB_SUCCESS);
	memset(&cc, 0, sizeof(cc));
	cc.size = 64;
	cc.pfn_comp_cb = on_comp;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(e->ca, &cc, e, NULL, &e->cq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = 16;
	qc.rq_depth = 16;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = e->cq;
	qc.h_rq_cq = e->cq;
	qc.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(e->pd, &qc, e, on_qp_event, &e->qp), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_query_qp(e->qp, &qa), IB_SUCCESS);
	e->qpn = qa.num;
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(e->pd, &mc, &e->lkey, &rkey, &e->mr), IB_SUCCESS);
}

static void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-alapm-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_SOFT_PORTS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	ea = (end_t *)calloc(1, sizeof(*ea));
	eb = (end_t *)calloc(1, sizeof(*eb));
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	end_open(ea, guids[0]);
	end_open(eb, guids[1]);
}

static void down(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	pthread_mutex_destroy(&ea->lock);
	pthread_cond_destroy(&ea->cond);
	pthread_mutex_destroy(&eb->lock);
	pthread_cond_destroy(&eb->cond);
	free(ea);
	free(eb);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_PORTS");
	test_fixture_up = 0;
}

/* A path from @p e's port @p port to the same port of its peer @p peer. */
static void path(ib_av_attr_t *av, const end_t *peer, uint8_t port, uint8_t timeout)
{
	memset(av, 0, sizeof(*av));
	av->port_num = port;
	av->dlid = peer->lid[port - 1];
	av->conn.path_mtu = IB_MTU_LEN_1024;
	av->conn.local_ack_timeout = timeout;
}

/* Moves @p e to RTS connected to @p peer: primary path port 1, alternate port 2. */
static void connect_one(end_t *e, const end_t *peer, const conn_t *c, boolean_t alt,
			ib_apm_state_t apm)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(PSN);
	m.state.rtr.dest_qp = peer->qpn;
	m.state.rtr.resp_res = 4;
	m.state.rtr.rnr_nak_timeout = 1;
	path(&m.state.rtr.primary_av, peer, 1, c->timeout);
	if (alt) {
		m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV;
		path(&m.state.rtr.alternate_av, peer, 2, c->timeout);
	}
	CU_ASSERT_EQUAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(PSN);
	m.state.rts.retry_cnt = c->retry_cnt;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = c->timeout;
	m.state.rts.init_depth = 4;
	if (apm != IB_APM_MIGRATED) {
		m.state.rts.opts = IB_MOD_QP_APM_STATE;
		m.state.rts.apm_state = apm;
	}
	CU_ASSERT_EQUAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
}

static void connect_pair(const conn_t *c)
{
	connect_one(ea, eb, c, c->alt_a, c->apm_a);
	connect_one(eb, ea, c, c->alt_b, c->apm_b);
}

static ib_qp_attr_t query(const end_t *e)
{
	ib_qp_attr_t a;

	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(ib_query_qp(e->qp, &a), IB_SUCCESS);
	return a;
}

static ib_api_status_t set_port(const end_t *e, uint8_t port, uint8_t state)
{
	return soft_set_port(e->ca, port, state);
}

static void post_recv(end_t *e, uint64_t wr_id)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(e->buf + BUF_LEN / 2), BUF_LEN / 2, e->lkey };
	ib_recv_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	CU_ASSERT_EQUAL(ib_post_recv(e->qp, &wr, NULL), IB_SUCCESS);
}

static void post_send(end_t *e, uint64_t wr_id, unsigned seed)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)e->buf, MSG_LEN, e->lkey };
	ib_send_wr_t wr;
	uint32_t i;

	for (i = 0; i < MSG_LEN; i++)
		e->buf[i] = (uint8_t)(i * 7 + seed);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.wr_type = WR_SEND;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	CU_ASSERT_EQUAL(ib_post_send(e->qp, &wr, NULL), IB_SUCCESS);
}

/* Expects the next completion of @p e to be @p wr_id with @p status. */
static void expect_wc(end_t *e, uint64_t wr_id, ib_wc_status_t status)
{
	ib_wc_t wc;

	CU_ASSERT_FATAL(wait_wc(e, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, wr_id);
	CU_ASSERT_EQUAL(wc.status, status);
}

/* Sends one message from @p s to @p r and checks it arrived intact. */
static void transfer(end_t *s, end_t *r, uint64_t wr_id, unsigned seed)
{
	uint32_t i, bad = 0;

	post_recv(r, wr_id + 1000);
	post_send(s, wr_id, seed);
	expect_wc(s, wr_id, IB_WCS_SUCCESS);
	expect_wc(r, wr_id + 1000, IB_WCS_SUCCESS);
	for (i = 0; i < MSG_LEN; i++)
		bad += r->buf[BUF_LEN / 2 + i] != (uint8_t)(i * 7 + seed);
	CU_ASSERT_EQUAL(bad, 0);
}

/* ---- Tests ---- */

/* The statuses ib_al.h documents for ib_force_apm(). */
static void test_force_apm_invalid(void)
{
	static const conn_t no_alt = { ACK_TIMEOUT, 3, IB_APM_MIGRATED, IB_APM_MIGRATED, FALSE, FALSE };
	ib_qp_handle_t h_dead, h_ud;
	ib_qp_create_t qc;
	ib_qp_mod_t m;

	up();
	CU_ASSERT_EQUAL(ib_force_apm(NULL), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_force_apm((ib_qp_handle_t)ea->cq), IB_INVALID_QP_HANDLE);
	/* RESET: no path at all. */
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_INVALID_QP_STATE);
	/* RTS without an alternate path. */
	connect_pair(&no_alt);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_INVALID_QP_STATE);
	/* An alternate path loaded but not armed (MIGRATED), then REARM. */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV;
	path(&m.state.rts.alternate_av, eb, 2, ACK_TIMEOUT);
	CU_ASSERT_EQUAL(ib_modify_qp(ea->qp, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(query(ea).alternate_port, 2);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_INVALID_QP_STATE);
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_REARM;
	CU_ASSERT_EQUAL(ib_modify_qp(ea->qp, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(query(ea).apm_state, IB_APM_REARM);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_INVALID_QP_STATE);
	/* Nothing moved. */
	CU_ASSERT_EQUAL(query(ea).primary_port, 1);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm), 0);
	/* Armed but in SQD: the migration needs RTS. */
	m.state.rts.apm_state = IB_APM_ARMED;
	CU_ASSERT_EQUAL(ib_modify_qp(ea->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_SQD;
	CU_ASSERT_EQUAL(ib_modify_qp(ea->qp, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(query(ea).apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(query(ea).primary_port, 1);
	/* A UD QP has no alternate path. */
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = ea->cq;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(ea->pd, &qc, ea, on_qp_event, &h_ud), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_force_apm(h_ud), IB_INVALID_QP_STATE);
	/* A destroyed QP's handle. */
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(ea->pd, &qc, ea, on_qp_event, &h_dead), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_qp(h_dead, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_force_apm(h_dead), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm), 0);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm_err), 0);
	down();
}

/*
 * ib_force_apm() on A: A moves to port 2 and raises IB_AE_QP_APM; its next
 * packets (MigReq set, on B's alternate path) make B migrate too. Data then
 * flows both ways with port 1 down on both CAs.
 */
static void test_force_apm(void)
{
	ib_qp_attr_t a;

	up();
	connect_pair(&armed);
	transfer(ea, eb, 1, 1);
	a = query(ea);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(a.alternate_port, 2);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(ea, &ea->n_apm, 1), 1);
	a = query(ea);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.primary_port, 2);
	CU_ASSERT_EQUAL(a.primary_av.dlid, eb->lid[1]);
	CU_ASSERT_EQUAL(a.alternate_port, 0);
	/* Migrated once: nothing armed any more. */
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_INVALID_QP_STATE);
	/* B is still on port 1 until A's first packet reaches it. */
	CU_ASSERT_EQUAL(get_count(eb, &eb->n_apm), 0);
	CU_ASSERT_EQUAL(query(eb).primary_port, 1);
	transfer(ea, eb, 2, 2);
	CU_ASSERT_EQUAL(wait_count(eb, &eb->n_apm, 1), 1);
	a = query(eb);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.primary_port, 2);
	CU_ASSERT_EQUAL(a.primary_av.dlid, ea->lid[1]);
	/* The new path is port 2: take port 1 down on both sides. */
	CU_ASSERT_EQUAL(set_port(ea, 1, IB_LINK_DOWN), IB_SUCCESS);
	CU_ASSERT_EQUAL(set_port(eb, 1, IB_LINK_DOWN), IB_SUCCESS);
	transfer(ea, eb, 3, 3);
	transfer(eb, ea, 4, 4);
	transfer(ea, eb, 5, 5);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm), 1);
	CU_ASSERT_EQUAL(get_count(eb, &eb->n_apm), 1);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm_err) + get_count(eb, &eb->n_apm_err), 0);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_other) + get_count(eb, &eb->n_other), 0);
	CU_ASSERT_EQUAL(query(ea).state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(query(eb).state, IB_QPS_RTS);
	down();
}

/*
 * Port 1 of A goes down under traffic: A's retries run out on the primary
 * path, it migrates instead of failing (IB_AE_QP_APM) and resends on port
 * 2, where B migrates on the first packet. Nothing completes in error.
 */
static void test_retry_exhausted_migrates(void)
{
	ib_qp_attr_t a;

	up();
	connect_pair(&armed);
	transfer(ea, eb, 1, 1);
	CU_ASSERT_EQUAL(set_port(ea, 1, IB_LINK_DOWN), IB_SUCCESS);
	transfer(ea, eb, 2, 2);
	CU_ASSERT_EQUAL(wait_count(ea, &ea->n_apm, 1), 1);
	CU_ASSERT_EQUAL(wait_count(eb, &eb->n_apm, 1), 1);
	a = query(ea);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.primary_port, 2);
	a = query(eb);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.primary_port, 2);
	transfer(eb, ea, 3, 3);
	transfer(ea, eb, 4, 4);
	/* Without an armed path the same loss is fatal, as before APM. */
	CU_ASSERT_EQUAL(set_port(ea, 2, IB_LINK_DOWN), IB_SUCCESS);
	post_send(ea, 5, 5);
	expect_wc(ea, 5, IB_WCS_TIMEOUT_RETRY_ERR);
	CU_ASSERT_EQUAL(query(ea).state, IB_QPS_ERROR);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm), 1);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm_err) + get_count(eb, &eb->n_apm_err), 0);
	down();
}

/* Loads @p e's alternate path on port @p port and sets @p apm. */
static void load_alt(end_t *e, const end_t *peer, uint8_t port, ib_apm_state_t apm)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
	path(&m.state.rts.alternate_av, peer, port, ACK_TIMEOUT);
	m.state.rts.apm_state = apm;
	CU_ASSERT_EQUAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
}

/*
 * After a migration both sides load port 1 as the new alternate path and
 * REARM; the first packets without MigReq arm them (REARM to ARMED), and a
 * forced migration from B's side brings the connection back to port 1.
 */
static void test_rearm_and_back(void)
{
	up();
	connect_pair(&armed);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_SUCCESS);
	transfer(ea, eb, 1, 1);
	CU_ASSERT_EQUAL(wait_count(eb, &eb->n_apm, 1), 1);
	load_alt(ea, eb, 1, IB_APM_REARM);
	load_alt(eb, ea, 1, IB_APM_REARM);
	CU_ASSERT_EQUAL(query(ea).apm_state, IB_APM_REARM);
	CU_ASSERT_EQUAL(query(eb).apm_state, IB_APM_REARM);
	CU_ASSERT_EQUAL(ib_force_apm(eb->qp), IB_INVALID_QP_STATE);
	/* A request one way and its ACK the other arm both ends. */
	transfer(ea, eb, 2, 2);
	CU_ASSERT_EQUAL(query(ea).apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(query(eb).apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(query(eb).alternate_port, 1);
	CU_ASSERT_EQUAL(ib_force_apm(eb->qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(eb, &eb->n_apm, 2), 2);
	CU_ASSERT_EQUAL(query(eb).primary_port, 1);
	CU_ASSERT_EQUAL(set_port(ea, 2, IB_LINK_DOWN), IB_SUCCESS);
	CU_ASSERT_EQUAL(set_port(eb, 2, IB_LINK_DOWN), IB_SUCCESS);
	transfer(eb, ea, 3, 3);
	CU_ASSERT_EQUAL(wait_count(ea, &ea->n_apm, 2), 2);
	CU_ASSERT_EQUAL(query(ea).primary_port, 1);
	CU_ASSERT_EQUAL(query(ea).primary_av.dlid, eb->lid[0]);
	transfer(ea, eb, 4, 4);
	CU_ASSERT_EQUAL(get_count(ea, &ea->n_apm_err) + get_count(eb, &eb->n_apm_err), 0);
	down();
}

/*
 * A migrates, but B has its alternate path loaded without arming it: B
 * refuses the migration request (IB_AE_QP_APM_ERROR, the packet dropped),
 * and A, with nothing armed left, fails once its retries run out.
 */
static void test_peer_not_armed(void)
{
	static const conn_t half = { ACK_TIMEOUT, 2, IB_APM_ARMED, IB_APM_MIGRATED, TRUE, TRUE };

	up();
	connect_pair(&half);
	CU_ASSERT_EQUAL(query(eb).alternate_port, 2);
	CU_ASSERT_EQUAL(query(eb).apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(ib_force_apm(ea->qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(ea, &ea->n_apm, 1), 1);
	post_recv(eb, 100);
	post_send(ea, 1, 1);
	CU_ASSERT_EQUAL(wait_count(eb, &eb->n_apm_err, 1), 1);
	expect_wc(ea, 1, IB_WCS_TIMEOUT_RETRY_ERR);
	CU_ASSERT_EQUAL(query(ea).state, IB_QPS_ERROR);
	/* B took nothing: no migration, the receive still queued, one error event. */
	CU_ASSERT_EQUAL(get_count(eb, &eb->n_apm), 0);
	CU_ASSERT_EQUAL(query(eb).primary_port, 1);
	CU_ASSERT_EQUAL(query(eb).state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(get_count(eb, &eb->n_apm_err), 1);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_force_apm_invalid),
	TEST_ENTRY(test_force_apm),
	TEST_ENTRY(test_retry_exhausted_migrates),
	TEST_ENTRY(test_rearm_and_back),
	TEST_ENTRY(test_peer_not_armed),
};

TEST_MAIN("al_apm", tests)
