/*
 * ibal tests: PD, AV, CQ, QP, SRQ, MR and MW calls: statuses, handles, lifetimes.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) with IBAL_SOFT_CAS=2, on the soft provider. Waits are
 * bounded condition waits, never sleeps.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_async_proc.h>
#include <complib/cl_memory.h>
#include <complib/cl_obj.h>
#include "al_epoch.h"
#include "al_handle.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_track.h"

/* ---- Fabric directory ---- */

static char fab_dir[64];

/* ---- Callback record ---- */

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cond = PTHREAD_COND_INITIALIZER;
static int n_destroy[8];     /* per context tag */
static int n_event;
static ib_async_event_rec_t last_event;

static void AL_API on_destroy(void *context)
{
	pthread_mutex_lock(&cb_lock);
	n_destroy[*(int *)context]++;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
}

/* When set, a QP event callback destroys its QP: synchronously (refused
 * from its own callback), then asynchronously. */
static int destroy_in_event;
static ib_api_status_t st_sync_in_cb, st_async_in_cb;

static void AL_API on_event(ib_async_event_rec_t *p_rec)
{
	ib_api_status_t s1 = IB_SUCCESS, s2 = IB_SUCCESS;

	if (destroy_in_event) {
		s1 = ib_destroy_qp(p_rec->handle.h_qp, ib_sync_destroy);
		s2 = ib_destroy_qp(p_rec->handle.h_qp, NULL);
	}
	pthread_mutex_lock(&cb_lock);
	st_sync_in_cb = s1;
	st_async_in_cb = s2;
	n_event++;
	last_event = *p_rec;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
}

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

/* Waits (bounded) until *p reaches want; returns its value. */
static int wait_count(int *p, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&cb_lock);
	while (*p < want && pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
		;
	v = *p;
	pthread_mutex_unlock(&cb_lock);
	return v;
}

static int get_count(int *p)
{
	int v;

	pthread_mutex_lock(&cb_lock);
	v = *p;
	pthread_mutex_unlock(&cb_lock);
	return v;
}

static int tags[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };

/* ---- Environment: one AL, one CA, one PD ---- */

static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca;
static ib_pd_handle_t h_pd;

static void up(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	test_fixture_up = 1;
	strcpy(fab_dir, "/tmp/ibal-alverbs-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	memset(n_destroy, 0, sizeof(n_destroy));
	n_event = 0;
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[0], NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);
}

static void down(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	test_fixture_up = 0;
}

static ib_cq_handle_t make_cq(uint32_t size)
{
	ib_cq_create_t c = { size, on_comp, NULL };
	ib_cq_handle_t h = NULL;

	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, &h), IB_SUCCESS);
	CU_ASSERT(c.size >= size);
	return h;
}

static ib_api_status_t make_qp(ib_pd_handle_t pd, ib_cq_handle_t cq, ib_srq_handle_t srq,
			       ib_qp_handle_t *ph)
{
	ib_qp_create_t c;

	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_UNRELIABLE_DGRM;
	c.sq_depth = 8;
	c.rq_depth = srq ? 0 : 8;
	c.sq_sge = 1;
	c.rq_sge = srq ? 0 : 1;
	c.h_sq_cq = cq;
	c.h_rq_cq = cq;
	c.h_srq = srq;
	c.sq_signaled = TRUE;
	return ib_create_qp(pd, &c, &tags[3], on_event, ph);
}

static ib_api_status_t to_state(ib_qp_handle_t h, ib_qp_state_t s)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = s;
	if (s == IB_QPS_INIT) {
		m.state.init.primary_port = 1;
		m.state.init.qkey = CL_HTON32(0x11);
	}
	if (s == IB_QPS_RTS)
		m.state.rts.sq_psn = CL_HTON32(1);
	return ib_modify_qp(h, &m);
}

static void av_attr(ib_av_attr_t *a, uint16_t dlid)
{
	memset(a, 0, sizeof(*a));
	a->port_num = 1;
	a->dlid = cl_hton16(dlid);
	a->sl = 1;
}

/* A handle value whose slot was freed and then given to another object:
 * destroys nothing, churns slots with internal handles of its type (each
 * type has its own slots) until @p h_dead's slot is reused, then frees them
 * (except the one on the slot, returned in *p_keep for the caller to free). */
static boolean_t reuse_slot(void *h_dead, al_handle_t *p_keep)
{
	static int dummy;
	al_handle_t *hs = (al_handle_t *)calloc(AL_HANDLE_MAX / 64, sizeof(*hs));
	uint32_t i, n = 0;
	boolean_t found = FALSE;

	*p_keep = AL_HANDLE_NULL;
	while (n < AL_HANDLE_MAX / 64 && al_handle_alloc(al_handle_type(AL_HANDLE_FROM_IB(h_dead)), &dummy, &hs[n]) == IB_SUCCESS) {
		if (al_handle_index(hs[n]) == al_handle_index(AL_HANDLE_FROM_IB(h_dead))) {
			*p_keep = hs[n];
			found = TRUE;
			break;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		al_handle_free(hs[i]);
	free(hs);
	return found;
}

/* ---- Tests ---- */

static void test_pd(void)
{
	ib_pd_handle_t pd2 = NULL;

	up();
	CU_ASSERT_EQUAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_alloc_pd(h_ca, (ib_pd_type_t)77, NULL, &pd2), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_alloc_pd(NULL, IB_PDT_NORMAL, NULL, &pd2), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, &tags[1], &pd2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd2, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd2, on_destroy), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL(wait_count(&n_destroy[1], 1), 1);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_UD, &tags[1], &pd2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd2, NULL), IB_INVALID_PD_HANDLE);
	down();
	/* Sync and NULL destroys make no callback; the async one made one. */
	CU_ASSERT_EQUAL(n_destroy[1], 1);
}

