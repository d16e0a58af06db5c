/*
 * ibal tests: the verbs provider's parts that need no InfiniBand device (TID table, CQ, MR, AV, receives).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Runs anywhere (no umad device, no LD_PRELOAD), so it is the one to run
 * under ASan/UBSan and valgrind. The CA is built by hand (verbs_ca_t with
 * one port named after no device); the round trip through a real umad
 * device is tests/integration/ibsim/test_umad_prov.c under tests/integration/ibsim/ibsim-run.sh.
 */
#include <string.h>
#include <pthread.h>
#include "../common/cl_test.h"
#include "verbs_prov.h"
#include "verbs_watch.h"
#include "../common/prov_shim.h"

static verbs_ca_t *fake_ca(void)
{
	verbs_ca_t *ca = calloc(1, sizeof(*ca));
	unsigned i;

	CU_ASSERT_FATAL(ca != NULL);
	strcpy(ca->name, "nodev_h5");
	ca->wake_fd = -1; /* no worker: nothing to wake */
	ca->num_ports = 1;
	pthread_mutex_init(&ca->lock, NULL);
	pthread_cond_init(&ca->cond, NULL);
	for (i = 0; i < VERBS_MAX_PORTS; i++)
		verbs_port_init(ca, &ca->port[i], (uint8_t)(i + 1));
	return ca;
}

static void free_ca(verbs_ca_t *ca)
{
	unsigned i;

	for (i = 0; i < VERBS_MAX_PORTS; i++)
		verbs_port_fini(&ca->port[i]);
	pthread_mutex_destroy(&ca->lock);
	pthread_cond_destroy(&ca->cond);
	free(ca);
}

/* A 256-byte MAD with class, method and TID. */
static void mad_init(uint8_t *m, uint8_t cls, uint8_t method, uint64_t tid)
{
	int i;

	memset(m, 0, 256);
	m[0] = 1;
	m[1] = cls;
	m[2] = 2;
	m[3] = method;
	for (i = 0; i < 8; i++)
		m[8 + i] = (uint8_t)(tid >> (56 - 8 * i));
}

static uint64_t mad_tid(const uint8_t *m)
{
	uint64_t t = 0;
	int i;

	for (i = 0; i < 8; i++)
		t = (t << 8) | m[8 + i];
	return t;
}

