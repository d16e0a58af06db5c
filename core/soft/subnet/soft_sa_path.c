/*
 * ibal soft provider: the SA's PathRecord and MultiPathRecord queries (IBA 15.2.5.16, 15.2.5.20).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A path joins two end ports that are both ACTIVE. Its MTU is the smaller
 * active MTU of the two ends, its rate the slower of their rates (from
 * LinkWidthActive and LinkSpeedActive), its PacketLifeTime SA_PKT_LIFE; the
 * MTU, rate and lifetime selectors of the request may lower the MTU or rate
 * (LESS_THAN, EXACTLY) or reject the path. P_Key: the requested one when
 * both ports hold it, else the default partition, else the first P_Key
 * both hold. SL: the requested one, else 0. Endpoints: SGID or SLID, DGID or
 * DLID; an endpoint not given means every port (a "world" query); an
 * unknown GID is answered INVALID_GID, an unknown LID NO_RECORDS. With an
 * LMC each source LID/destination LID pair is a path, up to NumbPath per
 * port pair when it is given. Paths are reversible (bit 7 of num_path).
 * A multicast DGID asks for the path from the source to that group's MLID.
 */
#include <inttypes.h>
#include "soft_sa_int.h"
#include "ibal_log.h"

/* What a query asks of a path. */
typedef struct path_want {
	uint64_t cm;          /**< Component mask, host order, PathRecord bits. */
	const ib_path_rec_t *pr; /**< The request's record (PathRecord layout). */
	unsigned numb;        /**< Paths per port pair (0: all). */
} path_want_t;

static bool port_usable(const sa_port_t *e)
{
	return e->p.node_info.node_type != IB_NODE_TYPE_SWITCH &&
	       ib_port_info_get_port_state(&e->p.port_info) == IB_LINK_ACTIVE && e->p.port_info.base_lid;
}

static uint8_t port_rate(const sa_port_t *e)
{
	return ib_port_info_compute_rate(&e->p.port_info,
					 (e->p.port_info.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) != 0);
}

static uint8_t pick_life(uint8_t sel, uint8_t want, bool given, bool *ok)
{
	*ok = true;
	if (!given || sel == IB_PATH_SELECTOR_LARGEST)
		return SA_PKT_LIFE;
	switch (sel) {
	case IB_PATH_SELECTOR_GREATER_THAN:
		if (want >= 63)
			break;
		return want >= SA_PKT_LIFE ? (uint8_t)(want + 1) : SA_PKT_LIFE;
	case IB_PATH_SELECTOR_LESS_THAN:
		if (SA_PKT_LIFE < want)
			return SA_PKT_LIFE;
		break;
	default: /* EXACTLY */
		if (want >= SA_PKT_LIFE)
			return want;
		break;
	}
	*ok = false;
	return 0;
}

static unsigned rate_merit(uint8_t r)
{
	return soft_sa_rate_bw(r);
}

/* The P_Key a path between s and d uses, or 0. */
static ib_net16_t path_pkey(const sa_port_t *s, const sa_port_t *d, const path_want_t *w)
{
	unsigned i;

	if (w->cm & (1u << 13)) {
		ib_net16_t k = w->pr->pkey;

		return soft_sa_port_has_pkey(s, k) && soft_sa_port_has_pkey(d, k) ? k : 0;
	}
	if (soft_sa_port_has_pkey(s, cl_hton16(IB_DEFAULT_PKEY)) && soft_sa_port_has_pkey(d, cl_hton16(IB_DEFAULT_PKEY)))
		return cl_hton16(IB_DEFAULT_PKEY);
	for (i = 0; i < IB_NUM_PKEY_ELEMENTS_IN_BLOCK; i++) {
		ib_net16_t k = s->p.pkey_table.pkey_entry[i];

		if ((k & IB_PKEY_BASE_MASK) && soft_sa_port_has_pkey(d, k))
			return k;
	}
	return 0;
}

