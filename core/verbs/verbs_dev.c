/*
 * ibal verbs provider: libibverbs devices: enumeration, attributes, async and completion events.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * CAs are the libibverbs channel adapters (node type CA), by node GUID,
 * then the libibumad CAs no libibverbs device has (umad2sim's simulated
 * ones). A libibverbs CA's attributes come from ibv_query_device() and, per
 * port, ibv_query_port() with the first VERBS_MAX_GIDS GIDs and
 * VERBS_MAX_PKEYS P_Keys (under emulation each GID is a sysfs read: the
 * full table of 1024 entries would take seconds). A RoCE port (link layer
 * Ethernet) reports transport RDMA_TRANSPORT_RDMAOE.
 *
 * Events, read by the CA worker (verbs_ca.c) when poll() says so:
 * async events become async_event upcalls on the QP, CQ, SRQ or CA they
 * name (ibv_ack_async_event after the upcall, so a destroy never returns
 * while one for its object is in progress), and port events also a
 * port_change upcall after the attributes are re-read; a completion channel
 * event makes the CQ's cq_comp upcall, or for a CQ armed with
 * ib_rearm_n_cq counts the new completions first.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <complib/cl_timer.h>
#include "verbs_prov.h"
#include "prov_verbs_xlate.h"
#include "prov_ca_attr.h"
#include "verbs_watch.h"

#ifdef HAVE_VERBS_PROV

/* ---- enumeration ---- */

/* Names of the libibverbs devices seen so far. A device being removed
 * leaves libibverbs' list first while /sys/class/infiniband still names it
 * (until its last user context closes), where libibumad would still find
 * it: such a name is not taken for a MAD-only CA (umad2sim's CAs never
 * have a libibverbs device). */
static pthread_mutex_t ibv_names_lock = PTHREAD_MUTEX_INITIALIZER;
static char ibv_names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
static int n_ibv_names;

static int umad_has(char (*names)[UMAD_CA_NAME_LEN], int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strncmp(names[i], name, UMAD_CA_NAME_LEN))
			return 1;
	return 0;
}

static void ibv_name_seen(const char *name)
{
	pthread_mutex_lock(&ibv_names_lock);
	if (!umad_has(ibv_names, n_ibv_names, name) && n_ibv_names < UMAD_MAX_DEVICES)
		strncpy(ibv_names[n_ibv_names++], name, UMAD_CA_NAME_LEN - 1);
	pthread_mutex_unlock(&ibv_names_lock);
}

static int ibv_name_known(const char *name)
{
	int known;

	pthread_mutex_lock(&ibv_names_lock);
	known = umad_has(ibv_names, n_ibv_names, name);
	pthread_mutex_unlock(&ibv_names_lock);
	return known;
}

/* One CA as verbs_for_each_ca() reports it. */
typedef struct ca_entry {
	ib_net64_t guid;
	char name[IBV_SYSFS_NAME_MAX]; /* as libibverbs names it (umad's are shorter) */
	int has_ibv, has_umad;
} ca_entry_t;

/* A list of the CAs: libibverbs devices, then umad-only CAs. */
typedef struct ca_list {
	unsigned n;
	ca_entry_t e[2 * UMAD_MAX_DEVICES];
} ca_list_t;

/*
 * The list last read, kept while the device watch listens to uevents (it
 * hears of every device added or removed and calls verbs_ca_list_forget()
 * at once) and for at most IBAL_VERBS_POLL_MS, in case the uevents of a
 * device do not reach this process (a container's network namespace, say).
 * gen counts the forgettings, so that a read that a forgetting overtook is
 * not kept.
 */
static struct {
	pthread_mutex_t lock;
	int valid;
	uint64_t gen;
	uint64_t read_us;         /* cl_get_time_stamp() of the read */
	ca_list_t list;
} kept = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Whether the kept list may be used now (kept.lock held). */
static int kept_fresh(void)
{
	return kept.valid && verbs_watch_listening() &&
	       cl_get_time_stamp() - kept.read_us < (uint64_t)verbs_poll_ms * 1000u;
}

