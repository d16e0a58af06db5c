/*
 * ibal access layer: the CM's requests to one remote port, paced to what it can take in.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A request (REQ, DREQ, LAP, SIDR_REQ) lands in a receive buffer of the
 * remote port's QP1. A burst of more than that QP has buffers (thousands of
 * connections made or ended at once) loses the rest, as a UD QP must, and
 * each lost request costs its sender a whole response timeout, seconds.
 * So this process keeps at most al_cm_pace_max() requests to one remote
 * port on the wire that have had no answer yet; a request beyond them waits
 * here, in order, and is sent (its timer started afresh) when an answer
 * comes for one of them. An answer is any message of the peer for its
 * endpoint: a reply, a REJ, an MRA (the peer has the request; only its
 * answer waits). A request that gives up, or whose endpoint ends, leaves its
 * place too. See docs/cm.md.
 *
 * Everything here runs under al_cm_g.lock.
 */
#include <complib/cl_memory.h>
#include "al_cm_int.h"
#include "ibal_log.h"

uint32_t al_cm_pace_max(void)
{
	return al_cm_g.pace_max ? al_cm_g.pace_max : AL_CM_PACE_MAX;
}

/* The messages that wait for an answer from the peer's CM. */
static boolean_t is_request(al_cm_msg_type_t type)
{
	return type == AL_CM_MSG_REQ || type == AL_CM_MSG_DREQ || type == AL_CM_MSG_LAP ||
	       type == AL_CM_MSG_SIDR_REQ;
}

/*
 * The remote port a CEP's messages go to, seen from its local port: the
 * address they are sent to (al_cm_cep_send_to), the DGID's port GUID when
 * they carry a GRH, else the DLID. Not a GID the peer only claims: a passive
 * CEP's path comes from the peer's REQ, and a peer naming another port's
 * GID there must not make our requests to itself wait behind that port's.
 */
static cm_dest_t *dest_get(const al_cep_t *p_cep)
{
	uint64_t a = ib_path_rec_hop_limit(&p_cep->path) > 1
			     ? p_cep->path.dgid.unicast.interface_id
			     : (uint64_t)1 << 63 | cl_ntoh16(p_cep->dlid);
	uint64_t b = (uint64_t)(uintptr_t)p_cep->p_port;
	cm_hitem_t *e = cm_hash_find(&al_cm_g.dests, a, b, TRUE);
	cm_dest_t *d;

	if (e)
		return PARENT_STRUCT(e, cm_dest_t, by_dest);
	d = (cm_dest_t *)cl_zalloc(sizeof(*d));
	if (!d)
		return NULL;
	cl_qlist_init(&d->parked);
	d->p_port = p_cep->p_port;
	cm_hash_set(&al_cm_g.dests, &d->by_dest, TRUE, a, b, 0);
	return d;
}

/*
 * The CEP's request takes a place at @p d. Once its port has twice what one
 * remote port takes on the wire (512 at the default pace: half a MAD
 * dispatcher's first receive buffers), the answers of several remote ports
 * may come at once, and the port's MAD dispatcher makes room for a burst
 * before they do (al_cm_port_expect_burst(), once). A process connecting to
 * one server never asks: one remote port's answers fit the first buffers,
 * and growing them is memory made resident on the dispatcher's thread in
 * the middle of the burst (docs/mad.md).
 */
static void take_place(cm_dest_t *d, al_cep_t *p_cep)
{
	d->n_out++;
	p_cep->paced = TRUE;
	if (++d->p_port->reqs_out >= 2 * al_cm_pace_max())
		al_cm_port_expect_burst(d->p_port);
}

/* Frees a destination that has nothing on the wire and nothing waiting. */
static void dest_put(cm_dest_t *d)
{
	if (d->n_out || cl_qlist_count(&d->parked))
		return;
	cm_hash_set(&al_cm_g.dests, &d->by_dest, FALSE, 0, 0, 0);
	cl_free(d);
}

/* Sends the waiting requests the destination has room for, first first. */
static void pump(cm_dest_t *d)
{
	cl_list_item_t *it;
	al_cep_t *p_cep;

	while (d->n_out < al_cm_pace_max() &&
	       (it = cl_qlist_remove_head(&d->parked)) != cl_qlist_end(&d->parked)) {
		p_cep = PARENT_STRUCT(it, al_cep_t, park_item);
		p_cep->parked = FALSE;
		take_place(d, p_cep);
		al_cm_cep_send_to(p_cep, p_cep->last_type, &p_cep->last);
		/* Its response timeout counts from now, not from the call that
		 * made the request. */
		if (al_cm_timer_on(p_cep))
			al_cm_timer_rearm(p_cep, p_cep->timeout_ms);
	}
}

boolean_t al_cm_pace_send(al_cep_t *p_cep, al_cm_msg_type_t type)
{
	cm_dest_t *d;

	if (!is_request(type)) {
		/* A reply or a REJ ends what the CEP asked before. */
		al_cm_pace_done(p_cep);
		return TRUE;
	}
	if (p_cep->paced)
		return TRUE;            /* a resend: its place is its own */
	if (p_cep->parked)
		return FALSE;           /* it waits on; the latest request goes */
	if (!p_cep->p_port || (d = dest_get(p_cep)) == NULL)
		return TRUE;            /* no memory: unpaced, as before */
	p_cep->p_dest = d;
	if (d->n_out < al_cm_pace_max() && !cl_qlist_count(&d->parked)) {
		take_place(d, p_cep);
		return TRUE;
	}
	cl_qlist_insert_tail(&d->parked, &p_cep->park_item);
	p_cep->parked = TRUE;
	al_cm_g.stats.n_paced++;
	IBAL_DBG(IBAL_SUB_CM, "comm ID 0x%x: %s waits, %u requests to that port await their answer",
		 p_cep->local_id, al_cm_msg_name(type), d->n_out);
	return FALSE;
}

void al_cm_pace_done(al_cep_t *p_cep)
{
	cm_dest_t *d = p_cep->p_dest;

	if (!d)
		return;
	if (p_cep->parked)
		cl_qlist_remove_item(&d->parked, &p_cep->park_item);
	if (p_cep->paced) {
		d->n_out--;
		d->p_port->reqs_out--;
	}
	p_cep->parked = FALSE;
	p_cep->paced = FALSE;
	p_cep->p_dest = NULL;
	pump(d);
	dest_put(d);
}

void al_cm_pace_end(al_cep_t *p_cep)
{
	boolean_t parked = p_cep->parked;

	al_cm_pace_done(p_cep);
	/* What an ending CEP still had to say (a DREQ from its destruction)
	 * goes now: nothing will be left to send it later. */
	if (parked)
		al_cm_cep_send_to(p_cep, p_cep->last_type, &p_cep->last);
}

uint32_t al_cm_pace_dests(void)
{
	return al_cm_g.lists_init ? cm_hash_count(&al_cm_g.dests) : 0;
}
