/*
 * ibal access layer: PnP registrations (ib_reg_pnp, ib_dereg_pnp, ib_reject_ioc) and their delivery.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The PnP manager keeps a model of every CA of every loaded provider: the
 * provider CA (acquired, so that its ports stay attached and its upcalls
 * come) and a snapshot of its attributes. It runs while registrations
 * exist: the first ib_reg_pnp() starts it, the cleanup of the last
 * registration stops it. A provider's port_change upcall pokes its thread,
 * which re-reads the CAs (a rescan) and turns the differences into events:
 * CA added or gone, port link state, LID/LMC, P_Key table, GID table, SM,
 * subnet timeout. A registration made later gets the current state first:
 * IB_PNP_CA_ADD per CA, or IB_PNP_PORT_ADD per port followed by the event
 * of the port's state (IB_PNP_PORT_INIT, _ARMED or _ACTIVE), then
 * IB_PNP_REG_COMPLETE when asked for.
 *
 * Events are queued on the registration's object, so the AL callback
 * threads deliver them in order, one at a time per registration, with no
 * lock held. Each registration keeps one pnp_dev_t per device it was told
 * of: the user's context (read and written only by the callbacks, which
 * never run concurrently for one registration) and whether the user
 * declined the device. Attribute snapshots are shared, reference counted
 * and never changed once made.
 *
 * A client of the core that watches the ports (al_client_watch_ports(),
 * al_client.h) has a registration of the port class too, without a handle
 * or an AL instance: its PORT_ADD and PORT_REMOVE events go to the client's
 * port_added and port_removed, the other port events nowhere.
 *
 * The IOU and IOC classes share the registrations and the delivery; what
 * they report comes from the IOC discovery (al_ioc_pnp.c), which calls
 * al_pnp_ioc_event() with pnp_lock held for every change it finds and
 * al_ioc_pnp_announce() tells a new registration of what is known. Their
 * initial state is complete once the discovery made its first sweep: a
 * registration made before waits for it for IB_PNP_REG_COMPLETE and
 * IB_PNP_FLAG_REG_SYNC (al_pnp_ioc_swept()).
 *
 * Locks: life_lock serializes starting and stopping; pnp_lock guards the
 * model and the registration lists and is taken before the manager's
 * mgr_lock (al_mgr.c); the upcall takes only poke_lock, so provider
 * threads never wait for a rescan.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include <complib/cl_thread.h>
#include "al_verbs.h"
#include "al_client.h"

/* An attribute snapshot shared by the events made from it. */
typedef struct pnp_snap {
	uint32_t ref;                /* atomic */
	ib_ca_attr_t *p_attr;        /* cl_malloc'd, never changed */
} pnp_snap_t;

/* A CA of the model. */
typedef struct pnp_ca {
	cl_list_item_t item;         /* on ca_list */
	ib_net64_t guid;
	al_ci_ca_t *p_ci;            /* acquired */
	pnp_snap_t *p_snap;          /* the last attributes read */
	boolean_t seen;              /* scratch of a rescan */
} pnp_ca_t;

/* A device (CA or port) as one registration knows it. */
typedef struct pnp_dev {
	cl_list_item_t item;         /* on al_pnp_t::devs while it exists */
	ib_net64_t guid;             /* CA GUID or port GUID */
	void *context;               /* the user's (callbacks only) */
	uint32_t declined;           /* atomic: a callback returned an error, or ib_reject_ioc() */
	uint64_t ioc_id;             /* IOC class: the h_ioc_event of its events */
} pnp_dev_t;

/* A registration. */
typedef struct al_pnp {
	al_obj_t obj;
	cl_list_item_t item;         /* on reg_list while listed (pnp_lock) */
	boolean_t listed;
	uint32_t pnp_class;          /* IB_PNP_CA, IB_PNP_PORT, IB_PNP_IOU or IB_PNP_IOC */
	al_inst_t *p_inst;           /* its AL instance (ib_reject_ioc) */
	ib_pnp_handle_t h;           /* the handle, for the records */
	const void *pnp_context;
	ib_pfn_pnp_cb_t pfn;
	cl_qlist_t devs;             /* pnp_dev_t (pnp_lock) */
	uint32_t dereg;              /* atomic: being destroyed, no more user callbacks */
	/* A client's watch of the ports (al_client_watch_ports()): no handle,
	 * no instance; its port events go to the client's callbacks. */
	const al_client_t *p_client;
	void *client_ctx;
	/* IOU/IOC: what waits for the discovery's first sweep (pnp_lock). */
	boolean_t pending;
	ib_pnp_event_t pending_ev;   /* IB_PNP_REG_COMPLETE or 0 */
	struct pnp_sync *p_pending_sync;
} al_pnp_t;

/* What ib_reg_pnp() waits on for IB_PNP_FLAG_REG_SYNC. */
typedef struct pnp_sync {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	boolean_t done;
} pnp_sync_t;

