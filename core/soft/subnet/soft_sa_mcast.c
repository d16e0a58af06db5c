/*
 * ibal soft provider: the SA's multicast groups (MCMemberRecord, IBA 15.2.5.17).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Set joins a port to a group, creating the group when its MGID is unknown
 * or zero (the SA then assigns one: FF1<scope>:A01B:<P_Key>::<counter>).
 * Creation needs a (send-only) full member and the Q_Key, P_Key, SL,
 * FlowLabel, TClass and JoinState components; it takes the lowest free MLID
 * from 0xC000 (or
 * the one requested if free), the MTU and rate the selectors allow within the
 * joining port's, and raises trap 66. A later joiner must agree with what it
 * gives of the group's Q_Key, P_Key, SL, FlowLabel, TClass, HopLimit, MLID
 * and the MTU/rate/lifetime selectors, and its port must reach the group's
 * MTU and rate; its JoinState bits add to what it had. Delete clears the
 * JoinState bits given; a member without bits leaves, and the group goes
 * (trap 67) when no full member is left. Get/GetTable return one record per
 * member, filtered by the component mask.
 */
#include <stdlib.h>
#include "soft_sa_int.h"

#define C_MGID (1u << 0)
#define C_PGID (1u << 1)
#define C_QKEY (1u << 2)
#define C_MLID (1u << 3)
#define C_MTUSEL (1u << 4)
#define C_MTU (1u << 5)
#define C_TCLASS (1u << 6)
#define C_PKEY (1u << 7)
#define C_RATESEL (1u << 8)
#define C_RATE (1u << 9)
#define C_LIFESEL (1u << 10)
#define C_LIFE (1u << 11)
#define C_SL (1u << 12)
#define C_FLOW (1u << 13)
#define C_HOP (1u << 14)
#define C_SCOPE (1u << 15)
#define C_JOIN (1u << 16)
#define C_PROXY (1u << 17)

#define FULL_BITS (IB_MC_REC_STATE_FULL_MEMBER | IB_MC_REC_STATE_SEND_ONLY_FULL_MEMBER)

static const sa_field_t mcm_fields[] = {
	{ 0, 0, 16, 0 }, { 1, 16, 16, 0 }, { 2, 32, 4, 0 }, { 3, 36, 2, 0 }, { 5, 38, 1, 0x3F },
	{ 6, 39, 1, 0 }, { 7, 40, 2, 0 }, { 9, 42, 1, 0x3F }, { 11, 43, 1, 0x3F }, { 12, 44, 1, 0xF0 },
	{ 15, 48, 1, 0xF0 }, { 16, 48, 1, 0x0F }, { 17, 49, 1, 0x80 },
};

sa_mcg_t *soft_sa_mcg_find(soft_sa_t *sa, const ib_gid_t *mgid)
{
	sa_mcg_t *g;

	for (g = sa->groups; g; g = g->next)
		if (!memcmp(&g->rec.mgid, mgid, sizeof(*mgid)))
			return g;
	return NULL;
}

static sa_mcm_t *mcm_find(sa_mcg_t *g, const ib_gid_t *pgid)
{
	sa_mcm_t *m;

	for (m = g->members; m; m = m->next)
		if (!memcmp(&m->port_gid, pgid, sizeof(*pgid)))
			return m;
	return NULL;
}

static bool mcg_has_full(const sa_mcg_t *g)
{
	const sa_mcm_t *m;

	for (m = g->members; m; m = m->next)
		if (m->join_state & FULL_BITS)
			return true;
	return false;
}

static void mcg_delete(soft_sa_t *sa, sa_mcg_t *g)
{
	sa_mcg_t **pp;
	ib_gid_t mgid = g->rec.mgid;
	ib_net16_t pkey = g->rec.pkey;

	for (pp = &sa->groups; *pp; pp = &(*pp)->next)
		if (*pp == g) {
			*pp = g->next;
			break;
		}
	while (g->members) {
		sa_mcm_t *m = g->members;

		g->members = m->next;
		free(m);
	}
	free(g);
	soft_sa_notice(sa, 67, &mgid, NULL, pkey);
}

