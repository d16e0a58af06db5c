/*
 * ibal tests: the SA client against the soft fabric's embedded SM and SA, through the MAD services.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs in one process (IBAL_SOFT_CAS=2) on a fabric directory of
 * their own; the embedded SM brings their ports up and serves the SA on
 * the master's port. Everything goes through the public calls: PathRecord,
 * NodeRecord, PortInfoRecord and ClassPortInfo queries (a GetTable of
 * every NodeRecord needs RMPP), a ServiceRecord registered through one
 * port and found through the other, a multicast group created by one port
 * and joined by the other (with UD QPs attached: a datagram sent to the
 * group arrives), a subscription to "multicast group created" reports,
 * and, with the port taken down, a query that ends in IB_TIMEOUT.
 * Waits are bounded, never sleeps.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <iba/ibal_soft.h>
#include <complib/cl_waitobj.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/soft_ctl.h"
#include "al_sa_client.h"

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca[2];
static ib_port_attr_t port[2];     /* port 1 of each CA (p_gid_table not kept) */
static ib_gid_t gid[2];

static void read_port(int i)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;

	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca[i], p_attr, &size), IB_SUCCESS);
	port[i] = p_attr->p_port_attr[0];
	gid[i] = p_attr->p_port_attr[0].p_gid_table[0];
	port[i].p_gid_table = NULL;
	port[i].p_pkey_table = NULL;
	free(p_attr);
}

static void up(const char *sm)
{
	ib_net64_t guids[2];
	size_t n = 2;
	int i;

	strcpy(fab_dir, "/tmp/ibal-alsaf-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	if (sm)
		setenv("IBAL_SOFT_SM", sm, 1);
	else
		unsetenv("IBAL_SOFT_SM");
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[i], NULL, NULL, &h_ca[i]), IB_SUCCESS);
		read_port(i);
	}
}

static void down(void)
{
	if (h_al)
		CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	al_sa_quiesce();
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_SM");
}

/* ---- Callback results ---- */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
	ib_query_rec_t q;
	ib_reg_svc_rec_t r;
	ib_mcast_rec_t m;
	ib_member_rec_t mrec;
	ib_sub_rec_t s;
	int n_report;
	ib_mad_notice_attr_t notice;
} R;

