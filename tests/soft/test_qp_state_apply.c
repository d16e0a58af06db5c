/*
 * ibal tests: the IBA QP state machine both providers share (core/prov/prov_qp_state) applying modifications, events and names.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/* prov_qp_modify() bring-ups, SQD, APM, RESET/ERROR, SQE recovery, the event table, a perftest
 * sequence and the state/attribute/event names. The transition table and the checks are in
 * test_qp_state.c; both use the fixture in qp_state_test.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "qp_state_test.h"

/* --- Applying -------------------------------------------------------------- */

/* An RC QP through RESET -> INIT -> RTR -> RTS: every attribute lands where it should. */
static void test_apply_rc_bringup(void)
{
	prov_qp_attr_t a;
	prov_qp_attr_mask_t applied;
	ib_qp_mod_t m;
	ib_qp_attr_t q;

	prov_qp_attr_init(&a, IB_QPT_RELIABLE_CONN, 1);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(a.port, 0); /* only special QPs keep a port from creation */
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.valid, 0);

	good_mod(&m, IB_QPS_INIT, a.state);
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_INIT);
	CU_ASSERT_EQUAL(a.port, 1);
	CU_ASSERT_EQUAL(a.pkey_index, 1);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_RDMA_READ | IB_AC_RDMA_WRITE);
	CU_ASSERT_EQUAL(a.qkey, 0); /* an RC QP has no Q_Key */
	CU_ASSERT_EQUAL(a.valid, PORT | PKEY | ACCESS);

	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.rq_psn = CL_HTON32(0xAB123456);
	m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_ACCESS_CTRL;
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, &ca, NULL),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, &applied), IB_SUCCESS);
	CU_ASSERT_EQUAL(applied, AV | DQPN | RQPSN | MAXDRD | MINRNR | ALT | ACCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTR);
	CU_ASSERT_EQUAL(a.rq_psn, 0x123456);
	CU_ASSERT_EQUAL(a.dest_qpn, 0xABC);
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 4);
	CU_ASSERT_EQUAL(a.min_rnr_timer, 12);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_RDMA_WRITE);
	CU_ASSERT_EQUAL(a.path_mtu, IB_MTU_LEN_1024);
	CU_ASSERT_EQUAL(a.primary_av.dlid, CL_HTON16(0x21));
	CU_ASSERT_EQUAL(a.primary_av.sl, 3);
	CU_ASSERT_TRUE(a.alt_valid);
	CU_ASSERT_EQUAL(a.alternate_av.port_num, 2);
	CU_ASSERT_EQUAL(a.alternate_av.dlid, CL_HTON16(0x31));
	CU_ASSERT_EQUAL(a.alternate_av.conn.local_ack_timeout, 9);
	/* Not supplied: the P_Key index field of rtr had no IB_MOD_QP_PKEY. */
	CU_ASSERT_EQUAL(a.pkey_index, 1);
	/* The primary path's connection fields follow the QP; timeout etc. not set yet. */
	CU_ASSERT_EQUAL(a.primary_av.port_num, 1);
	CU_ASSERT_EQUAL(a.primary_av.conn.local_ack_timeout, 0);
	CU_ASSERT_EQUAL(a.timeout, 0);

	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.sq_psn = CL_HTON32(0xFF000001);
	m.state.rts.opts = IB_MOD_QP_RNR_NAK_TIMEOUT | IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_REARM;
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, &ca, NULL),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, &applied), IB_SUCCESS);
	CU_ASSERT_EQUAL(applied, SQPSN | TIMEOUT | RETRY | RNRRETRY | MAXRD | MINRNR | APM);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.sq_psn, 1);
	CU_ASSERT_EQUAL(a.timeout, 14);
	CU_ASSERT_EQUAL(a.retry_cnt, 6);
	CU_ASSERT_EQUAL(a.rnr_retry, 7);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 4);
	CU_ASSERT_EQUAL(a.min_rnr_timer, 10);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_REARM);
	CU_ASSERT_EQUAL(a.primary_av.conn.path_mtu, IB_MTU_LEN_1024);
	CU_ASSERT_EQUAL(a.primary_av.conn.local_ack_timeout, 14);
	CU_ASSERT_EQUAL(a.primary_av.conn.seq_err_retry_cnt, 6);
	CU_ASSERT_EQUAL(a.primary_av.conn.rnr_retry_cnt, 7);
	/* Fields of rts that RTR -> RTS does not take. */
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 4);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_RDMA_WRITE);

	/* The ib_qp_attr_t view. */
	memset(&q, 0xEE, sizeof(q));
	prov_qp_attr_to_ib(&a, &q);
	CU_ASSERT_EQUAL(q.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(q.sq_psn, CL_HTON32(1));
	CU_ASSERT_EQUAL(q.rq_psn, CL_HTON32(0x123456));
	CU_ASSERT_EQUAL(q.dest_num, CL_HTON32(0xABC));
	CU_ASSERT_EQUAL(q.qkey, 0);
	CU_ASSERT_EQUAL(q.pkey_index, 1);
	CU_ASSERT_EQUAL(q.access_ctrl, IB_AC_RDMA_WRITE);
	CU_ASSERT_EQUAL(q.init_depth, 4);
	CU_ASSERT_EQUAL(q.resp_res, 4);
	CU_ASSERT_EQUAL(q.primary_port, 1);
	CU_ASSERT_EQUAL(q.alternate_port, 2);
	CU_ASSERT_EQUAL(q.apm_state, IB_APM_REARM);
	CU_ASSERT_EQUAL(memcmp(&q.primary_av, &a.primary_av, sizeof(q.primary_av)), 0);
	CU_ASSERT_EQUAL(memcmp(&q.alternate_av, &a.alternate_av, sizeof(q.alternate_av)), 0);
	CU_ASSERT_EQUAL(q.sq_depth, 0xEEEEEEEE); /* not the block's business */
}