static void test_av(void)
{
	ib_av_attr_t a, q;
	ib_av_handle_t av, av2;
	ib_pd_handle_t pd_out = NULL;

	up();
	av_attr(&a, 5);
	CU_ASSERT_EQUAL(ib_create_av(h_pd, NULL, &av), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_av(h_pd, &a, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(ib_create_av(h_pd, &a, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_av_ctx(h_pd, &a, 7, &av2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_av(av, &q, &pd_out), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.dlid, cl_hton16(5));
	CU_ASSERT_EQUAL(pd_out, h_pd);
	CU_ASSERT_EQUAL(ib_query_av(av, NULL, &pd_out), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_query_av(av, &q, NULL), IB_INVALID_PARAMETER);
	av_attr(&a, 9);
	CU_ASSERT_EQUAL(ib_modify_av(av, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_av(av, &q, &pd_out), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.dlid, cl_hton16(9));
	a.port_num = 9;
	CU_ASSERT_EQUAL(ib_modify_av(av, &a), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ib_create_av(h_pd, &a, &av2), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ib_modify_av(av, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_destroy_av(av), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_av(av), IB_INVALID_AV_HANDLE);
	CU_ASSERT_EQUAL(ib_query_av(av, &q, &pd_out), IB_INVALID_AV_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_av_ctx(av2, 7), IB_SUCCESS);
	down();
}

static void test_cq(void)
{
	ib_cq_create_t c = { 16, on_comp, NULL };
	ib_cq_handle_t cq = NULL, cq2;
	ib_qp_handle_t qp;
	cl_waitobj_handle_t wo;
	uint32_t size;

	up();
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, NULL, NULL, NULL, &cq), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &wo), CL_SUCCESS);
	c.h_wait_obj = wo;
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, &cq), IB_INVALID_SETTING);
	c.pfn_comp_cb = NULL;
	c.h_wait_obj = NULL;
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, &cq), IB_INVALID_SETTING);
	/* A value that is no wait object (as upstream tests pass on purpose):
	 * checked, not used, as the Windows access layer checks it. */
	c.h_wait_obj = (cl_waitobj_handle_t)(uintptr_t)0x1234;
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, &cq), IB_INVALID_PARAMETER);
	c.h_wait_obj = (cl_waitobj_handle_t)(void *)&c;
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, &cq), IB_INVALID_PARAMETER);
	c.h_wait_obj = NULL;
	c.size = 1u << 30;
	c.pfn_comp_cb = on_comp;
	CU_ASSERT_EQUAL(ib_create_cq(h_ca, &c, NULL, NULL, &cq), IB_INVALID_CQ_SIZE);
	c.size = 16;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &c, &tags[2], on_event, &cq), IB_SUCCESS);
	c.pfn_comp_cb = NULL;
	c.h_wait_obj = wo;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &c, NULL, NULL, &cq2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT(size >= 16);
	CU_ASSERT_EQUAL(ib_query_cq(cq, NULL), IB_INVALID_PARAMETER);
	size = 100;
	CU_ASSERT_EQUAL(ib_modify_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT(size >= 100);
	CU_ASSERT_EQUAL(ib_query_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT(size >= 100);
	CU_ASSERT_EQUAL(ib_modify_cq(cq, NULL), IB_INVALID_PARAMETER);

	/* Busy while a QP uses it. */
	CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, cq, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, NULL), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_destroy_qp(qp, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(&n_destroy[2], 1), 1);
	CU_ASSERT_EQUAL(ib_query_cq(cq, &size), IB_INVALID_CQ_HANDLE);
	/* The wait object is the user's: still usable after the CQ is gone. */
	CU_ASSERT_EQUAL(ib_destroy_cq(cq2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_signal(wo), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_wait_on(wo, 0, FALSE), CL_SUCCESS);
	CU_ASSERT_EQUAL(cl_waitobj_destroy(wo), CL_SUCCESS);
	down();
	CU_ASSERT_EQUAL(n_destroy[2], 1);
}

static void test_qp(void)
{
	ib_cq_handle_t cq, cq_other;
	ib_qp_handle_t qp;
	ib_qp_attr_t a;
	ib_qp_create_t c;
	ib_ca_handle_t ca2;
	ib_net64_t guids[2];
	size_t n = 2;

	up();
	cq = make_cq(16);
	CU_ASSERT_EQUAL(make_qp(h_pd, NULL, NULL, &qp), IB_INVALID_CQ_HANDLE);
	CU_ASSERT_EQUAL(make_qp(h_pd, (ib_cq_handle_t)h_pd, NULL, &qp), IB_INVALID_CQ_HANDLE);
	CU_ASSERT_EQUAL(make_qp(h_pd, cq, (ib_srq_handle_t)cq, &qp), IB_INVALID_SRQ_HANDLE);
	CU_ASSERT_EQUAL(make_qp(NULL, cq, NULL, &qp), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL(make_qp(h_pd, cq, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_qp(h_pd, NULL, NULL, NULL, &qp), IB_INVALID_PARAMETER);
	/* A CQ of another CA. */
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[1], NULL, NULL, &ca2), IB_SUCCESS);
	{
		ib_cq_create_t cc = { 4, on_comp, NULL };

		CU_ASSERT_EQUAL_FATAL(ib_create_cq(ca2, &cc, NULL, NULL, &cq_other), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL(make_qp(h_pd, cq_other, NULL, &qp), IB_INVALID_CQ_HANDLE);
	/* Too deep: IB_INVALID_MAX_WRS (or the setting) from the provider. */
	memset(&c, 0, sizeof(c));
	c.qp_type = IB_QPT_UNRELIABLE_DGRM;
	c.sq_depth = 1u << 30;
	c.rq_depth = 1;
	c.sq_sge = c.rq_sge = 1;
	c.h_sq_cq = c.h_rq_cq = cq;
	CU_ASSERT_NOT_EQUAL(ib_create_qp(h_pd, &c, NULL, NULL, &qp), IB_SUCCESS);

	CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, cq, NULL, &qp), IB_SUCCESS);
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(ib_query_qp(qp, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RESET);
	CU_ASSERT_EQUAL(a.qp_type, IB_QPT_UNRELIABLE_DGRM);
	CU_ASSERT_EQUAL(a.h_pd, h_pd);
	CU_ASSERT_EQUAL(a.h_sq_cq, cq);
	CU_ASSERT_EQUAL(a.h_rq_cq, cq);
	CU_ASSERT_PTR_NULL(a.h_srq);
	CU_ASSERT_NOT_EQUAL(a.num, 0);
	CU_ASSERT_EQUAL(ib_query_qp(qp, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_modify_qp(qp, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTS), IB_INVALID_QP_STATE);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_INIT), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTR), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_RTS), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(qp, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.state, IB_QPS_RTS);
	CU_ASSERT_EQUAL(a.qkey, CL_HTON32(0x11));
	CU_ASSERT_EQUAL(ib_destroy_qp(qp, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_qp(qp, on_destroy), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_query_qp(qp, &a), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(wait_count(&n_destroy[3], 1), 1);
	down();
	CU_ASSERT_EQUAL(n_destroy[3], 1);
}

static void test_srq_and_events(void)
{
	ib_srq_attr_t sa = { 16, 1, 0 }, q;
	ib_srq_handle_t srq;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	ib_qp_attr_t a;
	ib_recv_wr_t wr;
	ib_local_ds_t ds;
	static uint8_t buf[64];

	up();
	cq = make_cq(32);
	CU_ASSERT_EQUAL(ib_create_srq(h_pd, NULL, NULL, NULL, &srq), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_srq(h_pd, &sa, NULL, NULL, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_srq(NULL, &sa, NULL, NULL, &srq), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_create_srq(h_pd, &sa, &tags[4], on_event, &srq), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_srq(srq, &q), IB_SUCCESS);
	CU_ASSERT(q.max_wr >= 16);
	CU_ASSERT_EQUAL(ib_query_srq(srq, NULL), IB_INVALID_PARAMETER);
	q.srq_limit = 4;
	CU_ASSERT_EQUAL(ib_modify_srq(srq, &q, IB_SRQ_LIMIT), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_srq(srq, &q), IB_SUCCESS);
	CU_ASSERT_EQUAL(q.srq_limit, 4);
	CU_ASSERT_EQUAL(ib_modify_srq(srq, NULL, IB_SRQ_LIMIT), IB_INVALID_PARAMETER);
	memset(&wr, 0, sizeof(wr));
	ds.vaddr = (uintptr_t)buf;
	ds.length = sizeof(buf);
	ds.lkey = 0;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	CU_ASSERT_EQUAL(ib_post_srq_recv(srq, &wr, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_post_srq_recv(srq, NULL, NULL), IB_INVALID_PARAMETER);

	CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, cq, srq, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(qp, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.h_srq, srq);
	CU_ASSERT_EQUAL(ib_destroy_srq(srq, NULL), IB_RESOURCE_BUSY);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, NULL), IB_RESOURCE_BUSY);

	/* A QP on an SRQ going to ERROR reports the last WQE: a QP event with
	 * the QP's handle and context. */
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_INIT), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_ERROR), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_count(&n_event, 1), 1);
	pthread_mutex_lock(&cb_lock);
	CU_ASSERT_EQUAL(last_event.code, IB_AE_SRQ_QP_LAST_WQE_REACHED);
	CU_ASSERT_PTR_EQUAL(last_event.context, &tags[3]);
	CU_ASSERT_EQUAL(last_event.handle.h_qp, qp);
	pthread_mutex_unlock(&cb_lock);

	CU_ASSERT_EQUAL(ib_destroy_qp(qp, ib_sync_destroy), IB_SUCCESS);

	/* Inside its own event callback, a QP cannot be destroyed
	 * synchronously (IB_INVALID_STATE, the handle stays valid), and can
	 * be asynchronously. */
	CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, cq, srq, &qp), IB_SUCCESS);
	destroy_in_event = 1;
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_INIT), IB_SUCCESS);
	CU_ASSERT_EQUAL(to_state(qp, IB_QPS_ERROR), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(wait_count(&n_event, 2), 2);
	destroy_in_event = 0;
	pthread_mutex_lock(&cb_lock);
	CU_ASSERT_EQUAL(st_sync_in_cb, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(st_async_in_cb, IB_SUCCESS);
	pthread_mutex_unlock(&cb_lock);
	CU_ASSERT_EQUAL(ib_query_qp(qp, &a), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_srq(srq, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_srq(srq, on_destroy), IB_INVALID_SRQ_HANDLE);
	CU_ASSERT_EQUAL(wait_count(&n_destroy[4], 1), 1);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, NULL), IB_SUCCESS);
	down();
}