void verbs_ca_list_forget(void)
{
	pthread_mutex_lock(&kept.lock);
	kept.valid = 0;
	kept.gen++;
	pthread_mutex_unlock(&kept.lock);
}

static void list_put(ca_list_t *l, ib_net64_t guid, const char *name, int has_ibv, int has_umad)
{
	ca_entry_t *e;

	if (l->n == sizeof(l->e) / sizeof(l->e[0]))
		return;
	e = &l->e[l->n++];
	e->guid = guid;
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->has_ibv = has_ibv;
	e->has_umad = has_umad;
}

/* Reads the CAs now: libibverbs' devices (sysfs and netlink), libibumad's. */
static void list_read(ca_list_t *l)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	ib_net64_t seen[UMAD_MAX_DEVICES];
	struct ibv_device **list;
	int n_umad, n_ibv = 0, n_seen = 0, i, j;

	l->n = 0;
	n_umad = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	if (n_umad < 0)
		n_umad = 0;
	list = ibv_get_device_list(&n_ibv);
	for (i = 0; list && i < n_ibv; i++) {
		ib_net64_t guid = (ib_net64_t)ibv_get_device_guid(list[i]);
		const char *name = ibv_get_device_name(list[i]);

		if (list[i]->node_type != IBV_NODE_CA || !name)
			continue;
		if (n_seen < UMAD_MAX_DEVICES)
			seen[n_seen++] = guid;
		ibv_name_seen(name);
		list_put(l, guid, name, 1, umad_has(names, n_umad, name));
	}
	if (list)
		ibv_free_device_list(list);
	for (i = 0; i < n_umad; i++) {
		umad_ca_t ca;
		boolean_t dup = FALSE;

		if (ibv_name_known(names[i]) || umad_get_ca(names[i], &ca) < 0)
			continue;
		for (j = 0; j < n_seen; j++)
			dup = dup || seen[j] == (ib_net64_t)ca.node_guid;
		if (!dup && ca.node_type == 1)
			list_put(l, (ib_net64_t)ca.node_guid, ca.ca_name, 0, 1);
		umad_release_ca(&ca);
	}
}

void verbs_for_each_ca(boolean_t (*fn)(ib_net64_t guid, const char *name, int has_ibv,
				       int has_umad, void *ctx), void *ctx)
{
	ca_list_t l;
	uint64_t gen, read_us;
	unsigned i;

	pthread_mutex_lock(&kept.lock);
	if (kept_fresh()) {
		l = kept.list;
		pthread_mutex_unlock(&kept.lock);
	} else {
		gen = kept.gen;
		pthread_mutex_unlock(&kept.lock);
		read_us = cl_get_time_stamp();
		list_read(&l);
		pthread_mutex_lock(&kept.lock);
		if (gen == kept.gen && verbs_watch_listening()) {
			kept.list = l;
			kept.read_us = read_us;
			kept.valid = 1;
		}
		pthread_mutex_unlock(&kept.lock);
	}
	for (i = 0; i < l.n; i++)
		if (fn(l.e[i].guid, l.e[i].name, l.e[i].has_ibv, l.e[i].has_umad, ctx))
			break;
}

/* ---- attributes ---- */

uint32_t verbs_attr_size(uint8_t n_ports)
{
	return prov_ca_attr_size(1, n_ports, VERBS_MAX_GIDS, VERBS_MAX_PKEYS);
}

/* Sets the array pointers of a zeroed block of verbs_attr_size(n) bytes;
 * the ports' GID and P_Key counts stay 0 until they are read. */
void verbs_attr_layout(ib_ca_attr_t *a, uint8_t n_ports)
{
	unsigned i;

	prov_ca_attr_layout(a, 1, n_ports, VERBS_MAX_GIDS, VERBS_MAX_PKEYS);
	for (i = 0; i < n_ports; i++) {
		a->p_port_attr[i].num_gids = 0;
		a->p_port_attr[i].num_pkeys = 0;
		a->p_port_attr[i].link_state = IB_LINK_DOWN;
	}
}

