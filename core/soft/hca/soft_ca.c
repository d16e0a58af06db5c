/*
 * ibal soft provider: soft CAs: open, attributes (size probe), port capabilities, close.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Each port attaches to the fabric when the CA opens and takes its LID from
 * it (its address on the fabric, which PortInfo reports from the start);
 * the port starts in INIT. The embedded subnet manager (soft_sm.c) brings
 * it to ACTIVE: opening waits for that, bounded by $IBAL_SOFT_SM_WAIT_MS;
 * with $IBAL_SOFT_SM=off ports stay INIT until something (another SM
 * through SMPs, or ib_ci_call) activates them. Changes made while the CA
 * is opening are not announced (the core reads the state after the open).
 * P_Key table {0xFFFF}; GID table {subnet prefix + port GUID}. soft_ci.c
 * changes port states and LIDs (ib_ci_call, inc/iba/ibal_soft.h).
 */
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"
#include "soft_sm.h"
#include "soft_mad_agent.h"
#include "prov_ca_attr.h"

/* Bytes of the attribute block of a CA with @p n_ports ports (one GID and
 * one P_Key each). */
static uint32_t attr_size(uint8_t n_ports)
{
	return prov_ca_attr_size(1, n_ports, 1, 1);
}

/* The port's values; the block's layout set the table pointers and counts. */
static void fill_port(const soft_port_t *port, ib_port_attr_t *pa)
{
	pa->port_guid = port->guid;
	pa->port_num = port->num;
	pa->mtu = IB_MTU_LEN_4096;
	pa->transport = RDMA_TRANSPORT_IB;
	pa->max_msg_size = 1u << 31;
	pa->lid = cl_hton16(soft_port_lid(port));
	pa->lmc = port->mgmt.lmc;
	pa->active_width = 2;  /* 4x */
	pa->active_speed = 1;  /* 2.5 Gb/s per lane */
	pa->max_vls = 1;
	pa->sm_lid = cl_hton16(port->mgmt.sm_lid);
	pa->sm_sl = port->mgmt.sm_sl;
	pa->link_state = port->link_state;
	pa->phys_state = port->link_state == IB_LINK_DOWN ? 3 /* Disabled */ : 5 /* LinkUp */;
	pa->subnet_timeout = port->mgmt.subnet_timeout;
	pa->cap = port->cap;
	pa->pkey_ctr = port->pkey_ctr;
	pa->qkey_ctr = port->qkey_ctr;
	pa->init_type_reply = 0;
}

/* Writes the whole block (attr_size(ca->num_ports) bytes) at @p a. */
static void build_attr(const soft_ca_t *ca, ib_ca_attr_t *a)
{
	unsigned i;

	memset(a, 0, attr_size(ca->num_ports));
	prov_ca_attr_layout(a, 1, ca->num_ports, 1, 1);
	a->ca_guid = ca->guid;
	a->vend_id = 0x02BA1A;
	a->dev_id = 0x50F7;
	a->revision = 1;
	a->fw_ver = 0x0001000000000000ull;
	a->max_qps = SOFT_MAX_QPS;
	a->max_wrs = SOFT_MAX_WRS;
	a->max_sges = SOFT_MAX_SGES;
	a->max_rd_sges = 0;
	a->max_cqs = SOFT_MAX_CQS;
	a->max_cqes = SOFT_MAX_CQES;
	a->max_pds = SOFT_MAX_PDS;
	a->init_regions = SOFT_MAX_KEYS - 1;
	a->init_region_size = SOFT_MAX_MR_SIZE;
	a->init_windows = SOFT_MAX_KEYS - 1;
	a->max_addr_handles = SOFT_MAX_AVS;
	a->max_partitions = 1;
	a->atomicity = IB_ATOMIC_LOCAL;
	a->max_qp_resp_res = SOFT_MAX_QP_RD_ATOM;
	a->max_resp_res = 255;
	a->max_qp_init_depth = SOFT_MAX_QP_RD_ATOM;
	a->max_mcast_grps = SOFT_MAX_MCAST;
	a->max_mcast_qps = SOFT_MAX_MCAST * 8;
	a->max_qps_per_mcast_grp = 8;
	a->max_srq = SOFT_MAX_SRQS;
	a->max_srq_wrs = SOFT_MAX_WRS;
	a->max_srq_sges = SOFT_MAX_SGES;
	a->max_sq_desc_sz = (uint32_t)sizeof(soft_swqe_t);
	a->local_ack_delay = 15;
	a->bad_pkey_ctr_support = TRUE;
	a->bad_qkey_ctr_support = TRUE;
	a->apm_support = TRUE; /* soft_apm.c */
	a->av_port_check = TRUE;
	a->change_primary_port = TRUE;
	a->modify_wr_depth = FALSE;
	a->modify_srq_depth = FALSE;
	a->current_qp_state_support = TRUE;
	a->shutdown_port_capability = FALSE;
	a->init_type_support = FALSE;
	a->port_active_event_support = TRUE;
	a->system_image_guid_support = TRUE;
	a->system_image_guid = ca->guid;
	a->p_page_size[0] = 4096;
	for (i = 0; i < ca->num_ports; i++) {
		ib_port_attr_t *pa = &a->p_port_attr[i];

		fill_port(&ca->port[i], pa);
		pa->p_gid_table[0].unicast.prefix = ca->port[i].mgmt.subnet_prefix;
		pa->p_gid_table[0].unicast.interface_id = ca->port[i].guid;
		pa->p_pkey_table[0] = CL_HTON16(0xFFFF);
	}
}

