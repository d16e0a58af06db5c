/*
 * ibal access layer: MAD services, special QP aliases and the per-port MAD dispatcher, private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file al_mad.h
 * @brief The objects behind ib_get_spl_qp() aliases, IB_QPT_MAD queue
 * pairs, ib_reg_mad_svc() services and ib_send_mad() sends, and the
 * dispatcher that moves their MADs (see docs/mad.md).
 *
 * Objects:
 *  - a dispatcher (al_mad_disp_t) owns one provider QP that carries MADs:
 *    the real QP0 or QP1 of a CA port (shared by every alias of that port
 *    in the process, created with the first and destroyed with the last),
 *    or the UD QP of one IB_QPT_MAD queue pair. It builds its provider
 *    objects through the public verbs under an access-layer instance of
 *    its own (a PD, one CQ signalled through a wait object, an MR over its
 *    send and receive buffers, AVs per send) and runs one thread that
 *    polls the CQ, posts sends, runs the timers and dispatches received
 *    MADs. MAD data is copied between MAD elements and its registered
 *    buffers, so pool elements never need to be registered memory.
 *  - a MAD QP (al_mad_qp_t) is an al_qp_t whose ops are the access
 *    layer's own (al_mad_qp_ops): it has no provider QP, cannot be posted
 *    to (IB_UNSUPPORTED), and holds one user of a dispatcher plus a key of
 *    its AL instance's internal MAD pool (the key ib_get_spl_qp() returns),
 *    from which received MADs are allocated.
 *  - a MAD service (al_mad_svc_t, AL_HDL_MAD_SVC) is a child of its MAD QP;
 *    its callbacks are queued on it, so they come from AL callback threads
 *    with no lock held, and none comes after its destroy callback. It ends
 *    with its QP (there is no public deregistration call in ib_al.h);
 *    sends still outstanding then complete with IB_WCS_CANCELED first.
 *  - a send (al_mad_send_t) tracks one element given to ib_send_mad():
 *    queued, posted, waiting for its response, RMPP window, timers.
 *
 * Locks: one global mutex guards the list of shared dispatchers and their
 * user counts; each dispatcher has one mutex (disp->lock) guarding its
 * services, sends and RMPP state. Callbacks are queued with disp->lock
 * held (queueing takes only the object's leaf locks) and run later on AL
 * callback threads; nothing calls out of the access layer with a lock
 * held.
 */
#ifndef AL_MAD_H
#define AL_MAD_H

#include <pthread.h>
#include <sys/types.h>
#include <complib/cl_qlist.h>
#include <complib/cl_waitobj.h>
#include "al_verbs.h"
#include "al_port_agent.h"
#include "al_mad_pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Registered send buffers of a dispatcher (sends in flight at once). */
#define AL_MAD_SEND_SLOTS 64
/** Answers the dispatcher makes itself (error statuses, RMPP ACKs) that may
 * wait for a send slot; past that a new one is dropped (a peer flooding
 * requests while the sends stall cannot grow the queue). */
#define AL_MAD_MAX_REPLIES 1024
/** Receive buffers a dispatcher posts when it starts: twice the Linux
 * kernel MAD layer's default queue, since this thread competes with the
 * application's for the processors (softirqs do not). */
#define AL_MAD_RECV_SLOTS 1024
/** Receive buffers registered together; a dispatcher doubles its buffers a
 * chunk at a time when a quarter of them wait, up to AL_MAD_RECV_MAX
 * (al_mad.c, recv_check()). */
#define AL_MAD_RECV_CHUNK 512
/** Receive buffers a dispatcher grows to when a burst is expected
 * (al_mad_svc_expect_burst()). */
#define AL_MAD_RECV_BURST 4096
/** Most receive buffers a dispatcher grows to (twice the Linux kernel's
 * largest MAD queue). */
