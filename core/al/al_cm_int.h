/*
 * ibal access layer: what the connection manager's files share (objects, process state, helpers), private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The CM is al_cm_agent.c (agents on QP1, sending, timers), al_cm_cep.c
 * (connection endpoints, the received messages, the QP, the timer's
 * expiries) and al_cm.c (the ib_cm_* calls). See al_cm.h and docs/cm.md.
 * Locks: al_cm_g.lock guards every CEP and listen field that changes, the
 * tables and the timer deadlines. It is held while MADs and callback
 * events are made (they are sent and queued after it is released: take it
 * with pthread_mutex_lock, release it with al_cm_unlock) and while QPs are
 * modified, never while a user callback runs or an object is destroyed:
 * destructions are collected on a list (al_cm_cep_kill_locked) and started
 * after the lock is released (al_cm_destroy_dead). al_cm_g.agent_lock
 * guards the agent set and its user count; it is never taken under
 * al_cm_g.lock. An agent set's port_lock only serialises the ports its
 * PnP callback adds (a leaf: nothing is taken under it but the verbs that
 * open the port's agent).
 */
#ifndef AL_CM_INT_H
#define AL_CM_INT_H

#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <complib/cl_memory.h>
#include <complib/cl_timer.h>
#include <complib/cl_event.h>
#include <complib/cl_qmap.h>
#include <complib/cl_fleximap.h>
#include "al_cm.h"
#include "al_cm_wire.h"
#include "al_client.h"
#include "al_port_agent.h"
#include "al_verbs.h"
#include "al_cm_kern.h"
#include "al_cm_hash.h"

/* An object's entry in one of the CM's ordered tables (al_cm_g's fmaps).
 * Every key ends with a number unique to the object (local comm ID, listen
 * sequence), so objects sharing the leading fields are neighbours and one
 * range walk (al_cm_idx_first) finds them all. */
typedef struct cm_index {
	cl_fmap_item_t item;
	cm_key_t key;
	boolean_t on;                 /* in its table */
} cm_index_t;

/* The CEPs whose timers run with one timeout, in the order they were set:
 * their deadlines (the time of setting plus the timeout, under al_cm_g.lock)
 * only grow along it, so its head is its earliest. A few timeouts recur
 * (a connection's response time, time-wait), and each gets a list while a
 * timer with it runs: setting and stopping a timer is O(1). A timeout
 * without a list (all AL_CM_TIMER_LISTS taken) uses al_cm_g.timers. */
typedef struct cm_timer_list {
	uint32_t ms;                  /* the timeout (while n > 0) */
	uint32_t n;                   /* CEPs on it */
	cl_qlist_t ceps;              /* by al_cep_t.time_item */
} cm_timer_list_t;

#define AL_CM_TIMER_LISTS 8

/* The most P_Keys of a port the CM keeps between queries (a longer table
 * is read at every lookup). */
#define AL_CM_PKEYS_KEPT 64

/* One local port's agent: a QP1 alias and the CM's MAD service on it. */
typedef struct cm_port {
	ib_net64_t ca_guid;
	ib_net64_t port_guid;
	uint8_t port_num;
	ib_ca_handle_t h_ca;
	al_port_agent_t agent;      /* the port's QP1 alias and CM MAD service */
	uint32_t burst_asked;       /* atomic: room for a burst asked of its MAD dispatcher */
	uint32_t reqs_out;          /* its requests on the wire holding a place (al_cm_pace.c:
				     * twice what one remote port takes asks for room for
				     * a burst of answers); al_cm_g.lock */
	/* The port's P_Key table as last read (al_cm_pkey_index_of), under
	 * the CM's pkey lock: valid while pkey_gen is al_ca_attr_gen() + 1. */
	uint32_t pkey_gen;
	uint16_t n_pkeys;
	ib_net16_t pkeys[AL_CM_PKEYS_KEPT];
} cm_port_t;

/* Most agent ports of a process (ports[] never moves: CEPs point into it). */
#define AL_CM_MAX_PORTS 64

