/*
 * ibal tests: the soft HCA's QP state machine (soft_qp_state).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <iba/ib_types.h>
#include "soft_qp_state.h"
#include "../common/cl_test.h"

/* --- Fixture: a CA with two ports ---------------------------------------- */

/*
 * Port 1: MTU 2048, four P_Keys of which index 2 (0x0000) is invalid.
 * Port 2: MTU 4096, three P_Keys of which index 2 (0x8000) is invalid.
 */
static ib_net16_t pkeys1[4];
static ib_net16_t pkeys2[3];
static ib_port_attr_t ports[2];
static ib_ca_attr_t ca;

static void ca_setup(void)
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

/* --- The expectation, written from the IBA transition rules -------------- */

/* Short attribute names. */
#define PORT     SOFT_QPA_PORT
#define PKEY     SOFT_QPA_PKEY_INDEX
#define QKEY     SOFT_QPA_QKEY
#define ACCESS   SOFT_QPA_ACCESS
#define AV       SOFT_QPA_AV
#define DQPN     SOFT_QPA_DEST_QPN
#define RQPSN    SOFT_QPA_RQ_PSN
#define SQPSN    SOFT_QPA_SQ_PSN
#define MAXDRD   SOFT_QPA_MAX_DEST_RD
#define MINRNR   SOFT_QPA_MIN_RNR
#define TIMEOUT  SOFT_QPA_TIMEOUT
#define RETRY    SOFT_QPA_RETRY_CNT
#define RNRRETRY SOFT_QPA_RNR_RETRY
#define MAXRD    SOFT_QPA_MAX_RD
#define ALT      SOFT_QPA_ALT_PATH
#define APM      SOFT_QPA_APM_STATE
#define CUR      SOFT_QPA_CUR_STATE
#define SQDEV    SOFT_QPA_SQD_EVENT

/* Service classes as bits, and the canonical states. */
enum { C_RC = 1, C_UC = 2, C_UD = 4, C_SP = 8, C_DG = C_UD | C_SP, C_ALL = 15 };
enum { X_RESET, X_INIT, X_RTR, X_RTS, X_SQD, X_SQE, X_ERR, X_N };

/* Every legal transition besides "anything to RESET or ERROR". */
static const struct row {
	unsigned int classes;
	int from, to;
	uint32_t req, opt, drained;
} rows[] = {
	{ C_RC | C_UC, X_RESET, X_INIT, PORT | PKEY | ACCESS, 0, 0 },
	{ C_UD, X_RESET, X_INIT, PORT | PKEY | QKEY, 0, 0 },
	{ C_SP, X_RESET, X_INIT, PKEY | QKEY, 0, 0 },
	{ C_RC | C_UC, X_INIT, X_INIT, 0, PORT | PKEY | ACCESS, 0 },
	{ C_UD, X_INIT, X_INIT, 0, PORT | PKEY | QKEY, 0 },
	{ C_SP, X_INIT, X_INIT, 0, PKEY | QKEY, 0 },
	{ C_RC, X_INIT, X_RTR, AV | DQPN | RQPSN | MAXDRD | MINRNR, ALT | ACCESS | PKEY, 0 },
	{ C_UC, X_INIT, X_RTR, AV | DQPN | RQPSN, ALT | ACCESS | PKEY, 0 },
	{ C_DG, X_INIT, X_RTR, 0, PKEY | QKEY, 0 },
	{ C_RC, X_RTR, X_RTS, SQPSN | TIMEOUT | RETRY | RNRRETRY | MAXRD,
	  CUR | ALT | ACCESS | MINRNR | APM, 0 },
	{ C_UC, X_RTR, X_RTS, SQPSN, CUR | ALT | ACCESS | APM, 0 },
	{ C_DG, X_RTR, X_RTS, SQPSN, CUR | QKEY, 0 },
	{ C_RC, X_RTS, X_RTS, 0, CUR | ACCESS | ALT | APM | MINRNR, 0 },
	{ C_UC, X_RTS, X_RTS, 0, CUR | ACCESS | ALT | APM, 0 },
	{ C_DG, X_RTS, X_RTS, 0, CUR | QKEY, 0 },
	{ C_ALL, X_RTS, X_SQD, 0, SQDEV, 0 },
	{ C_ALL, X_SQD, X_SQD, 0, SQDEV, 0 },
	{ C_RC, X_SQD, X_RTS, 0, CUR | ALT | ACCESS | MINRNR | APM,
	  PORT | AV | TIMEOUT | RETRY | RNRRETRY | MAXRD | MAXDRD | PKEY },
	{ C_UC, X_SQD, X_RTS, 0, CUR | ALT | ACCESS | APM, AV | PKEY },
	{ C_DG, X_SQD, X_RTS, 0, CUR | QKEY, PKEY },
	{ C_RC, X_SQE, X_RTS, 0, 0, 0 },
	{ C_UC, X_SQE, X_RTS, 0, CUR | ACCESS, 0 },
	{ C_DG, X_SQE, X_RTS, 0, CUR | QKEY, 0 },
};

/* Attributes each class has; opts bits naming others are ignored. */
static uint32_t class_attrs(unsigned int c)
{
	switch (c) {
	case C_RC:
		return PORT | PKEY | ACCESS | AV | DQPN | RQPSN | SQPSN | MAXDRD | MINRNR |
		       TIMEOUT | RETRY | RNRRETRY | MAXRD | ALT | APM | CUR | SQDEV;
	case C_UC:
		return PORT | PKEY | ACCESS | AV | DQPN | RQPSN | SQPSN | ALT | APM | CUR | SQDEV;
	case C_UD:
		return PORT | PKEY | QKEY | SQPSN | CUR | SQDEV;
	default:
		return PKEY | QKEY | SQPSN | CUR | SQDEV;
	}
}

/* Every QP type value with the class it should use (0: unsupported, -1: invalid). */
static const struct {
	ib_qp_type_t type;
	int cls;
} types[] = {
	{ IB_QPT_RELIABLE_CONN, C_RC },   { IB_QPT_UNRELIABLE_CONN, C_UC },
	{ IB_QPT_RELIABLE_DGRM, 0 },      { IB_QPT_UNRELIABLE_DGRM, C_UD },
	{ IB_QPT_QP0, C_SP },             { IB_QPT_QP1, C_SP },
	{ IB_QPT_RAW_IPV6, 0 },           { IB_QPT_RAW_ETHER, 0 },
	{ IB_QPT_MAD, C_UD },             { IB_QPT_QP0_ALIAS, C_SP },
	{ IB_QPT_QP1_ALIAS, C_SP },       { IB_QPT_UNKNOWN, -1 },
	{ (ib_qp_type_t)99, -1 },
};

/* A representative type per class. */
static ib_qp_type_t type_of(unsigned int c)
{
	return c == C_RC ? IB_QPT_RELIABLE_CONN : c == C_UC ? IB_QPT_UNRELIABLE_CONN :
	       c == C_UD ? IB_QPT_UNRELIABLE_DGRM : IB_QPT_QP1;
}

