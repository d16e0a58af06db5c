/*
 * ibal verbs provider: the ib_cm_* calls through librdmacm while the kernel's CM owns the CM class.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A connection (kc_conn_t) is an access-layer object (a child of its AL
 * instance) around one rdma_cm_id with no QP of librdmacm's: the user's QP
 * moves with the attributes rdma_init_qp_attr() gives (verbs_kcm_qp.c).
 * One event thread reads the event channel; it acknowledges each event
 * before acting on it (so rdma_destroy_id never waits for it) and queues
 * the user callbacks on the connection's object, so they run on access-layer
 * callback threads with no lock of ours held. kc.lock guards the tables and
 * every connection's state; it is never held across a user callback.
 *
 * Listens: every TCP port a listen's service ID maps to gets one
 * librdmacm listen (AF_INET6 any, which takes IPv4 too) and, when a CA has
 * an InfiniBand port, one AF_IB listen per service ID. A REQ finds its
 * ibal listen by service ID (the 8 bytes ibal puts first in the private
 * data when the service ID is not of the TCP port space), then by CA and
 * compare buffer, as ibal's own CM matches them.
 */
#include "verbs_prov.h"

#ifdef HAVE_VERBS_PROV
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <netinet/in.h>
#include <infiniband/ib.h>
#include "al_cm_int.h"
#include "verbs_prov.h"
#include "verbs_xlate.h"
#include "verbs_kcm.h"
#include "ibal_log.h"

typedef enum kc_state {
	KC_RESOLVING,   /* active: address, then route */
	KC_REQ_SENT,
	KC_REP_RCVD,
	KC_REQ_RCVD,    /* passive: the REQ callback has the handle */
	KC_REP_SENT,
	KC_EST,
	KC_DREQ_SENT,
	KC_DREQ_RCVD,
	KC_TIMEWAIT,
	KC_DEAD         /* rejected or failed: no more calls */
} kc_state_t;

/* Callback kinds (bits of a sync wait). */
enum { KE_REQ, KE_REP, KE_RTU, KE_REJ, KE_DREQ, KE_DREP };

typedef struct kc_conn {
	al_obj_t obj;
	cl_map_item_t item;           /* kc.conns by cid */
	uint32_t cid;                 /* host order, AL_CM_KERN_CID set */
	boolean_t listed;
	struct rdma_cm_id *id;
	kc_state_t state;
	boolean_t active;
	ib_al_handle_t h_al;
	ib_qp_handle_t h_qp;          /* bound QP or NULL */
	void *p_qp;                   /* its al_qp_t */
	const void *qp_context;
	ib_qp_type_t qp_type;
	uint64_t svc_id;              /* host order */
	int ib;                       /* active on an InfiniBand port: AF_IB with the path given */
	ib_path_rec_t path;
	struct rdma_conn_param cp;    /* active: for rdma_connect */
	uint8_t req_pdata[IB_REQ_PDATA_SIZE];
	uint8_t peer_resp_res;        /* passive: the REQ's responder resources */
	uint8_t peer_init_depth;      /* passive: the REQ's initiator depth */
	ib_access_t access;
	ib_pfn_cm_rep_cb_t pfn_rep;
	ib_pfn_cm_rej_cb_t pfn_rej;
	ib_pfn_cm_rtu_cb_t pfn_rtu;
	ib_pfn_cm_dreq_cb_t pfn_dreq;
	ib_pfn_cm_drep_cb_t pfn_drep;
	cl_event_t *p_sync;           /* IB_FLAGS_SYNC waiter */
	uint32_t sync_kinds;
	uint32_t cb_pending;          /* user callbacks queued and not yet returned (under kc.lock) */
	uint32_t twait_ms;            /* time-wait: t(packet lifetime + 1) + t(packet lifetime) */
	uint64_t twait_end_ms;        /* KC_TIMEWAIT: when the QP is free again */
} kc_conn_t;

/* One queued user callback, with its own copy of the private data. */
typedef struct kc_ev {
	kc_conn_t *p_conn;
	int kind;
	void *pfn;
	al_listen_t *p_listen;        /* REQ: referenced */
	uint8_t pdata[IB_REP_PDATA_SIZE];
	union {
		ib_cm_req_rec_t req;
		ib_cm_rep_rec_t rep;
		ib_cm_rtu_rec_t rtu;
		ib_cm_rej_rec_t rej;
		ib_cm_dreq_rec_t dreq;
		ib_cm_drep_rec_t drep;
	} rec;
} kc_ev_t;

/* A librdmacm listen on one TCP port (IP) or one service ID (AF_IB). */
typedef struct kc_lport {
	cl_list_item_t item;
	uint64_t key;                 /* TCP port, or the service ID (AF_IB) */
	boolean_t ib;
	uint32_t users;               /* ibal listens on it */
	struct rdma_cm_id *id;
} kc_lport_t;

/* An ibal listen the kernel CM serves. */
typedef struct kc_listen {
	cl_list_item_t item;
	al_listen_t *p_l;
} kc_listen_t;

static struct {
	pthread_mutex_t lock;
	boolean_t on;                 /* ops installed */
	struct rdma_event_channel *ch;
	pthread_t thread;
	boolean_t running;
	int stop_fd;                  /* eventfd: wakes the thread (kc.stop: to leave) */
	boolean_t stop;
	cl_qmap_t conns;
	uint32_t next_cid;
	cl_qlist_t lports;
	cl_qlist_t listens;
	ib_net64_t guids[16];         /* CAs with a libibverbs device */
	uint32_t n_guids;
	int any_ib;                   /* some CA has an InfiniBand port */
} kc = { .lock = PTHREAD_MUTEX_INITIALIZER, .stop_fd = -1 };

static const al_cm_kern_ops_t kc_ops;


/* ---- CAs ---- */

static boolean_t add_ca(ib_net64_t guid, const char *name, int has_ibv, int has_umad, void *ctx)
{
	(void)name;
	(void)has_umad;
	(void)ctx;
	if (has_ibv && kc.n_guids < sizeof(kc.guids) / sizeof(kc.guids[0]))
		kc.guids[kc.n_guids++] = guid;
	return FALSE;
}

/* add_ca for a CA that may be known already (kc.lock held). */
static boolean_t add_new_ca(ib_net64_t guid, const char *name, int has_ibv, int has_umad,
			    void *ctx)
{
	uint32_t i;

	for (i = 0; i < kc.n_guids; i++)
		if (kc.guids[i] == guid)
			return FALSE;
	if (has_ibv && kc.n_guids < sizeof(kc.guids) / sizeof(kc.guids[0])) {
		kc.guids[kc.n_guids] = guid;
		__atomic_store_n(&kc.n_guids, kc.n_guids + 1, __ATOMIC_RELEASE);
	}
	(void)name;
	(void)has_umad;
	(void)ctx;
	return FALSE;
}

static boolean_t kc_owns_ca(ib_net64_t ca_guid)
{
	uint32_t i;

	for (i = 0; i < __atomic_load_n(&kc.n_guids, __ATOMIC_ACQUIRE); i++)
		if (kc.guids[i] == ca_guid)
			return TRUE;
	return FALSE;
}

static int device_is_ib(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr pa;

	return ctx && !ibv_query_port(ctx, port, &pa) && pa.link_layer != IBV_LINK_LAYER_ETHERNET;
}

/* ---- the event thread and channel ---- */

static void *kc_thread(void *arg);

