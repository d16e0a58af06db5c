/*
 * ibal soft provider: the RC/UC responder: PSN checks, receives, RDMA, atomics, ACK/NAK.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * RC (IBA 9.7.5): a request with the expected PSN is executed; a duplicate
 * (one of the 2^23 PSNs before) is answered again without re-executing:
 * sends and writes with an ACK of the last PSN executed, reads by replaying
 * their responses from memory, atomics by resending the remembered result;
 * a PSN ahead of the expected one draws a single PSN sequence error NAK
 * until the expected PSN arrives. ACKs go out for packets with AckReq and
 * carry the MSN (messages completed). A send finding no receive WQE draws
 * an RNR NAK with the QP's min_rnr_timer (the PSN is not consumed). A bad
 * R_Key, bounds or rights draws a remote access error NAK, an opcode out of
 * sequence or a length mismatch an invalid request NAK, a receive WQE that
 * cannot hold the data a remote operational error NAK (the WQE completes in
 * error); each moves the responder's QP to ERROR.
 *
 * UC (IBA 9.8): no ACKs. A PSN gap, an error or a missing receive WQE
 * drops the message: packets are discarded until the next first or only
 * packet, and a partly filled receive WQE is reused for the next message.
 *
 * Receive completions: IB_WC_RECV (sends) and IB_WC_RECV_RDMA_WRITE (write
 * with immediate, length = DMALen), IB_RECV_OPT_IMMEDIATE with the
 * immediate data; the solicited bit of the last packet makes the
 * completion solicited.
 */
#include <stdlib.h>
#include <string.h>
#include "ibal_log.h"
#include "soft_rc.h"

/* What executing a request came to (EXEC_NO_DIRECT: a direct write could not
 * be pulled; the requester is asked for packets). */
enum { EXEC_OK, EXEC_RNR, EXEC_NAK_INV, EXEC_NAK_ACC, EXEC_NAK_OP, EXEC_DROP, EXEC_NO_DIRECT };

static void rc_error(soft_rc_t *rc, int r);

/* Copies into the receive WQE at rc->roff (the tables held: soft_hca.h). */
static ib_wc_status_t rq_scatter(soft_rc_t *rc, const uint8_t *src, uint32_t n)
{
	return soft_sgl_scatter(rc->qp->pd, rc->rwqe->ds, rc->rwqe->num_ds, rc->roff, src, n);
}

static boolean_t take_rwqe(soft_rc_t *rc)
{
	soft_qp_t *qp = rc->qp;

	if (rc->have_rwqe)
		return TRUE;
	soft_lock(&qp->lock);
	rc->have_rwqe = qp->srq ? soft_srq_take(qp->srq, rc->rwqe) : soft_rq_pop(&qp->rq, rc->rwqe);
	soft_unlock(&qp->lock);
	return rc->have_rwqe;
}

static void recv_done(soft_rc_t *rc, ib_wc_type_t type, uint32_t len, const soft_pkt_t *pkt,
		      boolean_t imm)
{
	ib_wc_t wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = rc->rwqe->wr_id;
	wc.wc_type = type;
	wc.length = len;
	if (imm) {
		wc.recv.conn.recv_opt = IB_RECV_OPT_IMMEDIATE;
		wc.recv.conn.immediate_data = cl_hton32(pkt->immdt.data);
	}
	rc->have_rwqe = FALSE;
	soft_cq_add(rc->qp->rcq, &wc, pkt->bth.se != 0);
}

static void recv_err(soft_rc_t *rc, ib_wc_status_t st)
{
	soft_cq_add_err(rc->qp->rcq, rc->rwqe->wr_id, IB_WC_RECV, st);
	rc->have_rwqe = FALSE;
}

static int do_send(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	ib_wc_status_t ws;
	boolean_t end = (flags & (SOFT_OPF_LAST | SOFT_OPF_ONLY)) != 0;

	if (flags & (SOFT_OPF_FIRST | SOFT_OPF_ONLY)) {
		if (!take_rwqe(rc))
			return EXEC_RNR;
		rc->roff = 0;
	}
	if (!end && pkt->payload_len != rc->path.mtu)
		return EXEC_NAK_INV;
	ws = rq_scatter(rc, pkt->payload, pkt->payload_len);
	if (ws != IB_WCS_SUCCESS) {
		recv_err(rc, ws);
		return ws == IB_WCS_LOCAL_LEN_ERR ? EXEC_NAK_INV : EXEC_NAK_OP;
	}
	rc->roff += pkt->payload_len;
	rc->in_op = end ? 0 : SOFT_OPF_SEND;
	if (end) {
		recv_done(rc, IB_WC_RECV, rc->roff, pkt, (flags & SOFT_OPF_IMM) != 0);
		rc->msn++;
	}
	return EXEC_OK;
}

