/*
 * ibal soft provider: the unreliable datagram transport: send (build, gather, emit) and receive.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Send: one packet per WR (LRH, GRH when the AV asks, BTH, DETH, ImmDt),
 * payload at most the port MTU, gathered from L_Key-checked SGEs (inline
 * data needs no key). A Q_Key with the high bit set takes the QP's Q_Key
 * (IBA 10.2.5). The send completes when the packet is on the fabric. Errors
 * (local length, protection, vanished AV) complete the WR in error whatever
 * its signaling and move the QP to SQE (IBA 10.8.3.3).
 *
 * A packet whose destination's ring is full waits, as a packet waits for
 * link credits: the WR stays at the head of the send queue and the sends
 * posted after it queue behind it (soft_qp.c), until there is room. One
 * that has waited IBAL_SOFT_UD_HOLD_MS (default SOFT_UD_HOLD_MS) is dropped, as a switch drops a packet
 * past its head-of-queue lifetime, and packets to that DLID are then
 * dropped at once until one finds room: a peer that stops draining holds
 * the QP's other traffic up once, for that long (SOFT_UD_STUCK_LIDS such
 * DLIDs are remembered).
 *
 * Receive: P_Key (against the port table) and Q_Key (QP1: the GSI Q_Key;
 * QP0: none) mismatches drop the packet and count it on the port. A packet
 * without a posted receive is dropped. The first 40 bytes of the receive
 * buffer are the GRH area: the GRH when present (IB_RECV_OPT_GRH_VALID),
 * else left untouched; the payload follows. A buffer shorter than 40 bytes
 * plus the payload completes with IB_WCS_LOCAL_LEN_ERR, a bad L_Key with
 * IB_WCS_LOCAL_PROTECTION_ERR; the QP stays in its state.
 */
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"
#include "ibal_log.h"

ib_api_status_t soft_ud_check_wr(soft_qp_t *qp, const ib_send_wr_t *p_wr)
{
	uint64_t total = 0;
	uint32_t i;

	if (p_wr->wr_type != WR_SEND)
		return IB_INVALID_WR_TYPE;
	if (p_wr->num_ds > qp->sq_sge)
		return IB_INVALID_MAX_SGE;
	if (p_wr->num_ds && !p_wr->ds_array)
		return IB_INVALID_PARAMETER;
	for (i = 0; i < p_wr->num_ds; i++)
		total += p_wr->ds_array[i].length;
	if ((p_wr->send_opt & IB_SEND_OPT_INLINE) && total > qp->max_inline)
		return IB_INVALID_PARAMETER;
	if (!al_prov_av(p_wr->dgrm.ud.h_av))
		return IB_INVALID_AV_HANDLE;
	al_prov_put(p_wr->dgrm.ud.h_av);
	return IB_SUCCESS;
}

/* What the send path reads from the QP, snapshotted under its lock. */
typedef struct ud_snap {
	uint32_t qkey;
	uint16_t pkey_index;
	uint32_t psn;
	uint8_t port;
} ud_snap_t;

static void snap(soft_qp_t *qp, ud_snap_t *s)
{
	soft_lock(&qp->lock);
	s->qkey = qp->attr.qkey;
	s->pkey_index = qp->attr.pkey_index;
	s->psn = qp->attr.sq_psn;
	qp->attr.sq_psn = soft_psn_add(qp->attr.sq_psn, 1);
	s->port = qp->spl_port ? qp->spl_port : qp->attr.port;
	soft_unlock(&qp->lock);
}