/* UD and special QPs: Q_Key in host order, PSN masked, the AL's datagram bring-up. */
static void test_apply_datagram(void)
{
	prov_qp_attr_t a;
	ib_qp_mod_t m;

	/* What ib_init_dgrm_svc() does to QP1: RESET, INIT, zeroed RTR, RTS with a PSN. */
	prov_qp_attr_init(&a, IB_QPT_QP1, 2);
	CU_ASSERT_EQUAL(a.port, 2);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.port, 2);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	m.state.init.pkey_index = 0;
	m.state.init.primary_port = 2;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.qkey, 0x80010000);
	CU_ASSERT_EQUAL(a.valid, PKEY | QKEY);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = CL_HTON32(0x00ABCDEF);
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.sq_psn, 0xABCDEF);
	CU_ASSERT_EQUAL(a.port, 2);
	CU_ASSERT_EQUAL(a.primary_av.dlid, 0); /* datagram QPs have no path */

	/* A UD QP: port from INIT, Q_Key changed in RTS -> RTS. */
	prov_qp_attr_init(&a, IB_QPT_UNRELIABLE_DGRM, 2);
	CU_ASSERT_EQUAL(a.port, 0);
	to_rts(IB_QPT_UNRELIABLE_DGRM, &a);
	CU_ASSERT_EQUAL(a.port, 1);
	CU_ASSERT_EQUAL(a.pkey_index, 1);
	CU_ASSERT_EQUAL(a.qkey, 0x11111111);
	CU_ASSERT_EQUAL(a.sq_psn, 0x654321);
	CU_ASSERT_EQUAL(a.rq_psn, 0); /* not a UD attribute */
	CU_ASSERT_EQUAL(a.dest_qpn, 0);
	CU_ASSERT_EQUAL(a.access_ctrl, 0);
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_QKEY;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_UNRELIABLE_DGRM, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.qkey, 0x33333333);
	CU_ASSERT_EQUAL(a.sq_psn, 0x654321); /* RTS -> RTS does not take the PSN */
}

