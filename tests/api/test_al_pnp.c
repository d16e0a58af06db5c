/*
 * ibal tests: PnP registrations of the CA and port classes (ib_reg_pnp, ib_dereg_pnp) on the soft provider.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every test runs in a fabric directory of its own with two soft CAs of
 * two ports each. Changes are made the way a user of the soft provider
 * makes them, through ib_ci_call() (inc/iba/ibal_soft.h): port down and
 * up, a new LID, a CA unplugged and plugged back. Waits are bounded
 * condition waits, never sleeps.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <iba/ib_al.h>
#include <iba/ibal_soft.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/soft_ctl.h"

/* ---- Fabric directory ---- */

static char fab_dir[64];

static void fab_begin(void)
{
	strcpy(fab_dir, "/tmp/ibal-pnp-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_SOFT_PORTS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1); /* the soft CAs only, whatever else the host has */
}

static void fab_end(void)
{
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_SOFT_PORTS");
}

/* ---- What the callbacks saw ---- */

#define MAX_SEEN 64

typedef struct seen {
	ib_pnp_event_t event;
	ib_net64_t guid, ca_guid;
	void *context;               /* as the record carried it */
	const void *pnp_context;
	ib_pnp_handle_t h_pnp;
	int has_ca_attr, has_port_attr;
	ib_net64_t attr_ca_guid;     /* p_ca_attr->ca_guid */
	ib_net64_t attr_port_guid;   /* p_port_attr->port_guid */
	ib_net16_t lid;              /* p_port_attr->lid */
	uint8_t link_state;          /* p_port_attr->link_state */
} seen_t;

typedef struct log {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	seen_t ev[MAX_SEEN];
	int n;
	int busy;                    /* a callback is running (overlap check) */
	int overlap;                 /* two callbacks of one registration overlapped */
	/* Behaviour. */
	ib_net64_t decline_guid;     /* return IB_ERROR on the ADD of this device */
	int set_context;             /* store the device GUID as its context */
	int dereg_on;                /* ib_dereg_pnp from the callback at this count */
	ib_api_status_t dereg_st;
	ib_api_status_t nested_sync_st;   /* ib_dereg_pnp(ib_sync_destroy) from the callback */
	ib_api_status_t nested_reg_st;    /* ib_reg_pnp(REG_SYNC) from the callback */
	ib_al_handle_t h_al;
} log_t;

static void log_init(log_t *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->dereg_on = -1;
	p->nested_sync_st = p->nested_reg_st = IB_NOT_DONE;
}

static void log_fini(log_t *p)
{
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
}

static ib_api_status_t AL_API dummy_cb(ib_pnp_rec_t *p_rec)
{
	(void)p_rec;
	return IB_SUCCESS;
}

static ib_api_status_t AL_API record_cb(ib_pnp_rec_t *p_rec)
{
	log_t *p = (log_t *)p_rec->pnp_context;
	ib_api_status_t ret = IB_SUCCESS;
	seen_t s;
	int idx;

	memset(&s, 0, sizeof(s));
	s.event = p_rec->pnp_event;
	s.guid = p_rec->guid;
	s.ca_guid = p_rec->ca_guid;
	s.context = p_rec->context;
	s.pnp_context = p_rec->pnp_context;
	s.h_pnp = p_rec->h_pnp;
	if ((p_rec->pnp_event & IB_PNP_CLASS_MASK) == IB_PNP_CA) {
		ib_pnp_ca_rec_t *r = (ib_pnp_ca_rec_t *)p_rec;

		s.has_ca_attr = r->p_ca_attr != NULL;
		if (r->p_ca_attr)
			s.attr_ca_guid = r->p_ca_attr->ca_guid;
	} else if ((p_rec->pnp_event & IB_PNP_CLASS_MASK) == IB_PNP_PORT) {
		ib_pnp_port_rec_t *r = (ib_pnp_port_rec_t *)p_rec;

		s.has_ca_attr = r->p_ca_attr != NULL;
		s.has_port_attr = r->p_port_attr != NULL;
		if (r->p_ca_attr)
			s.attr_ca_guid = r->p_ca_attr->ca_guid;
		if (r->p_port_attr) {
			s.attr_port_guid = r->p_port_attr->port_guid;
			s.lid = r->p_port_attr->lid;
			s.link_state = r->p_port_attr->link_state;
		}
	}
	pthread_mutex_lock(&p->lock);
	if (p->busy)
		p->overlap = 1;
	p->busy = 1;
	idx = p->n;
	pthread_mutex_unlock(&p->lock);

	if (p->set_context && (s.event & IB_PNP_EVENT_ADD))
		p_rec->context = (void *)(uintptr_t)p_rec->guid;
	if (p->decline_guid && p_rec->guid == p->decline_guid && (s.event & IB_PNP_EVENT_ADD))
		ret = IB_ERROR;
	if (idx == p->dereg_on) {
		ib_pnp_handle_t h2;
		ib_pnp_req_t req = { IB_PNP_CA | IB_PNP_FLAG_REG_SYNC, NULL, dummy_cb };

		p->nested_sync_st = ib_dereg_pnp(p_rec->h_pnp, ib_sync_destroy);
		p->nested_reg_st = ib_reg_pnp(p->h_al, &req, &h2);
		p->dereg_st = ib_dereg_pnp(p_rec->h_pnp, NULL);
	}

	pthread_mutex_lock(&p->lock);
	if (p->n < MAX_SEEN)
		p->ev[p->n++] = s;
	p->busy = 0;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return ret;
}

/* Waits (bounded) until the log holds at least want events; returns the count. */
static int log_wait(log_t *p, int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&p->lock);
	while (p->n < want && pthread_cond_timedwait(&p->cond, &p->lock, &ts) == 0)
		;
	v = p->n;
	pthread_mutex_unlock(&p->lock);
	return v;
}

