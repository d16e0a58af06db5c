/*
 * ibal access layer: the connection manager's private interface (CEP states, hooks, test helpers).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_cm.h
 * @brief The connection manager behind the ib_cm_* calls (al_cm.c,
 * al_cm_cep.c, al_cm_agent.c; shared internals in al_cm_int.h): one
 * CM agent per local port (a QP1 alias with a MAD service for class 0x07),
 * connection endpoints (CEPs) with the states below, listens, and the
 * timers that resend messages. docs/cm.md describes the protocol as built.
 *
 * Thread safety: every function may be called from any thread.
 */
#ifndef AL_CM_H
#define AL_CM_H

#include <stdint.h>
#include <iba/ib_al.h>

#ifdef __cplusplus
extern "C" {
#endif

/** States of a connection endpoint (IBA 12.9.6, as Linux's cm.c names them). */
typedef enum al_cm_state {
	AL_CM_IDLE,          /**< Made, nothing sent or received yet. */
	AL_CM_LISTEN,        /**< A listen (not used by CEPs: listens are separate objects). */
	AL_CM_REQ_SENT,      /**< Active: REQ sent, waiting for REP/REJ/MRA. */
	AL_CM_REQ_RCVD,      /**< Passive: REQ received, the user has not answered yet. */
	AL_CM_MRA_REQ_SENT,  /**< Passive: MRA sent for the REQ. */
	AL_CM_MRA_REQ_RCVD,  /**< Active: MRA received for our REQ. */
	AL_CM_REP_SENT,      /**< Passive: REP sent, waiting for RTU/REJ/MRA. */
	AL_CM_REP_RCVD,      /**< Active: REP received, the user has not answered yet. */
	AL_CM_MRA_REP_SENT,  /**< Active: MRA sent for the REP. */
	AL_CM_MRA_REP_RCVD,  /**< Passive: MRA received for our REP. */
	AL_CM_ESTABLISHED,   /**< Connected. */
	AL_CM_LAP_SENT,      /**< Active side: LAP sent, waiting for the APR. */
	AL_CM_LAP_RCVD,      /**< Passive side: LAP received, the user has not answered yet. */
	AL_CM_MRA_LAP_SENT,  /**< Passive side: MRA sent for the LAP. */
	AL_CM_MRA_LAP_RCVD,  /**< Active side: MRA received for our LAP. */
	AL_CM_DREQ_SENT,     /**< DREQ sent, waiting for DREP. */
	AL_CM_DREQ_RCVD,     /**< DREQ received, the user has not answered yet. */
	AL_CM_TIMEWAIT,      /**< Disconnected; the IDs stay reserved for the time-wait. */
	AL_CM_SIDR_REQ_SENT, /**< SIDR_REQ sent, waiting for the SIDR_REP. */
	AL_CM_SIDR_REQ_RCVD, /**< SIDR_REQ received, the user has not answered yet. */
	AL_CM_DESTROYED,     /**< Out of the tables, its object being destroyed. */
	AL_CM_STATE_COUNT    /**< Number of states. */
} al_cm_state_t;

/**
 * The name of a state, for logs.
 * @param state any value.
 * @return a static string ("?" when out of range).
 */
const char *al_cm_state_name(al_cm_state_t state);

/**
 * Waits until every ended CM agent set is torn down (tests, before
 * checking for leaks). Not from an AL callback thread.
 */
void al_cm_quiesce(void);

/**
 * Number of connection endpoints that exist (tests).
 * @return the count, time-wait ones included.
 */
uint32_t al_cm_cep_count(void);

/**
 * Number of local ports with a CM agent (tests: a port added after the CM
 * started gets one from its PnP event).
 * @return the count; 0 while the CM is not in use.
 */
uint32_t al_cm_port_count(void);

/**
 * Counters of the CM, for tests.
 */
typedef struct al_cm_stats {
	uint32_t n_drop;    /**< Received MADs dropped (short, unknown attribute, no endpoint). */
	uint32_t n_resend;  /**< Messages sent again on a timeout. */
	uint32_t n_dup;     /**< Duplicates answered with the last message. */
	uint32_t n_rej_tx;  /**< REJs sent. */
	uint32_t n_paced;   /**< Requests that waited for room at their remote port (al_cm_pace.c). */
} al_cm_stats_t;

/**
 * Reads the counters.
 * @param p_stats receives them.
 */
void al_cm_get_stats(al_cm_stats_t *p_stats);

#ifdef __cplusplus
}
#endif

#endif /* AL_CM_H */
