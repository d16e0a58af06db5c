/*
 * ibal soft provider: the virtual switch of the embedded subnet manager, as the SA is told of it.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The soft fabric delivers LID-routed packets by DLID, as one switch would;
 * the SM describes that switch to the SA so that topology queries
 * (LinkRecord, NodeRecord, PortInfoRecord) see the subnet OpenSM would
 * report for CAs cabled to one switch. The switch exists in the SA's
 * records only: SMPs do not cross it and nothing answers at its LID.
 *
 * - GUID: node, system image and port 0 GUID alike, derived from the
 *   fabric directory's canonical path (FNV-1a), under the soft provider's
 *   GUID prefix 0x02BA1A with bit 39 set, which no CA GUID has (their bits
 *   39..16 hold a PID, below 2^22). Every process's SM on the directory
 *   derives the same one.
 * - LID: switch port 0 takes the highest unicast LID that no registry
 *   port holds (the registry hands out the lowest free ones), kept while
 *   it stays free; a port moved onto it sends the switch elsewhere.
 * - Ports: each CA port the SM pushes to the SA is cabled to the lowest
 *   switch port free then, for as long as the SM knows it. NumPorts is the
 *   highest port in use; the ports below it without a cable are DOWN.
 *   At most SM_SW_MAX_PORTS: later CA ports get no peer.
 * - A cabled switch port mirrors its CA port's link (width, speed, MTU,
 *   state); port 0 is ACTIVE with the SM's LID as MasterSMLID.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "soft_sm_int.h"

#define SW_GUID_PREFIX 0x02BA1Aull
#define SW_DEVICE_ID 0x50F8

void soft_sm_sw_init(struct soft_sm *sm)
{
	char *real = realpath(sm->dir, NULL);
	const char *s = real ? real : sm->dir;
	uint64_t h = 0xCBF29CE484222325ull;

	for (; *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001B3ull;
	}
	free(real); /* realpath()'s, from libc */
	/* Bits 38..4 from the hash, low nibble 0 as a node GUID's. */
	h = (SW_GUID_PREFIX << 40) | (1ull << 39) | ((h ^ (h >> 35)) & 0x7FFFFFFFF0ull);
	sm->sw_guid = cl_hton64(h);
}

void soft_sm_sw_cable(struct soft_sm *sm, sm_known_t *k)
{
	uint8_t used[SM_SW_MAX_PORTS + 1];
	size_t i;
	unsigned p;

	if (!k->sw_port) {
		memset(used, 0, sizeof(used));
		for (i = 0; i < sm->n_known; i++)
			used[sm->known[i].sw_port] = 1;
		for (p = 1; p <= SM_SW_MAX_PORTS && used[p]; p++)
			;
		if (p <= SM_SW_MAX_PORTS)
			k->sw_port = (uint8_t)p;
	}
	k->sa.peer_node_guid = k->sw_port ? sm->sw_guid : 0;
	k->sa.peer_port_num = k->sw_port;
	sm->sw_dirty = 1; /* the switch port mirrors the CA port's state */
}

void soft_sm_sw_unplug(struct soft_sm *sm, sm_known_t *k)
{
	if (k->sw_port) {
		k->sw_port = 0;
		sm->sw_dirty = 1;
	}
}

static boolean_t lid_held(const soft_fabric_port_info_t *v, size_t n, uint16_t lid)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].lid == lid)
			return TRUE;
		if (v[mid].lid < lid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return FALSE;
}

void soft_sm_sw_choose_lid(struct soft_sm *sm, const soft_fabric_port_info_t *v, size_t n)
{
	uint16_t lid;

	if (sm->sw_lid && !lid_held(v, n, sm->sw_lid))
		return;
	for (lid = SOFT_FABRIC_LID_UNICAST_MAX; lid && lid_held(v, n, lid); lid--)
		;
	if (lid != sm->sw_lid) {
		sm->sw_lid = lid;
		sm->sw_dirty = 1;
	}
}

