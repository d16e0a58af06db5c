/*
 * ibal tests: the soft HCA's RC and UC transports between two CAs of one process.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The two CAs, their fixture and the waits for completions are
 * soft_ca_fixture.h's. Loss is injected with the fabric's drop filter
 * (down() removes it). Waits are bounded (TEST_WAIT_US), never sleeps.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "soft_ca_fixture.h"
#include "soft_rc.h"
#include "soft_ring.h"
#include "ring_fill_test.h"

/* --- Drop filter ------------------------------------------------------------ */

static struct {
	int mode;     /* 0 none, 1 all, 2 Nth data packet, 3 Nth read response, 4 nth% at random,
		       * 5 a read's response and request lost around an ACK (read_covered) */
	unsigned nth;         /* for mode 2, 1-based; for mode 5 the PSN */
	unsigned seen;        /* data packets seen (mode 2) */
	unsigned dropped;     /* packets dropped */
	unsigned m5_resp, m5_req, m5_acks; /* mode 5: packets of each kind seen */
} flt;

/* Mode 5: drops the first read response and the first read request of PSN
 * flt.nth, and the second plain ACK. (The fabric calls the filter under its
 * lock: one packet at a time.) */
static boolean_t drop_read_covered(uint8_t op, uint32_t psn)
{
	if ((op == SOFT_OP_READ_RESPONSE_FIRST || op == SOFT_OP_READ_RESPONSE_MIDDLE ||
	     op == SOFT_OP_READ_RESPONSE_LAST) && psn == flt.nth)
		return flt.m5_resp++ == 0;
	if (op == SOFT_OP_READ_REQUEST && psn == flt.nth)
		return flt.m5_req++ == 0;
	if (op == SOFT_OP_ACKNOWLEDGE)
		return ++flt.m5_acks == 2;
	return FALSE;
}

static boolean_t drop_fn(void *ctx, const void *pkt, size_t len)
{
	const uint8_t *bth = soft_pkt_bth(pkt);
	const soft_opcode_info_t *oi = soft_opcode_info(soft_bth_opcode(bth));

	(void)ctx;
	(void)len;
	if (flt.mode == 1) {
		flt.dropped++;
		return TRUE;
	}
	if (flt.mode == 2 && oi && (oi->flags & (SOFT_OPF_SEND | SOFT_OPF_WRITE)) &&
	    ++flt.seen == flt.nth) {
		flt.dropped++;
		return TRUE;
	}
	if (flt.mode == 4) {
		flt.seen = flt.seen * 1103515245u + 12345u;
		if ((flt.seen >> 16) % 100u < flt.nth) {
			flt.dropped++;
			return TRUE;
		}
		return FALSE;
	}
	if (flt.mode == 3 && oi && (oi->flags & SOFT_OPF_READ) && (oi->flags & SOFT_OPF_RESPONSE) &&
	    ++flt.seen == flt.nth) {
		flt.dropped++;
		return TRUE;
	}
	if (flt.mode == 5 && (soft_bth_opcode(bth) & SOFT_TRANSPORT_MASK) == SOFT_TRANSPORT_RC &&
	    drop_read_covered(soft_bth_opcode(bth) & 0x1F, soft_bth_psn(bth))) {
		flt.dropped++;
		return TRUE;
	}
	return FALSE;
}

static void set_drop(int mode, unsigned nth)
{
	soft_fabric_set_drop_filter(NULL, NULL);
	flt.mode = mode;
	flt.nth = nth;
	flt.seen = flt.dropped = 0;
	flt.m5_resp = flt.m5_req = flt.m5_acks = 0;
	soft_fabric_set_drop_filter(mode ? drop_fn : NULL, NULL);
}

/* Removes the filter and returns how many packets it dropped. */
static unsigned drops(void)
{
	soft_fabric_set_drop_filter(NULL, NULL);
	return flt.dropped;
}

#define BUF_LEN 32768
#define MTU 1024 /* IB_MTU_LEN_1024 */

/* One end of a connection. */
typedef struct end {
	int ci;
	void *scq, *rcq, *qp, *mr;
	net32_t lkey, rkey;
	uint32_t qpn;
	uint8_t *buf;
	char tag_s, tag_r;
} end_t;

/* Connection parameters. */
typedef struct conn_opts {
	ib_qp_type_t type;
	ib_access_t access;      /* QP remote access of both ends */
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t timeout;
	uint8_t min_rnr;
	uint32_t psn;
} conn_opts_t;

static const conn_opts_t rc_default = {
	IB_QPT_RELIABLE_CONN, IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC, 7, 7, 12, 1,
	0xFFFFF0u
};

/* sq_signaled of the QPs end_open() makes. */
static boolean_t end_signaled = TRUE;
/* SRQ the QPs end_open() makes receive from, or NULL. */
static void *end_srq;

static void end_open(end_t *e, int ci, ib_qp_type_t type, uint32_t sq_depth)
{
	ib_qp_create_t c;
	ib_mr_create_t mc;
	uint32_t size = 256;

	memset(e, 0, sizeof(*e));
	e->ci = ci;
	e->buf = calloc(1, BUF_LEN);
	CU_ASSERT_EQUAL(ops->create_cq(ca[ci], &size, &e->tag_s, &e->scq), IB_SUCCESS);
	size = 256;
	CU_ASSERT_EQUAL(ops->create_cq(ca[ci], &size, &e->tag_r, &e->rcq), IB_SUCCESS);
	memset(&c, 0, sizeof(c));
	c.qp_type = type;
	c.sq_depth = sq_depth;
	c.rq_depth = 64;
	c.sq_sge = 4;
	c.rq_sge = 4;
	c.sq_signaled = end_signaled;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[ci], &c, e->scq, e->rcq, end_srq, e, &e->qp),
			      IB_SUCCESS);
	e->qpn = ((soft_qp_t *)e->qp)->qpn;
	mc.vaddr = e->buf;
	mc.length = BUF_LEN;
	mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[ci], &mc, &e->lkey, &e->rkey, &e->mr), IB_SUCCESS);
}

static void end_close(end_t *e)
{
	CU_ASSERT_EQUAL(ops->dereg_mr(e->mr), IB_SUCCESS);
	ops->destroy_qp(e->qp);
	ops->destroy_cq(e->scq);
	ops->destroy_cq(e->rcq);
	free(e->buf);
}

