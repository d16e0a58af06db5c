/*
 * ibal access layer: the connection manager's agents (a QP1 alias and MAD service per port), sending, timers.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_cm_int.h for the locks.
 */
#include "al_cm_int.h"
#include "al_mad.h"
#include "ibal_log.h"
#include "ibal_random.h"
#include "ibal_time.h"

/* The CM's lock is taken by the MAD dispatcher's thread (received messages)
 * and by callback threads (the user's ib_cm_* calls) for short stretches:
 * it spins a little before sleeping, as a Windows critical section does,
 * rather than pay a futex wait and wake for most contended takes. */
#ifdef PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
#define AL_CM_LOCK_INIT PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP
#else
#define AL_CM_LOCK_INIT PTHREAD_MUTEX_INITIALIZER
#endif

al_cm_globals_t al_cm_g = {
	.lock = AL_CM_LOCK_INIT,
	.agent_lock = PTHREAD_MUTEX_INITIALIZER,
	.agent_cond = PTHREAD_COND_INITIALIZER,
};

/* ---- Small helpers ---- */

/* 4.096 us * 2^exp, in ms, at least 1. */
uint32_t al_cm_time_ms(uint8_t exp)
{
	uint64_t ns = (uint64_t)4096 << (exp > 31 ? 31 : exp);
	uint64_t ms = ns / 1000000u + 1;

	return ms > 0x7FFFFFFFu ? 0x7FFFFFFFu : (uint32_t)ms;
}

uint32_t al_cm_rand24(void)
{
	uint32_t v;

	do
		v = ibal_random32() & 0xFFFFFFu;
	while (!v);
	return v;
}

static int CL_API key_cmp(const void *const p1, const void *const p2)
{
	const cm_key_t *k1 = (const cm_key_t *)p1, *k2 = (const cm_key_t *)p2;

	if (k1->a != k2->a)
		return k1->a < k2->a ? -1 : 1;
	if (k1->b != k2->b)
		return k1->b < k2->b ? -1 : 1;
	if (k1->c != k2->c)
		return k1->c < k2->c ? -1 : 1;
	return 0;
}

void al_cm_lists_init_locked(void)
{
	uint32_t i;

	if (al_cm_g.lists_init)
		return;
	cm_hash_init(&al_cm_g.ids);
	cm_hash_init(&al_cm_g.remotes);
	cm_hash_init(&al_cm_g.qpns);
	cm_hash_init(&al_cm_g.qps);
	cm_hash_init(&al_cm_g.dests);
	cl_fmap_init(&al_cm_g.timers, key_cmp);
	for (i = 0; i < AL_CM_TIMER_LISTS; i++)
		cl_qlist_init(&al_cm_g.tlists[i].ceps);
	cl_fmap_init(&al_cm_g.listens, key_cmp);
	cl_qlist_init(&al_cm_g.peers);
	al_cm_g.lists_init = TRUE;
}

/* Puts an entry in a table under {a, b, c} (moving it when its key
 * changed), or takes it out (@p on FALSE); al_cm_g.lock held. Keys are
 * unique: their last field names the object. */
void al_cm_idx_set(cl_fmap_t *p_map, cm_index_t *p_idx, boolean_t on, uint64_t a, uint64_t b, uint64_t c)
{
	if (p_idx->on && on && p_idx->key.a == a && p_idx->key.b == b && p_idx->key.c == c)
		return;
	if (p_idx->on)
		cl_fmap_remove_item(p_map, &p_idx->item);
	p_idx->on = FALSE;
	if (!on)
		return;
	p_idx->key.a = a;
	p_idx->key.b = b;
	p_idx->key.c = c;
	p_idx->on = cl_fmap_insert(p_map, &p_idx->key, &p_idx->item) == &p_idx->item;
}

/* The first entry whose key starts with {a, b} (b = 0: with a), in key
 * order: the walk goes on with cl_fmap_next while the fields match. Needs
 * the last key field to be non-zero. */
cl_fmap_item_t *al_cm_idx_first(const cl_fmap_t *p_map, uint64_t a, uint64_t b)
{
	cm_key_t k = { a, b, 0 };

	return cl_fmap_get_next(p_map, &k);
}

/* ---- Sends in flight ---- */