static const unsigned int classes[] = { C_RC, C_UC, C_UD, C_SP };

/* Every state value, with its canonical state (-1: not an HCA state). */
static const struct {
	ib_qp_state_t state;
	int x;
} states[] = {
	{ IB_QPS_RESET, X_RESET }, { IB_QPS_INIT, X_INIT },
	{ IB_QPS_RTR, X_RTR },     { IB_QPS_RTS, X_RTS },
	{ IB_QPS_SQD, X_SQD },     { IB_QPS_SQD_DRAINING, X_SQD },
	{ IB_QPS_SQD_DRAINED, X_SQD }, { IB_QPS_SQERR, X_SQE },
	{ IB_QPS_ERROR, X_ERR },   { IB_QPS_TIME_WAIT, -1 },
	{ 0, -1 },                 { 0x3, -1 },
};

/* The expectation for one transition; returns whether it is legal. */
static int expect(unsigned int c, int from, int to, uint32_t *req, uint32_t *opt, uint32_t *dr)
{
	size_t i;

	*req = *opt = *dr = 0;
	if (from < 0 || to < 0)
		return 0;
	if (to == X_RESET || to == X_ERR)
		return 1;
	for (i = 0; i < TEST_COUNT(rows); i++) {
		if ((rows[i].classes & c) && rows[i].from == from && rows[i].to == to) {
			*req = rows[i].req;
			*opt = rows[i].opt;
			*dr = rows[i].drained;
			return 1;
		}
	}
	return 0;
}

/* --- Building modifications ---------------------------------------------- */

static void good_av(ib_av_attr_t *av, uint8_t port, uint16_t dlid)
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
static void good_mod(ib_qp_mod_t *m, ib_qp_state_t req, ib_qp_state_t cur)
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
static void attr_in(soft_qp_attr_t *a, ib_qp_type_t type, ib_qp_state_t s)
{
	soft_qp_attr_init(a, type, 1);
	a->port = 1;
	a->state = s;
}

/* check() with the fixture CA, returning the status; *bad gets the fault bits. */
static ib_api_status_t check(ib_qp_type_t type, const soft_qp_attr_t *a, const ib_qp_mod_t *m,
			     uint32_t *bad)
{
	soft_qp_attr_mask_t b = 0xDEAD;
	ib_api_status_t st = soft_qp_modify_check(type, a->state, m, a, &ca, &b);

	*bad = b;
	return st;
}

