/*
 * ibal access layer: IOC discovery for the IOU and IOC PnP classes (the sweeper and its model).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * While an IB_PNP_IOU or IB_PNP_IOC registration exists, a thread of its
 * own (the sweeper) sweeps the subnet through every active local port, at
 * once and then every IBAL_IOC_SWEEP_MS milliseconds (default 3000):
 *  1. the SA's PortInfoRecords (a GetTable of all, filtered here) give the
 *     LIDs of the ports whose CapabilityMask has IsDeviceManagementSupported;
 *  2. the SA's NodeRecords give each such port's node: its node GUID is the
 *     I/O unit's GUID, with its system image (chassis) GUID, vendor, device,
 *     revision and description;
 *  3. a PathRecord from the local port to that port;
 *  4. DevMgt Get(IOUnitInfo) to the port; when its ChangeID is the one of
 *     the last sweep, the unit's controllers are taken from that sweep;
 *     otherwise Get(IOControllerProfile) for every slot marked present and
 *     Get(ServiceEntries) four at a time.
 * A unit reached through several local ports (or remote ports) is one
 * unit with several paths. Only answers change what is known: a unit
 * whose DevMgt queries fail (timeout, error status) is kept as it was if
 * it was known (its port still claims device management), so a slow
 * answer does not remove it; a PathRecord query that fails keeps the path
 * of the last sweep (unit_path()), while an answer with no record takes it
 * away; a sweep whose PortInfoRecord or NodeRecord query fails changes
 * nothing.
 *
 * The result is compared with the last one under the PnP lock, and the
 * differences become events for the registrations (al_pnp_ioc_event()):
 * IB_PNP_IOU_ADD / REMOVE, IB_PNP_IOC_ADD (followed by IB_PNP_IOC_PATH_ADD
 * per path) and IB_PNP_IOC_REMOVE (preceded by IB_PNP_IOC_PATH_REMOVE per
 * path), IB_PNP_IOC_PATH_ADD / REMOVE for paths of an unchanged controller.
 * A controller whose profile or service entries changed is reported
 * removed, then added. So ports that leave the subnet or clear the
 * capability bit are noticed by the next sweep, and changes by the unit's
 * ChangeID.
 *
 * The sweeper owns its model; readers (announcements to new registrations,
 * ib_get_guid()) hold the PnP lock, under which the sweeper replaces it.
 * Stopping is asynchronous: the last registration's cleanup marks the
 * sweeper stopped and, unless it runs on an AL callback thread, waits for
 * the thread to end; the thread closes its own AL instance.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>
#include <complib/cl_memory.h>
#include "al_verbs.h"
#include "al_mad.h"
#include "al_client.h"
#include "ibal_env.h"
#include "ibal_log.h"
#include "ibal_time.h"

/** Default sweep interval, milliseconds. */
#define IOC_SWEEP_MS_DEFAULT 3000u
/* SA and DevMgt request timeouts and retries. */
#define IOC_SA_TIMEOUT_MS 500u
#define IOC_SA_RETRIES 2u
#define IOC_DM_TIMEOUT_MS 250u
#define IOC_DM_RETRIES 2u

/* A path from a local port to a port of a unit. */
typedef struct disc_path {
	ib_net64_t ca_guid;
	ib_net64_t port_guid;        /* local */
	ib_path_rec_t path;
} disc_path_t;

/* A controller. */
typedef struct disc_ioc {
	ib_ioc_info_t info;
	ib_svc_entry_t *p_svc;       /* info.profile.num_svc_entries entries */
} disc_ioc_t;

/* A unit. */
typedef struct disc_iou {
	ib_pnp_iou_rec_t rec;        /* fields after pnp_rec */
	ib_net16_t change_id;
	uint32_t n_ioc;
	disc_ioc_t *p_ioc;
	uint32_t n_path;
	disc_path_t *p_path;
} disc_iou_t;

typedef struct disc_model {
	uint32_t n_iou;
	disc_iou_t *p_iou;
} disc_model_t;

/* A sweeper thread. Freed by whoever stops it once it ended, or by the
 * thread itself when the stopper could not wait (orphan). */
typedef struct sweeper {
	uint32_t stop;               /* atomic */
	boolean_t ended;             /* wake_lock: the thread is done with it */
	boolean_t orphan;            /* wake_lock: nobody waits, the thread frees it */
	boolean_t swept;             /* pnp lock: the first sweep is applied */
	disc_model_t model;          /* written by the thread under the pnp lock */
} sweeper_t;

static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t n_users;             /* life_lock */
static sweeper_t *g_sw;              /* pnp lock (written under life_lock too) */
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond;     /* CLOCK_MONOTONIC */
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static uint32_t n_alive;             /* wake_lock: sweeper threads not ended */
static uint32_t n_stopped;           /* wake_lock: of those, the ones told to stop */

/* ---- The model ---- */

/* Frees what the units of a model hold (not the array). */
static void model_free_units(disc_model_t *m)
{
	uint32_t i, j;

	for (i = 0; i < m->n_iou; i++) {
		for (j = 0; j < m->p_iou[i].n_ioc; j++)
			cl_free(m->p_iou[i].p_ioc[j].p_svc);
		cl_free(m->p_iou[i].p_ioc);
		cl_free(m->p_iou[i].p_path);
	}
}

static void model_free(disc_model_t *m)
{
	model_free_units(m);
	cl_free(m->p_iou);
	m->p_iou = NULL;
	m->n_iou = 0;
}

/* Appends one zeroed element to an array of @p n elements of @p size. */
static void *grow(void *p, uint32_t n, size_t size)
{
	void *q = cl_zalloc((n + 1) * size);

	if (q && n)
		memcpy(q, p, n * size);
	if (q)
		cl_free(p);
	return q;
}