static void test_no_device(void)
{
	static const al_prov_upcalls_t up = { NULL, NULL, NULL };
	ib_net64_t g[4];
	size_t n = 4;
	void *ca = NULL;

	CU_ASSERT_EQUAL(verbs_prov_ops.size, sizeof(al_prov_ops_t));
	CU_ASSERT_STRING_EQUAL(verbs_prov_ops.name, "verbs");
	CU_ASSERT_EQUAL(verbs_prov_ops.init(NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(verbs_prov_ops.init(&up), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_prov_ops.get_ca_guids(g, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(verbs_prov_ops.get_ca_guids(g, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_prov_ops.open_ca(CL_HTON64(0x0BADBADBADBADBADull), NULL, &ca),
			IB_INVALID_GUID);
	CU_ASSERT_EQUAL(verbs_prov_ops.open_ca(0, NULL, NULL), IB_INVALID_PARAMETER);
	/* The libibverbs data path is there, and memory windows (docs/verbs-provider.md). */
	CU_ASSERT_PTR_NOT_NULL(verbs_prov_ops.create_qp);
	CU_ASSERT_PTR_NOT_NULL(verbs_prov_ops.create_srq);
	CU_ASSERT_PTR_NOT_NULL(verbs_prov_ops.post_srq_recv);
	CU_ASSERT_PTR_NOT_NULL(verbs_prov_ops.create_mw);
	CU_ASSERT_PTR_NOT_NULL(verbs_prov_ops.create_spl_qp);
	verbs_prov_ops.cleanup();
}

static void test_tid_restore(void)
{
	verbs_ca_t *ca = fake_ca();
	verbs_port_t *p = &ca->port[0];
	uint8_t m[256];

	/* Request: remembered, not changed. */
	mad_init(m, 0x03, 0x12, 0x1234567800000001ull);
	verbs_tid_sent(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x1234567800000001ull);
	/* Its response (any segment) comes back with the user's high half. */
	mad_init(m, 0x03, 0x92, 0x0001000000000001ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x1234567800000001ull);
	mad_init(m, 0x03, 0x92, 0x0001000000000001ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x1234567800000001ull);
	/* The user's RMPP ACK (a response-method MAD) goes out with the wire TID. */
	mad_init(m, 0x03, 0x92, 0x1234567800000001ull);
	verbs_tid_sent(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x0001000000000001ull);
	/* ... but not to another LID, nor for another class. */
	mad_init(m, 0x03, 0x92, 0x1234567800000001ull);
	verbs_tid_sent(p, m, 7);
	CU_ASSERT_EQUAL(mad_tid(m), 0x1234567800000001ull);
	mad_init(m, 0x04, 0x81, 0x1234567800000001ull);
	verbs_tid_sent(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x1234567800000001ull);
	/* A response nobody asked for, and a request received, stay as they are. */
	mad_init(m, 0x03, 0x81, 0x0001000000000999ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x0001000000000999ull);
	mad_init(m, 0x03, 0x06, 0x0001000000000001ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x0001000000000001ull);
	/* An answer that is not rewritten (a kernel that left the TID alone) is kept. */
	mad_init(m, 0x04, 0x01, 0xAAAABBBB00000005ull);
	verbs_tid_sent(p, m, 2);
	mad_init(m, 0x04, 0x81, 0xAAAABBBB00000005ull);
	verbs_tid_received(p, m, 2);
	CU_ASSERT_EQUAL(mad_tid(m), 0xAAAABBBB00000005ull);
	free_ca(ca);
}

static void test_tid_same_low_half(void)
{
	verbs_ca_t *ca = fake_ca();
	verbs_port_t *p = &ca->port[0];
	uint8_t m[256];

	/* Two requests with the same low half to two LIDs: the source LID decides. */
	mad_init(m, 0x03, 0x01, 0x1111111100000042ull);
	verbs_tid_sent(p, m, 1);
	mad_init(m, 0x03, 0x01, 0x2222222200000042ull);
	verbs_tid_sent(p, m, 5);
	mad_init(m, 0x03, 0x81, 0x0000000500000042ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x1111111100000042ull);
	mad_init(m, 0x03, 0x81, 0x0000000500000042ull);
	verbs_tid_received(p, m, 5);
	CU_ASSERT_EQUAL(mad_tid(m), 0x2222222200000042ull);
	free_ca(ca);
}

static void test_tid_eviction(void)
{
	verbs_ca_t *ca = fake_ca();
	verbs_port_t *p = &ca->port[0];
	uint8_t m[256];
	unsigned i;

	for (i = 0; i < VERBS_TID_SLOTS + 1; i++) {
		mad_init(m, 0x03, 0x01, 0x7777777700000000ull | i);
		verbs_tid_sent(p, m, 1);
	}
	/* A retry of the newest reuses its slot, so nothing else is pushed out. */
	mad_init(m, 0x03, 0x01, 0x7777777700000000ull | VERBS_TID_SLOTS);
	verbs_tid_sent(p, m, 1);
	/* The oldest is forgotten, the newest are remembered. */
	mad_init(m, 0x03, 0x81, 0x0000000100000000ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x0000000100000000ull);
	mad_init(m, 0x03, 0x81, 0x0000000100000001ull);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x7777777700000001ull);
	mad_init(m, 0x03, 0x81, 0x0000000100000000ull | VERBS_TID_SLOTS);
	verbs_tid_received(p, m, 1);
	CU_ASSERT_EQUAL(mad_tid(m), 0x7777777700000000ull | VERBS_TID_SLOTS);
	free_ca(ca);
}

static void add_wc(verbs_cq_t *cq, uint64_t id, ib_wc_status_t st)
{
	ib_wc_t wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = id;
	wc.wc_type = IB_WC_RECV;
	wc.status = st;
	verbs_cq_add(cq, &wc);
}

static void test_cq(void)
{
	verbs_ca_t *ca = fake_ca();
	void *h = NULL;
	verbs_cq_t *cq;
	uint32_t size = 0, n;
	ib_wc_t wcs[4], *free_list, *done;
	int i;

	CU_ASSERT_EQUAL(verbs_create_cq(ca, &size, NULL, &h), IB_INVALID_CQ_SIZE);
	size = VERBS_MAX_CQES + 1;
	CU_ASSERT_EQUAL(verbs_create_cq(ca, &size, NULL, &h), IB_INVALID_CQ_SIZE);
	size = 3;
	CU_ASSERT_EQUAL(verbs_create_cq(ca, &size, (void *)0x77, &h), IB_SUCCESS);
	cq = h;
	CU_ASSERT_EQUAL(verbs_query_cq(cq, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 3);
	/* Empty. */
	free_list = &wcs[0];
	wcs[0].p_next = NULL;
	CU_ASSERT_EQUAL(verbs_poll_cq(cq, &free_list, &done), IB_NOT_FOUND);
	/* Not armed: no upcall queued. */
	add_wc(cq, 1, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_NULL(ca->notify);
	/* Armed NEXT: the next completion queues one upcall, then disarms. */
	CU_ASSERT_EQUAL(verbs_rearm_cq(cq, FALSE), IB_SUCCESS);
	add_wc(cq, 2, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_EQUAL(ca->notify, cq);
	CU_ASSERT_EQUAL(cq->ring.arm, 0);
	ca->notify = NULL;
	cq->queued = 0;
	CU_ASSERT_EQUAL(verbs_peek_cq(cq, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 2);
	/* Poll both in order, into a list of free entries. */
	for (i = 0; i < 3; i++)
		wcs[i].p_next = i < 2 ? &wcs[i + 1] : NULL;
	free_list = &wcs[0];
	CU_ASSERT_EQUAL(verbs_poll_cq(cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(done, &wcs[0]);
	CU_ASSERT_EQUAL(wcs[0].wr_id, 1);
	CU_ASSERT_EQUAL(wcs[1].wr_id, 2);
	CU_ASSERT_PTR_NULL(wcs[1].p_next);
	CU_ASSERT_PTR_EQUAL(free_list, &wcs[2]);
	/* Solicited: a successful MAD completion does not fire, an error does. */
	CU_ASSERT_EQUAL(verbs_rearm_cq(cq, TRUE), IB_SUCCESS);
	add_wc(cq, 3, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_NULL(ca->notify);
	add_wc(cq, 4, IB_WCS_LOCAL_LEN_ERR);
	CU_ASSERT_PTR_EQUAL(ca->notify, cq);
	ca->notify = NULL;
	cq->queued = 0;
	/* Full ring: the 4th completion is lost and reported once as a CQ error. */
	add_wc(cq, 5, IB_WCS_SUCCESS);
	add_wc(cq, 6, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_EQUAL(ca->notify, cq);
	CU_ASSERT_EQUAL(cq->ev_pending, 1);
	/* Arm after N. */
	CU_ASSERT_EQUAL(verbs_rearm_n_cq(cq, 0), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(verbs_rearm_n_cq(cq, 4), IB_INVALID_PARAMETER);
	for (i = 0; i < 3; i++)
		wcs[i].p_next = i < 2 ? &wcs[i + 1] : NULL;
	free_list = &wcs[0];
	CU_ASSERT_EQUAL(verbs_poll_cq(cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_EQUAL(wcs[0].wr_id, 3);
	CU_ASSERT_EQUAL(wcs[2].wr_id, 5);
	ca->notify = NULL;
	cq->queued = 0;
	CU_ASSERT_EQUAL(verbs_rearm_n_cq(cq, 2), IB_SUCCESS);
	add_wc(cq, 7, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_NULL(ca->notify);
	add_wc(cq, 8, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_EQUAL(ca->notify, cq);
	/* Destroy takes a queued CQ off the upcall list. */
	verbs_destroy_cq(cq);
	CU_ASSERT_PTR_NULL(ca->notify);
	free_ca(ca);
}

static void test_mr(void)
{
	verbs_ca_t *ca = fake_ca();
	void *pd = NULL, *pd2 = NULL, *mr = NULL, *mr2 = NULL;
	static uint8_t buf[4096];
	ib_mr_create_t c;
	ib_mr_attr_t a;
	net32_t lkey, rkey, lkey2;
	uint64_t va = (uint64_t)(uintptr_t)buf;

	CU_ASSERT_EQUAL(verbs_alloc_pd(ca, IB_PDT_NORMAL, &pd), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_alloc_pd(ca, IB_PDT_NORMAL, &pd2), IB_SUCCESS);
	memset(&c, 0, sizeof(c));
	c.vaddr = buf + 100;
	c.length = 1000;
	c.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(verbs_reg_mem(pd, &c, &lkey, &rkey, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(verbs_reg_mem(pd, &c, &lkey, &rkey, &mr), IB_SUCCESS);
	/* One key: the L_Key as it is (an ibv_sge's lkey), the R_Key in network order. */
	CU_ASSERT_EQUAL(lkey, cl_ntoh32(rkey));
	CU_ASSERT_TRUE(verbs_mr_check(ca, pd, lkey, va + 100, 1000));
	CU_ASSERT_TRUE(verbs_mr_check(ca, pd, lkey, va + 600, 500));
	CU_ASSERT_FALSE(verbs_mr_check(ca, pd, lkey, va + 99, 10));
	CU_ASSERT_FALSE(verbs_mr_check(ca, pd, lkey, va + 600, 501));
	CU_ASSERT_FALSE(verbs_mr_check(ca, pd2, lkey, va + 100, 10));
	CU_ASSERT_FALSE(verbs_mr_check(ca, pd, lkey ^ 0x10000u, va + 100, 10)); /* generation */
	CU_ASSERT_FALSE(verbs_mr_check(ca, pd, CL_HTON32(0xFFFFFFFF), va + 100, 10));
	CU_ASSERT_EQUAL(verbs_query_mr(mr, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.local_lb, va + 100);
	CU_ASSERT_EQUAL(a.local_ub, va + 1099);
	CU_ASSERT_EQUAL(a.lkey, lkey);
	CU_ASSERT_EQUAL(verbs_dereg_mr(mr), IB_SUCCESS);
	/* The slot is reused with a new key: the old one stays invalid. */
	CU_ASSERT_EQUAL(verbs_reg_mem(pd, &c, &lkey2, &rkey, &mr2), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(lkey, lkey2);
	CU_ASSERT_FALSE(verbs_mr_check(ca, pd, lkey, va + 100, 10));
	CU_ASSERT_TRUE(verbs_mr_check(ca, pd, lkey2, va + 100, 10));
	CU_ASSERT_EQUAL(verbs_dereg_mr(mr2), IB_SUCCESS);
	verbs_dealloc_pd(pd);
	verbs_dealloc_pd(pd2);
	free_ca(ca);
}

static void test_av(void)
{
	verbs_ca_t *ca = fake_ca();
	void *pd = NULL, *av = NULL, *bad = NULL;
	ib_av_attr_t a, q;

	CU_ASSERT_EQUAL(verbs_alloc_pd(ca, IB_PDT_NORMAL, &pd), IB_SUCCESS);
	memset(&a, 0, sizeof(a));
	a.port_num = 2;
	a.dlid = CL_HTON16(1);
	CU_ASSERT_EQUAL(verbs_create_av(pd, &a, &bad), IB_INVALID_PORT);
	a.port_num = 1;
	a.sl = 16;
	CU_ASSERT_EQUAL(verbs_create_av(pd, &a, &bad), IB_INVALID_SETTING);
	a.sl = 3;
	a.dlid = 0;
	CU_ASSERT_EQUAL(verbs_create_av(pd, &a, &bad), IB_INVALID_SETTING);
	a.dlid = CL_HTON16(9);
	CU_ASSERT_EQUAL(verbs_create_av(pd, &a, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_query_av(av, &q), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.dlid, CL_HTON16(9));
	CU_ASSERT_EQUAL(q.sl, 3);
	a.dlid = CL_HTON16(10);
	CU_ASSERT_EQUAL(verbs_modify_av(pd, &a, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_query_av(av, &q), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.dlid, CL_HTON16(10));
	a.dlid = 0;
	CU_ASSERT_EQUAL(verbs_modify_av(pd, &a, &av), IB_INVALID_SETTING);
	verbs_destroy_av(av);
	verbs_dealloc_pd(pd);
	free_ca(ca);
}

static void test_spl_qp_checks(void)
{
	verbs_ca_t *ca = fake_ca();
	void *pd = NULL, *cq = NULL, *qp = NULL;
	uint32_t size = 8;
	ib_qp_create_t c;

	CU_ASSERT_EQUAL(verbs_alloc_pd(ca, IB_PDT_NORMAL, &pd), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_create_cq(ca, &size, NULL, &cq), IB_SUCCESS);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_QP1;
	c.sq_depth = c.rq_depth = 4;
	c.sq_sge = c.rq_sge = 1;
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, NULL, cq, cq, NULL, &qp), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 0, &c, cq, cq, NULL, &qp), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 2, &c, cq, cq, NULL, &qp), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, &c, NULL, cq, NULL, &qp), IB_INVALID_CQ_HANDLE);
	c.qp_type = IB_QPT_UNRELIABLE_DGRM;
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, &c, cq, cq, NULL, &qp), IB_INVALID_SETTING);
	c.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, &c, cq, cq, NULL, &qp), IB_UNSUPPORTED);
	c.qp_type = IB_QPT_QP1;
	c.rq_depth = 0;
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, &c, cq, cq, NULL, &qp), IB_INVALID_MAX_WRS);
	c.rq_depth = 4;
	c.rq_sge = VERBS_MAX_SGES + 1;
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, &c, cq, cq, NULL, &qp), IB_INVALID_MAX_SGE);
	c.rq_sge = 1;
	/* No umad device of that name: the port cannot open, nothing is left behind. */
	CU_ASSERT_EQUAL(verbs_create_spl_qp(pd, 1, &c, cq, cq, NULL, &qp), IB_ERROR);
	CU_ASSERT_EQUAL(ca->port[0].dev.fd, -1);
	CU_ASSERT_EQUAL(ca->port[0].n_users, 0);
	CU_ASSERT_PTR_NULL(ca->port[0].spl[1]);
	verbs_destroy_cq(cq);
	verbs_dealloc_pd(pd);
	free_ca(ca);
}

/* The receive thread's body on a hand-made QP1 in RTR: the completion
 * counts the bytes that came (GRH area + MAD), not 256, and the buffer is
 * zero filled after a short MAD; bad ones give no completion. */
static void test_rx_length(void)
{
	verbs_ca_t *ca = fake_ca();
	verbs_port_t *port = &ca->port[0];
	static uint8_t rbuf[4][VERBS_GRH_SIZE + VERBS_MAD_SIZE];
	uint8_t *u = calloc(1, VERBS_UMAD_BUF), *mad, sent[VERBS_MAD_SIZE];
	ib_ca_attr_t attr;
	ib_port_attr_t pattr;
	void *pd = NULL, *cq = NULL, *mr = NULL;
	verbs_qp_t *qp = calloc(1, sizeof(*qp));
	ib_mr_create_t mc;
	ib_local_ds_t ds[4];
	ib_recv_wr_t wr[4];
	ib_wc_t wc[4], *free_list, *done;
	net32_t lkey, rkey;
	uint32_t size = 8, n, i;

	CU_ASSERT_FATAL(u != NULL && qp != NULL);
	memset(&attr, 0, sizeof(attr));
	memset(&pattr, 0, sizeof(pattr));
	pattr.port_num = 1;
	pattr.num_pkeys = 1;
	attr.num_ports = 1;
	attr.p_port_attr = &pattr;
	ca->attr = &attr;
	CU_ASSERT_EQUAL(verbs_alloc_pd(ca, IB_PDT_NORMAL, &pd), IB_SUCCESS);
	CU_ASSERT_EQUAL(verbs_create_cq(ca, &size, NULL, &cq), IB_SUCCESS);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = rbuf;
	mc.length = sizeof(rbuf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(verbs_reg_mem(pd, &mc, &lkey, &rkey, &mr), IB_SUCCESS);
	pthread_mutex_init(&qp->lock, NULL);
	pthread_mutex_init(&qp->tx_lock, NULL);
	qp->pd = pd;
	qp->port = port;
	qp->type = IB_QPT_QP1;
	qp->n = 1;
	qp->scq = qp->rcq = cq;
	qp->rq_depth = 4;
	qp->rq_sge = 1;
	qp->rq = calloc(4, sizeof(*qp->rq));
	CU_ASSERT_FATAL(qp->rq != NULL);
	prov_qp_attr_init(&qp->attr, IB_QPT_QP1, 1);
	qp->attr.state = IB_QPS_RTR;
	port->spl[1] = qp;
	memset(rbuf, 0xEE, sizeof(rbuf));
	for (i = 0; i < 4; i++) {
		ds[i].vaddr = (uintptr_t)rbuf[i];
		ds[i].length = sizeof(rbuf[i]);
		ds[i].lkey = lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = i;
		wr[i].num_ds = 1;
		wr[i].ds_array = &ds[i];
		wr[i].p_next = i < 3 ? &wr[i + 1] : NULL;
	}
	CU_ASSERT_EQUAL(verbs_post_recv(qp, &wr[0], NULL), IB_SUCCESS);

	mad = umad_get_mad(u);
	umad_get_mad_addr(u)->lid = CL_HTON16(1);
	/* A GetTableResp of one PathRecord as umad2sim hands it over: 56 + 64 bytes. */
	mad_init(mad, 0x03, 0x92, 0x11);
	memset(mad + 56, 0x5A, 64);
	memcpy(sent, mad, sizeof(sent));
	verbs_rx_umad(port, u, 120);
	/* A whole MAD, as the kernel gives every MAD. */
	mad_init(mad, 0x03, 0x81, 0x12);
	memset(mad + 24, 0xA5, VERBS_MAD_SIZE - 24);
	verbs_rx_umad(port, u, VERBS_MAD_SIZE);
	/* Too long, too short, or with an error status: dropped. */
	verbs_rx_umad(port, u, VERBS_MAD_SIZE + 1);
	verbs_rx_umad(port, u, 23);
	((struct ib_user_mad *)u)->status = 110;
	verbs_rx_umad(port, u, VERBS_MAD_SIZE);

	CU_ASSERT_EQUAL(verbs_peek_cq(cq, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 2);
	for (i = 0; i < 3; i++)
		wc[i].p_next = &wc[i + 1];
	wc[3].p_next = NULL;
	free_list = wc;
	CU_ASSERT_EQUAL(verbs_poll_cq(cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(done, &wc[0]);
	CU_ASSERT_EQUAL(wc[0].status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc[0].wr_id, 0);
	CU_ASSERT_EQUAL(wc[0].length, VERBS_GRH_SIZE + 120);
	CU_ASSERT_EQUAL(wc[0].recv.ud.remote_lid, CL_HTON16(1));
	CU_ASSERT_EQUAL(memcmp(rbuf[0] + VERBS_GRH_SIZE, sent, 120), 0);
	for (i = VERBS_GRH_SIZE + 120; i < sizeof(rbuf[0]); i++)
		if (rbuf[0][i])
			break;
	CU_ASSERT_EQUAL(i, sizeof(rbuf[0])); /* zero filled, not counted */
	CU_ASSERT_EQUAL(wc[1].status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc[1].wr_id, 1);
	CU_ASSERT_EQUAL(wc[1].length, VERBS_GRH_SIZE + VERBS_MAD_SIZE);
	CU_ASSERT_EQUAL(rbuf[1][VERBS_GRH_SIZE + VERBS_MAD_SIZE - 1], 0xA5);
	CU_ASSERT_PTR_NULL(wc[1].p_next);
	/* The other receives are still posted, untouched. */
	CU_ASSERT_EQUAL(qp->rq_count, 2);
	CU_ASSERT_EQUAL(rbuf[2][VERBS_GRH_SIZE], 0xEE);

	port->spl[1] = NULL;
	pthread_mutex_destroy(&qp->lock);
	pthread_mutex_destroy(&qp->tx_lock);
	free(qp->rq);
	free(qp);
	CU_ASSERT_EQUAL(verbs_dereg_mr(mr), IB_SUCCESS);
	verbs_destroy_cq(cq);
	verbs_dealloc_pd(pd);
	free(u);
	free_ca(ca);
}

/* ---- the data path over a fake libibverbs device (its ops are these stubs) ---- */

#define FAKE_MAX 64

static struct {
	struct ibv_send_wr swr[FAKE_MAX]; /* copies of what post_send was given */
	struct ibv_recv_wr rwr[FAKE_MAX];
	int n_swr, n_rwr, send_calls, recv_calls;
	int fail_at;                     /* -1, or the index in a call to refuse */
	int fail_call;                   /* 0: every call, else only that one (1-based) */
	int fail_rc;
	int recv_fail_rc, srq_calls;     /* recv_fail_rc: what post_recv refuses with */
	struct ibv_wc wc[FAKE_MAX];      /* completions still to poll */
	int n_wc, wc_head, poll_rc;      /* poll_rc < 0: what poll_cq returns */
	int poll_calls, poll_asked[8];   /* poll_cq calls, the first ones' n */
} fk;

static int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	int i = 0;

	(void)qp;
	fk.send_calls++;
	for (; wr; wr = wr->next, i++) {
		if (i == fk.fail_at && (!fk.fail_call || fk.fail_call == fk.send_calls)) {
			*bad = wr;
			return fk.fail_rc;
		}
		fk.swr[fk.n_swr++] = *wr;
	}
	return 0;
}

static int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)qp;
	fk.recv_calls++;
	if (fk.recv_fail_rc) { /* refuses the first request */
		*bad = wr;
		return fk.recv_fail_rc;
	}
	for (; wr; wr = wr->next)
		fk.rwr[fk.n_rwr++] = *wr;
	return 0;
}

static int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	(void)srq;
	fk.srq_calls++;
	return fake_post_recv(NULL, wr, bad);
}

static int fake_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int i;

	(void)cq;
	if (fk.poll_calls < 8)
		fk.poll_asked[fk.poll_calls] = n;
	fk.poll_calls++;
	if (fk.poll_rc < 0)
		return fk.poll_rc;
	for (i = 0; i < n && fk.wc_head < fk.n_wc; i++)
		wc[i] = fk.wc[fk.wc_head++];
	return i;
}

/* Links the first @p n entries of @p wc into a free list; returns its head. */
static ib_wc_t *wc_chain(ib_wc_t *wc, int n)
{
	int i;

	for (i = 0; i < n; i++)
		wc[i].p_next = i + 1 < n ? &wc[i + 1] : NULL;
	return wc;
}

/*
 * A lone receive @p wr (one segment) refused through @p post on @p h: with
 * one segment more than the queue's @p max_sge, and by libibverbs (ENOMEM);
 * each time the request is named.
 */
static void lone_recv_refused(ib_api_status_t (*post)(void *, ib_recv_wr_t *, ib_recv_wr_t **),
			      void *h, ib_recv_wr_t *wr, uint32_t max_sge)
{
	ib_recv_wr_t *fail = NULL;

	wr->num_ds = max_sge + 1;
	CU_ASSERT_EQUAL(post(h, wr, &fail), IB_INVALID_MAX_SGE);
	CU_ASSERT_PTR_EQUAL(fail, wr);
	wr->num_ds = 1;
	fk.recv_fail_rc = ENOMEM;
	fail = NULL;
	CU_ASSERT_EQUAL(post(h, wr, &fail), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(fail, wr);
	fk.recv_fail_rc = 0;
}

static void test_dp_fake(void)
{
	static struct ibv_context ctx;
	static struct ibv_qp iqp;
	static struct ibv_cq icq;
	static struct ibv_ah iah;
	verbs_qp_t qp;
	verbs_cq_t cq;
	verbs_av_t av;
	ib_local_ds_t ds[20][2];
	ib_send_wr_t s[20], *s_fail = NULL;
	ib_recv_wr_t r[20], *r_fail = NULL;
	ib_wc_t wc[20], *free_list, *done;
	int i;

	memset(&fk, 0, sizeof(fk));
	fk.fail_at = -1;
	ctx.ops.post_send = fake_post_send;
	ctx.ops.post_recv = fake_post_recv;
	ctx.ops.poll_cq = fake_poll_cq;
	iqp.context = icq.context = iah.context = &ctx;
	memset(&qp, 0, sizeof(qp));
	qp.ibv = &iqp;
	qp.type = IB_QPT_RELIABLE_CONN;
	qp.max_sge = 2;
	qp.max_inline = 16;
	qp.rq_sge = 2;
	qp.wr_types = (1u << WR_SEND) | (1u << WR_RDMA_WRITE) | (1u << WR_RDMA_READ);
	qp.attr.state = IB_QPS_RTS;
	for (i = 0; i < 20; i++) {
		ds[i][0].vaddr = 0x10000 + 0x100 * (uint64_t)i;
		ds[i][0].length = 64;
		ds[i][0].lkey = 0x00ABC000u + (uint32_t)i;
		ds[i][1] = ds[i][0];
		memset(&s[i], 0, sizeof(s[i]));
		s[i].wr_id = 100 + (uint64_t)i;
		s[i].p_next = i + 1 < 20 ? &s[i + 1] : NULL;
		s[i].ds_array = ds[i];
		s[i].num_ds = 1 + (i & 1);
		s[i].wr_type = (i % 3) ? WR_SEND : WR_RDMA_WRITE;
		s[i].send_opt = IB_SEND_OPT_SIGNALED | ((i % 4) ? 0 : IB_SEND_OPT_IMMEDIATE);
		s[i].immediate_data = CL_HTON32(0x1000u + (uint32_t)i);
		s[i].remote_ops.vaddr = 0x7000;
		s[i].remote_ops.rkey = CL_HTON32(0x4321u);
		memset(&r[i], 0, sizeof(r[i]));
		r[i].wr_id = 200 + (uint64_t)i;
		r[i].p_next = i + 1 < 20 ? &r[i + 1] : NULL;
		r[i].ds_array = ds[i];
		r[i].num_ds = 1;
	}

	/* 20 sends: one pass, two calls (16 + 4), the segments given as they are. */
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.send_calls, 2);
	CU_ASSERT_EQUAL_FATAL(fk.n_swr, 20);
	for (i = 0; i < 20; i++) {
		const struct ibv_send_wr *v = &fk.swr[i];

		CU_ASSERT_EQUAL(v->wr_id, 100 + (uint64_t)i);
		CU_ASSERT_PTR_EQUAL(v->sg_list, (void *)ds[i]);
		CU_ASSERT_EQUAL(v->num_sge, 1 + (i & 1));
		CU_ASSERT_EQUAL(v->sg_list[0].lkey, 0x00ABC000u + (uint32_t)i);
		CU_ASSERT_EQUAL(v->send_flags, IBV_SEND_SIGNALED);
		if (i % 3) {
			CU_ASSERT_EQUAL(v->opcode, (i % 4) ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM);
		} else {
			CU_ASSERT_EQUAL(v->opcode,
					(i % 4) ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_WRITE_WITH_IMM);
		}
		if (!(i % 3)) {
			CU_ASSERT_EQUAL(v->wr.rdma.remote_addr, 0x7000);
			CU_ASSERT_EQUAL(v->wr.rdma.rkey, 0x4321u);
		}
		if (!(i % 4)) {
			CU_ASSERT_EQUAL(v->imm_data, CL_HTON32(0x1000u + (uint32_t)i));
		}
	}

	/* libibverbs refuses the 4th of the first batch: that request is named. */
	memset(&fk.swr, 0, sizeof(fk.swr));
	fk.n_swr = fk.send_calls = 0;
	fk.fail_at = 3;
	fk.fail_rc = ENOMEM;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[3]);
	CU_ASSERT_EQUAL(fk.send_calls, 1);
	/* ... or the 2nd of the second batch (request 17). */
	fk.send_calls = 0;
	fk.fail_call = 2;
	fk.fail_at = 1;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[17]);
	CU_ASSERT_EQUAL(fk.send_calls, 2);
	/* ... or the 2nd of a chain that starts elsewhere. */
	fk.fail_call = 0;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[14], &s_fail), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[15]);
	fk.fail_at = -1;

	/* A request the QP cannot post: the ones before it go, it is named. */
	fk.n_swr = fk.send_calls = 0;
	s[2].wr_type = WR_COMPARE_SWAP;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INVALID_WR_TYPE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[2]);
	CU_ASSERT_EQUAL(fk.n_swr, 2);
	s[2].wr_type = WR_SEND;
	s[2].num_ds = 3;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INVALID_MAX_SGE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[2]);
	s[2].num_ds = 1;
	s[1].send_opt |= IB_SEND_OPT_INLINE; /* 128 bytes inline, the QP takes 16 */
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INVALID_PARAMETER);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[1]);
	s[1].send_opt &= ~IB_SEND_OPT_INLINE;
	qp.attr.state = IB_QPS_RTR;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INVALID_QP_STATE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[0]);
	qp.attr.state = IB_QPS_RTS;

	/* UD: the AV's AH, QPN and Q_Key to host order, a high-bit Q_Key is the QP's. */
	qp.type = IB_QPT_UNRELIABLE_DGRM;
	qp.wr_types = 1u << WR_SEND;
	qp.attr.qkey = 0x1234u;
	memset(&av, 0, sizeof(av));
	av.ah = &iah;
	s[0].wr_type = s[1].wr_type = WR_SEND;
	s[0].dgrm.ud.h_av = s[1].dgrm.ud.h_av = (ib_av_handle_t)&av;
	s[0].dgrm.ud.remote_qp = CL_HTON32(0x00ABCDu);
	s[0].dgrm.ud.remote_qkey = CL_HTON32(0x0BADCAFEu);
	s[1].dgrm.ud.remote_qp = CL_HTON32(0x000001u);
	s[1].dgrm.ud.remote_qkey = CL_HTON32(0x80000000u);
	s[1].p_next = NULL;
	fk.n_swr = 0;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(fk.n_swr, 2);
	CU_ASSERT_PTR_EQUAL(fk.swr[0].wr.ud.ah, &iah);
	CU_ASSERT_EQUAL(fk.swr[0].wr.ud.remote_qpn, 0x00ABCDu);
	CU_ASSERT_EQUAL(fk.swr[0].wr.ud.remote_qkey, 0x0BADCAFEu);
	CU_ASSERT_EQUAL(fk.swr[1].wr.ud.remote_qpn, 1);
	CU_ASSERT_EQUAL(fk.swr[1].wr.ud.remote_qkey, 0x1234u);
	CU_ASSERT_PTR_EQUAL(fk.swr[1].sg_list, (void *)ds[1]);
	s[1].dgrm.ud.h_av = NULL;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, s, &s_fail), IB_INVALID_AV_HANDLE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[1]);
	/* ...and alone: the small frame's path, the same fields and statuses. */
	fk.n_swr = fk.send_calls = 0;
	s[1].dgrm.ud.h_av = (ib_av_handle_t)&av;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[1], &s_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.send_calls, 1);
	CU_ASSERT_EQUAL_FATAL(fk.n_swr, 1);
	CU_ASSERT_PTR_EQUAL(fk.swr[0].wr.ud.ah, &iah);
	CU_ASSERT_EQUAL(fk.swr[0].wr.ud.remote_qpn, 1);
	CU_ASSERT_EQUAL(fk.swr[0].wr.ud.remote_qkey, 0x1234u);
	CU_ASSERT_PTR_NULL(fk.swr[0].next);
	s[1].dgrm.ud.h_av = NULL;
	s_fail = NULL;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[1], &s_fail), IB_INVALID_AV_HANDLE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[1]);
	CU_ASSERT_EQUAL(fk.send_calls, 1);
	s[1].p_next = &s[2];
	qp.type = IB_QPT_RELIABLE_CONN;
	qp.wr_types = (1u << WR_SEND) | (1u << WR_RDMA_WRITE) | (1u << WR_RDMA_READ);

	/* A lone RC request (s[19] has no next): one call with one request. */
	fk.n_swr = fk.send_calls = 0;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], &s_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.send_calls, 1);
	CU_ASSERT_EQUAL_FATAL(fk.n_swr, 1);
	CU_ASSERT_EQUAL(fk.swr[0].wr_id, 119);
	CU_ASSERT_EQUAL(fk.swr[0].opcode, IBV_WR_SEND);
	CU_ASSERT_EQUAL(fk.swr[0].num_sge, 2);
	CU_ASSERT_PTR_EQUAL(fk.swr[0].sg_list, (void *)ds[19]);
	CU_ASSERT_EQUAL(fk.swr[0].send_flags, IBV_SEND_SIGNALED);
	CU_ASSERT_PTR_NULL(fk.swr[0].next);
	s[18].wr_type = WR_RDMA_WRITE; /* RDMA fields to host order */
	s[18].p_next = NULL;
	fk.n_swr = 0;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[18], &s_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.swr[0].opcode, IBV_WR_RDMA_WRITE);
	CU_ASSERT_EQUAL(fk.swr[0].wr.rdma.remote_addr, 0x7000);
	CU_ASSERT_EQUAL(fk.swr[0].wr.rdma.rkey, 0x4321u);
	s[18].wr_type = WR_SEND;
	s[18].p_next = &s[19];
	/* Refused by libibverbs, by a check, or by the QP's state: it is named. */
	fk.fail_at = 0;
	fk.fail_rc = ENOMEM;
	s_fail = NULL;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], &s_fail), IB_INSUFFICIENT_RESOURCES);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[19]);
	fk.fail_rc = EINVAL;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], NULL), IB_INVALID_PARAMETER);
	fk.fail_at = -1;
	fk.send_calls = 0;
	s[19].wr_type = WR_COMPARE_SWAP;
	s_fail = NULL;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], &s_fail), IB_INVALID_WR_TYPE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[19]);
	s[19].wr_type = WR_SEND;
	s[19].num_ds = 3;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], &s_fail), IB_INVALID_MAX_SGE);
	s[19].num_ds = 2;
	s[19].send_opt |= IB_SEND_OPT_INLINE;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], &s_fail), IB_INVALID_PARAMETER);
	s[19].send_opt &= ~IB_SEND_OPT_INLINE;
	qp.attr.state = IB_QPS_INIT;
	s_fail = NULL;
	CU_ASSERT_EQUAL(verbs_post_send(&qp, &s[19], &s_fail), IB_INVALID_QP_STATE);
	CU_ASSERT_PTR_EQUAL(s_fail, &s[19]);
	qp.attr.state = IB_QPS_RTS;
	CU_ASSERT_EQUAL(fk.send_calls, 0);
	CU_ASSERT_EQUAL(verbs_post_send(&qp, NULL, &s_fail), IB_INVALID_PARAMETER);

	/* 20 receives: two calls, the segments as they are. */
	CU_ASSERT_EQUAL(verbs_post_recv(&qp, r, &r_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.recv_calls, 2);
	CU_ASSERT_EQUAL_FATAL(fk.n_rwr, 20);
	for (i = 0; i < 20; i++) {
		CU_ASSERT_EQUAL(fk.rwr[i].wr_id, 200 + (uint64_t)i);
		CU_ASSERT_PTR_EQUAL(fk.rwr[i].sg_list, (void *)ds[i]);
		CU_ASSERT_EQUAL(fk.rwr[i].num_sge, 1);
	}
	r[5].num_ds = 3;
	fk.n_rwr = 0;
	CU_ASSERT_EQUAL(verbs_post_recv(&qp, r, &r_fail), IB_INVALID_MAX_SGE);
	CU_ASSERT_PTR_EQUAL(r_fail, &r[5]);
	CU_ASSERT_EQUAL(fk.n_rwr, 5);
	r[5].num_ds = 1;

	/* A lone receive, to the QP or to an SRQ: one call with one request. */
	fk.n_rwr = fk.recv_calls = 0;
	CU_ASSERT_EQUAL(verbs_post_recv(&qp, &r[19], &r_fail), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.recv_calls, 1);
	CU_ASSERT_EQUAL_FATAL(fk.n_rwr, 1);
	CU_ASSERT_EQUAL(fk.rwr[0].wr_id, 219);
	CU_ASSERT_PTR_EQUAL(fk.rwr[0].sg_list, (void *)ds[19]);
	CU_ASSERT_EQUAL(fk.rwr[0].num_sge, 1);
	CU_ASSERT_PTR_NULL(fk.rwr[0].next);
	lone_recv_refused(verbs_post_recv, &qp, &r[19], 2);
	qp.attr.state = IB_QPS_RESET;
	r_fail = NULL;
	CU_ASSERT_EQUAL(verbs_post_recv(&qp, &r[19], &r_fail), IB_INVALID_QP_STATE);
	CU_ASSERT_PTR_EQUAL(r_fail, &r[19]);
	qp.attr.state = IB_QPS_RTS;
	{
		static struct ibv_srq isrq;
		verbs_srq_t srq;

		ctx.ops.post_srq_recv = fake_post_srq_recv;
		isrq.context = &ctx;
		memset(&srq, 0, sizeof(srq));
		srq.ibv = &isrq;
		srq.max_sge = 1;
		fk.n_rwr = fk.recv_calls = fk.srq_calls = 0;
		CU_ASSERT_EQUAL(verbs_post_srq_recv(&srq, &r[19], &r_fail), IB_SUCCESS);
		CU_ASSERT_EQUAL(fk.srq_calls, 1);
		CU_ASSERT_EQUAL_FATAL(fk.n_rwr, 1);
		CU_ASSERT_EQUAL(fk.rwr[0].wr_id, 219);
		CU_ASSERT_EQUAL(verbs_post_srq_recv(&srq, &r[18], &r_fail), IB_SUCCESS);
		CU_ASSERT_EQUAL(fk.srq_calls, 2);
		CU_ASSERT_EQUAL(fk.n_rwr, 3);
		lone_recv_refused(verbs_post_srq_recv, &srq, &r[19], 1);
		/* a QP with an SRQ takes no receive of its own */
		qp.srq = &srq;
		r_fail = NULL;
		CU_ASSERT_EQUAL(verbs_post_recv(&qp, &r[19], &r_fail), IB_INVALID_PARAMETER);
		CU_ASSERT_PTR_EQUAL(r_fail, &r[19]);
		qp.srq = NULL;
	}

	/* Polls: the done list is the free list's head, in order. */
	memset(&cq, 0, sizeof(cq));
	cq.ibv = &icq;
	for (i = 0; i < 20; i++) {
		memset(&fk.wc[i], 0, sizeof(fk.wc[i]));
		fk.wc[i].wr_id = 300 + (uint64_t)i;
		fk.wc[i].opcode = IBV_WC_RECV;
		fk.wc[i].byte_len = (uint32_t)i;
		fk.wc[i].src_qp = 0x42;
		wc[i].p_next = i + 1 < 20 ? &wc[i + 1] : NULL;
	}
	fk.wc[19].status = IBV_WC_WR_FLUSH_ERR;
	fk.n_wc = 20;
	wc[17].p_next = NULL; /* 18 free */
	free_list = wc;
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(done, &wc[0]);
	CU_ASSERT_PTR_NULL(free_list);
	for (i = 0; i < 18; i++) {
		CU_ASSERT_EQUAL(wc[i].wr_id, 300 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc[i].length, (uint32_t)i);
		CU_ASSERT_EQUAL(wc[i].recv.ud.remote_qp, CL_HTON32(0x42));
		CU_ASSERT_PTR_EQUAL(wc[i].p_next, i + 1 < 18 ? &wc[i + 1] : NULL);
	}
	free_list = wc_chain(wc, 20);
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(done, &wc[0]);
	CU_ASSERT_PTR_EQUAL(free_list, &wc[2]);
	CU_ASSERT_PTR_NULL(wc[1].p_next);
	CU_ASSERT_EQUAL(wc[0].wr_id, 318);
	CU_ASSERT_EQUAL(wc[1].status, IB_WCS_WR_FLUSHED_ERR);
	free_list = &wc[2];
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_NOT_FOUND);
	CU_ASSERT_PTR_EQUAL(free_list, &wc[2]);
	CU_ASSERT_PTR_NULL(done);
	fk.poll_rc = -1;
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_ERROR);
	CU_ASSERT_PTR_EQUAL(free_list, &wc[2]);
	CU_ASSERT_PTR_NULL(done);

	/* A poll asks for at most VERBS_POLL_PROBE first: an empty CQ, or
	 * fewer completions than that, costs one call that walked no further
	 * down the free list; a full probe goes on in batches. */
	fk.poll_rc = 0;
	fk.wc_head = 0;
	fk.n_wc = 3;
	free_list = wc_chain(wc, 20);
	fk.poll_calls = 0;
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.poll_calls, 1);
	CU_ASSERT_EQUAL(fk.poll_asked[0], VERBS_POLL_PROBE);
	CU_ASSERT_PTR_EQUAL(free_list, &wc[3]);
	CU_ASSERT_PTR_NULL(wc[2].p_next);
	fk.poll_calls = 0;
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(fk.poll_calls, 1);
	CU_ASSERT_EQUAL(fk.poll_asked[0], VERBS_POLL_PROBE);
	/* A free list of 2: the probe asks for 2. */
	wc[4].p_next = NULL;
	free_list = &wc[3];
	fk.poll_calls = 0;
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(fk.poll_asked[0], 2);
	/* 20 completions, 17 free: the probe, a batch, the rest. */
	fk.wc_head = 0;
	fk.n_wc = 20;
	free_list = wc_chain(wc, 17);
	fk.poll_calls = 0;
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_PTR_NULL(free_list);
	CU_ASSERT_EQUAL(fk.poll_calls, 2);
	CU_ASSERT_EQUAL(fk.poll_asked[0], VERBS_POLL_PROBE);
	CU_ASSERT_EQUAL(fk.poll_asked[1], 17 - VERBS_POLL_PROBE);
	CU_ASSERT_EQUAL(wc[16].wr_id, 316);
	CU_ASSERT_EQUAL(fk.wc_head, 17);
	/* A filled probe asks again; nothing more ends the poll. */
	free_list = wc_chain(wc, 20);
	fk.wc_head = 0;
	fk.poll_calls = 0;
	fk.n_wc = VERBS_POLL_PROBE;   /* the probe is filled... */
	CU_ASSERT_EQUAL(verbs_poll_cq(&cq, &free_list, &done), IB_SUCCESS);
	CU_ASSERT_EQUAL(fk.poll_calls, 2);    /* ...so it asks again: none */
	CU_ASSERT_PTR_EQUAL(free_list, &wc[VERBS_POLL_PROBE]);
	CU_ASSERT_PTR_NULL(wc[VERBS_POLL_PROBE - 1].p_next);
}

