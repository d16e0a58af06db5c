/*
 * ibal: part of ib_types.h (include <iba/ib_types.h>, not this file).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_types_verbs.h
 * @brief Part of ib_types.h; include <iba/ib_types.h> instead.
 *
 * The last part of ib_types.h: the data types that the access layer and the
 * verbs providers share. It holds the communication-manager constants
 * (private data sizes, reject, APR and SIDR status codes), the resource
 * handles, `ib_api_status_t`, asynchronous events, CA and port attributes,
 * address vectors, queue pair creation/attribute/modification structures,
 * work requests and work completions, memory registration structures, the
 * CA modification masks, `ib_ci_op_t`, and the IP-addressing CM (RDMA CM)
 * private data format with its service ID helpers. The reliable-datagram
 * EEC types that only OpenSM's copy of this header has are included too.
 *
 * Unlike the wire structures of the other parts, these are host structures
 * with the compiler's natural layout; fields typed `ib_net16_t`,
 * `ib_net32_t` or `ib_net64_t` hold network byte order.
 *
 * Thread safety: the string lookups and `ib_copy_ca_attr()` keep no state
 * and may be called from any thread; the inline helpers are pure functions.
 * Callers serialize access to a structure shared between threads.
 */
#ifndef __IB_TYPES_VERBS_H__
#define __IB_TYPES_VERBS_H__

#include <complib/cl_types.h>
#include <complib/cl_byteswap.h>
#include <iba/ib_types_base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Communication management constants                                       */
/* ------------------------------------------------------------------------ */

#define IB_MCLASS_CM_VER_2 2 /**< Communication management class version 2. */
#define IB_MCLASS_CM_VER_1 1 /**< Communication management class version 1. */

#define IB_REQ_PDATA_SIZE      92  /**< Bytes of private data in a CM REQ. */
#define IB_MRA_PDATA_SIZE      222 /**< Bytes of private data in a CM MRA. */
#define IB_REJ_PDATA_SIZE      148 /**< Bytes of private data in a CM REJ. */
#define IB_REP_PDATA_SIZE      196 /**< Bytes of private data in a CM REP. */
#define IB_RTU_PDATA_SIZE      224 /**< Bytes of private data in a CM RTU. */
#define IB_LAP_PDATA_SIZE      168 /**< Bytes of private data in a CM LAP. */
#define IB_APR_PDATA_SIZE      148 /**< Bytes of private data in a CM APR. */
#define IB_DREQ_PDATA_SIZE     220 /**< Bytes of private data in a CM DREQ. */
#define IB_DREP_PDATA_SIZE     224 /**< Bytes of private data in a CM DREP. */
#define IB_SIDR_REQ_PDATA_SIZE 216 /**< Bytes of private data in a SIDR REQ. */
#define IB_SIDR_REP_PDATA_SIZE 136 /**< Bytes of private data in a SIDR REP. */

#define IB_ARI_SIZE      72 /**< Bytes of additional reject information in a CM REJ. */
#define IB_APR_INFO_SIZE 72 /**< Bytes of additional information in a CM APR. */

/** Reason of a connection rejection (CM REJ), network order: IB_REJ_*. */
typedef ib_net16_t ib_rej_status_t;
#define IB_REJ_INSUF_QP                  CL_HTON16(1)  /**< No QP available. */
#define IB_REJ_INSUF_EEC                 CL_HTON16(2)  /**< No EEC available. */
#define IB_REJ_INSUF_RESOURCES           CL_HTON16(3)  /**< No resources available. */
#define IB_REJ_TIMEOUT                   CL_HTON16(4)  /**< The peer timed out. */
#define IB_REJ_UNSUPPORTED               CL_HTON16(5)  /**< Request not supported. */
#define IB_REJ_INVALID_COMM_ID           CL_HTON16(6)  /**< Invalid communication ID. */
#define IB_REJ_INVALID_COMM_INSTANCE     CL_HTON16(7)  /**< Invalid communication instance. */
#define IB_REJ_INVALID_SID               CL_HTON16(8)  /**< Invalid service ID. */
#define IB_REJ_INVALID_XPORT             CL_HTON16(9)  /**< Invalid transport service type. */
#define IB_REJ_STALE_CONN                CL_HTON16(10) /**< Stale connection. */
#define IB_REJ_RDC_NOT_EXIST             CL_HTON16(11) /**< Reliable datagram channel does not exist. */
#define IB_REJ_INVALID_GID               CL_HTON16(12) /**< Invalid primary GID. */
#define IB_REJ_INVALID_LID               CL_HTON16(13) /**< Invalid primary LID. */
#define IB_REJ_INVALID_SL                CL_HTON16(14) /**< Invalid primary SL. */
#define IB_REJ_INVALID_TRAFFIC_CLASS     CL_HTON16(15) /**< Invalid primary traffic class. */
#define IB_REJ_INVALID_HOP_LIMIT         CL_HTON16(16) /**< Invalid primary hop limit. */
#define IB_REJ_INVALID_PKT_RATE          CL_HTON16(17) /**< Invalid primary packet rate. */
#define IB_REJ_INVALID_ALT_GID           CL_HTON16(18) /**< Invalid alternate GID. */
#define IB_REJ_INVALID_ALT_LID           CL_HTON16(19) /**< Invalid alternate LID. */
#define IB_REJ_INVALID_ALT_SL            CL_HTON16(20) /**< Invalid alternate SL. */
#define IB_REJ_INVALID_ALT_TRAFFIC_CLASS CL_HTON16(21) /**< Invalid alternate traffic class. */
#define IB_REJ_INVALID_ALT_HOP_LIMIT     CL_HTON16(22) /**< Invalid alternate hop limit. */
#define IB_REJ_INVALID_ALT_PKT_RATE      CL_HTON16(23) /**< Invalid alternate packet rate. */
#define IB_REJ_PORT_REDIRECT             CL_HTON16(24) /**< Port redirection. */
#define IB_REJ_INVALID_MTU               CL_HTON16(26) /**< Invalid path MTU. */
#define IB_REJ_INSUFFICIENT_RESP_RES     CL_HTON16(27) /**< Too few responder resources. */
#define IB_REJ_USER_DEFINED              CL_HTON16(28) /**< Rejected by the consumer. */
#define IB_REJ_INVALID_RNR_RETRY         CL_HTON16(29) /**< Invalid RNR retry count. */
#define IB_REJ_DUPLICATE_LOCAL_COMM_ID   CL_HTON16(30) /**< Duplicate local communication ID. */
#define IB_REJ_INVALID_CLASS_VER         CL_HTON16(31) /**< Unsupported class version. */
#define IB_REJ_INVALID_FLOW_LBL          CL_HTON16(32) /**< Invalid primary flow label. */
#define IB_REJ_INVALID_ALT_FLOW_LBL      CL_HTON16(33) /**< Invalid alternate flow label. */
#define IB_REJ_SERVICE_HANDOFF           CL_HTON16(65535) /**< Access-layer service handoff. */

/** Status of an alternate path response (CM APR): IB_AP_*. */
typedef uint8_t ib_apr_status_t;
#define IB_AP_SUCCESS           0  /**< Alternate path loaded. */
#define IB_AP_INVALID_COMM_ID   1  /**< Invalid communication ID. */
#define IB_AP_UNSUPPORTED       2  /**< Alternate paths not supported. */
#define IB_AP_REJECT            3  /**< Rejected. */
#define IB_AP_REDIRECT          4  /**< Redirection. */
#define IB_AP_IS_CURRENT        5  /**< The path is already the current one. */
#define IB_AP_INVALID_QPN       6  /**< Invalid QP number. */
#define IB_AP_INVALID_LID       7  /**< Invalid LID. */
#define IB_AP_INVALID_GID       8  /**< Invalid GID. */
#define IB_AP_INVALID_FLOW_LBL  9  /**< Invalid flow label. */
#define IB_AP_INVALID_TCLASS    10 /**< Invalid traffic class. */
#define IB_AP_INVALID_HOP_LIMIT 11 /**< Invalid hop limit. */
#define IB_AP_INVALID_PKT_RATE  12 /**< Invalid packet rate. */
#define IB_AP_INVALID_SL        13 /**< Invalid SL. */

#define IB_CM_RELIABLE_CONN_CAPABLE   CL_HTON16(9)  /**< CM ClassPortInfo capability: RC. */
#define IB_CM_RELIABLE_DGRM_CAPABLE   CL_HTON16(10) /**< CM ClassPortInfo capability: RD. */
#define IB_CM_RDGRM_CAPABLE           CL_HTON16(11) /**< CM ClassPortInfo capability: RD channels. */
#define IB_CM_UNRELIABLE_CONN_CAPABLE CL_HTON16(12) /**< CM ClassPortInfo capability: UC. */
#define IB_CM_SIDR_CAPABLE            CL_HTON16(13) /**< CM ClassPortInfo capability: SIDR. */

/** Status of a service ID resolution (SIDR REP): IB_SIDR_*. */
typedef uint8_t ib_sidr_status_t;
#define IB_SIDR_SUCCESS         0 /**< The service ID was resolved. */
#define IB_SIDR_UNSUPPORTED     1 /**< Service ID not supported. */
#define IB_SIDR_REJECT          2 /**< Rejected by the service. */
#define IB_SIDR_NO_QP           3 /**< No QP is available. */
#define IB_SIDR_REDIRECT        4 /**< Redirection. */
#define IB_SIDR_UNSUPPORTED_VER 5 /**< Unsupported class version. */

/* ------------------------------------------------------------------------ */
/* Resource handles shared by the access layer and the verbs providers      */
/* ------------------------------------------------------------------------ */