/* Moves @p e to RTS connected to @p peer. */
static void connect_one(end_t *e, const end_t *peer, const conn_opts_t *o)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.access_ctrl = o->access;
	CU_ASSERT_EQUAL(ops->modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(o->psn);
	m.state.rtr.dest_qp = cl_hton32(peer->qpn);
	m.state.rtr.primary_av.port_num = 1;
	m.state.rtr.primary_av.dlid = cl_hton16(ca_lid(peer->ci));
	m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_1024;
	if (o->type == IB_QPT_RELIABLE_CONN) {
		m.state.rtr.resp_res = 4;
		m.state.rtr.rnr_nak_timeout = o->min_rnr;
	}
	CU_ASSERT_EQUAL(ops->modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(o->psn);
	if (o->type == IB_QPT_RELIABLE_CONN) {
		m.state.rts.retry_cnt = o->retry_cnt;
		m.state.rts.rnr_retry_cnt = o->rnr_retry;
		m.state.rts.local_ack_timeout = o->timeout;
		m.state.rts.init_depth = 4;
	}
	CU_ASSERT_EQUAL(ops->modify_qp(e->qp, &m), IB_SUCCESS);
}

static void pair_open(end_t *a, end_t *b, const conn_opts_t *o)
{
	end_open(a, 0, o->type, 64);
	end_open(b, 1, o->type, 64);
	connect_one(a, b, o);
	connect_one(b, a, o);
}

static void pair_close(end_t *a, end_t *b)
{
	end_close(a);
	end_close(b);
}

static ib_api_status_t post_recv(end_t *e, uint64_t wr_id, uint32_t off, uint32_t len)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(e->buf + off), len, e->lkey };
	ib_recv_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ops->post_recv(e->qp, &wr, NULL);
}

/* Posts one WR with one local segment. */
static ib_api_status_t post(end_t *e, ib_wr_type_t type, uint64_t wr_id, uint32_t off,
			    uint32_t len, ib_send_opt_t opt, uint64_t raddr, net32_t rkey)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(e->buf + off), len, e->lkey };
	ib_send_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.wr_type = type;
	wr.send_opt = opt;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.immediate_data = cl_hton32(0x12345678);
	wr.remote_ops.vaddr = raddr;
	wr.remote_ops.rkey = rkey;
	return ops->post_send(e->qp, &wr, NULL);
}

static uint64_t raddr(const end_t *e, uint32_t off)
{
	return (uint64_t)(uintptr_t)(e->buf + off);
}

static void fill(uint8_t *p, uint32_t n, unsigned seed)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 31 + seed);
}

/* Expects a completion with this id, status and (on success) type. */
static void expect(void *cq, uint64_t wr_id, ib_wc_status_t st, ib_wc_type_t type)
{
	ib_wc_t wc;

	CU_ASSERT_FATAL(wait_wc(cq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, wr_id);
	CU_ASSERT_EQUAL(wc.status, st);
	if (st == IB_WCS_SUCCESS)
		CU_ASSERT_EQUAL(wc.wc_type, type);
}

static ib_qp_state_t qp_state(void *qp)
{
	ib_qp_attr_t a;

	CU_ASSERT_EQUAL(ops->query_qp(qp, &a), IB_SUCCESS);
	return a.state;
}

/* Transmitted packet count of a CA's port. */
static uint64_t tx_count(int ci)
{
	soft_fabric_stats_t s;

	soft_fabric_port_stats(((soft_ca_t *)ca[ci])->port[0].fp, &s);
	return s.tx_packets;
}

/* Waits (bounded, yielding) until a CA's port has sent @p n packets. */
static int wait_tx(int ci, uint64_t n)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;

	while (tx_count(ci) < n)
		if (test_now_ms() > end)
			return 0;
		else
			sched_yield();
	return 1;
}

/* --- Tests ----------------------------------------------------------------- */

static void test_rc_send_recv(void)
{
	end_t a, b;
	ib_wc_t wc;
	const uint32_t big = 3 * MTU + 17;

	up();
	pair_open(&a, &b, &rc_default);
	fill(a.buf, big, 1);
	CU_ASSERT_EQUAL(post_recv(&b, 11, 0, 100), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_recv(&b, 12, 4096, 8192), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 100, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 0, big, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 11);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV);
	CU_ASSERT_EQUAL(wc.length, 100);
	CU_ASSERT_EQUAL(wc.recv.conn.recv_opt, 0);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 12);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.length, big);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, 100), 0);
	CU_ASSERT_EQUAL(memcmp(b.buf + 4096, a.buf, big), 0);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_SEND);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT(cq_empty(a.scq));
	/* a receive buffer too small: local length error at b, invalid request at a */
	CU_ASSERT_EQUAL(post_recv(&b, 13, 0, 10), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_recv(&b, 14, 0, 10), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 3, 0, 100, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 4, 0, 1, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 3, IB_WCS_REM_INVALID_REQ_ERR, IB_WC_SEND);
	expect(a.scq, 4, IB_WCS_WR_FLUSHED_ERR, IB_WC_SEND);
	expect(b.rcq, 13, IB_WCS_LOCAL_LEN_ERR, IB_WC_RECV);
	expect(b.rcq, 14, IB_WCS_WR_FLUSHED_ERR, IB_WC_RECV);
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_ERROR);
	pair_close(&a, &b);
	down();
}

static void test_rc_send_imm_solicited(void)
{
	end_t a, b;
	ib_wc_t wc;
	unsigned w0;

	up();
	pair_open(&a, &b, &rc_default);
	fill(a.buf, 64, 2);
	CU_ASSERT_EQUAL(post_recv(&b, 21, 0, 4096), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_recv(&b, 22, 0, 4096), IB_SUCCESS);
	w0 = rec_comps(&b.tag_r);
	CU_ASSERT_EQUAL(ops->rearm_cq(b.rcq, TRUE), IB_SUCCESS);
	/* not solicited: no upcall on a CQ armed for solicited completions */
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 64, IB_SEND_OPT_IMMEDIATE, 0, 0), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT_EQUAL(rec_comps(&b.tag_r), w0);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 0, 2 * MTU, IB_SEND_OPT_SOLICITED, 0, 0),
			IB_SUCCESS);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT_EQUAL(rec_wait_comps(&b.tag_r, w0 + 1), w0 + 1);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 21);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.length, 64);
	CU_ASSERT_EQUAL(wc.recv.conn.recv_opt, IB_RECV_OPT_IMMEDIATE);
	CU_ASSERT_EQUAL(wc.recv.conn.immediate_data, cl_hton32(0x12345678));
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 22);
	CU_ASSERT_EQUAL(wc.length, 2 * MTU);
	CU_ASSERT_EQUAL(wc.recv.conn.recv_opt, 0);
	pair_close(&a, &b);
	down();
}

