/*
 * ibal tests: the fixture shared by the connection-manager tests of one process (two soft CAs, callbacks, connect and disconnect).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Included by test_al_cm.c and test_al_cm_ext.c only. Two soft CAs
 * (IBAL_SOFT_CAS=2) on a fabric directory of their own: the active side's
 * QP is on CA 0 (act), the passive side's on CA 1 (pas). The callbacks
 * record what they see in cm_rec (cm_test.h) and do what `mode` says.
 */
#ifndef TESTS_CM_FIXTURE_H
#define TESTS_CM_FIXTURE_H

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/cm_test.h"
#include "al_cm.h"
#include "al_cm_wire.h"
#include "al_sa_client.h"
#include "al_mad.h"
#include "al_cm_int.h"
#include "al_handle.h"

#define SVC CL_HTON64(0x1000000000C3C3C3ull)
#define PKT_LIFE 12        /* 16.8 ms: local ACK timeout 13, time-wait ~50 ms */
#define RESP_TO 14         /* 67 ms for the peer's CM to answer */

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca[2];
static ib_net16_t lid[2];
static ib_gid_t gid[2];
static ib_net64_t port_guid[2], ca_guid[2];
static cm_end_t act, pas;

/* What the passive and active callbacks do. */
typedef struct cm_mode {
	int rep_in_req;      /* ib_cm_rep from the REQ callback */
	int rej_in_req;      /* ib_cm_rej (USER_DEFINED) from the REQ callback */
	int mra_in_req;      /* ib_cm_mra from the REQ callback */
	int rtu_in_rep;      /* ib_cm_rtu from the REP callback */
	int drep_in_dreq;    /* ib_cm_drep from the DREQ callback */
	int p2p;             /* peer-to-peer: the REQ's context names the QP */
	int cancel_in_req;   /* ib_cm_cancel of the listen from its REQ callback */
	ib_net64_t handoff;  /* REQs of listen context 1 are handed to this service */
	int failover;        /* the REP accepts the REQ's alternate path */
	int sync_in_cb;      /* the REQ callback first tries ib_cm_rep with IB_FLAGS_SYNC */
	int sa_in_req;       /* the REQ callback waits for an SA answer first (cm_sa) */
	int wait_replaced;   /* the REQ callback waits until its MAD thread is replaced */
	ib_qp_type_t type;
} cm_mode_t;

static cm_mode_t mode;

/* The names of the threads the REQ, REP and RTU callbacks ran on (cm_rec.lock). */
enum { CB_REQ, CB_REP, CB_RTU, CB_KINDS };
static char cm_cb_thread[CB_KINDS][16];

static inline void cm_note_thread(int kind)
{
	char name[16] = "";

	pthread_getname_np(pthread_self(), name, sizeof(name));
	pthread_mutex_lock(&cm_rec.lock);
	memcpy(cm_cb_thread[kind], name, sizeof(name));
	pthread_mutex_unlock(&cm_rec.lock);
}

/* The SA query a REQ callback waits for (sa_in_req). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
	ib_api_status_t status;
	uint32_t results;
} cm_sa = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static inline void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;
	uint32_t size;
	ib_ca_attr_t *p_attr;
	int i;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-alcm-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	unsetenv("IBAL_SOFT_SM");
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[i], NULL, NULL, &h_ca[i]), IB_SUCCESS);
		size = 0;
		CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], NULL, &size), IB_INSUFFICIENT_MEMORY);
		p_attr = (ib_ca_attr_t *)malloc(size);
		CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], p_attr, &size), IB_SUCCESS);
		lid[i] = p_attr->p_port_attr[0].lid;
		gid[i] = p_attr->p_port_attr[0].p_gid_table[0];
		port_guid[i] = p_attr->p_port_attr[0].port_guid;
		ca_guid[i] = guids[i];
		free(p_attr);
	}
	memset(&mode, 0, sizeof(mode));
	mode.type = IB_QPT_RELIABLE_CONN;
	cm_rec_reset();
}

static inline void down(void)
{
	if (h_al)
		CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	al_cm_quiesce();
	al_sa_quiesce();
	CU_ASSERT_EQUAL(al_cm_cep_count(), 0);
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	test_fixture_up = 0;
}

/* ---- Callbacks ---- */

