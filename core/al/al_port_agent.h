/*
 * ibal access layer: a MAD agent on one port (alias PD, QP1 alias, one MAD service), for the CM, the SA client and the DM agent.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The access layer's own agents of a GSI class (the CM, the SA client,
 * the DM agent) each need, on every port they serve, the same three
 * objects: an alias PD, the port's QP1 alias (ib_get_spl_qp) and a MAD
 * service of their class on it. al_port_agent_open() makes them in that
 * order; al_port_agent_close() destroys the alias, which takes the service
 * with it. What the agent does with a port (when to open, what it
 * receives) stays the client's. A client that answers every request of a
 * port itself (the SA client on a RoCE port, which has no SA) opens it with
 * al_port_agent_open_local() instead: the PD and a MAD pool key for the
 * answers, no QP1 alias, no MAD service.
 */
#ifndef AL_PORT_AGENT_H
#define AL_PORT_AGENT_H

#include <iba/ib_al.h>

/** One port's agent objects; zeroed means none. */
typedef struct al_port_agent {
	ib_pd_handle_t h_pd;        /**< The alias PD. */
	ib_qp_handle_t h_qp;        /**< The QP1 alias, or NULL. */
	ib_pool_key_t pool_key;     /**< The alias's MAD pool key (a local agent's: its pool's). */
	ib_mad_svc_handle_t h_svc;  /**< The MAD service, or NULL. */
	ib_pool_handle_t h_pool;    /**< A local agent's MAD pool, or NULL. */
} al_port_agent_t;

/** The two calls al_port_agent_open() makes (a test can give fakes). */
typedef struct al_port_agent_calls {
	/** ib_get_spl_qp() or a fake. */
	ib_api_status_t (*get_spl_qp)(ib_pd_handle_t h_pd, ib_net64_t port_guid,
				      ib_qp_create_t *p_create, const void *qp_context,
				      ib_pfn_event_cb_t pfn_event, ib_pool_key_t *p_key,
				      ib_qp_handle_t *ph_qp);
	/** ib_reg_mad_svc() or a fake. */
	ib_api_status_t (*reg_mad_svc)(ib_qp_handle_t h_qp, const ib_mad_svc_t *p_svc,
				       ib_mad_svc_handle_t *ph_svc);
} al_port_agent_calls_t;

/** The public calls. */
extern const al_port_agent_calls_t al_port_agent_public;

/**
 * Opens an agent on a port: an alias PD of @p h_ca, the QP1 alias of
 * @p port_guid (@p depth work requests each way) and the MAD service
 * @p p_svc on it. The PD and the QP get @p p_svc's mad_svc_context as
 * their context. On failure what was made stays in @p p_ag (h_svc NULL):
 * the caller closes it.
 * @param p_ag zeroed; receives the handles.
 * @param h_ca the CA of the port.
 * @param port_guid the port.
 * @param depth send and receive queue depth of the alias.
 * @param p_svc the MAD service (class, version, methods, callbacks).
 * @param p_calls al_port_agent_public, or fakes.
 * @return IB_SUCCESS or the failing call's status.
 */
ib_api_status_t al_port_agent_open(al_port_agent_t *p_ag, ib_ca_handle_t h_ca,
				   ib_net64_t port_guid, uint32_t depth, const ib_mad_svc_t *p_svc,
				   const al_port_agent_calls_t *p_calls);

/**
 * Opens a local agent: an alias PD of @p h_ca and a MAD pool of @p h_al
 * registered on it, so that MADs the client makes up itself have a pool
 * key; no QP1 alias and no MAD service (h_qp and h_svc stay NULL). The
 * pool and the PD are @p h_al's: they go when it is closed. On failure
 * what was made stays in @p p_ag (pool_key NULL).
 * @param p_ag zeroed; receives the handles.
 * @param h_al the client's own AL instance (the owner of @p h_ca).
 * @param h_ca the CA of the port.
 * @param context the PD's context.
 * @return IB_SUCCESS or the failing call's status.
 */
ib_api_status_t al_port_agent_open_local(al_port_agent_t *p_ag, ib_al_handle_t h_al,
					 ib_ca_handle_t h_ca, void *context);

/**
 * Destroys the QP1 alias, and the MAD service with it, synchronously (no
 * callback of the service runs after); the PD goes with the CA. Not on an
 * access-layer callback thread.
 * @param p_ag the agent (nothing is done for one without a QP).
 */
void al_port_agent_close(al_port_agent_t *p_ag);

#endif /* AL_PORT_AGENT_H */