/* Walks a QP of @p type from RESET to RTS with good modifications. */
static void to_rts(ib_qp_type_t type, soft_qp_attr_t *a)
{
	static const ib_qp_state_t path[] = { IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS };
	ib_qp_mod_t m;
	size_t i;

	soft_qp_attr_init(a, type, 1);
	for (i = 0; i < TEST_COUNT(path); i++) {
		good_mod(&m, path[i], a->state);
		CU_ASSERT_EQUAL_FATAL(soft_qp_modify(type, a, &m, &ca, NULL), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(a->state, IB_QPS_RTS);
}

/* --- The table ------------------------------------------------------------ */

/* soft_qp_transition() for every type, from and to value against the rows above. */
static void test_table_every_pair(void)
{
	size_t t, f, s;
	unsigned int checked = 0;

	for (t = 0; t < TEST_COUNT(types); t++) {
		for (f = 0; f < TEST_COUNT(states); f++) {
			for (s = 0; s < TEST_COUNT(states); s++) {
				soft_qp_trans_t tr;
				uint32_t req, opt, dr;
				int legal = types[t].cls > 0 &&
					    expect((unsigned)types[t].cls, states[f].x, states[s].x,
						   &req, &opt, &dr);
				boolean_t got = soft_qp_transition(types[t].type, states[f].state,
								   states[s].state, &tr);

				CU_ASSERT_EQUAL(got, legal ? TRUE : FALSE);
				if (got != (legal ? TRUE : FALSE))
					printf("\n  type %d %s -> %s\n", (int)types[t].type,
					       soft_qp_state_str(states[f].state),
					       soft_qp_state_str(states[s].state));
				if (!legal) {
					CU_ASSERT(!tr.req && !tr.opt && !tr.drained);
					continue;
				}
				CU_ASSERT_EQUAL(tr.req, req);
				CU_ASSERT_EQUAL(tr.opt, opt);
				CU_ASSERT_EQUAL(tr.drained, dr);
				checked++;
			}
		}
	}
	/* At least: 8 supported types may reset and fail from each of the 9 state values. */
	CU_ASSERT(checked >= 8 * 9 * 2);
	CU_ASSERT_TRUE(soft_qp_transition(IB_QPT_RELIABLE_CONN, IB_QPS_RESET, IB_QPS_INIT, NULL));
	CU_ASSERT_FALSE(soft_qp_transition(IB_QPT_RELIABLE_CONN, IB_QPS_RESET, IB_QPS_RTS, NULL));
}

static void test_class_of_types(void)
{
	size_t t;

	for (t = 0; t < TEST_COUNT(types); t++) {
		soft_qp_class_t c = soft_qp_class(types[t].type);

		switch (types[t].cls) {
		case C_RC: CU_ASSERT_EQUAL(c, SOFT_QPC_RC); break;
		case C_UC: CU_ASSERT_EQUAL(c, SOFT_QPC_UC); break;
		case C_UD: CU_ASSERT_EQUAL(c, SOFT_QPC_UD); break;
		case C_SP: CU_ASSERT_EQUAL(c, SOFT_QPC_SPECIAL); break;
		case 0: CU_ASSERT_EQUAL(c, SOFT_QPC_UNSUPPORTED); break;
		default: CU_ASSERT_EQUAL(c, SOFT_QPC_INVALID); break;
		}
	}
}

/*
 * soft_qp_modify_check() for every type and (from, to) pair with a
 * modification holding valid values and no opts: legal transitions succeed,
 * illegal ones return IB_INVALID_QP_STATE, unsupported types IB_UNSUPPORTED,
 * invalid types and requested states IB_INVALID_SETTING.
 */
static void test_check_every_pair(void)
{
	size_t t, f, s;

	for (t = 0; t < TEST_COUNT(types); t++) {
		for (f = 0; f < TEST_COUNT(states); f++) {
			for (s = 0; s < TEST_COUNT(states); s++) {
				soft_qp_attr_t a;
				ib_qp_mod_t m;
				uint32_t req, opt, dr, bad;
				ib_api_status_t want, got;

				attr_in(&a, types[t].type, states[f].state);
				good_mod(&m, states[s].state, states[f].state);
				if (types[t].cls < 0)
					want = IB_INVALID_SETTING;
				else if (types[t].cls == 0)
					want = IB_UNSUPPORTED;
				else if (states[s].x < 0)
					want = IB_INVALID_SETTING;
				else if (states[f].x < 0)
					want = IB_INVALID_QP_STATE;
				else if (!expect((unsigned)types[t].cls, states[f].x, states[s].x,
						 &req, &opt, &dr))
					want = IB_INVALID_QP_STATE;
				else
					want = IB_SUCCESS;
				got = check(types[t].type, &a, &m, &bad);
				CU_ASSERT_EQUAL(got, want);
				if (got != want)
					printf("\n  type %d %s -> %s: %s, want %s\n",
					       (int)types[t].type, soft_qp_state_str(states[f].state),
					       soft_qp_state_str(states[s].state), ib_get_err_str(got),
					       ib_get_err_str(want));
				if (want == IB_SUCCESS || want == IB_INVALID_QP_STATE)
					CU_ASSERT_EQUAL(bad, 0);
			}
		}
	}
}

/*
 * Every opts bit of the RTR and RTS members, alone, for every class and
 * every transition to RTR or RTS: ignored when the class has no such
 * attribute or the member no such field, accepted when the transition allows
 * it, accepted only once drained when it is drain-only, else rejected with
 * IB_INVALID_SETTING naming the attribute.
 */
static const struct {
	ib_qp_opts_t bit;
	uint32_t rtr_attr; /* 0: no field in state.rtr */
	uint32_t rts_attr;
} opt_bits[] = {
	{ IB_MOD_QP_ALTERNATE_AV, ALT, ALT },
	{ IB_MOD_QP_PKEY, PKEY, PKEY },
	{ IB_MOD_QP_APM_STATE, 0, APM },
	{ IB_MOD_QP_PRIMARY_AV, AV, AV },
	{ IB_MOD_QP_RNR_NAK_TIMEOUT, MINRNR, MINRNR },
	{ IB_MOD_QP_RESP_RES, MAXDRD, MAXDRD },
	{ IB_MOD_QP_INIT_DEPTH, 0, MAXRD },
	{ IB_MOD_QP_PRIMARY_PORT, 0, PORT },
	{ IB_MOD_QP_ACCESS_CTRL, ACCESS, ACCESS },
	{ IB_MOD_QP_QKEY, QKEY, QKEY },
	{ IB_MOD_QP_CURRENT_STATE, 0, CUR },
	{ IB_MOD_QP_RETRY_CNT, 0, RETRY },
	{ IB_MOD_QP_LOCAL_ACK_TIMEOUT, 0, TIMEOUT },
	{ IB_MOD_QP_RNR_RETRY_CNT, 0, RNRRETRY },
	{ IB_MOD_QP_GENERATE_PRIO_TAG, 0, 0 },
};

static void test_check_every_opts_bit(void)
{
	static const ib_qp_state_t froms[] = { IB_QPS_INIT, IB_QPS_RTR, IB_QPS_RTS,
					       IB_QPS_SQD_DRAINING, IB_QPS_SQD_DRAINED,
					       IB_QPS_SQERR };
	size_t c, f, b;

	for (c = 0; c < TEST_COUNT(classes); c++) {
		ib_qp_type_t type = type_of(classes[c]);

		for (f = 0; f < TEST_COUNT(froms); f++) {
			int from = froms[f] == IB_QPS_INIT ? X_INIT : froms[f] == IB_QPS_RTR ? X_RTR :
				   froms[f] == IB_QPS_RTS ? X_RTS : froms[f] == IB_QPS_SQERR ? X_SQE :
				   X_SQD;
			int to = from == X_INIT ? X_RTR : X_RTS;
			ib_qp_state_t req_state = to == X_RTR ? IB_QPS_RTR : IB_QPS_RTS;
			uint32_t req, opt, dr;

			if (!expect(classes[c], from, to, &req, &opt, &dr))
				continue;
			for (b = 0; b < TEST_COUNT(opt_bits); b++) {
				uint32_t attr = to == X_RTR ? opt_bits[b].rtr_attr : opt_bits[b].rts_attr;
				ib_api_status_t want = IB_SUCCESS, got;
				uint32_t want_bad = 0, bad;
				soft_qp_attr_t a;
				ib_qp_mod_t m;

				attr_in(&a, type, froms[f]);
				good_mod(&m, req_state, froms[f]);
				if (to == X_RTR)
					m.state.rtr.opts = opt_bits[b].bit;
				else
					m.state.rts.opts = opt_bits[b].bit;
				if (!attr || !(attr & class_attrs(classes[c])) || (attr & (req | opt))) {
					want = IB_SUCCESS;
				} else if (attr & dr) {
					if (froms[f] != IB_QPS_SQD_DRAINED) {
						want = IB_INVALID_QP_STATE;
						want_bad = attr;
					}
				} else {
					want = IB_INVALID_SETTING;
					want_bad = attr;
				}
				got = check(type, &a, &m, &bad);
				CU_ASSERT_EQUAL(got, want);
				CU_ASSERT_EQUAL(bad, want_bad);
				if (got != want || bad != want_bad)
					printf("\n  class %u from %s bit 0x%x: %s bad 0x%x\n", classes[c],
					       soft_qp_state_str(froms[f]), (unsigned)opt_bits[b].bit,
					       ib_get_err_str(got), (unsigned)bad);
			}
		}
	}
}

/* Bits outside IB_MOD_QP_* are refused; depth changes are unsupported. */
static void test_check_unknown_and_depth_opts(void)
{
	soft_qp_attr_t a;
	ib_qp_mod_t m;
	uint32_t bad;

	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_INIT);
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = 0x00100000;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	m.state.rtr.opts = IB_MOD_QP_SQ_DEPTH;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_UNSUPPORTED);
	attr_in(&a, IB_QPT_UNRELIABLE_DGRM, IB_QPS_RTS);
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_RQ_DEPTH;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_UNSUPPORTED);
	/* The union is not read for transitions that carry no attributes. */
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RTS);
	memset(&m, 0xFF, sizeof(m));
	m.req_state = IB_QPS_ERROR;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	m.req_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
}

/* --- Required and forbidden attributes ------------------------------------ */