/*
 * CM messages made and not yet completed: queued, then handed to the MAD
 * layer. ib_close_al() waits (al_cm_client.al_closed, bounded) until they
 * are out, so that the DREP, DREQ or REJ a closing instance sends reaches
 * the peer even when the process exits right after.
 *
 * A message is made under al_cm_g.lock (its MAD taken from the agent's pool
 * and packed) and queued on txq; al_cm_unlock() releases the lock and then
 * hands the queue to the MAD layer. ib_send_mad() posts to the provider's
 * QP1 and reaps its send completions; done under al_cm_g.lock it kept the
 * MAD dispatcher's thread (received messages) and the callback threads
 * (the user's ib_cm_* calls) waiting for each other.
 *
 * The count is one atomic add a message each way; send_lock (a leaf) and
 * send_cond are for al_cm_drain_sends() only, which says it waits in
 * drainers before it looks at the count: a count that reaches zero after
 * that look finds drainers set and wakes it under the lock.
 */
static pthread_mutex_t send_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t send_cond = PTHREAD_COND_INITIALIZER;
static uint32_t sends_in_flight;    /* atomic: queued or handed to the MAD layer */
static uint32_t drainers;           /* atomic: al_cm_drain_sends() callers waiting */

#define AL_CM_DRAIN_MS 1000 /* longest ib_close_al() waits for CM sends */

static void send_count(int delta)
{
	if (__atomic_add_fetch(&sends_in_flight, (uint32_t)delta, __ATOMIC_SEQ_CST) ||
	    !__atomic_load_n(&drainers, __ATOMIC_SEQ_CST))
		return;
	pthread_mutex_lock(&send_lock);
	pthread_cond_broadcast(&send_cond);
	pthread_mutex_unlock(&send_lock);
}

/* Gives back a MAD of the agents' own: one al_cm_send_to() took, or
 * one their callbacks got; out, with no send record. The MAD layer's
 * direct put, not ib_put_mad(), which first looks the element up among
 * every pool's (for an application's, which may be anything). */
static void put_own(ib_mad_element_t *p_mad)
{
	al_mad_pool_put(al_mad_elem_from_ib(p_mad));
}

/* Sends one queued MAD to its service (in context1 while queued). */
static void send_one(void *entry)
{
	ib_mad_element_t *p_mad = (ib_mad_element_t *)entry;
	ib_mad_svc_handle_t h_svc = (ib_mad_svc_handle_t)p_mad->context1;

	p_mad->context1 = NULL;
	if (ib_send_mad(h_svc, p_mad, NULL) != IB_SUCCESS) {
		put_own(p_mad);
		send_count(-1);
	}
}

static cm_outq_t txq = CM_OUTQ_INIT(ib_mad_element_t, p_next, send_one);

/* Queues a packed MAD for its service. */
static void txq_put(ib_mad_svc_handle_t h_svc, ib_mad_element_t *p_mad)
{
	p_mad->context1 = h_svc;
	send_count(1);
	al_cm_outq_put(&txq, p_mad);
}

void al_cm_unlock(void)
{
	pthread_mutex_unlock(&al_cm_g.lock);
	al_cm_ev_flush();
	al_cm_outq_run(&txq, FALSE);
}

void al_cm_drain_sends(void)
{
	struct timespec until;

	al_cm_outq_run(&txq, TRUE);
	until = ibal_time_after_us(CLOCK_REALTIME, (uint64_t)AL_CM_DRAIN_MS * 1000u);
	pthread_mutex_lock(&send_lock);
	__atomic_add_fetch(&drainers, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&sends_in_flight, __ATOMIC_SEQ_CST) &&
	       pthread_cond_timedwait(&send_cond, &send_lock, &until) == 0)
		;
	__atomic_sub_fetch(&drainers, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&send_lock);
}

/* ---- Agents ---- */

static void AL_API agent_on_send(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	(void)h_svc;
	(void)ctx;
	put_own(p_mad);
	send_count(-1);
}

static void AL_API agent_on_recv(const ib_mad_svc_handle_t h_svc, void *ctx, ib_mad_element_t *p_mad)
{
	(void)h_svc;
	al_cm_recv((cm_port_t *)ctx, p_mad);
	put_own(p_mad);
}

static void agents_close(cm_agents_t *p_ag)
{
	uint32_t i;

	pthread_mutex_lock(&p_ag->port_lock);
	p_ag->closing = TRUE;
	pthread_mutex_unlock(&p_ag->port_lock);
	al_client_unwatch_ports(p_ag->p_watch);   /* its callbacks are over */
	if (p_ag->h_al) {
		/* Destroying the QP1 aliases cancels what they still send: the
		 * DREP or REJ of the endpoint whose end brought us here. */
		al_cm_drain_sends();
		for (i = 0; i < p_ag->n_ports; i++)
			al_port_agent_close(&p_ag->ports[i].agent);
		al_client_close_al(p_ag->h_al);
	}
	pthread_mutex_destroy(&p_ag->port_lock);
	cl_free(p_ag->ports);
	cl_free(p_ag);
}

