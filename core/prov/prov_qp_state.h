/*
 * ibal providers: the IBA QP state machine both providers share (transitions, attributes, checks, HCA events).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file prov_qp_state.h
 * @brief The queue pair state machine the providers enforce (the soft HCA on
 * every QP, the verbs provider on its MAD QPs), expressed as
 * tables: which transitions are legal for each QP type, which attributes each
 * transition requires and accepts, how an ib_qp_mod_t supplies them, the
 * status ib_modify_qp() returns when it is wrong, how the attributes land in
 * the soft QP's attribute block, and the transitions the HCA itself makes
 * (send queue drained, errors, path migration).
 *
 * **Model.** The table follows the InfiniBand Architecture as reflected in the
 * Linux kernel's modify-QP table: RC, UC and UD rows, and one "special" row
 * for QP0/QP1 (and their aliases) that behaves as UD except that the port is
 * fixed when the QP is created. Any state may move to RESET or ERROR; the
 * send-queue-error state is entered only by the HCA.
 *
 * **How ib_qp_mod_t supplies attributes.** ibal's modify structure holds one
 * member per requested state (`state.init`, `.rtr`, `.rts`, `.sqd`). A field
 * of that member is taken when the transition requires its attribute (whether
 * or not its `opts` bit is set); a field with no `opts` bit is also taken when
 * the transition merely allows its attribute (every field of `state.init`, and
 * `state.sqd.sqd_event`); any other field is taken only when its `opts` bit is
 * set. A set `opts` bit whose attribute the QP type does not have (Q_Key on a
 * connected QP, responder resources on UD, ...) or that names no field of the
 * member (IB_MOD_QP_LOCAL_ACK_TIMEOUT in `rtr`) is ignored, as OFED for
 * Windows' providers ignore it; a set bit whose attribute the QP type has but
 * the transition does not allow is rejected. Bits outside the IB_MOD_QP_*
 * set are rejected; IB_MOD_QP_GENERATE_PRIO_TAG (RoCE) is ignored.
 *
 * **SQD.** ibal's `state.sqd` carries only `sqd_event`, so the attributes
 * the IBA lets a consumer change in SQD (port, primary path, timeout, retry
 * counts, RDMA read/atomic depths, P_Key index) are accepted, through their
 * `opts` bits, on the SQD to RTS transition - the IBA 1.0 model ibal's API
 * was written for - and only once the send queue has drained
 * (IB_QPS_SQD_DRAINED); plain IB_QPS_SQD counts as still draining.
 *
 * **Statuses** (ib_al.h's list for ib_modify_qp()): IB_INVALID_PARAMETER for
 * NULL pointers; IB_INVALID_QP_STATE for an illegal transition, a drain-only
 * attribute before the drain completed, or a current-state assertion that
 * does not match; IB_INVALID_SETTING for a bad requested state, QP type or
 * attribute value, a missing required attribute, or an attribute the
 * transition forbids; IB_INVALID_PKEY for a P_Key index outside the port's
 * table or naming an invalid P_Key; IB_INVALID_APM_STATE for a bad path
 * migration state; IB_UNSUPPORTED for queue depth changes, RD and raw QP
 * types, and capabilities the CA attributes deny (APM, current state,
 * primary port change).
 *
 * **Thread safety.** The tables are constant and every function is
 * reentrant. A prov_qp_attr_t belongs to one QP: the caller serializes the
 * calls that read or change it (the QP's lock), and the CA attributes must
 * not change during a call.
 */
