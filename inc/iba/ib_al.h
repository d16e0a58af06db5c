/*
 * ibal: the user-mode access-layer API of OFED for Windows (ib_al.h), for Linux.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file ib_al.h
 * @brief The InfiniBand access layer: the calls, callback types and request
 * and record structures through which an application uses InfiniBand
 * hardware and the fabric.
 *
 * The access layer gives transport-level access to an InfiniBand fabric. An
 * application opens an instance with ib_open_al() and, through that handle,
 * opens channel adapters (ib_open_ca()), allocates protection domains,
 * queue pairs, completion queues, shared receive queues, address vectors,
 * memory regions and windows, posts work and polls completions. On top of
 * the verbs it provides the services most users of a fabric need:
 * management datagrams with response matching, retries and RMPP
 * (ib_reg_mad_svc(), ib_send_mad()), subnet administration queries
 * (ib_query()), service registration (ib_reg_svc()), multicast membership
 * (ib_join_mcast()), event subscription (ib_subscribe()), the connection
 * manager (ib_cm_listen(), ib_cm_req(), ...), I/O controllers for device
 * management (ib_create_ioc()) and plug-and-play notification of adapters,
 * ports and I/O controllers (ib_reg_pnp()).
 *
 * This header is source-compatible with the `inc/iba/ib_al.h` of OFED for
 * Windows: names, parameter lists, structure fields and their order, and
 * constants are upstream's. The data types the access layer shares with the
 * verbs providers (`ib_api_status_t`, `ib_qp_create_t`, `ib_wc_t`, ...)
 * come from <iba/ib_types.h>, which this header includes.
 *
 * Most calls that start an exchange with the fabric or tear down an object
 * complete asynchronously through a callback; destroy-type calls accept
 * ib_sync_destroy as callback to wait for the destruction instead. Handles
 * are opaque pointers; `ib_cm_handle_t` is a small structure passed by
 * value.
 *
 * Thread safety: the calls may be made from any thread, and from within
 * access-layer callbacks, except those that wait for callbacks to return:
 * ib_close_al() must not be called from a callback, nor may an object be
 * destroyed with ib_sync_destroy from one of its own callbacks (or those of
 * its children). Some calls are meant to be made from a callback (ib_cm_apr()
 * from the LAP callback, ib_reject_ioc() from the PnP callback). The caller
 * serializes its own use of a request or record structure. The inline
 * helpers keep no state.
 */
#ifndef __IB_AL_H__
#define __IB_AL_H__

#include <iba/ib_types.h>
#include <complib/cl_waitobj.h>
#include <complib/cl_qlist.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Handles                                                                  */
/* ------------------------------------------------------------------------ */

typedef struct _ib_al *ib_al_handle_t;             /**< An open instance of the access layer. */
typedef struct _al_pnp *ib_pnp_handle_t;           /**< A PnP registration, or an IOC assignment event. */
typedef struct _al_reg_svc *ib_reg_svc_handle_t;   /**< A service registered with the SA. */
typedef struct _al_mad_send *ib_mad_send_handle_t; /**< An outstanding MAD send. */
typedef struct _al_mad_svc *ib_mad_svc_handle_t;   /**< A MAD service registered on a QP. */
typedef struct _al_query *ib_query_handle_t;       /**< An outstanding SA query. */
typedef struct _al_sub *ib_sub_handle_t;           /**< An event subscription. */
typedef struct _al_listen *ib_listen_handle_t;     /**< A connection listen. */
typedef struct _al_ioc *ib_ioc_handle_t;           /**< A local I/O controller. */
typedef struct _al_svc_entry *ib_svc_handle_t;     /**< A service entry of a local I/O controller. */
typedef struct _al_pool_key *ib_pool_key_t;        /**< A MAD pool registered with a protection domain. */
typedef struct _al_pool *ib_pool_handle_t;         /**< A pool of MAD elements. */
/** An element of a Mellanox FMR pool (the FMR calls exist only in the Windows kernel). */
typedef struct _mlnx_fmr_pool_element *mlnx_fmr_pool_el_t;

/**
 * Identifies one connection-manager exchange (a received REQ, REP, LAP or
 * DREQ) that the user answers. It is handed to the user by value in the CM
 * callback records and passed back by value to ib_cm_rep(), ib_cm_rtu(),
 * ib_cm_rej(), ib_cm_mra(), ib_cm_apr(), ib_cm_drep() and ib_cm_handoff().
 * Its contents are the access layer's.
 */
typedef struct _ib_cm_handle {
	ib_al_handle_t h_al; /**< Access-layer instance that owns the exchange. */
	ib_qp_handle_t h_qp; /**< Queue pair of the connection, if one is bound yet. */
	net32_t cid;         /**< Identifier of the connection endpoint. */
} ib_cm_handle_t;

/** Identifier of a memory region shared between processes (see ib_reg_shmid()). */
typedef uint8_t ib_shmid_t[64];

/** Service ID of the DAPL Address Translation Service, in network order. */
#define ATS_SERVICE_ID CL_NTOH64(CL_CONST64(0x10000CE100415453))
/** Service name of DAPL Address Translation Service records. */
#define ATS_NAME "DAPL Address Translation Service"
/** Offset of the IPv4 address in the service data of an ATS record. */
#define ATS_IPV4_OFFSET 12

/* ------------------------------------------------------------------------ */
/* MAD elements                                                             */
/* ------------------------------------------------------------------------ */

/**
 * A management datagram to send or that was received, with its addressing
 * and completion information.
 *
 * MADs are built and read in network byte order, in the layout the
 * InfiniBand specification defines. Elements come from a MAD pool
 * (ib_get_mad()) and go back to it with ib_put_mad(). A received element
 * may be reused as the response: with h_av NULL the access layer builds the
 * address from the receive fields (remote_lid, remote_sl, path_bits, p_grh,
 * remote_qp, pkey_index).
 */
typedef struct _ib_mad_element {
	/** Next element of a list; NULL ends the list. */
	TO_LONG_PTR(struct _ib_mad_element *, p_next);
	/** User context associated with the datagram. */
	TO_LONG_PTR(const void *, context1);
	/** Second user context associated with the datagram. */
	TO_LONG_PTR(const void *, context2);

	/** The MAD buffer (see ib_get_mad_buf()). */
	TO_LONG_PTR(ib_mad_t *, p_mad_buf);
	uint32_t size;            /**< Bytes of MAD in p_mad_buf. */
	/** Immediate data: sent with IB_SEND_OPT_IMMEDIATE, received with IB_RECV_OPT_IMMEDIATE. */
	uint32_t immediate_data;
	/** Destination QP of a send, or source QP of a received datagram. */
	ib_net32_t remote_qp;

	/**
	 * Address vector of the destination; NULL for a directed-route SMP or
	 * to have the access layer build it from the fields below.
	 */
	TO_LONG_PTR(ib_av_handle_t, h_av);
	/** Send options: IB_SEND_OPT_IMMEDIATE, IB_SEND_OPT_SOLICITED (IB_SEND_OPT_FENCE on MAD QPs only). */
	ib_send_opt_t send_opt;
	ib_net32_t remote_qkey;   /**< Q_Key of the destination QP. */
	/**
	 * The send expects a response: the access layer retries it until the
	 * response arrives or the retries run out, and completes the send
	 * before reporting the response.
	 */
	boolean_t resp_expected;
	uint32_t timeout_ms;      /**< Milliseconds to wait for a response before a retry (resp_expected only). */
	uint32_t retry_cnt;       /**< Retries before the request fails (resp_expected only). */
	/**
	 * RMPP version used to send this MAD. 0 disables RMPP for a
	 * user-defined class on an IB_MAD_SVC_DEFAULT service (well-known
	 * classes then get their default), or on an IB_MAD_SVC_RMPP service;
	 * when RMPP is not active the RMPP header, if present, must be zero.
	 */
	uint8_t rmpp_version;

	ib_wc_status_t status;    /**< Result of the work request. */
	boolean_t grh_valid;      /**< p_grh is valid. */
	/** Global route header of a received datagram, or to use for a send without h_av. */
	TO_LONG_PTR(ib_grh_t *, p_grh);

	/** Receive options of the completion (IB_RECV_OPT_*). */
	uint32_t recv_opt;
	ib_net16_t remote_lid;    /**< Source LID of a received datagram (or destination of a send without h_av). */
	uint8_t remote_sl;        /**< Service level of a received datagram (or of a send without h_av). */
	/** P_Key index, for IB_QPT_QP1 and IB_QPT_QP1_ALIAS: of the source on receive, to use on send. */
	uint16_t pkey_index;
	uint8_t path_bits;        /**< Source path bits of the remote LID. */

	/** For a received response: context1 of the matching send; NULL if unsolicited. */
	TO_LONG_PTR(void *, send_context1);
	/** For a received response: context2 of the matching send; NULL if unsolicited. */
	TO_LONG_PTR(void *, send_context2);
} ib_mad_element_t;

/**
 * Returns the MAD buffer of a MAD element.
 * @param p_mad_element the element (must not be NULL).
 * @return the element's p_mad_buf.
 */
AL_INLINE void *AL_API
ib_get_mad_buf(IN const ib_mad_element_t *const p_mad_element)
{
	CL_ASSERT(p_mad_element);
	return p_mad_element->p_mad_buf;
}

/* ------------------------------------------------------------------------ */
/* Common callbacks and flags                                               */
/* ------------------------------------------------------------------------ */

/**
 * Completion notification: a signaled completion was added to a completion
 * queue created with this callback (see ib_cq_create_t). Rearm the CQ with
 * ib_rearm_cq() or ib_rearm_n_cq() to be notified again.
 * @param h_cq the completion queue.
 * @param cq_context the context given to ib_create_cq().
 */
typedef void (AL_API *ib_pfn_comp_cb_t)(IN const ib_cq_handle_t h_cq, IN void *cq_context);

/** Flags directing how a request is processed: OR of IB_FLAGS_*. */
typedef uint32_t ib_al_flags_t;
/**
 * Process the request synchronously: the call blocks until the request
 * completes. Callbacks are still invoked (before the call returns).
 */
#define IB_FLAGS_SYNC 0x00000001

/**
 * Destruction notification: an object was destroyed, every callback
 * outstanding against it has returned and no more will come.
 * @param context the context of the destroyed object, as given at its
 * creation.
 */
typedef void (AL_API *ib_pfn_destroy_cb_t)(IN void *context);

/**
 * Special value for a pfn_destroy_cb parameter: destroy the object
 * synchronously. The call then blocks until callbacks outstanding against
 * the object have returned, and no destroy callback is invoked.
 */
static const ib_pfn_destroy_cb_t ib_sync_destroy = (ib_pfn_destroy_cb_t)(intptr_t)-1;

/** Description of an asynchronous event on a CA, QP, CQ or SRQ. */
typedef struct _ib_async_event_rec {
	ib_async_event_t code;    /**< What happened. */
	uint64_t vendor_specific; /**< Optional provider-specific information. */
	/** Context of the resource, as given at its creation. */
	TO_LONG_PTR(void *, context);
	/** Handle of one of the resource types; the event's code tells which. */
	union _handle_t {
		/** For a CA event. */
		TO_LONG_PTR(ib_ca_handle_t, h_ca);
		/** For a CQ event. */
		TO_LONG_PTR(ib_cq_handle_t, h_cq);
		/** For a QP event. */
		TO_LONG_PTR(ib_qp_handle_t, h_qp);
		/** For an SRQ event. */
		TO_LONG_PTR(struct _ib_srq *, h_srq);
	} handle; /**< The resource the event concerns (given because an event
		   *   may arrive before the call creating the resource returned). */
	uint8_t port_number;      /**< Port of a port event. */
} ib_async_event_rec_t;

/**
 * Asynchronous event notification for a CA, QP, CQ or SRQ.
 * @param p_event_rec the event; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_event_cb_t)(IN ib_async_event_rec_t *p_event_rec);

/* ------------------------------------------------------------------------ */
/* Channel adapters                                                         */
/* ------------------------------------------------------------------------ */

/**
 * Opens a channel adapter. An adapter must be open before resources are
 * allocated on it.
 * @param h_al an open access-layer instance.
 * @param ca_guid GUID of the adapter (see ib_get_ca_guids()).
 * @param pfn_ca_event_cb optional callback for asynchronous events on the
 * adapter.
 * @param ca_context context returned in the adapter's callbacks.
 * @param ph_ca receives the handle of the open adapter.
 * @return the status of the call.
 * @retval IB_SUCCESS the adapter is open.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_GUID no adapter has GUID ca_guid.
 * @retval IB_INVALID_PARAMETER ph_ca is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory to open the adapter.
 */
AL_EXPORT ib_api_status_t AL_API
ib_open_ca(IN const ib_al_handle_t h_al, IN const ib_net64_t ca_guid,
	   IN const ib_pfn_event_cb_t pfn_ca_event_cb OPTIONAL,
	   IN const void *const ca_context, OUT ib_ca_handle_t *const ph_ca);

/**
 * Copies the attributes of an open adapter, port attributes included.
 *
 * The attributes are variable-sized: call with p_ca_attr NULL to learn the
 * size needed in *p_size. The ib_ca_attr_t sits at the start of the buffer;
 * copy it with ib_copy_ca_attr().
 * @param h_ca an open adapter.
 * @param p_ca_attr buffer that receives the attributes, or NULL to query the
 * size.
 * @param p_size on input the size of the buffer; on output the bytes used or
 * needed.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were copied.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INSUFFICIENT_MEMORY the buffer is too small (or NULL); *p_size
 * holds the size needed.
 * @retval IB_INVALID_PARAMETER p_size is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_ca(IN const ib_ca_handle_t h_ca, OUT ib_ca_attr_t *const p_ca_attr OPTIONAL,
	    IN OUT uint32_t *const p_size);

/**
 * Copies the attributes of an adapter identified by GUID; the same as
 * ib_query_ca() without opening the adapter.
 * @param h_al an open access-layer instance.
 * @param ca_guid GUID of the adapter.
 * @param p_ca_attr buffer that receives the attributes, or NULL to query the
 * size.
 * @param p_size on input the size of the buffer; on output the bytes used or
 * needed.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were copied.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_GUID no adapter has GUID ca_guid.
 * @retval IB_INSUFFICIENT_MEMORY the buffer is too small (or NULL); *p_size
 * holds the size needed.
 * @retval IB_INVALID_PARAMETER p_size is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_ca_by_guid(IN const ib_al_handle_t h_al, IN const ib_net64_t ca_guid,
		    OUT ib_ca_attr_t *const p_ca_attr OPTIONAL, IN OUT uint32_t *const p_size);

/**
 * Modifies the attributes of a port (its PortInfo capabilities) and resets
 * its P_Key and Q_Key violation counters.
 * @param h_ca an open adapter.
 * @param port_num number of the port, as in the attributes from ib_query_ca().
 * @param ca_mod which attributes and counters to change: OR of IB_CA_MOD_*.
 * @param p_port_attr_mod the new values; only those selected by ca_mod are
 * used.
 * @return the status of the call.
 * @retval IB_SUCCESS the port was modified.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INVALID_PORT the adapter has no port port_num.
 * @retval IB_INVALID_PARAMETER ca_mod is invalid or p_port_attr_mod is NULL.
 * @retval IB_UNSUPPORTED the adapter lacks the optional violation counters
 * that ca_mod asks to reset.
 */
AL_EXPORT ib_api_status_t AL_API
ib_modify_ca(IN const ib_ca_handle_t h_ca, IN const uint8_t port_num,
	     IN const ib_ca_mod_t ca_mod, IN const ib_port_attr_mod_t *const p_port_attr_mod);

/**
 * Closes an open adapter and destroys every resource allocated on it
 * (protection domains, queue pairs, completion queues, ...).
 *
 * Destruction is asynchronous because callbacks may be running: the destroy
 * callback reports that no further callback will be invoked for the adapter
 * or its resources.
 * @param h_ca an open adapter.
 * @param pfn_destroy_cb optional callback invoked once the adapter is closed
 * (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the close was started.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INVALID_STATE ib_sync_destroy from a callback of the adapter or
 * of one of its resources (the wait could never end); nothing was closed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_close_ca(IN const ib_ca_handle_t h_ca, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Protection domains                                                       */
/* ------------------------------------------------------------------------ */

/**
 * Allocates a protection domain on an adapter.
 * @param h_ca an open adapter.
 * @param pd_type type of the domain (IB_PDT_ALIAS for QP0/QP1 aliases).
 * @param pd_context context returned in callbacks about the domain.
 * @param ph_pd receives the handle of the domain.
 * @return the status of the call.
 * @retval IB_SUCCESS the domain was allocated.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INVALID_PARAMETER pd_type is invalid or ph_pd is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_alloc_pd(IN const ib_ca_handle_t h_ca, IN const ib_pd_type_t pd_type,
	    IN const void *const pd_context, OUT ib_pd_handle_t *const ph_pd);

/**
 * Deallocates a protection domain and destroys every resource allocated on
 * it (queue pairs, memory regions, address vectors, ...). Asynchronous: the
 * destroy callback reports that no further callback will be invoked for the
 * domain's resources.
 * @param h_pd the domain.
 * @param pfn_destroy_cb optional callback invoked once the domain is
 * destroyed (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the deallocation was started.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_dealloc_pd(IN const ib_pd_handle_t h_pd, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Address vectors                                                          */
/* ------------------------------------------------------------------------ */

/**
 * Creates an address vector.
 * @param h_pd the protection domain of the vector.
 * @param p_av_attr attributes of the vector.
 * @param ph_av receives the handle of the vector.
 * @return the status of the call.
 * @retval IB_SUCCESS the vector was created.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_av_attr or ph_av is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_PORT the port number of p_av_attr is invalid for the
 * adapter.
 * @retval IB_INVALID_SETTING an attribute of p_av_attr is out of range for
 * the adapter (a zero DLID, a multicast DLID without a GRH, an SL above 15
 * or a static rate it does not know, source path bits beyond the port's
 * LMC).
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_av(IN const ib_pd_handle_t h_pd, IN const ib_av_attr_t *const p_av_attr,
	     OUT ib_av_handle_t *const ph_av);

/**
 * Creates an address vector, like ib_create_av(), with a 16-bit tag that
 * identifies the caller in diagnostics.
 * @param h_pd the protection domain of the vector.
 * @param p_av_attr attributes of the vector.
 * @param ctx caller tag for diagnostics; it does not change the vector.
 * @param ph_av receives the handle of the vector.
 * @return the status of the call.
 * @retval IB_SUCCESS the vector was created.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_av_attr or ph_av is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_PORT the port number of p_av_attr is invalid for the
 * adapter.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_av_ctx(IN const ib_pd_handle_t h_pd, IN const ib_av_attr_t *const p_av_attr,
		 IN uint16_t ctx, OUT ib_av_handle_t *const ph_av);

/**
 * Returns the attributes and the protection domain of an address vector.
 * @param h_av the vector.
 * @param p_av_attr receives the attributes.
 * @param ph_pd receives the protection domain of the vector.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were returned.
 * @retval IB_INVALID_AV_HANDLE h_av is invalid.
 * @retval IB_INVALID_PARAMETER p_av_attr or ph_pd is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_av(IN const ib_av_handle_t h_av, OUT ib_av_attr_t *const p_av_attr,
	    OUT ib_pd_handle_t *const ph_pd);

/**
 * Replaces the attributes of an address vector.
 * @param h_av the vector.
 * @param p_av_attr the new attributes.
 * @return the status of the call.
 * @retval IB_SUCCESS the vector was modified.
 * @retval IB_INVALID_AV_HANDLE h_av is invalid.
 * @retval IB_INVALID_PARAMETER p_av_attr is NULL.
 * @retval IB_INVALID_PORT the port number of p_av_attr is invalid for the
 * adapter.
 */
