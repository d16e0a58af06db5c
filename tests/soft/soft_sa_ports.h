/*
 * ibal tests: the CA ports and GIDs the soft SA's tests and its fuzz harness give the SA.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * No CUnit: tests/fuzz/fuzz_sa.c includes it too.
 */
#ifndef IBAL_SOFT_SA_PORTS_H
#define IBAL_SOFT_SA_PORTS_H

#include <stdio.h>
#include <string.h>
#include "soft_sa.h"

/* A CA port: node GUID 0x100+i, port GUID 0x200+i, LID lid. */
static inline soft_sa_port_t mk_port(unsigned i, uint16_t lid, uint8_t state)
{
	soft_sa_port_t p;

	memset(&p, 0, sizeof(p));
	p.node_info.base_version = 1;
	p.node_info.class_version = 1;
	p.node_info.node_type = IB_NODE_TYPE_CA;
	p.node_info.num_ports = 1;
	p.node_info.node_guid = cl_hton64(0x100 + i);
	p.node_info.sys_guid = cl_hton64(0x100 + i);
	p.node_info.port_guid = cl_hton64(0x200 + i);
	p.node_info.partition_cap = cl_hton16(1);
	p.node_info.port_num_vendor_id = cl_hton32(0x01000000 | 0x2C9);
	snprintf((char *)p.node_desc.description, sizeof(p.node_desc.description), "soft node %u", i);
	p.port_num = 1;
	p.port_info.subnet_prefix = IB_DEFAULT_SUBNET_PREFIX;
	p.port_info.base_lid = cl_hton16(lid);
	p.port_info.master_sm_base_lid = cl_hton16(1);
	p.port_info.local_port_num = 1;
	p.port_info.link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
	p.port_info.state_info1 = (uint8_t)((IB_LINK_SPEED_ACTIVE_10 << 4) | state);
	p.port_info.link_speed = (uint8_t)(IB_LINK_SPEED_ACTIVE_10 << 4);
	p.port_info.mtu_smsl = (uint8_t)(IB_MTU_LEN_4096 << 4);
	p.port_info.mtu_cap = IB_MTU_LEN_4096;
	p.guid_info.guid[0] = p.node_info.port_guid;
	p.pkey_table.pkey_entry[0] = cl_hton16(0xFFFF);
	return p;
}

static inline ib_gid_t gid_of(unsigned i)
{
	ib_gid_t g;

	g.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
	g.unicast.interface_id = cl_hton64(0x200 + i);
	return g;
}

#endif /* IBAL_SOFT_SA_PORTS_H */
