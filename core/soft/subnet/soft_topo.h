/*
 * ibal soft provider: the topology file of the fabric service.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_topo.h
 * @brief The nodes of a soft fabric held by the fabric service
 * (`ibal-soft-fabric`), read from a topology file.
 *
 * A topology file is text, one node per line, in the spirit of ibsim's net
 * files (a node, its GUID, its ports and their LIDs):
 *
 *     # name      node GUID                 one LID per port
 *     node server guid=0x0002c90300001230 lid=0x10
 *     node client guid=0x0002c90300001240 lid=0x20,0x21
 *
 * `#` starts a comment; blank lines are ignored. A name is 1 to 63 of
 * `A-Z a-z 0-9 _ . -`; a node GUID is non-zero with its low 4 bits 0 (port
 * N's GUID is the node GUID plus N, as for every soft CA); a node has 1 to
 * SOFT_TOPO_MAX_PORTS ports, one unicast LID (1..0xBFFF, decimal or 0x hex)
 * each. Names, node GUIDs and LIDs are unique in the file. At most
 * SOFT_TOPO_MAX_NODES nodes; the file is at most 64 KiB.
 */
#ifndef SOFT_TOPO_H
#define SOFT_TOPO_H

#include <stddef.h>
#include <stdint.h>
#include <iba/ib_types.h>
#include "soft_fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Most nodes a topology holds (the fabric service opens one soft CA per node, and one of its own). */
#define SOFT_TOPO_MAX_NODES 255
/** Most ports of a node (a soft CA's ports). */
#define SOFT_TOPO_MAX_PORTS 2
/** Size of a node's name, its terminating NUL included. */
#define SOFT_TOPO_NAME_SIZE 64
/** Largest topology file. */
#define SOFT_TOPO_MAX_FILE 65536
/** Environment: the node of the topology this process's soft CA is. */
#define SOFT_TOPO_ENV_NODE "IBAL_SOFT_NODE"
/** Environment: the topology file to read the node from (default: the fabric directory's `topology`). */
#define SOFT_TOPO_ENV_FILE "IBAL_SOFT_TOPOLOGY"
/** The service's copy of its topology, in the fabric directory. */
#define SOFT_TOPO_DIR_FILE SOFT_FABRIC_TOPOLOGY
/** The service's control socket, in the fabric directory. */
#define SOFT_TOPO_DIR_SOCKET "service"

/**
 * @name The fabric service's protocol.
 * A process that is a node connects a SOCK_SEQPACKET socket to
 * SOFT_TOPO_DIR_SOCKET and sends one message, SOFT_SVC_TAKE followed by the
 * node's name. The service answers SOFT_SVC_OK once it has closed its own
 * CA of that node (the process then opens the node's ports at their LIDs),
 * SOFT_SVC_BUSY if another connection holds the node, SOFT_SVC_UNKNOWN if
 * its topology has no such node. The node stays the process's while the
 * connection is open; when it closes (the CA closed, the process exited or
 * died) the service opens its CA of the node again.
 * @{
 */
#define SOFT_SVC_TAKE "take "
#define SOFT_SVC_OK "ok"
#define SOFT_SVC_BUSY "busy"
#define SOFT_SVC_UNKNOWN "unknown"
/** Longest message either side sends. */
#define SOFT_SVC_MSG_MAX (sizeof(SOFT_SVC_TAKE) + SOFT_TOPO_NAME_SIZE)
/** @} */

/** One node of a topology. */
typedef struct soft_topo_node {
	char name[SOFT_TOPO_NAME_SIZE];   /**< Its name (NodeDescription, IBAL_SOFT_NODE). */
	ib_net64_t node_guid;             /**< Node GUID, network order; port N is node_guid + N. */
	uint8_t n_ports;                  /**< Ports, 1..SOFT_TOPO_MAX_PORTS. */
	uint16_t lid[SOFT_TOPO_MAX_PORTS]; /**< LID of port i + 1, host order. */
} soft_topo_node_t;

/** A topology: its nodes in the file's order. */
typedef struct soft_topo {
	unsigned n_nodes;                           /**< Nodes. */
	soft_topo_node_t node[SOFT_TOPO_MAX_NODES]; /**< The nodes. */
} soft_topo_t;

/**
 * Parses a topology from text.
 * @param text the file's bytes (need not end in NUL). @param len their number.
 * @param p_topo receives the nodes.
 * @param err receives, on failure, one line saying where and what
 * ("line 3: duplicate LID 0x10"). @param err_size size of @p err.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER for NULL pointers;
 * IB_INVALID_SETTING for text that is not a valid topology (also one with
 * no node).
 */
ib_api_status_t soft_topo_parse(const char *text, size_t len, soft_topo_t *p_topo, char *err,
				size_t err_size);

/**
 * Reads and parses a topology file.
 * @param path the file. @param p_topo receives the nodes.
 * @param err as soft_topo_parse(), prefixed with @p path. @param err_size its size.
 * @return as soft_topo_parse(); IB_NOT_FOUND if the file cannot be read;
 * IB_INVALID_SETTING also for a file over SOFT_TOPO_MAX_FILE bytes.
 */
ib_api_status_t soft_topo_load(const char *path, soft_topo_t *p_topo, char *err, size_t err_size);

/**
 * The node of a topology with a name.
 * @param p_topo the topology. @param name the name.
 * @return the node, or NULL.
 */
const soft_topo_node_t *soft_topo_find(const soft_topo_t *p_topo, const char *name);

/**
 * The GUID of a node's port.
 * @param node the node. @param port_num the port number (1-based).
 * @return the port GUID, network order.
 */
static inline ib_net64_t soft_topo_port_guid(const soft_topo_node_t *node, uint8_t port_num)
{
	return cl_hton64(cl_ntoh64(node->node_guid) + port_num);
}

#ifdef __cplusplus
}
#endif

#endif
