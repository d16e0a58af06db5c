/*
 * ibal soft provider: the SA's RMPP sender for GetTableResp/GetMultiResp (IBA 13.6).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A response of n bytes of records goes out in ceil(n / 200) segments (one
 * when n is 0), each carrying the same SA header. The first segment's
 * PayloadLength is the whole payload counted with a 20-byte SA header per
 * segment, the last one's what that segment holds, the others' 0. The
 * sender starts with a window of one segment and sends up to the
 * NewWindowLast of each ACK; ACKs older than the last one are ignored, an
 * ACK beyond the last segment or with a NewWindowLast below its segment
 * aborts the transfer (S2B, W2S). When no ACK advances the transfer within
 * SA_RMPP_TIMEOUT_US the unacknowledged window is sent again, up to
 * SA_RMPP_MAX_RETRIES times, then the transfer is aborted (TMR). The final
 * ACK (of the last segment), a STOP or an ABORT ends it. A request repeated
 * while its answer is in progress (same TID, same requester LID) restarts
 * the answer. Transfers are keyed by TID, requester LID and attribute; an
 * ACK/STOP/ABORT is taken with the response method or with its R bit
 * cleared (the Linux MAD layer flips it in the packets a receiver sends).
 */
#include <stdlib.h>
#include "soft_sa_int.h"

static void xfer_send_seg(soft_sa_t *sa, sa_xfer_t *x, uint32_t seg)
{
	ib_sa_mad_t m;
	size_t off = (size_t)(seg - 1) * SA_SEG_DATA;
	size_t n = x->len > off ? x->len - off : 0;
	uint32_t pad = (uint32_t)(x->nseg * SA_SEG_DATA - x->len);
	uint8_t flags = IB_RMPP_FLAG_ACTIVE;
	uint32_t paylen = 0;

	if (n > SA_SEG_DATA)
		n = SA_SEG_DATA;
	memset(&m, 0, sizeof(m));
	memcpy(&m, x->hdr, IB_SA_MAD_HDR_SIZE);
	if (seg == 1) {
		flags |= IB_RMPP_FLAG_FIRST;
		paylen = x->nseg * (SA_SEG_DATA + SA_HDR_AFTER_RMPP) - pad;
	}
	if (seg == x->nseg) {
		flags |= IB_RMPP_FLAG_LAST;
		paylen = SA_SEG_DATA + SA_HDR_AFTER_RMPP - pad;
		if (seg == 1)
			paylen = x->nseg * (SA_SEG_DATA + SA_HDR_AFTER_RMPP) - pad;
	}
	m.rmpp_version = 1;
	m.rmpp_type = IB_RMPP_TYPE_DATA;
	m.rmpp_flags = (uint8_t)((IB_RMPP_NO_RESP_TIME << 3) | flags);
	m.rmpp_status = 0;
	m.seg_num = cl_hton32(seg);
	m.paylen_newwin = cl_hton32(paylen);
	if (n)
		memcpy(m.data, x->data + off, n);
	soft_sa_send(sa, &m, &x->dst);
	if (seg > x->sent)
		x->sent = seg;
}

/* Sends the segments after the last ACK, up to the window. */
static void xfer_send_window(soft_sa_t *sa, sa_xfer_t *x, bool again)
{
	uint32_t s = again ? x->acked + 1 : x->sent + 1;

	for (; s <= x->win_last && s <= x->nseg; s++)
		xfer_send_seg(sa, x, s);
}

static void xfer_unlink(soft_sa_t *sa, sa_xfer_t *x)
{
	sa_xfer_t **pp;

	for (pp = &sa->xfers; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			sa->n_xfers--;
			break;
		}
	free(x->data);
	free(x);
}

static void xfer_abort(soft_sa_t *sa, sa_xfer_t *x, uint8_t status)
{
	ib_sa_mad_t m;

	memset(&m, 0, sizeof(m));
	memcpy(&m, x->hdr, IB_SA_MAD_HDR_SIZE);
	m.rmpp_version = 1;
	m.rmpp_type = IB_RMPP_TYPE_ABORT;
	m.rmpp_flags = (uint8_t)((IB_RMPP_NO_RESP_TIME << 3) | IB_RMPP_FLAG_ACTIVE);
	m.rmpp_status = status;
	m.seg_num = 0;
	m.paylen_newwin = 0;
	soft_sa_send(sa, &m, &x->dst);
	xfer_unlink(sa, x);
}

