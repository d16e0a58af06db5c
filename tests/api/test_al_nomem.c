/*
 * ibal tests: no memory. Each allocation of a scenario of access-layer calls fails in turn.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The scenario (open the access layer and a soft CA, a PD, a CQ, an RC QP,
 * a memory region, an address vector, a MAD pool with a key and a MAD, a
 * PnP registration, then close everything) runs once per allocation the
 * calling thread makes through complib, with that allocation failing
 * (__cl_mem_fail_nth): every call must answer IB_SUCCESS or
 * IB_INSUFFICIENT_MEMORY (never crash, hang or another status), the later
 * calls of the scenario run on whatever was made, and ib_close_al must free
 * everything (complib's allocation tracking counts nothing left). It ends
 * when the scenario makes fewer allocations than the one asked to fail.
 * Another instance keeps the providers loaded and the CA open meanwhile.
 *
 * The soft provider's allocations: the same with no other instance, so
 * that each run loads the providers and opens the soft CA (its fabric
 * port, its progress thread's buffers, the SM instance), and goes on
 * through an SRQ, a memory window, RC and UD QPs in RTS, sends whose
 * completions the test thread polls for (the CQ poll drains the ports on
 * that thread), and the close. The soft provider allocates through
 * complib, so each of its allocations on the calling thread fails in
 * turn too.
 *
 * No file descriptors: a child (this program re-run) uses up its
 * descriptors but a few (0 to NOFD_SPARE_MAX), then opens the access layer
 * and a soft CA, a PD, a CQ and a PnP registration, and closes: every call
 * answers IB_SUCCESS or a resource status, never crashes or hangs (the
 * child ends itself after NOFD_CHILD_S seconds), and a call that fails left
 * a log line saying why.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_track.h"
#include "../common/log_capture.h"

/* The bad answers seen: step name and status, for the report. */
static unsigned n_bad;
static char bad[2048];

static void check(const char *step, uint32_t nth, ib_api_status_t st)
{
	size_t len = strlen(bad);

	if (st == IB_SUCCESS || st == IB_INSUFFICIENT_MEMORY)
		return;
	n_bad++;
	if (len < sizeof(bad) - 100)
		snprintf(bad + len, sizeof(bad) - len, " %s=%s(alloc %u)", step,
			 ib_get_err_str(st), nth);
}

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *ctx)
{
	(void)h_cq;
	(void)ctx;
}

static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p_rec)
{
	(void)p_rec;
	return IB_SUCCESS;
}

/* One call of a scenario: checked (check()), and the scenario ends at the first that fails. */
#define STEP(name, call)                                                       \
	do {                                                                   \
		st = (call);                                                   \
		check(name, nth, st);                                          \
		if (st != IB_SUCCESS)                                          \
			goto out;                                              \
	} while (0)