/* A required attribute left at its "absent" value is refused and named. */
static void test_check_required_missing(void)
{
	static const ib_qp_type_t conn[] = { IB_QPT_RELIABLE_CONN, IB_QPT_UNRELIABLE_CONN };
	soft_qp_attr_t a;
	ib_qp_mod_t m;
	uint32_t bad;
	size_t i;

	/* RESET -> INIT without a port, for connected and UD QPs. */
	for (i = 0; i < 3; i++) {
		ib_qp_type_t t = i < 2 ? conn[i] : IB_QPT_UNRELIABLE_DGRM;

		attr_in(&a, t, IB_QPS_RESET);
		good_mod(&m, IB_QPS_INIT, a.state);
		m.state.init.primary_port = 0;
		CU_ASSERT_EQUAL(check(t, &a, &m, &bad), IB_INVALID_SETTING);
		CU_ASSERT_EQUAL(bad, PORT);
	}
	/* A special QP that was not bound to a port cannot be initialized. */
	soft_qp_attr_init(&a, IB_QPT_QP1, 0);
	good_mod(&m, IB_QPS_INIT, a.state);
	m.state.init.primary_port = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_QP1, &a, &m, &bad), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(bad, PORT);

	/* INIT -> RTR without destination QP, DLID or path MTU. */
	for (i = 0; i < TEST_COUNT(conn); i++) {
		attr_in(&a, conn[i], IB_QPS_INIT);
		good_mod(&m, IB_QPS_RTR, a.state);
		m.state.rtr.dest_qp = 0;
		CU_ASSERT_EQUAL(check(conn[i], &a, &m, &bad), IB_INVALID_SETTING);
		CU_ASSERT_EQUAL(bad, DQPN);
		good_mod(&m, IB_QPS_RTR, a.state);
		m.state.rtr.primary_av.dlid = 0;
		CU_ASSERT_EQUAL(check(conn[i], &a, &m, &bad), IB_INVALID_SETTING);
		CU_ASSERT_EQUAL(bad, AV);
		good_mod(&m, IB_QPS_RTR, a.state);
		m.state.rtr.primary_av.conn.path_mtu = 0;
		CU_ASSERT_EQUAL(check(conn[i], &a, &m, &bad), IB_INVALID_SETTING);
		CU_ASSERT_EQUAL(bad, AV);
		/* INIT -> RTR needs a port set by RESET -> INIT. */
		a.port = 0;
		good_mod(&m, IB_QPS_RTR, a.state);
		CU_ASSERT_EQUAL(check(conn[i], &a, &m, &bad), IB_INVALID_SETTING);
		CU_ASSERT_EQUAL(bad, PORT);
	}
	/* Datagram QPs need none of those: a zeroed RTR (as ib_init_dgrm_svc does). */
	attr_in(&a, IB_QPT_UNRELIABLE_DGRM, IB_QPS_INIT);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_SUCCESS);
}

/* Attributes a transition forbids are refused with IB_INVALID_SETTING. */
static void test_check_forbidden(void)
{
	static const struct {
		ib_qp_type_t type;
		ib_qp_state_t from, to;
		ib_qp_opts_t opts;
		uint32_t bad;
	} cases[] = {
		/* Responder resources and P_Key index are set in RTR, not RTR -> RTS. */
		{ IB_QPT_RELIABLE_CONN, IB_QPS_RTR, IB_QPS_RTS, IB_MOD_QP_RESP_RES, MAXDRD },
		{ IB_QPT_RELIABLE_CONN, IB_QPS_RTR, IB_QPS_RTS, IB_MOD_QP_PKEY, PKEY },
		/* The primary path and timeouts change only through SQD. */
		{ IB_QPT_RELIABLE_CONN, IB_QPS_RTS, IB_QPS_RTS, IB_MOD_QP_PRIMARY_AV, AV },
		{ IB_QPT_RELIABLE_CONN, IB_QPS_RTS, IB_QPS_RTS, IB_MOD_QP_RETRY_CNT, RETRY },
		{ IB_QPT_RELIABLE_CONN, IB_QPS_RTS, IB_QPS_RTS, IB_MOD_QP_PRIMARY_PORT, PORT },
		{ IB_QPT_UNRELIABLE_CONN, IB_QPS_SQERR, IB_QPS_RTS, IB_MOD_QP_ALTERNATE_AV, ALT },
		{ IB_QPT_UNRELIABLE_DGRM, IB_QPS_RTS, IB_QPS_RTS, IB_MOD_QP_PKEY, PKEY },
		{ IB_QPT_QP1, IB_QPS_RTR, IB_QPS_RTS, IB_MOD_QP_PRIMARY_PORT, 0 },
		/* Two forbidden attributes at once are both named. */
		{ IB_QPT_RELIABLE_CONN, IB_QPS_RTS, IB_QPS_RTS,
		  IB_MOD_QP_PKEY | IB_MOD_QP_RESP_RES, PKEY | MAXDRD },
	};
	size_t i;

	for (i = 0; i < TEST_COUNT(cases); i++) {
		soft_qp_attr_t a;
		ib_qp_mod_t m;
		uint32_t bad;

		attr_in(&a, cases[i].type, cases[i].from);
		good_mod(&m, cases[i].to, cases[i].from);
		m.state.rts.opts = cases[i].opts;
		/* A special QP has no port attribute: the bit is ignored. */
		CU_ASSERT_EQUAL(check(cases[i].type, &a, &m, &bad),
				cases[i].bad ? IB_INVALID_SETTING : IB_SUCCESS);
		CU_ASSERT_EQUAL(bad, cases[i].bad);
	}
}

/* Bits upstream providers ignore are ignored (OFED for Windows code sets them). */
static void test_check_ignored_bits(void)
{
	soft_qp_attr_t a, before;
	soft_qp_attr_mask_t applied;
	ib_qp_mod_t m;
	uint32_t bad;

	/* RTR of perftest: LOCAL_ACK_TIMEOUT | RESP_RES | PRIMARY_AV on RC, UC and UD. */
	attr_in(&a, IB_QPT_UNRELIABLE_DGRM, IB_QPS_INIT);
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = IB_MOD_QP_LOCAL_ACK_TIMEOUT | IB_MOD_QP_RESP_RES | IB_MOD_QP_PRIMARY_AV;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_SUCCESS);
	before = a;
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_UNRELIABLE_DGRM, &a, &m, &applied), IB_SUCCESS);
	CU_ASSERT_EQUAL(applied, 0);
	before.state = IB_QPS_RTR;
	CU_ASSERT_EQUAL(memcmp(&a, &before, sizeof(a)), 0);
	attr_in(&a, IB_QPT_UNRELIABLE_CONN, IB_QPS_INIT);
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_INIT);
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	/* Q_Key on an RC QP: there is none; the value is not stored. */
	m.state.rtr.opts = IB_MOD_QP_QKEY;
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, &bad), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.qkey, 0);
	/* Fields without their bit are not taken when the transition does not require them. */
	CU_ASSERT_EQUAL(a.pkey_index, 0);
	CU_ASSERT_FALSE(a.alt_valid);
	CU_ASSERT_EQUAL(a.access_ctrl, 0);
}

/* --- Values ---------------------------------------------------------------- */

