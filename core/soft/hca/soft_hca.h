/*
 * ibal soft provider: the soft HCA's private objects, shared by its modules.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_hca.h
 * @brief Private structures of the soft HCA (CA, port, PD, AV, MR, MW, CQ,
 * SRQ, QP) and the functions its modules share. Never installed.
 *
 * **Locks**, in the order they nest:
 * - `soft_ca_t.rx_lock` (soft_lock_t): held by whoever takes packets from
 *   the ports (the progress thread, or a CQ poll that looks for packets
 *   itself), for the whole of their handling.
 * - `soft_ca_t.tab_lock` (soft_rwlock_t): the QP table, the special QP slots, the
 *   key table, the multicast attachments and a QP's transport state
 *   pointer. Writers add or remove QPs, MRs and MWs; they take rx_lock
 *   first (soft_tab_write()), so that the handling of a packet, which holds
 *   rx_lock, reads the tables without tab_lock: no atomic read-modify-write
 *   per packet. Other readers take tab_lock for reading: the post paths
 *   while they check keys and copy registered memory (so an MR cannot go
 *   away under a copy), timers and state changes.
 * - `soft_qp_t.sq_lock` (mutex): serializes the send path of a UD or raw QP,
 *   kept while its packets go to the fabric (the receive path never takes
 *   it), and every modify. A datagram QP's posts and modifies, and the
 *   resumption of its held sends, take tab_lock (read) first. RC/UC posts
 *   do not take it: they take tab_lock (read), then soft_rc_t.lock, which
 *   orders them.
 * - `soft_rc_t.lock` (soft_rc.h): RC/UC transport state, taken inside
 *   tab_lock (read) by posts, packets, timers and state changes.
 * - `soft_qp_t.lock`: QP state, attributes and receive queue.
 * - `soft_srq_t.lock`: SRQ ring.
 * - `soft_cq_t.lock`: CQ ring and arming.
 * - `soft_ca_t.ev_lock`: the deferred upcall queue (innermost).
 * `soft_ca_t.lock` guards the CA attributes and the special QP slots; it is
 * taken alone or just inside tab_lock.
 * The locks of the data path (`soft_rc_t.lock`, `soft_qp_t.lock` and
 * `sq_lock`, `soft_srq_t.lock`, `soft_cq_t.lock`, `soft_ca_t.rx_lock` and
 * `pend_lock`) are soft_lock_t (soft_lock.h): one futex word, taken
 * inline; tab_lock is a soft_rwlock_t (soft_rwlock.h), whose read side is
 * one atomic add and one subtract, inline; ev_lock (with its condition
 * variable) and the CA's lock are pthread mutexes.
 *
 * **Upcalls** are never made from the caller's thread or with a lock held:
 * every module queues them with soft_ca_defer() and the CA's progress thread
 * delivers them in order (soft_progress.c).
 */
#ifndef SOFT_HCA_H
#define SOFT_HCA_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <complib/cl_thread.h>
#include <complib/cl_qlist.h>
#include "al_prov.h"
#include "prov_wc_ring.h"
#include "soft_fabric.h"
#include "prov_qp_state.h"
#include "prov_conn_mem.h"
#include "soft_wire.h"
#include "soft_lock.h"
#include "soft_rwlock.h"

/**
 * Default of SOFT_ENV_UD_HOLD_MS: longest a datagram QP's packet waits at
 * a full ring (its peer does not drain) before it is dropped, as a
 * switch's head-of-queue lifetime would drop it; the sends behind it wait
 * with it (soft_ud.c).
 */
#define SOFT_UD_HOLD_MS 50
/** Environment: SOFT_UD_HOLD_MS in milliseconds, 1 to SOFT_UD_HOLD_MS_MAX. */
#define SOFT_ENV_UD_HOLD_MS "IBAL_SOFT_UD_HOLD_MS"
/** Most of SOFT_ENV_UD_HOLD_MS (a minute). */
#define SOFT_UD_HOLD_MS_MAX 60000u
/** DLIDs a datagram QP remembers as stuck (their packets dropped at once). */
#define SOFT_UD_STUCK_LIDS 4
/** Most soft CAs one process may have (the fabric service: one per topology node and its own). */
#define SOFT_MAX_CAS 256
/** Most soft CAs IBAL_SOFT_CAS may ask for. */
#define SOFT_MAX_CAS_ENV 16
/** Most ports per soft CA (IBAL_SOFT_PORTS). */
#define SOFT_MAX_PORTS 2
/** Environment: number of soft CAs in the process (default 1). */
#define SOFT_ENV_CAS "IBAL_SOFT_CAS"
/** Environment: compute (and so check) the ICRC and VCRC of every data packet (default: only captured ones). */
#define SOFT_ENV_ICRC "IBAL_SOFT_ICRC"
/** Environment: how long a progress thread polls idle before it sleeps, microseconds. */
#define SOFT_ENV_SPIN_US "IBAL_SOFT_SPIN_US"
/** Default of SOFT_ENV_SPIN_US. */
#define SOFT_SPIN_US_DEFAULT 50u
/** Most of SOFT_ENV_SPIN_US. */
#define SOFT_SPIN_US_MAX 1000000u
/** While CQ polls take packets themselves, the progress thread looks every this many ms. */
#define SOFT_PROGRESS_BACKOFF_MS 1
/** A CQ poller that does not poll again within this many ns is not polling on: no backoff for it. */
#define SOFT_PROGRESS_POLLER_NS 5000u
/** A thread polling an empty CQ looks at the clock every this many polls in a row... */
#define SOFT_POLL_YIELD_EVERY 16u
/** ...and yields its processor (sched_yield) each time once the streak has lasted this long, ns. */
#define SOFT_POLL_YIELD_NS 20000u
/** Packets a drain of one port handles before the queued responses (coalesced ACKs) go out. */
#define SOFT_DRAIN_BATCH 64u
/** How often a progress thread looks again at a ring a sender is writing, milliseconds. */
#define SOFT_PROGRESS_PENDING_MS 2
/** Environment: ports per soft CA (default 1, at most SOFT_MAX_PORTS). */
#define SOFT_ENV_PORTS "IBAL_SOFT_PORTS"