/* The agents of every port, made on first use, ended with the last user.
 * Ports present then get theirs at once; a port added later (a CA plugged
 * in) gets its agent from the CM's port_added, as a client watching the
 * ports (al_client_watch_ports()). ports[0 .. n_ports) are complete: n_ports is
 * written (under port_lock) with a release store after the entry, and read
 * with al_cm_n_ports() (acquire). */
typedef struct cm_agents {
	ib_al_handle_t h_al;
	struct al_pnp *p_watch;       /* the CM's watch of the ports */
	pthread_mutex_t port_lock;    /* adds to ports[]; leaf lock */
	boolean_t closing;            /* port_lock: no more adds */
	cm_port_t *ports;
	uint32_t n_ports;
} cm_agents_t;

static inline uint32_t al_cm_n_ports(const cm_agents_t *p_ag)
{
	return __atomic_load_n(&p_ag->n_ports, __ATOMIC_ACQUIRE);
}

typedef struct al_listen {
	al_obj_t obj;
	cm_index_t by_svc;            /* al_cm_g.listens: {service ID, sequence} while not cancelled */
	ib_cm_listen_t info;
	uint8_t cmp[IB_SIDR_REQ_PDATA_SIZE]; /* REQ listens: IB_REQ_PDATA_SIZE at most */
	boolean_t cancelled;
	boolean_t listed;
} al_listen_t;

struct cm_sync;
struct al_cep;

/*
 * Requests of this process to one remote port (al_cm_pace.c): at most
 * al_cm_pace_max() of them on the wire without an answer, the rest waiting
 * in order. Made with its first request, freed when it has neither.
 */
typedef struct cm_dest {
	cm_hitem_t by_dest;           /* al_cm_g.dests: {DLID, or DGID port GUID with a GRH; local cm_port_t} */
	cm_port_t *p_port;            /* that local port */
	uint32_t n_out;               /* requests sent that hold a place */
	cl_qlist_t parked;            /* CEPs whose request waits for a place (park_item) */
} cm_dest_t;

/* Requests to one remote port on the wire without an answer. A receiving
 * port has 1,024 to 16,384 buffers on its QP1 (al_mad.h; a Linux host's MAD
 * QP 512): 256 leaves room for dozens of processes bursting at one server,
 * and one process is as fast as with 1,024 (docs/bench-cm.md). */
#define AL_CM_PACE_MAX 256

/* Callback events the CM keeps for reuse (al_cm_cep.c): a burst's callbacks
 * run a batch at a time on the MAD thread, so a handful are out at once. */
#define AL_CM_EV_CACHE 256

/* Callback kinds. */
typedef enum cm_ev_kind {
	EV_REQ, EV_REP, EV_RTU, EV_REJ, EV_MRA, EV_DREQ, EV_DREP, EV_LAP, EV_APR
} cm_ev_kind_t;

/* A user callback queued on a CEP, with its own copy of the message. */
typedef struct cm_event {
	struct al_cep *p_cep;
	cm_ev_kind_t kind;
	void *pfn;
	struct cm_event *p_q_next;    /* on the queue of events made under al_cm_g.lock,
				       * or in al_cm_g.ev_cache */
	al_cb_item_t item;            /* on its CEP's callback queue */
	al_cm_msg_t msg;
	union {
		ib_cm_req_rec_t req;
		ib_cm_rep_rec_t rep;
		ib_cm_rtu_rec_t rtu;
		ib_cm_rej_rec_t rej;
		ib_cm_mra_rec_t mra;
		ib_cm_dreq_rec_t dreq;
		ib_cm_drep_rec_t drep;
		ib_cm_lap_rec_t lap;
		ib_cm_apr_rec_t apr;
	} rec;
} cm_event_t;