/* Index of the first event of a kind about a device at or after from; -1 if none. */
static int log_find(log_t *p, int from, ib_pnp_event_t ev, ib_net64_t guid)
{
	int i, r = -1;

	pthread_mutex_lock(&p->lock);
	for (i = from; i < p->n && r < 0; i++)
		if (p->ev[i].event == ev && (!guid || p->ev[i].guid == guid))
			r = i;
	pthread_mutex_unlock(&p->lock);
	return r;
}

/* Waits (bounded) for an event of a kind about a device at or after from;
 * returns its index, -1 if it did not come. */
static int log_wait_for(log_t *p, int from, ib_pnp_event_t ev, ib_net64_t guid)
{
	int r;

	while ((r = log_find(p, from, ev, guid)) < 0) {
		int n = log_wait(p, 0);

		if (log_wait(p, n + 1) <= n)
			return log_find(p, from, ev, guid);
	}
	return r;
}

/* ---- Helpers ---- */

static ib_al_handle_t h_al;
static ib_net64_t ca_guid[2];

static void open_al(void)
{
	size_t n = 2;

	fab_begin();
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_al), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_al, ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
}

static void close_al(void)
{
	CU_ASSERT_EQUAL(ib_close_al(h_al), IB_SUCCESS);
	fab_end();
}

/* Port GUID of port (1-based) of CA index ci, read from the CA. */
static ib_net64_t port_guid(ib_ca_handle_t h_ca, uint8_t port)
{
	uint32_t size = 0;
	ib_ca_attr_t *a;
	ib_net64_t g;

	ib_query_ca(h_ca, NULL, &size);
	a = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, a, &size), IB_SUCCESS);
	g = a->p_port_attr[port - 1].port_guid;
	free(a);
	return g;
}

/* ---- CA async events ---- */

static pthread_mutex_t ae_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ae_cond = PTHREAD_COND_INITIALIZER;
static ib_async_event_t ae_code[16];
static uint64_t ae_vendor[16];
static int ae_n;

static void AL_API ca_event_cb(ib_async_event_rec_t *p_rec)
{
	pthread_mutex_lock(&ae_lock);
	if (ae_n < 16) {
		ae_code[ae_n] = p_rec->code;
		ae_vendor[ae_n] = p_rec->vendor_specific;
		ae_n++;
	}
	pthread_cond_broadcast(&ae_cond);
	pthread_mutex_unlock(&ae_lock);
}