static void test_check_ports_and_pkeys(void)
{
	soft_qp_attr_t a;
	ib_qp_mod_t m;
	uint32_t bad;

	/* Port numbers are 1..num_ports. */
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RESET);
	good_mod(&m, IB_QPS_INIT, a.state);
	m.state.init.primary_port = 3;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(bad, PORT);
	m.state.init.primary_port = 2;
	m.state.init.pkey_index = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	/* The index must be inside the table of the port it will be used on... */
	m.state.init.pkey_index = 3;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_PKEY);
	CU_ASSERT_EQUAL(bad, PKEY);
	m.state.init.primary_port = 1;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	m.state.init.pkey_index = 4;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_PKEY);
	CU_ASSERT_EQUAL(bad, PKEY);
	/* ...and name a valid P_Key (0x0000 and 0x8000 are not). */
	m.state.init.pkey_index = 2;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_PKEY);
	m.state.init.primary_port = 2;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_PKEY);
	CU_ASSERT_EQUAL(bad, PKEY);
	m.state.init.pkey_index = 1;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);

	/* Optional P_Key index in RTR is checked against the QP's port. */
	attr_in(&a, IB_QPT_UNRELIABLE_DGRM, IB_QPS_INIT);
	a.port = 2;
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = IB_MOD_QP_PKEY;
	m.state.rtr.pkey_index = 3;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_INVALID_PKEY);
	a.port = 1;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_SUCCESS);

	/* Special QPs: the bound port or 0, nothing else. */
	attr_in(&a, IB_QPT_QP0, IB_QPS_RESET);
	good_mod(&m, IB_QPS_INIT, a.state);
	m.state.init.primary_port = 2;
	CU_ASSERT_EQUAL(check(IB_QPT_QP0, &a, &m, &bad), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(bad, PORT);
	m.state.init.primary_port = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_QP0, &a, &m, &bad), IB_SUCCESS);

	/* The primary path's port, when given, is the QP's. */
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_INIT);
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.primary_av.port_num = 2;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(bad, AV);
	m.state.rtr.primary_av.port_num = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);

	/* The alternate path: a valid port whose table holds the QP's P_Key index. */
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV;
	m.state.rtr.alternate_av.port_num = 3;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(bad, ALT);
	m.state.rtr.alternate_av.port_num = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	m.state.rtr.alternate_av.port_num = 2;
	a.pkey_index = 3;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_PKEY);
	CU_ASSERT_EQUAL(bad, ALT);
	a.pkey_index = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);

	/* SQD -> RTS port change: allowed by the CA, the P_Key index must fit the new port. */
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_SQD_DRAINED);
	a.pkey_index = 3;
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_PRIMARY_PORT;
	m.state.rts.primary_port = 2;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_PKEY);
	a.pkey_index = 0;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	ca.change_primary_port = FALSE;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(bad, PORT);
	m.state.rts.primary_port = 1; /* same port: no change */
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	ca.change_primary_port = TRUE;

	/* CA without ports. */
	ca.num_ports = 0;
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RESET);
	good_mod(&m, IB_QPS_INIT, a.state);
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	ca.num_ports = 2;
}

/* Each ranged value, one past its range, is refused and named. */
static void test_check_value_ranges(void)
{
	soft_qp_attr_t a;
	ib_qp_mod_t m;
	uint32_t bad;

#define EXPECT_BAD(type, field_stmt, status, bits)                                      \
	do {                                                                            \
		field_stmt;                                                             \
		CU_ASSERT_EQUAL(check(type, &a, &m, &bad), status);                     \
		CU_ASSERT_EQUAL(bad, bits);                                             \
	} while (0)

	/* RTR of an RC QP. */
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_INIT);
	good_mod(&m, IB_QPS_RTR, a.state);
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.dest_qp = CL_HTON32(1), IB_INVALID_SETTING, DQPN);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.dest_qp = CL_HTON32(0x1000000),
		   IB_INVALID_SETTING, DQPN);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.dest_qp = CL_HTON32(0xFFFFFF), IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.resp_res = 17, IB_INVALID_SETTING, MAXDRD);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.resp_res = 16, IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.rnr_nak_timeout = 32, IB_INVALID_SETTING, MINRNR);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.rnr_nak_timeout = 31, IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.sl = 16, IB_INVALID_SETTING, AV);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.sl = 15, IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.dlid = CL_HTON16(0xC000),
		   IB_INVALID_SETTING, AV);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.dlid = CL_HTON16(0xFFFF),
		   IB_INVALID_SETTING, AV);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.dlid = CL_HTON16(0xBFFF), IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_4096,
		   IB_INVALID_SETTING, AV); /* above port 1's MTU */
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.conn.path_mtu = 6,
		   IB_INVALID_SETTING, AV);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_2048,
		   IB_SUCCESS, 0);
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = IB_MOD_QP_ACCESS_CTRL;
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.access_ctrl = 0x40, IB_INVALID_SETTING, ACCESS);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN,
		   m.state.rtr.access_ctrl = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC |
					     IB_AC_LOCAL_WRITE | IB_AC_MW_BIND,
		   IB_SUCCESS, 0);
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV;
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.alternate_av.conn.local_ack_timeout = 32,
		   IB_INVALID_SETTING, ALT);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.alternate_av.conn.local_ack_timeout = 31,
		   IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rtr.alternate_av.dlid = 0, IB_INVALID_SETTING, ALT);

	/* RTS of an RC QP. */
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RTR);
	good_mod(&m, IB_QPS_RTS, a.state);
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.local_ack_timeout = 32, IB_INVALID_SETTING, TIMEOUT);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.local_ack_timeout = 31, IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.retry_cnt = 8, IB_INVALID_SETTING, RETRY);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.retry_cnt = 7, IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.rnr_retry_cnt = 8, IB_INVALID_SETTING, RNRRETRY);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.rnr_retry_cnt = 7, IB_SUCCESS, 0);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.init_depth = 9, IB_INVALID_SETTING, MAXRD);
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.init_depth = 8, IB_SUCCESS, 0);
	/* A 32-bit PSN is accepted (its top byte is dropped when applied). */
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.sq_psn = CL_HTON32(0xFF000001), IB_SUCCESS, 0);
	m.state.rts.opts = IB_MOD_QP_RNR_NAK_TIMEOUT;
	EXPECT_BAD(IB_QPT_RELIABLE_CONN, m.state.rts.rnr_nak_timeout = 32, IB_INVALID_SETTING, MINRNR);
#undef EXPECT_BAD
}

/* Path migration states and the current-state assertion. */
static void test_check_apm_and_current_state(void)
{
	soft_qp_attr_t a;
	ib_qp_mod_t m;
	uint32_t bad;

	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RTS);
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = (ib_apm_state_t)0;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_APM_STATE);
	CU_ASSERT_EQUAL(bad, APM);
	m.state.rts.apm_state = (ib_apm_state_t)4;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_APM_STATE);
	/* Arming needs an alternate path, loaded before or in the same call. */
	m.state.rts.apm_state = IB_APM_REARM;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_APM_STATE);
	m.state.rts.apm_state = IB_APM_ARMED;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_APM_STATE);
	m.state.rts.opts |= IB_MOD_QP_ALTERNATE_AV;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	a.alt_valid = TRUE;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	m.state.rts.apm_state = IB_APM_MIGRATED;
	a.alt_valid = FALSE;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	/* Without APM support in the CA. */
	ca.apm_support = FALSE;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(bad, APM);
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(bad, ALT);
	ca.apm_support = TRUE;

	/* The asserted current state must be the QP's, and one that allows it. */
	good_mod(&m, IB_QPS_RTS, IB_QPS_RTS);
	m.state.rts.opts = IB_MOD_QP_CURRENT_STATE;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	m.state.rts.current_state = IB_QPS_SQD;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(bad, CUR);
	m.state.rts.current_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	m.state.rts.current_state = IB_QPS_TIME_WAIT;
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_INVALID_SETTING);
	attr_in(&a, IB_QPT_UNRELIABLE_DGRM, IB_QPS_SQD_DRAINING);
	m.state.rts.current_state = IB_QPS_SQD_DRAINED; /* any SQD value names SQD */
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_SUCCESS);
	ca.current_qp_state_support = FALSE;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(bad, CUR);
	ca.current_qp_state_support = TRUE;
}