#define AL_MAD_RECV_MAX 16384
/** Chunks of receive buffers a dispatcher may have. */
#define AL_MAD_RECV_CHUNKS (AL_MAD_RECV_MAX / AL_MAD_RECV_CHUNK)
/** Bytes of one receive buffer: the GRH area, then one MAD. */
#define AL_MAD_RECV_SLOT (MAD_BLOCK_GRH_SIZE)
/** Default RMPP window a receiver grants (segments). */
#define AL_RMPP_WINDOW 32
/** Largest RMPP transfer the access layer reassembles, in segments. */
#define AL_RMPP_MAX_SEGS 4096
/** Response timeout of RMPP ACKs when the element gives none (ms). */
#define AL_RMPP_DEFAULT_TIMEOUT_MS 200
/** Retries of an RMPP window when the element gives none. */
#define AL_RMPP_DEFAULT_RETRIES 5
/** Time a finished reassembly is remembered to re-ACK duplicates (ms). */
#define AL_RMPP_LINGER_MS 2000
/** Environment: 0 makes the CM's callbacks run on the callback threads, not
 * on the MAD thread that received their message (al_mad_lend.c); default 1. */
#define AL_ENV_CM_INLINE "IBAL_AL_CM_INLINE"
/** How long a dispatcher's CM callbacks go to the callback threads after a
 * callback kept its thread and the thread was replaced, us. */
#define AL_MAD_LEND_OFF_US 1000000u
/** al_mad_disp_t::lent while the watch replaces the thread. */
#define AL_MAD_LEND_TAKING 0xFFFFFFFFu

struct al_mad_disp;
struct al_mad_svc;

/** A queue pair carrying MADs through a dispatcher: alias or IB_QPT_MAD. */
typedef struct al_mad_qp {
	al_qp_t qp;                 /**< Base (v.p_ops = &al_mad_qp_ops, v.p_prov = this). */
	ib_qp_type_t type;          /**< IB_QPT_QP0_ALIAS, IB_QPT_QP1_ALIAS or IB_QPT_MAD. */
	uint8_t port_num;           /**< Port (aliases: at once; MAD QPs: at ib_init_dgrm_svc()). */
	ib_qp_state_t state;        /**< Reported by ib_query_qp(): RESET until in service. */
	ib_net32_t qkey;            /**< MAD QPs: the Q_Key given to ib_init_dgrm_svc(). */
	uint16_t pkey_index;        /**< MAD QPs: the P_Key index given to ib_init_dgrm_svc(). */
	struct al_mad_disp *p_disp; /**< The dispatcher, one user counted; NULL until in service. */
	al_pool_key_t *p_key;       /**< Internal key of the instance's pool for this QP's PD. */
	ib_pool_key_t h_key;        /**< Its handle. */
} al_mad_qp_t;

/** A MAD service: the object behind ib_mad_svc_handle_t. */
typedef struct al_mad_svc {
	al_obj_t obj;               /**< Base; type AL_HDL_MAD_SVC; child of the MAD QP. */
	al_mad_qp_t *p_qp;          /**< The QP (the parent). */
	struct al_mad_disp *p_disp; /**< Its QP's dispatcher. */
	ib_mad_svc_t svc;           /**< What the user registered. */
	uint32_t client_id;         /**< Upper 32 bits of the TIDs of its requests. */
	cl_list_item_t disp_item;   /**< On p_disp->svcs while listed (disp->lock). */
	boolean_t listed;           /**< disp->lock: on the dispatcher's list. */
	boolean_t direct;           /**< disp->lock: callbacks run on the MAD layer's own
				         threads, not queued (al_mad_svc_set_direct()). */
} al_mad_svc_t;

/** A reassembly in progress (RMPP receiver), keyed by source and TID. */
typedef struct al_rmpp_rx {
	cl_list_item_t item;        /**< On disp->rmpp_rx (disp->lock). */
	ib_net64_t tid;             /**< TID of the transfer. */
	ib_net16_t slid;            /**< Source LID. */
	ib_net32_t sqp;             /**< Source QP. */
	uint8_t mgmt_class;         /**< Class of the transfer. */
	al_mad_svc_t *p_svc;        /**< Service that gets it. */
	al_mad_send_t *p_req;       /**< Request it answers, or NULL for an unsolicited one. */
	ib_mad_element_t *p_elem;   /**< The element being filled; NULL once delivered. */
	uint32_t expected;          /**< Next segment number wanted. */
	uint32_t win_last;          /**< Last segment of the window granted. */
	size_t len;                 /**< Bytes of payload (after the RMPP header) so far. */
	uint64_t expire_us;         /**< When it is abandoned (or forgotten, once done). */
	boolean_t done;             /**< Delivered; kept to re-ACK duplicate last segments. */
	uint32_t last_seg;          /**< Segment count of a finished transfer. */
	ib_mad_element_t recv_info; /**< Addressing of the first segment (for ACKs). */
} al_rmpp_rx_t;