static void mcm_remove(sa_mcg_t *g, sa_mcm_t *m)
{
	sa_mcm_t **pp;

	for (pp = &g->members; *pp; pp = &(*pp)->next)
		if (*pp == m) {
			*pp = m->next;
			free(m);
			return;
		}
}

void soft_sa_mcast_port_gone(soft_sa_t *sa, const ib_gid_t *gid)
{
	sa_mcg_t *g, *n;

	for (g = sa->groups; g; g = n) {
		sa_mcm_t *m = mcm_find(g, gid);

		n = g->next;
		if (!m)
			continue;
		mcm_remove(g, m);
		if (!mcg_has_full(g))
			mcg_delete(sa, g);
	}
}

void soft_sa_mcast_free_all(soft_sa_t *sa)
{
	while (sa->groups) {
		sa_mcg_t *g = sa->groups;

		sa->groups = g->next;
		while (g->members) {
			sa_mcm_t *m = g->members;

			g->members = m->next;
			free(m);
		}
		free(g);
	}
}

static uint16_t mlid_alloc(soft_sa_t *sa, uint16_t want)
{
	uint32_t l;
	sa_mcg_t *g;

	for (l = want ? want : SA_MLID_FIRST; l <= SA_MLID_LAST; l++) {
		for (g = sa->groups; g; g = g->next)
			if (cl_ntoh16(g->rec.mlid) == l)
				break;
		if (!g)
			return (uint16_t)l;
		if (want)
			return 0;
	}
	return 0;
}

static void mcm_record(const sa_mcg_t *g, const sa_mcm_t *m, ib_member_rec_t *out)
{
	*out = g->rec;
	out->port_gid = m->port_gid;
	out->scope_state = (uint8_t)((g->rec.scope_state & 0xF0) | (m->join_state & 0x0F));
	out->proxy_join = m->proxy ? 0x80 : 0;
	memset(out->pad, 0, sizeof(out->pad));
}

static uint8_t port_rate(const sa_port_t *e)
{
	return ib_port_info_compute_rate(&e->p.port_info,
					 (e->p.port_info.capability_mask & IB_PORT_CAP_HAS_EXT_SPEEDS) != 0);
}

static unsigned rate_merit(uint8_t r)
{
	return soft_sa_rate_bw(r);
}

/* Checks a selector component against a group's value. */
static bool sel_ok(uint64_t cm, unsigned selbit, unsigned valbit, uint8_t req, uint8_t have, unsigned (*merit)(uint8_t))
{
	unsigned mh = merit((uint8_t)(have & 0x3F)), mw = merit((uint8_t)(req & 0x3F));

	if (!(cm & valbit))
		return true;
	if (!(cm & selbit))
		return (req & 0x3F) == (have & 0x3F);
	switch (req >> 6) {
	case IB_PATH_SELECTOR_GREATER_THAN:
		return mh > mw;
	case IB_PATH_SELECTOR_LESS_THAN:
		return mh < mw;
	case IB_PATH_SELECTOR_EXACTLY:
		return mh == mw;
	default:
		return true;
	}
}

static unsigned life_merit(uint8_t v)
{
	return (unsigned)v + 1u;
}

/*
 * o15-0.1.2: a port joins or leaves for itself, unless ProxyJoin is set; the
 * requester is the port the request came from (by GRH GID, else by LID).
 */
static bool mcm_may_act(soft_sa_t *sa, const soft_mad_addr_t *src, const sa_port_t *port, uint64_t cm,
			const ib_member_rec_t *q)
{
	const sa_port_t *from = src->grh_valid ? soft_sa_port_by_gid(sa, &src->gid) : soft_sa_port_by_lid(sa, src->lid);

	if ((cm & C_PROXY) && (q->proxy_join & 0x80))
		return from != NULL;
	return port && from == port;
}