#ifndef PROV_QP_STATE_H
#define PROV_QP_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @name QP attributes
 * One bit per attribute a transition can require or accept (a
 * prov_qp_attr_mask_t). The IBA names are in parentheses.
 * @{
 */
typedef uint32_t prov_qp_attr_mask_t; /**< OR of PROV_QPA_* bits. */
#define PROV_QPA_PORT        0x00000001u /**< Primary port (port number). */
#define PROV_QPA_PKEY_INDEX  0x00000002u /**< P_Key index. */
#define PROV_QPA_QKEY        0x00000004u /**< Q_Key (datagram QPs). */
#define PROV_QPA_ACCESS      0x00000008u /**< Remote access flags (connected QPs). */
#define PROV_QPA_AV          0x00000010u /**< Primary path: address vector and path MTU. */
#define PROV_QPA_DEST_QPN    0x00000020u /**< Destination QP number. */
#define PROV_QPA_RQ_PSN      0x00000040u /**< Receive (expected) PSN. */
#define PROV_QPA_SQ_PSN      0x00000080u /**< Send PSN. */
#define PROV_QPA_MAX_DEST_RD 0x00000100u /**< Responder resources (max_dest_rd_atomic). */
#define PROV_QPA_MIN_RNR     0x00000200u /**< Minimum RNR NAK timer. */
#define PROV_QPA_TIMEOUT     0x00000400u /**< Local ACK timeout. */
#define PROV_QPA_RETRY_CNT   0x00000800u /**< Transport retry count. */
#define PROV_QPA_RNR_RETRY   0x00001000u /**< RNR retry count. */
#define PROV_QPA_MAX_RD      0x00002000u /**< Initiator depth (max_rd_atomic). */
#define PROV_QPA_ALT_PATH    0x00004000u /**< Alternate path (address vector, port, timeout). */
#define PROV_QPA_APM_STATE   0x00008000u /**< Path migration state. */
#define PROV_QPA_CUR_STATE   0x00010000u /**< Current state asserted by the consumer. */
#define PROV_QPA_SQD_EVENT   0x00020000u /**< Raise IB_AE_SQ_DRAINED when the send queue drains. */
#define PROV_QPA_COUNT       18          /**< Number of PROV_QPA_* bits. */
#define PROV_QPA_ALL         0x0003FFFFu /**< Every PROV_QPA_* bit. */
/** @} */

/** Service class of a QP type: which row of the transition table it uses. */
typedef enum _soft_qp_class {
	PROV_QPC_INVALID = -2,     /**< Not an ib_qp_type_t value. */
	PROV_QPC_UNSUPPORTED = -1, /**< A type the soft HCA does not implement (RD, raw). */
	PROV_QPC_RC = 0,           /**< IB_QPT_RELIABLE_CONN. */
	PROV_QPC_UC,               /**< IB_QPT_UNRELIABLE_CONN. */
	PROV_QPC_UD,               /**< IB_QPT_UNRELIABLE_DGRM and IB_QPT_MAD. */
	PROV_QPC_SPECIAL,          /**< IB_QPT_QP0, IB_QPT_QP1 and their aliases: UD bound to a port. */
	PROV_QPC_COUNT             /**< Number of classes with a table row. */
} prov_qp_class_t;

/** What one transition requires and accepts (prov_qp_transition()). */
typedef struct _soft_qp_trans {
	prov_qp_attr_mask_t req;     /**< Attributes the transition requires. */
	prov_qp_attr_mask_t opt;     /**< Attributes it accepts. */
	prov_qp_attr_mask_t drained; /**< Attributes it accepts only from IB_QPS_SQD_DRAINED. */
} prov_qp_trans_t;

/**
 * The attributes of a soft QP the HCA works with. Numbers the HCA computes
 * with (PSNs, QP number, Q_Key) are in host order; the address vectors are
 * kept as ibal defines them (LIDs in network order). Creation-time properties
 * (type, PD, CQs, depths, QP number) live in the QP object, not here.
 */
typedef struct _soft_qp_attr {
	ib_qp_state_t state;              /**< Current state; SQD is IB_QPS_SQD_DRAINING or _DRAINED. */
	prov_qp_attr_mask_t valid;        /**< Attributes set since the last reset (no CUR_STATE). */
	uint8_t port;                     /**< Primary port, 1-based; 0 before RESET to INIT (special QPs: fixed). */
	uint16_t pkey_index;              /**< P_Key index. */
	uint32_t qkey;                    /**< Q_Key, host order (datagram QPs). */
	ib_access_t access_ctrl;          /**< Remote access rights (connected QPs). */
	uint32_t sq_psn;                  /**< Next send PSN, 24 bits, host order. */
	uint32_t rq_psn;                  /**< Expected receive PSN, 24 bits, host order. */
	uint32_t dest_qpn;                /**< Destination QP number, host order (connected QPs). */
	/** Primary path; port_num follows @c port and conn mirrors the fields below. */
	ib_av_attr_t primary_av;
	uint8_t path_mtu;                 /**< Path MTU (IB_MTU_LEN_*). */
	uint8_t timeout;                  /**< Local ACK timeout: 4.096 us * 2^timeout, 0 = infinite. */
	uint8_t retry_cnt;                /**< Transport retries (0-7). */
	uint8_t rnr_retry;                /**< RNR retries (0-7, 7 = infinite). */
	uint8_t min_rnr_timer;            /**< Minimum RNR NAK timer code (0-31). */
	uint8_t max_rd_atomic;            /**< Initiator depth: outstanding RDMA reads/atomics. */
	uint8_t max_dest_rd_atomic;       /**< Responder resources for incoming reads/atomics. */
	boolean_t alt_valid;              /**< An alternate path is loaded. */
	/** Alternate path: its port is port_num, its timeout conn.local_ack_timeout. */
	ib_av_attr_t alternate_av;
	ib_apm_state_t apm_state;         /**< Path migration state. */
	boolean_t sqd_event;              /**< Raise IB_AE_SQ_DRAINED when the drain completes. */
} prov_qp_attr_t;

/** Transitions the HCA makes on its own (prov_qp_event()). */
typedef enum _soft_qp_event {
	PROV_QP_EV_COMM_EST,   /**< First packet received in RTR (connected QPs): IB_AE_QP_COMM. */
	PROV_QP_EV_SQ_DRAINED, /**< The send queue drained in SQD: IB_AE_SQ_DRAINED if requested. */
	PROV_QP_EV_SEND_ERR,   /**< A send completed in error: UC/UD/special to SQERR, RC to ERROR. */
	PROV_QP_EV_WQ_ERR,     /**< A completion error that moves the QP to ERROR (no async event). */
	PROV_QP_EV_REQ_ERR,    /**< RC responder saw an invalid request: ERROR, IB_AE_WQ_REQ_ERROR. */
	PROV_QP_EV_ACCESS_ERR, /**< RC responder saw an access violation: ERROR, IB_AE_WQ_ACCESS_ERROR. */
	PROV_QP_EV_FATAL,      /**< Catastrophic QP error: ERROR, IB_AE_QP_FATAL. */
	PROV_QP_EV_APM_ARMED,  /**< Path migration re-armed with the peer: REARM to ARMED. */
	PROV_QP_EV_MIGRATED,   /**< Migrated to the alternate path: IB_AE_QP_APM. */
	PROV_QP_EV_COUNT       /**< Number of events. */
} prov_qp_event_t;

/**
 * The transition table row a QP type uses.
 * @param qp_type the type.
 * @return its class; PROV_QPC_UNSUPPORTED for IB_QPT_RELIABLE_DGRM,
 * IB_QPT_RAW_IPV6 and IB_QPT_RAW_ETHER; PROV_QPC_INVALID for IB_QPT_UNKNOWN
 * and beyond.
 */
prov_qp_class_t prov_qp_class(ib_qp_type_t qp_type);

/**
 * Looks a transition up in the table.
 * @param qp_type the QP type.
 * @param from the current state (the three SQD values are one state).
 * @param to the requested state (likewise).
 * @param p_trans receives the attribute masks of a legal transition, zeros
 * otherwise; may be NULL.
 * @return TRUE if the transition is legal for the type, FALSE if it is not
 * or if a type or state is not one the table knows.
 */
boolean_t prov_qp_transition(ib_qp_type_t qp_type, ib_qp_state_t from, ib_qp_state_t to,
			     prov_qp_trans_t *p_trans);

/**
 * Initializes an attribute block to the state of a newly created QP (RESET).
 * @param p_attr the block.
 * @param qp_type the QP's type.
 * @param port for special QPs (QP0/QP1 and aliases) the port they are bound
 * to, kept across resets; ignored for other types.
 */
void prov_qp_attr_init(prov_qp_attr_t *p_attr, ib_qp_type_t qp_type, uint8_t port);

/**
 * Checks a modification the way ib_modify_qp() must: transition, attributes
 * supplied, forbidden and missing attributes, drain state, CA capabilities,
 * then each supplied value (port and P_Key index ranges against the CA's
 * ports and P_Key tables, LIDs, MTU, PSN and QPN widths, timer and retry
 * ranges, read/atomic depths against the CA limits, path migration state).
 * Changes nothing.
 * @param qp_type the QP's type.
 * @param cur_state the QP's current state.
 * @param p_mod the requested transition and attributes.
 * @param p_attr the QP's current attributes (port, P_Key index, alternate path).
 * @param p_ca the CA's attributes (ports with their MTU and P_Key tables,
 * max_qp_resp_res, max_qp_init_depth, apm_support, change_primary_port,
 * current_qp_state_support).
 * @param p_bad receives the PROV_QPA_* bits at fault on failure and 0 on
 * success; may be NULL.
 * @return the status ib_modify_qp() returns.
 * @retval IB_SUCCESS the modification is valid.
 * @retval IB_INVALID_PARAMETER p_mod, p_attr or p_ca is NULL.
 * @retval IB_INVALID_QP_STATE the transition is illegal for the type, a
 * drain-only attribute arrived before the drain completed, or the asserted
 * current state is not the QP's.
 * @retval IB_INVALID_SETTING the requested state or QP type is not valid, an
 * attribute is forbidden, missing or out of range, or an `opts` bit is not an
 * IB_MOD_QP_* value.
 * @retval IB_INVALID_PKEY the P_Key index is outside the port's table or
 * names an invalid P_Key.
 * @retval IB_INVALID_APM_STATE the path migration state is not valid, or
 * arms migration without an alternate path.
 * @retval IB_UNSUPPORTED a queue depth change, an RD or raw QP type, or a
 * capability the CA attributes deny.
 */
ib_api_status_t prov_qp_modify_check(ib_qp_type_t qp_type, ib_qp_state_t cur_state,
				     const ib_qp_mod_t *p_mod, const prov_qp_attr_t *p_attr,
				     const ib_ca_attr_t *p_ca, prov_qp_attr_mask_t *p_bad);

/**
 * Applies a modification that prov_qp_modify_check() accepted for the QP's
 * current state: stores the supplied attributes and moves to the requested
 * state. To RESET restores the values of a new QP (prov_qp_attr_init(); a
 * special QP keeps its port). To ERROR keeps the attributes. RTS to SQD
 * enters IB_QPS_SQD_DRAINING; the HCA reports the end of the drain with
 * PROV_QP_EV_SQ_DRAINED. Setting IB_APM_MIGRATED while ARMED migrates to the
 * alternate path (ib_force_apm()). PSNs are truncated to 24 bits.
 * @param qp_type the QP's type.
 * @param p_attr the QP's attributes, current state in p_attr->state.
 * @param p_mod the modification.
 * @param p_applied receives the attributes stored; may be NULL.
 * @return IB_SUCCESS; the status prov_qp_modify_check() gives for problems it
 * finds without looking at values (bad pointer, type or state, illegal
 * transition, forbidden or drain-only attribute) when nothing is changed.
 */
ib_api_status_t prov_qp_apply_mod(ib_qp_type_t qp_type, prov_qp_attr_t *p_attr,
				  const ib_qp_mod_t *p_mod, prov_qp_attr_mask_t *p_applied);

/**
 * prov_qp_modify_check() against p_attr->state, then prov_qp_apply_mod(), with
 * the modification read and its transition looked up once.
 * @param qp_type the QP's type.
 * @param p_attr the QP's attributes.
 * @param p_mod the modification.
 * @param p_ca the CA's attributes.
 * @param p_bad as for prov_qp_modify_check(); may be NULL.
 * @return the status of the check; the attributes change only on IB_SUCCESS.
 */
ib_api_status_t prov_qp_modify(ib_qp_type_t qp_type, prov_qp_attr_t *p_attr,
			       const ib_qp_mod_t *p_mod, const ib_ca_attr_t *p_ca,
			       prov_qp_attr_mask_t *p_bad);

/**
 * Applies a transition the HCA makes on its own.
 * @param qp_type the QP's type.
 * @param p_attr the QP's attributes.
 * @param ev what happened.
 * @param p_async receives the asynchronous event to raise, or 0 for none;
 * may be NULL.
 * @return TRUE if the event applies to the QP's type and state (and was
 * applied), FALSE if it does not (nothing changed, *p_async is 0).
 */
boolean_t prov_qp_event(ib_qp_type_t qp_type, prov_qp_attr_t *p_attr, prov_qp_event_t ev,
			ib_async_event_t *p_async);

/**
 * Fills the fields of an ib_qp_attr_t the attribute block holds: state,
 * access_ctrl, pkey_index, init_depth, resp_res, dest_num, qkey, sq_psn,
 * rq_psn (network order), primary_port, alternate_port, primary_av,
 * alternate_av, apm_state. The other fields are left alone.
 * @param p_attr the attributes.
 * @param p_qp_attr the structure to fill.
 */
void prov_qp_attr_to_ib(const prov_qp_attr_t *p_attr, ib_qp_attr_t *p_qp_attr);

/**
 * Name of a QP state, for logs.
 * @param state an IB_QPS_* value.
 * @return a static string such as "RTS" or "SQD_DRAINING"; "UNKNOWN" for any
 * other value.
 */
const char *prov_qp_state_str(ib_qp_state_t state);

/**
 * Name of one attribute bit, for logs.
 * @param bit one PROV_QPA_* bit.
 * @return a static string such as "RQ_PSN"; "UNKNOWN" if @p bit is not
 * exactly one PROV_QPA_* bit.
 */
const char *prov_qp_attr_str(prov_qp_attr_mask_t bit);

/**
 * Formats an attribute mask as names joined by '|' ("none" when empty), for
 * logs. Always NUL-terminates when @p len is not 0; truncates to fit.
 * @param mask the attributes.
 * @param buf the output buffer.
 * @param len its size in bytes.
 * @return the length the full text has (as snprintf()).
 */
size_t prov_qp_attr_mask_str(prov_qp_attr_mask_t mask, char *buf, size_t len);

/**
 * Name of an HCA event, for logs.
 * @param ev the event.
 * @return a static string such as "SQ_DRAINED"; "UNKNOWN" past the last.
 */
const char *prov_qp_event_str(prov_qp_event_t ev);

#ifdef __cplusplus
}
#endif

#endif /* PROV_QP_STATE_H */