static void test_rc_write_read(void)
{
	end_t a, b;
	ib_wc_t wc;
	const uint32_t big = 3 * MTU + 17;

	up();
	pair_open(&a, &b, &rc_default);
	fill(a.buf, big, 3);
	fill(b.buf + 16384, big, 4);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 1, 0, big, 0, raddr(&b, 100), b.rkey),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 2, 8192, big, 0, raddr(&b, 16384), b.rkey),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 3, 0, 0, 0, raddr(&b, 0), b.rkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 4, 0, 0, 0, raddr(&b, 0), b.rkey), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	CU_ASSERT_FATAL(wait_wc(a.scq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 2);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RDMA_READ);
	CU_ASSERT_EQUAL(wc.length, big);
	expect(a.scq, 3, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	expect(a.scq, 4, IB_WCS_SUCCESS, IB_WC_RDMA_READ);
	CU_ASSERT_EQUAL(memcmp(b.buf + 100, a.buf, big), 0);
	CU_ASSERT_EQUAL(memcmp(a.buf + 8192, b.buf + 16384, big), 0);
	CU_ASSERT(cq_empty(b.rcq));
	/* write with immediate consumes a receive */
	CU_ASSERT_EQUAL(post_recv(&b, 31, 0, 16), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 5, 0, 2 * MTU + 5, IB_SEND_OPT_IMMEDIATE,
			     raddr(&b, 20000), b.rkey),
			IB_SUCCESS);
	expect(a.scq, 5, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 31);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV_RDMA_WRITE);
	CU_ASSERT_EQUAL(wc.length, 2 * MTU + 5);
	CU_ASSERT_EQUAL(wc.recv.conn.recv_opt, IB_RECV_OPT_IMMEDIATE);
	CU_ASSERT_EQUAL(wc.recv.conn.immediate_data, cl_hton32(0x12345678));
	CU_ASSERT_EQUAL(memcmp(b.buf + 20000, a.buf, 2 * MTU + 5), 0);
	pair_close(&a, &b);
	down();
}

/*
 * The responder's table of executed reads and atomics is made at the QP's
 * first one, not with the QP: a connection that never takes a read does
 * not carry it. Without memory for it the read is dropped unexecuted (the
 * requester sends it again), and the next one is answered.
 */
static void test_rc_read_table_on_demand(void)
{
	end_t a, b;
	soft_qp_t *bq;
	soft_rc_t *rc;
	soft_pkt_t pkt;
	uint32_t epsn;

	up();
	pair_open(&a, &b, &rc_default);
	bq = (soft_qp_t *)b.qp;
	rc = (soft_rc_t *)bq->rc;
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	CU_ASSERT_PTR_NULL(rc->rd);
	CU_ASSERT_PTR_NULL(((soft_rc_t *)((soft_qp_t *)a.qp)->rc)->rd);
	/* A's send queue carries no data yet: B gets no other packet meanwhile. */
	memset(&pkt, 0, sizeof(pkt));
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_READ_REQUEST);
	soft_rwlock_read(&bq->ca->tab_lock);
	soft_lock(&rc->lock);
	epsn = rc->epsn;
	pkt.bth.psn = epsn;
	pkt.reth.va = raddr(&b, 0);
	pkt.reth.rkey = cl_ntoh32(b.rkey);
	pkt.reth.dma_len = 16;
	__cl_mem_fail_nth(1);
	soft_rc_resp_recv(rc, &pkt);
	CU_ASSERT_TRUE(__cl_mem_fail_nth(0)); /* the table's allocation was made, and failed */
	CU_ASSERT_PTR_NULL(rc->rd);
	CU_ASSERT_EQUAL(rc->epsn, epsn);       /* not executed: its PSN is expected again */
	soft_unlock(&rc->lock);
	soft_rwlock_read_end(&bq->ca->tab_lock);
	/* The read A posts now (that PSN) is answered, the table made. */
	fill(b.buf, 64, 5);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 1, 4096, 64, 0, raddr(&b, 0), b.rkey), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_RDMA_READ);
	CU_ASSERT_EQUAL(memcmp(a.buf + 4096, b.buf, 64), 0);
	CU_ASSERT_PTR_NOT_NULL(rc->rd);
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_RTS);
	pair_close(&a, &b);
	down();
}

static void post_atomic(end_t *a, ib_wr_type_t t, uint64_t wr_id, uint32_t loff, uint64_t ra,
			net32_t rkey, uint64_t op1, uint64_t op2)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(a->buf + loff), 8, a->lkey };
	ib_send_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.wr_type = t;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.remote_ops.vaddr = ra;
	wr.remote_ops.rkey = rkey;
	wr.remote_ops.atomic1 = cl_hton64(op1);
	wr.remote_ops.atomic2 = cl_hton64(op2);
	CU_ASSERT_EQUAL(ops->post_send(a->qp, &wr, NULL), IB_SUCCESS);
}

static void test_rc_atomics(void)
{
	end_t a, b;
	uint64_t *target, *res;
	ib_send_wr_t wr;

	up();
	pair_open(&a, &b, &rc_default);
	target = (uint64_t *)(b.buf + 64);
	res = (uint64_t *)(a.buf + 128);
	*target = 100;
	post_atomic(&a, WR_COMPARE_SWAP, 1, 128, raddr(&b, 64), b.rkey, 100, 555);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_COMPARE_SWAP);
	CU_ASSERT_EQUAL(res[0], 100);
	CU_ASSERT_EQUAL(*target, 555);
	post_atomic(&a, WR_COMPARE_SWAP, 2, 136, raddr(&b, 64), b.rkey, 100, 777);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_COMPARE_SWAP);
	CU_ASSERT_EQUAL(res[1], 555);
	CU_ASSERT_EQUAL(*target, 555);
	post_atomic(&a, WR_FETCH_ADD, 3, 144, raddr(&b, 64), b.rkey, 45, 0);
	post_atomic(&a, WR_FETCH_ADD, 4, 152, raddr(&b, 64), b.rkey, 1000, 0);
	expect(a.scq, 3, IB_WCS_SUCCESS, IB_WC_FETCH_ADD);
	expect(a.scq, 4, IB_WCS_SUCCESS, IB_WC_FETCH_ADD);
	CU_ASSERT_EQUAL(res[2], 555);
	CU_ASSERT_EQUAL(res[3], 600);
	CU_ASSERT_EQUAL(*target, 1600);
	/* misaligned remote address, wrong local length: rejected at post */
	memset(&wr, 0, sizeof(wr));
	wr.wr_type = WR_FETCH_ADD;
	wr.remote_ops.vaddr = raddr(&b, 65);
	CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, NULL), IB_INVALID_PARAMETER);
	/* many fetch-adds in flight, from both sides, land atomically */
	{
		int i;

		*target = 0;
		for (i = 0; i < 40; i++)
			post_atomic(&a, WR_FETCH_ADD, 100 + i, 256 + 8 * i, raddr(&b, 64), b.rkey,
				    1, 0);
		for (i = 0; i < 40; i++)
			expect(a.scq, 100 + i, IB_WCS_SUCCESS, IB_WC_FETCH_ADD);
		CU_ASSERT_EQUAL(__atomic_load_n(target, __ATOMIC_SEQ_CST), 40);
	}
	pair_close(&a, &b);
	down();
}

