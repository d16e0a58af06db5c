/*
 * ibal verbs provider: CAs from libibumad: open, attributes, port polling, the upcall worker.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Attributes come from umad_get_ca() (sysfs): node and system image GUIDs,
 * and per port the port GUID, base LID, LMC, SM LID and SL, state, physical
 * state, capability mask, rate, GID 0 (subnet prefix + port GUID: libibumad
 * reads no other GID) and the P_Key table (first VERBS_MAX_PKEYS entries).
 * Not in sysfs and therefore assumed: active MTU 2048 (IB_MTU_LEN_2048),
 * subnet timeout 18, one data VL. Width and speed are derived from the rate
 * (e.g. 10 Gb/s = 4X SDR, 56 = 4X FDR); an unknown rate is reported as 4X SDR.
 * CA-wide limits describe what this provider implements (MAD QPs), not
 * the hardware.
 *
 * Port changes: the CA worker re-reads the attributes every IBAL_VERBS_POLL_MS
 * (default 1000 ms) and calls the port_change upcall for each port whose
 * state, LID, LMC, SM LID or SM SL changed (a kernel device would let us
 * wait for IB_EVENT_* through libibverbs; umad offers no event). Under
 * umad2sim the sysfs files are written once when the process attaches, so
 * no change is ever seen there.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include "verbs_prov.h"

#ifdef HAVE_IBUMAD

static uint64_t align_up(uint64_t off, uint64_t a)
{
	return (off + a - 1) & ~(a - 1);
}

static uint32_t attr_size(uint8_t n_ports)
{
	uint64_t off = align_up(sizeof(ib_ca_attr_t), 8);
	unsigned i;

	off = align_up(off, 4) + sizeof(uint32_t);
	off = align_up(off, 8) + (uint64_t)n_ports * sizeof(ib_port_attr_t);
	for (i = 0; i < n_ports; i++) {
		off = align_up(off, 8) + sizeof(ib_gid_t);
		off = align_up(off, 2) + VERBS_MAX_PKEYS * sizeof(ib_net16_t);
	}
	return (uint32_t)align_up(off, 8);
}

/* Width (PortInfo encoding), speed and extended speed from a rate in Gb/s. */
static void rate_split(unsigned rate, ib_port_attr_t *pa)
{
	static const struct {
		unsigned rate;
		uint8_t width, speed, ext;
	} tab[] = {
		{ 2, 1, 1, 0 },   { 5, 1, 2, 0 },   { 10, 2, 1, 0 },  { 14, 1, 1, 1 },
		{ 20, 2, 2, 0 },  { 25, 1, 1, 2 },  { 30, 8, 1, 0 },  { 40, 2, 4, 0 },
		{ 56, 2, 1, 1 },  { 60, 8, 2, 0 },  { 100, 2, 1, 2 }, { 120, 8, 4, 0 },
		{ 168, 8, 1, 1 }, { 200, 2, 1, 4 }, { 300, 8, 1, 2 }, { 600, 8, 1, 4 },
	};
	size_t i;

	pa->active_width = 2;
	pa->active_speed = 1;
	pa->ext_active_speed = 0;
	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (tab[i].rate == rate) {
			pa->active_width = tab[i].width;
			pa->active_speed = tab[i].speed;
			pa->ext_active_speed = tab[i].ext;
			return;
		}
	}
}

static void cap_from_mask(uint32_t m, ib_port_cap_t *c)
{
	memset(c, 0, sizeof(*c));
	c->sm = !!(m & 0x00000002);
	c->notice = !!(m & 0x00000004);
	c->trap = !!(m & 0x00000008);
	c->ipd = !!(m & 0x00000010);
	c->apm = !!(m & 0x00000020);
	c->slmap = !!(m & 0x00000040);
	c->mkey_nvram = !!(m & 0x00000080);
	c->pkey_nvram = !!(m & 0x00000100);
	c->ledinfo = !!(m & 0x00000200);
	c->sm_disable = !!(m & 0x00000400);
	c->sysguid = !!(m & 0x00000800);
	c->pkey_switch_ext_port = !!(m & 0x00001000);
	c->cm = !!(m & 0x00010000);
	c->snmp = !!(m & 0x00020000);
	c->reinit = !!(m & 0x00040000);
	c->dev_mgmt = !!(m & 0x00080000);
	c->vend = !!(m & 0x00100000);
	c->dr_notice = !!(m & 0x00200000);
	c->capm_notice = !!(m & 0x00400000);
	c->boot_mgmt = !!(m & 0x00800000);
	c->link_rtl = !!(m & 0x01000000);
	c->client_reregister = !!(m & 0x02000000);
	c->qkey_ctr = TRUE;
	c->pkey_ctr = TRUE;
}

