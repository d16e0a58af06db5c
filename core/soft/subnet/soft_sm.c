/*
 * ibal soft provider: the embedded subnet manager: settings, instances and the entry points of soft_sm.h.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * An instance exists per fabric directory in a process while one of the
 * process's soft CAs has ports there; it reads the IBAL_SOFT_SM* settings
 * when it is made (the first CA of the process opening ports in that
 * directory), and they hold until it ends, as the fabric's own settings do.
 * With $IBAL_SOFT_SM off the instance keeps that choice for the directory
 * and its thread only watches the directory (no master role, no sweep). Its thread and sweeps are in
 * soft_sm_thread.c and soft_sm_sweep.c (see soft_sm_int.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include "soft_mad_agent.h"
#include "soft_sm_int.h"
#include "ibal_env.h"
#include "ibal_log.h"
#include "ibal_random.h"

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct soft_sm *sm_list;
static struct soft_sm *sm_orphans; /* inherited across fork(), never used */
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The instance of a CA (set once its ports joined, read by its progress thread). */
static struct soft_sm *sm_of(soft_ca_t *ca)
{
	return __atomic_load_n(&ca->sm, __ATOMIC_ACQUIRE);
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

static void atfork_init(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

static void cfg_read(sm_cfg_t *c)
{
	const char *s = getenv(SOFT_ENV_SM);

	c->enabled = !(s && (!strcmp(s, "off") || !strcmp(s, "0") || !strcmp(s, "no")));
	c->wait_ms = (uint32_t)__cl_env_uint(SOFT_ENV_SM_WAIT_MS, 0, 600000, 3000);
	c->sweep_ms = (uint32_t)__cl_env_uint(SOFT_ENV_SM_SWEEP_MS, 0, 3600000, 1000);
	c->retry_ms = (uint32_t)__cl_env_uint(SOFT_ENV_SM_RETRY_MS, 0, 3600000, 200);
	c->priority = (uint8_t)__cl_env_uint(SOFT_ENV_SM_PRIORITY, 0, 15, 0);
	if (!c->sweep_ms)
		c->sweep_ms = 1;
	if (!c->retry_ms)
		c->retry_ms = 1;
}

void soft_sm_wake(struct soft_sm *sm)
{
	uint64_t one = 1;

	if (sm->ev_fd >= 0 && write(sm->ev_fd, &one, sizeof(one)) < 0) {
		/* the counter is full: the thread is being woken anyway */
	}
}

/* ---- Instances ----------------------------------------------------------- */

/* A new instance, or NULL with *p_st IB_INSUFFICIENT_MEMORY, or IB_SUCCESS
 * when it could not have its eventfd (the CA then goes without). */
static struct soft_sm *sm_new(const char *dir, ib_api_status_t *p_st)
{
	struct soft_sm *sm = cl_zalloc(sizeof(*sm));
	pthread_condattr_t ca;
	char path[PATH_MAX + 16];

	*p_st = IB_INSUFFICIENT_MEMORY;
	if (!sm)
		return NULL;
	sm->dirty = cl_zalloc(SM_NLIDS / 8);
	sm->work = cl_zalloc(SM_NLIDS / 8);
	if (!sm->dirty || !sm->work) {
		cl_free(sm->dirty);
		cl_free(sm->work);
		cl_free(sm);
		return NULL;
	}
	*p_st = IB_SUCCESS;
	snprintf(sm->dir, sizeof(sm->dir), "%s", dir);
	sm->pid = getpid();
	sm->tid_seq = ibal_random32(); /* a random start: ibal_random.h */
	cfg_read(&sm->cfg);
	pthread_mutex_init(&sm->lock, NULL);
	pthread_mutex_init(&sm->pub_lock, NULL);
	pthread_rwlock_init(&sm->sa_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sm->cond, &ca);
	pthread_condattr_destroy(&ca);
	sm->lock_fd = sm->ev_fd = sm->ino_fd = -1;
	if (sm->cfg.enabled) {
		soft_sm_sw_init(sm);
		snprintf(path, sizeof(path), "%s/%s", dir, SM_LOCK_FILE);
		sm->lock_fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (sm->lock_fd < 0)
			IBAL_ERR(IBAL_SUB_SM, "%s: %s: this process cannot become the subnet manager",
				 path, strerror(errno));
	}
	sm->ev_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (sm->ev_fd < 0) {
		IBAL_ERR(IBAL_SUB_SM, "eventfd: %s: %s for %s", strerror(errno),
			 sm->cfg.enabled ? "no subnet manager" : "no watch of the fabric directory", dir);
		if (sm->lock_fd >= 0)
			close(sm->lock_fd);
		pthread_mutex_destroy(&sm->lock);
		pthread_mutex_destroy(&sm->pub_lock);
		pthread_rwlock_destroy(&sm->sa_lock);
		pthread_cond_destroy(&sm->cond);
		cl_free(sm->dirty);
		cl_free(sm->work);
		cl_free(sm);
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
	cl_free(sm->ports);
	free(sm->known); /* the sweeps' (libc: soft_sm_sweep.c) */
	cl_free(sm->dirty);
	cl_free(sm->work);
	cl_free(sm);
}

ib_api_status_t soft_sm_ca_opened(soft_ca_t *ca, uint32_t *p_wait_ms)
{
	const char *dir = ca->port[0].fp->fab->dir;
	struct soft_sm *sm;
	ib_api_status_t st = IB_SUCCESS;
	unsigned i;

	*p_wait_ms = 0;
	pthread_once(&atfork_once, atfork_init);
	pthread_mutex_lock(&list_lock);
	for (sm = sm_list; sm; sm = sm->next)
		if (!strcmp(sm->dir, dir))
			break;
	if (!sm) {
		sm = sm_new(dir, &st);
		if (sm) {
			sm->next = sm_list;
			sm_list = sm;
		}
	}
	if (sm)
		sm->refs++;
	pthread_mutex_unlock(&list_lock);
	if (!sm) {
		if (st != IB_SUCCESS)
			IBAL_ERR(IBAL_SUB_SM, "%s: no memory for the subnet manager: CA 0x%016"
				 PRIx64 " not opened", dir, cl_ntoh64(ca->guid));
		return st;
	}
	__atomic_store_n(&ca->sm, sm, __ATOMIC_RELEASE);
	pthread_mutex_lock(&sm->lock);
	if (sm->n_ports + ca->num_ports > sm->cap_ports) {
		size_t cap = sm->cap_ports * 2 + ca->num_ports + 4;
		soft_port_t **n = soft_mem_resize(sm->ports, sm->cap_ports * sizeof(*n),
						  cap * sizeof(*n));

		if (!n) {
			/* Not a port of it joined: the CA leaves as a closing one would. */
			pthread_mutex_unlock(&sm->lock);
			soft_sm_ca_closed(ca);
			IBAL_ERR(IBAL_SUB_SM, "%s: no memory for the subnet manager's list of "
				 "ports: CA 0x%016" PRIx64 " not opened", dir, cl_ntoh64(ca->guid));
			return IB_INSUFFICIENT_MEMORY;
		}
		sm->ports = n;
		sm->cap_ports = cap;
	}
	for (i = 0; i < ca->num_ports; i++) {
		sm->ports[sm->n_ports++] = &ca->port[i];
		if (sm->cfg.enabled)
			soft_sm_mark(sm, soft_port_lid(&ca->port[i]));
	}
	if (sm->cfg.enabled)
		soft_sm_follow_port(sm);
	if (!sm->thread_started && !pthread_create(&sm->thread, NULL, soft_sm_main, sm))
		sm->thread_started = 1;
	pthread_mutex_unlock(&sm->lock);
	soft_sm_wake(sm);
	*p_wait_ms = sm->cfg.enabled ? sm->cfg.wait_ms : 0;
	return IB_SUCCESS;
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
	if (!sm->cfg.enabled) {
		pthread_mutex_unlock(&sm->lock);
		return;
	}
	/* No longer the SM port before the lock is let go below: the SM thread,
	 * running between our waits, would otherwise send its next SMP through
	 * this CA's port (tx_port) and wait on it after the CA is freed. */
	if (sm->sm_port && sm->sm_port->ca == ca) {
		sm->sm_port = NULL;
		pthread_mutex_lock(&sm->pub_lock);
		sm->pub_port = NULL;
		pthread_mutex_unlock(&sm->pub_lock);
	}
	/* The SMP in flight through one of its ports ends; looked at again after
	 * every wait, as the SM thread may have begun another meanwhile. */
	for (;;) {
		if (sm->pend_state == PEND_WAIT && sm->pend_port && sm->pend_port->ca == ca) {
			sm->pend_state = PEND_ABORT;
			pthread_cond_broadcast(&sm->cond);
		}
		if (!sm->sending)
			break;
		pthread_cond_wait(&sm->cond, &sm->lock);
	}
	/* The SA answers through the SM port it was made on; the SM thread may
	 * already have remade it on another port (soft_sm_follow_port). */
	if (sm->sa_port && sm->sa_port->ca == ca) {
		pthread_rwlock_wrlock(&sm->sa_lock);
		soft_sa_destroy(sm->sa);
		sm->sa = NULL;
		sm->sa_port = NULL;
		pthread_rwlock_unlock(&sm->sa_lock);
	}
	pthread_mutex_unlock(&sm->lock);
	soft_sm_wake(sm);
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
	soft_sm_wake(sm);
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

boolean_t soft_sm_trap(soft_port_t *port, const ib_smp_t *smp)
{
	struct soft_sm *sm = sm_of(port->ca);
	const ib_mad_notice_attr_t *ntc = (const ib_mad_notice_attr_t *)smp->data;
	uint16_t lid;
	size_t i;

	/* Traps 144 (CapabilityMask changed) and 128 (a link went down and
	 * retrained) are the SM's: read the issuer's PortInfo again (and bring
	 * it up). Other traps go on as before (not taken here). */
	if (!sm || sm->pid != getpid() || !sm->cfg.enabled || smp->class_ver != 1 ||
	    smp->attr_id != IB_MAD_ATTR_NOTICE || !(ntc->generic_type & 0x80) ||
	    (ntc->g_or_v.generic.trap_num != CL_HTON16(SOFT_TRAP_CAP_MASK_CHANGED) &&
	     ntc->g_or_v.generic.trap_num != CL_HTON16(SOFT_TRAP_LINK_STATE)))
		return FALSE;
	pthread_mutex_lock(&sm->lock);
	if (!sm->master || sm->sm_port != port) {
		pthread_mutex_unlock(&sm->lock);
		return FALSE;
	}
	lid = cl_ntoh16(ntc->issuer_lid);
	for (i = 0; i < sm->n_trap_lids && sm->trap_lids[i] != lid; i++)
		;
	if (i == sm->n_trap_lids) {
		if (sm->n_trap_lids < SM_TRAP_LIDS)
			sm->trap_lids[sm->n_trap_lids++] = lid;
		else
			sm->full = 1;
	}
	soft_sm_mark(sm, lid);
	pthread_mutex_unlock(&sm->lock);
	soft_sm_wake(sm);
	return TRUE;
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
		soft_sm_wake(sm); /* the SA may want its timer sooner */
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
		soft_sm_info_of(sm, port, p_info);
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
	soft_sm_abs_time(&ts, soft_sm_now_us() + (uint64_t)ms * 1000u);
	soft_sm_wake(sm);
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
	soft_sm_abs_time(&ts, soft_sm_now_us() + (uint64_t)ms * 1000u);
	pthread_mutex_lock(&sm->lock);
	while (!sm->master)
		if (pthread_cond_timedwait(&sm->cond, &sm->lock, &ts) == ETIMEDOUT)
			break;
	m = sm->master != 0;
	pthread_mutex_unlock(&sm->lock);
	return m;
}
