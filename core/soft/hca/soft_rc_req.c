/*
 * ibal soft provider: the RC/UC requester: posting, segmentation, responses, retransmission.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Posted WRs wait in a ring (head: oldest not completed; tx: being sent;
 * tail: next free). A WQE gets its PSNs when its first packet goes out:
 * sends and RDMA writes one per MTU-sized packet (first/middle/last or
 * only; RETH on the first, immediate data and the solicited bit on the
 * last), RDMA reads one per response packet, atomics one. RC sets AckReq on
 * the last packet of every message. A fenced WQE waits until the reads and
 * atomics before it completed; at most max_rd_atomic reads/atomics are
 * outstanding (IBA 9.4.4, 10.8.3.1).
 *
 * RC completion is in order, on acknowledgement: an ACK covers every WQE
 * up to its PSN, a read response or atomic ACK implicitly covers the
 * earlier sends and writes (IBA 9.7.5.2). An ACK or NAK that covers a read
 * or atomic whose responses did not all arrive means they were lost: the
 * requester goes back to it, and the first unacknowledged PSN stays at its
 * first missing response (acked_to()), so that a timeout goes back to it
 * again. Recovery is go-back-N: a PSN sequence error NAK or the
 * retransmission timer resends from the first unacknowledged PSN (a read
 * from its first missing response; duplicates of read responses already
 * placed are ignored). The timer counts against retry_cnt and RNR NAKs
 * against rnr_retry (7: infinite); both counts restart on forward progress. When
 * the transport retries run out with an ARMED alternate path, the QP
 * migrates and starts over on the new path (soft_apm.c, IBA 17.2.8). UC
 * completes a WQE once its last packet is sent. RC keeps at most
 * SOFT_RC_WINDOW packets unacknowledged (AckReq every quarter window), so
 * that go-back-N bursts of several QPs fit a port's receive ring.
 *
 * SQD: no new message starts; those begun are finished and retransmitted
 * as needed, and when none is outstanding the QP reports the drain
 * (PROV_QP_EV_SQ_DRAINED).
 */
#include <stdlib.h>
#include <string.h>
#include "soft_rc.h"
#include "ibal_log.h"

static boolean_t is_rd(const soft_rc_wqe_t *w)
{
	return w->wr.wr_type == WR_RDMA_READ || w->wr.wr_type == WR_COMPARE_SWAP ||
	       w->wr.wr_type == WR_FETCH_ADD;
}

static boolean_t seq_after(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) > 0;
}

static ib_api_status_t check_wr(soft_rc_t *rc, const ib_send_wr_t *wr, uint64_t *p_len)
{
	soft_qp_t *qp = rc->qp;
	uint64_t total = 0;
	uint32_t i;

	switch (wr->wr_type) {
	case WR_SEND:
	case WR_RDMA_WRITE:
		break;
	case WR_RDMA_READ:
	case WR_COMPARE_SWAP:
	case WR_FETCH_ADD:
		if (rc->uc)
			return IB_INVALID_WR_TYPE;
		break;
	default:
		return IB_INVALID_WR_TYPE;
	}
	if (wr->num_ds > qp->sq_sge)
		return IB_INVALID_MAX_SGE;
	if (wr->num_ds && !wr->ds_array)
		return IB_INVALID_PARAMETER;
	for (i = 0; i < wr->num_ds; i++)
		total += wr->ds_array[i].length;
	if (total > 0x80000000ull)
		return IB_INVALID_PARAMETER;
	if (wr->send_opt & IB_SEND_OPT_INLINE) {
		if (total > qp->max_inline ||
		    (wr->wr_type != WR_SEND && wr->wr_type != WR_RDMA_WRITE))
			return IB_INVALID_PARAMETER;
	}
	if ((wr->wr_type == WR_COMPARE_SWAP || wr->wr_type == WR_FETCH_ADD) &&
	    (total != 8 || (wr->remote_ops.vaddr & 7u)))
		return IB_INVALID_PARAMETER;
	*p_len = total;
	return IB_SUCCESS;
}

/* The WQEs' inline buffers, made at the first inline send (most QPs never
 * send inline data: they carry none). */
static boolean_t inline_pool(soft_rc_t *rc)
{
	uint32_t i, n = rc->qp->max_inline;

	if (rc->inl_pool || !n)
		return TRUE;
	rc->inl_pool = cl_malloc(((size_t)rc->mask + 1) * n);
	if (!rc->inl_pool)
		return FALSE;
	for (i = 0; i <= rc->mask; i++)
		rc->sq[i].inl = rc->inl_pool + (size_t)i * n;
	return TRUE;
}

