/*
 * ibal soft provider: the SA's InformInfo subscriptions and the Notice Reports it sends (IBA 13.4.8.3, 13.4.11).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * InformInfo Set with Subscribe 1 records a subscription of the requesting
 * port (its GID from the GRH or from its LID); Subscribe 0 removes the
 * subscription of that port with the same parameters (REQ_INVALID when there
 * is none). The answer is GetResp with the InformInfo; a refusal carries the
 * InformInfo with Subscribe 0. Security traps need the SM_Key; a GID given
 * must be a port sharing a P_Key with the subscriber. The SA raises traps
 * 64/65 (port in/out of service) and 66/67 (multicast group created/deleted),
 * generic, type Subnet Management, producer Class Manager, issued by the SM's
 * LID and GID, with the GID in the data details. Each subscription that
 * wants the trap (matched as OpenSM does, see sub_wants()) and may see it
 * (P_Key shared with the port, or the group's P_Key held) gets a Report to
 * the address its Set came from (LID, QPN: C13-32.1.2); the Report is sent
 * again after a timeout derived from the InformInfo's RespTimeValue until a
 * ReportResp with its TID comes back, SA_REPORT_MAX_RETRIES times at most.
 * InformInfoRecords show QPN 0 to untrusted requesters. A port holds at
 * most sa->subs_max subscriptions (IBAL_SOFT_SA_SUBS_PER_PORT): a new one
 * past that is refused with NO_RESOURCES and logged.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "soft_sa_int.h"
#include "ibal_log.h"

/* Same subscription: every field but Subscribe, the reserved ones and the QPN/RespTimeValue word. */
static bool ii_same(const ib_inform_info_t *a, const ib_inform_info_t *b)
{
	ib_inform_info_t x = *a, y = *b;

	x.subscribe = y.subscribe = 0;
	x.reserved1 = y.reserved1 = 0;
	x.g_or_v.generic.reserved2 = y.g_or_v.generic.reserved2 = 0;
	x.g_or_v.generic.qpn_resp_time_val = y.g_or_v.generic.qpn_resp_time_val = 0;
	return !memcmp(&x, &y, sizeof(x));
}

/* The subscriptions of port @p who (the list is bounded by the ports times
 * subs_max, so a count by walking it is too). */
static uint32_t subs_of(const soft_sa_t *sa, const ib_gid_t *who)
{
	const sa_sub_t *s;
	uint32_t n = 0;

	for (s = sa->subs; s; s = s->next)
		n += !memcmp(&s->subscriber, who, sizeof(*who));
	return n;
}

static void sub_unlink(soft_sa_t *sa, sa_sub_t *s)
{
	sa_sub_t **pp;

	for (pp = &sa->subs; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			free(s);
			return;
		}
}

void soft_sa_h_inform(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	const ib_inform_info_t *ii = (const ib_inform_info_t *)req->data;
	sa_port_t *port = src->grh_valid ? soft_sa_port_by_gid(sa, &src->gid) : soft_sa_port_by_lid(sa, src->lid);
	uint16_t trap = cl_ntoh16(ii->g_or_v.generic.trap_num);
	static const ib_gid_t zero;
	ib_gid_t who;
	sa_sub_t *s;

	if (!port || ii->subscribe > 1) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	who = soft_sa_port_gid(port);
	/* Security traps (256..259) only for trusted requesters (C15-0.2-1.16). */
	if (ii->subscribe && ii->is_generic && trap >= 256 && trap <= 259 &&
	    (!req->sm_key || req->sm_key != sa->sm_info.sm_key)) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
		return;
	}
	/* A GID given must be a port the subscriber shares a partition with. */
	if (ii->subscribe && memcmp(&ii->gid, &zero, sizeof(zero))) {
		sa_port_t *about = soft_sa_port_by_gid(sa, &ii->gid);

		if (!about || !soft_sa_share_pkey(&about->p.pkey_table, &port->p.pkey_table)) {
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
			return;
		}
	}
	for (s = sa->subs; s; s = s->next)
		if (!memcmp(&s->subscriber, &who, sizeof(who)) && ii_same(&s->info, ii))
			break;
	if (!ii->subscribe) {
		if (!s) {
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_REQ_INVALID);
			return;
		}
		sub_unlink(sa, s);
	} else {
		if (!s && subs_of(sa, &who) >= sa->subs_max) {
			IBAL_WARN(IBAL_SUB_SM, "SA: InformInfo Set of port 0x%016" PRIx64 " refused: it "
				  "holds %u subscriptions (%s)", cl_ntoh64(who.unicast.interface_id),
				  sa->subs_max, SOFT_SA_ENV_SUBS_PER_PORT);
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
			return;
		}
		if (!s) {
			s = calloc(1, sizeof(*s));
			if (!s) {
				soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
				return;
			}
			s->subscriber = who;
			s->enum_id = sa->sub_enum++;
			s->next = sa->subs;
			sa->subs = s;
		}
		/* Reports go back where the request came from (C13-32.1.2), QPN included. */
		s->info = *ii;
		s->addr = *src;
		ib_inform_info_set_qpn(&s->info, cl_hton32(src->qpn));
	}
	soft_sa_respond_one(sa, req, src, ii, sizeof(*ii));
}