soft_port_t *soft_ca_port(soft_ca_t *ca, uint8_t num)
{
	return num >= 1 && num <= ca->num_ports ? &ca->port[num - 1] : NULL;
}

boolean_t soft_port_pkey(const soft_port_t *port, uint16_t index, uint16_t *p_pkey)
{
	(void)port;
	if (index != 0)
		return FALSE;
	*p_pkey = 0xFFFF;
	return TRUE;
}

uint32_t soft_port_mtu(const soft_port_t *port)
{
	(void)port;
	return 4096;
}

static void ca_free(soft_ca_t *ca)
{
	unsigned i;
	soft_mcast_t *m;
	cl_list_item_t *it;

	while ((m = ca->mcast)) {
		ca->mcast = m->next;
		cl_free(m);
	}
	/* Upcalls queued after the progress thread stopped (the SM's last words). */
	while ((it = cl_qlist_remove_head(&ca->ev_list)) != cl_qlist_end(&ca->ev_list))
		cl_free(it);
	for (i = 0; i < ca->num_ports; i++)
		soft_fabric_port_close(ca->port[i].fp);
	/* The ports are closed: the service may open its own CA of the node. */
	soft_node_give_back(ca->node_fd);
	soft_lock_destroy(&ca->rx_lock);
	soft_lock_destroy(&ca->pend_lock);
	cl_free(ca->attr);
	cl_free(ca->qp_tab);
	cl_free(ca->keys);
	pthread_mutex_destroy(&ca->lock);
	pthread_mutex_destroy(&ca->ev_lock);
	pthread_cond_destroy(&ca->ev_cond);
	soft_rwlock_destroy(&ca->tab_lock);
	cl_free(ca);
}

static ib_api_status_t open_ports(soft_ca_t *ca)
{
	unsigned i;
	ib_api_status_t st;

	for (i = 0; i < ca->num_ports; i++) {
		soft_port_t *p = &ca->port[i];

		p->ca = ca;
		p->num = (uint8_t)(i + 1);
		p->guid = soft_prov_guid(ca->index, p->num);
		p->cap.cm = FALSE;
		p->cap.port_active = TRUE;
		p->cap.qkey_ctr = TRUE;
		p->cap.pkey_ctr = TRUE;
		p->cap.sysguid = TRUE;
		p->cap.apm = TRUE; /* IsAutomaticMigrationSupported: soft_apm.c */
		st = soft_fabric_port_open_at(p->guid, ca->guid, p->num,
					      soft_prov_port_lid(ca->index, p->num), &p->fp);
		if (st != IB_SUCCESS)
			return st;
		p->lid = soft_fabric_port_lid(p->fp);
		p->link_state = IB_LINK_INIT;
		p->mgmt.subnet_prefix = IB_DEFAULT_SUBNET_PREFIX;
		p->mgmt.subnet_timeout = 18;
	}
	return IB_SUCCESS;
}

