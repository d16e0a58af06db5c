/*
 * ibal access layer: RMPP (IBA 13.6) for MAD services: segmentation, windows, retransmission, reassembly.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Segments carry the class's header (hdr_len bytes: 56 for SA, 40 for the
 * vendor classes of the high range, 36 otherwise) followed by 256 - hdr_len
 * bytes of data, as the Linux kernel's MAD layer lays them out, so the
 * element given to ib_send_mad() (and the reassembled one a receiver gets)
 * is the class header once, then the data. PayloadLength is the data plus
 * the class header past the RMPP header, in the first segment (whole
 * transfer) and the last one (its own part); middle segments carry 0.
 *
 * Sender: the window starts at 1 segment and grows to the receiver's
 * NewWindowLast with each ACK; once the window is posted and sent, a timer
 * of the element's timeout_ms runs; on expiry the window is resent from
 * the last acknowledged segment, up to retry_cnt times (reset by every ACK
 * that acknowledges something new), then the send fails with
 * IB_WCS_TIMEOUT_RETRY_ERR after an ABORT (status TMR). STOP or ABORT from
 * the receiver fails it with IB_WCS_REM_ABORT_ERR.
 *
 * Receiver: segments in order are copied into one element; the first, the
 * last and every segment ending the window are acknowledged (the window
 * then grows by AL_RMPP_WINDOW); a duplicate or a gap is answered with an
 * ACK of what arrived so far (once per gap). A bad RMPP version, type,
 * first-flag/segment number or length aborts the transfer with the
 * matching status. A transfer idle for AL_RMPP_RX_TIMEOUT_MS is dropped; a
 * finished one is remembered for AL_RMPP_LINGER_MS to re-ACK its last
 * segment.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_mad_int.h"

/* Idle time after which a reassembly is abandoned. */
#define AL_RMPP_RX_TIMEOUT_MS 10000u
/* RRespTime "none" in the flags byte. */
#define RMPP_NO_RTIME ((uint8_t)(IB_RMPP_NO_RESP_TIME << 3))

boolean_t al_rmpp_class(uint8_t c)
{
	return c == IB_MCLASS_SUBN_ADM || (c >= 0x30 && c <= 0x4F);
}

uint32_t al_rmpp_hdr_len(uint8_t c)
{
	if (c == IB_MCLASS_SUBN_ADM)
		return 56;
	if (c >= 0x30 && c <= 0x4F)
		return 40;
	return MAD_RMPP_HDR_SIZE;
}

static uint32_t data_per(uint8_t c)
{
	return MAD_BLOCK_SIZE - al_rmpp_hdr_len(c);
}

boolean_t al_rmpp_use(const al_mad_svc_t *p_svc, const ib_mad_t *p_mad, const ib_mad_element_t *e)
{
	switch (p_svc->svc.svc_type) {
	case IB_MAD_SVC_RMPP:
		return e->rmpp_version != 0;
	case IB_MAD_SVC_DEFAULT:
		if (p_mad->mgmt_class == IB_MCLASS_SUBN_ADM)
			return e->rmpp_version || e->size > MAD_BLOCK_SIZE ||
			       p_mad->method == IB_MAD_METHOD_GETTABLE_RESP ||
			       p_mad->method == IB_MAD_METHOD_GETMULTI ||
			       p_mad->method == IB_MAD_METHOD_GETMULTI_RESP ||
			       p_mad->method == (IB_MAD_METHOD_GETTRACETABLE | IB_MAD_METHOD_RESP_MASK);
		return al_rmpp_class(p_mad->mgmt_class) && e->rmpp_version;
	default:
		return FALSE;
	}
}

