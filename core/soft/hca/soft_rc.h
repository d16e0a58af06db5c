/*
 * ibal soft provider: the reliable and unreliable connected transports (RC, UC), shared state.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 */
/**
 * @file soft_rc.h
 * @brief Private state of the soft HCA's connected transports and the
 * functions its three modules share: soft_rc.c (entry points, lifetime, packet
 * emission, errors, timer), soft_rc_req.c (requester), soft_rc_resp.c
 * (responder); soft_apm.c adds automatic path migration on top of them.
 * Never installed.
 *
 * **Locks.** Everything in soft_rc_t is guarded by soft_rc_t.lock, taken
 * inside the CA's tables and outside soft_qp_t.lock: every path holds the
 * tables (post, timer and state change by tab_lock for reading, packet
 * receive by soft_ca_t.rx_lock, which the tables' writers take too: see
 * soft_hca.h), then rc->lock, so that gathering and scattering registered
 * memory and sending packets happen with both held. An RC/UC post takes no other lock:
 * rc->lock orders posts among themselves, and the WQE limits it checks
 * (soft_qp_t.sq_sge, max_inline) are fixed when the QP is created.
 */
#ifndef SOFT_RC_H
#define SOFT_RC_H

#include <complib/cl_timer.h>
#include "soft_direct.h"
#include "soft_hca.h"

/** Read/atomic responder resources remembered for duplicate requests. */
#define SOFT_RC_RD_RES 16u
/** RC send window: packets beyond the first unacknowledged PSN (a ring holds 1 MiB). */
#define SOFT_RC_WINDOW 32u
/** Shortest retransmission timeout, milliseconds (timer granularity and fabric waits). */
#define SOFT_RC_MIN_TIMEOUT_MS 8u

/** A send work request as the requester keeps it. */
typedef struct soft_rc_wqe {
	ib_send_wr_t wr;                 /**< Copy; ds_array points at @c ds. */
	ib_local_ds_t *ds;               /**< Segments: the QP's sq_sge slots of soft_rc_t.ds_pool. */
	uint8_t *inl;                    /**< Inline data copied at post time: max_inline bytes of soft_rc_t.inl_pool. */
	boolean_t inline_data;           /**< Payload comes from @c inl. */
	uint32_t len;                    /**< Message bytes. */
	boolean_t psn_valid;             /**< PSNs were assigned (first transmission began). */
	uint32_t psn;                    /**< First PSN. */
	uint32_t npkt;                   /**< PSNs used (read: response packets). */
	uint32_t sent;                   /**< Packets sent so far (requests: 0 or npkt). */
	uint32_t rd_got;                 /**< Read: response packets received in order. */
	boolean_t done;                  /**< Completed out of order (in error); skip when flushing. */
} soft_rc_wqe_t;

/** A read or atomic request the responder executed (for duplicates). */
typedef struct soft_rc_rd_res {
	boolean_t valid;                 /**< Entry used. */
	uint8_t op;                      /**< SOFT_OP_READ_REQUEST, _COMPARE_SWAP, _FETCH_ADD. */
	uint32_t psn;                    /**< Request PSN. */
	uint32_t npkt;                   /**< PSNs it used. */
	uint64_t va;                     /**< Read: start. */
	uint32_t rkey;                   /**< Read: R_Key. */
	uint32_t len;                    /**< Read: length. */
	uint64_t orig;                   /**< Atomic: the original value returned. */
	boolean_t direct;                /**< Read: answered with one direct-placement packet (soft_direct.h). */
} soft_rc_rd_res_t;

/** The path packets go out on, snapshotted from the QP attributes. */
typedef struct soft_rc_path {
	soft_port_t *port;               /**< Sending port. */
	uint16_t dlid;                   /**< Destination LID, host order. */
	uint8_t sl;                      /**< Service level. */
	boolean_t grh;                   /**< Send a GRH. */
	ib_grh_t grh_hdr;                /**< Its contents. */
	uint16_t pkey;                   /**< P_Key, host order. */
	uint32_t dest_qpn;               /**< Remote QP. */
	uint32_t mtu;                    /**< Path MTU in bytes. */
	ib_access_t access;              /**< Remote access the responder allows. */
	uint8_t min_rnr;                 /**< RNR NAK timer code the responder sends. */
	uint8_t mig;                     /**< BTH MigReq bit: 1 while the APM state is MIGRATED. */
	uint8_t base_len;                /**< Bytes of base made for this path (0: none yet). */
	uint16_t base_slid;              /**< The source LID base was made with. */
	/** The LRH, GRH and BTH of the path's first packet without extended
	 * headers: its later ones are written on them (soft_hdrs_on_base). */
	uint8_t base[SOFT_LRH_LEN + SOFT_GRH_LEN + SOFT_BTH_LEN];
	uint8_t ack_len;                 /**< Bytes of ack_hdr made for this path (0: none yet). */
	uint16_t ack_slid;               /**< The source LID ack_hdr was made with. */
	/** The headers (LRH, GRH, BTH, AETH) of the ACKs sent on this path,
	 * made by the first one: the next ones change only BTH:PSN and the AETH. */
	uint8_t ack_hdr[SOFT_LRH_LEN + SOFT_GRH_LEN + SOFT_BTH_LEN + SOFT_AETH_LEN];
} soft_rc_path_t;

