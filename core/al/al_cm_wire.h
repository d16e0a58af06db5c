/*
 * ibal access layer: the connection manager's messages as the wire carries them, private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_cm_wire.h
 * @brief Communication-management MADs (class 0x07, version 2): the eleven
 * messages of the InfiniBand CM protocol (REQ, MRA, REJ, REP, RTU, DREQ,
 * DREP, SIDR_REQ, SIDR_REP, LAP, APR) as host-order structures, and the
 * functions that pack them into, and unpack them from, the 232 bytes that
 * follow the common MAD header.
 *
 * The layouts are the specification's (volume 1, chapter 12): each
 * message is described by a table of fields (byte offset, bit offset,
 * width), so no handler shifts bits by hand, and compile-time checks in
 * al_cm_wire.c prove every message fills exactly AL_CM_MSG_SIZE bytes.
 * Integer fields of the structures are in host order; GIDs and private
 * data are byte arrays as on the wire. Unpacking never fails on field
 * values (the CM judges them); it fails only on a message too short.
 *
 * Thread safety: the functions keep no state.
 */
#ifndef AL_CM_WIRE_H
#define AL_CM_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include <iba/ib_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Management class version of the CM messages we send and accept. */
#define AL_CM_CLASS_VERSION 2
/** Bytes of a CM message after the 24-byte common MAD header. */
#define AL_CM_MSG_SIZE 232

/** The CM messages, in the order of their attribute IDs. */
typedef enum al_cm_msg_type {
	AL_CM_MSG_REQ,      /**< ConnectRequest, attribute 0x0010. */
	AL_CM_MSG_MRA,      /**< MsgRcptAck, 0x0011. */
	AL_CM_MSG_REJ,      /**< ConnectReject, 0x0012. */
	AL_CM_MSG_REP,      /**< ConnectReply, 0x0013. */
	AL_CM_MSG_RTU,      /**< ReadyToUse, 0x0014. */
	AL_CM_MSG_DREQ,     /**< DisconnectRequest, 0x0015. */
	AL_CM_MSG_DREP,     /**< DisconnectReply, 0x0016. */
	AL_CM_MSG_SIDR_REQ, /**< ServiceIDResReq, 0x0017. */
	AL_CM_MSG_SIDR_REP, /**< ServiceIDResReqResp, 0x0018. */
	AL_CM_MSG_LAP,      /**< LoadAlternatePath, 0x0019. */
	AL_CM_MSG_APR,      /**< AlternatePathResponse, 0x001A. */
	AL_CM_MSG_COUNT     /**< Number of message types. */
} al_cm_msg_type_t;

/** Attribute ID (host order) of the first message, REQ; the others follow in order. */
#define AL_CM_ATTR_REQ 0x0010
/** Attribute ID of ClassPortInfo in the CM class (host order). */
#define AL_CM_ATTR_CLASS_PORT_INFO 0x0001

/** Values of the MRA's and REJ's "message" field: what is acknowledged or rejected. */
typedef enum al_cm_msg_ref {
	AL_CM_REF_REQ = 0,   /**< The REQ. */
	AL_CM_REF_REP = 1,   /**< The REP. */
	AL_CM_REF_OTHER = 2  /**< MRA: the LAP; REJ: no message (a stray one). */
} al_cm_msg_ref_t;

/** Transport service type of a REQ (2 bits). */
#define AL_CM_TRANSPORT_RC 0 /**< Reliable connection. */
#define AL_CM_TRANSPORT_UC 1 /**< Unreliable connection. */
#define AL_CM_TRANSPORT_RD 2 /**< Reliable datagram (never sent by us). */