/** @name Limits a soft CA reports and enforces. @{ */
#define SOFT_MAX_QPS        16384u
#define SOFT_MAX_WRS        16384u
#define SOFT_MAX_SGES       32u
#define SOFT_MAX_CQS        4096u
#define SOFT_MAX_CQES       65536u
#define SOFT_MAX_PDS        4096u
#define SOFT_MAX_KEYS       16384u /**< MRs and MWs share the key index space. */
#define SOFT_MAX_MR_SIZE    (1ull << 40)
#define SOFT_MAX_AVS        65536u
#define SOFT_MAX_INLINE     256u
#define SOFT_MAX_QP_RD_ATOM 16u
#define SOFT_MAX_SRQS       4096u
#define SOFT_MAX_MCAST      SOFT_FABRIC_MAX_MCAST
/** @} */

/** The UD GRH area at the start of every receive buffer (IBA 11.4.1.2). */
#define SOFT_UD_GRH_AREA SOFT_GRH_LEN
/** Q_Key of QP1 (IBA 13.5.1): GSI packets must carry it. */
#define SOFT_QP1_QKEY 0x80010000u

/** IBAL_SOFT_SPIN_US in nanoseconds (soft_prov.c). */
extern uint64_t soft_spin_ns;
/** IBAL_SOFT_UD_HOLD_MS in nanoseconds (soft_prov.c); atomic (relaxed): tests change it. */
extern uint64_t soft_ud_hold_ns;
/** IBAL_SOFT_ICRC: TRUE when data packets get their ICRC and VCRC computed (soft_prov.c). */
extern boolean_t soft_data_crc;


typedef struct soft_ca soft_ca_t;
typedef struct soft_qp soft_qp_t;
struct soft_sm;
typedef struct soft_cq soft_cq_t;
typedef struct soft_srq soft_srq_t;

/**
 * What the subnet management agent (soft_sma.c) keeps of a port besides its
 * LID and state: the PortInfo fields a subnet manager sets, the tables it
 * may write, and the performance agent's counters (soft_pma.c). Changed
 * under ca->lock; the counters are atomic.
 */
typedef struct soft_port_mgmt {
	ib_net64_t m_key;            /**< M_Key (0: no protection). */
	ib_net64_t subnet_prefix;    /**< GidPrefix. */
	uint16_t sm_lid;             /**< MasterSMLID, host order (0: none yet). */
	uint8_t sm_sl;               /**< MasterSMSL. */
	uint8_t lmc;                 /**< LMC (only the base LID routes). */
	uint8_t mkey_protect;        /**< M_KeyProtectBits. */
	uint8_t subnet_timeout;      /**< SubnetTimeOut. */
	uint8_t client_rereg;        /**< ClientReregister bit of the last Set. */
	uint16_t mkey_lease;         /**< M_KeyLeasePeriod. */
	uint16_t mkey_violations;    /**< M_KeyViolations. */
	uint8_t slvl[8];             /**< SLtoVLMappingTable. */
	uint8_t vlarb[2][64];        /**< VLArbitrationTable blocks 1 (low) and 2 (high). */
	uint64_t rcv_errors;         /**< Malformed packets received (atomic). */
	uint64_t vl15_dropped;       /**< SMPs dropped (atomic). */
	uint64_t multicast_rcv;      /**< Multicast packets received (atomic). */
	/** Counter values at the last PortCounters Set (index: SOFT_PMA_*). */
	uint64_t base[8];
} soft_port_mgmt_t;

/** One QP attached to a multicast group (soft_mcast.c). */
typedef struct soft_mcast {
	struct soft_mcast *next;     /**< Next attachment of the CA. */
	soft_qp_t *qp;               /**< The QP. */
	uint8_t port;                /**< Its port. */
	uint16_t mlid;               /**< MLID, host order. */
	ib_gid_t mgid;               /**< MGID. */
} soft_mcast_t;

/** One port of a soft CA. */
typedef struct soft_port {
	soft_ca_t *ca;               /**< Owning CA. */
	uint8_t num;                 /**< Port number, 1-based. */
	ib_net64_t guid;             /**< Port GUID. */
	soft_fabric_port_t *fp;      /**< Fabric attachment. */
	uint16_t lid;                /**< LID (host order) from the fabric (atomic). */
	uint8_t link_state;          /**< IB_LINK_DOWN .. IB_LINK_ACTIVE (atomic; ca->lock to change). */
	ib_port_cap_t cap;           /**< Capability bits (modify_ca). */
	uint16_t pkey_ctr;           /**< P_Key violations. */
	uint16_t qkey_ctr;           /**< Q_Key violations. */
	ib_init_type_t init_type;    /**< Requested initialization type. */
	soft_qp_t *spl[2];           /**< QP0 and QP1 of the port, or NULL. */
	soft_port_mgmt_t mgmt;       /**< SMA/PMA state (soft_sma.c, soft_pma.c). */
} soft_port_t;

/** A deferred upcall. */
typedef struct soft_upcall {
	cl_list_item_t item;         /**< Link in soft_ca_t.ev_list. */
	void *prov_obj;              /**< Provider object it concerns (purged when destroyed). */
	void *al_obj;                /**< Core context given to the upcall. */
	int comp;                    /**< SOFT_UPCALL_ASYNC, _COMP or _PORT. */
	ib_async_event_t code;       /**< Event code (async). */
	uint64_t vendor;             /**< Vendor-specific value (async). */
} soft_upcall_t;
#define SOFT_UPCALL_ASYNC 0 /**< async_event(al_obj, code, vendor). */
#define SOFT_UPCALL_COMP  1 /**< cq_comp(al_obj). */
#define SOFT_UPCALL_PORT  2 /**< port_change(al_obj, (uint8_t)vendor). */

/** An entry of the key table: an MR or an MW (index = key >> 8). */
typedef struct soft_key_ent {
	uint8_t type;                /**< SOFT_KEY_FREE, _MR, _MW. */
	uint8_t key;                 /**< Low 8 bits of the current key. */
	void *obj;                   /**< soft_mr_t or soft_mw_t. */
} soft_key_ent_t;
#define SOFT_KEY_FREE 0 /**< Unused entry. */
#define SOFT_KEY_MR   1 /**< Entry holds a soft_mr_t. */
#define SOFT_KEY_MW   2 /**< Entry holds a soft_mw_t. */