typedef struct _ib_ca *ib_ca_handle_t;                 /**< Handle of an open channel adapter. */
typedef struct _ib_pd *ib_pd_handle_t;                 /**< Handle of a protection domain. */
typedef struct _ib_mr *ib_mr_handle_t;                 /**< Handle of a registered memory region. */
typedef struct _ib_mw *ib_mw_handle_t;                 /**< Handle of a memory window. */
typedef struct _ib_qp *ib_qp_handle_t;                 /**< Handle of a queue pair. */
typedef struct _ib_srq *ib_srq_handle_t;               /**< Handle of a shared receive queue. */
typedef struct _ib_cq *ib_cq_handle_t;                 /**< Handle of a completion queue. */
typedef struct _ib_av *ib_av_handle_t;                 /**< Handle of an address vector. */
typedef struct _ib_mcast *ib_mcast_handle_t;           /**< Handle of a multicast membership. */
typedef struct _mlnx_fmr *mlnx_fmr_handle_t;           /**< Handle of a Mellanox fast memory region. */
typedef struct _mlnx_fmr_pool *mlnx_fmr_pool_handle_t; /**< Handle of a Mellanox FMR pool. */
typedef struct _ib_rdd *ib_rdd_handle_t;               /**< Handle of a reliable datagram domain (OpenSM). */
typedef struct _ib_eec *ib_eec_handle_t;               /**< Handle of an end-to-end context (OpenSM). */

/* ------------------------------------------------------------------------ */
/* Status codes and asynchronous events                                     */
/* ------------------------------------------------------------------------ */

/**
 * Result of an access-layer or verbs call. Success is IB_SUCCESS, always 0;
 * IB_UNKNOWN_ERROR is always the last value.
 */
typedef enum _ib_api_status_t {
	IB_SUCCESS,                /**< The call succeeded. */
	IB_INSUFFICIENT_RESOURCES, /**< Resources other than memory ran out. */
	IB_INSUFFICIENT_MEMORY,    /**< Memory ran out, or a buffer was too small. */
	IB_INVALID_PARAMETER,      /**< A parameter was invalid. */
	IB_INVALID_SETTING,        /**< A setting was invalid. */
	IB_NOT_FOUND,              /**< The object was not found. */
	IB_TIMEOUT,                /**< The operation timed out. */
	IB_CANCELED,               /**< The operation was canceled. */
	IB_INTERRUPTED,            /**< The operation was interrupted. */
	IB_INVALID_PERMISSION,     /**< Permission denied. */
	IB_UNSUPPORTED,            /**< The operation is not supported. */
	IB_OVERFLOW,               /**< A buffer or queue overflowed. */
	IB_MAX_MCAST_QPS_REACHED,  /**< The multicast group has no room for another QP. */
	IB_INVALID_QP_STATE,       /**< The QP is in the wrong state. */
	IB_INVALID_APM_STATE,      /**< The path migration state is wrong. */
	IB_INVALID_PORT_STATE,     /**< The port is in the wrong state. */
	IB_INVALID_STATE,          /**< The object is in the wrong state. */
	IB_RESOURCE_BUSY,          /**< The resource is in use. */
	IB_INVALID_PKEY,           /**< Invalid P_Key. */
	IB_INVALID_LKEY,           /**< Invalid L_Key. */
	IB_INVALID_RKEY,           /**< Invalid R_Key. */
	IB_INVALID_MAX_WRS,        /**< Invalid work request depth. */
	IB_INVALID_MAX_SGE,        /**< Invalid number of scatter/gather elements. */
	IB_INVALID_CQ_SIZE,        /**< Invalid CQ size. */
	IB_INVALID_SRQ_SIZE,       /**< Invalid SRQ size. */
	IB_INVALID_SERVICE_TYPE,   /**< Invalid transport service type. */
	IB_INVALID_GID,            /**< Invalid GID. */
	IB_INVALID_LID,            /**< Invalid LID. */
	IB_INVALID_GUID,           /**< Invalid GUID. */
	IB_INVALID_GUID_MASK,      /**< Invalid GUID mask. */
	IB_INVALID_CA_HANDLE,      /**< Invalid CA handle. */
	IB_INVALID_AV_HANDLE,      /**< Invalid address vector handle. */
	IB_INVALID_CQ_HANDLE,      /**< Invalid CQ handle. */
	IB_INVALID_QP_HANDLE,      /**< Invalid QP handle. */
	IB_INVALID_SRQ_HANDLE,     /**< Invalid SRQ handle. */
	IB_INVALID_PD_HANDLE,      /**< Invalid PD handle. */
	IB_INVALID_MR_HANDLE,      /**< Invalid memory region handle. */
	IB_INVALID_FMR_HANDLE,     /**< Invalid fast memory region handle. */
	IB_INVALID_MW_HANDLE,      /**< Invalid memory window handle. */
	IB_INVALID_MCAST_HANDLE,   /**< Invalid multicast handle. */
	IB_INVALID_CALLBACK,       /**< Invalid callback. */
	IB_INVALID_AL_HANDLE,      /**< Invalid access-layer handle. */
	IB_INVALID_HANDLE,         /**< Invalid handle. */
	IB_ERROR,                  /**< A generic error. */
	IB_REMOTE_ERROR,           /**< The remote side reported an error. */
	IB_VERBS_PROCESSING_DONE,  /**< A user-mode provider finished the call itself. */
	IB_INVALID_WR_TYPE,        /**< Invalid work request type. */
	IB_QP_IN_TIMEWAIT,         /**< The QP is in the time-wait state. */
	IB_EE_IN_TIMEWAIT,         /**< The EE context is in the time-wait state. */
	IB_INVALID_PORT,           /**< Invalid port number. */
	IB_NOT_DONE,               /**< The operation has not completed. */
	IB_INVALID_INDEX,          /**< Invalid index. */
	IB_NO_MATCH,               /**< Nothing matched. */
	IB_PENDING,                /**< The operation is in progress. */
	IB_UNKNOWN_ERROR           /**< An unknown error; always the last value. */
} ib_api_status_t;

/**
 * Name of a status code.
 * @param status the status.
 * @return a static string holding the enumerator's name, e.g. "IB_SUCCESS";
 * "IB_UNKNOWN_ERROR" for a value past IB_UNKNOWN_ERROR.
 */
AL_EXPORT const char *AL_API ib_get_err_str(IN ib_api_status_t status);

/** Reason of an asynchronous event callback. */
typedef enum _ib_async_event_t {
	IB_AE_SQ_ERROR = 1,            /**< Error accessing a send queue. */
	IB_AE_SQ_DRAINED,              /**< A send queue drained (SQD). */
	IB_AE_RQ_ERROR,                /**< Error accessing a receive queue. */
	IB_AE_CQ_ERROR,                /**< Error writing a completion queue. */
	IB_AE_QP_FATAL,                /**< Catastrophic work queue error. */
	IB_AE_QP_COMM,                 /**< First packet arrived on a QP in RTR. */
	IB_AE_QP_APM,                  /**< The QP migrated to its alternate path. */
	IB_AE_LOCAL_FATAL,             /**< Catastrophic CA error. */
	IB_AE_PKEY_TRAP,               /**< P_Key violation. */
	IB_AE_QKEY_TRAP,               /**< Q_Key violation. */
	IB_AE_MKEY_TRAP,               /**< M_Key violation. */
	IB_AE_PORT_TRAP,               /**< Port capability change. */
	IB_AE_SYSIMG_GUID_TRAP,        /**< The system image GUID changed. */
	IB_AE_BUF_OVERRUN,             /**< Excessive buffer overrun errors. */
	IB_AE_LINK_INTEGRITY,          /**< Excessive local physical errors. */
	IB_AE_FLOW_CTRL_ERROR,         /**< Flow control update watchdog expired. */
	IB_AE_BKEY_TRAP,               /**< B_Key violation. */
	IB_AE_QP_APM_ERROR,            /**< An incoming path migration was refused. */
	IB_AE_WQ_REQ_ERROR,            /**< Op-code violation at the responder. */
	IB_AE_WQ_ACCESS_ERROR,         /**< Access violation at the responder. */
	IB_AE_PORT_ACTIVE,             /**< A link became active. */
	IB_AE_PORT_DOWN,               /**< A link left the active state. */
	IB_AE_CLIENT_REREGISTER,       /**< The SM asks clients to re-register. */
	IB_AE_SRQ_LIMIT_REACHED,       /**< An SRQ fell below its limit. */
	IB_AE_SRQ_CATAS_ERROR,         /**< Catastrophic SRQ error. */
	IB_AE_SRQ_QP_LAST_WQE_REACHED, /**< Last WQE of a QP attached to an SRQ. */
	IB_AE_RESET_DRIVER,            /**< The device resets after a fatal error. */
	IB_AE_RESET_CLIENT,            /**< The device resets at a client's request. */
	IB_AE_RESET_END,               /**< The device reset ended. */
	IB_AE_RESET_FAILED,            /**< The device reset failed. */
	IB_AE_LID_CHANGE,              /**< A port LID changed. */
	IB_AE_PKEY_CHANGE,             /**< A P_Key table changed. */
	IB_AE_SM_CHANGE,               /**< The subnet manager changed. */
	IB_AE_GID_CHANGE,              /**< A GID table changed. */
	IB_AE_RESET_4_RMV,             /**< The device resets before removal. */
	IB_AE_CQ_OVERFLOW,             /**< A completion queue overflowed. */
	IB_AE_UNKNOWN                  /**< An unknown event; always the last value. */
} ib_async_event_t;

/**
 * Name of an asynchronous event.
 * @param event the event.
 * @return a static string holding the enumerator's name, e.g.
 * "IB_AE_SQ_ERROR"; "IB_AE_DUMMY" for 0 (no event has that value) and
 * "IB_AE_UNKNOWN" for a value past IB_AE_UNKNOWN.
 */
AL_EXPORT const char *AL_API ib_get_async_event_str(IN ib_async_event_t event);