static ib_api_status_t agent_open_port(cm_port_t *p_port)
{
	ib_mad_svc_t svc;
	ib_api_status_t st;

	memset(&svc, 0, sizeof(svc));
	svc.mad_svc_context = p_port;
	svc.pfn_mad_send_cb = agent_on_send;
	svc.pfn_mad_recv_cb = agent_on_recv;
	svc.support_unsol = TRUE;
	svc.mgmt_class = IB_MCLASS_COMM_MGMT;
	svc.mgmt_version = AL_CM_CLASS_VERSION;
	svc.method_array[IB_MAD_METHOD_SEND] = TRUE;
	svc.svc_type = IB_MAD_SVC_RAW;      /* TIDs untouched: see al_cm_new_tid() */
	st = al_port_agent_open(&p_port->agent, p_port->h_ca, p_port->port_guid, 256, &svc,
				&al_port_agent_public);
	/* The agents' callbacks neither block nor wait for the MAD layer, and
	 * take al_cm_g.lock themselves: they run where the MAD completes, a
	 * thread hand-over less per CM message (al_mad.h). */
	if (st == IB_SUCCESS)
		(void)al_mad_svc_set_direct(p_port->agent.h_svc); /* a live handle */
	return st;
}

/*
 * A port is there (the CM's watch of the ports, on an AL callback thread): a
 * port without an agent gets one, on the CA handle of a port of the same CA
 * or a new one (closed with the set's AL instance). The ports present when
 * the set was made come first, and are skipped.
 */
void al_cm_port_added(void *context, const al_client_port_t *p_port)
{
	cm_agents_t *p_ag = (cm_agents_t *)context;
	ib_ca_handle_t h_ca = NULL;
	cm_port_t *pp;
	uint32_t i, n;

	if (al_cm_kern_owns(p_port->ca_guid))
		return;         /* the kernel's CM runs it (al_cm_kern.h) */
	pthread_mutex_lock(&p_ag->port_lock);
	n = p_ag->n_ports;
	if (p_ag->closing || n >= AL_CM_MAX_PORTS)
		goto out;
	for (i = 0; i < n; i++) {
		if (p_ag->ports[i].port_guid == p_port->port_guid)
			goto out;       /* has its agent */
		if (p_ag->ports[i].ca_guid == p_port->ca_guid)
			h_ca = p_ag->ports[i].h_ca;
	}
	if (!h_ca && ib_open_ca(p_ag->h_al, p_port->ca_guid, NULL, NULL, &h_ca) != IB_SUCCESS)
		goto out;
	pp = &p_ag->ports[n];
	memset(pp, 0, sizeof(*pp));
	pp->ca_guid = p_port->ca_guid;
	pp->port_guid = p_port->port_guid;
	pp->port_num = p_port->port_num;
	pp->h_ca = h_ca;
	if (agent_open_port(pp) == IB_SUCCESS)
		__atomic_store_n(&p_ag->n_ports, n + 1, __ATOMIC_RELEASE);
	else
		memset(pp, 0, sizeof(*pp));
	/* A CA opened here and left without a port stays open until the set's
	 * AL instance closes. */
out:
	pthread_mutex_unlock(&p_ag->port_lock);
}

