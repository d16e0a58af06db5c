/*
 * ibal access layer: MAD dispatchers at work (sends, completions, receive
 * buffers, the thread), MAD services, ib_send_mad, ib_cancel_mad, ib_local_mad.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * See al_mad.h for the objects and locks and docs/mad.md for the send
 * states, timers, RMPP and dispatch rules. Everything a dispatcher does
 * runs on its thread but a send's first post: ib_send_mad() queues and
 * posts under disp->lock from its caller's thread, and pokes the thread
 * through its wait object only when a post failed or RMPP is involved;
 * ib_cancel_mad() changes the lists and pokes.
 * Before it sleeps the thread looks for a while for a receive or a poke
 * (al_spin.h): a steady flow of MADs (a CM's) then wakes nobody.
 * RMPP (segmentation, windows, reassembly) is in al_mad_rmpp.c; a
 * dispatcher's making, sharing and teardown in al_mad_disp.c.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_setname_np */
#endif
#include <string.h>
#include <time.h>
#include <complib/cl_memory.h>
#include "al_mad.h"
#include "al_mad_int.h"
#include "al_obj.h"
#include "al_prov.h"
#include "al_spin.h"
#include "ibal_log.h"
#include "ibal_mem.h"
#include "ibal_time.h"

static uint32_t g_client_id = 1; /* atomic: client ids of services */

uint64_t al_mad_now_us(void)
{
	return ibal_time_us(CLOCK_MONOTONIC);
}

/* ---- Callbacks ---- */

/* Runs the callback of element @p context (al_mad_elem_t) queued by
 * al_mad_queue_cb(). The element is the service's after the call (it may
 * go back to its pool in it): nothing of it is read after. */
static void run_cb(void *context)
{
	al_mad_elem_t *e = (al_mad_elem_t *)context;
	al_mad_svc_t *p_svc = e->cb_svc;
	ib_pfn_mad_comp_cb_t pfn = e->cb_recv ? p_svc->svc.pfn_mad_recv_cb : p_svc->svc.pfn_mad_send_cb;

	pfn((ib_mad_svc_handle_t)al_obj_h(&p_svc->obj), p_svc->svc.mad_svc_context, &e->element);
}

/* Queues a send completion or a received MAD on the service (disp->lock
 * held and the service listed, so its queue is open); a direct service's
 * goes to the list its dispatcher's runner takes (see run_direct()). The
 * callback item is the element's own. A received element that cannot be
 * queued goes back to its pool. */
void al_mad_queue_cb(al_mad_svc_t *p_svc, ib_mad_element_t *p_elem, boolean_t recv)
{
	al_mad_elem_t *e = al_mad_elem_from_ib(p_elem);
	al_mad_disp_t *d = p_svc->p_disp;

	e->cb_item.pfn_cb = run_cb;
	e->cb_item.context = e;
	e->cb_svc = p_svc;
	e->cb_recv = recv;
	if (p_svc->direct) {
		al_obj_ref(&p_svc->obj);
		cl_qlist_insert_tail(d->p_collect ? d->p_collect : &d->direct, &e->cb_item.list_item);
		return;
	}
	if (al_obj_queue_cb_item(&p_svc->obj, &e->cb_item) == IB_SUCCESS)
		return;
	if (recv)
		al_mad_pool_put(e);
}

/* Runs direct callbacks taken off a list (no lock held), each releasing the
 * reference its queueing took. With @p d, received MADs are not run here
 * but handed to d's thread: the caller is ib_send_mad(), whose caller may
 * hold locks a receive callback takes. Returns TRUE when d's thread has
 * some to run. */
static boolean_t run_direct(cl_qlist_t *p_list, al_mad_disp_t *d)
{
	cl_list_item_t *it;
	boolean_t handed = FALSE;

	while ((it = cl_qlist_remove_head(p_list)) != cl_qlist_end(p_list)) {
		al_mad_elem_t *e = PARENT_STRUCT(it, al_mad_elem_t, cb_item.list_item);
		al_mad_svc_t *p_svc = e->cb_svc;

		if (d && e->cb_recv) {
			pthread_mutex_lock(&d->lock);
			cl_qlist_insert_tail(&d->direct, it);
			pthread_mutex_unlock(&d->lock);
			handed = TRUE;
			continue;
		}
		run_cb(e);
		al_obj_deref(&p_svc->obj);
	}
	return handed;
}

ib_api_status_t al_mad_svc_set_direct(ib_mad_svc_handle_t h_svc)
{
	al_mad_svc_t *p_svc = (al_mad_svc_t *)AL_ENTER(h_svc, AL_HDL_MAD_SVC);

	if (!p_svc)
		return IB_INVALID_HANDLE;
	pthread_mutex_lock(&p_svc->p_disp->lock);
	p_svc->direct = TRUE;
	pthread_mutex_unlock(&p_svc->p_disp->lock);
	AL_EXIT(h_svc);
	return IB_SUCCESS;
}

/* ---- Sends: completion ---- */

/* Gives up an element's send record (send_claim()): the element may be sent
 * again, or go back to its pool. */
static void send_release(al_mad_elem_t *w)
{
	__atomic_store_n(&w->svc_context, NULL, __ATOMIC_RELEASE);
}

/* Ends a send: off the list, its slots orphaned, the element's status set
 * and its callback queued, then the response it got (if any). */
void al_mad_send_done(al_mad_disp_t *d, al_mad_send_t *s, ib_wc_status_t status)
{
	ib_mad_element_t *p_elem = s->p_elem, *p_resp = s->p_resp;
	al_mad_svc_t *p_svc = s->p_svc;
	uint32_t i;

	cl_qlist_remove_item(&d->sends, &s->item);
	if (s->n_posted)
		for (i = 0; i < AL_MAD_SEND_SLOTS; i++)
			if (d->slots[i].p_send == s)
				d->slots[i].p_send = NULL;
	al_rmpp_forget_req(d, s);
	p_elem->p_next = NULL;
	p_elem->status = status;
	/* s is the element's: from here on the element may be sent anew (its
	 * owner has it back once its callback is queued), so s is not used. */
	send_release(al_mad_elem_from_ib(p_elem));
	al_mad_queue_cb(p_svc, p_elem, FALSE);
	if (p_resp) {
		if (status == IB_WCS_SUCCESS)
			al_mad_queue_cb(p_svc, p_resp, TRUE);
		else
			al_mad_pool_put(al_mad_elem_from_ib(p_resp));
	}
}