/* One access error case: WR 1 fails with REM_ACCESS_ERR, WR 2 is flushed. */
static void access_case(ib_wr_type_t t, int which)
{
	end_t a, b;
	net32_t rkey;
	uint64_t ra;
	void *mr2 = NULL;
	ib_mr_create_t mc;
	net32_t lk2, rk2;

	up();
	pair_open(&a, &b, &rc_default);
	rkey = b.rkey;
	ra = raddr(&b, 0);
	if (which == 0)
		rkey ^= CL_HTON32(0x100);                   /* bad R_Key */
	else if (which == 1)
		ra = raddr(&b, BUF_LEN - 8);                 /* out of bounds */
	else {
		mc.vaddr = b.buf;                            /* MR without remote rights */
		mc.length = 4096;
		mc.access_ctrl = IB_AC_LOCAL_WRITE;
		CU_ASSERT_EQUAL(ops->reg_mem(pd[1], &mc, &lk2, &rk2, &mr2), IB_SUCCESS);
		rkey = rk2;
	}
	CU_ASSERT_EQUAL(post(&a, t, 1, 0, 100, 0, ra, rkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 0, 10, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_REM_ACCESS_ERR, IB_WC_SEND);
	expect(a.scq, 2, IB_WCS_WR_FLUSHED_ERR, IB_WC_SEND);
	CU_ASSERT(cq_empty(a.scq));
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_ERROR);
	/* posting in ERROR completes flushed */
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 3, 0, 10, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 3, IB_WCS_WR_FLUSHED_ERR, IB_WC_SEND);
	if (mr2)
		CU_ASSERT_EQUAL(ops->dereg_mr(mr2), IB_SUCCESS);
	pair_close(&a, &b);
	down();
}

static void test_rc_access_errors(void)
{
	access_case(WR_RDMA_WRITE, 0);
	access_case(WR_RDMA_WRITE, 1);
	access_case(WR_RDMA_WRITE, 2);
	access_case(WR_RDMA_READ, 0);
	access_case(WR_RDMA_READ, 1);
	access_case(WR_RDMA_READ, 2);
}

static void test_rc_no_qp_access(void)
{
	end_t a, b;
	conn_opts_t o = rc_default;

	o.access = IB_AC_RDMA_READ; /* the QPs allow no remote writes */
	up();
	pair_open(&a, &b, &o);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 1, 0, 100, 0, raddr(&b, 0), b.rkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 2, 0, 100, 0, raddr(&b, 0), b.rkey),
			IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_RDMA_READ);
	/* An operation the QP does not enable: NAK Invalid Request (not
	 * supported by this receive queue), not a remote access error. */
	expect(a.scq, 2, IB_WCS_REM_INVALID_REQ_ERR, IB_WC_RDMA_WRITE);
	pair_close(&a, &b);
	down();
}

static void test_rc_rnr(void)
{
	end_t a, b;
	conn_opts_t o = rc_default;
	ib_wc_t wc;
	uint64_t b_tx;

	up();
	pair_open(&a, &b, &o);
	fill(a.buf, 2000, 5);
	b_tx = tx_count(1);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 2000, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT(wait_tx(1, b_tx + 1)); /* b answered with an RNR NAK */
	CU_ASSERT(cq_empty(a.scq));
	CU_ASSERT_EQUAL(post_recv(&b, 41, 0, 4096), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 41);
	CU_ASSERT_EQUAL(wc.length, 2000);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, 2000), 0);
	pair_close(&a, &b);
	down();
}

static void rnr_exhaust(uint8_t rnr_retry)
{
	end_t a, b;
	conn_opts_t o = rc_default;

	o.rnr_retry = rnr_retry;
	up();
	pair_open(&a, &b, &o);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 10, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 2, 0, 10, 0, raddr(&b, 0), b.rkey), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_RNR_RETRY_ERR, IB_WC_SEND);
	expect(a.scq, 2, IB_WCS_WR_FLUSHED_ERR, IB_WC_SEND);
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_ERROR);
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_RTS); /* an RNR NAK is no error there */
	pair_close(&a, &b);
	down();
}

static void test_rc_rnr_exhaust(void)
{
	rnr_exhaust(0);
	rnr_exhaust(1);
}

static void test_rc_retry_exhaust(void)
{
	end_t a, b;
	conn_opts_t o = rc_default;
	ib_local_ds_t ds[2];
	ib_send_wr_t wr[2];
	uint64_t t0;

	o.retry_cnt = 2;
	o.timeout = 10; /* 4 ms: the floor applies */
	up();
	pair_open(&a, &b, &o);
	set_drop(1, 0);
	/* The send and the read in one post: two posts let a slow run (valgrind)
	 * time out between them, and the first transmission holds the send only. */
	memset(wr, 0, sizeof(wr));
	ds[0].vaddr = ds[1].vaddr = (uint64_t)(uintptr_t)a.buf;
	ds[0].lkey = ds[1].lkey = a.lkey;
	ds[0].length = 3 * MTU;
	ds[1].length = 10;
	wr[0].p_next = &wr[1];
	wr[0].wr_id = 1;
	wr[0].wr_type = WR_SEND;
	wr[0].num_ds = 1;
	wr[0].ds_array = &ds[0];
	wr[1].wr_id = 2;
	wr[1].wr_type = WR_RDMA_READ;
	wr[1].num_ds = 1;
	wr[1].ds_array = &ds[1];
	wr[1].remote_ops.vaddr = raddr(&b, 0);
	wr[1].remote_ops.rkey = b.rkey;
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(ops->post_send(a.qp, wr, NULL), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_TIMEOUT_RETRY_ERR, IB_WC_SEND);
	expect(a.scq, 2, IB_WCS_WR_FLUSHED_ERR, IB_WC_SEND);
	CU_ASSERT(test_now_ms() - t0 >= 3 * 8); /* three timeouts of at least 8 ms */
	/* the first transmission and two retries, 4 packets each */
	CU_ASSERT_EQUAL(drops(), 12);
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_ERROR);
	set_drop(0, 0);
	pair_close(&a, &b);
	down();
}

/*
 * A responder takes packets from its path's remote port only (issue 18): b
 * is connected to c on its own CA; x on the other CA aims at b's QPN with
 * b's R_Key. x's RDMA WRITE is dropped unanswered (x's retries run out) and
 * b's memory is unchanged; c's WRITE through the same QP lands.
 */
