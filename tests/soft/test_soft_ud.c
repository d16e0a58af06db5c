/*
 * ibal tests: the soft HCA's UD data path through soft_prov_ops: sends and
 * receives, drops, datagrams held at a full ring, SRQ limits, two processes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The two CAs are soft_ca_fixture.h's, the datagram helpers
 * soft_hca_fixture.h's (shared with test_soft_hca.c).
 */
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include "soft_hca_fixture.h"
#include "ring_fill_test.h"

/* --- Tests: UD data path -------------------------------------------------- */

static void test_ud_send_recv(void)
{
	ud_end_t *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	void *av, *av_g;
	ib_wc_t wc;
	int i;

	up();
	ud_open(a, 0, 0x11111111, 0, 0);
	ud_open(b, 1, 0x22222222, 0, 0);
	av = make_av(0, ca_lid(1), 0);
	av_g = make_av(0, ca_lid(1), 1);
	for (i = 0; i < 1000; i++)
		a->buf[i] = (uint8_t)(i * 7 + 1);
	CU_ASSERT_EQUAL(post_rx(b, 501, 0, 2048), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av, b->qpn, 0x22222222, 401, 0, 1000, IB_SEND_OPT_SOLICITED, 0),
			IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(a->scq, &a->tag_s, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 401);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_SEND);
	CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 501);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV);
	CU_ASSERT_EQUAL(wc.length, 1040);
	CU_ASSERT_EQUAL(wc.recv.ud.recv_opt, 0);
	CU_ASSERT_EQUAL(wc.recv.ud.remote_qp, cl_hton32(a->qpn));
	CU_ASSERT_EQUAL(wc.recv.ud.remote_lid, cl_hton16(ca_lid(0)));
	CU_ASSERT_EQUAL(wc.recv.ud.remote_sl, 3);
	CU_ASSERT_EQUAL(wc.recv.ud.pkey_index, 0);
	CU_ASSERT_EQUAL(memcmp(b->buf + 40, a->buf, 1000), 0);
	/* immediate data, GRH, Q_Key from the QP (high bit) */
	CU_ASSERT_EQUAL(to_state(a->qp, IB_QPS_ERROR), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(a->qp, IB_QPS_RESET), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_init_ud(a->qp, 0x22222222), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(a->qp, IB_QPS_RTR), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(a->qp, IB_QPS_RTS), IB_SUCCESS);
	memset(b->buf, 0, 64);
	CU_ASSERT_EQUAL(post_rx(b, 502, 0, 2048), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av_g, b->qpn, 0x80000000u, 402, 0, 13,
				IB_SEND_OPT_IMMEDIATE | IB_SEND_OPT_SIGNALED, 0xCAFEF00D),
			IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 502);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.length, 53);
	CU_ASSERT_EQUAL(wc.recv.ud.recv_opt, IB_RECV_OPT_IMMEDIATE | IB_RECV_OPT_GRH_VALID);
	CU_ASSERT_EQUAL(wc.recv.ud.immediate_data, cl_hton32(0xCAFEF00D));
	CU_ASSERT_EQUAL(b->buf[0] >> 4, 6); /* GRH IPVer */
	CU_ASSERT_EQUAL(((ib_grh_t *)b->buf)->src_gid.unicast.interface_id,
			((soft_ca_t *)ca[0])->port[0].guid);
	CU_ASSERT_EQUAL(memcmp(b->buf + 40, a->buf, 13), 0);
	CU_ASSERT(wait_wc(a->scq, &a->tag_s, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 402);
	ops->destroy_av(av);
	ops->destroy_av(av_g);
	ud_free(a);
	ud_free(b);
	down();
}

