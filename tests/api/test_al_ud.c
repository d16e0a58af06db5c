/*
 * ibal tests: UD send and receive between two soft CAs through the public API only.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) with IBAL_SOFT_CAS=2. Side A's CQs notify through a
 * completion callback, side B's through a wait object (or a callback where
 * the test says so). Waits are bounded, never sleeps.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"

#define SLOT 512          /* bytes of one receive buffer */
#define SLOTS 8           /* receive buffers per QP */
#define GRH 40            /* the GRH area at the start of a UD receive */
#define QKEY 0x0BADCAFEu

/* ---- Fabric directory ---- */

static char fab_dir[64];

/* ---- One side ---- */

typedef struct end {
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_cq_handle_t scq, rcq;
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	ib_av_handle_t av;           /* to the other side */
	cl_waitobj_handle_t wo;      /* notifications of rcq and scq, or NULL */
	net32_t lkey;
	net32_t qpn;
	ib_net16_t lid;
	struct end *peer;
	/* Completion callbacks (under lock). */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n_comp_cb;               /* completion callbacks */
	int n_rx, n_tx;              /* completions seen by callbacks */
	int bad;                     /* something a callback found wrong */
	int n_cq_event;              /* CQ async events */
	ib_async_event_rec_t cq_event; /* the last one */
	uint8_t buf[SLOTS * SLOT + 4096];
} end_t;

static ib_al_handle_t h_al;
static end_t *ea, *eb;

static void AL_API on_comp_count(const ib_cq_handle_t h_cq, void *context)
{
	end_t *e = (end_t *)context;

	pthread_mutex_lock(&e->lock);
	e->n_comp_cb++;
	if (h_cq != e->rcq && h_cq != e->scq)
		e->bad++;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

static void AL_API on_cq_event(ib_async_event_rec_t *p_rec)
{
	end_t *e = (end_t *)p_rec->context;

	pthread_mutex_lock(&e->lock);
	e->n_cq_event++;
	e->cq_event = *p_rec;
	pthread_cond_broadcast(&e->cond);
	pthread_mutex_unlock(&e->lock);
}

/* Size of B's receive CQ (the overrun test shrinks it). */
static uint32_t b_rcq_size = 64;

static ib_api_status_t post_rx(end_t *e, int slot)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)(e->buf + slot * SLOT);
	ds.length = SLOT;
	ds.lkey = e->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = (uint64_t)slot;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(e->qp, &wr, NULL);
}

/* Sends len bytes at buf offset SLOTS * SLOT + off to the peer. */
static ib_api_status_t post_tx(end_t *e, uint64_t wr_id, uint32_t off, uint32_t len,
			       ib_send_opt_t opt)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr;

	ds.vaddr = (uintptr_t)(e->buf + SLOTS * SLOT + off);
	ds.length = len;
	ds.lkey = e->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.wr_type = WR_SEND;
	wr.send_opt = opt;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = e->av;
	wr.dgrm.ud.remote_qp = e->peer->qpn;
	wr.dgrm.ud.remote_qkey = CL_HTON32(QKEY);
	return ib_post_send(e->qp, &wr, NULL);
}

static ib_api_status_t to_state(ib_qp_handle_t qp, ib_qp_state_t s)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = s;
	if (s == IB_QPS_INIT) {
		m.state.init.primary_port = 1;
		m.state.init.qkey = CL_HTON32(QKEY);
	} else if (s == IB_QPS_RTS) {
		m.state.rts.sq_psn = CL_HTON32(7);
	}
	return ib_modify_qp(qp, &m);
}

/* Opens side e on CA guid: CQs with pfn (A) or a wait object (B). */
static void end_open(end_t *e, ib_net64_t guid, ib_pfn_comp_cb_t rcq_cb, boolean_t use_wo,
		     boolean_t sq_signaled)
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
	e->lid = attr->p_port_attr[0].lid;
	free(attr);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(e->ca, IB_PDT_UD, e, &e->pd), IB_SUCCESS);
	memset(&cc, 0, sizeof(cc));
	cc.size = 64;
	if (use_wo) {
		CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &e->wo), CL_SUCCESS);
		cc.h_wait_obj = e->wo;
	} else {
		cc.pfn_comp_cb = on_comp_count;
	}
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(e->ca, &cc, e, on_cq_event, &e->scq), IB_SUCCESS);
	if (rcq_cb) {
		cc.h_wait_obj = NULL;
		cc.pfn_comp_cb = rcq_cb;
	}
	if (e == eb)
		cc.size = b_rcq_size;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(e->ca, &cc, e, on_cq_event, &e->rcq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.sq_depth = 16;
	qc.rq_depth = SLOTS;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = e->scq;
	qc.h_rq_cq = e->rcq;
	qc.sq_signaled = sq_signaled;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(e->pd, &qc, e, NULL, &e->qp), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_query_qp(e->qp, &qa), IB_SUCCESS);
	e->qpn = qa.num;
	CU_ASSERT_EQUAL(to_state(e->qp, IB_QPS_INIT), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(e->qp, IB_QPS_RTR), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(e->qp, IB_QPS_RTS), IB_SUCCESS);
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(e->pd, &mc, &e->lkey, &rkey, &e->mr), IB_SUCCESS);
}

