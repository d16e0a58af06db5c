/*
 * ibal tests: IOC discovery through PnP (IB_PNP_IOU, IB_PNP_IOC), ib_reject_ioc() and ib_get_guid().
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Two soft CAs in one process on a fabric directory of their own; a
 * "target" AL instance creates and registers an IOC on the second CA (its
 * DM agent answers and its port claims device management), an
 * "initiator" AL instance registers for the IOU and IOC classes and the
 * discovery (IBAL_IOC_SWEEP_MS=50) reports what it finds. Waits are
 * bounded (TEST_WAIT_US), never sleeps.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <iba/ib_al.h>
#include <iba/ibal_soft.h>
#include <complib/cl_memory.h>
#include "../common/cl_test.h"
#include "../common/fab_dir.h"
#include "../common/soft_ctl.h"
#include "al_sa_client.h"
#include "al_verbs.h"

#define IOC_GUID CL_HTON64(0x0002C90300AB0001ULL)
#define SVC_ID(n) CL_HTON64(0x10000000000000A0ULL + (n))

static char fab_dir[64];
static ib_al_handle_t h_tgt, h_ini;
static ib_ca_handle_t h_tca;
static ib_net64_t ca_guid[2];
static ib_net16_t tgt_lid;

/* ---- Recorded events ---- */

#define MAX_EV 256
typedef struct ev {
	ib_pnp_event_t event;
	ib_net64_t guid;
	ib_net64_t ca_guid;
	ib_pnp_handle_t h_pnp;
	ib_pnp_handle_t h_ioc_event;
	const void *ctx;
	ib_ioc_info_t info;          /* IOC_ADD */
	ib_svc_entry_t svc[4];       /* IOC_ADD: the first entries */
	ib_path_rec_t path;          /* PATH_ADD */
	ib_net64_t iou_guid;         /* IOU_ADD */
	char desc[IB_NODE_DESCRIPTION_SIZE + 1];
} ev_t;

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int n;
	ev_t ev[MAX_EV];
	int reject;                  /* ib_reject_ioc() on IOC_ADD */
	int dereg;                   /* ib_dereg_pnp() on the first event */
	int decline;                 /* return an error on IOC_ADD */
	int destroyed;               /* destroy callbacks */
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
	R.n = 0;
	R.reject = R.dereg = R.decline = R.destroyed = 0;
	pthread_mutex_unlock(&R.lock);
}

static void AL_API on_destroyed(void *context)
{
	(void)context;
	pthread_mutex_lock(&R.lock);
	R.destroyed++;
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
}

static ib_api_status_t AL_API on_pnp(ib_pnp_rec_t *p)
{
	ib_api_status_t ret = IB_SUCCESS;
	ev_t e;

	memset(&e, 0, sizeof(e));
	e.event = p->pnp_event;
	e.guid = p->guid;
	e.ca_guid = p->ca_guid;
	e.h_pnp = p->h_pnp;
	e.h_ioc_event = p->h_ioc_event;
	e.ctx = p->pnp_context;
	if (p->pnp_event == IB_PNP_IOC_ADD) {
		const ib_pnp_ioc_rec_t *r = (const ib_pnp_ioc_rec_t *)p;
		unsigned n = r->info.profile.num_svc_entries;

		e.info = r->info;
		memcpy(e.svc, r->svc_entry_array, (n < 4 ? n : 4) * sizeof(ib_svc_entry_t));
		p->context = (void *)(uintptr_t)0x1234;
	} else if (p->pnp_event == IB_PNP_IOC_PATH_ADD) {
		e.path = ((const ib_pnp_ioc_path_rec_t *)p)->path;
	} else if (p->pnp_event == IB_PNP_IOU_ADD) {
		const ib_pnp_iou_rec_t *r = (const ib_pnp_iou_rec_t *)p;

		e.iou_guid = r->guid;
		memcpy(e.desc, r->desc, sizeof(e.desc));
	}
	if (p->pnp_event & IB_PNP_IOC) /* the context set on IOC_ADD comes back */
		e.ctx = p->pnp_event == IB_PNP_IOC_ADD ? p->pnp_context : p->context;
	pthread_mutex_lock(&R.lock);
	if (R.n < MAX_EV)
		R.ev[R.n++] = e;
	if (p->pnp_event == IB_PNP_IOC_ADD && R.reject)
		CU_ASSERT_EQUAL(ib_reject_ioc(h_ini, p->h_ioc_event), IB_SUCCESS);
	if (p->pnp_event == IB_PNP_IOC_ADD && R.decline)
		ret = IB_ERROR;
	if (R.dereg == 1) {
		R.dereg = 2;
		CU_ASSERT_EQUAL(ib_dereg_pnp(p->h_pnp, on_destroyed), IB_SUCCESS);
	}
	pthread_cond_broadcast(&R.cond);
	pthread_mutex_unlock(&R.lock);
	return ret;
}