/** One registered send buffer. */
typedef struct al_mad_slot {
	al_mad_send_t *p_send;      /**< The send it carries, or NULL (internal reply or orphan). */
	ib_av_handle_t h_av;        /**< Its AV (kept, changed when the address does), or NULL. */
	ib_av_attr_t av;            /**< What h_av was last set to. */
	boolean_t busy;             /**< Posted. */
} al_mad_slot_t;

/** The owner of one provider QP that carries MADs (see the file description). */
typedef struct al_mad_disp {
	cl_list_item_t item;        /**< On the global list of shared dispatchers. */
	ib_net64_t ca_guid;         /**< The CA. */
	uint8_t port_num;           /**< The port. */
	ib_qp_type_t type;          /**< IB_QPT_QP0, IB_QPT_QP1 or IB_QPT_UNRELIABLE_DGRM. */
	uint32_t users;             /**< Global lock: aliases using it (shared ones). */
	al_inst_t *p_inst;          /**< Its own access-layer instance. */
	ib_ca_handle_t h_ca;        /**< The CA, opened under p_inst. */
	ib_pd_handle_t h_pd;        /**< Its PD. */
	ib_cq_handle_t h_cq;        /**< Receive completions (always armed). */
	ib_cq_handle_t h_scq;       /**< Send completions: armed for solicited ones (errors
				         only), for the next one while a send is posted that
				         no thread will reap (reap_sends()). */
	ib_qp_handle_t h_qp;        /**< The provider QP. */
	ib_mr_handle_t h_mr;        /**< Over bufs. */
	net32_t lkey;               /**< Of h_mr. */
	ib_net32_t qpn;             /**< Its QP number. */
	ib_net32_t qkey;            /**< Its Q_Key (UD); the GSI Q_Key for QP1. */
	uint16_t pkey_index;        /**< Its P_Key index (UD). */
	cl_waitobj_handle_t wo;     /**< CQ notifications and pokes of the thread. */
	pthread_t thread;           /**< The dispatcher thread (al_mad_lend.c: the watch's lock
				         once the dispatcher is watched). */
	uint32_t stop;              /**< Atomic: the thread must end. */
	/* A thread lent to the callbacks it queued (al_mad_lend.c). */
	cl_list_item_t watch_item;  /**< On the watch's list of dispatchers. */
	uint32_t gen;               /**< Atomic: generation of the thread that serves it (1, 2, ...). */
	uint32_t lent;              /**< Atomic: 0; the generation of the thread, running a
				         callback; AL_MAD_LEND_TAKING while the watch replaces it. */
	uint64_t lends;             /**< Atomic: callbacks its threads ran (lends). */
	struct _al_obj_here *p_here; /**< Atomic: the serving thread's list of them. */
	pthread_t retired;          /**< A thread replaced while lent, until joined (watch's lock). */
	uint32_t has_retired;       /**< Atomic: retired is to be joined. */
	uint64_t here_off_until;    /**< Atomic: callbacks go to the callback threads until then
				         (monotonic us), after a replacement. */
	boolean_t watched;          /**< On the watch's list (the watch's lock). */
	uint64_t watch_lends;       /**< The watch's: lends when it first saw the current one. */
	uint64_t watch_since;       /**< The watch's: when (monotonic us; 0: not lent). */
	uint32_t watch_waits;       /**< The watch's: looks in a row that found it waiting. */
	pid_t tid;                  /**< Atomic: the serving thread's kernel ID (the watch reads
				         its state in /proc). */
	uint32_t pokes;             /**< Atomic: al_mad_poke() calls (the thread's look, al_spin.h). */
	pthread_mutex_t lock;       /**< Guards what follows. */
	cl_qlist_t svcs;            /**< al_mad_svc_t::disp_item. */
	cl_qlist_t sends;           /**< al_mad_send_t::item, in ib_send_mad() order. */
	cl_qlist_t rmpp_rx;         /**< al_rmpp_rx_t::item. */
	cl_qlist_t replies;         /**< Internal MADs waiting for a slot (al_mad_reply_t). */
	cl_qlist_t fails;           /**< Posts that failed, handled as error completions. */
	cl_qlist_t direct;          /**< Callbacks of direct services for the thread to run. */
	cl_qlist_t *p_collect;      /**< Non-NULL: where direct callbacks go instead (the
				         list of the ib_send_mad() that reaps). */
	boolean_t scq_next;         /**< h_scq is armed for its next completion. */
	uint64_t wake_at;           /**< When the thread wakes next at the latest (monotonic us). */
	boolean_t need_poke;        /**< A reaping thread changed what the thread must time. */
	al_mad_slot_t slots[AL_MAD_SEND_SLOTS]; /**< Send buffers' state. */
	uint32_t n_free_slots;      /**< Slots not posted. */
	uint8_t *bufs;              /**< Send slots (MAD_BLOCK_SIZE each), then the first
				         AL_MAD_RECV_SLOTS receive buffers. */
	uint32_t n_recv;            /**< Thread: receive buffers (whole chunks); stored
				         atomically, so others may read it with an atomic load. */
	uint32_t recv_max;          /**< Thread: most it grows to (its QP's receive queue). */
	uint32_t want_room;         /**< Atomic: grow to recv_max at the thread's next round
				         (al_mad_svc_expect_burst()). */
	uint8_t *recv_base[AL_MAD_RECV_CHUNKS]; /**< Each chunk's buffers (the first ones in bufs). */
	struct {
		uint8_t *p;
		size_t len;
	} recv_maps[AL_MAD_RECV_CHUNKS]; /**< Thread: the mappings the other chunks are carved
				         from (one a growth at most). */
	uint32_t n_recv_maps;       /**< Thread: mappings in recv_maps. */
	uint8_t *recv_room;         /**< Thread: the unused end of the last mapping... */
	size_t recv_room_left;      /**< ...and its bytes. */
	net32_t recv_lkey[AL_MAD_RECV_CHUNKS];  /**< Each chunk's L_Key. */
	uint32_t n_drop_no_svc;     /**< Received MADs no service took (diagnostics). */
	uint32_t n_drop_bad;        /**< Malformed MADs dropped (diagnostics). */
	uint32_t n_drop_replies;    /**< Own answers dropped, the queue full (diagnostics). */
} al_mad_disp_t;