static void enqueue(soft_rc_t *rc, const ib_send_wr_t *wr, uint32_t len)
{
	soft_rc_wqe_t *w = soft_rc_wqe(rc, rc->tail++);
	uint32_t i, off = 0;

	w->wr = *wr;
	w->wr.p_next = NULL;
	if (wr->num_ds)
		memcpy(w->ds, wr->ds_array, wr->num_ds * sizeof(ib_local_ds_t));
	w->wr.ds_array = w->ds;
	w->inline_data = (wr->send_opt & IB_SEND_OPT_INLINE) != 0;
	if (w->inline_data)
		for (i = 0; i < wr->num_ds; i++) {
			memcpy(w->inl + off, (const void *)(uintptr_t)wr->ds_array[i].vaddr,
			       wr->ds_array[i].length);
			off += wr->ds_array[i].length;
		}
	w->len = len;
	w->psn_valid = FALSE;
	w->psn = w->npkt = w->sent = w->rd_got = 0;
	w->done = FALSE;
}

ib_api_status_t soft_rc_post_send(soft_qp_t *qp, ib_send_wr_t *p_wr, ib_send_wr_t **pp_failure)
{
	soft_ca_t *ca = qp->ca;
	ib_api_status_t st = IB_SUCCESS;
	soft_rc_t *rc;
	ib_qp_state_t s;
	uint64_t len = 0;

	soft_rwlock_read(&ca->tab_lock);
	rc = qp->rc;
	if (!rc) {
		soft_rwlock_read_end(&ca->tab_lock);
		if (pp_failure)
			*pp_failure = p_wr;
		return IB_INVALID_QP_STATE;
	}
	soft_lock(&rc->lock);
	s = soft_rc_state(rc);
	for (; p_wr; p_wr = p_wr->p_next) {
		if (s == IB_QPS_ERROR || s == IB_QPS_SQERR) {
			soft_rc_wqe_t tmp;

			memset(&tmp, 0, sizeof(tmp));
			tmp.wr = *p_wr;
			soft_rc_complete(rc, &tmp, IB_WCS_WR_FLUSHED_ERR);
			continue;
		}
		if (s != IB_QPS_RTS && (s & IB_QPS_SQD) != IB_QPS_SQD) {
			st = IB_INVALID_QP_STATE;
			break;
		}
		st = check_wr(rc, p_wr, &len);
		if (st == IB_SUCCESS && rc->tail - rc->head >= rc->depth)
			st = IB_INSUFFICIENT_RESOURCES;
		if (st == IB_SUCCESS && (p_wr->send_opt & IB_SEND_OPT_INLINE) && !inline_pool(rc))
			st = IB_INSUFFICIENT_MEMORY;
		if (st != IB_SUCCESS)
			break;
		enqueue(rc, p_wr, (uint32_t)len);
	}
	soft_rc_pump(rc);
	soft_unlock(&rc->lock);
	soft_rwlock_read_end(&ca->tab_lock);
	if (st != IB_SUCCESS && pp_failure)
		*pp_failure = p_wr;
	return st;
}

/* Copies @p n bytes at offset @p off of the WQE's data to @p dst (the tables held: soft_hca.h). */
static ib_wc_status_t gather(soft_rc_t *rc, const soft_rc_wqe_t *w, uint32_t off, uint8_t *dst,
			     uint32_t n)
{
	if (w->inline_data) {
		memcpy(dst, w->inl + off, n);
		return IB_WCS_SUCCESS;
	}
	return soft_sgl_gather(rc->qp->pd, w->ds, w->wr.num_ds, off, dst, n);
}

/* Copies @p n bytes to offset @p off of the WQE's segments (the tables held: soft_hca.h). */
static ib_wc_status_t scatter(soft_rc_t *rc, const soft_rc_wqe_t *w, uint32_t off,
			      const uint8_t *src, uint32_t n)
{
	return soft_sgl_scatter(rc->qp->pd, w->ds, w->wr.num_ds, off, src, n);
}

static uint32_t npkts(const soft_rc_t *rc, const soft_rc_wqe_t *w)
{
	if (w->wr.wr_type == WR_COMPARE_SWAP || w->wr.wr_type == WR_FETCH_ADD || !w->len)
		return 1;
	/* The MTU is a power of two (soft_rc_load_path): a shift, not a division. */
	return (w->len + rc->path.mtu - 1) >> __builtin_ctz(rc->path.mtu);
}

/* Fence and initiator depth: may @p w start now? Only a read, an atomic or a
 * fenced request looks at the reads and atomics outstanding (a walk over the
 * requests sent and not yet acknowledged, which a stream of sends keeps long). */
static boolean_t may_start(soft_rc_t *rc, const soft_rc_wqe_t *w)
{
	uint32_t seq, n = 0;

	if (!is_rd(w) && !(w->wr.send_opt & IB_SEND_OPT_FENCE))
		return TRUE;
	for (seq = rc->head; seq != rc->tx; seq++)
		n += is_rd(soft_rc_wqe(rc, seq));
	if ((w->wr.send_opt & IB_SEND_OPT_FENCE) && n)
		return FALSE;
	return !is_rd(w) || n < rc->max_rd;
}