/* One queued event. */
typedef struct pnp_event {
	al_pnp_t *p_reg;
	ib_pnp_event_t event;        /* 0: only signal p_sync */
	pnp_dev_t *p_dev;            /* NULL for IB_PNP_REG_COMPLETE */
	pnp_snap_t *p_snap;          /* NULL for removals */
	uint8_t port_idx;            /* port events: index in p_port_attr */
	ib_net64_t ca_guid;
	ib_net64_t guid;
	boolean_t free_dev;          /* a removal: p_dev goes with the event */
	pnp_sync_t *p_sync;          /* signaled after the event */
	void *p_rec;                 /* IOU/IOC: the whole record (cl_malloc'd) */
} pnp_event_t;

static pthread_mutex_t life_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t n_regs;              /* life_lock */
static pthread_mutex_t pnp_lock = PTHREAD_MUTEX_INITIALIZER;
static cl_qlist_t ca_list;           /* pnp_ca_t */
static cl_qlist_t reg_list;          /* al_pnp_t */
static cl_thread_t pnp_thread;
static pthread_mutex_t poke_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t poke_cond = PTHREAD_COND_INITIALIZER;
static boolean_t poked, stopping, running; /* poke_lock */
static uint64_t next_ioc_id = 1;     /* pnp_lock */

static boolean_t is_ioc_class(uint32_t pnp_class)
{
	return pnp_class == IB_PNP_IOU || pnp_class == IB_PNP_IOC;
}

/* The event removes its device (a path removal does not). */
static boolean_t is_dev_removal(ib_pnp_event_t event)
{
	return (event & IB_PNP_EVENT_REMOVE) && !(event & IB_PNP_EVENT_PATH);
}

/* The PnP event announcing each link state (IB_LINK_*); 0: none. */
static const ib_pnp_event_t state_event[] = {
	[IB_LINK_DOWN] = IB_PNP_PORT_DOWN,
	[IB_LINK_INIT] = IB_PNP_PORT_INIT,
	[IB_LINK_ARMED] = IB_PNP_PORT_ARMED,
	[IB_LINK_ACTIVE] = IB_PNP_PORT_ACTIVE,
	[IB_LINK_ACT_DEFER] = IB_PNP_PORT_ACTIVE,
};

static ib_pnp_event_t event_of_state(uint8_t state)
{
	return state < sizeof(state_event) / sizeof(state_event[0]) ? state_event[state] : 0;
}

/* ---- Snapshots ---- */

static pnp_snap_t *snap_read(al_ci_ca_t *p_ci)
{
	pnp_snap_t *p_snap = (pnp_snap_t *)cl_zalloc(sizeof(*p_snap));

	if (!p_snap)
		return NULL;
	if (al_ci_ca_query_alloc(p_ci, &p_snap->p_attr) != IB_SUCCESS) {
		cl_free(p_snap);
		return NULL;
	}
	p_snap->ref = 1;
	return p_snap;
}

static pnp_snap_t *snap_get(pnp_snap_t *p_snap)
{
	if (p_snap)
		__atomic_add_fetch(&p_snap->ref, 1, __ATOMIC_RELAXED);
	return p_snap;
}

static void snap_put(pnp_snap_t *p_snap)
{
	if (p_snap && !__atomic_sub_fetch(&p_snap->ref, 1, __ATOMIC_ACQ_REL)) {
		cl_free(p_snap->p_attr);
		cl_free(p_snap);
	}
}

/* ---- Delivery ---- */

static void sync_signal(pnp_sync_t *p_sync)
{
	pthread_mutex_lock(&p_sync->lock);
	p_sync->done = TRUE;
	pthread_cond_signal(&p_sync->cond);
	pthread_mutex_unlock(&p_sync->lock);
}

/* Tells a watching client of a port added or removed (other events of
 * the port class are not a client's). */
static void deliver_client(const al_pnp_t *p_reg, const pnp_event_t *p_ev)
{
	const al_client_t *c = p_reg->p_client;
	const ib_ca_attr_t *p_attr = p_ev->p_snap ? p_ev->p_snap->p_attr : NULL;
	al_client_port_t port;

	port.ca_guid = p_ev->ca_guid;
	port.port_guid = p_ev->guid;
	port.port_num = p_attr ? p_attr->p_port_attr[p_ev->port_idx].port_num
			       : (uint8_t)(p_ev->port_idx + 1);
	if (p_ev->event == IB_PNP_PORT_ADD && c->port_added)
		c->port_added(p_reg->client_ctx, &port);
	else if (p_ev->event == IB_PNP_PORT_REMOVE && c->port_removed)
		c->port_removed(p_reg->client_ctx, &port);
}

