/*
 * ibal soft provider: the SA's ServiceRecords with their leases (IBA 15.2.5.14).
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * A record is identified by its RID: ServiceID, ServiceGID, ServiceP_Key
 * (the default P_Key when the component is not given). Set (ServiceID and
 * ServiceGID components required, else INSUF_COMPS; the GID must be a known
 * port, else INVALID_GID) registers a record or replaces the one with its
 * RID; its lease runs from now (0xFFFFFFFF, or no lease component: never
 * ends). Delete removes the record with the RID given and returns it
 * (NO_RECORDS when there is none). Get and GetTable return the records the
 * component mask selects, with the lease left in seconds. soft_sa_timer()
 * and every ServiceRecord request drop expired records.
 */
#include <stdlib.h>
#include "soft_sa_int.h"

#define LEASE_INFINITE 0xFFFFFFFFu

/* ServiceRecord fields by component bit. */
static sa_field_t svc_fields[37 + 1];
static size_t n_svc_fields;

static void svc_fields_init(void)
{
	size_t n = 0;
	unsigned i;

	if (n_svc_fields)
		return;
	svc_fields[n++] = (sa_field_t){ 0, 0, 8, 0 };    /* ServiceID */
	svc_fields[n++] = (sa_field_t){ 1, 8, 16, 0 };   /* ServiceGID */
	svc_fields[n++] = (sa_field_t){ 2, 24, 2, 0 };   /* ServiceP_Key */
	svc_fields[n++] = (sa_field_t){ 4, 28, 4, 0 };   /* ServiceLease */
	svc_fields[n++] = (sa_field_t){ 5, 32, 16, 0 };  /* ServiceKey */
	svc_fields[n++] = (sa_field_t){ 6, 48, 64, 0 };  /* ServiceName */
	for (i = 0; i < 16; i++)
		svc_fields[n++] = (sa_field_t){ (uint8_t)(7 + i), (uint8_t)(112 + i), 1, 0 };
	for (i = 0; i < 8; i++)
		svc_fields[n++] = (sa_field_t){ (uint8_t)(23 + i), (uint8_t)(128 + 2 * i), 2, 0 };
	for (i = 0; i < 4; i++)
		svc_fields[n++] = (sa_field_t){ (uint8_t)(31 + i), (uint8_t)(144 + 4 * i), 4, 0 };
	svc_fields[n++] = (sa_field_t){ 35, 160, 8, 0 };
	/* bit 36 (ServiceData64.1) at 168: 8 bytes; offset fits in uint8_t */
	svc_fields[n++] = (sa_field_t){ 36, 168, 8, 0 };
	n_svc_fields = n;
}

static pthread_once_t svc_once = PTHREAD_ONCE_INIT;

static uint32_t lease_left(const sa_svc_t *s, uint64_t now)
{
	if (s->expire_us == UINT64_MAX)
		return LEASE_INFINITE;
	if (s->expire_us <= now)
		return 0;
	return (uint32_t)((s->expire_us - now + 999999u) / 1000000u);
}

static void svc_unlink(soft_sa_t *sa, sa_svc_t *s)
{
	sa_svc_t **pp;

	for (pp = &sa->svcs; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			free(s);
			return;
		}
}

uint64_t soft_sa_svc_expire(soft_sa_t *sa, uint64_t now)
{
	sa_svc_t *s, *n;
	uint64_t next = UINT64_MAX;

	for (s = sa->svcs; s; s = n) {
		n = s->next;
		if (s->expire_us <= now)
			svc_unlink(sa, s);
		else if (s->expire_us < next)
			next = s->expire_us;
	}
	return next;
}

void soft_sa_svc_port_gone(soft_sa_t *sa, const ib_gid_t *gid)
{
	sa_svc_t *s, *n;

	for (s = sa->svcs; s; s = n) {
		n = s->next;
		if (!memcmp(&s->rec.service_gid, gid, sizeof(*gid)))
			svc_unlink(sa, s);
	}
}

