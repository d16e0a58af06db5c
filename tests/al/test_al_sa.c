/*
 * ibal tests: the SA client (queries, service registration, multicast, subscriptions) against a fake SA.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The SA client sends through replaceable MAD calls (al_sa_set_mad_ops()).
 * This program puts a small fake MAD layer there: a thread that completes
 * sends, retries and times them out, cancels them, and hands each request
 * to a fake SA that answers PathRecord, ServiceRecord, MCMemberRecord,
 * InformInfo, ClassPortInfo and the other records, drops requests or
 * answers with an error status on demand, and injects Report()s. So
 * timeouts, retries and cancellation are deterministic and need no MAD
 * services or SM. Every test runs on a soft fabric of its own with two
 * CAs; waits are bounded, never sleeps.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "al_sa_client.h"

/* ---- The fake MAD layer ---- */

typedef struct act {
	struct act *next;
	ib_mad_element_t *e;
	int kind;                    /* 0 send done, 1 receive */
	ib_wc_status_t wcs;
	uint64_t deadline;           /* pending sends */
	uint32_t tries;
} act_t;

#define FAKE_SVC ((ib_mad_svc_handle_t)(uintptr_t)0x5A5A)
#define FAKE_QP ((ib_qp_handle_t)(uintptr_t)0xA5A5)

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thr;
	int stop;
	ib_al_handle_t h_al;         /* owns the pool */
	ib_pool_handle_t pool;
	ib_pool_key_t key;
	ib_mad_svc_t svc;
	int have_svc;
	int delivering;
	act_t *queue, *queue_tail;   /* deliveries */
	act_t *pending;              /* sends waiting for an answer */
	/* The fake SA. */
	int drop;                    /* drop the next N requests */
	int mute;                    /* drop every request */
	ib_net16_t err_status;       /* answer with this status */
	int n_req;                   /* requests seen, retries included */
	int n_spl_qp;                /* get_spl_qp calls */
	int n_report_resp;           /* ReportResp() sent by the client */
	ib_sa_mad_t last;            /* the last request */
	ib_sa_mad_t last_resp;       /* the last ReportResp() */
	ib_sa_mad_t methods[64];     /* every request, in order */
	ib_service_record_t svcs[8];
	int n_svcs;
	uint32_t n_paths;            /* records a PathRecord GetTable returns */
} F;

static uint64_t now_ms(void)
{
	return test_now_ms();
}

static void q_push(act_t *a)
{
	a->next = NULL;
	if (F.queue_tail)
		F.queue_tail->next = a;
	else
		F.queue = a;
	F.queue_tail = a;
	pthread_cond_broadcast(&F.cond);
}

static void q_done(ib_mad_element_t *e, ib_wc_status_t wcs)
{
	act_t *a = (act_t *)calloc(1, sizeof(*a));

	a->e = e;
	a->kind = 0;
	a->wcs = wcs;
	q_push(a);
}

static void q_recv(ib_mad_element_t *e)
{
	act_t *a = (act_t *)calloc(1, sizeof(*a));

	a->e = e;
	a->kind = 1;
	q_push(a);
}

static ib_mad_element_t *get_mad(uint32_t size)
{
	ib_mad_element_t *e = NULL;

	CU_ASSERT_EQUAL(ib_get_mad(F.key, size, &e), IB_SUCCESS);
	if (e)
		e->size = size;
	return e;
}

static int svc_match(const ib_sa_mad_t *rq, const ib_service_record_t *r)
{
	const ib_service_record_t *t = (const ib_service_record_t *)(const void *)rq->data;

	if ((rq->comp_mask & IB_SR_COMPMASK_SID) && t->service_id != r->service_id)
		return 0;
	if ((rq->comp_mask & IB_SR_COMPMASK_SNAME) &&
	    memcmp(t->service_name, r->service_name, sizeof(ib_svc_name_t)))
		return 0;
	return 1;
}

/* The fake SA: the response to a request, or NULL to drop it. Lock held. */
static ib_mad_element_t *sa_answer(const ib_mad_element_t *req)
{
	const ib_sa_mad_t *rq = (const ib_sa_mad_t *)req->p_mad_buf;
	uint32_t rec = ib_get_attr_size(rq->attr_offset), n = 1, i;
	ib_mad_element_t *e;
	ib_sa_mad_t *rs;

	F.last = *rq;
	if (F.n_req < 64)
		F.methods[F.n_req] = *rq;
	F.n_req++;
	if (F.mute)
		return NULL;
	if (F.drop) {
		F.drop--;
		return NULL;
	}
	if (rq->method == IB_MAD_METHOD_GETTABLE) {
		if (rq->attr_id == IB_MAD_ATTR_PATH_RECORD)
			n = F.n_paths;
		else if (rq->attr_id == IB_MAD_ATTR_SERVICE_RECORD)
			for (n = 0, i = 0; i < (uint32_t)F.n_svcs; i++)
				n += (uint32_t)svc_match(rq, &F.svcs[i]);
	}
	if (F.err_status)
		n = 0;
	e = get_mad(MAD_BLOCK_SIZE > IB_SA_MAD_HDR_SIZE + n * rec ? MAD_BLOCK_SIZE
								  : (uint32_t)IB_SA_MAD_HDR_SIZE + n * rec);
	if (!e)
		return NULL;
	rs = (ib_sa_mad_t *)e->p_mad_buf;
	memcpy(rs, rq, IB_SA_MAD_HDR_SIZE);
	ib_mad_init_response((const ib_mad_t *)rq, (ib_mad_t *)rs, F.err_status);
	if (rq->method == IB_MAD_METHOD_GETTABLE) {
		e->size = (uint32_t)IB_SA_MAD_HDR_SIZE + n * rec;
		if (e->size < MAD_BLOCK_SIZE)
			e->size = MAD_BLOCK_SIZE;
		rs->rmpp_version = 1;
		rs->rmpp_type = IB_RMPP_TYPE_DATA;
		rs->rmpp_flags = IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST;
		rs->paylen_newwin = cl_hton32(20 + n * rec);
	}
	e->send_context1 = (void *)(uintptr_t)req->context1;
	if (F.err_status)
		return e;
	if (rq->attr_id == IB_MAD_ATTR_SERVICE_RECORD) {
		ib_service_record_t *t = (ib_service_record_t *)(void *)rq->data;

		if (rq->method == IB_MAD_METHOD_SET && F.n_svcs < 8) {
			F.svcs[F.n_svcs] = *t;
			F.svcs[F.n_svcs].service_lease = CL_HTON32(3600);
			memcpy(rs->data, &F.svcs[F.n_svcs++], sizeof(*t));
		} else if (rq->method == IB_MAD_METHOD_DELETE) {
			for (i = 0; i < (uint32_t)F.n_svcs; i++)
				if (F.svcs[i].service_id == t->service_id) {
					memcpy(rs->data, &F.svcs[i], sizeof(*t));
					F.svcs[i] = F.svcs[--F.n_svcs];
					break;
				}
		} else if (rq->method == IB_MAD_METHOD_GETTABLE) {
			for (n = 0, i = 0; i < (uint32_t)F.n_svcs; i++)
				if (svc_match(rq, &F.svcs[i]))
					memcpy(rs->data + rec * n++, &F.svcs[i], sizeof(*t));
		}
	} else if (rq->attr_id == IB_MAD_ATTR_PATH_RECORD) {
		for (i = 0; i < n; i++) {
			ib_path_rec_t *p = (ib_path_rec_t *)(void *)(rs->data + rec * i);

			memcpy(p, rq->data, sizeof(*p));
			p->slid = CL_HTON16(1);
			p->dlid = cl_hton16((uint16_t)(2 + i));
		}
	} else if (rq->attr_id == IB_MAD_ATTR_MCMEMBER_RECORD) {
		ib_member_rec_t *m = (ib_member_rec_t *)(void *)rs->data;

		memcpy(m, rq->data, sizeof(*m));
		m->mlid = CL_HTON16(0xC001);
		m->qkey = CL_HTON32(0x11111111);
	} else if (rq->attr_id == IB_MAD_ATTR_CLASS_PORT_INFO) {
		ib_class_port_info_t *c = (ib_class_port_info_t *)(void *)rs->data;

		c->base_ver = 1;
		c->class_ver = 2;
	} else {
		memcpy(rs->data, rq->data, rec <= IB_SA_DATA_SIZE ? rec : IB_SA_DATA_SIZE);
	}
	return e;
}