/* Number of recorded events @p event (of registration @p h when not NULL). */
static int count_locked(ib_pnp_event_t event, ib_pnp_handle_t h)
{
	int i, k = 0;

	for (i = 0; i < R.n; i++)
		if (R.ev[i].event == event && (!h || R.ev[i].h_pnp == h))
			k++;
	return k;
}

static int count(ib_pnp_event_t event, ib_pnp_handle_t h)
{
	int k;

	pthread_mutex_lock(&R.lock);
	k = count_locked(event, h);
	pthread_mutex_unlock(&R.lock);
	return k;
}

/* Waits until @p n events @p event (of @p h) were recorded; the count. */
static int wait_count(ib_pnp_event_t event, ib_pnp_handle_t h, int n)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	struct timespec ts;
	int k;

	pthread_mutex_lock(&R.lock);
	while ((k = count_locked(event, h)) < n && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&R.cond, &R.lock, &ts);
	}
	pthread_mutex_unlock(&R.lock);
	return k;
}

static int wait_destroyed(int n)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	struct timespec ts;
	int k;

	pthread_mutex_lock(&R.lock);
	while (R.destroyed < n && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&R.cond, &R.lock, &ts);
	}
	k = R.destroyed;
	pthread_mutex_unlock(&R.lock);
	return k;
}

/* The last recorded event @p event of @p h. */
static ev_t last(ib_pnp_event_t event, ib_pnp_handle_t h)
{
	ev_t e;
	int i;

	memset(&e, 0, sizeof(e));
	pthread_mutex_lock(&R.lock);
	for (i = R.n - 1; i >= 0; i--)
		if (R.ev[i].event == event && (!h || R.ev[i].h_pnp == h)) {
			e = R.ev[i];
			break;
		}
	pthread_mutex_unlock(&R.lock);
	return e;
}

/* ---- Fabric ---- */

static void up(void)
{
	ib_ca_attr_t *p_attr;
	uint32_t size = 0;
	size_t n = 2;

	test_fixture_up = 1;
	r_reset();
	strcpy(fab_dir, "/tmp/ibal-iocpnp-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(fab_dir));
	setenv("IBAL_SOFT_FABRIC", fab_dir, 1);
	setenv("IBAL_SOFT_CAS", "2", 1);
	setenv("IBAL_PROVIDERS", "soft", 1);
	setenv("IBAL_IOC_SWEEP_MS", "50", 1);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_tgt), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_open_al(&h_ini), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_get_ca_guids(h_tgt, ca_guid, &n), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(n, 2);
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_tgt, ca_guid[1], NULL, NULL, &h_tca), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_tca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_tca, p_attr, &size), IB_SUCCESS);
	tgt_lid = p_attr->p_port_attr[0].lid;
	free(p_attr);
}

static void down(void)
{
	if (h_ini)
		CU_ASSERT_EQUAL(ib_close_al(h_ini), IB_SUCCESS);
	if (h_tgt)
		CU_ASSERT_EQUAL(ib_close_al(h_tgt), IB_SUCCESS);
	h_ini = h_tgt = NULL;
	al_ioc_pnp_quiesce();
	al_sa_quiesce();
	CU_ASSERT_EQUAL(cl_mem_track_count(), 0);
	test_rm_tree(fab_dir);
	unsetenv("IBAL_SOFT_FABRIC");
	unsetenv("IBAL_IOC_SWEEP_MS");
	test_fixture_up = 0;
}