/* Fills the headers of a UD packet. */
static ib_wc_status_t fill_hdrs(soft_qp_t *qp, const ib_send_wr_t *wr, const soft_av_t *av,
				const soft_port_t *port, const ud_snap_t *s, uint32_t len,
				soft_pkt_t *pkt)
{
	uint32_t rqkey = cl_ntoh32(wr->dgrm.ud.remote_qkey);
	uint16_t pkey_index = qp->type == IB_QPT_QP1 ? wr->dgrm.ud.pkey_index : s->pkey_index;
	uint16_t pkey;
	boolean_t imm = (wr->send_opt & IB_SEND_OPT_IMMEDIATE) != 0;

	if (!soft_port_pkey(port, pkey_index, &pkey))
		return IB_WCS_LOCAL_OP_ERR;
	memset(pkt, 0, sizeof(*pkt));
	pkt->lrh.vl = qp->type == IB_QPT_QP0 ? 15 : 0;
	pkt->lrh.sl = av->attr.sl;
	pkt->lrh.lnh = av->attr.grh_valid ? SOFT_LNH_IBA_GLOBAL : SOFT_LNH_IBA_LOCAL;
	pkt->lrh.dlid = cl_ntoh16(av->attr.dlid);
	pkt->lrh.slid = soft_port_lid(port);
	if (av->attr.grh_valid) {
		pkt->grh = av->attr.grh;
		if (!(cl_ntoh32(pkt->grh.ver_class_flow) >> 28))
			pkt->grh.ver_class_flow |= CL_HTON32(0x60000000u);
		if (!pkt->grh.src_gid.unicast.interface_id) {
			pkt->grh.src_gid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
			pkt->grh.src_gid.unicast.interface_id = port->guid;
		}
	}
	pkt->bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_UD,
				      imm ? SOFT_OP_SEND_ONLY_IMM : SOFT_OP_SEND_ONLY);
	pkt->bth.se = (wr->send_opt & IB_SEND_OPT_SOLICITED) ? 1 : 0;
	pkt->bth.pkey = pkey;
	pkt->bth.dest_qp = cl_ntoh32(wr->dgrm.ud.remote_qp) & SOFT_QPN_MASK;
	pkt->bth.psn = s->psn;
	pkt->deth.qkey = (rqkey & 0x80000000u) ? s->qkey : rqkey;
	pkt->deth.src_qp = qp->qpn;
	pkt->immdt.data = cl_ntoh32(wr->immediate_data);
	pkt->payload_len = len;
	return IB_WCS_SUCCESS;
}

/* Gathers the payload after the headers (tab_lock read held). */
static ib_wc_status_t gather(soft_qp_t *qp, const ib_send_wr_t *wr, const uint8_t *p_inl,
			     uint32_t inl_len, uint8_t *dst)
{
	boolean_t inl = (wr->send_opt & IB_SEND_OPT_INLINE) != 0;
	uint32_t i;

	if (p_inl) {
		memcpy(dst, p_inl, inl_len);
		return IB_WCS_SUCCESS;
	}
	for (i = 0; i < wr->num_ds; i++) {
		const ib_local_ds_t *ds = &wr->ds_array[i];

		if (!ds->length)
			continue;
		if (!inl && soft_mr_check(qp->pd, cl_ntoh32(ds->lkey), ds->vaddr, ds->length, 0) !=
				    IB_SUCCESS)
			return IB_WCS_LOCAL_PROTECTION_ERR;
		memcpy(dst, (const void *)(uintptr_t)ds->vaddr, ds->length);
		dst += ds->length;
	}
	return IB_WCS_SUCCESS;
}

/* Builds the whole packet in qp->pkt with the resolved AV; returns its
 * length in *p_len and its DLID in *p_dlid. */
static ib_wc_status_t build_av(soft_qp_t *qp, const ib_send_wr_t *wr, soft_av_t *av,
			       const uint8_t *p_inl, uint32_t inl_len, uint32_t len, size_t *p_len,
			       soft_port_t **pp_port, uint16_t *p_dlid)
{
	soft_port_t *port;
	soft_pkt_t pkt;
	ud_snap_t s;
	ib_wc_status_t ws;
	size_t hdr_len, total;

	snap(qp, &s);
	port = soft_ca_port(qp->ca, s.port);
	if (!port)
		return IB_WCS_LOCAL_OP_ERR;
	if (len > soft_port_mtu(port))
		return IB_WCS_LOCAL_LEN_ERR;
	ws = fill_hdrs(qp, wr, av, port, &s, len, &pkt);
	if (ws != IB_WCS_SUCCESS)
		return ws;
	if (soft_pkt_build_hdrs(&pkt, qp->pkt, SOFT_MAX_PKT_LEN, &hdr_len) != SOFT_WIRE_OK)
		return IB_WCS_LOCAL_OP_ERR;
	total = soft_pkt_len(&pkt);
	ws = gather(qp, wr, p_inl, inl_len, qp->pkt + hdr_len);
	if (ws != IB_WCS_SUCCESS)
		return ws;
	memset(qp->pkt + hdr_len + len, 0, total - hdr_len - len);
	if (soft_pkt_seal_none(qp->pkt, total) != SOFT_WIRE_OK) /* sealed as it leaves */
		return IB_WCS_LOCAL_OP_ERR;
	*p_len = total;
	*pp_port = port;
	*p_dlid = pkt.lrh.dlid;
	return IB_WCS_SUCCESS;
}