boolean_t al_rmpp_rx_active(const al_mad_svc_t *p_svc, const uint8_t *mad, size_t len)
{
	const ib_rmpp_mad_t *r = (const ib_rmpp_mad_t *)mad;

	if (p_svc->svc.svc_type == IB_MAD_SVC_RAW || len < MAD_RMPP_HDR_SIZE)
		return FALSE;
	if (p_svc->svc.svc_type == IB_MAD_SVC_DEFAULT && !al_rmpp_class(r->common_hdr.mgmt_class))
		return FALSE;
	return (r->rmpp_flags & IB_RMPP_FLAG_ACTIVE) != 0 && r->rmpp_version != 0;
}

static uint32_t e_timeout_us(const ib_mad_element_t *e)
{
	return (e->timeout_ms ? e->timeout_ms : AL_RMPP_DEFAULT_TIMEOUT_MS) * 1000u;
}

static uint32_t e_retries(const ib_mad_element_t *e)
{
	return e->retry_cnt ? e->retry_cnt : AL_RMPP_DEFAULT_RETRIES;
}

/* ---- Sender ---- */

void al_rmpp_send_init(al_mad_svc_t *p_svc, al_mad_send_t *s)
{
	ib_mad_element_t *e = s->p_elem;
	uint8_t c = e->p_mad_buf->mgmt_class;
	uint32_t hdr = al_rmpp_hdr_len(c), total = e->size > hdr ? e->size - hdr : 0;

	(void)p_svc;
	s->seg_count = total ? (total + data_per(c) - 1) / data_per(c) : 1;
	s->seg_next = 1;
	s->seg_acked = 0;
	s->win_last = 1;
	s->ack_done = FALSE;
	s->retries_left = e_retries(e);
}

/* Builds segment i of s into buf. */
static void build_seg(const al_mad_send_t *s, uint32_t i, uint8_t *buf)
{
	const ib_mad_element_t *e = s->p_elem;
	uint8_t c = e->p_mad_buf->mgmt_class;
	uint32_t hdr = al_rmpp_hdr_len(c), per = data_per(c);
	uint32_t total = e->size > hdr ? e->size - hdr : 0, off = (i - 1) * per;
	uint32_t n = total > off ? (total - off < per ? total - off : per) : 0;
	ib_rmpp_mad_t *r = (ib_rmpp_mad_t *)buf;

	memset(buf, 0, MAD_BLOCK_SIZE);
	memcpy(buf, e->p_mad_buf, e->size < hdr ? e->size : hdr);
	r->rmpp_version = 1;
	r->rmpp_type = IB_RMPP_TYPE_DATA;
	r->rmpp_flags = (uint8_t)(RMPP_NO_RTIME | IB_RMPP_FLAG_ACTIVE |
				  (i == 1 ? IB_RMPP_FLAG_FIRST : 0) |
				  (i == s->seg_count ? IB_RMPP_FLAG_LAST : 0));
	r->rmpp_status = 0;
	r->seg_num = cl_hton32(i);
	if (i == 1)
		r->paylen_newwin = cl_hton32(total + hdr - MAD_RMPP_HDR_SIZE);
	else if (i == s->seg_count)
		r->paylen_newwin = cl_hton32(n + hdr - MAD_RMPP_HDR_SIZE);
	else
		r->paylen_newwin = 0;
	if (n)
		memcpy(buf + hdr, (const uint8_t *)e->p_mad_buf + hdr + off, n);
}

void al_rmpp_pump(al_mad_disp_t *d, al_mad_send_t *s)
{
	ib_mad_element_t *e = s->p_elem;
	uint32_t last = s->win_last < s->seg_count ? s->win_last : s->seg_count;
	int slot;

	if (s->ack_done)
		return;
	while (s->seg_next <= last && d->n_free_slots) {
		slot = al_mad_slot_take(d);
		build_seg(s, s->seg_next, al_mad_slot_buf(d, slot));
		d->slots[slot].p_send = s;
		s->n_posted++;
		s->seg_next++;
		s->state = AL_MAD_SEND_POSTED;
		s->deadline_us = 0;
		if (al_mad_post(d, slot, MAD_BLOCK_SIZE, &s->av, e->remote_qp,
				al_mad_send_qkey(d, e), e->pkey_index) != IB_SUCCESS)
			al_mad_slot_fail(d, slot);
	}
}

