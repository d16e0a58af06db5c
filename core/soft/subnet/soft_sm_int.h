/*
 * ibal soft provider: what the files of the embedded subnet manager share (its state, helpers).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_sm_int.h
 * @brief Internals of the embedded SM (soft_sm*.c): an instance's state and
 * the functions its files share. Private to soft_sm*.c.
 *
 * Files: soft_sm.c (settings, instances, the entry points of soft_sm.h),
 * soft_sm_thread.c (the thread: election, directory watch, hosting the SA),
 * soft_sm_sweep.c (SMPs, bring-up of ports, sweeps), soft_sm_switch.c (the
 * virtual switch every CA port is cabled to, as the SA sees it).
 *
 * Locks: `sm->lock` (the SM thread's state; released while it waits for a
 * response or polls), then `sm->sa_lock` (rwlock: the SA object; readers use
 * it, the SM's port changing destroys it), `sm->pub_lock` (innermost: the
 * role and port SMInfo reports). The list of instances has its own lock in
 * soft_sm.c, never held with another. Functions here run with `sm->lock`
 * held unless they say otherwise.
 */
#ifndef SOFT_SM_INT_H
#define SOFT_SM_INT_H

#include <limits.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include "soft_fabric_int.h"
#include "soft_fabric_view.h"
#include "soft_sm.h"
#include "ibal_time.h"

/** Wait for one SMP response, per try. */
#define SM_SMP_TIMEOUT_MS 50
/** Tries of one SMP. */
#define SM_SMP_TRIES 3
/** Failed bring-ups of a port tried again at each light sweep; after these,
 * at growing intervals (SM_BACKOFF_MAX_SHIFT). */
#define SM_MAX_FAILURES 3
/** The longest interval between bring-ups of a port that does not answer:
 * 2^SM_BACKOFF_MAX_SHIFT light-sweep periods. */
#define SM_BACKOFF_MAX_SHIFT 2
/** The file whose flock() is the master role. */
#define SM_LOCK_FILE SOFT_FABRIC_SM_LOCK
/** LIDs the bitmaps of marked ports cover (the unicast range and 0). */
#define SM_NLIDS 0xC000u
/** Most ports of the virtual switch (IBA: port numbers 1..254). */
#define SM_SW_MAX_PORTS 254

/** Issuers of Trap 144 remembered until the next sweep (more: a full sweep). */
#define SM_TRAP_LIDS 32

/** State of the outstanding SMP. */
enum { PEND_NONE, PEND_WAIT, PEND_DONE, PEND_ABORT };

/** Settings of an instance, read from the environment when it is made. */
typedef struct sm_cfg {
	boolean_t enabled;  /**< $IBAL_SOFT_SM is not off. */
	uint32_t wait_ms;   /**< $IBAL_SOFT_SM_WAIT_MS. */
	uint32_t sweep_ms;  /**< $IBAL_SOFT_SM_SWEEP_MS (at least 1). */
	uint32_t retry_ms;  /**< $IBAL_SOFT_SM_RETRY_MS (at least 1). */
	uint8_t priority;   /**< $IBAL_SOFT_SM_PRIORITY. */
} sm_cfg_t;

/** A port the master knows (from the registry). */
typedef struct sm_known {
	soft_fabric_port_info_t reg;  /**< As the registry lists it. */
	boolean_t seen;               /**< In the current listing. */
	boolean_t active;             /**< Brought up. */
	unsigned failures;            /**< Bring-ups failed since last marked. */
	uint64_t retry_us;            /**< After SM_MAX_FAILURES failures: not tried before this (soft_sm_now_us()) unless marked. */
	uint8_t sw_port;              /**< Virtual switch port cabled to it (0: none). */
	soft_sa_port_t sa;            /**< What the SA was told. */
} sm_known_t;

/** An SM instance: one per fabric directory and process. */
struct soft_sm {
	struct soft_sm *next;         /**< Next in the process's list. */
	char dir[PATH_MAX];           /**< The fabric directory. */
	pid_t pid;                    /**< The process that made it (fork check). */
	unsigned refs;                /**< CAs using it (list lock). */
	sm_cfg_t cfg;                 /**< Settings, fixed for its life. */

	pthread_mutex_t pub_lock;     /**< Guards the three below. */
	soft_port_t *pub_port;        /**< The SM's port. */
	int pub_master;               /**< Master (else standby). */
	uint32_t pub_act_count;       /**< SMInfo ActCount. */

	pthread_rwlock_t sa_lock;     /**< Guards sa and sa_port. */
	soft_sa_t *sa;                /**< The SA (master only). */
	soft_port_t *sa_port;         /**< The port the SA serves on. */

