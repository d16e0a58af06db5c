/*
 * ibal tests: the datagram helpers of the soft HCA tests (CQs, UD and QP1
 * QPs in RTS, MRs, AVs, posts) on the two soft CAs of soft_ca_fixture.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Included by test_soft_hca.c and test_soft_ud.c.
 */
#ifndef TESTS_SOFT_HCA_FIXTURE_H
#define TESTS_SOFT_HCA_FIXTURE_H

#include <stdlib.h>
#include <string.h>
#include "soft_ca_fixture.h"

/* --- Helpers: CQs, QPs, MRs ---------------------------------------------- */

typedef struct ud_end {
	int ci;
	void *scq, *rcq, *qp, *srq, *mr;
	net32_t lkey;
	uint32_t qpn;
	uint8_t buf[8192];
	char tag_s, tag_r, tag_q; /* addresses are the core contexts */
} ud_end_t;

static inline void *make_cq(int ci, uint32_t size, void *tag)
{
	void *cq = NULL;

	CU_ASSERT_EQUAL(ops->create_cq(ca[ci], &size, tag, &cq), IB_SUCCESS);
	return cq;
}

static inline ib_api_status_t to_init_ud(void *qp, uint32_t qkey)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.qkey = cl_hton32(qkey);
	m.state.init.pkey_index = 0;
	return ops->modify_qp(qp, &m);
}

static inline ib_api_status_t to_state(void *qp, ib_qp_state_t s)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = s;
	if (s == IB_QPS_RTS)
		m.state.rts.sq_psn = cl_hton32(100);
	return ops->modify_qp(qp, &m);
}

/* A datagram QP of @p type (IB_QPT_QP1: port 1's) on CA @p ci, in RTS. */
static inline void dgrm_open(ud_end_t *e, int ci, ib_qp_type_t type, uint32_t qkey,
			     int use_srq, uint32_t srq_limit)
{
	ib_qp_create_t c;
	ib_mr_create_t mc;
	net32_t rkey;

	memset(e, 0, sizeof(*e));
	e->ci = ci;
	e->scq = make_cq(ci, 64, &e->tag_s);
	e->rcq = make_cq(ci, 64, &e->tag_r);
	if (use_srq) {
		ib_srq_attr_t sa = { 16, 2, srq_limit };

		CU_ASSERT_EQUAL(ops->create_srq(pd[ci], &sa, &e->tag_q, &e->srq), IB_SUCCESS);
	}
	memset(&c, 0, sizeof(c));
	c.qp_type = type;
	c.sq_depth = 16;
	c.rq_depth = 16;
	c.sq_sge = 4;
	c.rq_sge = 4;
	c.sq_signaled = TRUE;
	if (type == IB_QPT_QP1) {
		CU_ASSERT_EQUAL_FATAL(ops->create_spl_qp(pd[ci], 1, &c, e->scq, e->rcq, &e->tag_q,
							 &e->qp),
				      IB_SUCCESS);
	} else {
		CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[ci], &c, e->scq, e->rcq, e->srq, &e->tag_q,
						     &e->qp),
				      IB_SUCCESS);
	}
	e->qpn = ((soft_qp_t *)e->qp)->qpn;
	CU_ASSERT_EQUAL(to_init_ud(e->qp, qkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(e->qp, IB_QPS_RTR), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(e->qp, IB_QPS_RTS), IB_SUCCESS);
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[ci], &mc, &e->lkey, &rkey, &e->mr), IB_SUCCESS);
}

static inline void ud_open(ud_end_t *e, int ci, uint32_t qkey, int use_srq, uint32_t srq_limit)
{
	dgrm_open(e, ci, IB_QPT_UNRELIABLE_DGRM, qkey, use_srq, srq_limit);
}

static inline void ud_close(ud_end_t *e)
{
	CU_ASSERT_EQUAL(ops->dereg_mr(e->mr), IB_SUCCESS);
	ops->destroy_qp(e->qp);
	if (e->srq)
		ops->destroy_srq(e->srq);
	ops->destroy_cq(e->scq);
	ops->destroy_cq(e->rcq);
}

/* Closes an end ud_open() made in calloc()'d memory, and frees it. */
static inline void ud_free(ud_end_t *e)
{
	ud_close(e);
	free(e);
}

static inline ib_api_status_t post_rx(ud_end_t *e, uint64_t wr_id, uint32_t off, uint32_t len)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(e->buf + off), len, e->lkey };
	ib_recv_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	if (e->srq)
		return ops->post_srq_recv(e->srq, &wr, NULL);
	return ops->post_recv(e->qp, &wr, NULL);
}

static inline void *make_av(int ci, uint16_t dlid, int grh)
{
	ib_av_attr_t a;
	void *av = NULL;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.dlid = cl_hton16(dlid);
	a.sl = 3;
	a.grh_valid = grh ? TRUE : FALSE;
	if (grh) {
		a.grh.ver_class_flow = ib_grh_set_ver_class_flow(6, 0, 0);
		a.grh.hop_limit = 1;
		a.grh.dest_gid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	}
	CU_ASSERT_EQUAL(ops->create_av(pd[ci], &a, &av), IB_SUCCESS);
	return av;
}

/* post_tx() with the L_Key @p lkey. */
static inline ib_api_status_t post_tx_lkey(ud_end_t *e, void *av, uint32_t dqpn,
					   uint32_t qkey, uint64_t wr_id, uint32_t off,
					   uint32_t len, ib_send_opt_t opt, uint32_t imm,
					   net32_t lkey)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(e->buf + off), len, lkey };
	ib_send_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.wr_type = WR_SEND;
	wr.send_opt = opt;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.immediate_data = cl_hton32(imm);
	wr.dgrm.ud.h_av = (ib_av_handle_t)av;
	wr.dgrm.ud.remote_qp = cl_hton32(dqpn);
	wr.dgrm.ud.remote_qkey = cl_hton32(qkey);
	return ops->post_send(e->qp, &wr, NULL);
}

static inline ib_api_status_t post_tx(ud_end_t *e, void *av, uint32_t dqpn, uint32_t qkey,
				      uint64_t wr_id, uint32_t off, uint32_t len,
				      ib_send_opt_t opt, uint32_t imm)
{
	return post_tx_lkey(e, av, dqpn, qkey, wr_id, off, len, opt, imm, e->lkey);
}

#endif /* TESTS_SOFT_HCA_FIXTURE_H */
