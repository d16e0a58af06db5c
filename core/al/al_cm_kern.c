/*
 * ibal access layer: the ib_cm_* calls through librdmacm while the kernel's CM owns the CM class:
 * CAs, the event thread's start, connections, time-wait, callbacks, listens, the client (start, stop, CA list changes).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A connection (kc_conn_t) is an access-layer object (a child of its AL
 * instance) around one rdma_cm_id with no QP of librdmacm's: the user's QP
 * moves with the attributes rdma_init_qp_attr() gives (al_cm_kern_qp.c).
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
 *
 * The rdma_cm events are al_cm_kern_events.c's, the ib_cm_* calls
 * al_cm_kern_calls.c's; al_cm_kern_int.h is what the files share. The CAs
 * whose CM this path runs are the devices libibverbs lists; everything else
 * it learns of a CA comes through the access layer (its QPs and the
 * provider's CA attributes), never from a provider's objects.
 */
#include "al_cm_kern_int.h"
#include "ibal_time.h"

#ifdef HAVE_AL_CM_KERN

kc_global_t kc = { .lock = PTHREAD_MUTEX_INITIALIZER, .stop_fd = -1 };

/* ---- CAs ---- */

boolean_t kc_owns_ca(ib_net64_t ca_guid)
{
	uint32_t i;

	for (i = 0; i < __atomic_load_n(&kc.n_guids, __ATOMIC_ACQUIRE); i++)
		if (kc.guids[i] == ca_guid)
			return TRUE;
	return FALSE;
}

/* Port 1's link layer from sysfs ("InfiniBand", "Ethernet"): 1 InfiniBand,
 * 0 not, -1 unknown (no such file: a device of another kind). */
static int kc_sysfs_is_ib(const struct ibv_device *dev)
{
	char path[IBV_SYSFS_PATH_MAX + 32], ll[32];
	FILE *f;
	int ib = -1;

	if (snprintf(path, sizeof(path), "%s/ports/1/link_layer", dev->ibdev_path) >=
	    (int)sizeof(path))
		return -1;
	f = fopen(path, "re");
	if (!f)
		return -1;
	if (fgets(ll, sizeof(ll), f))
		ib = strncmp(ll, "Ethernet", 8) != 0;
	fclose(f);
	return ib;
}

/* Whether port 1 of a device is InfiniBand: sysfs says, without opening the
 * device (an open and a port query cost a few milliseconds on rxe under
 * emulation, in every process's first ib_open_al); else the port's attributes. */
static int kc_device_is_ib(struct ibv_device *dev)
{
	struct ibv_context *ctx;
	struct ibv_port_attr pa;
	int ib = kc_sysfs_is_ib(dev);

	if (ib >= 0)
		return ib;
	ctx = ibv_open_device(dev);
	if (!ctx)
		return 0;
	ib = !ibv_query_port(ctx, 1, &pa) && pa.link_layer != IBV_LINK_LAYER_ETHERNET;
	ibv_close_device(ctx);
	return ib;
}

/*
 * Reads libibverbs' device list: the CAs whose CM this path runs are its
 * devices, by node GUID (the CA GUID the verbs provider gives them). A
 * device seen for the first time is added (GUIDs are only ever added: one
 * that went away is never asked about again); kc.any_ib is set at the first
 * read. Returns whether a device listed at the last read is gone. kc.lock held.
 */
static int kc_read_devices_locked(boolean_t first)
{
	ib_net64_t now[KC_MAX_CAS];
	struct ibv_device **list;
	uint32_t n_now = 0, i, j;
	int n = 0, k, gone = 0;

	list = ibv_get_device_list(&n);
	for (k = 0; list && k < n && n_now < KC_MAX_CAS; k++) {
		now[n_now++] = (ib_net64_t)ibv_get_device_guid(list[k]);
		if (first)
			kc.any_ib |= kc_device_is_ib(list[k]);
		if (!kc_owns_ca(now[n_now - 1]) && kc.n_guids < KC_MAX_CAS) {
			kc.guids[kc.n_guids] = now[n_now - 1];
			__atomic_store_n(&kc.n_guids, kc.n_guids + 1, __ATOMIC_RELEASE);
		}
	}
	if (list)
		ibv_free_device_list(list);
	for (i = 0; i < kc.n_present; i++) {
		for (j = 0; j < n_now && now[j] != kc.present[i]; j++)
			;
		gone |= j == n_now;
	}
	memcpy(kc.present, now, n_now * sizeof(now[0]));
	kc.n_present = n_now;
	return gone;
}

