/*
 * ibal tests: path records the SA client makes itself for RoCE ports (no SA there).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Host test of al_sa_roce.c: the path from a port's attributes and two GIDs,
 * the rate from width and speed, and the status of every kind of request.
 * Where a RoCE port is there (the project's rxe guest), a PathRecord query
 * through ib_query is answered without the SA client opening a MAD service:
 * no MAD dispatcher thread ("al_mad") is made for it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "al_sa_client.h"
#include "../common/cl_test.h"

static ib_gid_t gids[3];
static ib_net16_t pkeys[1] = { CL_HTON16(0xFFFF) };

static void port_fill(ib_port_attr_t *pa)
{
	unsigned i, j;

	memset(pa, 0, sizeof(*pa));
	for (i = 0; i < 3; i++)
		for (j = 0; j < 16; j++)
			gids[i].raw[j] = (uint8_t)(i * 16 + j);
	pa->port_num = 1;
	pa->transport = RDMA_TRANSPORT_RDMAOE;
	pa->mtu = IB_MTU_LEN_1024;
	pa->active_width = 2;      /* 4X */
	pa->active_speed = 4;      /* QDR: 40 Gb/s */
	pa->link_state = IB_LINK_ACTIVE;
	pa->num_gids = 3;
	pa->p_gid_table = gids;
	pa->num_pkeys = 1;
	pa->p_pkey_table = pkeys;
}

static void test_path(void)
{
	ib_port_attr_t pa;
	ib_path_rec_t p;
	ib_gid_t d;
	uint8_t hop;
	uint32_t flow;

	port_fill(&pa);
	memset(&d, 0xEE, sizeof(d));
	al_sa_roce_path(&pa, &gids[1], &d, &p);
	CU_ASSERT_EQUAL(memcmp(&p.sgid, &gids[1], 16), 0);
	CU_ASSERT_EQUAL(memcmp(&p.dgid, &d, 16), 0);
	CU_ASSERT_EQUAL(p.dlid, 0);
	CU_ASSERT_EQUAL(p.slid, 0);
	CU_ASSERT_EQUAL(p.pkey, CL_HTON16(0xFFFF));
	CU_ASSERT_EQUAL(ib_path_rec_mtu(&p), IB_MTU_LEN_1024);
	CU_ASSERT_EQUAL(ib_path_rec_rate(&p), IB_PATH_RECORD_RATE_40_GBS);
	CU_ASSERT_EQUAL(ib_path_rec_pkt_life(&p), 16);
	CU_ASSERT_EQUAL(ib_path_rec_num_path(&p), 1);
	CU_ASSERT(p.num_path & 0x80);   /* reversible */
	hop = ib_path_rec_hop_limit(&p);
	flow = ib_path_rec_flow_lbl(&p);
	CU_ASSERT_EQUAL(hop, 64);        /* an AV from it gets a GRH */
	CU_ASSERT_EQUAL(flow, 0);
}

static void test_rate(void)
{
	ib_port_attr_t pa;

	port_fill(&pa);
	pa.active_width = 1;
	pa.active_speed = 1;
	CU_ASSERT_EQUAL(al_sa_port_rate(&pa), IB_PATH_RECORD_RATE_2_5_GBS);
	pa.active_width = 2;
	pa.active_speed = 2;
	CU_ASSERT_EQUAL(al_sa_port_rate(&pa), IB_PATH_RECORD_RATE_20_GBS);
	pa.ext_active_speed = 1;        /* FDR */
	CU_ASSERT_EQUAL(al_sa_port_rate(&pa), IB_PATH_RECORD_RATE_56_GBS);
	pa.ext_active_speed = 2;        /* EDR */
	CU_ASSERT_EQUAL(al_sa_port_rate(&pa), IB_PATH_RECORD_RATE_100_GBS);
	pa.active_width = 8;            /* 12X EDR */
	CU_ASSERT_EQUAL(al_sa_port_rate(&pa), IB_PATH_RECORD_RATE_300_GBS);
	pa.active_width = 3;            /* no such width */
	CU_ASSERT_EQUAL(al_sa_port_rate(&pa), IB_PATH_RECORD_RATE_10_GBS);
}

static void test_status(void)
{
	ib_port_attr_t pa;
	ib_path_rec_t t, p;
	ib_user_query_t q;

	port_fill(&pa);
	memset(&t, 0, sizeof(t));
	memset(&q, 0, sizeof(q));
	q.method = IB_MAD_METHOD_GETTABLE;
	q.attr_id = IB_MAD_ATTR_PATH_RECORD;
	q.attr_size = sizeof(t);
	q.p_attr = &t;
	memset(&t.dgid, 0x77, 16);
	t.sgid = gids[2];
	q.comp_mask = IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_NUMBPATH;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_SA_MAD_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(&p.sgid, &gids[2], 16), 0);
	CU_ASSERT_EQUAL(memcmp(&p.dgid, &t.dgid, 16), 0);
	/* No SGID given: the port's first GID. */
	q.comp_mask = IB_PR_COMPMASK_DGID;
	q.method = IB_MAD_METHOD_GET;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_SA_MAD_STATUS_SUCCESS);
	CU_ASSERT_EQUAL(memcmp(&p.sgid, &gids[0], 16), 0);
	/* An SGID the port does not have. */
	memset(&t.sgid, 0x55, 16);
	q.comp_mask = IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_SGID;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_SA_MAD_STATUS_INVALID_GID);
	/* By LIDs: RoCE has none. Nothing usable: insufficient components. */
	q.comp_mask = IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_SLID;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_SA_MAD_STATUS_NO_RECORDS);
	q.comp_mask = 0;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_SA_MAD_STATUS_INSUF_COMPS);
	/* Other attributes and methods. */
	q.comp_mask = IB_PR_COMPMASK_DGID;
	q.method = IB_MAD_METHOD_SET;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	q.method = IB_MAD_METHOD_GET;
	q.attr_id = IB_MAD_ATTR_SERVICE_RECORD;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_MAD_STATUS_UNSUP_METHOD_ATTR);
	/* A port without GIDs. */
	q.attr_id = IB_MAD_ATTR_PATH_RECORD;
	pa.num_gids = 0;
	CU_ASSERT_EQUAL(al_sa_roce_status(&pa, &q, &p), IB_SA_MAD_STATUS_NO_RECORDS);
}

