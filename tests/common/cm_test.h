/*
 * ibal tests: helpers shared by the connection-manager tests (endpoints, paths, callback records, data checks).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * An endpoint (cm_end_t) is a PD, one CQ with a wait object, a connected
 * QP (RC or UC) and a registered buffer on one soft CA. Callback results go
 * to one record (cm_rec) under a mutex, and tests wait on its counters with
 * a deadline (cm_wait), never by sleeping.
 */
#ifndef TESTS_CM_TEST_H
#define TESTS_CM_TEST_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iba/ib_al.h>
#include <complib/cl_waitobj.h>
#include "cl_test.h"

/** One side of a connection. */
typedef struct cm_end {
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	cl_waitobj_handle_t wo;
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	uint32_t lkey;
	uint8_t buf[4096];
} cm_end_t;

/** What the callbacks saw. */
typedef struct cm_rec {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n_req, n_rep, n_rtu, n_rej, n_mra, n_dreq, n_drep, n_destroy;
	ib_cm_handle_t h_req, h_rep, h_dreq;
	const void *req_context;
	ib_listen_handle_t h_listen;
	ib_rej_status_t rej_status;
	ib_api_status_t drep_status;
	uint8_t req_pdata[IB_REQ_PDATA_SIZE];
	uint8_t rep_pdata[IB_REP_PDATA_SIZE];
	uint8_t rej_pdata[IB_REJ_PDATA_SIZE];
	uint8_t rtu_pdata[IB_RTU_PDATA_SIZE];
	uint8_t dreq_pdata[IB_DREQ_PDATA_SIZE];
	uint8_t drep_pdata[IB_DREP_PDATA_SIZE];
	ib_path_rec_t req_path;
	ib_path_rec_t req_alt_path;
	uint8_t req_resp_res;
	ib_apr_status_t rep_apr_status;
} cm_rec_t;

static cm_rec_t cm_rec = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

static inline void cm_rec_reset(void)
{
	pthread_mutex_lock(&cm_rec.lock);
	cm_rec.n_req = cm_rec.n_rep = cm_rec.n_rtu = cm_rec.n_rej = 0;
	cm_rec.n_mra = cm_rec.n_dreq = cm_rec.n_drep = cm_rec.n_destroy = 0;
	cm_rec.rej_status = 0;
	cm_rec.drep_status = IB_ERROR;
	pthread_mutex_unlock(&cm_rec.lock);
}

/* Increments a counter of cm_rec and wakes the waiters. */
static inline void cm_bump(int *p)
{
	pthread_mutex_lock(&cm_rec.lock);
	(*p)++;
	pthread_cond_broadcast(&cm_rec.cond);
	pthread_mutex_unlock(&cm_rec.lock);
}

/* Waits (bounded) until *p reaches v; returns its value. */
static inline int cm_wait_ms(int *p, int v, uint64_t ms)
{
	uint64_t end = test_now_ms() + ms;
	struct timespec ts;
	int got;

	pthread_mutex_lock(&cm_rec.lock);
	while (*p < v && test_now_ms() < end) {
		ts = test_ts_in_ms(CLOCK_REALTIME, 50);
		pthread_cond_timedwait(&cm_rec.cond, &cm_rec.lock, &ts);
	}
	got = *p;
	pthread_mutex_unlock(&cm_rec.lock);
	return got;
}

static inline int cm_wait(int *p, int v)
{
	return cm_wait_ms(p, v, TEST_WAIT_US / 1000u);
}

static inline void AL_API cm_on_destroy(void *context)
{
	(void)context;
	cm_bump(&cm_rec.n_destroy);
}

/*
 * Opens an endpoint with a QP of @p type on CA @p ca (open); the status of
 * the first call that failed. For forked children, where a failed CUnit
 * assertion cannot stop the test.
 */
static inline ib_api_status_t cm_end_try_open(cm_end_t *e, ib_ca_handle_t ca, ib_qp_type_t type)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	net32_t rkey;
	ib_api_status_t st;

	memset(e, 0, sizeof(*e));
	e->ca = ca;
	st = ib_alloc_pd(ca, IB_PDT_NORMAL, e, &e->pd);
	if (st == IB_SUCCESS && cl_waitobj_create(FALSE, &e->wo) != CL_SUCCESS)
		st = IB_INSUFFICIENT_RESOURCES;
	memset(&cc, 0, sizeof(cc));
	cc.size = 64;
	cc.h_wait_obj = e->wo;
	if (st == IB_SUCCESS)
		st = ib_create_cq(ca, &cc, e, NULL, &e->cq);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = type;
	qc.sq_depth = 16;
	qc.rq_depth = 16;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = e->cq;
	qc.h_rq_cq = e->cq;
	qc.sq_signaled = TRUE;
	if (st == IB_SUCCESS)
		st = ib_create_qp(e->pd, &qc, e, NULL, &e->qp);
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	if (st == IB_SUCCESS)
		st = ib_reg_mem(e->pd, &mc, &e->lkey, &rkey, &e->mr);
	return st;
}

/* cm_end_try_open() that must succeed. */
static inline void cm_end_open(cm_end_t *e, ib_ca_handle_t ca, ib_qp_type_t type)
{
	CU_ASSERT_EQUAL_FATAL(cm_end_try_open(e, ca, type), IB_SUCCESS);
}