static int ae_wait(int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&ae_lock);
	while (ae_n < want && pthread_cond_timedwait(&ae_cond, &ae_lock, &ts) == 0)
		;
	v = ae_n;
	pthread_mutex_unlock(&ae_lock);
	return v;
}

/* ---- Tests ---- */

static void test_bad_input(void)
{
	ib_pnp_req_t req = { IB_PNP_CA, NULL, dummy_cb };
	ib_pnp_handle_t h = NULL;
	static const uint32_t bad_classes[] = { 0, IB_PNP_CA | IB_PNP_PORT, 0x10, 0x100,
						IB_PNP_CA | 0x10000000 };
	size_t i;

	open_al();
	CU_ASSERT_EQUAL(ib_reg_pnp(NULL, &req, &h), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_pnp(h_al, NULL, &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_pnp(h_al, &req, NULL), IB_INVALID_PARAMETER);
	req.pfn_pnp_cb = NULL;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_al, &req, &h), IB_INVALID_PARAMETER);
	req.pfn_pnp_cb = dummy_cb;
	for (i = 0; i < sizeof(bad_classes) / sizeof(bad_classes[0]); i++) {
		req.pnp_class = bad_classes[i];
		CU_ASSERT_EQUAL(ib_reg_pnp(h_al, &req, &h), IB_INVALID_PARAMETER);
	}
	/* A handle of another kind, NULL, and a destroyed registration. */
	CU_ASSERT_EQUAL(ib_dereg_pnp(NULL, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_dereg_pnp((ib_pnp_handle_t)h_al, NULL), IB_INVALID_HANDLE);
	req.pnp_class = IB_PNP_CA | IB_PNP_FLAG_REG_SYNC;
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, NULL), IB_INVALID_HANDLE);
	close_al();
	/* The instance is gone: its handle is refused. */
	req.pnp_class = IB_PNP_CA;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_al, &req, &h), IB_INVALID_AL_HANDLE);
}

static void test_ca_initial_sync(void)
{
	log_t lg;
	ib_pnp_req_t req = { IB_PNP_CA | IB_PNP_FLAG_REG_SYNC | IB_PNP_FLAG_REG_COMPLETE, &lg,
			     record_cb };
	ib_pnp_handle_t h;
	int i;

	log_init(&lg);
	open_al();
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	/* Synchronous: everything is there on return, without waiting. */
	pthread_mutex_lock(&lg.lock);
	CU_ASSERT_EQUAL(lg.n, 3);
	pthread_mutex_unlock(&lg.lock);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(lg.ev[i].event, IB_PNP_CA_ADD);
		CU_ASSERT_EQUAL(lg.ev[i].guid, ca_guid[i]);
		CU_ASSERT_EQUAL(lg.ev[i].ca_guid, ca_guid[i]);
		CU_ASSERT(lg.ev[i].has_ca_attr);
		CU_ASSERT_EQUAL(lg.ev[i].attr_ca_guid, ca_guid[i]);
		CU_ASSERT_PTR_EQUAL(lg.ev[i].pnp_context, &lg);
		CU_ASSERT_PTR_EQUAL(lg.ev[i].h_pnp, h);
		CU_ASSERT_PTR_NULL(lg.ev[i].context);
	}
	CU_ASSERT_EQUAL(lg.ev[2].event, IB_PNP_REG_COMPLETE);
	CU_ASSERT_FALSE(lg.overlap);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	close_al();
	log_fini(&lg);
}

