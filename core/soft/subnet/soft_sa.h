/*
 * ibal soft provider: the subnet administrator of the embedded subnet manager.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_sa.h
 * @brief The SA class agent (IBA 15) the master subnet manager of a soft
 * fabric runs on its port's QP1. Private to the soft provider.
 *
 * The subnet manager (soft_sm.c) discovers ports with SMPs and pushes what
 * it learns into the SA with soft_sa_port_update() and soft_sa_port_remove();
 * the SA keeps its own copy, so its records never reach into the SM's state.
 * The SA answers requests given to soft_sa_recv() (Get, GetTable with RMPP,
 * Set, Delete, and the ReportResp/RMPP ACKs that come back) through the
 * send function of its soft_sa_ops_t, keeps service records with their
 * leases, multicast groups with their members, and InformInfo subscriptions
 * to which it sends Notice reports (traps 64/65 when a port enters or leaves
 * service, 66/67 when a multicast group is created or deleted).
 *
 * Thread safety: every function may be called from any thread; the SA
 * serializes them with its own mutex. The send function is called with that
 * mutex held and must not call back into the SA.
 */
#ifndef SOFT_SA_H
#define SOFT_SA_H

#include <stddef.h>
#include <stdint.h>
#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Where a MAD came from, or goes to (host order except the GID). */
typedef struct soft_mad_addr {
	uint16_t lid;          /**< Remote port's LID. */
	uint32_t qpn;          /**< Remote QP number (24 bits). */
	uint32_t qkey;         /**< Q_Key to send with (QP1: IB_QP1_WELL_KNOWN_Q_KEY). */
	uint16_t pkey;         /**< P_Key of the packet. */
	uint8_t sl;            /**< Service level. */
	uint16_t pkey_index;   /**< P_Key index at the receiving port (reporting only). */
	boolean_t grh_valid;   /**< The packet had (or needs) a GRH. */
	ib_gid_t gid;          /**< Remote GID when grh_valid. */
} soft_mad_addr_t;

/** What the SM knows of one port (or of one switch port), pushed to the SA. */
typedef struct soft_sa_port {
	ib_node_info_t node_info;     /**< NodeInfo of the port's node (port_guid: this port's). */
	ib_node_desc_t node_desc;     /**< NodeDescription of the node. */
	ib_port_info_t port_info;     /**< PortInfo as last read/set by the SM (LID, LMC, state, MTU, rate). */
	uint8_t port_num;             /**< Port number on its node. */
	ib_guid_info_t guid_info;     /**< GUIDInfo block 0 (GUID 0 = port GUID). */
	ib_pkey_table_t pkey_table;   /**< P_KeyTable block 0. */
	ib_net64_t peer_node_guid;    /**< Node at the other end of its link, or 0 (LinkRecord). */
	uint8_t peer_port_num;        /**< Port number at the other end of its link. */
} soft_sa_port_t;

/** How the SA reaches the fabric. */
typedef struct soft_sa_ops {
	void *ctx; /**< Passed to every function below. */
	/**
	 * Sends one MAD (MAD_BLOCK_SIZE bytes) from the SM port's QP1.
	 * @param ctx the ctx above.
	 * @param p_mad the MAD.
	 * @param p_dst the destination.
	 */
	void (*send)(void *ctx, const ib_mad_t *p_mad, const soft_mad_addr_t *p_dst);
} soft_sa_ops_t;

/** An SA instance (opaque). */
typedef struct soft_sa soft_sa_t;

/**
 * Makes an SA.
 * @param p_ops how it sends (copied).
 * @param p_sm_info the master SM's SMInfo (GUID, SM_Key, priority, state).
 * @param sm_lid the master SM's LID, host order.
 * @return the SA, or NULL when out of memory.
 */
soft_sa_t *soft_sa_create(const soft_sa_ops_t *p_ops, const ib_sm_info_t *p_sm_info,
			  uint16_t sm_lid);

/**
 * Ends an SA: its records, subscriptions and RMPP transfers are dropped.
 * NULL is ignored.
 * @param sa the SA.
 */
void soft_sa_destroy(soft_sa_t *sa);

/**
 * Adds a port to the SA's view, or replaces what it knew of it (matched by
 * node GUID and port number). A CA port whose state reaches ACTIVE for the
 * first time raises trap 64 (GID in service) to the subscribers.
 * @param sa the SA.
 * @param p_port what the SM knows of it.
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY.
 */
ib_api_status_t soft_sa_port_update(soft_sa_t *sa, const soft_sa_port_t *p_port);

/**
 * Removes a port that left the fabric: its service records, multicast
 * memberships and subscriptions go with it (groups left without members are
 * deleted, raising trap 67) and trap 65 (GID out of service) is reported.
 * @param sa the SA.
 * @param node_guid its node GUID.
 * @param port_num its port number.
 */
void soft_sa_port_remove(soft_sa_t *sa, ib_net64_t node_guid, uint8_t port_num);

/**
 * Handles one MAD of the SA class that reached the SM port's QP1: answers a
 * request, takes an RMPP ACK/ABORT/STOP of a transfer in progress, or takes
 * the ReportResp to a Notice. Malformed MADs are answered with an error
 * status where IBA 13.4/15.2 require it and dropped otherwise.
 * @param sa the SA.
 * @param p_mad the MAD.
 * @param len its length in bytes (the UD payload).
 * @param p_src where it came from (responses go there).
 */
void soft_sa_recv(soft_sa_t *sa, const ib_mad_t *p_mad, size_t len,
		  const soft_mad_addr_t *p_src);

/**
 * Runs the SA's timers: expires service-record leases, retransmits RMPP
 * segments and Notice reports, ends transfers whose receiver is gone.
 * @param sa the SA.
 * @param now_us now, CLOCK_MONOTONIC in microseconds.
 * @return when the SA wants to be called next (CLOCK_MONOTONIC, us), or
 * UINT64_MAX when it has nothing pending.
 */
uint64_t soft_sa_timer(soft_sa_t *sa, uint64_t now_us);

/**
 * Replaces the clock the SA reads when a request arrives (to date leases,
 * RMPP and Report retransmissions); by default CLOCK_MONOTONIC in
 * microseconds. soft_sa_timer() must be given times of the same clock. For
 * tests (a fake clock).
 * @param sa the SA.
 * @param now returns now in microseconds; NULL restores the default.
 * @param ctx passed to @p now.
 */
void soft_sa_set_clock(soft_sa_t *sa, uint64_t (*now)(void *ctx), void *ctx);

/**
 * Tells the SA that the master SM's SMInfo or LID changed (SMInfoRecord,
 * issuer of Notices).
 * @param sa the SA.
 * @param p_sm_info the SMInfo.
 * @param sm_lid the SM's LID, host order.
 */
void soft_sa_set_sm_info(soft_sa_t *sa, const ib_sm_info_t *p_sm_info, uint16_t sm_lid);

#ifdef __cplusplus
}
#endif

#endif /* SOFT_SA_H */