void soft_sa_h_inform_rec(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	static const sa_field_t f[] = {
		{ 0, 0, 16, 0 }, { 1, 16, 2, 0 }, { 3, 24, 16, 0 }, { 4, 40, 2, 0 }, { 5, 42, 2, 0 },
		{ 7, 46, 1, 0 }, { 8, 47, 1, 0 }, { 9, 48, 2, 0 }, { 10, 50, 2, 0 },
		{ 15, 57, 3, 0 },
	};
	uint64_t cm = cl_ntoh64(req->comp_mask);
	const ib_inform_info_record_t *q = (const ib_inform_info_record_t *)req->data;
	sa_recs_t r;
	sa_sub_t *s;

	soft_sa_recs_init(&r, sizeof(ib_inform_info_record_t));
	for (s = sa->subs; s; s = s->next) {
		ib_inform_info_record_t rec;

		memset(&rec, 0, sizeof(rec));
		rec.subscriber_gid = s->subscriber;
		rec.subscriber_enum = cl_hton16(s->enum_id);
		rec.inform_info = s->info;
		/* The QPN only for trusted requesters (C15-0.2-1.16). */
		if (!req->sm_key || req->sm_key != sa->sm_info.sm_key)
			ib_inform_info_set_qpn(&rec.inform_info, 0);
		if (!soft_sa_match(f, sizeof(f) / sizeof(f[0]), cm, q, &rec))
			continue;
		if ((cm & (1u << 11)) && ((q->inform_info.g_or_v.generic.qpn_resp_time_val ^
					   rec.inform_info.g_or_v.generic.qpn_resp_time_val) &
					  CL_HTON32(0xFFFFFF00)))
			continue;
		soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}

/*
 * Does a subscription want a notice? As OpenSM matches: a non-zero GID must
 * be the issuer's GID, else a LID range (unless LIDRangeBegin is 0xFFFF; an
 * end of 0 means the begin) must hold the issuer's LID; IsGeneric must
 * match; Type, TrapNumber (0xFFFF) and ProducerType (0xFFFFFF) when given.
 */
static bool sub_wants(const sa_sub_t *s, uint16_t trap, const ib_mad_notice_attr_t *n)
{
	const ib_inform_info_t *ii = &s->info;
	uint16_t tt = cl_ntoh16(ii->trap_type), tn = cl_ntoh16(ii->g_or_v.generic.trap_num);
	uint32_t pt = cl_ntoh32(ib_inform_info_get_prod_type(ii));
	uint16_t lb = cl_ntoh16(ii->lid_range_begin), le = cl_ntoh16(ii->lid_range_end);
	uint16_t issuer = cl_ntoh16(n->issuer_lid);
	static const ib_gid_t zero;

	if (memcmp(&ii->gid, &zero, sizeof(zero))) {
		if (memcmp(&ii->gid, &n->issuer_gid, sizeof(zero)))
			return false;
	} else if (lb != 0xFFFF) {
		if (issuer < lb || issuer > (le ? le : lb))
			return false;
	}
	if (!ii->is_generic)
		return false;
	if (tt != 0xFFFF && tt != ib_notice_get_type(n))
		return false;
	if (tn != 0xFFFF && tn != trap)
		return false;
	if (pt != 0xFFFFFF && pt != cl_ntoh32(ib_notice_get_prod_type(n)))
		return false;
	return true;
}

static uint64_t report_timeout(const sa_sub_t *s)
{
	uint8_t rtv;
	uint64_t t;

	ib_inform_info_get_qpn_resp_time(s->info.g_or_v.generic.qpn_resp_time_val, NULL, &rtv);
	t = rtv >= 31 ? SA_REPORT_MAX_TIMEOUT_US : (4096ull << rtv) / 1000u * 2u;
	if (t < SA_REPORT_MIN_TIMEOUT_US)
		t = SA_REPORT_MIN_TIMEOUT_US;
	if (t > SA_REPORT_MAX_TIMEOUT_US)
		t = SA_REPORT_MAX_TIMEOUT_US;
	return t;
}

void soft_sa_notice(soft_sa_t *sa, uint16_t trap, const ib_gid_t *gid, const ib_pkey_table_t *pkeys,
	       ib_net16_t pkey)
{
	ib_mad_notice_attr_t n;
	sa_sub_t *s;
	uint64_t now;

	if (!sa->subs)
		return;
	now = soft_sa_now(sa);
	memset(&n, 0, sizeof(n));
	n.generic_type = 0x80 | IB_NOTICE_TYPE_SUBN_MGMT;
	ib_notice_set_prod_type(&n, IB_NOTICE_PRODUCER_TYPE_CLASS_MGR);
	n.g_or_v.generic.trap_num = cl_hton16(trap);
	n.issuer_lid = cl_hton16(sa->sm_lid);
	n.toggle_count = 0;
	n.data_details.ntc_64_67.gid = *gid;
	n.issuer_gid = soft_sa_sm_gid(sa);
	for (s = sa->subs; s; s = s->next) {
		const sa_port_t *sub = soft_sa_port_by_gid(sa, &s->subscriber);
		sa_report_t *rp;
		ib_sa_mad_t *m;

		if (!sub || !sub_wants(s, trap, &n))
			continue;
		if (pkeys && !soft_sa_share_pkey(pkeys, &sub->p.pkey_table))
			continue;
		if (!pkeys && pkey && !soft_sa_port_has_pkey(sub, pkey))
			continue;
		rp = calloc(1, sizeof(*rp));
		if (!rp)
			continue;
		m = (ib_sa_mad_t *)rp->mad;
		m->base_ver = 1;
		m->mgmt_class = IB_MCLASS_SUBN_ADM;
		m->class_ver = SA_CLASS_VER;
		m->method = IB_MAD_METHOD_REPORT;
		m->trans_id = cl_hton64(0x5AA0000000000000ull | sa->next_tid++);
		m->attr_id = IB_MAD_ATTR_NOTICE;
		m->attr_offset = cl_hton16(sizeof(n) / 8);
		memcpy(m->data, &n, sizeof(n));
		rp->dst = s->addr;
		rp->timeout_us = report_timeout(s);
		rp->deadline = now + rp->timeout_us;
		rp->next = sa->reports;
		sa->reports = rp;
		soft_sa_send(sa, rp->mad, &rp->dst);
	}
}

static void report_unlink(soft_sa_t *sa, sa_report_t *rp)
{
	sa_report_t **pp;

	for (pp = &sa->reports; *pp; pp = &(*pp)->next)
		if (*pp == rp) {
			*pp = rp->next;
			free(rp);
			return;
		}
}

void soft_sa_report_resp(soft_sa_t *sa, const ib_mad_t *mad, const soft_mad_addr_t *src)
{
	sa_report_t *rp;

	for (rp = sa->reports; rp; rp = rp->next) {
		const ib_mad_t *h = (const ib_mad_t *)rp->mad;

		if (h->trans_id == mad->trans_id && rp->dst.lid == src->lid) {
			report_unlink(sa, rp);
			return;
		}
	}
}

uint64_t soft_sa_report_timer(soft_sa_t *sa, uint64_t now)
{
	sa_report_t *rp, *n;
	uint64_t next = UINT64_MAX;

	for (rp = sa->reports; rp; rp = n) {
		n = rp->next;
		if (rp->deadline <= now) {
			if (rp->tries >= SA_REPORT_MAX_RETRIES) {
				report_unlink(sa, rp);
				continue;
			}
			rp->tries++;
			soft_sa_send(sa, rp->mad, &rp->dst);
			rp->deadline = now + rp->timeout_us;
		}
		if (rp->deadline < next)
			next = rp->deadline;
	}
	return next;
}

void soft_sa_inform_port_gone(soft_sa_t *sa, const ib_gid_t *gid)
{
	sa_sub_t *s, *n;

	for (s = sa->subs; s; s = n) {
		n = s->next;
		if (!memcmp(&s->subscriber, gid, sizeof(*gid)))
			sub_unlink(sa, s);
	}
}

void soft_sa_inform_free_all(soft_sa_t *sa)
{
	while (sa->subs)
		sub_unlink(sa, sa->subs);
	while (sa->reports)
		report_unlink(sa, sa->reports);
}