/* SQD: drain substates, drain-only attributes, the drained event. */
static void test_apply_sqd(void)
{
	prov_qp_attr_t a;
	prov_qp_attr_mask_t applied, bad;
	ib_async_event_t ev;
	ib_qp_mod_t m;

	to_rts(IB_QPT_RELIABLE_CONN, &a);
	good_mod(&m, IB_QPS_SQD, a.state);
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINING);
	CU_ASSERT_TRUE(a.sqd_event);

	/* A new primary path while draining is refused, then accepted once drained. */
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_PRIMARY_AV | IB_MOD_QP_PRIMARY_PORT | IB_MOD_QP_LOCAL_ACK_TIMEOUT |
			   IB_MOD_QP_RETRY_CNT | IB_MOD_QP_RNR_RETRY_CNT | IB_MOD_QP_INIT_DEPTH |
			   IB_MOD_QP_RESP_RES | IB_MOD_QP_PKEY | IB_MOD_QP_ACCESS_CTRL;
	m.state.rts.primary_port = 2;
	good_av(&m.state.rts.primary_av, 2, 0x61);
	m.state.rts.primary_av.conn.path_mtu = IB_MTU_LEN_4096;
	m.state.rts.local_ack_timeout = 20;
	m.state.rts.retry_cnt = 3;
	m.state.rts.rnr_retry_cnt = 2;
	m.state.rts.init_depth = 1;
	m.state.rts.resp_res = 8;
	m.state.rts.pkey_index = 0;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, &bad), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(bad, AV | PORT | TIMEOUT | RETRY | RNRRETRY | MAXRD | MAXDRD | PKEY);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINING);

	CU_ASSERT_TRUE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_SQ_DRAINED, &ev));
	CU_ASSERT_EQUAL(ev, IB_AE_SQ_DRAINED);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINED);
	CU_ASSERT_FALSE(a.sqd_event);
	CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_SQ_DRAINED, &ev));
	CU_ASSERT_EQUAL(ev, 0);

	/* SQD -> SQD keeps the drained substate. */
	{
		ib_qp_mod_t s;

		good_mod(&s, IB_QPS_SQD, a.state);
		CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &s, &ca, NULL), IB_SUCCESS);
		CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINED);
		CU_ASSERT_FALSE(a.sqd_event);
	}

	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, &ca, &bad),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, &applied), IB_SUCCESS);
	CU_ASSERT_EQUAL(applied, AV | PORT | TIMEOUT | RETRY | RNRRETRY | MAXRD | MAXDRD | PKEY | ACCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.port, 2);
	CU_ASSERT_EQUAL(a.primary_av.port_num, 2);
	CU_ASSERT_EQUAL(a.primary_av.dlid, CL_HTON16(0x61));
	CU_ASSERT_EQUAL(a.path_mtu, IB_MTU_LEN_4096);
	CU_ASSERT_EQUAL(a.timeout, 20);
	CU_ASSERT_EQUAL(a.primary_av.conn.local_ack_timeout, 20);
	CU_ASSERT_EQUAL(a.retry_cnt, 3);
	CU_ASSERT_EQUAL(a.rnr_retry, 2);
	CU_ASSERT_EQUAL(a.max_rd_atomic, 1);
	CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 8);
	CU_ASSERT_EQUAL(a.pkey_index, 0);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_RDMA_READ);
	CU_ASSERT_EQUAL(a.sq_psn, 0x654321); /* SQD -> RTS keeps the PSN */

	/* Without the event request, draining raises nothing. */
	good_mod(&m, IB_QPS_SQD, a.state);
	m.state.sqd.sqd_event = FALSE;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_TRUE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_SQ_DRAINED, &ev));
	CU_ASSERT_EQUAL(ev, 0);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINED);

	/* A UD QP: only the P_Key index waits for the drain; Q_Key does not. */
	to_rts(IB_QPT_UNRELIABLE_DGRM, &a);
	good_mod(&m, IB_QPS_SQD, a.state);
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_UNRELIABLE_DGRM, &a, &m, &ca, NULL), IB_SUCCESS);
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_QKEY;
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, a.state, &m, &a, &ca, NULL),
			IB_SUCCESS);
	m.state.rts.opts = IB_MOD_QP_PKEY;
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, a.state, &m, &a, &ca, &bad),
			IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(bad, PKEY);
	/* Plain IB_QPS_SQD counts as still draining. */
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, IB_QPS_SQD, &m, &a, &ca, &bad),
			IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, IB_QPS_SQD_DRAINED, &m, &a, &ca,
					     &bad), IB_SUCCESS);
}