static void test_port_initial_async(void)
{
	log_t lg;
	ib_pnp_req_t req = { IB_PNP_PORT | IB_PNP_FLAG_REG_COMPLETE, &lg, record_cb };
	ib_pnp_handle_t h;
	int i, c, p;

	log_init(&lg);
	lg.set_context = 1;
	open_al();
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	/* 2 CAs x 2 ports x (ADD, ACTIVE) + REG_COMPLETE. */
	CU_ASSERT_EQUAL_FATAL(log_wait(&lg, 9), 9);
	for (c = 0, i = 0; c < 2; c++) {
		for (p = 0; p < 2; p++, i += 2) {
			seen_t *a = &lg.ev[i], *b = &lg.ev[i + 1];

			CU_ASSERT_EQUAL(a->event, IB_PNP_PORT_ADD);
			CU_ASSERT_EQUAL(b->event, IB_PNP_PORT_ACTIVE);
			CU_ASSERT_EQUAL(a->ca_guid, ca_guid[c]);
			CU_ASSERT_EQUAL(a->guid, b->guid);
			CU_ASSERT_EQUAL(a->attr_port_guid, a->guid);
			CU_ASSERT_EQUAL(b->link_state, IB_LINK_ACTIVE);
			CU_ASSERT(b->lid != 0);
			/* The context set by the ADD callback comes back. */
			CU_ASSERT_PTR_NULL(a->context);
			CU_ASSERT_PTR_EQUAL(b->context, (void *)(uintptr_t)a->guid);
		}
	}
	CU_ASSERT_EQUAL(lg.ev[8].event, IB_PNP_REG_COMPLETE);
	CU_ASSERT_FALSE(lg.overlap);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	close_al();
	log_fini(&lg);
}

static void test_port_down_up_lid(void)
{
	log_t lg;
	ib_pnp_req_t req = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, &lg, record_cb };
	ib_pnp_handle_t h;
	ib_ca_handle_t h_ca;
	ib_net64_t pg;
	ibal_soft_port_ctl_t lc;
	uint16_t new_lid = (uint16_t)(0x3000 + (getpid() & 0xFFF));
	int base, i;

	log_init(&lg);
	lg.set_context = 1;
	open_al();
	ae_n = 0;
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid[1], ca_event_cb, NULL, &h_ca), IB_SUCCESS);
	pg = port_guid(h_ca, 2);
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	base = log_wait(&lg, 8);
	CU_ASSERT_EQUAL_FATAL(base, 8);

	/* Down: one PORT_DOWN for that port only, with the new state; the CA
	 * event callback hears IB_AE_PORT_DOWN for port 2. */
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 2, IB_LINK_DOWN), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(log_wait(&lg, base + 1), base + 1);
	CU_ASSERT_EQUAL(lg.ev[base].event, IB_PNP_PORT_DOWN);
	CU_ASSERT_EQUAL(lg.ev[base].guid, pg);
	CU_ASSERT_EQUAL(lg.ev[base].link_state, IB_LINK_DOWN);
	CU_ASSERT_PTR_EQUAL(lg.ev[base].context, (void *)(uintptr_t)pg);
	CU_ASSERT(ae_wait(1) >= 1);
	CU_ASSERT_EQUAL(ae_code[0], IB_AE_PORT_DOWN);
	CU_ASSERT_EQUAL(ae_vendor[0], 2);

	/* INIT and ARMED are reported as such; then ACTIVE again. */
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 2, IB_LINK_INIT), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 2, IB_LINK_ARMED), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 2, IB_LINK_ACTIVE), IB_SUCCESS);
	/* Rescans may merge changes: whatever INIT/ARMED events came, they
	 * came before the ACTIVE that ends the series. */
	i = log_wait_for(&lg, base, IB_PNP_PORT_ACTIVE, pg);
	CU_ASSERT(i > base);
	CU_ASSERT(log_find(&lg, base + 1, IB_PNP_PORT_INIT, pg) < 0 ||
		  log_find(&lg, base + 1, IB_PNP_PORT_INIT, pg) < i);
	CU_ASSERT(log_find(&lg, base + 1, IB_PNP_PORT_ARMED, pg) < 0 ||
		  log_find(&lg, base + 1, IB_PNP_PORT_ARMED, pg) < i);
	CU_ASSERT(ae_wait(2) >= 2);
	CU_ASSERT_EQUAL(ae_code[1], IB_AE_PORT_ACTIVE);

	/* A new LID: LID_CHANGE carrying it; ib_query_ca agrees. */
	base = log_wait(&lg, 0);
	lc.port_num = 2;
	lc.link_state = 0;
	lc.lid = cl_hton16(new_lid);
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, &lc, sizeof(lc)), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(log_wait(&lg, base + 1), base + 1);
	CU_ASSERT_EQUAL(lg.ev[base].event, IB_PNP_LID_CHANGE);
	CU_ASSERT_EQUAL(lg.ev[base].lid, cl_hton16(new_lid));
	{
		uint32_t size = 0;
		ib_ca_attr_t *a;

		ib_query_ca(h_ca, NULL, &size);
		a = (ib_ca_attr_t *)malloc(size);
		CU_ASSERT_EQUAL(ib_query_ca(h_ca, a, &size), IB_SUCCESS);
		CU_ASSERT_EQUAL(a->p_port_attr[1].lid, cl_hton16(new_lid));
		free(a);
	}
	CU_ASSERT(ae_wait(3) >= 3);
	CU_ASSERT_EQUAL(ae_code[2], IB_AE_LID_CHANGE);

	/* Bad commands. */
	lc.port_num = 3;
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, &lc, sizeof(lc)), IB_INVALID_PORT);
	lc.port_num = 2;
	lc.lid = 0;
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, &lc, sizeof(lc)), IB_INVALID_PARAMETER);
	lc.lid = cl_hton16(0xC001);
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, &lc, sizeof(lc)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, &lc, 1), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, NULL, sizeof(lc)), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 1, 0), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 1, 5), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(soft_ctl(h_ca, 0x12345678, &lc, sizeof(lc)), IB_INVALID_SETTING);
	/* The LID of a live port is refused. */
	{
		uint32_t size = 0;
		ib_ca_attr_t *a;

		ib_query_ca(h_ca, NULL, &size);
		a = (ib_ca_attr_t *)malloc(size);
		CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, a, &size), IB_SUCCESS);
		lc.lid = a->p_port_attr[0].lid;
		free(a);
		CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_PORT_LID, &lc, sizeof(lc)),
				IB_RESOURCE_BUSY);
	}

	CU_ASSERT_FALSE(lg.overlap);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	close_al();
	log_fini(&lg);
}