/** Asynchronous event notification record. */
typedef struct _ib_event_rec {
	/** Context of the source: the CA, QP, CQ or SRQ context given at creation. */
	TO_LONG_PTR(void *, context);
	ib_async_event_t type;    /**< What happened. */
	uint64_t vendor_specific; /**< Provider-specific event information. */
	uint8_t port_number;      /**< Port of a port event. */
} ib_event_rec_t;

/* ------------------------------------------------------------------------ */
/* Channel adapter and port attributes                                      */
/* ------------------------------------------------------------------------ */

/** Level of atomicity an adapter guarantees. */
typedef enum _ib_atomic_t {
	IB_ATOMIC_NONE,  /**< No atomic operations. */
	IB_ATOMIC_LOCAL, /**< Atomic between the QPs of this CA. */
	IB_ATOMIC_GLOBAL /**< Atomic between this CA and any other entity. */
} ib_atomic_t;

/** Management agents and capabilities of a port (PortInfo CapabilityMask). */
typedef struct _ib_port_cap {
	boolean_t cm;                   /**< A communication manager is reachable. */
	boolean_t snmp;                 /**< An SNMP tunneling agent is reachable. */
	boolean_t dev_mgmt;             /**< A device management agent is reachable. */
	boolean_t vend;                 /**< A vendor-specific agent is reachable. */
	boolean_t sm;                   /**< A subnet manager runs on the port. */
	boolean_t sm_disable;           /**< The port is disabled for SM configuration. */
	boolean_t qkey_ctr;             /**< Q_Key violation counter supported. */
	boolean_t pkey_ctr;             /**< P_Key violation counter supported. */
	boolean_t notice;               /**< Notices supported. */
	boolean_t trap;                 /**< Traps supported. */
	boolean_t apm;                  /**< Automatic path migration supported. */
	boolean_t slmap;                /**< SL-to-VL mapping supported. */
	boolean_t pkey_nvram;           /**< P_Keys kept in NVRAM. */
	boolean_t mkey_nvram;           /**< M_Key kept in NVRAM. */
	boolean_t sysguid;              /**< System image GUID supported. */
	boolean_t dr_notice;            /**< Directed-route notices supported. */
	boolean_t boot_mgmt;            /**< Boot management supported. */
	boolean_t capm_notice;          /**< Capability-mask change notices supported. */
	boolean_t reinit;               /**< Reinitialization supported. */
	boolean_t ledinfo;              /**< LED information supported. */
	boolean_t port_active;          /**< Port active (clear to shut the port down). */
	boolean_t ipd;                  /**< Inter-packet delay supported. */
	boolean_t pkey_switch_ext_port; /**< Switch external-port P_Key enforcement supported. */
	boolean_t bm;                   /**< Baseboard management supported. */
	boolean_t link_rtl;             /**< Link round-trip latency supported. */
	boolean_t client_reregister;    /**< Client re-registration supported. */
} ib_port_cap_t;

/** Type of initialization a port requests or the SM performed: IB_INIT_TYPE_*. */
typedef uint8_t ib_init_type_t;
#define IB_INIT_TYPE_NO_LOAD            0x01 /**< NoLoad. */
#define IB_INIT_TYPE_PRESERVE_CONTENT   0x02 /**< PreserveContent. */
#define IB_INIT_TYPE_PRESERVE_PRESENCE  0x04 /**< PreservePresence. */
#define IB_INIT_TYPE_DO_NOT_RESUSCITATE 0x08 /**< DoNotResuscitate. */

/** Port attributes that ib_modify_ca() may change. */
typedef struct _ib_port_attr_mod {
	ib_port_cap_t cap;            /**< Capabilities to advertise. */
	uint16_t pkey_ctr;            /**< P_Key violation counter. */
	uint16_t qkey_ctr;            /**< Q_Key violation counter. */
	ib_init_type_t init_type;     /**< Requested initialization type. */
	ib_net64_t system_image_guid; /**< System image GUID. */
} ib_port_attr_mod_t;

/** Transport of a port. */
enum rdma_transport_type {
	RDMA_TRANSPORT_IB,    /**< InfiniBand. */
	RDMA_TRANSPORT_IWARP, /**< iWARP. */
	RDMA_TRANSPORT_RDMAOE /**< RDMA over Ethernet. */
};

/**
 * Attributes of one port of a channel adapter. The pointers are last so
 * that two records can be compared with memcmp() up to p_gid_table.
 */
typedef struct _ib_port_attr {
	ib_net64_t port_guid;               /**< Port GUID. */
	uint8_t port_num;                   /**< Port number. */
	uint8_t mtu;                        /**< Active MTU (IB_MTU_LEN_*). */
	enum rdma_transport_type transport; /**< Transport of the port. */
	uint64_t max_msg_size;              /**< Largest message, in bytes. */
	ib_net16_t lid;                     /**< Base LID. */
	uint8_t lmc;                        /**< LID mask control. */
	uint8_t active_width;               /**< Active link width (PortInfo encoding). */
	uint16_t max_vls;                   /**< Number of data VLs. */
	ib_net16_t sm_lid;                  /**< LID of the master SM. */
	uint8_t sm_sl;                      /**< SL to reach the master SM. */
	uint8_t link_state;                 /**< Logical link state (IB_LINK_*). */
	ib_init_type_t init_type_reply;     /**< Initialization the SM performed (optional). */
	/** Subnet propagation delay: 4.096 us * 2^subnet_timeout. */
	uint8_t subnet_timeout;
	uint8_t active_speed;               /**< Active link speed (PortInfo encoding). */
	uint8_t phys_state;                 /**< Physical port state. */
	uint8_t ext_active_speed;           /**< Extended active link speed. */
	uint8_t link_encoding;              /**< Link encoding. */
	ib_port_cap_t cap;                  /**< Capabilities. */
	uint16_t pkey_ctr;                  /**< P_Key violation counter. */
	uint16_t qkey_ctr;                  /**< Q_Key violation counter. */
	uint16_t num_gids;                  /**< Entries of p_gid_table. */
	uint16_t num_pkeys;                 /**< Entries of p_pkey_table. */
	/** GID table of the port (num_gids entries). */
	TO_LONG_PTR(ib_gid_t *, p_gid_table);
	/** P_Key table of the port (num_pkeys entries, network order). */
	TO_LONG_PTR(ib_net16_t *, p_pkey_table);
} ib_port_attr_t;

/**
 * Attributes of a channel adapter. The structure heads a block of `size`
 * bytes that also holds the page size array, the port array and each port's
 * GID and P_Key tables; copy it with ib_copy_ca_attr(), never with a plain
 * structure assignment.
 */
typedef struct _ib_ca_attr {
	ib_net64_t ca_guid;                 /**< CA GUID. */
	uint32_t vend_id;                   /**< IEEE vendor ID. */
	uint16_t dev_id;                    /**< Device ID. */
	uint16_t revision;                  /**< Device revision. */
	uint64_t fw_ver;                    /**< Firmware version. */
	/** Bytes of the whole attribute block, variable parts included. */
	uint32_t size;
	uint32_t max_qps;                   /**< Maximum number of QPs. */
	uint32_t max_wrs;                   /**< Maximum work requests per queue. */
	uint32_t max_sges;                  /**< Maximum scatter/gather elements per work request. */
	uint32_t max_rd_sges;               /**< Maximum SGEs of an RD read (0 without RD). */
	uint32_t max_cqs;                   /**< Maximum number of CQs. */
	uint32_t max_cqes;                  /**< Maximum entries per CQ. */
	uint32_t max_pds;                   /**< Maximum number of protection domains. */
	uint32_t init_regions;              /**< Initial number of memory regions. */
	uint64_t init_region_size;          /**< Initial limit of a region's size. */
	uint32_t init_windows;              /**< Initial number of memory windows. */
	uint64_t max_addr_handles;          /**< Maximum number of address handles. */
	uint32_t max_partitions;            /**< Maximum number of partitions. */
	ib_atomic_t atomicity;              /**< Atomicity guarantee. */
	uint8_t max_qp_resp_res;            /**< Maximum responder resources per QP. */
	uint8_t max_resp_res;               /**< Maximum responder resources per CA. */
	uint8_t max_qp_init_depth;          /**< Maximum initiator depth per QP. */
	uint32_t max_ipv6_qps;              /**< Maximum raw IPv6 QPs. */
	uint32_t max_ether_qps;             /**< Maximum raw Ethertype QPs. */
	uint32_t max_mcast_grps;            /**< Maximum multicast groups. */
	uint32_t max_mcast_qps;             /**< Maximum QPs attached to multicast groups. */
	uint32_t max_qps_per_mcast_grp;     /**< Maximum QPs per multicast group. */
	uint32_t max_fmr;                   /**< Maximum fast memory regions. */
	uint32_t max_map_per_fmr;           /**< Maximum mappings per fast memory region. */
	uint32_t max_srq;                   /**< Maximum shared receive queues. */
	uint32_t max_srq_wrs;               /**< Maximum work requests per SRQ. */
	uint32_t max_srq_sges;              /**< Maximum SGEs per SRQ work request. */
	uint32_t bf_reg_size;               /**< BlueFlame register size. */
	uint32_t bf_regs_per_page;          /**< BlueFlame registers per page. */
	uint32_t max_sq_desc_sz;            /**< Largest send queue descriptor. */
	/** Maximum ACK/NAK delay: 4.096 us * 2^local_ack_delay. */
	uint8_t local_ack_delay;
	boolean_t bad_pkey_ctr_support;     /**< P_Key violation counter supported. */
	boolean_t bad_qkey_ctr_support;     /**< Q_Key violation counter supported. */
	boolean_t raw_mcast_support;        /**< Raw multicast supported. */
	boolean_t apm_support;              /**< Automatic path migration supported. */
	boolean_t av_port_check;            /**< Address vectors' port numbers are checked. */
	boolean_t change_primary_port;      /**< The primary port may change on SQD to RTS. */
	boolean_t modify_wr_depth;          /**< QP depths may be modified. */
	boolean_t modify_srq_depth;         /**< SRQ depths may be modified. */
	boolean_t current_qp_state_support; /**< The current-state modifier is supported. */
	boolean_t shutdown_port_capability; /**< Ports can be shut down. */
	boolean_t init_type_support;        /**< init_type and init_type_reply supported. */
	boolean_t port_active_event_support; /**< IB_AE_PORT_ACTIVE is reported. */
	boolean_t system_image_guid_support; /**< system_image_guid is valid. */
	boolean_t hw_agents;                /**< The SMA is implemented in hardware. */
	boolean_t ipoib_csum;               /**< IPoIB checksum offload supported. */
	ib_net64_t system_image_guid;       /**< System image GUID (optional). */
	uint32_t num_page_sizes;            /**< Entries of p_page_size. */
	uint8_t num_ports;                  /**< Entries of p_port_attr. */
	/** Supported page sizes (num_page_sizes entries). */
	TO_LONG_PTR(uint32_t *, p_page_size);
	/** Port attributes (num_ports entries). */
	TO_LONG_PTR(ib_port_attr_t *, p_port_attr);
} ib_ca_attr_t;

