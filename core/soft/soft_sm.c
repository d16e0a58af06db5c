/*
 * ibal soft provider: the embedded subnet manager: election, sweeps, port bring-up, the SA's host.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Topology model. Every soft port has one link. The master SM's port (the
 * first soft port its process opened in the fabric directory) reaches any
 * other port in one directed-route hop: initial path {-, SM port number},
 * hop count 1, carried by soft_fabric_send_to() to the registry LID of the
 * port swept; the response comes back to the SM port's LID. Its own port it
 * reads with hop count 0, through its own SMA, without the fabric.
 * LID-routed packets are delivered by DLID as by one ideal switch; no
 * switch is modelled (NodeInfo of every node is a CA).
 *
 * LIDs. The registry's LID is a port's address on the fabric and what its
 * PortInfo reports from the start; the SM confirms it (Set PortInfo with
 * that LID) rather than choosing another, so addresses never move under
 * running users.
 *
 * Bring-up (per port): Get NodeInfo, NodeDescription, PortInfo; if the port
 * is not ACTIVE or its LID, MasterSMLID or GidPrefix differ, Set PortInfo
 * (LID, SM LID, SM SL 0, fe80::/64, PortState ARMED from INIT), then Set
 * PortInfo ACTIVE. What it read is pushed to the SA (soft_sa_port_update).
 *
 * Sweeps. A full sweep (every port in the registry) when the instance
 * becomes master or its port changes; otherwise ports are brought up when
 * they appear: the master watches the fabric directory with inotify (a
 * socket file `lid-XXXX` created or moved there marks that LID, unless a
 * port of this process holds it) and the local CA opens mark their ports.
 * Once up, a port is not asked again unless it is marked, its LID or owner
 * changes, or the SM port changes: an idle subnet carries no SMPs. A light sweep every $IBAL_SOFT_SM_SWEEP_MS
 * lists the registry (whose liveness checks notice processes that died),
 * brings up ports not yet up (a port failing three times in a row waits
 * for its LID to be marked again) and removes from the SA the ports gone.
 *
 * SMP exchange: one request outstanding at a time, 50 ms per try, 3 tries.
 * SMPs leave through the SM port, or while its link is DOWN (a port taken
 * down with ib_ci_call) through the first local port that is not, so that
 * the SM keeps managing the subnet without changing its LID; a local port
 * that is DOWN is not asked at all (it would not answer).
 *
 * Locks: `sm->lock` (the SM thread's state; released while it waits for a
 * response or polls), then `sm->sa_lock` (rwlock: the SA object; readers use
 * it, the SM's port changing destroys it), `sm->pub_lock` (innermost: the
 * role and port SMInfo reports). `list_lock` only guards the list and the
 * reference counts, and is never held with another.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>
#include "soft_fabric_int.h"
#include "soft_mad_agent.h"
#include "soft_sm.h"

#define SM_SMP_TIMEOUT_MS 50
#define SM_SMP_TRIES 3
#define SM_MAX_FAILURES 3
#define SM_LOCK_FILE "sm.lock"
#define SM_NLIDS 0xC000u

enum { PEND_NONE, PEND_WAIT, PEND_DONE, PEND_ABORT };

typedef struct sm_known {
	soft_fabric_port_info_t reg;  /* as the registry lists it */
	boolean_t seen;               /* in the current listing */
	boolean_t active;             /* brought up */
	unsigned failures;            /* bring-ups failed since last marked */
	soft_sa_port_t sa;            /* what the SA was told */
} sm_known_t;

struct soft_sm {
	struct soft_sm *next;
	char dir[PATH_MAX];
	pid_t pid;
	unsigned refs;                /* CAs (list_lock) */

	pthread_mutex_t pub_lock;     /* the three below */
	soft_port_t *pub_port;        /* the SM's port */
	int pub_master;
	uint32_t pub_act_count;

	pthread_rwlock_t sa_lock;
	soft_sa_t *sa;
	soft_port_t *sa_port;

	pthread_mutex_t lock;
	pthread_cond_t cond;          /* CLOCK_MONOTONIC */
	soft_port_t **ports;          /* local ports, in opening order */
	size_t n_ports, cap_ports;
	soft_port_t *sm_port;         /* ports[0] as the thread last saw it */
	int master;
	int lock_fd, ev_fd, ino_fd;
	int stop;
	pthread_t thread;
	int thread_started;
	sm_known_t *known;
	size_t n_known, cap_known;
	uint8_t *dirty;               /* bitmap of LIDs to bring up */
	uint8_t *work;                /* the bitmap the running sweep took */
	int dirty_any, full, sweep_req, in_sweep;
	uint64_t sweeps;
	uint64_t next_light_us;
	uint64_t next_sa_us;
	/* The outstanding SMP. */
	int pend_state;
	soft_port_t *pend_port;       /* the port the request left through */
	ib_net64_t pend_tid;
	ib_smp_t pend_resp;
	int sending;
	uint64_t tid_seq;
};

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct soft_sm *sm_list;
static struct soft_sm *sm_orphans; /* inherited across fork(), never used */