/* Threads of this process named @p name. */
static unsigned threads_named(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			comm[strcspn(comm, "\n")] = '\0';
		fclose(f);
		n += !strcmp(comm, name);
	}
	closedir(d);
	return n;
}

static pthread_mutex_t q_lock = PTHREAD_MUTEX_INITIALIZER;
static ib_api_status_t q_status = IB_ERROR;
static uint32_t q_count;

static void AL_API on_query(ib_query_rec_t *p_rec)
{
	pthread_mutex_lock(&q_lock);
	q_status = p_rec->status;
	q_count = p_rec->result_cnt;
	pthread_mutex_unlock(&q_lock);
	if (p_rec->p_result_mad)
		ib_put_mad(p_rec->p_result_mad);
}

/* The first RoCE port of the verbs provider's CAs: its GUID and GID 0. */
static boolean_t roce_port(ib_al_handle_t h_al, ib_net64_t *p_guid, ib_gid_t *p_gid)
{
	ib_net64_t guids[8];
	size_t n = 8, i;
	boolean_t found = FALSE;

	if (ib_get_ca_guids(h_al, guids, &n) != IB_SUCCESS)
		return FALSE;
	for (i = 0; i < n && !found; i++) {
		ib_ca_handle_t h_ca;
		ib_ca_attr_t *a;
		uint32_t size = 0, p;

		if (ib_open_ca(h_al, guids[i], NULL, NULL, &h_ca) != IB_SUCCESS)
			continue;
		if (ib_query_ca(h_ca, NULL, &size) == IB_INSUFFICIENT_MEMORY && (a = malloc(size))) {
			if (ib_query_ca(h_ca, a, &size) == IB_SUCCESS)
				for (p = 0; p < a->num_ports && !found; p++)
					if (a->p_port_attr[p].transport == RDMA_TRANSPORT_RDMAOE &&
					    a->p_port_attr[p].link_state == IB_LINK_ACTIVE &&
					    a->p_port_attr[p].num_gids) {
						*p_guid = a->p_port_attr[p].port_guid;
						*p_gid = a->p_port_attr[p].p_gid_table[0];
						found = TRUE;
					}
			free(a);
		}
		ib_close_ca(h_ca, ib_sync_destroy);
	}
	return found;
}

/* On a RoCE port, a PathRecord query is answered with no MAD service opened. */
static void test_roce_query_no_mad_service(void)
{
	ib_al_handle_t h_al;
	ib_gid_pair_t gp;
	ib_query_req_t q;
	ib_net64_t guid = 0;

	setenv("IBAL_PROVIDERS", "verbs", 1);
	if (ib_open_al(&h_al) != IB_SUCCESS) {
		printf("\n    no verbs provider: nothing to check\n  ");
		unsetenv("IBAL_PROVIDERS");
		return;
	}
	memset(&gp, 0, sizeof(gp));
	if (!roce_port(h_al, &guid, &gp.src_gid)) {
		printf("\n    no RoCE port: nothing to check\n  ");
		CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
		unsetenv("IBAL_PROVIDERS");
		return;
	}
	gp.dest_gid = gp.src_gid;
	memset(&q, 0, sizeof(q));
	q.query_type = IB_QUERY_PATH_REC_BY_GIDS;
	q.p_query_input = &gp;
	q.port_guid = guid;
	q.timeout_ms = 1000;
	q.retry_cnt = 2;
	q.flags = IB_FLAGS_SYNC;
	q.pfn_query_cb = on_query;
	CU_ASSERT_EQUAL(ib_query(h_al, &q, NULL), IB_SUCCESS);
	pthread_mutex_lock(&q_lock);
	CU_ASSERT_EQUAL(q_status, IB_SUCCESS);
	CU_ASSERT_EQUAL(q_count, 1);
	pthread_mutex_unlock(&q_lock);
	CU_ASSERT_EQUAL(threads_named("al_mad"), 0);
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	unsetenv("IBAL_PROVIDERS");
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_path),
	TEST_ENTRY(test_rate),
	TEST_ENTRY(test_status),
	TEST_ENTRY(test_roce_query_no_mad_service),
};

TEST_MAIN("al_sa_roce", tests)
