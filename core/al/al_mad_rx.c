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
 * version, method); with none, an answer is sent back (answer_unsol()),
 * except for methods that take no response (Send, Trap, TrapRepress).
 *
 * The length of a MAD is what the provider's completion says (wc->length
 * less the GRH area), at most 256 bytes: a receiver that passes only the
 * bytes the sender wrote (umad2sim) gives elements of that size.
 */
#include <string.h>
#include <complib/cl_memory.h>
#include "al_mad_int.h"
#include "ibal_log.h"

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
	       p_mad->method != IB_MAD_METHOD_TRAP_REPRESS;
}

static boolean_t is_smp_class(uint8_t mgmt_class)
{
	return mgmt_class == IB_MCLASS_SUBN_LID || mgmt_class == IB_MCLASS_SUBN_DIR;
}

/* The GUID of the dispatcher's port (FALSE if it cannot be read). */
static boolean_t disp_port_guid(al_mad_disp_t *d, ib_net64_t *p_guid)
{
	ib_ca_attr_t *p_attr;
	uint32_t size = 0;
	boolean_t ok = FALSE;

	if (!d->h_ca || ib_query_ca(d->h_ca, NULL, &size) != IB_INSUFFICIENT_MEMORY || !size)
		return FALSE;
	p_attr = (ib_ca_attr_t *)cl_zalloc(size);
	if (!p_attr)
		return FALSE;
	if (ib_query_ca(d->h_ca, p_attr, &size) == IB_SUCCESS && d->port_num >= 1 &&
	    d->port_num <= p_attr->num_ports) {
		*p_guid = p_attr->p_port_attr[d->port_num - 1].port_guid;
		ok = TRUE;
	}
	cl_free(p_attr);
	return ok;
}

/* Status of the answer to an SMP request no service takes (IBA 13.4.7):
 * SubnGet(SMInfo) is answered with the SMInfo of an SM that is not
 * active (IBA 14.4.1: a port that claims IsSM answers it whatever its
 * SM's state; this is what lets the SM that asks finish its sweep); any
 * other Get or Set as the SMA of a CA answers an attribute it does not
 * implement. Writes the SMInfo into @p out when it answers one. */
static ib_net16_t smp_unsup_status(al_mad_disp_t *d, const ib_mad_t *p_mad, uint8_t *out)
{
	ib_sm_info_t *p_smi = (ib_sm_info_t *)ib_smp_get_payload_ptr((const ib_smp_t *)out);
	ib_net64_t guid;

	if (p_mad->class_ver != 1)
		return IB_MAD_STATUS_UNSUP_CLASS_VER;
	if (p_mad->method != IB_MAD_METHOD_GET && p_mad->method != IB_MAD_METHOD_SET)
		return IB_MAD_STATUS_UNSUP_METHOD;
	if (p_mad->method == IB_MAD_METHOD_GET && p_mad->attr_id == IB_MAD_ATTR_SM_INFO &&
	    disp_port_guid(d, &guid)) {
		memset(p_smi, 0, IB_SMP_DATA_SIZE);
		p_smi->guid = guid;   /* SM_Key and ActCount 0, priority 0 */
		p_smi->pri_state = IB_SMINFO_STATE_NOTACTIVE;
		return 0;
	}
	return IB_MAD_STATUS_UNSUP_METHOD_ATTR;
}

/* Where the answer to an SMP goes: a directed-route SMP that crossed hops
 * returns along its path, which starts with the permissive LID (14.2.2);
 * anything else goes back to the LID it came from. SMPs go to QP0. */
static void smp_reply_av(const ib_wc_t *wc, const ib_smp_t *p_smp, ib_av_attr_t *av)
{
	memset(av, 0, sizeof(*av));
	av->sl = wc->recv.ud.remote_sl;
	av->path_bits = wc->recv.ud.path_bits;
	if (p_smp->mgmt_class == IB_MCLASS_SUBN_DIR && p_smp->hop_count)
		av->dlid = CL_HTON16(IB_LID_PERMISSIVE);
	else
		av->dlid = wc->recv.ud.remote_lid;
}

/*
 * Answers a request that no service takes: a GetResp carrying the
 * request's header and data. GMP classes: status "unsupported class or
 * version" (0x0004) when no service has the class and version (!seen),
 * "unsupported method" (0x0008) otherwise; no RMPP on the answer. SMP
 * classes: see smp_unsup_status(); a directed-route answer has the D bit
 * set and keeps the hop count, hop pointer, DrSLID, DrDLID and both paths
 * as they came: the SMI below the QP (the HCA and kernel, or ibsim) did
 * the receive steps of 14.2.2 (the return path is complete, the hop
 * pointer is where that SMI expects a returning SMP to start) and does the
 * send steps on the way back.
 */
