/*
 * ibal soft provider: the provider table, its lifetime and the enumeration of soft CAs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A process has IBAL_SOFT_CAS soft CAs (default 1, at most SOFT_MAX_CAS),
 * each with IBAL_SOFT_PORTS ports (default 1, at most SOFT_MAX_PORTS),
 * read at init. A CA can be unplugged and plugged back (soft_ci.c): an
 * unplugged CA is not enumerated and cannot be opened.
 *
 * GUIDs are unique on the host across processes: 64 bits made of
 *   bits 63..40  0x02BA1A, a locally administered prefix of ours;
 *   bits 39..16  the process ID (Linux PIDs fit 22 bits);
 *   bits 15..4   the CA index in the process;
 *   bits  3..0   0 for the node (CA) GUID, the port number for a port GUID.
 * The fabric gives a returning port GUID (same PID and index again, after
 * a close) its previous LID.
 *
 * With IBAL_SOFT_NODE=name the process has one soft CA instead: that node
 * of the fabric service's topology (soft_topo.h; the file named by
 * IBAL_SOFT_TOPOLOGY, else the service's copy in the fabric directory),
 * with its GUIDs, ports and LIDs; opening it asks the service for the node
 * (soft_node.c). The fabric service itself has its own CA (index 0, GUIDs
 * as above) and one CA per node of its topology (soft_prov_serve()).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "soft_direct.h"
#include "soft_hca.h"
#include "soft_mad_agent.h"
#include "soft_topo.h"
#include "ibal_log.h"
#include "ibal_env.h"

#define SOFT_GUID_PREFIX 0x02BA1Aull

al_prov_upcalls_t soft_upcalls;
static unsigned soft_n_cas;
static uint8_t soft_n_ports;
static uint32_t soft_pid;
/* IBAL_SOFT_SPIN_US in nanoseconds, read at soft_init. */
uint64_t soft_spin_ns;
/* IBAL_SOFT_UD_HOLD_MS in nanoseconds, read at soft_init. */
uint64_t soft_ud_hold_ns = (uint64_t)SOFT_UD_HOLD_MS * 1000000u;
/* IBAL_SOFT_ICRC, read at soft_init. */
boolean_t soft_data_crc;
/* Per CA index: 1 while unplugged (soft_prov_set_present); atomic. */
static uint8_t soft_absent[SOFT_MAX_CAS];

_Static_assert(SOFT_TOPO_MAX_PORTS == SOFT_MAX_PORTS, "a topology node is a soft CA");
_Static_assert(SOFT_TOPO_MAX_NODES < SOFT_MAX_CAS, "the service has a CA per node and its own");

/* What each CA of the process is; written at init (and by soft_prov_serve). */
typedef struct soft_ident {
	ib_net64_t node_guid;
	uint8_t n_ports;
	boolean_t take;                 /* a topology node: ask the fabric service at open */
	uint16_t lid[SOFT_MAX_PORTS];   /* the LID each port must have; 0: any */
	char name[SOFT_TOPO_NAME_SIZE]; /* the node's name, "" outside a topology */
} soft_ident_t;
static soft_ident_t soft_ids[SOFT_MAX_CAS];

/* The GUID scheme of this process's own CAs (file comment). */
static ib_net64_t own_guid(unsigned index)
{
	uint64_t g = (SOFT_GUID_PREFIX << 40) | ((uint64_t)(soft_pid & 0xFFFFFF) << 16) |
		     ((uint64_t)(index & 0xFFF) << 4);

	return cl_hton64(g);
}

ib_net64_t soft_prov_guid(unsigned index, uint8_t port)
{
	if (index >= SOFT_MAX_CAS)
		return 0;
	return cl_hton64(cl_ntoh64(soft_ids[index].node_guid) | (port & 0xF));
}

uint16_t soft_prov_port_lid(unsigned index, uint8_t port)
{
	if (index >= SOFT_MAX_CAS || !port || port > SOFT_MAX_PORTS)
		return 0;
	return soft_ids[index].lid[port - 1];
}

const char *soft_prov_node_name(unsigned index, boolean_t *p_take)
{
	if (index >= SOFT_MAX_CAS || !soft_ids[index].name[0])
		return NULL;
	if (p_take)
		*p_take = soft_ids[index].take;
	return soft_ids[index].name;
}