typedef struct al_cep {
	al_obj_t obj;
	cm_hitem_t by_id;             /* al_cm_g.ids: {local comm ID} while listed */
	cm_hitem_t by_remote;         /* al_cm_g.remotes (passive CEPs; see al_cm_cep_index_locked) */
	cm_hitem_t by_qpn;            /* al_cm_g.qpns: {remote QPN, remote CA GUID, local ID} */
	cm_hitem_t by_qp;             /* al_cm_g.qps: {bound al_qp_t, local ID} while bound */
	cm_index_t by_time;           /* al_cm_g.timers: {deadline, local ID} while the timer is on
				       * and its timeout has no list (below) */
	cl_list_item_t time_item;     /* on its timeout's list while the timer is on */
	struct cm_timer_list *p_tlist; /* that list, or NULL */
	cl_list_item_t peer_item;     /* al_cm_g.peers: active peer-to-peer CEPs */
	boolean_t on_peers;
	cl_list_item_t dead_item;     /* on a local list of destructions to start */
	al_cm_state_t state;
	boolean_t listed;             /* in the tables (al_cm_g.ids and the indexes) */
	boolean_t active;
	uint32_t local_id;
	uint32_t remote_id;
	uint64_t remote_ca_guid;      /* host order */
	uint32_t remote_qpn;
	uint32_t local_qpn;
	uint32_t local_psn;
	ib_qp_type_t qp_type;
	ib_al_handle_t h_al;
	ib_qp_handle_t h_qp;          /* bound QP, or NULL */
	void *p_qp;                   /* its al_qp_t, for the destroy hook only */
	const void *qp_context;
	cm_port_t *p_port;
	ib_net16_t dlid;
	uint8_t sl;
	uint16_t pkey_index;
	ib_net64_t tid;               /* TID of the exchange: of the REQ (or SIDR_REQ), then of a DREQ or LAP */
	ib_path_rec_t path;           /* primary path, local view */
	al_cm_req_msg_t req;          /* the REQ sent or received */
	al_cm_msg_type_t last_type;   /* last message sent, for resends and duplicates */
	al_cm_msg_t last;
	boolean_t has_last;
	uint64_t deadline_us;
	uint32_t timeout_ms;
	uint32_t retries_left;
	uint8_t max_cm_retries;
	uint32_t peer_resp_ms;        /* how long the peer's CM may take to answer us */
	uint32_t pktlife_ms;
	uint32_t twait_ms;
	uint8_t resp_res;             /* negotiated: reads/atomics we accept */
	uint8_t init_depth;           /* negotiated: reads/atomics we issue */
	uint8_t rnr_nak_timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry_cnt;
	uint8_t local_ack_timeout;
	al_listen_t *p_listen;        /* referenced while the REQ callback is pending */
	ib_pfn_cm_req_cb_t pfn_req;
	ib_pfn_cm_rep_cb_t pfn_rep;
	ib_pfn_cm_rej_cb_t pfn_rej;
	ib_pfn_cm_mra_cb_t pfn_mra;
	ib_pfn_cm_rtu_cb_t pfn_rtu;
	ib_pfn_cm_lap_cb_t pfn_lap;
	ib_pfn_cm_apr_cb_t pfn_apr;
	ib_pfn_cm_dreq_cb_t pfn_dreq;
	ib_pfn_cm_drep_cb_t pfn_drep;
	struct cm_sync *p_sync;       /* IB_FLAGS_SYNC waiter of ib_cm_req/rep/lap/dreq */
	ib_path_rec_t alt_path;       /* the REQ's alternate path, then a LAP's (local view) */
	ib_net64_t lap_tid;           /* TID of the last LAP taken, to know its resends */
	boolean_t has_lap;            /* lap_tid is set */
	boolean_t alt_req;            /* the REQ carried an alternate path (in alt_path) */
	boolean_t alt_on;             /* failover accepted: RTR loads alt_path, RTS arms it */
	const void *sidr_context;     /* SIDR requester: returned in the reply callback */
	uint64_t sidr_service_id;     /* SIDR: service ID (host order) */
	cm_agents_t *p_agents;        /* counted user */
	/* Pacing of its request (al_cm_pace.c). */
	cm_dest_t *p_dest;            /* where it holds a place or waits, or NULL */
	cl_list_item_t park_item;     /* on p_dest->parked while it waits */
	boolean_t paced;              /* its request holds a place at p_dest */
	boolean_t parked;             /* its request waits on p_dest->parked */
} al_cep_t;