/* Starts the channel and thread on first use; kc.lock held. */
static ib_api_status_t kc_start_locked(void)
{
	if (kc.running)
		return IB_SUCCESS;
	kc.ch = rdma_create_event_channel();
	if (!kc.ch)
		return IB_UNSUPPORTED;
	kc.stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (kc.stop_fd < 0 || fcntl(kc.ch->fd, F_SETFL, fcntl(kc.ch->fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    pthread_create(&kc.thread, NULL, kc_thread, NULL)) {
		if (kc.stop_fd >= 0)
			close(kc.stop_fd);
		kc.stop_fd = -1;
		rdma_destroy_event_channel(kc.ch);
		kc.ch = NULL;
		return IB_INSUFFICIENT_RESOURCES;
	}
	kc.running = TRUE;
	return IB_SUCCESS;
}

/* ---- connections ---- */

static void conn_unbind_locked(kc_conn_t *c)
{
	c->h_qp = NULL;
	c->p_qp = NULL;
}

static void conn_destroying(al_obj_t *p_obj)
{
	kc_conn_t *c = PARENT_STRUCT(p_obj, kc_conn_t, obj);
	struct rdma_cm_id *id;
	cl_event_t *p_sync;

	pthread_mutex_lock(&kc.lock);
	if (c->listed)
		cl_qmap_remove_item(&kc.conns, &c->item);
	c->listed = FALSE;
	if (c->state == KC_EST && c->h_qp)
		al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
	conn_unbind_locked(c);
	c->state = KC_DEAD;
	id = c->id;
	c->id = NULL;
	/* A queued callback (the REJ that ended it) releases a synchronous
	 * caller after it returns: ib_cm_req with IB_FLAGS_SYNC returns after
	 * its rej callback, never before. */
	p_sync = c->cb_pending ? NULL : c->p_sync;
	if (p_sync)
		c->p_sync = NULL;
	pthread_mutex_unlock(&kc.lock);
	if (id)
		rdma_destroy_id(id);  /* sends a DREQ or REJ as the exchange needs */
	if (p_sync)
		cl_event_signal(p_sync);  /* no callback will answer it now */
}

static void conn_free(al_obj_t *p_obj)
{
	kc_conn_t *c = PARENT_STRUCT(p_obj, kc_conn_t, obj);

	al_obj_deinit(&c->obj);
	cl_free(c);
}

/* Makes a connection object under @p p_parent (an AL instance), listed with a fresh cid. */
static ib_api_status_t conn_new(al_obj_t *p_parent, kc_conn_t **pp)
{
	kc_conn_t *c = (kc_conn_t *)cl_zalloc(sizeof(*c));
	ib_api_status_t st;

	if (!c)
		return IB_INSUFFICIENT_MEMORY;
	al_obj_construct(&c->obj, AL_HDL_CM);
	st = al_obj_init(&c->obj, p_parent, NULL, conn_destroying, NULL, conn_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&c->obj);
		cl_free(c);
		return st == IB_INVALID_STATE ? IB_INVALID_AL_HANDLE : st;
	}
	c->h_al = (ib_al_handle_t)al_obj_h(p_parent);
	pthread_mutex_lock(&kc.lock);
	do
		c->cid = AL_CM_KERN_CID | (++kc.next_cid & ~AL_CM_KERN_CID);
	while (cl_qmap_get(&kc.conns, c->cid) != cl_qmap_end(&kc.conns));
	cl_qmap_insert(&kc.conns, c->cid, &c->item);
	c->listed = TRUE;
	pthread_mutex_unlock(&kc.lock);
	*pp = c;
	return IB_SUCCESS;
}

/* The connection of a cid, referenced; kc.lock held. */
static kc_conn_t *conn_get_locked(uint32_t cid)
{
	cl_map_item_t *it = cl_qmap_get(&kc.conns, cid);
	kc_conn_t *c;

	if (it == cl_qmap_end(&kc.conns))
		return NULL;
	c = PARENT_STRUCT(it, kc_conn_t, item);
	if (c->state == KC_DEAD)
		return NULL;
	al_obj_ref(&c->obj);
	return c;
}

/* The connection of a handle, referenced, with kc.lock held on success. */
static ib_api_status_t conn_of_handle(const ib_cm_handle_t *h, const void *arg, kc_conn_t **pp)
{
	kc_conn_t *c;

	pthread_mutex_lock(&kc.lock);
	c = conn_get_locked(cl_ntoh32(h->cid));
	if (!c || c->h_al != h->h_al) {
		pthread_mutex_unlock(&kc.lock);
		if (c)
			al_obj_deref(&c->obj);
		return IB_INVALID_HANDLE;
	}
	if (!arg) {
		pthread_mutex_unlock(&kc.lock);
		al_obj_deref(&c->obj);
		return IB_INVALID_PARAMETER;
	}
	*pp = c;
	return IB_SUCCESS;
}

static void conn_put_unlock(kc_conn_t *c)
{
	pthread_mutex_unlock(&kc.lock);
	al_obj_deref(&c->obj);
}

static kc_conn_t *conn_by_qp_locked(const void *p_qp)
{
	cl_map_item_t *it;

	for (it = cl_qmap_head(&kc.conns); it != cl_qmap_end(&kc.conns); it = cl_qmap_next(it)) {
		kc_conn_t *c = PARENT_STRUCT(it, kc_conn_t, item);

		if (c->p_qp == p_qp && c->state != KC_DEAD)
			return c;
	}
	return NULL;
}

/* Ends a connection (its object goes; a DREQ or REJ goes out if due). */
static void conn_end(kc_conn_t *c)
{
	al_obj_destroy(&c->obj, NULL);
}

static ib_cm_handle_t conn_handle(const kc_conn_t *c)
{
	ib_cm_handle_t h;

	h.h_al = c->h_al;
	h.h_qp = c->h_qp;
	h.cid = cl_hton32(c->cid);
	return h;
}

/* ---- time-wait ---- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint32_t twait_of(uint8_t pkt_life)
{
	return al_cm_time_ms((uint8_t)(pkt_life + 1 > 31 ? 31 : pkt_life + 1)) + al_cm_time_ms(pkt_life);
}

static void kc_wake(void)
{
	uint64_t one = 1;

	if (kc.stop_fd >= 0 && write(kc.stop_fd, &one, sizeof(one)) != sizeof(one))
		IBAL_DBG(IBAL_SUB_CM, "wake: %s", strerror(errno));
}

/* The exchange is over: the QP stays bound (a new REQ or REP on it is
 * refused) for the time-wait, as with ibal's CM; kc.lock held. */
static void enter_timewait_locked(kc_conn_t *c)
{
	c->state = KC_TIMEWAIT;
	c->twait_end_ms = now_ms() + c->twait_ms;
	IBAL_DBG(IBAL_SUB_CM, "cid 0x%x: time-wait %u ms", c->cid, c->twait_ms);
	kc_wake();
}

/* Ends the connections whose time-wait is over; returns the poll timeout
 * until the next one (-1: none). The event thread. */
static int timewait_run(void)
{
	cl_map_item_t *it;
	uint64_t now = now_ms(), next = UINT64_MAX;
	kc_conn_t *done = NULL;

	pthread_mutex_lock(&kc.lock);
	for (it = cl_qmap_head(&kc.conns); it != cl_qmap_end(&kc.conns); it = cl_qmap_next(it)) {
		kc_conn_t *c = PARENT_STRUCT(it, kc_conn_t, item);

		if (c->state != KC_TIMEWAIT)
			continue;
		if (c->twait_end_ms <= now && !done) {
			done = c;
			al_obj_ref(&c->obj);
			conn_unbind_locked(c);
			c->state = KC_DEAD;
		} else if (c->twait_end_ms < next) {
			next = c->twait_end_ms;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	if (done) {
		IBAL_DBG(IBAL_SUB_CM, "time-wait of cid 0x%x over", done->cid);
		conn_end(done);
		al_obj_deref(&done->obj);
		return 0;   /* look again at once */
	}
	if (next == UINT64_MAX)
		return -1;
	return next - now > 60000 ? 60000 : (int)(next - now);
}

/* ---- callbacks ---- */

static void AL_API ev_run(void *context)
{
	kc_ev_t *e = (kc_ev_t *)context;
	kc_conn_t *c = e->p_conn;
	cl_event_t *p_sync = NULL;

	switch (e->kind) {
	case KE_REQ: ((ib_pfn_cm_req_cb_t)e->pfn)(&e->rec.req); break;
	case KE_REP: ((ib_pfn_cm_rep_cb_t)e->pfn)(&e->rec.rep); break;
	case KE_RTU: ((ib_pfn_cm_rtu_cb_t)e->pfn)(&e->rec.rtu); break;
	case KE_REJ: ((ib_pfn_cm_rej_cb_t)e->pfn)(&e->rec.rej); break;
	case KE_DREQ: ((ib_pfn_cm_dreq_cb_t)e->pfn)(&e->rec.dreq); break;
	case KE_DREP: ((ib_pfn_cm_drep_cb_t)e->pfn)(&e->rec.drep); break;
	}
	pthread_mutex_lock(&kc.lock);
	c->cb_pending--;
	/* The awaited callback returned; or the connection ended and its last
	 * callback returned (conn_destroying left the waiter to it). */
	if (c->p_sync && ((c->sync_kinds & (1u << e->kind)) ||
			  (c->state == KC_DEAD && !c->cb_pending))) {
		p_sync = c->p_sync;
		c->p_sync = NULL;
	}
	pthread_mutex_unlock(&kc.lock);
	if (p_sync)
		cl_event_signal(p_sync);
	if (e->p_listen)
		al_obj_deref(&e->p_listen->obj);
	al_obj_deref(&c->obj);
	cl_free(e);
}

static kc_ev_t *ev_new(kc_conn_t *c, int kind, void *pfn)
{
	kc_ev_t *e;

	if (!pfn)
		return NULL;
	e = (kc_ev_t *)cl_zalloc(sizeof(*e));
	if (e) {
		e->p_conn = c;
		e->kind = kind;
		e->pfn = pfn;
	}
	return e;
}

static void ev_queue(kc_ev_t *e)
{
	kc_conn_t *c = e->p_conn;
	cl_event_t *p_sync = NULL;

	al_obj_ref(&c->obj);
	pthread_mutex_lock(&kc.lock);
	c->cb_pending++;
	pthread_mutex_unlock(&kc.lock);
	if (al_obj_queue_callback(&c->obj, ev_run, e) != IB_SUCCESS) {
		pthread_mutex_lock(&kc.lock);
		if (!--c->cb_pending && c->state == KC_DEAD) {
			p_sync = c->p_sync;
			c->p_sync = NULL;
		}
		pthread_mutex_unlock(&kc.lock);
		if (p_sync)
			cl_event_signal(p_sync);
		if (e->p_listen)
			al_obj_deref(&e->p_listen->obj);
		al_obj_deref(&c->obj);
		cl_free(e);
	}
}

static void queue_rej(kc_conn_t *c, ib_rej_status_t reason, const void *pdata, uint8_t len)
{
	kc_ev_t *e = ev_new(c, KE_REJ, (void *)c->pfn_rej);

	if (!e)
		return;
	if (pdata && len)
		memcpy(e->pdata, pdata, len > IB_REJ_PDATA_SIZE ? IB_REJ_PDATA_SIZE : len);
	e->rec.rej.rej_status = reason;
	e->rec.rej.p_rej_pdata = e->pdata;
	e->rec.rej.h_qp = c->h_qp;
	e->rec.rej.qp_context = c->qp_context;
	ev_queue(e);
}

/* Ends an exchange that failed or was rejected: the QP to ERROR, the rej
 * callback with @p reason, the connection ended. Called with kc.lock held;
 * releases it. */
static void conn_fail_unlock(kc_conn_t *c, ib_rej_status_t reason, const void *pdata, uint8_t len)
{
	if (c->h_qp)
		al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
	c->state = KC_DEAD;
	pthread_mutex_unlock(&kc.lock);
	queue_rej(c, reason, pdata, len);
	conn_end(c);
}

/* ---- listens ---- */

static uint64_t listen_key(const al_listen_t *p_l, boolean_t ib)
{
	uint64_t sid = cl_ntoh64(p_l->info.svc_id);

	return ib ? sid : verbs_kcm_sid_port(sid);
}

static kc_lport_t *lport_find_locked(uint64_t key, boolean_t ib)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&kc.lports); it != cl_qlist_end(&kc.lports); it = cl_qlist_next(it)) {
		kc_lport_t *lp = PARENT_STRUCT(it, kc_lport_t, item);

		if (lp->key == key && lp->ib == ib)
			return lp;
	}
	return NULL;
}