/* Calls the user back with the record of one event. */
static void deliver(pnp_event_t *p_ev)
{
	al_pnp_t *p_reg = p_ev->p_reg;
	union {
		ib_pnp_rec_t base;
		ib_pnp_ca_rec_t ca;
		ib_pnp_port_rec_t port;
	} rec;
	ib_ca_attr_t *p_attr = p_ev->p_snap ? p_ev->p_snap->p_attr : NULL;
	ib_pnp_rec_t *p_base = p_ev->p_rec ? (ib_pnp_rec_t *)p_ev->p_rec : &rec.base;
	ib_api_status_t st;

	memset(&rec, 0, sizeof(rec));
	p_base->pnp_event = p_ev->event;
	p_base->h_pnp = p_reg->h;
	p_base->pnp_context = (void *)(uintptr_t)p_reg->pnp_context;
	p_base->context = p_ev->p_dev ? p_ev->p_dev->context : NULL;
	p_base->guid = p_ev->guid;
	p_base->ca_guid = p_ev->ca_guid;
	if (p_ev->event == IB_PNP_IOC_ADD && p_ev->p_dev)
		p_base->h_ioc_event = (ib_pnp_handle_t)(uintptr_t)p_ev->p_dev->ioc_id;
	if (p_ev->p_rec) {
		/* the record was made by the discovery */
	} else if (p_reg->pnp_class == IB_PNP_CA) {
		rec.ca.p_ca_attr = p_attr;
	} else if (p_attr) {
		rec.port.p_ca_attr = p_attr;
		rec.port.p_port_attr = &p_attr->p_port_attr[p_ev->port_idx];
	}
	st = p_reg->pfn(p_base);
	if (!p_ev->p_dev)
		return;
	if (st != IB_SUCCESS && !(p_ev->event & IB_PNP_EVENT_REMOVE))
		__atomic_store_n(&p_ev->p_dev->declined, 1, __ATOMIC_RELEASE);
	else
		p_ev->p_dev->context = p_base->context;
}

static void event_done(pnp_event_t *p_ev)
{
	if (p_ev->free_dev)
		cl_free(p_ev->p_dev);
	snap_put(p_ev->p_snap);
	cl_free(p_ev->p_rec);
	if (p_ev->p_sync)
		sync_signal(p_ev->p_sync);
	cl_free(p_ev);
}

static void run_event(void *context)
{
	pnp_event_t *p_ev = (pnp_event_t *)context;
	boolean_t live = p_ev->event && !__atomic_load_n(&p_ev->p_reg->dereg, __ATOMIC_ACQUIRE);

	if (live && p_ev->p_reg->p_client)
		deliver_client(p_ev->p_reg, p_ev);
	else if (live && !(p_ev->p_dev && __atomic_load_n(&p_ev->p_dev->declined, __ATOMIC_ACQUIRE)))
		deliver(p_ev);
	event_done(p_ev);
}

/* pnp_lock held: queues an event on a registration. A removal's device
 * must already be off the registration's list. */
static void queue_event_rec(al_pnp_t *p_reg, ib_pnp_event_t event, pnp_dev_t *p_dev,
			    pnp_snap_t *p_snap, uint8_t port_idx, ib_net64_t ca_guid,
			    ib_net64_t guid, pnp_sync_t *p_sync, void *p_rec)
{
	pnp_event_t *p_ev = (pnp_event_t *)cl_zalloc(sizeof(*p_ev));

	if (!p_ev) {
		cl_free(p_rec);
		/* Out of memory: the event is lost, but nothing leaks and a
		 * synchronous registration still returns. */
		if (p_dev && is_dev_removal(event))
			cl_free(p_dev);
		if (p_sync)
			sync_signal(p_sync);
		return;
	}
	p_ev->p_reg = p_reg;
	p_ev->event = event;
	p_ev->p_dev = p_dev;
	p_ev->p_snap = (event & IB_PNP_EVENT_REMOVE) ? NULL : snap_get(p_snap);
	p_ev->port_idx = port_idx;
	p_ev->ca_guid = ca_guid;
	p_ev->guid = guid;
	p_ev->free_dev = p_dev && is_dev_removal(event);
	p_ev->p_sync = p_sync;
	p_ev->p_rec = p_rec;
	if (al_obj_queue_callback(&p_reg->obj, run_event, p_ev) != IB_SUCCESS)
		event_done(p_ev);
}

static void queue_event(al_pnp_t *p_reg, ib_pnp_event_t event, pnp_dev_t *p_dev,
			pnp_snap_t *p_snap, uint8_t port_idx, ib_net64_t ca_guid, ib_net64_t guid,
			pnp_sync_t *p_sync)
{
	queue_event_rec(p_reg, event, p_dev, p_snap, port_idx, ca_guid, guid, p_sync, NULL);
}

/* ---- Devices of a registration (pnp_lock held) ---- */

static pnp_dev_t *dev_find(al_pnp_t *p_reg, ib_net64_t guid)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&p_reg->devs); it != cl_qlist_end(&p_reg->devs);
	     it = cl_qlist_next(it))
		if (((pnp_dev_t *)it)->guid == guid)
			return (pnp_dev_t *)it;
	return NULL;
}

static pnp_dev_t *dev_add(al_pnp_t *p_reg, ib_net64_t guid)
{
	pnp_dev_t *p_dev = (pnp_dev_t *)cl_zalloc(sizeof(*p_dev));

	if (p_dev) {
		p_dev->guid = guid;
		cl_qlist_insert_tail(&p_reg->devs, &p_dev->item);
	}
	return p_dev;
}