static ib_api_status_t agents_open(cm_agents_t **pp_ag)
{
	cm_agents_t *p_ag = (cm_agents_t *)cl_zalloc(sizeof(*p_ag));
	ib_net64_t *guids = NULL;
	size_t n = 0, i;
	ib_ca_attr_t *p_attr;
	ib_api_status_t st;
	uint32_t size, total = 0;
	uint8_t p;
	ib_ca_handle_t h_ca;

	if (!p_ag)
		return IB_INSUFFICIENT_MEMORY;
	pthread_mutex_init(&p_ag->port_lock, NULL);
	st = ib_open_al(&p_ag->h_al);
	if (st != IB_SUCCESS) {
		p_ag->h_al = NULL;
		goto fail;
	}
	st = ib_get_ca_guids(p_ag->h_al, NULL, &n);
	if (st == IB_SUCCESS || !n) {
		st = IB_ERROR;
		goto fail;
	}
	guids = (ib_net64_t *)cl_zalloc(n * sizeof(*guids));
	p_ag->ports = (cm_port_t *)cl_zalloc(AL_CM_MAX_PORTS * sizeof(cm_port_t));
	if (!guids || !p_ag->ports) {
		st = IB_INSUFFICIENT_MEMORY;
		goto fail;
	}
	st = ib_get_ca_guids(p_ag->h_al, guids, &n);
	if (st != IB_SUCCESS)
		goto fail;
	for (i = 0; i < n; i++) {
		if (al_cm_kern_owns(guids[i]) ||
		    ib_open_ca(p_ag->h_al, guids[i], NULL, NULL, &h_ca) != IB_SUCCESS)
			continue;
		size = 0;
		if (ib_query_ca(h_ca, NULL, &size) != IB_INSUFFICIENT_MEMORY)
			continue;
		p_attr = (ib_ca_attr_t *)cl_zalloc(size);
		if (!p_attr)
			continue;
		if (ib_query_ca(h_ca, p_attr, &size) == IB_SUCCESS)
			for (p = 0; p < p_attr->num_ports && total < AL_CM_MAX_PORTS; p++) {
				cm_port_t *pp = &p_ag->ports[total];

				pp->ca_guid = guids[i];
				pp->port_guid = p_attr->p_port_attr[p].port_guid;
				pp->port_num = p_attr->p_port_attr[p].port_num;
				pp->h_ca = h_ca;
				if (agent_open_port(pp) == IB_SUCCESS)
					total++;
				else
					memset(pp, 0, sizeof(*pp));
			}
		cl_free(p_attr);
	}
	p_ag->n_ports = total;
	cl_free(guids);
	if (!total && !al_cm_kern_get()) {  /* with kernel CM ops, their CAs suffice */
		st = IB_ERROR;
		guids = NULL;
		goto fail;
	}
	/* Ports added later: the CM's port_added (the ones above come again
	 * first, and are skipped). Without the watch, those ports have no agent. */
	if (al_client_watch_ports(&al_cm_client, p_ag, &p_ag->p_watch) != IB_SUCCESS)
		p_ag->p_watch = NULL;
	*pp_ag = p_ag;
	return IB_SUCCESS;
fail:
	cl_free(guids);
	agents_close(p_ag);
	return st;
}

/* Counts a user of the agents in, making them if needed. */
ib_api_status_t al_cm_get(cm_agents_t **pp_ag)
{
	ib_api_status_t st = IB_SUCCESS;

	pthread_mutex_lock(&al_cm_g.agent_lock);
	while (!al_cm_g.p_agents && al_cm_g.teardowns)
		pthread_cond_wait(&al_cm_g.agent_cond, &al_cm_g.agent_lock);
	if (!al_cm_g.p_agents) {
		if (!al_cm_g.timer_init) {
			cl_timer_construct(&al_cm_g.timer);
			if (cl_timer_init(&al_cm_g.timer, al_cm_timer_cb, NULL) != CL_SUCCESS) {
				pthread_mutex_unlock(&al_cm_g.agent_lock);
				return IB_ERROR;
			}
			al_cm_g.timer_init = TRUE;
			__atomic_store_n(&al_cm_g.timer_at, 0, __ATOMIC_RELAXED);
		}
		st = agents_open(&al_cm_g.p_agents);
		if (st != IB_SUCCESS)
			al_cm_g.p_agents = NULL;
	}
	if (st == IB_SUCCESS) {
		al_cm_g.users++;
		*pp_ag = al_cm_g.p_agents;
	}
	pthread_mutex_unlock(&al_cm_g.agent_lock);
	return st;
}

static void *teardown_thread(void *arg)
{
	boolean_t last;

	agents_close((cm_agents_t *)arg);
	pthread_mutex_lock(&al_cm_g.agent_lock);
	last = !al_cm_g.users && !al_cm_g.p_agents && al_cm_g.teardowns == 1;
	pthread_mutex_unlock(&al_cm_g.agent_lock);
	/* No CEP is left, so no callback event is out: the cache goes, before
	 * al_cm_quiesce() (ib_close_al) returns. (A user come meanwhile finds
	 * an empty cache.) Taken with no other lock held. */
	if (last)
		al_cm_ev_cache_drain();
	pthread_mutex_lock(&al_cm_g.agent_lock);
	al_cm_g.teardowns--;
	if (!al_cm_g.users && !al_cm_g.p_agents && !al_cm_g.teardowns && al_cm_g.timer_init) {
		/* No CEP is left, so the timer's callback has nothing to do and
		 * takes no lock of ours but al_cm_g.lock. */
		cl_timer_destroy(&al_cm_g.timer);
		al_cm_g.timer_init = FALSE;
	}
	pthread_cond_broadcast(&al_cm_g.agent_cond);
	pthread_mutex_unlock(&al_cm_g.agent_lock);
	return NULL;
}