static void test_rc_foreign_source(void)
{
	end_t b, c, x;
	conn_opts_t o = rc_default;
	uint8_t before[64];

	o.retry_cnt = 1;
	o.timeout = 10;
	up();
	end_open(&b, 1, o.type, 64);
	end_open(&c, 1, o.type, 64);
	end_open(&x, 0, o.type, 64);
	connect_one(&b, &c, &o);
	connect_one(&c, &b, &o);
	connect_one(&x, &b, &o);
	fill(x.buf, sizeof(before), 7);
	fill(b.buf, sizeof(before), 8);
	memcpy(before, b.buf, sizeof(before));
	CU_ASSERT_EQUAL(post(&x, WR_RDMA_WRITE, 1, 0, sizeof(before), 0, raddr(&b, 0), b.rkey),
			IB_SUCCESS);
	expect(x.scq, 1, IB_WCS_TIMEOUT_RETRY_ERR, IB_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(memcmp(b.buf, before, sizeof(before)), 0);
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_RTS);
	fill(c.buf, sizeof(before), 9);
	CU_ASSERT_EQUAL(post(&c, WR_RDMA_WRITE, 2, 0, sizeof(before), 0, raddr(&b, 0), b.rkey),
			IB_SUCCESS);
	expect(c.scq, 2, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(memcmp(b.buf, c.buf, sizeof(before)), 0);
	end_close(&x);
	end_close(&c);
	end_close(&b);
	down();
}

static void drop_one(ib_wr_type_t t, unsigned nth)
{
	end_t a, b;
	ib_wc_t wc;
	const uint32_t big = 4 * MTU + 3;

	up();
	pair_open(&a, &b, &rc_default);
	fill(a.buf, big, 6 + nth);
	set_drop(2, nth);
	if (t == WR_SEND)
		CU_ASSERT_EQUAL(post_recv(&b, 51, 0, 8192), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, t, 1, 0, big, 0, raddr(&b, 0), b.rkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 2, 0, 100, 0, raddr(&b, 9000), b.rkey),
			IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, t == WR_SEND ? IB_WC_SEND : IB_WC_RDMA_WRITE);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	CU_ASSERT_EQUAL(drops(), 1);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, big), 0);
	CU_ASSERT_EQUAL(memcmp(b.buf + 9000, a.buf, 100), 0);
	if (t == WR_SEND) {
		CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 51);
		CU_ASSERT_EQUAL(wc.length, big);
		CU_ASSERT(cq_empty(b.rcq));
	}
	set_drop(0, 0);
	pair_close(&a, &b);
	down();
}

/* Fills CA @p to's ring from CA @p from's port (ring_fill_test.h). */
static void fill_ring_of(int from, int to)
{
	fill_ring_at(((soft_ca_t *)ca[from])->port[0].fp, ca_lid(from), ca_lid(to));
}

/*
 * A requester whose packet finds the responder's ring full holds it and
 * sends it when there is room (SOFT_FABRIC_TELL_FULL), as a packet waits for
 * link credits, instead of losing it and waiting out a retransmission
 * timeout (@p full_ci 1: with the timeout infinite, 0, a lost request would
 * never be sent again, so the send completes only because it was held). A
 * responder whose ACK finds the requester's ring full keeps it due as a
 * coalesced ACK (@p full_ci 0) and sends it once the ring drains.
 */
static void held_at_full_ring(int full_ci)
{
	end_t a, b;
	conn_opts_t o = rc_default;
	soft_ca_t *cf;
	soft_rc_t *rc;
	boolean_t held;

	o.timeout = 0;
	up();
	pair_open(&a, &b, &o);
	cf = (soft_ca_t *)ca[full_ci];
	CU_ASSERT_EQUAL(post_recv(&b, 1, 0, 256), IB_SUCCESS);
	/* That CA stops taking packets while the test holds its lock. */
	soft_lock(&cf->rx_lock);
	fill_ring_of(1 - full_ci, full_ci);
	fill(a.buf, 64, 3);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 7, 0, 64, IB_SEND_OPT_SIGNALED, 0, 0), IB_SUCCESS);
	if (full_ci == 0)
		expect(b.rcq, 1, IB_WCS_SUCCESS, IB_WC_RECV);   /* its ACK cannot go */
	rc = ((soft_qp_t *)(full_ci ? a.qp : b.qp))->rc;
	soft_lock(&rc->lock);
	held = full_ci ? rc->tx_held : rc->ack_due;
	soft_unlock(&rc->lock);
	CU_ASSERT_TRUE(held);
	soft_unlock(&cf->rx_lock);
	if (full_ci)
		expect(b.rcq, 1, IB_WCS_SUCCESS, IB_WC_RECV);
	expect(a.scq, 7, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT(!memcmp(b.buf, a.buf, 64));
	pair_close(&a, &b);
	down();
}

static void test_rc_held_at_full_ring(void)
{
	held_at_full_ring(1);   /* the request */
	held_at_full_ring(0);   /* the ACK */
}

static void test_rc_drop_one(void)
{
	drop_one(WR_SEND, 2);
	drop_one(WR_RDMA_WRITE, 2);
	drop_one(WR_SEND, 5); /* the last packet: recovered by the timer */
	drop_one(WR_SEND, 6); /* the next message's only packet */
}

static void test_rc_read_lost_response(void)
{
	end_t a, b;
	const uint32_t big = 4 * MTU + 17;

	up();
	pair_open(&a, &b, &rc_default);
	fill(b.buf, big, 9);
	set_drop(3, 2); /* the 2nd read response packet */
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 1, 8192, big, 0, raddr(&b, 0), b.rkey),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 0, 8, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_recv(&b, 81, 20000, 4096), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_RDMA_READ);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT_EQUAL(drops(), 1);
	CU_ASSERT_EQUAL(memcmp(a.buf + 8192, b.buf, big), 0);
	pair_close(&a, &b);
	down();
}

/*
 * An ACK that covers a read whose responses were lost (test_rc_lossy failed
 * once this way): read R (3 response packets), send S and, with
 * @p read_after, a one-packet read R2. R's second response is lost; the
 * ACK of S tells the requester that R's responses were lost, and it asks
 * again from the missing packet, but that request is lost too (and the
 * ACK the repeated S draws). The window base must stay at R's missing
 * response, so that the timer goes back to R: not past it to R2 (whose
 * repeated responses the requester ignores while R waits: its retries ran
 * out), nor stopped because everything looked acknowledged (a hang).
 */
static void read_covered(boolean_t read_after)
{
	end_t a, b;
	conn_opts_t o = rc_default;
	ib_wc_t wc;
	const uint32_t rlen = 2 * MTU + 9;

	/* 67 ms, so that R's responses come before a timeout even under valgrind
	 * and the losses fall as described (a slower path must pass too). */
	o.timeout = 14;
	up();
	pair_open(&a, &b, &o);
	fill(b.buf + 8192, rlen, 21);
	fill(b.buf + 100, 16, 22);
	fill(a.buf, 8, 23);
	CU_ASSERT_EQUAL(post_recv(&b, 91, 20000, 256), IB_SUCCESS);
	set_drop(5, soft_psn_add(o.psn, 1)); /* R's second response */
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 1, 12288, rlen, 0, raddr(&b, 8192), b.rkey),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 0, 8, 0, 0, 0), IB_SUCCESS);
	if (read_after)
		CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 3, 16000, 16, 0, raddr(&b, 100), b.rkey),
				IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_RDMA_READ);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_SEND);
	if (read_after)
		expect(a.scq, 3, IB_WCS_SUCCESS, IB_WC_RDMA_READ);
	/* R's second response was lost and sent again. (Which requests and ACKs
	 * went and were lost depends on the timer where a run is slow.) */
	CU_ASSERT(drops() >= 1);
	CU_ASSERT(flt.m5_resp >= 2);
	CU_ASSERT_EQUAL(memcmp(a.buf + 12288, b.buf + 8192, rlen), 0);
	if (read_after)
		CU_ASSERT_EQUAL(memcmp(a.buf + 16000, b.buf + 100, 16), 0);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 91);
	CU_ASSERT_EQUAL(wc.length, 8);
	CU_ASSERT(cq_empty(b.rcq));
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_RTS);
	pair_close(&a, &b);
	down();
}

