/*
 * ibal access layer: dispatch of received MADs (responses by TID, requests by class/version/method).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Order of the checks for one received MAD (docs/mad.md, "Dispatch"):
 * too short or base version not 1: dropped (counted); RMPP ACK/STOP/ABORT
 * matching one of our RMPP sends by TID: to the sender; a response (R bit
 * or TrapRepress) matching an outstanding request by TID and class: to
 * that request's service (reassembled first when RMPP-active); otherwise
 * dropped. A request: to the service registered for (class, class
 * version, method); with none, a GetResp with status "unsupported class
 * or version" (no service has the class and version) or "method
 * unsupported" is sent back, except for methods that take no response
 * (Send, Trap, TrapRepress) and directed-route SMPs, which are dropped.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_mad_int.h"

void al_mad_reply_av(const ib_wc_t *wc, const uint8_t *buf, ib_av_attr_t *av)
{
	const ib_grh_t *g = (const ib_grh_t *)buf;

	memset(av, 0, sizeof(*av));
	av->dlid = wc->recv.ud.remote_lid;
	av->sl = wc->recv.ud.remote_sl;
	av->path_bits = wc->recv.ud.path_bits;
	if (wc->recv.ud.recv_opt & IB_RECV_OPT_GRH_VALID) {
		av->grh_valid = TRUE;
		av->grh.ver_class_flow = g->ver_class_flow;
		av->grh.hop_limit = 0xFF;
		av->grh.src_gid = g->dest_gid;
		av->grh.dest_gid = g->src_gid;
	}
}

ib_mad_element_t *al_mad_rx_elem(al_mad_svc_t *p_svc, const ib_wc_t *wc, const uint8_t *buf,
				 size_t size)
{
	al_mad_elem_t *w;
	ib_mad_element_t *e;

	if (!p_svc->p_qp->p_key ||
	    al_mad_pool_get(p_svc->p_qp->p_key, size < MAD_BLOCK_SIZE ? MAD_BLOCK_SIZE : size,
			    &w) != IB_SUCCESS)
		return NULL;
	e = &w->element;
	e->size = (uint32_t)size;
	e->remote_qp = wc->recv.ud.remote_qp;
	e->remote_lid = wc->recv.ud.remote_lid;
	e->remote_sl = wc->recv.ud.remote_sl;
	e->path_bits = wc->recv.ud.path_bits;
	e->pkey_index = wc->recv.ud.pkey_index;
	e->recv_opt = wc->recv.ud.recv_opt;
	e->immediate_data = wc->recv.ud.immediate_data;
	e->remote_qkey = p_svc->p_disp->type == IB_QPT_QP1 ? IB_QP1_WELL_KNOWN_Q_KEY : 0;
	e->status = IB_WCS_SUCCESS;
	e->grh_valid = (wc->recv.ud.recv_opt & IB_RECV_OPT_GRH_VALID) != 0;
	if (e->grh_valid && e->p_grh)
		memcpy(e->p_grh, buf, sizeof(ib_grh_t));
	return e;
}

al_mad_send_t *al_mad_find_send(al_mad_disp_t *d, const ib_mad_t *p_mad, boolean_t rmpp_ctl)
{
	cl_list_item_t *it;

	for (it = cl_qlist_head(&d->sends); it != cl_qlist_end(&d->sends); it = cl_qlist_next(it)) {
		al_mad_send_t *s = (al_mad_send_t *)it;
		const ib_mad_t *p_req = s->p_elem->p_mad_buf;

		if (s->tid != p_mad->trans_id || p_req->mgmt_class != p_mad->mgmt_class)
			continue;
		if (rmpp_ctl ? s->rmpp : (s->p_elem->resp_expected && !ib_mad_is_response(p_req)))
			return s;
	}
	return NULL;
}

/* Whether a request with this method gets an answer. */
static boolean_t wants_reply(const ib_mad_t *p_mad)
{
	return p_mad->method != IB_MAD_METHOD_SEND && p_mad->method != IB_MAD_METHOD_TRAP &&
	       p_mad->method != IB_MAD_METHOD_TRAP_REPRESS &&
	       p_mad->mgmt_class != IB_MCLASS_SUBN_DIR;
}