/* Everything posted has completed: wait for an ACK, the response, or end. */
static void settle(al_mad_disp_t *d, al_mad_send_t *s)
{
	ib_mad_element_t *e = s->p_elem;

	if (s->n_posted)
		return;
	if (s->ack_done) {
		if (s->p_resp || !e->resp_expected) {
			al_mad_send_done(d, s, IB_WCS_SUCCESS);
			return;
		}
		s->state = AL_MAD_SEND_WAIT_RESP;
		s->deadline_us = al_mad_now_us() + (uint64_t)e->timeout_ms * 1000u;
		return;
	}
	if (s->seg_next <= s->win_last && s->seg_next <= s->seg_count) {
		s->state = AL_MAD_SEND_QUEUED;
		return;
	}
	s->state = AL_MAD_SEND_WAIT_RESP;
	s->deadline_us = al_mad_now_us() + e_timeout_us(e);
}

void al_rmpp_sent(al_mad_disp_t *d, al_mad_send_t *s)
{
	if (s->p_resp)
		s->ack_done = TRUE;
	settle(d, s);
}

void al_rmpp_retry(al_mad_disp_t *d, al_mad_send_t *s)
{
	(void)d;
	if (s->ack_done) {
		/* The response did not come: the whole transfer again. */
		s->ack_done = FALSE;
		s->seg_acked = 0;
		s->win_last = 1;
	}
	s->seg_next = s->seg_acked + 1;
	s->state = AL_MAD_SEND_QUEUED;
	s->deadline_us = 0;
}

/* An RMPP control MAD (ACK/ABORT/STOP) answering the header at hdr_src. */
static void send_ctl(al_mad_disp_t *d, const uint8_t *hdr_src, uint8_t type, uint8_t status,
		     uint32_t seg, uint32_t win, boolean_t flip, const ib_av_attr_t *av,
		     ib_net32_t rqp, uint16_t pkey_index)
{
	uint8_t out[MAD_BLOCK_SIZE];
	ib_rmpp_mad_t *r = (ib_rmpp_mad_t *)out;
	uint32_t hdr = al_rmpp_hdr_len(((const ib_mad_t *)hdr_src)->mgmt_class);

	memset(out, 0, sizeof(out));
	memcpy(out, hdr_src, hdr);
	if (flip)
		r->common_hdr.method ^= IB_MAD_METHOD_RESP_MASK;
	r->rmpp_version = 1;
	r->rmpp_type = type;
	r->rmpp_flags = RMPP_NO_RTIME | IB_RMPP_FLAG_ACTIVE;
	r->rmpp_status = status;
	r->seg_num = cl_hton32(seg);
	r->paylen_newwin = cl_hton32(win);
	al_mad_queue_reply(d, out, MAD_BLOCK_SIZE, av, rqp, pkey_index);
}

void al_rmpp_abort_send(al_mad_disp_t *d, al_mad_send_t *s, uint8_t status)
{
	if (!s->sent_once && !s->n_posted)
		return; /* the receiver never heard of it */
	send_ctl(d, (const uint8_t *)s->p_elem->p_mad_buf, IB_RMPP_TYPE_ABORT, status, 0, 0, FALSE,
		 &s->av, s->p_elem->remote_qp, s->p_elem->pkey_index);
}

