/*
 * ibal soft provider: RC/UC transport entry points, packet emission, error handling and the timer.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The soft HCA calls the connected transports directly (soft_qp.c,
 * soft_progress.c). Their state (soft_rc_t) is made when an RC or UC QP
 * is created (a UD QP's when it first leaves RESET), published in qp->rc
 * under tab_lock (write), and freed by soft_rc_destroy after the timer is
 * gone.
 *
 * Timer: one cl_timer per QP serves the retransmission timeout (IBA
 * 9.7.6.1.3: 4.096 us * 2^local_ack_timeout, never below
 * SOFT_RC_MIN_TIMEOUT_MS; 0 means infinite, no timer) and RNR NAK waits.
 * Its callback takes tab_lock (read) and rc->lock like every other path.
 *
 * Errors: a requester failure (retries exhausted, NAK, local protection)
 * completes the failing WQE with its status and moves an RC QP to ERROR
 * (a UC one to SQERR); everything else queued completes with
 * IB_WCS_WR_FLUSHED_ERR, the receive queue too when the QP is in ERROR.
 * With an ARMED alternate path, exhausted retries migrate instead
 * (soft_apm.c).
 *
 * Paths: every packet carries the path's MigReq bit (set while the APM
 * state is MIGRATED, IBA 9.2 and 17.2.8); a change of the primary path
 * while the QP sends (a migration) makes RC resend what is unacknowledged
 * on the new path at once.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "soft_rc.h"
#include "ibal_log.h"
#include "ibal_time.h"

/* Every thread builds its packets in its own buffer: none per QP. */
static __thread uint8_t thread_pkt[SOFT_MAX_PKT_LEN] __attribute__((aligned(64)));
/* Its address, found once per thread: an initial-exec pointer is one load,
 * where the buffer's own address costs a call to __tls_get_addr in a shared
 * library (and a large initial-exec buffer could keep it from being loaded
 * with dlopen). */
static __thread uint8_t *thread_buf __attribute__((tls_model("initial-exec")));

static inline uint8_t *pkt_buf(void)
{
	uint8_t *b = thread_buf;

	if (__builtin_expect(!b, 0))
		b = thread_buf = thread_pkt;
	return b;
}

uint8_t *soft_rc_hdrs(soft_rc_t *rc, soft_pkt_t *pkt)
{
	soft_rc_path_t *p = &rc->path;
	boolean_t bare = soft_opcode_bare(pkt->bth.opcode);
	uint8_t *buf = pkt_buf();
	uint16_t slid;
	size_t hdr_len;

	if (!p->port)
		return NULL;
	slid = soft_port_lid(p->port);
	rc->buf = buf;
	/* Packets without extended headers (sends, write and read response
	 * middles): on the path's base, unless the port's LID
	 * changed since it was made. */
	if (bare && p->base_len && p->base_slid == slid) {
		hdr_len = soft_hdrs_on_base(buf, p->base, p->base_len, pkt->bth.opcode,
					    pkt->bth.se, pkt->bth.ack_req, pkt->bth.psn,
					    pkt->payload_len);
		rc->buf_hdr_len = (uint32_t)hdr_len;
		return buf + hdr_len;
	}
	pkt->lrh.vl = 0;
	pkt->lrh.sl = p->sl;
	pkt->lrh.lnh = p->grh ? SOFT_LNH_IBA_GLOBAL : SOFT_LNH_IBA_LOCAL;
	pkt->lrh.dlid = p->dlid;
	pkt->lrh.slid = slid;
	if (p->grh)
		pkt->grh = p->grh_hdr;
	pkt->bth.pkey = p->pkey;
	pkt->bth.mig = p->mig;
	pkt->bth.dest_qp = p->dest_qpn;
	if (soft_pkt_build_hdrs(pkt, rc->buf, SOFT_MAX_PKT_LEN, &hdr_len) != SOFT_WIRE_OK)
		return NULL;
	if (bare) {
		memcpy(p->base, rc->buf, hdr_len);
		p->base_len = (uint8_t)hdr_len;
		p->base_slid = slid;
	}
	rc->buf_hdr_len = (uint32_t)hdr_len;
	return rc->buf + hdr_len;
}