/* A response (whole, reassembled if needed) for s arrived. */
void al_mad_send_responded(al_mad_disp_t *d, al_mad_send_t *s, ib_mad_element_t *p_resp)
{
	p_resp->send_context1 = (void *)s->p_elem->context1;
	p_resp->send_context2 = (void *)s->p_elem->context2;
	if (s->p_resp)
		al_mad_pool_put(al_mad_elem_from_ib(s->p_resp));
	s->p_resp = p_resp;
	/* The send completes first: at once unless its completion is pending. */
	if (s->n_posted)
		s->deadline_us = 0;
	else
		al_mad_send_done(d, s, IB_WCS_SUCCESS);
}

/* ---- Posting ---- */

int al_mad_slot_take(al_mad_disp_t *d)
{
	uint32_t i;

	for (i = 0; i < AL_MAD_SEND_SLOTS; i++)
		if (!d->slots[i].busy) {
			d->slots[i].busy = TRUE;
			d->n_free_slots--;
			return (int)i;
		}
	return -1;
}

uint8_t *al_mad_slot_buf(al_mad_disp_t *d, int slot)
{
	return d->bufs + (size_t)slot * MAD_BLOCK_SIZE;
}

/* Posts slot's buffer (len bytes) to av / rqp / qkey. */
ib_api_status_t al_mad_post(al_mad_disp_t *d, int slot, uint32_t len, const ib_av_attr_t *av,
			    ib_net32_t rqp, ib_net32_t qkey, uint16_t pkey_index)
{
	al_mad_slot_t *sl = &d->slots[slot];
	ib_av_attr_t a = *av;
	ib_local_ds_t ds;
	ib_send_wr_t wr;
	ib_api_status_t st = IB_SUCCESS;

	/* Each slot keeps its AV: made at its first post, changed only when the
	 * address does (a free slot's AV is in no send). */
	a.port_num = d->port_num;
	if (!sl->h_av)
		st = ib_create_av(d->h_pd, &a, &sl->h_av);
	else if (memcmp(&sl->av, &a, sizeof(a)))
		st = ib_modify_av(sl->h_av, &a);
	if (st != IB_SUCCESS) {
		memset(&sl->av, 0, sizeof(sl->av));
		return st;
	}
	sl->av = a;
	ds.vaddr = (uintptr_t)al_mad_slot_buf(d, slot);
	ds.length = len;
	ds.lkey = d->lkey;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = AL_MAD_WRID_SEND | (uint64_t)slot;
	wr.wr_type = WR_SEND;
	wr.send_opt = IB_SEND_OPT_SIGNALED;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	wr.dgrm.ud.h_av = sl->h_av;
	wr.dgrm.ud.remote_qp = rqp;
	wr.dgrm.ud.remote_qkey = qkey;
	wr.dgrm.ud.pkey_index = pkey_index;
	if (sl->p_send && sl->p_send->p_elem->resp_expected)
		wr.dgrm.ud.rsvd = AL_PROV_MAD_WAIT(sl->p_send->p_elem->timeout_ms);
	st = ib_post_send(d->h_qp, &wr, NULL);
	if (st != IB_SUCCESS)
		sl->p_send = NULL;
	return st;
}

/*
 * The local route of QP0 (disp->lock held): an SMP for the sending port's
 * own agents, a directed-route one with hop count 0 or a LID-routed one to
 * the permissive LID (IBA 14.2.2, the first thing an SM sends), goes to the
 * provider's local MAD interface instead of the wire, and its answer is
 * received here as if it came from the port, as the Windows access layer's
 * SMI does. TRUE when @p s was handled so (done, or its answer delivered).
 */
static boolean_t local_smp(al_mad_disp_t *d, al_mad_send_t *s)
{
	const ib_mad_element_t *e = s->p_elem;
	const ib_smp_t *smp = (const ib_smp_t *)e->p_mad_buf;
	uint8_t in[MAD_BLOCK_SIZE], out[MAD_BLOCK_GRH_SIZE];
	ib_api_status_t st;
	ib_wc_t wc;

	if (d->type != IB_QPT_QP0 || e->size < MAD_BLOCK_SIZE || ib_mad_is_response(e->p_mad_buf))
		return FALSE;
	if (!(smp->mgmt_class == IB_MCLASS_SUBN_DIR && !ib_smp_is_d(smp) && !smp->hop_count) &&
	    !(smp->mgmt_class == IB_MCLASS_SUBN_LID && s->av.dlid == IB_LID_PERMISSIVE))
		return FALSE;
	memcpy(in, e->p_mad_buf, MAD_BLOCK_SIZE);
	((ib_mad_t *)in)->trans_id = s->tid;
	memset(out, 0, sizeof(out));
	s->state = AL_MAD_SEND_POSTED;
	s->sent_once = TRUE;
	st = ib_local_mad(d->h_ca, d->port_num, in, out + sizeof(ib_grh_t));
	if (st != IB_SUCCESS) {
		IBAL_DBG(IBAL_SUB_MAD, "local SMP attr 0x%04x on port %u: %s", cl_ntoh16(smp->attr_id),
			 d->port_num, ib_get_err_str(st));
		al_mad_send_done(d, s, IB_WCS_LOCAL_OP_ERR);
		return TRUE;
	}
	if (!e->resp_expected) {
		al_mad_send_done(d, s, IB_WCS_SUCCESS);
		return TRUE;
	}
	memset(&wc, 0, sizeof(wc));
	wc.wc_type = IB_WC_RECV;
	wc.status = IB_WCS_SUCCESS;
	wc.length = MAD_BLOCK_GRH_SIZE;
	wc.recv.ud.remote_lid = IB_LID_PERMISSIVE;
	wc.recv.ud.remote_qp = 0;
	al_mad_rx(d, &wc, out);   /* the answer completes the send... */
	if (al_mad_find_send(d, (const ib_mad_t *)in, FALSE) == s)
		al_mad_send_done(d, s, IB_WCS_LOCAL_OP_ERR); /* ...unless no element took it */
	return TRUE;
}

/* Posts a plain (non-RMPP) send; FALSE when no slot is free. */
static boolean_t post_plain(al_mad_disp_t *d, al_mad_send_t *s)
{
	ib_mad_element_t *e = s->p_elem;
	int slot;

	if (local_smp(d, s))
		return TRUE;
	slot = al_mad_slot_take(d);
	if (slot < 0)
		return FALSE;
	memset(al_mad_slot_buf(d, slot), 0, MAD_BLOCK_SIZE);
	memcpy(al_mad_slot_buf(d, slot), e->p_mad_buf, e->size);
	d->slots[slot].p_send = s;
	s->state = AL_MAD_SEND_POSTED;
	s->n_posted++;
	if (al_mad_post(d, slot, d->type == IB_QPT_UNRELIABLE_DGRM ? e->size : MAD_BLOCK_SIZE,
			&s->av, e->remote_qp, al_mad_send_qkey(d, e), e->pkey_index) != IB_SUCCESS) {
		/* Completed as a local error when the slot's completion is faked. */
		al_mad_slot_fail(d, slot);
	}
	return TRUE;
}

