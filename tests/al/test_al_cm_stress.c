/*
 * ibal tests: the connection manager under load: 1,000 connections set up and torn down by several threads, no leak.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs in one process. Each of CM_THREADS threads makes, for each
 * of its connections, a fresh QP on each CA, connects them through one
 * shared listen (the REQ's private data names the thread, so the passive
 * callback finds the thread's passive QP), sends one message, disconnects
 * and destroys both QPs while their endpoints are in time-wait. At the end
 * no endpoint is left, and after closing the access layer no memory is.
 * Every wait is bounded.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/cm_test.h"
#include "al_cm.h"
#include "al_cm_int.h"
#include "al_sa_client.h"
#include "ibal_arena.h"
#include "prov_conn_mem.h"

#define SVC CL_HTON64(0x1000000000C3C3D4ull)
#define CM_THREADS 4
#define CM_PER_THREAD 250
/* Packet lifetime 268 ms: time-waits of ~0.8 s, so that the endpoints of
 * most of the connections are still in time-wait while the later ones are
 * made: the CM's tables hold thousands of entries, many of them with the
 * remote QPN (QPNs are reused) of a new REQ, which the stale check skips. */
#define PKT_LIFE 16

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca[2];
static ib_net16_t lid[2];
static ib_gid_t gid[2];

typedef struct worker {
	int idx;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int rtu, drep, rej, fail;
	cm_end_t a, p;
	ib_path_rec_t path;
} worker_t;

static worker_t W[CM_THREADS];

static void w_bump(worker_t *w, int *p)
{
	pthread_mutex_lock(&w->lock);
	(*p)++;
	pthread_cond_broadcast(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

static int w_wait(worker_t *w, int *p, int v)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	struct timespec ts;
	int got;

	pthread_mutex_lock(&w->lock);
	while (*p < v && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&w->cond, &w->lock, &ts);
	}
	got = *p;
	pthread_mutex_unlock(&w->lock);
	return got;
}

/* The worker of an endpoint: its pointer is kept at the end of the buffer. */
#define W_OFF 4000
static worker_t *worker_of(const void *qp_context)
{
	worker_t *w;

	memcpy(&w, ((const cm_end_t *)qp_context)->buf + W_OFF, sizeof(w));
	return w;
}

static void AL_API on_rej(ib_cm_rej_rec_t *p)
{
	worker_t *w = worker_of(p->qp_context);

	w_bump(w, &w->rej);
}

static void AL_API on_drep(ib_cm_drep_rec_t *p)
{
	worker_t *w;

	w = worker_of(p->qp_context);
	if (p->cm_status != IB_SUCCESS)
		w->fail++;
	w_bump(w, &w->drep);
}

static void AL_API on_dreq(ib_cm_dreq_rec_t *p)
{
	ib_cm_drep_t d;

	memset(&d, 0, sizeof(d));
	CU_ASSERT_EQUAL(ib_cm_drep(p->h_cm_dreq, &d), IB_SUCCESS);
}

static void AL_API on_rtu(ib_cm_rtu_rec_t *p)
{
	worker_t *w;

	w = worker_of(p->qp_context);
	w_bump(w, &w->rtu);
}

static void AL_API on_req(ib_cm_req_rec_t *p)
{
	worker_t *w = &W[p->p_req_pdata[0]];

	if (cm_rep_rc(p->h_cm_req, w->p.qp, on_rej, on_rtu, on_dreq) != IB_SUCCESS)
		w->fail++;
}

static void AL_API on_rep(ib_cm_rep_rec_t *p)
{
	ib_cm_rtu_t t;

	memset(&t, 0, sizeof(t));
	t.pfn_cm_dreq_cb = on_dreq;
	CU_ASSERT_EQUAL(ib_cm_rtu(p->h_cm_rep, &t), IB_SUCCESS);
}

/* A fresh QP for an endpoint whose PD and CQ stay. */
static void new_qp(cm_end_t *e)
{
	ib_qp_create_t qc;

	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = 4;
	qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = e->cq;
	qc.h_rq_cq = e->cq;
	qc.sq_signaled = TRUE;
	CU_ASSERT_EQUAL(ib_create_qp(e->pd, &qc, e, NULL, &e->qp), IB_SUCCESS);
}

