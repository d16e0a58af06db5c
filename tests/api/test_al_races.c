/*
 * ibal tests: one handle used and destroyed by several threads at once (double destroy, dereg during use).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Misuse a real application can make: two threads destroying the same
 * handle, one thread deregistering an MR that another is querying or
 * binding a window to, or destroying a QP and CQ another is posting to and
 * polling. Every call must return a documented status and the
 * program must not touch freed memory (which ASan and valgrind check in
 * CI). Threads start together on a barrier; no test sleeps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"

#define ROUNDS 150

static char fab_dir[64];

static void fab_begin(void)
{
	strcpy(fab_dir, "/tmp/ibal-races-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	unsetenv("IBAL_SOFT_CAS");
	unsetenv("IBAL_SOFT_PORTS");
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
}

static void fab_end(void)
{
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca;
static ib_pd_handle_t h_pd;
static ib_cq_handle_t h_cq;

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

static void setup(void)
{
	ib_net64_t guid;
	size_t n = 1;
	uint32_t size = 64;

	fab_begin();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, &guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guid, NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
	{
		ib_cq_create_t cc;

		memset(&cc, 0, sizeof(cc));
		cc.size = size;
		cc.pfn_comp_cb = on_comp;
		CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &cc, NULL, NULL, &h_cq), IB_SUCCESS);
	}
}

static void teardown(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	fab_end();
}

static ib_api_status_t make_qp(ib_qp_handle_t *ph)
{
	ib_qp_create_t c;

	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_RELIABLE_CONN;
	c.sq_depth = c.rq_depth = 4;
	c.sq_sge = c.rq_sge = 1;
	c.h_sq_cq = c.h_rq_cq = h_cq;
	c.sq_signaled = TRUE;
	return ib_create_qp(h_pd, &c, NULL, NULL, ph);
}

/* ---- Two threads, one call each, started together ---- */

typedef struct race {
	pthread_barrier_t bar;
	ib_api_status_t (*fn)(struct race *, int who);
	void *h, *h2;
	ib_api_status_t st[2];
	uint8_t buf[64];
	volatile int stop;
} race_t;

static void *racer(void *arg)
{
	race_t *r = ((race_t **)arg)[0];
	int who = (int)(intptr_t)((void **)arg)[1];

	pthread_barrier_wait(&r->bar);
	r->st[who] = r->fn(r, who);
	return NULL;
}

static void run_race(race_t *r)
{
	pthread_t t[2];
	void *args[2][2] = { { r, (void *)0 }, { r, (void *)1 } };
	int i;

	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&t[i], NULL, racer, args[i]), 0);
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
}

static ib_api_status_t destroy_qp_sync(race_t *r, int who)
{
	(void)who;
	return ib_destroy_qp((ib_qp_handle_t)r->h, ib_sync_destroy);
}

static ib_api_status_t destroy_qp_mixed(race_t *r, int who)
{
	return ib_destroy_qp((ib_qp_handle_t)r->h, who ? ib_sync_destroy : NULL);
}

static void count_outcome(race_t *r, ib_api_status_t bad, int *p_ok)
{
	int i;

	for (i = 0; i < 2; i++) {
		CU_ASSERT(r->st[i] == IB_SUCCESS || r->st[i] == bad);
		*p_ok += r->st[i] == IB_SUCCESS;
	}
}

static void test_double_destroy_qp(void)
{
	race_t r;
	int round, ok;

	setup();
	memset(&r, 0, sizeof(r));
	for (round = 0; round < ROUNDS; round++) {
		ib_qp_handle_t h;

		CU_ASSERT_EQUAL_FATAL(make_qp(&h), IB_SUCCESS);
		pthread_barrier_init(&r.bar, NULL, 2);
		r.h = h;
		r.fn = (round & 1) ? destroy_qp_mixed : destroy_qp_sync;
		run_race(&r);
		pthread_barrier_destroy(&r.bar);
		ok = 0;
		count_outcome(&r, IB_INVALID_QP_HANDLE, &ok);
		CU_ASSERT_EQUAL(ok, 1); /* exactly one destroy wins */
		CU_ASSERT_EQUAL(ib_destroy_qp(h, NULL), IB_INVALID_QP_HANDLE);
	}
	teardown();
}

static ib_api_status_t close_al_race(race_t *r, int who)
{
	(void)who;
	return ib_close_al((ib_al_handle_t)r->h);
}

static void test_double_close_al(void)
{
	race_t r;
	int round, ok;

	fab_begin();
	memset(&r, 0, sizeof(r));
	for (round = 0; round < ROUNDS / 3; round++) {
		ib_al_handle_t h;

		CU_ASSERT_EQUAL_FATAL(ib_open_al(&h), IB_SUCCESS);
		pthread_barrier_init(&r.bar, NULL, 2);
		r.h = h;
		r.fn = close_al_race;
		run_race(&r);
		pthread_barrier_destroy(&r.bar);
		ok = 0;
		count_outcome(&r, IB_INVALID_AL_HANDLE, &ok);
		CU_ASSERT_EQUAL(ok, 1);
	}
	fab_end();
}

/* Thread 0 queries (or binds a window to) the region in a loop while
 * thread 1 deregisters it. */
static ib_api_status_t use_vs_dereg(race_t *r, int who)
{
	ib_mr_handle_t h = (ib_mr_handle_t)r->h;
	ib_api_status_t st;
	ib_mr_attr_t attr;
	int i;

	if (who)
		return ib_dereg_mr(h);
	for (i = 0; i < 200; i++) {
		st = ib_query_mr(h, &attr);
		if (st == IB_INVALID_MR_HANDLE)
			return IB_SUCCESS;
		if (st != IB_SUCCESS)
			return st;
	}
	return IB_SUCCESS;
}