/* Pads, seals and sends the packet in rc->buf with fabric @p flags. Its
 * length from the headers' (soft_rc_hdrs) and the payload's: no second
 * look at the opcode table per packet. */
static ib_api_status_t send_flags(soft_rc_t *rc, const soft_pkt_t *pkt, uint32_t flags)
{
	uint8_t *end = rc->buf + rc->buf_hdr_len + pkt->payload_len;
	uint32_t pad = (4u - (pkt->payload_len & 3u)) & 3u, i;

	for (i = 0; i < pad; i++)
		end[i] = 0;
	return soft_port_xmit_data(rc->path.port, rc->buf,
				   (size_t)(end + pad - rc->buf) + SOFT_ICRC_LEN + SOFT_VCRC_LEN, flags);
}

void soft_rc_send(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	send_flags(rc, pkt, 0);
}

ib_api_status_t soft_rc_send_req(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	return send_flags(rc, pkt, SOFT_FABRIC_TELL_FULL);
}

ib_api_status_t soft_rc_send_direct(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	return send_flags(rc, pkt, SOFT_FABRIC_DIRECT);
}

/*
 * A positive ACK the peer's ring had no room for waits as a coalesced one:
 * the QP is queued with its CA and soft_rc_flush_ack() sends it (or a later
 * one) when the QP resumes, so that its requester does not wait out a
 * retransmission timeout for an ACK a full ring dropped. NAKs are sent as
 * before (a dropped one is recovered by the requester's timer).
 */
static void ack_hold(soft_rc_t *rc, uint32_t psn)
{
	if (rc->ack_due) {
		/* One waits already: it covers this one unless this one is later. */
		if (soft_psn_lt(rc->ack_psn, psn))
			rc->ack_psn = psn;
		return;
	}
	rc->ack_psn = psn;
	rc->ack_due = soft_ca_pend(rc->qp->ca, rc->qp->qpn, TRUE);
}

static uint32_t ack_flags(uint8_t syndrome)
{
	return soft_aeth_type(syndrome) == SOFT_AETH_ACK ? SOFT_FABRIC_TELL_FULL : 0;
}

/*
 * An ACK or NAK of @p psn; with @p direct marked SOFT_FABRIC_DIRECT, or plain
 * where the fabric cannot carry the mark now. A plain one is the path's ACK
 * headers (made by the codec for the first, kept in the path) with its PSN
 * and AETH set: about half the instructions of building each.
 */
static void send_ack(soft_rc_t *rc, uint32_t psn, uint8_t syndrome, boolean_t direct)
{
	soft_rc_path_t *p = &rc->path;
	soft_pkt_t pkt;
	uint8_t *b;

	soft_rc_flush_ack(rc);
	if (!direct && p->ack_len && p->port && p->ack_slid == soft_port_lid(p->port)) {
		b = pkt_buf();
		/* The whole array, a constant size: a few vector moves, where a copy
		 * of ack_len bytes is a loop over the bytes past the last 64-byte
		 * block (the build's memcpy strategy, configure.ac). The bytes past
		 * ack_len are not part of the packet. */
		memcpy(b, p->ack_hdr, sizeof(p->ack_hdr));
		soft_bth_set_psn(b + p->ack_len - SOFT_AETH_LEN - SOFT_BTH_LEN, psn & SOFT_PSN_MASK);
		soft_aeth_set(b + p->ack_len - SOFT_AETH_LEN, syndrome, rc->msn & SOFT_MSN_MASK);
		if (soft_port_xmit_data(p->port, b, (size_t)p->ack_len + SOFT_ICRC_LEN + SOFT_VCRC_LEN,
					ack_flags(syndrome)) == IB_RESOURCE_BUSY)
			ack_hold(rc, psn);
		return;
	}
	memset(&pkt, 0, sizeof(pkt));
	pkt.bth.opcode = SOFT_OPCODE(SOFT_TRANSPORT_RC, SOFT_OP_ACKNOWLEDGE);
	pkt.bth.psn = psn & SOFT_PSN_MASK;
	pkt.aeth.syndrome = syndrome;
	pkt.aeth.msn = rc->msn & SOFT_MSN_MASK;
	if (!soft_rc_hdrs(rc, &pkt))
		return;
	if (rc->buf_hdr_len <= sizeof(p->ack_hdr)) {
		memcpy(p->ack_hdr, rc->buf, rc->buf_hdr_len);
		p->ack_len = (uint8_t)rc->buf_hdr_len;
		p->ack_slid = pkt.lrh.slid;
	}
	if ((!direct || send_flags(rc, &pkt, SOFT_FABRIC_DIRECT) == IB_NOT_DONE) &&
	    send_flags(rc, &pkt, ack_flags(syndrome)) == IB_RESOURCE_BUSY)
		ack_hold(rc, psn);
}

