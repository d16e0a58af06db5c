/*
 * ibal tests: a minimal subnet manager written on ib_al.h brings up a soft port with the embedded SM off.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * What a subnet manager does first, through the public API only: a QP0
 * alias and a MAD service of the directed-route class; NodeInfo and
 * PortInfo of its own port with directed-route SMPs of hop count 0 (the
 * access layer's local route: they never reach the wire); then PortInfo
 * Sets (LID, master SM LID, ARMED, ACTIVE) the same way. The port becomes
 * ACTIVE with those values. Then what the port's SMA does not own reaches
 * the SM's QP0 service instead of being answered by the SMA: a Trap and an
 * SMInfo Get, LID-routed to the port (a TrapRepress is a response: the
 * access layer gives it to the service whose Trap it answers). With
 * IBAL_SOFT_SM=off; waits are bounded condition waits.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"

#define WAIT_MS 10000
#define SM_LID 0x21

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca;
static ib_net64_t port_guid;
static ib_pool_key_t pool_key;
static ib_mad_svc_handle_t dr_svc, lid_svc;

/* What the services saw (under lock). */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static ib_smp_t resp;               /* the last response */
static int n_resp, n_send_err;
static uint8_t unsol_method[8];
static ib_net16_t unsol_attr[8];
static int n_unsol;

static void AL_API on_send(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *p_mad)
{
	(void)h;
	(void)ctx;
	pthread_mutex_lock(&lock);
	if (p_mad->status != IB_WCS_SUCCESS)
		n_send_err++;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	ib_put_mad(p_mad);
}

static void AL_API on_recv(const ib_mad_svc_handle_t h, void *ctx, ib_mad_element_t *p_mad)
{
	const ib_smp_t *smp = (const ib_smp_t *)p_mad->p_mad_buf;

	(void)h;
	(void)ctx;
	pthread_mutex_lock(&lock);
	if (ib_mad_is_response(p_mad->p_mad_buf)) {
		resp = *smp;
		n_resp++;
	} else if (n_unsol < 8) {
		unsol_method[n_unsol] = smp->method;
		unsol_attr[n_unsol] = smp->attr_id;
		n_unsol++;
	}
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	ib_put_mad(p_mad);
}

/* Waits until *p reaches @p n; the value. */
static int wait_for(const int *p, int n)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&lock);
	while (*p < n && !n_send_err)
		if (pthread_cond_timedwait(&cond, &lock, &ts))
			break;
	v = *p;
	pthread_mutex_unlock(&lock);
	return v;
}

static ib_mad_svc_handle_t reg(ib_qp_handle_t qp, uint8_t mgmt_class, boolean_t unsol)
{
	ib_mad_svc_handle_t h = NULL;
	ib_mad_svc_t s;

	memset(&s, 0, sizeof(s));
	s.pfn_mad_send_cb = on_send;
	s.pfn_mad_recv_cb = on_recv;
	s.mgmt_class = mgmt_class;
	s.mgmt_version = 1;
	s.svc_type = IB_MAD_SVC_DEFAULT;
	s.support_unsol = unsol;
	if (unsol) {
		s.method_array[IB_MAD_METHOD_GET] = TRUE;
		s.method_array[IB_MAD_METHOD_TRAP] = TRUE;
	}
	CU_ASSERT_EQUAL(ib_reg_mad_svc(qp, &s, &h), IB_SUCCESS);
	return h;
}

static void sm_up(void)
{
	ib_net64_t ca_guid;
	size_t n = 1;
	ib_pd_handle_t pd;
	ib_qp_handle_t qp;
	ib_qp_create_t qc;
	ib_ca_attr_t *a;
	uint32_t size = 0;

	strcpy(fab_dir, "/tmp/ibal-minism-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	setenv("IBAL_SOFT_SM", "off", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, &ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid, NULL, NULL, &h_ca), IB_SUCCESS);
	ib_query_ca(h_ca, NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, a, &size), IB_SUCCESS);
	port_guid = a->p_port_attr[0].port_guid;
	CU_ASSERT_EQUAL(a->p_port_attr[0].link_state, IB_LINK_INIT);   /* no SM brought it up */
	free(a);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_QP0_ALIAS;
	qc.sq_depth = qc.rq_depth = 16;
	qc.sq_sge = qc.rq_sge = 1;
	qc.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_ALIAS, NULL, &pd), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_spl_qp(pd, port_guid, &qc, NULL, NULL, &pool_key, &qp),
			      IB_SUCCESS);
	dr_svc = reg(qp, IB_MCLASS_SUBN_DIR, FALSE);
	lid_svc = reg(qp, IB_MCLASS_SUBN_LID, TRUE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dr_svc);
	CU_ASSERT_PTR_NOT_NULL_FATAL(lid_svc);
}

static void sm_down(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
	unsetenv("IBAL_SOFT_SM");
	unsetenv("IBAL_PROVIDERS");
}

/* Sends an SMP on @p svc to @p dlid (resp_expected when @p want_resp);
 * with a response, waits for it into @p p_out. */