static disc_iou_t *iou_find(const disc_model_t *m, ib_net64_t guid)
{
	uint32_t i;

	for (i = 0; i < m->n_iou; i++)
		if (m->p_iou[i].rec.guid == guid)
			return &m->p_iou[i];
	return NULL;
}

static const disc_ioc_t *ioc_find(const disc_iou_t *u, ib_net64_t guid)
{
	uint32_t i;

	for (i = 0; i < u->n_ioc; i++)
		if (u->p_ioc[i].info.profile.ioc_guid == guid)
			return &u->p_ioc[i];
	return NULL;
}

static boolean_t path_same(const disc_path_t *a, const disc_path_t *b)
{
	return a->port_guid == b->port_guid && a->path.slid == b->path.slid &&
	       a->path.dlid == b->path.dlid && !memcmp(&a->path.dgid, &b->path.dgid, sizeof(ib_gid_t));
}

static boolean_t path_in(const disc_iou_t *u, const disc_path_t *p)
{
	uint32_t i;

	for (i = 0; i < u->n_path; i++)
		if (path_same(&u->p_path[i], p))
			return TRUE;
	return FALSE;
}

static ib_api_status_t path_add(disc_iou_t *u, const disc_path_t *p)
{
	disc_path_t *q;

	if (path_in(u, p))
		return IB_SUCCESS;
	q = (disc_path_t *)grow(u->p_path, u->n_path, sizeof(*q));
	if (!q)
		return IB_INSUFFICIENT_MEMORY;
	q[u->n_path++] = *p;
	u->p_path = q;
	return IB_SUCCESS;
}

/* Copies the controllers of @p from into @p to (which has none). */
static ib_api_status_t iocs_copy(disc_iou_t *to, const disc_iou_t *from)
{
	uint32_t i, n;

	if (!from->n_ioc)
		return IB_SUCCESS;
	to->p_ioc = (disc_ioc_t *)cl_zalloc(from->n_ioc * sizeof(disc_ioc_t));
	if (!to->p_ioc)
		return IB_INSUFFICIENT_MEMORY;
	for (i = 0; i < from->n_ioc; i++) {
		to->p_ioc[i].info = from->p_ioc[i].info;
		n = from->p_ioc[i].info.profile.num_svc_entries;
		to->n_ioc++;
		if (!n)
			continue;
		to->p_ioc[i].p_svc = (ib_svc_entry_t *)cl_malloc(n * sizeof(ib_svc_entry_t));
		if (!to->p_ioc[i].p_svc)
			return IB_INSUFFICIENT_MEMORY;
		memcpy(to->p_ioc[i].p_svc, from->p_ioc[i].p_svc, n * sizeof(ib_svc_entry_t));
	}
	return IB_SUCCESS;
}

/* ---- Synchronous requests ---- */

/* A DevMgt request being waited for. */
typedef struct dm_wait {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	boolean_t done;
	ib_api_status_t status;
	ib_mad_element_t *p_resp;
} dm_wait_t;