/* build_av() with the WR's AV, held for the time of the build. */
static ib_wc_status_t build(soft_qp_t *qp, const ib_send_wr_t *wr, const uint8_t *p_inl,
			    uint32_t inl_len, uint32_t len, size_t *p_len, soft_port_t **pp_port,
			    uint16_t *p_dlid)
{
	soft_av_t *av = al_prov_av(wr->dgrm.ud.h_av);
	ib_wc_status_t ws;

	if (!av)
		return IB_WCS_LOCAL_OP_ERR;
	ws = build_av(qp, wr, av, p_inl, inl_len, len, p_len, pp_port, p_dlid);
	al_prov_put(wr->dgrm.ud.h_av);
	return ws;
}

/* The slot of @p dlid (0: a free one) among the QP's stuck DLIDs, or -1
 * (sq_lock held). */
static int stuck_slot(const soft_qp_t *qp, uint16_t dlid)
{
	int i;

	for (i = 0; i < SOFT_UD_STUCK_LIDS; i++)
		if (qp->sq_stuck[i] == dlid)
			return i;
	return -1;
}

/* Remembers @p dlid as stuck, in a free slot or in place of the oldest. */
static void stuck_add(soft_qp_t *qp, uint16_t dlid)
{
	int i = stuck_slot(qp, 0);

	if (i < 0) {
		memmove(qp->sq_stuck, qp->sq_stuck + 1, sizeof(qp->sq_stuck) - sizeof(qp->sq_stuck[0]));
		i = SOFT_UD_STUCK_LIDS - 1;
	} else {
		qp->sq_n_stuck++;
	}
	qp->sq_stuck[i] = dlid;
}

/*
 * Sends the packet built in qp->pkt (sq_lock held). FALSE if it waits: its
 * destination's ring is full, it has waited less than soft_ud_hold_ns and
 * the DLID is not stuck. The PSN it took is given back then: the packet is
 * built again when it goes.
 */
static boolean_t emit(soft_qp_t *qp, soft_port_t *port, size_t len, uint16_t dlid)
{
	/* Looked up only while some DLID is stuck: nothing on the common path. */
	int slot = qp->sq_n_stuck && dlid ? stuck_slot(qp, dlid) : -1;
	uint64_t now, hold;

	if (soft_port_xmit_data(port, qp->pkt, len, SOFT_FABRIC_TELL_FULL) != IB_RESOURCE_BUSY) {
		if (slot >= 0) {
			qp->sq_stuck[slot] = 0; /* it has room again */
			qp->sq_n_stuck--;
		}
		qp->sq_held_ns = 0;
		return TRUE;
	}
	if (slot < 0 && dlid) {
		now = soft_mono_ns();
		if (!qp->sq_held_ns)
			qp->sq_held_ns = now;
		hold = __atomic_load_n(&soft_ud_hold_ns, __ATOMIC_RELAXED);
		if (now - qp->sq_held_ns < hold) {
			soft_lock(&qp->lock);
			qp->attr.sq_psn = (qp->attr.sq_psn - 1u) & SOFT_PSN_MASK;
			soft_unlock(&qp->lock);
			return FALSE;
		}
		IBAL_DBG(IBAL_SUB_SOFT,
			 "QP 0x%x: LID 0x%x drained nothing for %llu ms: its packets are dropped until it does",
			 qp->qpn, dlid, (unsigned long long)(hold / 1000000u));
		stuck_add(qp, dlid);
	}
	qp->sq_held_ns = 0;
	soft_port_xmit_data(port, qp->pkt, len, 0); /* dropped and counted at the full ring */
	return TRUE;
}

boolean_t soft_ud_execute(soft_qp_t *qp, const ib_send_wr_t *wr, const uint8_t *p_inl,
			  uint32_t inl_len)
{
	ib_wc_status_t ws;
	uint64_t len = 0;
	size_t pkt_len = 0;
	soft_port_t *port = NULL;
	uint16_t dlid = 0;
	uint32_t i;
	ib_wc_t wc;

	if (p_inl)
		len = inl_len;
	else
		for (i = 0; i < wr->num_ds; i++)
			len += wr->ds_array[i].length;
	ws = len > SOFT_MAX_PAYLOAD ? IB_WCS_LOCAL_LEN_ERR
				     : build(qp, wr, p_inl, inl_len, (uint32_t)len, &pkt_len,
					   &port, &dlid);
	if (ws == IB_WCS_SUCCESS) {
		if (!emit(qp, port, pkt_len, dlid))
			return FALSE;
		if (!(wr->send_opt & IB_SEND_OPT_SIGNALED) && !qp->sq_signaled)
			return TRUE;
	} else {
		qp->sq_held_ns = 0;
	}
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr->wr_id;
	wc.wc_type = IB_WC_SEND;
	wc.status = ws;
	wc.length = ws == IB_WCS_SUCCESS ? (uint32_t)len : 0;
	soft_cq_add(qp->scq, &wc, FALSE);
	if (ws != IB_WCS_SUCCESS) {
		soft_lock(&qp->lock);
		soft_qp_hw_event(qp, PROV_QP_EV_SEND_ERR);
		soft_unlock(&qp->lock);
	}
	return TRUE;
}