/* A post that failed: treat it as a send completion with an error. */
void al_mad_slot_fail(al_mad_disp_t *d, int slot)
{
	al_mad_fail_t *f = (al_mad_fail_t *)cl_zalloc(sizeof(*f));

	/* The slot stays busy until the thread handles the failure. */
	if (f) {
		f->slot = slot;
		f->p_send = d->slots[slot].p_send;
		cl_qlist_insert_tail(&d->fails, &f->item);
	}
}

/* Internal MADs (unsupported-class replies, RMPP ACK/ABORT). */
void al_mad_queue_reply(al_mad_disp_t *d, const void *p_mad, uint32_t len, const ib_av_attr_t *av,
			ib_net32_t rqp, uint16_t pkey_index)
{
	al_mad_reply_t *r;

	if (cl_qlist_count(&d->replies) >= AL_MAD_MAX_REPLIES) {
		if (!d->n_drop_replies++)
			IBAL_WARN(IBAL_SUB_MAD, "port %u: %u answers wait for a send slot: new ones are "
				  "dropped (a peer sends faster than answers go)", d->port_num,
				  AL_MAD_MAX_REPLIES);
		return;
	}
	r = (al_mad_reply_t *)cl_zalloc(sizeof(*r));
	if (!r)
		return;
	memcpy(r->buf, p_mad, len > MAD_BLOCK_SIZE ? MAD_BLOCK_SIZE : len);
	r->len = MAD_BLOCK_SIZE;
	r->av = *av;
	r->rqp = rqp;
	r->pkey_index = pkey_index;
	cl_qlist_insert_tail(&d->replies, &r->item);
}

ib_net32_t al_mad_send_qkey(const al_mad_disp_t *d, const ib_mad_element_t *e)
{
	if (e->remote_qkey)
		return e->remote_qkey;
	return d->type == IB_QPT_QP0 ? 0 : IB_QP1_WELL_KNOWN_Q_KEY;
}

/* Posts what waits while slots are free (disp->lock held). */
static void pump(al_mad_disp_t *d)
{
	cl_list_item_t *it, *next;

	while (d->n_free_slots && cl_qlist_count(&d->replies)) {
		al_mad_reply_t *r = (al_mad_reply_t *)cl_qlist_remove_head(&d->replies);
		int slot = al_mad_slot_take(d);
		/* MAD QPs answer with their own Q_Key (peers of a MAD QP share it);
		 * QP0 has none. */
		ib_net32_t qkey = d->type == IB_QPT_UNRELIABLE_DGRM ? d->qkey
				  : d->type == IB_QPT_QP0 ? 0 : IB_QP1_WELL_KNOWN_Q_KEY;

		memcpy(al_mad_slot_buf(d, slot), r->buf, MAD_BLOCK_SIZE);
		d->slots[slot].p_send = NULL;
		if (al_mad_post(d, slot, r->len, &r->av, r->rqp, qkey, r->pkey_index) != IB_SUCCESS)
			al_mad_slot_fail(d, slot);
		cl_free(r);
	}
	for (it = cl_qlist_head(&d->sends); it != cl_qlist_end(&d->sends) && d->n_free_slots;
	     it = next) {
		al_mad_send_t *s = (al_mad_send_t *)it;

		next = cl_qlist_next(it);   /* a local SMP's send ends at once (local_smp()) */
		if (s->rmpp)
			al_rmpp_pump(d, s);
		else if (s->state == AL_MAD_SEND_QUEUED)
			post_plain(d, s);
	}
}

/* ---- Completions ---- */

/* A send slot completed (or its post failed); disp->lock held. */
static void slot_done(al_mad_disp_t *d, int slot, ib_wc_status_t ws)
{
	al_mad_slot_t *sl = &d->slots[slot];
	al_mad_send_t *s = sl->p_send;

	sl->p_send = NULL;
	sl->busy = FALSE;
	d->n_free_slots++;
	if (!s)
		return;
	s->n_posted--;
	if (ws != IB_WCS_SUCCESS) {
		al_mad_send_done(d, s, ws);
		return;
	}
	s->sent_once = TRUE;
	if (s->rmpp) {
		al_rmpp_sent(d, s);
		d->need_poke = TRUE;    /* its window and timers are the thread's */
		return;
	}
	if (s->n_posted || s->state != AL_MAD_SEND_POSTED)
		return;
	if (s->p_resp || !s->p_elem->resp_expected) {
		al_mad_send_done(d, s, IB_WCS_SUCCESS);
		return;
	}
	s->state = AL_MAD_SEND_WAIT_RESP;
	if (!s->resp_started) {
		s->deadline_us = al_mad_now_us() + (uint64_t)s->p_elem->timeout_ms * 1000u;
		if (s->deadline_us < d->wake_at)
			d->need_poke = TRUE;    /* sooner than the thread looks */
	}
}

_Static_assert(AL_MAD_RECV_SLOTS % AL_MAD_RECV_CHUNK == 0 && AL_MAD_RECV_MAX % AL_MAD_RECV_CHUNK == 0,
	       "receive buffers come in whole chunks");

/* Receive buffer @p i: in chunk i / AL_MAD_RECV_CHUNK. */
static uint8_t *recv_buf(const al_mad_disp_t *d, uint32_t i)
{
	return d->recv_base[i / AL_MAD_RECV_CHUNK] + (size_t)(i % AL_MAD_RECV_CHUNK) * AL_MAD_RECV_SLOT;
}

ib_api_status_t al_mad_post_recv(al_mad_disp_t *d, uint32_t i)
{
	ib_local_ds_t ds;
	ib_recv_wr_t wr;

	ds.vaddr = (uintptr_t)recv_buf(d, i);
	ds.length = AL_MAD_RECV_SLOT;
	ds.lkey = d->recv_lkey[i / AL_MAD_RECV_CHUNK];
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = i;
	wr.num_ds = 1;
	wr.ds_array = &ds;
	return ib_post_recv(d->h_qp, &wr, NULL);
}

