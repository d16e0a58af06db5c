/*
 * ibal tests: soak: thousands of create/destroy cycles leak neither memory nor handles.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * One cycle creates and destroys a PD, a CQ, an SRQ, a UD and an RC QP, an
 * MR, an MW and an AV; every CYCLES_PER_AL cycles the AL and its CA are
 * closed and opened again. IBAL_SOAK_ITERS sets the number of cycles
 * (default 2000). Runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) on the soft provider. Waits are bounded condition
 * waits, never sleeps.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <complib/cl_memory.h>
#include "al_handle.h"
#include "../common/cl_test.h"
#include "../common/fab_dir.h"

#define CYCLES_PER_AL 50
#define DEFAULT_ITERS 2000
#define RSS_EARLY_CYCLE 10       /* RSS sampled after this many cycles */
#define RSS_BOUND_KB (4u * 1024u) /* allowed growth after that (no sanitizer) */

/* Destroy callback tags: which kind of object called back. */
enum { T_CA, T_PD, T_CQ, T_SRQ, T_UDQP, T_RCQP, T_COUNT };

/* ---- Fabric directory ---- */

static char fab_dir[64];

/* ---- Destroy callback record ---- */

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cond = PTHREAD_COND_INITIALIZER;
static int n_destroy[T_COUNT];   /* callbacks seen, per tag (cb_lock) */
static int n_expect[T_COUNT];    /* asynchronous destroys requested, per tag */
static int tags[T_COUNT] = { T_CA, T_PD, T_CQ, T_SRQ, T_UDQP, T_RCQP };

static void AL_API on_destroy(void *context)
{
	pthread_mutex_lock(&cb_lock);
	n_destroy[*(int *)context]++;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
}

static void AL_API on_comp(const ib_cq_handle_t h_cq, void *context)
{
	(void)h_cq;
	(void)context;
}

/* Waits (bounded) until every tag has at least its expected count of
 * callbacks; returns TRUE if all arrived and none came twice. */
static boolean_t wait_callbacks(void)
{
	struct timespec ts;
	boolean_t ok = TRUE;
	int i;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&cb_lock);
	for (i = 0; i < T_COUNT; i++) {
		while (n_destroy[i] < n_expect[i] &&
		       pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
			;
		if (n_destroy[i] != n_expect[i])
			ok = FALSE;
	}
	pthread_mutex_unlock(&cb_lock);
	return ok;
}

/* ---- Measurements ---- */

static long rss_kb(void)
{
	long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &res) != 2)
		res = -1;
	fclose(f);
	return res < 0 ? -1 : res * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Sanitizers (ASan's quarantine, TSan's shadow and history) and valgrind
 * (its freed-block queue) hold memory back on purpose, so RSS says nothing
 * about leaks there: they have leak checks of their own. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SOAK_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
	__has_feature(memory_sanitizer)
#define SOAK_SANITIZED 1
#endif
#endif
#ifndef SOAK_SANITIZED
#define SOAK_SANITIZED 0
#endif

static boolean_t rss_meaningful(void)
{
	const char *pre = getenv("LD_PRELOAD");

	if (SOAK_SANITIZED)
		return FALSE;
	return !(pre && strstr(pre, "vgpreload"));
}

static int soak_iters(void)
{
	const char *s = getenv("IBAL_SOAK_ITERS");
	int n = s ? atoi(s) : DEFAULT_ITERS;

	return n > 0 ? n : DEFAULT_ITERS;
}

/* ---- One environment: AL + CA ---- */

static ib_al_handle_t h_al;
static ib_ca_handle_t h_ca;

static void open_env(void)
{
	ib_net64_t guids[2];
	size_t n = 2;

	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[0], NULL, &tags[T_CA], &h_ca), IB_SUCCESS);
}

/* Closes the CA (asynchronously: one callback) and the AL. */
static void close_env(void)
{
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, on_destroy), IB_SUCCESS);
	n_expect[T_CA]++;
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	h_ca = NULL;
}

/* ---- One cycle ---- */

static ib_api_status_t make_qp(ib_pd_handle_t pd, ib_qp_type_t type, ib_cq_handle_t cq,
			       ib_srq_handle_t srq, void *ctx, ib_qp_handle_t *ph)
{
	ib_qp_create_t c;

	memset(&c, 0, sizeof(c));
	c.qp_type = type;
	c.sq_depth = 8;
	c.rq_depth = srq ? 0 : 8;
	c.sq_sge = 1;
	c.rq_sge = srq ? 0 : 1;
	c.h_sq_cq = cq;
	c.h_rq_cq = cq;
	c.h_srq = srq;
	c.sq_signaled = TRUE;
	return ib_create_qp(pd, &c, ctx, NULL, ph);
}

/* Destroy with a callback (counted) on async cycles, else synchronously
 * or without a callback. */