/**
 * Copies a CA attribute block and makes its internal pointers (page size
 * array, port array, each port's GID and P_Key tables) point into the copy.
 *
 * When every array lies inside the `p_src->size` bytes of the source, the
 * block is copied as is (provider-specific bytes included) and the pointers
 * are relocated. Otherwise the arrays are gathered behind the structure in
 * the destination. Either way at most `p_src->size` bytes are written.
 *
 * @param p_dest buffer of at least `p_src->size` bytes, aligned for
 * ib_ca_attr_t, not overlapping the source arrays.
 * @param p_src the attributes to copy.
 * @return @p p_dest; NULL if either pointer is NULL, `p_src->size` is
 * smaller than the structure or than its arrays need, or an array with
 * entries has a NULL pointer (the destination is then left untouched).
 */
AL_EXPORT ib_ca_attr_t *AL_API ib_copy_ca_attr(IN ib_ca_attr_t *const p_dest,
					       IN const ib_ca_attr_t *const p_src);

/* ------------------------------------------------------------------------ */
/* Protection domains, address vectors, queue pairs                         */
/* ------------------------------------------------------------------------ */

/** Type of a protection domain. */
typedef enum _ib_pd_type {
	IB_PDT_NORMAL, /**< For ordinary QPs. */
	IB_PDT_ALIAS,  /**< For IB_QPT_QP0_ALIAS and IB_QPT_QP1_ALIAS QPs. */
	IB_PDT_SQP,    /**< For special QPs. */
	IB_PDT_UD      /**< For unreliable datagram QPs. */
} ib_pd_type_t;

/** Address vector: how to reach a destination. */
typedef struct _ib_av_attr {
	uint8_t port_num;    /**< Local port. */
	uint8_t sl;          /**< Service level. */
	ib_net16_t dlid;     /**< Destination LID. */
	boolean_t grh_valid; /**< The GRH below is used. */
	ib_grh_t grh;        /**< Global route header. */
	uint8_t static_rate; /**< Static rate (IB_PATH_RECORD_RATE_* encoding). */
	uint8_t path_bits;   /**< Source path bits. */
	/** Connection parameters (connected QPs only). */
	struct _av_conn {
		uint8_t path_mtu;          /**< Path MTU (IB_MTU_LEN_*). */
		uint8_t local_ack_timeout; /**< Local ACK timeout: 4.096 us * 2^value. */
		uint8_t seq_err_retry_cnt; /**< Retries after sequence errors. */
		uint8_t rnr_retry_cnt;     /**< Retries after RNR NAKs. */
	} conn; /**< Connection parameters. */
} ib_av_attr_t;

/** Type of a queue pair. */
typedef enum _ib_qp_type {
	IB_QPT_RELIABLE_CONN = 0,   /**< Reliable connected (CM REQ transport type 0). */
	IB_QPT_UNRELIABLE_CONN = 1, /**< Unreliable connected (CM REQ transport type 1). */
	IB_QPT_RELIABLE_DGRM = 2,   /**< Reliable datagram (CM REQ transport type 2). */
	IB_QPT_UNRELIABLE_DGRM,     /**< Unreliable datagram. */
	IB_QPT_QP0,                 /**< Queue pair 0. */
	IB_QPT_QP1,                 /**< Queue pair 1. */
	IB_QPT_RAW_IPV6,            /**< Raw IPv6. */
	IB_QPT_RAW_ETHER,           /**< Raw Ethertype. */
	IB_QPT_MAD,                 /**< UD QP whose MADs the access layer assists. */
	IB_QPT_QP0_ALIAS,           /**< Alias of QP0 (on an IB_PDT_ALIAS domain). */
	IB_QPT_QP1_ALIAS,           /**< Alias of QP1 (on an IB_PDT_ALIAS domain). */
	IB_QPT_UNKNOWN              /**< Unknown type; always the last value. */
} ib_qp_type_t;

/**
 * Name of a QP type.
 * @param qp_type the type (an ib_qp_type_t value).
 * @return a static string holding the enumerator's name, e.g.
 * "IB_QPT_RELIABLE_CONN"; "IB_QPT_UNKNOWN" for a value past IB_QPT_UNKNOWN.
 */
AL_EXPORT const char *AL_API ib_get_qp_type_str(IN uint8_t qp_type);

/** Access rights to QPs, memory regions and windows: OR of IB_AC_*. */
typedef uint32_t ib_access_t;
#define IB_AC_RDMA_READ    0x00000001 /**< Remote RDMA read. */
#define IB_AC_RDMA_WRITE   0x00000002 /**< Remote RDMA write. */
#define IB_AC_ATOMIC       0x00000004 /**< Remote atomic operations. */
#define IB_AC_LOCAL_WRITE  0x00000008 /**< Local write. */
#define IB_AC_MW_BIND      0x00000010 /**< Memory window binding. */
#define IB_AC_NOT_CACHABLE 0x80000000 /**< Map the memory non-cached. */

/** State of a queue pair: one IB_QPS_* value. */
typedef uint32_t ib_qp_state_t;
#define IB_QPS_RESET        0x00000001 /**< Reset. */
#define IB_QPS_INIT         0x00000002 /**< Initialized. */
#define IB_QPS_RTR          0x00000004 /**< Ready to receive. */
#define IB_QPS_RTS          0x00000008 /**< Ready to send. */
#define IB_QPS_SQD          0x00000010 /**< Send queue drain requested. */
#define IB_QPS_SQD_DRAINING 0x00000030 /**< Send queue draining. */
#define IB_QPS_SQD_DRAINED  0x00000050 /**< Send queue drained. */
#define IB_QPS_SQERR        0x00000080 /**< Send queue error. */
#define IB_QPS_ERROR        0x00000100 /**< Error. */
#define IB_QPS_TIME_WAIT    0xDEAD0000 /**< Time wait (access layer). */

/** Automatic path migration state of a queue pair. */
typedef enum _ib_apm_state {
	IB_APM_MIGRATED = 1, /**< Migrated. */
	IB_APM_REARM,        /**< Rearm. */
	IB_APM_ARMED         /**< Armed. */
} ib_apm_state_t;

/** Fields of ib_srq_attr_t that a call uses. */
typedef enum _ib_srq_attr_mask {
	IB_SRQ_MAX_WR = 1 << 0, /**< max_wr. */
	IB_SRQ_LIMIT = 1 << 1,  /**< srq_limit. */
} ib_srq_attr_mask_t;

/** Attributes of a shared receive queue. */
typedef struct _ib_srq_attr {
	uint32_t max_wr;    /**< Maximum outstanding work requests. */
	uint32_t max_sge;   /**< Maximum SGEs per work request. */
	uint32_t srq_limit; /**< Low watermark that raises IB_AE_SRQ_LIMIT_REACHED. */
} ib_srq_attr_t;

/** Attributes of a queue pair at creation. */
typedef struct _ib_qp_create {
	ib_qp_type_t qp_type;   /**< Type of the QP. */
	uint32_t sq_max_inline; /**< Largest inline send payload. */
	uint32_t sq_depth;      /**< Outstanding send work requests. */
	uint32_t rq_depth;      /**< Outstanding receive work requests (0 with an SRQ). */
	uint32_t sq_sge;        /**< SGEs per send work request. */
	uint32_t rq_sge;        /**< SGEs per receive work request. */
	/** CQ for send completions (NULL for MAD and alias QPs). */
	TO_LONG_PTR(ib_cq_handle_t, h_sq_cq);
	/** CQ for receive completions (NULL for MAD and alias QPs). */
	TO_LONG_PTR(ib_cq_handle_t, h_rq_cq);
	/** SRQ the QP receives through, or NULL. */
	TO_LONG_PTR(ib_srq_handle_t, h_srq);
	boolean_t sq_signaled;  /**< Every send completion generates a CQ entry. */
} ib_qp_create_t;

/** Flags of ib_qp_create_ex_t. */
typedef enum _ib_qp_create_flags_t {
	IB_QP_CREATE_FLAG_SQ_ACCESS_CLIENT_SYNC = 1,         /**< The client serializes send posts. */
	IB_QP_CREATE_FLAG_RQ_ACCESS_CLIENT_SYNC = 1 << 1,    /**< The client serializes receive posts. */
	IB_QP_CREATE_FLAG_NO_WQ_OVERFLOW_BY_CLIENT = 1 << 2, /**< The client never overflows a queue. */
} ib_qp_create_flags_t;

