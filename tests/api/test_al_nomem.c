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

#define STEP(name, call)                                                       \
	do {                                                                   \
		st = (call);                                                   \
		check(name, nth, st);                                          \
		if (st != IB_SUCCESS)                                          \
			goto out;                                              \
	} while (0)

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
#undef STEP
}

static void test_each_allocation_fails(void)
{
	uint32_t nth, runs = 0;
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
	for (nth = 1; nth < 100000; nth++) {
		test_track_begin();
		__cl_mem_fail_nth(nth);
		scenario(nth);
		runs++;
		if (!__cl_mem_fail_nth(0)) {
			test_track_end();
			break;   /* the scenario made fewer allocations */
		}
		test_track_end();
	}
	printf("\n    %u runs, each failing one more allocation; bad answers:%s\n  ", runs,
	       n_bad ? bad : " none");
	CU_ASSERT(runs > 10);
	CU_ASSERT_EQUAL(n_bad, 0);
	CU_ASSERT_EQUAL(ib_close_al(keep), IB_SUCCESS);
	test_rm_tree(dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
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
};

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "nofd"))
		return nofd_child();
	return test_run_suite("al_nomem", tests, TEST_COUNT(tests));
}
