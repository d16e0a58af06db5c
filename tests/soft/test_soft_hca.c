/*
 * ibal tests: the soft HCA's objects through soft_prov_ops: CAs, AVs, MRs,
 * MWs, CQs and QPs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The two CAs are soft_ca_fixture.h's, the datagram helpers
 * soft_hca_fixture.h's (shared with test_soft_ud.c, the UD data path).
 */
#include "soft_hca_fixture.h"
#include "prov_ca_attr.h"
#include "ibal_mem.h"
#include "ibal_arena.h"
#include "soft_rc.h"
#include "../common/mem_resident.h"

/* --- Tests: CA ------------------------------------------------------------ */

static void test_ca_attr(void)
{
	uint32_t size = 0, small;
	ib_ca_attr_t *a, *copy;
	ib_port_attr_t *p;

	up();
	CU_ASSERT_EQUAL(ops->query_ca(ca[0], NULL, &size), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT(size > sizeof(ib_ca_attr_t));
	CU_ASSERT_EQUAL(ops->query_ca(ca[0], NULL, NULL), IB_INVALID_PARAMETER);
	a = malloc(size);
	copy = malloc(size);
	small = size - 1;
	CU_ASSERT_EQUAL(ops->query_ca(ca[0], a, &small), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(small, size);
	CU_ASSERT_EQUAL(ops->query_ca(ca[0], a, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(a->size, size);
	CU_ASSERT_EQUAL(a->ca_guid, guids[0]);
	CU_ASSERT_EQUAL(a->num_ports, 1);
	CU_ASSERT(a->max_qps >= 1024 && a->max_wrs >= 1024 && a->max_sges >= 16);
	CU_ASSERT(a->max_qp_resp_res > 0 && a->max_qp_init_depth > 0);
	CU_ASSERT(a->current_qp_state_support && a->change_primary_port);
	p = a->p_port_attr;
	CU_ASSERT((uint8_t *)p > (uint8_t *)a && (uint8_t *)(p + 1) <= (uint8_t *)a + size);
	CU_ASSERT_EQUAL(p->port_num, 1);
	CU_ASSERT_EQUAL(p->link_state, IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(p->mtu, IB_MTU_LEN_4096);
	CU_ASSERT_EQUAL(cl_ntoh16(p->lid), ca_lid(0));
	CU_ASSERT_NOT_EQUAL(p->lid, 0);
	CU_ASSERT_EQUAL(p->num_pkeys, 1);
	CU_ASSERT_EQUAL(p->p_pkey_table[0], CL_HTON16(0xFFFF));
	CU_ASSERT_EQUAL(p->num_gids, 1);
	CU_ASSERT_EQUAL(p->p_gid_table[0].unicast.prefix, IB_DEFAULT_SUBNET_PREFIX);
	CU_ASSERT_EQUAL(p->p_gid_table[0].unicast.interface_id, p->port_guid);
	CU_ASSERT_PTR_EQUAL(ib_copy_ca_attr(copy, a), copy);
	CU_ASSERT_EQUAL(copy->p_port_attr[0].p_pkey_table[0], CL_HTON16(0xFFFF));
	CU_ASSERT((uint8_t *)copy->p_port_attr > (uint8_t *)copy);
	/* modify_ca: capability bits and errors */
	{
		ib_port_attr_mod_t m;

		memset(&m, 0, sizeof(m));
		m.cap.cm = TRUE;
		CU_ASSERT_EQUAL(ops->modify_ca(ca[0], 2, IB_CA_MOD_IS_CM_SUPPORTED, &m),
				IB_INVALID_PORT);
		CU_ASSERT_EQUAL(ops->modify_ca(ca[0], 1, IB_CA_MOD_RESERVED_MASK, &m),
				IB_INVALID_PARAMETER);
		CU_ASSERT_EQUAL(ops->modify_ca(ca[0], 1, IB_CA_MOD_IS_CM_SUPPORTED, &m), IB_SUCCESS);
		CU_ASSERT_EQUAL(ops->query_ca(ca[0], a, &size), IB_SUCCESS);
		CU_ASSERT(a->p_port_attr[0].cap.cm);
	}
	free(a);
	free(copy);
	down();
}

static void test_two_cas(void)
{
	size_t n = 0;
	void *x = NULL;

	up();
	CU_ASSERT_NOT_EQUAL(guids[0], guids[1]);
	CU_ASSERT_NOT_EQUAL(ca_lid(0), ca_lid(1));
	CU_ASSERT_NOT_EQUAL(((soft_ca_t *)ca[0])->port[0].guid, ((soft_ca_t *)ca[1])->port[0].guid);
	CU_ASSERT_EQUAL(ops->get_ca_guids(NULL, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_EQUAL(ops->open_ca(guids[0] ^ CL_HTON64(0xFF00), NULL, &x), IB_INVALID_GUID);
	down();
}

/* --- Tests: PD, AV, MR, MW ------------------------------------------------ */

static void test_av(void)
{
	ib_av_attr_t a, q;
	void *av = NULL;

	up();
	memset(&a, 0, sizeof(a));
	a.port_num = 2;
	a.dlid = CL_HTON16(5);
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_INVALID_PORT);
	a.port_num = 1;
	a.sl = 16;
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_INVALID_SETTING);
	a.sl = 0;
	a.dlid = 0;
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_INVALID_SETTING);
	a.dlid = CL_HTON16(0xC001); /* multicast without GRH */
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_INVALID_SETTING);
	a.dlid = CL_HTON16(5);
	a.static_rate = 200;
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_INVALID_SETTING);
	a.static_rate = 0;
	a.grh_valid = TRUE;
	a.grh.ver_class_flow = ib_grh_set_ver_class_flow(4, 0, 0);
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_INVALID_SETTING);
	a.grh_valid = FALSE;
	CU_ASSERT_EQUAL(ops->create_av(pd[0], &a, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->query_av(av, &q), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.dlid, CL_HTON16(5));
	a.dlid = CL_HTON16(7);
	CU_ASSERT_EQUAL(ops->modify_av(pd[0], &a, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->query_av(av, &q), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.dlid, CL_HTON16(7));
	a.port_num = 9;
	CU_ASSERT_EQUAL(ops->modify_av(pd[0], &a, &av), IB_INVALID_PORT);
	ops->destroy_av(av);
	down();
}

static void test_mr(void)
{
	static uint8_t mem[4096];
	ib_mr_create_t c = { .length = sizeof(mem), .access_ctrl = IB_AC_RDMA_WRITE };
	net32_t lkey, rkey, lkey2, rkey2;
	ib_mr_attr_t q;
	void *mr = NULL, *mr2 = NULL;
	soft_pd_t *p;
	uint64_t va = (uint64_t)(uintptr_t)mem;
	uint32_t key;

	c.vaddr = mem;
	up();
	p = pd[0];
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr), IB_INVALID_PERMISSION);
	c.access_ctrl = IB_AC_ATOMIC;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr), IB_INVALID_PERMISSION);
	c.access_ctrl = IB_AC_LOCAL_WRITE;
	c.length = 0;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr), IB_INVALID_PARAMETER);
	c.length = sizeof(mem);
	c.access_ctrl = 0x100;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr), IB_INVALID_PERMISSION);
	c.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_READ;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(lkey, 0);
	CU_ASSERT_EQUAL(ops->query_mr(mr, &q), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.local_lb, va);
	CU_ASSERT_EQUAL(q.local_ub, va + sizeof(mem) - 1);
	CU_ASSERT_EQUAL(q.lkey, lkey);
	key = cl_ntoh32(lkey);
	soft_rwlock_read(&p->ca->tab_lock);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va, 16, IB_AC_LOCAL_WRITE), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va + 4000, 96, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va + 4000, 97, 0), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va - 1, 2, 0), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va, 16, IB_AC_RDMA_WRITE), IB_INVALID_PERMISSION);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va, 16, IB_AC_RDMA_READ), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_mr_check(p, key ^ 1, va, 16, 0), IB_INVALID_LKEY);
	CU_ASSERT_EQUAL(soft_mr_check(p, key ^ 1, va, 16, IB_AC_RDMA_READ), IB_INVALID_RKEY);
	CU_ASSERT_EQUAL(soft_mr_check(pd[1], key, va, 16, 0), IB_INVALID_LKEY);
	soft_rwlock_read_end(&p->ca->tab_lock);
	/* rereg: new key; the old one fails */
	c.length = 1024;
	CU_ASSERT_EQUAL(ops->rereg_mem(mr, IB_MR_MOD_ADDR, &c, NULL, &lkey2, &rkey2), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(lkey2, lkey);
	soft_rwlock_read(&p->ca->tab_lock);
	CU_ASSERT_EQUAL(soft_mr_check(p, key, va, 16, 0), IB_INVALID_LKEY);
	CU_ASSERT_EQUAL(soft_mr_check(p, cl_ntoh32(lkey2), va + 1000, 25, 0), IB_INVALID_SETTING);
	soft_rwlock_read_end(&p->ca->tab_lock);
	CU_ASSERT_EQUAL(ops->rereg_mem(mr, 0, &c, NULL, &lkey2, &rkey2), IB_INVALID_PARAMETER);
	/* reg_shared */
	{
		uint64_t sva = 0;

		CU_ASSERT_EQUAL(ops->reg_shared(mr, pd[0], IB_AC_LOCAL_WRITE, &sva, &lkey, &rkey, &mr2),
				IB_SUCCESS);
		CU_ASSERT_EQUAL(sva, va);
		CU_ASSERT_NOT_EQUAL(lkey, lkey2);
		CU_ASSERT_EQUAL(ops->dereg_mr(mr2), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(ops->dereg_mr(mr), IB_SUCCESS);
	down();
}

/* Moves an RC QP to RTS towards itself. */
static void rc_to_rts(void *qp, uint32_t self_qpn, uint16_t lid)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.access_ctrl = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE;
	CU_ASSERT_EQUAL(ops->modify_qp(qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	m.state.rtr.rq_psn = cl_hton32(1);
	m.state.rtr.dest_qp = cl_hton32(self_qpn);
	m.state.rtr.primary_av.port_num = 1;
	m.state.rtr.primary_av.dlid = cl_hton16(lid);
	m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_2048;
	m.state.rtr.resp_res = 4;
	m.state.rtr.rnr_nak_timeout = 12;
	CU_ASSERT_EQUAL(ops->modify_qp(qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(1);
	m.state.rts.retry_cnt = 7;
	m.state.rts.rnr_retry_cnt = 7;
	m.state.rts.local_ack_timeout = 14;
	m.state.rts.init_depth = 4;
	CU_ASSERT_EQUAL(ops->modify_qp(qp, &m), IB_SUCCESS);
}

static void test_mw(void)
{
	static uint8_t mem[4096];
	ib_mr_create_t c = { .length = sizeof(mem),
			      .access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_MW_BIND };
	net32_t lkey, rkey, mw_rkey, new_rkey;
	void *mr = NULL, *mr_nobind = NULL, *mw = NULL, *qp = NULL, *cq;
	ib_qp_create_t qc;
	ib_bind_wr_t b;
	ib_wc_t wc;
	soft_pd_t *p;

	c.vaddr = mem;
	up();
	p = pd[0];
	cq = make_cq(0, 16, &qc);
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr), IB_SUCCESS);
	c.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &c, &lkey, &rkey, &mr_nobind), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->create_mw(pd[0], &mw_rkey, &mw), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->query_mw(mw, &new_rkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(new_rkey, mw_rkey);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &qc, cq, cq, NULL, NULL, &qp), IB_SUCCESS);
	memset(&b, 0, sizeof(b));
	b.wr_id = 77;
	b.send_opt = IB_SEND_OPT_SIGNALED;
	b.h_mr = (ib_mr_handle_t)mr;
	b.access_ctrl = IB_AC_RDMA_READ;
	b.current_rkey = mw_rkey;
	b.local_ds.vaddr = (uint64_t)(uintptr_t)mem + 100;
	b.local_ds.length = 200;
	CU_ASSERT_EQUAL(ops->bind_mw(mw, qp, &b, &new_rkey), IB_INVALID_QP_STATE);
	rc_to_rts(qp, ((soft_qp_t *)qp)->qpn, ca_lid(0));
	b.h_mr = (ib_mr_handle_t)mr_nobind;
	CU_ASSERT_EQUAL(ops->bind_mw(mw, qp, &b, &new_rkey), IB_INVALID_PERMISSION);
	b.h_mr = (ib_mr_handle_t)mr;
	b.current_rkey = mw_rkey ^ CL_HTON32(1);
	CU_ASSERT_EQUAL(ops->bind_mw(mw, qp, &b, &new_rkey), IB_INVALID_RKEY);
	b.current_rkey = mw_rkey;
	b.local_ds.length = 8000;
	CU_ASSERT_EQUAL(ops->bind_mw(mw, qp, &b, &new_rkey), IB_INVALID_SETTING);
	b.local_ds.length = 200;
	CU_ASSERT_EQUAL(ops->bind_mw(mw, qp, &b, &new_rkey), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(new_rkey, mw_rkey);
	CU_ASSERT(wait_wc(cq, &qc, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 77);
	CU_ASSERT_EQUAL(wc.wc_type, IB_WC_MW_BIND);
	soft_rwlock_read(&p->ca->tab_lock);
	CU_ASSERT_EQUAL(soft_mr_check(p, cl_ntoh32(new_rkey), b.local_ds.vaddr, 200, IB_AC_RDMA_READ),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_mr_check(p, cl_ntoh32(new_rkey), b.local_ds.vaddr, 201, IB_AC_RDMA_READ),
			IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(soft_mr_check(p, cl_ntoh32(new_rkey), b.local_ds.vaddr, 8, IB_AC_RDMA_WRITE),
			IB_INVALID_PERMISSION);
	CU_ASSERT_EQUAL(soft_mr_check(p, cl_ntoh32(mw_rkey), b.local_ds.vaddr, 8, IB_AC_RDMA_READ),
			IB_INVALID_RKEY);
	soft_rwlock_read_end(&p->ca->tab_lock);
	CU_ASSERT_EQUAL(ops->dereg_mr(mr), IB_RESOURCE_BUSY);
	/* unbind, then the region may go */
	b.current_rkey = new_rkey;
	b.local_ds.length = 0;
	b.send_opt = 0;
	CU_ASSERT_EQUAL(ops->bind_mw(mw, qp, &b, &new_rkey), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->dereg_mr(mr), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->dereg_mr(mr_nobind), IB_SUCCESS);
	ops->destroy_mw(mw);
	ops->destroy_qp(qp);
	ops->destroy_cq(cq);
	down();
}

/* --- Tests: CQ ------------------------------------------------------------ */

static void test_cq(void)
{
	char tag;
	void *cq;
	ib_wc_t wcs[4], *free_l, *done, wc;
	uint32_t size = 0, n;
	int i;

	up();
	size = 0;
	CU_ASSERT_EQUAL(ops->create_cq(ca[0], &size, &tag, &cq), IB_INVALID_CQ_SIZE);
	cq = make_cq(0, 2, &tag);
	CU_ASSERT_EQUAL(ops->query_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(size, 2);
	free_l = NULL;
	CU_ASSERT_EQUAL(ops->poll_cq(cq, &free_l, &done), IB_INVALID_PARAMETER);
	free_l = &wcs[0];
	wcs[0].p_next = &wcs[1];
	wcs[1].p_next = NULL;
	CU_ASSERT_EQUAL(ops->poll_cq(cq, &free_l, &done), IB_NOT_FOUND);
	CU_ASSERT_PTR_EQUAL(free_l, &wcs[0]);
	CU_ASSERT_EQUAL(ops->rearm_n_cq(cq, 0), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ops->rearm_n_cq(cq, 3), IB_INVALID_PARAMETER);
	/* armed for the next completion: one upcall */
	CU_ASSERT_EQUAL(ops->rearm_cq(cq, FALSE), IB_SUCCESS);
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = 1;
	soft_cq_add(cq, &wc, FALSE);
	CU_ASSERT(rec_wait_comps(&tag, 1) >= 1);
	wc.wr_id = 2;
	soft_cq_add(cq, &wc, FALSE);
	CU_ASSERT_EQUAL(ops->peek_cq(cq, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 2);
	/* full: the third is an overrun */
	wc.wr_id = 3;
	soft_cq_add(cq, &wc, FALSE);
	CU_ASSERT(rec_wait_events(&tag, IB_AE_CQ_ERROR, 1) >= 1);
	size = 1;
	CU_ASSERT_EQUAL(ops->resize_cq(cq, &size), IB_OVERFLOW);
	free_l = &wcs[0];
	wcs[0].p_next = &wcs[1];
	wcs[1].p_next = &wcs[2];
	wcs[2].p_next = NULL;
	CU_ASSERT_EQUAL(ops->poll_cq(cq, &free_l, &done), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(done, &wcs[0]);
	CU_ASSERT_PTR_EQUAL(done->p_next, &wcs[1]);
	CU_ASSERT_PTR_NULL(wcs[1].p_next);
	CU_ASSERT_EQUAL(wcs[0].wr_id, 1);
	CU_ASSERT_EQUAL(wcs[1].wr_id, 2);
	CU_ASSERT_PTR_EQUAL(free_l, &wcs[2]);
	/* solicited-only arming ignores unsolicited completions */
	size = 8;
	CU_ASSERT_EQUAL(ops->resize_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->rearm_cq(cq, TRUE), IB_SUCCESS);
	soft_cq_add(cq, &wc, FALSE);
	soft_cq_add(cq, &wc, TRUE);
	CU_ASSERT(rec_wait_comps(&tag, 2) >= 2);
	/* rearm_n: the upcall after the third new completion */
	CU_ASSERT_EQUAL(ops->rearm_n_cq(cq, 3), IB_SUCCESS);
	for (i = 0; i < 3; i++)
		soft_cq_add(cq, &wc, FALSE);
	CU_ASSERT(rec_wait_comps(&tag, 3) >= 3);
	CU_ASSERT_EQUAL(rec_comps(&tag), 3);
	CU_ASSERT_EQUAL(rec_events(&tag, IB_AE_CQ_ERROR), 1);
	ops->destroy_cq(cq);
	down();
}

/* A CQ's entries are resident when it is made and when it is resized: the
 * first pass of the ring faults no page on the data path. */
static void test_cq_ring_resident(void)
{
	char tag;
	soft_cq_t *cq;
	uint32_t size = 16384;

	up();
	cq = make_cq(0, 8192, &tag);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL(cq->ring.size, 8192);
	CU_ASSERT_EQUAL(test_pages_not_resident(cq->ring.wc, 8192 * sizeof(ib_wc_t)), 0);
	CU_ASSERT_EQUAL(ops->resize_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(cq->ring.size, 16384);
	CU_ASSERT_EQUAL(test_pages_not_resident(cq->ring.wc, 16384 * sizeof(ib_wc_t)), 0);
	ops->destroy_cq(cq);
	down();
}

/*
 * A CQ's entries of half a huge page or more are mapped in whole huge pages
 * (ibal_mem_queue_alloc), a smaller ring's from the heap; a resize moves the
 * completions held from one to the other, in order.
 */
static void test_cq_ring_huge(void)
{
	uint32_t big = (uint32_t)(IBAL_MEM_QUEUE_HUGE_MIN / sizeof(ib_wc_t)) + 1, size, i;
	ib_wc_t wc, wcs[3], *free_l, *done;
	soft_cq_t *cq;
	char tag;

	up();
	cq = make_cq(0, big, &tag);
	CU_ASSERT_PTR_NOT_NULL_FATAL(cq);
	CU_ASSERT_EQUAL((uintptr_t)cq->ring.wc % IBAL_MEM_HUGE, 0);
	memset(&wc, 0, sizeof(wc));
	for (i = 1; i <= 3; i++) {
		wc.wr_id = i;
		soft_cq_add(cq, &wc, FALSE);
	}
	size = 8;
	CU_ASSERT_EQUAL(ops->resize_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(cq->ring.size, 8);
	size = 2 * big;
	CU_ASSERT_EQUAL(ops->resize_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(cq->ring.size, 2 * big);
	CU_ASSERT_EQUAL((uintptr_t)cq->ring.wc % IBAL_MEM_HUGE, 0);
	CU_ASSERT_EQUAL(test_pages_not_resident(cq->ring.wc, (size_t)size * sizeof(ib_wc_t)), 0);
	free_l = &wcs[0];
	wcs[0].p_next = &wcs[1];
	wcs[1].p_next = &wcs[2];
	wcs[2].p_next = NULL;
	CU_ASSERT_EQUAL(ops->poll_cq(cq, &free_l, &done), IB_SUCCESS);
	CU_ASSERT_PTR_NULL(free_l);
	for (i = 0; i < 3 && done; i++, done = done->p_next)
		CU_ASSERT_EQUAL(done->wr_id, i + 1);
	CU_ASSERT_EQUAL(i, 3);
	ops->destroy_cq(cq);
	down();
}

/* --- Tests: QP ------------------------------------------------------------ */

static void test_qp_create(void)
{
	void *cq, *qp = NULL;
	ib_qp_create_t c;
	ib_qp_attr_t a;
	char tag;

	up();
	cq = make_cq(0, 16, &tag);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_RELIABLE_DGRM;
	c.sq_depth = c.rq_depth = 4;
	c.sq_sge = c.rq_sge = 1;
	CU_ASSERT_EQUAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_INVALID_SETTING);
	c.qp_type = IB_QPT_RAW_ETHER;
	CU_ASSERT_EQUAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_INVALID_SETTING);
	c.qp_type = IB_QPT_UNRELIABLE_DGRM;
	c.sq_sge = 1000;
	CU_ASSERT_EQUAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_INVALID_MAX_SGE);
	CU_ASSERT_EQUAL(c.sq_sge, SOFT_MAX_SGES);
	c.sq_depth = 1u << 30;
	CU_ASSERT_EQUAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_INVALID_MAX_WRS);
	CU_ASSERT_EQUAL(c.sq_depth, SOFT_MAX_WRS);
	c.sq_max_inline = 100000;
	CU_ASSERT_EQUAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ops->create_qp(pd[0], &c, NULL, cq, NULL, NULL, &qp), IB_INVALID_CQ_HANDLE);
	c.sq_depth = 8;
	c.sq_max_inline = 16;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(c.sq_max_inline, SOFT_MAX_INLINE);
	CU_ASSERT_EQUAL(ops->query_qp(qp, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(a.sq_depth, 8);
	CU_ASSERT_EQUAL(a.qp_type, IB_QPT_UNRELIABLE_DGRM);
	CU_ASSERT(cl_ntoh32(a.num) >= 2);
	ops->destroy_qp(qp);
	/* special QPs: one QP1 per port */
	{
		void *q1 = NULL, *q1b = NULL;

		c.qp_type = IB_QPT_QP1;
		CU_ASSERT_EQUAL(ops->create_spl_qp(pd[0], 2, &c, cq, cq, NULL, &q1), IB_INVALID_PORT);
		CU_ASSERT_EQUAL(ops->create_spl_qp(pd[0], 1, &c, cq, cq, NULL, &q1), IB_SUCCESS);
		CU_ASSERT_EQUAL(ops->create_spl_qp(pd[0], 1, &c, cq, cq, NULL, &q1b), IB_RESOURCE_BUSY);
		CU_ASSERT_EQUAL(ops->query_qp(q1, &a), IB_SUCCESS);
		CU_ASSERT_EQUAL(a.num, CL_HTON32(1));
		ops->destroy_qp(q1);
	}
	ops->destroy_cq(cq);
	down();
}

/* A QP's queues and an SRQ's are resident when they are made, as an HCA's:
 * their first pass faults no page on the data path. */
static void test_queues_resident(void)
{
	void *cq, *qp = NULL, *srq = NULL;
	ib_qp_create_t c;
	ib_srq_attr_t sa;
	soft_rc_t *rc;
	char tag;

	up();
	cq = make_cq(0, 64, &tag);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_RELIABLE_CONN;
	c.sq_depth = c.rq_depth = 4096;
	c.sq_sge = c.rq_sge = 4;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(test_pages_not_resident(((soft_qp_t *)qp)->rq.buf,
						(size_t)4096 * ((soft_qp_t *)qp)->rq.stride),
			0);
	rc = ((soft_qp_t *)qp)->rc;
	CU_ASSERT_PTR_NOT_NULL_FATAL(rc);
	CU_ASSERT_EQUAL(test_pages_not_resident(rc->sq, (size_t)(rc->mask + 1) * sizeof(*rc->sq)), 0);
	CU_ASSERT_EQUAL(test_pages_not_resident(rc->ds_pool,
						(size_t)(rc->mask + 1) * 4 * sizeof(*rc->ds_pool)),
			0);
	ops->destroy_qp(qp);
	c.qp_type = IB_QPT_UNRELIABLE_DGRM;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(test_pages_not_resident(((soft_qp_t *)qp)->sq,
						(size_t)4096 * sizeof(*((soft_qp_t *)qp)->sq)),
			0);
	ops->destroy_qp(qp);
	memset(&sa, 0, sizeof(sa));
	sa.max_wr = 4096;
	sa.max_sge = 4;
	CU_ASSERT_EQUAL_FATAL(ops->create_srq(pd[0], &sa, NULL, &srq), IB_SUCCESS);
	CU_ASSERT_EQUAL(test_pages_not_resident(((soft_srq_t *)srq)->rq.buf,
						(size_t)4096 * ((soft_srq_t *)srq)->rq.stride),
			0);
	ops->destroy_srq(srq);
	ops->destroy_cq(cq);
	down();
}

/* A burst of RC QPs is made from the connections' arena (prov_conn_mem.h): each
 * QP's objects and queues in its chunks, a huge one among them; the chunks
 * stay while a QP is left and go with the last one. */
#define MEM_QPS 600
static void test_qp_mem(void)
{
	static void *qp[MEM_QPS];
	ibal_arena_t probe = IBAL_ARENA_INIT;
	int plain = ibal_arena_is_plain(&probe);
	void *cq, *cq1, *last = NULL;
	ib_qp_create_t c;
	soft_qp_t *q;
	char tag;
	int i;

	up();
	cq = make_cq(0, 64, &tag);
	cq1 = make_cq(1, 64, &tag);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_RELIABLE_CONN;
	c.sq_depth = 3;
	c.rq_depth = 2;
	c.sq_sge = c.rq_sge = 1;
	for (i = 0; i < MEM_QPS; i++)
		CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp[i]), IB_SUCCESS);
	q = qp[MEM_QPS - 1];
	if (!plain) {
		CU_ASSERT_EQUAL((uintptr_t)q % IBAL_ARENA_ALIGN, 0);
		CU_ASSERT_EQUAL((uintptr_t)q->rc % IBAL_ARENA_ALIGN, 0);
		CU_ASSERT_EQUAL((uintptr_t)((soft_rc_t *)q->rc)->sq % IBAL_ARENA_ALIGN, 0);
		CU_ASSERT_EQUAL((uintptr_t)q->rq.buf % IBAL_ARENA_ALIGN, 0);
	}
	if (!plain) {
		size_t held = prov_conn_mem_held();

		/* soft_qp_t, soft_rc_t, 4 send WQEs, their segments, the receive
		 * WQE being filled and 2 posted: over a kilobyte a QP */
		CU_ASSERT(held >= (size_t)MEM_QPS * 1024);
		CU_ASSERT(held >= IBAL_ARENA_HUGE);
		CU_ASSERT(held < (size_t)MEM_QPS * 4096 + 2 * IBAL_ARENA_HUGE);
	}
	/* a QP of the other CA is left when the others go */
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[1], &c, cq1, cq1, NULL, NULL, &last), IB_SUCCESS);
	for (i = 0; i < MEM_QPS; i++)
		ops->destroy_qp(qp[i]);
	if (!plain)
		CU_ASSERT(prov_conn_mem_held() >= IBAL_ARENA_HUGE);
	ops->destroy_qp(last);
	CU_ASSERT_EQUAL(prov_conn_mem_held(), 0);
	ops->destroy_cq(cq);
	ops->destroy_cq(cq1);
	down();
}

static void test_qp_modify_flush(void)
{
	ud_end_t *e = calloc(1, sizeof(*e));
	void *cq, *qp = NULL;
	ib_qp_create_t c;
	ib_qp_attr_t a;
	ib_wc_t wc;
	ib_qp_mod_t m;
	char tag;
	int i;

	up();
	cq = make_cq(0, 16, &tag);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_UNRELIABLE_DGRM;
	c.sq_depth = c.rq_depth = 4;
	c.sq_sge = c.rq_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_SUCCESS);
	e->qp = qp;
	{
		ib_mr_create_t mc = { .length = sizeof(e->buf), .access_ctrl = IB_AC_LOCAL_WRITE };
		net32_t rk;

		mc.vaddr = e->buf;
		CU_ASSERT_EQUAL(ops->reg_mem(pd[0], &mc, &e->lkey, &rk, &e->mr), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(post_rx(e, 1, 0, 64), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTR), IB_INVALID_QP_STATE);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 3;
	CU_ASSERT_EQUAL(ops->modify_qp(qp, &m), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(to_init_ud(qp, 0x1234), IB_SUCCESS);
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(post_rx(e, 10 + i, 0, 64), IB_SUCCESS);
	CU_ASSERT_EQUAL(post_rx(e, 99, 0, 64), IB_INSUFFICIENT_RESOURCES);
	{
		void *av = make_av(0, 1, 0);

		CU_ASSERT_EQUAL(post_tx(e, av, 2, 0, 5, 0, 8, 0, 0), IB_INVALID_QP_STATE);
		ops->destroy_av(av);
	}
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTR), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTS), IB_SUCCESS);
	CU_ASSERT_EQUAL(ops->query_qp(qp, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.qkey, CL_HTON32(0x1234));
	CU_ASSERT_EQUAL(a.sq_psn, CL_HTON32(100));
	/* SQD and back */
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_SQD;
	m.state.sqd.sqd_event = TRUE;
	CU_ASSERT_EQUAL(ops->modify_qp(qp, &m), IB_SUCCESS);
	CU_ASSERT(rec_wait_events(NULL, IB_AE_SQ_DRAINED, 1) >= 1);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTS), IB_SUCCESS);
	/* to ERROR flushes the receive queue, in order */
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_ERROR), IB_SUCCESS);
	for (i = 0; i < 4; i++) {
		CU_ASSERT_FATAL(wait_wc(cq, &tag, &wc));
		CU_ASSERT_EQUAL(wc.wr_id, 10 + (uint64_t)i);
		CU_ASSERT_EQUAL(wc.status, IB_WCS_WR_FLUSHED_ERR);
		CU_ASSERT_EQUAL(wc.wc_type, IB_WC_RECV);
	}
	/* posts in ERROR complete flushed */
	CU_ASSERT_EQUAL(post_rx(e, 20, 0, 64), IB_SUCCESS);
	CU_ASSERT(wait_wc(cq, &tag, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 20);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_WR_FLUSHED_ERR);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RESET), IB_SUCCESS);
	CU_ASSERT(cq_empty(cq));
	CU_ASSERT_EQUAL(ops->dereg_mr(e->mr), IB_SUCCESS);
	ops->destroy_qp(qp);
	ops->destroy_cq(cq);
	free(e);
	down();
}

