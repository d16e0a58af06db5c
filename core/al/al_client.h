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
} al_client_t;

/** The connection manager (al_cm.c). */
extern const al_client_t al_cm_client;
/** The device management agent of the registered IOCs (al_dm_agent.c). */
extern const al_client_t al_dm_agent_client;
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

#endif /* AL_CLIENT_H */