/* The target's IOC, registered, with @p n_svc service entries. */
static ib_ioc_handle_t make_ioc(int n_svc, ib_svc_handle_t *h_svc)
{
	ib_ioc_profile_t prof;
	ib_svc_entry_t se;
	ib_ioc_handle_t h;
	int i;

	memset(&prof, 0, sizeof(prof));
	prof.ioc_guid = IOC_GUID;
	ib_ioc_profile_set_vend_id(&prof, 0x0002C9);
	prof.dev_id = CL_HTON32(0x1234);
	prof.io_class = CL_HTON16(0xFFFF);
	prof.send_msg_depth = CL_HTON16(16);
	prof.send_msg_size = CL_HTON32(4096);
	strcpy(prof.id_string, "ibal test IOC");
	CU_ASSERT_EQUAL_FATAL(ib_create_ioc(h_tca, &prof, &h), IB_SUCCESS);
	for (i = 0; i < n_svc; i++) {
		memset(&se, 0, sizeof(se));
		snprintf(se.name, sizeof(se.name), "svc-%d", i);
		se.id = SVC_ID(i);
		CU_ASSERT_EQUAL_FATAL(ib_add_svc_entry(h, &se, &h_svc[i]), IB_SUCCESS);
	}
	CU_ASSERT_EQUAL_FATAL(ib_reg_ioc(h), IB_SUCCESS);
	return h;
}

static ib_pnp_handle_t reg(ib_pnp_class_t cls, const void *ctx)
{
	ib_pnp_req_t req;
	ib_pnp_handle_t h = NULL;

	memset(&req, 0, sizeof(req));
	req.pnp_class = cls;
	req.pnp_context = ctx;
	req.pfn_pnp_cb = on_pnp;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_ini, &req, &h), IB_SUCCESS);
	return h;
}

/* The LID of port 1 of a CA. */
static ib_net16_t port_lid(ib_ca_handle_t h_ca)
{
	ib_ca_attr_t *p_attr;
	uint32_t size = 0;
	ib_net16_t lid;

	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, NULL, &size), IB_INSUFFICIENT_MEMORY);
	p_attr = (ib_ca_attr_t *)malloc(size);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p_attr);
	CU_ASSERT_EQUAL_FATAL(ib_query_ca(h_ca, p_attr, &size), IB_SUCCESS);
	lid = p_attr->p_port_attr[0].lid;
	free(p_attr);
	return lid;
}

/* ---- Losing one PathRecord query (the soft provider's drop filter) ---- */

/* The SA PathRecord queries one local port (its LID) sends: every try of
 * the first one seen is dropped, so that query fails (times out); the next
 * one goes through and ends the loss. Its TransactionID tells a query's
 * retries (the same MAD sent again) from the next query. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	ib_net16_t slid;
	ib_net64_t tid;              /* the query being lost; 0 before it */
	int dropped;                 /* its tries dropped */
	int next;                    /* the next query was let through */
} L = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0 };

static boolean_t lose_path_query(void *context, const void *pkt, size_t len)
{
	const uint8_t *p = (const uint8_t *)pkt;
	size_t mad = 8 + 12 + 8;     /* LRH, BTH, DETH */
	ib_net16_t slid, attr_id;
	ib_net64_t tid;
	boolean_t drop = FALSE;

	(void)context;
	if (len >= 8 && (p[1] & 3) == 3)
		mad += 40;           /* a GRH */
	if (len < mad + 24 || p[mad + 1] != IB_MCLASS_SUBN_ADM || p[mad + 3] != IB_MAD_METHOD_GETTABLE)
		return FALSE;
	memcpy(&attr_id, p + mad + 16, sizeof(attr_id));
	memcpy(&slid, p + 6, sizeof(slid));
	memcpy(&tid, p + mad + 8, sizeof(tid));
	if (attr_id != IB_MAD_ATTR_PATH_RECORD)
		return FALSE;
	pthread_mutex_lock(&L.lock);
	if (slid == L.slid && !L.next) {
		if (!L.tid)
			L.tid = tid;
		drop = tid == L.tid;
		L.dropped += drop;
		L.next = !drop;
		pthread_cond_broadcast(&L.cond);
	}
	pthread_mutex_unlock(&L.lock);
	return drop;
}