ib_api_status_t soft_open_ca(ib_net64_t ca_guid, void *al_ca, void **pp_ca)
{
	soft_ca_t *ca;
	unsigned index;
	uint8_t n_ports;
	uint32_t wait_ms;
	const char *node;
	boolean_t take = FALSE;
	ib_api_status_t st;

	if (!pp_ca)
		return IB_INVALID_PARAMETER;
	if (!soft_prov_ca_index(ca_guid, &index, &n_ports))
		return IB_INVALID_GUID;
	ca = cl_zalloc(sizeof(*ca));
	if (!ca)
		return IB_INSUFFICIENT_MEMORY;
	ca->guid = ca_guid;
	ca->index = index;
	ca->al_ca = al_ca;
	ca->num_ports = n_ports;
	ca->epfd = ca->evfd = ca->node_fd = -1;
	pthread_mutex_init(&ca->lock, NULL);
	pthread_mutex_init(&ca->ev_lock, NULL);
	pthread_cond_init(&ca->ev_cond, NULL);
	soft_rwlock_init(&ca->tab_lock);
	cl_qlist_init(&ca->ev_list);
	cl_thread_construct(&ca->thread);
	ca->next_qpn = 2;
	ca->next_key = 1;
	ca->spin_ns = soft_spin_ns;
	soft_lock_init(&ca->rx_lock);
	soft_lock_init(&ca->pend_lock);
	ca->attr_size = attr_size(n_ports);
	ca->attr = cl_zalloc(ca->attr_size);
	ca->qp_tab = cl_zalloc(SOFT_MAX_QPS * sizeof(*ca->qp_tab));
	ca->keys = cl_zalloc(SOFT_MAX_KEYS * sizeof(*ca->keys));
	if (!ca->attr || !ca->qp_tab || !ca->keys) {
		ca_free(ca);
		return IB_INSUFFICIENT_MEMORY;
	}
	ca->opening = 1;
	node = soft_prov_node_name(index, &take);
	st = node && take ? soft_node_take(node, &ca->node_fd) : IB_SUCCESS;
	if (st == IB_SUCCESS)
		st = open_ports(ca);
	if (st == IB_SUCCESS) {
		build_attr(ca, ca->attr);
		st = soft_progress_start(ca);
	}
	if (st == IB_SUCCESS) {
		st = soft_sm_ca_opened(ca, &wait_ms);
		if (st != IB_SUCCESS)
			soft_progress_stop(ca);
	}
	if (st != IB_SUCCESS) {
		ca_free(ca);
		return st;
	}
	if (wait_ms)
		soft_ca_wait_active(ca, wait_ms);
	__atomic_store_n(&ca->opening, 0, __ATOMIC_RELEASE);
	*pp_ca = ca;
	return IB_SUCCESS;
}

ib_api_status_t soft_query_ca(void *h, ib_ca_attr_t *p_attr, uint32_t *p_size)
{
	soft_ca_t *ca = h;
	uint32_t need = attr_size(ca->num_ports);

	if (!p_size)
		return IB_INVALID_PARAMETER;
	if (!p_attr || *p_size < need) {
		*p_size = need;
		return IB_INSUFFICIENT_MEMORY;
	}
	pthread_mutex_lock(&ca->lock);
	build_attr(ca, p_attr);
	pthread_mutex_unlock(&ca->lock);
	*p_size = need;
	return IB_SUCCESS;
}