/* Listens with librdmacm on @p key; kc.lock held. */
static ib_api_status_t lport_use_locked(uint64_t key, boolean_t ib)
{
	kc_lport_t *lp = lport_find_locked(key, ib);
	struct sockaddr_storage ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;
	socklen_t len;
	ib_gid_t any;
	int err;

	if (lp) {
		lp->users++;
		return IB_SUCCESS;
	}
	lp = (kc_lport_t *)cl_zalloc(sizeof(*lp));
	if (!lp)
		return IB_INSUFFICIENT_MEMORY;
	lp->key = key;
	lp->ib = ib;
	lp->users = 1;
	if (rdma_create_id(kc.ch, &lp->id, lp, ib ? RDMA_PS_IB : RDMA_PS_TCP)) {
		cl_free(lp);
		return IB_INSUFFICIENT_RESOURCES;
	}
	memset(&ss, 0, sizeof(ss));
	if (ib) {
		memset(&any, 0, sizeof(any));
		len = verbs_kcm_gid_addr(&any, 1, 0, 0, key, (struct sockaddr *)&ss);
		(void)len;
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)key);
		sin6->sin6_addr = in6addr_any;
	}
	err = rdma_bind_addr(lp->id, (struct sockaddr *)&ss) ? errno : 0;
	if (!err)
		err = rdma_listen(lp->id, 64) ? errno : 0;
	if (err) {
		IBAL_DBG(IBAL_SUB_CM, "listen on %s 0x%llx: %s", ib ? "service ID" : "port", (unsigned long long)key,
		       strerror(err));
		rdma_destroy_id(lp->id);
		cl_free(lp);
		return err == EADDRINUSE ? IB_INVALID_SETTING : verbs_errno_status(err);
	}
	cl_qlist_insert_tail(&kc.lports, &lp->item);
	return IB_SUCCESS;
}

static void lport_unuse_locked(uint64_t key, boolean_t ib)
{
	kc_lport_t *lp = lport_find_locked(key, ib);

	if (!lp || --lp->users)
		return;
	cl_qlist_remove_item(&kc.lports, &lp->item);
	rdma_destroy_id(lp->id);  /* the event thread never waits on kc.lock with an event unacknowledged */
	cl_free(lp);
}

static boolean_t listen_is_ours(const al_listen_t *p_l)
{
	if (p_l->info.qp_type != IB_QPT_RELIABLE_CONN)
		return FALSE;  /* UC and SIDR: ibal's CM only (docs/verbs-provider.md) */
	return p_l->info.ca_guid == IB_ALL_CAS || kc_owns_ca(p_l->info.ca_guid);
}

static ib_api_status_t kc_listen(al_listen_t *p_l)
{
	kc_listen_t *kl;
	ib_api_status_t st;

	if (!listen_is_ours(p_l))
		return IB_SUCCESS;
	kl = (kc_listen_t *)cl_zalloc(sizeof(*kl));
	if (!kl)
		return IB_INSUFFICIENT_MEMORY;
	kl->p_l = p_l;
	pthread_mutex_lock(&kc.lock);
	st = kc_start_locked();
	if (st == IB_SUCCESS)
		st = lport_use_locked(listen_key(p_l, FALSE), FALSE);
	if (st == IB_SUCCESS && kc.any_ib) {
		st = lport_use_locked(listen_key(p_l, TRUE), TRUE);
		if (st != IB_SUCCESS)
			lport_unuse_locked(listen_key(p_l, FALSE), FALSE);
	}
	if (st == IB_SUCCESS)
		cl_qlist_insert_tail(&kc.listens, &kl->item);
	pthread_mutex_unlock(&kc.lock);
	if (st != IB_SUCCESS)
		cl_free(kl);
	return st;
}

static void kc_cancel(al_listen_t *p_l)
{
	cl_list_item_t *it;
	kc_listen_t *kl = NULL;

	pthread_mutex_lock(&kc.lock);
	for (it = cl_qlist_head(&kc.listens); it != cl_qlist_end(&kc.listens); it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, kc_listen_t, item)->p_l == p_l) {
			kl = PARENT_STRUCT(it, kc_listen_t, item);
			break;
		}
	if (kl) {
		cl_qlist_remove_item(&kc.listens, &kl->item);
		lport_unuse_locked(listen_key(p_l, FALSE), FALSE);
		if (kc.any_ib)
			lport_unuse_locked(listen_key(p_l, TRUE), TRUE);
	}
	pthread_mutex_unlock(&kc.lock);
	cl_free(kl);
}

/* The ibal listen a REQ is for, referenced; kc.lock held. @p pdata and
 * @p len are the user's private data (after the service ID bytes). */
static al_listen_t *listen_match_locked(uint64_t sid, ib_net64_t ca_guid, const uint8_t *pdata,
					uint32_t len)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&kc.listens); it != cl_qlist_end(&kc.listens); it = cl_qlist_next(it)) {
		al_listen_t *p_l = PARENT_STRUCT(it, kc_listen_t, item)->p_l;
		const ib_cm_listen_t *i = &p_l->info;

		if (cl_ntoh64(i->svc_id) != sid || p_l->cancelled)
			continue;
		if (i->ca_guid != IB_ALL_CAS && i->ca_guid != ca_guid)
			continue;
		if (i->compare_length &&
		    ((uint32_t)i->compare_offset + i->compare_length > len ||
		     memcmp(pdata + i->compare_offset, p_l->cmp, i->compare_length)))
			continue;
		al_obj_ref(&p_l->obj);
		return p_l;
	}
	return NULL;
}

/* The listen of a librdmacm listen ID, or NULL; kc.lock held. */
static kc_lport_t *lport_of_id_locked(const struct rdma_cm_id *id)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&kc.lports); it != cl_qlist_end(&kc.lports); it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, kc_lport_t, item)->id == id)
			return PARENT_STRUCT(it, kc_lport_t, item);
	return NULL;
}

/* ---- events ---- */

/* What the thread keeps of an event once acknowledged. */
typedef struct kc_rx {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	struct rdma_conn_param conn;
	uint8_t pdata[IB_REP_PDATA_SIZE];
	uint32_t pdata_len;
} kc_rx_t;