/* Installs the filter (or removes it, @p on FALSE) through @p h_ca. */
static void lose_set(ib_ca_handle_t h_ca, boolean_t on, ib_net16_t slid)
{
	ibal_soft_drop_ctl_t c = { on ? lose_path_query : NULL, NULL };

	pthread_mutex_lock(&L.lock);
	L.slid = slid;
	L.tid = 0;
	L.dropped = L.next = 0;
	pthread_mutex_unlock(&L.lock);
	CU_ASSERT_EQUAL(soft_ctl(h_ca, IBAL_SOFT_CI_DROP_FILTER, &c, sizeof(c)), IB_SUCCESS);
}

/* Waits until the query after the lost one went through; the number of
 * tries dropped, 0 if that did not happen in time. */
static int lose_wait(void)
{
	uint64_t end = test_now_ms() + TEST_WAIT_US / 1000;
	struct timespec ts;
	int k;

	pthread_mutex_lock(&L.lock);
	while (!L.next && test_now_ms() < end) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&L.cond, &L.lock, &ts);
	}
	k = L.next ? L.dropped : 0;
	pthread_mutex_unlock(&L.lock);
	return k;
}

/* ---- Tests ---- */

/* Registration statuses of the IOU and IOC classes and bad inputs. */
static void test_ioc_pnp_statuses(void)
{
	ib_pnp_req_t req;
	ib_pnp_handle_t h = NULL, h2 = NULL;
	ib_net64_t g;

	up();
	memset(&req, 0, sizeof(req));
	req.pfn_pnp_cb = on_pnp;
	req.pnp_class = IB_PNP_IOC;
	CU_ASSERT_EQUAL(ib_reg_pnp(NULL, &req, &h), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_reg_pnp(h_ini, NULL, &h), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_reg_pnp(h_ini, &req, NULL), IB_INVALID_PARAMETER);
	req.pfn_pnp_cb = NULL;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_ini, &req, &h), IB_INVALID_PARAMETER);
	req.pfn_pnp_cb = on_pnp;
	req.pnp_class = IB_PNP_IOU | IB_PNP_IOC;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_ini, &req, &h), IB_INVALID_PARAMETER);
	req.pnp_class = IB_PNP_IOC | 0x100;
	CU_ASSERT_EQUAL(ib_reg_pnp(h_ini, &req, &h), IB_INVALID_PARAMETER);
	/* Nothing exported: the first sweep reports nothing, then completes. */
	h = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC | IB_PNP_FLAG_REG_COMPLETE, &R);
	CU_ASSERT_PTR_NOT_NULL(h);
	CU_ASSERT_EQUAL(count(IB_PNP_REG_COMPLETE, h), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, NULL), 0);
	h2 = reg(IB_PNP_IOU | IB_PNP_FLAG_REG_COMPLETE, NULL);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_REG_COMPLETE, h2, 1), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOU_ADD, NULL), 0);
	/* ib_reject_ioc() */
	CU_ASSERT_EQUAL(ib_reject_ioc(NULL, (ib_pnp_handle_t)(uintptr_t)1), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_reject_ioc(h_ini, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_reject_ioc(h_ini, (ib_pnp_handle_t)(uintptr_t)0x7777), IB_INVALID_HANDLE);
	/* ib_get_guid() */
	CU_ASSERT_EQUAL(ib_get_guid(NULL, 0, IB_PNP_CA, 0, &g), IB_INVALID_AL_HANDLE);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 0, IB_PNP_IOU, 0, &g), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 0, 0x77, 0, &g), IB_INVALID_SETTING);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 0, IB_PNP_CA, 0, NULL), IB_INVALID_PARAMETER);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 1, IB_PNP_CA, 0, &g), IB_SUCCESS);
	CU_ASSERT_EQUAL(g, ca_guid[1]);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 2, IB_PNP_CA, 0, &g), IB_INVALID_INDEX);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, IB_ANY_INDEX, IB_PNP_CA, 0, &g), IB_SUCCESS);
	CU_ASSERT_EQUAL(g, ca_guid[0]);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 0, IB_PNP_PORT, IB_DEV_PORT_ACTIVE, &g), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, IB_ANY_INDEX, IB_PNP_PORT, IB_DEV_PORT_ACTIVE, &g),
			IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 2, IB_PNP_PORT, 0, &g), IB_INVALID_INDEX);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 0, IB_PNP_IOC, 0, &g), IB_INVALID_INDEX);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, IB_ANY_INDEX, IB_PNP_IOC, 0, &g), IB_NO_MATCH);
	CU_ASSERT_EQUAL(ib_dereg_pnp(NULL, NULL), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, ib_sync_destroy), IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h2, ib_sync_destroy), IB_SUCCESS);
	down();
}