static void dm_done(void *context, ib_api_status_t status, ib_mad_element_t *p_resp)
{
	dm_wait_t *w = (dm_wait_t *)context;

	pthread_mutex_lock(&w->lock);
	w->status = status;
	w->p_resp = p_resp;
	w->done = TRUE;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* Get() of a DevMgt attribute of the port at @p dlid; copies @p len bytes
 * of the answer's data. IB_SUCCESS, IB_REMOTE_ERROR (status not 0) or the
 * request's failure. The MAD layer's timeout guarantees the callback. */
static ib_api_status_t dm_get(al_gmp_client_t *c, ib_net16_t dlid, ib_net16_t attr_id,
			      ib_net32_t attr_mod, void *p_data, size_t len)
{
	static uint32_t tid;
	ib_dm_mad_t req;
	dm_wait_t w;
	const ib_dm_mad_t *resp;
	ib_api_status_t st;

	memset(&req, 0, sizeof(req));
	req.hdr.base_ver = 1;
	req.hdr.mgmt_class = IB_MCLASS_DEV_MGMT;
	req.hdr.class_ver = 1;
	req.hdr.method = IB_MAD_METHOD_GET;
	req.hdr.trans_id = cl_hton64(__atomic_add_fetch(&tid, 1, __ATOMIC_RELAXED));
	req.hdr.attr_id = attr_id;
	req.hdr.attr_mod = attr_mod;
	memset(&w, 0, sizeof(w));
	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	st = al_gmp_request(c, dlid, &req.hdr, sizeof(req), IOC_DM_TIMEOUT_MS, IOC_DM_RETRIES,
			    dm_done, &w);
	if (st == IB_SUCCESS) {
		pthread_mutex_lock(&w.lock);
		while (!w.done)
			pthread_cond_wait(&w.cond, &w.lock);
		pthread_mutex_unlock(&w.lock);
		st = w.status;
	}
	if (st == IB_SUCCESS) {
		resp = (const ib_dm_mad_t *)w.p_resp->p_mad_buf;
		if (w.p_resp->size < sizeof(ib_mad_t) + 40 + len ||
		    resp->hdr.method != IB_MAD_METHOD_GET_RESP ||
		    (resp->hdr.status & CL_HTON16(0x7FFF)) || resp->hdr.attr_id != attr_id)
			st = IB_REMOTE_ERROR;
		else
			memcpy(p_data, resp->data, len);
	}
	if (w.p_resp)
		ib_put_mad(w.p_resp);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
	return st;
}

/* What a synchronous ib_query() gives back. */
typedef struct sa_wait {
	ib_api_status_t status;
	uint32_t n;
	ib_mad_element_t *p_mad;
	ib_net16_t sa_status;        /* the SA's MAD status when it answered one */
} sa_wait_t;

static void AL_API sa_done(ib_query_rec_t *p_rec)
{
	sa_wait_t *w = (sa_wait_t *)(uintptr_t)p_rec->query_context;

	w->status = p_rec->status;
	w->n = p_rec->result_cnt;
	w->p_mad = p_rec->p_result_mad;
}

/* One SA query through @p port_guid, synchronous. On IB_SUCCESS the
 * caller returns w->p_mad with ib_put_mad(); otherwise w->sa_status tells
 * an answer with an error status (such as NO_RECORDS) from no answer. */
static ib_api_status_t sa_query(ib_al_handle_t h_al, ib_net64_t port_guid, ib_query_type_t type,
				const void *p_input, sa_wait_t *w)
{
	ib_query_req_t q;
	ib_api_status_t st;

	memset(w, 0, sizeof(*w));
	memset(&q, 0, sizeof(q));
	q.query_type = type;
	q.p_query_input = p_input;
	q.port_guid = port_guid;
	q.timeout_ms = IOC_SA_TIMEOUT_MS;
	q.retry_cnt = IOC_SA_RETRIES;
	q.flags = IB_FLAGS_SYNC;
	q.query_context = w;
	q.pfn_query_cb = sa_done;
	st = ib_query(h_al, &q, NULL);
	if (st == IB_SUCCESS)
		st = w->status;
	if (st != IB_SUCCESS && w->p_mad) {
		if (w->p_mad->p_mad_buf)
			w->sa_status = ((const ib_sa_mad_t *)w->p_mad->p_mad_buf)->status;
		ib_put_mad(w->p_mad);
		w->p_mad = NULL;
	}
	if (st == IB_SUCCESS && !w->p_mad)
		st = IB_ERROR;
	return st;
}

/* Every record of one SA attribute (GetTable, no component). */
static ib_api_status_t sa_table(ib_al_handle_t h_al, ib_net64_t port_guid, ib_net16_t attr_id,
				uint32_t attr_size, sa_wait_t *w)
{
	ib_user_query_t uq;

	memset(&uq, 0, sizeof(uq));
	uq.method = IB_MAD_METHOD_GETTABLE;
	uq.attr_id = attr_id;
	uq.attr_size = attr_size;
	return sa_query(h_al, port_guid, IB_QUERY_USER_DEFINED, &uq, w);
}

/* ---- One sweep ---- */

/* A local port being swept from. */
typedef struct sweep_port {
	ib_al_handle_t h_al;
	ib_net64_t ca_guid;
	ib_net64_t port_guid;
	ib_net16_t lid;              /* base LID and LMC, in this sweep */
	uint8_t lmc;
	ib_ca_handle_t h_ca;         /* opened on the first DevMgt request */
	al_gmp_client_t gmp;
	boolean_t gmp_open;
} sweep_port_t;

static ib_api_status_t port_gmp(sweep_port_t *sp)
{
	ib_api_status_t st;

	if (sp->gmp_open)
		return IB_SUCCESS;
	if (!sp->h_ca) {
		st = ib_open_ca(sp->h_al, sp->ca_guid, NULL, NULL, &sp->h_ca);
		if (st != IB_SUCCESS)
			return st;
	}
	st = al_gmp_client_open(sp->h_ca, sp->port_guid, &sp->gmp);
	sp->gmp_open = st == IB_SUCCESS;
	return st;
}

static void port_close(sweep_port_t *sp)
{
	if (sp->gmp_open)
		al_gmp_client_close(&sp->gmp);
	if (sp->h_ca)
		ib_close_ca(sp->h_ca, ib_sync_destroy);
}

/* Reads the controllers of a unit (slots marked present). */
/* A port's Get of a DevMgt attribute of one unit (read_iocs' source of answers). */
typedef struct unit_at {
	sweep_port_t *sp;
	ib_net16_t dlid;
} unit_at_t;

static ib_api_status_t unit_get(void *ctx, ib_net16_t attr_id, ib_net32_t attr_mod, void *p_data,
				size_t len)
{
	unit_at_t *at = (unit_at_t *)ctx;

	return dm_get(&at->sp->gmp, at->dlid, attr_id, attr_mod, p_data, len);
}

/* Reads the controllers a unit's IOUnitInfo says are installed, their
 * profiles and service entries, through @p get: every count comes from the
 * peer and bounds only what is read, into records of fixed size. */
static ib_api_status_t read_iocs(al_ioc_dm_get_fn get, void *ctx, const ib_iou_info_t *info,
				 disc_iou_t *u)
{
	ib_svc_entries_t ents;
	ib_api_status_t st;
	unsigned slot, k, n;

	for (slot = 1; slot <= info->max_controllers; slot++) {
		disc_ioc_t *p_ioc;

		if (ioc_at_slot(info, (uint8_t)slot) != IOC_INSTALLED)
			continue;
		p_ioc = (disc_ioc_t *)grow(u->p_ioc, u->n_ioc, sizeof(*p_ioc));
		if (!p_ioc)
			return IB_INSUFFICIENT_MEMORY;
		u->p_ioc = p_ioc;
		p_ioc = &u->p_ioc[u->n_ioc++];
		p_ioc->info.chassis_guid = u->rec.chassis_guid;
		p_ioc->info.chassis_slot = u->rec.slot;
		p_ioc->info.iou_guid = u->rec.guid;
		p_ioc->info.iou_slot = (uint8_t)slot;
		st = get(ctx, IB_MAD_ATTR_IO_CONTROLLER_PROFILE, cl_hton32(slot),
			 &p_ioc->info.profile, sizeof(p_ioc->info.profile));
		if (st != IB_SUCCESS)
			return st;
		n = p_ioc->info.profile.num_svc_entries;
		if (!n)
			continue;
		p_ioc->p_svc = (ib_svc_entry_t *)cl_zalloc(n * sizeof(ib_svc_entry_t));
		if (!p_ioc->p_svc)
			return IB_INSUFFICIENT_MEMORY;
		for (k = 0; k < n; k += SVC_ENTRY_COUNT) {
			unsigned hi = k + SVC_ENTRY_COUNT - 1 < n - 1 ? k + SVC_ENTRY_COUNT - 1 : n - 1;

			st = get(ctx, IB_MAD_ATTR_SERVICE_ENTRIES,
				 ib_dm_set_slot_lo_hi((uint8_t)slot, (uint8_t)k, (uint8_t)hi), &ents,
				 sizeof(ents));
			if (st != IB_SUCCESS)
				return st;
			memcpy(&p_ioc->p_svc[k], ents.service_entry,
			       (hi - k + 1) * sizeof(ib_svc_entry_t));
		}
	}
	return IB_SUCCESS;
}

/* Whether @p lid is one of the LIDs of a port (base LID @p base, LMC @p lmc). */
static boolean_t lid_of(ib_net16_t lid, ib_net16_t base, uint8_t lmc)
{
	uint16_t l = cl_ntoh16(lid), b = cl_ntoh16(base);

	return l >= b && (uint32_t)(l - b) < (1u << lmc);
}

/* The path of the last sweep (of unit @p prev) from @p sp's port to the
 * unit's port @p nr, if it still joins them: to that port's GID, and
 * between LIDs both ports have in this sweep (@p lmc: the unit port's
 * LMC). NULL if none. */
static const disc_path_t *path_last(const disc_iou_t *prev, const sweep_port_t *sp,
				    const ib_node_record_t *nr, uint8_t lmc)
{
	uint32_t i;

	for (i = 0; prev && i < prev->n_path; i++) {
		const disc_path_t *q = &prev->p_path[i];

		if (q->port_guid == sp->port_guid &&
		    q->path.dgid.unicast.interface_id == nr->node_info.port_guid &&
		    lid_of(q->path.slid, sp->lid, sp->lmc) && lid_of(q->path.dlid, nr->lid, lmc))
			return q;
	}
	return NULL;
}

/* The path from @p sp's port to the unit's port @p nr (unit @p prev in the
 * last sweep, or NULL) into @p p; FALSE when there is none in this sweep.
 * Only an answer is news: an answer with no record (none returned, or
 * NO_RECORDS) takes a path away, while a query that failed (timeout, any
 * other status) keeps the path of the last sweep, so a unit does not lose
 * a path, nor its CA with it (keep_ca), for a lost or refused query. */
static boolean_t unit_path(sweep_port_t *sp, const ib_node_record_t *nr, uint8_t lmc,
			   const disc_iou_t *prev, disc_path_t *p)
{
	ib_guid_pair_t pair;
	const disc_path_t *last;
	sa_wait_t w;
	ib_api_status_t st;

	memset(p, 0, sizeof(*p));
	p->ca_guid = sp->ca_guid;
	p->port_guid = sp->port_guid;
	pair.src_guid = sp->port_guid;
	pair.dest_guid = nr->node_info.port_guid;
	st = sa_query(sp->h_al, sp->port_guid, IB_QUERY_PATH_REC_BY_PORT_GUIDS, &pair, &w);
	if (st == IB_SUCCESS) {
		if (w.n)
			p->path = *ib_get_query_path_rec(w.p_mad, 0);
		ib_put_mad(w.p_mad);
		if (w.n)
			return TRUE;
	}
	if (st == IB_SUCCESS || w.sa_status == IB_SA_MAD_STATUS_NO_RECORDS) {
		IBAL_DBG(IBAL_SUB_IOC, "port 0x%016llx: no PathRecord to port 0x%016llx: its unit "
			 "gets no path through this port in this sweep",
			 (unsigned long long)cl_ntoh64(sp->port_guid),
			 (unsigned long long)cl_ntoh64(pair.dest_guid));
		return FALSE;
	}
	last = path_last(prev, sp, nr, lmc);
	IBAL_DBG(IBAL_SUB_IOC, "port 0x%016llx: the PathRecord query to port 0x%016llx failed (%s): %s",
		 (unsigned long long)cl_ntoh64(sp->port_guid),
		 (unsigned long long)cl_ntoh64(pair.dest_guid), ib_get_err_str(st),
		 last ? "the path of the last sweep stays" : "no path known through this port");
	if (!last)
		return FALSE;
	*p = *last;
	return TRUE;
}

/* The unit behind one port that claims device management (@p nr, with the
 * LMC @p lmc), reached through @p sp: into @p m (the new model), using
 * @p old. */
static void sweep_unit(sweep_port_t *sp, const ib_node_record_t *nr, uint8_t lmc,
		       const disc_model_t *old, disc_model_t *m)
{
	disc_path_t p;
	disc_iou_t u, *known;
	const disc_iou_t *prev = iou_find(old, nr->node_info.node_guid);
	ib_iou_info_t info;
	ib_api_status_t st;

	if (!unit_path(sp, nr, lmc, prev, &p))
		return;
	known = iou_find(m, nr->node_info.node_guid);
	if (known) {
		path_add(known, &p);
		return;
	}
	memset(&u, 0, sizeof(u));
	u.rec.guid = nr->node_info.node_guid;
	u.rec.ca_guid = sp->ca_guid;
	u.rec.chassis_guid = nr->node_info.sys_guid;
	u.rec.vend_id = cl_hton32(cl_ntoh32(nr->node_info.port_num_vendor_id) & 0x00FFFFFFu);
	u.rec.dev_id = nr->node_info.device_id;
	u.rec.revision = nr->node_info.revision;
	memcpy(u.rec.desc, nr->node_desc.description, IB_NODE_DESCRIPTION_SIZE);
	st = port_gmp(sp);
	if (st == IB_SUCCESS)
		st = dm_get(&sp->gmp, p.path.dlid, IB_MAD_ATTR_IO_UNIT_INFO, 0, &info, sizeof(info));
	if (st == IB_SUCCESS && prev && prev->change_id == info.change_id) {
		u.change_id = prev->change_id;
		st = iocs_copy(&u, prev);
	} else if (st == IB_SUCCESS) {
		unit_at_t at = { sp, p.path.dlid };

		u.change_id = info.change_id;
		st = read_iocs(unit_get, &at, &info, &u);
	}
	if (st != IB_SUCCESS) {
		/* Not answering now: keep what was known, else try next time. */
		uint32_t j;

		for (j = 0; j < u.n_ioc; j++)
			cl_free(u.p_ioc[j].p_svc);
		cl_free(u.p_ioc);
		u.p_ioc = NULL;
		u.n_ioc = 0;
		if (!prev)
			return;
		u.change_id = prev->change_id;
		if (iocs_copy(&u, prev) != IB_SUCCESS)
			goto drop;
	}
	if (path_add(&u, &p) != IB_SUCCESS)
		goto drop;
	known = (disc_iou_t *)grow(m->p_iou, m->n_iou, sizeof(u));
	if (!known)
		goto drop;
	m->p_iou = known;
	m->p_iou[m->n_iou++] = u;
	return;
drop: {
	disc_model_t one = { 1, &u };

	model_free_units(&one);
}
}

/* Sweeps through one local port. IB_SUCCESS unless the SA did not answer. */
static ib_api_status_t sweep_port(sweep_port_t *sp, const disc_model_t *old, disc_model_t *m,
				  const uint32_t *p_stop)
{
	sa_wait_t pi, nr;
	uint32_t i, j;
	ib_api_status_t st;

	st = sa_table(sp->h_al, sp->port_guid, IB_MAD_ATTR_PORTINFO_RECORD,
		      sizeof(ib_portinfo_record_t), &pi);
	if (st != IB_SUCCESS)
		return st;
	for (i = 0; i < pi.n; i++)
		if (ib_get_query_portinfo_rec(pi.p_mad, i)->port_info.capability_mask &
		    IB_PORT_CAP_HAS_DEV_MGT)
			break;
	IBAL_DBG(IBAL_SUB_IOC, "port 0x%016llx: %u PortInfoRecords, %s with device management",
		 (unsigned long long)cl_ntoh64(sp->port_guid), pi.n, i < pi.n ? "some" : "none");
	if (i == pi.n) {
		ib_put_mad(pi.p_mad);
		return IB_SUCCESS; /* nobody claims device management */
	}
	st = sa_table(sp->h_al, sp->port_guid, IB_MAD_ATTR_NODE_RECORD, sizeof(ib_node_record_t),
		      &nr);
	if (st != IB_SUCCESS) {
		ib_put_mad(pi.p_mad);
		return st;
	}
	for (i = 0; i < pi.n && !__atomic_load_n(p_stop, __ATOMIC_ACQUIRE); i++) {
		const ib_portinfo_record_t *r = ib_get_query_portinfo_rec(pi.p_mad, i);

		if (!(r->port_info.capability_mask & IB_PORT_CAP_HAS_DEV_MGT) || !r->lid)
			continue;
		for (j = 0; j < nr.n; j++) {
			const ib_node_record_t *n = ib_get_query_node_rec(nr.p_mad, j);

			if (n->lid == r->lid && n->node_info.node_type == IB_NODE_TYPE_CA) {
				sweep_unit(sp, n, ib_port_info_get_lmc(&r->port_info), old, m);
				break;
			}
		}
	}
	ib_put_mad(nr.p_mad);
	ib_put_mad(pi.p_mad);
	return IB_SUCCESS;
}

/* A unit's local CA (rec.ca_guid, reported with the unit and its
 * controllers) is the CA of the first local port that reached it in a
 * sweep, so it depends on which ports' SA queries already saw the unit:
 * right after a unit appears, or while the SA learns of a port, one sweep
 * may reach it through the second CA only and the next through both. A
 * new CA is reported as the controllers' removal and addition (diff_unit),
 * so a unit keeps the CA of the last sweep while that CA still has a path
 * to it: a path gained through another CA is only that path's addition. */
static void keep_ca(const disc_model_t *old, disc_model_t *m)
{
	uint32_t i, k;

	for (i = 0; i < m->n_iou; i++) {
		disc_iou_t *u = &m->p_iou[i];
		const disc_iou_t *prev = iou_find(old, u->rec.guid);

		if (!prev || prev->rec.ca_guid == u->rec.ca_guid)
			continue;
		for (k = 0; k < u->n_path; k++)
			if (u->p_path[k].ca_guid == prev->rec.ca_guid) {
				u->rec.ca_guid = prev->rec.ca_guid;
				break;
			}
		if (u->rec.ca_guid != prev->rec.ca_guid)
			IBAL_DBG(IBAL_SUB_IOC, "unit 0x%016llx: no path through CA 0x%016llx any "
				 "more: its controllers move to CA 0x%016llx",
				 (unsigned long long)cl_ntoh64(u->rec.guid),
				 (unsigned long long)cl_ntoh64(prev->rec.ca_guid),
				 (unsigned long long)cl_ntoh64(u->rec.ca_guid));
	}
}

/* One sweep through every active local port into @p m. IB_SUCCESS when
 * every SA answered. */
static ib_api_status_t sweep(ib_al_handle_t h_al, const disc_model_t *old, disc_model_t *m,
			     const uint32_t *p_stop)
{
	ib_net64_t *guids = NULL;
	size_t n = 0, i;
	ib_api_status_t st, ret = IB_SUCCESS;

	memset(m, 0, sizeof(*m));
	if (al_ca_guids_alloc(&guids, &n) != IB_SUCCESS)
		return IB_ERROR;
	for (i = 0; i < n && ret == IB_SUCCESS; i++) {
		al_ci_ca_t *p_ci;
		ib_ca_attr_t *p_attr;
		uint8_t k;

		if (al_ci_ca_acquire(guids[i], &p_ci) != IB_SUCCESS)
			continue;
		st = al_ci_ca_query_alloc(p_ci, &p_attr);
		al_ci_ca_release(p_ci);
		if (st != IB_SUCCESS)
			continue;
		for (k = 0; k < p_attr->num_ports && ret == IB_SUCCESS; k++) {
			const ib_port_attr_t *pa = &p_attr->p_port_attr[k];
			sweep_port_t sp;

			if (pa->link_state != IB_LINK_ACTIVE || !pa->lid ||
			    __atomic_load_n(p_stop, __ATOMIC_ACQUIRE))
				continue;
			memset(&sp, 0, sizeof(sp));
			sp.h_al = h_al;
			sp.ca_guid = guids[i];
			sp.port_guid = pa->port_guid;
			sp.lid = pa->lid;
			sp.lmc = pa->lmc;
			ret = sweep_port(&sp, old, m, p_stop);
			port_close(&sp);
			if (ret != IB_SUCCESS)
				IBAL_DBG(IBAL_SUB_IOC, "port 0x%016llx: the SA did not answer (%s): this "
					 "sweep changes nothing", (unsigned long long)cl_ntoh64(sp.port_guid),
					 ib_get_err_str(ret));
		}
		cl_free(p_attr);
	}
	cl_free(guids);
	if (ret != IB_SUCCESS || __atomic_load_n(p_stop, __ATOMIC_ACQUIRE))
		model_free(m);
	else
		keep_ca(old, m);
	return __atomic_load_n(p_stop, __ATOMIC_ACQUIRE) ? IB_CANCELED : ret;
}

/* ---- Events (pnp lock held) ---- */

static void ev_iou(struct al_pnp *p_reg, ib_pnp_event_t event, const disc_iou_t *u)
{
	ib_pnp_iou_rec_t rec = u->rec;

	memset(&rec.pnp_rec, 0, sizeof(rec.pnp_rec));
	al_pnp_ioc_event(p_reg, event, u->rec.guid, u->rec.ca_guid, &rec, sizeof(rec));
}

static void ev_path(struct al_pnp *p_reg, ib_pnp_event_t event, const disc_ioc_t *c,
		    const disc_path_t *p)
{
	ib_pnp_ioc_path_rec_t rec;

	memset(&rec, 0, sizeof(rec));
	rec.ca_guid = p->ca_guid;
	rec.port_guid = p->port_guid;
	rec.path = p->path;
	al_pnp_ioc_event(p_reg, event, c->info.profile.ioc_guid, p->ca_guid, &rec, sizeof(rec));
}

/* A controller added, then its paths. */
static void ev_ioc_add(struct al_pnp *p_reg, const disc_iou_t *u, const disc_ioc_t *c)
{
	uint32_t n = c->info.profile.num_svc_entries, i;
	size_t size = sizeof(ib_pnp_ioc_rec_t) + (n ? n - 1 : 0) * sizeof(ib_svc_entry_t);
	ib_pnp_ioc_rec_t *rec = (ib_pnp_ioc_rec_t *)cl_zalloc(size);

	if (!rec)
		return;
	rec->ca_guid = u->rec.ca_guid;
	rec->info = c->info;
	if (n)
		memcpy(rec->svc_entry_array, c->p_svc, n * sizeof(ib_svc_entry_t));
	al_pnp_ioc_event(p_reg, IB_PNP_IOC_ADD, c->info.profile.ioc_guid, u->rec.ca_guid, rec, size);
	cl_free(rec);
	for (i = 0; i < u->n_path; i++)
		ev_path(p_reg, IB_PNP_IOC_PATH_ADD, c, &u->p_path[i]);
}

/* A controller's paths removed, then the controller. */
static void ev_ioc_remove(const disc_iou_t *u, const disc_ioc_t *c)
{
	ib_pnp_ioc_rec_t rec;
	uint32_t i;

	for (i = 0; i < u->n_path; i++)
		ev_path(NULL, IB_PNP_IOC_PATH_REMOVE, c, &u->p_path[i]);
	memset(&rec, 0, sizeof(rec));
	rec.ca_guid = u->rec.ca_guid;
	rec.info = c->info;
	rec.info.profile.num_svc_entries = 0;
	al_pnp_ioc_event(NULL, IB_PNP_IOC_REMOVE, c->info.profile.ioc_guid, u->rec.ca_guid, &rec,
			 sizeof(rec));
}

static boolean_t ioc_same(const disc_ioc_t *a, const disc_ioc_t *b)
{
	return !memcmp(&a->info, &b->info, sizeof(a->info)) &&
	       (!a->info.profile.num_svc_entries ||
		!memcmp(a->p_svc, b->p_svc, a->info.profile.num_svc_entries * sizeof(ib_svc_entry_t)));
}

/* Reports how a unit known before changed. */
static void diff_unit(const disc_iou_t *o, const disc_iou_t *n)
{
	uint32_t i, k;

	for (i = 0; i < o->n_ioc; i++) {
		const disc_ioc_t *c = ioc_find(n, o->p_ioc[i].info.profile.ioc_guid);

		if (!c || !ioc_same(c, &o->p_ioc[i]) || n->rec.ca_guid != o->rec.ca_guid)
			ev_ioc_remove(o, &o->p_ioc[i]);
	}
	for (i = 0; i < n->n_ioc; i++) {
		const disc_ioc_t *c = &n->p_ioc[i], *oc = ioc_find(o, c->info.profile.ioc_guid);

		if (!oc || !ioc_same(c, oc) || n->rec.ca_guid != o->rec.ca_guid) {
			ev_ioc_add(NULL, n, c);
			continue;
		}
		for (k = 0; k < o->n_path; k++)
			if (!path_in(n, &o->p_path[k]))
				ev_path(NULL, IB_PNP_IOC_PATH_REMOVE, c, &o->p_path[k]);
		for (k = 0; k < n->n_path; k++)
			if (!path_in(o, &n->p_path[k]))
				ev_path(NULL, IB_PNP_IOC_PATH_ADD, c, &n->p_path[k]);
	}
}

/* Reports the differences between two sweeps. */
static void diff(const disc_model_t *o, const disc_model_t *n)
{
	uint32_t i, k;

	for (i = 0; i < o->n_iou; i++) {
		const disc_iou_t *u = &o->p_iou[i];

		if (iou_find(n, u->rec.guid))
			continue;
		for (k = 0; k < u->n_ioc; k++)
			ev_ioc_remove(u, &u->p_ioc[k]);
		ev_iou(NULL, IB_PNP_IOU_REMOVE, u);
	}
	for (i = 0; i < n->n_iou; i++) {
		const disc_iou_t *u = &n->p_iou[i], *ou = iou_find(o, u->rec.guid);

		if (ou) {
			diff_unit(ou, u);
			continue;
		}
		ev_iou(NULL, IB_PNP_IOU_ADD, u);
		for (k = 0; k < u->n_ioc; k++)
			ev_ioc_add(NULL, u, &u->p_ioc[k]);
	}
}

/* ---- The sweeper ---- */

static void wake_init(void)
{
	pthread_condattr_t a;

	pthread_condattr_init(&a);
	pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
	pthread_cond_init(&wake_cond, &a);
	pthread_condattr_destroy(&a);
}

/* Waits @p ms or until stopped; TRUE when stopped. */
static boolean_t nap(sweeper_t *sw, uint32_t ms)
{
	struct timespec ts = ibal_time_after_us(CLOCK_MONOTONIC, (uint64_t)ms * 1000u);

	pthread_mutex_lock(&wake_lock);
	while (!__atomic_load_n(&sw->stop, __ATOMIC_ACQUIRE))
		if (pthread_cond_timedwait(&wake_cond, &wake_lock, &ts))
			break;
	pthread_mutex_unlock(&wake_lock);
	return __atomic_load_n(&sw->stop, __ATOMIC_ACQUIRE) != 0;
}

/* pnp lock held: publishes a sweep's result. */
static void apply(sweeper_t *sw, disc_model_t *n)
{
	disc_model_t old = sw->model;

	if (g_sw == sw)
		diff(&old, n);
	sw->model = *n;
	memset(n, 0, sizeof(*n));
	model_free(&old);
	if (!sw->swept && g_sw == sw) {
		sw->swept = TRUE;
		al_pnp_ioc_swept();
	}
}

static void *sweeper_main(void *arg)
{
	sweeper_t *sw = (sweeper_t *)arg;
	uint32_t interval = (uint32_t)__cl_env_uint("IBAL_IOC_SWEEP_MS", 10, 3600000, IOC_SWEEP_MS_DEFAULT);
	ib_al_handle_t h_al = NULL;
	boolean_t orphan;
	disc_model_t n;

	if (ib_open_al(&h_al) != IB_SUCCESS)
		h_al = NULL;
	while (!__atomic_load_n(&sw->stop, __ATOMIC_ACQUIRE)) {
		ib_api_status_t st = h_al ? sweep(h_al, &sw->model, &n, &sw->stop) : IB_ERROR;

		al_pnp_lock();
		if (st == IB_SUCCESS)
			apply(sw, &n);
		else if (!sw->swept && g_sw == sw && st != IB_CANCELED) {
			/* No SA: what is known is nothing; say so once. */
			sw->swept = TRUE;
			al_pnp_ioc_swept();
		}
		al_pnp_unlock();
		if (nap(sw, interval))
			break;
	}
	if (h_al)
		al_client_close_al(h_al);
	al_pnp_lock();
	model_free(&sw->model);
	al_pnp_unlock();
	pthread_mutex_lock(&wake_lock);
	sw->ended = TRUE;
	orphan = sw->orphan;
	/* Nobody else holds an orphan: it goes before the counts that an
	 * ib_close_al waits on say this sweeper is over (freed after them, it
	 * was still allocated when the close returned). */
	if (orphan)
		cl_free(sw);
	n_alive--;
	n_stopped--;
	pthread_cond_broadcast(&wake_cond);
	pthread_mutex_unlock(&wake_lock);
	return NULL;
}

static void wait_no_sweeper(void)
{
	pthread_mutex_lock(&wake_lock);
	while (n_alive)
		pthread_cond_wait(&wake_cond, &wake_lock);
	pthread_mutex_unlock(&wake_lock);
}

ib_api_status_t al_ioc_pnp_use(void)
{
	sweeper_t *sw;
	pthread_t tid;
	pthread_attr_t a;
	ib_api_status_t st = IB_SUCCESS;

	pthread_once(&wake_once, wake_init);
	pthread_mutex_lock(&life_lock);
	if (n_users++) {
		pthread_mutex_unlock(&life_lock);
		return IB_SUCCESS;
	}
	sw = (sweeper_t *)cl_zalloc(sizeof(*sw));
	if (!sw) {
		st = IB_INSUFFICIENT_MEMORY;
	} else {
		pthread_mutex_lock(&wake_lock);
		n_alive++;
		pthread_mutex_unlock(&wake_lock);
		al_pnp_lock();
		g_sw = sw;
		al_pnp_unlock();
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&tid, &a, sweeper_main, sw)) {
			al_pnp_lock();
			g_sw = NULL;
			al_pnp_unlock();
			pthread_mutex_lock(&wake_lock);
			n_alive--;
			pthread_mutex_unlock(&wake_lock);
			cl_free(sw);
			st = IB_ERROR;
		}
		pthread_attr_destroy(&a);
	}
	if (st != IB_SUCCESS)
		n_users--;
	pthread_mutex_unlock(&life_lock);
	return st;
}