static void test_rc_modify(void)
{
	void *cq, *qp = NULL;
	ib_qp_create_t c;
	ib_qp_attr_t a;
	ib_send_wr_t wr;
	char tag;

	up();
	cq = make_cq(0, 16, &tag);
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_RELIABLE_CONN;
	c.sq_depth = c.rq_depth = 4;
	c.sq_sge = c.rq_sge = 1;
	CU_ASSERT_EQUAL_FATAL(ops->create_qp(pd[0], &c, cq, cq, NULL, NULL, &qp), IB_SUCCESS);
	rc_to_rts(qp, 77, 5);
	CU_ASSERT_EQUAL(ops->query_qp(qp, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.dest_num, CL_HTON32(77));
	CU_ASSERT_EQUAL(a.init_depth, 4);
	memset(&wr, 0, sizeof(wr));
	CU_ASSERT_EQUAL(ops->post_send(qp, &wr, NULL), IB_SUCCESS);
	ops->destroy_qp(qp);
	ops->destroy_cq(cq);
	down();
}

/*
 * The providers' block layout (prov_ca_attr.h): every array inside the
 * block, aligned, in order, not overlapping; and the layout ib_copy_ca_attr
 * gathers a scattered block into is the same one.
 */
static void test_ca_attr_layout(void)
{
	const uint8_t n_ports = 3;
	const uint16_t gids = 5, pkeys = 3;
	uint32_t size = prov_ca_attr_size(2, n_ports, gids, pkeys);
	ib_ca_attr_t *a = (ib_ca_attr_t *)calloc(1, size), *b = (ib_ca_attr_t *)calloc(1, size);
	ib_ca_attr_t *src = (ib_ca_attr_t *)calloc(1, sizeof(*src));
	ib_port_attr_t ports[3];
	ib_gid_t g[3][5];
	ib_net16_t pk[3][3];
	uint32_t pages[2] = { 4096, 65536 };
	uintptr_t last;
	unsigned i;

	CU_ASSERT_FATAL(a && b && src);
	CU_ASSERT_EQUAL(size % 8, 0);
	prov_ca_attr_layout(a, 2, n_ports, gids, pkeys);
	CU_ASSERT_EQUAL(a->size, size);
	CU_ASSERT_EQUAL(a->num_page_sizes, 2);
	CU_ASSERT_EQUAL(a->num_ports, n_ports);
	CU_ASSERT_EQUAL((uintptr_t)a->p_page_size % 4, 0);
	CU_ASSERT_EQUAL((uintptr_t)a->p_port_attr % 8, 0);
	CU_ASSERT((uint8_t *)a->p_page_size >= (uint8_t *)(a + 1));
	last = (uintptr_t)(a->p_port_attr + n_ports);
	CU_ASSERT((uintptr_t)(a->p_page_size + 2) <= (uintptr_t)a->p_port_attr);
	for (i = 0; i < n_ports; i++) {
		const ib_port_attr_t *pa = &a->p_port_attr[i];

		CU_ASSERT_EQUAL(pa->port_num, i + 1);
		CU_ASSERT_EQUAL(pa->num_gids, gids);
		CU_ASSERT_EQUAL(pa->num_pkeys, pkeys);
		CU_ASSERT_EQUAL((uintptr_t)pa->p_gid_table % 8, 0);
		CU_ASSERT_EQUAL((uintptr_t)pa->p_pkey_table % 2, 0);
		CU_ASSERT((uintptr_t)pa->p_gid_table >= last);
		CU_ASSERT((uintptr_t)pa->p_pkey_table >= (uintptr_t)(pa->p_gid_table + gids));
		last = (uintptr_t)(pa->p_pkey_table + pkeys);
	}
	CU_ASSERT(last <= (uintptr_t)a + size);
	/* A scattered block of the same counts, gathered by ib_copy_ca_attr. */
	memset(ports, 0, sizeof(ports));
	memset(g, 0x11, sizeof(g));
	memset(pk, 0x22, sizeof(pk));
	src->size = size;
	src->num_page_sizes = 2;
	src->p_page_size = pages;
	src->num_ports = n_ports;
	src->p_port_attr = ports;
	for (i = 0; i < n_ports; i++) {
		ports[i].port_num = (uint8_t)(i + 1);
		ports[i].num_gids = gids;
		ports[i].p_gid_table = g[i];
		ports[i].num_pkeys = pkeys;
		ports[i].p_pkey_table = pk[i];
	}
	CU_ASSERT_PTR_EQUAL_FATAL(ib_copy_ca_attr(b, src), b);
	CU_ASSERT_EQUAL((uint8_t *)b->p_page_size - (uint8_t *)b,
			(uint8_t *)a->p_page_size - (uint8_t *)a);
	CU_ASSERT_EQUAL((uint8_t *)b->p_port_attr - (uint8_t *)b,
			(uint8_t *)a->p_port_attr - (uint8_t *)a);
	for (i = 0; i < n_ports; i++) {
		CU_ASSERT_EQUAL((uint8_t *)b->p_port_attr[i].p_gid_table - (uint8_t *)b,
				(uint8_t *)a->p_port_attr[i].p_gid_table - (uint8_t *)a);
		CU_ASSERT_EQUAL((uint8_t *)b->p_port_attr[i].p_pkey_table - (uint8_t *)b,
				(uint8_t *)a->p_port_attr[i].p_pkey_table - (uint8_t *)a);
	}
	free(src);
	free(b);
	free(a);
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_ca_attr),
	TEST_ENTRY(test_ca_attr_layout),
	TEST_ENTRY(test_two_cas),
	TEST_ENTRY(test_av),
	TEST_ENTRY(test_mr),
	TEST_ENTRY(test_mw),
	TEST_ENTRY(test_cq),
	TEST_ENTRY(test_cq_ring_resident),
	TEST_ENTRY(test_cq_ring_huge),
	TEST_ENTRY(test_qp_create),
	TEST_ENTRY(test_queues_resident),
	TEST_ENTRY(test_qp_mem),
	TEST_ENTRY(test_qp_modify_flush),
	TEST_ENTRY(test_rc_modify),
};

TEST_MAIN("soft HCA", tests)
