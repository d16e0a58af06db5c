/*
 * ibal access layer: the SA client's request engine and per-port SA services, private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_sa_client.h
 * @brief The engine under ib_query(), ib_reg_svc(), ib_join_mcast() and
 * ib_subscribe(): one SA request service per port, shared by every AL
 * instance of the process, and requests sent through it.
 *
 * A port's service (al_sa_port_t) is made on the first al_sa_port_get() for
 * the port: an internal AL instance opens the port's CA, an alias PD, the
 * QP1 alias (ib_get_spl_qp(), IB_QPT_QP1_ALIAS) and one MAD service on it
 * for class SubnAdm version 2, which also takes unsolicited Report()s.
 * Every AL instance that used the port holds it until the instance is
 * closed, and every object using it holds it too; the last
 * al_sa_port_put() ends it; as that may happen on an AL callback
 * thread, where ib_close_al() is refused, the teardown runs on a short-lived
 * thread of its own (al_sa_quiesce() waits for those).
 *
 * While the port is not ACTIVE or knows no SM (sm_lid 0), a request is not
 * sent: it waits as long as its timeouts and retries would have lasted
 * (timeout_ms * (retry_cnt + 1)) and ends with IB_TIMEOUT, so an absent SA
 * always ends in a timeout.
 *
 * Requests (al_sa_req_t) are addressed to the port's master SM (sm_lid,
 * sm_sl of the port attributes, read per request), QP1, Q_Key
 * IB_QP1_WELL_KNOWN_Q_KEY, P_Key index 0, and sent with the MAD service's
 * timeout and retries. Each request belongs to an owner object (a query,
 * registration, membership or subscription): while it is outstanding the
 * owner holds an extra reference, so its completion can always be queued
 * on it. The done function is called exactly once, on a thread of the MAD
 * services (or the caller's, when the send fails at once it is not called:
 * the send returns the error), with:
 *  - IB_SUCCESS and the response, when the SA answered with status 0;
 *  - IB_REMOTE_ERROR and the response, when it answered with an error;
 *  - IB_TIMEOUT (retries exhausted), IB_CANCELED (al_sa_cancel()), or
 *    IB_ERROR (any other send failure), without a response.
 * The response element then belongs to the done function.
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef AL_SA_CLIENT_H
#define AL_SA_CLIENT_H

#include <pthread.h>
#include <iba/ib_al.h>
#include <complib/cl_event.h>
#include <complib/cl_qlist.h>
#include "al_port_agent.h"
#include <complib/cl_timer.h>
#include "al_obj.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default wait for an SA response when a request gives timeout_ms 0. */
#define AL_SA_DEFAULT_TIMEOUT_MS 1000u

/** A port's SA request service (opaque outside al_sa_client.c). */
typedef struct al_sa_port al_sa_port_t;

struct al_sa_req;

/**
 * Completion of a request (see the file description).
 * @param p_req the request.
 * @param status the result.
 * @param p_resp the response, or NULL; owned by the callee.
 */
typedef void (*al_sa_pfn_done_t)(struct al_sa_req *p_req, ib_api_status_t status,
				 ib_mad_element_t *p_resp);

/** One request to the SA. Zero it (or al_sa_req_init()) before use. */
typedef struct al_sa_req {
	al_obj_t *p_owner;           /**< Referenced while outstanding. */
	al_sa_port_t *p_port;        /**< The port it went out on. */
	al_sa_pfn_done_t pfn_done;   /**< Called once with the result. */
	void *context;               /**< For the owner. */
	pthread_mutex_t lock;        /**< Guards p_send, cancel_busy, put_deferred. */
	ib_mad_element_t *p_send;    /**< The request while the MAD service has it. */
	boolean_t cancel_busy;       /**< al_sa_cancel() is using p_send. */
	boolean_t put_deferred;      /**< The send completed during a cancel. */
	uint32_t done;               /**< Atomic: done function called. */
	uint32_t holds;              /**< Atomic: send completion and done still to come. */
	/* Result, for owners that process it later (set by their done function). */
	ib_api_status_t status;      /**< Result status. */
	ib_mad_element_t *p_resp;    /**< Response element, or NULL. */
	cl_event_t sync_event;       /**< Signaled by the owner's done function for IB_FLAGS_SYNC. */
	boolean_t sync;              /**< The caller waits for the result. */
	cl_list_item_t nosm_item;    /**< On the port's list while waiting with no SM. */
	uint64_t deadline_us;        /**< When the wait with no SM ends. */
	boolean_t on_nosm;           /**< Port lock: on the port's no-SM list. */
	ib_mad_element_t *p_local;   /**< An answer made locally (RoCE), delivered by the no-SM timer. */
	ib_api_status_t local_status; /**< Its status (IB_SUCCESS or IB_REMOTE_ERROR). */
} al_sa_req_t;