static void test_check_null_arguments(void)
{
	soft_qp_attr_t a;
	ib_qp_mod_t m;
	soft_qp_attr_mask_t bad = 7, applied = 7;

	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RESET);
	good_mod(&m, IB_QPS_INIT, a.state);
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, NULL, &a, &ca, &bad),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, NULL, &ca, NULL),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, NULL, NULL),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_RELIABLE_CONN, NULL, &m, &applied),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(applied, 0);
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, NULL, &m, &ca, &bad), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, NULL, &bad), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	/* apply refuses what the plan refuses, and changes nothing. */
	m.req_state = IB_QPS_RTS;
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, NULL), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(soft_qp_event(IB_QPT_RELIABLE_CONN, NULL, SOFT_QP_EV_FATAL, NULL), FALSE);
}

/* --- Applying -------------------------------------------------------------- */

/* An RC QP through RESET -> INIT -> RTR -> RTS: every attribute lands where it should. */
static void test_apply_rc_bringup(void)
{
	soft_qp_attr_t a;
	soft_qp_attr_mask_t applied;
	ib_qp_mod_t m;
	ib_qp_attr_t q;

	soft_qp_attr_init(&a, IB_QPT_RELIABLE_CONN, 1);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(a.port, 0); /* only special QPs keep a port from creation */
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.valid, 0);

	good_mod(&m, IB_QPS_INIT, a.state);
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_INIT);
	CU_ASSERT_EQUAL(a.port, 1);
	CU_ASSERT_EQUAL(a.pkey_index, 1);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_RDMA_READ | IB_AC_RDMA_WRITE);
	CU_ASSERT_EQUAL(a.qkey, 0); /* an RC QP has no Q_Key */
	CU_ASSERT_EQUAL(a.valid, PORT | PKEY | ACCESS);

	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.rq_psn = CL_HTON32(0xAB123456);
	m.state.rtr.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_ACCESS_CTRL;
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, &ca, NULL),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, &applied), IB_SUCCESS);
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
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, &ca, NULL),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, &applied), IB_SUCCESS);
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
	soft_qp_attr_to_ib(&a, &q);
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
	soft_qp_attr_t a;
	ib_qp_mod_t m;

	/* What ib_init_dgrm_svc() does to QP1: RESET, INIT, zeroed RTR, RTS with a PSN. */
	soft_qp_attr_init(&a, IB_QPT_QP1, 2);
	CU_ASSERT_EQUAL(a.port, 2);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RESET;
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.port, 2);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	m.state.init.pkey_index = 0;
	m.state.init.primary_port = 2;
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.qkey, 0x80010000);
	CU_ASSERT_EQUAL(a.valid, PKEY | QKEY);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = CL_HTON32(0x00ABCDEF);
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_QP1, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.sq_psn, 0xABCDEF);
	CU_ASSERT_EQUAL(a.port, 2);
	CU_ASSERT_EQUAL(a.primary_av.dlid, 0); /* datagram QPs have no path */

	/* A UD QP: port from INIT, Q_Key changed in RTS -> RTS. */
	soft_qp_attr_init(&a, IB_QPT_UNRELIABLE_DGRM, 2);
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
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_UNRELIABLE_DGRM, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.qkey, 0x33333333);
	CU_ASSERT_EQUAL(a.sq_psn, 0x654321); /* RTS -> RTS does not take the PSN */
}

/* SQD: drain substates, drain-only attributes, the drained event. */
static void test_apply_sqd(void)
{
	soft_qp_attr_t a;
	soft_qp_attr_mask_t applied, bad;
	ib_async_event_t ev;
	ib_qp_mod_t m;

	to_rts(IB_QPT_RELIABLE_CONN, &a);
	good_mod(&m, IB_QPS_SQD, a.state);
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
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
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, &bad), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(bad, AV | PORT | TIMEOUT | RETRY | RNRRETRY | MAXRD | MAXDRD | PKEY);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINING);

	CU_ASSERT_TRUE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_SQ_DRAINED, &ev));
	CU_ASSERT_EQUAL(ev, IB_AE_SQ_DRAINED);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINED);
	CU_ASSERT_FALSE(a.sqd_event);
	CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_SQ_DRAINED, &ev));
	CU_ASSERT_EQUAL(ev, 0);

	/* SQD -> SQD keeps the drained substate. */
	{
		ib_qp_mod_t s;

		good_mod(&s, IB_QPS_SQD, a.state);
		CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &s, &ca, NULL), IB_SUCCESS);
		CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINED);
		CU_ASSERT_FALSE(a.sqd_event);
	}

	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, &ca, &bad),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, &applied), IB_SUCCESS);
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
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_TRUE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_SQ_DRAINED, &ev));
	CU_ASSERT_EQUAL(ev, 0);
	CU_ASSERT_EQUAL(a.state, IB_QPS_SQD_DRAINED);

	/* A UD QP: only the P_Key index waits for the drain; Q_Key does not. */
	to_rts(IB_QPT_UNRELIABLE_DGRM, &a);
	good_mod(&m, IB_QPS_SQD, a.state);
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_UNRELIABLE_DGRM, &a, &m, &ca, NULL), IB_SUCCESS);
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_QKEY;
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, a.state, &m, &a, &ca, NULL),
			IB_SUCCESS);
	m.state.rts.opts = IB_MOD_QP_PKEY;
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, a.state, &m, &a, &ca, &bad),
			IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(bad, PKEY);
	/* Plain IB_QPS_SQD counts as still draining. */
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, IB_QPS_SQD, &m, &a, &ca, &bad),
			IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(soft_qp_modify_check(IB_QPT_UNRELIABLE_DGRM, IB_QPS_SQD_DRAINED, &m, &a, &ca,
					     &bad), IB_SUCCESS);
}