/* RC flow control: may the packet with PSN @p psn go out now? */
static boolean_t in_window(const soft_rc_t *rc, uint32_t psn)
{
	return rc->uc || soft_psn_diff(psn, rc->una) < (int32_t)SOFT_RC_WINDOW;
}

/* Moves the window base to @p psn if that is further on. */
static void set_una(soft_rc_t *rc, uint32_t psn)
{
	if (soft_psn_lt(rc->una, psn) && soft_psn_le(psn, rc->next_psn))
		rc->una = psn;
}

/*
 * How far an ACK, NAK or RNR NAK of @p psn acknowledges (ack_upto() done):
 * up to @p psn, but not past a read or atomic at the head whose responses
 * did not all arrive. The responder executed it (the ACK covers its PSNs),
 * so its responses were lost: they are the first thing not acknowledged,
 * and the timer must go back to them, not past them to what follows
 * (whose answers the requester cannot take while that read waits).
 */
static uint32_t acked_to(soft_rc_t *rc, uint32_t psn)
{
	const soft_rc_wqe_t *w = soft_rc_wqe(rc, rc->head);
	uint32_t missing;

	if (rc->head == rc->tail || !w->psn_valid || !is_rd(w))
		return psn;
	missing = soft_psn_add(w->psn, w->rd_got);
	return soft_psn_lt(missing, psn) ? missing : psn;
}

static uint8_t data_op(const soft_rc_wqe_t *w, uint32_t i, boolean_t imm)
{
	boolean_t wr = w->wr.wr_type == WR_RDMA_WRITE;

	if (w->npkt == 1)
		return wr ? (imm ? SOFT_OP_WRITE_ONLY_IMM : SOFT_OP_WRITE_ONLY)
			  : (imm ? SOFT_OP_SEND_ONLY_IMM : SOFT_OP_SEND_ONLY);
	if (i == 0)
		return wr ? SOFT_OP_WRITE_FIRST : SOFT_OP_SEND_FIRST;
	if (i + 1 < w->npkt)
		return wr ? SOFT_OP_WRITE_MIDDLE : SOFT_OP_SEND_MIDDLE;
	return wr ? (imm ? SOFT_OP_WRITE_LAST_IMM : SOFT_OP_WRITE_LAST)
		  : (imm ? SOFT_OP_SEND_LAST_IMM : SOFT_OP_SEND_LAST);
}

/* What sending one request packet came to. */
typedef enum { TX_SENT, TX_FAILED, TX_HELD } tx_result_t;

/* Packet @p i of a send or RDMA write: TX_FAILED after soft_rc_fail(),
 * TX_HELD when the peer's ring had no room (nothing sent). */
static tx_result_t send_data(soft_rc_t *rc, soft_rc_wqe_t *w, uint32_t i)
{
	uint8_t tr = rc->uc ? SOFT_TRANSPORT_UC : SOFT_TRANSPORT_RC;
	boolean_t imm = (w->wr.send_opt & IB_SEND_OPT_IMMEDIATE) != 0;
	boolean_t last = i + 1 == w->npkt;
	uint32_t off = i * rc->path.mtu;
	uint8_t op = data_op(w, i, imm);
	soft_pkt_t pkt;
	uint8_t *dst;

	/* Only what soft_rc_hdrs() and the opcode's headers read is set: the
	 * LRH and BTH (zeroed first: LVer, TVer), the ImmDt and RETH when the
	 * opcode has them, the payload's length. A packet of every message:
	 * the rest of the structure is not cleared. */
	memset(&pkt.lrh, 0, sizeof(pkt.lrh));
	memset(&pkt.bth, 0, sizeof(pkt.bth));
	pkt.bth.opcode = SOFT_OPCODE(tr, op);
	pkt.bth.psn = soft_psn_add(w->psn, i);
	pkt.bth.ack_req = !rc->uc && (last || (i + 1) % (SOFT_RC_WINDOW / 4) == 0);
	pkt.bth.se = last && (w->wr.send_opt & IB_SEND_OPT_SOLICITED) ? 1 : 0;
	pkt.payload_len = last ? w->len - off : rc->path.mtu;
	if (imm && last)
		pkt.immdt.data = cl_ntoh32(w->wr.immediate_data);
	if (w->wr.wr_type == WR_RDMA_WRITE && i == 0) {
		pkt.reth.va = w->wr.remote_ops.vaddr;
		pkt.reth.rkey = cl_ntoh32(w->wr.remote_ops.rkey);
		pkt.reth.dma_len = w->len;
	}
	dst = soft_rc_hdrs(rc, &pkt);
	if (!dst) {
		soft_rc_fail(rc, w, IB_WCS_LOCAL_OP_ERR, PROV_QP_EV_SEND_ERR);
		return TX_FAILED;
	}
	if (gather(rc, w, off, dst, pkt.payload_len) != IB_WCS_SUCCESS) {
		soft_rc_fail(rc, w, IB_WCS_LOCAL_PROTECTION_ERR, PROV_QP_EV_SEND_ERR);
		return TX_FAILED;
	}
	return soft_rc_send_req(rc, &pkt) == IB_RESOURCE_BUSY ? TX_HELD : TX_SENT;
}

