/*
 * ibal tests: shared fixture of the soft QP state machine test programs (CA, short names, good modifications).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#ifndef IBAL_QP_STATE_TEST_H
#define IBAL_QP_STATE_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <iba/ib_types.h>
#include "prov_qp_state.h"
#include "../common/cl_test.h"

/* Each program that includes this file gets its own copy of the fixture below. */

/* --- Fixture: a CA with two ports ---------------------------------------- */

/*
 * Port 1: MTU 2048, four P_Keys of which index 2 (0x0000) is invalid.
 * Port 2: MTU 4096, three P_Keys of which index 2 (0x8000) is invalid.
 */
static ib_net16_t pkeys1[4];
static ib_net16_t pkeys2[3];
static ib_port_attr_t ports[2];
static ib_ca_attr_t ca;

static inline void ca_setup(void)
{
	memset(&ca, 0, sizeof(ca));
	memset(ports, 0, sizeof(ports));
	pkeys1[0] = CL_HTON16(0xFFFF);
	pkeys1[1] = CL_HTON16(0x8001);
	pkeys1[2] = CL_HTON16(0x0000);
	pkeys1[3] = CL_HTON16(0x7FFF);
	pkeys2[0] = CL_HTON16(0xFFFF);
	pkeys2[1] = CL_HTON16(0x8001);
	pkeys2[2] = CL_HTON16(0x8000);
	ports[0].port_num = 1;
	ports[0].mtu = IB_MTU_LEN_2048;
	ports[0].num_pkeys = 4;
	ports[0].p_pkey_table = pkeys1;
	ports[1].port_num = 2;
	ports[1].mtu = IB_MTU_LEN_4096;
	ports[1].num_pkeys = 3;
	ports[1].p_pkey_table = pkeys2;
	ca.num_ports = 2;
	ca.p_port_attr = ports;
	ca.max_qp_resp_res = 16;
	ca.max_qp_init_depth = 8;
	ca.apm_support = TRUE;
	ca.change_primary_port = TRUE;
	ca.current_qp_state_support = TRUE;
}

/* --- Short names, service classes, canonical states ------------------------ */

/* Short attribute names. */
#define PORT     PROV_QPA_PORT
#define PKEY     PROV_QPA_PKEY_INDEX
#define QKEY     PROV_QPA_QKEY
#define ACCESS   PROV_QPA_ACCESS
#define AV       PROV_QPA_AV
#define DQPN     PROV_QPA_DEST_QPN
#define RQPSN    PROV_QPA_RQ_PSN
#define SQPSN    PROV_QPA_SQ_PSN
#define MAXDRD   PROV_QPA_MAX_DEST_RD
#define MINRNR   PROV_QPA_MIN_RNR
#define TIMEOUT  PROV_QPA_TIMEOUT
#define RETRY    PROV_QPA_RETRY_CNT
#define RNRRETRY PROV_QPA_RNR_RETRY
#define MAXRD    PROV_QPA_MAX_RD
#define ALT      PROV_QPA_ALT_PATH
#define APM      PROV_QPA_APM_STATE
#define CUR      PROV_QPA_CUR_STATE
#define SQDEV    PROV_QPA_SQD_EVENT

/* Service classes as bits, and the canonical states. */
enum { C_RC = 1, C_UC = 2, C_UD = 4, C_SP = 8, C_DG = C_UD | C_SP, C_ALL = 15 };
enum { X_RESET, X_INIT, X_RTR, X_RTS, X_SQD, X_SQE, X_ERR, X_N };

/* A representative type per class. */
static inline ib_qp_type_t type_of(unsigned int c)
{
	return c == C_RC ? IB_QPT_RELIABLE_CONN : c == C_UC ? IB_QPT_UNRELIABLE_CONN :
	       c == C_UD ? IB_QPT_UNRELIABLE_DGRM : IB_QPT_QP1;
}

static const unsigned int classes[] = { C_RC, C_UC, C_UD, C_SP };

/* --- Building modifications ---------------------------------------------- */