boolean_t soft_prov_ca_index(ib_net64_t guid, unsigned *p_index, uint8_t *p_ports)
{
	unsigned i;

	for (i = 0; i < soft_n_cas; i++) {
		if (soft_ids[i].node_guid == guid && !__atomic_load_n(&soft_absent[i], __ATOMIC_ACQUIRE)) {
			*p_index = i;
			*p_ports = soft_ids[i].n_ports;
			return TRUE;
		}
	}
	return FALSE;
}

/* Makes CA index one of the process's own, with the GUID scheme of the file comment. */
static void ident_own(unsigned index, uint8_t n_ports)
{
	memset(&soft_ids[index], 0, sizeof(soft_ids[index]));
	soft_ids[index].node_guid = own_guid(index);
	soft_ids[index].n_ports = n_ports;
}

/* Makes CA index the topology node @p node. */
static void ident_node(unsigned index, const soft_topo_node_t *node, boolean_t take)
{
	soft_ident_t *id = &soft_ids[index];
	unsigned p;

	memset(id, 0, sizeof(*id));
	id->node_guid = node->node_guid;
	id->n_ports = node->n_ports;
	id->take = take;
	for (p = 0; p < node->n_ports; p++)
		id->lid[p] = node->lid[p];
	memcpy(id->name, node->name, sizeof(id->name));
}

/* IBAL_SOFT_NODE: the process's one CA is that node; no CA if it cannot be. */
static void ident_from_env(const char *name)
{
	char path[PATH_MAX], err[PATH_MAX + 256];
	const char *file = getenv(SOFT_TOPO_ENV_FILE);
	const soft_topo_node_t *node;
	soft_topo_t *t = (soft_topo_t *)cl_malloc(sizeof(*t));
	ib_api_status_t st;

	soft_n_cas = 0;
	if (!t) {
		IBAL_ERR(IBAL_SUB_SOFT, "%s=%s: no memory to read the topology: no soft CA",
			 SOFT_TOPO_ENV_NODE, name);
		return;
	}
	if (file && *file)
		snprintf(path, sizeof(path), "%s", file);
	else if (soft_fabric_dir_file(SOFT_TOPO_DIR_FILE, path, sizeof(path)) != IB_SUCCESS)
		path[0] = '\0';
	st = path[0] ? soft_topo_load(path, t, err, sizeof(err)) : IB_NOT_FOUND;
	node = st == IB_SUCCESS ? soft_topo_find(t, name) : NULL;
	if (st == IB_NOT_FOUND && !(file && *file))
		IBAL_WARN(IBAL_SUB_SOFT, "%s=%s: no topology (start ibal-soft-fabric on this fabric "
				 "directory, or set %s): no soft CA",
				 SOFT_TOPO_ENV_NODE, name, SOFT_TOPO_ENV_FILE);
	else if (st != IB_SUCCESS)
		IBAL_WARN(IBAL_SUB_SOFT, "%s: no soft CA", err);
	else if (!node)
		IBAL_WARN(IBAL_SUB_SOFT, "%s=%s: %s has no such node: no soft CA", SOFT_TOPO_ENV_NODE, name,
				 path);
	if (node) {
		ident_node(0, node, TRUE);
		soft_n_cas = 1;
	}
	cl_free(t);
}

ib_api_status_t soft_prov_serve(const soft_topo_t *p_topo)
{
	unsigned i;

	if (!p_topo || !p_topo->n_nodes || p_topo->n_nodes > SOFT_TOPO_MAX_NODES || !soft_pid)
		return IB_INVALID_PARAMETER;
	/* CA 0 is the service's own, whatever IBAL_SOFT_NODE it inherited. */
	ident_own(0, 1);
	for (i = 0; i < p_topo->n_nodes; i++)
		ident_node(i + 1, &p_topo->node[i], FALSE);
	soft_n_cas = p_topo->n_nodes + 1;
	return IB_SUCCESS;
}

boolean_t soft_prov_set_present(unsigned index, boolean_t present)
{
	uint8_t absent = present ? 0 : 1;

	if (index >= SOFT_MAX_CAS)
		return FALSE;
	return __atomic_exchange_n(&soft_absent[index], absent, __ATOMIC_ACQ_REL) != absent;
}

