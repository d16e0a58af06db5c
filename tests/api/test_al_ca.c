/*
 * ibal tests: AL instances and CAs through the public API, on the soft provider.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own (mkdtemp, named by
 * IBAL_SOFT_FABRIC) with IBAL_SOFT_CAS=2. Waits are bounded condition
 * waits, never sleeps.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"

/* ---- Fabric directory ---- */

static char fab_dir[64];

static void fab_begin(void)
{
	strcpy(fab_dir, "/tmp/ibal-alca-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	unsetenv("IBAL_SOFT_PORTS");
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
}

static void fab_end(void)
{
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
}

/* ---- Callback counters ---- */

static pthread_mutex_t cb_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cb_cond = PTHREAD_COND_INITIALIZER;
static int n_destroy;
static void *destroy_ctx;

static void AL_API on_destroy(void *context)
{
	pthread_mutex_lock(&cb_lock);
	n_destroy++;
	destroy_ctx = context;
	pthread_cond_broadcast(&cb_cond);
	pthread_mutex_unlock(&cb_lock);
}

/* Waits (bounded) until *p_count reaches want; returns its value. */
static int wait_count(int *p_count, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&cb_lock);
	while (*p_count < want && pthread_cond_timedwait(&cb_cond, &cb_lock, &ts) == 0)
		;
	v = *p_count;
	pthread_mutex_unlock(&cb_lock);
	return v;
}

static void AL_API on_ca_event(ib_async_event_rec_t *p_rec)
{
	(void)p_rec;
}

/* ---- Helpers ---- */

static ib_al_handle_t open_al(void)
{
	ib_al_handle_t h_al = NULL;

	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h_al);
	return h_al;
}

static void get_guids(ib_al_handle_t h_al, ib_net64_t *guids, size_t *p_n)
{
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, guids, p_n), IB_SUCCESS);
}

/* The attributes of an open CA in a fresh buffer (free()). */
static ib_ca_attr_t *query(ib_ca_handle_t h_ca)
{
	uint32_t size = 0;
	ib_ca_attr_t *p;

	CU_ASSERT_EQUAL(ib_query_ca(h_ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_FATAL(size >= sizeof(ib_ca_attr_t));
	p = (ib_ca_attr_t *)calloc(1, size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ib_query_ca(h_ca, p, &size), IB_SUCCESS);
	return p;
}

/* ---- Tests ---- */

static void test_open_close_nested(void)
{
	ib_al_handle_t h1, h2;
	int round;

	fab_begin();
	CU_ASSERT_EQUAL(ib_open_al(NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_close_al(NULL), IB_INVALID_AL_HANDLE);
	for (round = 0; round < 2; round++) {
		h1 = open_al();
		h2 = open_al();
		CU_ASSERT_NOT_EQUAL(h1, h2);
		CU_ASSERT_EQUAL(ib_close_al(h2), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_close_al(h2), IB_INVALID_AL_HANDLE);
		CU_ASSERT_EQUAL(ib_close_al(h1), IB_SUCCESS);
		CU_ASSERT_EQUAL(ib_close_al(h1), IB_INVALID_AL_HANDLE);
	}
	fab_end();
}

static void test_ca_guids(void)
{
	ib_al_handle_t h_al;
	ib_net64_t guids[4] = { 0 };
	size_t n, n_verbs;
	ib_api_status_t st;

	fab_begin();
	h_al = open_al();
	n = 0;
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, NULL, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 2);
	n = 1;
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, guids, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, 2);
	n = 4;
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, guids, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 2);
	CU_ASSERT_NOT_EQUAL(guids[0], 0);
	CU_ASSERT_NOT_EQUAL(guids[0], guids[1]);
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, guids, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_ca_guids(NULL, guids, &n), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, guids, &n), IB_INVALID_AL_HANDLE);

	/* IBAL_PROVIDERS restricts the providers loaded by the first open:
	 * the verbs provider alone lists the host's RDMA devices (none on a
	 * machine without them), and with soft too the two soft CAs more. */
	setenv("IBAL_PROVIDERS", "verbs", 1);
	h_al = open_al();
	n = 0;
	st = ib_get_ca_guids(h_al, NULL, &n);
	CU_ASSERT_EQUAL(st, n ? IB_INSUFFICIENT_MEMORY : IB_SUCCESS);
	n_verbs = n;
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	setenv("IBAL_PROVIDERS", "verbs,soft", 1);
	h_al = open_al();
	n = 0;
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, NULL, &n), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(n, n_verbs + 2);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	setenv("IBAL_PROVIDERS", "soft", 1);
	fab_end();
}