/* Alternate path, arming and migration (by the HCA and forced by software). */
static void test_apply_apm(void)
{
	prov_qp_attr_t a;
	ib_async_event_t ev;
	ib_qp_mod_t m;

	to_rts(IB_QPT_RELIABLE_CONN, &a);
	CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_APM_ARMED, &ev));
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_REARM;
	m.state.rts.alternate_av.conn.local_ack_timeout = 17;
	m.state.rts.alternate_av.conn.path_mtu = IB_MTU_LEN_2048;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_TRUE(a.alt_valid);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_REARM);
	CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_MIGRATED, &ev));
	CU_ASSERT_TRUE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_APM_ARMED, &ev));
	CU_ASSERT_EQUAL(ev, 0);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
	CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_APM_ARMED, &ev));

	/* The HCA migrates: the alternate path becomes the primary one. */
	CU_ASSERT_TRUE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_MIGRATED, &ev));
	CU_ASSERT_EQUAL(ev, IB_AE_QP_APM);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_FALSE(a.alt_valid);
	CU_ASSERT_FALSE(a.valid & ALT);
	CU_ASSERT_EQUAL(a.port, 2);
	CU_ASSERT_EQUAL(a.primary_av.port_num, 2);
	CU_ASSERT_EQUAL(a.primary_av.dlid, CL_HTON16(0x51));
	CU_ASSERT_EQUAL(a.timeout, 17);
	CU_ASSERT_EQUAL(a.path_mtu, IB_MTU_LEN_2048);
	CU_ASSERT_EQUAL(a.primary_av.conn.local_ack_timeout, 17);
	CU_ASSERT_EQUAL(a.retry_cnt, 6); /* retry counts belong to the QP, not the path */
	CU_ASSERT_EQUAL(a.primary_av.conn.seq_err_retry_cnt, 6);

	/* ib_force_apm(): MIGRATED while ARMED migrates now. */
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
	good_av(&m.state.rts.alternate_av, 1, 0x71);
	m.state.rts.apm_state = IB_APM_ARMED;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.apm_state = IB_APM_MIGRATED;
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.port, 1);
	CU_ASSERT_EQUAL(a.primary_av.dlid, CL_HTON16(0x71));
	CU_ASSERT_FALSE(a.alt_valid);
	/* Again, with nothing armed: only the state is recorded. */
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.port, 1);
}

/* To RESET from every state clears everything a new QP does not have. */
static void test_apply_reset_clears(void)
{
	static const ib_qp_state_t froms[] = { IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
					       IB_QPS_SQD_DRAINING, IB_QPS_SQD_DRAINED,
					       IB_QPS_SQERR, IB_QPS_ERROR };
	size_t c, f;

	for (c = 0; c < TEST_COUNT(classes); c++) {
		ib_qp_type_t type = type_of(classes[c]);

		for (f = 0; f < TEST_COUNT(froms); f++) {
			prov_qp_attr_t a, fresh;
			ib_qp_mod_t m;

			to_rts(type, &a);
			if (classes[c] & (C_RC | C_UC)) {
				good_mod(&m, IB_QPS_RTS, a.state);
				m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
				m.state.rts.apm_state = IB_APM_REARM;
				CU_ASSERT_EQUAL(prov_qp_modify(type, &a, &m, &ca, NULL), IB_SUCCESS);
			}
			a.state = froms[f];
			a.sqd_event = TRUE;
			memset(&m, 0xA5, sizeof(m)); /* the union is not read */
			m.req_state = IB_QPS_RESET;
			CU_ASSERT_EQUAL(prov_qp_modify(type, &a, &m, &ca, NULL), IB_SUCCESS);
			prov_qp_attr_init(&fresh, type, 1);
			CU_ASSERT_EQUAL(memcmp(&a, &fresh, sizeof(a)), 0);
			CU_ASSERT_EQUAL(a.port, classes[c] == C_SP ? 1 : 0);
			CU_ASSERT_EQUAL(a.valid, 0);
		}
	}
}

