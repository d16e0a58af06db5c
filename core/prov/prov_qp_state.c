/*
 * ibal providers: the IBA QP state machine (transition table, attribute checks, HCA events).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
#include <stdio.h>
#include <string.h>
#include "prov_qp_state.h"

/* Rows and columns of the transition table; the three SQD values share one. */
enum { S_RESET, S_INIT, S_RTR, S_RTS, S_SQD, S_SQE, S_ERR, S_COUNT };

#define SB(s) (1u << (s))          /* state index -> bit */
#define CB(c) (1u << (c))          /* class -> bit */
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

/* Short names for the table. */
#define A_PORT    PROV_QPA_PORT
#define A_PKEY    PROV_QPA_PKEY_INDEX
#define A_QKEY    PROV_QPA_QKEY
#define A_ACCESS  PROV_QPA_ACCESS
#define A_AV      PROV_QPA_AV
#define A_DQPN    PROV_QPA_DEST_QPN
#define A_RQPSN   PROV_QPA_RQ_PSN
#define A_SQPSN   PROV_QPA_SQ_PSN
#define A_MAXDRD  PROV_QPA_MAX_DEST_RD
#define A_MINRNR  PROV_QPA_MIN_RNR
#define A_TIMEOUT PROV_QPA_TIMEOUT
#define A_RETRY   PROV_QPA_RETRY_CNT
#define A_RNRRTY  PROV_QPA_RNR_RETRY
#define A_MAXRD   PROV_QPA_MAX_RD
#define A_ALT     PROV_QPA_ALT_PATH
#define A_APM     PROV_QPA_APM_STATE
#define A_CUR     PROV_QPA_CUR_STATE
#define A_SQDEV   PROV_QPA_SQD_EVENT

/* One cell of the table. */
typedef struct {
	uint8_t legal;
	prov_qp_attr_mask_t req, opt, drained;
} trans_t;

/* Every state may be reset or moved to the error state, with no attributes. */
#define EXITS [S_RESET] = { 1, 0, 0, 0 }, [S_ERR] = { 1, 0, 0, 0 }
/* RTS -> SQD and SQD -> SQD take only the drained-event request. */
#define TO_SQD [S_SQD] = { 1, 0, A_SQDEV, 0 }

/* Datagram rows differ only in the port at INIT: UD sets it, special QPs are bound. */
#define DGRM_ROWS(init_attrs)                                                              \
	[S_RESET] = { EXITS, [S_INIT] = { 1, (init_attrs), 0, 0 } },                       \
	[S_INIT] = { EXITS, [S_INIT] = { 1, 0, (init_attrs), 0 },                          \
		     [S_RTR] = { 1, 0, A_PKEY | A_QKEY, 0 } },                             \
	[S_RTR] = { EXITS, [S_RTS] = { 1, A_SQPSN, A_CUR | A_QKEY, 0 } },                  \
	[S_RTS] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_QKEY, 0 }, TO_SQD },                \
	[S_SQD] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_QKEY, A_PKEY }, TO_SQD },           \
	[S_SQE] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_QKEY, 0 } },                        \
	[S_ERR] = { EXITS }

static const trans_t g_trans[PROV_QPC_COUNT][S_COUNT][S_COUNT] = {
	[PROV_QPC_RC] = {
		[S_RESET] = { EXITS, [S_INIT] = { 1, A_PORT | A_PKEY | A_ACCESS, 0, 0 } },
		[S_INIT] = { EXITS, [S_INIT] = { 1, 0, A_PORT | A_PKEY | A_ACCESS, 0 },
			     [S_RTR] = { 1, A_AV | A_DQPN | A_RQPSN | A_MAXDRD | A_MINRNR,
					 A_ALT | A_ACCESS | A_PKEY, 0 } },
		[S_RTR] = { EXITS, [S_RTS] = { 1, A_SQPSN | A_TIMEOUT | A_RETRY | A_RNRRTY | A_MAXRD,
					       A_CUR | A_ALT | A_ACCESS | A_MINRNR | A_APM, 0 } },
		[S_RTS] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_ACCESS | A_ALT | A_APM | A_MINRNR, 0 },
			    TO_SQD },
		[S_SQD] = { EXITS,
			    [S_RTS] = { 1, 0, A_CUR | A_ALT | A_ACCESS | A_MINRNR | A_APM,
					A_PORT | A_AV | A_TIMEOUT | A_RETRY | A_RNRRTY | A_MAXRD |
						A_MAXDRD | A_PKEY },
			    TO_SQD },
		/* An RC QP never enters SQE; the kernel table still lets it leave to RTS. */
		[S_SQE] = { EXITS, [S_RTS] = { 1, 0, 0, 0 } },
		[S_ERR] = { EXITS },
	},
	[PROV_QPC_UC] = {
		[S_RESET] = { EXITS, [S_INIT] = { 1, A_PORT | A_PKEY | A_ACCESS, 0, 0 } },
		[S_INIT] = { EXITS, [S_INIT] = { 1, 0, A_PORT | A_PKEY | A_ACCESS, 0 },
			     [S_RTR] = { 1, A_AV | A_DQPN | A_RQPSN, A_ALT | A_ACCESS | A_PKEY, 0 } },
		[S_RTR] = { EXITS, [S_RTS] = { 1, A_SQPSN, A_CUR | A_ALT | A_ACCESS | A_APM, 0 } },
		[S_RTS] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_ACCESS | A_ALT | A_APM, 0 }, TO_SQD },
		[S_SQD] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_ALT | A_ACCESS | A_APM, A_AV | A_PKEY },
			    TO_SQD },
		[S_SQE] = { EXITS, [S_RTS] = { 1, 0, A_CUR | A_ACCESS, 0 } },
		[S_ERR] = { EXITS },
	},
	[PROV_QPC_UD] = { DGRM_ROWS(A_PORT | A_PKEY | A_QKEY) },
	[PROV_QPC_SPECIAL] = { DGRM_ROWS(A_PKEY | A_QKEY) },
};