/** Attributes of a queue pair at creation, with flags. */
typedef struct _ib_qp_create_ex {
	ib_qp_create_t qp_create; /**< Basic attributes. */
	int create_flags;         /**< OR of ib_qp_create_flags_t values. */
} ib_qp_create_ex_t;

/** Attributes of a queue pair, as ib_query_qp() returns them. */
typedef struct _ib_qp_attr {
	/** Protection domain of the QP. */
	TO_LONG_PTR(ib_pd_handle_t, h_pd);
	ib_qp_type_t qp_type;       /**< Type. */
	ib_access_t access_ctrl;    /**< Remote access rights. */
	uint16_t pkey_index;        /**< P_Key index. */
	uint32_t sq_max_inline;     /**< Largest inline send payload. */
	uint32_t sq_depth;          /**< Send queue depth. */
	uint32_t rq_depth;          /**< Receive queue depth. */
	uint32_t sq_sge;            /**< SGEs per send work request. */
	uint32_t rq_sge;            /**< SGEs per receive work request. */
	uint8_t init_depth;         /**< Initiator depth. */
	uint8_t resp_res;           /**< Responder resources. */
	/** Send CQ. */
	TO_LONG_PTR(ib_cq_handle_t, h_sq_cq);
	/** Receive CQ. */
	TO_LONG_PTR(ib_cq_handle_t, h_rq_cq);
	/** SRQ, or NULL. */
	TO_LONG_PTR(ib_srq_handle_t, h_srq);
	boolean_t sq_signaled;      /**< All sends signaled. */
	ib_qp_state_t state;        /**< Current state. */
	ib_net32_t num;             /**< QP number. */
	ib_net32_t dest_num;        /**< Destination QP number. */
	ib_net32_t qkey;            /**< Q_Key. */
	ib_net32_t sq_psn;          /**< Send PSN. */
	ib_net32_t rq_psn;          /**< Receive PSN. */
	uint8_t primary_port;       /**< Primary port. */
	uint8_t alternate_port;     /**< Alternate port. */
	ib_av_attr_t primary_av;    /**< Primary path. */
	ib_av_attr_t alternate_av;  /**< Alternate path. */
	ib_apm_state_t apm_state;   /**< Path migration state. */
} ib_qp_attr_t;

/** Optional fields of a QP modification: OR of IB_MOD_QP_*. */
typedef uint32_t ib_qp_opts_t;
#define IB_MOD_QP_ALTERNATE_AV      0x00000001 /**< alternate_av is valid. */
#define IB_MOD_QP_PKEY              0x00000002 /**< pkey_index is valid. */
#define IB_MOD_QP_APM_STATE         0x00000004 /**< apm_state is valid. */
#define IB_MOD_QP_PRIMARY_AV        0x00000008 /**< primary_av is valid. */
#define IB_MOD_QP_RNR_NAK_TIMEOUT   0x00000010 /**< rnr_nak_timeout is valid. */
#define IB_MOD_QP_RESP_RES          0x00000020 /**< resp_res is valid. */
#define IB_MOD_QP_INIT_DEPTH        0x00000040 /**< init_depth is valid. */
#define IB_MOD_QP_PRIMARY_PORT      0x00000080 /**< primary_port is valid. */
#define IB_MOD_QP_ACCESS_CTRL       0x00000100 /**< access_ctrl is valid. */
#define IB_MOD_QP_QKEY              0x00000200 /**< qkey is valid. */
#define IB_MOD_QP_SQ_DEPTH          0x00000400 /**< sq_depth is valid. */
#define IB_MOD_QP_RQ_DEPTH          0x00000800 /**< rq_depth is valid. */
#define IB_MOD_QP_CURRENT_STATE     0x00001000 /**< current_state is valid. */
#define IB_MOD_QP_RETRY_CNT         0x00002000 /**< retry_cnt is valid. */
#define IB_MOD_QP_LOCAL_ACK_TIMEOUT 0x00004000 /**< local_ack_timeout is valid. */
#define IB_MOD_QP_RNR_RETRY_CNT     0x00008000 /**< rnr_retry_cnt is valid. */
#define IB_MOD_QP_GENERATE_PRIO_TAG 0x00010000 /**< Generate priority tags (RoCE). */

/** A queue pair state transition for ib_modify_qp(). */
typedef struct _ib_qp_mod {
	ib_qp_state_t req_state; /**< Requested state; selects the member of @c state. */
	/** Parameters of the transition, by requested state. */
	union _qp_state {
		/** To INIT. */
		struct _qp_init {
			uint8_t primary_port;    /**< Primary port. */
			ib_net32_t qkey;         /**< Q_Key. */
			uint16_t pkey_index;     /**< P_Key index. */
			ib_access_t access_ctrl; /**< Remote access rights. */
		} init; /**< To IB_QPS_INIT. */
		/** To RTR. */
		struct _qp_rtr {
			ib_net32_t rq_psn;         /**< Receive PSN. */
			ib_net32_t dest_qp;        /**< Destination QP number. */
			ib_av_attr_t primary_av;   /**< Primary path. */
			uint8_t resp_res;          /**< Responder resources. */
			uint8_t rnr_nak_timeout;   /**< RNR NAK timer. */
			ib_qp_opts_t opts;         /**< Which optional fields below are valid. */
			ib_av_attr_t alternate_av; /**< Alternate path (optional). */
			ib_net32_t qkey;           /**< Q_Key (optional). */
			uint16_t pkey_index;       /**< P_Key index (optional). */
			ib_access_t access_ctrl;   /**< Access rights (optional). */
			uint32_t sq_depth;         /**< Send queue depth (optional). */
			uint32_t rq_depth;         /**< Receive queue depth (optional). */
		} rtr; /**< To IB_QPS_RTR. */
		/** To RTS. */
		struct _qp_rts {
			ib_net32_t sq_psn;           /**< Send PSN. */
			uint8_t retry_cnt;           /**< Transport retry count. */
			uint8_t rnr_retry_cnt;       /**< RNR retry count. */
			uint8_t local_ack_timeout;   /**< Local ACK timeout. */
			uint8_t init_depth;          /**< Initiator depth. */
			ib_qp_opts_t opts;           /**< Which optional fields below are valid. */
			uint8_t rnr_nak_timeout;     /**< RNR NAK timer (optional). */
			ib_qp_state_t current_state; /**< Current state (optional). */
			ib_net32_t qkey;             /**< Q_Key (optional). */
			ib_access_t access_ctrl;     /**< Access rights (optional). */
			uint8_t resp_res;            /**< Responder resources (optional). */
			ib_av_attr_t primary_av;     /**< Primary path (optional). */
			ib_av_attr_t alternate_av;   /**< Alternate path (optional). */
			uint32_t sq_depth;           /**< Send queue depth (optional). */
			uint32_t rq_depth;           /**< Receive queue depth (optional). */
			ib_apm_state_t apm_state;    /**< Path migration state (optional). */
			uint8_t primary_port;        /**< Primary port (optional). */
			uint16_t pkey_index;         /**< P_Key index (optional). */
		} rts; /**< To IB_QPS_RTS. */
		/** To SQD. */
		struct _qp_sqd {
			boolean_t sqd_event; /**< Raise IB_AE_SQ_DRAINED when drained. */
		} sqd; /**< To IB_QPS_SQD. */
	} state; /**< Parameters of the transition. */
} ib_qp_mod_t;

/** Attributes of an end-to-end context (reliable datagram; OpenSM). */
typedef struct _ib_eec_attr {
	ib_qp_state_t state;       /**< Current state. */
	ib_rdd_handle_t h_rdd;     /**< Reliable datagram domain. */
	ib_net32_t local_eecn;     /**< Local EE context number. */
	ib_net32_t sq_psn;         /**< Send PSN. */
	ib_net32_t rq_psn;         /**< Receive PSN. */
	uint8_t primary_port;      /**< Primary port. */
	uint16_t pkey_index;       /**< P_Key index. */
	uint32_t resp_res;         /**< Responder resources. */
	ib_net32_t remote_eecn;    /**< Remote EE context number. */
	uint32_t init_depth;       /**< Initiator depth. */
	uint32_t dest_num;         /**< Destination number. */
	ib_av_attr_t primary_av;   /**< Primary path. */
	ib_av_attr_t alternate_av; /**< Alternate path. */
	ib_apm_state_t apm_state;  /**< Path migration state. */
} ib_eec_attr_t;

/** Optional fields of an EEC modification: OR of IB_MOD_EEC_* (OpenSM). */
typedef uint32_t ib_eec_opts_t;
#define IB_MOD_EEC_ALTERNATE_AV 0x00000001 /**< alternate_av is valid. */
#define IB_MOD_EEC_PKEY         0x00000002 /**< pkey_index is valid. */
#define IB_MOD_EEC_APM_STATE    0x00000004 /**< apm_state is valid. */
#define IB_MOD_EEC_PRIMARY_AV   0x00000008 /**< primary_av is valid. */
#define IB_MOD_EEC_RNR          0x00000010 /**< The RNR timer is valid. */
#define IB_MOD_EEC_RESP_RES     0x00000020 /**< resp_res is valid. */
#define IB_MOD_EEC_OUTSTANDING  0x00000040 /**< init_depth is valid. */
#define IB_MOD_EEC_PRIMARY_PORT 0x00000080 /**< primary_port is valid. */