/* To ERROR from every state is legal and keeps the attributes. */
static void test_apply_error_from_every_state(void)
{
	static const ib_qp_state_t froms[] = { IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
					       IB_QPS_SQD, IB_QPS_SQD_DRAINING,
					       IB_QPS_SQD_DRAINED, IB_QPS_SQERR, IB_QPS_ERROR };
	size_t c, f;

	for (c = 0; c < TEST_COUNT(classes); c++) {
		ib_qp_type_t type = type_of(classes[c]);

		for (f = 0; f < TEST_COUNT(froms); f++) {
			prov_qp_attr_t a, before;
			prov_qp_attr_mask_t applied = 1;
			ib_qp_mod_t m;

			to_rts(type, &a);
			a.state = froms[f];
			a.sqd_event = TRUE;
			before = a;
			memset(&m, 0x5A, sizeof(m));
			m.req_state = IB_QPS_ERROR;
			CU_ASSERT_EQUAL(prov_qp_modify_check(type, a.state, &m, &a, &ca, NULL),
					IB_SUCCESS);
			CU_ASSERT_EQUAL(prov_qp_apply_mod(type, &a, &m, &applied), IB_SUCCESS);
			CU_ASSERT_EQUAL(applied, 0);
			CU_ASSERT_EQUAL(a.state, IB_QPS_ERROR);
			CU_ASSERT_FALSE(a.sqd_event);
			before.state = IB_QPS_ERROR;
			before.sqd_event = FALSE;
			CU_ASSERT_EQUAL(memcmp(&a, &before, sizeof(a)), 0);
		}
	}
}

/* SQE: entered by a send error on UC/UD/special QPs, left to RTS by the consumer. */
static void test_apply_sqe_recovery(void)
{
	static const ib_qp_type_t sqe_types[] = { IB_QPT_UNRELIABLE_CONN, IB_QPT_UNRELIABLE_DGRM,
						  IB_QPT_QP0, IB_QPT_MAD };
	prov_qp_attr_t a;
	ib_async_event_t ev;
	ib_qp_mod_t m;
	size_t i;

	for (i = 0; i < TEST_COUNT(sqe_types); i++) {
		to_rts(sqe_types[i], &a);
		CU_ASSERT_TRUE(prov_qp_event(sqe_types[i], &a, PROV_QP_EV_SEND_ERR, &ev));
		CU_ASSERT_EQUAL(ev, 0);
		CU_ASSERT_EQUAL(a.state, IB_QPS_SQERR);
		/* The consumer cannot request SQE itself. */
		memset(&m, 0, sizeof(m));
		m.req_state = IB_QPS_SQERR;
		CU_ASSERT_EQUAL(prov_qp_modify(sqe_types[i], &a, &m, &ca, NULL), IB_INVALID_QP_STATE);
		good_mod(&m, IB_QPS_RTS, a.state);
		m.state.rts.opts = IB_MOD_QP_CURRENT_STATE;
		CU_ASSERT_EQUAL(prov_qp_modify(sqe_types[i], &a, &m, &ca, NULL), IB_SUCCESS);
		CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	}
	/* An RC QP goes straight to ERROR. */
	to_rts(IB_QPT_RELIABLE_CONN, &a);
	CU_ASSERT_TRUE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_SEND_ERR, &ev));
	CU_ASSERT_EQUAL(a.state, IB_QPS_ERROR);
}

/* --- HCA events against an expectation per (event, class, state) ----------- */

