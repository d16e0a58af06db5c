/*
 * ibal access layer: what al_mad.c, al_mad_disp.c, al_mad_rx.c and al_mad_rmpp.c share, private.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Every function here runs with the dispatcher's lock held (on its thread,
 * or in ib_send_mad()/ib_cancel_mad()/a service's destruction), unless it
 * says otherwise.
 */
#ifndef AL_MAD_INT_H
#define AL_MAD_INT_H

#include "al_mad.h"

/* wr_id bit of a send slot (receives carry their slot index alone). */
#define AL_MAD_WRID_SEND 0x10000u

/* An internal MAD waiting for a send slot. */
typedef struct al_mad_reply {
	cl_list_item_t item;
	uint8_t buf[MAD_BLOCK_SIZE];
	uint32_t len;
	ib_av_attr_t av;
	ib_net32_t rqp;
	uint16_t pkey_index;
} al_mad_reply_t;

/* A post that failed, completed by the thread as an error. */
typedef struct al_mad_fail {
	cl_list_item_t item;
	int slot;
	al_mad_send_t *p_send;
} al_mad_fail_t;

/* Monotonic microseconds. Any thread. */
uint64_t al_mad_now_us(void);

/* Entries of the receive CQ for @p n_recv receive buffers (and room for
 * the send slots' completions and a margin). */
static inline uint32_t al_mad_recv_cq_size(uint32_t n_recv)
{
	return AL_MAD_SEND_SLOTS + n_recv + 16;
}

/* Posts receive buffer @p i of the dispatcher's QP (al_mad.c). */
ib_api_status_t al_mad_post_recv(al_mad_disp_t *d, uint32_t i);
/* Wakes the dispatcher's thread. Any thread, no lock needed. */
void al_mad_poke(al_mad_disp_t *d);

void al_mad_queue_cb(al_mad_svc_t *p_svc, ib_mad_element_t *p_elem, boolean_t recv);
void al_mad_send_done(al_mad_disp_t *d, al_mad_send_t *s, ib_wc_status_t status);
void al_mad_send_responded(al_mad_disp_t *d, al_mad_send_t *s, ib_mad_element_t *p_resp);
uint8_t *al_mad_slot_buf(al_mad_disp_t *d, int slot);
ib_api_status_t al_mad_post(al_mad_disp_t *d, int slot, uint32_t len, const ib_av_attr_t *av,
			    ib_net32_t rqp, ib_net32_t qkey, uint16_t pkey_index);
void al_mad_slot_fail(al_mad_disp_t *d, int slot);
int al_mad_slot_take(al_mad_disp_t *d);
void al_mad_queue_reply(al_mad_disp_t *d, const void *p_mad, uint32_t len, const ib_av_attr_t *av,
			ib_net32_t rqp, uint16_t pkey_index);
ib_net32_t al_mad_send_qkey(const al_mad_disp_t *d, const ib_mad_element_t *e);
al_mad_svc_t *al_mad_find_svc(al_mad_disp_t *d, uint8_t mgmt_class, uint8_t class_ver,
			      uint8_t method, boolean_t *p_class_seen);

/* ---- al_mad_lend.c: the dispatcher's thread lent to its callbacks ---- */

struct _al_obj_here;
/* A dispatcher's thread (al_mad.c); the watch starts one to replace another. */
void *al_mad_disp_thread(void *arg);
/* Watches d (its thread has started), or stops: after remove, no thread of d
 * is replaced. No lock held. */
void al_mad_watch_add(al_mad_disp_t *d);
void al_mad_watch_remove(al_mad_disp_t *d);
/* The dispatcher's thread, first and last thing: its list of callbacks. */
void al_mad_lend_begin(al_mad_disp_t *d, struct _al_obj_here *p_here);
void al_mad_lend_end(struct _al_obj_here *p_here);
/* The dispatcher's thread, no lock held: runs the callbacks it queued;
 * FALSE when it was replaced meanwhile and must end at once, touching
 * nothing of d's. */
