/*
 * ibal tests: the data-path suite's fixture: one CA and port (soft or verbs), its addressing, QPs, CQs and bounded waits.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The provider comes from the environment. IBAL_PROVIDERS unset, empty or
 * "soft": every test gets a private soft fabric (mkdtemp, IBAL_SOFT_FABRIC,
 * IBAL_SOFT_CAS=1, IBAL_PROVIDERS=soft) and waits (bounded) for the
 * embedded SM to make port 1 ACTIVE. Anything else (e.g. "verbs"): the
 * first CA the access layer lists; main() skips the program (exit 77) when
 * there is none.
 *
 * Both ends of every test are QPs of that CA on port 1 (loopback). The
 * port decides the addressing: a RoCE port (transport RDMA_TRANSPORT_RDMAOE)
 * or one without a LID gets a GRH in every address vector, source and
 * destination GID the port's IPv4-mapped GID (::ffff:a.b.c.d) if it has
 * one, else its GID 0, hop limit 64; any other port gets LID addressing to
 * its own LID. IBAL_DP_FORCE_GRH=1 adds the GRH on any port, so that the
 * RoCE addressing can be run on soft.
 *
 * CQs, QPs and the callback records live in static pools, so a callback
 * never sees a dead stack frame even when a fatal assertion leaves a test
 * early; the next dp_up() (or main's end) closes what was left open.
 * Waits are bounded: completion waits arm the CQ and wait on its wait
 * object or callback count with a deadline; polls of a state or a count
 * pause on a cl_event with a timeout between tries. Never a bare sleep.
 */
#ifndef TESTS_DP_FIXTURE_H
#define TESTS_DP_FIXTURE_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <complib/cl_event.h>
#include <complib/cl_waitobj.h>
#include "cl_test.h"
#include "fab_dir.h"

#define DP_SLOT      4096u                  /* one slot of the registered buffer */
#define DP_SLOTS     64u                    /* slots of the registered buffer */
#define DP_BUF_LEN   (DP_SLOTS * DP_SLOT)
#define DP_AT(n)     (D.buf + (size_t)(n) * DP_SLOT)
#define DP_QKEY      0x0D0A1B2Cu            /* Q_Key of every UD QP (high bit clear) */
#define DP_GRH_LEN   40u                    /* GRH area ahead of a UD receive */
#define DP_MAX_CQS   16
#define DP_MAX_QPS   16
#define DP_MAX_CB    16                     /* callback phases recorded per CQ */
#define DP_WAIT_MS   (TEST_WAIT_US / 1000u) /* "must happen" bound */
#define DP_MR_ACCESS (IB_AC_LOCAL_WRITE | IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC)

/** A CQ and what its callbacks saw (D.lock). */
typedef struct dp_cq {
	ib_cq_handle_t h;
	cl_waitobj_handle_t wo;      /* NULL: notified by dp_on_comp */
	uint32_t size;               /* actual size */
	int n_cb;                    /* completion callbacks */
	int n_bad_cb;                /* callbacks with another CQ's handle */
	int cb_phase[DP_MAX_CB];     /* D.phase at each callback */
	int n_event;                 /* asynchronous events (none is expected) */
	ib_async_event_t last_event;
} dp_cq_t;

/** A QP and its asynchronous events (D.lock). */
typedef struct dp_qp {
	ib_qp_handle_t h;
	ib_qp_type_t type;
	net32_t qpn;
	dp_cq_t *scq, *rcq;
	int n_event;
	int n_bad_event;             /* events with another QP's handle */
	ib_async_event_t last_event;
} dp_qp_t;

/** How dp_connect() brings a connected pair up. */
typedef struct dp_link {
	uint32_t psn_a, psn_b;       /* first PSN of a's and of b's sends */
	uint8_t retry_a, rnr_retry_a; /* a's transport and RNR retry counts */
	uint8_t timeout;             /* local ACK timeout code of both */
	ib_access_t access_b;        /* remote access b grants; 0: D.qp_access (a's) */
} dp_link_t;

static const dp_link_t dp_link_default = { 0x000100u, 0x00A000u, 7, 7, 14, 0 };