void al_rmpp_rx_ctl(al_mad_disp_t *d, al_mad_send_t *s, const ib_wc_t *wc, const uint8_t *buf)
{
	const ib_rmpp_mad_t *r = (const ib_rmpp_mad_t *)(buf + sizeof(ib_grh_t));
	uint32_t a, w;

	(void)wc;
	if (r->rmpp_type == IB_RMPP_TYPE_STOP || r->rmpp_type == IB_RMPP_TYPE_ABORT) {
		al_mad_send_done(d, s, IB_WCS_REM_ABORT_ERR);
		return;
	}
	if (r->rmpp_type != IB_RMPP_TYPE_ACK || s->ack_done)
		return;
	a = cl_ntoh32(r->seg_num);
	w = cl_ntoh32(r->paylen_newwin);
	if (a > s->seg_count || w < a) {
		al_rmpp_abort_send(d, s, a > s->seg_count ? IB_RMPP_STATUS_S2B : IB_RMPP_STATUS_W2S);
		al_mad_send_done(d, s, IB_WCS_REM_ABORT_ERR);
		return;
	}
	if (a > s->seg_acked) {
		s->seg_acked = a;
		s->retries_left = e_retries(s->p_elem);
	}
	if (w > s->win_last)
		s->win_last = w;
	if (s->seg_next <= s->seg_acked)
		s->seg_next = s->seg_acked + 1;
	if (s->seg_acked >= s->seg_count)
		s->ack_done = TRUE;
	if (s->state == AL_MAD_SEND_WAIT_RESP) {
		s->deadline_us = 0;
		s->state = AL_MAD_SEND_QUEUED;
	}
	settle(d, s);
}

/* ---- Receiver ---- */

static al_rmpp_rx_t *rx_find(al_mad_disp_t *d, const ib_mad_t *p_mad, ib_net16_t slid)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&d->rmpp_rx); it != cl_qlist_end(&d->rmpp_rx); it = cl_qlist_next(it)) {
		al_rmpp_rx_t *x = (al_rmpp_rx_t *)it;

		if (x->tid == p_mad->trans_id && x->slid == slid && x->mgmt_class == p_mad->mgmt_class)
			return x;
	}
	return NULL;
}

boolean_t al_rmpp_rx_known(al_mad_disp_t *d, const ib_mad_t *p_mad, ib_net16_t slid)
{
	return rx_find(d, p_mad, slid) != NULL;
}

static void rx_free(al_mad_disp_t *d, al_rmpp_rx_t *x)
{
	cl_qlist_remove_item(&d->rmpp_rx, &x->item);
	if (x->p_elem)
		al_mad_pool_put(al_mad_elem_from_ib(x->p_elem));
	cl_free(x);
}

/* ACK/ABORT back to the source of a received segment. */
static void rx_ctl(al_mad_disp_t *d, const ib_wc_t *wc, const uint8_t *buf, uint8_t type,
		   uint8_t status, uint32_t seg, uint32_t win)
{
	ib_av_attr_t av;

	al_mad_reply_av(wc, buf, &av);
	send_ctl(d, buf + sizeof(ib_grh_t), type, status, seg, win, TRUE, &av, wc->recv.ud.remote_qp,
		 wc->recv.ud.pkey_index);
}

/* Copies n bytes at off into the reassembly, growing its element. */
static boolean_t rx_put(al_rmpp_rx_t *x, size_t off, const uint8_t *src, size_t n)
{
	ib_mad_element_t *e = x->p_elem;

	if (off + n > e->size &&
	    al_mad_elem_resize(al_mad_elem_from_ib(e), off + n) != IB_SUCCESS)
		return FALSE;
	memcpy((uint8_t *)e->p_mad_buf + off, src, n);
	return TRUE;
}

/* The transfer is whole: deliver it. */
static void rx_done(al_mad_disp_t *d, al_rmpp_rx_t *x, uint32_t seg, size_t size)
{
	ib_mad_element_t *e = x->p_elem;
	al_mad_send_t *p_req = x->p_req;

	al_mad_elem_resize(al_mad_elem_from_ib(e), size);
	x->p_elem = NULL;
	x->done = TRUE;
	x->last_seg = seg;
	x->p_req = NULL;
	x->expire_us = al_mad_now_us() + AL_RMPP_LINGER_MS * 1000u;
	if (p_req)
		al_mad_send_responded(d, p_req, e);
	else
		al_mad_queue_cb(x->p_svc, e, TRUE);
}