static void test_ud_drops(void)
{
	ud_end_t *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)), *c = calloc(1, sizeof(*c));
	void *av;
	ib_wc_t wc;

	up();
	ud_open(a, 0, 1, 0, 0);
	ud_open(b, 1, 2, 0, 0);
	ud_open(c, 1, 3, 0, 0);
	av = make_av(0, ca_lid(1), 0);
	a->buf[0] = 0xAA;
	CU_ASSERT_EQUAL(post_rx(b, 1, 0, 256), IB_SUCCESS);
	/* wrong Q_Key: dropped, the receive stays posted */
	CU_ASSERT_EQUAL(post_tx(a, av, b->qpn, 99, 10, 0, 4, 0, 0), IB_SUCCESS);
	/* to c, which has no receive: dropped */
	CU_ASSERT_EQUAL(post_tx(a, av, c->qpn, 3, 11, 0, 4, 0, 0), IB_SUCCESS);
	a->buf[0] = 0xBB;
	CU_ASSERT_EQUAL(post_tx(a, av, b->qpn, 2, 12, 0, 4, 0, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_EQUAL(b->buf[40], 0xBB);
	CU_ASSERT_EQUAL(((soft_ca_t *)ca[1])->port[0].qkey_ctr, 1);
	/* the packets were handled in order: c's was already dropped */
	CU_ASSERT(cq_empty(c->rcq));
	CU_ASSERT_EQUAL(post_rx(c, 2, 0, 256), IB_SUCCESS);
	a->buf[0] = 0xCC;
	CU_ASSERT_EQUAL(post_tx(a, av, c->qpn, 3, 13, 0, 4, 0, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(c->rcq, &c->tag_r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(c->buf[40], 0xCC);
	/* too short a buffer: local length error */
	CU_ASSERT_EQUAL(post_rx(c, 3, 0, 41), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av, c->qpn, 3, 14, 0, 4, 0, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(c->rcq, &c->tag_r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 3);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_LOCAL_LEN_ERR);
	/* bad L_Key at the sender: protection error, QP to SQE, later sends flushed */
	{
		ib_local_ds_t ds = { (uint64_t)(uintptr_t)a->buf, 4, a->lkey ^ CL_HTON32(0x100) };
		ib_send_wr_t wr;
		ib_qp_attr_t qa;
		int k;

		for (k = 0; k < 3; k++)
			CU_ASSERT(wait_wc(a->scq, &a->tag_s, &wc));
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 15;
		wr.wr_type = WR_SEND;
		wr.num_ds = 1;
		wr.ds_array = &ds;
		wr.dgrm.ud.h_av = (ib_av_handle_t)av;
		wr.dgrm.ud.remote_qp = cl_hton32(c->qpn);
		CU_ASSERT_EQUAL(ops->post_send(a->qp, &wr, NULL), IB_SUCCESS);
		while (wait_wc(a->scq, &a->tag_s, &wc) && wc.wr_id != 15)
			;
		CU_ASSERT_EQUAL(wc.wr_id, 15);
		CU_ASSERT_EQUAL(wc.status, IB_WCS_LOCAL_PROTECTION_ERR);
		CU_ASSERT_EQUAL(ops->query_qp(a->qp, &qa), IB_SUCCESS);
		CU_ASSERT_EQUAL(qa.state, IB_QPS_SQERR);
		wr.wr_id = 16;
		CU_ASSERT_EQUAL(ops->post_send(a->qp, &wr, NULL), IB_SUCCESS);
		CU_ASSERT(wait_wc(a->scq, &a->tag_s, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 16);
		CU_ASSERT_EQUAL(wc.status, IB_WCS_WR_FLUSHED_ERR);
		/* post-time checks */
		wr.wr_type = WR_RDMA_WRITE;
		CU_ASSERT_EQUAL(to_state(a->qp, IB_QPS_RTS), IB_SUCCESS);
		CU_ASSERT_EQUAL(ops->post_send(a->qp, &wr, NULL), IB_INVALID_WR_TYPE);
		wr.wr_type = WR_SEND;
		wr.num_ds = 5;
		CU_ASSERT_EQUAL(ops->post_send(a->qp, &wr, NULL), IB_INVALID_MAX_SGE);
	}
	ops->destroy_av(av);
	ud_free(a);
	ud_free(b);
	ud_free(c);
	down();
}

/* Port 1's fabric port of CA @p ci. */
static soft_fabric_port_t *fport(int ci)
{
	return ((soft_ca_t *)ca[ci])->port[0].fp;
}

static uint64_t drops_busy(int ci)
{
	soft_fabric_stats_t s;

	soft_fabric_port_stats(fport(ci), &s);
	return s.drop_busy;
}

static uint32_t sq_queued(ud_end_t *e)
{
	soft_qp_t *qp = (soft_qp_t *)e->qp;
	uint32_t n;

	soft_lock(&qp->lock);
	n = qp->sq_count;
	soft_unlock(&qp->lock);
	return n;
}

/* Does the datagram QP of @p e drop its packets to @p lid at once? */
static boolean_t is_stuck(ud_end_t *e, uint16_t lid)
{
	soft_qp_t *qp = (soft_qp_t *)e->qp;
	boolean_t found = FALSE;
	int i;

	soft_lock(&qp->sq_lock);
	for (i = 0; i < SOFT_UD_STUCK_LIDS; i++)
		if (qp->sq_stuck[i] == lid)
			found = TRUE;
	soft_unlock(&qp->sq_lock);
	return found;
}

/* Sets how long a datagram waits at a full ring before it is dropped. */
static void set_hold_ms(uint64_t ms)
{
	__atomic_store_n(&soft_ud_hold_ns, ms * 1000000u, __ATOMIC_RELAXED);
}

/* Takes a's next send completion: @p wr_id, successful. */
static void sent(ud_end_t *a, uint64_t wr_id)
{
	ib_wc_t wc;

	CU_ASSERT_FATAL(wait_wc(a->scq, &a->tag_s, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, wr_id);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
}

/*
 * A datagram whose destination's ring is full waits at the head of its
 * send queue, as a packet waits for link credits, and the sends posted
 * after it wait behind it: all go, in order, once the ring drains (the
 * CA's progress thread resumes the QP). One that waited SOFT_UD_HOLD_MS is
 * dropped and counted, the sends behind it go on (here one to another
 * port), and packets to that LID are then dropped at once rather than
 * held, until one finds room again. Where a send must wait and arrive, the
 * lifetime is the tests' bound: this thread, preempted while it holds the
 * receiver's rx_lock on a loaded machine, would otherwise outlive the 50 ms
 * and see the send dropped.
 */
static void test_ud_held_at_full_ring(void)
{
	ud_end_t *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b)), *c = calloc(1, sizeof(*c));
	soft_ca_t *cb;
	soft_fabric_port_t *idle = NULL;
	uint16_t idle_lid;
	void *av_idle;
	void *av_b, *av_c;
	uint64_t busy0, end;
	ib_qp_mod_t m;
	ib_qp_attr_t qattr;
	ib_wc_t wc;
	int i;

	up();
	cb = (soft_ca_t *)ca[1];
	ud_open(a, 0, 1, 0, 0);
	ud_open(b, 1, 2, 0, 0);
	ud_open(c, 0, 3, 0, 0); /* on a's own port: another ring */
	av_b = make_av(0, ca_lid(1), 0);
	av_c = make_av(0, ca_lid(0), 0);
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(post_rx(b, 10 + i, 256 * i, 256), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_rx(c, 20, 0, 256), IB_SUCCESS);
	a->buf[0] = 1;
	a->buf[1] = 2;
	a->buf[2] = 9;
	set_hold_ms(TEST_WAIT_US / 1000u);

	/* Held until the ring drains, the second send behind the first. */
	soft_lock(&cb->rx_lock); /* CA 1 takes no packet meanwhile */
	fill_ring_at(fport(0), ca_lid(0), ca_lid(1));
	busy0 = drops_busy(0);
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 1, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 2, 1, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(a), 2);
	CU_ASSERT(cq_empty(a->scq));
	soft_unlock(&cb->rx_lock);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, (uint64_t)(10 + i));
		CU_ASSERT_EQUAL(b->buf[256 * i + 40], i + 1);
		sent(a, 1 + (uint64_t)i);
	}
	CU_ASSERT_EQUAL(drops_busy(0), busy0);

	/* SQD drains once the held send went; one posted in SQD waits for RTS. */
	soft_lock(&cb->rx_lock);
	fill_ring_at(fport(0), ca_lid(0), ca_lid(1));
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 21, 0, 1, 0, 0), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_SQD;
	m.state.sqd.sqd_event = TRUE;
	CU_ASSERT_EQUAL(ops->modify_qp(a->qp, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->query_qp(a->qp, &qattr), IB_SUCCESS);
	CU_ASSERT_EQUAL(qattr.state, IB_QPS_SQD_DRAINING);
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 22, 1, 1, 0, 0), IB_SUCCESS);
	soft_unlock(&cb->rx_lock);
	sent(a, 21);
	CU_ASSERT(rec_wait_events(NULL, IB_AE_SQ_DRAINED, 1) >= 1);
	CU_ASSERT_EQUAL(ops->query_qp(a->qp, &qattr), IB_SUCCESS);
	CU_ASSERT_EQUAL(qattr.state, IB_QPS_SQD_DRAINED);
	CU_ASSERT_EQUAL(sq_queued(a), 1);
	CU_ASSERT_EQUAL(to_state(a->qp, IB_QPS_RTS), IB_SUCCESS);
	sent(a, 22);
	for (i = 2; i < 4; i++) {
		CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, (uint64_t)(10 + i));
		CU_ASSERT_EQUAL(b->buf[256 * i + 40], i - 1);
	}

	/* A ring that does not drain: dropped after the lifetime, then at once. */
	set_hold_ms(SOFT_UD_HOLD_MS);
	soft_lock(&cb->rx_lock);
	fill_ring_at(fport(0), ca_lid(0), ca_lid(1));
	busy0 = drops_busy(0);
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 3, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av_c, c->qpn, 3, 4, 2, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(a), 2);
	sent(a, 3);
	sent(a, 4);
	CU_ASSERT_FATAL(wait_wc(c->rcq, &c->tag_r, &wc));
	CU_ASSERT_EQUAL(c->buf[40], 9);
	CU_ASSERT_EQUAL(drops_busy(0), busy0 + 1);
	CU_ASSERT(is_stuck(a, ca_lid(1)));
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 5, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(a), 0);
	sent(a, 5);
	CU_ASSERT_EQUAL(drops_busy(0), busy0 + 2);
	/* A second LID that stays full (a bare fabric port nobody drains) is
	 * remembered too: sends to either then drop at once, alternating. */
	CU_ASSERT_EQUAL_FATAL(soft_fabric_port_open(CL_HTON64(0x0002C903000F0001ull),
						    CL_HTON64(0x0002C903001F0001ull), 1, &idle),
			      IB_SUCCESS);
	idle_lid = soft_fabric_port_lid(idle);
	av_idle = make_av(0, idle_lid, 0);
	fill_ring_at(fport(0), ca_lid(0), idle_lid);
	CU_ASSERT_EQUAL(post_tx(a, av_idle, 2, 3, 7, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(a), 1);
	sent(a, 7);
	CU_ASSERT(is_stuck(a, idle_lid));
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 8, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av_idle, 2, 3, 9, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(a), 0);
	sent(a, 8);
	sent(a, 9);
	ops->destroy_av(av_idle);
	soft_fabric_port_close(idle);
	soft_unlock(&cb->rx_lock);

	/* Drained: a packet to it finds room, and it is not stuck any more. */
	end = test_now_ms() + TEST_WAIT_US / 1000u;
	while (!soft_fabric_room(fport(0), ca_lid(1), SOFT_RING_ALIGN * 4) && test_now_ms() < end)
		sched_yield();
	a->buf[0] = 7;
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 6, 0, 1, 0, 0), IB_SUCCESS);
	sent(a, 6);
	CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 14);
	CU_ASSERT_EQUAL(b->buf[1024 + 40], 7);
	CU_ASSERT(!is_stuck(a, ca_lid(1)));

	/* A waiting send that fails (a bad L_Key) takes the QP to SQE, flushing
	 * those behind it. */
	set_hold_ms(TEST_WAIT_US / 1000u);
	soft_lock(&cb->rx_lock);
	fill_ring_at(fport(0), ca_lid(0), ca_lid(1));
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 41, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx_lkey(a, av_b, b->qpn, 2, 42, 0, 1, 0, 0,
				     a->lkey ^ CL_HTON32(0x100)),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(post_tx(a, av_b, b->qpn, 2, 43, 0, 1, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(a), 3);
	soft_unlock(&cb->rx_lock);
	sent(a, 41);
	CU_ASSERT_FATAL(wait_wc(a->scq, &a->tag_s, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 42);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_LOCAL_PROTECTION_ERR);
	CU_ASSERT_FATAL(wait_wc(a->scq, &a->tag_s, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 43);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_WR_FLUSHED_ERR);
	CU_ASSERT_EQUAL(sq_queued(a), 0);
	CU_ASSERT_EQUAL(ops->query_qp(a->qp, &qattr), IB_SUCCESS);
	CU_ASSERT_EQUAL(qattr.state, IB_QPS_SQERR);

	/* QP1, queued with its CA by port rather than by number, resumes too. */
	ud_close(c);
	dgrm_open(c, 0, IB_QPT_QP1, 0x80010000u, 0, 0);
	soft_lock(&cb->rx_lock);
	fill_ring_at(fport(0), ca_lid(0), ca_lid(1));
	CU_ASSERT_EQUAL(post_tx(c, av_b, 1, 0x80010000u, 31, 0, 8, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(sq_queued(c), 1);
	CU_ASSERT(cq_empty(c->scq));
	soft_unlock(&cb->rx_lock);
	sent(c, 31);
	set_hold_ms(SOFT_UD_HOLD_MS);
	ops->destroy_av(av_b);
	ops->destroy_av(av_c);
	ud_free(a);
	ud_free(b);
	ud_free(c);
	down();
}


/* IBAL_SOFT_UD_HOLD_MS, read at soft_init: 1 ms to a minute, else the default. */
static void test_ud_hold_env(void)
{
	static const struct {
		const char *val;
		uint64_t ms;
	} cases[] = {
		{ "7", 7 }, { "1", 1 }, { "60000", 60000 }, { "0", SOFT_UD_HOLD_MS },
		{ "60001", SOFT_UD_HOLD_MS }, { "-5", SOFT_UD_HOLD_MS }, { "5ms", SOFT_UD_HOLD_MS },
		{ NULL, SOFT_UD_HOLD_MS },
	};
	size_t i;

	for (i = 0; i < TEST_COUNT(cases); i++) {
		if (cases[i].val)
			setenv(SOFT_ENV_UD_HOLD_MS, cases[i].val, 1);
		else
			unsetenv(SOFT_ENV_UD_HOLD_MS);
		up();
		CU_ASSERT_EQUAL(__atomic_load_n(&soft_ud_hold_ns, __ATOMIC_RELAXED),
				cases[i].ms * 1000000u);
		down();
	}
	unsetenv(SOFT_ENV_UD_HOLD_MS);
}

static void test_ud_srq_limit(void)
{
	ud_end_t *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	ib_srq_attr_t sa;
	void *av;
	ib_wc_t wc;
	int i;

	up();
	ud_open(a, 0, 5, 0, 0);
	ud_open(b, 1, 5, 1, 0);
	av = make_av(0, ca_lid(1), 0);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(post_rx(b, 100 + i, (uint32_t)i * 1024, 1024), IB_SUCCESS);
	memset(&sa, 0, sizeof(sa));
	sa.srq_limit = 3;
	CU_ASSERT_EQUAL(ops->modify_srq(b->srq, &sa, IB_SRQ_LIMIT), IB_SUCCESS);
	sa.srq_limit = 16;
	CU_ASSERT_EQUAL(ops->modify_srq(b->srq, &sa, IB_SRQ_LIMIT), IB_INVALID_SETTING);
	for (i = 0; i < 2; i++) {
		a->buf[0] = (uint8_t)i;
		CU_ASSERT_EQUAL(post_tx(a, av, b->qpn, 5, (uint64_t)i, 0, 1, 0, 0), IB_SUCCESS);
		CU_ASSERT_FATAL(wait_wc(b->rcq, &b->tag_r, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 100 + (uint64_t)i);
		CU_ASSERT_EQUAL(b->buf[i * 1024 + 40], i);
	}
	CU_ASSERT(rec_wait_events(&b->tag_q, IB_AE_SRQ_LIMIT_REACHED, 1) >= 1);
	CU_ASSERT_EQUAL(ops->query_srq(b->srq, &sa), IB_SUCCESS);
	CU_ASSERT_EQUAL(sa.srq_limit, 0);
	CU_ASSERT_EQUAL(sa.max_wr, 16);
	CU_ASSERT_EQUAL(rec_events(&b->tag_q, IB_AE_SRQ_LIMIT_REACHED), 1);
	ops->destroy_av(av);
	ud_free(a);
	ud_free(b);
	down();
}

/* --- Multi-process UD exchange --------------------------------------------- */

typedef struct {
	uint16_t lid;
	uint32_t qpn;
} peer_t;

/* One side: opens its own CA, exchanges addresses over pipes, then the
 * child sends to the parent and the parent answers. Returns failures. */
static int mp_side(int is_child, int rfd, int wfd)
{
	ud_end_t *e = calloc(1, sizeof(*e));
	peer_t me, other;
	ib_net64_t g;
	size_t n = 1;
	void *av;
	ib_wc_t wc;
	int bad = 0;

	setenv(SOFT_ENV_CAS, "1", 1);
	bad |= ops->init(&rec_upcalls) != IB_SUCCESS;
	bad |= ops->get_ca_guids(&g, &n) != IB_SUCCESS;
	bad |= ops->open_ca(g, NULL, &ca[0]) != IB_SUCCESS;
	if (bad)
		return 1;
	bad |= ops->alloc_pd(ca[0], IB_PDT_NORMAL, &pd[0]) != IB_SUCCESS;
	ud_open(e, 0, 0x42, 0, 0);
	memset(&me, 0, sizeof(me));
	me.lid = ca_lid(0);
	me.qpn = e->qpn;
	bad |= post_rx(e, 7, 0, 512) != IB_SUCCESS;
	bad |= write(wfd, &me, sizeof(me)) != sizeof(me);
	bad |= read(rfd, &other, sizeof(other)) != sizeof(other);
	if (bad)
		return 1;
	av = make_av(0, other.lid, 0);
	if (is_child) {
		memcpy(e->buf + 1024, "from the child", 15);
		bad |= post_tx(e, av, other.qpn, 0x42, 1, 1024, 15, 0, 0) != IB_SUCCESS;
		bad |= !wait_wc(e->rcq, &e->tag_r, &wc);
		bad |= wc.status != IB_WCS_SUCCESS || memcmp(e->buf + 40, "from the parent", 16);
	} else {
		bad |= !wait_wc(e->rcq, &e->tag_r, &wc);
		bad |= wc.status != IB_WCS_SUCCESS || memcmp(e->buf + 40, "from the child", 15);
		bad |= wc.recv.ud.remote_qp != cl_hton32(other.qpn);
		bad |= wc.recv.ud.remote_lid != cl_hton16(other.lid);
		memcpy(e->buf + 1024, "from the parent", 16);
		bad |= post_tx(e, av, other.qpn, 0x42, 2, 1024, 16, 0, 0) != IB_SUCCESS;
	}
	bad |= !wait_wc(e->scq, &e->tag_s, &wc);
	ops->destroy_av(av);
	ud_close(e);
	free(e);
	ops->dealloc_pd(pd[0]);
	ops->close_ca(ca[0]);
	ops->cleanup();
	return bad;
}

static void test_ud_multiprocess(void)
{
	int p2c[2], c2p[2], status = -1;
	pid_t pid;

	fab_begin();
	CU_ASSERT_FATAL(pipe(p2c) == 0 && pipe(c2p) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int r = mp_side(1, p2c[0], c2p[1]);

		_exit(r ? 3 : 0);
	}
	CU_ASSERT_EQUAL(mp_side(0, c2p[0], p2c[1]), 0);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(p2c[0]);
	close(p2c[1]);
	close(c2p[0]);
	close(c2p[1]);
	fab_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_ud_send_recv),
	TEST_ENTRY(test_ud_drops),
	TEST_ENTRY(test_ud_held_at_full_ring),
	TEST_ENTRY(test_ud_hold_env),
	TEST_ENTRY(test_ud_srq_limit),
	TEST_ENTRY(test_ud_multiprocess),
};

TEST_MAIN("soft HCA UD", tests)