/*
 * May the WQE's data be placed directly (soft_direct.h)? It must be an RC
 * RDMA write (not inline) or a read not begun, of more than one packet and
 * at least soft_direct_min bytes, to a peer reached through its ring.
 */
static boolean_t direct_ok(const soft_rc_t *rc, const soft_rc_wqe_t *w)
{
	boolean_t kind = w->wr.wr_type == WR_RDMA_WRITE ? !w->inline_data
			 : w->wr.wr_type == WR_RDMA_READ ? !w->rd_got
							 : FALSE;

	return kind && !rc->uc && !rc->no_direct && soft_direct_min &&
	       w->len >= soft_direct_min && w->npkt > 1 &&
	       soft_fabric_direct_pid(rc->path.port->fp, rc->path.dlid);
}

/*
 * The WQE's non-empty segments, each checked against its L_Key for
 * @p access; FALSE (the QP failed with a local protection error) if one
 * is not allowed.
 */
static boolean_t wqe_segs(soft_rc_t *rc, soft_rc_wqe_t *w, ib_access_t access,
			  soft_direct_seg_t *seg, uint32_t *p_n)
{
	uint32_t i, n = 0;

	for (i = 0; i < w->wr.num_ds && n < SOFT_DIRECT_MAX_SEGS; i++) {
		const ib_local_ds_t *ds = &w->ds[i];

		if (!ds->length)
			continue;
		if (soft_mr_check(rc->qp->pd, cl_ntoh32(ds->lkey), ds->vaddr, ds->length,
				  access) != IB_SUCCESS) {
			soft_rc_fail(rc, w, IB_WCS_LOCAL_PROTECTION_ERR, PROV_QP_EV_SEND_ERR);
			return FALSE;
		}
		seg[n].addr = ds->vaddr;
		seg[n].len = ds->length;
		n++;
	}
	*p_n = n;
	return TRUE;
}

/*
 * Sends an RDMA write as one direct-placement packet: 1 if sent, 0 if it
 * must go in packets, -1 if the QP failed (a segment's L_Key does not
 * allow the read).
 */
static int send_write_direct(soft_rc_t *rc, soft_rc_wqe_t *w)
{
	soft_direct_seg_t seg[SOFT_DIRECT_MAX_SEGS];
	boolean_t imm = (w->wr.send_opt & IB_SEND_OPT_IMMEDIATE) != 0;
	soft_pkt_t pkt;
	uint8_t *dst;
	uint32_t n;

	if (!wqe_segs(rc, w, 0, seg, &n))
		return -1;
	memset(&pkt, 0, sizeof(pkt));
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC,
				     imm ? SOFT_OP_WRITE_ONLY_IMM : SOFT_OP_WRITE_ONLY);
	pkt.bth.psn = w->psn;
	pkt.bth.ack_req = 1;
	pkt.bth.se = (w->wr.send_opt & IB_SEND_OPT_SOLICITED) ? 1 : 0;
	if (imm)
		pkt.immdt.data = cl_ntoh32(w->wr.immediate_data);
	pkt.reth.va = w->wr.remote_ops.vaddr;
	pkt.reth.rkey = cl_ntoh32(w->wr.remote_ops.rkey);
	pkt.reth.dma_len = w->len;
	pkt.payload_len = soft_direct_desc_len(n);
	dst = soft_rc_hdrs(rc, &pkt);
	if (!dst)
		return 0;
	soft_direct_encode(dst, seg, n);
	return soft_rc_send_direct(rc, &pkt) == IB_SUCCESS ? 1 : 0;
}