static void test_rc_read_covered_by_ack(void)
{
	read_covered(TRUE);
	read_covered(FALSE);
}

static void test_rc_ordering(void)
{
	end_t a, b;
	ib_wc_t wc;
	ib_send_opt_t opt;
	int i, n_sig = 0;
	uint64_t expect_id[64];

	up();
	end_signaled = FALSE;
	pair_open(&a, &b, &rc_default);
	end_signaled = TRUE;
	fill(a.buf, 4096, 10);
	for (i = 0; i < 60; i++)
		CU_ASSERT_EQUAL(post_recv(&b, 1000 + i, 8192 + 64 * i, 64), IB_SUCCESS);
	for (i = 0; i < 60; i++) {
		opt = (i % 3 == 2 || i == 59) ? IB_SEND_OPT_SIGNALED : 0;
		if (i % 7 == 3)
			opt |= IB_SEND_OPT_FENCE;
		if (opt & IB_SEND_OPT_SIGNALED)
			expect_id[n_sig++] = (uint64_t)i;
		switch (i % 3) {
		case 0:
			CU_ASSERT_EQUAL(post(&a, WR_SEND, i, (uint32_t)i, 64, opt, 0, 0), IB_SUCCESS);
			break;
		case 1:
			CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, i, (uint32_t)i, 2 * MTU, opt,
					     raddr(&b, 20000), b.rkey),
					IB_SUCCESS);
			break;
		default:
			CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, i, 4096 + (uint32_t)i, 16, opt,
					     raddr(&b, 20000), b.rkey),
					IB_SUCCESS);
			break;
		}
	}
	for (i = 0; i < n_sig; i++) {
		CU_ASSERT_FATAL(wait_wc(a.scq, NULL, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, expect_id[i]);
		CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	}
	CU_ASSERT(cq_empty(a.scq));
	for (i = 0; i < 20; i++) {
		CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 1000 + (uint64_t)i);
		CU_ASSERT_EQUAL(memcmp(b.buf + 8192 + 64 * i, a.buf + 3 * i, 64), 0);
	}
	pair_close(&a, &b);
	down();
}

/*
 * A send queue whose depth is not a power of two, its sequence numbers
 * wrapping past 2^32 with requests in flight: every request keeps its own
 * slot (a slot that was seq % depth jumped back to 0 at the wrap and took
 * an earlier request's place). Five rounds of five sends, the first starting
 * three short of the wrap; each message must arrive in order with its own
 * bytes and complete with its own id.
 */
static void test_rc_sq_wrap(void)
{
	const uint32_t depth = 5;
	end_t a, b;
	ib_wc_t wc;
	soft_rc_t *rc;
	uint32_t r, i, id;

	up();
	end_open(&a, 0, IB_QPT_RELIABLE_CONN, depth);
	end_open(&b, 1, IB_QPT_RELIABLE_CONN, 64);
	connect_one(&a, &b, &rc_default);
	connect_one(&b, &a, &rc_default);
	rc = ((soft_qp_t *)a.qp)->rc;
	CU_ASSERT_FATAL(rc != NULL);
	soft_lock(&rc->lock);
	CU_ASSERT(rc->head == rc->tail);
	rc->head = rc->tx = rc->tail = 0u - 3u;
	soft_unlock(&rc->lock);
	fill(a.buf, 4096, 21);
	for (r = 0; r < 5; r++) {
		for (i = 0; i < depth; i++) {
			id = r * depth + i;
			CU_ASSERT_EQUAL(post_recv(&b, 100 + id, 8192 + 64 * id, 64), IB_SUCCESS);
		}
		for (i = 0; i < depth; i++) {
			id = r * depth + i;
			CU_ASSERT_EQUAL(post(&a, WR_SEND, id, 7 * id, 32, 0, 0, 0), IB_SUCCESS);
		}
		for (i = 0; i < depth; i++) {
			id = r * depth + i;
			expect(a.scq, id, IB_WCS_SUCCESS, IB_WC_SEND);
			CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
			CU_ASSERT_EQUAL(wc.wr_id, 100 + (uint64_t)id);
			CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
			CU_ASSERT_EQUAL(wc.length, 32);
			CU_ASSERT_EQUAL(memcmp(b.buf + 8192 + 64 * id, a.buf + 7 * id, 32), 0);
		}
	}
	CU_ASSERT(cq_empty(a.scq));
	pair_close(&a, &b);
	down();
}

static void test_rc_modify_error_flush(void)
{
	end_t a, b;
	ib_qp_mod_t m;
	int i;

	up();
	pair_open(&a, &b, &rc_default);
	set_drop(1, 0);
	for (i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(post(&a, WR_SEND, i, 0, 10, 0, 0, 0), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_ERROR;
	CU_ASSERT_EQUAL(ops->modify_qp(a.qp, &m), IB_SUCCESS);
	for (i = 0; i < 5; i++)
		expect(a.scq, (uint64_t)i, IB_WCS_WR_FLUSHED_ERR, IB_WC_SEND);
	CU_ASSERT(cq_empty(a.scq));
	set_drop(0, 0);
	pair_close(&a, &b);
	down();
}

static void test_uc(void)
{
	end_t a, b;
	conn_opts_t o = rc_default;
	ib_wc_t wc;
	const uint32_t big = 3 * MTU + 17;

	o.type = IB_QPT_UNRELIABLE_CONN;
	o.access = IB_AC_RDMA_WRITE;
	up();
	pair_open(&a, &b, &o);
	fill(a.buf, big, 11);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, 9, 0, 8, 0, raddr(&b, 0), b.rkey),
			IB_INVALID_WR_TYPE);
	CU_ASSERT_EQUAL(post_recv(&b, 61, 0, 8192), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, big, IB_SEND_OPT_IMMEDIATE, 0, 0), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 61);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.length, big);
	CU_ASSERT_EQUAL(wc.recv.conn.recv_opt, IB_RECV_OPT_IMMEDIATE);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, big), 0);
	/* write, then a write with immediate to show it landed */
	CU_ASSERT_EQUAL(post_recv(&b, 62, 0, 8), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 2, 0, big, 0, raddr(&b, 10000), b.rkey),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, 3, 0, 4, IB_SEND_OPT_IMMEDIATE,
			     raddr(&b, 20000), b.rkey),
			IB_SUCCESS);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	expect(a.scq, 3, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 62);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV_RDMA_WRITE);
	CU_ASSERT_EQUAL(memcmp(b.buf + 10000, a.buf, big), 0);
	/* a lost middle packet drops the message; the WQE serves the next one */
	CU_ASSERT_EQUAL(post_recv(&b, 63, 0, 8192), IB_SUCCESS);
	set_drop(2, 2);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 4, 0, big, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 4, IB_WCS_SUCCESS, IB_WC_SEND);
	set_drop(0, 0);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 5, 100, 50, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 5, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 63);
	CU_ASSERT_EQUAL(wc.length, 50);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf + 100, 50), 0);
	CU_ASSERT(cq_empty(b.rcq));
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_RTS);
	pair_close(&a, &b);
	down();
}