static sa_xfer_t *xfer_find(soft_sa_t *sa, const ib_sa_mad_t *mad, const soft_mad_addr_t *src)
{
	sa_xfer_t *x;

	for (x = sa->xfers; x; x = x->next) {
		const ib_sa_mad_t *h = (const ib_sa_mad_t *)x->hdr;

		if (h->trans_id == mad->trans_id && x->dst.lid == src->lid && h->attr_id == mad->attr_id)
			return x;
	}
	return NULL;
}

bool soft_sa_rmpp_start(soft_sa_t *sa, const ib_sa_mad_t *hdr, uint8_t *data, size_t len,
		   const soft_mad_addr_t *dst)
{
	sa_xfer_t *x;

	/* A request sent again (same TID from the same port) restarts its answer. */
	x = xfer_find(sa, hdr, dst);
	if (x)
		xfer_unlink(sa, x);
	if (sa->n_xfers >= SA_RMPP_MAX_XFERS || !(x = calloc(1, sizeof(*x)))) {
		free(data);
		return false;
	}
	memcpy(x->hdr, hdr, IB_SA_MAD_HDR_SIZE);
	x->data = data;
	x->len = data ? len : 0;
	x->dst = *dst;
	x->nseg = x->len ? (uint32_t)((x->len + SA_SEG_DATA - 1) / SA_SEG_DATA) : 1;
	x->win_last = 1;
	x->next = sa->xfers;
	sa->xfers = x;
	sa->n_xfers++;
	xfer_send_window(sa, x, false);
	x->deadline = soft_sa_now(sa) + SA_RMPP_TIMEOUT_US;
	return true;
}

void soft_sa_rmpp_recv(soft_sa_t *sa, const ib_sa_mad_t *mad, const soft_mad_addr_t *src)
{
	sa_xfer_t *x = xfer_find(sa, mad, src);
	uint32_t seg, win;

	if (!x)
		return;
	switch (mad->rmpp_type) {
	case IB_RMPP_TYPE_ACK:
		seg = cl_ntoh32(mad->seg_num);
		win = cl_ntoh32(mad->paylen_newwin);
		if (seg < x->acked)
			return; /* an old ACK */
		if (seg > x->nseg || seg > x->sent) {
			xfer_abort(sa, x, IB_RMPP_STATUS_S2B);
			return;
		}
		if (win < seg) {
			xfer_abort(sa, x, IB_RMPP_STATUS_W2S);
			return;
		}
		if (seg == x->nseg) {
			xfer_unlink(sa, x); /* complete */
			return;
		}
		if (seg > x->acked || win > x->win_last)
			x->retries = 0;
		x->acked = seg;
		if (win > x->win_last)
			x->win_last = win > x->nseg ? x->nseg : win;
		xfer_send_window(sa, x, false);
		x->deadline = soft_sa_now(sa) + SA_RMPP_TIMEOUT_US;
		break;
	case IB_RMPP_TYPE_STOP:
	case IB_RMPP_TYPE_ABORT:
		xfer_unlink(sa, x);
		break;
	default:
		xfer_abort(sa, x, IB_RMPP_STATUS_BADT);
		break;
	}
}

uint64_t soft_sa_rmpp_timer(soft_sa_t *sa, uint64_t now)
{
	sa_xfer_t *x, *nx;
	uint64_t next = UINT64_MAX;

	for (x = sa->xfers; x; x = nx) {
		nx = x->next;
		if (x->deadline <= now) {
			if (x->retries >= SA_RMPP_MAX_RETRIES) {
				xfer_abort(sa, x, IB_RMPP_STATUS_TMR);
				continue;
			}
			x->retries++;
			xfer_send_window(sa, x, true);
			x->deadline = now + SA_RMPP_TIMEOUT_US;
		}
		if (x->deadline < next)
			next = x->deadline;
	}
	return next;
}

void soft_sa_rmpp_free_all(soft_sa_t *sa)
{
	while (sa->xfers)
		xfer_unlink(sa, sa->xfers);
}