static void test_unplug_replug(void)
{
	log_t lca, lport;
	ib_pnp_req_t rca = { IB_PNP_CA | IB_PNP_FLAG_REG_SYNC, &lca, record_cb };
	ib_pnp_req_t rport = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, &lport, record_cb };
	ib_pnp_handle_t hc, hp;
	ib_ca_handle_t h_ca, h2;
	ib_net64_t g[2];
	size_t n = 2;
	int bc, bp;

	log_init(&lca);
	log_init(&lport);
	lca.set_context = lport.set_context = 1;
	open_al();
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid[0], NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &rca, &hc), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &rport, &hp), IB_SUCCESS);
	bc = log_wait(&lca, 2);
	bp = log_wait(&lport, 8);
	CU_ASSERT_EQUAL_FATAL(bc, 2);
	CU_ASSERT_EQUAL_FATAL(bp, 8);

	CU_ASSERT_EQUAL(soft_set_present(h_ca, FALSE), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(log_wait(&lca, bc + 1), bc + 1);
	CU_ASSERT_EQUAL(lca.ev[bc].event, IB_PNP_CA_REMOVE);
	CU_ASSERT_EQUAL(lca.ev[bc].guid, ca_guid[0]);
	CU_ASSERT_FALSE(lca.ev[bc].has_ca_attr);
	CU_ASSERT_PTR_EQUAL(lca.ev[bc].context, (void *)(uintptr_t)ca_guid[0]);
	/* Both ports removed (perhaps after going down). */
	{
		int r1 = log_wait_for(&lport, bp, IB_PNP_PORT_REMOVE, 0);

		CU_ASSERT_FATAL(r1 >= 0);
		CU_ASSERT(log_wait_for(&lport, r1 + 1, IB_PNP_PORT_REMOVE, 0) > r1);
		CU_ASSERT_EQUAL(lport.ev[r1].ca_guid, ca_guid[0]);
		CU_ASSERT_FALSE(lport.ev[r1].has_port_attr);
	}
	/* No longer enumerated nor openable; the open handle still works. */
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, g, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(g[0], ca_guid[1]);
	CU_ASSERT_EQUAL(ib_open_ca(h_al, ca_guid[0], NULL, NULL, &h2), IB_INVALID_GUID);

	/* Back: CA_ADD with a fresh (NULL) context, ports added and active. */
	bc = log_wait(&lca, 0);
	bp = log_wait(&lport, 0);
	CU_ASSERT_EQUAL(soft_set_present(h_ca, TRUE), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(log_wait(&lca, bc + 1), bc + 1);
	CU_ASSERT_EQUAL(lca.ev[bc].event, IB_PNP_CA_ADD);
	CU_ASSERT_PTR_NULL(lca.ev[bc].context);
	CU_ASSERT(lca.ev[bc].has_ca_attr);
	CU_ASSERT(log_wait_for(&lport, bp, IB_PNP_PORT_ADD, 0) >= 0);
	CU_ASSERT(log_wait_for(&lport, bp, IB_PNP_PORT_ACTIVE, 0) >= 0);
	CU_ASSERT_EQUAL(log_wait(&lport, bp + 4), bp + 4);
	n = 2;
	CU_ASSERT_EQUAL(ib_get_ca_guids(h_al, g, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL(n, 2);

	CU_ASSERT_FALSE(lca.overlap);
	CU_ASSERT_FALSE(lport.overlap);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	/* Registrations left open: ib_close_al releases them. */
	close_al();
	log_fini(&lca);
	log_fini(&lport);
}

static void test_decline(void)
{
	log_t lg;
	ib_pnp_req_t req = { IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC, &lg, record_cb };
	ib_pnp_handle_t h;
	ib_ca_handle_t h_ca;
	ib_net64_t p1, p2;
	int base;

	log_init(&lg);
	open_al();
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_al, ca_guid[0], NULL, NULL, &h_ca), IB_SUCCESS);
	p1 = port_guid(h_ca, 1);
	p2 = port_guid(h_ca, 2);
	lg.decline_guid = p1;
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	/* Port 1 declined at ADD: no ACTIVE for it; 3 other ports with both. */
	CU_ASSERT_EQUAL(log_wait(&lg, 7), 7);
	CU_ASSERT(log_find(&lg, 0, IB_PNP_PORT_ADD, p1) >= 0);
	CU_ASSERT(log_find(&lg, 0, IB_PNP_PORT_ACTIVE, p1) < 0);
	base = lg.n;
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 1, IB_LINK_DOWN), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 2, IB_LINK_DOWN), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(log_wait(&lg, base + 1), base + 1);
	/* The only event is port 2's: port 1's would have come first. */
	CU_ASSERT_EQUAL(lg.ev[base].event, IB_PNP_PORT_DOWN);
	CU_ASSERT_EQUAL(lg.ev[base].guid, p2);
	CU_ASSERT(log_find(&lg, 0, IB_PNP_PORT_DOWN, p1) < 0);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT(log_find(&lg, 0, IB_PNP_PORT_DOWN, p1) < 0);
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	close_al();
	log_fini(&lg);
}