/*
 * A burst of MADs (thousands of connection requests at once) can come
 * faster than the thread handles them, and a MAD that finds no receive
 * posted is dropped (a UD QP's rule): its sender waits out its timeout, and
 * the retries come in a burst again. This thread shares the processors with
 * the application's, and in a burst it is often descheduled for 5 to 12 ms
 * at a time (two processes' worth of threads on two processors). What can
 * arrive meanwhile is bounded by the senders: the CM puts at most 256
 * requests to one remote port on the wire unanswered (al_cm_pace.c), and
 * the other messages answer what this side sent; so a peer's burst of
 * requests waits here by a few hundred MADs at most, and many peers' by as
 * many hundreds. So after a poll that fills its batch, the thread doubles
 * its buffers when a quarter of them still wait in the CQ (256 of the first
 * 1,024: a peer's requests at full pace; 1,024 of 4,096), a chunk at a time
 * (the CQ grown first, once: a resize copies what the CQ holds, and one per
 * chunk made the growth to AL_MAD_RECV_MAX take 10 ms instead of 0.5 to 3),
 * up to AL_MAD_RECV_MAX; the CM asks for AL_MAD_RECV_BURST before bursts it
 * can foresee (al_mad_svc_expect_burst). A step at a time, and only when a
 * quarter waits: each growth is memory made resident on this thread, up to
 * 5 ms for 2 MiB on a host that backs its guests' memory at first touch, and
 * a server of one client's 1,000 connections at once, which never had more
 * than a few hundred MADs waiting, grew to 8,192 buffers in most runs when a
 * sixteenth waiting was the sign (until 2026-12-07, docs/mad.md). A provider
 * that cannot grow the CQ, or a failed registration, leaves the buffers at
 * what they are.
 *
 * The chunks of a growth are carved from one mapping of whole huge pages
 * (ibal_mem_map_huge; a plain one where the kernel has no room for that):
 * the provider writes every MAD of a burst into a buffer it has not written
 * before, and a host that shadows its guests' page tables charged the first
 * write to each 4 KiB page (4 to 5 us), 1,200 pages for a server's 16,384
 * buffers. What is left of a mapping serves the next growth.
 */
static uint8_t *recv_room(al_mad_disp_t *d, uint32_t to)
{
	size_t len = (size_t)AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT, pg = ibal_mem_page_size(), want;
	uint8_t *p;

	if (d->recv_room_left < len) {
		/* Room for every chunk up to @p to, beyond what is left. */
		want = (size_t)(to > d->n_recv ? to - d->n_recv : AL_MAD_RECV_CHUNK) / AL_MAD_RECV_CHUNK *
		       len;
		want = ibal_mem_huge_round(want);
		p = (uint8_t *)ibal_mem_map_huge(want);
		if (!p) {
			want = (len + pg - 1) & ~(pg - 1);
			p = (uint8_t *)ibal_mem_map(want);
			if (!p)
				return NULL;
		}
		d->recv_maps[d->n_recv_maps].p = p;
		d->recv_maps[d->n_recv_maps].len = want;
		d->n_recv_maps++;
		d->recv_room = p;
		d->recv_room_left = want;
	}
	p = d->recv_room;
	d->recv_room += len;
	d->recv_room_left -= len;
	return p;
}

static ib_api_status_t recv_add_chunk(al_mad_disp_t *d, uint32_t to)
{
	uint32_t k = d->n_recv / AL_MAD_RECV_CHUNK, i;
	size_t len = (size_t)AL_MAD_RECV_CHUNK * AL_MAD_RECV_SLOT;
	ib_mr_create_t mc;
	ib_mr_handle_t h_mr;
	net32_t rkey;
	ib_api_status_t st;
	uint8_t *p;

	p = recv_room(d, to);
	if (!p)
		return IB_INSUFFICIENT_MEMORY;
	/* Resident before it is posted, as a registration pins it (ibal_mem.h). */
	ibal_mem_prefault(p, len);
	mc.vaddr = p;
	mc.length = len;
	mc.access_ctrl = IB_AC_LOCAL_WRITE;
	st = ib_reg_mem(d->h_pd, &mc, &d->recv_lkey[k], &rkey, &h_mr);
	if (st != IB_SUCCESS) {
		/* The room stays the next chunk's (unmapped with the dispatcher). */
		d->recv_room -= len;
		d->recv_room_left += len;
		return st;
	}
	d->recv_base[k] = p;    /* its MR goes with the dispatcher's instance */
	for (i = d->n_recv; i < d->n_recv + AL_MAD_RECV_CHUNK && st == IB_SUCCESS; i++)
		st = al_mad_post_recv(d, i);
	/* Written by this thread only; stored atomically for those who look on
	 * (tests). */
	__atomic_store_n(&d->n_recv, d->n_recv + AL_MAD_RECV_CHUNK, __ATOMIC_RELEASE);
	return st;
}

/* Grows the receive buffers to @p to (at most d->recv_max). */
static void recv_grow(al_mad_disp_t *d, uint32_t to, const char *why)
{
	uint32_t size;
	ib_api_status_t st;

	if (to > d->recv_max)
		to = d->recv_max;
	/* The CQ first, once: each resize copies what it holds. */
	size = al_mad_recv_cq_size(to);
	st = ib_modify_cq(d->h_cq, &size);
	while (d->n_recv < to && st == IB_SUCCESS)
		st = recv_add_chunk(d, to);
	if (st != IB_SUCCESS) {
		IBAL_INFO(IBAL_SUB_MAD, "MAD QP 0x%x: %u receive buffers, cannot add more (%s)",
			  cl_ntoh32(d->qpn), d->n_recv, ib_get_err_str(st));
		d->recv_max = d->n_recv;
		return;
	}
	IBAL_INFO(IBAL_SUB_MAD, "MAD QP 0x%x: %s, now %u receive buffers", cl_ntoh32(d->qpn), why,
		  d->n_recv);
}

/*
 * After a poll that filled its batch: doubles the receive buffers (up to
 * AL_MAD_RECV_MAX) when a quarter of them (256 of 1,024, 1,024 of 4,096)
 * still wait in the CQ.
 */
static void recv_check(al_mad_disp_t *d)
{
	uint32_t waiting = 0;

	if (d->n_recv >= d->recv_max || __atomic_load_n(&d->stop, __ATOMIC_ACQUIRE) ||
	    ib_peek_cq(d->h_cq, &waiting) != IB_SUCCESS)
		return;
	if (waiting >= d->n_recv / 4u)
		recv_grow(d, 2 * d->n_recv, "a burst of MADs");
}