static ib_api_status_t f_get_spl_qp(ib_pd_handle_t h_pd, ib_net64_t port_guid, ib_qp_create_t *p_create,
				    const void *ctx, ib_pfn_event_cb_t pfn_event, ib_pool_key_t *p_key,
				    ib_qp_handle_t *ph_qp)
{
	ib_api_status_t st;

	(void)port_guid;
	(void)ctx;
	(void)pfn_event;
	if (p_create->qp_type != IB_QPT_QP1_ALIAS)
		return IB_INVALID_SETTING;
	st = ib_reg_mad_pool(F.pool, h_pd, p_key);
	if (st != IB_SUCCESS)
		return st;
	pthread_mutex_lock(&F.lock);
	F.key = *p_key;
	F.n_spl_qp++;
	pthread_mutex_unlock(&F.lock);
	*ph_qp = FAKE_QP;
	return IB_SUCCESS;
}

static ib_api_status_t f_reg_mad_svc(ib_qp_handle_t h_qp, const ib_mad_svc_t *p_svc,
				     ib_mad_svc_handle_t *ph_svc)
{
	if (h_qp != FAKE_QP)
		return IB_INVALID_QP_HANDLE;
	/* What the SA client must register: class SubnAdm v2, Report(). */
	CU_ASSERT(p_svc->support_unsol);
	CU_ASSERT_EQUAL(p_svc->mgmt_class, IB_MCLASS_SUBN_ADM);
	CU_ASSERT_EQUAL(p_svc->mgmt_version, 2);
	CU_ASSERT(p_svc->method_array[IB_MAD_METHOD_REPORT]);
	pthread_mutex_lock(&F.lock);
	F.svc = *p_svc;
	F.have_svc = 1;
	pthread_mutex_unlock(&F.lock);
	*ph_svc = FAKE_SVC;
	return IB_SUCCESS;
}

static ib_api_status_t f_send_mad(ib_mad_svc_handle_t h_svc, ib_mad_element_t *p_list,
				  ib_mad_element_t **pp_fail)
{
	act_t *a;
	ib_mad_element_t *resp;

	(void)pp_fail;
	if (h_svc != FAKE_SVC || !p_list)
		return IB_INVALID_PARAMETER;
	pthread_mutex_lock(&F.lock);
	if (!p_list->resp_expected) {
		F.n_report_resp++;
		F.last_resp = *(ib_sa_mad_t *)p_list->p_mad_buf;
		q_done(p_list, IB_WCS_SUCCESS);
		pthread_mutex_unlock(&F.lock);
		return IB_SUCCESS;
	}
	/* Addressed to the SA: QP1 with the well-known Q_Key, the SM's LID. */
	CU_ASSERT_EQUAL(p_list->remote_lid, CL_HTON16(1));
	CU_ASSERT_PTR_NULL(p_list->h_av);
	CU_ASSERT_EQUAL(p_list->remote_qp, IB_QP1);
	CU_ASSERT_EQUAL(p_list->remote_qkey, IB_QP1_WELL_KNOWN_Q_KEY);
	CU_ASSERT_EQUAL(((ib_mad_t *)p_list->p_mad_buf)->mgmt_class, IB_MCLASS_SUBN_ADM);
	resp = sa_answer(p_list);
	if (resp) {
		q_done(p_list, IB_WCS_SUCCESS);
		q_recv(resp);
	} else {
		a = (act_t *)calloc(1, sizeof(*a));
		a->e = p_list;
		a->deadline = now_ms() + p_list->timeout_ms;
		a->next = F.pending;
		F.pending = a;
		pthread_cond_broadcast(&F.cond);
	}
	pthread_mutex_unlock(&F.lock);
	return IB_SUCCESS;
}

static ib_api_status_t f_cancel_mad(ib_mad_svc_handle_t h_svc, ib_mad_element_t *p_mad)
{
	act_t **pp, *a;

	(void)h_svc;
	pthread_mutex_lock(&F.lock);
	for (pp = &F.pending; (a = *pp) != NULL; pp = &a->next)
		if (a->e == p_mad) {
			*pp = a->next;
			q_done(a->e, IB_WCS_CANCELED);
			free(a);
			pthread_mutex_unlock(&F.lock);
			return IB_SUCCESS;
		}
	pthread_mutex_unlock(&F.lock);
	return IB_NOT_FOUND;
}

static void f_close_svc(ib_mad_svc_handle_t h_svc)
{
	(void)h_svc;
	pthread_mutex_lock(&F.lock);
	/* Nothing may still be out at the end of a service. */
	CU_ASSERT_PTR_NULL(F.pending);
	while (F.queue || F.delivering)
		pthread_cond_wait(&F.cond, &F.lock);
	F.have_svc = 0;
	pthread_mutex_unlock(&F.lock);
}

static const al_sa_mad_ops_t fake_ops = {
	{ f_get_spl_qp, f_reg_mad_svc }, f_send_mad, f_cancel_mad, f_close_svc, CL_HTON16(1),
};