static ib_net16_t mcg_create(soft_sa_t *sa, const ib_member_rec_t *q, uint64_t cm, const sa_port_t *port,
			     sa_mcg_t **pg)
{
	uint8_t scope = (cm & C_SCOPE) ? (uint8_t)(q->scope_state >> 4) : IB_MC_SCOPE_LINK_LOCAL;
	uint8_t mtu, rate, life;
	uint16_t mlid;
	sa_mcg_t *g;
	const uint64_t need = C_QKEY | C_PKEY | C_SL | C_FLOW | C_TCLASS | C_JOIN;

	*pg = NULL;
	if ((cm & need) != need)
		return IB_SA_MAD_STATUS_INSUF_COMPS;
	if (!(q->scope_state & FULL_BITS))
		return IB_SA_MAD_STATUS_REQ_INVALID; /* only a (send-only) full member creates */
	if (!(q->pkey & IB_PKEY_BASE_MASK) || !soft_sa_port_has_pkey(port, q->pkey))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	mtu = soft_sa_select((uint8_t)(q->mtu >> 6), (uint8_t)(q->mtu & 0x3F), soft_sa_port_mtu(port),
			(cm & C_MTU) && (cm & C_MTUSEL), soft_sa_mtu_merit, soft_sa_mtu_cands, 5);
	if ((cm & C_MTU) && !(cm & C_MTUSEL))
		mtu = (q->mtu & 0x3F) <= soft_sa_port_mtu(port) ? (uint8_t)(q->mtu & 0x3F) : 0;
	rate = soft_sa_select((uint8_t)(q->rate >> 6), (uint8_t)(q->rate & 0x3F), port_rate(port),
			 (cm & C_RATE) && (cm & C_RATESEL), rate_merit, soft_sa_rate_cands, soft_sa_n_rate_cands);
	if ((cm & C_RATE) && !(cm & C_RATESEL))
		rate = soft_sa_rate_bw((uint8_t)(q->rate & 0x3F)) &&
		       soft_sa_rate_bw((uint8_t)(q->rate & 0x3F)) <= soft_sa_rate_bw(port_rate(port)) ?
			       (uint8_t)(q->rate & 0x3F) : 0;
	if (!mtu || !rate)
		return IB_SA_MAD_STATUS_REQ_INVALID;
	life = SA_PKT_LIFE;
	if (cm & C_LIFE) {
		uint8_t want = (uint8_t)(q->pkt_life & 0x3F);
		uint8_t sel = (cm & C_LIFESEL) ? (uint8_t)(q->pkt_life >> 6) : IB_PATH_SELECTOR_EXACTLY;

		if (sel == IB_PATH_SELECTOR_EXACTLY)
			life = want;
		else if (sel == IB_PATH_SELECTOR_GREATER_THAN)
			life = want < SA_PKT_LIFE ? SA_PKT_LIFE : (uint8_t)(want + 1);
		else if (sel == IB_PATH_SELECTOR_LESS_THAN)
			life = want > SA_PKT_LIFE ? SA_PKT_LIFE : (uint8_t)(want ? want - 1 : 0);
		if (life > 63 || (sel == IB_PATH_SELECTOR_LESS_THAN && want == 0))
			return IB_SA_MAD_STATUS_REQ_INVALID;
	}
	mlid = mlid_alloc(sa, (cm & C_MLID) ? cl_ntoh16(q->mlid) : 0);
	if ((cm & C_MLID) && q->mlid && (cl_ntoh16(q->mlid) < SA_MLID_FIRST || cl_ntoh16(q->mlid) > SA_MLID_LAST))
		return IB_SA_MAD_STATUS_REQ_INVALID;
	if (!mlid)
		return (cm & C_MLID) && q->mlid ? IB_SA_MAD_STATUS_REQ_INVALID : IB_SA_MAD_STATUS_NO_RESOURCES;
	g = calloc(1, sizeof(*g));
	if (!g)
		return IB_SA_MAD_STATUS_NO_RESOURCES;
	g->rec = *q;
	if ((cm & C_MGID) && ib_gid_is_multicast(&q->mgid)) {
		scope = (uint8_t)(q->mgid.raw[1] & 0x0F);
	} else {
		uint64_t seq = ++sa->mgid_seq;
		uint8_t *b = g->rec.mgid.raw;

		memset(b, 0, 16);
		b[0] = 0xFF;
		b[1] = (uint8_t)(0x10 | (scope & 0x0F));
		b[2] = 0xA0;
		b[3] = 0x1B;
		memcpy(&b[4], &q->pkey, 2);
		b[4] |= 0x80; /* the full-membership form of the P_Key */
		seq = cl_hton64(seq);
		memcpy(&b[8], &seq, 8);
	}
	g->rec.mlid = cl_hton16(mlid);
	g->rec.mtu = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | mtu);
	g->rec.rate = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | rate);
	g->rec.pkt_life = (uint8_t)((IB_PATH_SELECTOR_EXACTLY << 6) | life);
	g->rec.sl_flow_hop = (cm & C_HOP) ? q->sl_flow_hop : (q->sl_flow_hop & CL_HTON32(0xFFFFFF00));
	g->rec.scope_state = (uint8_t)(scope << 4);
	g->rec.proxy_join = 0;
	memset(&g->rec.port_gid, 0, sizeof(g->rec.port_gid));
	memset(g->rec.reserved, 0, sizeof(g->rec.reserved));
	memset(g->rec.pad, 0, sizeof(g->rec.pad));
	g->next = sa->groups;
	sa->groups = g;
	*pg = g;
	return IB_SA_MAD_STATUS_SUCCESS;
}