static ib_api_status_t send_smp(ib_mad_svc_handle_t svc, const ib_smp_t *smp, ib_net16_t dlid,
				boolean_t want_resp, ib_smp_t *p_out)
{
	ib_mad_element_t *e;
	int before;

	if (ib_get_mad(pool_key, MAD_BLOCK_SIZE, &e) != IB_SUCCESS)
		return IB_INSUFFICIENT_MEMORY;
	memcpy(e->p_mad_buf, smp, MAD_BLOCK_SIZE);
	e->size = MAD_BLOCK_SIZE;
	e->remote_lid = dlid;
	e->remote_qp = 0;
	e->resp_expected = want_resp;
	e->timeout_ms = 200;
	e->retry_cnt = 3;
	pthread_mutex_lock(&lock);
	before = n_resp;
	pthread_mutex_unlock(&lock);
	if (ib_send_mad(svc, e, NULL) != IB_SUCCESS) {
		ib_put_mad(e);
		return IB_ERROR;
	}
	if (!want_resp)
		return IB_SUCCESS;
	if (wait_for(&n_resp, before + 1) != before + 1)
		return IB_TIMEOUT;
	pthread_mutex_lock(&lock);
	*p_out = resp;
	pthread_mutex_unlock(&lock);
	return IB_SUCCESS;
}

/* A directed-route SMP of hop count 0: to the SM's own port. */
static ib_api_status_t local_dr(uint8_t method, ib_net16_t attr, const void *data, size_t len,
				ib_smp_t *p_out)
{
	static uint64_t tid = 0x100;
	uint8_t path[IB_SUBNET_PATH_HOPS_MAX];
	ib_smp_t smp;

	memset(path, 0, sizeof(path));
	ib_smp_init_new(&smp, method, cl_hton64(++tid), attr, 0, 0, 0, path,
			IB_LID_PERMISSIVE, IB_LID_PERMISSIVE);
	if (data)
		memcpy(smp.data, data, len);
	return send_smp(dr_svc, &smp, IB_LID_PERMISSIVE, TRUE, p_out);
}

static void test_sm_brings_up_its_port(void)
{
	ib_smp_t r;
	ib_node_info_t ni;
	ib_port_info_t pi;
	ib_ca_attr_t *a;
	uint32_t size = 0;
	uint16_t lid;

	sm_up();
	/* NodeInfo of its own port. */
	CU_ASSERT_EQUAL_FATAL(local_dr(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, NULL, 0, &r), IB_SUCCESS);
	CU_ASSERT_EQUAL(r.method, IB_MAD_METHOD_GET_RESP);
	CU_ASSERT(ib_smp_is_d(&r));
	CU_ASSERT_EQUAL(r.status & ~IB_SMP_DIRECTION, 0);
	memcpy(&ni, r.data, sizeof(ni));
	CU_ASSERT_EQUAL(ni.node_type, IB_NODE_TYPE_CA);
	CU_ASSERT_EQUAL(ni.port_guid, port_guid);
	/* PortInfo: INIT, as no SM ran. */
	CU_ASSERT_EQUAL_FATAL(local_dr(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, NULL, 0, &r), IB_SUCCESS);
	memcpy(&pi, r.data, sizeof(pi));
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), IB_LINK_INIT);
	lid = cl_ntoh16(pi.base_lid) ? cl_ntoh16(pi.base_lid) : SM_LID;
	/* LID, master SM LID, ARMED; then ACTIVE. */
	pi.base_lid = cl_hton16(lid);
	pi.master_sm_base_lid = cl_hton16(lid);
	ib_port_info_set_port_state(&pi, IB_LINK_ARMED);
	CU_ASSERT_EQUAL_FATAL(local_dr(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, &pi, sizeof(pi), &r),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL(r.status & ~IB_SMP_DIRECTION, 0);
	memcpy(&pi, r.data, sizeof(pi));
	CU_ASSERT_EQUAL(ib_port_info_get_port_state(&pi), IB_LINK_ARMED);
	ib_port_info_set_port_state(&pi, IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL_FATAL(local_dr(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, &pi, sizeof(pi), &r),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL(r.status & ~IB_SMP_DIRECTION, 0);
	/* The access layer sees what the SM set. */
	ib_query_ca(h_ca, NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(ib_query_ca(h_ca, a, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(a->p_port_attr[0].link_state, IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL(cl_ntoh16(a->p_port_attr[0].lid), lid);
	CU_ASSERT_EQUAL(cl_ntoh16(a->p_port_attr[0].sm_lid), lid);
	free(a);
	CU_ASSERT_EQUAL(n_send_err, 0);

	/* What the SMA does not own reaches the SM's QP0 service. */
	{
		static const uint8_t methods[] = { IB_MAD_METHOD_TRAP, IB_MAD_METHOD_GET };
		ib_smp_t smp;
		unsigned i;

		for (i = 0; i < 2; i++) {
			memset(&smp, 0, sizeof(smp));
			smp.base_ver = 1;
			smp.mgmt_class = IB_MCLASS_SUBN_LID;
			smp.class_ver = 1;
			smp.method = methods[i];
			smp.trans_id = cl_hton64(0x500 + i);
			smp.attr_id = methods[i] == IB_MAD_METHOD_GET ? IB_MAD_ATTR_SM_INFO
								      : IB_MAD_ATTR_NOTICE;
			CU_ASSERT_EQUAL(send_smp(lid_svc, &smp, cl_hton16(lid), FALSE, NULL), IB_SUCCESS);
		}
		CU_ASSERT_EQUAL(wait_for(&n_unsol, 2), 2);
		for (i = 0; i < 2; i++) {
			CU_ASSERT_EQUAL(unsol_method[i], methods[i]);
			CU_ASSERT_EQUAL(unsol_attr[i], methods[i] == IB_MAD_METHOD_GET
								? IB_MAD_ATTR_SM_INFO
								: IB_MAD_ATTR_NOTICE);
		}
	}
	sm_down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_sm_brings_up_its_port),
};

TEST_MAIN("al_mini_sm", tests)