/* ---- Announcements (pnp_lock held) ---- */

/* Tells one registration of a CA that is there. */
static void announce_ca(al_pnp_t *p_reg, const pnp_ca_t *p_ca)
{
	const ib_ca_attr_t *p_attr = p_ca->p_snap->p_attr;
	pnp_dev_t *p_dev;
	uint8_t i;

	if (is_ioc_class(p_reg->pnp_class))
		return;
	if (p_reg->pnp_class == IB_PNP_CA) {
		p_dev = dev_add(p_reg, p_ca->guid);
		if (p_dev)
			queue_event(p_reg, IB_PNP_CA_ADD, p_dev, p_ca->p_snap, 0, p_ca->guid,
				    p_ca->guid, NULL);
		return;
	}
	for (i = 0; i < p_attr->num_ports; i++) {
		const ib_port_attr_t *pa = &p_attr->p_port_attr[i];
		ib_pnp_event_t st_ev = pa->link_state == IB_LINK_DOWN ? 0
								    : event_of_state(pa->link_state);

		p_dev = dev_add(p_reg, pa->port_guid);
		if (!p_dev)
			continue;
		queue_event(p_reg, IB_PNP_PORT_ADD, p_dev, p_ca->p_snap, i, p_ca->guid,
			    pa->port_guid, NULL);
		if (st_ev)
			queue_event(p_reg, st_ev, p_dev, p_ca->p_snap, i, p_ca->guid,
				    pa->port_guid, NULL);
	}
}

/* Tells one registration that a CA is gone (ports first). */
static void announce_gone(al_pnp_t *p_reg, const pnp_ca_t *p_ca)
{
	const ib_ca_attr_t *p_attr = p_ca->p_snap->p_attr;
	pnp_dev_t *p_dev;
	int i;

	if (is_ioc_class(p_reg->pnp_class))
		return;
	if (p_reg->pnp_class == IB_PNP_CA) {
		p_dev = dev_find(p_reg, p_ca->guid);
		if (p_dev) {
			cl_qlist_remove_item(&p_reg->devs, &p_dev->item);
			queue_event(p_reg, IB_PNP_CA_REMOVE, p_dev, NULL, 0, p_ca->guid,
				    p_ca->guid, NULL);
		}
		return;
	}
	for (i = p_attr->num_ports - 1; i >= 0; i--) {
		ib_net64_t g = p_attr->p_port_attr[i].port_guid;

		p_dev = dev_find(p_reg, g);
		if (!p_dev)
			continue;
		cl_qlist_remove_item(&p_reg->devs, &p_dev->item);
		queue_event(p_reg, IB_PNP_PORT_REMOVE, p_dev, NULL, (uint8_t)i, p_ca->guid, g, NULL);
	}
}

static boolean_t tables_differ(const void *a, uint16_t na, const void *b, uint16_t nb,
			       size_t elem)
{
	return na != nb || (na && (!a || !b || memcmp(a, b, na * elem)));
}

/* The events telling how a port changed from @p o to @p n, in delivery
 * order: a state other than ACTIVE first, the attribute changes, ACTIVE
 * last (so a client acting on it sees everything else first). */
static unsigned port_diff(const ib_port_attr_t *o, const ib_port_attr_t *n, ib_pnp_event_t *ev)
{
	boolean_t state = o->link_state != n->link_state;
	boolean_t up = state && event_of_state(n->link_state) == IB_PNP_PORT_ACTIVE;
	unsigned k = 0;

	if (state && !up && event_of_state(n->link_state))
		ev[k++] = event_of_state(n->link_state);
	if (o->lid != n->lid || o->lmc != n->lmc)
		ev[k++] = IB_PNP_LID_CHANGE;
	if (tables_differ(o->p_pkey_table, o->num_pkeys, n->p_pkey_table, n->num_pkeys,
			  sizeof(ib_net16_t)))
		ev[k++] = IB_PNP_PKEY_CHANGE;
	if (tables_differ(o->p_gid_table, o->num_gids, n->p_gid_table, n->num_gids,
			  sizeof(ib_gid_t)))
		ev[k++] = IB_PNP_GID_CHANGE;
	if (o->sm_lid != n->sm_lid || o->sm_sl != n->sm_sl)
		ev[k++] = IB_PNP_SM_CHANGE;
	if (o->subnet_timeout != n->subnet_timeout)
		ev[k++] = IB_PNP_SUBNET_TIMEOUT_CHANGE;
	if (up)
		ev[k++] = IB_PNP_PORT_ACTIVE;
	return k;
}