/**
 * Replaceable MAD calls: the public ones by default; tests substitute a
 * fake MAD layer. Same signatures as the ib_al.h calls.
 */
typedef struct al_sa_mad_ops {
	/** ib_get_spl_qp() and ib_reg_mad_svc(), for the port's agent (al_port_agent.h). */
	al_port_agent_calls_t agent;
	/** ib_send_mad(). */
	ib_api_status_t (*send_mad)(ib_mad_svc_handle_t h_svc, ib_mad_element_t *p_list,
				    ib_mad_element_t **pp_fail);
	/** ib_cancel_mad(). */
	ib_api_status_t (*cancel_mad)(ib_mad_svc_handle_t h_svc, ib_mad_element_t *p_mad);
	/** Called before a port service's AL instance is closed; may be NULL. */
	void (*close_svc)(ib_mad_svc_handle_t h_svc);
	/**
	 * When not 0: the SA's LID, used instead of the port's SM LID, and the
	 * port's link state is not checked (a fake SA without an SM);
	 * AL_SA_NO_SM: act as if the port knew no SM.
	 */
	ib_net16_t sm_lid;
} al_sa_mad_ops_t;

/** al_sa_mad_ops_t::sm_lid value making requests wait as if no SM were known. */
#define AL_SA_NO_SM CL_HTON16(0xFFFF)

/**
 * Substitutes the MAD calls (tests). Only while no port service exists.
 * @param p_ops the calls (kept by pointer); NULL restores the public ones.
 */
void al_sa_set_mad_ops(const al_sa_mad_ops_t *p_ops);

/**
 * Finds or makes the SA service of a port and counts a user in. With an
 * AL instance, the instance also holds the service until it is closed, so
 * that successive requests of an application reuse it.
 * @param port_guid the port.
 * @param p_inst the AL instance (its al_obj_t) of the caller, or NULL.
 * @param pp_port receives the service.
 * @return IB_SUCCESS; IB_INVALID_GUID when no CA has the port; the status
 *         of the failing call otherwise.
 */
ib_api_status_t al_sa_port_get(ib_net64_t port_guid, al_obj_t *p_inst, al_sa_port_t **pp_port);

/**
 * Number of port services that exist (tests).
 * @return the count.
 */
uint32_t al_sa_port_count(void);

/**
 * Counts a user out; the last one ends the service (on a thread of its own).
 * @param p_port the service.
 */
void al_sa_port_put(al_sa_port_t *p_port);

/**
 * Waits until every ended port service is torn down (tests, before checking
 * for leaks). Must not be called from an AL callback thread.
 */
void al_sa_quiesce(void);

/**
 * Reads what requests on a port need from its attributes.
 * @param p_port the service.
 * @param p_lid receives the port's base LID, or NULL.
 * @param p_gid receives the port's GID at index 0, or NULL.
 * @param p_pkey receives P_Key index 0 of the port, or NULL.
 * @return IB_SUCCESS or the status of ib_query_ca().
 */
ib_api_status_t al_sa_port_info(al_sa_port_t *p_port, ib_net16_t *p_lid, ib_gid_t *p_gid,
				ib_net16_t *p_pkey);

/**
 * Prepares a request (its lock and event). Undo with al_sa_req_destroy().
 * @param p_req the request.
 * @param p_owner the owner object.
 * @param pfn_done its completion.
 * @return IB_SUCCESS or IB_ERROR.
 */
ib_api_status_t al_sa_req_init(al_sa_req_t *p_req, al_obj_t *p_owner, al_sa_pfn_done_t pfn_done);

/**
 * Releases what al_sa_req_init() made. The request must not be outstanding.
 * @param p_req the request.
 */
void al_sa_req_destroy(al_sa_req_t *p_req);

/**
 * What each SA registration of the API (ib_subscribe, ib_reg_svc,
 * ib_join_mcast) keeps besides its own fields: a lock for its state, the
 * request that registers (Set, join) and the one that undoes it later
 * (Delete, leave), and the SA port it talks through.
 */
typedef struct al_sa_reg {
	pthread_mutex_t lock;   /**< The registration's state. */
	al_sa_req_t req;        /**< Set or join. */
	al_sa_req_t fin;        /**< Delete or leave. */
	al_sa_port_t *p_port;   /**< Held (al_sa_port_get()), or NULL. */
} al_sa_reg_t;