static pthread_mutex_t d_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t d_cond = PTHREAD_COND_INITIALIZER;
static int n_destroyed;

static void AL_API on_destroy(void *context)
{
	(void)context;
	pthread_mutex_lock(&d_lock);
	n_destroyed++;
	pthread_cond_broadcast(&d_cond);
	pthread_mutex_unlock(&d_lock);
}

static int destroyed_wait(int want)
{
	struct timespec ts;
	int v;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&d_lock);
	while (n_destroyed < want && pthread_cond_timedwait(&d_cond, &d_lock, &ts) == 0)
		;
	v = n_destroyed;
	pthread_mutex_unlock(&d_lock);
	return v;
}

static void test_dereg(void)
{
	log_t l1, lg;
	ib_pnp_req_t req = { IB_PNP_PORT, &l1, record_cb };
	ib_pnp_handle_t h;
	ib_ca_handle_t h_ca;
	int n;

	log_init(&l1);
	log_init(&lg);
	open_al();
	l1.h_al = h_al;
	/* Deregistration from inside the second callback: the synchronous form
	 * and a synchronous registration are refused there; the asynchronous
	 * one works, and no event follows. */
	l1.dereg_on = 1;
	n_destroyed = 0;
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL(log_wait(&l1, 2), 2);
	CU_ASSERT_EQUAL(l1.nested_sync_st, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(l1.nested_reg_st, IB_INVALID_STATE);
	CU_ASSERT_EQUAL(l1.dereg_st, IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_open_ca(h_al, ca_guid[0], NULL, NULL, &h_ca), IB_SUCCESS);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 1, IB_LINK_DOWN), IB_SUCCESS);

	/* A second registration, with a destroy callback. */
	req.pnp_context = &lg;
	req.pnp_class = IB_PNP_PORT | IB_PNP_FLAG_REG_SYNC;
	CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	n = lg.n;
	CU_ASSERT_EQUAL(n, 7); /* 4 ADD + 3 ACTIVE: port 1 of CA 0 is down */
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, on_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(destroyed_wait(1), 1);
	CU_ASSERT_EQUAL(soft_set_port(h_ca, 1, IB_LINK_ACTIVE), IB_SUCCESS);
	/* A third registration sees port 1 active again: the change was
	 * processed, and the second registration got nothing of it. */
	{
		log_t l3;
		ib_pnp_req_t r3 = { IB_PNP_PORT, &l3, record_cb };
		ib_pnp_handle_t h3;
		ib_net64_t p1 = port_guid(h_ca, 1);

		log_init(&l3);
		CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &r3, &h3), IB_SUCCESS);
		CU_ASSERT_EQUAL(log_wait(&l3, 8), 8);
		CU_ASSERT(log_find(&l3, 0, IB_PNP_PORT_ACTIVE, p1) >= 0);
		CU_ASSERT_EQUAL(ib_dereg_pnp(h3, ib_sync_destroy), IB_SUCCESS);
		log_fini(&l3);
	}
	CU_ASSERT_EQUAL(lg.n, n);
	CU_ASSERT_EQUAL(l1.n, 2); /* nothing after its deregistration */
	CU_ASSERT_EQUAL(ib_close_ca(h_ca, ib_sync_destroy), IB_SUCCESS);
	close_al();
	log_fini(&l1);
	log_fini(&lg);
}