/** Per-QP state of the connected transports (soft_qp_t.rc). */
typedef struct soft_rc {
	soft_qp_t *qp;                   /**< Owning QP. */
	soft_lock_t lock;                /**< Everything below. */
	boolean_t uc;                    /**< Unreliable connection. */
	boolean_t dead;                  /**< The QP is being destroyed. */
	soft_rc_path_t path;             /**< Current path. */
	uint8_t *buf;                    /**< The packet being built: the building thread's own buffer (soft_rc_hdrs). */
	uint32_t buf_hdr_len;            /**< Its headers' length, bytes (soft_rc_hdrs: the send need not work it out again). */
	ib_local_ds_t *ds_pool;          /**< mask + 1 x sq_sge segments of the WQEs. */
	uint8_t *inl_pool;               /**< mask + 1 x max_inline bytes of inline data, made at the first inline send. */
	cl_timer_t timer;                /**< Retransmission and RNR timer (soft_rc_timer_*). */
	uint64_t t_due;                  /**< When the timer is due (monotonic ns); 0: not running. */
	uint64_t t_fire;                 /**< When @c timer fires, if @c t_armed (at the earliest). */
	boolean_t t_armed;               /**< @c timer is started. */
	uint32_t t_ms;                   /**< The period @c t_due was last set for. */
	/* Requester. */
	soft_rc_wqe_t *sq;               /**< Ring of mask + 1 WQEs, at most depth of them in use. */
	uint32_t depth;                  /**< WQEs the send queue holds (qp->sq_depth). */
	uint32_t mask;                   /**< Slots of @c sq less one: a power of two at least depth, so that a slot is a mask of the sequence number and follows on when it wraps. */
	uint32_t head;                   /**< Sequence number of the oldest WQE. */
	uint32_t tx;                     /**< Sequence number of the WQE being transmitted. */
	uint32_t tail;                   /**< Sequence number of the next WQE posted. */
	uint32_t next_psn;               /**< PSN of the next new WQE. */
	uint32_t una;                    /**< First PSN not acknowledged (RC window base). */
	uint32_t timeout_ms;             /**< Retransmission timeout, 0: infinite. */
	uint8_t retry_cnt;               /**< Transport retries per progress (QP attribute). */
	uint8_t rnr_retry;               /**< RNR retries per progress (QP attribute). */
	uint8_t max_rd;                  /**< Reads/atomics outstanding at most. */
	uint8_t retry_left;              /**< Transport retries left. */
	uint8_t rnr_left;                /**< RNR retries left (7: infinite). */
	boolean_t rnr_wait;              /**< Waiting out an RNR NAK timer. */
	boolean_t req_err;               /**< The send queue failed: everything is flushed. */
	boolean_t no_direct;             /**< A direct placement failed: RDMA data travels in packets (soft_direct.h). */
	boolean_t tx_held;               /**< A request packet found the peer's ring full: the QP is
					      queued with its CA (soft_ca_pend) and pumps again from
					      soft_rc_resume, a few ms at most later. */
	/* Responder. */
	uint32_t epsn;                   /**< Expected PSN. */
	uint32_t msn;                    /**< Message sequence number. */
	boolean_t nak_sent;              /**< A PSN sequence error NAK went out for @c epsn. */
	uint16_t in_op;                  /**< Message in progress: 0, SOFT_OPF_SEND or SOFT_OPF_WRITE. */
	boolean_t uc_drop;               /**< UC: discard until the next first/only packet. */
	soft_rwqe_t *rwqe;               /**< Receive WQE being filled (room for the receive queue's or the SRQ's max_sge segments). */
	boolean_t have_rwqe;             /**< @c rwqe holds a WQE. */
	uint32_t roff;                   /**< Bytes received into it / written so far. */
	uint64_t wva;                    /**< RDMA write: next address. */
	uint32_t wrkey;                  /**< RDMA write: R_Key. */
	uint32_t wlen;                   /**< RDMA write: DMALen. */
	/** Executed reads and atomics: SOFT_RC_RD_RES entries, made at the QP's
	 * first read or atomic request (NULL before: most connections never
	 * take one, and every connection's memory is touched new). */
	soft_rc_rd_res_t *rd;
	uint32_t rd_next;                /**< Next entry of @c rd to use. */
	/* Read responses paced to the requester's receive ring (soft_rc_resp.c). */
	uint32_t pend_first;             /**< Entry of @c rd whose response is being sent. */
	uint32_t pend_n;                 /**< Reads whose responses wait (consecutive entries from pend_first). */
	uint32_t pend_pkt;               /**< Next response packet of the first. */
	boolean_t pend_nak;              /**< A request was dropped meanwhile: NAK (PSN sequence) when done. */
	/* ACK coalescing (soft_rc_resp.c). */
	boolean_t ack_due;               /**< An ACK of @c ack_psn waits for the end of the receive batch. */
	uint32_t ack_psn;                /**< The last PSN it acknowledges. */
	/* Path migration (soft_apm.c). */
	boolean_t apm_err;               /**< IB_AE_QP_APM_ERROR raised since the path was loaded. */
} soft_rc_t;