/* The same, with no SM known: requests wait and time out unsent. */
static const al_sa_mad_ops_t fake_ops_nosm = {
	{ f_get_spl_qp, f_reg_mad_svc }, f_send_mad, f_cancel_mad, f_close_svc, AL_SA_NO_SM,
};

static void *fake_thread(void *arg)
{
	act_t *a, **pp;
	uint64_t t, next;
	struct timespec ts;
	ib_mad_element_t *resp;

	(void)arg;
	pthread_mutex_lock(&F.lock);
	while (!F.stop) {
		if ((a = F.queue) != NULL) {
			F.queue = a->next;
			if (!F.queue)
				F.queue_tail = NULL;
			F.delivering = 1;
			pthread_mutex_unlock(&F.lock);
			if (a->kind == 0) {
				a->e->status = a->wcs;
				F.svc.pfn_mad_send_cb(FAKE_SVC, F.svc.mad_svc_context, a->e);
			} else {
				F.svc.pfn_mad_recv_cb(FAKE_SVC, F.svc.mad_svc_context, a->e);
			}
			free(a);
			pthread_mutex_lock(&F.lock);
			F.delivering = 0;
			pthread_cond_broadcast(&F.cond);
			continue;
		}
		/* Timers of the pending sends: retry, or time out. */
		t = now_ms();
		next = t + 1000;
		for (pp = &F.pending; (a = *pp) != NULL;) {
			if (a->deadline <= t) {
				if (a->tries < a->e->retry_cnt) {
					a->tries++;
					a->deadline = t + a->e->timeout_ms;
					resp = sa_answer(a->e);
					if (resp) {
						*pp = a->next;
						q_done(a->e, IB_WCS_SUCCESS);
						q_recv(resp);
						free(a);
						continue;
					}
				} else {
					*pp = a->next;
					q_done(a->e, IB_WCS_TIMEOUT_RETRY_ERR);
					free(a);
					continue;
				}
			}
			if (a->deadline < next)
				next = a->deadline;
			pp = &a->next;
		}
		if (F.queue)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		t = next - now_ms();
		if ((int64_t)t < 0)
			t = 0;
		ts.tv_sec += (time_t)(t / 1000);
		ts.tv_nsec += (long)(t % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&F.cond, &F.lock, &ts);
	}
	pthread_mutex_unlock(&F.lock);
	return NULL;
}

/* Injects a Report() of a Notice from the SA. */
static void fake_report(uint16_t trap_num)
{
	ib_mad_element_t *e;
	ib_sa_mad_t *m;
	ib_mad_notice_attr_t *n;

	pthread_mutex_lock(&F.lock);
	e = get_mad(MAD_BLOCK_SIZE);
	if (e) {
		m = (ib_sa_mad_t *)e->p_mad_buf;
		ib_mad_init_new((ib_mad_t *)m, IB_MCLASS_SUBN_ADM, 2, IB_MAD_METHOD_REPORT,
				CL_HTON64(0x1234), IB_MAD_ATTR_NOTICE, 0);
		n = (ib_mad_notice_attr_t *)(void *)m->data;
		n->generic_type = 0x80 | 3;  /* generic, subnet management */
		n->g_or_v.generic.prod_type_lsb = CL_HTON16(4);
		n->g_or_v.generic.trap_num = cl_hton16(trap_num);
		n->issuer_lid = CL_HTON16(1);
		e->remote_lid = CL_HTON16(1);
		e->remote_qp = IB_QP1;
		q_recv(e);
	}
	pthread_mutex_unlock(&F.lock);
}

/* ---- Set-up ---- */

static void r_init(void);

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_net64_t ca_guid, port_guid;

static void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-alsa-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	memset(&F, 0, sizeof(F));
	pthread_mutex_init(&F.lock, NULL);
	test_cond_init_mono(&F.cond);
	F.n_paths = 2;
	r_init();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&F.h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_mad_pool(F.h_al, 8, 0, 8, &F.pool), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&F.thr, NULL, fake_thread, NULL), 0);
	al_sa_set_mad_ops(&fake_ops);

	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	ca_guid = guids[0];
	CU_ASSERT_EQUAL_FATAL(ib_query_ca_by_guid(h_al, ca_guid, NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca_by_guid(h_al, ca_guid, p_attr, &size), IB_SUCCESS);
	port_guid = p_attr->p_port_attr[0].port_guid;
	free(p_attr);
}

static void down(void)
{
	if (h_al)
		CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	al_sa_quiesce();
	al_sa_set_mad_ops(NULL);
	pthread_mutex_lock(&F.lock);
	F.stop = 1;
	pthread_cond_broadcast(&F.cond);
	pthread_mutex_unlock(&F.lock);
	pthread_join(F.thr, NULL);
	CU_ASSERT_PTR_NULL(F.queue);
	CU_ASSERT_PTR_NULL(F.pending);
	CU_ASSERT_EQUAL(ib_destroy_mad_pool(F.pool), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(F.h_al), IB_SUCCESS);
	pthread_mutex_destroy(&F.lock);
	pthread_cond_destroy(&F.cond);
	/* Every block of the access layer (the SA client's included) is back. */
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	test_fixture_up = 0;
}

/* ---- Results seen by callbacks ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;                       /* callbacks */
	ib_query_rec_t q;
	ib_reg_svc_rec_t r;
	ib_mcast_rec_t m;
	ib_member_rec_t mrec;
	ib_sub_rec_t s;
	int n_report;
	ib_mad_notice_attr_t notice;
	const void *report_ctx;
	int n_destroy;
} R;

/* R's lock and condition, made once. */
static void r_init(void)
{
	static int done;

	if (!done) {
		pthread_mutex_init(&R.lock, NULL);
		pthread_cond_init(&R.cond, NULL);
		done = 1;
	}
}

static void bump(void)
{
	R.n++;
	pthread_cond_broadcast(&R.cond);
}