/* "a.b.c" as major << 32 | minor << 16 | sub-minor. */
static uint64_t fw_version(const char *s)
{
	unsigned long v[3] = { 0, 0, 0 };
	char *end;
	int i;

	for (i = 0; i < 3 && *s; i++) {
		v[i] = strtoul(s, &end, 10);
		if (*end != '.')
			break;
		s = end + 1;
	}
	return ((uint64_t)v[0] << 32) | ((uint64_t)(v[1] & 0xFFFF) << 16) | (v[2] & 0xFFFF);
}

static void ibv_port_fill(verbs_ca_t *ca, uint8_t num, const struct ibv_port_attr *p,
			  ib_port_attr_t *pa)
{
	static const uint8_t vls[] = { 0, 1, 2, 4, 8, 15 };
	unsigned i, n;

	pa->port_num = num;
	pa->mtu = (uint8_t)p->active_mtu;
	pa->transport = p->link_layer == IBV_LINK_LAYER_ETHERNET ? RDMA_TRANSPORT_RDMAOE
								  : RDMA_TRANSPORT_IB;
	pa->max_msg_size = p->max_msg_sz;
	pa->lid = cl_hton16(p->lid);
	pa->lmc = p->lmc;
	pa->active_width = p->active_width;
	if (p->active_speed <= 4) {
		pa->active_speed = p->active_speed;
		pa->ext_active_speed = 0;
	} else {
		/* FDR10 and up: IBA's extended speed field (FDR 1, EDR 2, HDR 4, NDR 8) */
		pa->active_speed = p->active_speed == 8 ? 4 : 1;
		pa->ext_active_speed = (uint8_t)(p->active_speed >= 16 ? p->active_speed / 16 : 0);
	}
	pa->max_vls = p->max_vl_num < sizeof(vls) ? vls[p->max_vl_num] : 15;
	pa->sm_lid = cl_hton16(p->sm_lid);
	pa->sm_sl = p->sm_sl;
	pa->link_state = (uint8_t)(p->state == IBV_PORT_ACTIVE_DEFER ? IB_LINK_ACTIVE : p->state);
	pa->phys_state = p->phys_state;
	pa->init_type_reply = p->init_type_reply;
	pa->subnet_timeout = p->subnet_timeout;
	pa->pkey_ctr = (uint16_t)p->bad_pkey_cntr;
	pa->qkey_ctr = (uint16_t)p->qkey_viol_cntr;
	verbs_cap_from_mask(p->port_cap_flags, &pa->cap);
	n = p->gid_tbl_len < VERBS_MAX_GIDS ? (unsigned)p->gid_tbl_len : VERBS_MAX_GIDS;
	/* An entry that cannot be read (a hole in a RoCE table) stays zero, so
	 * that the later ones keep their indexes. */
	pa->num_gids = (uint16_t)n;
	for (i = 0; i < n; i++) {
		union ibv_gid g;

		if (ibv_query_gid(ca->ctx, num, (int)i, &g))
			memset(&g, 0, sizeof(g));
		memcpy(pa->p_gid_table[i].raw, g.raw, 16);
	}
	/* The port GUID is GID 0's interface ID (IBA 4.1.1; on RoCE the EUI-64
	 * of the port's MAC, as libibumad gives it); a port whose GID 0 could not
	 * be read gets the CA's GUID plus its number less one, unique on the CA. */
	pa->port_guid = n ? pa->p_gid_table[0].unicast.interface_id : 0;
	if (!pa->port_guid)
		pa->port_guid = cl_hton64(cl_ntoh64(ca->guid) + num - 1u);
	n = p->pkey_tbl_len < VERBS_MAX_PKEYS ? (unsigned)p->pkey_tbl_len : VERBS_MAX_PKEYS;
	pa->num_pkeys = 0;
	for (i = 0; i < n; i++) {
		__be16 k;

		if (ibv_query_pkey(ca->ctx, num, (int)i, &k))
			break;
		pa->p_pkey_table[i] = (ib_net16_t)k;
		pa->num_pkeys = (uint16_t)(i + 1);
	}
	if (!pa->num_pkeys) {
		pa->num_pkeys = 1;
		pa->p_pkey_table[0] = CL_HTON16(0xFFFF);
	}
	if (ca->has_umad) /* the special QPs are ours only through umad */
		pa->cap.qkey_ctr = pa->cap.pkey_ctr = TRUE;
}

