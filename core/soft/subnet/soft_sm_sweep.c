/*
 * ibal soft provider: the embedded subnet manager's SMPs, port bring-up and sweeps.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Topology model. Every soft port has one link, to a port of the virtual
 * switch (soft_sm_switch.c), which exists in what the SA is told only: SMPs
 * do not cross it. The master SM's port (the first soft port its process
 * opened in the fabric directory) reaches any other port in one
 * directed-route hop: initial path {-, SM port number}, hop count 1,
 * carried by soft_fabric_send_to() to the registry LID of the port swept;
 * the response comes back to the SM port's LID. Its own port it reads with
 * hop count 0, through its own SMA, without the fabric. LID-routed packets
 * are delivered by DLID, as the switch would.
 *
 * LIDs. The registry's LID is a port's address on the fabric and what its
 * PortInfo reports from the start; the SM confirms it (Set PortInfo with
 * that LID) rather than choosing another, so addresses never move under
 * running users.
 *
 * Bring-up (per port): Get NodeInfo, NodeDescription, PortInfo; if the port
 * is not ACTIVE or its LID, MasterSMLID or GidPrefix differ, Set PortInfo
 * (LID, SM LID, SM SL 0, fe80::/64, PortState ARMED from INIT), then Set
 * PortInfo ACTIVE. What it read is pushed to the SA (soft_sa_port_update),
 * with the switch port it is cabled to as its peer.
 *
 * Sweeps. A full sweep (every port in the registry) when the instance
 * becomes master or its port changes; otherwise ports are brought up when
 * they are marked (soft_sm_thread.c: inotify, local opens). Once up, a port
 * is not asked again unless it is marked, its LID or owner changes, or the
 * SM port changes: an idle subnet carries no SMPs. A light sweep every
 * $IBAL_SOFT_SM_SWEEP_MS lists the registry (whose liveness checks notice
 * processes that died), brings up ports not yet up (a port that failed three
 * times in a row is tried after one period, then two, then every four),
 * removes from the SA the ports gone and pushes the switch if it changed.
 *
 * SMP exchange: one request outstanding at a time, 50 ms per try, 3 tries.
 * SMPs leave through the SM port, or while its link is DOWN (a port taken
 * down with ib_ci_call) through the first local port that is not, so that
 * the SM keeps managing the subnet without changing its LID; a local port
 * that is DOWN is not asked at all (it would not answer).
 *
 * Memory. A sweep's listing of the registry and the table of known ports
 * come from libc, not complib: only the SM's thread makes them, where no
 * caller's fault injection reaches, and they come and go with sweeps that
 * run whatever access-layer instance is open (an instance's leak check
 * must not count them). The SA (soft_sa*.c) allocates from libc for the
 * same reasons.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "soft_mad_agent.h"
#include "soft_sm_int.h"
#include "ibal_log.h"

/* ---- SMPs --------------------------------------------------------------- */

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

/* Sends @p smp (a Get or Set, directed route) to @p k and waits for the
 * response, which replaces it. sm->lock held (released while waiting). */
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
		soft_sm_abs_time(&ts, soft_sm_now_us() + SM_SMP_TIMEOUT_MS * 1000u);
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
	IBAL_DBG(IBAL_SUB_SM, "SMP %s(0x%04x) to LID 0x%04x: no answer in %d tries of %d ms",
		 smp->method == IB_MAD_METHOD_SET ? "Set" : "Get", cl_ntoh16(smp->attr_id),
		 k->reg.lid, SM_SMP_TRIES, SM_SMP_TIMEOUT_MS);
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

/* Set PortInfo; FALSE when it failed, with *p_answered (when given) FALSE if
 * no answer came (the port may still apply it) and TRUE if it was refused. */
static boolean_t sm_set_pi(struct soft_sm *sm, const sm_known_t *k, const ib_port_info_t *pi,
			   ib_port_info_t *p_out, boolean_t *p_answered)
{
	ib_smp_t smp;
	boolean_t answered;

	memset(&smp, 0, sizeof(smp));
	smp.method = IB_MAD_METHOD_SET;
	smp.attr_id = IB_MAD_ATTR_PORT_INFO;
	memcpy(smp.data, pi, sizeof(*pi));
	answered = sm_smp(sm, k, &smp);
	if (p_answered)
		*p_answered = answered;
	if (!answered || (smp.status & IB_SMP_STATUS_MASK))
		return FALSE;
	memcpy(p_out, smp.data, sizeof(*p_out));
	return TRUE;
}