static void fill_port(const umad_port_t *up, ib_port_attr_t *pa)
{
	unsigned i;

	pa->port_guid = (ib_net64_t)up->port_guid;
	pa->port_num = (uint8_t)up->portnum;
	pa->mtu = IB_MTU_LEN_2048;
	pa->transport = RDMA_TRANSPORT_IB;
	pa->max_msg_size = 1u << 31;
	pa->lid = cl_hton16((uint16_t)up->base_lid);
	pa->lmc = (uint8_t)up->lmc;
	rate_split(up->rate, pa);
	pa->max_vls = 1;
	pa->sm_lid = cl_hton16((uint16_t)up->sm_lid);
	pa->sm_sl = (uint8_t)up->sm_sl;
	pa->link_state = (uint8_t)up->state;
	pa->phys_state = (uint8_t)up->phys_state;
	pa->subnet_timeout = 18;
	cap_from_mask(cl_ntoh32((uint32_t)up->capmask), &pa->cap);
	pa->num_gids = 1;
	pa->p_gid_table[0].unicast.prefix = (ib_net64_t)up->gid_prefix;
	pa->p_gid_table[0].unicast.interface_id = (ib_net64_t)up->port_guid;
	pa->num_pkeys = (uint16_t)(up->pkeys_size < VERBS_MAX_PKEYS ? up->pkeys_size
								      : VERBS_MAX_PKEYS);
	for (i = 0; i < pa->num_pkeys; i++)
		pa->p_pkey_table[i] = cl_hton16(up->pkeys[i]);
	if (!pa->num_pkeys) { /* never seen; keep the default P_Key usable */
		pa->num_pkeys = 1;
		pa->p_pkey_table[0] = CL_HTON16(0xFFFF);
	}
}

/* Reads the CA's attributes from libibumad into @p a (attr_size(n) bytes). */
static ib_api_status_t read_attr(const char *name, uint8_t n_ports, ib_net64_t guid,
				 ib_ca_attr_t *a)
{
	uint32_t size = attr_size(n_ports);
	uint8_t *base = (uint8_t *)a;
	uint64_t off = align_up(sizeof(*a), 8);
	umad_ca_t uca;
	unsigned i;

	if (umad_get_ca(name, &uca) < 0)
		return IB_ERROR;
	memset(a, 0, size);
	a->ca_guid = guid;
	a->vend_id = 0;
	a->dev_id = 0;
	a->revision = (uint16_t)strtoul(uca.hw_ver, NULL, 16);
	a->fw_ver = strtoull(uca.fw_ver, NULL, 16);
	a->size = size;
	a->max_qps = 2u * n_ports;
	a->max_wrs = VERBS_MAX_WRS;
	a->max_sges = VERBS_MAX_SGES;
	a->max_cqs = 1024;
	a->max_cqes = VERBS_MAX_CQES;
	a->max_pds = 1024;
	a->init_regions = VERBS_MAX_MRS;
	a->init_region_size = UINT64_MAX;
	a->max_addr_handles = 65536;
	a->max_partitions = VERBS_MAX_PKEYS;
	a->atomicity = IB_ATOMIC_NONE;
	a->local_ack_delay = 15;
	a->bad_pkey_ctr_support = TRUE;
	a->bad_qkey_ctr_support = TRUE;
	a->current_qp_state_support = TRUE;
	a->system_image_guid_support = TRUE;
	a->system_image_guid = (ib_net64_t)uca.system_guid;
	a->num_page_sizes = 1;
	off = align_up(off, 4);
	a->p_page_size = (uint32_t *)(base + off);
	a->p_page_size[0] = 4096;
	off += sizeof(uint32_t);
	a->num_ports = n_ports;
	off = align_up(off, 8);
	a->p_port_attr = (ib_port_attr_t *)(base + off);
	off += (uint64_t)n_ports * sizeof(ib_port_attr_t);
	for (i = 0; i < n_ports; i++) {
		ib_port_attr_t *pa = &a->p_port_attr[i];

		off = align_up(off, 8);
		pa->p_gid_table = (ib_gid_t *)(base + off);
		off += sizeof(ib_gid_t);
		off = align_up(off, 2);
		pa->p_pkey_table = (ib_net16_t *)(base + off);
		off += VERBS_MAX_PKEYS * sizeof(ib_net16_t);
		pa->port_num = (uint8_t)(i + 1);
		pa->link_state = IB_LINK_DOWN;
		if (i + 1 < UMAD_CA_MAX_PORTS && uca.ports[i + 1])
			fill_port(uca.ports[i + 1], pa);
	}
	umad_release_ca(&uca);
	return IB_SUCCESS;
}