static void AL_API on_query(ib_query_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.q = *p;
	bump();
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_reg(ib_reg_svc_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.r = *p;
	bump();
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_mcast(ib_mcast_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.m = *p;
	if (p->p_member_rec)
		R.mrec = *p->p_member_rec;
	bump();
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_sub(ib_sub_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.s = *p;
	bump();
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_report(ib_report_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.n_report++;
	R.notice = *p->p_notice;
	R.report_ctx = p->report_context;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_destroy(void *ctx)
{
	(void)ctx;
	pthread_mutex_lock(&R.lock);
	R.n_destroy++;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

/* Waits until *p reaches v (bounded); returns the value seen. */
static int wait_for(int *p, int v)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	struct timespec ts;
	int got;

	pthread_mutex_lock(&R.lock);
	while (*p < v && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&R.cond, &R.lock, &ts);
	}
	got = *p;
	pthread_mutex_unlock(&R.lock);
	return got;
}

static void r_reset(void)
{
	r_init();
	pthread_mutex_lock(&R.lock);
	R.n = 0;
	R.n_report = 0;
	R.n_destroy = 0;
	memset(&R.q, 0, sizeof(R.q));
	pthread_mutex_unlock(&R.lock);
}

static void q_init(ib_query_req_t *q, ib_query_type_t type, const void *in, ib_al_flags_t flags)
{
	memset(q, 0, sizeof(*q));
	q->query_type = type;
	q->p_query_input = in;
	q->port_guid = port_guid;
	q->timeout_ms = 50;
	q->retry_cnt = 1;
	q->flags = flags;
	q->query_context = &R;
	q->pfn_query_cb = on_query;
}

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *ctx)
{
	(void)h_cq;
	(void)ctx;
}

/* Brings a UD QP to INIT on port 1, P_Key index 0. */
static void qp_init(ib_qp_handle_t h_qp)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	m.state.init.qkey = CL_HTON32(0x11111111);
	m.state.init.pkey_index = 0;
	CU_ASSERT_EQUAL(ib_modify_qp(h_qp, &m), IB_SUCCESS);
}

/* ---- Tests ---- */

static void test_sa_bad_args(void)
{
	ib_query_req_t q;
	ib_user_query_t uq;
	ib_reg_svc_req_t rs;
	ib_reg_svc_handle_t h_reg;
	ib_mcast_req_t mr;
	ib_mcast_handle_t h_mc;
	ib_sub_req_t sr;
	ib_sub_handle_t h_sub;
	ib_inform_info_t info;
	ib_query_handle_t h_q;
	ib_net64_t guid = 0;
	ib_pd_handle_t h_pd;
	ib_ca_handle_t h_ca;
	ib_cq_handle_t h_cq;
	ib_cq_create_t cqc;
	ib_qp_create_t qc;
	ib_qp_handle_t h_rc, h_ud;

	up();
	q_init(&q, IB_QUERY_ALL_SVC_RECS, NULL, 0);
	CU_ASSERT_EQUAL(ib_query(NULL, &q, &h_q), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_query((ib_al_handle_t)(uintptr_t)0x777, &q, &h_q), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_query(h_al, NULL, &h_q), IB_INVALID_PARAMETER);
	q.pfn_query_cb = NULL;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_PARAMETER);
	q_init(&q, (ib_query_type_t)99, &guid, 0);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_ERROR);
	q_init(&q, IB_QUERY_USER_DEFINED, NULL, 0);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_PARAMETER);
	memset(&uq, 0, sizeof(uq));
	q_init(&q, IB_QUERY_USER_DEFINED, &uq, 0);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_SETTING);
	uq.method = IB_MAD_METHOD_GET;
	uq.attr_size = 300;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_SETTING);
	q_init(&q, IB_QUERY_SVC_REC_BY_NAME, NULL, 0);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_PARAMETER);
	q_init(&q, IB_QUERY_PATH_REC_BY_LIDS, NULL, 0);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_PARAMETER);
	q_init(&q, IB_QUERY_ALL_SVC_RECS, NULL, 0);
	q.port_guid = CL_HTON64(0xDEADBEEF);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_INVALID_GUID);
	ib_cancel_query(NULL, NULL);
	ib_cancel_query(h_al, NULL);
	ib_cancel_query(h_al, (ib_query_handle_t)(uintptr_t)h_al);

	memset(&rs, 0, sizeof(rs));
	rs.port_guid = port_guid;
	rs.pfn_reg_svc_cb = on_reg;
	CU_ASSERT_EQUAL(ib_reg_svc(NULL, &rs, &h_reg), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, NULL, &h_reg), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, NULL), IB_INVALID_PARAMETER);
	rs.pfn_reg_svc_cb = NULL;
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_INVALID_PARAMETER);
	rs.pfn_reg_svc_cb = on_reg;
	rs.port_guid = CL_HTON64(0xDEADBEEF);
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_INVALID_GUID);
	CU_ASSERT_EQUAL(ib_dereg_svc(NULL, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_dereg_svc((ib_reg_svc_handle_t)(uintptr_t)h_al, NULL), IB_INVALID_HANDLE);

	memset(&mr, 0, sizeof(mr));
	mr.port_guid = port_guid;
	mr.pfn_mcast_cb = on_mcast;
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	CU_ASSERT_EQUAL(ib_join_mcast(NULL, &mr, &h_mc), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(NULL, &h_mc), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, NULL), IB_INVALID_PARAMETER);
	mr.member_rec.scope_state = 0;
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc), IB_INVALID_PARAMETER);
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.pfn_mcast_cb = NULL;
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc), IB_INVALID_PARAMETER);
	mr.pfn_mcast_cb = on_mcast;
	mr.port_guid = CL_HTON64(0xDEADBEEF);
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc), IB_INVALID_GUID);
	CU_ASSERT_EQUAL(ib_leave_mcast(NULL, NULL), IB_INVALID_MCAST_HANDLE);
	CU_ASSERT_EQUAL(ib_leave_mcast((ib_mcast_handle_t)(uintptr_t)h_al, NULL), IB_INVALID_MCAST_HANDLE);

	/* ib_join_mcast on real queue pairs: the wrong type, the wrong port. */
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid, NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
	memset(&cqc, 0, sizeof(cqc));
	cqc.size = 8;
	cqc.pfn_comp_cb = on_comp;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &cqc, NULL, NULL, &h_cq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = h_cq;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(h_pd, &qc, NULL, NULL, &h_rc), IB_SUCCESS);
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(h_pd, &qc, NULL, NULL, &h_ud), IB_SUCCESS);
	mr.port_guid = port_guid;
	CU_ASSERT_EQUAL(ib_join_mcast(h_rc, &mr, &h_mc), IB_INVALID_SERVICE_TYPE);
	CU_ASSERT_EQUAL(ib_join_mcast(h_ud, NULL, &h_mc), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_join_mcast(h_ud, &mr, NULL), IB_INVALID_PARAMETER);
	mr.port_guid = CL_HTON64(0xDEADBEEF);
	CU_ASSERT_EQUAL(ib_join_mcast(h_ud, &mr, &h_mc), IB_INVALID_GUID);
	/* Once bound, the request must name the QP's P_Key index. */
	qp_init(h_ud);
	mr.port_guid = port_guid;
	mr.pkey_index = 1;
	CU_ASSERT_EQUAL(ib_join_mcast(h_ud, &mr, &h_mc), IB_INVALID_PKEY);
	mr.pkey_index = 0;

	memset(&info, 0, sizeof(info));
	memset(&sr, 0, sizeof(sr));
	sr.p_inform_info = &info;
	sr.port_guid = port_guid;
	sr.pfn_sub_cb = on_sub;
	sr.pfn_report_cb = on_report;
	CU_ASSERT_EQUAL(ib_subscribe(NULL, &sr, &h_sub), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_subscribe(h_al, NULL, &h_sub), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, NULL), IB_INVALID_PARAMETER);
	sr.p_inform_info = NULL;
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_INVALID_PARAMETER);
	sr.p_inform_info = &info;
	sr.pfn_sub_cb = NULL;
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_INVALID_PARAMETER);
	sr.pfn_sub_cb = on_sub;
	sr.pfn_report_cb = NULL;
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_INVALID_PARAMETER);
	sr.pfn_report_cb = on_report;
	sr.port_guid = CL_HTON64(0xDEADBEEF);
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_INVALID_GUID);
	CU_ASSERT_EQUAL(ib_unsubscribe(NULL, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_unsubscribe((ib_sub_handle_t)(uintptr_t)h_al, NULL), IB_INVALID_HANDLE);
	/* Nothing reached the SA. */
	CU_ASSERT_EQUAL(F.n_req, 0);
	down();
}