static void rx_copy(const struct rdma_cm_event *ev, kc_rx_t *r)
{
	memset(r, 0, sizeof(*r));
	r->type = ev->event;
	r->status = ev->status;
	r->id = ev->id;
	r->listen_id = ev->listen_id;
	r->conn = ev->param.conn;
	if (ev->id && ev->id->ps != RDMA_PS_UDP && ev->param.conn.private_data &&
	    ev->param.conn.private_data_len) {
		r->pdata_len = ev->param.conn.private_data_len;
		if (r->pdata_len > sizeof(r->pdata))
			r->pdata_len = sizeof(r->pdata);
		memcpy(r->pdata, ev->param.conn.private_data, r->pdata_len);
	}
	r->conn.private_data = NULL;
}

/* The REQ's primary path as the kernel CM has it (the passive side's view). */
static void path_of_route(const struct rdma_cm_id *id, ib_path_rec_t *p)
{
	const struct ibv_sa_path_rec *r = id->route.num_paths ? id->route.path_rec : NULL;

	memset(p, 0, sizeof(*p));
	if (!r) {
		memcpy(p->sgid.raw, &id->route.addr.addr.ibaddr.sgid, 16);
		memcpy(p->dgid.raw, &id->route.addr.addr.ibaddr.dgid, 16);
		p->pkey = htons(id->route.addr.addr.ibaddr.pkey);
		return;
	}
	memcpy(p->sgid.raw, r->sgid.raw, 16);
	memcpy(p->dgid.raw, r->dgid.raw, 16);
	p->dlid = r->dlid;
	p->slid = r->slid;
	p->hop_flow_raw = cl_hton32(((be32toh(r->flow_label) & 0xFFFFFu) << 8) | r->hop_limit);
	p->tclass = r->traffic_class;
	p->num_path = (uint8_t)((r->reversible ? 0x80 : 0) | (r->numb_path & 0x7f));
	p->pkey = r->pkey;
	p->qos_class_sl = cl_hton16(r->sl & 0xf);
	p->mtu = (uint8_t)((r->mtu_selector & 3) << 6 | (r->mtu & 0x3f));
	p->rate = (uint8_t)((r->rate_selector & 3) << 6 | (r->rate & 0x3f));
	p->pkt_life = (uint8_t)((r->packet_life_time_selector & 3) << 6 | (r->packet_life_time & 0x3f));
	p->preference = r->preference;
}

static void reject_nosid(struct rdma_cm_id *id)
{
	rdma_reject(id, VERBS_KCM_NOSID_MAGIC, sizeof(VERBS_KCM_NOSID_MAGIC) - 1);
	rdma_destroy_id(id);
}

/* The listen (referenced) a REQ on a listening ID is for, or NULL; its
 * service ID in *p_sid and, for the IP CM's service ID header, the private
 * data after it in *pp_pdata, *p_len. kc.lock held. */
static al_listen_t *req_listen_locked(const kc_lport_t *lp, ib_net64_t ca_guid, uint64_t *p_sid,
				      const uint8_t **pp_pdata, uint32_t *p_len)
{
	al_listen_t *p_l = NULL;
	ib_net64_t hdr;

	if (lp->ib) {
		*p_sid = lp->key;
		return listen_match_locked(*p_sid, ca_guid, *pp_pdata, *p_len);
	}
	if (*p_len >= VERBS_KCM_SID_HDR) {
		memcpy(&hdr, *pp_pdata, sizeof(hdr));
		*p_sid = cl_ntoh64(hdr);
		if (!verbs_kcm_sid_is_tcp(*p_sid) && verbs_kcm_sid_port(*p_sid) == lp->key)
			p_l = listen_match_locked(*p_sid, ca_guid, *pp_pdata + VERBS_KCM_SID_HDR,
						  *p_len - VERBS_KCM_SID_HDR);
	}
	if (p_l) {
		*pp_pdata += VERBS_KCM_SID_HDR;
		*p_len -= VERBS_KCM_SID_HDR;
		return p_l;
	}
	*p_sid = VERBS_KCM_SID_TCP | lp->key;
	return listen_match_locked(*p_sid, ca_guid, *pp_pdata, *p_len);
}

/* The user's REQ callback for a new passive connection. */
static void req_event(kc_conn_t *c, const kc_rx_t *r, al_listen_t *p_l, const uint8_t *pdata,
		      uint32_t len)
{
	kc_ev_t *e = ev_new(c, KE_REQ, (void *)p_l->info.pfn_cm_req_cb);

	if (!e) {
		al_obj_deref(&p_l->obj);
		conn_end(c);
		return;
	}
	e->p_listen = p_l;
	memcpy(e->pdata, pdata, len > IB_REQ_PDATA_SIZE ? IB_REQ_PDATA_SIZE : len);
	e->rec.req.context = p_l->obj.context;
	e->rec.req.h_cm_req = conn_handle(c);
	e->rec.req.h_cm_listen = (ib_listen_handle_t)al_obj_h(&p_l->obj);
	e->rec.req.p_req_pdata = e->pdata;
	e->rec.req.qp_type = IB_QPT_RELIABLE_CONN;
	e->rec.req.resp_res = c->peer_resp_res;
	e->rec.req.flow_ctrl = r->conn.flow_control != 0;
	e->rec.req.rnr_retry_cnt = r->conn.rnr_retry_count;
	path_of_route(r->id, &e->rec.req.primary_path);
	c->twait_ms = twait_of(ib_path_rec_pkt_life(&e->rec.req.primary_path));
	e->rec.req.sidr_context = p_l->info.sidr_context;
	ev_queue(e);
}

/* A REQ on one of our listens (the event thread, nothing held). */
static void rx_req(kc_rx_t *r)
{
	kc_lport_t *lp;
	uint64_t key, sid = 0;
	boolean_t lib;
	const uint8_t *pdata = r->pdata;
	uint32_t len = r->pdata_len;
	ib_net64_t ca_guid = (ib_net64_t)ibv_get_device_guid(r->id->verbs->device);
	al_listen_t *p_l;
	kc_conn_t *c;

	pthread_mutex_lock(&kc.lock);
	lp = lport_of_id_locked(r->listen_id);  /* gone: its last listen was cancelled */
	if (!lp) {
		pthread_mutex_unlock(&kc.lock);
		reject_nosid(r->id);
		return;
	}
	key = lp->key;
	lib = lp->ib;
	p_l = req_listen_locked(lp, ca_guid, &sid, &pdata, &len);
	pthread_mutex_unlock(&kc.lock);
	if (!p_l) {
		IBAL_DBG(IBAL_SUB_CM, "REQ on %s 0x%llx: no listen", lib ? "SID" : "port", (unsigned long long)key);
		reject_nosid(r->id);
		return;
	}
	if (conn_new(p_l->obj.p_parent, &c) != IB_SUCCESS) {
		al_obj_deref(&p_l->obj);
		rdma_reject(r->id, NULL, 0);
		rdma_destroy_id(r->id);
		return;
	}
	pthread_mutex_lock(&kc.lock);
	c->id = r->id;
	r->id->context = (void *)(uintptr_t)c->cid;
	c->state = KC_REQ_RCVD;
	c->qp_type = IB_QPT_RELIABLE_CONN;
	c->svc_id = sid;
	c->peer_resp_res = r->conn.initiator_depth;   /* the event has the local view */
	c->peer_init_depth = r->conn.responder_resources;
	pthread_mutex_unlock(&kc.lock);
	req_event(c, r, p_l, pdata, len);
}

/* Active: the address, then the route, then the REQ. */
static void rx_resolved(kc_conn_t *c, kc_rx_t *r)
{
	int err = 0;

	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_RESOLVING || !c->id) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	if (r->type == RDMA_CM_EVENT_ADDR_RESOLVED && c->ib) {
		/* InfiniBand: the user's path is the route (librdmacm reports
		 * ROUTE_RESOLVED for it), no SA query by the kernel. */
		struct ibv_path_data pd;

		memset(&pd, 0, sizeof(pd));
		pd.flags = IBV_PATH_FLAG_GMP | IBV_PATH_FLAG_PRIMARY | IBV_PATH_FLAG_BIDIRECTIONAL;
		memcpy(&pd.path, &c->path, sizeof(pd.path));
		err = rdma_set_option(c->id, RDMA_OPTION_IB, RDMA_OPTION_IB_PATH, &pd, sizeof(pd)) ? errno : 0;
	} else if (r->type == RDMA_CM_EVENT_ADDR_RESOLVED) {
		err = rdma_resolve_route(c->id, 4000) ? errno : 0;
	} else {
		c->cp.qp_num = 0;
		{
			ib_qp_attr_t qa;

			if (c->h_qp && ib_query_qp(c->h_qp, &qa) == IB_SUCCESS) {
				c->cp.qp_num = cl_ntoh32(qa.num);
				c->cp.srq = qa.h_srq != NULL;
			}
		}
		{
			/* The kernel's route may say a longer packet lifetime than
			 * the user's path: the time-wait takes the longer (the
			 * passive side's comes from the same route). */
			ib_path_rec_t kp;
			uint32_t tw;

			path_of_route(c->id, &kp);
			tw = twait_of(ib_path_rec_pkt_life(&kp));
			if (tw > c->twait_ms)
				c->twait_ms = tw;
		}
		c->cp.private_data = c->req_pdata;
		err = rdma_connect(c->id, &c->cp) ? errno : 0;
		c->cp.private_data = NULL;
		if (!err)
			c->state = KC_REQ_SENT;
	}
	if (!err) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	IBAL_DBG(IBAL_SUB_CM, "connect step after %s: %s", rdma_event_str(r->type), strerror(err));
	conn_fail_unlock(c, IB_REJ_INVALID_GID, NULL, 0);
}