void al_ioc_pnp_unuse(void)
{
	sweeper_t *sw = NULL;
	boolean_t ended;

	pthread_mutex_lock(&life_lock);
	if (!--n_users) {
		al_pnp_lock();
		sw = g_sw;
		g_sw = NULL;
		al_pnp_unlock();
		if (sw) {
			pthread_mutex_lock(&wake_lock);
			__atomic_store_n(&sw->stop, 1, __ATOMIC_RELEASE);
			n_stopped++;
			pthread_cond_broadcast(&wake_cond);
			pthread_mutex_unlock(&wake_lock);
		}
	}
	pthread_mutex_unlock(&life_lock);
	if (!sw)
		return;
	/* Wait for this sweeper only (a new one may start meanwhile), and not
	 * on a callback thread, which its requests may need. */
	pthread_mutex_lock(&wake_lock);
	if (!al_is_cb_thread())
		while (!sw->ended)
			pthread_cond_wait(&wake_cond, &wake_lock);
	ended = sw->ended;
	if (!ended)
		sw->orphan = TRUE;
	pthread_mutex_unlock(&wake_lock);
	if (ended)
		cl_free(sw);
}

void al_ioc_pnp_quiesce(void)
{
	pthread_once(&wake_once, wake_init);
	wait_no_sweeper();
}

