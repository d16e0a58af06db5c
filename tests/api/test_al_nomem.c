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
 */
#include <stdio.h>
#include <string.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_track.h"

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

static const test_entry_t tests[] = {
	TEST_ENTRY(test_each_allocation_fails),
};

TEST_MAIN("al_nomem", tests)