static void test_events_table(void)
{
	static const ib_qp_state_t froms[] = { IB_QPS_RESET, IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
					       IB_QPS_SQD_DRAINING, IB_QPS_SQD_DRAINED,
					       IB_QPS_SQERR, IB_QPS_ERROR };
	size_t c, f;
	int ev;

	for (c = 0; c < TEST_COUNT(classes); c++) {
		unsigned int cl = classes[c];
		ib_qp_type_t type = type_of(cl);
		int conn = cl == C_RC || cl == C_UC;

		for (f = 0; f < TEST_COUNT(froms); f++) {
			ib_qp_state_t s = froms[f];
			int live = s != IB_QPS_RESET && s != IB_QPS_ERROR;
			int sqd = s == IB_QPS_SQD_DRAINING || s == IB_QPS_SQD_DRAINED;

			for (ev = 0; ev <= PROV_QP_EV_COUNT; ev++) {
				prov_qp_attr_t a;
				ib_async_event_t got_ev = (ib_async_event_t)77;
				ib_async_event_t want_ev = (ib_async_event_t)0;
				ib_qp_state_t want_state = s;
				boolean_t want = FALSE, got;

				to_rts(type, &a);
				a.state = s;
				a.sqd_event = TRUE;
				a.alt_valid = TRUE;
				a.alternate_av = a.primary_av;
				a.apm_state = ev == PROV_QP_EV_APM_ARMED ? IB_APM_REARM : IB_APM_ARMED;
				switch (ev) {
				case PROV_QP_EV_COMM_EST:
					want = conn && s == IB_QPS_RTR;
					want_ev = IB_AE_QP_COMM;
					break;
				case PROV_QP_EV_SQ_DRAINED:
					want = s == IB_QPS_SQD_DRAINING;
					want_ev = IB_AE_SQ_DRAINED;
					want_state = IB_QPS_SQD_DRAINED;
					break;
				case PROV_QP_EV_SEND_ERR:
					want = s == IB_QPS_RTS || sqd;
					want_state = cl == C_RC ? IB_QPS_ERROR : IB_QPS_SQERR;
					break;
				case PROV_QP_EV_WQ_ERR:
					want = live;
					want_state = IB_QPS_ERROR;
					break;
				case PROV_QP_EV_REQ_ERR:
				case PROV_QP_EV_ACCESS_ERR:
					want = cl == C_RC && live && s != IB_QPS_INIT;
					want_ev = ev == PROV_QP_EV_REQ_ERR ? IB_AE_WQ_REQ_ERROR :
									     IB_AE_WQ_ACCESS_ERROR;
					want_state = IB_QPS_ERROR;
					break;
				case PROV_QP_EV_FATAL:
					want = s != IB_QPS_RESET;
					want_ev = IB_AE_QP_FATAL;
					want_state = IB_QPS_ERROR;
					break;
				case PROV_QP_EV_APM_ARMED:
					want = conn && (s == IB_QPS_RTR || s == IB_QPS_RTS || sqd);
					break;
				case PROV_QP_EV_MIGRATED:
					want = conn && (s == IB_QPS_RTS || sqd);
					want_ev = IB_AE_QP_APM;
					break;
				default:
					break; /* PROV_QP_EV_COUNT: not an event */
				}
				if (!want) {
					want_ev = (ib_async_event_t)0;
					want_state = s;
				}
				got = prov_qp_event(type, &a, (prov_qp_event_t)ev, &got_ev);
				CU_ASSERT_EQUAL(got, want);
				CU_ASSERT_EQUAL(got_ev, want_ev);
				CU_ASSERT_EQUAL(a.state, want_state);
				if (got != want || got_ev != want_ev || a.state != want_state)
					printf("\n  class %u %s %s: %d ev %d state %s\n", cl,
					       prov_qp_state_str(s), prov_qp_event_str((prov_qp_event_t)ev),
					       (int)got, (int)got_ev, prov_qp_state_str(a.state));
				if (want && ev == PROV_QP_EV_APM_ARMED)
					CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
				if (want && ev == PROV_QP_EV_MIGRATED)
					CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
				if (want && a.state != IB_QPS_SQD_DRAINING)
					CU_ASSERT_FALSE(a.sqd_event);
			}
		}
	}
	/* Unsupported types have no events. */
	CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RAW_ETHER, NULL, PROV_QP_EV_FATAL, NULL));
	{
		prov_qp_attr_t a;

		to_rts(IB_QPT_RELIABLE_CONN, &a);
		CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RELIABLE_DGRM, &a, PROV_QP_EV_FATAL, NULL));
		CU_ASSERT_FALSE(prov_qp_event(IB_QPT_UNKNOWN, &a, PROV_QP_EV_FATAL, NULL));
		CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
		a.state = IB_QPS_TIME_WAIT;
		CU_ASSERT_FALSE(prov_qp_event(IB_QPT_RELIABLE_CONN, &a, PROV_QP_EV_FATAL, NULL));
	}
}

/* --- OFED for Windows callers --------------------------------------------- */