/** The fixture. */
typedef struct dp {
	int soft;                    /* private soft fabric */
	int force_grh;               /* IBAL_DP_FORCE_GRH=1 */
	int port_down;               /* port 1 never became ACTIVE: don't wait again */
	ib_net64_t want_guid;        /* nonzero: the CA to use instead of the first listed */
	char fab_dir[64];
	ib_al_handle_t al;
	ib_ca_handle_t ca;
	ib_pd_handle_t pd;
	ib_ca_attr_t *attr;          /* ib_query_ca once port 1 was ACTIVE */
	const ib_port_attr_t *port;  /* attr's port 1 */
	int roce;                    /* port 1 is RoCE */
	int grh;                     /* every AV carries a GRH */
	ib_gid_t gid;                /* the GID the GRHs use */
	uint16_t gid_index;
	int gid_v4;                  /* gid is IPv4-mapped */
	ib_net16_t lid;              /* port 1's LID (0 on RoCE) */
	uint8_t mtu;                 /* path MTU code of connected QPs */
	uint32_t mtu_bytes;
	uint8_t resp_res, init_depth; /* RDMA read/atomic depths of connected QPs */
	ib_access_t qp_access;       /* remote access connected QPs grant */
	uint8_t *buf;                /* DP_BUF_LEN bytes, page aligned */
	ib_mr_handle_t mr;           /* all of buf, DP_MR_ACCESS (less atomics without them) */
	net32_t lkey, rkey;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	cl_event_t pause;            /* never signalled: bounded pauses */
	int phase;                   /* test-defined, recorded by completion callbacks */
	dp_cq_t cq[DP_MAX_CQS];
	int n_cq;
	dp_qp_t qp[DP_MAX_QPS];
	int n_qp;
	int n_srq_event;             /* SRQ events (one SRQ per test at most) */
	int n_srq_bad;               /* ... with a handle or context not the test's */
	ib_async_event_t srq_event;
	ib_srq_handle_t srq;         /* the test's SRQ, for the event check */
} dp_t;

static dp_t D = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };

/* Asserts at the caller's line (helpers report where they were called from). */
#define DP_ASSERT_AT(file, line, cond)                                                  \
	CU_assertImplementation((cond) ? CU_TRUE : CU_FALSE, (unsigned)(line), #cond,   \
				(file), "", CU_FALSE)
#define DP_FAIL_FATAL_AT(file, line, what)                                              \
	CU_assertImplementation(CU_FALSE, (unsigned)(line), what, (file), "", CU_TRUE)

/* ---- Bounded pauses and counters ---- */

/* Pauses about @p ms milliseconds on an event nobody signals. */
static inline void dp_pause_ms(uint32_t ms)
{
	cl_event_wait_on(&D.pause, ms * 1000u, FALSE);
}

static inline int dp_get(const int *p)
{
	int v;

	pthread_mutex_lock(&D.lock);
	v = *p;
	pthread_mutex_unlock(&D.lock);
	return v;
}

static inline void dp_set_phase(int phase)
{
	pthread_mutex_lock(&D.lock);
	D.phase = phase;
	pthread_mutex_unlock(&D.lock);
}

/* Waits until *p reaches @p want or @p ms pass; returns its value. */
static inline int dp_wait_count(const int *p, int want, uint64_t ms)
{
	uint64_t end = test_now_ms() + ms;
	struct timespec ts;
	int v;

	pthread_mutex_lock(&D.lock);
	while (*p < want && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 20 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&D.cond, &D.lock, &ts);
	}
	v = *p;
	pthread_mutex_unlock(&D.lock);
	return v;
}

/* ---- Callbacks ---- */

static inline void AL_API dp_on_comp(const ib_cq_handle_t h_cq, void *context)
{
	dp_cq_t *cq = (dp_cq_t *)context;

	pthread_mutex_lock(&D.lock);
	if (cq->n_cb < DP_MAX_CB)
		cq->cb_phase[cq->n_cb] = D.phase;
	cq->n_cb++;
	if (h_cq != cq->h)
		cq->n_bad_cb++;
	pthread_cond_broadcast(&D.cond);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API dp_on_cq_event(ib_async_event_rec_t *p_rec)
{
	dp_cq_t *cq = (dp_cq_t *)p_rec->context;

	pthread_mutex_lock(&D.lock);
	cq->n_event++;
	cq->last_event = p_rec->code;
	pthread_cond_broadcast(&D.cond);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API dp_on_qp_event(ib_async_event_rec_t *p_rec)
{
	dp_qp_t *qp = (dp_qp_t *)p_rec->context;

	pthread_mutex_lock(&D.lock);
	qp->n_event++;
	qp->last_event = p_rec->code;
	if (p_rec->handle.h_qp != qp->h)
		qp->n_bad_event++;
	pthread_cond_broadcast(&D.cond);
	pthread_mutex_unlock(&D.lock);
}

static inline void AL_API dp_on_srq_event(ib_async_event_rec_t *p_rec)
{
	pthread_mutex_lock(&D.lock);
	D.n_srq_event++;
	D.srq_event = p_rec->code;
	if (p_rec->handle.h_srq != D.srq || p_rec->context != &D.srq)
		D.n_srq_bad++;
	pthread_cond_broadcast(&D.cond);
	pthread_mutex_unlock(&D.lock);
}

/* ---- Data patterns ---- */

static inline uint8_t dp_byte(uint32_t seed, uint32_t i)
{
	return (uint8_t)(seed * 31u + i * 7u + (i >> 8) + 1u);
}

static inline void dp_fill(void *p, uint32_t len, uint32_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		((uint8_t *)p)[i] = dp_byte(seed, i);
}

/* Index of the first byte of @p p that is not the pattern of @p seed from
 * its byte @p from on, or -1. */
static inline long dp_diff_from(const void *p, uint32_t len, uint32_t seed, uint32_t from)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (((const uint8_t *)p)[i] != dp_byte(seed, from + i))
			return (long)i;
	return -1;
}

static inline long dp_diff(const void *p, uint32_t len, uint32_t seed)
{
	return dp_diff_from(p, len, seed, 0);
}

/* Index of the first byte of @p p that is not @p v, or -1. */
static inline long dp_diff_byte(const void *p, uint32_t len, uint8_t v)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (((const uint8_t *)p)[i] != v)
			return (long)i;
	return -1;
}