/* The attributes each class has at all; opts bits naming others are ignored. */
static const prov_qp_attr_mask_t g_class_attrs[PROV_QPC_COUNT] = {
	[PROV_QPC_RC] = PROV_QPA_ALL & ~A_QKEY,
	[PROV_QPC_UC] = A_PORT | A_PKEY | A_ACCESS | A_AV | A_DQPN | A_RQPSN | A_SQPSN | A_ALT |
			A_APM | A_CUR | A_SQDEV,
	[PROV_QPC_UD] = A_PORT | A_PKEY | A_QKEY | A_SQPSN | A_CUR | A_SQDEV,
	[PROV_QPC_SPECIAL] = A_PKEY | A_QKEY | A_SQPSN | A_CUR | A_SQDEV,
};

static const int8_t g_class_of[IB_QPT_UNKNOWN] = {
	[IB_QPT_RELIABLE_CONN] = PROV_QPC_RC,
	[IB_QPT_UNRELIABLE_CONN] = PROV_QPC_UC,
	[IB_QPT_RELIABLE_DGRM] = PROV_QPC_UNSUPPORTED,
	[IB_QPT_UNRELIABLE_DGRM] = PROV_QPC_UD,
	[IB_QPT_QP0] = PROV_QPC_SPECIAL,
	[IB_QPT_QP1] = PROV_QPC_SPECIAL,
	[IB_QPT_RAW_IPV6] = PROV_QPC_UNSUPPORTED,
	[IB_QPT_RAW_ETHER] = PROV_QPC_UNSUPPORTED,
	[IB_QPT_MAD] = PROV_QPC_UD,
	[IB_QPT_QP0_ALIAS] = PROV_QPC_SPECIAL,
	[IB_QPT_QP1_ALIAS] = PROV_QPC_SPECIAL,
};

static const struct {
	ib_qp_state_t state;
	int8_t index;
	const char *name;
} g_states[] = {
	{ IB_QPS_RESET, S_RESET, "RESET" },
	{ IB_QPS_INIT, S_INIT, "INIT" },
	{ IB_QPS_RTR, S_RTR, "RTR" },
	{ IB_QPS_RTS, S_RTS, "RTS" },
	{ IB_QPS_SQD, S_SQD, "SQD" },
	{ IB_QPS_SQD_DRAINING, S_SQD, "SQD_DRAINING" },
	{ IB_QPS_SQD_DRAINED, S_SQD, "SQD_DRAINED" },
	{ IB_QPS_SQERR, S_SQE, "SQERR" },
	{ IB_QPS_ERROR, S_ERR, "ERROR" },
	{ IB_QPS_TIME_WAIT, -1, "TIME_WAIT" }, /* access-layer state, never the HCA's */
};

/* The state a modification to a row leaves the QP in (SQD: see apply). */
static const ib_qp_state_t g_state_of[S_COUNT] = {
	[S_RESET] = IB_QPS_RESET, [S_INIT] = IB_QPS_INIT, [S_RTR] = IB_QPS_RTR,
	[S_RTS] = IB_QPS_RTS, [S_SQD] = IB_QPS_SQD_DRAINING, [S_SQE] = IB_QPS_SQERR,
	[S_ERR] = IB_QPS_ERROR,
};

/* Plain IB_QPS_SQD counts as a drain still in progress. */
static int draining(ib_qp_state_t state)
{
	return state == IB_QPS_SQD || state == IB_QPS_SQD_DRAINING;
}

static int state_index(ib_qp_state_t state)
{
	size_t i;

	for (i = 0; i < COUNT_OF(g_states); i++)
		if (g_states[i].state == state)
			return g_states[i].index;
	return -1;
}

/* ------------------------------------------------------------------------ */
/* Reading an ib_qp_mod_t                                                   */
/* ------------------------------------------------------------------------ */

/* Every value a member of ib_qp_mod_t can carry, whatever member it came from. */
typedef struct {
	ib_qp_opts_t opts;
	uint8_t port;
	uint16_t pkey_index;
	ib_net32_t qkey;
	ib_access_t access;
	const ib_av_attr_t *p_av;
	const ib_av_attr_t *p_alt;
	ib_net32_t dest_qp;
	ib_net32_t rq_psn;
	ib_net32_t sq_psn;
	uint8_t resp_res;
	uint8_t init_depth;
	uint8_t rnr_nak;
	uint8_t timeout;
	uint8_t retry;
	uint8_t rnr_retry;
	ib_qp_state_t cur_state;
	ib_apm_state_t apm;
	boolean_t sqd_event;
} vals_t;

static void read_init(const ib_qp_mod_t *m, vals_t *v)
{
	v->port = m->state.init.primary_port;
	v->qkey = m->state.init.qkey;
	v->pkey_index = m->state.init.pkey_index;
	v->access = m->state.init.access_ctrl;
}

static void read_rtr(const ib_qp_mod_t *m, vals_t *v)
{
	v->opts = m->state.rtr.opts;
	v->rq_psn = m->state.rtr.rq_psn;
	v->dest_qp = m->state.rtr.dest_qp;
	v->p_av = &m->state.rtr.primary_av;
	v->resp_res = m->state.rtr.resp_res;
	v->rnr_nak = m->state.rtr.rnr_nak_timeout;
	v->p_alt = &m->state.rtr.alternate_av;
	v->qkey = m->state.rtr.qkey;
	v->pkey_index = m->state.rtr.pkey_index;
	v->access = m->state.rtr.access_ctrl;
}