static inline void good_av(ib_av_attr_t *av, uint8_t port, uint16_t dlid)
{
	memset(av, 0, sizeof(*av));
	av->port_num = port;
	av->dlid = cl_hton16(dlid);
	av->sl = 3;
	av->static_rate = IB_PATH_RECORD_RATE_10_GBS;
	av->conn.path_mtu = IB_MTU_LEN_1024;
	av->conn.local_ack_timeout = 9;
	av->conn.seq_err_retry_cnt = 1;
	av->conn.rnr_retry_cnt = 1;
}

/* A modification to canonical state @p to with valid values in every field, opts 0. */
static inline void good_mod(ib_qp_mod_t *m, ib_qp_state_t req, ib_qp_state_t cur)
{
	memset(m, 0, sizeof(*m));
	m->req_state = req;
	switch (req) {
	case IB_QPS_INIT:
		m->state.init.primary_port = 1;
		m->state.init.qkey = CL_HTON32(0x11111111);
		m->state.init.pkey_index = 1;
		m->state.init.access_ctrl = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE;
		break;
	case IB_QPS_RTR:
		m->state.rtr.rq_psn = CL_HTON32(0x123456);
		m->state.rtr.dest_qp = CL_HTON32(0x000ABC);
		good_av(&m->state.rtr.primary_av, 1, 0x21);
		m->state.rtr.resp_res = 4;
		m->state.rtr.rnr_nak_timeout = 12;
		good_av(&m->state.rtr.alternate_av, 2, 0x31);
		m->state.rtr.qkey = CL_HTON32(0x22222222);
		m->state.rtr.pkey_index = 0;
		m->state.rtr.access_ctrl = IB_AC_RDMA_WRITE;
		break;
	case IB_QPS_RTS:
		m->state.rts.sq_psn = CL_HTON32(0x654321);
		m->state.rts.retry_cnt = 6;
		m->state.rts.rnr_retry_cnt = 7;
		m->state.rts.local_ack_timeout = 14;
		m->state.rts.init_depth = 4;
		m->state.rts.rnr_nak_timeout = 10;
		m->state.rts.current_state = cur;
		m->state.rts.qkey = CL_HTON32(0x33333333);
		m->state.rts.access_ctrl = IB_AC_RDMA_READ;
		m->state.rts.resp_res = 2;
		good_av(&m->state.rts.primary_av, 1, 0x41);
		good_av(&m->state.rts.alternate_av, 2, 0x51);
		m->state.rts.apm_state = IB_APM_MIGRATED;
		m->state.rts.primary_port = 1;
		m->state.rts.pkey_index = 0;
		break;
	case IB_QPS_SQD:
	case IB_QPS_SQD_DRAINING:
	case IB_QPS_SQD_DRAINED:
		m->state.sqd.sqd_event = TRUE;
		break;
	default:
		break;
	}
}

/* The attributes of a QP in state @p s on port 1 with P_Key index 0. */
static inline void attr_in(prov_qp_attr_t *a, ib_qp_type_t type, ib_qp_state_t s)
{
	prov_qp_attr_init(a, type, 1);
	a->port = 1;
	a->state = s;
}

/* check() with the fixture CA, returning the status; *bad gets the fault bits. */
static inline ib_api_status_t check(ib_qp_type_t type, const prov_qp_attr_t *a, const ib_qp_mod_t *m,
			     uint32_t *bad)
{
	prov_qp_attr_mask_t b = 0xDEAD;
	ib_api_status_t st = prov_qp_modify_check(type, a->state, m, a, &ca, &b);

	*bad = b;
	return st;
}

/* Walks a QP of @p type from RESET to RTS with good modifications. */
static inline void to_rts(ib_qp_type_t type, prov_qp_attr_t *a)
{
	static const ib_qp_state_t path[] = { IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS };
	ib_qp_mod_t m;
	size_t i;

	prov_qp_attr_init(a, type, 1);
	for (i = 0; i < TEST_COUNT(path); i++) {
		good_mod(&m, path[i], a->state);
		CU_ASSERT_EQUAL_FATAL(prov_qp_modify(type, a, &m, &ca, NULL), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(a->state, IB_QPS_RTS);
}

/* Runs one test with a freshly set up fixture CA. */
static inline void test_setup_wrapper(void (*fn)(void))
{
	ca_setup();
	fn();
}

#endif