/* Target IOC with two entries -> IOU and IOC add with profile, services,
 * a path; a third entry -> the IOC is reported again; destroy -> removal. */
static void test_ioc_pnp_end_to_end(void)
{
	ib_svc_handle_t h_svc[3];
	ib_svc_entry_t se;
	ib_pnp_handle_t h_iou, h_ioc;
	ib_ioc_handle_t h;
	ib_net64_t g;
	ev_t e;
	int i, n_path, found;

	up();
	h_iou = reg(IB_PNP_IOU | IB_PNP_FLAG_REG_SYNC, NULL);
	h_ioc = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC, &h_ioc);
	h = make_ioc(2, h_svc);
	CU_ASSERT_EQUAL_FATAL(wait_count(IB_PNP_IOC_ADD, h_ioc, 1), 1);
	CU_ASSERT_EQUAL_FATAL(wait_count(IB_PNP_IOU_ADD, h_iou, 1), 1);
	e = last(IB_PNP_IOU_ADD, h_iou);
	CU_ASSERT_EQUAL(e.guid, ca_guid[1]);
	CU_ASSERT_EQUAL(e.iou_guid, ca_guid[1]);
	e = last(IB_PNP_IOC_ADD, h_ioc);
	CU_ASSERT_EQUAL(e.guid, IOC_GUID);
	CU_ASSERT_PTR_NOT_NULL(e.h_ioc_event);
	CU_ASSERT_EQUAL(e.info.iou_guid, ca_guid[1]);
	CU_ASSERT(e.info.iou_slot >= 1);
	CU_ASSERT_EQUAL(e.info.profile.ioc_guid, IOC_GUID);
	CU_ASSERT_EQUAL(ib_ioc_profile_get_vend_id(&e.info.profile), 0x0002C9u);
	CU_ASSERT_EQUAL(e.info.profile.dev_id, CL_HTON32(0x1234));
	CU_ASSERT_STRING_EQUAL(e.info.profile.id_string, "ibal test IOC");
	CU_ASSERT_EQUAL(e.info.profile.num_svc_entries, 2);
	CU_ASSERT_STRING_EQUAL(e.svc[0].name, "svc-0");
	CU_ASSERT_EQUAL(e.svc[0].id, SVC_ID(0));
	CU_ASSERT_STRING_EQUAL(e.svc[1].name, "svc-1");
	CU_ASSERT_EQUAL(e.svc[1].id, SVC_ID(1));
	/* One path per local port (both reach the target's port). */
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_PATH_ADD, h_ioc, 2), 2);
	pthread_mutex_lock(&R.lock);
	for (i = 0, n_path = 0, found = 0; i < R.n; i++)
		if (R.ev[i].event == IB_PNP_IOC_PATH_ADD) {
			n_path++;
			found += R.ev[i].path.dlid == tgt_lid;
			CU_ASSERT_EQUAL(R.ev[i].guid, IOC_GUID);
			CU_ASSERT_EQUAL(R.ev[i].ctx, (void *)(uintptr_t)0x1234);
		}
	pthread_mutex_unlock(&R.lock);
	CU_ASSERT_EQUAL(n_path, 2);
	CU_ASSERT_EQUAL(found, 2);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 0, IB_PNP_IOC, 0, &g), IB_SUCCESS);
	CU_ASSERT_EQUAL(g, IOC_GUID);
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, 1, IB_PNP_IOC, 0, &g), IB_INVALID_INDEX);

	/* A change: the IOC is reported removed, then added with 3 entries. */
	memset(&se, 0, sizeof(se));
	strcpy(se.name, "svc-2");
	se.id = SVC_ID(2);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h, &se, &h_svc[2]), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_ADD, h_ioc, 2), 2);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_REMOVE, h_ioc), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_REMOVE, h_ioc), 2);
	e = last(IB_PNP_IOC_ADD, h_ioc);
	CU_ASSERT_EQUAL(e.info.profile.num_svc_entries, 3);
	CU_ASSERT_STRING_EQUAL(e.svc[2].name, "svc-2");
	CU_ASSERT_EQUAL(e.svc[2].id, SVC_ID(2));
	CU_ASSERT_EQUAL(count(IB_PNP_IOU_ADD, h_iou), 1);

	/* Destroyed: the IOC goes, and the unit (no IOC left, no capability). */
	CU_ASSERT_EQUAL(ib_destroy_ioc(h), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_REMOVE, h_ioc, 2), 2);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOU_REMOVE, h_iou, 1), 1);
	e = last(IB_PNP_IOC_REMOVE, h_ioc);
	CU_ASSERT_EQUAL(e.guid, IOC_GUID);
	CU_ASSERT_EQUAL(e.ctx, (void *)(uintptr_t)0x1234);
	down();
}