/* ---- The CA list verbs_for_each_ca() keeps ---- */

/* Linked with --wrap=ibv_get_device_list (tests/verbs/Makefile.include):
 * counts the provider's reads of libibverbs' device list. */
static unsigned n_dev_reads;
struct ibv_device **__real_ibv_get_device_list(int *num_devices);
struct ibv_device **__wrap_ibv_get_device_list(int *num_devices);
struct ibv_device **__wrap_ibv_get_device_list(int *num_devices)
{
	__atomic_add_fetch(&n_dev_reads, 1, __ATOMIC_RELAXED);
	return __real_ibv_get_device_list(num_devices);
}

static boolean_t count_ca(ib_net64_t guid, const char *name, int has_ibv, int has_umad, void *ctx)
{
	(void)guid;
	(void)name;
	(void)has_ibv;
	(void)has_umad;
	(*(unsigned *)ctx)++;
	return FALSE;
}

/* How many times one verbs_for_each_ca() read libibverbs' list. */
static unsigned reads_of_one_walk(void)
{
	unsigned before = __atomic_load_n(&n_dev_reads, __ATOMIC_RELAXED), cas = 0;

	verbs_for_each_ca(count_ca, &cas);
	return __atomic_load_n(&n_dev_reads, __ATOMIC_RELAXED) - before;
}