/* Capability bits of ib_modify_ca: (mod bit, offset of the boolean in ib_port_cap_t). */
static const struct {
	ib_ca_mod_t bit;
	size_t off;
} cap_bits[] = {
	{ IB_CA_MOD_IS_CM_SUPPORTED, offsetof(ib_port_cap_t, cm) },
	{ IB_CA_MOD_IS_SNMP_SUPPORTED, offsetof(ib_port_cap_t, snmp) },
	{ IB_CA_MOD_IS_DEV_MGMT_SUPPORTED, offsetof(ib_port_cap_t, dev_mgmt) },
	{ IB_CA_MOD_IS_VEND_SUPPORTED, offsetof(ib_port_cap_t, vend) },
	{ IB_CA_MOD_IS_SM, offsetof(ib_port_cap_t, sm) },
	{ IB_CA_MOD_IS_SM_DISABLED, offsetof(ib_port_cap_t, sm_disable) },
	{ IB_CA_MOD_IS_NOTICE_SUPPORTED, offsetof(ib_port_cap_t, notice) },
	{ IB_CA_MOD_IS_TRAP_SUPPORTED, offsetof(ib_port_cap_t, trap) },
	{ IB_CA_MOD_IS_APM_SUPPORTED, offsetof(ib_port_cap_t, apm) },
	{ IB_CA_MOD_IS_SLMAP_SUPPORTED, offsetof(ib_port_cap_t, slmap) },
	{ IB_CA_MOD_IS_PKEY_NVRAM_SUPPORTED, offsetof(ib_port_cap_t, pkey_nvram) },
	{ IB_CA_MOD_IS_MKEY_NVRAM_SUPPORTED, offsetof(ib_port_cap_t, mkey_nvram) },
	{ IB_CA_MOD_IS_SYSGUID_SUPPORTED, offsetof(ib_port_cap_t, sysguid) },
	{ IB_CA_MOD_IS_DR_NOTICE_SUPPORTED, offsetof(ib_port_cap_t, dr_notice) },
	{ IB_CA_MOD_IS_BOOT_MGMT_SUPPORTED, offsetof(ib_port_cap_t, boot_mgmt) },
	{ IB_CA_MOD_IS_CAPM_NOTICE_SUPPORTED, offsetof(ib_port_cap_t, capm_notice) },
	{ IB_CA_MOD_IS_REINIT_SUPORTED, offsetof(ib_port_cap_t, reinit) },
	{ IB_CA_MOD_IS_LEDINFO_SUPPORTED, offsetof(ib_port_cap_t, ledinfo) },
	{ IB_CA_MOD_IS_CLIENT_REREGISTER_SUPPORTED, offsetof(ib_port_cap_t, client_reregister) },
};

ib_api_status_t soft_modify_ca(void *h, uint8_t port_num, ib_ca_mod_t mod,
			       const ib_port_attr_mod_t *p_attr)
{
	soft_ca_t *ca = h;
	soft_port_t *port = soft_ca_port(ca, port_num);
	ib_port_cap_t before;
	boolean_t changed;
	size_t i;

	if (!port)
		return IB_INVALID_PORT;
	if (!p_attr || (mod & IB_CA_MOD_RESERVED_MASK))
		return IB_INVALID_PARAMETER;
	if (mod & (IB_CA_MOD_SHUTDOWN_PORT | IB_CA_MOD_INIT_TYPE_VALUE))
		return IB_UNSUPPORTED;
	pthread_mutex_lock(&ca->lock);
	before = port->cap;
	for (i = 0; i < sizeof(cap_bits) / sizeof(cap_bits[0]); i++)
		if (mod & cap_bits[i].bit)
			memcpy((uint8_t *)&port->cap + cap_bits[i].off,
			       (const uint8_t *)&p_attr->cap + cap_bits[i].off, sizeof(boolean_t));
	if (mod & IB_CA_MOD_QKEY_CTR)
		port->qkey_ctr = 0;
	if (mod & IB_CA_MOD_PKEY_CTR)
		port->pkey_ctr = 0;
	changed = memcmp(&before, &port->cap, sizeof(before)) != 0;
	build_attr(ca, ca->attr);
	pthread_mutex_unlock(&ca->lock);
	/* The SM learns the new CapabilityMask from a trap, as from an HCA. */
	if (changed)
		soft_sma_cap_changed(port);
	return IB_SUCCESS;
}

void soft_close_ca(void *h)
{
	soft_ca_t *ca = h;

	soft_sm_ca_closing(ca); /* the SM lets go of its ports */
	soft_progress_stop(ca);
	soft_sm_ca_closed(ca);  /* nothing of this CA calls into the SM now */
	ca_free(ca);
}