/* The IOC discovery as a client of the core (al_client.h): a sweeper
 * stopped by the last IOU/IOC registration (of the closed instance, or of
 * any) has ended, its AL instance closed, before ib_close_al returns. A
 * sweeper still running for another registration is not waited for. */
static void ioc_pnp_al_closed(void)
{
	pthread_once(&wake_once, wake_init);
	pthread_mutex_lock(&wake_lock);
	while (n_stopped)
		pthread_cond_wait(&wake_cond, &wake_lock);
	pthread_mutex_unlock(&wake_lock);
}

const al_client_t al_ioc_pnp_client = {
	.name = "ioc-pnp",
	.al_closed = ioc_pnp_al_closed,
};

boolean_t al_ioc_pnp_ready(void)
{
	return g_sw && g_sw->swept;
}

void al_ioc_pnp_announce(struct al_pnp *p_reg, uint32_t pnp_class)
{
	const disc_model_t *m;
	uint32_t i, k;

	if (!g_sw)
		return;
	m = &g_sw->model;
	for (i = 0; i < m->n_iou; i++) {
		const disc_iou_t *u = &m->p_iou[i];

		if (pnp_class == IB_PNP_IOU) {
			ev_iou(p_reg, IB_PNP_IOU_ADD, u);
			continue;
		}
		for (k = 0; k < u->n_ioc; k++)
			ev_ioc_add(p_reg, u, &u->p_ioc[k]);
	}
}