/* ---- Addressing ---- */

static inline int dp_gid_is_v4(const ib_gid_t *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF };

	return !memcmp(g->raw, prefix, sizeof(prefix));
}

static inline void dp_gid_str(const ib_gid_t *g, char *s, size_t len)
{
	snprintf(s, len, "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 g->raw[0], g->raw[1], g->raw[2], g->raw[3], g->raw[4], g->raw[5], g->raw[6],
		 g->raw[7], g->raw[8], g->raw[9], g->raw[10], g->raw[11], g->raw[12], g->raw[13],
		 g->raw[14], g->raw[15]);
}

/* An address vector from port 1 to itself, with service level @p sl. */
static inline void dp_av_attr(ib_av_attr_t *av, uint8_t sl)
{
	memset(av, 0, sizeof(*av));
	av->port_num = 1;
	av->sl = sl;
	av->dlid = D.lid;
	if (D.grh) {
		av->grh_valid = TRUE;
		av->grh.ver_class_flow = CL_HTON32(0x60000000u);
		av->grh.hop_limit = 64;
		av->grh.src_gid = D.gid;
		av->grh.dest_gid = D.gid;
	}
	av->conn.path_mtu = D.mtu;
	av->conn.local_ack_timeout = dp_link_default.timeout;
	av->conn.seq_err_retry_cnt = 7;
	av->conn.rnr_retry_cnt = 7;
}

static inline ib_av_handle_t dp_av(uint8_t sl)
{
	ib_av_attr_t a;
	ib_av_handle_t h = NULL;

	dp_av_attr(&a, sl);
	CU_ASSERT_EQUAL_FATAL(ib_create_av(D.pd, &a, &h), IB_SUCCESS);
	return h;
}

/* ---- Open and close ---- */