/* The RTR and RTS of WinOFED's perftest, for RC, UC and UD. */
static void test_perftest_sequence(void)
{
	static const ib_qp_type_t kinds[] = { IB_QPT_RELIABLE_CONN, IB_QPT_UNRELIABLE_CONN,
					      IB_QPT_UNRELIABLE_DGRM };
	size_t i;

	for (i = 0; i < TEST_COUNT(kinds); i++) {
		ib_qp_type_t t = kinds[i];
		prov_qp_attr_t a;
		ib_qp_mod_t m;

		prov_qp_attr_init(&a, t, 0);
		memset(&m, 0, sizeof(m));
		m.req_state = IB_QPS_INIT;
		m.state.init.primary_port = 1;
		m.state.init.qkey = CL_HTON32(0x11111111);
		m.state.init.access_ctrl = IB_AC_RDMA_WRITE | IB_AC_LOCAL_WRITE;
		CU_ASSERT_EQUAL(prov_qp_modify(t, &a, &m, &ca, NULL), IB_SUCCESS);

		memset(&m, 0, sizeof(m));
		m.req_state = IB_QPS_RTR;
		m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_2048;
		m.state.rtr.dest_qp = CL_HTON32(0x404);
		m.state.rtr.rq_psn = CL_HTON32(0x77);
		if (t == IB_QPT_RELIABLE_CONN) {
			m.state.rtr.resp_res = 1;
			m.state.rtr.rnr_nak_timeout = 12;
		}
		m.state.rtr.primary_av.dlid = CL_HTON16(0x5);
		m.state.rtr.primary_av.port_num = 1;
		m.state.rtr.primary_av.static_rate = IB_PATH_RECORD_RATE_10_GBS;
		m.state.rtr.opts = IB_MOD_QP_LOCAL_ACK_TIMEOUT | IB_MOD_QP_RESP_RES |
				   IB_MOD_QP_PRIMARY_AV;
		CU_ASSERT_EQUAL(prov_qp_modify(t, &a, &m, &ca, NULL), IB_SUCCESS);

		memset(&m, 0, sizeof(m));
		m.req_state = IB_QPS_RTS;
		m.state.rts.sq_psn = CL_HTON32(0x88);
		if (t == IB_QPT_RELIABLE_CONN) {
			m.state.rts.resp_res = 1;
			m.state.rts.local_ack_timeout = 14;
			m.state.rts.retry_cnt = 7;
			m.state.rts.rnr_retry_cnt = 7;
			m.state.rts.opts = IB_MOD_QP_RNR_RETRY_CNT | IB_MOD_QP_RETRY_CNT |
					   IB_MOD_QP_LOCAL_ACK_TIMEOUT;
		}
		CU_ASSERT_EQUAL(prov_qp_modify(t, &a, &m, &ca, NULL), IB_SUCCESS);
		CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
		CU_ASSERT_EQUAL(a.sq_psn, 0x88);
		if (t != IB_QPT_UNRELIABLE_DGRM) {
			CU_ASSERT_EQUAL(a.rq_psn, 0x77);
			CU_ASSERT_EQUAL(a.dest_qpn, 0x404);
			CU_ASSERT_EQUAL(a.path_mtu, IB_MTU_LEN_2048);
		} else {
			CU_ASSERT_EQUAL(a.qkey, 0x11111111);
		}
		if (t == IB_QPT_RELIABLE_CONN) {
			CU_ASSERT_EQUAL(a.max_dest_rd_atomic, 1);
			CU_ASSERT_EQUAL(a.timeout, 14);
			CU_ASSERT_EQUAL(a.max_rd_atomic, 0);
		}
	}
}

/* --- Names --------------------------------------------------------------- */

static void test_state_names(void)
{
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_RESET), "RESET");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_INIT), "INIT");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_RTR), "RTR");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_RTS), "RTS");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_SQD), "SQD");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_SQD_DRAINING), "SQD_DRAINING");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_SQD_DRAINED), "SQD_DRAINED");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_SQERR), "SQERR");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_ERROR), "ERROR");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(IB_QPS_TIME_WAIT), "TIME_WAIT");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(0), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(prov_qp_state_str(0x20), "UNKNOWN");
}