/* ---- the event thread and channel ---- */


/* Starts the channel and thread on first use; kc.lock held. */
ib_api_status_t kc_start_locked(void)
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

void kc_conn_unbind_locked(kc_conn_t *c)
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
	kc_conn_unbind_locked(c);
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
ib_api_status_t kc_conn_new(al_obj_t *p_parent, kc_conn_t **pp)
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
kc_conn_t *kc_conn_get_locked(uint32_t cid)
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
ib_api_status_t kc_conn_of_handle(const ib_cm_handle_t *h, const void *arg, kc_conn_t **pp)
{
	kc_conn_t *c;

	pthread_mutex_lock(&kc.lock);
	c = kc_conn_get_locked(cl_ntoh32(h->cid));
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

void kc_conn_put_unlock(kc_conn_t *c)
{
	pthread_mutex_unlock(&kc.lock);
	al_obj_deref(&c->obj);
}

kc_conn_t *kc_conn_by_qp_locked(const void *p_qp)
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
void kc_conn_end(kc_conn_t *c)
{
	al_obj_destroy(&c->obj, NULL);
}

ib_cm_handle_t kc_conn_handle(const kc_conn_t *c)
{
	ib_cm_handle_t h;

	h.h_al = c->h_al;
	h.h_qp = c->h_qp;
	h.cid = cl_hton32(c->cid);
	return h;
}

/* ---- time-wait ---- */

uint32_t kc_twait_of(uint8_t pkt_life)
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
void kc_enter_timewait_locked(kc_conn_t *c)
{
	c->state = KC_TIMEWAIT;
	c->twait_end_ms = ibal_time_ms(CLOCK_MONOTONIC) + c->twait_ms;
	IBAL_DBG(IBAL_SUB_CM, "cid 0x%x: time-wait %u ms", c->cid, c->twait_ms);
	kc_wake();
}

/* Ends the connections whose time-wait is over; returns the poll timeout
 * until the next one (-1: none). The event thread. */
int kc_timewait_run(void)
{
	cl_map_item_t *it;
	uint64_t now = ibal_time_ms(CLOCK_MONOTONIC), next = UINT64_MAX;
	kc_conn_t *done = NULL;

	pthread_mutex_lock(&kc.lock);
	for (it = cl_qmap_head(&kc.conns); it != cl_qmap_end(&kc.conns); it = cl_qmap_next(it)) {
		kc_conn_t *c = PARENT_STRUCT(it, kc_conn_t, item);

		if (c->state != KC_TIMEWAIT)
			continue;
		if (c->twait_end_ms <= now && !done) {
			done = c;
			al_obj_ref(&c->obj);
			kc_conn_unbind_locked(c);
			c->state = KC_DEAD;
		} else if (c->twait_end_ms < next) {
			next = c->twait_end_ms;
		}
	}
	pthread_mutex_unlock(&kc.lock);
	if (done) {
		IBAL_DBG(IBAL_SUB_CM, "time-wait of cid 0x%x over", done->cid);
		kc_conn_end(done);
		al_obj_deref(&done->obj);
		return 0;   /* look again at once */
	}
	if (next == UINT64_MAX)
		return -1;
	return next - now > 60000 ? 60000 : (int)(next - now);
}

/* ---- callbacks ---- */

/*
 * A queued callback is over: it returned (@p ran), or it could not be
 * queued. One callback fewer is pending; a synchronous caller is woken when
 * it waited for this kind of callback, or when the connection ended and its
 * last callback is over (conn_destroying left the waiter to it). The
 * event's references go with it.
 */
static void ev_finish(kc_ev_t *e, boolean_t ran)
{
	kc_conn_t *c = e->p_conn;
	cl_event_t *p_sync = NULL;

	pthread_mutex_lock(&kc.lock);
	c->cb_pending--;
	if (c->p_sync && ((ran && (c->sync_kinds & (1u << e->kind))) ||
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

static void AL_API ev_run(void *context)
{
	kc_ev_t *e = (kc_ev_t *)context;

	switch (e->kind) {
	case KE_REQ: ((ib_pfn_cm_req_cb_t)e->pfn)(&e->rec.req); break;
	case KE_REP: ((ib_pfn_cm_rep_cb_t)e->pfn)(&e->rec.rep); break;
	case KE_RTU: ((ib_pfn_cm_rtu_cb_t)e->pfn)(&e->rec.rtu); break;
	case KE_REJ: ((ib_pfn_cm_rej_cb_t)e->pfn)(&e->rec.rej); break;
	case KE_DREQ: ((ib_pfn_cm_dreq_cb_t)e->pfn)(&e->rec.dreq); break;
	case KE_DREP: ((ib_pfn_cm_drep_cb_t)e->pfn)(&e->rec.drep); break;
	}
	ev_finish(e, TRUE);
}

kc_ev_t *kc_ev_new(kc_conn_t *c, int kind, void *pfn)
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

void kc_ev_queue(kc_ev_t *e)
{
	kc_conn_t *c = e->p_conn;

	al_obj_ref(&c->obj);
	pthread_mutex_lock(&kc.lock);
	c->cb_pending++;
	pthread_mutex_unlock(&kc.lock);
	if (al_obj_queue_callback(&c->obj, ev_run, e) != IB_SUCCESS)
		ev_finish(e, FALSE);
}

static void queue_rej(kc_conn_t *c, ib_rej_status_t reason, const void *pdata, uint8_t len)
{
	kc_ev_t *e = kc_ev_new(c, KE_REJ, (void *)c->pfn_rej);

	if (!e)
		return;
	if (pdata && len)
		memcpy(e->pdata, pdata, len > IB_REJ_PDATA_SIZE ? IB_REJ_PDATA_SIZE : len);
	e->rec.rej.rej_status = reason;
	e->rec.rej.p_rej_pdata = e->pdata;
	e->rec.rej.h_qp = c->h_qp;
	e->rec.rej.qp_context = c->qp_context;
	kc_ev_queue(e);
}

/* Ends an exchange that failed or was rejected: the QP to ERROR, the rej
 * callback with @p reason, the connection ended. Called with kc.lock held;
 * releases it. */
void kc_conn_fail_unlock(kc_conn_t *c, ib_rej_status_t reason, const void *pdata, uint8_t len)
{
	if (c->h_qp)
		al_cm_qp_to_state(c->h_qp, IB_QPS_ERROR);
	c->state = KC_DEAD;
	pthread_mutex_unlock(&kc.lock);
	queue_rej(c, reason, pdata, len);
	kc_conn_end(c);
}

/* ---- listens ---- */

static uint64_t listen_key(const al_listen_t *p_l, boolean_t ib)
{
	uint64_t sid = cl_ntoh64(p_l->info.svc_id);

	return ib ? sid : kc_sid_port(sid);
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
		len = kc_gid_addr(&any, 1, 0, 0, key, (struct sockaddr *)&ss);
		(void)len;
	} else {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)key);
		sin6->sin6_addr = in6addr_any;
	}
	err = rdma_bind_addr(lp->id, (struct sockaddr *)&ss) ? errno : 0;
	/* Backlog 0: the kernel's largest (net.rdma_ucm.max_backlog, 1024 by
	 * default), as rdma-core's tools ask. The kernel drops a REQ that finds
	 * the backlog's count of unread CONNECT_REQUEST events reached, and the
	 * client waits a CM timeout (seconds) to send it again: with 64, a burst
	 * of requests arriving while the event thread was behind stalled so. */
	if (!err)
		err = rdma_listen(lp->id, 0) ? errno : 0;
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

ib_api_status_t kc_listen(al_listen_t *p_l)
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

void kc_cancel(al_listen_t *p_l)
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
al_listen_t *kc_listen_match_locked(uint64_t sid, ib_net64_t ca_guid, const uint8_t *pdata,
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
kc_lport_t *kc_lport_of_id_locked(const struct rdma_cm_id *id)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&kc.lports); it != cl_qlist_end(&kc.lports); it = cl_qlist_next(it))
		if (PARENT_STRUCT(it, kc_lport_t, item)->id == id)
			return PARENT_STRUCT(it, kc_lport_t, item);
	return NULL;
}