/* An IB_FLAGS_SYNC call (ib_cm_req, ib_cm_rep, ib_cm_lap, ib_cm_dreq)
 * waiting for the callback that answers it: released after a callback of
 * one of @c kinds (bits 1 << cm_ev_kind_t) has returned, or when its CEP is
 * freed (no such callback will come). */
typedef struct cm_sync {
	cl_event_t event;
	uint32_t kinds;
} cm_sync_t;

#define AL_OBJ_TYPE_CEP AL_HDL_CM

/*
 * A queue of things made under al_cm_g.lock and handed on after it is
 * released (al_cm_unlock): the messages to send, the callback events to put
 * on their CEPs' queues. An entry is linked through the pointer at link_off
 * in it. The queue keeps the order entries were put in, which is the order
 * they were made under the lock, and one thread at a time hands them on
 * (busy): a thread that finds another at it leaves its entries to it.
 * Without a lock: a put pushes onto head (a stack, with a compare-and-swap),
 * the thread that is busy takes the whole stack at once and hands it on in
 * the order it was put. lock and idle are only for al_cm_outq_run(q, TRUE)
 * waiting for another thread to stop being busy; lock is a leaf.
 */
typedef struct cm_outq {
	void *head;                   /* atomic: the entries put, the last first */
	uint32_t busy;                /* atomic: a thread hands entries on */
	uint32_t waiters;             /* atomic: threads waiting for busy to end */
	pthread_mutex_t lock;
	pthread_cond_t idle;          /* broadcast when busy ends with waiters */
	size_t link_off;
	void (*hand)(void *entry);    /* hands one entry on, no lock held */
	void (*emptied)(struct cm_outq *q); /* tests (NULL): the busy thread found the
				       * queue empty and is about to end being busy */
} cm_outq_t;

#define CM_OUTQ_INIT(type, link, fn) \
	{ NULL, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, offsetof(type, link), fn, NULL }

/* Appends an entry (al_cm_g.lock held, or not: the order is the callers'). */
void al_cm_outq_put(cm_outq_t *q, void *entry);
/* Hands every queued entry on, unless another thread is at it (@p wait:
 * waits for that thread first, so that none is left at it on return).
 * Never with al_cm_g.lock held. */
void al_cm_outq_run(cm_outq_t *q, boolean_t wait);

/* The CM's process-wide state (defined in al_cm_agent.c). */
typedef struct al_cm_globals {
	pthread_mutex_t lock;
	/* Tables (al_cm_lists_init_locked). Hashed, every lookup O(1)
	 * (al_cm_hash.h): */
	cm_hash_t ids;                /* every listed CEP, by local comm ID */
	cm_hash_t remotes;            /* passive CEPs by {remote comm ID, remote CA GUID} (duplicate REQs, REJs) */
	cm_hash_t qpns;               /* CEPs by {remote QPN, remote CA GUID} (stale connections) */
	cm_hash_t qps;                /* CEPs by bound QP (ib_cm_dreq, ib_cm_lap, the QP destroy hook) */
	cm_hash_t dests;              /* cm_dest_t by remote port (al_cm_pace.c) */
	/* In deadline order, O(1) to set and stop (cm_timer_list_t): */
	cm_timer_list_t tlists[AL_CM_TIMER_LISTS]; /* CEPs whose timer runs, by timeout */
	/* Ordered, O(log n): */
	cl_fmap_t timers;             /* the other CEPs whose timer runs, by deadline */
	cl_fmap_t listens;            /* listens by {service ID, sequence}: first made first matched */
	cl_qlist_t peers;             /* active peer-to-peer CEPs (few) */
	uint64_t listen_seq;
	boolean_t lists_init;
	al_cm_stats_t stats;
	pthread_mutex_t agent_lock;
	pthread_cond_t agent_cond;
	cm_agents_t *p_agents;        /* current set, or NULL */
	uint32_t users;               /* agent_lock: CEPs and listens */
	uint32_t teardowns;           /* agent_lock */
	cl_timer_t timer;
	boolean_t timer_init;
	uint64_t timer_at;            /* atomic, written under lock: the deadline (cl_get_time_stamp)
				       * the timer was last trimmed to, while it has not fired; 0: none */
	uint32_t pace_max;            /* requests on the wire to one port; 0: AL_CM_PACE_MAX (tests set less) */
	/* Callback events kept for reuse (al_cm_cep.c): taken under lock,
	 * given back without it. */
	struct cm_event *ev_cache;    /* atomic: the top, linked through p_q_next */
	uint32_t ev_cached;           /* atomic: how many (about) */
} al_cm_globals_t;