/** An EEC state transition (reliable datagram; OpenSM). */
typedef struct _ib_eec_mod {
	ib_qp_state_t req_state; /**< Requested state; selects the member of @c state. */
	/** Parameters of the transition, by requested state. */
	union _eec_state {
		/** To INIT. */
		struct _eec_init {
			uint8_t primary_port; /**< Primary port. */
			uint16_t pkey_index;  /**< P_Key index. */
		} init; /**< To IB_QPS_INIT. */
		/** To RTR. */
		struct _eec_rtr {
			ib_net32_t rq_psn;         /**< Receive PSN. */
			ib_net32_t remote_eecn;    /**< Remote EE context number. */
			ib_av_attr_t primary_av;   /**< Primary path. */
			uint8_t resp_res;          /**< Responder resources. */
			ib_eec_opts_t opts;        /**< Which optional fields below are valid. */
			ib_av_attr_t alternate_av; /**< Alternate path (optional). */
			uint16_t pkey_index;       /**< P_Key index (optional). */
		} rtr; /**< To IB_QPS_RTR. */
		/** To RTS. */
		struct _eec_rts {
			ib_net32_t sq_psn;         /**< Send PSN. */
			uint8_t retry_cnt;         /**< Transport retry count. */
			uint8_t rnr_retry_cnt;     /**< RNR retry count. */
			uint8_t local_ack_timeout; /**< Local ACK timeout. */
			uint8_t init_depth;        /**< Initiator depth. */
			ib_eec_opts_t opts;        /**< Which optional fields below are valid. */
			ib_av_attr_t alternate_av; /**< Alternate path (optional). */
			ib_apm_state_t apm_state;  /**< Path migration state (optional). */
			ib_av_attr_t primary_av;   /**< Primary path (optional). */
			uint16_t pkey_index;       /**< P_Key index (optional). */
			uint8_t primary_port;      /**< Primary port (optional). */
		} rts; /**< To IB_QPS_RTS. */
		/** To SQD. */
		struct _eec_sqd {
			boolean_t sqd_event; /**< Raise an event when drained. */
		} sqd; /**< To IB_QPS_SQD. */
	} state; /**< Parameters of the transition. */
} ib_eec_mod_t;

/* ------------------------------------------------------------------------ */
/* Work requests                                                            */
/* ------------------------------------------------------------------------ */

/** Type of a send work request. */
typedef enum _ib_wr_type_t {
	WR_SEND,         /**< Send. */
	WR_RDMA_WRITE,   /**< RDMA write. */
	WR_RDMA_READ,    /**< RDMA read. */
	WR_COMPARE_SWAP, /**< Atomic compare and swap. */
	WR_FETCH_ADD,    /**< Atomic fetch and add. */
	WR_LSO,          /**< Large send offload. */
	WR_NOP,          /**< No operation. */
	WR_LOCAL_INV,    /**< Local invalidate. */
	WR_FAST_REG_MR,  /**< Fast memory registration. */
	WR_UNKNOWN       /**< Unknown type; always the last value. */
} ib_wr_type_t;

/**
 * Name of a work request type.
 * @param wr_type the type (an ib_wr_type_t value).
 * @return a static string holding the enumerator's name, e.g. "WR_SEND";
 * "WR_UNKNOWN" for WR_UNKNOWN and beyond.
 */
AL_EXPORT const char *AL_API ib_get_wr_type_str(IN uint8_t wr_type);

/** A local data segment of a work request. */
typedef struct _ib_local_ds {
	uint64_t vaddr;  /**< Virtual address of the buffer. */
	uint32_t length; /**< Length of the buffer in bytes. */
	uint32_t lkey;   /**< L_Key of the memory region holding the buffer. */
} ib_local_ds_t;

/** Options of a send work request: OR of IB_SEND_OPT_*. */
typedef uint32_t ib_send_opt_t;
#define IB_SEND_OPT_IMMEDIATE       0x00000001 /**< Send immediate_data. */
#define IB_SEND_OPT_FENCE           0x00000002 /**< Wait for prior reads and atomics. */
#define IB_SEND_OPT_SIGNALED        0x00000004 /**< Generate a completion. */
#define IB_SEND_OPT_SOLICITED       0x00000008 /**< Set the solicited event bit. */
#define IB_SEND_OPT_INLINE          0x00000010 /**< Copy the data into the WQE. */
#define IB_SEND_OPT_LOCAL           0x00000020 /**< Hand a MAD to the local provider. */
#define IB_SEND_OPT_TX_IP_CSUM      0x00000040 /**< Compute the IP checksum. */
#define IB_SEND_OPT_TX_TCP_UDP_CSUM 0x00000080 /**< Compute the TCP/UDP checksum. */
#define IB_SEND_OPT_VEND_MASK       0xFFFF0000 /**< Bits reserved to the provider. */

/** Page list of a fast registration work request. */
typedef struct _ib_fast_reg_page_list {
	void *device;               /**< Reserved to the provider. */
	uint64_t *page_list;        /**< Physical page addresses. */
	unsigned int max_page_list_len; /**< Entries of page_list. */
} ib_fast_reg_page_list_t;

/*
 * The members of ib_send_wr_t's unnamed union are declared here rather than
 * inside the union, because C++ allows no type declarations in an anonymous
 * union. In C the tags have the same (file) scope either way.
 */

/** Unreliable datagram addressing of a send work request. */
struct _send_ud {
	ib_av_handle_t h_av;    /**< Address vector of the destination. */
	ib_net32_t remote_qp;   /**< Destination QP number. */
	ib_net32_t remote_qkey; /**< Destination Q_Key. */
	void *rsvd;             /**< Reserved to the access layer. */
	uint16_t pkey_index;    /**< P_Key index (QP1 and QP1 alias only). */
	void *header;           /**< LSO header. */
	int hlen;               /**< LSO header length. */
	int mss;                /**< LSO maximum segment size. */
};

/** Reliable datagram addressing of a send work request. */
struct _send_rd {
	ib_net32_t remote_qp;   /**< Destination QP number. */
	ib_net32_t remote_qkey; /**< Destination Q_Key. */
	ib_net32_t eecn;        /**< EE context number. */
};

/** Raw Ethertype addressing of a send work request. */
struct _send_raw_ether {
	ib_net16_t dest_lid;     /**< Destination LID. */
	uint8_t path_bits;       /**< Source path bits. */
	uint8_t sl;              /**< Service level. */
	uint8_t max_static_rate; /**< Static rate. */
	ib_net16_t ether_type;   /**< Ethertype. */
};

/** Raw IPv6 addressing of a send work request. */
struct _send_raw_ipv6 {
	ib_net16_t dest_lid;     /**< Destination LID. */
	uint8_t path_bits;       /**< Source path bits. */
	uint8_t sl;              /**< Service level. */
	uint8_t max_static_rate; /**< Static rate. */
};

/** Datagram addressing of a send work request. */
union _send_dgrm {
	struct _send_ud ud;               /**< Unreliable datagram. */
	struct _send_rd rd;               /**< Reliable datagram. */
	struct _send_raw_ether raw_ether; /**< Raw Ethertype. */
	struct _send_raw_ipv6 raw_ipv6;   /**< Raw IPv6. */
};

/** Remote memory of an RDMA or atomic work request. */
struct _send_remote_ops {
	uint64_t vaddr;     /**< Remote virtual address. */
	net32_t rkey;       /**< R_Key, exactly as the peer gave it. */
	ib_net64_t atomic1; /**< First atomic operand. */
	ib_net64_t atomic2; /**< Second atomic operand. */
};

/** Parameters of a fast registration work request. */
struct _fast_reg {
	uint64_t iova_start;                /**< I/O virtual address of the region. */
	ib_fast_reg_page_list_t *page_list; /**< Pages of the region. */
	unsigned int page_shift;            /**< log2 of the page size. */
	unsigned int page_list_len;         /**< Pages used. */
	uint32_t length;                    /**< Length of the region. */
	int access_flags;                   /**< Access rights. */
	net32_t rkey;                       /**< R_Key to assign. */
	uint32_t fbo;                       /**< First byte offset. */
};

/** A work request for the send queue of a queue pair. */
typedef struct _ib_send_wr {
	uint64_t wr_id;              /**< Identifier returned in the completion. */
	struct _ib_send_wr *p_next;  /**< Next request of a chain, NULL at the end. */
	ib_local_ds_t *ds_array;     /**< Local data segments. */
	uint32_t num_ds;             /**< Entries of ds_array. */
	ib_wr_type_t wr_type;        /**< Operation. */
	ib_send_opt_t send_opt;      /**< Options. */
	union {
		ib_net32_t immediate_data; /**< Immediate data (IB_SEND_OPT_IMMEDIATE). */
		net32_t invalidate_rkey;   /**< R_Key to invalidate (WR_LOCAL_INV). */
	};
	union {
		union _send_dgrm dgrm;              /**< Datagram addressing. */
		struct _send_remote_ops remote_ops; /**< RDMA and atomic parameters. */
		struct _fast_reg fast_reg;          /**< Fast registration parameters. */
	};
} ib_send_wr_t;

/** A work request for the receive queue of a queue pair or an SRQ. */
typedef struct _ib_recv_wr {
	/** Next request of a chain, NULL at the end. */
	TO_LONG_PTR(struct _ib_recv_wr *, p_next);
	uint64_t wr_id;  /**< Identifier returned in the completion. */
	uint32_t num_ds; /**< Entries of ds_array. */
	/** Local data segments. */
	TO_LONG_PTR(ib_local_ds_t *, ds_array);
} ib_recv_wr_t;

/** A memory window bind request. */
typedef struct _ib_bind_wr {
	uint64_t wr_id;          /**< Identifier returned in the completion. */
	ib_send_opt_t send_opt;  /**< Options. */
	/** Memory region the window is bound to. */
	TO_LONG_PTR(ib_mr_handle_t, h_mr);
	ib_access_t access_ctrl; /**< Access rights of the window. */
	net32_t current_rkey;    /**< Current R_Key of the window. */
	ib_local_ds_t local_ds;  /**< Range of the region to bind. */
} ib_bind_wr_t;

/* ------------------------------------------------------------------------ */
/* Work completions                                                         */
/* ------------------------------------------------------------------------ */