/* ---- the client: start, stop, CA list changes ---- */

static int kernel_cm_loaded(void)
{
	return access("/sys/module/ib_cm", F_OK) == 0;
}

/* The first ib_open_al: installs the ops when the kernel's CM is loaded (or
 * IBAL_CM=kernel) and libibverbs lists a device; IBAL_CM=ibal keeps ibal's
 * own CM. */
static void kc_client_start(void)
{
	const char *mode = getenv("IBAL_CM");

	if (mode && !strcmp(mode, "ibal"))
		return;
	if (!(mode && !strcmp(mode, "kernel")) && !kernel_cm_loaded())
		return;
	pthread_mutex_lock(&kc.lock);
	cl_qmap_init(&kc.conns);
	cl_qlist_init(&kc.lports);
	cl_qlist_init(&kc.listens);
	kc.n_guids = 0;
	kc.n_present = 0;
	kc.any_ib = 0;
	kc_read_devices_locked(TRUE);
	kc.on = kc.n_guids != 0;
	pthread_mutex_unlock(&kc.lock);
	if (kc.on) {
		IBAL_DBG(IBAL_SUB_CM, "the kernel CM runs ib_cm_* on %u CA(s)", kc.n_guids);
		al_cm_kern_set(&kc_ops);
	}
}