extern al_cm_globals_t al_cm_g;

/* ---- Shared helpers (documented at their definitions) ---- */

al_cep_t *al_cm_cep_by_local_id(uint32_t id);
void al_cm_cep_index_locked(al_cep_t *p_cep);
void al_cm_idx_set(cl_fmap_t *p_map, cm_index_t *p_idx, boolean_t on, uint64_t a, uint64_t b, uint64_t c);
cl_fmap_item_t *al_cm_idx_first(const cl_fmap_t *p_map, uint64_t a, uint64_t b);
void al_cm_listen_index_locked(al_listen_t *p_l, boolean_t on);
al_cep_t *al_cm_cep_by_qp(const void *p_qp);
ib_api_status_t al_cm_cep_create(al_obj_t *p_parent, al_cep_t **pp_cep);
/* Frees the callback events kept for reuse (the CM's last user is gone). */
void al_cm_ev_cache_drain(void);
void al_cm_cep_from_req(al_cep_t *p_cep, cm_port_t *p_port, const al_cm_req_msg_t *p_req, ib_net16_t dlid, uint16_t pkey_index);
void al_cm_cep_insert_locked(al_cep_t *p_cep);
void al_cm_cep_kill_locked(al_cep_t *p_cep, cl_qlist_t *p_dead);
void al_cm_cep_resend_last(al_cep_t *p_cep);
void al_cm_cep_send(al_cep_t *p_cep, al_cm_msg_type_t type, const al_cm_msg_t *p_msg);
void al_cm_cep_send_rej(al_cep_t *p_cep, ib_net16_t reason, al_cm_msg_ref_t ref, const uint8_t *ari, uint8_t ari_len, const uint8_t *pdata, uint8_t plen);
ib_api_status_t al_cm_get(cm_agents_t **pp_ag);
void al_cm_put(void);
void al_cm_qp_destroying(struct al_qp *p_qp);
void al_cm_recv(cm_port_t *p_port, ib_mad_element_t *p_mad);
uint32_t al_cm_time_ms(uint8_t exp);
void al_cm_timer_cb(void *context);
void al_cm_destroy_dead(cl_qlist_t *p_dead);
void al_cm_enter_timewait(al_cep_t *p_cep);
al_listen_t *al_cm_find_listen(cm_port_t *p_port, const al_cm_req_msg_t *p_req, boolean_t *p_sid);
void al_cm_lists_init_locked(void);
void al_cm_path_to_wire(const ib_path_rec_t *p, al_cm_path_t *w, uint8_t ack_timeout);
/* Index of a P_Key (base bits compared) in a table of @p n; 0 when absent,
 * *p_found (if not NULL) set TRUE only when found. */
uint16_t al_cm_pkey_find(const ib_net16_t *p_tab, uint16_t n, ib_net16_t pkey, boolean_t *p_found);
uint16_t al_cm_pkey_index_of(cm_port_t *p_port, ib_net16_t pkey, boolean_t *p_found);
void al_cm_port_expect_burst(cm_port_t *p_port);