/** One path of a REQ (primary or alternate) or of a LAP (alternate). */
typedef struct al_cm_path {
	uint16_t local_lid;         /**< Local port LID. */
	uint16_t remote_lid;        /**< Remote port LID. */
	ib_gid_t local_gid;         /**< Local port GID. */
	ib_gid_t remote_gid;        /**< Remote port GID. */
	uint32_t flow_label;        /**< Flow label (20 bits). */
	uint8_t packet_rate;        /**< Static rate (6 bits, IB_PATH_RECORD_RATE_*). */
	uint8_t traffic_class;      /**< Traffic class. */
	uint8_t hop_limit;          /**< Hop limit. */
	uint8_t sl;                 /**< Service level (4 bits). */
	uint8_t subnet_local;       /**< 1 when the path stays in the subnet (no GRH needed). */
	uint8_t local_ack_timeout;  /**< Local ACK timeout (5 bits). */
} al_cm_path_t;

/** REQ. */
typedef struct al_cm_req_msg {
	uint32_t local_comm_id;          /**< Sender's communication ID. */
	uint64_t service_id;             /**< Service ID (host order). */
	uint64_t local_ca_guid;          /**< Sender's CA GUID (host order). */
	uint32_t local_qkey;             /**< Q_Key (RD only). */
	uint32_t local_qpn;              /**< Sender's QP number (24 bits). */
	uint8_t resp_res;                /**< Responder resources offered (8 bits). */
	uint32_t local_eecn;             /**< Sender's EEC number (24 bits, RD only). */
	uint8_t init_depth;              /**< Initiator depth (8 bits). */
	uint32_t remote_eecn;            /**< Remote EEC number (24 bits, RD only). */
	uint8_t remote_cm_resp_timeout;  /**< Time the remote CM has to answer (5 bits). */
	uint8_t transport;               /**< AL_CM_TRANSPORT_* (2 bits). */
	uint8_t flow_ctrl;               /**< End-to-end flow control (1 bit). */
	uint32_t starting_psn;           /**< Sender's starting PSN (24 bits). */
	uint8_t local_cm_resp_timeout;   /**< Time the sender's CM takes to answer (5 bits). */
	uint8_t retry_count;             /**< Transport retry count (3 bits). */
	uint16_t pkey;                   /**< Partition key. */
	uint8_t path_mtu;                /**< Path MTU (4 bits, IB_MTU_LEN_*). */
	uint8_t rdc_exists;              /**< RD channel exists (1 bit). */
	uint8_t rnr_retry_count;         /**< RNR retry count (3 bits). */
	uint8_t max_cm_retries;          /**< CM retries (4 bits). */
	uint8_t srq;                     /**< The sender's QP uses an SRQ (1 bit). */
	uint8_t ext_transport;           /**< Extended transport type (3 bits). */
	al_cm_path_t primary;            /**< Primary path. */
	al_cm_path_t alternate;          /**< Alternate path (all zero: none). */
	uint8_t private_data[IB_REQ_PDATA_SIZE]; /**< Private data. */
	uint8_t sap_supported;           /**< Symmetric alternate path supported (1 bit, byte 139 bit 5). */
} al_cm_req_msg_t;

/** MRA. */
typedef struct al_cm_mra_msg {
	uint32_t local_comm_id;   /**< Sender's communication ID. */
	uint32_t remote_comm_id;  /**< Receiver's communication ID. */
	uint8_t msg_mraed;        /**< AL_CM_REF_* acknowledged (2 bits). */
	uint8_t service_timeout;  /**< Time the sender needs (5 bits). */
	uint8_t private_data[IB_MRA_PDATA_SIZE]; /**< Private data. */
} al_cm_mra_msg_t;

/** REJ. */
typedef struct al_cm_rej_msg {
	uint32_t local_comm_id;   /**< Sender's communication ID. */
	uint32_t remote_comm_id;  /**< Receiver's communication ID (0 if unknown). */
	uint8_t msg_rejected;     /**< AL_CM_REF_* rejected (2 bits). */
	uint8_t ari_length;       /**< Valid bytes of ari (7 bits). */
	uint16_t reason;          /**< Reason (host order; IB_REJ_* are network order). */
	uint8_t ari[IB_ARI_SIZE]; /**< Additional rejection information. */
	uint8_t private_data[IB_REJ_PDATA_SIZE]; /**< Private data. */
} al_cm_rej_msg_t;