/** The ops of alias and MAD queue pairs (no provider object): query, modify
 * and destroy, stubs elsewhere; filled before the first such QP is made. */
extern al_prov_ops_t al_mad_qp_ops;

/**
 * Tells whether a QP is an alias or a MAD QP.
 * @param p_qp the QP.
 * @return TRUE for al_mad_qp_t objects.
 */
static inline boolean_t al_qp_is_mad(const al_qp_t *p_qp)
{
	return p_qp->v.p_ops == &al_mad_qp_ops;
}

/* ---- al_spl_qp.c ---- */

/**
 * Moves a provider QP from any state to RTS as a datagram QP: RESET, INIT
 * (port, Q_Key, P_Key index), RTR, RTS (ib_init_dgrm_svc() and the
 * dispatchers).
 * @param h_qp the QP.
 * @param port the port.
 * @param qkey the Q_Key (network order).
 * @param pkey_index the P_Key index.
 * @return IB_SUCCESS or the status of the ib_modify_qp() that failed.
 */
ib_api_status_t al_qp_to_rts(ib_qp_handle_t h_qp, uint8_t port, ib_net32_t qkey,
			     uint16_t pkey_index);

/**
 * The first half of al_qp_to_rts(): RESET, then INIT (port, Q_Key, P_Key
 * index). A QP in INIT takes receives but no packet yet: a dispatcher posts
 * its receives there, so that nothing sent to it once it is in RTR finds
 * its receive queue empty.
 * @param h_qp the QP. @param port the port. @param qkey the Q_Key (network
 * order). @param pkey_index the P_Key index.
 * @return IB_SUCCESS or the status of the ib_modify_qp() that failed.
 */