ib_api_status_t al_mad_svc_expect_burst(ib_mad_svc_handle_t h_svc)
{
	al_mad_svc_t *p_svc = (al_mad_svc_t *)AL_ENTER(h_svc, AL_HDL_MAD_SVC);

	if (!p_svc)
		return IB_INVALID_HANDLE;
	__atomic_store_n(&p_svc->p_disp->want_room, 1, __ATOMIC_RELEASE);
	al_mad_poke(p_svc->p_disp);
	AL_EXIT(h_svc);
	return IB_SUCCESS;
}

/* Links @p n completions into the free list ib_poll_cq() takes; returns its head. */
static ib_wc_t *wc_chain(ib_wc_t *wc, uint32_t n)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i++)
		wc[i].p_next = &wc[i + 1];
	wc[n - 1].p_next = NULL;
	return wc;
}

/*
 * Reaps the send CQ (disp->lock held). The send CQ stays armed for
 * solicited completions, which a send completion never is: an error
 * completion still wakes the thread, a successful one does not, and a
 * provider that counts polls of unarmed CQs as an application polling (the
 * soft one backs off for it) does not count these. arm_sends() arms it for
 * the next completion when a send is posted that no thread will reap.
 */
static void reap_sends(al_mad_disp_t *d)
{
	ib_wc_t wc[16], *p_free, *p_done;
	boolean_t rearm = FALSE;

	/* Every send reaped: the CQ holds nothing (each posted send holds a
	 * slot until its completion is reaped), and a poll for nothing would
	 * be counted by the soft provider as an application polling on. */
	if (d->n_free_slots == AL_MAD_SEND_SLOTS)
		return;
	do {
		p_free = wc_chain(wc, 16);
		p_done = NULL;
		if (ib_poll_cq(d->h_scq, &p_free, &p_done) != IB_SUCCESS)
			break;
		for (; p_done; p_done = p_done->p_next) {
			/* the arming fired, or may have: armed anew below */
			if (d->scq_next || p_done->status != IB_WCS_SUCCESS)
				rearm = TRUE;
			slot_done(d, (int)(p_done->wr_id & 0xFFFF), p_done->status);
		}
	} while (!p_free);
	if (rearm) {
		d->scq_next = FALSE;
		ib_rearm_cq(d->h_scq, TRUE);
	}
}

/* Arms the send CQ for its next completion when a send is posted and no
 * thread will reap it (disp->lock held). A provider that completes sends at
 * the post (the soft one) never needs it: a send then wakes nobody. */
static void arm_sends(al_mad_disp_t *d)
{
	if (d->n_free_slots == AL_MAD_SEND_SLOTS)
		return;
	d->scq_next = TRUE;
	ib_rearm_cq(d->h_scq, FALSE);
	reap_sends(d);
}

/* Handles receive completions just polled (and reaps the send CQ); runs
 * the direct callbacks, then the callbacks they queued to run here (the
 * thread may be replaced meanwhile: al_mad_lend_lost()). Returns how many
 * completions there were. */
static int rx_done(al_mad_disp_t *d, ib_wc_t *p_done)
{
	cl_qlist_t run;
	int n = 0;
	uint32_t i;

	cl_qlist_init(&run);
	al_mad_lend_batch();
	pthread_mutex_lock(&d->lock);
	/* Sends first: a response is then seldom ahead of its request's
	 * send completion (al_mad_send_responded() holds it if it is). */
	reap_sends(d);
	for (; p_done; p_done = p_done->p_next, n++) {
		i = (uint32_t)p_done->wr_id;
		if (p_done->status == IB_WCS_SUCCESS)
			al_mad_rx(d, p_done, recv_buf(d, i));
		if (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE))
			al_mad_post_recv(d, i);
	}
	cl_qlist_insert_list_tail(&run, &d->direct);
	pthread_mutex_unlock(&d->lock);
	run_direct(&run, NULL);
	al_mad_run_here(d);
	return n;
}

#define RX_BATCH 16   /* receive completions a poll takes */

/* Polls the receive CQ dry, and the send CQ; runs the direct callbacks.
 * Returns the receive completions seen. */
static int poll_all(al_mad_disp_t *d)
{
	ib_wc_t wc[RX_BATCH], *p_free, *p_done;
	int n = 0;

	for (;;) {
		p_free = wc_chain(wc, RX_BATCH);
		p_done = NULL;
		ib_poll_cq(d->h_cq, &p_free, &p_done);
		n += rx_done(d, p_done);
		if (p_free || al_mad_lend_lost())
			return n;   /* the CQ is dry, or the thread was replaced */
		recv_check(d);
	}
}

/* What the thread's look before it sleeps compares with. */
typedef struct disp_look {
	al_mad_disp_t *d;
	uint32_t pokes; /* d->pokes when the look began */
} disp_look_t;

/* al_spin_until's look: a receive (handled here) or a poke. An empty poll
 * takes no lock. */
static boolean_t disp_has_work(void *context)
{
	disp_look_t *l = (disp_look_t *)context;
	ib_wc_t wc, *p_free = &wc, *p_done = NULL;

	if (__atomic_load_n(&l->d->pokes, __ATOMIC_ACQUIRE) != l->pokes ||
	    __atomic_load_n(&l->d->stop, __ATOMIC_ACQUIRE))
		return TRUE;
	wc.p_next = NULL;
	ib_poll_cq(l->d->h_cq, &p_free, &p_done);
	if (!p_done)
		return FALSE;
	rx_done(l->d, p_done);
	return TRUE;
}

/* Runs the timers; returns the next deadline (0: none). disp->lock held. */
static uint64_t timers(al_mad_disp_t *d, uint64_t now)
{
	cl_list_item_t *it, *next;
	uint64_t soonest = 0;

	for (it = cl_qlist_head(&d->sends); it != cl_qlist_end(&d->sends); it = next) {
		al_mad_send_t *s = (al_mad_send_t *)it;

		next = cl_qlist_next(it);
		if (!s->deadline_us || s->state != AL_MAD_SEND_WAIT_RESP)
			continue;
		if (s->deadline_us <= now) {
			s->deadline_us = 0;
			IBAL_DBG(IBAL_SUB_MAD, "MAD TID 0x%016llx to LID 0x%x: no response in time, %s",
				 (unsigned long long)cl_ntoh64(s->tid), cl_ntoh16(s->av.dlid),
				 s->retries_left ? "sending again" : "no retries left (timeout)");
			if (!s->retries_left) {
				if (s->rmpp)
					al_rmpp_abort_send(d, s, IB_RMPP_STATUS_TMR);
				al_mad_send_done(d, s, IB_WCS_TIMEOUT_RETRY_ERR);
				continue;
			}
			s->retries_left--;
			if (s->rmpp)
				al_rmpp_retry(d, s);
			else
				s->state = AL_MAD_SEND_QUEUED;
			continue;
		}
		if (!soonest || s->deadline_us < soonest)
			soonest = s->deadline_us;
	}
	return al_rmpp_timers(d, now, soonest);
}