static void test_attr_and_event_names(void)
{
	static const char *const names[PROV_QPA_COUNT] = {
		"PORT", "PKEY_INDEX", "QKEY", "ACCESS", "AV", "DEST_QPN", "RQ_PSN", "SQ_PSN",
		"MAX_DEST_RD_ATOMIC", "MIN_RNR_TIMER", "TIMEOUT", "RETRY_CNT", "RNR_RETRY",
		"MAX_RD_ATOMIC", "ALT_PATH", "APM_STATE", "CUR_STATE", "SQD_EVENT",
	};
	static const char *const evs[PROV_QP_EV_COUNT] = {
		"COMM_EST", "SQ_DRAINED", "SEND_ERR", "WQ_ERR", "REQ_ERR", "ACCESS_ERR",
		"FATAL", "APM_ARMED", "MIGRATED",
	};
	char buf[256];
	unsigned int i;

	CU_ASSERT_EQUAL(PROV_QPA_ALL, (1u << PROV_QPA_COUNT) - 1);
	for (i = 0; i < PROV_QPA_COUNT; i++)
		CU_ASSERT_STRING_EQUAL(prov_qp_attr_str(1u << i), names[i]);
	CU_ASSERT_STRING_EQUAL(prov_qp_attr_str(0), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(prov_qp_attr_str(PORT | PKEY), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(prov_qp_attr_str(1u << PROV_QPA_COUNT), "UNKNOWN");
	for (i = 0; i < PROV_QP_EV_COUNT; i++)
		CU_ASSERT_STRING_EQUAL(prov_qp_event_str((prov_qp_event_t)i), evs[i]);
	CU_ASSERT_STRING_EQUAL(prov_qp_event_str(PROV_QP_EV_COUNT), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(prov_qp_event_str((prov_qp_event_t)-1), "UNKNOWN");

	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(0, buf, sizeof(buf)), 4);
	CU_ASSERT_STRING_EQUAL(buf, "none");
	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(PORT | RQPSN | SQDEV, buf, sizeof(buf)),
			strlen("PORT|RQ_PSN|SQD_EVENT"));
	CU_ASSERT_STRING_EQUAL(buf, "PORT|RQ_PSN|SQD_EVENT");
	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(AV | 0x80000000u, buf, sizeof(buf)),
			strlen("AV|0x80000000"));
	CU_ASSERT_STRING_EQUAL(buf, "AV|0x80000000");
	/* Truncation keeps a terminated prefix and reports the full length. */
	memset(buf, 'x', sizeof(buf));
	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(PORT | RQPSN, buf, 7), strlen("PORT|RQ_PSN"));
	CU_ASSERT_STRING_EQUAL(buf, "PORT|R");
	CU_ASSERT_EQUAL(buf[7], 'x');
	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(PORT | RQPSN, buf, 4), strlen("PORT|RQ_PSN"));
	CU_ASSERT_STRING_EQUAL(buf, "POR");
	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(PROV_QPA_ALL, NULL, 0),
			strlen("PORT|PKEY_INDEX|QKEY|ACCESS|AV|DEST_QPN|RQ_PSN|SQ_PSN|"
			       "MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER|TIMEOUT|RETRY_CNT|RNR_RETRY|"
			       "MAX_RD_ATOMIC|ALT_PATH|APM_STATE|CUR_STATE|SQD_EVENT"));
	CU_ASSERT_EQUAL(prov_qp_attr_mask_str(0, NULL, 0), 4);
}

#define T(fn) static void fn##_t(void) { test_setup_wrapper(fn); }
T(test_apply_rc_bringup)
T(test_apply_datagram)
T(test_apply_sqd)
T(test_apply_apm)
T(test_apply_reset_clears)
T(test_apply_error_from_every_state)
T(test_apply_sqe_recovery)
T(test_events_table)
T(test_perftest_sequence)
T(test_state_names)
T(test_attr_and_event_names)
#undef T

static const test_entry_t tests[] = {
	{ "test_apply_rc_bringup", test_apply_rc_bringup_t },
	{ "test_apply_datagram", test_apply_datagram_t },
	{ "test_apply_sqd", test_apply_sqd_t },
	{ "test_apply_apm", test_apply_apm_t },
	{ "test_apply_reset_clears", test_apply_reset_clears_t },
	{ "test_apply_error_from_every_state", test_apply_error_from_every_state_t },
	{ "test_apply_sqe_recovery", test_apply_sqe_recovery_t },
	{ "test_events_table", test_events_table_t },
	{ "test_perftest_sequence", test_perftest_sequence_t },
	{ "test_state_names", test_state_names_t },
	{ "test_attr_and_event_names", test_attr_and_event_names_t },
};

TEST_MAIN("soft_qp_state_apply", tests)