/* soft_rc.c */
/**
 * Starts (or restarts) the QP's timer for @p ms from now (up to two clock
 * ticks more: the time is read from the coarse clock, soft_rc.c). The complib
 * timer is touched only when it would fire later than that: a timer
 * restarted on every ACK fires once per period at most, and its callback
 * starts it again for what is left.
 */
void soft_rc_timer_start(soft_rc_t *rc, uint32_t ms);
/** Starts the timer unless it is due sooner than @p ms from now (reads no
 * clock when it was last started for at most @p ms). */
void soft_rc_timer_trim(soft_rc_t *rc, uint32_t ms);
/** Stops the timer (the complib timer may still fire, and does nothing). */
void soft_rc_timer_stop(soft_rc_t *rc);
/**
 * Writes the LRH, GRH, BTH and the extended headers of a packet into rc->buf
 * (rc->lock held). The caller sets bth.opcode, bth.psn, bth.ack_req, bth.se,
 * payload_len and the extended headers; the rest comes from the path.
 * @param rc the transport state. @param pkt the packet.
 * @return the payload area in rc->buf, or NULL if the packet cannot be built.
 */
uint8_t *soft_rc_hdrs(soft_rc_t *rc, soft_pkt_t *pkt);
/**
 * Pads, seals and sends the packet soft_rc_hdrs() began (payload in place).
 * @param rc the transport state. @param pkt the same packet.
 */
void soft_rc_send(soft_rc_t *rc, const soft_pkt_t *pkt);
/**
 * As soft_rc_send(), for a request packet that the fabric hands back when
 * the peer's ring is full (SOFT_FABRIC_TELL_FULL) rather than drop it.
 * @param rc the transport state. @param pkt the same packet.
 * @return IB_SUCCESS (sent, or lost on a link that is down, or by loss
 * injection); IB_RESOURCE_BUSY if it was not sent for want of room.
 */
ib_api_status_t soft_rc_send_req(soft_rc_t *rc, const soft_pkt_t *pkt);
/**
 * Pads and sends the packet soft_rc_hdrs() began as a direct-placement
 * packet (SOFT_FABRIC_DIRECT, soft_direct.h).
 * @param rc the transport state. @param pkt the same packet.
 * @return IB_SUCCESS (sent, or lost on a link that is down); IB_NOT_DONE if
 * it cannot travel as one now (nothing sent: send packets instead).
 */
ib_api_status_t soft_rc_send_direct(soft_rc_t *rc, const soft_pkt_t *pkt);
/**
 * Refuses a direct write (rc->lock held): a PSN sequence error NAK of the
 * expected PSN, sent with SOFT_FABRIC_DIRECT so that the requester sends
 * the data again in packets.
 * @param rc the transport state.
 */
void soft_rc_refuse_direct(soft_rc_t *rc);
/**
 * Sends an ACK, NAK or RNR NAK (rc->lock held).
 * @param rc the transport state. @param psn its PSN. @param syndrome AETH syndrome.
 */
void soft_rc_send_ack(soft_rc_t *rc, uint32_t psn, uint8_t syndrome);
/**
 * Adds a completion for a send WQE (rc->lock held).
 * @param rc the transport state. @param w the WQE. @param status its status.
 */