/** Status of a completed work request; success is IB_WCS_SUCCESS, 0. */
typedef enum _ib_wc_status_t {
	IB_WCS_SUCCESS,              /**< Completed successfully. */
	IB_WCS_LOCAL_LEN_ERR,        /**< Local length error. */
	IB_WCS_LOCAL_OP_ERR,         /**< Local QP operation error. */
	IB_WCS_LOCAL_PROTECTION_ERR, /**< Local protection error. */
	IB_WCS_WR_FLUSHED_ERR,       /**< Flushed from the queue. */
	IB_WCS_MEM_WINDOW_BIND_ERR,  /**< Memory window bind error. */
	IB_WCS_REM_ACCESS_ERR,       /**< Remote access error. */
	IB_WCS_REM_OP_ERR,           /**< Remote operation error. */
	IB_WCS_RNR_RETRY_ERR,        /**< RNR retries exceeded. */
	IB_WCS_TIMEOUT_RETRY_ERR,    /**< Transport retries exceeded. */
	IB_WCS_REM_INVALID_REQ_ERR,  /**< Remote invalid request. */
	IB_WCS_BAD_RESP_ERR,         /**< Unexpected response op-code. */
	IB_WCS_LOCAL_ACCESS_ERR,     /**< Local access error (RDMA write with immediate). */
	IB_WCS_GENERAL_ERR,          /**< Any other error. */
	IB_WCS_UNMATCHED_RESPONSE,   /**< A response MAD matched no request. */
	IB_WCS_CANCELED,             /**< Canceled by the user. */
	IB_WCS_REM_ABORT_ERR,        /**< The responder aborted the operation. */
	IB_WCS_UNKNOWN               /**< Unknown status; always the last value. */
} ib_wc_status_t;

/**
 * Name of a work completion status.
 * @param wc_status the status.
 * @return a static string holding the enumerator's name, e.g.
 * "IB_WCS_SUCCESS"; "IB_WCS_UNKNOWN" for a value past IB_WCS_UNKNOWN.
 */
AL_EXPORT const char *AL_API ib_get_wc_status_str(IN ib_wc_status_t wc_status);

/** Type of a work completion; receive types have bit 7 set. */
typedef enum _ib_wc_type_t {
	IB_WC_SEND,               /**< Send. */
	IB_WC_RDMA_WRITE,         /**< RDMA write. */
	IB_WC_RDMA_READ,          /**< RDMA read. */
	IB_WC_COMPARE_SWAP,       /**< Atomic compare and swap. */
	IB_WC_FETCH_ADD,          /**< Atomic fetch and add. */
	IB_WC_MW_BIND,            /**< Memory window bind. */
	IB_WC_NOP,                /**< No operation. */
	IB_WC_UNKNOWN1,           /**< Unknown send-side type. */
	IB_WC_RECV = (1 << 7),    /**< Receive. */
	IB_WC_RECV_RDMA_WRITE,    /**< Receive of an RDMA write with immediate. */
	IB_WC_LSO,                /**< Large send offload. */
	IB_WC_LOCAL_INV,          /**< Local invalidate. */
	IB_WC_FAST_REG_MR,        /**< Fast registration. */
	IB_WC_UNKNOWN2            /**< Unknown receive-side type. */
} ib_wc_type_t;

/**
 * Name of a work completion type.
 * @param wc_type the type.
 * @return a static string holding the enumerator's name, e.g.
 * "IB_WC_SEND"; "IB_WC_UNKNOWN" for IB_WC_UNKNOWN1, IB_WC_UNKNOWN2 and any
 * other value.
 */
AL_EXPORT const char *AL_API ib_get_wc_type_str(IN ib_wc_type_t wc_type);

/** Optional information of a receive completion: OR of IB_RECV_OPT_*. */
typedef uint32_t ib_recv_opt_t;
#define IB_RECV_OPT_IMMEDIATE  0x00000001 /**< immediate_data is valid. */
#define IB_RECV_OPT_FORWARD    0x00000002 /**< Forward the received trap to the SM. */
#define IB_RECV_OPT_GRH_VALID  0x00000004 /**< The first 40 bytes received are a GRH. */
#define IB_RECV_OPT_INVALIDATE 0x00000008 /**< immediate_data holds an invalidated R_Key. */
#define IB_RECV_OPT_VEND_MASK  0xFFFF0000 /**< Bits reserved to the provider. */
#define IB_RECV_OPT_CSUM_MASK  0x0000FF00 /**< Checksum offload result bits. */

/** A work completion. */
typedef struct _ib_wc {
	/** Next completion of a chain, NULL at the end. */
	TO_LONG_PTR(struct _ib_wc *, p_next);
	uint64_t wr_id;           /**< Identifier of the work request. */
	ib_wc_type_t wc_type;     /**< Type. */
	uint32_t length;          /**< Bytes sent or received. */
	uint64_t vendor_specific; /**< Provider-specific information. */
	ib_wc_status_t status;    /**< Result; on error only wr_id and status are valid. */
	/** Receive information, by QP type. */
	union _wc_recv {
		/** Connected QPs. */
		struct _wc_conn {
			ib_recv_opt_t recv_opt;    /**< Valid optional fields. */
			ib_net32_t immediate_data; /**< Immediate data. */
		} conn; /**< Connected QPs. */
		/** Unreliable datagram QPs. */
		struct _wc_ud {
			ib_recv_opt_t recv_opt;    /**< Valid optional fields. */
			ib_net32_t immediate_data; /**< Immediate data. */
			ib_net32_t remote_qp;      /**< Source QP number. */
			uint16_t pkey_index;       /**< P_Key index (GSI QPs). */
			ib_net16_t remote_lid;     /**< Source LID. */
			uint8_t remote_sl;         /**< Source SL. */
			uint8_t path_bits;         /**< Destination path bits. */
		} ud; /**< Unreliable datagram QPs. */
		/** Reliable datagram QPs. */
		struct _wc_rd {
			ib_net32_t remote_eecn; /**< Source EE context number. */
			ib_net32_t remote_qp;   /**< Source QP number. */
			ib_net16_t remote_lid;  /**< Source LID. */
			uint8_t remote_sl;      /**< Source SL. */
			uint32_t free_cnt;      /**< Free CQ entries. */
		} rd; /**< Reliable datagram QPs. */
		/** Raw IPv6 QPs. */
		struct _wc_raw_ipv6 {
			ib_net16_t remote_lid; /**< Source LID. */
			uint8_t remote_sl;     /**< Source SL. */
			uint8_t path_bits;     /**< Destination path bits. */
		} raw_ipv6; /**< Raw IPv6 QPs. */
		/** Raw Ethertype QPs. */
		struct _wc_raw_ether {
			ib_net16_t remote_lid; /**< Source LID. */
			uint8_t remote_sl;     /**< Source SL. */
			uint8_t path_bits;     /**< Destination path bits. */
			ib_net16_t ether_type; /**< Ethertype. */
		} raw_ether; /**< Raw Ethertype QPs. */
	} recv; /**< Receive information. */
} ib_wc_t;

/* ------------------------------------------------------------------------ */
/* Memory registration                                                      */
/* ------------------------------------------------------------------------ */

/** A virtual memory region to register. */
typedef struct _ib_mr_create {
	/** Start of the region. */
	TO_LONG_PTR(void *, vaddr);
	uint64_t length;         /**< Length in bytes. */
	ib_access_t access_ctrl; /**< Access rights. */
} ib_mr_create_t;

/** A physical memory range. */
typedef struct _ib_phys_range {
	uint64_t base_addr; /**< Physical base address (page aligned). */
	uint64_t size;      /**< Size in bytes. */
} ib_phys_range_t;

/** A physical memory region to register. */
typedef struct _ib_phys_create {
	uint64_t length;              /**< Length of the region in bytes. */
	uint32_t num_ranges;          /**< Entries of range_array. */
	ib_phys_range_t *range_array; /**< Ranges forming the region. */
	uint32_t buf_offset;          /**< Offset of the start in the first range. */
	uint32_t hca_page_size;       /**< HCA page size to use. */
	ib_access_t access_ctrl;      /**< Access rights. */
} ib_phys_create_t;

/** Attributes of a registered memory region. */
typedef struct _ib_mr_attr {
	/** Protection domain of the region. */
	TO_LONG_PTR(ib_pd_handle_t, h_pd);
	uint64_t local_lb;       /**< Lower bound of local access. */
	uint64_t local_ub;       /**< Upper bound of local access. */
	uint64_t remote_lb;      /**< Lower bound of remote access. */
	uint64_t remote_ub;      /**< Upper bound of remote access. */
	ib_access_t access_ctrl; /**< Access rights. */
	net32_t lkey;            /**< L_Key. */
	net32_t rkey;            /**< R_Key (valid with remote access). */
} ib_mr_attr_t;