static ib_api_status_t ibv_read_attr(verbs_ca_t *ca, ib_ca_attr_t *a)
{
	struct ibv_device_attr d;
	unsigned i, f;
	int rc;

	rc = ibv_query_device(ca->ctx, &d);
	if (rc)
		return verbs_errno_status(rc);
	memset(a, 0, verbs_attr_size(ca->num_ports));
	verbs_attr_layout(a, ca->num_ports);
	f = d.device_cap_flags;
	a->ca_guid = ca->guid;
	a->vend_id = d.vendor_id;
	a->dev_id = (uint16_t)d.vendor_part_id;
	a->revision = (uint16_t)d.hw_ver;
	a->fw_ver = fw_version(d.fw_ver);
	a->max_qps = (uint32_t)d.max_qp;
	a->max_wrs = (uint32_t)d.max_qp_wr;
	a->max_sges = (uint32_t)d.max_sge;
	a->max_rd_sges = 0;
	a->max_cqs = (uint32_t)d.max_cq;
	a->max_cqes = (uint32_t)d.max_cqe;
	a->max_pds = (uint32_t)d.max_pd;
	a->init_regions = (uint32_t)d.max_mr;
	a->init_region_size = d.max_mr_size;
	a->init_windows = (uint32_t)d.max_mw;
	a->max_addr_handles = (uint64_t)d.max_ah;
	a->max_partitions = d.max_pkeys;
	a->atomicity = d.atomic_cap == IBV_ATOMIC_NONE  ? IB_ATOMIC_NONE
		       : d.atomic_cap == IBV_ATOMIC_HCA ? IB_ATOMIC_LOCAL
							: IB_ATOMIC_GLOBAL;
	a->max_qp_resp_res = (uint8_t)(d.max_qp_rd_atom > 255 ? 255 : d.max_qp_rd_atom);
	a->max_resp_res = (uint8_t)(d.max_res_rd_atom > 255 ? 255 : d.max_res_rd_atom);
	a->max_qp_init_depth = (uint8_t)(d.max_qp_init_rd_atom > 255 ? 255 : d.max_qp_init_rd_atom);
	a->max_mcast_grps = (uint32_t)d.max_mcast_grp;
	a->max_mcast_qps = (uint32_t)d.max_total_mcast_qp_attach;
	a->max_qps_per_mcast_grp = (uint32_t)d.max_mcast_qp_attach;
	a->max_fmr = (uint32_t)d.max_fmr;
	a->max_map_per_fmr = (uint32_t)d.max_map_per_fmr;
	a->max_srq = (uint32_t)d.max_srq;
	a->max_srq_wrs = (uint32_t)d.max_srq_wr;
	a->max_srq_sges = (uint32_t)d.max_srq_sge;
	a->local_ack_delay = d.local_ca_ack_delay;
	a->bad_pkey_ctr_support = !!(f & IBV_DEVICE_BAD_PKEY_CNTR);
	a->bad_qkey_ctr_support = !!(f & IBV_DEVICE_BAD_QKEY_CNTR);
	a->apm_support = !!(f & IBV_DEVICE_AUTO_PATH_MIG);
	a->av_port_check = !!(f & IBV_DEVICE_UD_AV_PORT_ENFORCE);
	a->change_primary_port = !!(f & IBV_DEVICE_CHANGE_PHY_PORT);
	a->modify_wr_depth = !!(f & IBV_DEVICE_RESIZE_MAX_WR);
	a->modify_srq_depth = !!(f & IBV_DEVICE_SRQ_RESIZE);
	a->current_qp_state_support = !!(f & IBV_DEVICE_CURR_QP_STATE_MOD);
	a->shutdown_port_capability = !!(f & IBV_DEVICE_SHUTDOWN_PORT);
	a->init_type_support = !!(f & IBV_DEVICE_INIT_TYPE);
	a->port_active_event_support = !!(f & IBV_DEVICE_PORT_ACTIVE_EVENT);
	a->system_image_guid_support = !!(f & IBV_DEVICE_SYS_IMAGE_GUID);
	a->system_image_guid = (ib_net64_t)d.sys_image_guid;
	a->num_page_sizes = 1;
	a->p_page_size[0] = d.page_size_cap ? (uint32_t)(d.page_size_cap & -d.page_size_cap) : 4096;
	for (i = 0; i < ca->num_ports; i++) {
		struct ibv_port_attr p;

		if (ibv_query_port(ca->ctx, (uint8_t)(i + 1), &p))
			continue;
		ibv_port_fill(ca, (uint8_t)(i + 1), &p, &a->p_port_attr[i]);
	}
	return IB_SUCCESS;
}