/* Alternate path, arming and migration (by the HCA and forced by software). */
static void test_apply_apm(void)
{
	soft_qp_attr_t a;
	ib_async_event_t ev;
	ib_qp_mod_t m;

	to_rts(IB_QPT_RELIABLE_CONN, &a);
	CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_APM_ARMED, &ev));
	good_mod(&m, IB_QPS_RTS, a.state);
	m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
	m.state.rts.apm_state = IB_APM_REARM;
	m.state.rts.alternate_av.conn.local_ack_timeout = 17;
	m.state.rts.alternate_av.conn.path_mtu = IB_MTU_LEN_2048;
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_TRUE(a.alt_valid);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_REARM);
	CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_MIGRATED, &ev));
	CU_ASSERT_TRUE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_APM_ARMED, &ev));
	CU_ASSERT_EQUAL(ev, 0);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
	CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_APM_ARMED, &ev));

	/* The HCA migrates: the alternate path becomes the primary one. */
	CU_ASSERT_TRUE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_MIGRATED, &ev));
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
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.apm_state = IB_APM_MIGRATED;
	m.state.rts.opts = IB_MOD_QP_APM_STATE;
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
	CU_ASSERT_EQUAL(a.port, 1);
	CU_ASSERT_EQUAL(a.primary_av.dlid, CL_HTON16(0x71));
	CU_ASSERT_FALSE(a.alt_valid);
	/* Again, with nothing armed: only the state is recorded. */
	CU_ASSERT_EQUAL(soft_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, NULL), IB_SUCCESS);
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
			soft_qp_attr_t a, fresh;
			ib_qp_mod_t m;

			to_rts(type, &a);
			if (classes[c] & (C_RC | C_UC)) {
				good_mod(&m, IB_QPS_RTS, a.state);
				m.state.rts.opts = IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_APM_STATE;
				m.state.rts.apm_state = IB_APM_REARM;
				CU_ASSERT_EQUAL(soft_qp_modify(type, &a, &m, &ca, NULL), IB_SUCCESS);
			}
			a.state = froms[f];
			a.sqd_event = TRUE;
			memset(&m, 0xA5, sizeof(m)); /* the union is not read */
			m.req_state = IB_QPS_RESET;
			CU_ASSERT_EQUAL(soft_qp_modify(type, &a, &m, &ca, NULL), IB_SUCCESS);
			soft_qp_attr_init(&fresh, type, 1);
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
			soft_qp_attr_t a, before;
			soft_qp_attr_mask_t applied = 1;
			ib_qp_mod_t m;

			to_rts(type, &a);
			a.state = froms[f];
			a.sqd_event = TRUE;
			before = a;
			memset(&m, 0x5A, sizeof(m));
			m.req_state = IB_QPS_ERROR;
			CU_ASSERT_EQUAL(soft_qp_modify_check(type, a.state, &m, &a, &ca, NULL),
					IB_SUCCESS);
			CU_ASSERT_EQUAL(soft_qp_apply_mod(type, &a, &m, &applied), IB_SUCCESS);
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
	soft_qp_attr_t a;
	ib_async_event_t ev;
	ib_qp_mod_t m;
	size_t i;

	for (i = 0; i < TEST_COUNT(sqe_types); i++) {
		to_rts(sqe_types[i], &a);
		CU_ASSERT_TRUE(soft_qp_event(sqe_types[i], &a, SOFT_QP_EV_SEND_ERR, &ev));
		CU_ASSERT_EQUAL(ev, 0);
		CU_ASSERT_EQUAL(a.state, IB_QPS_SQERR);
		/* The consumer cannot request SQE itself. */
		memset(&m, 0, sizeof(m));
		m.req_state = IB_QPS_SQERR;
		CU_ASSERT_EQUAL(soft_qp_modify(sqe_types[i], &a, &m, &ca, NULL), IB_INVALID_QP_STATE);
		good_mod(&m, IB_QPS_RTS, a.state);
		m.state.rts.opts = IB_MOD_QP_CURRENT_STATE;
		CU_ASSERT_EQUAL(soft_qp_modify(sqe_types[i], &a, &m, &ca, NULL), IB_SUCCESS);
		CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	}
	/* An RC QP goes straight to ERROR. */
	to_rts(IB_QPT_RELIABLE_CONN, &a);
	CU_ASSERT_TRUE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_SEND_ERR, &ev));
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

			for (ev = 0; ev <= SOFT_QP_EV_COUNT; ev++) {
				soft_qp_attr_t a;
				ib_async_event_t got_ev = (ib_async_event_t)77;
				ib_async_event_t want_ev = (ib_async_event_t)0;
				ib_qp_state_t want_state = s;
				boolean_t want = FALSE, got;

				to_rts(type, &a);
				a.state = s;
				a.sqd_event = TRUE;
				a.alt_valid = TRUE;
				a.alternate_av = a.primary_av;
				a.apm_state = ev == SOFT_QP_EV_APM_ARMED ? IB_APM_REARM : IB_APM_ARMED;
				switch (ev) {
				case SOFT_QP_EV_COMM_EST:
					want = conn && s == IB_QPS_RTR;
					want_ev = IB_AE_QP_COMM;
					break;
				case SOFT_QP_EV_SQ_DRAINED:
					want = s == IB_QPS_SQD_DRAINING;
					want_ev = IB_AE_SQ_DRAINED;
					want_state = IB_QPS_SQD_DRAINED;
					break;
				case SOFT_QP_EV_SEND_ERR:
					want = s == IB_QPS_RTS || sqd;
					want_state = cl == C_RC ? IB_QPS_ERROR : IB_QPS_SQERR;
					break;
				case SOFT_QP_EV_WQ_ERR:
					want = live;
					want_state = IB_QPS_ERROR;
					break;
				case SOFT_QP_EV_REQ_ERR:
				case SOFT_QP_EV_ACCESS_ERR:
					want = cl == C_RC && live && s != IB_QPS_INIT;
					want_ev = ev == SOFT_QP_EV_REQ_ERR ? IB_AE_WQ_REQ_ERROR :
									     IB_AE_WQ_ACCESS_ERROR;
					want_state = IB_QPS_ERROR;
					break;
				case SOFT_QP_EV_FATAL:
					want = s != IB_QPS_RESET;
					want_ev = IB_AE_QP_FATAL;
					want_state = IB_QPS_ERROR;
					break;
				case SOFT_QP_EV_APM_ARMED:
					want = conn && (s == IB_QPS_RTR || s == IB_QPS_RTS || sqd);
					break;
				case SOFT_QP_EV_MIGRATED:
					want = conn && (s == IB_QPS_RTS || sqd);
					want_ev = IB_AE_QP_APM;
					break;
				default:
					break; /* SOFT_QP_EV_COUNT: not an event */
				}
				if (!want) {
					want_ev = (ib_async_event_t)0;
					want_state = s;
				}
				got = soft_qp_event(type, &a, (soft_qp_event_t)ev, &got_ev);
				CU_ASSERT_EQUAL(got, want);
				CU_ASSERT_EQUAL(got_ev, want_ev);
				CU_ASSERT_EQUAL(a.state, want_state);
				if (got != want || got_ev != want_ev || a.state != want_state)
					printf("\n  class %u %s %s: %d ev %d state %s\n", cl,
					       soft_qp_state_str(s), soft_qp_event_str((soft_qp_event_t)ev),
					       (int)got, (int)got_ev, soft_qp_state_str(a.state));
				if (want && ev == SOFT_QP_EV_APM_ARMED)
					CU_ASSERT_EQUAL(a.apm_state, IB_APM_ARMED);
				if (want && ev == SOFT_QP_EV_MIGRATED)
					CU_ASSERT_EQUAL(a.apm_state, IB_APM_MIGRATED);
				if (want && a.state != IB_QPS_SQD_DRAINING)
					CU_ASSERT_FALSE(a.sqd_event);
			}
		}
	}
	/* Unsupported types have no events. */
	CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RAW_ETHER, NULL, SOFT_QP_EV_FATAL, NULL));
	{
		soft_qp_attr_t a;

		to_rts(IB_QPT_RELIABLE_CONN, &a);
		CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RELIABLE_DGRM, &a, SOFT_QP_EV_FATAL, NULL));
		CU_ASSERT_FALSE(soft_qp_event(IB_QPT_UNKNOWN, &a, SOFT_QP_EV_FATAL, NULL));
		CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
		a.state = IB_QPS_TIME_WAIT;
		CU_ASSERT_FALSE(soft_qp_event(IB_QPT_RELIABLE_CONN, &a, SOFT_QP_EV_FATAL, NULL));
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
		soft_qp_attr_t a;
		ib_qp_mod_t m;

		soft_qp_attr_init(&a, t, 0);
		memset(&m, 0, sizeof(m));
		m.req_state = IB_QPS_INIT;
		m.state.init.primary_port = 1;
		m.state.init.qkey = CL_HTON32(0x11111111);
		m.state.init.access_ctrl = IB_AC_RDMA_WRITE | IB_AC_LOCAL_WRITE;
		CU_ASSERT_EQUAL(soft_qp_modify(t, &a, &m, &ca, NULL), IB_SUCCESS);

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
		CU_ASSERT_EQUAL(soft_qp_modify(t, &a, &m, &ca, NULL), IB_SUCCESS);

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
		CU_ASSERT_EQUAL(soft_qp_modify(t, &a, &m, &ca, NULL), IB_SUCCESS);
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
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_RESET), "RESET");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_INIT), "INIT");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_RTR), "RTR");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_RTS), "RTS");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_SQD), "SQD");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_SQD_DRAINING), "SQD_DRAINING");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_SQD_DRAINED), "SQD_DRAINED");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_SQERR), "SQERR");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_ERROR), "ERROR");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(IB_QPS_TIME_WAIT), "TIME_WAIT");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(0), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(soft_qp_state_str(0x20), "UNKNOWN");
}