void soft_sa_svc_free_all(soft_sa_t *sa)
{
	while (sa->svcs)
		svc_unlink(sa, sa->svcs);
}

/* The record of a Set or Delete: no ServiceP_Key means the default one, no lease an infinite one. */
static ib_service_record_t svc_rid(const ib_sa_mad_t *req, uint64_t cm)
{
	ib_service_record_t q = *(const ib_service_record_t *)req->data;

	if (!(cm & (1u << 2)))
		q.service_pkey = cl_hton16(IB_DEFAULT_PKEY);
	if (!(cm & (1u << 4)))
		q.service_lease = cl_hton32(LEASE_INFINITE);
	return q;
}

/* The record with the RID (ServiceID, ServiceGID, ServiceP_Key) of q. */
static sa_svc_t *svc_find_rid(soft_sa_t *sa, const ib_service_record_t *q)
{
	sa_svc_t *s;

	for (s = sa->svcs; s; s = s->next)
		if (s->rec.service_id == q->service_id &&
		    !memcmp(&s->rec.service_gid, &q->service_gid, sizeof(ib_gid_t)) &&
		    s->rec.service_pkey == q->service_pkey)
			return s;
	return NULL;
}

static void svc_set(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, uint64_t cm,
		    uint64_t now)
{
	ib_service_record_t q = svc_rid(req, cm), out;
	uint32_t lease = cl_ntoh32(q.service_lease);
	sa_svc_t *s;

	if (!soft_sa_port_by_gid(sa, &q.service_gid)) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INVALID_GID);
		return;
	}
	s = svc_find_rid(sa, &q);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
			return;
		}
		s->next = sa->svcs;
		sa->svcs = s;
	}
	s->rec = q;
	s->expire_us = lease == LEASE_INFINITE ? UINT64_MAX : now + (uint64_t)lease * 1000000u;
	out = s->rec;
	out.service_lease = cl_hton32(lease_left(s, now));
	soft_sa_respond_one(sa, req, src, &out, sizeof(out));
}

static void svc_delete(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src, uint64_t cm,
		       uint64_t now)
{
	ib_service_record_t q = svc_rid(req, cm), out;
	sa_svc_t *s = svc_find_rid(sa, &q);

	if (!s) {
		soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RECORDS);
		return;
	}
	out = s->rec;
	out.service_lease = cl_hton32(lease_left(s, now));
	svc_unlink(sa, s);
	soft_sa_respond_one(sa, req, src, &out, sizeof(out));
}

void soft_sa_h_service(soft_sa_t *sa, const ib_sa_mad_t *req, const soft_mad_addr_t *src)
{
	uint64_t cm = cl_ntoh64(req->comp_mask), now = soft_sa_now(sa);
	const ib_service_record_t *q = (const ib_service_record_t *)req->data;
	sa_svc_t *s;
	sa_recs_t r;

	pthread_once(&svc_once, svc_fields_init);
	soft_sa_svc_expire(sa, now);
	if (req->method == IB_MAD_METHOD_SET || req->method == IB_MAD_METHOD_DELETE) {
		/* The RID: ServiceID and ServiceGID at least. */
		if ((cm & 3u) != 3u)
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_INSUF_COMPS);
		else if (req->method == IB_MAD_METHOD_SET)
			svc_set(sa, req, src, cm, now);
		else
			svc_delete(sa, req, src, cm, now);
		return;
	}
	soft_sa_recs_init(&r, sizeof(ib_service_record_t));
	for (s = sa->svcs; s; s = s->next) {
		ib_service_record_t rec = s->rec;

		rec.service_lease = cl_hton32(lease_left(s, now));
		/* A lease component matches the lease registered, not the time left. */
		if (!soft_sa_match(svc_fields, n_svc_fields, cm & ~((uint64_t)1 << 4), q, &rec))
			continue;
		if ((cm & (1u << 4)) && s->rec.service_lease != q->service_lease)
			continue;
		soft_sa_recs_add(&r, &rec);
	}
	soft_sa_respond(sa, req, src, &r);
}
