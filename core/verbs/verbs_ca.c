/*
 * ibal verbs provider: CAs: open and close, umad attributes, port polling, the worker thread.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A CA with a libibverbs device is opened with ibv_open_device() and gets a
 * completion channel; its attributes come from libibverbs (verbs_dev.c). A
 * MAD-only CA (umad2sim) reads them from umad_get_ca() (sysfs): node and
 * system image GUIDs, and per port the port GUID, base LID, LMC, SM LID and
 * SL, state, physical state, capability mask, rate, GID 0 (subnet prefix +
 * port GUID: libibumad reads no other GID) and the P_Key table (first
 * VERBS_MAX_PKEYS entries). Not in sysfs and therefore assumed there: active
 * MTU 2048, subnet timeout 18, one data VL; width and speed derived from the
 * rate (10 Gb/s = 4X SDR, 56 = 4X FDR; an unknown rate is 4X SDR); CA-wide
 * limits describe what the MAD path implements, not the hardware.
 *
 * The worker thread (one per CA) waits in poll() on an eventfd (MAD CQ
 * notifications, stop), the device's async event fd and its completion
 * channel fd, and every IBAL_VERBS_POLL_MS (default 1000 ms) re-reads the
 * attributes, calling port_change for each port whose state, LID, LMC, SM
 * LID, SM SL, P_Key table or first GID changed (libibverbs also reports
 * port events, which verbs_dev.c handles at once; umad offers none, and
 * under umad2sim the sysfs files are written once, so no change is seen).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include "verbs_prov.h"
#include "prov_verbs_xlate.h"
#include "ibal_time.h"

#ifdef HAVE_VERBS_PROV

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

void verbs_cap_from_mask(uint32_t m, ib_port_cap_t *c)
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
	verbs_cap_from_mask(cl_ntoh32((uint32_t)up->capmask), &pa->cap);
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

/* Reads a MAD-only CA's attributes from libibumad into @p a. */
ib_api_status_t verbs_umad_read_attr(verbs_ca_t *ca, ib_ca_attr_t *a)
{
	uint8_t n_ports = ca->num_ports;
	umad_ca_t uca;
	unsigned i;

	if (umad_get_ca(ca->name, &uca) < 0)
		return IB_ERROR;
	memset(a, 0, verbs_attr_size(n_ports));
	verbs_attr_layout(a, n_ports);
	a->ca_guid = ca->guid;
	a->vend_id = 0;
	a->dev_id = 0;
	a->revision = (uint16_t)strtoul(uca.hw_ver, NULL, 16);
	a->fw_ver = strtoull(uca.fw_ver, NULL, 16);
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
	a->p_page_size[0] = 4096;
	for (i = 0; i < n_ports; i++)
		if (i + 1 < UMAD_CA_MAX_PORTS && uca.ports[i + 1])
			fill_port(uca.ports[i + 1], &a->p_port_attr[i]);
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

uint32_t verbs_ca_refresh(verbs_ca_t *ca)
{
	ib_ca_attr_t *tmp = malloc(ca->attr_size);
	uint32_t moved = 0;
	unsigned i;

	if (!tmp)
		return 0;
	if (verbs_read_attr(ca, tmp) == IB_SUCCESS) {
		pthread_mutex_lock(&ca->lock);
		for (i = 0; i < ca->num_ports; i++)
			if (port_moved(&ca->attr->p_port_attr[i], &tmp->p_port_attr[i]))
				moved |= 1u << i;
		ib_copy_ca_attr(ca->attr, tmp);
		pthread_mutex_unlock(&ca->lock);
	}
	free(tmp);
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
	pthread_mutex_unlock(&ca->lock);
	verbs_ca_wake(ca);
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

void verbs_ca_wake(verbs_ca_t *ca)
{
	uint64_t one = 1;

	if (write(ca->wake_fd, &one, sizeof(one)) < 0) { /* full counter: already woken */
	}
}

static void *worker(void *arg)
{
	verbs_ca_t *ca = arg;
	uint64_t next = ibal_time_ms(CLOCK_MONOTONIC) + ca->poll_ms;
	struct pollfd fds[3];
	nfds_t n = 1;

	fds[0].fd = ca->wake_fd;
	fds[0].events = POLLIN;
	if (ca->ctx) {
		fds[1].fd = ca->ctx->async_fd;
		fds[1].events = POLLIN;
		fds[2].fd = ca->chan->fd;
		fds[2].events = POLLIN;
		n = 3;
	}
	pthread_mutex_lock(&ca->lock);
	while (!ca->stop) {
		uint64_t t;
		int wait;

		run_notify(ca);
		if (ca->stop)
			break;
		pthread_mutex_unlock(&ca->lock);
		t = ibal_time_ms(CLOCK_MONOTONIC);
		wait = t >= next ? 0 : (int)(next - t);
		if (poll(fds, n, wait) > 0) {
			uint64_t v;

			if ((fds[0].revents & POLLIN) && read(ca->wake_fd, &v, sizeof(v)) < 0)
				v = 0;
			if (n > 1 && (fds[1].revents & POLLIN))
				verbs_async_events(ca);
			if (n > 1 && (fds[2].revents & POLLIN))
				verbs_comp_events(ca);
		}
		if (ibal_time_ms(CLOCK_MONOTONIC) >= next) {
			uint32_t moved = verbs_ca_refresh(ca);
			unsigned i;

			for (i = 0; i < ca->num_ports; i++)
				if ((moved & (1u << i)) && verbs_upcalls.port_change)
					verbs_upcalls.port_change(ca->al_ca, (uint8_t)(i + 1));
			next = ibal_time_ms(CLOCK_MONOTONIC) + ca->poll_ms;
		}
		pthread_mutex_lock(&ca->lock);
	}
	pthread_mutex_unlock(&ca->lock);
	return NULL;
}

static void ca_free(verbs_ca_t *ca)
{
	unsigned i;

	for (i = 0; i < VERBS_MAX_PORTS; i++)
		verbs_port_fini(&ca->port[i]);
	for (i = 0; i < VERBS_MAX_MRS; i++)
		free(ca->mr[i]);
	if (ca->chan)
		ibv_destroy_comp_channel(ca->chan);
	if (ca->ctx)
		ibv_close_device(ca->ctx);
	if (ca->wake_fd >= 0)
		close(ca->wake_fd);
	free(ca->attr);
	pthread_mutex_destroy(&ca->lock);
	pthread_cond_destroy(&ca->cond);
	free(ca);
}

typedef struct {
	ib_net64_t guid;
	verbs_ca_t *ca;
	int found, has_ibv;
} find_t;

static boolean_t match_guid(ib_net64_t guid, const char *name, int has_ibv, int has_umad,
			    void *ctx)
{
	find_t *f = ctx;

	if (guid != f->guid)
		return FALSE;
	strncpy(f->ca->name, name, sizeof(f->ca->name) - 1);
	f->ca->has_umad = has_umad;
	f->has_ibv = has_ibv;
	f->found = 1;
	return TRUE;
}

static int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl < 0 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* Opens the libibverbs device named ca->name, with its completion channel. */
static ib_api_status_t open_ibv(verbs_ca_t *ca)
{
	struct ibv_device **list;
	struct ibv_device_attr d;
	int n = 0, i;

	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n && !ca->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), ca->name))
			ca->ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	if (!ca->ctx)
		return IB_INVALID_GUID;
	if (ibv_query_device(ca->ctx, &d))
		return IB_ERROR;
	ca->num_ports = (uint8_t)(d.phys_port_cnt < VERBS_MAX_PORTS - 1 ? d.phys_port_cnt
									  : VERBS_MAX_PORTS - 1);
	ca->chan = ibv_create_comp_channel(ca->ctx);
	if (!ca->chan)
		return verbs_errno_status(errno);
	if (set_nonblock(ca->chan->fd) || set_nonblock(ca->ctx->async_fd))
		return IB_ERROR;
	return IB_SUCCESS;
}