/* The remote access check of the responder (the tables held: soft_hca.h): an operation
 * the QP does not enable is an invalid request (not supported by this
 * receive queue, IBA 9.7.5.2.1); one the R_Key or range does not allow, a
 * remote access error. */
static int remote_check(soft_rc_t *rc, uint32_t rkey, uint64_t va, uint64_t len,
			ib_access_t need)
{
	if (!(rc->path.access & need))
		return EXEC_NAK_INV;
	return soft_mr_check(rc->qp->pd, rkey, va, len, need) == IB_SUCCESS ? EXEC_OK : EXEC_NAK_ACC;
}

/*
 * A write whose payload describes the requester's memory (soft_direct.h):
 * checked as the packets it stands for, then pulled into the region from
 * the process holding the QP's remote LID.
 */
static int do_write_direct(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	soft_direct_seg_t src[SOFT_DIRECT_MAX_SEGS], dst;
	uint64_t total;
	uint32_t n;
	int r;

	if (!(flags & SOFT_OPF_ONLY) || rc->uc)
		return EXEC_NAK_INV;
	r = remote_check(rc, pkt->reth.rkey, pkt->reth.va, pkt->reth.dma_len, IB_AC_RDMA_WRITE);
	if (r != EXEC_OK)
		return r;
	n = soft_direct_decode(pkt->payload, pkt->payload_len, src, &total);
	if (!n || total != pkt->reth.dma_len)
		return EXEC_NAK_INV;
	if ((flags & SOFT_OPF_IMM) && !take_rwqe(rc))
		return EXEC_RNR;
	dst.addr = pkt->reth.va;
	dst.len = total;
	if (!soft_direct_min || pkt->lrh.slid != rc->path.dlid ||
	    !soft_direct_pull(soft_fabric_direct_pid(rc->path.port->fp, pkt->lrh.slid), &dst, 1,
			      src, n))
		return EXEC_NO_DIRECT;
	rc->in_op = 0;
	if (flags & SOFT_OPF_IMM)
		recv_done(rc, IB_WC_RECV_RDMA_WRITE, (uint32_t)total, pkt, TRUE);
	rc->msn++;
	return EXEC_OK;
}

static int do_write(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	boolean_t end = (flags & (SOFT_OPF_LAST | SOFT_OPF_ONLY)) != 0;

	if (pkt->link_flags & SOFT_FABRIC_DIRECT)
		return do_write_direct(rc, pkt, flags);

	if (flags & (SOFT_OPF_FIRST | SOFT_OPF_ONLY)) {
		int r = remote_check(rc, pkt->reth.rkey, pkt->reth.va, pkt->reth.dma_len,
				     IB_AC_RDMA_WRITE);

		if (r != EXEC_OK)
			return r;
		rc->wva = pkt->reth.va;
		rc->wrkey = pkt->reth.rkey;
		rc->wlen = pkt->reth.dma_len;
		rc->roff = 0;
	}
	if ((!end && pkt->payload_len != rc->path.mtu) ||
	    (uint64_t)rc->roff + pkt->payload_len > rc->wlen ||
	    (end && rc->roff + pkt->payload_len != rc->wlen))
		return EXEC_NAK_INV;
	if (end && (flags & SOFT_OPF_IMM) && !take_rwqe(rc))
		return EXEC_RNR;
	if (pkt->payload_len) {
		int r = remote_check(rc, rc->wrkey, rc->wva + rc->roff, pkt->payload_len,
				     IB_AC_RDMA_WRITE);

		if (r != EXEC_OK)
			return r;
		memcpy((void *)(uintptr_t)(rc->wva + rc->roff), pkt->payload, pkt->payload_len);
	}
	rc->roff += pkt->payload_len;
	rc->in_op = end ? 0 : SOFT_OPF_WRITE;
	if (end) {
		if (flags & SOFT_OPF_IMM)
			recv_done(rc, IB_WC_RECV_RDMA_WRITE, rc->wlen, pkt, TRUE);
		rc->msn++;
	}
	return EXEC_OK;
}

static uint32_t read_npkt(const soft_rc_t *rc, uint32_t len)
{
	return len ? (len + rc->path.mtu - 1) >> __builtin_ctz(rc->path.mtu) : 1; /* a power of two */
}

