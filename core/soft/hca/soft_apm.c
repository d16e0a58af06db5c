/*
 * ibal soft provider: automatic path migration (APM) of connected QPs.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The IBA path migration state machine (vol. 1, 17.2.8) on the soft HCA,
 * for RC and UC QPs. The states live in prov_qp_attr_t.apm_state and the
 * table transitions in prov_qp_state.c (migrate(): the alternate path
 * becomes the primary one); this file decides when they happen:
 *
 * - MIGRATED (the initial state): packets carry BTH MigReq = 1. REARM and
 *   ARMED: MigReq = 0 (soft_rc_hdrs() takes the bit from the path).
 * - REARM to ARMED: a packet with MigReq = 0 arrives on the primary path
 *   (the peer has rearmed too).
 * - ARMED to MIGRATED, by the consumer: ib_modify_qp() with IB_APM_MIGRATED
 *   in RTS (ib_force_apm()); by the HCA: the requester's transport retries
 *   run out (timeouts), or a packet with MigReq = 1 arrives on the
 *   alternate path (the peer migrated). Each raises IB_AE_QP_APM on the QP;
 *   RC then resends what is unacknowledged on the new path.
 * - A packet with MigReq = 1 on the alternate path that the QP cannot take
 *   as a migration request (APM state not ARMED, or the alternate P_Key
 *   does not match) is dropped and raises IB_AE_QP_APM_ERROR (the IBA's
 *   "path migration request error"), once per path load.
 *
 * "On the alternate path" means: received on the alternate port, from the
 * alternate path's DLID (the LRH SLID). After a migration, packets still
 * arriving on the old path are dropped, as the IBA allows; the peer's
 * retries bring it over.
 *
 * Locks: called with tab_lock (read) and rc->lock held, as every transport
 * path; qp->lock is taken inside, never held across path reloads.
 */
#include "soft_rc.h"

/* The packet came in on the alternate path (qp->lock held). */
static boolean_t on_alt_path(const prov_qp_attr_t *a, const soft_port_t *port,
			     const soft_pkt_t *pkt)
{
	return a->alt_valid && port->num == a->alternate_av.port_num &&
	       pkt->lrh.slid == cl_ntoh16(a->alternate_av.dlid);
}

/* The packet's P_Key matches the alternate path's (qp->lock held). */
static boolean_t alt_pkey_ok(const soft_qp_t *qp, const soft_port_t *port,
			     const soft_pkt_t *pkt)
{
	uint16_t mine;

	return soft_port_pkey(port, qp->attr.pkey_index, &mine) &&
	       soft_rc_pkey_match(pkt->bth.pkey, mine);
}

/* The new primary path takes over (rc->lock held, qp->lock not). */
static void switch_path(soft_rc_t *rc)
{
	soft_rc_load_path(rc);
	soft_rc_load_req(rc, FALSE);
	soft_rc_req_migrated(rc);
}

boolean_t soft_apm_recv_alt(soft_rc_t *rc, soft_port_t *port, const soft_pkt_t *pkt)
{
	soft_qp_t *qp = rc->qp;
	prov_qp_attr_t *a = &qp->attr;
	boolean_t alt, migrated = FALSE, drop = FALSE;

	soft_lock(&qp->lock);
	alt = pkt->bth.mig && on_alt_path(a, port, pkt);
	if (alt && a->apm_state == IB_APM_ARMED && alt_pkey_ok(qp, port, pkt))
		migrated = soft_qp_hw_event(qp, PROV_QP_EV_MIGRATED); /* FALSE in a state that cannot migrate */
	if (!migrated && alt && (a->apm_state == IB_APM_ARMED || port != rc->path.port)) {
		/* A migration request this QP cannot honour. */
		drop = TRUE;
		if (!alt_pkey_ok(qp, port, pkt))
			port->pkey_ctr++;
		if (!rc->apm_err) {
			rc->apm_err = TRUE;
			soft_ca_defer(qp->ca, qp, qp->al_qp, 0, IB_AE_QP_APM_ERROR, 0);
		}
	} else if (!migrated && !pkt->bth.mig && a->apm_state == IB_APM_REARM &&
		   port == rc->path.port) {
		soft_qp_hw_event(qp, PROV_QP_EV_APM_ARMED);
	}
	soft_unlock(&qp->lock);
	if (migrated)
		switch_path(rc);
	return !drop;
}

boolean_t soft_apm_retry_exhausted(soft_rc_t *rc)
{
	soft_qp_t *qp = rc->qp;
	boolean_t migrated;

	soft_lock(&qp->lock);
	migrated = soft_qp_hw_event(qp, PROV_QP_EV_MIGRATED);
	soft_unlock(&qp->lock);
	if (migrated)
		switch_path(rc);
	return migrated;
}

void soft_apm_modified(soft_qp_t *qp, ib_apm_state_t old_apm, boolean_t old_alt)
{
	if (old_apm == IB_APM_ARMED && old_alt && qp->attr.apm_state == IB_APM_MIGRATED &&
	    !qp->attr.alt_valid && soft_qp_state_receives(qp->attr.state))
		soft_ca_defer(qp->ca, qp, qp->al_qp, 0, IB_AE_QP_APM, 0);
}
