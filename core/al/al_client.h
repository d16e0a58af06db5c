/*
 * ibal access layer: the subsystems built on the core's objects, and what the core tells them.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * In the manner of the kernel's ib_register_client: each subsystem built on
 * the core (the CM, the DM agent) describes itself with one al_client_t,
 * and the core tells every client, in the order of the table in
 * al_client.c, of the events that concern it. The core calls no
 * subsystem's function by name and holds no hook pointer.
 */
#ifndef AL_CLIENT_H
#define AL_CLIENT_H

struct al_qp;

/** One client: its callbacks; a NULL callback is not called. */
typedef struct al_client {
	const char *name; /**< For diagnostics ("cm", "dm-agent"). */
	/** A QP's destruction has started (from its destroying stage, no lock
	 * of the core held): a client ends what it bound to the QP. */
	void (*qp_destroying)(struct al_qp *p_qp);
	/** ib_close_al has destroyed an instance (on the caller's thread, no
	 * lock held): a client waits, bounded, for work the instance left. */
	void (*al_closed)(void);
} al_client_t;

/** The connection manager (al_cm.c). */
extern const al_client_t al_cm_client;
/** The device management agent of the registered IOCs (al_dm_agent.c). */
extern const al_client_t al_dm_agent_client;

/** Tells every client that @p p_qp's destruction started. */
void al_clients_qp_destroying(struct al_qp *p_qp);

/** Tells every client that ib_close_al destroyed an instance. */
void al_clients_al_closed(void);

#endif /* AL_CLIENT_H */