static void reply_unsup(al_mad_disp_t *d, const ib_wc_t *wc, const uint8_t *buf, size_t len,
			ib_net16_t status)
{
	uint8_t out[MAD_BLOCK_SIZE];
	ib_mad_t *p_out = (ib_mad_t *)out;
	ib_av_attr_t av;

	memset(out, 0, sizeof(out));
	memcpy(out, buf + sizeof(ib_grh_t), len);
	p_out->method = IB_MAD_METHOD_GET_RESP;
	p_out->status = status;
	if (al_rmpp_class(p_out->mgmt_class))
		/* No RMPP on the answer: its RMPP header is zero. */
		memset(out + sizeof(ib_mad_t), 0, MAD_RMPP_HDR_SIZE - sizeof(ib_mad_t));
	al_mad_reply_av(wc, buf, &av);
	al_mad_queue_reply(d, out, MAD_BLOCK_SIZE, &av, wc->recv.ud.remote_qp,
			   wc->recv.ud.pkey_index);
}

static void deliver(al_mad_disp_t *d, al_mad_svc_t *p_svc, al_mad_send_t *p_req,
		    const ib_wc_t *wc, const uint8_t *buf, size_t len)
{
	ib_mad_element_t *e = al_mad_rx_elem(p_svc, wc, buf, len);

	if (!e) {
		d->n_drop_no_svc++;
		return;
	}
	memcpy(e->p_mad_buf, buf + sizeof(ib_grh_t), len);
	if (p_req)
		al_mad_send_responded(d, p_req, e);
	else
		al_mad_queue_cb(p_svc, e, TRUE);
}

void al_mad_rx(al_mad_disp_t *d, const ib_wc_t *wc, const uint8_t *buf)
{
	const ib_mad_t *p_mad = (const ib_mad_t *)(buf + sizeof(ib_grh_t));
	const ib_rmpp_mad_t *p_rmpp = (const ib_rmpp_mad_t *)p_mad;
	al_mad_send_t *s;
	al_mad_svc_t *p_svc;
	boolean_t seen;
	size_t len;

	if (wc->length < sizeof(ib_grh_t) + sizeof(ib_mad_t)) {
		d->n_drop_bad++;
		return;
	}
	len = wc->length - (sizeof(ib_grh_t));
	if (len > MAD_BLOCK_SIZE)
		len = MAD_BLOCK_SIZE;
	if (p_mad->base_ver != 1) {
		d->n_drop_bad++;
		return;
	}
	/* RMPP control about one of our sends, or about a transfer we reassemble.
	 * In a class without an RMPP header (on a service that does not use
	 * RMPP) those bytes are data: dispatched as usual. */
	if (len >= MAD_RMPP_HDR_SIZE && (p_rmpp->rmpp_flags & IB_RMPP_FLAG_ACTIVE) && p_rmpp->rmpp_version &&
	    p_rmpp->rmpp_type != IB_RMPP_TYPE_DATA) {
		s = al_mad_find_send(d, p_mad, TRUE);
		if (s) {
			al_rmpp_rx_ctl(d, s, wc, buf);
			return;
		}
		if ((p_rmpp->rmpp_type == IB_RMPP_TYPE_ABORT ||
		     p_rmpp->rmpp_type == IB_RMPP_TYPE_STOP) &&
		    al_rmpp_rx_known(d, p_mad, wc->recv.ud.remote_lid)) {
			al_rmpp_rx(d, NULL, NULL, wc, buf, len);
			return;
		}
		if (al_rmpp_class(p_mad->mgmt_class)) {
			d->n_drop_no_svc++; /* control for a transfer that is over */
			return;
		}
	}
	if (ib_mad_is_response(p_mad)) {
		s = al_mad_find_send(d, p_mad, FALSE);
		if (!s) {
			al_rmpp_rx(d, NULL, NULL, wc, buf, len); /* a known transfer's duplicate? */
			return;
		}
		if (al_rmpp_rx_active(s->p_svc, (const uint8_t *)p_mad, len))
			al_rmpp_rx(d, s->p_svc, s, wc, buf, len);
		else
			deliver(d, s->p_svc, s, wc, buf, len);
		return;
	}
	p_svc = al_mad_find_svc(d, p_mad->mgmt_class, p_mad->class_ver, p_mad->method, &seen);
	if (!p_svc) {
		d->n_drop_no_svc++;
		if (wants_reply(p_mad))
			reply_unsup(d, wc, buf, len,
				    seen ? IB_MAD_STATUS_UNSUP_METHOD : IB_MAD_STATUS_UNSUP_CLASS_VER);
		return;
	}
	if (al_rmpp_rx_active(p_svc, (const uint8_t *)p_mad, len))
		al_rmpp_rx(d, p_svc, NULL, wc, buf, len);
	else
		deliver(d, p_svc, NULL, wc, buf, len);
}