static struct {
	boolean_t enabled;
	uint32_t wait_ms, sweep_ms, retry_ms;
	uint8_t priority;
} cfg;
static pthread_once_t cfg_once = PTHREAD_ONCE_INIT;

/* The instance of a CA (set once its ports joined, read by its progress thread). */
static struct soft_sm *sm_of(soft_ca_t *ca)
{
	return __atomic_load_n(&ca->sm, __ATOMIC_ACQUIRE);
}

static uint32_t env_ms(const char *name, uint32_t dflt, uint32_t max)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return dflt;
	v = strtoul(s, &end, 0);
	return *end || v > max ? dflt : (uint32_t)v;
}

/* fork() takes the list lock, so the child sees a whole list. */
static void atfork_prepare(void)
{
	pthread_mutex_lock(&list_lock);
}

static void atfork_parent(void)
{
	pthread_mutex_unlock(&list_lock);
}

/* In a forked child: the parent's instances are not ours; close their
 * descriptors (so the child does not keep the master lock) and forget them. */
static void atfork_child(void)
{
	struct soft_sm *sm = sm_list, *next;

	pthread_mutex_init(&list_lock, NULL);
	for (; sm; sm = next) {
		next = sm->next;
		if (sm->lock_fd >= 0)
			close(sm->lock_fd);
		if (sm->ev_fd >= 0)
			close(sm->ev_fd);
		if (sm->ino_fd >= 0)
			close(sm->ino_fd);
		sm->lock_fd = sm->ev_fd = sm->ino_fd = -1;
		sm->next = sm_orphans;
		sm_orphans = sm;
	}
	sm_list = NULL;
}