static void *worker_main(void *arg)
{
	worker_t *w = (worker_t *)arg;
	ib_cm_req_t q;
	ib_cm_dreq_t d;
	uint8_t pd[1];
	ib_wc_t wc;
	int i;

	for (i = 0; i < CM_PER_THREAD && !w->fail; i++) {
		new_qp(&w->a);
		new_qp(&w->p);
		pd[0] = (uint8_t)w->idx;
		memset(&q, 0, sizeof(q));
		q.svc_id = SVC;
		q.max_cm_retries = 5;
		q.p_primary_path = &w->path;
		q.pfn_cm_rep_cb = on_rep;
		q.p_req_pdata = pd;
		q.req_length = 1;
		q.qp_type = IB_QPT_RELIABLE_CONN;
		q.h_qp = w->a.qp;
		q.remote_resp_timeout = 16;
		q.local_resp_timeout = 16;
		q.retry_cnt = 7;
		q.rnr_retry_cnt = 7;
		q.pfn_cm_rej_cb = on_rej;
		if (ib_cm_req(&q) != IB_SUCCESS || w_wait(w, &w->rtu, i + 1) != i + 1) {
			w->fail++;
			break;
		}
		/* One message on the connection (the receive first). */
		if (cm_post_recv(&w->p, 16) != IB_SUCCESS || cm_post_send(&w->a, 16) != IB_SUCCESS ||
		    !cm_poll_one(&w->a, &wc) || wc.status != IB_WCS_SUCCESS ||
		    !cm_poll_one(&w->p, &wc) || wc.status != IB_WCS_SUCCESS) {
			w->fail++;
			break;
		}
		memset(&d, 0, sizeof(d));
		d.qp_type = IB_QPT_RELIABLE_CONN;
		d.h_qp = (i & 1) ? w->a.qp : w->p.qp;   /* either side disconnects */
		d.pfn_cm_drep_cb = on_drep;
		if (ib_cm_dreq(&d) != IB_SUCCESS || w_wait(w, &w->drep, i + 1) != i + 1) {
			w->fail++;
			break;
		}
		/* Destroyed while their endpoints are in time-wait. */
		ib_destroy_qp(w->a.qp, ib_sync_destroy);
		ib_destroy_qp(w->p.qp, ib_sync_destroy);
		/* Completions of the flushed QPs, if any, are dropped. */
		while (1) {
			ib_wc_t *f = &wc, *done;

			wc.p_next = NULL;
			if (ib_poll_cq(w->a.cq, &f, &done) != IB_SUCCESS)
				break;
		}
	}
	return NULL;
}

static void test_cm_stress(void)
{
	ibal_arena_t probe = IBAL_ARENA_INIT; /* tells whether arenas are plain here */
	ib_net64_t guids[2];
	size_t n = 2;
	uint32_t size;
	ib_ca_attr_t *p_attr;
	ib_cm_listen_t l;
	ib_listen_handle_t hl;
	uint64_t end;
	int i, total = 0;

	strcpy(fab_dir, "/tmp/ibal-alcms-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[i], NULL, NULL, &h_ca[i]), IB_SUCCESS);
		size = 0;
		ib_query_ca(h_ca[i], NULL, &size);
		p_attr = (ib_ca_attr_t *)malloc(size);
		CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], p_attr, &size), IB_SUCCESS);
		lid[i] = p_attr->p_port_attr[0].lid;
		gid[i] = p_attr->p_port_attr[0].p_gid_table[0];
		free(p_attr);
	}
	memset(&l, 0, sizeof(l));
	l.svc_id = SVC;
	l.pfn_cm_req_cb = on_req;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &hl), IB_SUCCESS);
	for (i = 0; i < CM_THREADS; i++) {
		worker_t *w = &W[i];

		memset(w, 0, sizeof(*w));
		w->idx = i;
		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		cm_end_open(&w->a, h_ca[0], IB_QPT_RELIABLE_CONN);
		cm_end_open(&w->p, h_ca[1], IB_QPT_RELIABLE_CONN);
		memcpy(w->a.buf + W_OFF, &w, sizeof(w));
		memcpy(w->p.buf + W_OFF, &w, sizeof(w));
		ib_destroy_qp(w->a.qp, ib_sync_destroy);
		ib_destroy_qp(w->p.qp, ib_sync_destroy);
		cm_make_path(&w->path, lid[0], &gid[0], lid[1], &gid[1], PKT_LIFE);
	}
	for (i = 0; i < CM_THREADS; i++)
		CU_ASSERT_EQUAL(pthread_create(&W[i].th, NULL, worker_main, &W[i]), 0);
	for (i = 0; i < CM_THREADS; i++) {
		pthread_join(W[i].th, NULL);
		CU_ASSERT_EQUAL(W[i].fail, 0);
		CU_ASSERT_EQUAL(W[i].rej, 0);
		CU_ASSERT_EQUAL(W[i].rtu, CM_PER_THREAD);
		CU_ASSERT_EQUAL(W[i].drep, CM_PER_THREAD);
		total += W[i].drep;
	}
	CU_ASSERT_EQUAL(total, CM_THREADS * CM_PER_THREAD);
	/* The CEPs and QPs came from the connections' arena (prov_conn_mem.h),
	 * hundreds of CEPs at once in time-wait: more than a huge chunk of it
	 * (not under ASan or valgrind, where each is its own allocation). */
	if (!ibal_arena_is_plain(&probe))
		CU_ASSERT(prov_conn_mem_held() > IBAL_ARENA_HUGE);
	printf("\n  endpoints left in time-wait at the end: %u\n", al_cm_cep_count());
	/* Every time-wait ends. */
	end = test_now_ms() + TEST_WAIT_US / 1000u;
	while (al_cm_cep_count() && test_now_ms() < end)
		cm_wait_ms(&cm_rec.n_destroy, 1 << 30, 20);
	CU_ASSERT_EQUAL(al_cm_cep_count(), 0);
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	for (i = 0; i < CM_THREADS; i++) {
		W[i].a.qp = W[i].p.qp = NULL;
		cm_end_close(&W[i].a);
		cm_end_close(&W[i].p);
	}
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	al_cm_quiesce();
	al_sa_quiesce();
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	/* With the last CEP and QP the arena's chunks went back to the kernel. */
	CU_ASSERT_EQUAL(prov_conn_mem_held(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_cm_stress),
};

TEST_MAIN("al_cm_stress", tests)