/*
 * Copies @p len bytes (or only checks, when @p src is NULL) into the WQE's
 * segments starting @p off bytes into them.
 */
static ib_wc_status_t scatter(soft_pd_t *pd, const soft_rwqe_t *w, uint64_t off,
			      const uint8_t *src, uint64_t len)
{
	return soft_sgl_scatter(pd, w->ds, w->num_ds, off, src, len);
}

/* P_Key and Q_Key checks (qp->lock held); counts violations on the port. */
static boolean_t keys_ok(soft_port_t *port, soft_qp_t *qp, const soft_pkt_t *pkt)
{
	uint16_t mine;
	uint32_t want;

	if (!soft_port_pkey(port, 0, &mine) || (pkt->bth.pkey & 0x7FFF) != (mine & 0x7FFF) ||
	    !((pkt->bth.pkey | mine) & 0x8000)) {
		port->pkey_ctr++;
		return FALSE;
	}
	if (qp->type == IB_QPT_QP0)
		return TRUE;
	want = qp->type == IB_QPT_QP1 ? SOFT_QP1_QKEY : qp->attr.qkey;
	if (pkt->deth.qkey != want) {
		port->qkey_ctr++;
		return FALSE;
	}
	return TRUE;
}

static uint64_t wqe_len(const soft_rwqe_t *w)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < w->num_ds; i++)
		n += w->ds[i].length;
	return n;
}

void soft_ud_recv(soft_port_t *port, soft_qp_t *qp, const soft_pkt_t *pkt)
{
	soft_rwqe_buf_t buf; /* no allocation per packet */
	soft_rwqe_t *w = &buf.w;
	boolean_t got = FALSE, global = pkt->lrh.lnh == SOFT_LNH_IBA_GLOBAL;
	ib_wc_status_t ws;
	ib_wc_t wc;
	const char *why = "its QP does not receive";

	soft_lock(&qp->lock);
	if (soft_qp_state_receives(qp->attr.state)) {
		why = "bad P_Key or Q_Key";
		if (keys_ok(port, qp, pkt)) {
			why = "no receive posted";
			got = qp->srq ? soft_srq_take(qp->srq, w) : soft_rq_pop(&qp->rq, w);
		}
	}
	soft_unlock(&qp->lock);
	if (!got) {
		IBAL_DBG(IBAL_SUB_SOFT, "QP 0x%x: datagram from LID 0x%x dropped: %s", qp->qpn,
			 pkt->lrh.slid, why);
		return;
	}
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr_id;
	wc.wc_type = IB_WC_RECV;
	if (wqe_len(w) < SOFT_UD_GRH_AREA + (uint64_t)pkt->payload_len)
		ws = IB_WCS_LOCAL_LEN_ERR;
	else
		ws = scatter(qp->pd, w, 0, global ? (const uint8_t *)&pkt->grh : NULL,
			     SOFT_UD_GRH_AREA);
	if (ws == IB_WCS_SUCCESS)
		ws = scatter(qp->pd, w, SOFT_UD_GRH_AREA, pkt->payload, pkt->payload_len);
	wc.status = ws;
	if (ws == IB_WCS_SUCCESS) {
		wc.length = SOFT_UD_GRH_AREA + pkt->payload_len;
		wc.recv.ud.recv_opt = global ? IB_RECV_OPT_GRH_VALID : 0;
		if (soft_opcode_info(pkt->bth.opcode)->flags & SOFT_OPF_IMM) {
			wc.recv.ud.recv_opt |= IB_RECV_OPT_IMMEDIATE;
			wc.recv.ud.immediate_data = cl_hton32(pkt->immdt.data);
		}
		wc.recv.ud.remote_qp = cl_hton32(pkt->deth.src_qp);
		wc.recv.ud.pkey_index = 0;
		wc.recv.ud.remote_lid = cl_hton16(pkt->lrh.slid);
		wc.recv.ud.remote_sl = pkt->lrh.sl;
		wc.recv.ud.path_bits = 0;
	}
	soft_cq_add(qp->rcq, &wc, pkt->bth.se != 0);
}