boolean_t al_mad_run_here(al_mad_disp_t *d);
/* The dispatcher's thread, before a batch of receive completions: the
 * callbacks of the batch's messages may run here (unless IBAL_AL_CM_INLINE
 * turned that off meanwhile: the tests' al_mad_lend_configure()). */
void al_mad_lend_batch(void);
/* Whether this dispatcher thread was replaced. */
boolean_t al_mad_lend_lost(void);
/* The dispatcher's thread: joins the thread it replaced if that one ended. */
void al_mad_lend_join(al_mad_disp_t *d);
/* The dispatcher's end, after its thread's: joins the one replaced. */
void al_mad_lend_join_all(al_mad_disp_t *d);

/* ---- al_mad_rx.c ---- */

/* A receive completed into buf (GRH area first). */
void al_mad_rx(al_mad_disp_t *d, const ib_wc_t *wc, const uint8_t *buf);
/* The reply address of a received MAD (also from an element's receive fields). */
void al_mad_reply_av(const ib_wc_t *wc, const uint8_t *buf, ib_av_attr_t *av);
/* A fresh element of the service's QP key, filled from a receive; NULL on failure. */
ib_mad_element_t *al_mad_rx_elem(al_mad_svc_t *p_svc, const ib_wc_t *wc, const uint8_t *buf,
				 size_t size);
/* The outstanding send a MAD answers (TID and class), or NULL. */
al_mad_send_t *al_mad_find_send(al_mad_disp_t *d, const ib_mad_t *p_mad, boolean_t rmpp_ctl);

/* ---- al_mad_rmpp.c ---- */

/* Whether an element sent on the service goes with RMPP. */
boolean_t al_rmpp_use(const al_mad_svc_t *p_svc, const ib_mad_t *p_mad,
		      const ib_mad_element_t *e);
/* Whether a received MAD is handled by RMPP on the service. */
boolean_t al_rmpp_rx_active(const al_mad_svc_t *p_svc, const uint8_t *mad, size_t len);
/* Whether a class carries an RMPP header (SA, vendor classes 0x30-0x4F). */
boolean_t al_rmpp_class(uint8_t mgmt_class);
/* Bytes before the data of each segment, for a class. */
uint32_t al_rmpp_hdr_len(uint8_t mgmt_class);
void al_rmpp_send_init(al_mad_svc_t *p_svc, al_mad_send_t *s);
/* Posts the segments the window allows. */
void al_rmpp_pump(al_mad_disp_t *d, al_mad_send_t *s);
/* A segment's send completed. */
void al_rmpp_sent(al_mad_disp_t *d, al_mad_send_t *s);
/* A timeout: resend the window from the last acknowledged segment. */
void al_rmpp_retry(al_mad_disp_t *d, al_mad_send_t *s);
/* Sends an ABORT for a send's transfer. */
void al_rmpp_abort_send(al_mad_disp_t *d, al_mad_send_t *s, uint8_t status);
/* An RMPP MAD arrived: control (ACK/STOP/ABORT) for a send, or DATA. */
void al_rmpp_rx(al_mad_disp_t *d, al_mad_svc_t *p_svc, al_mad_send_t *p_req, const ib_wc_t *wc,
		const uint8_t *buf, size_t len);
/* Whether a reassembly of this TID from this LID exists. */
boolean_t al_rmpp_rx_known(al_mad_disp_t *d, const ib_mad_t *p_mad, ib_net16_t slid);
/* ACK/STOP/ABORT about one of our sends. */
void al_rmpp_rx_ctl(al_mad_disp_t *d, al_mad_send_t *s, const ib_wc_t *wc, const uint8_t *buf);
/* Reassembly timers; returns min(soonest, its next deadline). */
uint64_t al_rmpp_timers(al_mad_disp_t *d, uint64_t now, uint64_t soonest);
/* Drops the reassemblies of a service / answering a request. */
void al_rmpp_forget_svc(al_mad_disp_t *d, al_mad_svc_t *p_svc);
void al_rmpp_forget_req(al_mad_disp_t *d, al_mad_send_t *s);
/* Frees every reassembly (dispatcher end; no lock needed). */
void al_rmpp_free_all(al_mad_disp_t *d);

#endif /* AL_MAD_INT_H */
