/*
 * ibal tests: special QPs, MAD services, ib_send_mad, timeouts, cancel, RMPP and dispatch on two soft CAs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * On mad_fixture.h's two sides (a QP1 alias on each of two soft CAs, a
 * fabric directory of its own a test); a burst into a busy dispatcher and
 * its receive buffers are test_al_mad_recv.c's. A few checks read the dispatcher's drop counters through the internal
 * header (al_mad.h). Chosen packets are lost through the soft provider's
 * public drop filter (IBAL_SOFT_CI_DROP_FILTER of ibal_soft.h).
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <iba/ibal_soft.h>
#include "mad_fixture.h"
#include "../common/soft_ctl.h"

/* ---- Argument sweeps ---- */

static void test_spl_qp_args(void)
{
	ib_qp_create_t qc, rc;
	ib_cq_create_t cc;
	ib_qp_handle_t h, raw;
	ib_pool_key_t key;
	ib_cq_handle_t cq;
	ib_qp_attr_t qa;
	ib_qp_mod_t m;
	ib_send_wr_t wr;

	up();
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL(ib_get_spl_qp(NULL, sa.port_guid, &qc, NULL, NULL, &key, &h),
			IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, NULL, NULL, NULL, &key, &h),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, NULL),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid ^ CL_HTON64(0xFF00), &qc, NULL, NULL,
				      &key, &h),
			IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sb.port_guid, &qc, NULL, NULL, &key, &h),
			IB_INVALID_PORT); /* B's port is not on A's CA */
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &h),
			IB_INVALID_SETTING);
	qc.qp_type = IB_QPT_RAW_IPV6;
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &h),
			IB_UNSUPPORTED);
	qc.qp_type = IB_QPT_RAW_ETHER;
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &h),
			IB_UNSUPPORTED);
	/* ib_create_qp does not make special QPs. */
	qc.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL(ib_create_qp(sa.pd, &qc, NULL, NULL, &h), IB_INVALID_SETTING);

	/* A second alias shares the port's dispatcher; the pool key is optional. */
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, NULL, &h), IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(disp_of(h), disp_of(sa.qp));
	CU_ASSERT_EQUAL(ib_query_qp(h, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.qp_type, IB_QPT_QP1_ALIAS);
	CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(qa.num, CL_HTON32(1));
	CU_ASSERT_EQUAL(qa.qkey, IB_QP1_WELL_KNOWN_Q_KEY);
	CU_ASSERT_PTR_NULL(qa.h_sq_cq);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_ERROR;
	CU_ASSERT_EQUAL(ib_modify_qp(h, &m), IB_UNSUPPORTED);
	memset(&wr, 0, sizeof(wr));
	CU_ASSERT_EQUAL(ib_post_send(h, &wr, NULL), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(h, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_destroy_qp(h, ib_sync_destroy), IB_SUCCESS);
	/* The access layer's key cannot be deregistered by the user. */
	CU_ASSERT_EQUAL(ib_dereg_mad_pool(sa.key), IB_INVALID_PARAMETER);

	/* Raw QP1: busy while the dispatcher holds the port. */
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.pfn_comp_cb = (ib_pfn_comp_cb_t)NULL;
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &cc.h_wait_obj), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(sa.ca, &cc, NULL, NULL, &cq), IB_SUCCESS);
	memset(&rc, 0, sizeof(rc));
	rc.qp_type = IB_QPT_QP1;
	rc.sq_depth = rc.rq_depth = 4;
	rc.sq_sge = rc.rq_sge = 1;
	rc.h_sq_cq = rc.h_rq_cq = cq;
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &rc, NULL, NULL, NULL, &raw),
			IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_destroy_qp(sa.qp, ib_sync_destroy), IB_SUCCESS);
	sa.qp = NULL;
	/* The dispatcher is gone with its last alias: the raw QP1 is the user's. */
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(sa.pd, sa.port_guid, &rc, NULL, NULL, NULL, &raw),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &h),
			IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(raw, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(raw, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(qa.qp_type, IB_QPT_QP1);
	CU_ASSERT_EQUAL(reg(&sa, raw, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sa.svc),
			IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(ib_destroy_qp(raw, ib_sync_destroy), IB_SUCCESS);
	/* And an alias again afterwards. */
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &sa.qp),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, ib_sync_destroy), IB_SUCCESS);
	cl_waitobj_destroy(cc.h_wait_obj);
	/* The last alias destroyed asynchronously and a new one at once: the
	 * new one waits for the old dispatcher's teardown, or shares it. */
	{
		ib_api_status_t st;
		int i;

		for (i = 0; i < 20; i++) {
			CU_ASSERT_EQUAL(ib_destroy_qp(sa.qp, NULL), IB_SUCCESS);
			st = ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &sa.qp);
			if (st != IB_SUCCESS)
				fprintf(stderr, "ib_get_spl_qp after an async destroy: %s\n",
					ib_get_err_str(st));
			CU_ASSERT_EQUAL_FATAL(st, IB_SUCCESS);
		}
	}
	/* QP0 alias on the same port: a dispatcher of its own. */
	qc.qp_type = IB_QPT_QP0_ALIAS;
	CU_ASSERT_EQUAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, &key, &h), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_EQUAL(disp_of(h), disp_of(sa.qp));
	CU_ASSERT_EQUAL(ib_query_qp(h, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.num, 0);
	down();
}