static void read_rts(const ib_qp_mod_t *m, vals_t *v)
{
	v->opts = m->state.rts.opts;
	v->sq_psn = m->state.rts.sq_psn;
	v->retry = m->state.rts.retry_cnt;
	v->rnr_retry = m->state.rts.rnr_retry_cnt;
	v->timeout = m->state.rts.local_ack_timeout;
	v->init_depth = m->state.rts.init_depth;
	v->rnr_nak = m->state.rts.rnr_nak_timeout;
	v->cur_state = m->state.rts.current_state;
	v->qkey = m->state.rts.qkey;
	v->access = m->state.rts.access_ctrl;
	v->resp_res = m->state.rts.resp_res;
	v->p_av = &m->state.rts.primary_av;
	v->p_alt = &m->state.rts.alternate_av;
	v->apm = m->state.rts.apm_state;
	v->port = m->state.rts.primary_port;
	v->pkey_index = m->state.rts.pkey_index;
}

static void read_sqd(const ib_qp_mod_t *m, vals_t *v)
{
	v->sqd_event = m->state.sqd.sqd_event;
}

/* A field of a member: the attribute it carries and its opts bit (0: none). */
typedef struct {
	prov_qp_attr_mask_t attr;
	ib_qp_opts_t bit;
} field_t;

static const field_t g_init_fields[] = {
	{ A_PORT, 0 }, { A_QKEY, 0 }, { A_PKEY, 0 }, { A_ACCESS, 0 },
};

static const field_t g_rtr_fields[] = {
	{ A_RQPSN, 0 },
	{ A_DQPN, 0 },
	{ A_AV, IB_MOD_QP_PRIMARY_AV },
	{ A_MAXDRD, IB_MOD_QP_RESP_RES },
	{ A_MINRNR, IB_MOD_QP_RNR_NAK_TIMEOUT },
	{ A_ALT, IB_MOD_QP_ALTERNATE_AV },
	{ A_QKEY, IB_MOD_QP_QKEY },
	{ A_PKEY, IB_MOD_QP_PKEY },
	{ A_ACCESS, IB_MOD_QP_ACCESS_CTRL },
};

static const field_t g_rts_fields[] = {
	{ A_SQPSN, 0 },
	{ A_RETRY, IB_MOD_QP_RETRY_CNT },
	{ A_RNRRTY, IB_MOD_QP_RNR_RETRY_CNT },
	{ A_TIMEOUT, IB_MOD_QP_LOCAL_ACK_TIMEOUT },
	{ A_MAXRD, IB_MOD_QP_INIT_DEPTH },
	{ A_MINRNR, IB_MOD_QP_RNR_NAK_TIMEOUT },
	{ A_CUR, IB_MOD_QP_CURRENT_STATE },
	{ A_QKEY, IB_MOD_QP_QKEY },
	{ A_ACCESS, IB_MOD_QP_ACCESS_CTRL },
	{ A_MAXDRD, IB_MOD_QP_RESP_RES },
	{ A_AV, IB_MOD_QP_PRIMARY_AV },
	{ A_ALT, IB_MOD_QP_ALTERNATE_AV },
	{ A_APM, IB_MOD_QP_APM_STATE },
	{ A_PORT, IB_MOD_QP_PRIMARY_PORT },
	{ A_PKEY, IB_MOD_QP_PKEY },
};

static const field_t g_sqd_fields[] = { { A_SQDEV, 0 } };

/* The member of ib_qp_mod_t.state each requested state reads (none: no attributes). */
static const struct {
	void (*read)(const ib_qp_mod_t *m, vals_t *v);
	const field_t *fields;
	size_t n;
} g_members[S_COUNT] = {
	[S_INIT] = { read_init, g_init_fields, COUNT_OF(g_init_fields) },
	[S_RTR] = { read_rtr, g_rtr_fields, COUNT_OF(g_rtr_fields) },
	[S_RTS] = { read_rts, g_rts_fields, COUNT_OF(g_rts_fields) },
	[S_SQD] = { read_sqd, g_sqd_fields, COUNT_OF(g_sqd_fields) },
};

#define OPTS_DEFINED                                                                    \
	(IB_MOD_QP_ALTERNATE_AV | IB_MOD_QP_PKEY | IB_MOD_QP_APM_STATE |                \
	 IB_MOD_QP_PRIMARY_AV | IB_MOD_QP_RNR_NAK_TIMEOUT | IB_MOD_QP_RESP_RES |        \
	 IB_MOD_QP_INIT_DEPTH | IB_MOD_QP_PRIMARY_PORT | IB_MOD_QP_ACCESS_CTRL |        \
	 IB_MOD_QP_QKEY | IB_MOD_QP_SQ_DEPTH | IB_MOD_QP_RQ_DEPTH |                     \
	 IB_MOD_QP_CURRENT_STATE | IB_MOD_QP_RETRY_CNT | IB_MOD_QP_LOCAL_ACK_TIMEOUT |  \
	 IB_MOD_QP_RNR_RETRY_CNT | IB_MOD_QP_GENERATE_PRIO_TAG)

/* A modification understood: where from, where to, which attributes with which values. */
typedef struct {
	prov_qp_class_t cls;
	int from, to;
	trans_t t;
	prov_qp_attr_mask_t supplied;
	vals_t v;
} plan_t;