/* Active: the REP came. */
static void rx_rep(kc_conn_t *c, kc_rx_t *r)
{
	kc_ev_t *e;
	ib_api_status_t st;

	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_REQ_SENT) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	st = c->h_qp ? verbs_kcm_qp_to(c->id, c->h_qp, IB_QPS_RTR, 0) : IB_INVALID_QP_HANDLE;
	if (st != IB_SUCCESS) {
		IBAL_DBG(IBAL_SUB_CM, "REP: QP to RTR: %s", ib_get_err_str(st));
		rdma_reject(c->id, NULL, 0);
		conn_fail_unlock(c, IB_REJ_INSUF_RESOURCES, NULL, 0);
		return;
	}
	c->state = KC_REP_RCVD;
	e = ev_new(c, KE_REP, (void *)c->pfn_rep);
	if (e) {
		memcpy(e->pdata, r->pdata, r->pdata_len);
		e->rec.rep.p_rep_pdata = e->pdata;
		e->rec.rep.qp_type = c->qp_type;
		e->rec.rep.h_cm_rep = conn_handle(c);
		e->rec.rep.qp_context = c->qp_context;
		e->rec.rep.resp_res = r->conn.initiator_depth;
		e->rec.rep.flow_ctrl = r->conn.flow_control != 0;
		e->rec.rep.apr_status = IB_AP_UNSUPPORTED;
	}
	pthread_mutex_unlock(&kc.lock);
	if (e)
		ev_queue(e);
}