/**
 * Makes the lock and the two requests of a registration (all or none).
 * @param p_reg zeroed; p_port may be set already.
 * @param p_owner the registration's object.
 * @param req_done the registering request's completion.
 * @param fin_done the undoing request's completion.
 * @return IB_SUCCESS or IB_ERROR.
 */
ib_api_status_t al_sa_reg_init(al_sa_reg_t *p_reg, al_obj_t *p_owner, al_sa_pfn_done_t req_done,
			       al_sa_pfn_done_t fin_done);

/**
 * Releases what al_sa_reg_init() made and what the registration still
 * holds: the registering request's response MAD and the SA port. Neither
 * request may be outstanding.
 * @param p_reg the registration.
 */
void al_sa_reg_destroy(al_sa_reg_t *p_reg);

/**
 * Sends a request to the SA of a port.
 * @param p_req an initialized request that is not outstanding.
 * @param p_port the port's service (the owner keeps its count).
 * @param p_query method, attribute ID and size, component mask and
 *        attribute (copied when the mask is not 0 or the method is Set()
 *        or Delete()).
 * @param timeout_ms wait for a response before a retry (0: the default).
 * @param retry_cnt retries.
 * @return IB_SUCCESS (the done function will be called);
 *         IB_INVALID_SETTING when the attribute does not fit in one MAD;
 *         the status of ib_get_mad() or ib_send_mad() otherwise.
 */
ib_api_status_t al_sa_send(al_sa_req_t *p_req, al_sa_port_t *p_port,
			   const ib_user_query_t *p_query, uint32_t timeout_ms,
			   uint32_t retry_cnt);

/**
 * Cancels an outstanding request: its done function gets IB_CANCELED
 * unless the result was already there. No effect otherwise.
 * @param p_req the request.
 */
void al_sa_cancel(al_sa_req_t *p_req);

/**
 * Runs a synchronous request to its end: waits for the owner's done
 * function to signal sync_event.
 * @param p_req the request, sent with sync set.
 */
void al_sa_req_wait(al_sa_req_t *p_req);

/** A receiver of the Report()s that reach a port (subscriptions). */
typedef struct al_sa_listener {
	cl_list_item_t item;         /**< On the port's list. */
	/**
	 * Called for each Report() with its Notice, on a MAD service thread,
	 * with the port's listener lock held: copy what is needed and return.
	 */
	void (*pfn_report)(struct al_sa_listener *p_listener, const ib_mad_notice_attr_t *p_notice);
} al_sa_listener_t;

/**
 * Adds a listener to a port. Reports received afterwards reach it.
 * @param p_port the service.
 * @param p_listener the listener.
 */
void al_sa_listen(al_sa_port_t *p_port, al_sa_listener_t *p_listener);

/**
 * Removes a listener; once this returns it is not called again.
 * @param p_port the service.
 * @param p_listener the listener.
 */
void al_sa_unlisten(al_sa_port_t *p_port, al_sa_listener_t *p_listener);

/**
 * Converts the status of a request into the status of a call's result
 * record, for owners (IB_SUCCESS stays).
 * @param p_resp the response or NULL.
 * @return the SA's MAD status (network order), 0 without a response.
 */
static inline ib_net16_t al_sa_resp_status(const ib_mad_element_t *p_resp)
{
	return p_resp ? ((const ib_sa_mad_t *)p_resp->p_mad_buf)->status : 0;
}

/**
 * The path record a RoCE port gives from @p p_sgid to @p p_dgid (no LIDs,
 * hop limit 64, the port's MTU and rate; al_sa_roce.c).
 */
void al_sa_roce_path(const ib_port_attr_t *pa, const ib_gid_t *p_sgid, const ib_gid_t *p_dgid,
		     ib_path_rec_t *p);
/**
 * The SA status of request @p q on a RoCE port (IB_SA_MAD_STATUS_SUCCESS
 * with the path in *p_path, else the MAD status an SA would give).
 */
ib_net16_t al_sa_roce_status(const ib_port_attr_t *pa, const ib_user_query_t *q,
			     ib_path_rec_t *p_path);
/** The path record encoding of a port's active width and speed. */
uint8_t al_sa_port_rate(const ib_port_attr_t *pa);
/**
 * The local answer to an SA request on a RoCE port: a response element from
 * @p pool_key in *pp_resp and its result in *p_status (IB_SUCCESS with one
 * PathRecord, or IB_REMOTE_ERROR with a MAD status). Returns the status of
 * getting the element.
 */
ib_api_status_t al_sa_roce_answer(ib_pool_key_t pool_key, const ib_port_attr_t *pa,
				  const ib_user_query_t *q, ib_mad_element_t **pp_resp,
				  ib_api_status_t *p_status);

#ifdef __cplusplus
}
#endif

#endif /* AL_SA_CLIENT_H */