static void test_rc_post_checks(void)
{
	end_t a, b;
	ib_send_wr_t wr;
	ib_local_ds_t ds[8];
	uint8_t inl[300];

	up();
	end_open(&a, 0, IB_QPT_RELIABLE_CONN, 4);
	end_open(&b, 1, IB_QPT_RELIABLE_CONN, 4);
	memset(&wr, 0, sizeof(wr));
	CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, NULL), IB_INVALID_QP_STATE);
	connect_one(&a, &b, &rc_default);
	connect_one(&b, &a, &rc_default);
	wr.wr_type = WR_NOP;
	CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, NULL), IB_INVALID_WR_TYPE);
	wr.wr_type = WR_SEND;
	wr.num_ds = 8;
	wr.ds_array = ds;
	memset(ds, 0, sizeof(ds));
	CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, NULL), IB_INVALID_MAX_SGE);
	wr.num_ds = 1;
	ds[0].vaddr = (uintptr_t)inl;
	ds[0].length = sizeof(inl);
	wr.send_opt = IB_SEND_OPT_INLINE;
	CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, NULL), IB_INVALID_PARAMETER);
	/* inline data needs no key and is copied at post time */
	ds[0].length = 200;
	memset(inl, 0x5A, sizeof(inl));
	CU_ASSERT_EQUAL(post_recv(&b, 71, 0, 4096), IB_SUCCESS);
	wr.wr_id = 7;
	CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, NULL), IB_SUCCESS);
	memset(inl, 0, sizeof(inl));
	expect(a.scq, 7, IB_WCS_SUCCESS, IB_WC_SEND);
	expect(b.rcq, 71, IB_WCS_SUCCESS, IB_WC_RECV);
	CU_ASSERT_EQUAL(b.buf[0], 0x5A);
	CU_ASSERT_EQUAL(b.buf[199], 0x5A);
	/* a full ring refuses the WR */
	set_drop(1, 0);
	{
		int i;
		ib_send_wr_t *bad = NULL;

		for (i = 0; i < 4; i++)
			CU_ASSERT_EQUAL(post(&a, WR_SEND, 10 + i, 0, 1, 0, 0, 0), IB_SUCCESS);
		wr.send_opt = 0;
		wr.ds_array = NULL;
		wr.num_ds = 0;
		CU_ASSERT_EQUAL(ops->post_send(a.qp, &wr, &bad), IB_INSUFFICIENT_RESOURCES);
		CU_ASSERT_PTR_EQUAL(bad, &wr);
	}
	set_drop(0, 0);
	pair_close(&a, &b);
	down();
}

static void test_rc_srq(void)
{
	end_t a, b;
	ib_srq_attr_t sa = { 16, 1, 0 };
	void *srq = NULL;
	ib_local_ds_t ds;
	ib_recv_wr_t wr;
	ib_wc_t wc;
	char tag;
	int i;

	up();
	end_open(&a, 0, IB_QPT_RELIABLE_CONN, 16);
	CU_ASSERT_EQUAL_FATAL(ops->create_srq(pd[1], &sa, &tag, &srq), IB_SUCCESS);
	end_srq = srq;
	end_open(&b, 1, IB_QPT_RELIABLE_CONN, 16);
	end_srq = NULL;
	connect_one(&a, &b, &rc_default);
	connect_one(&b, &a, &rc_default);
	fill(a.buf, 3000, 12);
	for (i = 0; i < 2; i++) {
		ds.vaddr = (uintptr_t)(b.buf + 4096 * i);
		ds.length = 4096;
		ds.lkey = b.lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 90 + i;
		wr.num_ds = 1;
		wr.ds_array = &ds;
		CU_ASSERT_EQUAL(ops->post_srq_recv(srq, &wr, NULL), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 3000, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 1, 2999, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_SEND);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_SEND);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 90 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc.length, 3000u - (uint32_t)i);
		CU_ASSERT_EQUAL(memcmp(b.buf + 4096 * i, a.buf + i, 3000 - i), 0);
	}
	pair_close(&a, &b);
	ops->destroy_srq(srq);
	down();
}

/* Checks the completion of mixed-traffic WR @p i; on a failure, says what
 * completed instead (a rare failure must tell what it was). */
static void lossy_check(end_t *a, int i)
{
	static const char *const kind[] = { "send", "write", "read", "fetch&add" };
	ib_wc_t wc;

	if (!wait_wc(a->scq, NULL, &wc)) {
		fprintf(stderr, "lossy: no completion for WR %d (%s) in time, %u packets dropped\n",
			i, kind[i % 4], flt.dropped);
		CU_FAIL_FATAL("a send completion did not come");
	}
	if (wc.wr_id != (uint64_t)i || wc.status != IB_WCS_SUCCESS)
		fprintf(stderr,
			"lossy: WR %d (%s) expected; completion wr_id %llu type %d status %s "
			"vendor 0x%llx; %u packets dropped, QP state %d (IBAL_LOG_LEVEL=debug "
			"IBAL_LOG_SUBSYS=soft shows the retries)\n",
			i, kind[i % 4], (unsigned long long)wc.wr_id, (int)wc.wc_type,
			ib_get_wc_status_str(wc.status), (unsigned long long)wc.vendor_specific,
			flt.dropped, (int)qp_state(a->qp));
	CU_ASSERT_EQUAL(wc.wr_id, (uint64_t)i);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	if (i % 4 == 3)
		CU_ASSERT_EQUAL(*(uint64_t *)(a->buf + 20000 + 8 * (i / 4)), (uint64_t)(i / 4));
}