static ib_api_status_t soft_init(const al_prov_upcalls_t *up)
{
	const char *node;
	unsigned i;

	if (!up)
		return IB_INVALID_PARAMETER;
	soft_upcalls = *up;
	soft_n_cas = (unsigned)__cl_env_uint(SOFT_ENV_CAS, 1, SOFT_MAX_CAS_ENV, 1);
	soft_n_ports = (uint8_t)__cl_env_uint(SOFT_ENV_PORTS, 1, SOFT_MAX_PORTS, 1);
	soft_pid = (uint32_t)getpid();
	memset(soft_ids, 0, sizeof(soft_ids));
	for (i = 0; i < soft_n_cas; i++)
		ident_own(i, soft_n_ports);
	node = getenv(SOFT_TOPO_ENV_NODE);
	if (node && *node)
		ident_from_env(node);
	soft_data_crc = __cl_env_uint(SOFT_ENV_ICRC, 0, 1, 0) != 0;
	soft_direct_min = (uint32_t)__cl_env_uint(SOFT_ENV_DIRECT, 0, 0x80000000u,
						  SOFT_DIRECT_MIN_DEFAULT);
	soft_spin_ns = __cl_env_uint(SOFT_ENV_SPIN_US, 0, SOFT_SPIN_US_MAX, SOFT_SPIN_US_DEFAULT) * 1000u;
	__atomic_store_n(&soft_ud_hold_ns,
			 __cl_env_uint(SOFT_ENV_UD_HOLD_MS, 1, SOFT_UD_HOLD_MS_MAX, SOFT_UD_HOLD_MS) *
				 1000000u,
			 __ATOMIC_RELAXED);
	memset(soft_absent, 0, sizeof(soft_absent));
	return IB_SUCCESS;
}

static void soft_cleanup(void)
{
	memset(&soft_upcalls, 0, sizeof(soft_upcalls));
	soft_n_cas = 0;
}

static ib_api_status_t soft_get_ca_guids(ib_net64_t *p_guids, size_t *p_count)
{
	size_t room, i, n = 0;
	ib_net64_t g[SOFT_MAX_CAS];

	if (!p_count)
		return IB_INVALID_PARAMETER;
	for (i = 0; i < soft_n_cas; i++)
		if (!__atomic_load_n(&soft_absent[i], __ATOMIC_ACQUIRE))
			g[n++] = soft_ids[i].node_guid;
	room = *p_count;
	*p_count = n;
	if (room < n || (n && !p_guids))
		return n ? IB_INSUFFICIENT_MEMORY : IB_SUCCESS;
	if (n)
		memcpy(p_guids, g, n * sizeof(*g));
	return IB_SUCCESS;
}

const al_prov_ops_t soft_prov_ops = {
	.size = sizeof(al_prov_ops_t),
	.name = "soft",
	.init = soft_init,
	.cleanup = soft_cleanup,
	.get_ca_guids = soft_get_ca_guids,
	.open_ca = soft_open_ca,
	.query_ca = soft_query_ca,
	.modify_ca = soft_modify_ca,
	.close_ca = soft_close_ca,
	.ci_call = soft_ci_call,
	.local_mad = soft_local_mad,
	.alloc_pd = soft_alloc_pd,
	.dealloc_pd = soft_dealloc_pd,
	.create_av = soft_create_av,
	.query_av = soft_query_av,
	.modify_av = soft_modify_av,
	.destroy_av = soft_destroy_av,
	.create_srq = soft_create_srq,
	.query_srq = soft_query_srq,
	.modify_srq = soft_modify_srq,
	.destroy_srq = soft_destroy_srq,
	.create_qp = soft_create_qp,
	.create_spl_qp = soft_create_spl_qp,
	.query_qp = soft_query_qp,
	.modify_qp = soft_modify_qp,
	.destroy_qp = soft_destroy_qp,
	.attach_mcast = soft_attach_mcast,
	.detach_mcast = soft_detach_mcast,
	.create_cq = soft_create_cq,
	.resize_cq = soft_resize_cq,
	.query_cq = soft_query_cq,
	.destroy_cq = soft_destroy_cq,
	.reg_mem = soft_reg_mem,
	.query_mr = soft_query_mr,
	.rereg_mem = soft_rereg_mem,
	.reg_shared = soft_reg_shared,
	.dereg_mr = soft_dereg_mr,
	.create_mw = soft_create_mw,
	.query_mw = soft_query_mw,
	.bind_mw = soft_bind_mw,
	.destroy_mw = soft_destroy_mw,
	.post_send = soft_post_send,
	.post_recv = soft_post_recv,
	.post_srq_recv = soft_post_srq_recv,
	.peek_cq = soft_peek_cq,
	.poll_cq = soft_poll_cq,
	.rearm_cq = soft_rearm_cq,
	.rearm_n_cq = soft_rearm_n_cq,
};