/* ---- Bring-up ----------------------------------------------------------- */

static void sa_update(struct soft_sm *sm, const sm_known_t *k)
{
	pthread_rwlock_rdlock(&sm->sa_lock);
	if (sm->sa)
		soft_sa_port_update(sm->sa, &k->sa);
	pthread_rwlock_unlock(&sm->sa_lock);
}

/* Gives the SA what the SM knows of a port, with PortInfo @p p_pi. */
static void sa_push(struct soft_sm *sm, sm_known_t *k, const ib_port_info_t *p_pi)
{
	k->sa.port_info = *p_pi;
	k->sa.port_num = k->reg.port_num;
	memset(&k->sa.guid_info, 0, sizeof(k->sa.guid_info));
	k->sa.guid_info.guid[0] = k->reg.port_guid;
	memset(&k->sa.pkey_table, 0, sizeof(k->sa.pkey_table));
	k->sa.pkey_table.pkey_entry[0] = CL_HTON16(0xFFFF);
	soft_sm_sw_cable(sm, k);
	sa_update(sm, k);
}

/* Reads a port and brings it to ACTIVE (sm->lock held, released while waiting). */
static boolean_t configure(struct soft_sm *sm, sm_known_t *k)
{
	ib_smp_t smp;
	ib_port_info_t pi, set, pred;
	boolean_t answered;
	uint8_t state;
	uint16_t lid = k->reg.lid, mine = soft_sm_lid(sm);

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
		if (!sm_set_pi(sm, k, &set, &pi, NULL))
			return FALSE;
		if (ib_port_info_get_port_state(&pi) == IB_LINK_ARMED) {
			set = pi;
			set.link_width_enabled = 0;
			set.link_speed = pi.link_speed & 0xF0;
			set.state_info2 = 0;
			set.state_info1 = (uint8_t)((pi.state_info1 & 0xF0) | IB_LINK_ACTIVE);
			/* The SA knows the port (as ACTIVE) before it turns ACTIVE:
			 * its owner may query the SA as soon as its CA open returns. */
			pred = pi;
			pred.state_info1 = set.state_info1;
			sa_push(sm, k, &pred);
			if (!sm_set_pi(sm, k, &set, &pi, &answered)) {
				/* Refused: the SA learns the state the port kept. Not
				 * answered: its process, slow now, will most likely
				 * apply the Set and tell its owner the port is ACTIVE;
				 * the SA keeps saying so, until the port's next
				 * bring-up reads what it is. */
				if (answered)
					sa_push(sm, k, &pi);
				return FALSE;
			}
		}
	}
	sa_push(sm, k, &pi);
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
			     p->mgmt.sm_lid == soft_sm_lid(sm) &&
			     p->mgmt.subnet_prefix == IB_DEFAULT_SUBNET_PREFIX;
			pthread_mutex_unlock(&p->ca->lock);
			return up;
		}
	}
	return FALSE;
}

/*
 * Whether a port not up is tried in this sweep: at each light sweep until it
 * has failed SM_MAX_FAILURES times, then once its wait is over. Its process
 * lives (the registry says so) but may not answer yet: a process starved of
 * processor time for seconds after it opened its CA, as many starting at
 * once under a sanitizer are. It is never given up: the sweep after its wait
 * brings it up. Half a sweep period early counts: sweeps come one period
 * apart, not to the microsecond.
 */
static boolean_t retry_due(struct soft_sm *sm, const sm_known_t *k)
{
	return k->failures < SM_MAX_FAILURES ||
	       soft_sm_now_us() + (uint64_t)sm->cfg.sweep_ms * 500u >= k->retry_us;
}

/* Counts a failed bring-up; from SM_MAX_FAILURES on, the next try waits one
 * light-sweep period, then two, then 2^SM_BACKOFF_MAX_SHIFT at most. */
static void backoff(struct soft_sm *sm, sm_known_t *k)
{
	unsigned shift;

	k->failures++;
	if (k->failures < SM_MAX_FAILURES)
		return;
	shift = k->failures - SM_MAX_FAILURES;
	if (shift > SM_BACKOFF_MAX_SHIFT)
		shift = SM_BACKOFF_MAX_SHIFT;
	k->retry_us = soft_sm_now_us() + ((uint64_t)sm->cfg.sweep_ms << shift) * 1000u;
	IBAL_DBG(IBAL_SUB_SM, "LID 0x%04x: %u failed bring-ups, the next in %u ms", k->reg.lid,
		 k->failures, sm->cfg.sweep_ms << shift);
}