/* The request of a read or an atomic: as send_data(). */
static tx_result_t send_rd(soft_rc_t *rc, soft_rc_wqe_t *w)
{
	soft_pkt_t pkt;
	uint8_t op;

	memset(&pkt, 0, sizeof(pkt));
	pkt.bth.psn = w->psn;
	pkt.bth.ack_req = 1;
	if (w->wr.wr_type == WR_RDMA_READ) {
		/* Asked again: only for what has not arrived yet. */
		uint32_t off = w->rd_got * rc->path.mtu;

		op = SOFT_OP_READ_REQUEST;
		pkt.bth.psn = soft_psn_add(w->psn, w->rd_got);
		pkt.reth.va = w->wr.remote_ops.vaddr + off;
		pkt.reth.rkey = cl_ntoh32(w->wr.remote_ops.rkey);
		pkt.reth.dma_len = w->len - off;
	} else {
		op = w->wr.wr_type == WR_COMPARE_SWAP ? SOFT_OP_COMPARE_SWAP : SOFT_OP_FETCH_ADD;
		pkt.atomic_eth.va = w->wr.remote_ops.vaddr;
		pkt.atomic_eth.rkey = cl_ntoh32(w->wr.remote_ops.rkey);
		if (op == SOFT_OP_COMPARE_SWAP) {
			pkt.atomic_eth.compare = cl_ntoh64(w->wr.remote_ops.atomic1);
			pkt.atomic_eth.swap_add = cl_ntoh64(w->wr.remote_ops.atomic2);
		} else {
			pkt.atomic_eth.swap_add = cl_ntoh64(w->wr.remote_ops.atomic1);
		}
	}
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, op);
	if (!soft_rc_hdrs(rc, &pkt)) {
		soft_rc_fail(rc, w, IB_WCS_LOCAL_OP_ERR, PROV_QP_EV_SEND_ERR);
		return TX_FAILED;
	}
	/* A whole long read may be answered directly (soft_direct.h). */
	if (direct_ok(rc, w) && soft_rc_send_direct(rc, &pkt) == IB_SUCCESS)
		return TX_SENT;
	return soft_rc_send_req(rc, &pkt) == IB_RESOURCE_BUSY ? TX_HELD : TX_SENT;
}

/* The peer's ring had no room for the next packet: the QP waits with its CA
 * and pumps again from soft_rc_resume (soft_progress.c resumes waiting QPs
 * within SOFT_PROGRESS_PENDING_MS). Queued once while it waits. Without
 * memory to wait with, the packet counts as lost and RC's timer recovers. */
static void hold(soft_rc_t *rc)
{
	if (rc->tx_held)
		return;
	rc->tx_held = soft_ca_pend(rc->qp->ca, rc->qp->qpn, TRUE);
}

void soft_rc_check_drained(soft_rc_t *rc)
{
	soft_qp_t *qp = rc->qp;

	if (rc->head != rc->tx || (rc->tx != rc->tail && soft_rc_wqe(rc, rc->tx)->psn_valid) ||
	    soft_rc_state(rc) != IB_QPS_SQD_DRAINING)
		return;
	soft_lock(&qp->lock);
	if (qp->attr.state == IB_QPS_SQD_DRAINING)
		soft_qp_hw_event(qp, PROV_QP_EV_SQ_DRAINED);
	soft_unlock(&qp->lock);
}

void soft_rc_pump(soft_rc_t *rc)
{
	soft_rc_wqe_t *w;
	ib_qp_state_t s;
	tx_result_t r;

	if (rc->req_err || rc->rnr_wait || rc->tx_held || !rc->path.port || rc->tx == rc->tail)
		return;
	s = soft_rc_state(rc);
	if (s != IB_QPS_RTS && (s & IB_QPS_SQD) != IB_QPS_SQD)
		return;
	while (rc->tx != rc->tail) {
		w = soft_rc_wqe(rc, rc->tx);
		if (!w->psn_valid) {
			/* SQD: messages begun are finished, no new one starts. */
			if (s != IB_QPS_RTS || !may_start(rc, w))
				break;
			w->psn = rc->next_psn;
			w->npkt = npkts(rc, w);
			w->psn_valid = TRUE;
			w->sent = 0;
			rc->next_psn = soft_psn_add(rc->next_psn, w->npkt);
		}
		if (is_rd(w)) {
			if (!w->sent) {
				if (!in_window(rc, w->psn))
					break;
				r = send_rd(rc, w);
				if (r == TX_FAILED)
					return;
				if (r == TX_HELD) {
					hold(rc);
					break;
				}
			}
			w->sent = w->npkt;
		} else {
			if (!w->sent && w->npkt > 1 && in_window(rc, w->psn) && direct_ok(rc, w)) {
				int d = send_write_direct(rc, w);

				if (d < 0)
					return;
				if (d)
					w->sent = w->npkt;
			}
			for (; w->sent < w->npkt; w->sent++) {
				if (!in_window(rc, soft_psn_add(w->psn, w->sent)))
					break;
				r = send_data(rc, w, w->sent);
				if (r == TX_FAILED)
					return;
				if (r == TX_HELD) {
					hold(rc);
					break;
				}
			}
			if (w->sent < w->npkt)
				break;
		}
		rc->tx++;
		if (rc->uc) {
			soft_rc_complete(rc, w, IB_WCS_SUCCESS);
			rc->head = rc->tx;
		}
	}
	if (s != IB_QPS_RTS)
		soft_rc_check_drained(rc);
	if (!rc->uc && rc->una != rc->next_psn && rc->timeout_ms)
		soft_rc_timer_trim(rc, rc->timeout_ms);
}

