/*
 * ibal tests: the provider-independent CM suite's fixture: the SA path, callbacks that record and answer, handshake helpers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Built on dp_fixture.h (one CA and port 1, soft or the environment's
 * provider, the registered buffer, CQ and QP pools, bounded waits): both
 * ends of every connection are QPs of that CA, connected by ibal's CM to
 * each other through port 1 (a process talking to itself), on the path the
 * SA client gives for the port's own GID to itself (PathRecord by GIDs; on
 * RoCE the access layer answers it, on the soft fabric its SA).
 * IBAL_DP_FORCE_GRH=1 (as for test_al_dp) raises the path's hop limit to
 * 64, so that the CM's GRH addressing (RoCE's) runs on soft too.
 *
 * The SA client's service for a port is a hidden AL instance that ends, on
 * a thread of its own, after the last AL instance that queried through the
 * port closed; an ib_query() on the port while that teardown runs fails
 * with IB_INVALID_SETTING (the new service's MAD registration for SubnAdm
 * Report() collides with the old one's: core/al/al_mad.c, "taken by
 * another service"), and on a new soft fabric of the same process (same
 * CA and port GUIDs) with IB_TIMEOUT. So that the tests see the CM and not
 * that race: on soft the program has one private fabric for all its tests
 * (cmdp_fabric_open; D.soft stays 0, which would make one per test), and
 * the first cmdp_up() opens an anchor AL instance that queries once and
 * stays open until the program ends, holding the service.
 * IBAL_CMDP_NO_ANCHOR=1 leaves the anchor out: the race then fails about
 * one test in four.
 *
 * Callbacks come on access-layer threads. Each records what it saw into C
 * under D.lock (copies: the records' buffers end with the callback), wakes
 * D.cond, and does what the test set in C beforehand (answer with
 * ib_cm_rep, ib_cm_rej, ib_cm_rtu or ib_cm_drep), with D.lock released;
 * the statuses of those calls and the QP states seen there are recorded
 * too and asserted by the test thread (CUnit is not thread safe). Tests
 * wait on the counters with a deadline (dp_wait_count), never by sleeping.
 */
#ifndef TESTS_CM_DP_FIXTURE_H
#define TESTS_CM_DP_FIXTURE_H

#include "dp_fixture.h"

#define CMDP_SVC     CL_HTON64(0x10000000C0DE0D00ull) /* the suite's service ID */
#define CMDP_SVC_NONE CL_HTON64(0x10000000C0DE0DFFull) /* nobody listens on it */
#define CMDP_RESP_TO 20     /* 4.3 s for a CM to answer (callbacks may be slow under valgrind) */
#define CMDP_RETRIES 3      /* resends of each CM message */
#define CMDP_DEPTH   2      /* RDMA read/atomic depths asked for (clipped to the CA's) */

/* Set when the kernel's CM runs the exchanges (IBAL_RXE_PHASE=kcm: the verbs
 * provider goes through librdmacm, docs/verbs-provider.md): a REQ carries at
 * most 48 bytes of private data (librdmacm's header and ibal's service ID
 * take the rest), an RTU, DREQ or DREP none. */
static int cmdp_kcm;
#define CMDP_REQ_LEN  (cmdp_kcm ? 48u : (unsigned)IB_REQ_PDATA_SIZE)
#define CMDP_RTU_LEN  (cmdp_kcm ? 0u : (unsigned)IB_RTU_PDATA_SIZE)
#define CMDP_DREQ_LEN (cmdp_kcm ? 0u : (unsigned)IB_DREQ_PDATA_SIZE)
#define CMDP_DREP_LEN (cmdp_kcm ? 0u : (unsigned)IB_DREP_PDATA_SIZE)

/* Seeds of the private data patterns, per message (plus C.seed). */
enum { PD_REQ = 1, PD_REP, PD_RTU, PD_REJ, PD_DREQ, PD_DREP };

/* What the REQ callback does. */
typedef enum cmdp_req_do {
	CMDP_REQ_REP,       /* ib_cm_rep with C.pas */
	CMDP_REQ_REJ,       /* ib_cm_rej IB_REJ_USER_DEFINED with private data */
	CMDP_REQ_NONE,      /* nothing: the test answers */
} cmdp_req_do_t;