/* Tells the port registrations how a CA's ports changed. */
static void announce_changes(const pnp_ca_t *p_ca, const pnp_snap_t *p_old)
{
	const ib_ca_attr_t *o = p_old->p_attr, *n = p_ca->p_snap->p_attr;
	ib_pnp_event_t ev[8];
	cl_list_item_t *it;
	unsigned k, j;
	uint8_t i;

	for (i = 0; i < n->num_ports && i < o->num_ports; i++) {
		const ib_port_attr_t *pn = &n->p_port_attr[i];

		k = port_diff(&o->p_port_attr[i], pn, ev);
		if (!k)
			continue;
		for (it = cl_qlist_head(&reg_list); it != cl_qlist_end(&reg_list);
		     it = cl_qlist_next(it)) {
			al_pnp_t *p_reg = PARENT_STRUCT(it, al_pnp_t, item);
			pnp_dev_t *p_dev;

			if (p_reg->pnp_class != IB_PNP_PORT)
				continue;
			p_dev = dev_find(p_reg, pn->port_guid);
			for (j = 0; p_dev && j < k; j++)
				queue_event(p_reg, ev[j], p_dev, p_ca->p_snap, i, p_ca->guid,
					    pn->port_guid, NULL);
		}
	}
}

/* ---- The model ---- */

static void model_drop(pnp_ca_t *p_ca)
{
	cl_qlist_remove_item(&ca_list, &p_ca->item);
	al_ci_ca_release(p_ca->p_ci);
	snap_put(p_ca->p_snap);
	cl_free(p_ca);
}

static pnp_ca_t *model_find(ib_net64_t guid)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&ca_list); it != cl_qlist_end(&ca_list); it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, pnp_ca_t, item)->guid == guid)
			return PARENT_STRUCT(it, pnp_ca_t, item);
	return NULL;
}

/* A CA that appeared: into the model, and announced. */
static void model_add(ib_net64_t guid)
{
	pnp_ca_t *p_ca = (pnp_ca_t *)cl_zalloc(sizeof(*p_ca));
	cl_list_item_t *it;

	if (!p_ca)
		return;
	p_ca->guid = guid;
	if (al_ci_ca_acquire(guid, &p_ca->p_ci) != IB_SUCCESS) {
		cl_free(p_ca);
		return;
	}
	p_ca->p_snap = snap_read(p_ca->p_ci);
	if (!p_ca->p_snap) {
		al_ci_ca_release(p_ca->p_ci);
		cl_free(p_ca);
		return;
	}
	p_ca->seen = TRUE;
	cl_qlist_insert_tail(&ca_list, &p_ca->item);
	for (it = cl_qlist_head(&reg_list); it != cl_qlist_end(&reg_list); it = cl_qlist_next(it))
		announce_ca(PARENT_STRUCT(it, al_pnp_t, item), p_ca);
}

/* A CA still there: re-read, and announce what changed. */
static void model_update(pnp_ca_t *p_ca)
{
	pnp_snap_t *p_new = snap_read(p_ca->p_ci), *p_old = p_ca->p_snap;

	p_ca->seen = TRUE;
	if (!p_new)
		return;
	p_ca->p_snap = p_new;
	announce_changes(p_ca, p_old);
	snap_put(p_old);
}

/* pnp_lock held: brings the model up to date, announcing the changes. */
static void rescan(void)
{
	ib_net64_t *guids = NULL;
	cl_list_item_t *it, *next;
	size_t n = 0, i;

	if (al_ca_guids_alloc(&guids, &n) != IB_SUCCESS)
		return;
	for (it = cl_qlist_head(&ca_list); it != cl_qlist_end(&ca_list); it = cl_qlist_next(it))
		PARENT_STRUCT(it, pnp_ca_t, item)->seen = FALSE;
	for (i = 0; i < n; i++) {
		pnp_ca_t *p_ca = model_find(guids[i]);

		if (p_ca)
			model_update(p_ca);
		else
			model_add(guids[i]);
	}
	cl_free(guids);
	for (it = cl_qlist_head(&ca_list); it != cl_qlist_end(&ca_list); it = next) {
		pnp_ca_t *p_ca = PARENT_STRUCT(it, pnp_ca_t, item);
		cl_list_item_t *r;

		next = cl_qlist_next(it);
		if (p_ca->seen)
			continue;
		for (r = cl_qlist_head(&reg_list); r != cl_qlist_end(&reg_list); r = cl_qlist_next(r))
			announce_gone(PARENT_STRUCT(r, al_pnp_t, item), p_ca);
		model_drop(p_ca);
	}
}

/* ---- The manager's thread and lifetime ---- */

void al_pnp_poke(void)
{
	pthread_mutex_lock(&poke_lock);
	if (running) {
		poked = TRUE;
		pthread_cond_signal(&poke_cond);
	}
	pthread_mutex_unlock(&poke_lock);
}

static void pnp_main(void *context)
{
	(void)context;
	for (;;) {
		pthread_mutex_lock(&poke_lock);
		while (!poked && !stopping)
			pthread_cond_wait(&poke_cond, &poke_lock);
		poked = FALSE;
		if (stopping) {
			pthread_mutex_unlock(&poke_lock);
			return;
		}
		pthread_mutex_unlock(&poke_lock);
		pthread_mutex_lock(&pnp_lock);
		rescan();
		pthread_mutex_unlock(&pnp_lock);
	}
}