void soft_rc_complete(soft_rc_t *rc, const soft_rc_wqe_t *w, ib_wc_status_t status);
/**
 * Moves the QP to an error state after a failure and flushes its queues
 * (rc->lock held): @p w (may be NULL) completes with @p status, the other
 * send WQEs and (on ERROR) the receive queue with IB_WCS_WR_FLUSHED_ERR.
 * @param rc the transport state. @param w the failing WQE or NULL.
 * @param status its status. @param ev the HCA event for the QP state machine.
 */
void soft_rc_fail(soft_rc_t *rc, soft_rc_wqe_t *w, ib_wc_status_t status, prov_qp_event_t ev);
/**
 * Snapshots the primary path (port, DLID, SL, GRH, P_Key, MTU, MigReq bit)
 * from the QP attributes into rc->path (rc->lock held; takes qp->lock).
 * @param rc the transport state.
 */
void soft_rc_load_path(soft_rc_t *rc);
/**
 * Snapshots the requester's parameters (timeout, retry counts, initiator
 * depth) from the QP attributes; the retry counts restart (rc->lock held;
 * takes qp->lock).
 * @param rc the transport state.
 * @param fresh TRUE at the move from RTR to RTS: the send PSN is taken too.
 */
void soft_rc_load_req(soft_rc_t *rc, boolean_t fresh);
/**
 * Whether a packet's P_Key matches the QP's (IBA 9.2.3: same low 15 bits,
 * at least one full member).
 * @param pkt_pkey the packet's P_Key. @param mine the QP's P_Key.
 * @return TRUE if it matches.
 */
static inline boolean_t soft_rc_pkey_match(uint16_t pkt_pkey, uint16_t mine)
{
	return (pkt_pkey & 0x7FFF) == (mine & 0x7FFF) && ((pkt_pkey | mine) & 0x8000);
}
/**
 * The QP's state (soft_qp_t.state: no lock). Inline: every packet sent and
 * received asks.
 * @param rc the transport state. @return the state.
 */
static inline ib_qp_state_t soft_rc_state(const soft_rc_t *rc)
{
	return (ib_qp_state_t)__atomic_load_n(&rc->qp->state, __ATOMIC_ACQUIRE);
}

/* soft_rc_req.c */
/** The WQE of a sequence number. @param rc state. @param seq the number. @return it. */
static inline soft_rc_wqe_t *soft_rc_wqe(soft_rc_t *rc, uint32_t seq)
{
	return &rc->sq[seq & rc->mask];
}
/**
 * post_send of an RC/UC QP in RTS or SQD (no lock held).
 * @param qp the QP. @param p_wr the chain. @param pp_failure receives the failed WR.
 * @return IB_SUCCESS, IB_INVALID_QP_STATE, IB_INVALID_WR_TYPE, IB_INVALID_MAX_SGE,
 * IB_INVALID_PARAMETER, IB_INSUFFICIENT_RESOURCES.
 */
ib_api_status_t soft_rc_post_send(soft_qp_t *qp, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure);
/**
 * Transmits what the send queue may send now (the tables held, rc->lock
 * held). A packet the peer's ring has no room for stops it: the QP waits
 * with its CA (rc->tx_held) instead of losing the packet and a whole
 * retransmission timeout. @param rc state.
 */
void soft_rc_pump(soft_rc_t *rc);
/** Handles a response packet (the tables held, rc->lock held). @param rc state. @param pkt it. */
void soft_rc_req_recv(soft_rc_t *rc, const soft_pkt_t *pkt);
/** The retransmission/RNR timer expired (the tables held, rc->lock held). @param rc state. */
void soft_rc_req_timer(soft_rc_t *rc);
/**
 * Reports the end of an SQD drain when nothing is outstanding (rc->lock held).
 * @param rc state.
 */
void soft_rc_check_drained(soft_rc_t *rc);
/** Completes every WQE with IB_WCS_WR_FLUSHED_ERR (rc->lock held). @param rc state. */
void soft_rc_flush_sq(soft_rc_t *rc);
/**
 * The primary path changed (a migration): RC goes back to the first
 * unacknowledged PSN and sends again on the new path, with the retry count
 * restarted and the timer at the new path's timeout (the tables held,
 * rc->lock held). UC has nothing to resend.
 * @param rc state.
 */
void soft_rc_req_migrated(soft_rc_t *rc);

/* soft_rc_resp.c */
/** Handles a request packet (the tables held, rc->lock held). @param rc state. @param pkt it. */
void soft_rc_resp_recv(soft_rc_t *rc, const soft_pkt_t *pkt);
/**
 * Sends the coalesced ACK if one is due, then what it can of the read
 * responses that wait for room at the requester (the tables held and
 * rc->lock held); queues the QP again with soft_ca_pend() if some still
 * wait.
 * @param rc the QP's state.
 */