/** A soft channel adapter. */
struct soft_ca {
	ib_net64_t guid;             /**< Node (CA) GUID. */
	unsigned index;              /**< Index in the process, 0-based. */
	void *al_ca;                 /**< Core context for CA events. */
	uint8_t num_ports;           /**< Ports. */
	soft_port_t port[SOFT_MAX_PORTS]; /**< Ports. */
	pthread_mutex_t lock;        /**< Attributes, ports, special QP slots. */
	ib_ca_attr_t *attr;          /**< Attribute block, for prov_qp_modify_check. */
	uint32_t attr_size;          /**< Its size. */
	soft_rwlock_t tab_lock;      /**< QP and key tables (see file comment; soft_rwlock.h). */
	soft_qp_t **qp_tab;          /**< QPs by number (SOFT_MAX_QPS entries). */
	uint32_t next_qpn;           /**< Where the next QPN search starts. */
	soft_key_ent_t *keys;        /**< Key table (SOFT_MAX_KEYS entries, 0 unused). */
	uint32_t next_key;           /**< Where the next key search starts. */
	uint32_t n_pd, n_cq, n_srq, n_av; /**< Object counts, under lock. */
	int opening;                 /**< soft_open_ca runs: port changes are not announced (atomic). */
	struct soft_sm *sm;          /**< The subnet manager instance of its fabric directory, or NULL. */
	int node_fd;                 /**< A topology node: the connection to the fabric service that lends it, or -1. */
	soft_mcast_t *mcast;         /**< Multicast attachments (tab_lock). */
	uint32_t n_mcast;            /**< Their number (tab_lock). */
	/* Progress. */
	cl_thread_t thread;          /**< Progress thread. */
	int epfd;                    /**< epoll on port fds and evfd. */
	int evfd;                    /**< eventfd that wakes the thread. */
	volatile int stop;           /**< Set to stop the thread. */
	int sleeping;                /**< The thread is (about to be) in epoll: wake it (atomic). */
	soft_lock_t rx_lock;         /**< Held by whoever takes packets from the ports, and by table writers (outermost). */
	uint8_t *rx_buf;             /**< Packet buffer of that holder. */
	uint64_t inline_seq;         /**< CQ polls that look for packets themselves, counted (atomic; it only has to move). */
	uint64_t inline_ack;         /**< inline_seq when the last such poller rearmed its CQ (atomic): polls up to there are over. */
	soft_lock_t pend_lock;       /**< pend, n_pend, cap_pend. */
	uint32_t *pend;              /**< QPNs with responses waiting for room at their peers. */
	uint32_t n_pend;             /**< Their number (atomic reads outside pend_lock). */
	uint32_t cap_pend;           /**< Room in @c pend. */
	uint64_t spin_ns;            /**< How long it polls with nothing to do before sleeping. */
	pthread_mutex_t ev_lock;     /**< ev_list, busy_obj. */
	pthread_cond_t ev_cond;      /**< Signaled when busy_obj clears. */
	cl_qlist_t ev_list;          /**< Deferred upcalls, in order. */
	void *busy_obj;              /**< Provider object whose upcall is running. */
};

/**
 * Takes the CA's tables for writing: rx_lock, then tab_lock for writing
 * (see the file comment). Never called with rx_lock held, nor from the
 * handling of a packet. @param ca the CA.
 */
static inline void soft_tab_write(soft_ca_t *ca)
{
	soft_lock(&ca->rx_lock);
	soft_rwlock_write(&ca->tab_lock);
}

/** Releases what soft_tab_write() took. @param ca the CA. */
static inline void soft_tab_write_end(soft_ca_t *ca)
{
	soft_rwlock_write_end(&ca->tab_lock);
	soft_unlock(&ca->rx_lock);
}

/** A protection domain. */
typedef struct soft_pd {
	soft_ca_t *ca;               /**< Owning CA. */
	ib_pd_type_t type;           /**< Type. */
} soft_pd_t;

/** An address vector. */
typedef struct soft_av {
	soft_pd_t *pd;               /**< Protection domain. */
	ib_av_attr_t attr;           /**< Attributes as given (validated). */
} soft_av_t;

/** A memory region. */
typedef struct soft_mr {
	soft_pd_t *pd;               /**< Protection domain. */
	uint64_t va;                 /**< Start (the caller's virtual address). */
	uint64_t len;                /**< Length. */
	ib_access_t access;          /**< Access rights. */
	uint32_t lkey;               /**< L_Key, host order. */
	uint32_t rkey;               /**< R_Key, host order (same as lkey). */
	uint32_t n_mw;               /**< Windows bound to it. */
} soft_mr_t;

/** A type-1 memory window. */
typedef struct soft_mw {
	soft_pd_t *pd;               /**< Protection domain. */
	uint32_t rkey;               /**< Current R_Key, host order. */
	soft_mr_t *mr;               /**< Region it is bound to, or NULL. */
	uint64_t va;                 /**< Bound range start. */
	uint64_t len;                /**< Bound range length (0: unbound). */
	ib_access_t access;          /**< Access rights of the binding. */
} soft_mw_t;

/** A completion queue. */
struct soft_cq {
	soft_ca_t *ca;               /**< Owning CA. */
	void *al_cq;                 /**< Core context for upcalls. */
	soft_lock_t lock;            /**< Everything below. */
	prov_wc_ring_t ring;           /**< Entries, arming, overrun (prov_wc_ring.h). */
	uint32_t n_qp;               /**< QPs using it. */
	uint32_t avail;              /**< ring.count as last changed (atomic): a poll that reads 0 takes no lock. */
	int arm;                     /**< ring.arm as last changed (atomic). */
};

/** A receive work request as queued. */
typedef struct soft_rwqe {
	uint64_t wr_id;              /**< Echoed in the completion. */
	uint32_t num_ds;             /**< Segments. */
	ib_local_ds_t ds[];          /**< Segments (max_sge entries). */
} soft_rwqe_t;

/** A ring of receive WQEs (QP RQ or SRQ). */
typedef struct soft_rq {
	uint8_t *buf;                /**< depth slots of stride bytes. */
	uint32_t stride;             /**< Bytes per slot. */
	uint32_t depth;              /**< Slots. */
	uint32_t max_sge;            /**< Segments per WQE. */
	uint32_t head;               /**< Oldest WQE. */
	uint32_t count;              /**< WQEs queued. */
} soft_rq_t;