/* Counts a user out; the last ends the agents on a thread of their own
 * (ib_close_al is refused on AL callback threads, where this often runs). */
void al_cm_put(void)
{
	cm_agents_t *p_ag = NULL;
	pthread_t t;
	pthread_attr_t attr;
	boolean_t started = FALSE;

	pthread_mutex_lock(&al_cm_g.agent_lock);
	if (--al_cm_g.users == 0) {
		p_ag = al_cm_g.p_agents;
		al_cm_g.p_agents = NULL;
		al_cm_g.teardowns++;
	}
	pthread_mutex_unlock(&al_cm_g.agent_lock);
	if (!p_ag)
		return;
	if (!pthread_attr_init(&attr)) {
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		started = !pthread_create(&t, &attr, teardown_thread, p_ag);
		pthread_attr_destroy(&attr);
	}
	if (!started)
		teardown_thread(p_ag);
}

void al_cm_quiesce(void)
{
	pthread_mutex_lock(&al_cm_g.agent_lock);
	while (al_cm_g.teardowns)
		pthread_cond_wait(&al_cm_g.agent_cond, &al_cm_g.agent_lock);
	pthread_mutex_unlock(&al_cm_g.agent_lock);
}

uint32_t al_cm_cep_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&al_cm_g.lock);
	n = al_cm_g.lists_init ? cm_hash_count(&al_cm_g.ids) : 0;
	al_cm_unlock();
	return n;
}

uint32_t al_cm_port_count(void)
{
	uint32_t n;

	pthread_mutex_lock(&al_cm_g.agent_lock);
	n = al_cm_g.p_agents ? al_cm_n_ports(al_cm_g.p_agents) : 0;
	pthread_mutex_unlock(&al_cm_g.agent_lock);
	return n;
}

void al_cm_get_stats(al_cm_stats_t *p_stats)
{
	pthread_mutex_lock(&al_cm_g.lock);
	*p_stats = al_cm_g.stats;
	al_cm_unlock();
}

cm_port_t *al_cm_port_by_guid(cm_agents_t *p_ag, ib_net64_t port_guid)
{
	uint32_t i;

	uint32_t n = al_cm_n_ports(p_ag);

	for (i = 0; i < n; i++)
		if (p_ag->ports[i].port_guid == port_guid)
			return &p_ag->ports[i];
	return NULL;
}

/* The port of a GID: by its interface ID (the port GUID) on InfiniBand;
 * else (RoCE GIDs come from the port's addresses) in the ports' GID tables. */
cm_port_t *al_cm_port_by_gid(cm_agents_t *p_ag, const ib_gid_t *p_gid)
{
	cm_port_t *p_port = al_cm_port_by_guid(p_ag, p_gid->unicast.interface_id);
	uint32_t i, j, n = al_cm_n_ports(p_ag);

	for (i = 0; !p_port && i < n; i++) {
		ib_ca_attr_t *p_attr;
		ib_port_attr_t *p_pa;

		if (al_cm_port_attr(&p_ag->ports[i], &p_attr, &p_pa) != IB_SUCCESS)
			continue;
		for (j = 0; j < p_pa->num_gids && !p_port; j++)
			if (!memcmp(&p_pa->p_gid_table[j], p_gid, sizeof(*p_gid)))
				p_port = &p_ag->ports[i];
		cl_free(p_attr);
	}
	return p_port;
}

/* Port attributes of an agent's port (a cl_malloc'd block in *pp_attr). */
ib_api_status_t al_cm_port_attr(cm_port_t *p_port, ib_ca_attr_t **pp_attr, ib_port_attr_t **pp_pa)
{
	uint32_t size = 0;
	ib_ca_attr_t *p_attr;
	ib_api_status_t st;

	st = ib_query_ca(p_port->h_ca, NULL, &size);
	if (st != IB_INSUFFICIENT_MEMORY)
		return IB_ERROR;
	p_attr = (ib_ca_attr_t *)cl_zalloc(size);
	if (!p_attr)
		return IB_INSUFFICIENT_MEMORY;
	st = ib_query_ca(p_port->h_ca, p_attr, &size);
	if (st != IB_SUCCESS || p_port->port_num < 1 || p_port->port_num > p_attr->num_ports) {
		cl_free(p_attr);
		return st == IB_SUCCESS ? IB_INVALID_PORT : st;
	}
	*pp_attr = p_attr;
	*pp_pa = &p_attr->p_port_attr[p_port->port_num - 1];
	return IB_SUCCESS;
}