/* Does a joiner agree with the group? */
static bool mcg_compatible(const sa_mcg_t *g, const ib_member_rec_t *q, uint64_t cm, const sa_port_t *port)
{
	const ib_member_rec_t *r = &g->rec;

	if ((cm & C_QKEY) && q->qkey != r->qkey)
		return false;
	if ((cm & C_PKEY) && q->pkey != r->pkey)
		return false;
	if ((cm & C_MLID) && q->mlid && q->mlid != r->mlid)
		return false;
	if ((cm & C_TCLASS) && q->tclass != r->tclass)
		return false;
	if ((cm & C_SL) && ((q->sl_flow_hop ^ r->sl_flow_hop) & CL_HTON32(0xF0000000)))
		return false;
	if ((cm & C_FLOW) && ((q->sl_flow_hop ^ r->sl_flow_hop) & CL_HTON32(0x0FFFFF00)))
		return false;
	if ((cm & C_HOP) && ((q->sl_flow_hop ^ r->sl_flow_hop) & CL_HTON32(0x000000FF)))
		return false;
	if ((cm & C_SCOPE) && (q->scope_state >> 4) != (r->scope_state >> 4))
		return false;
	if (!sel_ok(cm, C_MTUSEL, C_MTU, q->mtu, r->mtu, soft_sa_mtu_merit) ||
	    !sel_ok(cm, C_RATESEL, C_RATE, q->rate, r->rate, rate_merit) ||
	    !sel_ok(cm, C_LIFESEL, C_LIFE, q->pkt_life, r->pkt_life, life_merit))
		return false;
	if (soft_sa_port_mtu(port) < (r->mtu & 0x3F) ||
	    soft_sa_rate_bw(port_rate(port)) < soft_sa_rate_bw((uint8_t)(r->rate & 0x3F)))
		return false;
	return soft_sa_port_has_pkey(port, r->pkey);
}