static void test_init_dgrm_args(void)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_cq_handle_t cq;
	ib_qp_handle_t ud, rc, mq;
	ib_dgrm_info_t di;
	ib_qp_attr_t qa;

	up();
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &cc.h_wait_obj), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(sa.ca, &cc, NULL, NULL, &cq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = cq;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(sa.pd, &qc, NULL, NULL, &ud), IB_SUCCESS);
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(sa.pd, &qc, NULL, NULL, &rc), IB_SUCCESS);
	memset(&di, 0, sizeof(di));
	di.port_guid = sa.port_guid;
	di.qkey = CL_HTON32(0x11223344);
	di.pkey_index = 0;
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(NULL, &di), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(ud, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(rc, &di), IB_INVALID_PARAMETER);
	di.port_guid ^= CL_HTON64(0xFF);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(ud, &di), IB_INVALID_PORT);
	di.port_guid = sa.port_guid;
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(ud, &di), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(ud, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(qa.qkey, CL_HTON32(0x11223344));
	/* Again: back through RESET, with a new Q_Key. */
	di.qkey = CL_HTON32(0x55);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(ud, &di), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(ud, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.qkey, CL_HTON32(0x55));

	/* IB_QPT_MAD: no CQs; services only once in service. */
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_MAD;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(sa.pd, &qc, NULL, NULL, &mq), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(mq, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(reg(&sa, mq, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sa.svc),
			IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(mq, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(mq, &di), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(mq, &di), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(ib_query_qp(mq, &qa), IB_SUCCESS);
	CU_ASSERT_EQUAL(qa.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(qa.qkey, CL_HTON32(0x55));
	CU_ASSERT_NOT_EQUAL(qa.num, 0);
	CU_ASSERT_NOT_EQUAL(qa.num, CL_HTON32(1));
	CU_ASSERT_EQUAL(ib_destroy_qp(ud, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_qp(rc, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, ib_sync_destroy), IB_SUCCESS);
	cl_waitobj_destroy(cc.h_wait_obj);
	down();
}

static void test_reg_svc_args(void)
{
	static const uint8_t get[] = { IB_MAD_METHOD_GET, 0 };
	static const uint8_t set[] = { IB_MAD_METHOD_SET, 0 };
	ib_qp_create_t qc;
	ib_qp_handle_t a2;
	ib_mad_svc_handle_t h, h2, h3;
	ib_mad_svc_t svc;

	up();
	memset(&svc, 0, sizeof(svc));
	svc.pfn_mad_send_cb = on_send;
	svc.pfn_mad_recv_cb = on_recv;
	CU_ASSERT_EQUAL(ib_reg_mad_svc(NULL, &svc, &h), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, NULL, &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, &svc, NULL), IB_INVALID_PARAMETER);
	svc.pfn_mad_recv_cb = NULL;
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, &svc, &h), IB_INVALID_PARAMETER);
	svc.pfn_mad_recv_cb = on_recv;
	svc.pfn_mad_send_cb = NULL;
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, &svc, &h), IB_INVALID_PARAMETER);
	svc.pfn_mad_send_cb = on_send;
	svc.svc_type = (ib_mad_svc_type_t)7;
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, &svc, &h), IB_INVALID_PARAMETER);
	svc.svc_type = IB_MAD_SVC_DEFAULT;
	svc.support_unsol = TRUE; /* and no method */
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, &svc, &h), IB_INVALID_SETTING);
	svc.support_unsol = FALSE;
	CU_ASSERT_EQUAL(ib_reg_mad_svc(sa.qp, &svc, &h), IB_SUCCESS);
	/* Several services on one QP; one owner per (class, version, method) per port. */
	CU_ASSERT_EQUAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &h2), IB_SUCCESS);
	CU_ASSERT_EQUAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &h3),
			IB_INVALID_SETTING);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP1_ALIAS;
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, NULL, NULL, NULL, &a2),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL(reg(&sa, a2, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &h3), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(reg(&sa, a2, VCLASS, 1, IB_MAD_SVC_DEFAULT, set, &h3), IB_SUCCESS);
	CU_ASSERT_EQUAL(reg(&sa, a2, VCLASS, 2, IB_MAD_SVC_DEFAULT, get, &h3), IB_SUCCESS);
	/* Another port (B's CA) is independent. */
	CU_ASSERT_EQUAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &h3), IB_SUCCESS);
	/* The service ends with its QP: the method is free again. */
	CU_ASSERT_EQUAL(ib_destroy_qp(a2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, set, &h3), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_send_mad(h3, NULL, NULL), IB_INVALID_PARAMETER);
	down();
}

static void test_send_args(void)
{
	ib_mad_element_t *e, *e2, *fail;
	static uint8_t fake[1024];
	uint8_t in[256], out[256];

	up();
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_GET, 1);
	e2 = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_GET, 2);
	CU_ASSERT_EQUAL(ib_send_mad(NULL, e, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, NULL, NULL), IB_INVALID_PARAMETER);
	e->p_next = e2;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_INVALID_PARAMETER);
	e->p_next = NULL;
	/* Not an element of a pool. */
	memcpy(fake, e, sizeof(*e));
	fail = NULL;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, (ib_mad_element_t *)fake, &fail), IB_INVALID_PARAMETER);
	CU_ASSERT_PTR_EQUAL(fail, fake);
	/* Too short, too long without RMPP, bad RMPP version. */
	e->size = 10;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_INVALID_PARAMETER);
	e->size = 256;
	e->rmpp_version = 2;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_INVALID_SETTING);
	e->rmpp_version = 0;
	CU_ASSERT_EQUAL(ib_put_mad(e2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_mad(sb.key, 1000, &e2), IB_SUCCESS);
	e2->size = 1000;
	e2->p_mad_buf->base_ver = 1;
	e2->p_mad_buf->mgmt_class = VCLASS;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e2, NULL), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_put_mad(e2), IB_SUCCESS);
	/* The failure element of a list: the first bad one; earlier ones are sent. */
	e2 = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 3);
	e2->size = 5;
	e->p_mad_buf->method = IB_MAD_METHOD_SEND;
	e->p_next = e2;
	fail = NULL;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, &fail), IB_INVALID_PARAMETER);
	CU_ASSERT_PTR_EQUAL(fail, e2);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 1), 1);
	CU_ASSERT_PTR_EQUAL(sb.sends[0], e);
	CU_ASSERT_EQUAL(e->status, IB_WCS_SUCCESS);
	/* Sending an element that is still being sent. */
	e2->size = 256;
	e2->p_next = NULL;
	e2->resp_expected = TRUE;
	e2->timeout_ms = 60000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e2, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e2, NULL), IB_INVALID_PARAMETER);
	/* Nor can it go back to its pool before its send callback. */
	CU_ASSERT_EQUAL(ib_put_mad(e2), IB_INVALID_PARAMETER);
	/* Cancel. */
	CU_ASSERT_EQUAL(ib_cancel_mad(NULL, e2), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_cancel_mad(sb.svc, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_cancel_mad(sb.svc, e), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(ib_cancel_mad(sb.svc, e2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_cancel_mad(sb.svc, e2), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 2), 2);
	CU_ASSERT_PTR_EQUAL(sb.sends[1], e2);
	CU_ASSERT_EQUAL(e2->status, IB_WCS_CANCELED);
	/* ib_local_mad: arguments, then the provider's answer. */
	memset(in, 0, sizeof(in));
	in[0] = 1;
	in[1] = IB_MCLASS_SUBN_LID;
	in[2] = 1;
	in[3] = IB_MAD_METHOD_GET;
	CU_ASSERT_EQUAL(ib_local_mad(NULL, 1, in, out), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_local_mad(sa.ca, 1, NULL, out), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_local_mad(sa.ca, 1, in, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_local_mad(sa.ca, 0, in, out), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ib_local_mad(sa.ca, 9, in, out), IB_INVALID_PORT);
	/* The soft port's SMA answers: SubnGetResp(NodeInfo) naming A's port. */
	in[16] = 0x00;
	in[17] = 0x11; /* AttributeID NodeInfo */
	memset(out, 0, sizeof(out));
	CU_ASSERT_EQUAL(ib_local_mad(sa.ca, 1, in, out), IB_SUCCESS);
	CU_ASSERT_EQUAL(out[3], IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(out[4] | out[5], 0); /* status */
	CU_ASSERT_EQUAL(((const ib_node_info_t *)(out + 64))->port_guid, sa.port_guid);
	down();
}

/* ---- Traffic ---- */

static void test_unsolicited(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_mad_element_t *e, *r;

	up();
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 0x77);
	fill((uint8_t *)e->p_mad_buf + 24, 232, 5);
	e->context1 = &sb;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 1), 1);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 1), 1);
	CU_ASSERT_EQUAL(e->status, IB_WCS_SUCCESS);
	r = sa.recvs[0];
	CU_ASSERT_EQUAL(r->size, 256);
	CU_ASSERT_EQUAL(r->remote_lid, sb.lid);
	CU_ASSERT_EQUAL(r->remote_qp, CL_HTON32(1));
	CU_ASSERT_EQUAL(r->status, IB_WCS_SUCCESS);
	CU_ASSERT_PTR_NULL(r->send_context1);
	CU_ASSERT_EQUAL(r->p_mad_buf->method, IB_MAD_METHOD_SEND);
	/* The access layer owns the upper half of request TIDs. */
	CU_ASSERT_EQUAL(cl_ntoh64(r->p_mad_buf->trans_id) & 0xFFFFFFFFu, 0x77);
	CU_ASSERT_EQUAL(r->p_mad_buf->trans_id, e->p_mad_buf->trans_id);
	CU_ASSERT(check((uint8_t *)r->p_mad_buf + 24, 232, 5));
	down();
}