uint16_t al_cm_pkey_find(const ib_net16_t *p_tab, uint16_t n, ib_net16_t pkey, boolean_t *p_found)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		if ((p_tab[i] & IB_PKEY_BASE_MASK) == (pkey & IB_PKEY_BASE_MASK)) {
			if (p_found)
				*p_found = TRUE;
			return i;
		}
	return 0;
}

/* Guards every port's kept P_Key table; a leaf lock. */
static pthread_mutex_t pkey_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Index of a P_Key in a port's table (0 when absent). Every REQ asks it: the
 * table is kept in the port from the last query of the CA's attributes while
 * no port change came since (al_ca_attr_gen(), read before the query so that
 * a change during it voids what it read); a table longer than
 * AL_CM_PKEYS_KEPT is searched in a fresh query every time.
 */
uint16_t al_cm_pkey_index_of(cm_port_t *p_port, ib_net16_t pkey, boolean_t *p_found)
{
	uint32_t gen = al_ca_attr_gen();
	ib_ca_attr_t *p_attr;
	ib_port_attr_t *p_pa;
	uint16_t idx, n;

	if (p_found)
		*p_found = FALSE;
	pthread_mutex_lock(&pkey_lock);
	if (p_port->pkey_gen == gen + 1u) {
		idx = al_cm_pkey_find(p_port->pkeys, p_port->n_pkeys, pkey, p_found);
		pthread_mutex_unlock(&pkey_lock);
		return idx;
	}
	pthread_mutex_unlock(&pkey_lock);
	if (al_cm_port_attr(p_port, &p_attr, &p_pa) != IB_SUCCESS)
		return 0;
	n = p_pa->p_pkey_table ? p_pa->num_pkeys : 0;
	idx = al_cm_pkey_find(p_pa->p_pkey_table, n, pkey, p_found);
	if (n <= AL_CM_PKEYS_KEPT) {
		pthread_mutex_lock(&pkey_lock);
		if (n)
			memcpy(p_port->pkeys, p_pa->p_pkey_table, n * sizeof(p_port->pkeys[0]));
		p_port->n_pkeys = n;
		p_port->pkey_gen = gen + 1u;
		pthread_mutex_unlock(&pkey_lock);
	}
	cl_free(p_attr);
	return idx;
}

/*
 * Asks a port's MAD dispatcher, once, to grow its receive buffers before a
 * burst rather than during it (docs/mad.md): a listen may get any number of
 * connection requests at once, and a process with requests on the wire to
 * several remote ports may get their answers at once (al_cm_pace.c). Any
 * lock may be held.
 */
void al_cm_port_expect_burst(cm_port_t *p_port)
{
	if (!p_port->agent.h_svc || __atomic_exchange_n(&p_port->burst_asked, 1, __ATOMIC_RELAXED))
		return;
	al_mad_svc_expect_burst(p_port->agent.h_svc);
}

/* ---- Sending ---- */

/*
 * A TID for an exchange we start (REQ, SIDR_REQ, DREQ, LAP): a random upper
 * half per process and a counter; al_cm_g.lock held. Every message of the
 * exchange, both ways, carries it (as Linux's CM does): the passive side
 * answers a REQ with its TID, a DREQ's DREP and a LAP's APR (or MRA) carry
 * the TID of the DREQ or LAP. The agents' MAD service is IB_MAD_SVC_RAW, so
 * the MAD layer sends TIDs as they are (docs/mad.md).
 */
ib_net64_t al_cm_new_tid(void)
{
	return ibal_random64();
}

/* Makes one message to an address and queues it; al_cm_g.lock held: it is
 * sent when the lock is released (al_cm_unlock). */