void soft_rc_send_ack(soft_rc_t *rc, uint32_t psn, uint8_t syndrome)
{
	send_ack(rc, psn, syndrome, FALSE);
}

void soft_rc_refuse_direct(soft_rc_t *rc)
{
	/* Plain where the fabric observes packets now: the requester's next
	 * direct send is refused by the fabric too, and it sends packets. */
	send_ack(rc, rc->epsn, soft_aeth_encode(SOFT_AETH_NAK, SOFT_NAK_PSN_SEQ_ERR), TRUE);
}

static ib_wc_type_t wc_type(ib_wr_type_t t)
{
	switch (t) {
	case WR_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case WR_COMPARE_SWAP:
		return IB_WC_COMPARE_SWAP;
	case WR_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	default:
		return IB_WC_SEND;
	}
}

void soft_rc_complete(soft_rc_t *rc, const soft_rc_wqe_t *w, ib_wc_status_t status)
{
	soft_qp_t *qp = rc->qp;
	ib_wc_t wc;

	if (status == IB_WCS_SUCCESS && !qp->sq_signaled &&
	    !(w->wr.send_opt & IB_SEND_OPT_SIGNALED))
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = w->wr.wr_id;
	wc.wc_type = wc_type(w->wr.wr_type);
	wc.status = status;
	if (status == IB_WCS_SUCCESS)
		wc.length = w->wr.wr_type == WR_COMPARE_SWAP || w->wr.wr_type == WR_FETCH_ADD ? 8
											: w->len;
	soft_cq_add(qp->scq, &wc, FALSE);
}

void soft_rc_fail(soft_rc_t *rc, soft_rc_wqe_t *w, ib_wc_status_t status, prov_qp_event_t ev)
{
	soft_qp_t *qp = rc->qp;
	ib_qp_state_t s;

	/* The state changes first: whoever polls the completion sees it. */
	soft_lock(&qp->lock);
	soft_qp_hw_event(qp, ev);
	s = qp->attr.state;
	soft_unlock(&qp->lock);
	if (w) {
		soft_rc_complete(rc, w, status);
		w->done = TRUE;
	}
	soft_lock(&qp->lock);
	if (s == IB_QPS_ERROR) {
		soft_qp_flush_rq(qp);
		if (qp->srq)
			soft_ca_defer(qp->ca, qp, qp->al_qp, 0, IB_AE_SRQ_QP_LAST_WQE_REACHED, 0);
	}
	soft_unlock(&qp->lock);
	if (s == IB_QPS_ERROR || s == IB_QPS_SQERR || w)
		soft_rc_flush_sq(rc);
	soft_rc_timer_stop(rc);
}