/** REP. */
typedef struct al_cm_rep_msg {
	uint32_t local_comm_id;     /**< Sender's communication ID. */
	uint32_t remote_comm_id;    /**< Receiver's communication ID. */
	uint32_t local_qkey;        /**< Q_Key (RD only). */
	uint32_t local_qpn;         /**< Sender's QP number (24 bits). */
	uint32_t local_eecn;        /**< Sender's EEC number (24 bits, RD only). */
	uint32_t starting_psn;      /**< Sender's starting PSN (24 bits). */
	uint8_t resp_res;           /**< Responder resources (8 bits). */
	uint8_t init_depth;         /**< Initiator depth (8 bits). */
	uint8_t target_ack_delay;   /**< Target ACK delay (5 bits). */
	uint8_t failover_accepted;  /**< IB_FAILOVER_ACCEPT_* (2 bits). */
	uint8_t flow_ctrl;          /**< End-to-end flow control (1 bit). */
	uint8_t rnr_retry_count;    /**< RNR retry count (3 bits). */
	uint8_t srq;                /**< The sender's QP uses an SRQ (1 bit). */
	uint64_t local_ca_guid;     /**< Sender's CA GUID (host order). */
	uint8_t private_data[IB_REP_PDATA_SIZE]; /**< Private data. */
} al_cm_rep_msg_t;

/** RTU. */
typedef struct al_cm_rtu_msg {
	uint32_t local_comm_id;   /**< Sender's communication ID. */
	uint32_t remote_comm_id;  /**< Receiver's communication ID. */
	uint8_t private_data[IB_RTU_PDATA_SIZE]; /**< Private data. */
} al_cm_rtu_msg_t;

/** DREQ. */
typedef struct al_cm_dreq_msg {
	uint32_t local_comm_id;   /**< Sender's communication ID. */
	uint32_t remote_comm_id;  /**< Receiver's communication ID. */
	uint32_t remote_qpn;      /**< Receiver's QP number (24 bits). */
	uint8_t private_data[IB_DREQ_PDATA_SIZE]; /**< Private data. */
} al_cm_dreq_msg_t;

/** DREP. */
typedef struct al_cm_drep_msg {
	uint32_t local_comm_id;   /**< Sender's communication ID. */
	uint32_t remote_comm_id;  /**< Receiver's communication ID. */
	uint8_t private_data[IB_DREP_PDATA_SIZE]; /**< Private data. */
} al_cm_drep_msg_t;

/** SIDR_REQ. */
typedef struct al_cm_sidr_req_msg {
	uint32_t request_id;      /**< Sender's request ID. */
	uint16_t pkey;            /**< Partition key. */
	uint64_t service_id;      /**< Service ID (host order). */
	uint8_t private_data[IB_SIDR_REQ_PDATA_SIZE]; /**< Private data. */
} al_cm_sidr_req_msg_t;

/** SIDR_REP. */
typedef struct al_cm_sidr_rep_msg {
	uint32_t request_id;      /**< Request ID of the SIDR_REQ answered. */
	uint8_t status;           /**< IB_SIDR_* status. */
	uint8_t add_info_length;  /**< Valid bytes of class_port_info (redirection). */
	uint32_t qpn;             /**< QP number of the service (24 bits). */
	uint64_t service_id;      /**< Service ID (host order). */
	uint32_t qkey;            /**< Q_Key of the service. */
	uint8_t class_port_info[72]; /**< ClassPortInfo for a redirection, as on the wire. */
	uint8_t private_data[IB_SIDR_REP_PDATA_SIZE]; /**< Private data. */
} al_cm_sidr_rep_msg_t;

/** LAP. */
typedef struct al_cm_lap_msg {
	uint32_t local_comm_id;          /**< Sender's communication ID. */
	uint32_t remote_comm_id;         /**< Receiver's communication ID. */
	uint32_t remote_qpn;             /**< Receiver's QP number (24 bits). */
	uint8_t remote_cm_resp_timeout;  /**< Time the receiver's CM has to answer (5 bits). */
	al_cm_path_t alternate;          /**< The alternate path to load. */
	uint8_t private_data[IB_LAP_PDATA_SIZE]; /**< Private data. */
} al_cm_lap_msg_t;