/* life_lock held: the first registration starts the manager. */
static ib_api_status_t pnp_start(void)
{
	cl_qlist_init(&ca_list);
	cl_qlist_init(&reg_list);
	pthread_mutex_lock(&poke_lock);
	poked = stopping = FALSE;
	running = TRUE;
	pthread_mutex_unlock(&poke_lock);
	cl_thread_construct(&pnp_thread);
	if (cl_thread_init(&pnp_thread, pnp_main, NULL, "al-pnp") != CL_SUCCESS) {
		pthread_mutex_lock(&poke_lock);
		running = FALSE;
		pthread_mutex_unlock(&poke_lock);
		return IB_ERROR;
	}
	return IB_SUCCESS;
}

/* life_lock held: the last registration is gone. */
static void pnp_stop(void)
{
	pthread_mutex_lock(&poke_lock);
	stopping = TRUE;
	running = FALSE;
	pthread_cond_signal(&poke_cond);
	pthread_mutex_unlock(&poke_lock);
	cl_thread_destroy(&pnp_thread);
	pthread_mutex_lock(&pnp_lock);
	while (cl_qlist_count(&ca_list))
		model_drop(PARENT_STRUCT(cl_qlist_head(&ca_list), pnp_ca_t, item));
	pthread_mutex_unlock(&pnp_lock);
}

static ib_api_status_t pnp_use(void)
{
	ib_api_status_t st = IB_SUCCESS;

	pthread_mutex_lock(&life_lock);
	if (!n_regs)
		st = pnp_start();
	if (st == IB_SUCCESS)
		n_regs++;
	pthread_mutex_unlock(&life_lock);
	return st;
}

static void pnp_unuse(void)
{
	pthread_mutex_lock(&life_lock);
	if (!--n_regs)
		pnp_stop();
	pthread_mutex_unlock(&life_lock);
}

/* ---- Registrations ---- */

static void reg_destroying(al_obj_t *p_obj)
{
	al_pnp_t *p_reg = PARENT_STRUCT(p_obj, al_pnp_t, obj);

	pnp_sync_t *p_sync;

	__atomic_store_n(&p_reg->dereg, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&pnp_lock);
	if (p_reg->listed)
		cl_qlist_remove_item(&reg_list, &p_reg->item);
	p_reg->listed = FALSE;
	p_sync = p_reg->p_pending_sync;
	p_reg->p_pending_sync = NULL;
	p_reg->pending = FALSE;
	pthread_mutex_unlock(&pnp_lock);
	if (p_sync)
		sync_signal(p_sync); /* ib_reg_pnp() waiting for the first sweep returns */
}

static void reg_cleanup(al_obj_t *p_obj)
{
	al_pnp_t *p_reg = PARENT_STRUCT(p_obj, al_pnp_t, obj);

	while (cl_qlist_count(&p_reg->devs))
		cl_free(cl_qlist_remove_head(&p_reg->devs));
	if (is_ioc_class(p_reg->pnp_class))
		al_ioc_pnp_unuse();
	pnp_unuse();
}

static void reg_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_pnp_t, obj));
}

/* Checks a request: IB_SUCCESS, or the status to return. */
static ib_api_status_t check_req(const ib_pnp_req_t *p_req)
{
	uint32_t cls = p_req->pnp_class & IB_PNP_CLASS_MASK;

	if (!p_req->pfn_pnp_cb ||
	    (p_req->pnp_class & ~(IB_PNP_CLASS_MASK | IB_PNP_FLAG_REG_SYNC |
				  IB_PNP_FLAG_REG_COMPLETE)))
		return IB_INVALID_PARAMETER;
	if (cls != IB_PNP_CA && cls != IB_PNP_PORT && !is_ioc_class(cls))
		return IB_INVALID_PARAMETER;
	if ((p_req->pnp_class & IB_PNP_FLAG_REG_SYNC) && al_is_cb_thread())
		return IB_INVALID_STATE;
	return IB_SUCCESS;
}

/* Makes the registration object; on failure nothing is left. */
static ib_api_status_t reg_create(al_inst_t *p_al, const ib_pnp_req_t *p_req, al_pnp_t **pp_reg)
{
	al_pnp_t *p_reg = (al_pnp_t *)cl_zalloc(sizeof(*p_reg));
	ib_api_status_t st;

	if (!p_reg)
		return IB_INSUFFICIENT_MEMORY;
	p_reg->pnp_class = p_req->pnp_class & IB_PNP_CLASS_MASK;
	p_reg->pnp_context = p_req->pnp_context;
	p_reg->pfn = p_req->pfn_pnp_cb;
	p_reg->p_inst = p_al;
	cl_qlist_init(&p_reg->devs);
	st = pnp_use();
	if (st == IB_SUCCESS && is_ioc_class(p_reg->pnp_class)) {
		st = al_ioc_pnp_use();
		if (st != IB_SUCCESS)
			pnp_unuse();
	}
	if (st != IB_SUCCESS) {
		cl_free(p_reg);
		return st;
	}
	al_obj_construct(&p_reg->obj, AL_HDL_PNP);
	st = al_obj_init(&p_reg->obj, &p_al->obj, p_req->pnp_context, reg_destroying,
			 reg_cleanup, reg_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_reg->obj);
		if (is_ioc_class(p_reg->pnp_class))
			al_ioc_pnp_unuse();
		cl_free(p_reg);
		pnp_unuse();
		return st;
	}
	st = al_obj_insert_handle(&p_reg->obj);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_reg->obj, ib_sync_destroy);
		return st;
	}
	p_reg->h = (ib_pnp_handle_t)al_obj_h(&p_reg->obj);
	*pp_reg = p_reg;
	return IB_SUCCESS;
}