static inline ib_ca_attr_t *dp_query_ca(void)
{
	ib_ca_attr_t *a;
	uint32_t size = 0;

	if (ib_query_ca(D.ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !size)
		return NULL;
	a = (ib_ca_attr_t *)calloc(1, size);
	if (a && ib_query_ca(D.ca, a, &size) != IB_SUCCESS) {
		free(a);
		a = NULL;
	}
	return a;
}

/* Closes what the last dp_up() opened; the status of ib_close_al(). */
static inline ib_api_status_t dp_close(void)
{
	ib_api_status_t st = IB_SUCCESS;
	int i;

	if (D.al)
		st = ib_close_al(D.al);
	D.al = NULL;
	D.ca = NULL;
	D.pd = NULL;
	D.mr = NULL;
	D.srq = NULL;
	for (i = 0; i < D.n_cq; i++)
		if (D.cq[i].wo)
			cl_waitobj_destroy(D.cq[i].wo);
	memset(D.cq, 0, sizeof(D.cq));
	memset(D.qp, 0, sizeof(D.qp));
	D.n_cq = D.n_qp = 0;
	D.n_srq_event = D.n_srq_bad = 0;
	D.phase = 0;
	free(D.attr);
	D.attr = NULL;
	D.port = NULL;
	free(D.buf);
	D.buf = NULL;
	if (D.soft && D.fab_dir[0]) {
		test_rm_tree(D.fab_dir);
		D.fab_dir[0] = '\0';
		unsetenv("IBAL_SOFT_FABRIC");
	}
	return st;
}

/* Reads port 1 and picks the addressing; FALSE if the port is not ACTIVE. */
static inline int dp_read_port(void)
{
	const ib_port_attr_t *p;
	uint16_t i;

	free(D.attr);
	D.attr = dp_query_ca();
	if (!D.attr || D.attr->num_ports < 1 || !D.attr->p_port_attr)
		return 0;
	p = D.port = &D.attr->p_port_attr[0];
	if (p->link_state != IB_LINK_ACTIVE)
		return 0;
	D.roce = p->transport == RDMA_TRANSPORT_RDMAOE;
	D.lid = p->lid;
	D.grh = D.roce || !p->lid || D.force_grh;
	D.gid_index = 0;
	for (i = 0; p->p_gid_table && i < p->num_gids; i++)
		if (dp_gid_is_v4(&p->p_gid_table[i])) {
			D.gid_index = i;
			break;
		}
	if (p->p_gid_table && p->num_gids)
		D.gid = p->p_gid_table[D.gid_index];
	D.gid_v4 = dp_gid_is_v4(&D.gid);
	D.mtu = p->mtu >= IB_MIN_MTU && p->mtu <= IB_MAX_MTU ? p->mtu : IB_MTU_LEN_1024;
	D.mtu_bytes = 128u << D.mtu;
	D.resp_res = D.attr->max_qp_resp_res < 4 ? D.attr->max_qp_resp_res : 4;
	D.init_depth = D.attr->max_qp_init_depth < 4 ? D.attr->max_qp_init_depth : 4;
	return 1;
}

/* Opens the AL, the CA, a PD and the registered buffer, port 1 ACTIVE. */
static inline void dp_up(void)
{
	ib_net64_t guids[16];
	size_t n = 16;
	ib_mr_create_t mc;
	uint64_t end;
	void *p = NULL;

	dp_close();
	if (D.soft) {
		strcpy(D.fab_dir, "/tmp/ibal-dp-XXXXXX");
		CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(D.fab_dir));
		setenv("IBAL_SOFT_FABRIC", D.fab_dir, 1);
	}
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&D.al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(D.al, guids, &n), IB_SUCCESS);
	CU_ASSERT_FATAL(n >= 1);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(D.al, D.want_guid ? D.want_guid : guids[0], NULL, &D,
					 &D.ca),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(D.ca, IB_PDT_NORMAL, &D, &D.pd), IB_SUCCESS);
	/* Soft: the embedded SM brings the port up; verbs: it should be up. */
	end = test_now_ms() + (D.port_down ? 0 : DP_WAIT_MS);
	while (!dp_read_port() && test_now_ms() < end)
		dp_pause_ms(10);
	if (!D.port || D.port->link_state != IB_LINK_ACTIVE) {
		if (!D.port_down)
			fprintf(stderr, "\n  port 1 is not ACTIVE (state %d)\n",
				D.port ? D.port->link_state : -1);
		D.port_down = 1;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(D.port);
	CU_ASSERT_EQUAL_FATAL(D.port->link_state, IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL_FATAL(posix_memalign(&p, 4096, DP_BUF_LEN), 0);
	D.buf = (uint8_t *)p;
	memset(D.buf, 0, DP_BUF_LEN);
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = D.buf;
	mc.length = DP_BUF_LEN;
	mc.access_ctrl = DP_MR_ACCESS;
	D.qp_access = IB_AC_RDMA_READ | IB_AC_RDMA_WRITE | IB_AC_ATOMIC;
	if (D.attr->atomicity == IB_ATOMIC_NONE) {
		mc.access_ctrl &= ~(ib_access_t)IB_AC_ATOMIC;
		D.qp_access &= ~(ib_access_t)IB_AC_ATOMIC;
	}
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(D.pd, &mc, &D.lkey, &D.rkey, &D.mr), IB_SUCCESS);
}

/* Closes everything; no CQ may have reported an event (an overrun). */
static inline void dp_down(void)
{
	int i;

	for (i = 0; i < D.n_cq; i++)
		CU_ASSERT_EQUAL(dp_get(&D.cq[i].n_event), 0);
	CU_ASSERT_EQUAL(dp_close(), IB_SUCCESS);
}

/* Registers @p len bytes at @p p with @p access; the handle, keys out. */
static inline ib_mr_handle_t dp_reg(void *p, uint32_t len, ib_access_t access, net32_t *p_lkey,
				    net32_t *p_rkey)
{
	ib_mr_create_t mc;
	ib_mr_handle_t h = NULL;

	memset(&mc, 0, sizeof(mc));
	mc.vaddr = p;
	mc.length = len;
	mc.access_ctrl = access;
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(D.pd, &mc, p_lkey, p_rkey, &h), IB_SUCCESS);
	return h;
}