/** Changes ib_modify_ca() makes to a port: OR of IB_CA_MOD_*. */
typedef uint32_t ib_ca_mod_t;
#define IB_CA_MOD_IS_CM_SUPPORTED                0x00000001 /**< Sets cap.cm. */
#define IB_CA_MOD_IS_SNMP_SUPPORTED              0x00000002 /**< Sets cap.snmp. */
#define IB_CA_MOD_IS_DEV_MGMT_SUPPORTED          0x00000004 /**< Sets cap.dev_mgmt. */
#define IB_CA_MOD_IS_VEND_SUPPORTED              0x00000008 /**< Sets cap.vend. */
#define IB_CA_MOD_IS_SM                          0x00000010 /**< Sets cap.sm. */
#define IB_CA_MOD_IS_SM_DISABLED                 0x00000020 /**< Sets cap.sm_disable. */
#define IB_CA_MOD_QKEY_CTR                       0x00000040 /**< Resets the Q_Key violation counter. */
#define IB_CA_MOD_PKEY_CTR                       0x00000080 /**< Resets the P_Key violation counter. */
#define IB_CA_MOD_IS_NOTICE_SUPPORTED            0x00000100 /**< Sets cap.notice. */
#define IB_CA_MOD_IS_TRAP_SUPPORTED              0x00000200 /**< Sets cap.trap. */
#define IB_CA_MOD_IS_APM_SUPPORTED               0x00000400 /**< Sets cap.apm. */
#define IB_CA_MOD_IS_SLMAP_SUPPORTED             0x00000800 /**< Sets cap.slmap. */
#define IB_CA_MOD_IS_PKEY_NVRAM_SUPPORTED        0x00001000 /**< Sets cap.pkey_nvram. */
#define IB_CA_MOD_IS_MKEY_NVRAM_SUPPORTED        0x00002000 /**< Sets cap.mkey_nvram. */
#define IB_CA_MOD_IS_SYSGUID_SUPPORTED           0x00004000 /**< Sets cap.sysguid. */
#define IB_CA_MOD_IS_DR_NOTICE_SUPPORTED         0x00008000 /**< Sets cap.dr_notice. */
#define IB_CA_MOD_IS_BOOT_MGMT_SUPPORTED         0x00010000 /**< Sets cap.boot_mgmt. */
#define IB_CA_MOD_IS_CAPM_NOTICE_SUPPORTED       0x00020000 /**< Sets cap.capm_notice. */
#define IB_CA_MOD_IS_REINIT_SUPORTED             0x00040000 /**< Sets cap.reinit (upstream's spelling). */
#define IB_CA_MOD_IS_LEDINFO_SUPPORTED           0x00080000 /**< Sets cap.ledinfo. */
#define IB_CA_MOD_SHUTDOWN_PORT                  0x00100000 /**< Sets cap.port_active. */
#define IB_CA_MOD_INIT_TYPE_VALUE                0x00200000 /**< Sets init_type. */
#define IB_CA_MOD_SYSTEM_IMAGE_GUID              0x00400000 /**< Sets system_image_guid. */
#define IB_CA_MOD_IS_CLIENT_REREGISTER_SUPPORTED 0x00800000 /**< Sets cap.client_reregister. */
#define IB_CA_MOD_RESERVED_MASK                  0xFF000000 /**< Reserved bits (IB_INVALID_PARAMETER). */

/** Attributes of a memory region that a modification changes: OR of IB_MR_MOD_*. */
typedef uint32_t ib_mr_mod_t;
#define IB_MR_MOD_ADDR   0x00000001 /**< The address range. */
#define IB_MR_MOD_PD     0x00000002 /**< The protection domain. */
#define IB_MR_MOD_ACCESS 0x00000004 /**< The access rights. */

/*
 * Attribute modifiers of SubnSet(SMInfo), network order. OFED for Windows
 * and OpenSM define them here, between the verbs types; IB_SMINFO_STATE_INIT,
 * defined next to them upstream, is in ib_types_base.h.
 */
#define IB_SMINFO_ATTR_MOD_HANDOVER    (CL_HTON32(0x000001)) /**< SubnSet(SMInfo): HandOver. */
#define IB_SMINFO_ATTR_MOD_ACKNOWLEDGE (CL_HTON32(0x000002)) /**< SubnSet(SMInfo): Acknowledge. */
#define IB_SMINFO_ATTR_MOD_DISABLE     (CL_HTON32(0x000003)) /**< SubnSet(SMInfo): Disable. */
#define IB_SMINFO_ATTR_MOD_STANDBY     (CL_HTON32(0x000004)) /**< SubnSet(SMInfo): Standby. */
#define IB_SMINFO_ATTR_MOD_DISCOVER    (CL_HTON32(0x000005)) /**< SubnSet(SMInfo): Discover. */

/** Vendor-specific request to a verbs provider. */
typedef struct _ib_ci_op {
	IN uint32_t command;        /**< Command the provider understands. */
	IN uint32_t buf_size;       /**< Size of p_buf in bytes. */
	IN uint32_t buf_info;       /**< Additional buffer information. */
	IN OUT int32_t status;      /**< Provider status; initialize it to an error. */
	/** Vendor data; pointers inside it do not survive a kernel transition. */
	IN OUT TO_LONG_PTR(void *, p_buf) OPTIONAL;
	OUT uint32_t num_bytes_ret; /**< Bytes the provider returned in p_buf. */
} ib_ci_op_t;

/* ------------------------------------------------------------------------ */
/* IP addressing CM (RDMA CM) private data                                  */
/* ------------------------------------------------------------------------ */

/**
 * Service ID prefix of the RDMA IP CM service (bytes 00 00 00 00 01), as the
 * integer value a network-order service ID has on a little-endian host. Use
 * ib_cm_is_rdma_cm_sid(), which works on any host.
 */
#define IB_REQ_CM_RDMA_SID_PREFIX      0x0000000100000000ULL
/** Bits compared with IB_REQ_CM_RDMA_SID_PREFIX (little-endian hosts). */
#define IB_REQ_CM_RDMA_SID_PREFIX_MASK 0x000000FFFFFFFFFFULL
#define IB_REQ_CM_RDMA_PDATA_SIZE      56 /**< Consumer private data bytes of ib_cm_rdma_req_t. */
#define IB_REQ_CM_RDMA_MAJOR_VERSION   0  /**< Major version of the private data format. */
#define IB_REQ_CM_RDMA_MINOR_VERSION   0  /**< Minor version of the private data format. */
/** Version byte of the private data format: major in bits 7..4, minor in 3..0. */
#define IB_REQ_CM_RDMA_VERSION \
	((IB_REQ_CM_RDMA_MAJOR_VERSION << 4) | IB_REQ_CM_RDMA_MINOR_VERSION)
#define IB_REQ_CM_RDMA_IPV4 0x40 /**< ipv byte: IPv4 (version in bits 7..4). */
#define IB_REQ_CM_RDMA_IPV6 0x60 /**< ipv byte: IPv6 (version in bits 7..4). */

#define IB_REQ_CM_RDMA_CMP_SRC_PORT 0x01 /**< Compare the source port. */
#define IB_REQ_CM_RDMA_CMP_SRC_IP   0x02 /**< Compare the source IP address. */
#define IB_REQ_CM_RDMA_CMP_DST_IP   0x04 /**< Compare the destination IP address. */

/**
 * Tells whether a service ID belongs to the RDMA IP CM service
 * (0x0000000001PPXXXX, PP the protocol, XXXX the port).
 * @param sid service ID, network order.
 * @return TRUE if it does, FALSE otherwise.
 */
static inline boolean_t ib_cm_is_rdma_cm_sid(uint64_t sid)
{
	return (cl_ntoh64(sid) >> 24) == 1;
}

/**
 * Builds an RDMA IP CM service ID.
 * @param protocol IP protocol (e.g. 6 for TCP).
 * @param port port number, network order.
 * @return the service ID, network order.
 */
static inline net64_t ib_cm_rdma_cm_sid(uint8_t protocol, net16_t port)
{
	return cl_hton64(((uint64_t)1 << 24) | ((uint64_t)protocol << 16) | cl_ntoh16(port));
}

/*
 * cl_packon.h / cl_packoff.h change the packing state on purpose; clang
 * warns (-Wpragma-pack) about every such include.
 */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpragma-pack"
#endif
#include <complib/cl_packon.h>
/** Private data of a CM REQ to the RDMA IP CM service (92 bytes). */
typedef struct _ib_cm_rdma_req {
	uint8_t maj_min_ver;  /**< IB_REQ_CM_RDMA_VERSION. */
	uint8_t ipv;          /**< IP version in bits 7..4: IB_REQ_CM_RDMA_IPV4 or _IPV6. */
	net16_t src_port;     /**< Source port of the client, network order. */
	net32_t src_ip_addr[4]; /**< Source IP address (IPv4 in the last word). */
	net32_t dst_ip_addr[4]; /**< Destination IP address (IPv4 in the last word). */
	uint8_t pdata[IB_REQ_CM_RDMA_PDATA_SIZE]; /**< Consumer private data. */
} PACK_SUFFIX ib_cm_rdma_req_t;
#include <complib/cl_packoff.h>
#if defined(__clang__)
#pragma clang diagnostic pop
#endif

/**
 * Checks the version and IP version of RDMA IP CM private data.
 * @param p_rdma_req the private data.
 * @return TRUE if the version is IB_REQ_CM_RDMA_VERSION and the IP version
 * is 4 or 6, FALSE otherwise.
 */
static inline boolean_t ib_cm_is_rdma_cm_req_valid(ib_cm_rdma_req_t *p_rdma_req)
{
	return p_rdma_req->maj_min_ver == IB_REQ_CM_RDMA_VERSION &&
	       (p_rdma_req->ipv == IB_REQ_CM_RDMA_IPV4 || p_rdma_req->ipv == IB_REQ_CM_RDMA_IPV6);
}

/**
 * Builds an RDMA IP CM service ID (same as ib_cm_rdma_cm_sid()).
 * @param protocol IP protocol.
 * @param port port number, network order.
 * @return the service ID, network order.
 */
AL_INLINE net64_t AL_API ib_cm_rdma_sid(IN uint8_t protocol, IN net16_t port)
{
	return ib_cm_rdma_cm_sid(protocol, port);
}

/**
 * Port number of an RDMA IP CM service ID.
 * @param sid service ID, network order.
 * @return the port, network order.
 */
AL_INLINE net16_t AL_API ib_cm_rdma_sid_port(IN net64_t sid)
{
	return cl_hton16((uint16_t)cl_ntoh64(sid));
}

/**
 * IP protocol of an RDMA IP CM service ID.
 * @param sid service ID, network order.
 * @return the protocol.
 */
AL_INLINE uint8_t AL_API ib_cm_rdma_sid_protocol(IN net64_t sid)
{
	return (uint8_t)(cl_ntoh64(sid) >> 16);
}

#ifdef __cplusplus
}
#endif

#endif /* __IB_TYPES_VERBS_H__ */
