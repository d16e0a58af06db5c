/*
 * ibal tests: the clients of the core (al_client.h): watches of the ports, QPs made by a client.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A fabric directory of its own with two soft CAs of two ports each. A
 * recording client watches the ports: every port present first, then the
 * ports of a CA unplugged and plugged back (through ib_ci_call(), as in
 * test_al_pnp); after the watch ends nothing more comes. The CM, a client
 * watching the ports, gives an agent to the ports of a CA plugged in after
 * it started. Waits are bounded condition waits, never sleeps.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iba/ib_al.h>
#include <iba/ibal_soft.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/soft_ctl.h"
#include "al_client.h"
#include "al_cm.h"

#define WAIT_MS 10000

static char fab_dir[64];
static ib_al_handle_t h_al;
static ib_net64_t ca_guid[2];
static ib_ca_handle_t h_ca[2];

static void fab_begin(void)
{
	size_t n = 2;
	int i;

	strcpy(fab_dir, "/tmp/ibal-client-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_SOFT_PORTS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid[i], NULL, NULL, &h_ca[i]),
				      IB_SUCCESS);
}

static void fab_end(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	h_al = NULL;
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_CAS");
	unsetenv("IBAL_SOFT_PORTS");
	unsetenv("IBAL_PROVIDERS");
}

/* ---- A recording client ---- */

#define MAX_SEEN 32

typedef struct seen {
	int added;                   /* 1 port_added, 0 port_removed */
	al_client_port_t port;
	void *context;
} seen_t;

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rec_cond = PTHREAD_COND_INITIALIZER;
static seen_t rec[MAX_SEEN];
static int n_rec;
static int in_cb, overlap;           /* one callback at a time per watch */

static void record(void *context, const al_client_port_t *p_port, int added)
{
	pthread_mutex_lock(&rec_lock);
	if (in_cb++)
		overlap = 1;
	if (n_rec < MAX_SEEN) {
		rec[n_rec].added = added;
		rec[n_rec].port = *p_port;
		rec[n_rec].context = context;
		n_rec++;
	}
	in_cb--;
	pthread_cond_broadcast(&rec_cond);
	pthread_mutex_unlock(&rec_lock);
}

static void on_added(void *context, const al_client_port_t *p_port)
{
	record(context, p_port, 1);
}

static void on_removed(void *context, const al_client_port_t *p_port)
{
	record(context, p_port, 0);
}

static const al_client_t rec_client = {
	.name = "test",
	.port_added = on_added,
	.port_removed = on_removed,
};

/* Waits until @p n callbacks were recorded; the number recorded. */
static int rec_wait(int n)
{
	struct timespec ts;
	int got;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&rec_lock);
	while (n_rec < n)
		if (pthread_cond_timedwait(&rec_cond, &rec_lock, &ts))
			break;
	got = n_rec;
	pthread_mutex_unlock(&rec_lock);
	return got;
}

static void rec_reset(void)
{
	pthread_mutex_lock(&rec_lock);
	n_rec = 0;
	overlap = 0;
	memset(rec, 0, sizeof(rec));
	pthread_mutex_unlock(&rec_lock);
}

/* The port GUID of port @p num of CA @p i. */
static ib_net64_t port_guid_of(int i, uint8_t num)
{
	uint32_t size = 0;
	ib_ca_attr_t *a;
	ib_net64_t g = 0;

	ib_query_ca(h_ca[i], NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	if (a && ib_query_ca(h_ca[i], a, &size) == IB_SUCCESS && num <= a->num_ports)
		g = a->p_port_attr[num - 1].port_guid;
	free(a);
	return g;
}

/* Whether callbacks [from, from + n) told of both ports of CA @p i. */
static int told_both_ports(int from, int n, int i, int added)
{
	int k, found = 0;
	uint8_t num;

	for (num = 1; num <= 2; num++)
		for (k = from; k < from + n; k++)
			if (rec[k].added == added && rec[k].port.ca_guid == ca_guid[i] &&
			    rec[k].port.port_num == num &&
			    rec[k].port.port_guid == port_guid_of(i, num)) {
				found++;
				break;
			}
	return found == 2;
}

/* ---- Tests ---- */

static void test_watch_tells_ports_present(void)
{
	struct al_pnp *w = NULL;
	int ctx;

	fab_begin();
	rec_reset();
	CU_ASSERT_EQUAL_FATAL(al_client_watch_ports(&rec_client, &ctx, &w), IB_SUCCESS);
	CU_ASSERT_EQUAL(rec_wait(4), 4);
	CU_ASSERT(told_both_ports(0, 4, 0, 1));
	CU_ASSERT(told_both_ports(0, 4, 1, 1));
	CU_ASSERT_PTR_EQUAL(rec[0].context, &ctx);
	al_client_unwatch_ports(w);
	CU_ASSERT_EQUAL(n_rec, 4);
	CU_ASSERT_FALSE(overlap);
	fab_end();
}

static void test_watch_tells_ca_unplugged_and_back(void)
{
	struct al_pnp *w = NULL;

	fab_begin();
	rec_reset();
	CU_ASSERT_EQUAL_FATAL(al_client_watch_ports(&rec_client, NULL, &w), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rec_wait(4), 4);
	CU_ASSERT_EQUAL(soft_set_present(h_ca[1], FALSE), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rec_wait(6), 6);
	CU_ASSERT(told_both_ports(4, 2, 1, 0));
	CU_ASSERT_EQUAL(soft_set_present(h_ca[1], TRUE), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rec_wait(8), 8);
	CU_ASSERT(told_both_ports(6, 2, 1, 1));
	CU_ASSERT_FALSE(overlap);
	al_client_unwatch_ports(w);
	fab_end();
}

static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p_rec)
{
	int *p_removed = (int *)p_rec->pnp_context;

	if (p_rec->pnp_event == IB_PNP_PORT_REMOVE) {
		pthread_mutex_lock(&rec_lock);
		(*p_removed)++;
		pthread_cond_broadcast(&rec_cond);
		pthread_mutex_unlock(&rec_lock);
	}
	return IB_SUCCESS;
}