static inline void cm_end_close(cm_end_t *e)
{
	if (e->pd)
		CU_ASSERT_EQUAL(ib_dealloc_pd(e->pd, ib_sync_destroy), IB_SUCCESS);
	if (e->cq)
		CU_ASSERT_EQUAL(ib_destroy_cq(e->cq, ib_sync_destroy), IB_SUCCESS);
	if (e->wo)
		cl_waitobj_destroy(e->wo);
	memset(e, 0, sizeof(*e));
}

static inline ib_qp_state_t cm_qp_state(ib_qp_handle_t qp)
{
	ib_qp_attr_t a;

	memset(&a, 0, sizeof(a));
	if (ib_query_qp(qp, &a) != IB_SUCCESS)
		return IB_QPS_RESET;
	return a.state;
}

/* A path from a port (LID, GID) to another, as the SA would give it. */
static inline void cm_make_path(ib_path_rec_t *p, ib_net16_t slid, const ib_gid_t *sgid,
				ib_net16_t dlid, const ib_gid_t *dgid, uint8_t pkt_life)
{
	memset(p, 0, sizeof(*p));
	p->slid = slid;
	p->dlid = dlid;
	p->sgid = *sgid;
	p->dgid = *dgid;
	p->pkey = CL_HTON16(0xFFFF);
	p->num_path = 0x81;
	p->mtu = (uint8_t)(0x80 | IB_MTU_LEN_1024);
	p->rate = (uint8_t)(0x80 | IB_PATH_RECORD_RATE_10_GBS);
	p->pkt_life = (uint8_t)(0x80 | pkt_life);
	ib_path_rec_set_hop_flow_raw(p, 0, 0, FALSE);
}

/* Ignores a REJ (passive sides that only need the slot filled). */
static inline void AL_API cm_ignore_rej(ib_cm_rej_rec_t *p)
{
	(void)p;
}

/* Answers a DREQ with a DREP (passive sides of the multi-process tests). */
static inline void AL_API cm_answer_dreq(ib_cm_dreq_rec_t *p)
{
	ib_cm_drep_t d;

	memset(&d, 0, sizeof(d));
	ib_cm_drep(p->h_cm_dreq, &d);
}

/* Accepts a REQ on RC QP @p qp (local write access, RNR retries 7) with these callbacks. */
static inline ib_api_status_t cm_rep_rc(ib_cm_handle_t h_req, ib_qp_handle_t qp,
					ib_pfn_cm_rej_cb_t rej, ib_pfn_cm_rtu_cb_t rtu,
					ib_pfn_cm_dreq_cb_t dreq)
{
	ib_cm_rep_t r;

	memset(&r, 0, sizeof(r));
	r.h_qp = qp;
	r.qp_type = IB_QPT_RELIABLE_CONN;
	r.access_ctrl = IB_AC_LOCAL_WRITE;
	r.rnr_retry_cnt = 7;
	r.pfn_cm_rej_cb = rej;
	r.pfn_cm_rtu_cb = rtu;
	r.pfn_cm_dreq_cb = dreq;
	return ib_cm_rep(h_req, &r);
}

/* Polls one completion of an endpoint's CQ (bounded wait); 1 if found. */
static inline int cm_poll_one(cm_end_t *e, ib_wc_t *wc)
{
	ib_wc_t *free_l, *done;
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;

	while (test_now_ms() < end) {
		free_l = wc;
		wc->p_next = NULL;
		if (ib_poll_cq(e->cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		ib_rearm_cq(e->cq, FALSE);
		free_l = wc;
		wc->p_next = NULL;
		if (ib_poll_cq(e->cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		cl_waitobj_wait_on(e->wo, 100000, FALSE);
	}
	return 0;
}

static inline ib_api_status_t cm_post_recv(cm_end_t *e, uint32_t len)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)e->buf;
	ds.length = len;
	ds.lkey = e->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 1;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(e->qp, &wr, NULL);
}

static inline ib_api_status_t cm_post_send(cm_end_t *e, uint32_t len)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr;

	ds.vaddr = (uintptr_t)(e->buf + 2048);
	ds.length = len;
	ds.lkey = e->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 2;
	wr.wr_type = WR_SEND;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_send(e->qp, &wr, NULL);
}

/* Sends @p len bytes from @p a to @p b over their connected QPs and checks
 * both completions and the bytes. */
static inline void cm_check_data(cm_end_t *a, cm_end_t *b, uint32_t len, uint8_t seed)
{
	ib_wc_t wc;
	uint32_t i;
	int ok = 1;

	for (i = 0; i < len; i++)
		a->buf[2048 + i] = (uint8_t)(seed + i);
	memset(b->buf, 0, len);
	CU_ASSERT_EQUAL(cm_post_recv(b, len), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_post_send(a, len), IB_SUCCESS);
	CU_ASSERT_EQUAL(cm_poll_one(a, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_SEND);
	CU_ASSERT_EQUAL(cm_poll_one(b, &wc), 1);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV);
	CU_ASSERT_EQUAL(wc.length, len);
	for (i = 0; i < len; i++)
		if (b->buf[i] != (uint8_t)(seed + i))
			ok = 0;
	CU_ASSERT(ok);
}

#endif /* TESTS_CM_TEST_H */