/* Every query type, synchronously: the request the SA saw and the result. */
static void test_sa_query_types(void)
{
	static const ib_svc_name_t name = "ibal-test";
	ib_net64_t id = CL_HTON64(0x1234), nguid = CL_HTON64(0x42);
	ib_net16_t lid = CL_HTON16(7);
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_gid_pair_t gidp;
	ib_lid_pair_t lp = { CL_HTON16(1), CL_HTON16(2) };
	ib_vl_arb_table_record_t vla;
	ib_slvl_table_record_t slvl;
	ib_path_rec_t tmpl;
	ib_user_query_t uq;
	ib_query_req_t q;
	ib_query_handle_t h_q;
	ib_path_rec_t *p;
	const ib_path_rec_t *sent;

	up();
	memset(&gidp, 0, sizeof(gidp));
	gidp.src_gid.unicast.interface_id = CL_HTON64(1);
	gidp.dest_gid.unicast.interface_id = CL_HTON64(2);
	memset(&vla, 0, sizeof(vla));
	vla.lid = CL_HTON16(3);
	vla.port_num = 1;
	vla.block_num = 2;
	memset(&slvl, 0, sizeof(slvl));
	slvl.lid = CL_HTON16(3);
	slvl.out_port_num = 1;

#define RUN(type, in)                                                                   \
	do {                                                                            \
		r_reset();                                                              \
		q_init(&q, type, in, IB_FLAGS_SYNC);                                    \
		CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);                  \
		CU_ASSERT_EQUAL(R.n, 1);                                                \
		CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);                                \
		CU_ASSERT_EQUAL(R.q.query_type, type);                                  \
		CU_ASSERT_PTR_EQUAL(R.q.query_context, &R);                             \
		CU_ASSERT_PTR_NOT_NULL(R.q.p_result_mad);                               \
	} while (0)
#define PUT() do { if (R.q.p_result_mad) CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS); } while (0)

	RUN(IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp);
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_GETTABLE);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_PATH_RECORD);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_NUMBPATH);
	CU_ASSERT_EQUAL(F.last.class_ver, 2);
	sent = (const ib_path_rec_t *)(const void *)F.last.data;
	CU_ASSERT_EQUAL(sent->dgid.unicast.interface_id, CL_HTON64(2));
	CU_ASSERT_EQUAL(sent->sgid.unicast.interface_id, CL_HTON64(1));
	CU_ASSERT_EQUAL(R.q.result_cnt, 2);
	if (R.q.p_result_mad && R.q.result_cnt == 2) {
		p = ib_get_query_path_rec(R.q.p_result_mad, 1);
		CU_ASSERT_EQUAL(p->dlid, CL_HTON16(3));
	}
	PUT();
	F.n_paths = 5;       /* more than one MAD holds: a reassembled answer */
	RUN(IB_QUERY_PATH_REC_BY_GIDS, &gidp);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_NUMBPATH);
	CU_ASSERT_EQUAL(R.q.result_cnt, 5);
	if (R.q.p_result_mad && R.q.result_cnt == 5)
		CU_ASSERT_EQUAL(ib_get_query_path_rec(R.q.p_result_mad, 4)->dlid, CL_HTON16(6));
	PUT();
	F.n_paths = 0;
	RUN(IB_QUERY_PATH_REC_BY_GIDS, &gidp);
	CU_ASSERT_EQUAL(R.q.result_cnt, 0);
	PUT();
	RUN(IB_QUERY_PATH_REC_BY_LIDS, &lp);
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_GET);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_SLID);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	PUT();
	RUN(IB_QUERY_CLASS_PORT_INFO, NULL);
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_GET);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_CLASS_PORT_INFO);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	if (R.q.p_result_mad)
		CU_ASSERT_EQUAL(((ib_class_port_info_t *)ib_get_query_result(R.q.p_result_mad, 0))->class_ver, 2);
	PUT();
	RUN(IB_QUERY_NODE_REC_BY_NODE_GUID, &nguid);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_NODE_RECORD);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_NR_COMPMASK_NODEGUID);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1); /* the fake echoes the template */
	PUT();
	RUN(IB_QUERY_PORT_REC_BY_LID, &lid);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_PORTINFO_RECORD);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_PIR_COMPMASK_LID);
	CU_ASSERT_EQUAL(((ib_portinfo_record_t *)(void *)F.last.data)->lid, lid);
	PUT();
	RUN(IB_QUERY_VLARB_BY_LID_PORT_BLOCK, &vla);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_VLARB_RECORD);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_VLA_COMPMASK_LID | IB_VLA_COMPMASK_OUT_PORT | IB_VLA_COMPMASK_BLOCK);
	CU_ASSERT_EQUAL(((ib_vl_arb_table_record_t *)(void *)F.last.data)->block_num, 2);
	PUT();
	RUN(IB_QUERY_SLVL_BY_LID_AND_PORTS, &slvl);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_SLVL_RECORD);
	PUT();
	RUN(IB_QUERY_ALL_SVC_RECS, NULL);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_SERVICE_RECORD);
	CU_ASSERT_EQUAL(F.last.comp_mask, 0);
	PUT();
	RUN(IB_QUERY_SVC_REC_BY_NAME, name);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_SR_COMPMASK_SNAME);
	CU_ASSERT(!memcmp(((ib_service_record_t *)(void *)F.last.data)->service_name, name, sizeof(name)));
	PUT();
	RUN(IB_QUERY_SVC_REC_BY_ID, &id);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_SR_COMPMASK_SID);
	CU_ASSERT_EQUAL(((ib_service_record_t *)(void *)F.last.data)->service_id, id);
	PUT();
	memset(&tmpl, 0, sizeof(tmpl));
	tmpl.slid = CL_HTON16(9);
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_GETTABLE;
	uq.attr_id = IB_MAD_ATTR_PATH_RECORD;
	uq.attr_size = sizeof(tmpl);
	uq.comp_mask = IB_PR_COMPMASK_SLID;
	uq.p_attr = &tmpl;
	F.n_paths = 3;
	RUN(IB_QUERY_USER_DEFINED, &uq);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_PR_COMPMASK_SLID);
	CU_ASSERT_EQUAL(F.last.attr_offset, ib_get_attr_offset(sizeof(tmpl)));
	CU_ASSERT_EQUAL(((ib_path_rec_t *)(void *)F.last.data)->slid, CL_HTON16(9));
	CU_ASSERT_EQUAL(R.q.result_cnt, 3);
	PUT();
	/* One port service for all of them. */
	CU_ASSERT_EQUAL(F.n_spl_qp, 1);
	down();
}