/*
 * Goes back to PSN @p psn (go-back-N): the WQEs sent or being sent, from the
 * one holding it, are sent again. Returns FALSE if @p psn is not outstanding.
 */
static boolean_t rewind_to(soft_rc_t *rc, uint32_t psn)
{
	uint32_t seq, s, end = rc->tx;
	soft_rc_wqe_t *w;

	if (rc->tx != rc->tail && soft_rc_wqe(rc, rc->tx)->psn_valid)
		end = rc->tx + 1; /* partly sent */
	for (seq = rc->head; seq != end; seq++) {
		w = soft_rc_wqe(rc, seq);
		if (soft_psn_in_range(psn, w->psn, soft_psn_add(w->psn, w->npkt - 1)))
			break;
	}
	if (seq == end)
		return FALSE;
	w = soft_rc_wqe(rc, seq);
	w->sent = is_rd(w) ? 0 : (uint32_t)soft_psn_diff(psn, w->psn);
	for (s = seq + 1; s != end; s++)
		soft_rc_wqe(rc, s)->sent = 0;
	rc->tx = seq;
	return TRUE;
}

static void advance(soft_rc_t *rc)
{
	rc->head++;
	if (seq_after(rc->head, rc->tx))
		rc->tx = rc->head;
	rc->retry_left = rc->retry_cnt;
	rc->rnr_left = rc->rnr_retry;
}

/* Completes the sends and writes acknowledged by @p psn (inclusive or not). */
static void ack_upto(soft_rc_t *rc, uint32_t psn, boolean_t incl)
{
	soft_rc_wqe_t *w;
	uint32_t last;

	while (rc->head != rc->tail) {
		w = soft_rc_wqe(rc, rc->head);
		if (!w->psn_valid || is_rd(w))
			return;
		last = soft_psn_add(w->psn, w->npkt - 1);
		if (incl ? soft_psn_lt(psn, last) : soft_psn_le(psn, last))
			return;
		soft_rc_complete(rc, w, IB_WCS_SUCCESS);
		advance(rc);
	}
}

static ib_wc_status_t nak_status(unsigned code)
{
	switch (code) {
	case SOFT_NAK_INVALID_REQ:
		return IB_WCS_REM_INVALID_REQ_ERR;
	case SOFT_NAK_REM_ACCESS_ERR:
		return IB_WCS_REM_ACCESS_ERR;
	default:
		return IB_WCS_REM_OP_ERR;
	}
}

/* The WQE whose PSNs hold @p psn, else the head. */
static soft_rc_wqe_t *wqe_of(soft_rc_t *rc, uint32_t psn)
{
	uint32_t seq;
	soft_rc_wqe_t *w;

	for (seq = rc->head; seq != rc->tail; seq++) {
		w = soft_rc_wqe(rc, seq);
		if (w->psn_valid &&
		    soft_psn_in_range(psn, w->psn, soft_psn_add(w->psn, w->npkt - 1)))
			return w;
	}
	return soft_rc_wqe(rc, rc->head);
}

/* Handles an ACK, NAK or RNR NAK; returns FALSE if the QP failed. */
static boolean_t on_ack(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	uint8_t syn = pkt->aeth.syndrome;
	uint32_t psn = pkt->bth.psn, to, us;
	soft_rc_wqe_t *w;

	switch (soft_aeth_type(syn)) {
	case SOFT_AETH_ACK:
		ack_upto(rc, psn, TRUE);
		set_una(rc, acked_to(rc, soft_psn_add(psn, 1)));
		w = soft_rc_wqe(rc, rc->head);
		if (rc->head != rc->tx && is_rd(w) && soft_psn_le(w->psn, psn))
			rewind_to(rc, w->psn); /* its responses were lost */
		return TRUE;
	case SOFT_AETH_RNR_NAK:
		ack_upto(rc, psn, FALSE);
		/* From a read before it whose responses were lost, if any. */
		to = acked_to(rc, psn);
		set_una(rc, to);
		if (rc->rnr_wait || !rewind_to(rc, to))
			return TRUE; /* already waiting, or nothing outstanding there */
		IBAL_DBG(IBAL_SUB_SOFT, "QP 0x%x: RNR NAK at PSN 0x%x, %s", rc->qp->qpn, psn,
			 rc->rnr_left ? "waiting to send again" : "no RNR retries left");
		if (!rc->rnr_left) {
			soft_rc_fail(rc, wqe_of(rc, psn), IB_WCS_RNR_RETRY_ERR, PROV_QP_EV_SEND_ERR);
			return FALSE;
		}
		if (rc->rnr_left != 7)
			rc->rnr_left--;
		rc->rnr_wait = TRUE;
		us = soft_rnr_timer_us(soft_aeth_value(syn));
		soft_rc_timer_start(rc, (us + 999u) / 1000u);
		return TRUE;
	case SOFT_AETH_NAK:
		ack_upto(rc, psn, FALSE);
		/* From a read before it whose responses were lost, if any. */
		to = acked_to(rc, psn);
		set_una(rc, to);
		if (soft_aeth_value(syn) == SOFT_NAK_PSN_SEQ_ERR) {
			/* Sent with SOFT_FABRIC_DIRECT: a direct write was refused. */
			if (pkt->link_flags & SOFT_FABRIC_DIRECT)
				rc->no_direct = TRUE;
			rewind_to(rc, to);
			return TRUE;
		}
		if (rc->head == rc->tail)
			return TRUE;
		soft_rc_fail(rc, wqe_of(rc, psn), nak_status(soft_aeth_value(syn)),
			     PROV_QP_EV_SEND_ERR);
		return FALSE;
	default:
		return TRUE;
	}
}