static void r_reset(void)
{
	static int init;

	if (!init) {
		pthread_mutex_init(&R.lock, NULL);
		pthread_cond_init(&R.cond, NULL);
		init = 1;
	}
	pthread_mutex_lock(&R.lock);
	R.n = 0;                     /* reports are counted across requests */
	memset(&R.q, 0, sizeof(R.q));
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_query(ib_query_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.q = *p;
	R.n++;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_reg(ib_reg_svc_rec_t *p)
{
	R.r = *p;
	R.n++;
}

static void AL_API on_mcast(ib_mcast_rec_t *p)
{
	R.m = *p;
	if (p->p_member_rec)
		R.mrec = *p->p_member_rec;
	R.n++;
}

static void AL_API on_sub(ib_sub_rec_t *p)
{
	R.s = *p;
	R.n++;
}

static void AL_API on_report(ib_report_rec_t *p)
{
	pthread_mutex_lock(&R.lock);
	R.notice = *p->p_notice;
	R.n_report++;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

static int wait_for(int *p, int v)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	struct timespec ts;
	int got;

	pthread_mutex_lock(&R.lock);
	while (*p < v && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&R.cond, &R.lock, &ts);
	}
	got = *p;
	pthread_mutex_unlock(&R.lock);
	return got;
}

/* A synchronous query through port i; the result is in R.q. */
static ib_api_status_t query(int i, ib_query_type_t type, const void *in)
{
	ib_query_req_t q;

	memset(&q, 0, sizeof(q));
	q.query_type = type;
	q.p_query_input = in;
	q.port_guid = port[i].port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 3;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	r_reset();
	return ib_query(h_al, &q, NULL);
}

static void put_result(void)
{
	if (R.q.p_result_mad)
		CU_ASSERT_EQUAL(ib_put_mad(R.q.p_result_mad), IB_SUCCESS);
	R.q.p_result_mad = NULL;
}

/* ---- Tests ---- */

static void test_fab_records(void)
{
	ib_guid_pair_t gp;
	ib_gid_pair_t gidp;
	ib_lid_pair_t lp;
	ib_user_query_t uq;
	ib_path_rec_t *p;
	ib_node_record_t *nr;
	ib_portinfo_record_t *pr;
	uint32_t i;
	int found;

	up(NULL);
	CU_ASSERT_EQUAL_FATAL(port[0].link_state, IB_LINK_ACTIVE);
	CU_ASSERT_EQUAL_FATAL(port[1].link_state, IB_LINK_ACTIVE);
	CU_ASSERT_NOT_EQUAL_FATAL(port[0].sm_lid, 0);

	gp.src_guid = port[0].port_guid;
	gp.dest_guid = port[1].port_guid;
	CU_ASSERT_EQUAL(query(0, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &gp), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT(R.q.result_cnt >= 1);
	if (R.q.status == IB_SUCCESS && R.q.result_cnt) {
		p = ib_get_query_path_rec(R.q.p_result_mad, 0);
		CU_ASSERT_EQUAL(p->slid, port[0].lid);
		CU_ASSERT_EQUAL(p->dlid, port[1].lid);
	}
	put_result();

	gidp.src_gid = gid[1];
	gidp.dest_gid = gid[0];
	CU_ASSERT_EQUAL(query(1, IB_QUERY_PATH_REC_BY_GIDS, &gidp), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT(R.q.result_cnt >= 1);
	if (R.q.status == IB_SUCCESS && R.q.result_cnt)
		CU_ASSERT_EQUAL(ib_get_query_path_rec(R.q.p_result_mad, 0)->dlid, port[0].lid);
	put_result();

	lp.src_lid = port[0].lid;
	lp.dest_lid = port[1].lid;
	CU_ASSERT_EQUAL(query(0, IB_QUERY_PATH_REC_BY_LIDS, &lp), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	put_result();

	CU_ASSERT_EQUAL(query(0, IB_QUERY_PORT_REC_BY_LID, &port[1].lid), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT(R.q.result_cnt >= 1);
	if (R.q.status == IB_SUCCESS && R.q.result_cnt) {
		pr = ib_get_query_portinfo_rec(R.q.p_result_mad, 0);
		CU_ASSERT_EQUAL(pr->lid, port[1].lid);
	}
	put_result();

	CU_ASSERT_EQUAL(query(1, IB_QUERY_CLASS_PORT_INFO, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	if (R.q.status == IB_SUCCESS)
		CU_ASSERT_EQUAL(((ib_class_port_info_t *)ib_get_query_result(R.q.p_result_mad, 0))->class_ver, 2);
	put_result();

	/* Every NodeRecord: more than one MAD holds, so RMPP. */
	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_GETTABLE;
	uq.attr_id = IB_MAD_ATTR_NODE_RECORD;
	uq.attr_size = sizeof(ib_node_record_t);
	CU_ASSERT_EQUAL(query(0, IB_QUERY_USER_DEFINED, &uq), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT(R.q.result_cnt >= 2);
	found = 0;
	for (i = 0; R.q.status == IB_SUCCESS && i < R.q.result_cnt; i++) {
		nr = ib_get_query_node_rec(R.q.p_result_mad, i);
		if (nr->node_info.port_guid == port[1].port_guid)
			found++;
	}
	CU_ASSERT_EQUAL(found, 1);
	put_result();
	down();
}

static void test_fab_reg_svc(void)
{
	static const ib_svc_name_t name = "ibal-fabric-svc";
	ib_reg_svc_req_t rs;
	ib_reg_svc_handle_t h_reg;
	ib_service_record_t *p;

	up(NULL);
	memset(&rs, 0, sizeof(rs));
	rs.svc_rec.service_id = CL_HTON64(0x1000000000ABCDEFull);
	rs.svc_rec.service_gid = gid[0];
	rs.svc_rec.service_pkey = CL_HTON16(0xFFFF);
	rs.svc_rec.service_lease = 0xFFFFFFFF;
	memcpy(rs.svc_rec.service_name, name, sizeof(name));
	rs.port_guid = port[0].port_guid;
	rs.timeout_ms = 500;
	rs.retry_cnt = 3;
	rs.flags = IB_FLAGS_SYNC;
	rs.pfn_reg_svc_cb = on_reg;
	r_reset();
	CU_ASSERT_EQUAL(ib_reg_svc(h_al, &rs, &h_reg), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.r.req_status, IB_SUCCESS);

	CU_ASSERT_EQUAL(query(1, IB_QUERY_SVC_REC_BY_NAME, name), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	if (R.q.status == IB_SUCCESS && R.q.result_cnt == 1) {
		p = ib_get_query_svc_rec(R.q.p_result_mad, 0);
		CU_ASSERT_EQUAL(p->service_id, rs.svc_rec.service_id);
		CU_ASSERT(!memcmp(&p->service_gid, &gid[0], sizeof(gid[0])));
	}
	put_result();
	CU_ASSERT_EQUAL(query(1, IB_QUERY_SVC_REC_BY_ID, &rs.svc_rec.service_id), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.q.result_cnt, 1);
	put_result();

	CU_ASSERT_EQUAL(ib_dereg_svc(h_reg, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(query(1, IB_QUERY_SVC_REC_BY_NAME, name), IB_SUCCESS);
	CU_ASSERT(R.q.status == IB_SUCCESS || R.q.status == IB_REMOTE_ERROR);
	CU_ASSERT_EQUAL(R.q.result_cnt, 0);
	put_result();
	down();
}

static void test_fab_mcast_and_report(void)
{
	ib_inform_info_t info;
	ib_sub_req_t sr;
	ib_sub_handle_t h_sub;
	ib_mcast_req_t mr;
	ib_mcast_handle_t h_mc[2];
	ib_net16_t mlid;

	up(NULL);
	/* Subscribe (port 1) to "multicast group created" (trap 66). */
	pthread_mutex_lock(&R.lock);
	R.n_report = 0;
	pthread_mutex_unlock(&R.lock);
	memset(&info, 0, sizeof(info));
	info.lid_range_begin = CL_HTON16(0xFFFF);
	info.is_generic = 1;
	info.trap_type = CL_HTON16(0xFFFF);
	info.g_or_v.generic.trap_num = CL_HTON16(66);
	info.g_or_v.generic.node_type_msb = 0xFF;
	info.g_or_v.generic.node_type_lsb = CL_HTON16(0xFFFF);
	memset(&sr, 0, sizeof(sr));
	sr.p_inform_info = &info;
	sr.port_guid = port[1].port_guid;
	sr.timeout_ms = 500;
	sr.retry_cnt = 3;
	sr.flags = IB_FLAGS_SYNC;
	sr.pfn_sub_cb = on_sub;
	sr.pfn_report_cb = on_report;
	r_reset();
	CU_ASSERT_EQUAL(ib_subscribe(h_al, &sr, &h_sub), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.s.status, IB_SUCCESS);

	/* Port 0 creates a group, port 1 joins it: one MLID. */
	memset(&mr, 0, sizeof(mr));
	mr.create = TRUE;
	mr.member_rec.mgid.raw[0] = 0xFF;
	mr.member_rec.mgid.raw[1] = 0x12;
	mr.member_rec.mgid.raw[2] = 0x40;
	mr.member_rec.mgid.raw[3] = 0x1B;
	mr.member_rec.mgid.raw[15] = 0x42;
	mr.member_rec.qkey = CL_HTON32(0x0BADCAFE);
	mr.member_rec.pkey = CL_HTON16(0xFFFF);
	mr.member_rec.sl_flow_hop = ib_member_set_sl_flow_hop(0, 0, 0);
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.pfn_mcast_cb = on_mcast;
	mr.timeout_ms = 500;
	mr.retry_cnt = 3;
	mr.flags = IB_FLAGS_SYNC;
	mr.port_guid = port[0].port_guid;
	r_reset();
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.m.status, IB_SUCCESS);
	mlid = R.mrec.mlid;
	CU_ASSERT(cl_ntoh16(mlid) >= 0xC000);
	mr.create = FALSE;
	mr.port_guid = port[1].port_guid;
	r_reset();
	CU_ASSERT_EQUAL(ib_join_mcast_no_qp(&mr, &h_mc[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL(R.m.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.mrec.mlid, mlid);

	/* The report of the creation. */
	CU_ASSERT_EQUAL(wait_for(&R.n_report, 1), 1);
	CU_ASSERT_EQUAL(R.notice.g_or_v.generic.trap_num, CL_HTON16(66));
	CU_ASSERT(!memcmp(&R.notice.data_details.ntc_64_67.gid, &mr.member_rec.mgid, sizeof(ib_gid_t)));

	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc[1], ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc[0], ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_unsubscribe(h_sub, ib_sync_destroy), IB_SUCCESS);
	down();
}

/* ---- Multicast data: one UD QP per CA ---- */

#define MC_QKEY 0x0BADCAFEu

typedef struct ud_end {
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	ib_qp_handle_t qp;
	ib_mr_handle_t mr;
	cl_waitobj_handle_t wo;
	net32_t lkey;
	uint8_t buf[1024];
} ud_end_t;

static void ud_open(ud_end_t *e, int i)
{
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	ib_qp_mod_t m;
	net32_t rkey;

	memset(e, 0, sizeof(*e));
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca[i], IB_PDT_UD, NULL, &e->pd), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_waitobj_create(FALSE, &e->wo), CL_SUCCESS);
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.h_wait_obj = e->wo;
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca[i], &cc, NULL, NULL, &e->cq), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = e->cq;
	qc.sq_signaled = TRUE;
	CU_ASSERT_EQUAL_FATAL(ib_create_qp(e->pd, &qc, NULL, NULL, &e->qp), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = port[i].port_num;
	m.state.init.qkey = CL_HTON32(MC_QKEY);
	CU_ASSERT_EQUAL_FATAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	CU_ASSERT_EQUAL_FATAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = CL_HTON32(1);
	CU_ASSERT_EQUAL_FATAL(ib_modify_qp(e->qp, &m), IB_SUCCESS);
	mc.vaddr = e->buf;
	mc.length = sizeof(e->buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(e->pd, &mc, &e->lkey, &rkey, &e->mr), IB_SUCCESS);
}

/* One completion of e's CQ (bounded wait on its wait object); 0 on timeout. */
static int ud_wait(ud_end_t *e, ib_wc_t *wc)
{
	ib_wc_t *free_l, *done;
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000u;

	while (test_now_ms() < end) {
		free_l = wc;
		wc->p_next = NULL;
		if (ib_poll_cq(e->cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		CU_ASSERT_EQUAL(ib_rearm_cq(e->cq, FALSE), IB_SUCCESS);
		free_l = wc;
		wc->p_next = NULL;
		if (ib_poll_cq(e->cq, &free_l, &done) == IB_SUCCESS)
			return 1;
		cl_waitobj_wait_on(e->wo, TEST_WAIT_US, FALSE);
	}
	return 0;
}

/* Both QPs join one group (A creates it, the QPs are attached by the
 * joins); a datagram A sends to the group's MLID and MGID reaches B. */
static void test_fab_mcast_data(void)
{
	ud_end_t *a = (ud_end_t *)calloc(1, sizeof(*a)), *b = (ud_end_t *)calloc(1, sizeof(*b));
	ib_mcast_req_t mr;
	ib_mcast_handle_t h_mc[2];
	ib_member_rec_t grp;
	ib_av_handle_t av;
	ib_av_attr_t aa;
	ib_local_ds_t ds;
	ib_recv_wr_t rw;
	ib_send_wr_t sw;
	ib_wc_t wc;
	int i;

	up(NULL);
	ud_open(a, 0);
	ud_open(b, 1);
	memset(&mr, 0, sizeof(mr));
	mr.create = TRUE;
	mr.member_rec.mgid.raw[0] = 0xFF;
	mr.member_rec.mgid.raw[1] = 0x12;
	mr.member_rec.mgid.raw[2] = 0x40;
	mr.member_rec.mgid.raw[3] = 0x1B;
	mr.member_rec.mgid.raw[15] = 0x99;
	mr.member_rec.qkey = CL_HTON32(MC_QKEY);
	mr.member_rec.pkey = CL_HTON16(0xFFFF);
	mr.member_rec.scope_state = IB_MC_REC_STATE_FULL_MEMBER;
	mr.pfn_mcast_cb = on_mcast;
	mr.timeout_ms = 500;
	mr.retry_cnt = 3;
	mr.flags = IB_FLAGS_SYNC;
	mr.port_guid = port[0].port_guid;
	r_reset();
	CU_ASSERT_EQUAL_FATAL(ib_join_mcast(a->qp, &mr, &h_mc[0]), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(R.m.status, IB_SUCCESS);
	grp = R.mrec;
	mr.create = FALSE;
	mr.port_guid = port[1].port_guid;
	r_reset();
	CU_ASSERT_EQUAL_FATAL(ib_join_mcast(b->qp, &mr, &h_mc[1]), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(R.m.status, IB_SUCCESS);
	CU_ASSERT_EQUAL(R.mrec.mlid, grp.mlid);

	ds.vaddr = (uintptr_t)b->buf;
	ds.length = 512;
	ds.lkey = b->lkey;
	memset(&rw, 0, sizeof(rw));
	rw.wr_id = 5;
	rw.num_ds = 1;
	rw.ds_array = &ds;
	CU_ASSERT_EQUAL(ib_post_recv(b->qp, &rw, NULL), IB_SUCCESS);

	memset(&aa, 0, sizeof(aa));
	aa.port_num = port[0].port_num;
	aa.dlid = grp.mlid;
	aa.grh_valid = TRUE;
	aa.grh.ver_class_flow = CL_HTON32(6u << 28);
	aa.grh.hop_limit = 1;
	aa.grh.src_gid = gid[0];
	aa.grh.dest_gid = grp.mgid;
	CU_ASSERT_EQUAL_FATAL(ib_create_av(a->pd, &aa, &av), IB_SUCCESS);
	for (i = 0; i < 64; i++)
		a->buf[512 + i] = (uint8_t)(i * 7);
	ds.vaddr = (uintptr_t)(a->buf + 512);
	ds.length = 64;
	ds.lkey = a->lkey;
	memset(&sw, 0, sizeof(sw));
	sw.wr_id = 9;
	sw.wr_type = WR_SEND;
	sw.send_opt = IB_SEND_OPT_SIGNALED;
	sw.num_ds = 1;
	sw.ds_array = &ds;
	sw.dgrm.ud.h_av = av;
	sw.dgrm.ud.remote_qp = CL_HTON32(0x00FFFFFF);
	sw.dgrm.ud.remote_qkey = CL_HTON32(MC_QKEY);
	CU_ASSERT_EQUAL(ib_post_send(a->qp, &sw, NULL), IB_SUCCESS);
	CU_ASSERT_FATAL(ud_wait(a, &wc));
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_FATAL(ud_wait(b, &wc));
	CU_ASSERT_EQUAL(wc.wr_id, 5);
	CU_ASSERT_EQUAL(wc.status, IB_WCS_SUCCESS);
	CU_ASSERT_EQUAL(wc.length, 64 + 40);
	CU_ASSERT(!memcmp(b->buf + 40, a->buf + 512, 64));

	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc[1], ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_leave_mcast(h_mc[0], ib_sync_destroy), IB_SUCCESS);
	down();
	cl_waitobj_destroy(a->wo);
	cl_waitobj_destroy(b->wo);
	free(a);
	free(b);
}

/* The SA out of reach (the port taken down): a query ends in IB_TIMEOUT
 * after its timeouts and retries, not in a hang; with the port back up
 * queries work again. */
static void test_fab_sa_unreachable(void)
{
	ib_guid_pair_t gp;
	ib_query_req_t q;
	uint64_t t0;

	up(NULL);
	CU_ASSERT_EQUAL_FATAL(soft_set_port(h_ca[0], port[0].port_num, IB_LINK_DOWN), IB_SUCCESS);
	gp.src_guid = port[0].port_guid;
	gp.dest_guid = port[1].port_guid;
	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PATH_REC_BY_PORT_GUIDS;
	q.p_query_input = &gp;
	q.port_guid = port[0].port_guid;
	q.timeout_ms = 50;
	q.retry_cnt = 2;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	r_reset();
	t0 = test_now_ms();
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	CU_ASSERT(test_now_ms() - t0 >= 150);
	CU_ASSERT_EQUAL(R.n, 1);
	CU_ASSERT_EQUAL(R.q.status, IB_TIMEOUT);
	CU_ASSERT_PTR_NULL(R.q.p_result_mad);
	put_result();
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_fab_records),
	TEST_ENTRY(test_fab_reg_svc),
	TEST_ENTRY(test_fab_mcast_and_report),
	TEST_ENTRY(test_fab_mcast_data),
	TEST_ENTRY(test_fab_sa_unreachable),
};

TEST_MAIN("al_sa_fabric", tests)
