/*
 * ibal tests: multicast attachments of UD QPs on the soft HCA and the delivery of multicast packets.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The two soft CAs and the waits for completions are soft_ca_fixture.h's:
 * bounded condition waits on the completion upcalls; "nothing arrived" is
 * checked after a later packet on the same path did arrive.
 */
#include <stdlib.h>
#include <string.h>
#include "soft_ca_fixture.h"

#define QKEY 0x11223344u
#define MLID 0xC012u

typedef struct ud_end {
	int ci;
	void *cq, *qp, *mr;
	net32_t lkey;
	uint32_t qpn;
	uint8_t buf[4096];
} ud_end_t;

static ib_api_status_t modify(void *qp, ib_qp_state_t s)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = s;
	if (s == IB_QPS_INIT) {
		m.state.init.primary_port = 1;
		m.state.init.qkey = cl_hton32(QKEY);
	}
	if (s == IB_QPS_RTS)
		m.state.rts.sq_psn = cl_hton32(1);
	return ops->modify_qp(qp, &m);
}

static void ud_open(ud_end_t *e, int ci, ib_qp_type_t type, int to_rts)
{
	ib_qp_create_t c;
	ib_mr_create_t mc;
	uint32_t size = 64;
	net32_t rkey;

	memset(e, 0, sizeof(*e));
	e->ci = ci;
	CU_ASSERT_EQUAL_FATAL(ops->create_cq(ca[ci], &size, e, &e->cq), IB_SUCCESS);
	memset(&c, 0, sizeof(c));
	c.qp_type = type;
	c.sq_depth = c.rq_depth = 16;
	c.sq_sge = c.rq_sge = 1;
	c.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[ci], &c, e->cq, e->cq, NULL, e, &e->qp), IB_SUCCESS);
	e->qpn = ((soft_qp_t *)e->qp)->qpn;
	if (to_rts) {
		CU_ASSERT_EQUAL(modify(e->qp, IB_QPS_INIT), IB_SUCCESS);
		CU_ASSERT_EQUAL(modify(e->qp, IB_QPS_RTR), IB_SUCCESS);
		CU_ASSERT_EQUAL(modify(e->qp, IB_QPS_RTS), IB_SUCCESS);
	}
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[ci], &mc, &e->lkey, &rkey, &e->mr), IB_SUCCESS);
}

static void ud_close(ud_end_t *e)
{
	ops->dereg_mr(e->mr);
	ops->destroy_qp(e->qp);
	ops->destroy_cq(e->cq);
}

static void post_rx(ud_end_t *e, uint64_t id)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)e->buf, 1024, e->lkey };
	ib_recv_wr_t wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	CU_ASSERT_EQUAL(ops->post_recv(e->qp, &wr, NULL), IB_SUCCESS);
}

static void mgid_of(ib_gid_t *g, uint8_t id)
{
	memset(g, 0, sizeof(*g));
	g->raw[0] = 0xFF;
	g->raw[1] = 0x12;
	g->raw[15] = id;
}

/* An AV to the group (the soft HCA refuses a multicast DLID without GRH). */
static void *mcast_av(int ci, const ib_gid_t *mgid, int grh)
{
	ib_av_attr_t a;
	void *av = NULL;

	memset(&a, 0, sizeof(a));
	a.port_num = 1;
	a.dlid = cl_hton16(MLID);
	a.grh_valid = grh ? TRUE : FALSE;
	a.grh.ver_class_flow = ib_grh_set_ver_class_flow(6, 0, 0);
	a.grh.hop_limit = 1;
	a.grh.dest_gid = *mgid;
	CU_ASSERT_EQUAL(ops->create_av(pd[ci], &a, &av), IB_SUCCESS);
	return av;
}