static void test_request_response(void)
{
	static const uint8_t get[] = { IB_MAD_METHOD_GET, 0 };
	ib_mad_element_t *list = NULL, *e, *fail;
	int i, j, found;

	up();
	sa.responder = TRUE;
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &sa.svc),
			      IB_SUCCESS);
	sa.resp_svc = sa.svc;
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	/* 20 requests in one list, all answered and matched by TID. */
	for (i = 19; i >= 0; i--) {
		e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_GET, 1000 + i);
		e->resp_expected = TRUE;
		e->timeout_ms = 5000;
		e->retry_cnt = 3;
		e->context1 = (void *)(uintptr_t)(i + 1);
		e->context2 = (void *)(uintptr_t)(100 + i);
		e->p_next = list;
		list = e;
	}
	fail = NULL;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, list, &fail), IB_SUCCESS);
	CU_ASSERT_PTR_NULL(fail);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_recv, 20), 20);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 20), 20);
	/* A counts a request after sending its answer (on_recv): B can have
	 * all the answers a moment before A has counted the last request. */
	CU_ASSERT_EQUAL(wait_n(&sa, &sa.n_recv, 20), 20);
	for (i = 0; i < 20; i++) {
		ib_mad_element_t *r = sb.recvs[i];

		CU_ASSERT_EQUAL(r->p_mad_buf->method, IB_MAD_METHOD_GET_RESP);
		CU_ASSERT_EQUAL(r->status, IB_WCS_SUCCESS);
		found = 0;
		for (j = 0; j < 20; j++) {
			e = sb.sends[j];
			if (e->p_mad_buf->trans_id == r->p_mad_buf->trans_id) {
				found = 1;
				CU_ASSERT_PTR_EQUAL(r->send_context1, e->context1);
				CU_ASSERT_PTR_EQUAL(r->send_context2, e->context2);
				CU_ASSERT_EQUAL(e->status, IB_WCS_SUCCESS);
			}
		}
		CU_ASSERT(found);
	}
	down();
}

static void test_timeout_retries(void)
{
	static const uint8_t get[] = { IB_MAD_METHOD_GET, 0 };
	ib_mad_element_t *e;
	uint64_t t0;

	up();
	sa.put_recvs = TRUE; /* A takes the requests and never answers */
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_GET, 9);
	e->resp_expected = TRUE;
	e->timeout_ms = 40;
	e->retry_cnt = 2;
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sb, &sb.n_send, 1), 1);
	CU_ASSERT(test_now_ms() - t0 >= 120);
	CU_ASSERT_EQUAL(e->status, IB_WCS_TIMEOUT_RETRY_ERR);
	/* The first send and two retries reached A. */
	CU_ASSERT_EQUAL(wait_n(&sa, &sa.n_recv, 3), 3);
	CU_ASSERT_EQUAL(sb.n_recv, 0);
	down();
}

/* A request nobody serves gets an answer with the unsupported status. */
static void test_unsupported(void)
{
	static const uint8_t get[] = { IB_MAD_METHOD_GET, 0 };
	ib_mad_element_t *e;

	up();
	sa.put_recvs = TRUE;
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	/* No service for the class at all. */
	e = mad_to(&sb, &sa, 256, 0x0B, IB_MAD_METHOD_GET, 1);
	e->resp_expected = TRUE;
	e->timeout_ms = 5000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sb, &sb.n_recv, 1), 1);
	CU_ASSERT_EQUAL(sb.recvs[0]->p_mad_buf->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(sb.recvs[0]->p_mad_buf->status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	/* The class, another version. */
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_GET, 2);
	e->p_mad_buf->class_ver = 2;
	e->resp_expected = TRUE;
	e->timeout_ms = 5000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sb, &sb.n_recv, 2), 2);
	CU_ASSERT_EQUAL(sb.recvs[1]->p_mad_buf->status, IB_MAD_STATUS_UNSUP_CLASS_VER);
	/* The class and version, another method. */
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SET, 3);
	e->resp_expected = TRUE;
	e->timeout_ms = 5000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sb, &sb.n_recv, 3), 3);
	CU_ASSERT_EQUAL(sb.recvs[2]->p_mad_buf->status, IB_MAD_STATUS_UNSUP_METHOD);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 3), 3);
	CU_ASSERT_EQUAL(sa.n_recv, 0);
	down();
}