static void test_sa_query_async_and_remote_error(void)
{
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_query_req_t q;
	ib_query_handle_t h_q = NULL;

	up();
	r_reset();
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, 0);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL(h_q);
	CU_ASSERT_EQUAL(wait_for(&R.n, 1), 1);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.result_cnt, 2);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	/* The query is over: its handle is gone (cancel does nothing). */
	ib_cancel_query(h_al, h_q);

	r_reset();
	F.err_status = IB_SA_MAD_STATUS_NO_RECORDS;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_for(&R.n, 1), 1);
	CU_ASSERT_EQUAL(R.q.status, IB_REMOTE_ERROR);
	CU_ASSERT_EQUAL(R.q.result_cnt, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(R.q.p_result_mad);
	CU_ASSERT_EQUAL(((ib_sa_mad_t *)R.q.p_result_mad->p_mad_buf)->status, IB_SA_MAD_STATUS_NO_RECORDS);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	F.err_status = 0;
	down();
}

static void test_sa_timeout_and_retries(void)
{
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_query_req_t q;
	uint64_t t0;

	up();
	/* No SA: the retries go out, then IB_TIMEOUT. */
	F.mute = 1;
	r_reset();
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, IB_FLAGS_SYNC);
	q.timeout_ms = 20;
	q.retry_cnt = 2;
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT(test_now_ms() - t0 >= 60);
	CU_ASSERT_EQUAL(R.q.status, IB_TIMEOUT);
	CU_ASSERT_PTR_NULL(R.q.p_result_mad);
	CU_ASSERT_EQUAL(F.n_req, 3);
	/* The first answer lost, the retry answered. */
	F.mute = 0;
	F.drop = 1;
	F.n_req = 0;
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(F.n_req, 2);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	/* timeout_ms 0: the default wait, still bounded. */
	F.drop = 1;
	F.n_req = 0;
	q.timeout_ms = 0;
	q.retry_cnt = 1;
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	down();
}

/* No SM known on the port: nothing is sent; the request times out after
 * its timeouts and retries, or is canceled. */
static void test_sa_no_sm(void)
{
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_query_req_t q;
	ib_query_handle_t h_q = NULL;
	ib_reg_svc_req_t rs;
	ib_reg_svc_handle_t h_reg;
	uint64_t t0;

	up();
	al_sa_set_mad_ops(&fake_ops_nosm);
	r_reset();
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, IB_FLAGS_SYNC);
	q.timeout_ms = 30;
	q.retry_cnt = 1;
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT(test_now_ms() - t0 >= 60);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.q.status, IB_TIMEOUT);
	CU_ASSERT_PTR_NULL(R.q.p_result_mad);
	CU_ASSERT_EQUAL(F.n_req, 0);
	/* Canceled while waiting. */
	r_reset();
	q.flags = 0;
	q.timeout_ms = 60000;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);
	ib_cancel_query(h_al, h_q);
	CU_ASSERT_EQUAL(wait_for(&R.n, 1), 1);
	CU_ASSERT_EQUAL(R.q.status, IB_CANCELED);
	/* A registration times out the same way. */
	memset(&rs, 0, sizeof(rs));
	rs.port_guid = port_guid;
	rs.timeout_ms = 10;
	rs.flags = IB_FLAGS_SYNC;
	rs.pfn_reg_svc_cb = on_reg;
	r_reset();
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.r.req_status, IB_TIMEOUT);
	/* Closing the instance ends what still waits. */
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.q.status, IB_CANCELED);
	CU_ASSERT_EQUAL(F.n_req, 0);
	down();
}

static void test_sa_cancel_and_close(void)
{
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_query_req_t q;
	ib_query_handle_t h_q = NULL;

	up();
	F.mute = 1;
	r_reset();
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, 0);
	q.timeout_ms = 60000;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.n, 0);
	ib_cancel_query(h_al, h_q);
	CU_ASSERT_EQUAL(wait_for(&R.n, 1), 1);
	CU_ASSERT_EQUAL(R.q.status, IB_CANCELED);
	CU_ASSERT_PTR_NULL(R.q.p_result_mad);
	/* Closing the instance cancels what is still out, callbacks first. */
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, &h_q), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	CU_ASSERT_EQUAL(R.n, 2);
	CU_ASSERT_EQUAL(R.q.status, IB_CANCELED);
	down();
}