static inline void AL_API on_rej(ib_cm_rej_rec_t *p)
{
	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.rej_status = p->rej_status;
	memcpy(cm_rec.rej_pdata, p->p_rej_pdata, IB_REJ_PDATA_SIZE);
	pthread_mutex_unlock(&cm_rec.lock);
	cm_bump(&cm_rec.n_rej);
}

static inline void AL_API on_mra(ib_cm_mra_rec_t *p)
{
	(void)p;
	cm_bump(&cm_rec.n_mra);
}

static inline void AL_API on_drep(ib_cm_drep_rec_t *p)
{
	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.drep_status = p->cm_status;
	memcpy(cm_rec.drep_pdata, p->p_drep_pdata, IB_DREP_PDATA_SIZE);
	pthread_mutex_unlock(&cm_rec.lock);
	cm_bump(&cm_rec.n_drep);
}

static inline void AL_API on_dreq(ib_cm_dreq_rec_t *p)
{
	ib_cm_drep_t d;
	static uint8_t pd[4] = { 'd', 'r', 'e', 'p' };
	int answer = mode.drep_in_dreq;   /* read before the count moves */

	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.h_dreq = p->h_cm_dreq;
	memcpy(cm_rec.dreq_pdata, p->p_dreq_pdata, IB_DREQ_PDATA_SIZE);
	pthread_mutex_unlock(&cm_rec.lock);
	cm_bump(&cm_rec.n_dreq);
	if (answer) {
		memset(&d, 0, sizeof(d));
		d.p_drep_pdata = pd;
		d.drep_length = sizeof(pd);
		CU_ASSERT_EQUAL(ib_cm_drep(p->h_cm_dreq, &d), IB_SUCCESS);
	}
}

static inline void AL_API on_rtu(ib_cm_rtu_rec_t *p)
{
	cm_note_thread(CB_RTU);
	pthread_mutex_lock(&cm_rec.lock);
	memcpy(cm_rec.rtu_pdata, p->p_rtu_pdata, IB_RTU_PDATA_SIZE);
	pthread_mutex_unlock(&cm_rec.lock);
	if (!mode.p2p)
		CU_ASSERT_EQUAL(p->h_qp, pas.qp);
	cm_bump(&cm_rec.n_rtu);
}

/* ---- Alternate paths ---- */

static struct {
	int n_lap, n_apr;
	int n_lap_done;             /* lap callbacks returned (the next LAP may come) */
	int answer;                 /* -1: do not answer; -2: MRA; else the APR status */
	ib_cm_handle_t h_lap;       /* the last LAP received */
	boolean_t apm;              /* the CA supports path migration */
	ib_path_rec_t alt;
	ib_api_status_t cm_status;
	ib_apr_status_t apr_status;
	uint8_t lap_pdata[4];
} lap;