ib_api_status_t ib_reg_pnp(const ib_al_handle_t h_al, const ib_pnp_req_t *const p_pnp_req,
			   ib_pnp_handle_t *const ph_pnp)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	al_pnp_t *p_reg = NULL;
	pnp_sync_t sync, *p_sync = NULL;
	ib_pnp_event_t complete;
	cl_list_item_t *it;
	ib_api_status_t st;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	st = (!p_pnp_req || !ph_pnp) ? IB_INVALID_PARAMETER : check_req(p_pnp_req);
	if (st == IB_SUCCESS)
		st = reg_create(p_al, p_pnp_req, &p_reg);
	if (st != IB_SUCCESS) {
		AL_EXIT(h_al);
		return st;
	}
	if (p_pnp_req->pnp_class & IB_PNP_FLAG_REG_SYNC) {
		pthread_mutex_init(&sync.lock, NULL);
		pthread_cond_init(&sync.cond, NULL);
		sync.done = FALSE;
		p_sync = &sync;
	}
	*ph_pnp = p_reg->h;
	complete = (p_pnp_req->pnp_class & IB_PNP_FLAG_REG_COMPLETE) ? IB_PNP_REG_COMPLETE : 0;
	pthread_mutex_lock(&pnp_lock);
	rescan();
	cl_qlist_insert_tail(&reg_list, &p_reg->item);
	p_reg->listed = TRUE;
	if (is_ioc_class(p_reg->pnp_class) && !al_ioc_pnp_ready()) {
		/* The first sweep will report what is there, then complete. */
		p_reg->pending = TRUE;
		p_reg->pending_ev = complete;
		p_reg->p_pending_sync = p_sync;
	} else {
		if (is_ioc_class(p_reg->pnp_class))
			al_ioc_pnp_announce(p_reg, p_reg->pnp_class);
		for (it = cl_qlist_head(&ca_list); it != cl_qlist_end(&ca_list);
		     it = cl_qlist_next(it))
			announce_ca(p_reg, PARENT_STRUCT(it, pnp_ca_t, item));
		if (p_sync || complete)
			queue_event(p_reg, complete, NULL, NULL, 0, 0, 0, p_sync);
	}
	pthread_mutex_unlock(&pnp_lock);
	AL_EXIT(h_al);
	if (p_sync) {
		pthread_mutex_lock(&sync.lock);
		while (!sync.done)
			pthread_cond_wait(&sync.cond, &sync.lock);
		pthread_mutex_unlock(&sync.lock);
		pthread_cond_destroy(&sync.cond);
		pthread_mutex_destroy(&sync.lock);
	}
	return IB_SUCCESS;
}

ib_api_status_t ib_dereg_pnp(const ib_pnp_handle_t h_pnp, const ib_pfn_destroy_cb_t pfn_destroy_cb)
{
	return al_destroy_handle((void *)h_pnp, AL_HDL_PNP, pfn_destroy_cb, IB_INVALID_HANDLE);
}

/* ---- Clients' watches of the ports (al_client.h) ---- */

#define AL_OBJ_TYPE_PORT_WATCH (AL_OBJ_TYPE_INTERNAL + 0x50)

ib_api_status_t al_client_watch_ports(const al_client_t *p_client, void *context,
				      struct al_pnp **pp_watch)
{
	al_pnp_t *p_reg;
	cl_list_item_t *it;
	ib_api_status_t st;

	if (!p_client || !pp_watch)
		return IB_INVALID_PARAMETER;
	p_reg = (al_pnp_t *)cl_zalloc(sizeof(*p_reg));
	if (!p_reg)
		return IB_INSUFFICIENT_MEMORY;
	p_reg->pnp_class = IB_PNP_PORT;
	p_reg->p_client = p_client;
	p_reg->client_ctx = context;
	cl_qlist_init(&p_reg->devs);
	st = pnp_use();
	if (st != IB_SUCCESS) {
		cl_free(p_reg);
		return st;
	}
	al_obj_construct(&p_reg->obj, AL_OBJ_TYPE_PORT_WATCH);
	st = al_obj_init(&p_reg->obj, NULL, context, reg_destroying, reg_cleanup, reg_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_reg->obj);
		cl_free(p_reg);
		pnp_unuse();
		return st;
	}
	pthread_mutex_lock(&pnp_lock);
	rescan();
	cl_qlist_insert_tail(&reg_list, &p_reg->item);
	p_reg->listed = TRUE;
	for (it = cl_qlist_head(&ca_list); it != cl_qlist_end(&ca_list); it = cl_qlist_next(it))
		announce_ca(p_reg, PARENT_STRUCT(it, pnp_ca_t, item));
	pthread_mutex_unlock(&pnp_lock);
	*pp_watch = p_reg;
	return IB_SUCCESS;
}