ib_api_status_t al_qp_to_init(ib_qp_handle_t h_qp, uint8_t port, ib_net32_t qkey,
			      uint16_t pkey_index);

/**
 * The second half of al_qp_to_rts(): INIT to RTR, then RTS (SQ PSN 1).
 * @param h_qp the QP, in INIT.
 * @return IB_SUCCESS or the status of the ib_modify_qp() that failed.
 */
ib_api_status_t al_qp_init_to_rts(ib_qp_handle_t h_qp);

/* ---- Dispatchers (al_mad_disp.c, al_mad.c, al_mad_lend.c) ---- */

/**
 * Gets the shared dispatcher of a port's QP0 or QP1, creating it (and the
 * provider's special QP) on first use.
 * @param p_ci the provider CA.
 * @param port_num the port.
 * @param type IB_QPT_QP0 or IB_QPT_QP1.
 * @param pp_disp receives the dispatcher, with one user counted.
 * A teardown of the port's previous dispatcher still holding the special
 * QP is waited for, then the creation is tried again.
 * @return IB_SUCCESS; IB_RESOURCE_BUSY when the provider's special QP is
 *         held by a raw IB_QPT_QP0/IB_QPT_QP1 queue pair; the status of
 *         the verbs that failed otherwise.
 */
ib_api_status_t al_mad_disp_get(al_ci_ca_t *p_ci, uint8_t port_num, ib_qp_type_t type,
				al_mad_disp_t **pp_disp);

/**
 * Creates the private dispatcher of an IB_QPT_MAD queue pair.
 * @param p_ci the provider CA.
 * @param port_num the port.
 * @param qkey its Q_Key.
 * @param pkey_index its P_Key index.
 * @param pp_disp receives the dispatcher, with one user counted.
 * @return IB_SUCCESS or the status of the verbs that failed.
 */
ib_api_status_t al_mad_disp_create_ud(al_ci_ca_t *p_ci, uint8_t port_num, ib_net32_t qkey,
				      uint16_t pkey_index, al_mad_disp_t **pp_disp);

/**
 * Counts a user out of a dispatcher; the last one destroys it (its thread
 * is joined and its objects destroyed synchronously, which is allowed on
 * an AL callback thread since they are not ancestors of the caller).
 * @param p_disp the dispatcher.
 */
void al_mad_disp_put(al_mad_disp_t *p_disp);

/**
 * Threads of MAD dispatchers replaced so far because a callback kept them
 * (al_mad_lend.c), for tests and diagnostics.
 * @return the count since the process started.
 */
uint64_t al_mad_lend_replaced(void);

/**
 * The tests' hook: sets what IBAL_AL_CM_INLINE sets, whether the CM's
 * callbacks of what a dispatcher's thread receives run on that thread from
 * now on; and how long a dispatcher's callbacks go to the callback threads
 * after its thread was replaced.
 * @param enabled TRUE to run them there; FALSE for the callback threads.
 * @param off_us microseconds (AL_MAD_LEND_OFF_US by default; 0: none).
 */
void al_mad_lend_configure(boolean_t enabled, uint32_t off_us);

/**
 * Makes a service's callbacks direct: instead of being queued on the
 * service's object for an AL callback thread, they run on the MAD layer's
 * own threads, with no lock held: a received MAD on the dispatcher's
 * thread, a send completion on the dispatcher's thread or in the
 * ib_send_mad() that reaped it (whose caller's locks are then held). For the
 * access layer's own services only (the CM's agents): their callbacks must
 * not block, must not wait for the dispatcher, and must allow two of them to
 * run at once. Each holds a reference of the service, so its destruction
 * completes after them.
 * @param h_svc a service registered with ib_reg_mad_svc().
 * @return IB_SUCCESS, or IB_INVALID_HANDLE.
 */
ib_api_status_t al_mad_svc_set_direct(ib_mad_svc_handle_t h_svc);