static void test_sa_reg_svc(void)
{
	ib_reg_svc_req_t rs;
	ib_reg_svc_handle_t h_reg = NULL;
	ib_query_req_t q;
	static const ib_svc_name_t name = "ibal-svc";
	ib_service_record_t *p;

	up();
	memset(&rs, 0, sizeof(rs));
	rs.svc_rec.service_id = CL_HTON64(0xABC);
	rs.svc_rec.service_lease = 0xFFFFFFFF;
	memcpy(rs.svc_rec.service_name, name, sizeof(name));
	rs.port_guid = port_guid;
	rs.timeout_ms = 50;
	rs.retry_cnt = 1;
	rs.flags = IB_FLAGS_SYNC;
	rs.svc_context = &rs;
	rs.pfn_reg_svc_cb = on_reg;
	r_reset();
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.r.req_status, IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(R.r.h_reg_svc, h_reg);
	CU_ASSERT_PTR_EQUAL(R.r.svc_context, &rs);
	CU_ASSERT_EQUAL(R.r.svc_rec.service_lease, CL_HTON32(3600));
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_SET);
	/* svc_data_mask 0: the identifying fields. */
	CU_ASSERT((F.last.comp_mask & IB_SR_COMPMASK_SID) != 0);
	CU_ASSERT((F.last.comp_mask & IB_SR_COMPMASK_SNAME) != 0);
	/* The GID left zero is the port's. */
	CU_ASSERT(((ib_service_record_t *)(void *)F.last.data)->service_gid.unicast.interface_id == port_guid);
	CU_ASSERT_EQUAL(F.n_svcs, 1);

	/* Found by name. */
	r_reset();
	q_init(&q, IB_QUERY_SVC_REC_BY_NAME, name, IB_FLAGS_SYNC);
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	if (R.q.result_cnt == 1) {
		p = ib_get_query_svc_rec(R.q.p_result_mad, 0);
		CU_ASSERT_EQUAL(p->service_id, CL_HTON64(0xABC));
	}
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);

	/* Deregistration: Delete() at the SA, then the destroy callback. */
	r_reset();
	CU_ASSERT_EQUAL(ib_dereg_svc(h_reg, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_for(&R.n_destroy, 1), 1);
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_DELETE);
	CU_ASSERT_EQUAL(F.n_svcs, 0);
	CU_ASSERT_EQUAL(ib_dereg_svc(h_reg, NULL), IB_INVALID_HANDLE);

	/* An explicit mask is used as given; a failure ends the registration. */
	rs.svc_data_mask = IB_SR_COMPMASK_SID;
	F.err_status = IB_SA_MAD_STATUS_REQ_INVALID;
	r_reset();
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_SUCCESS);
	CU_ASSERT_EQUAL(F.last.comp_mask, IB_SR_COMPMASK_SID);
	CU_ASSERT_EQUAL(R.r.req_status, IB_REMOTE_ERROR);
	CU_ASSERT_EQUAL(R.r.resp_status, IB_SA_MAD_STATUS_REQ_INVALID);
	CU_ASSERT_PTR_NULL(R.r.h_reg_svc);
	F.err_status = 0;

	/* Deregistered while pending: IB_CANCELED. */
	F.mute = 1;
	rs.flags = 0;
	rs.timeout_ms = 60000;
	r_reset();
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_svc(h_reg, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_for(&R.n_destroy, 1), 1);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.r.req_status, IB_CANCELED);
	down();
}

static void test_sa_mcast_no_qp(void)
{
	ib_mcast_req_t mr;
	ib_mcast_handle_t h_mc = NULL;
	const ib_member_rec_t *m;

	up();
	memset(&mr, 0, sizeof(mr));
	mr.create = TRUE;
	mr.member_rec.mgid.raw[0] = 0xFF;
	mr.member_rec.mgid.raw[1] = 0x12;
	mr.member_rec.mgid.raw[15] = 0x77;
	mr.member_rec.qkey = CL_HTON32(0x11111111);
	mr.member_rec.pkey = CL_HTON16(0xFFFF);
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.mcast_context = &mr;
	mr.pfn_mcast_cb = on_mcast;
	mr.timeout_ms = 50;
	mr.retry_cnt = 1;
	mr.flags = IB_FLAGS_SYNC;
	mr.port_guid = port_guid;
	r_reset();
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.m.status, IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(R.m.h_mcast, h_mc);
	CU_ASSERT_PTR_EQUAL(R.m.mcast_context, &mr);
	CU_ASSERT_EQUAL(R.mrec.mlid, CL_HTON16(0xC001));
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_SET);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_MCMEMBER_RECORD);
	CU_ASSERT((F.last.comp_mask & IB_MCR_COMPMASK_JOIN_STATE) != 0);
	CU_ASSERT((F.last.comp_mask & IB_MCR_COMPMASK_QKEY) != 0); /* create */
	m = (const ib_member_rec_t *)(const void *)F.last.data;
	CU_ASSERT_EQUAL(m->port_gid.unicast.interface_id, port_guid);
	r_reset();
	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_DELETE);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_MCMEMBER_RECORD);
	CU_ASSERT_EQUAL(((const ib_member_rec_t *)(const void *)F.last.data)->scope_state & 0x0F,
			IB_MC_REC_STATE_FULL_MEMBER);
	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc, NULL), IB_INVALID_MCAST_HANDLE);
	/* A join the SA refuses. */
	F.err_status = IB_SA_MAD_STATUS_REQ_INVALID;
	r_reset();
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.m.status, IB_REMOTE_ERROR);
	CU_ASSERT_EQUAL(R.m.error_status, IB_SA_MAD_STATUS_REQ_INVALID);
	CU_ASSERT_PTR_NULL(R.m.h_mcast);
	/* No AL instance waits for a root membership: the failed synchronous
	 * join's is gone already, with its hold on the port's SA service (whose
	 * late teardown used the fake SA after down(): a TSan report in CI). */
	CU_ASSERT_EQUAL(al_sa_port_count(), 0);
	F.err_status = 0;
	down();
}

/* ib_join_mcast on a UD QP: attached when the provider can attach, else
 * the callback says IB_UNSUPPORTED and the membership is deleted again;
 * destroying the QP leaves the group. */
static void test_sa_mcast_qp(void)
{
	ib_ca_handle_t h_ca;
	ib_pd_handle_t h_pd;
	ib_cq_handle_t h_cq;
	ib_cq_create_t cqc;
	ib_qp_create_t qc;
	ib_qp_handle_t h_ud;
	ib_mcast_req_t mr;
	ib_mcast_handle_t h_mc = NULL;
	int n_req;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid, NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
	memset(&cqc, 0, sizeof(cqc));
	cqc.size = 8;
	cqc.pfn_comp_cb = on_comp;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &cqc, NULL, NULL, &h_cq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = h_cq;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(h_pd, &qc, NULL, NULL, &h_ud), IB_SUCCESS);
	qp_init(h_ud);
	memset(&mr, 0, sizeof(mr));
	mr.member_rec.mgid.raw[0] = 0xFF;
	mr.member_rec.mgid.raw[1] = 0x12;
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.pfn_mcast_cb = on_mcast;
	mr.timeout_ms = 50;
	mr.flags = IB_FLAGS_SYNC;
	mr.port_guid = port_guid;
	r_reset();
	CU_ASSERT_EQUAL(ib_join_mcast(h_ud, &mr, &h_mc), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT(R.m.status == IB_SUCCESS || R.m.status == IB_UNSUPPORTED);
	if (R.m.status != IB_SUCCESS && R.m.status != IB_UNSUPPORTED)
		fprintf(stderr, "join on a QP: %s\n", ib_get_err_str(R.m.status));
	if (R.m.status == IB_SUCCESS) {
		n_req = F.n_req;
		CU_ASSERT_EQUAL(ib_destroy_qp(h_ud, ib_sync_destroy), IB_SUCCESS);
		CU_ASSERT_EQUAL(F.n_req, n_req + 1);
		CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_DELETE);
		CU_ASSERT_EQUAL(ib_leave_mcast(h_mc, NULL), IB_INVALID_MCAST_HANDLE);
	} else {
		/* Not attached: deleted from the SA at once. */
		CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_DELETE);
		CU_ASSERT_PTR_NULL(R.m.h_mcast);
	}
	down();
}