static void test_mr(void)
{
	static uint8_t buf[8192];
	ib_mr_create_t mc = { .vaddr = buf, .length = sizeof(buf), .access_ctrl = IB_AC_LOCAL_WRITE };
	ib_mr_handle_t mr, mr2, mr3;
	ib_mr_attr_t a;
	ib_pd_handle_t pd2;
	ib_phys_create_t pc;
	net32_t lkey, rkey, lkey2;
	uint64_t va;

	up();
	CU_ASSERT_EQUAL(ib_reg_mem(h_pd, NULL, &lkey, &rkey, &mr), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_mem(h_pd, &mc, NULL, &rkey, &mr), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_mem(h_pd, &mc, &lkey, NULL, &mr), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_mem(h_pd, &mc, &lkey, &rkey, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_mem(NULL, &mc, &lkey, &rkey, &mr), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(h_pd, &mc, &lkey, &rkey, &mr), IB_SUCCESS);
	memset(&a, 0, sizeof(a));
	CU_ASSERT_EQUAL(ib_query_mr(mr, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.h_pd, h_pd);
	CU_ASSERT_EQUAL(a.lkey, lkey);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_LOCAL_WRITE);
	CU_ASSERT_EQUAL(ib_query_mr(mr, NULL), IB_INVALID_PARAMETER);

	/* Physical registration: the soft provider has none. */
	memset(&pc, 0, sizeof(pc));
	va = 0;
	CU_ASSERT_EQUAL(ib_reg_phys(h_pd, &pc, &va, &lkey2, &rkey, &mr2), IB_UNSUPPORTED);
	CU_ASSERT_EQUAL(ib_reg_phys(h_pd, NULL, &va, &lkey2, &rkey, &mr2), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_rereg_phys(mr, IB_MR_MOD_ACCESS, &pc, &va, &lkey2, &rkey, NULL),
			IB_UNSUPPORTED);

	/* Re-registration: access, then PD. */
	mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE;
	CU_ASSERT_EQUAL(ib_rereg_mem(mr, IB_MR_MOD_ACCESS, &mc, &lkey2, &rkey, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_mr(mr, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.access_ctrl, IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE);
	CU_ASSERT_EQUAL(a.lkey, lkey2);
	CU_ASSERT_EQUAL(ib_rereg_mem(mr, IB_MR_MOD_ACCESS, NULL, &lkey2, &rkey, NULL),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_rereg_mem(mr, 0, &mc, &lkey2, &rkey, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_rereg_mem(mr, IB_MR_MOD_PD, NULL, &lkey2, &rkey, NULL),
			IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &pd2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_rereg_mem(mr, IB_MR_MOD_PD, NULL, &lkey2, &rkey, pd2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_mr(mr, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.h_pd, pd2);

	/* Shared: a new region on the same memory. */
	va = 0;
	CU_ASSERT_EQUAL(ib_reg_shared(mr, h_pd, IB_AC_LOCAL_WRITE, NULL, &lkey2, &rkey, &mr2),
			IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_shared(mr, NULL, IB_AC_LOCAL_WRITE, &va, &lkey2, &rkey, &mr2),
			IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_reg_shared(mr, h_pd, IB_AC_LOCAL_WRITE, &va, &lkey2, &rkey, &mr2),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL(va, (uint64_t)(uintptr_t)buf);
	CU_ASSERT_NOT_EQUAL(lkey2, lkey);
	CU_ASSERT_EQUAL(ib_query_mr(mr2, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.h_pd, h_pd);

	CU_ASSERT_EQUAL(ib_dereg_mr(mr), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mr(mr), IB_INVALID_MR_HANDLE);
	CU_ASSERT_EQUAL(ib_query_mr(mr, &a), IB_INVALID_MR_HANDLE);
	CU_ASSERT_EQUAL(ib_query_mr(mr2, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd2, ib_sync_destroy), IB_SUCCESS);
	mr3 = mr2;
	CU_ASSERT_EQUAL(ib_dereg_mr(mr3), IB_SUCCESS);
	down();
}

static void test_shmid(void)
{
	ib_mr_create_t mc;
	ib_shmid_t shmid;
	ib_mr_handle_t mr;
	ib_mr_attr_t a;
	struct shmid_ds ds;
	net32_t lkey, rkey;
	uint64_t va = 0;
	int id;

	up();
	id = shmget(IPC_PRIVATE, 16384, IPC_CREAT | 0600);
	CU_ASSERT_FATAL(id >= 0);
	memset(shmid, 0, sizeof(shmid));
	memcpy(shmid, &id, sizeof(id));
	memset(&mc, 0, sizeof(mc));
	mc.length = 8192;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL(ib_reg_shmid(h_pd, shmid, NULL, &va, &lkey, &rkey, &mr), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_shmid(NULL, shmid, &mc, &va, &lkey, &rkey, &mr), IB_INVALID_PD_HANDLE);
	mc.length = 1u << 20;
	CU_ASSERT_EQUAL(ib_reg_shmid(h_pd, shmid, &mc, &va, &lkey, &rkey, &mr), IB_INVALID_SETTING);
	mc.length = 8192;
	CU_ASSERT_EQUAL_FATAL(ib_reg_shmid(h_pd, shmid, &mc, &va, &lkey, &rkey, &mr), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(va, 0);
	CU_ASSERT_EQUAL(shmctl(id, IPC_STAT, &ds), 0);
	CU_ASSERT_EQUAL(ds.shm_nattch, 1);
	CU_ASSERT_EQUAL(ib_query_mr(mr, &a), IB_SUCCESS);
	CU_ASSERT_EQUAL(a.lkey, lkey);
	CU_ASSERT_EQUAL(a.local_lb, va);
	/* The region is usable memory: write through the attach address. */
	memset((void *)(uintptr_t)va, 0xA5, 8192);
	CU_ASSERT_EQUAL(ib_dereg_mr(mr), IB_SUCCESS);
	/* Detached once the (asynchronous) cleanup ran: closing the AL waits. */
	down();
	CU_ASSERT_EQUAL(shmctl(id, IPC_STAT, &ds), 0);
	CU_ASSERT_EQUAL(ds.shm_nattch, 0);
	shmctl(id, IPC_RMID, NULL);
}

static void test_mw(void)
{
	static uint8_t buf[4096];
	ib_mr_create_t mc = { .vaddr = buf, .length = sizeof(buf),
			      .access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_MW_BIND };
	ib_mw_handle_t mw;
	ib_mr_handle_t mr;
	ib_pd_handle_t pd_out;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	ib_bind_wr_t bw;
	net32_t rkey, rkey2, lkey, mrkey;

	up();
	CU_ASSERT_EQUAL(ib_create_mw(h_pd, NULL, &mw), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_mw(h_pd, &rkey, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_create_mw(NULL, &rkey, &mw), IB_INVALID_PD_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_create_mw(h_pd, &rkey, &mw), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_mw(mw, &pd_out, &rkey2), IB_SUCCESS);
	CU_ASSERT_EQUAL(pd_out, h_pd);
	CU_ASSERT_EQUAL(rkey2, rkey);
	CU_ASSERT_EQUAL(ib_query_mw(mw, NULL, &rkey2), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_query_mw(mw, &pd_out, NULL), IB_INVALID_PARAMETER);

	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(h_pd, &mc, &lkey, &mrkey, &mr), IB_SUCCESS);
	cq = make_cq(8);
	CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, cq, NULL, &qp), IB_SUCCESS);
	memset(&bw, 0, sizeof(bw));
	bw.h_mr = mr;
	bw.local_ds.vaddr = (uintptr_t)buf;
	bw.local_ds.length = 128;
	bw.local_ds.lkey = lkey;
	bw.access_ctrl = IB_AC_RDMA_READ;
	CU_ASSERT_EQUAL(ib_bind_mw(mw, qp, NULL, &rkey2), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_bind_mw(mw, qp, &bw, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_bind_mw(mw, NULL, &bw, &rkey2), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_bind_mw(NULL, qp, &bw, &rkey2), IB_INVALID_MW_HANDLE);
	bw.h_mr = (ib_mr_handle_t)mw;
	CU_ASSERT_EQUAL(ib_bind_mw(mw, qp, &bw, &rkey2), IB_INVALID_MR_HANDLE);
	bw.h_mr = mr;
	/* Binds need a connected QP; a UD QP refuses. */
	CU_ASSERT_EQUAL(ib_bind_mw(mw, qp, &bw, &rkey2), IB_INVALID_SERVICE_TYPE);
	CU_ASSERT_EQUAL(ib_destroy_mw(mw), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mw(mw), IB_INVALID_MW_HANDLE);
	CU_ASSERT_EQUAL(ib_query_mw(mw, &pd_out, &rkey2), IB_INVALID_MW_HANDLE);
	down();
}

/* Destroying a PD destroys its QPs, SRQs, AVs, MRs and MWs: their handles
 * fail at once, the PD's callback comes once, and the CQ is free again. */
static void test_pd_destroys_children(void)
{
	static uint8_t buf[4096];
	ib_mr_create_t mc = { .vaddr = buf, .length = sizeof(buf), .access_ctrl = IB_AC_LOCAL_WRITE };
	ib_srq_attr_t sa = { 8, 1, 0 };
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp, qp2;
	ib_srq_handle_t srq;
	ib_av_handle_t av;
	ib_mr_handle_t mr;
	ib_mw_handle_t mw;
	ib_av_attr_t aa;
	ib_qp_attr_t qa;
	ib_mr_attr_t ma;
	net32_t lkey, rkey;
	uint32_t size;

	up();
	cq = make_cq(16);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, &tags[5], &pd), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(make_qp(pd, cq, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_srq(pd, &sa, NULL, NULL, &srq), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(make_qp(pd, cq, srq, &qp2), IB_SUCCESS);
	av_attr(&aa, 3);
	CU_ASSERT_EQUAL_FATAL(ib_create_av(pd, &aa, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(pd, &mc, &lkey, &rkey, &mr), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_mw(pd, &rkey, &mw), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, NULL), IB_RESOURCE_BUSY);

	CU_ASSERT_EQUAL(ib_dealloc_pd(pd, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_qp(qp, &qa), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_query_qp(qp2, &qa), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(ib_query_srq(srq, &sa), IB_INVALID_SRQ_HANDLE);
	CU_ASSERT_EQUAL(ib_query_mr(mr, &ma), IB_INVALID_MR_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_av(av), IB_INVALID_AV_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_mw(mw), IB_INVALID_MW_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_qp(qp, NULL), IB_INVALID_QP_HANDLE);
	CU_ASSERT_EQUAL(wait_count(&n_destroy[5], 1), 1);
	CU_ASSERT_EQUAL(ib_query_cq(cq, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(get_count(&n_destroy[3]), 0); /* children: no callback */
	down();
	CU_ASSERT_EQUAL(n_destroy[5], 1);
}

/* Every call with a NULL handle, a handle of another type, a destroyed
 * handle and a destroyed handle whose slot is reused. */
static void test_bad_handle_sweep(void)
{
	static uint8_t buf[256];
	ib_mr_create_t mc = { .vaddr = buf, .length = sizeof(buf), .access_ctrl = IB_AC_LOCAL_WRITE };
	ib_srq_attr_t sa = { 8, 1, 0 };
	ib_cq_create_t cc = { 8, on_comp, NULL };
	ib_av_attr_t aa;
	ib_qp_attr_t qa;
	ib_mr_attr_t ma;
	ib_qp_mod_t qm;
	ib_send_wr_t swr;
	ib_recv_wr_t rwr;
	ib_wc_t wc, *pfree, *pdone;
	ib_bind_wr_t bw;
	ib_pd_handle_t pd_out;
	ib_cq_handle_t good_cq, cq;
	ib_qp_handle_t qp, good_qp;
	ib_srq_handle_t srq;
	ib_av_handle_t av;
	ib_mr_handle_t mr;
	ib_mw_handle_t mw;
	net32_t lkey, rkey;
	uint64_t va;
	uint32_t u32;
	al_handle_t keep;
	int round;

	up();
	memset(&qm, 0, sizeof(qm));
	memset(&swr, 0, sizeof(swr));
	memset(&rwr, 0, sizeof(rwr));
	memset(&bw, 0, sizeof(bw));
	av_attr(&aa, 2);
	good_cq = make_cq(8);
	CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, good_cq, NULL, &good_qp), IB_SUCCESS);

	/* round 0: NULL; 1: wrong type; 2: destroyed; 3: destroyed, slot reused */
	for (round = 0; round < 4; round++) {
		ib_cq_handle_t b_cq = NULL;
		ib_qp_handle_t b_qp = NULL;
		ib_srq_handle_t b_srq = NULL;
		ib_av_handle_t b_av = NULL;
		ib_mr_handle_t b_mr = NULL;
		ib_mw_handle_t b_mw = NULL;
		ib_pd_handle_t b_pd = NULL;
		ib_ca_handle_t b_ca = NULL;

		if (round == 1) {
			/* Each where another kind is expected. */
			b_cq = (ib_cq_handle_t)h_pd;
			b_qp = (ib_qp_handle_t)good_cq;
			b_srq = (ib_srq_handle_t)good_qp;
			b_av = (ib_av_handle_t)good_qp;
			b_mr = (ib_mr_handle_t)h_pd;
			b_mw = (ib_mw_handle_t)good_cq;
			b_pd = (ib_pd_handle_t)h_ca;
			b_ca = (ib_ca_handle_t)h_pd;
		} else if (round >= 2) {
			ib_pd_handle_t pd;
			ib_ca_handle_t ca;
			ib_net64_t guid[2];
			size_t n = 2;

			CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guid, &n), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guid[1], NULL, NULL, &ca), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(ca, IB_PDT_NORMAL, NULL, &pd), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_create_cq(ca, &cc, NULL, NULL, &cq), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_create_srq(pd, &sa, NULL, NULL, &srq), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_create_av(pd, &aa, &av), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_reg_mem(pd, &mc, &lkey, &rkey, &mr), IB_SUCCESS);
			CU_ASSERT_EQUAL_FATAL(ib_create_mw(pd, &rkey, &mw), IB_SUCCESS);
			{
				ib_qp_create_t c;

				memset(&c, 0, sizeof(c));
				c.qp_type = IB_QPT_UNRELIABLE_DGRM;
				c.sq_depth = c.rq_depth = 4;
				c.sq_sge = c.rq_sge = 1;
				c.h_sq_cq = c.h_rq_cq = cq;
				CU_ASSERT_EQUAL_FATAL(ib_create_qp(pd, &c, NULL, NULL, &qp), IB_SUCCESS);
			}
			b_cq = cq;
			b_qp = qp;
			b_srq = srq;
			b_av = av;
			b_mr = mr;
			b_mw = mw;
			b_pd = pd;
			b_ca = ca;
			CU_ASSERT_EQUAL(ib_close_ca(ca, ib_sync_destroy), IB_SUCCESS);
			if (round == 3) {
				CU_ASSERT_FATAL(reuse_slot(ca, &keep));
				al_handle_free(keep);
				CU_ASSERT_FATAL(reuse_slot(qp, &keep));
				CU_ASSERT_EQUAL(ib_query_qp(qp, &qa), IB_INVALID_QP_HANDLE);
				CU_ASSERT_EQUAL(ib_post_send(qp, &swr, NULL), IB_INVALID_QP_HANDLE);
				al_handle_free(keep);
				CU_ASSERT_FATAL(reuse_slot(cq, &keep));
				CU_ASSERT_EQUAL(ib_poll_cq(cq, &pfree, &pdone), IB_INVALID_CQ_HANDLE);
				al_handle_free(keep);
			}
		}
		/* CA */
		CU_ASSERT_EQUAL(ib_query_ca(b_ca, NULL, &u32), IB_INVALID_CA_HANDLE);
		CU_ASSERT_EQUAL(ib_modify_ca(b_ca, 1, 0, NULL), IB_INVALID_CA_HANDLE);
		CU_ASSERT_EQUAL(ib_close_ca(b_ca, NULL), IB_INVALID_CA_HANDLE);
		CU_ASSERT_EQUAL(ib_alloc_pd(b_ca, IB_PDT_NORMAL, NULL, &pd_out), IB_INVALID_CA_HANDLE);
		CU_ASSERT_EQUAL(ib_create_cq(b_ca, &cc, NULL, NULL, &cq), IB_INVALID_CA_HANDLE);
		/* PD */
		CU_ASSERT_EQUAL(ib_dealloc_pd(b_pd, NULL), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(ib_create_av(b_pd, &aa, &av), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(ib_create_srq(b_pd, &sa, NULL, NULL, &srq), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(make_qp(b_pd, good_cq, NULL, &qp), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(ib_reg_mem(b_pd, &mc, &lkey, &rkey, &mr), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(ib_reg_phys(b_pd, NULL, &va, &lkey, &rkey, &mr), IB_INVALID_PD_HANDLE);
		CU_ASSERT_EQUAL(ib_create_mw(b_pd, &rkey, &mw), IB_INVALID_PD_HANDLE);
		/* AV */
		CU_ASSERT_EQUAL(ib_query_av(b_av, &aa, &pd_out), IB_INVALID_AV_HANDLE);
		CU_ASSERT_EQUAL(ib_modify_av(b_av, &aa), IB_INVALID_AV_HANDLE);
		CU_ASSERT_EQUAL(ib_destroy_av(b_av), IB_INVALID_AV_HANDLE);
		/* CQ */
		CU_ASSERT_EQUAL(ib_query_cq(b_cq, &u32), IB_INVALID_CQ_HANDLE);
		CU_ASSERT_EQUAL(ib_modify_cq(b_cq, &u32), IB_INVALID_CQ_HANDLE);
		CU_ASSERT_EQUAL(ib_destroy_cq(b_cq, NULL), IB_INVALID_CQ_HANDLE);
		CU_ASSERT_EQUAL(ib_peek_cq(b_cq, &u32), IB_INVALID_CQ_HANDLE);
		pfree = &wc;
		wc.p_next = NULL;
		CU_ASSERT_EQUAL(ib_poll_cq(b_cq, &pfree, &pdone), IB_INVALID_CQ_HANDLE);
		CU_ASSERT_EQUAL(ib_rearm_cq(b_cq, FALSE), IB_INVALID_CQ_HANDLE);
		CU_ASSERT_EQUAL(ib_rearm_n_cq(b_cq, 1), IB_INVALID_CQ_HANDLE);
		CU_ASSERT_EQUAL(make_qp(h_pd, b_cq, NULL, &qp), IB_INVALID_CQ_HANDLE);
		/* QP */
		CU_ASSERT_EQUAL(ib_query_qp(b_qp, &qa), IB_INVALID_QP_HANDLE);
		CU_ASSERT_EQUAL(ib_modify_qp(b_qp, &qm), IB_INVALID_QP_HANDLE);
		CU_ASSERT_EQUAL(ib_destroy_qp(b_qp, NULL), IB_INVALID_QP_HANDLE);
		CU_ASSERT_EQUAL(ib_post_send(b_qp, &swr, NULL), IB_INVALID_QP_HANDLE);
		CU_ASSERT_EQUAL(ib_post_recv(b_qp, &rwr, NULL), IB_INVALID_QP_HANDLE);
		/* SRQ (its post reports IB_INVALID_QP_HANDLE, as documented) */
		CU_ASSERT_EQUAL(ib_query_srq(b_srq, &sa), IB_INVALID_SRQ_HANDLE);
		CU_ASSERT_EQUAL(ib_modify_srq(b_srq, &sa, IB_SRQ_LIMIT), IB_INVALID_SRQ_HANDLE);
		CU_ASSERT_EQUAL(ib_destroy_srq(b_srq, NULL), IB_INVALID_SRQ_HANDLE);
		CU_ASSERT_EQUAL(ib_post_srq_recv(b_srq, &rwr, NULL), IB_INVALID_QP_HANDLE);
		if (b_srq)
			CU_ASSERT_EQUAL(make_qp(h_pd, good_cq, b_srq, &qp), IB_INVALID_SRQ_HANDLE);
		/* MR */
		CU_ASSERT_EQUAL(ib_query_mr(b_mr, &ma), IB_INVALID_MR_HANDLE);
		CU_ASSERT_EQUAL(ib_rereg_mem(b_mr, IB_MR_MOD_ACCESS, &mc, &lkey, &rkey, NULL),
				IB_INVALID_MR_HANDLE);
		CU_ASSERT_EQUAL(ib_rereg_phys(b_mr, IB_MR_MOD_ACCESS, NULL, &va, &lkey, &rkey, NULL),
				IB_INVALID_MR_HANDLE);
		CU_ASSERT_EQUAL(ib_reg_shared(b_mr, h_pd, IB_AC_LOCAL_WRITE, &va, &lkey, &rkey, &mr),
				IB_INVALID_MR_HANDLE);
		CU_ASSERT_EQUAL(ib_dereg_mr(b_mr), IB_INVALID_MR_HANDLE);
		/* MW */
		CU_ASSERT_EQUAL(ib_query_mw(b_mw, &pd_out, &rkey), IB_INVALID_MW_HANDLE);
		CU_ASSERT_EQUAL(ib_bind_mw(b_mw, good_qp, &bw, &rkey), IB_INVALID_MW_HANDLE);
		CU_ASSERT_EQUAL(ib_destroy_mw(b_mw), IB_INVALID_MW_HANDLE);
	}
	down();
}

/* Calls racing the destruction of their object either work or report the
 * invalid handle; never touch freed memory (run under ASan/TSan). */
static struct {
	ib_qp_handle_t qp;
	ib_cq_handle_t cq;
	int iterations;       /* cb_lock */
	int bad_status;
} race;

static void *race_worker(void *arg)
{
	ib_qp_attr_t a;
	ib_recv_wr_t wr;
	uint32_t n;
	int qp_gone = 0, cq_gone = 0;
	ib_api_status_t s;

	(void)arg;
	memset(&wr, 0, sizeof(wr));
	while (!qp_gone || !cq_gone) {
		s = ib_query_qp(race.qp, &a);
		if (s == IB_INVALID_QP_HANDLE)
			qp_gone = 1;
		else if (s != IB_SUCCESS || qp_gone)
			race.bad_status++;
		s = ib_post_recv(race.qp, &wr, NULL);
		if (s != IB_INVALID_QP_HANDLE && s != IB_SUCCESS && s != IB_INSUFFICIENT_RESOURCES &&
		    s != IB_INVALID_QP_STATE) /* (a QP in RESET takes no receives) */
			race.bad_status++;
		s = ib_peek_cq(race.cq, &n);
		if (s == IB_INVALID_CQ_HANDLE)
			cq_gone = 1;
		else if (s != IB_SUCCESS || cq_gone)
			race.bad_status++;
		pthread_mutex_lock(&cb_lock);
		race.iterations++;
		pthread_cond_broadcast(&cb_cond);
		pthread_mutex_unlock(&cb_lock);
	}
	return NULL;
}

static void test_destroy_races_calls(void)
{
	pthread_t th;
	int round;

	up();
	for (round = 0; round < 20; round++) {
		race.cq = make_cq(8);
		CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, race.cq, NULL, &race.qp), IB_SUCCESS);
		pthread_mutex_lock(&cb_lock);
		race.iterations = 0;
		pthread_mutex_unlock(&cb_lock);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, race_worker, NULL), 0);
		CU_ASSERT(wait_count(&race.iterations, 1 + round) >= 1 + round);
		CU_ASSERT_EQUAL(ib_destroy_qp(race.qp, round & 1 ? ib_sync_destroy : NULL),
				IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_destroy_cq(race.cq, round & 1 ? NULL : ib_sync_destroy),
				IB_SUCCESS);
		pthread_join(th, NULL);
	}
	CU_ASSERT_EQUAL(race.bad_status, 0);
	down();
}

/* ib_close_al with everything open releases everything. */
static void test_close_al_releases_all(void)
{
	static uint8_t buf[1024];
	ib_mr_create_t mc = { .vaddr = buf, .length = sizeof(buf), .access_ctrl = IB_AC_LOCAL_WRITE };
	ib_srq_attr_t sa = { 8, 1, 0 };
	ib_av_attr_t aa;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	ib_srq_handle_t srq;
	ib_av_handle_t av;
	ib_mr_handle_t mr;
	ib_mw_handle_t mw;
	ib_al_handle_t h_al2;
	ib_ca_handle_t ca2;
	net32_t lkey, rkey;
	uint32_t handles;
	ib_net64_t guid[2];
	size_t n = 2;

	handles = al_handle_count();
	test_track_begin();
	up();
	cq = make_cq(8);
	CU_ASSERT_EQUAL(make_qp(h_pd, cq, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_create_srq(h_pd, &sa, NULL, NULL, &srq), IB_SUCCESS);
	CU_ASSERT_EQUAL(make_qp(h_pd, cq, srq, &qp), IB_SUCCESS);
	av_attr(&aa, 4);
	CU_ASSERT_EQUAL(ib_create_av(h_pd, &aa, &av), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_mem(h_pd, &mc, &lkey, &rkey, &mr), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_create_mw(h_pd, &rkey, &mw), IB_SUCCESS);
	/* A second instance sharing the CA, also left open until the end. */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al2), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al2, guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_open_ca(h_al2, guid[0], NULL, NULL, &ca2), IB_SUCCESS);
	CU_ASSERT(cl_mem_track_count() > 0);
	CU_ASSERT_EQUAL(ib_close_al(h_al2), IB_SUCCESS);
	down();
	CU_ASSERT_EQUAL(al_handle_count(), handles);
	test_track_end();
}

/* Items that hold every thread of the object manager until released
 * (counted and released under cb_lock, as the callbacks are). */
static int n_mgr_held;
static int mgr_release;

static void CL_API mgr_hold_cb(cl_async_proc_item_t *p_item)
{
	(void)p_item;
	pthread_mutex_lock(&cb_lock);
	n_mgr_held++;
	pthread_cond_broadcast(&cb_cond);
	while (!mgr_release)
		pthread_cond_wait(&cb_cond, &cb_lock);
	pthread_mutex_unlock(&cb_lock);
}

/*
 * Destroying many data-path objects one after the other costs a few grace
 * periods (membarriers that interrupt every thread of the process), not
 * one each: a QP's drain takes a grace period that began after its handle
 * was invalidated, when one has ended meanwhile. The object manager's
 * threads are held while 32 QPs are destroyed (each invalidated by its
 * ib_destroy_qp), so that all wait in its queue; once released, its threads
 * drain them with at most one grace period each, not one per QP.
 */
static void test_destroys_share_grace_periods(void)
{
	enum { N = 32 };
	ib_qp_handle_t qp[N];
	cl_async_proc_item_t hold[8];
	ib_cq_handle_t cq;
	uint32_t n_thr, i;
	uint64_t gp;

	up();
	cq = make_cq(64);
	for (i = 0; i < N; i++)
		CU_ASSERT_EQUAL_FATAL(make_qp(h_pd, cq, NULL, &qp[i]), IB_SUCCESS);
	n_thr = gp_obj_mgr->async_proc_mgr.thread_pool.thread_count;
	CU_ASSERT_FATAL(n_thr >= 1 && n_thr <= 8);
	n_mgr_held = 0;
	mgr_release = 0;
	/* One at a time: a wake-up of the pool sent while another is pending
	 * wakes one thread, which would take the next item only after the first. */
	for (i = 0; i < n_thr; i++) {
		memset(&hold[i], 0, sizeof(hold[i]));
		hold[i].pfn_callback = mgr_hold_cb;
		cl_async_proc_queue(&gp_obj_mgr->async_proc_mgr, &hold[i]);
		CU_ASSERT_EQUAL(wait_count(&n_mgr_held, (int)i + 1), (int)i + 1);
	}
	memset(n_destroy, 0, sizeof(n_destroy));
	gp = al_epoch_grace_periods();
	for (i = 0; i < N; i++)
		CU_ASSERT_EQUAL(ib_destroy_qp(qp[i], on_destroy), IB_SUCCESS);
	for (i = 0; i < N; i++)
		CU_ASSERT_EQUAL(ib_query_qp(qp[i], NULL), IB_INVALID_QP_HANDLE);
	pthread_mutex_lock(&cb_lock);
	mgr_release = 1;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
	CU_ASSERT_EQUAL(wait_count(&n_destroy[3], N), N);
	/* One a thread at most (two may begin before either ends). */
	CU_ASSERT(al_epoch_grace_periods() - gp <= n_thr);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, ib_sync_destroy), IB_SUCCESS);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_pd),
	TEST_ENTRY(test_av),
	TEST_ENTRY(test_cq),
	TEST_ENTRY(test_qp),
	TEST_ENTRY(test_srq_and_events),
	TEST_ENTRY(test_mr),
	TEST_ENTRY(test_shmid),
	TEST_ENTRY(test_mw),
	TEST_ENTRY(test_pd_destroys_children),
	TEST_ENTRY(test_bad_handle_sweep),
	TEST_ENTRY(test_destroy_races_calls),
	TEST_ENTRY(test_close_al_releases_all),
	TEST_ENTRY(test_destroys_share_grace_periods),
};

TEST_MAIN("al_verbs", tests)