/* An L_Key that names no region any more (registered, then deregistered). */
static inline net32_t dp_dead_lkey(void)
{
	net32_t lkey, rkey;
	ib_mr_handle_t h = dp_reg(DP_AT(DP_SLOTS - 1), DP_SLOT, IB_AC_LOCAL_WRITE, &lkey, &rkey);

	CU_ASSERT_EQUAL(ib_dereg_mr(h), IB_SUCCESS);
	return lkey;
}

/* ---- CQs and QPs ---- */

/* A CQ of at least @p size entries, notified through a wait object or dp_on_comp. */
static inline dp_cq_t *dp_cq(uint32_t size, int use_wo)
{
	ib_cq_create_t cc;
	dp_cq_t *cq;

	CU_ASSERT_FATAL(D.n_cq < DP_MAX_CQS);
	cq = &D.cq[D.n_cq++];
	memset(&cc, 0, sizeof(cc));
	cc.size = size;
	if (use_wo) {
		CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &cq->wo), CL_SUCCESS);
		cc.h_wait_obj = cq->wo;
	} else {
		cc.pfn_comp_cb = dp_on_comp;
	}
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(D.ca, &cc, cq, dp_on_cq_event, &cq->h), IB_SUCCESS);
	CU_ASSERT(cc.size >= size);
	cq->size = cc.size;
	return cq;
}

static inline ib_qp_attr_t dp_query(const dp_qp_t *qp)
{
	ib_qp_attr_t a;

	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(ib_query_qp(qp->h, &a), IB_SUCCESS);
	return a;
}

static inline ib_qp_state_t dp_state(const dp_qp_t *qp)
{
	ib_qp_attr_t a;

	memset(&a, 0, sizeof(a));
	if (ib_query_qp(qp->h, &a) != IB_SUCCESS)
		return 0;
	return a.state;
}

/* Polls the QP's state until it is @p s (bounded); the last state read. */
static inline ib_qp_state_t dp_wait_state(const dp_qp_t *qp, ib_qp_state_t s)
{
	uint64_t end = test_now_ms() + DP_WAIT_MS;
	ib_qp_state_t cur;

	while ((cur = dp_state(qp)) != s && test_now_ms() < end)
		dp_pause_ms(2);
	return cur;
}

/*
 * Creates a QP from @p qc (its CQs set from @p scq and @p rcq) into the
 * pool; the status of ib_create_qp(), *pp the QP on success.
 */
static inline ib_api_status_t dp_qp_try(ib_qp_create_t *qc, dp_cq_t *scq, dp_cq_t *rcq,
					dp_qp_t **pp)
{
	ib_api_status_t st;
	ib_qp_attr_t a;
	dp_qp_t *qp;

	*pp = NULL;
	CU_ASSERT_FATAL(D.n_qp < DP_MAX_QPS);
	qp = &D.qp[D.n_qp];
	memset(qp, 0, sizeof(*qp));
	qc->h_sq_cq = scq->h;
	qc->h_rq_cq = rcq->h;
	st = ib_create_qp(D.pd, qc, qp, dp_on_qp_event, &qp->h);
	if (st != IB_SUCCESS)
		return st;
	D.n_qp++;
	qp->type = qc->qp_type;
	qp->scq = scq;
	qp->rcq = rcq;
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(ib_query_qp(qp->h, &a), IB_SUCCESS);
	qp->qpn = a.num;
	*pp = qp;
	return IB_SUCCESS;
}

static inline void dp_qp_create(ib_qp_create_t *qc, ib_qp_type_t type, uint32_t depth)
{
	memset(qc, 0, sizeof(*qc));
	qc->qp_type = type;
	qc->sq_depth = depth;
	qc->rq_depth = depth;
	qc->sq_sge = 4;
	qc->rq_sge = 4;
	qc->sq_signaled = FALSE;
}

/* A QP of @p type, 16 deep each way, 4 SGEs, signaled sends only. */
static inline dp_qp_t *dp_qp(ib_qp_type_t type, dp_cq_t *scq, dp_cq_t *rcq)
{
	ib_qp_create_t qc;
	dp_qp_t *qp;

	dp_qp_create(&qc, type, 16);
	CU_ASSERT_EQUAL_FATAL(dp_qp_try(&qc, scq, rcq, &qp), IB_SUCCESS);
	return qp;
}

static inline ib_api_status_t dp_to_init(const dp_qp_t *qp, ib_access_t access)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.pkey_index = 0;
	if (qp->type == IB_QPT_UNRELIABLE_DGRM)
		m.state.init.qkey = CL_HTON32(DP_QKEY);
	else
		m.state.init.access_ctrl = access;
	return ib_modify_qp(qp->h, &m);
}