/* Builds the path from s to d with the given LIDs; false when the request excludes it. */
static bool path_build(soft_sa_t *sa, const sa_port_t *s, const sa_port_t *d, uint16_t slid, uint16_t dlid,
		       const path_want_t *w, ib_path_rec_t *out)
{
	const ib_path_rec_t *q = w->pr;
	uint8_t mtu_avail = soft_sa_port_mtu(s), rate_s = port_rate(s), rate_d = port_rate(d);
	uint8_t rate_avail, mtu, rate, life, sl = 0;
	ib_net16_t pkey;
	bool ok;

	(void)sa;
	if (soft_sa_port_mtu(d) < mtu_avail)
		mtu_avail = soft_sa_port_mtu(d);
	rate_avail = soft_sa_rate_bw(rate_d) < soft_sa_rate_bw(rate_s) ? rate_d : rate_s;
	mtu = soft_sa_select((uint8_t)(q->mtu >> 6), (uint8_t)(q->mtu & IB_PATH_REC_BASE_MASK), mtu_avail,
			(w->cm & (1u << 17)) != 0 && (w->cm & (1u << 16)) != 0, soft_sa_mtu_merit,
			soft_sa_mtu_cands, 5);
	if ((w->cm & (1u << 17)) && !(w->cm & (1u << 16)))
		mtu = (q->mtu & IB_PATH_REC_BASE_MASK) <= mtu_avail ? (uint8_t)(q->mtu & IB_PATH_REC_BASE_MASK) : 0;
	if (!mtu)
		return false;
	rate = soft_sa_select((uint8_t)(q->rate >> 6), (uint8_t)(q->rate & IB_PATH_REC_BASE_MASK), rate_avail,
			 (w->cm & (1u << 19)) != 0 && (w->cm & (1u << 18)) != 0, rate_merit,
			 soft_sa_rate_cands, soft_sa_n_rate_cands);
	if ((w->cm & (1u << 19)) && !(w->cm & (1u << 18))) {
		uint8_t want = (uint8_t)(q->rate & IB_PATH_REC_BASE_MASK);

		rate = soft_sa_rate_bw(want) && soft_sa_rate_bw(want) <= soft_sa_rate_bw(rate_avail) ? want : 0;
	}
	if (!rate)
		return false;
	life = pick_life((uint8_t)(q->pkt_life >> 6), (uint8_t)(q->pkt_life & IB_PATH_REC_BASE_MASK),
			 (w->cm & (1u << 21)) != 0, &ok);
	if ((w->cm & (1u << 21)) && !(w->cm & (1u << 20))) {
		life = (uint8_t)(q->pkt_life & IB_PATH_REC_BASE_MASK);
		ok = life >= SA_PKT_LIFE;
	}
	if (!ok)
		return false;
	pkey = path_pkey(s, d, w);
	if (!pkey)
		return false;
	if (w->cm & (1u << 15))
		sl = (uint8_t)(cl_ntoh16(q->qos_class_sl) & IB_PATH_REC_SL_MASK);
	/* Fields a path cannot change must match when given. */
	if ((w->cm & (1u << 6)) && (q->hop_flow_raw & CL_HTON32(0x80000000)))
		return false; /* raw traffic is not routed */

	memset(out, 0, sizeof(*out));
	out->service_id = (w->cm & 3u) ? q->service_id : 0;
	out->dgid = soft_sa_port_gid(d);
	out->sgid = soft_sa_port_gid(s);
	out->dlid = cl_hton16(dlid);
	out->slid = cl_hton16(slid);
	{
		uint32_t flow = (w->cm & (1u << 8)) ? cl_ntoh32(q->hop_flow_raw) & 0x0FFFFF00u : 0;
		uint32_t hop = (w->cm & (1u << 9)) ? cl_ntoh32(q->hop_flow_raw) & 0xFFu : 0;

		out->hop_flow_raw = cl_hton32(flow | hop);
	}
	out->tclass = (w->cm & (1u << 10)) ? q->tclass : 0;
	out->num_path = 0x80; /* reversible */
	out->pkey = pkey;
	out->qos_class_sl = cl_hton16((uint16_t)(((w->cm & (1u << 14)) ? cl_ntoh16(q->qos_class_sl) & 0xFFF0u : 0) | sl));
	out->mtu = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | mtu);
	out->rate = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | rate);
	out->pkt_life = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | life);
	out->preference = 0;
	return true;
}

/* Adds the paths from s to d (LID ranges narrowed by slid/dlid when non-zero). */
static void path_pair(soft_sa_t *sa, const sa_port_t *s, const sa_port_t *d, uint16_t slid, uint16_t dlid,
		      const path_want_t *w, sa_recs_t *r)
{
	unsigned ns = 1u << soft_sa_port_lmc(s), nd = 1u << soft_sa_port_lmc(d), n, i, made = 0;
	uint16_t sb = cl_ntoh16(s->p.port_info.base_lid), db = cl_ntoh16(d->p.port_info.base_lid);

	if (!port_usable(s) || !port_usable(d))
		return;
	if (slid) {
		sb = slid;
		ns = 1;
	}
	if (dlid) {
		db = dlid;
		nd = 1;
	}
	n = ns > nd ? ns : nd;
	for (i = 0; i < n; i++) {
		ib_path_rec_t pr;

		if (w->numb && made >= w->numb)
			break;
		if (!path_build(sa, s, d, (uint16_t)(sb + i % ns), (uint16_t)(db + i % nd), w, &pr))
			continue;
		if (soft_sa_recs_add(r, &pr))
			made++;
	}
}

