/*
 * ibal tests: the IBA QP state machine both providers share (core/prov/prov_qp_state).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/* The transition table and prov_qp_modify_check(): legality, required/optional/forbidden
 * attributes, ports, P_Keys and value ranges. The apply, event and name tests are in
 * test_qp_state_apply.c; both use the fixture in qp_state_test.h. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "qp_state_test.h"

/* --- The expectation, written from the IBA transition rules -------------- */

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

/* --- The table ------------------------------------------------------------ */

/* prov_qp_transition() for every type, from and to value against the rows above. */
static void test_table_every_pair(void)
{
	size_t t, f, s;
	unsigned int checked = 0;

	for (t = 0; t < TEST_COUNT(types); t++) {
		for (f = 0; f < TEST_COUNT(states); f++) {
			for (s = 0; s < TEST_COUNT(states); s++) {
				prov_qp_trans_t tr;
				uint32_t req, opt, dr;
				int legal = types[t].cls > 0 &&
					    expect((unsigned)types[t].cls, states[f].x, states[s].x,
						   &req, &opt, &dr);
				boolean_t got = prov_qp_transition(types[t].type, states[f].state,
								   states[s].state, &tr);

				CU_ASSERT_EQUAL(got, legal ? TRUE : FALSE);
				if (got != (legal ? TRUE : FALSE))
					printf("\n  type %d %s -> %s\n", (int)types[t].type,
					       prov_qp_state_str(states[f].state),
					       prov_qp_state_str(states[s].state));
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
	CU_ASSERT_TRUE(prov_qp_transition(IB_QPT_RELIABLE_CONN, IB_QPS_RESET, IB_QPS_INIT, NULL));
	CU_ASSERT_FALSE(prov_qp_transition(IB_QPT_RELIABLE_CONN, IB_QPS_RESET, IB_QPS_RTS, NULL));
}

static void test_class_of_types(void)
{
	size_t t;

	for (t = 0; t < TEST_COUNT(types); t++) {
		prov_qp_class_t c = prov_qp_class(types[t].type);

		switch (types[t].cls) {
		case C_RC: CU_ASSERT_EQUAL(c, PROV_QPC_RC); break;
		case C_UC: CU_ASSERT_EQUAL(c, PROV_QPC_UC); break;
		case C_UD: CU_ASSERT_EQUAL(c, PROV_QPC_UD); break;
		case C_SP: CU_ASSERT_EQUAL(c, PROV_QPC_SPECIAL); break;
		case 0: CU_ASSERT_EQUAL(c, PROV_QPC_UNSUPPORTED); break;
		default: CU_ASSERT_EQUAL(c, PROV_QPC_INVALID); break;
		}
	}
}

/*
 * prov_qp_modify_check() for every type and (from, to) pair with a
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
				prov_qp_attr_t a;
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
					       (int)types[t].type, prov_qp_state_str(states[f].state),
					       prov_qp_state_str(states[s].state), ib_get_err_str(got),
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
				prov_qp_attr_t a;
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
					       prov_qp_state_str(froms[f]), (unsigned)opt_bits[b].bit,
					       ib_get_err_str(got), (unsigned)bad);
			}
		}
	}
}

/* Bits outside IB_MOD_QP_* are refused; depth changes are unsupported. */
static void test_check_unknown_and_depth_opts(void)
{
	prov_qp_attr_t a;
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
	prov_qp_attr_t a;
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
	prov_qp_attr_init(&a, IB_QPT_QP1, 0);
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
		prov_qp_attr_t a;
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
	prov_qp_attr_t a, before;
	prov_qp_attr_mask_t applied;
	ib_qp_mod_t m;
	uint32_t bad;

	/* RTR of perftest: LOCAL_ACK_TIMEOUT | RESP_RES | PRIMARY_AV on RC, UC and UD. */
	attr_in(&a, IB_QPT_UNRELIABLE_DGRM, IB_QPS_INIT);
	good_mod(&m, IB_QPS_RTR, a.state);
	m.state.rtr.opts = IB_MOD_QP_LOCAL_ACK_TIMEOUT | IB_MOD_QP_RESP_RES | IB_MOD_QP_PRIMARY_AV;
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_DGRM, &a, &m, &bad), IB_SUCCESS);
	before = a;
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_UNRELIABLE_DGRM, &a, &m, &applied), IB_SUCCESS);
	CU_ASSERT_EQUAL(applied, 0);
	before.state = IB_QPS_RTR;
	CU_ASSERT_EQUAL(memcmp(&a, &before, sizeof(a)), 0);
	attr_in(&a, IB_QPT_UNRELIABLE_CONN, IB_QPS_INIT);
	CU_ASSERT_EQUAL(check(IB_QPT_UNRELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_INIT);
	CU_ASSERT_EQUAL(check(IB_QPT_RELIABLE_CONN, &a, &m, &bad), IB_SUCCESS);
	/* Q_Key on an RC QP: there is none; the value is not stored. */
	m.state.rtr.opts = IB_MOD_QP_QKEY;
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, &ca, &bad), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.qkey, 0);
	/* Fields without their bit are not taken when the transition does not require them. */
	CU_ASSERT_EQUAL(a.pkey_index, 0);
	CU_ASSERT_FALSE(a.alt_valid);
	CU_ASSERT_EQUAL(a.access_ctrl, 0);
}

/* --- Values ---------------------------------------------------------------- */

static void test_check_ports_and_pkeys(void)
{
	prov_qp_attr_t a;
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
	prov_qp_attr_t a;
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
	prov_qp_attr_t a;
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
	prov_qp_attr_t a;
	ib_qp_mod_t m;
	prov_qp_attr_mask_t bad = 7, applied = 7;

	attr_in(&a, IB_QPT_RELIABLE_CONN, IB_QPS_RESET);
	good_mod(&m, IB_QPS_INIT, a.state);
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, NULL, &a, &ca, &bad),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, NULL, &ca, NULL),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(prov_qp_modify_check(IB_QPT_RELIABLE_CONN, a.state, &m, &a, NULL, NULL),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_RELIABLE_CONN, NULL, &m, &applied),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(applied, 0);
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, NULL, &m, &ca, &bad), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(prov_qp_modify(IB_QPT_RELIABLE_CONN, &a, &m, NULL, &bad), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	/* apply refuses what the plan refuses, and changes nothing. */
	m.req_state = IB_QPS_RTS;
	CU_ASSERT_EQUAL(prov_qp_apply_mod(IB_QPT_RELIABLE_CONN, &a, &m, NULL), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(prov_qp_event(IB_QPT_RELIABLE_CONN, NULL, PROV_QP_EV_FATAL, NULL), FALSE);
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
};

TEST_MAIN("prov_qp_state", tests)