static void test_sa_subscribe_reports(void)
{
	ib_inform_info_t info;
	ib_sub_req_t sr;
	ib_sub_handle_t h_sub = NULL;
	const ib_inform_info_t *sent;

	up();
	memset(&info, 0, sizeof(info));
	info.lid_range_begin = CL_HTON16(0xFFFF);
	info.is_generic = 1;
	info.trap_type = CL_HTON16(0xFFFF);
	info.g_or_v.generic.trap_num = CL_HTON16(64);
	info.g_or_v.generic.node_type_msb = 0xFF;
	info.g_or_v.generic.node_type_lsb = CL_HTON16(0xFFFF);
	memset(&sr, 0, sizeof(sr));
	sr.p_inform_info = &info;
	sr.port_guid = port_guid;
	sr.timeout_ms = 50;
	sr.flags = IB_FLAGS_SYNC;
	sr.sub_context = &sr;
	sr.pfn_sub_cb = on_sub;
	sr.report_context = &info;
	sr.pfn_report_cb = on_report;
	r_reset();
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.s.status, IB_SUCCESS);
	CU_ASSERT_PTR_EQUAL(R.s.h_sub, h_sub);
	CU_ASSERT_PTR_EQUAL(R.s.sub_context, &sr);
	CU_ASSERT_EQUAL(F.last.method, IB_MAD_METHOD_SET);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_INFORM_INFO);
	sent = (const ib_inform_info_t *)(const void *)F.last.data;
	CU_ASSERT_EQUAL(sent->subscribe, 1);
	CU_ASSERT_EQUAL(cl_ntoh32(sent->g_or_v.generic.qpn_resp_time_val) >> 8, 1);

	/* A trap not subscribed to is answered but not reported; then one that is. */
	fake_report(65);
	fake_report(64);
	CU_ASSERT_EQUAL(wait_for(&R.n_report, 1), 1);
	CU_ASSERT_EQUAL(R.notice.g_or_v.generic.trap_num, CL_HTON16(64));
	CU_ASSERT_PTR_EQUAL(R.report_ctx, &info);
	pthread_mutex_lock(&F.lock);
	while (F.n_report_resp < 2)
		pthread_cond_wait(&F.cond, &F.lock);
	CU_ASSERT_EQUAL(F.n_report_resp, 2);
	CU_ASSERT_EQUAL(F.last_resp.method, IB_MAD_METHOD_REPORT_RESP);
	CU_ASSERT_EQUAL(F.last_resp.trans_id, CL_HTON64(0x1234));
	pthread_mutex_unlock(&F.lock);

	/* Unsubscribe: Set(InformInfo) with Subscribe 0; no more reports. */
	CU_ASSERT_EQUAL(ib_unsubscribe(h_sub, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(F.last.attr_id, IB_MAD_ATTR_INFORM_INFO);
	CU_ASSERT_EQUAL(((const ib_inform_info_t *)(const void *)F.last.data)->subscribe, 0);
	fake_report(64);
	pthread_mutex_lock(&F.lock);
	while (F.n_report_resp < 3)
		pthread_cond_wait(&F.cond, &F.lock);
	pthread_mutex_unlock(&F.lock);
	CU_ASSERT_EQUAL(R.n_report, 1);
	CU_ASSERT_EQUAL(ib_unsubscribe(h_sub, NULL), IB_INVALID_HANDLE);
	down();
}

/* Instances share one port service; it lives while an instance that used
 * it is open (or a root membership holds it), then ends. */
static void test_sa_port_shared(void)
{
	ib_al_handle_t h_al2;
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_query_req_t q;
	ib_mcast_req_t mr;
	ib_mcast_handle_t h_mc;

	up();
	CU_ASSERT_EQUAL(al_sa_port_count(), 0);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al2), IB_SUCCESS);
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, IB_FLAGS_SYNC);
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al2, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al2, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	CU_ASSERT_EQUAL(F.n_spl_qp, 1);
	CU_ASSERT_EQUAL(al_sa_port_count(), 1);
	/* A membership without QP (no instance) holds it too. */
	memset(&mr, 0, sizeof(mr));
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.pfn_mcast_cb = on_mcast;
	mr.flags = IB_FLAGS_SYNC;
	mr.port_guid = port_guid;
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h_al2), IB_SUCCESS);
	al_sa_quiesce();
	CU_ASSERT_EQUAL(al_sa_port_count(), 1);
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	CU_ASSERT_EQUAL(F.n_spl_qp, 1);
	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	al_sa_quiesce();
	CU_ASSERT_EQUAL(al_sa_port_count(), 0);
	/* Gone with its last user: the next request makes a new one. */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	r_reset();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	CU_ASSERT_EQUAL(F.n_spl_qp, 2);
	down();
	CU_ASSERT_EQUAL(al_sa_port_count(), 0);
}

/* A callback may start another request; IB_FLAGS_SYNC is refused there. */
static ib_api_status_t nested_st;
static void AL_API on_query_nested(ib_query_rec_t *p)
{
	ib_query_req_t q;
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };

	if (p->p_result_mad)
		ib_put_mad(p->p_result_mad);
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, IB_FLAGS_SYNC);
	pthread_mutex_lock(&R.lock);
	nested_st = ib_query(h_al, &q, NULL);
	q.flags = 0;
	if (ib_query(h_al, &q, NULL) != IB_SUCCESS)
		nested_st = IB_ERROR;
	pthread_mutex_unlock(&R.lock);
}

static void test_sa_nested(void)
{
	ib_guid_pair_t gp = { CL_HTON64(1), CL_HTON64(2) };
	ib_query_req_t q;

	up();
	r_reset();
	q_init(&q, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp, 0);
	q.pfn_query_cb = on_query_nested;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_for(&R.n, 1), 1);
	CU_ASSERT_EQUAL(nested_st, IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_sa_bad_args),
	TEST_ENTRY(test_sa_query_types),
	TEST_ENTRY(test_sa_query_async_and_remote_error),
	TEST_ENTRY(test_sa_timeout_and_retries),
	TEST_ENTRY(test_sa_no_sm),
	TEST_ENTRY(test_sa_cancel_and_close),
	TEST_ENTRY(test_sa_reg_svc),
	TEST_ENTRY(test_sa_mcast_no_qp),
	TEST_ENTRY(test_sa_mcast_qp),
	TEST_ENTRY(test_sa_subscribe_reports),
	TEST_ENTRY(test_sa_port_shared),
	TEST_ENTRY(test_sa_nested),
};

TEST_MAIN("al_sa", tests)