/*
 * Resolves one endpoint: by GID (bit gid_bit) or LID (bit lid_bit). An
 * unknown GID is INVALID_GID, an unknown LID (or a LID of another port than
 * the GID's) NO_RECORDS, as OpenSM answers.
 */
static ib_net16_t path_end(soft_sa_t *sa, uint64_t cm, int gid_bit, int lid_bit, const ib_gid_t *gid,
			   ib_net16_t lid, sa_port_t **pe, uint16_t *plid)
{
	sa_port_t *e = NULL;

	*pe = NULL;
	*plid = 0;
	if (cm & ((uint64_t)1 << gid_bit)) {
		e = soft_sa_port_by_gid(sa, gid);
		if (!e) {
			IBAL_DBG(IBAL_SUB_SM, "PathRecord: GID 0x%016" PRIx64 ":0x%016" PRIx64 " unknown (%zu ports)",
				 cl_ntoh64(gid->unicast.prefix), cl_ntoh64(gid->unicast.interface_id), sa->n_ports);
			return IB_SA_MAD_STATUS_INVALID_GID;
		}
	}
	if (cm & ((uint64_t)1 << lid_bit)) {
		sa_port_t *l = soft_sa_port_by_lid(sa, cl_ntoh16(lid));

		if (!l || (e && l != e))
			return IB_SA_MAD_STATUS_NO_RECORDS;
		e = l;
		*plid = cl_ntoh16(lid);
	}
	*pe = e;
	return IB_SA_MAD_STATUS_SUCCESS;
}

/*
 * A path to a multicast group (DGID an MGID): from the source port given to
 * the group's MLID, with the group's MTU, rate, lifetime, P_Key, SL, flow
 * label, hop limit and traffic class. The source must be an ACTIVE end
 * port holding the group's P_Key; the path is not reversible.
 */
static void path_mcast(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, const path_want_t *w)
{
	const ib_path_rec_t *q = w->pr;
	sa_mcg_t *g = soft_sa_mcg_find(sa, &q->dgid);
	sa_port_t *s;
	uint16_t slid;
	ib_net16_t st = path_end(sa, w->cm, 3, 5, &q->sgid, q->slid, &s, &slid);
	ib_path_rec_t pr;
	uint8_t sl;
	sa_recs_t r;

	if (st != IB_SA_MAD_STATUS_SUCCESS) {
		soft_sa_respond_err(sa, req, src, st);
		return;
	}
	soft_sa_recs_init(&r, sizeof(ib_path_rec_t));
	if (g && s && port_usable(s) && soft_sa_port_has_pkey(s, g->rec.pkey) &&
	    (!(w->cm & (1u << 13)) || (q->pkey & IB_PKEY_BASE_MASK) == (g->rec.pkey & IB_PKEY_BASE_MASK))) {
		ib_member_get_sl_flow_hop(g->rec.sl_flow_hop, &sl, NULL, NULL);
		memset(&pr, 0, sizeof(pr));
		pr.dgid = g->rec.mgid;
		pr.sgid = soft_sa_port_gid(s);
		pr.dlid = g->rec.mlid;
		pr.slid = cl_hton16(slid ? slid : cl_ntoh16(s->p.port_info.base_lid));
		pr.hop_flow_raw = cl_hton32(cl_ntoh32(g->rec.sl_flow_hop) & 0x0FFFFFFFu);
		pr.tclass = g->rec.tclass;
		pr.pkey = g->rec.pkey;
		pr.qos_class_sl = cl_hton16(sl);
		pr.mtu = g->rec.mtu;
		pr.rate = g->rec.rate;
		pr.pkt_life = g->rec.pkt_life;
		if ((!(w->cm & (1u << 15)) || (cl_ntoh16(q->qos_class_sl) & 0xF) == sl))
			soft_sa_recs_add(&r, &pr);
	}
	soft_sa_respond(sa, req, src, &r);
}