/*
 * The dispatcher's thread. The CM's callbacks of the messages it receives
 * it runs itself (al_mad_run_here(), after each batch); should one keep it,
 * the watch starts another thread here, and this one ends as soon as its
 * callback returns, touching nothing of the dispatcher's after
 * (al_mad_lend_lost()).
 */
void *al_mad_disp_thread(void *arg)
{
	al_mad_disp_t *d = (al_mad_disp_t *)arg;
	uint64_t next, now;
	cl_qlist_t run;
	boolean_t again;
	disp_look_t look;
	al_obj_here_t here;

	/* Named for top and perf, as the access layer's other threads are. */
	pthread_setname_np(pthread_self(), "al_mad");
	cl_qlist_init(&run);
	look.d = d;
	al_mad_lend_begin(d, &here);
	while (!__atomic_load_n(&d->stop, __ATOMIC_ACQUIRE) && !al_mad_lend_lost()) {
		look.pokes = __atomic_load_n(&d->pokes, __ATOMIC_ACQUIRE);
		al_mad_lend_join(d);
		if (__atomic_exchange_n(&d->want_room, 0, __ATOMIC_ACQ_REL) &&
		    d->n_recv < AL_MAD_RECV_BURST)
			recv_grow(d, AL_MAD_RECV_BURST, "a burst expected");
		poll_all(d);
		if (al_mad_lend_lost())
			break;
		ib_rearm_cq(d->h_cq, FALSE);
		poll_all(d);
		if (al_mad_lend_lost())
			break;
		pthread_mutex_lock(&d->lock);
		while (cl_qlist_count(&d->fails)) {
			al_mad_fail_t *f = (al_mad_fail_t *)cl_qlist_remove_head(&d->fails);

			if (d->slots[f->slot].p_send != f->p_send)
				f->p_send = NULL;
			slot_done(d, f->slot, IB_WCS_LOCAL_OP_ERR);
			cl_free(f);
		}
		now = al_mad_now_us();
		next = timers(d, now);
		pump(d);
		arm_sends(d);
		/* A thread that reaps a send whose timer ends sooner wakes us. */
		d->wake_at = next && next - now < 1000000u ? next : now + 1000000u;
		d->need_poke = FALSE;
		/* Failed posts of our own pump: handled at once. What other
		 * threads add later (fails, direct callbacks) comes with a poke. */
		again = !cl_is_qlist_empty(&d->fails);
		cl_qlist_insert_list_tail(&run, &d->direct);
		pthread_mutex_unlock(&d->lock);
		run_direct(&run, NULL);
		if (!al_mad_run_here(d))
			break;
		if (again)
			continue;
		now = al_mad_now_us();
		if (next && next <= now)
			continue;
		/* A poke since the loop began, or a receive: round again. */
		if (al_spin_until(disp_has_work, &look))
			continue;
		cl_waitobj_wait_on(d->wo, next ? (uint32_t)(next - now < 1000000u ? next - now : 1000000u)
					       : 1000000u,
				   FALSE);
	}
	al_mad_lend_end(&here);
	return NULL;
}

void al_mad_poke(al_mad_disp_t *d)
{
	__atomic_add_fetch(&d->pokes, 1, __ATOMIC_RELEASE);
	cl_waitobj_signal(d->wo);
}

/* ---- MAD services ---- */

static void svc_destroying(al_obj_t *p_obj)
{
	al_mad_svc_t *p_svc = PARENT_STRUCT(p_obj, al_mad_svc_t, obj);
	al_mad_disp_t *d = p_svc->p_disp;
	cl_list_item_t *it, *next;

	pthread_mutex_lock(&d->lock);
	/* Sends still outstanding complete (canceled) before the destroy callback. */
	for (it = cl_qlist_head(&d->sends); it != cl_qlist_end(&d->sends); it = next) {
		al_mad_send_t *s = (al_mad_send_t *)it;

		next = cl_qlist_next(it);
		if (s->p_svc == p_svc)
			al_mad_send_done(d, s, IB_WCS_CANCELED);
	}
	al_rmpp_forget_svc(d, p_svc);
	if (p_svc->listed)
		cl_qlist_remove_item(&d->svcs, &p_svc->disp_item);
	p_svc->listed = FALSE;
	pthread_mutex_unlock(&d->lock);
	if (p_svc->direct)
		al_mad_poke(d);     /* its canceled sends' callbacks are the thread's */
}

static void svc_free(al_obj_t *p_obj)
{
	cl_free(PARENT_STRUCT(p_obj, al_mad_svc_t, obj));
}

/* The service taking unsolicited (class, version, method), or NULL; how
 * close another came in *p_class_seen (disp->lock held). */
al_mad_svc_t *al_mad_find_svc(al_mad_disp_t *d, uint8_t mgmt_class, uint8_t class_ver,
			      uint8_t method, boolean_t *p_class_seen)
{
	cl_list_item_t *it;

	*p_class_seen = FALSE;
	for (it = cl_qlist_head(&d->svcs); it != cl_qlist_end(&d->svcs); it = cl_qlist_next(it)) {
		al_mad_svc_t *p_svc = PARENT_STRUCT(it, al_mad_svc_t, disp_item);

		if (!p_svc->svc.support_unsol || p_svc->svc.mgmt_class != mgmt_class ||
		    p_svc->svc.mgmt_version != class_ver)
			continue;
		*p_class_seen = TRUE;
		if (method < IB_MAX_METHODS && p_svc->svc.method_array[method])
			return p_svc;
	}
	return NULL;
}

/* The dispatcher of the QP a service is registered on, or why there is none. */
static ib_api_status_t svc_disp(ib_qp_handle_t h_qp, al_qp_t *p_qp, al_mad_disp_t **pp_d)
{
	ib_qp_attr_t qa;

	if (!al_qp_is_mad(p_qp)) {
		/* Raw QP0/QP1 belong to their creator (al_spl_qp.c). */
		return ib_query_qp(h_qp, &qa) == IB_SUCCESS &&
				       (qa.qp_type == IB_QPT_QP0 || qa.qp_type == IB_QPT_QP1)
			       ? IB_UNSUPPORTED
			       : IB_INVALID_PARAMETER;
	}
	*pp_d = __atomic_load_n(&PARENT_STRUCT(p_qp, al_mad_qp_t, qp)->p_disp, __ATOMIC_ACQUIRE);
	/* An IB_QPT_MAD QP before ib_init_dgrm_svc() has none. */
	return *pp_d ? IB_SUCCESS : IB_INVALID_QP_STATE;
}