/*
 * A provider's set of CAs changed: a new libibverbs device is the kernel
 * CM's too (kc.any_ib keeps its value from the start). When a device went
 * away, librdmacm is made to re-read its device list (rdma_get_devices): it
 * keeps a device it once used open, without a connection, until it sees the
 * device gone, and a device whose driver cannot disassociate (rxe) is not
 * removed by the kernel while a context of it is open. That re-read opens
 * the devices still there (librdmacm keeps them until they too go away).
 */
static void kc_client_ca_list_changed(void)
{
	struct ibv_context **list;
	int gone;

	pthread_mutex_lock(&kc.lock);
	if (!kc.on) {
		pthread_mutex_unlock(&kc.lock);
		return; /* ibal's own CM, or no CA when the access layer started */
	}
	gone = kc_read_devices_locked(FALSE);
	pthread_mutex_unlock(&kc.lock);
	if (!gone)
		return;
	list = rdma_get_devices(NULL);
	if (list)
		rdma_free_devices(list);
	IBAL_DBG(IBAL_SUB_CM, "device list changed: librdmacm re-read it");
}

/* The last ib_close_al (the providers are unloaded: no CA list change comes
 * any more): stops the event thread and frees the listens (no connection is
 * left). */
static void kc_client_stop(void)
{
	uint64_t one = 1;

	if (!kc.on)
		return;
	al_cm_kern_set(NULL);
	pthread_mutex_lock(&kc.lock);
	kc.on = FALSE;
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
}

const al_client_t al_cm_kern_client = {
	.name = "cm-kernel",
	.start = kc_client_start,
	.stop = kc_client_stop,
	.ca_list_changed = kc_client_ca_list_changed,
};

#else /* !HAVE_AL_CM_KERN */
typedef int al_cm_kern_kern_unused_t;
#endif /* HAVE_AL_CM_KERN */
