/*
 * ibal tests: a recorder of a provider's upcalls, for the provider unit tests.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * Pass rec_upcalls where the provider's init takes the access layer's
 * upcalls. Every completion, async event and port change is counted, in
 * total and per object (and per event code): rec_comps(cq), rec_events(obj,
 * code) and rec_ports() read the counts; the rec_wait_* calls wait for one,
 * bounded by TEST_WAIT_US, and return the count reached. A NULL object and
 * REC_ANY_EVENT count every object and every code. rec_reset() zeroes all.
 * Include after al_prov.h and cl_test.h; one recorder per program.
 */
#ifndef IBAL_TEST_UPCALL_REC_H
#define IBAL_TEST_UPCALL_REC_H

#include <pthread.h>
#include <string.h>
#include <time.h>

/** Any event code, for rec_events() and rec_wait_events(). */
#define REC_ANY_EVENT ((ib_async_event_t)-1)

enum { REC_COMP, REC_EVENT, REC_PORT };

/* Distinct (kind, object, code) keys counted; more are counted in totals. */
#define REC_KEYS 256

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned total[3];                 /* by kind */
	unsigned n_keys;
	struct {
		int kind;
		void *obj;
		ib_async_event_t code;
		unsigned n;
	} key[REC_KEYS];
} rec = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { 0, 0, 0 }, 0, { { 0, NULL, 0, 0 } } };

static inline void rec_count(int kind, void *obj, ib_async_event_t code)
{
	unsigned i;

	pthread_mutex_lock(&rec.lock);
	rec.total[kind]++;
	for (i = 0; i < rec.n_keys; i++)
		if (rec.key[i].kind == kind && rec.key[i].obj == obj && rec.key[i].code == code)
			break;
	if (i == rec.n_keys && i < REC_KEYS) {
		rec.key[i].kind = kind;
		rec.key[i].obj = obj;
		rec.key[i].code = code;
		rec.key[i].n = 0;
		rec.n_keys++;
	}
	if (i < rec.n_keys)
		rec.key[i].n++;
	pthread_cond_broadcast(&rec.cond);
	pthread_mutex_unlock(&rec.lock);
}

static void rec_on_comp(void *al_cq)
{
	rec_count(REC_COMP, al_cq, (ib_async_event_t)0);
}

static void rec_on_event(void *al_obj, ib_async_event_t code, uint64_t vendor)
{
	(void)vendor;
	rec_count(REC_EVENT, al_obj, code);
}

static void rec_on_port(void *al_ca, uint8_t port_num)
{
	(void)port_num;
	rec_count(REC_PORT, al_ca, (ib_async_event_t)0);
}

/** The upcalls to hand to the provider. */
static const al_prov_upcalls_t rec_upcalls = { rec_on_comp, rec_on_event, rec_on_port };

/* The count of a key (rec.lock held); NULL and REC_ANY_EVENT match all. */
static inline unsigned rec_get_locked(int kind, void *obj, ib_async_event_t code)
{
	unsigned i, n = 0;

	if (!obj && (kind != REC_EVENT || code == REC_ANY_EVENT))
		return rec.total[kind];
	for (i = 0; i < rec.n_keys; i++)
		if (rec.key[i].kind == kind && (!obj || rec.key[i].obj == obj) &&
		    (kind != REC_EVENT || code == REC_ANY_EVENT || rec.key[i].code == code))
			n += rec.key[i].n;
	return n;
}

static inline unsigned rec_get(int kind, void *obj, ib_async_event_t code)
{
	unsigned n;

	pthread_mutex_lock(&rec.lock);
	n = rec_get_locked(kind, obj, code);
	pthread_mutex_unlock(&rec.lock);
	return n;
}

/* Waits, bounded, until a key's count reaches @p want; returns the count. */
static inline unsigned rec_wait(int kind, void *obj, ib_async_event_t code, unsigned want)
{
	struct timespec ts;
	unsigned n;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += TEST_WAIT_US / 1000000u;
	pthread_mutex_lock(&rec.lock);
	while ((n = rec_get_locked(kind, obj, code)) < want)
		if (pthread_cond_timedwait(&rec.cond, &rec.lock, &ts))
			break;
	n = rec_get_locked(kind, obj, code);
	pthread_mutex_unlock(&rec.lock);
	return n;
}

/** Completion upcalls of @p cq (NULL: of every CQ). */
static inline unsigned rec_comps(void *cq)
{
	return rec_get(REC_COMP, cq, (ib_async_event_t)0);
}

/** Async events @p code (or REC_ANY_EVENT) of @p obj (or NULL: any). */
static inline unsigned rec_events(void *obj, ib_async_event_t code)
{
	return rec_get(REC_EVENT, obj, code);
}

/** Port-change upcalls, of every CA. */
static inline unsigned rec_ports(void)
{
	return rec_get(REC_PORT, NULL, (ib_async_event_t)0);
}

/** Waits until rec_comps(@p cq) reaches @p want; returns it. */
static inline unsigned rec_wait_comps(void *cq, unsigned want)
{
	return rec_wait(REC_COMP, cq, (ib_async_event_t)0, want);
}

/** Waits until rec_events(@p obj, @p code) reaches @p want; returns it. */
static inline unsigned rec_wait_events(void *obj, ib_async_event_t code, unsigned want)
{
	return rec_wait(REC_EVENT, obj, code, want);
}

/** Waits until rec_ports() reaches @p want; returns it. */
static inline unsigned rec_wait_ports(unsigned want)
{
	return rec_wait(REC_PORT, NULL, (ib_async_event_t)0, want);
}

/** Forgets every count. */
static inline void rec_reset(void)
{
	pthread_mutex_lock(&rec.lock);
	memset(rec.total, 0, sizeof(rec.total));
	rec.n_keys = 0;
	pthread_mutex_unlock(&rec.lock);
}

#endif /* IBAL_TEST_UPCALL_REC_H */