static void test_dereg_while_queried(void)
{
	race_t r;
	int round;

	setup();
	memset(&r, 0, sizeof(r));
	for (round = 0; round < ROUNDS; round++) {
		ib_mr_create_t mc;
		ib_mr_handle_t h;
		net32_t lkey, rkey;

		memset(&mc, 0, sizeof(mc));
		mc.vaddr = r.buf;
		mc.length = sizeof(r.buf);
		mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_MW_BIND;
		CU_ASSERT_EQUAL_FATAL(ib_reg_mem(h_pd, &mc, &lkey, &rkey, &h), IB_SUCCESS);
		pthread_barrier_init(&r.bar, NULL, 2);
		r.h = h;
		r.fn = use_vs_dereg;
		run_race(&r);
		pthread_barrier_destroy(&r.bar);
		CU_ASSERT_EQUAL(r.st[0], IB_SUCCESS);
		CU_ASSERT_EQUAL(r.st[1], IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_dereg_mr(h), IB_INVALID_MR_HANDLE);
	}
	teardown();
}

/* Thread 0 posts receives and polls the CQ in a loop (the data path, which
 * counts nothing in the handle: al_epoch.h) while thread 1 destroys the QP
 * and then the CQ: every call returns success, a QP-state error or the
 * invalid handle, and once a handle is seen invalid it stays so. */
static ib_api_status_t dp_vs_destroy(race_t *r, int who)
{
	ib_qp_handle_t h_qp = (ib_qp_handle_t)r->h;
	ib_cq_handle_t h_c = (ib_cq_handle_t)r->h2;
	ib_local_ds_t ds = { (uintptr_t)r->buf, sizeof(r->buf), 0 };
	ib_recv_wr_t wr, *p_fail;
	ib_wc_t wc, *p_free, *p_done;
	ib_api_status_t st;
	uint64_t end;
	int qp_gone = 0, cq_gone = 0;

	if (who) {
		st = ib_destroy_qp(h_qp, ib_sync_destroy);
		return st != IB_SUCCESS ? st : ib_destroy_cq(h_c, ib_sync_destroy);
	}
	memset(&wr, 0, sizeof(wr));
	wr.num_ds = 1;
	wr.ds_array = &ds;
	/* Until the CQ is gone (bounded: the destroyer may be slow to start). */
	for (end = test_now_ms() + TEST_WAIT_US / 1000u; !cq_gone && test_now_ms() < end;) {
		p_fail = NULL;
		st = ib_post_recv(h_qp, &wr, &p_fail);
		if (st == IB_INVALID_QP_HANDLE)
			qp_gone = 1;
		else if (qp_gone || (st != IB_SUCCESS && st != IB_INVALID_QP_STATE &&
				     st != IB_INSUFFICIENT_RESOURCES)) {
			printf("(post_recv: %s after %s) ", ib_get_err_str(st),
			       qp_gone ? "the invalid handle" : "no invalid handle");
			return IB_ERROR;
		}
		memset(&wc, 0, sizeof(wc));
		p_free = &wc;
		p_done = NULL;
		st = ib_poll_cq(h_c, &p_free, &p_done);
		if (st == IB_INVALID_CQ_HANDLE)
			cq_gone = 1;
		else if (st != IB_SUCCESS && st != IB_NOT_FOUND) {
			printf("(poll_cq: %s) ", ib_get_err_str(st));
			return IB_ERROR;
		}
	}
	return cq_gone ? IB_SUCCESS : IB_TIMEOUT;
}

static void test_data_path_while_destroyed(void)
{
	race_t r;
	int round;

	setup();
	memset(&r, 0, sizeof(r));
	for (round = 0; round < ROUNDS; round++) {
		ib_cq_create_t cc;
		ib_qp_create_t c;
		ib_cq_handle_t h_c;
		ib_qp_handle_t h;

		memset(&cc, 0, sizeof(cc));
		cc.size = 16;
		cc.pfn_comp_cb = on_comp;
		CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &cc, NULL, NULL, &h_c), IB_SUCCESS);
		memset(&c, 0, sizeof(c));
		c.qp_type = IB_QPT_UNRELIABLE_DGRM;
		c.sq_depth = c.rq_depth = 4;
		c.sq_sge = c.rq_sge = 1;
		c.h_sq_cq = c.h_rq_cq = h_c;
		CU_ASSERT_EQUAL_FATAL(ib_create_qp(h_pd, &c, NULL, NULL, &h), IB_SUCCESS);
		pthread_barrier_init(&r.bar, NULL, 2);
		r.h = h;
		r.h2 = h_c;
		r.fn = dp_vs_destroy;
		run_race(&r);
		pthread_barrier_destroy(&r.bar);
		CU_ASSERT_EQUAL(r.st[0], IB_SUCCESS);
		CU_ASSERT_EQUAL(r.st[1], IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_post_recv(h, NULL, NULL), IB_INVALID_QP_HANDLE);
		CU_ASSERT_EQUAL(ib_rearm_cq(h_c, FALSE), IB_INVALID_CQ_HANDLE);
	}
	teardown();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_data_path_while_destroyed),
	TEST_ENTRY(test_double_destroy_qp),
	TEST_ENTRY(test_double_close_al),
	TEST_ENTRY(test_dereg_while_queried),
};

TEST_MAIN("al_races", tests)