/* Truncated MADs, bad base versions and bad RMPP headers are dropped. */
static void test_malformed(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_mad_svc_handle_t raw;
	ib_mad_element_t *e;
	ib_rmpp_mad_t *r;
	al_mad_disp_t *d;
	uint32_t bad0;

	up();
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.resp_svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_RAW, NULL, &raw), IB_SUCCESS);
	d = disp_of(sa.qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	bad0 = d->n_drop_bad;
	/* Base version 2. */
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 1);
	e->p_mad_buf->base_ver = 2;
	CU_ASSERT_EQUAL(ib_send_mad(raw, e, NULL), IB_SUCCESS);
	/* RMPP-active DATA of version 7, then a middle segment with no transfer. */
	e = mad_to(&sb, &sa, 256, RCLASS, IB_MAD_METHOD_SEND, 2);
	r = (ib_rmpp_mad_t *)e->p_mad_buf;
	r->rmpp_version = 7;
	r->rmpp_type = IB_RMPP_TYPE_DATA;
	r->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST;
	r->seg_num = CL_HTON32(1);
	CU_ASSERT_EQUAL(ib_send_mad(raw, e, NULL), IB_SUCCESS);
	e = mad_to(&sb, &sa, 256, RCLASS, IB_MAD_METHOD_SEND, 3);
	r = (ib_rmpp_mad_t *)e->p_mad_buf;
	r->rmpp_version = 1;
	r->rmpp_type = IB_RMPP_TYPE_DATA;
	r->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST;
	r->seg_num = CL_HTON32(5); /* FIRST with segment 5 */
	CU_ASSERT_EQUAL(ib_send_mad(raw, e, NULL), IB_SUCCESS);
	e = mad_to(&sb, &sa, 256, RCLASS, IB_MAD_METHOD_SEND, 4);
	r = (ib_rmpp_mad_t *)e->p_mad_buf;
	r->rmpp_version = 1;
	r->rmpp_type = 9; /* bad type */
	r->rmpp_flags = IB_RMPP_FLAG_ACTIVE;
	CU_ASSERT_EQUAL(ib_send_mad(raw, e, NULL), IB_SUCCESS);
	/* Then a good one: it arrives after the others (one path, in order). */
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 5);
	CU_ASSERT_EQUAL(ib_send_mad(raw, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 1), 1);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 5), 5);
	CU_ASSERT_EQUAL(cl_ntoh64(sa.recvs[0]->p_mad_buf->trans_id), 5); /* RAW keeps TIDs */
	/* The soft port's agent layer drops the bad base version before the
	 * dispatcher sees it; of the bad RMPP headers, the FIRST-with-segment-5
	 * and the bad type count here (version 7 is answered with an ABORT). */
	CU_ASSERT(d->n_drop_bad >= bad0 + 2);
	CU_ASSERT_EQUAL(sa.n_recv, 1);
	down();
}

static void test_cancel_and_destroy(void)
{
	static const uint8_t get[] = { IB_MAD_METHOD_GET, 0 };
	ib_mad_element_t *e;

	up();
	sa.put_recvs = TRUE;
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	/* An outstanding request completes (canceled) before the QP's destroy callback. */
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_GET, 1);
	e->resp_expected = TRUE;
	e->timeout_ms = 60000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_n(&sa, &sa.n_recv, 1), 1);
	CU_ASSERT_EQUAL(ib_destroy_qp(sb.qp, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_destroy, 1), 1);
	CU_ASSERT_EQUAL(sb.n_order, 2);
	CU_ASSERT_EQUAL(sb.order[0], 1);
	CU_ASSERT_EQUAL(sb.order[1], 2);
	CU_ASSERT_EQUAL(e->status, IB_WCS_CANCELED);
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_INVALID_HANDLE);
	/* Received elements stay valid after their QP is gone. */
	down();
}

/* ---- RMPP ---- */

/* Installs (or with NULL removes) the soft fabric's drop filter through A's CA. */
static void set_drop_filter(ibal_soft_drop_fn_t pfn)
{
	ibal_soft_drop_ctl_t c = { pfn, NULL };

	CU_ASSERT_EQUAL(soft_ctl(sa.ca, IBAL_SOFT_CI_DROP_FILTER, &c, sizeof(c)), IB_SUCCESS);
}

static uint32_t drop_every; /* drop filter: about one RCLASS packet in drop_every */
static uint32_t drop_count;  /* RCLASS packets seen */
static uint32_t drop_rng;    /* the filter's pseudo-random state (fixed seed per run) */

static boolean_t drop_rmpp(void *ctx, const void *pkt, size_t len)
{
	const uint8_t *p = (const uint8_t *)pkt;

	(void)ctx;
	/* LRH 8 + BTH 12 + DETH 8, then the MAD (no GRH on the soft fabric here). */
	if (len < 28 + 24 || p[28 + 1] != RCLASS)
		return FALSE;
	drop_count++;
	drop_rng = drop_rng * 1103515245u + 12345u;
	return drop_every && (drop_rng >> 16) % drop_every == 0;
}

/* One RMPP transfer of segs segments each way: unsolicited B->A, then a
 * request from A answered by B with an RMPP response. */