/* A new transfer starts with segment 1. */
static al_rmpp_rx_t *rx_new(al_mad_disp_t *d, al_mad_svc_t *p_svc, al_mad_send_t *p_req,
			    const ib_wc_t *wc, const uint8_t *buf, size_t len)
{
	const ib_rmpp_mad_t *r = (const ib_rmpp_mad_t *)(buf + sizeof(ib_grh_t));
	uint8_t c = r->common_hdr.mgmt_class;
	uint32_t hdr = al_rmpp_hdr_len(c);
	uint32_t pay = cl_ntoh32(r->paylen_newwin);
	size_t want = MAD_BLOCK_SIZE;
	al_rmpp_rx_t *x;

	if (pay >= hdr - MAD_RMPP_HDR_SIZE &&
	    pay - (hdr - MAD_RMPP_HDR_SIZE) <= (size_t)AL_RMPP_MAX_SEGS * data_per(c))
		want = hdr + pay - (hdr - MAD_RMPP_HDR_SIZE);
	if (want < len)
		want = len;
	x = (al_rmpp_rx_t *)cl_zalloc(sizeof(*x));
	if (!x)
		return NULL;
	x->p_elem = al_mad_rx_elem(p_svc, wc, buf, want);
	if (!x->p_elem) {
		cl_free(x);
		return NULL;
	}
	x->tid = r->common_hdr.trans_id;
	x->slid = wc->recv.ud.remote_lid;
	x->sqp = wc->recv.ud.remote_qp;
	x->mgmt_class = c;
	x->p_svc = p_svc;
	x->p_req = p_req;
	x->expected = 1;
	x->win_last = AL_RMPP_WINDOW;
	cl_qlist_insert_tail(&d->rmpp_rx, &x->item);
	if (p_req) {
		/* The response has started: the request's timer stops. */
		p_req->deadline_us = 0;
		p_req->resp_started = TRUE;
	}
	return x;
}

/* The status an ABORT gives a received segment's RMPP header, or 0 when it
 * is a sound DATA segment (version 1, FIRST set on segment 1 only). */
static uint8_t seg_hdr_status(const ib_rmpp_mad_t *r, uint32_t seg)
{
	if (r->rmpp_version != 1)
		return IB_RMPP_STATUS_UNV;
	if (r->rmpp_type != IB_RMPP_TYPE_DATA)
		return IB_RMPP_STATUS_BADT;
	if ((seg == 1) != ((r->rmpp_flags & IB_RMPP_FLAG_FIRST) != 0) || !seg)
		return IB_RMPP_STATUS_BAD_SEG;
	return 0;
}

/* Ends a reassembly that will not complete (x may be NULL); the request it
 * answers (x's, else p_req) completes with IB_WCS_REM_ABORT_ERR. */
static void rx_abandon(al_mad_disp_t *d, al_rmpp_rx_t *x, al_mad_send_t *p_req)
{
	if (x) {
		p_req = x->p_req;
		x->p_req = NULL;
		rx_free(d, x);
	}
	if (p_req)
		al_mad_send_done(d, p_req, IB_WCS_REM_ABORT_ERR);
}

/* The last segment (already stored): checks its payload length, ACKs it and
 * delivers the whole; FALSE (after an ABORT) when the length is bad. */