AL_EXPORT ib_api_status_t AL_API
ib_modify_av(IN const ib_av_handle_t h_av, IN const ib_av_attr_t *const p_av_attr);

/**
 * Destroys an address vector.
 * @param h_av the vector.
 * @return the status of the call.
 * @retval IB_SUCCESS the vector was destroyed.
 * @retval IB_INVALID_AV_HANDLE h_av is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_av(IN const ib_av_handle_t h_av);

/**
 * Destroys an address vector, like ib_destroy_av(), with a 16-bit caller
 * tag for diagnostics (see ib_create_av_ctx()).
 * @param h_av the vector.
 * @param ctx caller tag for diagnostics.
 * @return the status of the call.
 * @retval IB_SUCCESS the vector was destroyed.
 * @retval IB_INVALID_AV_HANDLE h_av is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_av_ctx(IN const ib_av_handle_t h_av, IN uint16_t ctx);

/* ------------------------------------------------------------------------ */
/* Shared receive queues                                                    */
/* ------------------------------------------------------------------------ */

/**
 * Creates a shared receive queue, usable by queue pairs of type
 * IB_QPT_RELIABLE_CONN, IB_QPT_UNRELIABLE_CONN and IB_QPT_UNRELIABLE_DGRM.
 * @param h_pd the protection domain of the queue.
 * @param p_srq_attr attributes of the queue (max_wr, max_sge, srq_limit).
 * @param srq_context context returned in the queue's event callbacks.
 * @param pfn_srq_event_cb optional callback for asynchronous events on the
 * queue.
 * @param ph_srq receives the handle of the queue.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue was created.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_srq_attr or ph_srq is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_INVALID_SETTING the attributes are invalid.
 * @retval IB_INVALID_MAX_WRS the adapter cannot support max_wr.
 * @retval IB_INVALID_MAX_SGE the adapter cannot support max_sge.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_srq(IN const ib_pd_handle_t h_pd, IN const ib_srq_attr_t *const p_srq_attr,
	      IN const void *const srq_context, IN const ib_pfn_event_cb_t pfn_srq_event_cb OPTIONAL,
	      OUT ib_srq_handle_t *const ph_srq);

/**
 * Returns the current attributes of a shared receive queue.
 * @param h_srq the queue.
 * @param p_srq_attr receives the attributes.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were returned.
 * @retval IB_INVALID_SRQ_HANDLE h_srq is invalid.
 * @retval IB_INVALID_PARAMETER p_srq_attr is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_srq(IN const ib_srq_handle_t h_srq, OUT ib_srq_attr_t *const p_srq_attr);

/**
 * Modifies a shared receive queue: resizes it or sets its limit.
 * @param h_srq the queue.
 * @param p_srq_attr the new attributes.
 * @param srq_attr_mask which attributes to change (IB_SRQ_MAX_WR,
 * IB_SRQ_LIMIT).
 * @return the status of the call.
 * @retval IB_SUCCESS the queue was modified.
 * @retval IB_INVALID_SRQ_HANDLE h_srq is invalid.
 * @retval IB_INVALID_PARAMETER p_srq_attr is NULL.
 * @retval IB_INVALID_SETTING the attributes are invalid.
 * @retval IB_UNSUPPORTED the change is not supported.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_modify_srq(IN const ib_srq_handle_t h_srq, IN const ib_srq_attr_t *const p_srq_attr,
	      IN const ib_srq_attr_mask_t srq_attr_mask);

/**
 * Destroys a shared receive queue. Asynchronous: the destroy callback
 * reports that no further callback will be invoked for the queue.
 * @param h_srq the queue.
 * @param pfn_destroy_cb optional callback invoked once the queue is destroyed
 * (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the destruction was started.
 * @retval IB_INVALID_SRQ_HANDLE h_srq is invalid.
 * @retval IB_RESOURCE_BUSY queue pairs are still attached to the queue.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_srq(IN const ib_srq_handle_t h_srq, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/**
 * Posts a list of receive work requests to a shared receive queue.
 * @param h_srq the queue.
 * @param p_recv_wr first work request of the list.
 * @param pp_recv_failure receives the first request that could not be
 * posted; may be NULL if a single request is posted.
 * @return the status of the call.
 * @retval IB_SUCCESS every request was posted.
 * @retval IB_INVALID_QP_HANDLE h_srq is invalid (upstream reports an
 * invalid SRQ handle with this code).
 * @retval IB_INVALID_PARAMETER p_recv_wr is NULL, or a list is posted
 * without pp_recv_failure.
 * @retval IB_INSUFFICIENT_RESOURCES the queue is full.
 * @retval IB_INVALID_WR_TYPE a work request type is invalid.
 * @retval IB_INVALID_QP_STATE the queue's state does not allow posting.
 */
