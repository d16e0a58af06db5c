/*
 * ibal access layer: the subsystems built on the core's objects, and what the core tells them.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * In the manner of the kernel's ib_register_client: each subsystem built on
 * the core (the CM, the DM agent, the CM through the kernel's) describes
 * itself with one al_client_t,
 * and the core tells every client, in the order of the table in
 * al_client.c, of the events that concern it. The core calls no
 * subsystem's function by name and holds no hook pointer.
 */
#ifndef AL_CLIENT_H
#define AL_CLIENT_H

#include <iba/ib_al.h>

struct al_qp;
struct al_pd;
struct al_pnp;

/** A port as a client is told of it. */
typedef struct al_client_port {
	ib_net64_t ca_guid;   /**< Its CA. */
	ib_net64_t port_guid; /**< The port. */
	uint8_t port_num;     /**< Its number on the CA (from 1). */
} al_client_port_t;

/** One client: its callbacks; a NULL callback is not called. */
typedef struct al_client {
	const char *name; /**< For diagnostics ("cm", "dm-agent"). */
	/** A QP's destruction has started (from its destroying stage, no lock
	 * of the core held): a client ends what it bound to the QP. */
	void (*qp_destroying)(struct al_qp *p_qp);
	/** ib_close_al has destroyed an instance (on the caller's thread, no
	 * lock held): a client waits, bounded, for work the instance left, so
	 * that the close returns when everything it owned is gone. Not called
	 * for an instance a client closes with al_client_close_al(). */
	void (*al_closed)(void);
	/** The first ib_open_al has loaded the providers (the manager's lock
	 * held: no call into the access layer's API). */
	void (*start)(void);
	/** The last ib_close_al has unloaded the providers (no other callback
	 * runs any more; the manager's lock held). */
	void (*stop)(void);
	/** A provider's set of CAs changed (from the provider's thread, no
	 * lock of the core held; between start and stop). */
	void (*ca_list_changed)(void);
	/** A port is there, for a client watching the ports
	 * (al_client_watch_ports()): each port present when the watch began,
	 * then each port of a CA added later. On an AL callback thread, no lock
	 * held, one call at a time per watch. */
	void (*port_added)(void *context, const al_client_port_t *p_port);
	/** A port is gone (its CA was removed); as port_added. */
	void (*port_removed)(void *context, const al_client_port_t *p_port);
	/** Makes a QP of a type no provider makes (IB_QPT_MAD) for
	 * ib_create_qp() (the caller's thread, @p p_pd entered); IB_UNSUPPORTED
	 * for a type the client does not make. */
	ib_api_status_t (*create_qp)(struct al_pd *p_pd, const ib_qp_create_t *p_create,
				     const void *qp_context, ib_pfn_event_cb_t pfn_event_cb,
				     ib_qp_handle_t *ph_qp);
} al_client_t;

/** The connection manager (al_cm.c). */
extern const al_client_t al_cm_client;
/** The device management agent of the registered IOCs (al_dm_agent.c). */
extern const al_client_t al_dm_agent_client;
/** The MAD layer: IB_QPT_MAD queue pairs and their dispatchers (al_spl_qp.c). */
extern const al_client_t al_mad_layer_client;
/** The SA client's per-port services (al_sa_client.c). */
extern const al_client_t al_sa_client;
/** IOC discovery, the sweeper of the IOU and IOC PnP classes (al_ioc_pnp.c). */
extern const al_client_t al_ioc_pnp_client;
/** The CM calls on CAs whose CM class the kernel owns, through librdmacm
 * (al_cm_kern.c; built when librdmacm is found). */
extern const al_client_t al_cm_kern_client;

/** Tells every client that @p p_qp's destruction started. */
void al_clients_qp_destroying(struct al_qp *p_qp);

/** Tells every client that ib_close_al destroyed an instance (not for
 * the instances closed by al_client_close_al()). */
void al_clients_al_closed(void);

/**
 * Closes an AL instance a client opened for itself (ib_close_al), from the
 * client's own teardown or worker thread: no client's al_closed runs for
 * it. A client's al_closed waits for such threads; were they to wait in
 * turn for each other's, two teardowns could wait for ever.
 * @param h_al the client's instance.
 */
void al_client_close_al(ib_al_handle_t h_al);

/** Starts every client (the first ib_open_al, providers loaded). */
void al_clients_start(void);

/** Stops every client, in the reverse order (the last ib_close_al). */
void al_clients_stop(void);

/** Tells every client that a provider's set of CAs changed. */
void al_clients_ca_list_changed(void);

/**
 * Asks the clients, in order, for a QP of a type no provider makes.
 * @return the first answer other than IB_UNSUPPORTED; IB_INVALID_SETTING
 *         when no client makes the type.
 */
ib_api_status_t al_clients_create_qp(struct al_pd *p_pd, const ib_qp_create_t *p_create,
				     const void *qp_context, ib_pfn_event_cb_t pfn_event_cb,
				     ib_qp_handle_t *ph_qp);

/**
 * Starts telling @p p_client of the ports (its port_added and port_removed,
 * with @p context), through the PnP manager (al_pnp.c), which runs while
 * watches or registrations exist. The ports present come first, queued
 * before this returns.
 * @param p_client the client (its port callbacks).
 * @param context passed to them.
 * @param pp_watch receives the watch.
 * @return IB_SUCCESS, IB_INSUFFICIENT_MEMORY, or IB_ERROR when the PnP
 *         manager cannot start.
 */
ib_api_status_t al_client_watch_ports(const al_client_t *p_client, void *context,
				      struct al_pnp **pp_watch);

/**
 * Ends a watch: no callback of it runs after this returns. Not on an AL
 * callback thread, nor from the watch's own callback.
 * @param p_watch the watch.
 */
void al_client_unwatch_ports(struct al_pnp *p_watch);

#endif /* AL_CLIENT_H */