/* A registration made once the IOC is known gets it at once (REG_SYNC),
 * and one made before any discovery gets it from the first sweep. */
static void test_ioc_pnp_initial(void)
{
	ib_svc_handle_t h_svc[2];
	ib_pnp_handle_t h1, h2;
	ib_net64_t g;
	int n_ioc, n_path;

	up();
	(void)make_ioc(2, h_svc);
	h1 = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC | IB_PNP_FLAG_REG_COMPLETE, NULL);
	/* A sweep that reached the unit through one local port only (the SA
	 * of the other had not seen it yet) reports the IOC with one path and
	 * the other at the next sweep: the snapshot below must see both, so
	 * both must be known first. More than that is the IOC or a path
	 * reported again (test_ioc_pnp_second_ca). Without exactly them the
	 * rest says nothing: the test ends, cleaning up (the next one starts
	 * afresh). */
	n_ioc = wait_count(IB_PNP_IOC_ADD, h1, 1);
	n_path = n_ioc == 1 ? wait_count(IB_PNP_IOC_PATH_ADD, h1, 2) : 0;
	CU_ASSERT_EQUAL(n_ioc, 1);
	CU_ASSERT_EQUAL(n_path, 2);
	if (n_ioc != 1 || n_path != 2) {
		CU_ASSERT_EQUAL(ib_dereg_pnp(h1, ib_sync_destroy), IB_SUCCESS);
		down();
		return;
	}
	h2 = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC | IB_PNP_FLAG_REG_COMPLETE, NULL);
	/* Delivered before ib_reg_pnp() returned. */
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h2), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_ADD, h2), 2);
	CU_ASSERT_EQUAL(count(IB_PNP_REG_COMPLETE, h2), 1);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h1, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h2, ib_sync_destroy), IB_SUCCESS);
	al_ioc_pnp_quiesce();
	/* No registration runs the discovery: ib_get_guid() sweeps itself. */
	CU_ASSERT_EQUAL(ib_get_guid(h_ini, IB_ANY_INDEX, IB_PNP_IOC, 0, &g), IB_SUCCESS);
	CU_ASSERT_EQUAL(g, IOC_GUID);
	/* A first registration with REG_SYNC returns after the first sweep:
	 * the IOC with the paths that sweep found (one, if a path query was
	 * slow), the other from the next sweep. */
	r_reset();
	h1 = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC, NULL);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h1), 1);
	CU_ASSERT(count(IB_PNP_IOC_PATH_ADD, h1) >= 1);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_PATH_ADD, h1, 2), 2);
	down(); /* closing the instance ends the registration */
}

