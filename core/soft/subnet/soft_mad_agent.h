/*
 * ibal soft provider: the management agents of every soft port (SMA, PMA) and their packet path.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_mad_agent.h
 * @brief What a soft HCA port does with management datagrams before any user
 * QP sees them, as HCA firmware would (IBA 13.5, 14.2, 16.1). Private to the
 * soft provider.
 *
 * soft_progress_packet_flags() hands every UD packet for QP0 or QP1 to
 * soft_agent_recv() first:
 * - QP0 (SMPs, VL15, no Q_Key, accepted while the port is INIT, ARMED or
 *   ACTIVE): Get/Set of the subnet management class, LID-routed (0x01) or
 *   directed-route (0x81, IBA 14.2.2: hop pointer, hop count, D bit, return
 *   path), of the attributes the SMA implements are answered by the port's
 *   SMA (soft_sma_process()) and never reach a user QP0; so is SMInfo
 *   while this process's embedded SM runs on the port. What the SMA does
 *   not own (Trap, TrapRepress, other methods, SMInfo for another SM) goes
 *   to a user QP0 when there is one (a subnet manager's QP0 MAD service), as
 *   on Windows the HCA hands it to the access layer's SMI; without one the
 *   SMA answers it with an error status. Responses go to the local subnet
 *   manager when it is waiting for them (soft_sm.h), else to a user QP0 if
 *   there is one. Anything else is dropped.
 * - QP1 (GMPs, port ACTIVE, P_Key and the GSI Q_Key 0x80010000 checked and
 *   violations counted): PerfMgt requests are answered by the PMA
 *   (soft_pma_process()); SA-class requests to the port of this process's
 *   master SM go to its SA; other MADs go to the user QP1 if there is one,
 *   and a request reaching a port without QP1 is answered with status
 *   IB_MAD_STATUS_UNSUP_CLASS_VER.
 *
 * Thread safety: soft_agent_recv() runs on the receiving CA's progress
 * thread with no lock held; soft_agent_send() may be called from any thread.
 */
#ifndef SOFT_MAD_AGENT_H
#define SOFT_MAD_AGENT_H

#include "soft_hca.h"
#include "soft_sa.h"

/** Environment variable: `off` disables the embedded subnet manager. */
#define SOFT_ENV_SM "IBAL_SOFT_SM"
/** Environment variable: how long opening a CA waits for ACTIVE ports, ms (default 3000). */
#define SOFT_ENV_SM_WAIT_MS "IBAL_SOFT_SM_WAIT_MS"
/** Environment variable: period of the SM's light sweep, ms (default 1000). */
#define SOFT_ENV_SM_SWEEP_MS "IBAL_SOFT_SM_SWEEP_MS"
/** Environment variable: how often a standby SM tries to become master, ms (default 200). */
#define SOFT_ENV_SM_RETRY_MS "IBAL_SOFT_SM_RETRY_MS"
/** Environment variable: the embedded SM's priority, 0..15 (default 0). */
#define SOFT_ENV_SM_PRIORITY "IBAL_SOFT_SM_PRIORITY"

/** @name Indexes of soft_port_mgmt_t.base (PortCounters baselines). @{ */
#define SOFT_PMA_XMIT_DATA    0 /**< PortXmitData (32-bit words). */
#define SOFT_PMA_RCV_DATA     1 /**< PortRcvData (32-bit words). */
#define SOFT_PMA_XMIT_PKTS    2 /**< PortXmitPkts. */
#define SOFT_PMA_RCV_PKTS     3 /**< PortRcvPkts. */
#define SOFT_PMA_XMIT_DISCARD 4 /**< PortXmitDiscards. */
#define SOFT_PMA_RCV_ERRORS   5 /**< PortRcvErrors. */
#define SOFT_PMA_VL15_DROPPED 6 /**< VL15Dropped. */
#define SOFT_PMA_MCAST_RCV    7 /**< PortMulticastRcvPkts. */
/** @} */