static void rmpp_run(uint32_t segs, uint32_t loss)
{
	static const uint8_t send_get[] = { IB_MAD_METHOD_SEND, IB_MAD_METHOD_GET, 0 };
	uint32_t size = RHDR + (segs - 1) * RDATA + 100;
	ib_mad_element_t *e, *r;

	up();
	drop_every = loss;
	drop_count = 0;
	drop_rng = 0x5eed + segs;
	set_drop_filter(drop_rmpp);
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, send_get, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, send_get, &sb.svc),
			      IB_SUCCESS);
	sb.responder = TRUE;
	sb.resp_svc = sb.svc;
	/* B -> A, unsolicited. */
	e = mad_to(&sb, &sa, size, RCLASS, IB_MAD_METHOD_SEND, 1);
	e->rmpp_version = 1;
	e->timeout_ms = 30;
	e->retry_cnt = 40;
	fill((uint8_t *)e->p_mad_buf + RHDR, size - RHDR, 3);
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sb, &sb.n_send, 1), 1);
	CU_ASSERT_EQUAL(e->status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 1), 1);
	r = sa.recvs[0];
	CU_ASSERT_EQUAL(r->size, size);
	CU_ASSERT(check((uint8_t *)r->p_mad_buf + RHDR, size - RHDR, 3));
	CU_ASSERT_EQUAL(r->p_mad_buf->trans_id, e->p_mad_buf->trans_id);
	/* A -> B request, B answers with segs segments. */
	e = mad_to(&sa, &sb, 256, RCLASS, IB_MAD_METHOD_GET, 2);
	e->p_mad_buf->attr_mod = cl_hton32(segs);
	e->resp_expected = TRUE;
	e->timeout_ms = 3000;
	e->retry_cnt = 3;
	e->context1 = &sa;
	CU_ASSERT_EQUAL(ib_send_mad(sa.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 2), 2);
	CU_ASSERT_EQUAL(wait_n(&sa, &sa.n_send, 1), 1);
	CU_ASSERT_EQUAL(e->status, IB_WCS_SUCCESS);
	r = sa.recvs[1];
	CU_ASSERT_PTR_EQUAL(r->send_context1, &sa);
	CU_ASSERT_EQUAL(r->size, size);
	CU_ASSERT_EQUAL(r->p_mad_buf->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT(check((uint8_t *)r->p_mad_buf + RHDR, size - RHDR, segs));
	/* After this returns the filter no longer runs: its counter is ours. */
	set_drop_filter(NULL);
	if (loss)
		CU_ASSERT(drop_count > segs);
	down();
}

static void test_rmpp_1(void) { rmpp_run(1, 0); }
static void test_rmpp_2(void) { rmpp_run(2, 0); }
static void test_rmpp_50(void) { rmpp_run(50, 0); }
static void test_rmpp_300(void) { rmpp_run(300, 0); }
static void test_rmpp_2_loss(void) { rmpp_run(2, 3); }
static void test_rmpp_50_loss(void) { rmpp_run(50, 7); }
static void test_rmpp_300_loss(void) { rmpp_run(300, 13); }

/* An RMPP transfer to a port with no QP1 user: never delivered, fails. */
static void test_rmpp_no_receiver(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_mad_element_t *e;

	up();
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	e = mad_to(&sb, &sa, RHDR + 3 * RDATA, RCLASS, IB_MAD_METHOD_SEND, 1);
	e->rmpp_version = 1;
	e->timeout_ms = 30;
	e->retry_cnt = 2;
	CU_ASSERT_EQUAL(ib_destroy_qp(sa.qp, ib_sync_destroy), IB_SUCCESS);
	sa.qp = NULL;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sb, &sb.n_send, 1), 1);
	/* No QP1 on A: the provider drops it (or the unsupported answer comes). */
	CU_ASSERT(e->status == IB_WCS_TIMEOUT_RETRY_ERR || e->status == IB_WCS_REM_ABORT_ERR);
	CU_ASSERT_EQUAL(sa.n_recv, 0);
	down();
}

/* Drops every DATA segment past the 40th. */
static boolean_t drop_after_40(void *ctx, const void *pkt, size_t len)
{
	const uint8_t *m = (const uint8_t *)pkt + 28;

	(void)ctx;
	if (len < 28 + 36 || m[1] != RCLASS || m[25] != IB_RMPP_TYPE_DATA)
		return FALSE;
	return ((uint32_t)m[28] << 24 | (uint32_t)m[29] << 16 | (uint32_t)m[30] << 8 | m[31]) > 40;
}

/* Canceling a stalled RMPP send aborts the receiver's reassembly. */
static void test_rmpp_cancel(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_mad_element_t *e, *e2;
	al_mad_disp_t *d;
	uint32_t n_rx;

	up();
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.svc),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, sb.qp, RCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &sb.svc),
			      IB_SUCCESS);
	set_drop_filter(drop_after_40);
	e = mad_to(&sb, &sa, RHDR + 100 * RDATA, RCLASS, IB_MAD_METHOD_SEND, 1);
	e->rmpp_version = 1;
	e->timeout_ms = 60000; /* stalls at segment 41 until canceled */
	e->retry_cnt = 1;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e, NULL), IB_SUCCESS);
	/* Another transfer completes meanwhile: A has seen the first window by then. */
	e2 = mad_to(&sb, &sa, RHDR + 5 * RDATA, RCLASS, IB_MAD_METHOD_SEND, 2);
	e2->rmpp_version = 1;
	e2->timeout_ms = 5000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e2, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 1), 1);
	CU_ASSERT_EQUAL(sa.recvs[0]->size, RHDR + 5 * RDATA);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 1), 1);
	d = disp_of(sa.qp);
	CU_ASSERT_EQUAL(ib_cancel_mad(sb.svc, e), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 2), 2);
	CU_ASSERT_EQUAL(e->status, IB_WCS_CANCELED);
	set_drop_filter(NULL);
	/* The ABORT went out before this one: once it is in, the reassembly is gone. */
	e2 = mad_to(&sb, &sa, RHDR + RDATA, RCLASS, IB_MAD_METHOD_SEND, 3);
	e2->rmpp_version = 1;
	e2->timeout_ms = 5000;
	CU_ASSERT_EQUAL(ib_send_mad(sb.svc, e2, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 2), 2);
	pthread_mutex_lock(&d->lock);
	n_rx = 0;
	{
		cl_list_item_t *it;

		for (it = cl_qlist_head(&d->rmpp_rx); it != cl_qlist_end(&d->rmpp_rx);
		     it = cl_qlist_next(it))
			n_rx += ((al_rmpp_rx_t *)it)->done ? 0 : 1;
	}
	pthread_mutex_unlock(&d->lock);
	CU_ASSERT_EQUAL(n_rx, 0);
	CU_ASSERT_EQUAL(sa.n_recv, 2);
	CU_ASSERT_EQUAL(sa.recvs[1]->size, RHDR + RDATA);
	/* The third send's completion may still be on its way: wait for it
	 * before down() reads the records without the lock. */
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 3), 3);
	down();
}

/* ---- IB_QPT_MAD ---- */

/* ---- SMP requests no service takes ---- */

#define SMP_TID0 0x5A5A000000000000ull /* TIDs of the test's SMPs */
#define SMP_CAP 8

/* SMP answers caught on the wire (and kept off it) by cap_smp(). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
	uint16_t dlid[SMP_CAP];    /* LRH DLID, host order */
	uint8_t vl[SMP_CAP];
	uint32_t dqp[SMP_CAP];     /* BTH destination QP */
	uint32_t qkey[SMP_CAP];    /* DETH Q_Key */
	ib_smp_t smp[SMP_CAP];
} cap;