ib_api_status_t verbs_read_attr(verbs_ca_t *ca, ib_ca_attr_t *a)
{
	return ca->ctx ? ibv_read_attr(ca, a) : verbs_umad_read_attr(ca, a);
}

/* The index of an AV's source GID in its port's table (0 if not listed). */
uint8_t verbs_sgid_index(verbs_ca_t *ca, const ib_av_attr_t *a)
{
	static const ib_gid_t zero;
	const ib_port_attr_t *pa;
	uint8_t idx = 0;
	unsigned i;

	if (!a->grh_valid || !memcmp(&a->grh.src_gid, &zero, sizeof(zero)))
		return 0;
	pthread_mutex_lock(&ca->lock);
	pa = verbs_port_attr(ca, a->port_num);
	for (i = 0; pa && i < pa->num_gids; i++) {
		if (!memcmp(&pa->p_gid_table[i], &a->grh.src_gid, sizeof(ib_gid_t))) {
			idx = (uint8_t)i;
			break;
		}
	}
	pthread_mutex_unlock(&ca->lock);
	return idx;
}

/* ---- events ---- */

static void *event_target(const struct ibv_async_event *e)
{
	switch (e->event_type) {
	case IBV_EVENT_CQ_ERR: {
		verbs_cq_t *cq = e->element.cq->cq_context;

		return cq ? cq->al_cq : NULL;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED: {
		verbs_qp_t *qp = e->element.qp->qp_context;

		return qp ? qp->al_qp : NULL;
	}
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED: {
		verbs_srq_t *srq = e->element.srq->srq_context;

		return srq ? srq->al_srq : NULL;
	}
	default:
		return NULL;
	}
}

static int is_port_event(enum ibv_event_type t)
{
	return t == IBV_EVENT_PORT_ACTIVE || t == IBV_EVENT_PORT_ERR ||
	       t == IBV_EVENT_LID_CHANGE || t == IBV_EVENT_PKEY_CHANGE ||
	       t == IBV_EVENT_SM_CHANGE || t == IBV_EVENT_CLIENT_REREGISTER ||
	       t == IBV_EVENT_GID_CHANGE;
}

/* Reads the pending async events (the fd is non-blocking). */
void verbs_async_events(verbs_ca_t *ca)
{
	struct ibv_async_event e;

	while (!ibv_get_async_event(ca->ctx, &e)) {
		ib_async_event_t code = verbs_event_code(e.event_type);
		void *target = event_target(&e);

		if (e.event_type == IBV_EVENT_SQ_DRAINED && target) {
			verbs_qp_t *qp = e.element.qp->qp_context;

			pthread_mutex_lock(&qp->lock);
			if (qp->attr.state == IB_QPS_SQD_DRAINING)
				qp->attr.state = IB_QPS_SQD_DRAINED;
			pthread_mutex_unlock(&qp->lock);
		}
		if (is_port_event(e.event_type)) {
			uint8_t port = (uint8_t)e.element.port_num;

			verbs_ca_refresh(ca);
			if (code != IB_AE_UNKNOWN && verbs_upcalls.async_event)
				verbs_upcalls.async_event(ca->al_ca, code, port);
			if (verbs_upcalls.port_change)
				verbs_upcalls.port_change(ca->al_ca, port);
		} else if (e.event_type == IBV_EVENT_DEVICE_FATAL) {
			if (verbs_upcalls.async_event)
				verbs_upcalls.async_event(ca->al_ca, code, 0);
			verbs_watch_poke(); /* sent too when the device is going away */
		} else if (target && code != IB_AE_UNKNOWN && verbs_upcalls.async_event) {
			verbs_upcalls.async_event(target, code, 0);
		}
		ibv_ack_async_event(&e);
	}
}

/* Moves what the libibverbs CQ holds into the ring (cq->lock held); the
 * number of entries moved. */
static uint32_t drain_locked(verbs_cq_t *cq)
{
	struct ibv_wc v[VERBS_POLL_BATCH];
	uint32_t moved = 0;
	int n, i;

	for (;;) {
		uint32_t room = cq->ring.size - cq->ring.count;

		if (!room)
			break;
		n = ibv_poll_cq(cq->ibv, (int)(room < VERBS_POLL_BATCH ? room : VERBS_POLL_BATCH), v);
		if (n <= 0)
			break;
		for (i = 0; i < n; i++) {
			uint32_t slot = prov_ring_at(cq->ring.head, cq->ring.count, cq->ring.size);

			verbs_wc(&v[i], &cq->ring.wc[slot]);
			cq->ring.wc[slot].p_next = NULL;
			cq->ring.count++;
		}
		moved += (uint32_t)n;
		if (n < VERBS_POLL_BATCH)
			break;
	}
	return moved;
}

void verbs_cq_drain(verbs_cq_t *cq)
{
	uint32_t moved = drain_locked(cq);

	if (cq->n_want)
		cq->n_want = moved >= cq->n_want ? 0 : cq->n_want - moved;
}

/*
 * One completion channel event. An ib_rearm_n_cq arming fires once the
 * CQ has had that many new completions; until then the CQ is armed again
 * (and drained once more, for completions that came before the arming).
 * A completion that lands between that request and the drain after it is
 * counted by the drain and still raises an event: the event can come after
 * its arming fired. An event on a CQ that is not armed is such a late one
 * and makes no callback.
 */
static int n_armed_fires(verbs_cq_t *cq)
{
	int fire = 0;

	pthread_mutex_lock(&cq->lock);
	if (cq->ring.arm == PROV_WC_ARM_NONE) {
		fire = 0;
	} else if (!cq->n_want) {
		fire = 1;
	} else {
		verbs_cq_drain(cq);
		if (cq->n_want) {
			ibv_req_notify_cq(cq->ibv, 0);
			verbs_cq_drain(cq);
		}
		fire = !cq->n_want;
	}
	if (fire)
		cq->ring.arm = PROV_WC_ARM_NONE; /* one callback per arming */
	pthread_mutex_unlock(&cq->lock);
	return fire;
}

void verbs_comp_events(verbs_ca_t *ca)
{
	struct ibv_cq *ev_cq;
	void *ctx;

	while (!ibv_get_cq_event(ca->chan, &ev_cq, &ctx)) {
		verbs_cq_t *cq = ctx;
		int dying;

		pthread_mutex_lock(&ca->lock);
		dying = cq->dying;
		if (!dying)
			ca->cb_cq = cq;
		pthread_mutex_unlock(&ca->lock);
		ibv_ack_cq_events(ev_cq, 1);
		if (dying)
			continue;
		if (n_armed_fires(cq) && verbs_upcalls.cq_comp)
			verbs_upcalls.cq_comp(cq->al_cq);
		pthread_mutex_lock(&ca->lock);
		ca->cb_cq = NULL;
		pthread_cond_broadcast(&ca->cond);
		pthread_mutex_unlock(&ca->lock);
	}
}

#else /* !HAVE_VERBS_PROV */
typedef int verbs_dev_unused_t;
#endif /* HAVE_VERBS_PROV */