/** A shared receive queue. */
struct soft_srq {
	soft_pd_t *pd;               /**< Protection domain. */
	void *al_srq;                /**< Core context for events. */
	soft_lock_t lock;            /**< rq, limit. */
	soft_rq_t rq;                /**< The WQEs. */
	uint32_t limit;              /**< Armed limit, 0 when not armed. */
	uint32_t n_qp;               /**< QPs attached (under lock). */
};

/** A send work request of a datagram QP kept in its send queue: posted in
 * SQD (queued until RTS), or waiting behind a packet held at a full ring. */
typedef struct soft_swqe {
	ib_send_wr_t wr;             /**< Copy (p_next NULL, ds_array pointing at @c ds). */
	ib_local_ds_t ds[SOFT_MAX_SGES]; /**< Segments. */
	uint8_t inl[SOFT_MAX_INLINE];    /**< Inline data, copied at post. */
	uint32_t inl_len;            /**< Inline bytes. */
} soft_swqe_t;

/**
 * A queue pair. The reliable engine (soft_rc.c) hangs its state on @c rc
 * and is called directly by soft_qp.c and soft_progress.c (soft_rc.h).
 */
struct soft_qp {
	soft_ca_t *ca;               /**< Owning CA. */
	soft_pd_t *pd;               /**< Protection domain. */
	void *al_qp;                 /**< Core context for events. */
	ib_qp_type_t type;           /**< Type. */
	prov_qp_class_t cls;         /**< Its class (prov_qp_class()), kept for the data path. */
	uint32_t qpn;                /**< Number (0/1 for special QPs). */
	uint8_t spl_port;            /**< Special QPs: the port; else 0. */
	int state;                   /**< attr.state as last changed (atomic; written under @c lock by soft_qp_publish()): read without the lock by the data path. */
	int apm;                     /**< attr.apm_state the same way, 0 without an alternate path (soft_qp_publish()). */
	soft_cq_t *scq;              /**< Send CQ. */
	soft_cq_t *rcq;              /**< Receive CQ. */
	soft_srq_t *srq;             /**< SRQ or NULL. */
	boolean_t sq_signaled;       /**< Every send is signaled. */
	uint32_t sq_depth;           /**< Send queue depth. */
	uint32_t sq_sge;             /**< Send SGEs. */
	uint32_t max_inline;         /**< Inline bytes. */
	soft_lock_t sq_lock;         /**< Send path (see file comment). */
	soft_lock_t lock;            /**< State, attributes, rq, sq ring. */
	prov_qp_attr_t attr;         /**< State and attributes. */
	soft_rq_t rq;                /**< Receive queue (unused with an SRQ). */
	soft_swqe_t *sq;             /**< Datagram QPs: sends not yet executed (sq_depth slots): posted in SQD, or behind a held one. */
	uint32_t sq_head;            /**< Oldest queued send. */
	uint32_t sq_count;           /**< Sends queued. */
	uint32_t sq_live;            /**< Of them, the first ones posted in RTS: they go out in SQD too (sq_lock and lock). */
	uint64_t sq_held_ns;         /**< When the oldest queued send's packet first found its ring full, 0 if it did not (sq_lock). */
	uint16_t sq_stuck[SOFT_UD_STUCK_LIDS]; /**< DLIDs whose ring stayed full SOFT_UD_HOLD_MS (0: none): their packets drop, not wait, until one finds room (sq_lock). */
	uint32_t sq_n_stuck;         /**< Nonzero entries of sq_stuck (sq_lock). */
	uint8_t *pkt;                /**< Packet buffer of the send path (SOFT_MAX_PKT_LEN). */
	void *rc;                    /**< Connected transport state (soft_rc_t), NULL until INIT. */
};

/* soft_prov.c */
/** The upcalls the core gave at init. */
extern al_prov_upcalls_t soft_upcalls;
/**
 * Finds a CA of this process by GUID.
 * @param guid CA GUID.
 * @param p_index receives its index.
 * @param p_ports receives its port count.
 * @return TRUE if the GUID is one of ours.
 */
boolean_t soft_prov_ca_index(ib_net64_t guid, unsigned *p_index, uint8_t *p_ports);
/**
 * The GUID of a CA or of one of its ports.
 * @param index CA index.
 * @param port 0 for the node GUID, else the port number.
 * @return the GUID, network order.
 */
ib_net64_t soft_prov_guid(unsigned index, uint8_t port);
/**
 * The LID a port of a CA must have (a topology node's), or 0 for any.
 * @param index CA index. @param port port number.
 * @return the LID, host order.
 */
uint16_t soft_prov_port_lid(unsigned index, uint8_t port);
/**
 * The topology node a CA is (IBAL_SOFT_NODE, or the fabric service's CAs).
 * @param index CA index.
 * @param p_take receives whether opening it asks the fabric service for the
 * node (may be NULL).
 * @return the node's name, or NULL for a CA that is no topology node.
 */
const char *soft_prov_node_name(unsigned index, boolean_t *p_take);
struct soft_topo;
/**
 * Makes this process the fabric service of a topology: after init, CA 0
 * stays the process's own and CAs 1..n become the nodes of @p p_topo
 * (opened without asking a service). For `ibal-soft-fabric` only.
 * @param p_topo the topology (copied).
 * @return IB_SUCCESS; IB_INVALID_PARAMETER if the provider is not
 * initialized or the topology is empty or too big.
 */
ib_api_status_t soft_prov_serve(const struct soft_topo *p_topo);
/**
 * Plugs a CA in or out of the process: an absent CA is not enumerated and
 * cannot be opened (open ones stay usable, their ports down).
 * @param index CA index. @param present TRUE to plug in.
 * @return TRUE if the presence changed.
 */
boolean_t soft_prov_set_present(unsigned index, boolean_t present);

/* soft_node.c */
/**
 * Asks the fabric service for a node of its topology before a CA that is
 * that node opens its ports (soft_topo.h has the protocol).
 * @param name the node. @param p_fd receives the connection that holds
 * the node (soft_node_give_back() at close), or -1 when no service runs
 * (the node's LIDs are then used as they are).
 * @return IB_SUCCESS; IB_RESOURCE_BUSY if another process has the node;
 * IB_INVALID_GUID if the service's topology has no such node; IB_TIMEOUT
 * if the service did not answer; IB_ERROR if it could not be reached.
 */