static void make_av(end_t *e)
{
	ib_av_attr_t a;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.dlid = e->peer->lid;
	a.sl = 0;
	CU_ASSERT_EQUAL_FATAL(ib_create_av(e->pd, &a, &e->av), IB_SUCCESS);
}

static void up(ib_pfn_comp_cb_t b_rcq_cb, boolean_t b_signaled)
{
	ib_net64_t guids[2];
	size_t n = 2;

	strcpy(fab_dir, "/tmp/ibal-alud-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	ea = (end_t *)calloc(1, sizeof(*ea));
	eb = (end_t *)calloc(1, sizeof(*eb));
	ea->peer = eb;
	eb->peer = ea;
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	end_open(ea, guids[0], NULL, FALSE, TRUE);
	end_open(eb, guids[1], b_rcq_cb, TRUE, b_signaled);
	make_av(ea);
	make_av(eb);
}

static void end_free(end_t *e)
{
	if (e->wo)
		cl_waitobj_destroy(e->wo);
	pthread_mutex_destroy(&e->lock);
	pthread_cond_destroy(&e->cond);
	free(e);
}

/* Closes everything; the sides stay readable until ends_free(). */
static void down(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static void ends_free(void)
{
	end_free(ea);
	end_free(eb);
}

/* Waits (bounded) until e->*p_field >= want. */
static int wait_field(end_t *e, int *p_field, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&e->lock);
	while (*p_field < want && pthread_cond_timedwait(&e->cond, &e->lock, &ts) == 0)
		;
	v = *p_field;
	pthread_mutex_unlock(&e->lock);
	return v;
}

/* Polls one completion of cq, waiting with the side's notification (wait
 * object, or the callback count) and rearming; 0 on timeout. */
static int wait_one(end_t *e, ib_cq_handle_t cq, ib_wc_t *wc)
{
	ib_wc_t *free_l, *done;
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	int seen;

	while (test_now_ms() < end) {
		free_l = wc;
		wc->p_next = NULL;
		if (ib_poll_cq(cq, &free_l, &done) == IB_SUCCESS) {
			CU_ASSERT_PTR_EQUAL(done, wc);
			CU_ASSERT_PTR_NULL(free_l);
			return 1;
		}
		pthread_mutex_lock(&e->lock);
		seen = e->n_comp_cb;
		pthread_mutex_unlock(&e->lock);
		CU_ASSERT_EQUAL(ib_rearm_cq(cq, FALSE), IB_SUCCESS);
		free_l = wc;
		wc->p_next = NULL;
		if (ib_poll_cq(cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		if (e->wo)
			cl_waitobj_wait_on(e->wo, TEST_WAIT_US, FALSE);
		else
			wait_field(e, &e->n_comp_cb, seen + 1);
	}
	return 0;
}

static void fill(end_t *e, uint32_t off, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		e->buf[SLOTS * SLOT + off + i] = (uint8_t)(seed + i * 13);
}

/* ---- Tests ---- */

/* A sends to B: A's send completions through the callback, B's receives
 * through the wait object; then a batch polled with short free lists. */
static void test_ud_callback_and_waitobj(void)
{
	ib_wc_t wc, wcs[3], *free_l, *done, *w;
	uint32_t n_cqes = 0;
	int i, got;

	up(NULL, TRUE);
	for (i = 0; i < SLOTS; i++)
		CU_ASSERT_EQUAL(post_rx(eb, i), IB_SUCCESS);

	fill(ea, 0, 100, 1);
	CU_ASSERT_EQUAL(ib_rearm_cq(ea->scq, FALSE), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(ea, 77, 0, 100, IB_SEND_OPT_SIGNALED), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_field(ea, &ea->n_comp_cb, 1), 1);
	CU_ASSERT_FATAL(wait_one(ea, ea->scq, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 77);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_SEND);

	CU_ASSERT_FATAL(wait_one(eb, eb->rcq, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 0);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV);
	CU_ASSERT_EQUAL(wc.length, GRH + 100);
	CU_ASSERT_EQUAL(wc.recv.ud.remote_qp, ea->qpn);
	CU_ASSERT_EQUAL(wc.recv.ud.remote_lid, ea->lid);
	CU_ASSERT_EQUAL(memcmp(eb->buf + GRH, ea->buf + SLOTS * SLOT, 100), 0);

	/* Five more; polled three and two with a free list of three. */
	for (i = 1; i <= 5; i++) {
		fill(ea, (uint32_t)i * 200, 150, (uint8_t)i);
		CU_ASSERT_EQUAL(post_tx(ea, 100 + (uint64_t)i, (uint32_t)i * 200, 150, 0), IB_SUCCESS);
	}
	for (i = 0; i < 5; i++) /* wait for them all, counting */
		CU_ASSERT_FATAL(wait_one(ea, ea->scq, &wc));
	for (i = 0; i < 50 && n_cqes < 5; i++) {
		CU_ASSERT_EQUAL(ib_rearm_cq(eb->rcq, FALSE), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_peek_cq(eb->rcq, &n_cqes), IB_SUCCESS);
		if (n_cqes < 5)
			cl_waitobj_wait_on(eb->wo, TEST_WAIT_US / 50, FALSE);
	}
	CU_ASSERT_EQUAL_FATAL(n_cqes, 5);
	wcs[0].p_next = &wcs[1];
	wcs[1].p_next = &wcs[2];
	wcs[2].p_next = NULL;
	free_l = wcs;
	CU_ASSERT_EQUAL(ib_poll_cq(eb->rcq, &free_l, &done), IB_SUCCESS);
	CU_ASSERT_PTR_NULL(free_l);
	got = 0;
	for (w = done; w; w = w->p_next) {
		got++;
		CU_ASSERT_EQUAL(w->wr_id, (uint64_t)got);
		CU_ASSERT_EQUAL(w->length, GRH + 150);
		CU_ASSERT_EQUAL(memcmp(eb->buf + got * SLOT + GRH, ea->buf + SLOTS * SLOT + got * 200,
				       150), 0);
	}
	CU_ASSERT_EQUAL(got, 3);
	free_l = wcs;
	wcs[0].p_next = &wcs[1];
	wcs[1].p_next = &wcs[2];
	wcs[2].p_next = NULL;
	CU_ASSERT_EQUAL(ib_poll_cq(eb->rcq, &free_l, &done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(free_l, &wcs[2]);
	CU_ASSERT_PTR_EQUAL(done, &wcs[0]);
	CU_ASSERT_PTR_EQUAL(done->p_next, &wcs[1]);
	CU_ASSERT_PTR_NULL(done->p_next->p_next);
	CU_ASSERT_EQUAL(wcs[1].wr_id, 5);
	CU_ASSERT_EQUAL(ib_poll_cq(eb->rcq, &free_l, &done), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(ib_peek_cq(eb->rcq, &n_cqes), IB_SUCCESS);
	CU_ASSERT_EQUAL(n_cqes, 0);
	CU_ASSERT_EQUAL(ib_poll_cq(eb->rcq, NULL, &done), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_poll_cq(eb->rcq, &free_l, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_peek_cq(eb->rcq, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_post_send(ea->qp, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_post_recv(ea->qp, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ea->bad, 0);
	down();
	ends_free();
}

/* ib_rearm_n_cq: one callback once n completions are there. */
static void test_ud_rearm_n(void)
{
	uint32_t n = 0;
	int i;

	up(on_comp_count, TRUE);
	for (i = 0; i < SLOTS; i++)
		CU_ASSERT_EQUAL(post_rx(eb, i), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_rearm_n_cq(eb->rcq, 0), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_rearm_n_cq(eb->rcq, 3), IB_SUCCESS);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(post_tx(ea, (uint64_t)i, 0, 10, 0), IB_SUCCESS);
	/* The sender's completions are the proof the packets left. */
	for (i = 0; i < 2; i++) {
		ib_wc_t wc;

		CU_ASSERT_FATAL(wait_one(ea, ea->scq, &wc));
	}
	CU_ASSERT_EQUAL(post_tx(ea, 2, 0, 10, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_field(eb, &eb->n_comp_cb, 1), 1);
	CU_ASSERT_EQUAL(ib_peek_cq(eb->rcq, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 3);
	down();
	CU_ASSERT_EQUAL(eb->n_comp_cb, 1);
	ends_free();
}

/* B's receive callback polls, reposts, replies (posting a send) and rearms
 * from inside the callback; A waits for the echoes. */
static void AL_API echo_cb(const ib_cq_handle_t h_cq, void *context)
{
	end_t *e = (end_t *)context;
	ib_wc_t wc, *free_l, *done;
	ib_api_status_t st;
	int rearmed = 0;

	for (;;) {
		free_l = &wc;
		wc.p_next = NULL;
		if (ib_poll_cq(h_cq, &free_l, &done) != IB_SUCCESS) {
			if (rearmed)
				break;
			/* Rearm, then poll once more for what came meanwhile.
			 * A callback already queued when the test destroys the
			 * CQ still runs (the destroy callback comes after it),
			 * but the handle is invalid by then: that is no error. */
			st = ib_rearm_cq(h_cq, FALSE);
			if (st == IB_INVALID_CQ_HANDLE)
				break;
			if (st != IB_SUCCESS)
				e->bad++;
			rearmed = 1;
			continue;
		}
		rearmed = 0;
		if (wc.status != IB_WCS_SUCCESS || wc.length < GRH + 4) {
			e->bad++;
			continue;
		}
		/* Echo the payload back, then give the buffer back. */
		memcpy(e->buf + SLOTS * SLOT, e->buf + wc.wr_id * SLOT + GRH, wc.length - GRH);
		if (post_tx(e, wc.wr_id, 0, wc.length - GRH, 0) != IB_SUCCESS)
			e->bad++;
		if (post_rx(e, (int)wc.wr_id) != IB_SUCCESS)
			e->bad++;
		pthread_mutex_lock(&e->lock);
		e->n_rx++;
		pthread_cond_broadcast(&e->cond);
		pthread_mutex_unlock(&e->lock);
	}
	pthread_mutex_lock(&e->lock);
	e->n_comp_cb++;
	pthread_mutex_unlock(&e->lock);
}

static void test_ud_callback_reenters(void)
{
	ib_wc_t wc;
	int i, n_send_wc = 0;

	/* B's sends are unsignaled: its send CQ stays empty. */
	up(echo_cb, FALSE);
	for (i = 0; i < SLOTS; i++) {
		CU_ASSERT_EQUAL(post_rx(eb, i), IB_SUCCESS);
		CU_ASSERT_EQUAL(post_rx(ea, i), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(ib_rearm_cq(eb->rcq, FALSE), IB_SUCCESS);
	for (i = 0; i < 20; i++) {
		uint32_t len = 20 + (uint32_t)i;

		fill(ea, 0, len, (uint8_t)(i * 3));
		CU_ASSERT_EQUAL_FATAL(post_tx(ea, 1000 + (uint64_t)i, 0, len, 0), IB_SUCCESS);
		CU_ASSERT_FATAL(wait_one(ea, ea->rcq, &wc));
		CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
		CU_ASSERT_EQUAL(wc.length, GRH + len);
		CU_ASSERT_EQUAL(wc.recv.ud.remote_qp, eb->qpn);
		CU_ASSERT_EQUAL(memcmp(ea->buf + wc.wr_id * SLOT + GRH, ea->buf + SLOTS * SLOT, len),
				0);
		CU_ASSERT_EQUAL(post_rx(ea, (int)wc.wr_id), IB_SUCCESS);
		while (n_send_wc <= i && wait_one(ea, ea->scq, &wc))
			n_send_wc++;
	}
	CU_ASSERT_EQUAL(n_send_wc, 20);
	CU_ASSERT_EQUAL(wait_field(eb, &eb->n_rx, 20), 20);
	down();
	CU_ASSERT_EQUAL(eb->bad, 0);
	CU_ASSERT(eb->n_comp_cb >= 1);
	ends_free();
}

/* A receive CQ too small for what arrives reports IB_AE_CQ_ERROR to its
 * event callback, with its handle and context. */
static void test_ud_cq_overrun(void)
{
	ib_wc_t wc;
	int i;

	b_rcq_size = 2;
	up(NULL, TRUE);
	b_rcq_size = 64;
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(post_rx(eb, i), IB_SUCCESS);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL(post_tx(ea, (uint64_t)i, 0, 8, 0), IB_SUCCESS);
		CU_ASSERT_FATAL(wait_one(ea, ea->scq, &wc));
	}
	CU_ASSERT_EQUAL_FATAL(wait_field(eb, &eb->n_cq_event, 1), 1);
	pthread_mutex_lock(&eb->lock);
	CU_ASSERT_EQUAL(eb->cq_event.code, IB_AE_CQ_ERROR);
	CU_ASSERT_EQUAL(eb->cq_event.handle.h_cq, eb->rcq);
	CU_ASSERT_PTR_EQUAL(eb->cq_event.context, eb);
	pthread_mutex_unlock(&eb->lock);
	CU_ASSERT_EQUAL(ea->n_cq_event, 0);
	down();
	ends_free();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_ud_callback_and_waitobj),
	TEST_ENTRY(test_ud_rearm_n),
	TEST_ENTRY(test_ud_callback_reenters),
	TEST_ENTRY(test_ud_cq_overrun),
};

TEST_MAIN("al_ud", tests)