/* One run of the scenario, each step skipped once one failed. */
static void scenario(uint32_t nth)
{
	ib_al_handle_t al = NULL;
	ib_ca_handle_t ca = NULL;
	ib_pd_handle_t pd = NULL;
	ib_cq_handle_t cq = NULL;
	ib_qp_handle_t qp = NULL;
	ib_mr_handle_t mr = NULL;
	ib_av_handle_t av = NULL;
	ib_pool_handle_t pool = NULL;
	ib_pool_key_t key = NULL;
	ib_mad_element_t *mad = NULL;
	ib_pnp_handle_t pnp = NULL;
	ib_net64_t guid;
	size_t n = 1;
	ib_cq_create_t cc;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	ib_av_attr_t aa;
	ib_pnp_req_t pr = { IB_PNP_CA | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	static uint8_t buf[4096];
	net32_t lkey, rkey;
	ib_api_status_t st;

	STEP("ib_open_al", ib_open_al(&al));
	STEP("ib_get_ca_guids", ib_get_ca_guids(al, &guid, &n));
	STEP("ib_open_ca", ib_open_ca(al, guid, NULL, NULL, &ca));
	STEP("ib_alloc_pd", ib_alloc_pd(ca, IB_PDT_NORMAL, NULL, &pd));
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.pfn_comp_cb = on_comp;
	STEP("ib_create_cq", ib_create_cq(ca, &cc, NULL, NULL, &cq));
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 8;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = cq;
	qc.sq_signaled = TRUE;
	STEP("ib_create_qp", ib_create_qp(pd, &qc, NULL, NULL, &qp));
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = buf;
	mc.length = sizeof(buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	STEP("ib_reg_mem", ib_reg_mem(pd, &mc, &lkey, &rkey, &mr));
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dlid = CL_HTON16(1);
	STEP("ib_create_av", ib_create_av(pd, &aa, &av));
	STEP("ib_create_mad_pool", ib_create_mad_pool(al, 2, 8, 2, &pool));
	STEP("ib_reg_mad_pool", ib_reg_mad_pool(pool, pd, &key));
	STEP("ib_get_mad", ib_get_mad(key, MAD_BLOCK_SIZE, &mad));
	STEP("ib_put_mad", ib_put_mad(mad));
	STEP("ib_reg_pnp", ib_reg_pnp(al, &pr, &pnp));
	STEP("ib_dereg_pnp", ib_dereg_pnp(pnp, ib_sync_destroy));
	STEP("ib_destroy_qp", ib_destroy_qp(qp, ib_sync_destroy));
out:
	if (al)
		check("ib_close_al", nth, ib_close_al(al));
}

/*
 * Runs @p run(nth) for nth = 1, 2, ..., the nth allocation of this thread
 * failing, each run under the leak check, until a run makes fewer
 * allocations than that; returns the number of runs.
 */
static uint32_t fail_each(void (*run)(uint32_t nth))
{
	uint32_t nth, runs = 0;

	for (nth = 1; nth < 100000; nth++) {
		boolean_t made;

		test_track_begin();
		__cl_mem_fail_nth(nth);
		run(nth);
		runs++;
		made = __cl_mem_fail_nth(0);
		test_track_end();
		if (!made)
			break; /* the scenario made fewer allocations */
	}
	return runs;
}

static void test_each_allocation_fails(void)
{
	uint32_t runs;
	ib_al_handle_t keep = NULL;
	ib_ca_handle_t keep_ca = NULL;
	ib_net64_t guid;
	size_t n = 1;
	char dir[64];

	strcpy(dir, "/tmp/ibal-nomem-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("IBAL_SOFT_FABRIC", dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	/* An instance and the CA kept open throughout, so that the providers
	 * stay loaded and the CA up: each run opens its own on top. */
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&keep), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(keep, &guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(keep, guid, NULL, NULL, &keep_ca), IB_SUCCESS);
	scenario(0);   /* a clean run first */
	CU_ASSERT_EQUAL(n_bad, 0);
	runs = fail_each(scenario);
	printf("\n    %u runs, each failing one more allocation; bad answers:%s\n  ", runs,
	       n_bad ? bad : " none");
	CU_ASSERT(runs > 10);
	CU_ASSERT_EQUAL(n_bad, 0);
	CU_ASSERT_EQUAL(ib_close_al(keep), IB_SUCCESS);
	test_rm_tree(dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
}

/* ---- The soft provider's allocations ---- */

/* What the soft scenario gets back from its queue pairs. */
#define SOFT_LEN 64
#define SOFT_QKEY 0x11111111u
#define SOFT_POLL_NS 5000000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The LID of port 1, through the size probe of ib_query_ca. */
static ib_api_status_t port1_lid(ib_ca_handle_t ca, ib_net16_t *p_lid)
{
	ib_ca_attr_t *a;
	uint32_t size = 0;
	ib_api_status_t st = ib_query_ca(ca, NULL, &size);

	if (st != IB_INSUFFICIENT_MEMORY || !size)
		return st == IB_SUCCESS ? IB_ERROR : st;
	a = (ib_ca_attr_t *)calloc(1, size);
	if (!a)
		return IB_ERROR;
	st = ib_query_ca(ca, a, &size);
	if (st == IB_SUCCESS)
		*p_lid = a->p_port_attr[0].lid;
	free(a);
	return st;
}

static ib_api_status_t to_init(ib_qp_handle_t qp, boolean_t ud)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = 1;
	if (ud)
		m.state.init.qkey = CL_HTON32(SOFT_QKEY);
	else
		m.state.init.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE;
	return ib_modify_qp(qp, &m);
}

/* RTR towards @p dest (a QP of the same port) for RC; UD needs nothing. */
static ib_api_status_t to_rtr(ib_qp_handle_t qp, boolean_t ud, ib_net16_t lid, net32_t dest)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTR;
	if (!ud) {
		m.state.rtr.rq_psn = CL_HTON32(1);
		m.state.rtr.dest_qp = dest;
		m.state.rtr.resp_res = 1;
		m.state.rtr.rnr_nak_timeout = 1;
		m.state.rtr.primary_av.port_num = 1;
		m.state.rtr.primary_av.dlid = lid;
		m.state.rtr.primary_av.conn.path_mtu = IB_MTU_LEN_1024;
		m.state.rtr.primary_av.conn.local_ack_timeout = 14;
		m.state.rtr.primary_av.conn.seq_err_retry_cnt = 7;
		m.state.rtr.primary_av.conn.rnr_retry_cnt = 7;
	}
	return ib_modify_qp(qp, &m);
}

static ib_api_status_t to_rts(ib_qp_handle_t qp, boolean_t ud)
{
	ib_qp_mod_t m;

	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_RTS;
	m.state.rts.sq_psn = CL_HTON32(1);
	if (!ud) {
		m.state.rts.retry_cnt = 7;
		m.state.rts.rnr_retry_cnt = 7;
		m.state.rts.local_ack_timeout = 14;
		m.state.rts.init_depth = 1;
	}
	return ib_modify_qp(qp, &m);
}

/* Polls @p cq until @p want completions came (each must be a success), a
 * bad one came, or SOFT_POLL_NS passed: IB_SUCCESS, IB_ERROR or IB_TIMEOUT. */
static ib_api_status_t poll_n(ib_cq_handle_t cq, unsigned want)
{
	uint64_t end = now_ns() + SOFT_POLL_NS;
	ib_wc_t wc, *p_free, *p_done;
	unsigned got = 0;
	ib_api_status_t st;

	while (got < want) {
		memset(&wc, 0, sizeof(wc));
		p_free = &wc;
		p_done = NULL;
		st = ib_poll_cq(cq, &p_free, &p_done);
		if (st == IB_SUCCESS) {
			if (wc.status != IB_WCS_SUCCESS)
				return IB_ERROR;
			got++;
		} else if (st != IB_NOT_FOUND) {
			return st;
		} else if (now_ns() > end) {
			return IB_TIMEOUT;
		}
	}
	return IB_SUCCESS;
}

/* Runs of the soft scenario whose completions did not all come. */
static unsigned n_soft_lost;

/*
 * The soft provider's scenario: everything from ib_open_al on (no other
 * instance: the first open loads the providers, ib_open_ca opens the soft
 * CA, its fabric port and the subnet manager's instance), an RC pair on
 * one port (the receiver through an SRQ) and a UD QP sending to itself,
 * each brought to RTS, a send each way polled for, a memory window, and
 * the close. Completions are waited for only when every call succeeded.
 */
static void soft_scenario(uint32_t nth)
{
	ib_al_handle_t al = NULL;
	ib_ca_handle_t ca = NULL;
	ib_pd_handle_t pd = NULL;
	ib_cq_handle_t cq = NULL;
	ib_srq_handle_t srq = NULL;
	ib_qp_handle_t rc_a = NULL, rc_b = NULL, ud = NULL;
	ib_mr_handle_t mr = NULL;
	ib_mw_handle_t mw = NULL;
	ib_av_handle_t av = NULL;
	ib_qp_attr_t qa;
	ib_net64_t guid;
	ib_net16_t lid = 0;
	net32_t qpn_a, qpn_b, qpn_ud, lkey, rkey, mw_rkey;
	size_t n = 1;
	ib_cq_create_t cc;
	ib_srq_attr_t sa;
	ib_qp_create_t qc;
	ib_mr_create_t mc;
	ib_av_attr_t aa;
	ib_local_ds_t ds[4];
	ib_send_wr_t swr;
	ib_recv_wr_t rwr;
	static uint8_t buf[4 * 4096];
	ib_api_status_t st;

	STEP("ib_open_al", ib_open_al(&al));
	STEP("ib_get_ca_guids", ib_get_ca_guids(al, &guid, &n));
	STEP("ib_open_ca", ib_open_ca(al, guid, NULL, NULL, &ca));
	STEP("ib_query_ca", port1_lid(ca, &lid));
	STEP("ib_alloc_pd", ib_alloc_pd(ca, IB_PDT_NORMAL, NULL, &pd));
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.pfn_comp_cb = on_comp;
	STEP("ib_create_cq", ib_create_cq(ca, &cc, NULL, NULL, &cq));
	memset(&sa, 0, sizeof(sa));
	sa.max_wr = 4;
	sa.max_sge = 1;
	STEP("ib_create_srq", ib_create_srq(pd, &sa, NULL, NULL, &srq));
	memset(&mc, 0, sizeof(mc));
	mc.vaddr = buf;
	mc.length = sizeof(buf);
	mc.access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_RDMA_WRITE | IB_AC_MW_BIND;
	STEP("ib_reg_mem", ib_reg_mem(pd, &mc, &lkey, &rkey, &mr));
	STEP("ib_create_mw", ib_create_mw(pd, &mw_rkey, &mw));
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_RELIABLE_CONN;
	qc.sq_depth = qc.rq_depth = 4;
	qc.sq_sge = qc.rq_sge = 1;
	qc.h_sq_cq = qc.h_rq_cq = cq;
	qc.sq_signaled = TRUE;
	STEP("ib_create_qp(RC)", ib_create_qp(pd, &qc, NULL, NULL, &rc_a));
	qc.rq_depth = qc.rq_sge = 0;
	qc.h_srq = srq;
	STEP("ib_create_qp(RC, SRQ)", ib_create_qp(pd, &qc, NULL, NULL, &rc_b));
	qc.qp_type = IB_QPT_UNRELIABLE_DGRM;
	qc.rq_depth = 4;
	qc.rq_sge = 1;
	qc.h_srq = NULL;
	STEP("ib_create_qp(UD)", ib_create_qp(pd, &qc, NULL, NULL, &ud));
	STEP("ib_query_qp", ib_query_qp(rc_a, &qa));
	qpn_a = qa.num;
	STEP("ib_query_qp", ib_query_qp(rc_b, &qa));
	qpn_b = qa.num;
	STEP("ib_query_qp", ib_query_qp(ud, &qa));
	qpn_ud = qa.num;
	STEP("ib_modify_qp(RC INIT)", to_init(rc_a, FALSE));
	STEP("ib_modify_qp(RC INIT)", to_init(rc_b, FALSE));
	STEP("ib_modify_qp(UD INIT)", to_init(ud, TRUE));
	STEP("ib_modify_qp(RC RTR)", to_rtr(rc_a, FALSE, lid, qpn_b));
	STEP("ib_modify_qp(RC RTR)", to_rtr(rc_b, FALSE, lid, qpn_a));
	STEP("ib_modify_qp(UD RTR)", to_rtr(ud, TRUE, lid, 0));
	STEP("ib_modify_qp(RC RTS)", to_rts(rc_a, FALSE));
	STEP("ib_modify_qp(RC RTS)", to_rts(rc_b, FALSE));
	STEP("ib_modify_qp(UD RTS)", to_rts(ud, TRUE));
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dlid = lid;
	STEP("ib_create_av", ib_create_av(pd, &aa, &av));

	/* RC: A sends, B receives through the SRQ. */
	ds[0].vaddr = (uintptr_t)buf;
	ds[0].length = SOFT_LEN;
	ds[0].lkey = lkey;
	ds[1].vaddr = (uintptr_t)buf + 4096;
	ds[1].length = 4096;
	ds[1].lkey = lkey;
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 1;
	rwr.ds_array = &ds[1];
	rwr.num_ds = 1;
	STEP("ib_post_srq_recv", ib_post_srq_recv(srq, &rwr, NULL));
	memset(&swr, 0, sizeof(swr));
	swr.wr_id = 2;
	swr.wr_type = WR_SEND;
	swr.send_opt = IB_SEND_OPT_SIGNALED;
	swr.ds_array = &ds[0];
	swr.num_ds = 1;
	STEP("ib_post_send(RC)", ib_post_send(rc_a, &swr, NULL));
	/* UD: to itself through the AV. */
	ds[2].vaddr = (uintptr_t)buf + 8192;
	ds[2].length = 4096;
	ds[2].lkey = lkey;
	rwr.wr_id = 3;
	rwr.ds_array = &ds[2];
	STEP("ib_post_recv(UD)", ib_post_recv(ud, &rwr, NULL));
	swr.wr_id = 4;
	swr.dgrm.ud.h_av = av;
	swr.dgrm.ud.remote_qp = qpn_ud;
	swr.dgrm.ud.remote_qkey = CL_HTON32(SOFT_QKEY);
	STEP("ib_post_send(UD)", ib_post_send(ud, &swr, NULL));
	/* Two completions each: the sends and the receives, on this thread. */
	if (poll_n(cq, 4) != IB_SUCCESS)
		n_soft_lost++;
	STEP("ib_destroy_qp", ib_destroy_qp(rc_a, ib_sync_destroy));
out:
	if (al)
		check("ib_close_al", nth, ib_close_al(al));
}

/*
 * Each allocation of the soft scenario fails in turn, from the first
 * ib_open_al of the process: the soft provider allocates through complib
 * too, so its failure paths (the CA, its progress thread's buffers, the
 * subnet manager's instance, PD, CQ, SRQ, QPs, MR, MW, AV, the data path
 * on the polling thread) are among them.
 */
static void test_soft_each_allocation_fails(void)
{
	uint32_t runs;
	char dir[64];

	strcpy(dir, "/tmp/ibal-nomem-soft-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("IBAL_SOFT_FABRIC", dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	n_bad = 0;
	bad[0] = '\0';
	n_soft_lost = 0;
	test_track_begin();
	soft_scenario(0); /* a clean run first: everything works */
	test_track_end();
	CU_ASSERT_EQUAL(n_bad, 0);
	CU_ASSERT_EQUAL(n_soft_lost, 0);
	runs = fail_each(soft_scenario);
	printf("\n    %u runs, each failing one more allocation; bad answers:%s; "
	       "runs with completions missing: %u\n  ",
	       runs, n_bad ? bad : " none", n_soft_lost);
	CU_ASSERT(runs > 50);
	CU_ASSERT_EQUAL(n_bad, 0);
	CU_ASSERT_EQUAL(n_soft_lost, 0);
	test_rm_tree(dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
	unsetenv("IBAL_PROVIDERS");
}

/* ---- No file descriptors ---- */

#define NOFD_SPARE_MAX 10
#define NOFD_LIMIT 256
#define NOFD_CHILD_S 60

static void AL_API on_nofd_comp(const ib_cq_handle_t h_cq, void *ctx)
{
	(void)h_cq;
	(void)ctx;
}

/* The child: prints "<step> <status>" per call, "FAILED" when one failed
 * for want of resources, "BAD" when one answered something else. */
static int nofd_child(void)
{
	struct rlimit rl = { NOFD_LIMIT, NOFD_LIMIT };
	int spare = atoi(getenv("IBAL_TEST_NOFD_SPARE") ? getenv("IBAL_TEST_NOFD_SPARE") : "0");
	int fds[NOFD_LIMIT], n = 0, bad = 0, failed = 0;
	ib_al_handle_t al = NULL;
	ib_ca_handle_t ca = NULL;
	ib_pd_handle_t pd = NULL;
	ib_cq_handle_t cq = NULL;
	ib_pnp_handle_t pnp = NULL;
	ib_pnp_req_t pr = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	ib_cq_create_t cc;
	ib_net64_t guid;
	size_t ng = 1;
	ib_api_status_t st = IB_SUCCESS;

	dup2(1, 2);   /* the log goes to the parent with the rest */
	alarm(NOFD_CHILD_S);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		return 2;
	while (n < NOFD_LIMIT && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
		n++;
	while (spare-- > 0 && n > 0)
		close(fds[--n]);
	memset(&cc, 0, sizeof(cc));
	cc.size = 16;
	cc.pfn_comp_cb = on_nofd_comp;
#define NOFD_STEP(name, call)                                                  \
	do {                                                                   \
		if (st == IB_SUCCESS) {                                        \
			st = (call);                                           \
			printf("%s %s\n", name, ib_get_err_str(st));           \
			if (st == IB_INSUFFICIENT_RESOURCES ||                 \
			    st == IB_INSUFFICIENT_MEMORY)                      \
				failed = 1;                                    \
			else if (st != IB_SUCCESS)                             \
				bad = 1;                                       \
		}                                                              \
	} while (0)
	NOFD_STEP("open_al", ib_open_al(&al));
	NOFD_STEP("get_ca_guids", ib_get_ca_guids(al, &guid, &ng));
	NOFD_STEP("open_ca", ib_open_ca(al, guid, NULL, NULL, &ca));
	NOFD_STEP("alloc_pd", ib_alloc_pd(ca, IB_PDT_NORMAL, NULL, &pd));
	NOFD_STEP("create_cq", ib_create_cq(ca, &cc, NULL, NULL, &cq));
	NOFD_STEP("reg_pnp", ib_reg_pnp(al, &pr, &pnp));
#undef NOFD_STEP
	if (al && ib_close_al(al) != IB_SUCCESS)
		bad = 1;
	while (n > 0)   /* what exits after (LeakSanitizer's check) needs descriptors */
		close(fds[--n]);
	printf("%s\n", bad ? "BAD" : failed ? "FAILED" : "DONE");
	fflush(stdout);
	return bad;
}

static void test_no_file_descriptors(void)
{
	static char out[16384];
	char spare_env[64], dir[64];
	int spare, n_failed = 0;

	strcpy(dir, "/tmp/ibal-nofd-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("IBAL_SOFT_FABRIC", dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	for (spare = 0; spare <= NOFD_SPARE_MAX; spare++) {
		snprintf(spare_env, sizeof(spare_env), "IBAL_TEST_NOFD_SPARE=%d", spare);
		if (test_run_self("nofd", spare_env, NULL, out, sizeof(out))) {
			printf("\n    %d spare descriptors: the child failed:\n%s", spare, out);
			CU_FAIL("a call crashed, hung or answered a status other than a resource one");
			continue;
		}
		if (strstr(out, "FAILED")) {
			n_failed++;
			if (!strstr(out, "Too many open files")) {
				printf("\n    %d spare descriptors: no log line:\n%s", spare, out);
				CU_FAIL("a call failed for want of descriptors without a log line");
			}
		}
	}
	/* With none to spare the CA cannot open: the case was met. */
	CU_ASSERT(n_failed > 0);
	test_rm_tree(dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_no_file_descriptors),
	TEST_ENTRY(test_each_allocation_fails),
	TEST_ENTRY(test_soft_each_allocation_fails),
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "nofd"))
		return nofd_child();
	return test_run_suite("al_nomem", tests, TEST_COUNT(tests));
}