/*
 * Sends the response packets of @p r from packet @p i on, while the
 * requester's receive ring has room for them (the tables and rc->lock held);
 * returns the next packet to send (r->npkt when all went). Waiting for room
 * instead of sending into a full ring keeps a long response from being
 * dropped and asked for again.
 */
static uint32_t read_send(soft_rc_t *rc, const soft_rc_rd_res_t *r, uint32_t i)
{
	uint32_t off, n;
	soft_pkt_t pkt;
	uint8_t op, *dst;

	soft_rc_flush_ack(rc);
	if (r->direct && i == 0 && r->len) {
		soft_direct_seg_t seg = { r->va, r->len };

		if (rc->path.port && !soft_fabric_room(rc->path.port->fp, rc->path.dlid,
						       SOFT_MAX_HDR_LEN + 64))
			return 0;
		memset(&pkt, 0, sizeof(pkt));
		pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_READ_RESPONSE_ONLY);
		pkt.bth.psn = r->psn;
		pkt.aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID);
		pkt.aeth.msn = rc->msn & SOFT_MSN_MASK;
		pkt.payload_len = soft_direct_desc_len(1);
		dst = soft_rc_hdrs(rc, &pkt);
		if (!dst)
			return r->npkt;
		soft_direct_encode(dst, &seg, 1);
		if (soft_rc_send_direct(rc, &pkt) == IB_SUCCESS)
			return r->npkt;
	}
	for (; i < r->npkt; i++) {
		off = i * rc->path.mtu;
		n = r->len - off < rc->path.mtu ? r->len - off : rc->path.mtu;
		if (rc->path.port &&
		    !soft_fabric_room(rc->path.port->fp, rc->path.dlid, n + SOFT_MAX_HDR_LEN + 8))
			return i;
		op = r->npkt == 1 ? SOFT_OP_READ_RESPONSE_ONLY
		     : i == 0     ? SOFT_OP_READ_RESPONSE_FIRST
		     : i + 1 == r->npkt ? SOFT_OP_READ_RESPONSE_LAST
					: SOFT_OP_READ_RESPONSE_MIDDLE;
		memset(&pkt, 0, sizeof(pkt));
		pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, op);
		pkt.bth.psn = soft_psn_add(r->psn, i);
		pkt.aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID);
		pkt.aeth.msn = rc->msn & SOFT_MSN_MASK;
		pkt.payload_len = n;
		dst = soft_rc_hdrs(rc, &pkt);
		if (!dst)
			return r->npkt;
		if (n)
			memcpy(dst, (const void *)(uintptr_t)(r->va + off), n);
		soft_rc_send(rc, &pkt);
	}
	return i;
}

void soft_rc_flush_ack(soft_rc_t *rc)
{
	if (!rc->ack_due)
		return;
	rc->ack_due = FALSE;
	soft_rc_send_ack(rc, rc->ack_psn, soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID));
}

/*
 * Acknowledges PSN @p psn at the end of the receive batch: one ACK then
 * covers every request up to the last one that asked (IBA 9.7.5.1.2: an
 * ACK acknowledges all earlier PSNs). Sent at once if the QP cannot wait.
 */
static void ack_later(soft_rc_t *rc, uint32_t psn)
{
	rc->ack_psn = psn;
	if (rc->ack_due)
		return;
	rc->ack_due = TRUE;
	if (!soft_ca_pend(rc->qp->ca, rc->qp->qpn, FALSE))
		soft_rc_flush_ack(rc);
}

/* Queues the QP with its CA until the waiting responses are sent. */
static void pend_queue(soft_rc_t *rc)
{
	if (!soft_ca_pend(rc->qp->ca, rc->qp->qpn, TRUE)) {
		/* No memory to wait with: send the rest now and let RC recover. */
		rc->pend_n = 0;
		rc->pend_nak = FALSE;
	}
}

/*
 * Starts the response of read @p r, an entry of rc->rd just made (or
 * remade for a duplicate): now if nothing waits before it, else after what
 * waits. FALSE on an access error.
 */
static boolean_t read_respond(soft_rc_t *rc, soft_rc_rd_res_t *r)
{
	uint32_t i;

	if (r->len && remote_check(rc, r->rkey, r->va, r->len, IB_AC_RDMA_READ) != EXEC_OK)
		return FALSE;
	if (rc->pend_n) {
		rc->pend_n++;
		return TRUE;
	}
	i = read_send(rc, r, 0);
	if (i < r->npkt) {
		rc->pend_first = (uint32_t)(r - rc->rd);
		rc->pend_n = 1;
		rc->pend_pkt = i;
		pend_queue(rc);
	}
	return TRUE;
}