static inline ib_api_status_t dp_to_rtr(const dp_qp_t *qp, net32_t dest_qpn, uint32_t rq_psn)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	if (qp->type != IB_QPT_UNRELIABLE_DGRM) {
		m.state.rtr.rq_psn = cl_hton32(rq_psn);
		m.state.rtr.dest_qp = dest_qpn;
		dp_av_attr(&m.state.rtr.primary_av, 0);
	}
	if (qp->type == IB_QPT_RELIABLE_CONN) {
		m.state.rtr.resp_res = D.resp_res;
		m.state.rtr.rnr_nak_timeout = 1; /* 0.01 ms */
	}
	return ib_modify_qp(qp->h, &m);
}

static inline ib_api_status_t dp_to_rts(const dp_qp_t *qp, uint32_t sq_psn, uint8_t retry,
					uint8_t rnr_retry, uint8_t timeout)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = cl_hton32(sq_psn);
	if (qp->type == IB_QPT_RELIABLE_CONN) {
		m.state.rts.retry_cnt = retry;
		m.state.rts.rnr_retry_cnt = rnr_retry;
		m.state.rts.local_ack_timeout = timeout;
		m.state.rts.init_depth = D.init_depth;
	}
	return ib_modify_qp(qp->h, &m);
}

static inline ib_api_status_t dp_to(const dp_qp_t *qp, ib_qp_state_t s)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = s;
	return ib_modify_qp(qp->h, &m);
}

/* A UD QP through INIT, RTR and RTS. */
static inline void dp_ud_up(const dp_qp_t *qp)
{
	CU_ASSERT_EQUAL_FATAL(dp_to_init(qp, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_rtr(qp, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_rts(qp, 0x123, 0, 0, 0), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_state(qp), IB_QPS_RTS);
}

/* Connects @p a and @p b (RC or UC, same type), each checked in RTS. */
static inline void dp_connect(const dp_qp_t *a, const dp_qp_t *b, const dp_link_t *l)
{
	CU_ASSERT_EQUAL_FATAL(dp_to_init(a, D.qp_access), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_init(b, l->access_b ? l->access_b : D.qp_access), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_rtr(a, b->qpn, l->psn_b), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_rtr(b, a->qpn, l->psn_a), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_rts(a, l->psn_a, l->retry_a, l->rnr_retry_a, l->timeout),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(dp_to_rts(b, l->psn_b, 7, 7, l->timeout), IB_SUCCESS);
	CU_ASSERT_EQUAL(dp_state(a), IB_QPS_RTS);
	CU_ASSERT_EQUAL(dp_state(b), IB_QPS_RTS);
}

/* Two connected QPs of @p type with CQs of their own (wait objects). */
static inline void dp_pair(ib_qp_type_t type, const dp_link_t *l, dp_qp_t **pa, dp_qp_t **pb)
{
	dp_cq_t *ca = dp_cq(64, 1), *cb = dp_cq(64, 1);

	*pa = dp_qp(type, ca, ca);
	*pb = dp_qp(type, cb, cb);
	dp_connect(*pa, *pb, l ? l : &dp_link_default);
}

/* ---- Posting ---- */

static inline void dp_sge(ib_local_ds_t *ds, const void *p, uint32_t len)
{
	ds->vaddr = (uintptr_t)p;
	ds->length = len;
	ds->lkey = D.lkey;
}

static inline void dp_wr(ib_send_wr_t *wr, uint64_t wr_id, ib_wr_type_t type, ib_send_opt_t opt,
			 ib_local_ds_t *ds, uint32_t n_ds)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = wr_id;
	wr->wr_type = type;
	wr->send_opt = opt;
	wr->ds_array = ds;
	wr->num_ds = n_ds;
}

/* One signaled send of @p len bytes at @p p (no SGE when len is 0). */
static inline ib_api_status_t dp_send(const dp_qp_t *qp, uint64_t wr_id, const void *p, uint32_t len,
				      ib_send_opt_t opt)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr;

	dp_sge(&ds, p, len);
	dp_wr(&wr, wr_id, WR_SEND, opt | IB_SEND_OPT_SIGNALED, &ds, len ? 1 : 0);
	return ib_post_send(qp->h, &wr, NULL);
}

/* A signaled UD send of @p len bytes at @p p to QP @p qpn through @p av. */
static inline ib_api_status_t dp_ud_send(const dp_qp_t *a, ib_av_handle_t av, net32_t qpn,
					 net32_t qkey, uint64_t wr_id, const void *p,
					 uint32_t len, ib_send_opt_t opt, ib_net32_t imm)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr;

	dp_sge(&ds, p, len);
	dp_wr(&wr, wr_id, WR_SEND, opt | IB_SEND_OPT_SIGNALED, &ds, len ? 1 : 0);
	wr.immediate_data = imm;
	wr.dgrm.ud.h_av = av;
	wr.dgrm.ud.remote_qp = qpn;
	wr.dgrm.ud.remote_qkey = qkey;
	return ib_post_send(a->h, &wr, NULL);
}