static boolean_t cap_smp(void *ctx, const void *pkt, size_t len)
{
	const uint8_t *p = (const uint8_t *)pkt;
	const ib_smp_t *smp = (const ib_smp_t *)(p + 28); /* LRH 8, BTH 12, DETH 8 */
	int i;

	(void)ctx;
	if (len < 28 + sizeof(ib_smp_t) || (smp->mgmt_class != IB_MCLASS_SUBN_LID &&
					     smp->mgmt_class != IB_MCLASS_SUBN_DIR) ||
	    (cl_ntoh64(smp->trans_id) & ~0xFFFFull) != SMP_TID0)
		return FALSE;
	pthread_mutex_lock(&cap.lock);
	i = cap.n;
	if (i < SMP_CAP) {
		cap.dlid[i] = (uint16_t)(p[2] << 8 | p[3]);
		cap.vl[i] = p[0] >> 4;
		cap.dqp[i] = (uint32_t)p[13] << 16 | (uint32_t)p[14] << 8 | p[15];
		cap.qkey[i] = (uint32_t)p[20] << 24 | (uint32_t)p[21] << 16 |
			      (uint32_t)p[22] << 8 | p[23];
		memcpy(&cap.smp[i], smp, sizeof(*smp));
		cap.n++;
		pthread_cond_broadcast(&cap.cond);
	}
	pthread_mutex_unlock(&cap.lock);
	return TRUE;
}

static int cap_wait(int want)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	int n;

	pthread_mutex_lock(&cap.lock);
	while (cap.n < want && test_now_ms() < end) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_nsec += 20 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&cap.cond, &cap.lock, &ts);
	}
	n = cap.n;
	pthread_mutex_unlock(&cap.lock);
	return n;
}

/* The capture whose TID ends in @p low, or NULL. */
static const ib_smp_t *cap_find(unsigned low, int *p_i)
{
	int i;

	for (i = 0; i < cap.n; i++)
		if ((cl_ntoh64(cap.smp[i].trans_id) & 0xFFFF) == low) {
			*p_i = i;
			return &cap.smp[i];
		}
	return NULL;
}

/* A request as a QP0 receive brings it: @p buf is the GRH area and the MAD. */
static void smp_req(uint8_t *buf, ib_wc_t *wc, uint8_t cls, uint8_t method, ib_net16_t attr,
		    unsigned low, ib_net16_t slid)
{
	ib_smp_t *smp = (ib_smp_t *)(buf + sizeof(ib_grh_t));
	int i;

	memset(buf, 0, AL_MAD_RECV_SLOT);
	memset(wc, 0, sizeof(*wc));
	smp->base_ver = 1;
	smp->mgmt_class = cls;
	smp->class_ver = 1;
	smp->method = method;
	smp->trans_id = cl_hton64(SMP_TID0 | low);
	smp->attr_id = attr;
	smp->attr_mod = CL_HTON32(0x77);
	for (i = 0; i < IB_SMP_DATA_SIZE; i++)
		smp->data[i] = (uint8_t)(0xC0 + i);
	if (cls == IB_MCLASS_SUBN_DIR) {
		/* Two hops out (SM's port 1, switch port 3), as the SMI of the
		 * receiving port leaves it: return path complete, hop pointer
		 * one past the hop count. */
		smp->hop_count = 2;
		smp->hop_ptr = 3;
		smp->dr_slid = CL_HTON16(IB_LID_PERMISSIVE);
		smp->dr_dlid = CL_HTON16(IB_LID_PERMISSIVE);
		smp->initial_path[1] = 1;
		smp->initial_path[2] = 3;
		smp->return_path[1] = 5;
		smp->return_path[2] = 1;
	}
	wc->wc_type = IB_WC_RECV;
	wc->status = IB_WCS_SUCCESS;
	wc->length = AL_MAD_RECV_SLOT;
	wc->recv.ud.remote_lid = slid;
	wc->recv.ud.remote_qp = 0;
}

/* Unsolicited SMPs that no service of A's QP0 takes get their answer on
 * QP0 (VL15, remote QP 0, Q_Key 0): a directed-route one with the D bit,
 * its paths, hop count and hop pointer as they came, to the permissive
 * LID; SubnGet(SMInfo) with a not-active SMInfo of A's port; other Gets
 * and Sets with "unsupported method/attribute"; no answer to a Trap. The
 * requests are handed to the dispatcher as its thread would (the soft
 * ports' SMA answers every SMP itself, so none reaches a QP0 there), and
 * the answers are caught on the wire. */