static boolean_t rx_last(al_mad_disp_t *d, al_rmpp_rx_t *x, const ib_wc_t *wc, const uint8_t *buf,
			 uint32_t seg)
{
	const ib_rmpp_mad_t *r = (const ib_rmpp_mad_t *)(buf + sizeof(ib_grh_t));
	uint8_t c = r->common_hdr.mgmt_class;
	uint32_t hdr = al_rmpp_hdr_len(c), per = data_per(c), pay = cl_ntoh32(r->paylen_newwin);

	if (pay < hdr - MAD_RMPP_HDR_SIZE || pay - (hdr - MAD_RMPP_HDR_SIZE) > per) {
		rx_ctl(d, wc, buf, IB_RMPP_TYPE_ABORT, IB_RMPP_STATUS_BAD_LEN, 0, 0);
		return FALSE;
	}
	rx_ctl(d, wc, buf, IB_RMPP_TYPE_ACK, 0, seg, seg);
	rx_done(d, x, seg, hdr + (size_t)(seg - 1) * per + (pay - (hdr - MAD_RMPP_HDR_SIZE)));
	return TRUE;
}

/* The reassembly a sound DATA segment belongs to: x, or a new one for a
 * first segment (also when x is a finished transfer whose TID is reused);
 * NULL when the segment is handled here (a finished transfer's duplicate is
 * ACKed again, a stale segment dropped, no memory answered with STOP). */
static al_rmpp_rx_t *rx_of_seg(al_mad_disp_t *d, al_rmpp_rx_t *x, al_mad_svc_t *p_svc,
			       al_mad_send_t *p_req, const ib_wc_t *wc, const uint8_t *buf,
			       size_t len, uint32_t seg)
{
	if (x && x->done) {
		if (seg != 1 || x->last_seg == 1) {
			rx_ctl(d, wc, buf, IB_RMPP_TYPE_ACK, 0, x->last_seg, x->last_seg);
			return NULL;
		}
		/* A new transfer reusing the TID after the last one ended. */
		rx_free(d, x);
		x = NULL;
	}
	if (x)
		return x;
	if (seg != 1) {
		d->n_drop_bad++; /* a stale segment of an abandoned transfer */
		return NULL;
	}
	x = rx_new(d, p_svc, p_req, wc, buf, len);
	if (!x)
		rx_ctl(d, wc, buf, IB_RMPP_TYPE_STOP, IB_RMPP_STATUS_RESX, 0, 0);
	return x;
}

void al_rmpp_rx(al_mad_disp_t *d, al_mad_svc_t *p_svc, al_mad_send_t *p_req, const ib_wc_t *wc,
		const uint8_t *buf, size_t len)
{
	const ib_rmpp_mad_t *r = (const ib_rmpp_mad_t *)(buf + sizeof(ib_grh_t));
	uint8_t c = r->common_hdr.mgmt_class;
	uint32_t hdr = al_rmpp_hdr_len(c), per = data_per(c), seg;
	al_rmpp_rx_t *x = rx_find(d, &r->common_hdr, wc->recv.ud.remote_lid);
	uint8_t bad;

	if (len < MAD_RMPP_HDR_SIZE) {
		d->n_drop_bad++;
		return;
	}
	if (r->rmpp_type == IB_RMPP_TYPE_ABORT || r->rmpp_type == IB_RMPP_TYPE_STOP) {
		if (x && !x->done)
			rx_abandon(d, x, NULL);
		return;
	}
	if (!p_svc) {
		/* A response whose request is over: re-ACK a finished transfer. */
		if (x && x->done && (r->rmpp_flags & IB_RMPP_FLAG_ACTIVE))
			rx_ctl(d, wc, buf, IB_RMPP_TYPE_ACK, 0, x->last_seg, x->last_seg);
		else
			d->n_drop_no_svc++;
		return;
	}
	seg = cl_ntoh32(r->seg_num);
	bad = seg_hdr_status(r, seg);
	if (bad) {
		rx_ctl(d, wc, buf, IB_RMPP_TYPE_ABORT, bad, 0, 0);
		goto drop;
	}
	x = rx_of_seg(d, x, p_svc, p_req, wc, buf, len, seg);
	if (!x)
		return;
	x->expire_us = al_mad_now_us() + AL_RMPP_RX_TIMEOUT_MS * 1000u;
	if (seg != x->expected) {
		if (seg > x->win_last) {
			rx_ctl(d, wc, buf, IB_RMPP_TYPE_ABORT, IB_RMPP_STATUS_S2B, 0, 0);
			goto drop;
		}
		/* Duplicate, or a gap: tell the sender where we are, once per gap. */
		if (seg < x->expected || x->last_seg != x->expected) {
			x->last_seg = x->expected;
			rx_ctl(d, wc, buf, IB_RMPP_TYPE_ACK, 0, x->expected - 1, x->win_last);
		}
		return;
	}
	if (seg > AL_RMPP_MAX_SEGS) {
		rx_ctl(d, wc, buf, IB_RMPP_TYPE_STOP, IB_RMPP_STATUS_RESX, 0, 0);
		goto drop;
	}
	if (seg == 1 && !rx_put(x, 0, (const uint8_t *)r, hdr))
		goto resx;
	if (!rx_put(x, hdr + (size_t)(seg - 1) * per, (const uint8_t *)r + hdr,
		    len > hdr ? (len - hdr < per ? len - hdr : per) : 0))
		goto resx;
	x->expected = seg + 1;
	if (r->rmpp_flags & IB_RMPP_FLAG_LAST) {
		if (!rx_last(d, x, wc, buf, seg))
			goto drop;
		return;
	}
	if (seg == 1 || seg == x->win_last) {
		if (seg == x->win_last)
			x->win_last = seg + AL_RMPP_WINDOW;
		rx_ctl(d, wc, buf, IB_RMPP_TYPE_ACK, 0, seg, x->win_last);
	}
	return;
resx:
	rx_ctl(d, wc, buf, IB_RMPP_TYPE_STOP, IB_RMPP_STATUS_RESX, 0, 0);
drop:
	d->n_drop_bad++;
	rx_abandon(d, x, p_req);
}