static inline void AL_API on_lap(ib_cm_lap_rec_t *p)
{
	ib_cm_apr_t a;
	int answer = lap.answer;          /* read before the count moves */

	pthread_mutex_lock(&cm_rec.lock);
	lap.alt = p->alt_path;
	lap.h_lap = p->h_cm_lap;
	memcpy(lap.lap_pdata, p->p_lap_pdata, sizeof(lap.lap_pdata));
	pthread_mutex_unlock(&cm_rec.lock);
	CU_ASSERT_EQUAL(p->qp_context, &pas);
	if (answer == -2) {
		ib_cm_mra_t mra;

		memset(&mra, 0, sizeof(mra));
		mra.svc_timeout = 20;   /* 4.3 s */
		CU_ASSERT_EQUAL(ib_cm_mra(p->h_cm_lap, &mra), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_cm_mra(p->h_cm_lap, &mra), IB_INVALID_STATE);
	}
	cm_bump(&lap.n_lap);
	if (answer < 0) {
		cm_bump(&lap.n_lap_done);
		return;
	}
	memset(&a, 0, sizeof(a));
	a.qp_type = IB_QPT_RELIABLE_CONN;
	a.h_qp = pas.qp;
	a.apr_status = (ib_apr_status_t)answer;
	/* Without path migration in the CA the load fails (and the APR says
	 * IB_AP_REJECT): the call reports the QP's status. */
	CU_ASSERT_EQUAL(ib_cm_apr(p->h_cm_lap, &a),
			(lap.apm || a.apr_status != IB_AP_SUCCESS) ? IB_SUCCESS : IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(ib_cm_apr(p->h_cm_lap, &a), IB_INVALID_STATE);
	cm_bump(&lap.n_lap_done);
}

static inline void AL_API on_apr(ib_cm_apr_rec_t *p)
{
	pthread_mutex_lock(&cm_rec.lock);
	lap.cm_status = p->cm_status;
	lap.apr_status = p->apr_status;
	pthread_mutex_unlock(&cm_rec.lock);
	CU_ASSERT_EQUAL(p->h_qp, act.qp);
	cm_bump(&lap.n_apr);
}

static inline void AL_API on_sa_answer(ib_query_rec_t *p)
{
	pthread_mutex_lock(&cm_sa.lock);
	cm_sa.status = p->status;
	cm_sa.results = p->result_cnt;
	cm_sa.done = 1;
	pthread_cond_broadcast(&cm_sa.cond);
	pthread_mutex_unlock(&cm_sa.lock);
	if (p->p_result_mad)
		ib_put_mad(p->p_result_mad);
}

/* From a REQ callback on the passive port: a PathRecord query to the SA,
 * whose answer comes through the port's QP1, waited for (10 s at most). */
static inline void cm_sa_query_and_wait(void)
{
	static ib_lid_pair_t lp;
	ib_query_req_t q;
	ib_query_handle_t h_q;
	uint64_t end = test_now_ms() + 10000;
	struct timespec ts;

	lp.src_lid = lid[1];
	lp.dest_lid = lid[0];
	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PATH_REC_BY_LIDS;
	q.p_query_input = &lp;
	q.port_guid = port_guid[1];
	q.timeout_ms = 1000;
	q.retry_cnt = 3;
	q.pfn_query_cb = on_sa_answer;
	pthread_mutex_lock(&cm_sa.lock);
	cm_sa.done = 0;
	cm_sa.status = IB_ERROR;
	pthread_mutex_unlock(&cm_sa.lock);
	CU_ASSERT_EQUAL_FATAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);
	pthread_mutex_lock(&cm_sa.lock);
	while (!cm_sa.done && test_now_ms() < end) {
		ts = test_ts_in_ms(CLOCK_REALTIME, 20);
		pthread_cond_timedwait(&cm_sa.cond, &cm_sa.lock, &ts);
	}
	pthread_mutex_unlock(&cm_sa.lock);
}

/* From a REQ callback: waits (asleep, 2 s at most) until a MAD thread has
 * been replaced since it began; returns whether one was. */
static inline int cm_wait_replaced(void)
{
	uint64_t before = al_mad_lend_replaced(), end = test_now_ms() + 2000;
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t c = PTHREAD_COND_INITIALIZER;
	struct timespec ts;

	pthread_mutex_lock(&m);
	while (al_mad_lend_replaced() == before && test_now_ms() < end) {
		ts = test_ts_in_ms(CLOCK_REALTIME, 1);
		pthread_cond_timedwait(&c, &m, &ts); /* nobody signals: a bounded wait, asleep */
	}
	pthread_mutex_unlock(&m);
	return al_mad_lend_replaced() != before;
}

static int g_replaced_in_req; /* REQ callbacks that saw their thread replaced */

static ib_qp_handle_t g_rep_qp;   /* the passive QP, when not pas.qp */
static ib_api_status_t g_sync_cb_st; /* ib_cm_rep with IB_FLAGS_SYNC in the REQ callback (sync_in_cb) */