/* Sweeps one registered port: records it, and configures it when this is a
 * full sweep, it was marked or trapped, or it is not known to be up and its
 * next try is due (retry_due). */
static void sweep_port(struct soft_sm *sm, const soft_fabric_port_info_t *p, boolean_t full,
		       boolean_t marked, boolean_t trapped)
{
	sm_known_t *k = find_known(sm, p->port_guid);
	ptrdiff_t idx;

	if (!k) {
		k = add_known(sm, p);
		if (!k)
			return;
	} else if (k->reg.lid != p->lid || k->reg.owner_pid != p->owner_pid) {
		k->reg = *p;
		k->active = FALSE;
		k->failures = 0;
	}
	k->seen = TRUE;
	if (marked)
		k->failures = 0;
	if (!(full || marked || (!k->active && retry_due(sm, k))))
		return;
	if (!full && !trapped && k->active && local_up(sm, p))
		return;
	idx = k - sm->known;
	/* configure() may release the lock; `known` only changes on this thread. */
	if (configure(sm, k)) {
		if (sm->known[idx].failures)
			IBAL_DBG(IBAL_SUB_SM, "LID 0x%04x is up after %u failed bring-ups", p->lid,
				 sm->known[idx].failures);
		sm->known[idx].active = TRUE;
		sm->known[idx].failures = 0;
	} else {
		sm->known[idx].active = FALSE;
		backoff(sm, &sm->known[idx]);
	}
}

/* Forgets the known ports this sweep did not see: out of the SA and the switch. */
static void sweep_forget_unseen(struct soft_sm *sm)
{
	size_t i;

	for (i = 0; i < sm->n_known;) {
		sm_known_t *k = &sm->known[i];

		if (k->seen) {
			i++;
			continue;
		}
		IBAL_DBG(IBAL_SUB_SM, "port 0x%016" PRIx64 " LID 0x%04x gone from the registry",
			 cl_ntoh64(k->reg.port_guid), k->reg.lid);
		pthread_rwlock_rdlock(&sm->sa_lock);
		if (sm->sa)
			soft_sa_port_remove(sm->sa, k->sa.node_info.node_guid ? k->sa.node_info.node_guid
									      : k->reg.node_guid,
					    k->reg.port_num);
		pthread_rwlock_unlock(&sm->sa_lock);
		soft_sm_sw_unplug(sm, k);
		*k = sm->known[--sm->n_known];
	}
}

void soft_sm_sweep(struct soft_sm *sm)
{
	soft_fabric_port_info_t *v;
	uint8_t *work;
	size_t n, i, j, n_trap = sm->n_trap_lids;
	uint16_t trap[SM_TRAP_LIDS];
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
	/* Ports that sent Trap 144: read again even when up and local. */
	memcpy(trap, sm->trap_lids, n_trap * sizeof(trap[0]));
	sm->n_trap_lids = 0;
	v = list_ports(sm, &n);
	if (!v)
		return;
	soft_sm_sw_choose_lid(sm, v, n);
	sm->in_sweep = 1;
	for (i = 0; i < sm->n_known; i++)
		sm->known[i].seen = FALSE;
	for (i = 0; i < n && !sm->stop && sm->sm_port; i++) {
		boolean_t trapped = FALSE;

		for (j = 0; j < n_trap; j++)
			trapped |= trap[j] == v[i].lid;
		sweep_port(sm, &v[i], full != 0, soft_sm_is_marked(work, v[i].lid), trapped);
	}
	free(v);
	sm->in_sweep = 0;
	if (sm->stop || !sm->sm_port) {
		pthread_cond_broadcast(&sm->cond);
		return;
	}
	sweep_forget_unseen(sm);
	pthread_rwlock_rdlock(&sm->sa_lock);
	soft_sm_sw_push(sm, FALSE);
	pthread_rwlock_unlock(&sm->sa_lock);
	sm->sweeps++;
	soft_fabric_sm_publish(sm->sm_port->fp, sm->cfg.priority, sm->sweeps, FALSE);
	pthread_mutex_lock(&sm->pub_lock);
	sm->pub_act_count++;
	pthread_mutex_unlock(&sm->pub_lock);
	pthread_cond_broadcast(&sm->cond);
}