ib_api_status_t soft_node_take(const char *name, int *p_fd);
/**
 * Gives a node back to the fabric service (its CA closed).
 * @param fd what soft_node_take() gave (-1 ignored).
 */
void soft_node_give_back(int fd);

/* soft_ca.c */
ib_api_status_t soft_open_ca(ib_net64_t ca_guid, void *al_ca, void **pp_ca);
ib_api_status_t soft_query_ca(void *ca, ib_ca_attr_t *p_attr, uint32_t *p_size);
ib_api_status_t soft_modify_ca(void *ca, uint8_t port_num, ib_ca_mod_t mod,
			       const ib_port_attr_mod_t *p_attr);
void soft_close_ca(void *ca);
/**
 * The P_Key at an index of a port's table.
 * @param port the port.
 * @param index the index.
 * @param p_pkey receives the P_Key, host order.
 * @return TRUE if the index is in the table.
 */
boolean_t soft_port_pkey(const soft_port_t *port, uint16_t index, uint16_t *p_pkey);
/**
 * The port's MTU in bytes.
 * @param port the port.
 * @return bytes.
 */
uint32_t soft_port_mtu(const soft_port_t *port);
/**
 * Looks a port up.
 * @param ca the CA.
 * @param num port number.
 * @return the port, or NULL if out of range.
 */
soft_port_t *soft_ca_port(soft_ca_t *ca, uint8_t num);
/**
 * Sets a port's link state, as a cable pulled and plugged or a subnet
 * manager would: packets go out and come in only while it is ACTIVE.
 * Raises IB_AE_PORT_ACTIVE / IB_AE_PORT_DOWN (vendor_specific = port
 * number) and the port_change upcall.
 * @param port the port. @param state IB_LINK_DOWN .. IB_LINK_ACTIVE.
 */
void soft_port_set_state(soft_port_t *port, uint8_t state);
/**
 * Gives a port another LID (soft_fabric_port_set_lid), raising
 * IB_AE_LID_CHANGE and the port_change upcall.
 * @param port the port. @param lid the LID, host order.
 * @return the status of soft_fabric_port_set_lid().
 */
ib_api_status_t soft_port_set_lid(soft_port_t *port, uint16_t lid);
/**
 * Queues a port's async event (@p code, if nonzero) and its port_change
 * upcall, unless the CA is still being opened.
 * @param port the port. @param code the event or 0.
 */
void soft_port_announce(soft_port_t *port, ib_async_event_t code);
/**
 * Sends a packet out of a port if its link is ACTIVE (else it is lost, as
 * on a link that is down).
 * @param port the port. @param pkt the packet. @param len its bytes.
 */
static inline void soft_port_xmit(soft_port_t *port, const void *pkt, size_t len)
{
	if (__atomic_load_n(&port->link_state, __ATOMIC_ACQUIRE) == IB_LINK_ACTIVE)
		soft_fabric_send(port->fp, pkt, len);
}
/**
 * Seals a data packet (RC, UC, UD) and sends it like soft_port_xmit(). Its
 * ICRC and VCRC are computed only with IBAL_SOFT_ICRC=1; otherwise they are
 * left zero and the fabric tells the receiver so (shared memory does not
 * corrupt packets), and computes them itself for a packet it captures.
 * @param port the port. @param pkt the packet, headers, payload and pad in
 * place. @param len its bytes, ICRC and VCRC included.
 * @param flags 0, SOFT_FABRIC_DIRECT for a direct-placement packet, or
 * SOFT_FABRIC_TELL_FULL for one its sender holds if the ring is full.
 * @return IB_SUCCESS (sent, or lost on a link that is down, as any packet);
 * IB_ERROR if the packet is malformed; IB_NOT_DONE if a SOFT_FABRIC_DIRECT
 * packet cannot travel as one now, IB_RESOURCE_BUSY if a
 * SOFT_FABRIC_TELL_FULL one found the ring full (nothing sent).
 */
static inline ib_api_status_t soft_port_xmit_data(soft_port_t *port, uint8_t *pkt, size_t len,
						  uint32_t flags)
{
	if (soft_data_crc ? soft_pkt_seal(pkt, len) != SOFT_WIRE_OK
			  : soft_pkt_seal_none(pkt, len) != SOFT_WIRE_OK)
		return IB_ERROR;
	if (__atomic_load_n(&port->link_state, __ATOMIC_ACQUIRE) != IB_LINK_ACTIVE)
		return IB_SUCCESS;
	return soft_fabric_send_flags(port->fp, pkt, len,
				      flags | (soft_data_crc ? 0 : SOFT_FABRIC_NO_CRC));
}
/** The port's LID, host order. @param port the port. @return the LID. */
static inline uint16_t soft_port_lid(const soft_port_t *port)
{
	return __atomic_load_n(&port->lid, __ATOMIC_ACQUIRE);
}

/* soft_ci.c */
ib_api_status_t soft_ci_call(void *ca, void *const *prov_handles, uint32_t num_handles,
			     ib_ci_op_t *p_ci_op);

/* soft_pd.c */
ib_api_status_t soft_alloc_pd(void *ca, ib_pd_type_t type, void **pp_pd);
void soft_dealloc_pd(void *pd);

/* soft_av.c */
ib_api_status_t soft_create_av(void *pd, const ib_av_attr_t *p_attr, void **pp_av);
ib_api_status_t soft_query_av(void *av, ib_av_attr_t *p_attr);
ib_api_status_t soft_modify_av(void *pd, const ib_av_attr_t *p_attr, void **pp_av);
void soft_destroy_av(void *av);
/**
 * Validates address vector attributes against a CA.
 * @param ca the CA.
 * @param p_attr the attributes.
 * @return IB_SUCCESS, IB_INVALID_PORT, IB_INVALID_SETTING.
 */
ib_api_status_t soft_av_check(soft_ca_t *ca, const ib_av_attr_t *p_attr);

/* soft_mr.c */
ib_api_status_t soft_reg_mem(void *pd, const ib_mr_create_t *p_create, net32_t *p_lkey,
			     net32_t *p_rkey, void **pp_mr);