static inline void rep_with(ib_cm_handle_t h, ib_cm_rep_t *r)
{
	static uint8_t pd[8] = { 'r', 'e', 'p', 'l', 'y', 0, 1, 2 };

	memset(r, 0, sizeof(*r));
	r->p_rep_pdata = pd;
	r->rep_length = sizeof(pd);
	r->h_qp = g_rep_qp ? g_rep_qp : pas.qp;
	r->qp_type = mode.type;
	r->access_ctrl = IB_AC_LOCAL_WRITE;
	r->init_depth = 1;
	r->target_ack_delay = 0;
	r->failover_accepted = mode.failover ? IB_FAILOVER_ACCEPT_SUCCESS : IB_FAILOVER_ACCEPT_UNSUPPORTED;
	r->rnr_nak_timeout = 2;
	r->rnr_retry_cnt = 7;
	r->pfn_cm_rej_cb = on_rej;
	r->pfn_cm_mra_cb = on_mra;
	r->pfn_cm_rtu_cb = on_rtu;
	r->pfn_cm_dreq_cb = on_dreq;
	r->pfn_cm_lap_cb = on_lap;
	(void)h;
}

static inline void AL_API on_req(ib_cm_req_rec_t *p)
{
	ib_cm_rep_t r;
	ib_cm_rej_t j;
	ib_cm_mra_t m;
	static uint8_t rj[5] = { 'n', 'o', 'p', 'e', 0 };
	/* What to do is read before the count moves: the test changes it then. */
	cm_mode_t md = mode;
	ib_qp_handle_t rep_qp = g_rep_qp;

	cm_note_thread(CB_REQ);
	if (md.sa_in_req)
		cm_sa_query_and_wait();
	if (md.wait_replaced && cm_wait_replaced())
		cm_bump(&g_replaced_in_req);
	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.h_req = p->h_cm_req;
	cm_rec.req_context = p->context;
	cm_rec.h_listen = p->h_cm_listen;
	memcpy(cm_rec.req_pdata, p->p_req_pdata, IB_REQ_PDATA_SIZE);
	cm_rec.req_path = p->primary_path;
	cm_rec.req_alt_path = p->alt_path;
	cm_rec.req_resp_res = p->resp_res;
	pthread_mutex_unlock(&cm_rec.lock);
	cm_bump(&cm_rec.n_req);
	if (md.cancel_in_req) {
		CU_ASSERT_EQUAL(ib_cm_cancel(p->h_cm_listen, cm_on_destroy), IB_SUCCESS);
		/* The destroy callback waits for this callback to return. */
		CU_ASSERT_EQUAL(cm_wait_ms(&cm_rec.n_destroy, 1, 100), 0);
	}
	if (md.handoff && p->context == (void *)1) {
		CU_ASSERT_EQUAL(ib_cm_handoff(p->h_cm_req, md.handoff), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_cm_handoff(p->h_cm_req, md.handoff), IB_INVALID_HANDLE);
	} else if (md.rej_in_req) {
		memset(&j, 0, sizeof(j));
		j.rej_status = IB_REJ_USER_DEFINED;
		j.p_rej_pdata = rj;
		j.rej_length = sizeof(rj);
		CU_ASSERT_EQUAL(ib_cm_rej(p->h_cm_req, &j), IB_SUCCESS);
	} else if (md.mra_in_req) {
		memset(&m, 0, sizeof(m));
		m.svc_timeout = 20;  /* 4.3 s */
		CU_ASSERT_EQUAL(ib_cm_mra(p->h_cm_req, &m), IB_SUCCESS);
	} else if (md.rep_in_req) {
		rep_with(p->h_cm_req, &r);
		if (md.sync_in_cb) {
			r.flags = IB_FLAGS_SYNC;
			g_sync_cb_st = ib_cm_rep(p->h_cm_req, &r);
			r.flags = 0;
		}
		if (rep_qp)
			r.h_qp = rep_qp;
		else if (md.p2p)
			r.h_qp = p->context == &act ? act.qp : pas.qp;
		CU_ASSERT_EQUAL(ib_cm_rep(p->h_cm_req, &r), IB_SUCCESS);
	}
}