const ib_port_attr_t *verbs_port_attr(verbs_ca_t *ca, uint8_t port_num)
{
	if (port_num < 1 || port_num > ca->num_ports)
		return NULL;
	return &ca->attr->p_port_attr[port_num - 1];
}

/* Whether a port changed in a way the PnP manager reports. */
static boolean_t port_moved(const ib_port_attr_t *o, const ib_port_attr_t *n)
{
	return o->link_state != n->link_state || o->lid != n->lid || o->lmc != n->lmc ||
	       o->sm_lid != n->sm_lid || o->sm_sl != n->sm_sl ||
	       o->num_pkeys != n->num_pkeys ||
	       memcmp(o->p_pkey_table, n->p_pkey_table, n->num_pkeys * sizeof(ib_net16_t)) ||
	       memcmp(o->p_gid_table, n->p_gid_table, sizeof(ib_gid_t));
}

/* Re-reads the attributes; returns a bit per port (bit n-1) that changed. */
static uint32_t refresh(verbs_ca_t *ca, ib_ca_attr_t *tmp)
{
	uint32_t moved = 0;
	unsigned i;

	if (read_attr(ca->name, ca->num_ports, ca->guid, tmp) != IB_SUCCESS)
		return 0;
	pthread_mutex_lock(&ca->lock);
	for (i = 0; i < ca->num_ports; i++)
		if (port_moved(&ca->attr->p_port_attr[i], &tmp->p_port_attr[i]))
			moved |= 1u << i;
	ib_copy_ca_attr(ca->attr, tmp);
	pthread_mutex_unlock(&ca->lock);
	return moved;
}

void verbs_ca_notify(verbs_ca_t *ca, verbs_cq_t *cq, int cq_error)
{
	pthread_mutex_lock(&ca->lock);
	if (cq_error)
		cq->ev_pending = 1;
	if (!cq->queued) {
		cq->queued = 1;
		cq->next_notify = ca->notify;
		ca->notify = cq;
	}
	pthread_cond_broadcast(&ca->cond);
	pthread_mutex_unlock(&ca->lock);
}

/* Makes the queued CQ upcalls (ca->lock held; released around each call). */
static void run_notify(verbs_ca_t *ca)
{
	while (ca->notify) {
		verbs_cq_t *cq = ca->notify;
		int ev = cq->ev_pending;

		ca->notify = cq->next_notify;
		cq->queued = 0;
		cq->ev_pending = 0;
		ca->cb_cq = cq;
		pthread_mutex_unlock(&ca->lock);
		if (ev && verbs_upcalls.async_event)
			verbs_upcalls.async_event(cq->al_cq, IB_AE_CQ_ERROR, 0);
		else if (verbs_upcalls.cq_comp)
			verbs_upcalls.cq_comp(cq->al_cq);
		pthread_mutex_lock(&ca->lock);
		ca->cb_cq = NULL;
		pthread_cond_broadcast(&ca->cond);
	}
}

static void deadline_in(struct timespec *ts, unsigned ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_sec += ms / 1000;
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts->tv_nsec >= 1000000000L) {
		ts->tv_sec++;
		ts->tv_nsec -= 1000000000L;
	}
}

static void *worker(void *arg)
{
	verbs_ca_t *ca = arg;
	ib_ca_attr_t *tmp = malloc(ca->attr_size);
	struct timespec next;

	deadline_in(&next, ca->poll_ms);
	pthread_mutex_lock(&ca->lock);
	while (!ca->stop) {
		int rc = 0;

		run_notify(ca);
		if (ca->stop)
			break;
		rc = pthread_cond_timedwait(&ca->cond, &ca->lock, &next);
		if (rc == ETIMEDOUT && tmp) {
			uint32_t moved;
			unsigned i;

			pthread_mutex_unlock(&ca->lock);
			moved = refresh(ca, tmp);
			for (i = 0; i < ca->num_ports; i++)
				if ((moved & (1u << i)) && verbs_upcalls.port_change)
					verbs_upcalls.port_change(ca->al_ca, (uint8_t)(i + 1));
			deadline_in(&next, ca->poll_ms);
			pthread_mutex_lock(&ca->lock);
		}
	}
	pthread_mutex_unlock(&ca->lock);
	free(tmp);
	return NULL;
}