/* Lists a new service on its dispatcher unless another service already
 * takes one of its unsolicited methods. */
static ib_api_status_t svc_list(al_mad_disp_t *d, al_mad_svc_t *p_svc)
{
	const ib_mad_svc_t *ms = &p_svc->svc;
	ib_api_status_t st = IB_SUCCESS;
	boolean_t seen;
	uint32_t m;

	pthread_mutex_lock(&d->lock);
	if (ms->support_unsol)
		for (m = 0; m < IB_MAX_METHODS && st == IB_SUCCESS; m++)
			if (ms->method_array[m] &&
			    al_mad_find_svc(d, ms->mgmt_class, ms->mgmt_version, (uint8_t)m, &seen))
				st = IB_INVALID_SETTING;
	if (st == IB_SUCCESS)
		st = al_obj_insert_handle(&p_svc->obj);
	if (st == IB_SUCCESS) {
		cl_qlist_insert_tail(&d->svcs, &p_svc->disp_item);
		p_svc->listed = TRUE;
	}
	pthread_mutex_unlock(&d->lock);
	return st;
}

ib_api_status_t ib_reg_mad_svc(const ib_qp_handle_t h_qp, const ib_mad_svc_t *const p_mad_svc,
			       ib_mad_svc_handle_t *const ph_mad_svc)
{
	al_qp_t *p_qp = (al_qp_t *)AL_ENTER(h_qp, AL_HDL_QP);
	al_mad_svc_t *p_svc;
	al_mad_disp_t *d = NULL;
	ib_api_status_t st;
	uint32_t m;

	if (!p_qp)
		return IB_INVALID_QP_HANDLE;
	if (!p_mad_svc || !ph_mad_svc || !p_mad_svc->pfn_mad_send_cb ||
	    !p_mad_svc->pfn_mad_recv_cb || (unsigned)p_mad_svc->svc_type > IB_MAD_SVC_RAW) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	st = svc_disp(h_qp, p_qp, &d);
	if (st != IB_SUCCESS)
		goto out;
	if (p_mad_svc->support_unsol) {
		for (m = 0; m < IB_MAX_METHODS && !p_mad_svc->method_array[m]; m++)
			;
		if (m == IB_MAX_METHODS) {
			st = IB_INVALID_SETTING;
			goto out;
		}
	}
	p_svc = (al_mad_svc_t *)cl_zalloc(sizeof(*p_svc));
	if (!p_svc) {
		st = IB_INSUFFICIENT_MEMORY;
		goto out;
	}
	p_svc->p_qp = PARENT_STRUCT(p_qp, al_mad_qp_t, qp);
	p_svc->p_disp = d;
	p_svc->svc = *p_mad_svc;
	p_svc->client_id = __atomic_fetch_add(&g_client_id, 1, __ATOMIC_RELAXED);
	al_obj_construct(&p_svc->obj, AL_HDL_MAD_SVC);
	st = al_obj_init(&p_svc->obj, &p_qp->v.obj, p_mad_svc->mad_svc_context, svc_destroying,
			 NULL, svc_free);
	if (st != IB_SUCCESS) {
		al_obj_deinit(&p_svc->obj);
		cl_free(p_svc);
		st = st == IB_INVALID_STATE ? IB_INVALID_QP_HANDLE : st;
		goto out;
	}
	st = svc_list(d, p_svc);
	if (st != IB_SUCCESS) {
		al_obj_destroy(&p_svc->obj, NULL);
		goto out;
	}
	*ph_mad_svc = (ib_mad_svc_handle_t)al_obj_h(&p_svc->obj);
out:
	AL_EXIT(h_qp);
	return st;
}

/* ---- ib_send_mad ---- */

/*
 * An element's send record is the element's own (al_mad_elem_t::send), held
 * while svc_context points at it. The claim is a compare-and-swap, so that
 * the same element given to two ib_send_mad() calls at once is refused by
 * one; then a look at the pool's magic, sequentially consistent with
 * ib_put_mad()'s claim and look, so that a put and a send of it at once
 * are not both let through. FALSE: refused.
 */
static boolean_t send_claim(al_mad_elem_t *w)
{
	void *none = NULL;

	if (!__atomic_compare_exchange_n(&w->svc_context, &none, &w->send, FALSE, __ATOMIC_SEQ_CST,
					 __ATOMIC_ACQUIRE))
		return FALSE;
	if (__atomic_load_n(&w->magic, __ATOMIC_SEQ_CST) != AL_MAD_MAGIC_OUT) {
		send_release(w);
		return FALSE;
	}
	return TRUE;
}

/* Checks one element and makes its send (not listed yet). */
static ib_api_status_t send_prep(al_mad_svc_t *p_svc, ib_mad_element_t *e, al_mad_send_t **pp)
{
	al_mad_disp_t *d = p_svc->p_disp;
	al_mad_elem_t *w;
	al_mad_send_t *s;
	ib_mad_t *p_mad;
	ib_pd_handle_t h_pd;
	boolean_t rmpp;
	ib_api_status_t st;

	if (!al_mad_elem_is_out(e) || !e->p_mad_buf || e->size < sizeof(ib_mad_t))
		return IB_INVALID_PARAMETER;
	w = al_mad_elem_from_ib(e);
	if (__atomic_load_n(&w->svc_context, __ATOMIC_ACQUIRE))
		return IB_INVALID_PARAMETER; /* already being sent */
	p_mad = e->p_mad_buf;
	if (e->rmpp_version > 1)
		return IB_INVALID_SETTING;
	rmpp = al_rmpp_use(p_svc, p_mad, e);
	if (!rmpp && e->size > MAD_BLOCK_SIZE)
		return IB_INVALID_SETTING;
	if (rmpp && e->size > (uint32_t)AL_RMPP_MAX_SEGS * MAD_RMPP_DATA_SIZE)
		return IB_INVALID_SETTING;
	if (!send_claim(w))
		return IB_INVALID_PARAMETER;
	s = &w->send;
	memset(s, 0, sizeof(*s));
	if (e->h_av) {
		st = ib_query_av(e->h_av, &s->av, &h_pd);
		if (st != IB_SUCCESS) {
			send_release(w);
			return IB_INVALID_AV_HANDLE;
		}
	} else {
		s->av.dlid = e->remote_lid;
		s->av.sl = e->remote_sl;
		s->av.path_bits = e->path_bits;
		s->av.grh_valid = e->grh_valid && e->p_grh;
		if (s->av.grh_valid) {
			/* The element's GRH is the received one: reverse it. */
			s->av.grh = *e->p_grh;
			s->av.grh.dest_gid = e->p_grh->src_gid;
			s->av.grh.src_gid = e->p_grh->dest_gid;
			s->av.grh.hop_limit = 0xFF;
		}
	}
	s->av.port_num = d->port_num;
	s->p_elem = e;
	s->p_svc = p_svc;
	s->state = AL_MAD_SEND_QUEUED;
	s->retries_left = e->resp_expected ? e->retry_cnt : 0;
	s->rmpp = rmpp;
	if (!ib_mad_is_response(p_mad) && p_svc->svc.svc_type != IB_MAD_SVC_RAW)
		/* The access layer owns the upper half of request TIDs. */
		p_mad->trans_id = (p_mad->trans_id & CL_HTON64(0xFFFFFFFFull)) |
				  cl_hton64((uint64_t)p_svc->client_id << 32);
	s->tid = p_mad->trans_id;
	if (rmpp)
		al_rmpp_send_init(p_svc, s);
	*pp = s;
	return IB_SUCCESS;
}