void al_cm_send_to(cm_port_t *p_port, al_cm_msg_type_t type, const al_cm_msg_t *p_msg, ib_net64_t tid,
		    ib_net16_t dlid, uint8_t sl, uint16_t pkey_index, const ib_grh_t *p_rx_grh)
{
	ib_mad_element_t *p_mad;

	if (!p_port || ib_get_mad(p_port->agent.pool_key, MAD_BLOCK_SIZE, &p_mad) != IB_SUCCESS)
		return;
	al_cm_pack(type, p_msg, tid, p_mad->p_mad_buf);
	p_mad->size = MAD_BLOCK_SIZE;
	p_mad->context1 = NULL;
	p_mad->context2 = NULL;
	p_mad->remote_qp = IB_QP1;
	p_mad->remote_qkey = IB_QP1_WELL_KNOWN_Q_KEY;
	p_mad->h_av = NULL;
	p_mad->remote_lid = dlid;
	p_mad->remote_sl = sl;
	p_mad->pkey_index = pkey_index;
	p_mad->path_bits = 0;
	p_mad->grh_valid = p_rx_grh && p_mad->p_grh;
	if (p_mad->grh_valid) /* as received: the MAD layer reverses it */
		*p_mad->p_grh = *p_rx_grh;
	p_mad->send_opt = 0;
	p_mad->resp_expected = FALSE;
	p_mad->retry_cnt = 0;
	p_mad->timeout_ms = 0;
	if (type == AL_CM_MSG_REJ)
		al_cm_g.stats.n_rej_tx++;
	txq_put(p_port->agent.h_svc, p_mad);
}

/*
 * The GRH a CEP's messages need, in received orientation (source = the
 * peer), or NULL: paths that leave the subnet (hop limit above 1) and every
 * RoCE path, which has no LIDs, carry one.
 */
const ib_grh_t *al_cm_path_grh(const ib_path_rec_t *p_path, ib_grh_t *p_grh)
{
	if (ib_path_rec_hop_limit(p_path) <= 1)
		return NULL;
	memset(p_grh, 0, sizeof(*p_grh));
	p_grh->ver_class_flow = cl_hton32((6u << 28) | ((uint32_t)p_path->tclass << 20) |
					  (cl_ntoh32(ib_path_rec_flow_lbl(p_path)) & 0xFFFFFu));
	p_grh->hop_limit = ib_path_rec_hop_limit(p_path);
	p_grh->src_gid = p_path->dgid;
	p_grh->dest_gid = p_path->sgid;
	return p_grh;
}

void al_cm_cep_send_to(al_cep_t *p_cep, al_cm_msg_type_t type, const al_cm_msg_t *p_msg)
{
	ib_grh_t grh;

	al_cm_send_to(p_cep->p_port, type, p_msg, p_cep->tid, p_cep->dlid, p_cep->sl,
		      p_cep->pkey_index, al_cm_path_grh(&p_cep->path, &grh));
}

/* Sends a message of a CEP and keeps it as the last one sent; a request
 * beyond what its remote port may have unanswered waits (al_cm_pace.c). */
void al_cm_cep_send(al_cep_t *p_cep, al_cm_msg_type_t type, const al_cm_msg_t *p_msg)
{
	if (p_msg != &p_cep->last)
		p_cep->last = *p_msg;
	p_cep->last_type = type;
	p_cep->has_last = TRUE;
	if (al_cm_pace_send(p_cep, type))
		al_cm_cep_send_to(p_cep, type, p_msg);
}

void al_cm_cep_resend_last(al_cep_t *p_cep)
{
	if (p_cep->has_last && al_cm_pace_send(p_cep, p_cep->last_type))
		al_cm_cep_send_to(p_cep, p_cep->last_type, &p_cep->last);
}

/* A REJ from a CEP. */
void al_cm_cep_send_rej(al_cep_t *p_cep, ib_net16_t reason, al_cm_msg_ref_t ref,
			 const uint8_t *ari, uint8_t ari_len, const uint8_t *pdata, uint8_t plen)
{
	al_cm_msg_t m;

	IBAL_DBG(IBAL_SUB_CM, "comm ID 0x%x in %s: REJ (reason %u) to comm ID 0x%x",
		 p_cep->local_id, al_cm_state_name(p_cep->state), cl_ntoh16(reason), p_cep->remote_id);
	memset(&m, 0, sizeof(m));
	m.rej.local_comm_id = p_cep->local_id;
	m.rej.remote_comm_id = p_cep->remote_id;
	m.rej.msg_rejected = (uint8_t)ref;
	m.rej.reason = cl_ntoh16(reason);
	if (ari && ari_len) {
		m.rej.ari_length = ari_len > IB_ARI_SIZE ? IB_ARI_SIZE : ari_len;
		memcpy(m.rej.ari, ari, m.rej.ari_length);
	} else if (reason == IB_REJ_TIMEOUT && p_cep->p_port) {
		/* IBA 12.6.7.2: a timeout names the CA GUID of the side that gave up. */
		ib_net64_t guid = p_cep->p_port->ca_guid;

		m.rej.ari_length = sizeof(guid);
		memcpy(m.rej.ari, &guid, sizeof(guid));
	}
	if (pdata && plen)
		memcpy(m.rej.private_data, pdata, plen > IB_REJ_PDATA_SIZE ? IB_REJ_PDATA_SIZE : plen);
	al_cm_cep_send(p_cep, AL_CM_MSG_REJ, &m);
}

