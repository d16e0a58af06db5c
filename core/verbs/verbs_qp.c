/*
 * ibal verbs provider: libibverbs QPs and SRQs, and the data path (post send/receive).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * RC, UC and UD QPs are libibverbs QPs; QP0/QP1 stay on umad (verbs_mad.c),
 * and the query/modify/destroy/post slots dispatch on which kind a QP is.
 *
 * Modify: the transition is first checked against the IBA's table of
 * states and attributes (prov_qp_modify_check(), shared with the soft
 * provider, so both providers give the same statuses for the same mistake),
 * then made with ibv_modify_qp(); the QP keeps the attributes it was given
 * (prov_qp_attr_t) for ib_query_qp, whose state comes from the hardware. A
 * RoCE path has no LIDs: its AV needs a GRH (the source GID picks the GID
 * index).
 *
 * Posts translate each chain in one pass, in batches of VERBS_POST_BATCH
 * work requests into an array on the stack (no allocation), and post each
 * batch with one ibv_post_* call; a lone request (the common case) is
 * translated on a small frame of its own. The data segments are not copied
 * (an ib_local_ds_t is an ibv_sge and the L_Keys are libibverbs' own,
 * prov_verbs_xlate.h), R_Keys go to host order. The failing work request
 * libibverbs names is mapped back to the caller's. The QP state decides
 * first, as on the soft HCA: sends need RTS, SQD, SQE or ERROR; receives
 * anything but RESET.
 */
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include "verbs_prov.h"
#include "prov_verbs_xlate.h"

#ifdef HAVE_VERBS_PROV

#define VERBS_POST_BATCH 16   /* work requests per ibv_post_* call */
#define VERBS_POST_SGES  256  /* SGEs per work request, at most */

/* ---- QP ---- */

static uint32_t clamp_u32(uint32_t v, uint32_t hi)
{
	return v > hi ? hi : v;
}

/* The work request types a QP of type @p t may post (bit per ib_wr_type_t):
 * UD sends only, UC sends and RDMA writes, RC also reads and, when the CA
 * has them, atomics; anything else is IB_INVALID_WR_TYPE at post time. */
static uint32_t wr_types(ib_qp_type_t t, ib_atomic_t atomicity)
{
	uint32_t m = 1u << WR_SEND;

	if (t == IB_QPT_UNRELIABLE_CONN || t == IB_QPT_RELIABLE_CONN)
		m |= 1u << WR_RDMA_WRITE;
	if (t == IB_QPT_RELIABLE_CONN) {
		m |= 1u << WR_RDMA_READ;
		if (atomicity != IB_ATOMIC_NONE)
			m |= (1u << WR_COMPARE_SWAP) | (1u << WR_FETCH_ADD);
	}
	return m;
}

/*
 * The largest inline size below @p refused that the device accepts with
 * the other capabilities of @p ia (libibverbs has no attribute for it, so
 * it is searched for: an error path only).
 */