/* One signaled RDMA operation between @p local and @p remote (key @p rkey). */
static inline ib_api_status_t dp_rdma(const dp_qp_t *qp, uint64_t wr_id, ib_wr_type_t type,
				      void *local, uint32_t len, const void *remote, net32_t rkey,
				      ib_send_opt_t opt)
{
	ib_local_ds_t ds;
	ib_send_wr_t wr;

	dp_sge(&ds, local, len);
	dp_wr(&wr, wr_id, type, opt | IB_SEND_OPT_SIGNALED, &ds, len ? 1 : 0);
	wr.remote_ops.vaddr = (uintptr_t)remote;
	wr.remote_ops.rkey = rkey;
	return ib_post_send(qp->h, &wr, NULL);
}

static inline ib_api_status_t dp_recv(const dp_qp_t *qp, uint64_t wr_id, void *p, uint32_t len)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	dp_sge(&ds, p, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(qp->h, &wr, NULL);
}

static inline ib_api_status_t dp_srq_recv(ib_srq_handle_t srq, uint64_t wr_id, void *p,
					  uint32_t len)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	dp_sge(&ds, p, len);
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = wr_id;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_srq_recv(srq, &wr, NULL);
}

/* ---- Completions ---- */

/* Polls one completion of @p cq; 1 if there was one. */
static inline int dp_poll_now(const dp_cq_t *cq, ib_wc_t *wc)
{
	ib_wc_t *p_free = wc, *p_done = NULL;

	wc->p_next = NULL;
	return ib_poll_cq(cq->h, &p_free, &p_done) == IB_SUCCESS && p_done == wc;
}

/*
 * One completion of @p cq within @p ms: polls, and when the queue is empty
 * arms it and waits on its wait object (or callback count); 1 if found.
 */
static inline int dp_poll(dp_cq_t *cq, ib_wc_t *wc, uint64_t ms)
{
	uint64_t end = test_now_ms() + ms, now;
	int seen;

	for (;;) {
		if (dp_poll_now(cq, wc))
			return 1;
		now = test_now_ms();
		if (now >= end)
			return 0;
		seen = dp_get(&cq->n_cb);
		if (ib_rearm_cq(cq->h, FALSE) != IB_SUCCESS)
			return 0;
		if (dp_poll_now(cq, wc))
			return 1;
		if (cq->wo)
			cl_waitobj_wait_on(cq->wo, (uint32_t)(end - now) * 1000u, FALSE);
		else
			dp_wait_count(&cq->n_cb, seen + 1, end - now);
	}
}

/* One completion of @p cq within @p ms without arming it (for the tests
 * that count notifications): polls with short pauses; 1 if found. */
static inline int dp_poll_quiet(const dp_cq_t *cq, ib_wc_t *wc, uint64_t ms)
{
	uint64_t end = test_now_ms() + ms;

	for (;;) {
		if (dp_poll_now(cq, wc))
			return 1;
		if (test_now_ms() >= end)
			return 0;
		dp_pause_ms(1);
	}
}

/*
 * Waits until @p cq holds at least @p n completions, reading ib_peek_cq()
 * with pauses (no arming); the count, or -1 when the CA cannot peek
 * (IB_UNSUPPORTED; support is optional, and soft has it).
 */
static inline int dp_wait_cqes(const dp_cq_t *cq, uint32_t n)
{
	uint64_t end = test_now_ms() + DP_WAIT_MS;
	uint32_t got = 0;
	ib_api_status_t st;

	for (;;) {
		st = ib_peek_cq(cq->h, &got);
		if (st == IB_UNSUPPORTED && !D.soft)
			return -1;
		CU_ASSERT_EQUAL(st, IB_SUCCESS);
		if (st != IB_SUCCESS || got >= n || test_now_ms() >= end)
			return (int)got;
		dp_pause_ms(1);
	}
}

static inline const char *dp_wcs(ib_wc_status_t s)
{
	return ib_get_wc_status_str(s);
}

/*
 * Waits for the next completion of @p cq and checks its wr_id and status;
 * on success also its type and length (on error only wr_id and status are
 * defined). No completion at all is fatal to the test.
 */