static ib_pfn_destroy_cb_t destroy_cb(int cycle, int tag)
{
	switch ((cycle + tag) % 3) {
	case 0:
		n_expect[tag]++;
		return on_destroy;
	case 1:
		return ib_sync_destroy;
	default:
		return NULL;
	}
}

static void one_cycle(int cycle)
{
	static uint8_t buf[4096];
	ib_mr_create_t mc = { .vaddr = buf, .length = sizeof(buf),
			      .access_ctrl = IB_AC_LOCAL_WRITE | IB_AC_MW_BIND };
	ib_cq_create_t cc = { 32, on_comp, NULL };
	ib_srq_attr_t sa = { 16, 1, 0 };
	ib_pd_handle_t pd;
	ib_cq_handle_t cq;
	ib_srq_handle_t srq;
	ib_qp_handle_t ud, rc;
	ib_mr_handle_t mr;
	ib_mw_handle_t mw;
	ib_av_handle_t av;
	ib_av_attr_t aa;
	net32_t lkey, rkey, mw_rkey;
	boolean_t rc_on_srq = (cycle & 1) != 0;

	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, &tags[T_PD], &pd), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_cq(h_ca, &cc, &tags[T_CQ], NULL, &cq), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_srq(pd, &sa, &tags[T_SRQ], NULL, &srq), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(make_qp(pd, IB_QPT_UNRELIABLE_DGRM, cq, NULL, &tags[T_UDQP], &ud),
			      IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(make_qp(pd, IB_QPT_RELIABLE_CONN, cq, rc_on_srq ? srq : NULL,
				      &tags[T_RCQP], &rc), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_mem(pd, &mc, &lkey, &rkey, &mr), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_create_mw(pd, &mw_rkey, &mw), IB_SUCCESS);
	memset(&aa, 0, sizeof(aa));
	aa.port_num = 1;
	aa.dlid = cl_hton16((uint16_t)(1 + cycle % 100));
	CU_ASSERT_EQUAL_FATAL(ib_create_av(pd, &aa, &av), IB_SUCCESS);

	CU_ASSERT_EQUAL(ib_destroy_av(av), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_mw(mw), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_mr(mr), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_qp(rc, destroy_cb(cycle, T_RCQP)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_qp(ud, destroy_cb(cycle, T_UDQP)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_srq(srq, destroy_cb(cycle, T_SRQ)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_destroy_cq(cq, destroy_cb(cycle, T_CQ)), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd, destroy_cb(cycle, T_PD)), IB_SUCCESS);
}

/* ---- Tests ---- */

static void test_soak(void)
{
	int iters = soak_iters(), cycle;
	uint32_t handles = al_handle_count();
	long rss_early = -1, rss_end;
	uint64_t t0 = test_now_ms();

	strcpy(fab_dir, "/tmp/ibal-alsoak-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
	memset(n_destroy, 0, sizeof(n_destroy));
	memset(n_expect, 0, sizeof(n_expect));
	CU_ASSERT_EQUAL_FATAL(__cl_mem_track(TRUE), CL_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(cl_mem_track_count(), 0);

	for (cycle = 0; cycle < iters; cycle++) {
		if (cycle % CYCLES_PER_AL == 0)
			open_env();
		one_cycle(cycle);
		CU_ASSERT_FATAL(wait_callbacks());
		if (cycle + 1 == RSS_EARLY_CYCLE)
			rss_early = rss_kb();
		if ((cycle + 1) % CYCLES_PER_AL == 0 || cycle + 1 == iters) {
			close_env();
			/* Each callback came exactly once, and nothing is left. */
			CU_ASSERT_FATAL(wait_callbacks());
			CU_ASSERT_EQUAL_FATAL(cl_mem_track_count(), 0);
			CU_ASSERT_EQUAL_FATAL(al_handle_count(), handles);
		}
	}
	rss_end = rss_kb();
	printf("\n  soak: %d cycles in %llu ms, callbacks ca=%d pd=%d cq=%d srq=%d ud=%d rc=%d,"
	       " rss %ld -> %ld KiB ", iters, (unsigned long long)(test_now_ms() - t0),
	       n_destroy[T_CA], n_destroy[T_PD], n_destroy[T_CQ], n_destroy[T_SRQ],
	       n_destroy[T_UDQP], n_destroy[T_RCQP], rss_early, rss_end);
	/* Every kind was destroyed asynchronously at least once. */
	for (cycle = 0; cycle < T_COUNT; cycle++)
		CU_ASSERT(iters < 3 || n_expect[cycle] > 0);
	if (rss_early > 0 && rss_meaningful())
		CU_ASSERT(rss_end <= rss_early + (long)RSS_BOUND_KB);
	__cl_mem_track(FALSE);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_soak),
};

TEST_MAIN("al_soak", tests)