static void test_by_gid(void)
{
	ib_al_handle_t h_al;
	ib_net64_t guids[2], out = 0;
	ib_ca_handle_t h_ca;
	ib_ca_attr_t *p;
	ib_gid_t gid;
	size_t n = 2;
	int i;

	fab_begin();
	h_al = open_al();
	get_guids(h_al, guids, &n);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[i], NULL, NULL, &h_ca), IB_SUCCESS);
		p = query(h_ca);
		CU_ASSERT_EQUAL_FATAL(p->num_ports, 1);
		CU_ASSERT_FATAL(p->p_port_attr[0].num_gids >= 1);
		gid = p->p_port_attr[0].p_gid_table[0];
		CU_ASSERT_EQUAL(ib_get_ca_by_gid(h_al, &gid, &out), IB_SUCCESS);
		CU_ASSERT_EQUAL(out, guids[i]);
		CU_ASSERT_EQUAL(ib_get_port_by_gid(h_al, &gid, &out), IB_SUCCESS);
		CU_ASSERT_EQUAL(out, p->p_port_attr[0].port_guid);
		free(p);
		CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	}
	/* Without an open CA the lookup opens the adapters itself. */
	CU_ASSERT_EQUAL(ib_get_ca_by_gid(h_al, &gid, &out), IB_SUCCESS);
	CU_ASSERT_EQUAL(out, guids[1]);
	gid.unicast.interface_id ^= CL_HTON64(0xFF);
	CU_ASSERT_EQUAL(ib_get_ca_by_gid(h_al, &gid, &out), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(ib_get_port_by_gid(h_al, &gid, &out), IB_NOT_FOUND);
	CU_ASSERT_EQUAL(ib_get_ca_by_gid(h_al, NULL, &out), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_ca_by_gid(h_al, &gid, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_port_by_gid(h_al, NULL, &out), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_ca_by_gid(NULL, &gid, &out), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_get_port_by_gid(NULL, &gid, &out), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	fab_end();
}

static void test_open_query_modify_close(void)
{
	ib_al_handle_t h_al;
	ib_net64_t guids[2];
	ib_ca_handle_t h_ca;
	ib_ca_attr_t *p, *p2;
	ib_port_attr_mod_t mod;
	uint32_t size, small;
	size_t n = 2;
	int ctx;

	fab_begin();
	h_al = open_al();
	get_guids(h_al, guids, &n);
	CU_ASSERT_EQUAL(ib_open_ca(h_al, guids[0], on_ca_event, &ctx, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_open_ca(h_al, 0x1234, NULL, NULL, &h_ca), IB_INVALID_GUID);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[0], on_ca_event, &ctx, &h_ca), IB_SUCCESS);

	p = query(h_ca);
	CU_ASSERT_EQUAL(p->ca_guid, guids[0]);
	CU_ASSERT_EQUAL(p->num_ports, 1);
	size = p->size;
	small = size - 1;
	p2 = (ib_ca_attr_t *)calloc(1, size);
	CU_ASSERT_EQUAL(ib_query_ca(h_ca, p2, &small), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(small, size);
	CU_ASSERT_EQUAL(ib_query_ca(h_ca, p2, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_query_ca(NULL, p2, &size), IB_INVALID_CA_HANDLE);

	/* By GUID, without the handle. */
	size = 0;
	CU_ASSERT_EQUAL(ib_query_ca_by_guid(h_al, guids[1], NULL, &size), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(size, p->size);
	CU_ASSERT_EQUAL(ib_query_ca_by_guid(h_al, guids[1], p2, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(p2->ca_guid, guids[1]);
	CU_ASSERT_EQUAL(ib_query_ca_by_guid(h_al, guids[0], p2, &size), IB_SUCCESS);
	CU_ASSERT_EQUAL(p2->ca_guid, guids[0]);
	CU_ASSERT_EQUAL(ib_query_ca_by_guid(h_al, 0x99, p2, &size), IB_INVALID_GUID);
	CU_ASSERT_EQUAL(ib_query_ca_by_guid(h_al, guids[0], p2, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_query_ca_by_guid(NULL, guids[0], p2, &size), IB_INVALID_AL_HANDLE);

	/* Modify: a capability bit shows in the next query. */
	memset(&mod, 0, sizeof(mod));
	mod.cap.sm = TRUE;
	CU_ASSERT_FALSE(p->p_port_attr[0].cap.sm);
	CU_ASSERT_EQUAL(ib_modify_ca(h_ca, 1, IB_CA_MOD_IS_SM, &mod), IB_SUCCESS);
	free(p);
	p = query(h_ca);
	CU_ASSERT_TRUE(p->p_port_attr[0].cap.sm);
	CU_ASSERT_EQUAL(ib_modify_ca(h_ca, 9, IB_CA_MOD_IS_SM, &mod), IB_INVALID_PORT);
	CU_ASSERT_EQUAL(ib_modify_ca(h_ca, 1, IB_CA_MOD_IS_SM, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_modify_ca(NULL, 1, IB_CA_MOD_IS_SM, &mod), IB_INVALID_CA_HANDLE);

	/* Close with a callback: once, with the context. */
	pthread_mutex_lock(&cb_lock);
	n_destroy = 0;
	pthread_mutex_unlock(&cb_lock);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, on_destroy), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_query_ca(h_ca, p2, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(wait_count(&n_destroy, 1), 1);
	CU_ASSERT_PTR_EQUAL(destroy_ctx, &ctx);
	free(p);
	free(p2);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL(n_destroy, 1);
	fab_end();
}

/* One provider CA per GUID: two instances (and two opens in one) share it. */
static void test_ca_shared(void)
{
	ib_al_handle_t h1, h2;
	ib_net64_t guids[2];
	ib_ca_handle_t c1, c2, c3;
	uint32_t size = 0;
	size_t n = 2;

	fab_begin();
	h1 = open_al();
	h2 = open_al();
	get_guids(h1, guids, &n);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h1, guids[0], NULL, NULL, &c1), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h2, guids[0], NULL, NULL, &c2), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h2, guids[0], NULL, NULL, &c3), IB_SUCCESS);
	CU_ASSERT_NOT_EQUAL(c1, c2);
	CU_ASSERT_NOT_EQUAL(c2, c3);
	CU_ASSERT_EQUAL(ib_close_al(h1), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_ca(c1, NULL, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_query_ca(c2, NULL, &size), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(ib_close_ca(c2, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_ca(c3, NULL, &size), IB_INSUFFICIENT_MEMORY);
	/* Closing the last open releases the provider CA; it opens again. */
	CU_ASSERT_EQUAL(ib_close_ca(c3, NULL), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_ca(c3, NULL), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h2, guids[0], NULL, NULL, &c1), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_al(h2), IB_SUCCESS);
	fab_end();
}

static void test_ca_bad_handles(void)
{
	ib_al_handle_t h_al;
	ib_net64_t guids[2];
	ib_ca_handle_t h_ca, h_old;
	ib_pd_handle_t h_pd;
	ib_port_attr_mod_t mod;
	ib_ci_op_t op;
	uint32_t size = 0;
	size_t n = 2;
	const void *arr[1];

	fab_begin();
	memset(&mod, 0, sizeof(mod));
	memset(&op, 0, sizeof(op));
	h_al = open_al();
	get_guids(h_al, guids, &n);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[0], NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca, IB_PDT_NORMAL, NULL, &h_pd), IB_SUCCESS);

	/* NULL, a handle of another type, an AL handle where a CA goes. */
	CU_ASSERT_EQUAL(ib_query_ca(NULL, NULL, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_query_ca((ib_ca_handle_t)h_pd, NULL, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_query_ca((ib_ca_handle_t)h_al, NULL, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_close_ca((ib_ca_handle_t)h_pd, NULL), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_open_ca((ib_al_handle_t)h_ca, guids[0], NULL, NULL, &h_old),
			IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_close_al((ib_al_handle_t)h_ca), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_ci_call(NULL, NULL, 0, &op), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_ci_call(h_ca, NULL, 0, NULL), IB_INVALID_PARAMETER);
	arr[0] = h_al;
	CU_ASSERT_EQUAL(ib_ci_call(h_ca, arr, 1, &op), IB_INVALID_HANDLE);
	arr[0] = h_pd;
	/* The handles are good: the soft provider then refuses command 0. */
	CU_ASSERT_EQUAL(ib_ci_call(h_ca, arr, 1, &op), IB_INVALID_SETTING);

	/* Destroyed, then destroyed and its slot reused. */
	h_old = h_ca;
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_ca(h_old, NULL, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_alloc_pd(h_old, IB_PDT_NORMAL, NULL, &h_pd), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, guids[1], NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_query_ca(h_old, NULL, &size), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_modify_ca(h_old, 1, IB_CA_MOD_IS_SM, &mod), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_close_ca(h_old, NULL), IB_INVALID_CA_HANDLE);
	CU_ASSERT_EQUAL(ib_query_ca(h_ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	fab_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_open_close_nested),
	TEST_ENTRY(test_ca_guids),
	TEST_ENTRY(test_by_gid),
	TEST_ENTRY(test_open_query_modify_close),
	TEST_ENTRY(test_ca_shared),
	TEST_ENTRY(test_ca_bad_handles),
};

TEST_MAIN("al_ca", tests)