/* The read @p w is complete: every response packet arrived. */
static void read_done(soft_rc_t *rc, soft_rc_wqe_t *w)
{
	set_una(rc, soft_psn_add(w->psn, w->npkt));
	rc->retry_left = rc->retry_cnt;
	soft_rc_complete(rc, w, IB_WCS_SUCCESS);
	advance(rc);
}

/*
 * Places a read response that describes the responder's memory
 * (soft_direct.h) by pulling it into the WQE's segments; returns FALSE if
 * the QP failed. A pull that fails asks for the read again in packets.
 */
static boolean_t on_read_direct(soft_rc_t *rc, soft_rc_wqe_t *w, const soft_pkt_t *pkt,
				uint16_t flags)
{
	soft_direct_seg_t src[SOFT_DIRECT_MAX_SEGS], dst[SOFT_DIRECT_MAX_SEGS];
	uint32_t nd, ns;
	uint64_t total;

	ns = soft_direct_decode(pkt->payload, pkt->payload_len, src, &total);
	if (w->rd_got || !(flags & SOFT_OPF_ONLY) || !ns || total != w->len) {
		soft_rc_fail(rc, w, IB_WCS_BAD_RESP_ERR, PROV_QP_EV_SEND_ERR);
		return FALSE;
	}
	if (!wqe_segs(rc, w, IB_AC_LOCAL_WRITE, dst, &nd))
		return FALSE;
	if (pkt->lrh.slid != rc->path.dlid ||
	    !soft_direct_pull(soft_fabric_direct_pid(rc->path.port->fp, pkt->lrh.slid), dst, nd,
			      src, ns)) {
		rc->no_direct = TRUE;
		rewind_to(rc, w->psn);
		return TRUE;
	}
	w->rd_got = w->npkt;
	read_done(rc, w);
	return TRUE;
}

/* Places a read response; returns FALSE if the QP failed. */
static boolean_t on_read_resp(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	soft_rc_wqe_t *w;
	uint32_t off;
	ib_wc_status_t ws;

	ack_upto(rc, pkt->bth.psn, FALSE);
	w = soft_rc_wqe(rc, rc->head);
	if (rc->head == rc->tail || !w->psn_valid || w->wr.wr_type != WR_RDMA_READ ||
	    pkt->bth.psn != soft_psn_add(w->psn, w->rd_got))
		return TRUE; /* duplicate or out of sequence: the timer recovers */
	if (pkt->link_flags & SOFT_FABRIC_DIRECT)
		return on_read_direct(rc, w, pkt, flags);
	off = w->rd_got * rc->path.mtu;
	if (((flags & (SOFT_OPF_LAST | SOFT_OPF_ONLY)) != 0) != (w->rd_got + 1 == w->npkt) ||
	    (uint64_t)off + pkt->payload_len > w->len ||
	    (!(flags & (SOFT_OPF_LAST | SOFT_OPF_ONLY)) && pkt->payload_len != rc->path.mtu) ||
	    ((flags & (SOFT_OPF_LAST | SOFT_OPF_ONLY)) && off + pkt->payload_len != w->len)) {
		soft_rc_fail(rc, w, IB_WCS_BAD_RESP_ERR, PROV_QP_EV_SEND_ERR);
		return FALSE;
	}
	ws = scatter(rc, w, off, pkt->payload, pkt->payload_len);
	if (ws != IB_WCS_SUCCESS) {
		soft_rc_fail(rc, w, ws, PROV_QP_EV_SEND_ERR);
		return FALSE;
	}
	w->rd_got++;
	set_una(rc, soft_psn_add(pkt->bth.psn, 1));
	rc->retry_left = rc->retry_cnt;
	if (w->rd_got == w->npkt)
		read_done(rc, w);
	return TRUE;
}