/* Whether a listen's CA and port restrictions let it take requests on @p p_port. */
static inline boolean_t al_cm_listen_covers(const ib_cm_listen_t *i, const cm_port_t *p_port)
{
	return (i->ca_guid == IB_ALL_CAS || i->ca_guid == p_port->ca_guid) &&
	       (i->port_guid == IB_ALL_PORTS || i->port_guid == p_port->port_guid);
}
ib_api_status_t al_cm_port_attr(cm_port_t *p_port, ib_ca_attr_t **pp_attr, ib_port_attr_t **pp_pa);
cm_port_t *al_cm_port_by_guid(cm_agents_t *p_ag, ib_net64_t port_guid);
void al_cm_qp_error(al_cep_t *p_cep);
ib_api_status_t al_cm_qp_init(al_cep_t *p_cep, ib_access_t access);
ib_api_status_t al_cm_qp_load_alt(al_cep_t *p_cep, const ib_path_rec_t *p_alt);
ib_api_status_t al_cm_qp_rtr(al_cep_t *p_cep, uint32_t remote_psn);
ib_api_status_t al_cm_qp_rts(al_cep_t *p_cep, ib_access_t access);
ib_api_status_t al_cm_qp_to_state(ib_qp_handle_t h_qp, ib_qp_state_t state);
void al_cm_queue_req_event(al_cep_t *p_cep, void *pfn, const void *context, al_listen_t *p_l, cl_qlist_t *p_dead);
uint32_t al_cm_rand24(void);
void al_cm_send_drep(al_cep_t *p_cep, const uint8_t *pdata, uint8_t len);
/* Sends what is queued, then waits (at most a second) until the CM
 * messages handed to the MAD layer have completed: ib_close_al()'s hook. */
void al_cm_drain_sends(void);
/* Releases al_cm_g.lock, then queues the callbacks and sends the messages
 * made under it. */
void al_cm_unlock(void);
/* Queues the callbacks made under al_cm_g.lock on their CEPs (al_cm_ev_queue),
 * unless another thread is at it; never with al_cm_g.lock held. */
void al_cm_ev_flush(void);
ib_api_status_t al_cm_sync_init(ib_al_flags_t flags, uint32_t kinds, cm_sync_t *p_sync, boolean_t *p_on);
void al_cm_sync_wait(cm_sync_t *p_sync);
void al_cm_sync_drop(cm_sync_t *p_sync);
void al_cm_send_to(cm_port_t *p_port, al_cm_msg_type_t type, const al_cm_msg_t *p_msg, ib_net64_t tid, ib_net16_t dlid, uint8_t sl, uint16_t pkey_index, const ib_grh_t *p_rx_grh);
const ib_grh_t *al_cm_path_grh(const ib_path_rec_t *p_path, ib_grh_t *p_grh);
cm_port_t *al_cm_port_by_gid(cm_agents_t *p_ag, const ib_gid_t *p_gid);
ib_net64_t al_cm_new_tid(void);
void al_cm_timer_arm(al_cep_t *p_cep, uint32_t ms, uint32_t retries);
void al_cm_timer_rearm(al_cep_t *p_cep, uint32_t ms);
void al_cm_timer_stop(al_cep_t *p_cep);
/* Has the CM's timer fire by @p at (cl_get_time_stamp; @p ms from now);
 * al_cm_g.lock held. */
void al_cm_timer_due(uint64_t at, uint32_t ms);
/* The CEP whose timer runs out first, or NULL if none runs. */
al_cep_t *al_cm_timer_first(void);
/* Whether the CEP's timer runs. */
static inline boolean_t al_cm_timer_on(const al_cep_t *p_cep)
{
	return p_cep->p_tlist != NULL || p_cep->by_time.on;
}
/* Sends a message of the CEP to its peer now (not kept as its last, not paced). */
void al_cm_cep_send_to(al_cep_t *p_cep, al_cm_msg_type_t type, const al_cm_msg_t *p_msg);