static void test_smp_unsolicited(void)
{
	static const ib_smp_t zero_smp;
	uint8_t buf[AL_MAD_RECV_SLOT];
	ib_qp_create_t qc;
	ib_qp_handle_t qp0;
	ib_pool_key_t key;
	const ib_smp_t *a, *q = (const ib_smp_t *)(buf + sizeof(ib_grh_t));
	const ib_sm_info_t *smi;
	al_mad_disp_t *d;
	ib_wc_t wc;
	int i;

	up();
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP0_ALIAS;
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(sa.pd, sa.port_guid, &qc, &sa, NULL, &key, &qp0),
			      IB_SUCCESS);
	d = disp_of(qp0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	pthread_mutex_init(&cap.lock, NULL);
	test_cond_init_mono(&cap.cond);
	cap.n = 0;
	set_drop_filter(cap_smp);

	/* 1: directed route, an attribute nobody implements. */
	smp_req(buf, &wc, IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_GET, CL_HTON16(0xFF10), 1,
		CL_HTON16(IB_LID_PERMISSIVE));
	pthread_mutex_lock(&d->lock);
	al_mad_rx(d, &wc, buf);
	pthread_mutex_unlock(&d->lock);
	CU_ASSERT_EQUAL_FATAL(cap_wait(1), 1);
	a = &cap.smp[0];
	CU_ASSERT_EQUAL(cap.dlid[0], IB_LID_PERMISSIVE);
	CU_ASSERT_EQUAL(cap.vl[0], 15);
	CU_ASSERT_EQUAL(cap.dqp[0], 0);
	CU_ASSERT_EQUAL(cap.qkey[0], 0);
	CU_ASSERT_EQUAL(a->mgmt_class, IB_MCLASS_SUBN_DIR);
	CU_ASSERT_EQUAL(a->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT(ib_smp_is_d(a));
	CU_ASSERT_EQUAL(a->status, IB_MAD_STATUS_UNSUP_METHOD_ATTR | IB_SMP_DIRECTION);
	CU_ASSERT_EQUAL(a->hop_count, 2);
	CU_ASSERT_EQUAL(a->hop_ptr, 3);
	CU_ASSERT_EQUAL(a->dr_slid, CL_HTON16(IB_LID_PERMISSIVE));
	CU_ASSERT_EQUAL(a->dr_dlid, CL_HTON16(IB_LID_PERMISSIVE));
	CU_ASSERT_EQUAL(memcmp(a->initial_path, q->initial_path, sizeof(a->initial_path)), 0);
	CU_ASSERT_EQUAL(memcmp(a->return_path, q->return_path, sizeof(a->return_path)), 0);
	CU_ASSERT_EQUAL(a->return_path[1], 5); /* the way back: switch port 5, then our port 1 */
	CU_ASSERT_EQUAL(a->return_path[2], 1);
	CU_ASSERT_EQUAL(a->trans_id, q->trans_id);
	CU_ASSERT_EQUAL(a->attr_id, q->attr_id);
	CU_ASSERT_EQUAL(a->attr_mod, q->attr_mod);
	CU_ASSERT_EQUAL(memcmp(a->data, q->data, sizeof(a->data)), 0);

	/* 2: directed route SubnGet(SMInfo): a not-active SM at A's port. 3: Set(SMInfo).
	 * 4: a Trap (no answer). 5: LID-routed Get from B's LID. 6: class version 2. */
	pthread_mutex_lock(&d->lock);
	smp_req(buf, &wc, IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_GET, IB_MAD_ATTR_SM_INFO, 2,
		CL_HTON16(IB_LID_PERMISSIVE));
	al_mad_rx(d, &wc, buf);
	smp_req(buf, &wc, IB_MCLASS_SUBN_DIR, IB_MAD_METHOD_SET, IB_MAD_ATTR_SM_INFO, 3,
		CL_HTON16(IB_LID_PERMISSIVE));
	al_mad_rx(d, &wc, buf);
	smp_req(buf, &wc, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_TRAP, IB_MAD_ATTR_NOTICE, 4, sb.lid);
	al_mad_rx(d, &wc, buf);
	smp_req(buf, &wc, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, CL_HTON16(0xFF10), 5, sb.lid);
	al_mad_rx(d, &wc, buf);
	smp_req(buf, &wc, IB_MCLASS_SUBN_LID, IB_MAD_METHOD_GET, CL_HTON16(0xFF10), 6, sb.lid);
	((ib_smp_t *)(buf + sizeof(ib_grh_t)))->class_ver = 2;
	al_mad_rx(d, &wc, buf);
	pthread_mutex_unlock(&d->lock);
	CU_ASSERT_EQUAL_FATAL(cap_wait(5), 5);

	a = cap_find(2, &i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(a->status, IB_SMP_DIRECTION); /* D bit, status 0 */
	CU_ASSERT_EQUAL(a->hop_ptr, 3);
	CU_ASSERT_EQUAL(cap.dlid[i], IB_LID_PERMISSIVE);
	smi = (const ib_sm_info_t *)ib_smp_get_payload_ptr(a);
	CU_ASSERT_EQUAL(smi->guid, sa.port_guid);
	CU_ASSERT_EQUAL(smi->sm_key, 0);
	CU_ASSERT_EQUAL(smi->act_count, 0);
	CU_ASSERT_EQUAL(ib_sminfo_get_state(smi), IB_SMINFO_STATE_NOTACTIVE);
	CU_ASSERT_EQUAL(ib_sminfo_get_priority(smi), 0);

	a = cap_find(3, &i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(a->status, IB_MAD_STATUS_UNSUP_METHOD_ATTR | IB_SMP_DIRECTION);

	CU_ASSERT_PTR_NULL(cap_find(4, &i));

	a = cap_find(5, &i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(cap.dlid[i], cl_ntoh16(sb.lid));
	CU_ASSERT_EQUAL(cap.vl[i], 15);
	CU_ASSERT_EQUAL(cap.dqp[i], 0);
	CU_ASSERT_EQUAL(cap.qkey[i], 0);
	CU_ASSERT_EQUAL(a->mgmt_class, IB_MCLASS_SUBN_LID);
	CU_ASSERT_EQUAL(a->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(a->status, IB_MAD_STATUS_UNSUP_METHOD_ATTR); /* no D bit in class 0x01 */
	CU_ASSERT_EQUAL(memcmp(a->initial_path, zero_smp.initial_path, sizeof(a->initial_path)),
			0);

	a = cap_find(6, &i);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->status, IB_MAD_STATUS_UNSUP_CLASS_VER);

	set_drop_filter(NULL);
	CU_ASSERT_EQUAL(cap.n, 5); /* and the Trap was not answered */
	pthread_mutex_destroy(&cap.lock);
	pthread_cond_destroy(&cap.cond);
	down();
}

static void test_mad_qp(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	ib_qp_create_t qc;
	ib_qp_handle_t qa_h, qb_h;
	ib_mad_svc_handle_t ha, hb;
	ib_dgrm_info_t di;
	ib_qp_attr_t qa;
	ib_mad_element_t *e;

	up();
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_MAD;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(sa.pd, &qc, NULL, NULL, &qa_h), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(sb.pd, &qc, NULL, NULL, &qb_h), IB_SUCCESS);
	memset(&di, 0, sizeof(di));
	di.qkey = CL_HTON32(0x1234);
	di.port_guid = sa.port_guid;
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(qa_h, &di), IB_SUCCESS);
	di.port_guid = sb.port_guid;
	CU_ASSERT_EQUAL(ib_init_dgrm_svc(qb_h, &di), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sa, qa_h, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, &ha), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(reg(&sb, qb_h, VCLASS, 1, IB_MAD_SVC_DEFAULT, NULL, &hb), IB_SUCCESS);
	/* The same class on the port's QP1 alias is another dispatcher: allowed. */
	CU_ASSERT_EQUAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.svc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(qa_h, &qa), IB_SUCCESS);
	e = mad_to(&sb, &sa, 256, VCLASS, IB_MAD_METHOD_SEND, 1);
	e->remote_qp = qa.num;
	e->remote_qkey = CL_HTON32(0x1234);
	fill((uint8_t *)e->p_mad_buf + 24, 200, 9);
	CU_ASSERT_EQUAL(ib_send_mad(hb, e, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_n(&sa, &sa.n_recv, 1), 1);
	CU_ASSERT_EQUAL(sa.recvs[0]->remote_lid, sb.lid);
	CU_ASSERT(check((uint8_t *)sa.recvs[0]->p_mad_buf + 24, 200, 9));
	CU_ASSERT_EQUAL(wait_n(&sb, &sb.n_send, 1), 1);
	down();
}

/* ---- The internal GMP client ---- */

typedef struct gmp_res {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
	ib_api_status_t st;
	ib_mad_element_t *p_resp;
} gmp_res_t;

static void gmp_cb(void *ctx, ib_api_status_t st, ib_mad_element_t *p_resp)
{
	gmp_res_t *g = (gmp_res_t *)ctx;

	pthread_mutex_lock(&g->lock);
	g->st = st;
	g->p_resp = p_resp;
	g->n++;
	pthread_cond_broadcast(&g->cond);
	pthread_mutex_unlock(&g->lock);
}

static int gmp_wait(gmp_res_t *g, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&g->lock);
	while (g->n < want && pthread_cond_timedwait(&g->cond, &g->lock, &ts) == 0)
		;
	v = g->n;
	pthread_mutex_unlock(&g->lock);
	return v;
}

/* The dispatcher's own answers wait for send slots in a bounded queue: a
 * peer flooding requests while the sends stall cannot grow it; the ones
 * queued still go once the dispatcher runs. */
static void test_replies_bounded(void)
{
	static const uint8_t send[] = { IB_MAD_METHOD_SEND, 0 };
	uint8_t mad[MAD_BLOCK_SIZE];
	ib_av_attr_t av;
	al_mad_disp_t *d;
	uint32_t i, drop0;

	up();
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, send, &sa.svc),
			      IB_SUCCESS);
	d = disp_of(sa.qp);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	memset(mad, 0, sizeof(mad));
	ib_mad_init_new((ib_mad_t *)mad, 0x0A, 1, IB_MAD_METHOD_GET_RESP, CL_HTON64(1), 0, 0);
	memset(&av, 0, sizeof(av));
	av.dlid = CL_HTON16(0x7FF0);   /* no port has it */
	av.port_num = 1;
	pthread_mutex_lock(&d->lock);  /* the dispatcher's thread sends nothing meanwhile */
	drop0 = d->n_drop_replies;
	for (i = 0; i < AL_MAD_MAX_REPLIES + 100; i++)
		al_mad_queue_reply(d, mad, MAD_BLOCK_SIZE, &av, CL_HTON32(1), 0);
	CU_ASSERT(cl_qlist_count(&d->replies) <= AL_MAD_MAX_REPLIES);
	CU_ASSERT(d->n_drop_replies - drop0 >= 100);
	pthread_mutex_unlock(&d->lock);
	al_mad_poke(d);
	down();
}