#define DP_EXPECT(cq, wr_id, status, type, len, p_out)                                  \
	dp_expect(__FILE__, __LINE__, (cq), (wr_id), (status), (type), (len), (p_out))

static inline void dp_expect(const char *file, int line, dp_cq_t *cq, uint64_t wr_id, ib_wc_status_t status,
			     ib_wc_type_t type, uint32_t len, ib_wc_t *p_out)
{
	ib_wc_t wc;
	int ok;

	memset(&wc, 0, sizeof(wc));
	if (!dp_poll(cq, &wc, DP_WAIT_MS)) {
		fprintf(stderr, "\n  line %d: no completion (wr_id %llu, %s expected)\n", line,
			(unsigned long long)wr_id, dp_wcs(status));
		DP_FAIL_FATAL_AT(file, line, "a completion came");
	}
	ok = wc.wr_id == wr_id && wc.status == status &&
	     (status != IB_WCS_SUCCESS || (wc.wc_type == type && wc.length == len));
	if (!ok)
		fprintf(stderr,
			"\n  line %d: completion wr_id %llu %s %s length %u; expected wr_id %llu %s %s "
			"length %u\n",
			line, (unsigned long long)wc.wr_id, dp_wcs(wc.status),
			ib_get_wc_type_str(wc.wc_type), wc.length, (unsigned long long)wr_id,
			dp_wcs(status), ib_get_wc_type_str(type), len);
	DP_ASSERT_AT(file, line, wc.wr_id == wr_id);
	DP_ASSERT_AT(file, line, wc.status == status);
	if (status == IB_WCS_SUCCESS) {
		DP_ASSERT_AT(file, line, wc.wc_type == type);
		DP_ASSERT_AT(file, line, wc.length == len);
	}
	if (p_out)
		*p_out = wc;
}

/* Asserts that @p cq holds no completion now. */
#define DP_EMPTY(cq) dp_empty(__FILE__, __LINE__, (cq))

static inline void dp_empty(const char *file, int line, const dp_cq_t *cq)
{
	ib_wc_t wc;

	memset(&wc, 0, sizeof(wc));
	if (dp_poll_now(cq, &wc)) {
		fprintf(stderr, "\n  line %d: unexpected completion wr_id %llu %s %s\n", line,
			(unsigned long long)wc.wr_id, dp_wcs(wc.status),
			ib_get_wc_type_str(wc.wc_type));
		CU_assertImplementation(CU_FALSE, (unsigned)line, "the CQ is empty", file, "",
					CU_FALSE);
	}
}

/* The receive buffer of a UD receive: the GRH area and 256 bytes. */
#define UD_LEN (DP_GRH_LEN + 256u)

/* A pair like dp_pair() but with separate send and receive CQs for @p a. */
static inline void pair_split(ib_qp_type_t type, const dp_link_t *l, dp_qp_t **pa, dp_qp_t **pb)
{
	dp_cq_t *as = dp_cq(64, 1), *ar = dp_cq(64, 1), *cb = dp_cq(64, 1);

	*pa = dp_qp(type, as, ar);
	*pb = dp_qp(type, cb, cb);
	dp_connect(*pa, *pb, l ? l : &dp_link_default);
}

/*
 * The main program of a data-path suite: soft unless the environment names
 * other providers; without a CA from those, the program is skipped (77,
 * automake's SKIP).
 */
static inline int dp_main(const char *suite, const test_entry_t *tests, size_t n_tests)
{
	const char *prov = getenv("IBAL_PROVIDERS");
	const char *grh = getenv("IBAL_DP_FORCE_GRH");
	ib_al_handle_t h_al = NULL;
	size_t n = 0;
	int rc;

	D.soft = !prov || !*prov || !strcmp(prov, "soft");
	D.force_grh = grh && !strcmp(grh, "1");
	cl_event_construct(&D.pause);
	if (cl_event_init(&D.pause, FALSE) != CL_SUCCESS)
		return 2;
	if (D.soft) {
		setenv("IBAL_PROVIDERS", "soft", 1);
		setenv("IBAL_SOFT_CAS", "1", 1);
		unsetenv("IBAL_SOFT_PORTS");
	} else {
		if (ib_open_al(&h_al) == IB_SUCCESS) {
			ib_get_ca_guids(h_al, NULL, &n);
			ib_close_al(h_al);
		}
		if (!n) {
			printf("test_%s: SKIP: no CA from IBAL_PROVIDERS=%s\n", suite, prov);
			cl_event_destroy(&D.pause);
			return 77;
		}
	}
	rc = test_run_suite(suite, tests, n_tests);
	dp_close();
	cl_event_destroy(&D.pause);
	return rc;
}

#endif /* TESTS_DP_FIXTURE_H */