static inline void rtu_with(ib_cm_rtu_t *t)
{
	static uint8_t pd[3] = { 'r', 't', 'u' };

	memset(t, 0, sizeof(*t));
	t->access_ctrl = IB_AC_LOCAL_WRITE;
	t->p_rtu_pdata = pd;
	t->rtu_length = sizeof(pd);
	t->pfn_cm_dreq_cb = on_dreq;
}

static inline void AL_API on_rep(ib_cm_rep_rec_t *p)
{
	ib_cm_rtu_t t;
	/* Read before the count moves: the test changes it then. */
	cm_mode_t md = mode;

	cm_note_thread(CB_REP);
	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.h_rep = p->h_cm_rep;
	memcpy(cm_rec.rep_pdata, p->p_rep_pdata, IB_REP_PDATA_SIZE);
	cm_rec.rep_apr_status = p->apr_status;
	pthread_mutex_unlock(&cm_rec.lock);
	/* Before the count moves: a test woken by it may move the QP on (RTU). */
	if (!md.p2p) {
		CU_ASSERT_EQUAL(p->qp_context, &act);
		CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_RTR);
	}
	cm_bump(&cm_rec.n_rep);
	if (md.rtu_in_rep) {
		rtu_with(&t);
		CU_ASSERT_EQUAL(ib_cm_rtu(p->h_cm_rep, &t), IB_SUCCESS);
	}
}

/* ---- Helpers ---- */

static inline ib_listen_handle_t listen_on(ib_net64_t svc, uint8_t *cmp, uint8_t off, uint8_t len,
				    const void *ctx)
{
	ib_cm_listen_t l;
	ib_listen_handle_t h = NULL;

	memset(&l, 0, sizeof(l));
	l.svc_id = svc;
	l.p_compare_buffer = cmp;
	l.compare_offset = off;
	l.compare_length = len;
	l.pfn_cm_req_cb = on_req;
	l.qp_type = mode.type;
	CU_ASSERT_EQUAL(ib_cm_listen(h_al, &l, ctx, &h), IB_SUCCESS);
	return h;
}

static ib_path_rec_t g_path;

static inline void req_fill(ib_cm_req_t *q, ib_net64_t svc, const uint8_t *pd, uint8_t len)
{
	cm_make_path(&g_path, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	memset(q, 0, sizeof(*q));
	q->svc_id = svc;
	q->max_cm_retries = 3;
	q->p_primary_path = &g_path;
	q->pfn_cm_rep_cb = on_rep;
	q->p_req_pdata = pd;
	q->req_length = len;
	q->qp_type = mode.type;
	q->h_qp = act.qp;
	q->resp_res = 2;
	q->init_depth = 2;
	q->remote_resp_timeout = RESP_TO;
	q->local_resp_timeout = RESP_TO;
	q->rnr_nak_timeout = 2;
	q->rnr_retry_cnt = 7;
	q->retry_cnt = 7;
	q->pfn_cm_mra_cb = on_mra;
	q->pfn_cm_rej_cb = on_rej;
}

static inline void ends_open(void)
{
	cm_end_open(&act, h_ca[0], mode.type);
	cm_end_open(&pas, h_ca[1], mode.type);
}

/* Puts a QP back in RESET for another connection (the user's job after a time-wait). */
static inline void qp_reset(ib_qp_handle_t qp)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(ib_modify_qp(qp, &m), IB_SUCCESS);
}

/* Waits until no CEP is left (time-waits over). */
static inline void wait_no_cep(void)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;

	while (al_cm_cep_count() && test_now_ms() < end)
		cm_wait_ms(&cm_rec.n_destroy, 1 << 30, 20);
	CU_ASSERT_EQUAL(al_cm_cep_count(), 0);
}