void soft_rc_load_path(soft_rc_t *rc)
{
	soft_qp_t *qp = rc->qp;
	soft_rc_path_t *p = &rc->path;
	const ib_av_attr_t *av;
	uint16_t pkey = 0xFFFF;
	uint32_t mtu;

	soft_lock(&qp->lock);
	av = &qp->attr.primary_av;
	p->port = soft_ca_port(qp->ca, qp->attr.port);
	p->dlid = cl_ntoh16(av->dlid);
	p->sl = av->sl;
	p->grh = av->grh_valid;
	if (p->grh) {
		p->grh_hdr = av->grh;
		if (!(cl_ntoh32(p->grh_hdr.ver_class_flow) >> 28))
			p->grh_hdr.ver_class_flow |= CL_HTON32(0x60000000u);
		if (p->port && !p->grh_hdr.src_gid.unicast.interface_id) {
			p->grh_hdr.src_gid.unicast.prefix = IB_DEFAULT_SUBNET_PREFIX;
			p->grh_hdr.src_gid.unicast.interface_id = p->port->guid;
		}
	}
	if (p->port)
		soft_port_pkey(p->port, qp->attr.pkey_index, &pkey);
	p->pkey = pkey;
	p->dest_qpn = qp->attr.dest_qpn & SOFT_QPN_MASK;
	mtu = qp->attr.path_mtu >= 1 && qp->attr.path_mtu <= 5 ? 128u << qp->attr.path_mtu : 256u;
	if (p->port && mtu > soft_port_mtu(p->port))
		mtu = soft_port_mtu(p->port);
	p->mtu = mtu;
	p->access = qp->attr.access_ctrl;
	p->min_rnr = qp->attr.min_rnr_timer;
	p->mig = qp->attr.apm_state == IB_APM_MIGRATED;
	p->ack_len = 0; /* the ACK and data headers are made anew for this path */
	p->base_len = 0;
	rc->apm_err = FALSE;
	soft_unlock(&qp->lock);
}

/* Retransmission timeout in ms for a local ACK timeout code; 0 = infinite. */
static uint32_t timeout_ms(uint8_t code)
{
	uint64_t us;

	if (!code)
		return 0;
	us = (4096ull << (code > 31 ? 31 : code)) / 1000u;
	us = (us + 999u) / 1000u;
	if (us < SOFT_RC_MIN_TIMEOUT_MS)
		us = SOFT_RC_MIN_TIMEOUT_MS;
	return us > 0xFFFFFFFFu ? 0xFFFFFFFFu : (uint32_t)us;
}

void soft_rc_load_req(soft_rc_t *rc, boolean_t fresh)
{
	soft_qp_t *qp = rc->qp;

	soft_lock(&qp->lock);
	if (fresh)
		rc->una = rc->next_psn = qp->attr.sq_psn & SOFT_PSN_MASK;
	rc->timeout_ms = timeout_ms(qp->attr.timeout);
	rc->retry_left = rc->retry_cnt = qp->attr.retry_cnt;
	rc->rnr_left = rc->rnr_retry = qp->attr.rnr_retry;
	rc->max_rd = qp->attr.max_rd_atomic ? qp->attr.max_rd_atomic : 1;
	soft_unlock(&qp->lock);
}

static void resp_reset(soft_rc_t *rc)
{
	rc->msn = 0;
	rc->nak_sent = FALSE;
	rc->in_op = 0;
	rc->uc_drop = FALSE;
	rc->have_rwqe = FALSE;
	rc->roff = 0;
	if (rc->rd)
		memset(rc->rd, 0, SOFT_RC_RD_RES * sizeof(*rc->rd));
	rc->rd_next = 0;
	rc->pend_first = rc->pend_n = rc->pend_pkt = 0;
	rc->pend_nak = FALSE;
}

static void arm_at(soft_rc_t *rc, uint64_t now, uint64_t due)
{
	uint32_t ms = (uint32_t)((due - now + 999999u) / 1000000u);

	rc->t_fire = now + (uint64_t)ms * 1000000u;
	rc->t_armed = TRUE;
	cl_timer_start(&rc->timer, ms);
}