/* Mixed traffic under random loss of 4% of all packets: all completes, in order. */
static void test_rc_lossy(void)
{
	end_t a, b;
	conn_opts_t o = rc_default;
	ib_wc_t wc;
	uint64_t *ctr;
	int i;
	const int n = 80, window = 32;

	o.timeout = 14; /* 67 ms: slow sanitizer runs must not exhaust the retries */
	up();
	pair_open(&a, &b, &o);
	fill(a.buf, 8192, 13);
	fill(b.buf + 8192, 8192, 14);
	ctr = (uint64_t *)(b.buf + 30000);
	*ctr = 0;
	for (i = 0; i < n / 4; i++)
		CU_ASSERT_EQUAL(post_recv(&b, 2000 + i, 16384 + 256 * i, 256), IB_SUCCESS);
	set_drop(4, 4);
	for (i = 0; i < n; i++) {
		if (i >= window)
			lossy_check(&a, i - window);
		switch (i % 4) {
		case 0:
			CU_ASSERT_EQUAL(post(&a, WR_SEND, i, (uint32_t)i, 200, 0, 0, 0), IB_SUCCESS);
			break;
		case 1:
			CU_ASSERT_EQUAL(post(&a, WR_RDMA_WRITE, i, 0, 3 * MTU + 1, 0,
					     raddr(&b, 0), b.rkey),
					IB_SUCCESS);
			break;
		case 2:
			CU_ASSERT_EQUAL(post(&a, WR_RDMA_READ, i, 12288, 2 * MTU + 9, 0,
					     raddr(&b, 8192), b.rkey),
					IB_SUCCESS);
			break;
		default:
			post_atomic(&a, WR_FETCH_ADD, (uint64_t)i, 20000 + 8 * (uint32_t)(i / 4),
				    raddr(&b, 30000), b.rkey, 1, 0);
			break;
		}
	}
	for (i = n - window; i < n; i++)
		lossy_check(&a, i);
	CU_ASSERT(drops() > 0);
	CU_ASSERT_EQUAL(__atomic_load_n(ctr, __ATOMIC_SEQ_CST), (uint64_t)n / 4);
	CU_ASSERT_EQUAL(memcmp(b.buf, a.buf, 3 * MTU + 1), 0);
	CU_ASSERT_EQUAL(memcmp(a.buf + 12288, b.buf + 8192, 2 * MTU + 9), 0);
	for (i = 0; i < n / 4; i++) {
		CU_ASSERT_FATAL(wait_wc(b.rcq, NULL, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 2000 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc.length, 200);
		CU_ASSERT_EQUAL(memcmp(b.buf + 16384 + 256 * i, a.buf + 4 * i, 200), 0);
	}
	CU_ASSERT(cq_empty(b.rcq));
	pair_close(&a, &b);
	down();
}

/* A receive WQE with a bad L_Key: remote operational error at the requester. */
static void test_rc_rem_op_err(void)
{
	end_t a, b;
	ib_local_ds_t ds = { 0, 64, 0 };
	ib_recv_wr_t wr;

	up();
	pair_open(&a, &b, &rc_default);
	ds.vaddr = (uintptr_t)b.buf;
	ds.lkey = b.lkey ^ CL_HTON32(0x100);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 95;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	CU_ASSERT_EQUAL(ops->post_recv(b.qp, &wr, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 10, 0, 0, 0), IB_SUCCESS);
	expect(a.scq, 1, IB_WCS_REM_OP_ERR, IB_WC_SEND);
	expect(b.rcq, 95, IB_WCS_LOCAL_PROTECTION_ERR, IB_WC_RECV);
	CU_ASSERT_EQUAL(qp_state(b.qp), IB_QPS_ERROR);
	pair_close(&a, &b);
	down();
}

/* SQD: outstanding messages finish (with retransmission), then the drain is reported. */
static void test_rc_sqd(void)
{
	end_t a, b;
	ib_qp_mod_t m;
	unsigned ev0;

	up();
	pair_open(&a, &b, &rc_default);
	CU_ASSERT_EQUAL(post_recv(&b, 1, 0, 4096), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_recv(&b, 2, 4096, 4096), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_recv(&b, 3, 8192, 4096), IB_SUCCESS);
	set_drop(1, 0);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 1, 0, 3000, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 2, 0, 10, 0, 0, 0), IB_SUCCESS);
	ev0 = rec_events(NULL, REC_ANY_EVENT);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_SQD;
	m.state.sqd.sqd_event = TRUE;
	CU_ASSERT_EQUAL(ops->modify_qp(a.qp, &m), IB_SUCCESS);
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_SQD_DRAINING);
	/* posted in SQD: held back */
	CU_ASSERT_EQUAL(post(&a, WR_SEND, 3, 0, 20, 0, 0, 0), IB_SUCCESS);
	set_drop(0, 0);
	expect(a.scq, 1, IB_WCS_SUCCESS, IB_WC_SEND);
	expect(a.scq, 2, IB_WCS_SUCCESS, IB_WC_SEND);
	CU_ASSERT(rec_wait_events(NULL, REC_ANY_EVENT, ev0 + 1) > ev0);
	CU_ASSERT_EQUAL(qp_state(a.qp), IB_QPS_SQD_DRAINED);
	CU_ASSERT(cq_empty(a.scq));
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	CU_ASSERT_EQUAL(ops->modify_qp(a.qp, &m), IB_SUCCESS);
	expect(a.scq, 3, IB_WCS_SUCCESS, IB_WC_SEND);
	expect(b.rcq, 1, IB_WCS_SUCCESS, IB_WC_RECV);
	expect(b.rcq, 2, IB_WCS_SUCCESS, IB_WC_RECV);
	expect(b.rcq, 3, IB_WCS_SUCCESS, IB_WC_RECV);
	pair_close(&a, &b);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_rc_send_recv),
	TEST_ENTRY(test_rc_send_imm_solicited),
	TEST_ENTRY(test_rc_write_read),
	TEST_ENTRY(test_rc_read_table_on_demand),
	TEST_ENTRY(test_rc_atomics),
	TEST_ENTRY(test_rc_access_errors),
	TEST_ENTRY(test_rc_no_qp_access),
	TEST_ENTRY(test_rc_rem_op_err),
	TEST_ENTRY(test_rc_rnr),
	TEST_ENTRY(test_rc_rnr_exhaust),
	TEST_ENTRY(test_rc_retry_exhaust),
	TEST_ENTRY(test_rc_foreign_source),
	TEST_ENTRY(test_rc_drop_one),
	TEST_ENTRY(test_rc_held_at_full_ring),
	TEST_ENTRY(test_rc_read_lost_response),
	TEST_ENTRY(test_rc_read_covered_by_ack),
	TEST_ENTRY(test_rc_ordering),
	TEST_ENTRY(test_rc_sq_wrap),
	TEST_ENTRY(test_rc_modify_error_flush),
	TEST_ENTRY(test_uc),
	TEST_ENTRY(test_rc_post_checks),
	TEST_ENTRY(test_rc_srq),
	TEST_ENTRY(test_rc_sqd),
	TEST_ENTRY(test_rc_lossy),
};

TEST_MAIN("soft RC/UC", tests)