static void test_attr_and_event_names(void)
{
	static const char *const names[SOFT_QPA_COUNT] = {
		"PORT", "PKEY_INDEX", "QKEY", "ACCESS", "AV", "DEST_QPN", "RQ_PSN", "SQ_PSN",
		"MAX_DEST_RD_ATOMIC", "MIN_RNR_TIMER", "TIMEOUT", "RETRY_CNT", "RNR_RETRY",
		"MAX_RD_ATOMIC", "ALT_PATH", "APM_STATE", "CUR_STATE", "SQD_EVENT",
	};
	static const char *const evs[SOFT_QP_EV_COUNT] = {
		"COMM_EST", "SQ_DRAINED", "SEND_ERR", "WQ_ERR", "REQ_ERR", "ACCESS_ERR",
		"FATAL", "APM_ARMED", "MIGRATED",
	};
	char buf[256];
	unsigned int i;

	CU_ASSERT_EQUAL(SOFT_QPA_ALL, (1u << SOFT_QPA_COUNT) - 1);
	for (i = 0; i < SOFT_QPA_COUNT; i++)
		CU_ASSERT_STRING_EQUAL(soft_qp_attr_str(1u << i), names[i]);
	CU_ASSERT_STRING_EQUAL(soft_qp_attr_str(0), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(soft_qp_attr_str(PORT | PKEY), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(soft_qp_attr_str(1u << SOFT_QPA_COUNT), "UNKNOWN");
	for (i = 0; i < SOFT_QP_EV_COUNT; i++)
		CU_ASSERT_STRING_EQUAL(soft_qp_event_str((soft_qp_event_t)i), evs[i]);
	CU_ASSERT_STRING_EQUAL(soft_qp_event_str(SOFT_QP_EV_COUNT), "UNKNOWN");
	CU_ASSERT_STRING_EQUAL(soft_qp_event_str((soft_qp_event_t)-1), "UNKNOWN");

	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(0, buf, sizeof(buf)), 4);
	CU_ASSERT_STRING_EQUAL(buf, "none");
	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(PORT | RQPSN | SQDEV, buf, sizeof(buf)),
			strlen("PORT|RQ_PSN|SQD_EVENT"));
	CU_ASSERT_STRING_EQUAL(buf, "PORT|RQ_PSN|SQD_EVENT");
	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(AV | 0x80000000u, buf, sizeof(buf)),
			strlen("AV|0x80000000"));
	CU_ASSERT_STRING_EQUAL(buf, "AV|0x80000000");
	/* Truncation keeps a terminated prefix and reports the full length. */
	memset(buf, 'x', sizeof(buf));
	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(PORT | RQPSN, buf, 7), strlen("PORT|RQ_PSN"));
	CU_ASSERT_STRING_EQUAL(buf, "PORT|R");
	CU_ASSERT_EQUAL(buf[7], 'x');
	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(PORT | RQPSN, buf, 4), strlen("PORT|RQ_PSN"));
	CU_ASSERT_STRING_EQUAL(buf, "POR");
	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(SOFT_QPA_ALL, NULL, 0),
			strlen("PORT|PKEY_INDEX|QKEY|ACCESS|AV|DEST_QPN|RQ_PSN|SQ_PSN|"
			       "MAX_DEST_RD_ATOMIC|MIN_RNR_TIMER|TIMEOUT|RETRY_CNT|RNR_RETRY|"
			       "MAX_RD_ATOMIC|ALT_PATH|APM_STATE|CUR_STATE|SQD_EVENT"));
	CU_ASSERT_EQUAL(soft_qp_attr_mask_str(0, NULL, 0), 4);
}

static void test_setup_wrapper(void (*fn)(void))
{
	ca_setup();
	fn();
}

#define T(fn) static void fn##_t(void) { test_setup_wrapper(fn); }
T(test_table_every_pair)
T(test_class_of_types)
T(test_check_every_pair)
T(test_check_every_opts_bit)
T(test_check_unknown_and_depth_opts)
T(test_check_required_missing)
T(test_check_forbidden)
T(test_check_ignored_bits)
T(test_check_ports_and_pkeys)
T(test_check_value_ranges)
T(test_check_apm_and_current_state)
T(test_check_null_arguments)
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
	{ "test_table_every_pair", test_table_every_pair_t },
	{ "test_class_of_types", test_class_of_types_t },
	{ "test_check_every_pair", test_check_every_pair_t },
	{ "test_check_every_opts_bit", test_check_every_opts_bit_t },
	{ "test_check_unknown_and_depth_opts", test_check_unknown_and_depth_opts_t },
	{ "test_check_required_missing", test_check_required_missing_t },
	{ "test_check_forbidden", test_check_forbidden_t },
	{ "test_check_ignored_bits", test_check_ignored_bits_t },
	{ "test_check_ports_and_pkeys", test_check_ports_and_pkeys_t },
	{ "test_check_value_ranges", test_check_value_ranges_t },
	{ "test_check_apm_and_current_state", test_check_apm_and_current_state_t },
	{ "test_check_null_arguments", test_check_null_arguments_t },
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

TEST_MAIN("soft_qp_state", tests)