/* Which fields of the member the transition takes (see the header's rule). */
static prov_qp_attr_mask_t take_fields(const plan_t *pl)
{
	prov_qp_attr_mask_t allowed = pl->t.req | pl->t.opt | pl->t.drained;
	prov_qp_attr_mask_t has = g_class_attrs[pl->cls], taken = 0;
	size_t i;

	for (i = 0; i < g_members[pl->to].n; i++) {
		const field_t *f = &g_members[pl->to].fields[i];

		if (f->attr & pl->t.req)
			taken |= f->attr;
		else if (f->bit)
			taken |= (pl->v.opts & f->bit) && (f->attr & has) ? f->attr : 0;
		else if (f->attr & allowed)
			taken |= f->attr;
	}
	return taken;
}

/* Everything that can be decided without looking at values or at the CA. */
static ib_api_status_t make_plan(ib_qp_type_t qp_type, ib_qp_state_t cur_state,
				 const ib_qp_mod_t *p_mod, plan_t *pl, prov_qp_attr_mask_t *p_bad)
{
	prov_qp_attr_mask_t bad;

	memset(pl, 0, sizeof(*pl));
	*p_bad = 0;
	if (!p_mod)
		return IB_INVALID_PARAMETER;
	pl->cls = prov_qp_class(qp_type);
	if (pl->cls == PROV_QPC_INVALID)
		return IB_INVALID_SETTING;
	if (pl->cls == PROV_QPC_UNSUPPORTED)
		return IB_UNSUPPORTED;
	pl->to = state_index(p_mod->req_state);
	if (pl->to < 0)
		return IB_INVALID_SETTING;
	pl->from = state_index(cur_state);
	if (pl->from < 0)
		return IB_INVALID_QP_STATE;
	pl->t = g_trans[pl->cls][pl->from][pl->to];
	if (!pl->t.legal)
		return IB_INVALID_QP_STATE;
	if (g_members[pl->to].read)
		g_members[pl->to].read(p_mod, &pl->v);
	if (pl->v.opts & (IB_MOD_QP_SQ_DEPTH | IB_MOD_QP_RQ_DEPTH))
		return IB_UNSUPPORTED;
	if (pl->v.opts & ~(ib_qp_opts_t)OPTS_DEFINED)
		return IB_INVALID_SETTING;
	pl->supplied = take_fields(pl);
	bad = pl->supplied & ~(pl->t.req | pl->t.opt | pl->t.drained);
	if (!bad)
		bad = pl->t.req & ~pl->supplied;
	if (bad) {
		*p_bad = bad;
		return IB_INVALID_SETTING;
	}
	bad = pl->supplied & pl->t.drained;
	if (bad && cur_state != IB_QPS_SQD_DRAINED) {
		*p_bad = bad;
		return IB_INVALID_QP_STATE;
	}
	return IB_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Checking values                                                          */
/* ------------------------------------------------------------------------ */

#define ACCESS_KNOWN                                                                   \
	(IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC | IB_AC_LOCAL_WRITE |       \
	 IB_AC_MW_BIND | IB_AC_NOT_CACHABLE)

#define PSN_MASK 0x00FFFFFFu
#define QPN_MAX  0x00FFFFFFu

static const ib_port_attr_t *port_attr(const ib_ca_attr_t *ca, uint8_t port)
{
	if (!port || port > ca->num_ports || !ca->p_port_attr)
		return NULL;
	return &ca->p_port_attr[port - 1];
}

/* The index must fall in the port's table and name a valid P_Key (low 15 bits not 0). */
static ib_api_status_t check_pkey(const ib_port_attr_t *pa, uint16_t index)
{
	if (index >= pa->num_pkeys)
		return IB_INVALID_PKEY;
	if (pa->p_pkey_table && !(cl_ntoh16(pa->p_pkey_table[index]) & 0x7FFF))
		return IB_INVALID_PKEY;
	return IB_SUCCESS;
}

/* A connected QP's path: unicast DLID (on RoCE a GRH instead: no LIDs there),
 * SL 0-15, MTU valid and within the port's. */
static int path_ok(const ib_av_attr_t *av, const ib_port_attr_t *pa)
{
	uint16_t dlid = cl_ntoh16(av->dlid);
	int addr_ok = pa->transport == RDMA_TRANSPORT_RDMAOE
			      ? av->grh_valid
			      : dlid >= IB_LID_UCAST_START_HO && dlid <= IB_LID_UCAST_END_HO;

	return addr_ok && av->sl <= 15 &&
	       av->conn.path_mtu >= IB_MIN_MTU && av->conn.path_mtu <= IB_MAX_MTU &&
	       (!pa->mtu || av->conn.path_mtu <= pa->mtu);
}

static ib_api_status_t check_caps(const plan_t *pl, const prov_qp_attr_t *a,
				  const ib_ca_attr_t *ca, prov_qp_attr_mask_t *p_bad)
{
	prov_qp_attr_mask_t s = pl->supplied;

	*p_bad = s & (A_ALT | A_APM);
	if (*p_bad && !ca->apm_support)
		return IB_UNSUPPORTED;
	*p_bad = s & A_CUR;
	if (*p_bad && !ca->current_qp_state_support)
		return IB_UNSUPPORTED;
	*p_bad = s & A_PORT;
	if (*p_bad && pl->from == S_SQD && pl->v.port != a->port && !ca->change_primary_port)
		return IB_UNSUPPORTED;
	*p_bad = 0;
	return IB_SUCCESS;
}

#define FAIL(bits, status)                                                              \
	do {                                                                            \
		*p_bad = (bits);                                                        \
		return (status);                                                        \
	} while (0)

/* Port, P_Key and paths: the checks that need the CA's port table. */
static ib_api_status_t check_ports(const plan_t *pl, const prov_qp_attr_t *a,
				   const ib_ca_attr_t *ca, prov_qp_attr_mask_t *p_bad)
{
	const vals_t *v = &pl->v;
	prov_qp_attr_mask_t s = pl->supplied;
	uint16_t pkey = s & A_PKEY ? v->pkey_index : a->pkey_index;
	uint8_t port = s & A_PORT ? v->port : a->port;
	const ib_port_attr_t *pa = port_attr(ca, port), *alt_pa;
	ib_api_status_t status;

	/* Special QPs are bound to their port; INIT may only repeat it. */
	if (pl->cls == PROV_QPC_SPECIAL && pl->to == S_INIT && v->port && v->port != a->port)
		FAIL(A_PORT, IB_INVALID_SETTING);
	if ((s & (A_PORT | A_PKEY | A_AV)) && !pa)
		FAIL(A_PORT, IB_INVALID_SETTING);
	if (s & (A_PORT | A_PKEY)) {
		status = check_pkey(pa, pkey);
		if (status != IB_SUCCESS)
			FAIL(A_PKEY, status);
	}
	if ((s & A_AV) && ((v->p_av->port_num && v->p_av->port_num != port) || !path_ok(v->p_av, pa)))
		FAIL(A_AV, IB_INVALID_SETTING);
	if (s & A_ALT) {
		alt_pa = port_attr(ca, v->p_alt->port_num);
		if (!alt_pa || !path_ok(v->p_alt, alt_pa) || v->p_alt->conn.local_ack_timeout > 31)
			FAIL(A_ALT, IB_INVALID_SETTING);
		status = check_pkey(alt_pa, pkey);
		if (status != IB_SUCCESS)
			FAIL(A_ALT, status);
	}
	return IB_SUCCESS;
}

/* Everything else: ranges of single values, path migration, current state. */
static ib_api_status_t check_values(const plan_t *pl, const prov_qp_attr_t *a,
				    const ib_ca_attr_t *ca, prov_qp_attr_mask_t *p_bad)
{
	const vals_t *v = &pl->v;
	prov_qp_attr_mask_t s = pl->supplied;
	uint32_t qpn = cl_ntoh32(v->dest_qp);
	int cur;

	if ((s & A_ACCESS) && (v->access & ~(ib_access_t)ACCESS_KNOWN))
		FAIL(A_ACCESS, IB_INVALID_SETTING);
	if ((s & A_DQPN) && (qpn < 2 || qpn > QPN_MAX))
		FAIL(A_DQPN, IB_INVALID_SETTING);
	if ((s & A_MAXDRD) && v->resp_res > ca->max_qp_resp_res)
		FAIL(A_MAXDRD, IB_INVALID_SETTING);
	if ((s & A_MINRNR) && v->rnr_nak > 31)
		FAIL(A_MINRNR, IB_INVALID_SETTING);
	if ((s & A_TIMEOUT) && v->timeout > 31)
		FAIL(A_TIMEOUT, IB_INVALID_SETTING);
	if ((s & A_RETRY) && v->retry > 7)
		FAIL(A_RETRY, IB_INVALID_SETTING);
	if ((s & A_RNRRTY) && v->rnr_retry > 7)
		FAIL(A_RNRRTY, IB_INVALID_SETTING);
	if ((s & A_MAXRD) && v->init_depth > ca->max_qp_init_depth)
		FAIL(A_MAXRD, IB_INVALID_SETTING);
	if (s & A_APM) {
		if ((unsigned)v->apm < IB_APM_MIGRATED || (unsigned)v->apm > IB_APM_ARMED)
			FAIL(A_APM, IB_INVALID_APM_STATE);
		if (v->apm != IB_APM_MIGRATED && !(s & A_ALT) && !a->alt_valid)
			FAIL(A_APM, IB_INVALID_APM_STATE);
	}
	if (s & A_CUR) {
		cur = state_index(v->cur_state);
		if (cur != S_RTR && cur != S_RTS && cur != S_SQD && cur != S_SQE)
			FAIL(A_CUR, IB_INVALID_SETTING);
		if (cur != pl->from)
			FAIL(A_CUR, IB_INVALID_QP_STATE);
	}
	return IB_SUCCESS;
}

/* ------------------------------------------------------------------------ */
/* Applying                                                                 */
/* ------------------------------------------------------------------------ */

static void reset_attr(prov_qp_attr_t *a, prov_qp_class_t cls)
{
	uint8_t port = cls == PROV_QPC_SPECIAL ? a->port : 0;

	memset(a, 0, sizeof(*a));
	a->state = IB_QPS_RESET;
	a->apm_state = IB_APM_MIGRATED;
	a->port = port;
}

/* The alternate path becomes the primary one; a new alternate must be loaded. */
static void migrate(prov_qp_attr_t *a)
{
	a->primary_av = a->alternate_av;
	a->port = a->alternate_av.port_num;
	a->path_mtu = a->alternate_av.conn.path_mtu;
	a->timeout = a->alternate_av.conn.local_ack_timeout;
	memset(&a->alternate_av, 0, sizeof(a->alternate_av));
	a->alt_valid = FALSE;
	a->valid &= ~A_ALT;
	a->apm_state = IB_APM_MIGRATED;
}

/* Keeps the primary path's port and connection fields equal to the QP's. */
static void sync_primary(prov_qp_attr_t *a, prov_qp_class_t cls)
{
	if ((cls != PROV_QPC_RC && cls != PROV_QPC_UC) || !(a->valid & A_AV))
		return;
	a->primary_av.port_num = a->port;
	a->primary_av.conn.path_mtu = a->path_mtu;
	a->primary_av.conn.local_ack_timeout = a->timeout;
	a->primary_av.conn.seq_err_retry_cnt = a->retry_cnt;
	a->primary_av.conn.rnr_retry_cnt = a->rnr_retry;
}

static void store(prov_qp_attr_t *a, const plan_t *pl)
{
	const vals_t *v = &pl->v;
	prov_qp_attr_mask_t s = pl->supplied;

	if (s & A_PORT)
		a->port = v->port;
	if (s & A_PKEY)
		a->pkey_index = v->pkey_index;
	if (s & A_QKEY)
		a->qkey = cl_ntoh32(v->qkey);
	if (s & A_ACCESS)
		a->access_ctrl = v->access;
	if (s & A_AV) {
		a->primary_av = *v->p_av;
		a->path_mtu = v->p_av->conn.path_mtu;
	}
	if (s & A_DQPN)
		a->dest_qpn = cl_ntoh32(v->dest_qp);
	if (s & A_RQPSN)
		a->rq_psn = cl_ntoh32(v->rq_psn) & PSN_MASK;
	if (s & A_SQPSN)
		a->sq_psn = cl_ntoh32(v->sq_psn) & PSN_MASK;
	if (s & A_MAXDRD)
		a->max_dest_rd_atomic = v->resp_res;
	if (s & A_MINRNR)
		a->min_rnr_timer = v->rnr_nak;
	if (s & A_TIMEOUT)
		a->timeout = v->timeout;
	if (s & A_RETRY)
		a->retry_cnt = v->retry;
	if (s & A_RNRRTY)
		a->rnr_retry = v->rnr_retry;
	if (s & A_MAXRD)
		a->max_rd_atomic = v->init_depth;
	if (s & A_ALT) {
		a->alternate_av = *v->p_alt;
		a->alt_valid = TRUE;
	}
	if (s & A_SQDEV)
		a->sqd_event = v->sqd_event != FALSE;
	a->valid |= s & ~(A_CUR | A_SQDEV);
	if (s & A_APM) {
		if (v->apm == IB_APM_MIGRATED && a->apm_state == IB_APM_ARMED && a->alt_valid)
			migrate(a);
		else
			a->apm_state = v->apm;
	}
}

/* ------------------------------------------------------------------------ */
/* Public functions                                                         */
/* ------------------------------------------------------------------------ */

prov_qp_class_t prov_qp_class(ib_qp_type_t qp_type)
{
	if ((unsigned)qp_type >= IB_QPT_UNKNOWN)
		return PROV_QPC_INVALID;
	return (prov_qp_class_t)g_class_of[qp_type];
}

boolean_t prov_qp_transition(ib_qp_type_t qp_type, ib_qp_state_t from, ib_qp_state_t to,
			     prov_qp_trans_t *p_trans)
{
	prov_qp_class_t cls = prov_qp_class(qp_type);
	int f = state_index(from), t = state_index(to);
	const trans_t *cell;

	if (p_trans)
		memset(p_trans, 0, sizeof(*p_trans));
	if (cls < 0 || f < 0 || t < 0)
		return FALSE;
	cell = &g_trans[cls][f][t];
	if (!cell->legal)
		return FALSE;
	if (p_trans) {
		p_trans->req = cell->req;
		p_trans->opt = cell->opt;
		p_trans->drained = cell->drained;
	}
	return TRUE;
}

void prov_qp_attr_init(prov_qp_attr_t *p_attr, ib_qp_type_t qp_type, uint8_t port)
{
	prov_qp_class_t cls = prov_qp_class(qp_type);

	p_attr->port = port;
	reset_attr(p_attr, cls);
}

/* The checks of a made plan against the QP's attributes and the CA. */
static ib_api_status_t check_plan(const plan_t *pl, const prov_qp_attr_t *p_attr,
				  const ib_ca_attr_t *p_ca, prov_qp_attr_mask_t *p_bad)
{
	ib_api_status_t status;

	status = check_caps(pl, p_attr, p_ca, p_bad);
	if (status == IB_SUCCESS)
		status = check_ports(pl, p_attr, p_ca, p_bad);
	if (status == IB_SUCCESS)
		status = check_values(pl, p_attr, p_ca, p_bad);
	return status;
}

/* A plan made from @p cur_state and checked; *p_bad (may be NULL) as
 * prov_qp_modify_check() sets it. */
static ib_api_status_t checked_plan(ib_qp_type_t qp_type, ib_qp_state_t cur_state,
				    const ib_qp_mod_t *p_mod, const prov_qp_attr_t *p_attr,
				    const ib_ca_attr_t *p_ca, plan_t *pl, prov_qp_attr_mask_t *p_bad)
{
	prov_qp_attr_mask_t bad = 0;
	ib_api_status_t status = IB_INVALID_PARAMETER;

	if (p_attr && p_ca) {
		status = make_plan(qp_type, cur_state, p_mod, pl, &bad);
		if (status == IB_SUCCESS)
			status = check_plan(pl, p_attr, p_ca, &bad);
	}
	if (p_bad)
		*p_bad = status == IB_SUCCESS ? 0 : bad;
	return status;
}

ib_api_status_t prov_qp_modify_check(ib_qp_type_t qp_type, ib_qp_state_t cur_state,
				     const ib_qp_mod_t *p_mod, const prov_qp_attr_t *p_attr,
				     const ib_ca_attr_t *p_ca, prov_qp_attr_mask_t *p_bad)
{
	plan_t pl;

	return checked_plan(qp_type, cur_state, p_mod, p_attr, p_ca, &pl, p_bad);
}

/* Applies a checked plan made from the QP's current state. */
static void apply_plan(const plan_t *pl, prov_qp_attr_t *p_attr, prov_qp_attr_mask_t *p_applied)
{
	if (pl->to == S_RESET) {
		reset_attr(p_attr, pl->cls);
		return;
	}
	store(p_attr, pl);
	if (pl->to != S_SQD || pl->from != S_SQD)
		p_attr->state = g_state_of[pl->to];
	if (!draining(p_attr->state))
		p_attr->sqd_event = FALSE;
	sync_primary(p_attr, pl->cls);
	if (p_applied)
		*p_applied = pl->supplied & ~A_CUR;
}

ib_api_status_t prov_qp_apply_mod(ib_qp_type_t qp_type, prov_qp_attr_t *p_attr,
				  const ib_qp_mod_t *p_mod, prov_qp_attr_mask_t *p_applied)
{
	prov_qp_attr_mask_t bad;
	ib_api_status_t status;
	plan_t pl;

	if (p_applied)
		*p_applied = 0;
	if (!p_attr)
		return IB_INVALID_PARAMETER;
	status = make_plan(qp_type, p_attr->state, p_mod, &pl, &bad);
	if (status != IB_SUCCESS)
		return status;
	apply_plan(&pl, p_attr, p_applied);
	return IB_SUCCESS;
}

/* Checks and applies one plan: the work of prov_qp_modify_check() and
 * prov_qp_apply_mod() with the modification read once. */
ib_api_status_t prov_qp_modify(ib_qp_type_t qp_type, prov_qp_attr_t *p_attr,
			       const ib_qp_mod_t *p_mod, const ib_ca_attr_t *p_ca,
			       prov_qp_attr_mask_t *p_bad)
{
	ib_api_status_t status;
	plan_t pl;

	status = checked_plan(qp_type, p_attr ? p_attr->state : IB_QPS_RESET, p_mod, p_attr, p_ca,
			      &pl, p_bad);
	if (status == IB_SUCCESS)
		apply_plan(&pl, p_attr, NULL);
	return status;
}

/* ------------------------------------------------------------------------ */
/* HCA events                                                               */
/* ------------------------------------------------------------------------ */

#define ALL_CLASSES (CB(PROV_QPC_RC) | CB(PROV_QPC_UC) | CB(PROV_QPC_UD) | CB(PROV_QPC_SPECIAL))
#define CONNECTED   (CB(PROV_QPC_RC) | CB(PROV_QPC_UC))
#define LIVE        (SB(S_INIT) | SB(S_RTR) | SB(S_RTS) | SB(S_SQD) | SB(S_SQE))
#define RESPONDING  (SB(S_RTR) | SB(S_RTS) | SB(S_SQD) | SB(S_SQE))

/* Where each event applies, the state it leads to (-1: unchanged) and what it raises. */
static const struct {
	uint8_t from;
	uint8_t classes;
	int8_t to;
	ib_async_event_t async;
} g_events[PROV_QP_EV_COUNT] = {
	[PROV_QP_EV_COMM_EST] = { SB(S_RTR), CONNECTED, -1, IB_AE_QP_COMM },
	[PROV_QP_EV_SQ_DRAINED] = { SB(S_SQD), ALL_CLASSES, S_SQD, IB_AE_SQ_DRAINED },
	[PROV_QP_EV_SEND_ERR] = { SB(S_RTS) | SB(S_SQD), ALL_CLASSES, S_SQE, 0 },
	[PROV_QP_EV_WQ_ERR] = { LIVE, ALL_CLASSES, S_ERR, 0 },
	[PROV_QP_EV_REQ_ERR] = { RESPONDING, CB(PROV_QPC_RC), S_ERR, IB_AE_WQ_REQ_ERROR },
	[PROV_QP_EV_ACCESS_ERR] = { RESPONDING, CB(PROV_QPC_RC), S_ERR, IB_AE_WQ_ACCESS_ERROR },
	[PROV_QP_EV_FATAL] = { LIVE | SB(S_ERR), ALL_CLASSES, S_ERR, IB_AE_QP_FATAL },
	[PROV_QP_EV_APM_ARMED] = { SB(S_RTR) | SB(S_RTS) | SB(S_SQD), CONNECTED, -1, 0 },
	[PROV_QP_EV_MIGRATED] = { SB(S_RTS) | SB(S_SQD), CONNECTED, -1, IB_AE_QP_APM },
};

/* Conditions beyond state and class; FALSE when the event does not apply. */
static boolean_t event_applies(prov_qp_event_t ev, const prov_qp_attr_t *a)
{
	if (ev == PROV_QP_EV_SQ_DRAINED)
		return draining(a->state);
	if (ev == PROV_QP_EV_APM_ARMED)
		return a->apm_state == IB_APM_REARM && a->alt_valid;
	if (ev == PROV_QP_EV_MIGRATED)
		return a->apm_state == IB_APM_ARMED && a->alt_valid;
	return TRUE;
}

boolean_t prov_qp_event(ib_qp_type_t qp_type, prov_qp_attr_t *p_attr, prov_qp_event_t ev,
			ib_async_event_t *p_async)
{
	prov_qp_class_t cls = prov_qp_class(qp_type);
	ib_async_event_t async;
	int from, to;

	if (p_async)
		*p_async = (ib_async_event_t)0;
	if (!p_attr || cls < 0 || (unsigned)ev >= PROV_QP_EV_COUNT)
		return FALSE;
	from = state_index(p_attr->state);
	if (from < 0 || !(g_events[ev].from & SB(from)) || !(g_events[ev].classes & CB(cls)) ||
	    !event_applies(ev, p_attr))
		return FALSE;
	async = g_events[ev].async;
	to = g_events[ev].to;
	if (ev == PROV_QP_EV_SEND_ERR && cls == PROV_QPC_RC)
		to = S_ERR; /* reliable connections have no send-queue-error state */
	if (ev == PROV_QP_EV_SQ_DRAINED) {
		if (!p_attr->sqd_event)
			async = (ib_async_event_t)0;
		p_attr->state = IB_QPS_SQD_DRAINED;
	} else if (to >= 0) {
		p_attr->state = g_state_of[to];
	}
	if (ev == PROV_QP_EV_APM_ARMED)
		p_attr->apm_state = IB_APM_ARMED;
	if (ev == PROV_QP_EV_MIGRATED) {
		migrate(p_attr);
		sync_primary(p_attr, cls);
	}
	if (!draining(p_attr->state))
		p_attr->sqd_event = FALSE;
	if (p_async)
		*p_async = async;
	return TRUE;
}

void prov_qp_attr_to_ib(const prov_qp_attr_t *p_attr, ib_qp_attr_t *p_qp_attr)
{
	p_qp_attr->state = p_attr->state;
	p_qp_attr->access_ctrl = p_attr->access_ctrl;
	p_qp_attr->pkey_index = p_attr->pkey_index;
	p_qp_attr->init_depth = p_attr->max_rd_atomic;
	p_qp_attr->resp_res = p_attr->max_dest_rd_atomic;
	p_qp_attr->dest_num = cl_hton32(p_attr->dest_qpn);
	p_qp_attr->qkey = cl_hton32(p_attr->qkey);
	p_qp_attr->sq_psn = cl_hton32(p_attr->sq_psn);
	p_qp_attr->rq_psn = cl_hton32(p_attr->rq_psn);
	p_qp_attr->primary_port = p_attr->port;
	p_qp_attr->alternate_port = p_attr->alt_valid ? p_attr->alternate_av.port_num : 0;
	p_qp_attr->primary_av = p_attr->primary_av;
	p_qp_attr->alternate_av = p_attr->alternate_av;
	p_qp_attr->apm_state = p_attr->apm_state;
}

/* ------------------------------------------------------------------------ */
/* Names                                                                    */
/* ------------------------------------------------------------------------ */

static const char *const g_attr_names[PROV_QPA_COUNT] = {
	"PORT", "PKEY_INDEX", "QKEY", "ACCESS", "AV", "DEST_QPN", "RQ_PSN", "SQ_PSN",
	"MAX_DEST_RD_ATOMIC", "MIN_RNR_TIMER", "TIMEOUT", "RETRY_CNT", "RNR_RETRY",
	"MAX_RD_ATOMIC", "ALT_PATH", "APM_STATE", "CUR_STATE", "SQD_EVENT",
};

static const char *const g_event_names[PROV_QP_EV_COUNT] = {
	[PROV_QP_EV_COMM_EST] = "COMM_EST",
	[PROV_QP_EV_SQ_DRAINED] = "SQ_DRAINED",
	[PROV_QP_EV_SEND_ERR] = "SEND_ERR",
	[PROV_QP_EV_WQ_ERR] = "WQ_ERR",
	[PROV_QP_EV_REQ_ERR] = "REQ_ERR",
	[PROV_QP_EV_ACCESS_ERR] = "ACCESS_ERR",
	[PROV_QP_EV_FATAL] = "FATAL",
	[PROV_QP_EV_APM_ARMED] = "APM_ARMED",
	[PROV_QP_EV_MIGRATED] = "MIGRATED",
};

const char *prov_qp_state_str(ib_qp_state_t state)
{
	size_t i;

	for (i = 0; i < COUNT_OF(g_states); i++)
		if (g_states[i].state == state)
			return g_states[i].name;
	return "UNKNOWN";
}

const char *prov_qp_attr_str(prov_qp_attr_mask_t bit)
{
	unsigned int i;

	if (!bit || (bit & (bit - 1)) || (bit & ~PROV_QPA_ALL))
		return "UNKNOWN";
	for (i = 0; !(bit & 1u); i++)
		bit >>= 1;
	return g_attr_names[i];
}

/* snprintf() at offset @p used of a @p len byte buffer, never past its end. */
static size_t append(char *buf, size_t len, size_t used, const char *sep, const char *text)
{
	int n;

	if (used < len)
		n = snprintf(buf + used, len - used, "%s%s", sep, text);
	else
		n = snprintf(NULL, 0, "%s%s", sep, text);
	return n > 0 ? (size_t)n : 0;
}

size_t prov_qp_attr_mask_str(prov_qp_attr_mask_t mask, char *buf, size_t len)
{
	char extra[16];
	size_t used = 0;
	unsigned int i;

	if (len)
		buf[0] = '\0';
	if (!mask)
		return append(buf, len, 0, "", "none");
	for (i = 0; i < PROV_QPA_COUNT; i++)
		if (mask & (1u << i))
			used += append(buf, len, used, used ? "|" : "", g_attr_names[i]);
	if (mask & ~PROV_QPA_ALL) {
		snprintf(extra, sizeof(extra), "0x%x", (unsigned)(mask & ~PROV_QPA_ALL));
		used += append(buf, len, used, used ? "|" : "", extra);
	}
	return used;
}

const char *prov_qp_event_str(prov_qp_event_t ev)
{
	if ((unsigned)ev >= PROV_QP_EV_COUNT)
		return "UNKNOWN";
	return g_event_names[ev];
}
