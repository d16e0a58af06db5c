/*
 * ibal tests: the soft HCA's path migration on the wire (BTH MigReq, paths, REARM, retries).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Drives the soft provider through soft_prov_ops with two CAs of two ports
 * each (IBAL_SOFT_CAS=2, IBAL_SOFT_PORTS=2) in a fabric directory of its
 * own, and watches every RC packet with the fabric's filter hook (which
 * drops nothing): its sending port, LRH SLID and BTH MigReq bit. Waits are
 * bounded condition waits on the upcall recorder, never sleeps.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "soft_fab_fixture.h"

#define BUF_LEN 8192
#define MSG_LEN 2500 /* three packets at 1024 bytes */
#define PSN 0x000100u
#define ACK_TIMEOUT 13 /* about 34 ms: no spurious retries on a slow machine */

/* One end of the connection; it is also the core context of its QP and CQ. */
typedef struct end {
	void *ca, *pd, *cq, *qp, *mr;
	net32_t lkey;
	uint32_t qpn;
	uint16_t lid[2];   /* host order, ports 1 and 2 */
	uint8_t buf[BUF_LEN];
} end_t;

static end_t ends[2];
static end_t *const ea = &ends[0], *const eb = &ends[1];



/* --- Packet watch (the fabric filter, dropping nothing) --------------------- */

#define MAX_PKTS 256

static struct {
	pthread_mutex_t lock;
	unsigned n;
	struct {
		uint8_t port;      /* sending port number */
		uint16_t slid;
		uint8_t mig;
		uint8_t request;   /* a request (not an ACK or response) */
	} p[MAX_PKTS];
} seen = { PTHREAD_MUTEX_INITIALIZER, 0, { { 0, 0, 0, 0 } } };

static boolean_t watch_fn(void *ctx, const void *pkt, size_t len)
{
	const uint8_t *bth = soft_pkt_bth(pkt);
	const soft_opcode_info_t *oi = soft_opcode_info(soft_bth_opcode(bth));
	unsigned i, k;

	(void)len;
	(void)ctx;
	if (!oi || (soft_bth_opcode(bth) & SOFT_TRANSPORT_MASK) != SOFT_TRANSPORT_RC)
		return FALSE;
	pthread_mutex_lock(&seen.lock);
	if (seen.n < MAX_PKTS) {
		k = seen.n++;
		seen.p[k].port = 0;
		/* The sending port, by its LID (the source LID of the packet). */
		for (i = 0; i < 4; i++)
			if (soft_port_lid(&((soft_ca_t *)ends[i / 2].ca)->port[i % 2]) ==
			    soft_lrh_slid(pkt))
				seen.p[k].port = (uint8_t)(i % 2 + 1);
		seen.p[k].slid = soft_lrh_slid(pkt);
		seen.p[k].mig = soft_bth_mig(bth);
		seen.p[k].request = (oi->flags & SOFT_OPF_REQUEST) != 0;
	}
	pthread_mutex_unlock(&seen.lock);
	return FALSE;
}

static void watch_reset(void)
{
	pthread_mutex_lock(&seen.lock);
	seen.n = 0;
	pthread_mutex_unlock(&seen.lock);
}

/* Packets seen from @p slid (0: any) with MigReq @p mig (-1: any); *p_port gets their port set. */
static unsigned watch_count(uint16_t slid, int mig, unsigned *p_ports)
{
	unsigned i, n = 0, ports = 0;

	pthread_mutex_lock(&seen.lock);
	for (i = 0; i < seen.n; i++)
		if ((!slid || seen.p[i].slid == slid) && (mig < 0 || seen.p[i].mig == mig)) {
			n++;
			ports |= 1u << seen.p[i].port;
		}
	pthread_mutex_unlock(&seen.lock);
	if (p_ports)
		*p_ports = ports;
	return n;
}

/* --- Fixture --------------------------------------------------------------- */

static void end_open(end_t *e, ib_net64_t guid)
{
	ib_qp_create_t c;
	ib_mr_create_t mc;
	uint32_t size = 64;
	net32_t rkey;

	memset(e, 0, sizeof(*e));
	CU_ASSERT_EQUAL_FATAL(ops->open_ca(guid, e, &e->ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(((soft_ca_t *)e->ca)->num_ports, 2);
	CU_ASSERT_FATAL(soft_ca_wait_active(e->ca, TEST_WAIT_US / 1000u));
	e->lid[0] = soft_port_lid(&((soft_ca_t *)e->ca)->port[0]);
	e->lid[1] = soft_port_lid(&((soft_ca_t *)e->ca)->port[1]);
	CU_ASSERT(e->lid[0] && e->lid[1] && e->lid[0] != e->lid[1]);
	CU_ASSERT_EQUAL_FATAL(ops->alloc_pd(e->ca, IB_PDT_NORMAL, &e->pd), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->create_cq(e->ca, &size, e, &e->cq), IB_SUCCESS);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_RELIABLE_CONN;
	c.sq_depth = c.rq_depth = 16;
	c.sq_sge = c.rq_sge = 1;
	c.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(e->pd, &c, e->cq, e->cq, NULL, e, &e->qp), IB_SUCCESS);
	e->qpn = ((soft_qp_t *)e->qp)->qpn;
	mc.vaddr = e->buf;
	mc.length = BUF_LEN;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL_FATAL(ops->reg_mem(e->pd, &mc, &e->lkey, &rkey, &e->mr), IB_SUCCESS);
}

static void end_close(end_t *e)
{
	CU_ASSERT_EQUAL(ops->dereg_mr(e->mr), IB_SUCCESS);
	ops->destroy_qp(e->qp);
	ops->destroy_cq(e->cq);
	ops->dealloc_pd(e->pd);
	ops->close_ca(e->ca);
}

static void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	test_fixture_up = 1;
	fab_begin_ports("2");
	CU_ASSERT_EQUAL_FATAL(ops->init(&rec_upcalls), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ops->get_ca_guids(guids, &n), IB_SUCCESS);
	end_open(ea, guids[0]);
	end_open(eb, guids[1]);
	watch_reset();
	soft_fabric_set_drop_filter(watch_fn, NULL);
}