ib_api_status_t soft_query_mr(void *mr, ib_mr_attr_t *p_attr);
ib_api_status_t soft_rereg_mem(void *mr, ib_mr_mod_t mask, const ib_mr_create_t *p_create,
			       void *new_pd, net32_t *p_lkey, net32_t *p_rkey);
ib_api_status_t soft_reg_shared(void *mr, void *pd, ib_access_t access, uint64_t *p_vaddr,
				net32_t *p_lkey, net32_t *p_rkey, void **pp_mr);
ib_api_status_t soft_dereg_mr(void *mr);
/**
 * Allocates a key table entry (tab_lock held for writing).
 * @param ca the CA.
 * @param type SOFT_KEY_MR or SOFT_KEY_MW.
 * @param obj the object.
 * @param p_key receives the key, host order.
 * @return IB_SUCCESS or IB_INSUFFICIENT_RESOURCES.
 */
ib_api_status_t soft_key_alloc(soft_ca_t *ca, uint8_t type, void *obj, uint32_t *p_key);
/**
 * Frees a key table entry (tab_lock held for writing).
 * @param ca the CA.
 * @param key the key.
 */
void soft_key_free(soft_ca_t *ca, uint32_t key);
/**
 * Gives a key table entry a new key byte (tab_lock held for writing).
 * @param ca the CA.
 * @param key the current key.
 * @return the new key.
 */
uint32_t soft_key_bump(soft_ca_t *ca, uint32_t key);
/**
 * The IBA check of a memory access through an L_Key or R_Key (tab_lock held
 * for reading, which keeps the memory registered while the caller copies).
 * Local accesses (no remote bit in @p access) take an MR's L_Key; remote ones
 * an R_Key of an MR with those rights or of a bound MW.
 * @param pd the protection domain of the QP making the access.
 * @param key the key, host order.
 * @param va start of the access.
 * @param len its length (0 is always in bounds).
 * @param access the rights needed: 0 to read locally, IB_AC_LOCAL_WRITE,
 * IB_AC_RDMA_READ, IB_AC_RDMA_WRITE, IB_AC_ATOMIC.
 * @return IB_SUCCESS; IB_INVALID_LKEY / IB_INVALID_RKEY for a key naming no
 * region or window, or of the wrong kind; IB_INVALID_PD_HANDLE for another
 * PD; IB_INVALID_PERMISSION for missing rights; IB_INVALID_SETTING for an
 * access outside the bounds.
 */
ib_api_status_t soft_mr_check(soft_pd_t *pd, uint32_t key, uint64_t va, uint64_t len,
			      ib_access_t access);

/**
 * Copies a buffer into a work request's data segments, each piece checked
 * with soft_mr_check() for local write rights (tab_lock held for reading):
 * the segments' L_Keys must name regions of @p pd that hold them.
 * @param pd the protection domain of the QP.
 * @param ds the segments. @param num_ds how many.
 * @param off where in the segments (their bytes one after the other) to start.
 * @param src the bytes to copy; NULL: the segments are only checked.
 * @param n how many.
 * @return IB_WCS_SUCCESS; IB_WCS_LOCAL_PROTECTION_ERR when a check fails;
 *         IB_WCS_LOCAL_LEN_ERR when the segments end before @p n bytes.
 */
ib_wc_status_t soft_sgl_scatter(soft_pd_t *pd, const ib_local_ds_t *ds, uint32_t num_ds,
				uint64_t off, const uint8_t *src, uint64_t n);

/**
 * Copies from a work request's data segments into a buffer, each piece
 * checked with soft_mr_check() for a local read, as soft_sgl_scatter().
 * @param pd the protection domain of the QP.
 * @param ds the segments. @param num_ds how many.
 * @param off where in the segments to start.
 * @param dst where the bytes go. @param n how many.
 * @return as soft_sgl_scatter().
 */
ib_wc_status_t soft_sgl_gather(soft_pd_t *pd, const ib_local_ds_t *ds, uint32_t num_ds,
			       uint64_t off, uint8_t *dst, uint64_t n);

/* soft_mw.c */
ib_api_status_t soft_create_mw(void *pd, net32_t *p_rkey, void **pp_mw);
ib_api_status_t soft_query_mw(void *mw, net32_t *p_rkey);
ib_api_status_t soft_bind_mw(void *mw, void *qp, ib_bind_wr_t *p_bind, net32_t *p_rkey);
void soft_destroy_mw(void *mw);
/**
 * Looks up a bound window by R_Key (tab_lock held).
 * @param ca the CA.
 * @param rkey the R_Key, host order.
 * @return the window, or NULL.
 */
soft_mw_t *soft_mw_lookup(soft_ca_t *ca, uint32_t rkey);

/* soft_cq.c */
ib_api_status_t soft_create_cq(void *ca, uint32_t *p_size, void *al_cq, void **pp_cq);
ib_api_status_t soft_resize_cq(void *cq, uint32_t *p_size);
ib_api_status_t soft_query_cq(void *cq, uint32_t *p_size);
void soft_destroy_cq(void *cq);
ib_api_status_t soft_peek_cq(void *cq, uint32_t *p_n_cqes);
ib_api_status_t soft_poll_cq(void *cq, ib_wc_t **pp_free_wclist, ib_wc_t **pp_done_wclist);
ib_api_status_t soft_rearm_cq(void *cq, boolean_t solicited);
ib_api_status_t soft_rearm_n_cq(void *cq, uint32_t n_cqes);
/**
 * Adds a completion; queues the completion upcall when the arming asks for
 * it and the CQ_ERROR event on overrun.
 * @param cq the CQ.
 * @param p_wc the completion (p_next ignored).
 * @param solicited the completion is solicited.
 */
void soft_cq_add(soft_cq_t *cq, const ib_wc_t *p_wc, boolean_t solicited);

/* soft_srq.c */
ib_api_status_t soft_create_srq(void *pd, const ib_srq_attr_t *p_attr, void *al_srq,
				void **pp_srq);
ib_api_status_t soft_query_srq(void *srq, ib_srq_attr_t *p_attr);
ib_api_status_t soft_modify_srq(void *srq, const ib_srq_attr_t *p_attr, ib_srq_attr_mask_t mask);
void soft_destroy_srq(void *srq);
ib_api_status_t soft_post_srq_recv(void *srq, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure);
/**
 * Takes the oldest WQE of an SRQ, raising the limit event if due.
 * @param srq the SRQ.
 * @param p_wqe receives a copy (room for srq->rq.max_sge segments).
 * @return TRUE if a WQE was taken.
 */