/*
 * The list is read every time unless the device watch listens to uevents;
 * then it is kept until verbs_ca_list_forget() (a relevant uevent) or for
 * at most IBAL_VERBS_POLL_MS, and read every time again once the watch
 * stops. A host without a uevent socket checks the first part only.
 */
static void test_ca_list_kept(void)
{
	unsigned saved = verbs_poll_ms;

	CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
	CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
	verbs_watch_start(1000);
	if (verbs_watch_listening()) {
		CU_ASSERT_EQUAL(reads_of_one_walk(), 1); /* read and kept */
		CU_ASSERT_EQUAL(reads_of_one_walk(), 0);
		CU_ASSERT_EQUAL(reads_of_one_walk(), 0);
		verbs_ca_list_forget();
		CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
		CU_ASSERT_EQUAL(reads_of_one_walk(), 0);
		verbs_poll_ms = 0; /* kept for no time at all */
		CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
		CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
		verbs_poll_ms = saved;
	}
	verbs_watch_stop();
	CU_ASSERT_FALSE(verbs_watch_listening());
	CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
	CU_ASSERT_EQUAL(reads_of_one_walk(), 1);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_no_device),
	TEST_ENTRY(test_tid_restore),
	TEST_ENTRY(test_tid_same_low_half),
	TEST_ENTRY(test_tid_eviction),
	TEST_ENTRY(test_cq),
	TEST_ENTRY(test_mr),
	TEST_ENTRY(test_av),
	TEST_ENTRY(test_spl_qp_checks),
	TEST_ENTRY(test_rx_length),
	TEST_ENTRY(test_dp_fake),
	TEST_ENTRY(test_ca_list_kept),
};

TEST_MAIN("verbs provider (no device)", tests)