void soft_rc_resp_resume(soft_rc_t *rc)
{
	soft_rc_rd_res_t *r;
	uint32_t i, off;

	soft_rc_flush_ack(rc);
	while (rc->pend_n) {
		r = &rc->rd[rc->pend_first];
		off = rc->pend_pkt * rc->path.mtu;
		/* The region may have gone since the response began. */
		if (r->len > off &&
		    remote_check(rc, r->rkey, r->va + off, r->len - off, IB_AC_RDMA_READ) != EXEC_OK) {
			rc->pend_n = 0;
			rc->pend_nak = FALSE;
			rc_error(rc, EXEC_NAK_ACC);
			return;
		}
		i = read_send(rc, r, rc->pend_pkt);
		if (i < r->npkt) {
			rc->pend_pkt = i;
			pend_queue(rc);
			return;
		}
		rc->pend_first = (rc->pend_first + 1) % SOFT_RC_RD_RES;
		rc->pend_n--;
		rc->pend_pkt = 0;
	}
	/* Requests dropped while the responses waited: have them sent again now. */
	if (rc->pend_nak) {
		rc->pend_nak = FALSE;
		soft_rc_send_ack(rc, rc->epsn, soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_PSN_SEQ_ERR));
		rc->nak_sent = TRUE;
	}
}

static void atomic_respond(soft_rc_t *rc, const soft_rc_rd_res_t *r)
{
	soft_pkt_t pkt;

	soft_rc_flush_ack(rc);
	memset(&pkt, 0, sizeof(pkt));
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ATOMIC_ACKNOWLEDGE);
	pkt.bth.psn = r->psn;
	pkt.aeth.syndrome = soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID);
	pkt.aeth.msn = rc->msn & SOFT_MSN_MASK;
	pkt.atomic_ack.orig = r->orig;
	if (soft_rc_hdrs(rc, &pkt))
		soft_rc_send(rc, &pkt);
}

/*
 * The next entry of the QP's table of executed reads and atomics (rc->lock
 * held), the table made at its first one. NULL without memory for it: the
 * request is dropped unexecuted, as one that finds every entry busy is, and
 * the requester sends it again.
 */
static soft_rc_rd_res_t *res_new(soft_rc_t *rc)
{
	soft_rc_rd_res_t *r;

	if (!rc->rd) {
		rc->rd = (soft_rc_rd_res_t *)cl_zalloc(SOFT_RC_RD_RES * sizeof(*rc->rd));
		if (!rc->rd) {
			IBAL_WARN(IBAL_SUB_SOFT,
				  "QP 0x%x: no memory for its read and atomic responses: request dropped",
				  rc->qp->qpn);
			return NULL;
		}
	}
	r = &rc->rd[rc->rd_next];
	rc->rd_next = (rc->rd_next + 1) % SOFT_RC_RD_RES;
	memset(r, 0, sizeof(*r));
	r->valid = TRUE;
	return r;
}

/* May a read of @p npkt response packets be answered with one direct-placement packet? */
static boolean_t direct_read(const soft_rc_t *rc, const soft_pkt_t *pkt, uint32_t npkt)
{
	return (pkt->link_flags & SOFT_FABRIC_DIRECT) && soft_direct_min && npkt > 1 &&
	       pkt->lrh.slid == rc->path.dlid;
}

static int do_read(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	soft_rc_rd_res_t *r;

	int chk = pkt->reth.dma_len ? remote_check(rc, pkt->reth.rkey, pkt->reth.va,
						   pkt->reth.dma_len, IB_AC_RDMA_READ)
				    : EXEC_OK;

	if (chk != EXEC_OK)
		return chk;
	if (pkt->reth.dma_len > 0x80000000u)
		return EXEC_NAK_INV;
	/* Every entry holds a read still being answered: asked again later. */
	if (rc->pend_n >= SOFT_RC_RD_RES) {
		rc->pend_nak = TRUE;
		return EXEC_DROP;
	}
	r = res_new(rc);
	if (!r)
		return EXEC_DROP;
	r->op = SOFT_OP_READ_REQUEST;
	r->psn = pkt->bth.psn;
	r->va = pkt->reth.va;
	r->rkey = pkt->reth.rkey;
	r->len = pkt->reth.dma_len;
	r->npkt = read_npkt(rc, r->len);
	r->direct = direct_read(rc, pkt, r->npkt);
	rc->epsn = soft_psn_add(r->psn, r->npkt);
	rc->msn++;
	read_respond(rc, r);
	return EXEC_OK;
}