/**
 * Tells the dispatcher of a service's QP that a burst of MADs may come (the
 * CM: a listen on the port, or requests to several remote ports on the wire
 * at once): its thread grows the receive buffers to AL_MAD_RECV_BURST at
 * its next round, before the burst instead of during it (a thread
 * descheduled meanwhile would find them full). Returns at once; asking
 * again costs a poke.
 * @param h_svc a service registered with ib_reg_mad_svc().
 * @return IB_SUCCESS, or IB_INVALID_HANDLE.
 */
ib_api_status_t al_mad_svc_expect_burst(ib_mad_svc_handle_t h_svc);

/**
 * The instance's internal MAD pool (created on first use; it lives until
 * the instance is destroyed, so elements out survive their QP).
 * @param p_pd a PD of the instance.
 * @param pp_pool receives the pool.
 * @return IB_SUCCESS or the status of al_mad_pool_create().
 */
ib_api_status_t al_mad_inst_pool(al_pd_t *p_pd, al_pool_t **pp_pool);

/* ---- Internal API for the SA client (docs/mad.md, "Internal API") ---- */

/**
 * Completion of al_gmp_request(): the request's outcome and, on success,
 * the response (reassembled when it came with RMPP), which the callee owns
 * and returns with ib_put_mad().
 * @param context the request's context.
 * @param status IB_SUCCESS; IB_TIMEOUT when no response came within the
 *        timeout and retries; IB_CANCELED when the client closed first;
 *        IB_ERROR for a send error.
 * @param p_resp the response, or NULL unless @p status is IB_SUCCESS.
 */
typedef void (*al_gmp_cb_t)(void *context, ib_api_status_t status, ib_mad_element_t *p_resp);

/** A GMP client on one port's QP1: the port's agent objects (al_port_agent.h). */
typedef struct al_gmp_client {
	al_port_agent_t agent;      /**< Alias PD, QP1 alias, pool key, MAD service. */
} al_gmp_client_t;

/**
 * Opens a GMP client through al_port_agent_open(): an alias PD of @p h_ca,
 * the QP1 alias of @p port_guid and a MAD service (IB_MAD_SVC_DEFAULT, so
 * SA class responses are reassembled) that takes no unsolicited MADs.
 * @param h_ca the CA of the port.
 * @param port_guid the port.
 * @param p_client receives the client (closed again on failure).
 * @return IB_SUCCESS or the status of ib_alloc_pd() / ib_get_spl_qp() /
 *         ib_reg_mad_svc().
 */
ib_api_status_t al_gmp_client_open(ib_ca_handle_t h_ca, ib_net64_t port_guid,
				   al_gmp_client_t *p_client);

/**
 * Sends one request MAD (GMP, up to MAD_BLOCK_SIZE bytes; its TID's lower
 * 32 bits are the caller's) to a LID's QP1, and reports the response or
 * the failure through @p pfn_cb, on an AL callback thread, exactly once.
 * @param p_client the client.
 * @param dlid the destination LID.
 * @param p_mad the request (copied).
 * @param len its length (24 to MAD_BLOCK_SIZE).
 * @param timeout_ms time to wait for the response before a retry.
 * @param retries retries before IB_TIMEOUT.
 * @param pfn_cb the completion.
 * @param context given to @p pfn_cb.
 * @return IB_SUCCESS (the callback will come); IB_INVALID_PARAMETER;
 *         IB_INSUFFICIENT_RESOURCES / IB_INSUFFICIENT_MEMORY; the status of
 *         ib_send_mad() otherwise (no callback then).
 */
ib_api_status_t al_gmp_request(al_gmp_client_t *p_client, ib_net16_t dlid, const ib_mad_t *p_mad,
			       size_t len, uint32_t timeout_ms, uint32_t retries,
			       al_gmp_cb_t pfn_cb, void *context);

/**
 * Closes a GMP client (its QP1 alias, then its PD): its requests still
 * outstanding complete with IB_CANCELED (their callbacks come before this
 * returns when called from a non-callback thread).
 * @param p_client the client.
 */
void al_gmp_client_close(al_gmp_client_t *p_client);

#ifdef __cplusplus
}
#endif

#endif /* AL_MAD_H */