/* Connects act to pas through a listen; the callbacks answer. */
static inline void connect_pair(void)
{
	ib_cm_req_t q;
	static const uint8_t pd[6] = { 'h', 'e', 'l', 'l', 'o', 0 };

	mode.rep_in_req = 1;
	mode.rtu_in_rep = 1;
	req_fill(&q, SVC, pd, sizeof(pd));
	CU_ASSERT_EQUAL_FATAL(ib_cm_req(&q), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cm_wait(&cm_rec.n_rtu, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_req, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_rep, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.n_rej, 0);
	CU_ASSERT(!memcmp(cm_rec.req_pdata, pd, sizeof(pd)));
}

static inline void disconnect_pair(void)
{
	ib_cm_dreq_t d;
	static uint8_t pd[4] = { 'b', 'y', 'e', 0 };

	mode.drep_in_dreq = 1;
	memset(&d, 0, sizeof(d));
	d.p_dreq_pdata = pd;
	d.dreq_length = sizeof(pd);
	d.qp_type = mode.type;
	d.h_qp = act.qp;
	d.pfn_cm_drep_cb = on_drep;
	CU_ASSERT_EQUAL(ib_cm_dreq(&d), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_drep, 1), 1);
	CU_ASSERT_EQUAL(cm_wait(&cm_rec.n_dreq, 1), 1);
	CU_ASSERT_EQUAL(cm_rec.drep_status, IB_SUCCESS);
	CU_ASSERT(!memcmp(cm_rec.dreq_pdata, pd, sizeof(pd)));
	CU_ASSERT(!memcmp(cm_rec.drep_pdata, "drep", 4));
	CU_ASSERT_EQUAL(cm_qp_state(act.qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(cm_qp_state(pas.qp), IB_QPS_ERROR);
}

/* The MAD dispatcher of the CM's agent on a port (NULL if none). */
static inline al_mad_disp_t *cm_port_disp(ib_net64_t guid)
{
	cm_agents_t *p_ag;
	cm_port_t *p_port;
	al_qp_t *p_qp = NULL;

	if (al_cm_get(&p_ag) != IB_SUCCESS)
		return NULL;
	p_port = al_cm_port_by_guid(p_ag, guid);
	if (p_port && p_port->agent.h_qp)
		p_qp = (al_qp_t *)al_handle_lookup(AL_HANDLE_FROM_IB(p_port->agent.h_qp), AL_HDL_QP);
	al_cm_put();
	return p_qp ? PARENT_STRUCT(p_qp, al_mad_qp_t, qp)->p_disp : NULL;
}

/* Waits (bounded) until dispatcher @p d has @p want receive buffers, which its
 * thread grows to at its next round once asked; returns how many it has. */
static inline uint32_t cm_disp_wait_recv(al_mad_disp_t *d, uint32_t want)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;

	while (__atomic_load_n(&d->n_recv, __ATOMIC_ACQUIRE) < want && test_now_ms() < end)
		sched_yield();
	return __atomic_load_n(&d->n_recv, __ATOMIC_ACQUIRE);
}

/* Opens the two soft CAs and both ends' QPs. */
static inline void ends_up(void)
{
	up();
	ends_open();
}

/* ends_up(), then a listen on SVC (no compare buffer) that the callbacks answer. */
static inline ib_listen_handle_t ends_up_listen(void)
{
	ends_up();
	return listen_on(SVC, NULL, 0, 0, NULL);
}

/* Closes both ends and the fabric (the inverse of ends_up()). */
static inline void ends_down(void)
{
	cm_end_close(&act);
	cm_end_close(&pas);
	down();
}

/* A test's end: waits for every CEP to go, cancels the listen @hl (if not
 * NULL), then ends_down(). */
static inline void cm_test_end(ib_listen_handle_t hl)
{
	wait_no_cep();
	if (hl)
		CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	ends_down();
}

/* The program's main: CM_TEST_ONLY=name runs that test of @tests only. */
static inline int cm_test_main(const char *suite, const test_entry_t *tests, size_t n)
{
	const char *only = getenv("CM_TEST_ONLY");
	size_t i;

	if (only)
		for (i = 0; i < n; i++)
			if (!strcmp(tests[i].name, only))
				return test_run_suite(suite, &tests[i], 1);
	return test_run_suite(suite, tests, n);
}

#endif /* TESTS_CM_FIXTURE_H */