static void test_many_regs_close_al(void)
{
	log_t lg[4];
	ib_pnp_handle_t h[4];
	ib_pnp_req_t req;
	int i;

	open_al();
	for (i = 0; i < 4; i++) {
		log_init(&lg[i]);
		req.pnp_class = (i & 1) ? IB_PNP_PORT : IB_PNP_CA;
		req.pnp_context = &lg[i];
		req.pfn_pnp_cb = record_cb;
		CU_ASSERT_EQUAL_FATAL(ib_reg_pnp(h_al, &req, &h[i]), IB_SUCCESS);
	}
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(log_wait(&lg[i], (i & 1) ? 8 : 2), (i & 1) ? 8 : 2);
	/* Closing the instance ends every registration and waits for them. */
	close_al();
	for (i = 0; i < 4; i++) {
		CU_ASSERT_FALSE(lg[i].overlap);
		CU_ASSERT_EQUAL(ib_dereg_pnp(h[i], NULL), IB_INVALID_HANDLE);
		log_fini(&lg[i]);
	}
}

/*
 * The I/O classes are accepted (tests/al/test_al_ioc_pnp.c has the rest).
 * Last of the suite: a registration starts the IOC discovery's sweep, after
 * which a later test_dereg saw, about one run in ten, a port not yet ACTIVE
 * in its IB_PNP_FLAG_REG_SYNC snapshot (an interaction not yet understood;
 * see the issue 9 note).
 */
static void test_io_classes(void)
{
	ib_pnp_req_t req = { IB_PNP_IOU, NULL, dummy_cb };
	ib_pnp_handle_t h = NULL;

	open_al();
	CU_ASSERT_EQUAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	req.pnp_class = IB_PNP_IOC;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_al, &req, &h), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	close_al();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_bad_input),
	TEST_ENTRY(test_ca_initial_sync),
	TEST_ENTRY(test_port_initial_async),
	TEST_ENTRY(test_port_down_up_lid),
	TEST_ENTRY(test_unplug_replug),
	TEST_ENTRY(test_decline),
	TEST_ENTRY(test_dereg),
	TEST_ENTRY(test_many_regs_close_al),
	TEST_ENTRY(test_io_classes),
};

TEST_MAIN("al_pnp", tests)
