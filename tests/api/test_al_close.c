/*
 * ibal tests: a synchronous ib_close_al returns when everything the instance owned is gone.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * An instance that used the SA client (ib_query) or the IOC discovery (an
 * IOU PnP registration) leaves work behind it: the port's SA service and
 * the sweeper, each with an AL instance of its own. ib_close_al must not
 * return before they are gone: complib's allocation tracking, started
 * before the instance was opened, counts nothing live right after it
 * returns (no wait of any kind between the two). Another instance keeps
 * the providers loaded and the CA open meanwhile, as a program's other
 * instances would.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/mem_track.h"
#include "../common/al_procs.h"

static char g_dir[64];
static ib_al_handle_t g_keep;
static ib_ca_handle_t g_keep_ca;
static ib_port_attr_t g_port;
static ib_query_rec_t g_q;

static int suite_init(void)
{
	ib_gid_t gid;

	strcpy(g_dir, "/tmp/ibal-close-XXXXXX");
	if (!mkdtemp(g_dir))
		return -1;
	setenv("IBAL_SOFT_FABRIC", g_dir, 1);
	setenv("IBAL_SOFT_CAS", "1", 1);
	if (test_open_first_port(&g_keep, &g_keep_ca, &g_port, &gid) != IB_SUCCESS)
		return -1;
	return g_port.link_state == IB_LINK_ACTIVE ? 0 : -1;
}

static int suite_clean(void)
{
	if (g_keep)
		ib_close_al(g_keep);
	test_rm_tree(g_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
	return 0;
}

static void AL_API on_query(ib_query_rec_t *p)
{
	g_q = *p;
}

/* A PathRecord from the port to itself, through instance @p al. */
static ib_api_status_t path_to_self(ib_al_handle_t al)
{
	ib_lid_pair_t lp = { .src_lid = g_port.lid, .dest_lid = g_port.lid };
	ib_query_req_t q;
	ib_api_status_t st;

	memset(&q, 0, sizeof(q));
	memset(&g_q, 0, sizeof(g_q));
	q.query_type = IB_QUERY_PATH_REC_BY_LIDS;
	q.p_query_input = &lp;
	q.port_guid = g_port.port_guid;
	q.timeout_ms = 500;
	q.retry_cnt = 4;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	st = ib_query(al, &q, NULL);
	if (st == IB_SUCCESS)
		st = g_q.status;
	if (st == IB_SUCCESS && g_q.result_cnt < 1)
		st = IB_NOT_FOUND;
	if (g_q.p_result_mad)
		ib_put_mad(g_q.p_result_mad);
	return st;
}

/* The case: one query, then the close. */
static void test_close_after_query(void)
{
	ib_al_handle_t al;

	test_track_begin();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&al), IB_SUCCESS);
	CU_ASSERT_EQUAL(path_to_self(al), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(al), IB_SUCCESS);
	test_track_end();
}

/* Several instances on one port's SA service: the last close ends it. */
static void test_close_after_queries_of_two(void)
{
	ib_al_handle_t a, b;

	test_track_begin();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&a), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&b), IB_SUCCESS);
	CU_ASSERT_EQUAL(path_to_self(a), IB_SUCCESS);
	CU_ASSERT_EQUAL(path_to_self(b), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(a), IB_SUCCESS);
	CU_ASSERT(cl_mem_track_count() > 0);   /* b still holds the service */
	CU_ASSERT_EQUAL(ib_close_al(b), IB_SUCCESS);
	test_track_end();
}

static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p_rec)
{
	(void)p_rec;
	return IB_SUCCESS;
}

/* An IOU registration starts the sweeper; closing the instance (which
 * deregisters it) ends the sweeper and the SA services it used. */
static void test_close_with_iou_registration(void)
{
	ib_pnp_req_t pr = { IB_PNP_IOU | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	ib_pnp_handle_t h;
	ib_al_handle_t al;

	test_track_begin();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&al), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_reg_pnp(al, &pr, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(al), IB_SUCCESS);
	test_track_end();
}

/* The same, deregistered first without waiting: the close still waits. */
static void test_close_after_async_dereg(void)
{
	ib_pnp_req_t pr = { IB_PNP_IOU | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	ib_pnp_handle_t h;
	ib_al_handle_t al;

	test_track_begin();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(al, &pr, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL(path_to_self(al), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(al), IB_SUCCESS);
	test_track_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_close_after_query),
	TEST_ENTRY(test_close_after_queries_of_two),
	TEST_ENTRY(test_close_with_iou_registration),
	TEST_ENTRY(test_close_after_async_dereg),
};

int main(void)
{
	int rc;

	if (suite_init()) {
		fprintf(stderr, "al_close: no soft CA with an ACTIVE port\n");
		suite_clean();
		return 1;
	}
	rc = test_run_suite("al_close", tests, TEST_COUNT(tests));
	suite_clean();
	return rc;
}