static void cfg_read(void)
{
	const char *s = getenv(SOFT_ENV_SM);

	cfg.enabled = !(s && (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no")));
	cfg.wait_ms = env_ms(SOFT_ENV_SM_WAIT_MS, 3000, 600000);
	cfg.sweep_ms = env_ms(SOFT_ENV_SM_SWEEP_MS, 1000, 3600000);
	cfg.retry_ms = env_ms(SOFT_ENV_SM_RETRY_MS, 200, 3600000);
	cfg.priority = (uint8_t)env_ms(SOFT_ENV_SM_PRIORITY, 0, 15);
	if (!cfg.sweep_ms)
		cfg.sweep_ms = 1;
	if (!cfg.retry_ms)
		cfg.retry_ms = 1;
}

static void cfg_init(void)
{
	cfg_read();
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

void soft_sm_config_reload(void)
{
	pthread_once(&cfg_once, cfg_init);
	cfg_read();
}

boolean_t soft_sm_enabled(void)
{
	pthread_once(&cfg_once, cfg_init);
	return cfg.enabled;
}

uint32_t soft_sm_wait_ms(void)
{
	pthread_once(&cfg_once, cfg_init);
	return cfg.wait_ms;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static void abs_time(struct timespec *ts, uint64_t us)
{
	ts->tv_sec = (time_t)(us / 1000000u);
	ts->tv_nsec = (long)(us % 1000000u) * 1000L;
}

static void wake(struct soft_sm *sm)
{
	uint64_t one = 1;

	if (write(sm->ev_fd, &one, sizeof(one)) < 0) {
		/* the counter is full: the thread is being woken anyway */
	}
}

static void mark(struct soft_sm *sm, uint16_t lid)
{
	if (lid && lid < SM_NLIDS) {
		sm->dirty[lid / 8] |= (uint8_t)(1u << (lid % 8));
		sm->dirty_any = 1;
	}
}

static boolean_t is_marked(const uint8_t *map, uint16_t lid)
{
	return lid < SM_NLIDS && (map[lid / 8] & (1u << (lid % 8)));
}

/* ---- SMPs --------------------------------------------------------------- */

/* Sends @p smp (a Get or Set, directed route) to @p k and waits for the
 * response, which replaces it. sm->lock held (released while waiting). */
/* The port SMPs leave through (sm->lock held), or NULL. */
static soft_port_t *tx_port(struct soft_sm *sm)
{
	size_t i;

	if (sm->sm_port &&
	    __atomic_load_n(&sm->sm_port->link_state, __ATOMIC_ACQUIRE) != IB_LINK_DOWN)
		return sm->sm_port;
	for (i = 0; i < sm->n_ports; i++)
		if (__atomic_load_n(&sm->ports[i]->link_state, __ATOMIC_ACQUIRE) != IB_LINK_DOWN)
			return sm->ports[i];
	return NULL;
}

/* A local port that is DOWN (it would drop the SMP). */
static boolean_t local_down(struct soft_sm *sm, ib_net64_t guid)
{
	size_t i;

	for (i = 0; i < sm->n_ports; i++)
		if (sm->ports[i]->guid == guid)
			return __atomic_load_n(&sm->ports[i]->link_state, __ATOMIC_ACQUIRE) ==
			       IB_LINK_DOWN;
	return FALSE;
}

static boolean_t sm_smp(struct soft_sm *sm, const sm_known_t *k, ib_smp_t *smp)
{
	soft_port_t *port = tx_port(sm);
	soft_mad_addr_t dst;
	ib_smp_t req;
	struct timespec ts;
	int tries;

	if (!port || local_down(sm, k->reg.port_guid))
		return FALSE;
	smp->base_ver = 1;
	smp->mgmt_class = IB_MCLASS_SUBN_DIR;
	smp->class_ver = 1;
	smp->status = 0;
	smp->dr_slid = CL_HTON16(IB_LID_PERMISSIVE);
	smp->dr_dlid = CL_HTON16(IB_LID_PERMISSIVE);
	if (k->reg.port_guid == port->guid) {
		/* Hop count 0: the SM's own port, through its own SMA. */
		smp->hop_ptr = 0;
		smp->hop_count = 0;
		smp->trans_id = cl_hton64(++sm->tid_seq);
		if (!soft_sma_process(port, smp))
			return FALSE;
		smp->status |= IB_SMP_DIRECTION;
		return smp->method == IB_MAD_METHOD_GET_RESP;
	}
	smp->hop_count = 1;
	smp->hop_ptr = 1; /* the SM's SMI already stepped past its own port */
	smp->initial_path[1] = port->num;
	memset(&dst, 0, sizeof(dst));
	dst.pkey = 0xFFFF;
	for (tries = 0; tries < SM_SMP_TRIES; tries++) {
		smp->trans_id = cl_hton64(((uint64_t)(uint32_t)sm->pid << 32) | (++sm->tid_seq & 0xFFFFFFFFu));
		req = *smp;
		sm->pend_tid = smp->trans_id;
		sm->pend_state = PEND_WAIT;
		sm->pend_port = port;
		sm->sending = 1;
		pthread_mutex_unlock(&sm->lock);
		soft_agent_send(port, &req, MAD_BLOCK_SIZE, 0, &dst, IB_LID_PERMISSIVE, k->reg.lid);
		pthread_mutex_lock(&sm->lock);
		sm->sending = 0;
		pthread_cond_broadcast(&sm->cond);
		abs_time(&ts, now_us() + SM_SMP_TIMEOUT_MS * 1000u);
		while (sm->pend_state == PEND_WAIT && !sm->stop)
			if (pthread_cond_timedwait(&sm->cond, &sm->lock, &ts) == ETIMEDOUT)
				break;
		if (sm->pend_state == PEND_DONE) {
			*smp = sm->pend_resp;
			sm->pend_state = PEND_NONE;
			return TRUE;
		}
		if (sm->pend_state == PEND_ABORT || sm->stop || !sm->sm_port) {
			sm->pend_state = PEND_NONE;
			return FALSE;
		}
		sm->pend_state = PEND_NONE;
	}
	return FALSE;
}

static boolean_t sm_get(struct soft_sm *sm, const sm_known_t *k, ib_net16_t attr,
			ib_smp_t *smp)
{
	memset(smp, 0, sizeof(*smp));
	smp->method = IB_MAD_METHOD_GET;
	smp->attr_id = attr;
	return sm_smp(sm, k, smp) && !(smp->status & IB_SMP_STATUS_MASK);
}

static boolean_t sm_set_pi(struct soft_sm *sm, const sm_known_t *k, const ib_port_info_t *pi,
			   ib_port_info_t *p_out)
{
	ib_smp_t smp;

	memset(&smp, 0, sizeof(smp));
	smp.method = IB_MAD_METHOD_SET;
	smp.attr_id = IB_MAD_ATTR_PORT_INFO;
	memcpy(smp.data, pi, sizeof(*pi));
	if (!sm_smp(sm, k, &smp) || (smp.status & IB_SMP_STATUS_MASK))
		return FALSE;
	memcpy(p_out, smp.data, sizeof(*p_out));
	return TRUE;
}

/* ---- Bring-up ----------------------------------------------------------- */

static uint16_t sm_lid(const struct soft_sm *sm)
{
	return sm->sm_port ? soft_port_lid(sm->sm_port) : 0;
}

static void sa_update(struct soft_sm *sm, const sm_known_t *k)
{
	pthread_rwlock_rdlock(&sm->sa_lock);
	if (sm->sa)
		soft_sa_port_update(sm->sa, &k->sa);
	pthread_rwlock_unlock(&sm->sa_lock);
}

/* Reads a port and brings it to ACTIVE (sm->lock held, released while waiting). */
static boolean_t configure(struct soft_sm *sm, sm_known_t *k)
{
	ib_smp_t smp;
	ib_port_info_t pi, set;
	uint8_t state;
	uint16_t lid = k->reg.lid, mine = sm_lid(sm);

	if (!sm_get(sm, k, IB_MAD_ATTR_NODE_INFO, &smp))
		return FALSE;
	memcpy(&k->sa.node_info, smp.data, sizeof(k->sa.node_info));
	if (k->sa.node_info.port_guid != k->reg.port_guid)
		return FALSE; /* another port holds the LID now */
	if (!sm_get(sm, k, IB_MAD_ATTR_NODE_DESC, &smp))
		return FALSE;
	memcpy(&k->sa.node_desc, smp.data, sizeof(k->sa.node_desc));
	if (!sm_get(sm, k, IB_MAD_ATTR_PORT_INFO, &smp))
		return FALSE;
	memcpy(&pi, smp.data, sizeof(pi));
	state = ib_port_info_get_port_state(&pi);
	if (state == IB_LINK_DOWN)
		return FALSE;
	if (state != IB_LINK_ACTIVE || cl_ntoh16(pi.base_lid) != lid ||
	    cl_ntoh16(pi.master_sm_base_lid) != mine ||
	    pi.subnet_prefix != IB_DEFAULT_SUBNET_PREFIX) {
		set = pi;
		set.base_lid = cl_hton16(lid);
		set.master_sm_base_lid = cl_hton16(mine);
		set.subnet_prefix = IB_DEFAULT_SUBNET_PREFIX;
		set.mtu_smsl = pi.mtu_smsl & 0xF0;
		set.link_width_enabled = 0;      /* no change */
		set.link_speed = pi.link_speed & 0xF0; /* LinkSpeedEnabled: no change */
		set.state_info2 = 0;             /* PortPhysicalState: no change */
		set.state_info1 = (uint8_t)((pi.state_info1 & 0xF0) |
					    (state == IB_LINK_INIT ? IB_LINK_ARMED : IB_LINK_NO_CHANGE));
		if (!sm_set_pi(sm, k, &set, &pi))
			return FALSE;
		if (ib_port_info_get_port_state(&pi) == IB_LINK_ARMED) {
			set = pi;
			set.link_width_enabled = 0;
			set.link_speed = pi.link_speed & 0xF0;
			set.state_info2 = 0;
			set.state_info1 = (uint8_t)((pi.state_info1 & 0xF0) | IB_LINK_ACTIVE);
			if (!sm_set_pi(sm, k, &set, &pi))
				return FALSE;
		}
	}
	k->sa.port_info = pi;
	k->sa.port_num = k->reg.port_num;
	memset(&k->sa.guid_info, 0, sizeof(k->sa.guid_info));
	k->sa.guid_info.guid[0] = k->reg.port_guid;
	memset(&k->sa.pkey_table, 0, sizeof(k->sa.pkey_table));
	k->sa.pkey_table.pkey_entry[0] = CL_HTON16(0xFFFF);
	k->sa.peer_node_guid = 0;
	k->sa.peer_port_num = 0;
	sa_update(sm, k);
	return ib_port_info_get_port_state(&pi) == IB_LINK_ACTIVE;
}

static sm_known_t *find_known(struct soft_sm *sm, ib_net64_t guid)
{
	size_t i;

	for (i = 0; i < sm->n_known; i++)
		if (sm->known[i].reg.port_guid == guid)
			return &sm->known[i];
	return NULL;
}

static sm_known_t *add_known(struct soft_sm *sm, const soft_fabric_port_info_t *r)
{
	if (sm->n_known == sm->cap_known) {
		size_t cap = sm->cap_known ? sm->cap_known * 2 : 16;
		sm_known_t *n = realloc(sm->known, cap * sizeof(*n));

		if (!n)
			return NULL;
		sm->known = n;
		sm->cap_known = cap;
	}
	memset(&sm->known[sm->n_known], 0, sizeof(sm->known[0]));
	sm->known[sm->n_known].reg = *r;
	return &sm->known[sm->n_known++];
}

/* Lists the registry (sm->lock held). */
static soft_fabric_port_info_t *list_ports(struct soft_sm *sm, size_t *p_n)
{
	size_t cap = 64, n = 0;
	soft_fabric_port_info_t *v = NULL;
	ib_api_status_t st;

	for (;;) {
		soft_fabric_port_info_t *nv = realloc(v, cap * sizeof(*v));

		if (!nv) {
			free(v);
			return NULL;
		}
		v = nv;
		st = soft_fabric_port_list(sm->sm_port->fp, v, cap, &n);
		if (st == IB_SUCCESS)
			break;
		if (st != IB_INSUFFICIENT_MEMORY) {
			free(v);
			return NULL;
		}
		cap = n + 16;
	}
	*p_n = n;
	return v;
}

/* A port of this process that is up and agrees with the SM needs no SMP:
 * marks of the same opening can reach the SM twice (its own and inotify's). */
static boolean_t local_up(struct soft_sm *sm, const soft_fabric_port_info_t *r)
{
	size_t i;

	for (i = 0; i < sm->n_ports; i++) {
		soft_port_t *p = sm->ports[i];

		if (p->guid == r->port_guid) {
			boolean_t up;

			pthread_mutex_lock(&p->ca->lock);
			up = p->link_state == IB_LINK_ACTIVE && soft_port_lid(p) == r->lid &&
			     p->mgmt.sm_lid == sm_lid(sm) &&
			     p->mgmt.subnet_prefix == IB_DEFAULT_SUBNET_PREFIX;
			pthread_mutex_unlock(&p->ca->lock);
			return up;
		}
	}
	return FALSE;
}

static void sweep(struct soft_sm *sm)
{
	soft_fabric_port_info_t *v;
	uint8_t *work;
	size_t n, i;
	int full = sm->full;

	if (!sm->sm_port)
		return;
	/* Marks made from now on are for the next sweep. */
	work = sm->dirty;
	sm->dirty = sm->work;
	sm->work = work;
	memset(sm->dirty, 0, SM_NLIDS / 8);
	sm->dirty_any = 0;
	sm->full = 0;
	v = list_ports(sm, &n);
	if (!v)
		return;
	sm->in_sweep = 1;
	for (i = 0; i < sm->n_known; i++)
		sm->known[i].seen = FALSE;
	for (i = 0; i < n && !sm->stop && sm->sm_port; i++) {
		sm_known_t *k = find_known(sm, v[i].port_guid);
		boolean_t marked = is_marked(work, v[i].lid);
		ptrdiff_t idx;

		if (!k) {
			k = add_known(sm, &v[i]);
			if (!k)
				continue;
		} else if (k->reg.lid != v[i].lid || k->reg.owner_pid != v[i].owner_pid) {
			k->reg = v[i];
			k->active = FALSE;
			k->failures = 0;
		}
		k->seen = TRUE;
		if (marked)
			k->failures = 0;
		if (!(full || marked || (!k->active && k->failures < SM_MAX_FAILURES)))
			continue;
		if (!full && k->active && local_up(sm, &v[i]))
			continue;
		idx = k - sm->known;
		/* configure() may release the lock; `known` only changes on this thread. */
		if (configure(sm, k)) {
			sm->known[idx].active = TRUE;
			sm->known[idx].failures = 0;
		} else {
			sm->known[idx].active = FALSE;
			sm->known[idx].failures++;
		}
	}
	free(v);
	sm->in_sweep = 0;
	if (sm->stop || !sm->sm_port) {
		pthread_cond_broadcast(&sm->cond);
		return;
	}
	for (i = 0; i < sm->n_known;) {
		if (sm->known[i].seen) {
			i++;
			continue;
		}
		pthread_rwlock_rdlock(&sm->sa_lock);
		if (sm->sa)
			soft_sa_port_remove(sm->sa, sm->known[i].sa.node_info.node_guid
							    ? sm->known[i].sa.node_info.node_guid
							    : sm->known[i].reg.node_guid,
					    sm->known[i].reg.port_num);
		pthread_rwlock_unlock(&sm->sa_lock);
		sm->known[i] = sm->known[--sm->n_known];
	}
	sm->sweeps++;
	pthread_mutex_lock(&sm->pub_lock);
	sm->pub_act_count++;
	pthread_mutex_unlock(&sm->pub_lock);
	pthread_cond_broadcast(&sm->cond);
}

/* ---- SA host ------------------------------------------------------------ */

static void sa_send(void *ctx, const ib_mad_t *p_mad, const soft_mad_addr_t *p_dst)
{
	struct soft_sm *sm = ctx;

	/* Called by the SA with sa_lock held for reading: sa_port is stable. */
	if (sm->sa_port)
		soft_agent_send(sm->sa_port, p_mad, MAD_BLOCK_SIZE, 1, p_dst, p_dst->lid, 0);
}

static void sm_info_of(struct soft_sm *sm, soft_port_t *port, ib_sm_info_t *p)
{
	memset(p, 0, sizeof(*p));
	p->guid = port->guid;
	p->sm_key = 0;
	p->act_count = cl_hton32(sm->pub_act_count);
	p->pri_state = (uint8_t)((cfg.priority << 4) |
				 (sm->pub_master ? IB_SMINFO_STATE_MASTER : IB_SMINFO_STATE_STANDBY));
}

/* (Re)makes the SA on the current SM port (sm->lock held). */
static void sa_reset(struct soft_sm *sm)
{
	soft_sa_ops_t ops;
	ib_sm_info_t smi;
	size_t i;

	pthread_rwlock_wrlock(&sm->sa_lock);
	soft_sa_destroy(sm->sa);
	sm->sa = NULL;
	sm->sa_port = NULL;
	if (sm->master && sm->sm_port) {
		ops.ctx = sm;
		ops.send = sa_send;
		pthread_mutex_lock(&sm->pub_lock);
		sm_info_of(sm, sm->sm_port, &smi);
		pthread_mutex_unlock(&sm->pub_lock);
		sm->sa_port = sm->sm_port;
		sm->sa = soft_sa_create(&ops, &smi, soft_port_lid(sm->sm_port));
		for (i = 0; sm->sa && i < sm->n_known; i++)
			if (sm->known[i].active)
				soft_sa_port_update(sm->sa, &sm->known[i].sa);
	}
	pthread_rwlock_unlock(&sm->sa_lock);
	sm->next_sa_us = 0;
}

/* ---- The thread ---------------------------------------------------------- */

static void try_master(struct soft_sm *sm)
{
	if (sm->lock_fd < 0 || flock(sm->lock_fd, LOCK_EX | LOCK_NB))
		return;
	sm->master = 1;
	sm->ino_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (sm->ino_fd >= 0 &&
	    inotify_add_watch(sm->ino_fd, sm->dir, IN_CREATE | IN_MOVED_TO | IN_DELETE) < 0) {
		close(sm->ino_fd);
		sm->ino_fd = -1;
	}
	pthread_mutex_lock(&sm->pub_lock);
	sm->pub_master = 1;
	pthread_mutex_unlock(&sm->pub_lock);
	sm->full = 1;
	sa_reset(sm);
	pthread_cond_broadcast(&sm->cond);
}

static boolean_t is_local_lid(struct soft_sm *sm, uint16_t lid)
{
	size_t i;

	for (i = 0; i < sm->n_ports; i++)
		if (soft_port_lid(sm->ports[i]) == lid)
			return TRUE;
	return FALSE;
}

static void read_inotify(struct soft_sm *sm)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n;
	char *p;

	while ((n = read(sm->ino_fd, buf, sizeof(buf))) > 0) {
		for (p = buf; p < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)p;
			unsigned lid;

			if (e->len && sscanf(e->name, "lid-%x", &lid) == 1) {
				if (e->mask & IN_DELETE)
					sm->dirty_any = 1; /* the sweep notices who left */
				else if (!is_local_lid(sm, (uint16_t)lid))
					mark(sm, (uint16_t)lid); /* local opens mark their own */
			}
			p += sizeof(*e) + e->len;
		}
	}
}

/* The SM port (its identity: GUID, LID, the SA's port) is the first local
 * port; it changes only when that port's CA closes. A change remakes the SA
 * and sweeps everything (every port learns the new SM LID). */
static void follow_port(struct soft_sm *sm)
{
	soft_port_t *p = sm->n_ports ? sm->ports[0] : NULL;

	if (p == sm->sm_port)
		return;
	sm->sm_port = p;
	pthread_mutex_lock(&sm->pub_lock);
	sm->pub_port = p;
	pthread_mutex_unlock(&sm->pub_lock);
	if (sm->master) {
		sm->full = 1;
		sa_reset(sm);
	}
}

static void *sm_main(void *arg)
{
	struct soft_sm *sm = arg;
	struct pollfd pfd[2];
	uint64_t now, due, cnt;
	int timeout, nfd;

	pthread_mutex_lock(&sm->lock);
	while (!sm->stop) {
		follow_port(sm);
		if (!sm->master && sm->sm_port)
			try_master(sm);
		now = now_us();
		if (sm->master && sm->sm_port) {
			if (sm->ino_fd >= 0)
				read_inotify(sm);
			if (now >= sm->next_light_us) {
				sm->sweep_req = 1;
				sm->next_light_us = now + (uint64_t)cfg.sweep_ms * 1000u;
			}
			if (sm->full || sm->dirty_any || sm->sweep_req) {
				sm->sweep_req = 0;
				sweep(sm);
				continue; /* look at what arrived meanwhile */
			}
			if (now >= sm->next_sa_us) {
				pthread_rwlock_rdlock(&sm->sa_lock);
				sm->next_sa_us = sm->sa ? soft_sa_timer(sm->sa, now) : UINT64_MAX;
				pthread_rwlock_unlock(&sm->sa_lock);
			}
			due = sm->next_light_us < sm->next_sa_us ? sm->next_light_us : sm->next_sa_us;
		} else {
			due = now + (uint64_t)cfg.retry_ms * 1000u;
		}
		now = now_us();
		timeout = due <= now ? 0 : (due - now) / 1000u > 60000 ? 60000 : (int)((due - now + 999) / 1000u);
		pfd[0].fd = sm->ev_fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = sm->ino_fd;
		pfd[1].events = POLLIN;
		nfd = sm->master && sm->ino_fd >= 0 ? 2 : 1;
		pthread_mutex_unlock(&sm->lock);
		poll(pfd, (nfds_t)nfd, timeout);
		if (read(sm->ev_fd, &cnt, sizeof(cnt)) < 0) {
			/* nothing to drain */
		}
		pthread_mutex_lock(&sm->lock);
	}
	pthread_mutex_unlock(&sm->lock);
	return NULL;
}

/* ---- Instances ----------------------------------------------------------- */

static struct soft_sm *sm_new(const char *dir)
{
	struct soft_sm *sm = calloc(1, sizeof(*sm));
	pthread_condattr_t ca;
	char path[PATH_MAX + 16];

	if (!sm)
		return NULL;
	sm->dirty = calloc(SM_NLIDS / 8, 1);
	sm->work = calloc(SM_NLIDS / 8, 1);
	if (!sm->dirty || !sm->work) {
		free(sm->dirty);
		free(sm->work);
		free(sm);
		return NULL;
	}
	snprintf(sm->dir, sizeof(sm->dir), "%s", dir);
	sm->pid = getpid();
	pthread_mutex_init(&sm->lock, NULL);
	pthread_mutex_init(&sm->pub_lock, NULL);
	pthread_rwlock_init(&sm->sa_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sm->cond, &ca);
	pthread_condattr_destroy(&ca);
	snprintf(path, sizeof(path), "%s/%s", dir, SM_LOCK_FILE);
	sm->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	sm->ev_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	sm->ino_fd = -1;
	if (sm->ev_fd < 0) {
		if (sm->lock_fd >= 0)
			close(sm->lock_fd);
		free(sm->dirty);
		free(sm->work);
		free(sm);
		return NULL;
	}
	return sm;
}

static void sm_free(struct soft_sm *sm)
{
	soft_sa_destroy(sm->sa);
	if (sm->lock_fd >= 0)
		close(sm->lock_fd); /* releases the master role */
	if (sm->ev_fd >= 0)
		close(sm->ev_fd);
	if (sm->ino_fd >= 0)
		close(sm->ino_fd);
	pthread_mutex_destroy(&sm->lock);
	pthread_mutex_destroy(&sm->pub_lock);
	pthread_rwlock_destroy(&sm->sa_lock);
	pthread_cond_destroy(&sm->cond);
	free(sm->ports);
	free(sm->known);
	free(sm->dirty);
	free(sm->work);
	free(sm);
}

void soft_sm_ca_opened(soft_ca_t *ca)
{
	const char *dir = ca->port[0].fp->fab->dir;
	struct soft_sm *sm;
	unsigned i;

	if (!soft_sm_enabled())
		return;
	pthread_mutex_lock(&list_lock);
	for (sm = sm_list; sm; sm = sm->next)
		if (!strcmp(sm->dir, dir))
			break;
	if (!sm) {
		sm = sm_new(dir);
		if (sm) {
			sm->next = sm_list;
			sm_list = sm;
		}
	}
	if (sm)
		sm->refs++;
	pthread_mutex_unlock(&list_lock);
	if (!sm)
		return;
	pthread_mutex_lock(&sm->lock);
	if (sm->n_ports + ca->num_ports > sm->cap_ports) {
		size_t cap = sm->cap_ports * 2 + ca->num_ports + 4;
		soft_port_t **n = realloc(sm->ports, cap * sizeof(*n));

		if (n) {
			sm->ports = n;
			sm->cap_ports = cap;
		}
	}
	for (i = 0; i < ca->num_ports && sm->n_ports < sm->cap_ports; i++) {
		sm->ports[sm->n_ports++] = &ca->port[i];
		mark(sm, soft_port_lid(&ca->port[i]));
	}
	__atomic_store_n(&ca->sm, sm, __ATOMIC_RELEASE);
	follow_port(sm);
	if (!sm->thread_started && !pthread_create(&sm->thread, NULL, sm_main, sm))
		sm->thread_started = 1;
	pthread_mutex_unlock(&sm->lock);
	wake(sm);
}

void soft_sm_ca_closing(soft_ca_t *ca)
{
	struct soft_sm *sm = sm_of(ca);
	size_t i, j;

	if (!sm || sm->pid != getpid())
		return;
	pthread_mutex_lock(&sm->lock);
	for (i = j = 0; i < sm->n_ports; i++)
		if (sm->ports[i]->ca != ca)
			sm->ports[j++] = sm->ports[i];
	sm->n_ports = j;
	if (sm->pend_state == PEND_WAIT && sm->pend_port && sm->pend_port->ca == ca) {
		sm->pend_state = PEND_ABORT;
		pthread_cond_broadcast(&sm->cond);
	}
	while (sm->sending)
		pthread_cond_wait(&sm->cond, &sm->lock);
	if (sm->sm_port && sm->sm_port->ca == ca) {
		sm->sm_port = NULL;
		pthread_mutex_lock(&sm->pub_lock);
		sm->pub_port = NULL;
		pthread_mutex_unlock(&sm->pub_lock);
		pthread_rwlock_wrlock(&sm->sa_lock);
		soft_sa_destroy(sm->sa);
		sm->sa = NULL;
		sm->sa_port = NULL;
		pthread_rwlock_unlock(&sm->sa_lock);
	}
	pthread_mutex_unlock(&sm->lock);
	wake(sm);
}

void soft_sm_ca_closed(soft_ca_t *ca)
{
	struct soft_sm *sm = sm_of(ca), **pp;
	boolean_t last;

	if (!sm || sm->pid != getpid())
		return;
	__atomic_store_n(&ca->sm, NULL, __ATOMIC_RELEASE);
	pthread_mutex_lock(&list_lock);
	last = --sm->refs == 0;
	if (last)
		for (pp = &sm_list; *pp; pp = &(*pp)->next)
			if (*pp == sm) {
				*pp = sm->next;
				break;
			}
	pthread_mutex_unlock(&list_lock);
	if (!last)
		return;
	pthread_mutex_lock(&sm->lock);
	sm->stop = 1;
	pthread_cond_broadcast(&sm->cond);
	pthread_mutex_unlock(&sm->lock);
	wake(sm);
	if (sm->thread_started)
		pthread_join(sm->thread, NULL);
	sm_free(sm);
}

boolean_t soft_sm_smp_resp(soft_port_t *port, const ib_smp_t *smp)
{
	struct soft_sm *sm = sm_of(port->ca);
	boolean_t taken = FALSE;

	if (!sm)
		return FALSE;
	pthread_mutex_lock(&sm->lock);
	if (sm->pend_state == PEND_WAIT && sm->pend_port == port && smp->trans_id == sm->pend_tid) {
		sm->pend_resp = *smp;
		sm->pend_state = PEND_DONE;
		pthread_cond_broadcast(&sm->cond);
		taken = TRUE;
	}
	pthread_mutex_unlock(&sm->lock);
	return taken;
}

/* SA-class MADs the SA takes: requests, ReportResp, RMPP ACK/STOP/ABORT. */
static boolean_t for_sa(const ib_mad_t *m, size_t len)
{
	const ib_rmpp_mad_t *r = (const ib_rmpp_mad_t *)m;

	switch (m->method) {
	case IB_MAD_METHOD_GET:
	case IB_MAD_METHOD_SET:
	case IB_MAD_METHOD_GETTABLE:
	case IB_MAD_METHOD_GETTRACETABLE:
	case IB_MAD_METHOD_GETMULTI:
	case IB_MAD_METHOD_DELETE:
	case IB_MAD_METHOD_REPORT_RESP:
		return TRUE;
	default:
		return len >= sizeof(*r) && (m->method & IB_MAD_METHOD_RESP_MASK) &&
		       r->rmpp_version && r->rmpp_type >= 2 && r->rmpp_type <= 4;
	}
}

boolean_t soft_sm_sa_recv(soft_port_t *port, const ib_mad_t *p_mad, size_t len,
			  const soft_mad_addr_t *p_src)
{
	struct soft_sm *sm = sm_of(port->ca);
	boolean_t taken = FALSE;

	if (!sm || !for_sa(p_mad, len))
		return FALSE;
	pthread_rwlock_rdlock(&sm->sa_lock);
	if (sm->sa && sm->sa_port == port) {
		soft_sa_recv(sm->sa, p_mad, len, p_src);
		taken = TRUE;
	}
	pthread_rwlock_unlock(&sm->sa_lock);
	if (taken)
		wake(sm); /* the SA may want its timer sooner */
	return taken;
}

boolean_t soft_sm_info(soft_port_t *port, ib_sm_info_t *p_info)
{
	struct soft_sm *sm = sm_of(port->ca);
	boolean_t mine;

	if (!sm || sm->pid != getpid())
		return FALSE;
	pthread_mutex_lock(&sm->pub_lock);
	mine = sm->pub_port == port;
	if (mine)
		sm_info_of(sm, port, p_info);
	pthread_mutex_unlock(&sm->pub_lock);
	return mine;
}

boolean_t soft_sm_is_master(soft_ca_t *ca)
{
	struct soft_sm *sm = sm_of(ca);
	int m;

	if (!sm)
		return FALSE;
	pthread_mutex_lock(&sm->pub_lock);
	m = sm->pub_master;
	pthread_mutex_unlock(&sm->pub_lock);
	return m != 0;
}

boolean_t soft_sm_sweep_now(soft_ca_t *ca, uint32_t ms)
{
	struct soft_sm *sm = sm_of(ca);
	struct timespec ts;
	uint64_t target;
	boolean_t done;

	if (!sm)
		return FALSE;
	pthread_mutex_lock(&sm->lock);
	if (!sm->master) {
		pthread_mutex_unlock(&sm->lock);
		return FALSE;
	}
	target = sm->sweeps + (sm->in_sweep ? 2 : 1);
	sm->sweep_req = 1;
	abs_time(&ts, now_us() + (uint64_t)ms * 1000u);
	wake(sm);
	while (sm->sweeps < target)
		if (pthread_cond_timedwait(&sm->cond, &sm->lock, &ts) == ETIMEDOUT)
			break;
	done = sm->sweeps >= target;
	pthread_mutex_unlock(&sm->lock);
	return done;
}

int soft_sm_known_ports(soft_ca_t *ca)
{
	struct soft_sm *sm = sm_of(ca);
	int n = -1;

	if (!sm)
		return -1;
	pthread_mutex_lock(&sm->lock);
	if (sm->master)
		n = (int)sm->n_known;
	pthread_mutex_unlock(&sm->lock);
	return n;
}

boolean_t soft_sm_wait_master(soft_ca_t *ca, uint32_t ms)
{
	struct soft_sm *sm = sm_of(ca);
	struct timespec ts;
	boolean_t m;

	if (!sm)
		return FALSE;
	abs_time(&ts, now_us() + (uint64_t)ms * 1000u);
	pthread_mutex_lock(&sm->lock);
	while (!sm->master)
		if (pthread_cond_timedwait(&sm->cond, &sm->lock, &ts) == ETIMEDOUT)
			break;
	m = sm->master != 0;
	pthread_mutex_unlock(&sm->lock);
	return m;
}
