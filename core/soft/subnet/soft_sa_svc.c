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
 *
 * Records are indexed by RID (a Set or Delete is O(log n)) and, when
 * leased, by the end of their lease (expiry looks at the ended ones only).
 * A port (by the ServiceGID's interface ID) holds at most
 * IBAL_SOFT_SA_SVC_PER_PORT records (default SA_SVC_PER_PORT): a Set past
 * that is answered NO_RESOURCES and logged.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "soft_sa_int.h"
#include "ibal_env.h"
#include "ibal_log.h"

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

static int CL_API rid_cmp(const void *const a, const void *const b)
{
	return memcmp(a, b, sizeof(sa_svc_rid_t));
}

static int CL_API due_cmp(const void *const p1, const void *const p2)
{
	const sa_svc_due_t *a = (const sa_svc_due_t *)p1, *b = (const sa_svc_due_t *)p2;

	if (a->expire_us != b->expire_us)
		return a->expire_us < b->expire_us ? -1 : 1;
	return a->self < b->self ? -1 : a->self > b->self;
}

void soft_sa_svc_init(soft_sa_t *sa)
{
	cl_fmap_init(&sa->svc_rid, rid_cmp);
	cl_fmap_init(&sa->svc_due, due_cmp);
	cl_qmap_init(&sa->svc_counts);
	sa->svc_max = (uint32_t)__cl_env_uint(SOFT_SA_ENV_SVC_PER_PORT, 1, 1u << 20, SA_SVC_PER_PORT);
}

static void rid_of(const ib_service_record_t *q, sa_svc_rid_t *k)
{
	memset(k, 0, sizeof(*k));
	k->service_id = q->service_id;
	k->gid = q->service_gid;
	k->pkey = q->service_pkey;
}

/* The count of the port a ServiceGID names, made at 0 when @p make. */
static sa_svc_count_t *count_of(soft_sa_t *sa, const ib_gid_t *gid, boolean_t make)
{
	uint64_t key = gid->unicast.interface_id;
	cl_map_item_t *it = cl_qmap_get(&sa->svc_counts, key);
	sa_svc_count_t *c;

	if (it != cl_qmap_end(&sa->svc_counts))
		return PARENT_STRUCT(it, sa_svc_count_t, item);
	if (!make || !(c = calloc(1, sizeof(*c))))
		return NULL;
	cl_qmap_insert(&sa->svc_counts, key, &c->item);
	return c;
}

static void count_drop(soft_sa_t *sa, sa_svc_count_t *c)
{
	if (c && !--c->n) {
		cl_qmap_remove_item(&sa->svc_counts, &c->item);
		free(c);
	}
}

/* Files the record's lease end (or takes it out of the index). */
static void due_set(soft_sa_t *sa, sa_svc_t *s, uint64_t expire_us)
{
	if (s->expire_us != UINT64_MAX)
		cl_fmap_remove_item(&sa->svc_due, &s->by_due);
	s->expire_us = expire_us;
	if (expire_us == UINT64_MAX)
		return;
	s->due.expire_us = expire_us;
	s->due.self = (uint64_t)(uintptr_t)s;
	cl_fmap_insert(&sa->svc_due, &s->due, &s->by_due);
}

static void svc_unlink(soft_sa_t *sa, sa_svc_t *s)
{
	cl_fmap_remove_item(&sa->svc_rid, &s->by_rid);
	if (s->expire_us != UINT64_MAX)
		cl_fmap_remove_item(&sa->svc_due, &s->by_due);
	count_drop(sa, s->count);
	free(s);
}

uint64_t soft_sa_svc_expire(soft_sa_t *sa, uint64_t now)
{
	cl_fmap_item_t *it;

	while ((it = cl_fmap_head(&sa->svc_due)) != cl_fmap_end(&sa->svc_due)) {
		sa_svc_t *s = PARENT_STRUCT(it, sa_svc_t, by_due);

		if (s->expire_us > now)
			return s->expire_us;
		svc_unlink(sa, s);
	}
	return UINT64_MAX;
}

void soft_sa_svc_port_gone(soft_sa_t *sa, const ib_gid_t *gid)
{
	cl_fmap_item_t *it, *next;

	if (!count_of(sa, gid, FALSE))
		return;   /* it registered nothing */
	for (it = cl_fmap_head(&sa->svc_rid); it != cl_fmap_end(&sa->svc_rid); it = next) {
		sa_svc_t *s = PARENT_STRUCT(it, sa_svc_t, by_rid);

		next = cl_fmap_next(it);
		if (!memcmp(&s->rec.service_gid, gid, sizeof(*gid)))
			svc_unlink(sa, s);
	}
}

void soft_sa_svc_free_all(soft_sa_t *sa)
{
	cl_fmap_item_t *it;

	while ((it = cl_fmap_head(&sa->svc_rid)) != cl_fmap_end(&sa->svc_rid))
		svc_unlink(sa, PARENT_STRUCT(it, sa_svc_t, by_rid));
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
	sa_svc_rid_t k;
	cl_fmap_item_t *it;

	rid_of(q, &k);
	it = cl_fmap_get(&sa->svc_rid, &k);
	return it == cl_fmap_end(&sa->svc_rid) ? NULL : PARENT_STRUCT(it, sa_svc_t, by_rid);
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
		sa_svc_count_t *c = count_of(sa, &q.service_gid, FALSE);

		if (c && c->n >= sa->svc_max) {
			IBAL_WARN(IBAL_SUB_SM, "SA: ServiceRecord Set for port 0x%016" PRIx64 " refused: it "
				  "holds %u records (%s)", cl_ntoh64(q.service_gid.unicast.interface_id),
				  c->n, SOFT_SA_ENV_SVC_PER_PORT);
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
			return;
		}
		s = calloc(1, sizeof(*s));
		if (s && !c)
			c = count_of(sa, &q.service_gid, TRUE);
		if (!s || !c) {
			free(s);
			soft_sa_respond_err(sa, req, src, IB_SA_MAD_STATUS_NO_RESOURCES);
			return;
		}
		c->n++;
		s->count = c;
		s->expire_us = UINT64_MAX;
		rid_of(&q, &s->rid);
		cl_fmap_insert(&sa->svc_rid, &s->rid, &s->by_rid);
	}
	s->rec = q;
	due_set(sa, s, lease == LEASE_INFINITE ? UINT64_MAX : now + (uint64_t)lease * 1000000u);
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
	const cl_fmap_item_t *it;
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
	for (it = cl_fmap_head(&sa->svc_rid); it != cl_fmap_end(&sa->svc_rid); it = cl_fmap_next(it)) {
		const sa_svc_t *s = PARENT_STRUCT(it, sa_svc_t, by_rid);
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