static void answer_unsol(al_mad_disp_t *d, const ib_wc_t *wc, const uint8_t *buf, size_t len,
			 boolean_t seen)
{
	const ib_mad_t *p_mad = (const ib_mad_t *)(buf + sizeof(ib_grh_t));
	uint8_t out[MAD_BLOCK_SIZE];
	ib_mad_t *p_out = (ib_mad_t *)out;
	ib_av_attr_t av;
	ib_net32_t rqp = wc->recv.ud.remote_qp;

	memset(out, 0, sizeof(out));
	memcpy(out, p_mad, len);
	p_out->method = IB_MAD_METHOD_GET_RESP;
	if (is_smp_class(p_mad->mgmt_class)) {
		p_out->status = smp_unsup_status(d, p_mad, out);
		if (p_mad->mgmt_class == IB_MCLASS_SUBN_DIR)
			p_out->status |= IB_SMP_DIRECTION;
		smp_reply_av(wc, (const ib_smp_t *)out, &av);
		rqp = 0;
	} else {
		p_out->status = seen ? IB_MAD_STATUS_UNSUP_METHOD : IB_MAD_STATUS_UNSUP_CLASS_VER;
		if (al_rmpp_class(p_out->mgmt_class))
			/* No RMPP on the answer: its RMPP header is zero. */
			memset(out + sizeof(ib_mad_t), 0, MAD_RMPP_HDR_SIZE - sizeof(ib_mad_t));
		al_mad_reply_av(wc, buf, &av);
	}
	al_mad_queue_reply(d, out, MAD_BLOCK_SIZE, &av, rqp, wc->recv.ud.pkey_index);
}

static void deliver(al_mad_disp_t *d, al_mad_svc_t *p_svc, al_mad_send_t *p_req,
		    const ib_wc_t *wc, const uint8_t *buf, size_t len)
{
	ib_mad_element_t *e = al_mad_rx_elem(p_svc, wc, buf, len);

	if (!e) {
		IBAL_DBG(IBAL_SUB_MAD, "MAD class 0x%02x attr 0x%04x from LID 0x%x dropped: no MAD "
			 "element (pool exhausted)", ((const ib_mad_t *)(buf + sizeof(ib_grh_t)))->mgmt_class,
			 cl_ntoh16(((const ib_mad_t *)(buf + sizeof(ib_grh_t)))->attr_id),
			 cl_ntoh16(wc->recv.ud.remote_lid));
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
		IBAL_DBG(IBAL_SUB_MAD, "MAD from LID 0x%x dropped: %u bytes, shorter than a MAD header",
			 cl_ntoh16(wc->recv.ud.remote_lid), wc->length);
		d->n_drop_bad++;
		return;
	}
	len = wc->length - (sizeof(ib_grh_t));
	if (len > MAD_BLOCK_SIZE)
		len = MAD_BLOCK_SIZE;
	if (p_mad->base_ver != 1) {
		IBAL_DBG(IBAL_SUB_MAD, "MAD from LID 0x%x dropped: base version %u",
			 cl_ntoh16(wc->recv.ud.remote_lid), p_mad->base_ver);
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
			IBAL_DBG(IBAL_SUB_MAD, "RMPP type %u from LID 0x%x dropped: no such transfer "
				 "(it is over)", p_rmpp->rmpp_type, cl_ntoh16(wc->recv.ud.remote_lid));
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
		IBAL_DBG(IBAL_SUB_MAD, "MAD class 0x%02x v%u method 0x%02x attr 0x%04x from LID 0x%x: "
			 "no service registered for it%s", p_mad->mgmt_class, p_mad->class_ver,
			 p_mad->method, cl_ntoh16(p_mad->attr_id), cl_ntoh16(wc->recv.ud.remote_lid),
			 wants_reply(p_mad) ? " (answered with an error status)" : "");
		d->n_drop_no_svc++;
		if (wants_reply(p_mad))
			answer_unsol(d, wc, buf, len, seen);
		return;
	}
	if (al_rmpp_rx_active(p_svc, (const uint8_t *)p_mad, len))
		al_rmpp_rx(d, p_svc, NULL, wc, buf, len);
	else
		deliver(d, p_svc, NULL, wc, buf, len);
}