static void test_gmp_client(void)
{
	static const uint8_t get[] = { IB_MAD_METHOD_GET, 0 };
	al_gmp_client_t c;
	gmp_res_t g;
	ib_mad_t m;

	up();
	memset(&g, 0, sizeof(g));
	pthread_mutex_init(&g.lock, NULL);
	test_cond_init_mono(&g.cond);
	sa.responder = TRUE;
	CU_ASSERT_EQUAL_FATAL(reg(&sa, sa.qp, VCLASS, 1, IB_MAD_SVC_DEFAULT, get, &sa.svc),
			      IB_SUCCESS);
	sa.resp_svc = sa.svc;
	CU_ASSERT_EQUAL_FATAL(al_gmp_client_open(sb.ca, sb.port_guid, &c), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.base_ver = 1;
	m.mgmt_class = VCLASS;
	m.class_ver = 1;
	m.method = IB_MAD_METHOD_GET;
	m.trans_id = CL_HTON64(42);
	CU_ASSERT_EQUAL(al_gmp_request(&c, sa.lid, &m, 10, 100, 1, gmp_cb, &g),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_gmp_request(&c, sa.lid, &m, sizeof(m), 2000, 2, gmp_cb, &g), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(gmp_wait(&g, 1), 1);
	CU_ASSERT_EQUAL(g.st, IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g.p_resp);
	CU_ASSERT_EQUAL(g.p_resp->p_mad_buf->method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT_EQUAL(cl_ntoh64(g.p_resp->p_mad_buf->trans_id) & 0xFFFFFFFFu, 42);
	ib_put_mad(g.p_resp);
	/* No port at that LID: a timeout. */
	CU_ASSERT_EQUAL(al_gmp_request(&c, CL_HTON16(0x7777), &m, sizeof(m), 30, 1, gmp_cb, &g),
			IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(gmp_wait(&g, 2), 2);
	CU_ASSERT_EQUAL(g.st, IB_TIMEOUT);
	CU_ASSERT_PTR_NULL(g.p_resp);
	/* Closing with one outstanding: canceled. */
	CU_ASSERT_EQUAL(al_gmp_request(&c, CL_HTON16(0x7777), &m, sizeof(m), 60000, 1, gmp_cb, &g),
			IB_SUCCESS);
	al_gmp_client_close(&c);
	CU_ASSERT_EQUAL(gmp_wait(&g, 3), 3);
	CU_ASSERT_EQUAL(g.st, IB_CANCELED);
	pthread_mutex_destroy(&g.lock);
	pthread_cond_destroy(&g.cond);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_spl_qp_args),
	TEST_ENTRY(test_init_dgrm_args),
	TEST_ENTRY(test_reg_svc_args),
	TEST_ENTRY(test_send_args),
	TEST_ENTRY(test_unsolicited),
	TEST_ENTRY(test_request_response),
	TEST_ENTRY(test_timeout_retries),
	TEST_ENTRY(test_unsupported),
	TEST_ENTRY(test_malformed),
	TEST_ENTRY(test_cancel_and_destroy),
	TEST_ENTRY(test_smp_unsolicited),
	TEST_ENTRY(test_rmpp_1),
	TEST_ENTRY(test_rmpp_2),
	TEST_ENTRY(test_rmpp_50),
	TEST_ENTRY(test_rmpp_300),
	TEST_ENTRY(test_rmpp_2_loss),
	TEST_ENTRY(test_rmpp_50_loss),
	TEST_ENTRY(test_rmpp_300_loss),
	TEST_ENTRY(test_rmpp_no_receiver),
	TEST_ENTRY(test_rmpp_cancel),
	TEST_ENTRY(test_mad_qp),
	TEST_ENTRY(test_replies_bounded),
	TEST_ENTRY(test_gmp_client),
};

TEST_MAIN("al_mad", tests)