/* The callbacks' record and orders (D.lock). */
typedef struct cmdp {
	/* Set by the test. */
	cmdp_req_do_t req_do;
	int rtu_in_rep;               /* the REP callback answers with ib_cm_rtu */
	int drep_in_dreq;             /* the DREQ callback answers with ib_cm_drep */
	int rep_recv;                 /* ib_cm_rep posts one receive (p_recv_wr) */
	int sync_in_req;              /* the REQ callback first tries IB_FLAGS_SYNC */
	dp_qp_t *act, *pas;           /* the QPs of the connection being made */
	ib_access_t rep_access, rtu_access;
	uint32_t seed;                /* added to the private data seeds */

	/* Counters. */
	int n_req, n_rep, n_rtu, n_rej, n_mra, n_dreq, n_drep, n_lap, n_destroy;
	int n_rep_done, n_drep_done;  /* rep and drep callbacks returned */
	int n_bad;                    /* callbacks with a context or handle not expected */

	/* REQ callback. */
	ib_cm_req_rec_t req;          /* pointers cleared; private data in req_pdata */
	uint8_t req_pdata[IB_REQ_PDATA_SIZE];
	ib_api_status_t st_rep;       /* ib_cm_rep (or ib_cm_rej) made there */
	ib_api_status_t st_sync;      /* ib_cm_rep with IB_FLAGS_SYNC there */
	ib_qp_state_t pas_after_rep;  /* the passive QP after ib_cm_rep */

	/* REP callback. */
	ib_cm_rep_rec_t rep;
	uint8_t rep_pdata[IB_REP_PDATA_SIZE];
	ib_qp_state_t act_in_rep;     /* the active QP in the callback */
	ib_api_status_t st_rtu;
	ib_qp_state_t act_after_rtu;

	/* RTU callback. */
	ib_cm_rtu_rec_t rtu;
	uint8_t rtu_pdata[IB_RTU_PDATA_SIZE];
	ib_qp_state_t pas_in_rtu;

	/* REJ callback. */
	ib_cm_rej_rec_t rej;
	uint8_t rej_pdata[IB_REJ_PDATA_SIZE];
	ib_qp_state_t state_in_rej;   /* the rejected QP in the callback */

	/* DREQ callback. */
	ib_cm_dreq_rec_t dreq;
	uint8_t dreq_pdata[IB_DREQ_PDATA_SIZE];
	ib_qp_state_t state_in_dreq;  /* the QP of the DREQ's receiver */
	ib_api_status_t st_drep;

	/* DREP callback. */
	ib_cm_drep_rec_t drep;
	uint8_t drep_pdata[IB_DREP_PDATA_SIZE];

	/* The last SA query. */
	ib_api_status_t q_status;
	uint32_t q_count;
	ib_path_rec_t q_path;
	int n_query;
} cmdp_t;

static cmdp_t C;

static int cmdp_soft;                   /* the program's private soft fabric */
static char cmdp_fab_dir[64];

/* Soft: makes the program's fabric and names it, one CA (IBAL_PROVIDERS,
 * IBAL_SOFT_CAS, IBAL_SOFT_FABRIC); 0 on success. */