static void mcm_join(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, uint64_t cm)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	uint8_t join = (uint8_t)(q->scope_state & 0x0F);
	sa_port_t *port;
	sa_mcg_t *g = NULL;
	sa_mcm_t *m;
	ib_member_rec_t out;
	bool created = false;

	if ((cm & (C_MGID | C_PGID | C_JOIN)) != (C_MGID | C_PGID | C_JOIN)) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INSUF_COMPS);
		return;
	}
	if (!join) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	port = soft_sa_port_by_gid(sa, &q->port_gid);
	if (!port) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INVALID_GID);
		return;
	}
	if (!mcm_may_act(sa, src, port, cm, q)) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	if ((cm & C_MGID) && !ib_gid_is_multicast(&q->mgid) &&
	    memcmp(&q->mgid, &(ib_gid_t){ 0 }, sizeof(ib_gid_t))) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INVALID_GID);
		return;
	}
	if (cm & C_MGID)
		g = soft_sa_mcg_find(sa, &q->mgid);
	if (!g) {
		ib_net16_t st = mcg_create(sa, q, cm, port, &g);

		if (st != IB_SA_MAD_STATUS_SUCCESS) {
			soft_sa_respond_err(sa, req, src, st);
			return;
		}
		created = true;
	} else if (!mcg_compatible(g, q, cm, port)) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	m = mcm_find(g, &q->port_gid);
	if (!m) {
		m = calloc(1, sizeof(*m));
		if (!m) {
			if (created) {
				sa->groups = g->next;
				free(g);
			}
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
			return;
		}
		m->port_gid = q->port_gid;
		m->next = g->members;
		g->members = m;
	}
	m->join_state |= join;
	m->proxy = (cm & C_PROXY) && (q->proxy_join & 0x80);
	if (created)
		soft_sa_notice(sa, 66, &g->rec.mgid, NULL, g->rec.pkey);
	mcm_record(g, m, &out);
	soft_sa_respond_one(sa, req, src, &out, sizeof(out));
}

static void mcm_leave(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, uint64_t cm)
{
	const ib_member_rec_t *q = (const ib_member_rec_t *)req->data;
	uint8_t bits = (uint8_t)(q->scope_state & 0x0F);
	ib_member_rec_t out;
	sa_mcg_t *g;
	sa_mcm_t *m;

	if ((cm & (C_MGID | C_PGID | C_JOIN)) != (C_MGID | C_PGID | C_JOIN)) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INSUF_COMPS);
		return;
	}
	g = soft_sa_mcg_find(sa, &q->mgid);
	m = g ? mcm_find(g, &q->port_gid) : NULL;
	if (!m || !bits || (bits & ~m->join_state) ||
	    (!m->proxy && !mcm_may_act(sa, src, soft_sa_port_by_gid(sa, &q->port_gid), 0, q))) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	m->join_state &= (uint8_t)~bits;
	mcm_record(g, m, &out);
	if (!m->join_state)
		mcm_remove(g, m);
	if (!mcg_has_full(g))
		mcg_delete(sa, g);
	soft_sa_respond_one(sa, req, src, &out, sizeof(out));
}

void soft_sa_h_mcmember(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask);
	sa_recs_t r;
	sa_mcg_t *g;

	if (req->method == IB_MAD_METHOD_SET) {
		mcm_join(sa, req, src, cm);
		return;
	}
	if (req->method == IB_MAD_METHOD_DELETE) {
		mcm_leave(sa, req, src, cm);
		return;
	}
	soft_sa_recs_init(&r, sizeof(ib_member_rec_t));
	for (g = sa->groups; g; g = g->next) {
		sa_mcm_t *m;

		for (m = g->members; m; m = m->next) {
			ib_member_rec_t rec;

			mcm_record(g, m, &rec);
			if (soft_sa_match(mcm_fields, sizeof(mcm_fields) / sizeof(mcm_fields[0]), cm, req->data, &rec) &&
			    (!(cm & C_FLOW) || !((((const ib_member_rec_t *)req->data)->sl_flow_hop ^ rec.sl_flow_hop) &
						 CL_HTON32(0x0FFFFF00))) &&
			    (!(cm & C_HOP) || !((((const ib_member_rec_t *)req->data)->sl_flow_hop ^ rec.sl_flow_hop) &
						CL_HTON32(0xFF))))
				soft_sa_recs_add(&r, &rec);
		}
	}
	soft_sa_respond(sa, req, src, &r);
}