static void down(void)
{
	soft_fabric_set_drop_filter(NULL, NULL);
	end_close(ea);
	end_close(eb);
	ops->cleanup();
	fab_end();
	test_fixture_up = 0;
}

/* A path from port @p port to the same port of @p peer. */
static void path(ib_av_attr_t *av, const end_t *peer, uint8_t port)
{
	memset(av, 0, sizeof(*av));
	av->port_num = port;
	av->dlid = cl_hton16(peer->lid[port - 1]);
	av->conn.path_mtu = IB_MTU_LEN_1024;
	av->conn.local_ack_timeout = ACK_TIMEOUT;
}

/* RESET to RTS: primary path port 1, alternate port 2, APM state @p apm. */
static void connect_one(end_t *e, const end_t *peer, ib_apm_state_t apm)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	CU_ASSERT_EQUAL(ops->modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(PSN);
	m.state.rtr.dest_qp = cl_hton32(peer->qpn);
	m.state.rtr.resp_res = 1;
	m.state.rtr.rnr_nak_timeout = 1;
	path(&m.state.rtr.primary_av, peer, 1);
	m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV;
	path(&m.state.rtr.alternate_av, peer, 2);
	CU_ASSERT_EQUAL(ops->modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(PSN);
	m.state.rts.retry_cnt = 2;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = ACK_TIMEOUT;
	m.state.rts.init_depth = 1;
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = apm;
	CU_ASSERT_EQUAL(ops->modify_qp(e->qp, &m), IB_SUCCESS);
}

/* RTS to RTS with only a new APM state. */
static ib_api_status_t set_apm(end_t *e, ib_apm_state_t apm)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = apm;
	return ops->modify_qp(e->qp, &m);
}

static ib_qp_attr_t query(end_t *e)
{
	ib_qp_attr_t a;

	CU_ASSERT_EQUAL(ops->query_qp(e->qp, &a), IB_SUCCESS);
	return a;
}

/* Polls one completion, waiting (bounded) for it. */
static int wait_wc(end_t *e, ib_wc_t *wc)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;
	ib_wc_t *p_free, *p_done;
	unsigned n;

	/* A completion event may be for a completion already polled (one that
	 * came between the poll and the rearm): look again until the bound. */
	for (;;) {
		wc->p_next = NULL;
		p_free = wc;
		if (ops->poll_cq(e->cq, &p_free, &p_done) == IB_SUCCESS)
			return 1;
		n = rec_comps(e);
		CU_ASSERT_EQUAL(ops->rearm_cq(e->cq, FALSE), IB_SUCCESS);
		wc->p_next = NULL;
		p_free = wc;
		if (ops->poll_cq(e->cq, &p_free, &p_done) == IB_SUCCESS)
			return 1;
		if (test_now_ms() >= end)
			return 0;
		rec_wait_comps(e, n + 1);
	}
}