/**
 * Handles a UD packet for QP0 or QP1 (see the file comment).
 * @param port the receiving port.
 * @param pkt the parsed packet (its payload may be rewritten in place: the
 * directed-route hop pointer of a response passed on to a user QP0).
 * @return TRUE if the agents consumed or dropped it; FALSE if it goes on to
 * the user QP0/QP1 (the caller still applies the port-state rules).
 */
boolean_t soft_agent_recv(soft_port_t *port, const soft_pkt_t *pkt);

/**
 * Sends a MAD from a port's QP0 (VL15) or QP1 as one UD packet, whatever
 * the port's state except DOWN.
 * @param port the sending port.
 * @param p_mad the MAD.
 * @param len its length (MAD_BLOCK_SIZE).
 * @param src_qp 0 or 1.
 * @param p_dst the destination: QP, Q_Key, P_Key, SL and the GRH's GID.
 * @param dlid the LRH DLID, host order (0xFFFF for directed route).
 * @param to_lid 0 to route by @p dlid; else the unicast LID of the port the
 * packet is carried to (directed route, soft_fabric_send_to()).
 */
void soft_agent_send(soft_port_t *port, const void *p_mad, uint32_t len, uint32_t src_qp,
		     const soft_mad_addr_t *p_dst, uint16_t dlid, uint16_t to_lid);

/**
 * The SMA: turns a subnet management Get/Set (either class) into its
 * response in place: method GetResp, status (the D bit of a directed-route
 * SMP is left to the caller), attribute data. NodeInfo, NodeDescription,
 * PortInfo (Set: LID, LMC, M_Key, SM LID/SL, subnet prefix, timeout, port
 * state per IBA 14.2.5.6), GUIDInfo, P_KeyTable, SLtoVLMappingTable,
 * VLArbitrationTable, SMInfo (on the SM's port).
 * @param port the port the SMP reached.
 * @param smp the SMP (MAD_BLOCK_SIZE bytes).
 * @return TRUE to send the response; FALSE to drop it (not a request, or
 * an M_Key check failed).
 */
boolean_t soft_sma_process(soft_port_t *port, ib_smp_t *smp);

/**
 * The PMA: turns a PerfMgt Get/Set into its response in place
 * (ClassPortInfo, PortCounters, PortCountersExtended).
 * @param port the port the MAD reached.
 * @param p_mad the MAD (MAD_BLOCK_SIZE bytes).
 */
void soft_pma_process(soft_port_t *port, ib_mad_t *p_mad);

/** TrapNumber of the notice a port sends when its CapabilityMask changes (IBA 14.2.5.1). */
#define SOFT_TRAP_CAP_MASK_CHANGED 144
/** TrapNumber of the notice of a link state change (IBA 14.2.5.1): what the
 * soft port sends after its link went down and retrained. */
#define SOFT_TRAP_LINK_STATE 128

/**
 * Reports a change of a port's CapabilityMask to the master SM, as an HCA's
 * SMA does: Trap(Notice 144) LID-routed to MasterSMLID, QP0, once (the
 * embedded SM re-reads the port's PortInfo for the SA). Nothing is sent
 * while the port knows no SM. No lock held.
 * @param port the port.
 */
void soft_sma_cap_changed(soft_port_t *port);

/**
 * Fills the PortInfo attribute of a port as the SMA reports it.
 * @param port the port. @param p_pi receives it.
 */
void soft_sma_port_info(soft_port_t *port, ib_port_info_t *p_pi);

/**
 * ops->local_mad: answers a MAD with the SMA or the PMA of a port, as if it
 * had arrived there (directed-route SMPs are taken as having reached the end
 * of their path).
 * @param ca the CA. @param port_num the port. @param p_mad_in the request.
 * @param p_mad_out receives the response (MAD_BLOCK_SIZE bytes).
 * @return IB_SUCCESS; IB_INVALID_PORT; IB_INVALID_PARAMETER for NULL
 * pointers; IB_UNSUPPORTED for a class the agents do not answer or a MAD
 * that is not a request.
 */
ib_api_status_t soft_local_mad(void *ca, uint8_t port_num, const void *p_mad_in,
			       void *p_mad_out);

#endif /* SOFT_MAD_AGENT_H */