	pthread_mutex_t lock;         /**< The thread's state (everything below). */
	pthread_cond_t cond;          /**< CLOCK_MONOTONIC. */
	soft_port_t **ports;          /**< Local ports, in opening order. */
	size_t n_ports;               /**< Entries used in ports. */
	size_t cap_ports;             /**< Entries allocated in ports. */
	soft_port_t *sm_port;         /**< ports[0] as the thread last saw it. */
	int master;                   /**< Holds the master role. */
	int lock_fd;                  /**< sm.lock, or -1. */
	int ev_fd;                    /**< Wakes the thread (eventfd), or -1. */
	int ino_fd;                   /**< inotify on the directory (master), or -1. */
	int stop;                     /**< The thread must end. */
	pthread_t thread;             /**< The thread. */
	int thread_started;           /**< thread is running. */
	sm_known_t *known;            /**< Ports known (master). */
	size_t n_known;               /**< Entries used in known. */
	size_t cap_known;             /**< Entries allocated in known. */
	uint8_t *dirty;               /**< Bitmap of LIDs to bring up. */
	uint8_t *work;                /**< The bitmap the running sweep took. */
	int dirty_any;                /**< Some LID is marked, or someone left. */
	int full;                     /**< The next sweep configures every port. */
	int sweep_req;                /**< A sweep is asked for. */
	int in_sweep;                 /**< A sweep is running. */
	uint64_t sweeps;              /**< Sweeps done. */
	uint64_t next_light_us;       /**< Next light sweep. */
	uint64_t next_sa_us;          /**< Next call of the SA's timer. */
	int pend_state;               /**< The outstanding SMP: PEND_*. */
	soft_port_t *pend_port;       /**< The port the request left through. */
	ib_net64_t pend_tid;          /**< Its TID. */
	ib_smp_t pend_resp;           /**< Its response (PEND_DONE). */
	int sending;                  /**< A send is in progress without the lock. */
	uint64_t tid_seq;             /**< TIDs of the SM's SMPs. */
	ib_net64_t sw_guid;           /**< The virtual switch's node (and port 0) GUID. */
	uint16_t sw_lid;              /**< Its LID (port 0), host order; 0 until chosen. */
	uint8_t sw_nports;            /**< Its number of ports as last pushed to the SA. */
	int sw_dirty;                 /**< The SA's view of the switch needs pushing. */
	uint16_t trap_lids[SM_TRAP_LIDS]; /**< Ports whose Trap 144 asks for a new PortInfo read. */
	size_t n_trap_lids;           /**< Entries used in trap_lids. */
	uint64_t next_dir_us;         /**< Next check that the directory is still there. */
	int dir_gone;                 /**< It was removed or replaced: the ports are down. */
};

/** Now, CLOCK_MONOTONIC, in microseconds. */
static inline uint64_t soft_sm_now_us(void)
{
	return ibal_time_us(CLOCK_MONOTONIC);
}

/** Converts microseconds of CLOCK_MONOTONIC to a timespec for a condition wait. */
static inline void soft_sm_abs_time(struct timespec *ts, uint64_t us)
{
	*ts = ibal_time_of_us(us);
}

/** Marks a LID for bring-up by the next sweep. */
static inline void soft_sm_mark(struct soft_sm *sm, uint16_t lid)
{
	if (lid && lid < SM_NLIDS) {
		sm->dirty[lid / 8] |= (uint8_t)(1u << (lid % 8));
		sm->dirty_any = 1;
	}
}

/** Whether a bitmap marks a LID. */
static inline boolean_t soft_sm_is_marked(const uint8_t *map, uint16_t lid)
{
	return lid < SM_NLIDS && (map[lid / 8] & (1u << (lid % 8)));
}

/** The SM's LID (its port's), host order, or 0. */
static inline uint16_t soft_sm_lid(const struct soft_sm *sm)
{
	return sm->sm_port ? soft_port_lid(sm->sm_port) : 0;
}

/* soft_sm.c */
/** Wakes the thread (any lock or none). */
void soft_sm_wake(struct soft_sm *sm);

/* soft_sm_thread.c */
/** The thread's body. @param arg the instance. @return NULL. */
void *soft_sm_main(void *arg);
/** Follows the first local port as the SM's port (a change remakes the SA). */
void soft_sm_follow_port(struct soft_sm *sm);
/** SMInfo of the instance as reported on @p port (pub_lock held). */
void soft_sm_info_of(struct soft_sm *sm, soft_port_t *port, ib_sm_info_t *p);

/* soft_sm_sweep.c */
/** Sweeps: lists the registry, brings up the ports due, forgets the ports gone. */
void soft_sm_sweep(struct soft_sm *sm);

/* soft_sm_switch.c */
/** Gives the instance its switch's GUID (derived from the fabric directory); no lock needed. */
void soft_sm_sw_init(struct soft_sm *sm);
/** Cables a port being pushed to the SA to a switch port (sets its peer in k->sa). */
void soft_sm_sw_cable(struct soft_sm *sm, sm_known_t *k);
/** A known port is being forgotten: its switch port goes down. */
void soft_sm_sw_unplug(struct soft_sm *sm, sm_known_t *k);
/** Keeps the switch's LID off every LID of a registry listing (sorted by LID). */
void soft_sm_sw_choose_lid(struct soft_sm *sm, const soft_fabric_port_info_t *v, size_t n);
/**
 * Pushes the switch (port 0 and ports 1..N) to the SA when it changed, or
 * always when @p all (a new SA). sa_lock held for reading, or writing.
 */
void soft_sm_sw_push(struct soft_sm *sm, boolean_t all);

#endif /* SOFT_SM_INT_H */