static unsigned poll_ms(void)
{
	const char *s = getenv(VERBS_ENV_POLL);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return 1000;
	v = strtoul(s, &end, 0);
	return (*end || v < 10 || v > 60000) ? 1000 : (unsigned)v;
}

static void ca_free(verbs_ca_t *ca)
{
	unsigned i;

	for (i = 0; i < VERBS_MAX_PORTS; i++)
		verbs_port_fini(&ca->port[i]);
	for (i = 0; i < VERBS_MAX_MRS; i++)
		free(ca->mr[i]);
	free(ca->attr);
	pthread_mutex_destroy(&ca->lock);
	pthread_cond_destroy(&ca->cond);
	free(ca);
}

ib_api_status_t verbs_open_ca(ib_net64_t guid, void *al_ca, void **pp_ca)
{
	verbs_ca_t *ca;
	umad_ca_t uca;
	pthread_condattr_t ca_attr;
	unsigned i;

	if (!pp_ca)
		return IB_INVALID_PARAMETER;
	ca = calloc(1, sizeof(*ca));
	if (!ca)
		return IB_INSUFFICIENT_MEMORY;
	if (!verbs_ca_name(guid, ca->name) || umad_get_ca(ca->name, &uca) < 0) {
		free(ca);
		return IB_INVALID_GUID;
	}
	ca->num_ports = (uint8_t)(uca.numports < VERBS_MAX_PORTS - 1 ? uca.numports
								     : VERBS_MAX_PORTS - 1);
	umad_release_ca(&uca);
	ca->guid = guid;
	ca->al_ca = al_ca;
	ca->poll_ms = poll_ms();
	pthread_mutex_init(&ca->lock, NULL);
	pthread_condattr_init(&ca_attr);
	pthread_condattr_setclock(&ca_attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ca->cond, &ca_attr);
	pthread_condattr_destroy(&ca_attr);
	for (i = 0; i < VERBS_MAX_PORTS; i++)
		verbs_port_init(ca, &ca->port[i], (uint8_t)(i + 1));
	ca->attr_size = attr_size(ca->num_ports);
	ca->attr = calloc(1, ca->attr_size);
	if (!ca->attr || read_attr(ca->name, ca->num_ports, guid, ca->attr) != IB_SUCCESS) {
		ib_api_status_t st = ca->attr ? IB_ERROR : IB_INSUFFICIENT_MEMORY;

		ca_free(ca);
		return st;
	}
	if (pthread_create(&ca->worker, NULL, worker, ca)) {
		ca_free(ca);
		return IB_INSUFFICIENT_RESOURCES;
	}
	*pp_ca = ca;
	return IB_SUCCESS;
}

ib_api_status_t verbs_query_ca(void *h, ib_ca_attr_t *p_attr, uint32_t *p_size)
{
	verbs_ca_t *ca = h;
	ib_ca_attr_t *tmp;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	if (!p_attr || *p_size < ca->attr_size) {
		*p_size = ca->attr_size;
		return IB_INSUFFICIENT_MEMORY;
	}
	/* Fresh values; a change seen here is reported by the worker's next poll. */
	tmp = malloc(ca->attr_size);
	if (tmp && read_attr(ca->name, ca->num_ports, ca->guid, tmp) == IB_SUCCESS) {
		ib_copy_ca_attr(p_attr, tmp);
	} else {
		pthread_mutex_lock(&ca->lock);
		ib_copy_ca_attr(p_attr, ca->attr);
		pthread_mutex_unlock(&ca->lock);
	}
	free(tmp);
	*p_size = ca->attr_size;
	return IB_SUCCESS;
}

void verbs_close_ca(void *h)
{
	verbs_ca_t *ca = h;

	pthread_mutex_lock(&ca->lock);
	ca->stop = 1;
	pthread_cond_broadcast(&ca->cond);
	pthread_mutex_unlock(&ca->lock);
	pthread_join(ca->worker, NULL);
	ca_free(ca);
}

#else /* !HAVE_IBUMAD: nothing to build (verbs_prov.c lists no CA) */
typedef int verbs_ca_unused_t;
#endif /* HAVE_IBUMAD */