void al_client_unwatch_ports(struct al_pnp *p_watch)
{
	if (p_watch)
		al_obj_destroy(&p_watch->obj, ib_sync_destroy);
}

/* ---- The IOU and IOC classes (al_ioc_pnp.c reports) ---- */

void al_pnp_lock(void)
{
	pthread_mutex_lock(&pnp_lock);
}

void al_pnp_unlock(void)
{
	pthread_mutex_unlock(&pnp_lock);
}

/* pnp_lock held: one IOU/IOC event for one registration. */
static void ioc_event_one(al_pnp_t *p_reg, ib_pnp_event_t event, ib_net64_t guid,
			  ib_net64_t ca_guid, const void *p_rec, size_t rec_size)
{
	pnp_dev_t *p_dev = dev_find(p_reg, guid);
	void *p_copy;

	if ((event & IB_PNP_EVENT_ADD) && !(event & IB_PNP_EVENT_PATH)) {
		if (p_dev)
			return; /* already told */
		p_dev = dev_add(p_reg, guid);
		if (!p_dev)
			return;
		if (event == IB_PNP_IOC_ADD)
			p_dev->ioc_id = next_ioc_id++;
	} else if (!p_dev) {
		return; /* never told of it */
	} else if (is_dev_removal(event)) {
		cl_qlist_remove_item(&p_reg->devs, &p_dev->item);
	}
	p_copy = cl_malloc(rec_size);
	if (!p_copy) {
		if (is_dev_removal(event))
			cl_free(p_dev);
		return;
	}
	memcpy(p_copy, p_rec, rec_size);
	queue_event_rec(p_reg, event, p_dev, NULL, 0, ca_guid, guid, NULL, p_copy);
}

void al_pnp_ioc_event(struct al_pnp *p_reg, ib_pnp_event_t event, ib_net64_t guid,
		      ib_net64_t ca_guid, const void *p_rec, size_t rec_size)
{
	uint32_t cls = event & IB_PNP_CLASS_MASK;
	cl_list_item_t *it;

	if (p_reg) {
		ioc_event_one(p_reg, event, guid, ca_guid, p_rec, rec_size);
		return;
	}
	for (it = cl_qlist_head(&reg_list); it != cl_qlist_end(&reg_list); it = cl_qlist_next(it)) {
		al_pnp_t *p = PARENT_STRUCT(it, al_pnp_t, item);

		if (p->pnp_class == cls)
			ioc_event_one(p, event, guid, ca_guid, p_rec, rec_size);
	}
}

void al_pnp_ioc_swept(void)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&reg_list); it != cl_qlist_end(&reg_list); it = cl_qlist_next(it)) {
		al_pnp_t *p = PARENT_STRUCT(it, al_pnp_t, item);

		if (!p->pending)
			continue;
		p->pending = FALSE;
		if (p->pending_ev || p->p_pending_sync)
			queue_event(p, p->pending_ev, NULL, NULL, 0, 0, 0, p->p_pending_sync);
		p->p_pending_sync = NULL;
	}
}

ib_api_status_t ib_reject_ioc(const ib_al_handle_t h_al, const ib_pnp_handle_t h_ioc_event)
{
	al_inst_t *p_al = al_inst_enter(h_al);
	uint64_t id = (uint64_t)(uintptr_t)h_ioc_event;
	ib_api_status_t st = IB_INVALID_HANDLE;
	cl_list_item_t *it, *d;

	if (!p_al)
		return IB_INVALID_AL_HANDLE;
	pthread_mutex_lock(&pnp_lock);
	for (it = cl_qlist_head(&reg_list); id && st != IB_SUCCESS && it != cl_qlist_end(&reg_list);
	     it = cl_qlist_next(it)) {
		al_pnp_t *p = PARENT_STRUCT(it, al_pnp_t, item);

		if (p->pnp_class != IB_PNP_IOC || p->p_inst != p_al)
			continue;
		for (d = cl_qlist_head(&p->devs); d != cl_qlist_end(&p->devs); d = cl_qlist_next(d))
			if (((pnp_dev_t *)d)->ioc_id == id) {
				__atomic_store_n(&((pnp_dev_t *)d)->declined, 1, __ATOMIC_RELEASE);
				st = IB_SUCCESS;
				break;
			}
	}
	pthread_mutex_unlock(&pnp_lock);
	AL_EXIT(h_al);
	return st;
}