/** APR. */
typedef struct al_cm_apr_msg {
	uint32_t local_comm_id;   /**< Sender's communication ID. */
	uint32_t remote_comm_id;  /**< Receiver's communication ID. */
	uint8_t info_length;      /**< Valid bytes of info. */
	uint8_t ap_status;        /**< IB_AP_* status. */
	uint8_t info[IB_APR_INFO_SIZE]; /**< Additional information. */
	uint8_t private_data[IB_APR_PDATA_SIZE]; /**< Private data. */
} al_cm_apr_msg_t;

/** Any CM message, host order. */
typedef union al_cm_msg {
	al_cm_req_msg_t req;           /**< AL_CM_MSG_REQ. */
	al_cm_mra_msg_t mra;           /**< AL_CM_MSG_MRA. */
	al_cm_rej_msg_t rej;           /**< AL_CM_MSG_REJ. */
	al_cm_rep_msg_t rep;           /**< AL_CM_MSG_REP. */
	al_cm_rtu_msg_t rtu;           /**< AL_CM_MSG_RTU. */
	al_cm_dreq_msg_t dreq;         /**< AL_CM_MSG_DREQ. */
	al_cm_drep_msg_t drep;         /**< AL_CM_MSG_DREP. */
	al_cm_sidr_req_msg_t sidr_req; /**< AL_CM_MSG_SIDR_REQ. */
	al_cm_sidr_rep_msg_t sidr_rep; /**< AL_CM_MSG_SIDR_REP. */
	al_cm_lap_msg_t lap;           /**< AL_CM_MSG_LAP. */
	al_cm_apr_msg_t apr;           /**< AL_CM_MSG_APR. */
} al_cm_msg_t;

/**
 * The message type of a CM attribute ID.
 * @param attr_id attribute ID, network order (as in ib_mad_t).
 * @return the type, or AL_CM_MSG_COUNT for an attribute that is not a CM message.
 */
al_cm_msg_type_t al_cm_msg_type(ib_net16_t attr_id);

/**
 * The attribute ID of a message type.
 * @param type the type (below AL_CM_MSG_COUNT).
 * @return the attribute ID, network order.
 */
ib_net16_t al_cm_attr_id(al_cm_msg_type_t type);

/**
 * The name of a message type, for logs ("REQ", "SIDR_REP", ...).
 * @param type the type; any value.
 * @return a static string ("?" for an unknown type).
 */
const char *al_cm_msg_name(al_cm_msg_type_t type);

/**
 * Writes a CM MAD: the common header (base version 1, class 0x07, version
 * AL_CM_CLASS_VERSION, method Send, the attribute ID of @p type, @p tid)
 * and the packed message after it. Fields wider than their wire width are
 * truncated to it; reserved bits are zero.
 * @param type the message type.
 * @param p_msg the message, host order (the member of @p type).
 * @param tid transaction ID (network order, written as given).
 * @param p_mad 256 bytes to write.
 */
void al_cm_pack(al_cm_msg_type_t type, const al_cm_msg_t *p_msg, ib_net64_t tid, ib_mad_t *p_mad);

/**
 * Reads the message of a received CM MAD.
 * @param p_mad the MAD (its header's attribute ID names the type).
 * @param len bytes received.
 * @param p_type receives the type.
 * @param p_msg receives the message, host order.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER for a NULL pointer; IB_INVALID_SETTING
 * when the MAD is shorter than 24 + AL_CM_MSG_SIZE bytes, not of class 0x07,
 * or its attribute is not a CM message.
 */
ib_api_status_t al_cm_unpack(const ib_mad_t *p_mad, size_t len, al_cm_msg_type_t *p_type,
			     al_cm_msg_t *p_msg);

#ifdef __cplusplus
}
#endif

#endif /* AL_CM_WIRE_H */