static uint32_t max_inline(verbs_pd_t *pd, struct ibv_qp_init_attr *ia, uint32_t refused)
{
	uint32_t lo = 0, hi = refused;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		struct ibv_qp_init_attr t = *ia;
		struct ibv_qp *q;

		t.cap.max_inline_data = mid;
		q = ibv_create_qp(pd->ibv, &t);
		if (q) {
			ibv_destroy_qp(q);
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return lo;
}

ib_api_status_t verbs_create_qp(void *h_pd, ib_qp_create_t *c, void *send_cq, void *recv_cq,
				void *h_srq, void *al_qp, void **pp_qp)
{
	verbs_pd_t *pd = h_pd;
	verbs_ca_t *ca = pd->ca;
	struct ibv_qp_init_attr ia;
	enum ibv_qp_type t;
	verbs_qp_t *qp;

	if (!c || !pp_qp || !send_cq || !recv_cq)
		return IB_INVALID_PARAMETER;
	if (!pd->ibv)
		return IB_UNSUPPORTED; /* a MAD-only CA */
	t = verbs_qp_type(c->qp_type);
	if (!t)
		return IB_UNSUPPORTED;
	if (c->sq_depth > ca->attr->max_wrs || (!h_srq && c->rq_depth > ca->attr->max_wrs))
		return IB_INVALID_MAX_WRS;
	if (c->sq_sge > clamp_u32(ca->attr->max_sges, VERBS_POST_SGES) ||
	    (!h_srq && c->rq_sge > clamp_u32(ca->attr->max_sges, VERBS_POST_SGES)))
		return IB_INVALID_MAX_SGE;
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return IB_INSUFFICIENT_MEMORY;
	memset(&ia, 0, sizeof(ia));
	ia.qp_context = qp;
	ia.send_cq = ((verbs_cq_t *)send_cq)->ibv;
	ia.recv_cq = ((verbs_cq_t *)recv_cq)->ibv;
	ia.srq = h_srq ? ((verbs_srq_t *)h_srq)->ibv : NULL;
	ia.cap.max_send_wr = c->sq_depth;
	ia.cap.max_recv_wr = h_srq ? 0 : c->rq_depth;
	ia.cap.max_send_sge = c->sq_sge;
	ia.cap.max_recv_sge = h_srq ? 0 : c->rq_sge;
	ia.cap.max_inline_data = c->sq_max_inline;
	ia.qp_type = t;
	ia.sq_sig_all = c->sq_signaled ? 1 : 0;
	qp->ibv = ibv_create_qp(pd->ibv, &ia);
	if (!qp->ibv) {
		ib_api_status_t st = verbs_errno_status(errno);

		free(qp);
		if (st == IB_INVALID_PARAMETER && c->sq_max_inline)
			c->sq_max_inline = max_inline(pd, &ia, c->sq_max_inline);
		return st == IB_INVALID_PARAMETER ? IB_INVALID_SETTING : st;
	}
	pthread_mutex_init(&qp->lock, NULL);
	pthread_mutex_init(&qp->tx_lock, NULL);
	qp->pd = pd;
	qp->al_qp = al_qp;
	qp->type = c->qp_type;
	qp->scq = send_cq;
	qp->rcq = recv_cq;
	qp->srq = h_srq;
	qp->sq_signaled = c->sq_signaled;
	qp->wr_types = wr_types(qp->type, ca->attr->atomicity);
	qp->max_sge = clamp_u32(ia.cap.max_send_sge, VERBS_POST_SGES);
	qp->sq_depth = c->sq_depth = ia.cap.max_send_wr;
	qp->sq_sge = c->sq_sge = ia.cap.max_send_sge;
	if (!h_srq) {
		qp->rq_depth = c->rq_depth = ia.cap.max_recv_wr;
		qp->rq_sge = c->rq_sge = ia.cap.max_recv_sge;
	}
	c->sq_max_inline = qp->max_inline = ia.cap.max_inline_data;
	prov_qp_attr_init(&qp->attr, qp->type, 0);
	*pp_qp = qp;
	return IB_SUCCESS;
}

/*
 * The state the hardware has the QP in. Errors move it on its own, but only
 * out of RTR, RTS, SQD and SQE (to ERROR, to SQE, SQD's drained sub-state):
 * a QP in RESET or INIT stays there until its consumer moves it, so those
 * are not asked of the device (a connection's first two modifies each made
 * one more system call for it).
 */
static ib_qp_state_t hw_state(verbs_qp_t *qp)
{
	struct ibv_qp_attr a;
	struct ibv_qp_init_attr ia;

	if (qp->attr.state == IB_QPS_RESET || qp->attr.state == IB_QPS_INIT)
		return qp->attr.state;
	if (ibv_query_qp(qp->ibv, &a, IBV_QP_STATE, &ia))
		return qp->attr.state;
	return verbs_qp_state_ib(a.qp_state);
}

static ib_api_status_t ibv_modify(verbs_qp_t *qp, const ib_qp_mod_t *m)
{
	verbs_ca_t *ca = qp->pd->ca;
	struct ibv_qp_attr a;
	ib_qp_state_t cur;
	ib_api_status_t st;
	const ib_av_attr_t *pri = NULL, *alt = NULL;
	int mask, rc;

	pthread_mutex_lock(&qp->lock);
	cur = hw_state(qp);
	if (cur != qp->attr.state && !(cur == IB_QPS_SQD && (qp->attr.state & IB_QPS_SQD)))
		qp->attr.state = cur;
	pthread_mutex_lock(&ca->lock);
	st = prov_qp_modify_check(qp->type, qp->attr.state, m, &qp->attr, ca->attr, NULL);
	pthread_mutex_unlock(&ca->lock);
	if (st != IB_SUCCESS) {
		pthread_mutex_unlock(&qp->lock);
		return st;
	}
	if (m->req_state == IB_QPS_RTR) {
		pri = &m->state.rtr.primary_av;
		alt = &m->state.rtr.alternate_av;
	} else if (m->req_state == IB_QPS_RTS) {
		alt = &m->state.rts.alternate_av;
	}
	mask = verbs_qp_mod(m, qp->type, qp->attr.state, pri ? verbs_sgid_index(ca, pri) : 0,
			    alt ? verbs_sgid_index(ca, alt) : 0, &a);
	if (!mask) {
		pthread_mutex_unlock(&qp->lock);
		return IB_INVALID_SETTING;
	}
	rc = ibv_modify_qp(qp->ibv, &a, mask);
	if (rc) {
		pthread_mutex_unlock(&qp->lock);
		st = verbs_errno_status(rc);
		return st == IB_INVALID_PARAMETER ? IB_INVALID_SETTING : st;
	}
	st = prov_qp_apply_mod(qp->type, &qp->attr, m, NULL);
	pthread_mutex_unlock(&qp->lock);
	return st;
}

static ib_api_status_t ibv_query(verbs_qp_t *qp, ib_qp_attr_t *a)
{
	verbs_ca_t *ca = qp->pd->ca;
	ib_qp_state_t cur;

	if (!a)
		return IB_INVALID_PARAMETER;
	memset(a, 0, sizeof(*a));
	pthread_mutex_lock(&qp->lock);
	cur = hw_state(qp);
	if (cur != qp->attr.state && !(cur == IB_QPS_SQD && (qp->attr.state & IB_QPS_SQD)))
		qp->attr.state = cur;
	prov_qp_attr_to_ib(&qp->attr, a);
	pthread_mutex_unlock(&qp->lock);
	(void)ca;
	a->qp_type = qp->type;
	a->sq_depth = qp->sq_depth;
	a->rq_depth = qp->rq_depth;
	a->sq_sge = qp->sq_sge;
	a->rq_sge = qp->rq_sge;
	a->sq_signaled = qp->sq_signaled;
	a->sq_max_inline = qp->max_inline;
	a->num = cl_hton32(qp->ibv->qp_num);
	return IB_SUCCESS;
}

static void ibv_destroy(verbs_qp_t *qp)
{
	ibv_destroy_qp(qp->ibv); /* waits until the worker acknowledged its events */
	pthread_mutex_destroy(&qp->lock);
	pthread_mutex_destroy(&qp->tx_lock);
	free(qp);
}

ib_api_status_t verbs_query_qp(void *h, ib_qp_attr_t *p_attr)
{
	verbs_qp_t *qp = h;

	return qp->ibv ? ibv_query(qp, p_attr) : verbs_spl_query_qp(qp, p_attr);
}

ib_api_status_t verbs_modify_qp(void *h, const ib_qp_mod_t *p_mod)
{
	verbs_qp_t *qp = h;

	if (!p_mod)
		return IB_INVALID_PARAMETER;
	return qp->ibv ? ibv_modify(qp, p_mod) : verbs_spl_modify_qp(qp, p_mod);
}

void verbs_destroy_qp(void *h)
{
	verbs_qp_t *qp = h;

	if (qp->ibv)
		ibv_destroy(qp);
	else
		verbs_spl_destroy_qp(qp);
}

ib_api_status_t verbs_attach_mcast(void *h, const ib_gid_t *p_mgid, ib_net16_t mlid)
{
	verbs_qp_t *qp = h;
	union ibv_gid g;
	int rc;

	if (!p_mgid)
		return IB_INVALID_PARAMETER;
	if (!qp->ibv || qp->type != IB_QPT_UNRELIABLE_DGRM)
		return IB_INVALID_QP_HANDLE;
	memcpy(g.raw, p_mgid->raw, 16);
	rc = ibv_attach_mcast(qp->ibv, &g, cl_ntoh16(mlid));
	return rc ? verbs_errno_status(rc) : IB_SUCCESS;
}

ib_api_status_t verbs_detach_mcast(void *h, const ib_gid_t *p_mgid, ib_net16_t mlid)
{
	verbs_qp_t *qp = h;
	union ibv_gid g;
	int rc;

	if (!p_mgid)
		return IB_INVALID_PARAMETER;
	if (!qp->ibv)
		return IB_INVALID_QP_HANDLE;
	memcpy(g.raw, p_mgid->raw, 16);
	rc = ibv_detach_mcast(qp->ibv, &g, cl_ntoh16(mlid));
	return rc ? verbs_errno_status(rc) : IB_SUCCESS;
}

/* ---- SRQ ---- */

ib_api_status_t verbs_create_srq(void *h_pd, const ib_srq_attr_t *p_attr, void *al_srq,
				 void **pp_srq)
{
	verbs_pd_t *pd = h_pd;
	struct ibv_srq_init_attr ia;
	verbs_srq_t *srq;

	if (!p_attr || !pp_srq)
		return IB_INVALID_PARAMETER;
	if (!pd->ibv)
		return IB_UNSUPPORTED;
	if (!p_attr->max_wr || p_attr->max_wr > pd->ca->attr->max_srq_wrs)
		return IB_INVALID_MAX_WRS;
	if (!p_attr->max_sge || p_attr->max_sge > clamp_u32(pd->ca->attr->max_srq_sges,
							     VERBS_POST_SGES))
		return IB_INVALID_MAX_SGE;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return IB_INSUFFICIENT_MEMORY;
	memset(&ia, 0, sizeof(ia));
	ia.srq_context = srq;
	ia.attr.max_wr = p_attr->max_wr;
	ia.attr.max_sge = p_attr->max_sge;
	ia.attr.srq_limit = p_attr->srq_limit;
	srq->ibv = ibv_create_srq(pd->ibv, &ia);
	if (!srq->ibv) {
		ib_api_status_t st = verbs_errno_status(errno);

		free(srq);
		return st == IB_INVALID_PARAMETER ? IB_INVALID_SETTING : st;
	}
	srq->pd = pd;
	srq->al_srq = al_srq;
	srq->max_sge = ia.attr.max_sge;
	*pp_srq = srq;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_srq(void *h, ib_srq_attr_t *p_attr)
{
	verbs_srq_t *srq = h;
	struct ibv_srq_attr a;
	int rc;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	rc = ibv_query_srq(srq->ibv, &a);
	if (rc)
		return verbs_errno_status(rc);
	p_attr->max_wr = a.max_wr;
	p_attr->max_sge = a.max_sge;
	p_attr->srq_limit = a.srq_limit;
	return IB_SUCCESS;
}

ib_api_status_t verbs_modify_srq(void *h, const ib_srq_attr_t *p_attr, ib_srq_attr_mask_t mask)
{
	verbs_srq_t *srq = h;
	struct ibv_srq_attr a;
	int m = 0, rc;

	if (!p_attr)
		return IB_INVALID_PARAMETER;
	memset(&a, 0, sizeof(a));
	if (mask & IB_SRQ_MAX_WR) {
		a.max_wr = p_attr->max_wr;
		m |= IBV_SRQ_MAX_WR;
	}
	if (mask & IB_SRQ_LIMIT) {
		a.srq_limit = p_attr->srq_limit;
		m |= IBV_SRQ_LIMIT;
	}
	rc = ibv_modify_srq(srq->ibv, &a, m);
	if (rc == EINVAL || rc == EOPNOTSUPP)
		return (mask & IB_SRQ_MAX_WR) && rc == EOPNOTSUPP ? IB_UNSUPPORTED : IB_INVALID_SETTING;
	return rc ? verbs_errno_status(rc) : IB_SUCCESS;
}

void verbs_destroy_srq(void *h)
{
	verbs_srq_t *srq = h;

	ibv_destroy_srq(srq->ibv);
	free(srq);
}

/* ---- data path ---- */

/* Whether a send may be posted in state @p s (soft_qp.c's rules). */
static inline int send_state_ok(ib_qp_state_t s)
{
	return s == IB_QPS_RTS || (s & IB_QPS_SQD) == IB_QPS_SQD || s == IB_QPS_SQERR ||
	       s == IB_QPS_ERROR;
}

static inline uint32_t inline_len(const ib_send_wr_t *wr)
{
	uint32_t i, len = 0;

	for (i = 0; i < wr->num_ds; i++)
		len += wr->ds_array[i].length;
	return len;
}

/* The status of a refused post; libibverbs says ENOMEM for a full queue. */
static inline ib_api_status_t post_status(int rc)
{
	if (rc == ENOMEM)
		return IB_INSUFFICIENT_RESOURCES;
	return verbs_errno_status(rc);
}

/* The caller's request at index @p i of the batch that starts at @p first. */
static ib_send_wr_t *send_nth(ib_send_wr_t *first, long i)
{
	for (; i > 0; i--)
		first = first->p_next;
	return first;
}

static ib_recv_wr_t *recv_nth(ib_recv_wr_t *first, long i)
{
	for (; i > 0; i--)
		first = first->p_next;
	return first;
}

/*
 * Checks one send request of a QP in a state that may send and translates
 * it into @p v (not its next; its ds_array is libibverbs' sg_list as it
 * is). A UD request's AV is held from here until the caller has posted
 * it and calls al_prov_put(); a request that fails its checks holds none.
 */
static inline __attribute__((always_inline)) ib_api_status_t
send_wr_take(const verbs_qp_t *qp, boolean_t ud, const ib_send_wr_t *wr, struct ibv_send_wr *v)
{
	if (wr->num_ds > qp->max_sge)
		return IB_INVALID_MAX_SGE;
	if ((unsigned)wr->wr_type >= 32 || !(qp->wr_types & (1u << wr->wr_type)))
		return IB_INVALID_WR_TYPE;
	if ((wr->send_opt & IB_SEND_OPT_INLINE) && inline_len(wr) > qp->max_inline)
		return IB_INVALID_PARAMETER;
	/* never -1: wr_types has only what libibverbs posts */
	verbs_send_wr_op(wr, verbs_wr_opcode(wr), v);
	if (ud) {
		verbs_av_t *av = al_prov_av(wr->dgrm.ud.h_av);

		if (!av)
			return IB_INVALID_AV_HANDLE;
		v->wr.ud.ah = __atomic_load_n(&av->ah, __ATOMIC_ACQUIRE);
		v->wr.ud.remote_qpn = cl_ntoh32(wr->dgrm.ud.remote_qp);
		v->wr.ud.remote_qkey = cl_ntoh32(wr->dgrm.ud.remote_qkey);
		/* IBA 10.2.5: a Q_Key with the high bit set means the QP's own */
		if (v->wr.ud.remote_qkey & 0x80000000u)
			v->wr.ud.remote_qkey = qp->attr.qkey;
	}
	return IB_SUCCESS;
}

/*
 * A chain of more than one request, in one pass: each request is checked
 * and translated into the batch; a batch is posted when full, at the end,
 * or before a request that fails its checks (the requests before it were
 * accepted). The AVs of a UD batch are let go after its post. There is one
 * ibv_post_send call site, in the loop (no helper call per batch). Out of
 * line, so that the one-request post (verbs_post_send) keeps a small frame.
 */
static __attribute__((noinline)) ib_api_status_t dp_post_send(verbs_qp_t *qp, ib_send_wr_t *p_wr,
							       ib_send_wr_t **pp_failure)
{
	struct ibv_send_wr v[VERBS_POST_BATCH], *bad;
	const boolean_t ud = qp->type == IB_QPT_UNRELIABLE_DGRM;
	ib_send_wr_t *first, *w;
	ib_api_status_t st = IB_SUCCESS;
	int n, rc, i;

	for (;;) {
		first = p_wr;
		for (n = 0; p_wr && n < VERBS_POST_BATCH; p_wr = p_wr->p_next, n++) {
			st = send_wr_take(qp, ud, p_wr, &v[n]);
			if (st != IB_SUCCESS)
				break;
			v[n].next = &v[n + 1]; /* the last one's is set to NULL below */
		}
		if (n) {
			bad = NULL;
			v[n - 1].next = NULL;
			rc = ibv_post_send(qp->ibv, v, &bad);
			if (ud)
				for (i = 0, w = first; i < n; i++, w = w->p_next)
					al_prov_put(w->dgrm.ud.h_av);
			if (__builtin_expect(rc != 0, 0)) {
				if (pp_failure)
					*pp_failure = send_nth(first, bad ? bad - v : 0);
				return post_status(rc);
			}
		}
		if (__builtin_expect(st != IB_SUCCESS, 0)) {
			if (pp_failure)
				*pp_failure = p_wr;
			return st;
		}
		if (!p_wr)
			return IB_SUCCESS;
	}
}

/* Checks one receive request and translates it into @p v (not its next). */
static inline __attribute__((always_inline)) ib_api_status_t
recv_wr_take(uint32_t max_sge, const ib_recv_wr_t *wr, struct ibv_recv_wr *v)
{
	if (wr->num_ds > max_sge)
		return IB_INVALID_MAX_SGE;
	v->wr_id = wr->wr_id;
	v->sg_list = verbs_sge_list(wr->ds_array);
	v->num_sge = (int)wr->num_ds;
	return IB_SUCCESS;
}

/* As dp_post_send, for a QP's receive queue or an SRQ. */
static __attribute__((noinline)) ib_api_status_t dp_post_recv(verbs_qp_t *qp, verbs_srq_t *srq,
							       uint32_t max_sge, ib_recv_wr_t *p_wr,
							       ib_recv_wr_t **pp_failure)
{
	struct ibv_recv_wr v[VERBS_POST_BATCH], *bad;
	ib_recv_wr_t *first;
	ib_api_status_t st = IB_SUCCESS;
	int n, rc;

	for (;;) {
		first = p_wr;
		for (n = 0; p_wr && n < VERBS_POST_BATCH; p_wr = p_wr->p_next, n++) {
			st = recv_wr_take(max_sge, p_wr, &v[n]);
			if (st != IB_SUCCESS)
				break;
			v[n].next = &v[n + 1]; /* the last one's is set to NULL below */
		}
		if (n) {
			bad = NULL;
			v[n - 1].next = NULL;
			rc = srq ? ibv_post_srq_recv(srq->ibv, v, &bad) : ibv_post_recv(qp->ibv, v, &bad);
			if (__builtin_expect(rc != 0, 0)) {
				if (pp_failure)
					*pp_failure = recv_nth(first, bad ? bad - v : 0);
				return post_status(rc);
			}
		}
		if (__builtin_expect(st != IB_SUCCESS, 0)) {
			if (pp_failure)
				*pp_failure = p_wr;
			return st;
		}
		if (!p_wr)
			return IB_SUCCESS;
	}
}

/* One receive request with no next, to @p qp's receive queue or to @p srq. */
static inline __attribute__((always_inline)) ib_api_status_t
post_recv_one(struct ibv_qp *qp, struct ibv_srq *srq, uint32_t max_sge, ib_recv_wr_t *p_wr,
	      ib_recv_wr_t **pp_failure)
{
	struct ibv_recv_wr v, *bad;
	ib_api_status_t st;
	int rc;

	st = recv_wr_take(max_sge, p_wr, &v);
	if (__builtin_expect(st == IB_SUCCESS, 1)) {
		v.next = NULL;
		rc = srq ? ibv_post_srq_recv(srq, &v, &bad) : ibv_post_recv(qp, &v, &bad);
		if (__builtin_expect(rc == 0, 1))
			return IB_SUCCESS;
		st = post_status(rc);
	}
	if (pp_failure)
		*pp_failure = p_wr;
	return st;
}

/*
 * Sends and receives one request at a time (a ping-pong's every post) skip
 * the batch: one translated request on a small frame, one ibv_post_* call.
 * A refused request is the caller's, whatever libibverbs says of @p bad.
 */
ib_api_status_t verbs_post_send(void *h, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure)
{
	verbs_qp_t *qp = h;
	struct ibv_send_wr v, *bad;
	ib_api_status_t st;
	boolean_t ud;
	int rc;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	if (!qp->ibv)
		return verbs_spl_post_send(qp, p_wr, pp_failure);
	if (!send_state_ok(__atomic_load_n(&qp->attr.state, __ATOMIC_RELAXED))) {
		st = IB_INVALID_QP_STATE;
		goto refused;
	}
	if (p_wr->p_next)
		return dp_post_send(qp, p_wr, pp_failure);
	ud = qp->type == IB_QPT_UNRELIABLE_DGRM;
	st = send_wr_take(qp, ud, p_wr, &v);
	if (__builtin_expect(st != IB_SUCCESS, 0))
		goto refused;
	v.next = NULL;
	rc = ibv_post_send(qp->ibv, &v, &bad);
	if (ud)
		al_prov_put(p_wr->dgrm.ud.h_av);
	if (__builtin_expect(rc == 0, 1))
		return IB_SUCCESS;
	st = post_status(rc);
refused:
	if (pp_failure)
		*pp_failure = p_wr;
	return st;
}

ib_api_status_t verbs_post_recv(void *h, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure)
{
	verbs_qp_t *qp = h;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	if (!qp->ibv)
		return verbs_spl_post_recv(qp, p_wr, pp_failure);
	if (qp->srq || __atomic_load_n(&qp->attr.state, __ATOMIC_RELAXED) == IB_QPS_RESET) {
		if (pp_failure)
			*pp_failure = p_wr;
		return qp->srq ? IB_INVALID_PARAMETER : IB_INVALID_QP_STATE;
	}
	if (p_wr->p_next)
		return dp_post_recv(qp, NULL, qp->rq_sge, p_wr, pp_failure);
	return post_recv_one(qp->ibv, NULL, qp->rq_sge, p_wr, pp_failure);
}

ib_api_status_t verbs_post_srq_recv(void *h, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure)
{
	verbs_srq_t *srq = h;

	if (!p_wr)
		return IB_INVALID_PARAMETER;
	if (p_wr->p_next)
		return dp_post_recv(NULL, srq, srq->max_sge, p_wr, pp_failure);
	return post_recv_one(NULL, srq->ibv, srq->max_sge, p_wr, pp_failure);
}

#else /* !HAVE_VERBS_PROV */
typedef int verbs_qp_unused_t;
#endif /* HAVE_VERBS_PROV */