/* Pacing of requests per remote port (al_cm_pace.c); al_cm_g.lock held. */
/* Requests to one remote port on the wire without an answer (al_cm_g.pace_max). */
uint32_t al_cm_pace_max(void);
/* Before the CEP sends @p type: TRUE to send it now; FALSE if it waits for
 * room (it is sent, as the CEP's last message, when room comes). A message
 * that is not a request ends the CEP's request's place or wait. */
boolean_t al_cm_pace_send(al_cep_t *p_cep, al_cm_msg_type_t type);
/* The CEP's request is answered (any message of the peer for it) or given
 * up: its place goes to the next waiting request; a waiting one is dropped. */
void al_cm_pace_done(al_cep_t *p_cep);
/* The CEP leaves the tables: as al_cm_pace_done, but a request still waiting
 * is sent now (a DREQ from its destruction must reach the peer). */
void al_cm_pace_end(al_cep_t *p_cep);
/* Remote ports with requests on the wire or waiting (tests: 0 when idle). */
uint32_t al_cm_pace_dests(void);

/* Shared by the endpoint file (al_cm_cep.c) and the receive handlers
 * (al_cm_recv.c); al_cm_g.lock held unless said otherwise. */
/* Key of a passive CEP in al_cm_g.remotes: a REQ's CEP under {remote comm
 * ID, remote CA GUID}; a SIDR_REQ's (whose sender names no CA) under
 * {1 << 32 | request ID, port GUID, source LID}. */
#define REMOTE_SIDR (1ull << 32)
/* The endpoint an index entry (cl_fmap_item_t of cm_index_t) belongs to, by its field. */
#define IDX_CEP(it, field) PARENT_STRUCT(PARENT_STRUCT(it, cm_index_t, item), al_cep_t, field)
/* The endpoint a hash entry (cm_hitem_t) belongs to, by its field. */
#define HITEM_CEP(e, field) PARENT_STRUCT(e, al_cep_t, field)
/* The AV of an alternate path, through the port that has its SGID. */
void al_cm_alt_to_av(const al_cep_t *p_cep, const ib_path_rec_t *p_alt, ib_av_attr_t *p_av);
/* The endpoint of a remote comm ID and CA GUID, or NULL. */
al_cep_t *al_cm_cep_by_remote(uint32_t remote_id, uint64_t remote_guid);
/* The endpoint connected to a remote QPN of a CA GUID, or NULL. */
al_cep_t *al_cm_cep_by_remote_qpn(uint32_t qpn, uint64_t guid);
/* The ib_cm_handle_t a callback gets for an endpoint. */
ib_cm_handle_t al_cm_cep_handle(const al_cep_t *p_cep);
/* A callback event of an endpoint (NULL: no memory), al_cm_g.lock held (the
 * only taker of the CM's cache of events); al_cm_ev_queue runs it on a
 * callback thread (a NULL event is ignored). */
cm_event_t *al_cm_ev_new(al_cep_t *p_cep, cm_ev_kind_t kind, void *pfn);
void al_cm_ev_queue(cm_event_t *p_ev);
/* Queues the user's rej, drep and apr callbacks (message, or a status of our own). */
void al_cm_queue_rej(al_cep_t *p_cep, const al_cm_rej_msg_t *p_rej, ib_net16_t reason);
void al_cm_queue_drep(al_cep_t *p_cep, ib_api_status_t status, const al_cm_drep_msg_t *p_drep);
void al_cm_queue_apr(al_cep_t *p_cep, ib_api_status_t status, const al_cm_apr_msg_t *p_apr);
/* A path record from a REQ's primary or alternate path. */
void al_cm_wire_to_path(const al_cm_path_t *w, const al_cm_req_msg_t *p_req, ib_path_rec_t *p);

/* A port is there (the CM's port_added as a client, al_client.h): a port
 * without an agent gets one. @p context is the agent set. */
void al_cm_port_added(void *context, const al_client_port_t *p_port);

#endif /* AL_CM_INT_H */