uint64_t al_rmpp_timers(al_mad_disp_t *d, uint64_t now, uint64_t soonest)
{
	cl_list_item_t *it, *next;

	for (it = cl_qlist_head(&d->rmpp_rx); it != cl_qlist_end(&d->rmpp_rx); it = next) {
		al_rmpp_rx_t *x = (al_rmpp_rx_t *)it;
		al_mad_send_t *p_req;

		next = cl_qlist_next(it);
		if (x->expire_us > now) {
			if (!soonest || x->expire_us < soonest)
				soonest = x->expire_us;
			continue;
		}
		p_req = x->p_req;
		x->p_req = NULL;
		rx_free(d, x);
		if (p_req)
			al_mad_send_done(d, p_req, IB_WCS_TIMEOUT_RETRY_ERR);
		next = cl_qlist_head(&d->rmpp_rx); /* send_done may have freed others */
	}
	return soonest;
}

void al_rmpp_forget_svc(al_mad_disp_t *d, al_mad_svc_t *p_svc)
{
	cl_list_item_t *it, *next;

	for (it = cl_qlist_head(&d->rmpp_rx); it != cl_qlist_end(&d->rmpp_rx); it = next) {
		al_rmpp_rx_t *x = (al_rmpp_rx_t *)it;

		next = cl_qlist_next(it);
		if (x->p_svc == p_svc)
			rx_free(d, x);
	}
}

void al_rmpp_forget_req(al_mad_disp_t *d, al_mad_send_t *s)
{
	cl_list_item_t *it, *next;

	for (it = cl_qlist_head(&d->rmpp_rx); it != cl_qlist_end(&d->rmpp_rx); it = next) {
		al_rmpp_rx_t *x = (al_rmpp_rx_t *)it;

		next = cl_qlist_next(it);
		if (x->p_req == s) {
			x->p_req = NULL;
			if (!x->done)
				rx_free(d, x);
		}
	}
}

void al_rmpp_free_all(al_mad_disp_t *d)
{
	while (cl_qlist_count(&d->rmpp_rx))
		rx_free(d, (al_rmpp_rx_t *)cl_qlist_head(&d->rmpp_rx));
}
