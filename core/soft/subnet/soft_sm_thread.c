/*
 * ibal soft provider: the embedded subnet manager's thread: election, directory watch, the SA's host.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Election. The thread takes the master role with flock(LOCK_EX|LOCK_NB) on
 * `<dir>/sm.lock`; until it gets it, it tries again every
 * $IBAL_SOFT_SM_RETRY_MS. A new master watches the directory with inotify
 * (a socket file `lid-XXXX` created or moved there marks that LID, unless a
 * port of this process holds it: local opens mark their own), makes the SA
 * on its port and sweeps everything.
 *
 * The SA lives on the SM's port (the first local port); when that port
 * changes the SA is made anew there and every port is swept again (each
 * learns the new SM LID). SA-class MADs reach it through soft_sm_sa_recv();
 * it sends from the port's QP1 and its timers run on this thread.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include "soft_mad_agent.h"
#include "soft_sm_int.h"
#include "ibal_log.h"

/* ---- SA host ------------------------------------------------------------ */

static void sa_send(void *ctx, const ib_mad_t *p_mad, const soft_mad_addr_t *p_dst)
{
	struct soft_sm *sm = ctx;

	/* Called by the SA with sa_lock held for reading: sa_port is stable. */
	if (sm->sa_port)
		soft_agent_send(sm->sa_port, p_mad, MAD_BLOCK_SIZE, 1, p_dst, p_dst->lid, 0);
}

void soft_sm_info_of(struct soft_sm *sm, soft_port_t *port, ib_sm_info_t *p)
{
	memset(p, 0, sizeof(*p));
	p->guid = port->guid;
	p->sm_key = 0;
	p->act_count = cl_hton32(sm->pub_act_count);
	p->pri_state = (uint8_t)((sm->cfg.priority << 4) |
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
		soft_sm_info_of(sm, sm->sm_port, &smi);
		pthread_mutex_unlock(&sm->pub_lock);
		sm->sa_port = sm->sm_port;
		sm->sa = soft_sa_create(&ops, &smi, soft_port_lid(sm->sm_port));
		if (!sm->sa)
			IBAL_ERR(IBAL_SUB_SM, "%s: no memory for the SA: tried again at the next "
				 "sweep", sm->dir);
		for (i = 0; sm->sa && i < sm->n_known; i++)
			if (sm->known[i].active)
				soft_sa_port_update(sm->sa, &sm->known[i].sa);
		if (sm->sa)
			soft_sm_sw_push(sm, TRUE);
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
	IBAL_DBG(IBAL_SUB_SM, "%s: this process is the master SM now (port 0x%016" PRIx64 ")", sm->dir,
		 cl_ntoh64(sm->sm_port->guid));
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
	soft_fabric_sm_publish(sm->sm_port->fp, sm->cfg.priority, sm->sweeps, TRUE);
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
					soft_sm_mark(sm, (uint16_t)lid); /* local opens mark their own */
			}
			p += sizeof(*e) + e->len;
		}
	}
}

/* The SM port (its identity: GUID, LID, the SA's port) is the first local
 * port; it changes only when that port's CA closes. A change remakes the SA
 * and sweeps everything (every port learns the new SM LID). */
void soft_sm_follow_port(struct soft_sm *sm)
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

/*
 * The fabric directory removed or replaced under the process (sm->lock
 * held): checked once per light sweep (master) or retry period (standby,
 * or with $IBAL_SOFT_SM off, when the thread does nothing else).
 * Its ports can no longer reach the fabric nor be reached, so they go
 * DOWN (IB_AE_PORT_DOWN, PnP PORT_DOWN), once, with a message; the SM
 * stops managing anything.
 */
static void check_dir(struct soft_sm *sm, uint64_t now)
{
	size_t i;

	if (sm->dir_gone || now < sm->next_dir_us || !sm->n_ports)
		return;
	sm->next_dir_us = now + (uint64_t)(sm->master ? sm->cfg.sweep_ms : sm->cfg.retry_ms) * 1000u;
	if (soft_fabric_dir_intact(sm->ports[0]->fp))
		return;
	sm->dir_gone = 1;
	IBAL_ERR(IBAL_SUB_SM, "fabric directory %s was removed or replaced under this process: its "
		 "%zu port(s) leave the fabric (PORT_DOWN)", sm->dir, sm->n_ports);
	for (i = 0; i < sm->n_ports; i++)
		soft_port_set_state(sm->ports[i], IB_LINK_DOWN);
}

void *soft_sm_main(void *arg)
{
	struct soft_sm *sm = arg;
	struct pollfd pfd[2];
	uint64_t now, due, cnt;
	int timeout, nfd;

	pthread_mutex_lock(&sm->lock);
	while (!sm->stop) {
		check_dir(sm, soft_sm_now_us());
		if (sm->dir_gone) {
			/* Nothing left to manage: wait to be stopped. */
			while (!sm->stop)
				pthread_cond_wait(&sm->cond, &sm->lock);
			break;
		}
		if (sm->cfg.enabled)
			soft_sm_follow_port(sm);
		if (sm->cfg.enabled && !sm->master && sm->sm_port)
			try_master(sm);
		now = soft_sm_now_us();
		if (sm->cfg.enabled && sm->master && sm->sm_port) {
			if (sm->ino_fd >= 0)
				read_inotify(sm);
			if (now >= sm->next_light_us) {
				if (!sm->sa)
					sa_reset(sm); /* none for want of memory at the last try */
				sm->sweep_req = 1;
				sm->next_light_us = now + (uint64_t)sm->cfg.sweep_ms * 1000u;
			}
			if (sm->full || sm->dirty_any || sm->sweep_req) {
				sm->sweep_req = 0;
				soft_sm_sweep(sm);
				continue; /* look at what arrived meanwhile */
			}
			if (now >= sm->next_sa_us) {
				pthread_rwlock_rdlock(&sm->sa_lock);
				sm->next_sa_us = sm->sa ? soft_sa_timer(sm->sa, now) : UINT64_MAX;
				pthread_rwlock_unlock(&sm->sa_lock);
			}
			due = sm->next_light_us < sm->next_sa_us ? sm->next_light_us : sm->next_sa_us;
		} else {
			due = now + (uint64_t)sm->cfg.retry_ms * 1000u;
		}
		now = soft_sm_now_us();
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
