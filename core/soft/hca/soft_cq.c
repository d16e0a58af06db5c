/*
 * ibal soft provider: completion queues: ring, poll/peek, arming, overrun.
 * Copyright (c) 2026 The ibal authors. BSD-2-Clause.
 *
 * The ring, its arming and overrun rules are prov_wc_ring.h's (shared with the
 * verbs provider); here they are locked, sized and turned into upcalls:
 * IB_AE_CQ_ERROR once per overrun, cq_comp when an arming fires.
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include "soft_hca.h"
#include "ibal_mem.h"

ib_api_status_t soft_create_cq(void *h, uint32_t *p_size, void *al_cq, void **pp_cq)
{
	soft_ca_t *ca = h;
	soft_cq_t *cq;

	if (!p_size || !pp_cq)
		return IB_INVALID_PARAMETER;
	if (*p_size == 0 || *p_size > SOFT_MAX_CQES)
		return IB_INVALID_CQ_SIZE;
	cq = cl_zalloc(sizeof(*cq));
	if (!cq)
		return IB_INSUFFICIENT_MEMORY;
	if (prov_wc_ring_init(&cq->ring, *p_size)) {
		cl_free(cq);
		return IB_INSUFFICIENT_MEMORY;
	}
	pthread_mutex_lock(&ca->lock);
	if (ca->n_cq >= SOFT_MAX_CQS) {
		pthread_mutex_unlock(&ca->lock);
		prov_wc_ring_free(&cq->ring);
		cl_free(cq);
		return IB_INSUFFICIENT_RESOURCES;
	}
	ca->n_cq++;
	pthread_mutex_unlock(&ca->lock);
	/* Its entries resident now, as an HCA's CQ is pinned when it is made:
	 * the first pass of the ring faults no page on the data path. */
	ibal_mem_prefault(cq->ring.wc, (size_t)*p_size * sizeof(ib_wc_t));
	cq->ca = ca;
	cq->al_cq = al_cq;
	soft_lock_init(&cq->lock);
	*pp_cq = cq;
	return IB_SUCCESS;
}

ib_api_status_t soft_resize_cq(void *h, uint32_t *p_size)
{
	soft_cq_t *cq = h;
	prov_wc_ring_t *r = &cq->ring;
	ib_wc_t *wc;
	uint32_t i;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	if (*p_size == 0 || *p_size > SOFT_MAX_CQES)
		return IB_INVALID_CQ_SIZE;
	/* The ring's entries come and go as prov_wc_ring.h (shared with the
	 * verbs provider) has them. */
	wc = prov_wc_ring_alloc_entries(*p_size);
	if (!wc)
		return IB_INSUFFICIENT_MEMORY;
	ibal_mem_prefault(wc, (size_t)*p_size * sizeof(ib_wc_t)); /* as soft_create_cq */
	soft_lock(&cq->lock);
	if (r->count > *p_size) {
		soft_unlock(&cq->lock);
		prov_wc_ring_free_entries(wc, *p_size);
		return IB_OVERFLOW;
	}
	for (i = 0; i < r->count; i++)
		wc[i] = r->wc[prov_ring_at(r->head, i, r->size)];
	prov_wc_ring_free_entries(r->wc, r->size);
	r->wc = wc;
	r->head = 0;
	r->size = *p_size;
	r->overrun = 0;
	soft_unlock(&cq->lock);
	return IB_SUCCESS;
}

ib_api_status_t soft_query_cq(void *h, uint32_t *p_size)
{
	soft_cq_t *cq = h;

	if (!p_size)
		return IB_INVALID_PARAMETER;
	soft_lock(&cq->lock);
	*p_size = cq->ring.size;
	soft_unlock(&cq->lock);
	return IB_SUCCESS;
}

void soft_destroy_cq(void *h)
{
	soft_cq_t *cq = h;
	soft_ca_t *ca = cq->ca;

	soft_ca_purge(ca, cq);
	pthread_mutex_lock(&ca->lock);
	ca->n_cq--;
	pthread_mutex_unlock(&ca->lock);
	soft_lock_destroy(&cq->lock);
	prov_wc_ring_free(&cq->ring);
	cl_free(cq);
}

ib_api_status_t soft_peek_cq(void *h, uint32_t *p_n)
{
	soft_cq_t *cq = h;

	if (!p_n)
		return IB_INVALID_PARAMETER;
	soft_lock(&cq->lock);
	*p_n = cq->ring.count;
	soft_unlock(&cq->lock);
	return IB_SUCCESS;
}

/* Empty polls in a row on this thread (soft_poll_cq), and when the clock
 * was first read in that streak (0: not yet). */
static __thread unsigned empty_polls __attribute__((tls_model("initial-exec")));
static __thread uint64_t empty_since_ns __attribute__((tls_model("initial-exec")));