/* After al_client_unwatch_ports() a change reaches a registration but not
 * the ended watch. */
static void test_unwatch_ends_callbacks(void)
{
	struct al_pnp *w = NULL;
	ib_pnp_req_t pr = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, NULL, on_pnp };
	ib_pnp_handle_t h;
	struct timespec ts;
	int removed = 0;

	fab_begin();
	rec_reset();
	pr.pnp_context = &removed;
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &pr, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(al_client_watch_ports(&rec_client, NULL, &w), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(rec_wait(4), 4);
	al_client_unwatch_ports(w);
	CU_ASSERT_EQUAL(soft_set_present(h_ca[0], FALSE), IB_SUCCESS);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += WAIT_MS / 1000;
	pthread_mutex_lock(&rec_lock);
	while (removed < 2)
		if (pthread_cond_timedwait(&rec_cond, &rec_lock, &ts))
			break;
	CU_ASSERT_EQUAL(removed, 2);
	CU_ASSERT_EQUAL(n_rec, 4);
	pthread_mutex_unlock(&rec_lock);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	fab_end();
}

static void test_watch_bad_arguments(void)
{
	struct al_pnp *w = NULL;

	CU_ASSERT_EQUAL(al_client_watch_ports(NULL, NULL, &w), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(al_client_watch_ports(&rec_client, NULL, NULL), IB_INVALID_PARAMETER);
	al_client_unwatch_ports(NULL);
}

/* ib_create_qp asks the clients for the QP types no provider makes: the
 * MAD layer makes IB_QPT_MAD. */
static void test_mad_qp_from_a_client(void)
{
	ib_pd_handle_t pd;
	ib_qp_handle_t qp = NULL;
	ib_qp_create_t qc;

	fab_begin();
	CU_ASSERT_EQUAL_FATAL(ib_alloc_pd(h_ca[0], IB_PDT_NORMAL, NULL, &pd), IB_SUCCESS);
	memset(&qc, 0, sizeof(qc));
	qc.qp_type = IB_QPT_MAD;
	CU_ASSERT_EQUAL(ib_create_qp(pd, &qc, NULL, NULL, &qp), IB_SUCCESS);
	CU_ASSERT_PTR_NOT_NULL(qp);
	if (qp)
		CU_ASSERT_EQUAL(ib_destroy_qp(qp, ib_sync_destroy), IB_SUCCESS);
	qc.qp_type = IB_QPT_QP0;
	CU_ASSERT_EQUAL(al_clients_create_qp(NULL, &qc, NULL, NULL, &qp), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_dealloc_pd(pd, ib_sync_destroy), IB_SUCCESS);
	fab_end();
}

static void AL_API on_listen_req(ib_cm_req_rec_t *p)
{
	(void)p;
}

/* The CM's agents: the ports present when it starts, and through its watch
 * the ports of a CA plugged in later. */
static void test_cm_agent_for_port_plugged_later(void)
{
	ib_cm_listen_t l;
	ib_listen_handle_t hl = NULL;
	struct timespec t0, t;
	uint32_t n;

	fab_begin();
	CU_ASSERT_EQUAL_FATAL(soft_set_present(h_ca[1], FALSE), IB_SUCCESS);
	memset(&l, 0, sizeof(l));
	l.svc_id = CL_HTON64(0x1234500001ull);
	l.ca_guid = IB_ALL_CAS;
	l.port_guid = IB_ALL_PORTS;
	l.lid = IB_ALL_LIDS;
	l.qp_type = IB_QPT_RELIABLE_CONN;
	l.pfn_cm_req_cb = on_listen_req;
	CU_ASSERT_EQUAL_FATAL(ib_cm_listen(h_al, &l, NULL, &hl), IB_SUCCESS);
	CU_ASSERT_EQUAL(al_cm_port_count(), 2);
	CU_ASSERT_EQUAL(soft_set_present(h_ca[1], TRUE), IB_SUCCESS);
	/* The agents are made on an AL callback thread: no event tells the
	 * test, so it checks the count, yielding, within a bound. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = al_cm_port_count();
		if (n == 4)
			break;
		sched_yield();
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < WAIT_MS);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(ib_cm_cancel(hl, ib_sync_destroy), IB_SUCCESS);
	fab_end();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_watch_tells_ports_present),
	TEST_ENTRY(test_watch_tells_ca_unplugged_and_back),
	TEST_ENTRY(test_unwatch_ends_callbacks),
	TEST_ENTRY(test_watch_bad_arguments),
	TEST_ENTRY(test_mad_qp_from_a_client),
	TEST_ENTRY(test_cm_agent_for_port_plugged_later),
};

TEST_MAIN("al_client", tests)