/* Places an atomic result; returns FALSE if the QP failed. */
static boolean_t on_atomic_ack(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	soft_rc_wqe_t *w;
	uint64_t orig = pkt->atomic_ack.orig;
	ib_wc_status_t ws;

	ack_upto(rc, pkt->bth.psn, FALSE);
	w = soft_rc_wqe(rc, rc->head);
	if (rc->head == rc->tail || !w->psn_valid || w->psn != pkt->bth.psn ||
	    (w->wr.wr_type != WR_COMPARE_SWAP && w->wr.wr_type != WR_FETCH_ADD) ||
	    w->sent != w->npkt)
		return TRUE;
	ws = scatter(rc, w, 0, (const uint8_t *)&orig, sizeof(orig));
	if (ws != IB_WCS_SUCCESS) {
		soft_rc_fail(rc, w, ws, PROV_QP_EV_SEND_ERR);
		return FALSE;
	}
	set_una(rc, soft_psn_add(pkt->bth.psn, 1));
	soft_rc_complete(rc, w, IB_WCS_SUCCESS);
	advance(rc);
	return TRUE;
}

void soft_rc_req_recv(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	const soft_opcode_info_t *oi = soft_opcode_info(pkt->bth.opcode);
	uint32_t head_before = rc->head, una_before = rc->una;
	soft_rc_wqe_t *first;
	boolean_t ok;

	if (rc->req_err || rc->head == rc->tail)
		return;
	first = soft_rc_wqe(rc, rc->head);
	/* Only responses for outstanding PSNs count. */
	if (!first->psn_valid || !soft_psn_le(first->psn, pkt->bth.psn) ||
	    !soft_psn_lt(pkt->bth.psn, rc->next_psn))
		return;
	if (oi->flags & SOFT_OPF_READ)
		ok = on_read_resp(rc, pkt, oi->flags);
	else if (oi->flags & SOFT_OPF_ATOMIC)
		ok = on_atomic_ack(rc, pkt);
	else
		ok = on_ack(rc, pkt);
	if (!ok)
		return;
	soft_rc_check_drained(rc);
	if (!rc->rnr_wait && rc->timeout_ms) {
		if (rc->head == rc->tx && rc->una == rc->next_psn)
			soft_rc_timer_stop(rc);
		else if (rc->head != head_before || rc->una != una_before)
			soft_rc_timer_start(rc, rc->timeout_ms);
	}
	soft_rc_pump(rc);
}

void soft_rc_req_timer(soft_rc_t *rc)
{
	ib_qp_state_t s;

	if (rc->req_err)
		return;
	if (rc->rnr_wait) {
		rc->rnr_wait = FALSE;
		soft_rc_pump(rc);
		return;
	}
	s = soft_rc_state(rc);
	if ((rc->head == rc->tx && rc->una == rc->next_psn) ||
	    (s != IB_QPS_RTS && (s & IB_QPS_SQD) != IB_QPS_SQD))
		return;
	IBAL_DBG(IBAL_SUB_SOFT, "QP 0x%x: no ACK for PSN 0x%x in time, %s", rc->qp->qpn, rc->una,
		 rc->retry_left ? "sending again" : "no retries left");
	if (!rc->retry_left) {
		if (soft_apm_retry_exhausted(rc))
			return;
		soft_rc_fail(rc, soft_rc_wqe(rc, rc->head), IB_WCS_TIMEOUT_RETRY_ERR,
			     PROV_QP_EV_SEND_ERR);
		return;
	}
	rc->retry_left--;
	if (!rewind_to(rc, rc->una))
		rewind_to(rc, soft_rc_wqe(rc, rc->head)->psn);
	soft_rc_pump(rc);
}

void soft_rc_flush_sq(soft_rc_t *rc)
{
	soft_rc_wqe_t *w;

	for (; rc->head != rc->tail; rc->head++) {
		w = soft_rc_wqe(rc, rc->head);
		if (!w->done)
			soft_rc_complete(rc, w, IB_WCS_WR_FLUSHED_ERR);
	}
	rc->tx = rc->tail;
	rc->una = rc->next_psn;
	rc->req_err = TRUE;
	rc->rnr_wait = FALSE;
}

void soft_rc_req_migrated(soft_rc_t *rc)
{
	if (rc->uc || rc->req_err || (rc->head == rc->tx && rc->una == rc->next_psn))
		return;
	rc->retry_left = rc->retry_cnt;
	if (!rewind_to(rc, rc->una))
		rewind_to(rc, soft_rc_wqe(rc, rc->head)->psn);
	if (rc->rnr_wait)
		return; /* the RNR wait ends with a pump */
	soft_rc_pump(rc);
	if (rc->timeout_ms)
		soft_rc_timer_start(rc, rc->timeout_ms);
}