ib_api_status_t ib_send_mad(const ib_mad_svc_handle_t h_mad_svc,
			    ib_mad_element_t *const p_mad_element_list,
			    ib_mad_element_t **pp_mad_failure)
{
	al_mad_svc_t *p_svc = (al_mad_svc_t *)AL_ENTER(h_mad_svc, AL_HDL_MAD_SVC);
	al_mad_disp_t *d;
	ib_mad_element_t *e, *next;
	al_mad_send_t *s;
	ib_api_status_t st = IB_SUCCESS;
	boolean_t poke = FALSE; /* RMPP or a failed post: the dispatcher must look */
	boolean_t locked = FALSE; /* d->lock held since the last one went on d->sends */
	cl_qlist_t run;

	if (!p_svc)
		return IB_INVALID_HANDLE;
	cl_qlist_init(&run);
	if (pp_mad_failure)
		*pp_mad_failure = NULL;
	if (!p_mad_element_list || (p_mad_element_list->p_next && !pp_mad_failure)) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	d = p_svc->p_disp;
	for (e = p_mad_element_list; e; e = next) {
		next = e->p_next;
		if (locked) {
			pthread_mutex_unlock(&d->lock);
			locked = FALSE;
		}
		st = send_prep(p_svc, e, &s);
		if (st == IB_SUCCESS && s->rmpp)
			poke = TRUE;
		if (st != IB_SUCCESS) {
			if (pp_mad_failure)
				*pp_mad_failure = e;
			break;
		}
		pthread_mutex_lock(&d->lock);
		if (!p_svc->listed) {
			pthread_mutex_unlock(&d->lock);
			send_release(al_mad_elem_from_ib(e));
			st = IB_INVALID_HANDLE;
			if (pp_mad_failure)
				*pp_mad_failure = e;
			break;
		}
		cl_qlist_insert_tail(&d->sends, &s->item);
		locked = TRUE; /* kept for the pump after the last one */
	}
	/* Posted from this thread, not the dispatcher's, and the send
	 * completions reaped here too: a hand-over (a wake-up) less per MAD
	 * each. The dispatcher needs waking only for what it alone does: a
	 * failed post, RMPP's windows and timers, a response timer that ends
	 * before it looks again, and a response a direct service gets. */
	if (!locked)
		pthread_mutex_lock(&d->lock);
	d->p_collect = &run;
	pump(d);
	reap_sends(d);
	pump(d);
	arm_sends(d);
	d->p_collect = NULL;
	if (cl_qlist_count(&d->fails) || d->need_poke)
		poke = TRUE;
	d->need_poke = FALSE;
	pthread_mutex_unlock(&d->lock);
	if (run_direct(&run, d))
		poke = TRUE;
	if (poke)
		al_mad_poke(d);
out:
	AL_EXIT(h_mad_svc);
	return st;
}

ib_api_status_t ib_cancel_mad(const ib_mad_svc_handle_t h_mad_svc,
			      ib_mad_element_t *const p_mad_element)
{
	al_mad_svc_t *p_svc = (al_mad_svc_t *)AL_ENTER(h_mad_svc, AL_HDL_MAD_SVC);
	al_mad_disp_t *d;
	cl_list_item_t *it;
	ib_api_status_t st = IB_NOT_FOUND;

	if (!p_svc)
		return IB_INVALID_HANDLE;
	if (!p_mad_element) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	d = p_svc->p_disp;
	pthread_mutex_lock(&d->lock);
	for (it = cl_qlist_head(&d->sends); it != cl_qlist_end(&d->sends); it = cl_qlist_next(it)) {
		al_mad_send_t *s = (al_mad_send_t *)it;

		if (s->p_elem == p_mad_element && s->p_svc == p_svc) {
			if (s->rmpp)
				al_rmpp_abort_send(d, s, IB_RMPP_STATUS_UNSPEC);
			al_mad_send_done(d, s, IB_WCS_CANCELED);
			st = IB_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&d->lock);
	al_mad_poke(d);
out:
	AL_EXIT(h_mad_svc);
	return st;
}

/* ---- ib_local_mad ---- */

ib_api_status_t ib_local_mad(const ib_ca_handle_t h_ca, const uint8_t port_num,
			     const void *const p_mad_in, void *p_mad_out)
{
	al_ca_t *p_ca = (al_ca_t *)AL_ENTER(h_ca, AL_HDL_CA);
	ib_ca_attr_t *p_attr;
	ib_api_status_t st;

	if (!p_ca)
		return IB_INVALID_CA_HANDLE;
	if (!p_mad_in || !p_mad_out) {
		st = IB_INVALID_PARAMETER;
		goto out;
	}
	st = al_ci_ca_query_alloc(p_ca->p_ci, &p_attr);
	if (st != IB_SUCCESS)
		goto out;
	if (!port_num || port_num > p_attr->num_ports)
		st = IB_INVALID_PORT;
	cl_free(p_attr);
	if (st != IB_SUCCESS)
		goto out;
	st = p_ca->p_ci->p_ops->local_mad(p_ca->p_ci->p_prov, port_num, p_mad_in, p_mad_out);
out:
	AL_EXIT(h_ca);
	return st;
}