/* cq->lock held: publishes the entry count and arming for lock-free readers. */
static void publish(soft_cq_t *cq)
{
	__atomic_store_n(&cq->avail, cq->ring.count, __ATOMIC_RELEASE);
	__atomic_store_n(&cq->arm, cq->ring.arm, __ATOMIC_RELAXED);
}

/* take()'s work once entries were seen, out of line. */
static __attribute__((noinline)) ib_api_status_t take_locked(soft_cq_t *cq, ib_wc_t **pp_free,
							     ib_wc_t **pp_done)
{
	ib_api_status_t st;

	soft_lock(&cq->lock);
	st = prov_wc_ring_take(&cq->ring, pp_free, pp_done);
	publish(cq);
	soft_unlock(&cq->lock);
	return st;
}

/* Takes entries; an empty CQ (as last published) costs no lock and no call. */
static inline ib_api_status_t take(soft_cq_t *cq, ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	if (!__atomic_load_n(&cq->avail, __ATOMIC_ACQUIRE)) {
		*pp_done = NULL;
		return IB_NOT_FOUND;
	}
	return take_locked(cq, pp_free, pp_done);
}

ib_api_status_t soft_poll_cq(void *h, ib_wc_t **pp_free, ib_wc_t **pp_done)
{
	soft_cq_t *cq = h;
	ib_api_status_t st;
	boolean_t armed, took;

	if (!pp_free || !pp_done || !*pp_free)
		return IB_INVALID_PARAMETER;
	/* What the last poll left to send (below) goes now. */
	soft_progress_flush(cq->ca);
	st = take(cq, pp_free, pp_done);
	if (st != IB_NOT_FOUND)
		return st;
	/* Nothing yet: take what waits at the ports here rather than wait for
	 * the progress thread (no thread hop for a polling application). An
	 * armed CQ's owner is about to wait for its event: the progress
	 * thread must not back off for it. */
	armed = __atomic_load_n(&cq->arm, __ATOMIC_RELAXED) != PROV_WC_ARM_NONE;
	took = soft_progress_inline(cq->ca, cq, !armed);
	/* Nothing taken here: what another thread added meanwhile is the next poll's. */
	if (took)
		st = take(cq, pp_free, pp_done);
	/* The ACKs the packets called for go out now if nothing came for this
	 * CQ, else after the caller has its completions: at its next poll (or
	 * the progress thread's next look, within a millisecond), so that an
	 * answer it posts meanwhile leaves before them. */
	if (took && (st == IB_NOT_FOUND || armed))
		soft_progress_flush(cq->ca);
	/* A thread polling an empty CQ lends its processor now and then: the
	 * thread that must produce what it waits for (a peer's progress
	 * thread placing data) may be waiting for one. */
	if (st != IB_NOT_FOUND) {
		empty_polls = 0;
		empty_since_ns = 0;
	} else if (++empty_polls % SOFT_POLL_YIELD_EVERY == 0) {
		/* Only a streak longer than a round trip lends: a ping-pong's
		 * wait would otherwise pay a system call now and then. */
		uint64_t now = soft_mono_ns();

		if (!empty_since_ns)
			empty_since_ns = now;
		else if (now - empty_since_ns >= SOFT_POLL_YIELD_NS)
			sched_yield();
	}
	return st;
}

ib_api_status_t soft_rearm_cq(void *h, boolean_t solicited)
{
	soft_cq_t *cq = h;

	soft_lock(&cq->lock);
	prov_wc_ring_rearm(&cq->ring, solicited);
	publish(cq);
	soft_unlock(&cq->lock);
	soft_progress_yield(cq->ca);
	return IB_SUCCESS;
}

ib_api_status_t soft_rearm_n_cq(void *h, uint32_t n)
{
	soft_cq_t *cq = h;

	soft_lock(&cq->lock);
	if (n == 0 || n > cq->ring.size) {
		soft_unlock(&cq->lock);
		return IB_INVALID_PARAMETER;
	}
	prov_wc_ring_rearm_n(&cq->ring, n);
	publish(cq);
	soft_unlock(&cq->lock);
	soft_progress_yield(cq->ca);
	return IB_SUCCESS;
}

void soft_cq_add(soft_cq_t *cq, const ib_wc_t *p_wc, boolean_t solicited)
{
	boolean_t fire, overrun;

	if (!cq)
		return;
	soft_lock(&cq->lock);
	prov_wc_ring_put(&cq->ring, p_wc, solicited, &fire, &overrun);
	publish(cq);
	soft_unlock(&cq->lock);
	if (overrun)
		soft_ca_defer(cq->ca, cq, cq->al_cq, 0, IB_AE_CQ_ERROR, 0);
	if (fire)
		soft_ca_defer(cq->ca, cq, cq->al_cq, 1, 0, 0);
}