/* ---- Timers ---- */

/* The list for timeout @p ms: the one it has, else a free one; NULL if
 * every list has another timeout. */
static cm_timer_list_t *tlist_for(uint32_t ms)
{
	cm_timer_list_t *p_free = NULL;
	uint32_t i;

	for (i = 0; i < AL_CM_TIMER_LISTS; i++) {
		cm_timer_list_t *l = &al_cm_g.tlists[i];

		if (l->n && l->ms == ms)
			return l;
		if (!l->n && !p_free)
			p_free = l;
	}
	if (p_free)
		p_free->ms = ms;
	return p_free;
}

/*
 * Arms the CM's timer for a deadline of @p at (cl_get_time_stamp); al_cm_g.lock
 * held. A timer already due by then is left as it is (a trim takes the lock
 * of every complib timer): when it fires, al_cm_timer_cb() trims it again to
 * the first deadline still ahead, this one among them.
 */
void al_cm_timer_due(uint64_t at, uint32_t ms)
{
	uint64_t due = __atomic_load_n(&al_cm_g.timer_at, __ATOMIC_RELAXED);

	if (due && due <= at)
		return;
	cl_timer_trim(&al_cm_g.timer, ms);
	__atomic_store_n(&al_cm_g.timer_at, at, __ATOMIC_RELAXED);
}

/* Deadlines are kept in order (the timeout's list, else al_cm_g.timers),
 * so the timer's callback finds the expired CEPs and the next deadline at
 * the heads without walking others. */
static void timer_set(al_cep_t *p_cep, uint32_t ms)
{
	cm_timer_list_t *l;

	if (!ms)
		ms = 1;
	al_cm_timer_stop(p_cep);
	p_cep->deadline_us = cl_get_time_stamp() + (uint64_t)ms * 1000u;
	if (p_cep->listed) {
		l = tlist_for(ms);
		if (l) {
			cl_qlist_insert_tail(&l->ceps, &p_cep->time_item);
			l->n++;
			p_cep->p_tlist = l;
		} else {
			al_cm_idx_set(&al_cm_g.timers, &p_cep->by_time, TRUE, p_cep->deadline_us,
				      p_cep->local_id, 0);
		}
	}
	al_cm_timer_due(p_cep->deadline_us, ms);
}

void al_cm_timer_arm(al_cep_t *p_cep, uint32_t ms, uint32_t retries)
{
	p_cep->timeout_ms = ms;
	p_cep->retries_left = retries;
	timer_set(p_cep, ms);
}

/* Same timeout, the resends left unchanged (after a resend). */
void al_cm_timer_rearm(al_cep_t *p_cep, uint32_t ms)
{
	timer_set(p_cep, ms);
}

void al_cm_timer_stop(al_cep_t *p_cep)
{
	if (p_cep->p_tlist) {
		cl_qlist_remove_item(&p_cep->p_tlist->ceps, &p_cep->time_item);
		p_cep->p_tlist->n--;
		p_cep->p_tlist = NULL;
	}
	if (p_cep->by_time.on)
		al_cm_idx_set(&al_cm_g.timers, &p_cep->by_time, FALSE, 0, 0, 0);
}

al_cep_t *al_cm_timer_first(void)
{
	al_cep_t *p_first = NULL, *p;
	cl_fmap_item_t *it;
	uint32_t i;

	for (i = 0; i < AL_CM_TIMER_LISTS; i++) {
		if (!al_cm_g.tlists[i].n)
			continue;
		p = PARENT_STRUCT(cl_qlist_head(&al_cm_g.tlists[i].ceps), al_cep_t, time_item);
		if (!p_first || p->deadline_us < p_first->deadline_us)
			p_first = p;
	}
	it = cl_fmap_head(&al_cm_g.timers);
	if (it != cl_fmap_end(&al_cm_g.timers)) {
		p = IDX_CEP(it, by_time);
		if (!p_first || p->deadline_us < p_first->deadline_us)
			p_first = p;
	}
	return p_first;
}
