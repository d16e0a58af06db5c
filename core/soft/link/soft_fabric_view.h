/*
 * ibal soft provider: a running fabric as an outside observer sees it.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_fabric_view.h
 * @brief What the fabric inspector (`ibal_soft_inspect`) reads from a fabric
 * directory without attaching a port to it: the registry's ports and their
 * holders, each port's counters (kept in its ring's header), the master SM
 * as it describes itself, the fabric service, and the capture of the running
 * fabric, which the view can also start and stop.
 *
 * A view reclaims nothing: a record whose holder is gone is reported as
 * such and left for the fabric's own processes to reclaim. Everything read
 * from the directory is shared memory of other processes and is bounded and
 * checked before use.
 */
#ifndef SOFT_FABRIC_VIEW_H
#define SOFT_FABRIC_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include "soft_fabric.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A fabric directory opened for inspection. Opaque. */
typedef struct soft_fabric_view soft_fabric_view_t;

/** soft_view_port_t.flags: a process holds the LID (else it is only reserved). */
#define SOFT_VIEW_ACTIVE 1u
/** soft_view_port_t.flags: the holder is alive. */
#define SOFT_VIEW_LIVE 2u
/** soft_view_port_t.flags: the LID is reserved for this port GUID (fabric service). */
#define SOFT_VIEW_RESERVED 4u
/** soft_view_port_t.flags: the port has a ring; stats and ring_used are valid. */
#define SOFT_VIEW_RING 8u

/** One LID of the registry. */
typedef struct soft_view_port {
	soft_fabric_port_info_t info; /**< GUIDs, LID, port number, holder's PID (0 if none). */
	uint32_t flags;               /**< SOFT_VIEW_*. */
	uint32_t n_mcast;             /**< Multicast groups the port is attached to. */
	soft_fabric_stats_t stats;    /**< The port's counters (SOFT_VIEW_RING). */
	uint64_t ring_used;           /**< Bytes waiting in its ring (SOFT_VIEW_RING). */
} soft_view_port_t;

/** The master SM, as it last described itself. */
typedef struct soft_view_sm {
	boolean_t running;   /**< Some process holds the master role now. */
	int32_t pid;         /**< The process that last published (0: none ever). */
	boolean_t pid_alive; /**< That process exists. */
	uint16_t lid;        /**< Its port's LID. */
	ib_net64_t guid;     /**< Its port's GUID. */
	uint8_t priority;    /**< SMInfo priority. */
	uint64_t sweeps;     /**< Sweeps done. */
	uint64_t since;      /**< When it became master, seconds since the epoch. */
} soft_view_sm_t;

/** The capture of the running fabric. */
typedef struct soft_view_capture {
	boolean_t on;        /**< Asked for through the registry. */
	uint32_t linktype;   /**< SOFT_PCAP_LINKTYPE_ERF or _INFINIBAND. */
	uint64_t gen;        /**< Changes at every start and stop. */
	char path[1024];     /**< The path template (`%p`: each process's PID). */
} soft_view_capture_t;

/**
 * Opens a fabric directory for inspection (creating nothing).
 * @param dir the directory; NULL: `$IBAL_SOFT_FABRIC`, else the default.
 * @param pp_view receives the view.
 * @return IB_SUCCESS; IB_NOT_FOUND if the directory or its registry does not
 * exist; IB_INVALID_SETTING if the directory is not one its user alone may
 * write, or the registry is not one of this version;
 * IB_INVALID_PARAMETER; IB_INSUFFICIENT_MEMORY; IB_ERROR.
 */
ib_api_status_t soft_fabric_view_open(const char *dir, soft_fabric_view_t **pp_view);

/** The canonical path of the view's directory. @param v the view. @return the path. */
const char *soft_fabric_view_dir(const soft_fabric_view_t *v);

/**
 * The registry's used LIDs (held, or reserved), in increasing LID order.
 * @param v the view. @param out receives up to @p cap entries.
 * @param cap size of @p out. @param p_n receives how many there are.
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY when there are more than @p cap
 * (the first @p cap are filled); IB_INVALID_PARAMETER; IB_ERROR if the
 * registry could not be locked.
 */
ib_api_status_t soft_fabric_view_ports(soft_fabric_view_t *v, soft_view_port_t *out, size_t cap,
				       size_t *p_n);

/** The master SM. @param v the view. @param p_sm receives it. */
void soft_fabric_view_sm(soft_fabric_view_t *v, soft_view_sm_t *p_sm);

/**
 * Whether the fabric service (`ibal_soft_fabric`) holds this fabric.
 * @param v the view. @param topo receives the path of its topology copy
 * (may be NULL). @param cap size of @p topo.
 * @return TRUE while a service runs.
 */
boolean_t soft_fabric_view_service(soft_fabric_view_t *v, char *topo, size_t cap);

/** The capture of the running fabric. @param v the view. @param p_cap receives it. */
void soft_fabric_view_capture(soft_fabric_view_t *v, soft_view_capture_t *p_cap);

/**
 * Starts or stops the capture of every process of the fabric: each one
 * opens the file at its next send, or closes it. A process that captures
 * through `$IBAL_SOFT_PCAP` keeps that capture and ignores this one.
 * @param v the view.
 * @param path the path template (`%p`: each process's PID; one file may be
 * shared, records are appended whole), or NULL to stop.
 * @param linktype SOFT_PCAP_LINKTYPE_ERF or SOFT_PCAP_LINKTYPE_INFINIBAND.
 * @return IB_SUCCESS; IB_INVALID_PARAMETER (a link type neither, an empty
 * path); IB_OVERFLOW if @p path does not fit the registry (1023 bytes);
 * IB_ERROR if the registry could not be locked.
 */
ib_api_status_t soft_fabric_view_capture_set(soft_fabric_view_t *v, const char *path,
					     uint32_t linktype);

/** Closes a view. @param v the view (NULL ignored). */
void soft_fabric_view_close(soft_fabric_view_t *v);

/**
 * Publishes the master SM's identity in the registry of @p port's fabric,
 * for soft_fabric_view_sm(): the calling process, the port's LID and GUID.
 * @param port the SM's port. @param priority its SMInfo priority.
 * @param sweeps the sweeps it has done. @param became_master TRUE when it
 * has just become master (the time is recorded).
 */
void soft_fabric_sm_publish(soft_fabric_port_t *port, uint8_t priority, uint64_t sweeps,
			    boolean_t became_master);

#ifdef __cplusplus
}
#endif

#endif /* SOFT_FABRIC_VIEW_H */