/* The controllers' GUIDs of a model, cl_malloc'd. */
static ib_api_status_t guids_of(const disc_model_t *m, ib_net64_t **pp, size_t *p_n)
{
	size_t n = 0, i, k;

	for (i = 0; i < m->n_iou; i++)
		n += m->p_iou[i].n_ioc;
	*pp = NULL;
	*p_n = 0;
	if (!n)
		return IB_SUCCESS;
	*pp = (ib_net64_t *)cl_malloc(n * sizeof(ib_net64_t));
	if (!*pp)
		return IB_INSUFFICIENT_MEMORY;
	for (i = 0; i < m->n_iou; i++)
		for (k = 0; k < m->p_iou[i].n_ioc; k++)
			(*pp)[(*p_n)++] = m->p_iou[i].p_ioc[k].info.profile.ioc_guid;
	return IB_SUCCESS;
}

ib_api_status_t al_ioc_guids_alloc(ib_net64_t **pp_guids, size_t *p_count)
{
	disc_model_t none, m;
	ib_al_handle_t h_al;
	uint32_t stop = 0;
	ib_api_status_t st;

	al_pnp_lock();
	if (g_sw && g_sw->swept) {
		st = guids_of(&g_sw->model, pp_guids, p_count);
		al_pnp_unlock();
		return st;
	}
	al_pnp_unlock();
	*pp_guids = NULL;
	*p_count = 0;
	if (al_is_cb_thread())
		return IB_SUCCESS; /* a sweep waits for callbacks: none from here */
	st = ib_open_al(&h_al);
	if (st != IB_SUCCESS)
		return st;
	memset(&none, 0, sizeof(none));
	st = sweep(h_al, &none, &m, &stop);
	ib_close_al(h_al);
	if (st != IB_SUCCESS)
		return IB_SUCCESS; /* no SA: none known */
	st = guids_of(&m, pp_guids, p_count);
	model_free(&m);
	return st;
}

ib_api_status_t al_ioc_read_unit(al_ioc_dm_get_fn get, void *ctx, uint32_t *p_n_ioc,
				 uint32_t *p_n_svc)
{
	disc_model_t one;
	disc_iou_t u;
	ib_iou_info_t info;
	ib_api_status_t st;
	uint32_t i;

	if (!get || !p_n_ioc || !p_n_svc)
		return IB_INVALID_PARAMETER;
	memset(&u, 0, sizeof(u));
	*p_n_ioc = *p_n_svc = 0;
	st = get(ctx, IB_MAD_ATTR_IO_UNIT_INFO, 0, &info, sizeof(info));
	if (st == IB_SUCCESS) {
		u.change_id = info.change_id;
		st = read_iocs(get, ctx, &info, &u);
	}
	*p_n_ioc = u.n_ioc;
	for (i = 0; i < u.n_ioc; i++)
		*p_n_svc += u.p_ioc[i].info.profile.num_svc_entries;
	one.n_iou = 1;
	one.p_iou = &u;
	model_free_units(&one);
	return st;
}