/* What is common to every port of the switch. */
static void sw_node(struct soft_sm *sm, soft_sa_port_t *e, uint8_t nports, uint8_t port)
{
	char host[32] = "localhost";

	memset(e, 0, sizeof(*e));
	e->node_info.base_version = 1;
	e->node_info.class_version = 1;
	e->node_info.node_type = IB_NODE_TYPE_SWITCH;
	e->node_info.num_ports = nports;
	e->node_info.sys_guid = sm->sw_guid;
	e->node_info.node_guid = sm->sw_guid;
	e->node_info.port_guid = sm->sw_guid;
	e->node_info.partition_cap = CL_HTON16(1);
	e->node_info.device_id = CL_HTON16(SW_DEVICE_ID);
	e->node_info.revision = CL_HTON32(1);
	e->node_info.port_num_vendor_id = cl_hton32(((uint32_t)port << 24) | (uint32_t)SW_GUID_PREFIX);
	gethostname(host, sizeof(host) - 1);
	host[sizeof(host) - 1] = 0;
	snprintf((char *)e->node_desc.description, sizeof(e->node_desc.description),
		 "ibal-soft switch %s", host);
	e->port_num = port;
	e->pkey_table.pkey_entry[0] = CL_HTON16(0xFFFF);
	e->port_info.subnet_prefix = IB_DEFAULT_SUBNET_PREFIX;
	e->port_info.local_port_num = port;
	e->port_info.link_width_enabled = IB_LINK_WIDTH_ACTIVE_4X;
	e->port_info.link_width_supported = IB_LINK_WIDTH_ACTIVE_1X | IB_LINK_WIDTH_ACTIVE_4X;
	e->port_info.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
	e->port_info.link_speed = (IB_LINK_SPEED_ACTIVE_2_5 << 4) | IB_LINK_SPEED_ACTIVE_2_5;
	e->port_info.mtu_smsl = IB_MTU_LEN_4096 << 4;
	e->port_info.mtu_cap = IB_MTU_LEN_4096;
	e->port_info.vl_cap = 1 << 4;
	e->port_info.vl_arb_high_cap = 32;
	e->port_info.vl_arb_low_cap = 32;
	e->port_info.vl_stall_life = 0x13;
	e->port_info.vl_enforce = 1 << 4;
	e->port_info.subnet_timeout = 18;
}

/* Switch port 0: the switch's management port, with its LID. */
static void sw_port0(struct soft_sm *sm, soft_sa_port_t *e, uint8_t nports)
{
	sw_node(sm, e, nports, 0);
	e->guid_info.guid[0] = sm->sw_guid;
	e->port_info.base_lid = cl_hton16(sm->sw_lid);
	e->port_info.master_sm_base_lid = cl_hton16(soft_sm_lid(sm));
	e->port_info.state_info1 = (uint8_t)((IB_LINK_SPEED_ACTIVE_2_5 << 4) | IB_LINK_ACTIVE);
	e->port_info.state_info2 = (5 << 4) | 2; /* LinkUp; down default: Polling */
}

/* Switch port @p port, cabled to @p k (or NULL: no cable, DOWN). */
static void sw_port(struct soft_sm *sm, soft_sa_port_t *e, uint8_t nports, uint8_t port,
		    const sm_known_t *k)
{
	sw_node(sm, e, nports, port);
	if (!k) {
		e->port_info.state_info1 = (uint8_t)((IB_LINK_SPEED_ACTIVE_2_5 << 4) | IB_LINK_DOWN);
		e->port_info.state_info2 = (2 << 4) | 2; /* Polling */
		e->port_info.link_width_active = 0;
		return;
	}
	/* Both ends of a link train to the same width, speed and MTU. */
	e->port_info.link_width_active = k->sa.port_info.link_width_active;
	e->port_info.link_speed = k->sa.port_info.link_speed;
	e->port_info.state_info1 = (uint8_t)((k->sa.port_info.state_info1 & 0xF0) |
					     ib_port_info_get_port_state(&k->sa.port_info));
	e->port_info.state_info2 = k->sa.port_info.state_info2;
	e->port_info.mtu_smsl = (uint8_t)((k->sa.port_info.mtu_cap & 0x0F) << 4);
	e->port_info.link_speed_ext = k->sa.port_info.link_speed_ext;
	e->peer_node_guid = k->sa.node_info.node_guid;
	e->peer_port_num = k->sa.port_num;
}

void soft_sm_sw_push(struct soft_sm *sm, boolean_t all)
{
	const sm_known_t *by_port[SM_SW_MAX_PORTS + 1];
	soft_sa_port_t e;
	uint8_t n = 0, p;
	unsigned gone;
	size_t i;

	if (!sm->sa || !sm->sw_lid || (!all && !sm->sw_dirty))
		return;
	memset(by_port, 0, sizeof(by_port));
	for (i = 0; i < sm->n_known; i++) {
		uint8_t sp = sm->known[i].sw_port;

		if (sp) {
			by_port[sp] = &sm->known[i];
			if (sp > n)
				n = sp;
		}
	}
	sw_port0(sm, &e, n);
	soft_sa_port_update(sm->sa, &e);
	for (p = 1; p <= n; p++) {
		sw_port(sm, &e, n, p, by_port[p]);
		soft_sa_port_update(sm->sa, &e);
	}
	/* Ports past the new NumPorts leave the switch. */
	for (gone = (unsigned)n + 1; gone <= sm->sw_nports; gone++)
		soft_sa_port_remove(sm->sa, sm->sw_guid, (uint8_t)gone);
	sm->sw_nports = n;
	sm->sw_dirty = 0;
}