/* A unit reached first through one local CA (the other's port down), then
 * through both: the new path is added, the IOC stays with its CA. (The
 * unit's CA was the one of the first local port that reached it in each
 * sweep, so this reported the IOC removed and added again with the other
 * CA: the rare failure of test_ioc_pnp_initial, three PATH_ADDs.) */
static void test_ioc_pnp_second_ca(void)
{
	ib_svc_handle_t h_svc[2];
	ib_ca_handle_t h_ica;
	ib_pnp_handle_t h;
	ev_t e;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_ini, ca_guid[0], NULL, NULL, &h_ica), IB_SUCCESS);
	CU_ASSERT_EQUAL_FATAL(soft_set_port(h_ica, 1, IB_LINK_DOWN), IB_SUCCESS);
	(void)make_ioc(2, h_svc);
	h = reg(IB_PNP_IOC, NULL);
	CU_ASSERT_EQUAL_FATAL(wait_count(IB_PNP_IOC_PATH_ADD, h, 1), 1);
	CU_ASSERT_EQUAL(last(IB_PNP_IOC_ADD, h).ca_guid, ca_guid[1]);
	CU_ASSERT_EQUAL(last(IB_PNP_IOC_PATH_ADD, h).ca_guid, ca_guid[1]);
	/* The port of the first CA up: a sweep reaches the unit through it first. */
	CU_ASSERT_EQUAL(soft_set_port(h_ica, 1, IB_LINK_ACTIVE), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_PATH_ADD, h, 2), 2);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_REMOVE, h), 0);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_REMOVE, h), 0);
	e = last(IB_PNP_IOC_PATH_ADD, h);
	CU_ASSERT_EQUAL(e.ca_guid, ca_guid[0]);
	CU_ASSERT_EQUAL(e.path.dlid, tgt_lid);
	/* Down again: that path goes, the IOC stays. */
	CU_ASSERT_EQUAL(soft_set_port(h_ica, 1, IB_LINK_DOWN), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_PATH_REMOVE, h, 1), 1);
	CU_ASSERT_EQUAL(last(IB_PNP_IOC_PATH_REMOVE, h).ca_guid, ca_guid[0]);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_REMOVE, h), 0);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h), 1);
	down();
}

/* A sweep whose PathRecord query through the port of the unit's CA fails
 * (lost: it times out) learns nothing about that path: the path of the
 * last sweep stays, and the unit keeps its CA. (The path was dropped for
 * that sweep: the IOC was reported removed and added again with the other
 * CA, and the lost path added again at the next sweep.) */
static void test_ioc_pnp_path_query_lost(void)
{
	ib_svc_handle_t h_svc[3];
	ib_ca_handle_t h_ica;
	ib_ioc_handle_t h_ioc;
	ib_pnp_handle_t h;
	ib_svc_entry_t se;
	ib_net64_t unit_ca;

	up();
	CU_ASSERT_EQUAL_FATAL(ib_open_ca(h_ini, ca_guid[0], NULL, NULL, &h_ica), IB_SUCCESS);
	h_ioc = make_ioc(2, h_svc);
	h = reg(IB_PNP_IOC, NULL);
	CU_ASSERT_EQUAL_FATAL(wait_count(IB_PNP_IOC_PATH_ADD, h, 2), 2);
	unit_ca = last(IB_PNP_IOC_ADD, h).ca_guid;
	CU_ASSERT_FATAL(unit_ca == ca_guid[0] || unit_ca == ca_guid[1]);
	/* The next sweep's query through that CA's port is lost; once the
	 * following sweep's query goes through, that sweep has been applied. */
	lose_set(h_ica, TRUE, port_lid(unit_ca == ca_guid[0] ? h_ica : h_tca));
	CU_ASSERT(lose_wait() >= 1);
	lose_set(h_ica, FALSE, 0);
	/* A change made now is reported by a later sweep, so after anything
	 * the sweep of the loss reported (a registration's events come in
	 * order): the IOC removed and added once, with its CA and both paths. */
	memset(&se, 0, sizeof(se));
	strcpy(se.name, "svc-2");
	se.id = SVC_ID(2);
	CU_ASSERT_EQUAL(ib_add_svc_entry(h_ioc, &se, &h_svc[2]), IB_SUCCESS);
	CU_ASSERT(wait_count(IB_PNP_IOC_ADD, h, 2) >= 2);
	CU_ASSERT(wait_count(IB_PNP_IOC_PATH_ADD, h, 4) >= 4);
	CU_ASSERT_EQUAL(last(IB_PNP_IOC_ADD, h).info.profile.num_svc_entries, 3);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h), 2);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_REMOVE, h), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_REMOVE, h), 2);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_ADD, h), 4);
	CU_ASSERT_EQUAL(last(IB_PNP_IOC_ADD, h).ca_guid, unit_ca);
	down();
}