/*
 * The timer is started for nearly every packet sent and every ACK, while
 * reading the monotonic clock costs some 85 ns in a guest whose clock source
 * is kvm-clock (more than the rest of sending a packet). Timeouts are
 * milliseconds, so it reads the clock as of the last tick
 * (CLOCK_MONOTONIC_COARSE, a few ns; never ahead of CLOCK_MONOTONIC) and
 * adds that clock's resolution to the due time: a timeout may end up to two
 * ticks late (one for that margin, one for the complib timer started from
 * the coarse time), never early.
 */
static uint64_t coarse_res_ns;

static uint64_t coarse_ns(void)
{
	return ibal_time_ns(CLOCK_MONOTONIC_COARSE);
}

static uint64_t coarse_slack_ns(void)
{
	uint64_t res = __atomic_load_n(&coarse_res_ns, __ATOMIC_RELAXED);
	struct timespec ts;

	if (!res) {
		res = clock_getres(CLOCK_MONOTONIC_COARSE, &ts) == 0
			      ? (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec
			      : 1;
		__atomic_store_n(&coarse_res_ns, res ? res : 1, __ATOMIC_RELAXED);
	}
	return res;
}

void soft_rc_timer_start(soft_rc_t *rc, uint32_t ms)
{
	uint64_t now = coarse_ns();

	rc->t_due = now + coarse_slack_ns() + (uint64_t)ms * 1000000u;
	rc->t_ms = ms;
	if (!rc->t_armed || rc->t_fire > rc->t_due)
		arm_at(rc, now, rc->t_due);
}

void soft_rc_timer_trim(soft_rc_t *rc, uint32_t ms)
{
	/* A timer started for at most ms is due within ms from now: no clock. */
	if (!rc->t_due || (rc->t_ms > ms && rc->t_due > soft_mono_ns() + (uint64_t)ms * 1000000u))
		soft_rc_timer_start(rc, ms);
}

void soft_rc_timer_stop(soft_rc_t *rc)
{
	rc->t_due = 0;
}

static void timer_cb(void *context)
{
	soft_rc_t *rc = context;
	soft_qp_t *qp = rc->qp;
	uint64_t now;

	soft_rwlock_read(&qp->ca->tab_lock);
	soft_lock(&rc->lock);
	rc->t_armed = FALSE;
	now = soft_mono_ns();
	if (rc->dead || !rc->t_due) {
		/* stopped since it was started */
	} else if (now < rc->t_due) {
		arm_at(rc, now, rc->t_due); /* restarted since: wait for the rest */
	} else {
		rc->t_due = 0;
		soft_rc_req_timer(rc);
	}
	soft_unlock(&rc->lock);
	soft_rwlock_read_end(&qp->ca->tab_lock);
}

/* Segments of a send WQE: what the QP was created for, not the CA's maximum. */
static uint32_t rc_sq_sge(const soft_qp_t *qp)
{
	return qp->sq_sge ? qp->sq_sge : 1;
}

/* Bytes of the RC state's send WQEs (rc->mask set), their segments and its
 * receive WQE, from what its QP was made with: what rc_new() gets and
 * rc_free() puts back. The receive WQE being filled holds what the QP's
 * receive queue (or its SRQ's) may hold, not the CA's maximum: a WQE is
 * copied whole. */
typedef struct {
	size_t sq, ds, rwqe;
} rc_lens_t;

static rc_lens_t rc_lens(const soft_rc_t *rc)
{
	const soft_qp_t *qp = rc->qp;
	uint32_t rsge = qp->srq ? qp->srq->rq.max_sge : qp->rq.max_sge;
	rc_lens_t l;

	l.sq = ((size_t)rc->mask + 1) * sizeof(*rc->sq);
	l.ds = ((size_t)rc->mask + 1) * rc_sq_sge(qp) * sizeof(*rc->ds_pool);
	l.rwqe = SOFT_RWQE_SIZE(rsge ? rsge : 1);
	return l;
}

static void rc_free(soft_rc_t *rc)
{
	rc_lens_t l = rc_lens(rc);

	cl_timer_destroy(&rc->timer);
	soft_lock_destroy(&rc->lock);
	prov_conn_mem_put(rc->sq, l.sq);
	prov_conn_mem_put(rc->ds_pool, l.ds);
	cl_free(rc->inl_pool);
	prov_conn_mem_put(rc->rwqe, l.rwqe);
	cl_free(rc->rd);
	prov_conn_mem_put(rc, sizeof(*rc));
}

static soft_rc_t *rc_new(soft_qp_t *qp)
{
	uint32_t i, sge = rc_sq_sge(qp), n;
	soft_rc_t *rc = prov_conn_mem_get(sizeof(*rc));
	rc_lens_t l;

	if (!rc)
		return NULL;
	cl_timer_construct(&rc->timer);
	soft_lock_init(&rc->lock);
	rc->qp = qp;
	rc->uc = qp->cls == PROV_QPC_UC;
	rc->depth = qp->sq_depth ? qp->sq_depth : 1;
	/* A power of two of slots: a sequence number's slot is a mask, not a
	 * division, and stays in step when the 32-bit number wraps. */
	for (n = 1; n < rc->depth; n <<= 1)
		;
	rc->mask = n - 1;
	/* The send queue resident now, as an HCA's (prov_conn_mem.h). */
	l = rc_lens(rc);
	rc->sq = prov_conn_mem_get(l.sq);
	rc->ds_pool = prov_conn_mem_get(l.ds);
	rc->rwqe = prov_conn_mem_get(l.rwqe);
	if (!rc->sq || !rc->ds_pool || !rc->rwqe ||
	    cl_timer_init(&rc->timer, timer_cb, rc) != CL_SUCCESS) {
		rc_free(rc);
		return NULL;
	}
	for (i = 0; i < n; i++)
		rc->sq[i].ds = rc->ds_pool + (size_t)i * sge;
	return rc;
}

ib_api_status_t soft_rc_prepare(soft_qp_t *qp)
{
	soft_ca_t *ca = qp->ca;
	soft_rc_t *rc;

	if (__atomic_load_n(&qp->rc, __ATOMIC_ACQUIRE))
		return IB_SUCCESS;
	rc = rc_new(qp);
	if (!rc)
		return IB_INSUFFICIENT_MEMORY;
	soft_tab_write(ca);
	if (!qp->rc) {   /* two modifies at once: the first one's stays */
		__atomic_store_n(&qp->rc, rc, __ATOMIC_RELEASE);
		rc = NULL;
	}
	soft_tab_write_end(ca);
	if (rc)
		rc_free(rc);
	return IB_SUCCESS;
}

void soft_rc_state_changed(soft_qp_t *qp, ib_qp_state_t old_state, ib_qp_state_t new_state)
{
	soft_ca_t *ca = qp->ca;
	soft_rc_t *rc = qp->rc;

	if (!rc)
		return; /* a datagram QP, or still RESET (soft_rc_prepare()) */
	soft_rwlock_read(&ca->tab_lock);
	soft_lock(&rc->lock);
	if (new_state == IB_QPS_RESET) {
		soft_rc_timer_stop(rc);
		rc->head = rc->tx = rc->tail = 0;
		rc->rnr_wait = rc->req_err = rc->tx_held = FALSE;
		resp_reset(rc);
		memset(&rc->path, 0, sizeof(rc->path));
	} else if (new_state == IB_QPS_ERROR) {
		if (old_state != IB_QPS_ERROR)
			soft_rc_flush_sq(rc);
		soft_rc_timer_stop(rc);
	} else {
		soft_port_t *was_port = rc->path.port;
		uint16_t was_dlid = rc->path.dlid;

		soft_rc_load_path(rc);
		if (new_state == IB_QPS_RTR && old_state == IB_QPS_INIT) {
			soft_lock(&qp->lock);
			rc->epsn = qp->attr.rq_psn & SOFT_PSN_MASK;
			soft_unlock(&qp->lock);
			resp_reset(rc);
		}
		if (new_state == IB_QPS_RTS) {
			soft_rc_load_req(rc, old_state == IB_QPS_RTR);
			rc->req_err = FALSE;
			if (old_state != IB_QPS_RTR &&
			    (rc->path.port != was_port || rc->path.dlid != was_dlid))
				soft_rc_req_migrated(rc);
			soft_rc_pump(rc);
		}
		if (new_state == IB_QPS_SQD_DRAINING)
			soft_rc_check_drained(rc);
	}
	soft_unlock(&rc->lock);
	soft_rwlock_read_end(&ca->tab_lock);
}

void soft_rc_resume(soft_qp_t *qp)
{
	soft_rc_t *rc = qp->rc;
	ib_qp_state_t s;

	if (!rc)
		return;
	soft_lock(&rc->lock);
	s = soft_rc_state(rc);
	if (rc->dead || !soft_qp_state_receives(s)) {
		rc->pend_n = 0; /* reset or failed: nothing more is sent */
		rc->pend_nak = FALSE;
		rc->ack_due = FALSE;
		rc->tx_held = FALSE;
	} else {
		soft_rc_resp_resume(rc);
		if (rc->tx_held) {
			rc->tx_held = FALSE;
			soft_rc_pump(rc);
		}
	}
	soft_unlock(&rc->lock);
}

void soft_rc_destroy(soft_qp_t *qp)
{
	soft_rc_t *rc = qp->rc;

	if (!rc)
		return;
	soft_lock(&rc->lock);
	rc->dead = TRUE;
	soft_unlock(&rc->lock);
	rc_free(rc); /* waits for a running timer callback */
	qp->rc = NULL;
}

/* P_Key check of an incoming packet against the QP's partition. */
static boolean_t pkey_ok(soft_rc_t *rc, const soft_pkt_t *pkt)
{
	return soft_rc_pkey_match(pkt->bth.pkey, rc->path.pkey);
}

void soft_rc_recv(soft_qp_t *qp, soft_port_t *port, const soft_pkt_t *pkt)
{
	soft_rc_t *rc = qp->rc;
	const soft_opcode_info_t *oi = soft_opcode_info(pkt->bth.opcode);
	uint8_t tr = pkt->bth.opcode & SOFT_TRANSPORT_MASK;
	ib_qp_state_t s;

	if (!rc || !oi)
		return;
	if ((tr == SOFT_TRANSPORT_UC) != rc->uc) /* rc->uc is the QP type's, fixed */
		return;
	soft_lock(&rc->lock);
	s = soft_rc_state(rc);
	if (soft_qp_state_receives(s) && s != IB_QPS_RTR)
		s = IB_QPS_RTS;
	if (soft_qp_state_receives(s) && !soft_apm_recv(rc, port, pkt)) {
		soft_unlock(&rc->lock);
		return;
	}
	if (!soft_qp_state_receives(s) || port != rc->path.port || !pkey_ok(rc, pkt)) {
		if (rc->path.port && !pkey_ok(rc, pkt))
			port->pkey_ctr++;
		soft_unlock(&rc->lock);
		return;
	}
	if (pkt->lrh.slid != rc->path.dlid) {
		/* A connected QP takes packets from its path's remote port only
		 * (after soft_apm_recv, the path packets come on): not from a
		 * LID it was never connected to. */
		IBAL_DBG(IBAL_SUB_SOFT, "QP 0x%x: packet from LID 0x%x dropped: the path is to 0x%x",
			 qp->qpn, pkt->lrh.slid, rc->path.dlid);
		soft_unlock(&rc->lock);
		return;
	}
	if (oi->flags & SOFT_OPF_REQUEST) {
		if (s == IB_QPS_RTR) {
			soft_lock(&qp->lock);
			soft_qp_hw_event(qp, PROV_QP_EV_COMM_EST);
			soft_unlock(&qp->lock);
		}
		soft_rc_resp_recv(rc, pkt);
	} else if (!rc->uc) {
		soft_rc_req_recv(rc, pkt);
	}
	soft_unlock(&rc->lock);
}