static void send_mc(ud_end_t *e, void *av, uint64_t id, uint8_t tag)
{
	ib_local_ds_t ds = { (uint64_t)(uintptr_t)(e->buf + 2048), 16, e->lkey };
	ib_send_wr_t wr;

	memset(e->buf + 2048, tag, 16);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.wr_type = WR_SEND;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = (ib_av_handle_t)av;
	wr.dgrm.ud.remote_qp = CL_HTON32(0xFFFFFF);
	wr.dgrm.ud.remote_qkey = cl_hton32(QKEY);
	CU_ASSERT_EQUAL(ops->post_send(e->qp, &wr, NULL), IB_SUCCESS);
}

/* Next completion of @p e, a receive: its payload tag. */
static int recv_tag(ud_end_t *e, ib_wc_t *wc)
{
	if (!wait_wc(e->cq, NULL, wc) || wc->wc_type != IB_WC_RECV)
		return -1;
	return wc->status == IB_WCS_SUCCESS ? e->buf[SOFT_UD_GRH_AREA] : -2;
}

static void test_mcast_delivery(void)
{
	ud_end_t a1, a2, b1, b2;
	ib_gid_t mgid, other;
	ib_wc_t wc;
	void *av;
	int n_send;

	up();
	mgid_of(&mgid, 1);
	mgid_of(&other, 2);
	ud_open(&a1, 0, IB_QPT_UNRELIABLE_DGRM, 1);
	ud_open(&a2, 0, IB_QPT_UNRELIABLE_DGRM, 1);
	ud_open(&b1, 1, IB_QPT_UNRELIABLE_DGRM, 1);
	ud_open(&b2, 1, IB_QPT_UNRELIABLE_DGRM, 1);
	CU_ASSERT_EQUAL(ops->attach_mcast(a1.qp, &mgid, CL_HTON16(MLID)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->attach_mcast(a2.qp, &mgid, CL_HTON16(MLID)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->attach_mcast(b1.qp, &mgid, CL_HTON16(MLID)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->attach_mcast(b2.qp, &mgid, CL_HTON16(MLID)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->attach_mcast(b2.qp, &mgid, CL_HTON16(MLID)), IB_SUCCESS); /* twice */
	post_rx(&a1, 1);
	post_rx(&a2, 2);
	post_rx(&b1, 3);
	post_rx(&b2, 4);
	av = mcast_av(0, &mgid, 1);
	/* From a1: a2 (same CA), b1 and b2 (other CA) receive; a1 does not */
	send_mc(&a1, av, 10, 0x5A);
	CU_ASSERT_EQUAL(recv_tag(&a2, &wc), 0x5A);
	CU_ASSERT(wc.recv.ud.recv_opt & IB_RECV_OPT_GRH_VALID);
	CU_ASSERT_EQUAL(wc.recv.ud.remote_qp, cl_hton32(a1.qpn));
	CU_ASSERT_EQUAL(recv_tag(&b1, &wc), 0x5A);
	CU_ASSERT_EQUAL(recv_tag(&b2, &wc), 0x5A);
	CU_ASSERT_EQUAL(memcmp(b2.buf + 24, &mgid, sizeof(mgid)), 0); /* GRH:DGID */
	/* b2 leaves; the next packet reaches a2 and b1 only */
	CU_ASSERT_EQUAL(ops->detach_mcast(b2.qp, &mgid, CL_HTON16(MLID)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->detach_mcast(b2.qp, &mgid, CL_HTON16(MLID)), IB_NOT_FOUND);
	post_rx(&a2, 5);
	post_rx(&b1, 6);
	post_rx(&b2, 7);
	send_mc(&a1, av, 11, 0x6B);
	CU_ASSERT_EQUAL(recv_tag(&a2, &wc), 0x6B);
	CU_ASSERT_EQUAL(recv_tag(&b1, &wc), 0x6B);
	/* With another MGID, nobody receives: b1 then gets the packet that
	 * follows, so the one before was not delivered */
	ops->destroy_av(av);
	av = mcast_av(0, &other, 1);
	send_mc(&a1, av, 13, 0x02);
	ops->destroy_av(av);
	av = mcast_av(0, &mgid, 1);
	post_rx(&b1, 8);
	post_rx(&a2, 9);
	send_mc(&a1, av, 14, 0x7C);
	CU_ASSERT_EQUAL(recv_tag(&b1, &wc), 0x7C);
	CU_ASSERT_EQUAL(wc.wr_id, 8);
	/* a2 shares a1's port: once it has the packet, CA 0 handled it */
	CU_ASSERT_EQUAL(recv_tag(&a2, &wc), 0x7C);
	CU_ASSERT(cq_empty(b2.cq));
	/* The sender never heard itself: only its 4 send completions */
	for (n_send = 0; n_send < 4; n_send++) {
		CU_ASSERT_FATAL(wait_wc(a1.cq, NULL, &wc));
		CU_ASSERT_EQUAL(wc.wc_type, IB_WC_SEND);
		CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	}
	CU_ASSERT(cq_empty(a1.cq));
	ops->destroy_av(av);
	/* Destroying an attached QP detaches it */
	ud_close(&a2);
	ud_close(&a1);
	ud_close(&b1);
	ud_close(&b2);
	CU_ASSERT_EQUAL(((soft_ca_t *)ca[0])->n_mcast, 0);
	CU_ASSERT_EQUAL(((soft_ca_t *)ca[1])->n_mcast, 0);
	down();
}

static void test_mcast_bad_input(void)
{
	ud_end_t u, r, fresh;
	ib_gid_t mgid, uni;
	int i;

	up();
	mgid_of(&mgid, 3);
	memset(&uni, 0, sizeof(uni));
	uni.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	ud_open(&u, 0, IB_QPT_UNRELIABLE_DGRM, 1);
	ud_open(&r, 0, IB_QPT_RELIABLE_CONN, 0);
	ud_open(&fresh, 0, IB_QPT_UNRELIABLE_DGRM, 0);
	CU_ASSERT_EQUAL(ops->attach_mcast(r.qp, &mgid, CL_HTON16(MLID)), IB_INVALID_SERVICE_TYPE);
	CU_ASSERT_EQUAL(ops->detach_mcast(r.qp, &mgid, CL_HTON16(MLID)), IB_INVALID_SERVICE_TYPE);
	CU_ASSERT_EQUAL(ops->attach_mcast(u.qp, NULL, CL_HTON16(MLID)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ops->detach_mcast(u.qp, NULL, CL_HTON16(MLID)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ops->attach_mcast(u.qp, &uni, CL_HTON16(MLID)), IB_INVALID_GID);
	CU_ASSERT_EQUAL(ops->attach_mcast(u.qp, &mgid, CL_HTON16(0x0012)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ops->attach_mcast(u.qp, &mgid, CL_HTON16(0xFFFF)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ops->attach_mcast(fresh.qp, &mgid, CL_HTON16(MLID)), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(ops->detach_mcast(u.qp, &mgid, CL_HTON16(MLID)), IB_NOT_FOUND);
	/* At most 8 QPs of a CA per group */
	{
		ud_end_t *many = calloc(9, sizeof(*many));

		for (i = 0; i < 9; i++) {
			ud_open(&many[i], 1, IB_QPT_UNRELIABLE_DGRM, 1);
			CU_ASSERT_EQUAL(ops->attach_mcast(many[i].qp, &mgid, CL_HTON16(MLID)),
					i < 8 ? IB_SUCCESS : IB_INSUFFICIENT_RESOURCES);
		}
		for (i = 0; i < 9; i++)
			ud_close(&many[i]);
		free(many);
	}
	ud_close(&u);
	ud_close(&r);
	ud_close(&fresh);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_mcast_delivery),
	TEST_ENTRY(test_mcast_bad_input),
};

TEST_MAIN("soft_mcast", tests)