boolean_t soft_srq_take(soft_srq_t *srq, soft_rwqe_t *p_wqe);

/* Receive rings (soft_srq.c). */
/**
 * Sets up a ring. @param rq the ring. @param depth slots. @param max_sge
 * segments per WQE. @return IB_SUCCESS or IB_INSUFFICIENT_MEMORY.
 */
ib_api_status_t soft_rq_init(soft_rq_t *rq, uint32_t depth, uint32_t max_sge);
/** Frees a ring. @param rq the ring. */
void soft_rq_free(soft_rq_t *rq);
/**
 * Queues a receive WR (caller holds the ring's lock).
 * @param rq the ring. @param p_wr the request.
 * @return IB_SUCCESS, IB_INSUFFICIENT_RESOURCES (full), IB_INVALID_MAX_SGE.
 */
ib_api_status_t soft_rq_push(soft_rq_t *rq, const ib_recv_wr_t *p_wr);
/**
 * Dequeues the oldest WQE (caller holds the ring's lock).
 * @param rq the ring. @param p_wqe receives a copy. @return TRUE if one was there.
 */
boolean_t soft_rq_pop(soft_rq_t *rq, soft_rwqe_t *p_wqe);
/** Bytes of a soft_rwqe_t with @p max_sge segments. */
#define SOFT_RWQE_SIZE(max_sge) (sizeof(soft_rwqe_t) + (size_t)(max_sge) * sizeof(ib_local_ds_t))
/** Room for a receive WQE of SOFT_MAX_SGES segments, on the stack: the
 * receive paths take WQEs with no allocation. */
typedef union soft_rwqe_buf {
	soft_rwqe_t w;                                 /**< The WQE. */
	uint8_t bytes[SOFT_RWQE_SIZE(SOFT_MAX_SGES)];  /**< Its room. */
} soft_rwqe_buf_t;

/* soft_qp.c */
ib_api_status_t soft_create_qp(void *pd, ib_qp_create_t *p_create, void *send_cq, void *recv_cq,
			       void *srq, void *al_qp, void **pp_qp);
ib_api_status_t soft_create_spl_qp(void *pd, uint8_t port_num, ib_qp_create_t *p_create,
				   void *send_cq, void *recv_cq, void *al_qp, void **pp_qp);
ib_api_status_t soft_query_qp(void *qp, ib_qp_attr_t *p_attr);
ib_api_status_t soft_modify_qp(void *qp, const ib_qp_mod_t *p_mod);
void soft_destroy_qp(void *qp);
ib_api_status_t soft_post_send(void *qp, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure);
ib_api_status_t soft_post_recv(void *qp, ib_recv_wr_t *p_wr, ib_recv_wr_t **pp_failure);
/**
 * Sends what waits in a datagram QP's send queue behind a packet held at a
 * full ring (soft_ud_execute()), as far as it can; queues the QP with its
 * CA again if the head still waits. Called for a QP soft_ca_pend() queued
 * (tab_lock read held; takes sq_lock).
 * @param qp the QP.
 */
void soft_qp_resume_sends(soft_qp_t *qp);
/**
 * Completes a work request in error on a CQ (flush and error paths).
 * @param cq the CQ. @param wr_id the request. @param type completion type.
 * @param status the status.
 */
void soft_cq_add_err(soft_cq_t *cq, uint64_t wr_id, ib_wc_type_t type, ib_wc_status_t status);
/**
 * Applies an HCA-made transition, publishes the state (soft_qp_publish())
 * and queues its async event: the one way the HCA changes a QP's state.
 * @param qp the QP (lock held). @param ev the event.
 * @return TRUE if the event applied in the QP's state.
 */
boolean_t soft_qp_hw_event(soft_qp_t *qp, prov_qp_event_t ev);
/**
 * Publishes attr.state and attr.apm_state for lock-free readers (qp->lock
 * held, after every change of either or of attr.alt_valid). Without an
 * alternate path the APM state is published as 0: no packet can change it
 * then (soft_apm_recv() takes no lock for it).
 * @param qp the QP.
 */
static inline void soft_qp_publish(soft_qp_t *qp)
{
	__atomic_store_n(&qp->state, (int)qp->attr.state, __ATOMIC_RELEASE);
	__atomic_store_n(&qp->apm, qp->attr.alt_valid ? (int)qp->attr.apm_state : 0,
			 __ATOMIC_RELEASE);
}
/**
 * Completes every queued receive with IB_WCS_WR_FLUSHED_ERR (lock held).
 * @param qp the QP.
 */
void soft_qp_flush_rq(soft_qp_t *qp);
/**
 * Whether a QP state accepts incoming packets (RTR, RTS, SQD, SQE). Inline:
 * every received packet asks.
 * @param s the state. @return TRUE if it does.
 */
static inline boolean_t soft_qp_state_receives(ib_qp_state_t s)
{
	return s == IB_QPS_RTR || s == IB_QPS_RTS || (s & IB_QPS_SQD) == IB_QPS_SQD ||
	       s == IB_QPS_SQERR;
}

/* soft_ud.c */
/**
 * Executes one UD send WR: builds, gathers and sends its packet, then
 * completes it (tab_lock read and qp->sq_lock held). A packet whose
 * destination's ring is full is not sent: the WR is the caller's to queue
 * (at the head of the send queue) and to try again, until it has waited
 * IBAL_SOFT_UD_HOLD_MS; then it is dropped, and packets to that DLID are
 * dropped rather than held until one finds room (qp->sq_stuck).
 * @param qp the QP. @param p_wr the request. @param p_inl inline data copied
 * at post time, or NULL to gather from the SGEs. @param inl_len its length.
 * @return FALSE if the packet waits (nothing done), else TRUE.
 */
boolean_t soft_ud_execute(soft_qp_t *qp, const ib_send_wr_t *p_wr, const uint8_t *p_inl,
			  uint32_t inl_len);
/**
 * Checks a UD send WR at post time.
 * @param qp the QP. @param p_wr the request.
 * @return IB_SUCCESS, IB_INVALID_WR_TYPE, IB_INVALID_MAX_SGE, IB_INVALID_PARAMETER.
 */