AL_EXPORT ib_api_status_t AL_API
ib_post_srq_recv(IN const ib_srq_handle_t h_srq, IN ib_recv_wr_t *const p_recv_wr,
		 OUT ib_recv_wr_t **pp_recv_failure OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Queue pairs                                                              */
/* ------------------------------------------------------------------------ */

/**
 * Creates a queue pair of type IB_QPT_RELIABLE_CONN, IB_QPT_UNRELIABLE_CONN,
 * IB_QPT_UNRELIABLE_DGRM or IB_QPT_MAD.
 *
 * Connected QPs are then connected through the connection manager
 * (ib_cm_req(), ib_cm_rep(), ib_cm_rtu()); datagram and MAD QPs are put in
 * service with ib_init_dgrm_svc(). A QP attached to an SRQ should be moved
 * to the error state, and the IB_AE_SRQ_QP_LAST_WQE_REACHED event awaited,
 * before it is destroyed or reset; otherwise work requests may be lost.
 * The QP's attributes are not returned; use ib_query_qp().
 * @param h_pd the protection domain of the queue pair.
 * @param p_qp_create attributes of the queue pair. When the call fails with
 * IB_INVALID_SETTING, the limits that were too large are lowered to the
 * largest value allowed.
 * @param qp_context context returned in the queue pair's callbacks.
 * @param pfn_qp_event_cb optional callback for asynchronous events on the
 * queue pair.
 * @param ph_qp receives the handle of the queue pair.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue pair was created.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_qp_create or ph_qp is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_INVALID_CQ_HANDLE the send or receive CQ is invalid.
 * @retval IB_INVALID_SRQ_HANDLE the shared receive queue is invalid.
 * @retval IB_INVALID_SETTING the attributes are invalid.
 * @retval IB_UNSUPPORTED the adapter does not support the QP type.
 * @retval IB_INVALID_MAX_WRS the adapter cannot support the requested
 * queue depths.
 * @retval IB_INVALID_MAX_SGE the adapter cannot support the requested
 * number of scatter/gather elements.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_qp(IN const ib_pd_handle_t h_pd, IN OUT ib_qp_create_t *const p_qp_create,
	     IN const void *const qp_context, IN const ib_pfn_event_cb_t pfn_qp_event_cb OPTIONAL,
	     OUT ib_qp_handle_t *const ph_qp);

/**
 * Creates a special queue pair on a port: IB_QPT_QP0, IB_QPT_QP1,
 * IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHER, or an alias of QP0/QP1
 * (IB_QPT_QP0_ALIAS, IB_QPT_QP1_ALIAS) on which MADs can be sent as soon as
 * the call returns. The non-alias types are put in service with
 * ib_init_dgrm_svc().
 *
 * Aliases share the port's real QP0/QP1, which the access layer owns while
 * any alias of the port exists; they have no CQs (those in @p p_qp_create
 * are ignored), are in the RTS state from the start, accept MAD services
 * (ib_reg_mad_svc()) and refuse posts and ib_modify_qp() with
 * IB_UNSUPPORTED. A raw IB_QPT_QP0 or IB_QPT_QP1 is the adapter's special
 * QP itself, for its creator's exclusive use with its own CQs: it cannot
 * be created while aliases of the port exist, nor aliases while it exists
 * (IB_RESOURCE_BUSY).
 * @param h_pd the protection domain; an IB_PDT_ALIAS domain for aliases.
 * @param port_guid GUID of the port of the queue pair.
 * @param p_qp_create attributes of the queue pair; lowered to the allowed
 * maximums when the call fails with IB_INVALID_SETTING.
 * @param qp_context context returned in the queue pair's callbacks.
 * @param pfn_qp_event_cb optional callback for asynchronous events on the
 * queue pair.
 * @param p_pool_key for alias types, receives the key of the access layer's
 * MAD pool to get send MADs from (see ib_get_mad()); optional.
 * @param ph_qp receives the handle of the queue pair.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue pair was created.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PORT no port has GUID port_guid on the adapter.
 * @retval IB_INVALID_PARAMETER p_qp_create or ph_qp is NULL.
 * @retval IB_INVALID_PERMISSION the process may not create this QP type.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_INVALID_CQ_HANDLE the send or receive CQ is invalid.
 * @retval IB_INVALID_SETTING the QP type is not a special type.
 * @retval IB_UNSUPPORTED the adapter does not support the QP type
 * (IB_QPT_RAW_IPV6 and IB_QPT_RAW_ETHER always).
 * @retval IB_RESOURCE_BUSY the port's special QP is in use: by the access
 * layer's aliases (for a raw IB_QPT_QP0/IB_QPT_QP1), or by a raw special QP
 * (for an alias).
 * @retval IB_INVALID_MAX_WRS the adapter cannot support the requested
 * queue depths.
 * @retval IB_INVALID_MAX_SGE the adapter cannot support the requested
 * number of scatter/gather elements.
 */
AL_EXPORT ib_api_status_t AL_API
ib_get_spl_qp(IN const ib_pd_handle_t h_pd, IN const ib_net64_t port_guid,
	      IN OUT ib_qp_create_t *const p_qp_create, IN const void *const qp_context,
	      IN const ib_pfn_event_cb_t pfn_qp_event_cb OPTIONAL,
	      OUT ib_pool_key_t *const p_pool_key OPTIONAL, OUT ib_qp_handle_t *const ph_qp);

/**
 * Returns the current attributes of a queue pair.
 * @param h_qp the queue pair.
 * @param p_qp_attr receives the attributes.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were returned.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER p_qp_attr is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_qp(IN const ib_qp_handle_t h_qp, OUT ib_qp_attr_t *const p_qp_attr);

/**
 * Modifies the attributes of a queue pair and moves it to the requested
 * state (p_qp_mod->req_state).
 * @param h_qp the queue pair.
 * @param p_qp_mod the transition and the attributes to set.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue pair is in the requested state.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER p_qp_mod is NULL.
 * @retval IB_INVALID_SETTING the attributes are invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the modification is not supported.
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow the
 * transition.
 * @retval IB_INVALID_PKEY the P_Key is invalid.
 * @retval IB_INVALID_APM_STATE the path migration state is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_modify_qp(IN const ib_qp_handle_t h_qp, IN const ib_qp_mod_t *const p_qp_mod);

/**
 * Destroys a queue pair. Asynchronous: the destroy callback reports that no
 * further callback will be invoked for the queue pair.
 * @param h_qp the queue pair.
 * @param pfn_destroy_cb optional callback invoked once the queue pair is
 * destroyed (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the destruction was started.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_qp(IN const ib_qp_handle_t h_qp, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Completion queues                                                        */
/* ------------------------------------------------------------------------ */

/**
 * Attributes of a completion queue at creation. Exactly one of pfn_comp_cb
 * and h_wait_obj gives how the user is notified of signaled completions.
 */
typedef struct _ib_cq_create {
	/**
	 * Number of completions the queue must hold. On success it is set to
	 * the actual size, which may be larger.
	 */
	uint32_t size;
	/** Callback invoked for signaled completions; NULL when h_wait_obj is used. */
	ib_pfn_comp_cb_t pfn_comp_cb;
	/**
	 * Wait object signaled for signaled completions (user mode only);
	 * NULL when pfn_comp_cb is used. It must be ready before ib_create_cq().
	 */
	cl_waitobj_handle_t h_wait_obj;
} ib_cq_create_t;

/**
 * Creates a completion queue.
 * @param h_ca an open adapter.
 * @param p_cq_create attributes of the queue; size is updated to the actual
 * size.
 * @param cq_context context returned in the queue's completion and event
 * callbacks.
 * @param pfn_cq_event_cb optional callback for asynchronous events on the
 * queue.
 * @param ph_cq receives the handle of the queue.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue was created.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INVALID_PARAMETER p_cq_create or ph_cq is NULL, or h_wait_obj
 * is not a live wait object (cl_waitobj_create()).
 * @retval IB_INVALID_SETTING both or neither of pfn_comp_cb and h_wait_obj
 * were given.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_INVALID_CQ_SIZE the size exceeds the adapter's maximum.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_cq(IN const ib_ca_handle_t h_ca, IN OUT ib_cq_create_t *const p_cq_create,
	     IN const void *const cq_context, IN const ib_pfn_event_cb_t pfn_cq_event_cb OPTIONAL,
	     OUT ib_cq_handle_t *const ph_cq);

/**
 * Resizes a completion queue.
 * @param h_cq the queue.
 * @param p_size on input the requested size; on success the actual size,
 * which may be larger.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue was resized.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 * @retval IB_INVALID_PARAMETER p_size is NULL.
 * @retval IB_INVALID_CQ_SIZE the size exceeds the adapter's maximum.
 * @retval IB_OVERFLOW the queue holds more completions than the new size;
 * nothing was changed.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_modify_cq(IN const ib_cq_handle_t h_cq, IN OUT uint32_t *const p_size);

/**
 * Returns the size of a completion queue.
 * @param h_cq the queue.
 * @param p_size receives the actual size of the queue.
 * @return the status of the call.
 * @retval IB_SUCCESS the size was returned.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 * @retval IB_INVALID_PARAMETER p_size is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_cq(IN const ib_cq_handle_t h_cq, OUT uint32_t *const p_size);

/**
 * Destroys a completion queue. Asynchronous: the destroy callback reports
 * that no further callback will be invoked for the queue. The call fails
 * with IB_RESOURCE_BUSY while queue pairs still use the queue.
 * @param h_cq the queue.
 * @param pfn_destroy_cb optional callback invoked once the queue is destroyed
 * (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the destruction was started.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 * @retval IB_RESOURCE_BUSY queue pairs are still associated with the queue.
 * @retval IB_INVALID_STATE ib_sync_destroy from a callback of the queue (the
 * wait could never end); nothing was destroyed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_cq(IN const ib_cq_handle_t h_cq, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Memory regions                                                           */
/* ------------------------------------------------------------------------ */

/**
 * Registers a virtual memory region with an adapter. Memory must be
 * registered before a work request uses it.
 * @param h_pd the protection domain of the region.
 * @param p_mr_create the region (address, length) and its access rights.
 * @param p_lkey receives the local key of the region.
 * @param p_rkey receives the remote key, for RDMA and atomic operations of
 * remote peers.
 * @param ph_mr receives the handle of the region.
 * @return the status of the call.
 * @retval IB_SUCCESS the region was registered.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_mr_create, p_lkey, p_rkey or ph_mr is NULL,
 * the length is 0, or the range is not memory mapped in the process.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_mem(IN const ib_pd_handle_t h_pd, IN const ib_mr_create_t *const p_mr_create,
	   OUT net32_t *const p_lkey, OUT net32_t *const p_rkey, OUT ib_mr_handle_t *const ph_mr);

/**
 * Registers a list of physical pages as one virtually contiguous region.
 * @param h_pd the protection domain of the region.
 * @param p_phys_create the physical ranges and the access rights.
 * @param p_vaddr on input the requested virtual address of the start of the
 * region; on output the address assigned.
 * @param p_lkey receives the local key of the region.
 * @param p_rkey receives the remote key of the region.
 * @param ph_mr receives the handle of the region.
 * @return the status of the call.
 * @retval IB_SUCCESS the region was registered.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_phys_create, p_vaddr, p_lkey, p_rkey or
 * ph_mr is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_phys(IN const ib_pd_handle_t h_pd, IN const ib_phys_create_t *const p_phys_create,
	    IN OUT uint64_t *const p_vaddr, OUT net32_t *const p_lkey, OUT net32_t *const p_rkey,
	    OUT ib_mr_handle_t *const ph_mr);

/**
 * Returns the attributes of a registered memory region.
 * @param h_mr the region.
 * @param p_mr_attr receives the attributes.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were returned.
 * @retval IB_INVALID_MR_HANDLE h_mr is invalid.
 * @retval IB_INVALID_PARAMETER p_mr_attr is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_mr(IN const ib_mr_handle_t h_mr, OUT ib_mr_attr_t *const p_mr_attr);

/**
 * Changes a registered region (its range, access rights or protection
 * domain); equivalent to ib_dereg_mr() followed by ib_reg_mem(), possibly
 * faster. The region may have been registered virtually or physically.
 * @param h_mr the region.
 * @param mr_mod_mask what to change: OR of IB_MR_MOD_ADDR, IB_MR_MOD_PD and
 * IB_MR_MOD_ACCESS.
 * @param p_mr_create the new range and access rights; may be NULL if only
 * the protection domain changes.
 * @param p_lkey receives the new local key.
 * @param p_rkey receives the new remote key.
 * @param h_pd the new protection domain (with IB_MR_MOD_PD).
 * @return the status of the call.
 * @retval IB_SUCCESS the region was changed.
 * @retval IB_INVALID_MR_HANDLE h_mr is invalid.
 * @retval IB_INVALID_PARAMETER p_lkey or p_rkey is NULL, or mr_mod_mask is
 * invalid.
 * @retval IB_INVALID_SETTING the attributes are invalid.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 * @retval IB_RESOURCE_BUSY memory windows are bound to the region.
 */
AL_EXPORT ib_api_status_t AL_API
ib_rereg_mem(IN const ib_mr_handle_t h_mr, IN const ib_mr_mod_t mr_mod_mask,
	     IN const ib_mr_create_t *const p_mr_create OPTIONAL, OUT net32_t *const p_lkey,
	     OUT net32_t *const p_rkey, IN const ib_pd_handle_t h_pd OPTIONAL);

/**
 * Changes a registered region with a physical description; equivalent to
 * ib_dereg_mr() followed by ib_reg_phys(), possibly faster.
 * @param h_mr the region.
 * @param mr_mod_mask what to change: OR of IB_MR_MOD_ADDR, IB_MR_MOD_PD and
 * IB_MR_MOD_ACCESS.
 * @param p_phys_create the new physical ranges and access rights; may be
 * NULL if only the protection domain changes.
 * @param p_vaddr on input the requested virtual address of the start of the
 * region; on output the address assigned.
 * @param p_lkey receives the new local key.
 * @param p_rkey receives the new remote key.
 * @param h_pd the new protection domain (with IB_MR_MOD_PD).
 * @return the status of the call.
 * @retval IB_SUCCESS the region was changed.
 * @retval IB_INVALID_MR_HANDLE h_mr is invalid.
 * @retval IB_INVALID_PARAMETER p_vaddr, p_lkey or p_rkey is NULL, or
 * mr_mod_mask is invalid.
 * @retval IB_INVALID_SETTING the attributes are invalid.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 * @retval IB_RESOURCE_BUSY memory windows are bound to the region.
 */
AL_EXPORT ib_api_status_t AL_API
ib_rereg_phys(IN const ib_mr_handle_t h_mr, IN const ib_mr_mod_t mr_mod_mask,
	      IN const ib_phys_create_t *const p_phys_create OPTIONAL, IN OUT uint64_t *const p_vaddr,
	      OUT net32_t *const p_lkey, OUT net32_t *const p_rkey,
	      IN const ib_pd_handle_t h_pd OPTIONAL);

/**
 * Registers a new memory region over the physical pages of an existing
 * region.
 * @param h_mr the existing region.
 * @param h_pd the protection domain of the new region.
 * @param access_ctrl access rights of the new region.
 * @param p_vaddr on input the requested virtual address of the new region;
 * on output the address assigned (64 bits even on 32-bit systems).
 * @param p_lkey receives the local key of the new region.
 * @param p_rkey receives the remote key of the new region.
 * @param ph_mr receives the handle of the new region.
 * @return the status of the call.
 * @retval IB_SUCCESS the region was registered.
 * @retval IB_INVALID_MR_HANDLE h_mr is invalid.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_vaddr, p_lkey, p_rkey or ph_mr is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_shared(IN const ib_mr_handle_t h_mr, IN const ib_pd_handle_t h_pd,
	      IN const ib_access_t access_ctrl, IN OUT uint64_t *const p_vaddr,
	      OUT net32_t *const p_lkey, OUT net32_t *const p_rkey, OUT ib_mr_handle_t *const ph_mr);

/**
 * Registers a memory region shared between processes, identified by a
 * shared memory identifier; the processes share adapter resources as far as
 * possible.
 * @param h_pd the protection domain of the region.
 * @param shmid identifier of the shared region.
 * @param p_mr_create the range and access rights of the region.
 * @param p_vaddr receives the adapter-relative virtual address of the
 * region.
 * @param p_lkey receives the local key of the region.
 * @param p_rkey receives the remote key of the region.
 * @param ph_mr receives the handle of the region.
 * @return the status of the call.
 * @retval IB_SUCCESS the region was registered.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_mr_create, p_lkey, p_rkey or ph_mr is NULL.
 * @retval IB_INVALID_SETTING the length and pages of the region differ from
 * those of the region registered under shmid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_shmid(IN const ib_pd_handle_t h_pd, IN const ib_shmid_t shmid,
	     IN const ib_mr_create_t *const p_mr_create, OUT uint64_t *const p_vaddr,
	     OUT net32_t *const p_lkey, OUT net32_t *const p_rkey, OUT ib_mr_handle_t *const ph_mr);

/**
 * Deregisters a memory region. Work requests that still reference it fail
 * with a local protection error.
 * @param h_mr the region.
 * @return the status of the call.
 * @retval IB_SUCCESS the region was deregistered.
 * @retval IB_INVALID_MR_HANDLE h_mr is invalid.
 * @retval IB_RESOURCE_BUSY memory windows are bound to the region (regions
 * made from it with ib_reg_shared() do not count: they stay usable).
 */
AL_EXPORT ib_api_status_t AL_API
ib_dereg_mr(IN const ib_mr_handle_t h_mr);

/* ------------------------------------------------------------------------ */
/* Memory windows                                                           */
/* ------------------------------------------------------------------------ */

/**
 * Creates a memory window, not bound to any region, on a protection domain.
 * @param h_pd the protection domain.
 * @param p_rkey receives the current remote key of the window.
 * @param ph_mw receives the handle of the window.
 * @return the status of the call.
 * @retval IB_SUCCESS the window was created.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_rkey or ph_mw is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_mw(IN const ib_pd_handle_t h_pd, OUT net32_t *const p_rkey,
	     OUT ib_mw_handle_t *const ph_mw);

/**
 * Returns the protection domain and current remote key of a memory window.
 * @param h_mw the window.
 * @param ph_pd receives the protection domain of the window.
 * @param p_rkey receives the current remote key.
 * @return the status of the call.
 * @retval IB_SUCCESS the attributes were returned.
 * @retval IB_INVALID_MW_HANDLE h_mw is invalid.
 * @retval IB_INVALID_PARAMETER ph_pd or p_rkey is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query_mw(IN const ib_mw_handle_t h_mw, OUT ib_pd_handle_t *const ph_pd,
	    OUT net32_t *const p_rkey);

/**
 * Posts a request to bind a memory window to a range of a registered
 * region. The bind executes on h_qp; the window is then usable by every
 * queue pair of the protection domain.
 * @param h_mw the window.
 * @param h_qp the queue pair the bind is posted to.
 * @param p_mw_bind the bind request.
 * @param p_rkey receives the new remote key of the window.
 * @return the status of the call.
 * @retval IB_SUCCESS the bind was posted.
 * @retval IB_INVALID_MW_HANDLE h_mw is invalid.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER p_mw_bind or p_rkey is NULL.
 * @retval IB_INVALID_SERVICE_TYPE the queue pair does not support binds.
 * @retval IB_INVALID_MR_HANDLE the memory region of the request is invalid.
 * @retval IB_INVALID_RKEY the remote key is invalid for the region.
 * @retval IB_UNSUPPORTED the adapter does not support the access rights.
 * @retval IB_INVALID_PERMISSION the access rights are invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_bind_mw(IN const ib_mw_handle_t h_mw, IN const ib_qp_handle_t h_qp,
	   IN ib_bind_wr_t *const p_mw_bind, OUT net32_t *const p_rkey);

/**
 * Destroys a memory window; later accesses through it fail.
 * @param h_mw the window.
 * @return the status of the call.
 * @retval IB_SUCCESS the window was destroyed.
 * @retval IB_INVALID_MW_HANDLE h_mw is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_mw(IN const ib_mw_handle_t h_mw);

/* ------------------------------------------------------------------------ */
/* Work requests and completions                                            */
/* ------------------------------------------------------------------------ */

/**
 * Posts a list of work requests to the send queue of a queue pair.
 * @param h_qp the queue pair.
 * @param p_send_wr first work request of the list.
 * @param pp_send_failure receives the first request that could not be
 * posted; may be NULL if a single request is posted.
 * @return the status of the call.
 * @retval IB_SUCCESS every request was posted.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER p_send_wr is NULL, or an IB_SEND_OPT_INLINE
 * request carries more bytes than the queue pair's sq_max_inline.
 * @retval IB_INVALID_AV_HANDLE a datagram request's h_av is invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the send queue is full (a provider's
 * queue may hold more than the depth it reported; see docs/verbs-provider.md).
 * @retval IB_INVALID_WR_TYPE a work request type is invalid.
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow sends.
 * @retval IB_INVALID_MAX_SGE a request has more scatter/gather elements than
 * the queue pair allows.
 * @retval IB_UNSUPPORTED the adapter does not support the operation.
 */
AL_EXPORT ib_api_status_t AL_API
ib_post_send(IN const ib_qp_handle_t h_qp, IN ib_send_wr_t *const p_send_wr,
	     OUT ib_send_wr_t **pp_send_failure OPTIONAL);

/**
 * Posts a list of work requests to the receive queue of a queue pair.
 * @param h_qp the queue pair.
 * @param p_recv_wr first work request of the list.
 * @param pp_recv_failure receives the first request that could not be
 * posted; may be NULL if a single request is posted.
 * @return the status of the call.
 * @retval IB_SUCCESS every request was posted.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER p_recv_wr is NULL, or the queue pair
 * receives through a shared receive queue (post there, ib_post_srq_recv()).
 * @retval IB_INSUFFICIENT_RESOURCES the receive queue is full.
 * @retval IB_INVALID_WR_TYPE a work request type is invalid.
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow
 * receives.
 * @retval IB_INVALID_MAX_SGE a request has more scatter/gather elements than
 * the queue pair allows.
 */
AL_EXPORT ib_api_status_t AL_API
ib_post_recv(IN const ib_qp_handle_t h_qp, IN ib_recv_wr_t *const p_recv_wr,
	     OUT ib_recv_wr_t **pp_recv_failure OPTIONAL);

/**
 * Sends a list of MADs on a MAD service. The elements belong to the access
 * layer until their send completes (ib_pfn_mad_comp_cb_t).
 *
 * To keep transaction IDs of different clients apart, the access layer owns
 * the upper 32 bits of the TID of requests: it sets them to a client
 * identifier. Responses (R bit set) keep their TID.
 * @param h_mad_svc the MAD service.
 * @param p_mad_element_list first element of the list.
 * @param pp_mad_failure receives the first element that could not be sent;
 * may be NULL if a single MAD is sent.
 * @return the status of the call.
 * A send that expects a response completes with IB_WCS_SUCCESS once the
 * response came (which is then reported to the receive callback, with
 * send_context1/2 set), with IB_WCS_TIMEOUT_RETRY_ERR when timeout_ms
 * passed after the send and each of its retry_cnt retries, with
 * IB_WCS_CANCELED after ib_cancel_mad() or when the service ends, and with
 * IB_WCS_REM_ABORT_ERR when the RMPP peer stopped or aborted the transfer.
 * Elements are checked one by one: those before the first bad one are sent.
 * @retval IB_SUCCESS every MAD was posted.
 * @retval IB_INVALID_HANDLE h_mad_svc is invalid.
 * @retval IB_INVALID_PARAMETER p_mad_element_list is NULL; the list has
 * several elements and pp_mad_failure is NULL; or an element is not one
 * taken from a pool, is already being sent, or is shorter than a MAD
 * header.
 * @retval IB_INVALID_AV_HANDLE an element's h_av is invalid.
 * @retval IB_INSUFFICIENT_RESOURCES resources ran out.
 * @retval IB_INVALID_SETTING the RMPP version of an element is not
 * supported, or an element larger than 256 bytes is not sent with RMPP.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_send_mad(IN const ib_mad_svc_handle_t h_mad_svc, IN ib_mad_element_t *const p_mad_element_list,
	    OUT ib_mad_element_t **pp_mad_failure OPTIONAL);

/**
 * Cancels a MAD send in progress. If found, the send completes through the
 * MAD service's send callback with status IB_WCS_CANCELED.
 * @param h_mad_svc the MAD service the MAD was sent on.
 * @param p_mad_element the element that was sent.
 * @return the status of the call.
 * @retval IB_SUCCESS the send was found and canceled.
 * @retval IB_INVALID_HANDLE h_mad_svc is invalid.
 * @retval IB_INVALID_PARAMETER p_mad_element is NULL.
 * @retval IB_NOT_FOUND the send was not found or has already completed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cancel_mad(IN const ib_mad_svc_handle_t h_mad_svc, IN ib_mad_element_t *const p_mad_element);

/**
 * Returns the number of completions currently on a completion queue (a
 * snapshot). Support is optional for adapters.
 * @param h_cq the queue.
 * @param p_n_cqes receives the number of completions.
 * @return the status of the call.
 * @retval IB_SUCCESS the count was returned.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 * @retval IB_INVALID_PARAMETER p_n_cqes is NULL.
 * @retval IB_UNSUPPORTED the adapter does not support the operation.
 */
AL_EXPORT ib_api_status_t AL_API
ib_peek_cq(IN const ib_cq_handle_t h_cq, OUT uint32_t *const p_n_cqes);

/**
 * Retrieves completions from a completion queue, at most as many as there
 * are work completion structures on the free list.
 * @param h_cq the queue.
 * @param pp_free_wclist on input a list (linked through p_next) of work
 * completion structures to fill; on output the structures that were not
 * used. An empty free list on return means more completions may be waiting.
 * @param pp_done_wclist receives the list of completions retrieved.
 * @return the status of the call.
 * @retval IB_SUCCESS completions were retrieved.
 * @retval IB_INVALID_PARAMETER pp_free_wclist or pp_done_wclist is NULL.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 * @retval IB_NOT_FOUND the queue had no completion (*pp_done_wclist is then
 * NULL and the free list untouched).
 */
AL_EXPORT ib_api_status_t AL_API
ib_poll_cq(IN const ib_cq_handle_t h_cq, IN OUT ib_wc_t **const pp_free_wclist,
	   OUT ib_wc_t **const pp_done_wclist);

/**
 * Asks for a notification (completion callback or wait object) when the
 * next completion, or the next solicited completion, is added to the queue.
 * @param h_cq the queue.
 * @param solicited TRUE to be notified of the next solicited completion
 * only, FALSE for the next completion of any kind.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue is armed.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_rearm_cq(IN const ib_cq_handle_t h_cq, IN const boolean_t solicited);

/**
 * Asks for a notification once n_cqes completions of any kind have been
 * added to the queue; completions already present do not count. Support is
 * optional for adapters.
 * @param h_cq the queue.
 * @param n_cqes number of completions, from 1 to the size of the queue.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue is armed.
 * @retval IB_INVALID_CQ_HANDLE h_cq is invalid.
 * @retval IB_INVALID_PARAMETER n_cqes is out of range.
 * @retval IB_UNSUPPORTED the adapter does not support the operation.
 */
AL_EXPORT ib_api_status_t AL_API
ib_rearm_n_cq(IN const ib_cq_handle_t h_cq, IN const uint32_t n_cqes);

/* ------------------------------------------------------------------------ */
/* Multicast                                                                */
/* ------------------------------------------------------------------------ */

/** Result of a multicast join, given to ib_pfn_mcast_cb_t. */
typedef struct _ib_mcast_rec {
	/** mcast_context of the join request. */
	TO_LONG_PTR(const void *, mcast_context);
	ib_api_status_t status;  /**< Result of the join. */
	/** Status the SA returned; valid when status is IB_REMOTE_ERROR. */
	ib_net16_t error_status;
	/** Handle of the membership, used to leave the group (on success). */
	TO_LONG_PTR(ib_mcast_handle_t, h_mcast);
	/** MCMemberRecord describing the group. */
	TO_LONG_PTR(ib_member_rec_t *, p_member_rec);
} ib_mcast_rec_t;

/**
 * Reports the result of a multicast join.
 * @param p_mcast_rec the result; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_mcast_cb_t)(IN ib_mcast_rec_t *p_mcast_rec);

/** Request to join, or create and join, a multicast group. */
typedef struct _ib_mcast_req {
	boolean_t create;            /**< Create the group if it does not exist. */
	/**
	 * Membership to request. mgid and the join state (scope_state) must be
	 * set; to create a group also qkey, tclass, sl_flow_hop and pkey. The
	 * other fields are ignored.
	 */
	ib_member_rec_t member_rec;
	const void *mcast_context;   /**< Context returned in pfn_mcast_cb. */
	ib_pfn_mcast_cb_t pfn_mcast_cb; /**< Callback invoked with the result. */
	uint32_t timeout_ms;         /**< Milliseconds to wait for the SA before a retry. */
	uint32_t retry_cnt;          /**< Retries before the request fails. */
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the request synchronously. */
	ib_net64_t port_guid;        /**< Port that joins; the QP is bound to it. */
	uint16_t pkey_index;         /**< P_Key index of the queue pair. */
} ib_mcast_req_t;

/**
 * Joins a multicast group (creating it if requested) and attaches an
 * unreliable datagram queue pair to it. The result comes through
 * p_mcast_req->pfn_mcast_cb. A QP is bound to one port and one P_Key: a
 * join with a conflicting port or P_Key fails.
 *
 * The access layer sends the SA a Set(MCMemberRecord) through port_guid
 * with the component mask MGID, PortGID (the port's GID, filled in) and
 * JoinState, plus Q_Key, TClass, P_Key, SL, FlowLabel and HopLimit when
 * create is set. Once the SA has answered, the QP is attached to the
 * group's MGID and MLID (the QP must have left the RESET state), then the
 * callback gets the group's record: status IB_SUCCESS and the membership
 * handle; the SA's error (IB_REMOTE_ERROR with error_status), IB_TIMEOUT
 * after timeout_ms (0: 1000 ms) and retry_cnt retries, or the status of the
 * attachment (the membership is then removed from the SA again) otherwise.
 * A failed join ends its handle after the callback. The membership is a
 * child of the QP: destroying the QP (or closing its instance) leaves the
 * group. Callbacks come from access-layer threads; with IB_FLAGS_SYNC the
 * callback runs in the caller's thread before the call returns.
 * @param h_qp the unreliable datagram queue pair.
 * @param p_mcast_req the group and membership to request.
 * @param p_h_mcast receives the handle of the membership (before the
 * callback can run).
 * @return the status of the call.
 * @retval IB_SUCCESS the join was started (or, with IB_FLAGS_SYNC, is
 * over and its callback has returned).
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER p_mcast_req, p_h_mcast or pfn_mcast_cb is
 * NULL, or the join state (low bits of member_rec.scope_state) is 0.
 * @retval IB_INVALID_SETTING IB_FLAGS_SYNC from an access-layer callback,
 * where the wait could never end.
 * @retval IB_INVALID_SERVICE_TYPE the queue pair does not support multicast.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_GUID no port has GUID port_guid.
 * @retval IB_INSUFFICIENT_RESOURCES resources ran out.
 * @retval IB_INVALID_PKEY the P_Key of the request differs from the queue
 * pair's.
 * @retval IB_INVALID_PORT the port of the request differs from the queue
 * pair's.
 * @retval IB_ERROR the join failed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_join_mcast(IN const ib_qp_handle_t h_qp, IN const ib_mcast_req_t *const p_mcast_req,
	      OUT ib_mcast_handle_t *p_h_mcast);

/**
 * Joins a multicast group (creating it if requested) without attaching a
 * queue pair: only the SA membership is requested. The result comes through
 * p_mcast_req->pfn_mcast_cb, as for ib_join_mcast(). The membership belongs
 * to no access-layer instance: it lasts until ib_leave_mcast().
 * @param p_mcast_req the group, membership and port to use.
 * @param p_h_mcast receives the handle of the membership.
 * @return the status of the call.
 * @retval IB_SUCCESS the join was started.
 * @retval IB_INVALID_QP_HANDLE documented by upstream with ib_join_mcast().
 * @retval IB_INVALID_PARAMETER p_mcast_req, p_h_mcast or pfn_mcast_cb is
 * NULL, or the join state is 0.
 * @retval IB_INVALID_SETTING IB_FLAGS_SYNC from an access-layer callback.
 * @retval IB_INVALID_SERVICE_TYPE documented by upstream with
 * ib_join_mcast().
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_GUID no port has GUID port_guid.
 * @retval IB_INSUFFICIENT_RESOURCES resources ran out.
 * @retval IB_INVALID_PKEY the P_Key of the request is invalid.
 * @retval IB_INVALID_PORT the port of the request is invalid.
 * @retval IB_ERROR the join failed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_join_mcast_no_qp(IN const ib_mcast_req_t *const p_mcast_req, OUT ib_mcast_handle_t *p_h_mcast);

/**
 * Leaves a multicast group: detaches the queue pair and removes the
 * membership from the SA (Delete(MCMemberRecord) with the joined state).
 * Asynchronous. A join still in progress is canceled: its callback says
 * IB_CANCELED (and a membership the SA granted meanwhile is deleted).
 * @param h_mcast the membership.
 * @param pfn_destroy_cb optional callback invoked once the leave completed,
 * that is once the SA answered the Delete() or it timed out (or
 * ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the leave was started.
 * @retval IB_INVALID_MCAST_HANDLE h_mcast is invalid.
 * @retval IB_ERROR the leave failed.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_leave_mcast(IN const ib_mcast_handle_t h_mcast, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/**
 * Has the adapter process a MAD locally, as its own management agents
 * would (for example to answer an SMP without going through the fabric).
 * This lets SMA and GSA implementations run above the verbs on ports the
 * access layer does not manage.
 * @param h_ca the adapter; for a received MAD, the adapter it arrived on.
 * @param port_num the port the MAD is directed to.
 * @param p_mad_in the MAD to process (256 bytes).
 * @param p_mad_out receives the response MAD (256 bytes), to be used when
 * sending a response.
 * @return the status of the call.
 * @retval IB_SUCCESS the MAD was processed.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INVALID_PORT port_num is invalid.
 * @retval IB_INVALID_PARAMETER p_mad_in or p_mad_out is NULL.
 * @retval IB_UNSUPPORTED the adapter does not process MADs locally.
 */
AL_EXPORT ib_api_status_t AL_API
ib_local_mad(IN const ib_ca_handle_t h_ca, IN const uint8_t port_num,
	     IN const void *const p_mad_in, OUT void *p_mad_out);

/* ------------------------------------------------------------------------ */
/* Connection manager: private data                                         */
/* ------------------------------------------------------------------------ */

/** Private data of a REQ (the sizes are the IB_*_PDATA_SIZE of <iba/ib_types.h>). */
typedef union _ib_req_pdata {
	uint8_t data[IB_REQ_PDATA_SIZE]; /**< The bytes. */
} ib_req_pdata_t;

/** Private data of a REP. */
typedef union _ib_rep_pdata {
	uint8_t data[IB_REP_PDATA_SIZE]; /**< The bytes. */
} ib_rep_pdata_t;

/** Private data of an RTU. */
typedef union _ib_rtu_pdata {
	uint8_t data[IB_RTU_PDATA_SIZE]; /**< The bytes. */
} ib_rtu_pdata_t;

/** Private data of a REJ. */
typedef union _ib_rej_pdata {
	uint8_t data[IB_REJ_PDATA_SIZE]; /**< The bytes. */
} ib_rej_pdata_t;

/** Private data of an MRA. */
typedef union _ib_mra_pdata {
	uint8_t data[IB_MRA_PDATA_SIZE]; /**< The bytes. */
} ib_mra_pdata_t;

/** Private data of a LAP. */
typedef union _ib_lap_pdata {
	uint8_t data[IB_LAP_PDATA_SIZE]; /**< The bytes. */
} ib_lap_pdata_t;

/** Private data of an APR. */
typedef union _ib_apr_pdata {
	uint8_t data[IB_APR_PDATA_SIZE]; /**< The bytes. */
} ib_apr_pdata_t;

/** Private data of a DREQ. */
typedef union _ib_dreq_pdata {
	uint8_t data[IB_DREQ_PDATA_SIZE]; /**< The bytes. */
} ib_dreq_pdata_t;

/** Private data of a DREP. */
typedef union _ib_drep_pdata {
	uint8_t data[IB_DREP_PDATA_SIZE]; /**< The bytes. */
} ib_drep_pdata_t;

/** Private data of a SIDR REQ. */
typedef union _ib_sidr_req_pdata {
	uint8_t data[IB_SIDR_REQ_PDATA_SIZE]; /**< The bytes. */
} ib_sidr_req_pdata_t;

/** Private data of a SIDR REP. */
typedef union _ib_sidr_rep_pdata {
	uint8_t data[IB_SIDR_REP_PDATA_SIZE]; /**< The bytes. */
} ib_sidr_rep_pdata_t;

/** Additional rejection information of a REJ, as the specification defines it per reason. */
typedef struct _ib_ari {
	uint8_t data[IB_ARI_SIZE]; /**< The bytes. */
} ib_ari_t;

/** Additional information of an APR, as the specification defines it per status. */
typedef struct _ib_apr_info {
	uint8_t data[IB_APR_INFO_SIZE]; /**< The bytes. */
} ib_apr_info_t;

/* ------------------------------------------------------------------------ */
/* Connection manager: records given to the callbacks                       */
/* ------------------------------------------------------------------------ */

/** A received connection request (REQ or SIDR REQ), given to ib_pfn_cm_req_cb_t. */
typedef struct _ib_cm_req_rec {
	/**
	 * For a peer-to-peer request, the context of the queue pair of the
	 * local ib_cm_req(); for a listen, the listen_context of ib_cm_listen().
	 */
	const void *context;
	/** The request, to answer with ib_cm_rep(), ib_cm_rej() or ib_cm_mra(). */
	ib_cm_handle_t h_cm_req;
	/**
	 * The listen that matched, given here because the request may arrive
	 * before ib_cm_listen() returns.
	 */
	ib_listen_handle_t h_cm_listen;
	const uint8_t *p_req_pdata;  /**< Private data of the request (IB_REQ_PDATA_SIZE bytes). */
	ib_qp_type_t qp_type;        /**< Transport service of the request. */
	/**
	 * Connected transports: RDMA read/atomic operations the requester
	 * accepts from us; the init_depth of ib_cm_rep() must not exceed it.
	 */
	uint8_t resp_res;
	boolean_t flow_ctrl;         /**< Connected transports: the peer does end-to-end flow control. */
	uint8_t rnr_retry_cnt;       /**< Connected transports: requested RNR NAK retries. */
	ib_path_rec_t primary_path;  /**< Connected transports: primary path. */
	ib_path_rec_t alt_path;      /**< Connected transports: alternate path. */
	ib_net16_t pkey;             /**< SIDR: P_Key of the request. */
	const void *sidr_context;    /**< SIDR: sidr_context of the listen. */
} ib_cm_req_rec_t;

/** A received connection reply (REP or SIDR REP), given to ib_pfn_cm_rep_cb_t. */
typedef struct _ib_cm_rep_rec {
	const uint8_t *p_rep_pdata;  /**< Private data of the reply (IB_REP_PDATA_SIZE bytes). */
	ib_qp_type_t qp_type;        /**< Transport service. */
	/** The reply, to answer with ib_cm_rtu(), ib_cm_rej() or ib_cm_mra(). */
	ib_cm_handle_t h_cm_rep;
	const void *qp_context;      /**< Connected transports: context of the local queue pair. */
	/**
	 * Connected transports: RDMA read/atomic operations the responder
	 * accepts from us (possibly less than our init_depth); the local queue
	 * pair is set up with it unless the connection is rejected.
	 */
	uint8_t resp_res;
	boolean_t flow_ctrl;         /**< Connected transports: the peer does end-to-end flow control. */
	ib_apr_status_t apr_status;  /**< Connected transports: whether the alternate path was accepted. */
	const void *sidr_context;    /**< SIDR: sidr_context of the ib_cm_req(). */
	ib_sidr_status_t status;     /**< SIDR: status of the reply. */
	ib_net32_t remote_qp;        /**< SIDR: QP number of the service. */
	ib_net32_t remote_qkey;      /**< SIDR: Q_Key of the service. */
	/** SIDR: redirection information; meaningful only when status is not IB_SIDR_SUCCESS. */
	ib_class_port_info_t class_info;
} ib_cm_rep_rec_t;

/** A received ready-to-use message, given to ib_pfn_cm_rtu_cb_t. */
typedef struct _ib_cm_rtu_rec {
	const uint8_t *p_rtu_pdata;  /**< Private data of the RTU (IB_RTU_PDATA_SIZE bytes). */
	ib_qp_handle_t h_qp;         /**< Queue pair of the connection. */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_rtu_rec_t;

/** A received rejection, given to ib_pfn_cm_rej_cb_t. */
typedef struct _ib_cm_rej_rec {
	ib_rej_status_t rej_status;  /**< Reason of the rejection (IB_REJ_*). */
	const uint8_t *p_ari;        /**< Additional rejection information; its meaning depends on rej_status. */
	uint8_t ari_length;          /**< Valid bytes at p_ari. */
	const uint8_t *p_rej_pdata;  /**< Private data of the REJ (IB_REJ_PDATA_SIZE bytes). */
	ib_qp_handle_t h_qp;         /**< Queue pair of the connection. */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_rej_rec_t;

/** A received message-receipt acknowledgement, given to ib_pfn_cm_mra_cb_t. */
typedef struct _ib_cm_mra_rec {
	const uint8_t *p_mra_pdata;  /**< Private data of the MRA (IB_MRA_PDATA_SIZE bytes). */
	ib_qp_handle_t h_qp;         /**< Queue pair of the connection. */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_mra_rec_t;

/** A received load-alternate-path request, given to ib_pfn_cm_lap_cb_t. */
typedef struct _ib_cm_lap_rec {
	/** The request, to answer with ib_cm_apr() (or ib_cm_mra()). */
	ib_cm_handle_t h_cm_lap;
	/** Proposed alternate path; accept or reject it with ib_cm_apr(). */
	ib_path_rec_t alt_path;
	const uint8_t *p_lap_pdata;  /**< Private data of the LAP (IB_LAP_PDATA_SIZE bytes). */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_lap_rec_t;

/** A received alternate-path response, given to ib_pfn_cm_apr_cb_t. */
typedef struct _ib_cm_apr_rec {
	/**
	 * IB_SUCCESS if the alternate path was loaded; IB_TIMEOUT if no response
	 * came in time. Another code with apr_status IB_AP_SUCCESS means the
	 * peer accepted but the local queue pair could not load the path.
	 */
	ib_api_status_t cm_status;
	ib_apr_status_t apr_status;  /**< Status the peer returned (IB_AP_*). */
	const uint8_t *p_info;       /**< Additional APR information. */
	uint8_t info_length;         /**< Valid bytes at p_info. */
	const uint8_t *p_apr_pdata;  /**< Private data of the APR (IB_APR_PDATA_SIZE bytes). */
	ib_qp_handle_t h_qp;         /**< Queue pair of the connection. */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_apr_rec_t;

/** A received disconnection request, given to ib_pfn_cm_dreq_cb_t. */
typedef struct _ib_cm_dreq_rec {
	/** The request, to answer with ib_cm_drep(). */
	ib_cm_handle_t h_cm_dreq;
	const uint8_t *p_dreq_pdata; /**< Private data of the DREQ (IB_DREQ_PDATA_SIZE bytes). */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_dreq_rec_t;

/** A received disconnection reply (or its timeout), given to ib_pfn_cm_drep_cb_t. */
typedef struct _ib_cm_drep_rec {
	/** IB_SUCCESS, or IB_TIMEOUT if no reply came within the timeout and retries. */
	ib_api_status_t cm_status;
	const uint8_t *p_drep_pdata; /**< Private data of the DREP (IB_DREP_PDATA_SIZE bytes). */
	ib_qp_handle_t h_qp;         /**< Queue pair of the connection. */
	const void *qp_context;      /**< Context of the queue pair. */
} ib_cm_drep_rec_t;

/* ------------------------------------------------------------------------ */
/* Connection manager: callbacks                                            */
/* ------------------------------------------------------------------------ */

/**
 * A connection request arrived, for a listen (ib_cm_listen()) or a
 * peer-to-peer ib_cm_req(). The user answers with ib_cm_rep() or
 * ib_cm_rej(), and may first send ib_cm_mra() if it needs time.
 * @param p_cm_req_rec the request; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_req_cb_t)(IN ib_cm_req_rec_t *p_cm_req_rec);

/**
 * A reply to our ib_cm_req() arrived. The user answers with ib_cm_rtu() or
 * ib_cm_rej(), and may first send ib_cm_mra() if it needs time. A missing
 * reply is reported through the reject callback with reason
 * IB_REJ_TIMEOUT.
 * @param p_cm_rep_rec the reply; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_rep_cb_t)(IN ib_cm_rep_rec_t *p_cm_rep_rec);

/**
 * The ready-to-use message answering our ib_cm_rep() arrived: the
 * connection is established. It is reported before any completion of the
 * queue pair.
 * @param p_cm_rtu_rec the message; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_rtu_cb_t)(IN ib_cm_rtu_rec_t *p_cm_rtu_rec);

/**
 * The connection was rejected (after ib_cm_req() or ib_cm_rep()), by the
 * peer or because of a timeout.
 * @param p_cm_rej_rec the rejection; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_rej_cb_t)(IN ib_cm_rej_rec_t *p_cm_rej_rec);

/**
 * The peer acknowledged our REQ, REP or LAP and asked for more time to
 * process it.
 * @param p_cm_mra_rec the acknowledgement; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_mra_cb_t)(IN ib_cm_mra_rec_t *p_cm_mra_rec);

/**
 * The peer asks to load an alternate path; the user accepts or rejects it
 * with ib_cm_apr() from within the callback.
 * @param p_cm_lap_rec the request; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_lap_cb_t)(IN ib_cm_lap_rec_t *p_cm_lap_rec);

/**
 * The response to our ib_cm_lap() arrived, or none came in time (cm_status
 * IB_TIMEOUT).
 * @param p_cm_apr_rec the response; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_apr_cb_t)(IN ib_cm_apr_rec_t *p_cm_apr_rec);

/**
 * The peer asks to disconnect; the user answers with ib_cm_drep(). After
 * the callback returns the queue pair is in the time-wait state and can no
 * longer transfer data.
 * @param p_cm_dreq_rec the request; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_dreq_cb_t)(IN ib_cm_dreq_rec_t *p_cm_dreq_rec);

/**
 * The reply to our ib_cm_dreq() arrived, or none came in time (cm_status
 * IB_TIMEOUT): the disconnection is complete.
 * @param p_cm_drep_rec the reply; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_cm_drep_cb_t)(IN ib_cm_drep_rec_t *p_cm_drep_rec);

/* ------------------------------------------------------------------------ */
/* Connection manager: requests                                             */
/* ------------------------------------------------------------------------ */

#define IB_ALL_CAS   0 /**< ib_cm_listen_t.ca_guid: listen on every adapter. */
#define IB_ALL_PORTS 0 /**< ib_cm_listen_t.port_guid: listen on every port. */
#define IB_ALL_LIDS  0 /**< ib_cm_listen_t.lid: listen on every LID. */
#define IB_ALL_PKEYS 0 /**< ib_cm_listen_t.pkey: listen on every partition. */

/**
 * Request to listen for connection requests to a service ID, optionally
 * restricted to an adapter, port, LID or partition, and to requests whose
 * private data match a compare buffer (so that several listeners can share
 * a service ID).
 */
typedef struct _ib_cm_listen {
	ib_net64_t svc_id;           /**< Service ID to listen on. */
	ib_net64_t ca_guid;          /**< Adapter to listen on, or IB_ALL_CAS. */
	ib_net64_t port_guid;        /**< Port to listen on, or IB_ALL_PORTS. */
	ib_net16_t lid;              /**< LID to listen on, or IB_ALL_LIDS. */
	ib_net16_t pkey;             /**< P_Key to listen on, or IB_ALL_PKEYS. */
	/** Optional bytes the request's private data must match, or NULL. */
	uint8_t *p_compare_buffer;
	/** Offset in the private data of the bytes compared; the same for every listen of a service ID. */
	uint8_t compare_offset;
	/** Bytes compared; the same for every listen of a service ID. */
	uint8_t compare_length;
	ib_pfn_cm_req_cb_t pfn_cm_req_cb; /**< Callback invoked for each matching request. */
	ib_qp_type_t qp_type;        /**< Transport service (IB_QPT_UNRELIABLE_DGRM for SIDR). */
	const void *sidr_context;    /**< SIDR: context returned in the request callback. */
} ib_cm_listen_t;

/** A connection request to send (REQ, or SIDR REQ for a UD service). */
typedef struct _ib_cm_req {
	ib_net64_t svc_id;           /**< Service ID of the remote service. */
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the request synchronously. */
	uint8_t max_cm_retries;      /**< Times either CM resends a connection message. */
	/** Primary path of the connection. */
	TO_LONG_PTR(ib_path_rec_t *, p_primary_path);
	/** Callback invoked when the reply arrives. */
	TO_LONG_PTR(ib_pfn_cm_rep_cb_t, pfn_cm_rep_cb);
	/** Optional private data (at most IB_REQ_PDATA_SIZE bytes, IB_SIDR_REQ_PDATA_SIZE for SIDR). */
	TO_LONG_PTR(const uint8_t *, p_req_pdata);
	uint8_t req_length;          /**< Bytes of private data. */
	ib_qp_type_t qp_type;        /**< Transport service. */
	/** Connected transports: queue pair to connect. */
	TO_LONG_PTR(ib_qp_handle_t, h_qp);
	/** Peer-to-peer only: optional bytes an incoming request's private data must match. */
	TO_LONG_PTR(uint8_t *, p_compare_buffer);
	uint8_t compare_offset;      /**< Peer-to-peer only: offset of the compared bytes. */
	uint8_t compare_length;      /**< Peer-to-peer only: bytes compared. */
	uint8_t resp_res;            /**< RDMA read/atomic operations we accept from the peer. */
	uint8_t init_depth;          /**< RDMA read/atomic operations we keep outstanding to the peer. */
	/** Time the remote CM has to answer: 4.096 us * 2^value. */
	uint8_t remote_resp_timeout;
	boolean_t flow_ctrl;         /**< The local adapter does end-to-end flow control. */
	/** Time the local CM takes to answer the peer: 4.096 us * 2^value. */
	uint8_t local_resp_timeout;
	uint8_t rnr_nak_timeout;     /**< Delay before retrying after an RNR NAK (specification's encoding). */
	uint8_t rnr_retry_cnt;       /**< Retries after RNR NAKs before an error. */
	uint8_t retry_cnt;           /**< Transport retries before an error. */
	/** Optional alternate path, used for failover. */
	TO_LONG_PTR(ib_path_rec_t *, p_alt_path);
	/** Peer-to-peer: callback for the peer's REQ (required); NULL for client/server. */
	TO_LONG_PTR(ib_pfn_cm_req_cb_t, pfn_cm_req_cb);
	/** Callback for an MRA from the peer. */
	TO_LONG_PTR(ib_pfn_cm_mra_cb_t, pfn_cm_mra_cb);
	/** Callback invoked if the connection is rejected. */
	TO_LONG_PTR(ib_pfn_cm_rej_cb_t, pfn_cm_rej_cb);
	/** SIDR: access-layer instance that issues the request. */
	TO_LONG_PTR(ib_al_handle_t, h_al);
	/** SIDR: context returned in the reply callback. */
	TO_LONG_PTR(const void *, sidr_context);
	/** SIDR: milliseconds before the request expires (twice the packet lifetime is added). */
	uint32_t timeout_ms;
	/** SIDR: P_Key of the request (CM class version 2). */
	ib_net16_t pkey;
} ib_cm_req_t;

/** Answer of a REP to the alternate path of a REQ. */
typedef uint8_t ib_cm_failover_t;
#define IB_FAILOVER_ACCEPT_SUCCESS     0 /**< Failover accepted. */
#define IB_FAILOVER_ACCEPT_UNSUPPORTED 1 /**< Failover not supported. */
#define IB_FAILOVER_ACCEPT_ERROR       2 /**< Failover rejected. */

/** A connection reply to send (REP, or SIDR REP). */
typedef struct _ib_cm_rep {
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the reply synchronously. */
	/** Optional private data (at most IB_REP_PDATA_SIZE bytes, IB_SIDR_REP_PDATA_SIZE for SIDR). */
	TO_LONG_PTR(const uint8_t *, p_rep_pdata);
	uint8_t rep_length;          /**< Bytes of private data. */
	/** Queue pair of the connection; for SIDR, valid only with status IB_SIDR_SUCCESS. */
	TO_LONG_PTR(ib_qp_handle_t, h_qp);
	ib_qp_type_t qp_type;        /**< Transport service. */
	ib_access_t access_ctrl;     /**< Connected transports: access rights of the local queue pair. */
	uint32_t sq_depth;           /**< Connected transports: send queue depth needed. */
	uint32_t rq_depth;           /**< Connected transports: receive queue depth needed. */
	uint8_t init_depth;          /**< RDMA read/atomic operations we keep outstanding to the peer. */
	uint8_t target_ack_delay;    /**< Delay the peer should expect for our ACKs. */
	ib_cm_failover_t failover_accepted; /**< Whether the alternate path is accepted. */
	boolean_t flow_ctrl;         /**< The local adapter does end-to-end flow control. */
	uint8_t rnr_nak_timeout;     /**< Delay before retrying after an RNR NAK. */
	uint8_t rnr_retry_cnt;       /**< Retries after RNR NAKs before an error. */
	/** Callback invoked if the connection is rejected. */
	TO_LONG_PTR(ib_pfn_cm_rej_cb_t, pfn_cm_rej_cb);
	/** Callback for an MRA from the peer. */
	TO_LONG_PTR(ib_pfn_cm_mra_cb_t, pfn_cm_mra_cb);
	/** Callback invoked when the connection is ready to use. */
	TO_LONG_PTR(ib_pfn_cm_rtu_cb_t, pfn_cm_rtu_cb);
	/** Callback for a load-alternate-path request on the connection. */
	TO_LONG_PTR(ib_pfn_cm_lap_cb_t, pfn_cm_lap_cb);
	/** Callback for a disconnection request on the connection. */
	TO_LONG_PTR(ib_pfn_cm_dreq_cb_t, pfn_cm_dreq_cb);
	/**
	 * Optional receive work requests posted before the REP is sent, which
	 * closes the race between the REP and the first receive.
	 */
	TO_LONG_PTR(ib_recv_wr_t *, p_recv_wr);
	/** Receives the first request of p_recv_wr that could not be posted (required with p_recv_wr). */
	TO_LONG_PTR(ib_recv_wr_t **, pp_recv_failure);
	ib_sidr_status_t status;     /**< SIDR: status returned to the requester. */
	/** SIDR: redirection information, used with status IB_SIDR_REDIRECT. */
	ib_class_port_info_t class_info;
} ib_cm_rep_t;

/** A ready-to-use message to send (RTU). */
typedef struct _ib_cm_rtu {
	ib_access_t access_ctrl;     /**< Access rights of the local queue pair. */
	/** Send queue depth needed; 0 if the adapter cannot resize queues of a created QP. */
	uint32_t sq_depth;
	/** Receive queue depth needed; 0 if the adapter cannot resize queues of a created QP. */
	uint32_t rq_depth;
	const uint8_t *p_rtu_pdata;  /**< Optional private data (at most IB_RTU_PDATA_SIZE bytes). */
	uint8_t rtu_length;          /**< Bytes of private data. */
	ib_pfn_cm_apr_cb_t pfn_cm_apr_cb;   /**< Callback for alternate-path responses on the connection. */
	ib_pfn_cm_dreq_cb_t pfn_cm_dreq_cb; /**< Callback for a disconnection request on the connection. */
} ib_cm_rtu_t;

/** A rejection to send (REJ). */
typedef struct _ib_cm_rej {
	ib_rej_status_t rej_status;  /**< Reason of the rejection (IB_REJ_*). */
	ib_ari_t *p_ari;             /**< Additional rejection information, as the reason defines it. */
	uint8_t ari_length;          /**< Valid bytes at p_ari (at most IB_ARI_SIZE). */
	const uint8_t *p_rej_pdata;  /**< Optional private data (at most IB_REJ_PDATA_SIZE bytes). */
	uint8_t rej_length;          /**< Bytes of private data. */
} ib_cm_rej_t;

/** A message-receipt acknowledgement to send (MRA) for a received REQ, REP or LAP. */
typedef struct _ib_cm_mra {
	/** Time the local service needs to process the message: 4.096 us * 2^value. */
	uint8_t svc_timeout;
	/** Optional private data (at most IB_MRA_PDATA_SIZE bytes). */
	TO_LONG_PTR(const uint8_t *, p_mra_pdata);
	uint8_t mra_length;          /**< Bytes of private data. */
} ib_cm_mra_t;

/** A load-alternate-path request to send (LAP). */
typedef struct _ib_cm_lap {
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the request synchronously. */
	/** Optional private data (at most IB_LAP_PDATA_SIZE bytes). */
	TO_LONG_PTR(const uint8_t *, p_lap_pdata);
	uint8_t lap_length;          /**< Bytes of private data. */
	ib_qp_type_t qp_type;        /**< Transport service. */
	/** Connected transports: queue pair that gets the alternate path. */
	TO_LONG_PTR(ib_qp_handle_t, h_qp);
	/** Time the remote CM has to answer: 4.096 us * 2^value. */
	uint8_t remote_resp_timeout;
	/** The alternate path to load. */
	TO_LONG_PTR(ib_path_rec_t *, p_alt_path);
	ib_pfn_cm_apr_cb_t pfn_cm_apr_cb; /**< Callback invoked with the response. */
} ib_cm_lap_t;

/** An alternate-path response to send (APR). */
typedef struct _ib_cm_apr {
	/** Optional private data (at most IB_APR_PDATA_SIZE bytes). */
	TO_LONG_PTR(const uint8_t *, p_apr_pdata);
	uint8_t apr_length;          /**< Bytes of private data. */
	ib_qp_type_t qp_type;        /**< Transport service. */
	/** Connected transports: queue pair that gets the alternate path. */
	TO_LONG_PTR(ib_qp_handle_t, h_qp);
	ib_apr_status_t apr_status;  /**< IB_AP_SUCCESS to accept, or the reason of the refusal. */
	uint8_t info_length;         /**< Valid bytes at p_info (at most IB_APR_INFO_SIZE). */
	/** Additional information, as apr_status defines it. */
	TO_LONG_PTR(const ib_apr_info_t *, p_info);
} ib_cm_apr_t;

/** A disconnection request to send (DREQ). */
typedef struct _ib_cm_dreq {
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the request synchronously. */
	uint8_t *p_dreq_pdata;       /**< Optional private data (at most IB_DREQ_PDATA_SIZE bytes). */
	uint8_t dreq_length;         /**< Bytes of private data. */
	ib_qp_type_t qp_type;        /**< Transport service. */
	ib_qp_handle_t h_qp;         /**< Connected transports: queue pair to disconnect. */
	ib_pfn_cm_drep_cb_t pfn_cm_drep_cb; /**< Callback invoked with the reply. */
} ib_cm_dreq_t;

/** A disconnection reply to send (DREP). */
typedef struct _ib_cm_drep {
	uint8_t *p_drep_pdata;       /**< Optional private data (at most IB_DREP_PDATA_SIZE bytes). */
	uint8_t drep_length;         /**< Bytes of private data. */
} ib_cm_drep_t;

/* ------------------------------------------------------------------------ */
/* Connection manager: calls                                                */
/* ------------------------------------------------------------------------ */

/**
 * Listens for connection requests matching a service ID and the optional
 * restrictions of p_cm_listen. Matching requests are reported through
 * p_cm_listen->pfn_cm_req_cb. A listen that a local change invalidates (for
 * example a LID change for a listen directed at a LID) should be canceled.
 * @param h_al an open access-layer instance.
 * @param p_cm_listen the service ID, restrictions and callback.
 * @param listen_context context returned in every request of the listen and
 * in its destroy callback.
 * @param ph_cm_listen receives the handle of the listen.
 * @return the status of the call.
 * @retval IB_SUCCESS the listen is registered.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_listen, its callback or ph_cm_listen is
 * NULL.
 * @retval IB_INVALID_SETTING the class version is not supported, or the
 * listen is not unique.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_GUID ca_guid or port_guid is neither a wildcard nor
 * the GUID of a local adapter or port.
 * @retval IB_INVALID_LID lid is neither a wildcard nor in the LID range of
 * the port.
 * @retval IB_INVALID_PKEY pkey is neither a wildcard nor a P_Key of the port.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_listen(IN const ib_al_handle_t h_al, IN const ib_cm_listen_t *const p_cm_listen,
	     IN const void *const listen_context, OUT ib_listen_handle_t *const ph_cm_listen);

/**
 * Cancels a listen. Asynchronous, because a request callback may be running:
 * see ib_pfn_destroy_cb_t.
 * @param h_cm_listen the listen.
 * @param pfn_destroy_cb optional callback invoked once the listen is canceled
 * (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the cancel was started.
 * @retval IB_INVALID_HANDLE h_cm_listen is invalid.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_cancel(IN const ib_listen_handle_t h_cm_listen, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/**
 * Sends a connection request to a service. It matches a remote listen, or a
 * remote peer-to-peer ib_cm_req(). The reply is reported through
 * p_cm_req->pfn_cm_rep_cb.
 *
 * ibal differs from Windows here: it keeps at most 256 requests (REQ, DREQ,
 * LAP, SIDR_REQ) to one remote port on the wire without an answer. A request
 * beyond them waits in the process, in order, and is sent when an answer
 * (a reply, REJ or MRA) comes for one of them; its response timeout counts
 * from its sending, and it gives up no later than it would have unpaced. So
 * thousands of requests at once do not overrun the remote port's receive
 * queue (docs/cm.md, "Pacing requests to a port").
 * @param p_cm_req the request.
 * @return the status of the call.
 * @retval IB_SUCCESS the request was sent, or queued to be sent (above).
 * @retval IB_INVALID_PARAMETER p_cm_req is NULL.
 * @retval IB_INVALID_SETTING the request is inconsistent: unsupported class
 * version, QP type or path; private data too long; primary path not on the
 * adapter of the queue pair; primary and alternate paths on different
 * adapters or with different MTUs; packet lifetime or P_Key of a path out of
 * range.
 * @retval IB_INVALID_QP_HANDLE the queue pair is invalid.
 * @retval IB_INVALID_AL_HANDLE the access-layer handle (SIDR) is invalid.
 * @retval IB_INVALID_STATE the queue pair is already connected, or
 * IB_FLAGS_SYNC was asked from an access-layer callback (where the wait
 * could never end).
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow a
 * connection.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_req(IN const ib_cm_req_t *const p_cm_req);

/**
 * Accepts a connection request: sends a reply (REP, or SIDR REP) to the
 * requester.
 * @param h_cm_req the request, from ib_cm_req_rec_t.h_cm_req.
 * @param p_cm_rep the reply.
 * @return the status of the call.
 * @retval IB_SUCCESS the reply was sent.
 * @retval IB_INVALID_HANDLE h_cm_req is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_rep is NULL.
 * @retval IB_INVALID_STATE the connection's state does not allow a reply,
 * or IB_FLAGS_SYNC was asked from an access-layer callback.
 * @retval IB_INVALID_SETTING the reply is inconsistent: unsupported class
 * version, QP type or path; private data too long; paths invalid for the
 * queue pair.
 * @retval IB_INVALID_QP_HANDLE the queue pair is invalid.
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow a
 * connection.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_rep(IN const ib_cm_handle_t h_cm_req, IN const ib_cm_rep_t *const p_cm_rep);

/**
 * Completes the establishment of a connection: marks it ready to use and
 * sends the RTU to the peer.
 * @param h_cm_rep the reply, from ib_cm_rep_rec_t.h_cm_rep.
 * @param p_cm_rtu the ready-to-use message.
 * @return the status of the call.
 * @retval IB_SUCCESS the RTU was sent.
 * @retval IB_INVALID_HANDLE h_cm_rep is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_rtu is NULL.
 * @retval IB_INVALID_STATE the connection's state does not allow an RTU.
 * @retval IB_INVALID_SETTING the queue pair attributes are invalid or the
 * private data is too long.
 * @retval IB_UNSUPPORTED the access rights are not supported.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_rtu(IN const ib_cm_handle_t h_cm_rep, IN const ib_cm_rtu_t *const p_cm_rtu);

/**
 * Rejects a connection request or reply and notifies the peer.
 * @param h_cm the request or reply, from ib_cm_req_rec_t.h_cm_req or
 * ib_cm_rep_rec_t.h_cm_rep.
 * @param p_cm_rej the rejection.
 * @return the status of the call.
 * @retval IB_SUCCESS the rejection was sent.
 * @retval IB_INVALID_HANDLE h_cm is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_rej is NULL.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_rej(IN const ib_cm_handle_t h_cm, IN const ib_cm_rej_t *const p_cm_rej);

/**
 * Tells the peer that its REQ, REP or LAP was received but needs more time
 * to process, so that it does not time out.
 * @param h_cm the request, reply or LAP, from the h_cm_req, h_cm_rep or
 * h_cm_lap of the callback record.
 * @param p_cm_mra the acknowledgement.
 * @return the status of the call.
 * @retval IB_SUCCESS the MRA was sent.
 * @retval IB_INVALID_HANDLE h_cm is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_mra is NULL.
 * @retval IB_INVALID_STATE the connection's state does not allow an MRA.
 * @retval IB_INVALID_SETTING the class version is not supported or the
 * private data length is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_mra(IN const ib_cm_handle_t h_cm, IN const ib_cm_mra_t *const p_cm_mra);

/**
 * Asks the peer of a connection to load an alternate path; once accepted
 * the path is loaded and armed for migration. The response is reported
 * through p_cm_lap->pfn_cm_apr_cb.
 * @param p_cm_lap the request.
 * @return the status of the call.
 * @retval IB_SUCCESS the LAP was sent, or queued to be sent as ib_cm_req()
 * says.
 * @retval IB_INVALID_PARAMETER p_cm_lap is NULL.
 * @retval IB_UNSUPPORTED the passive side of the connection tried to load an
 * alternate path.
 * @retval IB_INVALID_STATE the connection's state does not allow a LAP, or
 * IB_FLAGS_SYNC was asked from an access-layer callback.
 * @retval IB_INVALID_SETTING the request is inconsistent: unsupported class
 * version, QP type or path; path not on the adapter of the queue pair or
 * with another MTU; packet lifetime or P_Key out of range; private data
 * length invalid.
 * @retval IB_INVALID_QP_HANDLE the queue pair is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_lap(IN const ib_cm_lap_t *const p_cm_lap);

/**
 * Answers a load-alternate-path request: accepts or rejects the path.
 * @param h_cm_lap the request, from ib_cm_lap_rec_t.h_cm_lap.
 * @param p_cm_apr the response.
 * @return the status of the call.
 * @retval IB_SUCCESS the APR was sent.
 * @retval IB_INVALID_HANDLE h_cm_lap is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_apr is NULL.
 * @retval IB_INVALID_STATE the connection's state does not allow an APR.
 * @retval IB_INVALID_SETTING the private data length is invalid.
 * @retval IB_INVALID_QP_HANDLE the queue pair is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_apr(IN const ib_cm_handle_t h_cm_lap, IN const ib_cm_apr_t *const p_cm_apr);

/**
 * Makes a queue pair migrate to its alternate path now; later transfers use
 * that path. The alternate path must be loaded and armed. A new alternate
 * path can then be loaded with ib_cm_lap().
 * @param h_qp the queue pair.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue pair migrated.
 * @retval IB_INVALID_PARAMETER the handle is invalid (upstream's wording:
 * neither or both of a QP and an EEC were given).
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 * @retval IB_UNSUPPORTED the modification is not supported.
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow the
 * migration (no armed alternate path).
 */
AL_EXPORT ib_api_status_t AL_API
ib_force_apm(IN const ib_qp_handle_t h_qp);

/**
 * Disconnects a queue pair: sends a DREQ to the peer. Transfers on the queue
 * pair fail afterwards. The reply is reported through
 * p_cm_dreq->pfn_cm_drep_cb.
 * @param p_cm_dreq the request.
 * @return the status of the call.
 * @retval IB_SUCCESS the DREQ was sent, or queued to be sent as ib_cm_req()
 * says.
 * @retval IB_INVALID_PARAMETER p_cm_dreq is NULL.
 * @retval IB_INVALID_STATE the connection's state does not allow a DREQ,
 * or IB_FLAGS_SYNC was asked from an access-layer callback.
 * @retval IB_INVALID_SETTING the private data length is invalid.
 * @retval IB_INVALID_QP_HANDLE the queue pair is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_dreq(IN const ib_cm_dreq_t *const p_cm_dreq);

/**
 * Answers a disconnection request: sends a DREP and disconnects the queue
 * pair. Transfers on the queue pair fail afterwards.
 * @param h_cm_dreq the request, from ib_cm_dreq_rec_t.h_cm_dreq.
 * @param p_cm_drep the reply.
 * @return the status of the call.
 * @retval IB_SUCCESS the DREP was sent.
 * @retval IB_INVALID_HANDLE h_cm_dreq is invalid.
 * @retval IB_INVALID_PARAMETER p_cm_drep is NULL.
 * @retval IB_INVALID_STATE the connection's state does not allow a DREP.
 * @retval IB_INVALID_SETTING the private data length is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_drep(IN const ib_cm_handle_t h_cm_dreq, IN const ib_cm_drep_t *const p_cm_drep);

/**
 * Hands a received connection request to another service ID: the request is
 * delivered again, as a new request, to the listen of svc_id.
 * @param h_cm_req the request, from ib_cm_req_rec_t.h_cm_req.
 * @param svc_id the service ID that takes the request.
 * @return the status of the call.
 * @retval IB_SUCCESS the handoff was started.
 * @retval IB_INVALID_HANDLE h_cm_req is invalid.
 * @retval IB_INVALID_PARAMETER svc_id is not a valid service ID.
 * @retval IB_INVALID_STATE the connection's state does not allow a handoff.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_cm_handoff(IN const ib_cm_handle_t h_cm_req, IN const ib_net64_t svc_id);

/**
 * Listen parameters of a connection endpoint (CEP): a service ID on a port,
 * with an optional compare buffer.
 */
typedef struct _ib_cep_listen {
	net64_t svc_id;              /**< Service ID to listen on. */
	net64_t port_guid;           /**< Port to listen on, or IB_ALL_PORTS. */
	/** Optional bytes the request's private data must match, or NULL. */
	TO_LONG_PTR(uint8_t *, p_cmp_buf);
	uint8_t cmp_len;             /**< Bytes compared; the same for every listen of a service ID. */
	uint8_t cmp_offset;          /**< Offset of the compared bytes; the same for every listen of a service ID. */
} ib_cep_listen_t;

/* ------------------------------------------------------------------------ */
/* I/O controllers                                                          */
/* ------------------------------------------------------------------------ */

/**
 * Creates a local I/O controller, exposed through an adapter. Service
 * entries are added with ib_add_svc_entry() before or after it is
 * registered with the local device manager (ib_reg_ioc()). The controller
 * is destroyed with the adapter handle (ib_close_ca(), ib_close_al()).
 * The profile is copied; its num_svc_entries is ignored: the access layer
 * reports the number of service entries the controller has.
 * @param h_ca the adapter that exposes the controller.
 * @param p_ioc_profile the controller's IOControllerProfile.
 * @param ph_ioc receives the handle of the controller.
 * @return the status of the call.
 * @retval IB_SUCCESS the controller was created.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid (or being closed).
 * @retval IB_INVALID_PARAMETER p_ioc_profile or ph_ioc is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES no handle is left.
 * @retval IB_ERROR a lock could not be created.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_ioc(IN const ib_ca_handle_t h_ca, IN const ib_ioc_profile_t *const p_ioc_profile,
	      OUT ib_ioc_handle_t *const ph_ioc);

/**
 * Destroys a local I/O controller and its service entries; the device
 * manager stops exporting it (its slot reads "not installed" and the I/O
 * unit's change ID moves) before the call returns. The destruction is
 * complete on return, except on an access-layer callback thread, where it
 * finishes asynchronously (the handle is invalid at once).
 * @param h_ioc the controller.
 * @return the status of the call.
 * @retval IB_SUCCESS the controller was destroyed.
 * @retval IB_INVALID_HANDLE h_ioc is invalid (NULL, another kind of
 *         handle, or already destroyed).
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_ioc(IN const ib_ioc_handle_t h_ioc);

/**
 * Registers an I/O controller with the local device manager, which exports
 * it to the fabric as part of the node's I/O unit: the controller takes the
 * lowest free slot (1 to 255) of the adapter's I/O unit until it is
 * destroyed, the unit's change ID moves, and while at least one controller
 * is registered the device management agent answers DevMgt requests on
 * every port of the adapter and sets their IsDeviceManagementSupported
 * capability (see docs/ioc.md for what a provider may refuse).
 * @param h_ioc the controller.
 * @return the status of the call.
 * @retval IB_SUCCESS the controller was registered.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the I/O unit has no room left (255
 *         controllers are registered).
 * @retval IB_INVALID_HANDLE h_ioc is invalid.
 * @retval IB_INVALID_STATE the controller is registered already.
 * Any other status is that of opening the agent's QP1 services on the
 * adapter, when none of its ports could carry them (the controller is not
 * registered then).
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_ioc(IN const ib_ioc_handle_t h_ioc);

/**
 * Adds a service entry to an I/O controller, at the end of its service
 * table; it is reported with the controller's profile once the controller
 * is registered (the I/O unit's change ID moves when it is). Entries are
 * numbered from 0 in the order they were added; removing one renumbers the
 * entries after it.
 * @param h_ioc the controller.
 * @param p_svc_entry the service entry (name and ID), copied.
 * @param ph_svc receives the handle of the entry.
 * @return the status of the call.
 * @retval IB_SUCCESS the entry was added.
 * @retval IB_INVALID_HANDLE h_ioc is invalid.
 * @retval IB_INVALID_PARAMETER p_svc_entry or ph_svc is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the controller has no room left (255
 *         entries), or no handle is left.
 * @retval IB_ERROR a lock could not be created.
 */
AL_EXPORT ib_api_status_t AL_API
ib_add_svc_entry(IN const ib_ioc_handle_t h_ioc, IN const ib_svc_entry_t *const p_svc_entry,
		 OUT ib_svc_handle_t *const ph_svc);

/**
 * Removes a service entry from its I/O controller (the I/O unit's change ID
 * moves when the controller is registered). Entries also go with their
 * controller.
 * @param h_svc the entry.
 * @return the status of the call.
 * @retval IB_SUCCESS the entry was removed.
 * @retval IB_INVALID_HANDLE h_svc is invalid (NULL, another kind of
 *         handle, already removed, or its controller destroyed).
 */
AL_EXPORT ib_api_status_t AL_API
ib_remove_svc_entry(IN const ib_svc_handle_t h_svc);

/* ------------------------------------------------------------------------ */
/* Adapter and port lookups                                                 */
/* ------------------------------------------------------------------------ */

/**
 * Lists the GUIDs of the channel adapters of the system. Call with
 * p_guid_array NULL to learn the number of entries needed.
 * @param h_al an open access-layer instance.
 * @param p_guid_array array that receives the GUIDs, or NULL.
 * @param p_guid_cnt on input the number of entries of p_guid_array; on
 * output the number of GUIDs stored, or needed.
 * @return the status of the call.
 * @retval IB_SUCCESS the GUIDs were returned.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_guid_cnt is NULL.
 * @retval IB_INSUFFICIENT_MEMORY the array is too small (or NULL);
 * *p_guid_cnt holds the number of entries needed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_get_ca_guids(IN ib_al_handle_t h_al, OUT ib_net64_t *const p_guid_array OPTIONAL,
		IN OUT size_t *const p_guid_cnt);

/**
 * Returns the GUID of the local adapter that has a port with a given GID.
 * @param h_al an open access-layer instance.
 * @param p_gid the port GID.
 * @param p_ca_guid receives the adapter GUID.
 * @return the status of the call.
 * @retval IB_SUCCESS the GUID was returned.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_gid or p_ca_guid is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_NOT_FOUND no local adapter has a port with that GID.
 */
AL_EXPORT ib_api_status_t AL_API
ib_get_ca_by_gid(IN ib_al_handle_t h_al, IN const ib_gid_t *const p_gid,
		 OUT ib_net64_t *const p_ca_guid);

/**
 * Returns the GUID of the local port that has a given GID.
 * @param h_al an open access-layer instance.
 * @param p_gid the port GID.
 * @param p_port_guid receives the port GUID.
 * @return the status of the call.
 * @retval IB_SUCCESS the GUID was returned.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_gid or p_port_guid is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_NOT_FOUND no local port has that GID.
 */
AL_EXPORT ib_api_status_t AL_API
ib_get_port_by_gid(IN ib_al_handle_t h_al, IN const ib_gid_t *const p_gid,
		   OUT ib_net64_t *const p_port_guid);

/* ------------------------------------------------------------------------ */
/* MAD pools and MAD services                                               */
/* ------------------------------------------------------------------------ */

/**
 * Reports a completed MAD send, or a received MAD, on a MAD service.
 *
 * The access layer has done its processing first (reassembly, retries,
 * response matching). The element belongs to the user: return it to its
 * pool with ib_put_mad() when done; do not repost received elements to a
 * MAD QP's receive queue.
 * @param h_mad_svc the MAD service.
 * @param mad_svc_context mad_svc_context of the service.
 * @param p_mad_element the completed or received element.
 */
typedef void (AL_API *ib_pfn_mad_comp_cb_t)(IN const ib_mad_svc_handle_t h_mad_svc,
					    IN void *mad_svc_context,
					    IN ib_mad_element_t *p_mad_element);

/**
 * Creates a pool of MAD elements for sending and receiving MADs on alias
 * and MAD queue pairs.
 * @param h_al an open access-layer instance.
 * @param min number of elements created at once.
 * @param max maximum number of elements; 0 for no limit.
 * @param grow_size elements added each time the pool grows; 0 for a pool
 * that does not grow (then min must not be 0).
 * @param ph_pool receives the handle of the pool.
 * @return the status of the call.
 * @retval IB_SUCCESS the pool was created.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER ph_pool is NULL.
 * @retval IB_INVALID_SETTING max is not 0 and is less than min, or min and
 * grow_size are both 0 (a pool that could never give an element).
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_create_mad_pool(IN const ib_al_handle_t h_al, IN const size_t min, IN const size_t max,
		   IN const size_t grow_size, OUT ib_pool_handle_t *const ph_pool);

/**
 * Destroys a MAD pool and everything it allocated; its registrations with
 * protection domains (pool keys) end with it.
 * @param h_pool the pool.
 * @return the status of the call.
 * @retval IB_SUCCESS the pool was destroyed.
 * @retval IB_INVALID_HANDLE h_pool is invalid.
 * @retval IB_RESOURCE_BUSY elements of the pool have not been returned.
 */
AL_EXPORT ib_api_status_t AL_API
ib_destroy_mad_pool(IN const ib_pool_handle_t h_pool);

/**
 * Registers a MAD pool with a protection domain: its elements become usable
 * on the queue pairs of the domain.
 * @param h_pool the pool.
 * @param h_pd the protection domain.
 * @param p_pool_key receives the key to get elements with (ib_get_mad()).
 * @return the status of the call.
 * @retval IB_SUCCESS the pool was registered.
 * @retval IB_INVALID_HANDLE h_pool is invalid.
 * @retval IB_INVALID_PD_HANDLE h_pd is invalid.
 * @retval IB_INVALID_PARAMETER p_pool_key is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_mad_pool(IN const ib_pool_handle_t h_pool, IN const ib_pd_handle_t h_pd,
		OUT ib_pool_key_t *const p_pool_key);

/**
 * Deregisters a MAD pool from a protection domain.
 * @param pool_key the key from ib_reg_mad_pool().
 * @return the status of the call.
 * @retval IB_SUCCESS the pool was deregistered.
 * @retval IB_INVALID_PARAMETER pool_key is invalid, or is a key the access
 * layer made itself (the key of a special QP from ib_get_spl_qp()).
 * @retval IB_RESOURCE_BUSY elements obtained with this key have not been
 * returned.
 */
AL_EXPORT ib_api_status_t AL_API
ib_dereg_mad_pool(IN const ib_pool_key_t pool_key);

/**
 * Takes a MAD element from a pool. Its buffer is zeroed.
 *
 * Receive elements should have 256-byte buffers. For a send, buf_size is the
 * size of the MAD data sent (header plus payload), without padding to a
 * multiple of 256 bytes.
 * @param pool_key key of the pool, for the protection domain the MAD is
 * used on.
 * @param buf_size size of the buffer of the element.
 * @param pp_mad_element receives the element.
 * @return the status of the call.
 * @retval IB_SUCCESS the element was returned.
 * @retval IB_INVALID_PARAMETER pool_key is invalid, buf_size is 0 or
 * pp_mad_element is NULL.
 * @retval IB_INVALID_SETTING buf_size does not fit in 32 bits.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the pool could not grow and be
 * registered.
 */
AL_EXPORT ib_api_status_t AL_API
ib_get_mad(IN const ib_pool_key_t pool_key, IN const size_t buf_size,
	   OUT ib_mad_element_t **pp_mad_element);

/**
 * Returns a list of MAD elements (linked through p_next) to their pools.
 * @param p_mad_element_list first element of the list.
 * @return the status of the call.
 * @retval IB_SUCCESS the elements were returned.
 * @retval IB_INVALID_PARAMETER p_mad_element_list is NULL, or an element of
 * the list is not one taken from a pool and not yet returned, or is being
 * sent (given to ib_send_mad() and its send callback not called yet); then
 * no element of the list is returned.
 */
AL_EXPORT ib_api_status_t AL_API
ib_put_mad(IN const ib_mad_element_t *p_mad_element_list);

/** Parameters that put a datagram queue pair in service (ib_init_dgrm_svc()). */
typedef struct _ib_dgrm_info {
	/** Port the queue pair uses (IB_QPT_UNRELIABLE_DGRM and IB_QPT_MAD only). */
	ib_net64_t port_guid;
	/** Q_Key of the queue pair, in network order; incoming messages must carry it. */
	uint32_t qkey;
	uint16_t pkey_index;         /**< P_Key index of the queue pair. */
} ib_dgrm_info_t;

/**
 * Puts a datagram queue pair in service: binds it to its port and moves it
 * to the ready-to-send state. Applies to IB_QPT_QP0, IB_QPT_QP1,
 * IB_QPT_MAD, IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHER and IB_QPT_UNRELIABLE_DGRM.
 * On an IB_QPT_MAD queue pair the access layer posts the receive buffers
 * itself; MADs are received by registering a MAD service (ib_reg_mad_svc())
 * and returned with ib_put_mad(). Other types go from any state through
 * RESET, INIT, RTR to RTS, so the call may be repeated (to change the Q_Key,
 * for instance); an IB_QPT_MAD queue pair is put in service once.
 * Aliases are in service from their creation.
 * @param h_qp the queue pair.
 * @param p_dgrm_info the parameters; optional for IB_QPT_QP0 and IB_QPT_QP1
 * (only pkey_index is used), unused for the raw types.
 * @return the status of the call.
 * @retval IB_SUCCESS the queue pair is in service.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER the queue pair is not a datagram type (or is
 * an alias), or p_dgrm_info is NULL where it is required.
 * @retval IB_INVALID_PORT no port of the queue pair's adapter has
 * p_dgrm_info->port_guid.
 * @retval IB_INVALID_QP_STATE the queue pair's state does not allow it (an
 * IB_QPT_MAD queue pair already in service).
 * @retval IB_UNSUPPORTED IB_QPT_RAW_IPV6 and IB_QPT_RAW_ETHER.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_init_dgrm_svc(IN const ib_qp_handle_t h_qp, IN const ib_dgrm_info_t *const p_dgrm_info OPTIONAL);

/** Services a MAD service provides. */
typedef enum _ib_mad_svc_type {
	/** Retries, and RMPP for the well-known classes that use it. */
	IB_MAD_SVC_DEFAULT = 0,
	/**
	 * Retries, and RMPP on request: every MAD has an RMPP header and RMPP
	 * is used for a send when its rmpp_version is not 0. For user-defined
	 * classes that need RMPP.
	 */
	IB_MAD_SVC_RMPP,
	/** No retries and no RMPP: MADs are sent and received as they are. */
	IB_MAD_SVC_RAW
} ib_mad_svc_type_t;

/**
 * A MAD service to register on a queue pair: its callbacks and, to receive
 * unsolicited MADs, the management class, class version and methods it
 * handles. A (class, version, method) combination can be registered for
 * unsolicited MADs by one service only.
 */
typedef struct _ib_mad_svc {
	/** Context returned in pfn_mad_send_cb and pfn_mad_recv_cb. */
	TO_LONG_PTR(void *, mad_svc_context);
	/** Callback invoked when a send completes. */
	TO_LONG_PTR(ib_pfn_mad_comp_cb_t, pfn_mad_send_cb);
	/** Callback invoked when a MAD is received. */
	TO_LONG_PTR(ib_pfn_mad_comp_cb_t, pfn_mad_recv_cb);
	/**
	 * The service accepts unsolicited MADs (requests, without the R bit);
	 * mgmt_class, mgmt_version and method_array are then required.
	 */
	boolean_t support_unsol;
	uint8_t mgmt_class;          /**< Management class of unsolicited MADs (with support_unsol). */
	uint8_t mgmt_version;        /**< Class version of unsolicited MADs (with support_unsol). */
	/** Methods of unsolicited MADs accepted, indexed by method (with support_unsol). */
	boolean_t method_array[IB_MAX_METHODS];
	ib_mad_svc_type_t svc_type;  /**< Services the access layer provides. */
} ib_mad_svc_t;

/**
 * Registers a MAD service on a queue pair, so that the access layer handles
 * segmentation, reassembly and retries for the MADs of the service. A queue
 * pair may carry several services. A service ends with its queue pair (or
 * the queue pair's PD, CA or AL instance): its sends still outstanding then
 * complete with IB_WCS_CANCELED, before the queue pair's destroy callback,
 * and none of its callbacks is made after that. Requests that no service
 * of the port takes are answered by the access layer with the status
 * "unsupported class or version" or "unsupported method".
 * @param h_qp a queue pair of type IB_QPT_QP0, IB_QPT_QP0_ALIAS, IB_QPT_QP1,
 * IB_QPT_QP1_ALIAS or IB_QPT_MAD.
 * @param p_mad_svc the service.
 * @param ph_mad_svc receives the handle of the service.
 * @return the status of the call.
 * @retval IB_SUCCESS the service was registered.
 * @retval IB_INVALID_QP_HANDLE h_qp is invalid.
 * @retval IB_INVALID_PARAMETER the queue pair has the wrong type; p_mad_svc
 * or ph_mad_svc is NULL; either callback is NULL; or svc_type is invalid.
 * @retval IB_INVALID_SETTING support_unsol is set with no method, or a
 * (class, version, method) is already registered for unsolicited MADs by
 * another service on the same special QP of the port (or MAD QP).
 * @retval IB_INVALID_QP_STATE an IB_QPT_MAD queue pair not yet put in
 * service with ib_init_dgrm_svc().
 * @retval IB_UNSUPPORTED a raw IB_QPT_QP0 or IB_QPT_QP1: its creator uses
 * it directly.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_mad_svc(IN const ib_qp_handle_t h_qp, IN const ib_mad_svc_t *const p_mad_svc,
	       OUT ib_mad_svc_handle_t *const ph_mad_svc);

/* ------------------------------------------------------------------------ */
/* Service registration with the subnet administrator                       */
/* ------------------------------------------------------------------------ */

/** Result of a service registration, given to ib_pfn_reg_svc_cb_t. */
typedef struct _ib_reg_svc_rec {
	const void *svc_context;     /**< svc_context of the registration. */
	ib_reg_svc_handle_t h_reg_svc; /**< Handle of the registration. */
	ib_api_status_t req_status;  /**< Result of the registration. */
	ib_net16_t resp_status;      /**< Status of the SA's response. */
	ib_service_record_t svc_rec; /**< The ServiceRecord the SA returned. */
} ib_reg_svc_rec_t;

/**
 * Reports the result of a service registration.
 * @param p_reg_svc_rec the result; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_reg_svc_cb_t)(IN ib_reg_svc_rec_t *p_reg_svc_rec);

/**
 * Request to register a service with the subnet administrator. With
 * IB_FLAGS_SYNC the result callback is invoked before ib_reg_svc() returns
 * (the caller blocks).
 */
typedef struct _ib_reg_svc_req {
	ib_service_record_t svc_rec; /**< The ServiceRecord to register. */
	ib_net64_t port_guid;        /**< Port through which the SA is reached. */
	uint32_t timeout_ms;         /**< Milliseconds to wait for the SA before a retry. */
	uint32_t retry_cnt;          /**< Retries before the request fails. */
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the request synchronously. */
	const void *svc_context;     /**< Context returned in pfn_reg_svc_cb. */
	/**
	 * Component mask of the Set(ServiceRecord) (IB_SR_COMPMASK_*): which
	 * fields of svc_rec, service data included, are set. 0 stands for
	 * ServiceID, GID, P_Key, lease, key and name.
	 */
	ib_net64_t svc_data_mask;
	ib_pfn_reg_svc_cb_t pfn_reg_svc_cb; /**< Callback invoked with the result. */
} ib_reg_svc_req_t;

/**
 * Registers a service with the subnet administrator, which then reports it
 * to clients that query services. The result comes through
 * p_reg_svc_req->pfn_reg_svc_cb.
 *
 * The access layer sends Set(ServiceRecord) to the SA of port_guid, with
 * svc_data_mask as component mask and a zero service_gid replaced by the
 * port's GID. The callback gets IB_SUCCESS with the record the SA returned
 * (its lease may differ), IB_REMOTE_ERROR with the SA's status,
 * IB_TIMEOUT after timeout_ms (0: 1000 ms) and retry_cnt retries, or
 * IB_CANCELED when deregistered first. A failed registration ends its
 * handle after the callback. Callbacks come from access-layer threads; with
 * IB_FLAGS_SYNC the callback runs in the caller's thread before the call
 * returns.
 * @param h_al an open access-layer instance.
 * @param p_reg_svc_req the service and request parameters.
 * @param ph_reg_svc receives the handle of the registration, used to
 * deregister (before the callback can run).
 * @return the status of the call.
 * @retval IB_SUCCESS the registration was started.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_reg_svc_req, ph_reg_svc or pfn_reg_svc_cb
 * is NULL.
 * @retval IB_INVALID_GUID no local port has GUID port_guid.
 * @retval IB_INVALID_SETTING IB_FLAGS_SYNC from an access-layer callback.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_NOT_FOUND no local adapter has the GID of the service record.
 * @retval IB_INVALID_GID no port has the GID of the service record.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_svc(IN const ib_al_handle_t h_al, IN const ib_reg_svc_req_t *const p_reg_svc_req,
	   OUT ib_reg_svc_handle_t *const ph_reg_svc);

/**
 * Removes a service registration from the subnet administrator
 * (Delete(ServiceRecord) of the record the SA returned). Asynchronous,
 * because the registration callback may be running: see
 * ib_pfn_destroy_cb_t. Closing the access-layer instance does the same.
 * @param h_reg_svc the registration.
 * @param pfn_destroy_cb optional callback invoked once the service is
 * deregistered, that is once the SA answered the Delete() or it timed out
 * (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the deregistration was started.
 * @retval IB_INVALID_HANDLE h_reg_svc is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_dereg_svc(IN const ib_reg_svc_handle_t h_reg_svc, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Subnet administration queries                                            */
/* ------------------------------------------------------------------------ */

/**
 * Queries ib_query() performs. The comment of each value says what
 * ib_query_req_t.p_query_input points to.
 */
typedef enum _ib_query_type {
	IB_QUERY_USER_DEFINED,            /**< Any SA query: an ib_user_query_t. */
	IB_QUERY_ALL_SVC_RECS,            /**< All ServiceRecords: no input. */
	IB_QUERY_SVC_REC_BY_NAME,         /**< ServiceRecords by name: an ib_svc_name_t. */
	IB_QUERY_SVC_REC_BY_ID,           /**< ServiceRecords by service ID: an ib_net64_t. */
	IB_QUERY_CLASS_PORT_INFO,         /**< The SA's ClassPortInfo: no input. */
	IB_QUERY_NODE_REC_BY_NODE_GUID,   /**< NodeRecords by node GUID: an ib_net64_t. */
	IB_QUERY_PORT_REC_BY_LID,         /**< PortInfoRecords by base LID: an ib_net16_t. */
	/**
	 * VLArbitrationTableRecords by LID, port and block: an
	 * ib_vl_arb_table_record_t whose lid, port_num and block_num are used.
	 * (Upstream defines no input for it and rejects it with IB_ERROR.)
	 */
	IB_QUERY_VLARB_BY_LID_PORT_BLOCK,
	/**
	 * SLtoVLMappingTableRecords by LID and ports: an
	 * ib_slvl_table_record_t whose lid, in_port_num and out_port_num are
	 * used. (Upstream defines no input for it and rejects it with IB_ERROR.)
	 */
	IB_QUERY_SLVL_BY_LID_AND_PORTS,
	IB_QUERY_PATH_REC_BY_PORT_GUIDS,  /**< PathRecords between two port GUIDs: an ib_guid_pair_t. */
	IB_QUERY_PATH_REC_BY_GIDS,        /**< PathRecords between two GIDs: an ib_gid_pair_t. */
	IB_QUERY_PATH_REC_BY_LIDS,        /**< PathRecords between two LIDs: an ib_lid_pair_t. */
} ib_query_type_t;

/**
 * A user-defined SA query (IB_QUERY_USER_DEFINED). Attribute ID, size,
 * component mask and attribute must follow chapter 15 of the InfiniBand
 * specification.
 */
typedef struct _ib_user_query {
	uint8_t method;              /**< SA method (IB_MAD_METHOD_GET, IB_MAD_METHOD_GETTABLE, ...). */
	ib_net16_t attr_id;          /**< Attribute ID of the record queried. */
	/** Size of the record in bytes; ib_query() sets the SA MAD's attr_offset from it. */
	uint32_t attr_size;
	ib_net64_t comp_mask;        /**< Components of p_attr that are set. */
	/** The record used as template; ignored when comp_mask is 0. */
	TO_LONG_PTR(void *, p_attr);
} ib_user_query_t;

/** The two ends of a path, by GID (IB_QUERY_PATH_REC_BY_GIDS). */
typedef struct _ib_gid_pair {
	ib_gid_t src_gid;            /**< Source GID. */
	ib_gid_t dest_gid;           /**< Destination GID. */
} ib_gid_pair_t;

/** The two ends of a path, by LID (IB_QUERY_PATH_REC_BY_LIDS). */
typedef struct _ib_lid_pair {
	ib_net16_t src_lid;          /**< Source LID. */
	ib_net16_t dest_lid;         /**< Destination LID. */
} ib_lid_pair_t;

/** The two ends of a path, by port (or adapter) GUID (IB_QUERY_PATH_REC_BY_PORT_GUIDS). */
typedef struct _ib_guid_pair {
	ib_net64_t src_guid;         /**< Source GUID. */
	ib_net64_t dest_guid;        /**< Destination GUID. */
} ib_guid_pair_t;

/**
 * Result of an SA query, given to ib_pfn_query_cb_t. When p_result_mad is
 * set, the element belongs to the user, stays valid after the callback and
 * must be returned with ib_put_mad(); read its records with
 * ib_get_query_result() or the typed helpers.
 */
typedef struct _ib_query_rec {
	const void *query_context;   /**< query_context of the request. */
	ib_api_status_t status;      /**< Result of the query. */
	ib_query_type_t query_type;  /**< Type of the query. */
	uint32_t result_cnt;         /**< Number of records returned. */
	/**
	 * The SA's response MAD holding the records (status IB_SUCCESS) or the
	 * SA's error status (IB_REMOTE_ERROR); NULL otherwise.
	 */
	ib_mad_element_t *p_result_mad;
} ib_query_rec_t;

/**
 * Returns a record of an SA query result. Records follow the SA MAD header
 * at the stride given by the MAD's attr_offset; the caller knows their type
 * from the query type.
 * @param p_result_mad the result MAD (ib_query_rec_t.p_result_mad).
 * @param result_index zero-based index of the record, below result_cnt.
 * @return a pointer to the record inside the MAD buffer.
 */
AL_INLINE void *AL_API
ib_get_query_result(IN ib_mad_element_t *p_result_mad, IN uint32_t result_index)
{
	ib_sa_mad_t *p_sa_mad;

	CL_ASSERT(p_result_mad);
	p_sa_mad = (ib_sa_mad_t *)ib_get_mad_buf(p_result_mad);
	CL_ASSERT(p_sa_mad);
	CL_ASSERT(ib_get_attr_size(p_sa_mad->attr_offset) * (result_index + 1) +
		  IB_SA_MAD_HDR_SIZE <= p_result_mad->size);
	return p_sa_mad->data + ib_get_attr_size(p_sa_mad->attr_offset) * result_index;
}

/**
 * Returns a PathRecord of an SA query result.
 * @param p_result_mad the result MAD, whose attribute is
 * IB_MAD_ATTR_PATH_RECORD.
 * @param result_index zero-based index of the record.
 * @return a pointer to the record inside the MAD buffer.
 */
AL_INLINE ib_path_rec_t *AL_API
ib_get_query_path_rec(IN ib_mad_element_t *p_result_mad, IN uint32_t result_index)
{
	CL_ASSERT(p_result_mad && ib_get_mad_buf(p_result_mad) &&
		  ((ib_sa_mad_t *)ib_get_mad_buf(p_result_mad))->attr_id == IB_MAD_ATTR_PATH_RECORD);
	return (ib_path_rec_t *)ib_get_query_result(p_result_mad, result_index);
}

/**
 * Returns a PortInfoRecord of an SA query result.
 * @param p_result_mad the result MAD, whose attribute is
 * IB_MAD_ATTR_PORTINFO_RECORD.
 * @param result_index zero-based index of the record.
 * @return a pointer to the record inside the MAD buffer.
 */
AL_INLINE ib_portinfo_record_t *AL_API
ib_get_query_portinfo_rec(IN ib_mad_element_t *p_result_mad, IN uint32_t result_index)
{
	CL_ASSERT(p_result_mad && ib_get_mad_buf(p_result_mad) &&
		  ((ib_sa_mad_t *)ib_get_mad_buf(p_result_mad))->attr_id == IB_MAD_ATTR_PORTINFO_RECORD);
	return (ib_portinfo_record_t *)ib_get_query_result(p_result_mad, result_index);
}

/**
 * Returns a NodeRecord of an SA query result.
 * @param p_result_mad the result MAD, whose attribute is
 * IB_MAD_ATTR_NODE_RECORD.
 * @param result_index zero-based index of the record.
 * @return a pointer to the record inside the MAD buffer.
 */
AL_INLINE ib_node_record_t *AL_API
ib_get_query_node_rec(IN ib_mad_element_t *p_result_mad, IN uint32_t result_index)
{
	CL_ASSERT(p_result_mad && ib_get_mad_buf(p_result_mad) &&
		  ((ib_sa_mad_t *)ib_get_mad_buf(p_result_mad))->attr_id == IB_MAD_ATTR_NODE_RECORD);
	return (ib_node_record_t *)ib_get_query_result(p_result_mad, result_index);
}

/**
 * Returns a ServiceRecord of an SA query result.
 * @param p_result_mad the result MAD, whose attribute is
 * IB_MAD_ATTR_SERVICE_RECORD.
 * @param result_index zero-based index of the record.
 * @return a pointer to the record inside the MAD buffer.
 */
AL_INLINE ib_service_record_t *AL_API
ib_get_query_svc_rec(IN ib_mad_element_t *p_result_mad, IN uint32_t result_index)
{
	CL_ASSERT(p_result_mad && ib_get_mad_buf(p_result_mad) &&
		  ((ib_sa_mad_t *)ib_get_mad_buf(p_result_mad))->attr_id == IB_MAD_ATTR_SERVICE_RECORD);
	return (ib_service_record_t *)ib_get_query_result(p_result_mad, result_index);
}

/**
 * Reports the result of an SA query.
 * @param p_query_rec the result; valid during the callback only (the result
 * MAD it references stays with the user).
 */
typedef void (AL_API *ib_pfn_query_cb_t)(IN ib_query_rec_t *p_query_rec);

/**
 * Request for an SA query performed by the access layer (ib_query()).
 * p_query_input points to the input the query_type calls for: a service
 * name, a service ID, a GUID, a LID, a pair of GUIDs, GIDs or LIDs, or an
 * ib_user_query_t.
 */
typedef struct _ib_query_req {
	ib_query_type_t query_type;  /**< The query to perform. */
	const void *p_query_input;   /**< Input of the query (see ib_query_type_t). */
	ib_net64_t port_guid;        /**< Port through which the SA is reached. */
	uint32_t timeout_ms;         /**< Milliseconds to wait for the SA before a retry. */
	uint32_t retry_cnt;          /**< Retries before the query fails. */
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the query synchronously. */
	const void *query_context;   /**< Context returned in pfn_query_cb. */
	ib_pfn_query_cb_t pfn_query_cb; /**< Callback invoked with the result. */
} ib_query_req_t;

/**
 * Sends a query to the subnet administrator, with retries as requested,
 * and reports the result through p_query_req->pfn_query_cb.
 *
 * The request goes to the master SM's LID and SL of port_guid, QP1, as a
 * GetTable() (a Get() for ClassPortInfo and PathRecords by LIDs), and waits
 * timeout_ms (0: 1000 ms) for the answer before each of retry_cnt retries;
 * multi-MAD answers are reassembled (RMPP). While the port is not active or
 * knows no SM, nothing is sent and the query ends with IB_TIMEOUT after
 * the same time. The callback gets IB_SUCCESS with the answer in
 * p_result_mad and result_cnt records (one for a Get()), IB_REMOTE_ERROR
 * with the SA's answer (its status in the MAD), IB_TIMEOUT, IB_CANCELED
 * (ib_cancel_query(), or the instance being closed: ib_close_al() returns
 * after that callback) or IB_ERROR. The query's handle ends after the
 * callback. Callbacks come from access-layer threads; with IB_FLAGS_SYNC
 * the callback runs in the caller's thread before ib_query() returns.
 * @param h_al an open access-layer instance.
 * @param p_query_req the query.
 * @param ph_query optional; receives a handle that can cancel the query
 * (before the callback can run).
 * @return the status of the call.
 * @retval IB_SUCCESS the query was started (with IB_FLAGS_SYNC: it is over
 * and its callback has returned).
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_query_req or pfn_query_cb is NULL, or the
 * query type needs an input and p_query_input is NULL.
 * @retval IB_INVALID_SETTING a user-defined query with method 0 or a record
 * larger than an SA MAD's data (200 bytes).
 * @retval IB_UNSUPPORTED IB_FLAGS_SYNC from an access-layer callback, where
 * the wait could never end.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_GUID no port has GUID port_guid.
 * @retval IB_ERROR query_type is invalid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_query(IN const ib_al_handle_t h_al, IN const ib_query_req_t *const p_query_req,
	 OUT ib_query_handle_t *const ph_query OPTIONAL);

/**
 * Cancels an SA query. The query callback still reports the query's final
 * status: IB_CANCELED, unless the answer was already there. Nothing happens
 * for an invalid instance or query handle, a query of another instance, or
 * a query that is over.
 * @param h_al the access-layer instance of the query.
 * @param h_query the query, from ib_query().
 */
AL_EXPORT void AL_API
ib_cancel_query(IN const ib_al_handle_t h_al, IN const ib_query_handle_t h_query);

/* ------------------------------------------------------------------------ */
/* Plug and play                                                            */
/* ------------------------------------------------------------------------ */

#define IB_PNP_CA   0x00000001 /**< Class: local channel adapters (added, removed). */
#define IB_PNP_PORT 0x00000002 /**< Class: local ports (state, LID, P_Key, SM, GID changes). */
#define IB_PNP_IOU  0x00000004 /**< Class: I/O units assigned to or removed from this host. */
#define IB_PNP_IOC  0x00000008 /**< Class: I/O controllers assigned to or removed from this host. */

/** Flag ORed with the class: ib_reg_pnp() returns once the current state was reported. */
#define IB_PNP_FLAG_REG_SYNC     0x40000000
/** Flag ORed with the class: an IB_PNP_REG_COMPLETE event follows the report of the current state. */
#define IB_PNP_FLAG_REG_COMPLETE 0x80000000
#define IB_PNP_FLAG_MASK         0xF0000000 /**< Flag bits of an ib_pnp_class_t. */
#define IB_PNP_CLASS_MASK        0x000000FF /**< Class bits of an ib_pnp_class_t or ib_pnp_event_t. */

/**
 * Class of PnP events to register for: one IB_PNP_CA, IB_PNP_PORT,
 * IB_PNP_IOU or IB_PNP_IOC (a registration covers one class), optionally
 * ORed with IB_PNP_FLAG_* flags.
 */
typedef uint32_t ib_pnp_class_t;

#define IB_PNP_EVENT_PATH   0x00000800 /**< Event bit: a path (to an IOC). */
#define IB_PNP_EVENT_ADD    0x00001000 /**< Event bit: addition. */
#define IB_PNP_EVENT_REMOVE 0x00002000 /**< Event bit: removal. */
#define IB_PNP_EVENT_CHANGE 0x00004000 /**< Event bit: change. */
#define IB_PNP_EVENT_INIT   0x00008000 /**< Event bit: link in the INIT state. */
#define IB_PNP_EVENT_ARMED  0x00010000 /**< Event bit: link in the ARMED state. */
#define IB_PNP_EVENT_ACTIVE 0x00020000 /**< Event bit: link in the ACTIVE state. */
#define IB_PNP_EVENT_DOWN   0x00040000 /**< Event bit: link down. */
#define IB_PNP_EVENT_PKEY   0x00080000 /**< Event bit: P_Key table change. */
#define IB_PNP_EVENT_SM     0x00100000 /**< Event bit: subnet manager change. */
#define IB_PNP_EVENT_GID    0x00200000 /**< Event bit: GID change. */
#define IB_PNP_EVENT_LID    0x00400000 /**< Event bit: LID or LMC change. */
#define IB_PNP_EVENT_SUBNET 0x00800000 /**< Event bit: subnet timeout change. */

#define IB_PNP_CA_ADD    (IB_PNP_CA | IB_PNP_EVENT_ADD)    /**< An adapter was added. */
#define IB_PNP_CA_REMOVE (IB_PNP_CA | IB_PNP_EVENT_REMOVE) /**< An adapter was removed. */

/** A port was added; an event giving the port's actual state always follows. */
#define IB_PNP_PORT_ADD              (IB_PNP_PORT | IB_PNP_EVENT_ADD)
/** A port was removed (reported before the removal of its adapter). */
#define IB_PNP_PORT_REMOVE           (IB_PNP_PORT | IB_PNP_EVENT_REMOVE)
#define IB_PNP_PORT_INIT             (IB_PNP_PORT | IB_PNP_EVENT_INIT)   /**< A port is in IB_LINK_INIT. */
#define IB_PNP_PORT_ARMED            (IB_PNP_PORT | IB_PNP_EVENT_ARMED)  /**< A port is in IB_LINK_ARMED. */
#define IB_PNP_PORT_ACTIVE           (IB_PNP_PORT | IB_PNP_EVENT_ACTIVE) /**< A port is in IB_LINK_ACTIVE. */
#define IB_PNP_PORT_DOWN             (IB_PNP_PORT | IB_PNP_EVENT_DOWN)   /**< A port went down. */
#define IB_PNP_PKEY_CHANGE           (IB_PNP_PORT | IB_PNP_EVENT_PKEY)   /**< A port's P_Key table changed. */
#define IB_PNP_SM_CHANGE             (IB_PNP_PORT | IB_PNP_EVENT_SM)     /**< A port's subnet manager changed. */
#define IB_PNP_GID_CHANGE            (IB_PNP_PORT | IB_PNP_EVENT_GID)    /**< A port's GID changed. */
#define IB_PNP_LID_CHANGE            (IB_PNP_PORT | IB_PNP_EVENT_LID)    /**< A port's LID or LMC changed. */
#define IB_PNP_SUBNET_TIMEOUT_CHANGE (IB_PNP_PORT | IB_PNP_EVENT_SUBNET) /**< A port's subnet timeout changed. */

#define IB_PNP_IOU_ADD    (IB_PNP_IOU | IB_PNP_EVENT_ADD)    /**< An I/O unit was assigned to this host. */
#define IB_PNP_IOU_REMOVE (IB_PNP_IOU | IB_PNP_EVENT_REMOVE) /**< An I/O unit was dissociated from this host. */
#define IB_PNP_IOC_ADD    (IB_PNP_IOC | IB_PNP_EVENT_ADD)    /**< An I/O controller was assigned to this host. */
/** An I/O controller was dissociated (reported after the down event of its port). */
#define IB_PNP_IOC_REMOVE (IB_PNP_IOC | IB_PNP_EVENT_REMOVE)
/** A new path to an I/O controller is available. */
#define IB_PNP_IOC_PATH_ADD    (IB_PNP_IOC | IB_PNP_EVENT_PATH | IB_PNP_EVENT_ADD)
/** A path to an I/O controller is no longer available. */
#define IB_PNP_IOC_PATH_REMOVE (IB_PNP_IOC | IB_PNP_EVENT_PATH | IB_PNP_EVENT_REMOVE)

/** Every event describing the state at ib_reg_pnp() time has been reported. */
#define IB_PNP_REG_COMPLETE IB_PNP_FLAG_REG_COMPLETE

/**
 * A PnP event: one of the IB_PNP_* event values above. Additions (adapter,
 * port, IOC) are reported to the registrations in registration order,
 * removals in reverse order.
 */
typedef uint32_t ib_pnp_event_t;

/**
 * Name of a PnP event.
 * @param event the event.
 * @return a static string holding the macro's name, e.g. "IB_PNP_PORT_ACTIVE";
 * "Unknown" for a value that is not a PnP event.
 */
AL_INLINE const char *AL_API
ib_get_pnp_event_str(IN ib_pnp_event_t event)
{
	switch (event) {
	case IB_PNP_CA_ADD: return "IB_PNP_CA_ADD";
	case IB_PNP_CA_REMOVE: return "IB_PNP_CA_REMOVE";
	case IB_PNP_PORT_ADD: return "IB_PNP_PORT_ADD";
	case IB_PNP_PORT_REMOVE: return "IB_PNP_PORT_REMOVE";
	case IB_PNP_PORT_INIT: return "IB_PNP_PORT_INIT";
	case IB_PNP_PORT_ARMED: return "IB_PNP_PORT_ARMED";
	case IB_PNP_PORT_ACTIVE: return "IB_PNP_PORT_ACTIVE";
	case IB_PNP_PORT_DOWN: return "IB_PNP_PORT_DOWN";
	case IB_PNP_PKEY_CHANGE: return "IB_PNP_PKEY_CHANGE";
	case IB_PNP_SM_CHANGE: return "IB_PNP_SM_CHANGE";
	case IB_PNP_GID_CHANGE: return "IB_PNP_GID_CHANGE";
	case IB_PNP_LID_CHANGE: return "IB_PNP_LID_CHANGE";
	case IB_PNP_SUBNET_TIMEOUT_CHANGE: return "IB_PNP_SUBNET_TIMEOUT_CHANGE";
	case IB_PNP_IOU_ADD: return "IB_PNP_IOU_ADD";
	case IB_PNP_IOU_REMOVE: return "IB_PNP_IOU_REMOVE";
	case IB_PNP_IOC_ADD: return "IB_PNP_IOC_ADD";
	case IB_PNP_IOC_REMOVE: return "IB_PNP_IOC_REMOVE";
	case IB_PNP_IOC_PATH_ADD: return "IB_PNP_IOC_PATH_ADD";
	case IB_PNP_IOC_PATH_REMOVE: return "IB_PNP_IOC_PATH_REMOVE";
	case IB_PNP_REG_COMPLETE: return "IB_PNP_REG_COMPLETE";
	default: break;
	}
	return "Unknown";
}

/**
 * A PnP event, given to ib_pfn_pnp_cb_t. Depending on the class, the record
 * is the first member of an ib_pnp_ca_rec_t, ib_pnp_port_rec_t,
 * ib_pnp_iou_rec_t, ib_pnp_ioc_rec_t or ib_pnp_ioc_path_rec_t, to which the
 * callback casts it.
 *
 * The context field starts NULL for a new device. The callback may store a
 * value in it; the value takes effect when the callback returns and is given
 * back with the later events of the same device (across port down and up)
 * until the device is removed.
 */
typedef struct _ib_pnp_rec {
	ib_pnp_event_t pnp_event;    /**< The event. */
	/**
	 * The registration the event is for, given here because an event may
	 * arrive before ib_reg_pnp() returns; usable to deregister.
	 */
	TO_LONG_PTR(struct _al_pnp *, h_pnp);
	/** IB_PNP_IOC_ADD: handle of the assignment, to reject it with ib_reject_ioc(). */
	TO_LONG_PTR(struct _al_pnp *, h_ioc_event);
	/** pnp_context of the registration. */
	TO_LONG_PTR(void *, pnp_context);
	/** The user's context for the device (see above). */
	TO_LONG_PTR(void *, context);
	/** GUID of the adapter, port, I/O unit or I/O controller of the event (kept next to ca_guid). */
	ib_net64_t guid;
	ib_net64_t ca_guid;          /**< GUID of the adapter. */
} ib_pnp_rec_t;

/** A channel adapter event (class IB_PNP_CA). */
typedef struct _ib_pnp_ca_rec {
	ib_pnp_rec_t pnp_rec;        /**< The event. */
	/** Attributes of the adapter; NULL for removals. */
	TO_LONG_PTR(ib_ca_attr_t *, p_ca_attr);
} ib_pnp_ca_rec_t;

/** A port event (class IB_PNP_PORT). */
typedef struct _ib_pnp_port_rec {
	ib_pnp_rec_t pnp_rec;        /**< The event. */
	/** Attributes of the adapter; NULL for removals. */
	TO_LONG_PTR(ib_ca_attr_t *, p_ca_attr);
	/** Attributes of the port (within p_ca_attr); NULL for removals. */
	TO_LONG_PTR(ib_port_attr_t *, p_port_attr);
} ib_pnp_port_rec_t;

/** An I/O unit event (class IB_PNP_IOU). The fields after pnp_rec are valid for IB_PNP_IOU_ADD. */
typedef struct _ib_pnp_iou_rec {
	ib_pnp_rec_t pnp_rec;        /**< The event. */
	net64_t guid;                /**< GUID of the I/O unit. */
	net64_t ca_guid;             /**< GUID of the local adapter through which the unit is reached. */
	net64_t chassis_guid;        /**< GUID of the chassis of the unit. */
	uint8_t slot;                /**< Chassis slot of the unit. */
	net32_t vend_id;             /**< Vendor ID of the unit. */
	net16_t dev_id;              /**< Device ID of the unit. */
	net32_t revision;            /**< Revision of the unit. */
	char desc[IB_NODE_DESCRIPTION_SIZE + 1]; /**< Node description of the unit, NUL-terminated. */
} ib_pnp_iou_rec_t;

/** An I/O controller event (class IB_PNP_IOC). The fields after pnp_rec are valid for IB_PNP_IOC_ADD. */
typedef struct _ib_pnp_ioc_rec {
	ib_pnp_rec_t pnp_rec;        /**< The event. */
	net64_t ca_guid;             /**< GUID of the local adapter through which the controller is reached. */
	ib_ioc_info_t info;          /**< The controller and its I/O unit. */
	/**
	 * Service entries of the controller; the array really has
	 * info.profile.num_svc_entries entries.
	 */
	ib_svc_entry_t svc_entry_array[1];
} ib_pnp_ioc_rec_t;

/**
 * An I/O controller path event (IB_PNP_IOC_PATH_ADD, IB_PNP_IOC_PATH_REMOVE),
 * about a controller already reported.
 */
typedef struct _ib_pnp_ioc_path_rec {
	ib_pnp_rec_t pnp_rec;        /**< The event. */
	net64_t ca_guid;             /**< GUID of the local adapter of the path. */
	net64_t port_guid;           /**< GUID of the local port of the path. */
	ib_path_rec_t path;          /**< The path to the controller. */
} ib_pnp_ioc_path_rec_t;

/**
 * Reports a PnP event. Invoked from a thread of the access layer.
 * @param p_pnp_rec the event (cast it to the record type of the class).
 * @return IB_SUCCESS to have the access layer keep a context for the
 * device; any other status means none is needed, and no further event
 * related to it is delivered (for IB_PNP_IOC_ADD, it rejects the
 * controller).
 */
typedef ib_api_status_t (AL_API *ib_pfn_pnp_cb_t)(IN ib_pnp_rec_t *p_pnp_rec);

/** Request to be notified of PnP events of one class. */
typedef struct _ib_pnp_req {
	ib_pnp_class_t pnp_class;    /**< Class of the events, with optional IB_PNP_FLAG_* flags. */
	const void *pnp_context;     /**< Context returned in every event (pnp_context). */
	ib_pfn_pnp_cb_t pfn_pnp_cb;  /**< Callback invoked for each event. */
} ib_pnp_req_t;

/**
 * Registers for notification of PnP events of one class. The callback is
 * first invoked for the current state of the system, then for later
 * changes: for IB_PNP_CA an IB_PNP_CA_ADD per adapter; for IB_PNP_PORT an
 * IB_PNP_PORT_ADD per port, each followed by the event of the port's link
 * state when it is not down (IB_PNP_PORT_INIT, IB_PNP_PORT_ARMED or
 * IB_PNP_PORT_ACTIVE). With IB_PNP_FLAG_REG_COMPLETE an IB_PNP_REG_COMPLETE
 * event follows those; with IB_PNP_FLAG_REG_SYNC the call returns only
 * once they have been delivered. Events of one registration are delivered
 * one at a time, in order, from threads of the access layer.
 *
 * IB_PNP_IOU and IB_PNP_IOC report the I/O units and controllers that the
 * access layer discovers on the subnets of the active local ports: while
 * such a registration exists, it sweeps them (at once, then every
 * IBAL_IOC_SWEEP_MS milliseconds, default 3000) for ports whose
 * CapabilityMask has IsDeviceManagementSupported (SA PortInfoRecords) and
 * reads their IOUnitInfo, IOControllerProfiles and ServiceEntries. IB_PNP_IOU
 * gives IB_PNP_IOU_ADD and IB_PNP_IOU_REMOVE (ib_pnp_iou_rec_t; guid is the
 * unit's node GUID). IB_PNP_IOC gives IB_PNP_IOC_ADD (ib_pnp_ioc_rec_t with
 * the profile and every service entry), then IB_PNP_IOC_PATH_ADD per path
 * from a local port (ib_pnp_ioc_path_rec_t); IB_PNP_IOC_PATH_REMOVE per path
 * then IB_PNP_IOC_REMOVE when it goes; guid is the controller's GUID and the
 * device context set on IB_PNP_IOC_ADD comes with its later events. A
 * controller whose profile or service entries change is reported removed,
 * then added again. Their initial state is what the first sweep finds: a
 * registration made before it completes gets IB_PNP_REG_COMPLETE (and, with
 * IB_PNP_FLAG_REG_SYNC, its return) after it. docs/ioc.md has the details.
 * @param h_al an open access-layer instance.
 * @param p_pnp_req the class and callback.
 * @param ph_pnp receives the handle of the registration.
 * @return the status of the call.
 * @retval IB_SUCCESS the registration was made.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_pnp_req, its pfn_pnp_cb or ph_pnp is NULL,
 * or pnp_class is not one class with IB_PNP_FLAG_* flags.
 * @retval IB_INVALID_STATE IB_PNP_FLAG_REG_SYNC was asked for from a
 * callback of the access layer, where waiting could never end.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_ERROR the thread of the PnP manager, or for IB_PNP_IOU and
 * IB_PNP_IOC of the IOC discovery, could not be started.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reg_pnp(IN const ib_al_handle_t h_al, IN const ib_pnp_req_t *const p_pnp_req,
	   OUT ib_pnp_handle_t *const ph_pnp);

/**
 * Cancels a PnP registration. Asynchronous, because an event callback may
 * be running: see ib_pfn_destroy_cb_t.
 * @param h_pnp the registration.
 * @param pfn_destroy_cb optional callback invoked once the registration is
 * canceled (or ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the deregistration was started.
 * @retval IB_INVALID_HANDLE h_pnp is invalid.
 * @retval IB_INVALID_STATE ib_sync_destroy from a PnP callback of the
 * registration (the wait could never end); nothing was canceled.
 */
AL_EXPORT ib_api_status_t AL_API
ib_dereg_pnp(IN const ib_pnp_handle_t h_pnp, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/* ------------------------------------------------------------------------ */
/* Event subscriptions                                                      */
/* ------------------------------------------------------------------------ */

/** Result of a subscription, given to ib_pfn_sub_cb_t. */
typedef struct _ib_sub_rec {
	const void *sub_context;     /**< sub_context of the request. */
	ib_api_status_t status;      /**< Result of the subscription. */
	/** The subscription, given here because the result may arrive before ib_subscribe() returns. */
	ib_sub_handle_t h_sub;
} ib_sub_rec_t;

/**
 * Reports the result of a subscription. It comes before any report of the
 * subscribed events.
 * @param p_sub_rec the result; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_sub_cb_t)(IN ib_sub_rec_t *p_sub_rec);

/** A report (notice) of a subscribed event, given to ib_pfn_report_cb_t. */
typedef struct _ib_report_rec {
	const void *report_context;  /**< report_context of the subscription. */
	ib_mad_notice_attr_t *p_notice; /**< The Notice describing the event. */
} ib_report_rec_t;

/**
 * Reports an event seen by a class manager, for a subscription. Invoked from
 * a thread of the access layer.
 * @param p_report_rec the report; valid during the callback only.
 */
typedef void (AL_API *ib_pfn_report_cb_t)(IN ib_report_rec_t *p_report_rec);

/**
 * Request to subscribe with a class manager for event reports. The result
 * of the subscription is reported before any event.
 */
typedef struct _ib_sub_req {
	/** Service name of the class manager; unused: the SA of port_guid is the one subscribed with. */
	ib_svc_name_t *p_class_mgr_name;
	ib_inform_info_t *p_inform_info; /**< InformInfo describing the events. */
	ib_net64_t port_guid;        /**< Port through which the class manager is reached. */
	uint32_t timeout_ms;         /**< Milliseconds to wait for a response before a retry. */
	uint32_t retry_cnt;          /**< Retries before the request fails. */
	ib_al_flags_t flags;         /**< IB_FLAGS_SYNC to process the request synchronously. */
	const void *sub_context;     /**< Context returned in pfn_sub_cb. */
	ib_pfn_sub_cb_t pfn_sub_cb;  /**< Callback invoked with the result of the subscription. */
	const void *report_context;  /**< Context returned in every report. */
	ib_pfn_report_cb_t pfn_report_cb; /**< Callback invoked for every report. */
} ib_sub_req_t;

/**
 * Subscribes with a class manager for notification of events.
 *
 * The access layer sends the SA of port_guid a Set(InformInfo) with
 * Subscribe 1 (and QPN 1 when the InformInfo gives none). Once the SA has
 * accepted it (pfn_sub_cb with IB_SUCCESS; otherwise IB_REMOTE_ERROR,
 * IB_TIMEOUT or IB_CANCELED, and the handle ends after the callback), every
 * Report(Notice) that reaches the port and matches the InformInfo (IsGeneric,
 * Type, TrapNumber or DeviceID, ProducerType or VendorID, and the issuer's
 * LID against the LID range; the GID is not compared) is answered with
 * ReportResp() and given to pfn_report_cb, on an access-layer thread, one
 * at a time, after the subscription's own callback. With IB_FLAGS_SYNC the
 * subscription callback runs in the caller's thread before the call
 * returns.
 * @param h_al an open access-layer instance.
 * @param p_sub_req the subscription.
 * @param ph_sub receives the handle of the subscription (before the
 * callback can run).
 * @return the status of the call.
 * @retval IB_SUCCESS the subscription was started.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_PARAMETER p_sub_req, ph_sub, p_inform_info, pfn_sub_cb
 * or pfn_report_cb is NULL.
 * @retval IB_INVALID_SETTING IB_FLAGS_SYNC from an access-layer callback.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INVALID_GUID no port has GUID port_guid.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_subscribe(IN const ib_al_handle_t h_al, IN const ib_sub_req_t *const p_sub_req,
	     OUT ib_sub_handle_t *const ph_sub);

/**
 * Cancels a subscription, active or pending. Asynchronous, because a report
 * callback may be running: see ib_pfn_destroy_cb_t. No report is delivered
 * once the call returns but those already queued; the SA gets a
 * Set(InformInfo) with Subscribe 0. Closing the instance does the same.
 * @param h_sub the subscription.
 * @param pfn_destroy_cb optional callback invoked once the subscription is
 * canceled, that is once the SA answered or the request timed out (or
 * ib_sync_destroy).
 * @return the status of the call.
 * @retval IB_SUCCESS the cancellation was started.
 * @retval IB_INVALID_HANDLE h_sub is invalid.
 * @retval IB_INVALID_PARAMETER documented by upstream for a missing request
 * or handle.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_INSUFFICIENT_RESOURCES the adapter has no resources left.
 */
AL_EXPORT ib_api_status_t AL_API
ib_unsubscribe(IN const ib_sub_handle_t h_sub, IN const ib_pfn_destroy_cb_t pfn_destroy_cb OPTIONAL);

/**
 * Rejects the assignment of an I/O controller to this host. Meant for the
 * ib_pfn_pnp_cb_t callback of the IB_PNP_IOC_ADD event, it may also be
 * called later while the controller is reported present. The registration
 * of the event gets no further event of that controller (no path events,
 * no IB_PNP_IOC_REMOVE); other registrations are not affected. There is
 * no configuration manager to tell on this platform: the rejection is
 * local to the registration. Returning an error status from the
 * IB_PNP_IOC_ADD callback does the same.
 * @param h_al the access-layer instance of the registration.
 * @param h_ioc_event the h_ioc_event of the event's ib_pnp_rec_t.
 * @return the status of the call.
 * @retval IB_SUCCESS the controller is rejected.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_HANDLE h_ioc_event is NULL, not the h_ioc_event of an
 * IB_PNP_IOC_ADD of a registration of h_al, or its controller was removed
 * or its registration ended.
 * @retval IB_INSUFFICIENT_MEMORY documented by upstream; not returned.
 * @retval IB_INSUFFICIENT_RESOURCES documented by upstream; not returned.
 */
AL_EXPORT ib_api_status_t AL_API
ib_reject_ioc(IN const ib_al_handle_t h_al, IN const ib_pnp_handle_t h_ioc_event);

/* ------------------------------------------------------------------------ */
/* Device lookup, vendor calls, access-layer instances                      */
/* ------------------------------------------------------------------------ */

/** ib_get_guid() index: the first device or port with the requested attributes. */
#define IB_ANY_INDEX -1

/** ib_get_guid() attribute: the port is active (port GUIDs only). */
#define IB_DEV_PORT_ACTIVE 0x1

/**
 * Returns the GUID of a device or port that has the requested attributes,
 * either the one at a given index or the first match. Indexes let a caller
 * walk every device or port; they may change when devices are removed.
 * @param h_al an open access-layer instance.
 * @param index position of the device or port, or IB_ANY_INDEX for the
 * first that matches.
 * @param device_type class of device: IB_PNP_CA (adapters, in the order of
 * ib_get_ca_guids()), IB_PNP_PORT (their ports, adapter by adapter) or
 * IB_PNP_IOC (the I/O controllers the IOC discovery found: its last sweep
 * while an IB_PNP_IOU or IB_PNP_IOC registration exists, else a sweep made
 * by the call, which then takes as long as the subnet takes to answer;
 * none from an access-layer callback thread). Upstream accepts IB_PNP_IOC
 * without implementing it.
 * @param attr_mask attributes the device or port must have (IB_DEV_*;
 * IB_DEV_PORT_ACTIVE concerns ports only, adapters and controllers match
 * any mask).
 * @param p_guid receives the GUID.
 * @return the status of the call.
 * @retval IB_SUCCESS the GUID was returned.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_SETTING device_type is invalid.
 * @retval IB_INVALID_PARAMETER p_guid is NULL.
 * @retval IB_NO_MATCH the device or port at index lacks the attributes, or
 * none matches (IB_ANY_INDEX).
 * @retval IB_INVALID_INDEX no device or port has that index.
 */
AL_EXPORT ib_api_status_t AL_API
ib_get_guid(IN ib_al_handle_t h_al, IN const uint32_t index, IN const ib_pnp_class_t device_type,
	    IN const uint64_t attr_mask, OUT ib_net64_t *const p_guid);

/**
 * Performs a vendor-specific call to the verbs provider of an adapter.
 * Handles the vendor data refers to are listed in handle_array, so that the
 * access layer can check that they exist and belong to the caller; they may
 * be PD, CQ, AV, QP, MR or MW handles. The call cannot create handles usable
 * with other access-layer calls.
 * @param h_ca an open adapter.
 * @param handle_array optional array of the handles the vendor data uses.
 * @param num_handles number of entries of handle_array.
 * @param p_ci_op the vendor operation and its data; its status field gets
 * the provider's status.
 * @return the status of the call.
 * @retval IB_SUCCESS the call succeeded.
 * @retval IB_INVALID_CA_HANDLE h_ca is invalid.
 * @retval IB_INVALID_PARAMETER p_ci_op is NULL.
 * @retval IB_INVALID_HANDLE a handle of handle_array is invalid.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 * @retval IB_ERROR the provider failed the command; see p_ci_op->status.
 */
AL_EXPORT ib_api_status_t AL_API
ib_ci_call(IN ib_ca_handle_t h_ca, IN const void **const handle_array OPTIONAL,
	   IN uint32_t num_handles, IN ib_ci_op_t *const p_ci_op);

/**
 * Opens an instance of the access layer, needed before any other resource
 * can be allocated. Do not call it from a library's initialization (for
 * example a constructor run at load time).
 * @param ph_al receives the handle of the instance.
 * @return the status of the call.
 * @retval IB_SUCCESS the instance was opened.
 * @retval IB_INVALID_PARAMETER ph_al is NULL.
 * @retval IB_INSUFFICIENT_MEMORY not enough memory.
 */
AL_EXPORT ib_api_status_t AL_API
ib_open_al(OUT ib_al_handle_t *const ph_al);

/**
 * Closes an instance of the access layer and destroys everything allocated
 * through it (adapters, queue pairs, connections, registrations, ...). The
 * call blocks until outstanding callbacks have returned, so it must not be
 * called from an access-layer callback.
 * @param h_al the instance.
 * @return the status of the call.
 * @retval IB_SUCCESS the instance was closed.
 * @retval IB_INVALID_AL_HANDLE h_al is invalid.
 * @retval IB_INVALID_STATE called from an access-layer callback (the wait
 * for callbacks could never end); nothing was closed.
 */
AL_EXPORT ib_api_status_t AL_API
ib_close_al(IN const ib_al_handle_t h_al);

#ifdef __cplusplus
}
#endif

#endif /* __IB_AL_H__ */