static inline int cmdp_fabric_open(void)
{
	cmdp_soft = 1;
	setenv("IBAL_PROVIDERS", "soft", 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	unsetenv("IBAL_SOFT_PORTS");
	strcpy(cmdp_fab_dir, "/tmp/ibal-cmdp-XXXXXX");
	if (!mkdtemp(cmdp_fab_dir))
		return -1;
	setenv("IBAL_SOFT_FABRIC", cmdp_fab_dir, 1);
	return 0;
}

/* Removes the program's fabric (after the last dp_close()). */
static inline void cmdp_fabric_close(void)
{
	if (!cmdp_soft || !cmdp_fab_dir[0])
		return;
	test_rm_tree(cmdp_fab_dir);
	cmdp_fab_dir[0] = '\0';
	unsetenv("IBAL_SOFT_FABRIC");
}

/* Resets the record: the callbacks answer everything, no receive in the REP. */
static inline void cmdp_reset(void)
{
	pthread_mutex_lock(&D.lock);
	memset(&C, 0, sizeof(C));
	C.req_do = CMDP_REQ_REP;
	C.rtu_in_rep = 1;
	C.drep_in_dreq = 1;
	C.rep_access = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE;
	C.rtu_access = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE;
	C.st_rep = C.st_rtu = C.st_drep = C.st_sync = IB_ERROR;
	pthread_mutex_unlock(&D.lock);
}

/* Sets the connection's QPs (the REP names pas). */
static inline void cmdp_use(dp_qp_t *act, dp_qp_t *pas)
{
	pthread_mutex_lock(&D.lock);
	C.act = act;
	C.pas = pas;
	pthread_mutex_unlock(&D.lock);
}

/* Sets what the REQ callback does. */
static inline void cmdp_set_req_do(cmdp_req_do_t what)
{
	pthread_mutex_lock(&D.lock);
	C.req_do = what;
	pthread_mutex_unlock(&D.lock);
}

/* Sets the private data seed of the next messages. */
static inline void cmdp_set_seed(uint32_t seed)
{
	pthread_mutex_lock(&D.lock);
	C.seed = seed;
	pthread_mutex_unlock(&D.lock);
}

/* Sets one of the int orders of C (rtu_in_rep, drep_in_dreq, ...). */
static inline void cmdp_set(int *p, int v)
{
	pthread_mutex_lock(&D.lock);
	*p = v;
	pthread_mutex_unlock(&D.lock);
}

static inline void cmdp_bump(int *p)
{
	(*p)++;
	pthread_cond_broadcast(&D.cond);
}

static inline ib_qp_state_t cmdp_state_h(ib_qp_handle_t h)
{
	ib_qp_attr_t a;

	memset(&a, 0, sizeof(a));
	if (!h || ib_query_qp(h, &a) != IB_SUCCESS)
		return (ib_qp_state_t)0;
	return a.state;
}

/* Fills @p len bytes of private data for message @p kind (C.seed added). */
static inline void cmdp_pdata(uint8_t *p, uint32_t len, int kind, uint32_t seed)
{
	dp_fill(p, len, seed * 16u + (uint32_t)kind);
}

static inline int cmdp_pdata_ok(const uint8_t *p, uint32_t len, int kind, uint32_t seed)
{
	return dp_diff(p, len, seed * 16u + (uint32_t)kind) == -1;
}

/* ---- Callbacks ---- */

static inline void AL_API cmdp_on_destroy(void *context)
{
	pthread_mutex_lock(&D.lock);
	if (context != &C)
		C.n_bad++;
	cmdp_bump(&C.n_destroy);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API cmdp_on_mra(ib_cm_mra_rec_t *p)
{
	(void)p;
	pthread_mutex_lock(&D.lock);
	cmdp_bump(&C.n_mra);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API cmdp_on_lap(ib_cm_lap_rec_t *p)
{
	(void)p;
	pthread_mutex_lock(&D.lock);
	cmdp_bump(&C.n_lap);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API cmdp_on_rej(ib_cm_rej_rec_t *p)
{
	ib_qp_state_t state = cmdp_state_h(p->h_qp);

	pthread_mutex_lock(&D.lock);
	C.rej = *p;
	memcpy(C.rej_pdata, p->p_rej_pdata, IB_REJ_PDATA_SIZE);
	C.rej.p_rej_pdata = NULL;
	C.rej.p_ari = NULL;
	C.state_in_rej = state;
	cmdp_bump(&C.n_rej);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API cmdp_on_drep(ib_cm_drep_rec_t *p)
{
	pthread_mutex_lock(&D.lock);
	C.drep = *p;
	memcpy(C.drep_pdata, p->p_drep_pdata, IB_DREP_PDATA_SIZE);
	C.drep.p_drep_pdata = NULL;
	cmdp_bump(&C.n_drep);
	pthread_mutex_unlock(&D.lock);
	/* After the callback's work: IB_FLAGS_SYNC callers check it. */
	pthread_mutex_lock(&D.lock);
	cmdp_bump(&C.n_drep_done);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API cmdp_on_dreq(ib_cm_dreq_rec_t *p)
{
	uint8_t pd[IB_DREP_PDATA_SIZE];
	const dp_qp_t *qp = (const dp_qp_t *)p->qp_context;
	ib_qp_state_t state = qp ? cmdp_state_h(qp->h) : (ib_qp_state_t)0;
	ib_cm_drep_t d;
	ib_api_status_t st = IB_ERROR;
	int answer;
	uint32_t seed;

	pthread_mutex_lock(&D.lock);
	C.dreq = *p;
	memcpy(C.dreq_pdata, p->p_dreq_pdata, IB_DREQ_PDATA_SIZE);
	C.dreq.p_dreq_pdata = NULL;
	C.state_in_dreq = state;
	answer = C.drep_in_dreq;
	seed = C.seed;
	pthread_mutex_unlock(&D.lock);
	if (answer) {
		memset(&d, 0, sizeof(d));
		cmdp_pdata(pd, sizeof(pd), PD_DREP, seed);
		d.p_drep_pdata = pd;
		d.drep_length = (uint8_t)CMDP_DREP_LEN;
		st = ib_cm_drep(p->h_cm_dreq, &d);
	}
	pthread_mutex_lock(&D.lock);
	C.st_drep = st;
	cmdp_bump(&C.n_dreq);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API cmdp_on_rtu(ib_cm_rtu_rec_t *p)
{
	ib_qp_state_t state = cmdp_state_h(p->h_qp);

	pthread_mutex_lock(&D.lock);
	C.rtu = *p;
	memcpy(C.rtu_pdata, p->p_rtu_pdata, IB_RTU_PDATA_SIZE);
	C.rtu.p_rtu_pdata = NULL;
	C.pas_in_rtu = state;
	if (!C.pas || p->h_qp != C.pas->h || p->qp_context != C.pas)
		C.n_bad++;
	cmdp_bump(&C.n_rtu);
	pthread_mutex_unlock(&D.lock);
}

/* The RTU the tests send: full private data, C.rtu_access, DREQs to cmdp_on_dreq. */
static inline void cmdp_rtu_fill(ib_cm_rtu_t *t, uint8_t *pd, uint32_t seed, ib_access_t access)
{
	memset(t, 0, sizeof(*t));
	cmdp_pdata(pd, IB_RTU_PDATA_SIZE, PD_RTU, seed);
	t->access_ctrl = access;
	t->p_rtu_pdata = pd;
	t->rtu_length = (uint8_t)CMDP_RTU_LEN;
	t->pfn_cm_dreq_cb = cmdp_on_dreq;
}

static inline void AL_API cmdp_on_rep(ib_cm_rep_rec_t *p)
{
	uint8_t pd[IB_RTU_PDATA_SIZE];
	const dp_qp_t *qp = (const dp_qp_t *)p->qp_context;
	ib_qp_state_t state = qp ? cmdp_state_h(qp->h) : (ib_qp_state_t)0;
	ib_cm_rtu_t t;
	ib_api_status_t st = IB_ERROR;
	ib_qp_state_t after = (ib_qp_state_t)0;
	int answer;
	uint32_t seed;
	ib_access_t access;

	pthread_mutex_lock(&D.lock);
	C.rep = *p;
	memcpy(C.rep_pdata, p->p_rep_pdata, IB_REP_PDATA_SIZE);
	C.rep.p_rep_pdata = NULL;
	C.act_in_rep = state;
	if (!C.act || qp != C.act || p->h_cm_rep.h_qp != C.act->h)
		C.n_bad++;
	answer = C.rtu_in_rep;
	seed = C.seed;
	access = C.rtu_access;
	pthread_mutex_unlock(&D.lock);
	if (answer) {
		cmdp_rtu_fill(&t, pd, seed, access);
		st = ib_cm_rtu(p->h_cm_rep, &t);
		after = qp ? cmdp_state_h(qp->h) : (ib_qp_state_t)0;
	}
	pthread_mutex_lock(&D.lock);
	C.st_rtu = st;
	C.act_after_rtu = after;
	cmdp_bump(&C.n_rep);
	pthread_mutex_unlock(&D.lock);
	pthread_mutex_lock(&D.lock);
	cmdp_bump(&C.n_rep_done);
	pthread_mutex_unlock(&D.lock);
}

/* The REP the tests send from @p pas: full private data, @p access, one
 * RDMA read/atomic outstanding, every callback of the suite's. */
static inline void cmdp_rep_fill(ib_cm_rep_t *r, uint8_t *pd, const dp_qp_t *pas, uint32_t seed,
				 ib_access_t access)
{
	memset(r, 0, sizeof(*r));
	cmdp_pdata(pd, IB_REP_PDATA_SIZE, PD_REP, seed);
	r->p_rep_pdata = pd;
	r->rep_length = IB_REP_PDATA_SIZE;
	r->h_qp = pas->h;
	r->qp_type = pas->type;
	r->access_ctrl = access;
	r->init_depth = pas->type == IB_QPT_RELIABLE_CONN ? 1 : 0;
	r->failover_accepted = IB_FAILOVER_ACCEPT_UNSUPPORTED;
	r->rnr_nak_timeout = 1;
	r->rnr_retry_cnt = 7;
	r->pfn_cm_rej_cb = cmdp_on_rej;
	r->pfn_cm_mra_cb = cmdp_on_mra;
	r->pfn_cm_rtu_cb = cmdp_on_rtu;
	r->pfn_cm_lap_cb = cmdp_on_lap;
	r->pfn_cm_dreq_cb = cmdp_on_dreq;
}

/* The receive ib_cm_rep posts when C.rep_recv is set (wr_id 900, slot 40). */
#define CMDP_REP_RECV_ID   900u
#define CMDP_REP_RECV_SLOT 40u

static inline void AL_API cmdp_on_req(ib_cm_req_rec_t *p)
{
	uint8_t pd[IB_REP_PDATA_SIZE];   /* the calls copy private data */
	uint8_t rj[IB_REJ_PDATA_SIZE];
	ib_local_ds_t ds;
	ib_recv_wr_t wr, *p_fail = NULL;
	ib_cm_rep_t r;
	ib_cm_rej_t j;
	ib_api_status_t st = IB_ERROR, st_sync = IB_ERROR;
	ib_qp_state_t after = (ib_qp_state_t)0;
	cmdp_req_do_t what;
	dp_qp_t *pas;
	int recv, sync;
	uint32_t seed;
	ib_access_t access;

	pthread_mutex_lock(&D.lock);
	C.req = *p;
	memcpy(C.req_pdata, p->p_req_pdata, IB_REQ_PDATA_SIZE);
	C.req.p_req_pdata = NULL;
	what = C.req_do;
	pas = C.pas;
	recv = C.rep_recv;
	sync = C.sync_in_req;
	seed = C.seed;
	access = C.rep_access;
	pthread_mutex_unlock(&D.lock);

	if (what == CMDP_REQ_REP && pas) {
		cmdp_rep_fill(&r, pd, pas, seed, access);
		if (sync) {
			/* Refused on an AL callback thread, before anything is done. */
			r.flags = IB_FLAGS_SYNC;
			st_sync = ib_cm_rep(p->h_cm_req, &r);
			r.flags = 0;
		}
		if (recv) {
			dp_sge(&ds, DP_AT(CMDP_REP_RECV_SLOT), 4 * DP_SLOT);
			memset(&wr, 0, sizeof(wr));
			wr.wr_id = CMDP_REP_RECV_ID;
			wr.num_ds = 1;
			wr.ds_array = &ds;
			r.p_recv_wr = &wr;
			r.pp_recv_failure = &p_fail;
		}
		st = ib_cm_rep(p->h_cm_req, &r);
		after = cmdp_state_h(pas->h);
	} else if (what == CMDP_REQ_REJ) {
		memset(&j, 0, sizeof(j));
		cmdp_pdata(rj, sizeof(rj), PD_REJ, seed);
		j.rej_status = IB_REJ_USER_DEFINED;
		j.p_rej_pdata = rj;
		j.rej_length = sizeof(rj);
		st = ib_cm_rej(p->h_cm_req, &j);
	}
	pthread_mutex_lock(&D.lock);
	C.st_rep = st;
	C.st_sync = st_sync;
	C.pas_after_rep = after;
	if (p_fail)
		C.n_bad++;
	cmdp_bump(&C.n_req);
	pthread_mutex_unlock(&D.lock);
}

/* ---- The path ---- */

static inline void AL_API cmdp_on_query(ib_query_rec_t *p)
{
	pthread_mutex_lock(&D.lock);
	C.q_status = p->status;
	C.q_count = p->result_cnt;
	if (p->status == IB_SUCCESS && p->p_result_mad && p->result_cnt)
		C.q_path = *ib_get_query_path_rec(p->p_result_mad, 0);
	if (p->query_context != &C)
		C.n_bad++;
	cmdp_bump(&C.n_query);
	pthread_mutex_unlock(&D.lock);
	if (p->p_result_mad)
		ib_put_mad(p->p_result_mad);
}

/*
 * The path from port 1's GID to itself (dp_read_port's choice: the
 * IPv4-mapped GID on RoCE when there is one, else GID 0), asked of the SA
 * client with IB_FLAGS_SYNC; the status of ib_query(), the path in *p.
 */
static inline ib_api_status_t cmdp_query_path(ib_path_rec_t *p)
{
	ib_gid_pair_t gp;
	ib_query_req_t q;
	ib_api_status_t st;
	int before = dp_get(&C.n_query);

	memset(&gp, 0, sizeof(gp));
	gp.src_gid = D.gid;
	gp.dest_gid = D.gid;
	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PATH_REC_BY_GIDS;
	q.p_query_input = &gp;
	q.port_guid = D.port->port_guid;
	q.timeout_ms = 1000;
	q.retry_cnt = 3;
	q.flags = IB_FLAGS_SYNC;
	q.query_context = &C;
	q.pfn_query_cb = cmdp_on_query;
	st = ib_query(D.al, &q, NULL);
	if (st != IB_SUCCESS)
		return st;
	/* IB_FLAGS_SYNC: the callback has returned. */
	if (dp_get(&C.n_query) != before + 1)
		return IB_ERROR;
	pthread_mutex_lock(&D.lock);
	st = C.q_status;
	if (st == IB_SUCCESS && !C.q_count)
		st = IB_NOT_FOUND;
	*p = C.q_path;
	pthread_mutex_unlock(&D.lock);
	return st;
}

static ib_al_handle_t cmdp_anchor;      /* holds the SA client's port service */

/* Opens the anchor instance and queries the path through it once. */
static inline void cmdp_anchor_open(void)
{
	ib_al_handle_t keep = D.al;
	ib_path_rec_t path;
	const char *no = getenv("IBAL_CMDP_NO_ANCHOR");

	if (cmdp_anchor || (no && !strcmp(no, "1")))
		return;
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&cmdp_anchor), IB_SUCCESS);
	D.al = cmdp_anchor;
	CU_ASSERT_EQUAL(cmdp_query_path(&path), IB_SUCCESS);
	D.al = keep;
}

/* Closes the anchor instance (at the program's end). */
static inline void cmdp_anchor_close(void)
{
	if (cmdp_anchor)
		ib_close_al(cmdp_anchor);
	cmdp_anchor = NULL;
}

/* IBAL_DP_FORCE_GRH=1: the path leaves the subnet (hop limit 64), so the
 * CM's MADs and the QPs' addresses carry a GRH, as on RoCE. */
static inline void cmdp_path_force(ib_path_rec_t *path)
{
	if (D.force_grh && ib_path_rec_hop_limit(path) <= 1)
		ib_path_rec_set_hop_flow_raw(path, 64, ib_path_rec_flow_lbl(path), FALSE);
}

/* dp_up(), then the path (fatal if the SA client gives none). */
static inline void cmdp_up(ib_path_rec_t *path)
{
	ib_api_status_t st;

	dp_up();
	cmdp_reset();
	cmdp_anchor_open();
	st = cmdp_query_path(path);
	if (st != IB_SUCCESS)
		fprintf(stderr, "\n  PathRecord query: %s\n", ib_get_err_str(st));
	CU_ASSERT_EQUAL_FATAL(st, IB_SUCCESS);
	cmdp_path_force(path);
}

/* Whether an address vector made from @p path carries a GRH. */
static inline int cmdp_path_grh(const ib_path_rec_t *path)
{
	return ib_path_rec_hop_limit(path) > 1;
}

/* t(x) of docs/cm.md in ms: 4.096 us * 2^x, at least 1 ms (as the CM rounds). */
static inline uint32_t cmdp_t_ms(uint8_t x)
{
	return (uint32_t)(((uint64_t)4096 << x) / 1000000u + 1);
}

/* The time-wait of a connection on @p path: t(local ACK timeout) + t(packet
 * lifetime), the ACK timeout being the packet lifetime + 1. */
static inline uint32_t cmdp_timewait_ms(const ib_path_rec_t *path)
{
	uint8_t pl = ib_path_rec_pkt_life(path);

	return cmdp_t_ms((uint8_t)(pl + 1 > 31 ? 31 : pl + 1)) + cmdp_t_ms(pl);
}

/* ---- Requests ---- */

static inline ib_listen_handle_t cmdp_listen(ib_net64_t svc, ib_qp_type_t type)
{
	ib_cm_listen_t l;
	ib_listen_handle_t h = NULL;

	memset(&l, 0, sizeof(l));
	l.svc_id = svc;
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = IB_ALL_PORTS;
	l.lid = IB_ALL_LIDS;
	l.pkey = IB_ALL_PKEYS;
	l.pfn_cm_req_cb = cmdp_on_req;
	l.qp_type = type;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(D.al, &l, &C, &h), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL(h);
	return h;
}

/* A REQ from @p act on @p path for @p svc, full private data (seed @p seed). */
static inline void cmdp_req_fill(ib_cm_req_t *q, uint8_t *pd, const dp_qp_t *act, ib_path_rec_t *path,
				 ib_net64_t svc, uint32_t seed)
{
	uint8_t depth_r = D.resp_res < CMDP_DEPTH ? D.resp_res : CMDP_DEPTH;
	uint8_t depth_i = D.init_depth < CMDP_DEPTH ? D.init_depth : CMDP_DEPTH;

	memset(q, 0, sizeof(*q));
	cmdp_pdata(pd, IB_REQ_PDATA_SIZE, PD_REQ, seed);
	q->svc_id = svc;
	q->max_cm_retries = CMDP_RETRIES;
	q->p_primary_path = path;
	q->pfn_cm_rep_cb = cmdp_on_rep;
	q->p_req_pdata = pd;
	q->req_length = (uint8_t)CMDP_REQ_LEN;
	q->qp_type = act->type;
	q->h_qp = act->h;
	if (act->type == IB_QPT_RELIABLE_CONN) {
		q->resp_res = depth_r;
		q->init_depth = depth_i;
	}
	q->remote_resp_timeout = CMDP_RESP_TO;
	q->local_resp_timeout = CMDP_RESP_TO;
	q->rnr_nak_timeout = 1;
	q->rnr_retry_cnt = 7;
	q->retry_cnt = 7;
	q->pfn_cm_mra_cb = cmdp_on_mra;
	q->pfn_cm_rej_cb = cmdp_on_rej;
}

static inline ib_api_status_t cmdp_req(const dp_qp_t *act, ib_path_rec_t *path, ib_net64_t svc,
				       uint32_t seed, ib_al_flags_t flags)
{
	uint8_t pd[IB_REQ_PDATA_SIZE];
	ib_cm_req_t q;

	cmdp_req_fill(&q, pd, act, path, svc, seed);
	q.flags = flags;
	return ib_cm_req(&q);
}

/* A DREQ from @p qp with full private data. */
static inline ib_api_status_t cmdp_dreq(const dp_qp_t *qp, uint32_t seed, ib_al_flags_t flags)
{
	uint8_t pd[IB_DREQ_PDATA_SIZE];
	ib_cm_dreq_t d;

	memset(&d, 0, sizeof(d));
	cmdp_pdata(pd, sizeof(pd), PD_DREQ, seed);
	d.flags = flags;
	d.p_dreq_pdata = pd;
	d.dreq_length = (uint8_t)CMDP_DREQ_LEN;
	d.qp_type = qp->type;
	d.h_qp = qp->h;
	d.pfn_cm_drep_cb = cmdp_on_drep;
	return ib_cm_dreq(&d);
}

/* Waits for counter @p p to reach @p want; asserts it did, at the caller's line. */
#define CMDP_WAIT(p, want) cmdp_wait(__FILE__, __LINE__, &(p), (want), #p)

static inline int cmdp_wait(const char *file, int line, const int *p, int want, const char *what)
{
	int got = dp_wait_count(p, want, DP_WAIT_MS);

	if (got < want)
		fprintf(stderr, "\n  line %d: %s is %d, %d expected\n", line, what, got, want);
	DP_ASSERT_AT(file, line, got >= want);
	return got >= want;
}

/*
 * Waits for the REQ, REP and RTU callbacks of a handshake (counts above
 * @p req0, @p rep0, @p rtu0) to have returned; fatal if one never does.
 * Each counts when its callback's answer is made, so they may come in any
 * order: the RTU's callback may run before the REQ callback that sent the
 * REP counted itself.
 */
#define CMDP_HANDSHAKE_WAIT_AT(file, line, req0, rep0, rtu0)                                 \
	do {                                                                                 \
		if (!cmdp_wait(file, line, &C.n_req, (req0) + 1, "C.n_req") ||               \
		    !cmdp_wait(file, line, &C.n_rep, (rep0) + 1, "C.n_rep") ||               \
		    !cmdp_wait(file, line, &C.n_rtu, (rtu0) + 1, "C.n_rtu"))                 \
			DP_FAIL_FATAL_AT(file, line, "the connection was made");             \
	} while (0)
#define CMDP_HANDSHAKE_WAIT(req0, rep0, rtu0) CMDP_HANDSHAKE_WAIT_AT(__FILE__, __LINE__, req0, rep0, rtu0)

/*
 * Connects @p act to @p pas through a listen on @p svc, the callbacks
 * answering (REQ -> ib_cm_rep, REP -> ib_cm_rtu), with the private data of
 * @p seed; checks every callback's record. Fatal if the RTU never comes.
 */
#define CMDP_CONNECT(act, pas, path, svc, seed) \
	cmdp_connect(__FILE__, __LINE__, (act), (pas), (path), (svc), (seed))

static inline void cmdp_connect(const char *file, int line, dp_qp_t *act, dp_qp_t *pas,
				ib_path_rec_t *path, ib_net64_t svc, uint32_t seed)
{
	int req0 = dp_get(&C.n_req), rep0 = dp_get(&C.n_rep), rtu0 = dp_get(&C.n_rtu);
	int rej0 = dp_get(&C.n_rej);

	cmdp_use(act, pas);
	cmdp_set_seed(seed);
	DP_ASSERT_AT(file, line, cmdp_req(act, path, svc, seed, 0) == IB_SUCCESS);
	CMDP_HANDSHAKE_WAIT_AT(file, line, req0, rep0, rtu0);
	pthread_mutex_lock(&D.lock);
	DP_ASSERT_AT(file, line, C.n_req == req0 + 1);
	DP_ASSERT_AT(file, line, C.n_rep == rep0 + 1);
	DP_ASSERT_AT(file, line, C.n_rej == rej0);
	DP_ASSERT_AT(file, line, C.st_rep == IB_SUCCESS);
	DP_ASSERT_AT(file, line, C.st_rtu == IB_SUCCESS);
	/* RTR after ib_cm_rep, unless the RTU (another thread) came first. */
	DP_ASSERT_AT(file, line, C.pas_after_rep == IB_QPS_RTR || C.pas_after_rep == IB_QPS_RTS);
	DP_ASSERT_AT(file, line, C.act_in_rep == IB_QPS_RTR);
	DP_ASSERT_AT(file, line, C.act_after_rtu == IB_QPS_RTS);
	DP_ASSERT_AT(file, line, C.pas_in_rtu == IB_QPS_RTS);
	DP_ASSERT_AT(file, line, cmdp_pdata_ok(C.req_pdata, CMDP_REQ_LEN, PD_REQ, seed));
	DP_ASSERT_AT(file, line, cmdp_pdata_ok(C.rep_pdata, IB_REP_PDATA_SIZE, PD_REP, seed));
	DP_ASSERT_AT(file, line, cmdp_pdata_ok(C.rtu_pdata, CMDP_RTU_LEN, PD_RTU, seed));
	DP_ASSERT_AT(file, line, C.n_bad == 0);
	pthread_mutex_unlock(&D.lock);
	DP_ASSERT_AT(file, line, dp_state(act) == IB_QPS_RTS);
	DP_ASSERT_AT(file, line, dp_state(pas) == IB_QPS_RTS);
}

/*
 * Disconnects the connection of @p from and @p to with a DREQ from @p from
 * (the DREQ callback answers): DREP callback IB_SUCCESS, private data both
 * ways, both QPs in ERROR (docs/cm.md).
 */
#define CMDP_DISCONNECT(from, to, seed) cmdp_disconnect(__FILE__, __LINE__, (from), (to), (seed))

static inline void cmdp_disconnect(const char *file, int line, const dp_qp_t *from, const dp_qp_t *to,
				   uint32_t seed)
{
	int dreq0 = dp_get(&C.n_dreq), drep0 = dp_get(&C.n_drep);

	cmdp_set_seed(seed);
	DP_ASSERT_AT(file, line, cmdp_dreq(from, seed, 0) == IB_SUCCESS);
	/* The DREQ's sender moved its QP to ERROR before sending. */
	DP_ASSERT_AT(file, line, dp_state(from) == IB_QPS_ERROR);
	cmdp_wait(file, line, &C.n_drep, drep0 + 1, "C.n_drep");
	cmdp_wait(file, line, &C.n_dreq, dreq0 + 1, "C.n_dreq");
	pthread_mutex_lock(&D.lock);
	DP_ASSERT_AT(file, line, C.st_drep == IB_SUCCESS);
	DP_ASSERT_AT(file, line, C.drep.cm_status == IB_SUCCESS);
	DP_ASSERT_AT(file, line, C.drep.h_qp == from->h);
	DP_ASSERT_AT(file, line, C.drep.qp_context == from);
	DP_ASSERT_AT(file, line, C.dreq.qp_context == to);
	/* The receiver's QP is in ERROR when its DREQ callback runs. */
	DP_ASSERT_AT(file, line, C.state_in_dreq == IB_QPS_ERROR);
	DP_ASSERT_AT(file, line, cmdp_pdata_ok(C.dreq_pdata, CMDP_DREQ_LEN, PD_DREQ, seed));
	DP_ASSERT_AT(file, line, cmdp_pdata_ok(C.drep_pdata, CMDP_DREP_LEN, PD_DREP, seed));
	pthread_mutex_unlock(&D.lock);
	DP_ASSERT_AT(file, line, dp_state(from) == IB_QPS_ERROR);
	DP_ASSERT_AT(file, line, dp_state(to) == IB_QPS_ERROR);
}

/* ---- Traffic ---- */

/* One send of @p len bytes from @p a to @p b (slots: source @p s_slot,
 * target @p r_slot), both completions and every byte checked. */
#define CMDP_SEND(a, b, len, s_slot, r_slot, seed) \
	cmdp_send(__FILE__, __LINE__, (a), (b), (len), (s_slot), (r_slot), (seed))

static inline void cmdp_send(const char *file, int line, const dp_qp_t *a, const dp_qp_t *b, uint32_t len,
			     uint32_t s_slot, uint32_t r_slot, uint32_t seed)
{
	uint32_t room = 4 * DP_SLOT;

	dp_fill(DP_AT(s_slot), len, seed);
	memset(DP_AT(r_slot), 0, room);
	DP_ASSERT_AT(file, line, dp_recv(b, 2000u + seed, DP_AT(r_slot), room) == IB_SUCCESS);
	DP_ASSERT_AT(file, line, dp_send(a, 1000u + seed, DP_AT(s_slot), len, 0) == IB_SUCCESS);
	dp_expect(file, line, a->scq, 1000u + seed, IB_WCS_SUCCESS, IB_WC_SEND, len, NULL);
	dp_expect(file, line, b->rcq, 2000u + seed, IB_WCS_SUCCESS, IB_WC_RECV, len, NULL);
	DP_ASSERT_AT(file, line, dp_diff(DP_AT(r_slot), len, seed) == -1);
	DP_ASSERT_AT(file, line, dp_diff_byte(DP_AT(r_slot) + len, room - len, 0) == -1);
}

/* The receive a write with immediate data consumes (slot 48). */
#define CMDP_IMM_SLOT 48u

/*
 * @p len bytes (at least 2) from @p a's slot @p s_slot into slot @p t_slot
 * through the region's R_Key, in two RDMA writes: the first half plain,
 * the rest with immediate data, which completes a receive on @p b. That
 * receive completion says every byte has landed (UC's send completions
 * come once sent; writes of a QP are placed in order), so the target is
 * read after it only: every byte, and the bytes after it untouched.
 */
#define CMDP_WRITE(a, b, len, s_slot, t_slot, seed) \
	cmdp_write(__FILE__, __LINE__, (a), (b), (len), (s_slot), (t_slot), (seed))

static inline void cmdp_write(const char *file, int line, const dp_qp_t *a, const dp_qp_t *b, uint32_t len,
			      uint32_t s_slot, uint32_t t_slot, uint32_t seed)
{
	uint32_t room = 4 * DP_SLOT, half = len / 2;
	uint8_t *t = DP_AT(t_slot);
	ib_wc_t wc;

	dp_fill(DP_AT(s_slot), len, seed);
	memset(t, 0xA5, room);
	DP_ASSERT_AT(file, line, dp_recv(b, 4000u + seed, DP_AT(CMDP_IMM_SLOT), 64) == IB_SUCCESS);
	DP_ASSERT_AT(file, line,
		     dp_rdma(a, 3000u + seed, WR_RDMA_WRITE, DP_AT(s_slot), half, t, D.rkey, 0) == IB_SUCCESS);
	{
		ib_local_ds_t ds;
		ib_send_wr_t wr;

		dp_sge(&ds, DP_AT(s_slot) + half, len - half);
		dp_wr(&wr, 3500u + seed, WR_RDMA_WRITE, IB_SEND_OPT_SIGNALED | IB_SEND_OPT_IMMEDIATE, &ds, 1);
		wr.immediate_data = cl_hton32(0xC0DE0000u + seed);
		wr.remote_ops.vaddr = (uintptr_t)(t + half);
		wr.remote_ops.rkey = D.rkey;
		DP_ASSERT_AT(file, line, ib_post_send(a->h, &wr, NULL) == IB_SUCCESS);
	}
	dp_expect(file, line, a->scq, 3000u + seed, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE, half, NULL);
	dp_expect(file, line, a->scq, 3500u + seed, IB_WCS_SUCCESS, IB_WC_RDMA_WRITE, len - half, NULL);
	memset(&wc, 0, sizeof(wc));
	dp_expect(file, line, b->rcq, 4000u + seed, IB_WCS_SUCCESS, IB_WC_RECV_RDMA_WRITE, len - half, &wc);
	DP_ASSERT_AT(file, line, (wc.recv.conn.recv_opt & IB_RECV_OPT_IMMEDIATE) != 0);
	DP_ASSERT_AT(file, line, wc.recv.conn.immediate_data == cl_hton32(0xC0DE0000u + seed));
	DP_ASSERT_AT(file, line, dp_diff(t, len, seed) == -1);
	DP_ASSERT_AT(file, line, dp_diff_byte(t + len, room - len, 0xA5) == -1);
}

#endif /* TESTS_CM_DP_FIXTURE_H */