ib_api_status_t soft_ud_check_wr(soft_qp_t *qp, const ib_send_wr_t *p_wr);
/**
 * Delivers a parsed UD packet to its QP (packet handling: rx_lock held).
 * @param port the receiving port. @param qp the destination QP.
 * @param pkt the packet.
 */
void soft_ud_recv(soft_port_t *port, soft_qp_t *qp, const soft_pkt_t *pkt);

/* soft_progress.c */
/**
 * Starts the CA's progress thread (ports already open).
 * @param ca the CA. @return IB_SUCCESS or IB_ERROR.
 */
ib_api_status_t soft_progress_start(soft_ca_t *ca);
/** Stops it and drops pending upcalls. @param ca the CA. */
void soft_progress_stop(soft_ca_t *ca);
/**
 * Takes the packets waiting at the CA's ports on the calling thread (a CQ
 * poll that found nothing), unless another thread is taking them. While
 * an application polls (@p polling: a CQ not armed, polled from another
 * thread than the progress thread), the progress thread only looks every
 * SOFT_PROGRESS_BACKOFF_MS, so the two do not compete for the processor.
 * Only rings are read here: datagrams and doorbells on the ports' sockets
 * are left to the progress thread. No lock may be held.
 * The responses the packets call for (coalesced ACKs) are queued: the
 * caller sends them with soft_progress_flush(), at once or after it has
 * handed out the completions it was looking for (the next poll, or the
 * progress thread within SOFT_PROGRESS_BACKOFF_MS, sends them then).
 * It stops early once @p cq has a completion and no further packet was
 * waiting when the last was taken (packets that arrive meanwhile are the
 * next poll's).
 * @param ca the CA.
 * @param cq the CQ polled, or NULL.
 * @param polling the caller polls on rather than wait for an event.
 * @return TRUE if packets were taken (responses may be queued).
 */
boolean_t soft_progress_inline(soft_ca_t *ca, const soft_cq_t *cq, boolean_t polling);
/** soft_progress_flush()'s work, out of line: the queue was seen non-empty. @param ca the CA. */
void soft_progress_flush_queued(soft_ca_t *ca);
/** Sends the CA's queued responses (soft_progress_inline()); inline when none are queued (most polls). @param ca the CA. */
static inline void soft_progress_flush(soft_ca_t *ca)
{
	if (__atomic_load_n(&ca->n_pend, __ATOMIC_ACQUIRE))
		soft_progress_flush_queued(ca);
}
/**
 * Queues a QP that has packets to send later (read responses waiting for
 * room at its peer, coalesced ACKs, requests and datagrams held at a full
 * ring): soft_rc_resume, or for a datagram QP soft_qp_resume_sends, is
 * called for it after the current batch of received packets (by whoever
 * drains the ports: the progress thread, or a CQ poll), and again while it
 * stays queued.
 * @param ca the CA. @param qpn the QP's soft_qp_pend_key() (an RC or UC
 * QP's is its number).
 * @param wake wake the progress thread if it sleeps (not needed from the
 * receive path, whose drainer resumes the queue itself).
 * @return FALSE if it could not be queued (out of memory).
 */
boolean_t soft_ca_pend(soft_ca_t *ca, uint32_t qpn, boolean_t wake);
/**
 * The number soft_ca_pend() queues a QP by: its QPN, or for a special QP
 * SOFT_MAX_QPS + 2 * (port index) + its QPN (0 or 1).
 * @param qp the QP. @return the number.
 */
static inline uint32_t soft_qp_pend_key(const soft_qp_t *qp)
{
	return qp->spl_port ? SOFT_MAX_QPS + 2u * (qp->spl_port - 1u) + qp->qpn : qp->qpn;
}
/**
 * The application will wait for a completion event (a CQ was rearmed): the
 * progress thread takes the ports back at once. @param ca the CA.
 */
void soft_progress_yield(soft_ca_t *ca);
/**
 * Queues an upcall for the progress thread.
 * @param ca the CA. @param prov_obj object concerned. @param al_obj core context.
 * @param comp SOFT_UPCALL_*. @param code async code. @param vendor vendor value
 * (the port number for SOFT_UPCALL_PORT).
 */
void soft_ca_defer(soft_ca_t *ca, void *prov_obj, void *al_obj, int comp,
		   ib_async_event_t code, uint64_t vendor);
/**
 * Drops the queued upcalls of an object and waits for a running one to end.
 * @param ca the CA. @param prov_obj the object being destroyed.
 */
void soft_ca_purge(soft_ca_t *ca, void *prov_obj);
/**
 * Dispatches one received packet that came with fabric flags
 * (SOFT_FABRIC_NO_CRC: its CRCs are not checked), with the CA's rx_lock
 * held (the progress thread, or a CQ poll that looks for packets itself).
 * @param port the receiving port. @param buf the bytes. @param len their
 * number. @param flags soft_fabric_rx_flags() of it.
 */
void soft_progress_packet_flags(soft_port_t *port, const uint8_t *buf, size_t len, uint32_t flags);

/* soft_mcast.c */
ib_api_status_t soft_attach_mcast(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid);
ib_api_status_t soft_detach_mcast(void *qp, const ib_gid_t *p_mgid, ib_net16_t mlid);
/**
 * Drops every attachment of a QP being destroyed (tab_lock held for writing).
 * @param qp the QP.
 */
void soft_mcast_qp_gone(soft_qp_t *qp);
/**
 * Delivers a multicast packet to the QPs of the port attached to its group
 * (packet handling: rx_lock held).
 * @param port the receiving port. @param pkt the packet.
 */
void soft_mcast_recv(soft_port_t *port, const soft_pkt_t *pkt);

/* soft_ci.c */
/**
 * Waits, bounded, until every port of a CA is ACTIVE.
 * @param ca the CA. @param ms most milliseconds to wait.
 * @return TRUE if they all are.
 */
boolean_t soft_ca_wait_active(soft_ca_t *ca, uint32_t ms);
/**
 * Holds (TRUE) or releases (FALSE) the wake-ups of soft_ca_wait_active()
 * that port changes made by the calling thread cause; releasing delivers
 * the one held. The agents hold them while they answer an SMP.
 * @param hold TRUE to hold.
 */
void soft_port_kick_hold(boolean_t hold);

#endif /* SOFT_HCA_H */