/* Passive: the RTU came. */
static void rx_established(kc_conn_t *c)
{
	kc_ev_t *e = NULL;

	pthread_mutex_lock(&kc.lock);
	if (c->state == KC_REP_SENT && c->h_qp) {
		if (verbs_kcm_qp_to(c->id, c->h_qp, IB_QPS_RTS, 0) != IB_SUCCESS)
			IBAL_DBG(IBAL_SUB_CM, "RTU: QP to RTS failed");
		c->state = KC_EST;
		e = ev_new(c, KE_RTU, (void *)c->pfn_rtu);
		if (e) {
			e->rec.rtu.p_rtu_pdata = e->pdata;
			e->rec.rtu.h_qp = c->h_qp;
			e->rec.rtu.qp_context = c->qp_context;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	if (e)
		ev_queue(e);
}

static ib_rej_status_t rej_reason(const kc_rx_t *r)
{
	if (r->type == RDMA_CM_EVENT_UNREACHABLE || r->type == RDMA_CM_EVENT_CONNECT_ERROR)
		return IB_REJ_TIMEOUT;
	if (r->pdata_len >= sizeof(VERBS_KCM_NOSID_MAGIC) - 1 &&
	    !memcmp(r->pdata, VERBS_KCM_NOSID_MAGIC, sizeof(VERBS_KCM_NOSID_MAGIC) - 1))
		return IB_REJ_INVALID_SID;
	if (r->status > 0 && r->status < 0x10000)
		return cl_hton16((uint16_t)r->status);
	return IB_REJ_TIMEOUT;
}

/* A REJ, or the REQ/REP given up. */
static void rx_rej(kc_conn_t *c, kc_rx_t *r)
{
	ib_rej_status_t reason = rej_reason(r);
	boolean_t nosid = reason == IB_REJ_INVALID_SID;

	pthread_mutex_lock(&kc.lock);
	if (c->state == KC_DEAD || c->state == KC_TIMEWAIT) {
		pthread_mutex_unlock(&kc.lock);
		return;
	}
	conn_fail_unlock(c, reason, nosid ? NULL : r->pdata, nosid ? 0 : (uint8_t)r->pdata_len);
}

static void rx_disconnected(kc_conn_t *c, kc_rx_t *r)
{
	kc_ev_t *e = NULL;

	pthread_mutex_lock(&kc.lock);
	switch (c->state) {
	case KC_EST:
	case KC_REP_SENT:
	case KC_REP_RCVD:
		if (c->h_qp)
			al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
		c->state = KC_DREQ_RCVD;
		e = ev_new(c, KE_DREQ, (void *)c->pfn_dreq);
		if (e) {
			e->rec.dreq.h_cm_dreq = conn_handle(c);
			e->rec.dreq.p_dreq_pdata = e->pdata;
			e->rec.dreq.qp_context = c->qp_context;
		} else {
			rdma_disconnect(c->id);  /* no callback: answer at once */
			enter_timewait_locked(c);
		}
		break;
	case KC_DREQ_SENT:
		enter_timewait_locked(c);
		e = ev_new(c, KE_DREP, (void *)c->pfn_drep);
		if (e) {
			e->rec.drep.cm_status = r->status ? IB_TIMEOUT : IB_SUCCESS;
			e->rec.drep.p_drep_pdata = e->pdata;
			e->rec.drep.h_qp = c->h_qp;
			e->rec.drep.qp_context = c->qp_context;
		}
		break;
	default:
		break;
	}
	pthread_mutex_unlock(&kc.lock);
	if (e)
		ev_queue(e);
}

static void rx_conn_event(kc_rx_t *r)
{
	kc_conn_t *c = NULL;

	pthread_mutex_lock(&kc.lock);
	if (!lport_of_id_locked(r->id))
		c = conn_get_locked((uint32_t)(uintptr_t)r->id->context);
	pthread_mutex_unlock(&kc.lock);
	if (!c)
		return;
	switch (r->type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		rx_resolved(c, r);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		pthread_mutex_lock(&kc.lock);
		conn_fail_unlock(c, IB_REJ_INVALID_GID, NULL, 0);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		rx_rep(c, r);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		rx_established(c);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		rx_rej(c, r);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		rx_disconnected(c, r);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pthread_mutex_lock(&kc.lock);
		conn_unbind_locked(c);
		pthread_mutex_unlock(&kc.lock);
		conn_end(c);
		break;
	default:
		break;
	}
	al_obj_deref(&c->obj);
}

static void *kc_thread(void *arg)
{
	struct pollfd fds[2];
	struct rdma_cm_event *ev;
	kc_rx_t *r = (kc_rx_t *)cl_malloc(sizeof(*r));

	(void)arg;
	if (!r)
		return NULL;
	fds[0].fd = kc.ch->fd;
	fds[0].events = POLLIN;
	fds[1].fd = kc.stop_fd;
	fds[1].events = POLLIN;
	for (;;) {
		uint64_t v;

		if (poll(fds, 2, timewait_run()) < 0 && errno != EINTR)
			break;
		if (fds[1].revents && read(kc.stop_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
			break;
		if (__atomic_load_n(&kc.stop, __ATOMIC_ACQUIRE))
			break;
		while (!rdma_get_cm_event(kc.ch, &ev)) {
			rx_copy(ev, r);
			rdma_ack_cm_event(ev);
			IBAL_DBG(IBAL_SUB_CM, "event %s status %d", rdma_event_str(r->type), r->status);
			if (r->type == RDMA_CM_EVENT_CONNECT_REQUEST)
				rx_req(r);
			else if (r->id)
				rx_conn_event(r);
		}
	}
	cl_free(r);
	return NULL;
}

/* ---- the calls ---- */

static ib_api_status_t port_of_gid(al_qp_t *p_qp, const ib_gid_t *gid, uint8_t *p_port,
				   uint16_t *p_pkey_index, ib_net16_t pkey, int *p_ib, uint32_t *p_ifindex)
{
	verbs_qp_t *vq = (verbs_qp_t *)p_qp->v.p_prov;
	struct ibv_context *ctx = vq && vq->pd ? vq->pd->ca->ctx : NULL;
	struct ibv_gid_entry ge;
	uint8_t p;
	int i;
	uint16_t k;
	__be16 pk;

	if (!ctx)
		return IB_INVALID_QP_HANDLE;
	for (p = 1; p <= vq->pd->ca->num_ports; p++) {
		struct ibv_port_attr pa;

		if (ibv_query_port(ctx, p, &pa))
			continue;
		for (i = 0; i < pa.gid_tbl_len; i++) {
			if (ibv_query_gid_ex(ctx, p, (uint32_t)i, &ge, 0) ||
			    memcmp(ge.gid.raw, gid->raw, 16))
				continue;
			*p_port = p;
			*p_ib = pa.link_layer != IBV_LINK_LAYER_ETHERNET;
			*p_ifindex = ge.ndev_ifindex;
			*p_pkey_index = 0;
			for (k = 0; k < pa.pkey_tbl_len; k++)
				if (!ibv_query_pkey(ctx, p, k, &pk) &&
				    (pk & htons(0x7fff)) == (pkey & htons(0x7fff))) {
					*p_pkey_index = k;
					break;
				}
			return IB_SUCCESS;
		}
	}
	return IB_INVALID_SETTING;
}

/* @p v clipped to the CA's responder resources (@p resp) or initiator
 * depth, as the provider last read them (ca->attr). */
static uint8_t clamp_rd(verbs_ca_t *ca, uint8_t v, int resp)
{
	uint8_t max = v;

	pthread_mutex_lock(&ca->lock);
	if (ca->attr)
		max = resp ? ca->attr->max_qp_resp_res : ca->attr->max_qp_init_depth;
	pthread_mutex_unlock(&ca->lock);
	return v < max ? v : max;
}

static ib_api_status_t sync_enter(ib_al_flags_t flags, cl_event_t *p_ev, boolean_t *p_on)
{
	*p_on = (flags & IB_FLAGS_SYNC) != 0;
	if (!*p_on)
		return IB_SUCCESS;
	if (al_is_cb_thread())
		return IB_INVALID_STATE;
	cl_event_construct(p_ev);
	return cl_event_init(p_ev, FALSE) == CL_SUCCESS ? IB_SUCCESS : IB_INSUFFICIENT_RESOURCES;
}

static void sync_leave(boolean_t on, cl_event_t *p_ev, ib_api_status_t st)
{
	if (!on)
		return;
	if (st == IB_SUCCESS)
		cl_event_wait_on(p_ev, EVENT_NO_TIMEOUT, FALSE);
	cl_event_destroy(p_ev);
}

/* The active connection's fields from the request; kc.lock held. off: the
 * bytes of service ID header before the private data (IP CM only). */
static void conn_from_req(kc_conn_t *c, const ib_cm_req_t *r, al_qp_t *p_qp, int ib, uint32_t off)
{
	const ib_path_rec_t *pp = r->p_primary_path;
	verbs_qp_t *vq = (verbs_qp_t *)p_qp->v.p_prov;

	c->active = TRUE;
	c->state = KC_RESOLVING;
	c->h_qp = r->h_qp;
	c->p_qp = p_qp;
	c->qp_context = p_qp->v.obj.context;
	c->qp_type = r->qp_type;
	c->svc_id = cl_ntoh64(r->svc_id);
	c->ib = ib;
	c->path = *pp;
	c->twait_ms = twait_of(ib_path_rec_pkt_life(pp));
	c->pfn_rep = r->pfn_cm_rep_cb;
	c->pfn_rej = r->pfn_cm_rej_cb;
	if (off) {
		ib_net64_t hdr = r->svc_id;

		memcpy(c->req_pdata, &hdr, sizeof(hdr));
	}
	if (r->req_length)
		memcpy(c->req_pdata + off, r->p_req_pdata, r->req_length);
	c->cp.private_data_len = (uint8_t)(off + r->req_length);
	c->cp.responder_resources = clamp_rd(vq->pd->ca, r->resp_res, 1);
	c->cp.initiator_depth = clamp_rd(vq->pd->ca, r->init_depth, 0);
	c->cp.flow_control = r->flow_ctrl ? 1 : 0;
	c->cp.retry_count = r->retry_cnt > 7 ? 7 : r->retry_cnt;
	c->cp.rnr_retry_count = r->rnr_retry_cnt > 7 ? 7 : r->rnr_retry_cnt;
}

/* Starts resolving the path's destination address: a new rdma_cm ID for
 * the connection; 0 or an errno. kc.lock held. */
static int conn_resolve(kc_conn_t *c, const ib_path_rec_t *pp, int ib, uint32_t ifindex)
{
	struct sockaddr_storage src, dst;

	if (rdma_create_id(kc.ch, &c->id, (void *)(uintptr_t)c->cid, ib ? RDMA_PS_IB : RDMA_PS_TCP))
		return errno;
	verbs_kcm_gid_addr(&pp->sgid, ib, ifindex, pp->pkey, 0, (struct sockaddr *)&src);
	verbs_kcm_gid_addr(&pp->dgid, ib, ifindex, pp->pkey, c->svc_id, (struct sockaddr *)&dst);
	if (ib) {
		((struct sockaddr_ib *)&src)->sib_sid = 0;
		((struct sockaddr_ib *)&src)->sib_sid_mask = 0;
	} else if (src.ss_family == AF_INET) {
		((struct sockaddr_in *)&src)->sin_port = 0;   /* any local port */
	} else {
		((struct sockaddr_in6 *)&src)->sin6_port = 0;
	}
	/* A source of another family than the destination (the port's
	 * link-local GID to an IPv4-mapped one): the kernel picks it. */
	return rdma_resolve_addr(c->id, src.ss_family == dst.ss_family ? (struct sockaddr *)&src : NULL,
				 (struct sockaddr *)&dst, 4000) ? errno : 0;
}

/* The QP of a request: RESET, then INIT on the path's port (posting receives works now). */
static ib_api_status_t kc_req_qp_init(ib_qp_handle_t h_qp, ib_qp_state_t cur, uint8_t port,
				      uint16_t pkey_index)
{
	ib_qp_mod_t m;

	if (cur != IB_QPS_RESET)
		al_cm_qp_to_state(h_qp, IB_QPS_RESET);
	memset(&m, 0, sizeof(m));
	m.req_state = IB_QPS_INIT;
	m.state.init.primary_port = port;
	m.state.init.pkey_index = pkey_index;
	m.state.init.access_ctrl = IB_AC_LOCAL_WRITE;
	return ib_modify_qp(h_qp, &m);
}

static ib_api_status_t kc_req(const ib_cm_req_t *r, al_qp_t *p_qp)
{
	const ib_path_rec_t *pp = r->p_primary_path;
	uint32_t max_pdata, ifindex = 0, off = 0;
	ib_qp_attr_t qa;
	kc_conn_t *c;
	uint8_t port = 0;
	uint16_t pkey_index = 0;
	int ib = 0, err;
	ib_api_status_t st;
	cl_event_t sync;
	boolean_t do_sync;

	if (r->qp_type != IB_QPT_RELIABLE_CONN || r->p_alt_path || r->pfn_cm_req_cb)
		return IB_UNSUPPORTED;  /* UC, failover, peer-to-peer: not through the kernel CM */
	st = ib_query_qp(r->h_qp, &qa);
	if (st != IB_SUCCESS)
		return st;
	if (qa.qp_type != r->qp_type)
		return IB_INVALID_SETTING;
	if (qa.state != IB_QPS_RESET && qa.state != IB_QPS_INIT)
		return IB_INVALID_QP_STATE;
	st = port_of_gid(p_qp, &pp->sgid, &port, &pkey_index, pp->pkey, &ib, &ifindex);
	if (st != IB_SUCCESS)
		return st;
	if (!ib && !verbs_kcm_sid_is_tcp(cl_ntoh64(r->svc_id)))
		off = VERBS_KCM_SID_HDR;
	max_pdata = ib ? IB_REQ_PDATA_SIZE : VERBS_KCM_IP_REQ_PDATA - off;
	if (r->req_length > max_pdata)
		return IB_INVALID_SETTING;
	pthread_mutex_lock(&kc.lock);
	st = conn_by_qp_locked(p_qp) ? IB_INVALID_STATE : kc_start_locked();
	pthread_mutex_unlock(&kc.lock);
	if (st != IB_SUCCESS)
		return st;
	st = sync_enter(r->flags, &sync, &do_sync);
	if (st != IB_SUCCESS)
		return st;
	st = kc_req_qp_init(r->h_qp, qa.state, port, pkey_index);
	if (st == IB_SUCCESS)
		st = conn_new(p_qp->p_pd->p_ca->v.obj.p_parent, &c);
	if (st != IB_SUCCESS)
		goto fail_sync;
	pthread_mutex_lock(&kc.lock);
	conn_from_req(c, r, p_qp, ib, off);
	if (do_sync) {
		c->p_sync = &sync;
		c->sync_kinds = 1u << KE_REP | 1u << KE_REJ;
	}
	err = conn_resolve(c, pp, ib, ifindex);
	if (err) {
		IBAL_DBG(IBAL_SUB_CM, "REQ: resolve: %s", strerror(err));
		c->p_sync = NULL;
		pthread_mutex_unlock(&kc.lock);
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
		conn_end(c);
		st = verbs_errno_status(err);
		goto fail_sync;
	}
	pthread_mutex_unlock(&kc.lock);
	sync_leave(do_sync, &sync, IB_SUCCESS);
	return IB_SUCCESS;
fail_sync:
	sync_leave(do_sync, &sync, st);
	return st;
}

/* The QP a REP offers: RC, in RESET or INIT, of the REQ's device. */
static ib_api_status_t kc_rep_qp_check(const ib_cm_rep_t *r, const al_qp_t *p_qp,
				       ib_net64_t dev_guid, ib_qp_attr_t *p_qa)
{
	ib_api_status_t st = ib_query_qp(r->h_qp, p_qa);

	if (st != IB_SUCCESS)
		return st;
	if (p_qa->qp_type != IB_QPT_RELIABLE_CONN)
		return IB_INVALID_SETTING;
	if (p_qa->state != IB_QPS_RESET && p_qa->state != IB_QPS_INIT)
		return IB_INVALID_QP_STATE;
	if (p_qp->p_pd->p_ca->p_ci->guid != dev_guid)
		return IB_INVALID_SETTING;  /* a QP of another CA than the REQ's */
	return IB_SUCCESS;
}

/* The REP's QP through RESET and INIT to RTR on the connection's ID, then
 * the user's receives; back to RESET on failure. kc.lock held. */
static ib_api_status_t kc_rep_qp_rtr(kc_conn_t *c, const ib_cm_rep_t *r, ib_qp_state_t cur)
{
	ib_api_status_t st;

	if (cur != IB_QPS_RESET)
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
	st = verbs_kcm_qp_to(c->id, r->h_qp, IB_QPS_INIT, r->access_ctrl | IB_AC_LOCAL_WRITE);
	if (st == IB_SUCCESS)
		st = verbs_kcm_qp_to(c->id, r->h_qp, IB_QPS_RTR, 0);
	if (st == IB_SUCCESS && r->p_recv_wr)
		st = ib_post_recv(r->h_qp, r->p_recv_wr, r->pp_recv_failure);
	if (st != IB_SUCCESS)
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
	return st;
}

/* What rdma_accept() sends for a REP. */
static void rep_conn_param(struct rdma_conn_param *cp, const kc_conn_t *c, const ib_cm_rep_t *r,
			   const al_qp_t *p_qp, const ib_qp_attr_t *p_qa)
{
	verbs_ca_t *ca = ((const verbs_qp_t *)p_qp->v.p_prov)->pd->ca;

	memset(cp, 0, sizeof(*cp));
	cp->private_data = r->p_rep_pdata;
	cp->private_data_len = r->rep_length;
	cp->responder_resources = clamp_rd(ca, c->peer_init_depth, 1);
	cp->initiator_depth =
		clamp_rd(ca, r->init_depth < c->peer_resp_res ? r->init_depth : c->peer_resp_res, 0);
	cp->flow_control = r->flow_ctrl ? 1 : 0;
	cp->rnr_retry_count = r->rnr_retry_cnt > 7 ? 7 : r->rnr_retry_cnt;
	cp->qp_num = cl_ntoh32(p_qa->num);
	cp->srq = p_qa->h_srq != NULL;
}

static ib_api_status_t kc_rep(const ib_cm_handle_t *h, const ib_cm_rep_t *r)
{
	kc_conn_t *c;
	al_qp_t *p_qp;
	ib_qp_attr_t qa;
	struct rdma_conn_param cp;
	ib_api_status_t st;
	cl_event_t sync;
	boolean_t do_sync = FALSE;
	ib_net64_t dev_guid = 0;
	int err;

	st = conn_of_handle(h, r, &c);
	if (st != IB_SUCCESS)
		return st;
	st = c->state == KC_REQ_RCVD ? IB_SUCCESS : IB_INVALID_STATE;
	if (st == IB_SUCCESS)
		dev_guid = (ib_net64_t)ibv_get_device_guid(c->id->verbs->device);
	pthread_mutex_unlock(&kc.lock);
	if (st != IB_SUCCESS) {
		al_obj_deref(&c->obj);
		return st;
	}
	if (r->qp_type != IB_QPT_RELIABLE_CONN || (r->rep_length && !r->p_rep_pdata) ||
	    (r->p_recv_wr && !r->pp_recv_failure)) {
		al_obj_deref(&c->obj);
		return r->qp_type != IB_QPT_RELIABLE_CONN ? IB_INVALID_SETTING : IB_INVALID_PARAMETER;
	}
	p_qp = (al_qp_t *)AL_ENTER(r->h_qp, AL_HDL_QP);
	if (!p_qp) {
		al_obj_deref(&c->obj);
		return IB_INVALID_QP_HANDLE;
	}
	st = sync_enter(r->flags, &sync, &do_sync);
	if (st != IB_SUCCESS)
		goto out_qp;
	st = kc_rep_qp_check(r, p_qp, dev_guid, &qa);
	if (st != IB_SUCCESS)
		goto out_sync;
	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_REQ_RCVD || conn_by_qp_locked(p_qp)) {
		st = IB_INVALID_STATE;
		goto out_locked;
	}
	st = kc_rep_qp_rtr(c, r, qa.state);
	if (st != IB_SUCCESS)
		goto out_locked;
	c->h_qp = r->h_qp;
	c->p_qp = p_qp;
	c->qp_context = p_qp->v.obj.context;
	c->access = r->access_ctrl;
	c->pfn_rej = r->pfn_cm_rej_cb;
	c->pfn_rtu = r->pfn_cm_rtu_cb;
	c->pfn_dreq = r->pfn_cm_dreq_cb;
	rep_conn_param(&cp, c, r, p_qp, &qa);
	err = rdma_accept(c->id, &cp) ? errno : 0;
	if (err) {
		IBAL_DBG(IBAL_SUB_CM, "REP: rdma_accept: %s", strerror(err));
		al_cm_qp_to_state(r->h_qp, IB_QPS_RESET);
		conn_unbind_locked(c);
		st = verbs_errno_status(err);
		goto out_locked;
	}
	c->state = KC_REP_SENT;
	if (do_sync) {
		c->p_sync = &sync;
		c->sync_kinds = 1u << KE_RTU | 1u << KE_REJ;
	}
out_locked:
	pthread_mutex_unlock(&kc.lock);
out_sync:
	if (st != IB_SUCCESS)
		IBAL_DBG(IBAL_SUB_CM, "ib_cm_rep: %s", ib_get_err_str(st));
	sync_leave(do_sync, &sync, st);
out_qp:
	AL_EXIT(r->h_qp);
	al_obj_deref(&c->obj);
	return st;
}

static ib_api_status_t kc_rtu(const ib_cm_handle_t *h, const ib_cm_rtu_t *r)
{
	kc_conn_t *c;
	ib_api_status_t st = conn_of_handle(h, r, &c);

	if (st != IB_SUCCESS)
		return st;
	if (r->rtu_length)
		st = r->p_rtu_pdata ? IB_UNSUPPORTED : IB_INVALID_SETTING;  /* no RTU data through librdmacm */
	else if (c->state != KC_REP_RCVD || !c->h_qp)
		st = IB_INVALID_STATE;
	if (st == IB_SUCCESS)
		st = verbs_kcm_qp_to(c->id, c->h_qp, IB_QPS_RTS, r->access_ctrl);
	if (st == IB_SUCCESS) {
		if (rdma_establish(c->id)) {
			st = verbs_errno_status(errno);
		} else {
			c->state = KC_EST;
			c->pfn_dreq = r->pfn_cm_dreq_cb;
		}
	}
	conn_put_unlock(c);
	return st;
}

static ib_api_status_t kc_rej(const ib_cm_handle_t *h, const ib_cm_rej_t *r)
{
	kc_conn_t *c;
	ib_api_status_t st = conn_of_handle(h, r, &c);
	boolean_t end = FALSE;

	if (st != IB_SUCCESS)
		return st;
	if (r->rej_length > IB_REJ_PDATA_SIZE || (r->rej_length && !r->p_rej_pdata) ||
	    r->ari_length > IB_ARI_SIZE || (r->ari_length && !r->p_ari))
		st = IB_INVALID_SETTING;
	else if (c->state != KC_REQ_RCVD && c->state != KC_REP_RCVD)
		st = IB_INVALID_STATE;
	else if (rdma_reject(c->id, r->p_rej_pdata, r->rej_length))
		st = verbs_errno_status(errno);
	if (st == IB_SUCCESS) {
		if (c->h_qp)
			al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
		c->state = KC_DEAD;
		end = TRUE;
	}
	pthread_mutex_unlock(&kc.lock);
	if (end)
		conn_end(c);
	al_obj_deref(&c->obj);
	return st;
}

static ib_api_status_t kc_dreq(const ib_cm_dreq_t *r)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(r->h_qp, AL_HDL_QP);
	kc_conn_t *c;
	ib_api_status_t st = IB_SUCCESS;
	cl_event_t sync;
	boolean_t do_sync = FALSE;

	if (!p_qp)
		return IB_NOT_FOUND;  /* ibal's CM gives the status */
	pthread_mutex_lock(&kc.lock);
	c = conn_by_qp_locked(p_qp);
	if (c)
		al_obj_ref(&c->obj);
	pthread_mutex_unlock(&kc.lock);
	if (!c) {
		AL_EXIT(r->h_qp);
		return IB_NOT_FOUND;
	}
	if (r->dreq_length)
		st = IB_UNSUPPORTED;  /* librdmacm sends no DREQ private data */
	else if (!r->pfn_cm_drep_cb)
		st = IB_INVALID_SETTING;
	if (st == IB_SUCCESS)
		st = sync_enter(r->flags, &sync, &do_sync);
	if (st != IB_SUCCESS)
		goto out;
	pthread_mutex_lock(&kc.lock);
	if (c->state != KC_EST) {
		st = IB_INVALID_STATE;
	} else {
		al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
		c->pfn_drep = r->pfn_cm_drep_cb;
		c->state = KC_DREQ_SENT;
		if (do_sync) {
			c->p_sync = &sync;
			c->sync_kinds = 1u << KE_DREP;
		}
		if (rdma_disconnect(c->id)) {
			st = verbs_errno_status(errno);
			c->p_sync = NULL;
			c->state = KC_EST;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	sync_leave(do_sync, &sync, st);
out:
	al_obj_deref(&c->obj);
	AL_EXIT(r->h_qp);
	return st;
}

static ib_api_status_t kc_drep(const ib_cm_handle_t *h, const ib_cm_drep_t *r)
{
	kc_conn_t *c;
	ib_api_status_t st = conn_of_handle(h, r, &c);

	if (st != IB_SUCCESS)
		return st;
	if (r->drep_length)
		st = r->p_drep_pdata ? IB_UNSUPPORTED : IB_INVALID_SETTING;  /* no DREP data either */
	else if (c->state != KC_DREQ_RCVD)
		st = IB_INVALID_STATE;
	else if (rdma_disconnect(c->id))
		st = verbs_errno_status(errno);
	if (st == IB_SUCCESS)
		enter_timewait_locked(c);
	conn_put_unlock(c);
	return st;
}

/* Handoff: the REQ goes to the listen of another service ID of this process. */
static ib_api_status_t kc_handoff(const ib_cm_handle_t *h, ib_net64_t svc_id)
{
	kc_conn_t *c;
	al_listen_t *p_l;
	kc_ev_t *e;
	ib_api_status_t st = conn_of_handle(h, &svc_id, &c);

	if (st != IB_SUCCESS)
		return st;
	if (c->state != KC_REQ_RCVD) {
		conn_put_unlock(c);
		return IB_INVALID_STATE;
	}
	p_l = listen_match_locked(cl_ntoh64(svc_id), IB_ALL_CAS, NULL, 0);
	pthread_mutex_unlock(&kc.lock);
	if (!p_l) {
		al_obj_deref(&c->obj);
		return IB_INVALID_PARAMETER;
	}
	e = ev_new(c, KE_REQ, (void *)p_l->info.pfn_cm_req_cb);
	if (!e) {
		al_obj_deref(&p_l->obj);
		al_obj_deref(&c->obj);
		return IB_INSUFFICIENT_MEMORY;
	}
	e->p_listen = p_l;
	e->rec.req.context = p_l->obj.context;
	e->rec.req.h_cm_req = *h;
	e->rec.req.h_cm_listen = (ib_listen_handle_t)al_obj_h(&p_l->obj);
	e->rec.req.p_req_pdata = e->pdata;
	e->rec.req.qp_type = IB_QPT_RELIABLE_CONN;
	e->rec.req.resp_res = c->peer_resp_res;
	ev_queue(e);
	al_obj_deref(&c->obj);
	return IB_SUCCESS;
}

static boolean_t kc_has_qp(ib_qp_handle_t h_qp)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	boolean_t has;

	if (!p_qp)
		return FALSE;
	pthread_mutex_lock(&kc.lock);
	has = conn_by_qp_locked(p_qp) != NULL;
	pthread_mutex_unlock(&kc.lock);
	AL_EXIT(h_qp);
	return has;
}

static void kc_qp_destroying(void *p_qp)
{
	kc_conn_t *c;

	pthread_mutex_lock(&kc.lock);
	c = conn_by_qp_locked(p_qp);
	if (c) {
		al_obj_ref(&c->obj);
		conn_unbind_locked(c);
	}
	pthread_mutex_unlock(&kc.lock);
	if (!c)
		return;
	conn_end(c);  /* rdma_destroy_id: DREQ or REJ to the peer */
	al_obj_deref(&c->obj);
}

static const al_cm_kern_ops_t kc_ops = {
	.owns_ca = kc_owns_ca,
	.listen = kc_listen,
	.cancel = kc_cancel,
	.req = kc_req,
	.rep = kc_rep,
	.rtu = kc_rtu,
	.rej = kc_rej,
	.dreq = kc_dreq,
	.drep = kc_drep,
	.handoff = kc_handoff,
	.has_qp = kc_has_qp,
	.qp_destroying = kc_qp_destroying,
};

/* ---- init ---- */

static int kernel_cm_loaded(void)
{
	return access("/sys/module/ib_cm", F_OK) == 0;
}

void verbs_kcm_init(void)
{
	const char *mode = getenv("IBAL_CM");
	struct ibv_device **list;
	int n = 0, i;

	if (mode && !strcmp(mode, "ibal"))
		return;
	if (!(mode && !strcmp(mode, "kernel")) && !kernel_cm_loaded())
		return;
	pthread_mutex_lock(&kc.lock);
	cl_qmap_init(&kc.conns);
	cl_qlist_init(&kc.lports);
	cl_qlist_init(&kc.listens);
	kc.n_guids = 0;
	verbs_for_each_ca(add_ca, NULL);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);

		if (ctx) {
			kc.any_ib |= device_is_ib(ctx, 1);
			ibv_close_device(ctx);
		}
	}
	if (list)
		ibv_free_device_list(list);
	kc.on = kc.n_guids != 0;
	pthread_mutex_unlock(&kc.lock);
	if (kc.on) {
		IBAL_DBG(IBAL_SUB_CM, "the kernel CM runs ib_cm_* on %u CA(s)", kc.n_guids);
		al_cm_kern_set(&kc_ops);
	}
}

/*
 * A CA added while running is the kernel CM's too (GUIDs are only ever
 * added: one that went away is never asked about again; kc.any_ib keeps
 * its value from the start). When a CA went away, librdmacm is made to
 * re-read its device list (rdma_get_devices): it keeps a device it once
 * used open, without a connection, until it sees the device gone, and a
 * device whose driver cannot disassociate (rxe) is not removed by the
 * kernel while a context of it is open. That re-read opens the devices
 * still there (librdmacm keeps them until they too go away).
 */
void verbs_kcm_devices_changed(int some_gone)
{
	struct ibv_context **list;

	if (!kc.on)
		return; /* ibal's own CM, or no CA when the access layer started */
	pthread_mutex_lock(&kc.lock);
	verbs_for_each_ca(add_new_ca, NULL);
	pthread_mutex_unlock(&kc.lock);
	if (!some_gone)
		return;
	list = rdma_get_devices(NULL);
	if (list)
		rdma_free_devices(list);
	IBAL_DBG(IBAL_SUB_CM, "device list changed: librdmacm re-read it");
}

void verbs_kcm_cleanup(void)
{
	uint64_t one = 1;

	if (!kc.on)
		return;
	al_cm_kern_set(NULL);
	pthread_mutex_lock(&kc.lock);
	while (cl_qlist_count(&kc.listens))
		cl_free(cl_qlist_remove_head(&kc.listens));
	while (cl_qlist_count(&kc.lports)) {
		kc_lport_t *lp = PARENT_STRUCT(cl_qlist_remove_head(&kc.lports), kc_lport_t, item);

		rdma_destroy_id(lp->id);
		cl_free(lp);
	}
	pthread_mutex_unlock(&kc.lock);
	if (kc.running) {
		__atomic_store_n(&kc.stop, TRUE, __ATOMIC_RELEASE);
		if (write(kc.stop_fd, &one, sizeof(one)) != sizeof(one))
			IBAL_DBG(IBAL_SUB_CM, "stop: %s", strerror(errno));
		pthread_join(kc.thread, NULL);
		close(kc.stop_fd);
		kc.stop_fd = -1;
		rdma_destroy_event_channel(kc.ch);
		kc.ch = NULL;
		kc.running = FALSE;
		kc.stop = FALSE;
	}
	kc.on = FALSE;
}

#else /* !HAVE_VERBS_PROV */
typedef int verbs_kcm_unused_t;
#endif /* HAVE_VERBS_PROV */