void soft_sa_h_path(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	const ib_path_rec_t *q = (const ib_path_rec_t *)req->data;
	path_want_t w;
	sa_port_t *s, *d;
	uint16_t slid, dlid;
	ib_net16_t st;
	sa_recs_t r;
	size_t i, j;

	w.cm = cl_ntoh64(req->comp_mask);
	w.pr = q;
	w.numb = (w.cm & (1u << 12)) ? (q->num_path & 0x7F) : 0;
	soft_sa_recs_init(&r, sizeof(ib_path_rec_t));
	if ((w.cm & (1u << 12)) && w.numb == 0) {
		soft_sa_respond(sa, req, src, &r);
		return;
	}
	if ((w.cm & (1u << 3)) && ib_gid_is_multicast(&q->sgid)) {
		soft_sa_recs_free(&r);
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INVALID_GID);
		return;
	}
	if ((w.cm & (1u << 2)) && ib_gid_is_multicast(&q->dgid)) {
		soft_sa_recs_free(&r);
		path_mcast(sa, req, src, &w);
		return;
	}
	st = path_end(sa, w.cm, 3, 5, &q->sgid, q->slid, &s, &slid);
	if (st == IB_SA_MAD_STATUS_SUCCESS)
		st = path_end(sa, w.cm, 2, 4, &q->dgid, q->dlid, &d, &dlid);
	if (st != IB_SA_MAD_STATUS_SUCCESS) {
		soft_sa_recs_free(&r);
		soft_sa_respond_err(sa, req, src, st);
		return;
	}
	for (i = 0; i < (s ? 1 : sa->n_ports); i++) {
		sa_port_t *ps = s ? s : &sa->ports[i];

		for (j = 0; j < (d ? 1 : sa->n_ports); j++) {
			sa_port_t *pd = d ? d : &sa->ports[j];

			path_pair(sa, ps, pd, slid, dlid, &w, &r);
		}
	}
	soft_sa_respond(sa, req, src, &r);
}

/* MultiPathRecord component bits translated to PathRecord bits. */
static uint64_t mpr_to_pr_mask(uint64_t m)
{
	uint64_t pr = 0;

	if (m & (1u << 0))
		pr |= 1u << 6;
	if (m & (1u << 2))
		pr |= 1u << 8;
	if (m & (1u << 3))
		pr |= 1u << 9;
	if (m & (1u << 4))
		pr |= 1u << 10;
	if (m & (1u << 5))
		pr |= 1u << 11;
	if (m & (1u << 6))
		pr |= 1u << 12;
	/* P_Key .. PacketLifeTime: bits 7..15 map to 13..21 */
	pr |= ((m >> 7) & 0x1FFu) << 13;
	if (m & ((1u << 16) | (1u << 21)))
		pr |= 3u;
	return pr;
}

void soft_sa_h_multipath(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	const ib_multipath_rec_t *m = (const ib_multipath_rec_t *)req->data;
	uint64_t cm = cl_ntoh64(req->comp_mask);
	ib_path_rec_t q;
	path_want_t w;
	sa_recs_t r;
	unsigned i, j, limit;

	soft_sa_recs_init(&r, sizeof(ib_path_rec_t));
	if (!(cm & (1u << 19)) || !(cm & (1u << 20)) || !m->sgid_count || !m->dgid_count) {
		soft_sa_recs_free(&r);
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INSUF_COMPS);
		return;
	}
	if ((unsigned)m->sgid_count + m->dgid_count > IB_MULTIPATH_MAX_GIDS) {
		soft_sa_recs_free(&r);
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	memset(&q, 0, sizeof(q));
	q.service_id = ib_multipath_rec_service_id(m);
	q.hop_flow_raw = m->hop_flow_raw;
	q.tclass = m->tclass;
	q.num_path = m->num_path;
	q.pkey = m->pkey;
	q.qos_class_sl = m->qos_class_sl;
	q.mtu = m->mtu;
	q.rate = m->rate;
	q.pkt_life = m->pkt_life;
	w.cm = mpr_to_pr_mask(cm);
	w.pr = &q;
	w.numb = 0;
	limit = (cm & (1u << 6)) ? (m->num_path & 0x7Fu) : 0;
	for (i = 0; i < m->sgid_count; i++) {
		sa_port_t *s = soft_sa_port_by_gid(sa, &m->gids[i]);

		if (!s)
			continue;
		for (j = 0; j < m->dgid_count; j++) {
			sa_port_t *d = soft_sa_port_by_gid(sa, &m->gids[m->sgid_count + j]);

			if (!d)
				continue;
			path_pair(sa, s, d, 0, 0, &w, &r);
		}
	}
	if (limit && r.n > limit)
		r.n = limit;
	soft_sa_respond(sa, req, src, &r);
}