static int do_atomic(soft_rc_t *rc, const soft_pkt_t *pkt, uint8_t op)
{
	const soft_atomic_eth_t *a = &pkt->atomic_eth;
	soft_rc_rd_res_t *r;
	uint64_t *p, expected;

	if (a->va & 7u)
		return EXEC_NAK_INV;
	int chk = remote_check(rc, a->rkey, a->va, 8, IB_AC_ATOMIC);

	if (chk != EXEC_OK)
		return chk;
	r = res_new(rc);
	if (!r)
		return EXEC_DROP;
	p = (uint64_t *)(uintptr_t)a->va;
	r->op = op;
	r->psn = pkt->bth.psn;
	r->npkt = 1;
	if (op == SOFT_OP_COMPARE_SWAP) {
		expected = a->compare;
		__atomic_compare_exchange_n(p, &expected, a->swap_add, FALSE, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
		r->orig = expected;
	} else {
		r->orig = __atomic_fetch_add(p, a->swap_add, __ATOMIC_SEQ_CST);
	}
	rc->epsn = soft_psn_add(r->psn, 1);
	rc->msn++;
	atomic_respond(rc, r);
	return EXEC_OK;
}

/* Executes a request whose PSN is in sequence. */
static int execute(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	uint8_t op = pkt->bth.opcode & 0x1F;
	boolean_t starts = (flags & (SOFT_OPF_FIRST | SOFT_OPF_ONLY)) != 0 ||
			   (flags & (SOFT_OPF_READ | SOFT_OPF_ATOMIC));

	if (starts ? rc->in_op != 0
		   : rc->in_op != (flags & (SOFT_OPF_SEND | SOFT_OPF_WRITE)))
		return EXEC_NAK_INV;
	if (flags & SOFT_OPF_INV)
		return EXEC_NAK_INV;
	if (flags & SOFT_OPF_SEND)
		return do_send(rc, pkt, flags);
	if (flags & SOFT_OPF_WRITE)
		return do_write(rc, pkt, flags);
	if (rc->uc)
		return EXEC_NAK_INV;
	if (flags & SOFT_OPF_READ)
		return do_read(rc, pkt);
	if (flags & SOFT_OPF_ATOMIC)
		return do_atomic(rc, pkt, op);
	return EXEC_NAK_INV;
}

/*
 * A read asked for again from packet @p psn of @p r on (the requester got the
 * packets before it): @p r becomes that tail, with the request's own RETH
 * (checked again), and is answered anew. Ignored unless the tail ends where
 * @p r did.
 */
static void read_again(soft_rc_t *rc, soft_rc_rd_res_t *r, const soft_pkt_t *pkt)
{
	uint32_t end = soft_psn_add(r->psn, r->npkt), npkt = read_npkt(rc, pkt->reth.dma_len);

	if (pkt->bth.psn != r->psn) {
		if (soft_psn_add(pkt->bth.psn, npkt) != end || pkt->reth.dma_len > r->len ||
		    (pkt->reth.dma_len &&
		     remote_check(rc, pkt->reth.rkey, pkt->reth.va, pkt->reth.dma_len,
				  IB_AC_RDMA_READ) != EXEC_OK))
			return;
		r->psn = pkt->bth.psn;
		r->va = pkt->reth.va;
		r->rkey = pkt->reth.rkey;
		r->len = pkt->reth.dma_len;
		r->npkt = npkt;
	}
	r->direct = direct_read(rc, pkt, r->npkt);
	read_respond(rc, r);
}

static void duplicate(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	unsigned i;

	/* While responses wait, an older one is not answered in between (and
	 * no ACK may pass them): the requester asks again. */
	if (rc->pend_n)
		return;
	if (flags & (SOFT_OPF_READ | SOFT_OPF_ATOMIC)) {
		if (!rc->rd)
			return; /* none executed yet */
		for (i = 0; i < SOFT_RC_RD_RES; i++) {
			soft_rc_rd_res_t *r = &rc->rd[i];

			if (!r->valid ||
			    !soft_psn_in_range(pkt->bth.psn, r->psn,
					       soft_psn_add(r->psn, r->npkt - 1)))
				continue;
			if (r->op == SOFT_OP_READ_REQUEST && (flags & SOFT_OPF_READ))
				read_again(rc, r, pkt);
			else if (r->op != SOFT_OP_READ_REQUEST && (flags & SOFT_OPF_ATOMIC) &&
				 r->psn == pkt->bth.psn)
				atomic_respond(rc, r);
			return;
		}
		return;
	}
	if (pkt->bth.ack_req)
		soft_rc_send_ack(rc, soft_psn_add(rc->epsn, (uint32_t)-1),
				 soft_aeth_encode(SOFT_AETH_ACK, SOFT_AETH_CREDITS_INVALID));
}

static void rc_error(soft_rc_t *rc, int r)
{
	static const uint8_t code[] = { 0, 0, SOFT_NAK_INVALID_REQ, SOFT_NAK_REM_ACCESS_ERR,
					SOFT_NAK_REM_OP_ERR };

	if (r == EXEC_RNR) {
		soft_rc_send_ack(rc, rc->epsn, soft_aeth_encode(SOFT_AETH_RNR_NAK, rc->path.min_rnr));
		return;
	}
	if (rc->have_rwqe)
		recv_err(rc, IB_WCS_WR_FLUSHED_ERR);
	/* The QP is in ERROR before the requester can learn of it. */
	soft_rc_fail(rc, NULL, IB_WCS_SUCCESS,
		     r == EXEC_NAK_ACC ? PROV_QP_EV_ACCESS_ERR
		     : r == EXEC_NAK_INV ? PROV_QP_EV_REQ_ERR : PROV_QP_EV_WQ_ERR);
	soft_rc_send_ack(rc, rc->epsn, soft_aeth_encode(SOFT_AETH_NAK, code[r]));
}

static void uc_recv(soft_rc_t *rc, const soft_pkt_t *pkt, uint16_t flags)
{
	boolean_t starts = (flags & (SOFT_OPF_FIRST | SOFT_OPF_ONLY)) != 0;

	if (pkt->bth.psn != rc->epsn && !starts) {
		rc->uc_drop = TRUE;
		rc->in_op = 0;
	}
	rc->epsn = soft_psn_add(pkt->bth.psn, 1);
	if (starts) {
		rc->in_op = 0; /* a partial message is abandoned, its WQE kept */
		rc->uc_drop = FALSE;
	} else if (rc->uc_drop) {
		return;
	}
	if (execute(rc, pkt, flags) != EXEC_OK) {
		rc->in_op = 0;
		rc->uc_drop = TRUE;
	}
}

void soft_rc_resp_recv(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	uint16_t flags = soft_opcode_info(pkt->bth.opcode)->flags;
	int r;

	if (rc->uc) {
		uc_recv(rc, pkt, flags);
		return;
	}
	switch (soft_psn_region(pkt->bth.psn, rc->epsn)) {
	case SOFT_PSN_DUPLICATE:
		duplicate(rc, pkt, flags);
		return;
	case SOFT_PSN_INVALID:
		if (rc->pend_n) {
			rc->pend_nak = TRUE; /* the NAK must not pass the waiting responses */
			return;
		}
		if (!rc->nak_sent)
			soft_rc_send_ack(rc, rc->epsn,
					 soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_PSN_SEQ_ERR));
		rc->nak_sent = TRUE;
		return;
	default:
		break;
	}
	/* Read responses wait for room: only reads may queue behind them (a
	 * write, send or atomic now could change what they return, or its ACK
	 * pass them). The others are dropped and NAKed once the reads are out. */
	if (rc->pend_n && !(flags & SOFT_OPF_READ)) {
		rc->pend_nak = TRUE;
		return;
	}
	rc->nak_sent = FALSE;
	r = execute(rc, pkt, flags);
	if (r == EXEC_DROP)
		return;
	if (r == EXEC_NO_DIRECT) {
		soft_rc_refuse_direct(rc);
		rc->nak_sent = TRUE;
		return;
	}
	if (r != EXEC_OK) {
		rc_error(rc, r);
		return;
	}
	if (flags & (SOFT_OPF_SEND | SOFT_OPF_WRITE)) {
		/* A direct write consumed the PSNs of the packets it stands for. */
		uint32_t last = (pkt->link_flags & SOFT_FABRIC_DIRECT)
					? soft_psn_add(pkt->bth.psn, read_npkt(rc, pkt->reth.dma_len) - 1)
					: pkt->bth.psn;

		rc->epsn = soft_psn_add(last, 1);
		if (pkt->bth.ack_req)
			ack_later(rc, last);
	}
}