/* One message from @p s to @p r, both completions successful, data intact. */
static void transfer(end_t *s, end_t *r, unsigned seed)
{
	ib_local_ds_t sds = { (uint64_t)(uintptr_t)s->buf, MSG_LEN, s->lkey };
	ib_local_ds_t rds = { (uint64_t)(uintptr_t)(r->buf + BUF_LEN / 2), BUF_LEN / 2, r->lkey };
	ib_send_wr_t swr;
	ib_recv_wr_t rwr;
	ib_wc_t wc;
	uint32_t i, bad = 0;

	for (i = 0; i < MSG_LEN; i++)
		s->buf[i] = (uint8_t)(i + seed);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.num_ds = 1;
	rwr.ds_array = &rds;
	CU_ASSERT_EQUAL(ops->post_recv(r->qp, &rwr, NULL), IB_SUCCESS);
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 1;
	swr.wr_type = WR_SEND;
	swr.num_ds = 1;
	swr.ds_array = &sds;
	CU_ASSERT_EQUAL(ops->post_send(s->qp, &swr, NULL), IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(s, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 1);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(r, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	for (i = 0; i < MSG_LEN; i++)
		bad += r->buf[BUF_LEN / 2 + i] != (uint8_t)(i + seed);
	CU_ASSERT_EQUAL(bad, 0);
}

/* --- Tests ----------------------------------------------------------------- */

/*
 * MigReq follows the APM state: 1 in MIGRATED, 0 in REARM and ARMED; the
 * first packets without it arm both ends (REARM to ARMED); a migration
 * moves both ends to port 2 with MigReq 1 again.
 */
static void test_migreq_bit(void)
{
	unsigned ports, total;

	up();
	connect_one(ea, eb, IB_APM_MIGRATED);
	connect_one(eb, ea, IB_APM_MIGRATED);
	transfer(ea, eb, 1);
	total = watch_count(0, -1, NULL);
	CU_ASSERT(total >= 4); /* three requests, at least one ACK */
	CU_ASSERT_EQUAL(watch_count(0, 1, &ports), total);
	CU_ASSERT_EQUAL(ports, 1u << 1);
	/* REARM: MigReq 0, and the peer's packets arm each end. */
	CU_ASSERT_EQUAL(set_apm(ea, IB_APM_REARM), IB_SUCCESS);
	CU_ASSERT_EQUAL(set_apm(eb, IB_APM_REARM), IB_SUCCESS);
	CU_ASSERT_EQUAL(query(ea).apm_state, IB_APM_REARM);
	watch_reset();
	transfer(ea, eb, 2);
	total = watch_count(0, -1, NULL);
	CU_ASSERT_EQUAL(watch_count(0, 0, NULL), total);
	CU_ASSERT_EQUAL(query(ea).apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(query(eb).apm_state, IB_APM_ARMED);
	CU_ASSERT_EQUAL(rec_events(ea, IB_AE_QP_APM) + rec_events(eb, IB_AE_QP_APM), 0);
	/* The consumer migrates A (what ib_force_apm() asks for). */
	CU_ASSERT_EQUAL(set_apm(ea, IB_APM_MIGRATED), IB_SUCCESS);
	CU_ASSERT_EQUAL(rec_wait_events(ea, IB_AE_QP_APM, 1), 1);
	watch_reset();
	transfer(ea, eb, 3);
	CU_ASSERT_EQUAL(rec_wait_events(eb, IB_AE_QP_APM, 1), 1);
	total = watch_count(0, -1, NULL);
	CU_ASSERT(watch_count(ea->lid[1], 1, &ports) >= 3);
	CU_ASSERT_EQUAL(ports, 1u << 2);
	CU_ASSERT(watch_count(eb->lid[1], 1, &ports) >= 1);
	CU_ASSERT_EQUAL(ports, 1u << 2);
	CU_ASSERT_EQUAL(watch_count(ea->lid[1], 1, NULL) + watch_count(eb->lid[1], 1, NULL),
			total);
	CU_ASSERT_EQUAL(query(eb).primary_port, 2);
	CU_ASSERT_EQUAL(rec_events(ea, IB_AE_QP_APM_ERROR) + rec_events(eb, IB_AE_QP_APM_ERROR), 0);
	down();
}

/*
 * A migrates with nothing to send; B's packets still come on the old path
 * and A drops them. B's retries run out, B migrates (IB_AE_QP_APM) and the
 * message arrives on port 2.
 */
static void test_old_path_then_peer_retries(void)
{
	unsigned ports;

	up();
	connect_one(ea, eb, IB_APM_ARMED);
	connect_one(eb, ea, IB_APM_ARMED);
	CU_ASSERT_EQUAL(set_apm(ea, IB_APM_MIGRATED), IB_SUCCESS);
	CU_ASSERT_EQUAL(rec_wait_events(ea, IB_AE_QP_APM, 1), 1);
	CU_ASSERT_EQUAL(query(ea).primary_port, 2);
	watch_reset();
	transfer(eb, ea, 4);
	CU_ASSERT_EQUAL(rec_wait_events(eb, IB_AE_QP_APM, 1), 1);
	/* The first transmission and two retries went out on port 1, unanswered. */
	CU_ASSERT(watch_count(eb->lid[0], 0, &ports) >= 3 * 3);
	CU_ASSERT_EQUAL(ports, 1u << 1);
	CU_ASSERT_EQUAL(watch_count(ea->lid[0], -1, NULL), 0);
	CU_ASSERT(watch_count(eb->lid[1], 1, NULL) >= 3);
	CU_ASSERT(watch_count(ea->lid[1], 1, NULL) >= 1);
	CU_ASSERT_EQUAL(query(eb).primary_port, 2);
	CU_ASSERT_EQUAL(query(eb).state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(rec_events(ea, IB_AE_QP_APM), 1);
	CU_ASSERT_EQUAL(rec_events(ea, IB_AE_QP_APM_ERROR) + rec_events(eb, IB_AE_QP_APM_ERROR), 0);
	transfer(ea, eb, 5);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_migreq_bit),
	TEST_ENTRY(test_old_path_then_peer_retries),
};

TEST_MAIN("soft_apm", tests)