ib_api_status_t verbs_open_ca(ib_net64_t guid, void *al_ca, void **pp_ca)
{
	verbs_ca_t *ca;
	pthread_condattr_t ca_attr;
	find_t f;
	ib_api_status_t st;
	unsigned i;

	if (!pp_ca)
		return IB_INVALID_PARAMETER;
	ca = calloc(1, sizeof(*ca));
	if (!ca)
		return IB_INSUFFICIENT_MEMORY;
	ca->wake_fd = -1;
	pthread_mutex_init(&ca->lock, NULL);
	pthread_condattr_init(&ca_attr);
	pthread_condattr_setclock(&ca_attr, CLOCK_MONOTONIC);
	pthread_cond_init(&ca->cond, &ca_attr);
	pthread_condattr_destroy(&ca_attr);
	for (i = 0; i < VERBS_MAX_PORTS; i++)
		verbs_port_init(ca, &ca->port[i], (uint8_t)(i + 1));
	memset(&f, 0, sizeof(f));
	f.guid = guid;
	f.ca = ca;
	verbs_for_each_ca(match_guid, &f);
	if (!f.found) {
		ca_free(ca);
		return IB_INVALID_GUID;
	}
	ca->guid = guid;
	ca->al_ca = al_ca;
	ca->poll_ms = verbs_poll_ms;
	if (f.has_ibv) {
		st = open_ibv(ca);
	} else {
		umad_ca_t uca;

		st = umad_get_ca(ca->name, &uca) < 0 ? IB_INVALID_GUID : IB_SUCCESS;
		if (st == IB_SUCCESS) {
			ca->num_ports = (uint8_t)(uca.numports < VERBS_MAX_PORTS - 1
							  ? uca.numports : VERBS_MAX_PORTS - 1);
			umad_release_ca(&uca);
		}
	}
	ca->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (st == IB_SUCCESS && ca->wake_fd < 0)
		st = IB_INSUFFICIENT_RESOURCES;
	ca->attr_size = verbs_attr_size(ca->num_ports);
	ca->attr = st == IB_SUCCESS ? calloc(1, ca->attr_size) : NULL;
	if (st == IB_SUCCESS && !ca->attr)
		st = IB_INSUFFICIENT_MEMORY;
	if (st == IB_SUCCESS)
		st = verbs_read_attr(ca, ca->attr);
	if (st == IB_SUCCESS && pthread_create(&ca->worker, NULL, worker, ca))
		st = IB_INSUFFICIENT_RESOURCES;
	if (st != IB_SUCCESS) {
		ca_free(ca);
		return st;
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
	if (tmp && verbs_read_attr(ca, tmp) == IB_SUCCESS) {
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
	pthread_mutex_unlock(&ca->lock);
	verbs_ca_wake(ca);
	pthread_join(ca->worker, NULL);
	ca_free(ca);
}

#else /* !HAVE_VERBS_PROV: nothing to build (verbs_prov.c lists no CA) */
typedef int verbs_ca_unused_t;
#endif /* HAVE_VERBS_PROV */