/* ib_reject_ioc() in the IOC_ADD callback, and an error returned from it:
 * no more events of that IOC for that registration. */
static void test_ioc_pnp_reject(void)
{
	ib_svc_handle_t h_svc[2];
	ib_pnp_handle_t h_rej, h_dec, h_ok, h_pre;
	ib_ioc_handle_t h;

	up();
	h = make_ioc(2, h_svc);
	/* Both paths known first (a sweep may find one, the next the other):
	 * the registrations below are told of the IOC from that model. The
	 * sweeper runs on while any registration exists. */
	h_pre = reg(IB_PNP_IOC, NULL);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_PATH_ADD, h_pre, 2), 2);
	R.reject = 1;
	h_rej = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC, NULL);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h_rej), 1);
	R.reject = 0;
	R.decline = 1;
	h_dec = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC, NULL);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h_dec), 1);
	R.decline = 0;
	h_ok = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC, NULL);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h_ok), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_ADD, h_ok), 2);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_ADD, h_rej), 0);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_ADD, h_dec), 0);
	/* Rejecting outside the callback, with another instance: refused. */
	CU_ASSERT_EQUAL(ib_reject_ioc(h_tgt, last(IB_PNP_IOC_ADD, h_ok).h_ioc_event),
			IB_INVALID_HANDLE);
	CU_ASSERT_EQUAL(ib_destroy_ioc(h), IB_SUCCESS);
	CU_ASSERT_EQUAL(wait_count(IB_PNP_IOC_REMOVE, h_ok, 1), 1);
	/* The removal was queued for all three at once: h_ok's delivery
	 * means the others would have had theirs (one queue per registration,
	 * so wait for their deregistration to flush them). */
	CU_ASSERT_EQUAL(ib_dereg_pnp(h_rej, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h_dec, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h_pre, ib_sync_destroy), IB_SUCCESS);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_REMOVE, h_rej), 0);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_REMOVE, h_dec), 0);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_REMOVE, h_rej), 0);
	down();
}

/* Deregistration from the callback of the first event: nothing after. */
static void test_ioc_pnp_dereg_in_cb(void)
{
	ib_svc_handle_t h_svc[2];
	ib_pnp_handle_t h, h_ok;

	up();
	(void)make_ioc(2, h_svc);
	h_ok = reg(IB_PNP_IOC | IB_PNP_FLAG_REG_SYNC, NULL);
	CU_ASSERT_EQUAL_FATAL(wait_count(IB_PNP_IOC_ADD, h_ok, 1), 1);
	R.dereg = 1;
	h = reg(IB_PNP_IOC, NULL);
	CU_ASSERT_EQUAL(wait_destroyed(1), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_ADD, h), 1);
	CU_ASSERT_EQUAL(count(IB_PNP_IOC_PATH_ADD, h), 0);
	CU_ASSERT_EQUAL(ib_dereg_pnp(h, NULL), IB_INVALID_HANDLE);
	down();
}

static const test_entry_t tests[] = {
	TEST_ENTRY(test_ioc_pnp_statuses),
	TEST_ENTRY(test_ioc_pnp_end_to_end),
	TEST_ENTRY(test_ioc_pnp_initial),
	TEST_ENTRY(test_ioc_pnp_reject),
	TEST_ENTRY(test_ioc_pnp_dereg_in_cb),
	TEST_ENTRY(test_ioc_pnp_second_ca),
	TEST_ENTRY(test_ioc_pnp_path_query_lost),
};

TEST_MAIN("al_ioc_pnp", tests)