void soft_rc_resp_resume(soft_rc_t *rc);
/**
 * Sends the coalesced ACK now if one is due (rc->lock held): before any
 * other response of the QP, so that responses leave in PSN order.
 * @param rc the QP's state.
 */
void soft_rc_flush_ack(soft_rc_t *rc);

/* soft_apm.c */
/**
 * Path migration checks of an incoming packet, before the transport looks at
 * it (the tables held, rc->lock held, the QP in a receiving state). A packet
 * with MigReq set that arrives on the alternate path (its port, SLID = the
 * alternate DLID) while the APM state is ARMED migrates the QP (IB_AE_QP_APM)
 * and is then handled on the new primary path; one arriving there that
 * cannot be accepted (not ARMED, or the alternate path's P_Key does not
 * match) raises IB_AE_QP_APM_ERROR once per path load and is dropped. A
 * packet without MigReq on the primary path moves REARM to ARMED.
 * @param rc state. @param port the receiving port. @param pkt the packet.
 * @return FALSE if the packet must be dropped, TRUE to go on with the usual
 * checks (port, P_Key) against the primary path.
 */
boolean_t soft_apm_recv_alt(soft_rc_t *rc, soft_port_t *port, const soft_pkt_t *pkt);
/** soft_apm_recv(), inline: what a packet does when the QP has an alternate
 * path or is to rearm (soft_apm_recv_alt()), else nothing.
 * @param rc state. @param port the receiving port. @param pkt the packet.
 * @return as soft_apm_recv_alt(). */
static inline boolean_t soft_apm_recv(soft_rc_t *rc, soft_port_t *port, const soft_pkt_t *pkt)
{
	int apm = __atomic_load_n(&rc->qp->apm, __ATOMIC_ACQUIRE);

	/* Inline for the usual packet, no lock: without an alternate path
	 * (published as 0) no packet is on it and nothing can be armed,
	 * whatever its MigReq bit (set on every packet of a QP in MIGRATED);
	 * without MigReq only REARM has something to do. */
	if (!apm || (!pkt->bth.mig && apm != IB_APM_REARM))
		return TRUE;
	return soft_apm_recv_alt(rc, port, pkt);
}
/**
 * The requester exhausted its transport retries (the tables held, rc->lock
 * held): if the APM state is ARMED the QP migrates (IB_AE_QP_APM) and
 * sends again on the new path instead of failing.
 * @param rc state.
 * @return TRUE if it migrated, FALSE if the failure stands.
 */
boolean_t soft_apm_retry_exhausted(soft_rc_t *rc);
/**
 * After a successful modify (qp->lock held): raises IB_AE_QP_APM when the
 * consumer migrated the QP (IB_APM_MIGRATED while ARMED, ib_force_apm()).
 * @param qp the QP. @param old_apm the APM state before the modify.
 * @param old_alt whether an alternate path was loaded before it.
 */
void soft_apm_modified(soft_qp_t *qp, ib_apm_state_t old_apm, boolean_t old_alt);

/* The entry points the soft HCA calls (soft_qp.c, soft_progress.c; defined in soft_rc.c). */
/** A packet for an RC/UC QP, from the packet handling (rx_lock held).
 * @param qp QP. @param port port. @param pkt packet. */
void soft_rc_recv(soft_qp_t *qp, soft_port_t *port, const soft_pkt_t *pkt);
/**
 * Sends the QP's read responses that waited for room
 * (tab_lock held for reading).
 * @param qp the QP.
 */
void soft_rc_resume(soft_qp_t *qp);
/**
 * Makes the QP's transport state if it has none yet: by soft_create_qp for
 * an RC or UC QP (not yet published), and by a modify to a state other than
 * RESET (before it takes qp->sq_lock or changes anything) for the others.
 * Takes the CA's tables for writing (soft_tab_write()), so no lock may be
 * held; of two at once the first one's state stays.
 * @param qp QP.
 * @return IB_SUCCESS; IB_INSUFFICIENT_MEMORY (the modify must fail).
 */
ib_api_status_t soft_rc_prepare(soft_qp_t *qp);
/** After every successful modify, no lock held: starts or stops timers, flushes on ERROR.
 * @param qp QP. @param old_state before. @param new_state after. */
void soft_rc_state_changed(soft_qp_t *qp, ib_qp_state_t old_state, ib_qp_state_t new_state);
/** The QP is being destroyed: frees qp->rc. @param qp QP. */
void soft_rc_destroy(soft_qp_t *qp);

#endif /* SOFT_RC_H */
